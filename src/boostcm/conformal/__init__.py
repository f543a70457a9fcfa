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

The public names are loaded on first access (PEP 562, docs/decisions.md, D146): importing a
submodule, such as ``boostcm.conformal.processes`` in a simulation job, does not import the
others, and scikit-learn is loaded by the modules whose classes derive from its estimators
(``estimator``, ``quantile_models``) only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

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

# public name -> submodule defining it
_EXPORTS = {
    "ConformalQuantileRegressor": "estimator",
    "min_calibration_size": "estimator",
    "CONVENTIONS": "bounds",
    "BlockingBound": "bounds",
    "best_marginal_correction": "bounds",
    "empirical_coverage_bound": "bounds",
    "eps_cal": "bounds",
    "eps_cal_conditional": "bounds",
    "eps_test": "bounds",
    "eps_test_conditional": "bounds",
    "iid_eps": "bounds",
    "iid_eps_conditional": "bounds",
    "marginal_coverage_bound": "bounds",
    "sigma_tilde_squared": "bounds",
    "lagged_window_beta": "mixing",
    "two_state_beta": "mixing",
    "two_state_stationary": "mixing",
    "HMM_NOISE_VARIANCE": "processes",
    "ar1_autocorrelation": "processes",
    "lagged_design": "processes",
    "simulate_ar1": "processes",
    "simulate_hmm": "processes",
    "simulate_two_state_chain": "processes",
    "two_state_autocorrelation": "processes",
    "QUANTILE_MODELS": "quantile_models",
    "PinballMLP": "quantile_models",
    "QuantileGradientBoosting": "quantile_models",
    "QuantileModel": "quantile_models",
    "QuantileRandomForest": "quantile_models",
    "make_quantile_model": "quantile_models",
    "SplitCQRResult": "split",
    "absolute_residual_scores": "split",
    "calibrate": "split",
    "conditional_coverage": "split",
    "conditional_thresholds": "split",
    "cqr_scores": "split",
    "empirical_quantile": "split",
    "empirical_risk": "split",
    "quantile_rank": "split",
    "rank_one_out_thresholds": "split",
    "rcps_threshold": "split",
    "sliding_window_cqr": "online",
    "minute_returns": "series",
    "returns_design": "series",
    "return_events": "series",
    "split_cqr": "split",
    "split_indices": "split",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
