"""RankBoost for bipartite ranking (Freund, Iyer, Schapire & Singer 2003, RankBoost.B).

Pairs (x0, x1) of one negative and one positive carry the product distribution
D_t(x0, x1) = v_t(x0) v_t(x1). Weak rankers are thresholds h(x) = 1[x_f > theta] chosen to
maximise |r|, r = sum_{x0,x1} D_t(x0, x1) (h(x1) - h(x0)) = sum_x pi(x) h(x) with pi = +v_t on
positives and -v_t on negatives (both v normalised). This makes the search O(n) per feature after
one presort: r(theta) is a suffix sum of pi over the sorted feature column. The step is
alpha = 1/2 ln((1 + r) / (1 - r)) (the paper's bound-minimising choice for {0,1} rankers), and
v_{t+1}(x0) ∝ v_t(x0) exp(alpha h(x0)), v_{t+1}(x1) ∝ v_t(x1) exp(-alpha h(x1)), with
normalisers Z0_t, Z1_t; Z_t = Z0_t Z1_t. The training ranking loss (ties counted as errors) is
at most prod_t Z_t = mean over pairs of exp(H(x0) - H(x1)).
"""

from __future__ import annotations

import numba
import numpy as np

from .._validation import check_integer
from ._base import ScoringClassifier, rate_threshold

_R_CLIP = 1.0 - 1e-12


@numba.njit(cache=True)
def _best_threshold(X, order, pi):
    """Over all features f and thresholds between distinct sorted values, maximise |suffix sum of
    pi| (points with x_f > theta). Returns (feature, threshold, r)."""
    n, p = X.shape
    best_abs = -1.0
    best_f = 0
    best_thr = 0.0
    best_r = 0.0
    for f in range(p):
        acc = 0.0
        i = n - 1
        while i > 0:
            v = X[order[i, f], f]
            # add the whole tie block of value v
            while i >= 0 and X[order[i, f], f] == v:
                acc += pi[order[i, f]]
                i -= 1
            if i < 0:
                break
            a = abs(acc)
            if a > best_abs:
                best_abs = a
                best_f = f
                best_thr = 0.5 * (v + X[order[i, f], f])
                best_r = acc
    return best_f, best_thr, best_r


__all__ = ["RankBoost"]


class RankBoost(ScoringClassifier):
    """Bipartite RankBoost (RankBoost.B) with threshold weak rankers.

    Each round picks the threshold ranker 1[x_f > theta] maximising |r| under the current pair
    distribution, with step alpha = 1/2 ln((1 + r) / (1 - r)); the score is
    sum_t alpha_t 1[x_{f_t} > theta_t].

    Parameters
    ----------
    n_rounds : int, default=100
        Boosting rounds T (the ExactBoost comparison used 100); >= 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    features_ : ndarray of shape (n_rounds_,)
        Feature of each round's ranker.
    thresholds_ : ndarray of shape (n_rounds_,)
        Threshold of each round's ranker.
    alphas_ : ndarray of shape (n_rounds_,)
        Weight of each round's ranker.
    Z_ : ndarray of shape (n_rounds_,)
        Normaliser Z_t = Z0_t Z1_t of each round; their product bounds the training ranking
        loss.
    n_rounds_ : int
        Rounds actually run: fewer than `n_rounds` if no threshold separates the weighted pairs
        or one orders them all.
    threshold_ : float
        Operating threshold: predicts the training positive rate.

    References
    ----------
    .. [1] Y. Freund, R. Iyer, R. E. Schapire and Y. Singer, "An Efficient Boosting Algorithm
       for Combining Preferences", JMLR 4, 2003 (RankBoost.B, section 3.2).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import RankBoost
    >>> from boostcm.metrics import auc_loss
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = RankBoost(n_rounds=20).fit(X, y)
    >>> clf.n_rounds_
    20
    >>> bool(auc_loss(clf.decision_function(X), y) < 0.1)
    True
    """

    def __init__(self, *, n_rounds: int = 100):
        self.n_rounds = n_rounds

    def _fit(self, X, y):
        check_integer(self.n_rounds, "n_rounds", min_value=1)
        pos = y == 1
        v = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
        sign = np.where(pos, 1.0, -1.0)
        order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable"))
        feats, thrs, alphas, zs = [], [], [], []
        for _ in range(int(self.n_rounds)):
            f, thr, r = _best_threshold(X, order, sign * v)
            if abs(r) <= 0.0:
                break
            r = float(np.clip(r, -_R_CLIP, _R_CLIP))
            alpha = 0.5 * np.log((1.0 + r) / (1.0 - r))
            h = (X[:, f] > thr).astype(np.float64)
            w = v * np.exp(-sign * alpha * h)  # negatives: exp(+alpha h), positives: exp(-alpha h)
            z0, z1 = w[~pos].sum(), w[pos].sum()
            v = np.where(pos, w / z1, w / z0)
            feats.append(f)
            thrs.append(thr)
            alphas.append(alpha)
            zs.append(z0 * z1)
            if abs(r) >= _R_CLIP:
                break
        self.features_ = np.asarray(feats, dtype=np.int64)
        self.thresholds_ = np.asarray(thrs, dtype=np.float64)
        self.alphas_ = np.asarray(alphas, dtype=np.float64)
        self.Z_ = np.asarray(zs, dtype=np.float64)
        self.n_rounds_ = len(feats)
        # Operating point: predict the training positive rate (RankBoost itself has no threshold).
        return rate_threshold(self._raw_score(X), pos.mean())

    def _raw_score(self, X, n_rounds: int | None = None) -> np.ndarray:
        t = self.n_rounds_ if n_rounds is None else n_rounds
        H = np.zeros(X.shape[0])
        for f, thr, a in zip(self.features_[:t], self.thresholds_[:t], self.alphas_[:t]):
            H += a * (X[:, f] > thr)
        return H

    def staged_scores(self, X):
        """Scores H_t(X) after each round t = 1..n_rounds_.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Yields
        ------
        scores : ndarray of shape (n_samples,)
            Raw scores (without the threshold) after each round.
        """
        X = self._check_X(X)
        H = np.zeros(X.shape[0])
        for f, thr, a in zip(self.features_, self.thresholds_, self.alphas_):
            H = H + a * (X[:, f] > thr)
            yield H.copy()
