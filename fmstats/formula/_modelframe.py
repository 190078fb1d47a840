"""The model frame of one fit: ``model_frame(formula, data)`` (split from :mod:`._frame`).

:func:`model_frame` reads the rows a formula uses (:func:`used_rows`: subset, offsets, the
response, missing values), builds the design through ``_frame.py`` (or takes
the rows of a design built once, ``_reuse.py``) and returns a
:class:`ModelFrame`: response, design, the :class:`~fmstats.formula.DesignSpec` that encodes
new data, and the rows' provenance.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ._checks import check_column_kinds, check_design, check_intercept_name, check_frame
from ._coerce import (check_unique_columns, coerce_columns, drop_unused_categories,
                      factor_only_columns)
from ._contrasts import apply_contrasts
from ._frame import (DIRECT_MIN_ROWS, DesignSpec, design_direct, drop_rows, memo_columns,
                     design_and_spec, remembered)
from ._offset import evaluate_offsets, offset_argument, offset_names, split_offsets
from ._parse import (DEFAULT_ENGINE, ENGINES, expand_dot, formula_names, parse_response,
                     split_formula, used_variables)
from ._response import Response
from ._response import response as _response
from ._rows import check_subset_classes, select_subset
from ._subset import reused_rows
from .._utils.validation import check_choice
from ..exceptions import DataError

__all__ = ["ModelFrame", "model_frame", "UsedRows", "used_rows"]

_check_frame = check_frame
_parse_response = parse_response


@dataclass(frozen=True)
class ModelFrame:
    """Response, design matrix and provenance of one fit.

    Built by :func:`model_frame`, not by users.

    Parameters
    ----------
    formula : str
        The formula as given.
    response : Response
        The response of the used rows.
    X : ndarray of shape (n, p)
        The design matrix (C-ordered).
    column_names : tuple of str
        The names of the design columns.
    spec : DesignSpec
        The encoding, to build the design of new data.
    index : pandas.Index
        The index of the used rows in the input frame.
    rows : ndarray of int
        The positions (0-based) of the used rows in the input frame.
    n_input : int
        The number of rows of the input frame.
    n_dropped : int
        The number of rows dropped for missing values.
    memo : dict, optional
        Answers computed from this frame (e.g. the aliased columns), kept for the fits that
        share it (see :meth:`remember`).
    offset : ndarray of shape (n,), optional
        The offset of the used rows (None without one).
    input_index : pandas.Index, optional
        The index of the rows the model considered (after ``subset``, before dropping
        missing values).
    input_rows : ndarray of int, optional
        The positions of the used rows among those (R's ``na.exclude`` pads back to them).
    """

    formula: str
    response: Response
    X: np.ndarray
    column_names: tuple[str, ...]
    spec: DesignSpec
    index: pd.Index
    rows: np.ndarray          # positions (0-based) of the used rows in the input frame
    n_input: int
    n_dropped: int
    offset: np.ndarray | None = None
    input_index: pd.Index | None = None
    input_rows: np.ndarray | None = None
    #: answers computed from this frame (e.g. the aliased columns), kept for the fits that
    #: share it: ``_reuse.py`` hands one frame to every grid point of a fold
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def remember(self, key, build):
        """``build()`` the first time for ``key``; its value (and warnings) after that.

        Parameters
        ----------
        key : hashable
            The key of the answer in :attr:`memo`.
        build : callable
            Called without arguments to compute the answer the first time.

        Returns
        -------
        object
            The value of ``build()``; its warnings are emitted again on every call.
        """
        return remembered(self.memo, key, build)




def model_frame(formula: str, data: pd.DataFrame, *, missing: str = "drop",
                engine: str | None = None, subset=None, offset=None,
                contrasts: dict | None = None) -> ModelFrame:
    """Build the response and design matrix of ``formula`` on ``data``.

    Parameters
    ----------
    formula : str
        ``"response ~ terms"``; the response is a 0/1, boolean or
        two-level column, a probability column in [0, 1], ``cbind(yes, no)``
        vote counts, or an expression such as ``I(income == '>50K')``.  ``offset(expr)``
        terms add a known part to the linear predictor (``_offset.py``).
    data : pandas.DataFrame
        The data, with the columns the formula uses (a dict is converted).
    missing : {"drop", "raise"}, default "drop"
        ``"drop"`` drops rows with missing/non-finite values in the
        model's columns, with a :class:`MissingDataWarning` giving the count;
        ``"raise"`` raises.
    engine : {"formulaic", "patsy"}, optional
        The formula engine: ``"formulaic"`` (default) or ``"patsy"``.
    subset : str or array-like of bool, optional
        R's ``subset=``: a boolean mask or an expression (``_rows.py``).
    offset : str or array-like, optional
        R's ``offset=``: a column name, or one finite number per row of ``data``.
    contrasts : dict, optional
        Factor -> ``"treatment"``, ``"sum"``, ``"helmert"`` or ``"poly"``.

    Returns
    -------
    ModelFrame
        The response, design matrix and provenance.
    """
    engine = DEFAULT_ENGINE if engine is None else engine
    check_choice("engine", engine, ENGINES)
    check_choice("missing", missing, ("drop", "raise"))
    data = _check_frame(data, "data")
    hit = reused_rows(data)
    extras = dict(subset=subset, offset=offset, contrasts=contrasts)
    if hit is not None and subset is offset is contrasts is None:
        # rows of a design built once: the same frame gives the same answer
        return remembered(hit.memo, ("model_frame", formula, missing, engine),
                          lambda: _model_frame(formula, data, missing, engine, hit),
                          frame=data, columns=memo_columns(hit, data, formula=formula))
    return _model_frame(formula, data, missing, engine, hit, **extras)


@dataclass(frozen=True)
class UsedRows:
    """The rows and columns of ``data`` a formula uses, checked, before any design: what
    :func:`model_frame` and the design built in row blocks (``_blocks.py``)
    share.  ``rows`` are positions in ``data``, ``input_rows`` in its ``subset``."""

    lhs: str
    rhs: str
    variables: list
    frame: pd.DataFrame      # the used rows (a view of ``data`` when none was dropped)
    rows: np.ndarray
    n_input: int
    response: Response
    offsets: tuple = ()              # offset() expressions (and the offset= column)
    off_array: np.ndarray | None = None     # offset= given as numbers, one per row of data
    input_index: pd.Index | None = None
    input_rows: np.ndarray | None = None


def used_rows(formula: str, data: pd.DataFrame, missing: str, engine: str, subset=None,
              offset=None, contrasts=None) -> UsedRows:
    """Parse ``formula``, check the columns it uses (offsets' too) and drop rows with
    missing values, within ``subset``."""
    lhs, rhs = split_formula(formula)
    off_col, off_array = offset_argument(offset, data)
    sub, sub_rows = select_subset(data, subset)
    rhs, offsets = split_offsets(rhs)
    offsets += () if off_col is None else (f"`{off_col}`",)
    kind, resp_cols, expr = _parse_response(lhs, sub)
    rhs = apply_contrasts(expand_dot(rhs, sub.columns, resp_cols, engine), contrasts, engine,
                          sub)
    variables = used_variables(rhs, sub)
    check_intercept_name(variables, "data")
    variables += [c for c in offset_names(offsets, sub) if c not in variables]
    n_input = len(sub)
    used = list(dict.fromkeys(resp_cols + variables))
    check_unique_columns(sub, used, "data")
    factor_only = factor_only_columns(rhs, variables, formula_names)
    check_column_kinds(sub, [c for c in used if c not in factor_only], "data")
    sub = coerce_columns(sub, [c for c in used if c not in factor_only], "data")
    frame, keep = drop_rows(sub, used, missing, "data")   # one scan for missing values
    rows = np.arange(n_input) if keep is None else np.flatnonzero(keep)
    if len(frame) == 0:
        raise DataError(f"no rows of `data` remain after dropping the {n_input} row(s) with "
                        f"missing values in the model's columns.")
    response = _response(kind, resp_cols, expr, frame, lhs)
    check_subset_classes(response, subset)
    rows_in = rows if sub_rows is None else sub_rows[rows]      # positions in `data`
    return UsedRows(lhs, rhs, variables, frame, rows_in, n_input, response, offsets, off_array,
                    sub.index, rows)


def _model_frame(formula, data, missing, engine, hit, subset=None, offset=None,
                 contrasts=None) -> ModelFrame:
    u = used_rows(formula, data, missing, engine, subset, offset, contrasts)
    lhs, rhs, variables, frame, rows, response = (u.lhs, u.rhs, u.variables, u.frame, u.rows,
                                                   u.response)
    cached = None if hit is None else hit.owner.design_rows(
        rhs, engine, variables, response.levels, hit.positions[rows])
    if cached is not None:   # rows of a design built once (fmstats.formula._reuse)
        X, spec = cached
    else:
        frame = drop_unused_categories(frame, variables)
        built = None if len(frame) < DIRECT_MIN_ROWS else design_direct(
            engine, rhs, lhs, frame, variables, response.levels)
        X, spec, extremes = built or design_and_spec(engine, rhs, lhs, frame, variables,
                                                     response.levels)
        check_design(X, spec.column_names, "data", formula=formula, extremes=extremes)
        if u.offsets or u.off_array is not None:
            spec = replace(spec, offsets=u.offsets, offset_array=u.off_array is not None)
    off = evaluate_offsets(u.offsets, frame)
    if u.off_array is not None:
        off = u.off_array[rows] + (0.0 if off is None else off)
    return ModelFrame(
        formula=formula, response=response, X=np.ascontiguousarray(X),
        column_names=spec.column_names, spec=spec, index=frame.index, rows=rows,
        n_input=u.n_input, n_dropped=u.n_input - len(frame), offset=off,
        input_index=u.input_index, input_rows=u.input_rows)


#: Transforms whose state (means, knots, norms) an engine learns from the data: they would be
#: learnt from a sample, not the whole Dask DataFrame, so out-of-core fits refuse them.
