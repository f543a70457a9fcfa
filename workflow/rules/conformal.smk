# CP-F1.1 (AR(1)) and CP-F4.1 (two-state HMM): marginal coverage of split CQR by Monte Carlo.
# One job = one chunk of simulations for one (process, parameter, model); an aggregation rule makes
# the target's table; a papermill notebook draws the figure and writes the verdict.
from boostcm.conformal.simulation import format_param

CP_SIM_TARGETS = {"CP-F1.1": ("ar1", "ar1_lambdas"), "CP-F4.1": ("hmm", "hmm_ps")}


def cp_n_sims(model):
    n = config["conformal"]["n_sims"]
    return int(n.get(model, 0)) if isinstance(n, dict) else int(n)


def cp_chunks(model):
    """(chunk id, first simulation, count) covering range(n_sims(model))."""
    size, n = config["conformal"]["chunk_size"], cp_n_sims(model)
    return [(c, first, min(size, n - first)) for c, first in enumerate(range(0, n, size))]


def cp_chunk_files(target):
    process, grid_key = CP_SIM_TARGETS[target]
    return [
        f"results/conformal/sims/{process}/{model}/{format_param(v)}/chunk{c}.parquet"
        for model in config["conformal"]["models"]
        for v in config["conformal"][grid_key]
        for c, _, _ in cp_chunks(model)
    ]


rule conformal_simulate_chunk:
    output:
        "results/conformal/sims/{process}/{model}/{param}/chunk{chunk}.parquet",
    wildcard_constraints:
        process="ar1|hmm",
        model="boosting|forest|network",
        chunk=r"\d+",
    params:
        first=lambda wc: cp_chunks(wc.model)[int(wc.chunk)][1],
        n_sims=lambda wc: cp_chunks(wc.model)[int(wc.chunk)][2],
        cp=config.get("conformal", {}),
        fsc=lambda wc: "--finite-sample-correction" if config["conformal"]["finite_sample_correction"] else "",
    threads: 1
    log:
        "results/logs/conformal/sims/{process}/{model}/{param}/chunk{chunk}.log",
    conda:
        CONDA_ENV
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads}"
        " python -m boostcm.conformal.cli simulate --process {wildcards.process} --param {wildcards.param}"
        " --model {wildcards.model} --first {params.first} --count {params.n_sims} --seed {SEED}"
        " --n-lags {params.cp[n_lags]} --n-train {params.cp[n_train]} --n-cal {params.cp[n_cal]}"
        " --n-test {params.cp[n_test]} --alpha {params.cp[alpha]} {params.fsc} --out {output} > {log} 2>&1"


rule conformal_coverage_table:
    input:
        lambda wc: cp_chunk_files(wc.target),
    output:
        "results/tables/{target}.csv",
    wildcard_constraints:
        target="CP-F1\\.1|CP-F4\\.1",
    log:
        "results/logs/tables/{target}.log",
    conda:
        CONDA_ENV
    shell:
        "python -m boostcm.conformal.cli aggregate {input} --out {output} > {log} 2>&1"


rule conformal_coverage_notebook:
    input:
        notebook="notebooks/conformal_coverage.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        figure="results/figures/{target}.png",
        verdict="results/verdicts/{target}.json",
    wildcard_constraints:
        target="CP-F1\\.1|CP-F4\\.1",
    params:
        cmd=lambda wc, input, output: notebook_cmd(
            input.notebook, output.executed, target_id=wc.target, table_csv=input.table,
            figure=output.figure, verdict=output.verdict, alpha=config["conformal"]["alpha"],
        ),
    log:
        "results/logs/notebooks/{target}.log",
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} > {log} 2>&1"


if enabled("conformal"):
    ALL_TARGETS.extend(f"results/verdicts/{t}.json" for t in CP_SIM_TARGETS)
