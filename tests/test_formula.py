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


# --------------------------------------------------------------------------- R's ^ and log

ENGINES = ("formulaic", "patsy")


@pytest.mark.parametrize("engine", ENGINES)
def test_caret_inside_I_is_power_as_in_r(synth, engine):
    r = model_frame("y ~ x1 + I(x2^2) + I(x1^3 - 2^-1)", synth, engine=engine)
    py = model_frame("y ~ x1 + I(x2**2) + I(x1**3 - 2**-1)", synth, engine=engine)
    assert r.column_names == py.column_names
    np.testing.assert_array_equal(r.X, py.X)   # exact: the rewrite is the same expression
    # the independent reference: the powers computed by numpy on the columns
    x1, x2 = synth["x1"].to_numpy(), synth["x2"].to_numpy()
    j = r.column_names.index("I(x2 ** 2)")
    np.testing.assert_allclose(r.X[:, j], np.square(x2), rtol=1e-15)
    j = [i for i, c in enumerate(r.column_names) if c.startswith("I(x1 ** 3")]
    assert len(j) == 1  # (formulaic prints 2 ** (-1), patsy 2 ** -1)
    np.testing.assert_allclose(r.X[:, j[0]], x1 ** 3 - 0.5, rtol=1e-14)


@pytest.mark.parametrize("engine", ENGINES)
def test_caret_on_terms_expands_interactions_as_in_r(synth, engine):
    """R: (x1 + x2 + g)^2 = main effects and every two-way interaction (no three-way)."""
    r = model_frame("y ~ (x1 + x2 + g)^2", synth, engine=engine)
    py = model_frame("y ~ (x1 + x2 + g)**2", synth, engine=engine)
    spelt = model_frame("y ~ x1 + x2 + g + x1:x2 + x1:g + x2:g", synth, engine=engine)
    assert r.column_names == py.column_names
    np.testing.assert_array_equal(r.X, py.X)   # exact: the rewrite is the same expression
    assert sorted(r.column_names) == sorted(spelt.column_names)
    # R's model.matrix(~ (x1 + x2 + g)^2) has 1 + 1 + 1 + 2 + 1 + 2 + 2 = 10 columns
    assert len(r.column_names) == 10
    assert not any(c.count(":") > 1 for c in r.column_names)
    order = [spelt.column_names.index(c) for c in r.column_names]
    # exact: copies of columns, 0/1 dummies and single products of the same two columns
    np.testing.assert_array_equal(r.X, spelt.X[:, order])


@pytest.mark.parametrize("engine", ENGINES)
def test_r_log_is_natural_log_and_other_r_functions(synth, engine):
    d = synth.assign(z=np.exp(synth["x1"]))
    mf = model_frame("y ~ log(z) + log(z, 10) + sqrt(z) + log1p(z) + abs(x2)", d, engine=engine)
    z = d["z"].to_numpy()
    expected = {"log(z)": np.log(z), "log(z, 10)": np.log10(z), "sqrt(z)": np.sqrt(z),
                "log1p(z)": np.log1p(z), "abs(x2)": np.abs(d["x2"].to_numpy())}
    for name, values in expected.items():
        np.testing.assert_allclose(mf.X[:, mf.column_names.index(name)], values, rtol=1e-13)
    np.testing.assert_allclose(mf.X[:, mf.column_names.index("log(z)")], d["x1"], rtol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_caret_in_strings_and_backquotes_is_left_alone(engine):
    d = pd.DataFrame({"y": [0, 1, 0, 1, 1, 0], "s": ["a^b", "c", "a^b", "c", "c", "a^b"],
                      "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    mf = model_frame('y ~ I(s == "a^b") + I(x^2)', d, engine=engine)
    col = [c for c in mf.column_names if "a^b" in c]
    assert len(col) == 1
    np.testing.assert_array_equal(mf.X[:, mf.column_names.index(col[0])],
                                  (d["s"] == "a^b").to_numpy(float))
    # exact: squares of the integers 1-6
    np.testing.assert_array_equal(mf.X[:, mf.column_names.index("I(x ** 2)")], d["x"] ** 2)


def test_r_power_rewrite_unit():
    from fmstats.formula._rsyntax import r_power

    assert r_power("a + b") == "a + b"
    assert r_power("(a+b)^2 + I(x^2)") == "(a+b)**2 + I(x**2)"
    assert r_power("I(s == 'x^y') + `odd^name` + I(t == \"p\\\"^q\")") == \
        "I(s == 'x^y') + `odd^name` + I(t == \"p\\\"^q\")"


def test_caret_in_response_expression(synth):
    mf = model_frame("I(x1^2 > 1) ~ x2", synth)
    np.testing.assert_array_equal(mf.response.y, (synth["x1"] ** 2 > 1).to_numpy(float))


@pytest.mark.parametrize("engine", ENGINES)
def test_issue_formula_fits_and_predicts_on_new_data(engine):
    """The formula of issue 17 fits; prediction on new rows re-applies the stored design
    (and survives pickling), equal to the Python spelling of the same model."""
    import warnings

    titanic = fm.datasets.load_titanic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.MissingDataWarning)
        r = fm.maxent("survived ~ sex + log(fare + 1) + I(age^2)", titanic, engine=engine)
        py = fm.maxent("survived ~ sex + np.log(fare + 1) + I(age**2)", titanic, engine=engine)
    np.testing.assert_allclose(r.params.to_numpy(), py.params.to_numpy(), rtol=1e-12)
    assert "I(age ** 2)" in r.params.index
    new = titanic.dropna(subset=["age", "fare"]).iloc[::7]
    p = pickle.loads(pickle.dumps(r)).predict(new, type="link")
    x = np.column_stack([np.ones(len(new)), (new["sex"] == "male").to_numpy(float),
                         np.log(new["fare"].to_numpy() + 1), new["age"].to_numpy() ** 2])
    np.testing.assert_allclose(p.to_numpy(), x @ r.params[["Intercept", "sex[T.male]",
                                                            "log(fare + 1)", "I(age ** 2)"]]
                               .to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(p.to_numpy(), py.predict(new, type="link").to_numpy(), rtol=1e-12)
