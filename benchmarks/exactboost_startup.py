"""ExactBoost start-up cost: import time, time to the first fit of a fresh process, peak memory.

What a workflow job or a command-line fit pays before and around its one fit, for two versions
of the library measured in the same run: the "old" one is the `src` tree of a git revision
(`--old-rev`, exported with `git archive` into a temporary folder), the "new" one this checkout's
`src`. Every measurement is a fresh subprocess with that version first on PYTHONPATH:

* ``import``: ``python -c "import boostcm.exactboost"``, wall seconds of the whole process
  (interpreter start included), as the parent sees it;
* ``first-fit``: ``from boostcm.exactboost import ExactBoostClassifier``, one fit with the paper's
  defaults (``metric="auc"``, E = 250, T = 50) and one ``decision_function`` on a few-hundred-row
  dataset read from a ``.npz`` file (so the data's own loader costs nothing), with the numba
  cache already filled by an untimed run of the same version: wall seconds of the whole process,
  of the import and of the fit, and the process's peak resident memory (``ru_maxrss``);
* ``cold``: the same with an empty numba cache (everything compiled), fewer repetitions; the
  first of them fills the cache of the warm runs;
* ``wide`` (with ``--wide``): the peak of the arrays a fit allocates (``tracemalloc``: numpy and
  numba arrays, not the libraries) on wider data (``make_classification``, 5 000 x 500, 19 MiB;
  E = 2, T = 2), after a warm-up fit in the same process; reported as ``peak_mib``.

Each version has its own numba cache (``NUMBA_CACHE_DIR``) and bytecode cache
(``PYTHONPYCACHEPREFIX``) in the temporary folder, so no run writes into a source tree. The
versions alternate run by run and which goes first flips with each repetition, so the load of a
shared machine falls on both alike; the summary is the median of each measure per version and
the ratio new / old of the medians. ``--check`` also fits both versions on breast cancer and
``make_classification`` for AUC, KS and P@k (E = 20) and fails unless ``decision_function`` is
equal bit for bit.

    python benchmarks/exactboost_startup.py --old-rev main --repeats 7 --cold-repeats 1 --check
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _revisions import ROOT, export_tree, write_comparison

# argv: data.npz. Prints one JSON line: seconds of import and fit, peak RSS (MiB), and the
# modules loaded.
FIRST_FIT = r"""
import time
t0 = time.perf_counter()
import resource, sys, json
import numpy as np
d = np.load(sys.argv[1])
X, y = d["X"], d["y"]
t1 = time.perf_counter()
from boostcm.exactboost import ExactBoostClassifier
t2 = time.perf_counter()
model = ExactBoostClassifier(metric="auc", random_state=0).fit(X, y)
scores = model.decision_function(X)
t3 = time.perf_counter()
print(json.dumps({
    "import_s": t2 - t1, "fit_s": t3 - t2,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "sklearn": "sklearn" in sys.modules, "pandas": "pandas" in sys.modules,
    "scipy": "scipy" in sys.modules,
}))
"""

# argv: data.npz. Prints one JSON line: peak MiB of the arrays one fit allocates.
WIDE = r"""
import json, sys, tracemalloc
import numpy as np
from boostcm.exactboost import ExactBoostClassifier
d = np.load(sys.argv[1])
X, y = d["X"], d["y"]
ExactBoostClassifier(n_estimators=1, n_rounds=1, random_state=0).fit(X[:50], y[:50])
tracemalloc.start()
ExactBoostClassifier(n_estimators=2, n_rounds=2, random_state=0).fit(X, y)
print(json.dumps({"peak_mib": tracemalloc.get_traced_memory()[1] / 2**20}))
"""

# argv: data.npz ... Prints one JSON line: per dataset and metric, the decision_function bytes'
# hash.
CHECK = r"""
import hashlib, json, sys
import numpy as np
from boostcm.exactboost import ExactBoostClassifier
out = {}
for path in sys.argv[1:]:
    d = np.load(path)
    for metric in ("auc", "ks", "pak"):
        m = ExactBoostClassifier(metric=metric, n_estimators=20, random_state=0).fit(d["X"], d["y"])
        s = np.ascontiguousarray(m.decision_function(d["X"]))
        out[f"{Path(path).stem}/{metric}"] = hashlib.sha256(s.tobytes()).hexdigest()[:16]
print(json.dumps(out))
""".replace("from boostcm", "from pathlib import Path\nfrom boostcm")


def _env(src: Path, work: Path, cache: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    env["NUMBA_NUM_THREADS"] = "1"
    env["OMP_NUM_THREADS"] = "1"
    return env


def _run(args: list[str], env: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return wall, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def _datasets(folder: Path) -> list[Path]:
    import numpy as np
    from sklearn.datasets import load_breast_cancer, make_classification

    X, y = make_classification(n_samples=300, n_features=10, random_state=0)
    np.savez(folder / "make_classification.npz", X=X, y=y)
    bc = load_breast_cancer()
    np.savez(folder / "breast_cancer.npz", X=bc.data, y=bc.target)
    X, y = make_classification(n_samples=5_000, n_features=500, random_state=0)
    np.savez(folder / "wide.npz", X=X, y=y)
    return [folder / "make_classification.npz", folder / "breast_cancer.npz", folder / "wide.npz"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-rev", default="main", help="git revision of the baseline")
    parser.add_argument("--repeats", type=int, default=7, help="warm runs per version and measure")
    parser.add_argument("--cold-repeats", type=int, default=1, help="empty-cache runs per version")
    parser.add_argument("--wide", action="store_true", help="also the wide-data memory fit")
    parser.add_argument("--check", action="store_true", help="check bit-identical predictions")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/exactboost_startup.csv"
    )
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = _datasets(tmp)
        (tmp / "old").mkdir()
        versions = {"old": export_tree(args.old_rev, tmp / "old"), "new": ROOT / "src"}
        envs = {v: _env(src, tmp / v, tmp / v / "numba") for v, src in versions.items()}

        def one(version, measure, rep):
            env = envs[version]
            if measure == "import":
                wall, _ = _run([sys.executable, "-c", "import boostcm.exactboost"], env)
                rows.append({"version": version, "measure": measure, "repeat": rep, "wall_s": wall})
                return
            if measure == "cold":
                env = dict(env, NUMBA_CACHE_DIR=str(tmp / version / f"cold{rep}"))
            if measure == "wide":
                wall, line = _run([sys.executable, "-c", WIDE, str(data[2])], env)
            else:
                wall, line = _run([sys.executable, "-c", FIRST_FIT, str(data[0])], env)
            rows.append(
                {
                    "version": version,
                    "measure": measure,
                    "repeat": rep,
                    "wall_s": wall,
                    **json.loads(line),
                }
            )

        order = ["old", "new"]
        # the first empty-cache run of each version fills its numba and bytecode caches
        for v in order:
            wall, line = _run([sys.executable, "-c", FIRST_FIT, str(data[0])], envs[v])
            rows.append(
                {"version": v, "measure": "cold", "repeat": 0, "wall_s": wall, **json.loads(line)}
            )
        if args.check:
            hashes = {
                v: json.loads(_run([sys.executable, "-c", CHECK, *map(str, data[:2])], env)[1])
                for v, env in envs.items()
            }
            same = hashes["old"] == hashes["new"]
            print("bit-identical decision_function:", same, hashes["new"])
            if not same:
                raise SystemExit(f"predictions differ: {hashes}")
        measures = ("import", "first-fit", "wide") if args.wide else ("import", "first-fit")
        for rep in range(args.repeats):
            for measure in measures:
                for v in order if rep % 2 == 0 else order[::-1]:
                    one(v, measure, rep)
            print(f"repeat {rep + 1}/{args.repeats} done", file=sys.stderr)
        for rep in range(1, args.cold_repeats):
            for v in order if rep % 2 == 0 else order[::-1]:
                one(v, "cold", rep)

    keys = [
        "version",
        "measure",
        "repeat",
        "wall_s",
        "import_s",
        "fit_s",
        "peak_mib",
        "sklearn",
        "pandas",
        "scipy",
    ]
    write_comparison(args.out, rows, keys, args.old_rev)

    print(f"{'measure':<10} {'quantity':<10} {'old':>8} {'new':>8} {'new/old':>8}")
    for measure in ("import", "first-fit", "cold", "wide"):
        for q in ("wall_s", "import_s", "fit_s", "peak_mib"):
            med = {}
            for v in ("old", "new"):
                vals = [
                    r[q] for r in rows if r["version"] == v and r["measure"] == measure and q in r
                ]
                if vals:
                    med[v] = statistics.median(vals)
            if len(med) == 2:
                print(
                    f"{measure:<10} {q:<10} {med['old']:8.2f} {med['new']:8.2f} "
                    f"{med['new'] / med['old']:8.2f}"
                )
    print(f"rows: {args.out}")


if __name__ == "__main__":
    main()
