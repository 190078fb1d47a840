"""The class-weighted linear soft-margin SVM (thesis (3.1)-(3.2)) solved exactly as a QP.

The primal problem

    min_{w, b, xi}  1/2 w'w + sum_i c_i xi_i
    s.t.            y_i (x_i'w + b) >= 1 - xi_i,   xi_i >= 0,

with ``c_i = C_+`` or ``C_-`` by class (times an optional sample weight), is solved by a
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

:func:`wsvm_grid` solves the QPs of many cost pairs on the same rows at once (a CV
grid): the interior-point iterations run side by side on (G, m) arrays with one
batched (n+1) x (n+1) solve per step.  On the thesis's 210-point grid it is several
times faster than lone fits (``benchmarks/README.md``), while warm-starting each fit
from its grid neighbour -- following the piecewise-linear solution path in the costs
with one active-set KKT solve per breakpoint -- was *slower* than a cold start (about
30 breakpoints between neighbouring points of the grid's sqrt(2) steps), so there is
no warm start.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from .._utils.boundary import public

__all__ = ["WsvmFit", "wsvm_fit", "wsvm_grid", "as_pm1", "class_costs"]


@dataclass(frozen=True)
class WsvmFit:
    """Solution of the weighted linear SVM QP.

    Built by :func:`wsvm_fit`, not directly; every parameter is also an attribute of the
    same name.

    Parameters
    ----------
    w : numpy.ndarray
        The weights of the hyperplane x'w + b = 0.
    b : float
        The offset of the hyperplane (unregularised).
    dual : numpy.ndarray
        Alpha, the multipliers of the margin constraints, 0 <= alpha_i <= c_i.
    c : numpy.ndarray
        The box bounds c_i (class cost times sample weight) of the rows fitted.
    xi : numpy.ndarray
        Slacks max(0, 1 - y_i (x_i'w + b)).
    decision : numpy.ndarray
        The decision values x_i'w + b on the training rows.
    objective, dual_objective : float
        Primal and dual objective values at the solution.
    converged : bool
        Whether the solution is known to be optimal: the interior-point method met its
        tolerance, or the active-set solve on its margins passed every KKT condition.
    iterations : int
        Interior-point iterations.
    polished : bool
        Whether the active-set KKT solve was accepted.
    b_rule : str
        How b was obtained ("free support vectors", "midpoint of the optimal interval" or
        "interior point").
    message : str
        A human-readable status.

    Attributes
    ----------
    support : numpy.ndarray
        Indices of the support vectors (alpha_i > 0).
    free : numpy.ndarray
        Boolean mask of the free support vectors (0 < alpha_i < c_i).
    margin : float
        Width 2 / ||w|| between the canonical hyperplanes x'w + b = +-1.
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
    """``c_i = C_+`` for positives, ``C_-`` for negatives, times the sample weights (eq. 3.2)."""
    c = np.where(ypm > 0, float(C_pos), float(C_neg))
    if sample_weight is not None:
        c = c * np.asarray(sample_weight, dtype=float)
    return c


#: A step component above -TINY_STEP cannot limit the step length: with P >= P_FLOOR its ratio
#: -P/D exceeds P_FLOOR / TINY_STEP > 1.  Dividing only where D < -TINY_STEP keeps the ratio
#: finite (no overflow) under ``np.errstate(all="raise")``.
TINY_STEP = 1e-200
#: The iterates never go below this: a problem whose complementarity has fallen to
#: STALL_GAP x its tolerance stops (see :func:`_ipm`) long before any P_i gets near it.
P_FLOOR = 1e-100
#: Complementarity below STALL_GAP x the tolerance with the residuals unmet: stalled.
STALL_GAP = 1e-3


def _max_step(P: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Largest t <= 1 per problem keeping P + t D >= 0 (P, D of shape (4, G, m))."""
    ratio = np.full(P.shape, np.inf)
    np.divide(P, -D, out=ratio, where=D < -TINY_STEP)
    return np.minimum(1.0, ratio.min(axis=(0, 2)))


def _solve_batch(K, rhs):
    """Solve the G systems K[g] x = rhs[g]; least squares for any singular one."""
    try:
        return np.linalg.solve(K, rhs[..., None])[..., 0]
    except np.linalg.LinAlgError:
        return np.stack([linalg.lstsq(Kg, rg, check_finite=False)[0] for Kg, rg in zip(K, rhs)])


def _direction(X, Z, y, P, r, dinv, K, r_as, r_mx):
    """Newton directions for complementarity targets r_as (alpha s) and r_mx (mu xi).

    P = (alpha, mu, s, xi) stacked as (4, G, m); r = (r_w, r_b, r_xi, r_p) the residuals;
    K the reduced (n+1) x (n+1) systems Z' D Z + diag(1, ..., 1, 0), one per problem.
    Returns the steps of (w, b), (G, n+1), and of P, (4, G, m).
    """
    alpha, mu, s, xi = P
    r_w, r_b, r_xi, r_p = r
    n = X.shape[1]
    g = -r_p + r_mx / mu + (xi / mu) * r_xi - r_as / alpha
    dg = dinv * g
    rhs = np.empty((g.shape[0], n + 1))
    rhs[:, :n] = -r_w + (y * dg) @ X
    rhs[:, n] = r_b + dg @ y
    dz = _solve_batch(K, rhs)
    D = np.empty_like(P)
    D[0] = dinv * (g - y * (dz @ Z.T))
    D[1] = r_xi - D[0]
    D[2] = -(r_as + s * D[0]) / alpha
    D[3] = -(r_mx + xi * D[1]) / mu
    return dz, D


def _ipm(X, y, C, tol, max_iter):
    """Mehrotra predictor-corrector on the primal QP for G cost vectors at once.

    ``C`` is (G, m): one QP per row, all on the same X and y, iterated side by side
    (each problem's iterates are those of a lone run; a problem stops moving once it
    meets the tolerance).  Every Newton step reduces to one (n+1) x (n+1) positive
    definite system per problem, Z' D Z + diag(1, ..., 1, 0) with Z = [X, 1].
    Returns (W (G, n), b (G,), alpha (G, m), iterations (G,), ok (G,)).
    """
    m, n = X.shape
    G = C.shape[0]
    Z = np.empty((m, n + 1))
    Z[:, :n] = X
    Z[:, n] = 1.0
    WB = np.zeros((G, n + 1))
    # (4, G, m): alpha (margin multipliers), mu (xi >= 0 multipliers), s (margin slack), xi
    P = np.stack([0.5 * C, 0.5 * C, np.ones((G, m)), np.ones((G, m))])
    iters = np.zeros(G, dtype=int)
    ok = np.zeros(G, dtype=bool)
    act = np.arange(G)                     # problems still iterating
    xmax = float(np.abs(X).max())
    feas_tol = max(tol, 1e-9)
    for it in range(1, max_iter + 1):
        iters[act] = it
        c, wb, Pa_ = C[act], WB[act], P[:, act]
        alpha, mu, s, xi = Pa_
        w = wb[:, :n]
        f = wb @ Z.T
        r = (w - (y * alpha) @ X, alpha @ y, c - alpha - mu, y * f + xi - 1.0 - s)
        gap = np.einsum("gm,gm->g", alpha, s) + np.einsum("gm,gm->g", mu, xi)
        primal = 0.5 * np.einsum("gn,gn->g", w, w) + np.einsum("gm,gm->g", c, xi)
        asum = alpha.sum(axis=1)
        # relative residuals; their floor is set by rounding in the sums X'(y alpha), y'alpha
        res = np.maximum.reduce([
            np.abs(r[3]).max(axis=1) / (1.0 + np.abs(f).max(axis=1)),
            np.abs(r[0]).max(axis=1) / (1.0 + np.abs(w).max(axis=1) + asum * xmax),
            np.abs(r[1]) / (1.0 + asum), np.abs(r[2]).max(axis=1) / (1.0 + c.max(axis=1))])
        scale = 1.0 + np.abs(primal)
        done = (gap <= tol * scale) & (res <= feas_tol)
        ok[act[done]] = True
        # a problem whose complementarity is far below its tolerance while a residual is not
        # has stalled (an ill-conditioned reduced system: free support vectors get weights
        # ~ 1/gap); iterating on would only drive its iterates towards underflow.  It stops
        # unconverged, and the active-set solve (_finish) decides whether it is optimal.
        stalled = gap <= STALL_GAP * tol * scale
        go = ~done & ~stalled & np.isfinite(gap) & np.isfinite(res) & (Pa_.min(axis=(0, 2))
                                                                          > P_FLOOR)
        if not go.all():
            act, c, wb, Pa_, gap = act[go], c[go], wb[go], Pa_[:, go], gap[go]
            r = tuple(v[go] for v in r)
            if act.size == 0:
                break
        alpha, mu, s, xi = Pa_
        dinv = 1.0 / (xi / mu + s / alpha)
        K = Z.T @ (Z * dinv[:, :, None])
        K[:, np.arange(n), np.arange(n)] += 1.0
        # predictor (affine scaling) step, then Mehrotra's centred corrector
        _, Da = _direction(X, Z, y, Pa_, r, dinv, K, alpha * s, mu * xi)
        Pa = Pa_ + _max_step(Pa_, Da)[:, None] * Da
        sigma = ((np.einsum("gm,gm->g", Pa[0], Pa[2]) + np.einsum("gm,gm->g", Pa[1], Pa[3]))
                 / gap) ** 3
        target = (sigma * gap / (2 * m))[:, None]
        dz, D = _direction(X, Z, y, Pa_, r, dinv, K, alpha * s + Da[0] * Da[2] - target,
                           mu * xi + Da[1] * Da[3] - target)
        t = 0.995 * _max_step(Pa_, D)
        good = np.isfinite(t) & np.isfinite(dz).all(axis=1)
        WB[act[good]] = wb[good] + t[good, None] * dz[good]
        P[:, act[good]] = Pa_[:, good] + t[good, None] * D[:, good]
        act = act[good]
        if act.size == 0:
            break
    return WB[:, :n], WB[:, n], P[0], iters, ok


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


def _partition_solve(X, y, c, at_zero, at_c):
    """Solve the KKT system of the QP on a partition of the rows.

    Rows in ``at_zero`` get alpha_i = 0, rows in ``at_c`` alpha_i = c_i, and the free
    rows lie on their margin, y_i (x_i'w + b) = 1, with w = X'(y alpha) and y'alpha = 0.
    Returns (w, b, alpha, rule) or None when the system is singular or has more than
    n + 1 free rows.  The solution is a KKT point only if :func:`_is_kkt` says so.
    """
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
        try:   # numpy's solve: scipy's checks cost more than this tiny system
            sol = np.linalg.solve(A, rhs)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(sol)):
            return None
        alpha[free] = sol[:nf]
        w = w0 + XF.T @ (yF * sol[:nf])
        b = float(sol[nf])
        rule = "free support vectors"
    if not np.isfinite(b):
        return None
    return w, float(b), alpha, rule


def _is_kkt(X, y, c, w, b, alpha, at_zero, at_c) -> bool:
    """Whether a partition's solution is a KKT point: box, margins on each side, y'alpha = 0."""
    cs = 1e-7 * (1.0 + np.abs(c))
    if np.any(alpha < -cs) or np.any(alpha > c + cs):
        return False
    yf = y * (X @ w + b)
    mtol = 1e-7 * (1.0 + float(np.abs(yf).max()))
    if np.any(yf[at_zero] < 1 - mtol) or np.any(yf[at_c] > 1 + mtol):
        return False
    return abs(float(y @ np.clip(alpha, 0, c))) <= 1e-7 * (1.0 + float(c.sum()))


#: Rows whose margin y (x'w + b) is within MARGIN_TOL (relative) of 1 are candidates for the
#: free set of the active-set solve.  The interior point's primal is accurate to ~1e-12, so
#: a row's side of this band does not change with rounding; a row that truly lies inside
#: it gets its multiplier from the KKT solve (0 or c_i if it is not free).
MARGIN_TOL = 1e-6


def _polish(X, y, c, alpha_ipm, w, b, eps):
    """Solve the KKT system on the active set read off the interior-point solution.

    Two readings of the active set are tried in turn, and the first whose solution passes
    every KKT condition (:func:`_is_kkt`) is taken:

    1. from the primal margins: rows beyond the margin band are at alpha = 0, rows inside
       it at alpha = c, rows on it free.  The primal (w, b) is what the interior point
       determines well, so this reading does not depend on rounding -- the same data give
       the same partition under every BLAS kernel;
    2. from the multipliers (alpha within ``eps`` of a bound), for degenerate optima with
       more rows on the margin than n + 1 (e.g. w = 0).

    Returns (w, b, alpha, rule) or None when neither gives a KKT point.
    """
    yf = y * (X @ w + b)
    mtol = MARGIN_TOL * (1.0 + float(np.abs(yf).max()))
    lo_tol = eps * c
    for at_zero, at_c in ((yf > 1.0 + mtol, yf < 1.0 - mtol),
                          (alpha_ipm <= lo_tol, alpha_ipm >= c - lo_tol)):
        sol = _partition_solve(X, y, c, at_zero, at_c)
        if sol is not None and _is_kkt(X, y, c, *sol[:3], at_zero, at_c):
            w_, b_, alpha, rule = sol
            return w_, b_, np.clip(alpha, 0.0, c), rule
    return None


def _check_inputs(X, y, sample_weight):
    X = np.ascontiguousarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"`X` must be a 2-d array; got shape {X.shape}.")
    ypm = as_pm1(y)
    if ypm.shape[0] != X.shape[0]:
        raise ValueError(f"`y` has {ypm.shape[0]} labels but `X` has {X.shape[0]} rows.")
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=float)
    return X, ypm, sample_weight


def _check_costs(C_pos, C_neg):
    if not (C_pos > 0 and C_neg > 0 and np.isfinite(C_pos) and np.isfinite(C_neg)):
        raise ValueError(f"`C_pos` and `C_neg` must be positive and finite; got {C_pos!r}, "
                         f"{C_neg!r}.")


def _finish(X, ypm, c_all, keep, w, b, alpha, it, ok, tol) -> WsvmFit:
    """Polish one interior-point solution and assemble its :class:`WsvmFit`."""
    Xk, yk, ck = (X, ypm, c_all) if keep.all() else (X[keep], ypm[keep], c_all[keep])
    alpha = np.clip(alpha, 0.0, ck)
    # the active-set solve is tried whether or not the interior point met its tolerance: it
    # is accepted only at a KKT point, so a stalled run whose primal is right still ends at
    # the exact optimum (and "converged" means that optimality was verified)
    pol = _polish(Xk, yk, ck, alpha, w, b, eps=1e-6)
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
    if pol is None and ok:
        msg += "; active-set polish skipped (degenerate active set)"
    elif pol is not None and not ok:
        msg += "; the active-set solve on its margins satisfies the KKT conditions"
    return WsvmFit(w=w, b=float(b), dual=dual, c=c_all, xi=xi, decision=decision,
                   objective=primal, dual_objective=dual_obj, converged=bool(ok or pol),
                   iterations=int(it), polished=pol is not None, b_rule=rule, message=msg)


def _solve_costs(X, ypm, costs, sample_weight, tol, max_iter) -> list[WsvmFit]:
    """Fits at the (C_pos, C_neg) rows of ``costs`` on checked inputs, batched by row set."""
    c_all = np.stack([class_costs(ypm, cp, cn, sample_weight) for cp, cn in costs])
    keep = c_all[0] > 0             # the same rows for all: costs > 0, weights decide
    Xk, yk = (X, ypm) if keep.all() else (X[keep], ypm[keep])
    if not ((yk > 0).any() and (yk < 0).any()):
        raise ValueError("`y` must contain both classes among the rows with positive weight.")
    Ck = c_all[:, keep]
    if len(costs) == 1:
        W, B, A, its, oks = _ipm(Xk, yk, Ck, tol, max_iter)
    else:
        with np.errstate(all="ignore"):     # a failing problem is solved again alone below
            W, B, A, its, oks = _ipm(Xk, yk, Ck, tol, max_iter)
        # rounding in the batched sums differs from a lone run's, and a badly conditioned
        # problem can then miss the tolerance: such problems get the lone run of wsvm_fit
        for g in np.flatnonzero(~oks):
            W[g], B[g], A[g], its[g], oks[g] = (v[0] for v in _ipm(Xk, yk, Ck[g:g + 1], tol,
                                                                    max_iter))
    return [_finish(X, ypm, c_all[g], keep, W[g], float(B[g]), A[g], its[g], oks[g], tol)
            for g in range(len(costs))]


@public
def wsvm_fit(X, y, C_pos: float, C_neg: float, sample_weight=None, *, tol: float = 1e-10,
             max_iter: int = 200) -> WsvmFit:
    """Weighted linear soft-margin SVM (thesis (3.1) with class costs (3.2)), solved exactly.

    Parameters
    ----------
    X : array-like of shape (m, n)
        Float array without an intercept column.
    y : array-like of shape (m,)
        Labels in {0, 1} or {-1, 1}.
    C_pos, C_neg : float
        Costs of margin violations of positive and negative rows (> 0).
    sample_weight : array-like of shape (m,), optional
        Non-negative row weights multiplying the costs; rows of weight 0 are left out of
        the fit (their multiplier is 0).
    tol : float, default 1e-10
        Relative tolerance of the interior-point method (duality gap and residuals).
    max_iter : int, default 200
        Interior-point iteration cap.

    Returns
    -------
    WsvmFit
        The solution.
    """
    X, ypm, sample_weight = _check_inputs(X, y, sample_weight)
    _check_costs(C_pos, C_neg)
    return _solve_costs(X, ypm, [(C_pos, C_neg)], sample_weight, tol, max_iter)[0]


def wsvm_grid(X, y, costs, sample_weight=None, *, tol: float = 1e-10, max_iter: int = 200,
              batch: int = 128) -> list[WsvmFit]:
    """:func:`wsvm_fit` at every (C_pos, C_neg) row of ``costs`` on the same rows, at once.

    The interior-point iterations of all the problems run side by side on (G, m)
    arrays (one batched (n+1) x (n+1) solve per Newton step), then each solution is
    polished as in :func:`wsvm_fit`: the same answers as G separate calls (to rounding
    in the sums), at a fraction of the cost for small m (a CV grid of the thesis).
    ``batch`` problems at most are iterated together (larger batches leave the CPU
    caches; ``benchmarks/README.md``).
    """
    X, ypm, sample_weight = _check_inputs(X, y, sample_weight)
    costs = np.asarray(costs, dtype=float)
    if costs.ndim != 2 or costs.shape[1] != 2 or costs.shape[0] == 0:
        raise ValueError(f"`costs` must be a (G, 2) array of (C_pos, C_neg) pairs; got shape "
                         f"{costs.shape}.")
    for cp, cn in costs:
        _check_costs(cp, cn)
    parts = np.array_split(np.arange(len(costs)), -(-len(costs) // max(1, int(batch))))
    return [f for idx in parts
            for f in _solve_costs(X, ypm, costs[idx], sample_weight, tol, max_iter)]
