"""GUPTA-F2 / GUPTA-F3: calibration under covariate shift, the simulation of Appendix D.4.

One run (simulation index `sim`) of Gupta, Podkopaev, Ramdas (2020), Appendix D.4:

* source covariates uniform on [0, 1]^3, target coordinates Beta(2, 1) (ratio w(x) = 8 x1 x2 x3),
  labels P(Y = 1 | x) = (1 + sin(20 ||x||^2)) / 2 in both domains;
* a random forest (100 trees, scikit-learn defaults) trained on 14 700 source points (decision
  D62 in docs/decisions.md: the paper does not name the domain);
* uLSIF on 2000 unlabelled source + 2000 unlabelled target points, sigma and lambda by
  leave-one-out over the paper's grids;
* uniform-mass binning, B = 10, quantiles from 1940 source points, bin probabilities from 7840;
* evaluation on 28 000 target points: l1-ECE and reliability diagram with B' = 10 fixed-width bins.

Methods compared (columns ``ece_<method>``): ``raw`` (the forest), ``unweighted`` (17, ignores
the shift), ``weighted`` (22)/(46) with the uLSIF weights, ``relative_mass`` (47) with the uLSIF
weights and m_hat from 8500 + 8000 extra unlabelled points (Figure 3), and ``oracle`` ((22) with
the true ratio; a reference the paper does not show). ``ece_eta_<method>`` is the same ECE with the
true P(Y = 1 | x) of the test points in place of their labels (the evaluation without label noise).

Every run draws its data from ``derive_rng(seed, "calibration", "data", sim)`` and its forest,
split and kernel centres from their own streams keyed the same way, so a run's numbers do not
depend on the chunk it was computed in.
"""

from __future__ import annotations

import dataclasses
import logging
import time

import numpy as np
import pandas as pd

from .._io import common_settings, derive_rng, derive_seed_sequence
from .._progress import progress
from ..calibration import (
    ULSIF,
    HistogramBinning,
    WeightedHistogramBinning,
    reliability_curve,
)
from ..calibration.synthetic import (
    beta_likelihood_ratio,
    sample_beta_covariates,
    sample_labels,
    sin_label_probability,
)
from ..targets import registry

log = logging.getLogger(__name__)

__all__ = [
    "METHODS",
    "PAPER_METHODS",
    "ShiftSettings",
    "run_shift_simulation",
    "simulate_chunk",
    "collect_chunks",
    "summary_table",
    "compare_calibrators",
    "notation_table",
    "draw_relationship_diagram",
]

METHODS = ("raw", "unweighted", "weighted", "relative_mass", "oracle")
LABELS = {
    "raw": "uncalibrated random forest",
    "unweighted": "binning ignoring the shift, (17)",
    "weighted": "weighted binning, (22)/(46), uLSIF weights",
    "relative_mass": "relative-mass estimator, (47), uLSIF weights",
    "oracle": "weighted binning with the true ratio (reference)",
}
# methods whose ECE the paper prints, per target (params.methods in config/targets.yaml)
PAPER_METHODS = {
    t: tuple(target.params["methods"])
    for t, target in registry().items()
    if target.family == "calibration_shift"
}


@dataclasses.dataclass(frozen=True)
class ShiftSettings:
    """Settings of one Appendix D.4 run (the workflow passes the config's `calibration` section;
    the paper's values are the schema defaults, listed in config/README.md).

    Parameters
    ----------
    dimension : int
        d, covariates in [0, 1]^d.
    target_a, target_b : float
        Beta(a', b') of the target coordinates (source: Beta(1, 1)).
    omega : float
        Frequency of the label probability (1 + sin(omega ||x||^2)) / 2.
    n_train : int
        Source points training the forest.
    n_trees : int
        Trees of the forest.
    n_ratio_source, n_ratio_target : int
        Unlabelled points of each domain for uLSIF.
    sigma_min, sigma_max, n_sigmas, lambda_min, lambda_max, n_lambdas : float, float, int, ...
        Log-spaced uLSIF grids (ends included).
    n_centers : int
        uLSIF kernel centres (target points).
    n_bins : int
        B of the uniform-mass binning.
    n_quantile, n_calibration : int
        Source points giving the quantiles and the bin probabilities.
    n_test : int
        Target points for the evaluation.
    n_eval_bins : int
        B' of the ECE and the reliability diagram.
    n_mass_source, n_mass_target : int
        Extra unlabelled points of (47).
    alpha : float
        Level of the Corollary 3 guarantee recorded for the unweighted binning.
    """

    dimension: int
    target_a: float
    target_b: float
    omega: float
    n_train: int
    n_trees: int
    n_ratio_source: int
    n_ratio_target: int
    sigma_min: float
    sigma_max: float
    n_sigmas: int
    lambda_min: float
    lambda_max: float
    n_lambdas: int
    n_centers: int
    n_bins: int
    n_quantile: int
    n_calibration: int
    n_test: int
    n_eval_bins: int
    n_mass_source: int
    n_mass_target: int
    alpha: float

    def grids(self):
        """The uLSIF grids (sigmas, lambdas)."""
        sig = np.logspace(np.log10(self.sigma_min), np.log10(self.sigma_max), self.n_sigmas)
        lam = np.logspace(np.log10(self.lambda_min), np.log10(self.lambda_max), self.n_lambdas)
        return sig, lam


def _int_seed(seed: int, *keys) -> int:
    return int(derive_seed_sequence(seed, *keys).generate_state(1)[0])


def _ece_against(probs, target, n_bins):
    """sum_b p_b |mean prob - mean target| over fixed-width bins (target may be P(Y=1|x))."""
    b = np.searchsorted(np.arange(1, n_bins) / n_bins, probs, side="right")
    counts = np.bincount(b, minlength=n_bins)
    full = counts > 0
    mp = np.bincount(b, weights=probs, minlength=n_bins)[full] / counts[full]
    mt = np.bincount(b, weights=target, minlength=n_bins)[full] / counts[full]
    return float(np.sum(counts[full] * np.abs(mp - mt)) / probs.size)


def run_shift_simulation(sim: int, *, seed: int, settings: ShiftSettings, n_jobs: int = 1):
    """One run of the Appendix D.4 simulation.

    Parameters
    ----------
    sim : int
        Simulation index (the random streams are keyed by it).
    seed : int
        The workflow's global seed.
    settings : ShiftSettings
        Sizes and grids.
    n_jobs : int, default=1
        Threads of the random forest (results do not depend on it).

    Returns
    -------
    row : dict
        ECEs of every method (``ece_<m>``, ``ece_eta_<m>``), uLSIF's choice and accuracy, bin
        counts, the Corollary 3 epsilon (no times: they go to the job log).
    reliability : pandas.DataFrame
        One row per (method, evaluation bin): count, mean predicted, fraction positive.
    """
    from sklearn.ensemble import RandomForestClassifier

    st = settings
    t0 = time.process_time()
    rng = derive_rng(seed, "calibration", "data", sim)
    d, a2, b2 = st.dimension, st.target_a, st.target_b

    def source(n):
        return sample_beta_covariates(n, d, 1.0, 1.0, rng)

    def target(n):
        return sample_beta_covariates(n, d, a2, b2, rng)

    def labelled(X):
        eta = sin_label_probability(X, st.omega)
        return sample_labels(eta, rng), eta

    X_train = source(st.n_train)
    y_train, _ = labelled(X_train)
    X_ratio_s, X_ratio_t = source(st.n_ratio_source), target(st.n_ratio_target)
    X_cal = source(st.n_quantile + st.n_calibration)
    y_cal, _ = labelled(X_cal)
    X_test = target(st.n_test)
    y_test, eta_test = labelled(X_test)
    X_mass_s, X_mass_t = source(st.n_mass_source), target(st.n_mass_target)

    forest = RandomForestClassifier(
        n_estimators=st.n_trees,
        random_state=_int_seed(seed, "calibration", "forest", sim),
        n_jobs=n_jobs,
    ).fit(X_train, y_train)
    t_forest = time.process_time()

    def score(X):
        return forest.predict_proba(X)[:, 1]

    s_cal, s_test = score(X_cal), score(X_test)
    s_mass_s, s_mass_t = score(X_mass_s), score(X_mass_t)

    sigmas, lambdas = st.grids()
    ratio = ULSIF(
        sigmas=sigmas,
        lambdas=lambdas,
        n_centers=st.n_centers,
        random_state=_int_seed(seed, "calibration", "ulsif", sim),
    ).fit(X_ratio_s, X_ratio_t)
    t_ulsif = time.process_time()
    w_hat = ratio.predict(X_cal)
    w_true = beta_likelihood_ratio(X_cal, a_target=a2, b_target=b2)

    split = _int_seed(seed, "calibration", "split", sim)
    common = dict(n_bins=st.n_bins, n_quantile=st.n_quantile, duplicates="drop")
    unweighted = HistogramBinning(alpha=st.alpha, random_state=split, **common).fit(s_cal, y_cal)
    weighted = WeightedHistogramBinning(random_state=split, **common).fit(
        s_cal, y_cal, sample_weight=w_hat
    )
    mass = WeightedHistogramBinning(relative_mass="unlabeled", random_state=split, **common).fit(
        s_cal, y_cal, sample_weight=w_hat, source_scores=s_mass_s, target_scores=s_mass_t
    )
    oracle = WeightedHistogramBinning(random_state=split, **common).fit(
        s_cal, y_cal, sample_weight=w_true
    )
    predictions = {
        "raw": s_test,
        "unweighted": unweighted.predict(s_test),
        "weighted": weighted.predict(s_test),
        "relative_mass": mass.predict(s_test),
        "oracle": oracle.predict(s_test),
    }
    est = unweighted.estimation_indices_
    row = {"sim": int(sim)}
    frames = []
    for m, p in predictions.items():
        curve = reliability_curve(p, y_test, n_bins=st.n_eval_bins)
        row[f"ece_{m}"] = curve.ece
        row[f"ece_eta_{m}"] = _ece_against(p, eta_test, st.n_eval_bins)
        frames.append(
            pd.DataFrame(
                {
                    "sim": int(sim),
                    "method": m,
                    "bin": np.arange(st.n_eval_bins),
                    "count": curve.counts,
                    "mean_predicted": curve.mean_predicted,
                    "fraction_positive": curve.fraction_positive,
                }
            )
        )
    row.update(
        sigma=ratio.sigma_,
        lam=ratio.lambda_,
        weight_rmse=float(np.sqrt(np.mean((w_hat[est] - w_true[est]) ** 2))),
        weight_mean=float(np.mean(w_hat[est])),
        n_bins_used=int(unweighted.n_bins_),
        min_count=int(unweighted.counts_.min()),
        theorem5_bound=float(unweighted.min_count_bound_),
        epsilon=float(unweighted.guarantee_.epsilon),
        relative_mass_clipped=int(np.sum(mass.raw_bin_means_ != mass.bin_means_)),
    )
    log.info(
        "run %d: forest %.1f s, uLSIF %.1f s, total %.1f s (CPU)",
        sim,
        t_forest - t0,
        t_ulsif - t_forest,
        time.process_time() - t0,
    )
    return row, pd.concat(frames, ignore_index=True)


def simulate_chunk(
    sims, *, seed: int, settings: ShiftSettings, n_jobs: int = 1, verbose: bool = False
):
    """Runs `sims` (an iterable of simulation indices): (runs table, reliability table).

    Parameters
    ----------
    sims : iterable of int
        Simulation indices.
    seed : int
        The global seed.
    settings : ShiftSettings
        Sizes and grids.
    n_jobs : int, default=1
        Threads of the random forest.
    verbose : bool, default=False
        Show a progress bar (tqdm, on stderr) advancing once per run.

    Returns
    -------
    runs, reliability : pandas.DataFrame
        One row per run; one row per (run, method, evaluation bin).
    """
    sims = [int(s) for s in sims]
    if not sims:
        raise ValueError("no simulation indices given")
    rows, rel = [], []
    for s in progress(sims, verbose=verbose, desc="covariate-shift runs"):
        row, frame = run_shift_simulation(s, seed=seed, settings=settings, n_jobs=n_jobs)
        rows.append(row)
        rel.append(frame)
    return pd.DataFrame(rows), pd.concat(rel, ignore_index=True)


def collect_chunks(run_files, reliability_files):
    """Concatenate chunk files, refusing chunks run with different settings or seeds.

    Parameters
    ----------
    run_files, reliability_files : list of path
        The chunk parquet files written by ``boostcm calibration simulate``.

    Returns
    -------
    runs, reliability : pandas.DataFrame
        Sorted by simulation index.
    settings : dict
        The common settings (global seed and ShiftSettings fields).
    """
    if not run_files:
        raise ValueError("no chunk files given")
    settings = common_settings(run_files, exclude=("first", "count"))
    runs = pd.concat([pd.read_parquet(f) for f in run_files], ignore_index=True)
    if runs["sim"].duplicated().any():
        raise ValueError("a simulation index appears in two chunks")
    rel = pd.concat([pd.read_parquet(f) for f in reliability_files], ignore_index=True)
    return (
        runs.sort_values("sim").reset_index(drop=True),
        rel.sort_values(["sim", "method", "bin"]).reset_index(drop=True),
        settings,
    )


def summary_table(runs: pd.DataFrame, paper: dict, paper_run: int) -> pd.DataFrame:
    """Per method: the published ECE, ours on run `paper_run`, and the distribution over runs.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per run with ``ece_<method>`` and ``ece_eta_<method>`` columns.
    paper : dict
        Method -> published ECE (methods without one get NaN).
    paper_run : int
        The simulation index reported as "the single run".

    Returns
    -------
    pandas.DataFrame
        method, label, paper_ece, run_ece, n_runs, mean, sd, q005, q025, median, q975, q995,
        min, max, mean_eta (the label-noise-free ECE's mean).
    """
    if paper_run not in set(runs["sim"]):
        raise ValueError(f"paper_run {paper_run} is not among the simulated runs")
    one = runs.set_index("sim").loc[paper_run]
    out = []
    for m in METHODS:
        v = runs[f"ece_{m}"].to_numpy()
        out.append(
            {
                "method": m,
                "label": LABELS[m],
                "paper_ece": paper.get(m, np.nan),
                "run_ece": float(one[f"ece_{m}"]),
                "n_runs": int(v.size),
                "mean": float(v.mean()),
                "sd": float(v.std(ddof=1)) if v.size > 1 else np.nan,
                "q005": float(np.quantile(v, 0.005)),
                "q025": float(np.quantile(v, 0.025)),
                "median": float(np.median(v)),
                "q975": float(np.quantile(v, 0.975)),
                "q995": float(np.quantile(v, 0.995)),
                "min": float(v.min()),
                "max": float(v.max()),
                "mean_eta": float(runs[f"ece_eta_{m}"].mean()),
            }
        )
    return pd.DataFrame(out)


# --- side by side with established packages (benchmarks/calibration_compare.py) ----------------

GUARANTEES = {
    "histogram binning (ours)": "distribution-free: Theorem 4 intervals, (eps, alpha)-calibrated (Cor. 3)",
    "weighted binning (ours)": "asymptotic calibration on the target if the weights are consistent (Prop. 2)",
    "isotonic (scikit-learn)": "none stated (non-injective, no finite-sample interval)",
    "sigmoid / Platt (scikit-learn)": "none: injective, cannot be distribution-free calibrated (Theorem 3)",
    "beta calibration (betacal)": "none: injective, cannot be distribution-free calibrated (Theorem 3)",
}


def _shift_data(sim, seed, st):
    """The Appendix D.4 data of run `sim` (the same draws as run_shift_simulation)."""
    rng = derive_rng(seed, "calibration", "data", sim)
    d, a2, b2 = st.dimension, st.target_a, st.target_b
    out = {}
    out["X_train"] = sample_beta_covariates(st.n_train, d, 1.0, 1.0, rng)
    out["y_train"] = sample_labels(sin_label_probability(out["X_train"], st.omega), rng)
    out["X_ratio_s"] = sample_beta_covariates(st.n_ratio_source, d, 1.0, 1.0, rng)
    out["X_ratio_t"] = sample_beta_covariates(st.n_ratio_target, d, a2, b2, rng)
    out["X_cal"] = sample_beta_covariates(st.n_quantile + st.n_calibration, d, 1.0, 1.0, rng)
    out["y_cal"] = sample_labels(sin_label_probability(out["X_cal"], st.omega), rng)
    out["X_test"] = sample_beta_covariates(st.n_test, d, a2, b2, rng)
    out["y_test"] = sample_labels(sin_label_probability(out["X_test"], st.omega), rng)
    return out


def _cpu_timed(fn):
    """``fn()`` and the CPU seconds of this process it took (run with one BLAS thread)."""
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def _density_ratio_weights(data, sim, seed, st, ratio_grid):
    """The calibration points' density-ratio weights of :func:`compare_calibrators`.

    Ours on the settings' grid, ours on `ratio_grid` when given, and the ``densratio`` package's
    uLSIF on the comparison grid when it is installed; name -> (weights, fit CPU seconds, sigma,
    lambda).
    """
    import importlib.util

    sigmas, lambdas = st.grids()
    grids = {"uLSIF (ours)": (sigmas, lambdas)}
    if ratio_grid is not None:
        grids["uLSIF (ours), comparison grid"] = ratio_grid
    weights = {}
    for name, (grid_s, grid_l) in grids.items():
        ratio, seconds = _cpu_timed(
            lambda grid_s=grid_s, grid_l=grid_l: ULSIF(
                sigmas=grid_s,
                lambdas=grid_l,
                n_centers=st.n_centers,
                random_state=_int_seed(seed, "calibration", "ulsif", sim),
            ).fit(data["X_ratio_s"], data["X_ratio_t"])
        )
        weights[name] = (ratio.predict(data["X_cal"]), seconds, ratio.sigma_, ratio.lambda_)
    if importlib.util.find_spec("densratio") is not None:
        from densratio import densratio

        grid_s, grid_l = (sigmas, lambdas) if ratio_grid is None else ratio_grid
        np.random.seed(_int_seed(seed, "calibration", "densratio", sim) % 2**32)
        dr, seconds = _cpu_timed(
            lambda: densratio(
                data["X_ratio_t"],
                data["X_ratio_s"],
                alpha=0.0,
                sigma_range=list(grid_s),
                lambda_range=list(grid_l),
                kernel_num=st.n_centers,
                verbose=False,
            )
        )
        label = "uLSIF (densratio)" + (", comparison grid" if ratio_grid is not None else "")
        weights[label] = (
            np.asarray(dr.compute_density_ratio(data["X_cal"])),
            seconds,
            float(dr.kernel_info.sigma),
            float(dr.lambda_),
        )
    return weights


def _calibrator_fits(forest, data, w, split, st):
    """The recalibrations of `forest` by every calibrator, the points weighted by `w` (or not).

    Yields (calibrator name, fit, predict): ``fit()`` returns a fitted calibrator, ``predict(m)``
    its probabilities on the test points.
    """
    import importlib.util

    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    X_cal, y_cal, X_test = data["X_cal"], data["y_cal"], data["X_test"]
    s_cal, s_test = forest.predict_proba(X_cal)[:, 1], forest.predict_proba(X_test)[:, 1]
    common = dict(n_bins=st.n_bins, n_quantile=st.n_quantile, duplicates="drop")
    if w is None:
        yield (
            "histogram binning (ours)",
            lambda: HistogramBinning(random_state=split, **common).fit(s_cal, y_cal),
            lambda m: m.predict(s_test),
        )
    else:
        yield (
            "weighted binning (ours)",
            lambda: WeightedHistogramBinning(random_state=split, **common).fit(
                s_cal, y_cal, sample_weight=w
            ),
            lambda m: m.predict(s_test),
        )
    for method, name in (
        ("isotonic", "isotonic (scikit-learn)"),
        ("sigmoid", "sigmoid / Platt (scikit-learn)"),
    ):
        yield (
            name,
            lambda method=method: CalibratedClassifierCV(
                FrozenEstimator(forest), method=method
            ).fit(X_cal, y_cal, sample_weight=w),
            lambda m: m.predict_proba(X_test)[:, 1],
        )
    if importlib.util.find_spec("betacal") is not None:
        from betacal import BetaCalibration

        yield (
            "beta calibration (betacal)",
            lambda: BetaCalibration(parameters="abm").fit(
                s_cal.reshape(-1, 1), y_cal, sample_weight=w
            ),
            lambda m: m.predict(s_test.reshape(-1, 1)),
        )


def compare_calibrators(
    sim: int, *, seed: int, settings: ShiftSettings, ratio_grid=None
) -> pd.DataFrame:
    """Run `sim` of Appendix D.4 recalibrated by ours and by established packages, with fit times.

    Every calibrator gets the same forest and the same 9780 labelled source points (ours split
    them 1940 / 7840 for the quantiles; the others use all of them), unweighted and weighted by
    the uLSIF ratio; the density ratio is also estimated by the ``densratio`` package. Needs
    scikit-learn >= 1.6 (FrozenEstimator), and ``betacal`` and ``densratio`` (boostcm's ``test``
    extra) for their rows (skipped when not installed).

    Parameters
    ----------
    sim : int
        The run (its data are those of :func:`run_shift_simulation`).
    seed : int
        The global seed.
    settings : ShiftSettings
        Sizes and grids.
    ratio_grid : tuple of (sigmas, lambdas), optional
        A grid on which ours and densratio's uLSIF are both timed, like for like (default: the
        settings' grid; densratio needs about a second per grid point at the paper's sizes).

    Returns
    -------
    pandas.DataFrame
        One row per (calibrator, weighting): ECE on the target test points, fit CPU seconds,
        the guarantee offered; density-ratio rows give the weights' RMSE and the chosen grid point.
    """
    from sklearn.ensemble import RandomForestClassifier

    from ..calibration import expected_calibration_error

    st = settings
    data = _shift_data(sim, seed, st)
    forest = RandomForestClassifier(
        n_estimators=st.n_trees, random_state=_int_seed(seed, "calibration", "forest", sim)
    ).fit(data["X_train"], data["y_train"])
    y_test = data["y_test"]
    w_true = beta_likelihood_ratio(data["X_cal"], a_target=st.target_a, b_target=st.target_b)
    weights = _density_ratio_weights(data, sim, seed, st, ratio_grid)
    blank = {"ece": np.nan, "weight_rmse": np.nan, "sigma": np.nan, "lambda": np.nan}
    rows = [
        {
            **blank,
            "sim": sim,
            "calibrator": name,
            "weights": "-",
            "fit_seconds": seconds,
            "weight_rmse": float(np.sqrt(np.mean((w - w_true) ** 2))),
            "sigma": sigma,
            "lambda": lam,
            "guarantee": "density ratio",
        }
        for name, (w, seconds, sigma, lam) in weights.items()
    ]
    s_test = forest.predict_proba(data["X_test"])[:, 1]
    rows.append(
        {
            **blank,
            "sim": sim,
            "calibrator": "uncalibrated forest",
            "weights": "-",
            "ece": expected_calibration_error(s_test, y_test, n_bins=st.n_eval_bins),
            "fit_seconds": 0.0,
            "guarantee": "none",
        }
    )
    weight_sets = {"none": None, "uLSIF (ours)": weights["uLSIF (ours)"][0]}
    weight_sets.update({k: v[0] for k, v in weights.items() if k.startswith("uLSIF (densratio)")})
    split = _int_seed(seed, "calibration", "split", sim)
    for weighting, w in weight_sets.items():
        for name, fit, predict in _calibrator_fits(forest, data, w, split, st):
            model, seconds = _cpu_timed(fit)
            probs = np.clip(predict(model), 0, 1)
            rows.append(
                {
                    **blank,
                    "sim": sim,
                    "calibrator": name,
                    "weights": weighting,
                    "ece": expected_calibration_error(probs, y_test, n_bins=st.n_eval_bins),
                    "fit_seconds": seconds,
                    "guarantee": GUARANTEES.get(name, ""),
                }
            )
    columns = ["sim", "calibrator", "weights", "ece", "fit_seconds", "weight_rmse", "sigma"]
    return pd.DataFrame(rows, columns=[*columns, "lambda", "guarantee"])


# --- GUPTA-T1 and GUPTA-F1: the paper's notation table and relationship diagram ---------------


def notation_table() -> pd.DataFrame:
    """GUPTA-T1: the notation of Table 1 of the paper, as a two-column table.

    Returns
    -------
    pandas.DataFrame
        Columns ``object`` and ``notation``.
    """
    rows = [
        ("Calibration data", "D_n = {(X_i, Y_i)}_{i in [n]}"),
        ("Test point", "(X_{n+1}, Y_{n+1})"),
        ("General data point", "(X, Y)"),
        ("Probability over i.i.d. calibration and test data", "P, P^{n+1}"),
        ("Predictor learnt on (a split of the) training data", "f : X -> [0, 1]"),
        ("General functions with unspecified sources of randomness", "f, C, S"),
        ("Random functions of the calibration data D_n", "h_n, C_n, S_n"),
    ]
    return pd.DataFrame(rows, columns=["object", "notation"])


def draw_relationship_diagram(ax):
    """GUPTA-F1: the three notions and the theorems relating them (Figure 1 of the paper).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.

    Returns
    -------
    matplotlib Axes
        `ax`.
    """
    boxes = {
        "cal": (0.17, 0.72, "Approximate calibration\nfor f"),
        "ci": (0.83, 0.72, "Confidence interval\nw.r.t. f"),
        "ps": (0.5, 0.16, "Prediction set\nw.r.t. f"),
    }
    style = dict(boxstyle="round,pad=0.6", fc="#e3ecfa", ec="#34495e")
    for x, y, text in boxes.values():
        ax.text(x, y, text, ha="center", va="center", fontsize=10, bbox=style)

    def arrow(start, end, label, where):
        ax.annotate(
            "",
            xy=end,
            xytext=start,
            arrowprops=dict(arrowstyle="-|>", lw=1.4, color="#34495e", shrinkA=0, shrinkB=0),
        )
        ax.text(*where, label, ha="center", va="center", fontsize=8.5, color="#1f3a5f")

    arrow((0.36, 0.76), (0.64, 0.76), "Theorem 1", where=(0.5, 0.82))
    arrow((0.64, 0.68), (0.36, 0.68), "Theorem 1", where=(0.5, 0.62))
    arrow((0.78, 0.58), (0.6, 0.28), "Theorem 2\n(if $P_{f(X)}$ is nonatomic)", where=(0.83, 0.42))
    arrow((0.22, 0.58), (0.4, 0.28), "Theorem 1 +\nTheorem 2", where=(0.17, 0.42))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    return ax
