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

from .._progress import progress
from .._validation import (
    check_binary_labels,
    check_choice,
    check_finite_1d,
    check_finite_2d,
    check_fraction,
    check_integer,
    check_margin,
    check_precision_bits,
)
from ..metrics._kernels import METRIC_IDS, PAK, badness_to_loss
from ._booster import fit_run, predict_runs
from ._search import PRECISION_BITS, SEARCH_IDS
from ._workspace import MarginLoss, RunPlan, Stumps, make_trace
from .stump import MARGIN_SCALINGS

__all__ = ["ExactBoostClassifier"]

INITS = ("zeros", "random")


def _depth(fraction: float, m: int) -> int:
    """P@k depth ceil(fraction * m) in [1, m]; the product is rounded to 9 decimals first, so a
    fraction that is a count over m (k / n, the positive rate n1 / n) gives back that count and
    not one more when floating point lands a hair above it (0.07 * 100 = 7.000000000000001)."""
    return min(m, max(1, math.ceil(round(fraction * m, 9))))


class ExactBoostClassifier(ClassifierMixin, BaseEstimator):
    """Boosted stumps minimising the margin-adjusted AUC, KS or P@k loss (ExactBoost).

    Algorithm 2 of the thesis [2]_ (Algorithm 1 of [1]_) as a scikit-learn classifier. Each of
    `n_estimators` independent runs starts from the initial scores S0 and, for `n_rounds`
    rounds, samples ceil(colsample p) features and ceil(subsample n_c) rows of each class
    (without replacement), fits the best stump of every sampled feature on the subsample by
    interval arithmetic (`fit_stump`), adds the best one, min-max normalises the scores to
    [0, 1], and keeps the round only if the margin-adjusted loss on the full training set did
    not increase. The score is the mean over runs.

    Runs use independent seeds derived from `random_state`, so results do not depend on
    `n_jobs`.

    Parameters
    ----------
    metric : {"auc", "ks", "pak"}, default="auc"
        Metric whose margin-adjusted loss (1 - metric) is minimised: area under the ROC
        curve, one-sided Kolmogorov-Smirnov statistic, or precision at k.
    margin : float, default=0.05
        Margin theta >= 0 (thesis eq. 2.2).
    n_estimators : int, default=250
        Number of independent runs E averaged.
    n_rounds : int, default=50
        Boosting rounds T of each run.
    subsample : float, default=0.2
        Share of each class's rows sampled per round, in (0, 1].
    colsample : float, default=0.2
        Share of the features sampled per round, in (0, 1].
    k : int, float or None, default=None
        Depth of P@k (used when ``metric="pak"``): an int is a count on the training set, a
        float in (0, 1] a share of the rows, None the positive rate of the training labels:
        k = the number of training positives, ceil(rate * m) on a subsample of m rows (the
        authors' code; lower test P@k loss than training at the evaluated half-rate, D119).
    search : {"greedy", "reduced", "exact"}, default="greedy"
        Stump search: the paper's bisection, the same over (threshold, b - a), or
        branch-and-bound (global optimum); see `fit_stump`.
    init : {"random", "zeros"}, default="random"
        Initial scores S0 when `fit` gets no `init_score`: ``"random"`` is U(0, 1) on the
        training rows and 0.5 for new rows (the authors' code); ``"zeros"`` is S0 = 0 (the
        ensembler's start of Proposition 2.5).
    margin_scaling : {"stump", "constant"}, default="stump"
        ``"stump"`` lowers the positives by (1 + |b - a|/2) margin as in eq. 2.4;
        ``"constant"`` by margin.
    precision_bits : int, default=53
        c, the number of halvings of the stump heights' intervals (53 = float64 as the paper,
        24 = float32), in [1, 64].
    random_state : int, RandomState instance or None, default=None
        Seed of the runs' subsampling and random initial scores.
    n_jobs : int or None, default=None
        Runs fitted in parallel (threads); None means 1, -1 all cores.
    verbose : bool, default=False
        Show a progress bar (tqdm, on stderr) advancing once per fitted run, for interactive use;
        the boosting rounds of a run stay in the compiled kernel.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels seen in `fit` (the larger one is the positive class).
    n_features_in_ : int
        Number of features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X has string column names.
    stump_feature_ : ndarray of shape (n_estimators, n_rounds)
        Feature of each round's stump, -1 for a rejected round.
    stump_threshold_ : ndarray of shape (n_estimators, n_rounds)
        Threshold of each round's stump.
    stump_a_ : ndarray of shape (n_estimators, n_rounds)
        Left value a of each round's stump.
    stump_b_ : ndarray of shape (n_estimators, n_rounds)
        Right value b of each round's stump.
    stump_shift_ : ndarray of shape (n_estimators, n_rounds)
        Minimum of the scores after each accepted round (the min-max normalisation).
    stump_scale_ : ndarray of shape (n_estimators, n_rounds)
        Range of the scores after each accepted round (the min-max normalisation).
    stumps_ : list of list of tuple
        Per run, the accepted stumps as (feature, threshold, a, b, shift, scale).
    train_margin_loss_ : ndarray of shape (n_estimators, n_rounds + 1)
        Margin-adjusted loss of each run on the full training set, before the first round and
        after each round; non-increasing along a row.
    k_train_ : int or None
        Depth k used on the training set for ``metric="pak"``, else None.
    init_shift_ : float or None
        Minimum of `init_score` in `fit` (None without `init_score`).
    init_scale_ : float or None
        Range of `init_score` in `fit` (None without `init_score`).
    threshold_ : float
        Operating threshold on the mean score: `predict` labels the top (training positive
        rate) share of the training scores as positive.

    See Also
    --------
    fit_stump : The stump search of one round.
    boostcm.metrics.metric_loss : The losses minimised.

    Notes
    -----
    The model learns a ranking score, not a probability: it has `decision_function` and no
    `predict_proba`. Wrap it in ``sklearn.calibration.CalibratedClassifierCV`` for
    probabilities.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022, Algorithms 1-2 and supplementary material C and F.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, chapter 2 (Algorithms 2-3, section 2.2.5).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.exactboost import ExactBoostClassifier
    >>> from boostcm.metrics import auc_loss
    >>> X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    >>> clf = ExactBoostClassifier(metric="auc", n_estimators=5, n_rounds=10, random_state=0)
    >>> clf = clf.fit(X, y)
    >>> scores = clf.decision_function(X)
    >>> scores.shape
    (200,)
    >>> bool(auc_loss(scores, y) < 0.2)
    True
    >>> clf.predict(X[:5]).shape
    (5,)
    """

    def __init__(
        self,
        *,
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
        verbose=False,
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
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    # -- validation -------------------------------------------------------------------------
    def _check_params(self):
        mid = check_choice(self.metric, METRIC_IDS, "metric")
        method = check_choice(self.search, SEARCH_IDS, "search")
        mscale = check_choice(self.margin_scaling, MARGIN_SCALINGS, "margin_scaling")
        check_choice(self.init, INITS, "init")
        for name in ("n_estimators", "n_rounds"):
            check_integer(getattr(self, name), name, min_value=1)
        return (
            mid,
            method,
            mscale,
            check_margin(self.margin),
            check_fraction(self.subsample, "subsample"),
            check_fraction(self.colsample, "colsample"),
        )

    def _k_fraction(self, y):
        n = y.shape[0]
        if self.k is None:
            return float(np.mean(y))
        if isinstance(self.k, bool):
            raise ValueError(f"k must be an int, a float in (0, 1] or None, got {self.k!r}")
        if isinstance(self.k, numbers.Integral):
            if not (1 <= self.k <= n):
                raise ValueError(f"k must be between 1 and n={n}, got {self.k}")
            return self.k / n
        if isinstance(self.k, numbers.Real):
            return check_fraction(self.k, "k")
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
        if classes.shape[0] < 2:
            raise ValueError(
                f"y contains a single class ({classes[0].item()!r}, {y.shape[0]} rows); "
                "ExactBoostClassifier needs rows of two classes"
            )
        self.classes_ = classes
        return check_binary_labels((y == classes[-1]).astype(np.int64))

    # -- fitting ----------------------------------------------------------------------------
    def fit(self, X, y, init_score=None):
        """Fit the runs of boosted stumps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite.
        y : array-like of shape (n_samples,)
            Labels of two classes (the larger label is the positive class).
        init_score : array-like of shape (n_samples,) or None, default=None
            Initial scores S0 (min-max normalised), e.g. another model's scores; pass the same
            kind of scores to `decision_function` and `predict` later.

        Returns
        -------
        self : ExactBoostClassifier
            The fitted estimator.
        """
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
        k_full = _depth(frac, n)
        k_sub = _depth(frac, n1_sub + n0_sub)
        E, T = self.n_estimators, self.n_rounds
        seeds = self._run_seeds(E)
        Xt = np.ascontiguousarray(X.T)

        plan = RunPlan(
            MarginLoss(mid, theta, mscale, k_full),
            k_sub,
            T,
            p_sub,
            n1_sub,
            n0_sub,
            method,
            bits,
            random_init,
        )

        def one(e):
            trace = make_trace(T)
            fit_run(Xt, y01, s0, plan, seeds[e], trace)
            return trace

        n_jobs = 1 if self.n_jobs is None else self.n_jobs
        runs = progress(range(E), verbose=bool(self.verbose), desc="ExactBoost runs")
        if n_jobs == 1:
            results = [one(e) for e in runs]
        else:
            results = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(one)(e) for e in runs)
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
        # the fitted runs score the training rows from the transposed copy the runs used: a
        # second copy would double the data's share of the fit's peak memory
        raw = self._raw_scores(Xt, s0 if not random_init else np.full(n, 0.5))
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
    def _raw_scores(self, Xt, s_init):
        """Mean score over the runs; `Xt` is the data transposed, C-contiguous (p, n)."""
        stumps = Stumps(
            self.stump_feature_,
            self.stump_threshold_,
            self.stump_a_,
            self.stump_b_,
            self.stump_shift_,
            self.stump_scale_,
        )
        return predict_runs(Xt, s_init, stumps)

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

    def _scoring_input(self, X, init_score):
        """New rows checked against the fit, and their initial scores."""
        check_is_fitted(self, "stump_feature_")
        X = validate_data(self, X, reset=False, ensure_all_finite=False, dtype=np.float64)
        X = check_finite_2d(X)
        return X, self._initial(X.shape[0], init_score)

    def decision_function(self, X, init_score=None):
        """Ranking score: the mean score over runs minus `threshold_`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.
        init_score : array-like of shape (n_samples,) or None, default=None
            Initial scores, required exactly when `fit` got `init_score`.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Scores; > 0 means the positive class ``classes_[1]``.
        """
        X, s_init = self._scoring_input(X, init_score)
        return self._raw_scores(np.ascontiguousarray(X.T), s_init) - self.threshold_

    def staged_decision_function(self, X, init_score=None):
        """Ranking score of the partial model after each boosting round t = 1, ..., `n_rounds`.

        The partial model after round t keeps, in every run, the stumps of rounds 1..t (the
        rejected rounds add nothing) and averages the runs; its score minus the full model's
        `threshold_` is yielded, so the last one equals `decision_function`. The trajectories of
        EBP Figure 2 (Supp. section H) are these partial models.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.
        init_score : array-like of shape (n_samples,) or None, default=None
            Initial scores, required exactly when `fit` got `init_score`.

        Yields
        ------
        scores : ndarray of shape (n_samples,)
            Scores of the partial model after rounds 1, 2, ..., `n_rounds`, in that order.

        See Also
        --------
        boostcm.exactboost.stump_vector : The partial models as vectors (EBP Supp. section H).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import make_classification
        >>> from boostcm.exactboost import ExactBoostClassifier
        >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
        >>> clf = ExactBoostClassifier(metric="ks", n_estimators=3, n_rounds=5, random_state=0)
        >>> stages = list(clf.fit(X, y).staged_decision_function(X))
        >>> len(stages), bool(np.allclose(stages[-1], clf.decision_function(X)))
        (5, True)
        """
        X, s_init = self._scoring_input(X, init_score)
        feat = self.stump_feature_
        n_runs, n_rounds = feat.shape
        # the runs' scores, updated round by round in the order of operations of predict_runs
        runs = np.tile(s_init, (n_runs, 1))
        for t in range(n_rounds):
            for e in np.flatnonzero(feat[:, t] >= 0):
                h = np.where(
                    X[:, feat[e, t]] <= self.stump_threshold_[e, t],
                    self.stump_a_[e, t],
                    self.stump_b_[e, t],
                )
                runs[e] = (runs[e] + h - self.stump_shift_[e, t]) / self.stump_scale_[e, t]
            total = np.zeros(X.shape[0])
            for e in range(n_runs):
                total += runs[e]
            yield total / n_runs - self.threshold_

    def predict(self, X, init_score=None):
        """Class labels: the positive class where `decision_function` > 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.
        init_score : array-like of shape (n_samples,) or None, default=None
            Initial scores, required exactly when `fit` got `init_score`.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels, values of ``classes_``.
        """
        d = self.decision_function(X, init_score)
        return (
            self.classes_[(d > 0).astype(int)]
            if self.classes_.shape[0] == 2
            else np.full(d.shape[0], self.classes_[0])
        )
