# boostcm: regenerate every figure and table of the seed documents.
#   snakemake --cores 64                          full settings (config/config.yaml)
#   snakemake --cores 2 --configfile config/ci.yaml   small profile
#   snakemake --workflow-profile workflow/profiles/slurm   on a SLURM cluster
# Rules are thin: each calls `boostcm <command>` or a papermill notebook; logic lives in src/boostcm.

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
        ALL_TARGETS,
        REPORT if enabled("report") else [],
