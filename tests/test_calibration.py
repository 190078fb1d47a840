"""Issue 27, item 1: fm.calibrate (cross-fitted Platt, isotonic and beta calibration).

References: scikit-learn's CalibratedClassifierCV (sigmoid, isotonic; ensemble=False) and
the betacal package / the beta map solved exactly by statsmodels, on the same folds
(tests/reference/calibration_reference.py).  The diagnostics are checked against
straightforward re-implementations inside the tests.
"""
from __future__ import annotations

import os
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import fmstats as fm
from fmstats.calibration import brier_decomposition, ece, f_optimal_threshold, fit_map
from fmstats.exceptions import InvalidArgumentError, ResponseError


REF = os.path.join(os.path.dirname(__file__), "reference")


@pytest.fixture(scope="module")
def ref():
    train = pd.read_csv(os.path.join(REF, "calibration_train.csv"))
    new = pd.read_csv(os.path.join(REF, "calibration_new.csv"))
    pairs = [(np.flatnonzero(train.fold != k), np.flatnonzero(train.fold == k))
             for k in range(5)]
    return train, new, pairs, fm.maxent("y ~ x0 + x1", train)


@pytest.mark.reference
@pytest.mark.parametrize("method, column, tol", [
    ("platt", "sigmoid", 1e-7),          # measured 1.5e-9 (sklearn's L-BFGS, gtol 1e-6)
    ("isotonic", "isotonic", 1e-7),      # measured 4.2e-10
    ("beta", "beta_exact", 1e-8),        # measured 1.8e-10
    ("beta", "beta_betacal", 5e-4),      # measured 1.7e-4: betacal's lbfgs stops at tol 1e-4
])
def test_equal_to_sklearn_and_betacal_on_the_same_folds(ref, method, column, tol):
    train, new, pairs, fit = ref
    cal = fm.calibrate(fit, train, method=method, cv=pairs)
    got = cal.predict(new).to_numpy()
    np.testing.assert_allclose(got, new[column].to_numpy(), rtol=0, atol=tol)
    # the calibration changes the probabilities (a misspecified model): not a no-op
    assert np.max(np.abs(got - fit.predict(new).to_numpy())) > 0.01


def test_cross_fitting_scores_every_row_with_a_fit_that_did_not_see_it(ref):
    train, _, pairs, fit = ref
    cal = fm.calibrate(fit, train, method="platt", cv=pairs)
    for k, (tr, te) in enumerate(pairs):
        f_k = fm.maxent("y ~ x0 + x1", train.iloc[tr])
        np.testing.assert_allclose(cal.oof["score"].to_numpy()[te],
                                   f_k.predict(train.iloc[te], type="link").to_numpy(),
                                   rtol=0, atol=1e-10)
        assert (cal.oof["split"].to_numpy()[te] == k).all()
    # Platt by brute force: the smoothed-target likelihood is maximal at the fitted (a, b)
    s, y = cal.oof["score"].to_numpy(), cal.oof["y"].to_numpy()
    n1, n0 = y.sum(), (1 - y).sum()
    t = np.where(y == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))

    def ll(a, b):
        p = expit(a * s + b)
        return np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))
    a, b = cal.cmap.coef
    best = ll(a, b)
    for da, db in ((1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)):
        assert ll(a + da, b + db) < best


def test_isotonic_map_is_the_pav_fit():
    rng = np.random.default_rng(3)
    s = np.round(rng.normal(size=300), 1)            # ties pooled before PAV
    y = (rng.uniform(size=300) < expit(2 * s)).astype(float)
    m = fit_map("isotonic", s, y)
    # brute force: a monotone fit of the tied means minimising the weighted squared error
    knots = np.unique(s)
    assert np.all(np.diff(m.coef) >= -1e-12)
    means = np.array([y[s == k].mean() for k in knots])
    counts = np.array([(s == k).sum() for k in knots])
    sse = counts @ (m.coef - means) ** 2
    rng2 = np.random.default_rng(0)
    for _ in range(200):                              # any other monotone fit is worse
        other = np.maximum.accumulate(np.clip(m.coef + rng2.normal(0, 0.02, len(knots)), 0, 1))
        assert counts @ (other - means) ** 2 >= sse - 1e-12
    # predictions interpolate linearly and clip
    assert m(knots[0] - 5) == pytest.approx(m.coef[0])
    mid = 0.5 * (knots[3] + knots[4])
    assert m(mid) == pytest.approx(0.5 * (m.coef[3] + m.coef[4]), abs=1e-12)


def test_diagnostics_against_a_loop_reimplementation():
    rng = np.random.default_rng(5)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p ** 1.3).astype(float)
    w = rng.integers(1, 3, size=500).astype(float)
    d = brier_decomposition(p, y, w, 10)
    W = w.sum()
    ybar = w @ y / W
    rel = res = gap = 0.0
    for k in range(10):
        m = (p >= k / 10) & (p < (k + 1) / 10) if k < 9 else (p >= 0.9)
        nk = w[m].sum()
        pk, yk = w[m] @ p[m] / nk, w[m] @ y[m] / nk
        rel += nk * (pk - yk) ** 2 / W
        res += nk * (yk - ybar) ** 2 / W
        gap += nk * abs(pk - yk) / W
    assert d["brier"] == pytest.approx(w @ (p - y) ** 2 / W, abs=1e-14)
    assert d["reliability"] == pytest.approx(rel, abs=1e-14)
    assert d["resolution"] == pytest.approx(res, abs=1e-14)
    assert d["uncertainty"] == pytest.approx(ybar * (1 - ybar), abs=1e-14)
    assert d["brier"] == pytest.approx(d["reliability"] - d["resolution"] + d["uncertainty"]
                                       + d["within_bin"], abs=1e-14)
    assert ece(p, y, w, 10) == pytest.approx(gap, abs=1e-14)
    # the F-optimal threshold: brute force over every distinct probability
    t, f = f_optimal_threshold(p, y, w, fm.FMeasure())
    fs = [fm.Confusion(w @ (y * (p >= c)), w @ ((1 - y) * (p >= c)), w @ (y * (p < c)),
                       0).f(fm.FMeasure()) for c in np.unique(p)]
    assert f == pytest.approx(max(fs), abs=1e-14)
    assert t == pytest.approx(np.unique(p)[int(np.argmax(fs))], abs=0)


def test_f_star_half_holds_for_calibrated_probabilities():
    """Zhao et al.: for calibrated probabilities the F1-optimal threshold is F*/2; on data
    drawn from the probabilities the interval of the gap covers 0; for probabilities
    squashed towards 0.5 it does not."""
    rng = np.random.default_rng(11)
    p = rng.beta(1, 3, size=20000)
    y = (rng.uniform(size=p.size) < p).astype(float)
    w = np.ones_like(p)
    from fmstats.calibration import calibration_stats
    good = calibration_stats(p, y, w, B=200, random_state=0)
    assert good["gap_interval"][0] < 0 < good["gap_interval"][1]
    assert abs(good["gap"]) < 0.03
    squashed = 0.5 + 0.3 * (p - 0.5)
    bad = calibration_stats(squashed, y, w, B=200, random_state=0)
    assert bad["gap_interval"][0] > 0.05 and bad["ece"] > 0.05 > good["ece"]


def test_calibrated_model_is_a_model(synth):
    fit = fm.maxent("y ~ x1 + x2 + C(g)", synth, weights="w")
    cal = fm.calibrate(fit, synth, method="platt", random_state=1)
    p = cal.predict(synth)
    assert p.index.equals(synth.index) and p.between(0, 1).all()
    cls = cal.predict(synth, type="class")
    assert (cls.to_numpy() == (p.to_numpy() >= 0.5)).all()
    # measure and confusion on new data: the calibrated classes against the labels
    c = cal.confusion(synth.iloc[:200], threshold=0.3)
    pp = p.to_numpy()[:200]
    yy = synth.y.to_numpy()[:200]
    assert c.tp == pytest.approx(((pp >= 0.3) & (yy == 1)).sum())
    assert c.fp == pytest.approx(((pp >= 0.3) & (yy == 0)).sum())
    # on the training rows the prior weights count
    c_train = cal.confusion()
    hit = (p.to_numpy() >= 0.5) & (synth.y.to_numpy() == 1)
    assert c_train.tp == pytest.approx(synth.w.to_numpy() @ hit)
    # tune_threshold on the calibrated probabilities: refits base + calibration per fold
    tt = fm.tune_threshold(cal, synth, cv=3, random_state=0)
    assert tt.score_type == "response" and 0 < tt.threshold < 1
    # bootstrap resamples the coefficients and the map's parameters
    b = fm.bootstrap(cal, B=4, random_state=0, data=synth)
    assert {"platt_a", "platt_b", "x1"} <= set(b.tidy().term)
    # pickles and saves
    cal2 = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(cal2.predict(synth), p)
    assert "Brier score" in str(cal.calibration_summary(B=50, random_state=0))


def test_plot_calibration(synth):
    pytest.importorskip("matplotlib")
    fit = fm.maxent("y ~ x1 + x2", synth)
    fig = fm.calibrate(fit, synth, method="isotonic", random_state=0).plot_calibration()
    assert len(fig.axes) == 2


def test_bad_input(synth):
    fit = fm.maxent("y ~ x1 + x2", synth)
    multi = fm.multinom("g ~ x1", synth)
    with pytest.raises(InvalidArgumentError, match="`fit`.*no binary scores"):
        fm.calibrate(multi, synth)
    with pytest.raises(InvalidArgumentError, match="`method`"):
        fm.calibrate(fit, synth, method="sigmoidal")
    svm = fm.wsvm("y ~ x1 + x2", synth)
    with pytest.raises(InvalidArgumentError, match="`method`='beta'.*probabilities"):
        fm.calibrate(svm, synth, method="beta")
    with pytest.raises(InvalidArgumentError, match="`cv`"):
        fm.calibrate(fit, synth, cv=[(np.arange(10), np.arange(10, 20))] * 2)
    with pytest.raises(InvalidArgumentError, match="pass `data=`"):   # no kept rows
        fm.calibrate(fm.maxent("y ~ x1 + x2", synth, keep_data=False))
    tiny = synth.iloc[:40].copy()
    tiny["y"] = 0
    tiny.loc[tiny.index[:3], "y"] = 1
    f2 = fm.maxent("y ~ x1", tiny)
    with pytest.raises(ResponseError, match="`cv`=5"):
        fm.calibrate(f2, tiny, cv=5)


def test_svm_decision_values_platt(synth):
    svm = fm.wsvm("y ~ x1 + x2", synth)
    cal = fm.calibrate(svm, synth, method="platt", random_state=0)
    assert cal.score_type == "decision"
    d = svm.predict(synth, type="decision").to_numpy()
    a, b = cal.cmap.coef
    np.testing.assert_allclose(cal.predict(synth).to_numpy(), expit(a * d + b), atol=1e-14)
    assert a > 0


def test_ece_below_its_interval_is_explained():
    # isotonic calibration is exactly calibrated on the rows it was fitted on (ECE 0 by
    # construction), while resampled ECEs are biased upwards: the summary says so
    import fmstats as fm

    ti = fm.datasets.titanic_complete()
    fit = fm.maxent("survived ~ C(pclass) * sex + age", ti)
    cal = fm.calibrate(fit, ti, method="isotonic", random_state=0)
    st = cal.calibration_stats()
    assert abs(st["ece"]) < 1e-12 and st["ece_interval"][0] > 0.005
    assert "the estimate lies below its interval" in str(cal.calibration_summary())
