# EB-T1 and EB-T5: dataset properties beside the published counts.
from boostcm.targets import paper_table

EB_TABLE_IDS = ["EB-T1", "EB-T5"]


rule eb_dataset_table:
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
        target="EB-T1|EB-T5",
    conda:
        CONDA_ENV
    resources:
        **measured("eb_dataset_table"),
    params:
        paper_dir=lambda wildcards, input: os.path.dirname(input.paper),
    shell:
        "boostcm dataset-table {wildcards.target} {input.processed} --paper-dir {params.paper_dir}"
        " --out {output} > {log} 2>&1"


rule eb_dataset_table_notebook:
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
        target="EB-T1|EB-T5",
    conda:
        CONDA_ENV
    resources:
        **measured("eb_dataset_table_notebook"),
    params:
        cmd=lambda wildcards, input, output: notebook_cmd(
            input.notebook,
            output.executed,
            target_id=wildcards.target,
            table_csv=input.table,
            markdown=output.markdown,
            verdict=output.verdict,
        ),
    shell:
        "{params.cmd} > {log} 2>&1"


if config["eb_tables"]["enabled"]:
    ALL_TARGETS.extend(f"results/verdicts/{t}.json" for t in EB_TABLE_IDS)
