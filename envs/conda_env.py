"""Print envs/boostcm.yaml, the conda environment of the workflow's rules (`--use-conda`), from
uv.lock: Python, pip, and the locked versions of the `workflow` extra (the methods, the data,
baselines and hashing extras, Snakemake and the notebooks), without the test tools. Run by
`make lock` (which writes the file) and `make lint` (which checks it is up to date)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = """\
# Generated from uv.lock by `make lock` (envs/conda_env.py): do not edit by hand.
# The conda environment of the workflow's rules (`snakemake --use-conda`): the locked versions of
# pyproject.toml's `workflow` extra, installed by pip from PyPI, so a rule runs the same versions as
# `make install`; no test tools. The project itself is installed from the repository (editable).
name: boostcm
channels:
  - conda-forge
  - nodefaults
dependencies:
  - python=3.11
  - pip
  - pip:
"""


def main(uv: str) -> None:
    export = subprocess.run(
        [uv, "export", "--quiet", "--frozen", "--extra", "workflow", "--no-emit-project",
         "--no-hashes", "--no-header", "--no-annotate"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    pins = [line.strip() for line in export.splitlines() if line.strip()]
    pins = [p for p in pins if not p.startswith(("#", "-"))]
    sys.stdout.write(HEADER + "".join(f"      - {pin}\n" for pin in pins) + "      - -e ..\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "uv")
