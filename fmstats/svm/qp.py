"""The class-weighted linear soft-margin SVM (thesis (3.1)-(3.2)) solved exactly as a QP.

The primal problem

    min_{w, b, xi}  1/2 w'w + sum_i c_i xi_i
    s.t.            y_i (x_i'w + b) >= 1 - xi_i,   xi_i >= 0,

with c_i = C_+ or C_- by class (times an optional sample weight), is solved by a
primal-dual interior-point method (Mehrotra predictor-corrector) that exploits
the structure of the linear SVM: every Newton step reduces to one
(n+1) x (n+1) positive definite system Z' D Z + diag(1, ..., 1, 0) with
Z = [X, 1] (Ferris and Munson, "Interior-point methods for massive support
vector machines", SIAM J. Optim. 2003), so an iteration costs O(m n^2) flops
in BLAS and there are no loops over rows.  The interior-point solution is then
*polished*: the free support vectors (0 < alpha_i < c_i) are identified and the
KKT system on that active set is solved directly, which gives dual coefficients
exactly at their bounds and the offset b of the thesis (ch. 2) from the free
support vectors.  Without free support vectors b is not unique; the midpoint of
its optimal interval is taken (as LIBSVM does).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

__all__ = ["WsvmFit", "wsvm_fit", "as_pm1", "class_costs"]


@dataclass(frozen=True)
class WsvmFit:
    """Solution of the weighted linear SVM QP.

    Attributes
    ----------
    w, b : the hyperplane x'w + b = 0 (b unregularised).
    dual : alpha, the multipliers of the margin constraints, 0 <= alpha_i <= c_i.
    c : the box bounds c_i (class cost times sample weight) of the rows fitted.
    xi : slacks max(0, 1 - y_i (x_i'w + b)).
    decision : x_i'w + b on the training rows.
    objective, dual_objective : primal and dual objective values at the solution.
    converged : whether the interior-point method met its tolerance.
    iterations : interior-point iterations.
    polished : whether the active-set KKT solve was accepted.
    b_rule : how b was obtained ("free support vectors", "midpoint of the optimal interval"
        or "interior point").
    message : a human-readable status.
    """

    w: np.ndarray
    b: float
    dual: np.ndarray
    c: np.ndarray
    xi: np.ndarray
    decision: np.ndarray
    objective: float
    dual_objective: float
    converged: bool
    iterations: int
    polished: bool
    b_rule: str
    message: str

    @property
    def support(self) -> np.ndarray:
        """Indices of the support vectors (alpha_i > 0)."""
        return np.flatnonzero(self.dual > 0)

    @property
    def free(self) -> np.ndarray:
        """Boolean mask of the free support vectors (0 < alpha_i < c_i)."""
        return (self.dual > 0) & (self.dual < self.c)

    @property
    def margin(self) -> float:
        """Width 2 / ||w|| between the canonical hyperplanes x'w + b = +-1."""
        nw = float(np.linalg.norm(self.w))
        return 2.0 / nw if nw > 0 else np.inf


def as_pm1(y) -> np.ndarray:
    """Labels in {0, 1} or {-1, 1} as a float vector of -1/+1 (no other values allowed)."""
    y = np.asarray(y, dtype=float).ravel()
    pm = np.where(y == 0, -1.0, y)
    if not np.all((pm == 1) | (pm == -1)):
        bad = y[~((pm == 1) | (pm == -1))][0]
        raise ValueError(f"`y` must hold labels in {{0, 1}} or {{-1, 1}}; found {bad!r}.")
    return pm


def class_costs(ypm: np.ndarray, C_pos: float, C_neg: float, sample_weight=None) -> np.ndarray:
    """c_i = C_+ for positives, C_- for negatives, times the sample weights (eq. 3.2)."""
    c = np.where(ypm > 0, float(C_pos), float(C_neg))
    if sample_weight is not None:
        c = c * np.asarray(sample_weight, dtype=float)
    return c


def _max_step(P: np.ndarray, D: np.ndarray) -> float:
    """Largest t <= 1 keeping P + t D >= 0 (all four primal-dual vectors at once)."""
    neg = D < 0
    return min(1.0, float(np.min(-P[neg] / D[neg]))) if neg.any() else 1.0


class _NewtonSystem:
    """The reduced (n+1) x (n+1) Newton system of one interior-point iteration."""

    def __init__(self, Z, y, dinv):
        self.dinv = dinv
        K = Z.T @ (Z * dinv[:, None])
        K[np.diag_indices(Z.shape[1] - 1)] += 1.0
        try:
            self.factor = linalg.cho_factor(K, check_finite=False)
            self.K = None
        except linalg.LinAlgError:
            self.factor, self.K = None, K

    def solve(self, rhs):
        if self.factor is not None:
            return linalg.cho_solve(self.factor, rhs, check_finite=False)
        return linalg.lstsq(self.K, rhs, check_finite=False)[0]


def _direction(X, Z, y, P, r, system, r_as, r_mx):
    """Newton direction for complementarity targets r_as (alpha s) and r_mx (mu xi).

    P = (alpha, mu, s, xi) as rows; r = (r_w, r_b, r_xi, r_p) the residuals.  Returns the
    step of (w, b) and the steps of P's rows.
    """
    alpha, mu, s, xi = P
    r_w, r_b, r_xi, r_p = r
    n = X.shape[1]
    g = -r_p + r_mx / mu + (xi / mu) * r_xi - r_as / alpha
    dg = system.dinv * g
    rhs = np.empty(n + 1)
    rhs[:n] = -r_w + X.T @ (y * dg)
    rhs[n] = r_b + float(y @ dg)
    dz = system.solve(rhs)
    D = np.empty_like(P)
    D[0] = system.dinv * (g - y * (Z @ dz))
    D[1] = r_xi - D[0]
    D[2] = -(r_as + s * D[0]) / alpha
    D[3] = -(r_mx + xi * D[1]) / mu
    return dz, D


def _ipm(X, y, c, tol, max_iter):
    """Mehrotra predictor-corrector on the primal QP; returns (w, b, alpha, iterations, ok)."""
    m, n = X.shape
    Z = np.empty((m, n + 1))
    Z[:, :n] = X
    Z[:, n] = 1.0
    wb = np.zeros(n + 1)
    # rows: alpha (margin multipliers), mu (xi >= 0 multipliers), s (margin slack), xi
    P = np.vstack([0.5 * c, 0.5 * c, np.ones(m), np.ones(m)])
    scale = 1.0 + float(c.max())
    xmax = float(np.abs(X).max())
    feas_tol = max(tol, 1e-9)
    ok = False
    it = 0
    for it in range(1, max_iter + 1):
        alpha, mu, s, xi = P
        w = wb[:n]
        f = Z @ wb
        r = (w - X.T @ (y * alpha), float(y @ alpha), c - alpha - mu, y * f + xi - 1.0 - s)
        gap = float(alpha @ s + mu @ xi)
        primal = 0.5 * float(w @ w) + float(c @ xi)
        # relative residuals; their floor is set by rounding in the sums X'(y alpha), y'alpha
        res = max(np.abs(r[3]).max() / (1.0 + np.abs(f).max()),
                  np.abs(r[0]).max() / (1.0 + np.abs(w).max() + float(alpha.sum()) * xmax),
                  abs(r[1]) / (1.0 + float(alpha.sum())), np.abs(r[2]).max() / scale)
        if gap <= tol * (1.0 + abs(primal)) and res <= feas_tol:
            ok = True
            break
        if not (np.isfinite(gap) and np.isfinite(res)):
            break
        system = _NewtonSystem(Z, y, 1.0 / (xi / mu + s / alpha))
        # predictor (affine scaling) step, then Mehrotra's centred corrector
        _, Da = _direction(X, Z, y, P, r, system, alpha * s, mu * xi)
        Pa = P + _max_step(P, Da) * Da
        sigma = (float(Pa[0] @ Pa[2] + Pa[1] @ Pa[3]) / gap) ** 3
        target = sigma * gap / (2 * m)
        dz, D = _direction(X, Z, y, P, r, system, alpha * s + Da[0] * Da[2] - target,
                           mu * xi + Da[1] * Da[3] - target)
        t = 0.995 * _max_step(P, D)
        if not (np.isfinite(t) and np.all(np.isfinite(dz))):
            break
        wb = wb + t * dz
        P = P + t * D
    return wb[:n], float(wb[n]), P[0], it, ok


def _b_interval(f0, y, alpha, c):
    """Optimal interval of b for fixed w when no multiplier is free (LIBSVM's rule)."""
    # rows with alpha = 0 need y (f0 + b) >= 1; rows with alpha = c need y (f0 + b) <= 1
    target = y - f0                       # value of b putting the row on its margin
    lower = ((alpha < c) & (y > 0)) | ((alpha > 0) & (y < 0))
    upper = ((alpha < c) & (y < 0)) | ((alpha > 0) & (y > 0))
    lo = target[lower].max() if lower.any() else -np.inf
    hi = target[upper].min() if upper.any() else np.inf
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    return lo if np.isfinite(lo) else hi


def _polish(X, y, c, alpha_ipm, eps):
    """Solve the KKT system on the active set read off the interior-point solution.

    Returns (w, b, alpha, rule) or None when the active set is degenerate or the
    solution breaks a KKT condition.
    """
    lo_tol = eps * c
    at_zero = alpha_ipm <= lo_tol
    at_c = alpha_ipm >= c - lo_tol
    free = ~(at_zero | at_c)
    alpha = np.where(at_c, c, 0.0)
    nf = int(free.sum())
    n = X.shape[1]
    if nf > n + 1:
        return None
    w0 = X.T @ (y * alpha)
    if nf == 0:
        w = w0
        b = _b_interval(X @ w, y, alpha, c)
        rule = "midpoint of the optimal interval"
    else:
        XF, yF = X[free], y[free]
        A = np.zeros((nf + 1, nf + 1))
        A[:nf, :nf] = (XF @ XF.T) * yF[None, :]
        A[:nf, nf] = 1.0
        A[nf, :nf] = yF
        rhs = np.append(yF - XF @ w0, -float(y @ alpha))
        try:
            sol = linalg.solve(A, rhs, check_finite=False)
        except (linalg.LinAlgError, ValueError):
            return None
        if not np.all(np.isfinite(sol)):
            return None
        alpha[free] = sol[:nf]
        w = w0 + XF.T @ (yF * sol[:nf])
        b = float(sol[nf])
        rule = "free support vectors"
    if not np.isfinite(b):
        return None
    # accept only a KKT point: box, margins on each side of the active set
    cs = 1e-7 * (1.0 + np.abs(c))
    if np.any(alpha < -cs) or np.any(alpha > c + cs):
        return None
    yf = y * (X @ w + b)
    mtol = 1e-7 * (1.0 + float(np.abs(yf).max()))
    if np.any(yf[at_zero] < 1 - mtol) or np.any(yf[at_c] > 1 + mtol):
        return None
    if abs(float(y @ np.clip(alpha, 0, c))) > 1e-7 * (1.0 + float(c.sum())):
        return None
    return w, float(b), np.clip(alpha, 0.0, c), rule


def wsvm_fit(X, y, C_pos: float, C_neg: float, sample_weight=None, *, tol: float = 1e-10,
             max_iter: int = 200) -> WsvmFit:
    """Weighted linear soft-margin SVM (thesis (3.1) with class costs (3.2)), solved exactly.

    Parameters
    ----------
    X : (m, n) float array without an intercept column.
    y : (m,) labels in {0, 1} or {-1, 1}.
    C_pos, C_neg : costs of margin violations of positive and negative rows (> 0).
    sample_weight : optional non-negative row weights multiplying the costs; rows of
        weight 0 are left out of the fit (their multiplier is 0).
    tol : relative tolerance of the interior-point method (duality gap and residuals).
    max_iter : interior-point iteration cap.

    Returns
    -------
    WsvmFit
    """
    X = np.ascontiguousarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"`X` must be a 2-d array; got shape {X.shape}.")
    ypm = as_pm1(y)
    if ypm.shape[0] != X.shape[0]:
        raise ValueError(f"`y` has {ypm.shape[0]} labels but `X` has {X.shape[0]} rows.")
    if not (C_pos > 0 and C_neg > 0 and np.isfinite(C_pos) and np.isfinite(C_neg)):
        raise ValueError(f"`C_pos` and `C_neg` must be positive and finite; got {C_pos!r}, "
                         f"{C_neg!r}.")
    c_all = class_costs(ypm, C_pos, C_neg, sample_weight)
    keep = c_all > 0
    Xk, yk, ck = (X, ypm, c_all) if keep.all() else (X[keep], ypm[keep], c_all[keep])
    if not ((yk > 0).any() and (yk < 0).any()):
        raise ValueError("`y` must contain both classes among the rows with positive weight.")

    w, b, alpha, it, ok = _ipm(Xk, yk, ck, tol, max_iter)
    alpha = np.clip(alpha, 0.0, ck)
    pol = _polish(Xk, yk, ck, alpha, eps=1e-6) if ok else None
    if pol is not None:
        w, b, alpha, rule = pol
    else:
        # a degenerate optimum (e.g. w = 0, or more free vectors than n + 1): the dual is not
        # unique and the interior point returns the analytic centre of the optimal face
        alpha = np.where(alpha <= 1e-10 * ck, 0.0, np.where(alpha >= (1 - 1e-10) * ck, ck, alpha))
        free = (alpha > 1e-6 * ck) & (alpha < (1 - 1e-6) * ck)
        rule = "interior point"
        if free.any():   # the thesis's rule: b averaged over the free support vectors
            b = float(np.mean(yk[free] - Xk[free] @ w))
            rule = "free support vectors (average)"
    dual = np.zeros(X.shape[0])
    dual[keep] = alpha
    decision = X @ w + b
    xi = np.maximum(0.0, 1.0 - ypm * decision)
    primal = 0.5 * float(w @ w) + float(c_all @ xi)
    v = Xk.T @ (yk * alpha)
    dual_obj = float(alpha.sum()) - 0.5 * float(v @ v)
    msg = (f"interior point converged in {it} iterations (relative gap < {tol:g})" if ok else
           f"interior point stopped after {it} iterations without meeting tolerance {tol:g}")
    if ok and pol is None:
        msg += "; active-set polish skipped (degenerate active set)"
    return WsvmFit(w=w, b=float(b), dual=dual, c=c_all, xi=xi, decision=decision,
                   objective=primal, dual_objective=dual_obj, converged=ok, iterations=it,
                   polished=pol is not None, b_rule=rule, message=msg)
