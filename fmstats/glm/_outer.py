"""The outer loop of the F-measure maximiser: Algorithms 4.1 and 7.1 of the thesis on a row source.

Pure: a row source (:mod:`fmstats.glm._rowsource`), a start and the settings in, the
returned iterate, its F-weights and the learning curve out.  The formulas of the weights are
in :mod:`fmstats.glm._fweights`; the model around it is :func:`fmstats.fmaxent`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Outer", "outer_loop"]


@dataclass(frozen=True)
class Outer:
    """The outer loop's result: the best iterate, its F-weights, the learning curve, the
    coefficient path, the best iteration and why the loop stopped.

    Parameters
    ----------
    coef : ndarray of shape (p,)
        The best iterate.
    fweights : ndarray
        Its F-weights.
    history : pandas.DataFrame
        The learning curve, one row per outer iteration.
    coef_path : ndarray of shape (K + 1, p)
        The iterates theta_0 ... theta_K.
    best_iteration : int
        The index of the best iterate.
    converged : bool
        Whether the loop stopped by its rule (not at ``max_outer``).
    reason : str
        Why the loop stopped.
    """

    coef: np.ndarray
    fweights: np.ndarray
    history: pd.DataFrame
    coef_path: np.ndarray
    best_iteration: int
    converged: bool
    reason: str


def outer_loop(data, start, *, alpha, method, epsilon, bounds, inner, max_outer, patience,
               min_improvement, rel_improvement, select, penalty, tol, max_iter) -> Outer:
    """Algorithms 4.1 / 7.1 on ``data``, a row source (:mod:`fmstats.glm._rowsource`).

    Starts from ``start`` (the unweighted fit), alternates F-weights from the current
    probabilities with a warm-started weighted refit (``inner="full"``) or one IRLS step
    (``"step"``), stops by the ``patience`` rule of :func:`fmstats.fmaxent` and returns the
    best iterate.  Used by :func:`fmstats.fmaxent` and by the bootstrap's replicate refits.

    Parameters
    ----------
    data : ArraySource, BlockSource or DaskSource
        The row source.
    start : ndarray of shape (p,)
        The unweighted fit's coefficients.
    alpha, method, epsilon, bounds, inner, max_outer, patience, min_improvement, \
rel_improvement, select
        The outer loop's settings, as :func:`fmstats.fmaxent` takes them.
    penalty : float or ndarray of shape (p,)
        The ridge penalty of the weighted fits.
    tol : float
        The tolerance of each weighted fit.
    max_iter : int
        The most Newton steps of each weighted fit.

    Returns
    -------
    Outer
        The best iterate, its F-weights, the learning curve and the path.
    """
    coef = start
    rows = []
    best = None  # (criterion, iteration, coef, weights): the best iterate, strictly
    best_curve = []  # the best criterion so far, per iteration
    converged, reason = False, ""
    fw_prev = data.unit_weights()
    w_range = (1.0, 1.0)
    path = []
    for it in range(max_outer + 1):
        m = data.iterate(coef, alpha, epsilon)
        target = {"expected": m.expected, "noisy": m.noisy, "plugin": m.f_det}[method]
        crit = target if select == "target" else m.f_det
        path.append(coef)
        rows.append({"iteration": it, "target": target, "training_f": m.f_det,
                     "noisy_f": m.noisy, "loglik": m.loglik, "weight_min": w_range[0],
                     "weight_max": w_range[1]})
        if best is None or crit > best[0]:
            best = (crit, it, coef, fw_prev)
        best_curve.append(best[0])
        if it >= patience:
            window = best_curve[-1] - best_curve[-1 - patience]
            needed = max(min_improvement, rel_improvement * (best_curve[-1] - best_curve[0]))
            if window <= needed:
                converged = True
                reason = (f"the last {patience} iterations improved the target by {window:.3g} "
                          f"<= {needed:.3g}")
                break
        if it == max_outer:
            reason = f"reached max_outer = {max_outer} while still improving"
            break
        # weights from the current probabilities
        tp = None
        if method == "expected":
            f = target
        elif method == "noisy":
            if epsilon is not None:
                tp, _, f = data.smoothed_counts(m, alpha, epsilon)
            else:
                tp, f = m.tp_noisy, m.noisy
        else:
            tp, f = m.tp_det, m.f_det
            if tp <= 0:
                reason = (f"the plug-in F is 0 at iteration {it} (no predicted positives), "
                          "so the plug-in weights are undefined; try method='noisy' or a "
                          "lower threshold")
                break
        fw = data.fweights(m, method, f, tp, alpha, epsilon, bounds)
        coef = data.refit(fw, coef, penalty=penalty, tol=tol,
                          max_iter=1 if inner == "step" else max_iter)
        fw_prev = fw
        w_range = data.weight_range(fw)
    history = pd.DataFrame(rows)
    return Outer(coef=best[2], fweights=best[3], history=history, coef_path=np.array(path),
                  best_iteration=best[1], converged=converged, reason=reason)
