# The report page: every target of config/targets.yaml with its status, linking tables, figures, notebooks.


rule report:
    input:
        verdicts=ALL_TARGETS,
        targets=TARGETS_YAML,
    output:
        REPORT,
    log:
        "results/logs/report.log",
    conda:
        CONDA_ENV
    shell:
        "boostcm report --targets {input.targets} --verdicts results/verdicts --out {output} > {log} 2>&1"
