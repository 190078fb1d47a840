"""Bayes-optimal inference for the instance-wise F-measure (seed 000, Dembczynski et al. 2011).

For one instance with label vector y in {0,1}^m and prediction h, the instance-wise
F_beta(y, h) = (1 + beta^2) sum_i y_i h_i / (beta^2 s_y + s_h), with F = 1 when y = h = 0.
The F-maximiser h* = argmax_h E_y[F(y, h)] needs only p(y = 0) and the m x m matrix P with
P[i, s-1] = p(y_i = 1, s_y = s) (Theorem 3.1).  GFM (Algorithm 1) forms F = P W with
W[s-1, k-1] = (1 + beta^2) / (beta^2 s + k); for each k the best h with k ones takes the k
largest entries of column k, with expected F equal to their sum; k = 0 gives p(y = 0).

All functions are batched: P has shape (n, m, m), p0 shape (n,); a single instance
((m, m), scalar) is accepted too.  Instances are processed in chunks: for each chunk the
product P W is one BLAS GEMM over the columns s that carry mass, and the top-k selection
is a sort of the columns plus cumulative sums; no Python loop over instances.

Memory: beyond its input P (8 m^2 bytes per instance) GFM needs about
:func:`bytes_per_instance` = 16 m^2 + 64 m bytes per instance of a chunk (the product
F = P W and its label-sorted copy, 8 m^2 bytes each), e.g. 4 MB at m = 500.  Chunks are
sized so that this stays within ``max_memory`` (default :data:`MAX_MEMORY`, 512 MiB), and
within :data:`CACHE_BYTES` (4 MiB) when one instance fits, since cache-sized chunks run
faster: at m = 101 (Mediamill) a chunk holds 24 instances (4 MiB), at m = 500 one
(4 MB); a budget below one instance still processes one at a time.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_scalar, describe
from ..exceptions import DataError, InvalidArgumentError

__all__ = ["gfm", "gfm_threshold", "estimate_P", "hamming", "check_P", "bytes_per_instance",
           "MAX_MEMORY"]

#: Default byte budget of GFM's per-chunk work arrays (``max_memory=``): 512 MiB.
MAX_MEMORY = 512 * 2**20

#: Tolerance for the consistency checks of P and p0 with a probability distribution.
P_TOL = 1e-6


def _weights(m: int, beta: float) -> np.ndarray:
    s = np.arange(1, m + 1, dtype=float)[:, None]
    k = np.arange(1, m + 1, dtype=float)[None, :]
    b2 = beta * beta
    return (1.0 + b2) / (b2 * s + k)


def _dense_float(name: str, value, what: str) -> np.ndarray:
    """``value`` as a float ndarray (a scipy.sparse matrix is densified), or an error naming
    the argument, what it must be and what it is."""
    if sp.issparse(value):
        value = value.toarray()
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"`{name}` must be {what}; got {describe(value)} ({exc}).") from None
    return arr


def check_P(P, p0, name: str = "P") -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate (P, p0); return them batched as float arrays and whether the input was batched.

    Rules: P is (m, m) or (n, m, m) with m >= 1, entries in [0, 1]; p0 in [0, 1] with one
    value per instance; and they are consistent with a distribution over {0,1}^m:
    p(s_y = s) = sum_i P[i, s] / s >= 0 and p0 + sum_s p(s_y = s) = 1 (to 1e-6).
    """
    P = _dense_float(name, P, "an (m, m) or (n, m, m) array of probabilities")
    batched = P.ndim == 3
    if P.ndim == 2:
        P = P[None]
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise InvalidArgumentError(
            f"`{name}` must have shape (m, m) or (n, m, m); got shape {P.shape}.")
    n, m, _ = P.shape
    if m == 0:
        raise InvalidArgumentError(f"`{name}` must describe at least one label; got m = 0.")
    if n == 0:
        raise DataError(f"`{name}` must hold at least one instance; got shape {P.shape}.")
    p0 = _dense_float("p0", p0, "a probability or one per instance")
    p0 = p0.reshape(1) if p0.ndim == 0 else p0
    if p0.shape != (n,):
        raise InvalidArgumentError(
            f"`p0` must have one value per instance ({n}); got shape {p0.shape}.")
    for arr, nm in ((P, name), (p0, "p0")):
        # two reductions, no temporaries; a NaN propagates into min/max and fails the test
        if arr.min() >= -P_TOL and arr.max() <= 1 + P_TOL:
            continue
        bad = ~np.isfinite(arr) | (arr < -P_TOL) | (arr > 1 + P_TOL)
        if bad.any():
            idx = np.unravel_index(int(np.flatnonzero(bad)[0]), arr.shape)
            raise DataError(f"`{nm}` must hold probabilities in [0, 1]; entry {tuple(map(int, idx))} "
                            f"is {arr[idx]:g}.")
    ps = P.sum(axis=1) / np.arange(1, m + 1)           # p(s_y = s), shape (n, m)
    total = ps.sum(axis=1) + p0
    bad = (ps < -P_TOL).any(axis=1) | (np.abs(total - 1) > P_TOL)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"`{name}` and `p0` are not consistent with a distribution over label vectors for "
            f"instance {i}: p0 + sum_s (sum_i P[i, s]) / s = {total[i]:.6g}, but must be 1 "
            f"(P[i, s] = p(y_i = 1, s_y = s)).")
    return P, p0, batched


def _best_k(Ft: np.ndarray, p0: np.ndarray, order: np.ndarray | None):
    """Pick the best number k of positive labels.

    ``Ft[n, k-1, i]`` is the entry f_ik of F = P W, stored with the labels on the last
    (contiguous) axis; ``order`` (n, m), if given, fixes the ranking of the labels (best
    first, GFM-T).  Row k of Ft keeps its k largest entries (the last k after sorting
    ascending); their sum is the expected F of the best prediction with k ones.
    """
    n, m, _ = Ft.shape
    if order is None:
        srt = np.sort(Ft, axis=2)                        # ascending along the labels
    else:
        srt = np.take_along_axis(Ft, order[:, None, ::-1], axis=2)
    keep = np.arange(m)[None, :] >= (m - np.arange(1, m + 1))[:, None]   # [k-1, j]
    srt *= keep                                          # in place: no third m x m array
    topk = srt.sum(axis=2)                               # (n, m): k = 1..m
    del srt
    values = np.concatenate([p0[:, None], topk], axis=1)          # k = 0..m
    # ties: the smallest k (fewest positives) wins, deterministically
    best_k = np.argmax(values >= values.max(axis=1, keepdims=True) - 1e-12, axis=1)
    return best_k, values[np.arange(n), best_k]


def _labels_for_k(Ft: np.ndarray, best_k: np.ndarray, order: np.ndarray | None) -> np.ndarray:
    n, m, _ = Ft.shape
    H = np.zeros((n, m), dtype=np.int8)
    has = best_k > 0
    if not has.any():
        return H
    rows = np.flatnonzero(has)
    col = Ft[rows, best_k[rows] - 1, :]                  # (r, m): f_ik for the chosen k
    if order is None:
        # stable ranking: larger value first, ties broken by the lower label index
        rank_order = np.argsort(-col, axis=1, kind="stable")
    else:
        rank_order = order[rows]
    ranks = np.empty_like(rank_order)
    np.put_along_axis(ranks, rank_order, np.arange(m)[None, :].repeat(len(rows), 0), axis=1)
    H[rows] = (ranks < best_k[rows, None]).astype(np.int8)
    return H


def bytes_per_instance(m: int) -> int:
    """Working memory of GFM per instance of a chunk, in bytes, for ``m`` labels.

    The product F = P W of a chunk (8 m^2 bytes per instance) lives beside either its
    transposed copy (labels contiguous) or its sorted copy (another 8 m^2), never beside
    both; the GEMM's input copy (8 m s_max <= 8 m^2) is freed before the transpose; the
    per-label vectors (marginal order, ranks, predictions) take a few 8 m.
    """
    m = int(m)
    return 16 * m * m + 64 * m


#: Preferred bytes of work arrays per chunk: chunks that stay in the CPU caches run faster
#: (``benchmarks/README.md``), so ``max_memory`` is an upper bound that smaller chunks already respect.
CACHE_BYTES = 4 * 2**20


def chunk_size(m: int, max_memory: float = MAX_MEMORY) -> int:
    """Instances per chunk for ``m`` labels: as many as fit in ``min(max_memory,``
    :data:`CACHE_BYTES` ``)`` bytes of work arrays (:func:`bytes_per_instance`), at least 1."""
    return max(1, int(min(max_memory, CACHE_BYTES) // bytes_per_instance(m)))


def _check_max_memory(max_memory) -> float:
    return float(check_scalar("max_memory", max_memory, low=0, low_open=True))


def _run(P, p0, beta, threshold: bool, max_memory: float = MAX_MEMORY):
    n, m, _ = P.shape
    W = _weights(m, beta)
    # columns s with no mass anywhere in the batch do not contribute to F = P W (seed 000:
    # the cost falls when fewer distinct values of s_y carry probability)
    used = np.flatnonzero(P.any(axis=(0, 1)))
    s_max = int(used[-1]) + 1 if used.size else 1
    H = np.zeros((n, m), dtype=np.int8)
    ef = np.empty(n)
    step = chunk_size(m, max_memory)
    for start in range(0, n, step):
        stop = min(start + step, n)
        Pc = P[start:stop, :, :s_max]
        F = (Pc.reshape(-1, s_max) @ W[:s_max]).reshape(stop - start, m, m)  # one BLAS GEMM
        Ft = np.ascontiguousarray(F.transpose(0, 2, 1))   # [n, k-1, i]: labels contiguous
        del F                                             # at most two m x m arrays at once
        order = np.argsort(-Pc.sum(axis=2), axis=1, kind="stable") if threshold else None
        best_k, ef[start:stop] = _best_k(Ft, p0[start:stop], order)
        H[start:stop] = _labels_for_k(Ft, best_k, order)
    return H, ef


def gfm(P, p0, *, beta: float = 1.0, max_memory: float = MAX_MEMORY):
    """General F-measure Maximizer (Algorithm 1): the exact Bayes-optimal prediction.

    Parameters
    ----------
    P : array-like of shape (m, m) or (n, m, m)
        P[..., i, s-1] = p(y_i = 1, s_y = s).
    p0 : float or array-like of shape (n,)
        The probability p(y = 0).
    beta : float, default 1.0
        The beta of F_beta (the derivation holds for any beta >= 0 with
        W = (1+beta^2)/(beta^2 s + k)).
    max_memory : float, default MAX_MEMORY
        Bytes of working memory per chunk of instances (default 512 MiB); GFM needs
        :func:`bytes_per_instance` = 16 m^2 + 64 m bytes per instance (4 MB at m = 500)
        beyond P itself, so a chunk holds at most ``max_memory // (16 m^2 + 64 m)``
        instances (at least one; at most 4 MiB of them, see :func:`chunk_size`).  Results
        do not depend on it.

    Returns
    -------
    H : numpy.ndarray
        The 0/1 predictions, (m,) or (n, m) int8.  Ties are broken deterministically:
        fewer positive labels first, then lower label indices.
    expected_f : float or numpy.ndarray
        The expected F_beta of H, a float or (n,) array.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.multilabel import estimate_P, gfm
    >>> samples = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> P, p0 = estimate_P(samples)
    >>> H, expected_f = gfm(P, p0)
    >>> H, round(float(expected_f), 4)
    (array([1, 1, 1], dtype=int8), 0.72)
    """
    check_scalar("beta", beta, low=0)
    max_memory = _check_max_memory(max_memory)
    P, p0, batched = check_P(P, p0)
    H, ef = _run(P, p0, beta, threshold=False, max_memory=max_memory)
    return (H, ef) if batched else (H[0], float(ef[0]))


def gfm_threshold(P, p0, *, beta: float = 1.0, max_memory: float = MAX_MEMORY):
    """GFM-T: the best prediction that thresholds the marginals p_i = sum_s P[i, s].

    The labels are ranked by their marginals (ties by lower index) and the best k is
    found with the same expected-F values as GFM, restricted to the top-k-marginal sets.

    Parameters
    ----------
    P : array-like of shape (m, m) or (n, m, m)
        P[..., i, s-1] = p(y_i = 1, s_y = s), as in :func:`gfm`.
    p0 : float or array-like of shape (n,)
        The probability p(y = 0).
    beta : float, default 1.0
        The beta of F_beta (>= 0).
    max_memory : float, default MAX_MEMORY
        Bytes of working memory per chunk of instances, as in :func:`gfm`.

    Returns
    -------
    H : numpy.ndarray
        The 0/1 predictions, (m,) or (n, m) int8, like :func:`gfm`.
    expected_f : float or numpy.ndarray
        The expected F_beta of H, a float or (n,) array.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.multilabel import estimate_P, gfm_threshold
    >>> samples = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> H, expected_f = gfm_threshold(*estimate_P(samples))
    >>> H, round(float(expected_f), 4)
    (array([1, 1, 1], dtype=int8), 0.72)
    """
    check_scalar("beta", beta, low=0)
    max_memory = _check_max_memory(max_memory)
    P, p0, batched = check_P(P, p0)
    H, ef = _run(P, p0, beta, threshold=True, max_memory=max_memory)
    return (H, ef) if batched else (H[0], float(ef[0]))


def estimate_P(samples) -> tuple[np.ndarray, np.ndarray]:
    """Estimate (P, p0) from sampled label vectors, e.g. drawn from a classifier chain.

    Parameters
    ----------
    samples : array-like of shape (S, m) or (n, S, m)
        The 0/1 label vectors; an (S, m) scipy.sparse matrix is accepted too (densified:
        the result P is dense anyway).

    Returns
    -------
    P : numpy.ndarray
        P[..., i, s-1] = share of samples with y_i = 1 and s_y = s.  Batched like the
        input.
    p0 : float or numpy.ndarray
        Share of all-zero samples.  Batched like the input.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.multilabel import estimate_P
    >>> P, p0 = estimate_P(np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0]]))
    >>> P
    array([[0.25, 0.5 , 0.  ],
           [0.  , 0.5 , 0.  ],
           [0.  , 0.  , 0.  ]])
    >>> p0
    0.25
    """
    if sp.issparse(samples):
        if samples.ndim != 2:
            raise InvalidArgumentError(
                f"`samples` must have shape (S, m) when sparse; got shape {samples.shape}.")
        samples = samples.toarray()
    Y = np.asarray(samples)
    batched = Y.ndim == 3
    if Y.ndim == 2:
        Y = Y[None]
    if Y.ndim != 3 or Y.shape[1] == 0 or Y.shape[2] == 0:
        raise InvalidArgumentError(
            f"`samples` must have shape (S, m) or (n, S, m) with S, m >= 1; got {np.shape(samples)}.")
    ok = (Y == 0) | (Y == 1)
    if not ok.all():
        idx = np.unravel_index(int(np.flatnonzero(~ok)[0]), Y.shape)
        raise DataError(f"`samples` must be 0/1 label vectors; entry {tuple(map(int, idx))} is "
                        f"{Y[idx]!r}.")
    n, S, m = Y.shape
    s = Y.sum(axis=2, dtype=np.int64)                    # (n, S) number of ones per sample
    # P[n, i, s] = (1/S) sum_t y_ti [s_t = s]: group the sample rows by (instance, s) with a
    # sparse 0/1 matrix, so the cost is O(n S m) whatever m is
    group = (np.arange(n)[:, None] * (m + 1) + s).ravel()
    G = sp.csr_matrix((np.ones(n * S), (group, np.arange(n * S))), shape=(n * (m + 1), n * S))
    # float32 holds the counts exactly (at most S <= 2^24 per cell) at half the memory
    G = G.astype(np.float32)
    sums = np.asarray(G @ Y.reshape(n * S, m).astype(np.float32)).reshape(n, m + 1, m)
    P = np.ascontiguousarray(sums[:, 1:, :].transpose(0, 2, 1), dtype=float) / S  # [i, s-1]
    p0 = (s == 0).mean(axis=1)
    return (P, p0) if batched else (P[0], float(p0[0]))


def hamming(marginals) -> np.ndarray:
    """The Hamming-loss minimiser: h_i = 1 where the marginal p_i >= 1/2.

    Parameters
    ----------
    marginals : array-like
        The marginal probabilities p_i, in [0, 1] (any shape).

    Returns
    -------
    numpy.ndarray
        The 0/1 predictions (int8), in the shape of ``marginals``.

    Examples
    --------
    >>> from fmstats.multilabel import hamming
    >>> q = [0.45, 0.4, 0.35, 0.05]
    >>> hamming(q)
    array([0, 0, 0, 0], dtype=int8)
    """
    p = np.asarray(marginals, dtype=float)
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    if bad.any():
        raise DataError(f"`marginals` must be probabilities in [0, 1]; got {p[bad].ravel()[0]:g}.")
    return (p >= 0.5).astype(np.int8)
