"""Shared helpers of the hypothesis scripts: their declarations and their result files."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import yaml

from boostcm.claims.hypotheses import outcome

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def entry(family: str, hypothesis_id: str) -> dict:
    """The declaration `hypothesis_id` of config/hypotheses/<family>.yaml."""
    entries = yaml.safe_load((ROOT / "config" / "hypotheses" / f"{family}.yaml").read_text())
    for e in entries:
        if e["id"] == hypothesis_id:
            return e
    raise KeyError(f"{hypothesis_id} is not declared in config/hypotheses/{family}.yaml")


def defaults() -> dict:
    """The workflow's settings: the config schema's defaults (the papers' settings)."""
    from boostcm.experiments.config import load_schema, validate_config

    return validate_config({}, load_schema(SCHEMA))


def write_result(family: str, hypothesis_id: str, measured: dict, statement, cpu_seconds: float):
    """Judge `measured` by the declared rule and write the result file; returns the result.

    `statement` is a format string filled with the measured numbers and ``outcome``.
    """
    e = entry(family, hypothesis_id)
    measured = {k: (float(v) if not isinstance(v, (int, bool)) else v) for k, v in measured.items()}
    result = outcome(e["rule_params"], measured)
    out = {
        "id": hypothesis_id,
        "measured": measured,
        "outcome": result,
        "statement": statement.format(outcome=result, **measured),
        "cpu_seconds": round(float(cpu_seconds), 1),
        "date": datetime.date.today().isoformat(),
    }
    path = ROOT / e["result"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2), flush=True)
    return out


PARTS = ROOT / "results" / "hypotheses" / "parts"  # under the git-ignored results/


def part(hypothesis_id: str, name: str, compute, only=None) -> dict | None:
    """A cached piece of a hypothesis's measurement, so that pieces run in parallel processes.

    Returns the cached dict of (`hypothesis_id`, `name`), computing and caching ``compute()``
    (a dict of numbers; ``cpu_seconds`` is added) when absent. When `only` is given and is not
    `name`, nothing is computed and None is returned for a missing piece.
    """
    import os
    import time

    path = PARTS / f"{hypothesis_id}--{name}.json"
    if only is None and os.environ.get("HYPOTHESES_WAIT"):  # pieces run in other processes
        while not path.is_file():
            time.sleep(10)
        time.sleep(1)  # let the writer finish
    if path.is_file():
        return json.loads(path.read_text())
    if only is not None and only != name:
        return None
    t0 = time.process_time()
    out = dict(compute())
    out["cpu_seconds"] = time.process_time() - t0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    return out
