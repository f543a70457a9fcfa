"""Where one ExactBoost fit spends its time: the phases of a run's rounds, and the search's levels.

numba kernels do not show in cProfile, so this replays `boostcm.exactboost._booster.fit_run`
round by round from Python, each phase the kernel of `_booster` that `fit_run` calls, timed on
its own (process CPU seconds):

* ``sample``: the round's feature and row subsample, and the subsample's scores in score order
  (`_draw_subsample`);
* ``search``: the stump searches on the sampled features (`_best_stump`: `_search.search`, IA
  bisection, per feature);
* ``candidate``: S' = S + the best stump on all rows, by one merge (`_candidate`);
* ``normalise``: min-max normalisation of S' (`_normalise`);
* ``full_check``: the full-data margin loss of S' (`_full_badness`).

The replay is checked against `fit_run` itself: the accepted features of every round must be
the same, so the phases are those of the library's run. The data are a dataset's fold-0 training
rows of the result tables' cross-validation (`boostcm.experiments.exactboost.fold_rows`, 5 folds,
seed 0), optionally subsampled to `--rows`; the model is the paper's (T = 50, 20 % row and
feature subsampling, margin 0.05, greedy search with c = 53). Fit time is linear in the number of
runs E, so `--n-estimators` runs are timed and the CPU seconds are also projected to E = 250.

With `--bits`, the searches of the timed runs are replayed at fewer halvings c (a
number-changing setting) to show what it would buy: search CPU seconds and levels descended.

    NUMBA_NUM_THREADS=1 python benchmarks/exactboost_phases.py --dataset gmsc --n-estimators 2
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from numba import njit

from boostcm.datasets import load_dataset
from boostcm.exactboost import ExactBoostClassifier
from boostcm.exactboost._booster import (
    _best_stump,
    _candidate,
    _class_pools,
    _draw_subsample,
    _full_badness,
    _initial_scores,
    _normalise,
    _rank,
    fit_run,
)
from boostcm.exactboost._interval import BIG
from boostcm.exactboost._search import search
from boostcm.exactboost._workspace import MarginLoss, RunPlan, make_trace, make_workspace
from boostcm.exactboost.classifier import _depth
from boostcm.experiments.exactboost import fold_rows

PHASES = ("sample", "search", "candidate", "normalise", "full_check")


def replay(Xt, y, plan, seed, problems=None):
    """One run of `plan` from `seed`, phase by phase: (CPU seconds per phase, accepted features).
    With `problems` (a list), each search's inputs are appended to it."""
    p, n = Xt.shape
    loss = plan.loss
    sub_loss = MarginLoss(loss.metric, loss.theta, loss.mscale, plan.k_sub)
    state = np.array([np.uint64(seed)], np.uint64)
    ws = make_workspace(plan.n1_sub + plan.n0_sub, n)
    sw, rw = ws.search, ws.run
    cur, new = rw.ranked, rw.cand
    s = np.empty(n)
    _initial_scores(s, np.zeros(n), plan.random_init, state)
    _rank(s, y, cur)
    pos_pool, neg_pool = _class_pools(y)
    feat_pool = np.arange(p)
    rw.stamp[:] = 0
    cur_bad = _full_badness(loss, cur, rw.full, sw.buf_neg, sw.buf_pos)
    spent = dict.fromkeys(PHASES, 0.0)
    feats = []
    clock = time.process_time
    for t in range(plan.n_rounds):
        t0 = clock()
        _draw_subsample(
            feat_pool,
            pos_pool,
            neg_pool,
            plan.p_sub,
            plan.n1_sub,
            plan.n0_sub,
            state,
            rw.stamp,
            t,
            cur,
            rw.sub,
        )
        t1 = clock()
        bj, bxi, ba, bb = _best_stump(
            Xt, feat_pool, plan.p_sub, rw.sub, rw.x_sub, sub_loss, plan.method, plan.bits, sw
        )
        t2 = clock()
        spent["sample"] += t1 - t0
        spent["search"] += t2 - t1
        if problems is not None:
            s_sub, y_sub, sub = rw.sub
            problems.extend(
                (s_sub.copy(), Xt[j, sub], y_sub.copy()) for j in feat_pool[: plan.p_sub]
            )
        if bj < 0:
            feats.append(-1)
            continue
        lo, hi = _candidate(cur, Xt[bj], bxi, ba, bb, new, rw.left, rw.right)
        t3 = clock()
        _normalise(new.s, lo, hi)
        t4 = clock()
        new_bad = _full_badness(loss, new, rw.full, sw.buf_neg, sw.buf_pos)
        t5 = clock()
        spent["candidate"] += t3 - t2
        spent["normalise"] += t4 - t3
        spent["full_check"] += t5 - t4
        if new_bad <= cur_bad:
            cur_bad = new_bad
            cur, new = new, cur
            feats.append(bj)
        else:
            feats.append(-1)
    return spent, feats


def run_plan(X, y, metric):
    """The RunPlan of ExactBoostClassifier's defaults for `metric` on (X, y)."""
    clf = ExactBoostClassifier(metric=metric)
    mid, method, mscale, theta, subsample, colsample = clf._check_params()
    n, p = X.shape
    n1 = int(y.sum())
    n1_sub = max(1, math.ceil(subsample * n1))
    n0_sub = max(1, math.ceil(subsample * (n - n1)))
    frac = clf._k_fraction(y)
    return RunPlan(
        MarginLoss(mid, theta, mscale, _depth(frac, n)),
        _depth(frac, n1_sub + n0_sub),
        clf.n_rounds,
        max(1, math.ceil(colsample * p)),
        n1_sub,
        n0_sub,
        method,
        clf.precision_bits,
        True,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="gmsc")
    ap.add_argument("--rows", type=int, default=None, help="subsample the fold-0 training rows")
    ap.add_argument("--metrics", nargs="+", default=["auc", "ks", "pak"])
    ap.add_argument("--n-estimators", type=int, default=2)
    ap.add_argument("--bits", type=int, nargs="*", default=[], help="also time the searches at c")
    ap.add_argument("--out", type=Path, default=None, help="append one CSV row per metric")
    args = ap.parse_args()

    X, y = load_dataset(args.dataset)
    train, _ = fold_rows(len(y), 0, 5, 0)
    if args.rows is not None and args.rows < train.size:
        train = np.sort(np.random.default_rng(0).choice(train, args.rows, replace=False))
    X = X[train]
    y = (y[train] == y.max()).astype(np.int64)
    Xt = np.ascontiguousarray(X.T)
    n = len(y)
    for metric in args.metrics:
        plan = run_plan(X, y, metric)
        replay(Xt, y, plan._replace(n_rounds=2), 1)  # compile
        total = dict.fromkeys(PHASES, 0.0)
        problems = []
        for e in range(args.n_estimators):
            seed = 1000 + e
            spent, feats = replay(Xt, y, plan, seed, problems)
            trace = make_trace(plan.n_rounds)
            fit_run(Xt, y, np.zeros(n), plan, seed, trace)
            if trace.feat.tolist() != feats:
                raise AssertionError(f"{metric}, run {e}: the replay differs from fit_run")
            for k, v in spent.items():
                total[k] += v
        cpu = sum(total.values())
        per250 = cpu / args.n_estimators * 250
        share = {k: v / cpu for k, v in total.items()}
        print(
            f"{args.dataset} {metric} n={n} m={plan.n1_sub + plan.n0_sub} E={args.n_estimators}:"
            f" {cpu:.2f} CPU-s ({per250:.0f} at E=250); "
            + " ".join(f"{k} {v:.3f}" for k, v in share.items()),
            flush=True,
        )
        bits_cpu = {}
        if args.bits:
            sub_loss = MarginLoss(plan.loss.metric, plan.loss.theta, plan.loss.mscale, plan.k_sub)
            sw = make_workspace(plan.n1_sub + plan.n0_sub, 0).search
            _one_search(*problems[0], sub_loss, plan.method, plan.bits, sw)  # compile
            for c in [plan.bits, *args.bits]:
                t0 = time.process_time()
                levels = 0
                for s_sub, x_sub, y_sub in problems:
                    levels += _one_search(s_sub, x_sub, y_sub, sub_loss, plan.method, c, sw)
                bits_cpu[c] = time.process_time() - t0
                print(
                    f"  searches without cutoff at c={c}: {bits_cpu[c]:.2f} CPU-s,"
                    f" {levels / len(problems):.1f} levels a search",
                    flush=True,
                )
        if args.out is not None:
            new = not args.out.exists()
            with open(args.out, "a", newline="") as fh:
                w = csv.writer(fh)
                if new:
                    w.writerow(
                        ["dataset", "metric", "n", "n_estimators", "cpu_s", "cpu_s_E250", *PHASES]
                    )
                w.writerow(
                    [
                        args.dataset,
                        metric,
                        n,
                        args.n_estimators,
                        round(cpu, 3),
                        round(per250, 1),
                        *(round(share[k], 4) for k in PHASES),
                    ]
                )


@njit(cache=True)
def _one_search(s, x, y, loss, method, bits, sw):
    return search(s, x, y, loss, method, bits, BIG, sw).work


if __name__ == "__main__":
    main()
