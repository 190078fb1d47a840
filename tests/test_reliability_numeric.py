"""Issue 16: offset and badly scaled design columns, and extreme values that overflowed.

A column x + c (a timestamp) or x * s spans the same model as x: its slope is the unshifted
slope / s, and the intercept, standard errors, hat values and sandwich covariance follow by
the exact affine transformation.  Before the fix the rank test on X'WX dropped x + 1e7 as
collinear (NaN coefficient), and 1e300-scaled columns or weights reached LAPACK as
"array must not contain infs or NaNs".  References: the unshifted fit, transformed exactly,
and statsmodels' GLM where its own (pinv-based) IRLS is accurate enough.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import DesignError, FmstatsError, WeightsError
from fmstats.glm import irls_logit

N = 500


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=N)
    g = rng.choice(["a", "b", "c"], size=N)
    z = rng.normal(size=N)
    eta = 0.3 + 1.2 * x - 0.5 * z + np.where(g == "b", 0.4, 0.0)
    y = (rng.random(N) < 1 / (1 + np.exp(-eta))).astype(float)
    return pd.DataFrame({"y": y, "x": x, "z": z, "g": g})


@pytest.fixture(scope="module")
def base(data):
    return fm.maxent("y ~ x", data)


def _fit_quietly(formula, d, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a CollinearityWarning (dropped column) fails
        return fm.maxent(formula, d, **kw)


def _shifted(base, offset, scale):
    """Coefficients and covariance of t = x * scale + offset from the fit on x: b_t = b_x / s,
    b_0' = b_0 - offset b_x / s, cov' = A cov A' with A = [[1, -offset / s], [0, 1 / s]]."""
    b0, b1 = base.params.to_numpy()
    A = np.array([[1.0, -offset / scale], [0.0, 1.0 / scale]])
    return np.array([b0 - offset * b1 / scale, b1 / scale]), A @ base.cov_params().to_numpy() @ A.T


OFFSETS = [1e3, 1e5, 1e7, 1e9]
SCALES = [1e-3, 1e-6, 1e-12, 1e-150]


@pytest.mark.parametrize("offset", OFFSETS)
def test_offset_column_slope_and_ses(data, base, offset):
    r = _fit_quietly("y ~ t", data.assign(t=data.x + offset))
    coef, cov = _shifted(base, offset, 1.0)
    np.testing.assert_allclose(r.params.to_numpy(), coef, rtol=1e-6)
    np.testing.assert_allclose(np.diag(r.cov_params().to_numpy()), np.diag(cov), rtol=1e-6)
    np.testing.assert_allclose(r.cov_params().to_numpy()[0, 1], cov[0, 1], rtol=1e-6)


@pytest.mark.parametrize("scale", SCALES)
def test_tiny_scale_column_slope_and_ses(data, base, scale):
    r = _fit_quietly("y ~ t", data.assign(t=data.x * scale))
    coef, cov = _shifted(base, 0.0, scale)
    np.testing.assert_allclose(r.params.to_numpy(), coef, rtol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(r.cov_params().to_numpy())),
                               np.sqrt(np.diag(cov)), rtol=1e-6)


@pytest.mark.parametrize("offset, scale", [(1.7e9, 86400.0), (1e7, 1e-3), (3.0, 1e-12),
                                           (1e-3, 1e-12)])
def test_offset_and_scale_together(data, offset, scale):
    """A Unix timestamp (seconds, days as unit), and offset tiny-scale columns.  x * 1e-12 + 3
    keeps only ~12 digits of x, so the reference is the fit on the x these t really hold,
    (t - offset) / scale (the subtraction is exact)."""
    t = data.x * scale + offset
    base = fm.maxent("y ~ x", data.assign(x=(t - offset) / scale))
    r = _fit_quietly("y ~ t", data.assign(t=t))
    coef, cov = _shifted(base, offset, scale)
    np.testing.assert_allclose(r.params.to_numpy()[1], coef[1], rtol=1e-6)
    np.testing.assert_allclose(r.params.to_numpy()[0], coef[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(r.cov_params().to_numpy())),
                               np.sqrt(np.diag(cov)), rtol=1e-6)


@pytest.mark.parametrize("offset", [1e3, 1e5, 1e7])
def test_offset_column_matches_statsmodels(data, offset):
    sm = pytest.importorskip("statsmodels.api")
    t = data.x + offset
    ref = sm.GLM(data.y, sm.add_constant(t), family=sm.families.Binomial()).fit(tol=1e-12)
    r = _fit_quietly("y ~ t", data.assign(t=t), tol=1e-12)
    np.testing.assert_allclose(r.params.to_numpy(), ref.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(r.tidy()["std_error"].to_numpy(), ref.bse.to_numpy(), rtol=1e-6)


@pytest.mark.parametrize("scale", [1e-3, 1e-12])
def test_scaled_column_matches_statsmodels(data, scale):
    sm = pytest.importorskip("statsmodels.api")
    t = data.x * scale + 2 * scale
    ref = sm.GLM(data.y, sm.add_constant(t), family=sm.families.Binomial()).fit(tol=1e-12)
    r = _fit_quietly("y ~ t", data.assign(t=t), tol=1e-12)
    np.testing.assert_allclose(r.params.to_numpy(), ref.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(r.tidy()["std_error"].to_numpy(), ref.bse.to_numpy(), rtol=1e-6)


@pytest.mark.parametrize("offset", [1e7, 1e9])
def test_offset_columns_among_others(data, offset):
    """Several terms (a factor, an offset and a tiny-scale column): the same model."""
    ref = fm.maxent("y ~ x + C(g) + z", data)
    r = _fit_quietly("y ~ t + C(g) + s", data.assign(t=data.x + offset, s=data.z * 1e-12))
    got = r.params.to_numpy()
    want = ref.params.to_numpy()
    np.testing.assert_allclose(got[1:3], want[1:3], rtol=1e-6)          # factor levels
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6)               # x slope
    np.testing.assert_allclose(got[4], want[4] * 1e12, rtol=1e-6)        # z slope
    se, se0 = r.tidy()["std_error"].to_numpy(), ref.tidy()["std_error"].to_numpy()
    np.testing.assert_allclose(se[1:4], se0[1:4], rtol=1e-6)
    np.testing.assert_allclose(se[4], se0[4] * 1e12, rtol=1e-6)


@pytest.mark.parametrize("offset", [1e7, 1e9])
@pytest.mark.parametrize("stat", ["hat", "HC0", "HC3", "predict"])
def test_downstream_quantities_unchanged_by_an_offset(data, base, offset, stat):
    r = _fit_quietly("y ~ t", data.assign(t=data.x + offset))
    if stat == "hat":
        np.testing.assert_allclose(r.hat.to_numpy(), base.hat.to_numpy(), rtol=1e-6)
    elif stat == "predict":
        np.testing.assert_allclose(r.predict().to_numpy(), base.predict().to_numpy(), rtol=1e-6)
    else:
        _, cov = _shifted(base, offset, 1.0)
        A = np.array([[1.0, -offset], [0.0, 1.0]])
        want = A @ base.cov_params(stat).to_numpy() @ A.T
        np.testing.assert_allclose(np.diag(r.cov_params(stat).to_numpy()), np.diag(want),
                                   rtol=1e-6)


@pytest.mark.parametrize("offset", [1e7, 1e9])
def test_irls_logit_core_is_accurate_for_offsets(data, offset):
    X0 = np.column_stack([np.ones(N), data.x])
    X = np.column_stack([np.ones(N), data.x + offset])
    f0, f = irls_logit(X0, data.y.to_numpy()), irls_logit(X, data.y.to_numpy())
    np.testing.assert_allclose(f.coef[1], f0.coef[1], rtol=1e-6)
    A = np.array([[1.0, -offset], [0.0, 1.0]])
    np.testing.assert_allclose(f.xtwx_inv, A @ f0.xtwx_inv @ A.T, rtol=1e-6)
    np.testing.assert_allclose(f.deviance, f0.deviance, rtol=1e-8)
    # a warm start in the original coordinates lands on the same fit
    f2 = irls_logit(X, data.y.to_numpy(), start=f.coef)
    np.testing.assert_allclose(f2.coef, f.coef, rtol=1e-6)


def test_bootstrap_keeps_an_offset_column(data):
    r = _fit_quietly("y ~ t", data.assign(t=data.x + 1e7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = fm.bootstrap(r, B=20, random_state=1, progress=False)
    reps = np.asarray(b.replicates)[:, :2] if hasattr(b, "replicates") else None
    tidy = b.tidy()
    assert np.all(np.isfinite(tidy["std_error"].to_numpy()[:2]))
    if reps is not None:
        assert np.all(np.isfinite(reps))


def test_predictors_scaled_by_1e300_raise_naming_the_column(data):
    with pytest.raises(DesignError, match=r"'t'.*1e\+150.*3\.\d+e\+300|'t'.*spreads"):
        fm.maxent("y ~ t", data.assign(t=data.x * 1e300))


def test_one_unsampled_1e300_value_is_named_too():
    """The spread check samples rows; X'WX overflowing sends it over every row."""
    rng = np.random.default_rng(3)
    n = 10_001
    d = pd.DataFrame({"y": (rng.random(n) < 0.5).astype(float), "x": rng.normal(size=n)})
    d.loc[4001, "x"] = 1e300                       # rows 0, 2, 4, ... are sampled
    with pytest.raises(DesignError, match=r"'x' spreads 5e\+299"):
        fm.maxent("y ~ x", d)


def test_core_with_1e300_column_raises_fmstats_error(data):
    X = np.column_stack([np.ones(N), data.x * 1e300])
    with pytest.raises(FmstatsError, match="column 1"):
        irls_logit(X, data.y.to_numpy())


@pytest.mark.parametrize("w", [1e300, 1e200])
def test_weights_of_1e300_raise_naming_weights_and_value(data, w):
    with pytest.raises(WeightsError, match=r"`weights`.*1e\+150.*1e\+(300|200)"):
        fm.maxent("y ~ x", data, weights=np.full(N, w))


def test_large_weights_within_range_fit_like_unit_weights(data, base):
    """Constant weights c only scale the information: same coefficients, SEs / sqrt(c)."""
    r = _fit_quietly("y ~ x", data, weights=np.full(N, 1e100))
    np.testing.assert_allclose(r.params.to_numpy(), base.params.to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(r.tidy()["std_error"].to_numpy(),
                               base.tidy()["std_error"].to_numpy() * 1e-50, rtol=1e-6)


@pytest.mark.parametrize("offset", [1e5, 1e7, 1e9])
def test_dask_path_refuses_an_offset_column_loudly(data, offset):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(DesignError, match="'t'.*offset"):
            fm.maxent("y ~ t", dd.from_pandas(data.assign(t=data.x + offset), npartitions=2))


@pytest.mark.parametrize("offset", [1e2, 1e3])
def test_dask_path_fits_moderate_offsets_like_memory(data, offset):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    d = data.assign(t=data.x + offset)
    with dask.config.set(scheduler="synchronous"):
        r = fm.maxent("y ~ t", dd.from_pandas(d, npartitions=2))
    m = fm.maxent("y ~ t", d)
    np.testing.assert_allclose(r.params.to_numpy(), m.params.to_numpy(), rtol=1e-8)
    for cov in ("nonrobust", "HC0"):
        np.testing.assert_allclose(np.diag(r.cov_params(cov)), np.diag(m.cov_params(cov)),
                                   rtol=1e-6)


@pytest.mark.parametrize("model", ["umaxent", "fmaxent"])
@pytest.mark.parametrize("offset", [1e7, 1e9])
def test_other_maxent_models_keep_an_offset_column(data, model, offset):
    from fmstats.maxent_models import fmaxent

    fit = {"umaxent": fm.umaxent, "fmaxent": fmaxent}[model]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = fit("y ~ x", data)
    r = _fit_quietly_model(fit, "y ~ t", data.assign(t=data.x + offset))
    np.testing.assert_allclose(r.params.to_numpy()[1], ref.params.to_numpy()[1], rtol=1e-6)
    np.testing.assert_allclose(r.tidy()["std_error"].to_numpy()[1],
                               ref.tidy()["std_error"].to_numpy()[1], rtol=1e-6)


def _fit_quietly_model(fit, formula, d):
    from fmstats.exceptions import CollinearityWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", CollinearityWarning)
        return fit(formula, d)
