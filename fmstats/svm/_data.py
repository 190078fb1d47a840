"""The data of an SVM fit: the checked model frame, design without intercept, labels, weights.

Shared by ``_wsvm.py``, ``_fsvm.py`` and ``_tuning.py``
(which builds a fold's arrays once for many grid points).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._utils.validation import prior_weights
from ..exceptions import InvalidArgumentError, ResponseError
from ..formula import (KeptRows, MatrixData, is_sparse, kept_model_frame, matrix_model_frame,
                       model_frame, refuse_offsets)

__all__ = ["SvmData", "svm_data", "INTERCEPT_NAMES"]

#: Names of the intercept column of a design.
INTERCEPT_NAMES = ("Intercept", "(Intercept)")


@dataclass(frozen=True)
class SvmData:
    """A validated model frame: design without the intercept column, labels, weights."""

    frame: Any
    X: np.ndarray             # (m, n) without intercept
    y: np.ndarray             # 0/1
    ypm: np.ndarray           # -1/+1
    weights: np.ndarray       # prior weights of the used rows
    term_names: tuple         # all design columns, intercept included
    intercept_pos: int

    @property
    def m_pos(self) -> float:
        return float(self.weights[self.y == 1].sum())

    @property
    def m_neg(self) -> float:
        return float(self.weights[self.y == 0].sum())


def _kept_frame(rows: KeptRows):
    """The model frame of rows an SVM fit kept: its design with the intercept column back."""
    fit = rows.results
    X = np.insert(np.asarray(fit.X, dtype=float), fit.intercept_pos, 1.0, axis=1)
    return kept_model_frame(rows, X, kind="binary")


def svm_data(formula, data, weights, missing, engine, model: str = "wsvm") -> SvmData:
    """The checked model frame of an SVM (``model``, as messages name it): a binary response,
    an intercept, two rows a class, no offset (the SVMs have none).
    ``data`` may be :class:`~fmstats.formula.KeptRows` of an SVM fit (a refit without the
    DataFrame) or a :class:`~fmstats.formula.MatrixData` (a sparse one is densified: the
    QP and NLopt cores work on dense arrays)."""
    if isinstance(data, KeptRows):
        frame = _kept_frame(data)
        if weights is None or isinstance(weights, str):
            weights = np.asarray(data.results.prior_weights, dtype=float)[data.positions]
        data = frame.X
    elif isinstance(data, MatrixData):     # fmstats.sklearn: the SVM cores are dense
        frame = matrix_model_frame(data, formula)
        if is_sparse(frame.X):
            from dataclasses import replace

            frame = replace(frame, X=frame.X.toarray())
    else:
        frame = model_frame(formula, data, missing=missing, engine=engine)
        refuse_offsets(frame, model)
    resp = frame.response
    if resp.kind != "binary":
        raise ResponseError(
            f"the response '{resp.name}' must be two-valued (0/1, boolean or a two-level "
            f"factor) for an SVM; got {resp.kind} values. Threshold probabilities first.")
    names = tuple(frame.column_names)
    pos = [i for i, nm in enumerate(names) if nm in INTERCEPT_NAMES]
    if not pos:
        raise InvalidArgumentError(
            f"the formula {formula!r} has no intercept, but the SVM always fits an unpenalised "
            "offset b; remove '- 1' / '0 +' from the formula.")
    if len(names) == 1:
        raise InvalidArgumentError(
            f"`formula` {formula!r} has no predictors: an SVM needs at least one column "
            "besides the intercept (e.g. 'y ~ x1 + x2').")
    w = prior_weights(weights, data, frame.rows)
    y = resp.y.astype(float)
    for label, cls in (("positive", 1.0), ("negative", 0.0)):
        # two rows, where a row of weight w >= 2 counts as w rows: frequency weights are
        # repeated rows (one row of weight 2 is accepted as its two copies are)
        k = int(np.count_nonzero((y == cls) & (w > 0)))
        if k < 2 and not (k == 1 and float(w[y == cls].sum()) >= 2):
            raise ResponseError(
                f"the {label} class of '{resp.name}' has {k} row(s) with positive weight; an "
                "SVM needs at least 2 rows in each class (a row of weight w >= 2 counts as w "
                "rows).")
    X = np.ascontiguousarray(np.delete(frame.X, pos[0], axis=1))
    return SvmData(frame=frame, X=X, y=y, ypm=np.where(y == 1, 1.0, -1.0), weights=w,
                   term_names=names, intercept_pos=pos[0])
