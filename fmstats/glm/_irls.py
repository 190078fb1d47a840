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
from scipy.linalg import blas
from scipy.special import expit, xlogy

from .._utils.validation import SPREAD_RANGE as _SPREAD_RANGE
from ..exceptions import DesignError, WeightsError
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
    separated : whether fitted probabilities numerically 0 or 1 occurred (R's rule), or the
        likelihood has no finite maximum (unpenalised fits; :mod:`fmstats.glm._separation`).
    history : (iterations + 1, 2) array of (deviance, step size) per iteration; row 0 is the start.
    separation : how separation was found: ``""`` (it was not), ``"fitted"`` (fitted
        probabilities numerically 0 or 1, R's rule) or ``"no finite MLE"`` (the Newton step
        at the stopping point and Konis's linear programme).
    n_separated : rows with fitted probability numerically 0 or 1, or fitted perfectly along
        the direction of separation.
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
        """Diagonal of the weighted hat matrix W^1/2 X (X'WX)^-1 X' W^1/2 (R's hatvalues)."""
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
        """(X'WX)^-1 X' diag(e2) X (X'WX)^-1, computed in the fit's coordinates."""
        Xs, V = self._bread(X)
        cov = V @ gram(Xs, e2) @ V
        return cov if self.scaling is None else self.scaling.cov_to_original(cov)


#: Rows per block in :func:`gram`: small enough that the scaled block stays in cache-friendly,
#: already-touched memory, large enough that the per-block Python overhead is negligible.
GRAM_BLOCK = 32768


def gram(X: np.ndarray, w: np.ndarray | None = None, block: int = GRAM_BLOCK) -> np.ndarray:
    """X' diag(w) X (w >= 0) by BLAS syrk, accumulated over blocks of rows.

    Each block of sqrt(w) X is written into one reused (block x p) buffer, so the cost in
    memory is O(block p) rather than an n x p temporary (whose first touch alone costs more
    than the arithmetic on large n).  Returned as a full symmetric p x p matrix.
    """
    if sparse.issparse(X):         # sparse X: X' diag(w) X as a sparse product, p x p dense
        Xw = X if w is None else sparse.diags(np.asarray(w, dtype=float)) @ X
        return np.asarray((X.T @ Xw).toarray(), dtype=float)
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


#: Largest prior weight the core accepts: squares of weights (sandwich meats, Pearson sums)
#: must stay finite, and R's start mu = (w y + 1/2) / (w + 1) needs w well below 1/eps.
MAX_WEIGHT = 1e150
#: A design column must spread (largest ``|x - centre|``) within this range (the data
#: validator's rule, :data:`fmstats._utils.validation.SPREAD_RANGE`).
SPREAD_RANGE = _SPREAD_RANGE
#: Centre a column when its centre exceeds this many times its spread (an offset column:
#: X'WX would square the condition number |centre| / spread).
_OFFSET_RATIO = 8.0
#: Scale columns when a spread leaves [2^-64, 2^64] (guards X'WX against over/underflow).
_SCALE_LIMIT = 2.0 ** 64


@dataclass(frozen=True)
class ColumnScaling:
    """The affine reparametrisation X~ = (X - 1 centre') / scale of a design.

    ``centre`` is 0 for the intercept column ``intercept`` (a column of ones, kept as is) and
    for every column when there is none (or the intercept is penalised): then the column space
    of X~ equals that of X and the fit is the same model.  ``scale`` holds powers of two, so
    dividing by it is exact.  With A = (I - e_k centre') diag(1/scale), X~ = X A, so
    coefficients b = A b~ and the inverse information (X'WX)^-1 = A (X~'WX~)^-1 A'.
    """

    centre: np.ndarray
    scale: np.ndarray
    intercept: int | None

    def transform(self, X: np.ndarray) -> np.ndarray:
        """X~ as a new C-contiguous array (the intercept column stays 1); a sparse X (never
        centred) as a sparse CSR matrix."""
        if sparse.issparse(X):
            return (X @ sparse.diags(1.0 / self.scale)).tocsr()
        Xs = np.subtract(X, self.centre)
        Xs *= 1.0 / self.scale
        return Xs

    def matrix(self) -> np.ndarray:
        """A, with b = A b~."""
        A = np.diag(1.0 / self.scale)
        if self.intercept is not None:
            A[self.intercept] -= self.centre / self.scale
            A[self.intercept, self.intercept] = 1.0
        return A

    def to_original(self, coef_s: np.ndarray) -> np.ndarray:
        b = coef_s / self.scale
        if self.intercept is not None:
            k = self.intercept
            b[k] = coef_s[k] - float(np.dot(self.centre, b) - self.centre[k] * b[k])
        return b

    def to_scaled(self, coef: np.ndarray) -> np.ndarray:
        """b~ = A^-1 b: b~_j = scale_j b_j; b~_k = b_k + centre' b."""
        bs = np.asarray(coef, dtype=float) * self.scale
        if self.intercept is not None:
            k = self.intercept
            bs[k] = coef[k] + float(np.dot(self.centre, coef))
        return bs

    def cov_to_original(self, V_s: np.ndarray) -> np.ndarray:
        A = self.matrix()
        V = A @ V_s @ A.T
        return (V + V.T) / 2.0

    def penalty_to_scaled(self, pen: np.ndarray) -> np.ndarray:
        """b' P b = b~' A'PA b~, and A'PA = diag(pen / scale^2) when the intercept is unpenalised."""
        return pen * (1.0 / self.scale) ** 2


def intercept_index(X: np.ndarray) -> int | None:
    """Position of the first column of ones in X (the intercept), or None.  Used here and by
    :mod:`fmstats.glm._dask` to decide where offset columns can be centred."""
    if X.shape[0] == 0:
        return None
    if sparse.issparse(X):
        X = X.tocsc()
        for j in np.flatnonzero(X[0].toarray().ravel() == 1.0):
            col = X[:, j]
            if col.nnz == X.shape[0] and np.all(col.data == 1.0):
                return int(j)
        return None
    for j in np.flatnonzero(X[0] == 1.0):
        if np.all(X[:, j] == 1.0):
            return int(j)
    return None


def column_spread(X: np.ndarray):
    """Per column: the midrange (centre) and half the range (spread), from two reductions."""
    if sparse.issparse(X):
        hi, lo = X.max(axis=0).toarray().ravel(), X.min(axis=0).toarray().ravel()
    else:
        hi, lo = X.max(axis=0), X.min(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        return lo / 2 + hi / 2, hi / 2 - lo / 2


def column_scaling(X: np.ndarray, pen: np.ndarray | None = None, *, force: bool = False,
                   intercept: int | None | str = "find") -> ColumnScaling | None:
    """The reparametrisation that makes X'WX well conditioned, or None when X needs none.

    Columns are centred (only when X has an unpenalised column of ones, so the column space
    is unchanged) if some column's centre exceeds ``_OFFSET_RATIO`` times its spread, and
    scaled to spread ~1 when some spread is far from 1.  ``force`` always builds it.
    ``intercept`` is the column of ones when the caller knows it (X is then a sample of the
    rows); by default it is looked for in X.
    """
    n, p = X.shape
    if n == 0 or p == 0:
        return None
    # decided on <= ~4096 evenly spaced rows: any centre and scale near the data's serve (the
    # reparametrisation is exact whatever they are), and a full scan would cost ~4% of a fit
    mid, half = column_spread(X[::max(1, n // 4096)])
    if not (np.all(np.isfinite(mid)) and np.all(np.isfinite(half))):
        bad = int(np.flatnonzero(~(np.isfinite(mid) & np.isfinite(half)))[0])
        raise DesignError(f"column {bad} of the design has non-finite values or a range that "
                          "overflows double precision; rescale it.")
    offset = (np.abs(mid) > _OFFSET_RATIO * half) & (half > 0)
    if sparse.issparse(X):
        offset[:] = False                  # centring would fill every zero of a sparse X
    k = (intercept_index(X) if intercept == "find" else intercept) if offset.any() or force \
        else None
    if k is not None and pen is not None and pen[k] > 0:
        k = None                       # a penalised intercept: centring would change the penalty
    if k is not None:
        offset[k] = False
    centring = k is not None and bool(offset.any())
    spread = np.where(half > 0, half, np.abs(mid))
    spread = np.where(spread > 0, spread, 1.0)
    if centring:
        centre = np.where(offset, mid, 0.0)
        centre[k] = 0.0
        spread = np.where(offset & (half > 0), half, spread)
    else:
        centre = np.zeros(p)
        spread = np.maximum(np.abs(mid), half)
        spread = np.where(spread > 0, spread, 1.0)
    scaling = bool(np.any((spread > _SCALE_LIMIT) | (spread < 1.0 / _SCALE_LIMIT)))
    if not (centring or scaling or force):
        return None
    scale = np.exp2(np.round(np.log2(spread)))
    if k is not None:
        scale[k] = 1.0
    return ColumnScaling(centre=centre, scale=scale, intercept=k if centring else None)


def rank_gram(X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """The Gram matrix to decide aliasing on: X'WX, or X~'WX~ of :func:`column_scaling` when
    X has offset or badly scaled columns (their Gram matrix would lose them to rounding).

    :func:`independent_columns` on it tests each column against the earlier ones relative to
    its own (centred) norm; centring keeps the column space when X has an intercept.
    """
    sc = column_scaling(X)
    if sc is None:
        return gram(X, w)
    if sparse.issparse(X):
        return gram(sc.transform(X), w)
    G = np.zeros((X.shape[1], X.shape[1]))
    sw = None if w is None else np.sqrt(w)
    for start in range(0, X.shape[0], GRAM_BLOCK):
        A = sc.transform(X[start:start + GRAM_BLOCK])
        if sw is not None:
            A *= sw[start:start + GRAM_BLOCK, None]
        G += A.T @ A
    return G


def _r_start_mu(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """R's start mu = (w y + 1/2) / (w + 1), kept inside [eps, 1 - eps] (weights > ~1e15
    would otherwise round it to 0 or 1 and make the working response infinite)."""
    mu0 = (w * y + 0.5) / (w + 1.0)
    if w.size and float(np.max(w)) > 1e15:
        np.clip(mu0, _EPS, 1 - _EPS, out=mu0)
    return mu0


def check_weights_range(w: np.ndarray) -> None:
    """Raise :class:`WeightsError` when a weight exceeds :data:`MAX_WEIGHT`."""
    if w.size:
        wmax = float(np.max(w))
        if wmax > MAX_WEIGHT:
            raise WeightsError(
                f"`weights` must not exceed {MAX_WEIGHT:g} (their squares enter the sandwich "
                f"covariance and Pearson sums and must stay finite); the largest is {wmax:.6g}. "
                "Divide them by a common constant if only their ratios matter.")


def binomial_deviance(y: np.ndarray, mu: np.ndarray, w: np.ndarray) -> float:
    """2 sum w [y log(y/mu) + (1-y) log((1-y)/(1-mu))], with 0 log 0 = 0."""
    return 2.0 * float(np.dot(w, xlogy(y, y) - xlogy(y, mu) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - mu)))


def _loglik(y, mu, w) -> float:
    return float(np.dot(w, xlogy(y, mu) + xlogy(1 - y, 1 - mu)))


def logit_probs(eta: np.ndarray) -> np.ndarray:
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
    terms : optional ``(label, columns, names)`` of the design's terms, to name the cells of
        factors holding one class only in a :class:`SeparationWarning`.
    offset : (n,) a known part of the linear predictor, eta = X b + offset (R's ``offset``);
        the null deviance is then that of the intercept-only fit with the offset, as R's.
    start_gram : (p, p) X'W0X at R's start, W0 = diag(w mu0 (1 - mu0)), when the caller
        has it already (:func:`fmstats.maxent` scales the aliasing check's X'WX: for a 0/1
        response and equal weights W0 is a multiple of W); used only with ``start=None`` on a
        design that needs no rescaling, and saves the first step's pass over X.

    Returns
    -------
    IrlsFit
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
    depend on the weights' scale)."""
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
    """The Newton/IRLS iterations; returns (coef, eta, mu, dev, iterations, converged, history)."""
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


def has_intercept(X: np.ndarray) -> bool:
    """Whether the column space of X contains the constant (checked on a column of ones)."""
    return intercept_index(X) is not None


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
