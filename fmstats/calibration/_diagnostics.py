"""Calibration diagnostics on (probability, label, weight) arrays: Brier score and Murphy's
decomposition, the expected calibration error, the F*/2 check, and the reliability figure."""
from __future__ import annotations

import numpy as np
from scipy import stats

from .. import measures as _m
from .._utils.validation import check_level, check_random_state, check_scalar
from .._utils.boundary import public
from ..inference import tail_quantiles

__all__ = ["calibration_stats", "stats_lines", "plot_calibration", "brier_decomposition",
           "ece", "f_optimal_threshold"]


def _bins(p: np.ndarray, n_bins: int) -> np.ndarray:
    return np.minimum((p * n_bins).astype(np.int64), n_bins - 1)


def _binned(p, y, w, n_bins: int):
    """(weight, mean probability, mean label) of the non-empty equal-width bins."""
    b = _bins(p, n_bins)
    nb = np.bincount(b, weights=w, minlength=n_bins)
    ok = nb > 0
    return (nb[ok], np.bincount(b, weights=w * p, minlength=n_bins)[ok] / nb[ok],
            np.bincount(b, weights=w * y, minlength=n_bins)[ok] / nb[ok])


@public
def brier_decomposition(p, y, w, n_bins: int = 10) -> dict:
    """Brier score = reliability - resolution + uncertainty + within-bin term.

    Parameters
    ----------
    p, y, w : ndarray
        Probabilities, labels (0/1 or in [0, 1]) and weights.
    n_bins : int, default 10
        Equal-width bins of the probabilities.

    Returns
    -------
    dict
        ``brier``, ``reliability``, ``resolution``, ``uncertainty``, ``within_bin``.
    """
    W = w.sum()
    nb, pb, yb = _binned(p, y, w, n_bins)
    ybar = float(w @ y / W)
    brier = float(w @ (p - y) ** 2 / W)
    rel = float(nb @ (pb - yb) ** 2 / W)
    res = float(nb @ (yb - ybar) ** 2 / W)
    unc = float(w @ (y - ybar) ** 2 / W)      # ybar (1 - ybar) for 0/1 labels
    return {"brier": brier, "reliability": rel, "resolution": res, "uncertainty": unc,
            "within_bin": brier - rel + res - unc}


@public
def ece(p, y, w, n_bins: int = 10) -> float:
    """Expected calibration error: sum over equal-width bins of the bin's weight share times
    ``|mean label - mean probability|``.

    Parameters
    ----------
    p, y, w : ndarray
        Probabilities, labels and weights.
    n_bins : int, default 10
        The bins.

    Returns
    -------
    float
        The expected calibration error.
    """
    b = _bins(p, n_bins)
    nb = np.bincount(b, weights=w, minlength=n_bins)
    gap = np.abs(np.bincount(b, weights=w * (y - p), minlength=n_bins))
    return float(gap.sum() / nb.sum())


def f_optimal_threshold(p, y, w, measure) -> tuple[float, float]:
    """(threshold, F): the lowest probability classed positive by the rule "p >= t" that
    maximises F on these rows (exact search over every distinct p; ties: highest t).

    Parameters
    ----------
    p, y, w : ndarray
        Probabilities, labels and weights.
    measure : FMeasure
        The F-measure.

    Returns
    -------
    tuple of float
        ``(threshold, F)``.
    """
    order = np.argsort(-p, kind="stable")
    ps = p[order]
    tp = np.cumsum((w * y)[order])
    fp = np.cumsum((w * (1 - y))[order])
    last = np.r_[ps[1:] != ps[:-1], True]          # cut after each distinct value
    tp, fp, t = tp[last], fp[last], ps[last]
    fn = tp[-1] - tp
    a = measure.alpha
    den = tp + a * fp + (1 - a) * fn
    f = np.divide(tp, den, out=np.zeros_like(tp), where=den > 0)
    j = _m.best_position(f)
    return float(t[j]), float(f[j])


@public
def calibration_stats(p, y, w, *, n_bins: int = 10, level: float = 0.95, B: int = 500,
                      random_state=None, measure=None) -> dict:
    """Brier decomposition, ECE with its percentile bootstrap interval, and the F*/2 check
    (the F-optimal threshold minus half the F it attains, with its interval).

    Parameters
    ----------
    p, y, w : ndarray
        Probabilities, labels and weights.
    n_bins : int, default 10
        Equal-width bins.
    level : float, default 0.95
        The interval level.
    B : int, default 500
        Bootstrap resamples of the rows.
    random_state : int or numpy.random.Generator, optional
        Seeds the resamples.
    measure : FMeasure, optional
        The F-measure of the F*/2 check (default F1).

    Returns
    -------
    dict
    """
    check_scalar("n_bins", n_bins, low=1, integer=True)
    check_level(level)
    check_scalar("B", B, low=10, integer=True)
    measure = _m.FMeasure() if measure is None else measure
    p, y, w = (np.asarray(v, dtype=float) for v in (p, y, w))
    out = brier_decomposition(p, y, w, n_bins)
    out["ece"] = ece(p, y, w, n_bins)
    t, f = f_optimal_threshold(p, y, w, measure)
    out.update(threshold=t, f_star=f, half_f=f / 2 if measure.alpha == 0.5 else
               f * measure.alpha, gap=np.nan)
    out["gap"] = out["threshold"] - out["half_f"]
    rng = check_random_state(random_state)
    n = len(p)
    eces, gaps = np.empty(B), np.empty(B)
    for b in range(B):                     # B resamples; each is vectorised over the rows
        i = rng.integers(0, n, n)
        eces[b] = ece(p[i], y[i], w[i], n_bins)
        tb, fb = f_optimal_threshold(p[i], y[i], w[i], measure)
        gaps[b] = tb - (fb * measure.alpha if measure.alpha != 0.5 else fb / 2)
    out["ece_interval"] = tuple(tail_quantiles(eces, level))
    out["gap_interval"] = tuple(tail_quantiles(gaps, level))
    out["level"] = level
    return out


def stats_lines(st: dict, measure) -> list:
    """The summary lines of :func:`calibration_stats`."""
    pct = f"{100 * st['level']:g}%"
    return [("Brier score", st["brier"]),
            f"  = reliability {st['reliability']:.5f} - resolution {st['resolution']:.5f} + "
            f"uncertainty {st['uncertainty']:.5f} + within-bin {st['within_bin']:.5f}",
            ("ECE", f"{st['ece']:.4f} ({pct} bootstrap interval {st['ece_interval'][0]:.4f} to "
                    f"{st['ece_interval'][1]:.4f})"),
            *([f"  (the estimate lies below its interval: a binned ECE is biased upwards on "
               f"resampled rows, and a map fitted on these rows (isotonic) is calibrated on "
               f"them by construction; read the interval's upper end as the size of "
               f"miscalibration the data cannot rule out)"]
              if st["ece"] < st["ece_interval"][0] else []),
            (f"{measure.name}-optimal threshold", st["threshold"]),
            (f"alpha x attained {measure.name} (F*/2 for F1: the optimal threshold of "
             "calibrated probabilities)", st["half_f"]),
            ("threshold - that", f"{st['gap']:.4f} ({pct} interval {st['gap_interval'][0]:.4f} "
                                 f"to {st['gap_interval'][1]:.4f})")]


def plot_calibration(p, y, w, *, n_bins=10, level=0.95, ax=None, title=""):
    """Reliability curve with a Wilson band over a histogram of the probabilities.

    Parameters
    ----------
    p, y, w : ndarray
        Probabilities, labels and weights.
    n_bins : int, default 10
        Equal-width bins.
    level : float, default 0.95
        The band's level.
    ax : sequence of two Axes, optional
        Where to draw.
    title : str, default ""
        The title.
    """
    import matplotlib.pyplot as plt

    from ..plotting import finish_figure

    if ax is None:
        fig, ax = plt.subplots(2, 1, figsize=(5.5, 5.5), sharex=True,
                               gridspec_kw={"height_ratios": [3, 1]})
    fig = ax[0].figure
    n, pb, yb = _binned(p, y, w, n_bins)
    z = stats.norm.ppf(0.5 + level / 2)
    centre = (yb + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(yb * (1 - yb) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    ax[0].plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfect calibration")
    ax[0].fill_between(pb, centre - half, centre + half, alpha=0.25,
                       label=f"{100 * level:g}% Wilson band")
    ax[0].plot(pb, yb, "o-", label="observed frequency")      # the last line: the points
    ax[0].set_ylabel("observed frequency")
    ax[0].set_xlabel("calibrated probability (bin mean)")
    ax[0].legend(fontsize="small")
    fig.suptitle(title, fontsize="medium")
    ax[1].hist(p, bins=np.linspace(0, 1, n_bins + 1), weights=w)
    ax[1].set_xlabel("calibrated probability")
    ax[1].set_ylabel("rows (weighted)")
    return finish_figure(fig)
