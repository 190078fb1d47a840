"""IRLS over a design built block by block: a fit whose design is never held whole.

The design comes from a callable ``design(start, stop)`` returning the rows ``start:stop`` (an
in-memory DataFrame built in row blocks, :class:`fmstats.formula.BlockedFrame`); y, the weights,
the linear predictor and the fitted values are n-vectors in memory.  Each evaluation at a
coefficient vector is one pass over the blocks that returns X'WX, the score and the linear
predictor (the shape of the Dask passes of :mod:`fmstats.glm._dask`), and the Newton loop is
:func:`fmstats.glm._irls.newton_loop`: R's start, the steps, step-halving, stopping rule,
penalty and column scaling are those of :func:`~fmstats.glm.irls_logit`; only the order
of floating-point sums differs (coefficients agree to ~1e-13).

Memory beyond the n-vectors is one block of the design and its scaled copy: at n = 2e6,
p = 50 and 32768 rows a block, ~26 MiB where the whole design takes 763 MiB.  Passes over the
data: one for the columns' ranges and the rank (X'WX), the iterations + 1 (+1 per
step-halving), and one for the hat values and the sandwich meats (HC0, HC2, HC3) that a
results object without its design keeps.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import expit

from ._irls import (SEPARATION_EPS, IrlsFit, Point, binomial_deviance, column_scaling,
                   deviance_from_eta, deviance_scale, gram, information_inverse, logit_probs,
                   newton_loop, r_start_mu, unscale_fit, warn_fit, weighted_loglik)
from ._rowsource import ArraySource, documented_like
from ._separation import NEWTON_REACH

__all__ = ["BlockDesign", "rank_gram_blocks", "irls_logit_blocks", "BlockStats",
           "BlockSource"]


@dataclass(frozen=True)
class BlockDesign:
    """The design as blocks of rows: ``design(start, stop)`` and the (start, stop) ranges.

    Parameters
    ----------
    design : callable
        ``design(start, stop)``: the design of rows start..stop-1.
    ranges : tuple
        The (start, stop) of every block, in order.
    n : int
        The number of rows.
    p : int
        The number of columns.
    sample : callable, optional
        The design of given row positions (None: not available).
    """

    design: Callable[[int, int], np.ndarray]
    ranges: tuple
    n: int
    p: int
    sample: Callable[[np.ndarray], np.ndarray] | None = None   # design of given row positions

    def __iter__(self):
        for a, b in self.ranges:
            yield a, b, self.design(a, b)


def _scaling(rows: BlockDesign, intercept: int | None | str, pen=None):
    """:func:`column_scaling` decided on the rows the in-memory core samples (X[::n // 4096]);
    ``intercept="find"`` looks for the column of ones in that sample."""
    positions = np.arange(0, rows.n, max(1, rows.n // 4096))
    return column_scaling(rows.sample(positions), pen, intercept=intercept)


def rank_gram_blocks(rows: BlockDesign, w: np.ndarray):
    """:func:`fmstats.glm.rank_gram` accumulated over the blocks, and the largest and
    smallest value of every column, in one pass: ``(G, hi, lo, intercept)`` with
    ``intercept`` the first column of ones (None if there is none).

    The column of ones is guessed on the sample the scaling is decided on; when the full
    pass shows the guess wrong and the scaling centred on it, the Gram matrix is summed again.

    Parameters
    ----------
    rows : BlockDesign
        The design, block by block.
    w : ndarray of shape (n,)
        Non-negative row weights.

    Returns
    -------
    tuple
        (G, hi, lo, intercept).
    """
    guess = _scaling(rows, "find")
    hi, lo = np.full(rows.p, -np.inf), np.full(rows.p, np.inf)
    G = np.zeros((rows.p, rows.p))
    for a, b, X in rows:
        if len(X):
            np.maximum(hi, X.max(axis=0), out=hi)
            np.minimum(lo, X.min(axis=0), out=lo)
        G += gram(X if guess is None else guess.transform(X), w[a:b])
    ones = [j for j in range(rows.p) if hi[j] == 1.0 and lo[j] == 1.0]
    intercept = ones[0] if ones else None
    if guess is not None and guess.intercept is not None and guess.intercept != intercept:
        sc = _scaling(rows, intercept)
        G = np.zeros((rows.p, rows.p))
        for a, b, X in rows:
            G += gram(X if sc is None else sc.transform(X), w[a:b])
    return G, hi, lo, intercept


class _BlockProblem:
    """The three evaluations of :func:`~fmstats.glm._irls.newton_loop`, each a pass over blocks."""

    def __init__(self, rows: BlockDesign, y, w, sc):
        self.rows, self.y, self.w, self.sc = rows, y, w, sc
        self.p = rows.p
        self._deviance = deviance_from_eta(y, w)
        self.passes = 0

    def blocks(self):
        self.passes += 1
        for a, b, X in self.rows:
            yield a, b, (X if self.sc is None else self.sc.transform(X))

    def deviance_scale(self) -> float:
        return deviance_scale(float(np.sum(self.w)), int(np.count_nonzero(self.w > 0)))

    def r_start(self):
        y, w = self.y, self.w
        mu0 = r_start_mu(y, w)
        eta0 = np.log(mu0 / (1 - mu0))
        ww = w * mu0 * (1 - mu0)
        z = ww * eta0 + w * (y - mu0)
        H, rhs = np.zeros((self.p, self.p)), np.zeros(self.p)
        for a, b, X in self.blocks():
            H += gram(X, ww[a:b])
            rhs += X.T @ z[a:b]
        return binomial_deviance(y, mu0, w), H, rhs

    def at(self, coef) -> Point:
        y, w = self.y, self.w
        eta = np.empty(self.rows.n)
        H, score = np.zeros((self.p, self.p)), np.zeros(self.p)
        for a, b, X in self.blocks():
            eta[a:b] = X @ coef
            mu = logit_probs(eta[a:b])
            H += gram(X, w[a:b] * mu * (1 - mu))
            score += X.T @ (w[a:b] * (y[a:b] - mu))
        return Point(coef, self._deviance(eta), eta, (H, score))

    def newton(self, pt: Point):
        return pt.extra[0].copy(), pt.extra[1].copy()


@dataclass(frozen=True)
class BlockStats:
    """What the last pass of :func:`irls_logit_blocks` gathers at the solution: the hat values
    and the sandwich meats X' diag(e2) X of HC0, HC2 and HC3 (in the coordinates of the fit's
    column scaling), and how far the next Newton step would move each row (the separation
    screen of :mod:`fmstats.glm._separation`)."""

    hat: np.ndarray
    meats: dict
    reach: np.ndarray

    def covariances(self, fit: IrlsFit) -> dict:
        """The HC0-HC3 sandwich covariances B meat B (B the inverse information), as
        :meth:`fmstats.glm.IrlsFit.sandwich` computes them from the design."""
        V = fit.xtwx_inv if fit.scaling is None else fit.xtwx_inv_scaled
        out = {}
        for name, meat in self.meats.items():
            cov = V @ meat @ V
            out[name] = cov if fit.scaling is None else fit.scaling.cov_to_original(cov)
        n, p = len(self.hat), V.shape[0]
        out["HC1"] = out["HC0"] * (n / (n - p))
        return out


def _final_pass(problem: _BlockProblem, mu, ww, V, score) -> BlockStats:
    y, w = problem.y, problem.w
    step = V @ score
    s = np.where(y == 1, 1.0, np.where(y == 0, -1.0, 0.0))
    e2 = (w * (y - mu)) ** 2
    hat, reach = np.empty(len(y)), np.empty(len(y))
    meats = {k: np.zeros((problem.p, problem.p)) for k in ("HC0", "HC2", "HC3")}
    for a, b, X in problem.blocks():
        reach[a:b] = np.where(w[a:b] > 0, s[a:b] * (X @ step), 0.0)
        h = ww[a:b] * np.einsum("ij,ij->i", X @ V, X)
        hat[a:b] = h
        one_minus_h = 1.0 - h
        one_minus_h = np.where(one_minus_h > 0, one_minus_h, np.inf)
        meats["HC0"] += gram(X, e2[a:b])
        meats["HC2"] += gram(X, e2[a:b] / one_minus_h)
        meats["HC3"] += gram(X, e2[a:b] / one_minus_h ** 2)
    return BlockStats(hat=hat, meats=meats, reach=reach)


def irls_logit_blocks(rows: BlockDesign, y: np.ndarray, weights: np.ndarray, *,
                      intercept: int | None, start=None, penalty=0.0, tol: float = 1e-8,
                      max_iter: int = 25, max_halving: int = 30, warn: bool = True,
                      exact_separation: Callable[[], bool] | None = None
                      ) -> tuple[IrlsFit, BlockStats]:
    """:func:`fmstats.glm.irls_logit` over a design built block by block.

    ``rows`` gives the blocks (and a ``sample`` of given rows, on which the column scaling
    is decided as the in-memory core decides it); ``intercept`` is the position of the column
    of ones (None: there is none), known from :func:`column_extremes`.  Returns the fit
    (``eta``, ``mu`` and the working weights as n-vectors, no design) and the
    :class:`BlockStats` of its last pass.  Separation is R's rule or the Newton screen of
    :mod:`fmstats.glm._separation`, confirmed by ``exact_separation()`` (the linear programme
    on the whole design of a small fit) when given.
    """
    y = np.asarray(y, dtype=float)
    w = np.asarray(weights, dtype=float)
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (rows.p,)).copy()
    penalised = bool(np.any(pen > 0))
    sc = _scaling(rows, intercept, pen)
    pen_s = pen if sc is None else sc.penalty_to_scaled(pen)
    start_s = None if start is None or sc is None else sc.to_scaled(np.asarray(start, float))
    problem = _BlockProblem(rows, y, w, sc)
    pt, it, converged, history = newton_loop(problem, start if sc is None else start_s, pen_s,
                                             penalised, tol, max_iter, max_halving)
    eta = pt.eta
    mu = logit_probs(eta)
    ww = w * mu * (1 - mu)
    V = information_inverse(pt.extra[0], pen_s if penalised else None)
    stats = _final_pass(problem, mu, ww, V, pt.extra[1])
    active = w > 0
    mu_raw = expit(eta)
    n_sep = int(np.count_nonzero(active & ((mu_raw > 1 - SEPARATION_EPS)
                                           | (mu_raw < SEPARATION_EPS))))
    how = "fitted" if n_sep else ""
    if not n_sep and not penalised and np.any(stats.reach > NEWTON_REACH) and (
            exact_separation is None or exact_separation()):
        how, n_sep = "no finite MLE", int(np.count_nonzero(stats.reach > NEWTON_REACH))
    if intercept is not None:
        mu0 = float(np.dot(w, y) / np.sum(w))
    else:
        mu0 = 0.5
    fit = IrlsFit(coef=pt.coef, eta=eta, mu=mu, working_weights=ww, xtwx_inv=V,
                  deviance=float(pt.dev),
                  null_deviance=float(binomial_deviance(y, np.full_like(y, mu0), w)),
                  loglik=weighted_loglik(y, mu, w), iterations=int(it),
                  converged=bool(converged), separated=n_sep > 0,
                  history=np.asarray(history, dtype=float), tol=float(tol),
                  penalty=pen_s if penalised else None, separation=how, n_separated=n_sep)
    if warn:
        closest = float(np.min(np.minimum(mu_raw, 1 - mu_raw)[active])) if n_sep else 0.0
        warn_fit(converged, n_sep > 0, n_sep, it, tol, max_iter, how=how or "fitted",
                 closest=closest)
    if sc is not None:
        fit = unscale_fit(fit, sc, pen if penalised else None)
    return fit, stats


@documented_like(ArraySource)
class BlockSource:
    """The row source of :mod:`fmstats.glm._rowsource` (its ``fit``) over a design built block
    by block; ``stats`` holds the :class:`BlockStats` of the last fit.

    Parameters
    ----------
    rows : BlockDesign
        The design, block by block.
    q : numpy.ndarray
        The response as proportions in [0, 1].
    cw : numpy.ndarray
        The rows' count weights.
    threshold : float
        The probability threshold of the predicted classes.
    intercept : int or None
        The design's column of ones, or None.
    exact_separation : callable, optional
        A function confirming separation exactly (the linear programme), when affordable.
    """

    def __init__(self, rows: BlockDesign, q, cw, threshold: float, *, intercept: int | None,
                 exact_separation=None):
        self.rows, self.q, self.cw, self.threshold = rows, q, cw, threshold
        self.intercept, self.exact_separation = intercept, exact_separation
        self.stats: BlockStats | None = None

    def fit(self, *, start=None, penalty, tol, max_iter) -> IrlsFit:
        fit, self.stats = irls_logit_blocks(self.rows, self.q, self.cw, intercept=self.intercept,
                                            start=start, penalty=penalty, tol=tol,
                                            max_iter=max_iter,
                                            exact_separation=self.exact_separation)
        return fit
