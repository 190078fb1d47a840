"""drop1 / add1 / anova tables printed as R prints them, with R's warnings (issue 38).

The reference is R's own printed output (tests/reference/anova_print_reference.R ->
anova_print_output.txt): print.anova's printCoefmat layout -- every column rounded to the
decimals its largest value allows (zapsmall, digits 5) and formatted together so the decimal
points line up, the F statistic to 4 decimals, p-values by format.pval with 4 digits, the
significance stars in their own column -- and the warnings R gives for F tests where the
dispersion is not estimated.  Only the quotes of the significance legend differ (R prints
typographic quotes in a UTF-8 locale; fmstats plain ones).
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import InappropriateTestWarning

pytestmark = pytest.mark.reference

REF = Path(__file__).parent / "reference"
TIGHT = dict(tol=1e-14, max_iter=100)


def _blocks() -> dict:
    out, name = {}, None
    for line in (REF / "anova_print_output.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            name = line[4:]
            out[name] = {"lines": [], "warnings": []}
        elif line.startswith("#! warning: "):
            out[name]["warnings"].append(line[len("#! warning: "):])
        else:
            out[name]["lines"].append(line.replace("\u2018", "'").replace("\u2019", "'"))
    return out


R = _blocks()


@pytest.fixture(scope="module")
def tables():
    ti = pd.read_csv(REF / "inputs_titanic.csv")
    ti["sex"] = pd.Categorical(ti["sex"], categories=["female", "male"])
    ti = ti[ti.age.notna()]
    star = pd.read_csv(REF / "inputs_star98.csv")
    full = fm.maxent("survived ~ factor(pclass) * sex + age + sibsp + parch", ti, **TIGHT)
    small = fm.maxent("survived ~ sex + age", ti, **TIGHT)
    scope = "~ . + factor(pclass) + sibsp + parch + sex:age + factor(pclass):sex"
    m0 = fm.maxent("survived ~ factor(pclass) + sex", ti, **TIGHT)
    m1 = fm.maxent("survived ~ factor(pclass) * sex + age", ti, **TIGHT)
    q_full = fm.umaxent("cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK + PERHISP", star,
                        **TIGHT)
    q_small = fm.umaxent("cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN", star, **TIGHT)
    return {
        "ti_drop1_none": lambda: fm.drop1(full),
        "ti_drop1_Chisq": lambda: fm.drop1(full, test="Chisq"),
        "ti_drop1_F": lambda: fm.drop1(full, test="F"),
        "ti_drop1_Rao": lambda: fm.drop1(full, test="Rao"),
        "ti_add1_Chisq": lambda: fm.add1(small, scope, ti, test="Chisq"),
        "ti_add1_F": lambda: fm.add1(small, scope, ti, test="F"),
        "ti_anova_Chisq": lambda: fm.anova(full, test="Chisq"),
        "ti_anova_F": lambda: fm.anova(full, test="F"),
        "ti_anova_Rao": lambda: fm.anova(full, test="Rao"),
        "ti_nested_Chisq": lambda: fm.anova(m0, m1, test="Chisq"),
        "ti_nested_F": lambda: fm.anova(m0, m1, test="F"),
        "star_quasi_drop1_F": lambda: fm.drop1(q_full, test="F"),
        "star_quasi_drop1_Chisq": lambda: fm.drop1(q_full, test="Chisq"),
        "star_quasi_anova_F": lambda: fm.anova(q_full, test="F"),
        "star_quasi_anova_fixed_F": lambda: fm.anova(q_full, test="F", dispersion=1),
        "star_quasi_nested_F": lambda: fm.anova(q_small, q_full, test="F"),
    }


def test_every_r_case_is_checked(tables):
    assert sorted(tables) == sorted(R)


@pytest.mark.parametrize("case", sorted(R))
def test_printed_as_r_prints_it(tables, case):
    """Mutants: a column formatted value by value (575.18 / 34.728 / 0.28047, the issue's
    report), the stars in the p-value's cell, the F statistic zapped like the others, or the
    p-values formatted one by one each change a line."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InappropriateTestWarning)
        ours = str(tables[case]()).splitlines()
    assert ours == R[case]["lines"]


@pytest.mark.parametrize("case", sorted(R))
def test_warns_where_r_warns(tables, case):
    """R's warning for an F test without an estimated dispersion (binomial fits; a quasi fit
    given ``dispersion=``), as an InappropriateTestWarning that starts with R's words and
    names the test that fits; none elsewhere.  Mutant: the check on the family alone misses
    the fixed-dispersion case."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tables[case]()
    ours = [str(w.message) for w in caught if issubclass(w.category, InappropriateTestWarning)]
    assert len(ours) == len(R[case]["warnings"])
    for msg, r_msg in zip(ours, R[case]["warnings"]):
        r_msg = r_msg.replace("quasibinomial family", "'quasibinomial' family")  # add1's words
        assert re.match(r"(drop1|add1|anova): " + re.escape(r_msg) + ": ", msg), msg
        assert "test='Chisq'" in msg
