"""Percentile intervals of replicates and draws: the one percentile rule of fmstats.

:func:`tail_quantiles` is the rule every equal-tailed interval of replicates or Monte-Carlo
draws uses: the (1 - level)/2 and 1 - (1 - level)/2 quantiles, by numpy's linear
interpolation as in ``scipy.stats.bootstrap``, or (``method="inverted_cdf"``) the replicate
at that rank -- the intervals of a tuned threshold take a threshold some replicate chose.
The bootstrap intervals (:func:`percentile_interval`, :func:`basic_interval`,
:func:`bca_interval`) are pure functions of a replicate array, open to any replicates (the
tests feed scipy's); non-finite replicates are left out.  Used by ``bootstrap`` (which
re-exports them), the intervals of F (Bayes, bootstrap), the bands on score curves, the
tuners' intervals and the calibration diagnostics.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from ._interval import check_level

__all__ = ["percentile_interval", "basic_interval", "bca_interval", "jackknife_acceleration",
           "finite_values", "tail_quantiles"]


def tail_quantiles(values, level: float, *, axis=None, method: str = "linear") -> np.ndarray:
    """The (1 - level)/2 and 1 - (1 - level)/2 quantiles of ``values`` (along ``axis``).

    Parameters
    ----------
    values : array_like
        Replicates or draws (used as given: leave out non-finite ones first if needed).
    level : float
        The confidence level, in (0, 1) (checked by the caller).
    axis : int, optional
        The axis of the replicates (pointwise bands); None flattens.
    method : str, default "linear"
        The quantile method of numpy: ``"linear"`` interpolates between order statistics;
        ``"inverted_cdf"`` takes the replicate at the rank (an attained value).

    Returns
    -------
    numpy.ndarray
        The lower and upper quantiles, stacked on the first axis.
    """
    a = (1 - level) / 2
    return np.quantile(values, [a, 1 - a], axis=axis, method=method)


def finite_values(a) -> np.ndarray:
    """The finite entries of ``a``, flattened (failed replicates are NaN or infinite).

    Parameters
    ----------
    a : array-like
        The replicates.

    Returns
    -------
    numpy.ndarray
        The finite values, as floats, in their order.
    """
    a = np.asarray(a, dtype=float).ravel()
    return a[np.isfinite(a)]


def percentile_interval(replicates, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval: the (1-level)/2 and (1+level)/2 quantiles of the replicates.

    Parameters
    ----------
    replicates : array_like
        The replicate values (non-finite ones are left out).
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    tuple of float
        The lower and upper limits (NaN, NaN without finite replicates).
    """
    r = finite_values(replicates)
    level = check_level(level)
    if r.size == 0:
        return (np.nan, np.nan)
    lo, hi = tail_quantiles(r, level)
    return float(lo), float(hi)


def basic_interval(replicates, estimate: float, level: float = 0.95) -> tuple[float, float]:
    """Basic (reverse percentile) interval: 2 t0 - q_(1-a), 2 t0 - q_a.

    Parameters
    ----------
    replicates : array_like
        The replicate values (non-finite ones are left out).
    estimate : float
        The statistic on the original data (t0).
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    tuple of float
        The lower and upper limits (NaN, NaN without finite replicates).
    """
    lo, hi = percentile_interval(replicates, level)
    return 2 * estimate - hi, 2 * estimate - lo


def jackknife_acceleration(jackknife) -> float:
    """a = sum d^3 / (6 (sum d^2)^1.5), d = mean(theta_(i)) - theta_(i) (E & T 1993, 14.15).

    Parameters
    ----------
    jackknife : array_like
        The leave-one-out (or leave-a-group-out) values of the statistic, theta_(i)
        (non-finite ones are left out).

    Returns
    -------
    float
        The acceleration a (0 when every d is 0).
    """
    j = finite_values(jackknife)
    d = j.mean() - j if j.size else j
    den = 6.0 * np.sum(d * d) ** 1.5
    return float(np.sum(d ** 3) / den) if den > 0 else 0.0


def bca_interval(replicates, estimate: float, jackknife, level: float = 0.95
                 ) -> tuple[float, float]:
    """Bias-corrected and accelerated interval (Efron & Tibshirani 1993, §14.3).

    z0 = Phi^-1(share of replicates below the estimate, ties counted half);
    a = :func:`jackknife_acceleration`; the interval is the replicate quantiles at
    Phi(z0 + (z0 + z)/(1 - a (z0 + z))) for z = Phi^-1(a/2), Phi^-1(1 - a/2).  NaN when
    every replicate lies on one side of the estimate (z0 infinite).

    Parameters
    ----------
    replicates : array_like
        The replicate values (non-finite ones are left out).
    estimate : float
        The statistic on the original data (t0).
    jackknife : array_like
        The leave-one-out (or leave-a-group-out) values of the statistic, theta_(i).
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    tuple of float
        The lower and upper limits (NaN, NaN without finite replicates).
    """
    r = finite_values(replicates)
    a_tail = (1 - check_level(level)) / 2
    if r.size == 0:
        return (np.nan, np.nan)
    share = (np.count_nonzero(r < estimate) + np.count_nonzero(r <= estimate)) / (2 * r.size)
    z0 = ndtri(share)
    acc = jackknife_acceleration(jackknife)
    if not np.isfinite(z0):
        return (np.nan, np.nan)
    out = []
    for z in (ndtri(a_tail), ndtri(1 - a_tail)):
        out.append(float(np.quantile(r, ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z))))))
    return out[0], out[1]
