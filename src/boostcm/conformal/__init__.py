"""boostcm.conformal: split conformal prediction for dependent data (thesis ch. 4).

Public API (stable; other modules and the beta-mixing bounds build on it):

processes      simulate_ar1(n, lam, rng), simulate_hmm(n, p, q=None, rng=..., return_states=False),
               simulate_two_state_chain(n, p, q, rng), lagged_design(series, n_lags) -> (X, y)
models         make_quantile_model(name in {"boosting", "forest", "network"}, alpha, random_state,
               **params) -> model with fit(X, y), predict_quantiles(X) -> (n, 2) and
               predict_interval(X) -> (lower, upper)
split CP       empirical_quantile (4.1), quantile_rank, calibrate, cqr_scores, split_indices,
               split_cqr(model, X, y, n_train, n_cal, alpha, n_test=None) -> SplitCQRResult
               (lower, upper, threshold, covered, scores_test)
estimator      ConformalQuantileRegressor(estimator, alpha, method, finite_sample_correction):
               fit(X, y), conformalize(X_cal, y_cal), predict_interval(X) -> (lower, upper)
variants       conditional_thresholds / conditional_coverage (sets A), rank_one_out_thresholds,
               rcps_threshold / empirical_risk, sliding_window_cqr (online: refit per block, or
               every refit_every test times with the calibration window sliding at each; events;
               method="aci" / "agaci": adaptive conformal inference and its aggregation)
series         minute_returns (linear returns, discarded weekdays, gaps not bridged),
               returns_design (lagged returns at consecutive minutes), return_events (Table 4.1)
beta-mixing    two_state_beta, lagged_window_beta (mixing); eps_cal (4.12), eps_test (4.14),
               eps_cal_conditional (4.15), eps_test_conditional (4.16), marginal_coverage_bound (Thm 4.5),
               empirical_coverage_bound (Thm 4.6), iid_eps (4.22) (bounds; docs/conformal_bounds.md)
"""

from .bounds import (
    CONVENTIONS,
    BlockingBound,
    best_marginal_correction,
    empirical_coverage_bound,
    eps_cal,
    eps_cal_conditional,
    eps_test,
    eps_test_conditional,
    iid_eps,
    iid_eps_conditional,
    marginal_coverage_bound,
    sigma_tilde_squared,
)
from .estimator import ConformalQuantileRegressor, min_calibration_size
from .mixing import lagged_window_beta, two_state_beta, two_state_stationary
from .online import sliding_window_cqr
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
from .series import minute_returns, return_events, returns_design
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
    "ConformalQuantileRegressor",
    "min_calibration_size",
    "CONVENTIONS",
    "BlockingBound",
    "best_marginal_correction",
    "empirical_coverage_bound",
    "eps_cal",
    "eps_cal_conditional",
    "eps_test",
    "eps_test_conditional",
    "iid_eps",
    "iid_eps_conditional",
    "marginal_coverage_bound",
    "sigma_tilde_squared",
    "lagged_window_beta",
    "two_state_beta",
    "two_state_stationary",
    "HMM_NOISE_VARIANCE",
    "ar1_autocorrelation",
    "lagged_design",
    "simulate_ar1",
    "simulate_hmm",
    "simulate_two_state_chain",
    "two_state_autocorrelation",
    "QUANTILE_MODELS",
    "PinballMLP",
    "QuantileGradientBoosting",
    "QuantileModel",
    "QuantileRandomForest",
    "make_quantile_model",
    "SplitCQRResult",
    "absolute_residual_scores",
    "calibrate",
    "conditional_coverage",
    "conditional_thresholds",
    "cqr_scores",
    "empirical_quantile",
    "empirical_risk",
    "quantile_rank",
    "rank_one_out_thresholds",
    "rcps_threshold",
    "sliding_window_cqr",
    "minute_returns",
    "returns_design",
    "return_events",
    "split_cqr",
    "split_indices",
]
