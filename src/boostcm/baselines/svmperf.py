"""SVMPerf: the multivariate structural SVM of Joachims (2005) for precision at k and ROC area,
trained by the cutting-plane algorithm with the loss-specific most-violated-constraint search.

One "example" is the whole training set; with y the true labelling and ybar any other one,

    min_{w, xi >= 0} 1/2 ||w||^2 + C xi   s.t.  w.(psi(y) - psi(ybar)) >= Delta(y, ybar) - xi  for all ybar.

Normalisation used here (losses in [0, 1], no bias feature):
* P@k:  ybar in {-1, +1}^n with exactly k entries +1; psi(ybar) = (1/(2n)) sum_i ybar_i x_i;
  Delta = 1 - #{i: ybar_i = +1 = y_i}/k. With the error-rate loss this normalisation reduces to the
  hinge-loss SVM, so C = 100 * c_svmperf for svm_perf's percent-scaled losses (svm_perf default
  -c 0.01 -> C = 1).
* ROC area: ybar assigns +1/-1 to every (positive i, negative j) pair; psi(ybar) =
  (1/(2 n+ n-)) sum_ij ybar_ij (x_i - x_j); Delta = fraction of swapped pairs. The maximum over
  ybar is (1/(n+ n-)) sum_ij [1 - w.(x_i - x_j)]_+ (pairwise hinge), found by sorting.

Cutting planes (Joachims 2005, Algorithm 1): repeat {find the most violated ybar; if its violation
exceeds xi + eps add it to the working set and re-solve the QP over the working set} until no
constraint is violated by more than eps. The working-set QP is solved in its dual,
max_a sum a_c Delta_c - 1/2 ||sum a_c g_c||^2 s.t. a >= 0, sum a <= C, with Clarabel.

The working set's optimum 1/2 ||w||^2 + C xi is a lower bound of the full problem's optimum, and
w = 0 has objective C Delta_0 (Delta_0 the first, w = 0, constraint's loss). When the two differ
by at most C eps, no weights beat the constant score by more than the tolerance: the returned
weights are then C times the first cutting plane (found where all scores tie) rather than a
solution the objective determines (D147). With unit-norm feature columns the entries are of order
n^{-1/2}, so on large n this holds for any C the ExactBoost comparison uses.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from .._optional import import_optional
from .._validation import check_choice, check_fraction, check_integer, check_real
from ._base import DegenerateSolutionWarning, ScoringClassifier, rate_threshold


def most_violated_pak(s: np.ndarray, ypm: np.ndarray, k: int):
    """Most violated P@k labelling for scores s and true labels ypm in {-1, +1}.

    Returns (Delta, coefficients c) with psi(y) - psi(ybar) = X^T c."""
    n = s.shape[0]
    pos = np.flatnonzero(ypm > 0)
    neg = np.flatnonzero(ypm < 0)
    pos_sorted = pos[np.argsort(-s[pos], kind="stable")]
    neg_sorted = neg[np.argsort(-s[neg], kind="stable")]
    sp_ = np.concatenate([[0.0], np.cumsum(s[pos_sorted])])
    sn_ = np.concatenate([[0.0], np.cumsum(s[neg_sorted])])
    a_lo, a_hi = max(0, k - neg.size), min(k, pos.size)
    a = np.arange(a_lo, a_hi + 1)
    # Delta(a) + w.psi(ybar) up to a constant: 1 - a/k + (1/n) (top-a pos + top-(k-a) neg scores)
    val = 1.0 - a / k + (sp_[a] + sn_[k - a]) / n
    best = int(a[np.argmax(val)])
    ybar = -np.ones(n)
    ybar[pos_sorted[:best]] = 1.0
    ybar[neg_sorted[: k - best]] = 1.0
    return 1.0 - best / k, (ypm - ybar) / (2.0 * n)


def most_violated_roc(s: np.ndarray, ypm: np.ndarray):
    """Most violated ROC-area labelling: pair (i, j) is swapped iff s_i - s_j < 1.

    Returns (Delta, coefficients c) with psi(y) - psi(ybar) = X^T c."""
    pos = np.flatnonzero(ypm > 0)
    neg = np.flatnonzero(ypm < 0)
    npairs = pos.size * neg.size
    sn = np.sort(s[neg])
    spos = np.sort(s[pos])
    c = np.zeros(s.shape[0])
    # positive i: number of negatives j with s_j > s_i - 1
    c[pos] = (neg.size - np.searchsorted(sn, s[pos] - 1.0, side="right")) / npairs
    # negative j: number of positives i with s_i < s_j + 1
    c[neg] = -np.searchsorted(spos, s[neg] + 1.0, side="left") / npairs
    delta = c[pos].sum()  # = swapped pairs / npairs
    return float(delta), c


def solve_working_set_dual(G: np.ndarray, delta: np.ndarray, C: float) -> np.ndarray:
    """argmin_a 1/2 a^T G a - delta^T a  s.t. a >= 0, sum a <= C  (Clarabel interior point)."""
    K = delta.shape[0]
    P = sp.csc_matrix(np.triu(G + 1e-12 * np.eye(K)))
    A = sp.csc_matrix(np.vstack([-np.eye(K), np.ones((1, K))]))
    b = np.concatenate([np.zeros(K), [C]])
    clarabel = import_optional("clarabel", "baselines")
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    sol = clarabel.DefaultSolver(
        P, -delta, A, b, [clarabel.NonnegativeConeT(K + 1)], settings
    ).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"SVMPerf working-set QP failed: {sol.status}")
    return np.maximum(np.asarray(sol.x), 0.0)


__all__ = ["SVMPerf"]


class SVMPerf(ScoringClassifier):
    """Structural SVM for precision at k or ROC area (SVMperf), linear, without bias.

    Trained by the cutting-plane algorithm with the metric's most-violated-constraint search;
    the working-set QP is solved in its dual (see the module docstring for the normalisation).

    Parameters
    ----------
    metric : {"pak", "auc"}, default="pak"
        Metric whose structural loss Delta is used: precision at k or ROC area.
    C : float, default=1.0
        Trade-off of the normalisation in the module docstring (1.0 corresponds to svm_perf's
        default -c 0.01); > 0.
    k_fraction : float or None, default=None
        P@k uses k = ceil(k_fraction * n), k_fraction in (0, 1]; None = the training positive
        rate (svm_perf's default for its --p option).
    eps : float, default=1e-3
        Cutting-plane tolerance on the constraint violation (svm_perf -e 0.1 in percent); > 0.
        A fit that reaches `max_iter` first warns (``ConvergenceWarning``).
    normalize : bool, default=True
        Divide every feature column by its Euclidean norm on the training data (what the
        ExactBoost authors did before calling svm_perf, following the SVM-light FAQ).
    max_iter : int, default=2000
        Maximum cutting-plane iterations; >= 1.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Weights w on the normalised features.
    scale_ : ndarray of shape (n_features_in_,)
        Column norms the features are divided by (ones if `normalize` is False).
    k_ : int
        Depth k of P@k on the training set (also sets the operating threshold).
    slack_ : float
        Slack xi of the final working set.
    objective_lower_bound_ : float
        1/2 ||coef_||^2 + C slack_, the working set's optimum: a lower bound of the optimal
        primal objective.
    zero_objective_ : float
        Primal objective of w = 0 (every score tied): C times the first constraint's loss.
    degenerate_ : bool
        Whether zero_objective_ - objective_lower_bound_ <= C * eps (then a
        ``DegenerateSolutionWarning`` was issued; D147).
    n_constraints_ : int
        Constraints in the final working set.
    n_iter_ : int
        Cutting-plane iterations run.
    converged_ : bool
        Whether no constraint was violated by more than `eps` at the end.
    threshold_ : float
        Operating threshold: the top k_ / n share of the training scores is positive.

    Warns
    -----
    ConvergenceWarning
        If `max_iter` iterations end with a constraint violated by more than `eps`.
    DegenerateSolutionWarning
        If zero_objective_ - objective_lower_bound_ <= C * eps: no weights improve the objective
        over w = 0 by more than the tolerance, and the fitted weights are the first cutting plane
        scaled, with a ranking the objective does not determine (D147).

    References
    ----------
    .. [1] T. Joachims, "A Support Vector Method for Multivariate Performance Measures",
       ICML 2005 (Algorithm 1 and section 4).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import SVMPerf
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = SVMPerf(metric="auc").fit(X, y)
    >>> clf.decision_function(X).shape, bool(clf.converged_)
    ((100,), True)
    """

    def __init__(
        self,
        *,
        metric: str = "pak",
        C: float = 1.0,
        k_fraction: float | None = None,
        eps: float = 1e-3,
        normalize: bool = True,
        max_iter: int = 2000,
    ):
        self.metric = metric
        self.C = C
        self.k_fraction = k_fraction
        self.eps = eps
        self.normalize = normalize
        self.max_iter = max_iter

    def _fit(self, X, y):
        check_choice(self.metric, ("pak", "auc"), "metric")
        check_real(self.C, "C", low=0.0, low_inclusive=False)
        check_real(self.eps, "eps", low=0.0, low_inclusive=False)
        check_integer(self.max_iter, "max_iter", min_value=1)
        n = X.shape[0]
        frac = (
            y.mean() if self.k_fraction is None else check_fraction(self.k_fraction, "k_fraction")
        )
        self.k_ = int(min(n, max(1, np.ceil(frac * n - 1e-12))))
        if self.normalize:
            scale = np.sqrt((X * X).sum(axis=0))
            scale[scale == 0] = 1.0
        else:
            scale = np.ones(X.shape[1])
        self.scale_ = scale
        Z = X / scale
        ypm = np.where(y == 1, 1.0, -1.0)
        w = np.zeros(Z.shape[1])
        xi = 0.0
        gs, deltas = [], []
        self.n_iter_ = 0
        converged = False
        for it in range(int(self.max_iter)):
            s = Z @ w
            if self.metric == "pak":
                delta, c = most_violated_pak(s, ypm, self.k_)
            else:
                delta, c = most_violated_roc(s, ypm)
            if it == 0:  # at w = 0 the violation is delta: the objective of w = 0 is C delta
                self.zero_objective_ = float(self.C) * max(0.0, float(delta))
            g = Z.T @ c
            if delta - w @ g <= xi + self.eps:
                converged = True
                break
            gs.append(g)
            deltas.append(delta)
            Gm = np.asarray(gs)
            a = solve_working_set_dual(Gm @ Gm.T, np.asarray(deltas), float(self.C))
            w = Gm.T @ a
            xi = max(0.0, float(np.max(np.asarray(deltas) - Gm @ w)))
            self.n_iter_ = it + 1
        self.converged_ = converged
        self.coef_ = w
        self.slack_ = xi
        self.n_constraints_ = len(deltas)
        self.objective_lower_bound_ = float(0.5 * w @ w + self.C * xi)
        if not converged:
            warnings.warn(
                f"SVMPerf stopped at max_iter={self.max_iter} with a constraint violated by more "
                f"than eps={self.eps}",
                ConvergenceWarning,
                stacklevel=3,
            )
        improvement = self.zero_objective_ - self.objective_lower_bound_
        self.degenerate_ = bool(improvement <= self.C * self.eps)
        if self.degenerate_:
            warnings.warn(
                f"SVMPerf's optimum improves its objective over the constant score (w = 0, "
                f"objective {self.zero_objective_:.6g}) by at most {max(improvement, 0.0):.3g} "
                f"(working-set bound), within C * eps = {self.C * self.eps:.3g}: the fitted weights "
                f"({self.n_constraints_} cutting plane(s), the first found where every score ties) "
                "are set by the tolerance, not by the objective, and so is their ranking (D147)",
                DegenerateSolutionWarning,
                stacklevel=3,
            )
        return rate_threshold(Z @ w, self.k_ / n)

    def _raw_score(self, X):
        return (X / self.scale_) @ self.coef_

    def primal_objective(self, X, y) -> float:
        """Primal objective at the fitted weights.

        1/2 ||w||^2 + C * (the exact maximal violation over all labellings ybar, clipped at 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data (usually the training data).
        y : array-like of shape (n_samples,)
            Labels, values of ``classes_``.

        Returns
        -------
        value : float
            The objective.
        """
        X = self._check_X(X)
        Z = X / self.scale_
        ypm = np.where(np.asarray(y) == self.classes_[1], 1.0, -1.0)
        s = Z @ self.coef_
        if self.metric == "pak":
            delta, c = most_violated_pak(s, ypm, self.k_)
        else:
            delta, c = most_violated_roc(s, ypm)
        xi = max(0.0, delta - self.coef_ @ (Z.T @ c))
        return float(0.5 * self.coef_ @ self.coef_ + self.C * xi)
