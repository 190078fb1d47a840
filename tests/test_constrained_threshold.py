"""Issue 27, item 2: tune_threshold(..., constraint=(quantity, op, value)).

The constrained search is checked against a brute-force scan of the pooled held-out scores
(counts computed here row by row at every distinct score), the warning when nothing meets
the constraint, the bad input, and constraint_probability against its definition.
"""
from __future__ import annotations

import numpy as np
import pytest

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError
from fmstats.model_selection import ConstraintWarning

from conftest import make_synth


@pytest.fixture(scope="module")
def data():
    return make_synth(600)


@pytest.fixture(scope="module")
def fit(data):
    return fm.maxent("y ~ x1 + x2 + C(g)", data)


def _brute(tuned, q, op, bound, maximize=None):
    """The best cut by a scan: pooled counts at every distinct held-out score."""
    h = tuned.cv_scores
    s, y, w = h.score.to_numpy(), h.y.to_numpy(), h.weight.to_numpy()
    best = None
    for t in np.r_[np.inf, np.unique(s)[::-1]]:
        pred = s >= t
        tp, fp = w @ (y * pred), w @ ((1 - y) * pred)
        fn, tn = w @ (y * ~pred), w @ ((1 - y) * ~pred)
        vals = {"precision": tp / (tp + fp) if tp + fp else 1.0,
                "recall": tp / (tp + fn) if tp + fn else 1.0,
                "specificity": tn / (tn + fp) if tn + fp else 1.0,
                "positive_rate": (tp + fp) / (tp + fp + fn + tn)}
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0
        ok = vals[q] >= bound if op == ">=" else vals[q] <= bound
        ok = ok and (q != "precision" or tp + fp > 0)   # nothing predicted: not met
        obj = f1 if maximize is None else vals[maximize]
        if ok and (best is None or obj > best[0] + 1e-12):
            best = (obj, t, vals)
    return best


@pytest.mark.parametrize("constraint, maximize", [
    (("precision", ">=", 0.8), None),
    (("precision", ">=", 0.8), "recall"),
    (("recall", ">=", 0.9), "precision"),
    (("specificity", ">=", 0.9), None),
    (("positive_rate", "<=", 0.2), "recall"),
])
def test_constrained_search_equals_brute_force(data, fit, constraint, maximize):
    tuned = fm.tune_threshold(fit, data, cv=4, random_state=0, constraint=constraint,
                              maximize=maximize)
    obj, t, vals = _brute(tuned, *constraint, maximize)
    row = tuned.tidy().iloc[tuned.best_index]
    assert row["threshold"] == pytest.approx(t, abs=0)
    q = constraint[0]
    assert row[q] == pytest.approx(vals[q], abs=1e-12)
    # the constraint holds on the pooled held-out rows at the tuned threshold
    v = tuned.cv_value(tuned.threshold)
    if q in v:
        assert (v[q] >= constraint[2]) if constraint[1] == ">=" else (v[q] <= constraint[2])
    # and it is binding or the objective's own optimum: the unconstrained F is no lower
    free = fm.tune_threshold(fit, data, cv=4, random_state=0)
    assert free.best_score >= tuned.best_score - 1e-12
    assert "subject to" in str(tuned.summary())


def test_no_threshold_meets_the_constraint():
    """Labels independent of x: the highest held-out score is a negative row, so no cut
    reaches precision 0.95 (predicting nothing does not count as meeting it)."""
    rng = np.random.default_rng(1)
    d = fm.datasets.titanic_complete().copy()
    d["noise"] = (rng.uniform(size=len(d)) < 0.3).astype(int)
    fit = fm.maxent("noise ~ age + sibsp", d)
    # the closest cut classes every training row negative: TrivialRuleWarning says so too
    with pytest.warns(ConstraintWarning, match="no threshold meets precision >= 0.95"), \
            pytest.warns(fm.exceptions.TrivialRuleWarning):
        tuned = fm.tune_threshold(fit, d, cv=4, random_state=0,
                                  constraint=("precision", ">=", 0.95))
    cuts = tuned.tidy()
    assert cuts.precision.iloc[1:].max() < 0.95          # the premise
    # the closest: the highest pooled precision of a cut that predicts something
    assert cuts.iloc[tuned.best_index]["precision"] == cuts.precision.iloc[1:].max()
    assert tuned.best_index > 0


@pytest.mark.parametrize("constraint, match", [
    (("auc", ">=", 0.9), "constraint\\[0\\]"),
    (("precision", ">", 0.9), "constraint\\[1\\]"),
    (("precision", ">=", 1.5), "constraint\\[2\\]"),
    (("precision", ">=", -0.1), "constraint\\[2\\]"),
    ("precision >= 0.9", "`constraint` must be a tuple"),
])
def test_bad_constraints(data, fit, constraint, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fm.tune_threshold(fit, data, cv=3, random_state=0, constraint=constraint)


def test_maximize_needs_a_constraint(data, fit):
    with pytest.raises(InvalidArgumentError, match="`maximize`"):
        fm.tune_threshold(fit, data, cv=3, maximize="recall")
    with pytest.raises(InvalidArgumentError, match="`maximize`"):
        fm.tune_threshold(fit, data, cv=3, constraint=("recall", ">=", 0.5), maximize="recall")


def test_constraint_probability_by_its_definition(data, fit):
    tuned = fm.tune_threshold(fit, data, cv=4, random_state=0,
                              constraint=("precision", ">=", 0.75))
    out = tuned.constraint_probability(B=20, random_state=3)
    # the same resamples by hand: refit on the resample, precision on the left-out rows
    rng = np.random.default_rng(3)
    n = len(data)
    vals = []
    frame = tuned.training_data
    for _ in range(20):
        idx = rng.integers(0, n, n)
        out_rows = np.setdiff1d(np.arange(n), idx)
        f = fm.maxent("y ~ x1 + x2 + C(g)", frame.iloc[idx].reset_index(drop=True))
        p = f.predict(frame.iloc[out_rows]).to_numpy() >= tuned.threshold
        y = frame.y.to_numpy()[out_rows]
        vals.append((y * p).sum() / p.sum())
    np.testing.assert_allclose(out["values"], vals, atol=1e-12)
    assert out["probability"] == pytest.approx(np.mean(np.array(vals) >= 0.75), abs=0)
    assert out["conf_low"] <= out["probability"] <= out["conf_high"]
    with pytest.raises(InvalidArgumentError, match="constraint="):
        fm.tune_threshold(fit, data, cv=3, random_state=0).constraint_probability(B=10)
