"""One quote-aware scanner of formula text (``fmstats.formula._scan``), used by every place
that splits or rewrites formula text: the ``~`` between the sides (``split_formula`` and the
safety check), the ``:`` of a term's factors (``step``/``drop1``), the ``,`` of a response
call's arguments, the ``)`` closing ``offset(``, R's ``^``.

The scanner is checked against a straightforward re-implementation written here (the quoted
spans blanked by a regular expression, the depth a running sum), on the cases the six former
copies handled and on random strings of the characters that matter; then each user is
checked on the case that distinguishes a quote-aware split from a naive one.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import fmstats as fm
from fmstats.exceptions import FormulaError
from fmstats.formula import _scan
from fmstats.formula import formula_problem, split_formula, split_tilde, split_top

# a quoted span: '...' or "..." with backslash escapes, `...` without; unterminated to the end
_QUOTED = re.compile(r"""'(?:\\.|[^'\\])*(?:'|\\?$)|"(?:\\.|[^"\\])*(?:"|\\?$)|`[^`]*(?:`|$)""",
                     re.S)


def _reference(text: str) -> list[tuple[int, str, int]]:
    """(position, character, depth) outside quotes, computed another way."""
    blank = _QUOTED.sub(lambda m: "\0" * len(m.group()), text)
    out, depth = [], 0
    for i, ch in enumerate(blank):
        if ch == "\0":
            continue
        if ch in ")]}":
            depth -= 1
        out.append((i, ch, depth))
        if ch in "([{":
            depth += 1
    return out


CASES = [
    "y ~ x1 + x2",
    "y ~ (a + b)^2 + I(x^2) + I(s == 'a^b')",
    "survived ~ C(pclass):sex + age",
    "y ~ I(s == '~') + x",
    "y ~ I(s == \"a:b\") : g",
    "y ~ `odd ~ name` + `a:b`:c",
    "y ~ I(s == 'it\\'s ~ here') + x",
    'y ~ I(s == "say \\"~\\"") + x',
    "cbind(succ, fail) ~ offset(log(n)) + x[1] + {z}",
    "y ~ C(g, levels=['a,b', 'c']) + x",
    "y ~ I(s == 'unterminated ~ x",
    "y ~ `unterminated name ~ x",
    "y ~ x) + (z",
    "",
]


@pytest.mark.parametrize("text", CASES)
def test_scan_matches_an_independent_reimplementation(text):
    assert list(_scan.scan(text)) == _reference(text)


def test_scan_on_random_text():
    rng = np.random.default_rng(0)
    alphabet = list("ab ~+:,^()[]{}'\"`\\")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet, size=int(rng.integers(0, 25))))
        assert list(_scan.scan(text)) == _reference(text), text


@pytest.mark.parametrize("text, sep, parts", [
    ("C(pclass):sex", ":", ["C(pclass)", "sex"]),
    ("I(a:b):c", ":", ["I(a:b)", "c"]),
    ("C(a, levels=['x:y']):b", ":", ["C(a, levels=['x:y'])", "b"]),
    ("`a:b`:c", ":", ["`a:b`", "c"]),
    ("I(s == 'it\\'s:'):c", ":", ["I(s == 'it\\'s:')", "c"]),
    ("succ, fail", ",", ["succ", " fail"]),
    ("f(a, b), c", ",", ["f(a, b)", " c"]),
    ("x", ":", ["x"]),
    ("", ":", [""]),
])
def test_split_top(text, sep, parts):
    assert split_top(text, sep) == parts


@pytest.mark.parametrize("text, sides", [
    ("y ~ x", ("y ", " x")),
    ("~ x + z", ("", " x + z")),
    ("x + z", ("", "x + z")),
    ("y ~ I(s == '~')", ("y ", " I(s == '~')")),
    ("`a~b` ~ x", ("`a~b` ", " x")),
    ("y ~ I(s == 'a\\'~')", ("y ", " I(s == 'a\\'~')")),
    ("y ~ f(x ~ z)", ("y ", " f(x ~ z)")),
    ("y ~ x ~ z", None),
])
def test_split_tilde(text, sides):
    assert split_tilde(text) == sides


def test_closing():
    text = "offset(I(s == ')')) + x"
    assert _scan.closing(text, 6) == text.index(") + x")
    assert _scan.closing("offset(log(z)) + x", 6) == 13
    assert _scan.closing("offset(log(z) + x", 6) is None


def test_replace_top_is_r_power():
    from fmstats.formula._rsyntax import r_power

    text = "y ~ (a + b)^2 + I(x^2) + I(s == 'a^b') + `c^d` + I(t == 'e\\'^')"
    assert r_power(text) == ("y ~ (a + b)**2 + I(x**2) + I(s == 'a^b') + `c^d` + "
                             "I(t == 'e\\'^')")
    plain = "y ~ x"
    assert r_power(plain) is plain


def test_split_formula_is_quote_aware_and_has_one_rule():
    """The two rules for '~' were one quote-aware (the safety check) and one not
    (``split_formula``); now both ask the scanner, and both refuse a second '~'."""
    assert split_formula("I(s == '~ x') ~ z") == ("I(s == '~ x')", "z")
    assert split_formula("y ~ I(s == '~')") == ("y", "I(s == '~')")
    with pytest.raises(FormulaError, match="more than one '~'"):
        split_formula("y ~ x ~ z")
    assert "more than one '~'" in formula_problem("y ~ x ~ z")
    assert formula_problem("y ~ I(s == '~') + x") is None


def test_step_reads_factors_of_quoted_terms():
    """drop1/step split a term's label into factors at ':' outside quotes."""
    from fmstats.maxent_models._stepwise import factors_of

    assert factors_of("C(g, levels=['a:b', 'c']):x") == frozenset(
        {"C(g,levels=['a:b','c'])", "x"})
    assert factors_of("I(s == 'x:y')") == frozenset({"I(s=='x:y')"})


def test_a_fit_with_quoted_tilde_and_colon_in_its_formula():
    d = fm.datasets.titanic_complete()
    d = d.assign(t=np.where(d["sex"] == "male", "m~a:le", "f"),
                 male=(d["sex"] == "male").astype(float))
    fit = fm.maxent("survived ~ I(t == 'm~a:le') + age", d)
    ref = fm.maxent("survived ~ male + age", d)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
