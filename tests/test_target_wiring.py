"""Every target of ``config/targets.yaml`` is wired: the workflow builds its verdict with one of
its family's rules, its notebook, verdict function and captions exist, and each of its rules is
priced in ``config/job_costs.yaml``. The checks fail when a piece is missing (the tests at the
end remove one piece at a time).

The workflow side is one dry run (``snakemake -n --forceall``) of the small profile
(``config/ci.yaml``) with HASH-T3.4's dataset added, so that every built target is in its
default target: about 20 s on a loaded 2-core machine (the full config's DAG takes minutes).
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import boostcm.claims
from boostcm.experiments import exactboost, exactboost_timing
from boostcm.targets import Target, registry, targets_of, wildcard_pattern

REPO = Path(__file__).resolve().parents[1]
REGISTRY = registry(REPO / "config" / "targets.yaml")
RULE_FILES = sorted((REPO / "workflow" / "rules").glob("*.smk"))
# rules every target shares (data, the site, the default target): no family lists them
SHARED_RULES = re.compile(r"^(all|report|process_dataset|fetch_\w+)$")


def _defined_rules() -> set[str]:
    """Names of the rules of workflow/rules/*.smk (plain rules and `use rule ... as <name>`)."""
    text = "\n".join(p.read_text() for p in RULE_FILES)
    return set(re.findall(r"^\s*rule (\w+):", text, re.M)) | set(
        re.findall(r"^\s*use rule \w+ as (\w+)", text, re.M)
    )


def _parse_dry_run(text: str) -> dict[str, dict]:
    """Jobs of a ``snakemake -n`` listing, by output file: ``{"rule", "input", "output"}``."""
    jobs: dict[str, dict] = {}
    for block in re.split(r"\n\[[^\]\n]+\]\n", text):
        m = re.search(r"^(?:local)?rule (\w+):", block, re.M)
        if not m:
            continue
        fields = {
            k: [f for f in v.split(", ") if f]
            for k, v in re.findall(r"^    (input|output): (.*)$", block, re.M)
        }
        job = {
            "rule": m.group(1),
            "input": fields.get("input", []),
            "output": fields.get("output", []),
        }
        for out in job["output"] or [f"<rule {job['rule']}>"]:
            jobs[out] = job
    return jobs


def _dry_run(*configfiles: str) -> dict[str, dict]:
    """Jobs of ``snakemake -n --forceall`` on `configfiles`, by output file."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--forceall", "--nolock", "--cores", "2"]
        + ["--configfile", *configfiles],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return _parse_dry_run(proc.stdout + proc.stderr)


@pytest.fixture(scope="module")
def dag(tmp_path_factory) -> dict[str, dict]:
    """The dry run's jobs by output file; ``"<rule all>"`` is the default target."""
    ci = yaml.safe_load((REPO / "config" / "ci.yaml").read_text())
    extra = tmp_path_factory.mktemp("wiring") / "hash_t34.yaml"
    extra.write_text(
        yaml.safe_dump(
            {
                "data": {"datasets": [*ci["data"]["datasets"], "RLdata10000"]},
                "hashing": {"datasets": {"RLdata10000": {"fields": None, "target": "HASH-T3.4"}}},
            }
        )
    )
    return _dry_run("config/ci.yaml", str(extra))


def test_a_run_without_main_datasets_requests_only_the_tables_it_has_data_for(tmp_path):
    # the main tables (EB-T3, EB-T4, EB-F3) on datasets this run lacks: not requested, rather
    # than a table job that aggregates nothing and fails
    extra = tmp_path / "no_main.yaml"
    extra.write_text(yaml.safe_dump({"exactboost": {"main_datasets": ["gmsc"]}}))
    requested = set(_dry_run("config/ci.yaml", str(extra))["<rule all>"]["input"])
    for target in ("EB-T3", "EB-T4", "EB-F3"):
        assert f"results/verdicts/{target}.json" not in requested
    for target in ("EB-T6", "EB-T7", "EB-T8", "EB-T9", "EB-T10", "EB-T11"):
        assert f"results/verdicts/{target}.json" in requested


@pytest.fixture(scope="module")
def priced() -> set[str]:
    return set(yaml.safe_load((REPO / "config" / "job_costs.yaml").read_text())["rules"])


def wiring_problems(target: Target, dag: dict, priced: set, defined: set) -> list[str]:
    """What is missing for `target` to be built and judged; empty when it is fully wired."""
    problems = []
    for rule in target.rules:
        if rule not in defined:
            problems.append(f"rule {rule} is not defined in workflow/rules")
        if rule not in priced:
            problems.append(f"rule {rule} has no entry in config/job_costs.yaml")
    if target.notebook is not None:
        if not (REPO / target.notebook).is_file():
            problems.append(f"notebook {target.notebook} does not exist")
        if Path(target.notebook).stem in REGISTRY:
            problems.append(f"notebook {target.notebook} is named after a target, not a family")
    if not callable(getattr(boostcm.claims, target.verdict, None)):
        problems.append(f"boostcm.claims has no verdict function {target.verdict}")
    rules_text = "\n".join(p.read_text() for p in RULE_FILES)
    for caption in target.captions:
        if not (REPO / "workflow" / "report" / caption).is_file():
            problems.append(f"caption workflow/report/{caption} does not exist")
        elif f'caption="../report/{caption}"' not in rules_text:
            problems.append(f"caption {caption} is used by no rule")
    if target.paper_table and not (REPO / "config" / "paper" / f"{target.id}.csv").is_file():
        problems.append(f"config/paper/{target.id}.csv does not exist")
    if target.built:
        verdict = f"results/verdicts/{target.id}.json"
        job = dag.get(verdict)
        if verdict not in dag.get("<rule all>", {}).get("input", []):
            problems.append(f"{verdict} is not in the default target (ALL_TARGETS)")
        if job is None:
            problems.append(f"no job of the dry run writes {verdict}")
        else:
            if job["rule"] not in target.rules:
                problems.append(f"{verdict} is written by rule {job['rule']}, not its family's")
            if target.notebook is not None and target.notebook not in job["input"]:
                problems.append(f"the job writing {verdict} does not run {target.notebook}")
    return problems


@pytest.mark.parametrize("target_id", list(REGISTRY))
def test_target_is_wired(target_id, dag, priced):
    assert wiring_problems(REGISTRY[target_id], dag, priced, _defined_rules()) == []


def test_every_rule_of_the_dry_run_belongs_to_a_family(dag):
    family_rules = {r for t in REGISTRY.values() for r in t.rules}
    orphans = {j["rule"] for j in dag.values()} - family_rules
    assert {r for r in orphans if not SHARED_RULES.match(r)} == set()
    assert "all" in orphans and "report" in orphans  # the listing was parsed


def test_not_built_targets_say_why_and_are_not_requested(dag):
    not_built = [t for t in REGISTRY.values() if not t.built]
    assert [t.id for t in not_built] == ["QS-F1"]
    for t in not_built:
        assert f"results/verdicts/{t.id}.json" not in dag["<rule all>"]["input"]


# --- the checks fail when a piece is missing -----------------------------------------------------

MISSING_PIECES = {
    "notebook": (lambda t: dataclasses.replace(t, notebook="notebooks/gone.ipynb"), "notebook"),
    "notebook named by ID": (
        lambda t: dataclasses.replace(t, notebook=f"notebooks/{t.id}.ipynb"),
        "notebook",
    ),
    "verdict": (lambda t: dataclasses.replace(t, verdict="no_such_verdict"), "verdict function"),
    "caption": (lambda t: dataclasses.replace(t, captions=("gone.rst",)), "caption"),
    "cost entry": (
        lambda t: dataclasses.replace(t, rules=(*t.rules, "unpriced_rule")),
        "job_costs",
    ),
    "rule of the verdict": (
        lambda t: dataclasses.replace(t, rules=t.rules[:-1]),
        "not its family's",
    ),
    "paper table": (lambda t: dataclasses.replace(t, id="EB-T99"), "config/paper/EB-T99.csv"),
}


@pytest.mark.parametrize("piece", list(MISSING_PIECES))
def test_wiring_check_fails_without_a_piece(piece, dag, priced):
    target = REGISTRY["EB-T6"]
    assert wiring_problems(target, dag, priced, _defined_rules()) == []
    change, message = MISSING_PIECES[piece]
    problems = wiring_problems(change(target), dag, priced, _defined_rules())
    assert any(message in p for p in problems), problems


def test_wiring_check_fails_when_the_workflow_does_not_build_it(dag, priced):
    target = REGISTRY["CP-F4.1"]
    verdict = "results/verdicts/CP-F4.1.json"
    without = {k: v for k, v in dag.items() if k != verdict}
    without["<rule all>"] = {
        **dag["<rule all>"],
        "input": [f for f in dag["<rule all>"]["input"] if f != verdict],
    }
    problems = wiring_problems(target, without, priced, _defined_rules())
    assert any("default target" in p for p in problems)
    assert any("no job of the dry run" in p for p in problems)
    problems = wiring_problems(target, dag, priced, _defined_rules() - {"conformal_coverage_table"})
    assert problems == ["rule conformal_coverage_table is not defined in workflow/rules"]


def test_parse_dry_run_reads_rules_inputs_and_outputs():
    text = (
        "[Thu Nov 26 09:00:00 2026]\nrule a:\n    input: x.csv, nb.ipynb\n"
        "    output: y.csv, z.json\n    jobid: 1\n\n"
        "[Thu Nov 26 09:00:00 2026]\nlocalrule all:\n    input: z.json\n    jobid: 0\n"
    )
    jobs = _parse_dry_run(text)
    assert jobs["z.json"] == {
        "rule": "a",
        "input": ["x.csv", "nb.ipynb"],
        "output": ["y.csv", "z.json"],
    }
    assert jobs["<rule all>"]["input"] == ["z.json"]


# --- the registry ---------------------------------------------------------------------------------


def test_registry_resolves_families_and_overrides():
    t6, t2 = REGISTRY["EB-T6"], REGISTRY["EB-T2"]
    assert t6.family == "exactboost_estimator_table" and t6.params["loss"] == "auc"
    assert t6.notebook == "notebooks/exactboost_table.ipynb" and t6.built
    assert (
        t2.verdict == "timing_ratio_verdict"
        and REGISTRY["EB-TE"].verdict == "timing_seconds_verdict"
    )
    assert REGISTRY["GUPTA-T1"].rules == ("calibration_notation_table",)
    assert REGISTRY["QS-F1"].built is False and REGISTRY["LN-NONE"].notebook is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        t6.family = "other"
    with pytest.raises(TypeError):
        t6.params["loss"] = "ks"


def test_targets_of_keeps_the_file_order_and_rejects_unknown_families():
    assert targets_of("dataset_properties", path=REPO / "config/targets.yaml") == ["EB-T1", "EB-T5"]
    both = targets_of("calibration_shift", "gupta_illustrations")
    assert both == ["GUPTA-T1", "GUPTA-F1", "GUPTA-F2", "GUPTA-F3"]
    with pytest.raises(ValueError, match="no target of family"):
        targets_of("no_such_family")
    with pytest.raises(ValueError):
        targets_of()


def test_wildcard_pattern_matches_exactly_the_ids():
    pattern = wildcard_pattern(["CP-F1.1", "EB-T1", "EB-T10"])
    assert [bool(re.fullmatch(pattern, s)) for s in ("CP-F1.1", "EB-T1", "EB-T10")] == [True] * 3
    assert not any(re.fullmatch(pattern, s) for s in ("CP-F1x1", "EB-T11", "EB-T", ""))
    with pytest.raises(ValueError):
        wildcard_pattern([])


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda s: s.replace("family: hashing_table", "family: no_family", 1), "unknown family"),
        (lambda s: s.replace("- id: EB-T5", "- id: EB-T1", 1), "declared twice"),
        (lambda s: s.replace("    verdict: hashing_verdict\n", "", 1), "needs rules and a verdict"),
    ],
)
def test_registry_rejects_a_broken_file(tmp_path, edit, message):
    text = (REPO / "config" / "targets.yaml").read_text()
    broken = tmp_path / "targets.yaml"
    broken.write_text(edit(text))
    assert broken.read_text() != text
    with pytest.raises(ValueError, match=message):
        registry(broken)


def test_experiments_take_their_targets_from_the_registry():
    assert exactboost.TARGETS == (
        *targets_of("exactboost_estimator_table", "exactboost_ensembler_table"),
        *targets_of("exactboost_figure"),
    )
    assert exactboost.ESTIMATOR_TARGETS == {"EB-T6": "auc", "EB-T8": "ks", "EB-T10": "pak"}
    assert exactboost.ENSEMBLER_TARGETS == {"EB-T7": "auc", "EB-T9": "ks", "EB-T11": "pak"}
    assert exactboost.MAIN_TARGETS == ("EB-T3", "EB-T4", "EB-F3")
    assert exactboost_timing.TARGETS == ("EB-T2", "EB-TE")


def test_no_rule_hard_codes_a_target_list():
    """Wildcard constraints and target lists of the rules come from the registry: no wildcard
    constraint names a target and no list or tuple of the rule files spells two target IDs."""
    ids = "|".join(re.escape(i) for i in REGISTRY)
    named = re.compile(rf"\b({ids})\b")
    listed = re.compile(rf"[\[(]\s*[\"']({ids})[\"']\s*,\s*[\"']({ids})[\"']")
    constraints = re.compile(r"^(\s*)wildcard_constraints:\n((?:\1\s+.*\n)+)", re.M)
    for path in RULE_FILES:
        text = path.read_text()
        for block in constraints.finditer(text):
            assert not named.search(block.group(2)), f"{path.name}: {block.group(2)}"
        for line in text.splitlines():
            if not line.lstrip().startswith("#"):
                assert not listed.search(line), f"{path.name}: {line}"


def test_the_hard_coding_check_finds_a_hard_coded_list(tmp_path, monkeypatch):
    rules = tmp_path / "x.smk"
    rules.write_text('rule x:\n    wildcard_constraints:\n        target="QS-T1|QS-T2",\n')
    monkeypatch.setattr(sys.modules[__name__], "RULE_FILES", [rules])
    with pytest.raises(AssertionError, match="QS-T1"):
        test_no_rule_hard_codes_a_target_list()
    rules.write_text('CA = ["GUPTA-F2", "GUPTA-F3"]\n')
    with pytest.raises(AssertionError, match="GUPTA-F2"):
        test_no_rule_hard_codes_a_target_list()
