"""`boostcm cost`: job lists from Snakemake's DAG, per-job costs, per-rule/target sums, wall time."""

import base64
import dataclasses
import itertools
import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from boostcm.cli import main
from boostcm.experiments import cost

ROOT = Path(__file__).resolve().parents[1]

TABLE = {
    "default": {"cpu_s": 1.0, "max_rss_mb": 100, "source": "test"},
    "rules": {
        "sim": {
            "by": "model",
            "cpu_s": 2.0,
            "per_unit_s": {"fast": 0.5, "other": 3.0},
            "units": "param:n",
            "max_rss_mb": 300,
            "source": "test",
        },
        "fit": {
            "cpu_s": 1.0,
            "per_unit_s": 0.01,
            "units": "rows:0.5",
            "max_rss_mb": 200,
            "source": "test",
        },
    },
}


def _jobs():
    """Two targets sharing a processing job; a chain fetch -> process -> fit -> table -> verdict."""
    J = cost.Job
    return [
        J(0, "fetch", outputs=("raw",)),
        J(1, "process", {"dataset": "d"}, ("proc",), deps=(0,)),
        J(2, "fit", {"dataset": "d"}, ("fit",), deps=(1,)),
        J(3, "sim", {"model": "fast"}, ("s0",), params={"n": 10}),
        J(4, "sim", {"model": "slow"}, ("s1",), threads=2, params={"n": 4}),
        J(5, "verdict", {}, ("results/verdicts/A.json",), deps=(2, 3)),
        J(6, "verdict", {}, ("results/verdicts/B.json",), deps=(1, 4)),
        J(7, "all", deps=(5, 6)),
    ]


def _costs(jobs=None):
    return cost.project(jobs or _jobs(), TABLE, dataset_rows={"d": 1000})


def test_table_cost_units_and_wildcard_keys():
    costs = _costs().set_index("jobid")
    # fit: 1 + 0.01 * 1000 rows * 0.5; sim fast: 2 + 0.5 * 10; sim slow ("other"): 2 + 3 * 4
    assert costs.loc[2, "cpu_s"] == pytest.approx(6.0)
    assert costs.loc[3, "cpu_s"] == pytest.approx(7.0)
    assert costs.loc[4, "cpu_s"] == pytest.approx(14.0)
    assert costs.loc[0, "source"] == "table (default)" and costs.loc[3, "source"] == "table"
    assert costs.loc[4, "max_rss_mb"] == 300


def test_table_cost_rejects_what_it_cannot_price():
    J = cost.Job
    with pytest.raises(ValueError, match="numeric param 'n'"):
        cost.table_cost(J(0, "sim", {"model": "fast"}), TABLE)
    with pytest.raises(ValueError, match="row count"):
        cost.table_cost(J(0, "fit", {"dataset": "unknown"}), TABLE, {"d": 1})
    numeric = {**TABLE, "rules": {"sim": {**TABLE["rules"]["sim"], "by": "n", "cpu_s": {1: 5}}}}
    assert (
        cost.table_cost(J(0, "sim", {"model": "fast", "n": "1"}, params={"n": 0}), numeric)[0] == 5
    )
    strict = {**TABLE, "rules": {"sim": {**TABLE["rules"]["sim"], "per_unit_s": {"fast": 1}}}}
    with pytest.raises(ValueError, match="model='slow'"):
        cost.table_cost(J(0, "sim", {"model": "slow"}, params={"n": 1}), strict)


def test_table_cost_keys_nested_mappings_by_several_wildcards():
    J = cost.Job
    entry = {
        "by": ["dataset", "method"],
        "cpu_s": 1.0,
        "per_unit_s": {"big": {"slow": 0.5, "other": 0.1}, "other": 0.01},
        "units": "rows:1",
        "max_rss_mb": 300,
        "source": "test",
    }
    table = {**TABLE, "rules": {"fit": entry}}
    rows = {"big": 100, "small": 10}

    def price(dataset, method):
        return cost.table_cost(J(0, "fit", {"dataset": dataset, "method": method}), table, rows)[0]

    assert price("big", "slow") == pytest.approx(1 + 0.5 * 100)
    assert price("big", "fast") == pytest.approx(1 + 0.1 * 100)
    # a plain number one level up covers every method of the other datasets
    assert price("small", "slow") == pytest.approx(1 + 0.01 * 10)
    strict = {**entry, "per_unit_s": {"big": {"slow": 0.5}, "other": 0.01}}
    with pytest.raises(ValueError, match="method='fast'"):
        cost.table_cost(
            J(0, "fit", {"dataset": "big", "method": "fast"}),
            {**table, "rules": {"fit": strict}},
            rows,
        )
    deep = {**entry, "by": "dataset"}
    with pytest.raises(ValueError, match="nested deeper"):
        cost.table_cost(
            J(0, "fit", {"dataset": "big", "method": "slow"}),
            {**table, "rules": {"fit": deep}},
            rows,
        )


def test_rule_and_target_sums():
    jobs, costs = _jobs(), _costs()
    rules = cost.by_rule(costs).set_index("rule")
    assert rules["jobs"].sum() == len(jobs)
    assert rules["cpu_hours"].sum() * 3600 == pytest.approx(costs["cpu_s"].sum())
    assert rules.loc["sim", "cpu_hours"] * 3600 == pytest.approx(21.0)
    renamed = costs.assign(rule=costs["rule"].replace({"fetch": "fetch_a", "process": "fetch_b"}))
    assert cost.by_rule(renamed).set_index("rule").loc["fetch_*", "jobs"] == 2
    targets = cost.by_target(jobs, costs).set_index("target")
    # A needs fetch, process, fit, sim fast and itself; B fetch, process, sim slow and itself
    assert targets.loc["A", "jobs"] == 5 and targets.loc["B", "jobs"] == 4
    assert targets.loc["A", "cpu_hours"] * 3600 == pytest.approx(1 + 1 + 6 + 7 + 1)
    assert targets.loc["B", "cpu_hours"] * 3600 == pytest.approx(1 + 1 + 14 + 1)
    assert targets.loc["B", "peak_mb"] == 300


def _list_schedule(jobs, duration, cores, order):
    """Makespan of the greedy list schedule that starts ready jobs in `order` on free cores."""
    deps = {j.jobid: set(j.deps) for j in jobs}
    finish, running, time = {}, [], 0.0
    pending = list(order)
    while pending or running:
        done = {jid for jid, end in finish.items() if end <= time}
        for jid in list(pending):
            if len(running) < cores and deps[jid] <= done:
                pending.remove(jid)
                finish[jid] = time + duration[jid]
                running.append(jid)
        time = min(finish[jid] for jid in running)
        running = [jid for jid in running if finish[jid] > time]
    return max(finish.values())


@pytest.mark.parametrize("cores", [1, 2, 3])
def test_wall_time_bounds_hold_for_every_list_schedule(cores):
    # jobs of one thread each, so every greedy schedule is within Graham's bound
    jobs = [cost.Job(j.jobid, j.rule, j.wildcards, j.outputs, 1, j.deps, j.params) for j in _jobs()]
    costs = _costs(jobs)
    duration = dict(zip(costs["jobid"], costs["cpu_s"]))
    total = sum(duration.values())
    path = cost.critical_path_seconds(jobs, costs)
    assert path == pytest.approx(14 + 1 + 1)  # sim slow, verdict B, all
    low, high = cost.wall_time_bounds(jobs, costs, cores)
    assert low == pytest.approx(max(total / cores, path))
    assert high == pytest.approx(total / cores + path)
    spans = [
        _list_schedule(jobs, duration, cores, order)
        for order in itertools.permutations(range(len(jobs)))
    ]
    assert low - 1e-9 <= min(spans) and max(spans) <= high + 1e-9
    with pytest.raises(ValueError, match="cores"):
        cost.wall_time_bounds(jobs, costs, 0)


BENCHMARK_HEADER = (
    "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
)


def test_benchmark_records_replace_and_calibrate_the_table(tmp_path):
    rows = [
        "2.5\t0:00:02\t250.1\t900\t200\t210\t0\t1\t80\t2.0",
        "9.0\t0:00:09\t410.0\t900\t-\t-\t0\t1\t90\t-",
    ]
    for i, row in enumerate(rows):
        (tmp_path / f"b{i}.tsv").write_text(BENCHMARK_HEADER + row + "\n")
    table = cost.read_benchmark(tmp_path / "b0.tsv")
    assert table.loc[0, "cpu_time"] == 2.0 and table.loc[0, "max_rss"] == pytest.approx(250.1)
    J = cost.Job
    jobs = _jobs()
    jobs[3] = J(3, "sim", {"model": "fast"}, ("s0",), params={"n": 10}, benchmark="b0.tsv")
    jobs[4] = J(4, "sim", {"model": "slow"}, ("s1",), 2, params={"n": 4}, benchmark="b1.tsv")
    jobs.append(J(8, "sim", {"model": "fast"}, ("s2",), params={"n": 20}, benchmark="b2.tsv"))
    jobs = [dataclasses.replace(j, settings=f"{j.rule} {j.jobid} {j.params}") for j in jobs]
    for job in jobs[3:5]:  # what Snakemake recorded when it ran them: the same commands
        _record_command(tmp_path, job.outputs[0], job.settings)
    records = cost.benchmark_records(jobs, tmp_path)
    # no cpu_time in the second record: wall seconds x threads (9 x 2); b2.tsv does not exist
    assert records == {3: (2.0, pytest.approx(250.1)), 4: (18.0, 410.0)}
    costs = cost.project(jobs, TABLE, records=records, dataset_rows={"d": 1000}).set_index("jobid")
    assert costs.loc[3, "cpu_s"] == 2.0 and costs.loc[4, "max_rss_mb"] == 410.0
    assert costs.loc[3, "source"] == costs.loc[4, "source"] == "record"
    # the unrecorded job: its table cost (2 + 0.5 x 20) x the median of 2 / 7 and 18 / 14
    ratio = (2 / 7 + 18 / 14) / 2
    assert costs.loc[8, "cpu_s"] == pytest.approx(12 * ratio)
    assert costs.loc[8, "max_rss_mb"] == pytest.approx((250.1 + 410) / 2)
    assert costs.loc[8, "source"] == f"table x {ratio:.2g} (2 records)"
    assert costs.loc[2, "source"] == "table"  # rules without records keep the table
    (tmp_path / "bad.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match="not a Snakemake benchmark"):
        cost.read_benchmark(tmp_path / "bad.tsv")


def _record_command(root, output, command):
    """Snakemake's metadata record of `output` (.snakemake/metadata/<urlsafe base64 of its path>)."""
    name = base64.urlsafe_b64encode(output.encode()).decode()
    path = root / ".snakemake" / "metadata" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rule": "sim", "shellcmd": command}))


def test_a_benchmark_record_counts_only_under_the_same_settings(tmp_path):
    """A record made by another command (a smaller profile's chunk) or by a run that left no
    record of its command is left out and counted; the table prices that job."""
    J = cost.Job
    row = "2.5\t0:00:02\t250.1\t900\t200\t210\t0\t1\t80\t2.0\n"
    jobs = [
        J(
            i,
            "sim",
            {"c": str(i)},
            (f"s{i}",),
            benchmark=f"b{i}.tsv",
            settings=f"sim --count 500 {i}",
        )
        for i in range(3)
    ]
    for job in jobs:
        (tmp_path / job.benchmark).write_text(BENCHMARK_HEADER + row)
    _record_command(tmp_path, "s0", "sim --count 500 0")  # this config's command
    _record_command(tmp_path, "s1", "sim --count 8 1")  # the small profile's
    usage = cost.benchmark_usage(jobs, tmp_path)
    assert set(usage["records"]) == {0}
    assert (usage["other_settings"], usage["no_metadata"]) == (1, 1)
    assert "used: 1" in usage["note"] and "1 made under other settings" in usage["note"]
    assert cost.benchmark_records(jobs, tmp_path) == usage["records"]


def test_a_config_snakemake_rejects_is_a_one_line_cost_error(repo, tmp_path):
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text("sed: 1\n")
    with pytest.raises(cost.CostError) as err:
        cost.workflow_jobs(
            [repo / "config" / "ci.yaml", misspelt],
            snakefile=repo / "workflow" / "Snakefile",
            workdir=repo,
        )
    message = str(err.value)
    assert "\n" not in message and "'sed' was unexpected" in message, message
    assert isinstance(err.value, ValueError)  # what `boostcm` turns into "error: <message>"


def test_cli_on_a_saved_job_list(tmp_path, capsys):
    jobs_file, table_file = tmp_path / "jobs.json", tmp_path / "costs.yaml"
    jobs = [
        cost.Job(j.jobid, j.rule, j.wildcards, j.outputs, j.threads, j.deps, j.params)
        for j in _jobs()
        if j.rule != "fit"
    ]
    jobs[4] = cost.Job(5, "verdict", {}, ("results/verdicts/A.json",), deps=(3,))
    cost.save_jobs(jobs_file, jobs)
    assert cost.load_jobs(jobs_file) == jobs
    table_file.write_text(yaml.safe_dump(TABLE))
    argv = ["cost", "--jobs", str(jobs_file), "--costs", str(table_file), "--cores", "2"]
    assert main([*argv, "--workdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    # 26 CPU-s in all; the longest chain is sim slow (14 s on 2 threads), verdict B, all: 9 s
    assert "Total: 7 jobs, 0.01 CPU-hours" in out
    cell = r"\s*\|\s*"  # tabulate pads the cells
    assert re.search(cell.join([r"\|", "sim", "2", r"0\.01", "300", "table", r"\|"]), out)
    assert re.search(cell.join([r"\|", "A", "2", ""]), out)
    assert re.search(cell.join([r"\|", "B", "4", ""]), out)
    assert "Wall time on 2 cores: 0 min to 0 min" in out


SNAKEFILE = """
rule all:
    input:
        expand("results/verdicts/{t}.json", t=["A", "B"]),


rule sim:
    output:
        "sims/{model}_{chunk}.txt",
    benchmark:
        "bench/{model}_{chunk}.tsv"
    params:
        n=lambda wc: 10 * (int(wc.chunk) + 1),
        label="x",
    threads: 2
    shell:
        "touch {output}"


rule verdict:
    input:
        lambda wc: [f"sims/{m}_{c}.txt" for m in ("fast", "slow") for c in range(2 if wc.t == "A" else 1)],
    output:
        "results/verdicts/{t}.json",
    shell:
        "touch {output}"
"""


def test_workflow_jobs_reads_snakemakes_dag(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "config.yaml").write_text("{}\n")
    (tmp_path / "results" / "verdicts").mkdir(parents=True)
    (tmp_path / "results" / "verdicts" / "A.json").write_text("{}")  # present outputs still count
    cwd = Path.cwd()
    jobs = cost.workflow_jobs(
        [tmp_path / "config.yaml"], snakefile=tmp_path / "Snakefile", workdir=tmp_path, cores=4
    )
    assert Path.cwd() == cwd
    by_rule = pd.Series([j.rule for j in jobs]).value_counts().to_dict()
    assert by_rule == {"sim": 4, "verdict": 2, "all": 1}
    by_id = {j.jobid: j for j in jobs}
    sims = {(j.wildcards["model"], j.wildcards["chunk"]): j for j in jobs if j.rule == "sim"}
    assert sims["slow", "1"].params == {"n": 20} and sims["slow", "1"].threads == 2
    assert sims["fast", "0"].benchmark == "bench/fast_0.tsv"
    verdicts = {cost.target_of(j): j for j in jobs if j.rule == "verdict"}
    assert {by_id[d].outputs for d in verdicts["B"].deps} == {
        ("sims/fast_0.txt",),
        ("sims/slow_0.txt",),
    }
    assert len(verdicts["A"].deps) == 4
    assert not (tmp_path / "sims").exists()  # nothing ran


def test_committed_cost_table_names_real_rules_and_sources():
    table = cost.load_cost_table(ROOT / "config" / "job_costs.yaml")
    rules_text = "\n".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    assert table["default"]["source"]
    for rule, entry in table["rules"].items():
        # a rule, or a variant of one (`use rule ... as <rule> with:`)
        defined = rf"^\s*(rule {re.escape(rule)}:|use rule \w+ as {re.escape(rule)}\b)"
        assert re.search(defined, rules_text, re.M), rule
        assert entry["source"].strip() and entry["max_rss_mb"] > 0, rule
        assert ("per_unit_s" in entry) == ("units" in entry), rule


@pytest.mark.slow
def test_the_ci_profile_is_priced_and_every_job_feeds_the_default_target():
    # about 12 s on a loaded 2-core machine: Snakemake parses the whole workflow
    jobs = cost.workflow_jobs(
        [ROOT / "config" / "ci.yaml"], snakefile=ROOT / "workflow" / "Snakefile", workdir=ROOT
    )
    table = cost.load_cost_table(ROOT / "config" / "job_costs.yaml")
    costs = cost.project(jobs, table)  # raises if an entry's units or keys do not fit a job
    assert (costs["cpu_s"] > 0).all() and set(costs["source"]) <= {"table", "table (default)"}
    (final,) = [j for j in jobs if j.rule == "all"]
    ancestors = cost._ancestors(jobs)
    assert ancestors[final.jobid] == {j.jobid for j in jobs}
    targets = cost.by_target(jobs, costs)
    assert len(targets) == sum(1 for j in jobs if cost.target_of(j)) > 0
    assert costs["cpu_s"].sum() / 3600 == pytest.approx(cost.by_rule(costs)["cpu_hours"].sum())


# --- resources asked of a scheduler (D118) -------------------------------------------------------


def test_job_resources_scale_the_table_with_headroom_threads_and_attempt():
    J = cost.Job
    table = {**TABLE, "resources": {"runtime_headroom": 2.0, "min_runtime_min": 1}}
    # sim, model slow: 2 + 3 x 400 = 1202 CPU-s on 2 threads -> 601 s x 2 = 20.03 min -> 21
    job = J(0, "sim", {"model": "slow"}, threads=2, params={"n": 400})
    assert cost.job_resources(job, table) == {"mem_mb": 450, "runtime": 21}
    assert cost.job_resources(job, table, attempt=2) == {"mem_mb": 900, "runtime": 42}
    assert cost.job_resources(job, table, attempt=3) == {"mem_mb": 1800, "runtime": 84}
    one_thread = cost.job_resources(J(0, "sim", {"model": "slow"}, params={"n": 400}), table)
    assert one_thread["runtime"] == 41  # 1202 s x 2 / 60 = 40.07
    # a job of seconds gets the minimum; a rule the table lacks gets the default entry
    assert cost.job_resources(J(0, "other"), table) == {"mem_mb": 150, "runtime": 1}
    assert cost.job_resources(J(0, "other"), TABLE)["runtime"] == 5  # the default minimum


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"mem_headroom": 0.5}, "at least 1"),
        ({"min_runtime_min": 0}, "at least 1 minute"),
        ({"cpus": 2}, "unknown"),
    ],
)
def test_resource_settings_are_checked(bad, match):
    with pytest.raises(ValueError, match=match):
        cost.job_resources(cost.Job(0, "fit"), {**TABLE, "resources": bad})
    with pytest.raises(ValueError, match="attempt"):
        cost.job_resources(cost.Job(0, "fit"), TABLE, attempt=0)


def test_rule_resources_are_the_job_resources_of_each_job():
    rows = {"d": 1000, "e": 10_000}
    fit = cost.rule_resources("fit", TABLE, rows)
    for dataset in rows:
        for attempt in (1, 2):
            want = cost.job_resources(
                cost.Job(0, "fit", {"dataset": dataset}, threads=1), TABLE, rows, attempt
            )
            got = {k: f({"dataset": dataset}, 1, attempt) for k, f in fit.items()}
            assert got == want
    # a cost that scales with a param needs its value: a number or a function of the wildcards
    with pytest.raises(ValueError, match="param 'n'"):
        cost.rule_resources("sim", TABLE)
    sim = cost.rule_resources("sim", TABLE, units=lambda wc: 100 * len(wc["model"]))
    want = cost.job_resources(
        cost.Job(0, "sim", {"model": "slow"}, threads=2, params={"n": 400}), TABLE
    )
    assert sim["runtime"]({"model": "slow"}, 2, 1) == want["runtime"]


def test_every_rule_asks_for_its_measured_resources():
    rules = "\n".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    names = re.findall(r"^\s*rule (\w+):", rules, re.M)
    names += re.findall(r"^\s*use rule \w+ as (\w+)", rules, re.M)
    asked = re.findall(r"\*\*measured\(\s*\"(\w+)\"", rules)
    assert sorted(names) == sorted(asked)
