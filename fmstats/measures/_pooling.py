"""The cross-validated F from per-fold confusion counts (pooled or averaged)."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.validation import (
    check_choice,
    describe,
)
from ..exceptions import DataError, InvalidArgumentError
from ._fmeasure import (
    POOLINGS,
    Confusion,
    FMeasure,
    as_fmeasure,
    check_zero_division,
    fmt_number,
    ratio,
)


# ---------------------------------------------------------------------------
# Cross-validation pooling
# ---------------------------------------------------------------------------
def pooled_f(counts: np.ndarray, alpha: float, pooling: str = "tp_fp",
             zero_division: float = 1.0) -> np.ndarray:
    """The cross-validated F of fold counts pooled over axis 0, vectorised over the rest.

    ``counts`` has shape (k, ..., >= 3), the last axis (tp, fp, fn[, tn]).  ``"tp_fp"``:
    F of the summed counts (equal to that of the averaged counts); ``"mean"``: the mean of
    the per-fold F.  The one implementation behind :func:`pooled_cv_f` and the tuners'
    criterion (:func:`fmstats.cv_tune`).

    Parameters
    ----------
    counts : numpy.ndarray
        Fold counts of shape (k, ..., >= 3), the last axis (tp, fp, fn[, tn]).
    alpha : float
        The F-measure's weight on precision.
    pooling : {"tp_fp", "mean"}, default "tp_fp"
        F of the summed counts, or the mean of the per-fold F.
    zero_division : float, default 1.0
        The F of a fold (or of the sum) whose denominator is 0.

    Returns
    -------
    numpy.ndarray
        The pooled F, of shape ``counts.shape[1:-1]``.
    """
    counts = np.asarray(counts, dtype=float)
    a, b = alpha, 1.0 - alpha
    if pooling == "tp_fp":
        total = counts.sum(axis=0)
        return np.asarray(ratio(total[..., 0], total[..., 1], total[..., 2], a, b,
                                zero_division), dtype=float)
    per_fold = np.asarray(ratio(counts[..., 0], counts[..., 1], counts[..., 2], a, b,
                                zero_division), dtype=float)
    return per_fold.mean(axis=0)


def _fold_counts(folds: Any) -> np.ndarray:
    if isinstance(folds, Confusion):
        folds = [folds]
    if not isinstance(folds, np.ndarray) and not sp.issparse(folds):
        try:
            folds = list(folds)
        except TypeError:
            raise InvalidArgumentError(
                "`folds` must be a sequence of Confusion or a (k, 3) array of tp, fp, fn; "
                f"got {describe(folds)}."
            ) from None
        if folds and all(isinstance(c, Confusion) for c in folds):
            return np.array([[c.tp, c.fp, c.fn] for c in folds], dtype=float)
    try:
        arr = np.asarray(folds, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            "`folds` must be a sequence of Confusion or a (k, 3) array of tp, fp, fn; "
            f"got {describe(folds)}."
        ) from None
    if arr.size == 0:
        raise DataError("`folds` is empty; at least one fold is needed.")
    if arr.ndim != 2 or arr.shape[1] not in (3, 4):
        raise InvalidArgumentError(
            "`folds` must be a sequence of Confusion or a (k, 3) array of tp, fp, fn "
            f"(a 4th column tn is allowed and ignored); got shape {arr.shape}."
        )
    arr = arr[:, :3]
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise DataError(
            f"`folds` must hold finite, non-negative counts; got {int(bad.sum())} bad value(s), "
            f"e.g. {fmt_number(arr[bad][0])}."
        )
    return arr


def pooled_cv_f(folds: Any, *, beta: float | None = None, alpha: float | None = None,
                measure: FMeasure | None = None, pooling: str = "tp_fp",
                zero_division: float = 1.0) -> float:
    """Cross-validated F from per-fold confusion counts (seed 004, section 8.2).

    Parameters
    ----------
    folds : sequence of Confusion, or array of shape (k, 3)
        Per-fold counts; array rows are (tp, fp, fn) (a 4th column is ignored).
    beta, alpha : float, optional
        The F-measure by its parameter; see :class:`FMeasure`.
    measure : FMeasure, optional
        The F-measure; give at most one of ``beta``, ``alpha`` and ``measure``
        (default F1).
    pooling : {"tp_fp", "mean"}
        ``"tp_fp"`` (Forman & Scholz's F_tp,fp): average TP, FP and FN over
        folds, then F = TP / (TP + alpha FP + (1 - alpha) FN) -- averaging or
        summing gives the same F.  ``"mean"``: the mean over folds of the
        per-fold F (biased under class imbalance).
    zero_division : float
        F where the (pooled or per-fold) denominator is 0.

    Returns
    -------
    float
        The cross-validated F.
    """
    m = as_fmeasure(measure, beta, alpha)
    check_choice("pooling", pooling, POOLINGS)
    zd = check_zero_division(zero_division)
    return float(pooled_f(_fold_counts(folds), m.alpha, pooling, zd))
