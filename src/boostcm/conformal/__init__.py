"""boostcm.conformal: split conformal prediction for dependent data (thesis ch. 4).

Public API (stable; other modules and the beta-mixing bounds build on it):

processes      simulate_ar1(n, lam, rng), simulate_hmm(n, p, q=None, rng=..., return_states=False),
               simulate_two_state_chain(n, p, q, rng), lagged_design(series, n_lags) -> (X, y)
models         make_quantile_model(name in {"boosting", "forest", "network"}, alpha, seed, **params)
               -> model with fit(X, y) and predict_interval(X) -> (lower, upper)
split CP       empirical_quantile (4.1), quantile_rank, calibrate, cqr_scores, split_indices,
               split_cqr(model, X, y, n_train, n_cal, alpha, n_test=None) -> SplitCQRResult
               (lower, upper, threshold, covered, scores_test)
variants       conditional_thresholds / conditional_coverage (sets A), rank_one_out_thresholds,
               rcps_threshold / empirical_risk
"""

from .processes import (
    HMM_NOISE_VARIANCE,
    ar1_autocorrelation,
    lagged_design,
    simulate_ar1,
    simulate_hmm,
    simulate_two_state_chain,
    two_state_autocorrelation,
)
from .quantile_models import (
    QUANTILE_MODELS,
    PinballMLP,
    QuantileGradientBoosting,
    QuantileModel,
    QuantileRandomForest,
    make_quantile_model,
)
from .split import (
    SplitCQRResult,
    absolute_residual_scores,
    calibrate,
    conditional_coverage,
    conditional_thresholds,
    cqr_scores,
    empirical_quantile,
    empirical_risk,
    quantile_rank,
    rank_one_out_thresholds,
    rcps_threshold,
    split_cqr,
    split_indices,
)

__all__ = [
    "HMM_NOISE_VARIANCE", "ar1_autocorrelation", "lagged_design", "simulate_ar1", "simulate_hmm",
    "simulate_two_state_chain", "two_state_autocorrelation",
    "QUANTILE_MODELS", "PinballMLP", "QuantileGradientBoosting", "QuantileModel", "QuantileRandomForest",
    "make_quantile_model",
    "SplitCQRResult", "absolute_residual_scores", "calibrate", "conditional_coverage", "conditional_thresholds",
    "cqr_scores", "empirical_quantile", "empirical_risk", "quantile_rank", "rank_one_out_thresholds",
    "rcps_threshold", "split_cqr", "split_indices",
]
