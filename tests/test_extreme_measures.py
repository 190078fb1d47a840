"""Measures at k (fmstats.extreme._atk) against napkinXC's ``measures`` and by brute force."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from fmstats.exceptions import DataError, FmstatsError, InvalidArgumentError
from fmstats.extreme import (TopK, coverage_at_k, inverse_propensities, macro_f_at_k,
                             macro_precision_at_k, macro_recall_at_k, measures_at_k, ndcg_at_k,
                             precision_at_k, psndcg_at_k, psprecision_at_k, recall_at_k)

REF = Path(__file__).parent / "reference"
KS = (1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def inputs():
    truth, ranks = [], []
    with open(REF / "xmlc_measures_inputs.csv") as fh:
        for row in csv.DictReader(fh):
            truth.append([int(v) for v in row["truth"].split()])
            ranks.append([int(v) for v in row["ranking"].split()])
    n, m = len(truth), 60
    rows = np.repeat(np.arange(n), [len(t) for t in truth])
    Y = sp.csr_array((np.ones(rows.size), (rows, np.concatenate([t for t in truth if t]))),
                     shape=(n, m))
    top = np.full((n, 5), -1, dtype=np.int64)
    for i, r in enumerate(ranks):
        top[i, :len(r)] = r
    return Y, top


@pytest.fixture(scope="module")
def reference():
    out: dict = {}
    with open(REF / "xmlc_measures_napkinxc.csv") as fh:
        lines = [ln for ln in fh if not ln.startswith("#")]
    for row in csv.DictReader(lines):
        out.setdefault(row["measure"], {})[int(row["k"])] = float(row["value"])
    return out


def test_inputs_exercise_the_edge_cases(inputs):
    Y, top = inputs
    assert (np.diff(Y.indptr) == 0).sum() >= 10            # instances without labels
    assert (top == -1).any()                               # short rankings
    assert Y[[0], [59]].sum() == 1                         # the last label is present


@pytest.mark.reference
@pytest.mark.parametrize("name,fn", [
    ("precision", precision_at_k), ("recall", recall_at_k), ("ndcg", ndcg_at_k),
    ("coverage", coverage_at_k)])
def test_instance_measures_equal_napkinxc(inputs, reference, name, fn):
    Y, top = inputs
    got = fn(Y, top, KS)
    for k in KS:
        assert got[k] == pytest.approx(reference[name][k], abs=1e-10, rel=0)


@pytest.mark.reference
def test_inverse_propensities_equal_napkinxc(inputs, reference):
    Y, _ = inputs
    q = inverse_propensities(Y)
    expected = np.array([reference["inv_propensity"][j] for j in range(60)])
    np.testing.assert_allclose(q, expected, rtol=1e-13, atol=0)


@pytest.mark.reference
@pytest.mark.parametrize("name,fn,A,B,normalize", [
    ("psprecision", psprecision_at_k, 0.55, 1.5, True),
    ("psprecision_A0.6_B2.6", psprecision_at_k, 0.6, 2.6, True),
    ("psprecision_unnormalised", psprecision_at_k, 0.55, 1.5, False),
    ("psndcg", psndcg_at_k, 0.55, 1.5, True)])
def test_propensity_scored_measures_equal_napkinxc(inputs, reference, name, fn, A, B,
                                                    normalize):
    """A, B passed through (a mutant ignoring them fails the 0.6/2.6 case); the normaliser
    is the best ranking's sum, not the number of instances."""
    Y, top = inputs
    got = fn(Y, top, inverse_propensities(Y, A=A, B=B), KS, normalize=normalize)
    for k in KS:
        assert got[k] == pytest.approx(reference[name][k], abs=1e-10, rel=0)


@pytest.mark.reference
@pytest.mark.parametrize("name,fn", [("macro_f1", macro_f_at_k),
                                     ("macro_precision", macro_precision_at_k),
                                     ("macro_recall", macro_recall_at_k)])
def test_macro_measures_equal_napkinxc(inputs, reference, name, fn):
    Y, top = inputs
    got = fn(Y, top, KS)
    for k in KS:
        assert got[k] == pytest.approx(reference[name][k], abs=1e-10, rel=0)


def test_macro_f_at_k_by_brute_force_with_beta_and_zero_division():
    rng = np.random.default_rng(3)
    n, m = 40, 9
    Y = (rng.random((n, m)) < 0.2).astype(int)
    Y[:, 8] = 0                                            # a label never true
    top = np.array([rng.permutation(7)[:4] for _ in range(n)])   # 7, 8 never predicted
    for k in (1, 4):
        f = []
        for j in range(m):
            pred = np.array([j in top[i, :k] for i in range(n)])
            tp, fp, fn = (pred & (Y[:, j] == 1)).sum(), (pred & (Y[:, j] == 0)).sum(), \
                ((~pred) & (Y[:, j] == 1)).sum()
            den = 5 * tp + 4 * fn + fp
            f.append(5 * tp / den if den else 1.0)
        assert macro_f_at_k(Y, top, k, beta=2, zero_division=1) == pytest.approx(
            np.mean(f), abs=1e-14)


def test_ndcg_and_psndcg_by_brute_force():
    rng = np.random.default_rng(5)
    n, m = 30, 8
    Y = (rng.random((n, m)) < 0.3).astype(int)
    top = np.array([rng.permutation(m)[:3] for _ in range(n)])
    q = rng.uniform(1, 4, m)
    disc = 1 / np.log2(np.arange(2, 5))
    got_n, got_ps = ndcg_at_k(Y, top, 3), psndcg_at_k(Y, top, q, 3)
    nd, num_, den_ = [], 0.0, 0.0
    for i in range(n):
        t = np.flatnonzero(Y[i])
        norm = disc[:min(3, t.size)].sum()
        if t.size == 0:
            nd.append(0.0)
            continue
        hits = np.array([j in t for j in top[i]])
        nd.append((hits * disc).sum() / norm)
        num_ += (hits * q[top[i]] * disc).sum() / norm
        best = np.sort(q[t])[::-1][:3]
        den_ += (best * disc[:best.size]).sum() / norm
    assert got_n == pytest.approx(np.mean(nd), abs=1e-14)
    assert got_ps == pytest.approx(num_ / den_, abs=1e-14)


def test_topk_object_and_table(inputs):
    Y, top = inputs
    tk = TopK(top, np.zeros(top.shape))
    assert precision_at_k(Y, tk, 3) == precision_at_k(Y, top, 3)
    table = measures_at_k(Y, top, (1, 5), inv_propensities=inverse_propensities(Y))
    assert list(table.columns) == ["@1", "@5"]
    assert table.loc["PSP", "@5"] == pytest.approx(psprecision_at_k(Y, top,
                                                                    inverse_propensities(Y), 5))
    assert table.loc["macro-F1", "@1"] == pytest.approx(macro_f_at_k(Y, top, 1))


@pytest.mark.parametrize("call,arg", [
    (lambda Y, t: precision_at_k(Y, t + 100, 1), "topk"),          # labels outside [0, m)
    (lambda Y, t: precision_at_k(Y, np.where(t == 0, -2, t), 1), "topk"),
    (lambda Y, t: precision_at_k(Y, t, 0), "k"),                     # k < 1
    (lambda Y, t: precision_at_k(Y, t, 6), "k"),                     # k > K
    (lambda Y, t: recall_at_k(Y, t[:, :0], 1), "topk"),              # empty rankings
    (lambda Y, t: precision_at_k(Y, t[:10], 1), "topk"),             # rows differ
    (lambda Y, t: inverse_propensities(Y, A=0), "A"),
    (lambda Y, t: inverse_propensities(Y, B=-1.0), "B"),
    (lambda Y, t: psprecision_at_k(Y, t, -np.ones(60), 1), "inv_propensities"),
    (lambda Y, t: psprecision_at_k(Y, t, np.ones(5), 1), "inv_propensities"),
    (lambda Y, t: inverse_propensities(Y[:2]), "Y"),
    (lambda Y, t: coverage_at_k(sp.csr_array(Y.shape), t, 1), "Y"),
])
def test_bad_input_names_the_argument(inputs, call, arg):
    Y, top = inputs
    with pytest.raises(FmstatsError, match=f"`{arg}`"):
        call(Y, top)


def test_empty_label_matrix_is_refused():
    with pytest.raises(DataError, match="`Y`"):
        precision_at_k(np.zeros((0, 3)), np.zeros((0, 1), dtype=int), 1)
    with pytest.raises(InvalidArgumentError, match="`topk`"):
        precision_at_k(np.eye(3), sp.csr_matrix(np.eye(3)), 1)


# ---------------------------------------------------------------------------
# napkinXC interop
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def napkin_model(tmp_path_factory):
    from napkinxc.models import PLT

    rng = np.random.default_rng(11)
    n, d, m = 300, 30, 12
    X = sp.csr_matrix(rng.random((n, d)) * (rng.random((n, d)) < 0.3))
    W = rng.normal(size=(d, m))
    Yd = ((X @ W) > 1.0).astype(np.float32)
    Yd[Yd.sum(axis=1) == 0, 0] = 1
    Y = sp.csr_matrix(Yd)
    model = PLT(str(tmp_path_factory.mktemp("nxc")), seed=0, threads=1)
    model.fit(X, Y)
    return model, X, m


def test_spe_from_napkinxc_holds_exactly_the_models_estimates(napkin_model):
    from fmstats.extreme import spe_from_napkinxc

    model, X, m = napkin_model
    spe = spe_from_napkinxc(model, X, 0.2, n_features=X.shape[1], chunk_size=70)
    assert spe.shape == (X.shape[0], m)            # m read from the model's tree.txt
    expected = {}
    for i, row in enumerate(model.predict_proba(X, threshold=0.2)):
        for j, p in row:
            if p > 0.2:
                expected[(i, j)] = p
    got = spe.matrix.tocoo()
    assert dict(zip(zip(got.row.tolist(), got.col.tolist()), got.data.tolist())) == \
        pytest.approx(expected, abs=0, rel=0)
    assert len(expected) > X.shape[0]              # not a trivial SPE


def test_spe_from_napkinxc_with_per_label_thresholds(napkin_model):
    """Per-label thresholds (napkinxc takes them as a list, not an ndarray): the SPE holds
    the entries of the model's almost unpruned prediction above each label's threshold."""
    from fmstats.extreme import spe_from_napkinxc

    model, X, m = napkin_model
    tau = np.linspace(0.05, 0.6, m)
    spe = spe_from_napkinxc(model, X, tau, n_features=X.shape[1], n_labels=m, chunk_size=70)
    expected = {(i, j): p for i, row in enumerate(model.predict_proba(X, threshold=1e-12))
                for j, p in row if p > tau[j]}
    got = spe.matrix.tocoo()
    assert dict(zip(zip(got.row.tolist(), got.col.tolist()), got.data.tolist())) == \
        pytest.approx(expected, abs=0, rel=0)
    assert len(expected) > X.shape[0] and np.array_equal(spe.thresholds, tau)


def test_spe_from_napkinxc_refuses_another_feature_count(napkin_model):
    from fmstats.extreme import spe_from_napkinxc

    model, X, m = napkin_model
    with pytest.raises(DataError, match="`X`.*`n_features`"):
        spe_from_napkinxc(model, sp.hstack([X, X]).tocsr(), n_features=X.shape[1])
    with pytest.raises(DataError, match="`n_labels`"):
        spe_from_napkinxc(model, X, n_features=X.shape[1], n_labels=m - 3)
    with pytest.raises(InvalidArgumentError, match="`model`"):
        spe_from_napkinxc(object(), X, n_features=X.shape[1])


# ---------------------------------------------------------------------------
# the generator of the seed's shapes
# ---------------------------------------------------------------------------
def test_make_extreme_problem_has_the_requested_shape():
    from fmstats.extreme import make_extreme_problem

    X, Y = make_extreme_problem(4000, 3000, 300, labels_per_row=5, nnz_per_row=60,
                                random_state=3)
    assert sp.issparse(X) and sp.issparse(Y) and X.dtype == np.float32
    assert X.shape == (4000, 3000) and Y.shape == (4000, 300)
    sizes = np.diff(Y.indptr)
    assert sizes.min() >= 1
    assert 4.4 < sizes.mean() < 5.1                    # 1 + Poisson(4), merged duplicates
    assert 35 < X.nnz / 4000 <= 60                     # distinct features of 60 draws
    np.testing.assert_allclose(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()), 1.0,
                               rtol=1e-5)
    freq = np.bincount(Y.indices, minlength=300)
    assert freq[:10].sum() > 10 * freq[-10:].sum()     # power-law popularity
    X2, Y2 = make_extreme_problem(4000, 3000, 300, labels_per_row=5, nnz_per_row=60,
                                  random_state=3)
    assert (X2 != X).nnz == 0 and (Y2 != Y).nnz == 0


def test_make_extreme_problem_is_learnable_by_a_label_tree():
    """The features carry the labels: a PLT's P@1 on held-out rows is far above the
    frequency baseline (the most frequent label for everyone)."""
    from fmstats.extreme import make_extreme_problem, probabilistic_label_tree

    X, Y = make_extreme_problem(3000, 2000, 50, nnz_per_row=40, signal=0.5, exponent=0.5,
                                random_state=0)
    model = probabilistic_label_tree(X[:2400], Y[:2400], tree="random", C=1.0, progress=False)
    p1 = precision_at_k(Y[2400:], model.predict_topk(X[2400:], 1), 1)
    base = precision_at_k(Y[2400:], np.zeros((600, 1), dtype=int), 1)
    assert p1 > base + 0.3
