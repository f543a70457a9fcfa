"""ExactBoostClassifier: Algorithm 2 (thesis) as a scikit-learn estimator."""

from __future__ import annotations

import math
import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_binary_labels, check_finite_1d, check_finite_2d
from ..metrics import check_margin
from ..metrics._kernels import METRIC_IDS, PAK, badness_to_loss
from ._booster import fit_run, predict_runs
from ._search import PRECISION_BITS, SEARCH_IDS
from .stump import MARGIN_SCALINGS, check_choice, check_precision_bits

INITS = ("zeros", "random")


def _check_fraction(value, name):
    v = float(value)
    if not (0.0 < v <= 1.0):
        raise ValueError(f"{name} must lie in (0, 1], got {value}")
    return v


class ExactBoostClassifier(ClassifierMixin, BaseEstimator):
    """Boosted stumps minimising the margin-adjusted AUC, KS or P@k loss (Algorithm 2).

    Each of `n_estimators` independent runs starts from the initial scores S0 and for
    `n_rounds` rounds: samples ceil(colsample p) features and ceil(subsample n_c) rows of each
    class (without replacement), fits the best stump of every sampled feature on the subsample
    by interval arithmetic (`search`: "greedy" = the paper's bisection, "reduced" = the same over
    (threshold, b - a), "exact" = branch-and-bound), adds the best one, min-max normalises the
    scores to [0, 1] and keeps the round only if the full-training-set margin loss did not
    increase. The score is the mean over runs.

    Parameters beyond the paper's: `k` (P@k depth: int = count on the training set, float in
    (0, 1] = fraction of rows, None = ceil(0.5 * positive rate * n), the evaluation convention);
    `init` ("random" = U(0, 1) on the training rows and 0.5 for new rows, as the authors' code;
    "zeros" = S0 = 0, the ensembler's start of Prop. 2.5; ignored when `fit` gets `init_score`);
    `margin_scaling` ("stump": positives lowered by (1 + |b - a|/2) margin as in (2.4);
    "constant": by margin); `precision_bits` (c, the number of halvings of the stump heights'
    intervals: 53 = float64 as the paper, 24 = float32).
    Runs use independent seeds derived from `random_state`, so results do not depend on `n_jobs`.
    """

    def __init__(
        self,
        metric="auc",
        margin=0.05,
        n_estimators=250,
        n_rounds=50,
        subsample=0.2,
        colsample=0.2,
        k=None,
        search="greedy",
        init="random",
        margin_scaling="stump",
        precision_bits=PRECISION_BITS,
        random_state=None,
        n_jobs=None,
    ):
        self.metric = metric
        self.margin = margin
        self.n_estimators = n_estimators
        self.n_rounds = n_rounds
        self.subsample = subsample
        self.colsample = colsample
        self.k = k
        self.search = search
        self.init = init
        self.margin_scaling = margin_scaling
        self.precision_bits = precision_bits
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- validation -------------------------------------------------------------------------
    def _check_params(self):
        mid = check_choice(self.metric, METRIC_IDS, "metric")
        method = check_choice(self.search, SEARCH_IDS, "search")
        mscale = check_choice(self.margin_scaling, MARGIN_SCALINGS, "margin_scaling")
        if self.init not in INITS:
            raise ValueError(f"init must be one of {INITS}, got {self.init!r}")
        for name in ("n_estimators", "n_rounds"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        return (
            mid,
            method,
            mscale,
            check_margin(self.margin),
            _check_fraction(self.subsample, "subsample"),
            _check_fraction(self.colsample, "colsample"),
        )

    def _k_fraction(self, y):
        n = y.shape[0]
        if self.k is None:
            return 0.5 * float(np.mean(y))
        if isinstance(self.k, bool):
            raise ValueError(f"k must be an int, a float in (0, 1] or None, got {self.k!r}")
        if isinstance(self.k, numbers.Integral):
            if not (1 <= self.k <= n):
                raise ValueError(f"k must be between 1 and n={n}, got {self.k}")
            return self.k / n
        if isinstance(self.k, numbers.Real):
            return _check_fraction(self.k, "k")
        raise ValueError(f"k must be an int, a float in (0, 1] or None, got {self.k!r}")

    def _encode_y(self, y):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        check_classification_targets(y)
        classes = np.unique(y)
        if classes.shape[0] > 2:
            raise ValueError(
                "Only binary classification is supported. "
                f"ExactBoostClassifier got y with {classes.shape[0]} classes"
            )
        self.classes_ = classes
        y01 = (
            (y == classes[-1]).astype(np.int64)
            if classes.shape[0] == 2
            else np.zeros(y.shape[0], np.int64)
        )
        return check_binary_labels(y01)

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y, init_score=None):
        """Fit on X (n, p) and labels y (two classes). `init_score` (n,): initial scores S0
        (min-max normalised); pass the same kind of scores to decision_function later."""
        mid, method, mscale, theta, subsample, colsample = self._check_params()
        bits = check_precision_bits(self.precision_bits)
        X, y = validate_data(self, X, y, ensure_all_finite=False, dtype=np.float64, y_numeric=False)
        X = check_finite_2d(X)
        if X.shape[0] < 2:
            raise ValueError(
                f"n_samples={X.shape[0]}: ExactBoost needs at least one sample of each class"
            )
        y01 = self._encode_y(y)
        n, p = X.shape
        if init_score is not None:
            s0 = check_finite_1d(init_score, "init_score")
            if s0.shape[0] != n:
                raise ValueError(f"init_score has {s0.shape[0]} entries but X has {n} rows")
            lo, hi = float(s0.min()), float(s0.max())
            scale = hi - lo if hi > lo else 1.0
            s0 = (s0 - lo) / scale
            self.init_shift_, self.init_scale_ = lo, scale
        else:
            s0 = np.zeros(n)
            self.init_shift_, self.init_scale_ = None, None
        random_init = init_score is None and self.init == "random"
        n1 = int(y01.sum())
        n0 = n - n1
        n1_sub = max(1, math.ceil(subsample * n1))
        n0_sub = max(1, math.ceil(subsample * n0))
        p_sub = max(1, math.ceil(colsample * p))
        frac = self._k_fraction(y01)
        k_full = min(n, max(1, math.ceil(frac * n)))
        k_sub = min(n1_sub + n0_sub, max(1, math.ceil(frac * (n1_sub + n0_sub))))
        E, T = self.n_estimators, self.n_rounds
        seeds = self._run_seeds(E)
        Xt = np.ascontiguousarray(X.T)

        def one(e):
            out = (
                np.full(T, -1, np.int64),
                np.zeros(T),
                np.zeros(T),
                np.zeros(T),
                np.zeros(T),
                np.ones(T),
                np.zeros(T + 1, np.int64),
            )
            fit_run(
                Xt,
                y01,
                s0,
                mid,
                theta,
                mscale,
                T,
                p_sub,
                n1_sub,
                n0_sub,
                k_full,
                k_sub,
                method,
                bits,
                seeds[e],
                random_init,
                *out,
            )
            return out

        n_jobs = 1 if self.n_jobs is None else self.n_jobs
        if n_jobs == 1:
            results = [one(e) for e in range(E)]
        else:
            results = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(one)(e) for e in range(E))
        (
            self.stump_feature_,
            self.stump_threshold_,
            self.stump_a_,
            self.stump_b_,
            self.stump_shift_,
            self.stump_scale_,
            bad,
        ) = (np.stack(a) for a in zip(*results))
        self.train_margin_loss_ = np.array(
            [[badness_to_loss(mid, b, n0, n1, k_full) for b in row] for row in bad]
        )
        self.k_train_ = k_full if mid == PAK else None
        self.n_features_in_ = p
        raw = self._raw_scores(X, s0 if not random_init else np.full(n, 0.5))
        # predict() labels the top (positive rate) share of training scores as positive
        self.threshold_ = float(np.quantile(raw, 1.0 - n1 / n)) if 0 < n1 < n else 0.5
        return self

    def _run_seeds(self, n_runs):
        rs = self.random_state
        if rs is None or isinstance(rs, np.random.RandomState):
            entropy = int(check_random_state(rs).randint(0, 2**31 - 1))
        else:
            entropy = int(rs)
        return np.random.SeedSequence(entropy).generate_state(n_runs, dtype=np.uint64)

    @property
    def stumps_(self):
        """Per run, the accepted stumps as (feature, threshold, a, b, shift, scale): a round maps
        s to (s + (a if x[feature] <= threshold else b) - shift) / scale."""
        check_is_fitted(self, "stump_feature_")
        out = []
        for e in range(self.stump_feature_.shape[0]):
            keep = self.stump_feature_[e] >= 0
            out.append(
                list(
                    zip(
                        self.stump_feature_[e][keep].tolist(),
                        self.stump_threshold_[e][keep].tolist(),
                        self.stump_a_[e][keep].tolist(),
                        self.stump_b_[e][keep].tolist(),
                        self.stump_shift_[e][keep].tolist(),
                        self.stump_scale_[e][keep].tolist(),
                        strict=True,
                    )
                )
            )
        return out

    # -- prediction -------------------------------------------------------------------------
    def _raw_scores(self, X, s_init):
        return predict_runs(
            np.ascontiguousarray(X.T),
            s_init,
            self.stump_feature_,
            self.stump_threshold_,
            self.stump_a_,
            self.stump_b_,
            self.stump_shift_,
            self.stump_scale_,
        )

    def _initial(self, n, init_score):
        if self.init_shift_ is not None:
            if init_score is None:
                raise ValueError("the model was fit with init_score; pass init_score here too")
            s0 = check_finite_1d(init_score, "init_score")
            if s0.shape[0] != n:
                raise ValueError(f"init_score has {s0.shape[0]} entries but X has {n} rows")
            return (s0 - self.init_shift_) / self.init_scale_
        if init_score is not None:
            raise ValueError("the model was fit without init_score; do not pass one")
        return np.full(n, 0.5) if self.init == "random" else np.zeros(n)

    def decision_function(self, X, init_score=None):
        """Mean score over runs minus `threshold_` (so > 0 means the positive class)."""
        check_is_fitted(self, "stump_feature_")
        X = validate_data(self, X, reset=False, ensure_all_finite=False, dtype=np.float64)
        X = check_finite_2d(X)
        return self._raw_scores(X, self._initial(X.shape[0], init_score)) - self.threshold_

    def predict(self, X, init_score=None):
        d = self.decision_function(X, init_score)
        return (
            self.classes_[(d > 0).astype(int)]
            if self.classes_.shape[0] == 2
            else np.full(d.shape[0], self.classes_[0])
        )

    def predict_proba(self, X, init_score=None):
        """Scores mapped to [0, 1] (0.5 at the decision threshold); a ranking, not calibrated."""
        d = self.decision_function(X, init_score)
        p1 = np.clip(0.5 + d, 0.0, 1.0)
        return np.column_stack([1.0 - p1, p1])
