"""Bands on the F-versus-threshold curve and an interval for the F-optimal threshold:
:func:`f_band` and its result :class:`CurveBand` (the arrays behind ``f_curve(band=)`` and
``plot_pr(band=)`` of every fitted model)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import measures as _m
from .. import prcurve as _pr
from .._utils.validation import check_probabilities, check_random_state, check_weights
from ..exceptions import DataError, InvalidArgumentError
from ._bands import bootstrap_band, delta_band, pr_region, profile_band
from ._interval import check_B, check_level, check_method
from ._percentile import tail_quantiles
from .._utils.boundary import public

__all__ = ["f_band", "CurveBand", "BAND_METHODS", "band_region"]

#: The methods of a band on the F-versus-threshold curve (``f_band(method=)``,
#: ``plot_pr(band_method=)``).
BAND_METHODS = ("bootstrap", "profile", "delta")


@dataclass(frozen=True, eq=False)
class CurveBand:
    """Pointwise bands of F (and, for the bootstrap, precision and recall) at every distinct
    score, and the interval of the F-optimal threshold (:func:`f_band`).

    Parameters
    ----------
    table : DataFrame
        One row per distinct score, highest first: the columns of
        :func:`fmstats.prcurve.f_curve` and ``f_low``, ``f_high`` (bootstrap also
        ``precision_low``/``_high``, ``recall_low``/``_high``).
    method : str
        ``"bootstrap"``, ``"profile"`` or ``"delta"``.
    level : float
        The pointwise level.
    best_threshold : float
        The F-optimal threshold of the data (ties: the highest, as ``best_row``).
    threshold_ci : tuple of float
        Percentile interval of the F-optimal threshold over ``B`` bootstrap replicates.
    B : int
        Bootstrap replicates (of the band, if bootstrap, and of the threshold interval).
    thresholds : ndarray
        The replicates' F-optimal thresholds.
    """

    table: pd.DataFrame
    method: str
    level: float
    best_threshold: float
    threshold_ci: tuple
    B: int
    thresholds: np.ndarray = field(repr=False, default=None)

    def __repr__(self) -> str:
        return (f"<CurveBand {self.method}, {100 * self.level:g}% pointwise, {len(self.table)} "
                f"thresholds; F-optimal threshold {self.best_threshold:.4g}, "
                f"{100 * self.level:g}% CI [{self.threshold_ci[0]:.4g}, "
                f"{self.threshold_ci[1]:.4g}]>")


@public
def f_band(y: Any, score: Any, sample_weight: Any = None, *, method: str = "bootstrap",
           level: float = 0.95, B: int | None = None, random_state=None, measure=None,
           beta: float | None = None, alpha: float | None = None) -> CurveBand:
    """Pointwise bands of the F-versus-threshold curve, and an interval for its best threshold.

    Parameters
    ----------
    y : array-like of shape (n,)
        Truth: 0/1 labels (probabilities in [0, 1] count fractionally; not for ``"profile"``).
    score : array-like of shape (n,)
        Scores; a row is classed positive when its score is at least the threshold.
    sample_weight : array-like of shape (n,), optional
        Frequency weights.
    method : {"bootstrap", "profile", "delta"}, default "bootstrap"
        * ``"bootstrap"``: percentile bands of F, precision and recall at every threshold over
          ``B`` case-bootstrap replicates of the rows;
        * ``"profile"``: the profile-likelihood interval of F at every threshold -- the
          multinomial likelihood of the confusion cells maximised subject to F = f, the
          interval where 2 (l_hat - l(f)) <= chi-square(1) (Urlus et al. 2023 profile the
          same likelihood for precision and recall jointly; see :func:`band_region`);
        * ``"delta"``: the delta-method interval (:func:`fmstats.f_interval`) at every
          threshold.
    level : float, default 0.95
        The pointwise level, in (0, 1).
    B : int, optional
        Bootstrap replicates (default 2000), also those of the threshold interval.
    random_state : int, SeedSequence or Generator, optional
        Seed of the bootstrap.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``measure``, ``beta``, ``alpha``.
    beta, alpha : float, optional
        The F-measure (default F1).

    Returns
    -------
    CurveBand
        ``table`` (the :func:`fmstats.f_curve` columns with the band), ``best_threshold`` and
        ``threshold_ci``: the percentile interval of the F-optimal threshold over the bootstrap
        replicates.

    Examples
    --------
    >>> import numpy as np, fmstats as fm
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(400) < 0.3).astype(float)
    >>> s = y + rng.normal(size=400)
    >>> band = fm.inference.f_band(y, s, method="profile", random_state=0)
    >>> list(band.table.columns[-2:])
    ['f_low', 'f_high']
    """
    fm = _m.as_fmeasure(measure, beta, alpha)
    check_method(method, BAND_METHODS)
    level = check_level(level)
    B = check_B(B, level)
    yy = check_probabilities("y", y)
    if yy.shape[0] == 0:
        raise DataError("`y` has no rows; the band needs scored rows with labels.")
    table = _pr.f_curve(yy, score, sample_weight, measure=fm)
    s = np.asarray(score, dtype=float)
    w = check_weights("sample_weight", sample_weight, yy.shape[0])
    if not (w @ yy > 0):
        raise DataError("`y` has no positive label: F is 0 or 1 (zero_division) at every "
                        "threshold, fixed by the predictions, and has no band.")
    rng = check_random_state(random_state)
    boot, best = bootstrap_band(yy, s, w, fm.alpha, level, B, rng)
    if method == "bootstrap":
        cols = {k: v for k, v in boot.items() if k != "threshold"}
    elif method == "profile":
        if not np.all((yy == 0) | (yy == 1)):
            raise InvalidArgumentError("`method`='profile' needs 0/1 labels (the multinomial "
                                       "of the confusion cells); use 'bootstrap' or 'delta'.")
        prof = profile_band(yy, s, w, fm.alpha, level)
        cols = {"f_low": prof["f_low"], "f_high": prof["f_high"]}
    else:
        d = delta_band(yy, s, w, fm.alpha, level, table["threshold"].to_numpy())
        cols = {"f_low": d["low"], "f_high": d["high"]}
    for k, v in cols.items():
        table[k] = v
    ci = tuple(float(v) for v in tail_quantiles(best, level, method="inverted_cdf"))
    return CurveBand(table=table, method=method, level=level,
                     best_threshold=float(table["threshold"].iloc[_pr.best_row(table)]),
                     threshold_ci=ci, B=B, thresholds=best)


def band_region(y, score, sample_weight=None, level: float = 0.95, grid: int = 201):
    """The profile-likelihood region of the precision-recall curve (Urlus et al. 2023).

    Parameters
    ----------
    y : array-like
        The 0/1 labels.
    score : array-like
        The scores.
    sample_weight : array-like, optional
        The rows' weights (None: all 1).
    level : float, default 0.95
        The confidence level of the region.
    grid : int, default 201
        Points of the grid along recall and along precision from 0 to 1 (the end points are
        dropped).

    Returns
    -------
    tuple
        (recall grid, precision grid, profile statistic on the grid, critical value): the
        region is where the statistic is at most the critical value.
    """
    level = check_level(level)
    yy = check_probabilities("y", y)
    if not np.all((yy == 0) | (yy == 1)):
        raise InvalidArgumentError("the profile-likelihood region needs 0/1 labels.")
    w = check_weights("sample_weight", sample_weight, yy.shape[0])
    return pr_region(yy, np.asarray(score, dtype=float), w, level, grid)
