"""Verdict rules: does a computed table agree with what the published document says?

One public function per target family. Each takes the table the workflow computed (and the published
numbers where there are some) and returns a :class:`Verdict`: the status (``agrees`` or
``deviates``), a one-line summary, the rule in words with its numbers, JSON-serialisable details and,
where the rule was changed after its results were seen, a ``rule_history`` note saying so.

=========================  =====================================  ======================================
target                     function                               published claim
=========================  =====================================  ======================================
EB-T1, EB-T5               :func:`dataset_properties_verdict`     dataset counts (thesis Table 2.1,
                                                                  ExactBoost paper supp. Table 5)
EB-T3, EB-T4, EB-T6..T11   :func:`exactboost_table_verdict`       5-fold CV test losses beside the
                                                                  published cells; the captions' and
                                                                  the text's claims (thesis section
                                                                  2.3, EBP section 4, Supp. G)
EB-F1                      :func:`exactboost_margin_verdict`      loss falls with small margins and
                                                                  rises once the margin is too large
                                                                  (thesis Figure 2.1 = EBP Figure 1)
EB-F3                      :func:`exactboost_figure_verdict`      surrogates "generally worse than
                                                                  ExactBoost or statistically
                                                                  indistinguishable" (thesis Figure
                                                                  2.2 = EBP Figure 3)
EB-F2                      :func:`exactboost_landscape_verdict`   larger E: lower KS losses and
                                                                  smoother trajectories (EBP Figure 2
                                                                  = Supp. Figure 4, section H)
EB-T2                      :func:`timing_ratio_verdict`           ExactBoost faster than RankBoost and
                                                                  DMKS; TopPush faster but less precise
                                                                  (thesis Table 2.2 = EBP Table 2)
EB-TE                      :func:`timing_seconds_verdict`         seconds beside EBP Supp. section E
                                                                  (``built``)
HASH-T3.3, T3.4, T3.5      :func:`hashing_verdict`                recall and reduction ratio (thesis
                                                                  Tables 3.3-3.5)
CP-F1.1, CP-F4.1           :func:`coverage_verdict`               coverage above 89 % up to dependence
                                                                  0.99 (thesis Figures 1.1, 4.1)
CP-F4.2a                   :func:`correction_verdict`             correction converges to the iid limit
                                                                  (thesis Figure 4.2a)
CP-F4.2b                   :func:`bound_coverage_verdict`         coverage near 0.9 and above the
                                                                  Theorem 4.6 bound (thesis Figure 4.2b)
CP-F4.3                    :func:`financial_coverage_verdict`     marginal coverage slightly below 0.9,
                                                                  above 0.895 (thesis Figure 4.3)
CP-T4.1                    :func:`conditional_coverage_verdict`   coverage on events (thesis Table 4.1)
GUPTA-F2, GUPTA-F3         :func:`covariate_shift_verdict`        weighting calibrates under covariate
                                                                  shift, ignoring it is worse, (47) is
                                                                  worse (Gupta et al. App. D.4)
HASH-T3.1, T3.2            :func:`example_records_verdict`        the printed example rows are records
                                                                  of the datasets (``built``)
=========================  =====================================  ======================================

The numbers of every rule are the module constants below; notebooks only load, plot, call one of
these functions and write the verdict (:meth:`Verdict.write`).

Besides its own numbers, every verdict's ``details`` carries two lists the results site
(:mod:`boostcm.report.site`) renders:

* ``details["cells"]``: the comparison table, one record per cell, ``{"row", "column", "ours",
  "published", "agrees"}`` (numbers, None when missing; ``agrees`` a bool, or None when the rule
  does not judge that cell), optionally with ``relation`` (``">="`` when the published number is a
  threshold ours must reach), ``tolerance``, ``ours_sd``, ``published_sd`` and ``note``;
* ``details["claims"]``: the published claims checked one by one, ``{"claim", "holds",
  "evidence"}`` (``holds`` a bool, or None for a claim reported and not tested), optionally with
  ``sets_status`` (False for a claim reported beside the one that decides the status).

Every verdict JSON also records ``provenance["software"]``: the versions of :data:`SOFTWARE` (the
interpreter, numpy, scipy, pandas, scikit-learn, xgboost, numba, snakemake, boostcm) that wrote it
(:func:`software_versions`), which the site lists.
"""

from __future__ import annotations

from ._core import SOFTWARE, STATUSES, VERDICT_STATUSES, Verdict, software_versions, write_verdict
from .calibration import (
    SHIFT_CLAIM_LEVEL,
    SHIFT_CLAIMS,
    SHIFT_MIN_RUNS,
    SHIFT_PUBLISHED,
    SHIFT_RANGE_LEVEL,
    SHIFT_RULE,
    SHIFT_WORSE_RATIO,
    CovariateShiftCheck,
    ShiftClaim,
    ShiftMethod,
    covariate_shift_check,
    covariate_shift_verdict,
)
from .conformal import (
    CORRECTION_MODERATE_MAX,
    CORRECTION_RATIO_MAX,
    CORRECTION_RULE,
    CORRECTION_SETTINGS,
    COVERAGE_ALPHA,
    COVERAGE_LOW_THRESHOLD,
    COVERAGE_RULE,
    COVERAGE_THRESHOLD,
    EXTREME_DEPENDENCE,
    FAMILY_WISE_FALSE_ALARM,
    MODERATE_DEPENDENCE,
    POINTWISE_LEVEL,
    CorrectionCheck,
    CorrectionLevel,
    CoverageCheck,
    CoveragePoint,
    correction_check,
    correction_verdict,
    coverage_check,
    coverage_verdict,
    stopping_rule,
)
from .conformal_bounds import (
    BOUND_COVERAGE_RULE,
    MEAN_COVERAGE_TOLERANCE,
    BoundCoverageCheck,
    LevelCoverage,
    bound_coverage_check,
    bound_coverage_verdict,
)
from .datasets import (
    DATASET_RULE,
    POSITIVE_PCT_TOLERANCE,
    DatasetMatch,
    DatasetPropertiesCheck,
    check_dataset_properties,
    dataset_properties_verdict,
)
from .exactboost_figures import (
    EB_F2_ANGLE_TOL,
    EB_F2_LOSS_TOL,
    EB_F2_RULE,
    EB_F2_SE_FACTOR,
    EB_F3_RULE,
    EB_MARGIN_GRID,
    EB_MARGIN_RULE,
    EB_MARGIN_SE_FACTOR,
    EB_MARGIN_SMALL,
    ExactBoostFigureCheck,
    LandscapeCheck,
    MarginCheck,
    check_exactboost_figure,
    check_landscape,
    check_margin,
    exactboost_figure_verdict,
    exactboost_landscape_verdict,
    exactboost_margin_verdict,
    margin_curve_check,
)
from .exactboost_tables import (
    EB_CELL_RULE,
    EB_CELLS_AGREE,
    EB_CLAIM_RULE,
    EB_GENERALLY,
    EB_INPUTS_RULE,
    EB_PUBLISHED_FOLDS,
    EB_RANK_DECIMALS,
    EB_SE_FACTOR,
    EB_TOP_RANK,
    ExactBoostTableCheck,
    check_exactboost_table,
    exactboost_table_verdict,
)
from .exactboost_timing import (
    TIMING_RATIO_RULE,
    TIMING_SECONDS_RULE,
    TimingRatioCheck,
    check_timing_ratios,
    timing_ratio_verdict,
    timing_seconds_verdict,
)
from .financial import (
    EVENT_CLOSE,
    EVENT_IMPROVE_LEVEL,
    EVENT_PRIMARY_READING,
    EVENT_ROUNDING,
    EVENT_RULE,
    FINANCIAL_ALPHA,
    FINANCIAL_CAPTION_LEVEL,
    FINANCIAL_DRASTIC_DAY,
    FINANCIAL_MIN_DAY_POINTS,
    FINANCIAL_RULE,
    STRIDE_FAMILY_WISE,
    STRIDE_MARGIN,
    ConditionalCoverageCheck,
    EventCell,
    EventImprovement,
    FinancialCoverageCheck,
    SeriesCoverage,
    StrideComparison,
    conditional_coverage_check,
    conditional_coverage_verdict,
    financial_coverage_check,
    financial_coverage_verdict,
)
from .hashing import (
    HASH_RULE,
    HASH_SD_FACTOR,
    HASH_SLACK,
    RECORD_COLUMNS,
    RECORDS_RULE,
    ExampleRecordsCheck,
    HashingCheck,
    HashMethodCheck,
    HashValueCheck,
    RecordLookup,
    example_records_check,
    example_records_verdict,
    hashing_check,
    hashing_verdict,
)
from .quantile_surrogate import (
    QS_CELL_ROUNDING,
    QS_CELL_Z,
    QS_CHOSEN_COLUMNS,
    QS_CLAIM_LEVEL,
    QS_F1_BASELINE,
    QS_F1_LEVEL,
    QS_F1_MARGIN,
    QS_F1_MIN_SHARE,
    QS_F1_MIN_SPLITS,
    QS_F1_QUANTILE,
    QS_F1_RULE,
    QS_F2_MIN_GAIN,
    QS_F2_NEAR_BEST,
    QS_F2_PUBLISHED,
    QS_F2_RULE,
    QS_F2_START_RANGE,
    QS_METHODS,
    QS_MIN_CELL_SHARE,
    QS_MIN_SPLITS,
    QS_PUBLISHED_SPLITS,
    QS_TABLE_RULE,
    F1Rate,
    PrecisionAtRecallCheck,
    QSCell,
    QuantileF1Check,
    QuantileTableCheck,
    precision_at_recall_check,
    precision_at_recall_verdict,
    quantile_f1_check,
    quantile_f1_verdict,
    quantile_table_check,
    quantile_table_verdict,
)

__all__ = [
    "VERDICT_STATUSES",
    "STATUSES",
    "Verdict",
    "write_verdict",
    "SOFTWARE",
    "software_versions",
    "POSITIVE_PCT_TOLERANCE",
    "DATASET_RULE",
    "DatasetMatch",
    "DatasetPropertiesCheck",
    "check_dataset_properties",
    "dataset_properties_verdict",
    "EB_SE_FACTOR",
    "EB_PUBLISHED_FOLDS",
    "EB_CELLS_AGREE",
    "EB_GENERALLY",
    "EB_TOP_RANK",
    "EB_RANK_DECIMALS",
    "EB_CELL_RULE",
    "EB_CLAIM_RULE",
    "EB_INPUTS_RULE",
    "ExactBoostTableCheck",
    "check_exactboost_table",
    "exactboost_table_verdict",
    "EB_F2_SE_FACTOR",
    "EB_F2_LOSS_TOL",
    "EB_F2_ANGLE_TOL",
    "EB_MARGIN_SMALL",
    "EB_MARGIN_SE_FACTOR",
    "EB_MARGIN_GRID",
    "EB_F3_RULE",
    "ExactBoostFigureCheck",
    "check_exactboost_figure",
    "exactboost_figure_verdict",
    "EB_F2_RULE",
    "LandscapeCheck",
    "check_landscape",
    "exactboost_landscape_verdict",
    "margin_curve_check",
    "EB_MARGIN_RULE",
    "MarginCheck",
    "check_margin",
    "exactboost_margin_verdict",
    "TIMING_RATIO_RULE",
    "TIMING_SECONDS_RULE",
    "TimingRatioCheck",
    "check_timing_ratios",
    "timing_ratio_verdict",
    "timing_seconds_verdict",
    "HASH_SD_FACTOR",
    "HASH_SLACK",
    "hashing_verdict",
    "HASH_RULE",
    "HashingCheck",
    "HashMethodCheck",
    "HashValueCheck",
    "hashing_check",
    "RECORDS_RULE",
    "ExampleRecordsCheck",
    "RecordLookup",
    "example_records_check",
    "RECORD_COLUMNS",
    "example_records_verdict",
    "COVERAGE_ALPHA",
    "COVERAGE_THRESHOLD",
    "COVERAGE_LOW_THRESHOLD",
    "MODERATE_DEPENDENCE",
    "EXTREME_DEPENDENCE",
    "FAMILY_WISE_FALSE_ALARM",
    "POINTWISE_LEVEL",
    "CORRECTION_MODERATE_MAX",
    "CORRECTION_RATIO_MAX",
    "CORRECTION_SETTINGS",
    "COVERAGE_RULE",
    "CoveragePoint",
    "CoverageCheck",
    "coverage_check",
    "coverage_verdict",
    "stopping_rule",
    "CORRECTION_RULE",
    "CorrectionLevel",
    "CorrectionCheck",
    "correction_check",
    "correction_verdict",
    "MEAN_COVERAGE_TOLERANCE",
    "BOUND_COVERAGE_RULE",
    "LevelCoverage",
    "BoundCoverageCheck",
    "bound_coverage_check",
    "bound_coverage_verdict",
    "FINANCIAL_ALPHA",
    "FINANCIAL_CAPTION_LEVEL",
    "FINANCIAL_DRASTIC_DAY",
    "FINANCIAL_MIN_DAY_POINTS",
    "STRIDE_MARGIN",
    "STRIDE_FAMILY_WISE",
    "EVENT_CLOSE",
    "EVENT_ROUNDING",
    "EVENT_PRIMARY_READING",
    "EVENT_IMPROVE_LEVEL",
    "FINANCIAL_RULE",
    "SeriesCoverage",
    "StrideComparison",
    "FinancialCoverageCheck",
    "financial_coverage_check",
    "financial_coverage_verdict",
    "EVENT_RULE",
    "EventCell",
    "EventImprovement",
    "ConditionalCoverageCheck",
    "conditional_coverage_check",
    "conditional_coverage_verdict",
    "SHIFT_CLAIM_LEVEL",
    "SHIFT_RANGE_LEVEL",
    "SHIFT_WORSE_RATIO",
    "SHIFT_MIN_RUNS",
    "SHIFT_PUBLISHED",
    "SHIFT_CLAIMS",
    "SHIFT_RULE",
    "CovariateShiftCheck",
    "ShiftClaim",
    "ShiftMethod",
    "covariate_shift_check",
    "covariate_shift_verdict",
    "QS_METHODS",
    "QS_CELL_Z",
    "QS_CELL_ROUNDING",
    "QS_PUBLISHED_SPLITS",
    "QS_CLAIM_LEVEL",
    "QS_MIN_CELL_SHARE",
    "QS_MIN_SPLITS",
    "QS_TABLE_RULE",
    "QS_CHOSEN_COLUMNS",
    "QSCell",
    "QuantileTableCheck",
    "quantile_table_check",
    "quantile_table_verdict",
    "QS_F1_QUANTILE",
    "QS_F1_BASELINE",
    "QS_F1_LEVEL",
    "QS_F1_MARGIN",
    "QS_F1_MIN_SHARE",
    "QS_F1_MIN_SPLITS",
    "QS_F1_RULE",
    "F1Rate",
    "QuantileF1Check",
    "quantile_f1_check",
    "quantile_f1_verdict",
    "QS_F2_PUBLISHED",
    "QS_F2_MIN_GAIN",
    "QS_F2_NEAR_BEST",
    "QS_F2_START_RANGE",
    "QS_F2_RULE",
    "PrecisionAtRecallCheck",
    "precision_at_recall_check",
    "precision_at_recall_verdict",
]
