"""What an expression evaluated as Python may do: the syntax-tree check behind every formula
term, offset, subset and response expression that is evaluated.

Used by ``_safety.py`` (the checks of text read from a results file), and by
``_offset.py``, ``_rows.py`` and
``_response.py``, which check offsets, ``subset=`` and response expressions
every time before they evaluate them.

An expression is parsed by Python's own parser (``ast.parse(text, mode="eval")``; nothing is
evaluated) and every node of its syntax tree must be on the list below.  Which names may be
*called* depends on who evaluates the text (:data:`VOCABULARIES`):

* ``"term"`` -- a term of a formula, evaluated by formulaic or patsy: the engines' functions
  (``C``, ``I``, ``Q``, ``center``, ``scale``, ``standardize``, ``poly``, ``bs``, ``cr``,
  ``cs``, ``cc``, ``te``, ``lag``, contrasts), fmstats' ``ns`` and ``factor``, R's elementary
  functions (``log``, ``log2``, ``log10``, ``log1p``, ``exp``, ``expm1``, ``sqrt``,
  ``abs``), formulaic's ``exp2``/``exp10``, the builtins ``round``, ``pow``, ``float``,
  ``int``, ``bool``, ``str``, ``len``, ``min``, ``max``, numpy's ufuncs and
  ``np.clip``/``np.where``/``np.round`` as ``np.<name>(...)``, and formulaic's
  ``contr.<contrast>(...)``;
* ``"offset"`` -- an ``offset()`` expression (``eval`` with R's elementary functions and
  ``np``): R's elementary functions and ``np.<ufunc>(...)``;
* ``"pandas"`` -- a ``subset=`` or response expression (``DataFrame.eval``): pandas' math
  functions (``log``, ``exp``, ``sqrt``, ``abs``, ``sin``, ``floor``, ...).

Admitted nodes: names (not starting with ``__``, and not the builtins that reach code,
files or the interpreter, :data:`UNSAFE_NAMES`), constants (numbers, text without quotes or
backslashes, ``True``/``False``/``None``), arithmetic, comparison, boolean and bitwise
operators, ``x if c else y``, tuples and lists of those (``levels=['a', 'b']``), and calls
of a listed function by its plain name (or ``np.<name>``/``contr.<name>``) with the
keywords that function takes.  Everything else is refused: any other attribute access
(``x.abs()``, ``np.__builtins__``), subscripts, ``lambda``, comprehensions, ``*args`` and
``**kwargs``, ``:=``, f-strings, ``@``, dictionaries and sets, and powers whose exponent is a
large constant or itself a power (``9 ** 9 ** 9`` would never finish).  R's ``^`` is read as
the power, as the formula layer rewrites it (``r_power``);
back-quoted names are names.  The text is limited to :data:`MAX_CHARS` characters and its
tree to :data:`MAX_DEPTH` levels.
"""
from __future__ import annotations

import ast
import re

from ._rsyntax import R_FUNCTIONS, r_power

__all__ = ["expression_problem", "VOCABULARIES", "UNSAFE_NAMES", "MAX_CHARS", "MAX_DEPTH"]

#: Longest expression checked (longer text is refused): formulas people write are far shorter.
MAX_CHARS = 20_000
#: Deepest syntax tree admitted.
MAX_DEPTH = 60

#: Builtins (and names) that reach code, files, attributes or the interpreter: refused
#: anywhere, as values too (patsy's ``C(g, contrast)`` calls a callable ``contrast``).
UNSAFE_NAMES = frozenset({
    "eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals", "locals",
    "vars", "dir", "memoryview", "super", "classmethod", "staticmethod", "property",
    "callable", "breakpoint", "input", "help", "exit", "quit", "print", "copyright",
    "credits", "license",
})

_ALL = None   # a function taking any keyword of its own (none of them code)

_R_FUNCTIONS = {name: frozenset({"base"}) if name == "log" else frozenset() for name in R_FUNCTIONS}
_CONTRAST_KW = {"Treatment": {"reference"}, "Sum": {"omit"}, "Helmert": set(), "Diff": set(),
                "Poly": {"scores"}}
_C_KW = {"contr", "contrasts", "contrast", "levels", "spans_intercept"}
_SPLINE_KW = {"df", "knots", "degree", "include_intercept", "intercept", "lower_bound",
              "upper_bound", "boundary_knots", "extrapolation", "constraints"}

#: Who evaluates the text -> {function name: keywords it may be given}.
VOCABULARIES: dict[str, dict[str, frozenset]] = {
    "term": {name: frozenset(kw) for name, kw in {
        "C": _C_KW, "factor": _C_KW, "I": set(), "Q": set(),
        "center": set(), "scale": {"center", "scale", "ddof"},
        "standardize": {"center", "rescale", "ddof"}, "poly": {"degree", "raw"},
        "bs": _SPLINE_KW, "ns": _SPLINE_KW, "cr": _SPLINE_KW, "cs": _SPLINE_KW,
        "cc": _SPLINE_KW, "te": {"constraints"}, "lag": {"k"},
        **_CONTRAST_KW, "exp2": set(), "exp10": set(), **_R_FUNCTIONS,
        "round": {"ndigits"}, "pow": set(), "float": set(), "int": set(), "bool": set(),
        "str": set(), "len": set(), "min": set(), "max": set(),
    }.items()},
    "offset": dict(_R_FUNCTIONS),
    "pandas": {name: frozenset() for name in (
        "sin", "cos", "tan", "exp", "log", "expm1", "log1p", "sqrt", "sinh", "cosh", "tanh",
        "arcsin", "arccos", "arctan", "arccosh", "arcsinh", "arctanh", "abs", "log10",
        "floor", "ceil", "arctan2")},
}

#: Attribute calls admitted per vocabulary: ``np.<ufunc>`` (and a few numpy functions) and
#: formulaic's ``contr.<contrast>``.
_NUMPY_EXTRA = {"clip": frozenset(), "where": frozenset(), "round": frozenset({"decimals"}),
                "around": frozenset({"decimals"})}
_NUMPY_CONSTANTS = frozenset({"pi", "e", "inf", "nan"})
_CONTR = {"treatment": frozenset({"base"}), "sum": frozenset(), "helmert": frozenset(),
          "diff": frozenset(), "poly": frozenset({"scores"}), "SAS": frozenset({"base"})}
_MODULES = {"term": ("np", "contr"), "offset": ("np",), "pandas": ()}

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd,
           ast.BitOr, ast.BitXor)
_UNARY = (ast.UAdd, ast.USub, ast.Not, ast.Invert)
_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is,
            ast.IsNot)
_BAD_TEXT = re.compile(r"[\"'\\\x00-\x1f\x7f]")
_MAX_INT = 2 ** 63
_MAX_EXPONENT = 64
_PLACEHOLDER = "_fmstats_quoted_"


def _numpy_function(name: str) -> frozenset | None:
    import numpy as np

    if name in _NUMPY_EXTRA:
        return _NUMPY_EXTRA[name]
    return frozenset() if isinstance(getattr(np, name, None), np.ufunc) else None


def _unquote(text: str) -> tuple[str | None, str | None]:
    """``text`` with every back-quoted name as a placeholder name (the engines and pandas read
    back-quoted names as names); (None, reason) when quotes and back-quotes interleave."""
    out, i, n, k = [], 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch in "'\"":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            literal = text[i:j + 1]
            if "`" in literal:
                return None, f"the string {literal!r} holds a back-quote"
            out.append(literal)
            i = j + 1
        elif ch == "`":
            j = text.find("`", i + 1)
            if j < 0:
                return None, "a back-quote is not closed"
            name = text[i + 1:j]
            if name.strip().startswith("__") or name.strip() in UNSAFE_NAMES:
                return None, f"the back-quoted name {text[i:j + 1]!r} is not allowed"
            out.append(f" {_PLACEHOLDER}{k} ")
            k += 1
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out), None


class _Refused(Exception):
    pass


class _Checker:
    """Walks a syntax tree, raising :class:`_Refused` at the first node not admitted."""

    def __init__(self, vocabulary: str):
        self.calls = VOCABULARIES[vocabulary]
        self.modules = _MODULES[vocabulary]

    def check(self, node, depth=0, exponent=False):
        if depth > MAX_DEPTH:
            raise _Refused(f"it nests deeper than {MAX_DEPTH} levels")
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise _Refused(f"{_describe(node)} is not allowed")
        method(node, depth + 1, exponent)

    def _Expression(self, node, depth, exponent):
        self.check(node.body, depth, exponent)

    def _Name(self, node, depth, exponent):
        name = node.id
        if name.startswith("__") or name in UNSAFE_NAMES:
            raise _Refused(f"the name {name!r} is not allowed")
        if name in self.modules:
            raise _Refused(f"'{name}' may only be used as {name}.<function>(...)")

    def _Constant(self, node, depth, exponent):
        value = node.value
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int):
            if abs(value) > (_MAX_EXPONENT if exponent else _MAX_INT):
                raise _Refused(f"the number {value} is too large"
                               + (" for an exponent" if exponent else ""))
            return
        if isinstance(value, (float, complex)):
            if exponent and abs(value) > _MAX_EXPONENT:
                raise _Refused(f"the exponent {value} is too large")
            return
        if isinstance(value, str):
            if _BAD_TEXT.search(value):
                raise _Refused(f"the text {value!r} holds a quote, a backslash or a control "
                               "character")
            return
        raise _Refused(f"the constant {value!r} ({type(value).__name__}) is not allowed")

    def _UnaryOp(self, node, depth, exponent):
        if not isinstance(node.op, _UNARY):
            raise _Refused(f"the operator {type(node.op).__name__} is not allowed")
        self.check(node.operand, depth, exponent)

    def _BinOp(self, node, depth, exponent):
        if not isinstance(node.op, _BINOPS):
            raise _Refused(f"the operator {_OPS.get(type(node.op), type(node.op).__name__)} "
                           "is not allowed")
        if isinstance(node.op, ast.Mult) and any(
                isinstance(side, ast.Constant) and isinstance(side.value, str)
                for side in (node.left, node.right)):
            raise _Refused("repeating text ('...' * n) is not allowed")
        if isinstance(node.op, ast.Pow):
            if exponent:
                raise _Refused("a power inside an exponent is not allowed")
            self.check(node.left, depth, exponent)
            self.check(node.right, depth, True)
            return
        self.check(node.left, depth, exponent)
        self.check(node.right, depth, exponent)

    def _BoolOp(self, node, depth, exponent):
        for value in node.values:
            self.check(value, depth, exponent)

    def _Compare(self, node, depth, exponent):
        for op in node.ops:
            if not isinstance(op, _COMPARE):
                raise _Refused(f"the comparison {type(op).__name__} is not allowed")
        for value in [node.left, *node.comparators]:
            self.check(value, depth, exponent)

    def _IfExp(self, node, depth, exponent):
        for value in (node.test, node.body, node.orelse):
            self.check(value, depth, exponent)

    def _Tuple(self, node, depth, exponent):
        for value in node.elts:
            self.check(value, depth, exponent)

    _List = _Tuple

    def _Call(self, node, depth, exponent):
        func = node.func
        if isinstance(func, ast.Name):
            name = func.id
            keywords = self.calls.get(name)
            if keywords is None or name in UNSAFE_NAMES:
                raise _Refused(f"the call of {name!r} is not allowed (not a function of the "
                               "formula vocabulary)")
        elif (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
              and func.value.id in self.modules):
            name = f"{func.value.id}.{func.attr}"
            keywords = (_numpy_function(func.attr) if func.value.id == "np"
                        else _CONTR.get(func.attr))
            if keywords is None:
                raise _Refused(f"the attribute '.{func.attr}' is not allowed (only "
                               f"{' and '.join(m + '.<function>' for m in self.modules)})")
        else:
            raise _Refused(f"calling {_describe(func)} is not allowed (only functions called "
                           "by their name)")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise _Refused("'*' arguments are not allowed")
            self.check(arg, depth, exponent)
        for kw in node.keywords:
            if kw.arg is None:
                raise _Refused("'**' arguments are not allowed")
            if kw.arg not in keywords:
                raise _Refused(f"the keyword '{kw.arg}=' is not allowed in {name}()")
            self.check(kw.value, depth, exponent)

    def _Attribute(self, node, depth, exponent):
        base = node.value.id if isinstance(node.value, ast.Name) else None
        if base in self.modules and (node.attr in _NUMPY_CONSTANTS if base == "np"
                                     else node.attr in _CONTR):
            return      # np.pi; contr.sum as a contrast of C(g, contr.sum)
        raise _Refused(f"the attribute '.{node.attr}' is not allowed (only "
                       "np.<function>(...), contr.<contrast> and np.pi, np.e, np.inf, np.nan)")


_OPS = {ast.MatMult: "'@'", ast.LShift: "'<<'", ast.RShift: "'>>'"}
_NAMES = {ast.Lambda: "'lambda'", ast.ListComp: "a comprehension ('for')",
          ast.SetComp: "a comprehension ('for')", ast.DictComp: "a comprehension ('for')",
          ast.GeneratorExp: "a comprehension ('for')", ast.Subscript: "a subscript ('[...]')",
          ast.Starred: "'*'", ast.NamedExpr: "':='", ast.JoinedStr: "an f-string",
          ast.FormattedValue: "an f-string", ast.Dict: "a dict", ast.Set: "a set",
          ast.Await: "'await'", ast.Yield: "'yield'", ast.YieldFrom: "'yield'",
          ast.Slice: "a slice"}


def _describe(node) -> str:
    if isinstance(node, ast.Attribute):
        return f"the attribute '.{node.attr}'"
    return _NAMES.get(type(node), f"'{type(node).__name__}'")


def expression_problem(text, vocabulary: str = "term", *, unreadable_ok: bool = False
                       ) -> str | None:
    """Why an expression is not safe to evaluate, or None (see the module notes).

    Parameters
    ----------
    text : str
        One expression as it will be evaluated (``"np.log(x + 1)"``, ``"age > 30"``); R's
        ``^`` is read as the power.
    vocabulary : {"term", "offset", "pandas"}, default "term"
        Who evaluates it: a formula engine, fmstats' offset evaluation or ``DataFrame.eval``.
    unreadable_ok : bool, default False
        Accept text Python cannot parse (no evaluator can run it): for a formula whose
        engine is not known, read by an engine that takes R's ``%in%`` for Python.

    Returns
    -------
    str or None
        The reason (naming the offending piece), or None when every node is admitted.
    """
    if not isinstance(text, str):
        return f"it is a {type(text).__name__}, not text"
    if len(text) > MAX_CHARS:
        return f"it is longer than {MAX_CHARS} characters"
    if vocabulary not in VOCABULARIES:     # pragma: no cover - a programming error
        raise ValueError(vocabulary)
    for op in ("@", ":="):   # pandas reads '@name' as a variable of its caller
        if op in text:
            return f"'{op}' is not allowed"
    code, why = _unquote(r_power(text))
    if why is not None:
        return why
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        if unreadable_ok and isinstance(exc, SyntaxError):
            return None
        reason = getattr(exc, "msg", None) or type(exc).__name__
        return f"it cannot be read as a Python expression ({reason})"
    try:
        _Checker(vocabulary).check(tree)
    except _Refused as exc:
        return str(exc)
    except RecursionError:
        return "it nests too deeply"
    return None
