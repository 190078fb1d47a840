"""Issue 16 (inputs): dtypes of data columns, aligned weights, and clear errors for bad input.

Each case names the silent-wrong result or raw exception it replaces; coefficients are compared
with the fit on the plain numpy-dtype column.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import FmstatsError, ResultsFileWarning


@pytest.fixture
def d80():
    rng = np.random.default_rng(16)
    n = 80
    x = rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-0.3 - 1.1 * x))).astype(int)
    return pd.DataFrame({"y": y, "x": x, "k": np.round(x * 3), "g": g,
                         "w": rng.integers(1, 5, size=n).astype(float)})


# ------------------------------------------------------------------ truncated pickle

@pytest.mark.parametrize("cut", [0, 0.5])
def test_load_of_a_truncated_pickle_is_an_fmstats_error(d80, tmp_path, cut):
    # a plain pickle is read only with trusted=True (issues 33 and 39)
    fit = fm.maxent("y ~ x", d80)
    blob = pickle.dumps(fit, protocol=pickle.HIGHEST_PROTOCOL)
    path = tmp_path / "fit.pkl"
    path.write_bytes(blob[: int(len(blob) * cut)])
    with pytest.raises(FmstatsError, match=r"`path`.*(not a complete|plain pickle)"):
        type(fit).load(path)
    with pytest.raises(FmstatsError, match=r"`path`.*not a complete"), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResultsFileWarning)
        type(fit).load(path, trusted=True)


# ------------------------------------------------------------------ numbers stored as objects

from fmstats.exceptions import (  # noqa: E402
    DataError,
    DataWarning,
    InvalidArgumentError,
    MissingDataWarning,
    UnseenLevelError,
    WeightsError,
)


def _coef(fit):
    return fit.params.to_numpy()


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_object_column_of_numbers_is_numeric_with_a_note(d80, engine):
    base = fm.maxent("y ~ x", d80, engine=engine)
    with pytest.warns(DataWarning, match=r"column 'x' of `data` has dtype object"):
        fit = fm.maxent("y ~ x", d80.assign(x=d80.x.astype(object)), engine=engine)
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


@pytest.mark.parametrize("values", [
    pytest.param(lambda x: [int(v) for v in x], id="python-int"),
    pytest.param(lambda x: [np.float32(v) if i % 2 else float(v) for i, v in enumerate(x)],
                 id="mixed-float-types"),
    pytest.param(lambda x: [int(v) if i % 2 else float(v) for i, v in enumerate(x)],
                 id="int-and-float"),
])
def test_object_numbers_of_any_python_type_are_numeric(d80, values):
    base = fm.maxent("y ~ k", d80)
    col = pd.Series(values(d80.k), index=d80.index, dtype=object)
    with pytest.warns(DataWarning, match="'k'"):
        fit = fm.maxent("y ~ k", d80.assign(k=col))
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-10)


def test_object_numbers_with_none_are_missing_values(d80):
    col = d80.x.astype(object)
    col[[3, 7]] = None
    col[5] = pd.NA
    with pytest.warns(DataWarning, match="'x'"), \
            pytest.warns(MissingDataWarning, match="3 of 80"):
        fit = fm.maxent("y ~ x", d80.assign(x=col))
    base = fm.maxent("y ~ x", d80.drop(index=[3, 5, 7]))
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


def test_object_column_of_numbers_as_the_response(d80):
    base = fm.maxent("y ~ x", d80)
    with pytest.warns(DataWarning, match="'y'"):
        fit = fm.maxent("y ~ x", d80.assign(y=d80.y.astype(object)))
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


# C(k) on these 80 rows has levels holding one class only: quasi-separated fits, which warn
# since issue 31 (the dtype handling is what these tests check)
@pytest.mark.filterwarnings("ignore::fmstats.exceptions.SeparationWarning")
def test_object_numbers_in_C_stay_a_factor_with_the_integer_levels(d80):
    base = fm.maxent("y ~ C(k)", d80.assign(k=d80.k.astype(int)))
    fit = fm.maxent("y ~ C(k)", d80.assign(k=d80.k.astype(int).astype(object)))
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-10)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_one_stray_string_in_a_numeric_object_column_raises(d80, engine):
    col = d80.x.astype(object)
    col[3] = "oops"
    with pytest.raises(DataError, match=r"column 'x' of `data`.*mostly numbers.*'oops'"):
        fm.maxent("y ~ x", d80.assign(x=col), engine=engine)


def test_one_stray_string_in_a_text_column_of_numbers_raises(d80):
    col = d80.x.astype(str)
    col[3] = "n.a."
    with pytest.raises(DataError, match=r"column 'x' of `data`.*'n.a.'"):
        fm.maxent("y ~ x", d80.assign(x=col))


def test_text_column_of_numbers_with_a_level_per_row_warns(d80):
    from fmstats.formula import model_frame

    with pytest.warns(DataWarning, match=r"column 'x'.*reads as numbers.*80 levels"):
        mf = model_frame("y ~ x", d80.assign(x=d80.x.astype(str)))
    assert mf.X.shape == (80, 80)  # still R's reading of text: a factor


def test_coded_text_levels_stay_a_factor_without_a_note(d80):
    codes = np.where(d80.k < 0, "0", np.where(d80.k < 2, "1", "2+"))
    fit = fm.maxent("y ~ c", d80.assign(c=codes))
    assert list(fit.params.index) == ["Intercept", "c[T.1]", "c[T.2+]"]


# C(k) on these 80 rows has levels holding one class only: quasi-separated fits, which warn
# since issue 31 (the dtype handling is what these tests check)
@pytest.mark.filterwarnings("ignore::fmstats.exceptions.SeparationWarning")
def test_stray_strings_in_a_factor_call_are_levels(d80):
    col = d80.k.astype(int).astype(object)
    col[3] = "none"
    fit = fm.maxent("y ~ C(k)", d80.assign(k=col))
    assert "C(k)[T.none]" in fit.params.index


# ------------------------------------------------------------------ pandas nullable dtypes

@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
@pytest.mark.parametrize("col, nullable, numpy_dtype", [
    ("k", "Int64", "int64"), ("x", "Float64", "float64"), ("b", "boolean", "bool"),
    ("g", "string", "str"),
])
def test_nullable_dtypes_fit_like_numpy_dtypes(d80, engine, col, nullable, numpy_dtype):
    d = d80.assign(b=d80.x > 0, k=d80.k.astype(int))
    rhs = f"{col} + x" if col != "x" else "x + k"
    base = fm.maxent(f"y ~ {rhs}", d.assign(**{col: d[col].astype(numpy_dtype)}), engine=engine)
    fit = fm.maxent(f"y ~ {rhs}", d.assign(**{col: d[col].astype(nullable)}), engine=engine)
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)
    np.testing.assert_allclose(fit.predict(d.assign(**{col: d[col].astype(nullable)})),
                               base.predict(d), rtol=1e-12)


# C(k) on these 80 rows has levels holding one class only: quasi-separated fits, which warn
# since issue 31 (the dtype handling is what these tests check)
@pytest.mark.filterwarnings("ignore::fmstats.exceptions.SeparationWarning")
@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_factor_of_a_nullable_integer(d80, engine):
    d = d80.assign(k=d80.k.astype(int))
    base = fm.maxent("y ~ C(k)", d, engine=engine)
    fit = fm.maxent("y ~ C(k)", d.assign(k=d.k.astype("Int64")), engine=engine)
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-10)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
@pytest.mark.parametrize("col, nullable", [("k", "Int64"), ("x", "Float64"), ("b", "boolean"),
                                           ("g", "string")])
def test_pd_NA_is_missing_like_NaN(d80, engine, col, nullable):
    d = d80.assign(b=d80.x > 0, k=d80.k.astype(int))
    rhs = "x + k + b + g"
    na = d.assign(**{col: d[col].astype(nullable)})
    na.loc[[4, 9], col] = pd.NA
    with pytest.warns(MissingDataWarning, match=f"2 of 80.*{col}: 2"):
        fit = fm.maxent(f"y ~ {rhs}", na, engine=engine)
    base = fm.maxent(f"y ~ {rhs}", d.drop(index=[4, 9]), engine=engine)
    assert fit.nobs == 78
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_unused_categories_are_dropped_like_text_levels(d80, engine):
    base = fm.maxent("y ~ g + x", d80, engine=engine)
    cat = pd.Categorical(d80.g, categories=["z", "a", "b", "c", "w"])
    fit = fm.maxent("y ~ g + x", d80.assign(g=cat), engine=engine)
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)
    # new data with the full categories predicts; a row of an unused category is unseen
    np.testing.assert_allclose(fit.predict(d80.assign(g=cat)), base.predict(d80), rtol=1e-12)
    with pytest.raises(UnseenLevelError, match="'z'"):
        fit.predict(d80.assign(g=cat).iloc[:3].assign(
            g=pd.Categorical(["z", "a", "b"], categories=cat.categories)))


# ------------------------------------------------------------------ weights as a Series

def test_weights_series_is_aligned_on_the_index(d80):
    w = d80.w
    shuffled = w.sample(frac=1.0, random_state=3)
    base = fm.maxent("y ~ x", d80, weights=w.to_numpy())
    fit = fm.maxent("y ~ x", d80, weights=shuffled)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


def test_weights_series_with_extra_labels_uses_the_matching_ones(d80):
    base = fm.maxent("y ~ x", d80.iloc[10:], weights=d80.w.iloc[10:].to_numpy())
    fit = fm.maxent("y ~ x", d80.iloc[10:], weights=d80.w)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


def test_weights_series_after_dropped_rows(d80):
    d = d80.copy()
    d.loc[[2, 5], "x"] = np.nan
    shuffled = d.w.sample(frac=1.0, random_state=4)
    with pytest.warns(MissingDataWarning):
        base = fm.maxent("y ~ x", d, weights="w")
    with pytest.warns(MissingDataWarning):
        fit = fm.maxent("y ~ x", d, weights=shuffled)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


@pytest.mark.parametrize("index", [
    pytest.param(lambda i: i + 1000, id="disjoint"),
    pytest.param(lambda i: i[:-3], id="three-missing"),
])
def test_weights_series_missing_labels_raises(d80, index):
    idx = index(d80.index)
    w = pd.Series(np.ones(len(idx)), index=idx)
    with pytest.raises(WeightsError, match=r"`weights`.*missing from its index"):
        fm.maxent("y ~ x", d80, weights=w)


def test_weights_series_with_nullable_dtype_and_NA(d80):
    w = d80.w.astype("Int64")
    base = fm.maxent("y ~ x", d80, weights=d80.w.to_numpy())
    np.testing.assert_allclose(_coef(fm.maxent("y ~ x", d80, weights=w)), _coef(base),
                               rtol=1e-12)
    w[4] = pd.NA
    with pytest.raises(WeightsError, match="`weights` must be finite"):
        fm.maxent("y ~ x", d80, weights=w)


@pytest.mark.filterwarnings("ignore::fmstats.exceptions.DegenerateFitWarning")
@pytest.mark.parametrize("model", ["wsvm", "fsvm"])
def test_svm_weights_series_is_aligned_on_the_index(d80, model):
    f = getattr(fm, model)
    shuffled = d80.w.sample(frac=1.0, random_state=5)
    base = f("y ~ x", d80, weights=d80.w.to_numpy())
    fit = f("y ~ x", d80, weights=shuffled)
    np.testing.assert_allclose(fit.params.to_numpy(), base.params.to_numpy(), rtol=1e-10)
    with pytest.raises(WeightsError, match="missing from its index"):
        f("y ~ x", d80, weights=pd.Series(d80.w.to_numpy(), index=d80.index + 1))


# ------------------------------------------------------------------ raw exceptions

@pytest.mark.parametrize("model", ["maxent", "umaxent", "wsvm"])
def test_weights_naming_a_text_column(d80, model):
    with pytest.raises(WeightsError, match=r"`weights \(column 'g'\)` must be numeric.*'a'"):
        getattr(fm, model)("y ~ x", d80, weights="g")


@pytest.mark.parametrize("start, match", [
    ([0.0, np.nan], r"`start` must be finite.*'x'"),
    ([0.0, np.inf], r"`start` must be finite.*'x'"),
    ([0.0, 1.0, 2.0], r"`start` must have one value per coefficient \(2"),
    ([[0.0, 1.0]], r"`start` must have one value per coefficient"),
    ([[0.0], [1.0, 2.0]], r"`start` must be numeric"),  # ragged: numpy's ValueError before
    ({"a": 1}, r"`start` must"),
    ("ab", r"`start` must be numeric"),
])
def test_bad_start_is_an_invalid_argument(d80, start, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fm.maxent("y ~ x", d80, start=start)


def test_start_from_params_with_an_aliased_column(d80):
    import warnings

    from fmstats.exceptions import CollinearityWarning

    d = d80.assign(x2=2 * d80.x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CollinearityWarning)
        first = fm.maxent("y ~ x + x2", d)
        assert np.isnan(first.params["x2"])
        again = fm.maxent("y ~ x + x2", d, start=first.params)
    np.testing.assert_allclose(_coef(again)[:2], _coef(first)[:2], rtol=1e-8)


@pytest.mark.parametrize("model", ["maxent", "wsvm"])
def test_duplicated_column_names(d80, model):
    d = pd.concat([d80[["y", "x"]], d80[["x"]]], axis=1)
    with pytest.raises(DataError, match=r"`data` must have unique column names.*'x' \(2 times\)"):
        getattr(fm, model)("y ~ x", d)


def test_duplicated_unused_column_is_harmless(d80):
    d = pd.concat([d80[["y", "x"]], d80[["g", "g"]]], axis=1)
    np.testing.assert_allclose(_coef(fm.maxent("y ~ x", d)), _coef(fm.maxent("y ~ x", d80)))


def test_duplicated_columns_in_newdata(d80):
    fit = fm.maxent("y ~ x", d80)
    with pytest.raises(DataError, match=r"`newdata` must have unique column names"):
        fit.predict(pd.concat([d80[["x"]], d80[["x"]]], axis=1))


@pytest.mark.parametrize("call", [
    pytest.param(lambda d: fm.wsvm("y ~ 1", d), id="wsvm"),
    pytest.param(lambda d: fm.fsvm("y ~ 1", d), id="fsvm"),
    pytest.param(lambda d: fm.costsens("y ~ 1", d, learner="svm"), id="costsens-svm"),
])
def test_svm_without_predictors(d80, call):
    with pytest.raises(InvalidArgumentError, match="predictor"):
        call(d80)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_predict_with_text_where_numbers_were_fitted(d80, engine):
    fit = fm.maxent("y ~ x + g", d80, engine=engine)
    with pytest.raises(DataError, match=r"column 'x' of `newdata` must be numeric"):
        fit.predict(d80.assign(x=d80.x.astype(str)))
    with pytest.raises(DataError, match=r"column 'x' of `newdata` must be numeric"):
        fit.predict(d80.assign(x=pd.Categorical(np.round(d80.x))))


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_predict_on_object_numbers_matches(d80, engine):
    fit = fm.maxent("y ~ x + g", d80, engine=engine)
    with pytest.warns(DataWarning, match="column 'x' of `newdata`"):
        p = fit.predict(d80.assign(x=d80.x.astype(object)))
    np.testing.assert_allclose(p, fit.predict(d80), rtol=1e-14)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_engine_errors_on_newdata_are_fmstats_errors(d80, engine):
    # formulaic encodes a boolean column as a number, so text there used to leak its
    # FactorEncodingError from predict(); patsy encodes it as a factor (unseen level)
    fit = fm.maxent("y ~ x + b", d80.assign(b=d80.x > 0.3), engine=engine)
    with pytest.raises(FmstatsError, match="`newdata`"):
        fit.predict(d80.assign(b=np.where(d80.x > 0.3, "yes", "no")))


def test_measure_on_newdata_with_an_object_response(d80):
    fit = fm.maxent("y ~ x", d80)
    with pytest.warns(DataWarning, match="column 'y' of `newdata`"):
        f_obj = fit.measure(d80.assign(y=d80.y.astype(float).astype(object)))
    assert f_obj == pytest.approx(fit.measure(d80), rel=1e-14)


@pytest.mark.parametrize("dtype", ["Int64", "boolean", "Float64"])
def test_nullable_response_fits_like_numpy(d80, dtype):
    y = d80.y.astype(bool) if dtype == "boolean" else d80.y
    base = fm.maxent("y ~ x", d80)
    fit = fm.maxent("y ~ x", d80.assign(y=y.astype(dtype)))
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)


@pytest.mark.filterwarnings("ignore::fmstats.exceptions.FmstatsWarning")
@pytest.mark.parametrize("model", ["umaxent", "fmaxent"])
def test_weights_series_is_aligned_for_every_maxent_model(d80, model):
    f = getattr(fm, model)
    base = f("y ~ x", d80, weights=d80.w.to_numpy())
    fit = f("y ~ x", d80, weights=d80.w.sample(frac=1.0, random_state=6))
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-10)


# ------------------------------------------------------------------ the same rules out of core

def _ddf(df, n=3):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(df, npartitions=n, sort=False)


@pytest.fixture
def sync_dask():
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture
def keep_objects():
    """Dask turns object columns into strings by default (dataframe.convert-string)."""
    dask = pytest.importorskip("dask")
    with dask.config.set({"dataframe.convert-string": False}):
        yield


def test_dask_object_column_of_numbers_is_numeric(d80, sync_dask, keep_objects):
    base = fm.maxent("y ~ x + g", d80)
    with pytest.warns(DataWarning, match="column 'x' of `data` has dtype object") as rec:
        fit = fm.maxent("y ~ x + g", _ddf(d80.assign(x=d80.x.astype(object))))
    assert sum(issubclass(r.category, DataWarning) for r in rec) == 1  # once, not per partition
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-8)


def test_dask_object_column_of_numbers_made_text_by_dask_warns(d80, sync_dask):
    import warnings

    from fmstats.exceptions import FmstatsWarning

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", FmstatsWarning)
        try:  # a level per row: the fit itself may fail, after the note
            fm.maxent("y ~ x", _ddf(d80.assign(x=d80.x.astype(object))))
        except FmstatsError:
            pass
    notes = [str(r.message) for r in rec if issubclass(r.category, DataWarning)]
    assert any("column 'x' of `data` holds text that reads as numbers" in m for m in notes)


@pytest.mark.parametrize("objects", [True, False], ids=["object", "text"])
def test_dask_stray_string_raises(d80, sync_dask, objects):
    dask = pytest.importorskip("dask")
    col = d80.x.astype(object)
    col[3] = "oops"
    with dask.config.set({"dataframe.convert-string": not objects}), \
            pytest.raises(DataError, match=r"column 'x' of `data`.*'oops'"):
        fm.maxent("y ~ x", _ddf(d80.assign(x=col)))


def test_dask_numbers_in_some_partitions_text_in_others_raises(d80, sync_dask, keep_objects):
    col = d80.x.astype(object)
    col[:20] = [f"t{i}" for i in range(20)]  # the first of 4 partitions is all text
    with pytest.raises(DataError, match=r"column 'x' of `data` holds numbers in some partitions"):
        fm.maxent("y ~ x", _ddf(d80.assign(x=col), 4))


def test_dask_unused_categories_are_dropped(d80, sync_dask):
    base = fm.maxent("y ~ g + x", d80)
    cat = pd.Categorical(d80.g, categories=["z", "a", "b", "c", "w"])
    fit = fm.maxent("y ~ g + x", _ddf(d80.assign(g=cat)))
    assert list(fit.params.index) == list(base.params.index)
    np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-8)


def test_dask_duplicated_column_names(d80, sync_dask):
    d = pd.concat([d80[["y", "x"]], d80[["x"]]], axis=1)
    with pytest.raises(DataError, match="unique column names"):
        fm.maxent("y ~ x", _ddf(d))


def test_weights_naming_a_duplicated_column(d80):
    d = pd.concat([d80, d80[["w"]]], axis=1)
    with pytest.raises(WeightsError, match=r"`weights` names column 'w', which appears 2 times"):
        fm.maxent("y ~ x", d, weights="w")


def test_weights_column_of_nullable_or_object_numbers(d80):
    base = fm.maxent("y ~ x", d80, weights="w")
    for col in (d80.w.astype("Float64"), d80.w.astype(object)):
        fit = fm.maxent("y ~ x", d80.assign(w=col), weights="w")
        np.testing.assert_allclose(_coef(fit), _coef(base), rtol=1e-12)
