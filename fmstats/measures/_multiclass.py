"""The multiclass micro-F with a default class (seed 001)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._utils.validation import (
    check_choice,
    check_nonempty,
    check_weights,
    describe,
)
from ..exceptions import InvalidArgumentError, ResponseError
from ._fmeasure import WRONG_CLASS, FMeasure, as_fmeasure, check_zero_division, ratio


# ---------------------------------------------------------------------------
# Multiclass micro-F with a default class
# ---------------------------------------------------------------------------
def _class_vector(name: str, value: Any, n: int | None = None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InvalidArgumentError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    if n is not None and arr.shape[0] != n:
        raise InvalidArgumentError(
            f"`{name}` must have length {n} (one value per row); got length {arr.shape[0]}.")
    missing = np.asarray(pd.isna(arr), dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ResponseError(
            f"`{name}` must not contain missing values; got {int(missing.sum())}, "
            f"the first at position {i} ({arr[i]!r})."
        )
    return arr


def multiclass_micro_f(y_true: Any, y_pred: Any, default_class: Any, *,
                       beta: float | None = None, alpha: float | None = None,
                       measure: FMeasure | None = None, sample_weight: Any = None,
                       zero_division: float = 1.0, wrong_class: str = "fn_fp") -> float:
    """Multiclass micro-F with a "default" (uninteresting) class (seed 001, section 3.2.3).

    With ``d`` the default class and weights ``w``:

    * TP = sum w [y = yhat != d]  (correct predictions of non-default classes),
    * FN = sum w [y != d, yhat != y]  (non-default truths predicted wrongly),
    * FP, by ``wrong_class``:

      - ``"fn_fp"`` (default): sum w [yhat != d, yhat != y], every wrong
        prediction of a non-default class; a confusion between two non-default
        classes counts as one FN and one FP.  This is scikit-learn's
        ``fbeta_score(average="micro", labels=<non-default classes>)``.
      - ``"fn"``: sum w [y = d, yhat != d]; a confusion between two
        non-default classes counts as an FN only.  This is seed 001's
        definition (mcF_beta, Parambath et al.).

    F = TP / (TP + alpha FP + (1 - alpha) FN), ``zero_division`` when the
    denominator is 0.  ``default_class`` must occur in ``y_true`` or ``y_pred``
    (a guard against a mistyped class).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        True classes ``y``, without missing values.
    y_pred : array-like of shape (n,)
        Predicted classes ``yhat``, without missing values.
    default_class : object
        The default class ``d``; must occur in ``y_true`` or ``y_pred``.
    beta, alpha : float, optional
        The F-measure by its parameter; see :class:`FMeasure`.
    measure : FMeasure, optional
        The F-measure; give at most one of ``beta``, ``alpha`` and ``measure``
        (default F1).
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).
    zero_division : float, default 1.0
        F when the denominator is 0.
    wrong_class : {"fn_fp", "fn"}, default "fn_fp"
        How a wrong prediction counts as an FP (see above).

    Returns
    -------
    float
        The multiclass micro-F.
    """
    m = as_fmeasure(measure, beta, alpha)
    check_choice("wrong_class", wrong_class, WRONG_CLASS)
    zd = check_zero_division(zero_division)
    yt = _class_vector("y_true", y_true)
    check_nonempty("y_true", yt.shape[0])
    yp = _class_vector("y_pred", y_pred, yt.shape[0])
    w = check_weights("sample_weight", sample_weight, yt.shape[0])
    dt = np.asarray(yt == default_class, dtype=bool)
    dp = np.asarray(yp == default_class, dtype=bool)
    if dt.shape != yt.shape or not (dt.any() or dp.any()):
        raise InvalidArgumentError(
            f"`default_class` must be one of the classes in `y_true` or `y_pred`; "
            f"got {describe(default_class)}."
        )
    wrong = ~np.asarray(yt == yp, dtype=bool)
    tp = w @ (~wrong & ~dt)
    fn = w @ (wrong & ~dt)
    fp = w @ (wrong & ~dp) if wrong_class == "fn_fp" else w @ (dt & ~dp)
    return ratio(tp, fp, fn, m.alpha, 1.0 - m.alpha, zd)
