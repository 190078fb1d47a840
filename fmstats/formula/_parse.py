"""The text of a formula: its two sides, the names it uses, R's ``.`` and the form of the
response (a column, ``cbind(yes, no)`` or an expression).  Used by
``_frame.py``, which re-exports these names, and the Dask model frame.
"""
from __future__ import annotations

import io
import keyword
import re
import tokenize

import pandas as pd

from ._rsyntax import R_FUNCTIONS
from ._scan import split_top
from .._utils.validation import describe
from ..exceptions import FormulaError

__all__ = ["ENGINES", "DEFAULT_ENGINE", "split_formula", "formula_names", "expand_dot",
           "check_formula_columns", "used_variables", "parse_response"]

ENGINES = ("formulaic", "patsy")
#: The formula engine used when none is given (``engine=None``).
DEFAULT_ENGINE = "formulaic"

_CBIND = re.compile(r"^\s*cbind\s*\((?P<args>.*)\)\s*$", re.S)


def split_formula(formula: str) -> tuple[str, str]:
    """Split ``"lhs ~ rhs"`` at its tilde outside quotes and brackets (the one rule of
    :func:`split_tilde`), both sides stripped and non-empty.

    Parameters
    ----------
    formula : str
        The formula.

    Returns
    -------
    tuple of str
        (left-hand side, right-hand side).
    """
    if not isinstance(formula, str):
        raise FormulaError(f"`formula` must be a string like 'y ~ x1 + x2'; got {describe(formula)}.")
    sides = split_top(formula, "~")
    if len(sides) == 1:
        raise FormulaError(f"`formula` must have the form 'response ~ terms'; got {formula!r}.")
    if len(sides) > 2:
        raise FormulaError(f"`formula` has more than one '~' (outside quotes); got {formula!r}.")
    lhs, rhs = sides[0].strip(), sides[1].strip()
    if not lhs:
        raise FormulaError(f"`formula` needs a response on the left of '~'; got {formula!r}.")
    if not rhs:
        raise FormulaError(f"`formula` needs terms on the right of '~' (use '1' for "
                           f"an intercept only); got {formula!r}.")
    return lhs, rhs


def formula_names(expr: str) -> list[str]:
    """Identifiers (and back-quoted names) used in a formula side, in order of appearance.

    Parameters
    ----------
    expr : str
        A side of a formula.

    Returns
    -------
    list of str
        The names, in order of appearance.
    """
    names: list[str] = []
    for m in re.finditer(r"`([^`]+)`", expr):
        names.append(m.group(1))
    expr = re.sub(r"`[^`]+`", " ", expr)
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(expr).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise FormulaError(f"cannot parse formula term {expr!r}: {exc}") from None
    prev = None
    for i, tok in enumerate(toks):
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            is_call = nxt is not None and nxt.string in ("(", ".")
            is_attr = prev is not None and prev.string == "."
            # a keyword argument of a call (bs(age, df=4)): its name is not a column
            is_keyword = nxt is not None and nxt.string == "=" and prev is not None \
                and prev.string in ("(", ",")
            if not is_call and not is_attr and not is_keyword:
                names.append(tok.string)
        prev = tok
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


_DOT = re.compile(r"(?<![\w.])\.(?![\w.])")


def expand_dot(rhs: str, columns, exclude=(), engine: str | None = None) -> str:
    """R's ``.`` on the right of a formula: every column not used by the response.

    ``"y ~ . - x3"`` keeps working (the dot becomes a parenthesised sum).  Names that
    are not identifiers are quoted for the engine (backticks for formulaic, ``Q()``
    for patsy).

    Parameters
    ----------
    rhs : str
        The right-hand side of the formula.
    columns : sequence of str
        The data's columns.
    exclude : sequence of str, default ()
        The columns the dot leaves out (those of the response).
    engine : {"formulaic", "patsy"}, optional
        The formula engine that will read the result (None: the default engine).

    Returns
    -------
    str
        ``rhs`` with the dot replaced by the sum of the columns.
    """
    bare = re.sub(r"`[^`]*`", lambda m: "_" * len(m.group(0)), rhs)
    spots = [m.start() for m in _DOT.finditer(bare)]
    if not spots:
        return rhs
    patsy = (DEFAULT_ENGINE if engine is None else engine) == "patsy"
    names = [str(c) if str(c).isidentifier() else (f"Q({str(c)!r})" if patsy else f"`{c}`")
             for c in columns if c not in set(exclude)]
    if not names:
        raise FormulaError("`formula` uses '.' (all other columns) but `data` has no column "
                           "besides the response.")
    sub = "(" + " + ".join(names) + ")"
    for i in reversed(spots):
        rhs = rhs[:i] + sub + rhs[i + 1:]
    return rhs


def check_formula_columns(data: pd.DataFrame, names, formula: str, arg: str = "data") -> None:
    """A :class:`FormulaError` naming the ``names`` that are not columns of ``data``."""
    missing = [n for n in names if n not in data.columns]
    if missing:
        raise FormulaError(
            f"`formula` {formula!r} uses column(s) {', '.join(map(repr, missing))} not found in "
            f"`{arg}` (available: {', '.join(map(str, list(data.columns)[:20]))}"
            f"{', ...' if data.shape[1] > 20 else ''})."
        )


def used_variables(rhs: str, data: pd.DataFrame) -> list[str]:
    """The columns of ``data`` that a right-hand side uses (unknown names raise)."""
    names = formula_names(rhs)
    unknown = [n for n in names if n not in data.columns and n not in _ENGINE_NAMES]
    if unknown:
        raise FormulaError(
            f"`formula` uses {', '.join(map(repr, unknown))}, which is neither a column of "
            f"`data` nor a known function."
        )
    return [n for n in names if n in data.columns]


# names an engine resolves itself (functions, constants)
_ENGINE_NAMES = {"np", "C", "factor", "I", "Q", "center", "scale", "standardize", "poly",
                 "bs", "log", "exp", "sqrt", "abs", "Treatment", "Sum", "Helmert", "Diff",
                 "Poly", "True", "False", "None", "pi", "contr", "lag"} | set(R_FUNCTIONS)



def parse_response(lhs: str, data: pd.DataFrame,
                   arg: str = "data") -> tuple[str, list[str], str | None]:
    """The kind of a formula's left-hand side and the columns it uses.

    Parameters
    ----------
    lhs : str
        The left-hand side.
    data : pandas.DataFrame
        The data it is evaluated on.
    arg : str, default "data"
        The argument ``data`` came from, for the messages.

    Returns
    -------
    tuple
        (kind, columns, expression), kind ``"cbind"``, ``"column"`` or ``"expr"``."""
    m = _CBIND.match(lhs)
    if m:
        args = [a.strip().strip("`") for a in _split_args(m.group("args"))]
        if len(args) != 2:
            raise FormulaError(
                f"cbind() on the left of the formula takes exactly two columns (successes, "
                f"failures); got {len(args)}: {lhs!r}."
            )
        check_formula_columns(data, args, lhs, arg)
        return "cbind", args, None
    name = lhs.strip("`").strip()
    if name in data.columns:
        return "column", [name], None
    names = formula_names(lhs)
    check_formula_columns(data, [n for n in names if n not in _ENGINE_NAMES], lhs, arg)
    return "expr", [n for n in names if n in data.columns], lhs



def _split_args(text: str) -> list[str]:
    return [a for a in split_top(text, ",") if a.strip()]
