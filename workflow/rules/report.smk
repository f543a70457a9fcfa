# The results site (boostcm.report.site): results/report/index.html, one page per document and per
# target (figures, ours beside the published numbers, the rule, the claims, settings, data, code
# version, run time) and the executed notebooks as HTML. It gets the validated config as JSON, so
# a change of settings rebuilds it, the names of the config files (said on every page), and the
# verdicts this run builds (older ones are not shown).
import glob
import json

# the hypotheses about the deviations (boostcm.claims.hypotheses): their declarations and the
# results of their experiments, paths relative to the working directory; inputs, so the site is
# rebuilt when one changes
HYPOTHESES_DIR = "config/hypotheses"
HYPOTHESES = sorted(glob.glob(f"{HYPOTHESES_DIR}/*.yaml"))
HYPOTHESIS_RESULTS = sorted(glob.glob("benchmarks/results/hypotheses/*.json"))

# the config file(s) this run was given, named on every page of the site
REPORT_CONFIG_NAMES = " ".join(
    shlex.quote(os.path.relpath(f)) for f in workflow.configfiles
)


rule report:
    input:
        verdicts=ALL_TARGETS,
        targets=TARGETS_YAML,
        hypotheses=HYPOTHESES,
        hypothesis_results=HYPOTHESIS_RESULTS,
    output:
        REPORT,
    log:
        "results/logs/report.log",
    conda:
        CONDA_ENV
    resources:
        **measured("report"),
    params:
        paper_dir=PAPER_DIR,
        config=json.dumps(config, sort_keys=True),
        names=REPORT_CONFIG_NAMES,
        hypotheses=lambda wc, input: (
            os.path.dirname(input.hypotheses[0])
            if input.hypotheses
            else HYPOTHESES_DIR
        ),
    shell:
        "boostcm report --targets {input.targets} --verdicts results/verdicts --results results"
        " --paper-dir {params.paper_dir} --config-json {params.config:q}"
        " --config-names {params.names}"
        " --hypotheses {params.hypotheses} --hypotheses-root ."
        " --requested {input.verdicts} --out {output} > {log} 2>&1"
