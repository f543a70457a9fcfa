# Dataset-property tables (EB-T1, EB-T5; family dataset_properties of config/targets.yaml): the
# processed datasets' rows, features and positives beside the published counts.
from boostcm.targets import paper_table

DATASET_TABLES = target_ids("dataset_properties")


rule dataset_table:
    input:
        processed=lambda wildcards: processed_files(
            paper_table(wildcards.target, PAPER_DIR)["Dataset"]
        ),
        paper=f"{PAPER_DIR}/{{target}}.csv",
    output:
        report(
            "results/tables/{target}.csv",
            caption="../report/dataset_table.rst",
            category=REPORT_EB,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
    log:
        "results/logs/tables/{target}.log",
    benchmark:
        "results/benchmarks/tables/{target}.tsv"
    wildcard_constraints:
        target=target_pattern("dataset_properties"),
    conda:
        CONDA_ENV
    resources:
        **measured("dataset_table"),
    params:
        paper_dir=lambda wildcards, input: os.path.dirname(input.paper),
    shell:
        "boostcm dataset-table {wildcards.target} {input.processed} --paper-dir {params.paper_dir}"
        " --out {output} > {log} 2>&1"


rule dataset_table_notebook:
    input:
        notebook="notebooks/dataset_properties.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        markdown="results/tables/{target}.md",
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    benchmark:
        "results/benchmarks/notebooks/{target}.tsv"
    wildcard_constraints:
        target=target_pattern("dataset_properties"),
    conda:
        CONDA_ENV
    resources:
        **measured("dataset_table_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table, markdown=output.markdown, verdict=output.verdict
        ),
        settings=lambda wildcards: notebook_args(target_id=wildcards.target),
    shell:
        NOTEBOOK


if config["dataset_tables"]["enabled"]:
    ALL_TARGETS.extend(verdict_files(DATASET_TABLES))
