"""Pointwise bands of the F-versus-threshold curve: the delta method (every cut at once, from
cumulative sums), the bootstrap, and the profile likelihood of the confusion multinomial.

At a cut "positive iff score >= t" the rows split into predicted positives and negatives.
The delta-method variance of F (frequency weights, probabilistic labels y in [0, 1], see
:mod:`fmstats.inference._units`) is sum_i w_i r_i^2 / D^2 with

* r_i = y_i (1 - F) - alpha F (1 - y_i) for a predicted positive,
* r_i = -(1 - alpha) F y_i for a predicted negative,

so it needs, over the predicted positives, the sums of w y^2, w y (1 - y) and w (1 - y)^2,
and over the negatives that of w y^2: cumulative sums in the order of the scores.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["delta_band"]


def delta_band(y, s, w, alpha: float, level: float, thresholds) -> dict:
    """F, its delta-method SE and pointwise interval at each threshold (rule s >= t).

    Returns a dict of arrays ``f``, ``se``, ``low``, ``high`` (``low``/``high`` clipped to
    [0, 1]) aligned with ``thresholds``.
    """
    y, s, w = (np.asarray(v, dtype=float) for v in (y, s, w))
    t = np.asarray(thresholds, dtype=float)
    order = np.argsort(-s, kind="stable")
    yo, wo = y[order], w[order]

    def cum(v):
        return np.r_[0.0, np.cumsum(wo * v)]

    k = np.searchsorted(-s[order], -t, side="right")        # rows with s >= t
    tp, pp = cum(yo)[k], cum(np.ones_like(yo))[k]
    y2, y1m, m2 = cum(yo * yo)[k], cum(yo * (1 - yo))[k], cum((1 - yo) ** 2)[k]
    tot_y, tot_y2 = cum(yo)[-1], cum(yo * yo)[-1]
    fp, fn = pp - tp, tot_y - tp
    D = tp + alpha * fp + (1 - alpha) * fn
    ok = D > 0
    F = np.where(ok, tp / np.where(ok, D, 1.0), 1.0)
    S = (y2 * (1 - F) ** 2 - 2 * alpha * F * (1 - F) * y1m + alpha ** 2 * F ** 2 * m2
         + (1 - alpha) ** 2 * F ** 2 * (tot_y2 - y2))
    se = np.where(ok, np.sqrt(np.maximum(S, 0.0)) / np.where(ok, D, 1.0), 0.0)
    z = stats.norm.ppf(0.5 + level / 2)
    return {"f": F, "se": se, "low": np.clip(F - z * se, 0, 1), "high": np.clip(F + z * se, 0, 1)}
