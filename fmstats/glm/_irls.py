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
``glm.fit``: ``|dev - dev_old| / (|dev| + 0.1 s) < tol``, with s = 1 (R's rule) unless the
mean weight of the active rows is below 1, when s is that mean: the deviance scales with the
weights, and R's absolute 0.1 would stop a fit with weights of 1e-300 after one step (all
weights times c then give the same iterations for every c <= 1).

A scipy.sparse design (CSR/CSC, e.g. one-hot columns from scikit-learn's ``OneHotEncoder``)
stays sparse: X'WX is accumulated as a sparse product (its p x p result is dense), X b and
X'r are sparse products, and badly scaled columns are rescaled without densifying (they are
not centred: centring would fill every zero).  Hat values (R's ``hatvalues``, used by HC2/HC3
and ``influence``) are computed in blocks of rows, densifying one block at a time.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy import linalg, sparse
from scipy.special import expit, xlogy

from ..exceptions import DesignError, WeightsError
# the Gram matrix, aliasing and column scaling: their own module, re-exported here (the other
# cores and the old path fmstats.glm.irls import them with the IRLS names)
from ._gram import (GRAM_BLOCK, SPREAD_RANGE, ColumnScaling, column_scaling,  # noqa: F401
                    column_spread, gram, has_intercept, independent_columns, intercept_index,
                    rank_gram)
from ._separation import NEWTON_REACH, newton_reach, warn_fit, zero_count_cells
from ._separation import separated as no_finite_maximum

__all__ = ["IrlsFit", "irls_logit", "as_design", "irls_coef", "irls_evaluate",
           "binomial_deviance", "gram", "independent_columns", "ColumnScaling", "column_scaling", "rank_gram",
           "MAX_WEIGHT", "SPREAD_RANGE", "column_spread", "check_weights_range", "r_start_mu",
           "deviance_from_eta", "weighted_loglik", "unscale_fit", "deviance_scale",
           "newton_iterate", "has_intercept", "logit_probs"]

_EPS = np.finfo(float).eps
#: Fitted probabilities this close to 0 or 1 signal (quasi-)separation, as in R's glm.fit.
SEPARATION_EPS = 10 * _EPS


@dataclass(frozen=True)
class IrlsFit:
    """The frozen outcome of :func:`irls_logit`.

    Parameters
    ----------
    coef : ndarray of shape (p,)
        The coefficients.
    eta, mu : ndarray of shape (n,)
        The linear predictor and the fitted probabilities.
    working_weights : ndarray of shape (n,)
        ``w * mu * (1 - mu)``, the IRLS weights at the solution.
    xtwx_inv : ndarray of shape (p, p)
        The inverse of the (penalised) information X'WX + R at the solution.
    deviance, null_deviance : float
        The binomial deviances of the model and of the intercept-only model.
    loglik : float
        The weighted (uncertain) log-likelihood sum w [y log mu + (1-y) log(1-mu)].
    iterations : int
        The number of Newton steps taken.
    converged : bool
        Whether the relative deviance change fell below ``tol``.
    separated : bool
        Whether fitted probabilities numerically 0 or 1 occurred (R's rule), or the
        likelihood has no finite maximum (unpenalised fits; :func:`no_finite_mle`).
    history : ndarray of shape (iterations + 1, 2)
        (deviance, step size) per iteration; row 0 is the start.
    tol : float, default 1e-8
        The tolerance the fit used.
    penalty : ndarray of shape (p,), optional
        The ridge penalty the fit used (None: none).
    scaling : ColumnScaling, optional
        The reparametrisation the fit was computed in (offset or badly scaled columns);
        None when X was used as given.
    xtwx_inv_scaled : ndarray of shape (p, p), optional
        The inverse information in the coordinates of ``scaling``.
    separation : str, default ""
        How separation was found: ``""`` (it was not), ``"fitted"`` (fitted probabilities
        numerically 0 or 1, R's rule) or ``"no finite MLE"`` (the Newton step at the
        stopping point and Konis's linear programme).
    n_separated : int, default 0
        Rows with fitted probability numerically 0 or 1, or fitted perfectly along the
        direction of separation.
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
    #: the reparametrisation the fit was computed in (offset or badly scaled columns), with
    #: the inverse information in its coordinates; None when X was used as given
    scaling: "ColumnScaling | None" = field(default=None, repr=False)
    xtwx_inv_scaled: np.ndarray | None = field(default=None, repr=False)
    separation: str = ""
    n_separated: int = 0

    def _bread(self, X: np.ndarray):
        """(design, inverse information) in the coordinates the fit was computed in: for an
        offset column x'(X'WX)^-1 x cancels catastrophically in the original coordinates."""
        if self.scaling is None:
            return X, self.xtwx_inv
        return self.scaling.transform(X), self.xtwx_inv_scaled

    def leverage(self, X: np.ndarray) -> np.ndarray:
        """Diagonal of the weighted hat matrix W^1/2 X (X'WX)^-1 X' W^1/2 (R's hatvalues).

        Parameters
        ----------
        X : ndarray or scipy.sparse matrix of shape (n, p)
            The design the fit was computed on.

        Returns
        -------
        ndarray of shape (n,)
            The leverages.
        """
        Xs, V = self._bread(X)
        if not sparse.issparse(Xs):
            return self.working_weights * np.einsum("ij,ij->i", Xs @ V, Xs)
        Xs = Xs.tocsr()
        out = np.empty(Xs.shape[0])
        for a in range(0, Xs.shape[0], GRAM_BLOCK):      # one dense block at a time
            B = Xs[a:a + GRAM_BLOCK].toarray()
            out[a:a + GRAM_BLOCK] = np.einsum("ij,ij->i", B @ V, B)
        return self.working_weights * out

    def sandwich(self, X: np.ndarray, e2: np.ndarray) -> np.ndarray:
        """(X'WX)^-1 X' diag(e2) X (X'WX)^-1, computed in the fit's coordinates.

        Parameters
        ----------
        X : ndarray or scipy.sparse matrix of shape (n, p)
            The design the fit was computed on.
        e2 : ndarray of shape (n,)
            The middle weights (squared working residuals times the working weights for HC0).

        Returns
        -------
        ndarray of shape (p, p)
            The sandwich covariance, in the original coordinates.
        """
        Xs, V = self._bread(X)
        cov = V @ gram(Xs, e2) @ V
        return cov if self.scaling is None else self.scaling.cov_to_original(cov)


#: Largest prior weight the core accepts: squares of weights (sandwich meats, Pearson sums)
#: must stay finite, and R's start mu = (w y + 1/2) / (w + 1) needs w well below 1/eps.
MAX_WEIGHT = 1e150


def _r_start_mu(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """R's start mu = (w y + 1/2) / (w + 1), kept inside [eps, 1 - eps] (weights > ~1e15
    would otherwise round it to 0 or 1 and make the working response infinite)."""
    mu0 = (w * y + 0.5) / (w + 1.0)
    if w.size and float(np.max(w)) > 1e15:
        np.clip(mu0, _EPS, 1 - _EPS, out=mu0)
    return mu0


def check_weights_range(w: np.ndarray) -> None:
    """Raise :class:`WeightsError` when a weight exceeds :data:`MAX_WEIGHT`.

    Parameters
    ----------
    w : ndarray
        The weights.
    """
    if w.size:
        wmax = float(np.max(w))
        if wmax > MAX_WEIGHT:
            raise WeightsError(
                f"`weights` must not exceed {MAX_WEIGHT:g} (their squares enter the sandwich "
                f"covariance and Pearson sums and must stay finite); the largest is {wmax:.6g}. "
                "Divide them by a common constant if only their ratios matter.")


def binomial_deviance(y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """2 sum w [y log(y/mu) + (1-y) log((1-y)/(1-mu))], with 0 log 0 = 0.

    Parameters
    ----------
    y : ndarray
        The response as proportions in [0, 1].
    mu : ndarray
        The fitted probabilities.
    w : ndarray
        The prior weights.

    Returns
    -------
    float
        The deviance.
    """
    return 2.0 * float(np.dot(w, xlogy(y, y) - xlogy(y, mu) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - mu)))


def _loglik(y, mu, w) -> float:
    return float(np.dot(w, xlogy(y, mu) + xlogy(1 - y, 1 - mu)))


def logit_probs(eta: np.ndarray) -> np.ndarray:
    """The fitted probabilities expit(eta), clamped to [eps, 1 - eps] as R's binomial link.

    Parameters
    ----------
    eta : ndarray
        The linear predictor.

    Returns
    -------
    ndarray
        The probabilities.
    """
    # R's binomial()$linkinv clamps at eps to keep the working weights positive.
    return np.clip(expit(eta), _EPS, 1 - _EPS)


def as_design(X):
    """X as the cores take it: a C-ordered float array, or a float CSR matrix when sparse."""
    if sparse.issparse(X):
        return X.tocsr().astype(np.float64, copy=False)
    X = np.asarray(X, dtype=float)
    return X if X.flags.c_contiguous else np.ascontiguousarray(X)


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
    terms=None,
    offset: np.ndarray | None = None,
    start_gram: np.ndarray | None = None,
) -> IrlsFit:
    """Fit the weighted binomial logit model by IRLS (Newton's method).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design, of full column rank (drop aliased columns first).
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    weights : ndarray of shape (n,), optional
        Non-negative prior weights (default 1).
    start : ndarray of shape (p,), optional
        Warm-start coefficients; by default the fit starts like R at
        mu = (w y + 1/2) / (w + 1).
    penalty : float or ndarray of shape (p,), default 0.0
        The ridge penalty, a scalar or per-coefficient penalties (use 0 for the intercept);
        adds ``penalty * b**2 / 2`` to the negative log-likelihood.
    tol : float, default 1e-8
        The tolerance on the relative deviance change (R's ``epsilon``).
    max_iter : int, default 25
        The maximum number of Newton steps (R's ``maxit``).
    max_halving : int, default 30
        The most step halvings of one Newton step (a step that increases the deviance is
        halved).
    warn : bool, default True
        Whether to emit :class:`ConvergenceWarning` / :class:`SeparationWarning`.
    terms : tuple, optional
        ``(label, columns, names)`` of the design's terms, to name the cells of factors
        holding one class only in a :class:`SeparationWarning`.
    offset : ndarray of shape (n,), optional
        A known part of the linear predictor, eta = X b + offset (R's ``offset``); the null
        deviance is then that of the intercept-only fit with the offset, as R's.
    start_gram : ndarray of shape (p, p), optional
        X'W0X at R's start, W0 = diag(w mu0 (1 - mu0)), when the caller has it already
        (:func:`fmstats.maxent` scales the aliasing check's X'WX: for a 0/1 response and
        equal weights W0 is a multiple of W); used only with ``start=None`` on a design that
        needs no rescaling, and saves the first step's pass over X.

    Returns
    -------
    IrlsFit
        The fit.
    """
    X = as_design(X)
    y = np.asarray(y, dtype=float)
    n, p = X.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (p,)).copy()
    penalised = bool(np.any(pen > 0))
    check_weights_range(w)
    sc = column_scaling(X, pen)
    if sc is None:
        coef, eta, mu, dev, it, converged, history = newton_iterate(
            X, y, w, start, pen, penalised, tol, max_iter, max_halving, offset,
            start_gram)
        return _finish(X, y, w, coef, eta, mu, dev, pen if penalised else None, it, converged,
                       history, tol, max_iter, warn, offset, terms)
    # offset or badly scaled columns: fit on X~ = (X - centre) / scale, transform back exactly
    Xs, pen_s, start_s = _scaled_problem(sc, X, pen, start)
    coef, eta, mu, dev, it, converged, history = newton_iterate(
        Xs, y, w, start_s, pen_s, penalised, tol, max_iter, max_halving, offset)
    fit = _finish(Xs, y, w, coef, eta, mu, dev, pen_s if penalised else None, it, converged,
                  history, tol, max_iter, warn, offset, terms)
    return _unscale(fit, sc, pen if penalised else None)


def _scaled_problem(sc: ColumnScaling, X, pen, start):
    if start is not None:
        start = np.asarray(start, dtype=float)
        if start.shape != (X.shape[1],):
            raise ValueError(f"start must have shape ({X.shape[1]},); got {start.shape}")
        start = sc.to_scaled(start)
    return sc.transform(X), sc.penalty_to_scaled(pen), start


def _unscale(fit: IrlsFit, sc: ColumnScaling, pen) -> IrlsFit:
    """The fit on X~ expressed for X: b = A b~, (X'WX)^-1 = A (X~'WX~)^-1 A'."""
    V = sc.cov_to_original(fit.xtwx_inv)
    d = np.diag(V)
    bad = ~(np.isfinite(d) & (d >= np.finfo(float).tiny))
    if np.any(bad) and np.all(np.isfinite(fit.xtwx_inv)):
        j = int(np.flatnonzero(bad)[0])
        raise DesignError(
            f"column {j} of the design spreads {sc.scale[j]:.3g} (largest |x - centre|, to a "
            "power of two): the variance of its coefficient is not representable in double "
            f"precision (columns must spread between {SPREAD_RANGE[0]:g} and "
            f"{SPREAD_RANGE[1]:g}); rescale it.")
    return replace(fit, coef=sc.to_original(fit.coef), xtwx_inv=V, penalty=pen, scaling=sc,
                   xtwx_inv_scaled=fit.xtwx_inv)


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


class Point:
    """The model evaluated at one coefficient vector (what the Newton loop needs of it)."""

    __slots__ = ("coef", "dev", "eta", "extra")

    def __init__(self, coef, dev, eta=None, extra=None):
        self.coef, self.dev, self.eta, self.extra = coef, dev, eta, extra


class ArrayProblem:
    """In-memory data of a fit: R's start, evaluations at coefficients, Newton systems.

    :mod:`fmstats.glm._dask` provides the same three methods over a dask array of rows, so
    both run the one Newton loop :func:`newton_loop` (same start, steps, stopping rule).
    """

    def __init__(self, X, y, w, offset=None, start_gram=None):
        self.X, self.y, self.w, self.offset = X, y, w, offset
        self.p = X.shape[1]
        self.start_gram = start_gram      # X'WX at R's start, when the caller has it
        self._deviance = _deviance_from_eta(y, w)

    def deviance_scale(self) -> float:
        """s of the stopping rule: min(1, the mean weight of the active rows)."""
        return deviance_scale(float(np.sum(self.w)), int(np.count_nonzero(self.w > 0)))

    def r_start(self):
        """R's start mu = (w y + 1/2) / (w + 1): its deviance and the weighted least-squares
        system (X'WX, X'(W eta + w (y - mu))) of the first step."""
        X, y, w = self.X, self.y, self.w
        mu0 = _r_start_mu(y, w)
        eta0 = np.log(mu0 / (1 - mu0))
        dev0 = binomial_deviance(y, mu0, w)
        ww = w * mu0 * (1 - mu0)
        z0 = eta0 if self.offset is None else eta0 - self.offset   # R: (eta - offset) + ...
        H = gram(X, ww) if self.start_gram is None else np.array(self.start_gram, dtype=float)
        return dev0, H, X.T @ (ww * z0 + w * (y - mu0))

    def at(self, coef) -> Point:
        eta = self.X @ coef
        if self.offset is not None:
            eta = eta + self.offset
        return Point(coef, self._deviance(eta), eta)

    def newton(self, pt: Point):
        """(X'WX, X'w(y - mu)) at ``pt``: fresh arrays the caller may modify."""
        X, y, w = self.X, self.y, self.w
        mu = logit_probs(pt.eta)
        ww = w * mu * (1 - mu)
        return gram(X, ww), X.T @ (w * (y - mu))


def deviance_scale(total_weight: float, n_active: int) -> float:
    """The scale s of the stopping rule ``|dev - dev_old| / (|dev| + 0.1 s) < tol``: 1 (R's rule)
    unless the active rows' mean weight is below 1, then that mean (so the rule does not
    depend on the weights' scale).

    Parameters
    ----------
    total_weight : float
        The sum of the active rows' weights.
    n_active : int
        The number of active rows (positive weight).

    Returns
    -------
    float
        The scale s.
    """
    if n_active <= 0 or not total_weight > 0:
        return 1.0
    return min(1.0, total_weight / n_active)


def newton_loop(problem, start, pen, penalised, tol, max_iter, max_halving=30):
    """The Newton/IRLS iterations on ``problem``; returns (point, iterations, converged, history).

    ``problem.deviance_scale()`` (asked after the first pass) scales R's 0.1 in the stopping
    rule (see :func:`deviance_scale`)."""
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
        floor = 0.1 * problem.deviance_scale()
        converged = abs(pt.dev - dev0) / (abs(pt.dev) + floor) < tol
    else:
        coef = np.asarray(start, dtype=float).copy()
        if coef.shape != (p,):
            raise ValueError(f"start must have shape ({p},); got {coef.shape}")
        pt = problem.at(coef)
        history = [(pt.dev, 0.0)]
        it = 0
        floor = 0.1 * problem.deviance_scale()

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
        change = abs(obj_new - obj) / (abs(obj_new) + floor)
        pt, obj = cand, obj_new
        history.append((pt.dev, t))
        if change < tol:
            converged = True
            break

    return pt, it, converged, history


def newton_iterate(X, y, w, start, pen, penalised, tol, max_iter, max_halving=30, offset=None,
                   start_gram=None):
    """The Newton/IRLS iterations of :func:`irls_logit` on a design that needs no rescaling.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    w : ndarray of shape (n,)
        The prior weights.
    start : ndarray of shape (p,) or None
        Warm-start coefficients (None: R's start).
    pen : ndarray of shape (p,)
        The per-coefficient ridge penalty.
    penalised : bool
        Whether any entry of ``pen`` is positive.
    tol : float
        The tolerance on the relative deviance change.
    max_iter : int
        The maximum number of Newton steps.
    max_halving : int, default 30
        The most step halvings of one Newton step.
    offset : ndarray of shape (n,), optional
        A known part of the linear predictor.
    start_gram : ndarray of shape (p, p), optional
        X'WX at R's start, when known.

    Returns
    -------
    tuple
        (coef, eta, mu, deviance, iterations, converged, history).
    """
    pt, it, converged, history = newton_loop(ArrayProblem(X, y, w, offset, start_gram), start, pen,
                                              penalised, tol, max_iter, max_halving)
    return pt.coef, pt.eta, logit_probs(pt.eta), pt.dev, it, converged, history


def irls_coef(X: np.ndarray, y: np.ndarray, weights: np.ndarray, start: np.ndarray, *,
              penalty: np.ndarray | None = None, tol: float = 1e-8, max_iter: int = 25,
              offset: np.ndarray | None = None) -> np.ndarray:
    """Coefficients only: the IRLS iterations of :func:`irls_logit` without the final
    covariance, null deviance, separation check or warnings (for inner loops that refit
    many times; the caller validates its inputs)."""
    p = X.shape[1]
    pen = np.zeros(p) if penalty is None else penalty
    sc = column_scaling(X, pen)
    if sc is None:
        return newton_iterate(X, y, weights, start, pen, bool(np.any(pen > 0)), tol, max_iter,
                              offset=offset)[0]
    Xs, pen_s, start_s = _scaled_problem(sc, X, pen, start)
    return sc.to_original(newton_iterate(Xs, y, weights, start_s, pen_s, bool(np.any(pen > 0)), tol,
                                   max_iter, offset=offset)[0])


def irls_evaluate(X: np.ndarray, y: np.ndarray, weights: np.ndarray, coef: np.ndarray, *,
                  penalty: float | np.ndarray = 0.0, offset: np.ndarray | None = None) -> IrlsFit:
    """An :class:`IrlsFit` at given coefficients, without iterating.

    Used where coefficients come from elsewhere (e.g. the outer loop of the
    F-measure maximiser) but the fit's covariance, deviance and working weights
    are needed.  ``iterations`` is 0 and ``converged`` True.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    weights : ndarray of shape (n,)
        The prior weights.
    coef : ndarray of shape (p,)
        The coefficients.
    penalty : float or ndarray of shape (p,), default 0.0
        The ridge penalty.
    offset : ndarray of shape (n,), optional
        A known part of the linear predictor.

    Returns
    -------
    IrlsFit
        The fit at ``coef``.
    """
    X = as_design(X)
    y = np.asarray(y, dtype=float)
    w = np.asarray(weights, dtype=float)
    coef = np.asarray(coef, dtype=float).copy()
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (X.shape[1],)).copy()
    penalised = bool(np.any(pen > 0))
    sc = column_scaling(X, pen)
    if sc is not None:
        X, pen_s, coef_s = _scaled_problem(sc, X, pen, coef)
    else:
        pen_s, coef_s = pen, coef
    eta = X @ coef_s if offset is None else X @ coef_s + offset
    mu = logit_probs(eta)
    dev = binomial_deviance(y, mu, w)
    fit = _finish(X, y, w, coef_s, eta, mu, dev, pen_s if penalised else None, 0, True,
                  [(dev, 0.0)], 0.0, 0, False, offset)
    if sc is None:
        return fit
    return replace(_unscale(fit, sc, pen if penalised else None), coef=coef)


def _finish(X, y, w, coef, eta, mu, dev, pen, it, converged, history, tol, max_iter,
            warn, offset=None, terms=None) -> IrlsFit:
    """Covariance, separation check and warnings at the final coefficients."""
    ww = w * mu * (1 - mu)
    xtwx_inv = information_inverse(gram(X, ww), pen)
    active = w > 0
    mu_raw = expit(eta)
    n_sep = int(np.count_nonzero(active & ((mu_raw > 1 - SEPARATION_EPS) | (mu_raw < SEPARATION_EPS))))
    how, cells = ("fitted" if n_sep else ""), None
    if not n_sep and pen is None:
        # R's rule missed it: is there a finite maximum at all? (fmstats.glm._separation); a
        # factor cell of one class is a separating direction, so it spares the LP
        reach = newton_reach(X, y, w, mu, xtwx_inv)
        if np.any(reach > NEWTON_REACH):
            cells = zero_count_cells(X, y, w, terms) if terms else []
            if cells or no_finite_maximum(X, y, w, reach):
                how, n_sep = "no finite MLE", int(np.count_nonzero(reach > NEWTON_REACH))
    separated = n_sep > 0
    null_dev = null_deviance(X, y, w, offset)
    if warn:
        if cells is None:
            cells = zero_count_cells(X, y, w, terms) if separated and terms else []
        closest = float(np.min(np.minimum(mu_raw, 1 - mu_raw)[active])) if separated else 0.0
        warn_fit(converged, separated, n_sep, it, tol, max_iter, how=how, cells=cells,
                 closest=closest)
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
        separation=how,
        n_separated=n_sep,
    )


#: The helpers the design built in row blocks shares (:mod:`fmstats.glm._blocks`).
r_start_mu, deviance_from_eta, weighted_loglik, unscale_fit = (_r_start_mu, _deviance_from_eta,
                                                               _loglik, _unscale)


def null_deviance(X: np.ndarray, y: np.ndarray, w: np.ndarray,
                  offset: np.ndarray | None = None) -> float:
    """Deviance of the intercept-only model (weighted mean), or of mu = 1/2 without intercept.

    With an offset (as R's ``glm``): the deviance of the intercept-only fit with the offset,
    or of mu = expit(offset) without an intercept.
    """
    if offset is not None:
        if not has_intercept(X):
            return binomial_deviance(y, logit_probs(offset), w)
        pt = newton_loop(ArrayProblem(np.ones((len(y), 1)), y, w, offset), None,
                         np.zeros(1), False, 1e-12, 100)[0]
        return float(pt.dev)
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
