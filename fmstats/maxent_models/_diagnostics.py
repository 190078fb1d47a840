"""Regression diagnostics for maxent-family fits: influence measures and R's four panels.

Used by :meth:`fmstats.MaxentResults.influence` and ``plot_diagnostics``.  The formulas
are R's (``stats::influence.measures``, ``rstandard.glm``, ``rstudent.glm``,
``cooks.distance.glm``) with the weighted hat matrix of the final IRLS fit.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .._utils.boundary import public
from ..exceptions import InvalidArgumentError

__all__ = ["influence", "plot_diagnostics"]


def _check(results):
    training = getattr(results, "training", None)
    if training is not None and not training.in_memory:
        raise InvalidArgumentError("influence: an out-of-core (Dask) fit keeps no rows; refit "
                                   "in memory for row diagnostics.")


@public
def influence(results) -> pd.DataFrame:
    """Per-row influence measures of a maxent/umaxent fit (R's ``influence.measures``).

    Columns:

    * ``hat`` -- leverage, the diagonal of W^1/2 X (X'WX)^-1 X' W^1/2 (R's ``hatvalues``);
    * ``std_resid_deviance``, ``std_resid_pearson`` -- r / sqrt(phi (1 - h)) (R's
      ``rstandard(type = "deviance" | "pearson")``), phi the dispersion;
    * ``student_resid`` -- R's ``rstudent``: sign(d) sqrt(d^2 + h p^2 / (1 - h)) with deviance
      residual d and Pearson residual p, divided by the leave-one-out scale for quasi fits;
    * ``cooks_distance`` -- (p / (1 - h))^2 h / (phi k), k the rank (R's ``cooks.distance``).

    Rows with zero weight get NaN, as in R; a fit with ``na_action="exclude"`` has NaN rows
    for the rows it left out (R's ``influence.measures``).

    Parameters
    ----------
    results : MaxentResults
        A maxent/umaxent fit made in memory (an out-of-core fit keeps no rows).

    Returns
    -------
    pandas.DataFrame
        One row per training row: hat, std_resid_deviance, std_resid_pearson, student_resid,
        cooks_distance.
    """
    _check(results)
    fit, rows = results.core_fit, results.training
    h = rows.hat(fit)
    d = rows.resid(fit, "deviance")
    p = rows.resid(fit, "pearson")
    phi = results.dispersion
    active = results.weights > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        one_h = np.where(active & (h < 1), 1.0 - h, np.nan)
        std_d = d / np.sqrt(phi * one_h)
        std_p = p / np.sqrt(phi * one_h)
        stud = np.sign(d) * np.sqrt(d * d + h * p * p / one_h)
        if results.estimates_dispersion:
            n = int(np.count_nonzero(active))
            ss = float(np.sum(d[active] ** 2))
            sigma = np.sqrt((ss - d * d / one_h) / (n - results.rank - 1))
            stud = stud / sigma
        cook = (p / one_h) ** 2 * h / (phi * results.rank)
    cols = {"hat": np.where(active, h, np.nan), "std_resid_deviance": std_d,
            "std_resid_pearson": std_p, "student_resid": stud, "cooks_distance": cook}
    out = pd.DataFrame({k: results.padded(v, k) for k, v in cols.items()})
    out.index.name = results.index.name
    return out


@public
def plot_diagnostics(results, fig=None):
    """R's four diagnostic panels for a maxent fit (``plot.lm`` on a ``glm``).

    Residuals (deviance) vs linear predictor, normal Q-Q of the standardised deviance
    residuals, scale-location (sqrt|standardised residual| vs linear predictor) and
    standardised Pearson residuals vs leverage with Cook's distance contours at 0.5 and 1.
    The three most extreme rows are labelled by their index in every panel.

    Parameters
    ----------
    results : MaxentResults
        A maxent/umaxent fit made in memory (an out-of-core fit keeps no rows).
    fig : matplotlib.figure.Figure, optional
        The figure to draw the 2 x 2 panels on (default: a new 10 x 8 inch figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.
    """
    from ..plotting import pyplot, finish_figure

    plt = pyplot()
    infl = influence(results)
    eta = results.linear_predictor.to_numpy()
    dres = results.resid("deviance").to_numpy()
    ok = np.isfinite(infl["std_resid_deviance"].to_numpy())
    if fig is None:
        fig = plt.figure(figsize=(10, 8))
    axes = fig.subplots(2, 2)
    labels = np.asarray(infl.index.astype(str))

    def label_top(ax, x, y, score):
        top = np.argsort(-np.where(np.isfinite(score), score, -np.inf))[:3]
        for i in top:
            ax.annotate(labels[i], (x[i], y[i]), fontsize=8, xytext=(3, 3),
                        textcoords="offset points")

    ax = axes[0, 0]
    ax.scatter(eta[ok], dres[ok], s=8, alpha=0.6)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    _smooth(ax, eta[ok], dres[ok])
    label_top(ax, eta, dres, np.abs(dres))
    ax.set(xlabel="Predicted values (log-odds)", ylabel="Deviance residuals",
           title="Residuals vs Fitted")

    ax = axes[0, 1]
    sr = infl["std_resid_deviance"].to_numpy()
    order = np.argsort(sr[ok])
    theo = stats.norm.ppf((np.arange(1, ok.sum() + 1) - 0.5) / ok.sum())
    ax.scatter(theo, sr[ok][order], s=8, alpha=0.6)
    lim = [theo.min(), theo.max()]
    q1, q3 = np.percentile(sr[ok], [25, 75])
    slope = (q3 - q1) / (stats.norm.ppf(0.75) - stats.norm.ppf(0.25))
    ax.plot(lim, [np.median(sr[ok]) + slope * v for v in lim], color="grey", ls=":", lw=1)
    ax.set(xlabel="Theoretical quantiles", ylabel="Std. deviance resid.", title="Normal Q-Q")

    ax = axes[1, 0]
    rt = np.sqrt(np.abs(sr))
    ax.scatter(eta[ok], rt[ok], s=8, alpha=0.6)
    _smooth(ax, eta[ok], rt[ok])
    label_top(ax, eta, rt, rt)
    ax.set(xlabel="Predicted values (log-odds)", ylabel="sqrt(|Std. deviance resid.|)",
           title="Scale-Location")

    ax = axes[1, 1]
    h = infl["hat"].to_numpy()
    sp = infl["std_resid_pearson"].to_numpy()
    ax.scatter(h[ok], sp[ok], s=8, alpha=0.6)
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    hh = np.linspace(max(np.nanmin(h[ok]), 1e-6), min(np.nanmax(h[ok]) * 1.05, 0.999), 100)
    k = results.rank
    for c in (0.5, 1.0):
        r = np.sqrt(c * k * (1 - hh) / hh)
        ax.plot(hh, r, color="tab:red", ls="--", lw=0.8)
        ax.plot(hh, -r, color="tab:red", ls="--", lw=0.8)
        ax.annotate(f"Cook's {c:g}", (hh[-1], r[-1]), fontsize=7, color="tab:red")
    ymax = np.nanmax(np.abs(sp[ok])) * 1.1
    ax.set_ylim(-ymax, ymax)
    label_top(ax, h, sp, infl["cooks_distance"].to_numpy())
    ax.set(xlabel="Leverage", ylabel="Std. Pearson resid.", title="Residuals vs Leverage")
    fig.suptitle(f"{results.formula}", fontsize=10)
    return finish_figure(fig)


def _smooth(ax, x, y, bins: int = 20):
    """A running mean of y over quantile bins of x (a light stand-in for R's lowess line)."""
    if len(x) < 2 * bins:
        return
    edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1)))
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, len(edges) - 2)
    cnt = np.bincount(idx, minlength=len(edges) - 1)
    mx = np.bincount(idx, x, minlength=len(edges) - 1)
    my = np.bincount(idx, y, minlength=len(edges) - 1)
    keep = cnt > 0
    ax.plot(mx[keep] / cnt[keep], my[keep] / cnt[keep], color="tab:red", lw=1.2)
