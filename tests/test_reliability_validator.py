"""Issue 31, mechanism 1: one data validator for every path by which data become numbers.

Fit data, weights, new data, costsens, fsvm/wsvm and Dask partitions each get the rules of
``fmstats/formula/_checks.py``.  Every case below was silently wrong or a raw exception before
(the issue's list): each test names the argument, the rule and the value the error must carry,
or compares the correct result with an independent fit.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import fmstats as fm
from fmstats.exceptions import (DataError, DesignError, FormulaError, InvalidArgumentError,
                                WeightsError)


@pytest.fixture(scope="module")
def d():
    rng = np.random.default_rng(31)
    n = 200
    x1, x2 = rng.normal(size=(2, n))
    y = (rng.random(n) < 1 / (1 + np.exp(-0.4 - 0.6 * x1))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2,
                         "g": rng.choice(["a", "b", "c"], size=n)})


# ----------------------------------------------------------------------------- one-level factor
@pytest.mark.parametrize("term", ["g", "C(g)", "gc", "C(k)"])
@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_one_level_factor_is_an_error_as_in_r(d, term, engine):
    """R: 'contrasts can be applied only to factors with 2 or more levels'.  The silent fit
    dropped the term (a different model); the mutant that keeps one-level factors fits."""
    data = d.assign(g="a", gc=pd.Categorical(["a"] * len(d), categories=["a", "b"]), k=3)
    col = term.strip("C()")
    with pytest.raises(DataError, match=rf"column '{col}' of `data`.*single level.*two or more"):
        fm.maxent(f"y ~ x1 + {term}", data, engine=engine)


def test_factor_left_with_one_level_after_dropping_rows(d):
    data = d.assign(g=np.where(d.index < 5, "b", "a"), x1=np.where(d.index < 5, np.nan, d.x1))
    with pytest.warns(fm.exceptions.MissingDataWarning):
        with pytest.raises(DataError, match=r"column 'g'.*single level 'a'"):
            fm.maxent("y ~ x1 + g", data)


def test_two_level_factor_still_fits_like_statsmodels(d):
    data = d.assign(g=np.where(d.x2 > 0, "b", "a"))
    fit = fm.maxent("y ~ x1 + g", data)
    X = sm.add_constant(np.column_stack([data.x1, data.g == "b"]).astype(float))
    ref = sm.GLM(data.y, X, family=sm.families.Binomial()).fit(tol=1e-12)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-6)


# ----------------------------------------------------------------------------- dates
def test_timedelta_predictor_is_refused_with_a_unit_to_choose(d):
    data = d.assign(td=pd.to_timedelta(d.x1 * 1e3, unit="s"))
    with pytest.raises(DataError, match=r"column 'td' of `data` has dtype timedelta64.*"
                                        r"total_seconds"):
        fm.maxent("y ~ td", data)


def test_datetime_predictor_is_refused_without_numpy_text(d):
    data = d.assign(t=pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(d)), unit="D"))
    with pytest.raises(DataError, match=r"column 't' of `data` has dtype datetime64") as err:
        fm.maxent("y ~ x1 + t", data)
    assert "ufunc" not in str(err.value)


@pytest.mark.parametrize("how", ["column", "series", "array"])
@pytest.mark.parametrize("kind", ["datetime", "timedelta"])
def test_dates_as_weights_are_refused(d, how, kind):
    """A datetime64 column as weights became weights of ~1.6e15 (nanoseconds)."""
    t = (pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(d)), unit="D")
         if kind == "datetime" else pd.to_timedelta(np.arange(1, len(d) + 1), unit="D"))
    data = d.assign(t=t)
    w = {"column": "t", "series": data["t"], "array": data["t"].to_numpy()}[how]
    with pytest.raises(WeightsError, match=r"`weights.*has dtype (datetime|timedelta)64"):
        fm.maxent("y ~ x1", data, weights=w)


def test_date_in_newdata_where_numbers_were_fitted(d):
    fit = fm.maxent("y ~ x1", d)
    bad = d.assign(x1=pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(d)), "D"))
    with pytest.raises(DataError, match=r"column 'x1' of `newdata`"):
        fit.predict(bad)


# ----------------------------------------------------------------------------- names
@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_column_named_intercept_is_refused(d, engine):
    """Term names (Intercept, Intercept, x1) and .params raising IndexError before."""
    with pytest.raises(FormulaError, match=r"column 'Intercept' of `data`.*intercept term"):
        fm.maxent("y ~ Intercept + x1", d.assign(Intercept=d.x2), engine=engine)


@pytest.mark.parametrize("call", ["maxent", "umaxent", "predict", "wsvm"])
def test_multiindex_columns_are_refused_naming_the_argument(d, call):
    md = d.copy()
    md.columns = pd.MultiIndex.from_tuples([("r", "y"), ("a", "x1"), ("a", "x2"), ("b", "g")])
    arg = "newdata" if call == "predict" else "data"
    with pytest.raises(DataError, match=rf"`{arg}` has MultiIndex columns.*Flatten"):
        if call == "predict":
            fm.maxent("y ~ x1", d).predict(md)
        else:
            getattr(fm, call)("y ~ x1", md)


@pytest.mark.parametrize("formula", ["y ~ 0", "y ~ -1", "y ~ x1 - x1 - 1"])
def test_a_formula_without_terms_is_a_formula_error(d, formula):
    """'y ~ 0' raised ValueError('unexpected array size') from the IRLS core."""
    with pytest.raises(FormulaError, match=r"has no terms"):
        fm.maxent(formula, d)


# ----------------------------------------------------------------------------- magnitudes
@pytest.mark.parametrize("model", ["fsvm", "wsvm", "costsens", "maxent"])
def test_columns_of_1e300_are_refused_by_every_model(d, model):
    """fsvm accepted them with numpy's overflow warning; costsens raised numpy's 'array must
    not contain infs or NaNs'."""
    with pytest.raises(DesignError, match=r"design column 'x1' spreads 2\.\d+e\+300"):
        getattr(fm, model)("y ~ x1", d.assign(x1=d.x1 * 1e300))


def test_predict_se_on_huge_newdata_is_an_error_not_nan(d):
    """SEs were NaN and the interval (0, 1), with a numpy RuntimeWarning."""
    fit = fm.maxent("y ~ x1", d)
    with pytest.raises(DesignError, match=r"'x1' of `newdata` holds values as large as 2\.\d+e"):
        fit.predict(d.assign(x1=d.x1 * 1e300), se_fit=True, interval="confidence")
    ok = fit.predict(d.assign(x1=d.x1 * 1e100), se_fit=True)      # within range: finite
    assert np.all(np.isfinite(ok["se_fit"]))


@pytest.mark.parametrize("value", ["yes", 1, None, np.array([True])])
def test_se_fit_must_be_a_bool(d, value):
    fit = fm.maxent("y ~ x1", d)
    with pytest.raises(InvalidArgumentError, match="`se_fit` must be True or False"):
        fit.predict(d, se_fit=value)


# ----------------------------------------------------------------------------- Dask partitions
@pytest.fixture
def sync_dask():
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="synchronous"):
        yield


def _parts(d, change):
    """A Dask DataFrame of two partitions of ``d``, the second changed by ``change``, with the
    meta of ``d`` (as dd.from_delayed with verify_meta=False builds it)."""
    import dask
    import dask.dataframe as dd

    def ident(x):
        return x

    return dd.from_delayed([dask.delayed(ident)(d.iloc[:100]),
                            dask.delayed(ident)(change(d.iloc[100:].copy()))],
                           meta=d.iloc[:0], verify_meta=False)


def test_dask_partition_of_another_float_width_fits_like_memory(d, sync_dask):
    """A float32 partition raised dask's KeyError('pop from an empty set')."""
    def f32(p):
        p["x1"] = p["x1"].astype("float32")
        return p

    ref = fm.maxent("y ~ x1", pd.concat([d.iloc[:100], f32(d.iloc[100:].copy())]))
    fit = fm.maxent("y ~ x1", _parts(d, f32))
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)


@pytest.mark.parametrize("col", ["y", "x1"])
def test_dask_text_partition_is_reported_against_data_and_partition(d, sync_dask, col):
    """A string y raised KeyError('resp_out'); a bad training partition was called newdata."""
    def text(p):
        p[col] = p[col].astype(str)
        return p

    with pytest.raises(DataError, match=rf"column '{col}' of `data` \(partition 1\) has dtype "
                                        r"(str|object).*meta declares"):
        fm.maxent("y ~ x1", _parts(d, text))


def test_dask_date_column_in_the_meta_is_refused(d, sync_dask):
    import dask.dataframe as dd

    data = d.assign(t=pd.to_timedelta(d.x1, unit="s"))
    with pytest.raises(DataError, match=r"column 't' of `data` has dtype timedelta64"):
        fm.maxent("y ~ t", dd.from_pandas(data, npartitions=2))


@pytest.mark.parametrize("shape, order", [((1000, 7), "C"), ((256 * 3 + 17, 4), "C"),
                                          ((100, 3), "C"), ((900, 5), "F")])
def test_column_extremes_equal_numpy(shape, order):
    """The validator's fast column min/max (rows viewed as blocks) is numpy's, NaN included."""
    from fmstats.formula._checks import column_extremes

    rng = np.random.default_rng(sum(shape))
    X = np.asarray(rng.standard_cauchy(size=shape), order=order)
    X[-1, 0] = 1e300                       # the last rows (outside the blocks) count too
    X[shape[0] // 2, -1] = np.nan
    hi, lo = column_extremes(X)
    np.testing.assert_array_equal(hi, X.max(axis=0))
    np.testing.assert_array_equal(lo, X.min(axis=0))


def test_design_extremes_gathered_while_stacking_equal_numpy():
    """The extremes the formula builder gathers on the engine's columns (ints, booleans,
    floats with NaN and inf, nullable floats) are numpy's on the stacked design."""
    from fmstats.formula._frame import _row_major

    rng = np.random.default_rng(5)
    n = 20_000                                     # more than two stacking blocks
    x = rng.standard_normal(n)
    x[n - 3], x[7] = np.nan, -np.inf
    frame = pd.DataFrame({"i": rng.integers(-10**12, 10**12, n), "b": rng.random(n) < 0.5,
                          "x": x, "u": rng.integers(0, 3, n).astype(np.uint8),
                          "f": pd.array(rng.standard_normal(n), dtype="Float64")})
    X, (hi, lo) = _row_major(frame)
    np.testing.assert_array_equal(X, frame.to_numpy(dtype=float, na_value=np.nan))
    np.testing.assert_array_equal(hi, X.max(axis=0))
    np.testing.assert_array_equal(lo, X.min(axis=0))
    assert np.isnan(hi[2]) and np.isnan(lo[2])
