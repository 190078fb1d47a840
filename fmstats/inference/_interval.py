"""The frozen result of every interval of fmstats (:class:`MeasureInterval`) and the checks of
the arguments all interval functions share (``level``, ``B``, ``method``)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._utils.validation import check_level, check_scalar, describe
from ..exceptions import InvalidArgumentError

__all__ = ["MeasureInterval", "check_level", "check_B", "DEFAULT_B", "quantile_mc_error"]

#: Bootstrap replicates or posterior draws when ``B`` is not given.  The Monte-Carlo error of
#: a 2.5 % quantile of 2000 draws is about 0.004 standard deviations of the distribution
#: (sqrt(q(1 - q)/B) / density), far below the width of any interval it bounds.
DEFAULT_B = 2000
#: The fewest draws in each tail of a Monte-Carlo interval (B (1 - level) / 2 >= this).
MIN_TAIL = 5


def check_B(B, level: float, name: str = "B") -> int:
    """The number of Monte-Carlo draws: an integer with at least ``MIN_TAIL`` draws in each
    tail of the interval at ``level`` (and at least 100).

    Parameters
    ----------
    B : int or None
        The number of draws given; None takes the default (``DEFAULT_B``).
    level : float
        The confidence level of the interval the draws serve (already checked).
    name : str, default "B"
        The argument's name, for the error message.

    Returns
    -------
    int
        ``B`` as an int; an :class:`~fmstats.exceptions.InvalidArgumentError` naming ``name``
        when it is not an integer or leaves too few draws in a tail.
    """
    B = int(check_scalar(name, DEFAULT_B if B is None else B, low=1, integer=True))
    need = max(100, math.ceil(2 * MIN_TAIL / (1 - level)))
    if B < need:
        raise InvalidArgumentError(
            f"`{name}` must be at least {need} for a {100 * level:g}% interval (at least 100 "
            f"draws, and {MIN_TAIL} in each tail: B (1 - level) / 2 >= {MIN_TAIL}); got {B}.")
    return B


def quantile_mc_error(x, prob: float) -> float:
    """Monte-Carlo standard error of the ``prob`` quantile of B replicates ``x`` (finite ones):
    half the distance between the order statistics one binomial sd (sqrt(B p (1 - p))) either
    side of it -- how far the quantile would move with other replicates.  ``inf`` when that
    spread reaches past the replicates (too few of them for this quantile).

    Parameters
    ----------
    x : array-like
        The replicates.
    prob : float
        The quantile's probability, in (0, 1).

    Returns
    -------
    float
        The Monte-Carlo standard error (``inf`` with fewer than 2 finite replicates or too
        few of them for this quantile).
    """
    x = np.sort(np.asarray(x, dtype=float)[np.isfinite(np.asarray(x, dtype=float))])
    B = x.size
    if B < 2:
        return np.inf
    half = np.sqrt(B * prob * (1 - prob))
    lo, hi = int(np.floor(B * prob - half)), int(np.ceil(B * prob + half))
    if lo < 0 or hi > B - 1:
        return np.inf
    return float(x[hi] - x[lo]) / 2.0


def check_method(method, methods: tuple, name: str = "method") -> str:
    if method not in methods:
        what = " (the method of the interval)" if name != "method" else ""
        raise InvalidArgumentError(
            f"`{name}` must be one of {', '.join(map(repr, methods))}{what}; got "
            f"{describe(method)}.")
    return method


@dataclass(frozen=True, eq=False)
class MeasureInterval:
    """An estimate of a measure (F, precision, recall, or a difference of F) with its interval.

    Returned by :func:`f_interval`, :func:`precision_interval`, :func:`recall_interval`,
    every fitted model's ``measure(newdata, ci=True)`` and (for differences)
    :func:`compare`.  Frozen; pickles.  ``low <= estimate <= high`` for the delta, Wilson and
    Clopper-Pearson intervals; a Monte-Carlo interval (bootstrap, Bayes) need not contain
    the estimate when the distribution is very skewed.

    Parameters
    ----------
    measure : str
        What is estimated: ``"F1"``, ``"F2"``, ... (see :class:`fmstats.FMeasure`),
        ``"precision"``, ``"recall"``, or ``"F1(a) - F1(b)"`` for a comparison.
    estimate : float
        The value on the data.
    low, high : float
        The interval's limits.
    method : str
        How the interval was made (``"delta"``, ``"bayes"``, ``"bootstrap"``, ``"wilson"``,
        ``"clopper-pearson"``, ...).
    level : float
        The confidence (or credible) level.
    average : str
        ``"binary"``, ``"micro"`` or ``"macro"``.
    se : float
        The standard error (delta), the standard deviation of the replicates (bootstrap) or
        of the posterior (Bayes); NaN for the proportion intervals.
    n : float
        The sample size: the number of rows, or the total of the frequency weights.
    B : int or None
        Monte-Carlo draws (bootstrap replicates or posterior draws), else None.
    prior : float or None
        The Dirichlet prior of the Bayes posterior (Goutte & Gaussier's lambda), else None.
    note : str
        Anything the reader of the interval must know (e.g. why it is degenerate).
    draws : ndarray or None
        The bootstrap replicates or the posterior draws (Monte-Carlo methods only).

    Examples
    --------
    >>> import fmstats as fm
    >>> ci = fm.f_interval([1, 1, 0, 1, 0, 1, 1, 0], [1, 0, 0, 1, 1, 1, 1, 0])
    >>> ci
    <MeasureInterval F1 = 0.8, 95% CI [0.5284, 1] (delta, binary, n = 8)>
    >>> ci.estimate, ci.method
    (0.8, 'delta')
    """

    measure: str
    estimate: float
    low: float
    high: float
    method: str
    level: float
    average: str = "binary"
    se: float = float("nan")
    n: float = float("nan")
    B: int | None = None
    prior: float | None = None
    note: str = ""
    draws: np.ndarray | None = field(default=None, repr=False)

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """Whether ``low <= value <= high``.

        Parameters
        ----------
        value : float
            The value to test (e.g. a known population value in a simulation).

        Returns
        -------
        bool
            True when the value lies in the closed interval.
        """
        return bool(self.low <= float(value) <= self.high)

    def as_tuple(self) -> tuple[float, float]:
        """``(low, high)``.

        Returns
        -------
        tuple of float
            The lower and upper limits.
        """
        return (self.low, self.high)

    def prob_greater(self, other: "MeasureInterval") -> float:
        """Posterior probability that this measure exceeds ``other``'s (Goutte & Gaussier).

        Both must be Bayes intervals (``method="bayes"``) of data that are independent of
        each other (two test sets); for two classifiers on the same rows use
        :func:`compare` (``method="bayes"``), whose posterior keeps the pairing.

        Parameters
        ----------
        other : MeasureInterval
            A second Bayes interval.

        Returns
        -------
        float
            The share of pairs of posterior draws where this draw is larger (ties count half).
        """
        for name, iv in (("self", self), ("other", other)):
            if not isinstance(iv, MeasureInterval) or iv.method != "bayes" or iv.draws is None:
                raise InvalidArgumentError(
                    f"prob_greater() needs two Bayes intervals (method='bayes'); `{name}` is "
                    f"{describe(iv)}.")
        a, b = np.sort(self.draws), np.sort(other.draws)
        below = np.searchsorted(b, a, side="left")
        upto = np.searchsorted(b, a, side="right")
        return float((below + upto).sum() / (2.0 * a.size * b.size))

    def tidy(self) -> pd.DataFrame:
        """One row: measure, estimate, se, conf_low, conf_high, method, level, average, n.

        Returns
        -------
        pandas.DataFrame
            The one-row table.
        """
        return pd.DataFrame([{"measure": self.measure, "estimate": self.estimate,
                              "se": self.se, "conf_low": self.low, "conf_high": self.high,
                              "method": self.method, "level": self.level,
                              "average": self.average, "n": self.n}])

    def __repr__(self) -> str:
        what = "credible interval" if self.method == "bayes" else "CI"
        extra = f", {self.average}" if self.average else ""
        return (f"<MeasureInterval {self.measure} = {self.estimate:.4g}, {100 * self.level:g}% "
                f"{what} [{self.low:.4g}, {self.high:.4g}] ({self.method}{extra}, "
                f"n = {self.n:.6g})>")

    __str__ = __repr__
