"""Tests of fmstats.multilabel's models: binary relevance, probabilistic classifier chains,
their inference and the protocol of Table 1 / Figure 1 of seed 000 (Dembczynski et al. 2011).

Reference values: the chain's exact joint distribution is computed here by brute force over
all 2^m label vectors from the documented coefficient table (independently of the package's
sampler and of ``exact_P``); the synthetic models of Figure 1 have their exact P computed by a
dynamic programme written out in this file; the yeast numbers are those of Table 1.
"""
from __future__ import annotations

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit
from scipy.stats import binom

from fmstats.datasets import load_yeast, yeast_label_names
from fmstats.exceptions import (
    DataError,
    FmstatsError,
    FormulaError,
    InvalidArgumentError,
    ResponseError,
)
from fmstats.multilabel import (
    BRResults,
    PCCResults,
    br,
    estimate_P,
    evaluate,
    gfm,
    gfm_threshold,
    lewis,
    meuf,
    pcc,
)
from fmstats.multilabel._checks import INFERENCES

F_METHODS = ("gfm", "gfm-t", "meuf", "meuf-approx", "lewis")


# ----------------------------------------------------------------------------------------
# synthetic data drawn from a known chain
# ----------------------------------------------------------------------------------------
def _chain_data(n=400, m=4, seed=0):
    """Two features and m labels from a logistic chain with strong label dependence."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=(2, n))
    Y = np.zeros((n, m), dtype=int)
    for j in range(m):
        eta = -0.3 + 0.8 * x1 - 0.5 * x2 * (j % 2) + 1.5 * Y[:, :j].sum(axis=1) - 0.6 * j
        Y[:, j] = rng.random(n) < expit(eta)
    df = pd.DataFrame({"x1": x1, "x2": x2})
    for j in range(m):
        df[f"y{j + 1}"] = Y[:, j]
    return df


@pytest.fixture(scope="module")
def chain_df():
    return _chain_data()


@pytest.fixture(scope="module")
def chain_fit(chain_df):
    return pcc(chain_df, ["y1", "y2", "y3", "y4"], random_state=0)


@pytest.fixture(scope="module")
def br_fit(chain_df):
    return br(chain_df, ["y1", "y2", "y3", "y4"], random_state=0)


def _brute_force_P(res: PCCResults, newdata: pd.DataFrame):
    """Exact (P, p0) of a fitted chain: every label vector's probability from the coefficient
    table (standardised scale, as documented), summed into P[i, s-1] = p(y_i = 1, s_y = s)."""
    labels, feats = res.labels, res.features
    m = len(labels)
    Z = (newdata[feats].to_numpy(float) - res.center) / res.scale
    c = res.coef
    P = np.zeros((len(newdata), m, m))
    p0 = np.zeros(len(newdata))
    for r in range(len(newdata)):
        for y in itertools.product((0, 1), repeat=m):
            prob = 1.0
            for j, lab in enumerate(labels):
                eta = c.loc["(Intercept)", lab] + Z[r] @ c.loc[feats, lab].to_numpy()
                for k in range(j):
                    eta += c.loc[labels[k], lab] * (y[k] - res.label_center[k]) / \
                        res.label_scale[k]
                q = expit(eta)
                prob *= q if y[j] else 1 - q
            s = sum(y)
            if s == 0:
                p0[r] += prob
            for i in range(m):
                if y[i]:
                    P[r, i, s - 1] += prob
    return P, p0


# ----------------------------------------------------------------------------------------
# the chain's joint distribution
# ----------------------------------------------------------------------------------------
def test_pcc_sampling_reproduces_joint_distribution(chain_fit, chain_df):
    new = chain_df.iloc[[3, 17, 250]]
    P, p0 = _brute_force_P(chain_fit, new)
    assert np.allclose(p0 + (P.sum(axis=1) / np.arange(1, 5)).sum(axis=1), 1.0)
    S = 40_000
    Y = chain_fit.sample(new, n_samples=S, random_state=5)
    assert Y.shape == (3, S, 4) and set(np.unique(Y)) <= {0, 1}
    Ph, p0h = estimate_P(Y)
    # every entry is a mean of S Bernoulli(P) indicators
    se = np.sqrt(P * (1 - P) / S) + 1e-12
    assert np.all(np.abs(Ph - P) <= 4.5 * se + 1e-9), np.max(np.abs(Ph - P) / se)
    se0 = np.sqrt(p0 * (1 - p0) / S)
    assert np.all(np.abs(p0h - p0) <= 4.5 * se0)
    # the chain really is dependent: the joint differs from independence with its marginals
    from fmstats.multilabel import independent_P
    Pi, _ = independent_P(P.sum(axis=2))
    assert np.max(np.abs(Pi - P)) > 0.02


def test_exact_P_matches_brute_force(chain_fit, chain_df):
    new = chain_df.iloc[:5]
    P, p0 = chain_fit.exact_P(new)
    Pb, p0b = _brute_force_P(chain_fit, new)
    np.testing.assert_allclose(P, Pb, atol=1e-12)
    np.testing.assert_allclose(p0, p0b, atol=1e-12)


def test_exact_P_refuses_large_m(chain_df):
    df = chain_df[["x1", "x2"]].copy()
    rng = np.random.default_rng(1)
    for j in range(17):
        df[f"z{j}"] = rng.integers(0, 2, len(df))
    res = pcc(df, [f"z{j}" for j in range(17)], ["x1", "x2"], penalty=0.1)
    with pytest.raises(InvalidArgumentError, match="exact_P"):
        res.exact_P(df.iloc[:2])


def test_pcc_recovers_chain_coefficients():
    # large sample, tiny penalty: raw-scale coefficients near the generating ones
    df = _chain_data(n=20_000, m=3, seed=4)
    res = pcc(df, ["y1", "y2", "y3"], ["x1", "x2"], penalty=1e-6)
    c = res.coef
    raw = lambda term, lab, sc: c.loc[term, lab] / sc  # noqa: E731
    assert raw("x1", "y3", res.scale[0]) == pytest.approx(0.8, abs=0.1)
    assert raw("x2", "y2", res.scale[1]) == pytest.approx(-0.5, abs=0.1)
    assert raw("y1", "y3", res.label_scale[0]) == pytest.approx(1.5, abs=0.15)
    assert raw("y2", "y3", res.label_scale[1]) == pytest.approx(1.5, abs=0.15)
    # parents only: label 1 has no label inputs
    assert (c.loc[["y1", "y2", "y3"], "y1"] == 0).all()


# ----------------------------------------------------------------------------------------
# predictions: shapes, indices, reproducibility
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("inference", INFERENCES)
@pytest.mark.parametrize("model", ["pcc", "br"])
def test_predict_shape_and_index(model, inference, chain_fit, br_fit, chain_df):
    res = chain_fit if model == "pcc" else br_fit
    new = chain_df.iloc[10:40].copy()
    new.index = [f"gene{i}" for i in range(30)]
    H = res.predict(new, inference=inference, random_state=1)
    assert isinstance(H, pd.DataFrame)
    assert list(H.columns) == ["y1", "y2", "y3", "y4"]
    assert list(H.index) == list(new.index)
    assert set(np.unique(H.to_numpy())) <= {0, 1}
    # features only are needed for prediction
    H2 = res.predict(new[["x1", "x2"]], inference=inference, random_state=1)
    pd.testing.assert_frame_equal(H, H2)


def test_sample_and_marginals_shapes(chain_fit, br_fit, chain_df):
    new = chain_df.iloc[:7]
    for res in (chain_fit, br_fit):
        Y = res.sample(new, n_samples=13, random_state=0)
        assert Y.shape == (7, 13, 4) and Y.dtype == np.int8
    mp = chain_fit.predict_marginals(new, n_samples=50, random_state=0)
    mb = br_fit.predict_marginals(new)
    for mm in (mp, mb):
        assert mm.shape == (7, 4) and list(mm.index) == list(new.index)
        assert ((mm >= 0) & (mm <= 1)).all().all()


def test_reproducible_with_random_state(chain_df):
    a = pcc(chain_df, ["y1", "y2", "y3", "y4"], random_state=3)
    b = pcc(chain_df, ["y1", "y2", "y3", "y4"], random_state=3)
    pd.testing.assert_frame_equal(a.coef, b.coef)
    pd.testing.assert_series_equal(a.penalty, b.penalty)
    new = chain_df.iloc[:50]
    np.testing.assert_array_equal(a.sample(new, 100, random_state=9),
                                  b.sample(new, 100, random_state=9))
    pd.testing.assert_frame_equal(a.predict(new, random_state=2), b.predict(new, random_state=2))
    assert not np.array_equal(a.sample(new, 100, random_state=9),
                              a.sample(new, 100, random_state=10))
    rng1, rng2 = np.random.default_rng(4), np.random.default_rng(4)
    np.testing.assert_array_equal(a.sample(new, 20, random_state=rng1),
                                  a.sample(new, 20, random_state=rng2))


def test_predict_uses_one_sample_for_all_rules(chain_fit, chain_df):
    """gfm/gfm-t on estimate_P and the marginal rules on the marginals of the same sample."""
    new = chain_df.iloc[:60]
    Y = chain_fit.sample(new, 200, random_state=11)
    P, p0 = estimate_P(Y)
    marg = Y.mean(axis=1)
    expect = {"gfm": gfm(P, p0)[0], "gfm-t": gfm_threshold(P, p0)[0], "meuf": meuf(marg)[0],
              "meuf-approx": meuf(marg, exact=False)[0], "lewis": lewis(marg),
              "hamming": (marg >= 0.5).astype(int)}
    for inf, H in expect.items():
        got = chain_fit.predict(new, inference=inf, n_samples=200, random_state=11)
        # 0/1: predict applies the same rules to the same sample's estimate_P and mean
        np.testing.assert_array_equal(got.to_numpy(), H, err_msg=inf)


def test_pickle_roundtrip(chain_fit, br_fit, chain_df):
    new = chain_df.iloc[:20]
    for res in (chain_fit, br_fit):
        clone = pickle.loads(pickle.dumps(res))
        assert type(clone) is type(res)
        pd.testing.assert_frame_equal(clone.predict(new, random_state=0),
                                      res.predict(new, random_state=0))


def test_tidy_and_repr(chain_fit):
    t = chain_fit.tidy()
    assert list(t.columns) == ["label", "term", "estimate", "penalty"]
    assert len(t) == 4 * (1 + 2 + 4)
    assert "probabilistic classifier chain" in repr(chain_fit)
    assert chain_fit.cv_loss.shape == (4, len(chain_fit.grid))


# ----------------------------------------------------------------------------------------
# binary relevance
# ----------------------------------------------------------------------------------------
def test_br_marginals_are_the_logistic_probabilities(br_fit, chain_df):
    new = chain_df.iloc[:25]
    Z = (new[["x1", "x2"]].to_numpy() - br_fit.center) / br_fit.scale
    c = br_fit.coef.to_numpy()
    np.testing.assert_allclose(br_fit.predict_marginals(new).to_numpy(),
                               expit(c[0] + Z @ c[1:]), rtol=1e-12)


def test_br_exact_gfm_equals_meuf(br_fit, chain_df):
    """Under BR's independence GFM (on independent_P) is the exact F-maximiser, as is MEUF."""
    new = chain_df.iloc[:200]
    marg = br_fit.predict_marginals(new).to_numpy()
    Hg = br_fit.predict(new, "gfm").to_numpy()
    Hm = br_fit.predict(new, "meuf").to_numpy()
    from fmstats.multilabel import independent_P
    P, p0 = independent_P(marg)
    W = 2.0 / (np.arange(1, 5)[:, None] + np.arange(1, 5)[None, :])
    ef_g, ef_m = _expected_f(Hg, P, p0, W), _expected_f(Hm, P, p0, W)
    np.testing.assert_allclose(ef_g, ef_m, atol=1e-10)


def test_br_sampled_inference(br_fit, chain_df):
    new = chain_df.iloc[:30]
    a = br_fit.predict(new, "gfm", n_samples=300, random_state=1)
    b = br_fit.predict(new, "gfm", n_samples=300, random_state=1)
    pd.testing.assert_frame_equal(a, b)
    Y = br_fit.sample(new, 20_000, random_state=2)
    np.testing.assert_allclose(Y.mean(axis=1), br_fit.predict_marginals(new), atol=0.015)


def test_standardisation_makes_feature_scale_irrelevant(chain_df):
    scaled = chain_df.assign(x1=chain_df["x1"] * 1000.0 + 50.0)
    a = br(chain_df, ["y1", "y2"], ["x1", "x2"], random_state=0)
    b = br(scaled, ["y1", "y2"], ["x1", "x2"], random_state=0)
    np.testing.assert_allclose(a.predict_marginals(chain_df), b.predict_marginals(scaled),
                               rtol=1e-6)


def test_constant_label_is_handled(chain_df):
    df = chain_df.assign(never=0)
    res = br(df, ["y1", "never"], ["x1", "x2"], random_state=0)
    p = res.predict_marginals(df)["never"]
    assert (p > 0).all() and (p < 0.01).all()
    res2 = pcc(df, ["never", "y1"], ["x1", "x2"], random_state=0)
    assert res2.predict(df.iloc[:5], "gfm", random_state=0).shape == (5, 2)


# ----------------------------------------------------------------------------------------
# interfaces: formula strings, lists, settings
# ----------------------------------------------------------------------------------------
def test_formula_interface(chain_df):
    a = pcc(chain_df, "y1 + y2 + y3 ~ x1 + x2", random_state=0)
    b = pcc(chain_df, ["y1", "y2", "y3"], ["x1", "x2"], random_state=0)
    pd.testing.assert_frame_equal(a.coef, b.coef)
    c = pcc("y1 + y2 + y3 ~ x1 + x2", chain_df, random_state=0)     # R's order
    pd.testing.assert_frame_equal(a.coef, c.coef)
    d = br(chain_df.drop(columns="y4"), "y1 + `y2` + y3 ~ .", random_state=0)
    assert d.features == ["x1", "x2"] and d.labels == ["y1", "y2", "y3"]
    e = br(chain_df, "y1 ~ x1", random_state=0)
    assert e.features == ["x1"]


def test_fixed_penalties(chain_df):
    res = br(chain_df, ["y1", "y2"], ["x1", "x2"], penalty=[0.01, 1.0])
    assert list(res.penalty) == [0.01, 1.0] and res.cv_loss is None
    # a larger penalty shrinks the (standardised) slopes
    assert np.abs(res.coef.loc[["x1", "x2"], "y2"]).sum() < \
        np.abs(res.coef.loc[["x1", "x2"], "y1"]).sum() + 1.0
    big = br(chain_df, ["y1"], ["x1", "x2"], penalty=100.0)
    small = br(chain_df, ["y1"], ["x1", "x2"], penalty=0.0)
    assert np.abs(big.coef.loc["x1", "y1"]) < np.abs(small.coef.loc["x1", "y1"])


def test_cv_chooses_from_grid_and_splitter(chain_df):
    grid = (0.001, 0.1, 10.0)
    res = br(chain_df, ["y1", "y2"], ["x1", "x2"], penalties=grid, cv=4, random_state=0)
    assert set(res.penalty) <= set(grid)          # copies of grid values: exact
    assert list(res.cv_loss.columns) == list(grid)
    # the stated rule: losses within 1e-12 of the smallest are tied, and the larger penalty
    # (the simpler model) wins -- not idxmin's first exact minimum
    loss = res.cv_loss.to_numpy()
    chosen = [max(g for g, v in zip(grid, row) if v <= row.min() + 1e-12) for row in loss]
    assert chosen == list(res.penalty)

    class TwoFold:
        def split(self, X, y):
            idx = np.arange(len(y))
            yield idx[idx % 2 == 0], idx[idx % 2 == 1]
            yield idx[idx % 2 == 1], idx[idx % 2 == 0]

    res2 = br(chain_df, ["y1"], ["x1", "x2"], penalties=grid, cv=TwoFold())
    assert res2.penalty.iloc[0] in grid


def test_refit_uses_same_settings(chain_df):
    res = pcc(chain_df, ["y1", "y2"], ["x1"], penalties=(0.01, 1.0), cv=3, random_state=2)
    again = res.refit(chain_df)
    pd.testing.assert_frame_equal(res.coef, again.coef)
    assert isinstance(again, PCCResults)


def test_parallel_fit_equals_sequential(chain_df):
    a = br(chain_df, ["y1", "y2", "y3"], random_state=0)
    b = br(chain_df, ["y1", "y2", "y3"], random_state=0, n_jobs=2)
    pd.testing.assert_frame_equal(a.coef, b.coef)
    assert isinstance(a, BRResults)


# ----------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------
def test_labels_must_be_binary(chain_df):
    bad = chain_df.assign(y2=chain_df["y2"] * 2)
    with pytest.raises(ResponseError, match="'y2'.*0 and 1"):
        pcc(bad, ["y1", "y2"], ["x1"])
    bad = chain_df.assign(y1=chain_df["y1"].astype(float))
    bad.loc[5, "y1"] = np.nan
    with pytest.raises(ResponseError, match="'y1'"):
        br(bad, ["y1"], ["x1"])


def test_unknown_columns(chain_df):
    with pytest.raises(InvalidArgumentError, match="`labels`.*'nope'"):
        br(chain_df, ["y1", "nope"], ["x1"])
    with pytest.raises(InvalidArgumentError, match="`features`.*'zz'"):
        br(chain_df, ["y1"], ["x1", "zz"])
    with pytest.raises(FormulaError, match="'zz'"):
        pcc(chain_df, "y1 + y2 ~ x1 + zz")
    with pytest.raises(FormulaError, match="term"):
        pcc(chain_df, "y1 + y2 ~ x1 * x2")
    with pytest.raises(InvalidArgumentError, match="both a label and a feature"):
        br(chain_df, ["y1"], ["y1", "x1"])


def test_newdata_checks(chain_fit, chain_df):
    with pytest.raises(DataError, match="`newdata`.*'x2'"):
        chain_fit.predict(chain_df[["x1"]])
    with pytest.raises(FmstatsError, match="non-finite"):
        chain_fit.predict(chain_df.assign(x1=np.nan))
    with pytest.raises(DataError, match="no rows"):
        chain_fit.predict(chain_df.iloc[:0])


@pytest.mark.parametrize("bad", [0, -3, 2.5, "many"])
def test_n_samples_checked(chain_fit, br_fit, chain_df, bad):
    with pytest.raises(InvalidArgumentError, match="`n_samples`"):
        chain_fit.predict(chain_df, n_samples=bad)
    with pytest.raises(InvalidArgumentError, match="`n_samples`"):
        chain_fit.sample(chain_df, n_samples=bad)
    with pytest.raises(InvalidArgumentError, match="`n_samples`"):
        br_fit.predict(chain_df, n_samples=bad)


def test_unknown_inference(chain_fit, br_fit, chain_df):
    for res in (chain_fit, br_fit):
        with pytest.raises(InvalidArgumentError, match="`inference`.*'gfmx'"):
            res.predict(chain_df, inference="gfmx")
    with pytest.raises(InvalidArgumentError, match="`inference`"):
        evaluate(chain_fit, chain_df, inferences=("gfm", "bogus"))


def test_bad_settings(chain_df):
    with pytest.raises(InvalidArgumentError, match="`penalty`"):
        br(chain_df, ["y1"], ["x1"], penalty=-1.0)
    with pytest.raises(InvalidArgumentError, match="`penalty`"):
        br(chain_df, ["y1"], ["x1"], penalty="aic")
    with pytest.raises(InvalidArgumentError, match="`penalties`"):
        br(chain_df, ["y1"], ["x1"], penalties=(0.1, -1))
    with pytest.raises(InvalidArgumentError, match="`cv`"):
        br(chain_df, ["y1"], ["x1"], cv=1)
    with pytest.raises(InvalidArgumentError, match="`random_state`"):
        br(chain_df, ["y1"], ["x1"], random_state="seed")
    with pytest.raises(DataError, match="numeric"):
        br(chain_df.assign(g="a"), ["y1"], ["x1", "g"])


# ----------------------------------------------------------------------------------------
# evaluate (Table 1 layout)
# ----------------------------------------------------------------------------------------
def test_evaluate_table(chain_fit, br_fit, chain_df):
    tab = evaluate({"PCC": chain_fit, "BR": br_fit}, chain_df, n_samples=100)
    assert list(tab.columns) == ["model", "inference", "instance_f", "micro_f", "macro_f",
                                 "hamming_loss", "time_s", "method_time_s"]
    assert len(tab) == 2 * len(INFERENCES)
    assert (tab["time_s"] >= tab["method_time_s"]).all()
    vals = tab[["instance_f", "micro_f", "macro_f", "hamming_loss"]].to_numpy()
    assert ((vals >= 0) & (vals <= 1)).all()
    # the table's numbers are those of predict() with the same seed
    H = chain_fit.predict(chain_df, "gfm", n_samples=100, random_state=0)
    from fmstats.measures import f_score
    row = tab[(tab.model == "PCC") & (tab.inference == "gfm")].iloc[0]
    assert row.instance_f == pytest.approx(
        f_score(chain_df[chain_fit.labels], H, average="instance"))


# ----------------------------------------------------------------------------------------
# Table 1, yeast (1,500 / 917)
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def yeast_table():
    train, test = load_yeast("train"), load_yeast("test")
    labels = yeast_label_names()
    fits = {"PCC": pcc(train, labels, random_state=0), "BR": br(train, labels, random_state=0)}
    return evaluate(fits, test, n_samples=200, random_state=0).set_index(["model", "inference"])


def test_yeast_pcc_gfm_matches_paper(yeast_table):
    assert yeast_table.loc[("PCC", "gfm"), "instance_f"] == pytest.approx(0.6479, abs=0.02)
    # Hamming inference is best for the Hamming loss (paper: 0.2046 for PCC, 0.1987 for BR)
    assert yeast_table.loc[("PCC", "hamming"), "hamming_loss"] == pytest.approx(0.2046,
                                                                                 abs=0.01)


@pytest.mark.parametrize("model", ["PCC", "BR"])
@pytest.mark.parametrize("method", F_METHODS)
def test_yeast_f_tailored_beats_hamming(yeast_table, model, method):
    assert yeast_table.loc[(model, method), "instance_f"] > \
        yeast_table.loc[(model, "hamming"), "instance_f"] + 0.02
    # and Hamming inference has the lowest Hamming loss
    assert yeast_table.loc[(model, "hamming"), "hamming_loss"] < \
        yeast_table.loc[(model, method), "hamming_loss"]


# ----------------------------------------------------------------------------------------
# Figure 1: synthetic models, expected F of predictions under the TRUE distribution
# ----------------------------------------------------------------------------------------
M = 25


def _expected_f(H, P, p0, W=None):
    """E_y[F1(y, h)] for each row h of H under (P, p0) (Theorem 3.1): sum_i h_i F[i, k]."""
    H = np.atleast_2d(np.asarray(H, dtype=float))
    P = np.asarray(P, dtype=float)
    P = np.broadcast_to(P, (len(H),) + P.shape[-2:])
    m = P.shape[-1]
    if W is None:
        W = 2.0 / (np.arange(1, m + 1)[:, None] + np.arange(1, m + 1)[None, :])
    F = P @ W
    k = H.sum(axis=1).astype(int)
    val = np.einsum("ni,ni->n", H, F[np.arange(len(H)), :, np.maximum(k - 1, 0)])
    return np.where(k == 0, np.broadcast_to(p0, k.shape), val)


def _independent_true(m=M, p=0.12):
    s = np.arange(1, m + 1)
    return np.tile(p * binom.pmf(s - 1, m - 1, p), (m, 1)), (1 - p) ** m


def _chain_q(m, coding):
    """q[i, t] = p(y_i = 1 | t ones among labels < i) for the linear part
    -(i-1)/2 + sum_{j<i} y_j (1-based i); coding "pm1" reads y_j as -1/+1 in the sum."""
    i = np.arange(m)[:, None]
    t = np.arange(m + 1)[None, :]
    lin = t if coding == "01" else 2 * t - i
    return expit(-0.5 * i + lin)


def _chain_true(m, coding):
    """Exact (P, p0) of the chain model by dynamic programming over the count of ones."""
    q = _chain_q(m, coding)
    g = np.zeros((m + 1, m + 2, m + 1))          # g[i, t, r]: labels i.. add r ones | t so far
    g[m, :, 0] = 1.0
    for i in range(m - 1, -1, -1):
        g[i, : m + 1, 1:] = q[i][:, None] * g[i + 1, 1: m + 2, :-1]
        g[i, : m + 1] += (1 - q[i])[:, None] * g[i + 1, : m + 1]
    f = np.zeros(m + 1)
    f[0] = 1.0                                   # distribution of the count before label i
    P = np.zeros((m, m))
    for i in range(m):
        for t in range(i + 1):
            r = np.arange(m - t)
            P[i, t + r] += f[t] * q[i, t] * g[i + 1, t + 1, r]
        nf = f * (1 - q[i])
        nf[1:] += f[:-1] * q[i, :-1]
        f = nf
    return P, f[0]


def _sample_chain(T, S, m, coding, rng):
    q = _chain_q(m, coding)
    Y = np.zeros((T, S, m), dtype=np.int8)
    cnt = np.zeros((T, S), dtype=np.int64)
    for i in range(m):
        Y[:, :, i] = rng.random((T, S)) < q[i][cnt]
        cnt += Y[:, :, i]
    return Y


@pytest.mark.parametrize("coding", ["01", "pm1"])
def test_chain_true_P_by_dp_matches_brute_force(coding):
    m = 8
    P, p0 = _chain_true(m, coding)
    q = _chain_q(m, coding)
    Pb, p0b = np.zeros((m, m)), 0.0
    for y in itertools.product((0, 1), repeat=m):
        prob, t = 1.0, 0
        for i in range(m):
            prob *= q[i, t] if y[i] else 1 - q[i, t]
            t += y[i]
        if t == 0:
            p0b += prob
        for i in range(m):
            if y[i]:
                Pb[i, t - 1] += prob
    np.testing.assert_allclose(P, Pb, atol=1e-14)
    assert p0 == pytest.approx(p0b, abs=1e-14)


def test_figure1_independent_meuf_beats_estimated_gfm():
    """Independent labels, p = 0.12, m = 25, sample size 200: MEUF (exact here) is at least as
    good as GFM with an estimated P.  The gap is tiny at this sample size (about 9e-5 in
    expected F, with a per-trial spread of about 2e-3), so 5,000 paired trials are averaged
    (20 trials cannot resolve it; at sample size 20 the gap is 2.5e-3)."""
    Pt, p0t = _independent_true()
    rng = np.random.default_rng(2011)
    diffs = []
    for _ in range(5):
        Y = (rng.random((1000, 200, M)) < 0.12).astype(np.int8)
        P, p0 = estimate_P(Y)
        marg = Y.mean(axis=1)
        diffs.append(_expected_f(meuf(marg)[0], Pt, p0t) - _expected_f(gfm(P, p0)[0], Pt, p0t))
    d = np.concatenate(diffs)
    assert d.mean() >= 0
    # and at sample size 20 the advantage is clear with 20 trials
    Y = (rng.random((20, 20, M)) < 0.12).astype(np.int8)
    P, p0 = estimate_P(Y)
    e_meuf = _expected_f(meuf(Y.mean(axis=1))[0], Pt, p0t).mean()
    e_gfm = _expected_f(gfm(P, p0)[0], Pt, p0t).mean()
    assert e_meuf > e_gfm
    # both approach the optimum (predict every label: E[F] = 0.2084)
    assert gfm(Pt, p0t)[1] == pytest.approx(0.2084, abs=1e-4)


@pytest.mark.parametrize("coding", ["pm1", "01"])
def test_figure1_dependent_gfm_beats_meuf(coding):
    """The chain with linear part -(i-1)/2 + sum_{j<i} y_j.  Read with y_j in {-1, +1} the model
    puts 38% of its mass on y = 0 and MEUF, misled by the marginals, stays far below GFM (the
    paper's finding); read literally with y_j in {0, 1} the model is symmetric (all marginals
    1/2), every method predicts all labels and GFM ties with MEUF."""
    Pt, p0t = _chain_true(M, coding)
    rng = np.random.default_rng(7)
    Y = _sample_chain(50, 200, M, coding, rng)
    P, p0 = estimate_P(Y)
    e_gfm = _expected_f(gfm(P, p0)[0], Pt, p0t)
    e_meuf = _expected_f(meuf(Y.mean(axis=1))[0], Pt, p0t)
    assert e_gfm.mean() >= e_meuf.mean()
    assert e_gfm.mean() == pytest.approx(gfm(Pt, p0t)[1], abs=0.01)   # near the optimum
    if coding == "pm1":
        assert e_gfm.mean() - e_meuf.mean() > 0.1
        assert p0t == pytest.approx(0.383, abs=0.001)
    else:
        np.testing.assert_allclose(Pt.sum(axis=1), 0.5, atol=1e-12)


def test_unpenalised_separation_warns(chain_df):
    from fmstats.exceptions import ConvergenceWarning, SeparationWarning
    df = chain_df.assign(copy=chain_df["y1"], x3=chain_df["y1"] * 2.0 - 1.0)
    with pytest.warns((SeparationWarning, ConvergenceWarning), match="'copy'.*separated"):
        br(df, ["copy"], ["x1", "x3"], penalty=0.0)
    res = br(df, ["copy"], ["x1", "x3"], random_state=0)       # ridge by CV: no warning
    assert res.penalty.iloc[0] > 0
