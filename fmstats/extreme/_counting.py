"""Compiled kernels (numba) of the threshold tuners: OFO's sequential pass and the per-label
counts of the predictions ``eta > theta_j`` of an SPE.

Imported lazily by ``_ofo.py`` and ``_protocol.py``, so
``import fmstats`` does not load numba.  Both run with the GIL released, so threads tune and
score several thresholds side by side.  They compute what the vectorised numpy code they
replace computed, operation for operation (the same float additions and divisions in the
same order; counts are integers), so the numbers do not change.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ofo_pass", "label_counts_above"]


@njit(cache=True, nogil=True)
def ofo_pass(indptr, label, value, y, wy, theta, a, b, lower, upper, hit):
    """Algorithm 2 over the instances of a chunk's events (grouped by instance, in order).

    Instance i's events ``indptr[i]:indptr[i + 1]`` are distinct labels (its stored
    estimates and its true labels), each predicted when ``value > theta[label]``; then
    ``a += [predicted and true]``, ``b += wy + [predicted]`` and ``theta = a / b`` kept in
    [lower, upper] (empty arrays: no bound).  Updates ``theta``, ``a``, ``b`` and ``hit``
    (the predictions) in place.
    """
    has_lo, has_hi = lower.shape[0] > 0, upper.shape[0] > 0
    for i in range(indptr.shape[0] - 1):
        for e in range(indptr[i], indptr[i + 1]):
            c = label[e]
            h = value[e] > theta[c]
            hit[e] = h
            a[c] += 1.0 if (h and y[e]) else 0.0
            b[c] += wy[e] + (1.0 if h else 0.0)
            t = a[c] / b[c]
            if has_lo and not t >= lower[c]:    # np.maximum(t, lower): t on ties
                t = lower[c]
            if has_hi and not t <= upper[c]:    # np.minimum(t, upper)
                t = upper[c]
            theta[c] = t


@njit(cache=True, nogil=True)
def label_counts_above(indices, data, truth, theta, keep):
    """Per label j: the stored estimates above ``theta[j]`` (predicted positives) and those of
    them that are true (``truth``, one flag per stored entry); and the number of stored
    estimates above ``keep[label]``.  Returns (predicted (m,), true positives (m,), kept)."""
    m = theta.shape[0]
    pred = np.zeros(m, dtype=np.int64)
    tp = np.zeros(m, dtype=np.int64)
    kept = 0
    for e in range(data.shape[0]):
        j = indices[e]
        v = data[e]
        if v > theta[j]:
            pred[j] += 1
            if truth[e]:
                tp[j] += 1
        if v > keep[j]:
            kept += 1
    return pred, tp, kept
