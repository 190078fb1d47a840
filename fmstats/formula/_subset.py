"""Rows of a data frame whose design was built once: the data argument carries the design.

:class:`DesignRows` is a pandas DataFrame of some rows of the data a
:class:`~fmstats.formula.DesignMatrix` was built on, which also holds that design and the rows'
positions in it.  Tuning and resampling hand such a frame to a model function or a results
method as its ``data``/``newdata`` argument (``fit.refit(design.subset(train))``);
:func:`fmstats.formula.model_frame` and :meth:`fmstats.formula.DesignSpec.build` see it and take
the design's rows instead of calling the formula engine again.  Nothing is looked up by
identity and nothing lives in ambient state: the frame itself carries the design.  Anything
derived from it (a column selection, a row subset, ``assign``) is a plain DataFrame.

A DataFrame can be changed in place (``frame["x"] = ...``, ``frame.loc[i, "x"] = ...``), and
so can the data the design was built on, so the design is used only while it is *current*:
:func:`stamp` records the values of the columns the design was built from (64 bits of every
row mixing the columns' values, and the columns' dtypes) when the design is built, and
:func:`reused_rows` compares the frame's rows with it at every use.  A frame whose design
columns changed since is treated as any DataFrame (its design is rebuilt from its values);
what was remembered from a frame (its model frame, its response) is stamped the same way
(``remembered``).  A value changed in one column of a row is
always detected (numbers enter by their bits, categories by their codes, one-to-one); other
values by a 64-bit hash, and several changes in one row, are missed with probability about
2**-64.  A sample of rows, or the identity of the column buffers (an in-place edit keeps
them), could miss an edit; read-only buffers would make pandas raise raw errors at the user's
edit and do not cover pandas' extension arrays.  Cost (``benchmarks/speed/bench_design_stamp.py``; a string column
costs most): the check of a fold's frame is a fraction of the fit on it and of the rebuild
it saves.  This
module imports nothing from fmstats.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["DesignRows", "Reused", "reused_rows", "Stamp", "stamp"]


class Reused(NamedTuple):
    """What a :class:`DesignRows` frame carries: the design built once (``owner``, a
    :class:`~fmstats.formula.DesignMatrix`), the rows' positions in it, and a memo of what
    was built from this frame (model frames, responses) shared by the fits that receive it."""

    owner: Any
    positions: np.ndarray
    memo: dict


class DesignRows(pd.DataFrame):
    """Rows ``positions`` of the data of a design built once, as a DataFrame.

    Built by :meth:`fmstats.formula.DesignMatrix.subset`; behaves as any DataFrame.  Operations
    return plain DataFrames (:attr:`_constructor`), so only this very frame carries the design.
    """

    _metadata = ["design_owner", "design_positions", "design_memo"]

    @property
    def _constructor(self):
        return pd.DataFrame

    @classmethod
    def of(cls, frame: pd.DataFrame, owner: Any, positions: np.ndarray,
           memo: dict | None = None) -> "DesignRows":
        """``frame`` (rows ``positions`` of ``owner``'s data) carrying ``owner``'s design, and
        ``memo`` (shared by the frames of the same rows; a new one by default)."""
        out = cls(frame)
        out.design_owner = owner
        out.design_positions = np.asarray(positions, dtype=np.int64)
        out.design_memo = {} if memo is None else memo
        return out


def reused_rows(data: Any) -> Reused | None:
    """The design ``data`` carries (a :class:`DesignRows`), or None for any other data and
    for a frame whose design columns no longer hold the values the design was built from
    (changed in place since, or the design's data changed before the rows were taken)."""
    if isinstance(data, DesignRows) and getattr(data, "design_owner", None) is not None:
        owner, positions = data.design_owner, data.design_positions
        if owner.holds(data, positions):
            return Reused(owner, positions, data.design_memo)
    return None


# --------------------------------------------------------------------------- stamps

#: The odd multiplier of the row hash (FNV-1a's 64-bit prime).
_ODD = np.uint64(0x100000001B3)

#: The hash of a missing value of an object column (any constant: missing is missing).
_MISSING = np.uint64(0x9E3779B97F4A7C15)


class Stamp(NamedTuple):
    """The values of some columns of a frame: their dtypes and a 64-bit hash of every row."""

    columns: tuple
    dtypes: tuple
    hashes: np.ndarray

    def matches(self, other: "Stamp | None", positions: np.ndarray | None = None) -> bool:
        """Whether ``other`` (a stamp of the same columns) has the same dtypes and the same
        rows as this stamp's rows ``positions`` (all of them when None)."""
        if other is None or other.columns != self.columns or other.dtypes != self.dtypes:
            return False
        mine = self.hashes if positions is None else self.hashes[positions]
        return mine.shape == other.hashes.shape and bool(np.array_equal(mine, other.hashes))

    def holds(self, frame: pd.DataFrame) -> bool:
        """Whether ``frame``'s columns still hold the values stamped."""
        return self.matches(stamp(frame, self.columns))


def _dtype_key(dtype):
    """A dtype as the stamp compares it: pandas calls unordered categoricals with the same
    levels in another order equal, but the order sets the design's reference level."""
    if isinstance(dtype, pd.CategoricalDtype):
        return ("category", tuple(dtype.categories.tolist()), bool(dtype.ordered),
                str(dtype.categories.dtype))
    return dtype


def _column_hashes(col: pd.Series) -> np.ndarray:
    """64 bits of every value of a column: a number's own bits (a changed number always
    changes them), a category's code (the stamp's dtype holds the categories), else a hash
    of the value.  pandas hashes an object column through ``str``, so ``1`` and ``"1"`` would
    agree: the distinct values are hashed with their type (one Python step per distinct value
    of an object column, none per row)."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf" and dtype.itemsize <= 8:
        values = col.to_numpy()
        return values.view(f"u{dtype.itemsize}").astype(np.uint64, copy=False)
    if isinstance(dtype, pd.CategoricalDtype):
        return col.cat.codes.to_numpy().astype(np.uint64)       # -1 (missing) wraps: a code
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    if dtype == object:
        keys = np.array([f"{type(u).__module__}.{type(u).__qualname__}:{u!r}" for u in uniques],
                        dtype=object)
    else:
        keys = np.asarray(uniques.astype(object), dtype=object)
    table = np.append(pd.util.hash_array(keys), _MISSING)
    return table[codes]                           # code -1 (missing) takes the last entry


def stamp(frame: pd.DataFrame, columns) -> Stamp | None:
    """The :class:`Stamp` of ``columns`` of ``frame``, or None when a column is absent,
    duplicated or cannot be hashed (the frame then never passes for stamped rows)."""
    columns = tuple(columns)
    hashes = np.zeros(len(frame), dtype=np.uint64)
    dtypes = []
    try:
        for c in columns:
            col = frame[c]
            if not isinstance(col, pd.Series):
                return None
            dtypes.append(_dtype_key(col.dtype))
            # x -> (x ^ v) * odd is one-to-one in v: a row whose value changed in one column
            # always gets another hash; changes in several columns collide with
            # probability about 2**-64
            hashes ^= _column_hashes(col)
            hashes *= _ODD
    except (KeyError, TypeError, ValueError):
        return None
    return Stamp(columns, tuple(dtypes), hashes)
