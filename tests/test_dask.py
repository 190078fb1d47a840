"""Out-of-core fits on Dask: the chunked IRLS core and maxent/umaxent/fmaxent on Dask DataFrames.

Every fit runs on a 2-worker LocalCluster and is compared with the in-memory fit of the same
data (itself checked against R and statsmodels in test_maxent_reference.py / test_irls.py),
and the core once directly against statsmodels.
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
pytest.importorskip("dask.distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import statsmodels.api as sm  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats.exceptions import (CollinearityWarning, ConvergenceWarning, DataError,  # noqa: E402
                                InvalidArgumentError, MissingDataError, MissingDataWarning,
                                ResponseError, UnseenLevelError, WeightsError)
from fmstats.maxent_models._fmaxent import fmaxent  # noqa: E402
from fmstats.glm import irls_logit_dask  # noqa: E402
from fmstats.glm import irls_logit  # noqa: E402
from fmstats.maxent_models._maxent import MaxentResults  # noqa: E402

RTOL = 1e-10


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    n = 1200
    x1, x2 = rng.normal(size=(2, n))
    g = rng.choice(["a", "b", "c"], size=n)
    eta = -0.8 + 0.9 * x1 - 0.6 * x2 + np.select([g == "b", g == "c"], [0.5, -0.4], 0.0)
    p = 1 / (1 + np.exp(-eta))
    y = (rng.random(n) < p).astype(int)
    q = np.clip(rng.beta(8 * p + 0.1, 8 * (1 - p) + 0.1), 0, 1)
    yes = rng.binomial(4, q)
    df = pd.DataFrame({"x1": x1, "x2": x2, "x3": 2 * x1, "g": g, "k": rng.integers(1, 4, n),
                       "y": y, "q": q, "w": rng.integers(1, 4, n).astype(float), "yes": yes,
                       "no": 4 - yes})
    df.loc[[3, 500, 901], "x2"] = np.nan
    return df


def _ddf(df, npartitions=4):
    return dd.from_pandas(df, npartitions=npartitions)


def _fit_both(fn, formula, df, *warns, **kwargs):
    """The in-memory and the Dask fit, each expected to emit the given warnings."""
    out = []
    for d in (df, _ddf(df)):
        ctx = [pytest.warns(w) for w in warns]
        for c in ctx:
            c.__enter__()
        out.append(fn(formula, d, **kwargs))
        for c in reversed(ctx):
            c.__exit__(None, None, None)
    return out


def _summary_body(res, **kwargs) -> str:
    return "\n".join(line for line in str(res.summary(**kwargs)).splitlines()
                     if "data = <" not in line)


# ----------------------------------------------------------------------------- the core

@pytest.fixture(scope="module")
def arrays():
    rng = np.random.default_rng(5)
    n, p = 5000, 6
    X = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    mu = 1 / (1 + np.exp(-X @ np.array([-0.5, 1.0, -0.7, 0.3, 0.0, 0.4])))
    y = (rng.random(n) < mu).astype(float)
    q = np.clip(mu + rng.normal(0, 0.15, n), 0, 1)
    w = rng.uniform(0.2, 3.0, n)
    return X, y, q, w


@pytest.mark.parametrize("response", ["y", "q"])
@pytest.mark.parametrize("variant", [{}, {"penalty": np.r_[0.0, np.full(5, 4.0)],
                                          "start": np.full(6, 0.3)}])
def test_core_equals_irls_logit(client, arrays, response, variant):
    X, y, q, w = arrays
    t = y if response == "y" else q
    ref = irls_logit(X, t, w, **variant)
    chunks = (1300,)  # uneven blocks: 1300, 1300, 1300, 1100
    got = irls_logit_dask(da.from_array(X, chunks=chunks + (6,)), da.from_array(t, chunks=chunks),
                          da.from_array(w, chunks=chunks), **variant)
    np.testing.assert_allclose(got.coef, ref.coef, rtol=RTOL)
    np.testing.assert_allclose(got.xtwx_inv, ref.xtwx_inv, rtol=RTOL)
    assert got.iterations == ref.iterations and got.converged == ref.converged
    np.testing.assert_allclose(got.history, ref.history, rtol=RTOL)
    assert got.deviance == pytest.approx(ref.deviance, rel=RTOL)
    assert got.null_deviance == pytest.approx(ref.null_deviance, rel=RTOL)
    assert got.loglik == pytest.approx(ref.loglik, rel=RTOL)
    assert got.passes == got.iterations + 1  # a pass per accepted step, no halving needed


def test_core_matches_statsmodels_without_persisting(client, arrays):
    X, y, _, w = arrays
    got = irls_logit_dask(da.from_array(X, chunks=(2000, 3)), y, w, tol=1e-14, max_iter=100,
                          persist=False)
    ref = sm.GLM(y, X, family=sm.families.Binomial(), var_weights=w).fit(tol=1e-14, maxiter=100)
    np.testing.assert_allclose(got.coef, ref.params, rtol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(got.xtwx_inv)), ref.bse, rtol=1e-8)
    assert got.deviance == pytest.approx(ref.deviance, rel=1e-12)


def test_core_step_halving_from_a_bad_start(client, arrays):
    X, y, _, w = arrays
    start = np.array([4.0, -5, 5, -5, 5, -5])
    ref = irls_logit(X, y, w, start=start)
    got = irls_logit_dask(da.from_array(X, chunks=(1000, 6)), y, w, start=start)
    assert (ref.history[:, 1] < 1).any()  # the case exercises step-halving
    np.testing.assert_allclose(got.history, ref.history, rtol=RTOL)
    np.testing.assert_allclose(got.coef, ref.coef, rtol=RTOL)
    assert got.passes > got.iterations + 1


# ----------------------------------------------------------------------------- models

CASES = {
    "maxent weights factors missing collinear": (
        fm.maxent, "y ~ x1 + x2 + x3 + g * x1 + C(k)", (MissingDataWarning, CollinearityWarning),
        {"weights": "w"}),
    "umaxent probabilistic labels": (
        fm.umaxent, "q ~ x1 + x2 + g", (MissingDataWarning,), {"weights": "w", "cov_type": "HC1"}),
    "maxent cbind votes, ridge": (
        fm.maxent, "cbind(yes, no) ~ x1 + g", (), {"penalty": 3.0}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_models_equal_in_memory_fit(client, data, case):
    fn, formula, warns, kwargs = CASES[case]
    mem, ooc = _fit_both(fn, formula, data, *warns, **kwargs)
    assert type(ooc) is type(mem) is MaxentResults  # one results class, in memory or not
    np.testing.assert_allclose(ooc.params, mem.params, rtol=RTOL)  # NaN where aliased, in both
    for cov_type in ("nonrobust", "HC0", "HC1", "HC2", "HC3"):
        np.testing.assert_allclose(ooc._se(cov_type), mem._se(cov_type), rtol=RTOL)
    for attr in ("deviance", "null_deviance", "llf", "dispersion", "pearson_chi2"):
        assert getattr(ooc, attr) == pytest.approx(getattr(mem, attr), rel=RTOL), attr
    for attr in ("iterations", "converged", "nobs", "n_ok", "df_resid", "df_null", "n_dropped"):
        assert getattr(ooc, attr) == getattr(mem, attr), attr
    assert (ooc.aic is None) == (mem.aic is None)
    assert ooc.measure() == pytest.approx(mem.measure(), rel=1e-12)
    for dep in ("correlated", "independent"):
        assert ooc.noisy_f(dependence=dep) == pytest.approx(mem.noisy_f(dependence=dep), rel=1e-12)
    # the text rounds to a few significant digits: fits equal to 1e-10 print alike (no number
    # sits on a rounding boundary)
    assert _summary_body(ooc) == _summary_body(mem)


def test_fmaxent_equal_in_memory_fit(client, data):
    # three outer iterations keep the test short; the loop stops unconverged in both fits
    # (the default covariances out of core: tests/test_dask_workflow.py)
    kwargs = {"weights": "w", "alpha": 0.3, "max_outer": 3, "cov_type": "HC0"}
    mem, ooc = _fit_both(fmaxent, "y ~ x1 + x2 + g", data, MissingDataWarning, ConvergenceWarning,
                         **kwargs)
    np.testing.assert_allclose(ooc.params, mem.params, rtol=RTOL)
    assert (ooc.cov_type, mem.cov_type) == ("HC0", "HC0")
    np.testing.assert_allclose(ooc.bse, mem.bse, rtol=1e-9)
    pd.testing.assert_frame_equal(ooc.history, mem.history, rtol=RTOL)
    # an index: the targets it is chosen from agree to 1e-10 (above) and differ by > 0.01
    assert ooc.best_iteration == mem.best_iteration
    assert ooc.fweights_range == pytest.approx(mem.fweights_range, rel=RTOL)
    assert ooc.llf == pytest.approx(mem.llf, rel=RTOL)
    assert _summary_body(ooc) == _summary_body(mem, cov_type="HC0")


@pytest.mark.slow
@pytest.mark.parametrize("formula, kwargs", [
    ("y ~ x1 + x2 + g", {"alpha": 0.3, "penalty": 1.0}),  # the ridge keeps it from separating
    ("q ~ x1 + x2 + g", {"alpha": 0.4}),
    # the raw weights (6.9) amplify round-off about 10x per outer iteration (see
    # test_fmaxent.py), so this case runs without the default shrinkage, whose column
    # variances are summed chunk by chunk out of core: any 1e-16 difference in the inputs
    # would grow to 3e-8 by iteration 13
    ("q ~ x1 + x2 + g", {"alpha": 0.6, "inner": "step", "epsilon": None,
                         "weight_bounds": (0.1, 10), "max_outer": 30, "shrinkage": 0.0}),
])
def test_fmaxent_to_convergence_equals_in_memory_fit(client, data, formula, kwargs):
    df = data.dropna()
    kwargs = {**kwargs, "cov_type": "HC0"}     # the fits' equality (default SEs: test_dask_workflow)
    mem, ooc = fmaxent(formula, df, "w", **kwargs), fmaxent(formula, _ddf(df), "w", **kwargs)
    np.testing.assert_allclose(ooc.params, mem.params, rtol=RTOL)
    pd.testing.assert_frame_equal(ooc.history, mem.history, rtol=RTOL)
    # the sharp-model note counts rows within 1e-8 of 0 or 1 in memory, and rows numerically
    # 0 or 1 (R's rule, all an out-of-core fit keeps) on Dask: compare the rest
    def body(res, **kw):
        return [line for line in _summary_body(res, **kw).splitlines()
                if not line.startswith("Note: ")]
    assert body(ooc) == body(mem, cov_type="HC0")


# ----------------------------------------------------------------------------- results

@pytest.fixture(scope="module")
def ooc_fit(client, data):
    df = data.dropna()
    return fm.maxent("y ~ x1 + x2 + g", _ddf(df), weights="w"), fm.maxent("y ~ x1 + x2 + g", df,
                                                                         weights="w")


def test_pickle_keeps_no_data(ooc_fit):
    ooc, _ = ooc_fit
    blob = pickle.dumps(ooc)
    assert len(blob) < 30_000  # no collection, no graph, no future
    assert b"dask." not in blob and b"distributed" not in blob
    back = pickle.loads(blob)
    pd.testing.assert_frame_equal(back.tidy(), ooc.tidy())
    assert str(back.summary()) == str(ooc.summary())


def test_row_level_quantities_raise_clearly(ooc_fit):
    ooc, _ = ooc_fit
    for attr in ("fitted_values", "hat", "weights"):
        with pytest.raises(DataError, match=f"{attr} is not available .* out of core"):
            getattr(ooc, attr)
    with pytest.raises(DataError, match="resid"):
        ooc.resid()
    with pytest.raises(DataError, match="pass the Dask DataFrame"):
        ooc.predict()
    with pytest.raises(DataError, match="counted at 0.5"):
        ooc.measure(threshold=0.3)


def test_predictions_and_measures_on_new_dask_data(ooc_fit, data):
    ooc, mem = ooc_fit
    test = data.iloc[::2]
    with pytest.warns(MissingDataWarning):
        # a lazy Dask series holds the rows it predicts (issue 42: in memory, rows with
        # missing values are NaN in place unless na_action="omit")
        expected = mem.predict(test, type="link", na_action="omit")
    got = ooc.predict(_ddf(test, 3), type="link")
    assert isinstance(got, dd.Series)
    pd.testing.assert_series_equal(got.compute(), expected, rtol=1e-12)
    # 0/1 labels: no probability lies within the paths' 1e-12 of the threshold
    pd.testing.assert_series_equal(ooc.predict(_ddf(test, 3), type="class").compute(),
                                   mem.predict(test.dropna(), type="class"))
    n_missing = int(test.isna().any(axis=1).sum())
    assert n_missing >= 1
    with pytest.warns(MissingDataWarning, match=f"dropped {n_missing} row"):
        conf = ooc.confusion(_ddf(test, 3), threshold=0.3)
    # exact: sums of the integer weights 1-3 (no probability within rounding of a threshold),
    # and F of equal counts is the same arithmetic
    assert conf == mem.confusion(test.dropna(), threshold=0.3)
    assert ooc.measure(threshold=0.5) == mem.measure()
    pd.testing.assert_frame_equal(ooc.predict(test.dropna()).to_frame(),
                                  mem.predict(test.dropna()).to_frame())


def test_refit_on_dask_data(ooc_fit, data):
    ooc, mem = ooc_fit
    half = data.dropna().iloc[:600]
    np.testing.assert_allclose(ooc.refit(_ddf(half, 2)).params, mem.refit(half).params, rtol=RTOL)


# ----------------------------------------------------------------------------- levels and data

def _lying_meta_frame(extra_level_partition: int):
    rng = np.random.default_rng(3)

    def part(i):
        cats = ["a", "b", "c"] + (["d"] if i == extra_level_partition else [])
        g = pd.Categorical(rng.choice(cats, 100), categories=cats)
        return pd.DataFrame({"x": rng.normal(size=100), "g": g, "y": rng.integers(0, 2, 100)})

    return dd.from_map(part, [0, 1, 2], meta=part(0).iloc[:0])


def test_unknown_category_in_a_later_partition_raises(client):
    with pytest.raises(UnseenLevelError, match="column 'g' of partition 2 .* level 'd'"):
        fm.maxent("y ~ x + g", _lying_meta_frame(2))


def test_unseen_level_in_new_dask_data_raises_when_computed(ooc_fit, data):
    ooc, _ = ooc_fit
    new = data.dropna().iloc[:300].copy()
    new.iloc[250, new.columns.get_loc("g")] = "zz"
    lazy = ooc.predict(_ddf(new, 3))
    with pytest.raises(UnseenLevelError, match="column 'g' .* level 'zz'"):
        lazy.compute()


def test_categorical_levels_come_from_the_dtype_like_in_memory(client, data):
    df = data.dropna().assign(g=lambda d: pd.Categorical(d["g"], categories=["c", "a", "b"]))
    mem, ooc = _fit_both(fm.maxent, "y ~ x1 + g", df)
    assert list(ooc.params.index) == list(mem.params.index) == ["Intercept", "x1", "g[T.a]",
                                                                 "g[T.b]"]
    np.testing.assert_allclose(ooc.params, mem.params, rtol=RTOL)


def test_partition_without_complete_rows(client, data):
    df = data.dropna().iloc[:800].copy()
    df.iloc[200:400, df.columns.get_loc("x1")] = np.nan  # partition 2 of 4 loses every row
    mem, ooc = _fit_both(fm.maxent, "y ~ x1 + g", df, MissingDataWarning)
    assert ooc.n_dropped == mem.n_dropped == 200
    np.testing.assert_allclose(ooc.params, mem.params, rtol=RTOL)


def test_nullable_string_columns_are_factors(data):
    # Dask's text columns are pandas' NA-backed "string" dtype, which formulaic 1.2 mistook
    df = data.dropna()
    a = fm.maxent("y ~ x1 + g", df.assign(g=df["g"].astype("string")))
    b = fm.maxent("y ~ x1 + g", df.assign(g=df["g"].astype(object)))
    np.testing.assert_allclose(a.params, b.params, rtol=1e-13)
    assert list(a.params.index) == ["Intercept", "x1", "g[T.b]", "g[T.c]"]


@pytest.mark.parametrize("formula, kwargs, error, match", [
    ("y ~ center(x1)", {}, InvalidArgumentError, "stateful transform center"),
    ("y ~ x1", {"weights": np.ones(1200)}, InvalidArgumentError, "must name a column"),
    ("y ~ x1", {"weights": "nope"}, WeightsError, "'nope'"),
    ("q ~ x1", {}, ResponseError, "Use umaxent"),
    ("y ~ x1 + x2", {"missing": "raise"}, MissingDataError, "x2: 3"),
    ("I(x1 > 10) ~ x1", {}, ResponseError, "single class"),
    ("y ~ C(k + 1)", {}, InvalidArgumentError, "categorical but not a column"),
])
def test_bad_input(client, data, formula, kwargs, error, match):
    with pytest.raises(error, match=match):
        fm.maxent(formula, _ddf(data), **kwargs)


def test_negative_weight_is_named(client, data):
    df = data.dropna().assign(w=lambda d: d["w"].where(d.index != 700, -2.0))
    with pytest.raises(WeightsError, match=r"non-negative; got 1 value.* row 700 \(-2\)"):
        fm.maxent("y ~ x1", _ddf(df), weights="w")
