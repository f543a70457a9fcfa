# Running times (EBP Supp. section E = EB-TE; EBP Table 2 = thesis Table 2.2 = EB-T2): one job per
# main dataset times the training fit of ExactBoost (AUC, KS, P@k), RankBoost, DMKS and TopPush on
# one fold, in one process at one thread count, after a warm-up fit (D113). Aggregation ->
# results/tables/<ID>.csv; a papermill notebook -> .md and the verdict (D114).
from boostcm.experiments import exactboost_timing as eb_timing

EB_TIMING = config["exactboost"]["timing"]
EB_TIMING_DATASETS = eb_jobs.target_datasets(EB, EB_AVAILABLE, "EB-T3")


rule exactboost_timing:
    input:
        "results/data/processed/{dataset}.parquet",
    output:
        "results/exactboost/timing/{dataset}.parquet",
    log:
        "results/logs/exactboost/timing/{dataset}.log",
    benchmark:
        "results/benchmarks/exactboost/timing/{dataset}.tsv"
    conda:
        CONDA_ENV
    threads: EB_TIMING["threads"]
    resources:
        **measured("exactboost_timing"),
    params:
        methods=" ".join(eb_timing.TIMED_METHODS),
        settings=eb_jobs.batch_settings(EB, eb_timing.TIMED_METHODS, "estimator"),
        fold=EB_TIMING["fold"],
        repeats=EB_TIMING["repeats"],
        seed=SEED,
        n_folds=EB["n_folds"],
        cv_seed=EB["cv_seed"],
        pak=EB["pak_fraction"],
    shell:
        EB_ENV
        + " boostcm exactboost timing --dataset {wildcards.dataset} --data {input}"
        " --fold {params.fold} --repeats {params.repeats} --threads {threads}"
        " --method {params.methods}"
        " --n-folds {params.n_folds} --cv-seed {params.cv_seed} --seed {params.seed}"
        ' --pak-fraction {params.pak} --configfile "$BOOSTCM_RUN_CONFIG" --out {output}'
        " > {log} 2>&1"


rule exactboost_timing_table:
    input:
        jobs=expand(
            "results/exactboost/timing/{dataset}.parquet", dataset=EB_TIMING_DATASETS
        ),
        paper=[f"{PAPER_DIR}/{i}.csv" for i in (*eb_timing.TARGETS, "EB-T3")],
    output:
        report(
            "results/tables/{target}.csv",
            caption="../report/exactboost_timing.rst",
            category=REPORT_EB,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
    log:
        "results/logs/tables/{target}.log",
    wildcard_constraints:
        target=wildcard_pattern(eb_timing.TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_timing_table"),
    params:
        paper_dir=lambda wc, input: os.path.dirname(input.paper[0]),
    shell:
        "boostcm exactboost timing-table --target {wildcards.target}"
        " --paper-dir {params.paper_dir} --out {output} {input.jobs} > {log} 2>&1"


rule exactboost_timing_notebook:
    input:
        notebook="notebooks/exactboost_timing.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        markdown="results/tables/{target}.md",
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    wildcard_constraints:
        target=wildcard_pattern(eb_timing.TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_timing_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=input.table, markdown=output.markdown, verdict=output.verdict
        ),
        settings=lambda wc: notebook_args(target_id=wc.target),
    shell:
        NOTEBOOK


if EB["enabled"] and EB_TIMING["enabled"] and EB_TIMING_DATASETS:
    ALL_TARGETS.extend(verdict_files(eb_timing.TARGETS))
