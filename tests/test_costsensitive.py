"""Tests of fmstats.costsensitive (seed 001: pseudo-linear measures, Algorithm 1)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fmstats.costsensitive import (
    PROFILE_MEASURES, best_threshold, cost_grid, cost_offset, cost_vector, costsens,
    costsens_arrays, discretisation_factor, profile_value,
)
from fmstats.exceptions import DataError, InvalidArgumentError

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

# --------------------------------------------------------------------------- Figure 3

MU_X = np.array([0.65, 0.30, 0.05])
ETA_X = np.array([0.70, 0.40, 0.15])


def _fig3_profiles():
    """(FN, FP) probabilities and exact F1 of the 8 deterministic classifiers."""
    out = {}
    for pred in itertools.product((1, 2), repeat=3):
        pos = np.array(pred) == 1
        fn = float(MU_X @ (ETA_X * ~pos))
        fp = float(MU_X @ ((1 - ETA_X) * pos))
        out[pred] = (fn, fp, profile_value("f", [fn, fp], [MU_X @ ETA_X]))
    return out


def _lower_hull_vertices(points):
    """Vertices of the lower-left convex hull (minimisers of a positive weighted sum)."""
    from scipy.spatial import ConvexHull

    pts = np.asarray(points)
    hull = ConvexHull(pts)
    verts = set()
    for (nx, ny, _), simplex in zip(hull.equations, hull.simplices):
        if nx < 0 and ny < 0:   # outward normal pointing into the negative quadrant
            verts.update(simplex.tolist())
    # extreme points on the axes (ties with zero weight) are reached as t -> 0 or 1+beta^2
    verts.add(int(np.argmin(pts[:, 0] + 1e-9 * pts[:, 1])))
    verts.add(int(np.argmin(pts[:, 1] + 1e-9 * pts[:, 0])))
    return verts


def test_fig3_reduction_finds_only_convex_hull_classifiers():
    prof = _fig3_profiles()
    keys = list(prof)
    E = np.array([[prof[k][0], prof[k][1]] for k in keys])
    P1 = float(MU_X @ ETA_X)
    found = set()
    for t in np.linspace(1e-3, 2 - 1e-3, 4001):
        costs = E @ cost_vector("f", t, [P1])
        found.add(int(np.argmin(costs)))
    hull = _lower_hull_vertices(E)
    assert found == hull
    names = {keys[i] for i in found}
    # A (all negative), D, F (the F1-optimal one) and G (all positive): the paper lists
    # A, D, F; G is also on the hull and found for t < 0.3.
    assert names == {(2, 2, 2), (1, 2, 2), (1, 1, 2), (1, 1, 1)}
    # Proposition 2: at t = F*, the minimisers of <a(F*), e> are exactly the optimal ones.
    fstar = max(prof[k][2] for k in keys)
    c = E @ cost_vector("f", fstar, [P1])
    argmins = {keys[i] for i in np.flatnonzero(np.isclose(c, c.min(), atol=1e-12))}
    assert argmins == {k for k in keys if math.isclose(prof[k][2], fstar)}


# --------------------------------------------------------------------------- Galaxy

G_MU = np.array([0.01, 0.1, 0.001, 0.889])
G_ETA = np.array([0.9, 0.09, 0.9, 0.0])


def _galaxy_f1(subset_mask):
    pos = np.asarray(subset_mask, dtype=bool)
    tp = G_MU @ (G_ETA * pos)
    fp = G_MU @ ((1 - G_ETA) * pos)
    fn = G_MU @ (G_ETA * ~pos)
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def test_galaxy_no_randomised_classifier_beats_bayes():
    """F1 is fractional-linear in the fractions q_z of each cluster predicted positive, so its
    maximum over [0, 1]^4 is at a vertex; check on 200,000 random (partial) classifiers."""
    rng = np.random.default_rng(7)
    q = rng.random((200_000, 4))
    q[:50_000] = np.round(q[:50_000], 1)
    tp = q @ (G_MU * G_ETA)
    fp = q @ (G_MU * (1 - G_ETA))
    fn = (G_MU * G_ETA).sum() - tp
    f = 2 * tp / (2 * tp + fp + fn)
    assert f.max() <= 0.0198 / 0.0299 + 1e-12
    assert f.max() > 0.0198 / 0.0299 - 0.01


def test_galaxy_reduction_reaches_bayes_f1():
    rng = np.random.default_rng(20240601)
    n = 100_000
    z = rng.choice(4, size=n, p=G_MU)
    y = (rng.random(n) < G_ETA[z]).astype(float)
    X = np.column_stack([np.ones(n), z == 0, z == 1, z == 2]).astype(float)
    bayes = max(_galaxy_f1(m) for m in itertools.product((0, 1), repeat=4))
    fit = costsens_arrays(X, y, validation=1 / 3, penalty=1e-3, random_state=1)
    cluster_pred = fit.predict(np.column_stack([np.ones(4), np.eye(4)[:, :3]])).to_numpy()
    assert fit.converged
    assert abs(_galaxy_f1(cluster_pred) - bayes) <= 0.01
    assert fit.variant == "CS&T"
    # the cost-sensitive variant without thresholds also works on this flexible model
    fit_cs = costsens_arrays(X, y, thresholds=False, penalty=1e-3, random_state=1)
    cp = fit_cs.predict(np.column_stack([np.ones(4), np.eye(4)[:, :3]])).to_numpy()
    assert abs(_galaxy_f1(cp) - bayes) <= 0.01


# --------------------------------------------------------------------------- properties

def _draw_case(draw):
    measure = draw(st.sampled_from(PROFILE_MEASURES))
    beta = draw(st.floats(0.2, 4.0))
    L = 1 if measure in ("f", "jaccard") else draw(st.integers(2, 5))
    if measure.startswith("multiclass"):
        raw = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=L, max_size=L)))
        priors = raw / raw.sum()
    else:
        priors = np.array(draw(st.lists(st.floats(0.01, 0.99), min_size=L, max_size=L)))

    def profile():
        u = np.array(draw(st.lists(st.floats(0, 1), min_size=2 * L, max_size=2 * L)))
        e = np.empty(2 * L)
        e[0::2] = u[0::2] * priors            # FN_k <= P_k
        e[1::2] = u[1::2] * (1 - priors)      # FP_k <= 1 - P_k
        return e

    return measure, beta, priors, profile


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_level_set_equivalence(data):
    measure, beta, priors, profile = _draw_case(data.draw)
    e = profile()
    top = 1.0 if measure.endswith("jaccard") else 1.0 + beta ** 2
    t = data.draw(st.floats(1e-3, top - 1e-3))
    F = profile_value(measure, e, priors, beta=beta)
    lhs = cost_vector(measure, t, priors, beta=beta) @ e + cost_offset(measure, t, priors, beta=beta)
    assume(abs(F - t) > 1e-9 and abs(lhs) > 1e-12)
    assert (F >= t) == (lhs <= 0)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_discretisation_bound(data):
    measure, beta, priors, profile = _draw_case(data.draw)
    e, e2 = profile(), profile()
    F, F2 = (profile_value(measure, v, priors, beta=beta) for v in (e, e2))
    if F2 < F:
        e, e2, F, F2 = e2, e, F2, F
    assume(F2 > F)
    phi = discretisation_factor(measure, priors, beta=beta)
    a = cost_vector(measure, F2, priors, beta=beta)
    assert F2 - F <= phi * (a @ (e - e2)) + 1e-10


def _profile_from_predictions(Y, P):
    """(FN_1, FP_1, ..., FN_L, FP_L) and priors, as proportions of the rows."""
    n = Y.shape[0]
    fn = ((Y == 1) & (P == 0)).sum(axis=0) / n
    fp = ((Y == 0) & (P == 1)).sum(axis=0) / n
    return np.column_stack([fn, fp]).ravel(), Y.mean(axis=0)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_profile_value_matches_sklearn_counts(beta):
    from sklearn.metrics import fbeta_score, jaccard_score

    rng = np.random.default_rng(int(10 * beta))
    Y = (rng.random((400, 5)) < [0.1, 0.3, 0.5, 0.2, 0.05]).astype(int)
    P = np.where(rng.random(Y.shape) < 0.7, Y, 1 - Y)
    e, priors = _profile_from_predictions(Y, P)
    assert profile_value("micro_f", e, priors, beta=beta) == pytest.approx(
        fbeta_score(Y, P, beta=beta, average="micro"), rel=1e-12)
    assert profile_value("micro_jaccard", e, priors) == pytest.approx(
        jaccard_score(Y, P, average="micro"), rel=1e-12)
    assert profile_value("f", e[:2], priors[:1], beta=beta) == pytest.approx(
        fbeta_score(Y[:, 0], P[:, 0], beta=beta), rel=1e-12)
    assert profile_value("jaccard", e[:2], priors[:1]) == pytest.approx(
        jaccard_score(Y[:, 0], P[:, 0]), rel=1e-12)


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_multiclass_profile_value_matches_definition(beta):
    """mcF of the error profile (class 0 the default) against measures.multiclass_micro_f
    (seed 001's definition, wrong_class="fn") and a direct count of TP, FP, FN."""
    from fmstats.measures import multiclass_micro_f

    rng = np.random.default_rng(5)
    y = rng.choice(4, size=500, p=[0.6, 0.2, 0.15, 0.05])
    pred = np.where(rng.random(500) < 0.6, y, rng.choice(4, size=500))
    Y, P = np.eye(4, dtype=int)[y], np.eye(4, dtype=int)[pred]
    e, priors = _profile_from_predictions(Y, P)
    got = profile_value("multiclass_f", e, priors, beta=beta)
    assert got == pytest.approx(multiclass_micro_f(y, pred, 0, beta=beta, wrong_class="fn"),
                                rel=1e-12)
    tp = np.sum((y == pred) & (y != 0))
    fn = np.sum((y != pred) & (y != 0))
    fp = np.sum((y == 0) & (pred != 0))
    b2 = beta ** 2
    assert got == pytest.approx((1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp), rel=1e-12)
    assert profile_value("multiclass_jaccard", e, priors) == pytest.approx(tp / (tp + fn + fp))


def test_paper_cost_vectors_and_phi():
    b = 2.0
    np.testing.assert_allclose(cost_vector("f", 0.3, [0.2, 0.8], beta=b), [4.7, 0.3, 0, 0])
    assert cost_offset("f", 0.3, [0.2], beta=b) == pytest.approx(5 * 0.2 * (0.3 - 1))
    np.testing.assert_allclose(cost_vector("micro_f", 0.5, [0.1, 0.2]), [1.5, 0.5, 1.5, 0.5])
    np.testing.assert_allclose(cost_vector("multiclass_f", 0.5, [0.6, 0.3, 0.1]),
                               [0.5, 0, 1.5, 0, 1.5, 0])
    assert discretisation_factor("f", [0.2], beta=b) == pytest.approx(1 / (4 * 0.2))
    assert discretisation_factor("micro_f", [0.1, 0.2]) == pytest.approx(1 / 0.3)
    assert discretisation_factor("multiclass_f", [0.6, 0.3, 0.1]) == pytest.approx(1 / 0.4)
    assert discretisation_factor("jaccard", [0.25]) == pytest.approx(4.0)
    # F at a profile agrees with counts-based F1 / Jaccard
    assert profile_value("f", [0.1, 0.2], [0.4]) == pytest.approx(2 * 0.3 / (2 * 0.3 + 0.1 + 0.2))
    assert profile_value("jaccard", [0.1, 0.2], [0.4]) == pytest.approx(0.3 / 0.6)


def test_best_threshold_matches_brute_force():
    rng = np.random.default_rng(3)
    y = (rng.random(200) < 0.3).astype(float)
    s = np.round(rng.normal(size=200) + y, 1)       # many ties
    thr, f = best_threshold(y, s, beta=1.5)
    brute = 0.0
    for c in np.unique(s):
        p = s >= c
        tp = y @ p
        brute = max(brute, (1 + 2.25) * tp / ((1 + 2.25) * tp + 2.25 * (y.sum() - tp) + p.sum() - tp))
    assert f == pytest.approx(brute)
    p = s >= thr
    tp = y @ p
    assert (3.25 * tp / (3.25 * tp + 2.25 * (y.sum() - tp) + p.sum() - tp)) == pytest.approx(f)


class _FakeSearcher:
    """Stands in for the learner loop: F(t) is a known quasi-concave curve."""

    def __init__(self, fn):
        self.fn, self.cache = fn, {}

    def __call__(self, t):
        self.cache.setdefault(t, {"f": self.fn(t)})
        return self.cache[t]


@pytest.mark.parametrize("peak", [0.13, 0.77, 1.0, 1.42, 1.93])
def test_bracketing_brackets_the_maximum(peak):
    from fmstats.costsensitive._search import _bracket

    s = _FakeSearcher(lambda t: 1.0 / (1.0 + 4 * abs(t - peak)))     # quasi-concave, peak
    _bracket(s, 2.0, budget=40, min_width=2.0 / 64)
    best = max(s.cache, key=lambda t: s.cache[t]["f"])
    assert abs(best - peak) <= 2.0 / 64
    assert len(s.cache) < 19          # fewer fits than the 19-point grid for a finer result
    s2 = _FakeSearcher(lambda t: -abs(t - peak))
    _bracket(s2, 2.0, budget=5, min_width=1e-9)
    assert len(s2.cache) == 5         # the budget caps the number of fits


def test_cost_grid_default_is_papers():
    np.testing.assert_allclose(cost_grid(19), np.arange(1, 20) / 10)


# --------------------------------------------------------------------------- Adult

ADULT_FORMULA = (
    "income == '>50K' ~ age + education_num + hours_per_week + capital_gain + capital_loss"
    " + C(sex) + C(race) + C(marital_status) + C(relationship) + C(workclass) + C(occupation)"
)


@pytest.fixture(scope="module")
def adult():
    from fmstats.datasets import load_adult

    return load_adult("train").dropna(), load_adult("test").dropna()


def _test_f1(fit, test):
    y = (test["income"] == ">50K").to_numpy().astype(int)
    p = fit.predict(test).to_numpy()
    tp = int(p @ y)
    return 2 * tp / (p.sum() + y.sum())


def test_adult_variants(adult):
    train, test = adult
    res = {}
    for costs, thr in [(False, False), (False, True), (True, False)]:
        fit = costsens(ADULT_FORMULA, train, costs=costs, thresholds=thr, random_state=0)
        res[fit.variant] = _test_f1(fit, test)
    assert set(res) == {"-", "T", "CS"}
    assert res["T"] > res["-"] and res["CS"] > res["-"]


# --------------------------------------------------------------------------- bad input

def _toy(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": (rng.random(n) < 1 / (1 + np.exp(-2 * x))).astype(int)})


def test_bad_input():
    d = _toy()
    with pytest.raises(InvalidArgumentError, match="beta"):
        costsens("y ~ x", d, beta=0)
    with pytest.raises(InvalidArgumentError, match="beta"):
        costsens("y ~ x", d, beta=-1)
    with pytest.raises(InvalidArgumentError, match="grid.*empty"):
        costsens("y ~ x", d, grid=[])
    with pytest.raises(InvalidArgumentError, match="grid"):
        costsens("y ~ x", d, grid=0)
    with pytest.raises(InvalidArgumentError, match="grid"):
        costsens("y ~ x", d, grid=[0.5, 2.5])
    with pytest.raises(InvalidArgumentError, match="penalty.*svm"):
        costsens("y ~ x", d, learner="svm", penalty=0)
    with pytest.raises(InvalidArgumentError, match="learner"):
        costsens("y ~ x", d, learner="tree")
    # measures not defined for the label type
    with pytest.raises(InvalidArgumentError, match="'micro_f' is not defined for .*binary"):
        costsens("y ~ x", d, measure="micro_f")
    with pytest.raises(InvalidArgumentError, match="'macro_f' is not defined for .*binary"):
        costsens("y ~ x", d, measure="macro_f")
    with pytest.raises(InvalidArgumentError, match="not a pseudo-linear"):
        costsens("y ~ x", d, measure="instance_f")
    with pytest.raises(InvalidArgumentError, match="search"):
        costsens("y ~ x", d, search="golden")
    with pytest.raises(DataError, match="validation.*no positive"):
        costsens("y ~ x", d, validation=(d["y"] == 0).to_numpy())
    with pytest.raises(InvalidArgumentError, match="validation"):
        costsens("y ~ x", d, validation=1.5)
    with pytest.raises(InvalidArgumentError, match="macro_f"):
        cost_vector("macro_f", 0.5, [0.3])
    with pytest.raises(InvalidArgumentError, match="measure"):
        profile_value("instance_f", [0.1, 0.1], [0.3])
    with pytest.raises(InvalidArgumentError, match="priors"):
        cost_vector("multiclass_f", 0.5, [0.3])
    with pytest.raises(InvalidArgumentError, match="2L"):
        profile_value("micro_f", [0.1, 0.1, 0.2], [0.3, 0.2])


@pytest.mark.parametrize("search", ["grid", "bracket"])
def test_variants_share_fits_but_equal_separate_calls(search):
    from fmstats.costsensitive import costsens_variants

    d, test = _toy(400, 2), _toy(300, 3)
    table, fits = costsens_variants("y ~ x", d, test, grid=7, search=search, random_state=4)
    assert list(table["variant"]) == ["-", "T", "CS", "CS&T"]
    for costs, thr in [(False, False), (False, True), (True, False), (True, True)]:
        one = costsens("y ~ x", d, costs=costs, thresholds=thr, grid=7, search=search,
                       random_state=4)
        row = table[table["variant"] == one.variant].iloc[0]
        # exact: the table's variant reuses the very fits and records the separate call makes
        assert row["validation_f"] == one.validation_f
        assert row["test_f"] == pytest.approx(one.measure(test))
        np.testing.assert_array_equal(fits[("logit", one.variant)].coef, one.coef)
        pd.testing.assert_frame_equal(fits[("logit", one.variant)].tidy(), one.tidy())
    again = fits[("logit", "CS")].refit(d)   # the same computation again: equal bit for bit
    assert again.variant == "CS" and again.validation_f == fits[("logit", "CS")].validation_f


def test_validation_by_index_and_mask():
    d = _toy(300, 1)
    mask = np.arange(len(d)) % 3 == 0
    a = costsens("y ~ x", d, validation=mask, grid=5)
    b = costsens("y ~ x", d, validation=d.index[mask], grid=5)
    assert a.n_validation == mask.sum() == b.n_validation
    assert a.validation_f == pytest.approx(b.validation_f)
