"""F-measures and related classification measures.

One F-measure, two parameterisations (DESIGN.md section 1)
----------------------------------------------------------
With confusion counts TP, FP, FN (and TN), the F-measure with weight
``alpha`` in (0, 1] on precision is

    F = TP / (TP + alpha * FP + (1 - alpha) * FN)
      = 1 / (alpha / P + (1 - alpha) / R),

and the same measure written with ``beta`` >= 0 (scikit-learn's convention) is

    F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP),

related by ``alpha = 1 / (1 + beta^2)`` and ``beta = sqrt((1 - alpha) / alpha)``.
F1 is ``beta = 1`` or ``alpha = 0.5``; ``beta = 0`` (``alpha = 1``) is precision.
The thesis of seed 004 calls our ``alpha`` "beta": when you implement one of its
formulas, its beta is our ``alpha``.  Every function here takes ``beta=`` or
``alpha=`` (not both; default F1) or an :class:`FMeasure` through ``measure=``.

Zero division
-------------
A ratio whose denominator is zero takes the value ``zero_division`` (default
1.0), never NaN:

* F: the denominator ``TP + alpha FP + (1 - alpha) FN`` is zero, i.e. for
  ``alpha < 1`` an empty truth with an empty prediction (TP + FP + FN = 0), and
  for ``alpha = 1`` (precision) no predictions.  With predictions but no truth,
  or truth but no predictions, F is 0 (for ``alpha < 1``).
* precision: no predictions (TP + FP = 0); recall: no truth (TP + FN = 0);
  Jaccard: TP + FP + FN = 0.

These are scikit-learn's rules for ``zero_division=1.0``, and they keep F
between precision and recall.  In multi-label averages the rule applies per
row (instance-wise average) or per label (macro average), so empty rows or
labels count as ``zero_division``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._validation import (
    check_binary,
    check_choice,
    check_nonempty,
    check_probabilities,
    check_scalar,
    check_weights,
    describe,
)
from .exceptions import DataError, InvalidArgumentError, ResponseError

__all__ = [
    "FMeasure",
    "as_fmeasure",
    "Confusion",
    "confusion",
    "f_score",
    "precision_score",
    "recall_score",
    "jaccard_score",
    "accuracy_score",
    "hamming_loss",
    "expected_confusion",
    "expected_f",
    "noisy_confusion",
    "noisy_f",
    "pooled_cv_f",
    "multiclass_micro_f",
]

_AVERAGES = ("binary", "instance", "samples", "micro", "macro", None)
_DEPENDENCES = ("correlated", "independent")
_POOLINGS = ("tp_fp", "mean")
_WRONG_CLASS = ("fn_fp", "fn")


def _fmt(x: float) -> str:
    """A number as plain text (no numpy repr), as in messages and names."""
    return format(float(x), ".6g")


# ---------------------------------------------------------------------------
# The F-measure value object
# ---------------------------------------------------------------------------
@dataclass(frozen=True, init=False, eq=False, repr=False)
class FMeasure:
    """An F-measure, given by ``beta`` or by ``alpha`` (not both).

    Parameters
    ----------
    beta : float, optional
        Finite, ``>= 0``; F_beta = (1+beta^2) TP / ((1+beta^2) TP + beta^2 FN + FP).
        ``beta > 1`` favours recall, ``beta = 0`` is precision.
    alpha : float, optional
        In (0, 1], the weight on precision: F = 1 / (alpha/P + (1-alpha)/R)
        = TP / (TP + alpha FP + (1 - alpha) FN).  (Seed 004 calls this beta.)

    With neither, the measure is F1 (beta = 1, alpha = 0.5).  Both attributes
    ``alpha`` and ``beta`` are always set, related by alpha = 1/(1+beta^2).
    Two measures are equal when their ``alpha`` is equal.  The arguments are
    keyword-only so that a bare number is never silently read in the wrong
    parameterisation.

    Examples
    --------
    >>> FMeasure(beta=2)
    F-measure F2 (beta = 2, alpha = 0.2)
    """

    alpha: float
    beta: float

    def __init__(self, *, beta: float | None = None, alpha: float | None = None):
        if beta is not None and alpha is not None:
            raise InvalidArgumentError(
                "Give either `beta` or `alpha`, not both (alpha = 1/(1+beta^2) are two "
                f"parameterisations of one F-measure); got beta={describe(beta)} and "
                f"alpha={describe(alpha)}."
            )
        if alpha is not None:
            a = float(check_scalar("alpha", alpha, low=0, high=1, low_open=True))
            b = math.sqrt((1.0 - a) / a)
            if not math.isfinite(b):
                raise InvalidArgumentError(
                    f"`alpha` must be large enough that beta = sqrt((1-alpha)/alpha) is finite; "
                    f"got {alpha!r}."
                )
        else:
            b = 1.0 if beta is None else float(check_scalar("beta", beta, low=0))
            a = 1.0 / (1.0 + b * b)
            if a == 0.0:
                raise InvalidArgumentError(
                    "`beta` must be small enough that alpha = 1/(1+beta^2) is positive; "
                    f"got {beta!r}."
                )
        object.__setattr__(self, "alpha", a)
        object.__setattr__(self, "beta", b)

    # value semantics ------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FMeasure):
            return NotImplemented
        return self.alpha == other.alpha

    def __hash__(self) -> int:
        return hash((FMeasure, self.alpha))

    @property
    def name(self) -> str:
        """Short name: ``"F1"``, ``"F2"``, ``"F0.5"``, ... or ``"F(beta=1.5)"``."""
        b = self.beta
        nearest = round(b)
        if b < 1e6 and abs(b - nearest) <= 1e-9 * max(1.0, b):
            return f"F{int(nearest)}"
        if abs(b - 0.5) <= 1e-9:
            return "F0.5"
        return f"F(beta={_fmt(b)})"

    def __str__(self) -> str:
        return f"F-measure {self.name} (beta = {_fmt(self.beta)}, alpha = {_fmt(self.alpha)})"

    __repr__ = __str__

    # computation ----------------------------------------------------------
    def from_counts(self, tp: Any, fp: Any, fn: Any, zero_division: float = 1.0):
        """F from confusion counts, vectorised over broadcastable arrays.

        F = TP / (TP + alpha FP + (1 - alpha) FN); where the denominator is 0
        the value is ``zero_division``.

        Returns
        -------
        float or ndarray
            A float when all counts are scalars, else an array of their
            broadcast shape.
        """
        zd = check_zero_division(zero_division)
        tp, fp, fn = _check_counts(tp=tp, fp=fp, fn=fn)
        return ratio(tp, fp, fn, self.alpha, 1.0 - self.alpha, zd)

    def score(self, y_true: Any, y_pred: Any, sample_weight: Any = None,
              zero_division: float = 1.0) -> float:
        """F of 0/1 vectors ``y_true`` (truth) and ``y_pred`` (prediction)."""
        return confusion(y_true, y_pred, sample_weight).f(self, zero_division=zero_division)


def as_fmeasure(measure: FMeasure | None = None, beta: float | None = None,
                alpha: float | None = None) -> FMeasure:
    """Resolve the ``measure`` / ``beta`` / ``alpha`` arguments to one :class:`FMeasure`.

    At most one of them may be given; with none the result is F1.
    """
    given = [k for k, v in (("measure", measure), ("beta", beta), ("alpha", alpha))
             if v is not None]
    if len(given) > 1:
        raise InvalidArgumentError(
            "Give at most one of `measure`, `beta` and `alpha`; got "
            + ", ".join(f"{k}={describe(v)}" for k, v in
                        (("measure", measure), ("beta", beta), ("alpha", alpha)) if v is not None)
            + "."
        )
    if measure is not None:
        if not isinstance(measure, FMeasure):
            raise InvalidArgumentError(
                f"`measure` must be an FMeasure (e.g. FMeasure(beta=2)); got {describe(measure)}."
            )
        return measure
    return FMeasure(beta=beta, alpha=alpha)


# ---------------------------------------------------------------------------
# Small numerical helpers
# ---------------------------------------------------------------------------
def check_zero_division(value: Any) -> float:
    return float(check_scalar("zero_division", value, low=0, high=1))


def _check_counts(**counts: Any) -> list[np.ndarray]:
    out = []
    for name, value in counts.items():
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"`{name}` must be numeric counts; got {describe(value)} ({exc})."
            ) from None
        bad = ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            first = _fmt(arr[bad].ravel()[0])
            raise DataError(
                f"`{name}` must hold finite, non-negative counts; got {int(bad.sum())} "
                f"bad value(s), e.g. {first}."
            )
        out.append(arr)
    try:
        np.broadcast_shapes(*(a.shape for a in out))
    except ValueError:
        raise InvalidArgumentError(
            "The counts " + ", ".join(f"`{k}`" for k in counts)
            + " must have broadcastable shapes; got "
            + ", ".join(str(a.shape) for a in out) + "."
        ) from None
    return out


def ratio(tp, fp, fn, a: float, b: float, zero_division: float):
    """TP / (TP + a FP + b FN), ``zero_division`` where the denominator is 0.

    (a, b) = (alpha, 1 - alpha) gives F, (1, 0) precision, (0, 1) recall and
    (1, 1) Jaccard.
    """
    tp = np.asarray(tp, dtype=float)
    den = tp + a * np.asarray(fp, dtype=float) + b * np.asarray(fn, dtype=float)
    pos = den > 0
    out = np.divide(tp, den, out=np.full(np.broadcast(tp, den).shape, float(zero_division)),
                    where=pos)
    return float(out) if out.ndim == 0 else out


_KIND_WEIGHTS = {"precision": (1.0, 0.0), "recall": (0.0, 1.0), "jaccard": (1.0, 1.0)}


def _kind_weights(kind: str | FMeasure) -> tuple[float, float]:
    if isinstance(kind, FMeasure):
        return kind.alpha, 1.0 - kind.alpha
    return _KIND_WEIGHTS[kind]


# ---------------------------------------------------------------------------
# Confusion counts
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Confusion:
    """Confusion counts (possibly weighted or expected, hence floats).

    Attributes
    ----------
    tp, fp, fn, tn : float
        True positives, false positives, false negatives, true negatives;
        finite and non-negative.

    ``a + b`` adds the counts; ``sum(list_of_confusions)`` works too.
    Precision TP/(TP+FP) and recall TP/(TP+FN) are 1 when their denominator
    is 0, Jaccard TP/(TP+FP+FN) likewise; see :meth:`f` for F.
    """

    tp: float
    fp: float
    fn: float
    tn: float

    def __post_init__(self):
        for name in ("tp", "fp", "fn", "tn"):
            value = getattr(self, name)
            if isinstance(value, np.generic) or (isinstance(value, np.ndarray)
                                                 and value.ndim == 0):
                value = value.item()  # numpy scalars -> Python numbers (plain messages)
            value = check_scalar(name, value, low=0)
            object.__setattr__(self, name, float(value))

    def __add__(self, other: object) -> "Confusion":
        if not isinstance(other, Confusion):
            return NotImplemented
        return Confusion(self.tp + other.tp, self.fp + other.fp,
                         self.fn + other.fn, self.tn + other.tn)

    def __radd__(self, other: object) -> "Confusion":
        if isinstance(other, (int, float)) and other == 0:  # sum() starts at 0
            return self
        return NotImplemented

    @property
    def n(self) -> float:
        """TP + FP + FN + TN (the total weight)."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        """TP / (TP + FP); 1.0 when there are no predicted positives."""
        return ratio(self.tp, self.fp, self.fn, 1.0, 0.0, 1.0)

    @property
    def recall(self) -> float:
        """TP / (TP + FN); 1.0 when there are no true positives."""
        return ratio(self.tp, self.fp, self.fn, 0.0, 1.0, 1.0)

    @property
    def jaccard(self) -> float:
        """TP / (TP + FP + FN); 1.0 when all three are 0."""
        return ratio(self.tp, self.fp, self.fn, 1.0, 1.0, 1.0)

    @property
    def accuracy(self) -> float:
        """(TP + TN) / n; raises :class:`DataError` when n = 0."""
        n = self.n
        if n <= 0:
            raise DataError("The accuracy of an empty Confusion (n = 0) is undefined; "
                            f"got {self!r}.")
        return (self.tp + self.tn) / n

    def f(self, measure: FMeasure | None = None, *, beta: float | None = None,
          alpha: float | None = None, zero_division: float = 1.0) -> float:
        """F = TP / (TP + alpha FP + (1 - alpha) FN); ``zero_division`` if the denominator is 0."""
        m = as_fmeasure(measure, beta, alpha)
        zd = check_zero_division(zero_division)
        return ratio(self.tp, self.fp, self.fn, m.alpha, 1.0 - m.alpha, zd)

    def as_array(self) -> np.ndarray:
        """``[tp, fp, fn, tn]`` as a float array."""
        return np.array([self.tp, self.fp, self.fn, self.tn])

    def as_frame(self) -> pd.DataFrame:
        """The 2x2 table: rows ``observed`` 1, 0; columns ``predicted`` 1, 0."""
        return pd.DataFrame(
            [[self.tp, self.fn], [self.fp, self.tn]],
            index=pd.Index([1, 0], name="observed"),
            columns=pd.Index([1, 0], name="predicted"),
        )


def _confusion_from_cells(tp_i, fp_i, fn_i, tn_i, w: np.ndarray) -> Confusion:
    return Confusion(float(w @ tp_i), float(w @ fp_i), float(w @ fn_i), float(w @ tn_i))


def _independent_cells(q: np.ndarray, p: np.ndarray):
    return q * p, (1.0 - q) * p, q * (1.0 - p), (1.0 - q) * (1.0 - p)


def _two_vectors(name_a: str, a: Any, name_b: str, b: Any, sample_weight: Any,
                 check_a, check_b):
    va = check_a(name_a, a)
    check_nonempty(name_a, va.shape[0])
    vb = check_b(name_b, b, va.shape[0])
    w = check_weights("sample_weight", sample_weight, va.shape[0])
    return va, vb, w


def confusion(y_true: Any, y_pred: Any, sample_weight: Any = None) -> Confusion:
    """Weighted confusion counts of 0/1 (or boolean) vectors.

    TP = sum w y yhat, FP = sum w (1-y) yhat, FN = sum w y (1-yhat),
    TN = sum w (1-y)(1-yhat), with ``w`` the sample weights (default 1).
    """
    yt, yp, w = _two_vectors("y_true", y_true, "y_pred", y_pred, sample_weight,
                              check_binary, check_binary)
    return _confusion_from_cells(*_independent_cells(yt, yp), w)


def expected_confusion(y: Any, p: Any, sample_weight: Any = None) -> Confusion:
    """Expected confusion counts from model probabilities (seed 004, section 4.2).

    TP~ = sum_{y=1} w p, FN~ = sum_{y=1} w (1-p), FP~ = sum_{y=0} w p,
    TN~ = sum_{y=0} w (1-p), where ``p`` is the model probability of class 1.
    """
    yt, pp, w = _two_vectors("y", y, "p", p, sample_weight, check_binary, check_probabilities)
    return _confusion_from_cells(*_independent_cells(yt, pp), w)


def expected_f(y: Any, p: Any, *, beta: float | None = None, alpha: float | None = None,
               measure: FMeasure | None = None, sample_weight: Any = None,
               zero_division: float = 1.0) -> float:
    """The expected F-measure: F of :func:`expected_confusion` (seed 004, Def. 4.2.1).

    F~ = TP~ / (TP~ + alpha FP~ + (1 - alpha) FN~); ``zero_division`` if the
    denominator is 0.
    """
    m = as_fmeasure(measure, beta, alpha)
    return expected_confusion(y, p, sample_weight).f(m, zero_division=zero_division)


def noisy_confusion(q: Any, p: Any, dependence: str = "correlated",
                    sample_weight: Any = None) -> Confusion:
    """Noisy confusion counts for a probabilistic truth (seed 004, section 6.1).

    ``q[i]`` is the probability that row i is truly positive, ``p[i]`` the
    probability that it is predicted positive.

    * ``dependence="correlated"`` (eq. 6.1, the strongest dependence):
      TP = sum w min(q, p), FN = sum w max(0, q - p), FP = sum w max(0, p - q),
      TN = sum w min(1 - q, 1 - p).  Then accuracy = 1 - weighted mean ``|q - p|``.
    * ``dependence="independent"``: TP = sum w q p, FN = sum w q (1-p),
      FP = sum w (1-q) p, TN = sum w (1-q)(1-p).

    With 0/1 ``q`` and ``p`` both equal :func:`confusion`; with 0/1 ``q`` both
    equal :func:`expected_confusion`.
    """
    check_choice("dependence", dependence, _DEPENDENCES)
    qq, pp, w = _two_vectors("q", q, "p", p, sample_weight,
                             check_probabilities, check_probabilities)
    if dependence == "correlated":
        cells = (np.minimum(qq, pp), np.maximum(0.0, pp - qq),
                 np.maximum(0.0, qq - pp), np.minimum(1.0 - qq, 1.0 - pp))
    else:
        cells = _independent_cells(qq, pp)
    return _confusion_from_cells(*cells, w)


def noisy_f(q: Any, p: Any, *, beta: float | None = None, alpha: float | None = None,
            measure: FMeasure | None = None, dependence: str = "correlated",
            sample_weight: Any = None, zero_division: float = 1.0) -> float:
    """The noisy F-measure (seed 004, Def. 6.1.1): F of :func:`noisy_confusion`.

    F^U = TP^U / (TP^U + alpha FP^U + (1 - alpha) FN^U); ``zero_division``
    if the denominator is 0.
    """
    m = as_fmeasure(measure, beta, alpha)
    return noisy_confusion(q, p, dependence, sample_weight).f(m, zero_division=zero_division)


# ---------------------------------------------------------------------------
# Label matrices (multi-label data), dense or sparse
# ---------------------------------------------------------------------------
def _is_matrix(x: Any) -> bool:
    return sp.issparse(x) or np.ndim(x) == 2


def label_matrix(name: str, value: Any):
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
            f"e.g. {_fmt(data[bad][0])}."
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
        a, b = _kind_weights(kind)
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
    check_choice("average", average, _AVERAGES)
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
    a, b = _kind_weights(kind)
    return ratio(c.tp, c.fp, c.fn, a, b, zd)


_AVERAGE_DOC = """
    For 1-d 0/1 vectors ``average`` must be ``"binary"``.  For (n, m) label
    matrices (dense or scipy.sparse; sparse inputs stay sparse) ``average`` is

    * ``"instance"`` (alias ``"samples"``): the sample-weighted mean over rows
      of the per-row value,
    * ``"micro"``: the value of the label-summed weighted counts,
    * ``"macro"``: the unweighted mean over labels of the per-label value,
    * ``None``: the array of per-label values.

    ``sample_weight`` are row weights.  Empty denominators give
    ``zero_division`` (per row or per label in the averages).
"""


def f_score(y_true: Any, y_pred: Any, *, beta: float | None = None, alpha: float | None = None,
            measure: FMeasure | None = None, sample_weight: Any = None,
            zero_division: float = 1.0, average: str | None = "binary"):
    m = as_fmeasure(measure, beta, alpha)
    return _score(m, y_true, y_pred, sample_weight, zero_division, average)


f_score.__doc__ = """F-measure F = TP / (TP + alpha FP + (1 - alpha) FN).

    Equivalently F_beta = (1+beta^2) TP / ((1+beta^2) TP + beta^2 FN + FP).
    Give ``beta``, ``alpha`` or ``measure`` (at most one; default F1).  The
    value is ``zero_division`` where TP + alpha FP + (1 - alpha) FN = 0.
""" + _AVERAGE_DOC


def precision_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                    zero_division: float = 1.0, average: str | None = "binary"):
    return _score("precision", y_true, y_pred, sample_weight, zero_division, average)


precision_score.__doc__ = """Precision TP / (TP + FP); ``zero_division`` with no predictions.
""" + _AVERAGE_DOC


def recall_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                 zero_division: float = 1.0, average: str | None = "binary"):
    return _score("recall", y_true, y_pred, sample_weight, zero_division, average)


recall_score.__doc__ = """Recall TP / (TP + FN); ``zero_division`` with no true positives.
""" + _AVERAGE_DOC


def jaccard_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                  zero_division: float = 1.0, average: str | None = "binary"):
    return _score("jaccard", y_true, y_pred, sample_weight, zero_division, average)


jaccard_score.__doc__ = """Jaccard index TP / (TP + FP + FN); ``zero_division`` when all are 0.
""" + _AVERAGE_DOC


def accuracy_score(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Weighted accuracy (TP + TN) / n.

    For (n, m) label matrices this is the subset accuracy: the weighted
    fraction of rows predicted exactly.
    """
    if _is_matrix(y_true) or _is_matrix(y_pred):
        counts = _LabelCounts(y_true, y_pred, sample_weight)
        return float(counts.w @ (counts.row_errors() == 0) / counts.w.sum())
    return confusion(y_true, y_pred, sample_weight).accuracy


def hamming_loss(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Weighted fraction of wrong labels: sum_i w_i (FP_i + FN_i) / (m sum_i w_i).

    For 1-d vectors (m = 1) this is 1 - accuracy.
    """
    if _is_matrix(y_true) or _is_matrix(y_pred):
        counts = _LabelCounts(y_true, y_pred, sample_weight)
        return float(counts.w @ counts.row_errors() / (counts.w.sum() * counts.m))
    c = confusion(y_true, y_pred, sample_weight)
    return (c.fp + c.fn) / c.n


# ---------------------------------------------------------------------------
# Cross-validation pooling
# ---------------------------------------------------------------------------
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
            f"e.g. {_fmt(arr[bad][0])}."
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
    pooling : {"tp_fp", "mean"}
        ``"tp_fp"`` (Forman & Scholz's F_tp,fp): average TP, FP and FN over
        folds, then F = TP / (TP + alpha FP + (1 - alpha) FN) -- averaging or
        summing gives the same F.  ``"mean"``: the mean over folds of the
        per-fold F (biased under class imbalance).
    zero_division : float
        F where the (pooled or per-fold) denominator is 0.
    """
    m = as_fmeasure(measure, beta, alpha)
    check_choice("pooling", pooling, _POOLINGS)
    zd = check_zero_division(zero_division)
    counts = _fold_counts(folds)
    a, b = m.alpha, 1.0 - m.alpha
    if pooling == "tp_fp":
        return ratio(*counts.mean(axis=0), a, b, zd)
    return float(np.mean(ratio(counts[:, 0], counts[:, 1], counts[:, 2], a, b, zd)))


# ---------------------------------------------------------------------------
# Multiclass micro-F with a default class
# ---------------------------------------------------------------------------
def _class_vector(name: str, value: Any, n: int | None = None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InvalidArgumentError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    if n is not None and arr.shape[0] != n:
        raise InvalidArgumentError(
            f"`{name}` must have length {n} (one value per row); got length {arr.shape[0]}.")
    missing = np.asarray(pd.isna(arr), dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ResponseError(
            f"`{name}` must not contain missing values; got {int(missing.sum())}, "
            f"the first at position {i} ({arr[i]!r})."
        )
    return arr


def multiclass_micro_f(y_true: Any, y_pred: Any, default_class: Any, *,
                       beta: float | None = None, alpha: float | None = None,
                       measure: FMeasure | None = None, sample_weight: Any = None,
                       zero_division: float = 1.0, wrong_class: str = "fn_fp") -> float:
    """Multiclass micro-F with a "default" (uninteresting) class (seed 001, section 3.2.3).

    With ``d`` the default class and weights ``w``:

    * TP = sum w [y = yhat != d]  (correct predictions of non-default classes),
    * FN = sum w [y != d, yhat != y]  (non-default truths predicted wrongly),
    * FP, by ``wrong_class``:

      - ``"fn_fp"`` (default): sum w [yhat != d, yhat != y], every wrong
        prediction of a non-default class; a confusion between two non-default
        classes counts as one FN and one FP.  This is scikit-learn's
        ``fbeta_score(average="micro", labels=<non-default classes>)``.
      - ``"fn"``: sum w [y = d, yhat != d]; a confusion between two
        non-default classes counts as an FN only.  This is seed 001's
        definition (mcF_beta, Parambath et al.).

    F = TP / (TP + alpha FP + (1 - alpha) FN), ``zero_division`` when the
    denominator is 0.  ``default_class`` must occur in ``y_true`` or ``y_pred``
    (a guard against a mistyped class).
    """
    m = as_fmeasure(measure, beta, alpha)
    check_choice("wrong_class", wrong_class, _WRONG_CLASS)
    zd = check_zero_division(zero_division)
    yt = _class_vector("y_true", y_true)
    check_nonempty("y_true", yt.shape[0])
    yp = _class_vector("y_pred", y_pred, yt.shape[0])
    w = check_weights("sample_weight", sample_weight, yt.shape[0])
    dt = np.asarray(yt == default_class, dtype=bool)
    dp = np.asarray(yp == default_class, dtype=bool)
    if dt.shape != yt.shape or not (dt.any() or dp.any()):
        raise InvalidArgumentError(
            f"`default_class` must be one of the classes in `y_true` or `y_pred`; "
            f"got {describe(default_class)}."
        )
    wrong = ~np.asarray(yt == yp, dtype=bool)
    tp = w @ (~wrong & ~dt)
    fn = w @ (wrong & ~dt)
    fp = w @ (wrong & ~dp) if wrong_class == "fn_fp" else w @ (dt & ~dp)
    return ratio(tp, fp, fn, m.alpha, 1.0 - m.alpha, zd)
