"""Matplotlib figures (matplotlib is imported lazily: install the ``plot`` extra), and the
helpers every plot in fmstats uses so that figures read alike.

Public helpers (used by the ``plot*`` functions and methods of fmstats.bootstrap,
fmstats.maxent_models._diagnostics, fmstats.maxent_models._qresample, fmstats.model_selection._threshold, fmstats.model_selection._cv_tune, fmstats.svm,
fmstats.costsensitive and this module):

* :func:`pyplot` -- ``matplotlib.pyplot``, or a clear error naming the ``plot`` extra;
* :func:`new_axes` -- the axes to draw on (the caller's, or a new figure's);
* :func:`format_tick` / :func:`tick_labels` -- tick text with at most 3 significant digits,
  ``2^k`` for a grid of powers of two;
* :func:`readable_ticks` -- those formatters on every numeric axis of a figure;
* :func:`scale_label` -- an axis label that names its scale (``"C (log2 scale)"``);
* :func:`alpha_to_beta` / :func:`beta_to_alpha` -- the two parametrisations of an F-measure,
  beta = sqrt((1 - alpha) / alpha), for secondary axes.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import prcurve as _pr
from .exceptions import InvalidArgumentError
from ._utils.boundary import public

__all__ = ["plot_history", "plot_sweep", "plot_pr", "plot_roc", "pyplot", "new_axes",
           "format_tick", "tick_labels", "readable_ticks", "scale_label", "alpha_to_beta",
           "beta_to_alpha", "powers_of_two", "finish_figure"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["finish_figure"]


def pyplot():
    """``matplotlib.pyplot``; a clear :class:`InvalidArgumentError` when matplotlib is missing.

    Returns
    -------
    module
        The ``matplotlib.pyplot`` module.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError(
            "plotting needs matplotlib: pip install 'fmstats[plot]'") from None
    return plt


def new_axes(ax=None, figsize=(6.0, 3.6)):
    """``(figure, axes)``: the given axes and its figure, or a new figure of ``figsize``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        The caller's axes.
    figsize : (float, float), default (6.0, 3.6)
        The size in inches of a new figure.

    Returns
    -------
    figure : matplotlib.figure.Figure
        The figure.
    axes : matplotlib.axes.Axes
        The axes to draw on.
    """
    if ax is not None:
        return ax.figure, ax
    return pyplot().subplots(figsize=figsize)


def format_tick(v: float) -> str:
    """A tick value with at most 3 significant digits: ``0.0884``, ``1250``, ``2.5e-05``.

    Fixed notation between 1e-3 and 1e5, scientific (``1.5e+06``) outside; no trailing zeros.

    Parameters
    ----------
    v : float
        The tick value (non-finite values are printed as ``str`` does).

    Returns
    -------
    str
        The tick text.

    Examples
    --------
    >>> [format_tick(v) for v in (0.0883883, 1250.0, 0.5, -3.0, 2.5e-05, 0.0)]
    ['0.0884', '1250', '0.5', '-3', '2.5e-05', '0']
    """
    v = float(v)
    if not np.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    r = float(f"{v:.3g}")
    if 1e-3 <= abs(r) < 1e5:
        return np.format_float_positional(r, trim="-")
    return f"{r:.3g}"


def powers_of_two(values) -> bool:
    """True for at least three positive values that are 2^k (k a multiple of 1/2) on a
    regular grid in k (steps that are multiples of the smallest one) -- a grid such as
    ``2.0 ** np.arange(-5, 6)`` or a subset of one.

    Parameters
    ----------
    values : array-like
        The values (non-numbers give False).

    Returns
    -------
    bool
        Whether they are such a grid.
    """
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return False
    if v.size < 3 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        return False
    k = np.log2(np.sort(v))
    if not np.allclose(2 * k, np.round(2 * k), atol=1e-9):
        return False
    step = np.diff(np.unique(np.round(2 * k) / 2))
    if step.size < 2:
        return False
    ratio = step / step.min()
    return bool(np.allclose(ratio, np.round(ratio), atol=1e-9))


def _two_power(v: float) -> str:
    k = np.round(2 * np.log2(v)) / 2
    return f"$2^{{{k:g}}}$"


def tick_labels(values) -> list[str]:
    """Labels of categorical ticks (grid values): ``2^k`` for a grid of powers of two, else at
    most 3 significant digits; non-numbers as text.

    Parameters
    ----------
    values : iterable
        The tick values.

    Returns
    -------
    list of str
        One label per value.

    Examples
    --------
    >>> tick_labels([2 ** -3.5, 2 ** -2.5, 2 ** -1.5])
    ['$2^{-3.5}$', '$2^{-2.5}$', '$2^{-1.5}$']
    >>> tick_labels([0.1, 0.3333333, "l1"])
    ['0.1', '0.333', 'l1']
    """
    values = list(values)
    if powers_of_two(values):
        return [_two_power(float(v)) for v in values]
    return [format_tick(v) if isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, bool) else str(v) for v in values]


def scale_label(quantity: str, values=None, scale: str | None = None) -> str:
    """``quantity`` with its scale: ``"C (log2 scale)"`` for powers of two, ``"(log scale)"`` for
    ``scale="log"`` or positive values spanning a factor of 100 or more.

    Parameters
    ----------
    quantity : str
        The axis label without its scale (e.g. ``"C"``).
    values : array-like, optional
        The values on the axis.
    scale : str, optional
        The axis scale; ``"log"`` names it.

    Returns
    -------
    str
        The axis label.
    """
    if values is not None and powers_of_two(values):
        return f"{quantity} (log2 scale)"
    if scale == "log":
        return f"{quantity} (log scale)"
    if values is not None:
        try:
            v = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            return quantity
        if v.size and np.all(v > 0) and v.max() / v.min() >= 100:
            return f"{quantity} (log scale)"
    return quantity


def finish_figure(fig, rect=None):
    """The common ending of every fmstats figure: readable tick labels
    (:func:`readable_ticks`) and a tight layout (within ``rect``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    rect : tuple of float, optional
        ``(left, bottom, right, top)`` in figure coordinates that the tight layout fills
        (room for a suptitle or a legend outside the axes); None fills the whole figure.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig``, laid out.
    """
    readable_ticks(fig)
    if rect is None:
        fig.tight_layout()
    else:
        fig.tight_layout(rect=rect)
    return fig


def readable_ticks(fig):
    """Tick text of every numeric axis of ``fig`` through :func:`format_tick` (linear axes) or
    ``2^k`` (log axes of base 2); axes with their own tick labels are left alone.  Returns fig.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig``, its tick formatters set.
    """
    from matplotlib.ticker import FuncFormatter, LogFormatter, NullFormatter, ScalarFormatter

    three = FuncFormatter(lambda v, pos: format_tick(v))
    two = FuncFormatter(lambda v, pos: _two_power(v) if v > 0 else "")
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            fmt = axis.get_major_formatter()
            scale = axis.get_scale()
            if scale == "linear" and isinstance(fmt, ScalarFormatter):
                axis.set_major_formatter(three)
            elif scale == "log" and isinstance(fmt, LogFormatter) and \
                    getattr(axis.get_transform(), "base", 10) == 2:
                axis.set_major_formatter(two)
                axis.set_minor_formatter(NullFormatter())
            elif scale == "log" and isinstance(fmt, LogFormatter):
                # plain numbers where matplotlib would print 2.6 x 10^2 (its choice of which
                # ticks get a label is kept)
                for fmt_, setter in ((fmt, axis.set_major_formatter),
                                     (axis.get_minor_formatter(), axis.set_minor_formatter)):
                    setter(FuncFormatter(lambda v, pos, f=fmt_: format_tick(v) if f(v, pos)
                                         else ""))
    return fig


def alpha_to_beta(alpha):
    """beta = sqrt((1 - alpha) / alpha) of an F-measure weight alpha in (0, 1] (vectorised).

    Parameters
    ----------
    alpha : float or array-like
        The weight on precision (clipped to [1e-12, 1]).

    Returns
    -------
    float or ndarray
        The beta of each alpha.
    """
    a = np.clip(np.asarray(alpha, dtype=float), 1e-12, 1.0)
    return np.sqrt((1.0 - a) / a)


def beta_to_alpha(beta):
    """alpha = 1 / (1 + beta^2), the inverse of :func:`alpha_to_beta` (vectorised).

    Parameters
    ----------
    beta : float or array-like
        The beta of F_beta (negative values are clipped to 0).

    Returns
    -------
    float or ndarray
        The alpha of each beta.
    """
    b = np.clip(np.asarray(beta, dtype=float), 0.0, None)
    return 1.0 / (1.0 + b * b)


@public
def plot_history(history: pd.DataFrame, best: int | None = None, target_label: str = "target",
                 ax=None):
    """Learning curve of an F-maximiser: target and training F per outer iteration.

    Parameters
    ----------
    history : pandas.DataFrame
        One row per outer iteration: columns ``iteration``, ``target`` and optionally
        ``training_f`` (drawn when it differs from ``target``).
    best : int, optional
        The returned iterate, marked by a vertical line.
    target_label : str, default "target"
        The legend label of the ``target`` curve.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (default: a new figure's).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.
    """
    fig, ax = new_axes(ax)
    ax.plot(history["iteration"], history["target"], marker=".", label=target_label)
    if "training_f" in history and not history["training_f"].equals(history["target"]):
        ax.plot(history["iteration"], history["training_f"], marker=".", alpha=0.7,
                label="training F of predicted classes")
    if best is not None:
        ax.axvline(best, color="grey", linestyle=":", label=f"returned iterate ({best})")
    ax.set_xlabel("outer iteration (0 = unweighted fit)")
    ax.set_ylabel("F (training data)")
    ax.set_title("F-maximiser: learning curve", fontsize="medium")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize="small")
    return finish_figure(fig)


def plot_sweep(table: pd.DataFrame, measure: str = "f", ax=None):
    """F (or noisy F) over alpha for the baseline and the maximiser, train and test.

    ``table`` is the output of :func:`fmstats.sweep`; the top axis shows
    beta = sqrt((1 - alpha) / alpha), the same F-measure's other parameter.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`fmstats.sweep` (columns ``model``, ``data``, ``alpha`` and
        ``measure``).
    measure : {"f", "noisy_f"}, default "f"
        The column drawn: F or noisy F.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (default: a new figure's).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.
    """
    if measure not in ("f", "noisy_f"):
        raise InvalidArgumentError(f"`measure` must be 'f' or 'noisy_f'; got {measure!r}.")
    fig, ax = new_axes(ax)
    styles = {"train": "-", "test": "--"}
    colours = {"baseline": "tab:grey", "fmaxent": "tab:blue"}
    for (model, data), part in table.groupby(["model", "data"], sort=False):
        ax.plot(part["alpha"], part[measure], styles.get(data, "-"),
                color=colours.get(model), marker=".",
                label=f"{'F-maximiser' if model == 'fmaxent' else 'unweighted'} ({data})")
    ax.set_xlabel("alpha (weight on precision; the thesis's beta)")
    ax.set_ylabel("noisy F" if measure == "noisy_f" else "F")
    top = ax.secondary_xaxis("top", functions=(alpha_to_beta, beta_to_alpha))
    top.set_xlabel("beta of F_beta = sqrt((1 - alpha) / alpha)")
    a = np.asarray(table["alpha"], dtype=float)
    a = np.unique(a[np.isfinite(a) & (a > 0)])
    if a.size:
        from matplotlib.ticker import FixedLocator, FuncFormatter

        betas = np.unique(np.round(alpha_to_beta(a), 2))
        pick = np.unique(np.linspace(0, betas.size - 1, min(6, betas.size)).round().astype(int))
        top.xaxis.set_major_locator(FixedLocator(betas[pick]))
        top.xaxis.set_major_formatter(FuncFormatter(lambda v, pos: format_tick(v)))
    ax.set_title(f"{'Noisy F' if measure == 'noisy_f' else 'F'} over the F-measure's weight",
                 fontsize="medium")
    ax.legend(fontsize="small")
    return finish_figure(fig)


def _legend_below(ax) -> None:
    """The legend under the axes, where it cannot cover a curve."""
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1,
              frameon=False)


def _fmt_t(t: float) -> str:
    return f"{t:.3g}"


@public
def plot_pr(curve: pd.DataFrame, measure, *, best: int, own: int | None, own_label: str,
            iso_f=(0.2, 0.4, 0.6, 0.8), score_name: str = "score",
            data_label: str = "", ax=None, band: dict | None = None):
    """Precision-recall curve of an :func:`fmstats.prcurve.f_curve` table with iso-F lines.

    ``best`` is the row of the F-optimal threshold, ``own`` the row of the model's own rule
    (``None``: nothing classed positive); ``measure`` the :class:`~fmstats.measures.FMeasure`
    of the iso-F lines.  Models call it through ``results.plot_pr()``.

    Parameters
    ----------
    curve : pandas.DataFrame
        A table of :func:`fmstats.prcurve.f_curve`.
    measure : FMeasure or None
        The :class:`~fmstats.measures.FMeasure` of the iso-F lines (None: F1).
    best : int
        The row of the F-optimal threshold (e.g. :func:`fmstats.prcurve.best_row`).
    own : int or None
        The row of the model's own rule (``None``: nothing classed positive).
    own_label : str
        The model's rule in the legend (e.g. ``"score >= 0.5"``).
    iso_f : sequence of float, default (0.2, 0.4, 0.6, 0.8)
        The F values of the iso-F lines.
    score_name : str, default "score"
        The name of the score in the legend.
    data_label : str, default ""
        A second title line naming the data (none when empty).
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (default: a new figure's).
    band : dict, optional
        An uncertainty band: ``{"recall", "low", "high", "label"}`` (pointwise precision
        limits at each recall) or ``{"r", "p", "stat", "crit", "label"}`` (a region where
        ``stat <= crit`` on the recall x precision grid), as ``results.plot_pr(band=)`` makes.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Examples
    --------
    >>> from fmstats.prcurve import f_curve, best_row
    >>> c = f_curve([1, 0, 1, 1, 0], [0.9, 0.8, 0.6, 0.4, 0.2])
    >>> fig = plot_pr(c, measure=None, best=best_row(c), own=1, own_label="score >= 0.5")
    """
    from .measures import as_fmeasure

    measure = as_fmeasure(measure)
    fig, ax = new_axes(ax, figsize=(6.0, 6.2))
    rec, prec = curve["recall"].to_numpy(), curve["precision"].to_numpy()
    for k, fv in enumerate(sorted(float(v) for v in iso_f)):
        r = np.linspace(_pr.iso_f_recall_start(fv, measure), 1.0, 200)
        ax.plot(r, _pr.iso_f_precision(fv, r, measure), color="0.75", lw=0.8, zorder=1,
                label=f"iso-{measure.name} lines" if k == 0 else None)
        # labelled where the line leaves precision 1: above every curve point
        ax.annotate(f"{measure.name}={fv:g}", (r[0], 1.0), xytext=(1, 3),
                    textcoords="offset points", ha="left", va="bottom", fontsize="x-small",
                    color="0.35")
    if band is not None and "stat" in band:
        ax.contourf(band["r"], band["p"], band["stat"], levels=[-np.inf, band["crit"]],
                    colors=["tab:blue"], alpha=0.22, zorder=2)
        ax.fill_between([], [], [], color="tab:blue", alpha=0.22, label=band["label"])
    elif band is not None:
        ax.fill_between(band["recall"], band["low"], band["high"], step="pre", alpha=0.22,
                        color="tab:blue", zorder=2, label=band["label"])
    ax.plot(np.r_[0.0, rec], np.r_[prec[0], prec], drawstyle="steps-pre", color="tab:blue",
            lw=1.6, zorder=3, label="precision-recall curve")
    b = curve.iloc[best]
    ax.plot(b["recall"], b["precision"], "*", ms=14, color="tab:red", zorder=5,
            label=f"F-optimal: {score_name} >= {_fmt_t(b['threshold'])}, "
                  f"{measure.name} = {b['f']:.3f}")
    ax.annotate(f"t = {_fmt_t(b['threshold'])}", (b["recall"], b["precision"]),
                xytext=(-8, -14), textcoords="offset points", ha="right", fontsize="small",
                color="tab:red")
    if own is None:
        own_r, own_p, own_f = 0.0, 1.0, 0.0
    else:
        o = curve.iloc[own]
        own_r, own_p, own_f = o["recall"], o["precision"], o["f"]
    ax.plot(own_r, own_p, "o", ms=8, mfc="none", mew=2, color="black", zorder=4,
            label=f"model's rule: {own_label}, {measure.name} = {own_f:.3f}")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(0.0, 1.09)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel("recall (TP / (TP + FN))")
    ax.set_ylabel("precision (TP / (TP + FP))")
    title = f"Precision-recall, {measure.name} (beta = {measure.beta:.3g}, " \
            f"alpha = {measure.alpha:.3g})"
    ax.set_title(title + (f"\n{data_label}" if data_label else ""), fontsize="medium")
    _legend_below(ax)
    return finish_figure(fig)


@public
def plot_roc(curve: pd.DataFrame, measure, *, best: int, own: int | None, own_label: str,
             score_name: str = "score", data_label: str = "", ax=None):
    """ROC curve of an :func:`fmstats.prcurve.f_curve` table with its AUC in the legend.

    Marks the model's own rule (row ``own``) and the F-optimal threshold (row ``best``).
    Models call it through ``results.plot_roc()``.

    Parameters
    ----------
    curve : pandas.DataFrame
        A table of :func:`fmstats.prcurve.f_curve`.
    measure : FMeasure or None
        The :class:`~fmstats.measures.FMeasure` named in the legend (None: F1).
    best : int
        The row of the F-optimal threshold (e.g. :func:`fmstats.prcurve.best_row`).
    own : int or None
        The row of the model's own rule (``None``: nothing classed positive).
    own_label : str
        The model's rule in the legend (e.g. ``"score >= 0.5"``).
    score_name : str, default "score"
        The name of the score in the legend.
    data_label : str, default ""
        Appended to the title to name the data (nothing when empty).
    ax : matplotlib.axes.Axes, optional
        The axes to draw on (default: a new figure's).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Examples
    --------
    >>> from fmstats.prcurve import f_curve, best_row
    >>> c = f_curve([1, 0, 1, 1, 0], [0.9, 0.8, 0.6, 0.4, 0.2])
    >>> fig = plot_roc(c, measure=None, best=best_row(c), own=1, own_label="score >= 0.5")
    """
    from .measures import as_fmeasure

    measure = as_fmeasure(measure)
    roc = _pr.roc_from_curve(curve)
    auc = _pr.auc_of(roc)
    fig, ax = new_axes(ax, figsize=(5.6, 6.2))
    ax.plot([0, 1], [0, 1], ls=":", color="0.6", lw=1, label="chance (AUC = 0.5)")
    ax.plot(roc["fpr"], roc["tpr"], color="tab:blue", lw=1.6, label=f"ROC curve (AUC = {auc:.3f})")
    fpr, tpr = roc["fpr"].to_numpy()[1:], roc["tpr"].to_numpy()[1:]
    b = curve.iloc[best]
    ax.plot(fpr[best], tpr[best], "*", ms=14, color="tab:red", zorder=5,
            label=f"F-optimal: {score_name} >= {_fmt_t(b['threshold'])}, "
                  f"{measure.name} = {b['f']:.3f}")
    ax.annotate(f"t = {_fmt_t(b['threshold'])}", (fpr[best], tpr[best]), xytext=(8, -12),
                textcoords="offset points", fontsize="small", color="tab:red")
    o = (0.0, 0.0, 0.0) if own is None else (fpr[own], tpr[own], curve["f"].iloc[own])
    ax.plot(o[0], o[1], "o", ms=8, mfc="none", mew=2, color="black", zorder=4,
            label=f"model's rule: {own_label}, {measure.name} = {o[2]:.3f}")
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel("false positive rate (FP / negatives)")
    ax.set_ylabel("true positive rate = recall")
    ax.set_title("ROC" + (f", {data_label}" if data_label else ""), fontsize="medium")
    _legend_below(ax)
    return finish_figure(fig)
