"""Precision, recall, F and ROC at every threshold of a score: exact, weighted, vectorised.

The pure computations behind ``results.f_curve()``, ``results.plot_pr()`` and
``results.plot_roc()`` (:class:`fmstats.results.ScoreCurves`).  A row is classed
positive when its score is at least the threshold; the thresholds are the distinct
scores, so the curves are exact (no grid).  One sort and two cumulative sums give the
counts at every threshold at once.

Counts are weighted: a row adds ``w * y`` to the positives and ``w * (1 - y)`` to the
negatives, so a probabilistic label ``y = q`` counts fractionally (q as a positive,
1 - q as a negative) and ``cbind(yes, no)`` trials enter as weights — the counting of
:meth:`fmstats.MaxentResults.confusion` (``noisy_confusion`` with independent
cells).  Precision is 1 where nothing is classed positive, recall 1 where there is no
positive weight, F is ``zero_division = 1`` where its denominator is 0
(:class:`fmstats.measures.Confusion`'s conventions).

Examples
--------
>>> import numpy as np
>>> from fmstats.prcurve import f_curve, roc_auc
>>> y = np.array([1, 0, 1, 1, 0, 0])
>>> s = np.array([0.9, 0.8, 0.7, 0.7, 0.2, 0.1])
>>> f_curve(y, s)[["threshold", "precision", "recall", "f", "tp", "fp"]].round(3)
   threshold  precision  recall      f   tp   fp
0        0.9       1.00   0.333  0.500  1.0  0.0
1        0.8       0.50   0.333  0.400  1.0  1.0
2        0.7       0.75   1.000  0.857  3.0  1.0
3        0.2       0.60   1.000  0.750  3.0  2.0
4        0.1       0.50   1.000  0.667  3.0  3.0
>>> round(roc_auc(y, s), 4)
0.7778
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._utils.boundary import public
from . import measures as _m
from ._utils.validation import (as_float_vector, check_nonempty, check_probabilities,
                                check_weights, raise_if_any)
from .exceptions import DataError, InvalidArgumentError, ResponseError

__all__ = ["f_curve", "roc_curve", "roc_auc", "best_row", "iso_f_precision", "operating_row",
           "auc_of", "iso_f_recall_start", "roc_from_curve"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["auc_of", "iso_f_recall_start", "roc_from_curve"]

CURVE_COLUMNS = ("threshold", "precision", "recall", "f", "tp", "fp", "fn", "tn")


def _inputs(y: Any, score: Any, sample_weight: Any):
    yy = check_probabilities("y", y)
    check_nonempty("y", yy.shape[0])
    s = as_float_vector("score", score, yy.shape[0])
    raise_if_any(~np.isfinite(s), DataError, lambda i, k: (
        f"`score` must be finite; got {s[i]} at position {i} ({k} non-finite value(s))."))
    w = check_weights("sample_weight", sample_weight, yy.shape[0])
    return yy, s, w


def _cut_counts(y: np.ndarray, s: np.ndarray, w: np.ndarray):
    """Distinct scores (descending) and TP, FP, FN, TN of "positive iff score >= t" at each."""
    order = np.argsort(-s, kind="stable")
    so = s[order]
    wo = w[order]
    tp = np.cumsum(wo * y[order])
    fp = np.cumsum(wo * (1.0 - y[order]))
    last = np.r_[so[1:] != so[:-1], True]   # the last row of each group of tied scores
    pos, neg = tp[-1], fp[-1]
    tp, fp = tp[last], fp[last]
    # cumulative sums of non-negative terms never decrease, so these are >= 0 exactly
    return so[last], tp, fp, pos - tp, neg - fp


@public
def f_curve(y: Any, score: Any = None, sample_weight: Any = None, *, measure=None, beta=None,
            alpha=None, **kwargs) -> pd.DataFrame:
    """Precision, recall and F at every distinct score used as the threshold.

    Parameters
    ----------
    y : array-like of shape (n,), or a fitted model
        Truth: 0/1 labels or probabilities in [0, 1] (counted fractionally).  A fitted
        model instead gives its own curve: ``f_curve(fit, newdata)`` is
        ``fit.f_curve(newdata)``.
    score : array-like of shape (n,)
        Scores, higher meaning more likely positive (probabilities, log-odds,
        decision values); a row is classed positive when its score is >= the threshold.
        With a fitted model as ``y``: its ``newdata`` (optional).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (default 1).  With a fitted model as ``y``: its ``weights``.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``measure``, ``beta`` and ``alpha``.
    beta, alpha : float, optional
        The F-measure (default F1), see :class:`~fmstats.measures.FMeasure`.
    **kwargs
        Further keyword arguments of the fitted model's ``f_curve`` (only when ``y`` is a
        fitted model; otherwise a TypeError).

    Returns
    -------
    pandas.DataFrame
        One row per distinct score, highest first: ``threshold``,
        ``precision``, ``recall``, ``f``, ``tp``, ``fp``, ``fn``, ``tn`` (weighted counts).

    Examples
    --------
    >>> import fmstats as fm
    >>> fm.f_curve([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2], beta=2)["f"].round(4).tolist()
    [0.5556, 0.5, 0.9091, 0.8333]
    """
    if hasattr(y, "f_curve") and not isinstance(y, (np.ndarray, pd.Series)):
        return y.f_curve(score, sample_weight, measure=measure, beta=beta, alpha=alpha, **kwargs)
    if hasattr(y, "predict"):
        raise InvalidArgumentError(
            f"`y`: a {type(y).__name__} is a fitted model without scores to threshold (no f_curve "
            "method); pass arrays f_curve(y, score) or a model with probabilities or decision "
            "values.")
    if kwargs:
        raise TypeError(f"f_curve() got unexpected keyword argument(s) {', '.join(kwargs)}")
    if score is None:
        raise DataError("`score` is missing: f_curve(y, score) needs one score per row of `y` "
                        "(or pass a fitted model as the first argument).")
    fm = _m.as_fmeasure(measure, beta, alpha)
    yy, s, w = _inputs(y, score, sample_weight)
    t, tp, fp, fn, tn = _cut_counts(yy, s, w)
    return _table(t, tp, fp, fn, tn, fm)


def _table(t, tp, fp, fn, tn, fm) -> pd.DataFrame:
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), 1.0)
        rec = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1.0), 1.0)
    f = np.asarray(fm.from_counts(tp, fp, fn), dtype=float).reshape(tp.shape)
    return pd.DataFrame(dict(zip(CURVE_COLUMNS, (t, prec, rec, f, tp, fp, fn, tn))))


def best_row(curve: pd.DataFrame) -> int:
    """Position of the F-optimal row of an :func:`f_curve` table.

    Among F values equal to within :data:`fmstats.measures.TIE_RTOL` the highest
    threshold (fewest positives) wins, the rule of :func:`fmstats.tune_threshold`
    (:func:`fmstats.measures.best_position`).

    Parameters
    ----------
    curve : pandas.DataFrame
        A table of :func:`f_curve` (thresholds highest first).

    Returns
    -------
    int
        The position (0-based) of the row.

    Examples
    --------
    >>> best_row(f_curve([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2]))
    2
    """
    if len(curve) == 0:
        raise DataError("`curve` has no rows.")
    return _m.best_position(curve["f"].to_numpy())


@public
def operating_row(curve: pd.DataFrame, threshold: float, strict: bool = False) -> int | None:
    """Position of the row of ``curve`` giving the classes of the rule ``score >= threshold``
    (``score > threshold`` with ``strict=True``); ``None`` when that rule classes nothing
    positive.

    Parameters
    ----------
    curve : pandas.DataFrame
        A table of :func:`f_curve` (thresholds highest first).
    threshold : float
        The threshold of the rule.
    strict : bool, default False
        Whether the rule is ``score > threshold`` instead of ``score >= threshold``.

    Returns
    -------
    int or None
        The position (0-based) of the row, or ``None``.

    Examples
    --------
    >>> c = f_curve([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2])
    >>> operating_row(c, 0.5), operating_row(c, 0.6, strict=True), operating_row(c, 0.9)
    (1, 0, None)
    """
    t = curve["threshold"].to_numpy()           # descending
    ok = t > threshold if strict else t >= threshold
    k = int(ok.sum())
    return None if k == 0 else k - 1


def roc_curve(y: Any, score: Any, sample_weight: Any = None) -> pd.DataFrame:
    """The weighted ROC curve: ``threshold``, ``fpr``, ``tpr``, starting at (0, 0) (threshold +inf).

    Raises :class:`~fmstats.exceptions.ResponseError` when ``y`` has no positive or no
    negative weight (the rates are then undefined).

    Parameters
    ----------
    y : array-like of shape (n,)
        Truth: 0/1 labels or probabilities in [0, 1] (counted fractionally).
    score : array-like of shape (n,)
        Scores, higher meaning more likely positive; a row is classed positive when its
        score is >= the threshold.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (default 1).

    Returns
    -------
    pandas.DataFrame
        Columns ``threshold``, ``fpr`` and ``tpr``, thresholds highest first.

    Examples
    --------
    >>> roc_curve([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2])["tpr"].tolist()
    [0.0, 0.5, 0.5, 1.0, 1.0]
    """
    yy, s, w = _inputs(y, score, sample_weight)
    t, tp, fp, fn, tn = _cut_counts(yy, s, w)
    return _roc_table(t, tp, fp, fn, tn)


def _roc_table(t, tp, fp, fn, tn) -> pd.DataFrame:
    pos, neg = tp[-1] + fn[-1], fp[-1] + tn[-1]
    for what, total in (("positive", pos), ("negative", neg)):
        if not total > 0:
            raise ResponseError(f"`y` has no {what} weight, so the ROC curve (and its AUC) is "
                                "undefined; it needs rows of both classes.")
    return pd.DataFrame({"threshold": np.r_[np.inf, t], "fpr": np.r_[0.0, fp / neg],
                         "tpr": np.r_[0.0, tp / pos]})


def roc_auc(y: Any, score: Any, sample_weight: Any = None) -> float:
    """Area under the weighted ROC curve by the trapezoid rule (ties give a diagonal step).

    Equals scikit-learn's ``roc_auc_score(y, score, sample_weight=w)`` for 0/1 labels.

    Parameters
    ----------
    y : array-like of shape (n,)
        Truth: 0/1 labels or probabilities in [0, 1] (counted fractionally).
    score : array-like of shape (n,)
        Scores, higher meaning more likely positive; a row is classed positive when its
        score is >= the threshold.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (default 1).

    Returns
    -------
    float
        The area under the ROC curve.

    Examples
    --------
    >>> roc_auc([1, 0, 1, 0], [0.8, 0.6, 0.4, 0.2])
    0.75
    """
    return auc_of(roc_curve(y, score, sample_weight))


def auc_of(roc: pd.DataFrame) -> float:
    """Trapezoid area under a :func:`roc_curve` table.

    Parameters
    ----------
    roc : pandas.DataFrame
        A :func:`roc_curve` table (columns ``fpr`` and ``tpr``, in order).

    Returns
    -------
    float
        The area.

    Examples
    --------
    >>> auc_of(roc_curve([1, 0], [0.9, 0.1]))
    1.0
    """
    x, v = roc["fpr"].to_numpy(), roc["tpr"].to_numpy()
    return float(np.sum(np.diff(x) * (v[1:] + v[:-1]) * 0.5))


def roc_from_curve(curve: pd.DataFrame) -> pd.DataFrame:
    """The ROC table of an :func:`f_curve` table (same counts, no second sort).

    Parameters
    ----------
    curve : pandas.DataFrame
        An :func:`f_curve` table.

    Returns
    -------
    pandas.DataFrame
        The :func:`roc_curve` table of the same scores.

    Examples
    --------
    >>> roc_from_curve(f_curve([1, 0], [0.9, 0.1]))["fpr"].tolist()
    [0.0, 0.0, 1.0]
    """
    return _roc_table(*(curve[c].to_numpy() for c in ("threshold", "tp", "fp", "fn", "tn")))


def iso_f_precision(f: float, recall: np.ndarray, measure=None, *, beta=None,
                    alpha=None) -> np.ndarray:
    """Precision on the iso-F line F(P, R) = f: P = alpha f R / (R - (1 - alpha) f).

    NaN where no precision in [0, 1] reaches F = f at that recall.

    Parameters
    ----------
    f : float
        The value of F on the line.
    recall : array-like
        Recalls R.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``measure``, ``beta`` and ``alpha``.
    beta, alpha : float, optional
        The F-measure (default F1), see :class:`~fmstats.measures.FMeasure`.

    Returns
    -------
    ndarray
        The precisions P, of the shape of ``recall``.

    Examples
    --------
    >>> iso_f_precision(0.5, np.array([0.2, 0.5, 1.0])).round(4).tolist()
    [nan, 0.5, 0.3333]
    """
    fm = _m.as_fmeasure(measure, beta, alpha)
    r = np.asarray(recall, dtype=float)
    den = r - (1.0 - fm.alpha) * f
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(den > 0, fm.alpha * f * r / np.where(den > 0, den, 1.0), np.nan)
    return np.where((p >= 0) & (p <= 1 + 1e-12), p, np.nan)


def iso_f_recall_start(f: float, measure) -> float:
    """The smallest recall on the iso-F line ``f`` (where precision is 1).

    Parameters
    ----------
    f : float
        The value of F on the line.
    measure : FMeasure
        The F-measure.

    Returns
    -------
    float
        The recall.

    Examples
    --------
    >>> iso_f_recall_start(0.5, _m.FMeasure())
    0.3333333333333333
    """
    a = measure.alpha
    return (1.0 - a) * f / (1.0 - a * f)
