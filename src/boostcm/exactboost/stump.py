"""Public entry point of the stump search: :func:`fit_stump`."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_binary_labels, check_finite_1d
from ..metrics import check_k, check_margin
from ..metrics._kernels import METRIC_IDS, PAK, badness_to_loss
from ._search import PRECISION_BITS, SEARCH_IDS
from ._search import search as _search

MARGIN_SCALINGS = {"stump": 1.0, "constant": 0.0}
_NO_CUTOFF = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Stump:
    """h(x) = a if x <= threshold else b, and its margin-adjusted loss on the data it was fit on.

    ``work`` is the number of bisection levels (greedy) or of box bounds evaluated (exact)."""

    threshold: float
    a: float
    b: float
    loss: float
    work: int

    def __call__(self, x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(x <= self.threshold, self.a, self.b)


def check_choice(value, options, name):
    if value not in options:
        raise ValueError(f"{name} must be one of {sorted(options)}, got {value!r}")
    return options[value]


def check_precision_bits(bits):
    if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) or not 1 <= bits <= 64:
        raise ValueError(f"precision_bits must be an integer in [1, 64], got {bits!r}")
    return int(bits)


def fit_stump(
    x,
    y,
    scores,
    loss: str,
    margin: float,
    k: int | None = None,
    search: str = "greedy",
    margin_scaling: str = "stump",
    precision_bits: int = PRECISION_BITS,
) -> Stump:
    """Best stump on feature `x` added to `scores` for the margin loss (2.4).

    search="greedy": the paper's IA bisection (Algorithm 3); "reduced": the same bisection over
    (threshold, d = b - a), returning a = -d/2, b = d/2; "exact": branch-and-bound, the global
    minimum over thresholds and a, b in [-1, 1]. margin_scaling="stump" lowers positives by
    (1 + |b - a|/2) margin as in (2.4); "constant" by margin only (Algorithm 3's shorthand).
    precision_bits: c, how many times A and B are halved (53 = float64, 24 = float32).
    """
    method = check_choice(search, SEARCH_IDS, "search")
    mid = check_choice(loss, METRIC_IDS, "loss")
    mscale = check_choice(margin_scaling, MARGIN_SCALINGS, "margin_scaling")
    xs = check_finite_1d(x, "x")
    s = check_finite_1d(scores, "scores")
    if s.shape[0] != xs.shape[0]:
        raise ValueError(f"scores has {s.shape[0]} entries but x has {xs.shape[0]}")
    yy = check_binary_labels(y, xs.shape[0])
    theta = check_margin(margin)
    if mid == PAK:
        if k is None:
            raise ValueError("k is required for the P@k loss")
        kk = check_k(k, xs.shape[0])
    else:
        kk = 1
    order = np.argsort(s, kind="mergesort")
    bad, xi, a, b, work = _search(
        s[order],
        xs[order],
        yy[order],
        theta,
        mscale,
        mid,
        kk,
        method,
        check_precision_bits(precision_bits),
        _NO_CUTOFF,
    )
    n1 = int(yy.sum())
    return Stump(
        float(xi),
        float(a),
        float(b),
        float(badness_to_loss(mid, bad, xs.shape[0] - n1, n1, kk)),
        int(work),
    )
