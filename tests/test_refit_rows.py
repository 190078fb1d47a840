"""``results.call.refit(rows=...)``: the one path of refits on a fit's training rows.

A refit on rows of the training data (``fmstats.results.TrainingRows``: the rows located
once, the design built once or the rows the fit kept) must be the refit on the DataFrame
of those rows, with the per-row arguments (array prior weights, an offset array) taken
for those rows.  The reference is the plain refit on ``data.iloc[positions]``, computed
here with the arguments given by hand.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import DataError, InvalidArgumentError
from fmstats.results import RowSelection, TrainingRows, training_rows

RTOL = 1e-10      # the design built once vs rebuilt: the same numbers up to rounding


@pytest.fixture(scope="module")
def df():
    rng = np.random.default_rng(7)
    n = 240
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    eta = -0.4 + 1.1 * x1 - 0.7 * x2 + np.where(g == "b", 0.5, 0.0)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g,
                         "w": rng.uniform(0.5, 2.0, size=n)})


POSITIONS = np.sort(np.random.default_rng(3).integers(0, 240, 240))   # a bootstrap draw

FITS = {
    "maxent": lambda d: fm.maxent("y ~ x1 + x2 + g", d),
    "fmaxent": lambda d: fm.fmaxent("y ~ x1 + x2 + g", d, beta=2),
    "wsvm": lambda d: fm.wsvm("y ~ x1 + x2 + g", d, C_pos=2.0, C_neg=0.5),
    "costsens": lambda d: fm.costsens("y ~ x1 + x2", d, beta=2, random_state=0),
}


def _coefs(r) -> np.ndarray:
    return np.asarray(r.params, dtype=float)


@pytest.mark.parametrize("family", list(FITS))
def test_call_refit_on_rows_equals_the_refit_on_their_frame(df, family):
    fit = FITS[family](df)
    want = fit.refit(df.iloc[POSITIONS].reset_index(drop=True))
    train = training_rows(fit, df)
    rows = train.take(POSITIONS, reset_index=True)
    assert isinstance(rows, RowSelection)
    by_call = fit.call.refit(rows=rows)
    by_results = fit.refit(rows=rows)
    for got in (by_call, by_results, train.refit(POSITIONS, reset_index=True)):
        assert type(got) is type(fit)
        np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=RTOL, atol=1e-12)
        pred, ref = got.predict(df.head(40)), want.predict(df.head(40))
        np.testing.assert_allclose(pred.to_numpy(dtype=float), ref.to_numpy(dtype=float),
                                   rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("family", ["maxent", "wsvm"])
def test_rows_the_fit_kept_need_no_frame(df, family):
    fit = FITS[family](df)
    want = fit.refit(df.iloc[POSITIONS].reset_index(drop=True))
    got = fit.call.refit(rows=training_rows(fit).take(POSITIONS))   # no data: kept rows
    np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=RTOL, atol=1e-12)


def test_array_weights_and_offsets_are_taken_for_the_rows(df):
    w = df["w"].to_numpy()
    off = 0.3 * df["x2"].to_numpy()
    fit = fm.maxent("y ~ x1 + g", df, weights=w, offset=off)
    with pytest.raises(InvalidArgumentError, match="pass `weights=` again"):
        fit.refit(df.iloc[POSITIONS])           # array weights belong to the old rows
    want = fit.refit(df.iloc[POSITIONS].reset_index(drop=True), weights=w[POSITIONS],
                     offset=off[POSITIONS])
    for source in (df, None):                   # the training frame; the rows kept
        got = fit.call.refit(rows=training_rows(fit, source).take(POSITIONS))
        np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=RTOL, atol=1e-12)


def test_an_offset_term_and_an_array_offset_are_counted_once(df):
    """A fit with an offset() term and an array offset: the rows carry the array's part only
    (the formula evaluates its term again). Reference: the same model with both offsets given
    as one array, which has no formula part."""
    a = 0.3 * df["w"].to_numpy()
    both = fm.maxent("y ~ x1 + g + offset(x2)", df, offset=a)
    one = fm.maxent("y ~ x1 + g", df, offset=a + df["x2"].to_numpy())
    np.testing.assert_allclose(_coefs(both), _coefs(one), rtol=RTOL, atol=1e-12)
    for source in (df, None):
        again = training_rows(both, source).refit()        # all of its own rows
        np.testing.assert_allclose(_coefs(again), _coefs(both), rtol=RTOL, atol=1e-12)
        got = both.call.refit(rows=training_rows(both, source).take(POSITIONS))
        want = one.call.refit(rows=training_rows(one, source).take(POSITIONS))
        np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=RTOL, atol=1e-12)
    b1 = fm.bootstrap(both, B=5, data=df, fast=False, random_state=3, ci=False, mc_tol=None)
    b2 = fm.bootstrap(one, B=5, data=df, fast=False, random_state=3, ci=False, mc_tol=None)
    np.testing.assert_allclose(b1.replicates.to_numpy(), b2.replicates.to_numpy(), rtol=1e-8)


def test_rows_that_do_not_match_array_weights_are_refused(df):
    fit = fm.maxent("y ~ x1 + g", df, weights=df["w"].to_numpy())
    with pytest.raises(DataError, match="array of 240 values.*hold 235"):
        TrainingRows(fit, df.iloc[:-5])


def test_a_tuned_threshold_on_a_model_with_array_weights_resamples(df):
    """The per-row arguments of a result built on a base model are the base's: the bootstrap
    of a tuned threshold whose model took array weights equals the bootstrap of the same
    tuning with the weights as a column."""
    arr = fm.tune_threshold(fm.maxent("y ~ x1 + g", df, weights=df["w"].to_numpy()), df,
                            random_state=0)
    col = fm.tune_threshold(fm.maxent("y ~ x1 + g", df, weights="w"), df, random_state=0)
    assert arr.threshold == pytest.approx(col.threshold, rel=1e-12)
    kw = dict(B=4, data=df, random_state=5, ci=False, mc_tol=None)
    b_arr, b_col = fm.bootstrap(arr, **kw), fm.bootstrap(col, **kw)
    np.testing.assert_allclose(b_arr.replicates.to_numpy(), b_col.replicates.to_numpy(),
                               rtol=1e-9, atol=1e-12)


def test_a_reweighting_of_the_rows(df):
    fit = fm.maxent("y ~ x1 + x2 + g", df, weights="w")
    mult = np.bincount(POSITIONS, minlength=len(df)).astype(float)
    rows = np.flatnonzero(mult > 0)
    new_w = (df["w"].to_numpy() * mult)[rows]
    got = fit.call.refit(rows=training_rows(fit, df).take(rows, weights=new_w))
    want = fm.maxent("y ~ x1 + x2 + g", df.iloc[rows], weights=new_w)
    np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=RTOL, atol=1e-12)
    # the frequency weights of the draw are the duplicated rows
    dup = fm.maxent("y ~ x1 + x2 + g", df.iloc[POSITIONS], weights="w")
    np.testing.assert_allclose(_coefs(got), _coefs(dup), rtol=1e-7, atol=1e-9)


def test_fmaxent_refit_on_rows_keeps_its_covariance_rule(df):
    fit = fm.fmaxent("y ~ x1 + x2", df, beta=2, cov_type="bootstrap", B=20, random_state=0)
    rows = training_rows(fit, df).take(POSITIONS)
    assert fit.refit(rows=rows).settings["cov_type"] == "HC0"   # no nested bootstrap


def test_rows_are_refused_where_they_do_not_belong(df):
    fit, svm = FITS["maxent"](df), FITS["wsvm"](df)
    rows = training_rows(fit, df).take(POSITIONS)
    with pytest.raises(InvalidArgumentError, match="rows of a maxent.. fit cannot refit a "
                                                   "wsvm.. call"):
        svm.call.refit(rows=rows)
    with pytest.raises(InvalidArgumentError, match="give `data` or `rows`, not both"):
        fit.refit(df, rows=rows)
    with pytest.raises(InvalidArgumentError, match="`rows` must be rows of the fit's training"):
        fit.refit(rows=df.iloc[POSITIONS])        # a frame is data, not rows
    kept_none = fm.maxent("y ~ x1 + x2", df, keep_data=False)
    with pytest.raises(InvalidArgumentError, match="pass `data=`"):
        training_rows(kept_none)


def test_a_class_without_refit_on_rows_is_refitted_on_the_rows_data(df):
    """A user's own class speaking the protocol (``refit(data)`` only) keeps working."""
    fit = FITS["maxent"](df)

    class Own:
        formula = fit.formula

        def refit(self, data):
            return fit.refit(data)

    got = TrainingRows(Own(), df).refit(POSITIONS, reset_index=True)
    want = fit.refit(df.iloc[POSITIONS].reset_index(drop=True))
    np.testing.assert_allclose(_coefs(got), _coefs(want), rtol=0, atol=0)


# ----------------------------------------------------------------------------- declared protocol
class _PredictOnly:
    """A user's object with predictions but no refit: not a model tuning can refit."""

    def __init__(self, fit):
        self.fit, self.formula = fit, fit.formula

    def predict(self, newdata=None, type="response"):
        return self.fit.predict(newdata, type=type)


class _NoRecords(_PredictOnly):
    """A user's object with the protocol's methods but none of what a fit records."""

    @property
    def params(self):
        return self.fit.params

    def refit(self, data):
        return _NoRecords(self.fit.refit(data))

    def measure(self, *args, **kwargs):
        return self.fit.measure(*args, **kwargs)

    def tidy(self, level=0.95):
        return self.fit.tidy(level=level)


@pytest.mark.parametrize("call", [
    lambda o, d: fm.bootstrap(o, data=d, B=5),
    lambda o, d: fm.validate(o, data=d, B=5),
    lambda o, d: fm.tune_threshold(o, d, cv=3),
    lambda o, d: TrainingRows(o, d),
])
def test_an_object_without_refit_gets_a_clear_error(df, call):
    with pytest.raises(InvalidArgumentError, match=r"`results` must be a fitted fmstats model "
                                                   r"with .*has no refit"):
        call(_PredictOnly(FITS["maxent"](df)), df)


def test_what_a_fit_does_not_record_reads_as_the_declared_default(df):
    fit = FITS["maxent"](df)
    own = _NoRecords(fit)
    b = fm.bootstrap(own, data=df, B=6, random_state=1)        # no call, no cov_type, ...
    want = fm.bootstrap(fit, data=df, B=6, random_state=1, fast=False)
    np.testing.assert_allclose(b.replicates.to_numpy(), want.replicates.to_numpy(),
                               rtol=RTOL, atol=1e-12)
    assert b.model_call == "" and b.model_se_label == "model-based"
    assert b.model_table.equals(want.model_table)    # the declared coefficient table
    # without labels or a design specification, validate says what it needs
    with pytest.raises(InvalidArgumentError, match="keeps neither its labels"):
        fm.validate(own, data=df, B=5)


def test_a_result_without_coefficients_is_refused_by_the_default_statistic(df):
    grid = fm.cv_tune(fm.maxent, "y ~ x1 + x2", df, {"threshold": [0.4, 0.5]}, cv=3,
                      random_state=0)
    assert grid.coefficients() is None and grid.coefficient_table() is None
    with pytest.raises(InvalidArgumentError, match="has no coefficients .*pass `statistic=`"):
        fm.bootstrap(grid, data=df, B=5)


def test_the_declared_answers_of_the_families(df):
    fit, svm, cs = FITS["maxent"](df), FITS["wsvm"](df), FITS["costsens"](df)
    tuned = fm.tune_threshold(fit, df, cv=3, random_state=0)
    # the information SEs are the model-based SEs of a nonrobust maxent fit
    np.testing.assert_allclose(fit.information_se().to_numpy(), fit.bse.to_numpy(),
                               rtol=1e-10)
    assert svm.information_se() is None and cs.information_se() is None
    assert cs.coefficient_table() is None             # its tidy() is the F-versus-cost curve
    assert tuned.coefficient_table(0.9).equals(fit.tidy(level=0.9))
    np.testing.assert_array_equal(tuned.coefficients().to_numpy(),
                                  np.r_[fit.params.to_numpy(), tuned.threshold])
    assert (tuned.converged, tuned.separated, tuned.cov_type) == (True, False, "model-based")
    assert svm.threshold is None and fit.threshold == 0.5
