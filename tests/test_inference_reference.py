"""predict(se_fit=), anova, profile CIs and influence against R (tests/reference/glm17_*)."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import MissingDataWarning

from test_maxent_reference import MODELS, r_term

REF = Path(__file__).parent / "reference"
pytestmark = pytest.mark.reference
R17 = ["titanic_binom", "titanic_binom_w", "titanic_quasi_q", "synth_binom_w", "synth_quasi_q",
       "synth_cbind"]


@pytest.fixture(scope="module")
def inputs():
    return {"titanic": pd.read_csv(REF / "inputs_titanic.csv"),
            "synthetic": pd.read_csv(REF / "inputs_synthetic.csv")}


@pytest.fixture(scope="module")
def fits(inputs):
    out = {}
    for name in R17:
        fn, formula, data, kw = MODELS[name]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingDataWarning)
            out[name] = fn(formula, inputs[data], tol=1e-12, max_iter=100, **kw)
    return out


@pytest.fixture(scope="module")
def ref():
    return {k: pd.read_csv(REF / f"glm17_{k}.csv") for k in ("predict", "anova", "confint",
                                                             "influence")}


def _rows(ref_frame, model):
    r = ref_frame[ref_frame["model"] == model].copy()
    r.index = r["row"].to_numpy() - 1          # 1-based input row -> the DataFrame's index
    return r


@pytest.mark.parametrize("model", R17)
def test_predict_se_fit_equals_r(fits, inputs, ref, model):
    fit = fits[model]
    data = inputs[MODELS[model][2]]
    r = _rows(ref["predict"], model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)
        link = fit.predict(data, type="link", se_fit=True)
        resp = fit.predict(data, type="response", se_fit=True)
    link, resp = link.loc[r.index], resp.loc[r.index]
    # the covariance of the fit (nonrobust; quasi fits with the Pearson dispersion), as R's vcov
    np.testing.assert_allclose(link["fit"], r["fit_link"], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(link["se_fit"], r["se_link"], rtol=1e-7)
    np.testing.assert_allclose(resp["se_fit"], r["se_response"], rtol=1e-7, atol=1e-14)
    assert link.attrs["residual_scale"] == pytest.approx(r["residual_scale"].iloc[0], rel=1e-8)


@pytest.mark.parametrize("model", R17)
@pytest.mark.parametrize("test", ["Chisq", "F", "Rao"])
def test_sequential_anova_equals_r(fits, ref, model, test):
    fit = fits[model]
    r = ref["anova"]
    r = r[(r["model"] == model) & (r["kind"] == "sequential") & (r["test"] == test)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tab = fm.anova(fit, test=test)
    assert list(tab.index)[0] == "NULL" and len(tab) == len(r)
    # R orders terms by degree; so does the formula engine (interactions last)
    assert list(tab.index[1:]) == [str(t) for t in r["term"].iloc[1:]]
    np.testing.assert_allclose(tab["resid_dev"], r["resid_dev"], rtol=1e-8)
    np.testing.assert_allclose(tab["resid_df"], r["resid_df"])
    np.testing.assert_allclose(tab["deviance"].iloc[1:], r["deviance"].iloc[1:], rtol=1e-7,
                               atol=1e-9)
    p_ref = r["p_value"].iloc[1:]
    if test == "Rao":
        # R's sequential Rao uses the IRLS weights of the step before convergence (README):
        # its statistic is off by up to 2e-8, which moves a p-value of 1e-30 by 1e-6
        # relative; the p-value of the converged statistic is the reference
        from scipy import stats

        p_ref = stats.chi2.sf(r["statistic_converged"].iloc[1:] / r["dispersion"].iloc[1:],
                              r["df"].iloc[1:])
    np.testing.assert_allclose(tab["p_value"].iloc[1:], p_ref, rtol=1e-6, atol=1e-300)
    if test != "Chisq":
        want = r["statistic_converged"] if test == "Rao" else r["statistic"]
        np.testing.assert_allclose(tab["statistic"].iloc[1:], want.iloc[1:], rtol=1e-7)


NESTED = {
    "titanic_binom": ["survived ~ factor(pclass) + sex", "survived ~ factor(pclass) * sex",
                      "survived ~ factor(pclass) * sex + age + sibsp"],
    "titanic_quasi_q": ["q ~ factor(pclass) + sex", "q ~ factor(pclass) * sex",
                        "q ~ factor(pclass) * sex + age + sibsp"],
    "synth_binom_w": ["y ~ x1", "y ~ x1 + x2", "y ~ x1 + x2 + g"],
    "synth_quasi_q": ["q ~ x1", "q ~ x1 + x2", "q ~ x1 + x2 + g"],
}


@pytest.mark.parametrize("base", list(NESTED))
@pytest.mark.parametrize("test", ["Chisq", "F", "Rao"])
@pytest.mark.parametrize("three", [False, True])
def test_nested_anova_equals_r(inputs, ref, base, test, three):
    fn, _, data, kw = MODELS[base]
    d = inputs[data]
    if data == "titanic":
        d = d[d["age"].notna()]
    forms = NESTED[base] if three else [NESTED[base][0], NESTED[base][2]]
    models = [fn(f, d, tol=1e-12, max_iter=100, **kw) for f in forms]
    name = f"{base}_nested3" if three else f"{base}_nested"
    r = ref["anova"]
    r = r[(r["model"] == name) & (r["test"] == test)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tab = fm.anova(*models, test=test)
    np.testing.assert_allclose(tab["resid_dev"], r["resid_dev"], rtol=1e-8)
    np.testing.assert_allclose(tab["df"].iloc[1:], r["df"].iloc[1:])
    np.testing.assert_allclose(tab["deviance"].iloc[1:], r["deviance"].iloc[1:], rtol=1e-7)
    np.testing.assert_allclose(tab["p_value"].iloc[1:], r["p_value"].iloc[1:], rtol=1e-6,
                               atol=1e-300)
    if test != "Chisq":
        np.testing.assert_allclose(tab["statistic"].iloc[1:], r["statistic"].iloc[1:], rtol=1e-6)


@pytest.mark.parametrize("model", R17)
@pytest.mark.parametrize("level", [0.95, 0.90])
def test_profile_ci_equals_exact_r_roots(fits, ref, model, level):
    # R's MASS bounds interpolate a spline (up to 1.6e-4 from the exact roots, README); the
    # exact roots solved in R by uniroot are the reference, to 1e-4 of a standard error and
    # MASS's bounds to 3e-4 standard errors
    fit = fits[model]
    r = ref["confint"]
    r = r[(r["model"] == model) & np.isclose(r["level"], level)].copy()
    r["term"] = r["term"].map(r_term)
    r = r.set_index("term")
    ci = fit.conf_int(level=level, method="profile").loc[r.index]
    se = fit.tidy(cov_type="nonrobust").set_index("term")["std_error"].loc[r.index]
    assert np.all(np.abs(ci["conf_low"] - r["exact_lower"]) <= 1e-4 * se)
    assert np.all(np.abs(ci["conf_high"] - r["exact_upper"]) <= 1e-4 * se)
    assert np.all(np.abs(ci["conf_low"] - r["lower"]) <= 4e-4 * se)
    if not fit.estimates_dispersion:
        # R's confint.default uses normal quantiles; fmstats uses t(df) for quasi fits, as the
        # t values of its summary (R's summary.glm) do, so only binomial fits compare
        wald = fit.conf_int(level=level, cov_type="nonrobust").loc[r.index]
        np.testing.assert_allclose(wald["conf_low"], r["wald_lower"], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("model", R17)
def test_influence_equals_r(fits, ref, model):
    fit = fits[model]
    r = _rows(ref["influence"], model)
    inf = fit.influence().loc[r.index]
    np.testing.assert_allclose(inf["hat"], r["hat"], rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(inf["std_resid_deviance"], r["rstandard_deviance"], rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(inf["std_resid_pearson"], r["rstandard_pearson"], rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(inf["student_resid"], r["rstudent"], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(inf["cooks_distance"], r["cooks_distance"], rtol=1e-8, atol=1e-14)


@pytest.mark.parametrize("model", R17)
@pytest.mark.parametrize("level", [0.95, 0.90])
def test_confint_is_rs_confint(fits, ref, model, level):
    """``fm.confint(fit)`` is R's ``confint(fit)`` (MASS's profile intervals): the exact
    roots to 1e-4 standard errors, R's spline-interpolated bounds to 4e-4 (issue 38).
    Mutant: confint giving the Wald intervals misses them by up to 0.1 standard errors."""
    fit = fits[model]
    r = ref["confint"]
    r = r[(r["model"] == model) & np.isclose(r["level"], level)].copy()
    r["term"] = r["term"].map(r_term)
    r = r.set_index("term")
    ci = fm.confint(fit, level=level)
    assert ci.attrs["method"] == "profile"
    ci = ci.loc[r.index]
    se = fit.tidy(cov_type="nonrobust").set_index("term")["std_error"].loc[r.index]
    for ours, exact, mass in (("conf_low", "exact_lower", "lower"),
                              ("conf_high", "exact_upper", "upper")):
        assert np.all(np.abs(ci[ours] - r[exact]) <= 1e-4 * se)
        assert np.all(np.abs(ci[ours] - r[mass]) <= 4e-4 * se)
    one = r.index[-1]
    sub = fm.confint(fit, one, level=level)
    assert list(sub.index) == [one]
    np.testing.assert_allclose(sub.loc[one], ci.loc[one], rtol=1e-9)
