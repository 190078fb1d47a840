"""Refits without the DataFrame: rows of what a fitted model kept of its training data.

A results object that keeps its design, response and weights (maxent-family fits made in
memory with ``keep_data=True``, the SVMs) can be refitted on rows of them:
``fit.refit(KeptRows(fit, positions))`` reruns its recorded call, and the model function
builds the model frame of those rows with :func:`kept_model_frame` (the same design columns,
encoding and response) instead of from a formula and a DataFrame; ``fit.predict(KeptRows(...))``
scores rows of a fit's design with another fit of the same formula (a refit's held-out rows).
:class:`KeptDesign` hands them out as :class:`~fmstats.formula.DesignMatrix` hands out rows of
a DataFrame.  The functions that refit a model (``bootstrap``, ``validate``, ``tune_threshold``,
``calibrate``, ``step``) refit that way when they are not given ``data=``
(:func:`fmstats.model_selection.training_rows`: the rule).  Used by
``fmstats/maxent_models/_prepare.py``, ``fmstats/maxent_models/_training.py`` and
:mod:`fmstats.svm`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._modelframe import ModelFrame
from ._response import Response

__all__ = ["KeptRows", "KeptDesign", "kept_model_frame", "take_rows"]


class KeptRows:
    """Rows of the training data a fitted model kept, as the data argument of a refit.

    Parameters
    ----------
    results : ModelResults
        The fitted model whose kept rows are meant.
    positions : array-like of int
        Positions (0-based) of the rows among its training rows (repeats allowed).
    y : ndarray, optional
        A response for those rows, as proportions in [0, 1] (default: the kept one; the
        bootstrap's labels drawn from q replace it).
    columns : array-like of int, optional
        Positions of the design columns kept, with ``spec`` and ``formula`` the smaller
        model's encoding and formula (``step`` dropping terms; default every column).
    spec : DesignSpec, optional
        The encoding of ``columns`` (:meth:`~fmstats.formula.DesignSpec.subset`).
    formula : str, optional
        The smaller model's formula.
    labels : pandas.Index, optional
        Row labels of the refit's model frame (default 0..k-1); ``step`` gives the fit's, for
        all its rows in order, and the refit keeps the fit's ``na_action="exclude"`` padding.
    """

    def __init__(self, results: Any, positions, y: np.ndarray | None = None, *,
                 columns=None, spec=None, formula: str | None = None, labels=None):
        self.results = results
        self.positions = np.asarray(positions, dtype=np.int64)
        self.y = None if y is None else np.asarray(y, dtype=float)
        self.columns = None if columns is None else np.asarray(columns, dtype=np.int64)
        self.spec, self.formula, self.labels = spec, formula, labels

    def __len__(self) -> int:
        return int(self.positions.size)

    def __repr__(self) -> str:
        return f"<{len(self)} kept rows of a {type(self.results).__name__}>"

    @property
    def index(self) -> pd.RangeIndex:
        """The rows numbered 0..k-1 (predictions on them carry this index)."""
        return pd.RangeIndex(len(self))

    def take(self, positions) -> "KeptRows":
        """The rows at ``positions`` among these rows.

        Parameters
        ----------
        positions : array-like of int
            Positions (0-based) among these rows.

        Returns
        -------
        KeptRows
            The selected rows.
        """
        positions = np.asarray(positions, dtype=np.int64)
        return KeptRows(self.results, self.positions[positions],
                        None if self.y is None else self.y[positions], columns=self.columns,
                        spec=self.spec, formula=self.formula)

    def response(self) -> np.ndarray:
        """The response of the rows, as proportions in [0, 1].

        Returns
        -------
        numpy.ndarray
            One proportion per row.
        """
        y = np.asarray(self.results.y, dtype=float)[self.positions] if self.y is None else self.y
        return np.asarray(y, dtype=float)

    def trials(self) -> np.ndarray:
        """The binomial trials of the rows (``cbind`` responses), else ones: the count
        weights of confusion counts on them.

        Returns
        -------
        numpy.ndarray
            One number of trials per row.
        """
        t = getattr(self.results, "trials", None)
        return np.ones(len(self)) if t is None else np.asarray(t, dtype=float)[self.positions]


def take_rows(data, positions, *, reset_index: bool = False):
    """The rows at ``positions`` of a training frame or of :class:`KeptRows`.

    Parameters
    ----------
    data : pandas.DataFrame or KeptRows
        The rows.
    positions : array-like of int
        Positions (0-based) among them.
    reset_index : bool, default False
        Number a DataFrame's rows 0..k-1 (kept rows are numbered so anyway).

    Returns
    -------
    pandas.DataFrame or KeptRows
        The selected rows, of the type of ``data``.
    """
    if isinstance(data, KeptRows):
        return data.take(positions)
    rows = data.iloc[positions]
    return rows.reset_index(drop=True) if reset_index else rows


class KeptDesign:
    """The rows a fitted model kept, handed out as :class:`KeptRows` for refits and
    predictions: the interface of :class:`~fmstats.formula.DesignMatrix` (``subset``,
    ``note``) for a tuning without ``data``.

    Parameters
    ----------
    results : ModelResults
        A fitted model that keeps its design (``refits_kept_rows``).
    """

    #: the design_note of results tuned on kept rows
    note = ("the rows the fit kept (no data given): fold fits and predictions take rows of its "
            "design")
    usable = True
    data = None

    def __init__(self, results: Any):
        self.results = results

    def subset(self, positions, *, reset_index: bool = False, frame=None) -> KeptRows:
        """The rows ``positions`` (0-based) of the fit's training rows.

        Parameters
        ----------
        positions : array-like of int
            The positions.
        reset_index : bool, default False
            Accepted for :class:`~fmstats.formula.DesignMatrix`'s interface (kept rows are
            numbered 0..k-1 anyway).
        frame : None
            Not supported: kept rows carry no DataFrame.

        Returns
        -------
        KeptRows
            The selected rows.
        """
        if frame is not None:
            raise TypeError("KeptDesign.subset takes no `frame`: kept rows have no DataFrame")
        return KeptRows(self.results, positions)


def kept_model_frame(rows: KeptRows, X: np.ndarray, *, trials=None, kind: str,
                     offset=None) -> ModelFrame:
    """The model frame of ``rows``: ``X`` is the design of the model's training rows (every
    column of its design, in order), ``trials`` and ``offset`` its per-row arrays (or None);
    the response comes from ``rows.y`` or the model's ``y``.

    Parameters
    ----------
    rows : KeptRows
        The rows, and the fitted model (its ``formula``, ``spec``, ``term_names``, ``y``,
        ``response_name`` and ``response_levels``).
    X : ndarray of shape (n, p)
        The model's design of its training rows (all p columns of ``term_names``).
    trials : ndarray, optional
        Binomial trials of the training rows (``cbind`` responses).
    kind : {"binary", "probability", "counts"}
        The kind of the response.
    offset : ndarray, optional
        The offset of the training rows.

    Returns
    -------
    ModelFrame
        The frame of the rows (index 0..k-1, no row dropped).
    """
    fit, pos = rows.results, rows.positions
    y = np.asarray(fit.y, dtype=float)[pos] if rows.y is None else rows.y
    n = len(pos)
    response = Response(name=fit.response_name, kind=kind, y=y,
                        trials=None if trials is None else np.asarray(trials)[pos],
                        levels=getattr(fit, "response_levels", None))
    import scipy.sparse as sp

    rows_X = X.tocsr()[pos] if sp.issparse(X) else np.take(X, pos, axis=0)
    names, spec = tuple(fit.term_names), fit.spec
    if rows.columns is not None:                 # a smaller model (step without data)
        rows_X = rows_X[:, rows.columns]
        names, spec = tuple(rows.spec.column_names), rows.spec
    rows_X = rows_X if sp.issparse(rows_X) else np.ascontiguousarray(rows_X)
    return ModelFrame(formula=rows.formula or fit.formula, response=response, X=rows_X,
                      column_names=names, spec=spec,
                      index=pd.RangeIndex(n) if rows.labels is None else rows.labels,
                      rows=np.arange(n), n_input=n, n_dropped=0,
                      # the fit's own rows in order (step): its na_action="exclude" padding
                      input_index=None if rows.labels is None else getattr(fit, "na_index", None),
                      input_rows=None if rows.labels is None else getattr(fit, "na_rows", None),
                      offset=None if offset is None else np.asarray(offset)[pos])
