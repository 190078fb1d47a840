"""The data validator: one set of rules for every path by which data become numbers.

The paths are the fit data (:func:`fmstats.formula.model_frame`, which every family uses:
maxent, umaxent, fmaxent, wsvm, fsvm, costsens, the multi-label models), new data
(:meth:`fmstats.formula.DesignSpec.build`: predictions, scores, tuning), each partition of a
Dask DataFrame (:func:`fmstats.formula.dask_model_frame`, fit and predict) and the weights
(``prior_weights``, with the same rule for dates).  Each rule
raises a :class:`~fmstats.exceptions.DataError` naming the argument, the column, the rule
and the value:

* ``data`` is a DataFrame with flat column labels (a ``MultiIndex`` is refused: formula names
  cannot address its tuples) and at least one row;
* a used column holds numbers, booleans, text or categories; datetimes and timedeltas are
  refused (numpy turns them into integer nano- or microseconds, a unit nobody chose), as are
  periods, intervals and complex numbers;
* a factor has at least two levels among the rows used (R refuses one: "contrasts can be
  applied only to factors with 2 or more levels"; silently dropping it fits another model);
* no used column is named like the intercept term (``Intercept``): the coefficients would
  carry two identical names;
* the design has at least one column (``y ~ 0`` has none), and every value is finite with
  each column spreading within ``SPREAD_RANGE`` (new data:
  within it in magnitude), so X'WX, its inverse and x'Vx stay representable doubles.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from .._utils.validation import SPREAD_RANGE, describe, temporal_advice
from ..exceptions import DataError, DesignError, FormulaError, InvalidArgumentError

__all__ = ["check_frame", "check_column_kinds", "check_factor_levels", "check_intercept_name",
           "check_design", "check_extremes", "INTERCEPT_LABELS"]

#: The names the formula engines give the intercept column.
INTERCEPT_LABELS = ("Intercept",)

_TEMPORAL_OBJECTS = ("datetime", "datetime64", "timedelta", "timedelta64")


def check_frame(data, name: str) -> pd.DataFrame:
    """``data`` as a DataFrame with flat column labels and at least one row (a dict is
    converted); else an InvalidArgumentError or DataError naming the argument ``name``.

    Parameters
    ----------
    data : pandas.DataFrame or dict
        The data given.
    name : str
        The argument's name, for the messages.

    Returns
    -------
    pandas.DataFrame
        ``data`` as a DataFrame.
    """
    if not isinstance(data, pd.DataFrame):
        if isinstance(data, dict):
            data = pd.DataFrame(data)
        else:
            raise InvalidArgumentError(f"`{name}` must be a pandas DataFrame; got {describe(data)}.")
    check_flat_columns(data.columns, name)
    if data.shape[0] == 0:
        raise DataError(f"`{name}` has no rows; at least one row is needed.")
    return data


def check_flat_columns(columns: pd.Index, name: str) -> None:
    """Refuse MultiIndex column labels, which formula names cannot address."""
    if isinstance(columns, pd.MultiIndex):
        shown = ", ".join(map(repr, list(columns[:3])))
        raise DataError(
            f"`{name}` has MultiIndex columns ({columns.nlevels} levels, e.g. {shown}); a formula "
            f"names flat columns. Flatten them first, e.g. {name}.columns = "
            f"['_'.join(map(str, c)) for c in {name}.columns].")


def _not_a_number(s: pd.Series) -> str | None:
    """Why a column cannot become numbers or levels (None when it can)."""
    dtype = s.dtype
    kind = getattr(dtype, "kind", None)
    if kind in ("m", "M") or isinstance(dtype, pd.DatetimeTZDtype):
        return "temporal"
    if isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)):
        return f"has dtype {dtype}, which is neither a number nor text"
    if kind == "c":
        return "holds complex numbers, which a linear predictor cannot use"
    if dtype == object and infer_dtype(s, skipna=True) in _TEMPORAL_OBJECTS:
        return "temporal"
    return None


def check_column_kinds(data: pd.DataFrame, columns, arg: str, *, where: str = "") -> None:
    """Raise :class:`DataError` for a used column of datetimes, timedeltas, periods, intervals
    or complex numbers, naming it, its dtype and a conversion.  ``where`` adds a location to
    the message (a Dask partition)."""
    for col in dict.fromkeys(columns):
        s = data[col]
        if isinstance(s, pd.DataFrame):      # duplicated labels: check_unique_columns says so
            continue
        why = _not_a_number(s)
        if why is None:
            continue
        if why == "temporal":
            why = temporal_advice(f"{arg}['{col}']", s.dtype)
        raise DataError(f"column '{col}' of `{arg}`{where} {why}.")


def check_factor_levels(levels: dict, arg: str, *, rows: int | None = None) -> None:
    """Raise :class:`DataError` for a factor with fewer than two levels (R's rule)."""
    for col, lv in levels.items():
        if len(lv) < 2:
            shown = f"the single level {lv[0]!r}" if lv else "no level"
            among = f" among the {rows} row(s) used" if rows is not None else ""
            raise DataError(
                f"column '{col}' of `{arg}` is used as a factor but has {shown}{among}; a "
                "factor needs two or more levels to be contrasted (R stops with 'contrasts can "
                "be applied only to factors with 2 or more levels'). Remove it from the "
                "formula, or check the rows dropped for missing values.")


def check_intercept_name(variables, arg: str) -> None:
    """Raise :class:`FormulaError` when a used column is named like the intercept term."""
    clash = [v for v in variables if v in INTERCEPT_LABELS]
    if clash:
        raise FormulaError(
            f"column '{clash[0]}' of `{arg}` has the name fmstats gives the intercept term, so "
            "two coefficients would be called the same; rename the column (e.g. "
            f"{arg}.rename(columns={{'{clash[0]}': '{clash[0].lower()}_'}})).")


def check_design(X: np.ndarray, names, arg: str, *, formula: str = "", new: bool = False,
                 where: str = "", extremes=None) -> None:
    """The design's columns: at least one, unique names, finite values spreading within
    :data:`SPREAD_RANGE` (``new``: within it in magnitude, so x'Vx is finite).  ``extremes``:
    the columns' (largest, smallest) values when the design's builder gathered them.

    Parameters
    ----------
    X : numpy.ndarray or scipy.sparse matrix
        The design.
    names : sequence of str
        Its column names.
    arg : str
        The argument the design comes from, for the messages.
    formula : str, default ""
        The formula, for the messages.
    new : bool, default False
        Whether ``X`` is the design of new data (a prediction) rather than of a fit.
    where : str, default ""
        Where the design was built, for the messages.
    extremes : tuple of numpy.ndarray, optional
        The columns' (largest, smallest) values, when already gathered.
    """
    names = list(names)
    if X.shape[1] == 0:
        raise FormulaError(
            f"`formula` {formula!r} has no terms: no intercept and no predictor, so there is "
            "no linear predictor to fit (use '1' for an intercept-only model).")
    if len(set(names)) < len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise FormulaError(
            f"the design of `formula` {formula!r} has duplicated column names "
            f"({', '.join(map(repr, dup))}); rename the columns of `{arg}` they come from.")
    if X.shape[0] == 0:
        return
    if extremes is not None:
        hi, lo = extremes
    elif hasattr(X, "toarray"):       # a scipy.sparse design (fmstats.sklearn): its zeros count
        hi, lo = X.max(axis=0).toarray().ravel(), X.min(axis=0).toarray().ravel()
    else:
        hi, lo = column_extremes(X)
    check_extremes(hi, lo, names, arg, new=new, where=where)


def column_extremes(X: np.ndarray, rows: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Each column's largest and smallest value (NaN if it holds one), exactly as
    ``X.max(axis=0)``, ``X.min(axis=0)``.

    On a C-ordered matrix those reduce with an inner loop as short as a row (p values);
    viewing ``rows`` rows as one row of rows * p values makes it long and the reduction several
    times faster (``benchmarks/README.md``); the fit of every formula pays it once.
    """
    n, p = X.shape
    k = (n // rows) * rows
    if k == 0 or not X.flags.c_contiguous:
        return X.max(axis=0), X.min(axis=0)
    V = X[:k].reshape(k // rows, rows * p)
    hi, lo = V.max(axis=0).reshape(rows, p).max(axis=0), V.min(axis=0).reshape(rows, p).min(axis=0)
    if k < n:
        hi, lo = np.maximum(hi, X[k:].max(axis=0)), np.minimum(lo, X[k:].min(axis=0))
    return hi, lo


def check_extremes(hi: np.ndarray, lo: np.ndarray, names, arg: str, *, new: bool = False,
                   where: str = "") -> None:
    """:func:`check_design`'s rule on the columns' largest and smallest values (a design
    built in row blocks gathers them block by block).

    Parameters
    ----------
    hi : numpy.ndarray
        The columns' largest values.
    lo : numpy.ndarray
        The columns' smallest values.
    names : sequence of str
        The column names.
    arg : str
        The argument the design comes from, for the messages.
    new : bool, default False
        Whether the design is of new data (a prediction).
    where : str, default ""
        Where the design was built, for the messages.
    """
    low, high = SPREAD_RANGE
    with np.errstate(over="ignore", invalid="ignore"):
        mid, half = lo / 2 + hi / 2, hi / 2 - lo / 2
        size = np.maximum(np.abs(hi), np.abs(lo))
    for j, name in enumerate(names):
        if not (np.isfinite(mid[j]) and np.isfinite(half[j])):
            raise DesignError(
                f"design column {name!r} of `{arg}`{where} has values whose range overflows "
                "double precision (or that are not finite); rescale the variable it comes from.")
        if new and size[j] > high:
            raise DesignError(
                f"design column {name!r} of `{arg}`{where} holds values as large as "
                f"{size[j]:.3g}; values beyond {high:g} make the linear predictor's variance "
                f"x'Vx overflow double precision: rescale the variable (the fit's columns "
                f"spread within [{low:g}, {high:g}]).")
        h = half[j]
        if not new and h > 0 and not (low <= h <= high):
            raise DesignError(
                f"design column {name!r} spreads {h:.3g} (half its range, at least) in "
                f"`{arg}`{where}; columns must spread between {low:g} and {high:g}, or X'WX and the "
                "coefficients' covariance are not representable in double precision: rescale "
                f"it (e.g. divide by {h:.0e}).")
