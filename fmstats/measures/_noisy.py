"""Expected confusion counts (model probabilities, seed 004 section 4.2) and the noisy
F-measure (probabilistic truth, seed 004 section 6.1)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._utils.boundary import public
from .._utils.validation import (
    check_binary,
    check_choice,
    check_probabilities,
)
from ._fmeasure import (
    DEPENDENCES,
    Confusion,
    FMeasure,
    as_fmeasure,
    confusion_from_cells,
    independent_cells,
    two_vectors,
)


def expected_confusion(y: Any, p: Any, sample_weight: Any = None) -> Confusion:
    """Expected confusion counts from model probabilities (seed 004, section 4.2).

    TP~ = sum_{y=1} w p, FN~ = sum_{y=1} w (1-p), FP~ = sum_{y=0} w p,
    TN~ = sum_{y=0} w (1-p), where ``p`` is the model probability of class 1.

    Parameters
    ----------
    y : array-like of shape (n,)
        Truth, 0/1 (or boolean).
    p : array-like of shape (n,)
        The model probability of class 1, in [0, 1].
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).

    Returns
    -------
    Confusion
        The expected counts TP~, FP~, FN~, TN~.
    """
    yt, pp, w = two_vectors("y", y, "p", p, sample_weight, check_binary, check_probabilities)
    return confusion_from_cells(*independent_cells(yt, pp), w)


def expected_f(y: Any, p: Any, *, beta: float | None = None, alpha: float | None = None,
               measure: FMeasure | None = None, sample_weight: Any = None,
               zero_division: float = 1.0) -> float:
    """The expected F-measure: F of :func:`expected_confusion` (seed 004, Def. 4.2.1).

    F~ = TP~ / (TP~ + alpha FP~ + (1 - alpha) FN~); ``zero_division`` if the
    denominator is 0.

    Parameters
    ----------
    y : array-like of shape (n,)
        Truth, 0/1 (or boolean).
    p : array-like of shape (n,)
        The model probability of class 1, in [0, 1].
    beta, alpha : float, optional
        The F-measure by its parameter; see :class:`FMeasure`.
    measure : FMeasure, optional
        The F-measure; give at most one of ``beta``, ``alpha`` and ``measure``
        (default F1).
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).
    zero_division : float, default 1.0
        F~ when the denominator is 0.

    Returns
    -------
    float
        The expected F-measure F~.
    """
    m = as_fmeasure(measure, beta, alpha)
    return expected_confusion(y, p, sample_weight).f(m, zero_division=zero_division)


def noisy_confusion(q: Any, p: Any, dependence: str = "correlated",
                    sample_weight: Any = None) -> Confusion:
    """Noisy confusion counts for a probabilistic truth (seed 004, section 6.1).

    ``q[i]`` is the probability that row i is truly positive, ``p[i]`` the
    probability that it is predicted positive.

    * ``dependence="correlated"`` (eq. 6.1, the strongest dependence):
      TP = sum w min(q, p), FN = sum w max(0, q - p), FP = sum w max(0, p - q),
      TN = sum w min(1 - q, 1 - p).  Then accuracy = 1 - weighted mean ``|q - p|``.
    * ``dependence="independent"``: TP = sum w q p, FN = sum w q (1-p),
      FP = sum w (1-q) p, TN = sum w (1-q)(1-p).

    With 0/1 ``q`` and ``p`` both equal :func:`confusion`; with 0/1 ``q`` both
    equal :func:`expected_confusion`.

    Parameters
    ----------
    q : array-like of shape (n,)
        The probability that each row is truly positive, in [0, 1].
    p : array-like of shape (n,)
        The probability that each row is predicted positive, in [0, 1].
    dependence : {"correlated", "independent"}, default "correlated"
        How truth and prediction depend on each other (see above).
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).

    Returns
    -------
    Confusion
        The noisy counts.
    """
    check_choice("dependence", dependence, DEPENDENCES)
    qq, pp, w = two_vectors("q", q, "p", p, sample_weight,
                             check_probabilities, check_probabilities)
    if dependence == "correlated":
        cells = (np.minimum(qq, pp), np.maximum(0.0, pp - qq),
                 np.maximum(0.0, qq - pp), np.minimum(1.0 - qq, 1.0 - pp))
    else:
        cells = independent_cells(qq, pp)
    return confusion_from_cells(*cells, w)


@public
def noisy_f(q: Any, p: Any, *, beta: float | None = None, alpha: float | None = None,
            measure: FMeasure | None = None, dependence: str = "correlated",
            sample_weight: Any = None, zero_division: float = 1.0) -> float:
    """The noisy F-measure (seed 004, Def. 6.1.1): F of :func:`noisy_confusion`.

    F^U = TP^U / (TP^U + alpha FP^U + (1 - alpha) FN^U); ``zero_division``
    if the denominator is 0.

    Parameters
    ----------
    q : array-like of shape (n,)
        The probability that each row is truly positive, in [0, 1].
    p : array-like of shape (n,)
        The probability that each row is predicted positive, in [0, 1].
    beta, alpha : float, optional
        The F-measure by its parameter; see :class:`FMeasure`.
    measure : FMeasure, optional
        The F-measure; give at most one of ``beta``, ``alpha`` and ``measure``
        (default F1).
    dependence : {"correlated", "independent"}, default "correlated"
        How truth and prediction depend on each other; see :func:`noisy_confusion`.
    sample_weight : array-like of shape (n,), optional
        The weights ``w`` (default 1).
    zero_division : float, default 1.0
        F^U when the denominator is 0.

    Returns
    -------
    float
        The noisy F-measure F^U.
    """
    m = as_fmeasure(measure, beta, alpha)
    return noisy_confusion(q, p, dependence, sample_weight).f(m, zero_division=zero_division)
