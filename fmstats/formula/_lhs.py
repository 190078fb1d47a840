"""The response of a formula on every row of a frame, without a design matrix.

What the folds stratify on and what cross-validated counts score (:func:`fold_response`):
the left-hand side of the formula evaluated alone, NaN where it is missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._utils.validation import describe
from ..exceptions import DataError, FormulaError
from ._frame import check_frame, parse_response, split_formula
from ._kept import KeptRows
from ._missing import nonfinite_mask
from ._response import response as response_of

__all__ = ["FoldResponse", "fold_response"]


@dataclass(frozen=True)
class FoldResponse:
    """The response of a formula on every row of a frame.

    ``y`` is the proportion in [0, 1] (NaN where the response is missing), ``w``
    the count weight of the row (``yes + no`` for ``cbind``, else 1; 0 where
    missing), ``name`` the response's text.  A row contributes ``w y`` to the
    positives and ``w (1 - y)`` to the negatives of confusion counts.

    Parameters
    ----------
    name : str
        The response's text.
    y : numpy.ndarray
        The response as proportions in [0, 1] (NaN where missing).
    w : numpy.ndarray
        The rows' count weights (0 where missing).
    """

    name: str
    y: np.ndarray
    w: np.ndarray

    @property
    def observed(self) -> np.ndarray:
        """True where the response is observed (not missing)."""
        return ~np.isnan(self.y)

    @property
    def strata(self) -> np.ndarray:
        """0/1 by ``y >= 0.5``; -1 where the response is missing."""
        return np.where(self.observed, (np.nan_to_num(self.y) >= 0.5).astype(np.int64), -1)


def fold_response(formula: Any, data: Any) -> FoldResponse:
    """Evaluate only the left-hand side of ``formula`` on ``data`` (no design matrix);
    :class:`~fmstats.formula.KeptRows` give the response the fit kept.

    Parameters
    ----------
    formula : str
        The model formula (only its left-hand side is evaluated).
    data : pandas.DataFrame or KeptRows
        The rows.

    Returns
    -------
    FoldResponse
        The response on every row of ``data``.
    """
    if isinstance(data, KeptRows):
        return FoldResponse(name=data.results.response_name, y=data.response(),
                            w=data.trials())
    if not isinstance(formula, str):
        raise FormulaError(f"`formula` must be a string such as 'y ~ x1 + x2'; got "
                           f"{describe(formula)}.")
    data = check_frame(data, "data")
    lhs, _ = split_formula(formula)
    kind, cols, expr = parse_response(lhs, data)
    ok = ~nonfinite_mask(data[cols]) if cols else np.ones(len(data), dtype=bool)
    if not ok.any():
        raise DataError(f"the response '{lhs}' is missing on every row of `data`.")
    resp = response_of(kind, cols, expr, data.loc[ok], lhs)
    y = np.full(len(data), np.nan)
    w = np.zeros(len(data))
    y[ok] = resp.y
    w[ok] = 1.0 if resp.trials is None else resp.trials
    return FoldResponse(name=lhs, y=y, w=w)
