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

__all__ = ["Summary", "Section", "format_numbers", "format_pvalue", "format_pvalues",
           "coef_columns", "anova_columns", "r_matrix_text", "signif_stars", "SIGNIF_LEGEND"]

#: The legend of R's significance stars printed under a coefficient table.
SIGNIF_LEGEND = "Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1"


def signif_stars(p: float) -> str:
    """R's significance stars for a p-value."""
    if p is None or not np.isfinite(p):
        return ""
    for cut, star in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p < cut:
            return star
    return " "


# ----------------------------------------------------------------------------- R's format()
# R prints a numeric vector with a common layout: fixed notation with as many decimals as the
# element that needs most (each shown to `digits` significant digits, trailing zeros dropped),
# unless scientific notation is narrower.  The functions below follow R 4.2's formatReal() and
# scientific() (src/main/format.c); tests/test_summary_render.py compares them with R.

_KP_MAX = 22


def _scientific(x: float, digits: int) -> tuple[int, int, int, bool]:
    """(negative, exponent, significant digits needed, rounding widens) of one finite x."""
    if x == 0.0:
        return 0, 0, 1, False
    neg, r = (1, -x) if x < 0 else (0, x)
    kp = int(np.floor(np.log10(r))) - digits + 1
    r_prec = r / 10.0 ** kp if kp >= 0 else r * 10.0 ** (-kp)
    if r_prec < 10.0 ** (digits - 1):
        r_prec *= 10.0
        kp -= 1
    alpha = float(np.rint(r_prec))            # C's nearbyint: ties to even
    nsig = digits
    for _ in range(digits):
        alpha /= 10.0
        if alpha == np.floor(alpha):
            nsig -= 1
        else:
            break
    if nsig == 0:
        nsig, kp = 1, kp + 1
    kpower = kp + digits - 1
    rgt = min(max(digits - kpower, 0), _KP_MAX)
    widens = 0 < kpower <= _KP_MAX and r < 10.0 ** kpower - 0.5 / 10.0 ** rgt
    return neg, kpower, nsig, widens


def format_numbers(values, digits: int = 7, na: str = "NA") -> list[str]:
    """R's ``format(x, digits = digits)`` of a numeric vector, right-justified to one width.

    One notation for all elements: fixed with the decimals the most demanding element needs
    for ``digits`` significant digits, or scientific when that is narrower (R's default
    ``scipen = 0``).  Non-finite values print as ``na``.

    Parameters
    ----------
    values : array-like
        The numbers.
    digits : int, default 7
        Significant digits (R's ``digits``).
    na : str, default "NA"
        The text of a non-finite value.

    Returns
    -------
    list of str
        One string per value, all of one width.

    Examples
    --------
    >>> format_numbers([123456, 1.5], digits=4)
    ['123456.0', '     1.5']
    >>> format_numbers([2.022e-05, 2720.0, 1.679], digits=4)
    ['2.022e-05', '2.720e+03', '1.679e+00']
    """
    x = np.asarray(values, dtype=float).ravel() + 0.0    # -0.0 prints as 0, as in R
    fin = np.isfinite(x)
    if not fin.any():
        return [na] * x.size
    neg = rgt = 0
    mxsl = mxns = mxe = -(10 ** 9)
    mxl, mne = -(10 ** 9), 10 ** 9
    for v in x[fin]:
        n_i, kpower, nsig, widens = _scientific(float(v), digits)
        left = kpower + 1 - int(widens)
        neg = max(neg, n_i)
        rgt = max(rgt, nsig - left)
        mxl = max(mxl, left)
        mxsl = max(mxsl, n_i + (1 if left <= 0 else left))
        mxns, mxe, mne = max(mxns, nsig), max(mxe, kpower), min(mne, kpower)
    if mxl < 0:
        mxsl = 1 + neg
    width_fixed = mxsl + rgt + (rgt != 0)
    d = mxns - 1
    e = 2 if (mxe >= 100 or mne <= -99) else 1
    width_sci = neg + (d > 0) + d + 4 + e
    if width_fixed <= width_sci:
        cells = [f"{v:.{rgt}f}" if ok else na for v, ok in zip(x, fin)]
    else:
        cells = [_sci(v, d, e) if ok else na for v, ok in zip(x, fin)]
    w = max(len(c) for c in cells)
    return [c.rjust(w) for c in cells]


def _sci(v: float, d: int, e: int) -> str:
    mant, _, expo = f"{v:.{d}e}".partition("e")
    return f"{mant}e{expo[0]}{expo[1:].lstrip('0').rjust(e + 1, '0')}"


def format_pvalues(pvalues, digits: int = 3, eps: float = float(np.finfo(float).eps),
                   na: str = "NA") -> list[str]:
    """R's ``format.pval``: p-values below ``eps`` as ``< 2e-16``, the rest formatted together.

    P-values of at least 1e-4 (1e-3 when ``digits`` is 1) share a fixed layout, smaller ones
    share a scientific one; R's spacing rule for ``<`` (no space when every other p-value is at
    most 6 characters wide and the digits shrink to 1) is kept.

    Examples
    --------
    >>> format_pvalues([0.0135, 0.0372, 3.8e-08, 1e-30, 0.9203])
    ['0.0135', '0.0372', '3.8e-08', '< 2e-16', '0.9203']
    """
    p = np.asarray(pvalues, dtype=float).ravel()
    out = [na] * p.size
    fin = np.flatnonzero(~np.isnan(p))
    tiny = [i for i in fin if p[i] < eps]
    rest = [i for i in fin if p[i] >= eps]
    if rest:
        expo = np.floor(np.log10(np.where(p[rest] > 0, p[rest], 1e-50)))
        fixp = (expo >= -3) | ((expo == -4) & (digits > 1))
        for group in ([i for i, f in zip(rest, fixp) if f], [i for i, f in zip(rest, fixp) if not f]):
            if group:
                for i, cell in zip(group, format_numbers(p[group], digits)):
                    out[i] = cell
    if tiny:
        dig = max(1, digits - 2)
        if rest:
            nc = max(len(out[i]) for i in rest)
            if dig > 1 and dig + 6 > nc:
                dig = max(1, nc - 7)
            sep = "" if (dig == 1 and nc <= 6) else " "
        else:
            sep = "" if dig == 1 else " "
        text = "<" + sep + format_numbers([eps], dig)[0]
        for i in tiny:
            out[i] = text
    return out


def format_pvalue(p: float, digits: int = 3) -> str:
    """One p-value as R's ``format.pval`` prints it alone (``< 2e-16`` below machine epsilon)."""
    if p is None or not np.isfinite(p):
        return "NA"
    return format_pvalues([p], digits)[0].strip()


def coef_columns(estimate, std_error=None, statistic=None, p_value=None,
                 digits: int = 4) -> dict[str, list[str]]:
    """The cells of R's ``printCoefmat(digits = 4)`` (``summary.glm``'s coefficient table).

    Estimates and standard errors are rounded together to the decimals their smallest
    magnitude needs and formatted together (so their decimal points line up); the test
    statistic is rounded to ``digits - 1`` decimals and formatted with ``digits``; p-values as
    :func:`format_pvalues` with ``digits - 1``; a value that would print as zero without being
    zero is re-formatted alone with ``digits - 1`` digits.  Missing values print as ``NA``.
    Returns lists of unpadded strings under the keys given (``stars`` with p-values).
    """
    est = np.asarray(estimate, dtype=float)
    cs = [est] + ([np.asarray(std_error, dtype=float)] if std_error is not None else [])
    allv = np.concatenate(cs)
    a = np.abs(allv[np.isfinite(allv) & (allv != 0)])
    digmin = 1 + (int(np.floor(np.log10(a.min()))) if a.size else 0)
    ndec = max(1, digits - digmin)
    rounded = np.array([round(float(v), ndec) if np.isfinite(v) else np.nan for v in allv])
    cells = [c.strip() for c in format_numbers(rounded, digits)]
    for i, (v, c) in enumerate(zip(allv, cells)):
        if np.isfinite(v) and v != 0 and float(c) == 0:
            cells[i] = format_numbers([v], max(1, digits - 1))[0]
    out = {"estimate": cells[:est.size]}
    if std_error is not None:
        out["std_error"] = cells[est.size:]
    dig_tst = max(1, min(5, digits - 1))
    if statistic is not None:
        z = np.asarray(statistic, dtype=float)
        z = np.array([round(float(v), dig_tst) if np.isfinite(v) else np.nan for v in z])
        out["statistic"] = [c.strip() for c in format_numbers(z, digits)]
    if p_value is not None:
        p = np.asarray(p_value, dtype=float)
        out["p_value"] = [c.strip() for c in format_pvalues(p, dig_tst)]
        ok = np.isfinite(p)
        if ok.any() and (p[ok] < 0.1).any():
            stars = [signif_stars(v) for v in p]
            w = max(len(s) for s in stars)
            out["stars"] = [s.ljust(w) for s in stars]
    return out


def _r_round(x: np.ndarray, digits: float) -> np.ndarray:
    """R's ``round(x, digits)``: a fractional ``digits`` counts as ``floor(digits + 0.5)``."""
    return np.round(x, int(np.floor(digits + 0.5)))


def _zapsmall(x: np.ndarray, digits: int) -> np.ndarray:
    """R 4.2's ``zapsmall(x, digits)``: rounded to ``digits - log10(max |x|)`` decimals."""
    fin = np.isfinite(x)
    if not fin.any():
        return x
    mx = float(np.abs(x[fin]).max())
    return np.where(fin, _r_round(x, max(0.0, digits - np.log10(mx)) if mx > 0 else digits), x)


def anova_columns(columns: dict, digits: int = 5) -> dict[str, list[str]]:
    """The cells of R's ``print.anova`` (``drop1``, ``add1``, ``anova`` tables).

    ``columns`` maps R's column labels, in order, to values (NaN where R has NA); a last
    label starting ``Pr(`` or ``P(`` is the p-value.  As ``printCoefmat(digits = 5, cs.ind =
    NULL, na.print = "")``: the test statistic (``"F value"``, ``"F"``) rounded to 4 decimals
    and formatted with :func:`format_numbers`; the Df columns formatted; every other column
    first rounded to ``digits - log10(max)`` decimals (``zapsmall``), then formatted, so that
    a column's decimal points line up; a value printed as zero without being zero formatted
    again with ``digits - 1``; p-values as :func:`format_pvalues` with 4 digits, and a column
    of significance stars (key ``""``) when a p-value is below 0.1.  Missing values are
    empty cells.

    Parameters
    ----------
    columns : dict
        R's column labels, in order, mapped to their values.
    digits : int, default 5
        Significant digits.

    Returns
    -------
    dict of str to list of str
        The cells of each column (and the stars, key ``""``), ready for
        :func:`r_matrix_text`.

    Examples
    --------
    >>> cells = anova_columns({"Df": [np.nan, 1, 1], "LRT": [np.nan, 575.18, 0.0011953],
    ...                        "Pr(>Chi)": [np.nan, 1e-30, 0.97]})
    >>> cells["LRT"], cells["Pr(>Chi)"], cells[""]
    (['', '575.18', '  0.00'], ['', '<2e-16', '0.97'], ['   ', '***', '   '])
    """
    labels = list(columns)
    xm = {c: np.asarray(columns[c], dtype=float).copy() for c in labels}
    has_p = bool(labels) and (labels[-1].startswith("Pr(") or labels[-1].startswith("P("))
    body = labels[:-1] if has_p else labels
    tst = [c for c in body if c[1:7] == " value" or c in ("F", "Cp", "Chisq")]
    for c in body:
        if c not in tst and not c.endswith("Df"):
            xm[c] = _zapsmall(xm[c], digits)
    dig_tst = max(1, min(5, digits - 1))
    cells = {}
    for c in body:
        x = np.where(np.isfinite(xm[c]), _r_round(xm[c], dig_tst), xm[c]) if c in tst else xm[c]
        cells[c] = format_numbers(x, digits)
    # R: a cell that reads 0 for a non-zero value (or the reverse) is formatted again, all such
    # cells of the table together (column by column), with one digit less
    redo = [(c, i) for c in body if c not in tst for i, v in enumerate(xm[c])
            if np.isfinite(v) and (v == 0) != (float(cells[c][i]) == 0)]
    if redo:
        again = format_numbers([xm[c][i] for c, i in redo], max(1, digits - 1))
        for (c, i), cell in zip(redo, again):
            cells[c][i] = cell
    for c in body:
        cells[c] = ["" if not np.isfinite(v) else cell for v, cell in zip(xm[c], cells[c])]
    if has_p:
        pv = xm[labels[-1]]
        ok = np.isfinite(pv)
        col = [""] * pv.size
        for i, cell in zip(np.flatnonzero(ok), format_pvalues(pv[ok], dig_tst)):
            col[i] = cell
        cells[labels[-1]] = col
        if ok.any() and (pv[ok] < 0.1).any():
            stars = [signif_stars(v) for v in pv]
            w = max(len(s) for s in stars)
            cells[""] = [s.ljust(w) for s in stars]
    return cells


def r_matrix_text(cells: dict, row_names) -> list[str]:
    """Lines of R's ``print`` of a character matrix (``right = TRUE``, ``quote = FALSE``):
    row names left-justified, every column right-justified to its widest cell or label,
    one space between columns.

    Parameters
    ----------
    cells : dict of str to list of str
        Column label -> the column's cells.
    row_names : sequence
        The row names.

    Returns
    -------
    list of str
        The lines of the printed matrix (the header first).
    """
    names = [str(r) for r in row_names]
    wn = max((len(r) for r in names), default=0)
    widths = {c: max([len(c)] + [len(v) for v in col]) for c, col in cells.items()}
    lines = [" " * wn + "".join(" " + c.rjust(widths[c]) for c in cells)]
    for i, r in enumerate(names):
        lines.append(r.ljust(wn) + "".join(" " + col[i].rjust(widths[c])
                                           for c, col in cells.items()))
    return lines


def _fmt(x, digits: int = 5) -> str:
    if x is None:
        return "NA"
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating)):
        if not np.isfinite(x):
            return "NA"
        return f"{x:.{digits}g}"
    return str(x)


def _table_cells(table: pd.DataFrame) -> pd.DataFrame:
    """Cell strings of a section table: integral float columns (counts) without decimals,
    other float columns with R's common layout at 4 significant digits (decimal points line
    up), everything else as text."""
    out = {}
    for j, col in enumerate(table.columns):
        v = table.iloc[:, j]
        if pd.api.types.is_float_dtype(v):
            x = v.to_numpy(dtype=float)
            fin = np.isfinite(x)
            if fin.any() and np.all(x[fin] == np.round(x[fin])) and np.abs(x[fin]).max() < 1e15:
                cells = [str(int(a)) if ok else "NA" for a, ok in zip(x, fin)]
            else:
                cells = [c.strip() for c in format_numbers(x, 4)]
        else:
            cells = [_fmt(a) for a in v.tolist()]
        out[j] = cells
    frame = pd.DataFrame(out, index=table.index)
    frame.columns = table.columns
    return frame


def _table_text(table: pd.DataFrame) -> str:
    return _table_cells(table).to_string()


def _blocks(lines: list) -> list[tuple[str, list]]:
    """Consecutive section lines grouped by kind: ("text", strings) and ("pairs", pairs);
    an empty string ends a text block (a paragraph break)."""
    blocks: list[tuple[str, list]] = []
    for item in lines:
        kind = "text" if isinstance(item, str) else "pairs"
        if kind == "text" and not item.strip():
            blocks.append(("text", []))
            continue
        if not blocks or blocks[-1][0] != kind:
            blocks.append((kind, []))
        blocks[-1][1].append(item.strip() if kind == "text" else item)
    return [b for b in blocks if b[1]]


_CSS = (".fmstats-summary table{border-collapse:collapse;margin:0.2em 0 0.8em 0;"
        "font-size:0.92em}"
        ".fmstats-summary th,.fmstats-summary td{padding:0.1em 0.7em;border:none;"
        "background:none}"
        ".fmstats-summary thead th{border-bottom:1px solid #999;text-align:right}"
        ".fmstats-summary td.num{text-align:right;font-variant-numeric:tabular-nums;"
        "white-space:pre;font-family:monospace}"
        ".fmstats-summary tbody th{text-align:left;font-weight:normal}"
        ".fmstats-summary h4{margin:0.3em 0}"
        ".fmstats-summary h5{margin:0.8em 0 0.2em 0;font-size:1em}"
        ".fmstats-summary p{margin:0.2em 0}"
        ".fmstats-summary table.fmstats-info th{font-weight:bold;text-align:left;"
        "vertical-align:top}"
        ".fmstats-summary table.fmstats-info td{text-align:left}")


def _html_table(header: list[str], rows: list[list[str]], css_class: str,
                corner: str = "", stars: bool = False) -> str:
    """A ``<table>``: header row, row labels as ``<th>``, numbers right-aligned in monospace
    (cells of one column share their decimals, so the decimal points line up); with
    ``stars`` the last column is the significance stars, left-aligned."""
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in [corner, *header])
    body = []
    for r in rows:
        nums = r[1:-1] if stars else r[1:]
        cells = "".join(f"<td class='num' style='text-align:right'>{e(c)}</td>" for c in nums)
        if stars:
            cells += f"<td class='num' style='text-align:left'>{e(r[-1])}</td>"
        body.append(f"<tr><th style='text-align:left'>{e(r[0])}</th>{cells}</tr>")
    opening = f"<table class='{css_class}'>" if css_class else "<table>"
    return (f"{opening}\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
            + "\n".join(body) + "\n</tbody></table>")


@dataclass
class Section:
    """A block of a :class:`Summary`: a title, lines and an optional small table.

    Built by the ``summary()`` methods of the results classes.

    Parameters
    ----------
    title : str
        The heading of the block (an empty string for none).
    lines : list, optional
        Plain strings (printed as they are; an empty string is a paragraph
        break) and ``(label, value)`` pairs (printed ``label: value``; an HTML table of two
        columns).
    table : DataFrame, optional
        A small table printed under the lines.
    """

    title: str
    lines: list = field(default_factory=list)   # (label, value) pairs or plain strings
    table: pd.DataFrame | None = None


@dataclass
class Summary:
    """A printable model summary with ``__str__``, ``_repr_html_`` and ``as_latex()``.

    Built by the ``summary()`` methods of the results classes.

    Parameters
    ----------
    title : str
        The first line.
    call : str
        The model's call, printed under ``Call:``.
    coef_table : DataFrame, optional
        A tidy DataFrame (``tidy()`` output) with ``term`` and ``estimate`` and optionally
        ``std_error``, ``statistic`` and ``p_value``: it prints as R's ``printCoefmat`` does
        (:func:`coef_columns`), only the columns present, with stars and the legend when
        there are p-values below 0.1.  None for no coefficient table.
    statistic_name : str, default "z value"
        The heading of the ``statistic`` column.
    pvalue_name : str, default "Pr(>|z|)"
        The heading of the ``p_value`` column.
    coef_note : str, default ""
        A note printed after the ``Coefficients:`` heading.
    sections : list of Section, optional
        The blocks printed after the coefficients.
    coef_footnotes : list of str, optional
        Lines printed under the coefficient table.
    """

    title: str
    call: str
    coef_table: pd.DataFrame | None = None      # tidy() output
    statistic_name: str = "z value"
    pvalue_name: str = "Pr(>|z|)"
    coef_note: str = ""
    sections: list = field(default_factory=list)
    coef_footnotes: list = field(default_factory=list)   # lines printed under the table

    # ------------------------------------------------------------------ coefficients
    def _coef_text_rows(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows of cell strings; the last column holds the stars ("" for none)."""
        t = self.coef_table
        names = {"estimate": "Estimate", "std_error": "Std. Error",
                 "statistic": self.statistic_name, "p_value": self.pvalue_name}
        keys = [k for k in names if k in t.columns]
        cols = coef_columns(**{k: t[k].to_numpy(dtype=float) for k in keys})
        stars = cols.pop("stars", [""] * len(t))
        header = ["", *(names[k] for k in keys), ""]
        rows = [[str(term), *(cols[k][i] for k in keys), stars[i]]
                for i, term in enumerate(t["term"])]
        return header, rows

    def _has_stars(self, rows) -> bool:
        return any(r[-1].strip() for r in rows)

    def coef_text(self) -> list[str]:
        """The coefficient block as R prints it: heading, aligned table, legend, footnotes.

        Returns
        -------
        list of str
            The lines.
        """
        header, rows = self._coef_text_rows()
        out = ["Coefficients:" + (f" {self.coef_note}" if self.coef_note else "")]
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(header)]

        def line(cells):
            first = cells[0].ljust(widths[0])
            rest = [c.rjust(widths[i + 1]) for i, c in enumerate(cells[1:-1])]
            return " ".join([first, *rest, cells[-1]]).rstrip()

        out.append(line(header))
        out.extend(line(r) for r in rows)
        if self._has_stars(rows):
            out.append("---")
            out.append(SIGNIF_LEGEND)
        out.extend(self.coef_footnotes)
        return out

    # ------------------------------------------------------------------ text
    def __str__(self) -> str:
        out = [self.title, "", "Call:", self.call, ""]
        if self.coef_table is not None:
            out.extend(self.coef_text())
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
        parts = [f"<div class='fmstats-summary'><style>{_CSS}</style>",
                 f"<h4>{e(self.title)}</h4>",
                 f"<p><b>Call:</b> <code>{e(self.call)}</code></p>"]
        if self.coef_table is not None:
            header, rows = self._coef_text_rows()
            parts.append("<h5>Coefficients:" + (f" <small>{e(self.coef_note)}</small>"
                                                if self.coef_note else "") + "</h5>")
            stars = self._has_stars(rows)
            parts.append(_html_table(header[1:] if stars else header[1:-1],
                                     [r if stars else r[:-1] for r in rows], "",
                                     stars=stars))
            notes = ([SIGNIF_LEGEND] if stars else []) + list(self.coef_footnotes)
            if notes:
                parts.append("<p><small>" + "<br>".join(e(n) for n in notes) + "</small></p>")
        for sec in self.sections:
            if sec.title:
                parts.append(f"<h5>{e(sec.title)}</h5>")
            for kind, items in _blocks(sec.lines):
                if kind == "text":
                    parts.append("<p>" + "<br>".join(e(x) for x in items) + "</p>")
                else:
                    parts.append("<table class='fmstats-info'><tbody>\n" + "\n".join(
                        f"<tr><th>{e(str(k))}</th><td>{e(_fmt(v))}</td></tr>" for k, v in items)
                        + "\n</tbody></table>")
            if sec.table is not None:
                cells = _table_cells(sec.table)
                corner = " \\ ".join(str(n) for n in (cells.index.name, cells.columns.name)
                                     if n is not None)
                rows = [[str(i), *r] for i, r in zip(cells.index, cells.to_numpy().tolist())]
                parts.append(_html_table([str(c) for c in cells.columns], rows,
                                         "fmstats-table", corner=corner))
        parts.append("</div>")
        return "\n".join(parts)

    # ------------------------------------------------------------------ latex
    def as_latex(self) -> str:
        """A LaTeX ``tabular`` of the coefficients followed by the sections as an itemize list.

        Returns
        -------
        str
            The LaTeX source.
        """
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
            out.extend(" & ".join(tex(c.strip()) for c in r) + r" \\" for r in rows)
        out.append(r"\hline")
        out.append(r"\end{tabular}")
        items = [r"\item " + tex(n) for n in self.coef_footnotes]
        for sec in self.sections:
            for item in sec.lines:
                if isinstance(item, str) and not item.strip():
                    continue
                text = item.strip() if isinstance(item, str) else f"{item[0]}: {_fmt(item[1])}"
                items.append(r"\item " + tex(((sec.title + " ") if sec.title else "") + text))
        if items:
            out += [r"\begin{itemize}", *items, r"\end{itemize}"]
        return "\n".join(out) + "\n"
