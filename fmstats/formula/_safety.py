"""Whether formula text read from a file could run code other than the engines' vocabulary.

Used by :mod:`fmstats.results._safeload` (``load()`` of a results file, and ``save()``, which
warns about what ``load()`` would refuse).  Formulas are Python code to both engines: a term
``I(...)`` or ``np.log(x)`` is evaluated with Python's ``eval``, and the response
``I(y > 0)`` with ``DataFrame.eval``, so a results file crafted to hold the term
``I(__import__('os').system(...))`` would run it when the model predicts (and patsy's
design is even rebuilt from the formula when the file is read).  A formula a user typed is
theirs to run; a formula read from a file is checked here first.

The rule is an allow-list of what a term may do, checked on Python's tokens of each term the
engine would evaluate (formulaic's ``lookup`` and ``literal`` factors are never evaluated as
code and need no check):

* call only the engines' functions (:data:`SAFE_CALLS`: ``C``, ``I``, ``Q``, ``center``,
  ``scale``, ``poly``, ``bs``, ``lag``, contrasts, R's ``log``/``exp``/``sqrt``/..., and
  ``abs``, ``round``, ``pow``, ``float``, ``int``, ``bool``, ``str``, ``len``), numpy's
  ufuncs and ``np.clip``/``np.where``/``np.round`` as ``np.<name>(...)``, and formulaic's
  ``contr.<contrast>(...)``;
* no other attribute access, no subscripts, no names starting with ``__``, no names of the
  builtins that reach code, files or the interpreter (:data:`UNSAFE_NAMES`), no ``lambda``,
  comprehensions, f-strings, ``:=``, ``@`` or ``out=``.

What a reasonable formula uses passes (``y ~ C(g, Treatment('b')) * x + I(x^2) +
np.log(abs(z) + 1) + center(w)``); a term calling a method of a column (``x.abs()``) is refused,
and such a file needs ``load(path, trusted=True)``.  Each function returns the reason a text
or object is refused, or None when it is safe.
"""
from __future__ import annotations

import io
import keyword
import tokenize
from typing import Any

from ._frame import ENGINES, DEFAULT_ENGINE, expand_dot
from ._rsyntax import R_FUNCTIONS, r_power

__all__ = ["SAFE_CALLS", "UNSAFE_NAMES", "code_problem", "formula_problem", "lhs_problem",
           "design_state_problem", "engine_object_problem"]

#: Functions a formula term may call by name: the engines' vocabulary (patsy.builtins,
#: formulaic's transforms without ``hashed``, which calls a function given to it), fmstats'
#: R names, and a few builtins that only compute.
SAFE_CALLS = frozenset({
    "C", "factor", "I", "Q", "center", "scale", "standardize", "poly", "bs", "cr", "cs", "cc",
    "te", "lag", "Treatment", "Sum", "Helmert", "Diff", "Poly", "ContrastMatrix",
    "exp2", "exp10", "ns", "offset", *R_FUNCTIONS,
    "abs", "round", "pow", "float", "int", "bool", "str", "len",
})

#: Builtins that reach code, files, attributes or the interpreter, or act when called without
#: arguments: refused anywhere in a term, as values too (patsy's ``C(g, contrast)`` calls a
#: callable ``contrast``).
UNSAFE_NAMES = frozenset({
    "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals", "locals",
    "vars", "dir", "memoryview", "super", "classmethod", "staticmethod", "property",
    "callable", "breakpoint", "input", "help", "exit", "quit", "print", "copyright",
    "credits", "license",
})

_NUMPY_EXTRA = frozenset({"pi", "e", "inf", "nan", "clip", "where", "round", "around"})
_CONTRASTS = frozenset({"treatment", "sum", "helmert", "diff", "poly", "custom", "SAS"})
_KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "True", "False", "None"})
_TOKENS = frozenset({tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP,
                     tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                     tokenize.DEDENT})
_REFUSED_OPS = frozenset({"@", ":=", ";", "...", "@=", "->"})
_PLACEHOLDER = "_fmstats_quoted_name"


def _numpy_name(name: str) -> bool:
    import numpy as np

    return name in _NUMPY_EXTRA or isinstance(getattr(np, name, None), np.ufunc)


def _unquote_backticks(code: str) -> tuple[str | None, str | None]:
    """``code`` with every back-quoted name replaced by a placeholder name.

    Returns ``(text, None)`` or ``(None, reason)`` when quotes and back-quotes nest (a string
    holding a back-quote, or a back-quoted name holding a quote), which the engines and
    Python's tokenizer might read differently.
    """
    out, i, n = [], 0, len(code)
    while i < n:
        ch = code[i]
        if ch in "'\"":
            j = i + 1
            while j < n and code[j] != ch:
                j += 2 if code[j] == "\\" else 1
            literal = code[i:j + 1]
            if "`" in literal:
                return None, f"the string {literal!r} holds a back-quote"
            out.append(literal)
            i = j + 1
        elif ch == "`":
            j = code.find("`", i + 1)
            if j < 0:
                return None, "a back-quote is not closed"
            name = code[i + 1:j].strip()
            if any(q in name for q in "'\"") or name.startswith("__") or name in UNSAFE_NAMES:
                return None, f"the back-quoted name {code[i:j + 1]!r} is not allowed"
            out.append(f" {_PLACEHOLDER} ")
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out), None


def _tokens(code: str):
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER,
                                  tokenize.INDENT, tokenize.DEDENT)], None
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        return None, f"it cannot be read as Python ({exc})"


def code_problem(code: str) -> str | None:
    """Why the Python code of one formula term is not safe to evaluate, or None.

    Parameters
    ----------
    code : str
        A term as an engine evaluates it (``"np.log(x + 1)"``, ``"C(g, levels=['a', 'b'])"``).

    Returns
    -------
    str or None
        The reason (naming the offending token), or None when the term only uses the
        vocabulary described in the module notes.
    """
    if not isinstance(code, str):
        return f"a term is a {type(code).__name__}, not text"
    text, why = _unquote_backticks(r_power(code))
    if why is not None:
        return why
    toks, why = _tokens(text)
    if why is not None:
        return why
    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.type not in _TOKENS:
            return f"the token {tok.string!r} is not allowed"
        if tok.type == tokenize.STRING:
            prefix = tok.string[:tok.string.index(tok.string[-1])].lower()
            if "f" in prefix:
                return f"the f-string {tok.string!r} is not allowed"
            continue
        if tok.type == tokenize.OP:
            if tok.string in _REFUSED_OPS:
                return f"the operator {tok.string!r} is not allowed"
            if tok.string == "." and (nxt is None or nxt.type != tokenize.NAME):
                return "a '.' that is not an attribute of np or contr"
            if tok.string == "[" and prev is not None and (
                    prev.type in (tokenize.NUMBER, tokenize.STRING)
                    or (prev.type == tokenize.NAME and prev.string not in _KEYWORDS)
                    or prev.string in (")", "]", "}")):
                return "subscripts ('[...]' after a value) are not allowed"
            continue
        if tok.type != tokenize.NAME:
            continue
        name = tok.string
        if keyword.iskeyword(name):
            if name not in _KEYWORDS:
                return f"the keyword {name!r} is not allowed"
            continue
        if prev is not None and prev.string == ".":
            base = toks[i - 2] if i >= 2 else None
            before = toks[i - 3] if i >= 3 else None
            ok_base = (base is not None and base.type == tokenize.NAME
                       and not (before is not None and before.string == "."))
            if ok_base and base.string == "np" and _numpy_name(name):
                continue
            if ok_base and base.string == "contr" and name in _CONTRASTS:
                continue
            return f"the attribute '.{name}' is not allowed (only np.<ufunc> and contr.<name>)"
        if name in ("np", "contr"):
            if nxt is None or nxt.string != ".":
                return f"'{name}' may only be used as np.<function> or contr.<contrast>"
            continue
        if name.startswith("__"):
            return f"the name {name!r} is not allowed"
        if name in UNSAFE_NAMES:
            return f"the builtin {name!r} is not allowed"
        if nxt is not None and nxt.string == "(" and name not in SAFE_CALLS:
            return f"the call of {name!r} is not allowed (not a function of the formula engines)"
        if nxt is not None and nxt.string == "=" and name == "out":
            return "the keyword 'out=' is not allowed"
    return None


def _formulaic_factors(formula):
    from formulaic.formula import SimpleFormula

    parts = [formula] if isinstance(formula, SimpleFormula) else list(formula._flatten())
    for part in parts:
        for term in part:
            yield from term.factors


def formula_problem(text: str, engine: str | None = None) -> str | None:
    """Why a right-hand side (or a whole ``lhs ~ rhs`` formula) is not safe, or None.

    The text is parsed by the engine's own parser (which evaluates nothing) and every term
    the engine would evaluate is checked by :func:`code_problem`; the left-hand side of a
    whole formula by :func:`lhs_problem`.

    Parameters
    ----------
    text : str
        ``"x1 + C(g)"`` or ``"y ~ x1 + C(g)"``.
    engine : {"formulaic", "patsy"}, optional
        The engine that evaluates it (default: fmstats' default engine).

    Returns
    -------
    str or None
        The reason, or None.
    """
    if not isinstance(text, str):
        return f"the formula is a {type(text).__name__}, not text"
    engine = DEFAULT_ENGINE if engine is None else engine
    if engine not in ENGINES:
        return f"the formula engine {engine!r} is not one of {', '.join(ENGINES)}"
    lhs, rhs = _split_tilde(text)
    if lhs is None:
        return rhs
    if lhs.strip():
        why = lhs_problem(lhs)
        if why is not None:
            return why
    rhs = r_power(expand_dot(rhs, ["_fmstats_dot"], engine=engine)) if rhs.strip() else "1"
    try:
        if engine == "patsy":
            import patsy

            desc = patsy.ModelDesc.from_formula(rhs)
            codes = [f.code for t in desc.rhs_termlist for f in t.factors]
        else:
            import formulaic

            codes = [f.expr for f in _formulaic_factors(formulaic.Formula(rhs))
                     if f.eval_method.value == "python"]
    except Exception as exc:  # the parsers raise many types
        return f"the formula {rhs!r} cannot be parsed by {engine} ({type(exc).__name__})"
    for code in codes:
        why = code_problem(code)
        if why is not None:
            return f"in the term {code!r}: {why}"
    return None


def _split_tilde(text: str) -> tuple[str | None, str]:
    """(lhs, rhs) at the top-level '~' outside quotes (lhs '' if none); (None, reason)."""
    depth, quote = 0, None
    for i, ch in enumerate(text):
        if quote is not None:
            quote = None if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "~" and depth == 0:
            rest = text[i + 1:]
            if "~" in rest.replace("'~'", "").replace('"~"', ""):
                return None, "the formula has more than one '~'"
            return text[:i], rest
    return "", text


def lhs_problem(lhs: str) -> str | None:
    """Why a response (left-hand side) is not safe, or None.

    ``cbind(yes, no)`` must name two columns; a column name (bare or back-quoted) is looked
    up; anything else is evaluated by ``DataFrame.eval`` and checked by :func:`code_problem`.

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
    if text.startswith("cbind(") and text.endswith(")"):
        text = text[len("cbind("):-1]
    why = code_problem(text)
    return None if why is None else f"in the response {lhs.strip()!r}: {why}"


def design_state_problem(state: Any) -> str | None:
    """Why the pickled state of a :class:`~fmstats.formula.DesignSpec` is not safe, or None.

    The engine must be known, the right- and left-hand sides must pass
    :func:`formula_problem` and :func:`lhs_problem`, and the engine's spec must be a
    formulaic ``ModelSpec`` (checked by :func:`engine_object_problem`) or, for patsy, absent
    (it is rebuilt from the checked formula).

    Parameters
    ----------
    state : dict
        The state ``DesignSpec.__getstate__`` returned.

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
    why = formula_problem(state.get("rhs", ""), engine) or (
        lhs_problem(state["lhs"]) if state.get("lhs", "").strip() else None)
    if why is not None:
        return why
    spec = state.get("engine_spec")
    if engine == "patsy":
        return None if spec is None else "a patsy design must not hold an engine spec"
    from formulaic.model_spec import ModelSpec

    if not isinstance(spec, ModelSpec):
        return f"the design's engine spec is a {type(spec).__name__}, not a formulaic ModelSpec"
    return engine_object_problem(spec)


def engine_object_problem(obj: Any) -> str | None:
    """Why a formulaic ``Factor`` or ``ModelSpec`` read from a file is not safe, or None.

    A factor evaluated as Python must pass :func:`code_problem`; a model spec must hold a
    parsed formula (a text would be parsed into new, unchecked factors) of terms made of
    factors, and a materializer named by text.

    Parameters
    ----------
    obj : object
        A formulaic object; other objects are not checked (None).

    Returns
    -------
    str or None
        The reason, or None.
    """
    from formulaic.formula import SimpleFormula
    from formulaic.model_spec import ModelSpec
    from formulaic.parser.types import Factor, Term

    if isinstance(obj, Factor):
        method = getattr(obj, "_eval_method", None)
        if not isinstance(method, Factor.EvalMethod) or not isinstance(obj.expr, str):
            return "a formula factor has no valid evaluation method or expression"
        if method is Factor.EvalMethod.PYTHON:
            why = code_problem(obj.expr)
            return None if why is None else f"in the term {obj.expr!r}: {why}"
        return None
    if isinstance(obj, ModelSpec):
        formula = obj.__dict__.get("formula")
        if not isinstance(formula, SimpleFormula):
            return f"the model spec's formula is a {type(formula).__name__}, not a parsed formula"
        for term in formula:
            if not isinstance(term, Term) or not all(isinstance(f, Factor)
                                                     for f in term.factors):
                return "the model spec's formula holds something other than terms of factors"
            for f in term.factors:
                why = engine_object_problem(f)
                if why is not None:
                    return why
        if not isinstance(obj.__dict__.get("materializer"), (str, type(None))):
            return "the model spec's materializer is not named by text"
    return None
