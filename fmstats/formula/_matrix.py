"""A design given as a matrix: what the scikit-learn estimators hand to the model functions.

:class:`MatrixData` carries a design matrix (a dense array or a scipy.sparse CSR/CSC matrix,
without intercept), 0/1 labels and the names of its columns; a model function given it as
``data`` builds its model frame with :func:`matrix_model_frame` instead of a formula engine:
the design is the intercept column followed by the columns of X, **kept sparse** when X is
sparse (the maxent cores accumulate X'WX from it; see :mod:`fmstats.glm._irls`).  The frame's
:class:`MatrixSpec` rebuilds the design of new data from a matrix of the same columns (or a
DataFrame holding them by name).  Used by :mod:`fmstats.sklearn`,
``fmstats/maxent_models/_prepare.py`` and ``fmstats/svm/_data.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._frame import DesignSpec
from ._modelframe import ModelFrame
from ._response import Response
from .._utils.validation import describe
from ..exceptions import DataError

__all__ = ["MatrixData", "MatrixSpec", "matrix_model_frame", "is_sparse"]

_INTERCEPT = "Intercept"


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array.

    Parameters
    ----------
    X : object
        Anything.

    Returns
    -------
    bool
        True for a scipy.sparse matrix or array.
    """
    import scipy.sparse as sp

    return sp.issparse(X)


def _with_intercept(X):
    """[1, X]: CSR when X is sparse (no densifying), a C-ordered array otherwise."""
    n = X.shape[0]
    if is_sparse(X):
        import scipy.sparse as sp

        return sp.hstack([sp.csr_matrix(np.ones((n, 1))), X], format="csr", dtype=np.float64)
    out = np.empty((n, X.shape[1] + 1))
    out[:, 0] = 1.0
    out[:, 1:] = X
    return out


class MatrixData:
    """A design matrix with labels, as the ``data`` of a model function.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design without intercept (finite numbers).
    y : ndarray of shape (n,)
        0/1 labels.
    names : sequence of str
        The names of the columns of X (the coefficients' names).
    """

    def __init__(self, X, y, names):
        self.X = X.tocsr() if is_sparse(X) else np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.names = tuple(str(n) for n in names)

    def __len__(self) -> int:
        return int(self.X.shape[0])

    def __repr__(self) -> str:
        kind = "sparse" if is_sparse(self.X) else "dense"
        return f"<{kind} matrix {self.X.shape[0]} x {self.X.shape[1]}>"


@dataclass(frozen=True)
class MatrixSpec(DesignSpec):
    """The encoding of a matrix design: the intercept column, then the columns of X.

    :meth:`build` takes new data as a matrix (dense or sparse) with the same columns, or a
    DataFrame holding them by name.  Built by :func:`matrix_model_frame`, not by users.

    Parameters
    ----------
    engine : str
        ``"matrix"``.
    rhs : str
        ``"."`` (every column of the matrix).
    column_names : tuple of str
        ``"Intercept"`` and the names of the matrix's columns.
    variables : tuple of str
        The names of the matrix's columns.
    lhs : str, default ""
        The response's name.
    response_levels, levels, engine_spec, numeric, patsy_data, offsets, offset_array, engine_state
        As in :class:`DesignSpec` (unused by a matrix design).
    """

    @staticmethod
    def _state_problem(state: dict) -> str | None:
        # read from a results file: nothing of a matrix design is evaluated
        if state.get("engine") != "matrix" or state.get("engine_state") is not None:
            return "a matrix design's engine must be 'matrix', without an engine state"
        return None

    def build(self, data, *, missing: str = "raise"):
        """The design of ``data`` (with its intercept column) and the index of its rows.

        Parameters
        ----------
        data : ndarray, scipy.sparse matrix or DataFrame
            The new rows: a matrix with the model's columns in order, or a DataFrame with
            them by name.
        missing : {"raise"}, default "raise"
            Missing values raise (a matrix has no rows to drop by name).

        Returns
        -------
        X : ndarray or scipy.sparse.csr_matrix
            The design.
        index : pandas.Index
            The rows' index.
        """
        names = [c for c in self.column_names if c != _INTERCEPT]
        index = None
        if isinstance(data, pd.DataFrame):
            absent = [c for c in names if c not in data.columns]
            if absent:
                raise DataError(f"`newdata` lacks the model's column(s) "
                                f"{', '.join(map(repr, absent[:5]))}.")
            index = data.index
            data = data[names].to_numpy(dtype=float)
        elif not is_sparse(data):
            try:
                data = np.asarray(data, dtype=float)
            except (TypeError, ValueError):
                raise DataError(f"`newdata` must be a matrix of the model's {len(names)} "
                                f"columns or a DataFrame; got {describe(data)}.") from None
        if data.ndim != 2 or data.shape[1] != len(names):
            raise DataError(f"`newdata` must have the model's {len(names)} columns; got shape "
                            f"{data.shape}.")
        values = data.data if is_sparse(data) else data
        if not np.all(np.isfinite(values)):
            raise DataError("`newdata` has missing or non-finite values; a matrix design has "
                            "no rows to drop by name: impute them first.")
        X = _with_intercept(data)
        return X, pd.RangeIndex(X.shape[0]) if index is None else index

    def build_with_response(self, data, *, missing: str = "raise"):
        """Refused: a matrix design holds no response column; score new rows with the
        scikit-learn estimator (``score``, :mod:`sklearn.metrics`).

        Parameters
        ----------
        data : object
            Unused.
        missing : str, default "raise"
            Unused.
        """
        raise DataError("this model was fitted from a matrix (fmstats.sklearn), which has no "
                        "response column for new data: score new rows with the estimator "
                        "(estimator.score, sklearn.metrics) or refit from a formula.")

    def term_slices(self):
        """One term per column (the intercept first).

        Returns
        -------
        list of tuple
            ``(column name, slice of one column)`` pairs.
        """
        return [(n, slice(j, j + 1)) for j, n in enumerate(self.column_names)]

    def data_dependent(self):
        """None: a matrix design does not depend on the rows it is built from."""
        return None


def matrix_model_frame(data: MatrixData, formula: str) -> ModelFrame:
    """The model frame of a :class:`MatrixData`: the intercept and X (sparse stays sparse).

    Parameters
    ----------
    data : MatrixData
        The design and labels.
    formula : str
        The formula recorded with the fit (a description: ``"y ~ ."``).

    Returns
    -------
    ModelFrame
        Every row used, the response 0/1 labels named ``y``.
    """
    n = len(data)
    names = (_INTERCEPT,) + data.names
    spec = MatrixSpec(engine="matrix", rhs=".", column_names=names, variables=data.names,
                      lhs="y")
    response = Response(name="y", kind="binary", y=data.y)
    return ModelFrame(formula=formula, response=response, X=_with_intercept(data.X),
                      column_names=names, spec=spec, index=pd.RangeIndex(n),
                      rows=np.arange(n), n_input=n, n_dropped=0)
