# ExactBoost's result tables (thesis section 2.3 = EBP section 4, Supp. section G): estimators EB-T3,
# EB-T6, EB-T8, EB-T10, EB-F3 and ensemblers EB-T4, EB-T7, EB-T9, EB-T11, by 5-fold CV.
# One job = dataset x fold x method (ExactBoost: one method per loss), in three stages:
#   estimator  fit on the training fold, score the test fold
#   base       a base model of the ensemblers: fit on the training fold without its ensembling set,
#              score the ensembling set and the test fold (the cache every ensembler reads)
#   ensembler  fit on the base models' scores (and features) of the ensembling set, score the test fold
# Aggregation -> results/tables/<ID>.csv; a papermill notebook -> .md (or EB-F3.png) and the verdict.
# Protocol and seeds: boostcm.experiments.exactboost (decisions D72-D74). EB-F2 at the end (D110-D112).
from boostcm.experiments import exactboost as eb_jobs

EB = config["exactboost"]
EB_AVAILABLE = config["data"]["datasets"]
EB_TABLES = target_ids("exactboost_estimator_table", "exactboost_ensembler_table")
EB_FIGURES = target_ids("exactboost_figure")
EB_ENV = "NUMBA_NUM_THREADS={threads} OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads}"


rule exactboost_estimator:
    input:
        "results/data/processed/{dataset}.parquet",
    output:
        "results/exactboost/estimators/{dataset}/fold{fold}/{method}.parquet",
    log:
        "results/logs/exactboost/estimators/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "results/benchmarks/exactboost/estimators/{dataset}/fold{fold}/{method}.tsv"
    wildcard_constraints:
        fold=r"\d+",
        method="|".join(eb_jobs.METHODS),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("exactboost_estimator"),
    params:
        methods=lambda wc: wc.method,
        settings=lambda wc: eb_jobs.batch_settings(EB, [wc.method], "estimator"),
        seed=SEED,
        n_folds=EB["n_folds"],
        cv_seed=EB["cv_seed"],
        pak=EB["pak_fraction"],
    shell:
        EB_ENV
        + " boostcm exactboost estimator --dataset {wildcards.dataset} --data {input}"
        " --fold {wildcards.fold} --method {params.methods} --n-folds {params.n_folds}"
        " --cv-seed {params.cv_seed} --seed {params.seed} --pak-fraction {params.pak}"
        ' --configfile "$BOOSTCM_RUN_CONFIG" --out {output} > {log} 2>&1'


rule exactboost_base_model:
    input:
        "results/data/processed/{dataset}.parquet",
    output:
        "results/exactboost/base/{dataset}/fold{fold}/{method}.parquet",
    log:
        "results/logs/exactboost/base/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "results/benchmarks/exactboost/base/{dataset}/fold{fold}/{method}.tsv"
    wildcard_constraints:
        fold=r"\d+",
        method="|".join(eb_jobs.BASE_MODELS),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("exactboost_base_model"),
    params:
        methods=lambda wc: wc.method,
        seed=SEED,
        n_folds=EB["n_folds"],
        cv_seed=EB["cv_seed"],
        pak=EB["pak_fraction"],
        fraction=EB["ensembler"]["ensembling_fraction"],
    shell:
        EB_ENV
        + " boostcm exactboost base --dataset {wildcards.dataset} --data {input}"
        " --fold {wildcards.fold} --method {params.methods} --n-folds {params.n_folds}"
        " --cv-seed {params.cv_seed} --seed {params.seed} --pak-fraction {params.pak}"
        " --ensembling-fraction {params.fraction} --out {output} > {log} 2>&1"


rule exactboost_ensembler:
    input:
        data="results/data/processed/{dataset}.parquet",
        base=lambda wc: [
            eb_jobs.base_path(wc.dataset, wc.fold, m) for m in eb_jobs.BASE_MODELS
        ],
    output:
        "results/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/{method}.parquet",
    log:
        "results/logs/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/{method}.log",
    benchmark:
        "results/benchmarks/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/{method}.tsv"
    wildcard_constraints:
        inputs=r"scores|scores\+features",
        fold=r"\d+",
        method="|".join(eb_jobs.ENSEMBLERS),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("exactboost_ensembler"),
    params:
        methods=lambda wc: wc.method,
        settings=lambda wc: eb_jobs.batch_settings(EB, [wc.method], "ensembler"),
        seed=SEED,
        pak=EB["pak_fraction"],
    shell:
        EB_ENV
        + " boostcm exactboost ensembler --dataset {wildcards.dataset} --data {input.data}"
        " --fold {wildcards.fold} --method {params.methods} --inputs '{wildcards.inputs}'"
        ' --seed {params.seed} --pak-fraction {params.pak} --configfile "$BOOSTCM_RUN_CONFIG"'
        " --base {input.base} --out {output} > {log} 2>&1"


# Small profiles (exactboost.batch_methods): one process per dataset x fold (x inputs) runs every
# method of a stage and writes the same files, byte for byte; one benchmark file per batch. Each
# batch rule is its single-job rule with every method's output, settings and one log.
if EB["batch_methods"]:

    ruleorder: exactboost_estimator_batch > exactboost_estimator
    ruleorder: exactboost_base_batch > exactboost_base_model
    ruleorder: exactboost_ensembler_batch > exactboost_ensembler

    use rule exactboost_estimator as exactboost_estimator_batch with:
        output:
            [
                f"results/exactboost/estimators/{{dataset}}/fold{{fold}}/{m}.parquet"
                for m in eb_jobs.METHODS
            ],
        log:
            "results/logs/exactboost/estimators/{dataset}/fold{fold}/batch.log",
        benchmark:
            "results/benchmarks/exactboost/estimators/{dataset}/fold{fold}/batch.tsv"
        resources:
            **measured("exactboost_estimator_batch"),
        params:
            methods=" ".join(eb_jobs.METHODS),
            settings=eb_jobs.batch_settings(EB, eb_jobs.METHODS, "estimator"),

    use rule exactboost_base_model as exactboost_base_batch with:
        output:
            [
                f"results/exactboost/base/{{dataset}}/fold{{fold}}/{m}.parquet"
                for m in eb_jobs.BASE_MODELS
            ],
        log:
            "results/logs/exactboost/base/{dataset}/fold{fold}/batch.log",
        benchmark:
            "results/benchmarks/exactboost/base/{dataset}/fold{fold}/batch.tsv"
        resources:
            **measured("exactboost_base_batch"),
        params:
            methods=" ".join(eb_jobs.BASE_MODELS),

    use rule exactboost_ensembler as exactboost_ensembler_batch with:
        output:
            [
                f"results/exactboost/ensemblers/{{inputs}}/{{dataset}}/fold{{fold}}/{m}.parquet"
                for m in eb_jobs.ENSEMBLERS
            ],
        log:
            "results/logs/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/batch.log",
        benchmark:
            "results/benchmarks/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/batch.tsv"
        resources:
            **measured("exactboost_ensembler_batch"),
        params:
            methods=" ".join(eb_jobs.ENSEMBLERS),
            settings=eb_jobs.batch_settings(EB, eb_jobs.ENSEMBLERS, "ensembler"),


rule exactboost_table:
    input:
        jobs=lambda wc: eb_jobs.table_inputs(EB, EB_AVAILABLE, wc.target),
        paper=lambda wc: [f"{PAPER_DIR}/{i}.csv" for i in eb_jobs.paper_ids(wc.target)],
    output:
        report(
            "results/tables/{target}.csv",
            caption="../report/exactboost_table.rst",
            category=REPORT_EB,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
    log:
        "results/logs/tables/{target}.log",
    benchmark:
        "results/benchmarks/tables/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(eb_jobs.TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_table"),
    params:
        paper_dir=PAPER_DIR,
        n_folds=EB["n_folds"],
    shell:
        "boostcm exactboost table --target {wildcards.target} --paper-dir {params.paper_dir}"
        " --n-folds {params.n_folds} --out {output} {input.jobs} > {log} 2>&1"


rule exactboost_table_notebook:
    input:
        notebook="notebooks/exactboost_table.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        markdown="results/tables/{target}.md",
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    wildcard_constraints:
        target=wildcard_pattern(EB_TABLES),
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_table_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=input.table, markdown=output.markdown, verdict=output.verdict
        ),
        settings=lambda wc: notebook_args(
            target_id=wc.target, default_inputs=EB["ensembler"]["inputs"]
        ),
    shell:
        NOTEBOOK


rule exactboost_figure_notebook:
    input:
        notebook="notebooks/exactboost_figure.ipynb",
        table="results/tables/EB-F3.csv",
    output:
        executed="results/notebooks/EB-F3.ipynb",
        figure=report(
            "results/figures/EB-F3.png",
            caption="../report/eb_f3.rst",
            category=REPORT_EB,
            subcategory="EB-F3",
            labels={"target": "EB-F3", "kind": "figure"},
        ),
        verdict="results/verdicts/EB-F3.json",
    log:
        "results/logs/notebooks/EB-F3.log",
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_figure_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=input.table, figure=output.figure, verdict=output.verdict
        ),
        settings=notebook_args(profile_note=PROFILE_NOTE),
    shell:
        NOTEBOOK


# EB-F2 (EBP Figure 2 = Supp. Figure 4, Supp. section H): one job fits the landscape models and the
# trajectories on one fold of one dataset and embeds their vectors (densMAP); a notebook draws it.
EBL = EB["landscape"]


rule exactboost_landscape:
    input:
        f"results/data/processed/{EBL['dataset']}.parquet",
    output:
        "results/exactboost/landscape/landscape.parquet",
    log:
        "results/logs/exactboost/landscape.log",
    benchmark:
        "results/benchmarks/exactboost/landscape.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("exactboost_landscape", units=EBL["n_models"]),
    params:
        settings=eb_jobs.settings_json(
            eb_jobs.job_model_settings(EB, "exactboost-ks", "estimator")
        ),
        estimators=" ".join(str(e) for e in EBL["estimators"]),
        dataset=EBL["dataset"],
        fold=EBL["fold"],
        n_models=EBL["n_models"],
        n_rounds=EBL["n_rounds"],
        n_seeds=EBL["n_seeds"],
        neighbors=EBL["umap_neighbors"],
        min_dist=EBL["umap_min_dist"],
        umap_seed=EBL["umap_seed"],
        seed=SEED,
        n_folds=EB["n_folds"],
        cv_seed=EB["cv_seed"],
    shell:
        EB_ENV
        + " boostcm exactboost landscape --dataset {params.dataset} --data {input}"
        " --fold {params.fold} --n-folds {params.n_folds} --cv-seed {params.cv_seed}"
        " --seed {params.seed} --n-models {params.n_models} --estimators {params.estimators}"
        " --n-rounds {params.n_rounds} --n-seeds {params.n_seeds}"
        " --umap-neighbors {params.neighbors} --umap-min-dist {params.min_dist}"
        ' --umap-seed {params.umap_seed} --configfile "$BOOSTCM_RUN_CONFIG"'
        " --out {output} > {log} 2>&1"


rule exactboost_landscape_notebook:
    input:
        notebook="notebooks/exactboost_landscape.ipynb",
        landscape="results/exactboost/landscape/landscape.parquet",
    output:
        executed="results/notebooks/EB-F2.ipynb",
        figure=report(
            "results/figures/EB-F2.png",
            caption="../report/eb_f2.rst",
            category=REPORT_EB,
            subcategory="EB-F2",
            labels={"target": "EB-F2", "kind": "figure"},
        ),
        verdict="results/verdicts/EB-F2.json",
    log:
        "results/logs/notebooks/EB-F2.log",
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_landscape_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            landscape=input.landscape, figure=output.figure, verdict=output.verdict
        ),
        settings=notebook_args(profile_note=PROFILE_NOTE),
    shell:
        NOTEBOOK


if EB["enabled"]:
    # a table none of whose datasets this run has is not requested: it would aggregate nothing
    ALL_TARGETS.extend(
        verdict_files(
            [
                t
                for t in [*EB_TABLES, *EB_FIGURES]
                if eb_jobs.target_datasets(EB, EB_AVAILABLE, t)
            ]
        )
    )
    if EBL["enabled"] and EBL["dataset"] in EB_AVAILABLE:
        ALL_TARGETS.extend(verdict_files(target_ids("exactboost_landscape")))
