# Gupta, Podkopaev, Ramdas (2020): GUPTA-F2 / GUPTA-F3 (calibration under covariate shift, the
# simulation of Appendix D.4, repeated n_seeds times) and the illustrations GUPTA-T1 / GUPTA-F1.
# Jobs: chunks of runs -> one runs/reliability file -> a table per target -> a papermill notebook
# (reliability diagrams, verdict). Logic: boostcm.calibration, boostcm.experiments.calibration.
import dataclasses

from boostcm.experiments.calibration import ShiftSettings
from boostcm.experiments.conformal import chunk_ranges

CA = config["calibration"]
CA_DIR = "results/calibration"
CA_CHUNKS = chunk_ranges(CA["n_seeds"], CA["chunk_size"])
CA_TARGETS = target_ids("calibration_shift")
CA_ILLUSTRATIONS = target_ids("gupta_illustrations")
# every setting of a run, as command-line flags (a static string: a change re-runs the jobs)
CA_FLAGS = " ".join(
    f"--{f.name.replace('_', '-')} {CA[f.name]}"
    for f in dataclasses.fields(ShiftSettings)
)


rule calibration_simulate_chunk:
    output:
        runs=f"{CA_DIR}/chunks/chunk{{chunk}}.parquet",
        reliability=f"{CA_DIR}/chunks/chunk{{chunk}}.reliability.parquet",
    log:
        "results/logs/calibration/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/calibration/chunk{chunk}.tsv"
    wildcard_constraints:
        chunk=r"\d+",
    conda:
        CONDA_ENV
    threads: CA["threads"]
    resources:
        **measured(
            "calibration_simulate_chunk", units=lambda wc: CA_CHUNKS[int(wc.chunk)][1]
        ),
    params:
        first=lambda wildcards: CA_CHUNKS[int(wildcards.chunk)][0],
        n_runs=lambda wildcards: CA_CHUNKS[int(wildcards.chunk)][1],
        flags=CA_FLAGS,
    shell:
        "OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} MKL_NUM_THREADS={threads}"
        " boostcm calibration simulate --first {params.first} --count {params.n_runs}"
        f" --seed {SEED} {{params.flags}} --threads {{threads}}"
        " --out {output.runs} --reliability {output.reliability} > {log} 2>&1"


rule calibration_collect:
    input:
        runs=[f"{CA_DIR}/chunks/chunk{c}.parquet" for c in range(len(CA_CHUNKS))],
        reliability=[
            f"{CA_DIR}/chunks/chunk{c}.reliability.parquet"
            for c in range(len(CA_CHUNKS))
        ],
    output:
        runs=f"{CA_DIR}/runs.parquet",
        reliability=f"{CA_DIR}/reliability.parquet",
    log:
        "results/logs/calibration/collect.log",
    conda:
        CONDA_ENV
    resources:
        **measured("calibration_collect"),
    shell:
        "boostcm calibration collect --runs {input.runs} --reliability {input.reliability}"
        " --out {output.runs} --reliability-out {output.reliability} > {log} 2>&1"


rule calibration_table:
    input:
        runs=f"{CA_DIR}/runs.parquet",
        paper=f"{PAPER_DIR}/{{target}}.csv",
    output:
        report(
            "results/tables/{target}.csv",
            caption="../report/calibration_table.rst",
            category=REPORT_GUPTA,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
    log:
        "results/logs/tables/{target}.log",
    benchmark:
        "results/benchmarks/tables/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(CA_TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("calibration_table"),
    params:
        paper_run=CA["paper_run"],
        paper_dir=lambda wildcards, input: os.path.dirname(input.paper),
    shell:
        "boostcm calibration table --target {wildcards.target} --runs {input.runs}"
        " --paper-dir {params.paper_dir} --paper-run {params.paper_run} --out {output} > {log} 2>&1"


rule calibration_notebook:
    input:
        notebook="notebooks/calibration_shift.ipynb",
        table="results/tables/{target}.csv",
        runs=f"{CA_DIR}/runs.parquet",
        reliability=f"{CA_DIR}/reliability.parquet",
    output:
        executed="results/notebooks/{target}.ipynb",
        figure=report(
            "results/figures/{target}.png",
            caption="../report/calibration_figure.rst",
            category=REPORT_GUPTA,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "figure"},
        ),
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    benchmark:
        "results/benchmarks/notebooks/{target}.tsv"
    wildcard_constraints:
        target=wildcard_pattern(CA_TARGETS),
    conda:
        CONDA_ENV
    resources:
        **measured("calibration_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table,
            runs=input.runs,
            reliability=input.reliability,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=lambda wildcards: notebook_args(
            target_id=wildcards.target,
            paper_run=CA["paper_run"],
            profile_note=PROFILE_NOTE,
        ),
    shell:
        NOTEBOOK


rule calibration_notation_table:
    input:
        notebook="notebooks/gupta_illustrations.ipynb",
    output:
        executed="results/notebooks/GUPTA-T1.ipynb",
        rendered=report(
            "results/tables/GUPTA-T1.md",
            caption="../report/gupta_t1.rst",
            category=REPORT_GUPTA,
            subcategory="GUPTA-T1",
            labels={"target": "GUPTA-T1", "kind": "table"},
        ),
        verdict="results/verdicts/GUPTA-T1.json",
    log:
        "results/logs/notebooks/GUPTA-T1.log",
    conda:
        CONDA_ENV
    resources:
        **measured("calibration_notation_table"),
    params:
        files=lambda wc, input, output: notebook_args(
            rendered=output.rendered, verdict=output.verdict
        ),
        settings=notebook_args(target_id="GUPTA-T1"),
    shell:
        NOTEBOOK


rule calibration_relationship_diagram:
    input:
        notebook="notebooks/gupta_illustrations.ipynb",
    output:
        executed="results/notebooks/GUPTA-F1.ipynb",
        rendered=report(
            "results/figures/GUPTA-F1.png",
            caption="../report/gupta_f1.rst",
            category=REPORT_GUPTA,
            subcategory="GUPTA-F1",
            labels={"target": "GUPTA-F1", "kind": "figure"},
        ),
        verdict="results/verdicts/GUPTA-F1.json",
    log:
        "results/logs/notebooks/GUPTA-F1.log",
    conda:
        CONDA_ENV
    resources:
        **measured("calibration_relationship_diagram"),
    params:
        files=lambda wc, input, output: notebook_args(
            rendered=output.rendered, verdict=output.verdict
        ),
        settings=notebook_args(target_id="GUPTA-F1"),
    shell:
        NOTEBOOK


if CA["enabled"]:
    ALL_TARGETS.extend(verdict_files([*CA_TARGETS, *CA_ILLUSTRATIONS]))
