"""Intervals for F, precision and recall from labels and predictions: :func:`f_interval`,
:func:`precision_interval`, :func:`recall_interval`, and :func:`interval_of_rows` (what a
fitted model's ``measure(newdata, ci=True)`` calls)."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy import stats

from .. import measures as _m
from .._utils.validation import (check_binary, check_choice, check_random_state, check_scalar,
                                 check_weights, warn)
from ..exceptions import DataError, IntervalWarning, InvalidArgumentError
from ._interval import MeasureInterval, check_B, check_level, check_method
from ._percentile import tail_quantiles
from ._units import Units, binary_units, matrix_units
from .._utils.boundary import public

__all__ = ["f_interval", "precision_interval", "recall_interval", "interval_of_rows",
           "F_METHODS", "PROPORTION_METHODS", "DEFAULT_PRIOR", "units_of", "check_prior",
           "mc_interval", "excluded"]

#: The methods of an interval for F (``f_interval(method=)``, ``measure(ci_method=)``).
F_METHODS = ("delta", "bayes", "bootstrap")
PROPORTION_METHODS = ("wilson", "clopper-pearson")
#: Goutte & Gaussier's Dirichlet prior lambda: 0.5 is Jeffreys' prior of the multinomial.
#: Measured (benchmarks/inference/bench_f_intervals.py, part a, 300 data sets per cell): lambda = 0.5 and
#: 1 cover alike (within 0.007 of each other in all nine cells, Monte-Carlo SE 0.013); at
#: n = 200, prevalence 0.05 (about 10 positives) 0.960 and 0.953.  0.5 is kept as the prior
#: that adds the least to the counts.
DEFAULT_PRIOR = 0.5


def check_prior(prior) -> float:
    return float(check_scalar("prior", prior, low=0, low_open=True))


def _total_weight(w: np.ndarray) -> float:
    total = float(w.sum())
    if total < 2:
        raise InvalidArgumentError(
            f"`sample_weight` sums to {total:.6g}: the intervals read the weights as frequency "
            "weights (a weight of 2 counts a row twice, the sum is the sample size), so they "
            "must sum to at least 2; rescale normalised weights to the number of rows they "
            "stand for.")
    return total


def _no_positives(name: str) -> DataError:
    return DataError(
        f"`{name}` has no positive label (no row with truth 1): F is then fixed by the "
        "predictions alone -- 0 when anything is predicted positive, 1 (zero_division, "
        "the rule 0/0 = 1) when nothing is -- and has no sampling variability to put "
        "an interval on.")


def units_of(y_true, preds: list, names: list, sample_weight, alpha: float, average: str,
             zero_division: float = 1.0) -> Units:
    """Checked units of 0/1 vectors (average 'binary') or label matrices ('micro', 'macro')."""
    check_choice("average", average, ("binary", "micro", "macro"))
    matrix = sp.issparse(y_true) or np.ndim(y_true) == 2
    if matrix:
        if average == "binary":
            raise InvalidArgumentError(
                "`average` must be 'micro' or 'macro' for (n, m) label matrices; got 'binary'.")
        Y = _m.label_matrix("y_true", y_true)
        P = []
        for name, p in zip(names, preds):
            M = _m.label_matrix(name, p)
            if M.shape != Y.shape:
                raise InvalidArgumentError(
                    f"`{name}` must have the shape of `y_true` {Y.shape}; got {M.shape}.")
            P.append(M)
        w = check_weights("sample_weight", sample_weight, Y.shape[0])
        _total_weight(w)
        if not (np.asarray(Y.sum(axis=0)).ravel() > 0).any():
            raise _no_positives("y_true")
        return matrix_units(Y, P, w, alpha, zero_division, average)
    if average != "binary":
        raise InvalidArgumentError(
            f"`average` must be 'binary' for 1-d `y_true`; got {average!r} (pass (n, m) label "
            "matrices, e.g. one-hot classes, for micro and macro averages).")
    y = check_binary("y_true", y_true)
    if y.shape[0] == 0:
        raise DataError("`y_true` has no rows; at least one row is needed.")
    P = [check_binary(name, p, y.shape[0]) for name, p in zip(names, preds)]
    w = check_weights("sample_weight", sample_weight, y.shape[0])
    _total_weight(w)
    if not (w @ y > 0):
        raise _no_positives("y_true")
    return binary_units(y, P, w, alpha, zero_division)


def mc_interval(draws: np.ndarray, level: float) -> tuple[float, float]:
    """Equal-tailed interval of Monte-Carlo draws (numpy's linear quantiles)."""
    lo, hi = tail_quantiles(draws, level)
    return float(lo), float(hi)


def _boundary(units: Units) -> str:
    """Why F sits on the boundary of [0, 1] (TP = 0, or F = 1), or ""."""
    T, Pt, Yt = units.totals(0)
    if np.all(T == 0):
        return "TP = 0"
    return "FP = FN = 0, F = 1" if np.allclose(T, Pt) and np.allclose(T, Yt) else ""


def excluded(label: str, est: float, lo: float, hi: float, method: str, level: float,
             why: str = "", where: str = "f_interval") -> str:
    """The note of a (Monte-Carlo) interval that excludes its estimate, with an
    :class:`IntervalWarning`; "" when it contains it.  A credible interval of F at perfect
    or at no correct predictions lies inside (0, 1) while the estimate is 1 or 0: reported,
    not hidden."""
    if lo <= est <= hi:
        return ""
    kind = "credible interval" if method == "bayes" else "interval"
    note = (f"the {level:.0%} {kind} [{lo:.4g}, {hi:.4g}] excludes the estimate {label} = "
            f"{est:.4g}" + (f" ({why}: the estimate is on the boundary, where the "
                            f"{'posterior' if method == 'bayes' else 'replicates'} cannot "
                            "reach it)" if why else ""))
    warn(f"{where}: {note}.", IntervalWarning)
    return note


def _interval(units: Units, fm, method: str, level: float, B, random_state, prior: float,
              average: str) -> MeasureInterval:
    est = units.estimate(0)
    n = float(units.c.sum())
    if method == "delta":
        se = units.delta_se()
        z = stats.norm.ppf(0.5 + level / 2)
        note = ""
        if se == 0:
            why = _boundary(units) or "FP = FN = 0, F = 1"
            note = (f"the delta-method interval has width 0 ({why}): its normal approximation "
                    "fails on the boundary; method='bayes' holds there")
            warn(f"f_interval: {note}.", IntervalWarning)
        return MeasureInterval(fm.name, est, max(0.0, est - z * se), min(1.0, est + z * se),
                               "delta", level, average, se, n, note=note)
    if method == "bayes" and not units.cells and average == "binary":
        raise InvalidArgumentError(
            "`method`='bayes' needs 0/1 labels (Goutte & Gaussier's multinomial of the "
            "confusion cells); these labels are probabilities: use method='delta' or "
            "'bootstrap'.")
    B = check_B(B, level)
    rng = check_random_state(random_state)
    d = units.draws(method, B, rng, prior)
    lo, hi = mc_interval(d, level)
    note = ("" if units.cells or method == "bootstrap" else
            "posterior over the observed rows (the Bayesian bootstrap: no prior on unseen "
            "label patterns)")
    out = excluded(fm.name, est, lo, hi, method, level, _boundary(units))
    note = "; ".join(t for t in (note, out) if t)
    return MeasureInterval(fm.name, est, lo, hi, method, level, average, float(d.std(ddof=1)),
                           n, B=B, prior=prior if method == "bayes" and units.cells else None,
                           note=note, draws=d)


@public
def f_interval(y_true: Any, y_pred: Any, *, beta: float | None = None,
               alpha: float | None = None, measure=None, average: str = "binary",
               method: str = "delta", level: float = 0.95, sample_weight: Any = None,
               B: int | None = None, random_state=None, prior: float = DEFAULT_PRIOR
               ) -> MeasureInterval:
    """An F-measure with its confidence (or credible) interval.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, m)
        Truth: a 0/1 vector (``average="binary"``), or an (n, m) 0/1 label matrix, dense or
        scipy.sparse (``"micro"``, ``"macro"``; single-label multiclass data as one-hot rows).
    y_pred : array-like of the shape of ``y_true``
        Predicted 0/1 classes.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`fmstats.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``measure``, ``beta``, ``alpha``.
    average : {"binary", "micro", "macro"}, default "binary"
        ``"micro"``: F of the label-summed counts; ``"macro"``: the mean over labels of the
        per-label F (as :func:`fmstats.measures.f_score`).
    method : {"delta", "bayes", "bootstrap"}, default "delta"
        * ``"delta"``: estimate -/+ z SE with the delta-method SE of Takahashi et al. (2022)
          for binary, micro and macro F1, generalised to F_beta (module notes of
          ``fmstats.inference``); clipped to [0, 1].  Width 0 (with an
          :class:`~fmstats.exceptions.IntervalWarning`) where TP = 0 or F = 1.
        * ``"bayes"``: the equal-tailed credible interval of Goutte & Gaussier's (2005)
          posterior: the confusion cells' probabilities are Dirichlet(counts + ``prior``),
          F is drawn ``B`` times.  At TP = 0 or F = 1 every draw lies inside (0, 1), so the
          interval excludes the estimate: an :class:`~fmstats.exceptions.IntervalWarning`
          says so (as the delta method's width 0 there).
        * ``"bootstrap"``: the percentile interval of ``B`` case-bootstrap replicates.
    level : float, default 0.95
        The confidence level, in (0, 1).
    sample_weight : array-like of shape (n,), optional
        Frequency weights (a weight of 2 counts a row twice; the interval equals that of the
        data with duplicated rows, and the weights must sum to at least 2).
    B : int, optional
        Draws of the Monte-Carlo methods (default 2000; at least 100 and 5 in each tail).
    random_state : int, SeedSequence or Generator, optional
        Seed of the Monte-Carlo methods.
    prior : float, default 0.5
        Goutte & Gaussier's lambda (``method="bayes"``), added to every cell's count; 0.5 is
        Jeffreys' prior, chosen by measurement (``benchmarks/inference/bench_f_intervals.py``).

    Returns
    -------
    MeasureInterval
        ``estimate``, ``low``, ``high``, ``method``, ``level``, ``se`` (the bootstrap's and
        the posterior's standard deviation for the Monte-Carlo methods) and, for those,
        ``draws``.

    Notes
    -----
    Coverage of the true F of a fixed rule, measured over 300 simulated logistic data sets
    per cell (``benchmarks/inference/bench_f_intervals.py``; the table is in the user guide): delta and
    bayes within [0.93, 0.97] at n >= 1000; at n = 200 with prevalence 0.05 (about 10
    positives) the delta interval undercovers and the Bayes interval holds better.

    fmstats differs from the ``confidenceinterval`` package for binary and macro F1 (its
    macro-F1 SE, 0.0157 at n = 2000 in a simulation where the sd of the estimate was 0.0120
    and this delta SE 0.0118, does not follow the paper); the two agree for micro F1.

    No positive label in ``y_true`` raises a :class:`~fmstats.exceptions.DataError`: F is
    then fixed by the predictions (1 when nothing is predicted positive, the rule 0/0 = 1;
    else 0) and has no interval.

    Examples
    --------
    >>> import fmstats as fm
    >>> y = [1, 1, 0, 1, 0, 1, 1, 0, 0, 1]
    >>> p = [1, 0, 0, 1, 1, 1, 1, 0, 0, 1]
    >>> fm.f_interval(y, p, method="bayes", random_state=0)
    <MeasureInterval F1 = 0.8333, 95% credible interval [0.4918, 0.95] (bayes, binary, n = 10)>
    """
    fm = _m.as_fmeasure(measure, beta, alpha)
    check_method(method, F_METHODS)
    level = check_level(level)
    prior = check_prior(prior)
    units = units_of(y_true, [y_pred], ["y_pred"], sample_weight, fm.alpha, average)
    return _interval(units, fm, method, level, B, random_state, prior, average)


def interval_of_rows(y, yhat, w, fm, method: str, level: float = 0.95, B=None,
                     random_state=None, prior: float = DEFAULT_PRIOR,
                     name: str = "method") -> MeasureInterval:
    """The interval of binary rows: labels ``y`` in [0, 1] (probabilistic labels count
    fractionally), classes ``yhat``, count weights ``w``.  What ``measure(ci=True)`` calls.

    Parameters
    ----------
    y : array-like
        The labels, in [0, 1].
    yhat : array-like
        The predicted classes (0/1).
    w : array-like
        The rows' count weights.
    fm : FMeasure
        The F-measure.
    method : {"delta", "bayes", "bootstrap"}
        The interval's method.
    level : float, default 0.95
        The confidence level.
    B : int, optional
        Monte-Carlo draws of the Bayes and bootstrap intervals (None: the default).
    random_state : int, numpy.random.Generator or None
        Seed of the draws.
    prior : float, default DEFAULT_PRIOR
        The Dirichlet prior of the Bayes interval.
    name : str, default "method"
        The argument that chose the method, for the error messages.

    Returns
    -------
    MeasureInterval
        The F of the rows with its interval.
    """
    check_method(method, F_METHODS, name)
    level = check_level(level)
    prior = check_prior(prior)
    y, yhat, w = (np.asarray(v, dtype=float) for v in (y, yhat, w))
    if y.shape[0] == 0:
        raise DataError("no rows to measure: every row was dropped.")
    _total_weight(w)
    if not (w @ y > 0):
        raise _no_positives("the response")
    units = binary_units(y, [yhat], w, fm.alpha, 1.0)
    return _interval(units, fm, method, level, B, random_state, prior, "binary")


# ------------------------------------------------------------------ precision and recall
def _proportion(x: float, n: float, method: str, level: float) -> tuple[float, float]:
    a = 1 - level
    if method == "wilson":
        z = stats.norm.ppf(1 - a / 2)
        p = x / n
        den = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
        return float(max(0.0, centre - half)), float(min(1.0, centre + half))
    lo = 0.0 if x <= 0 else float(stats.beta.ppf(a / 2, x, n - x + 1))
    hi = 1.0 if x >= n else float(stats.beta.ppf(1 - a / 2, x + 1, n - x))
    return lo, hi


def _proportion_interval(kind: str, y_true, y_pred, method, level, sample_weight):
    check_method(method, PROPORTION_METHODS)
    level = check_level(level)
    c = _m.confusion(y_true, y_pred, sample_weight)
    if kind == "precision":
        x, n = c.tp, c.tp + c.fp
        empty = ("y_pred", "no predicted positive: precision TP / (TP + FP) is 0/0 (1 by "
                 "zero_division) and has no interval")
    else:
        x, n = c.tp, c.tp + c.fn
        empty = ("y_true", "no positive label: recall TP / (TP + FN) is 0/0 (1 by "
                 "zero_division) and has no interval")
    if not n > 0:
        raise DataError(f"`{empty[0]}` has {empty[1]}.")
    lo, hi = _proportion(x, n, method, level)
    return MeasureInterval(kind, x / n, lo, hi, method, level, "binary", float("nan"), n)


_PROPORTION_DOC = """{what} with its {Wilson} or Clopper-Pearson interval.

    {what} is the proportion TP / ({den}) of the {rows}, so its intervals are those of a
    binomial proportion: Wilson's score interval or the exact Clopper-Pearson interval
    (statsmodels' ``proportion_confint(x, n, method="wilson" | "beta")``, to which they are
    equal).  With weights, x and n are the weighted counts.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Truth, 0/1.
    y_pred : array-like of shape (n,)
        Predicted classes, 0/1.
    method : {{"wilson", "clopper-pearson"}}, default "wilson"
        The interval.
    level : float, default 0.95
        The confidence level, in (0, 1).
    sample_weight : array-like of shape (n,), optional
        Frequency weights.

    Returns
    -------
    MeasureInterval
        ``estimate`` = {what_lower}, ``n`` = {den}.

    Examples
    --------
    >>> import fmstats as fm
    >>> fm.{fn}([1, 1, 0, 1, 0, 1], [1, 0, 1, 1, 0, 1], method="clopper-pearson")
    {example}
"""


def precision_interval(y_true: Any, y_pred: Any, *, method: str = "wilson",
                       level: float = 0.95, sample_weight: Any = None) -> MeasureInterval:
    return _proportion_interval("precision", y_true, y_pred, method, level, sample_weight)


def recall_interval(y_true: Any, y_pred: Any, *, method: str = "wilson",
                    level: float = 0.95, sample_weight: Any = None) -> MeasureInterval:
    return _proportion_interval("recall", y_true, y_pred, method, level, sample_weight)


precision_interval.__doc__ = _PROPORTION_DOC.format(
    what="Precision", what_lower="precision", Wilson="Wilson", den="TP + FP",
    rows="rows predicted positive", fn="precision_interval",
    example="<MeasureInterval precision = 0.75, 95% CI [0.1941, 0.9937] (clopper-pearson, "
            "binary, n = 4)>")
recall_interval.__doc__ = _PROPORTION_DOC.format(
    what="Recall", what_lower="recall", Wilson="Wilson", den="TP + FN",
    rows="positive rows", fn="recall_interval",
    example="<MeasureInterval recall = 0.75, 95% CI [0.1941, 0.9937] (clopper-pearson, "
            "binary, n = 4)>")
