# EB-F1 (thesis Figure 2.1 = EBP Figure 1): ExactBoost's training and test loss against the margin
# theta, per dataset and loss, on the result tables' folds with their estimator settings except the
# margin. One job = grid (coarse/dense) x dataset x fold x loss, every theta in one process (one
# job per loss: the longest job of a large dataset is a third of the sweep).
# Aggregation -> results/tables/EB-F1.csv; a papermill notebook -> EB-F1.png and the verdict.
# Protocol and seeds: boostcm.experiments.exactboost_margin (decisions D107-D109).
from boostcm.experiments import exactboost_margin as ebm_jobs

EBM = config["exactboost_margin"]
EBM_DATASETS, EBM_MISSING = ebm_jobs.margin_datasets(EBM, config["data"]["datasets"])


rule exactboost_margin:
    input:
        "results/data/processed/{dataset}.parquet",
    output:
        "results/exactboost_margin/{grid}/{dataset}/fold{fold}/{loss}.parquet",
    log:
        "results/logs/exactboost_margin/{grid}/{dataset}/fold{fold}/{loss}.log",
    benchmark:
        "results/benchmarks/exactboost_margin/{grid}/{dataset}/fold{fold}/{loss}.tsv"
    wildcard_constraints:
        grid="coarse|dense",
        fold=r"\d+",
        loss="auc|ks|pak",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured(
            "exactboost_margin",
            units=lambda wc: ebm_jobs.fit_units(EBM, EB, wc.grid, wc.dataset),
        ),
    params:
        thetas=lambda wc: ebm_jobs.thetas_arg(
            ebm_jobs.grid_thetas(EBM, EB["model"], wc.grid, wc.dataset)
        ),
        settings=eb_jobs.settings_json(ebm_jobs.margin_settings(EB)),
        fit_units=lambda wc: ebm_jobs.fit_units(EBM, EB, wc.grid, wc.dataset),
        seed=SEED,
        n_folds=EB["n_folds"],
        cv_seed=EB["cv_seed"],
        pak=EB["pak_fraction"],
    shell:
        EB_ENV
        + " boostcm exactboost margin --dataset {wildcards.dataset} --data {input}"
        " --fold {wildcards.fold} --grid {wildcards.grid} --losses {wildcards.loss}"
        " --thetas {params.thetas} --n-folds {params.n_folds} --cv-seed {params.cv_seed}"
        " --seed {params.seed} --pak-fraction {params.pak}"
        ' --configfile "$BOOSTCM_RUN_CONFIG" --out {output} > {log} 2>&1'


rule exactboost_margin_table:
    input:
        ebm_jobs.margin_jobs(EBM, EB, config["data"]["datasets"]),
    output:
        report(
            "results/tables/EB-F1.csv",
            caption="../report/eb_f1.rst",
            category=REPORT_EB,
            subcategory="EB-F1",
            labels={"target": "EB-F1", "kind": "table"},
        ),
    log:
        "results/logs/tables/EB-F1.log",
    benchmark:
        "results/benchmarks/tables/EB-F1.tsv"
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_margin_table"),
    params:
        n_folds=EB["n_folds"],
    shell:
        "boostcm exactboost margin-table --n-folds {params.n_folds} --out {output} {input}"
        " > {log} 2>&1"


rule exactboost_margin_notebook:
    input:
        notebook="notebooks/exactboost_margin.ipynb",
        table="results/tables/EB-F1.csv",
    output:
        executed="results/notebooks/EB-F1.ipynb",
        figure=report(
            "results/figures/EB-F1.png",
            caption="../report/eb_f1.rst",
            category=REPORT_EB,
            subcategory="EB-F1",
            labels={"target": "EB-F1", "kind": "figure"},
        ),
        verdict="results/verdicts/EB-F1.json",
    log:
        "results/logs/notebooks/EB-F1.log",
    conda:
        CONDA_ENV
    resources:
        **measured("exactboost_margin_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            table_csv=input.table, figure=output.figure, verdict=output.verdict
        ),
        settings=notebook_args(
            default_margin=EB["model"]["margin"],
            missing_datasets=",".join(EBM_MISSING),
            profile_note=PROFILE_NOTE,
        ),
    shell:
        NOTEBOOK


if EBM["enabled"] and EBM_DATASETS:
    ALL_TARGETS.extend(verdict_files(target_ids("exactboost_margin")))
