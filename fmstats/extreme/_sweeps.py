"""The compiled sweep of block coordinate ascent (numba), for :mod:`fmstats.extreme._plugin`.

Imported lazily by :func:`fmstats.extreme.bca_macro_at_k`, so ``import fmstats`` does not load
numba.  The binary measures are those of :mod:`~fmstats.extreme._plugin` (F_beta or recall
with ``epsilon`` in the denominator, on counts divided by n).
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["bca_sweep", "topk_positions"]


@njit(cache=True, nogil=True)
def _u(tp, fp, fn, recall, beta2, eps):
    if recall:
        return tp / (tp + fn + eps)
    return (1 + beta2) * tp / ((1 + beta2) * tp + beta2 * fn + fp + eps)


@njit(cache=True, nogil=True)
def bca_sweep(indptr, indices, data, chosen, tp, fp, fn, order, k, n, recall, beta2, eps):
    """One sweep of block coordinate ascent over the instances in ``order``; ``chosen`` marks
    the predicted stored entries; tp, fp, fn are unnormalised expected counts."""
    inv = 1.0 / n
    for o in range(order.shape[0]):
        i = order[o]
        a, b = indptr[i], indptr[i + 1]
        if b - a == 0:
            continue
        for q in range(a, b):               # remove the instance's contribution
            j, e = indices[q], data[q]
            if chosen[q]:
                tp[j] -= e
                fp[j] -= 1.0 - e
            else:
                fn[j] -= e
        gains = np.empty(b - a)
        for q in range(a, b):
            j, e = indices[q], data[q]
            on = _u((tp[j] + e) * inv, (fp[j] + 1.0 - e) * inv, fn[j] * inv, recall, beta2, eps)
            off = _u(tp[j] * inv, fp[j] * inv, (fn[j] + e) * inv, recall, beta2, eps)
            gains[q - a] = on - off
        top = np.argsort(-gains, kind="mergesort")   # ties: the smaller label index first
        for q in range(a, b):
            chosen[q] = False
        for r in range(min(k, b - a)):
            chosen[a + top[r]] = True
        for q in range(a, b):               # add it back
            j, e = indices[q], data[q]
            if chosen[q]:
                tp[j] += e
                fp[j] += 1.0 - e
            else:
                fn[j] += e


@njit(cache=True, nogil=True)
def topk_positions(indptr, indices, gains, k):
    """(n, k) positions of the stored entries with the k largest ``gains`` of every row, in
    decreasing gain (ties: the smaller label index first), -1 where a row stores fewer:
    a partial insertion sort per row, O(nnz k)."""
    n = indptr.shape[0] - 1
    out = np.full((n, k), -1, dtype=np.int64)
    for i in range(n):
        filled = 0
        for q in range(indptr[i], indptr[i + 1]):
            g, j = gains[q], indices[q]
            r = filled
            # slide the entries this one beats one place down (the last falls off)
            while r > 0:
                o = out[i, r - 1]
                go = gains[o]
                if g > go or (g == go and j < indices[o]):
                    if r < k:
                        out[i, r] = o
                    r -= 1
                else:
                    break
            if r < k:
                out[i, r] = q
                if filled < k:
                    filled += 1
    return out
