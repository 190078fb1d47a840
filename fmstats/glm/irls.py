"""Weighted binomial-logit IRLS: the numerical core of the maxent models.

Pure functions on ndarrays.  The response ``y`` is a proportion in [0, 1]
(0/1 labels, probabilistic labels q, or successes/trials), ``weights`` are
R's prior weights.  The log-likelihood maximised is

    l(b) = sum_i w_i [y_i log mu_i + (1 - y_i) log(1 - mu_i)],  mu = expit(X b),

which is the weighted maximum-entropy likelihood of the thesis (ch. 4) for
0/1 labels and its uncertain likelihood (ch. 5) for probabilistic labels.
Each iteration is a Newton (= IRLS, canonical link) step

    b_new = b + (X'WX + R)^{-1} (X' w (y - mu) - R b),   W = diag(w mu (1 - mu)),

with X'WX formed by one BLAS ``syrk`` call, solved by Cholesky, and halved
while the (penalised) deviance increases.  Convergence follows R's
``glm.fit``: |dev - dev_old| / (|dev| + 0.1) < tol.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import linalg
from scipy.linalg import blas
from scipy.special import expit, xlogy

from .._validation import warn as _warn
from ..exceptions import ConvergenceWarning, SeparationWarning

__all__ = ["IrlsFit", "irls_logit", "irls_coef", "irls_evaluate", "binomial_deviance", "gram", "independent_columns"]

_EPS = np.finfo(float).eps
#: Fitted probabilities this close to 0 or 1 signal (quasi-)separation, as in R's glm.fit.
SEPARATION_EPS = 10 * _EPS


@dataclass(frozen=True)
class IrlsFit:
    """The frozen outcome of :func:`irls_logit`.

    Attributes
    ----------
    coef : (p,) coefficients.
    eta, mu : (n,) linear predictor and fitted probabilities.
    working_weights : (n,) ``w * mu * (1 - mu)``, the IRLS weights at the solution.
    xtwx_inv : (p, p) inverse of the (penalised) information X'WX + R at the solution.
    deviance, null_deviance : binomial deviances of the model and of the intercept-only model.
    loglik : the weighted (uncertain) log-likelihood sum w [y log mu + (1-y) log(1-mu)].
    iterations : number of Newton steps taken.
    converged : whether the relative deviance change fell below ``tol``.
    separated : whether fitted probabilities numerically 0 or 1 occurred.
    history : (iterations + 1, 2) array of (deviance, step size) per iteration; row 0 is the start.
    """

    coef: np.ndarray
    eta: np.ndarray
    mu: np.ndarray
    working_weights: np.ndarray
    xtwx_inv: np.ndarray
    deviance: float
    null_deviance: float
    loglik: float
    iterations: int
    converged: bool
    separated: bool
    history: np.ndarray = field(repr=False)
    tol: float = 1e-8
    penalty: np.ndarray | None = field(default=None, repr=False)


#: Rows per block in :func:`gram`: small enough that the scaled block stays in cache-friendly,
#: already-touched memory, large enough that the per-block Python overhead is negligible.
GRAM_BLOCK = 32768


def gram(X: np.ndarray, w: np.ndarray | None = None, block: int = GRAM_BLOCK) -> np.ndarray:
    """X' diag(w) X (w >= 0) by BLAS syrk, accumulated over blocks of rows.

    Each block of sqrt(w) X is written into one reused (block x p) buffer, so the cost in
    memory is O(block p) rather than an n x p temporary (whose first touch alone costs more
    than the arithmetic on large n).  Returned as a full symmetric p x p matrix.
    """
    n, p = X.shape
    syrk = blas.dsyrk if X.dtype == np.float64 else blas.ssyrk
    C = np.zeros((p, p), dtype=X.dtype, order="F")
    sw = None if w is None else np.sqrt(w)
    buf = np.empty((min(block, n), p), dtype=X.dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        rows = X[start:stop]
        if sw is None:
            A = rows
        else:
            A = np.multiply(rows, sw[start:stop, None], out=buf[: stop - start])
        # A.T is F-contiguous (p, rows) when A is C-contiguous: syrk accumulates A.T @ A
        At = A.T if A.flags.c_contiguous else np.asfortranarray(A.T)
        C = syrk(1.0, At, beta=1.0, c=C, trans=0, lower=0, overwrite_c=1)
    return np.triu(C) + np.triu(C, 1).T


def independent_columns(G: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """Which columns to keep, in order, given the Gram matrix G = X'WX.

    Mirrors R's limited-pivoting QR (``dqrdc2``): a column is aliased when the
    norm of its residual after projection on the previously kept columns is
    below ``tol`` times its own norm.  Works on the p x p Gram matrix, so its
    cost does not depend on n.
    """
    p = G.shape[0]
    keep = np.zeros(p, dtype=bool)
    L = np.zeros((p, p))
    k = 0
    idx: list[int] = []
    for j in range(p):
        gjj = G[j, j]
        if gjj <= 0:
            continue
        if k:
            lj = linalg.solve_triangular(L[:k, :k], G[idx, j], lower=True)
            resid = gjj - lj @ lj
        else:
            lj = np.empty(0)
            resid = gjj
        if resid <= (tol ** 2) * gjj:
            continue
        L[k, :k] = lj
        L[k, k] = np.sqrt(resid)
        idx.append(j)
        keep[j] = True
        k += 1
    return keep


def binomial_deviance(y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """2 sum w [y log(y/mu) + (1-y) log((1-y)/(1-mu))], with 0 log 0 = 0."""
    return 2.0 * float(np.dot(w, xlogy(y, y) - xlogy(y, mu) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - mu)))


def _loglik(y, mu, w) -> float:
    return float(np.dot(w, xlogy(y, mu) + xlogy(1 - y, 1 - mu)))


def _probs(eta: np.ndarray) -> np.ndarray:
    # R's binomial()$linkinv clamps at eps to keep the working weights positive.
    return np.clip(expit(eta), _EPS, 1 - _EPS)


def irls_logit(
    X: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    start: np.ndarray | None = None,
    penalty: float | np.ndarray = 0.0,
    tol: float = 1e-8,
    max_iter: int = 25,
    max_halving: int = 30,
    warn: bool = True,
) -> IrlsFit:
    """Fit the weighted binomial logit model by IRLS (Newton's method).

    Parameters
    ----------
    X : (n, p) float array, full column rank (drop aliased columns first).
    y : (n,) proportions in [0, 1].
    weights : (n,) non-negative prior weights (default 1).
    start : (p,) warm-start coefficients; default starts like R at
        mu = (w y + 1/2) / (w + 1).
    penalty : ridge penalty, a scalar or a (p,) vector of per-coefficient
        penalties (use 0 for the intercept); adds ``penalty * b**2 / 2`` to
        the negative log-likelihood.
    tol : tolerance on the relative deviance change (R's ``epsilon``).
    max_iter : maximum number of Newton steps (R's ``maxit``).
    warn : emit :class:`ConvergenceWarning` / :class:`SeparationWarning`.

    Returns
    -------
    IrlsFit
    """
    X = np.asarray(X, dtype=float)
    if not X.flags.c_contiguous:
        X = np.ascontiguousarray(X)
    y = np.asarray(y, dtype=float)
    n, p = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (p,)).copy()
    penalised = bool(np.any(pen > 0))

    coef, eta, mu, dev, it, converged, history = _iterate(
        X, y, w, start, pen, penalised, tol, max_iter, max_halving)
    return _finish(X, y, w, coef, eta, mu, dev, pen if penalised else None, it, converged,
                   history, tol, max_iter, warn)


def _deviance_from_eta(y: np.ndarray, w: np.ndarray):
    """A fast deviance(eta) for fixed y, w.

    For the logit link y log mu + (1 - y) log(1 - mu) = y eta - log(1 + e^eta), so the
    deviance is 2 [sum w (y log y + (1-y) log(1-y)) - sum w (y eta - softplus(eta))]: one
    transcendental per row instead of four, with the saturated term computed once.
    """
    sat = float(np.dot(w, xlogy(y, y) + xlogy(1 - y, 1 - y)))
    wy = w * y

    def deviance(eta: np.ndarray) -> float:
        return 2.0 * (sat - (float(np.dot(wy, eta)) - float(np.dot(w, np.logaddexp(0.0, eta)))))

    return deviance


class _Point:
    """The model evaluated at one coefficient vector (what the Newton loop needs of it)."""

    __slots__ = ("coef", "dev", "eta", "extra")

    def __init__(self, coef, dev, eta=None, extra=None):
        self.coef, self.dev, self.eta, self.extra = coef, dev, eta, extra


class _ArrayProblem:
    """In-memory data of a fit: R's start, evaluations at coefficients, Newton systems.

    :mod:`fmstats.glm.dask` provides the same three methods over a dask array of rows, so
    both run the one Newton loop :func:`_newton_loop` (same start, steps, stopping rule).
    """

    def __init__(self, X, y, w):
        self.X, self.y, self.w = X, y, w
        self.p = X.shape[1]
        self._deviance = _deviance_from_eta(y, w)

    def r_start(self):
        """R's start mu = (w y + 1/2) / (w + 1): its deviance and the weighted least-squares
        system (X'WX, X'(W eta + w (y - mu))) of the first step."""
        X, y, w = self.X, self.y, self.w
        mu0 = (w * y + 0.5) / (w + 1.0)
        eta0 = np.log(mu0 / (1 - mu0))
        dev0 = binomial_deviance(y, mu0, w)
        ww = w * mu0 * (1 - mu0)
        return dev0, gram(X, ww), X.T @ (ww * eta0 + w * (y - mu0))

    def at(self, coef) -> _Point:
        eta = self.X @ coef
        return _Point(coef, self._deviance(eta), eta)

    def newton(self, pt: _Point):
        """(X'WX, X'w(y - mu)) at ``pt``: fresh arrays the caller may modify."""
        X, y, w = self.X, self.y, self.w
        mu = _probs(pt.eta)
        ww = w * mu * (1 - mu)
        return gram(X, ww), X.T @ (w * (y - mu))


def _newton_loop(problem, start, pen, penalised, tol, max_iter, max_halving=30):
    """The Newton/IRLS iterations on ``problem``; returns (point, iterations, converged, history)."""
    p = problem.p

    def objective(dev, b):
        return dev + (float(pen @ (b * b)) if penalised else 0.0)

    converged = False
    if start is None:
        # R's start: the first step is weighted least squares on the working response at
        # mu = (w y + 1/2) / (w + 1), and its deviance is compared with the start's.
        dev0, H, rhs = problem.r_start()
        if penalised:
            H[np.diag_indices(p)] += pen
        coef = linalg.cho_solve(linalg.cho_factor(H, lower=False, check_finite=False), rhs)
        pt = problem.at(coef)
        history = [(dev0, 0.0), (pt.dev, 1.0)]
        it = 1
        converged = abs(pt.dev - dev0) / (abs(pt.dev) + 0.1) < tol
    else:
        coef = np.asarray(start, dtype=float).copy()
        if coef.shape != (p,):
            raise ValueError(f"start must have shape ({p},); got {coef.shape}")
        pt = problem.at(coef)
        history = [(pt.dev, 0.0)]
        it = 0

    obj = objective(pt.dev, pt.coef)
    while not converged and it < max_iter:
        H, score = problem.newton(pt)
        if penalised:
            H[np.diag_indices(p)] += pen
            score -= pen * pt.coef
        try:
            step = linalg.cho_solve(linalg.cho_factor(H, lower=False, check_finite=False), score)
        except linalg.LinAlgError:
            step = linalg.lstsq(H, score)[0]
        t = 1.0
        for _ in range(max_halving + 1):
            new = pt.coef + t * step
            cand = problem.at(new)
            obj_new = objective(cand.dev, new)
            if np.isfinite(obj_new) and obj_new <= obj * (1 + 1e-12) + 1e-12:
                break
            t *= 0.5
        else:
            # no decrease along the Newton direction: we are at the optimum to machine precision
            it += 1
            history.append((pt.dev, 0.0))
            converged = True
            break
        it += 1
        change = abs(obj_new - obj) / (abs(obj_new) + 0.1)
        pt, obj = cand, obj_new
        history.append((pt.dev, t))
        if change < tol:
            converged = True
            break

    return pt, it, converged, history


def _iterate(X, y, w, start, pen, penalised, tol, max_iter, max_halving=30):
    """The Newton/IRLS iterations; returns (coef, eta, mu, dev, iterations, converged, history)."""
    pt, it, converged, history = _newton_loop(_ArrayProblem(X, y, w), start, pen, penalised,
                                              tol, max_iter, max_halving)
    return pt.coef, pt.eta, _probs(pt.eta), pt.dev, it, converged, history


def irls_coef(X: np.ndarray, y: np.ndarray, weights: np.ndarray, start: np.ndarray, *,
              penalty: np.ndarray | None = None, tol: float = 1e-8, max_iter: int = 25
              ) -> np.ndarray:
    """Coefficients only: the IRLS iterations of :func:`irls_logit` without the final
    covariance, null deviance, separation check or warnings (for inner loops that refit
    many times; the caller validates its inputs)."""
    p = X.shape[1]
    pen = np.zeros(p) if penalty is None else penalty
    return _iterate(X, y, weights, start, pen, bool(np.any(pen > 0)), tol, max_iter)[0]


def irls_evaluate(X: np.ndarray, y: np.ndarray, weights: np.ndarray, coef: np.ndarray, *,
                  penalty: float | np.ndarray = 0.0) -> IrlsFit:
    """An :class:`IrlsFit` at given coefficients, without iterating.

    Used where coefficients come from elsewhere (e.g. the outer loop of the
    F-measure maximiser) but the fit's covariance, deviance and working weights
    are needed.  ``iterations`` is 0 and ``converged`` True.
    """
    X = np.ascontiguousarray(np.asarray(X, dtype=float))
    y = np.asarray(y, dtype=float)
    w = np.asarray(weights, dtype=float)
    coef = np.asarray(coef, dtype=float).copy()
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (X.shape[1],)).copy()
    eta = X @ coef
    mu = _probs(eta)
    dev = binomial_deviance(y, mu, w)
    return _finish(X, y, w, coef, eta, mu, dev, pen if np.any(pen > 0) else None, 0, True,
                   [(dev, 0.0)], 0.0, 0, False)


def _finish(X, y, w, coef, eta, mu, dev, pen, it, converged, history, tol, max_iter,
            warn) -> IrlsFit:
    """Covariance, separation check and warnings at the final coefficients."""
    ww = w * mu * (1 - mu)
    xtwx_inv = information_inverse(gram(X, ww), pen)
    active = w > 0
    mu_raw = expit(eta)
    n_sep = int(np.count_nonzero(active & ((mu_raw > 1 - SEPARATION_EPS) | (mu_raw < SEPARATION_EPS))))
    separated = n_sep > 0
    null_dev = null_deviance(X, y, w)
    if warn:
        warn_fit(converged, separated, n_sep, it, tol, max_iter)
    return IrlsFit(
        coef=coef,
        eta=eta,
        mu=mu,
        working_weights=ww,
        xtwx_inv=xtwx_inv,
        deviance=float(dev),
        null_deviance=float(null_dev),
        loglik=_loglik(y, mu, w),
        iterations=int(it),
        converged=bool(converged),
        separated=separated,
        history=np.asarray(history, dtype=float),
        tol=float(tol),
        penalty=pen,
    )


def has_intercept(X: np.ndarray) -> bool:
    """Whether the column space of X contains the constant (checked on a column of ones)."""
    if X.shape[0] == 0:
        return False
    return any(bool(np.all(X[:, j] == 1.0)) for j in np.flatnonzero(X[0] == 1.0))


def null_deviance(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Deviance of the intercept-only model (weighted mean), or of mu = 1/2 without intercept."""
    if has_intercept(X):
        mu0 = float(np.dot(w, y) / np.sum(w))
    else:
        mu0 = 0.5
    return binomial_deviance(y, np.full_like(y, mu0), w)


def information_inverse(H: np.ndarray, pen: np.ndarray | None) -> np.ndarray:
    """(H + diag(pen))^{-1} by Cholesky (pseudo-inverse if H is not positive definite)."""
    if pen is not None:
        H = H.copy()
        H[np.diag_indices(H.shape[0])] += pen
    try:
        return linalg.cho_solve(linalg.cho_factor(H, check_finite=False), np.eye(H.shape[0]))
    except linalg.LinAlgError:
        return linalg.pinvh(H)


def warn_fit(converged: bool, separated: bool, n_separated: int, iterations: int, tol: float,
             max_iter: int) -> None:
    """The :class:`ConvergenceWarning` / :class:`SeparationWarning` of a finished fit."""
    if not converged and not separated:
        _warn(
            f"IRLS did not converge in {max_iter} iterations (last relative deviance "
            f"change above tol={tol:g}). Increase `max_iter`, check for separation, or "
            "add a ridge penalty (`penalty=`).",
            ConvergenceWarning,
        )
    if separated:
        _warn(
            f"fitted probabilities numerically 0 or 1 occurred for {n_separated} row(s)"
            + ("" if converged else f" and IRLS stopped unconverged after {iterations} iterations")
            + ": the data are "
            "(quasi-)separated, so some coefficients drift towards infinity and their standard "
            "errors are meaningless. Consider a ridge penalty (`penalty=`), removing the "
            "separating predictor, or merging sparse factor levels.",
            SeparationWarning,
        )
