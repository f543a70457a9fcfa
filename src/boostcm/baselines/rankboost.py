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


class RankBoost(ScoringClassifier):
    """Bipartite RankBoost with threshold weak rankers.

    Parameters
    ----------
    n_rounds : int
        Boosting rounds T (the ExactBoost comparison used 100).

    Fitted attributes: ``features_``, ``thresholds_``, ``alphas_`` (one per round),
    ``Z_`` (normaliser Z_t = Z0_t Z1_t of each round), ``n_rounds_`` (rounds actually run:
    fewer than ``n_rounds`` if no threshold separates the weighted pairs or one orders them all).
    """

    def __init__(self, n_rounds: int = 100):
        self.n_rounds = n_rounds

    def _fit(self, X, y):
        if int(self.n_rounds) < 1:
            raise ValueError(f"n_rounds must be >= 1, got {self.n_rounds}")
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
        """Scores H_t(X) after each round t = 1..n_rounds_ (generator)."""
        X = self._check_X(X)
        H = np.zeros(X.shape[0])
        for f, thr, a in zip(self.features_, self.thresholds_, self.alphas_):
            H = H + a * (X[:, f] > thr)
            yield H.copy()
