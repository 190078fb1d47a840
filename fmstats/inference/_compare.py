"""Two classifiers on the same rows: :func:`compare` and its result :class:`Comparison`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from .. import measures as _m
from .._utils.validation import check_random_state, describe
from ..exceptions import InvalidArgumentError, ModelComparisonError
from ._finterval import DEFAULT_PRIOR, check_prior, excluded, mc_interval, units_of
from ._interval import MeasureInterval, check_B, check_level, check_method
from ._units import binary_units
from .._utils.boundary import public

__all__ = ["compare", "Comparison", "COMPARE_METHODS"]

COMPARE_METHODS = ("paired-bootstrap", "delta", "bayes")


@dataclass(frozen=True, eq=False)
class Comparison:
    """The difference in F of two classifiers on the same rows (:func:`compare`).

    Parameters
    ----------
    measure : str
        The F-measure's name (``"F1"``, ...).
    f_a, f_b : float
        F of classifier a and of classifier b.
    difference : MeasureInterval
        ``f_a - f_b`` with its interval (and, for the Monte-Carlo methods, its draws).
    p_value : float
        Two-sided p-value of "equal F": the delta method's normal test, the paired
        bootstrap's (the smallest level at which the percentile interval excludes 0), or the
        Bayes posterior's two-sided tail probability 2 min(P(d <= 0), P(d >= 0)).
    method : str
        ``"paired-bootstrap"``, ``"delta"`` or ``"bayes"``.
    prob_a_better : float
        Bayes only: the posterior probability that F_a > F_b (NaN otherwise).
    n : float
        The number of rows (total frequency weight).
    names : tuple of str
        Labels of the two classifiers (their calls, or ``("a", "b")``).

    Examples
    --------
    >>> import fmstats as fm
    >>> y = [1, 1, 0, 1, 0, 1, 1, 0, 0, 1] * 20
    >>> a = [1, 0, 0, 1, 1, 1, 1, 0, 0, 1] * 20
    >>> b = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1] * 20
    >>> cmp = fm.compare(a, b, y_true=y, method="delta")
    >>> round(cmp.difference.estimate, 4), cmp.p_value < 0.01
    (0.2333, True)
    """

    measure: str
    f_a: float
    f_b: float
    difference: MeasureInterval
    p_value: float
    method: str
    prob_a_better: float = float("nan")
    n: float = float("nan")
    names: tuple = ("a", "b")

    @property
    def estimate(self) -> float:
        """``f_a - f_b``."""
        return self.difference.estimate

    @property
    def low(self) -> float:
        """The lower limit of the difference's interval."""
        return self.difference.low

    @property
    def high(self) -> float:
        """The upper limit of the difference's interval."""
        return self.difference.high

    def tidy(self) -> pd.DataFrame:
        """One row: measure, f_a, f_b, difference, conf_low, conf_high, p_value, method.

        Returns
        -------
        pandas.DataFrame
            The one-row table.
        """
        d = self.difference
        return pd.DataFrame([{"measure": self.measure, "f_a": self.f_a, "f_b": self.f_b,
                              "difference": d.estimate, "conf_low": d.low,
                              "conf_high": d.high, "p_value": self.p_value,
                              "prob_a_better": self.prob_a_better, "method": self.method,
                              "level": d.level, "n": self.n}])

    def __repr__(self) -> str:
        d = self.difference
        extra = (f", P(a better) = {self.prob_a_better:.3f}"
                 if np.isfinite(self.prob_a_better) else "")
        return (f"<Comparison {self.measure}: a {self.f_a:.4f} - b {self.f_b:.4f} = "
                f"{d.estimate:.4f}, {100 * d.level:g}% interval [{d.low:.4f}, {d.high:.4f}], "
                f"p = {self.p_value:.3g}{extra} ({self.method}, n = {self.n:.6g})>")

    __str__ = __repr__


def _model_rows(fit, name: str, newdata):
    hook = getattr(fit, "_class_rows", None)
    if not callable(hook):
        raise InvalidArgumentError(
            f"`{name}` must be a fitted fmstats model with scores (maxent, fmaxent, wsvm, "
            f"tune_threshold(), cv_tune() ...) or 0/1 predictions; got {describe(fit)}.")
    return hook(newdata)


def _rows_of_models(a, b, newdata):
    ya, pa, wa, ka = _model_rows(a, "a", newdata)
    yb, pb, wb, kb = _model_rows(b, "b", newdata)
    where = "`newdata`" if newdata is not None else "their training data"
    if ka is not None and kb is not None:
        ka, kb = pd.Index(ka), pd.Index(kb)
        if not ka.equals(kb):
            only = ka.symmetric_difference(kb)
            raise ModelComparisonError(
                f"`a` and `b` classify different rows of {where} ({len(ka)} and {len(kb)} "
                f"rows; {len(only)} used by one only, e.g. row {only[0]!r} -- fitted to "
                "different rows, or missing values dropped by one model only); compare them "
                "on rows both classify (drop the missing values first).")
    if len(ya) != len(yb) or not np.array_equal(ya, yb):   # same rows: the same values
        raise ModelComparisonError(
            f"`a` and `b` see different responses on {where} ({len(ya)} and {len(yb)} rows): "
            "they were fitted to different rows or different responses, and their F cannot "
            "be compared row by row.")
    if not np.allclose(wa, wb, rtol=1e-12, atol=0):
        raise ModelComparisonError(
            f"`a` and `b` weight the rows of {where} differently (prior weights or trials); "
            "their F are counted on different scales and cannot be compared row by row.")
    return ya, pa, pb, wa


@public
def compare(a: Any, b: Any, newdata: pd.DataFrame | None = None, *, y_true: Any = None,
            beta: float | None = None, alpha: float | None = None, measure=None,
            method: str = "paired-bootstrap", level: float = 0.95, B: int | None = None,
            random_state=None, sample_weight: Any = None, prior: float = DEFAULT_PRIOR,
            average: str = "binary") -> Comparison:
    """The difference in F of two classifiers on the same rows, with interval and p-value.

    Parameters
    ----------
    a, b : fitted model or array-like
        Two fitted fmstats models with scores (``maxent``, ``fmaxent``, ``wsvm``, ``fsvm``,
        the results of ``tune_threshold`` or ``cv_tune``: their class predictions are
        compared), or two 0/1 prediction vectors (label matrices for micro and macro F) with
        ``y_true``.
    newdata : DataFrame, optional
        For models: the rows to compare them on (with the response); default their training
        rows, which must then be the same rows (optimistic for both; prefer held-out rows).
    y_true : array-like, optional
        For prediction vectors: the truth.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`fmstats.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``measure``, ``beta``, ``alpha``.
    method : {"paired-bootstrap", "delta", "bayes"}, default "paired-bootstrap"
        * ``"paired-bootstrap"``: B case resamples of the rows, both F on each; the percentile
          interval of F_a - F_b and the p-value that inverts it,
          min(1, 2 (1 + #{d* <= 0 or >= 0, the smaller}) / (B + 1));
        * ``"delta"``: the delta method on the paired rows (the influences of F_a and F_b
          subtracted, so the correlation of the two classifiers is kept) and a z test;
        * ``"bayes"``: Goutte & Gaussier's posterior, paired: the cells of (truth, class a,
          class b) are Dirichlet(counts + ``prior``); the credible interval of F_a - F_b,
          ``prob_a_better`` = P(F_a > F_b), and 2 min(P(d <= 0), P(d >= 0)) as p-value.
    level : float, default 0.95
        The level of the interval, in (0, 1).
    B : int, optional
        Draws of the Monte-Carlo methods (default 2000).
    random_state : int, SeedSequence or Generator, optional
        Seed of the Monte-Carlo methods.
    sample_weight : array-like, optional
        For prediction vectors: frequency weights of the rows.
    prior : float, default 0.5
        The Dirichlet prior of ``method="bayes"``.
    average : {"binary", "micro", "macro"}, default "binary"
        For prediction matrices: the average of F.

    Returns
    -------
    Comparison

    Notes
    -----
    Type I error at 5 % and power at a difference of 0.03, measured over simulated data sets
    (``benchmarks/inference/bench_f_intervals.py``, part c; the table is in the user guide).  Two
    models fitted to different rows, or classifying different rows of ``newdata`` (missing
    values dropped by one only), raise :class:`~fmstats.exceptions.ModelComparisonError`.

    Examples
    --------
    >>> import fmstats as fm
    >>> y = [1, 1, 0, 1, 0, 1, 1, 0, 0, 1] * 30
    >>> a = [1, 0, 0, 1, 1, 1, 1, 0, 0, 1] * 30
    >>> b = [1, 0, 0, 0, 1, 1, 0, 0, 0, 1] * 30
    >>> fm.compare(a, b, y_true=y, random_state=0)
    <Comparison F1: a 0.8333 - b 0.6000 = 0.2333, 95% interval [0.1804, 0.2888], p = 0.001
    (paired-bootstrap, n = 300)>
    """
    fm = _m.as_fmeasure(measure, beta, alpha)
    check_method(method, COMPARE_METHODS)
    level = check_level(level)
    prior = check_prior(prior)
    models = [callable(getattr(v, "predict", None)) for v in (a, b)]
    if any(models):
        if not all(models):
            raise InvalidArgumentError(
                "`a` and `b` must both be fitted models or both be prediction vectors; got "
                f"{describe(a)} and {describe(b)}.")
        if y_true is not None or sample_weight is not None:
            raise InvalidArgumentError(
                "`y_true` and `sample_weight` are for prediction vectors; fitted models take "
                "the truth (and their weights) from `newdata` or their training rows.")
        y, pa, pb, w = _rows_of_models(a, b, newdata)
        if not (w @ y > 0):
            raise InvalidArgumentError("the response has no positive row on these rows: F is "
                                       "fixed by the predictions and cannot be compared.")
        units = binary_units(y, [pa, pb], w, fm.alpha, 1.0)
        names = (str(getattr(a, "call", "a")), str(getattr(b, "call", "b")))
        average = "binary"
    else:
        if newdata is not None:
            raise InvalidArgumentError(
                "`newdata` is for fitted models; for prediction vectors pass the truth as "
                "`y_true=`.")
        if y_true is None:
            raise InvalidArgumentError("`y_true` is missing: compare(pred_a, pred_b, "
                                       "y_true=y) needs the truth of the rows.")
        units = units_of(y_true, [a, b], ["a", "b"], sample_weight, fm.alpha, average)
        names = ("a", "b")
    f_a, f_b = units.estimate(0), units.estimate(1)
    est = f_a - f_b
    n = float(units.c.sum())
    label = f"{fm.name}(a) - {fm.name}(b)"
    if method == "delta":
        se = units.delta_se(contrast=True)
        z = stats.norm.ppf(0.5 + level / 2)
        p = float(2 * stats.norm.sf(abs(est) / se)) if se > 0 else (1.0 if est == 0 else 0.0)
        diff = MeasureInterval(label, est, est - z * se, est + z * se, "delta", level,
                               average, se, n)
        return Comparison(fm.name, f_a, f_b, diff, p, method, n=n, names=names)
    if method == "bayes" and not units.cells and average == "binary":
        raise InvalidArgumentError(
            "`method`='bayes' needs 0/1 labels (the multinomial of the confusion cells); "
            "these labels are probabilities: use 'delta' or 'paired-bootstrap'.")
    B = check_B(B, level)
    kind = "bootstrap" if method == "paired-bootstrap" else "bayes"
    d = units.draws(kind, B, check_random_state(random_state), prior, contrast=True)
    lo, hi = mc_interval(d, level)
    below, above = int(np.count_nonzero(d <= 0)), int(np.count_nonzero(d >= 0))
    if kind == "bootstrap":
        p = min(1.0, 2 * (1 + min(below, above)) / (B + 1))
        better = float("nan")
    else:
        p = min(1.0, 2 * min(below, above) / B)
        better = float(np.count_nonzero(d > 0) / B)
    note = excluded(label, est, lo, hi, kind, level, where="compare")
    diff = MeasureInterval(label, est, lo, hi, method, level, average, float(d.std(ddof=1)),
                           n, B=B, prior=prior if kind == "bayes" and units.cells else None,
                           note=note, draws=d)
    return Comparison(fm.name, f_a, f_b, diff, p, method, prob_a_better=better, n=n,
                      names=names)
