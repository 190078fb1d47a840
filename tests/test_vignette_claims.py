"""What vignettes 01 and 04 say in prose, computed here by the same calls with the same seeds,
so the prose cannot drift from the code.  Each test names the sentence it checks.
(Vignettes 02, 03, 05, 06 and 07 have their claims tested in the tests/test_reproduce_*
modules; 08 in tests/test_sklearn.py.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import fmstats as fm
from fmstats.resampling import bootstrap
from fmstats.model_selection import cv_tune, tune_threshold

pytestmark = pytest.mark.reference

FORMULA = "survived ~ C(pclass) * sex + age + sibsp"


@pytest.fixture(scope="module")
def titanic():
    return fm.datasets.titanic_complete()


@pytest.fixture(scope="module")
def fit(titanic):
    return fm.maxent(FORMULA, titanic)


# ----------------------------------------------------------------------------- vignette 01
def test_01_model_and_sandwich_ses_agree_closely():
    """01: "the two agree closely when the model fits" (model-based vs HC0/HC3 SEs)."""
    titanic = fm.datasets.load_titanic()
    test_rows = np.random.default_rng(2014).choice(titanic.index, size=309, replace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.MissingDataWarning)
        fit = fm.maxent(FORMULA, titanic.drop(test_rows))
    model = np.sqrt(np.diag(fit.cov_params("nonrobust")))
    for ct in ("HC0", "HC3"):
        ratio = np.sqrt(np.diag(fit.cov_params(ct))) / model
        assert 0.8 < ratio.min() and ratio.max() < 1.25, (ct, ratio)


# ----------------------------------------------------------------------------- vignette 04
@pytest.fixture(scope="module")
def boots(fit, titanic):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        dropped = bootstrap(fit, B=200, type="case", ci_method="percentile", data=titanic,
                            random_state=1)
        kept = bootstrap(fit, B=200, type="case", ci_method="percentile", data=titanic,
                         random_state=1, degenerate="keep")
    return dropped, kept


def test_04_five_of_133_first_class_women_died(titanic):
    """04: "only 5 of the 133 first-class women in these data died"."""
    women = titanic[(titanic.pclass == 1) & (titanic.sex == "female")]
    assert (len(women), int((women.survived == 0).sum())) == (133, 5)


def test_04_three_separated_replicates_and_drop_ses_within_20_percent(boots):
    """04: "every bootstrap SE is within about 20 % of the model-based one" and "the summary
    also counts 3 replicates without a finite estimate"."""
    dropped, _ = boots
    assert len(dropped.degenerate_replicates) == 3
    t = dropped.tidy().dropna(subset=["model_std_error"])
    ratio = t["std_error"] / t["model_std_error"]
    assert ratio.between(0.8, 1.2).all(), ratio.to_dict()


def test_04_kept_replicates_inflate_intercept_class_and_sex_ses_3_to_4_times(boots):
    """04: kept, "the bootstrap SEs of the intercept and of the class and sex terms become 3 to
    4 times the model-based ones, while those of age and sibsp do not move, and the percentile
    intervals move far less than the SEs"."""
    dropped, kept = boots
    d = dropped.tidy().set_index("term").dropna(subset=["model_std_error"])
    k = kept.tidy().set_index("term").loc[d.index]
    ratio = k["std_error"] / d["model_std_error"]
    factor_terms = [t for t in d.index if t not in ("age", "sibsp")]
    assert ratio[factor_terms].between(3.0, 4.0).all(), ratio.to_dict()
    np.testing.assert_allclose(k.loc[["age", "sibsp"], "std_error"],
                               d.loc[["age", "sibsp"], "std_error"], rtol=0.01)
    se_change = (k["std_error"] - d["std_error"]).abs()
    ci_change = np.maximum((k["conf_low"] - d["conf_low"]).abs(),
                           (k["conf_high"] - d["conf_high"]).abs())
    assert (ci_change[factor_terms] < se_change[factor_terms]).all()


@pytest.fixture(scope="module")
def grids(titanic):
    grid = {"threshold": [0.2, 0.3, 0.4, 0.5, 0.6], "penalty": [0.0, 1.0, 10.0]}
    kw = dict(cv=5, beta=2, random_state=2014)
    return (cv_tune(fm.maxent, FORMULA, titanic, grid, **kw),
            cv_tune(fm.maxent, FORMULA, titanic, grid, pooling="mean", **kw),
            cv_tune(fm.maxent, FORMULA, titanic, grid, measure="accuracy", **kw))


@pytest.mark.slow
def test_04_accuracy_picks_about_half_and_pooled_equals_mean(grids):
    """04: tuning by accuracy "chooses the usual threshold of about 0.5, which costs recall and
    F2"; "on these data the pooled and the mean criterion pick the same point"."""
    pooled, mean, by_acc = grids
    assert by_acc.best_params["threshold"] == pytest.approx(0.5, abs=0.1)
    table = pooled.tidy()
    assert table["f"][by_acc.best_index] < table["f"][pooled.best_index] - 0.02
    assert table["recall"][by_acc.best_index] < table["recall"][pooled.best_index] - 0.05
    assert mean.best_index == pooled.best_index


@pytest.mark.slow
def test_04_adult_threshold_gains_and_penalty_hardly_matters():
    """04: the tuned Adult threshold "buys" test F1 over 0.5; over penalties 0, 10, 100 "the
    penalty hardly matters: CV F1 moves by less than 0.005 between no penalty and 100"."""
    adult = fm.datasets.load_adult("train")
    adult_test = fm.datasets.load_adult("test")
    formula = ("income ~ age + education_num + hours_per_week + C(sex) + C(relationship)"
               " + C(race) + C(marital_status) + np.log1p(capital_gain)"
               " + np.log1p(capital_loss)")
    fit = fm.maxent(formula, adult)
    assert (fit.nobs, len(fit.params)) == (32561, 22)     # "32,561 rows and 22 coefficients"
    thr = tune_threshold(fit, adult, cv=5, beta=1, random_state=1)
    assert thr.measure(adult_test) > fit.measure(adult_test, beta=1) + 0.02
    grid = cv_tune(fm.maxent, formula, adult, {"penalty": [0.0, 10.0, 100.0]}, cv=3,
                   threshold=thr.threshold, random_state=1)
    assert np.ptp(grid.tidy()["f"]) < 0.005
