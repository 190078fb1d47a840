"""Summary rendering: the text coefficient table against R's printCoefmat, and snapshots of the
text and HTML summaries of maxent, umaxent, fmaxent, wsvm and fsvm.

References (tests/reference/printcoefmat_reference.R, R 4.2):
  printcoefmat_output.txt   R's printed coefficient blocks and print.summary.glm deviance lines
  printcoefmat_numbers.csv  the numbers behind every block (%.17g)
  printcoefmat_format.csv   format(x, digits = d) of 300 simulated vectors
  printcoefmat_scaled.csv   the data of the "scaled_binom" fit (tiny and huge coefficients)

Rules for the comparison with R, stated once:
  * lines are compared without trailing blanks (R pads its stars column with blanks);
  * the legend's quotes: R in a UTF-8 locale prints typographic quotes, fmstats the ASCII
    quotes R prints in the C locale; the legend is compared after mapping one to the other;
  * fits compared with R drop the term column (R's names `factor(pclass)2` are fmstats'
    `factor(pclass)[T.2]`): the header and every cell string right of it must be identical.

Snapshots (tests/snapshots/summary_<model>.txt / .html) are regenerated with
    FMSTATS_UPDATE_SNAPSHOTS=1 pytest tests/test_summary_render.py
and the structural assertions below do not depend on them.
"""
from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.results import (SIGNIF_LEGEND, Summary, coef_columns, format_numbers,
                             format_pvalue, format_pvalues)

REF = Path(__file__).parent / "reference"
SNAP = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("FMSTATS_UPDATE_SNAPSHOTS") == "1"


# ----------------------------------------------------------------------------- R references

def _r_blocks() -> dict[str, list[str]]:
    blocks: dict[str, list[str]] = {}
    name = None
    for line in (REF / "printcoefmat_output.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            name = line[4:]
            blocks[name] = []
        else:
            blocks[name].append(line.rstrip().replace("\u2018", "'").replace("\u2019", "'"))
    return blocks


R_BLOCKS = _r_blocks()
R_NUMBERS = pd.read_csv(REF / "printcoefmat_numbers.csv", na_values=["NA"])
CASES = list(dict.fromkeys(R_NUMBERS["case"]))
T_CASES = ("titanic_quasi_q",)          # quasibinomial: t statistics


def _summary_of(case: str) -> Summary:
    t = R_NUMBERS[R_NUMBERS["case"] == case].reset_index(drop=True)
    use_t = case in T_CASES
    return Summary(title="", call="", coef_table=t,
                   statistic_name="t value" if use_t else "z value",
                   pvalue_name="Pr(>|t|)" if use_t else "Pr(>|z|)")


def test_reference_files_cover_the_cases():
    assert CASES == ["titanic_binom", "titanic_quasi_q", "scaled_binom", "na_zero",
                     "all_tiny_p", "mixed_p", "magnitudes", "na_se"]
    assert set(CASES) <= set(R_BLOCKS)


def test_format_numbers_matches_r_format():
    ref = pd.read_csv(REF / "printcoefmat_format.csv", dtype=str, keep_default_na=False)
    assert len(ref) == 300
    bad = []
    for d, vals, want in ref.itertuples(index=False):
        x = [np.nan if v == "NA" else float(v) for v in vals.split(" ")]
        got = "|".join(format_numbers(x, int(d)))
        if got != want:
            bad.append((d, vals, want, got))
    assert not bad, bad[:5]


@pytest.mark.parametrize("case", CASES)
def test_coef_block_matches_printcoefmat(case):
    got = _summary_of(case).coef_text()
    assert got[0] == "Coefficients:"
    assert got[1:] == R_BLOCKS[case]


def test_pvalue_rules():
    # R: format.pval(c(0.0135, 3.8e-08, 1e-30), digits = 3) and the "<" spacing rule
    assert format_pvalues([0.0135, 3.8e-08, 1e-30]) == ["0.0135", "3.8e-08", "< 2e-16"]
    assert format_pvalues([1e-30, 1e-40]) == ["<2e-16", "<2e-16"]
    assert format_pvalues([0.5, 1e-30]) == ["0.5", "<2e-16"]
    assert format_pvalues([0.000858]) == ["0.000858"]          # 1e-4 <= p < 1e-3: fixed
    assert format_pvalue(2.9e-10) == "2.9e-10"
    assert format_pvalue(float("nan")) == "NA"


def test_coef_columns_decimal_rule():
    # estimates and SEs share their decimals (set by the smallest magnitude), so the
    # decimal points line up; the statistic has 3 decimals at most
    c = coef_columns([5.3392066864, -0.0455902], [0.582204832, 0.00723497],
                     [9.17066707, -6.3010], [4.7e-20, 2.96e-10])
    assert c["estimate"] == ["5.339207", "-0.045590"]
    assert c["std_error"] == ["0.582205", "0.007235"]
    assert c["statistic"] == ["9.171", "-6.301"]
    assert c["stars"] == ["***", "***"]
    # no p-value below 0.1: no stars column (R drops it and the legend)
    assert "stars" not in coef_columns([1.0], [2.0], [0.5], [0.62])


# ----------------------------------------------------------------------------- fmstats fits vs R

TITANIC = "factor(pclass) * sex + age + sibsp"


def _fit(case: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if case == "scaled_binom":
            d = pd.read_csv(REF / "printcoefmat_scaled.csv")
            return fm.maxent("y ~ big + small + strong + noise", d, tol=1e-14, max_iter=100)
        d = pd.read_csv(REF / "inputs_titanic.csv")
        if case == "titanic_binom":
            return fm.maxent(f"survived ~ {TITANIC}", d, tol=1e-14, max_iter=100)
        return fm.umaxent(f"q ~ {TITANIC}", d, tol=1e-14, max_iter=100)


def _strip_terms(lines: list[str], terms: list[str]) -> list[str]:
    w = max(len(t) for t in terms)
    return [line[w:] for line in lines]


@pytest.mark.parametrize("case", ["titanic_binom", "titanic_quasi_q", "scaled_binom"])
def test_fitted_summary_rows_match_r(case):
    fit = _fit(case)
    s = fit.summary()
    got = s.coef_text()
    r_terms = list(R_NUMBERS.loc[R_NUMBERS["case"] == case, "term"])
    ours = [str(t) for t in s.coef_table["term"]]
    n = len(r_terms) + 1                       # header and one row per term
    assert _strip_terms(got[1:1 + n], ours) == _strip_terms(R_BLOCKS[case][:n], r_terms)
    assert got[1 + n:] == R_BLOCKS[case][n:]   # "---" and the legend
    dev = [line for line in str(s).splitlines() if "deviance:" in line]
    assert dev == R_BLOCKS[f"{case} deviance"]


# ----------------------------------------------------------------------------- snapshots

SYNTH = "x1 + x2 + g"


def _model_summaries():
    d = pd.read_csv(REF / "inputs_synthetic.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "maxent": fm.maxent(f"y ~ {SYNTH}", d, weights="w").summary(),
            "umaxent": fm.umaxent(f"q ~ {SYNTH}", d).summary(),
            "fmaxent": fm.fmaxent(f"y ~ {SYNTH}", d, beta=2).summary(),
            "wsvm": fm.wsvm(f"y ~ {SYNTH}", d, C_pos=2.0, C_neg=1.0).summary(),
            "fsvm": fm.fsvm(f"y ~ {SYNTH}", d, beta=1, maxeval=300).summary(),
        }


@pytest.fixture(scope="module")
def summaries():
    return _model_summaries()


MODELS = ["maxent", "umaxent", "fmaxent", "wsvm", "fsvm"]


def _stable(text: str) -> str:
    """Run-dependent parts (optimiser seconds, NLopt version) masked in snapshots."""
    text = re.sub(r"NLopt \d+(\.\d+)*", "NLopt <version>", text)
    return re.sub(r"(\d+ run\(s\) \(up to \d+ restarts\)), [0-9.e+-]+ s", r"\1, <seconds> s",
                  text)


@pytest.mark.parametrize("kind", ["txt", "html"])
@pytest.mark.parametrize("model", MODELS)
def test_snapshot(summaries, model, kind):
    s = summaries[model]
    got = _stable(str(s) if kind == "txt" else s._repr_html_() + "\n")
    path = SNAP / f"summary_{model}.{kind}"
    if UPDATE:
        SNAP.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}: run with FMSTATS_UPDATE_SNAPSHOTS=1"
    assert got == path.read_text(encoding="utf-8")


def _coef_lines(s: Summary) -> list[str]:
    lines = str(s).splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("Coefficients:"))
    return lines[i + 1: i + 2 + len(s.coef_table)]


def _column(header: str, rows: list[str], name: str) -> tuple[list[str], set]:
    """Cells of the right-aligned column ``name`` and the positions of their decimal points."""
    end = header.index(name) + len(name)
    cells = [r[:end].split()[-1] for r in rows]
    assert all(r[:end].endswith(c) and r[end:end + 1] in (" ", "") for r, c in zip(rows, cells))
    return cells, {end - len(c) + c.index(".") for c in cells if "." in c}


@pytest.mark.parametrize("model", MODELS)
def test_text_coefficients_align_on_the_decimal_point(summaries, model):
    s = summaries[model]
    header, *rows = _coef_lines(s)
    assert len(rows) == len(s.coef_table) == 5
    names = ["Estimate"] + (["Std. Error"] if "std_error" in s.coef_table else [])
    names += [s.statistic_name] if s.statistic_name in header else []
    for name in names:
        cells, points = _column(header, rows, name)
        # one decimal-point position per column, or no decimal point in any cell
        assert len(points) == 1 or not any("." in c for c in cells), (name, cells)
        if name == "Estimate":       # and the cells are the fit's estimates
            np.testing.assert_allclose([float(c) for c in cells],
                                       s.coef_table["estimate"].to_numpy(float), rtol=5e-4)


@pytest.mark.parametrize("model", MODELS)
def test_html_structure(summaries, model):
    h = summaries[model]._repr_html_()
    assert h.count("<table") == h.count("</table>") >= 3      # coefficients, info, confusion
    assert "<h5>Coefficients:" in h
    assert not re.search(r"<li>\s*</li>", h) and "<li>" not in h
    assert not re.search(r"<p>\s*</p>", h)
    assert "class='dataframe'" not in h and 'class="dataframe"' not in h
    # the confusion table is built like the coefficient table: header and right-aligned cells
    conf = h[h.index("fmstats-table"):]
    assert "observed \\ predicted" in conf and "<td class='num' style='text-align:right'>" in conf
    # every coefficient row has a cell per column (and the stars column when there are p-values)
    coef = h[h.index("<h5>Coefficients:"):]
    assert coef.split("\n")[1] == "<table>"
    coef = coef[:coef.index("</table>")]
    n_head = coef.count("<th>")
    body = re.findall(r"<tr><th style='text-align:left'>.*?</tr>", coef)
    assert len(body) == 5 and all(r.count("<td") == n_head - 1 for r in body)
    has_p = "p_value" in summaries[model].coef_table
    assert ("Signif. codes" in h) == has_p


def test_deviance_block_in_html_has_no_empty_items(summaries):
    h = summaries["maxent"]._repr_html_()
    assert "Null deviance:" in h and "Residual deviance:" in h and "AIC:" in h
    block = h[h.index("Null deviance:") - 200: h.index("AIC:") + 100]
    assert "<li" not in block and "<br><br>" not in block


def test_svm_summary_has_estimate_column_only(summaries):
    header, *rows = _coef_lines(summaries["wsvm"])
    assert header.split() == ["Estimate"]
    assert SIGNIF_LEGEND not in str(summaries["wsvm"])
    assert "Coefficients: (hyperplane x'w + b = 0" in str(summaries["wsvm"])


def test_docstring_examples():
    import doctest

    import fmstats.results._summary

    assert doctest.testmod(fmstats.results._summary).failed == 0
