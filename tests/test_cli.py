"""The ``boostcm`` command line: one module per domain registers its sub-commands, ``--help``
lists them all, input errors are one line with status 1 while bugs keep their traceback, nothing
below the command line imports it, and jobs read their settings from the run's config file."""

from __future__ import annotations

import argparse
import json
import pkgutil
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml

import boostcm.cli as cli
from boostcm.cli import DOMAINS, build_parser, is_input_error, main
from boostcm.cli._common import read_config
from boostcm.datasets.catalog import UnknownDatasetError
from boostcm.datasets.fetch import ChecksumError
from boostcm.experiments.config import load_config_files, write_run_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

# the top-level commands of each domain module, in the order of `boostcm --help`
COMMANDS = {
    "data": ["fetch", "process", "dataset-table"],
    "report": ["report", "illustration", "cost", "config-docs"],
    "hashing": ["hashing"],
    "conformal": ["conformal", "conformal-bounds"],
    "exactboost": ["exactboost"],
    "calibration": ["calibration"],
    "financial": ["financial"],
    "quantile_surrogate": ["quantile-surrogate"],
    "kernels": ["compile-kernels"],
}


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_every_domain_module_registers_its_commands():
    modules = {m.name for m in pkgutil.iter_modules(cli.__path__) if not m.name.startswith("_")}
    assert modules == set(COMMANDS) == {d.__name__.rsplit(".", 1)[1] for d in DOMAINS}
    for domain in DOMAINS:
        parser = argparse.ArgumentParser()
        domain.register(parser.add_subparsers(dest="command"))
        assert _commands(parser) == COMMANDS[domain.__name__.rsplit(".", 1)[1]], domain.__name__
    every = [c for d in DOMAINS for c in COMMANDS[d.__name__.rsplit(".", 1)[1]]]
    assert _commands(build_parser()) == every


def test_each_command_runs_a_handler_of_its_own_module():
    """A handler lives beside the register() that adds its command."""

    def handlers(parser, module):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from handlers(sub, module)
        func = parser.get_default("func")
        if func is not None:
            yield func, module

    found = 0
    for domain in DOMAINS:
        parser = argparse.ArgumentParser()
        domain.register(parser.add_subparsers(dest="command"))
        for func, module in handlers(parser, domain):
            assert func.__module__ == module.__name__
            found += 1
    assert found == 35  # every runnable command (step) of boostcm


def test_help_lists_every_command_and_the_script_is_the_package():
    proc = subprocess.run(
        [sys.executable, "-m", "boostcm.cli", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^    (\S+)", proc.stdout, flags=re.M)
    assert listed == [c for cs in COMMANDS.values() for c in cs]
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "boostcm"]
    assert script.value == "boostcm.cli:main"


def test_a_command_builds_the_parser_of_its_module_only():
    """``main`` parses a command with the parser of the module that registers it: a job does not
    import the other domains' experiments (which their ``register`` may import for choices)."""
    assert {k: list(v) for k, v in cli.COMMANDS.items()} == COMMANDS
    for commands in COMMANDS.values():
        for command in commands:
            assert _commands(build_parser(command)) == commands
    assert _commands(build_parser("no-such-command")) == _commands(build_parser())


def test_the_command_line_starts_without_numerical_libraries():
    """Parsing a command whose module imports nothing heavy at registration loads no numpy,
    pandas, numba, scipy or scikit-learn: the handlers import what they use."""
    heavy = ("numpy", "pandas", "numba", "scipy", "sklearn")
    for command in (
        "fetch",
        "process",
        "report",
        "hashing",
        "conformal",
        "financial",
        "compile-kernels",
    ):
        code = (
            f"import sys; from boostcm.cli import build_parser; build_parser({command!r}); "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "[]", command


def test_input_errors_are_one_line_with_status_1(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "boostcm.cli", "fetch", "no-such-dataset"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("boostcm fetch: error: ")
    assert "unknown dataset 'no-such-dataset'" in proc.stderr and "Traceback" not in proc.stderr


def test_input_error_in_process(tmp_path, capsys):
    assert main(["conformal", "table", "--out", str(tmp_path / "t.csv")]) == 1
    err = capsys.readouterr().err
    assert err == "boostcm conformal table: error: no chunk files given\n"
    assert not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize("bug", [KeyError("n_rounds"), TypeError("x"), AttributeError("y")])
def test_programming_errors_keep_their_traceback(monkeypatch, tmp_path, bug):
    def broken(args):
        raise bug

    monkeypatch.setattr(cli.conformal, "_table", broken)
    with pytest.raises(type(bug)):
        main(["conformal", "table", "--out", str(tmp_path / "t.csv")])


def test_a_bug_prints_a_traceback_from_the_script(tmp_path):
    """A JSON config is taken as the workflow wrote it: a section missing from it is a bug of the
    caller (KeyError), shown with its traceback, not reported as bad input."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"seed": 0}))
    args = ["hashing", "job", "--dataset", "RLdata500", "--method", "ours", "--shingle", "3"]
    args += ["--seeds", "0-1", "--global-seed", "0", "--out", str(tmp_path / "j.parquet")]
    proc = subprocess.run(
        [sys.executable, "-m", "boostcm.cli", *args, "--configfile", str(config)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "KeyError: 'hashing'" in proc.stderr


def test_which_errors_are_input_errors():
    from jsonschema import ValidationError

    for exc in (ValueError(), FileNotFoundError(), UnknownDatasetError("x"), ChecksumError()):
        assert is_input_error(exc), exc
    assert is_input_error(ValidationError("bad config"))
    for exc in (KeyError("x"), TypeError(), AttributeError(), RuntimeError(), IndexError()):
        assert not is_input_error(exc), exc


def test_nothing_in_boostcm_imports_the_command_line():
    src = REPO / "src" / "boostcm"
    pattern = re.compile(r"^\s*(from|import)\s+(boostcm\.cli\b|\.+cli\b)", re.M)
    offenders = [
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if "cli" not in p.relative_to(src).parts[:1] and pattern.search(p.read_text())
    ]
    assert offenders == []


# --- the run's config: written once by the workflow, read by the jobs ----------------------------


def test_run_config_is_written_once_per_content(tmp_path):
    config = load_config_files([REPO / "config" / "ci.yaml"], SCHEMA)
    path = write_run_config(config, tmp_path)
    assert path.is_absolute() and path.parent == tmp_path.resolve()
    text = path.read_text()
    assert json.loads(text) == config and list(json.loads(text)) == list(config)  # order kept
    before = path.stat().st_mtime_ns
    assert write_run_config(config, tmp_path) == path and path.stat().st_mtime_ns == before
    other = json.loads(text)
    other["exactboost"]["model"]["n_rounds"] += 1
    assert write_run_config(other, tmp_path) != path and path.read_text() == text


def test_read_config_json_as_written_yaml_validated(tmp_path):
    full = load_config_files([REPO / "config" / "ci.yaml"], SCHEMA)
    written = write_run_config(full, tmp_path)
    assert read_config([str(written)], str(SCHEMA)) == full
    small = tmp_path / "small.yaml"
    small.write_text(yaml.safe_dump({"exactboost": {"model": {"n_rounds": 3}}}))
    config = read_config([str(small)], str(SCHEMA))
    assert config["exactboost"]["model"]["n_rounds"] == 3
    assert config["exactboost"]["model"]["n_estimators"] == 250  # the schema's default


def test_rules_pass_the_run_config_not_settings_json():
    """The jobs whose settings are a config section read it from $BOOSTCM_RUN_CONFIG; their
    settings stay in params (Snakemake's change detection) and out of the command line."""
    rules = (REPO / "workflow" / "rules").glob("*.smk")
    text = {p.name: p.read_text() for p in rules}
    assert not any("--model-settings" in t or "--settings" in t for t in text.values())
    for name in ("exactboost.smk", "exactboost_margin.smk", "exactboost_timing.smk"):
        assert '--configfile "$BOOSTCM_RUN_CONFIG"' in text[name]
    # estimator, ensembler and landscape; the batch rules are `use rule` variants of the first two
    assert text["exactboost.smk"].count('--configfile "$BOOSTCM_RUN_CONFIG"') == 3
    assert '--configfile "$BOOSTCM_RUN_CONFIG"' in text["hashing.smk"]
    assert 'os.environ["BOOSTCM_RUN_CONFIG"] = str(write_run_config(' in text["common.smk"]
