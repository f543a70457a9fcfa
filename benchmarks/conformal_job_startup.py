"""Start-up of a conformal simulation job: CPU seconds of ``boostcm conformal simulate``.

What each of the workflow's ``conformal_simulate_chunk`` / ``conformal_simulate_point`` jobs pays
besides its simulations, for two versions of the library measured in the same run: the "old" one
is the `src` tree of a git revision (``--old-rev``, exported with ``git archive`` into a temporary
folder), the "new" one this checkout's `src`. Every run is a fresh process with that version first
on PYTHONPATH, running the job's command line (``boostcm.cli.main`` on the rule's arguments: AR(1),
lambda = 0.5, the default n_lags, n_train, n_cal, n_test and alpha) with ``--count 1`` and
``--count 2``, one thread. Measured per run: user + system CPU seconds and peak resident memory of
the process (``os.wait4``), and whether it loaded pandas, scikit-learn, scipy.stats, matplotlib.

The start-up of a job is the CPU of the one-simulation job minus one simulation, the simulation's
cost being the difference of the two-simulation and one-simulation jobs (medians).

With ``--snakemake N`` each version also runs the one-simulation job of each model N times through
Snakemake (``snakemake --cores 1 <the chunk's parquet>``, the version's own workflow, config
``conformal: {n_sims: 1, chunk_size: 1}``): a ``sitecustomize`` module on PYTHONPATH records the
``boostcm`` job process's user + system CPU and peak memory at exit (before the interpreter's
teardown) and skips the workflow's ``onstart`` kernel compilation; Snakemake's benchmark file's
``cpu_time`` is recorded beside it.

Each version has its own numba cache (``NUMBA_CACHE_DIR``), filled by an untimed run of each model
first. The versions alternate run by run and which goes first flips with each repetition, so the
load of a shared machine falls on both alike. ``--check`` first runs one chunk per model and
process (``--first 3 --count 2``) and one precision run (``--half-width``) with each version and
fails unless the parquet files are equal byte for byte.

    python benchmarks/conformal_job_startup.py --old-rev 7ba4233 --repeats 5 --check --snakemake 3
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _revisions import ROOT, export_tree, write_comparison

# what the old version needs besides its library: the workflow its Snakemake runs use
EXPORTED = ("src", "config", "workflow", "envs")
MODELS = ("boosting", "forest", "network")
HEAVY = ("pandas", "sklearn", "scipy.stats", "matplotlib", "numba", "scipy.special")

# argv: the boostcm arguments. Runs the command as the `boostcm` entry point does, then prints
# one JSON line: which heavy modules the job loaded.
JOB = f"""
import json, sys
from boostcm.cli import main
rc = main(sys.argv[1:])
print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))
sys.exit(rc)
"""


def job_args(model: str, out: Path, *, process="ar1", first=0, count=1, extra=()) -> list[str]:
    """The rule's command line (workflow/rules/conformal.smk) with the default settings."""
    return [
        "conformal", "simulate", "--process", process, "--param", "0.5", "--model", model,
        "--first", str(first), "--count", str(count), "--seed", "0", "--n-lags", "11",
        "--n-train", "1000", "--n-cal", "500", "--n-test", "1", "--alpha", "0.1",
        *extra, "--out", str(out),
    ]  # fmt: skip


def _env(src: Path, cache: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env["NUMBA_CACHE_DIR"] = str(cache)
    for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = "1"
    return env


def _run(args: list[str], env: dict) -> dict:
    """Run `args`; CPU seconds, peak MiB and the JSON line it printed."""
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.stdout.read(), proc.stderr.read()
    if proc.returncode != 0:
        raise RuntimeError(err[-3000:])
    lines = out.strip().splitlines()
    return {
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "user_s": usage.ru_utime,
        "sys_s": usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        **(json.loads(lines[-1]) if lines else {}),
    }


# sitecustomize.py of the Snakemake runs: in a `boostcm` process, skips onstart's compile-kernels
# and appends the job's user and system CPU seconds and peak RSS (KiB) to $BOOSTCM_TIME_LOG at exit
SITECUSTOMIZE = """
import os
import sys

if os.path.basename(sys.argv[0]) == "boostcm":
    if sys.argv[1:2] == ["compile-kernels"]:
        os._exit(0)
    import atexit
    import resource

    def _record():
        r = resource.getrusage(resource.RUSAGE_SELF)
        with open(os.environ["BOOSTCM_TIME_LOG"], "a") as fh:
            fh.write(f"{r.ru_utime} {r.ru_stime} {r.ru_maxrss}\\n")

    atexit.register(_record)
"""


def _snakemake(root: Path, env: dict, work: Path, model: str) -> dict:
    """One one-simulation chunk job of `model` through Snakemake: its CPU seconds and peak MiB
    (/usr/bin/time) and the benchmark file's cpu_time."""
    target = f"results/conformal/sims/ar1/{model}/0.5/chunk0.parquet"
    bench = work / f"results/benchmarks/conformal/sims/ar1/{model}/0.5/chunk0.tsv"
    (work / target).unlink(missing_ok=True)
    log = Path(env["BOOSTCM_TIME_LOG"])
    log.unlink(missing_ok=True)
    snakemake = Path(sys.executable).parent / "snakemake"
    cmd = [str(snakemake), target, "-s", str(root / "workflow/Snakefile"), "-d", str(work)]
    cmd += ["--cores", "1", "--quiet", "all", "--configfile", str(work / "cp.yaml")]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    user, system, peak_kib = log.read_text().split()[-3:]  # the job's line (the only one)
    with open(bench) as fh:
        cpu_time = float(next(csv.DictReader(fh, delimiter="\t"))["cpu_time"])
    return {
        "cpu_s": float(user) + float(system),
        "user_s": float(user),
        "sys_s": float(system),
        "peak_mib": int(peak_kib) / 1024,
        "bench_cpu_time": cpu_time,
    }


def _check(envs: dict, tmp: Path) -> None:
    """Byte-equal parquet files of both versions: a chunk per model and process, a precision run."""
    cases = [(m, p, dict(first=3, count=2)) for m in MODELS for p in ("ar1", "hmm")] + [
        (
            "boosting",
            "ar1",
            dict(count=6, extra=("--half-width", "0.5", "--batch", "2", "--min-sims", "2")),
        )
    ]
    for i, (model, process, kw) in enumerate(cases):
        files = {}
        for v, env in envs.items():
            files[v] = tmp / v / f"check{i}.parquet"
            _run(
                [sys.executable, "-c", JOB, *job_args(model, files[v], process=process, **kw)], env
            )
        same = files["old"].read_bytes() == files["new"].read_bytes()
        print(f"check {model} {process} {kw}: byte-identical parquet: {same}", file=sys.stderr)
        if not same:
            raise SystemExit(f"outputs differ: {model} {process} {kw}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-rev", default="main", help="git revision of the baseline")
    parser.add_argument("--repeats", type=int, default=5, help="runs per version, model, count")
    parser.add_argument("--check", action="store_true", help="check byte-identical outputs")
    parser.add_argument(
        "--snakemake",
        type=int,
        default=0,
        metavar="N",
        help="N runs per version and model through Snakemake",
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/conformal_job_startup.csv"
    )
    parser.add_argument("--summary", action="store_true", help="only summarize --out")
    args = parser.parse_args(argv)
    if args.summary:
        summarize(args.out)
        return

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "old").mkdir()
        (tmp / "new").mkdir()
        versions = {
            "old": export_tree(args.old_rev, tmp / "old", EXPORTED),
            "new": ROOT / "src",
        }
        envs = {v: _env(src, tmp / v / "numba") for v, src in versions.items()}
        order = ["old", "new"]
        for v in order:  # untimed: fills each version's numba cache (and bytecode)
            for m in MODELS:
                _run([sys.executable, "-c", JOB, *job_args(m, tmp / v / "warm.parquet")], envs[v])
        if args.check:
            _check(envs, tmp)
        for rep in range(args.repeats):
            for model in MODELS:
                for count in (1, 2):
                    for v in order if rep % 2 == 0 else order[::-1]:
                        out = tmp / v / "job.parquet"
                        cmd = [sys.executable, "-c", JOB, *job_args(model, out, count=count)]
                        rows.append(
                            {
                                "version": v,
                                "model": model,
                                "count": count,
                                "repeat": rep,
                                "via": "direct",
                                **_run(cmd, envs[v]),
                            }
                        )
            print(f"repeat {rep + 1}/{args.repeats} done", file=sys.stderr)
        try:  # the direct runs are kept if a Snakemake run fails
            if args.snakemake:
                site = tmp / "site"
                site.mkdir()
                (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
                for v, src in versions.items():
                    work = tmp / v / "smk"
                    work.mkdir()
                    (work / "config").symlink_to(src.parent / "config")
                    (work / "cp.yaml").write_text("conformal:\n  n_sims: 1\n  chunk_size: 1\n")
                    envs[v] = dict(
                        envs[v],
                        PYTHONPATH=f"{site}{os.pathsep}{src}",
                        BOOSTCM_TIME_LOG=str(tmp / v / "time.log"),
                    )
                for rep in range(args.snakemake):
                    for model in MODELS:
                        for v in order if rep % 2 == 0 else order[::-1]:
                            root = versions[v].parent
                            rows.append(
                                {
                                    "version": v,
                                    "model": model,
                                    "count": 1,
                                    "repeat": rep,
                                    "via": "snakemake",
                                    **_snakemake(root, envs[v], tmp / v / "smk", model),
                                }
                            )
                    print(f"snakemake repeat {rep + 1}/{args.snakemake} done", file=sys.stderr)
        except RuntimeError as exc:
            print(f"a Snakemake run failed: {exc}", file=sys.stderr)

    keys = ["version", "via", "model", "count", "repeat", "cpu_s", "user_s", "sys_s", "peak_mib"]
    keys += ["bench_cpu_time", *HEAVY]
    write_comparison(args.out, rows, keys, args.old_rev)

    summarize(args.out)


def summarize(path: Path) -> None:
    """Print the medians of a results file: per model, the direct runs (job CPU, start-up, peak
    memory, heavy modules the new version loaded) and the Snakemake runs."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))

    def med(v, m, c, q="cpu_s", via="direct"):
        key = (v, via, m, str(c))
        vals = [
            float(r[q]) for r in rows if (r["version"], r["via"], r["model"], r["count"]) == key
        ]
        return statistics.median(vals) if vals else float("nan")

    order = ("old", "new")
    print(
        f"{'model':<9} {'job(1) old':>10} {'new':>6} {'new/old':>7} {'start-up old':>12} "
        f"{'new':>6} {'peak MiB old':>12} {'new':>6}  heavy modules new"
    )
    for m in MODELS:
        job = {v: med(v, m, 1) for v in order}
        start = {v: 2 * med(v, m, 1) - med(v, m, 2) for v in order}
        peak = {v: med(v, m, 1, "peak_mib") for v in order}
        new = [r for r in rows if (r["version"], r["via"], r["model"]) == ("new", "direct", m)]
        loaded = [h for h in HEAVY if any(r[h] == "True" for r in new)]
        print(
            f"{m:<9} {job['old']:10.2f} {job['new']:6.2f} {job['new'] / job['old']:7.2f} "
            f"{start['old']:12.2f} {start['new']:6.2f} {peak['old']:12.0f} {peak['new']:6.0f}  "
            f"{','.join(loaded)}"
        )
    if any(r["via"] == "snakemake" for r in rows):
        print(f"{'snakemake':<9} {'job(1) old':>10} {'new':>6} {'new/old':>7} ", end="")
        print(f"{'cpu_time old':>12} {'new':>6} {'peak MiB old':>12} {'new':>6}")
        for m in MODELS:
            job = {v: med(v, m, 1, via="snakemake") for v in order}
            tsv = {v: med(v, m, 1, "bench_cpu_time", via="snakemake") for v in order}
            peak = {v: med(v, m, 1, "peak_mib", via="snakemake") for v in order}
            print(
                f"{m:<9} {job['old']:10.2f} {job['new']:6.2f} {job['new'] / job['old']:7.2f} "
                f"{tsv['old']:12.2f} {tsv['new']:6.2f} {peak['old']:12.0f} {peak['new']:6.0f}"
            )
    print(f"rows: {path}")


if __name__ == "__main__":
    main()
