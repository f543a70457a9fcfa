"""Tested accounts of the deviations: hypotheses, their outcome rules, and what they explain.

A deviation (a target whose verdict ``deviates``, or a gap declared in a target that agrees) gets
an account that was tested: a hypothesis, an experiment, an outcome rule fixed before the
experiment ran, and the outcome. The declarations are ``config/hypotheses/<family>.yaml``, one
YAML list per family of documents; the results are ``benchmarks/results/hypotheses/<id>.json``,
written by the scripts of ``benchmarks/hypotheses/`` with :func:`write_result`, which decides the
outcome with :func:`evaluate_rule` (never by hand).

A declaration (one entry of the list) has exactly the keys of :data:`HYPOTHESIS_KEYS`:

``id``
    ``<target>-<slug>``, unique over every file (``EB-T10-toppush-scaling``);
``target``
    the target whose page shows it (an ID of ``config/targets.yaml``);
``gap``
    the deviation it addresses, one line; hypotheses about the same gap of an agreeing target use
    the same line (a gap is counted once);
``hypothesis``, ``experiment``, ``rule``
    the cause proposed, what is run, and the outcome rule in words;
``rule_params``
    the rule's numbers, with ``kind`` one of :data:`RULE_KINDS` (see :func:`evaluate_rule`);
``command``
    the exact command that writes the result;
``result``
    ``benchmarks/results/hypotheses/<id>.json``;
``fixed``
    the date the rule was fixed (``YYYY-MM-DD``), committed before the result.

A result has exactly the keys of :data:`RESULT_KEYS`: ``id``, ``measured`` (named numbers),
``outcome`` (``holds`` or ``does not hold``), ``statement`` (one sentence with the numbers),
``cpu_seconds`` and ``date``. :func:`load_hypotheses` checks both, and that a result's outcome is
the one its rule gives on its numbers.

:func:`explanation_counts` combines the site's rows (status and verdict per target) with the
hypotheses into per-document counts of the deviations: explained by a tested cause (at least one
hypothesis holds), explained only by argument (the verdict states a cause, in
``details["explanation"]`` or ``details["protocol_gap"]``, but no tested hypothesis holds), or
open.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from .._io import write_json
from .._optional import import_optional

__all__ = [
    "EXPLANATIONS",
    "HYPOTHESIS_KEYS",
    "OUTCOMES",
    "RESULT_DIR",
    "RESULT_KEYS",
    "RULE_KINDS",
    "HypothesisError",
    "evaluate_rule",
    "explanation_counts",
    "load_hypotheses",
    "outcome",
    "rule_text",
    "write_result",
]

HYPOTHESIS_KEYS = (
    "id",
    "target",
    "gap",
    "hypothesis",
    "experiment",
    "rule",
    "rule_params",
    "command",
    "result",
    "fixed",
)
RESULT_KEYS = ("id", "measured", "outcome", "statement", "cpu_seconds", "date")
OUTCOMES = ("holds", "does not hold")
PENDING = "pending"
RESULT_DIR = "benchmarks/results/hypotheses"
# the classes of a deviation, in the order the site shows them
EXPLANATIONS = ("tested", "argument", "open")
# keys of a verdict's details that state a cause of its deviation in words
REASON_KEYS = ("explanation", "protocol_gap")

# kind -> the rule_params it needs besides "kind" (and the optional ones)
RULE_KINDS = {
    "at_most": ({"measure", "threshold"}, set()),
    "at_least": ({"measure", "threshold"}, set()),
    "closer_to_published": ({"measure", "baseline", "published"}, {"margin", "strict"}),
    "within_se": ({"measure", "published", "se"}, {"multiple"}),
    "all": ({"rules"}, set()),
    "any": ({"rules"}, set()),
}
_ID = re.compile(r"^[A-Z]+(?:-[A-Z0-9.]+)+-[a-z0-9][a-z0-9-]*$")


class HypothesisError(ValueError):
    """A declaration or a result that breaks the contract (which file, which entry, what)."""


# --- rules ---------------------------------------------------------------------------------------


def _number(measured: Mapping, key, where: str) -> float:
    if isinstance(key, int | float) and not isinstance(key, bool):
        return float(key)
    if key not in measured:
        raise HypothesisError(f"{where}: measured has no {key!r} (has {sorted(measured)})")
    value = measured[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise HypothesisError(f"{where}: measured[{key!r}] is not a number: {value!r}")
    return float(value)


def check_rule_params(params, where: str = "rule_params") -> None:
    """Check that `params` names a known rule kind with the numbers it needs.

    Parameters
    ----------
    params : mapping
        ``rule_params`` of a declaration.
    where : str, optional
        Said in the error.

    Raises
    ------
    HypothesisError
        If `params` is not a mapping, its kind is unknown, a required key is missing or a key is
        unknown.
    """
    if not isinstance(params, Mapping):
        raise HypothesisError(f"{where}: rule_params must be a mapping, not {params!r}")
    kind = params.get("kind")
    if kind not in RULE_KINDS:
        raise HypothesisError(f"{where}: rule kind {kind!r} is not one of {sorted(RULE_KINDS)}")
    required, optional = RULE_KINDS[kind]
    keys = set(params) - {"kind"}
    if required - keys:
        raise HypothesisError(f"{where}: rule {kind} needs {sorted(required - keys)}")
    if keys - required - optional:
        raise HypothesisError(
            f"{where}: rule {kind} has unknown {sorted(keys - required - optional)}"
        )
    if kind in ("all", "any"):
        rules = params["rules"]
        if not isinstance(rules, list) or not rules:
            raise HypothesisError(f"{where}: rule {kind} needs a non-empty list of rules")
        for i, sub in enumerate(rules):
            check_rule_params(sub, f"{where}.rules[{i}]")


def evaluate_rule(params: Mapping, measured: Mapping) -> bool:
    """Whether the outcome rule `params` holds on the numbers `measured`.

    Rule kinds (``params["kind"]``); a number of the rule is a literal or the name of a number
    of `measured`:

    ``at_most``
        ``measured[measure] <= threshold``;
    ``at_least``
        ``measured[measure] >= threshold``;
    ``closer_to_published``
        ``|measure - published| + margin <= |baseline - published|``, with ``measure`` and
        ``baseline`` names of `measured` (the variant and ours as run) and ``margin`` (default 0)
        how much closer the variant must come;
    ``within_se``
        ``|measure - published| <= multiple * se`` (``multiple`` default 2, ``se`` usually the
        name of the standard error measured);
    ``all``, ``any``
        every / at least one of the rules of ``rules`` holds.

    Parameters
    ----------
    params : mapping
        The declaration's ``rule_params``.
    measured : mapping
        The result's ``measured``.

    Returns
    -------
    bool

    Raises
    ------
    HypothesisError
        If the rule is malformed or a number it names is missing or not a number.

    Examples
    --------
    >>> from boostcm.claims.hypotheses import evaluate_rule
    >>> evaluate_rule({"kind": "at_most", "measure": "pak", "threshold": 0.3}, {"pak": 0.25})
    True
    >>> rule = {"kind": "closer_to_published", "measure": "k15", "baseline": "k5",
    ...         "published": 0.24, "margin": 0.05}
    >>> evaluate_rule(rule, {"k5": 0.49, "k15": 0.30})
    True
    """
    check_rule_params(params)
    kind = params["kind"]
    where = f"rule {kind}"
    if kind == "all":
        return all(evaluate_rule(p, measured) for p in params["rules"])
    if kind == "any":
        return any(evaluate_rule(p, measured) for p in params["rules"])
    if kind in ("at_most", "at_least"):
        value = _number(measured, params["measure"], where)
        threshold = _number(measured, params["threshold"], where)
        return value <= threshold if kind == "at_most" else value >= threshold
    published = _number(measured, params["published"], where)
    value = _number(measured, params["measure"], where)
    if kind == "closer_to_published":
        baseline = _number(measured, params["baseline"], where)
        margin = _number(measured, params.get("margin", 0.0), where)
        if params.get("strict", False):
            return abs(value - published) + margin < abs(baseline - published)
        return abs(value - published) + margin <= abs(baseline - published)
    se = _number(measured, params["se"], where)
    multiple = _number(measured, params.get("multiple", 2.0), where)
    return abs(value - published) <= multiple * se


def outcome(params: Mapping, measured: Mapping) -> str:
    """``"holds"`` or ``"does not hold"``: :func:`evaluate_rule` in words.

    Parameters
    ----------
    params : mapping
        The declaration's ``rule_params``.
    measured : mapping
        The numbers measured.

    Returns
    -------
    str

    Examples
    --------
    >>> from boostcm.claims.hypotheses import outcome
    >>> outcome({"kind": "at_least", "measure": "ratio", "threshold": 10}, {"ratio": 3.0})
    'does not hold'
    """
    return OUTCOMES[0] if evaluate_rule(params, measured) else OUTCOMES[1]


def rule_text(params: Mapping) -> str:
    """The rule's parameters as a formula, for the site (``k15 <= 0.3``).

    Parameters
    ----------
    params : mapping
        ``rule_params``.

    Returns
    -------
    str

    Examples
    --------
    >>> from boostcm.claims.hypotheses import rule_text
    >>> rule_text({"kind": "within_se", "measure": "pak", "published": 0.96, "se": "pak_se"})
    '|pak − 0.96| ≤ 2 × pak_se'
    """
    kind = params["kind"]
    if kind in ("all", "any"):
        word = " and " if kind == "all" else " or "
        return word.join(f"({rule_text(p)})" for p in params["rules"])
    if kind == "at_most":
        return f"{params['measure']} ≤ {params['threshold']}"
    if kind == "at_least":
        return f"{params['measure']} ≥ {params['threshold']}"
    if kind == "closer_to_published":
        margin = params.get("margin", 0)
        plus = f" + {margin}" if margin else ""
        pub = params["published"]
        less = "<" if params.get("strict", False) else "≤"
        return f"|{params['measure']} − {pub}|{plus} {less} |{params['baseline']} − {pub}|"
    return (
        f"|{params['measure']} − {params['published']}| ≤ "
        f"{params.get('multiple', 2)} × {params['se']}"
    )


def write_result(
    path,
    entry: Mapping,
    measured: Mapping,
    statement: str,
    cpu_seconds: float,
    date: str | None = None,
) -> dict:
    """Decide the outcome of `entry`'s rule on `measured` and write the result JSON.

    Parameters
    ----------
    path : path-like
        The result file (the declaration's ``result``, relative to the repository).
    entry : mapping
        The declaration (from :func:`load_hypotheses`).
    measured : mapping
        Named numbers the experiment measured (floats, JSON-serialisable).
    statement : str
        One sentence with the numbers; ``{outcome}`` in it is replaced by the outcome.
    cpu_seconds : float
        CPU time of the experiment.
    date : str, optional
        ``YYYY-MM-DD`` (default today, UTC).

    Returns
    -------
    dict
        The result written.
    """
    measured = {k: (float(v) if not isinstance(v, str) else v) for k, v in measured.items()}
    result = {
        "id": entry["id"],
        "measured": measured,
        "outcome": outcome(entry["rule_params"], measured),
        "statement": " ".join(statement.split()),
        "cpu_seconds": round(float(cpu_seconds), 1),
        "date": date or _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
    }
    result["statement"] = result["statement"].replace("{outcome}", result["outcome"])
    _check_result(result, entry, str(path))
    write_json(path, result)
    return result


# --- loading -------------------------------------------------------------------------------------


def _check_entry(entry, where: str, known_targets) -> dict:
    if not isinstance(entry, Mapping):
        raise HypothesisError(f"{where}: an entry must be a mapping, not {entry!r}")
    keys = set(entry)
    missing = [k for k in HYPOTHESIS_KEYS if k not in keys]
    unknown = sorted(keys - set(HYPOTHESIS_KEYS))
    if missing or unknown:
        raise HypothesisError(f"{where}: missing keys {missing}, unknown keys {unknown}")
    hid = entry["id"]
    where = f"{where} ({hid})"
    for key in HYPOTHESIS_KEYS:
        if key in ("rule_params", "fixed"):
            continue
        if not isinstance(entry[key], str) or not entry[key].strip():
            raise HypothesisError(f"{where}: {key} must be a non-empty string")
    if not _ID.match(hid):
        raise HypothesisError(f"{where}: id must be <target>-<lower-case slug>")
    if known_targets is not None and entry["target"] not in known_targets:
        raise HypothesisError(f"{where}: target {entry['target']!r} is not in the registry")
    if not hid.startswith(entry["target"] + "-"):
        raise HypothesisError(f"{where}: id must start with its target {entry['target']}-")
    if "\n" in entry["gap"].strip():
        raise HypothesisError(f"{where}: gap must be one line")
    expected = f"{RESULT_DIR}/{hid}.json"
    if entry["result"] != expected:
        raise HypothesisError(f"{where}: result must be {expected}, not {entry['result']!r}")
    fixed = entry["fixed"]
    if isinstance(fixed, _dt.date):
        fixed = fixed.isoformat()
    try:
        _dt.date.fromisoformat(str(fixed))
    except ValueError:
        raise HypothesisError(f"{where}: fixed must be a date YYYY-MM-DD, not {fixed!r}") from None
    check_rule_params(entry["rule_params"], f"{where}: rule_params")
    out = dict(entry)
    out["fixed"] = str(fixed)
    return out


def _check_result(result, entry: Mapping, where: str) -> None:
    if not isinstance(result, Mapping):
        raise HypothesisError(f"{where}: a result must be a JSON object")
    missing = [k for k in RESULT_KEYS if k not in result]
    unknown = sorted(set(result) - set(RESULT_KEYS))
    if missing or unknown:
        raise HypothesisError(f"{where}: missing keys {missing}, unknown keys {unknown}")
    if result["id"] != entry["id"]:
        raise HypothesisError(f"{where}: id {result['id']!r} is not {entry['id']!r}")
    if result["outcome"] not in OUTCOMES:
        raise HypothesisError(f"{where}: outcome {result['outcome']!r} not one of {OUTCOMES}")
    if not isinstance(result["measured"], Mapping) or not result["measured"]:
        raise HypothesisError(f"{where}: measured must be a non-empty mapping")
    decided = outcome(entry["rule_params"], result["measured"])
    if decided != result["outcome"]:
        raise HypothesisError(
            f"{where}: outcome {result['outcome']!r}, but the rule gives {decided!r} on measured"
        )


def load_hypotheses(directory, root=None, known_targets: Iterable[str] | None = None) -> list:
    """Read and check every declaration of `directory` and the results found.

    Parameters
    ----------
    directory : path-like
        ``config/hypotheses`` (every ``*.yaml`` in it; a missing folder has none).
    root : path-like, optional
        The folder the ``result`` paths are relative to (the repository, the workflow's working
        directory); default the parent of `directory`'s parent.
    known_targets : iterable of str, optional
        Target IDs (default: those of :func:`boostcm.targets.registry`).

    Returns
    -------
    list of dict
        The declarations, in file then list order, each with ``file`` (its YAML file's name) and
        ``outcome`` (``holds``, ``does not hold`` or ``pending`` when its result is not written
        yet) and ``result_data`` (the result, or None).

    Raises
    ------
    HypothesisError
        If a file is not a list, an entry breaks the contract, two entries share an id, or a
        result breaks the contract or disagrees with its rule.
    """
    yaml = import_optional("yaml", "data")
    directory = Path(directory)
    root = Path(root) if root is not None else directory.parent.parent
    if known_targets is None:
        from ..targets import registry

        known_targets = registry()
    known = set(known_targets)
    out, seen = [], {}
    for path in sorted(directory.glob("*.yaml")) if directory.is_dir() else []:
        entries = yaml.safe_load(path.read_text())
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise HypothesisError(f"{path.name}: must be a YAML list of hypotheses")
        for i, raw in enumerate(entries):
            entry = _check_entry(raw, f"{path.name}[{i}]", known)
            if entry["id"] in seen:
                raise HypothesisError(
                    f"{path.name}[{i}]: id {entry['id']} already declared in {seen[entry['id']]}"
                )
            seen[entry["id"]] = path.name
            entry["file"] = path.name
            result_path = root / entry["result"]
            entry["result_data"] = None
            entry["outcome"] = PENDING
            if result_path.is_file():
                result = json.loads(result_path.read_text())
                _check_result(result, entry, entry["result"])
                entry["result_data"] = result
                entry["outcome"] = result["outcome"]
            out.append(entry)
    return out


# --- what the deviations are explained by ---------------------------------------------------------


def verdict_reason(verdict: Mapping | None) -> str | None:
    """The cause a verdict states for its deviation, in words, or None.

    Parameters
    ----------
    verdict : mapping or None
        A verdict JSON.

    Returns
    -------
    str or None
        ``details["explanation"]`` or ``details["protocol_gap"]`` when one is a non-empty string
        or mapping.
    """
    details = (verdict or {}).get("details") or {}
    for key in REASON_KEYS:
        value = details.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, Mapping) and value:
            return json.dumps(value, sort_keys=True)
    return None


def deviations(rows: Iterable[Mapping], hypotheses: Iterable[Mapping]) -> list[dict]:
    """Every deviation of a run, with what explains it.

    A deviation is a target whose status is ``deviates`` (all its hypotheses address it), or a gap
    (a ``gap`` line of the hypotheses) of a target whose status is ``agrees``. It is ``tested``
    when at least one of its hypotheses holds, ``argument`` when none does but the verdict states
    a cause (:func:`verdict_reason`), else ``open``. A pending hypothesis counts as untested.

    Parameters
    ----------
    rows : iterable of mapping
        One per target: ``id``, ``status``, ``documents`` and ``verdict`` (the site's rows).
    hypotheses : iterable of mapping
        From :func:`load_hypotheses`.

    Returns
    -------
    list of dict
        ``target``, ``gap`` (None for a deviating target), ``documents``, ``explained`` (one of
        :data:`EXPLANATIONS`) and ``hypotheses`` (their ids).
    """
    by_target: dict[str, list] = {}
    for h in hypotheses:
        by_target.setdefault(h["target"], []).append(h)
    out = []
    for r in rows:
        hs = by_target.get(r["id"], [])
        if r["status"] == "deviates":
            groups = [(None, hs)]
        elif r["status"] == "agrees":
            gaps: dict[str, list] = {}
            for h in hs:
                gaps.setdefault(" ".join(h["gap"].split()), []).append(h)
            groups = list(gaps.items())
        else:
            continue
        for gap, group in groups:
            if any(h["outcome"] == OUTCOMES[0] for h in group):
                explained = "tested"
            elif verdict_reason(r.get("verdict")):
                explained = "argument"
            else:
                explained = "open"
            out.append(
                {
                    "target": r["id"],
                    "gap": gap,
                    "documents": list(r.get("documents") or []),
                    "explained": explained,
                    "hypotheses": [h["id"] for h in group],
                }
            )
    return out


def explanation_counts(
    rows: Iterable[Mapping], hypotheses: Iterable[Mapping], documents: Iterable[str]
) -> dict[str, dict[str, int]]:
    """Per document, how many deviations are explained by a tested cause, by argument only, or
    open (see :func:`deviations`).

    Parameters
    ----------
    rows : iterable of mapping
        One per target: ``id``, ``status``, ``documents`` and ``verdict``.
    hypotheses : iterable of mapping
        From :func:`load_hypotheses`.
    documents : iterable of str
        Document ids, in the order wanted.

    Returns
    -------
    dict
        ``{document: {"deviations": n, "tested": n, "argument": n, "open": n}}``; a deviation of
        a target printed in two documents counts in both.

    Examples
    --------
    >>> from boostcm.claims.hypotheses import explanation_counts
    >>> rows = [{"id": "A-T1", "status": "deviates", "documents": ["d"], "verdict": {}}]
    >>> h = [{"target": "A-T1", "gap": "g", "outcome": "holds", "id": "A-T1-x"}]
    >>> explanation_counts(rows, h, ["d"])["d"]
    {'deviations': 1, 'tested': 1, 'argument': 0, 'open': 0}
    """
    devs = deviations(rows, hypotheses)
    out = {}
    for d in documents:
        mine = [x for x in devs if d in x["documents"]]
        counts = {"deviations": len(mine)}
        counts.update({e: sum(x["explained"] == e for x in mine) for e in EXPLANATIONS})
        out[d] = counts
    return out
