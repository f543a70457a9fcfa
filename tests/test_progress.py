"""Progress bars of the long library calls: silent by default, a tqdm bar on stderr with verbose.

The workflow's logs get nothing (verbose=False is the default); a notebook user asking for
verbose=True sees a bar; the results are the same either way.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_calibration_experiment import TINY

from boostcm._progress import progress
from boostcm.exactboost import ExactBoostClassifier
from boostcm.experiments.calibration import simulate_chunk
from boostcm.experiments.conformal import simulate_coverage


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _exactboost(verbose, n_jobs=None):
    X, y = _data()
    est = ExactBoostClassifier(
        n_estimators=3, n_rounds=2, random_state=0, verbose=verbose, n_jobs=n_jobs
    )
    return est.fit(X, y).decision_function(X)


def _coverage(verbose):
    return simulate_coverage(
        "ar1",
        0.5,
        "boosting",
        range(3),
        seed=1,
        n_lags=3,
        n_train=60,
        n_cal=20,
        n_test=1,
        alpha=0.1,
        finite_sample_correction=False,
        model_params={"n_estimators": 5},
        verbose=verbose,
    )


def _calibration(verbose):
    return simulate_chunk([0, 1], seed=3, settings=TINY, verbose=verbose)[0]


def test_progress_off_returns_the_iterable_itself():
    items = [3, 1, 2]
    assert progress(items, verbose=False) is items
    assert list(progress(items, verbose=True)) == items


@pytest.mark.parametrize(
    "call, same",
    [
        (_exactboost, np.testing.assert_array_equal),
        (lambda v: _exactboost(v, n_jobs=2), np.testing.assert_array_equal),
        (_coverage, lambda a, b: a.equals(b) or pytest.fail("coverage tables differ")),
        (
            _calibration,
            lambda a, b: (
                a.drop(columns=[c for c in a if "time" in c]).equals(
                    b.drop(columns=[c for c in b if "time" in c])
                )
                or pytest.fail("calibration runs differ")
            ),
        ),
    ],
    ids=["exactboost", "exactboost-threads", "conformal-simulations", "calibration-runs"],
)
def test_silent_by_default_a_bar_on_stderr_with_verbose(call, same, capfd):
    quiet = call(False)
    out, err = capfd.readouterr()
    assert out == "" and err == "", "verbose=False must write nothing"
    loud = call(True)
    out, err = capfd.readouterr()
    assert out == ""
    assert "it/s" in err or "s/it" in err, f"no progress bar on stderr: {err!r}"
    same(quiet, loud)
