"""Refits without the DataFrame: rows of what a fitted model kept of its training data.

A results object that keeps its design, response and weights (maxent-family fits made in
memory with ``keep_data=True``, the SVMs) can be refitted on rows of them:
``fit.refit(KeptRows(fit, positions))`` reruns its recorded call, and the model function
builds the model frame of those rows with :func:`kept_model_frame` (the same design columns,
encoding and response) instead of from a formula and a DataFrame.  :func:`fmstats.bootstrap`
refits that way when it is not given ``data=``.  Used by
:mod:`fmstats.maxent_models._prepare` and :mod:`fmstats.svm._data`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._frame import ModelFrame
from ._response import Response

__all__ = ["KeptRows", "kept_model_frame"]


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
    """

    def __init__(self, results: Any, positions, y: np.ndarray | None = None):
        self.results = results
        self.positions = np.asarray(positions, dtype=np.int64)
        self.y = None if y is None else np.asarray(y, dtype=float)

    def __len__(self) -> int:
        return int(self.positions.size)

    def __repr__(self) -> str:
        return f"<{len(self)} kept rows of a {type(self.results).__name__}>"


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

    rows_X = X.tocsr()[pos] if sp.issparse(X) else np.ascontiguousarray(np.take(X, pos, axis=0))
    return ModelFrame(formula=fit.formula, response=response, X=rows_X,
                      column_names=tuple(fit.term_names), spec=fit.spec,
                      index=pd.RangeIndex(n), rows=np.arange(n), n_input=n, n_dropped=0,
                      offset=None if offset is None else np.asarray(offset)[pos])
