"""Plug-in multiclass decisions from class probabilities, pure (ndarrays in and out).

With P the (n, K) class probabilities, truth codes y and weights w:

* **micro-F with a default class d** (seed 001): F_alpha = TP / (TP + alpha FP + (1 - alpha)
  FN), TP the correct non-default predictions, FN the non-default truths predicted wrongly,
  FP by ``wrong_class`` (``"fn"``, seed 001's: default truths predicted non-default;
  ``"fn_fp"``: every wrong non-default prediction).  F is linear-fractional in the counts,
  so the optimal rule maximises TP - t (TP + alpha FP + (1 - alpha) FN) row by row for
  t = F* (Parambath et al.).  Its gain is largest for the most probable non-default class
  k, and predicting k beats predicting d exactly when
  r = p_k / (p_k + E[FP | k]) >= alpha t, with E[FP | k] = p_d (``"fn"``) or 1 - p_k
  (``"fn_fp"``): a threshold on one score per row.  The threshold is found by the exact
  search of :func:`fmstats.tune_threshold` (every cut of the pooled held-out scores).
* **macro-F**: the mean over classes of F_k = TP_k / (alpha Q_k + (1 - alpha) pi_k)
  (Q_k the predicted and pi_k the true weight of class k).  Frank-Wolfe (Narasimhan et al.,
  ICML 2015): linearise at the current confusion, whose gradient gives the cost-sensitive
  rule argmax_k (p_k - alpha F_k) / den_k, take its confusion, step 2 / (t + 2).  The
  iterates are rules of that form; the one with the best macro-F on the rows is kept (a
  deterministic rule rather than the randomised mixture).
* **cost matrix** C[true, predicted]: argmin_j sum_i p_i C[i, j] (the Bayes rule).
"""
from __future__ import annotations

import numpy as np
from .._utils.boundary import public

__all__ = ["micro_scores", "micro_curve", "macro_counts", "macro_f", "frank_wolfe",
           "weighted_argmax", "cost_decision"]


@public
def micro_scores(P: np.ndarray, d: int, wrong_class: str = "fn") -> tuple[np.ndarray, np.ndarray]:
    """(most probable non-default class, score r) of each row (see the module notes).

    Parameters
    ----------
    P : ndarray of shape (n, K)
        Class probabilities.
    d : int
        The code of the default class.
    wrong_class : {"fn", "fn_fp"}, default "fn"
        How a confusion between non-default classes counts (the FP term of r).

    Returns
    -------
    tuple of numpy.ndarray
        ``(class, score)`` per row.
    """
    Q = P.copy()
    Q[:, d] = -np.inf
    k = np.argmax(Q, axis=1)
    pk = P[np.arange(len(P)), k]
    fp = P[:, d] if wrong_class == "fn" else 1.0 - pk
    den = pk + fp
    r = np.divide(pk, den, out=np.zeros_like(pk), where=den > 0)
    return k, r


@public
def micro_curve(r, k, y, w, d: int, wrong_class: str, alpha: float):
    """(cuts, F at every cut): rows with r >= cut predict k, the others d; cut +inf first.

    Parameters
    ----------
    r, k : ndarray
        The scores and most probable non-default classes of :func:`micro_scores`.
    y, w : ndarray
        True class codes and row weights.
    d : int
        The code of the default class.
    wrong_class : {"fn", "fn_fp"}
        How a confusion between non-default classes counts.
    alpha : float
        The F-measure's weight on precision.

    Returns
    -------
    tuple of numpy.ndarray
        ``(cuts, F)``.
    """
    order = np.argsort(-r, kind="stable")
    rs, ko, yo, wo = r[order], k[order], y[order], w[order]
    tp_i = wo * (yo == ko)
    fn_d = wo * (yo != d)                         # FN when predicted default
    fn_k = wo * ((yo != d) & (yo != ko))          # FN when predicted k
    fp_i = wo * ((yo == d) if wrong_class == "fn" else (yo != ko))
    last = np.r_[rs[1:] != rs[:-1], True]
    tp = np.r_[0.0, np.cumsum(tp_i)[last]]
    fp = np.r_[0.0, np.cumsum(fp_i)[last]]
    fn = fn_d.sum() - np.r_[0.0, np.cumsum(fn_d - fn_k)[last]]
    den = tp + alpha * fp + (1 - alpha) * fn
    f = np.divide(tp, den, out=np.ones_like(tp), where=den > 0)
    return np.r_[np.inf, rs[last]], f


def macro_counts(pred: np.ndarray, y: np.ndarray, w: np.ndarray, K: int):
    """(TP_k, Q_k, pi_k): correct, predicted and true weight of each class."""
    tp = np.bincount(pred[pred == y], weights=w[pred == y], minlength=K)
    return tp, np.bincount(pred, weights=w, minlength=K), np.bincount(y, weights=w, minlength=K)


@public
def macro_f(pred, y, w, K: int, alpha: float = 0.5) -> float:
    """The macro-averaged F_alpha of predicted codes ``pred`` (a class with no truth and no
    prediction counts 1, scikit-learn's ``zero_division=1``).

    Parameters
    ----------
    pred, y : ndarray of int
        Predicted and true class codes, 0..K-1.
    w : ndarray
        Row weights.
    K : int
        The number of classes.
    alpha : float, default 0.5
        The F-measure's weight on precision.

    Returns
    -------
    float
        The macro-averaged F.
    """
    tp, q, pi = macro_counts(pred, y, w, K)
    den = alpha * q + (1 - alpha) * pi
    return float(np.mean(np.divide(tp, den, out=np.ones_like(tp), where=den > 0)))


def weighted_argmax(P: np.ndarray, scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """argmax_k (p_k - shift_k) / scale_k, row by row."""
    return np.argmax((P - shift) / scale, axis=1)


@public
def frank_wolfe(P, y, w, alpha: float = 0.5, iterations: int = 50):
    """Frank-Wolfe for macro-F on the rows (P, y, w): the best iterate's (scale, shift).

    Parameters
    ----------
    P : ndarray of shape (n, K)
        Class probabilities.
    y, w : ndarray
        True class codes and row weights.
    alpha : float, default 0.5
        The F-measure's weight on precision.
    iterations : int, default 50
        Frank-Wolfe steps.

    Returns
    -------
    (scale, shift, f, history)
        The rule ``weighted_argmax(P, scale, shift)``, its macro-F and the macro-F of every
        iterate.
    """
    n, K = P.shape
    W = w.sum()
    pred = np.argmax(P, axis=1)
    tp, q, pi = (v / W for v in macro_counts(pred, y, w, K))
    best = (np.ones(K), np.zeros(K), macro_f(pred, y, w, K, alpha))
    hist = [best[2]]
    for it in range(iterations):
        den = np.maximum(alpha * q + (1 - alpha) * pi, 1e-12)
        fk = tp / den
        scale, shift = den, alpha * fk
        h = weighted_argmax(P, scale, shift)
        f = macro_f(h, y, w, K, alpha)
        hist.append(f)
        if f > best[2]:
            best = (scale, shift, f)
        g = 2.0 / (it + 3.0)
        tp_h, q_h, _ = (v / W for v in macro_counts(h, y, w, K))
        tp, q = (1 - g) * tp + g * tp_h, (1 - g) * q + g * q_h
    return best[0], best[1], best[2], np.asarray(hist)


def cost_decision(P: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """argmin_j sum_i p_i cost[i, j]: the class of least expected cost.

    Parameters
    ----------
    P : ndarray of shape (n, K)
        Class probabilities.
    cost : ndarray of shape (K, K)
        The cost of predicting column j when the truth is row i.

    Returns
    -------
    numpy.ndarray
        The class code of each row.
    """
    return np.argmin(P @ cost, axis=1)
