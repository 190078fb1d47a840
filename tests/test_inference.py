"""What an R user reaches for after summary() (issue 17): predict with standard errors, anova,
profile-likelihood intervals, influence measures and diagnostic plots.

Independent references: statsmodels (prediction SEs, influence), fits of the sub-models by
statsmodels (deviance tests), the definition of the profile (signed root deviance at the
returned bounds) and R (tests/test_inference_reference.py, committed R output)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats
from scipy.special import expit

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError, ModelComparisonError

F_FULL = "survived ~ C(pclass) * sex + age + sibsp"


@pytest.fixture(scope="module")
def titanic():
    return fm.datasets.titanic_complete()


@pytest.fixture(scope="module")
def full(titanic):
    return fm.maxent(F_FULL, titanic)


@pytest.fixture(scope="module")
def sm_full(titanic):
    return smf.glm(F_FULL, titanic, family=sm.families.Binomial()).fit(tol=1e-14)


# ----------------------------------------------------------------------------- predict(se_fit=)
def test_predict_link_se_equals_statsmodels(full, sm_full, titanic):
    got = full.predict(titanic, type="link", se_fit=True)
    pred = sm_full.get_prediction(titanic, which="linear")
    np.testing.assert_allclose(got["fit"], pred.predicted, rtol=1e-7)
    np.testing.assert_allclose(got["se_fit"], pred.se, rtol=1e-6)


def test_predict_response_se_is_delta_method_and_interval_in_unit_range(full, sm_full, titanic):
    got = full.predict(titanic, se_fit=True, interval="confidence", level=0.9)
    pred = sm_full.get_prediction(titanic)               # response scale, delta method
    np.testing.assert_allclose(got["se_fit"], pred.se, rtol=1e-6)
    link = full.predict(titanic, type="link", se_fit=True)
    q = stats.norm.ppf(0.95)
    np.testing.assert_allclose(got["conf_low"], expit(link["fit"] - q * link["se_fit"]), rtol=1e-12)
    assert (got["conf_low"] > 0).all() and (got["conf_high"] < 1).all()
    assert (got["conf_low"] <= got["fit"]).all() and (got["fit"] <= got["conf_high"]).all()


def test_predict_se_honours_cov_type_and_quasi_dispersion(titanic):
    d = titanic.assign(q=fm.datasets.thesis_label_noise(titanic["survived"], random_state=1))
    r = fm.umaxent("q ~ sex + age + C(pclass)", d)               # dispersion estimated
    ref = smf.glm("q ~ sex + age + C(pclass)", d, family=sm.families.Binomial()).fit(
        scale="X2", tol=1e-14)
    got = r.predict(d.head(50), type="link", se_fit=True)
    np.testing.assert_allclose(got["se_fit"], ref.get_prediction(d.head(50), which="linear").se,
                               rtol=1e-6)
    assert got.attrs["residual_scale"] == pytest.approx(np.sqrt(r.dispersion))
    h = fm.maxent("survived ~ sex + age", titanic, cov_type="HC0")
    href = smf.glm("survived ~ sex + age", titanic, family=sm.families.Binomial()).fit(
        cov_type="HC0", tol=1e-14)
    np.testing.assert_allclose(h.predict(titanic.head(30), type="link", se_fit=True)["se_fit"],
                               href.get_prediction(titanic.head(30), which="linear").se,
                               rtol=1e-6)


def test_predict_se_bad_input(full, titanic):
    with pytest.raises(InvalidArgumentError, match="se_fit"):
        full.predict(titanic, type="class", se_fit=True)
    with pytest.raises(InvalidArgumentError, match="interval"):
        full.predict(titanic, interval="prediction")
    with pytest.raises(InvalidArgumentError, match="level"):
        full.predict(titanic, se_fit=True, interval="confidence", level=1.5)


# ----------------------------------------------------------------------------- anova
def _sm_dev(formula, data):
    return smf.glm(formula, data, family=sm.families.Binomial()).fit(tol=1e-14).deviance


def test_sequential_anova_equals_deviances_of_statsmodels_submodels(full, titanic):
    tab = fm.anova(full)
    forms = ["survived ~ 1", "survived ~ C(pclass)", "survived ~ C(pclass) + sex",
             "survived ~ C(pclass) + sex + age", "survived ~ C(pclass) + sex + age + sibsp", F_FULL]
    devs = [_sm_dev(f, titanic) for f in forms]
    assert list(tab.index) == ["NULL", "C(pclass)", "sex", "age", "sibsp", "C(pclass):sex"]
    np.testing.assert_allclose(tab["resid_dev"], devs, rtol=1e-8)
    np.testing.assert_allclose(tab["df"].iloc[1:], [2, 1, 1, 1, 2])
    np.testing.assert_allclose(tab["resid_df"], [1045, 1043, 1042, 1041, 1040, 1038])
    np.testing.assert_allclose(tab["p_value"].iloc[1:],
                               stats.chi2.sf(-np.diff(devs), [2, 1, 1, 1, 2]), rtol=1e-6)
    assert np.isnan(tab["p_value"].iloc[0]) and "statistic" not in tab.columns
    text = str(tab)
    assert "Analysis of Deviance Table" in text and "Pr(>Chi)" in text and "Resid. Dev" in text


def test_nested_anova_lr_test_and_rao_score(full, titanic):
    m0 = fm.maxent("survived ~ C(pclass) + sex", titanic)
    tab = fm.anova(m0, full)
    d0, d1 = _sm_dev("survived ~ C(pclass) + sex", titanic), full.deviance
    assert tab["deviance"].iloc[1] == pytest.approx(d0 - d1, rel=1e-8)
    assert tab["df"].iloc[1] == 4
    assert tab["p_value"].iloc[1] == pytest.approx(stats.chi2.sf(d0 - d1, 4), rel=1e-6)
    # Rao's score statistic, written out: U' I^-1 U at the small model's fit
    rao = fm.anova(m0, full, test="Rao")
    X, y, mu0 = full.X, full.y, m0.fitted_values.to_numpy()
    u = X.T @ (y - mu0)
    info = X.T @ (X * (mu0 * (1 - mu0))[:, None])
    assert rao["statistic"].iloc[1] == pytest.approx(float(u @ np.linalg.solve(info, u)),
                                                     rel=1e-8)


def test_anova_f_test_default_for_quasi_fits(titanic):
    d = titanic.assign(q=fm.datasets.thesis_label_noise(titanic["survived"], random_state=2))
    m0, m1 = fm.umaxent("q ~ sex", d), fm.umaxent("q ~ sex + age + C(pclass)", d)
    tab = fm.anova(m0, m1)
    assert tab.attrs["test"] == "F"
    f = (m0.deviance - m1.deviance) / 3 / m1.dispersion
    assert tab["statistic"].iloc[1] == pytest.approx(f, rel=1e-10)
    assert tab["p_value"].iloc[1] == pytest.approx(stats.f.sf(f, 3, m1.df_resid), rel=1e-8)


def test_anova_refuses_what_it_cannot_compare(full, titanic):
    with pytest.raises(ModelComparisonError, match="different rows"):
        fm.anova(fm.maxent("survived ~ sex", titanic.iloc[:500]), full)
    with pytest.raises(ModelComparisonError, match="not nested"):
        fm.anova(fm.maxent("survived ~ age", titanic), fm.maxent("survived ~ sex + sibsp", titanic))
    with pytest.raises(ModelComparisonError, match="not a likelihood"):
        fm.anova(fm.fmaxent("survived ~ sex + age", titanic))
    d = titanic.assign(q=titanic["survived"] * 0.8 + 0.1)
    with pytest.raises(ModelComparisonError, match="family"):
        fm.anova(fm.maxent("survived ~ sex", titanic), fm.umaxent("q ~ sex + age", d))
    with pytest.raises(InvalidArgumentError, match="test"):
        fm.anova(full, test="Wald")
    with pytest.raises(ModelComparisonError, match="penalty"):
        fm.anova(fm.maxent("survived ~ sex", titanic, penalty=1.0))


# ----------------------------------------------------------------------------- profile CIs
def _profile_dev(titanic, term_col, value):
    """Deviance with one coefficient fixed, by statsmodels with an offset (the profile)."""
    X = pd.get_dummies(titanic[["sex"]], drop_first=True).astype(float)
    X.insert(0, "Intercept", 1.0)
    X["age"] = titanic["age"]
    off = X.pop(term_col).to_numpy() * value
    return sm.GLM(titanic["survived"], X, family=sm.families.Binomial(),
                  offset=off).fit(tol=1e-14).deviance


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_profile_bounds_are_exact_roots_of_the_signed_root_deviance(titanic, level):
    r = fm.maxent("survived ~ sex + age", titanic)
    ci = r.conf_int(level=level, method="profile")
    q = stats.norm.ppf(0.5 + level / 2)
    for term, col in (("age", "age"), ("sex[T.male]", "sex_male")):
        for bound in ("conf_low", "conf_high"):
            b = ci.loc[term, bound]
            z = np.sqrt(_profile_dev(titanic, col, b) - r.deviance)
            assert z == pytest.approx(q, abs=1e-6), (term, bound)
    wald = r.conf_int(level=level)
    assert np.all(np.abs(ci.to_numpy() - wald.to_numpy()) < 0.2 * np.abs(wald.to_numpy()) + 0.05)


def test_profile_through_tidy_and_refused_where_no_likelihood(titanic):
    r = fm.maxent("survived ~ sex + age", titanic)
    t = r.tidy(ci_method="profile")
    pd.testing.assert_series_equal(t.set_index("term")["conf_low"],
                                   r.conf_int(method="profile")["conf_low"], check_names=False)
    with pytest.raises(InvalidArgumentError, match="method"):
        r.conf_int(method="likelihood")
    with pytest.raises(InvalidArgumentError, match="level"):
        r.conf_int(level=0, method="profile")
    with pytest.raises(InvalidArgumentError, match="not a likelihood"):
        fm.fmaxent("survived ~ sex + age", titanic).conf_int(method="profile")


# ----------------------------------------------------------------------------- influence
def test_influence_equals_statsmodels(full, sm_full):
    inf = full.influence()
    g = sm_full.get_influence()
    np.testing.assert_allclose(inf["hat"], g.hat_matrix_diag, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(inf["std_resid_pearson"], g.resid_studentized, rtol=1e-8)
    np.testing.assert_allclose(inf["cooks_distance"], g.cooks_distance[0], rtol=1e-7, atol=1e-14)
    d = sm_full.resid_deviance / np.sqrt(1 - g.hat_matrix_diag)
    np.testing.assert_allclose(inf["std_resid_deviance"], d, rtol=1e-8)


def test_plot_diagnostics_has_r_four_panels(full):
    import matplotlib

    matplotlib.use("Agg")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = full.plot_diagnostics()
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["Residuals vs Fitted", "Normal Q-Q", "Scale-Location",
                      "Residuals vs Leverage"]
    assert len(fig.axes[0].collections[0].get_offsets()) == full.nobs
