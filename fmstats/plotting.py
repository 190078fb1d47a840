"""Matplotlib figures (matplotlib is imported lazily: install the ``plot`` extra)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import prcurve as _pr
from .exceptions import InvalidArgumentError

__all__ = ["plot_history", "plot_sweep", "plot_pr", "plot_roc"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise InvalidArgumentError(
            "plotting needs matplotlib: pip install 'fmstats[plot]'") from None
    return plt


def _axes(ax, figsize=(6.0, 3.6)):
    if ax is not None:
        return ax.figure, ax
    plt = _pyplot()
    return plt.subplots(figsize=figsize)


def plot_history(history: pd.DataFrame, best: int | None = None, target_label: str = "target",
                 ax=None):
    """Learning curve of an F-maximiser: target and training F per outer iteration."""
    fig, ax = _axes(ax)
    ax.plot(history["iteration"], history["target"], marker=".", label=target_label)
    if "training_f" in history and not history["training_f"].equals(history["target"]):
        ax.plot(history["iteration"], history["training_f"], marker=".", alpha=0.7,
                label="training F of predicted classes")
    if best is not None:
        ax.axvline(best, color="grey", linestyle=":", label=f"returned iterate ({best})")
    ax.set_xlabel("outer iteration (0 = unweighted fit)")
    ax.set_ylabel("F")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_sweep(table: pd.DataFrame, measure: str = "f", ax=None):
    """F (or noisy F) over alpha for the baseline and the maximiser, train and test.

    ``table`` is the output of :func:`fmstats.fmaxent.sweep`; the top axis shows beta.
    """
    if measure not in ("f", "noisy_f"):
        raise InvalidArgumentError(f"`measure` must be 'f' or 'noisy_f'; got {measure!r}.")
    fig, ax = _axes(ax)
    styles = {"train": "-", "test": "--"}
    colours = {"baseline": "tab:grey", "fmaxent": "tab:blue"}
    for (model, data), part in table.groupby(["model", "data"], sort=False):
        ax.plot(part["alpha"], part[measure], styles.get(data, "-"),
                color=colours.get(model), marker=".",
                label=f"{'F-maximiser' if model == 'fmaxent' else 'unweighted'} ({data})")
    ax.set_xlabel("alpha (weight on precision; the thesis's beta)")
    ax.set_ylabel("noisy F" if measure == "noisy_f" else "F")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def _legend_below(ax) -> None:
    """The legend under the axes, where it cannot cover a curve."""
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1,
              frameon=False)


def _fmt_t(t: float) -> str:
    return f"{t:.3g}"


def plot_pr(curve: pd.DataFrame, measure, *, best: int, own: int | None, own_label: str,
            iso_f=(0.2, 0.4, 0.6, 0.8), score_name: str = "score",
            data_label: str = "", ax=None):
    """Precision-recall curve of an :func:`fmstats.prcurve.f_curve` table with iso-F lines.

    ``best`` is the row of the F-optimal threshold, ``own`` the row of the model's own rule
    (``None``: nothing classed positive); ``measure`` the :class:`~fmstats.measures.FMeasure`
    of the iso-F lines.  Models call it through ``results.plot_pr()``.

    Examples
    --------
    >>> from fmstats.prcurve import f_curve, best_row
    >>> c = f_curve([1, 0, 1, 1, 0], [0.9, 0.8, 0.6, 0.4, 0.2])
    >>> fig = plot_pr(c, measure=None, best=best_row(c), own=1, own_label="score >= 0.5")
    """
    from .measures import as_fmeasure

    measure = as_fmeasure(measure)
    fig, ax = _axes(ax, figsize=(6.0, 6.2))
    rec, prec = curve["recall"].to_numpy(), curve["precision"].to_numpy()
    for k, fv in enumerate(sorted(float(v) for v in iso_f)):
        r = np.linspace(_pr.iso_f_recall_start(fv, measure), 1.0, 200)
        ax.plot(r, _pr.iso_f_precision(fv, r, measure), color="0.75", lw=0.8, zorder=1,
                label=f"iso-{measure.name} lines" if k == 0 else None)
        # labelled where the line leaves precision 1: above every curve point
        ax.annotate(f"{measure.name}={fv:g}", (r[0], 1.0), xytext=(1, 3),
                    textcoords="offset points", ha="left", va="bottom", fontsize="x-small",
                    color="0.35")
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
    fig.tight_layout()
    return fig


def plot_roc(curve: pd.DataFrame, measure, *, best: int, own: int | None, own_label: str,
             score_name: str = "score", data_label: str = "", ax=None):
    """ROC curve of an :func:`fmstats.prcurve.f_curve` table with its AUC in the legend.

    Marks the model's own rule (row ``own``) and the F-optimal threshold (row ``best``).
    Models call it through ``results.plot_roc()``.

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
    fig, ax = _axes(ax, figsize=(5.6, 6.2))
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
    fig.tight_layout()
    return fig
