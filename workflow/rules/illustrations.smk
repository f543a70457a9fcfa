# The documents' static items (boostcm.report.illustrations): thesis Table 1.1 (toy example),
# Tables 3.1 and 3.2 (example rows, looked up in the processed records) and LN-NONE (the lecture
# notes have no figure or table). Nothing is computed; each gets a table and a `built` verdict.

# target ID -> the datasets whose processed records its printed rows are looked up in (the
# `datasets` of its entry in config/targets.yaml)
ILLUSTRATION_RECORDS = {
    t: list(TARGET_REGISTRY[t].entry.get("datasets", []))
    for t in target_ids("illustration_table")
}


rule illustration_table:
    input:
        transcription=f"{PAPER_DIR}/illustrations/{{target}}.csv",
        records=lambda wc: processed_files(ILLUSTRATION_RECORDS[wc.target]),
    output:
        table=report(
            "results/tables/{target}.csv",
            caption="../report/illustration.rst",
            category=REPORT_HASH,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
        markdown="results/tables/{target}.md",
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/illustrations/{target}.log",
    benchmark:
        "results/benchmarks/illustrations/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(ILLUSTRATION_RECORDS),
    conda:
        CONDA_ENV
    resources:
        **measured("illustration_table"),
    params:
        # config/paper, from the transcription's path (config/paper/illustrations/<ID>.csv)
        paper_dir=lambda wc, input: os.path.dirname(
            os.path.dirname(input.transcription)
        ),
    shell:
        "boostcm illustration {wildcards.target} --records {input.records}"
        " --paper-dir {params.paper_dir} --table {output.table} --markdown {output.markdown}"
        " --verdict {output.verdict} > {log} 2>&1"


rule illustration_none:
    output:
        verdict="results/verdicts/LN-NONE.json",
    log:
        "results/logs/illustrations/LN-NONE.log",
    conda:
        CONDA_ENV
    resources:
        **measured("illustration_none"),
    params:
        paper_dir=PAPER_DIR,
    shell:
        "boostcm illustration LN-NONE --paper-dir {params.paper_dir} --verdict {output.verdict}"
        " > {log} 2>&1"


if config["illustrations"]["enabled"]:
    ALL_TARGETS.extend(
        verdict_files(target_ids("illustration_table", "illustration_none"))
    )
