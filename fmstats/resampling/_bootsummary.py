"""The printed summary of a bootstrap: its coefficient table holds bootstrap columns."""
from __future__ import annotations

from ..results import SIGNIF_LEGEND, Summary, format_numbers

__all__ = ["BootSummary"]


class BootSummary(Summary):
    """A Summary whose coefficient table holds bootstrap columns (no significance stars)."""

    def _coef_text_rows(self):
        t = self.coef_table
        header = ["", "Estimate", "Model SE", "Boot SE", "Bias", "Wald low", "Wald high",
                  "Boot low", "Boot high", ""]
        cols = ["estimate", "model_std_error", "std_error", "bias", "model_conf_low",
                "model_conf_high", "conf_low", "conf_high"]
        # each column in R's common layout (4 significant digits, decimal points aligned)
        cells = [[c.strip() for c in format_numbers(t[c].to_numpy(dtype=float), digits=4)]
                 for c in cols]
        rows = [[str(term), *(col[i] for col in cells), ""] for i, term in enumerate(t["term"])]
        return header, rows

    def __str__(self) -> str:
        return super().__str__().replace("---\n" + SIGNIF_LEGEND + "\n", "")

    def _repr_html_(self) -> str:
        return super()._repr_html_().replace(SIGNIF_LEGEND, "")
