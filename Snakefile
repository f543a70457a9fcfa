# boostcm: regenerate every figure and table of the seed documents.
#   snakemake --cores 64                          full settings (config/config.yaml)
#   snakemake --cores 2 --configfile config/ci.yaml   small profile
#   snakemake --workflow-profile workflow/profiles/slurm   on a SLURM cluster
# Rules are thin: each calls `boostcm <command>` or a papermill notebook; logic lives in src/boostcm.

# A --configfile on the command line replaces the default config entirely (no silent merging of
# the full grid into a small profile); --config key=value still overrides single keys.
if not workflow.config_settings.configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/eb_tables.smk"


for _domain_rules in DOMAIN_RULE_FILES:

    include: _domain_rules


include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        DATA_TARGETS,
        ALL_TARGETS,
        REPORT if enabled("report") else [],
