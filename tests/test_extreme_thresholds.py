"""Tests of fmstats.extreme: sparse probability estimates, STO, FTA, OFO, bounds (5).

References are independent of the code under test: exhaustive searches over
all thresholds on a dense copy, straightforward per-instance / per-label loops
written here from the seed's Algorithms 1 and 2, and scikit-learn's
``fbeta_score`` for the F values.
"""
from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from fmstats.exceptions import DataError, DataWarning, InvalidArgumentError, ResponseError
from fmstats.extreme import SPE, as_spe, iter_spe, spe_from_scorer
from fmstats.extreme import make_extreme_spe
from fmstats.extreme import (PAPER_C, ThresholdFit, fta, label_priors,
                                        macro_f_at_thresholds, ofo, sto, threshold_bounds)
from fmstats.measures import FMeasure

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

skm = pytest.importorskip("sklearn.metrics")

FAST = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------------------
# data and independent references
# ---------------------------------------------------------------------------
def problem(seed, n=40, m=12, density=0.35, grid=None, tau=0.0):
    """A dense probability matrix P (zeros where nothing is stored), labels Y.

    Estimates on a coarse grid make ties; label 0 has no positives, label 1 no
    estimates; some positives have no estimate.
    """
    rng = np.random.default_rng(seed)
    P = rng.random((n, m))
    if grid:
        P = np.ceil(P * grid) / grid
    P[rng.random((n, m)) > density] = 0.0
    P[P <= tau] = 0.0
    Y = (rng.random((n, m)) < np.where(P > 0, P, 0.1)).astype(int)
    Y[:, 0] = 0
    P[:, 1] = 0.0
    return P, Y


def sk_f(y, yhat, beta=1.0):
    return skm.fbeta_score(y, yhat, beta=beta, zero_division=1.0)


def exact_f(tp, pred, pos, beta2):
    """F_beta as an exact fraction; 0/0 = 1 (Lewis)."""
    den = beta2 * pos + pred
    return Fraction(1) if den == 0 else Fraction((1 + beta2) * tp, den)


def brute_sto(P, Y, tau, beta2=1):
    """Per label: every threshold in {tau_j} U {stored estimates}, exact F, ties -> largest."""
    n, m = P.shape
    th, fs = np.empty(m), np.empty(m)
    for j in range(m):
        col, y = P[:, j], Y[:, j]
        cands = sorted({float(tau[j])} | {float(v) for v in col if v > tau[j]})
        best = None
        for t in cands:
            pred = col > t
            f = exact_f(int((pred & (y == 1)).sum()), int(pred.sum()), int(y.sum()), beta2)
            if best is None or f >= best:
                best, th[j] = f, t
        fs[j] = float(best)
    return th, fs


def loop_fta(P, Y, cands, shared, lower, alpha=0.5):
    """FTA by loops over candidates and labels (the same F arithmetic as measures).

    Ties: F values within 1e-12 relative of the best count as equal and go to the largest
    candidate (fmstats' stated tie rule), so summation order never decides between equal
    counts; distinct F here (ratios of small counts) and their means differ by far more.
    """
    n, m = P.shape
    cands = sorted(set(cands))
    F = np.empty((m, len(cands)))
    for k, c in enumerate(cands):
        for j in range(m):
            pred = P[:, j] > max(c, lower[j])
            tp = float((pred & (Y[:, j] == 1)).sum())
            fp, fn = float(pred.sum()) - tp, float(Y[:, j].sum()) - tp
            den = tp + alpha * fp + (1 - alpha) * fn
            F[j, k] = tp / den if den > 0 else 1.0
    def last_best(v):
        return max(i for i in range(len(v)) if v[i] >= v.max() * (1 - 1e-12))

    if shared:
        macro = F.mean(axis=0)
        choice = [last_best(macro)] * m
    else:
        choice = [last_best(F[j]) for j in range(m)]
    return np.array([max(cands[k], lower[j]) for j, k in enumerate(choice)]), F


def loop_ofo(P, Y, a, b, lower=None, upper=None, beta2=1.0):
    """Algorithm 2 literally: one instance at a time, one label at a time (dense)."""
    n, m = P.shape
    a, b = np.full(m, float(a)), np.full(m, float(b))

    def bound(t, j):
        if lower is not None:
            t = max(t, lower[j])
        if upper is not None:
            t = min(t, upper[j])
        return t

    theta = np.array([bound(a[j] / b[j], j) for j in range(m)])
    preds = np.zeros((n, m), dtype=int)
    for i in range(n):
        for j in range(m):
            yhat = P[i, j] > theta[j]
            y = Y[i, j] == 1
            preds[i, j] = yhat
            if y or yhat:
                a[j] = a[j] + (y and yhat)
                b[j] = b[j] + (beta2 * y + yhat)
                theta[j] = bound(a[j] / b[j], j)
    return theta, preds


# ---------------------------------------------------------------------------
# SPE container and builders
# ---------------------------------------------------------------------------
def test_spe_keeps_estimates_above_thresholds_and_roundtrips():
    P = np.array([[0.9, 0.05, 0.3], [0.1, 0.6, 0.0], [0.2, 0.2, 0.2]])
    spe = SPE(sp.csr_matrix(P), thresholds=[0.2, 0.0, 0.25])
    expected = np.where(P > np.array([0.2, 0.0, 0.25]), P, 0.0)
    # exact here and below: an SPE stores copies of the estimates, no arithmetic
    np.testing.assert_array_equal(spe.toarray(), expected)
    assert spe.nnz == 5 and spe.shape == (3, 3)
    back = pickle.loads(pickle.dumps(spe))
    np.testing.assert_array_equal(back.toarray(), expected)
    np.testing.assert_array_equal(back.thresholds, spe.thresholds)
    with pytest.raises(ValueError):
        spe.thresholds[0] = 0.5          # read-only


def test_restrict_take_rows_and_chunks():
    P, _ = problem(1)
    spe = as_spe(sp.csr_array(P))
    r = spe.restrict(0.5)
    np.testing.assert_array_equal(r.toarray(), np.where(P > 0.5, P, 0))
    with pytest.raises(InvalidArgumentError, match="at least the SPE's own"):
        r.restrict(0.4)
    np.testing.assert_array_equal(spe.take_rows(slice(5, 9)).toarray(), P[5:9])
    np.testing.assert_array_equal(spe.take_rows([3, 1]).toarray(), P[[3, 1]])
    parts = list(spe.row_chunks(7))
    assert [p.shape[0] for p in parts] == [7] * 5 + [5]
    np.testing.assert_array_equal(np.vstack([p.toarray() for p in parts]), P)


@pytest.mark.parametrize("chunk_size", [None, 1, 7, 1000])
@pytest.mark.parametrize("tau", [0.0, 0.4, "per_label"])
def test_spe_from_scorer_equals_dense_thresholding(chunk_size, tau):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(53, 4))
    W = rng.normal(size=(4, 9))
    calls = []

    def scorer(rows):
        calls.append(rows.shape[0])
        # elementwise products and a short sum: the same bits whatever the chunk size
        # (a BLAS product of 1 row and of 53 rows may differ in the last bit)
        z = (np.asarray(rows)[:, :, None] * W[None]).sum(axis=1)
        return 1 / (1 + np.exp(-z))

    tau = np.linspace(0.1, 0.9, 9) if tau == "per_label" else tau
    spe = spe_from_scorer(scorer, X, tau, chunk_size=chunk_size)
    dense = scorer(X)
    np.testing.assert_array_equal(spe.toarray(), np.where(dense > tau, dense, 0.0))
    assert sum(calls[:-1]) == X.shape[0]
    if chunk_size is not None:
        assert max(calls[:-1]) <= chunk_size
    chunks = list(iter_spe(scorer, pd.DataFrame(X), tau, chunk_size=chunk_size or 10))
    np.testing.assert_array_equal(np.vstack([c.toarray() for c in chunks]), spe.toarray())


def test_spe_from_scorer_bad_output():
    X = np.zeros((5, 2))
    with pytest.raises(ResponseError, match=r"probabilities in \[0, 1\].*row 2, label 1"):
        spe_from_scorer(lambda r: np.where(np.arange(len(r))[:, None] == 2, [[0.1, 1.5]],
                                           0.2), X, chunk_size=5)
    with pytest.raises(InvalidArgumentError, match=r"shape \(5, m\).*got shape \(5,\)"):
        spe_from_scorer(lambda r: np.zeros(len(r)), X, chunk_size=5)
    with pytest.raises(DataError, match="empty label set"):
        spe_from_scorer(lambda r: np.zeros((len(r), 0)), X)
    with pytest.raises(InvalidArgumentError, match="callable"):
        spe_from_scorer("predict_proba", X)


@pytest.mark.parametrize("bad, err, msg", [
    (np.array([[0.2, 1.2]]), ResponseError, r"\[0, 1\].*row 0, label 1 \(1.2\)"),
    (np.array([[-0.1, 0.2]]), ResponseError, r"\[0, 1\].*\(-0.1\)"),
    (np.array([[np.nan, 0.2]]), ResponseError, r"\[0, 1\]"),
    (np.zeros((3, 0)), DataError, "empty label set"),
    (np.zeros((0, 3)), DataError, "no rows"),
    (np.zeros(3), InvalidArgumentError, "2-d"),
    ("probs", InvalidArgumentError, "must be an SPE"),
])
def test_spe_bad_input(bad, err, msg):
    with pytest.raises(err, match=msg):
        as_spe(bad)


def test_spe_bad_thresholds_and_duplicates():
    P = sp.csr_array(np.array([[0.5, 0.2]]))
    for tau, msg in [(1.5, r"\[0, 1\].*label 0 \(1.5\)"), ([0.1, -0.2], r"label 1 \(-0.2\)"),
                     ([0.1, 0.2, 0.3], "one value per label"), (True, "number")]:
        with pytest.raises(InvalidArgumentError, match=msg):
            SPE(P, tau)
    dup = sp.csr_array((np.array([0.3, 0.4]), np.array([1, 1]), np.array([0, 2])), shape=(1, 2))
    with pytest.raises(DataError, match="duplicate"):
        SPE(dup)


# ---------------------------------------------------------------------------
# evaluation, Lewis convention, bounds (5)
# ---------------------------------------------------------------------------
def test_macro_f_matches_sklearn_and_lewis_convention():
    P, Y = problem(5)
    theta = np.random.default_rng(0).uniform(0, 0.6, P.shape[1])
    got = macro_f_at_thresholds(sp.csr_array(P), sp.csr_array(Y), theta, average=None)
    pred = (P > theta).astype(int)
    ref = [sk_f(Y[:, j], pred[:, j]) for j in range(P.shape[1])]
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-15)
    # label 0: no positives; label 1: no estimates -> no predictions -> Lewis: F = 1
    # (exact: 0 / den is 0 and the zero_division value is copied)
    assert got[0] == (1.0 if pred[:, 0].sum() == 0 else 0.0)
    assert got[1] == 0.0 if Y[:, 1].any() else got[1] == 1.0
    Y2 = Y.copy()
    Y2[:, 1] = 0
    assert macro_f_at_thresholds(P, Y2, theta, average=None)[1] == 1.0
    assert macro_f_at_thresholds(P, Y2, theta, average=None, zero_division=0.0)[1] == 0.0


def test_lewis_convention_in_the_tuners():
    P = np.array([[0.9, 0.3], [0.2, 0.0], [0.6, 0.0]])
    Y = np.array([[1, 0], [0, 0], [1, 0]])           # label 1 has no positives
    s = sto(P, Y)
    # exact: every F here is 0 (0 / den), 1 (tp / tp) or the zero_division value, and the
    # thresholds are copies of estimates or candidates
    assert s.thresholds[1] >= 0.3 and s.label_f[1] == 1.0 and s.macro_f == 1.0
    assert s.thresholds[0] == pytest.approx(0.2) and s.label_f[0] == 1.0
    # FTA: 0.25 predicts label 1 at 0.3 (F = 0), 0.5 predicts nothing (F = 1), label 0 F = 1
    f = fta(P, Y, [0.1, 0.25, 0.5], shared=False)
    assert f.thresholds[1] == 0.5 and f.label_f[1] == 1.0
    assert sto(P, Y, zero_division=0.0).label_f[1] == 0.0
    # OFO: label 1 is never predicted while its threshold is >= 0.3 -> online F = 1
    o = ofo(P, Y, 1, 2, return_predictions=True)
    assert o.predictions.toarray()[:, 1].sum() == 0 and o.label_f[1] == 1.0
    assert ofo(P, Y, 1, 2, zero_division=0.0).label_f[1] == 0.0
    # ... and predicted once (estimate 0.3 > 0.1) -> F = 0
    assert ofo(P, Y, 1, 10).label_f[1] == 0.0


def test_threshold_bounds_formula_and_meaning():
    pi = np.array([0.0, 0.01, 0.2, 0.5, 1.0])
    lo, hi = threshold_bounds(pi)
    np.testing.assert_allclose(lo, pi / (pi + 1), rtol=1e-15)
    np.testing.assert_array_equal(hi, 0.5)     # exact: alpha = 1 / (1 + 1)
    # meaning: alpha * F of predicting everything positive, for any beta (sklearn)
    for beta in (0.5, 2.0):
        lo_b, hi_b = threshold_bounds(pi[1:4], beta=beta)
        alpha = 1 / (1 + beta ** 2)
        for p, l in zip(pi[1:4], lo_b):
            y = np.r_[np.ones(int(p * 1000)), np.zeros(1000 - int(p * 1000))]
            assert l == pytest.approx(alpha * skm.fbeta_score(y, np.ones(1000), beta=beta),
                                      rel=1e-12)
        np.testing.assert_allclose(hi_b, alpha)
    with pytest.raises(ResponseError, match="priors"):
        threshold_bounds([0.1, 1.2])


def test_label_priors():
    Y = np.array([[1, 0, 1], [0, 0, 1], [1, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(label_priors(sp.csr_array(Y)), [0.5, 0, 1])   # k / 4, exact


def test_thresholds_below_spe_tau_warn():
    P, Y = problem(2, tau=0.3)
    spe = SPE(P, 0.3)
    with pytest.warns(DataWarning, match="below the SPE's thresholds"):
        macro_f_at_thresholds(spe, Y, 0.1)
    with pytest.warns(DataWarning, match="candidates"):
        fta(spe, Y, [0.1, 0.5])


# ---------------------------------------------------------------------------
# STO
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("grid", [None, 5])
@pytest.mark.parametrize("tau", [0.0, 0.15])
def test_sto_equals_exhaustive_search(seed, grid, tau):
    P, Y = problem(seed, grid=grid, tau=tau)
    taus = np.full(P.shape[1], tau)
    fit = sto(SPE(sp.csr_array(P), taus), sp.csr_array(Y))
    th, fs = brute_sto(P, Y, taus)
    # exact: thresholds are copies of estimates (or tau), chosen in exact fractions by
    # brute_sto; distinct F (ratios of counts <= 40) differ by far more than the tie rtol
    np.testing.assert_array_equal(fit.thresholds, th)
    np.testing.assert_allclose(fit.label_f, fs, rtol=0, atol=1e-15)
    # the F values are those of the predictions at the thresholds (sklearn)
    pred = (P > fit.thresholds).astype(int)
    ref = [sk_f(Y[:, j], pred[:, j]) for j in range(P.shape[1])]
    np.testing.assert_allclose(fit.label_f, ref, rtol=0, atol=1e-15)
    assert fit.macro_f == pytest.approx(np.mean(ref), abs=1e-15)
    # no threshold >= tau on a fine grid does better for any label (dense counts)
    pos = Y.sum(axis=0)
    for t in np.linspace(tau, 1, 201):
        pred = P > t
        tp, npred = (pred & (Y == 1)).sum(axis=0), pred.sum(axis=0)
        den = pos + npred
        f = np.where(den > 0, 2 * tp / np.maximum(den, 1), 1.0)
        assert (f <= fit.label_f + 1e-12).all()


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_sto_other_beta_equals_exhaustive_search(beta):
    P, Y = problem(11, grid=10)
    fit = sto(P, Y, beta=beta)
    th, fs = brute_sto(P, Y, np.zeros(P.shape[1]), beta2=Fraction(beta) ** 2)
    np.testing.assert_array_equal(fit.thresholds, th)
    np.testing.assert_allclose(fit.label_f, fs, rtol=1e-14)


def test_sto_lower_bounds_and_pickle():
    P, Y = problem(4, grid=20)
    lb = np.linspace(0.0, 0.6, P.shape[1])
    fit = sto(P, Y, lower_bounds=lb)
    assert (fit.thresholds >= lb).all()
    th, _ = brute_sto(np.where(P > lb, P, 0), Y, lb)
    np.testing.assert_array_equal(fit.thresholds, th)
    back = pickle.loads(pickle.dumps(fit))
    assert isinstance(back, ThresholdFit) and back.macro_f == fit.macro_f
    np.testing.assert_array_equal(back.thresholds, fit.thresholds)
    assert back.measure == FMeasure(beta=1)
    assert "sto" in repr(fit) and "F1" in repr(fit)


def test_fit_predict_and_score_on_new_data():
    P, Y = problem(8)
    P2, Y2 = problem(9)
    fit = sto(P, Y)
    pred = fit.predict(sp.csr_array(P2)).toarray()
    np.testing.assert_array_equal(pred, (P2 > fit.thresholds).astype(float))
    assert fit.score(P2, Y2) == pytest.approx(
        np.mean([sk_f(Y2[:, j], pred[:, j]) for j in range(P.shape[1])]), abs=1e-15)
    with pytest.raises(DataError, match="12 labels"):
        fit.predict(P2[:, :5])


# ---------------------------------------------------------------------------
# FTA
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("bounded", [False, True])
def test_fta_equals_loop(seed, shared, bounded):
    P, Y = problem(seed, grid=10)
    cands = [0.5, 0.1, 0.3, 0.2, 0.3, 0.05, 0.7]
    lower = np.linspace(0, 0.4, P.shape[1]) if bounded else np.zeros(P.shape[1])
    fit = fta(P, Y, cands, shared=shared, lower_bounds=lower if bounded else None)
    th, F = loop_fta(P, Y, cands, shared, lower)
    # thresholds and candidates are copies of the candidates and bounds: exact
    np.testing.assert_array_equal(fit.thresholds, th)
    np.testing.assert_array_equal(fit.candidates, sorted(set(cands)))
    # computed by two paths (count histograms vs loops): means of 12 F values in [0, 1]
    # agree to rounding, a few 1e-16
    np.testing.assert_allclose(fit.candidate_macro_f, F.mean(axis=0), rtol=0, atol=1e-14)
    pred = (P > fit.thresholds).astype(int)
    np.testing.assert_allclose(
        fit.label_f, [sk_f(Y[:, j], pred[:, j]) for j in range(P.shape[1])], atol=1e-15)


def test_fta_paper_grid_and_bad_candidates():
    P, Y = problem(3)
    fit = fta(P, Y, 1 / np.array(PAPER_C))
    assert fit.shared and len(fit.candidates) == 12
    assert np.unique(fit.thresholds).size == 1
    for bad, msg in [([], "at least one"), ([0.2, 1.3], r"\[0, 1\]"), ("x", "numbers")]:
        with pytest.raises(InvalidArgumentError, match=msg):
            fta(P, Y, bad)
    with pytest.raises(InvalidArgumentError, match="shared"):
        fta(P, Y, [0.5], shared="yes")


# ---------------------------------------------------------------------------
# OFO
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("a, b", [(1, 2), (1, 10), (0, 1), (0.3, 0.9)])
def test_ofo_equals_loop(seed, a, b):
    P, Y = problem(seed, n=60, grid=None if seed % 2 else 8)
    fit = ofo(sp.csr_array(P), sp.csr_array(Y), a, b, return_predictions=True)
    theta, preds = loop_ofo(P, Y, a, b)
    # exact: theta = a / b, where ofo and the loop add the same increments to a and b in the
    # same order (elementwise IEEE arithmetic, no BLAS, no reduction: the same bits on any
    # machine); the 0/1 predictions hinge on these bits, as estimates on a grid can equal theta
    np.testing.assert_array_equal(fit.thresholds, theta)
    np.testing.assert_array_equal(fit.predictions.toarray(), preds)


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_ofo_other_beta_equals_loop(beta):
    P, Y = problem(7, n=80)
    fit = ofo(P, Y, 1, 4, beta=beta, return_predictions=True)
    theta, preds = loop_ofo(P, Y, 1, 4, beta2=beta ** 2)
    np.testing.assert_array_equal(fit.thresholds, theta)
    np.testing.assert_array_equal(fit.predictions.toarray(), preds)
    ref = [sk_f(Y[:, j], preds[:, j], beta) for j in range(P.shape[1])]
    np.testing.assert_allclose(fit.label_f, ref, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_ofo_online_f_is_f_of_its_sequential_predictions(seed):
    P, Y = problem(seed, n=70)
    fit = ofo(P, Y, 1, 5, return_predictions=True)
    preds = fit.predictions.toarray()
    ref = [sk_f(Y[:, j], preds[:, j]) for j in range(P.shape[1])]
    np.testing.assert_allclose(fit.label_f, ref, atol=1e-15)
    assert fit.macro_f == pytest.approx(np.mean(ref), abs=1e-15)
    # the trace after instance i is the macro-F of the predictions of instances 0..i
    for i in (0, 1, 9, 35, 69):
        want = np.mean([sk_f(Y[:i + 1, j], preds[:i + 1, j]) for j in range(P.shape[1])])
        assert fit.trace[i] == pytest.approx(want, abs=1e-12)
    assert fit.trace.shape == (70,)


def test_ofo_stream_equals_single_matrix():
    P, Y = problem(6, n=90)
    one = ofo(P, Y, 1, 3, return_predictions=True)
    spe = as_spe(sp.csr_array(P))
    for size in (1, 7, 90):
        many = ofo(spe.row_chunks(size), Y, 1, 3, return_predictions=True, progress=False)
        np.testing.assert_array_equal(many.thresholds, one.thresholds)
        np.testing.assert_allclose(many.trace, one.trace, atol=1e-12)
        assert (many.predictions != one.predictions).nnz == 0


def test_ofo_bounds_equal_loop_and_hold():
    P, Y = problem(12, n=80)
    lo, hi = threshold_bounds(label_priors(Y))
    lo = np.maximum(lo, 0.05)
    hi = np.full(P.shape[1], 0.3)
    fit = ofo(P, Y, 1, 1.5, lower_bounds=lo, upper_bounds=hi, return_predictions=True)
    theta, preds = loop_ofo(P, Y, 1, 1.5, lo, hi)
    np.testing.assert_array_equal(fit.thresholds, theta)
    np.testing.assert_array_equal(fit.predictions.toarray(), preds)
    assert ((fit.thresholds >= lo) & (fit.thresholds <= hi)).all()


@given(seed=st.integers(0, 2**31 - 1), a=st.floats(0, 3), c=st.floats(1, 50))
@FAST
def test_ofo_thresholds_within_bounds_property(seed, a, c):
    P, Y = problem(seed, n=30, m=6)
    b = max(a, 1.0) * c
    lo, hi = threshold_bounds(label_priors(Y))
    fit = ofo(P, Y, a, b, lower_bounds=lo, upper_bounds=hi)
    assert ((fit.thresholds >= lo) & (fit.thresholds <= hi)).all()
    # unbounded OFO with a/b <= 1/2 never leaves [0, 1/2] either (theta = F/2)
    free = ofo(P, Y, a, max(b, 2 * a))
    assert ((free.thresholds >= 0) & (free.thresholds <= 0.5)).all()


@given(seed=st.integers(0, 2**31 - 1), grid=st.sampled_from([None, 3, 10]),
       cands=st.lists(st.floats(0, 1), min_size=1, max_size=6))
@FAST
def test_sto_dominates_fta_and_ofo_on_the_tuning_data(seed, grid, cands):
    P, Y = problem(seed, n=25, m=5, grid=grid)
    best = sto(P, Y)
    for shared in (True, False):
        assert fta(P, Y, cands, shared=shared).label_f.max() <= 1.0
        assert (fta(P, Y, cands, shared=shared).label_f <= best.label_f + 1e-12).all()
    o = ofo(P, Y, 1, 4)
    assert (macro_f_at_thresholds(P, Y, o.thresholds, average=None)
            <= best.label_f + 1e-12).all()


def test_ofo_bad_input():
    P, Y = problem(0, n=10, m=4)
    with pytest.raises(InvalidArgumentError, match="`b` must be finite and positive"):
        ofo(P, Y, 1, 0)
    with pytest.raises(InvalidArgumentError, match="`a` must be finite and non-negative"):
        ofo(P, Y, -1, 2)
    with pytest.raises(InvalidArgumentError, match=r"`a` / `b`.*\[0, 1\]"):
        ofo(P, Y, 3, 2)
    with pytest.raises(InvalidArgumentError, match="one value per label"):
        ofo(P, Y, [1, 1], 2)
    with pytest.raises(InvalidArgumentError, match="must not exceed"):
        ofo(P, Y, 1, 4, lower_bounds=0.4, upper_bounds=0.3)
    with pytest.raises(InvalidArgumentError, match=r"lower_bounds.*\[0, 1\]"):
        ofo(P, Y, 1, 4, lower_bounds=1.5)
    with pytest.raises(DataError, match="more rows than `Y`"):
        ofo([P, P], Y, 1, 4)
    with pytest.raises(DataError, match="stream ended after 5"):
        ofo([P[:5]], Y, 1, 4)
    with pytest.raises(DataError, match="labels of `Y`"):
        ofo(P[:, :3], Y, 1, 4)
    with pytest.raises(InvalidArgumentError, match="iterable"):
        ofo(42, Y, 1, 4)


# ---------------------------------------------------------------------------
# shared bad input of the tuners
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("tuner", [
    lambda s, y: sto(s, y), lambda s, y: fta(s, y, [0.2]), lambda s, y: ofo(s, y, 1, 2)])
def test_tuners_bad_input(tuner):
    P, Y = problem(1, n=10, m=4)
    # STO / FTA compare Y with the SPE; OFO reads Y first and checks each SPE chunk
    with pytest.raises(DataError, match=r"shape of the SPE \(10, 4\); got \(10, 3\)|"
                                        r"the 3 labels of `Y`; a chunk has 4"):
        tuner(P, Y[:, :3])
    with pytest.raises(ResponseError, match="only 0 and 1"):
        tuner(P, Y * 2)
    with pytest.raises(ResponseError, match=r"\[0, 1\]"):
        tuner(P + 1, Y)
    with pytest.raises(DataError, match="empty label set|at least one row and one label"):
        tuner(np.zeros((10, 0)), np.zeros((10, 0)))
    with pytest.raises(InvalidArgumentError, match="either `beta` or `alpha`|at most one"):
        sto(P, Y, beta=1, alpha=0.5)


# ---------------------------------------------------------------------------
# the synthetic generator
# ---------------------------------------------------------------------------
def test_make_extreme_spe_is_calibrated_and_reproducible():
    spe, Y = make_extreme_spe(20_000, 2_000, 20, hidden_per_row=2.0, random_state=7)
    spe2, Y2 = make_extreme_spe(20_000, 2_000, 20, hidden_per_row=2.0, random_state=7)
    assert (spe.matrix != spe2.matrix).nnz == 0 and (Y != Y2).nnz == 0
    mat = spe.matrix
    y_at = np.asarray(Y[mat.nonzero()]).ravel()
    p = mat.data
    # calibration: in deciles of p the positive rate matches the mean p (4 SE)
    edges = np.quantile(p, np.linspace(0, 1, 11))
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (p >= lo) & (p < hi)
        se = np.sqrt(p[sel].mean() * (1 - p[sel].mean()) / sel.sum())
        assert abs(y_at[sel].mean() - p[sel].mean()) < 4 * se
    # hidden positives lie outside the SPE: at most Poisson(2) per row (draws of
    # labels the row already scores are dropped), none without them
    outside = Y.nnz - int(y_at.sum())
    assert 1.0 < outside / 20_000 < 2.05
    spe3, Y3 = make_extreme_spe(2_000, 2_000, 20, random_state=7)
    assert Y3.nnz == int(np.asarray(Y3[spe3.matrix.nonzero()]).sum())
    # power-law popularity: label 0 is scored far more often than label 1999
    counts = np.bincount(mat.indices, minlength=2_000)
    assert counts[0] > 50 * max(counts[-1], 1)
    assert mat.shape == (20_000, 2_000) and (np.diff(mat.indptr) <= 20).all()


def test_make_extreme_spe_threshold_and_bad_input():
    spe, Y = make_extreme_spe(500, 300, 10, threshold=0.3, random_state=1)
    assert (spe.matrix.data > 0.3).all() and (spe.thresholds == 0.3).all()
    with pytest.raises(InvalidArgumentError, match="`m`"):
        make_extreme_spe(10, 0)
    with pytest.raises(InvalidArgumentError, match="beta_params"):
        make_extreme_spe(10, 5, beta_params=(1.0,))
