"""Snakemake's own report: every figure and table a rule writes is flagged with ``report()``.

``snakemake --report report.zip`` shows only the outputs flagged with ``report(...)``. The
convention (docs/report.md): every ``results/figures/*.png`` and ``results/tables/*.csv`` a rule
writes is flagged, with a caption file that exists and a category naming its document; a rendered
``results/tables/*.md`` is flagged only when its target has no CSV table (GUPTA-T1). The rules are
read from the loaded workflow, not from the text, so an output built from a variable counts too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

FIGURE_OR_TABLE = re.compile(r"^results/(figures/.+\.png|tables/.+\.csv)$")
CATEGORIES = ("ExactBoost", "Thesis ch. 3", "Thesis ch. 4", "Gupta et al.", "Mackey et al.")


@pytest.fixture(scope="module")
def rules():
    """The workflow's rules, loaded under the small profile (every rule is defined under any
    config; only which targets are asked for changes)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        wf = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[REPO / "config" / "ci.yaml"]),
            snakefile=REPO / "workflow" / "Snakefile",
            workdir=REPO,
        )
        # the public API runs workflows; the loaded rules are on the Workflow object
        return list(wf._workflow.rules)


def _outputs(rules):
    for rule in rules:
        for f in rule.output:
            yield rule, f


def test_every_figure_and_csv_table_is_flagged_with_a_caption(rules):
    from snakemake.io import is_flagged

    seen, unflagged = set(), []
    for rule, f in _outputs(rules):
        if not FIGURE_OR_TABLE.match(str(f)):
            continue
        seen.add(rule.name)
        if not is_flagged(f, "report"):
            unflagged.append(f"{rule.name}: {f}")
            continue
        flag = f.flags["report"]
        caption = Path(flag.caption.get_path_or_uri(secret_free=True)).resolve()
        assert caption.is_file(), f"{rule.name}: caption {caption} missing"
        assert caption.parent == REPO / "workflow" / "report", f"{rule.name}: {caption}"
        assert flag.category and flag.category.startswith(CATEGORIES), (rule.name, flag.category)
        assert flag.subcategory and flag.labels.get("target"), rule.name
    assert not unflagged, "outputs without report(): " + ", ".join(unflagged)
    # the quantile-surrogate rules are among those checked (QS-T1, QS-T2, QS-F2, QS-F1)
    assert {
        "qs_table",
        "qs_table_notebook",
        "qs_recall_example",
        "qs_recall_notebook",
        "qs_f1_table",
        "qs_f1_notebook",
    } <= seen


def test_a_rendered_table_is_flagged_only_when_its_target_has_no_csv(rules):
    from snakemake.io import is_flagged

    from boostcm.targets import load_targets

    ids = [t["id"] for t in load_targets(REPO / "config" / "targets.yaml")]
    outputs = list(_outputs(rules))

    def producible(f) -> set:
        path = Path(str(f))
        prefix, suffix = f"{path.parent}/", path.suffix
        return {i for i in ids if f.regex().fullmatch(prefix + i + suffix)}

    with_csv = set().union(*(producible(f) for _, f in outputs if str(f).endswith(".csv")))
    checked = set()
    for rule, f in outputs:
        path = str(f)
        if path.startswith("results/tables/") and path.endswith(".md"):
            targets = producible(f)
            assert targets, f"{rule.name}: {path} names no target"
            checked |= targets
            for tid in targets:
                assert is_flagged(f, "report") == (tid not in with_csv), f"{rule.name}: {tid}"
    assert {"GUPTA-T1", "EB-T3", "CP-T4.1"} <= checked
