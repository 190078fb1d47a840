"""tune_threshold(..., ci=True): the threshold's bootstrap interval, the nested-CV corrected F,
and the warnings of a trivial or unstable tuned rule (issue 30).

The nested cross-validation is checked against a re-implementation through the public API
(maxent, tune_threshold and predict on each outer fold); the coverage and bias of the corrected
F are measured by benchmarks/inference/bench_f_intervals.py (part b), too slow for the test suite.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import (InvalidArgumentError, TrivialRuleWarning,
                                UnstableThresholdWarning)

FORMULA = "y ~ x1 + x2 + x3"


def _data(n, seed, signal=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    eta = -1.0 + signal * X @ np.array([1.0, 0.5, -0.5])
    df = pd.DataFrame(X, columns=["x1", "x2", "x3"])
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return df


@pytest.fixture(scope="module")
def tuned():
    df = _data(160, 1)
    fit = fm.maxent(FORMULA, df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnstableThresholdWarning)
        return df, fm.tune_threshold(fit, df, cv=3, ci=True, B=200, random_state=4,
                                     progress=False)


def test_f_corrected_is_the_nested_cross_validation_of_the_whole_tuning(tuned):
    """Mutant: the outer held-out rows scored by the model fitted on all rows, or the inner
    tuning run on the outer test rows."""
    df, t = tuned
    seed = t.settings["random_state"]
    cls = np.full(len(df), np.nan)
    for tr, te in t.uncertainty.outer_pairs:
        sub = df.iloc[tr].reset_index(drop=True)
        inner = fm.tune_threshold(fm.maxent(FORMULA, sub), sub, cv=3, random_state=seed)
        scores = inner.base.predict(df.iloc[te], type="response").to_numpy()
        assert np.min(np.abs(scores - inner.threshold)) > 1e-9   # no near-tie at the cut
        cls[te] = scores >= inner.threshold
    assert not np.isnan(cls).any()           # every row held out once
    f = fm.f_score(df["y"].to_numpy(), cls)
    assert t.f_corrected == pytest.approx(f, rel=1e-12)
    lo, hi = t.f_corrected_ci
    iv = fm.f_interval(df["y"].to_numpy(), cls)
    assert (lo, hi) == pytest.approx((iv.low, iv.high), rel=1e-12)


def test_threshold_interval_and_estimates(tuned):
    df, t = tuned
    u = t.uncertainty
    lo, hi = t.threshold_ci
    ok = u.thresholds[~np.isnan(u.thresholds)]
    assert ok.size == 200 - u.n_failed
    assert lo <= hi
    # percentile interval of the replicates (inverted cdf: replicate values, exact)
    assert lo in ok and hi in ok
    assert np.mean(ok < lo) <= 0.025 <= np.mean(ok <= lo)
    assert np.mean(ok > hi) <= 0.025 <= np.mean(ok >= hi)
    est = u.estimates.set_index("estimate")["f"]
    assert est["naive CV"] == pytest.approx(t.best_score, rel=1e-12)
    assert est["nested CV"] == pytest.approx(t.f_corrected, rel=1e-12)
    assert 0 <= est["no-information"] <= est["apparent"] <= 1
    band = u.band
    assert (band["low"] <= band["f"] + 1e-12).all() and (band["f"] <= band["high"] + 1e-12).all()
    # a refit (every replicate of bootstrap() and validate()) retunes without the intervals
    assert t.refit(df).uncertainty is None
    back = pickle.loads(pickle.dumps(t))
    assert back.threshold_ci == t.threshold_ci and back.f_corrected == t.f_corrected
    assert "f_corrected" in str(t.summary()) or "Corrected" in str(t.summary())


def test_ci_is_reproducible_and_checked():
    df = _data(120, 2)
    fit = fm.maxent(FORMULA, df)
    with pytest.raises(InvalidArgumentError, match="B"):
        fm.tune_threshold(fit, df, cv=3, ci=True, B=50)
    with pytest.raises(InvalidArgumentError, match="refit_folds"):
        fm.tune_threshold(fit, df, cv=3, ci=True, refit_folds=False)
    with pytest.raises(InvalidArgumentError, match="ci=True"):
        fm.tune_threshold(fit, df, cv=3).threshold_ci


def test_trivial_rule_warns():
    """No signal: the best cross-validated F is that of classing everything positive."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x1": rng.normal(size=22), "x2": rng.normal(size=22),
                       "x3": rng.normal(size=22)})
    df["y"] = (np.arange(22) % 2).astype(int)
    fit = fm.maxent(FORMULA, df)
    with pytest.warns(TrivialRuleWarning, match="all 22 training rows positive"):
        fm.tune_threshold(fit, df, cv=3, random_state=0)


def test_cv_tune_ci_nested_selection_and_frequencies():
    """f_corrected of cv_tune is the nested CV of the whole selection (re-implemented through
    the public API); the per-point interval is the delta interval of the pooled counts."""
    df = _data(150, 3)
    grid = {"threshold": [0.25, 0.5]}
    r = fm.cv_tune(fm.maxent, FORMULA, df, grid, cv=3, random_state=5, ci=True, B=20)
    seed = r.settings["random_state"]
    cls = np.full(len(df), np.nan)
    for tr, te in r.uncertainty.outer_pairs:
        sub = df.iloc[tr].reset_index(drop=True)
        inner = fm.cv_tune(fm.maxent, FORMULA, sub, grid, cv=3, random_state=seed)
        cls[te] = inner.predict(df.iloc[te], type="class").to_numpy()
    assert r.f_corrected == pytest.approx(fm.f_score(df["y"].to_numpy(), cls), rel=1e-12)
    t = r.tidy()
    assert t["selected"].sum() == pytest.approx(1.0, rel=1e-12)
    # the delta interval from the pooled counts equals f_interval on rows with those counts
    tp, fp, fn = (r.fold_results.query("point == 0")[c].sum() for c in ("tp", "fp", "fn"))
    tn = len(df) - tp - fp - fn
    y = np.r_[np.ones(int(tp)), np.zeros(int(fp)), np.ones(int(fn)), np.zeros(int(tn))]
    p = np.r_[np.ones(int(tp)), np.ones(int(fp)), np.zeros(int(fn)), np.zeros(int(tn))]
    iv = fm.f_interval(y, p)
    assert (t.loc[0, "f_low"], t.loc[0, "f_high"]) == pytest.approx((iv.low, iv.high),
                                                                    rel=1e-10)
    # plot(): the shaded band is the points' intervals (not the range over folds)
    pytest.importorskip("matplotlib").use("Agg")
    import matplotlib.pyplot as plt
    fig = r.plot()
    try:
        ys = np.vstack([p.vertices for c in fig.axes[0].collections for p in c.get_paths()])
        assert ys[:, 1].min() == pytest.approx(t["f_low"].min(), abs=1e-12)
        assert ys[:, 1].max() == pytest.approx(t["f_high"].max(), abs=1e-12)
    finally:
        plt.close(fig)


def _unstable_warnings(df):
    fit = fm.maxent(FORMULA, df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = fm.tune_threshold(fit, df, cv=3, ci=True, B=100, level=0.8, random_state=0,
                              progress=False)
    scores = fit.predict(df, type="response").to_numpy()
    share = (t.threshold_ci[1] - t.threshold_ci[0]) / (scores.max() - scores.min())
    return [w for w in caught if issubclass(w.category, UnstableThresholdWarning)], share


def test_unstable_threshold_warns_when_the_interval_spans_most_scores():
    """No signal in 60 rows: the replicates' thresholds scatter over the scores (some tune
    the all-positive rule, threshold -inf)."""
    caught, share = _unstable_warnings(_data(60, 3, signal=0.0))
    assert share > 0.5
    assert len(caught) == 1 and "spans more than 50%" in str(caught[0].message)


def test_stable_threshold_does_not_warn():
    """Mutant: a warning whatever the width (or a share far below one half)."""
    caught, share = _unstable_warnings(_data(150, 1, signal=3.0))
    assert 0.2 < share < 0.45          # measured 0.34 of the score range
    assert caught == []


def test_plot_draws_the_band_and_the_thresholds_bootstrap_distribution(tuned):
    """Mutant: the histogram of other values than the replicates' thresholds, or the band or
    the interval's lines missing."""
    pytest.importorskip("matplotlib").use("Agg")
    import matplotlib.pyplot as plt
    _, t = tuned
    u = t.uncertainty
    fig = t.plot()
    try:
        top, hist = fig.axes
        ok = u.thresholds[np.isfinite(u.thresholds)]
        heights = [p.get_height() for p in hist.patches]
        assert sum(heights) == ok.size
        lefts = [p.get_x() for p in hist.patches]
        assert min(lefts) == pytest.approx(ok.min(), rel=1e-9)
        xs = {round(float(line.get_xdata()[0]), 12) for line in hist.lines}
        assert {round(v, 12) for v in (*t.threshold_ci, t.threshold)} <= xs
        band = np.vstack([p.vertices for c in top.collections for p in c.get_paths()])
        assert band[:, 1].min() == pytest.approx(u.band["low"].min(), abs=1e-12)
        assert band[:, 1].max() == pytest.approx(u.band["high"].max(), abs=1e-12)
    finally:
        plt.close(fig)
