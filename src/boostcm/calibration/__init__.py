"""boostcm.calibration: distribution-free calibration by binning, also under covariate shift.

Gupta, Podkopaev, Ramdas (2020), "Distribution-free binary classification: prediction sets,
confidence intervals and calibration", NeurIPS. Guide and decisions: docs/calibration.md.

binning        fixed_width_edges, uniform_mass_edges (empirical j/B-quantiles), assign_bins
               (half-open bins, the last closed), FixedWidthBinning, UniformMassBinning (Section 4.2)
recalibration  HistogramBinning(n_bins, bins, n_quantile, alpha, random_state): fit(scores, y),
               predict/transform(scores), partial_fit (streaming), bin_intervals /
               predict_interval(kind="batch" Theorem 4 | "online" Theorem 6), guarantee_
               (Corollary 3), min_count_bound_ (Theorem 5)
covariate      WeightedHistogramBinning(relative_mass="weights" eqs. (22)/(46) | "unlabeled" (47)):
  shift        fit(scores, y, sample_weight, source_scores=, target_scores=); relative_mass (47);
               ULSIF(sigmas, lambdas, n_centers, random_state): fit(X_source, X_target),
               predict(X) -> w_hat (Kanamori et al. 2009, closed-form leave-one-out)
bounds         bernstein_radius (Theorem 4), online_variance (20), online_radius (Theorem 6),
               uniform_mass_min_count (Theorem 5)
metrics        expected_calibration_error (l1-ECE, fixed-width bins), reliability_curve,
               plot_reliability_diagram (matplotlib, imported when called)
simulation     boostcm.calibration.synthetic: the Appendix D.4 data-generating process
"""

from .binning import (
    FixedWidthBinning,
    UniformMassBinning,
    assign_bins,
    fixed_width_edges,
    uniform_mass_edges,
)
from .bounds import (
    bernstein_radius,
    online_radius,
    online_variance,
    online_variance_path,
    uniform_mass_min_count,
)
from .histogram import (
    CalibrationGuarantee,
    HistogramBinning,
    WeightedHistogramBinning,
    relative_mass,
)
from .metrics import ReliabilityCurve, expected_calibration_error, reliability_curve
from .plotting import plot_reliability_diagram
from .ulsif import (
    PAPER_LAMBDAS,
    PAPER_SIGMAS,
    ULSIF,
    gaussian_kernel,
    ulsif_loo_scores,
    ulsif_solve,
)

__all__ = [
    "FixedWidthBinning",
    "UniformMassBinning",
    "assign_bins",
    "fixed_width_edges",
    "uniform_mass_edges",
    "bernstein_radius",
    "online_radius",
    "online_variance",
    "online_variance_path",
    "uniform_mass_min_count",
    "CalibrationGuarantee",
    "HistogramBinning",
    "WeightedHistogramBinning",
    "relative_mass",
    "ReliabilityCurve",
    "expected_calibration_error",
    "reliability_curve",
    "plot_reliability_diagram",
    "PAPER_LAMBDAS",
    "PAPER_SIGMAS",
    "ULSIF",
    "gaussian_kernel",
    "ulsif_loo_scores",
    "ulsif_solve",
]
