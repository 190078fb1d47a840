"""k-step replicates: many weighted logistic fits from a nearby solution, side by side.

A resampling replicate (a bootstrap draw, a fold of a nested cross-validation) refits the
model on the *same design* with other frequency weights: the count weights of the fit times
the number of times each row was drawn, times 0 for the rows left out.  Its solution is
within a standard error or so of the full-data solution, so Newton's method started there
needs one or two steps, not an IRLS from scratch (Andrews 2002: k-step bootstrap replicates
keep the full bootstrap's higher-order accuracy; Davidson & MacKinnon 1999 for tests).

The functions here take a weight *matrix* W (n rows, one column per replicate) and iterate
all columns at once: X B' and X' R are matrix products, the m Hessians X' diag(a_j) X one
product of W-like weights with the n x p(p+1)/2 matrix of the design's column products, and
the m small systems one batched solve.  No Python loop over rows or replicates.

Stopping rule: a column stops when its last Newton step moved every coefficient by less than
``step_tol`` of that coefficient's standard error in the column's own fit (sqrt of the
diagonal of the inverse Hessian).  Newton's method converges quadratically from such a start,
so the error left after a step of size s (in standard errors) is of order s^2: with the
default 0.01 it is about 1e-4 standard errors.  A column that has not stopped after ``k``
steps (or whose Hessian is not positive definite, or whose numbers are not finite) is
reported as not converged, and the caller refits it in full.

``fmaxent_block`` runs the F-measure maximiser's outer loop (:func:`fmstats.glm._outer.
outer_loop`) the same way: every outer iteration's weighted fit is a k-step solve started
from the full-data fit's iterate of the same index shifted by the replicate's current
deviation from it, and each column keeps its own best iterate and its own stopping rule.

Pure functions on ndarrays (dense designs); the model layer decides when to use them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scipy.special import expit

from .._utils.boundary import public

from ._fweights import noisy_f_weights

__all__ = ["BlockFit", "OuterFit", "newton_block", "fmaxent_block", "column_products",
           "column_grams", "block_size", "DEFAULT_K", "DEFAULT_STEP_TOL"]

#: Newton steps allowed per weighted fit before a column is refitted in full.
DEFAULT_K = 8
#: A column has converged when its last step moved every coefficient by less than this many
#: standard errors.
DEFAULT_STEP_TOL = 0.01
#: Elements of an n x m block of replicates worked on at once (memory: a few such arrays).
BLOCK_ELEMENTS = 2 ** 21
#: Largest design-products matrix (n x p(p+1)/2 doubles) kept whole; above it, row chunks.
PRODUCTS_ELEMENTS = 2 ** 23
_EPS = np.finfo(float).eps


@public
def block_size(n: int, m: int) -> int:
    """Columns per block so that an n x block array has about :data:`BLOCK_ELEMENTS` entries.

    Parameters
    ----------
    n : int
        Rows.
    m : int
        Columns (refits) in all.

    Returns
    -------
    int
        Columns per block, between 1 and ``m``.
    """
    return int(max(1, min(m, BLOCK_ELEMENTS // max(n, 1))))


def column_products(X: np.ndarray) -> np.ndarray | None:
    """The n x p(p+1)/2 products x_j x_k (j <= k) of the design's columns.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.

    Returns
    -------
    ndarray of shape (n, p(p+1)/2) or None
        The products, or None when they would exceed :data:`PRODUCTS_ELEMENTS` entries (then
        :func:`column_grams` forms them by row chunks).
    """
    n, p = X.shape
    if n * p * (p + 1) // 2 > PRODUCTS_ELEMENTS:
        return None
    return _products(X)


def _products(X: np.ndarray) -> np.ndarray:
    j, k = np.triu_indices(X.shape[1])
    return X[:, j] * X[:, k]


def column_grams(X: np.ndarray, A: np.ndarray, products: np.ndarray | None = None
                 ) -> np.ndarray:
    """The m matrices X' diag(A[:, b]) X from one product A' Z, Z the design's column products.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    A : ndarray of shape (n, m)
        One column of row weights per matrix.
    products : ndarray, optional
        :func:`column_products` of ``X`` (formed in row chunks when not given).

    Returns
    -------
    ndarray of shape (m, p, p)
    """
    n, p = X.shape
    j, k = np.triu_indices(p)
    if products is not None:
        flat = A.T @ products
    else:
        rows = max(1, PRODUCTS_ELEMENTS // max(len(j), 1))
        flat = np.zeros((A.shape[1], len(j)))
        for a in range(0, n, rows):
            flat += A[a:a + rows].T @ _products(X[a:a + rows])
    G = np.empty((A.shape[1], p, p))
    G[:, j, k] = flat
    G[:, k, j] = flat
    return G


@dataclass(frozen=True)
class BlockFit:
    """Weighted logistic fits of the columns of a weight matrix.

    Parameters
    ----------
    coef : ndarray of shape (m, p)
        The coefficients of each column's fit.
    converged : ndarray of shape (m,)
        Whether the column met the step rule within ``k`` steps (else: refit it in full).
    steps : ndarray of shape (m,)
        Newton steps taken.
    se : ndarray of shape (m, p)
        Standard errors of the last step's point (sqrt of the inverse Hessian's diagonal).
    margin : ndarray of shape (m,)
        The smallest min(p, 1 - p) over the rows the column weights, at that point (a
        saturated, i.e. separated, fit has fitted probabilities at 0 or 1).
    """

    coef: np.ndarray
    converged: np.ndarray
    steps: np.ndarray
    se: np.ndarray
    margin: np.ndarray


def _inverse(H: np.ndarray):
    """Batched inverse of symmetric matrices; (inverse, ok) with ok False where H is not
    positive definite (its inverse is then NaN)."""
    m, p, _ = H.shape
    ok = np.ones(m, dtype=bool)
    d = np.sqrt(np.clip(np.einsum("bii->bi", H), 0.0, None))
    d = np.where(d > 0, d, 1.0)
    Hn = H / d[:, :, None] / d[:, None, :]          # unit diagonal: conditioning only
    try:
        L = np.linalg.cholesky(Hn)
    except np.linalg.LinAlgError:
        L = np.full_like(Hn, np.nan)
        for b in range(m):
            try:
                L[b] = np.linalg.cholesky(Hn[b])
            except np.linalg.LinAlgError:
                ok[b] = False
    ok &= np.all(np.isfinite(L), axis=(1, 2))
    # reciprocal condition estimate from the Cholesky diagonal: refuse near-singular H
    diag = np.einsum("bii->bi", np.where(ok[:, None, None], L, 1.0))
    ok &= diag.min(axis=1) > 1e-7 * diag.max(axis=1)
    eye = np.broadcast_to(np.eye(p), Hn.shape)
    Ls = np.where(ok[:, None, None], L, np.eye(p))
    Linv = np.linalg.solve(Ls, eye)
    inv = np.einsum("bki,bkj->bij", Linv, Linv) / d[:, :, None] / d[:, None, :]
    inv[~ok] = np.nan
    return inv, ok


def step_state(start, penalty, m: int, p: int) -> tuple:
    """The state :func:`take_steps` updates, for ``m`` replicates of ``p`` coefficients, in
    memory and on row blocks: (theta from ``start``, the penalty per replicate, converged,
    steps taken, standard errors, margins, the active replicates)."""
    theta = np.array(np.broadcast_to(start, (m, p)), dtype=float)
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (m, p))
    return (theta, pen, np.zeros(m, dtype=bool), np.zeros(m, dtype=np.int64),
            np.full((m, p), np.nan), np.full(m, np.nan), np.arange(m))


def take_steps(theta, delta, se, ok, active, se_out, steps, converged, step_tol) -> np.ndarray:
    """The stopping rule of every k-step replicate, in memory and on row blocks: the finite
    Newton steps ``delta`` of the ``active`` replicates are taken (``theta``, ``se_out``,
    ``steps`` and ``converged`` updated in place); a replicate whose step moved every
    coefficient by less than ``step_tol`` of its standard error ``se`` has converged.
    Returns the replicates still active."""
    with np.errstate(invalid="ignore", divide="ignore"):
        size = np.max(np.abs(delta) / np.where(se > 0, se, np.inf), axis=1)
    ok = ok & np.isfinite(size) & np.all(np.isfinite(delta), axis=1)
    theta[active[ok]] += delta[ok]
    se_out[active] = se
    steps[active] += 1
    done = ok & (size < step_tol)
    converged[active[done]] = True
    return active[ok & ~done]


def _probabilities(E: np.ndarray) -> np.ndarray:
    """expit(E) in place, clipped to [eps, 1 - eps] (R's ``binomial()$linkinv``)."""
    expit(E, out=E)
    return np.clip(E, _EPS, 1 - _EPS, out=E)


@public
def newton_block(X: np.ndarray, y: np.ndarray, W: np.ndarray, start: np.ndarray,
                 penalty: np.ndarray, *, k: int = DEFAULT_K,
                 step_tol: float = DEFAULT_STEP_TOL, offset: np.ndarray | None = None,
                 products: np.ndarray | None = None, margins: bool = False) -> BlockFit:
    """Up to ``k`` Newton steps of the penalised weighted logistic likelihood of every column.

    Column b maximises sum_i W[i, b] [y_i log p_i + (1 - y_i) log(1 - p_i)]
    - sum_j penalty[b, j] theta_j^2 / 2 with p = expit(X theta + offset).  See the module
    notes for the stopping rule.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    W : ndarray of shape (n, m)
        The weights, one column per fit.
    start : ndarray of shape (p,) or (m, p)
        Where each fit starts.
    penalty : float or ndarray of shape (p,) or (m, p)
        The ridge of each coefficient (of each fit).
    k : int, default 8
        The most Newton steps.
    step_tol : float, default 0.01
        A fit stops when its last step moved every coefficient by less than this many
        standard errors.
    offset : ndarray of shape (n,), optional
        A known part of the linear predictor.
    products : ndarray, optional
        :func:`column_products` of ``X``.
    margins : bool, default False
        Also report each fit's smallest min(p, 1 - p) over its weighted rows (the separation
        screen's; NaN otherwise).

    Returns
    -------
    BlockFit
    """
    n, p = X.shape
    m = W.shape[1]
    theta, pen, converged, steps, se_out, margin, active = step_state(start, penalty, m, p)
    for _ in range(int(k)):
        if active.size == 0:
            break
        Wa = W[:, active] if active.size < m else W
        E = X @ theta[active].T
        if offset is not None:
            E += offset[:, None]
        P = _probabilities(E)
        if margins:
            margin[active] = np.where(Wa > 0, np.minimum(P, 1.0 - P), 1.0).min(axis=0)
        A = np.subtract(1.0, P)
        A *= P
        A *= Wa                                                   # W p (1 - p)
        np.subtract(y[:, None], P, out=P)
        P *= Wa                                                   # W (y - p)
        S = X.T @ P - (pen[active] * theta[active]).T
        H = column_grams(X, A, products)
        H[:, np.arange(p), np.arange(p)] += pen[active]
        Hinv, ok = _inverse(H)
        delta = np.einsum("bij,jb->bi", Hinv, S)
        se = np.sqrt(np.clip(np.einsum("bii->bi", Hinv), 0.0, None))
        active = take_steps(theta, delta, se, ok, active, se_out, steps, converged, step_tol)
    return BlockFit(coef=theta, converged=converged, steps=steps, se=se_out,
                    margin=margin)


# ----------------------------------------------------------------------------- fmaxent
@dataclass(frozen=True)
class OuterFit:
    """The F-maximiser's outer loop on the columns of a weight matrix.

    Parameters
    ----------
    coef : ndarray of shape (m, p)
        Each column's returned (best) iterate.
    converged : ndarray of shape (m,)
        Whether every weighted fit of the column met the step rule (else: refit it in full).
    best_iteration : ndarray of shape (m,)
        The iterate returned.
    iterations : ndarray of shape (m,)
        Outer iterations run.
    penalty : ndarray of shape (m, p)
        Each column's ridge (the prior penalty plus its standardised shrinkage).
    training_f : ndarray of shape (m,)
        The F of the returned iterate's predicted classes on the column's weighted rows.
    """

    coef: np.ndarray
    converged: np.ndarray
    best_iteration: np.ndarray
    iterations: np.ndarray
    penalty: np.ndarray
    training_f: np.ndarray


def _f(tp, fp, fn, alpha):
    den = tp + alpha * fp + (1 - alpha) * fn
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, tp / np.where(den > 0, den, 1.0), 1.0)


def _scale12(values: np.ndarray) -> np.ndarray:
    """Each value to 12 significant digits (:func:`fmstats.glm.weight_scale`)."""
    return np.array([float(f"{v:.12g}") for v in values])


def _g1(x, eps):
    """Smooth max(0, x) of (7.2) (:func:`fmstats.glm.smoothed_noisy_counts`)."""
    return np.where(x <= -eps, 0.0, np.where(x <= 0, (x + eps) ** 2 / (2 * eps), x + eps / 2))


def _g2(x, eps):
    """Smooth max(0, x) of (7.3)."""
    return np.where(x <= 0, 0.0, np.where(x < eps, x * x / (2 * eps), x - eps / 2))


def _weighted_f_weights(q, P, W, f, tp, alpha, method, epsilon, bounds, positives,
                        sums=None):
    """W times the F-weights of :meth:`fmstats.glm.ArraySource.fweights`, column by
    column: raw weights at the probabilities P, scaled to count-weighted mean 1 over the
    rows with a finite weight (the scale rounded as :func:`~fmstats.glm.weight_scale`
    rounds it), then clipped to ``bounds``.

    ``sums`` (expected F only): the columns' sums (W q p, W p, W q, W) at P, from which the
    scale follows without another pass: the weights are finite, and their weighted sum is
    k sum(W q p) + sum(W (1 - q)) - sum(W (1 - q) p), k = (1 - aF) / (aF)."""
    if method == "expected":       # (4.2): 1 - p for negatives, (1 - aF)/(aF) p for positives
        k = (1.0 - alpha * f) / (alpha * f)
        fw = np.subtract(1.0, P)
        fw[positives] = P[positives] * k
    else:
        fw = noisy_f_weights(q[:, None], P, f, tp, alpha, epsilon)
    if sums is not None and method == "expected":
        tpe, sp, sq, total = sums
        scale = _scale12((k * tpe + (total - sq) - (sp - tpe)) / total)
    else:
        good = np.isfinite(fw) & (W > 0)
        num = np.where(good, fw, 0.0)
        num *= W
        scale = _scale12(num.sum(axis=0) / np.where(good, W, 0.0).sum(axis=0))
    fw /= scale
    if bounds is not None:
        np.clip(fw, bounds[0], bounds[1], out=fw)
    fw *= W
    return fw


@public
def fmaxent_block(X, q, W, path, *, alpha, method, epsilon, bounds, inner, max_outer,
                  patience, min_improvement, rel_improvement, select, threshold, prior_penalty,
                  shrinkage, k: int = DEFAULT_K, step_tol: float = DEFAULT_STEP_TOL,
                  products=None) -> OuterFit:
    """:func:`fmstats.glm.outer_loop` on every column of ``W`` at once (module notes).

    Column b's weighted fit of outer iteration j starts from ``path[j] + (theta_b,j-1 -
    path[j-1])`` (its own previous iterate beyond the path).  ``inner="step"`` is one Newton
    step per outer iteration, without the step halving of the full algorithm.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design.
    q : ndarray of shape (n,)
        The labels as proportions.
    W : ndarray of shape (n, m)
        The count weights of each refit (0 leaves a row out).
    path : ndarray of shape (K + 1, p)
        The full-data fit's iterates theta_0 (the unweighted fit) ... theta_K.
    alpha, method, epsilon, bounds, inner, max_outer, patience, min_improvement, \
rel_improvement, select, threshold
        The outer loop's settings, as :func:`fmstats.fmaxent` takes them.
    prior_penalty : ndarray of shape (p,)
        The ridge on the raw coefficients (``penalty``, 0 for the intercept).
    shrinkage : float
        The standardised ridge per observation, recomputed on each refit's rows.
    k : int, default 8
        The most Newton steps per weighted fit.
    step_tol : float, default 0.01
        The step rule of each weighted fit (:func:`newton_block`).
    products : ndarray, optional
        :func:`column_products` of ``X``.

    Returns
    -------
    OuterFit
    """
    n, p = X.shape
    m = W.shape[1]
    W = np.ascontiguousarray(W, dtype=float)
    path = np.asarray(path, dtype=float)
    positives = np.flatnonzero(q == 1) if method == "expected" else None
    binary = bool(np.all((q == 0) | (q == 1)))      # the scale from the sums (expected F)
    total = W.sum(axis=0)
    sum_q = q @ W
    neg = total - sum_q
    # each column's standardised ridge, from its own weighted column variances (centred at
    # the data's mean first, for accuracy)
    Xc = X - X.mean(axis=0)
    mean_c = (Xc.T @ W) / total
    var = ((Xc * Xc).T @ W) / total - mean_c ** 2
    pen = prior_penalty[None, :] + shrinkage * total[:, None] * np.clip(var.T, 0.0, None)
    base = newton_block(X, q, W, path[0], pen, k=k, step_tol=step_tol, products=products)
    theta = base.coef
    ok = base.converged.copy()
    best_crit = np.full(m, -np.inf)
    best_it = np.zeros(m, dtype=np.int64)
    best_coef = theta.copy()
    best_f = np.full(m, np.nan)
    curve = np.full((max_outer + 1, m), np.nan)
    running = np.ones(m, dtype=bool)
    stopped_at = np.full(m, max_outer, dtype=np.int64)
    for it in range(max_outer + 1):
        act = np.flatnonzero(running & ok)
        if act.size == 0:
            break
        Wa = W[:, act]
        P = _probabilities(X @ theta[act].T)
        sq = sum_q[act]
        Wpred = Wa * (P >= threshold)
        tp_det, pos = q @ Wpred, Wpred.sum(axis=0)
        f_det = _f(tp_det, pos - tp_det, sq - tp_det, alpha)
        if method == "plugin":
            target = f_det
        else:
            WP = Wa * P
            sp = WP.sum(axis=0)
            # the expected TP sum W q p, or the correlated noisy TP sum W min(q, p)
            tp_t = q @ WP if method == "expected" else (Wa * np.minimum(q[:, None], P)).sum(0)
            target = _f(tp_t, sp - tp_t, sq - tp_t, alpha)
        crit = target if select == "target" else f_det
        better = crit > best_crit[act]
        upd = act[better]
        best_crit[upd], best_it[upd], best_coef[upd] = crit[better], it, theta[upd]
        best_f[upd] = f_det[better]
        curve[it, act] = best_crit[act]
        keep = np.ones(act.size, dtype=bool)
        if it >= patience:
            now = curve[it, act]
            window = now - curve[it - patience, act]
            needed = np.maximum(min_improvement, rel_improvement * (now - curve[0, act]))
            stop = window <= needed
            stopped_at[act[stop]] = it
            running[act[stop]] = False
            keep = ~stop
        if it == max_outer:
            running[act] = False
            break
        # the weights of the current probabilities
        if method == "expected":
            f, tp = target, None
        elif method == "noisy":
            if epsilon is not None:
                d = P - q[:, None]
                tps = (Wa * (P - _g1(d, epsilon))).sum(axis=0)
                tns = (Wa * ((1 - q)[:, None] - _g2(d, epsilon))).sum(axis=0)
                f, tp = tps / (alpha * (tps - tns) + alpha * neg[act] + (1 - alpha) * sq), tps
            else:
                f, tp = target, tp_t
        else:
            f, tp = f_det, tp_det
            dead = keep & (tp <= 0)         # the plug-in F is 0: the loop stops (no weights)
            stopped_at[act[dead]] = it
            running[act[dead]] = False
            keep &= ~dead
        sums = (tp_t, sp, sq, total[act]) if method == "expected" and binary else None
        if not keep.all():
            act, Wa, P, f = act[keep], Wa[:, keep], P[:, keep], f[keep]
            tp = None if tp is None else tp[keep]
            sums = None if sums is None else tuple(v[keep] for v in sums)
            if act.size == 0:
                break
        Wf = _weighted_f_weights(q, P, Wa, f, tp, alpha, method, epsilon, bounds, positives,
                                 sums)
        if inner == "step":
            start, kk, tol = theta[act], 1, np.inf
        elif it + 1 < len(path):
            start, kk, tol = path[it + 1] + (theta[act] - path[it]), k, step_tol
        else:
            start, kk, tol = theta[act], k, step_tol
        fit = newton_block(X, q, Wf, start, pen[act], k=kk, step_tol=tol, products=products)
        theta[act] = fit.coef
        ok[act] &= fit.converged
    return OuterFit(coef=best_coef, converged=ok, best_iteration=best_it,
                    iterations=stopped_at, penalty=pen, training_f=best_f)
