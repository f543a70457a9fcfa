"""Named data of the ExactBoost kernels: the loss, a run's plan and trace, the work arrays and a
search's result.

numba compiles functions that take and return named tuples of scalars and arrays in nopython
mode, so the kernels pass these instead of long positional argument lists. All work arrays of
the stump searches and of one boosting run come from :func:`make_workspace`; a kernel may
overwrite any of them, so a workspace serves one thread at a time.

numba passes a named tuple by value, as one argument per scalar and per array field (an array
is 7 or more machine words). A function called once per search takes the search's work arrays
(:class:`SearchWork`); one called per bisection level, per tie or per box takes only the arrays
it reads, and the innermost kernels (the metrics' ``badness``, ``scatter``, the IA offsets)
keep flat arguments.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit


class MarginLoss(NamedTuple):
    """The margin loss (2.4) a search or a run minimises.

    Attributes
    ----------
    metric : int
        Metric id (``AUC``, ``KS`` or ``PAK`` of :mod:`boostcm.metrics._kernels`).
    theta : float
        Margin: positives are lowered by ``(1 + mscale |b - a| / 2) theta``.
    mscale : float
        Margin scaling: 1.0 as (2.4), 0.0 for a constant margin.
    k : int
        Depth of P@k on the points the loss is evaluated on (1 for AUC and KS).
    """

    metric: int
    theta: float
    mscale: float
    k: int


class RunPlan(NamedTuple):
    """What each run of a fit does (the same for every run; only the random stream differs).

    Attributes
    ----------
    loss : MarginLoss
        The loss on the n training rows (``k``: depth of P@k on them).
    k_sub : int
        Depth of P@k on a round's subsample (1 for AUC and KS).
    n_rounds : int
        Rounds T.
    p_sub : int
        Features sampled per round.
    n1_sub, n0_sub : int
        Positive and negative rows sampled per round.
    method : int
        Stump search (``GREEDY``, ``REDUCED`` or ``EXACT`` of :mod:`._search`).
    bits : int
        c, the number of bisections of the stump heights' intervals.
    random_init : bool
        Start from uniform random scores instead of the given initial scores.
    """

    loss: MarginLoss
    k_sub: int
    n_rounds: int
    p_sub: int
    n1_sub: int
    n0_sub: int
    method: int
    bits: int
    random_init: bool


class RunTrace(NamedTuple):
    """What one run did, round by round (filled by the run; see :func:`make_trace`).

    Attributes
    ----------
    feat : ndarray of int64, shape (T,)
        Feature of the round's stump; -1 when the round was rejected.
    xi, a, b : ndarray of float64, shape (T,)
        The stump: ``a if x[feat] <= xi else b``.
    lo, scale : ndarray of float64, shape (T,)
        The min-max normalisation after the stump: ``s -> (s - lo) / scale``.
    loss : ndarray of int64, shape (T + 1,)
        Full-data margin badness after each round (``loss[0]``: the initial scores).
    """

    feat: np.ndarray
    xi: np.ndarray
    a: np.ndarray
    b: np.ndarray
    lo: np.ndarray
    scale: np.ndarray
    loss: np.ndarray


def make_trace(n_rounds):
    """The arrays a run of `n_rounds` rounds fills: rounds rejected, identity normalisation.

    Parameters
    ----------
    n_rounds : int
        Rounds T of the run.

    Returns
    -------
    RunTrace
    """
    return RunTrace(
        np.full(n_rounds, -1, np.int64),
        np.zeros(n_rounds),
        np.zeros(n_rounds),
        np.zeros(n_rounds),
        np.zeros(n_rounds),
        np.ones(n_rounds),
        np.zeros(n_rounds + 1, np.int64),
    )


class Runs(NamedTuple):
    """Points split into sorted runs (see :mod:`boostcm.metrics._kernels`) and their offsets.

    Attributes
    ----------
    vals : ndarray of float64
        Run ``r`` is ``vals[start[r]:start[r] + length[r]]``, ascending.
    start, length : ndarray of int64, shape (2 G,)
        Run ``r = 2 g + c`` of group ``g`` and class ``c``.
    off_neg, off_pos : ndarray of float64, shape (G,)
        Offset added to the negatives (lower end) and positives (upper end) of each group.
    """

    vals: np.ndarray
    start: np.ndarray
    length: np.ndarray
    off_neg: np.ndarray
    off_pos: np.ndarray


class Ranked(NamedTuple):
    """Scores in ascending order with their labels (0/1) and rows."""

    s: np.ndarray
    y: np.ndarray
    rows: np.ndarray


class SearchWork(NamedTuple):
    """Work arrays of the stump searches on up to m points.

    Attributes
    ----------
    pts : ndarray of float64, shape (2, 2, m)
        Per class, the scores (``pts[c, 0]``) and feature values (``pts[c, 1]``) in score order.
    ncls : ndarray of int64, shape (2,)
        Number of points of each class in ``pts``.
    runs : Runs
        Left / undecided / right runs of the current box (3 groups).
    alt : Runs
        Second set of 3-group runs (stump values met while ``runs`` holds a box).
    split : Runs
        4-group runs: the undecided points cut into the two threshold halves.
    buf_neg, buf_pos : ndarray of float64, shape (max(m, n),)
        Merge buffers of the KS sweep (also used on the n rows of a run).
    memo_x : ndarray of float64, shape (4, 2, 4)
        AUC pair counts reused on a fixed partition: offsets and gap of each entry.
    memo_n : ndarray of int64, shape (4, 2)
        The counts of those entries (-1: empty).
    core : ndarray of int64, shape (3,)
        Pair counts among left and right points, per (A, B) child of a greedy AUC level.

    The exact search's box heap grows while it runs, so it allocates its own.
    """

    pts: np.ndarray
    ncls: np.ndarray
    runs: Runs
    alt: Runs
    split: Runs
    buf_neg: np.ndarray
    buf_pos: np.ndarray
    memo_x: np.ndarray
    memo_n: np.ndarray
    core: np.ndarray


class RunWork(NamedTuple):
    """Work arrays of one boosting run on n rows (subsample of m rows) besides the searches'.

    Attributes
    ----------
    full : Runs
        One-group runs of the n training scores, offsets zero.
    ranked, cand : Ranked
        The run's scores and a candidate's (length n); they swap when a round is accepted.
    left, right : Ranked
        The two sides of a candidate's threshold (length n).
    stamp : ndarray of int64, shape (n,)
        Round in which a row was last subsampled.
    sub : Ranked
        The subsample in score order (length m).
    x_sub : ndarray of float64, shape (m,)
        One feature on the subsample.
    """

    full: Runs
    ranked: Ranked
    cand: Ranked
    left: Ranked
    right: Ranked
    stamp: np.ndarray
    sub: Ranked
    x_sub: np.ndarray


class Workspace(NamedTuple):
    """Every work array of a boosting run and of its stump searches (which get ``search``
    only: see the module docstring)."""

    search: SearchWork
    run: RunWork


class SearchResult(NamedTuple):
    """Best stump ``a if x <= threshold else b`` a search found on one feature.

    Attributes
    ----------
    threshold, a, b : float
        The stump.
    badness : int
        Its integer badness (``boostcm.metrics._kernels``; lower is better).
    work : int
        Bisection levels (greedy, reduced) or box bounds (exact) evaluated.
    certified : bool
        True when no stump of the search space has a lower badness (to the resolution of the
        search's halvings): only the exact search certifies, and only when it finished within
        its budget of bounds and its result is not above the caller's cutoff.
    """

    threshold: float
    a: float
    b: float
    badness: int
    work: int
    certified: bool


@njit(cache=True, nogil=True)
def _runs(n_vals, groups):
    return Runs(
        np.empty(n_vals),
        np.zeros(2 * groups, np.int64),
        np.zeros(2 * groups, np.int64),
        np.zeros(groups),
        np.zeros(groups),
    )


@njit(cache=True, nogil=True)
def _ranked(n):
    return Ranked(np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64))


@njit(cache=True, nogil=True)
def make_workspace(m, n):
    """Allocate the work arrays of the searches on up to `m` points and of a run on `n` rows.

    Parameters
    ----------
    m : int
        Largest number of points a search will get.
    n : int
        Number of training rows of a boosting run; 0 when only searching.

    Returns
    -------
    Workspace
    """
    nb = max(m, n)
    search = SearchWork(
        np.empty((2, 2, m)),
        np.zeros(2, np.int64),
        _runs(6 * m, 3),
        _runs(6 * m, 3),
        _runs(8 * m, 4),
        np.empty(nb),
        np.empty(nb),
        np.empty((4, 2, 4)),
        np.full((4, 2), -1, np.int64),
        np.full(3, -1, np.int64),
    )
    m_run = m if n > 0 else 0
    run = RunWork(
        _runs(n, 3),
        _ranked(n),
        _ranked(n),
        _ranked(n),
        _ranked(n),
        np.zeros(n, np.int64),
        _ranked(m_run),
        np.empty(m_run),
    )
    return Workspace(search, run)
