"""Issue 16, items 7 and 8 and the GFM/STO memory bounds: duplicate SPE entries, results
persistence (save/load with a type and format check for every results type), GFM's byte
budget, STO's lean bookkeeping, and clear errors for bad GFM/estimate_P/plt inputs."""
from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fmstats as fm
from fmstats.results import _persist
from fmstats.exceptions import DataError, FmstatsError, InvalidArgumentError, ResultsFileWarning
from fmstats.extreme import SPE, probabilistic_label_tree
from fmstats.multilabel import estimate_P, gfm, gfm_threshold
from fmstats.multilabel import _inference as gfm_inference


# ---------------------------------------------------------------------------
# item 7: duplicate (row, label) entries of an SPE
# ---------------------------------------------------------------------------
def _dup_coo(a, b):
    return sp.coo_array(([0.2, a, b], ([1, 0, 0], [2, 1, 1])), shape=(3, 4))


@pytest.mark.parametrize("make", [
    lambda a, b: _dup_coo(a, b),
    lambda a, b: sp.coo_matrix(_dup_coo(a, b)),
    # non-canonical CSR / CSC holding the duplicate
    lambda a, b: sp.csr_array((np.array([a, b, 0.2]), np.array([1, 1, 2]),
                               np.array([0, 2, 3, 3])), shape=(3, 4)),
    lambda a, b: sp.csc_matrix((np.array([a, b, 0.2]), np.array([0, 0, 1]),
                                np.array([0, 0, 2, 3, 3])), shape=(3, 4)),
], ids=["coo_array", "coo_matrix", "csr", "csc"])
@pytest.mark.parametrize("a, b", [(0.5, 0.4), (0.7, 0.6)])
def test_spe_duplicates_are_an_error_naming_row_label_and_values(make, a, b):
    with pytest.raises(DataError) as err:
        SPE(make(a, b))
    msg = str(err.value)
    assert "row 0, label 1" in msg
    assert f"{a:g}, {b:g}" in msg
    assert "0.9" not in msg and "1.3" not in msg       # never a value the user did not give


def test_spe_duplicates_through_as_spe_and_sto():
    from fmstats.extreme import sto

    Y = sp.csr_array(np.eye(3, 4))
    with pytest.raises(DataError, match="row 0, label 1"):
        sto(_dup_coo(0.5, 0.4), Y)


def test_spe_without_duplicates_unchanged():
    M = sp.coo_array(([0.3, 0.7, 0.2], ([2, 0, 1], [0, 1, 2])), shape=(3, 4))
    np.testing.assert_array_equal(SPE(M).toarray(), M.toarray())


# ---------------------------------------------------------------------------
# raw exceptions -> FmstatsError naming argument, rule and value
# ---------------------------------------------------------------------------
def _small_P():
    rng = np.random.default_rng(3)
    S = (rng.random((2, 30, 4)) < 0.4).astype(int)
    return estimate_P(S)


@pytest.mark.parametrize("P, p0, match", [
    (np.array([["a", "b"], ["c", "d"]]), 0.0, r"`P` must be .*could not convert"),
    ("abc", 0.0, r"`P` must be"),
    (np.zeros((0, 3, 3)), np.zeros(0), r"`P` must hold at least one instance.*\(0, 3, 3\)"),
    (np.eye(2) / 4, "x", r"`p0` must be"),
], ids=["string-array", "string", "empty", "string-p0"])
@pytest.mark.parametrize("fn", [gfm, gfm_threshold])
def test_gfm_bad_P_is_a_clear_error(fn, P, p0, match):
    with pytest.raises(FmstatsError, match=match):
        fn(P, p0)


def test_gfm_sparse_P_equals_dense():
    P, p0 = _small_P()
    H, ef = gfm(P[0], p0[0])
    Hs, efs = gfm(sp.csr_array(P[0]), p0[0])
    # exact: a sparse P is made dense first, then the same computation runs
    np.testing.assert_array_equal(H, Hs)
    assert ef == efs


def test_estimate_P_sparse_equals_dense():
    rng = np.random.default_rng(4)
    S = (rng.random((50, 6)) < 0.3).astype(int)
    P, p0 = estimate_P(S)
    for Ssp in (sp.csr_array(S), sp.csr_matrix(S), sp.coo_array(S)):
        Ps, p0s = estimate_P(Ssp)
        # exact: sparse samples are made dense first (and P is counts / S anyway)
        np.testing.assert_array_equal(P, Ps)
        assert p0 == p0s


@pytest.mark.parametrize("n_jobs", [0, "two"])
def test_plt_bad_n_jobs_is_a_clear_error(n_jobs):
    X = sp.csr_array(np.eye(6))
    Y = sp.csr_array(np.eye(6, 3))
    with pytest.raises(InvalidArgumentError, match="`n_jobs`"):
        probabilistic_label_tree(X, Y, n_jobs=n_jobs)


# ---------------------------------------------------------------------------
# GFM: a byte budget for the chunks
# ---------------------------------------------------------------------------
def test_gfm_bytes_per_instance_and_chunk_size():
    bpi = gfm_inference.bytes_per_instance
    assert bpi(500) == 16 * 500 ** 2 + 64 * 500          # 4 MB per instance at m = 500
    cs = gfm_inference.chunk_size
    # the budget bounds the chunk: 64 MiB at m = 500 can never hold 512 instances
    assert cs(500, 64 * 2**20) * bpi(500) <= 64 * 2**20
    assert cs(500, 512 * 2**20) * bpi(500) <= 512 * 2**20
    assert cs(20, 10 * bpi(20)) == 10                     # budget of exactly 10 instances
    assert cs(20, 10.5 * bpi(20)) == 10
    assert cs(500, 1.0) == 1                              # below one instance: one at a time
    assert cs(101) * bpi(101) <= gfm_inference.CACHE_BYTES


@pytest.mark.parametrize("fn", [gfm, gfm_threshold])
def test_gfm_results_do_not_depend_on_max_memory(fn):
    rng = np.random.default_rng(5)
    S = (rng.random((37, 25, 7)) < 0.35).astype(int)
    P, p0 = estimate_P(S)
    H, ef = fn(P, p0)
    for budget in (1, 3 * gfm_inference.bytes_per_instance(7), 1e9):
        Hb, efb = fn(P, p0, max_memory=budget)
        np.testing.assert_array_equal(H, Hb)
        np.testing.assert_allclose(ef, efb, rtol=0, atol=1e-15)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), "1GB", True])
def test_gfm_bad_max_memory(bad):
    P, p0 = _small_P()
    with pytest.raises(InvalidArgumentError, match="`max_memory`"):
        gfm(P, p0, max_memory=bad)


# ---------------------------------------------------------------------------
# item 8: save/load for every results type, with a type and format check
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def binary_data():
    rng = np.random.default_rng(16)
    n = 120
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    p = 1 / (1 + np.exp(-(-0.4 + 1.2 * x1 - 0.8 * x2)))
    y = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"y": y, "q": np.clip(p + rng.normal(0, 0.05, n), 0, 1),
                         "x1": x1, "x2": x2})


@pytest.fixture(scope="module")
def maxent_fit(binary_data):
    return fm.maxent("y ~ x1 + x2", binary_data)


def _multilabel_frame():
    rng = np.random.default_rng(7)
    n = 150
    X = rng.normal(size=(n, 2))
    Y = (rng.random((n, 3)) < 1 / (1 + np.exp(-(X @ rng.normal(size=(2, 3)))))).astype(int)
    return pd.DataFrame(np.c_[X, Y], columns=["x1", "x2", "y1", "y2", "y3"])


def _xmlc():
    rng = np.random.default_rng(8)
    n, m = 60, 5
    Y = sp.csr_array((rng.random((n, m)) < 0.3).astype(float))
    est = sp.csr_array(np.where(rng.random((n, m)) < 0.6, rng.random((n, m)), 0.0))
    return SPE(est), Y


def _build(kind: str, binary_data, maxent_fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "maxent":
            return maxent_fit
        if kind == "fmaxent":
            return fm.fmaxent("q ~ x1 + x2", binary_data, alpha=0.5, method="plugin")
        if kind == "wsvm":
            return fm.wsvm("y ~ x1 + x2", binary_data)
        if kind == "cv_tune":
            return fm.cv_tune(fm.maxent, "y ~ x1 + x2", binary_data,
                              {"penalty": [0.0, 1.0]}, cv=2, random_state=0)
        if kind == "tune_threshold":
            return fm.tune_threshold(maxent_fit, binary_data, cv=2, random_state=0)
        if kind == "bootstrap":
            return fm.bootstrap(maxent_fit, B=5, data=binary_data, random_state=0)
        if kind == "validate":
            return fm.validate(maxent_fit, B=5, data=binary_data, random_state=0)
        if kind == "resample_f":
            fit = fm.fmaxent("q ~ x1 + x2", binary_data, alpha=0.5, method="plugin")
            return fm.resample_f(fit, B=20, random_state=0)
        if kind in ("br", "pcc"):
            fn = fm.multilabel.br if kind == "br" else fm.multilabel.pcc
            return fn(_multilabel_frame(), ["y1", "y2", "y3"], penalty=1.0, random_state=0)
        spe, Y = _xmlc()
        if kind == "spe":
            return spe
        if kind == "sto":
            return fm.extreme.sto(spe, Y)
        if kind == "fta":
            return fm.extreme.fta(spe, Y, [0.2, 0.5])
        if kind == "ofo":
            return fm.extreme.ofo(spe, Y, 1.0, 10.0)
        if kind == "plt":
            X = sp.csr_array(np.random.default_rng(9).random((60, 4)))
            return probabilistic_label_tree(X, Y, random_state=0, n_jobs=1)
    raise AssertionError(kind)


KINDS = ["maxent", "fmaxent", "wsvm", "cv_tune", "tune_threshold", "bootstrap", "validate",
         "resample_f", "br", "pcc", "spe", "sto", "fta", "ofo", "plt"]


@pytest.fixture(scope="module")
def built(binary_data, maxent_fit):
    return {k: _build(k, binary_data, maxent_fit) for k in KINDS}


def _state(obj):
    """What identifies a results object's numbers: its repr and its main array."""
    for name in ("params", "thresholds", "replicates", "table", "values", "coef", "weights",
                 "matrix"):
        value = getattr(obj, name, None)
        if value is not None and not callable(value):
            arr = value.toarray() if sp.issparse(value) else np.asarray(value, dtype=float)
            return repr(obj), name, arr.tolist()
    return repr(obj), str(obj.summary()) if hasattr(obj, "summary") else None


@pytest.mark.parametrize("kind", KINDS)
def test_every_results_type_saves_and_loads_itself(built, kind, tmp_path):
    obj = built[kind]
    path = tmp_path / f"{kind}.pkl"
    obj.save(path)
    back = type(obj).load(path)
    assert type(back) is type(obj)
    assert _state(back) == _state(obj)
    assert repr(back) == repr(obj)


@pytest.mark.parametrize("kind", KINDS)
def test_save_stores_a_format_version(built, kind, tmp_path):
    # the layout itself is checked in tests/test_results_files.py (issue 33)
    obj = built[kind]
    path = tmp_path / "f.pkl"
    obj.save(path)
    magic, version, _, header = path.read_bytes().split(b"\n", 4)[:4]
    assert magic == b"fmstats-results"
    assert version == b"format 3" and _persist.FORMAT_VERSION == 3
    # the public name of the class (issue 39): fmstats.MaxentResults, fmstats.extreme.SPE
    name = json.loads(header)["class"]
    assert name.endswith("." + type(obj).__qualname__) and "._" not in name


@pytest.mark.parametrize("saved, loader", [
    ("maxent", fm.WsvmResults), ("wsvm", fm.MaxentResults), ("bootstrap", fm.ValidateResults),
    ("sto", fm.extreme.SPE), ("spe", fm.extreme.ThresholdFit), ("br", fm.multilabel.PCCResults),
    ("plt", fm.CvTuneResults), ("cv_tune", fm.TuneThresholdResults),
])
def test_load_refuses_another_results_type_and_names_it(built, saved, loader, tmp_path):
    obj = built[saved]
    path = tmp_path / "x.pkl"
    obj.save(path)
    with pytest.raises(DataError) as err:
        loader.load(path)
    msg = str(err.value)
    assert type(obj).__name__ in msg and loader.__name__ in msg and "`path`" in msg


@pytest.mark.parametrize("payload, found", [
    ({"a": 1, "b": 2}, "a dict (keys 'a', 'b')"),
    ({}, "an empty dict"),
    ([1, 2], "a builtins.list"),
    (pd.DataFrame({"a": [1]}), "DataFrame"),
])
def test_load_refuses_a_pickle_of_something_else(payload, found, tmp_path):
    path = tmp_path / "other.pkl"
    path.write_bytes(pickle.dumps(payload))
    # a plain pickle is opened only when trusted (issue 33), and then checked as before
    with pytest.raises(DataError, match="plain pickle"):
        fm.MaxentResults.load(path)
    with pytest.raises(DataError, match="not fmstats results") as err, \
            pytest.warns(ResultsFileWarning, match="plain pickle"):
        fm.MaxentResults.load(path, trusted=True)
    assert found in str(err.value)


def test_load_refuses_a_newer_format(maxent_fit, tmp_path):
    path = tmp_path / "new.pkl"
    maxent_fit.save(path)
    path.write_bytes(path.read_bytes().replace(b"format 3\n", b"format 99\n", 1))
    with pytest.raises(DataError, match=r"format 99; this fmstats reads format 3: upgrade"):
        fm.MaxentResults.load(path)


def test_load_reads_a_bare_pickle_of_the_right_type(maxent_fit, tmp_path):
    # files written before format 1 (pickle.dump of the object itself): trusted only
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps(maxent_fit))
    with pytest.warns(ResultsFileWarning, match="plain pickle"):
        assert _state(fm.MaxentResults.load(path, trusted=True)) == _state(maxent_fit)
    with pytest.raises(DataError, match="MaxentResults.*not a WsvmResults"), \
            pytest.warns(ResultsFileWarning):
        fm.WsvmResults.load(path, trusted=True)


@pytest.mark.parametrize("kind", ["bootstrap", "sto", "br", "spe"])
@pytest.mark.parametrize("cut", [0, 0.5])
def test_truncated_file_is_a_clear_error_for_every_type(built, kind, cut, tmp_path):
    obj = built[kind]
    path = tmp_path / "t.pkl"
    obj.save(path)
    blob = path.read_bytes()
    path.write_bytes(blob[: int(len(blob) * cut)])
    with pytest.raises(DataError, match=r"`path`.*not a complete"):
        type(obj).load(path)


def test_base_classes_load_their_subclasses(built, tmp_path):
    from fmstats.results import Persistable
    from fmstats.results import ModelResults

    path = tmp_path / "w.pkl"
    built["wsvm"].save(path)
    assert isinstance(ModelResults.load(path), fm.WsvmResults)
    assert isinstance(Persistable.load(path), fm.WsvmResults)


# ---------------------------------------------------------------------------
# STO: lean bookkeeping in label blocks gives the same thresholds
# ---------------------------------------------------------------------------
def _sto_brute(est: np.ndarray, Y: np.ndarray, tau: float, zd: float = 1.0):
    """Per label: every distinct stored estimate (predict those above) and tau; best F1,
    ties to the largest threshold."""
    n, m = est.shape
    th, fs = np.empty(m), np.empty(m)
    for j in range(m):
        stored = est[:, j] > tau
        pos = Y[:, j].sum()
        cands = sorted(set(est[stored, j]) | {tau}, reverse=True)
        best = (-1.0, None)
        for c in cands:
            pred = stored & (est[:, j] > c)
            tp = (pred & (Y[:, j] == 1)).sum()
            f = zd if pos + pred.sum() == 0 else 2 * tp / (pos + pred.sum())
            if f > best[0] * (1 + 1e-12) or best[1] is None:
                best = (f, c)
        th[j], fs[j] = best[1], best[0]
    return th, fs


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 18])
def test_sto_label_blocks_give_the_exact_per_label_optimum(monkeypatch, block):
    from fmstats.extreme import sto
    from fmstats.extreme import _thresholds as th_mod

    monkeypatch.setattr(th_mod, "_STO_BLOCK", block)
    rng = np.random.default_rng(11)
    n, m = 80, 9
    est = np.round(rng.random((n, m)), 1)                 # many ties
    est[:, 3] = 0.0                                       # a label never stored
    est[rng.random((n, m)) < 0.4] = 0.0
    Y = (rng.random((n, m)) < np.clip(est + 0.05, 0, 1)).astype(int)
    Y[:, 5] = 0                                           # a label without positives
    fit = sto(sp.csr_array(est), sp.csr_array(Y))
    want_th, want_f = _sto_brute(est, Y, 0.0)
    np.testing.assert_allclose(fit.label_f, want_f, rtol=1e-12)
    # exact: thresholds are copies of stored estimates (or tau), ties broken as in fmstats
    np.testing.assert_array_equal(fit.thresholds, want_th)


@pytest.mark.parametrize("make", [
    lambda: SPE(sp.csr_array((np.array([0.0, 0.6]), np.array([1, 2]), np.array([0, 2, 2, 2])),
                             shape=(3, 3))),
    lambda: SPE(sp.csr_array(np.array([[0.3, 0.8, 0.0], [0.1, 0.0, 0.0], [0.0, 0.0, 0.0]])))
    .restrict(0.5),
    lambda: SPE(np.array([[0.3, 0.8], [0.0, 0.0]]), thresholds=0.5),
], ids=["explicit-zero", "restrict", "threshold"])
def test_spe_dropping_entries_with_empty_trailing_rows(make):
    # dropping entries at or below tau raised a raw IndexError when the last rows were empty
    spe = make()
    assert spe.matrix.indptr[-1] == spe.nnz == 1
    assert spe.matrix.has_canonical_format or spe.matrix.indices.size == 1
    np.testing.assert_array_equal(np.diff(spe.matrix.indptr)[1:], 0)
