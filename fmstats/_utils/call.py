"""The recorded call of a fit: the model function and the arguments as the user gave them.

Every fmstats model function is wrapped by :func:`records_call`: the wrapper binds the
arguments to the function's signature once (``inspect.Signature.bind``), keeps what the user
typed (not the defaults) in a :class:`ModelCall`, and hands it to the function, which stores it
in its results.  Everything that needs the call reads that one record:

* ``str(call)`` is the printed ``Call:`` of a summary, as the user typed it
  (``fmaxent(formula = 'y ~ x', data = <DataFrame 100 x 3>, beta = 2)``);
* :meth:`ModelCall.refit` reruns the function with the same arguments on other data (and
  any changed ones), so ``refit`` methods and the tuners never rebuild keyword lists by hand;
* :meth:`ModelCall.resolved` gives every argument with its default applied, the base of a
  results object's :class:`Settings`.

The data argument itself is not kept (results hold no user data), only its description; nor
are arguments that belong to the rows of the data (prior weights given as an array, a label
matrix): they are kept as a :class:`RowArgument` that names them, and a refit must be given
them again for its own rows.  Nothing here is ambient: the record travels as an argument and
an attribute.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd

from .boundary import argument_error, check_typed, typed_arguments
from .boundary import public as boundary

__all__ = ["ModelCall", "Settings", "records_call", "describe_value", "ARRAY_WEIGHTS",
           "weights_label", "refit_changes", "refuse_unused", "RowSelection"]

#: How settings record prior weights that were given as an array (they belong to the rows).
ARRAY_WEIGHTS = "<array>"


def describe_value(value: Any) -> str:
    """A value as a call prints it: scalars and strings as typed, arrays and frames by shape."""
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]} x {value.shape[1]}>"
    if isinstance(value, pd.Series):
        return f"<Series {len(value)}>"
    if isinstance(value, np.ndarray):
        return "<array " + " x ".join(map(str, value.shape)) + ">"
    if hasattr(value, "npartitions") and hasattr(value, "columns"):
        return f"<Dask DataFrame, {value.npartitions} partitions x {len(value.columns)} columns>"
    if isinstance(value, str):
        return repr(value)                          # as typed, however long (a formula)
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (float, np.floating)):
        return format(float(value), "g")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if callable(value) and not isinstance(value, type) and not hasattr(value, "params"):
        return getattr(value, "__name__", type(value).__name__)
    if hasattr(value, "params") and hasattr(value, "predict"):
        return f"<{type(value).__name__}>"          # a fitted model
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)) and len(value) <= 12:
        inner = ", ".join(describe_value(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    text = repr(value)
    return text if len(text) <= 60 else f"<{type(value).__name__}>"


@dataclass(frozen=True)
class RowArgument:
    """An argument given per row of the data (weights as an array, a label matrix): the call
    keeps only its description, and a refit on other rows needs it again."""

    description: str

    def __repr__(self) -> str:
        return self.description


@dataclass(frozen=True)
class RowSelection:
    """Some rows of the data a fit used, as :meth:`ModelCall.refit` takes them (``rows=``).

    Made by :class:`fmstats.results.TrainingRows` (``take``), never by hand: it holds the data
    argument of those rows (rows the fit kept, or rows of the training frame carrying the
    design built once) and the values, for those rows, of the arguments the call recorded
    per row (array prior weights, an offset array; a subset already applied is None).

    Parameters
    ----------
    data : object
        The data argument of the refit.
    values : dict
        The per-row arguments of the refit, by name (``weights``, ``subset``, ``offset``).
    function : callable, optional
        The model function of the fit the rows belong to (a refit of another model's call
        on them is refused).
    """

    data: Any
    values: dict
    function: Callable | None = None


def _row_data(value: Any) -> bool:
    """Whether a value is data given per row (an array, a Series or frame, a sparse matrix)."""
    return (isinstance(value, (np.ndarray, pd.Series, pd.DataFrame, list))
            or hasattr(value, "tocsr"))


@dataclass(frozen=True)
class ModelCall:
    """A model function and the arguments a fit was called with.

    Attributes
    ----------
    function : callable
        The public model function (``fm.maxent``, ``fm.fmaxent``, ``fm.wsvm``, ...).
    arguments : dict
        The arguments as the user passed them, by name, without the data argument and
        without the defaults the user did not type.
    data : str
        A description of the data argument (``<DataFrame 1046 x 5>``).
    data_arg : str
        The name of the data argument (``"data"``).
    """

    function: Callable
    arguments: dict
    data: str
    data_arg: str = "data"

    @classmethod
    def bind(cls, function: Callable, signature: inspect.Signature, args: tuple,
             kwargs: dict, data_arg: str = "data", rows: tuple = ()) -> "ModelCall":
        """The call of ``function(*args, **kwargs)`` (raises TypeError as the call would).

        Arguments named in ``rows`` that hold per-row data are kept as :class:`RowArgument`.
        """
        bound = signature.bind(*args, **kwargs)
        given = dict(bound.arguments)
        for name, p in signature.parameters.items():   # **kwargs given: flatten them
            if p.kind is inspect.Parameter.VAR_KEYWORD and name in given:
                given.update(given.pop(name))
        data = given.pop(data_arg, None)
        for name in rows:
            if name in given and _row_data(given[name]):
                given[name] = RowArgument(describe_value(given[name]))
        return cls(function=function, arguments=given, data=describe_value(data),
                   data_arg=data_arg)

    @classmethod
    def of(cls, function: Callable, *args, **kwargs) -> "ModelCall":
        """The call ``function(*args, **kwargs)`` of a function decorated by
        :func:`records_call`, without making it (e.g. one variant of a comparison)."""
        return cls.bind(function, inspect.signature(function), args, kwargs,
                        data_arg=getattr(function, "data_arg", "data"),
                        rows=getattr(function, "row_args", ()))

    @property
    def name(self) -> str:
        """The function's name (``"maxent"``)."""
        return self.function.__name__

    def resolved(self) -> dict:
        """Every argument of the function (data excluded): the given ones and the defaults."""
        sig = inspect.signature(self.function)
        out = {}
        for name, p in sig.parameters.items():
            if name == self.data_arg or p.kind in (inspect.Parameter.VAR_KEYWORD,
                                                    inspect.Parameter.VAR_POSITIONAL):
                continue
            out[name] = self.arguments.get(name, p.default)
        out.update({k: v for k, v in self.arguments.items() if k not in out})
        return out

    def get(self, name: str, default: Any = None) -> Any:
        """The resolved value of argument ``name``."""
        return self.resolved().get(name, default)

    def given(self, name: str) -> bool:
        """Whether the user passed argument ``name``."""
        return name in self.arguments

    def replace(self, **changes) -> "ModelCall":
        """The same call with some arguments changed (``None`` values are kept, not dropped)."""
        return ModelCall(function=self.function, arguments={**self.arguments, **changes},
                         data=self.data, data_arg=self.data_arg)

    def without(self, *names: str) -> "ModelCall":
        """The same call without the arguments ``names`` (their defaults apply again)."""
        return ModelCall(function=self.function,
                         arguments={k: v for k, v in self.arguments.items() if k not in names},
                         data=self.data, data_arg=self.data_arg)

    def refit(self, data: Any = None, *, rows: RowSelection | None = None, **changes) -> Any:
        """Call the function again on ``data`` with the recorded arguments and ``changes``.

        Arguments recorded per row of the old data (:class:`RowArgument`) must be among the
        ``changes``: they belong to the old rows.  ``rows`` instead of ``data``: some rows of
        the data the fit used (a :class:`RowSelection`, ``TrainingRows.take``), which also
        give the per-row arguments for themselves (the one path of every refit on training
        rows: tuning, resampling, calibration).
        """
        from ..exceptions import InvalidArgumentError

        if rows is not None:
            if data is not None:
                raise InvalidArgumentError("refit: give `data` or `rows`, not both.")
            if not isinstance(rows, RowSelection):
                raise InvalidArgumentError(
                    "`rows` must be rows of the fit's training data (a RowSelection, made by "
                    f"fmstats.results.TrainingRows.take); got {describe_value(rows)}.")
            if rows.function is not None and rows.function is not self.function:
                raise InvalidArgumentError(
                    f"`rows`: rows of a {rows.function.__name__}() fit cannot refit a "
                    f"{self.name}() call.")
            data, changes = rows.data, {**rows.values, **changes}
        args = {**self.arguments, **changes}
        stale = [k for k, v in args.items() if isinstance(v, RowArgument)]
        if stale:
            name = stale[0]
            what = "array weights" if name == "weights" else f"`{name}` given per row"
            raise InvalidArgumentError(
                f"`{name}`: this model was fitted with {what} ({args[name]}), which belong to "
                f"the rows of its own data; pass `{name}=` again for the new data to refit it.")
        return self.function(**{**args, self.data_arg: data})

    def refit_model_run(self, data: Any, model: Any, *, n_folds: int, weights: Any = None,
                        model_arg: str = "fit", **changes) -> Any:
        """The call of a function run on a fitted model (``calibrate``,
        ``multiclass_decision``) again on ``data``: the model refitted on ``data`` first (its
        own recorded call, with ``weights`` when given), then this call with it; folds given
        other than by their number (explicit rows, a splitter) become ``n_folds`` folds of the
        new rows.
        """
        new = model.refit(data) if weights is None else model.refit(data, weights=weights)
        cv = self.arguments.get("cv")
        if cv is not None and not isinstance(cv, (int, np.integer)):
            changes.setdefault("cv", n_folds)
        return self.refit(data, **{model_arg: new, **changes})

    def text(self) -> str:
        """The call as R prints it: ``name(arg = value, ...)`` in the signature's order, with
        the arguments the user gave and the data argument."""
        parts = []
        order = list(inspect.signature(self.function).parameters)
        for name in order:
            if name == self.data_arg:
                if self.data != "None":        # not given: the rows the fit kept
                    parts.append(f"{name} = {self.data}")
            elif name in self.arguments:
                parts.append(f"{name} = {describe_value(self.arguments[name])}")
        parts += [f"{k} = {describe_value(v)}" for k, v in self.arguments.items()
                  if k not in order]
        return f"{self.name}({', '.join(parts)})"

    def __str__(self) -> str:
        return self.text()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ModelCall):
            return NotImplemented
        return self.function is other.function and self.text() == other.text()

    def __hash__(self) -> int:
        return hash(self.text())


class Settings(Mapping):
    """The settings a model was fitted with, read-only: ``settings["cov_type"]``.

    Every argument of its recorded call with the defaults applied (the data excluded), plus
    what the model resolved on the data (e.g. fmaxent's ``method`` when not given, an
    SVM's default costs).  One shape for every family.
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping | None = None, **more):
        self._values = {**dict(values or {}), **more}

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def replace(self, **changes) -> "Settings":
        """A copy with some settings changed."""
        return Settings(self._values, **changes)

    @classmethod
    def of(cls, call: "ModelCall", *, drop: tuple = (), **resolved) -> "Settings":
        """The settings of a run of ``call``: every argument of the function's signature with
        its default applied (the data, the arguments in ``drop`` -- a fitted model a tuner
        takes -- and the ``**kwargs`` passed through left out), then ``resolved``: what the
        run resolved (a fixed seed, a criterion built from ``measure``/``beta``/``alpha``)."""
        params = inspect.signature(call.function).parameters
        values = {k: v for k, v in call.resolved().items() if k in params and k not in drop}
        return cls(values, **resolved)

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{k}={describe_value(v)}" for k, v in
                                        self._values.items()) + ")"

    def __getstate__(self):
        return self._values

    def __setstate__(self, state):
        self._values = state


def records_call(fn: Callable | None = None, *, data: str = "data",
                 rows: tuple = ("weights",)) -> Callable:
    """Decorate a model function so that it receives its :class:`ModelCall`.

    The function takes a keyword-only ``_call`` parameter, hidden from its public signature;
    the wrapper binds the user's arguments, builds the record and passes it in.  It is also
    the function's boundary (``boundary.py``): arguments it does not take, and
    exceptions of pandas, numpy, Dask... raised inside, leave as FmstatsErrors.  ``data``
    names the data argument (not recorded), ``rows`` the arguments that may hold per-row
    data (recorded by description only).
    """
    def wrap(f: Callable) -> Callable:
        sig = inspect.signature(f)
        public = sig.replace(parameters=[p for p in sig.parameters.values()
                                         if p.name != "_call"])

        typed = typed_arguments(f)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            check_typed(typed, args, kwargs)      # flags are booleans, counts integers
            try:
                call = ModelCall.bind(wrapper, public, args, kwargs, data_arg=data, rows=rows)
            except TypeError as exc:   # arguments the function does not take: say which
                raise argument_error(f, f.__name__, exc, public) from None
            return guarded(*args, _call=call, **kwargs)

        guarded = boundary(f, name=f.__name__)   # foreign exceptions leave as FmstatsErrors

        wrapper.__signature__ = public
        wrapper.__fmstats_public__ = True     # the boundary is ``guarded``
        wrapper.data_arg = data
        wrapper.row_args = tuple(rows)
        return wrapper

    return wrap(fn) if fn is not None else wrap


def weights_label(weights: Any) -> Any:
    """``weights`` as settings record it: a column name, None, or :data:`ARRAY_WEIGHTS`."""
    return weights if weights is None or isinstance(weights, str) else ARRAY_WEIGHTS


def refit_changes(call: ModelCall, weights: Any = None) -> dict:
    """The arguments a ``refit(data, weights=)`` changes in the recorded call: new ``weights``
    if given (weights recorded by column name are looked up in the new data; weights recorded
    per row must be given again, :meth:`ModelCall.refit` says so)."""
    return {} if weights is None else {"weights": weights}


def refuse_unused(call: ModelCall | None, names, when: str, advice: str = "") -> None:
    """Refuse the arguments among ``names`` that the user typed (the recorded ``call`` knows)
    with a value other than their default, but that have no effect ``when`` (``"with
    cov_type='HC0'"``): an argument without effect is refused, not ignored.  (A default
    typed out, as refits pass their settings, changes nothing and passes.)

    Parameters
    ----------
    call : ModelCall or None
        The recorded call (None: nothing is refused).
    names : iterable of str
        The arguments that have no effect in this call.
    when : str
        The setting that makes them so, as the message says it.
    advice : str, optional
        What to do instead (appended to the message).
    """
    from ..exceptions import InvalidArgumentError

    if call is None:
        return
    params = inspect.signature(call.function).parameters
    for name in names:
        default = params[name].default if name in params else inspect.Parameter.empty
        if call.given(name) and _differs(call.arguments[name], default):
            raise InvalidArgumentError(
                f"`{name}` has no effect {when}, so it would be ignored; remove it"
                f"{'' if not advice else ', or ' + advice}.")


def _differs(value: Any, default: Any) -> bool:
    """Whether a typed value differs from the parameter's default (arrays always do)."""
    if value is default:
        return False
    if isinstance(value, (np.ndarray, pd.Series, pd.DataFrame, RowArgument)):
        return True
    try:
        return not bool(value == default)
    except (TypeError, ValueError):
        return True
