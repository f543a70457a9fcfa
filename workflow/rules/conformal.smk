# CP-F1.1 (AR(1)) and CP-F4.1 (two-state HMM): marginal coverage of split CQR by Monte Carlo.
# One job = one chunk of simulations for one (process, parameter, model); an aggregation rule makes
# the target's table; a papermill notebook draws the figure and writes the verdict.
# With conformal.precision.half_width set, one job per (process, parameter, model) runs its
# simulations in batches until the precision target is met (or n_sims), instead of the chunks.
from boostcm.experiments.conformal import (
    chunk_ranges,
    format_param,
    n_sims_for,
    projected_sims,
)

CP = config["conformal"]
CP_PRECISION = CP["precision"]
CP_PRECISE = CP_PRECISION["half_width"] is not None
# the fixed protocol's jobs see the conformal settings without the precision option, so their
# params (and hence Snakemake's rerun triggers) are those of the runs made before it existed
CP_FIXED = {k: v for k, v in CP.items() if k != "precision"}
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
        cp=CP_FIXED,
        fsc="--finite-sample-correction" if CP["finite_sample_correction"] else "",
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads}"
        " boostcm conformal simulate --process {wildcards.process} --param {wildcards.param}"
        " --model {wildcards.model} --first {params.first} --count {params.n_sims} --seed {params.seed}"
        " --n-lags {params.cp[n_lags]} --n-train {params.cp[n_train]} --n-cal {params.cp[n_cal]}"
        " --n-test {params.cp[n_test]} --alpha {params.cp[alpha]} {params.fsc} --out {output} > {log} 2>&1"


# the simulations a precision job is projected to need (its cost): conditional sd measured per model
# at a few dependence levels, config/job_costs.yaml
CP_SD = JOB_COSTS["rules"]["conformal_simulate_point"]["conditional_sd"]
CP_EXPECTED = lambda wc: projected_sims(
    wc.process,
    float(wc.param),
    CP_SD[wc.model][wc.process],
    n_max=n_sims_for(CP["n_sims"], wc.model),
    **CP_PRECISION,
)


rule conformal_simulate_point:
    output:
        "results/conformal/sims/{process}/{model}/{param}/precision.parquet",
    log:
        "results/logs/conformal/sims/{process}/{model}/{param}/precision.log",
    benchmark:
        "results/benchmarks/conformal/sims/{process}/{model}/{param}/precision.tsv"
    wildcard_constraints:
        process=wildcard_pattern(sorted({p for p, _ in CP_SIM_TARGETS.values()})),
        model="boosting|forest|network",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("conformal_simulate_point", units=CP_EXPECTED),
    params:
        n_sims=lambda wc: n_sims_for(CP["n_sims"], wc.model),
        expected_sims=CP_EXPECTED,
        seed=SEED,
        cp=CP,
        fsc="--finite-sample-correction" if CP["finite_sample_correction"] else "",
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads}"
        " boostcm conformal simulate --process {wildcards.process} --param {wildcards.param}"
        " --model {wildcards.model} --first 0 --count {params.n_sims} --seed {params.seed}"
        " --n-lags {params.cp[n_lags]} --n-train {params.cp[n_train]} --n-cal {params.cp[n_cal]}"
        " --n-test {params.cp[n_test]} --alpha {params.cp[alpha]} {params.fsc}"
        " --half-width {params.cp[precision][half_width]} --level {params.cp[precision][level]}"
        " --batch {params.cp[precision][batch]} --min-sims {params.cp[precision][min_sims]}"
        " --out {output} > {log} 2>&1"


# per model, the names of a grid point's per-simulation files: its chunks, or under the precision
# option one file (none for a model given no simulations)
CP_SIM_NAMES = {
    m: [f"chunk{c}" for c in range(len(CP_CHUNKS[m]))] for m in CP["models"]
}
if CP_PRECISE:
    CP_SIM_NAMES = {
        m: ["precision"] if n_sims_for(CP["n_sims"], m) else [] for m in CP["models"]
    }


# the table's precision columns (none for the fixed protocol, whose command stays as it was)
CP_TABLE_PRECISION = ""
if CP_PRECISE:
    CP_TABLE_PRECISION = (
        (
            " --half-width {half_width} --level {level} --batch {batch} --min-sims {min_sims}"
        ).format(**CP_PRECISION)
        + " --max-sims "
        + " ".join(f"{m}={n_sims_for(CP['n_sims'], m)}" for m in CP["models"])
    )


rule conformal_coverage_table:
    input:
        lambda wc: [
            f"results/conformal/sims/{CP_SIM_TARGETS[wc.target][0]}/{m}/{format_param(v)}/{name}.parquet"
            for m in CP["models"]
            for v in CP[CP_SIM_TARGETS[wc.target][1]]
            for name in CP_SIM_NAMES[m]
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
    params:
        precision=CP_TABLE_PRECISION,
    shell:
        "boostcm conformal table {input}{params.precision} --out {output} > {log} 2>&1"


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
