"""Label matrices (multi-label data, dense or sparse) and the scores with their averages:
F, precision, recall, Jaccard, accuracy, Hamming loss."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.boundary import public
from .._utils.validation import (
    check_choice,
    check_weights,
    describe,
)
from ..exceptions import DataError, InvalidArgumentError, ResponseError
from ._fmeasure import (
    AVERAGES,
    FMeasure,
    as_fmeasure,
    check_zero_division,
    confusion,
    fmt_number,
    kind_weights,
    ratio,
)


# ---------------------------------------------------------------------------
# Label matrices (multi-label data), dense or sparse
# ---------------------------------------------------------------------------
def _is_matrix(x: Any) -> bool:
    return sp.issparse(x) or np.ndim(x) == 2


def label_matrix(name: str, value: Any):
    """A 0/1 label matrix (rows x labels) checked and converted to floats.

    Parameters
    ----------
    name : str
        The argument's name, for the error messages.
    value : array-like or scipy.sparse matrix
        The label matrix given.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_array
        ``value`` as floats (a sparse input stays sparse, CSR).  A clear error names ``name``
        when it is not 2-d, holds values other than 0 and 1, or has no row or no label.
    """
    if sp.issparse(value):
        if value.ndim != 2:
            raise InvalidArgumentError(
                f"`{name}` must be a 2-d label matrix; got a sparse array of shape {value.shape}.")
        mat = sp.csr_array(value, dtype=float)
        data = mat.data
    else:
        try:
            mat = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"`{name}` must be a numeric 0/1 label matrix; got {describe(value)} ({exc})."
            ) from None
        if mat.ndim != 2:
            raise InvalidArgumentError(
                f"`{name}` must be a 2-d label matrix; got shape {mat.shape}.")
        data = mat.ravel()
    bad = ~((data == 0) | (data == 1))
    if bad.any():
        raise ResponseError(
            f"`{name}` must contain only 0 and 1; got {int(bad.sum())} other value(s), "
            f"e.g. {fmt_number(data[bad][0])}."
        )
    if mat.shape[0] == 0 or mat.shape[1] == 0:
        raise DataError(
            f"`{name}` must have at least one row and one label; got shape {mat.shape}.")
    return mat


class _LabelCounts:
    """Per-row (unweighted) and per-label (weighted) TP, FP, FN of two label matrices."""

    def __init__(self, y_true: Any, y_pred: Any, sample_weight: Any):
        yt = label_matrix("y_true", y_true)
        yp = label_matrix("y_pred", y_pred)
        if yt.shape != yp.shape:
            raise InvalidArgumentError(
                f"`y_pred` must have the shape of `y_true` {yt.shape}; got {yp.shape}.")
        n, m = yt.shape
        w = check_weights("sample_weight", sample_weight, n)
        if sp.issparse(yt) or sp.issparse(yp):
            yt, yp = sp.csr_array(yt), sp.csr_array(yp)
            both = yt.multiply(yp)

            def rows(mat):
                return np.asarray(mat.sum(axis=1), dtype=float).ravel()

            def cols(mat):
                return np.asarray(mat.T @ w, dtype=float).ravel()
        else:
            both = yt * yp

            def rows(mat):
                return mat.sum(axis=1)

            def cols(mat):
                return w @ mat
        self.n, self.m, self.w = n, m, w
        r_tp, r_t, r_p = rows(both), rows(yt), rows(yp)
        self.row = (r_tp, r_p - r_tp, r_t - r_tp)  # exact: sums of 0/1 values
        c_tp, c_t, c_p = cols(both), cols(yt), cols(yp)
        self.col = (c_tp, np.maximum(c_p - c_tp, 0.0), np.maximum(c_t - c_tp, 0.0))

    def average(self, kind: str | FMeasure, average: str | None, zero_division: float):
        a, b = kind_weights(kind)
        if average in ("instance", "samples"):
            per_row = np.asarray(ratio(*self.row, a, b, zero_division))
            return float(self.w @ per_row / self.w.sum())
        if average == "micro":
            return ratio(*(c.sum() for c in self.col), a, b, zero_division)
        per_label = np.asarray(ratio(*self.col, a, b, zero_division), dtype=float)
        if average == "macro":
            return float(per_label.mean())
        return per_label  # average is None

    def row_errors(self) -> np.ndarray:
        """FP + FN per row."""
        return self.row[1] + self.row[2]


def _score(kind: str | FMeasure, y_true, y_pred, sample_weight, zero_division, average):
    check_choice("average", average, AVERAGES)
    zd = check_zero_division(zero_division)
    if _is_matrix(y_true) or _is_matrix(y_pred):
        if average == "binary":
            raise InvalidArgumentError(
                "`average` must be 'instance', 'micro', 'macro' or None for 2-d label "
                "matrices; got 'binary'."
            )
        return _LabelCounts(y_true, y_pred, sample_weight).average(kind, average, zd)
    if average != "binary":
        raise InvalidArgumentError(
            f"`average` must be 'binary' for 1-d `y_true` and `y_pred`; got {average!r} "
            "(pass (n, m) label matrices for multi-label averages)."
        )
    c = confusion(y_true, y_pred, sample_weight)
    a, b = kind_weights(kind)
    return ratio(c.tp, c.fp, c.fn, a, b, zd)


_AVERAGE_DOC = """
    The inputs are 1-d 0/1 vectors or (n, m) label matrices (dense or scipy.sparse;
    sparse inputs stay sparse), the latter averaged as ``average`` says.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, m)
        Truth: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
    y_pred : array-like of the shape of ``y_true``
        Prediction: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
{measure}    sample_weight : array-like of shape (n,), optional
        Row weights (default 1).
    zero_division : float, default 1.0
        The value, in [0, 1], that empty denominators give (per row or per label in
        the averages).
    average : {{"binary", "instance", "samples", "micro", "macro"}} or None, default "binary"
        Must be ``"binary"`` for 1-d 0/1 vectors.  For (n, m) label matrices:

        * ``"instance"`` (alias ``"samples"``): the sample-weighted mean over rows
          of the per-row value,
        * ``"micro"``: the value of the label-summed weighted counts,
        * ``"macro"``: the unweighted mean over labels of the per-label value,
        * ``None``: the array of per-label values.

    Returns
    -------
    float or ndarray
        The value; with ``average=None`` the array of per-label values.
"""

_MEASURE_DOC = """    beta, alpha : float, optional
        The F-measure by its parameter; see :class:`FMeasure`.
    measure : FMeasure, optional
        The F-measure; give at most one of ``beta``, ``alpha`` and ``measure``
        (default F1).
"""


@public
def f_score(y_true: Any, y_pred: Any, *, beta: float | None = None, alpha: float | None = None,
            measure: FMeasure | None = None, sample_weight: Any = None,
            zero_division: float = 1.0, average: str | None = "binary"):
    m = as_fmeasure(measure, beta, alpha)
    return _score(m, y_true, y_pred, sample_weight, zero_division, average)


f_score.__doc__ = """F-measure F = TP / (TP + alpha FP + (1 - alpha) FN).

    Equivalently F_beta = (1+beta^2) TP / ((1+beta^2) TP + beta^2 FN + FP).
    Give ``beta``, ``alpha`` or ``measure`` (at most one; default F1).  The
    value is ``zero_division`` where TP + alpha FP + (1 - alpha) FN = 0.
""" + _AVERAGE_DOC.format(measure=_MEASURE_DOC)


def precision_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                    zero_division: float = 1.0, average: str | None = "binary"):
    return _score("precision", y_true, y_pred, sample_weight, zero_division, average)


precision_score.__doc__ = """Precision TP / (TP + FP); ``zero_division`` with no predictions.
""" + _AVERAGE_DOC.format(measure="")


def recall_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                 zero_division: float = 1.0, average: str | None = "binary"):
    return _score("recall", y_true, y_pred, sample_weight, zero_division, average)


recall_score.__doc__ = """Recall TP / (TP + FN); ``zero_division`` with no true positives.
""" + _AVERAGE_DOC.format(measure="")


def jaccard_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                  zero_division: float = 1.0, average: str | None = "binary"):
    return _score("jaccard", y_true, y_pred, sample_weight, zero_division, average)


jaccard_score.__doc__ = """Jaccard index TP / (TP + FP + FN); ``zero_division`` when all are 0.
""" + _AVERAGE_DOC.format(measure="")


def accuracy_score(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Weighted accuracy (TP + TN) / n.

    For (n, m) label matrices this is the subset accuracy: the weighted
    fraction of rows predicted exactly.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, m)
        Truth: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
    y_pred : array-like of the shape of ``y_true``
        Prediction: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
    sample_weight : array-like of shape (n,), optional
        Row weights (default 1).

    Returns
    -------
    float
        The weighted accuracy.
    """
    if _is_matrix(y_true) or _is_matrix(y_pred):
        counts = _LabelCounts(y_true, y_pred, sample_weight)
        return float(counts.w @ (counts.row_errors() == 0) / counts.w.sum())
    return confusion(y_true, y_pred, sample_weight).accuracy


def hamming_loss(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Weighted fraction of wrong labels: sum_i w_i (FP_i + FN_i) / (m sum_i w_i).

    For 1-d vectors (m = 1) this is 1 - accuracy.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, m)
        Truth: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
    y_pred : array-like of the shape of ``y_true``
        Prediction: a 0/1 vector, or an (n, m) 0/1 label matrix (dense or scipy.sparse).
    sample_weight : array-like of shape (n,), optional
        Row weights ``w_i`` (default 1).

    Returns
    -------
    float
        The weighted Hamming loss.
    """
    if _is_matrix(y_true) or _is_matrix(y_pred):
        counts = _LabelCounts(y_true, y_pred, sample_weight)
        return float(counts.w @ counts.row_errors() / (counts.w.sum() * counts.m))
    c = confusion(y_true, y_pred, sample_weight)
    return (c.fp + c.fn) / c.n
