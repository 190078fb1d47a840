"""Row sources: the data a maxent-family core iterates over, in memory or in chunks.

The IRLS fit of :func:`fmstats.maxent` and the outer loop of the F-maximiser
(:func:`fmstats.fmaxent`) see their data only through this interface, so the same
code fits a design held in memory (:class:`ArraySource`, here) and one held in chunks of a Dask
DataFrame (:class:`fmstats.glm.DaskSource`, each method one or two passes that sum
per-chunk results: X'WX, scores, metric counts)::

    fit(start=, penalty=, tol=, max_iter=)      IRLS fit with the count weights (IrlsFit-like)
    has_positives()                             some active row has q > 0
    baseline(penalty, tol, max_iter) -> coef    the unweighted fit's coefficients
    iterate(coef, alpha, epsilon) -> Iterate    F-measure sums at coef (fmstats.glm._fweights)
    smoothed_counts(it, alpha, epsilon)         smoothed noisy counts (tp, ., f)
    fweights(it, method, f, tp, alpha, epsilon, bounds)   F-weights, mean 1, clipped
    unit_weights()                              the weights of iteration 0
    column_variances() -> (total, var)          weighted column variances (shrinkage)
    weight_range(fw) -> (min, max)
    refit(fw, coef, penalty=, tol=, max_iter=)  warm-started IRLS with weights cw * fw
    evaluate(fw, coef, penalty)                 the fit at coef (covariance, deviance)

Used by :mod:`fmstats.maxent_models._prepare` (which builds an :class:`ArraySource`), :mod:`fmstats.maxent_models._maxent` and
:mod:`fmstats.maxent_models._fmaxent`.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import expit

from ._fweights import (TINY, Iterate, expected_f_weights, metric_sums, metrics_from_sums,
                       noisy_f_weights, smoothed_noisy_counts, weight_scale)
from ._irls import irls_coef, irls_evaluate, irls_logit

__all__ = ["ArraySource"]


class ArraySource:
    """A row source in memory: the design X, response q and count weights cw as arrays, and
    an optional offset (a known part of the linear predictor, eta = X b + offset)."""

    def __init__(self, X, q, cw, threshold: float, terms=None, offset=None, start_gram=None):
        self.X, self.q, self.cw, self.threshold = X, q, cw, threshold
        self.terms = terms      # (label, columns, names) of the design's terms, for warnings
        self.offset = offset
        self.start_gram = start_gram        # X'WX at IRLS's start, when known (irls_logit)
        self.sum_q = float(np.dot(cw, q))
        self.active = cw > 0

    def has_positives(self) -> bool:
        return bool(np.any((self.q > 0) & self.active))

    def fit(self, *, start=None, penalty, tol, max_iter):
        """The weighted IRLS fit of q on X with the count weights."""
        return irls_logit(self.X, self.q, self.cw, start=start, penalty=penalty, tol=tol,
                          max_iter=max_iter, terms=self.terms, offset=self.offset,
                          start_gram=self.start_gram)

    def baseline(self, penalty, tol, max_iter) -> np.ndarray:
        return self.fit(penalty=penalty, tol=tol, max_iter=max_iter).coef

    def iterate(self, coef, alpha: float, epsilon: float | None) -> Iterate:
        q, cw = self.q, self.cw
        eta = self.X @ coef
        p = np.clip(expit(eta if self.offset is None else eta + self.offset), TINY, 1 - TINY)
        pred = (p >= self.threshold).astype(float)
        sums = metric_sums(q, p, pred, cw)
        return Iterate(*metrics_from_sums(sums, alpha, self.sum_q), loglik=sums[5], p=p)

    def smoothed_counts(self, it: Iterate, alpha: float, epsilon: float):
        return smoothed_noisy_counts(self.q, it.p, self.cw, alpha, epsilon)

    def fweights(self, it: Iterate, method, f, tp, alpha, epsilon, bounds):
        """The F-weights at an iterate, scaled to mean 1 over the active rows (a mean weighted
        by the count weights, so that a row of weight k acts as k rows), then clipped."""
        if method == "expected":
            fw = expected_f_weights(self.q, it.p, f, alpha)
        else:
            fw = noisy_f_weights(self.q, it.p, f, tp, alpha, epsilon)
        ok = np.isfinite(fw) & self.active
        fw = fw / weight_scale(float(np.dot(fw[ok], self.cw[ok])), float(np.sum(self.cw[ok])))
        if bounds is not None:
            fw = np.clip(fw, bounds[0], bounds[1])
        return fw

    def unit_weights(self):
        return np.ones_like(self.q)

    def column_variances(self) -> tuple[float, np.ndarray]:
        """Total count weight and the weighted variance of each column (two passes)."""
        cw = self.cw
        total = float(cw.sum())
        if sparse.issparse(self.X):        # E[x^2] - E[x]^2 (centring would densify X)
            mean = (self.X.T @ cw) / total
            return total, np.maximum((self.X.multiply(self.X).T @ cw) / total - mean ** 2, 0.0)
        mean = (cw @ self.X) / total
        return total, (cw @ (self.X - mean) ** 2) / total

    def weight_range(self, fw) -> tuple[float, float]:
        return float(fw.min()), float(fw.max())

    def refit(self, fw, coef, *, penalty, tol, max_iter) -> np.ndarray:
        return irls_coef(self.X, self.q, self.cw * fw, coef, penalty=penalty, tol=tol,
                         max_iter=max_iter, offset=self.offset)

    def sums(self, fn, *, positions: bool = False, n_max: int = 0, **kwargs) -> np.ndarray:
        """``fn(X, q, cw, **kwargs)``: the rows as one block (see
        :meth:`fmstats.glm.DaskSource.sums`; ``positions`` passes 0 .. n - 1)."""
        extra = (np.arange(self.n_rows),) if positions else ()
        return np.asarray(fn(self.X, self.q, self.cw, *extra, **kwargs), dtype=float)

    def gather(self, fn, *, positions: bool = False, **kwargs) -> list:
        """``[fn(X, q, cw[, positions], **kwargs)]``: the rows as one block."""
        extra = (np.arange(self.n_rows),) if positions else ()
        return [fn(self.X, self.q, self.cw, *extra, **kwargs)]

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return int(self.X.shape[0])

    def evaluate(self, fw, coef, penalty):
        return irls_evaluate(self.X, self.q, self.cw * fw, coef, penalty=penalty,
                             offset=self.offset)
