"""k-step replicates as passes over row blocks: every replicate's weights drawn on the blocks.

The out-of-core counterpart of :mod:`fmstats.glm._kstep`.  Resampling a fit whose rows live
in row blocks (a Dask row source, :mod:`fmstats.glm._daskrows`) cannot form the n x m matrix of
the replicates' weights: each block draws its own rows' multiplicities
(:class:`RowDraws`: Poisson(1) counts, or fold memberships) from the rows' *global positions*
with a counter-based generator (:mod:`fmstats._utils.rowrng`), so the draws -- and so every
replicate -- do not depend on how the rows are partitioned.  Every quantity a Newton step
needs is a sum over rows (X' W (y - p), the m Hessians X' diag(W p (1 - p)) X), so one pass
over the blocks updates *all* replicates at once, and the client only solves m small systems.

The algorithms are those of :mod:`fmstats.glm._kstep`, pass by pass: ``newton_passes`` is
``newton_block`` (the same start, step rule and non-finite handling), ``outer_passes`` is
``fmaxent_block`` (each replicate's own standardised ridge, its weighted fits started from the
full-data fit's iterate of the same index shifted by the replicate's deviation, its own best
iterate and stopping rule).  Given the same multiplicities they return the same numbers up to
the order of floating-point sums (``tests/test_dask_workflow.py`` checks it).

Passes: a maxent replicate round is 1 (constants and the linear start) + its Newton steps
(2-3 typically) + 1 (training F); an fmaxent round is 1 + the baseline's steps + per outer
iteration 2 (the metrics; the weights' scale) + the weighted fit's steps.  Each pass costs
about m / p times one IRLS pass (m replicates, p columns).

``sums(fn, positions=True, n_max=, **kwargs)`` is the row source's pass
(:meth:`fmstats.glm.DaskSource.sums`, :meth:`fmstats.glm.ArraySource.sums`):
``fn(X, q, c, positions, **kwargs)`` per block, summed.  Pure numpy otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from scipy.special import expit

from .._utils.rowrng import poisson_counts, row_folds
from ._kstep import column_products, step_state, take_steps
from ._fweights import f_of_counts, noisy_f_weights, smooth_g1, smooth_g2, weight_scale

__all__ = ["RowDraws", "PassFit", "OuterPassFit", "newton_passes", "outer_passes",
           "replicate_constants", "training_f_passes", "margins_pass"]

_EPS = np.finfo(float).eps


@dataclass(frozen=True)
class RowDraws:
    """The multiplicities of m replicates, drawn on each block from the rows' positions.

    Either ``keys`` (Poisson(1) counts, one Philox key per replicate) or a fold assignment
    (``fold_key``, ``folds``) with, per replicate, the fold it leaves out (``held``: its
    multiplicities are 1 outside that fold and 0 inside) or, with ``held_in=True``, the only
    fold it keeps (its scored rows).

    Parameters
    ----------
    keys : ndarray of shape (m, 2), optional
        Poisson replicates' keys (:func:`fmstats._utils.rowrng.replicate_keys`).
    fold_key : ndarray of shape (2,), optional
        The fold assignment's key (:func:`fmstats._utils.rowrng.fold_key`).
    folds : int
        The number of folds.
    held : ndarray of shape (m,), optional
        The fold each replicate holds out.
    """

    keys: np.ndarray | None = None
    fold_key: np.ndarray | None = None
    folds: int = 0
    held: np.ndarray | None = None

    @property
    def m(self) -> int:
        """The number of replicates."""
        return len(self.keys) if self.keys is not None else len(self.held)

    def take(self, cols) -> "RowDraws":
        """The draws of replicates ``cols``.

        Parameters
        ----------
        cols : array-like of int
            The replicates.

        Returns
        -------
        RowDraws
            The draws of those replicates.
        """
        cols = np.asarray(cols)
        if self.keys is not None:
            return replace(self, keys=self.keys[cols])
        return replace(self, held=self.held[cols])

    def block(self, positions) -> np.ndarray:
        """The multiplicities (len(positions), m) of the rows at ``positions``.

        Parameters
        ----------
        positions : ndarray of int
            The rows' global positions.

        Returns
        -------
        ndarray of shape (len(positions), m)
            The multiplicities.
        """
        if self.keys is not None:
            return poisson_counts(self.keys, positions)
        fold = row_folds(self.fold_key, positions, self.folds)
        return (fold[:, None] != self.held[None, :]).astype(float)

    def fold_of(self, positions) -> np.ndarray:
        """The fold of each row (fold draws only).

        Parameters
        ----------
        positions : ndarray of int
            The rows' global positions.

        Returns
        -------
        ndarray of int
            The fold of each row.
        """
        return row_folds(self.fold_key, positions, self.folds)


def _rows(X, q, c, positions, draws: RowDraws):
    """A block's aligned rows and its weight matrix W = c x multiplicities (n_b, m)."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    q = np.asarray(q, dtype=float).reshape(-1)
    c = np.ones(len(q)) if c is None else np.asarray(c, dtype=float).reshape(-1)
    return X, q, c, c[:, None] * draws.block(np.asarray(positions).reshape(-1))


def _probabilities(E):
    """expit clipped to [eps, 1 - eps] (R's ``binomial()$linkinv``, as :mod:`._kstep`)."""
    return np.clip(expit(E), _EPS, 1 - _EPS)


def _tri(X, A) -> np.ndarray:
    """The upper triangles (m, p(p+1)/2) of X' diag(A[:, b]) X."""
    Z = column_products(X)
    return A.T @ Z if Z is not None else _tri_chunked(X, A)


def _tri_chunked(X, A):
    j, k = np.triu_indices(X.shape[1])
    out = np.zeros((A.shape[1], len(j)))
    step = max(1, 2 ** 20 // max(len(j), 1))
    for a in range(0, X.shape[0], step):
        out += A[a:a + step].T @ (X[a:a + step, j] * X[a:a + step, k])
    return out


def _full(tri: np.ndarray, p: int) -> np.ndarray:
    """(m, p, p) symmetric matrices from their upper triangles."""
    j, k = np.triu_indices(p)
    H = np.empty((tri.shape[0], p, p))
    H[:, j, k] = tri
    H[:, k, j] = tri
    return H


def _solve(H: np.ndarray, S: np.ndarray):
    """(H_b^-1 S_b, sqrt(diag H_b^-1), ok): Newton steps and standard errors of m systems;
    not ok (NaN) where H_b is not finite, not positive definite or near singular (its
    Cholesky diagonal, on the unit-diagonal scale, below 1e-7 of its largest entry)."""
    m, p, _ = H.shape
    step = np.full((m, p), np.nan)
    se = np.full((m, p), np.nan)
    ok = np.zeros(m, dtype=bool)
    for b in range(m):
        h = H[b]
        d = np.sqrt(np.clip(np.diag(h), 0.0, None))
        if not (np.all(np.isfinite(h)) and np.all(d > 0)):
            continue
        try:
            L = np.linalg.cholesky(h / np.outer(d, d))
        except np.linalg.LinAlgError:
            continue
        ld = np.diag(L)
        if ld.min() <= 1e-7 * ld.max():
            continue
        Linv = np.linalg.solve(L, np.eye(p))
        inv = (Linv.T @ Linv) / np.outer(d, d)
        step[b], se[b], ok[b] = inv @ S[b], np.sqrt(np.clip(np.diag(inv), 0.0, None)), True
    return step, se, ok


# ----------------------------------------------------------------------------- passes
def _constants_block(X, q, c, positions, draws, center, psi_fn, psi_args):
    """Per replicate: sum W, sum W q, sum W (x - center), sum W (x - center)^2, and the linear
    part sum (M - 1) psi (psi: ``psi_fn(X, q, c, **psi_args)``, the influence rows; zeros
    without)."""
    X, q, c, W = _rows(X, q, c, positions, draws)
    Xc = X - center
    out = [W.sum(axis=0), q @ W, (Xc.T @ W).T.ravel(), ((Xc * Xc).T @ W).T.ravel()]
    if psi_fn is not None:
        M = W / np.where(c > 0, c, 1.0)[:, None]
        out.append(((M - 1.0).T @ psi_fn(X, q, c, **psi_args)).ravel())
    return np.concatenate(out)


@dataclass(frozen=True)
class Constants:
    """Per replicate: total weight, weighted sum of q, weighted column variances, and the
    linear part mean((M - 1) psi) (None without influence rows)."""

    total: np.ndarray
    sum_q: np.ndarray
    var: np.ndarray
    linear: np.ndarray | None


def replicate_constants(sums: Callable, draws: RowDraws, center, n: int, psi_fn=None,
                        psi_args=None) -> Constants:
    """One pass: the replicates' :class:`Constants` (``center``: the column means, for an
    accurate variance; ``psi_fn``: a block's influence rows, for the linear parts).

    Parameters
    ----------
    sums : callable
        A row source's ``sums`` (one pass over the row blocks).
    draws : RowDraws
        The replicates' multiplicities.
    center : ndarray of shape (p,)
        The columns' means.
    n : int
        The number of rows.
    psi_fn : callable, optional
        The influence rows of a block (None: no linear parts).
    psi_args : dict, optional
        Keyword arguments of ``psi_fn``.

    Returns
    -------
    Constants
        Per replicate: total weight, weighted sum of q, column variances, linear parts.
    """
    m, p = draws.m, len(center)
    v = sums(_constants_block, positions=True, draws=draws, center=np.asarray(center, float),
             psi_fn=psi_fn, psi_args=psi_args or {})
    total, sum_q = v[:m], v[m:2 * m]
    s1 = v[2 * m:2 * m + m * p].reshape(m, p) / total[:, None]
    s2 = v[2 * m + m * p:2 * m + 2 * m * p].reshape(m, p) / total[:, None]
    linear = v[2 * m + 2 * m * p:].reshape(m, p) / n if psi_fn is not None else None
    return Constants(total=total, sum_q=sum_q, var=np.clip(s2 - s1 ** 2, 0.0, None),
                     linear=linear)


def _newton_block(X, q, c, positions, draws, theta, margins, weights=None):
    """At each replicate's theta: X'W(q - p) (m, p), the Hessians' triangles, and with
    ``margins`` -min over its weighted rows of min(p, 1 - p) (combined by maximum).
    ``weights`` (:func:`_fweights`) replaces W by the replicates' F-weighted weights."""
    X, q, c, W = _rows(X, q, c, positions, draws)
    if weights is not None:
        W = _fweights(X, q, W, **weights)
    P = _probabilities(X @ theta.T)
    out = [(X.T @ (W * (q[:, None] - P))).T.ravel(), _tri(X, W * P * (1.0 - P)).ravel()]
    if margins:
        out.append(-np.where(W > 0, np.minimum(P, 1.0 - P), 1.0).min(axis=0, initial=1.0))
    return np.concatenate(out)


@dataclass(frozen=True)
class PassFit:
    """Newton passes of m replicates (the fields of :class:`fmstats.glm.BlockFit`), and the
    passes taken."""

    coef: np.ndarray
    converged: np.ndarray
    steps: np.ndarray
    se: np.ndarray
    margin: np.ndarray
    passes: int


def newton_passes(sums: Callable, draws: RowDraws, start, penalty, *, k: int,
                  step_tol: float, margins: bool = False, weights: dict | None = None,
                  on_pass: Callable | None = None) -> PassFit:
    """:func:`fmstats.glm.newton_block` as passes: up to ``k`` Newton steps of every
    replicate's penalised weighted likelihood, one pass per step for all active replicates.

    ``start`` (p,) or (m, p); ``penalty`` (p,) or (m, p); ``weights``: the F-weights'
    settings (fmaxent's weighted fits, :func:`_fweights`), with per-replicate arrays.

    Parameters
    ----------
    sums : callable
        A row source's ``sums`` (one pass over the row blocks).
    draws : RowDraws
        The replicates' multiplicities.
    start : ndarray of shape (p,) or (m, p)
        Where each fit starts.
    penalty : float or ndarray of shape (p,) or (m, p)
        The ridge of each coefficient (of each fit).
    k : int
        The most Newton steps.
    step_tol : float
        A fit stops when its last step moved every coefficient by less than this many
        standard errors.
    margins : bool, default False
        Also report each fit's smallest min(p, 1 - p) over its weighted rows.
    weights : dict, optional
        The F-weights' settings of fmaxent's weighted fits, with per-replicate arrays.
    on_pass : callable, optional
        Called after every pass (a progress bar).

    Returns
    -------
    PassFit
        The replicates' fits and the passes taken.
    """
    m, p = draws.m, np.shape(start)[-1]
    theta, pen, converged, steps, se_out, margin, active = step_state(start, penalty, m, p)
    passes = 0
    for _ in range(int(k)):
        if active.size == 0:
            break
        a = active.size
        w = None if weights is None else _take_weights(weights, active)
        v = sums(_newton_block, positions=True, n_max=a if margins else 0,
                 draws=draws.take(active), theta=theta[active], margins=margins, weights=w)
        passes += 1
        if on_pass is not None:
            on_pass()
        S = v[:a * p].reshape(a, p) - pen[active] * theta[active]
        H = _full(v[a * p:a * p + a * p * (p + 1) // 2].reshape(a, -1), p)
        H[:, np.arange(p), np.arange(p)] += pen[active]
        if margins:
            margin[active] = -v[-a:]
        delta, se, ok = _solve(H, S)
        active = take_steps(theta, delta, se, ok, active, se_out, steps, converged, step_tol)
    return PassFit(coef=theta, converged=converged, steps=steps, se=se_out, margin=margin,
                   passes=passes)


def _training_f_block(X, q, c, positions, draws, theta, threshold):
    X, q, c, W = _rows(X, q, c, positions, draws)
    Wpred = W * (expit(X @ theta.T) >= threshold)
    return np.concatenate([q @ Wpred, Wpred.sum(axis=0), q @ W])


def training_f_passes(sums, draws: RowDraws, coef, threshold, alpha) -> np.ndarray:
    """One pass: the F of each replicate's predicted classes on its weighted rows.

    Parameters
    ----------
    sums : callable
        A row source's ``sums`` (one pass over the row blocks).
    draws : RowDraws
        The replicates' multiplicities.
    coef : ndarray of shape (m, p)
        The replicates' coefficients.
    threshold : float
        The probability threshold of the predicted classes.
    alpha : float
        The F-measure's weight on precision.

    Returns
    -------
    ndarray of shape (m,)
        The training F of each replicate.
    """
    m = draws.m
    v = sums(_training_f_block, positions=True, draws=draws, theta=coef, threshold=threshold)
    tp, pos, truth = v[:m], v[m:2 * m], v[2 * m:]
    return f_of_counts(tp, pos - tp, truth - tp, alpha)


def _margins_block(X, q, c, positions, draws, theta):
    X, q, c, W = _rows(X, q, c, positions, draws)
    P = expit(X @ theta.T)
    return -np.where(W > 0, np.minimum(P, 1.0 - P), 1.0).min(axis=0, initial=1.0)


def margins_pass(sums, draws: RowDraws, coef) -> np.ndarray:
    """One pass: each replicate's smallest min(p, 1 - p) over its weighted rows.

    Parameters
    ----------
    sums : callable
        A row source's ``sums`` (one pass over the row blocks).
    draws : RowDraws
        The replicates' multiplicities.
    coef : ndarray of shape (m, p)
        The replicates' coefficients.

    Returns
    -------
    ndarray of shape (m,)
        The smallest min(p, 1 - p) of each replicate.
    """
    return -sums(_margins_block, positions=True, n_max=draws.m, draws=draws, theta=coef)


# ----------------------------------------------------------------------------- fmaxent
def _raw_fweights(q, P, f, tp, alpha, method, epsilon):
    """The raw F-weights of every replicate at its probabilities P (n_b, m)."""
    if method == "expected":       # (4.2): 1 - p for negatives, (1 - aF)/(aF) p for positives
        fw = 1.0 - P
        pos = q == 1
        fw[pos] = P[pos] * ((1.0 - alpha * f) / (alpha * f))[None, :]
        return fw
    return noisy_f_weights(q[:, None], P, f, tp, alpha, epsilon)


def _fweights(X, q, W, theta, f, tp, scale, alpha, method, epsilon, bounds):
    """W times the replicates' F-weights of their iterate ``theta``: raw weights over their
    scale, clipped (as :mod:`fmstats.glm._kstep` computes them)."""
    fw = _raw_fweights(q, _probabilities(X @ theta.T), f, tp, alpha, method, epsilon) / scale
    if bounds is not None:
        np.clip(fw, bounds[0], bounds[1], out=fw)
    fw *= W
    return fw


def _take_weights(weights: dict, cols) -> dict:
    out = dict(weights)
    for key in ("theta", "f", "tp", "scale"):
        if out.get(key) is not None:
            out[key] = out[key][cols]
    return out


def _metrics_block(X, q, c, positions, draws, theta, threshold, method, epsilon):
    """Per replicate: TP and positives of the predicted classes, sum W p, the target's TP
    (expected: sum W q p; noisy: sum W min(q, p)) and the smoothed TP and TN (section 7.2)."""
    X, q, c, W = _rows(X, q, c, positions, draws)
    P = _probabilities(X @ theta.T)
    Wpred = W * (P >= threshold)
    WP = W * P
    tp_t = q @ WP if method == "expected" else (W * np.minimum(q[:, None], P)).sum(axis=0)
    out = [q @ Wpred, Wpred.sum(axis=0), WP.sum(axis=0), tp_t]
    if method == "noisy" and epsilon is not None:
        d = P - q[:, None]
        out += [(W * (P - smooth_g1(d, epsilon))).sum(axis=0),
                (W * ((1 - q)[:, None] - smooth_g2(d, epsilon))).sum(axis=0)]
    return np.concatenate(out)


def _scale_block(X, q, c, positions, draws, theta, f, tp, alpha, method, epsilon):
    """Per replicate: sum W fw and sum W over the rows with a finite raw weight."""
    X, q, c, W = _rows(X, q, c, positions, draws)
    fw = _raw_fweights(q, _probabilities(X @ theta.T), f, tp, alpha, method, epsilon)
    good = np.isfinite(fw) & (W > 0)
    return np.concatenate([(np.where(good, fw, 0.0) * W).sum(axis=0),
                           np.where(good, W, 0.0).sum(axis=0)])


@dataclass(frozen=True)
class OuterPassFit:
    """The fields of :class:`fmstats.glm.OuterFit`, and the passes taken."""

    coef: np.ndarray
    converged: np.ndarray
    best_iteration: np.ndarray
    iterations: np.ndarray
    penalty: np.ndarray
    training_f: np.ndarray
    passes: int


class _Loop:
    """The outer loop's bookkeeping for m replicates at once: each one's best iterate so far
    (by its criterion), and the ``patience`` rule that stops it (Algorithms 4.1 / 7.1, as
    :func:`fmstats.glm.outer_loop` applies them to one fit)."""

    def __init__(self, m: int, theta, max_outer, patience, min_improvement, rel_improvement):
        self.crit = np.full(m, -np.inf)
        self.it = np.zeros(m, dtype=np.int64)
        self.coef = theta.copy()
        self.f = np.full(m, np.nan)
        self.curve = np.full((max_outer + 1, m), np.nan)
        self.running = np.ones(m, dtype=bool)
        self.stopped_at = np.full(m, max_outer, dtype=np.int64)
        self.rule = (int(patience), float(min_improvement), float(rel_improvement))

    def record(self, it: int, act, crit, theta, f_det) -> np.ndarray:
        """Keep the better iterates of replicates ``act`` at iteration ``it``; return which of
        them go on (the others' last ``patience`` iterations did not improve enough)."""
        better = crit > self.crit[act]
        upd = act[better]
        self.crit[upd], self.it[upd], self.coef[upd] = crit[better], it, theta[upd]
        self.f[upd] = f_det[better]
        self.curve[it, act] = self.crit[act]
        patience, least, share = self.rule
        if it < patience:
            return np.ones(act.size, dtype=bool)
        now = self.curve[it, act]
        stop = (now - self.curve[it - patience, act]
                <= np.maximum(least, share * (now - self.curve[0, act])))
        self.stop(it, act[stop])
        return ~stop

    def stop(self, it: int, cols) -> None:
        self.stopped_at[cols] = it
        self.running[cols] = False


def _weights_target(method, smoothed, alpha, v, a, target, tp_t, f_det, tp_det, neg, sq):
    """(F, TP) that the F-weights of the next weighted fit take (None: the plug-in F is 0)."""
    if method == "expected":
        return target, None
    if method == "noisy":
        if not smoothed:
            return target, tp_t
        tps, tns = v[4 * a:5 * a], v[5 * a:6 * a]
        return tps / (alpha * (tps - tns) + alpha * neg + (1 - alpha) * sq), tps
    return f_det, tp_det


def outer_passes(sums, draws: RowDraws, path, constants: Constants, *, alpha, method,
                 epsilon, bounds, inner, max_outer, patience, min_improvement,
                 rel_improvement, select, threshold, prior_penalty, shrinkage,
                 k: int, step_tol: float, on_pass: Callable | None = None) -> OuterPassFit:
    """:func:`fmstats.glm.fmaxent_block` as passes over the row blocks (module notes).

    Parameters
    ----------
    sums : callable
        A row source's ``sums`` (one pass over the row blocks).
    draws : RowDraws
        The replicates' multiplicities.
    path : ndarray of shape (K + 1, p)
        The full-data fit's iterates theta_0 (the unweighted fit) ... theta_K.
    constants : Constants
        The replicates' :func:`replicate_constants`.
    alpha, method, epsilon, bounds, inner, max_outer, patience, min_improvement, \
rel_improvement, select, threshold
        The outer loop's settings, as :func:`fmstats.fmaxent` takes them.
    prior_penalty : ndarray of shape (p,)
        The ridge on the raw coefficients (``penalty``, 0 for the intercept).
    shrinkage : float
        The standardised ridge per observation, recomputed on each replicate's rows.
    k : int
        The most Newton steps per weighted fit.
    step_tol : float
        The step rule of each weighted fit (:func:`newton_block`).
    on_pass : callable, optional
        Called after every pass (a progress bar).

    Returns
    -------
    OuterPassFit
        The replicates' fits and the passes taken.
    """
    m = draws.m
    path = np.asarray(path, dtype=float)
    total, sum_q = constants.total, constants.sum_q
    pen = prior_penalty[None, :] + shrinkage * total[:, None] * constants.var
    passes = 0

    def one_pass(fn, cols, **kwargs):
        nonlocal passes
        passes += 1
        v = sums(fn, positions=True, draws=draws.take(cols), theta=theta[cols], **kwargs)
        if on_pass is not None:
            on_pass()
        return v

    def newton(cols, start, kk, tol, weights=None):
        nonlocal passes
        fit = newton_passes(sums, draws.take(cols), start, pen[cols], k=kk, step_tol=tol,
                            weights=weights, on_pass=on_pass)
        passes += fit.passes
        return fit

    base = newton(np.arange(m), path[0], k, step_tol)
    theta = base.coef
    ok = base.converged.copy()
    loop = _Loop(m, theta, max_outer, patience, min_improvement, rel_improvement)
    smoothed = method == "noisy" and epsilon is not None
    for it in range(max_outer + 1):
        act = np.flatnonzero(loop.running & ok)
        if act.size == 0:
            break
        a = act.size
        v = one_pass(_metrics_block, act, threshold=threshold, method=method, epsilon=epsilon)
        tp_det, pos, sp, tp_t = (v[j * a:(j + 1) * a] for j in range(4))
        sq = sum_q[act]
        f_det = f_of_counts(tp_det, pos - tp_det, sq - tp_det, alpha)
        target = f_det if method == "plugin" else f_of_counts(tp_t, sp - tp_t, sq - tp_t, alpha)
        keep = loop.record(it, act, target if select == "target" else f_det, theta, f_det)
        if it == max_outer:
            loop.running[act] = False
            break
        f, tp = _weights_target(method, smoothed, alpha, v, a, target, tp_t, f_det, tp_det,
                                total[act] - sq, sq)
        if method == "plugin":
            dead = keep & (tp <= 0)         # the plug-in F is 0: the loop stops (no weights)
            loop.stop(it, act[dead])
            keep &= ~dead
        act, f = act[keep], f[keep]
        tp = None if tp is None else tp[keep]
        if act.size == 0:
            break
        a = act.size
        v = one_pass(_scale_block, act, f=f, tp=tp, alpha=alpha, method=method,
                     epsilon=epsilon)
        scale = np.array([weight_scale(s, t) for s, t in zip(v[:a], v[a:])])
        weights = dict(theta=theta[act], f=f, tp=tp, scale=scale, alpha=alpha, method=method,
                       epsilon=epsilon, bounds=bounds)
        if inner == "step":
            start, kk, tol = theta[act], 1, np.inf
        elif it + 1 < len(path):
            start, kk, tol = path[it + 1] + (theta[act] - path[it]), k, step_tol
        else:
            start, kk, tol = theta[act], k, step_tol
        fit = newton(act, start, kk, tol, weights)
        theta[act] = fit.coef
        ok[act] &= fit.converged
    return OuterPassFit(coef=loop.coef, converged=ok, best_iteration=loop.it,
                        iterations=loop.stopped_at, penalty=pen, training_f=loop.f,
                        passes=passes)
