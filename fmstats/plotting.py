"""Matplotlib figures (matplotlib is imported lazily: install the ``plot`` extra)."""
from __future__ import annotations

import pandas as pd

from .exceptions import InvalidArgumentError

__all__ = ["plot_history", "plot_sweep"]


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
