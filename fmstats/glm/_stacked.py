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

Every quantity is a sum over rows of per-row terms, so each is computed as passes over row
blocks: a function ``sums(fn, **kwargs)`` adds the vectors ``fn(X, q, c, **kwargs)`` of every
block (:func:`direct_sums` for rows in memory, one block; a Dask row source's ``sums`` out of
core).  The same code serves both, so an out-of-core fit's covariance equals the in-memory one
up to the order of the floating-point sums.  The unrolled covariance's recursion is linear in
the influence rows with coefficients that are sums over all rows (:class:`UnrolledPlan`): three
passes find them, a fourth computes each block's influence rows and their cross-products.

Pure functions on arrays (the model layer calls them); see ``docs/inference.rst`` for
the derivation and its limits.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._fweights import TINY, smooth_g1, smooth_g2

__all__ = ["Reweighting", "StackedCov", "stacked_covariance", "estimating_equations",
           "stacked_terms", "aggregates", "fixed_point_gap", "unrolled_covariance",
           "unrolled_influence", "direct_sums", "path_aggregates", "stacked_covariance_sums",
           "UnrolledPlan", "unrolled_plan", "influence_rows", "unrolled_covariance_sums"]


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
def _count_rows(spec: Reweighting, q, p, c):
    """Per-row terms of the count aggregates (n, k) and their derivatives in p (n, k)."""
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
        h = np.column_stack([c * (p - smooth_g1(d, eps)), c * ((1 - q) - smooth_g2(d, eps)),
                             c * (1 - q),
                             c * q])
        dh = np.column_stack([c * (1 - np.clip((d + eps) / eps, 0, 1)),
                              -c * np.clip(d / eps, 0, 1), np.zeros_like(c), np.zeros_like(c)])
    return h, dh


def _f_of(m, a):
    """(F, dF/dm) of means m of the terms of :func:`_count_rows` (3 of them: F = m1 /
    (alpha m2 + (1 - alpha) m3); 4, the smoothed counts of section 7.2)."""
    if len(m) == 3:
        den = a * m[1] + (1 - a) * m[2]
        return m[0] / den, np.array([1 / den, -a * m[0] / den ** 2, -(1 - a) * m[0] / den ** 2])
    den = a * (m[0] - m[1]) + a * m[2] + (1 - a) * m[3]
    return m[0] / den, np.array([(den - a * m[0]) / den ** 2, a * m[0] / den ** 2,
                                 -a * m[0] / den ** 2, -(1 - a) * m[0] / den ** 2])


# ----------------------------------------------------------------------------- row blocks
def _aligned(X, q, c):
    """A block's rows as aligned float arrays, count weights 1 when not given (arrays
    gathered from Dask workers may arrive unaligned)."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    q = np.asarray(q, dtype=float).reshape(-1)
    c = np.ones(len(q)) if c is None else np.asarray(c, dtype=float).reshape(-1)
    return X, q, c


def direct_sums(X, q, c):
    """``sums`` of rows held in memory: ``sums(fn, **kw)`` is ``fn(X, q, c, **kw)``, the
    one block's vector (out of core, :meth:`fmstats.glm.DaskSource.sums` adds the
    vectors of every row block).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    q : ndarray of shape (n,)
        The response in [0, 1].
    c : ndarray of shape (n,)
        The count weights.

    Returns
    -------
    callable
        ``sums(fn, **kw)``, as a row source's ``sums``.
    """
    return lambda fn, **kw: np.asarray(fn(X, q, c, **kw), dtype=float)


def _probabilities(X, theta):
    return np.clip(expit(X @ theta), TINY, 1 - TINY)


@dataclass(frozen=True)
class _Terms:
    """The per-row terms of the reweighting at (theta, m) on a block of rows."""

    pr: np.ndarray       # fitted probabilities
    h: np.ndarray        # count terms (n, k)
    dh: np.ndarray       # their derivatives in p
    df_dm: np.ndarray    # dF / d(count means)
    r: np.ndarray        # raw F-weights and their derivatives in p and F
    drdp: np.ndarray
    drdf: np.ndarray
    ok: np.ndarray       # rows with a finite raw weight and a positive count weight
    w: np.ndarray        # the mean-1 clipped F-weights
    dw_dp: np.ndarray    # dw / dp, dF, ds (0 where clipped)
    dw_df: np.ndarray
    dw_ds: np.ndarray


def _terms(X, q, c, theta, m, spec: Reweighting, frozen_w=None) -> _Terms:
    pr = _probabilities(X, theta)
    h, dh = _count_rows(spec, q, pr, c)
    k = h.shape[1]
    f, df_dm = _f_of(m[:k], spec.alpha)
    r, drdp, drdf = raw_weights(spec, q, pr, f)
    ok = np.isfinite(r) & (c > 0)
    s = m[k] / m[k + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        w_raw = np.where(ok, r / s, np.inf)
    if spec.bounds is not None:
        w = np.clip(w_raw, spec.bounds[0], spec.bounds[1])
        free = ok & (w_raw > spec.bounds[0]) & (w_raw < spec.bounds[1])
    else:
        w, free = w_raw, ok
    if frozen_w is not None:
        w, free = frozen_w, np.zeros(len(q), dtype=bool)
    return _Terms(pr=pr, h=h, dh=dh, df_dm=df_dm, r=r, drdp=drdp, drdf=drdf, ok=ok, w=w,
                  dw_dp=np.where(free, drdp / s, 0.0), dw_df=np.where(free, drdf / s, 0.0),
                  dw_ds=np.where(free, -w / s, 0.0))


def _aggregate_rows(t: _Terms, c, m) -> np.ndarray:
    """Per-row terms (n, K) of the aggregates' equations G_m: counts, then the scale's
    numerator and denominator, each minus its mean m."""
    k = t.h.shape[1]
    return np.column_stack([t.h - m[:k], np.where(t.ok, c * np.where(t.ok, t.r, 0.0), 0.0)
                            - m[k], np.where(t.ok, c, 0.0) - m[k + 1]])


def _dw_dm(t: _Terms, m) -> np.ndarray:
    """dw / dm (n, K): through F (the counts) and through the scale s = m_r / m_c."""
    k = t.h.shape[1]
    out = np.empty((len(t.w), k + 2))
    out[:, :k] = t.dw_df[:, None] * t.df_dm[None, :]
    out[:, k] = t.dw_ds / m[k + 1]
    out[:, k + 1] = t.dw_ds * (-m[k] / m[k + 1] ** 2)
    return out


def _count_weighted(c, w):
    """c w, 0 where c is 0 (whose F-weight may be infinite)."""
    return np.where(c > 0, c * w, 0.0)


@dataclass(frozen=True)
class _Point:
    """Everything of the stacked equations at (theta, m) on given rows."""

    g: np.ndarray        # (n, p + K) per-row terms (ridge excluded)
    G: np.ndarray        # (p + K,) the stacked equations (ridge included)
    J: np.ndarray        # (p + K, p + K) their Jacobian
    m: np.ndarray        # the aggregates


def _ridge_rows(X, c, theta, shrinkage, xbar):
    """Per-row terms of the standardised ridge's gradient, -shrinkage c_i (x_i - xbar)^2 theta
    (their sum is the penalty's gradient; the weighted mean xbar of all rows is where their
    sum is stationary, so its own variation does not enter to first order), and their sum's
    derivative's size shrinkage sum c (x - xbar)^2 (the ridge's data-dependent part)."""
    if not shrinkage:
        return 0.0, np.zeros(X.shape[1])
    dev2 = c[:, None] * (X - xbar) ** 2
    return -shrinkage * dev2 * theta, shrinkage * dev2.sum(axis=0)


def _equation_sums(X, q, c, theta, m, spec: Reweighting, xbar, shrinkage, frozen_w=None):
    """(g, sum of g, sum of the Jacobian's row terms, the ridge's data part) of the stacked
    equations at (theta, m) on a block of rows: g the per-row terms (ridge rows included);
    the Jacobian's constant parts (the fixed ridge, the aggregates' -1) are added by
    :func:`_finish` once the blocks are summed."""
    n, p = X.shape
    t = _terms(X, q, c, theta, m, spec, frozen_w)
    k = t.h.shape[1]
    K = k + 2
    dp = t.pr * (1 - t.pr)
    resid = q - t.pr
    cw = _count_weighted(c, t.w)
    ridge_rows, data_pen = _ridge_rows(X, c, theta, shrinkage, xbar)
    g = np.empty((n, p + K))
    g[:, :p] = (cw * resid)[:, None] * X + ridge_rows
    g[:, p:] = _aggregate_rows(t, c, m)
    J = np.zeros((p + K, p + K))
    # theta rows: through p directly and through the weights (aggregates fixed) ...
    J[:p, :p] = (X.T * ((c * resid * t.dw_dp - cw) * dp)) @ X
    # ... and through F and the scale s = m_r / m_c
    base = (c * resid)[:, None] * X                 # d score_i / d w_i
    dscore_ds = base.T @ t.dw_ds
    J[:p, p:p + k] = np.outer(base.T @ t.dw_df, t.df_dm)
    J[:p, p + k] = dscore_ds / m[k + 1]
    J[:p, p + k + 1] = dscore_ds * (-m[k] / m[k + 1] ** 2)
    # aggregate rows
    J[p:p + k, :p] = (t.dh * dp[:, None]).T @ X
    J[p + k, :p] = (np.where(t.ok, c * t.drdp, 0.0) * dp) @ X
    J[p + k, p:p + k] = np.where(t.ok, c * t.drdf, 0.0).sum() * t.df_dm
    return g, g.sum(axis=0), J, data_pen


def _finish(G_sum, J_sum, data_pen, theta, pen, n: int):
    """(G, J) from the sums over all rows: means, plus the ridge's fixed part and the
    aggregates' own -1."""
    p = len(theta)
    G = G_sum / n
    G[:p] -= (pen - data_pen) * theta / n            # the ridge's fixed part (not per row)
    J = J_sum / n
    J[:p, :p][np.diag_indices(p)] -= pen / n
    J[p:, p:][np.diag_indices(J.shape[0] - p)] -= 1.0
    return G, J


def _evaluate(X, q, c, theta, m, spec: Reweighting, pen, frozen_w=None, shrinkage=0.0) -> _Point:
    """The stacked equations, per-row terms and analytic Jacobian at (theta, m) of rows in
    memory.  ``pen`` is the whole ridge; ``shrinkage`` its data-dependent part
    (``standardised_ridge``), whose per-row terms enter the meat."""
    xbar = (c @ X) / c.sum()
    g, G_sum, J_sum, data_pen = _equation_sums(X, q, c, theta, m, spec, xbar, shrinkage, frozen_w)
    G, J = _finish(G_sum, J_sum, data_pen, theta, pen, X.shape[0])
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


def _count_block(X, q, c, thetas, spec):
    """sum c, sum c x, then the sums of the count terms at each theta (pass 1 of the
    aggregates)."""
    X, q, c = _aligned(X, q, c)
    out = [[c.sum()], c @ X]
    out += [_count_rows(spec, q, _probabilities(X, t), c)[0].sum(axis=0) for t in thetas]
    return np.concatenate(out)


def _scale_block(X, q, c, thetas, fs, spec):
    """The sums of the scale's numerator c r and denominator c over the rows with a finite
    raw weight, at each (theta, F) (pass 2 of the aggregates)."""
    X, q, c = _aligned(X, q, c)
    out = []
    for t, f in zip(thetas, fs):
        r = raw_weights(spec, q, _probabilities(X, t), f)[0]
        ok = np.isfinite(r) & (c > 0)
        out += [np.where(ok, c * np.where(ok, r, 0.0), 0.0).sum(), np.where(ok, c, 0.0).sum()]
    return np.asarray(out, dtype=float)


def path_aggregates(sums, n: int, thetas, spec: Reweighting):
    """(the count-weighted column means, the aggregates (len(thetas), K) at each theta) in two
    passes over the rows (``sums``: :func:`direct_sums` or a row source's ``sums``)."""
    thetas = np.asarray(thetas, dtype=float)
    p = thetas.shape[1]
    v = sums(_count_block, thetas=thetas, spec=spec)
    xbar = v[1:p + 1] / v[0]
    if len(thetas) == 0:
        return xbar, np.empty((0, 0))
    counts = v[p + 1:].reshape(len(thetas), -1) / n
    fs = np.array([_f_of(mc, spec.alpha)[0] for mc in counts])
    scale = sums(_scale_block, thetas=thetas, fs=fs, spec=spec).reshape(len(thetas), 2) / n
    return xbar, np.column_stack([counts, scale])


def aggregates(X, q, c, theta, spec: Reweighting) -> np.ndarray:
    """The aggregates m solving G_m = 0 at theta (the counts, then the weights' scale)."""
    X = np.asarray(X, dtype=float)
    return path_aggregates(direct_sums(X, q, c), X.shape[0], [theta], spec)[1][0]


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


def _stacked_block(X, q, c, theta, m, spec, xbar, shrinkage):
    """The sums of the stacked equations, their Jacobian, the meat g'g and the ridge's data
    part on a block of rows."""
    X, q, c = _aligned(X, q, c)
    g, G_sum, J_sum, data_pen = _equation_sums(X, q, c, theta, m, spec, xbar, shrinkage)
    return np.concatenate([G_sum, J_sum.ravel(), (g.T @ g).ravel(), data_pen])


def stacked_covariance_sums(sums, n: int, theta, spec: Reweighting, pen=None, *,
                            shrinkage=0.0) -> StackedCov:
    """:func:`stacked_covariance` from sums over row blocks (``sums``: :func:`direct_sums`,
    or a row source's ``sums`` out of core): three passes over the rows.

    Parameters
    ----------
    sums : callable
        :func:`direct_sums`, or a row source's ``sums`` out of core.
    n : int
        The number of rows.
    theta : ndarray of shape (p,)
        The coefficients.
    spec : Reweighting
        How the fit computes its F-weights.
    pen : ndarray of shape (p,), optional
        The per-coefficient ridge.
    shrinkage : float, default 0.0
        The standardised ridge per observation.

    Returns
    -------
    StackedCov
        The stacked sandwich.
    """
    theta = np.asarray(theta, dtype=float)
    p = len(theta)
    pen = np.zeros(p) if pen is None else np.asarray(pen, dtype=float)
    xbar, ms = path_aggregates(sums, n, [theta], spec)
    m = ms[0]
    d = p + len(m)
    v = sums(_stacked_block, theta=theta, m=m, spec=spec, xbar=xbar, shrinkage=shrinkage)
    G, J = _finish(v[:d], v[d:d + d * d].reshape(d, d), v[d + 2 * d * d:], theta, pen, n)
    B = v[d + d * d:d + 2 * d * d].reshape(d, d) / n
    Jinv = np.linalg.inv(J)
    full = Jinv @ B @ Jinv.T / n
    return StackedCov(cov=full[:p, :p], full=full, step=-(Jinv @ G)[:p])


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
    if frozen_weights is None:
        return stacked_covariance_sums(direct_sums(X, q, c), n, theta, spec, pen,
                                       shrinkage=shrinkage)
    m = aggregates(X, q, c, theta, spec)
    pt = _evaluate(X, q, c, theta, m, spec, pen, frozen_w=frozen_weights, shrinkage=shrinkage)
    B = pt.g.T @ pt.g / n
    bread = np.linalg.inv(pt.J[:p, :p])              # the aggregates do not feed theta
    cov = bread @ B[:p, :p] @ bread.T / n
    return StackedCov(cov=cov, full=cov, step=np.zeros(p))


def fixed_point_gap(result: StackedCov) -> np.ndarray:
    """The size of the Newton step to the fixed point over the standard error, per
    coefficient.

    Parameters
    ----------
    result : StackedCov
        The stacked sandwich of a fit.

    Returns
    -------
    ndarray of shape (p,)
        ``|step| / SE`` per coefficient (inf where the SE is 0).
    """
    se = result.se
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, np.abs(result.step) / se, np.inf)


# ----------------------------------------------------------------------------- the iterations
@dataclass(frozen=True)
class UnrolledPlan:
    """What the influence row of each row needs besides the row itself: the coefficient path
    and, per outer iteration, matrices that are sums over all rows (:func:`unrolled_plan`).

    The recursion of :func:`unrolled_covariance` is linear in the influence rows with
    coefficients that do not depend on them, so once these matrices are known every block of
    rows computes its own influence rows (:func:`influence_rows`) in one pass.
    """

    path: np.ndarray         # theta_0 ... theta_best
    aggregates: np.ndarray   # (best, K) the aggregates at theta_0 ... theta_{best-1}
    xbar: np.ndarray         # the count-weighted column means (the shrinkage's ridge rows)
    spec: Reweighting
    shrinkage: float
    n: int
    Hinv: np.ndarray         # (best + 1, p, p) inverse Hessians of the weighted fits
    J_mt: np.ndarray         # (best, K, p) dG_m / dtheta
    J_mm_inv: np.ndarray     # (best, K, K) (dG_m / dm)^-1
    C: np.ndarray            # (best, p, p) the next score's derivative through p(theta_k)
    D: np.ndarray            # (best, p, K) ... through the aggregates

    @property
    def best(self) -> int:
        return len(self.path) - 1


def _unrolled_block(X, q, c, path, ms, spec):
    """H_0, then per outer iteration k: the sums of J_mtheta (K x p), of c dr/dF (J_mm's
    row), H_{k+1}, C_k and D_k on a block of rows (pass 3 of :func:`unrolled_plan`)."""
    X, q, c = _aligned(X, q, c)
    pr = _probabilities(X, path[0])
    out = [((X.T * (c * pr * (1 - pr))) @ X).ravel()]
    for k, m in enumerate(ms):
        t = _terms(X, q, c, path[k], m, spec)
        dp = t.pr * (1 - t.pr)
        J_mt = np.vstack([(t.dh * dp[:, None]).T @ X,
                          (np.where(t.ok, c * t.drdp, 0.0) * dp) @ X, np.zeros(X.shape[1])])
        pr = _probabilities(X, path[k + 1])
        base = (c * (q - pr))[:, None] * X                          # d score_i / d w_i
        out += [J_mt.ravel(), [np.where(t.ok, c * t.drdf, 0.0).sum()],
                ((X.T * (_count_weighted(c, t.w) * pr * (1 - pr))) @ X).ravel(),
                ((base.T * (t.dw_dp * dp)) @ X).ravel(), (base.T @ _dw_dm(t, m)).ravel()]
    return np.concatenate(out)


def unrolled_plan(sums, n: int, path, best: int, spec: Reweighting, pen=None, *,
                  shrinkage=0.0) -> UnrolledPlan:
    """The sums behind the influence rows of the returned iterate ``best`` of the outer loop
    (:func:`unrolled_covariance`), in three passes over the rows (``sums``:
    :func:`direct_sums`, or a row source's ``sums`` out of core; ``n`` the number of rows).

    Parameters
    ----------
    sums : callable
        :func:`direct_sums`, or a row source's ``sums`` out of core.
    n : int
        The number of rows.
    path : ndarray of shape (K + 1, p)
        The outer loop's iterates theta_0 ... theta_K.
    best : int
        The index of the returned iterate.
    spec : Reweighting
        How the fit computes its F-weights.
    pen : ndarray of shape (p,), optional
        The per-coefficient ridge.
    shrinkage : float, default 0.0
        The standardised ridge per observation.

    Returns
    -------
    UnrolledPlan
        The sums behind the influence rows.
    """
    path = np.asarray(path, dtype=float)[:best + 1]
    p = path.shape[1]
    pen = np.zeros(p) if pen is None else np.asarray(pen, dtype=float)
    xbar, ms = path_aggregates(sums, n, path[:best], spec)
    K = ms.shape[1] if best else 0
    v = sums(_unrolled_block, path=path, ms=ms, spec=spec)
    sizes = [K * p, 1, p * p, p * p, p * K]
    Hinv = [np.linalg.inv(v[:p * p].reshape(p, p) + np.diag(pen))]
    J_mt, J_mm_inv, C, D = [], [], [], []
    at = p * p
    for k in range(best):
        jmt, jmm, H, Ck, Dk = np.split(v[at:at + sum(sizes)], np.cumsum(sizes)[:-1])
        at += sum(sizes)
        J_mm = -np.eye(K)
        J_mm[K - 2, :K - 2] = jmm[0] / n * _f_of(ms[k][:K - 2], spec.alpha)[1]
        J_mt.append(jmt.reshape(K, p) / n)
        J_mm_inv.append(np.linalg.inv(J_mm))
        Hinv.append(np.linalg.inv(H.reshape(p, p) + np.diag(pen)))
        C.append(Ck.reshape(p, p) / n)
        D.append(Dk.reshape(p, K) / n)
    stack = (lambda a, shape: np.array(a) if a else np.empty((0,) + shape))
    return UnrolledPlan(path=path, aggregates=ms, xbar=xbar, spec=spec,
                        shrinkage=float(shrinkage), n=int(n), Hinv=np.array(Hinv),
                        J_mt=stack(J_mt, (K, p)), J_mm_inv=stack(J_mm_inv, (K, K)),
                        C=stack(C, (p, p)), D=stack(D, (p, K)))


def influence_rows(X, q, c, plan: UnrolledPlan) -> np.ndarray:
    """The influence rows (n_block, p) of a block of rows: theta_0's from its weighted score,
    then carried through every outer iteration with the plan's matrices.

    Parameters
    ----------
    X : ndarray of shape (n_block, p)
        The block's design.
    q : ndarray of shape (n_block,)
        The block's response in [0, 1].
    c : ndarray of shape (n_block,)
        The block's count weights.
    plan : UnrolledPlan
        The sums over all rows (:func:`unrolled_plan`).

    Returns
    -------
    ndarray of shape (n_block, p)
        The influence rows.
    """
    X, q, c = _aligned(X, q, c)
    path, n = plan.path, plan.n

    def scores(theta, cw):
        resid = q - _probabilities(X, theta)
        return (cw * resid)[:, None] * X + _ridge_rows(X, c, theta, plan.shrinkage, plan.xbar)[0]

    infl = scores(path[0], c) @ plan.Hinv[0].T * n   # theta_0 - theta ~ mean(infl)
    for k in range(plan.best):
        m = plan.aggregates[k]
        t = _terms(X, q, c, path[k], m, plan.spec)
        # the aggregates' influence at theta_k: dm = -J_mm^-1 (J_mtheta dtheta + g_m)
        infl_m = -(infl @ plan.J_mt[k].T + _aggregate_rows(t, c, m)) @ plan.J_mm_inv[k].T
        infl = ((scores(path[k + 1], _count_weighted(c, t.w)) + infl @ plan.C[k].T
                 + infl_m @ plan.D[k].T) @ plan.Hinv[k + 1].T * n)
    return infl


def _influence_gram_block(X, q, c, plan):
    infl = influence_rows(X, q, c, plan)
    return (infl.T @ infl).ravel()


def unrolled_covariance_sums(sums, n: int, path, best: int, spec: Reweighting, pen=None, *,
                             shrinkage=0.0) -> np.ndarray:
    """:func:`unrolled_covariance` from sums over row blocks: the plan's three passes, then
    one for sum psi psi'.

    Parameters
    ----------
    sums : callable
        :func:`direct_sums`, or a row source's ``sums`` out of core.
    n : int
        The number of rows.
    path : ndarray of shape (K + 1, p)
        The outer loop's iterates theta_0 ... theta_K.
    best : int
        The index of the returned iterate.
    spec : Reweighting
        How the fit computes its F-weights.
    pen : ndarray of shape (p,), optional
        The per-coefficient ridge.
    shrinkage : float, default 0.0
        The standardised ridge per observation.

    Returns
    -------
    ndarray of shape (p, p)
        The covariance of the returned iterate.
    """
    plan = unrolled_plan(sums, n, path, best, spec, pen, shrinkage=shrinkage)
    p = plan.path.shape[1]
    return sums(_influence_gram_block, plan=plan).reshape(p, p) / n ** 2


def unrolled_influence(X, q, c, path, best: int, spec: Reweighting, pen=None, *,
                       shrinkage=0.0) -> np.ndarray:
    """The influence rows (n, p) of the returned iterate (the covariance is their
    ``infl.T @ infl / n**2``): see :func:`unrolled_covariance`.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    q : ndarray of shape (n,)
        The response in [0, 1].
    c : ndarray of shape (n,)
        The count weights.
    path : ndarray of shape (K + 1, p)
        The outer loop's iterates theta_0 ... theta_K.
    best : int
        The index of the returned iterate.
    spec : Reweighting
        How the fit computes its F-weights.
    pen : ndarray of shape (p,), optional
        The per-coefficient ridge.
    shrinkage : float, default 0.0
        The standardised ridge per observation.

    Returns
    -------
    ndarray of shape (n, p)
        The influence rows.
    """
    X = np.asarray(X, dtype=float)
    plan = unrolled_plan(direct_sums(X, q, c), X.shape[0], path, best, spec, pen,
                         shrinkage=shrinkage)
    return influence_rows(X, q, c, plan)


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
