"""GFM (seed 000, Algorithm 1) against brute force over all 2^m predictions."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fmstats.exceptions import DataError, InvalidArgumentError
from fmstats.multilabel import estimate_P, gfm, gfm_threshold, hamming


def all_vectors(m):
    return np.array(list(itertools.product([0, 1], repeat=m)), dtype=float)


def f_matrix(Ys, beta):
    """F_beta(y, h) for every pair of label vectors (rows y, columns h); 0/0 = 1."""
    b2 = beta * beta
    num = (1 + b2) * (Ys @ Ys.T)
    den = b2 * Ys.sum(1)[:, None] + Ys.sum(1)[None, :]
    return np.where(den == 0, 1.0, num / np.where(den == 0, 1.0, den))


def P_of(dist, Ys):
    m = Ys.shape[1]
    sy = Ys.sum(1).astype(int)
    onehot = np.eye(m + 1)[sy][:, 1:]                 # (2^m, m)
    P = (Ys * dist[:, None]).T @ onehot              # P[i, s-1] = sum_y y_i [s_y = s] p(y)
    return P, float(dist[sy == 0].sum())


def canonical_best(EF, Ys, tol=1e-12):
    """Among optimal predictions: fewest positives, then the lowest label indices."""
    best = EF.max()
    cand = np.flatnonzero(EF >= best - tol)
    key = [(int(Ys[c].sum()), tuple(np.flatnonzero(Ys[c] == 1))) for c in cand]
    return Ys[cand[min(range(len(cand)), key=lambda j: key[j])]]


@pytest.mark.parametrize("m", range(1, 13))
def test_gfm_equals_brute_force(m):
    rng = np.random.default_rng(100 + m)
    Ys = all_vectors(m)
    n_dist = 300 if m <= 8 else (100 if m <= 10 else 40)
    for beta in (1.0, 2.0) if m <= 10 else (1.0,):
        Fm = f_matrix(Ys, beta)
        # dependent labels: sparse Dirichlet mass on a few random vectors plus a dense part
        dists = rng.dirichlet(np.full(2 ** m, 0.05), size=n_dist)
        Ps, p0s = zip(*(P_of(d, Ys) for d in dists))
        H, ef = gfm(np.array(Ps), np.array(p0s), beta=beta)
        EF = dists @ Fm                               # expected F of every prediction
        np.testing.assert_allclose(ef, EF.max(axis=1), rtol=0, atol=1e-10)
        idx = (H.astype(float) @ (2.0 ** np.arange(m - 1, -1, -1))).astype(int)
        np.testing.assert_allclose(EF[np.arange(n_dist), idx], EF.max(axis=1), atol=1e-10)


def test_ties_are_broken_deterministically():
    rng = np.random.default_rng(7)
    for m in (3, 5, 7):
        Ys = all_vectors(m)
        Fm = f_matrix(Ys, 1.0)
        for _ in range(50):
            # exchangeable distributions: p(y) depends on s_y only -> all labels tie
            ps = rng.dirichlet(np.ones(m + 1))
            sy = Ys.sum(1).astype(int)
            from math import comb
            dist = ps[sy] / np.array([comb(m, s) for s in sy])
            P, p0 = P_of(dist, Ys)
            H, ef = gfm(P, p0)
            EF = dist @ Fm
            assert ef == pytest.approx(EF.max(), abs=1e-12)
            np.testing.assert_array_equal(H, canonical_best(EF, Ys, tol=1e-12))
            # the same input gives the same answer, batched or not
            Hb, _ = gfm(np.stack([P, P]), np.array([p0, p0]))
            np.testing.assert_array_equal(Hb[0], H)
            np.testing.assert_array_equal(Hb[1], H)


def test_empty_prediction_when_p0_dominates():
    m = 4
    Ys = all_vectors(m)
    dist = np.full(2 ** m, 0.2 / (2 ** m - 1))
    dist[0] = 0.8
    P, p0 = P_of(dist, Ys)
    H, ef = gfm(P, p0)
    assert H.sum() == 0 and ef == pytest.approx(0.8)


@pytest.mark.parametrize("m", [2, 5, 8])
def test_gfm_threshold_is_best_threshold_on_marginals(m):
    rng = np.random.default_rng(m)
    Ys = all_vectors(m)
    Fm = f_matrix(Ys, 1.0)
    for _ in range(100):
        dist = rng.dirichlet(np.full(2 ** m, 0.1))
        P, p0 = P_of(dist, Ys)
        H, ef = gfm_threshold(P, p0)
        marg = P.sum(1)
        order = np.argsort(-marg, kind="stable")
        cands = [np.isin(np.arange(m), order[:k]).astype(float) for k in range(m + 1)]
        best = max(dist @ Fm[:, int(c @ (2.0 ** np.arange(m - 1, -1, -1)))] for c in cands)
        assert ef == pytest.approx(best, abs=1e-10)
        assert ef <= gfm(P, p0)[1] + 1e-12
        # the prediction is a threshold on the marginals
        if 0 < H.sum() < m:
            assert marg[H == 1].min() >= marg[H == 0].max() - 1e-15


def test_estimate_P_counts_and_round_trip():
    rng = np.random.default_rng(3)
    m, S = 6, 400
    samples = (rng.random((2, S, m)) < 0.3).astype(np.int8)
    P, p0 = estimate_P(samples)
    for i in range(2):
        Y = samples[i]
        s = Y.sum(1)
        for j in range(m):
            for k in range(1, m + 1):
                assert P[i, j, k - 1] == pytest.approx(np.mean((Y[:, j] == 1) & (s == k)))
        assert p0[i] == pytest.approx(np.mean(s == 0))
    # an empirical distribution's P is a valid input, and GFM on it equals brute force on it
    Ys = all_vectors(m)
    codes = (samples[0] @ (2 ** np.arange(m - 1, -1, -1))).astype(int)
    dist = np.bincount(codes, minlength=2 ** m) / S
    H, ef = gfm(P[0], p0[0])
    assert ef == pytest.approx((dist @ f_matrix(Ys, 1.0)).max(), abs=1e-12)


def test_hamming_rule():
    np.testing.assert_array_equal(hamming([[0.2, 0.5, 0.9]]), [[0, 1, 1]])


@pytest.mark.parametrize("P, p0, err, match", [
    (np.full((2, 2), 1.5), 0.0, DataError, "probabilities in \\[0, 1\\]"),
    (np.full((2, 3), 0.1), 0.5, InvalidArgumentError, "shape"),
    (np.zeros((0, 0)), 1.0, InvalidArgumentError, "m = 0"),
    (np.array([[0.5, 0.0], [0.5, 0.0]]), 0.9, DataError, "not consistent"),
    (np.zeros((3, 2, 2)), np.ones(2), InvalidArgumentError, "one value per instance"),
])
def test_bad_P(P, p0, err, match):
    with pytest.raises(err, match=match):
        gfm(P, p0)


def test_bad_samples_and_beta():
    with pytest.raises(DataError, match="0/1"):
        estimate_P(np.full((3, 2), 2))
    with pytest.raises(InvalidArgumentError, match="beta"):
        gfm(np.array([[0.5]]), 0.5, beta=-1)
