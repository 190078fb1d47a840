"""validate(): optimism bootstrap, .632 and .632+ against hand computations with independent
refits and scikit-learn's scores; the no-information F against brute force."""
from __future__ import annotations

import itertools
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, f1_score, fbeta_score

import fmstats as fm
from fmstats.resampling import ResamplingWarning
from fmstats.exceptions import InvalidArgumentError
from fmstats.resampling._validate import (OptimismWarning, ValidateResults, estimate_632plus,
                              no_information_counts, validate)

F = "y ~ x1 + x2"


@pytest.fixture
def small(synth):
    return synth.iloc[:60]


def test_632plus_equals_hand_computation(small):
    B = 15
    r = fm.maxent(F, small, tol=1e-12)
    v = validate(r, B, method=".632+", measure=[None, "accuracy"], random_state=4,
                 progress=False)
    y = small["y"].to_numpy(dtype=float)
    p0 = r.predict(small).to_numpy()
    # the hand computation classifies by its own predictions of its own refits, fmstats by
    # the replicate fits' values: equal to ~1e-10, so no probability may be that close to 0.5
    # (the F values compared below are functions of the resulting counts)
    assert np.abs(p0 - 0.5).min() > 1e-8
    pred0 = (p0 >= 0.5).astype(float)
    train = {"F1": [], "accuracy": []}
    test = {"F1": [], "accuracy": []}
    s_out, n_out = np.zeros(len(y)), np.zeros(len(y))
    for b in range(B):
        c = v.counts(b)
        assert c.sum() == len(y)
        m = fm.maxent(F, small.loc[small.index.repeat(c)], tol=1e-12)   # independent refit
        p = m.predict(small).to_numpy()
        assert np.abs(p - 0.5).min() > 1e-8             # as for p0 above
        p = (p >= 0.5).astype(float)
        yb, pb = np.repeat(y, c), np.repeat(p, c)
        train["F1"].append(f1_score(yb, pb))
        train["accuracy"].append(accuracy_score(yb, pb))
        test["F1"].append(f1_score(y, p))
        test["accuracy"].append(accuracy_score(y, p))
        out = c == 0
        s_out[out] += p[out]
        n_out[out] += 1
    seen = n_out > 0
    a, yo = s_out[seen] / n_out[seen], y[seen]          # out-of-bag share predicted positive
    tp, fp, fn = yo @ a, (1 - yo) @ a, yo @ (1 - a)
    oob = {"F1": 2 * tp / (2 * tp + fp + fn),
           "accuracy": np.mean(yo * a + (1 - yo) * (1 - a))}
    pi, rho = y.mean(), pred0.mean()
    noinfo = {"F1": 2 * pi * rho / (pi + rho), "accuracy": pi * rho + (1 - pi) * (1 - rho)}
    app = {"F1": f1_score(y, pred0), "accuracy": accuracy_score(y, pred0)}
    for name in ("F1", "accuracy"):
        row = v.table.loc[name]
        opt = np.mean(np.array(train[name]) - np.array(test[name]))
        err, err1, gamma = 1 - app[name], 1 - oob[name], 1 - noinfo[name]
        err1p = min(err1, gamma)
        R = (err1p - err) / (gamma - err) if err1 > err and gamma > err else 0.0
        w = 0.632 / (1 - 0.368 * R)
        expected = {
            "apparent": app[name], "training": np.mean(train[name]),
            "test": np.mean(test[name]), "optimism": opt, "corrected_boot": app[name] - opt,
            "oob": oob[name], "no_information": noinfo[name], "overfit_rate": R,
            "corrected_632": 0.368 * app[name] + 0.632 * oob[name],
            "corrected_632plus": 1 - ((1 - w) * err + w * err1p)}
        for key, value in expected.items():
            assert row[key] == pytest.approx(value, rel=1e-10, abs=1e-12), (name, key)
        assert v.corrected[name] == row["corrected_632plus"]     # the same value, copied


def test_no_information_counts_equal_all_pairings_brute_force():
    rng = np.random.default_rng(1)
    q = rng.random(7).round(2)
    pred = (rng.random(7) < 0.4).astype(float)
    w = rng.integers(1, 4, size=7).astype(float)
    cells = np.zeros(4)
    for i, j in itertools.product(range(7), repeat=2):   # label of row i with prediction of j
        pair = w[i] * w[j] / w.sum()
        cells += pair * np.array([q[i] * pred[j], (1 - q[i]) * pred[j],
                                  q[i] * (1 - pred[j]), (1 - q[i]) * (1 - pred[j])])
    np.testing.assert_allclose(no_information_counts(q, pred, w), cells, rtol=1e-12)
    # the closed form of the module docstring: F0 = pi rho / (alpha rho + (1 - alpha) pi)
    pi, rho = (w @ q) / w.sum(), (w @ pred) / w.sum()
    fm2 = fm.FMeasure(beta=2)
    assert fm2.from_counts(*cells[:3]) == pytest.approx(
        pi * rho / (fm2.alpha * rho + (1 - fm2.alpha) * pi), rel=1e-12)


@pytest.mark.parametrize("apparent,oob,noinfo,expected", [
    (0.80, 0.82, 0.40, 0.368 * 0.80 + 0.632 * 0.82),   # no overfitting: R = 0, the .632
    (0.80, 0.30, 0.40, 0.40),                          # worse than no information: gamma
    (0.80, 0.60, 0.40, None),                          # in between
])
def test_estimate_632plus_limits(apparent, oob, noinfo, expected):
    est, r, w = estimate_632plus(apparent, oob, noinfo)
    if expected is None:
        r_hand = (0.4 - 0.2) / (0.6 - 0.2)
        assert r == pytest.approx(r_hand)
        expected = 1 - (0.2 + 0.632 / (1 - 0.368 * r_hand) * 0.2)
    assert est == pytest.approx(expected, rel=1e-12)


def test_apparent_matches_the_model_and_sklearn(synth):
    r = fm.maxent("y ~ x1 + x2 + g", synth, beta=2)
    v = validate(r, 20, measure=[None, "accuracy", "precision", "recall", "jaccard"],
                 random_state=1, progress=False)
    t = v.tidy().set_index("measure")
    assert list(t.index) == ["F2", "accuracy", "precision", "recall", "jaccard"]
    y, p = synth["y"], r.predict(synth, type="class")
    assert t.loc["F2", "apparent"] == pytest.approx(fbeta_score(y, p, beta=2), rel=1e-12)
    assert t.loc["F2", "apparent"] == pytest.approx(r.measure(), rel=1e-12)
    assert t.loc["accuracy", "apparent"] == pytest.approx(accuracy_score(y, p), rel=1e-12)
    assert t.loc["precision", "apparent"] == pytest.approx(r.confusion().precision, rel=1e-12)
    assert t.loc["jaccard", "apparent"] == pytest.approx(r.confusion().jaccard, rel=1e-12)
    assert (t["n"] == 20).all() and v.method == "boot"
    np.testing.assert_allclose(t["corrected"], t["apparent"] - t["optimism"])
    np.testing.assert_allclose(
        t["optimism"], (v.replicates.xs("training", axis=1, level=1)
                        - v.replicates.xs("test", axis=1, level=1)).mean())
    v2 = validate(r, 20, measure="f", beta=0.5, random_state=1, progress=False)
    assert v2.tidy()["measure"].tolist() == ["F0.5"]


def test_fast_path_equals_full_refits(synth):
    r = fm.maxent("y ~ x1 + x2 + g", synth, weights="w", tol=1e-12)
    a = validate(r, 10, method=".632", random_state=2, progress=False)
    b = validate(r, 10, method=".632", data=synth, fast=False, random_state=2, progress=False)
    assert a.fast and not b.fast
    pd.testing.assert_frame_equal(a.table, b.table, rtol=1e-12)


def test_fmaxent_validation_refits_the_maximiser(synth):
    small = synth.iloc[:150]
    r = fm.fmaxent("q ~ x1 + x2", small, alpha=0.3)
    v = validate(r, 3, data=small, random_state=3, progress=False)
    c = v.counts(0)
    m = fm.fmaxent("q ~ x1 + x2", small.loc[small.index.repeat(c)], alpha=0.3)
    p = m.predict(small, type="class").to_numpy()
    q = small["q"].to_numpy()
    # probabilistic labels count fractionally: TP = sum q p, FP = sum (1 - q) p, FN = sum q (1 - p)
    f = fm.FMeasure(alpha=0.3).from_counts(q @ p, (1 - q) @ p, q @ (1 - p))
    name = "F(beta=1.52753)"
    assert v.replicates.iloc[0][(name, "test")] == pytest.approx(f, rel=1e-9)
    assert v.table.loc[name, "apparent"] == pytest.approx(r.measure(), rel=1e-12)


def test_pickle_and_summary(synth):
    r = fm.maxent(F, synth)
    v = validate(r, 8, method=".632+", random_state=5, progress=False)
    w = pickle.loads(pickle.dumps(v))
    assert isinstance(w, ValidateResults)
    pd.testing.assert_frame_equal(w.tidy(), v.tidy())
    np.testing.assert_array_equal(w.counts(3), v.counts(3))
    text = str(v.summary())
    assert "optimism" in text and ".632+" in text and f"{v.corrected['F1']:.4f}" in text
    assert "<table" in v.summary()._repr_html_()


def test_failed_replicates_are_reported():
    d = pd.DataFrame({"x": np.arange(12.0), "y": [0, 1] + [0] * 9 + [1]})
    r = fm.maxent("y ~ x", d, penalty=1.0)
    with pytest.warns(ResamplingWarning, match="validate fits failed"):
        with warnings.catch_warnings():   # 12 rows, 2 positives: the optimism exceeds the
            warnings.simplefilter("ignore", OptimismWarning)   # apparent F (tested elsewhere)
            v = validate(r, 30, random_state=0, progress=False)
    assert v.n_failed > 0 and len(v.replicates) == 30 - v.n_failed


@pytest.mark.parametrize("kwargs,match", [
    (dict(B=1), r"`B` must lie in \[2, inf\]"),
    (dict(method="cv"), "`method` must be one of 'boot', '.632', '.632\\+'"),
    (dict(measure="auc"), "`measure` must be an FMeasure, 'f', one of 'accuracy'"),
    (dict(measure=[]), "at least one measure"),
    (dict(measure=fm.FMeasure(beta=2), beta=1), "at most one of"),
])
def test_bad_arguments(synth, kwargs, match):
    r = fm.maxent(F, synth)
    with pytest.raises(InvalidArgumentError, match=match):
        validate(r, **{"B": 5, **kwargs})
