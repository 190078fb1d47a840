"""The response of a formula as the models use it: 0/1 labels, probabilities or counts.

Used by ``_frame.py`` (``model_frame``, ``DesignSpec.build_with_response`` and the
Dask model frame, which re-export these names) and, through it, by the cross-validation folds.
"""
from __future__ import annotations

from dataclasses import dataclass

import re

import numpy as np
import pandas as pd

from ._rsyntax import r_power
from ._vocabulary import expression_problem
from .._utils.validation import num, raise_if_any
from ..exceptions import FormulaError, ResponseError, UnseenLevelError

__all__ = ["Response", "binary_from_series", "eval_expr", "response", "response_expression",
           "FACTOR_RESPONSE"]


@dataclass(frozen=True)
class Response:
    """The response as the models use it.

    ``y`` is a proportion in [0, 1]; ``trials`` the number of binomial trials per
    row (``yes + no`` for ``cbind``, else ``None``); ``kind`` one of
    ``"binary"``, ``"probability"``, ``"counts"``; ``levels`` the (negative,
    positive) labels of a two-level factor response.
    """

    name: str
    kind: str
    y: np.ndarray
    trials: np.ndarray | None = None
    levels: tuple | None = None


#: ``C(y)`` / ``factor(y)`` on the left of a formula: the classes of the column ``y``.
FACTOR_RESPONSE = re.compile(r"^(?:C|factor)\(\s*`?([^`,()]+?)`?\s*\)$")


def response_expression(expr: str) -> str:
    """The text ``DataFrame.eval`` evaluates for the response expression ``expr`` (``I(...)``
    unwrapped; R's ``^`` is the power)."""
    inner = expr.strip()
    if inner.startswith("I(") and inner.endswith(")"):
        inner = inner[2:-1]
    return r_power(inner)


def eval_expr(expr: str, data: pd.DataFrame) -> pd.Series:
    """The response expression ``expr`` evaluated on ``data`` (checked by its syntax tree
    first: columns, constants, operators and pandas' math functions,
    ``_vocabulary.py``)."""
    m = FACTOR_RESPONSE.match(expr.strip())
    if m is not None and m.group(1) in data.columns:   # C(y) / factor(y): the column's classes
        return data[m.group(1)].astype("category")
    inner = response_expression(expr)
    why = expression_problem(inner, "pandas")
    if why is not None:
        raise FormulaError(f"cannot evaluate the response {expr!r}: {why}.")
    try:
        out = data.eval(inner, engine="python")
    except Exception as exc:  # pandas raises many types
        raise FormulaError(f"cannot evaluate the response {expr!r}: {exc}") from None
    return pd.Series(out, index=data.index)


def binary_from_series(s: pd.Series, name: str, levels=None) -> tuple[np.ndarray, tuple | None]:
    if levels is not None and levels != (False, True):
        unknown = set(pd.unique(s.to_numpy())) - set(levels)
        if unknown:
            raise UnseenLevelError(
                f"the response '{name}' has level {sorted(unknown, key=str)[0]!r}, which was not "
                f"present when the model was fitted (known levels: {levels[0]!r}, {levels[1]!r})."
            )
        return (s == levels[1]).to_numpy(dtype=float), tuple(levels)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.to_numpy(dtype=float), (False, True)
    if isinstance(s.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(s.dtype):
        if isinstance(s.dtype, pd.CategoricalDtype):
            levels = list(s.cat.categories)
            present = [lv for lv in levels if (s == lv).any()]
            levels = present if len(present) == 2 else levels
        else:
            levels = sorted(pd.unique(s.to_numpy()), key=str)
        if len(levels) != 2:
            raise ResponseError(_classes_message(name, levels))
        # like R: the first level is 'failure' (0), the second 'success' (1)
        return (s == levels[1]).to_numpy(dtype=float), (levels[0], levels[1])
    return s.to_numpy(dtype=float), None


def _literal(value) -> str:
    """A value as it is written in a formula: 2 (not 2.0) for a whole number, 'a' for text."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return num(value)
    return repr(value)


def _classes_message(name: str, levels) -> str:
    values = [v.item() if hasattr(v, "item") else v for v in levels]
    need = ("the model needs a binary response (two levels, 0/1 labels, probabilities in "
            "[0, 1] or cbind(yes, no) counts)")
    if len(values) == 2:          # two numeric codes other than 0/1, e.g. 1/2
        lo, hi = (_literal(v) for v in values)
        return (f"{need}; the response '{name}' is coded {lo} and {hi}, not 0/1. Say which code "
                f"is the event (1, the class whose F is measured) in the formula: "
                f'"I({name} == {hi}) ~ ..." (or recode the column to 0/1, or make it a factor '
                f"with levels [{lo}, {hi}]: the second level is the event, as in R).")
    shown = ", ".join(map(_literal, values[:10])) + (", ..." if len(values) > 10 else "")
    return (f"{need}; the response '{name}' has {len(values)} "
            f"class{'es' if len(values) != 1 else ''} ({shown}). Recode it into two in the "
            f'formula, e.g. "I({name} == {_literal(values[-1])}) ~ ..." (one class against the '
            "rest), or model every class with fm.multinom().")


def response(kind: str, cols: list[str], expr: str | None, data: pd.DataFrame, lhs: str,
              levels: tuple | None = None) -> Response:
    if kind == "cbind":
        yes = data[cols[0]].to_numpy(dtype=float)
        no = data[cols[1]].to_numpy(dtype=float)
        for nm, v in ((cols[0], yes), (cols[1], no)):
            if (v < 0).any():
                i = int(np.flatnonzero(v < 0)[0])
                raise ResponseError(
                    f"cbind() counts must be non-negative; column '{nm}' holds {num(v[i])} at row "
                    f"{data.index[i]!r}."
                )
        trials = yes + no
        with np.errstate(invalid="ignore", divide="ignore"):
            y = np.where(trials > 0, yes / np.where(trials > 0, trials, 1.0), 0.0)
        return Response(name=lhs, kind="counts", y=y, trials=trials)
    s = data[cols[0]] if kind == "column" else eval_expr(expr, data)
    y, levels = binary_from_series(s, lhs, levels)
    if levels is not None:
        return Response(name=lhs, kind="binary", y=y, levels=levels)
    if np.any((y < 0) | (y > 1)):
        fin = y[np.isfinite(y)]
        if fin.size and np.all(fin == np.round(fin)):      # integer codes of several classes
            raise ResponseError(_classes_message(lhs, np.unique(fin)))
    raise_if_any((y < 0) | (y > 1), ResponseError, lambda i, k: (
        f"the response '{lhs}' must be 0/1 labels or probabilities in [0, 1]; row "
        f"{data.index[i]!r} holds {num(y[i])} ({k} value(s) outside [0, 1])."))
    is01 = bool(np.all((y == 0) | (y == 1)))
    return Response(name=lhs, kind="binary" if is01 else "probability", y=y)
