"""Cost levels and exact threshold search on validation scores (seed 001, Algorithm 1, l. 7).

The threshold search is one sort and two cumulative sums: as the cut moves down the sorted
scores, each row predicted positive adds ``gain`` true positives and ``loss`` false
positives.  The same routine serves binary F (gain = y), pooled multi-label micro-F (the
flattened label matrix) and the multiclass micro-F with a default class (gain = "the best
non-default class is the true one", loss = "the truth is the default class").
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._utils.validation import describe
from ..measures import best_position
from ..exceptions import InvalidArgumentError

__all__ = ["cost_grid", "best_threshold"]


def cost_grid(grid: Any, beta: float = 1.0) -> np.ndarray:
    """The cost levels t.

    An int ``grid`` gives ``(1+beta^2) j/(grid+1)``, j = 1..grid (``0.1, ..., 1.9`` for F1
    and ``grid=19``, the paper's section 5); a sequence is used as given (sorted), each value
    in ``(0, 1+beta^2)``.

    Parameters
    ----------
    grid : int or array-like
        The number of levels, or the levels themselves.
    beta : float, default 1.0
        The F-measure's beta.

    Returns
    -------
    numpy.ndarray
        The levels t, increasing.
    """
    top = 1.0 + beta * beta
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        if grid < 1:
            raise InvalidArgumentError(f"`grid` must have at least one cost level; got {grid!r}.")
        return top * np.arange(1, grid + 1) / (grid + 1)
    try:
        ts = np.sort(np.asarray(grid, dtype=float).ravel())
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`grid` must be a positive integer or a sequence of cost levels; got {describe(grid)}."
        ) from None
    if ts.size == 0:
        raise InvalidArgumentError("`grid` is empty; give at least one cost level t in "
                                   f"(0, {top:g}).")
    if not np.all(np.isfinite(ts)) or ts[0] <= 0 or ts[-1] >= top:
        raise InvalidArgumentError(
            f"`grid` cost levels must lie in (0, 1+beta^2) = (0, {top:g}); got {describe(grid)}.")
    return ts


def f_from_counts(tp, fp, fn, b2: float):
    """F_beta from counts (arrays allowed); 0 where nothing is found or predicted."""
    num = (1.0 + b2) * np.asarray(tp, dtype=float)
    den = num + b2 * np.asarray(fn, dtype=float) + np.asarray(fp, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return float(out) if out.ndim == 0 else out


def best_cut(score: np.ndarray, gain: np.ndarray, loss: np.ndarray, n_pos: float, b2: float
             ) -> tuple[float, float, float, float]:
    """Best rule "positive iff score >= threshold" for F_beta.

    Returns ``(threshold, F, TP, FP)``.  Cuts are tried only between distinct scores; the
    threshold is the midpoint between the lowest included and the highest excluded score
    (``-inf``: every row positive; ``+inf``: none, F = 0).  The first maximum from the top
    wins (the smallest positive set among ties).
    """
    s = np.asarray(score, dtype=float).ravel()
    if s.size == 0:
        return math.inf, 0.0, 0.0, 0.0
    order = np.argsort(-s, kind="mergesort")
    ss = s[order]
    tp = np.cumsum(np.asarray(gain, dtype=float).ravel()[order])
    fp = np.cumsum(np.asarray(loss, dtype=float).ravel()[order])
    last = np.r_[ss[1:] != ss[:-1], True]          # cut only after a tie group ends
    f = np.where(last, f_from_counts(tp, fp, n_pos - tp, b2), -1.0)
    j = best_position(f)          # ties (to TIE_RTOL): the first from the top
    if f[j] <= 0.0:
        return math.inf, 0.0, 0.0, 0.0
    thr = -math.inf if j == ss.size - 1 else 0.5 * (ss[j] + ss[j + 1])
    return float(thr), float(f[j]), float(tp[j]), float(fp[j])


def best_threshold(y: Any, score: Any, *, beta: float = 1.0) -> tuple[float, float]:
    """Exact best threshold of ``score`` for F_beta on 0/1 labels ``y``: ``(threshold, F)``.

    The rule is "positive iff score >= threshold"; every cut between distinct scores is
    tried at once (sort + cumulative counts).

    Parameters
    ----------
    y : array-like
        The 0/1 labels.
    score : array-like
        The scores, one per label.
    beta : float, default 1.0
        The F-measure's beta.

    Returns
    -------
    threshold : float
        The best cut (``-inf``: every row positive; ``+inf``: none, F = 0).
    f : float
        F_beta at that cut.
    """
    y = np.asarray(y, dtype=float).ravel()
    thr, f, _, _ = best_cut(score, y, 1.0 - y, float(y.sum()), beta * beta)
    return thr, f
