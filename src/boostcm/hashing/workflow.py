"""Helpers of workflow/rules/hashing.smk: job lists and settings from the `hashing` config."""

from __future__ import annotations

import json

METHODS = ("ours", "tlsh", "klsh")


def dataset_setting(cfg: dict, dataset: str, key: str):
    """A per-dataset override (datasets.<name>.<key>) or the section-wide value."""
    return cfg["datasets"][dataset].get(key, cfg[key])


def seed_chunks(cfg: dict, dataset: str) -> list[str]:
    """Seed ranges "lo-hi" of `seed_chunk` seeds covering 0..seeds-1."""
    n, step = int(cfg["seeds"]), int(dataset_setting(cfg, dataset, "seed_chunk"))
    return [f"{lo}-{min(lo + step, n) - 1}" for lo in range(0, n, step)]


def job_settings(cfg: dict, dataset: str, method: str) -> str:
    """JSON settings of one job: shared vectorisation settings plus the method's own."""
    shared = {key: cfg[key] for key in ("train_fraction", "n_hashes", "n_train_pairs")}
    shared["fields"] = cfg["datasets"][dataset].get("fields")
    own = {k: v for k, v in cfg[method].items() if k != "skip_shingles"}
    return json.dumps({**shared, **own}, separators=(",", ":"))


def job_outputs(cfg: dict, dataset: str) -> list[str]:
    """Every job parquet of one dataset (methods x shingle sizes x seed chunks)."""
    skip = cfg["tlsh"].get("skip_shingles", {}).get(dataset, [])
    return [
        f"results/hashing/{dataset}/{method}/shingle{shingle}_seeds{chunk}.parquet"
        for method in METHODS
        for shingle in dataset_setting(cfg, dataset, "shingles")
        if not (method == "tlsh" and shingle in skip)
        for chunk in seed_chunks(cfg, dataset)
    ]


def dataset_of_target(cfg: dict, target: str) -> str:
    for name, entry in cfg["datasets"].items():
        if entry["target"] == target:
            return name
    raise ValueError(f"no hashing dataset has target {target}")


def verdicts(cfg: dict) -> list[str]:
    return [f"results/verdicts/{entry['target']}.json" for entry in cfg["datasets"].values()]
