"""Summary tables a statistician can read: text (R layout), HTML and LaTeX.

A :class:`Summary` is built from blocks: a title, the call, a coefficient
table (a tidy DataFrame) and sections of (label, value) lines or small
tables.  The same numbers feed all three renderings.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Summary", "format_pvalue", "signif_stars", "SIGNIF_LEGEND"]

SIGNIF_LEGEND = "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"


def signif_stars(p: float) -> str:
    """R's significance stars for a p-value."""
    if p is None or not np.isfinite(p):
        return ""
    for cut, star in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p < cut:
            return star
    return " "


def format_pvalue(p: float, digits: int = 3) -> str:
    """Like R's format.pval: '< 2e-16' below machine precision."""
    if p is None or not np.isfinite(p):
        return "NA"
    if p < 2.2e-16:
        return "< 2e-16"
    if p < 1e-4:
        return f"{p:.2e}"
    return f"{p:.{digits}g}"


def _fmt(x, digits: int = 5) -> str:
    if x is None:
        return "NA"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            return "NA"
        return f"{x:.{digits}g}"
    return str(x)


def _table_text(table: pd.DataFrame) -> str:
    """Integral floats print without decimals (confusion counts)."""
    vals = table.to_numpy()
    if vals.dtype.kind == "f" and np.all(np.isfinite(vals)):
        if np.all(vals == np.round(vals)):
            return table.astype(np.int64).to_string()
        return table.to_string(float_format=lambda v: f"{v:.2f}")
    return table.to_string()


@dataclass
class Section:
    title: str
    lines: list = field(default_factory=list)   # (label, value) pairs or plain strings
    table: pd.DataFrame | None = None


@dataclass
class Summary:
    """A printable model summary with ``__str__``, ``_repr_html_`` and ``as_latex()``."""

    title: str
    call: str
    coef_table: pd.DataFrame | None = None      # tidy() output
    statistic_name: str = "z value"
    pvalue_name: str = "Pr(>|z|)"
    coef_note: str = ""
    sections: list = field(default_factory=list)
    coef_footnotes: list = field(default_factory=list)   # lines printed under the table

    # ------------------------------------------------------------------ text
    def _coef_text_rows(self) -> tuple[list[str], list[list[str]]]:
        t = self.coef_table
        header = ["", "Estimate", "Std. Error", self.statistic_name, self.pvalue_name, ""]
        rows = []
        for _, r in t.iterrows():
            if not np.isfinite(r["estimate"]):
                rows.append([str(r["term"]), "NA", "NA", "NA", "NA", ""])
                continue
            se_ok = np.isfinite(r["std_error"])
            rows.append([
                str(r["term"]),
                f"{r['estimate']:.6g}",
                f"{r['std_error']:.6g}" if se_ok else "NA",
                f"{r['statistic']:.3f}" if se_ok and np.isfinite(r["statistic"]) else "NA",
                format_pvalue(r["p_value"]) if se_ok else "NA",
                signif_stars(r["p_value"]) if se_ok else "",
            ])
        return header, rows

    def __str__(self) -> str:
        out = [self.title, "", "Call:", self.call, ""]
        if self.coef_table is not None:
            header, rows = self._coef_text_rows()
            widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                      for i, h in enumerate(header)]
            out.append("Coefficients:" + (f" {self.coef_note}" if self.coef_note else ""))

            def line(cells):
                first = cells[0].ljust(widths[0])
                rest = [c.rjust(widths[i + 1]) for i, c in enumerate(cells[1:-1])]
                return " ".join([first, *rest, cells[-1]]).rstrip()

            out.append(line(header))
            out.extend(line(r) for r in rows)
            out.append("---")
            out.append(SIGNIF_LEGEND)
            out.extend(self.coef_footnotes)
            out.append("")
        for sec in self.sections:
            if sec.title:
                out.append(sec.title)
            for item in sec.lines:
                if isinstance(item, str):
                    out.append(item)
                else:
                    label, value = item
                    out.append(f"  {label}: {_fmt(value)}")
            if sec.table is not None:
                out.extend("  " + s for s in _table_text(sec.table).splitlines())
            out.append("")
        return "\n".join(out).rstrip() + "\n"

    def __repr__(self) -> str:
        return self.__str__()

    # ------------------------------------------------------------------ html
    def _repr_html_(self) -> str:
        e = html.escape
        parts = [f"<div class='fmstats-summary'><h4>{e(self.title)}</h4>",
                 f"<p><b>Call:</b> <code>{e(self.call)}</code></p>"]
        if self.coef_table is not None:
            header, rows = self._coef_text_rows()
            parts.append("<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header)
                         + "</tr></thead><tbody>")
            for r in rows:
                parts.append("<tr><th style='text-align:left'>" + e(r[0]) + "</th>"
                             + "".join(f"<td>{e(c)}</td>" for c in r[1:]) + "</tr>")
            parts.append("</tbody></table>")
            parts.append(f"<p><small>{e(SIGNIF_LEGEND)}"
                         + (f"<br>{e(self.coef_note)}" if self.coef_note else "")
                         + "".join(f"<br>{e(n)}" for n in self.coef_footnotes)
                         + "</small></p>")
        for sec in self.sections:
            if sec.title:
                parts.append(f"<p><b>{e(sec.title)}</b></p>")
            items = []
            for item in sec.lines:
                if isinstance(item, str):
                    items.append(f"<li>{e(item.strip())}</li>")
                else:
                    items.append(f"<li>{e(item[0])}: {e(_fmt(item[1]))}</li>")
            if items:
                parts.append("<ul>" + "".join(items) + "</ul>")
            if sec.table is not None:
                parts.append(sec.table.to_html(float_format=lambda v: f"{v:.6g}"))
        parts.append("</div>")
        return "\n".join(parts)

    # ------------------------------------------------------------------ latex
    def as_latex(self) -> str:
        """A LaTeX ``tabular`` of the coefficients followed by the sections as an itemize list."""
        def tex(s: str) -> str:
            for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"),
                         ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"),
                         ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"),
                         ("<", r"$<$"), (">", r"$>$")):
                s = s.replace(a, b)
            return s

        out = [f"% {tex(self.title)}", r"\begin{tabular}{lrrrrl}", r"\hline"]
        if self.coef_table is not None:
            header, rows = self._coef_text_rows()
            out.append(" & ".join(tex(h) for h in header) + r" \\ \hline")
            out.extend(" & ".join(tex(c) for c in r) + r" \\" for r in rows)
        out.append(r"\hline")
        out.append(r"\end{tabular}")
        items = [r"\item " + tex(n) for n in self.coef_footnotes]
        for sec in self.sections:
            for item in sec.lines:
                text = item.strip() if isinstance(item, str) else f"{item[0]}: {_fmt(item[1])}"
                items.append(r"\item " + tex(((sec.title + " ") if sec.title else "") + text))
        if items:
            out += [r"\begin{itemize}", *items, r"\end{itemize}"]
        return "\n".join(out) + "\n"
