"""Designs filled from the data's own columns, without the formula engine.

Most designs are the intercept, numeric data columns as they are and treatment dummies of
factor columns.  formulaic copies every column twice on the way (``numpy.array`` and the
term's scale) and multiplies a factor's dummies by its coding matrix in integer arithmetic;
at 1e6 x 20 (15 numbers, a five-level factor) that is 0.07 s of the 0.12 s a model frame
takes.  Filling the row-major design from the columns directly takes one pass
(:func:`fill`).  Which data column (and level) each design column is comes from the column
names of a design the engine built on a sample holding every level (:func:`sources`), and
the caller checks the filled sample against the engine's sample values exactly: a design
column is a function of its own row's value, and the sample holds every level, so equal
sample rows mean equal designs.  Anything else (interactions, transforms, other
contrasts, patsy) is built by the engine.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["sample_positions", "sources", "fill", "stack", "HEAD_ROWS"]

#: Rows of the head of the data in the sample (besides the first row of every level).
HEAD_ROWS = 64
#: Rows per block when filling (~1 MiB of design at p = 16, so a block stays in cache).
_FILL_ROWS = 8192


def sample_positions(frame: pd.DataFrame, factors) -> np.ndarray:
    """The head of ``frame`` and the first row of every value of every factor column."""
    keep = np.zeros(len(frame), dtype=bool)
    keep[:HEAD_ROWS] = True
    for c in factors:
        keep |= ~frame[c].duplicated(keep="first").to_numpy()
    return np.flatnonzero(keep)


def sources(frame: pd.DataFrame, column_names, numeric, categorical: dict) -> tuple | None:
    """The source of each design column, or None when one has none.

    ``numeric``: the data columns taken as numbers (booleans as 0/1); ``categorical``: the
    engine's categorical terms, ``{expr: (data column, levels)}``.  A source is None (the
    intercept), a data column's name (its values as floats), or ``(column, level)`` (the 0/1
    indicator of the level, named ``expr[T.level]`` by treatment contrasts or ``expr[level]``
    at full rank).
    """
    dummies = {}
    for expr, (col, levels) in categorical.items():
        for lv in levels:
            dummies[f"{expr}[T.{lv}]"] = dummies[f"{expr}[{lv}]"] = (col, lv)
    out = []
    for name in column_names:
        if name == "Intercept":
            out.append(None)
        elif (name in numeric and name in frame.columns
              and isinstance(frame[name].dtype, np.dtype) and frame[name].dtype.kind in "fiub"):
            out.append(name)
        elif name in dummies:
            out.append(dummies[name])
        else:
            return None
    return tuple(out)


def _codes(s: pd.Series, levels) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of a factor column's values among its categories (-1: none, as a value
    outside ``C(x, levels=...)`` gets, whose dummies are all 0 as the engine makes them).
    Tuples stay single levels (no MultiIndex)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.cat.codes.to_numpy(), s.cat.categories
    cats = pd.Index(list(levels), tupleize_cols=False)
    return cats.get_indexer(s.to_numpy()), cats


def fill(frame: pd.DataFrame, srcs: tuple, positions=None, levels: dict | None = None
         ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The C-ordered design of ``frame``'s rows (or of its rows at ``positions``) from
    :func:`sources`, with each column's (largest, smallest) value (:func:`stack`).

    ``levels``: ``{column: levels}`` of factor columns that are not Categorical (the codes
    of their values are looked up among them).
    """
    vals: list = []
    codes: dict = {}
    for s in srcs:
        if s is None:
            vals.append(None)
        elif isinstance(s, str):
            c = frame[s].to_numpy()
            vals.append(c if positions is None else c[positions])
        else:
            col, lv = s
            if col not in codes:
                k, cats = _codes(frame[col], (levels or {}).get(col, ()))
                codes[col] = (k if positions is None else k[positions], cats)
            k, cats = codes[col]
            vals.append((k, cats.get_loc(lv)))
    return stack(vals, len(frame) if positions is None else len(positions))


def stack(vals: list, n: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """One C-ordered float matrix of ``n`` rows from per-column values, and each column's
    (largest, smallest) value (NaN if it holds one; ones when ``n`` is 0).

    A value is None (a column of ones), an array of ``n`` numbers, or ``(codes, code)`` (the
    0/1 indicator ``codes == code``).  Writing whole columns into a row-major matrix strides
    through all of its memory once per column (as numpy.stack(axis=1) and formulaic's
    output="numpy" do); filling it in blocks of rows keeps each block in cache.  The
    extremes are reduced on the contiguous column values, faster than on the row-major
    matrix (timings: ``benchmarks/README.md``, *Measurements behind implementation
    choices*).
    """
    X = np.empty((n, len(vals)))
    for start in range(0, n, _FILL_ROWS):
        block, stop = X[start:start + _FILL_ROWS], start + _FILL_ROWS
        for j, v in enumerate(vals):
            if v is None:
                block[:, j] = 1.0
            elif isinstance(v, tuple):
                block[:, j] = v[0][start:stop] == v[1]
            else:
                block[:, j] = v[start:stop]
    hi, lo = np.ones(len(vals)), np.ones(len(vals))
    if n == 0:
        return X, (hi, lo)
    for j, v in enumerate(vals):
        if isinstance(v, tuple):
            m = np.count_nonzero(v[0] == v[1])
            hi[j], lo[j] = float(m > 0), float(m == n)
        elif v is not None:
            hi[j], lo[j] = v.max(), v.min()
    return X, (hi, lo)
