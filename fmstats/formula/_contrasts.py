"""Contrasts of factors: the ``contrasts=`` argument and R's ``C(g, sum)`` inside formulas.

Used by ``_frame.py`` (``model_frame``).  A factor's contrasts are the
columns that code it in the design.  Four are known, with R's definitions (both engines
implement them exactly as R's ``contr.*`` functions):

==============  ====================  ==========================================
name            R                     columns for levels a, b, c
==============  ====================  ==========================================
``treatment``   ``contr.treatment``   indicators of b and c (a is the reference)
``sum``         ``contr.sum``         a: (1, 0), b: (0, 1), c: (-1, -1)
``helmert``     ``contr.helmert``     a: (-1, -1), b: (1, -1), c: (0, 2)
``poly``        ``contr.poly``        orthonormal polynomials in the level order
==============  ====================  ==========================================

``contrasts={"pclass": "sum"}`` (R's ``glm(contrasts = list(pclass = "contr.sum"))``) codes the
factor ``pclass`` with them wherever the formula uses it, bare or as ``C(pclass)`` /
``factor(pclass)``: the right-hand side is rewritten to ``C(pclass, contr.sum)`` (formulaic's
spelling; patsy's is ``C(pclass, Sum)``), which also names its coefficients
(``C(pclass, contr.sum)[S.1]``).  Inside a formula, R's ``C(g, sum)`` and the engines'
``C(g, Sum)``, ``C(g, contr.sum)`` are all accepted and translated for the engine in use.
"""
from __future__ import annotations

import io
import re
import tokenize

import pandas as pd

from .._utils.validation import describe
from ..exceptions import InvalidArgumentError

__all__ = ["CONTRASTS", "contrast_key", "apply_contrasts"]

#: The known contrasts: name -> (formulaic's spelling, patsy's spelling).
CONTRASTS = {"treatment": ("contr.treatment", "Treatment"),
             "sum": ("contr.sum", "Sum"),
             "helmert": ("contr.helmert", "Helmert"),
             "poly": ("contr.poly", "Poly")}

_ALIASES = {alias: key for key, (f, p) in CONTRASTS.items() for alias in (key, f, p)}


def contrast_key(value, factor: str) -> str:
    """The canonical name (``"sum"``) of a contrast given as ``"sum"``, ``"contr.sum"`` or
    ``"Sum"``; anything else is an :class:`InvalidArgumentError` naming ``contrasts``."""
    key = _ALIASES.get(value) if isinstance(value, str) else None
    if key is None:
        raise InvalidArgumentError(
            f"`contrasts`: unknown contrast {describe(value)} for factor {factor!r}; use one of "
            f"{', '.join(repr(k) for k in CONTRASTS)} (R's contr.treatment, contr.sum, "
            "contr.helmert, contr.poly).")
    return key


def _spelling(key: str, engine: str) -> str:
    return CONTRASTS[key][0 if engine == "formulaic" else 1]


def _is_factor(s: pd.Series) -> bool:
    return (isinstance(s.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(s.dtype)
            or not pd.api.types.is_numeric_dtype(s.dtype))


def _tokens(rhs: str):
    """(type, string, start offset, end offset) of the tokens of ``rhs``; back-quoted names
    are one NAME token each."""
    masked = re.sub(r"`[^`]*`", lambda m: "_" * len(m.group(0)), rhs)
    starts = [0]
    for line in masked.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(masked).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                            tokenize.DEDENT):
                continue
            a = starts[tok.start[0] - 1] + tok.start[1]
            b = starts[tok.end[0] - 1] + tok.end[1]
            out.append((tok.type, rhs[a:b], a, b))
    except (tokenize.TokenError, SyntaxError):
        return None          # the engine reports the syntax error
    return out


def apply_contrasts(rhs: str, contrasts, engine: str, data: pd.DataFrame) -> str:
    """``rhs`` with the contrasts of ``contrasts`` (factor -> name) and R's spellings inside
    ``C()`` translated for ``engine``.

    Raises :class:`InvalidArgumentError` naming ``contrasts`` when it is not a mapping, names
    a contrast that is not known, a factor the formula does not use, a numeric variable used
    as a number, or a factor whose ``C()`` already gives a contrast.
    """
    if contrasts is not None and not isinstance(contrasts, dict):
        raise InvalidArgumentError(
            f"`contrasts` must be a dict of factor -> contrast (e.g. {{'pclass': 'sum'}}); got "
            f"{describe(contrasts)}.")
    wanted = {str(k): contrast_key(v, str(k)) for k, v in (contrasts or {}).items()}
    if not wanted and not re.search(r"\bC\s*\(", rhs):
        return rhs
    toks = _tokens(rhs)
    if toks is None:
        return rhs
    edits: list[tuple[int, int, str]] = []      # (start, end, replacement)
    seen: set = set()
    stack: list[bool] = []                      # per open parenthesis: is it a call?
    i = 0
    while i < len(toks):
        typ, text, a, b = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else ""
        prev = toks[i - 1][1] if i else ""
        if typ == tokenize.NAME and text in ("C", "factor") and nxt == "(" and prev != ".":
            i = _factor_call(toks, i, wanted, engine, edits, seen)
            continue
        if text == "(":
            stack.append(i > 0 and toks[i - 1][0] == tokenize.NAME)
        elif text == ")":
            if stack:
                stack.pop()
        elif (typ == tokenize.NAME and text in wanted and not any(stack) and nxt != "("
              and prev != "." and nxt != "="):
            if text not in data.columns or not _is_factor(data[text]):
                raise InvalidArgumentError(
                    f"`contrasts` gives a contrast for {text!r}, which the formula uses as a "
                    f"number; write C({text}) in the formula to use it as a factor.")
            edits.append((a, b, f"C({text}, {_spelling(wanted[text], engine)})"))
            seen.add(text)
        i += 1
    unused = [k for k in wanted if k not in seen]
    if unused:
        raise InvalidArgumentError(
            f"`contrasts` names {', '.join(map(repr, unused))}, which the formula does not use "
            "as a factor; name factors of the formula (bare or in C()/factor()).")
    for a, b, new in sorted(edits, reverse=True):
        rhs = rhs[:a] + new + rhs[b:]
    return rhs


def _factor_call(toks, i, wanted, engine, edits, seen) -> int:
    """Handle ``C(`` / ``factor(`` at token ``i``; return the index after its ``)``."""
    depth, j = 0, i + 1
    args: list[list] = [[]]
    while j < len(toks):
        text = toks[j][1]
        if text in "([{" and text:
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif text in ")]}" and text:
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and text == ",":
            args.append([])
        else:
            args[-1].append(toks[j])
        j += 1
    close = toks[j][2] if j < len(toks) else None
    first = args[0]
    name = first[0][1] if len(first) == 1 and first[0][0] == tokenize.NAME else None
    second = args[1] if len(args) > 1 else []
    positional = second and not (len(second) > 1 and second[1][1] == "=")
    if positional:
        text = "".join(t[1] for t in second).replace(" ", "")
        key = _ALIASES.get(text)
        if key is not None:
            edits.append((second[0][2], second[-1][3], _spelling(key, engine)))
        if name in wanted:
            raise InvalidArgumentError(
                f"`contrasts` gives a contrast for {name!r}, whose C() in the formula already "
                "has one; give it in one place only.")
    elif name in wanted and close is not None and toks[i][1] == "C":
        edits.append((first[-1][3], first[-1][3], f", {_spelling(wanted[name], engine)}"))
        seen.add(name)
    elif name in wanted and close is not None:       # factor(g): C(g, contrast) for both engines
        edits.append((toks[i][2], close + 1, f"C({name}, {_spelling(wanted[name], engine)})"))
        seen.add(name)
    return j + 1
