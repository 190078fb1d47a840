"""Bayes-optimal inference for the instance-wise F-measure (seed 000, Dembczynski et al. 2011).

For one instance with label vector y in {0,1}^m and prediction h, the instance-wise
F_beta(y, h) = (1 + beta^2) sum_i y_i h_i / (beta^2 s_y + s_h), with F = 1 when y = h = 0.
The F-maximiser h* = argmax_h E_y[F(y, h)] needs only p(y = 0) and the m x m matrix P with
P[i, s-1] = p(y_i = 1, s_y = s) (Theorem 3.1).  GFM (Algorithm 1) forms F = P W with
W[s-1, k-1] = (1 + beta^2) / (beta^2 s + k); for each k the best h with k ones takes the k
largest entries of column k, with expected F equal to their sum; k = 0 gives p(y = 0).

All functions are batched: P has shape (n, m, m), p0 shape (n,); a single instance
((m, m), scalar) is accepted too.  The matrix products run through BLAS (one batched
matmul) and the top-k selection is a sort of the columns plus cumulative sums: no Python
loop over instances.
"""
from __future__ import annotations

import numpy as np

from .._validation import check_scalar
from ..exceptions import DataError, InvalidArgumentError

__all__ = ["gfm", "gfm_threshold", "estimate_P", "hamming", "check_P"]

#: Tolerance for the consistency checks of P and p0 with a probability distribution.
P_TOL = 1e-6


def _weights(m: int, beta: float) -> np.ndarray:
    s = np.arange(1, m + 1, dtype=float)[:, None]
    k = np.arange(1, m + 1, dtype=float)[None, :]
    b2 = beta * beta
    return (1.0 + b2) / (b2 * s + k)


def check_P(P, p0, name: str = "P") -> tuple[np.ndarray, np.ndarray, bool]:
    """Validate (P, p0); return them batched as float arrays and whether the input was batched.

    Rules: P is (m, m) or (n, m, m) with m >= 1, entries in [0, 1]; p0 in [0, 1] with one
    value per instance; and they are consistent with a distribution over {0,1}^m:
    p(s_y = s) = sum_i P[i, s] / s >= 0 and p0 + sum_s p(s_y = s) = 1 (to 1e-6).
    """
    P = np.asarray(P, dtype=float)
    batched = P.ndim == 3
    if P.ndim == 2:
        P = P[None]
    if P.ndim != 3 or P.shape[1] != P.shape[2]:
        raise InvalidArgumentError(
            f"`{name}` must have shape (m, m) or (n, m, m); got shape {P.shape}.")
    n, m, _ = P.shape
    if m == 0:
        raise InvalidArgumentError(f"`{name}` must describe at least one label; got m = 0.")
    p0 = np.asarray(p0, dtype=float)
    p0 = p0.reshape(1) if p0.ndim == 0 else p0
    if p0.shape != (n,):
        raise InvalidArgumentError(
            f"`p0` must have one value per instance ({n}); got shape {p0.shape}.")
    for arr, nm in ((P, name), (p0, "p0")):
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


def _best_k(F: np.ndarray, p0: np.ndarray, order: np.ndarray | None):
    """Given F (n, m, m) and, optionally, a fixed label order (n, m), pick the best k."""
    n, m, _ = F.shape
    if order is None:
        # sort every column k descending; cumulative sums give the best sum of the top k
        srt = -np.sort(-F, axis=1)
    else:
        srt = np.take_along_axis(F, order[:, :, None], axis=1)
    csum = np.cumsum(srt, axis=1)                        # csum[:, k-1, k-1] = top-k sum of col k
    ks = np.arange(m)
    values = csum[:, ks, ks]                             # (n, m): expected F for k = 1..m
    values = np.concatenate([p0[:, None], values], axis=1)
    # ties: the smallest k (fewest positives) wins, deterministically
    best_k = np.argmax(values >= values.max(axis=1, keepdims=True) - 1e-12, axis=1)
    return best_k, values[np.arange(n), best_k]


def _labels_for_k(F: np.ndarray, best_k: np.ndarray, order: np.ndarray | None) -> np.ndarray:
    n, m, _ = F.shape
    H = np.zeros((n, m), dtype=np.int8)
    has = best_k > 0
    if not has.any():
        return H
    rows = np.flatnonzero(has)
    col = F[rows, :, best_k[rows] - 1]                   # (r, m): the column k of F
    if order is None:
        # stable ranking: larger value first, ties broken by the lower label index
        rank_order = np.argsort(-col, axis=1, kind="stable")
    else:
        rank_order = order[rows]
    ranks = np.empty_like(rank_order)
    np.put_along_axis(ranks, rank_order, np.arange(m)[None, :].repeat(len(rows), 0), axis=1)
    H[rows] = (ranks < best_k[rows, None]).astype(np.int8)
    return H


def gfm(P, p0, *, beta: float = 1.0):
    """General F-measure Maximizer (Algorithm 1): the exact Bayes-optimal prediction.

    Parameters
    ----------
    P : (m, m) or (n, m, m) array, P[..., i, s-1] = p(y_i = 1, s_y = s).
    p0 : scalar or (n,) array, p(y = 0).
    beta : F_beta (the derivation holds for any beta >= 0 with W = (1+beta^2)/(beta^2 s + k)).

    Returns
    -------
    (H, expected_f) : H the 0/1 predictions, (m,) or (n, m) int8; expected_f the expected
    F_beta of H, a float or (n,) array.  Ties are broken deterministically: fewer positive
    labels first, then lower label indices.
    """
    check_scalar("beta", beta, low=0)
    P, p0, batched = check_P(P, p0)
    F = P @ _weights(P.shape[1], beta)                   # batched BLAS matmul, (n, m, m)
    best_k, ef = _best_k(F, p0, None)
    H = _labels_for_k(F, best_k, None)
    return (H, ef) if batched else (H[0], float(ef[0]))


def gfm_threshold(P, p0, *, beta: float = 1.0):
    """GFM-T: the best prediction that thresholds the marginals p_i = sum_s P[i, s].

    The labels are ranked by their marginals (ties by lower index) and the best k is
    found with the same expected-F values as GFM, restricted to the top-k-marginal sets.
    Returns ``(H, expected_f)`` like :func:`gfm`.
    """
    check_scalar("beta", beta, low=0)
    P, p0, batched = check_P(P, p0)
    marg = P.sum(axis=2)
    order = np.argsort(-marg, axis=1, kind="stable")
    F = P @ _weights(P.shape[1], beta)
    best_k, ef = _best_k(F, p0, order)
    H = _labels_for_k(F, best_k, order)
    return (H, ef) if batched else (H[0], float(ef[0]))


def estimate_P(samples) -> tuple[np.ndarray, np.ndarray]:
    """Estimate (P, p0) from sampled label vectors, e.g. drawn from a classifier chain.

    Parameters
    ----------
    samples : (S, m) or (n, S, m) array of 0/1 label vectors.

    Returns
    -------
    (P, p0) : P[..., i, s-1] = share of samples with y_i = 1 and s_y = s; p0 = share of
    all-zero samples.  Batched like the input.
    """
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
    Y = Y.astype(float)
    n, S, m = Y.shape
    s = Y.sum(axis=2).astype(np.int64)                   # (n, S) number of ones per sample
    onehot = np.zeros((n, S, m + 1))
    np.put_along_axis(onehot, s[:, :, None], 1.0, axis=2)
    # P[n, i, s] = mean over samples of y_i * [s_y = s]: one batched matmul
    P = np.einsum("nti,nts->nis", Y, onehot[:, :, 1:], optimize=True) / S
    p0 = onehot[:, :, 0].mean(axis=1)
    return (P, p0) if batched else (P[0], float(p0[0]))


def hamming(marginals) -> np.ndarray:
    """The Hamming-loss minimiser: h_i = 1 where the marginal p_i >= 1/2."""
    p = np.asarray(marginals, dtype=float)
    bad = ~np.isfinite(p) | (p < 0) | (p > 1)
    if bad.any():
        raise DataError(f"`marginals` must be probabilities in [0, 1]; got {p[bad].ravel()[0]:g}.")
    return (p >= 0.5).astype(np.int8)
