"""Public entry point of the stump search: :func:`fit_stump`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    check_binary_labels,
    check_choice,
    check_finite_1d,
    check_k,
    check_margin,
    check_precision_bits,
    check_same_length,
)
from ..metrics._kernels import METRIC_IDS, PAK, badness_to_loss
from ._interval import BIG
from ._search import PRECISION_BITS, SEARCH_IDS
from ._search import search as _search
from ._workspace import MarginLoss, make_workspace

__all__ = ["MARGIN_SCALINGS", "Stump", "fit_stump"]

MARGIN_SCALINGS = {"stump": 1.0, "constant": 0.0}


@dataclass(frozen=True)
class Stump:
    """A decision stump on one feature and its margin-adjusted loss, as returned by `fit_stump`.

    The stump is h(x) = a if x <= threshold else b; calling the object evaluates it.

    Parameters
    ----------
    threshold : float
        Split point xi of the feature.
    a : float
        Value on the left (x <= threshold), in [-1, 1].
    b : float
        Value on the right (x > threshold), in [-1, 1].
    loss : float
        Margin-adjusted loss of scores + h(x) on the data the stump was fit on.
    work : int
        Bisection levels (greedy and reduced searches) or box bounds evaluated (exact search).
    certified : bool, default=False
        True when the search proved that no stump has a lower loss (to the resolution of
        `precision_bits` halvings of b - a): the exact search does unless its safety budget of
        bounds ran out; the greedy and reduced searches never do.

    See Also
    --------
    fit_stump : Fits the best stump of one feature.

    Examples
    --------
    >>> from boostcm.exactboost import Stump
    >>> h = Stump(threshold=0.5, a=-1.0, b=1.0, loss=0.0, work=1)
    >>> h([0.2, 0.7])
    array([-1.,  1.])
    """

    threshold: float
    a: float
    b: float
    loss: float
    work: int
    certified: bool = False

    def __call__(self, x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(x <= self.threshold, self.a, self.b)


def fit_stump(
    x,
    y,
    scores,
    metric: str,
    margin: float,
    k: int | None = None,
    search: str = "greedy",
    margin_scaling: str = "stump",
    precision_bits: int = PRECISION_BITS,
) -> Stump:
    """Best stump on one feature added to the current scores, for the margin-adjusted loss.

    Solves one round's stump problem (thesis eq. 2.4): minimise over thresholds xi and heights
    a, b in [-1, 1] the margin-adjusted loss of scores + h(x), h(x) = a if x <= xi else b, by
    interval arithmetic (Iterative Minimization, [1]_ Algorithm 2; [2]_ Algorithm 3).

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Values of the feature; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    scores : array-like of shape (n_samples,)
        Current scores S to which the stump is added; finite.
    metric : {"auc", "ks", "pak"}
        Metric whose margin-adjusted loss (1 - metric) is minimised.
    margin : float
        Margin theta >= 0.
    k : int or None, default=None
        Depth of precision at k (1 <= k <= n_samples); required for ``metric="pak"``.
    search : {"greedy", "reduced", "exact"}, default="greedy"
        ``"greedy"``: the paper's interval bisection; ``"reduced"``: the same bisection over
        (threshold, d = b - a), returning a = -d/2, b = d/2; ``"exact"``: branch-and-bound, the
        global minimum over thresholds and a, b in [-1, 1].
    margin_scaling : {"stump", "constant"}, default="stump"
        ``"stump"`` lowers the positives by (1 + |b - a|/2) margin as in eq. 2.4; ``"constant"``
        by margin only (the shorthand of Algorithm 3).
    precision_bits : int, default=53
        c, the number of times the intervals of a and b are halved (53 = float64, 24 = float32),
        in [1, 64].

    Returns
    -------
    stump : Stump
        The minimiser and its loss.

    Raises
    ------
    ValueError
        If an input is not finite, the labels are not binary with both classes, the lengths
        differ, or a parameter is out of range (the message names it).

    See Also
    --------
    ExactBoostClassifier : Boosts these stumps (Algorithm 2 of the thesis).

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022, section 2 and supplementary material C.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 2.1 (eqs. 2.2-2.4, Algorithm 3).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.exactboost import fit_stump
    >>> x = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> h = fit_stump(x, y, np.zeros(6), metric="auc", margin=0.0, search="exact")
    >>> h.loss, bool(0.3 <= h.threshold < 0.6), bool(h.a < h.b)
    (0.0, True, True)
    """
    method = check_choice(search, SEARCH_IDS, "search")
    mid = check_choice(metric, METRIC_IDS, "metric")
    mscale = check_choice(margin_scaling, MARGIN_SCALINGS, "margin_scaling")
    xs = check_finite_1d(x, "x")
    s = check_finite_1d(scores, "scores")
    check_same_length(s, xs, "scores", "x")
    yy = check_binary_labels(y, xs.shape[0])
    theta = check_margin(margin)
    if mid == PAK:
        if k is None:
            raise ValueError("k is required for the P@k loss")
        kk = check_k(k, xs.shape[0])
    else:
        kk = 1
    order = np.argsort(s, kind="mergesort")
    res = _search(
        s[order],
        xs[order],
        yy[order],
        MarginLoss(mid, theta, mscale, kk),
        method,
        check_precision_bits(precision_bits),
        BIG,
        make_workspace(xs.shape[0], 0).search,
    )
    n1 = int(yy.sum())
    return Stump(
        float(res.threshold),
        float(res.a),
        float(res.b),
        float(badness_to_loss(mid, res.badness, xs.shape[0] - n1, n1, kk)),
        int(res.work),
        bool(res.certified),
    )
