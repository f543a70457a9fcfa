# The documents' static items (boostcm.report.illustrations): thesis Table 1.1 (toy example),
# Tables 3.1 and 3.2 (example rows, looked up in the processed records) and LN-NONE (the lecture
# notes have no figure or table). Nothing is computed; each gets a table and a `built` verdict.

ILLUSTRATION_RECORDS = {
    "HASH-T1.1": [],
    "HASH-T3.1": ["RLdata500", "RLdata10000"],
    "HASH-T3.2": ["restaurant"],
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
        target=r"HASH-T1\.1|HASH-T3\.[12]",
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
        f"results/verdicts/{t}.json" for t in [*ILLUSTRATION_RECORDS, "LN-NONE"]
    )
