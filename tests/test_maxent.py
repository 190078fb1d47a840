"""Behaviour of maxent()/umaxent(): equivalences, prediction, summaries, pickling, bad input."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import fmstats as fm
from fmstats.exceptions import (
    CollinearityWarning, DataError, DesignError, FormulaError, InvalidArgumentError,
    MissingDataError, MissingDataWarning, ResponseError, SeparationWarning, UnseenLevelError,
    WeightsError,
)

F = "y ~ x1 + x2 + g"


# --------------------------------------------------------------------------- equivalences
def test_frequency_weights_equal_duplicated_rows(synth):
    # different start values (R's mustart depends on w): compare the optima, so iterate to 1e-13
    weighted = fm.maxent(F, synth, weights="w", tol=1e-13)
    dup = synth.loc[synth.index.repeat(synth["w"])].reset_index(drop=True)
    plain = fm.maxent(F, dup, tol=1e-13)
    np.testing.assert_allclose(weighted.params, plain.params, rtol=1e-9)
    np.testing.assert_allclose(weighted.bse, plain.bse, rtol=1e-9)
    assert weighted.deviance == pytest.approx(plain.deviance, rel=1e-10)
    assert weighted.aic == pytest.approx(plain.aic, rel=1e-10)
    assert weighted.measure() == pytest.approx(plain.measure(), rel=1e-12)


def test_uncertain_labels_all_01_equal_certain_model(synth):
    certain = fm.maxent(F, synth)
    uncertain = fm.umaxent(F, synth, dispersion=1.0)
    np.testing.assert_allclose(uncertain.params, certain.params, rtol=1e-10)
    np.testing.assert_allclose(uncertain.bse, certain.bse, rtol=1e-10)
    assert uncertain.noisy_f() == pytest.approx(fm.noisy_f(synth["y"], certain.fitted_values))


def test_row_order_does_not_matter(synth):
    a = fm.umaxent("q ~ x1 + x2 + g", synth, weights="w")
    perm = synth.sample(frac=1.0, random_state=3)
    b = fm.umaxent("q ~ x1 + x2 + g", perm, weights="w")
    np.testing.assert_allclose(a.params, b.params, rtol=1e-10)
    np.testing.assert_allclose(a._se("HC3"), b._se("HC3"), rtol=1e-10)
    np.testing.assert_allclose(a.fitted_values.sort_index(), b.fitted_values.sort_index(),
                               rtol=1e-10)


def test_cbind_equals_expanded_bernoulli_rows(synth):
    counts = fm.maxent("cbind(yes, no) ~ x1 + x2", synth)
    long = pd.concat([synth.assign(v=1).loc[synth.index.repeat(synth["yes"])],
                      synth.assign(v=0).loc[synth.index.repeat(synth["no"])]])
    bern = fm.maxent("v ~ x1 + x2", long)
    np.testing.assert_allclose(counts.params, bern.params, rtol=1e-9)
    np.testing.assert_allclose(counts.bse, bern.bse, rtol=1e-9)


def test_umaxent_equals_statsmodels_var_weights(synth):
    f = fm.umaxent("q ~ x1 + x2", synth, weights="w")
    X = sm.add_constant(synth[["x1", "x2"]].to_numpy())
    r = sm.GLM(synth["q"].to_numpy(), X, family=sm.families.Binomial(),
               var_weights=synth["w"].to_numpy()).fit(scale="X2", tol=1e-12)
    np.testing.assert_allclose(f.params.to_numpy(), r.params, rtol=1e-7)
    np.testing.assert_allclose(f.bse.to_numpy(), r.bse, rtol=1e-6)


def test_two_level_factor_and_boolean_responses(synth):
    lab = synth.assign(s=pd.Categorical(np.where(synth["y"] == 1, "yes", "no")),
                       b=synth["y"] == 1)
    ref = fm.maxent(F, synth)
    for resp in ("s", "b", "I(y == 1)"):
        f = fm.maxent(f"{resp} ~ x1 + x2 + g", lab)
        np.testing.assert_allclose(f.params, ref.params, rtol=1e-12)
    f = fm.maxent("s ~ x1 + x2 + g", lab)
    assert "'yes' is the positive class" in str(f.summary())


# --------------------------------------------------------------------------- prediction
def test_predict_types_and_new_data(synth):
    f = fm.maxent(F, synth)
    new = synth.iloc[:5]
    p = f.predict(new)
    np.testing.assert_allclose(p, f.fitted_values.iloc[:5], rtol=1e-12)
    np.testing.assert_allclose(f.predict(new, type="link"), np.log(p / (1 - p)), rtol=1e-10)
    cls = f.predict(new, type="class", threshold=0.3)
    assert list(cls) == list((p >= 0.3).astype(int))


def test_predict_reapplies_stateful_transforms_and_levels(synth):
    f = fm.maxent("y ~ center(x1) + g", synth)
    one = synth.iloc[[7]]
    # centring uses the training mean, not the mean of the single new row
    assert f.predict(one, type="link").iloc[0] == pytest.approx(f.linear_predictor.iloc[7])
    with pytest.raises(UnseenLevelError, match="column 'g'.*'z'"):
        f.predict(one.assign(g="z"))


def test_measure_on_new_data_uses_stored_response_levels(synth):
    lab = synth.assign(s=np.where(synth["y"] == 1, "yes", "no"))
    f = fm.maxent("s ~ x1 + x2", lab)
    conf = f.confusion(lab.iloc[:200])
    y = synth["y"].iloc[:200].to_numpy()
    pred = f.predict(lab.iloc[:200], type="class").to_numpy()
    assert conf.tp == np.sum((y == 1) & (pred == 1)) and conf.fp == np.sum((y == 0) & (pred == 1))
    assert f.measure(lab.iloc[:200], beta=2) == pytest.approx(
        fm.f_score(y, pred, beta=2))


# --------------------------------------------------------------------------- summaries
def test_summary_layout_and_labels(synth):
    f = fm.maxent(F, synth, cov_type="HC1", beta=2)
    text = str(f.summary())
    for piece in ("Call:", "Coefficients:", "Estimate", "Std. Error", "z value", "Pr(>|z|)",
                  "Signif. codes", "Dispersion parameter for binomial family taken to be 1",
                  "Null deviance:", "Residual deviance:", "AIC:",
                  "Number of Fisher Scoring iterations:", "F2 (beta = 2, alpha = 0.2)",
                  "Training F:", "sandwich HC1", "Confusion table:"):
        assert piece in text, piece
    html = f.summary()._repr_html_()
    assert "<table" in html and "Std. Error" in html
    tex = f.summary().as_latex()
    assert "\\begin{tabular}" in tex and "Intercept" in tex
    qf = fm.umaxent("q ~ x1 + x2 + g", synth)
    qtext = str(qf.summary())
    assert "t value" in qtext and "quasibinomial" in qtext and "noisy F (correlated" in qtext


def test_tidy_is_the_single_source_of_the_table(synth):
    f = fm.maxent(F, synth)
    t = f.tidy()
    assert list(t.columns) == ["term", "estimate", "std_error", "statistic", "p_value",
                               "conf_low", "conf_high"]
    np.testing.assert_allclose(t["std_error"], f.bse)
    ci = f.conf_int(0.9)
    np.testing.assert_allclose(ci["conf_high"] - f.params, 1.6448536269514722 * f.bse, rtol=1e-9)


def test_pickle_round_trip(synth, tmp_path):
    for engine in ("formulaic", "patsy"):
        f = fm.maxent("y ~ center(x1) + x2 + g", synth, weights="w", engine=engine)
        g = pickle.loads(pickle.dumps(f))
        pd.testing.assert_series_equal(f.params, g.params)
        pd.testing.assert_series_equal(f.bse, g.bse)
        pd.testing.assert_series_equal(f.predict(synth.iloc[:10]), g.predict(synth.iloc[:10]))
        assert str(f.summary()) == str(g.summary())
    f.save(tmp_path / "fit.pkl")
    h = fm.MaxentResults.load(tmp_path / "fit.pkl")
    pd.testing.assert_series_equal(h.params, f.params)


def test_refit_reuses_settings(synth):
    f = fm.umaxent("q ~ x1 + g", synth, weights="w", cov_type="HC2", penalty=0.5)
    g = f.refit(synth.iloc[::-1])
    np.testing.assert_allclose(f.params, g.params, rtol=1e-10)
    assert g.cov_type == "HC2" and g.settings["penalty"] == 0.5


def test_ridge_penalty_shrinks_but_not_intercept(synth):
    free = fm.maxent(F, synth)
    ridge = fm.maxent(F, synth, penalty=50.0)
    assert np.all(np.abs(ridge.params.drop("Intercept")) < np.abs(free.params.drop("Intercept")))


# --------------------------------------------------------------------------- bad input
def test_missing_values_drop_with_count_or_raise(synth):
    bad = synth.copy()
    bad.loc[[1, 5, 9], "x1"] = np.nan
    bad.loc[3, "x2"] = np.inf
    with pytest.warns(MissingDataWarning, match=r"dropped 4 of 400 .*x1: 3, x2: 1"):
        f = fm.maxent(F, bad)
    assert f.nobs == 396
    with pytest.raises(MissingDataError, match="4 row"):
        fm.maxent(F, bad, missing="raise")


@pytest.mark.parametrize("response, err, match", [
    ("q", ResponseError, r"Use umaxent\(\)"),
    ("x1", ResponseError, "0/1 labels or probabilities"),
    ("g", ResponseError, "two levels"),
])
def test_bad_responses(synth, response, err, match):
    with pytest.raises(err, match=match):
        fm.maxent(f"{response} ~ x2", synth)


def test_probabilities_outside_unit_interval(synth):
    with pytest.raises(ResponseError, match=r"row 0 holds 1\.5"):
        fm.umaxent("q ~ x1", synth.assign(q=np.r_[1.5, synth["q"].iloc[1:]]))


def test_single_class(synth):
    with pytest.raises(ResponseError, match="single class"):
        fm.maxent("y ~ x1", synth.assign(y=1))


@pytest.mark.parametrize("weights, match", [
    (np.r_[-1.0, np.ones(399)], "non-negative"),
    (np.r_[np.nan, np.ones(399)], "finite"),
    (np.ones(10), "one value per row"),
    (np.zeros(400), "all zero"),
    ("nope", "not in `data`"),
])
def test_bad_weights(synth, weights, match):
    with pytest.raises(WeightsError, match=match):
        fm.maxent(F, synth, weights=weights)


def test_collinear_and_constant_columns(synth):
    d = synth.assign(x3=synth["x1"] * 2 - synth["x2"], k=3.0)
    with pytest.warns(CollinearityWarning, match="'x3'.*'k'"):
        f = fm.maxent("y ~ x1 + x2 + x3 + k", d)
    assert np.isnan(f.params["x3"]) and np.isnan(f.params["k"])
    ref = fm.maxent("y ~ x1 + x2", d)
    np.testing.assert_allclose(f.params.dropna(), ref.params, rtol=1e-12)
    assert "NA" in str(f.summary()) and "2 not defined because of singularities" in str(f.summary())
    with pytest.raises(DesignError, match="'x3'"):
        fm.maxent("y ~ x1 + x2 + x3", d, collinear="raise")


def test_empty_frame_and_unknown_columns(synth):
    with pytest.raises(DataError, match="no rows"):
        fm.maxent(F, synth.iloc[:0])
    with pytest.raises(FormulaError, match="'nope'"):
        fm.maxent("y ~ x1 + nope", synth)
    with pytest.raises(FormulaError, match="'nope'"):
        fm.maxent("nope ~ x1", synth)
    with pytest.raises(FormulaError, match="response ~ terms"):
        fm.maxent("y x1", synth)


def test_bad_arguments(synth):
    with pytest.raises(InvalidArgumentError, match="cov_type"):
        fm.maxent(F, synth, cov_type="HC9")
    with pytest.raises(InvalidArgumentError, match="threshold"):
        fm.maxent(F, synth, threshold=1.5)
    with pytest.raises(InvalidArgumentError, match="beta"):
        fm.maxent(F, synth, beta=1, alpha=0.5)
    with pytest.raises(InvalidArgumentError, match="dispersion"):
        fm.umaxent("q ~ x1", synth, dispersion="deviance")
    with pytest.raises(InvalidArgumentError, match="engine"):
        fm.maxent(F, synth, engine="R")


def test_separation_warns_and_is_flagged():
    x = np.linspace(-1, 1, 40)
    d = pd.DataFrame({"x": x, "y": (x > 0).astype(int)})
    with pytest.warns(SeparationWarning, match="numerically 0 or 1.*ridge penalty"):
        f = fm.maxent("y ~ x", d, max_iter=50)
    assert f.separated
    assert "separation" in str(f.summary())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = fm.maxent("y ~ x", d, penalty=1.0)
    assert not g.separated and np.isfinite(g.params["x"])
