"""The formula layer: both engines, responses, design re-application, errors."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import (
    FormulaError,
    MissingDataError,
    ResponseError,
    UnseenLevelError,
)
from fmstats.formula import formula_names, model_frame, split_formula


@pytest.mark.parametrize("rhs", ["x1 + x2", "x1 * g", "C(g) + np.log(x1 ** 2)",
                                 "factor(w) * g + center(x2)", "x1 + I(x2 ** 2) - 1"])
def test_engines_agree_by_column_name(synth, rhs):
    a = model_frame(f"y ~ {rhs}", synth, engine="formulaic")
    b = model_frame(f"y ~ {rhs}", synth, engine="patsy")
    assert sorted(a.column_names) == sorted(b.column_names)
    order = [b.column_names.index(c) for c in a.column_names]
    np.testing.assert_allclose(a.X, b.X[:, order], rtol=1e-13)


def test_factor_is_r_spelling_of_C(synth):
    a = model_frame("y ~ factor(w)", synth)
    assert a.column_names == ("Intercept", "factor(w)[T.2]", "factor(w)[T.3]")


@pytest.mark.parametrize("lhs, kind", [("y", "binary"), ("q", "probability"),
                                       ("cbind(yes, no)", "counts"), ("I(x1 > 0)", "binary")])
def test_response_kinds(synth, lhs, kind):
    mf = model_frame(f"{lhs} ~ x2", synth)
    assert mf.response.kind == kind
    if kind == "counts":
        np.testing.assert_allclose(mf.response.y, synth["yes"] / 4)
        np.testing.assert_allclose(mf.response.trials, 4)


def test_spec_rebuilds_and_pickles(synth):
    for engine in ("formulaic", "patsy"):
        mf = model_frame("y ~ center(x1) + C(g):x2", synth, engine=engine)
        spec = pickle.loads(pickle.dumps(mf.spec))
        X, idx = spec.build(synth.iloc[50:60])
        np.testing.assert_allclose(X, mf.X[50:60], rtol=1e-13)
        assert list(idx) == list(range(50, 60))


def test_unseen_level_names_column_and_level(synth):
    mf = model_frame("y ~ C(w) + g", synth)
    with pytest.raises(UnseenLevelError, match=r"column 'w' .* level 7"):
        mf.spec.build(synth.iloc[:3].assign(w=7))


def test_newdata_missing_values(synth):
    mf = model_frame("y ~ x1", synth)
    with pytest.raises(MissingDataError, match="x1: 1"):
        mf.spec.build(synth.iloc[:3].assign(x1=[1.0, np.nan, 2.0]))


def test_parsing_helpers():
    assert split_formula("cbind(a, b) ~ x + y") == ("cbind(a, b)", "x + y")
    assert formula_names("C(g) * np.log(x) + `odd name`") == ["odd name", "g", "x"]
    for bad in ("y x", "~ x", "y ~ "):
        with pytest.raises(FormulaError):
            split_formula(bad)


def test_cbind_errors(synth):
    with pytest.raises(FormulaError, match="exactly two"):
        model_frame("cbind(yes) ~ x1", synth)
    with pytest.raises(ResponseError, match="non-negative"):
        model_frame("cbind(yes, no) ~ x1", synth.assign(no=-1))


def test_unknown_function_is_a_formula_error(synth):
    with pytest.raises(FormulaError, match="frobnicate|could not build"):
        model_frame("y ~ frobnicate(x1)", synth)


def test_dot_means_every_other_column_as_in_r():
    """R's '.' excludes the response; checked against statsmodels with the columns spelt out."""
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(5)
    d = pd.DataFrame({"y": rng.integers(0, 2, 120), "a": rng.normal(size=120),
                      "b c": rng.normal(size=120), "g": rng.choice(list("xyz"), 120)})
    ref = smf.logit('y ~ a + Q("b c") + g', d).fit(disp=0).params
    for engine in ("formulaic", "patsy"):
        r = fm.maxent("y ~ .", d, engine=engine)
        assert "y" not in r.params.index
        np.testing.assert_allclose(np.sort(r.params.to_numpy()), np.sort(ref.to_numpy()),
                                   rtol=1e-7, atol=1e-9)
    assert "a" not in fm.maxent("y ~ . - a", d).params.index
    with pytest.raises(FormulaError, match="no column besides"):
        fm.maxent("y ~ .", d[["y"]])
