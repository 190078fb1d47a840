"""The covariance of the F-measure maximiser that accounts for its data-dependent weights.

``fmaxent`` returns coefficients theta at which, to the outer loop's tolerance, the weighted
(and ridge-penalised) score equation holds with weights computed *from theta itself*:

    G_theta(theta, m) = (1/N) [ sum_i c_i w_i(theta, m) (q_i - p_i) x_i - P theta ] = 0,

where p_i = expit(x_i' theta), c_i are the count weights, P the ridge, and the F-weights w_i
depend on theta through p_i and on *aggregates* m -- means over the rows -- through the F that
enters them and through the scale that makes them mean 1:

    w_i = clip(r_i(p_i, F(m)) / s(m), lo, hi),   s = mean(c r) / mean(c).

The aggregates solve their own estimating equations G_m(theta, m) = (1/N) sum_i h_i - m = 0
(expected F: the expected counts sum c q p, sum c p, sum c q; noisy F: the smoothed counts of
section 7.2; plug-in: the counts of the predicted classes; and the weights' scale).  Stacking
phi = (theta, m) gives an M-estimator (Stefanski & Boos 2002): with J = dG/dphi and
B = (1/N) sum_i g_i g_i' (g_i the per-row terms, the ridge excluded as it is not random),

    Var(phi) = J^-1 B J^-T / N,

and the theta block is the covariance reported (``cov_type="stacked"``).  The derivatives are
analytic: clipped weights have derivative 0 (piecewise), the smoothing bands of (7.1)-(7.3) are
differentiated piece by piece, the predicted classes of the plug-in method are locally
constant.  With the weights frozen (no dependence on theta or m) the theta block is exactly the
HC0 sandwich.  Where the returned iterate is not a fixed point, :func:`fixed_point_gap` says by
how many standard errors a Newton step to the fixed point would move each coefficient.

Pure functions on arrays (the model layer calls them); see ``docs/inference.rst`` for
the derivation and its limits.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from .fweights import TINY

__all__ = ["Reweighting", "StackedCov", "stacked_covariance", "estimating_equations",
           "stacked_terms", "aggregates", "fixed_point_gap", "unrolled_covariance",
           "unrolled_influence"]


@dataclass(frozen=True)
class Reweighting:
    """How an ``fmaxent`` fit computes its F-weights (what the stacked equations need).

    Parameters
    ----------
    method : {"expected", "noisy", "plugin"}
        The F the weights come from (Algorithm 4.1, 7.1 or section 9.3).
    alpha : float
        The weight on precision.
    epsilon : float or None
        The smoothing width of section 7.2 (None: the raw weights (6.9)).
    bounds : tuple of float or None
        The clipping bounds (lo, hi) of the mean-1 weights, or None.
    threshold : float
        The class threshold (the plug-in method's predicted classes).
    """

    method: str
    alpha: float
    epsilon: float | None
    bounds: tuple | None
    threshold: float


# ----------------------------------------------------------------------------- weights
def _core(d, af, eps):
    """The bracket of the noisy weights (6.9)/(7.1) over p(1 - p), its derivative in d and in
    F (through af = alpha F; the factor F / TP common to all rows cancels in the scale)."""
    a = af
    if eps is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            core = np.where(d > 0, a / d, np.where(d < 0, -(1 - a) / d, np.inf))
            dd = np.where(d > 0, -a / d ** 2, np.where(d < 0, (1 - a) / d ** 2, 0.0))
            da_per_alpha = np.where(d != 0, 1.0 / np.where(d != 0, d, 1.0), 0.0)
        return core, dd, da_per_alpha
    up = np.maximum(d, eps)
    down = np.maximum(-d, eps)
    core = np.where(d > 0, a / up, (1 - a) / down)
    dd = np.where(d >= eps, -a / d ** 2, np.where(d <= -eps, (1 - a) / d ** 2, 0.0))
    da_per_alpha = np.where(d > 0, 1.0 / up, -1.0 / down)
    return core, dd, da_per_alpha


def raw_weights(spec: Reweighting, q, p, f):
    """(r, dr/dp, dr/dF): the F-weights before the scale, with their derivatives."""
    a = spec.alpha
    if spec.method == "expected":
        k = (1.0 - a * f) / (a * f)
        r = np.where(q == 1, k * p, 1.0 - p)
        return r, np.where(q == 1, k, -1.0), np.where(q == 1, -p / (a * f * f), 0.0)
    core, dcore_dd, dcore_da = _core(p - q, a * f, spec.epsilon)
    v = p * (1 - p)
    with np.errstate(invalid="ignore"):
        r = v * core
        drdp = (1 - 2 * p) * core + v * dcore_dd
    return r, drdp, v * dcore_da * a


# ----------------------------------------------------------------------------- aggregates
def _g1(x, eps):
    return np.where(x <= -eps, 0.0, np.where(x <= 0, (x + eps) ** 2 / (2 * eps), x + eps / 2))


def _g2(x, eps):
    return np.where(x <= 0, 0.0, np.where(x < eps, x * x / (2 * eps), x - eps / 2))


def _count_rows(spec: Reweighting, q, p, c):
    """Per-row terms of the count aggregates (n, k), their derivatives in p (n, k), and the
    function F(m) with its gradient (F, dF/dm) for means m of those terms."""
    a = spec.alpha
    if spec.method == "expected":
        h = np.column_stack([c * q * p, c * p, c * q])
        dh = np.column_stack([c * q, c, np.zeros_like(c)])
    elif spec.method == "plugin":
        pred = (p >= spec.threshold).astype(float)
        h = np.column_stack([c * q * pred, c * pred, c * q])
        dh = np.zeros_like(h)                        # the predicted classes: locally constant
    elif spec.epsilon is None:                       # correlated noisy counts (6.1)
        h = np.column_stack([c * np.minimum(q, p), c * p, c * q])
        dh = np.column_stack([c * (p < q), c, np.zeros_like(c)])
    else:                                            # the smoothed counts of section 7.2
        eps, d = spec.epsilon, p - q
        h = np.column_stack([c * (p - _g1(d, eps)), c * ((1 - q) - _g2(d, eps)), c * (1 - q),
                             c * q])
        dh = np.column_stack([c * (1 - np.clip((d + eps) / eps, 0, 1)),
                              -c * np.clip(d / eps, 0, 1), np.zeros_like(c), np.zeros_like(c)])

    def f_of(m):
        if h.shape[1] == 3:                          # F = m1 / (alpha m2 + (1 - alpha) m3)
            den = a * m[1] + (1 - a) * m[2]
            return m[0] / den, np.array([1 / den, -a * m[0] / den ** 2,
                                         -(1 - a) * m[0] / den ** 2])
        den = a * (m[0] - m[1]) + a * m[2] + (1 - a) * m[3]
        return m[0] / den, np.array([(den - a * m[0]) / den ** 2, a * m[0] / den ** 2,
                                     -a * m[0] / den ** 2, -(1 - a) * m[0] / den ** 2])

    return h, dh, f_of


@dataclass(frozen=True)
class _Point:
    """Everything of the stacked equations at (theta, m) on given rows."""

    g: np.ndarray        # (n, p + K) per-row terms (ridge excluded)
    G: np.ndarray        # (p + K,) the stacked equations (ridge included)
    J: np.ndarray        # (p + K, p + K) their Jacobian
    m: np.ndarray        # the aggregates


def _ridge_rows(X, c, theta, shrinkage):
    """Per-row terms of the standardised ridge's gradient, -shrinkage c_i (x_i - xbar)^2 theta
    (their sum is the penalty's gradient; the weighted mean xbar is where their sum is
    stationary, so its own variation does not enter to first order)."""
    if not shrinkage:
        return 0.0, 0.0
    xbar = (c @ X) / c.sum()
    dev2 = c[:, None] * (X - xbar) ** 2
    return -shrinkage * dev2 * theta, shrinkage * dev2.sum(axis=0)


def _evaluate(X, q, c, theta, m, spec: Reweighting, pen, frozen_w=None, shrinkage=0.0) -> _Point:
    """The stacked equations, per-row terms and analytic Jacobian at (theta, m).  ``pen`` is
    the whole ridge; ``shrinkage`` its data-dependent part (``standardised_ridge``), whose
    per-row terms enter the meat."""
    n, p = X.shape
    eta = X @ theta
    pr = np.clip(expit(eta), TINY, 1 - TINY)
    dp = pr * (1 - pr)
    h, dh, f_of = _count_rows(spec, q, pr, c)
    k = h.shape[1]
    f, df_dm = f_of(m[:k])
    r, drdp, drdf = raw_weights(spec, q, pr, f)
    ok = np.isfinite(r) & (c > 0)
    r0 = np.where(ok, r, 0.0)
    hr = np.where(ok, c * r0, 0.0)                   # the scale's numerator terms
    hc = np.where(ok, c, 0.0)                        # and its denominator's
    s = m[k] / m[k + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        w_raw = np.where(ok, r / s, np.inf)
    if spec.bounds is not None:
        w = np.clip(w_raw, spec.bounds[0], spec.bounds[1])
        free = ok & (w_raw > spec.bounds[0]) & (w_raw < spec.bounds[1])
    else:
        w, free = w_raw, ok
    if frozen_w is not None:
        w, free = frozen_w, np.zeros(n, dtype=bool)
    resid = q - pr
    score_rows = (c * w * resid)[:, None] * X
    K = k + 2
    g = np.empty((n, p + K))
    ridge_rows, data_pen = _ridge_rows(X, c, theta, shrinkage)
    g[:, :p] = score_rows + ridge_rows
    g[:, p:p + k] = h - m[:k]
    g[:, p + k] = hr - m[k]
    g[:, p + k + 1] = hc - m[k + 1]
    G = g.mean(axis=0)
    G[:p] -= (pen - data_pen) * theta / n            # the ridge's fixed part (not per row)
    # ---------------------------------------------------------------- the Jacobian
    J = np.zeros((p + K, p + K))
    # d w / d p (through r, aggregates fixed) and d w / d(F, s)
    dw_dp = np.where(free, drdp / s, 0.0)
    dw_df = np.where(free, drdf / s, 0.0)
    dw_ds = np.where(free, -w / s, 0.0)
    # theta rows
    a_rows = c * (resid * dw_dp - w) * dp
    J[:p, :p] = (X.T * a_rows) @ X / n
    J[:p, :p][np.diag_indices(p)] -= pen / n
    base = (c * resid)[:, None] * X                 # d score_i / d w_i
    dscore_df = base.T @ dw_df / n                  # (p,)
    dscore_ds = base.T @ dw_ds / n
    J[:p, p:p + k] = np.outer(dscore_df, df_dm)
    J[:p, p + k] = dscore_ds / m[k + 1]                          # ds/dm_r = 1 / m_c
    J[:p, p + k + 1] = dscore_ds * (-m[k] / m[k + 1] ** 2)      # ds/dm_c = -m_r / m_c^2
    # aggregate rows
    J[p:p + k, :p] = (dh * dp[:, None]).T @ X / n
    J[p + k, :p] = (np.where(ok, c * drdp, 0.0) * dp) @ X / n
    J[p + k, p:p + k] = np.where(ok, c * drdf, 0.0).mean() * df_dm
    J[p:, p:][np.diag_indices(K)] -= 1.0
    return _Point(g=g, G=G, J=J, m=m)


def estimating_equations(X, q, c, theta, m, spec: Reweighting, pen, shrinkage=0.0
                         ) -> np.ndarray:
    """The stacked equations G(theta, m) (for checks: a finite-difference Jacobian)."""
    return _evaluate(X, q, c, theta, m, spec, pen, shrinkage=shrinkage).G


def stacked_terms(X, q, c, theta, spec: Reweighting, pen, shrinkage=0.0):
    """(g, G, J, m) at theta and its aggregates m: the per-row terms (n, p + K), the stacked
    equations, their analytic Jacobian and the aggregates."""
    X = np.asarray(X, dtype=float)
    m = aggregates(X, q, c, theta, spec)
    pt = _evaluate(X, q, c, theta, m, spec, np.asarray(pen, dtype=float), shrinkage=shrinkage)
    return pt.g, pt.G, pt.J, m


def aggregates(X, q, c, theta, spec: Reweighting) -> np.ndarray:
    """The aggregates m solving G_m = 0 at theta (the counts, then the weights' scale)."""
    pr = np.clip(expit(X @ theta), TINY, 1 - TINY)
    h, _, f_of = _count_rows(spec, q, pr, c)
    mc = h.mean(axis=0)
    f, _ = f_of(mc)
    r, _, _ = raw_weights(spec, q, pr, f)
    ok = np.isfinite(r) & (c > 0)
    return np.r_[mc, np.where(ok, c * np.where(ok, r, 0.0), 0.0).mean(), np.where(ok, c, 0.0).mean()]


@dataclass(frozen=True)
class StackedCov:
    """The stacked sandwich of an F-maximiser fit.

    Parameters
    ----------
    cov : ndarray of shape (p, p)
        The coefficients' covariance (the theta block).
    full : ndarray
        The covariance of (theta, m).
    step : ndarray of shape (p,)
        The Newton step -J^-1 G to the fixed point from the returned coefficients (0 at a
        fixed point).
    """

    cov: np.ndarray
    full: np.ndarray
    step: np.ndarray

    @property
    def se(self) -> np.ndarray:
        """Standard errors of the coefficients."""
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))


def stacked_covariance(X, q, c, theta, spec: Reweighting, pen=None, *, shrinkage=0.0,
                       frozen_weights=None) -> StackedCov:
    """The stacked sandwich J^-1 B J^-T / N of an F-maximiser's coefficients ``theta``.

    ``X`` (n, p) the design, ``q`` the response in [0, 1], ``c`` the count weights, ``pen``
    the per-coefficient ridge (penalised objective: log-likelihood - pen * theta^2 / 2).
    ``frozen_weights`` (the F-weights as fixed numbers) gives the HC0 sandwich, for checks.
    """
    X = np.asarray(X, dtype=float)
    n, p = X.shape
    pen = np.zeros(p) if pen is None else np.asarray(pen, dtype=float)
    m = aggregates(X, q, c, theta, spec)
    pt = _evaluate(X, q, c, theta, m, spec, pen, frozen_w=frozen_weights, shrinkage=shrinkage)
    B = pt.g.T @ pt.g / n
    if frozen_weights is not None:                   # the aggregates do not feed theta
        Jt = pt.J[:p, :p]
        bread = np.linalg.inv(Jt)
        cov = bread @ B[:p, :p] @ bread.T / n
        return StackedCov(cov=cov, full=cov, step=np.zeros(p))
    Jinv = np.linalg.inv(pt.J)
    full = Jinv @ B @ Jinv.T / n
    step = -(Jinv @ pt.G)[:p]
    return StackedCov(cov=full[:p, :p], full=full, step=step)


def fixed_point_gap(result: StackedCov) -> np.ndarray:
    """``|Newton step to the fixed point|`` / standard error, per coefficient."""
    se = result.se
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, np.abs(result.step) / se, np.inf)


# ----------------------------------------------------------------------------- the iterations
def _weights_and_derivatives(X, q, c, theta, spec: Reweighting):
    """At theta: the mean-1 clipped F-weights w, dw/deta per row, dw/dm (n, K), the
    aggregates m, their per-row terms g_m (n, K) and their Jacobians J_mtheta (K, p), J_mm
    (K, K): the aggregate rows of :func:`_evaluate`, each computed once from one pass of the
    fitted probabilities."""
    n, p = X.shape
    pr = np.clip(expit(X @ theta), TINY, 1 - TINY)
    dp = pr * (1 - pr)
    h, dh, f_of = _count_rows(spec, q, pr, c)
    k = h.shape[1]
    mc = h.mean(axis=0)
    f, df_dm = f_of(mc)
    r, drdp, drdf = raw_weights(spec, q, pr, f)
    ok = np.isfinite(r) & (c > 0)
    hr = np.where(ok, c * np.where(ok, r, 0.0), 0.0)           # the scale's numerator terms
    hc = np.where(ok, c, 0.0)                                  # and its denominator's
    m = np.r_[mc, hr.mean(), hc.mean()]
    s = m[k] / m[k + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        w_raw = np.where(ok, r / s, np.inf)
    if spec.bounds is not None:
        w = np.clip(w_raw, spec.bounds[0], spec.bounds[1])
        free = ok & (w_raw > spec.bounds[0]) & (w_raw < spec.bounds[1])
    else:
        w, free = w_raw, ok
    dw_dp = np.where(free, drdp / s, 0.0)
    dw_df = np.where(free, drdf / s, 0.0)
    dw_ds = np.where(free, -w / s, 0.0)
    K = k + 2
    dw_dm = np.empty((n, K))
    dw_dm[:, :k] = dw_df[:, None] * df_dm[None, :]
    dw_dm[:, k] = dw_ds / m[k + 1]
    dw_dm[:, k + 1] = dw_ds * (-m[k] / m[k + 1] ** 2)
    g_m = np.empty((n, K))
    g_m[:, :k] = h - mc
    g_m[:, k] = hr - m[k]
    g_m[:, k + 1] = hc - m[k + 1]
    J_mt = np.empty((K, p))
    J_mt[:k] = (dh * dp[:, None]).T @ X / n
    J_mt[k] = (np.where(ok, c * drdp, 0.0) * dp) @ X / n
    J_mt[k + 1] = 0.0
    J_mm = -np.eye(K)
    J_mm[k, :k] = np.where(ok, c * drdf, 0.0).mean() * df_dm
    return w, dw_dp * dp, dw_dm, m, g_m, J_mt, J_mm


def unrolled_influence(X, q, c, path, best: int, spec: Reweighting, pen=None, *,
                       shrinkage=0.0) -> np.ndarray:
    """The influence rows (n, p) of the returned iterate (the covariance is their
    ``infl.T @ infl / n**2``): see :func:`unrolled_covariance`."""
    X = np.asarray(X, dtype=float)
    n, p = X.shape
    pen = np.zeros(p) if pen is None else np.asarray(pen, dtype=float)
    return _unrolled(X, q, c, path, best, spec, pen, shrinkage)


def unrolled_covariance(X, q, c, path, best: int, spec: Reweighting, pen=None, *,
                        shrinkage=0.0) -> np.ndarray:
    """The covariance of the returned iterate of the outer loop (``inner="full"``), by
    differentiating every iteration: theta_{k+1} solves the weighted score equation with the
    weights of theta_k, so its influence carries theta_k's and the aggregates' forward.

    ``path`` holds theta_0 (the unweighted fit) ... theta_K; ``best`` the returned index.  At a
    fixed point that the loop converges to, this tends to the stacked sandwich
    (:func:`stacked_covariance`); when the loop stops before the weights settle it is the
    covariance of the estimate actually returned.
    """
    infl = unrolled_influence(X, q, c, path, best, spec, pen, shrinkage=shrinkage)
    return infl.T @ infl / len(infl) ** 2


def _unrolled(X, q, c, path, best, spec, pen, shrinkage):
    n, p = X.shape

    def solve_step(theta_next, w):
        """H^-1 of the weighted score at theta_next and its per-row terms (the ridge's
        data-dependent part included)."""
        pr = np.clip(expit(X @ theta_next), TINY, 1 - TINY)
        H = (X.T * (c * w * pr * (1 - pr))) @ X + np.diag(pen)
        scores = (c * w * (q - pr))[:, None] * X + _ridge_rows(X, c, theta_next, shrinkage)[0]
        return np.linalg.inv(H), scores, q - pr

    # theta_0: the unweighted (penalised) fit
    Hinv, scores, _ = solve_step(path[0], np.ones(n))
    infl = scores @ Hinv.T * n                    # (n, p): theta_0 - theta ~ mean(infl)
    for k in range(best):
        w, dwdeta, dw_dm, m, g_m, J_mt, J_mm = _weights_and_derivatives(X, q, c, path[k], spec)
        # the aggregates' influence at theta_k: dm = -J_mm^-1 (J_mtheta dtheta + g_m)
        J_mm_inv = np.linalg.inv(J_mm)
        infl_m = -(infl @ J_mt.T + g_m) @ J_mm_inv.T                # (n, K)
        Hinv, scores, resid = solve_step(path[k + 1], w)
        base = (c * resid)[:, None] * X                             # d score_i / d w_i
        C = (base.T * dwdeta) @ X / n                               # through p(theta_k)
        D = base.T @ dw_dm / n                                      # through the aggregates
        infl = (scores + infl @ C.T + infl_m @ D.T) @ Hinv.T * n
    return infl

