"""Issue 16, items 7 and 8 and the GFM/STO memory bounds: duplicate SPE entries, results
persistence (save/load with a type and format check for every results type), GFM's byte
budget, STO's lean bookkeeping, and clear errors for bad GFM/estimate_P/plt inputs."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fmstats.exceptions import DataError, FmstatsError, InvalidArgumentError
from fmstats.extreme import SPE, plt
from fmstats.multilabel import estimate_P, gfm, gfm_threshold
from fmstats.multilabel import inference as gfm_inference


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
    np.testing.assert_array_equal(H, Hs)
    assert ef == efs


def test_estimate_P_sparse_equals_dense():
    rng = np.random.default_rng(4)
    S = (rng.random((50, 6)) < 0.3).astype(int)
    P, p0 = estimate_P(S)
    for Ssp in (sp.csr_array(S), sp.csr_matrix(S), sp.coo_array(S)):
        Ps, p0s = estimate_P(Ssp)
        np.testing.assert_array_equal(P, Ps)
        assert p0 == p0s


@pytest.mark.parametrize("n_jobs", [0, "two"])
def test_plt_bad_n_jobs_is_a_clear_error(n_jobs):
    X = sp.csr_array(np.eye(6))
    Y = sp.csr_array(np.eye(6, 3))
    with pytest.raises(InvalidArgumentError, match="`n_jobs`"):
        plt(X, Y, n_jobs=n_jobs)


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
