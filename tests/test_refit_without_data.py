"""R's last habits (issue 38): functions that refit a model work without ``data=`` when the fit
kept its rows (one rule: docs/user_guide.rst, "Refits without data="), ``confint(fit)``, and
two messages.

The reference for every data-less call is the same call given the training frame: the refits
take the same rows of the same design, so the numbers must agree to the last bit (the design
of the frame's rows equals the kept design bit for bit; see tests/test_design_cache.py).
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError, MissingDataError, ResponseError


@pytest.fixture(scope="module")
def ti():
    t = fm.datasets.titanic_complete(["survived", "pclass", "sex", "age", "sibsp", "parch"])
    t = t.iloc[:500].copy()
    t.index = [f"p{i}" for i in range(len(t))]        # labels, not positions
    rng = np.random.default_rng(38)
    t["w"] = rng.integers(1, 3, len(t))
    t["o"] = rng.normal(0, 0.1, len(t))
    return t


FORMULA = "survived ~ C(pclass) + sex + age"


@pytest.mark.parametrize("model", ["maxent", "wsvm"])
@pytest.mark.parametrize("refit_folds", [True, False])
def test_tune_threshold_without_data_is_with_the_training_frame(ti, model, refit_folds):
    """Mutant: the kept rows' fold design taken at the wrong positions (e.g. KeptDesign
    ignoring ``positions``) changes the held-out scores."""
    fit = getattr(fm, model)(FORMULA, ti)
    a = fm.tune_threshold(fit, ti, beta=2, cv=3, random_state=0, refit_folds=refit_folds)
    b = fm.tune_threshold(fit, beta=2, cv=3, random_state=0, refit_folds=refit_folds)
    assert b.threshold == a.threshold                       # the same computation
    pd.testing.assert_frame_equal(b.cv_scores, a.cv_scores, check_exact=True)
    pd.testing.assert_frame_equal(b.tidy(), a.tidy(), check_exact=True)
    assert b.confusion() == a.confusion()
    assert b.measure() == a.measure()
    if refit_folds:
        assert "rows the fit kept" in str(b.summary())
    again = pickle.loads(pickle.dumps(b))
    assert again.confusion() == b.confusion()


@pytest.mark.slow
def test_tune_threshold_ci_without_data(ti):
    """The bootstrap of the whole tuning and its nested CV on kept rows (17 s under load)."""
    small = ti.sample(250, random_state=0)     # 101 x 9 refits of the whole tuning
    fit = fm.maxent(FORMULA, small)
    kw = dict(beta=2, cv=3, random_state=0, ci=True, B=101, level=0.9)
    a = fm.tune_threshold(fit, small, **kw)
    b = fm.tune_threshold(fit, **kw)
    assert b.threshold_ci == a.threshold_ci
    assert b.uncertainty.f_corrected == a.uncertainty.f_corrected


def test_constraint_probability_without_data(ti):
    fit = fm.maxent(FORMULA, ti)
    kw = dict(constraint=("precision", ">=", 0.8), random_state=0)
    a = fm.tune_threshold(fit, ti, **kw).constraint_probability(B=20, random_state=1)
    b = fm.tune_threshold(fit, **kw).constraint_probability(B=20, random_state=1)
    np.testing.assert_array_equal(b["values"], a["values"])


@pytest.mark.parametrize("model, method", [("maxent", "platt"), ("maxent", "isotonic"),
                                           ("maxent", "beta"), ("wsvm", "platt")])
def test_calibrate_without_data_is_with_the_training_frame(ti, model, method):
    fit = getattr(fm, model)(FORMULA, ti)
    a = fm.calibrate(fit, ti, method=method, random_state=0)
    b = fm.calibrate(fit, method=method, random_state=0)
    pd.testing.assert_frame_equal(b.oof, a.oof, check_exact=True)
    np.testing.assert_array_equal(b.predict(ti).to_numpy(), a.predict(ti).to_numpy())


STEP_CASES = {
    "formulaic": dict(),
    "patsy": dict(engine="patsy"),
    "column weights": dict(weights="w"),
    "array weights": "array weights",
    "offset column": dict(offset="o"),
    "offset array": "offset array",
    "subset": dict(subset="age > 10"),
    "sum contrasts": dict(contrasts={"sex": "sum"}),
    "na exclude": dict(na_action="exclude"),
}


@pytest.mark.parametrize("case", list(STEP_CASES))
def test_step_without_data_is_with_the_training_frame(ti, case):
    """A term dropped without data takes the fit's design columns of the terms kept, encoded
    as the fit encodes them.  Mutants: the columns of the wrong terms, or a row argument (array
    weights, an offset array, a subset) lost or applied twice, change the path."""
    kw = STEP_CASES[case]
    if kw == "array weights":
        kw = dict(weights=ti["w"].to_numpy())
    elif kw == "offset array":
        kw = dict(offset=ti["o"].to_numpy())
    offset = "" if case == "patsy" else " + offset(0.5 * o)"     # formulaic's offset() term
    data = ti
    if case == "na exclude":                    # rows without an age: NaN in predict()
        data = ti.assign(age=ti["age"].where(np.arange(len(ti)) % 9 != 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.MissingDataWarning)
        fit = fm.maxent(f"survived ~ C(pclass) * sex + age + sibsp + parch{offset}", data,
                        **kw)
    k = float(np.log(fit.nobs))                   # the BIC drops two terms here
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        a = fm.step(fit, data=data, k=k)
        b = fm.step(fit, k=k)
    assert len(b.path) >= 2 and b.model.formula == a.model.formula
    pd.testing.assert_frame_equal(b.path, a.path, check_exact=True)
    pd.testing.assert_series_equal(b.model.params, a.model.params, check_exact=True)
    assert b.model.index.equals(a.model.index)
    new = None if case == "offset array" else ti.iloc[::7]    # an offset array: no new data
    np.testing.assert_array_equal(b.model.predict(new).to_numpy(), a.model.predict(new).to_numpy())
    own = b.model.predict()
    if case == "na exclude":
        # padded to the fit's rows, as the fit itself and R's na.exclude (the data path refits
        # on the rows used only, so it does not pad)
        assert own.index.equals(fit.predict().index) and own.isna().sum() == fit.n_dropped
        own = own.dropna()
    pd.testing.assert_series_equal(own, a.model.predict(), check_exact=True)
    assert fm.anova(b.model, fit).loc["2", "df"] == a.path["df"].sum()
    again = pickle.loads(pickle.dumps(b.model))
    np.testing.assert_array_equal(again.predict(new).to_numpy(), a.model.predict(new).to_numpy())


def test_what_needs_data_says_so(ti):
    fit = fm.maxent(FORMULA, ti)
    with pytest.raises(InvalidArgumentError, match="upper `scope` adds terms.*pass `data=`"):
        fm.step(fit, "~ . + sibsp")
    with pytest.raises(InvalidArgumentError, match="reuse_design.*needs `data=`"):
        fm.tune_threshold(fit, reuse_design=False)
    lean = fm.maxent(FORMULA, ti, keep_data=False)
    for call in (lambda: fm.tune_threshold(lean), lambda: fm.calibrate(lean)):
        with pytest.raises(InvalidArgumentError, match=r"keep_data=False.*pass `data=`"):
            call()
    # the lean fit refits its folds from the formula, the full one on its kept design (the
    # model's engine): the same fits by two code paths, equal to rounding
    assert fm.tune_threshold(lean, ti, cv=3, random_state=0).threshold == pytest.approx(
        fm.tune_threshold(fit, cv=3, random_state=0).threshold, rel=1e-12)


# ----------------------------------------------------------------------------- confint
def test_confint_without_a_likelihood_is_the_models_own_interval(ti):
    """fmaxent (no likelihood to profile), a penalised fit and multinom: the model's own
    Wald intervals, said in ``attrs["method"]`` (R's confint.default, nnet's
    confint.multinom)."""
    fx = fm.fmaxent(FORMULA, ti, beta=2, cov_type="reweighted")
    ci = fm.confint(fx)
    assert ci.attrs["method"] == "wald (reweighted)"
    pd.testing.assert_frame_equal(ci, fx.conf_int(), check_exact=True)
    pen = fm.maxent(FORMULA, ti, penalty=1.0)
    assert fm.confint(pen, level=0.9).attrs["method"] == "wald (nonrobust)"
    pd.testing.assert_frame_equal(fm.confint(pen, level=0.9), pen.conf_int(level=0.9))
    mn = fm.multinom("pclass ~ age + sex", ti)
    assert fm.confint(mn).attrs["method"].startswith("wald")
    with pytest.raises(InvalidArgumentError, match="`parm` must name coefficients"):
        fm.confint(pen, "agee")
    with pytest.raises(InvalidArgumentError, match="method.*profile"):
        fx.conf_int(method="profile")


# ----------------------------------------------------------------------------- messages
def test_na_action_fail_speaks_of_na_action():
    t = fm.datasets.load_titanic()
    with pytest.raises(MissingDataError) as err:
        fm.maxent("survived ~ age + sex", t, na_action="fail")
    msg = str(err.value)
    assert "na_action='fail'" in msg and "na_action='omit'" in msg and "(age: 263)" in msg
    assert "was given" not in msg


@pytest.mark.parametrize("codes", [(1, 2), (-1, 1), (0, 2)])
def test_two_numeric_codes_are_told_how_to_say_which_is_the_event(ti, codes):
    """The message names the formula that fits the model, and that formula fits it: the same
    coefficients as the 0/1 response."""
    d = ti.assign(yc=np.where(ti["survived"] == 1, codes[1], codes[0]))
    with pytest.raises(ResponseError) as err:
        fm.maxent("yc ~ age + sex", d)
    msg = str(err.value)
    hint = f"I(yc == {codes[1]})"
    assert f"is coded {codes[0]} and {codes[1]}, not 0/1" in msg and hint in msg
    ok = fm.maxent(f"{hint} ~ age + sex", d)
    np.testing.assert_allclose(ok.params.to_numpy(), fm.maxent("survived ~ age + sex", d)
                               .params.to_numpy(), rtol=1e-12)


def test_several_classes_are_pointed_to_one_against_the_rest():
    with pytest.raises(ResponseError, match=r'"I\(pclass == 3\) ~ \.\.\."'
                                            r".*fm\.multinom\(\)"):
        fm.maxent("pclass ~ age", fm.datasets.titanic_complete())
