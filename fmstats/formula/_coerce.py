"""Column dtypes for the formula engines: what is a number and what is a factor.

Used by ``_frame.py`` only (``model_frame`` and the Dask model frame when fitting,
``DesignSpec.build`` when predicting).  The rules, so that a column's meaning never depends on an accident of storage:

* a column is a factor only when it is one: ``category``, text (``str``, ``string`` or an
  object column of strings), or wrapped in ``C()``/``factor()`` in the formula;
* an ``object`` column whose values are all numbers (or all booleans) is used as the
  matching numeric column (``int64``/``float64``/``bool``), with a :class:`DataWarning`;
* a mostly numeric column holding strings raises :class:`DataError` naming the column and
  the offending values: an ``object`` column whose values are mostly numbers but not all, or
  a text column that reads as numbers (many distinct ones) except for a few strays (at most
  5% of its values);
* pandas' nullable dtypes (``Int64``, ``Float64``, ``boolean``, ``string``) reach the engines
  as their numpy counterparts, with ``pd.NA`` treated as missing like ``NaN``; unused
  categories of a categorical column are dropped when fitting (as R's ``model.frame`` does).
"""
from __future__ import annotations

import numbers
import re
from decimal import Decimal

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype, is_bool_dtype, is_numeric_dtype

from .._utils.validation import warn
from ..exceptions import DataError, DataWarning

__all__ = ["coerce_columns", "engine_frame", "drop_unused_categories", "check_unique_columns",
           "factor_only_columns", "numeric_columns", "check_numeric_columns", "object_note",
           "object_states", "text_stats", "merge_text_stats", "text_verdict", "is_text"]

#: an object column mixing numbers and strings is "mostly numeric" when more than this share
#: of its non-missing values are numbers
_MOSTLY = 0.5
#: text is a factor (as in R), unless it reads as numbers except for a few strays: at most
#: this share of its non-missing values, while its numbers take more than ``_MIN_DISTINCT``
#: distinct values (a measurement, not coded levels such as "0", "1", "2", "3+"; Titanic's
#: ``boat`` and ``ticket``, with 18% and 27% non-numbers, stay factors)
_STRAYS = 0.05
_MIN_DISTINCT = 10
_SHOW = 5

_FACTOR_CALL = re.compile(r"\b(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?")


def _show(values) -> str:
    vals = list(values)
    text = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in vals[:_SHOW])
    return text + (f", ... ({len(vals)} distinct)" if len(vals) > _SHOW else "")


def factor_only_columns(rhs: str, variables, names_of) -> set:
    """Columns that the right-hand side uses only inside ``C()``/``factor()``.

    ``names_of`` is the formula-name scanner (:func:`fmstats.formula.formula_names`).
    """
    called = set(_FACTOR_CALL.findall(rhs))
    if not called:
        return set()
    outside = set(names_of(_FACTOR_CALL.sub("C(__fmstats_factor__", rhs)))
    return {c for c in variables if c in called and c not in outside}


def check_unique_columns(data: pd.DataFrame, columns, arg: str) -> None:
    """Raise when a column the model uses appears more than once in ``data``."""
    if data.columns.is_unique:
        return
    dup = set(data.columns[data.columns.duplicated()])
    bad = [c for c in dict.fromkeys(columns) if c in dup]
    if bad:
        counts = ", ".join(f"'{c}' ({int((data.columns == c).sum())} times)" for c in bad)
        raise DataError(
            f"`{arg}` must have unique column names for the columns the model uses; got "
            f"duplicated column(s) {counts}. Rename or drop the duplicates first.")


def _object_to_numbers(s: pd.Series, col: str, arg: str, note: bool = True) -> pd.Series | None:
    """The numeric column behind an object column of numbers, None if it is text, or raise."""
    kind = infer_dtype(s, skipna=True)
    has_na = bool(s.isna().any())
    as_float = s.where(s.notna(), np.nan)
    if kind == "integer":
        try:
            out = as_float.astype(float) if has_na else s.astype(np.int64)
        except (OverflowError, TypeError, ValueError):
            out = as_float.astype(float)
    elif kind in ("floating", "mixed-integer-float", "decimal"):
        out = as_float.astype(float)
    elif kind == "boolean":
        out = s.astype("boolean") if has_na else s.astype(bool)
    elif kind in ("mixed", "mixed-integer"):
        vals = s[s.notna()]
        is_num = vals.map(lambda v: isinstance(v, (numbers.Real, np.number, Decimal))
                          and not isinstance(v, np.complexfloating)).to_numpy(bool)
        if is_num.all():
            out = as_float.astype(float)
        elif is_num.mean() <= _MOSTLY:
            return None
        else:
            strays = pd.unique(vals[~is_num].to_numpy())
            first = vals.index[np.flatnonzero(~is_num)[0]]
            raise DataError(
                f"column '{col}' of `{arg}` holds mostly numbers but {int((~is_num).sum())} "
                f"value(s) that are not ({_show(strays)}; the first at row {first!r}); a column "
                f"must hold numbers or text, not both. Fix or remove those values (e.g. "
                f"pd.to_numeric({arg}['{col}'], errors='coerce') turns them into missing values), "
                f"or write C({col}) to use the column as a factor.")
    else:
        return None
    if note:
        object_note(col, arg, "booleans" if kind == "boolean" else "numbers", out.dtype)
    return out


def object_note(col: str, arg: str, what: str, dtype) -> None:
    """The :class:`DataWarning` for an object column used as numbers."""
    warn(f"column '{col}' of `{arg}` has dtype object but holds only {what}; it is used as "
         f"{what} ({dtype}), not as a factor. Convert it (e.g. {arg}['{col}'].astype(float)) to "
         f"silence this note, or write C({col}) to use it as a factor.", DataWarning)


def text_stats(s: pd.Series) -> dict:
    """How far a text column reads as numbers: rows, numeric rows, (up to 11) distinct numbers,
    (up to 5) distinct non-numbers and the number of distinct values.  Stats of parts (Dask
    partitions) combine with :func:`merge_text_stats`."""
    counts = s.value_counts(dropna=True)
    parsed = pd.to_numeric(pd.Series(counts.index.to_numpy(dtype=object)), errors="coerce")
    is_num = parsed.notna().to_numpy()
    return {"total": int(counts.sum()), "numeric": int(counts.to_numpy()[is_num].sum()),
            "numbers": set(parsed[is_num].iloc[:_MIN_DISTINCT + 1]),
            "strays": list(counts.index[~is_num][:_SHOW]), "levels": len(counts)}


def merge_text_stats(parts) -> dict:
    parts = list(parts)
    return {"total": sum(p["total"] for p in parts), "numeric": sum(p["numeric"] for p in parts),
            "numbers": set().union(*(p["numbers"] for p in parts)),
            "strays": list(dict.fromkeys(v for p in parts for v in p["strays"]))[:_SHOW],
            "levels": max((p["levels"] for p in parts), default=0)}


def text_verdict(col: str, arg: str, st: dict, n_levels: int | None = None) -> None:
    """Raise for a text column of numbers with a few non-numbers; warn for one that looks
    like a numeric column stored as text (a level for most rows)."""
    total, n_num = st["total"], st["numeric"]
    n_levels = st["levels"] if n_levels is None else n_levels
    if n_levels <= 1:
        return
    if n_num == total:
        if n_levels > max(20, total // 2):
            warn(f"column '{col}' of `{arg}` holds text that reads as numbers; it is used as a "
                 f"factor with {n_levels} levels for {total} rows. If it is a number, convert "
                 f"it first (pd.to_numeric({arg}['{col}'])).", DataWarning)
        return
    if total - n_num <= _STRAYS * total and len(st["numbers"]) > _MIN_DISTINCT:
        raise DataError(
            f"column '{col}' of `{arg}` holds text that reads as numbers except for "
            f"{total - n_num} value(s) ({_show(st['strays'])}), so it would become a factor with "
            f"{n_levels} levels. Fix or remove those values (e.g. "
            f"pd.to_numeric({arg}['{col}'], errors='coerce') turns them into missing values), "
            f"or write C({col}) to use the column as a factor.")


def _check_text(s: pd.Series, col: str, arg: str) -> None:
    text_verdict(col, arg, text_stats(s))


def is_text(s: pd.Series) -> bool:
    """A column of strings (``str``/``string`` dtype, or object holding only strings)."""
    return isinstance(s.dtype, pd.StringDtype) or (
        s.dtype == object and infer_dtype(s, skipna=True) == "string")


def coerce_columns(data: pd.DataFrame, columns, arg: str, *, text: bool = True,
                   note: bool = True) -> pd.DataFrame:
    """``data`` with the object columns among ``columns`` that hold numbers made numeric.

    Raises :class:`DataError` for a mostly numeric column that holds strings; with ``text``,
    text columns are checked for stray non-numbers too; ``note=False`` omits the
    :class:`DataWarning` (a Dask partition: the caller warns once).  Columns not listed (e.g.
    those used only inside ``C()``) are left alone.
    """
    new = {}
    for col in dict.fromkeys(columns):
        s = data[col]
        if s.dtype == object:
            out = _object_to_numbers(s, col, arg, note)
            if out is not None:
                new[col] = out
                continue
            if text and infer_dtype(s, skipna=True) == "string":
                _check_text(s, col, arg)
        elif text and isinstance(s.dtype, pd.StringDtype):
            _check_text(s, col, arg)
    return data.assign(**new) if new else data


def _is_numeric(dtype) -> bool:
    return (is_numeric_dtype(dtype) and not is_bool_dtype(dtype)
            and not isinstance(dtype, pd.CategoricalDtype))


def numeric_columns(data: pd.DataFrame, columns) -> tuple:
    """The columns among ``columns`` that hold numbers (not booleans, not categories)."""
    return tuple(c for c in columns if _is_numeric(data[c].dtype))


def check_numeric_columns(data: pd.DataFrame, columns, arg: str) -> None:
    """Raise when a column that was numeric when fitting is not numeric in ``data``."""
    for col in columns:
        s = data[col]
        if not is_numeric_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype):
            vals = pd.unique(s.dropna().to_numpy())
            raise DataError(
                f"column '{col}' of `{arg}` must be numeric, as it was when the model was "
                f"fitted; got dtype {s.dtype} with values {_show(vals)}. Convert it first "
                f"(e.g. pd.to_numeric({arg}['{col}'])).")


def drop_unused_categories(data: pd.DataFrame, columns) -> pd.DataFrame:
    """``data`` without the unused categories of its categorical ``columns`` (R's
    ``drop.unused.levels``), so they neither become the reference level nor an all-zero
    design column."""
    new = {}
    for col in dict.fromkeys(columns):
        s = data[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            used = pd.unique(s.cat.codes.to_numpy())
            if np.count_nonzero(used >= 0) < len(s.cat.categories):
                new[col] = s.cat.remove_unused_categories()
    return data.assign(**new) if new else data


def engine_frame(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with pandas' nullable dtypes as their numpy counterparts for the engines.

    ``Int64`` becomes ``int64`` (``float64`` when it holds ``pd.NA``), ``Float64`` becomes
    ``float64`` (``pd.NA`` as NaN), ``boolean`` becomes ``bool`` (``object`` when it holds
    ``pd.NA``), and NA-backed ``string`` columns (pandas' ``"string"`` dtype, Dask's default
    for text) become ``object``: patsy cannot read the nullable numeric dtypes and formulaic
    1.2 does not treat NA-backed strings as categorical.
    """
    new = {}
    for i, t in enumerate(data.dtypes):
        if isinstance(t, pd.StringDtype):
            if t.na_value is pd.NA:
                new[i] = data.iloc[:, i].astype(object)
        elif isinstance(t, pd.BooleanDtype):
            s = data.iloc[:, i]
            new[i] = s.astype(object) if s.isna().any() else s.astype(bool)
        elif (isinstance(t, pd.api.extensions.ExtensionDtype) and is_numeric_dtype(t)
              and getattr(t, "kind", "") in "iuf"):
            s = data.iloc[:, i]
            if t.kind in "iu" and not s.isna().any():
                new[i] = s.to_numpy(dtype=t.numpy_dtype)
            else:
                new[i] = s.to_numpy(dtype=float, na_value=np.nan)
    if not new:
        return data
    out = data.copy(deep=False)
    for i, v in new.items():
        out.isetitem(i, v)
    return out


def object_states(data: pd.DataFrame, columns) -> dict:
    """For each object column: ``"numbers"`` (after :func:`coerce_columns` it is numeric),
    ``"text"``, or ``"none"`` (no values: either)."""
    return {c: "none" if not data[c].notna().any() else
            ("text" if data[c].dtype == object else "numbers") for c in columns}
