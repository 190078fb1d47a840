"""Rows of new data stay aligned in prediction: R's ``na.pass`` for ``newdata``.

``predict(newdata)`` of every results class returns one row per row of ``newdata``, in its
order and with its index: a row with a missing value in a column the model uses gets NaN
(``<NA>`` for classes), as R's ``predict(fit, newdata)`` does with its default ``na.pass``, so
that ``frame["p"] = fit.predict(frame)`` never shifts a prediction onto another row.
``na_action`` chooses otherwise: ``"omit"`` drops those rows (with a
:class:`~fmstats.exceptions.MissingDataWarning`), ``"fail"`` refuses them
(:class:`~fmstats.exceptions.MissingDataError`); ``"exclude"`` is ``"pass"`` (R pads
``na.exclude`` predictions of new data too).  The older ``missing=`` of some families
(``"drop"``, ``"raise"``) means ``"omit"`` and ``"fail"``.

Done once for every family: :class:`~fmstats.results.ScoreCurves` wraps the ``predict`` of
each results class with :func:`keeps_rows` (and the classes outside that hierarchy apply it
themselves).  The family's ``predict`` is called on the rows numbered 0..n-1, so the rows it
returns say where they sit, whatever ``newdata``'s index (duplicated labels included); the
rows it dropped come back as NaN.  Code inside fmstats that counts predictions against a
response (confusion counts, tuning) asks for ``"omit"`` (:func:`predict_kept`).
"""
from __future__ import annotations

import functools
import inspect
import warnings
from typing import Callable

import numpy as np
import pandas as pd

from .._utils.boundary import argument_error
from .._utils.validation import check_choice, warn
from ..exceptions import InvalidArgumentError, MissingDataError, MissingDataWarning

__all__ = ["NEWDATA_NA", "keeps_rows", "predict_kept"]

#: ``na_action`` of ``predict(newdata)``: R's na.pass (default), na.omit, na.exclude, na.fail.
NEWDATA_NA = ("pass", "omit", "exclude", "fail")
_MISSING = {"drop": "omit", "raise": "fail"}


def _nullable(s: pd.Series) -> pd.Series:
    """Integers and booleans as pandas' nullable dtypes, so that a padded row is ``<NA>``
    and the others keep their type (a class stays 0/1, not 0.0/1.0)."""
    kind = getattr(s.dtype, "kind", None)
    if kind in "iu":
        return s.astype("Int64")
    if kind == "b":
        return s.astype("boolean")
    return s


def _padded(out, positions: np.ndarray, n: int, index: pd.Index):
    """``out`` (rows at ``positions`` of n) with a missing row at every other position."""
    take = np.full(n, -1, dtype=np.int64)
    take[positions] = np.arange(len(out))
    flat = out.reset_index(drop=True)
    flat = (_nullable(flat) if isinstance(flat, pd.Series)
            else flat.apply(_nullable) if len(flat.columns) else flat)
    full = flat.reindex(take)            # position -1 is no row: NaN / <NA>
    full.index = index
    full.attrs.update(out.attrs)
    return full


def _resolve(na_action, kwargs) -> str:
    missing = kwargs.get("missing")
    if na_action is None:
        if missing is None:
            return "pass"
        check_choice("missing", missing, tuple(_MISSING))
        return _MISSING[missing]
    check_choice("na_action", na_action, NEWDATA_NA)
    if missing is not None and _MISSING.get(missing) != na_action:
        raise InvalidArgumentError(
            f"`missing`={missing!r} is the older spelling of na_action={_MISSING.get(missing)!r} "
            f"and contradicts na_action={na_action!r}; give only `na_action`.")
    return na_action


def keeps_rows(predict: Callable) -> Callable:
    """Wrap a results class's ``predict(newdata, ...)`` so that it returns one row per row of
    ``newdata`` and takes ``na_action``.

    ``na_action="pass"`` (the default, R's ``na.pass`` for new data): a row of ``newdata``
    with a missing value in a column the model uses gets NaN (``<NA>`` for integer classes)
    in its place, with a :class:`~fmstats.exceptions.MissingDataWarning`, whatever
    ``newdata``'s index (duplicated labels included); ``"exclude"`` is the same; ``"omit"``
    drops such rows (with the warning); ``"fail"`` refuses them
    (:class:`~fmstats.exceptions.MissingDataError`).

    Parameters
    ----------
    predict : callable
        The family's ``predict(self, newdata=None, ...)``, returning a Series or DataFrame
        indexed by the rows of ``newdata`` it predicted.

    Returns
    -------
    callable
        The wrapped method (with ``na_action`` in its signature).
    """
    if getattr(predict, "__fmstats_newdata_rows__", False):
        return predict

    sig = inspect.signature(predict)

    @functools.wraps(predict)
    def wrapper(self, newdata=None, *args, na_action: str | None = None, **kwargs):
        try:                  # an argument the family's predict does not take: say so here
            sig.bind(self, newdata, *args, **kwargs)
        except TypeError as exc:
            raise argument_error(predict, predict.__qualname__, exc,
                                 wrapper.__signature__) from None
        action = _resolve(na_action, kwargs)
        if action == "omit" or not isinstance(newdata, pd.DataFrame):
            return predict(self, newdata, *args, **kwargs)
        n = len(newdata)
        frame = newdata
        if not (isinstance(newdata.index, pd.RangeIndex) and newdata.index.equals(
                pd.RangeIndex(n))):
            frame = newdata.set_axis(pd.RangeIndex(n), axis=0)      # rows say where they sit
        if "missing" in kwargs:
            kwargs["missing"] = "drop"
        with warnings.catch_warnings():     # rows are padded, not dropped: said below
            warnings.simplefilter("ignore", MissingDataWarning)
            out = predict(self, frame, *args, **kwargs)
        if not isinstance(out, (pd.Series, pd.DataFrame)):
            return out
        if len(out) == n and out.index.equals(frame.index):
            return out.set_axis(newdata.index, axis=0)
        if not pd.api.types.is_integer_dtype(out.index.dtype):     # pragma: no cover
            return out                  # a family that renames rows: nothing to align with
        positions = np.asarray(out.index, dtype=np.int64)
        gone = n - len(positions)
        first = newdata.index[np.setdiff1d(np.arange(n), positions)[0]]
        if action == "fail":
            raise MissingDataError(
                f"`newdata` has {gone} of {n} row(s) with missing values in the model's columns "
                f"(the first at index label {first!r}), and na_action='fail' refuses them; "
                "na_action='pass' (the default) predicts NaN for them, 'omit' drops them.")
        warn(f"{gone} of {n} rows of `newdata` have missing values in the model's columns (the "
             f"first at index label {first!r}); their predictions are missing (NaN), in their "
             "place (na_action='pass', R's na.pass for new data); na_action='omit' drops "
             "them.", MissingDataWarning)
        return _padded(out, positions, n, newdata.index)

    params = list(sig.parameters.values())
    extra = inspect.Parameter("na_action", inspect.Parameter.KEYWORD_ONLY, default=None)
    at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
    wrapper.__signature__ = sig.replace(parameters=params[:at] + [extra] + params[at:])
    wrapper.__fmstats_newdata_rows__ = True
    return wrapper


def predict_kept(results, newdata, **kwargs):
    """``results.predict(newdata, **kwargs)`` on the rows it can predict (``na_action="omit"``
    for a results class that takes it): what code counting predictions against a response
    needs.

    Parameters
    ----------
    results : ModelResults
        A fitted model.
    newdata : DataFrame or None
        The rows to predict.
    **kwargs
        Further arguments of ``results.predict``.

    Returns
    -------
    pandas.Series or pandas.DataFrame
        The predictions of the rows that can be predicted.
    """
    if getattr(getattr(results, "predict", None), "__fmstats_newdata_rows__", False):
        kwargs.setdefault("na_action", "omit")
    return results.predict(newdata, **kwargs)
