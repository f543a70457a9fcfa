# beta-mixing bounds of thesis section 4.2: CP-F4.2a (correction vs n_cal) and CP-F4.2b (empirical
# coverage of gradient-boosting CQR at n_cal = n_test = 15000 against the Theorem 4.6 bound).
# Logic: boostcm.conformal.{mixing,bounds} and boostcm.experiments.conformal_bounds; bounds take milliseconds and are computed
# in the notebooks; the CP-F4.2b simulations are cut into chunks of seeds (one job each).
import json

CB = config["conformal_bounds"]
CB_A = CB["f42a"]
CB_B = CB["f42b"]
CB_DIR = "results/conformal_bounds"
CB_LEVELS_A = [float(x) for x in CB_A["one_minus_p"]]
CB_LEVELS_B = [float(x) for x in CB_B["one_minus_p"]]
CB_CHUNKS = range(-(-CB_B["n_seeds"] // CB_B["chunk_size"]))  # ceil division


rule conformal_bounds_f42b_chunk:
    output:
        f"{CB_DIR}/CP-F4.2b/omp{{one_minus_p}}_chunk{{chunk}}.parquet",
    log:
        f"results/logs/conformal_bounds/CP-F4.2b_omp{{one_minus_p}}_chunk{{chunk}}.log",
    benchmark:
        f"results/benchmarks/conformal_bounds/CP-F4.2b_omp{{one_minus_p}}_chunk{{chunk}}.tsv"
    wildcard_constraints:
        one_minus_p=r"[0-9.]+",
        chunk=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("conformal_bounds_f42b_chunk", units=CB_B["chunk_size"]),
    params:
        n_seeds=CB_B["n_seeds"],
        chunk_size=CB_B["chunk_size"],
        n_train=CB_B["n_train"],
        n_cal=CB_B["n_cal"],
        n_test=CB_B["n_test"],
        model=CB_B["model"],
        n_lags=CB["n_lags"],
        alpha=CB["alpha"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "boostcm conformal-bounds chunk --one-minus-p {wildcards.one_minus_p}"
        " --chunk {wildcards.chunk} --chunk-size {params.chunk_size} --n-seeds {params.n_seeds}"
        f" --seed {SEED}"
        " --n-train {params.n_train} --n-cal {params.n_cal} --n-test {params.n_test} --n-lags {params.n_lags}"
        " --alpha {params.alpha} --model {params.model} --out {output} > {log} 2>&1"


rule conformal_bounds_f42b_runs:
    input:
        [
            f"{CB_DIR}/CP-F4.2b/omp{one_minus_p}_chunk{c}.parquet"
            for one_minus_p in CB_LEVELS_B
            for c in CB_CHUNKS
        ],
    output:
        f"{CB_DIR}/CP-F4.2b_runs.parquet",
    log:
        "results/logs/conformal_bounds/CP-F4.2b_runs.log",
    conda:
        CONDA_ENV
    resources:
        **measured("conformal_bounds_f42b_runs"),
    shell:
        "boostcm conformal-bounds runs --out {output} {input} > {log} 2>&1"


rule conformal_bounds_f42b_notebook:
    input:
        notebook="notebooks/conformal_bound_coverage.ipynb",
        runs=f"{CB_DIR}/CP-F4.2b_runs.parquet",
    output:
        executed="results/notebooks/CP-F4.2b.ipynb",
        figure=report(
            "results/figures/CP-F4.2b.png",
            caption="../report/cp_f42b.rst",
            category=REPORT_CP,
            subcategory="CP-F4.2b",
            labels={"target": "CP-F4.2b", "kind": "figure"},
        ),
        table=report(
            "results/tables/CP-F4.2b.csv",
            caption="../report/cp_f42b.rst",
            category=REPORT_CP,
            subcategory="CP-F4.2b",
            labels={"target": "CP-F4.2b", "kind": "table"},
        ),
        verdict="results/verdicts/CP-F4.2b.json",
    log:
        "results/logs/notebooks/CP-F4.2b.log",
    benchmark:
        "results/benchmarks/notebooks/CP-F4.2b.tsv"
    conda:
        CONDA_ENV
    resources:
        **measured("conformal_bounds_f42b_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            runs_parquet=input.runs,
            table_csv=output.table,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=notebook_args(
            alpha=CB["alpha"],
            n_lags=CB["n_lags"],
            n_train=CB_B["n_train"],
            n_cal=CB_B["n_cal"],
            n_test=CB_B["n_test"],
            delta_cal=CB_B["delta_cal"],
            delta_test=CB_B["delta_test"],
            one_minus_p=json.dumps(CB_LEVELS_B),
            profile_note=PROFILE_NOTE,
        ),
    shell:
        NOTEBOOK


rule conformal_bounds_f42a_notebook:
    input:
        notebook="notebooks/conformal_correction.ipynb",
    output:
        executed="results/notebooks/CP-F4.2a.ipynb",
        figure=report(
            "results/figures/CP-F4.2a.png",
            caption="../report/cp_f42a.rst",
            category=REPORT_CP,
            subcategory="CP-F4.2a",
            labels={"target": "CP-F4.2a", "kind": "figure"},
        ),
        table=report(
            "results/tables/CP-F4.2a.csv",
            caption="../report/cp_f42a.rst",
            category=REPORT_CP,
            subcategory="CP-F4.2a",
            labels={"target": "CP-F4.2a", "kind": "table"},
        ),
        verdict="results/verdicts/CP-F4.2a.json",
    log:
        "results/logs/notebooks/CP-F4.2a.log",
    benchmark:
        "results/benchmarks/notebooks/CP-F4.2a.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("conformal_bounds_f42a_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=output.table, figure=output.figure, verdict=output.verdict
        ),
        settings=notebook_args(
            alpha=CB["alpha"],
            n_lags=CB["n_lags"],
            n_cal_min=CB_A["n_cal_min"],
            n_cal_max=CB_A["n_cal_max"],
            n_cal_num=CB_A["n_cal_num"],
            one_minus_p=json.dumps(CB_LEVELS_A),
            delta_min=CB_A["delta_min"],
            delta_max=CB_A["delta_max"],
            delta_num=CB_A["delta_num"],
            fixed_delta=CB_A["fixed_delta"],
            profile_note=PROFILE_NOTE,
        ),
    shell:
        f"NUMBA_NUM_THREADS={{threads}} {NOTEBOOK}"


if CB["enabled"]:
    ALL_TARGETS.extend(
        verdict_files(target_ids("conformal_correction", "conformal_bound_coverage"))
    )
