# EB-T1 and EB-T5: dataset properties beside the published counts.
from boostcm.report import paper_table

EB_TABLE_IDS = ["EB-T1", "EB-T5"]


def eb_table_inputs(target_id):
    names = paper_table(target_id, PAPER_DIR)["Dataset"].tolist()
    return [f"results/data/processed/{n}.parquet" for n in names if n in DATASETS]


rule eb_dataset_table:
    input:
        processed=lambda wildcards: eb_table_inputs(wildcards.target),
        paper=f"{PAPER_DIR}/{{target}}.csv",
    output:
        "results/tables/{target}.csv",
    wildcard_constraints:
        target="EB-T1|EB-T5",
    shell:
        "boostcm dataset-table {wildcards.target} {input.processed} --paper-dir {PAPER_DIR} --out {output}"


rule eb_dataset_table_notebook:
    input:
        notebook="notebooks/dataset_properties.ipynb",
        table="results/tables/{target}.csv",
    output:
        executed="results/notebooks/{target}.ipynb",
        markdown="results/tables/{target}.md",
        verdict="results/verdicts/{target}.json",
    wildcard_constraints:
        target="EB-T1|EB-T5",
    params:
        cmd=lambda wildcards, input, output: notebook_cmd(
            input.notebook, output.executed, target_id=wildcards.target, table_csv=input.table,
            markdown=output.markdown, verdict=output.verdict,
        ),
    shell:
        "{params.cmd}"


if enabled("eb_tables"):
    ALL_TARGETS.extend(f"results/verdicts/{t}.json" for t in EB_TABLE_IDS)
