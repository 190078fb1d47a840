"""Offsets: ``offset(expr)`` terms of a formula and the ``offset=`` argument of the models.

Used by ``_frame.py`` (``model_frame`` and ``DesignSpec``).  An offset is a
known part of the linear predictor, eta = X b + offset, with no coefficient (R's
``offset()`` and ``glm(offset =)``):

* ``offset(expr)`` terms on the right of a formula are taken out of the right-hand side
  before it reaches the engine, and ``expr`` (``log(exposure)``, ``0.5 * x``: the columns of the
  data with R's elementary functions, ``R_FUNCTIONS``, and
  ``np.<ufunc>``) is evaluated on the rows used, after its syntax tree is checked to use
  nothing else (``_vocabulary.py``: no attribute access such as
  ``np.__builtins__``); several terms add up;
* ``offset=`` is the name of a numeric column, or an array with one finite value per row of
  ``data`` (a Series is aligned on its index); it adds to the formula's terms.

Offsets given by expressions or column names are re-evaluated on new data by ``predict``, as
R does; an offset given as an array belongs to the training rows, so predictions on new data
refuse it (give a column name instead).  The variables of offsets are model variables:
rows where they are missing are treated by ``na_action`` like any other.
"""
from __future__ import annotations

import io
import re
import tokenize

import numpy as np
import pandas as pd

from ._rows import aligned
from ._rsyntax import R_FUNCTIONS, r_power
from ._scan import closing
from ._vocabulary import expression_problem
from .._utils.validation import describe
from ..exceptions import DataError, FormulaError, InvalidArgumentError

__all__ = ["split_offsets", "offset_names", "evaluate_offsets", "offset_argument",
           "ARRAY_OFFSET", "refuse_offsets"]

#: How a spec records an offset given as an array (it belongs to the training rows).
ARRAY_OFFSET = "<array>"

_OFFSET_CALL = re.compile(r"\boffset\s*\(")


def _closing(text: str, start: int) -> int:
    """Position of the parenthesis closing the one at ``start``."""
    at = closing(text, start)
    if at is None:
        raise FormulaError(f"unbalanced parentheses in the formula term {text[start - 6:]!r}.")
    return at


def split_offsets(rhs: str) -> tuple[str, tuple[str, ...]]:
    """The right-hand side without its ``offset(...)`` terms, and their expressions.

    Only added terms are offsets (``+ offset(z)``); ``- offset(z)`` or an offset inside an
    interaction is a :class:`FormulaError`.
    """
    if not _OFFSET_CALL.search(rhs):
        return rhs, ()
    exprs = []
    out = rhs
    while True:
        m = _OFFSET_CALL.search(out)
        if m is None:
            break
        open_at = out.index("(", m.start())
        close = _closing(out, open_at)
        inner = out[open_at + 1:close].strip()
        if not inner:
            raise FormulaError("`formula`: offset() needs an expression, e.g. offset(log(n)).")
        before = out[:m.start()].rstrip()
        after = out[close + 1:].lstrip()
        if before.endswith(("-", ":", "*", "/", "%in%")) or after.startswith((":", "*", "/")):
            raise FormulaError(
                f"`formula`: offset({inner}) must be added as a term of its own "
                f"('y ~ x + offset({inner})'); it cannot be removed or enter an interaction.")
        before, after = before.rstrip("+ "), after.lstrip("+ ")
        out = (before + " + " + after) if before and after else (before or after)
        exprs.append(inner)
    return out.strip() or "1", tuple(exprs)


def _quoted(expr: str) -> tuple[str, dict]:
    """``expr`` with back-quoted names replaced by placeholders, and placeholder -> name."""
    names: dict = {}

    def sub(m):
        key = f"__fmstats_q{len(names)}__"
        names[key] = m.group(1)
        return key

    return re.sub(r"`([^`]+)`", sub, expr), names


def _names(expr: str) -> list[str]:
    code, quoted = _quoted(expr)
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise FormulaError(f"cannot parse the offset expression {expr!r}: {exc}") from None
    out = []
    for i, tok in enumerate(toks):
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        prev = toks[i - 1].string if i else ""
        name = quoted.get(tok.string, tok.string)
        if tok.type == tokenize.NAME and nxt not in ("(", ".") and prev != "." \
                and name not in out:
            out.append(name)
    return out


def offset_names(exprs, data: pd.DataFrame) -> list[str]:
    """The columns of ``data`` the offset expressions use (unknown names raise)."""
    cols: list[str] = []
    for expr in exprs:
        names = _names(expr)
        unknown = [n for n in names if n not in data.columns and n not in R_FUNCTIONS
                   and n not in ("np", "pi", "True", "False")]
        if unknown:
            raise FormulaError(
                f"`formula`: offset({expr}) uses {', '.join(map(repr, unknown))}, which is "
                "neither a column of `data` nor a known function.")
        cols += [n for n in names if n in data.columns and n not in cols]
    return cols


def evaluate_offsets(exprs, data: pd.DataFrame, arg: str = "data") -> np.ndarray | None:
    """The sum of the offset expressions on the rows of ``data`` (None without offsets).

    A value that is not finite (``log(0)``) is a :class:`DataError` naming the expression
    and the row.
    """
    if not exprs:
        return None
    total = np.zeros(len(data))
    env = {"np": np, "pi": np.pi, **R_FUNCTIONS}
    for expr in exprs:
        why = expression_problem(expr, "offset")    # before it is evaluated, every time
        if why is not None:
            raise FormulaError(f"`formula`: offset({expr}) cannot be evaluated: {why}; an offset "
                               "uses the data's columns, numbers, arithmetic and R's "
                               "elementary functions (log, exp, sqrt, ...).")
        code, quoted = _quoted(expr)
        cols = {key: data[name] for key, name in quoted.items() if name in data.columns}
        cols.update({c: data[c] for c in _names(expr) if c in data.columns and c.isidentifier()})
        cols = {k: pd.to_numeric(v, errors="coerce").to_numpy(dtype=float) for k, v in cols.items()}
        try:
            with np.errstate(all="ignore"):
                value = eval(r_power(code), {"__builtins__": {}}, {**env, **cols})  # noqa: S307
            value = np.broadcast_to(np.asarray(value, dtype=float), (len(data),))
        except Exception as exc:   # names and syntax were checked: the values are wrong
            raise FormulaError(f"cannot evaluate offset({expr}) on `{arg}`: "
                               f"{type(exc).__name__}: {exc}") from None
        bad = ~np.isfinite(value)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(
                f"offset({expr}) is not finite on {int(bad.sum())} row(s) of `{arg}` (row "
                f"{data.index[i]!r} gives {value[i]}); an offset must be a finite number.")
        total += value
    return total


def offset_argument(offset, data: pd.DataFrame) -> tuple[str | None, np.ndarray | None]:
    """The ``offset=`` argument read: ``(column name, None)`` or ``(None, values)``.

    A column name must be a column of ``data``; an array needs one finite number per row of
    ``data`` (a Series is aligned on its index by label).  Anything else is an
    :class:`InvalidArgumentError` or a :class:`DataError` naming ``offset``.
    """
    if offset is None:
        return None, None
    if isinstance(offset, str):
        if offset not in data.columns:
            raise InvalidArgumentError(
                f"`offset` names column {offset!r}, which is not in `data`; give a column "
                "name or an array with one value per row.")
        return offset, None
    n = len(data)
    offset = aligned(offset, data, "offset")
    try:
        values = np.asarray(offset, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"`offset` must be a column name or numbers, one per row of "
                                   f"`data`; got {describe(offset)}.") from None
    if values.ndim != 1 or values.shape[0] != n:
        raise DataError(f"`offset` must have one value per row of `data` ({n}); got shape "
                        f"{values.shape}.")
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"`offset` must be finite; position {i} holds {values[i]} "
                        f"({int(bad.sum())} value(s) not finite).")
    return None, values


def refuse_offsets(frame, model: str) -> None:
    """Refuse the offsets of a model frame for a model that has no offset (the SVMs, multinom,
    the cost-sensitive reductions): fitted without them, its fit would equal the fit
    without the terms, and an argument without effect is refused, not ignored.

    Parameters
    ----------
    frame : ModelFrame
        The model frame (its ``spec.offsets`` and ``offset``).
    model : str
        The model function, as the message names it (``"wsvm"``).
    """
    exprs = tuple(getattr(frame.spec, "offsets", ()) or ())
    if not exprs and getattr(frame, "offset", None) is None:
        return
    shown = ", ".join(f"offset({e})" for e in exprs) or "the offset"
    raise FormulaError(
        f"`formula`: {model}() has no offset (a known part of the linear predictor), so "
        f"{shown} would be ignored and the fit would equal the one without it; remove the "
        "term, or use a model that takes offsets (maxent, umaxent).")
