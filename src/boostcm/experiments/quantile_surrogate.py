"""QS-T1, QS-T2, QS-F1 and QS-F2 of Mackey, Luo & Eban, "Constrained classification and ranking
via quantiles": P@tau over random train/test splits (Tables 1 and 2, and Figure 1 on KDD Cup 2008)
and the precision-at-recall example on a two-dimensional Gaussian mixture (Figure 2).

Tables (`run_splits`, `summary_table`). For every split: a random train/test partition; every
method is trained for every tau and every C of the grid on the training part and scored by P@tau
on the test part (the published protocol picks, per tau, the C with the best average test P@tau);
the same models trained on an inner part of the training set and scored on the rest give the
validation P@tau that the held-out protocol picks C with, per split. Methods:

* ``LR``: logistic regression (its score does not depend on tau; P@tau thresholds it at rate tau);
* ``AATP``: Accuracy at the Top (hinge), every training point a candidate (`aatp_for_rates`);
* ``Q1``, ``Q3``: the quantile surrogate (9) with the kernel estimator, one random start, and the
  start with the lowest training loss among three (Q1 is Q3's first start).

C is the inverse regularisation of every method: LR and AATP take it as is; the quantile surrogate
minimises a mean loss, so its weight decay is 1 / (C n_train), the same trade-off.

Figure 1 (`run_f1_splits`, `f1_summary`): for every split a random 70 % / 30 % partition; for
every tau, the quantile surrogate with loss (10) (the positives' logistic loss below the
(1 - tau)-quantile of all scores; minibatch SGD with momentum, kernel estimator (13), one random
start) and Kar et al.'s l_prec@k^avg (`PrecisionAtKAvg`, full
training set) are trained for that tau and scored by P@tau on the test part; the figure plots the
mean and a 95 % confidence interval over the splits.

Figure 2 (`precision_at_recall_example`): a sample of the mixture, logistic regression with its
threshold moved to the recall target vs the precision-at-recall loss (7), precision at that recall
on a large test sample, the best linear classifier's precision by a search over directions, and the
spread over many random starts.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from .._io import derive_rng
from ..baselines import (
    PrecisionAtKAvg,
    PrecisionAtRecallSurrogate,
    QuantileSurrogate,
    aatp_for_rates,
)
from ..metrics import precision_at_rate, precision_at_recall

__all__ = [
    "F1_METHODS",
    "F1Settings",
    "METHODS",
    "MixtureSettings",
    "SplitSettings",
    "best_linear_precision",
    "f1_summary",
    "precision_at_recall_example",
    "run_f1_splits",
    "run_splits",
    "sample_mixture",
    "select_c",
    "summary_table",
]

METHODS = ("LR", "AATP", "Q1", "Q3")


@dataclasses.dataclass(frozen=True)
class SplitSettings:
    """Settings of one QS table's splits (every field is a config key of the table).

    Parameters
    ----------
    train_fraction : float
        Share of the rows in the training part (0.3 Ionosphere, 0.66 Housing).
    validation_fraction : float
        Share of the training part held out to choose C in the validation protocol.
    h : float
        Kernel bandwidth of the quantile estimator (0.05 Ionosphere, 0.08 Housing).
    n_epochs : int
        Full-batch gradient steps of the quantile surrogate per start.
    learning_rate : float
        Its step size.
    momentum : float
        Its heavy-ball momentum.
    n_starts : int
        Random starts of Q3 (Q1 is the first).
    """

    train_fraction: float
    validation_fraction: float
    h: float
    n_epochs: int
    learning_rate: float
    momentum: float
    n_starts: int

    def __post_init__(self):
        for name in ("train_fraction", "validation_fraction"):
            v = getattr(self, name)
            if not 0.0 < v < 1.0:
                raise ValueError(f"{name} must be in (0, 1), got {v}")
        if self.h <= 0 or self.learning_rate <= 0:
            raise ValueError("h and learning_rate must be > 0")
        if not 0.0 <= self.momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum}")
        if self.n_epochs < 1 or self.n_starts < 1:
            raise ValueError("n_epochs and n_starts must be >= 1")


def _check_grid(taus, cs):
    taus = [float(t) for t in taus]
    cs = [float(c) for c in cs]
    if not taus or not cs:
        raise ValueError("give at least one tau and one C")
    bad = [t for t in taus if not 0.0 < t < 1.0]
    if bad:
        raise ValueError(f"every tau must be in (0, 1), got {bad}")
    if any(not c > 0 for c in cs):
        raise ValueError(f"every C must be > 0, got {cs}")
    if len(set(taus)) != len(taus) or len(set(cs)) != len(cs):
        raise ValueError("taus and Cs must not repeat")
    return taus, cs


def _partition(n, fraction, rng):
    perm = rng.permutation(n)
    k = int(round(fraction * n))
    return perm[:k], perm[k:]


def _scores(X, y, Xe, taus, cs, settings, seed):
    """{(method, tau, C): scores of Xe} of every method trained on (X, y)."""
    out = {}
    for C in cs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lr = LogisticRegression(C=C, max_iter=1000).fit(X, y)
        s_lr = lr.decision_function(Xe)
        for tau, m in zip(taus, aatp_for_rates(X, y, taus, C=C)):
            out[("LR", tau, C)] = s_lr
            out[("AATP", tau, C)] = m.decision_function(Xe)
        wd = 1.0 / (C * X.shape[0])
        for tau in taus:
            fits = [
                QuantileSurrogate(
                    tau=tau,
                    h=settings.h,
                    weight_decay=wd,
                    learning_rate=settings.learning_rate,
                    momentum=settings.momentum,
                    n_epochs=settings.n_epochs,
                    n_init=1,
                    random_state=int(seed + start),
                ).fit(X, y)
                for start in range(settings.n_starts)
            ]
            best = min(range(len(fits)), key=lambda i: (fits[i].training_loss_, i))
            out[("Q1", tau, C)] = fits[0].decision_function(Xe)
            out[("Q3", tau, C)] = fits[best].decision_function(Xe)
    return out


def run_splits(X, y, splits, *, seed, taus, cs, settings: SplitSettings) -> pd.DataFrame:
    """P@tau of every method, tau and C on the given random splits.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    splits : iterable of int
        Split numbers; split s draws its partitions from (seed, "qs-split", s), so a chunk of
        splits gives the same rows as the whole run.
    seed : int
        Global seed.
    taus : sequence of float
        Rates, each in (0, 1).
    cs : sequence of float
        Inverse regularisation grid, each > 0.
    settings : SplitSettings
        Fractions and optimiser settings.

    Returns
    -------
    pandas.DataFrame
        One row per (split, method, tau, C): ``test`` (P@tau on the test part of models trained
        on the training part) and ``validation`` (P@tau on the held-out share of the training part
        of models trained on the rest), sorted.

    Raises
    ------
    ValueError
        For a bad grid or settings, or a partition that leaves a single class in a training part.
    """
    taus, cs = _check_grid(taus, cs)
    rows = []
    for s in splits:
        rng = derive_rng(seed, "qs-split", int(s))
        tr, te = _partition(X.shape[0], settings.train_fraction, rng)
        fit, val = _partition(tr.shape[0], 1.0 - settings.validation_fraction, rng)
        fit, val = tr[fit], tr[val]
        for part, idx in (("training part", tr), ("inner training part", fit)):
            if np.unique(y[idx]).size < 2:
                raise ValueError(f"split {s}: the {part} holds a single class")
        split_seed = int(rng.integers(2**31 - 1))
        test = _scores(X[tr], y[tr], X[te], taus, cs, settings, split_seed)
        valid = _scores(X[fit], y[fit], X[val], taus, cs, settings, split_seed)
        for key in test:
            method, tau, C = key
            rows.append(
                {
                    "split": int(s),
                    "method": method,
                    "tau": tau,
                    "C": C,
                    "test": precision_at_rate(test[key], y[te], tau),
                    "validation": precision_at_rate(valid[key], y[val], tau),
                }
            )
    return pd.DataFrame(rows).sort_values(["split", "method", "tau", "C"], ignore_index=True)


def select_c(runs: pd.DataFrame) -> pd.DataFrame:
    """Test P@tau per split under both C-selection protocols.

    ``best_test`` (the published protocol): per (method, tau), the C with the largest mean test
    P@tau over the splits. ``validation``: per (split, method, tau), the C with the largest
    validation P@tau. Ties go to the smallest C (the most regularised).

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of `run_splits` (any number of splits).

    Returns
    -------
    pandas.DataFrame
        Columns split, method, tau, protocol, C, precision.
    """
    runs = runs.sort_values(["split", "method", "tau", "C"], ignore_index=True)
    mean = runs.groupby(["method", "tau", "C"], as_index=False)["test"].mean()
    mean = mean.sort_values(["method", "tau", "test", "C"], ascending=[True, True, False, True])
    best = mean.drop_duplicates(["method", "tau"])[["method", "tau", "C"]]
    a = runs.merge(best, on=["method", "tau", "C"])
    a = a.assign(protocol="best_test", precision=a["test"])
    v = runs.sort_values(
        ["split", "method", "tau", "validation", "C"], ascending=[True, True, True, False, True]
    ).drop_duplicates(["split", "method", "tau"])
    v = v.assign(protocol="validation", precision=v["test"])
    cols = ["split", "method", "tau", "protocol", "C", "precision"]
    return pd.concat([a[cols], v[cols]], ignore_index=True).sort_values(
        ["protocol", "method", "tau", "split"], ignore_index=True
    )


def summary_table(runs: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """The QS table: mean and sd over splits of P@tau per (tau, method, protocol), beside the
    published cell.

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of `run_splits`.
    paper : pandas.DataFrame
        The published table: a ``τ (%)`` column and one ``mean ± sd`` column per method.

    Returns
    -------
    pandas.DataFrame
        Columns tau_pct, method, protocol, C (the chosen C of ``best_test``; empty for
        ``validation``, where it varies by split), n_splits, mean, sd, published_mean,
        published_sd. The row with method ``AATP (published)`` is none of ours: the published AATP
        column, itself copied by the paper from Boyd et al. (2012).
    """
    from ..targets import split_pm

    chosen = select_c(runs)
    g = chosen.groupby(["tau", "method", "protocol"])
    t = g["precision"].agg(["count", "mean", "std"]).reset_index()
    t = t.rename(columns={"count": "n_splits", "std": "sd"})
    cs = chosen[chosen["protocol"] == "best_test"].groupby(["tau", "method"])["C"].first()
    t["C"] = [
        cs.get((r.tau, r.method), np.nan) if r.protocol == "best_test" else np.nan
        for r in t.itertuples()
    ]
    t["tau_pct"] = np.round(100 * t["tau"], 6)
    pub = {}
    tau_col = paper.columns[0]
    for _, r in paper.iterrows():
        for m in paper.columns[1:]:
            pub[(round(float(r[tau_col]), 6), m)] = split_pm(r[m])
    t["published_mean"] = [
        pub.get((r.tau_pct, r.method), (np.nan, np.nan))[0] for r in t.itertuples()
    ]
    t["published_sd"] = [
        pub.get((r.tau_pct, r.method), (np.nan, np.nan))[1] for r in t.itertuples()
    ]
    extra = [
        {
            "tau_pct": tp,
            "method": "AATP (published)",
            "protocol": "published",
            "published_mean": v[0],
            "published_sd": v[1],
        }
        for (tp, m), v in pub.items()
        if m == "AATP" and tp in set(t["tau_pct"])
    ]
    t = pd.concat([t, pd.DataFrame(extra)], ignore_index=True)
    cols = ["tau_pct", "method", "protocol", "C", "n_splits", "mean", "sd"]
    t = t[cols + ["published_mean", "published_sd"]]
    return t.sort_values(["protocol", "tau_pct", "method"], ignore_index=True)


# --- QS-F1 ---------------------------------------------------------------------------------------

F1_METHODS = ("quantile (10)", "prec@k avg")


@dataclasses.dataclass(frozen=True)
class F1Settings:
    """Settings of QS-F1's splits (every field is a config key of ``quantile_surrogate.f1``).

    Parameters
    ----------
    train_fraction : float
        Share of the rows in the training part (0.7 in the paper).
    h : float
        Kernel bandwidth of the quantile estimator (13), on the rank scale of a minibatch.
    batch_size : int
        Minibatch of the quantile surrogate's SGD (1000 in the paper).
    n_epochs : int
        Its passes over the training part (3 in the paper).
    learning_rate : float
        Its step size on z-scored features.
    momentum : float
        Its heavy-ball momentum.
    weight_decay : float
        L2 coefficient of both methods (on their mean / per-k losses).
    kar_learning_rate : float
        Initial step of the l_prec@k^avg subgradient descent (step t: kar_learning_rate / sqrt(t)).
    kar_n_iter : int
        Its full-batch subgradient steps.
    """

    train_fraction: float = 0.7
    h: float = 0.02
    batch_size: int = 1000
    n_epochs: int = 3
    learning_rate: float = 0.01
    momentum: float = 0.9
    weight_decay: float = 1e-3
    kar_learning_rate: float = 0.1
    kar_n_iter: int = 300

    def __post_init__(self):
        if not 0.0 < self.train_fraction < 1.0:
            raise ValueError(f"train_fraction must be in (0, 1), got {self.train_fraction}")
        for name in ("h", "learning_rate", "kar_learning_rate"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
        if not 0.0 <= self.momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay}")
        for name in ("batch_size", "n_epochs", "kar_n_iter"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


def run_f1_splits(X, y, splits, *, seed, taus, settings: F1Settings) -> pd.DataFrame:
    """QS-F1: test P@tau of the quantile surrogate (10) and of l_prec@k^avg on random splits.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    splits : iterable of int
        Split numbers; split s draws its partition and its SGD seed from (seed, "qs-f1", s), so a
        chunk of splits gives the same rows as the whole run.
    seed : int
        Global seed.
    taus : sequence of float
        Rates, each in (0, 1); every model is trained for the tau it is evaluated at.
    settings : F1Settings
        Split and optimiser settings.

    Returns
    -------
    pandas.DataFrame
        One row per (split, method, tau): ``precision`` (P@tau on the test part) and
        ``training_loss`` (the model's final training objective), sorted.

    Raises
    ------
    ValueError
        For a bad tau grid, or a partition that leaves a single class in a part.
    """
    taus, _ = _check_grid(taus, [1.0])
    rows = []
    for s in splits:
        rng = derive_rng(seed, "qs-f1", int(s))
        tr, te = _partition(X.shape[0], settings.train_fraction, rng)
        for part, idx in (("training part", tr), ("test part", te)):
            if np.unique(y[idx]).size < 2:
                raise ValueError(f"split {s}: the {part} holds a single class")
        split_seed = int(rng.integers(2**31 - 1))
        for tau in taus:
            models = {
                "quantile (10)": QuantileSurrogate(
                    tau=tau,
                    loss="positives",
                    h=settings.h,
                    weight_decay=settings.weight_decay,
                    learning_rate=settings.learning_rate,
                    momentum=settings.momentum,
                    n_epochs=settings.n_epochs,
                    batch_size=settings.batch_size,
                    n_init=1,
                    random_state=split_seed,
                ),
                "prec@k avg": PrecisionAtKAvg(
                    tau=tau,
                    weight_decay=settings.weight_decay,
                    learning_rate=settings.kar_learning_rate,
                    n_iter=settings.kar_n_iter,
                ),
            }
            for method, model in models.items():
                model.fit(X[tr], y[tr])
                rows.append(
                    {
                        "split": int(s),
                        "method": method,
                        "tau": tau,
                        "precision": precision_at_rate(model.decision_function(X[te]), y[te], tau),
                        "training_loss": float(model.training_loss_),
                    }
                )
    return pd.DataFrame(rows).sort_values(["split", "method", "tau"], ignore_index=True)


def f1_summary(runs: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Mean P@tau per (tau, method) over the splits with its two-sided t confidence interval.

    Parameters
    ----------
    runs : pandas.DataFrame
        Output of `run_f1_splits` (any number of splits).
    level : float, default=0.95
        Confidence level of the interval (the paper's error bars are 95 % intervals).

    Returns
    -------
    pandas.DataFrame
        Columns tau, tau_pct, method, n_splits, mean, sd, ci_low, ci_high (NaN bounds with one
        split).
    """
    from scipy.stats import t as student_t

    g = runs.groupby(["tau", "method"])["precision"]
    out = g.agg(["count", "mean", "std"]).reset_index()
    out = out.rename(columns={"count": "n_splits", "std": "sd"})
    half = [
        student_t.ppf(0.5 + level / 2, n - 1) * sd / np.sqrt(n) if n > 1 else np.nan
        for n, sd in zip(out["n_splits"], out["sd"])
    ]
    out["ci_low"] = out["mean"] - half
    out["ci_high"] = out["mean"] + half
    out.insert(1, "tau_pct", np.round(100 * out["tau"], 6))
    return out.sort_values(["tau", "method"], ignore_index=True)


# --- QS-F2 ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class MixtureSettings:
    """A two-dimensional mixture of isotropic Gaussians with p(y = 1) = `prior`.

    Parameters
    ----------
    prior : float
        Share of positives.
    positive_means : tuple of (float, float)
        Means of the positive components (equal weights).
    negative_means : tuple of (float, float)
        Means of the negative components.
    negative_weights : tuple of float
        Weights of the negative components (summing to 1).
    sd : float
        Standard deviation of every component, per coordinate.
    """

    prior: float = 0.1
    positive_means: tuple = ((0.0, 0.0),)
    negative_means: tuple = ((-3.0, 0.0), (3.0, 3.0))
    negative_weights: tuple = (0.7, 0.3)
    sd: float = 1.0

    def __post_init__(self):
        if not 0.0 < self.prior < 1.0:
            raise ValueError(f"prior must be in (0, 1), got {self.prior}")
        if len(self.negative_means) != len(self.negative_weights) or not self.positive_means:
            raise ValueError("give one weight per negative mean and at least one positive mean")
        if not np.isclose(sum(self.negative_weights), 1.0) or min(self.negative_weights) < 0:
            raise ValueError("negative_weights must be >= 0 and sum to 1")
        if not self.sd > 0:
            raise ValueError(f"sd must be > 0, got {self.sd}")


def sample_mixture(n: int, settings: MixtureSettings, rng) -> tuple[np.ndarray, np.ndarray]:
    """n points of the mixture: features (n, 2) and labels in {0, 1}.

    Parameters
    ----------
    n : int
        Sample size (>= 2).
    settings : MixtureSettings
        The mixture.
    rng : numpy.random.Generator
        Random source.

    Returns
    -------
    X : ndarray of shape (n, 2)
    y : ndarray of shape (n,)
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    y = (rng.random(n) < settings.prior).astype(np.int64)
    pos = np.asarray(settings.positive_means, dtype=float)
    neg = np.asarray(settings.negative_means, dtype=float)
    comp_pos = rng.integers(len(pos), size=n)
    comp_neg = rng.choice(len(neg), size=n, p=np.asarray(settings.negative_weights, float))
    means = np.where(y[:, None] == 1, pos[comp_pos], neg[comp_neg])
    return means + settings.sd * rng.normal(size=(n, 2)), y


def best_linear_precision(X, y, recall: float, n_angles: int = 720) -> tuple[float, float]:
    """Best precision at the recall among linear scores x -> cos(a) x_1 + sin(a) x_2 over
    `n_angles` equally spaced directions (on the given sample).

    Returns
    -------
    precision : float
    angle : float
        The direction, radians.
    """
    best = (-1.0, 0.0)
    for a in np.linspace(0.0, 2 * np.pi, n_angles, endpoint=False):
        p = precision_at_recall(X @ np.array([np.cos(a), np.sin(a)]), y, recall)
        if p > best[0]:
            best = (p, float(a))
    return best


def precision_at_recall_example(
    *,
    seed: int,
    settings: MixtureSettings,
    n_train: int,
    n_test: int,
    recall: float,
    h: float,
    n_epochs: int,
    learning_rate: float,
    momentum: float,
    weight_decay: float,
    n_starts: int,
):
    """QS-F2: logistic regression with a moved threshold vs the precision-at-recall loss (7).

    Returns
    -------
    summary : pandas.DataFrame
        One row per model (``LR``, ``quantile`` = the first start, ``best linear``): the weights
        (w1, w2, b, the boundary w.x + b = 0 with the threshold of the training recall), the
        precision at `recall` on the training and on the test sample.
    starts : pandas.DataFrame
        One row per random start of the quantile loss: training loss and test precision.
    train : pandas.DataFrame
        The training sample (x1, x2, y), for the figure.
    """
    rng = derive_rng(seed, "qs-f2", "train")
    X, y = sample_mixture(n_train, settings, rng)
    Xt, yt = sample_mixture(n_test, settings, derive_rng(seed, "qs-f2", "test"))
    rows, starts = [], []

    def _row(model, w, score_tr, score_te):
        # boundary at the training-recall threshold: the largest t with recall(score > t) >= recall
        pos = np.sort(score_tr[y == 1])[::-1]
        m = int(min(pos.size, max(1, np.ceil(recall * pos.size - 1e-9))))
        t = float(pos[m - 1])
        rows.append(
            {
                "model": model,
                "w1": float(w[0]),
                "w2": float(w[1]),
                "b": float(w[2]) - t,
                "train_precision": precision_at_recall(score_tr, y, recall),
                "test_precision": precision_at_recall(score_te, yt, recall),
            }
        )

    lr = LogisticRegression(max_iter=1000).fit(X, y)
    w = np.r_[lr.coef_.ravel(), lr.intercept_]
    _row("LR", w, lr.decision_function(X), lr.decision_function(Xt))
    for start in range(n_starts):
        q = PrecisionAtRecallSurrogate(
            recall=recall,
            h=h,
            n_epochs=n_epochs,
            learning_rate=learning_rate,
            momentum=momentum,
            weight_decay=weight_decay,
            n_init=1,
            random_state=int(derive_rng(seed, "qs-f2", "start", start).integers(2**31 - 1)),
        ).fit(X, y)
        s_tr, s_te = q.decision_function(X), q.decision_function(Xt)
        if start == 0:
            _row("quantile", np.r_[q.coef_, q.offset_], s_tr + q.threshold_, s_te + q.threshold_)
        starts.append(
            {
                "start": start,
                "training_loss": q.training_loss_,
                "train_precision": precision_at_recall(s_tr, y, recall),
                "test_precision": precision_at_recall(s_te, yt, recall),
            }
        )
    _, angle = best_linear_precision(X, y, recall)
    d = np.array([np.cos(angle), np.sin(angle)])
    _row("best linear", np.r_[d, 0.0], X @ d, Xt @ d)
    train = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "y": y})
    return pd.DataFrame(rows), pd.DataFrame(starts), train
