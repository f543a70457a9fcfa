"""Config schema validation, the published tables' shapes, the report page."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from boostcm.claims import STATUSES, write_verdict
from boostcm.experiments.config import load_schema, schema_markdown, validate_config
from boostcm.report import build_report
from boostcm.targets import load_targets, paper_table, split_pm

# rows x columns of every published table (header excluded)
PAPER_SHAPES = {
    "EB-T1": (10, 4),
    "EB-T2": (10, 4),
    "EB-T3": (10, 9),
    "EB-T4": (30, 9),
    "EB-T5": (31, 4),
    "EB-TE": (10, 7),
    "EB-T6": (31, 9),
    "EB-T7": (31, 9),
    "EB-T8": (31, 9),
    "EB-T9": (31, 9),
    "EB-T10": (31, 9),
    "EB-T11": (31, 9),
    "HASH-T3.3": (3, 3),
    "HASH-T3.4": (3, 3),
    "HASH-T3.5": (3, 3),
    "CP-T4.1": (9, 6),
    "QS-T1": (5, 5),
    "QS-T2": (6, 5),
    "GUPTA-F2": (3, 2),
    "GUPTA-F3": (1, 2),
}


def _schema(repo):
    return load_schema(repo / "workflow/schemas/config.schema.yaml")


def _walk(schema, prefix=""):
    """(dotted key, property schema, required by its parent) of every key of the schema."""
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        yield f"{prefix}{name}", prop, name in required
        yield from _walk(prop, f"{prefix}{name}.")
        if isinstance(prop.get("additionalProperties"), dict):
            yield from _walk(prop["additionalProperties"], f"{prefix}{name}.<name>.")


@pytest.mark.parametrize("name", ["config.yaml", "ci.yaml", "all_datasets.yaml"])
def test_shipped_configs_validate_and_get_every_default(repo, name):
    cfg = validate_config(yaml.safe_load((repo / "config" / name).read_text()) or {}, _schema(repo))
    for key, prop, _ in _walk(_schema(repo)):
        if "default" in prop and "<name>" not in key:
            node = cfg
            for part in key.split("."):
                assert part in node, f"{name}: {key} has no value after validation"
                node = node[part]


def test_full_config_is_the_schema_defaults(repo):
    """config/config.yaml repeats no default: the full reproduction is the schema's defaults."""
    full = validate_config(yaml.safe_load((repo / "config/config.yaml").read_text()), _schema(repo))
    assert full == validate_config({}, _schema(repo))


def test_every_key_has_a_description_and_a_default(repo):
    for key, prop, required in _walk(_schema(repo)):
        assert prop.get("description"), f"{key} has no description"
        override = prop["description"].startswith("overrides")
        assert "default" in prop or required or override, f"{key} has no default"


def test_config_readme_is_generated_from_the_schema(repo):
    assert (repo / "config/README.md").read_text() == schema_markdown(_schema(repo)), (
        "config/README.md is stale: run `make config-docs`"
    )


def test_misspelt_key_is_named(repo):
    cfg = yaml.safe_load((repo / "config/ci.yaml").read_text())
    cfg["data"]["mirorr"] = "x"
    with pytest.raises(jsonschema.ValidationError, match="mirorr") as err:
        validate_config(cfg, _schema(repo))
    assert str(err.value).count("\n") == 0 and "allowed here are mirror, datasets" in str(err.value)
    cfg = yaml.safe_load((repo / "config/ci.yaml").read_text())
    cfg["conformal"]["alpha"] = "zero"
    with pytest.raises(jsonschema.ValidationError, match="conformal.alpha.*zero"):
        validate_config(cfg, _schema(repo))


@pytest.mark.parametrize("target_id,shape", sorted(PAPER_SHAPES.items()))
def test_published_tables_have_their_shapes(repo, target_id, shape):
    table = paper_table(target_id, repo / "config/paper")
    assert table.shape == shape
    values = table.iloc[:, 1:] if not target_id == "EB-T4" else table.iloc[:, 2:]
    for cell in values.to_numpy().ravel():
        mean, _ = split_pm(cell)
        assert mean == mean or cell in {"OOT", "OOM"}, f"{target_id}: unparsable cell {cell!r}"


def test_every_table_target_has_a_paper_csv(repo):
    targets = load_targets(repo / "config/targets.yaml")
    # every target once, each with a family (tests/test_target_wiring.py checks the rest)
    assert len(targets) == len({t["id"] for t in targets}) >= 36
    assert all(t["family"] for t in targets)
    with_table = {t["id"] for t in targets if t["paper_table"]}
    assert with_table == set(PAPER_SHAPES)


def test_split_pm():
    assert split_pm("0.11 ± 0.03") == (0.11, 0.03)
    assert split_pm("2.28s")[0] == 2.28 and split_pm("88.76%")[0] == 88.76
    assert all(v != v for v in split_pm("OOT"))


def test_report_lists_every_target_with_status(repo, tmp_path):
    write_verdict(
        tmp_path / "v" / "EB-T1.json",
        "EB-T1",
        "agrees",
        "6 of 10 match",
        files=[tmp_path / "t.csv"],
        rule="counts equal the published ones",
    )
    with pytest.raises(ValueError, match="status"):
        write_verdict(tmp_path / "v" / "X.json", "X", "great", "")
    table = build_report(
        repo / "config/targets.yaml", tmp_path / "v", tmp_path / "report" / "index.html"
    )
    html = (tmp_path / "report" / "index.html").read_text()
    n_targets = len(load_targets(repo / "config/targets.yaml"))
    assert len(table) == n_targets and set(table["status"]) <= set(STATUSES)
    assert table.set_index("id").at["EB-T1", "status"] == "agrees"
    assert (table["status"] == "not built").sum() == n_targets - 1
    for t in load_targets(repo / "config/targets.yaml"):
        assert t["id"] in html
    assert json.loads((tmp_path / "v" / "EB-T1.json").read_text())["summary"] == "6 of 10 match"


def test_config_files_merge_like_snakemake(repo, tmp_path):
    """Later files override earlier ones key by key; sibling keys of a section survive."""
    from boostcm.experiments.config import load_config_files

    schema = repo / "workflow/schemas/config.schema.yaml"
    base = load_config_files([repo / "config/config.yaml"], schema)
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text("exactboost:\n  batch_methods: true\n  n_folds: 3\n")
    b.write_text("exactboost:\n  n_folds: 2\n")
    merged = load_config_files([a, b], schema)["exactboost"]
    assert merged["batch_methods"] is True and merged["n_folds"] == 2
    assert merged["datasets"] == base["exactboost"]["datasets"]
