# HASH-T3.3..T3.5 (TH §3.3): jobs = dataset x method x shingle size x seed chunk (the k/L/T or
# n_blocks grid of a method is evaluated inside its job); aggregation -> results/tables/HASH-T3.x.csv;
# a papermill notebook puts our numbers beside config/paper/HASH-T3.x.csv and writes the verdict.
from boostcm.experiments import hashing as hashing_jobs

HASH_CFG = config["hashing"]


rule hashing_job:
    input:
        "results/data/processed/{dataset}.parquet",
    output:
        "results/hashing/{dataset}/{method}/shingle{shingle}_seeds{chunk}.parquet",
    log:
        "results/logs/hashing/{dataset}_{method}_shingle{shingle}_seeds{chunk}.log",
    benchmark:
        "results/benchmarks/hashing/{dataset}_{method}_shingle{shingle}_seeds{chunk}.tsv"
    wildcard_constraints:
        method="ours|tlsh|klsh",
        shingle=r"\d+",
        chunk=r"\d+-\d+",
    conda:
        CONDA_ENV
    threads: 2
    resources:
        **measured("hashing_job"),
    params:
        settings=lambda wildcards: hashing_jobs.job_settings(
            HASH_CFG, wildcards.dataset, wildcards.method
        ),
        seed=SEED,
    shell:
        "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} boostcm hashing job"
        " --dataset {wildcards.dataset} --method {wildcards.method} --shingle {wildcards.shingle}"
        ' --seeds {wildcards.chunk} --global-seed {params.seed} --configfile "$BOOSTCM_RUN_CONFIG"'
        " --out {output} > {log} 2>&1"


rule hashing_table:
    input:
        lambda wildcards: hashing_jobs.job_outputs(
            HASH_CFG, hashing_jobs.dataset_of_target(HASH_CFG, wildcards.target)
        ),
    output:
        table=report(
            "results/tables/{target}.csv",
            caption="../report/hashing_table.rst",
            category=REPORT_HASH,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
        summary="results/hashing/{target}_all_configurations.csv",
    log:
        "results/logs/tables/{target}.log",
    benchmark:
        "results/benchmarks/tables/{target}.tsv"
    wildcard_constraints:
        target=target_pattern("hashing_table"),
    conda:
        CONDA_ENV
    resources:
        **measured("hashing_table"),
    shell:
        "boostcm hashing table {input} --out {output.table}"
        " --summary {output.summary} > {log} 2>&1"


rule hashing_notebook:
    input:
        notebook="notebooks/hashing_table.ipynb",
        table="results/tables/{target}.csv",
        summary="results/hashing/{target}_all_configurations.csv",
        paper=f"{PAPER_DIR}/{{target}}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        markdown="results/tables/{target}.md",
        figure=report(
            "results/figures/{target}.png",
            caption="../report/hashing_figure.rst",
            category=REPORT_HASH,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "figure"},
        ),
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    benchmark:
        "results/benchmarks/notebooks/{target}.tsv"
    wildcard_constraints:
        target=target_pattern("hashing_table"),
    conda:
        CONDA_ENV
    resources:
        **measured("hashing_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table,
            summary_csv=input.summary,
            paper_dir=os.path.dirname(input.paper),
            markdown=output.markdown,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=lambda wildcards: notebook_args(
            target_id=wildcards.target, profile_note=PROFILE_NOTE
        ),
    shell:
        NOTEBOOK


if HASH_CFG["enabled"]:
    ALL_TARGETS.extend(hashing_jobs.verdicts(HASH_CFG))
