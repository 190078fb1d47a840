"""The pure formulas of the F-measure maximising reweighting (thesis ch. 4, 6, 7).

Weights (4.2) of the expected-F maximiser, the raw (6.9) and smoothed (7.1) weights of the
noisy-F maximiser with the smoothed counts of section 7.2, the standardised ridge of the
default shrinkage, and the per-iterate metrics as additive sums over rows.  Used by
:mod:`fmstats.maxent_models._fmaxent` (rows in memory) and :mod:`fmstats.maxent_models._outofcore` (the same sums per chunk
of a Dask array), so both paths compute the same numbers.  Notation: ``alpha`` is the thesis's
beta (the parameterisations of :mod:`fmstats.measures`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import xlogy

__all__ = ["expected_f_weights", "noisy_f_weights", "smoothed_noisy_counts", "smoothed_sums",
           "smoothed_from_sums", "standardised_ridge", "f_from_counts", "iterate_metrics",
           "metric_sums", "metrics_from_sums", "Iterate", "TINY", "weight_scale", "smooth_g1",
           "smooth_g2", "f_of_counts"]

#: Probabilities are clipped to [TINY, 1 - TINY] in the outer loop's metrics.
TINY = np.finfo(float).eps


def weight_scale(weighted_sum: float, total_weight: float) -> float:
    """The count-weighted mean of the F-weights that scales them to mean 1, to 12 digits.

    The scale only sets where the clipping bounds and the shrinkage act, so 12 digits are
    plenty; rounding makes it the same number whether the sums were taken over all rows at once
    (in memory) or chunk by chunk (out of core), whose round-off differs in the last bits and
    would otherwise be amplified by the outer loop's raw weights.
    """
    return float(f"{weighted_sum / total_weight:.12g}")


def expected_f_weights(y: np.ndarray, p: np.ndarray, f: float, alpha: float) -> np.ndarray:
    """Weights (4.2) of the expected-F maximiser for 0/1 labels ``y`` (thesis's beta = alpha).

    Parameters
    ----------
    y : ndarray of shape (n,)
        The 0/1 labels.
    p : ndarray of shape (n,)
        The current probabilities.
    f : float
        The current F.
    alpha : float
        The F-measure's weight on precision.

    Returns
    -------
    ndarray of shape (n,)
        The weights.
    """
    return np.where(y == 1, (1.0 - alpha * f) / (alpha * f) * p, 1.0 - p)


def smooth_g1(x, eps):
    """Smooth max(0, x) of (7.2): 0 below -eps, quadratic on (-eps, 0], x + eps/2 above."""
    return np.where(x <= -eps, 0.0, np.where(x <= 0, (x + eps) ** 2 / (2 * eps), x + eps / 2))


def smooth_g2(x, eps):
    """Smooth max(0, x) of (7.3): 0 below 0, quadratic on (0, eps), x - eps/2 above."""
    return np.where(x <= 0, 0.0, np.where(x < eps, x * x / (2 * eps), x - eps / 2))


def f_of_counts(tp, fp, fn, alpha) -> np.ndarray:
    """F = TP / (TP + alpha FP + (1 - alpha) FN) of arrays of counts (1 where 0/0)."""
    den = tp + alpha * fp + (1 - alpha) * fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, tp / np.where(den > 0, den, 1.0), 1.0)


_g1, _g2 = smooth_g1, smooth_g2


def smoothed_noisy_counts(q, p, w, alpha: float, epsilon: float) -> tuple[float, float, float]:
    """Smoothed (TP^U, TN^U, F^U) of §7.2 with row weights ``w``.

    TP = sum w [p - g1(p - q)], TN = sum w [(1 - q) - g2(p - q)] and
    F = TP / (alpha (TP - TN) + alpha sum w (1 - q) + (1 - alpha) sum w q); as epsilon -> 0
    these are the correlated noisy counts (6.1) and the noisy F-measure.

    Parameters
    ----------
    q : ndarray of shape (n,)
        The labels as probabilities.
    p : ndarray of shape (n,)
        The probabilities.
    w : ndarray of shape (n,)
        The row weights.
    alpha : float
        The F-measure's weight on precision.
    epsilon : float
        The smoothing.

    Returns
    -------
    tuple of float
        (TP, TN, F).
    """
    return smoothed_from_sums(smoothed_sums(q, p, w, epsilon), alpha)


def smoothed_sums(q, p, w, epsilon) -> tuple[float, float, float, float]:
    """The sums behind :func:`smoothed_noisy_counts`: TP, TN, sum w (1 - q), sum w q."""
    d = p - q
    return (float(np.dot(w, p - _g1(d, epsilon))), float(np.dot(w, (1 - q) - _g2(d, epsilon))),
            float(np.dot(w, 1 - q)), float(np.dot(w, q)))


def smoothed_from_sums(sums, alpha: float) -> tuple[float, float, float]:
    tp, tn, neg, pos = sums
    den = alpha * (tp - tn) + alpha * neg + (1 - alpha) * pos
    return tp, tn, tp / den


def noisy_f_weights(q: np.ndarray, p: np.ndarray, f: float, tp: float, alpha: float,
                    epsilon: float | None = None) -> np.ndarray:
    """Weights of the noisy-F maximiser: (6.9), or the smoothed (7.1) when ``epsilon`` is given.

    Raw (6.9): p(1-p)/(p-q) * F/TP * [alpha F 1{p >= q} - (1 - alpha F) 1{p <= q}].  At p = q
    exactly the raw weight is unbounded and returned as ``inf`` (clip it with bounds).
    Smoothed (7.1): the indicators become g2'(p - q) and 1 - g1'(p - q); for ``|p - q| < epsilon``
    the weight is p(1-p) F (1 - alpha F) / (epsilon TP) (p <= q) or
    p(1-p) alpha F^2 / (epsilon TP) (p > q), so it is bounded by p(1-p) F / (epsilon TP).

    Parameters
    ----------
    q : ndarray of shape (n,)
        The labels as probabilities.
    p : ndarray of shape (n,)
        The current probabilities.
    f : float
        The current (noisy) F.
    tp : float
        The current (noisy) true positives.
    alpha : float
        The F-measure's weight on precision.
    epsilon : float, optional
        The smoothing (None: the raw weights).

    Returns
    -------
    ndarray of shape (n,)
        The weights (``inf`` where p = q exactly, raw weights).
    """
    d = p - q
    scale = p * (1 - p) * f / tp
    af = alpha * f
    if epsilon is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(d > 0, scale * af / d, np.where(d < 0, -scale * (1 - af) / d, np.inf))
        return w
    # bracket / d written without dividing by a vanishing d inside the smoothing band
    up = np.where(d >= epsilon, af / np.where(d >= epsilon, d, 1.0), af / epsilon)
    down = np.where(d <= -epsilon, -(1 - af) / np.where(d <= -epsilon, d, -1.0),
                    (1 - af) / epsilon)
    # for -eps < d < 0 only the g1 part is active, for 0 < d < eps only g2 (left limit at d = 0)
    core = np.where(d > 0, up, 0.0) + np.where(d <= 0, down, 0.0)
    return scale * core


def standardised_ridge(total_weight: float, variances: np.ndarray,
                       shrinkage: float) -> np.ndarray:
    """Per-coefficient ridge penalties for ``shrinkage`` per observation on standardised scale.

    The penalty ``shrinkage * n_w * var_j * b_j**2 / 2`` (``n_w`` the total count weight,
    ``var_j`` the weighted variance of column j) is ``n_w * shrinkage / 2`` times the squared
    coefficient of the standardised column: it does not depend on the units of the columns,
    and constant columns (the intercept) are not penalised.

    Parameters
    ----------
    total_weight : float
        The total count weight n_w.
    variances : ndarray of shape (p,)
        The columns' weighted variances.
    shrinkage : float
        The ridge per observation on the standardised scale.

    Returns
    -------
    ndarray of shape (p,)
        The per-coefficient penalties.
    """
    return shrinkage * total_weight * np.asarray(variances, dtype=float)



def f_from_counts(tp, fp, fn, alpha):
    den = tp + alpha * fp + (1 - alpha) * fn
    return tp / den if den > 0 else 1.0


def iterate_metrics(q, p, pred, cw, alpha, sum_q):
    """Training F of predicted classes (with TP), noisy F (correlated) and expected F.

    Inline versions of the measures in :mod:`fmstats.measures` (which validate their
    inputs); the tests check them against those functions.
    """
    return metrics_from_sums(metric_sums(q, p, pred, cw), alpha, sum_q)


def metric_sums(q, p, pred, cw) -> list[float]:
    """Weighted sums behind :func:`iterate_metrics` and the log-likelihood (additive over rows)."""
    return [float(np.dot(cw, q * pred)), float(np.dot(cw, pred)),
            float(np.dot(cw, np.minimum(q, p))), float(np.dot(cw, p)), float(np.dot(cw, q * p)),
            float(np.dot(cw, xlogy(q, p) + xlogy(1 - q, 1 - p)))]


def metrics_from_sums(sums, alpha, sum_q):
    tp_det, pos, tp_n, sum_p, tp_e = sums[:5]
    f_det = f_from_counts(tp_det, pos - tp_det, sum_q - tp_det, alpha)
    noisy = f_from_counts(tp_n, sum_p - tp_n, sum_q - tp_n, alpha)
    expected = f_from_counts(tp_e, sum_p - tp_e, sum_q - tp_e, alpha)
    return tp_det, f_det, tp_n, noisy, expected


@dataclass(frozen=True)
class Iterate:
    """Metrics of one outer iterate (``p``: the probabilities, kept by in-memory rows only)."""

    tp_det: float
    f_det: float
    tp_noisy: float
    noisy: float
    expected: float
    loglik: float
    p: np.ndarray | None = None
    coef: np.ndarray | None = None
    smoothed: tuple | None = None
