# Online split CQR on the 2021 one-minute series (thesis section 4.4, Example 3): CP-F4.3 (daily
# and marginal coverage) and CP-T4.1 (coverage on events). One job = one series x one week x one
# calibration size x one refit stride; the weeks are independent (parallel, resumable). Logic:
# boostcm.conformal.{online,series} and boostcm.experiments.financial; decisions D75-D78.
FI = config["financial"]
FI_DIR = "results/financial"
FI_EVENTS = FI["events"]
FI_CHECK = FI["stride_check"]


FI_STRIDE_JOBS = [
    job
    for stride in (FI_CHECK["reference_stride"], FI["refit_every"])
    for job in financial_jobs(
        FI_CHECK["series"], [FI["n_cal"]], stride, FI_CHECK["start"], FI_CHECK["end"]
    )
]


rule financial_week:
    input:
        "results/data/processed/{series}.parquet",
    output:
        f"{FI_DIR}/jobs/{{series}}/ncal{{n_cal}}_stride{{stride}}/{{week}}.parquet",
    log:
        "results/logs/financial/{series}_ncal{n_cal}_stride{stride}_{week}.log",
    benchmark:
        "results/benchmarks/financial/{series}_ncal{n_cal}_stride{stride}_{week}.tsv"
    wildcard_constraints:
        series=r"histdata-[a-z]+",
        n_cal=r"\d+",
        stride=r"\d+",
        week=r"\d{4}-\d{2}-\d{2}",
    conda:
        CONDA_ENV
    threads: 1
    resources:
        **measured("financial_week"),
    params:
        drop_weekdays=",".join(FI["drop_weekdays"]),
        n_lags=FI["n_lags"],
        n_train=FI["n_train"],
        alpha=FI["alpha"],
        trend_length=FI_EVENTS["trend_length"],
        volatility_window=FI_EVENTS["volatility_window"],
        volatility_quantile=FI_EVENTS["volatility_quantile"],
    shell:
        "OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
        "boostcm financial week --series {wildcards.series} --processed {input}"
        " --week {wildcards.week} --drop-weekdays '{params.drop_weekdays}'"
        " --n-lags {params.n_lags} --n-train {params.n_train} --n-cal {wildcards.n_cal}"
        " --refit-every {wildcards.stride} --alpha {params.alpha}"
        " --trend-length {params.trend_length} --volatility-window {params.volatility_window}"
        " --volatility-quantile {params.volatility_quantile} --out {output} > {log} 2>&1"


rule financial_daily:
    input:
        financial_jobs(FI["series"], [FI["n_cal"]], FI["refit_every"]),
    output:
        f"{FI_DIR}/daily.csv",
    log:
        "results/logs/financial/daily.log",
    conda:
        CONDA_ENV
    resources:
        **measured("financial_daily"),
    shell:
        "boostcm financial daily --out {output} {input} > {log} 2>&1"


rule financial_stride:
    input:
        FI_STRIDE_JOBS,
    output:
        f"{FI_DIR}/stride.csv",
    log:
        "results/logs/financial/stride.log",
    conda:
        CONDA_ENV
    resources:
        **measured("financial_stride"),
    params:
        reference=FI_CHECK["reference_stride"],
    shell:
        "boostcm financial stride --reference-stride {params.reference} --out {output}"
        " {input} > {log} 2>&1"


rule financial_events:
    input:
        financial_jobs(
            FI["series"], FI["cal_sizes"], FI["refit_every"], end=FI["events_end"]
        ),
    output:
        f"{FI_DIR}/events.csv",
    log:
        "results/logs/financial/events.log",
    conda:
        CONDA_ENV
    resources:
        **measured("financial_events"),
    shell:
        "boostcm financial events --out {output} {input} > {log} 2>&1"


rule financial_coverage_notebook:
    input:
        notebook="notebooks/financial_coverage.ipynb",
        daily=f"{FI_DIR}/daily.csv",
        stride=[f"{FI_DIR}/stride.csv"] if FI_CHECK["series"] else [],
    output:
        executed="results/notebooks/CP-F4.3.ipynb",
        figure=report(
            "results/figures/CP-F4.3.png",
            caption="../report/cp_f43.rst",
            category=REPORT_CP,
            subcategory="CP-F4.3",
            labels={"target": "CP-F4.3", "kind": "figure"},
        ),
        table=report(
            "results/tables/CP-F4.3.csv",
            caption="../report/cp_f43.rst",
            category=REPORT_CP,
            subcategory="CP-F4.3",
            labels={"target": "CP-F4.3", "kind": "table"},
        ),
        verdict="results/verdicts/CP-F4.3.json",
    log:
        "results/logs/notebooks/CP-F4.3.log",
    benchmark:
        "results/benchmarks/notebooks/CP-F4.3.tsv"
    conda:
        CONDA_ENV
    resources:
        **measured("financial_coverage_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            daily_csv=input.daily,
            stride_csv=input.stride[0] if input.stride else "",
            table_csv=output.table,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=notebook_args(
            alpha=FI["alpha"],
            n_cal=FI["n_cal"],
            refit_every=FI["refit_every"],
            profile_note=PROFILE_NOTE,
        ),
    shell:
        NOTEBOOK


rule financial_events_notebook:
    input:
        notebook="notebooks/financial_events.ipynb",
        events=f"{FI_DIR}/events.csv",
        paper=f"{PAPER_DIR}/CP-T4.1.csv",
    output:
        executed="results/notebooks/CP-T4.1.ipynb",
        figure=report(
            "results/figures/CP-T4.1.png",
            caption="../report/cp_t41.rst",
            category=REPORT_CP,
            subcategory="CP-T4.1",
            labels={"target": "CP-T4.1", "kind": "figure"},
        ),
        table=report(
            "results/tables/CP-T4.1.csv",
            caption="../report/cp_t41.rst",
            category=REPORT_CP,
            subcategory="CP-T4.1",
            labels={"target": "CP-T4.1", "kind": "table"},
        ),
        markdown="results/tables/CP-T4.1.md",
        verdict="results/verdicts/CP-T4.1.json",
    log:
        "results/logs/notebooks/CP-T4.1.log",
    benchmark:
        "results/benchmarks/notebooks/CP-T4.1.tsv"
    conda:
        CONDA_ENV
    resources:
        **measured("financial_events_notebook"),
    params:
        files=lambda wc, input, output: notebook_args(
            events_csv=input.events,
            paper_dir=os.path.dirname(input.paper),
            table_csv=output.table,
            table_md=output.markdown,
            figure=output.figure,
            verdict=output.verdict,
        ),
        settings=notebook_args(alpha=FI["alpha"], profile_note=PROFILE_NOTE),
    shell:
        NOTEBOOK


if FI["enabled"]:
    ALL_TARGETS.extend(
        verdict_files(target_ids("financial_coverage", "financial_events"))
    )
