"""Whether text read from a results file may be evaluated: formulas, designs, offsets, subsets,
responses and contrasts, each checked by its syntax tree, in one place.

Used by :mod:`fmstats.results` (``load()`` checks every such string a file holds before
anything is built, and ``save()`` writes a data-only file only when ``load()`` will accept
it) and by :class:`fmstats.formula.DesignSpec` (a design read from a file is checked again
when its engine specification is rebuilt, at the first prediction).

Formulas are code to the engines: a term ``I(...)`` or ``np.log(x)`` is evaluated by Python's
``eval``, an offset by ``eval``, a response or ``subset=`` by ``DataFrame.eval``.  A formula
a user typed is theirs to run; text read from a file is checked here first, by
:func:`text_problem`, on the exact text that will be evaluated:

* a design's right-hand side (``DesignSpec.rhs``, what the engine is given: R's ``.`` was
  expanded when the model was fitted) is parsed by the engine's own parser, which evaluates
  nothing, and every term the engine evaluates as Python is checked by
  ``expression_problem`` (names, constants, operators and
  calls of the formula vocabulary only; formulaic's ``lookup`` and ``literal`` factors are a
  name and a constant);
* a formula as typed (a recorded call's ``formula``, which ``refit`` runs through the formula
  layer again): its response, its ``offset()`` terms (taken out as the formula layer takes
  them out) and its right-hand side, where each ``.`` that the formula layer would expand
  into the data's columns (found by :func:`fmstats.formula.expand_dot` itself) stands as one
  parenthesised placeholder name -- the engine will see the same text with a sum of column
  names there; nothing else is expanded or rewritten before the check (``(x) . query`` keeps
  its attribute access visible);
* offsets, ``subset=`` and response expressions by the vocabularies of who evaluates them
  (``eval`` with R's functions and ``np``; ``DataFrame.eval``); these are also checked every
  time they are evaluated (``_offset.py``, ``_rows.py``,
  ``_response.py``);
* ``contrasts=``: factor names mapped to the known contrasts.

Each function returns the reason a text is refused, or None when it is safe.
"""
from __future__ import annotations

import functools
import re
from typing import Any

from ._contrasts import CONTRASTS
from ._offset import split_offsets
from ._parse import ENGINES, expand_dot
from ._response import FACTOR_RESPONSE, response_expression
from ._rsyntax import r_power
from ._scan import split_tilde
from ._vocabulary import MAX_CHARS, expression_problem
from ..exceptions import FormulaError

__all__ = ["TEXT_KINDS", "text_problem", "code_problem", "formula_problem", "rhs_problem",
           "lhs_problem", "design_state_problem"]

_PLACEHOLDER = "_fmstats_dot_"
#: A response or column that is a name (R's ``Sepal.Length`` too): looked up, not evaluated
#: (when it is not a column, evaluating it is checked then).
_NAME = re.compile(r"^\s*`?[A-Za-z_.][\w.]*`?\s*$")
#: How settings record a ``subset=`` mask (:func:`fmstats.formula.describe_subset`).
_MASK = re.compile(r"a mask of \d+ of \d+ rows")
_CONTRAST_NAMES = frozenset(a for key, spellings in CONTRASTS.items()
                            for a in (key, *spellings))


def code_problem(code: str) -> str | None:
    """Why one formula term (as an engine evaluates it) is not safe, or None.

    Parameters
    ----------
    code : str
        A term as an engine evaluates it (``"np.log(x + 1)"``, ``"C(g, levels=['a', 'b'])"``).

    Returns
    -------
    str or None
        The reason, or None.
    """
    return expression_problem(code, "term")


def _engines(engine) -> tuple[tuple, str | None]:
    """The engines that may evaluate a text: the one named, or every engine when none is
    (a formula stored without its engine is checked as each engine would read it)."""
    if engine is None:
        return ENGINES, None
    if engine not in ENGINES:
        return (), f"the formula engine {engine!r} is not one of {', '.join(ENGINES)}"
    return (engine,), None


def _terms(rhs: str, engine: str) -> list[tuple[str, str]]:
    """(expression, how the engine evaluates it) of every factor the engine's parser finds."""
    if engine == "patsy":
        import patsy

        desc = patsy.ModelDesc.from_formula(rhs)
        return [(f.code, "python") for t in desc.rhs_termlist for f in t.factors]
    import formulaic
    from formulaic.formula import SimpleFormula

    parsed = formulaic.Formula(rhs)
    parts = [parsed] if isinstance(parsed, SimpleFormula) else list(parsed._flatten())
    return [(f.expr, f.eval_method.value) for part in parts for term in part
            for f in term.factors]


def _not_formula_text(text) -> str | None:
    if not isinstance(text, str):
        return f"the formula is a {type(text).__name__}, not text"
    if len(text) > MAX_CHARS:
        return f"the formula is longer than {MAX_CHARS} characters"
    return None


def factor_problem(expr, method: str, unreadable_ok: bool = False) -> str | None:
    """Why a formulaic factor (``expr`` evaluated by ``method``: ``"python"``, ``"lookup"``
    or ``"literal"``) is not safe, or None (``unreadable_ok``: see
    ``expression_problem``)."""
    if not isinstance(expr, str) or len(expr) > MAX_CHARS:
        return "a term is not text of a bounded length"
    if method == "python":
        why = expression_problem(expr, "term", unreadable_ok=unreadable_ok)
    elif method == "literal":     # formulaic reads it with ast.literal_eval
        why = None if re.fullmatch(r"\s*-?[\d.eE+-]+\s*", expr) else "it is not a number"
    elif method == "lookup":      # a name looked up in the data
        why = None
    else:
        why = f"the evaluation method {method!r} is not known"
    return None if why is None else f"in the term {expr!r}: {why}"


def rhs_problem(rhs, engine: str | None = None) -> str | None:
    """Why a right-hand side, exactly as the engine is given it, is not safe, or None.

    Parameters
    ----------
    rhs : str
        ``"x1 + C(g)"`` (R's ``^`` is rewritten to ``**`` as the formula layer does; nothing
        else is changed).
    engine : {"formulaic", "patsy"}, optional
        The engine that evaluates it; when not given, the text must be safe as each engine
        that can parse it reads it.

    Returns
    -------
    str or None
        The reason, or None.
    """
    why = _not_formula_text(rhs)
    if why is not None:
        return why
    return _rhs_problem(rhs, engine if engine is None or isinstance(engine, str) else repr(engine))


@functools.lru_cache(maxsize=512)
def _rhs_problem(rhs: str, engine: str | None) -> str | None:
    """:func:`rhs_problem` of text (memoised: a results file holds its formula several
    times -- the call, the settings, the fit -- and the engines' parsers are slow)."""
    engines, why = _engines(engine)
    if why is not None:
        return why
    text = r_power(rhs) if rhs.strip() else "1"
    if text.count("(") > 200:     # the parsers recurse: bounded before they run
        return "the formula nests too deeply"
    failed, parsed = [], False
    for name in engines:      # an engine that cannot parse the text evaluates nothing of it
        try:
            terms = _terms(text, name)
        except RecursionError:
            return "the formula nests too deeply"
        except Exception as exc:  # the parsers raise many types
            failed.append(f"the formula {text[:200]!r} cannot be parsed by {name} "
                          f"({type(exc).__name__})")
            continue
        parsed = True
        for expr, method in terms:     # an engine not named: patsy reads %in% as Python
            why = factor_problem(expr, method, unreadable_ok=engine is None)
            if why is not None:
                return why
    return None if parsed else failed[0]


def lhs_problem(lhs) -> str | None:
    """Why a response (left-hand side) is not safe, or None.

    ``cbind(yes, no)`` names two columns; a name (bare, back-quoted, or R's ``a.b``) is a
    column looked up (evaluated, and checked then, only if it is not one); ``C(y)`` and
    ``factor(y)`` of a name are a column's classes; anything else is evaluated by
    ``DataFrame.eval`` and checked by its vocabulary (``_vocabulary.py``).

    Parameters
    ----------
    lhs : str
        The left-hand side of a formula.

    Returns
    -------
    str or None
        The reason, or None.
    """
    if not isinstance(lhs, str):
        return f"the response is a {type(lhs).__name__}, not text"
    text = lhs.strip()
    inner = text[len("cbind("):-1] if text.startswith("cbind(") and text.endswith(")") \
        else None
    if inner is not None:
        names = inner.split(",")
        ok = len(names) == 2 and all(_NAME.match(n) and "__" not in n for n in names)
        return None if ok else f"in the response {text!r}: cbind() takes two column names"
    if _NAME.match(text) and "__" not in text:
        return None
    m = FACTOR_RESPONSE.match(text)
    if m is not None and _NAME.match(m.group(1)) and "__" not in m.group(1):
        return None
    why = expression_problem(response_expression(text), "pandas")
    return None if why is None else f"in the response {text!r}: {why}"


def formula_problem(text, engine: str | None = None) -> str | None:
    """Why a formula as typed (``"y ~ x1 + C(g)"``, ``"~ x1"`` or a right-hand side) is not
    safe, or None: its response, its ``offset()`` terms and its right-hand side with R's
    ``.`` as a placeholder (see the module notes).

    Parameters
    ----------
    text : str
        The formula.
    engine : {"formulaic", "patsy"}, optional
        The engine that evaluates it; when not given, the formula must be safe as each
        engine that can parse it reads it.

    Returns
    -------
    str or None
        The reason, or None.
    """
    _, why = _engines(engine)
    why = _not_formula_text(text) or why
    if why is not None:
        return why
    lhs, rhs = _split_tilde(text)
    if lhs is None:
        return rhs
    if lhs.strip():
        why = lhs_problem(lhs)
        if why is not None:
            return why
    try:
        rhs, offsets = split_offsets(rhs)
        rhs = expand_dot(rhs, [_PLACEHOLDER])     # an identifier: quoted by no engine
    except FormulaError as exc:
        return str(exc)
    for expr in offsets:
        why = expression_problem(expr, "offset")
        if why is not None:
            return f"in offset({expr}): {why}"
    return rhs_problem(rhs, engine)


def _split_tilde(text: str) -> tuple[str | None, str]:
    """(lhs, rhs) at the top-level '~' outside quotes (lhs '' if none); (None, reason)."""
    sides = split_tilde(text)
    return (None, "the formula has more than one '~'") if sides is None else sides


def _contrasts_problem(value) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return f"`contrasts` is a {type(value).__name__}, not a dict"
    for key, name in value.items():
        if not (isinstance(key, str) and _NAME.match(key) and "__" not in key):
            return f"`contrasts` names the factor {key!r}, which is not a name"
        if name not in _CONTRAST_NAMES:
            return f"`contrasts` gives {name!r}, which is not a known contrast"
    return None


def _each(value, check) -> str | None:
    """``check`` of a text, or of each text of a list or tuple (a tuning grid's values)."""
    values = value if isinstance(value, (list, tuple)) else [value]
    for v in values:
        why = None if v is None else check(v)
        if why is not None:
            return why
    return None


def _offset_column(value) -> str | None:
    # offset= names a column; the formula layer evaluates it back-quoted
    if not isinstance(value, str):
        return None      # an array (data)
    return "an `offset` column name holds a back-quote" if "`" in value else None


def _subset(value) -> str | None:
    if not isinstance(value, str) or _MASK.fullmatch(value):
        return None      # a mask (data), or how settings describe one (never evaluated)
    why = expression_problem(value, "pandas")
    return None if why is None else f"in the subset {value!r}: {why}"


def _offsets(value) -> str | None:
    for expr in value if isinstance(value, (list, tuple)) else [value]:
        why = expression_problem(expr, "offset")
        if why is not None:
            return f"in offset({expr}): {why}"
    return None


#: What each kind of stored text is, as :func:`text_problem` checks it.
TEXT_KINDS = ("formula", "rhs", "lhs", "term", "offsets", "offset", "subset", "contrasts")


def text_problem(kind: str, value: Any, engine: str | None = None) -> str | None:
    """Why stored text of ``kind`` is not safe to evaluate later, or None: the one check of
    every text read from a results file (see the module notes).

    Parameters
    ----------
    kind : {"formula", "rhs", "lhs", "term", "offsets", "offset", "subset", "contrasts"}
        A formula as typed (or a list of them, a tuning grid's), a design's right- or
        left-hand side, one engine term, a design's offset expressions, an ``offset=``
        argument (a column name), a ``subset=`` argument (an expression), a ``contrasts=``
        argument (a dict).
    value : object
        The stored value (non-text values of ``offset`` and ``subset`` are data: masks and
        arrays).
    engine : {"formulaic", "patsy"}, optional
        The engine that evaluates formulas (when not given: every engine that can parse
        them).

    Returns
    -------
    str or None
        The reason, or None.
    """
    if kind == "formula":
        return _each(value, lambda v: formula_problem(v, engine))
    if kind == "rhs":
        return rhs_problem(value, engine)
    if kind == "lhs":
        return lhs_problem(value) if not isinstance(value, str) or value.strip() else None
    if kind == "term":
        return code_problem(value)
    if kind == "offsets":
        return _offsets(value)
    if kind == "offset":
        return _each(value, _offset_column)
    if kind == "subset":
        return _each(value, _subset)
    if kind == "contrasts":
        return _each(value, _contrasts_problem)
    raise ValueError(f"unknown kind of text {kind!r}")   # pragma: no cover


def design_state_problem(state: Any) -> str | None:
    """Why the stored state of a :class:`~fmstats.formula.DesignSpec` is not safe, or None.

    The engine must be known; the right-hand side passes :func:`rhs_problem`, the
    left-hand side :func:`lhs_problem`, the offsets their vocabulary, and every term of a
    formulaic engine state :func:`factor_problem`.

    Parameters
    ----------
    state : dict
        The state :meth:`DesignSpec.file_state` returned.

    Returns
    -------
    str or None
        The reason, or None.
    """
    if not isinstance(state, dict):
        return f"the design's state is a {type(state).__name__}, not a dict"
    engine = state.get("engine")
    if engine not in ENGINES:
        return f"the design's engine {engine!r} is not one of {', '.join(ENGINES)}"
    for key in ("rhs", "lhs"):
        if not isinstance(state.get(key, ""), str):
            return f"the design's {key} is not text"
    why = (rhs_problem(state.get("rhs", ""), engine) or text_problem("lhs", state.get("lhs", ""))
           or _offsets(state.get("offsets", ())))
    if why is not None:
        return why
    engine_state = state.get("engine_state")
    if engine == "patsy" or engine_state is None:
        return None
    factors = engine_state.get("factors") if isinstance(engine_state, dict) else None
    if not isinstance(factors, list):
        return "the design's engine state has no list of terms"
    for factor in factors:
        if not (isinstance(factor, (list, tuple)) and len(factor) == 3):
            return "a term of the design's engine state is not (expression, method, kind)"
        why = factor_problem(factor[0], factor[1])
        if why is not None:
            return why
    return None
