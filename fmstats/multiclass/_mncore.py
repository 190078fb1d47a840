"""The numerical core of the multinomial maximum-entropy model: weighted Newton-Raphson.

Pure: ndarrays in, a frozen :class:`MultinomFit` out.  With K classes (class 0 the
reference), p design columns and prior weights w, the log-likelihood is

    l(B) = sum_i w_i [eta_{i, y_i} - log(1 + sum_{k >= 1} exp(eta_ik))],  eta_ik = x_i' b_k,

(eta_i0 = 0).  Its gradient is X' W (Y - P) column by column and its Hessian has blocks
-X' diag(w p_k (delta_kl - p_l)) X; Newton steps with step halving converge in a handful of
iterations (the likelihood is concave).  The covariance is the inverse of the negative
Hessian at the optimum (observed = expected information for the canonical link), as
``nnet::multinom(Hess = TRUE)`` and statsmodels' ``MNLogit`` give it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from .._utils.boundary import public

__all__ = ["MultinomFit", "fit_multinom", "class_probabilities", "expand_aliased"]


@dataclass(frozen=True)
class MultinomFit:
    """The solution of :func:`fit_multinom`.

    Parameters
    ----------
    coef : ndarray of shape (p, K - 1)
        The coefficients of the non-reference classes (column k - 1 is class k).
    cov : ndarray of shape (p (K - 1), p (K - 1))
        The inverse negative Hessian, coefficients ordered class by class.
    loglik : float
        The weighted log-likelihood at ``coef`` (minus the ridge term of a penalised fit).
    iterations : int
        The Newton iterations taken.
    converged : bool
        Whether the gradient criterion was met within ``max_iter``.
    aliased : ndarray of bool, optional
        The design columns dropped as collinear (coefficient 0, covariance NaN).
    """

    coef: np.ndarray
    cov: np.ndarray
    loglik: float
    iterations: int
    converged: bool
    aliased: np.ndarray | None = None


def class_probabilities(X: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """(n, K) class probabilities of the rows of ``X`` (class 0 the reference).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    coef : ndarray of shape (p, K - 1)
        The coefficients of the non-reference classes.

    Returns
    -------
    ndarray of shape (n, K)
    """
    eta = np.column_stack([np.zeros(X.shape[0]), X @ coef])
    return np.exp(eta - logsumexp(eta, axis=1, keepdims=True))


def _loglik(X, Y, w, coef, ridge=0.0) -> float:
    eta = np.column_stack([np.zeros(X.shape[0]), X @ coef])
    pen = 0.5 * float(np.sum(ridge * coef.T.ravel() ** 2))
    return float(w @ (np.sum(Y * eta, axis=1) - logsumexp(eta, axis=1))) - pen


def _hessian(X, w, P) -> np.ndarray:
    """The negative Hessian, blocks (k, l) over the non-reference classes."""
    K1, p = P.shape[1] - 1, X.shape[1]
    H = np.empty((K1 * p, K1 * p))
    for k in range(K1):                       # (K - 1)^2 blocks, each one vectorised
        for j in range(k, K1):
            d = w * P[:, k + 1] * ((k == j) - P[:, j + 1])
            block = X.T @ (X * d[:, None])
            H[k * p:(k + 1) * p, j * p:(j + 1) * p] = block
            H[j * p:(j + 1) * p, k * p:(k + 1) * p] = block.T
    return H


@public
def fit_multinom(X: np.ndarray, codes: np.ndarray, K: int, w: np.ndarray, *,
                 tol: float = 1e-10, max_iter: int = 100, penalty: float = 0.0,
                 penalised: np.ndarray | None = None) -> MultinomFit:
    """Maximise the weighted multinomial log-likelihood by Newton-Raphson.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design (full column rank).
    codes : ndarray of int, shape (n,)
        The class of each row, 0..K-1 (0 the reference).
    K : int
        The number of classes.
    w : ndarray of shape (n,)
        Non-negative prior weights.
    tol : float, default 1e-10
        Convergence when the largest Newton decrement component ``|step|`` is below ``tol``
        (relative to ``1 + |coef|``).
    max_iter : int, default 100
        The iteration cap.
    penalty : float, default 0
        Ridge penalty: maximise l(B) - penalty / 2 * sum of the squared coefficients of the
        ``penalised`` columns.
    penalised : ndarray of bool, shape (p,), optional
        The penalised design columns (default all).

    Returns
    -------
    MultinomFit
    """
    n, p = X.shape
    mask = np.ones(p) if penalised is None else np.asarray(penalised, dtype=float)
    ridge = penalty * np.tile(mask, K - 1)          # class by class, as the gradient
    Y = np.zeros((n, K))
    Y[np.arange(n), codes] = 1.0
    coef = np.zeros((p, K - 1))
    ll = _loglik(X, Y, w, coef, ridge)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        P = class_probabilities(X, coef)
        grad = (X.T @ (w[:, None] * (Y - P)))[:, 1:].T.ravel() - ridge * coef.T.ravel()
        H = _hessian(X, w, P) + np.diag(ridge)
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:         # a flat direction (separation): least squares
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        step = step.reshape(K - 1, p).T
        lam = 1.0
        for _ in range(30):                    # step halving keeps the ascent
            new = coef + lam * step
            ll_new = _loglik(X, Y, w, new, ridge)
            if ll_new >= ll - 1e-12 * (1 + abs(ll)):
                break
            lam /= 2
        coef, ll = new, ll_new
        if np.max(np.abs(lam * step) / (1 + np.abs(coef))) < tol:
            converged = True
            break
    P = class_probabilities(X, coef)
    H = _hessian(X, w, P) + np.diag(ridge)
    try:
        cov = np.linalg.inv(H)
    except np.linalg.LinAlgError:
        cov = np.full(H.shape, np.nan)
    return MultinomFit(coef=coef, cov=cov, loglik=ll, iterations=it, converged=converged)


def expand_aliased(fit: MultinomFit, aliased: np.ndarray) -> MultinomFit:
    """The fit on the non-aliased columns written over all p columns: coefficient 0 (for
    predictions; reported NA) and NaN covariance for the aliased ones.

    Parameters
    ----------
    fit : MultinomFit
        The fit on the columns where ``aliased`` is False.
    aliased : ndarray of bool, shape (p,)
        The dropped columns.

    Returns
    -------
    MultinomFit
    """
    p, K1 = len(aliased), fit.coef.shape[1]
    coef = np.zeros((p, K1))
    coef[~aliased] = fit.coef
    keep = np.tile(~aliased, K1)
    cov = np.full((p * K1, p * K1), np.nan)
    cov[np.ix_(keep, keep)] = fit.cov
    return MultinomFit(coef=coef, cov=cov, loglik=fit.loglik, iterations=fit.iterations,
                       converged=fit.converged, aliased=np.asarray(aliased, dtype=bool))
