"""Plug-in inference for macro measures at k (fmstats.extreme._plugin) against xCOLUMNs."""
from __future__ import annotations

import csv
import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from fmstats.exceptions import FmstatsError
from fmstats.extreme import (SPE, RandomizedTopK, bca_macro_at_k, frank_wolfe_macro_at_k,
                             macro_f_at_k, macro_recall_at_k, spe_top_k)

REF = Path(__file__).parent / "reference"
N, M = 1000, 80


@pytest.fixture(scope="module")
def data():
    rows, cols, eta, y = [], [], [], []
    with open(REF / "xmlc_plugin_inputs.csv") as fh:
        for r in csv.DictReader(fh):
            rows.append(int(r["instance"]))
            cols.append(int(r["label"]))
            eta.append(float(r["eta"]))
            y.append(r["y"] == "1")
    rows, cols, eta, y = map(np.array, (rows, cols, eta, y))
    P = sp.csr_array((eta, (rows, cols)), shape=(N, M))
    Y = sp.csr_array((np.ones(int(y.sum())), (rows[y], cols[y])), shape=(N, M))
    return SPE(P), Y


@pytest.fixture(scope="module")
def reference():
    out: dict = {}
    with open(REF / "xmlc_plugin_xcolumns.csv") as fh:
        lines = [ln for ln in fh if not ln.startswith("#")]
    for r in csv.DictReader(lines):
        out.setdefault(r["what"], []).append((int(r["i"]), int(r["j"]), float(r["value"])))
    return out


def _sets(labels):
    return [set(row[row >= 0].tolist()) for row in labels]


@pytest.mark.reference
@pytest.mark.parametrize("metric,name", [("f", "f1"), ("recall", "recall")])
@pytest.mark.parametrize("k", [1, 3])
def test_bca_equals_xcolumns(data, reference, metric, name, k):
    spe, _ = data
    got = _sets(bca_macro_at_k(spe, k, metric=metric).labels)
    expected = [set() for _ in range(N)]
    for i, j, _ in reference[f"bca_{name}_k{k}"]:
        expected[i].add(j)
    assert got == expected
    assert got != _sets(spe_top_k(spe, k).labels)      # the plug-in rule is not top-k


@pytest.mark.reference
def test_frank_wolfe_rules_equal_xcolumns(data, reference):
    """xCOLUMNs works in float32: the rules agree to its rounding."""
    spe, Y = data
    fw = frank_wolfe_macro_at_k(spe, Y, 3)
    p = np.array([v for _, _, v in reference["fw_f1_k3_p"]])
    a = np.zeros((p.size, M))
    b = np.zeros((p.size, M))
    for c, j, v in reference["fw_f1_k3_a"]:
        a[c, j] = v
    for c, j, v in reference["fw_f1_k3_b"]:
        b[c, j] = v
    assert fw.p.shape == p.shape
    np.testing.assert_allclose(fw.p, p, rtol=1e-5, atol=1e-7)
    scale = np.abs(a).max()
    np.testing.assert_allclose(fw.a, a, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(fw.b, b, rtol=0, atol=1e-5 * np.abs(b).max())


def test_bca_raises_the_expected_and_the_realised_macro_f(data):
    spe, Y = data
    top, bca = spe_top_k(spe, 3), bca_macro_at_k(spe, 3)
    assert macro_f_at_k(Y, bca, 3) > macro_f_at_k(Y, top, 3) + 0.01
    rec = bca_macro_at_k(spe, 3, metric="recall")
    assert macro_recall_at_k(Y, rec, 3) > macro_recall_at_k(Y, top, 3) + 0.01
    assert (np.sum(bca.labels >= 0, axis=1) == np.minimum(3, np.diff(spe.matrix.indptr))).all()


def test_bca_recall_is_top_k_of_eta_over_label_mass(data):
    """Macro-recall is linear in the predictions: its optimum is the top k of
    eta_ij / (sum_i eta_ij + n epsilon) per instance, reached in one sweep."""
    spe, _ = data
    P = spe.matrix
    mass = np.bincount(P.indices, weights=P.data, minlength=M) + N * 1e-6
    scaled = SPE(sp.csr_array((P.data / mass[P.indices] / (P.data / mass[P.indices]).max(),
                               P.indices, P.indptr), shape=P.shape))
    assert _sets(bca_macro_at_k(spe, 2, metric="recall").labels) == \
        _sets(spe_top_k(scaled, 2).labels)


def test_randomized_classifier_predicts_and_round_trips(data):
    spe, Y = data
    fw = frank_wolfe_macro_at_k(spe, Y, 3)
    assert isinstance(fw, RandomizedTopK) and fw.p.sum() == pytest.approx(1.0)
    a = fw.predict(spe, random_state=1)
    b = fw.predict(spe, random_state=1)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert macro_f_at_k(Y, a, 3) > macro_f_at_k(Y, spe_top_k(spe, 3), 3)
    again = pickle.loads(pickle.dumps(fw))
    np.testing.assert_array_equal(again.predict(spe, random_state=1).labels, a.labels)


def test_spe_top_k_equals_a_sort_with_ties_to_the_smaller_label():
    """The compiled per-row selection against Python's sort of (-estimate, label): ties (one
    decimal), rows with fewer than k estimates and empty rows."""
    rng = np.random.default_rng(3)
    n, m, k = 300, 30, 4
    dense = np.round(rng.random((n, m)), 1) * (rng.random((n, m)) < 0.2)
    assert (np.count_nonzero(dense, axis=1) < k).any() and (dense.sum(axis=1) == 0).any()
    top = spe_top_k(SPE(sp.csr_array(dense)), k)
    for i in range(n):
        best = sorted((-dense[i, j], j) for j in np.flatnonzero(dense[i]))[:k]
        expect = [j for _, j in best] + [-1] * (k - len(best))
        assert top.labels[i].tolist() == expect
        assert top.scores[i].tolist() == [dense[i, j] if j >= 0 else 0.0 for j in expect]


@pytest.mark.parametrize("call,arg", [
    (lambda s, Y: bca_macro_at_k(s, 0), "k"),
    (lambda s, Y: bca_macro_at_k(s, 2, metric="precision"), "metric"),
    (lambda s, Y: bca_macro_at_k(s, 2, epsilon=-1), "epsilon"),
    (lambda s, Y: frank_wolfe_macro_at_k(s, Y[:10], 2), "Y"),
    (lambda s, Y: frank_wolfe_macro_at_k(s, Y, 2, step=0), "step"),
    (lambda s, Y: frank_wolfe_macro_at_k(s, Y, 2).predict(
        SPE(sp.csr_array((3, M - 1))), random_state=0), "spe"),
])
def test_bad_input_names_the_argument(data, call, arg):
    spe, Y = data
    with pytest.raises(FmstatsError, match=f"`{arg}`"):
        call(spe, Y)


@pytest.mark.slow
def test_debtags_vignette_claims_at_k():
    """Vignette 07's reading of the measures-at-k table on debtags (its split and PLT):
    BCA more than triples top-5's macro-F1@5, keeps five tags, raises PSP@1 and PSP@5 while
    P@5 drops, and beats the thresholded OFO; Frank-Wolfe stays at top-k because its first
    rule scores below 0.01 on validation (tags without validation positives)."""
    from fmstats.datasets import load_debtags
    from fmstats.experiments.seed002 import debtags_split, run_protocol, selected_thresholds
    from fmstats.extreme import (inverse_propensities, macro_f_at_thresholds,
                                 psprecision_at_k, precision_at_k)
    from fmstats.extreme._plugin import _gradient, _topk_of_gains, _utility
    from fmstats.extreme._atk import hits, label_counts_at_k

    split = debtags_split(0)
    X, Y, _, _ = load_debtags()
    from fmstats.experiments.seed002 import split_rows
    fit, val, test = split_rows(X.shape[0], 0)
    q = inverse_propensities(Y[fit])
    top = split.model.predict_topk(X[test], 5)
    bca = bca_macro_at_k(split.spe_test, 5)
    Yt = Y[test]
    f_top, f_bca = macro_f_at_k(Yt, top, 5), macro_f_at_k(Yt, bca, 5)
    assert f_bca > 3 * f_top
    stored = np.diff(split.spe_test.matrix.indptr)
    np.testing.assert_array_equal((bca.labels >= 0).sum(axis=1), np.minimum(5, stored))
    assert 0.95 < (stored >= 5).mean() < 0.99        # the vignette: "3 %" store fewer
    for k in (1, 5):
        assert psprecision_at_k(Yt, bca, q, k) > psprecision_at_k(Yt, top, q, k)
    assert precision_at_k(Yt, bca, 5) < precision_at_k(Yt, top, 5) - 0.03
    _, best = run_protocol(split)
    c_ofo = float(best.set_index("method").loc["ofo", "c"])
    f_ofo = macro_f_at_thresholds(split.spe_test, Yt, selected_thresholds(split, "ofo", c_ofo),
                                  zero_division=0)
    assert f_bca > f_ofo
    fw = frank_wolfe_macro_at_k(split.spe_val, split.Y_val, 5)
    assert fw.p.size == 1
    mat = split.spe_val.matrix
    yv = sp.csr_array(split.Y_val)
    m, nv = mat.shape[1], mat.shape[0]

    def conf(a, b):
        lab = _topk_of_gains(mat, a[mat.indices] * mat.data + b[mat.indices], 5)
        return [c / nv for c in label_counts_at_k(yv, lab, hits(yv, lab), 5)]

    c0 = conf(np.ones(m), np.full(m, -0.5))
    g = _gradient(*c0, "f", 1.0, 1e-6)
    c1 = conf(g[0] - g[1] - g[2], g[1])
    assert np.mean(_utility(*c1, "f", 1.0, 1e-6)) < 0.01
    assert (np.bincount(yv.indices, minlength=m) == 0).sum() > 50
