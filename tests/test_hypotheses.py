"""Hypotheses about the deviations (boostcm.claims.hypotheses): the outcome rules both ways, the
loader's errors, the per-document counts, the site's "What was tested" section and front-page
counts, and that every declaration of config/hypotheses has its result, consistent with its rule.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from boostcm.claims import hashing_verdict
from boostcm.claims import hypotheses as hyp
from boostcm.report import build_report
from boostcm.targets import registry

HYPOTHESES_DIR = REPO / "config" / "hypotheses"


# --- rules ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "measured", "expected"),
    [
        ({"kind": "at_most", "measure": "x", "threshold": 0.3}, {"x": 0.3}, True),
        ({"kind": "at_most", "measure": "x", "threshold": 0.3}, {"x": 0.31}, False),
        ({"kind": "at_least", "measure": "x", "threshold": "y"}, {"x": 2.0, "y": 2.0}, True),
        ({"kind": "at_least", "measure": "x", "threshold": "y"}, {"x": 1.9, "y": 2.0}, False),
        (
            {"kind": "closer_to_published", "measure": "v", "baseline": "b", "published": 0.24},
            {"v": 0.30, "b": 0.49},
            True,
        ),
        (
            {"kind": "closer_to_published", "measure": "v", "baseline": "b", "published": 0.24},
            {"v": 0.60, "b": 0.49},
            False,
        ),
        (  # closer, but not by the margin
            {
                "kind": "closer_to_published",
                "measure": "v",
                "baseline": "b",
                "published": 0.24,
                "margin": 0.1,
            },
            {"v": 0.45, "b": 0.49},
            False,
        ),
        (  # a tie: not farther holds, strictly closer does not
            {"kind": "closer_to_published", "measure": "v", "baseline": "b", "published": 0.0},
            {"v": 0.06, "b": 0.06},
            True,
        ),
        (
            {
                "kind": "closer_to_published",
                "measure": "v",
                "baseline": "b",
                "published": 0.0,
                "strict": True,
            },
            {"v": 0.06, "b": 0.06},
            False,
        ),
        (
            {
                "kind": "closer_to_published",
                "measure": "v",
                "baseline": "b",
                "published": 0.0,
                "strict": True,
            },
            {"v": 0.05, "b": 0.06},
            True,
        ),
        (
            {"kind": "within_se", "measure": "x", "published": 0.96, "se": "s"},
            {"x": 0.9, "s": 0.04},
            True,
        ),
        (
            {"kind": "within_se", "measure": "x", "published": 0.96, "se": "s"},
            {"x": 0.8, "s": 0.04},
            False,
        ),
        (
            {"kind": "within_se", "measure": "x", "published": 0.96, "se": "s", "multiple": 5},
            {"x": 0.8, "s": 0.04},
            True,
        ),
        (
            {
                "kind": "all",
                "rules": [
                    {"kind": "at_most", "measure": "x", "threshold": 1},
                    {"kind": "at_least", "measure": "x", "threshold": 0.5},
                ],
            },
            {"x": 0.4},
            False,
        ),
        (
            {
                "kind": "any",
                "rules": [
                    {"kind": "at_most", "measure": "x", "threshold": 1},
                    {"kind": "at_least", "measure": "x", "threshold": 0.5},
                ],
            },
            {"x": 0.4},
            True,
        ),
    ],
)
def test_rule_kinds_hold_and_fail(params, measured, expected):
    assert hyp.evaluate_rule(params, measured) is expected
    assert hyp.outcome(params, measured) == ("holds" if expected else "does not hold")
    assert hyp.rule_text(params)


@pytest.mark.parametrize(
    ("params", "measured", "message"),
    [
        ({"kind": "at_moost", "measure": "x", "threshold": 1}, {"x": 1}, "not one of"),
        ({"kind": "at_most", "measure": "x"}, {"x": 1}, "needs"),
        ({"kind": "at_most", "measure": "x", "threshold": 1, "tol": 1}, {"x": 1}, "unknown"),
        ({"kind": "at_most", "measure": "y", "threshold": 1}, {"x": 1}, "has no 'y'"),
        ({"kind": "at_most", "measure": "x", "threshold": 1}, {"x": float("nan")}, "not a number"),
        ({"kind": "all", "rules": []}, {"x": 1}, "non-empty"),
    ],
)
def test_a_malformed_rule_or_measurement_is_an_error(params, measured, message):
    with pytest.raises(hyp.HypothesisError, match=message):
        hyp.evaluate_rule(params, measured)


# --- the loader ----------------------------------------------------------------------------------


def _entry(**changes) -> dict:
    e = {
        "id": "EB-T10-knn-k",
        "target": "EB-T10",
        "gap": "kNN P@k on heart 0.49 vs 0.24",
        "hypothesis": "a larger k",
        "experiment": "k in 5, 15",
        "rule": "k=15 within 2 se",
        "rule_params": {"kind": "at_most", "measure": "k15", "threshold": 0.3},
        "command": "python benchmarks/hypotheses/exactboost.py knn-k",
        "result": "benchmarks/results/hypotheses/EB-T10-knn-k.json",
        "fixed": "2026-11-26",
    }
    e.update(changes)
    return e


def _write(root: Path, entries, result: dict | None = None) -> Path:
    d = root / "config" / "hypotheses"
    d.mkdir(parents=True, exist_ok=True)
    (d / "exactboost.yaml").write_text(yaml.safe_dump(entries, sort_keys=False))
    if result is not None:
        r = root / "benchmarks" / "results" / "hypotheses"
        r.mkdir(parents=True, exist_ok=True)
        (r / f"{result['id']}.json").write_text(json.dumps(result))
    return d


def _result(**changes) -> dict:
    r = {
        "id": "EB-T10-knn-k",
        "measured": {"k15": 0.25},
        "outcome": "holds",
        "statement": "k = 15 gives 0.25.",
        "cpu_seconds": 1.0,
        "date": "2026-11-26",
    }
    r.update(changes)
    return r


KNOWN = ["EB-T10", "EB-T8"]


def test_loader_reads_a_declaration_and_its_result(tmp_path):
    d = _write(
        tmp_path,
        [
            _entry(),
            _entry(
                id="EB-T8-ks-margin",
                target="EB-T8",
                result="benchmarks/results/hypotheses/EB-T8-ks-margin.json",
            ),
        ],
        _result(),
    )
    hs = hyp.load_hypotheses(d, tmp_path, KNOWN)
    assert [h["outcome"] for h in hs] == ["holds", "pending"]
    assert hs[0]["result_data"]["measured"] == {"k15": 0.25}
    assert hs[0]["fixed"] == "2026-11-26" and hs[0]["file"] == "exactboost.yaml"


def test_a_yaml_date_is_read_as_its_iso_string(tmp_path):
    d = tmp_path / "config" / "hypotheses"
    d.mkdir(parents=True)
    text = yaml.safe_dump([_entry()], sort_keys=False).replace("'2026-11-26'", "2026-11-26")
    (d / "x.yaml").write_text(text)
    assert hyp.load_hypotheses(d, tmp_path, KNOWN)[0]["fixed"] == "2026-11-26"


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"id": "x"}, "must be a YAML list"),
        (
            [
                _entry(
                    target="EB-T99",
                    id="EB-T99-x",
                    result="benchmarks/results/hypotheses/EB-T99-x.json",
                )
            ],
            "not in the registry",
        ),
        ([{k: v for k, v in _entry().items() if k != "rule"}], r"missing keys \['rule'\]"),
        ([_entry(colour="red")], r"unknown keys \['colour'\]"),
        ([_entry(result="results/EB-T10-knn-k.json")], "result must be"),
        ([_entry(fixed="yesterday")], "fixed must be a date"),
        (
            [_entry(id="EB-T8-knn-k", result="benchmarks/results/hypotheses/EB-T8-knn-k.json")],
            "must start with its target",
        ),
        ([_entry(id="knn k")], "id must be"),
        ([_entry(hypothesis="")], "hypothesis must be a non-empty string"),
        ([_entry(rule_params={"kind": "best"})], "rule kind 'best'"),
        ([_entry(), _entry()], "already declared"),
    ],
)
def test_loader_errors_say_what_is_wrong(tmp_path, entries, message):
    d = _write(tmp_path, entries)
    with pytest.raises(hyp.HypothesisError, match=message):
        hyp.load_hypotheses(d, tmp_path, KNOWN)


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (_result(outcome="does not hold"), "but the rule gives 'holds'"),
        (_result(outcome="maybe"), "not one of"),
        (_result(measured={"k5": 0.4}), "has no 'k15'"),
        ({k: v for k, v in _result().items() if k != "statement"}, "missing keys"),
    ],
)
def test_a_result_that_breaks_the_contract_or_its_rule_is_an_error(tmp_path, result, message):
    d = _write(tmp_path, [_entry()], result)
    with pytest.raises(hyp.HypothesisError, match=message):
        hyp.load_hypotheses(d, tmp_path, KNOWN)


def test_write_result_decides_the_outcome_with_the_rule(tmp_path):
    entry = _entry()
    path = tmp_path / "r.json"
    out = hyp.write_result(path, entry, {"k15": 0.5}, "k = 15 gives 0.5: {outcome}.", 2.04)
    assert out["outcome"] == "does not hold"
    assert json.loads(path.read_text())["statement"] == "k = 15 gives 0.5: does not hold."
    assert out["cpu_seconds"] == 2.0


# --- counts --------------------------------------------------------------------------------------


def test_each_deviation_is_tested_argued_or_open():
    rows = [
        {"id": "A", "status": "deviates", "documents": ["d1"], "verdict": {}},
        {
            "id": "B",
            "status": "deviates",
            "documents": ["d1", "d2"],
            "verdict": {"details": {"explanation": "the paper's protocol differs"}},
        },
        {"id": "C", "status": "deviates", "documents": ["d2"], "verdict": {}},
        {"id": "D", "status": "agrees", "documents": ["d2"], "verdict": {}},
        {"id": "E", "status": "not built", "documents": ["d2"], "verdict": None},
    ]
    hs = [
        {"id": "A-1", "target": "A", "gap": "g", "outcome": "does not hold"},
        {"id": "A-2", "target": "A", "gap": "g", "outcome": "holds"},
        {"id": "B-1", "target": "B", "gap": "g", "outcome": "does not hold"},
        {"id": "C-1", "target": "C", "gap": "g", "outcome": "pending"},
        {"id": "D-1", "target": "D", "gap": "gap one", "outcome": "holds"},
        {"id": "D-2", "target": "D", "gap": "gap  two", "outcome": "does not hold"},
        {"id": "D-3", "target": "D", "gap": "gap two", "outcome": "does not hold"},
        {"id": "E-1", "target": "E", "gap": "g", "outcome": "holds"},
    ]
    devs = {(x["target"], x["gap"]): x["explained"] for x in hyp.deviations(rows, hs)}
    assert devs == {
        ("A", None): "tested",
        ("B", None): "argument",
        ("C", None): "open",  # a pending hypothesis is untested
        ("D", "gap one"): "tested",
        ("D", "gap two"): "open",
    }
    counts = hyp.explanation_counts(rows, hs, ["d1", "d2"])
    assert counts["d1"] == {"deviations": 2, "tested": 1, "argument": 1, "open": 0}
    assert counts["d2"] == {"deviations": 4, "tested": 1, "argument": 1, "open": 2}


# --- the site ------------------------------------------------------------------------------------


def test_site_shows_what_was_tested_and_the_front_page_counts(tmp_path):
    results = tmp_path / "results"
    paper = {"model": ["our model"], "recall": ["0.99 ± 0.01"], "reduction ratio": ["0.99 ± 0.001"]}
    import pandas as pd

    ours = pd.DataFrame(
        {
            "model": ["our model"],
            "recall_mean": [0.5],
            "recall_sd": [0.01],
            "rr_mean": [0.99],
            "rr_sd": [0.001],
            "config": ["k=20"],
        }
    )
    v = hashing_verdict(ours, pd.DataFrame(paper), "HASH-T3.4")
    assert v.status == "deviates"
    v.write(results / "verdicts" / "HASH-T3.4.json")
    entry = _entry(
        id="HASH-T3.4-more-bands",
        target="HASH-T3.4",
        gap="recall 0.5 vs 0.99 <script>",
        result="benchmarks/results/hypotheses/HASH-T3.4-more-bands.json",
        command="python benchmarks/hypotheses/hashing.py more-bands --seeds 0 1",
    )
    d = _write(tmp_path, [entry], _result(id="HASH-T3.4-more-bands", statement="k15 was 0.25."))
    build_report(
        REPO / "config" / "targets.yaml",
        results / "verdicts",
        results / "report" / "index.html",
        results_dir=results,
        paper_dir=REPO / "config" / "paper",
        requested=["HASH-T3.4"],
        hypotheses=d,
        hypotheses_root=tmp_path,
    )
    page = (results / "report" / "targets" / "HASH-T3.4.html").read_text()
    section = page.split("<h2 id='tested'>What was tested</h2>", 1)
    assert len(section) == 2, "no What was tested section"
    body = section[1]
    for text in (
        "HASH-T3.4-more-bands",
        "✓ holds",
        "k15 was 0.25.",
        "fixed 2026-11-26",
        "k15 ≤ 0.3",
        "python benchmarks/hypotheses/hashing.py more-bands --seeds 0 1",
        "a larger k",
        "k in 5, 15",
        "&lt;script&gt;",
    ):
        assert text in body, text
    other = (results / "report" / "targets" / "EB-T10.html").read_text()
    assert "What was tested" not in other
    front = (results / "report" / "index.html").read_text()
    table = front.split("<table class='explained'>", 1)[1].split("</table>", 1)[0]
    row = re.search(r"Thesis ch. 3</a></td>((?:<td class='num'>\d+</td>){4})", table)
    assert row, table
    assert re.findall(r"\d+", row.group(1)) == ["1", "1", "0", "0"]


def test_site_without_hypotheses_has_no_counts(tmp_path):
    results = tmp_path / "results"
    (results / "verdicts").mkdir(parents=True)
    build_report(
        REPO / "config" / "targets.yaml",
        results / "verdicts",
        results / "report" / "index.html",
        results_dir=results,
        paper_dir=REPO / "config" / "paper",
    )
    assert "class='explained'" not in (results / "report" / "index.html").read_text()


# --- the repository's declarations ---------------------------------------------------------------


def test_every_declaration_and_result_of_the_repository_keeps_the_contract():
    """Every declaration of config/hypotheses keeps the contract, names its script, and its
    result, when written, is consistent with its rule; no result lacks its declaration. A
    declaration without a result is allowed (pending): its rule is committed before the
    experiment runs, and the site shows it as pending and counts it as untested."""
    hs = hyp.load_hypotheses(HYPOTHESES_DIR, REPO, registry(REPO / "config" / "targets.yaml"))
    assert hs, "no hypotheses declared"
    for h in hs:
        script = h["command"].split()
        assert any(Path(REPO / w).is_file() for w in script), f"{h['id']}: no script in command"
        assert h["outcome"] in (*hyp.OUTCOMES, "pending")
    results = {p.stem for p in (REPO / hyp.RESULT_DIR).glob("*.json")}
    orphans = results - {h["id"] for h in hs}
    assert not orphans, f"results without a declaration: {sorted(orphans)}"


def test_every_rule_was_committed_before_its_result():
    """git log: the commit that added a result comes after the one that added its rule."""
    hs = hyp.load_hypotheses(HYPOTHESES_DIR, REPO, registry(REPO / "config" / "targets.yaml"))
    if not (REPO / ".git").exists() or not hs:
        pytest.fail("needs the repository's git history and at least one hypothesis")
    for h in hs:
        result_commit = _first_commit(h["result"])
        if result_commit is None:  # not committed yet (a working copy): nothing to order
            continue
        rule_commit = _first_commit(f"config/hypotheses/{h['file']}", h["id"])
        assert rule_commit is not None and rule_commit != result_commit, h["id"]
        ancestor = subprocess.run(
            ["git", "merge-base", "--is-ancestor", rule_commit, result_commit], cwd=REPO
        )
        assert ancestor.returncode == 0, f"{h['id']}: the rule was not committed first"


def _first_commit(path: str, text: str | None = None) -> str | None:
    args = ["git", "log", "--format=%H", "--reverse"]
    args += ["-S", text] if text else ["--diff-filter=A"]
    out = subprocess.run(
        [*args, "--", path], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0] if out else None
