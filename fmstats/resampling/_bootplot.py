"""The figures of a bootstrap: its replicates as a forest plot or as histograms."""
from __future__ import annotations

import math

import numpy as np

from ..exceptions import InvalidArgumentError
from .._utils.validation import describe
from ..inference import finite_values

__all__ = ["draw_replicates"]


def draw_replicates(results, kind: str, terms: list, tid, ax, logit: bool):
    """Draw :meth:`BootstrapResults.plot`'s figure (arguments checked there): ``tid`` is its
    tidy table indexed by term, restricted to ``terms``; ``logit``: the coefficients are
    log-odds.  Returns the figure."""
    from ..plotting import finish_figure, pyplot

    if kind == "forest":
        coef = set(results.model_table["term"]) if results.model_table is not None else set()
        groups = [g for g in ([t for t in terms if t in coef],
                              [t for t in terms if t not in coef]) if g]
        coef_label = "coefficient (log-odds scale)" if logit else "coefficient"
        if ax is None:
            fig, axes = pyplot().subplots(
                len(groups), 1, squeeze=False, figsize=(6.0, 0.45 * len(terms) + 1.6
                                                       + 0.9 * len(groups)),
                gridspec_kw={"height_ratios": [len(g) + 1 for g in groups]})
            axes = list(axes[:, 0])
        else:
            axes = list(np.atleast_1d(ax))
            if len(axes) != len(groups):
                raise InvalidArgumentError(
                    f"`ax` must hold {len(groups)} axes (one per panel: coefficients, "
                    f"other statistics); got {describe(ax)}.")
            fig = axes[0].figure
        for a, group in zip(axes, groups):
            is_coef = group[0] in coef
            part = tid.loc[group]
            y = np.arange(len(group))[::-1]
            a.hlines(y + 0.12, part["conf_low"], part["conf_high"], color="tab:blue",
                     label=f"bootstrap {results.ci} CI")
            a.hlines(y - 0.12, part["model_conf_low"], part["model_conf_high"],
                     color="tab:grey", label="Wald CI (model)")
            a.plot(part["estimate"], y, "ko", ms=4, label="estimate")
            a.set_yticks(y, group)
            a.set_ylim(-0.6, len(group) - 0.4)
            if is_coef:
                a.axvline(0, color="lightgrey", lw=0.8, zorder=0)
            a.set_xlabel(coef_label if is_coef else "statistic value (its own scale)")
            a.set_ylabel("term" if is_coef else "statistic")
            a.set_title(("Coefficients" if is_coef else "Other statistics")
                        + f": {100 * results.level:g}% intervals", fontsize="medium")
        handles, names = axes[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=3, fontsize="small",
                   frameon=False)
        return finish_figure(fig, rect=(0, 0.07, 1, 1))
    plt = pyplot()
    cols = min(3, len(terms))
    rows = math.ceil(len(terms) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.5 * rows + 0.6),
                             squeeze=False)
    for a, term in zip(axes.ravel(), terms):
        r = finite_values(results.replicates[term])
        a.hist(r, bins=min(50, max(10, r.size // 20)), color="tab:blue", alpha=0.7)
        a.axvline(tid.loc[term, "estimate"], color="black")
        for c in ("conf_low", "conf_high"):
            a.axvline(tid.loc[term, c], color="tab:red", linestyle="--")
        a.set_title(term, fontsize="small")
        a.set_xlabel("replicate value", fontsize="small")
        a.set_ylabel("replicates", fontsize="small")
    for a in axes.ravel()[len(terms):]:
        a.set_visible(False)
    fig.suptitle(f"Bootstrap replicates (B = {results.B}): estimate (black), "
                 f"{results.ci} {100 * results.level:g}% CI (red)", fontsize="medium")
    return finish_figure(fig)
