# Mackey, Luo and Eban, "Constrained classification and ranking via quantiles": QS-T1 (Ionosphere)
# and QS-T2 (Housing), P@tau of LR, AATP, Q1 and Q3 over random splits, QS-F2 (the
# precision-at-recall example) and QS-F1 (KDD Cup 2008: loss (10) vs l_prec@k^avg). Jobs: chunks
# of splits -> a table per target -> a papermill notebook (figure, verdict). QS-F1 runs only when
# its dataset is in data.datasets and its manual download is present (docs/datasets.md).
# Logic: boostcm.baselines, boostcm.experiments.quantile_surrogate.
from boostcm.experiments.conformal import chunk_ranges

QS = config["quantile_surrogate"]
QS_DIR = "results/quantile_surrogate"
QS_CHUNKS = chunk_ranges(QS["n_splits"], QS["chunk_size"])
# the tables of the quantile_table family (config/targets.yaml) whose dataset this run has
QS_TABLES = [
    t
    for t in target_ids("quantile_table")
    if QS["tables"][t]["dataset"] in config["data"]["datasets"]
]
QS_F2 = QS["f2"]
QS_F1 = QS["f1"]
QS_F1_CHUNKS = chunk_ranges(QS_F1["n_splits"], QS_F1["chunk_size"])


QS_F1_BUILT = (
    QS["enabled"] and QS_F1["enabled"] and manual_data_present(QS_F1["dataset"])
)
QS_F1_FLAGS = (
    " ".join(
        f"--{k.replace('_', '-')}={shlex.quote(str(v))}"
        for k, v in QS_F1.items()
        if k not in ("enabled", "dataset", "n_splits", "chunk_size", "taus")
    )
    + f" --taus {','.join(str(t) for t in QS_F1['taus'])}"
)
# every setting shared by the tables' jobs, as command-line flags (a change re-runs the jobs)
QS_FLAGS = (
    f"--cs {','.join(str(c) for c in QS['cs'])}"
    f" --validation-fraction {QS['validation_fraction']} --n-epochs {QS['n_epochs']}"
    f" --learning-rate {QS['learning_rate']} --momentum {QS['momentum']}"
    f" --n-starts {QS['n_starts']}"
)
QS_F2_FLAGS = " ".join(
    f"--{k.replace('_', '-')}={shlex.quote(str(v))}"
    for k, v in QS_F2.items()
    if k != "enabled"
)


rule qs_splits_chunk:
    input:
        lambda wildcards: f"results/data/processed/{QS['tables'][wildcards.target]['dataset']}.parquet",
    output:
        f"{QS_DIR}/{{target}}/chunk{{chunk}}.parquet",
    log:
        "results/logs/quantile_surrogate/{target}_chunk{chunk}.log",
    benchmark:
        "results/benchmarks/quantile_surrogate/{target}_chunk{chunk}.tsv"
    wildcard_constraints:
        target=target_pattern("quantile_table"),
        chunk=r"\d+",
    conda:
        CONDA_ENV
    resources:
        **measured("qs_splits_chunk", units=lambda wc: QS_CHUNKS[int(wc.chunk)][1]),
    params:
        first=lambda wildcards: QS_CHUNKS[int(wildcards.chunk)][0],
        n_splits=lambda wildcards: QS_CHUNKS[int(wildcards.chunk)][1],
        flags=lambda wildcards: f"{qs_table_flags(wildcards.target)} {QS_FLAGS}",
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"
        " boostcm quantile-surrogate splits --target {wildcards.target} --processed {input}"
        f" --first {{params.first}} --count {{params.n_splits}} --seed {SEED} {{params.flags}}"
        " --out {output} > {log} 2>&1"


rule qs_table:
    input:
        chunks=lambda wildcards: [
            f"{QS_DIR}/{wildcards.target}/chunk{c}.parquet"
            for c in range(len(QS_CHUNKS))
        ],
        paper=f"{PAPER_DIR}/{{target}}.csv",
    output:
        table=report(
            "results/tables/{target}.csv",
            caption="../report/qs_table.rst",
            category=REPORT_QS,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "table"},
        ),
        runs=f"{QS_DIR}/{{target}}/runs.parquet",
        chosen=f"{QS_DIR}/{{target}}/chosen.parquet",
    log:
        "results/logs/tables/{target}.log",
    wildcard_constraints:
        target=target_pattern("quantile_table"),
    conda:
        CONDA_ENV
    resources:
        **measured("qs_table"),
    params:
        paper_dir=lambda wildcards, input: os.path.dirname(input.paper),
    shell:
        "boostcm quantile-surrogate table --target {wildcards.target} {input.chunks}"
        " --paper-dir {params.paper_dir} --out {output.table} --runs-out {output.runs}"
        " --chosen-out {output.chosen} > {log} 2>&1"


rule qs_table_notebook:
    input:
        notebook="notebooks/quantile_surrogate.ipynb",
        table="results/tables/{target}.csv",
        chosen=f"{QS_DIR}/{{target}}/chosen.parquet",
    output:
        executed="results/notebooks/{target}.ipynb",
        figure=report(
            "results/figures/{target}.png",
            caption="../report/qs_table_figure.rst",
            category=REPORT_QS,
            subcategory="{target}",
            labels={"target": "{target}", "kind": "figure"},
        ),
        verdict="results/verdicts/{target}.json",
    log:
        "results/logs/notebooks/{target}.log",
    wildcard_constraints:
        target=target_pattern("quantile_table"),
    conda:
        CONDA_ENV
    resources:
        **measured("qs_table_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table,
            chosen=input.chosen,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=lambda wildcards: notebook_args(target_id=wildcards.target),
    shell:
        NOTEBOOK


rule qs_recall_example:
    output:
        summary=report(
            "results/tables/QS-F2.csv",
            caption="../report/qs_f2.rst",
            category=REPORT_QS,
            subcategory="QS-F2",
            labels={"target": "QS-F2", "kind": "table"},
        ),
        starts=f"{QS_DIR}/QS-F2/starts.parquet",
        train=f"{QS_DIR}/QS-F2/train.parquet",
    log:
        "results/logs/quantile_surrogate/QS-F2.log",
    benchmark:
        "results/benchmarks/quantile_surrogate/QS-F2.tsv"
    conda:
        CONDA_ENV
    resources:
        **measured("qs_recall_example"),
    params:
        flags=QS_F2_FLAGS,
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"
        f" boostcm quantile-surrogate recall-example --seed {SEED} {{params.flags}}"
        " --out {output.summary} --starts {output.starts} --train {output.train} > {log} 2>&1"


rule qs_recall_notebook:
    input:
        notebook="notebooks/quantile_surrogate.ipynb",
        table="results/tables/QS-F2.csv",
        starts=f"{QS_DIR}/QS-F2/starts.parquet",
        train=f"{QS_DIR}/QS-F2/train.parquet",
    output:
        executed="results/notebooks/QS-F2.ipynb",
        figure=report(
            "results/figures/QS-F2.png",
            caption="../report/qs_f2.rst",
            category=REPORT_QS,
            subcategory="QS-F2",
            labels={"target": "QS-F2", "kind": "figure"},
        ),
        verdict="results/verdicts/QS-F2.json",
    log:
        "results/logs/notebooks/QS-F2.log",
    conda:
        CONDA_ENV
    resources:
        **measured("qs_recall_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table,
            runs=input.starts,
            train=input.train,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=notebook_args(target_id="QS-F2"),
    shell:
        NOTEBOOK


rule qs_f1_chunk:
    input:
        f"results/data/processed/{QS_F1['dataset']}.parquet",
    output:
        f"{QS_DIR}/QS-F1/chunk{{chunk}}.parquet",
    log:
        "results/logs/quantile_surrogate/QS-F1_chunk{chunk}.log",
    benchmark:
        "results/benchmarks/quantile_surrogate/QS-F1_chunk{chunk}.tsv"
    wildcard_constraints:
        chunk=r"\d+",
    conda:
        CONDA_ENV
    resources:
        **measured("qs_f1_chunk", units=lambda wc: QS_F1_CHUNKS[int(wc.chunk)][1]),
    params:
        first=lambda wildcards: QS_F1_CHUNKS[int(wildcards.chunk)][0],
        n_splits=lambda wildcards: QS_F1_CHUNKS[int(wildcards.chunk)][1],
        flags=QS_F1_FLAGS,
    shell:
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"
        " boostcm quantile-surrogate f1-splits --processed {input}"
        f" --first {{params.first}} --count {{params.n_splits}} --seed {SEED} {{params.flags}}"
        " --out {output} > {log} 2>&1"


rule qs_f1_table:
    input:
        [f"{QS_DIR}/QS-F1/chunk{c}.parquet" for c in range(len(QS_F1_CHUNKS))],
    output:
        table=report(
            "results/tables/QS-F1.csv",
            caption="../report/qs_f1.rst",
            category=REPORT_QS,
            subcategory="QS-F1",
            labels={"target": "QS-F1", "kind": "table"},
        ),
        runs=f"{QS_DIR}/QS-F1/runs.parquet",
    log:
        "results/logs/tables/QS-F1.log",
    conda:
        CONDA_ENV
    resources:
        **measured("qs_f1_table"),
    shell:
        "boostcm quantile-surrogate f1-table {input} --out {output.table}"
        " --runs-out {output.runs} > {log} 2>&1"


rule qs_f1_notebook:
    input:
        notebook="notebooks/quantile_surrogate.ipynb",
        table="results/tables/QS-F1.csv",
        runs=f"{QS_DIR}/QS-F1/runs.parquet",
    output:
        executed="results/notebooks/QS-F1.ipynb",
        figure=report(
            "results/figures/QS-F1.png",
            caption="../report/qs_f1.rst",
            category=REPORT_QS,
            subcategory="QS-F1",
            labels={"target": "QS-F1", "kind": "figure"},
        ),
        verdict="results/verdicts/QS-F1.json",
    log:
        "results/logs/notebooks/QS-F1.log",
    conda:
        CONDA_ENV
    resources:
        **measured("qs_f1_notebook"),
    params:
        files=lambda wildcards, input, output: notebook_args(
            table_csv=input.table,
            runs=input.runs,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=notebook_args(target_id="QS-F1"),
    shell:
        NOTEBOOK


if QS["enabled"]:
    ALL_TARGETS.extend(f"results/verdicts/{t}.json" for t in QS_TABLES)
    if QS_F1_BUILT:
        ALL_TARGETS.extend(verdict_files(target_ids("quantile_f1")))
    if QS_F2["enabled"]:
        ALL_TARGETS.extend(verdict_files(target_ids("quantile_recall")))
