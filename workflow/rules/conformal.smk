# CP-F1.1 (AR(1)) and CP-F4.1 (two-state HMM): marginal coverage of split CQR by Monte Carlo.
# One job = one chunk of simulations for one (process, parameter, model); an aggregation rule makes
# the target's table; a papermill notebook draws the figure and writes the verdict.
from boostcm.experiments.conformal import chunk_ranges, format_param, n_sims_for

CP = config["conformal"]
# target ID -> (process, the conformal key of its parameter values), from config/targets.yaml
CP_SIM_TARGETS = {
    t: (TARGET_REGISTRY[t].params["process"], TARGET_REGISTRY[t].params["values"])
    for t in target_ids("conformal_coverage")
}
CP_CHUNKS = {
    m: chunk_ranges(n_sims_for(CP["n_sims"], m), CP["chunk_size"]) for m in CP["models"]
}


rule conformal_simulate_chunk:
    output:
        "results/conformal/sims/{process}/{model}/{param}/chunk{chunk}.parquet",
    log:
        "results/logs/conformal/sims/{process}/{model}/{param}/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/conformal/sims/{process}/{model}/{param}/chunk{chunk}.tsv"
    wildcard_constraints:
        process=wildcard_pattern(sorted({p for p, _ in CP_SIM_TARGETS.values()})),
        model="boosting|forest|network",
        chunk=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured(
            "conformal_simulate_chunk",
            units=lambda wc: CP_CHUNKS[wc.model][int(wc.chunk)][1],
        ),
    params:
        first=lambda wc: CP_CHUNKS[wc.model][int(wc.chunk)][0],
        n_sims=lambda wc: CP_CHUNKS[wc.model][int(wc.chunk)][1],
        seed=SEED,
        cp=CP,
        fsc="--finite-sample-correction" if CP["finite_sample_correction"] else "",
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads}"
        " boostcm conformal simulate --process {wildcards.process} --param {wildcards.param}"
        " --model {wildcards.model} --first {params.first} --count {params.n_sims} --seed {params.seed}"
        " --n-lags {params.cp[n_lags]} --n-train {params.cp[n_train]} --n-cal {params.cp[n_cal]}"
        " --n-test {params.cp[n_test]} --alpha {params.cp[alpha]} {params.fsc} --out {output} > {log} 2>&1"


rule conformal_coverage_table:
    input:
        lambda wc: [
            f"results/conformal/sims/{CP_SIM_TARGETS[wc.target][0]}/{m}/{format_param(v)}/chunk{c}.parquet"
            for m in CP["models"]
            for v in CP[CP_SIM_TARGETS[wc.target][1]]
            for c in range(len(CP_CHUNKS[m]))
        ],
    output:
        report(
            "results/tables/{target}.csv",
            caption="../report/coverage_table.rst",
            category=REPORT_CP,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
    log:
        "results/logs/tables/{target}.log",
    benchmark:
        "results/benchmarks/tables/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(CP_SIM_TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("conformal_coverage_table"),
    shell:
        "boostcm conformal table {input} --out {output} > {log} 2>&1"


rule conformal_coverage_notebook:
    input:
        notebook="notebooks/conformal_coverage.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        figure=report(
            "results/figures/{target}.png",
            caption="../report/coverage_figure.rst",
            category=REPORT_CP,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "figure"},
        ),
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    benchmark:
        "results/benchmarks/notebooks/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(CP_SIM_TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("conformal_coverage_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=input.table, figure=output.figure, verdict=output.verdict
        ),
        settings=lambda wc: notebook_args(
            target_id=wc.target,
            alpha=CP["alpha"],
            n_cal=CP["n_cal"],
            n_train=CP["n_train"],
            profile_note=PROFILE_NOTE,
        ),
    shell:
        NOTEBOOK


if CP["enabled"]:
    ALL_TARGETS.extend(verdict_files(CP_SIM_TARGETS))
