"""Foreign exceptions at the boundary: a public entry point raises fmstats' errors only.

A ``KeyError``, ``TypeError``, ``ValueError``, ``AttributeError`` or ``IndexError`` raised
inside pandas, numpy, SciPy, scikit-learn, statsmodels, Dask, the formula engines, joblib or
NLopt says what went wrong in that library's terms (``KeyError: 'x1'``), not which argument of
the fmstats call caused it.  :func:`public` wraps an entry point so that such an exception
becomes an :class:`~fmstats.exceptions.FmstatsError` naming the entry point and, where it can
be told, the argument (a missing column is looked up in the call's DataFrame arguments), with
the original chained as its cause.  A call with an argument the entry point does not take
(``predict(se_fit=True)`` on an SVM) is an :class:`~fmstats.exceptions.InvalidArgumentError`
listing the arguments it takes.  A flag is a flag and a count a count: an argument annotated
``bool`` (or ``bool | None``) takes only True or False (``"yes"``, ``"no"`` or 1 are refused:
Python would take any of them as true), one annotated ``int`` (or ``int | None``) only an
integer (``2.7`` or ``True`` are refused, not truncated); the function still checks ranges.  An exception out of a C function that fmstats' own code calls
(numpy's ``asarray`` on text) is foreign too.  Exceptions that fmstats' code raises itself
(internal invariants) and those of the user's callbacks pass through unchanged.

Applied by ``records_call`` (every model function and tuner), by
:class:`fmstats.results.ScoreCurves` to the protocol methods of every results class, and
explicitly to the other public functions (``sweep``, ``anova``, ``to_statsmodels``,
``bootstrap``, ``validate``, ``f_curve``, ...).
"""
from __future__ import annotations

import difflib
import dis
import functools
import inspect
import numbers
from typing import Any, Callable

import numpy as np

from ..exceptions import DataError, FmstatsError, FormulaError, InvalidArgumentError
from .validation import describe

__all__ = ["public", "translate", "FOREIGN", "argument_error", "typed_arguments", "check_typed"]

#: Top-level packages whose exceptions are translated.
FOREIGN = frozenset({"pandas", "numpy", "scipy", "sklearn", "statsmodels", "dask", "distributed",
                     "patsy", "formulaic", "joblib", "nlopt", "pyarrow", "matplotlib",
                     "threadpoolctl", "interface_meta"})

_CAUGHT = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _origin(exc: BaseException) -> str | None:
    """Where ``exc`` comes from: the top-level package of the innermost Python frame, or
    ``"a C function"`` when that frame is fmstats' own and the exception came out of a call
    there (numpy's ``asarray``, a builtin), not out of a ``raise`` statement of fmstats."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None:
        return None
    name = str(last.tb_frame.f_globals.get("__name__", "")).split(".")[0]
    if name == "fmstats":
        code = last.tb_frame.f_code.co_code
        op = dis.opname[code[last.tb_lasti]] if 0 <= last.tb_lasti < len(code) else ""
        return None if op in ("RAISE_VARARGS", "RERAISE") else "a C function"
    return name


def _raised_at_call(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by the call itself (binding its arguments), not inside it."""
    tb = exc.__traceback__
    return tb is not None and tb.tb_next is None


def argument_error(fn: Callable, label: str, exc: TypeError, signature=None) -> FmstatsError:
    """The InvalidArgumentError of a call whose arguments do not fit ``fn``'s signature."""
    sig = signature if signature is not None else inspect.signature(fn)
    names = [p.name for p in sig.parameters.values()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self",
                                                                                      "_call")]
    text = str(exc)
    hint = ""
    bad = text.rsplit("'", 2)[-2] if text.count("'") >= 2 else None
    if bad is not None and "unexpected keyword" in text:
        close = difflib.get_close_matches(bad, names, n=1)
        hint = f" Did you mean `{close[0]}`?" if close else ""
        return InvalidArgumentError(
            f"`{bad}` is not an argument of {label}(); it takes {', '.join(names) or 'none'}."
            + hint)
    return InvalidArgumentError(f"{label}(): {text.split('() ', 1)[-1]}; it takes "
                                f"{', '.join(names) or 'no arguments'}.")


def _frames(fn: Callable, args: tuple, kwargs: dict) -> dict:
    """The call's DataFrame arguments by name (``self`` excluded)."""
    import pandas as pd

    try:
        bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    except TypeError:
        return {}
    out = {}
    for name, value in bound.arguments.items():
        if name == "self":
            continue
        if isinstance(value, pd.DataFrame):
            out[name] = value
        elif isinstance(value, dict):            # **kwargs
            out.update({k: v for k, v in value.items() if isinstance(v, pd.DataFrame)})
    return out


def translate(exc: BaseException, fn: Callable, label: str, args: tuple,
              kwargs: dict) -> FmstatsError | None:
    """The FmstatsError for a foreign exception ``exc`` raised in ``fn(*args, **kwargs)``,
    or None when ``exc`` is not foreign (fmstats' own code, or the user's callbacks)."""
    if isinstance(exc, TypeError) and _raised_at_call(exc):
        return argument_error(fn, label, exc)
    lib = _origin(exc)
    if lib not in FOREIGN and lib != "a C function":
        return None
    message = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    message = message.strip().splitlines()[0][:300] if message.strip() else type(exc).__name__
    frames = _frames(fn, args, kwargs)
    if isinstance(exc, KeyError) and exc.args and isinstance(exc.args[0], str):
        column = exc.args[0]
        lacking = [name for name, frame in frames.items() if column not in frame.columns]
        if lacking:
            return FormulaError(
                f"{label}(): column {column!r} is not in `{lacking[0]}` (its columns: "
                f"{', '.join(map(str, list(frames[lacking[0]].columns)[:20]))}); the model "
                f"needs it ({lib} raised KeyError).")
    named = f" (check `{'`, `'.join(frames)}`)" if frames else ""
    error = InvalidArgumentError if isinstance(exc, TypeError) else DataError
    return error(f"{label}(): {lib} raised {type(exc).__name__}: {message}{named}.")


#: Annotations whose arguments are checked at the boundary: the kind and whether None is allowed.
_TYPED = {"bool": ("bool", False), "bool | None": ("bool", True),
          "Optional[bool]": ("bool", True), "int": ("int", False),
          "int | None": ("int", True), "Optional[int]": ("int", True)}


def _annotation(p: inspect.Parameter) -> str:
    a = p.annotation
    if isinstance(a, str):
        return a.replace("None | ", "").strip() + (" | None" if "None | " in a else "")
    return getattr(a, "__name__", None) if isinstance(a, type) else str(a).replace(
        "typing.", "")


def typed_arguments(f: Callable) -> tuple:
    """``(name, position, kind, none_ok)`` of ``f``'s arguments annotated ``bool`` or
    ``int`` (optionally ``| None``); ``position`` is None for keyword-only arguments."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return ()
    out = []
    for i, p in enumerate(params):
        kind = _TYPED.get(_annotation(p))
        if kind is None or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        pos = i if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) else None
        out.append((p.name, pos, kind[0], kind[1] or p.default is None))
    return tuple(out)


def check_typed(typed: tuple, args: tuple, kwargs: dict) -> None:
    """Refuse a non-boolean for a ``bool`` argument and a non-integer for an ``int`` one
    (:func:`typed_arguments`), naming the argument."""
    for name, pos, kind, none_ok in typed:
        if name in kwargs:
            value = kwargs[name]
        elif pos is not None and pos < len(args):
            value = args[pos]
        else:
            continue
        if value is None and none_ok:
            continue
        is_bool = isinstance(value, (bool, np.bool_))
        if kind == "bool" and not is_bool:
            raise InvalidArgumentError(
                f"`{name}` must be {'True, False or None' if none_ok else 'True or False'}; "
                f"got {describe(value)}.")
        if kind == "int" and (is_bool or not isinstance(value, numbers.Integral)):
            raise InvalidArgumentError(
                f"`{name}` must be an integer{' (or None)' if none_ok else ''}; got "
                f"{describe(value)}.")


def public(fn: Callable | None = None, *, name: str | None = None) -> Callable:
    """Decorate a public entry point so that foreign exceptions leave it as FmstatsErrors
    and its ``bool``/``int`` arguments are checked (see the module docstring); ``name``
    labels it in messages (default: its qualified name)."""
    def wrap(f: Callable) -> Callable:
        if getattr(f, "__fmstats_public__", False):
            return f
        label = name or f.__qualname__
        typed = typed_arguments(f)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any):
            if typed:
                check_typed(typed, args, kwargs)
            try:
                return f(*args, **kwargs)
            except FmstatsError:
                raise
            except _CAUGHT as exc:
                err = translate(exc, f, label, args, kwargs)
                if err is None:
                    raise
                raise err from exc

        wrapper.__fmstats_public__ = True
        return wrapper

    return wrap(fn) if fn is not None else wrap
