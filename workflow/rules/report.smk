# The report page: every target ID of TARGETS.md with its status, linking tables, figures, notebooks.


rule report:
    input:
        verdicts=ALL_TARGETS,
        targets=TARGETS_YAML,
    output:
        REPORT,
    shell:
        "boostcm report --targets {input.targets} --verdicts results/verdicts --out {output}"
