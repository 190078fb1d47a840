"""Tests of fmstats.measures.

Reference values come from scikit-learn (an independent implementation), from
hand-computed counts, and from the formulas of the seeds written out directly
in the tests (seed 001's mcF_beta, seed 004's eq. 6.1 accuracy identity).
"""
from __future__ import annotations

import math
import pickle

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from fmstats.exceptions import (
    DataError,
    FmstatsError,
    InvalidArgumentError,
    ResponseError,
    WeightsError,
)
from fmstats.measures import (
    Confusion,
    FMeasure,
    accuracy_score,
    as_fmeasure,
    confusion,
    expected_confusion,
    expected_f,
    f_score,
    hamming_loss,
    jaccard_score,
    multiclass_micro_f,
    noisy_confusion,
    noisy_f,
    pooled_cv_f,
    precision_score,
    recall_score,
)

skm = pytest.importorskip("sklearn.metrics")

BETAS = [0.0, 0.5, 1.0, 2.0, 3.7]
FAST = settings(max_examples=60, deadline=None)


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def binary_data(seed, n=60, rate_true=0.3, rate_pred=0.4):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < rate_true).astype(int)
    yhat = (rng.random(n) < rate_pred).astype(int)
    w = rng.uniform(0.1, 3.0, n)
    return y, yhat, w


def label_data(seed, n=40, m=6):
    """Label matrices with some empty rows and an all-empty label (column 0)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, m)) < 0.3).astype(int)
    Yhat = (rng.random((n, m)) < 0.3).astype(int)
    Y[:, 0] = 0
    Yhat[:, 0] = 0
    Y[:5] = 0
    Yhat[:3] = 0
    Yhat[5] = 1  # predictions for a row with no truth
    w = rng.uniform(0.1, 3.0, n)
    return Y, Yhat, w


@st.composite
def paired_bits(draw):
    n = draw(st.integers(1, 25))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    yhat = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return y, yhat


@st.composite
def paired_probs(draw, min_size=1):
    n = draw(st.integers(min_size, 25))
    unit = st.floats(0, 1, allow_nan=False)
    q = np.array(draw(st.lists(unit, min_size=n, max_size=n)))
    p = np.array(draw(st.lists(unit, min_size=n, max_size=n)))
    return q, p


alphas = st.floats(min_value=1e-6, max_value=1.0, allow_nan=False)


# ---------------------------------------------------------------------------
# FMeasure
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, alpha, beta, name",
    [
        ({}, 0.5, 1.0, "F1"),
        ({"beta": 1}, 0.5, 1.0, "F1"),
        ({"alpha": 0.5}, 0.5, 1.0, "F1"),
        ({"beta": 2}, 0.2, 2.0, "F2"),
        ({"alpha": 0.2}, 0.2, 2.0, "F2"),
        ({"beta": 0.5}, 0.8, 0.5, "F0.5"),
        ({"beta": 0}, 1.0, 0.0, "F0"),
        ({"alpha": 1}, 1.0, 0.0, "F0"),
        ({"beta": 1.5}, 1 / 3.25, 1.5, "F(beta=1.5)"),
    ],
)
def test_fmeasure_parameterisations(kwargs, alpha, beta, name):
    m = FMeasure(**kwargs)
    assert m.alpha == pytest.approx(alpha, rel=1e-14)
    assert m.beta == pytest.approx(beta, rel=1e-14, abs=1e-15)
    assert isinstance(m.alpha, float) and isinstance(m.beta, float)
    assert m.name == name


def test_fmeasure_str_shows_both_parameterisations():
    assert str(FMeasure()) == "F-measure F1 (beta = 1, alpha = 0.5)"
    assert repr(FMeasure(alpha=0.2)) == "F-measure F2 (beta = 2, alpha = 0.2)"


def test_fmeasure_value_semantics():
    a, b = FMeasure(beta=2), FMeasure(alpha=0.2)
    # exact: equality is of alpha, and 1 / (1 + 2^2) is one correctly rounded division of
    # exact operands, the same double as the literal 0.2 (likewise 1 / 1.25 and 0.8 below)
    assert a == b and hash(a) == hash(b)
    assert len({a, b, FMeasure()}) == 2
    assert FMeasure() != FMeasure(beta=2)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a.beta = 3


def test_fmeasure_is_keyword_only():
    with pytest.raises(TypeError):
        FMeasure(2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"beta": 1, "alpha": 0.5}, "beta.*alpha"),
        ({"beta": -0.1}, "beta"),
        ({"beta": math.inf}, "beta"),
        ({"beta": math.nan}, "beta"),
        ({"beta": "2"}, "beta"),
        ({"beta": True}, "beta"),
        ({"beta": 1e200}, "beta"),
        ({"alpha": 0}, "alpha"),
        ({"alpha": 1.5}, "alpha"),
        ({"alpha": -0.5}, "alpha"),
        ({"alpha": math.nan}, "alpha"),
    ],
)
def test_fmeasure_bad_arguments(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        FMeasure(**kwargs)


def test_as_fmeasure():
    assert as_fmeasure() == FMeasure()
    assert as_fmeasure(beta=2) == FMeasure(beta=2)
    assert as_fmeasure(alpha=0.8) == FMeasure(beta=0.5)
    m = FMeasure(beta=3)
    assert as_fmeasure(m) is m
    with pytest.raises(InvalidArgumentError, match="measure.*beta"):
        as_fmeasure(m, beta=3)
    with pytest.raises(InvalidArgumentError, match="beta.*alpha"):
        as_fmeasure(beta=1, alpha=0.5)
    with pytest.raises(InvalidArgumentError, match="measure"):
        as_fmeasure("F1")


@pytest.mark.parametrize("beta", BETAS)
def test_from_counts_matches_beta_formula_vectorised(beta):
    rng = np.random.default_rng(1)
    tp, fp, fn = rng.integers(0, 20, (3, 50)).astype(float)
    got = FMeasure(beta=beta).from_counts(tp, fp, fn)
    b2 = beta**2
    den = (1 + b2) * tp + b2 * fn + fp
    want = np.where(den > 0, (1 + b2) * tp / np.where(den > 0, den, 1), 1.0)
    assert got.shape == (50,)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_from_counts_scalar_and_zero_division():
    f1 = FMeasure()
    assert f1.from_counts(3, 1, 2) == pytest.approx(6 / 9)
    assert isinstance(f1.from_counts(3, 1, 2), float)
    # exact below: the zero_division value is copied, and 0 / den is 0
    assert f1.from_counts(0, 0, 0) == 1.0
    assert f1.from_counts(0, 0, 0, zero_division=0.0) == 0.0
    assert f1.from_counts(0, 4, 0) == 0.0
    assert f1.from_counts(0, 0, 4) == 0.0
    # alpha = 1 is precision: no predictions -> zero_division
    assert FMeasure(alpha=1).from_counts(0, 0, 4, zero_division=0.25) == 0.25
    with pytest.raises(DataError, match="fp"):
        f1.from_counts(1, -1, 0)
    with pytest.raises(DataError, match="tp"):
        f1.from_counts(np.nan, 1, 0)
    with pytest.raises(InvalidArgumentError, match="zero_division"):
        f1.from_counts(1, 1, 1, zero_division=np.nan)
    with pytest.raises(InvalidArgumentError, match="broadcastable"):
        f1.from_counts(np.ones(2), np.ones(3), 1)


@given(b=st.floats(1e-3, 1e3))
@FAST
def test_beta_alpha_round_trip(b):
    a = FMeasure(beta=b).alpha
    assert FMeasure(alpha=a).beta == pytest.approx(b, rel=1e-12, abs=1e-12)


@given(a=alphas)
@FAST
def test_alpha_beta_round_trip(a):
    b = FMeasure(alpha=a).beta
    assert FMeasure(beta=b).alpha == pytest.approx(a, rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------
# Confusion
# ---------------------------------------------------------------------------
def test_confusion_counts_and_properties():
    y = [1, 1, 1, 0, 0, 0, 0, 1]
    yhat = [1, 0, 1, 1, 0, 0, 1, 1]
    c = confusion(y, yhat)
    assert c == Confusion(3.0, 2.0, 1.0, 2.0)
    assert c.n == 8
    assert c.precision == pytest.approx(3 / 5)
    assert c.recall == pytest.approx(3 / 4)
    assert c.accuracy == pytest.approx(5 / 8)
    assert c.jaccard == pytest.approx(3 / 6)
    assert c.f() == pytest.approx(6 / 9)
    assert c.f(beta=2) == pytest.approx(5 * 3 / (5 * 3 + 4 * 1 + 2))
    assert c.f(alpha=0.2) == c.f(FMeasure(beta=2))   # the same alpha (see above): same arithmetic


def test_confusion_bool_input_and_types():
    c = confusion(np.array([True, False, True]), pd.Series([True, True, False]))
    assert (c.tp, c.fp, c.fn, c.tn) == (1.0, 1.0, 1.0, 0.0)
    assert all(isinstance(v, float) for v in (c.tp, c.fp, c.fn, c.tn))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_confusion_matches_sklearn_confusion_matrix(seed, weighted):
    y, yhat, w = binary_data(seed)
    w = w if weighted else None
    (tn, fp), (fn, tp) = skm.confusion_matrix(y, yhat, labels=[0, 1], sample_weight=w)
    c = confusion(y, yhat, sample_weight=w)
    np.testing.assert_allclose([c.tp, c.fp, c.fn, c.tn], [tp, fp, fn, tn], rtol=1e-13)


def test_confusion_as_frame():
    frame = Confusion(3, 2, 1, 4).as_frame()
    assert frame.index.name == "observed" and frame.columns.name == "predicted"
    assert list(frame.index) == [1, 0] and list(frame.columns) == [1, 0]
    assert frame.loc[1, 1] == 3 and frame.loc[1, 0] == 1
    assert frame.loc[0, 1] == 2 and frame.loc[0, 0] == 4


def test_confusion_addition_and_pickle():
    a, b = Confusion(1, 2, 3, 4), Confusion(0.5, 0, 1, 2)
    assert a + b == Confusion(1.5, 2, 4, 6)      # exact: sums of integers and halves
    assert sum([a, b]) == a + b
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        a + 1


@pytest.mark.parametrize("field", ["tp", "fp", "fn", "tn"])
@pytest.mark.parametrize("value", [-1.0, math.nan, math.inf])
def test_confusion_rejects_bad_counts(field, value):
    counts = dict(tp=1.0, fp=1.0, fn=1.0, tn=1.0)
    counts[field] = value
    with pytest.raises(InvalidArgumentError, match=field):
        Confusion(**counts)


def test_confusion_zero_division_properties():
    empty = Confusion(0, 0, 0, 5)
    # exact: the zero_division value is copied, and 0 / den is 0
    assert empty.precision == 1.0 and empty.recall == 1.0 and empty.jaccard == 1.0
    assert empty.f() == 1.0 and empty.f(zero_division=0.3) == 0.3
    assert Confusion(0, 2, 0, 1).f() == 0.0  # predictions, no truth
    assert Confusion(0, 0, 2, 1).f() == 0.0  # truth, no predictions
    with pytest.raises(DataError, match="n = 0"):
        Confusion(0, 0, 0, 0).accuracy


# ---------------------------------------------------------------------------
# binary scores against scikit-learn
# ---------------------------------------------------------------------------
EDGE_BINARY = [
    ([0, 0, 0, 0], [0, 0, 0, 0]),  # empty truth and prediction
    ([0, 0, 0, 0], [0, 1, 1, 0]),  # predictions, no truth
    ([0, 1, 1, 0], [0, 0, 0, 0]),  # truth, no predictions
    ([1, 1, 1, 1], [1, 1, 1, 1]),
]


def _binary_cases():
    cases = []
    for seed in range(3):
        y, yhat, w = binary_data(seed)
        cases.append(pytest.param(y, yhat, None, id=f"random{seed}"))
        cases.append(pytest.param(y, yhat, w, id=f"random{seed}-weighted"))
    for i, (y, yhat) in enumerate(EDGE_BINARY):
        cases.append(pytest.param(np.array(y), np.array(yhat), None, id=f"edge{i}"))
    return cases


@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("y, yhat, w", _binary_cases())
def test_f_score_binary_matches_sklearn(y, yhat, w, beta):
    want = skm.fbeta_score(y, yhat, beta=beta, sample_weight=w, zero_division=1.0)
    want = pytest.approx(want, rel=1e-12, abs=1e-15)
    assert f_score(y, yhat, beta=beta, sample_weight=w) == want
    assert f_score(y, yhat, alpha=1 / (1 + beta**2), sample_weight=w) == want
    assert FMeasure(beta=beta).score(y, yhat, w) == want


@pytest.mark.parametrize(
    "ours, theirs, kwargs",
    [
        (precision_score, skm.precision_score, {"zero_division": 1.0}),
        (recall_score, skm.recall_score, {"zero_division": 1.0}),
        (jaccard_score, skm.jaccard_score, {"zero_division": 1.0}),
        (accuracy_score, skm.accuracy_score, {}),
        (hamming_loss, skm.hamming_loss, {}),
    ],
    ids=["precision", "recall", "jaccard", "accuracy", "hamming"],
)
@pytest.mark.parametrize("y, yhat, w", _binary_cases())
def test_binary_scores_match_sklearn(ours, theirs, kwargs, y, yhat, w):
    want = theirs(y, yhat, sample_weight=w, **kwargs)
    assert ours(y, yhat, sample_weight=w) == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("zd", [0.0, 0.5, 1.0])
def test_zero_division_binary(zd):
    empty = np.zeros(5)
    some = np.array([0, 1, 0, 0, 1])
    assert f_score(empty, empty, zero_division=zd) == zd
    assert f_score(empty, some, zero_division=zd) == 0.0
    assert f_score(some, empty, zero_division=zd) == 0.0
    assert precision_score(some, empty, zero_division=zd) == zd
    assert recall_score(empty, some, zero_division=zd) == zd
    assert jaccard_score(empty, empty, zero_division=zd) == zd


# ---------------------------------------------------------------------------
# multi-label averages against scikit-learn, dense and sparse
# ---------------------------------------------------------------------------
SPARSE_KINDS = {
    "dense": np.asarray,
    "csr_matrix": sp.csr_matrix,
    "csr_array": sp.csr_array,
    "csc_array": sp.csc_array,
}
AVERAGES = [("instance", "samples"), ("samples", "samples"), ("micro", "micro"),
            ("macro", "macro"), (None, None)]


@pytest.mark.parametrize("kind", list(SPARSE_KINDS))
@pytest.mark.parametrize("average, sk_average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_multilabel_f_matches_sklearn(kind, average, sk_average, weighted, beta):
    Y, Yhat, w = label_data(3)
    w = w if weighted else None
    conv = SPARSE_KINDS[kind]
    want = skm.fbeta_score(Y, Yhat, beta=beta, average=sk_average, sample_weight=w,
                           zero_division=1.0)
    got = f_score(conv(Y), conv(Yhat), beta=beta, average=average, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    if average is None:
        assert isinstance(got, np.ndarray) and got.shape == (Y.shape[1],)
    else:
        assert isinstance(got, float)


@pytest.mark.parametrize(
    "ours, theirs",
    [(precision_score, skm.precision_score), (recall_score, skm.recall_score),
     (jaccard_score, skm.jaccard_score)],
    ids=["precision", "recall", "jaccard"],
)
@pytest.mark.parametrize("kind", ["dense", "csr_matrix"])
@pytest.mark.parametrize("average, sk_average", AVERAGES)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_scores_match_sklearn(ours, theirs, kind, average, sk_average, weighted):
    Y, Yhat, w = label_data(4)
    w = w if weighted else None
    conv = SPARSE_KINDS[kind]
    want = theirs(Y, Yhat, average=sk_average, sample_weight=w, zero_division=1.0)
    got = ours(conv(Y), conv(Yhat), average=average, sample_weight=w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "ours, theirs",
    [(accuracy_score, skm.accuracy_score), (hamming_loss, skm.hamming_loss)],
    ids=["subset-accuracy", "hamming"],
)
@pytest.mark.parametrize("kind", ["dense", "csr_matrix", "csr_array"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_accuracy_hamming_match_sklearn(ours, theirs, kind, weighted):
    Y, Yhat, w = label_data(5, n=50, m=3)
    Yhat[10:20] = Y[10:20]  # some exact rows
    w = w if weighted else None
    conv = SPARSE_KINDS[kind]
    want = theirs(Y, Yhat, sample_weight=w)
    assert ours(conv(Y), conv(Yhat), sample_weight=w) == pytest.approx(want, rel=1e-12)


def test_multilabel_mixed_dense_and_sparse():
    Y, Yhat, _ = label_data(6)
    want = f_score(Y, Yhat, average="micro")
    assert f_score(sp.csr_matrix(Y), Yhat, average="micro") == pytest.approx(want)
    assert f_score(Y, sp.csr_array(Yhat), average="micro") == pytest.approx(want)


def test_sparse_inputs_are_not_densified():
    # Dense, this would need 200_000 * 100_000 * 8 bytes = 160 GB.
    n, m = 200_000, 100_000
    rng = np.random.default_rng(7)
    rows = rng.integers(0, n, 3000)
    cols = rng.integers(0, m, 3000)
    Y = sp.csr_array((np.ones(3000), (rows, cols)), shape=(n, m))
    Y.data[:] = 1.0  # duplicates were summed
    keep = rng.random(3000) < 0.5
    Yhat = sp.csr_array((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=(n, m))
    Yhat.data[:] = 1.0
    tp = Y.multiply(Yhat).sum()
    micro = f_score(Y, Yhat, average="micro")
    assert micro == pytest.approx(2 * tp / (Y.sum() + Yhat.sum()))
    inst = f_score(Y, Yhat, average="instance")
    assert 0.0 <= micro <= 1.0 and inst > 0.99  # most rows are empty -> 1
    assert hamming_loss(Y, Yhat) == pytest.approx((Y.sum() - tp) / (n * m))


def test_instance_average_with_empty_rows():
    Y = np.array([[0, 0, 0], [1, 0, 1], [0, 0, 0], [0, 1, 0]])
    Yhat = np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 0, 0]])
    # per-row F1: empty/empty -> zd; 2/3; predictions without truth -> 0;
    # truth without predictions -> 0
    assert f_score(Y, Yhat, average="instance") == pytest.approx((1 + 2 / 3 + 0 + 0) / 4)
    assert f_score(Y, Yhat, average="instance", zero_division=0.0) == pytest.approx((2 / 3) / 4)
    # macro: label 0 has FP, label 1 has FN, label 2 has FN -> per-label F = 2/3, 0, 0
    np.testing.assert_allclose(f_score(Y, Yhat, average=None), [2 / 3, 0, 0])
    assert f_score(Y[:, [0]], Yhat[:, [0]], average="macro") == pytest.approx(2 / 3)
    # a label with neither truth nor prediction gets zero_division
    Z = np.zeros((3, 2))
    np.testing.assert_allclose(f_score(Z, Z, average=None, zero_division=0.25), [0.25, 0.25])


# ---------------------------------------------------------------------------
# property tests
# ---------------------------------------------------------------------------
@given(data=paired_bits(), a=alphas)
@FAST
def test_f_bounds_and_between_precision_and_recall(data, a):
    y, yhat = data
    c = confusion(y, yhat)
    f = c.f(alpha=a)
    assert 0.0 <= f <= 1.0
    p, r = c.precision, c.recall
    assert min(p, r) - 1e-12 <= f <= max(p, r) + 1e-12


@given(data=paired_bits(), w=st.lists(st.floats(0.0, 10.0), min_size=25, max_size=25))
@FAST
def test_f_bounds_weighted(data, w):
    y, yhat = data
    w = np.array(w[: len(y)])
    w[0] += 0.5  # never all zero
    for beta in BETAS:
        f = f_score(y, yhat, beta=beta, sample_weight=w)
        assert 0.0 <= f <= 1.0


@given(data=paired_bits())
@FAST
def test_f_at_alpha_one_is_precision(data):
    y, yhat = data
    assert f_score(y, yhat, alpha=1.0) == pytest.approx(precision_score(y, yhat), abs=1e-15)
    assert f_score(y, yhat, beta=0) == pytest.approx(precision_score(y, yhat), abs=1e-15)


@given(data=paired_bits(), a=alphas)
@FAST
def test_f_symmetric_only_at_alpha_half(data, a):
    y, yhat = data
    c = confusion(y, yhat)
    same = math.isclose(f_score(y, yhat, alpha=a), f_score(yhat, y, alpha=a),
                        rel_tol=1e-12, abs_tol=1e-15)
    # F(y, yhat) - F(yhat, y) is proportional to (2 alpha - 1)(FN - FP) when TP > 0.  With
    # TP = 0, F is 0 unless its denominator alpha FP + (1 - alpha) FN is 0, where it is
    # zero_division = 1 (the module's rule); swapping truth and prediction swaps FP and FN,
    # so at alpha = 1 (precision) y = [0], yhat = [1] gives 0 one way and 1 the other.
    if c.tp == 0:
        expected_same = ((a * c.fp + (1 - a) * c.fn > 0) == (a * c.fn + (1 - a) * c.fp > 0))
    else:
        expected_same = c.fp == c.fn or a == 0.5
    assert f_score(y, yhat, alpha=0.5) == pytest.approx(f_score(yhat, y, alpha=0.5), abs=1e-15)
    if abs(a - 0.5) > 1e-6:
        assert same == expected_same


def test_f_not_symmetric_example():
    y, yhat = [1, 1, 0, 1], [1, 0, 0, 0]
    assert f_score(y, yhat, beta=2) != pytest.approx(f_score(yhat, y, beta=2))
    assert f_score(y, yhat) == pytest.approx(f_score(yhat, y))


@given(data=paired_bits())
@FAST
def test_noisy_f_with_certain_labels_equals_deterministic(data):
    y, yhat = data
    c = confusion(y, yhat)
    for dependence in ("correlated", "independent"):
        # exact: with 0/1 labels the expected counts are sums of products of 0s and 1s
        assert noisy_confusion(y, yhat, dependence) == c
        for beta in BETAS:
            assert noisy_f(y, yhat, beta=beta, dependence=dependence) == pytest.approx(
                f_score(y, yhat, beta=beta), abs=1e-15)


@given(data=paired_probs())
@FAST
def test_noisy_with_certain_truth_equals_expected(data):
    q, p = data
    y = (q > 0.5).astype(float)
    want = expected_confusion(y, p)
    for dependence in ("correlated", "independent"):
        got = noisy_confusion(y, p, dependence)
        np.testing.assert_allclose(
            [got.tp, got.fp, got.fn, got.tn], [want.tp, want.fp, want.fn, want.tn],
            rtol=1e-12, atol=1e-12)
    assert expected_f(y, p, beta=2) == pytest.approx(
        noisy_f(y, p, beta=2, dependence="independent"), abs=1e-12)


@given(data=paired_probs(), wseed=st.integers(0, 100))
@FAST
def test_correlated_noisy_accuracy_is_one_minus_mean_abs_difference(data, wseed):
    q, p = data
    c = noisy_confusion(q, p, "correlated")
    assert c.accuracy == pytest.approx(1 - np.mean(np.abs(q - p)), abs=1e-12)
    w = np.random.default_rng(wseed).uniform(0.1, 2.0, len(q))
    cw = noisy_confusion(q, p, "correlated", sample_weight=w)
    assert cw.accuracy == pytest.approx(1 - np.average(np.abs(q - p), weights=w), abs=1e-12)


@given(data=paired_probs())
@FAST
def test_noisy_counts_are_marginally_consistent(data):
    q, p = data
    for dependence in ("correlated", "independent"):
        c = noisy_confusion(q, p, dependence)
        assert c.tp + c.fn == pytest.approx(q.sum(), abs=1e-12)
        assert c.tp + c.fp == pytest.approx(p.sum(), abs=1e-12)
        assert c.n == pytest.approx(len(q), abs=1e-12)
        assert 0.0 <= noisy_f(q, p, dependence=dependence) <= 1.0


def test_noisy_confusion_hand_values():
    q = [0.2, 0.3, 0.9, 0.5, 0.1]
    p = [0.5, 0.5, 0.5, 0.5, 0.5]
    c = noisy_confusion(q, p, "correlated")
    np.testing.assert_allclose([c.tp, c.fp, c.fn, c.tn], [1.6, 0.9, 0.4, 2.1])
    c = noisy_confusion(q, p, "independent")
    np.testing.assert_allclose([c.tp, c.fp, c.fn, c.tn], [1.0, 1.5, 1.0, 1.5])
    assert noisy_f(q, p) == pytest.approx(1.6 / (1.6 + 0.5 * 0.9 + 0.5 * 0.4))


def test_expected_confusion_hand_values():
    y = [1, 0, 1, 1, 0]
    p = [0.2, 0.3, 0.9, 0.5, 0.1]
    c = expected_confusion(y, p, sample_weight=[1, 1, 2, 1, 1])
    np.testing.assert_allclose([c.tp, c.fp, c.fn, c.tn], [2.5, 0.4, 1.5, 1.6])
    assert expected_f(y, p, alpha=0.2, sample_weight=[1, 1, 2, 1, 1]) == pytest.approx(
        2.5 / (2.5 + 0.2 * 0.4 + 0.8 * 1.5))


@st.composite
def weighted_rows(draw, m=None):
    n = draw(st.integers(1, 12))
    counts = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    if counts.sum() == 0:
        counts[0] = 1
    shape = (n,) if m is None else (n, m)
    y = draw(hnp.arrays(np.int8, shape, elements=st.integers(0, 1)))
    yhat = draw(hnp.arrays(np.int8, shape, elements=st.integers(0, 1)))
    return y, yhat, counts


@given(data=weighted_rows())
@FAST
def test_integer_weights_equal_duplicated_rows_binary(data):
    y, yhat, w = data
    yd, yhatd = np.repeat(y, w), np.repeat(yhat, w)
    assert confusion(y, yhat, w) == confusion(yd, yhatd)   # exact: sums of small integers
    for fn in (f_score, precision_score, recall_score, jaccard_score):
        assert fn(y, yhat, sample_weight=w) == pytest.approx(fn(yd, yhatd), abs=1e-14)
    assert accuracy_score(y, yhat, w) == pytest.approx(accuracy_score(yd, yhatd), abs=1e-14)
    q = np.clip(y * 0.7 + yhat * 0.2, 0, 1)
    for dep in ("correlated", "independent"):
        a, b = noisy_confusion(q, yhat, dep, w), noisy_confusion(np.repeat(q, w), yhatd, dep)
        np.testing.assert_allclose(a.as_array(), b.as_array(), atol=1e-12)


@given(data=weighted_rows(m=4), sparse=st.booleans())
@FAST
def test_integer_weights_equal_duplicated_rows_multilabel(data, sparse):
    Y, Yhat, w = data
    Yd, Yhatd = np.repeat(Y, w, axis=0), np.repeat(Yhat, w, axis=0)
    conv = sp.csr_array if sparse else np.asarray
    for average in ("instance", "micro", "macro"):
        assert f_score(conv(Y), conv(Yhat), average=average, sample_weight=w) == pytest.approx(
            f_score(Yd, Yhatd, average=average), abs=1e-12)
    assert hamming_loss(conv(Y), conv(Yhat), w) == pytest.approx(
        hamming_loss(Yd, Yhatd), abs=1e-12)
    assert accuracy_score(conv(Y), conv(Yhat), w) == pytest.approx(
        accuracy_score(Yd, Yhatd), abs=1e-12)


@given(data=paired_bits(), a=alphas)
@FAST
def test_pooled_f_one_fold_equals_plain_f(data, a):
    y, yhat = data
    c = confusion(y, yhat)
    plain = f_score(y, yhat, alpha=a)
    for pooling in ("tp_fp", "mean"):
        assert pooled_cv_f([c], alpha=a, pooling=pooling) == pytest.approx(plain, abs=1e-15)
    assert pooled_cv_f(c, alpha=a) == pytest.approx(plain, abs=1e-15)


# ---------------------------------------------------------------------------
# pooled cross-validation F
# ---------------------------------------------------------------------------
def test_pooled_cv_f_hand_values():
    folds = [Confusion(8, 2, 0, 90), Confusion(0, 0, 5, 95)]
    # F_tp,fp: mean counts tp = 4, fp = 1, fn = 2.5 -> F1 = 4 / (4 + 0.5 * 3.5)
    assert pooled_cv_f(folds) == pytest.approx(4 / 5.75)
    # mean of per-fold F1: (16/18 + 0) / 2
    assert pooled_cv_f(folds, pooling="mean") == pytest.approx(8 / 18)
    # averaging or summing the counts gives the same F
    assert pooled_cv_f(folds, beta=2) == pytest.approx(sum(folds).f(beta=2))
    arr = np.array([[8, 2, 0], [0, 0, 5]])
    # exact: the same integer counts (their means are halves) and the same F arithmetic
    assert pooled_cv_f(arr, beta=2) == pooled_cv_f(folds, beta=2)
    assert pooled_cv_f(np.array([[8, 2, 0, 90], [0, 0, 5, 95]])) == pooled_cv_f(folds)
    assert pooled_cv_f(iter(folds), measure=FMeasure(beta=0.5)) == pytest.approx(
        pooled_cv_f(folds, beta=0.5))
    # an empty fold uses zero_division in the "mean" pooling
    assert pooled_cv_f([Confusion(0, 0, 0, 10), Confusion(1, 1, 0, 5)], pooling="mean",
                       zero_division=0.0) == pytest.approx((0 + 2 / 3) / 2)


@pytest.mark.parametrize(
    "folds, error, match",
    [
        ([], DataError, "folds"),
        (np.zeros((0, 3)), DataError, "folds"),
        (np.ones((3, 2)), InvalidArgumentError, "folds"),
        (np.array([[1, -1, 0]]), DataError, "folds"),
        (np.array([[1, np.nan, 0]]), DataError, "folds"),
        (5, InvalidArgumentError, "folds"),
        (["a", "b"], InvalidArgumentError, "folds"),
    ],
)
def test_pooled_cv_f_bad_folds(folds, error, match):
    with pytest.raises(error, match=match):
        pooled_cv_f(folds)


def test_pooled_cv_f_bad_pooling():
    with pytest.raises(InvalidArgumentError, match="pooling"):
        pooled_cv_f([Confusion(1, 1, 1, 1)], pooling="sum")


# ---------------------------------------------------------------------------
# multiclass micro-F with a default class
# ---------------------------------------------------------------------------
def _multiclass_data(seed, n=80, k=4):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=[0.55, 0.2, 0.15, 0.1])
    yhat = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    w = rng.uniform(0.1, 3, n)
    return y, yhat, w


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("beta", BETAS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("default", [0, 2])
def test_multiclass_micro_f_matches_sklearn(seed, beta, weighted, default):
    y, yhat, w = _multiclass_data(seed)
    w = w if weighted else None
    labels = [c for c in range(4) if c != default]
    want = skm.fbeta_score(y, yhat, beta=beta, average="micro", labels=labels,
                           sample_weight=w, zero_division=1.0)
    got = multiclass_micro_f(y, yhat, default, beta=beta, sample_weight=w)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_multiclass_micro_f_seed001_formula(seed, beta):
    """Seed 001's mcF_beta written with the error profile e (class 1 = default)."""
    y, yhat, _ = _multiclass_data(seed)
    n, default = len(y), 0
    P1 = np.mean(y == default)
    fn_nondefault = sum(np.mean((y == k) & (yhat != k)) for k in (1, 2, 3))  # sum_k>=2 e_{2k-1}
    e1 = np.mean((y == default) & (yhat != default))
    b2 = beta**2
    want = (1 + b2) * (1 - P1 - fn_nondefault) / ((1 + b2) * (1 - P1) - fn_nondefault + e1)
    got = multiclass_micro_f(y, yhat, default, beta=beta, wrong_class="fn")
    assert got == pytest.approx(want, rel=1e-12)
    assert n > 0


def test_multiclass_micro_f_hand_values_and_string_labels():
    y = ["none", "gene", "protein", "gene", "none"]
    yhat = ["none", "protein", "protein", "none", "gene"]
    assert multiclass_micro_f(y, yhat, "none") == pytest.approx(2 * 1 / (2 + 2 + 2))
    assert multiclass_micro_f(y, yhat, "none", wrong_class="fn") == pytest.approx(0.4)
    assert multiclass_micro_f(["a", "a"], ["a", "a"], "a") == 1.0
    assert multiclass_micro_f(["a", "a"], ["a", "a"], "a", zero_division=0.0) == 0.0


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"default_class": "nonee"}, InvalidArgumentError, "default_class"),
        ({"wrong_class": "fp"}, InvalidArgumentError, "wrong_class"),
        ({"y_pred": ["none", "gene"]}, InvalidArgumentError, "y_pred"),
        ({"y_true": ["none", None, "gene"]}, ResponseError, "y_true"),
        ({"sample_weight": [1, -1, 1]}, WeightsError, "sample_weight"),
        ({"beta": 1, "alpha": 0.5}, InvalidArgumentError, "beta"),
    ],
)
def test_multiclass_micro_f_bad_input(kwargs, error, match):
    args = dict(y_true=["none", "gene", "gene"], y_pred=["none", "gene", "none"],
                default_class="none")
    args.update(kwargs)
    with pytest.raises(error, match=match):
        multiclass_micro_f(**args)


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
Y1 = np.array([1, 0, 1, 1])
Y2 = np.array([1, 1, 0, 1])


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: f_score(Y1, Y2, beta=1, alpha=0.5), InvalidArgumentError, "beta"),
        (lambda: f_score(Y1, Y2, beta=-1), InvalidArgumentError, "beta"),
        (lambda: f_score(Y1, Y2, alpha=0), InvalidArgumentError, "alpha"),
        (lambda: f_score(Y1, Y2, alpha=1.01), InvalidArgumentError, "alpha"),
        (lambda: f_score(Y1, Y2, measure=FMeasure(), beta=1), InvalidArgumentError, "measure"),
        (lambda: f_score([1, 0, np.nan, 1], Y2), ResponseError, "y_true"),
        (lambda: f_score(Y1, [1, 0, np.nan, 1]), ResponseError, "y_pred"),
        (lambda: f_score([1, 0, 2, 1], Y2), ResponseError, "y_true"),
        (lambda: f_score(Y1, [1, 0, -1, 1]), ResponseError, "y_pred"),
        (lambda: f_score(Y1, Y2[:3]), InvalidArgumentError, "y_pred.*length 4"),
        (lambda: f_score([], []), DataError, "y_true"),
        (lambda: f_score(Y1, Y2, sample_weight=[1, -1, 1, 1]), WeightsError, "sample_weight"),
        (lambda: f_score(Y1, Y2, sample_weight=[1, 1, 1]), WeightsError, "sample_weight"),
        (lambda: f_score(Y1, Y2, sample_weight=[0, 0, 0, 0]), WeightsError, "sample_weight"),
        (lambda: f_score(Y1, Y2, sample_weight=[1, np.nan, 1, 1]), WeightsError, "sample_weight"),
        (lambda: f_score(Y1, Y2, average="weighted"), InvalidArgumentError, "average"),
        (lambda: f_score(Y1, Y2, average="micro"), InvalidArgumentError, "average"),
        (lambda: f_score(Y1, Y2, zero_division=np.nan), InvalidArgumentError, "zero_division"),
        (lambda: f_score(Y1, Y2, zero_division=2), InvalidArgumentError, "zero_division"),
        (lambda: f_score(["a", "b", "a", "b"], Y2), InvalidArgumentError, "y_true"),
        (lambda: precision_score(Y1, [1, 0, 3, 1]), ResponseError, "y_pred"),
        (lambda: recall_score(Y1, Y2, average="bogus"), InvalidArgumentError, "average"),
        (lambda: jaccard_score(Y1, Y2, sample_weight=[-1, 1, 1, 1]), WeightsError,
         "sample_weight"),
        (lambda: accuracy_score(Y1, Y2[:2]), InvalidArgumentError, "y_pred"),
        (lambda: hamming_loss([0.5, 1, 0, 1], Y2), ResponseError, "y_true"),
        (lambda: confusion(Y1, Y2, [1, 2]), WeightsError, "sample_weight"),
        (lambda: confusion(Y1, np.ones((4, 2))), InvalidArgumentError, "y_pred"),
        (lambda: expected_confusion(Y1, [0.5, 1.2, 0, 1]), ResponseError, "p"),
        (lambda: expected_confusion([0.5, 1, 0, 1], [0.5, 0.2, 0, 1]), ResponseError, "y"),
        (lambda: expected_f(Y1, [0.5, np.nan, 0, 1]), ResponseError, "p"),
        (lambda: noisy_confusion([0.5, 1.2], [0.5, 0.5]), ResponseError, "q"),
        (lambda: noisy_confusion([0.5, -0.1], [0.5, 0.5]), ResponseError, "q"),
        (lambda: noisy_confusion([0.5, 0.1], [0.5, 1.5]), ResponseError, "p"),
        (lambda: noisy_confusion([0.5, 0.1], [0.5]), InvalidArgumentError, "p"),
        (lambda: noisy_confusion([0.5, 0.1], [0.5, 0.2], "positive"), InvalidArgumentError,
         "dependence"),
        (lambda: noisy_f([0.5, 0.1], [0.5, 0.2], dependence="x"), InvalidArgumentError,
         "dependence"),
        (lambda: noisy_f([0.5, 0.1], [0.5, 0.2], sample_weight=[1, -2]), WeightsError,
         "sample_weight"),
        (lambda: noisy_f([0.5, 0.1], [0.5, 0.2], alpha=2), InvalidArgumentError, "alpha"),
    ],
)
def test_bad_input_binary(call, error, match):
    with pytest.raises(error, match=match):
        call()


M1 = np.array([[1, 0], [0, 1], [1, 1]])
M2 = np.array([[1, 1], [0, 1], [0, 0]])


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: f_score(M1, M2), InvalidArgumentError, "average"),
        (lambda: f_score(M1, M2, average="weighted"), InvalidArgumentError, "average"),
        (lambda: f_score(M1, M2[:2], average="micro"), InvalidArgumentError, "shape"),
        (lambda: f_score(M1, M2[:, :1], average="micro"), InvalidArgumentError, "shape"),
        (lambda: f_score(M1, M1[:, 0], average="micro"), InvalidArgumentError, "y_pred"),
        (lambda: f_score(M1 * 2, M2, average="micro"), ResponseError, "y_true"),
        (lambda: f_score(M1, M2 * np.nan, average="micro"), ResponseError, "y_pred"),
        (lambda: f_score(sp.csr_matrix(M1 * 3.0), M2, average="micro"), ResponseError, "y_true"),
        (lambda: f_score(M1, sp.csr_array(M2 * -1.0), average="macro"), ResponseError, "y_pred"),
        (lambda: f_score(np.zeros((0, 2)), np.zeros((0, 2)), average="micro"), DataError,
         "y_true"),
        (lambda: f_score(M1, M2, average="micro", sample_weight=[1, 1]), WeightsError,
         "sample_weight"),
        (lambda: f_score(M1, M2, average="instance", sample_weight=[1, -1, 1]), WeightsError,
         "sample_weight"),
        (lambda: hamming_loss(M1, M2, sample_weight=[1, 1]), WeightsError, "sample_weight"),
        (lambda: accuracy_score(M1, M2 * 2), ResponseError, "y_pred"),
    ],
)
def test_bad_input_multilabel(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_errors_are_fmstats_errors_and_value_errors():
    with pytest.raises(FmstatsError):
        f_score(Y1, Y2, beta=-1)
    with pytest.raises(ValueError):
        noisy_f([2.0], [0.5])


def test_errors_name_the_value_received():
    with pytest.raises(InvalidArgumentError, match=r"-0\.5"):
        FMeasure(beta=-0.5)
    with pytest.raises(ResponseError, match=r"y_true.*position 2 holds\D*2\b"):
        f_score([1, 0, 2], [1, 0, 1])
    with pytest.raises(InvalidArgumentError, match="'weighted'"):
        f_score(Y1, Y2, average="weighted")
    with pytest.raises(ResponseError, match=r"y_true.*e\.g\. 3\."):
        f_score(M1 * 3, M2, average="micro")
    with pytest.raises(DataError, match=r"fp.*e\.g\. -1\."):
        FMeasure().from_counts(1, -1, 0)


def test_no_nan_results_anywhere_on_degenerate_data():
    Z = np.zeros((4, 3))
    values = [
        f_score(np.zeros(4), np.zeros(4)),
        precision_score(np.zeros(4), np.zeros(4)),
        recall_score(np.zeros(4), np.zeros(4)),
        jaccard_score(np.zeros(4), np.zeros(4)),
        noisy_f(np.zeros(4), np.zeros(4)),
        expected_f(np.zeros(4), np.zeros(4)),
        pooled_cv_f([Confusion(0, 0, 0, 3)]),
        *[f_score(Z, Z, average=a) for a in ("instance", "micro", "macro")],
        *f_score(Z, Z, average=None),
    ]
    assert all(v == 1.0 for v in values)   # exact: zero_division = 1 copied, or a mean of 1s
