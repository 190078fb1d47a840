"""Tests of fmstats.multilabel._independent: MEUF, Lewis, the multinomial rule and the GFM inputs.

The reference is brute force: all 2^m label vectors with their exact probabilities and all 2^m
predictions, F_beta(y, h) = (1 + b^2) y.h / (b^2 s_y + s_h) with F(y, 0) = [y = 0].
"""
from functools import cache

import numpy as np
import pytest

import fmstats.multilabel._independent as ind
from fmstats.exceptions import DataError, InvalidArgumentError
from fmstats.multilabel._independent import (
    independent_P,
    lewis,
    meuf,
    multinomial_rule,
    one_hot_P,
)
from fmstats.multilabel._inference import check_P, gfm

BETAS = [0.5, 1.0, 2.0]


# ---------------------------------------------------------------------------------------------
# brute force
# ---------------------------------------------------------------------------------------------
@cache
def all_vectors(m):
    """(2^m, m) 0/1 matrix; row r is the binary expansion of r (label j = bit j)."""
    return ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)


@cache
def f_matrix(m, beta):
    """F[y, h] for all pairs of vectors."""
    V = all_vectors(m)
    b2 = beta * beta
    tp = V @ V.T
    s = V.sum(axis=1)
    den = b2 * s[:, None] + s[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        F = (1 + b2) * tp / den
    empty_h = (s == 0)[None, :]                        # F(y, 0) = [y = 0]
    F = np.where(empty_h, (s == 0)[:, None].astype(float), F)
    assert np.isfinite(F).all()
    return F


def joint_independent(p):
    """(n, 2^m) probabilities of every label vector under independence."""
    V = all_vectors(p.shape[1])
    return np.prod(np.where(V[None] == 1, p[:, None, :], 1 - p[:, None, :]), axis=2)


def brute_values(p, beta):
    """(n, 2^m) exact expected F of every prediction, labels independent."""
    return joint_independent(p) @ f_matrix(p.shape[1], beta)


def index_of(H):
    H = np.atleast_2d(H)
    return (H.astype(np.int64) << np.arange(H.shape[1])).sum(axis=1)


def random_marginals(rng, n, m):
    """Mixed rows: uniform, skewed, rounded (ties, exact 0 and 1) and with planted 0/1."""
    style = rng.integers(0, 4, size=n)[:, None]
    u = rng.random((n, m))
    skew = rng.beta(0.3, 1.0, size=(n, m))
    rounded = np.round(rng.random((n, m)) * 4) / 4        # values in {0, .25, .5, .75, 1}
    planted = np.where(rng.random((n, m)) < 0.3, rng.integers(0, 2, size=(n, m)), u)
    return np.select([style == 0, style == 1, style == 2], [u, skew, rounded], planted)


def assert_top_k_form(p, H):
    """H switches on labels with the largest marginals, and among ties the lower indices."""
    for row, h in zip(p, H):
        on, off = row[h == 1], row[h == 0]
        if on.size and off.size:
            assert on.min() >= off.max()
        for i in range(len(row)):
            for j in range(i + 1, len(row)):
                if row[i] == row[j]:
                    assert h[i] >= h[j]


# ---------------------------------------------------------------------------------------------
# MEUF (exact)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("beta", [0.0] + BETAS)
def test_meuf_exact_equals_brute_force(beta):
    rng = np.random.default_rng(100 + int(10 * beta))
    for m in range(1, 11):
        p = random_marginals(rng, 30, m)
        H, ef = meuf(p, beta=beta)
        assert H.shape == (30, m) and H.dtype == np.int8 and ef.shape == (30,)
        bf = brute_values(p, beta)
        best = bf.max(axis=1)
        np.testing.assert_allclose(ef, best, rtol=0, atol=1e-10)
        attained = bf[np.arange(30), index_of(H)]
        np.testing.assert_allclose(attained, best, rtol=0, atol=1e-10)
        assert_top_k_form(p, H)


def test_meuf_single_instance_and_batch_agree():
    rng = np.random.default_rng(1)
    p = random_marginals(rng, 6, 7)
    H, ef = meuf(p)
    for i in range(6):
        h, e = meuf(list(p[i]))
        assert h.shape == (7,) and h.dtype == np.int8 and isinstance(e, float)
        np.testing.assert_array_equal(h, H[i])    # 0/1, k chosen under the tie rule TIE_TOL
        assert e == pytest.approx(ef[i], abs=1e-14)


def test_meuf_ties_and_extremes():
    # m = 1, p = 1/2: predicting nothing and predicting the label both score 1/2 -> smaller k
    h, e = meuf([0.5])
    np.testing.assert_array_equal(h, [0])
    assert e == pytest.approx(0.5, abs=1e-15)
    # all zeros: F = 1 by predicting nothing; all ones: F = 1 by predicting everything
    h, e = meuf(np.zeros(5))
    assert h.sum() == 0 and e == pytest.approx(1.0)
    h, e = meuf(np.ones(5))
    assert h.sum() == 5 and e == pytest.approx(1.0)
    # equal marginals and one label to pick: the lower index wins
    h, e = meuf([0.1, 0.9, 0.9, 0.1, 0.0, 0.0, 0.0, 0.0], beta=0.0)   # beta = 0: precision
    np.testing.assert_array_equal(h, [0, 1, 0, 0, 0, 0, 0, 0])
    assert e == pytest.approx(0.9)


def test_meuf_exact_blocks(monkeypatch):
    """Processing instances in small blocks gives the same answers."""
    rng = np.random.default_rng(2)
    p = random_marginals(rng, 13, 6)
    H, ef = meuf(p)
    P, p0 = independent_P(p)
    monkeypatch.setattr(ind, "_BLOCK_FLOATS", 100)         # (m + 1)^2 = 49 -> 2 per block
    H2, ef2 = meuf(p)
    P2, p02 = independent_P(p)
    # 0/1 predictions, k chosen under meuf's tie rule (TIE_TOL): exact
    np.testing.assert_array_equal(H, H2)
    # the expected F of a block comes from a BLAS product whose row count is the block size,
    # and a product of 2 rows and of 13 may round differently: sums of <= m + 1 non-negative
    # terms, so a few ulps apart at most
    np.testing.assert_allclose(ef, ef2, rtol=1e-13, atol=0)
    # P and p0: elementwise DPs and per-instance products of the same shapes, whatever the
    # block: exact
    np.testing.assert_array_equal(P, P2)
    np.testing.assert_array_equal(p0, p02)


# ---------------------------------------------------------------------------------------------
# independent_P and GFM
# ---------------------------------------------------------------------------------------------
def test_independent_P_equals_brute_force():
    rng = np.random.default_rng(3)
    for m in range(1, 9):
        p = random_marginals(rng, 12, m)
        P, p0 = independent_P(p)
        J = joint_independent(p)                          # (n, 2^m)
        V = all_vectors(m)
        s = V.sum(axis=1).astype(int)
        S = (s[:, None] == np.arange(1, m + 1)[None, :]).astype(float)   # (2^m, m)
        P_bf = np.einsum("ny,yi,ys->nis", J, V, S)
        np.testing.assert_allclose(P, P_bf, rtol=0, atol=1e-13)
        np.testing.assert_allclose(p0, J[:, 0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(P.sum(axis=2), p, rtol=0, atol=1e-12)   # marginals
        check_P(P, p0)                                     # a valid distribution for GFM
        P1, p01 = independent_P(p[0])
        assert P1.shape == (m, m) and isinstance(p01, float)
        # exact: the same per-instance arithmetic (elementwise DPs, products of the same shapes)
        np.testing.assert_array_equal(P1, P[0])


@pytest.mark.parametrize("beta", BETAS)
def test_gfm_equals_meuf_under_independence(beta):
    rng = np.random.default_rng(4 + int(10 * beta))
    for m in list(range(1, 11)) + [25, 60]:
        n = 20 if m <= 10 else 4
        p = random_marginals(rng, n, m)
        H_g, ef_g = gfm(*independent_P(p), beta=beta)
        H_m, ef_m = meuf(p, beta=beta)
        np.testing.assert_allclose(ef_g, ef_m, rtol=0, atol=1e-10)
        if m <= 10:
            bf = brute_values(p, beta)
            np.testing.assert_allclose(bf[np.arange(n), index_of(H_g)], ef_m, rtol=0, atol=1e-10)
        else:
            # beyond brute force: GFM also predicts the k largest marginals (as a multiset),
            # with the same k as MEUF, so both predictions have the same expected F
            np.testing.assert_array_equal(H_g.sum(axis=1), H_m.sum(axis=1))
            for row, h in zip(p, H_g):
                top = np.sort(row)[::-1][: h.sum()]
                np.testing.assert_array_equal(np.sort(row[h == 1])[::-1], top)


def test_large_m_is_stable():
    rng = np.random.default_rng(5)
    p = rng.beta(0.5, 2.0, size=(3, 300))
    H, ef = meuf(p)
    _, efa = meuf(p, exact=False)
    assert np.all((ef > 0) & (ef <= 1)) and np.all(np.abs(efa - ef) < 1e-3)
    assert np.all(H.sum(axis=1) > 0)


# ---------------------------------------------------------------------------------------------
# approximations: MEUF (exact=False) and Lewis
# ---------------------------------------------------------------------------------------------
def regrets(beta, method, seed, cases=40):
    rng = np.random.default_rng(seed)
    out = []
    for m in range(1, 11):
        p = random_marginals(rng, cases, m)
        H = method(p, beta)
        bf = brute_values(p, beta)
        got = bf[np.arange(cases), index_of(H)]
        assert H.dtype == np.int8 and set(np.unique(H)) <= {0, 1}
        assert_top_k_form(p, H)
        out.append(bf.max(axis=1) - got)
    return np.concatenate(out)


# Empirical bounds on this fixed random design (400 cases per beta, m = 1..10), with margin
# over the observed values.  meuf(exact=False): mean regret 3e-8 / 5e-7 / 5e-5 and max
# 1e-5 / 2e-4 / 4e-3 for beta = 0.5 / 1 / 2 (bounds 5e-4 and 0.02).  Lewis: mean regret
# 3e-4 / 1.4e-3 / 6e-3 and max 0.05 / 0.12 / 0.35 (bounds 0.01 / 0.04 on the mean, 0.25 / 0.6
# on the max): Lewis ignores the spread of s_y, which matters most for small m and large beta.
@pytest.mark.parametrize("beta", BETAS)
def test_meuf_approximate_regret(beta):
    r = regrets(beta, lambda p, b: meuf(p, exact=False, beta=b)[0], seed=6)
    assert r.min() >= -1e-12
    assert r.mean() < 5e-4
    assert r.max() < 0.02


@pytest.mark.parametrize("beta", BETAS)
def test_lewis_regret(beta):
    r = regrets(beta, lambda p, b: lewis(p, beta=b), seed=7)
    assert r.min() >= -1e-12
    assert r.mean() < (0.01 if beta <= 1 else 0.04)
    assert r.max() < (0.25 if beta <= 1 else 0.6)


def test_meuf_approximate_value_close_to_exact():
    rng = np.random.default_rng(8)
    p = random_marginals(rng, 200, 10)
    H, ef_approx = meuf(p, exact=False)
    exact_of_H = brute_values(p, 1.0)[np.arange(200), index_of(H)]
    err = np.abs(ef_approx - exact_of_H)
    assert err.mean() < 2e-3 and err.max() < 0.03


def test_meuf_approximate_is_exact_in_special_cases():
    rng = np.random.default_rng(9)
    p = random_marginals(rng, 50, 8)
    # beta = 0: F is the precision, linear in the true positives
    H0, e0 = meuf(p, exact=True, beta=0.0)
    H1, e1 = meuf(p, exact=False, beta=0.0)
    np.testing.assert_array_equal(H0, H1)
    np.testing.assert_allclose(e0, e1, rtol=0, atol=1e-13)
    # m = 1: nothing is left out of the prediction, nothing to approximate
    for beta in BETAS:
        q = rng.random((20, 1))
        Ha, ea = meuf(q, exact=False, beta=beta)
        He, ee = meuf(q, exact=True, beta=beta)
        np.testing.assert_array_equal(Ha, He)
        np.testing.assert_allclose(ea, ee, rtol=0, atol=1e-14)


@pytest.mark.parametrize("beta", BETAS)
def test_lewis_maximises_its_approximation_over_all_predictions(beta):
    """Lewis' objective, maximised over all 2^m predictions, is maximised by the top-k answer."""
    rng = np.random.default_rng(10)
    b2 = beta * beta
    for m in range(1, 9):
        p = random_marginals(rng, 25, m)
        V = all_vectors(m)
        sh = V.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            approx = (1 + b2) * (p @ V.T) / (b2 * p.sum(axis=1, keepdims=True) + sh[None, :])
        approx[:, 0] = np.prod(1 - p, axis=1)
        H = lewis(p, beta=beta)
        got = approx[np.arange(25), index_of(H)]
        np.testing.assert_allclose(got, approx.max(axis=1), rtol=0, atol=1e-12)


def test_lewis_hand_example():
    # k=0: 0.09; k=1: 2*0.9/(1+1) = 0.9; k=2: 2*1/(1+2) = 0.667
    np.testing.assert_array_equal(lewis([0.1, 0.9]), [0, 1])
    np.testing.assert_array_equal(lewis([[0.9, 0.1], [0.1, 0.9]]), [[1, 0], [0, 1]])
    # one label at 1/2: Lewis says 2*0.5/1.5 = 2/3 > 1/2 = p(y = 0), unlike exact MEUF
    np.testing.assert_array_equal(lewis([0.5]), [1])


# ---------------------------------------------------------------------------------------------
# multinomial (one-hot) distributions
# ---------------------------------------------------------------------------------------------
def one_hot_values(p, beta):
    """(n, 2^m) exact expected F of every prediction when p(Y = y(i)) = p_i (and p(0) = rest)."""
    m = p.shape[1]
    V = all_vectors(m)
    sh = V.sum(axis=1)
    b2 = beta * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        vals = (1 + b2) * (p @ V.T) / (b2 + sh[None, :])
    vals[:, 0] = 1 - p.sum(axis=1)
    return vals


def simplex(rng, n, m):
    alpha = rng.choice([0.2, 1.0, 5.0])
    p = rng.dirichlet(np.full(m, alpha), size=n)
    p[0] = 1.0 / m                                         # all tied
    if m > 2:
        p[1] = np.r_[0.5, 0.25, 0.25, np.zeros(m - 3)] if m > 3 else [0.5, 0.25, 0.25]
    return p


@pytest.mark.parametrize("beta", BETAS)
def test_multinomial_rule_equals_brute_force_and_gfm(beta):
    rng = np.random.default_rng(11 + int(10 * beta))
    for m in range(1, 11):
        p = simplex(rng, 25, m)
        H = multinomial_rule(p, beta=beta)
        assert H.dtype == np.int8 and H.shape == (25, m)
        vals = one_hot_values(p, beta)
        got = vals[np.arange(25), index_of(H)]
        np.testing.assert_allclose(got, vals.max(axis=1), rtol=0, atol=1e-12)
        _, ef_g = gfm(*one_hot_P(p), beta=beta)
        np.testing.assert_allclose(got, ef_g, rtol=0, atol=1e-12)
        assert_top_k_form(p, H)


def test_multinomial_rule_theorem_example():
    # q = (.5, .3, .2): k=1: .5 >= 2(.3)? no; k=2: .8 >= 3(.2) yes -> the two largest
    np.testing.assert_array_equal(multinomial_rule([0.2, 0.5, 0.3]), [0, 1, 1])
    # uniform: never holds -> h = 1
    np.testing.assert_array_equal(multinomial_rule(np.full(4, 0.25)), [1, 1, 1, 1])
    # a dominant label: k = 1
    np.testing.assert_array_equal(multinomial_rule([0.1, 0.8, 0.1]), [0, 1, 0])


def test_one_hot_P_structure_and_residual_mass():
    P, p0 = one_hot_P([0.2, 0.1, 0.3])
    np.testing.assert_allclose(P[:, 0], [0.2, 0.1, 0.3])
    assert np.all(P[:, 1:] == 0) and p0 == pytest.approx(0.4)
    check_P(P, p0)
    # most mass on y = 0: GFM predicts nothing, as it should (the del Coz rule does not apply)
    H, ef = gfm(*one_hot_P([0.1, 0.05, 0.05]))
    assert H.sum() == 0 and ef == pytest.approx(0.8)
    with pytest.raises(DataError, match="sum to 1"):
        multinomial_rule([0.1, 0.05, 0.05])


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
ALL = [lambda p: meuf(p), lambda p: meuf(p, exact=False), lambda p: lewis(p),
       lambda p: independent_P(p), lambda p: one_hot_P(p), lambda p: multinomial_rule(p)]


@pytest.mark.parametrize("fn", ALL)
@pytest.mark.parametrize("bad, err, msg", [
    ([0.2, np.nan], DataError, r"`marginals` must be finite; entry \(1,\) is nan"),
    ([[0.1, 0.2], [np.inf, 0.1]], DataError, r"entry \(1, 0\) is inf"),
    ([0.5, -0.1], DataError, r"in \[0, 1\]; entry \(1,\) is -0.1"),
    ([[0.5, 1.5]], DataError, r"in \[0, 1\]; entry \(0, 1\) is 1.5"),
    ([], InvalidArgumentError, r"at least one label"),
    (np.zeros((2, 0)), InvalidArgumentError, r"at least one label"),
    (np.zeros((2, 2, 2)), InvalidArgumentError, r"shape \(m,\) or \(n, m\)"),
    (["a", "b"], InvalidArgumentError, r"`marginals` must be a numeric array"),
])
def test_bad_marginals(fn, bad, err, msg):
    with pytest.raises(err, match=msg):
        fn(bad)


@pytest.mark.parametrize("fn", [meuf, lewis, multinomial_rule])
@pytest.mark.parametrize("beta, msg", [(-1.0, r"`beta` must lie in \[0"),
                                       (np.nan, r"`beta` must be finite"),
                                       ("2", r"`beta` must be a real number"),
                                       (1e200, r"`beta` is too large")])
def test_bad_beta(fn, beta, msg):
    with pytest.raises(InvalidArgumentError, match=msg):
        fn([0.5, 0.5], beta=beta)


def test_bad_exact_and_sums():
    with pytest.raises(InvalidArgumentError, match="`exact` must be True or False; got 'yes'"):
        meuf([0.3], exact="yes")
    with pytest.raises(DataError, match=r"instance 1 sums to 1.1"):
        multinomial_rule([[0.5, 0.5], [0.6, 0.5]])
    with pytest.raises(DataError, match=r"they sum to 0.9"):
        multinomial_rule([0.5, 0.4])
    with pytest.raises(DataError, match=r"at most 1.*instance 0 sums to 1.2"):
        one_hot_P([[0.6, 0.6]])
    # sums within the tolerance are accepted
    multinomial_rule([0.5, 0.5 + 5e-10])
    one_hot_P([0.5, 0.5 + 5e-10])
