"""What a conformal simulation job imports (D146): the job fits the quantile models through their
scikit-learn-free cores and evaluates the normal cdf and the t quantile with scipy.special, so it
loads neither scikit-learn nor scipy.stats; the cores and the special functions give the public
estimators' and scipy.stats' numbers bit for bit."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy.special import ndtr, stdtrit
from scipy.stats import norm
from scipy.stats import t as student_t

import boostcm.conformal
from boostcm.conformal import make_quantile_model, split_cqr
from boostcm.conformal._quantile_core import make_quantile_core

SIMULATE_JOB = textwrap.dedent(
    """
    import json, sys
    from boostcm.cli import main
    rc = main([
        "conformal", "simulate", "--process", sys.argv[1], "--param", "0.7", "--model", sys.argv[2],
        "--first", "0", "--count", "1", "--seed", "3", "--n-lags", "3", "--n-train", "60",
        "--n-cal", "30", "--n-test", "2", "--alpha", "0.2", "--out", sys.argv[3],
    ])
    heavy = ("sklearn", "scipy.stats", "matplotlib")
    print(json.dumps({"rc": rc, "loaded": [m for m in heavy if m in sys.modules]}))
    """
)


@pytest.mark.parametrize("process, model", [("ar1", "boosting"), ("hmm", "forest")])
def test_simulate_job_loads_neither_sklearn_nor_scipy_stats(tmp_path, process, model):
    out = tmp_path / "chunk.parquet"
    proc = subprocess.run(
        [sys.executable, "-c", SIMULATE_JOB, process, model, str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = proc.stdout.strip().splitlines()[-1]
    assert result == '{"rc": 0, "loaded": []}', result
    assert out.stat().st_size > 0


def test_conformal_package_exports_every_public_name_lazily():
    """Importing the package or one of its submodules loads no scikit-learn; every name of
    ``__all__`` resolves to the object of its submodule, and unknown names raise."""
    code = textwrap.dedent(
        """
        import sys
        import boostcm.conformal
        import boostcm.conformal.processes
        assert "sklearn" not in sys.modules, "sklearn loaded by the package"
        from boostcm.conformal import *  # noqa: F403
        assert "sklearn" in sys.modules
        print("ok")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]
    for name in boostcm.conformal.__all__:
        value = getattr(boostcm.conformal, name)
        module = sys.modules[f"boostcm.conformal.{boostcm.conformal._EXPORTS[name]}"]
        assert value is getattr(module, name), name
    assert set(boostcm.conformal._EXPORTS) == set(boostcm.conformal.__all__)
    assert set(boostcm.conformal.__all__) <= set(dir(boostcm.conformal))
    with pytest.raises(AttributeError, match="no_such_name"):
        boostcm.conformal.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    "name, params",
    [
        ("boosting", dict(n_estimators=15)),
        ("forest", dict(n_estimators=8)),
        ("network", dict(hidden=(8, 4), epochs=3)),
    ],
)
def test_core_gives_the_estimators_intervals_bit_for_bit(name, params):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(260, 4))
    y = X[:, 0] + rng.standard_t(3, size=260)
    results = [
        split_cqr(make(name, alpha=0.2, random_state=11, **params), X, y, 150, 80, 0.2)
        for make in (make_quantile_model, make_quantile_core)
    ]
    for field in ("lower", "upper", "threshold"):
        a, b = (np.asarray(getattr(r, field)) for r in results)
        assert a.tobytes() == b.tobytes(), field
    # the core checks its parameters as the estimator does
    with pytest.raises(ValueError, match="n_estimators"):
        make_quantile_core("forest", n_estimators=0).fit(X, y)


def test_special_functions_are_scipy_stats_bit_for_bit():
    """norm.cdf is ndtr and t.ppf is stdtrit (what the simulation and the precision rule use)."""
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(scale=s, size=2000) for s in (0.5, 3.0, 1e3, 1e-3)])
    x = np.concatenate([x, [0.0, -0.0, 40.0, -40.0, np.inf, -np.inf]])
    assert ndtr(x).tobytes() == norm.cdf(x).tobytes()
    df = np.arange(1, 5001)
    for level in (0.5, 0.9, 0.95, 0.99, 0.999, 0.123456789):
        q = 0.5 + level / 2
        assert stdtrit(df, q).tobytes() == student_t.ppf(q, df).tobytes(), level
        assert stdtrit(7, q) == student_t.ppf(q, 7)
