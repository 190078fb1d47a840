"""The F-measure value object (alpha/beta), confusion counts of 0/1 vectors, the ratio
behind every measure, count checks and the one tie rule of fmstats' searches."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._utils.validation import (
    check_binary,
    check_nonempty,
    check_scalar,
    check_weights,
    describe,
)
from ..exceptions import DataError, InvalidArgumentError

AVERAGES = ("binary", "instance", "samples", "micro", "macro", None)
DEPENDENCES = ("correlated", "independent")
POOLINGS = ("tp_fp", "mean")
WRONG_CLASS = ("fn_fp", "fn")




def fmt_number(x: float) -> str:
    """A number as plain text (no numpy repr), as in messages and names."""
    return format(float(x), ".6g")


# ---------------------------------------------------------------------------
# The F-measure value object
# ---------------------------------------------------------------------------
@dataclass(frozen=True, init=False, eq=False, repr=False)
class FMeasure:
    """An F-measure, given by ``beta`` or by ``alpha`` (not both).

    With neither, the measure is F1 (beta = 1, alpha = 0.5).  Both attributes
    ``alpha`` and ``beta`` are always set, related by alpha = 1/(1+beta^2).
    Two measures are equal when their ``alpha`` is equal.  The arguments are
    keyword-only so that a bare number is never silently read in the wrong
    parameterisation.

    Parameters
    ----------
    beta : float, optional
        Finite, ``>= 0``; F_beta = (1+beta^2) TP / ((1+beta^2) TP + beta^2 FN + FP).
        ``beta > 1`` favours recall, ``beta = 0`` is precision.
    alpha : float, optional
        In (0, 1], the weight on precision: F = 1 / (alpha/P + (1-alpha)/R)
        = TP / (TP + alpha FP + (1 - alpha) FN).  Seed 004 calls this beta.

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
        return f"F(beta={fmt_number(b)})"

    def __str__(self) -> str:
        return f"F-measure {self.name} (beta = {fmt_number(self.beta)}, alpha = {fmt_number(self.alpha)})"

    __repr__ = __str__

    # computation ----------------------------------------------------------
    def from_counts(self, tp: Any, fp: Any, fn: Any, zero_division: float = 1.0):
        """F from confusion counts, vectorised over broadcastable arrays.

        F = TP / (TP + alpha FP + (1 - alpha) FN); where the denominator is 0
        the value is ``zero_division``.

        Parameters
        ----------
        tp, fp, fn : float or array-like
            True positives, false positives and false negatives: finite,
            non-negative counts of broadcastable shapes.
        zero_division : float, default 1.0
            The value, in [0, 1], where the denominator is 0.

        Returns
        -------
        float or ndarray
            A float when all counts are scalars, else an array of their
            broadcast shape.
        """
        zd = check_zero_division(zero_division)
        tp, fp, fn = check_counts(tp=tp, fp=fp, fn=fn)
        return ratio(tp, fp, fn, self.alpha, 1.0 - self.alpha, zd)

    def score(self, y_true: Any, y_pred: Any, sample_weight: Any = None,
              zero_division: float = 1.0) -> float:
        """F of 0/1 vectors ``y_true`` (truth) and ``y_pred`` (prediction).

        Parameters
        ----------
        y_true : array-like of shape (n,)
            Truth, 0/1 (or boolean).
        y_pred : array-like of shape (n,)
            Prediction, 0/1 (or boolean).
        sample_weight : array-like of shape (n,), optional
            Row weights (default 1).
        zero_division : float, default 1.0
            The value, in [0, 1], where TP + alpha FP + (1 - alpha) FN = 0.

        Returns
        -------
        float
            This F-measure of the weighted confusion counts (:func:`confusion`).
        """
        return confusion(y_true, y_pred, sample_weight).f(self, zero_division=zero_division)


def as_fmeasure(measure: FMeasure | None = None, beta: float | None = None,
                alpha: float | None = None) -> FMeasure:
    """Resolve the ``measure`` / ``beta`` / ``alpha`` arguments to one :class:`FMeasure`.

    At most one of them may be given; with none the result is F1.

    Parameters
    ----------
    measure : FMeasure, optional
        Returned as is.
    beta, alpha : float, optional
        Passed to :class:`FMeasure`.

    Returns
    -------
    FMeasure
        The measure given, or built from ``beta`` or ``alpha``.
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
    """The ``zero_division`` argument checked: a number in [0, 1].

    Parameters
    ----------
    value : float
        The value given as ``zero_division``.

    Returns
    -------
    float
        ``value`` as a float; an :class:`~fmstats.exceptions.InvalidArgumentError` naming
        ``zero_division`` when it is not a number in [0, 1].
    """
    return float(check_scalar("zero_division", value, low=0, high=1))


def check_counts(**counts: Any) -> list[np.ndarray]:
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
            first = fmt_number(arr[bad].ravel()[0])
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


#: F values (or other criteria) within this relative distance of the best count as tied.
#: Weighted counts are sums of floats whose rounding depends on the order of summation
#: (and so on the BLAS kernel and the CPU); two choices whose exact counts give the same F
#: can differ in the last bits.  1e-12 is far above that rounding (~1e-15 per operation)
#: and far below any difference a user would act on.
TIE_RTOL = 1e-12


def best_position(values: Any, rtol: float = TIE_RTOL) -> int:
    """Position of the best (largest) value, ties within ``rtol`` going to the first.

    The one tie rule of fmstats' searches: among the values within ``rtol x max(1, |best|)``
    of the maximum, the first in the order given wins.  Each search orders its candidates
    so that the first is the one to prefer -- :func:`fmstats.tune_threshold` and
    :func:`fmstats.prcurve.f_curve` list thresholds from the highest (the fewest predicted
    positives), :func:`fmstats.cv_tune` its grid in the order given.  NaN values never
    win; an all-NaN input raises :class:`~fmstats.exceptions.DataError`.

    Parameters
    ----------
    values : array-like
        The candidates' values (F or another criterion), in order of preference; raveled.
    rtol : float, default ``TIE_RTOL`` (1e-12)
        Relative tolerance of a tie.

    Returns
    -------
    int
        The position (into the raveled ``values``) of the first value within the tolerance
        of the maximum.

    Examples
    --------
    >>> best_position([0.5, 0.8, 0.8 + 1e-15, 0.7])
    1
    """
    v = np.asarray(values, dtype=float).ravel()
    ok = ~np.isnan(v)
    if not ok.any():
        raise DataError("no value to choose from: every candidate is NaN (or there is none).")
    top = float(v[ok].max())
    near = ok & (v >= top - rtol * max(1.0, abs(top)))
    return int(np.argmax(near))


def ratio(tp, fp, fn, a: float, b: float, zero_division: float):
    """TP / (TP + a FP + b FN), ``zero_division`` where the denominator is 0.

    (a, b) = (alpha, 1 - alpha) gives F, (1, 0) precision, (0, 1) recall and
    (1, 1) Jaccard.

    Parameters
    ----------
    tp, fp, fn : float or numpy.ndarray
        Confusion counts (broadcast together).
    a : float
        Weight of the false positives in the denominator.
    b : float
        Weight of the false negatives in the denominator.
    zero_division : float
        The value where the denominator is 0.

    Returns
    -------
    float or numpy.ndarray
        The ratio: a float for scalar counts, an array of the broadcast shape otherwise.
    """
    tp = np.asarray(tp, dtype=float)
    den = tp + a * np.asarray(fp, dtype=float) + b * np.asarray(fn, dtype=float)
    pos = den > 0
    out = np.divide(tp, den, out=np.full(np.broadcast(tp, den).shape, float(zero_division)),
                    where=pos)
    return float(out) if out.ndim == 0 else out


KIND_WEIGHTS = {"precision": (1.0, 0.0), "recall": (0.0, 1.0), "jaccard": (1.0, 1.0)}


def kind_weights(kind: str | FMeasure) -> tuple[float, float]:
    if isinstance(kind, FMeasure):
        return kind.alpha, 1.0 - kind.alpha
    return KIND_WEIGHTS[kind]


# ---------------------------------------------------------------------------
# Confusion counts
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Confusion:
    """Confusion counts (possibly weighted or expected, hence floats).

    ``a + b`` adds the counts; ``sum(list_of_confusions)`` works too.
    Precision TP/(TP+FP) and recall TP/(TP+FN) are 1 when their denominator
    is 0, Jaccard TP/(TP+FP+FN) likewise; see :meth:`f` for F.  Usually built by
    :func:`confusion`, :func:`expected_confusion` or :func:`noisy_confusion`.

    Parameters
    ----------
    tp, fp, fn, tn : float
        True positives, false positives, false negatives, true negatives;
        finite and non-negative (stored as floats in the attributes below).

    Attributes
    ----------
    tp, fp, fn, tn : float
        True positives, false positives, false negatives, true negatives;
        finite and non-negative.
    """

    tp: float
    fp: float
    fn: float
    tn: float

    def _repr_html_(self) -> str:
        """The confusion table (observed by predicted) as HTML, for notebooks."""
        return ("<table><tr><th></th><th>predicted 1</th><th>predicted 0</th></tr>"
                f"<tr><th>observed 1</th><td>{self.tp:g}</td><td>{self.fn:g}</td></tr>"
                f"<tr><th>observed 0</th><td>{self.fp:g}</td><td>{self.tn:g}</td></tr>"
                "</table>")

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
        """F = TP / (TP + alpha FP + (1 - alpha) FN); ``zero_division`` if the denominator is 0.

        Parameters
        ----------
        measure : FMeasure, optional
            The F-measure; give at most one of ``measure``, ``beta`` and ``alpha``
            (default F1).
        beta, alpha : float, optional
            The F-measure by its parameter; see :class:`FMeasure`.
        zero_division : float, default 1.0
            The value, in [0, 1], where the denominator is 0.

        Returns
        -------
        float
            The F-measure of these counts.
        """
        m = as_fmeasure(measure, beta, alpha)
        zd = check_zero_division(zero_division)
        return ratio(self.tp, self.fp, self.fn, m.alpha, 1.0 - m.alpha, zd)

    def as_array(self) -> np.ndarray:
        """``[tp, fp, fn, tn]`` as a float array.

        Returns
        -------
        numpy.ndarray
            The four counts, shape (4,).
        """
        return np.array([self.tp, self.fp, self.fn, self.tn])

    def as_frame(self) -> pd.DataFrame:
        """The 2x2 table: rows ``observed`` 1, 0; columns ``predicted`` 1, 0.

        Returns
        -------
        pandas.DataFrame
            The 2x2 table.
        """
        return pd.DataFrame(
            [[self.tp, self.fn], [self.fp, self.tn]],
            index=pd.Index([1, 0], name="observed"),
            columns=pd.Index([1, 0], name="predicted"),
        )


def confusion_from_cells(tp_i, fp_i, fn_i, tn_i, w: np.ndarray) -> Confusion:
    return Confusion(float(w @ tp_i), float(w @ fp_i), float(w @ fn_i), float(w @ tn_i))


def independent_cells(q: np.ndarray, p: np.ndarray):
    return q * p, (1.0 - q) * p, q * (1.0 - p), (1.0 - q) * (1.0 - p)


def two_vectors(name_a: str, a: Any, name_b: str, b: Any, sample_weight: Any,
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

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Truth ``y``, 0/1 (or boolean).
    y_pred : array-like of shape (n,)
        Prediction ``yhat``, 0/1 (or boolean).
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).

    Returns
    -------
    Confusion
        The weighted counts.
    """
    yt, yp, w = two_vectors("y_true", y_true, "y_pred", y_pred, sample_weight,
                              check_binary, check_binary)
    return confusion_from_cells(*independent_cells(yt, yp), w)
