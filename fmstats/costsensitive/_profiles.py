"""Pseudo-linear measures of an error profile (seed 001, sections 3.1-3.4, Remark 2).

An *error profile* is the vector ``e = (FN_1, FP_1, FN_2, FP_2, ..., FN_L, FP_L)`` of
false-negative and false-positive *probabilities* (proportions of the sample) per class or
label, and ``priors = (P_1, ..., P_L)`` are the positive priors.  Every measure handled here
is fractional-linear, ``F(e) = (c0 + <g, e>) / (d0 + <h, e>)`` with a positive denominator,
hence pseudo-linear: for every level ``t``

    F(e) >= t   <=>   <a(t), e> + b(t) <= 0,

where ``a(t) = t h - g`` and ``b(t) = t d0 - c0`` (multiply ``F(e) >= t`` by the positive
denominator).  Rescaling ``(a, b)`` by a positive constant keeps the equivalence; the
scalings below are the paper's (Propositions 4, 6, 7, Remark 2):

============================  =====================================  ============================
measure                       a(t)                                   b(t)
============================  =====================================  ============================
``"f"`` (binary F_beta)       (1+b2-t, t) on (FN_1, FP_1), 0 else    (1+b2)(t-1) P_1
``"micro_f"`` (multilabel)    1+b2-t on every FN_k, t on every FP_k  (1+b2)(t-1) sum_k P_k
``"multiclass_f"``            t on FN_1 (default class 1),           (1+b2)(t-1)(1-P_1)
                              1+b2-t on FN_k (k >= 2), 0 on FP_k
``"jaccard"`` (binary)        (1, t) on (FN_1, FP_1)                 (t-1) P_1
``"micro_jaccard"``           1 on every FN_k, t on every FP_k       (t-1) sum_k P_k
``"multiclass_jaccard"``      t on FN_1, 1 on FN_k (k >= 2)          (t-1)(1-P_1)
============================  =====================================  ============================

(b2 = beta^2.)  The discretisation factor Phi of Proposition 3 (``F(e') - F(e) <= Phi
<a(F(e')), e - e'>`` whenever ``F(e') > F(e)``) is the inverse of the minimum of the
denominator over the feasible profiles: ``1/(b2 P_1)``, ``1/(b2 sum P_k)``,
``1/(b2 (1-P_1))`` for the F-measures, ``1/P_1``, ``1/sum P_k``, ``1/(1-P_1)`` for the
Jaccard indices.

Note: the paper's Algorithm 3 lists the costs of Proposition 6 with the odd/even entries
swapped and Algorithm 4 prints ``1 + beta^2 * t``; both are typos (the derivations in
Appendix A give the table above, which is what is implemented and property-tested).

Macro-F (the mean of per-label F) and the instance-wise F are *not* pseudo-linear functions
of the profile (section 3.2.2, Remark 1); macro-F is optimised label by label.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._utils.validation import check_choice, check_scalar, describe
from ..exceptions import InvalidArgumentError

__all__ = ["PROFILE_MEASURES", "profile_value", "cost_vector", "cost_offset",
           "discretisation_factor"]

#: Measures of an error profile implemented here (all pseudo-linear).
PROFILE_MEASURES = ("f", "micro_f", "multiclass_f", "jaccard", "micro_jaccard",
                    "multiclass_jaccard")


def _check_measure(measure: str) -> str:
    if measure in ("macro_f", "instance_f"):
        raise InvalidArgumentError(
            f"`measure` {measure!r} is not a pseudo-linear function of the error profile "
            "(seed 001, section 3.2.2 and Remark 1); macro-F is optimised label by label "
            "with measure='f'."
        )
    return check_choice("measure", measure, PROFILE_MEASURES)


def _check_beta(beta: Any) -> float:
    b = float(check_scalar("beta", beta, low=0, low_open=True))
    if not math.isfinite(b):
        raise InvalidArgumentError(f"`beta` must be finite; got {describe(beta)}.")
    return b


def _priors(priors: Any, measure: str) -> np.ndarray:
    p = np.atleast_1d(np.asarray(priors, dtype=float))
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise InvalidArgumentError(
            "`priors` must be a non-empty vector of probabilities in [0, 1]; got "
            f"{describe(priors)}."
        )
    if measure.startswith("multiclass") and p.size < 2:
        raise InvalidArgumentError(
            f"`priors` of a multiclass measure needs one prior per class (>= 2, the default "
            f"class first); got {describe(priors)}."
        )
    return p


def _parts(measure: str, priors: np.ndarray, beta: float):
    """(c0, g, d0, h): F(e) = (c0 + <g, e>) / (d0 + <h, e>) on profiles of length 2L."""
    L = priors.size
    g = np.zeros(2 * L)
    h = np.zeros(2 * L)
    b2 = beta * beta
    jac = measure.endswith("jaccard")
    k = 1.0 if jac else 1.0 + b2          # numerator weight on "positives found"
    if measure in ("f", "jaccard"):
        pos, fn_idx, fp_idx = priors[0], [0], [1]
    elif measure in ("micro_f", "micro_jaccard"):
        pos, fn_idx, fp_idx = priors.sum(), list(range(0, 2 * L, 2)), list(range(1, 2 * L, 2))
    else:  # multiclass, class 1 (index 0) is the default class; its FN is the measure's FP
        pos, fn_idx, fp_idx = 1.0 - priors[0], list(range(2, 2 * L, 2)), [0]
    c0 = k * pos
    g[fn_idx] = -k
    d0 = k * pos
    h[fn_idx] = 0.0 if jac else -1.0
    h[fp_idx] = 1.0
    return c0, g, d0, h, pos


def _profile(e: Any, L: int) -> np.ndarray:
    e = np.asarray(e, dtype=float)
    if e.shape[-1] != 2 * L:
        raise InvalidArgumentError(
            f"`e` must have 2L = {2 * L} entries (FN_1, FP_1, ..., FN_L, FP_L) for {L} "
            f"prior(s); got shape {e.shape}."
        )
    return e


def profile_value(measure: str, e: Any, priors: Any, *, beta: float = 1.0) -> np.ndarray | float:
    """F(e) for an error profile ``e = (FN_1, FP_1, ..., FN_L, FP_L)`` (probabilities).

    ``e`` may be a matrix of profiles (one per row).  ``priors`` are P_1..P_L (for the
    binary measures only P_1 is used; give ``[P_1]`` or ``[P_1, 1-P_1]`` with a 4-entry
    profile).  For the multiclass measures class 1 (entry 0) is the default class.

    Parameters
    ----------
    measure : str
        One of :data:`PROFILE_MEASURES`: ``"f"``, ``"micro_f"``, ``"multiclass_f"``,
        ``"jaccard"``, ``"micro_jaccard"``, ``"multiclass_jaccard"``.
    e : array-like
        The error profile(s) (FN_1, FP_1, ..., FN_L, FP_L), 2L entries (a row each).
    priors : array-like
        The positive priors P_1..P_L (for the binary measures only P_1 is used); for the
        multiclass measures one per class, the default class first.
    beta : float, default 1.0
        The F-measure's beta (> 0, finite; ignored by the Jaccard indices).

    Returns
    -------
    float or numpy.ndarray
        F(e), one value per profile.
    """
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    p = _priors(priors, measure)
    e = _profile(e, p.size)
    c0, g, d0, h, _ = _parts(measure, p, beta)
    out = (c0 + e @ g) / (d0 + e @ h)
    return float(out) if np.ndim(out) == 0 else out


def cost_vector(measure: str, t: float, priors: Any, *, beta: float = 1.0) -> np.ndarray:
    """The cost vector a(t) of Propositions 4, 6, 7 and Remark 2 (see the module table).

    Parameters
    ----------
    measure : str
        One of :data:`PROFILE_MEASURES`: ``"f"``, ``"micro_f"``, ``"multiclass_f"``,
        ``"jaccard"``, ``"micro_jaccard"``, ``"multiclass_jaccard"``.
    t : float
        The level t.
    priors : array-like
        The positive priors P_1..P_L (for the binary measures only P_1 is used); for the
        multiclass measures one per class, the default class first.
    beta : float, default 1.0
        The F-measure's beta (> 0, finite; ignored by the Jaccard indices).

    Returns
    -------
    numpy.ndarray
        The costs a(t), one per entry (FN_1, FP_1, ..., FN_L, FP_L) of the profile.

    Examples
    --------
    >>> from fmstats.costsensitive import cost_vector
    >>> cost_vector("f", 0.5, [0.3])
    array([1.5, 0.5])
    >>> cost_vector("f", 0.5, [0.3], beta=2)
    array([4.5, 0.5])
    """
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    t = float(check_scalar("t", t))
    p = _priors(priors, measure)
    _, g, _, h, _ = _parts(measure, p, beta)
    return t * h - g


def cost_offset(measure: str, t: float, priors: Any, *, beta: float = 1.0) -> float:
    """b(t) = t d0 - c0, so that F(e) >= t  <=>  <a(t), e> + b(t) <= 0.

    Parameters
    ----------
    measure : str
        One of :data:`PROFILE_MEASURES`: ``"f"``, ``"micro_f"``, ``"multiclass_f"``,
        ``"jaccard"``, ``"micro_jaccard"``, ``"multiclass_jaccard"``.
    t : float
        The level t.
    priors : array-like
        The positive priors P_1..P_L (for the binary measures only P_1 is used); for the
        multiclass measures one per class, the default class first.
    beta : float, default 1.0
        The F-measure's beta (> 0, finite; ignored by the Jaccard indices).

    Returns
    -------
    float
        The offset b(t).
    """
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    t = float(check_scalar("t", t))
    p = _priors(priors, measure)
    c0, _, d0, _, _ = _parts(measure, p, beta)
    return float(t * d0 - c0)


def discretisation_factor(measure: str, priors: Any, *, beta: float = 1.0) -> float:
    """Phi of Proposition 3: the inverse of the smallest denominator over feasible profiles.

    Propositions 4, 6, 7; for the Jaccard indices by the same argument.

    Parameters
    ----------
    measure : str
        One of :data:`PROFILE_MEASURES`: ``"f"``, ``"micro_f"``, ``"multiclass_f"``,
        ``"jaccard"``, ``"micro_jaccard"``, ``"multiclass_jaccard"``.
    priors : array-like
        The positive priors P_1..P_L (for the binary measures only P_1 is used); for the
        multiclass measures one per class, the default class first.
    beta : float, default 1.0
        The F-measure's beta (> 0, finite; ignored by the Jaccard indices).

    Returns
    -------
    float
        Phi.
    """
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    p = _priors(priors, measure)
    *_, pos = _parts(measure, p, beta)
    scale = 1.0 if measure.endswith("jaccard") else beta * beta
    if pos <= 0:
        raise InvalidArgumentError(
            f"`priors` give no positive mass for {measure!r}; Phi is infinite.")
    return 1.0 / (scale * pos)
