"""Issue 26, item 4: odds ratios from tidy(), the call as typed, a clear error for responses
that are not binary, fmaxent's dispersion line, the bootstrap without data= on every model
that keeps its data, and cv_tune's notice for grid parameters that change nothing."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fmstats as fm
from fmstats.exceptions import (IneffectiveParameterWarning, InvalidArgumentError,
                                ResponseError)


@pytest.fixture(scope="module")
def titanic():
    return fm.datasets.titanic_complete()


@pytest.fixture(scope="module")
def fair():
    sm = pytest.importorskip("statsmodels.api")
    return sm.datasets.fair.load_pandas().data


# ----------------------------------------------------------------------------- tidy
@pytest.mark.parametrize("ci_method", ["wald", "profile"])
def test_tidy_exponentiate_gives_odds_ratios(titanic, ci_method):
    """exp() of the estimate and of the interval's bounds (broom's exponentiate = TRUE); the
    standard error, statistic and p-value stay on the log-odds scale."""
    fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    plain = fit.tidy(ci_method=ci_method)
    odds = fit.tidy(ci_method=ci_method, exponentiate=True)
    np.testing.assert_allclose(odds["estimate"], np.exp(plain["estimate"]), rtol=1e-15)
    np.testing.assert_allclose(odds["conf_low"], np.exp(plain["conf_low"]), rtol=1e-15)
    np.testing.assert_allclose(odds["conf_high"], np.exp(plain["conf_high"]), rtol=1e-15)
    for col in ("std_error", "statistic", "p_value"):
        np.testing.assert_array_equal(odds[col], plain[col])
    # the odds ratio of a male passenger (R: exp(coef(fit))["sexmale"])
    assert odds.set_index("term").loc["sex[T.male]", "estimate"] == pytest.approx(
        np.exp(fit.params["sex[T.male]"]), rel=1e-15)


def test_tidy_exponentiate_refused_where_not_log_odds(titanic):
    svm = fm.wsvm("survived ~ sex + age", titanic)
    with pytest.raises(InvalidArgumentError, match="`exponentiate`.*not log-odds"):
        svm.tidy(exponentiate=True)
    fit = fm.maxent("survived ~ sex", titanic)
    with pytest.raises(InvalidArgumentError, match="`exponentiate` must be True or False"):
        fit.tidy(exponentiate="yes")


# ----------------------------------------------------------------------------- the call
def test_call_is_printed_as_typed(titanic):
    fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic, subset="sibsp < 2",
                    contrasts={"pclass": "sum"}, na_action="exclude", beta=2)
    text = fit.summary().__str__()
    assert ("maxent(formula = 'survived ~ C(pclass) + sex + age', data = <DataFrame 1046 x 5>, "
            "subset = 'sibsp < 2', na_action = 'exclude', contrasts = {'pclass': 'sum'}, "
            "beta = 2)") in text


# ----------------------------------------------------------------------------- responses
@pytest.mark.parametrize("formula, k", [("C(religious) ~ age", 4), ("religious ~ age", 4),
                                        ("factor(occupation) ~ age + educ", 6)])
def test_non_binary_response_is_a_clear_error(fair, formula, k):
    with pytest.raises(ResponseError, match=f"^maxent needs a binary response.*has {k} classes"):
        fm.maxent(formula, fair)
    with pytest.raises(ResponseError, match=f"has {k} classes"):
        fm.fmaxent(formula, fair)


def test_two_level_factor_response_in_c(fair):
    d = fair.assign(devout=np.where(fair.religious > 2, "yes", "no"))
    a = fm.maxent("C(devout) ~ age", d)
    b = fm.maxent("I(religious > 2) ~ age", d)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-12)


# ----------------------------------------------------------------------------- dispersion
def test_fmaxent_dispersion_line_only_where_it_is_used(titanic):
    f = fm.fmaxent("survived ~ C(pclass) + sex + age", titanic, beta=2)
    assert "Dispersion parameter" not in str(f.summary())       # HC0 does not use it
    text = str(f.summary(cov_type="nonrobust"))
    disp = f"{f.dispersion:.6g}"
    assert f"(Dispersion parameter taken to be {disp}: Pearson's chi-squared per residual " \
           "df of the F-weighted fit" in text.replace("\n", " ")
    m = fm.maxent("survived ~ sex", titanic)
    assert "(Dispersion parameter for binomial family taken to be 1)" in str(m.summary())


# ----------------------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("make", [
    lambda d: fm.fmaxent("survived ~ C(pclass) + sex + age", d, beta=2),
    lambda d: fm.wsvm("survived ~ sex + age", d, C_pos=2.0),
    lambda d: fm.maxent("survived ~ sex + age + offset(0.1 * sibsp)", d),
], ids=["fmaxent", "wsvm", "maxent-offset"])
def test_bootstrap_without_data_refits_the_kept_rows(titanic, make):
    """Refits on the rows a model kept give exactly the replicates of refits on `data`."""
    fit = make(titanic)
    stat = None if fit.__class__.__name__ != "MaxentResults" else (lambda r: r.params)
    kept = fm.bootstrap(fit, B=3, random_state=2, statistic=stat)
    given = fm.bootstrap(fit, B=3, random_state=2, statistic=stat, data=titanic)
    np.testing.assert_array_equal(kept.replicates, given.replicates)
    strat = fm.bootstrap(fit, B=3, random_state=2, statistic=stat, type="stratified")
    assert not np.array_equal(strat.replicates, kept.replicates)


def test_bootstrap_labels_from_q_without_data():
    d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    d = d[d.split == "train"]
    fit = fm.fmaxent("q ~ x1 + x2", d, alpha=0.3)
    kept = fm.bootstrap(fit, B=3, random_state=4, type="labels_from_q")
    given = fm.bootstrap(fit, B=3, random_state=4, type="labels_from_q", data=d)
    np.testing.assert_array_equal(kept.replicates, given.replicates)


# ----------------------------------------------------------------------------- cv_tune
def test_cv_tune_notices_a_parameter_without_effect(titanic):
    with pytest.warns(IneffectiveParameterWarning, match="differ only in 'epsilon'"):
        tuned = fm.cv_tune(fm.fmaxent, "survived ~ C(pclass) + sex + age", titanic,
                           {"beta": [1, 2], "epsilon": [0.01, 0.1]}, cv=3, random_state=0)
    t = tuned.tidy()
    np.testing.assert_array_equal(t.f.iloc[[0, 2]], t.f.iloc[[1, 3]])
    assert tuned.best_params["epsilon"] == 0.01           # ties: the first in grid order
    with warnings.catch_warnings():
        warnings.simplefilter("error", IneffectiveParameterWarning)
        fm.cv_tune(fm.maxent, "survived ~ C(pclass) + sex + age", titanic,
                   {"threshold": [0.3, 0.5]}, cv=3, random_state=0)


def test_bootstrap_with_row_arguments_and_fmaxent_options():
    """A subset mask and an offset array belong to the training rows: the bootstrap's refits
    (on kept rows, or on `data`) take them over, the same either way; fmaxent takes subset,
    na_action and contrasts as maxent does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.MissingDataWarning)
        t = fm.datasets.load_titanic()
        mask = (t.sibsp < 3).to_numpy()
        f = fm.fmaxent("survived ~ C(pclass) + sex + age", t, beta=2, subset=mask,
                       na_action="exclude", contrasts={"pclass": "sum"})
        assert len(f.predict()) == int(mask.sum()) and f.nobs == int(
            (mask & t.age.notna().to_numpy()).sum())
        assert "C(pclass, contr.sum)[S.1]" in f.params.index
        a = fm.bootstrap(f, B=3, random_state=1)
        b = fm.bootstrap(f, B=3, random_state=1, data=t)
        np.testing.assert_array_equal(a.replicates, b.replicates)
        m = fm.maxent("survived ~ C(pclass) + sex + age", t, subset=mask,
                      offset=0.01 * np.arange(len(t)))
        a = fm.bootstrap(m, B=3, random_state=1, statistic=lambda r: r.params)
        b = fm.bootstrap(m, B=3, random_state=1, data=t, statistic=lambda r: r.params)
        np.testing.assert_array_equal(a.replicates, b.replicates)
        fast = fm.bootstrap(m, B=3, random_state=1, replicates="full")
        np.testing.assert_allclose(fast.replicates.iloc[:, :-1], a.replicates, rtol=1e-6,
                                   atol=1e-8)


# ----------------------------------------------------------------------------- HTML views
def test_every_displayed_results_class_has_an_html_view(titanic):
    """A notebook shows each results object as HTML that holds its numbers (the summary's
    HTML where there is a summary)."""
    m = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    boot = fm.bootstrap(m, B=20, random_state=0)
    val = fm.validate(m, B=3, random_state=0, data=titanic)
    tuned = fm.cv_tune(fm.maxent, "survived ~ C(pclass) + sex + age", titanic,
                       {"threshold": [0.3, 0.6]},
                       cv=3, random_state=0)
    thr = fm.tune_threshold(m, titanic, cv=3, random_state=0)
    rf = m.resample_f(B=20, random_state=0)
    cells = {
        "MaxentResults": (m, f"{m.params['age']:.6f}"),
        "BootstrapResults": (boot, f"{boot.tidy().set_index('term').loc['age', 'std_error']:.4g}"[:5]),
        "ValidateResults": (val, "optimism"),
        "CvTuneResults": (tuned, "threshold"),
        "TuneThresholdResults": (thr, "threshold"),
        "ResampleFResults": (rf, f"{rf.mean:.4f}"[:5]),
        "AnovaTable": (fm.anova(m), "Deviance"),
        "TermTable": (fm.drop1(m, test="Chisq"), "age"),
        "StepResults": (fm.step(m, data=titanic), "Stepwise Model Path"),
        "Confusion": (m.confusion(), f"{m.confusion().tp:g}"),
    }
    for name, (obj, needle) in cells.items():
        text = obj._repr_html_()
        assert isinstance(text, str) and text.lstrip().startswith("<"), name
        assert needle in text, (name, needle)


def test_long_formula_is_printed_in_full(titanic):
    formula = "survived ~ C(pclass) * sex + age + sibsp + C(pclass):age + sex:age + I(age ** 2)"
    fit = fm.maxent(formula, titanic)
    assert f"maxent(formula = {formula!r}, data = <DataFrame 1046 x 5>)" in str(fit.summary())


def test_summary_says_subset_na_action_and_offset():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.MissingDataWarning)
        t = fm.datasets.load_titanic()
        f = fm.maxent("survived ~ C(pclass) + sex + age + offset(0.1 * sibsp)", t,
                      subset="sibsp < 3", na_action="exclude")
    text = str(f.summary())
    assert f"Rows used: {f.nobs} of {int((t.sibsp < 3).sum())} (subset: sibsp < 3)" in text
    assert "Missing values: na_action='exclude'" in text
    assert "Offset: 0.1 * sibsp" in text
