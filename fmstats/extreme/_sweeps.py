"""The compiled sweep of block coordinate ascent (numba), for ``_plugin.py``.

Imported lazily by :func:`fmstats.extreme.bca_macro_at_k`, so ``import fmstats`` does not load
numba.  The binary measures are those of ``_plugin.py`` (F_beta or recall
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
def _top_slots(gains, a, b, k, slots):
    """The positions q in [a, b) of the k largest ``gains[q]``, in decreasing gain (ties: the
    smaller position, i.e. the smaller label in canonical CSR: a stable sort's order), in
    ``slots[:count]``; returns count = min(k, b - a).  A partial insertion sort, O((b - a) k)."""
    filled = 0
    for q in range(a, b):
        g = gains[q]
        r = filled
        while r > 0 and g > gains[slots[r - 1]]:   # equal gains keep the earlier position
            if r < k:
                slots[r] = slots[r - 1]
            r -= 1
        if r < k:
            slots[r] = q
            if filled < k:
                filled += 1
    return filled


@njit(cache=True, nogil=True)
def bca_sweep(indptr, indices, data, chosen, tp, fp, fn, order, k, n, recall, beta2, eps):
    """One sweep of block coordinate ascent over the instances in ``order``; ``chosen`` marks
    the predicted stored entries; tp, fp, fn are unnormalised expected counts."""
    inv = 1.0 / n
    gains = np.empty(data.shape[0])
    slots = np.empty(k, dtype=np.int64)
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
        for q in range(a, b):
            j, e = indices[q], data[q]
            on = _u((tp[j] + e) * inv, (fp[j] + 1.0 - e) * inv, fn[j] * inv, recall, beta2, eps)
            off = _u(tp[j] * inv, fp[j] * inv, (fn[j] + e) * inv, recall, beta2, eps)
            gains[q] = on - off
            chosen[q] = False
        for r in range(_top_slots(gains, a, b, k, slots)):
            chosen[slots[r]] = True
        for q in range(a, b):               # add it back
            j, e = indices[q], data[q]
            if chosen[q]:
                tp[j] += e
                fp[j] += 1.0 - e
            else:
                fn[j] += e


@njit(cache=True, nogil=True)
def topk_positions(indptr, gains, k, lo, hi, out):
    """Rows lo..hi-1 of ``out`` (n, k): the positions of the stored entries with the k largest
    ``gains`` of every row of a canonical CSR matrix, in decreasing gain (ties: the smaller
    label), -1 where a row stores fewer.  Rows are independent: threads fill disjoint
    blocks."""
    slots = np.empty(k, dtype=np.int64)
    for i in range(lo, hi):
        got = _top_slots(gains, indptr[i], indptr[i + 1], k, slots)
        for r in range(got):
            out[i, r] = slots[r]
        for r in range(got, k):
            out[i, r] = -1
    return 0
