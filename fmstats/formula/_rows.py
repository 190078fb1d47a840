"""Which rows a model uses: R's ``subset=`` and ``na.action``.

Used by ``_frame.py`` (``model_frame``) and by the model functions, which
resolve their ``na_action=`` (and its older spelling ``missing=``) with
:func:`resolve_na_action`.

* ``subset=`` (R's ``glm(subset =)``) is a boolean mask with one value per row of ``data``
  (an array, a list or a boolean Series aligned on the index), or an expression evaluated on
  ``data`` as R evaluates it (``"age > 30 & sex == 'male'"``, by
  :meth:`pandas.DataFrame.eval`; ``^`` is R's power), after its syntax tree is checked to
  use only columns, constants, operators and pandas' math functions
  (``_vocabulary.py``: no attribute access or method calls).  As in R, rows
  where the expression is missing are left out, and the subset is applied before missing
  values are handled.
* ``na_action`` is R's: ``"omit"`` (``na.omit``, the default: rows with missing values in a
  model variable are dropped, with a :class:`~fmstats.exceptions.MissingDataWarning`),
  ``"exclude"`` (``na.exclude``: dropped from the fit as by ``"omit"``, but ``predict()``,
  ``fitted_values``, ``resid()`` and ``hat`` are padded with NaN back to the rows of the data,
  so they line up with it) or ``"fail"`` (``na.fail``: an error).  ``missing="drop"|"raise"``
  is the older spelling of ``"omit"``/``"fail"``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._rsyntax import r_power
from ._vocabulary import expression_problem
from .._utils.validation import describe
from ..exceptions import DataError, FormulaError, InvalidArgumentError, ResponseError

__all__ = ["NA_ACTIONS", "MISSING_OF", "resolve_na_action", "select_subset", "describe_subset",
           "check_subset_classes", "aligned"]

NA_ACTIONS = ("omit", "exclude", "fail")
_MISSING = {"drop": "omit", "raise": "fail"}
#: ``model_frame``'s ``missing=`` for each ``na_action``.
MISSING_OF = {"omit": "drop", "exclude": "drop", "fail": "raise"}


def resolve_na_action(na_action, missing=None) -> str:
    """The ``na_action`` of a model call: ``"omit"``, ``"exclude"`` or ``"fail"``.

    ``missing`` (``"drop"`` or ``"raise"``) is the older spelling; giving both is an error
    unless they agree.  Defaults to ``"omit"`` (R's ``na.omit``).

    Parameters
    ----------
    na_action : {"omit", "exclude", "fail"} or None
        R's ``na.action``.
    missing : {"drop", "raise"} or None, optional
        Its older spelling.

    Returns
    -------
    str
        The resolved ``na_action``.
    """
    if missing is not None and (not isinstance(missing, str) or missing not in _MISSING):
        raise InvalidArgumentError(
            f"`missing` must be one of 'drop', 'raise' (or use na_action='omit', 'exclude', "
            f"'fail'); got {describe(missing)}.")
    if na_action is None:
        return "omit" if missing is None else _MISSING[missing]
    if not isinstance(na_action, str) or na_action not in NA_ACTIONS:
        raise InvalidArgumentError(
            f"`na_action` must be one of 'omit', 'exclude', 'fail' (R's na.omit, na.exclude, "
            f"na.fail); got {describe(na_action)}.")
    if missing is not None and _MISSING[missing] != na_action:
        raise InvalidArgumentError(
            f"`missing`={missing!r} and `na_action`={na_action!r} disagree; give one of them "
            "(missing= is the older spelling of na_action='omit'/'fail').")
    return na_action


def aligned(value, data: pd.DataFrame, arg: str):
    """``value`` with one entry per row of ``data``: a Series is aligned on its index by
    label (a label of ``data`` it lacks is a :class:`DataError` naming ``arg``); anything
    else is returned as it is (taken by position)."""
    if not isinstance(value, pd.Series):
        return value
    absent = data.index.difference(value.index)
    if len(absent):
        raise DataError(f"`{arg}` is a Series without the index label {absent[0]!r} of "
                        "`data`; it needs a value for every row.")
    return value.reindex(data.index)


def describe_subset(subset) -> str | None:
    """How a summary names a subset: the expression, or ``k of n rows`` for a mask.

    Parameters
    ----------
    subset : str, array-like or None
        The ``subset=`` argument of a fit.

    Returns
    -------
    str or None
        The description, or None without a subset.
    """
    if subset is None:
        return None
    if isinstance(subset, str):
        return subset
    mask = np.asarray(subset)
    return f"a mask of {int(np.count_nonzero(mask))} of {mask.size} rows"


def select_subset(data: pd.DataFrame, subset) -> tuple[pd.DataFrame, np.ndarray | None]:
    """``data`` restricted to ``subset`` and the positions of its rows (None: all rows).

    Raises :class:`InvalidArgumentError`, :class:`FormulaError` or :class:`DataError` naming
    ``subset`` for a mask of the wrong length or type, an expression that cannot be evaluated
    or is not boolean, and a subset that selects no row.
    """
    if subset is None:
        return data, None
    n = len(data)
    if isinstance(subset, str):
        why = expression_problem(subset, "pandas")     # before it is evaluated, every time
        if why is not None:
            raise FormulaError(f"`subset`: {subset!r} cannot be evaluated: {why}; a subset "
                               "uses the data's columns, constants, comparisons, & | ~ and "
                               "pandas' math functions.")
        try:
            value = data.eval(r_power(subset), engine="python")
        except Exception as exc:   # pandas raises many types
            raise FormulaError(f"`subset`: cannot evaluate {subset!r} on `data`: "
                               f"{type(exc).__name__}: {exc}") from None
        value = pd.Series(value, index=data.index) if np.ndim(value) else pd.Series(
            [value] * n, index=data.index)
        if not (pd.api.types.is_bool_dtype(value.dtype) or value.isna().all()
                or value.dropna().isin([True, False]).all()):
            raise InvalidArgumentError(
                f"`subset`: {subset!r} must give True/False for each row of `data`; got values "
                f"of type {value.dtype}.")
        mask = value.fillna(False).to_numpy(dtype=bool)   # R: rows where it is NA are left out
        what = repr(subset)
    else:
        mask = np.asarray(aligned(subset, data, "subset"))
        if mask.ndim != 1 or mask.shape[0] != n:
            raise DataError(f"`subset` must be a boolean mask with one value per row of `data` "
                            f"({n}) or an expression such as 'age > 30'; got shape "
                            f"{mask.shape}.")
        if mask.dtype != bool:
            raise InvalidArgumentError(
                f"`subset` must be a boolean mask (True for the rows to use) or an expression; "
                f"got values of type {mask.dtype}. (Row positions or labels: select the rows "
                "with data.iloc / data.loc instead.)")
        what = "the mask"
    if not mask.any():
        raise DataError(f"`subset` ({what}) selects no row of `data`.")
    if mask.all():
        return data, None
    return data.loc[mask], np.flatnonzero(mask)


def check_subset_classes(response, subset) -> None:
    """A :class:`ResponseError` naming ``subset`` when the rows it selects (after missing
    values) hold a single class of a 0/1 response."""
    if subset is None or response.kind != "binary":
        return
    y = response.y if response.trials is None else response.y[response.trials > 0]
    if y.size and (np.all(y == 0) or np.all(y == 1)):
        raise ResponseError(
            f"`subset` ({describe_subset(subset)}) leaves a single class of the response "
            f"'{response.name}': every selected row is {int(y[0])}; a classifier needs both.")
