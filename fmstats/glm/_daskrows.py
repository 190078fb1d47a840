"""The row source of :mod:`fmstats.glm._rowsource` on dask arrays (out of core).

Every method is one or two passes over the row blocks (:func:`fmstats.glm.block_sums`);
only sums of a few numbers per block reach the client.  Built by :mod:`fmstats.maxent_models._outofcore`
for a Dask DataFrame; used by the maxent and fmaxent cores through the row-source interface.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._dask import block_results, block_sums, irls_evaluate_dask, irls_logit_dask, map_rows
from ._rowsource import ArraySource, documented_like
from ._fweights import (TINY, Iterate, expected_f_weights, metric_sums, metrics_from_sums,
                       noisy_f_weights, smoothed_from_sums, smoothed_sums, weight_scale)

__all__ = ["DaskSource"]


@dataclass(frozen=True)
class _DaskWeights:
    """F-weights clip(raw / mean) as a persisted dask array ``raw`` and the scalars."""

    raw: object
    mean: float
    bounds: tuple | None
    range: tuple
    active_range: tuple


def _iterate_block(X, q, cw, coef, threshold, epsilon):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(len(q)) if cw is None else cw
    p = np.clip(expit(X @ coef), TINY, 1 - TINY)
    pred = (p >= threshold).astype(float)
    out = metric_sums(q, p, pred, cw)
    if epsilon is not None:
        out += list(smoothed_sums(q, p, cw, epsilon))
    return np.asarray(out)


def _colsum_block(X, cw):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(X.shape[0]) if cw is None else cw
    return np.concatenate([[cw.sum()], cw @ X])


def _centred_sq_block(X, cw, mean):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(X.shape[0]) if cw is None else cw
    return cw @ (X - mean) ** 2


def _raw_fweights_block(X, q, coef, method, f, tp, alpha, epsilon):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    p = np.clip(expit(X @ coef), TINY, 1 - TINY)
    if method == "expected":
        return expected_f_weights(q, p, f, alpha)
    return noisy_f_weights(q, p, f, tp, alpha, epsilon)


def _norm_block(raw, cw):
    """Count-weighted sum and total count weight of the finite weights on active rows (their
    ratio is the mean a row of weight k enters k times); min and max, overall and active."""
    act = np.ones(len(raw), dtype=bool) if cw is None else cw > 0
    ok = np.isfinite(raw) & act
    ra = raw[act]
    if cw is None:
        s, n = float(np.sum(raw[ok])), float(np.count_nonzero(ok))
    else:
        s, n = float(np.sum(raw[ok] * cw[ok])), float(np.sum(cw[ok]))
    return np.array([s, n,
                     -np.min(raw, initial=np.inf), np.max(raw, initial=-np.inf),
                     -np.min(ra, initial=np.inf), np.max(ra, initial=-np.inf)])


def _weights_block(raw, cw, mean, bounds):
    fw = raw / mean
    if bounds is not None:
        fw = np.clip(fw, bounds[0], bounds[1])
    return fw if cw is None else cw * fw


@documented_like(ArraySource)
class DaskSource:
    """A row source on persisted dask arrays (the interface of :mod:`fmstats.glm._rowsource`):
    a fit is iterations + 1 passes; per outer iteration of the F-maximiser one pass for the
    metrics, one for the raw F-weights (persisted) and their normalisation, then the
    warm-started IRLS.  ``sum_q`` is sum cw q, known from the checks pass.

    Parameters
    ----------
    X : dask.array.Array
        The design, in row blocks (persisted).
    q : dask.array.Array
        The response as proportions in [0, 1].
    cw : dask.array.Array or None
        The rows' count weights (None: all 1).
    threshold : float
        The probability threshold of the predicted classes.
    sum_q : float
        The sum of cw q (known from the data checks' pass).
    first_pass : numpy.ndarray, optional
        R's start of the fit, summed by the data checks' pass (:func:`start_sums`).
    column_sums : tuple, optional
        (sum cw, cw @ X), summed by the data checks' pass.
    """

    def __init__(self, X, q, cw, threshold: float, sum_q: float, first_pass=None,
                 column_sums=None):
        self.X, self.q, self.cw = X, q, cw
        self.threshold = threshold
        self.sum_q = sum_q
        self.first_pass = first_pass      # R's start of the fit, summed by the data checks
        self.column_sums = column_sums    # (sum cw, cw @ X), summed by the data checks

    def has_positives(self) -> bool:
        return True  # the out-of-core checks reject a response without positives (single class)

    def fit(self, *, start=None, penalty, tol, max_iter):
        return irls_logit_dask(self.X, self.q, self.cw, start=start, penalty=penalty, tol=tol,
                               max_iter=max_iter, persist=False, first_pass=self.first_pass)

    def baseline(self, penalty, tol, max_iter) -> np.ndarray:
        return self.fit(penalty=penalty, tol=tol, max_iter=max_iter).coef

    def iterate(self, coef, alpha, epsilon) -> Iterate:
        v = block_sums(_iterate_block, self.X, self.q, self.cw, coef=coef,
                       threshold=self.threshold, epsilon=epsilon)
        return Iterate(*metrics_from_sums(v[:6], alpha, self.sum_q), loglik=float(v[5]),
                        coef=coef, smoothed=tuple(v[6:10]) if epsilon is not None else None)

    def smoothed_counts(self, it: Iterate, alpha, epsilon):
        return smoothed_from_sums(it.smoothed, alpha)

    def fweights(self, it: Iterate, method, f, tp, alpha, epsilon, bounds) -> _DaskWeights:
        """Two passes: the F-weights at an iterate, persisted, scaled to mean 1, clipped.

        Parameters
        ----------
        it : Iterate
            The iterate (its coefficients).
        method : {"expected", "noisy"}
            The F-weights' formula.
        f : float
            The iterate's F.
        tp : float
            The iterate's true positives.
        alpha : float
            The F-measure's weight on precision.
        epsilon : float or None
            The smoothing of the noisy weights.
        bounds : tuple of float or None
            (low, high) clip of the scaled weights.

        Returns
        -------
        object
            The persisted F-weights (dask) with their range.
        """
        raw = map_rows(_raw_fweights_block, self.X, self.q, coef=it.coef, method=method, f=f,
                       tp=tp, alpha=alpha, epsilon=epsilon).persist()
        s, n, lo, hi, alo, ahi = block_sums(_norm_block, raw, self.cw, n_max=4)
        mean = weight_scale(s, n)

        def scaled(x):
            x = x / mean
            return float(np.clip(x, *bounds)) if bounds is not None else float(x)

        return _DaskWeights(raw=raw, mean=mean, bounds=bounds, range=(scaled(-lo), scaled(hi)),
                            active_range=(scaled(-alo), scaled(ahi)))

    def unit_weights(self):
        return None

    def column_variances(self) -> tuple[float, np.ndarray]:
        """Total count weight and weighted column variances: two passes (mean, then centred).

        Returns
        -------
        tuple
            (total count weight, numpy.ndarray of the columns' weighted variances).
        """
        v = self.column_sums if self.column_sums is not None else \
            block_sums(_colsum_block, self.X, self.cw)
        total, mean = float(v[0]), v[1:] / v[0]
        return total, block_sums(_centred_sq_block, self.X, self.cw, mean=mean) / total

    def weight_range(self, fw: _DaskWeights) -> tuple[float, float]:
        return fw.range

    def weights(self, fw: _DaskWeights | None):
        """The fit's weights cw * fw, lazily (``None`` for all-one weights).

        Parameters
        ----------
        fw : object or None
            F-weights as :meth:`fweights` returns them (None: all 1).

        Returns
        -------
        dask.array.Array or None
            The weights.
        """
        if fw is None:
            return self.cw
        return map_rows(_weights_block, fw.raw, self.cw, mean=fw.mean, bounds=fw.bounds)

    def refit(self, fw, coef, *, penalty, tol, max_iter) -> np.ndarray:
        return irls_logit_dask(self.X, self.q, self.weights(fw), start=coef, penalty=penalty,
                               tol=tol, max_iter=max_iter, warn=False).coef

    def evaluate(self, fw, coef, penalty):
        return irls_evaluate_dask(self.X, self.q, self.weights(fw), coef, penalty=penalty)

    def _arrays(self, positions: bool) -> tuple:
        arrays = (self.X, self.q, self.cw)
        if positions:
            import dask.array as da

            arrays += (da.arange(self.n_rows, chunks=(self.X.chunks[0],), dtype=np.int64),)
        return arrays

    def sums(self, fn, *, positions: bool = False, n_max: int = 0, **kwargs) -> np.ndarray:
        """One pass: ``fn(X, q, cw, **kwargs)`` on every row block (``cw`` may be None: all
        ones; ``positions``: ``fn(X, q, cw, positions, **kwargs)`` with the block's global
        row positions), the vectors added on the workers, the last ``n_max`` entries by
        their maximum (:func:`fmstats.glm.block_sums`).

        Parameters
        ----------
        fn : callable
            The function of a block.
        positions : bool, default False
            Whether ``fn`` also takes the block's row positions.
        n_max : int, default 0
            The last ``n_max`` entries are combined by their maximum.
        **kwargs
            Passed to ``fn``.

        Returns
        -------
        numpy.ndarray
            The vectors of the blocks, added.
        """
        return block_sums(fn, *self._arrays(positions), n_max=n_max, **kwargs)

    def gather(self, fn, *, positions: bool = False, **kwargs) -> list:
        """One pass: ``fn(X, q, cw[, positions], **kwargs)`` on every row block, the
        results (a block's aggregates, of any size) in block order.

        Parameters
        ----------
        fn : callable
            The function of a block.
        positions : bool, default False
            Whether ``fn`` also takes the block's row positions.
        **kwargs
            Passed to ``fn``.

        Returns
        -------
        list
            ``fn``'s result of each block, in block order.
        """
        return block_results(fn, *self._arrays(positions), **kwargs)

    @property
    def n_rows(self) -> int:
        """The number of rows (known chunk sizes)."""
        return int(sum(self.X.chunks[0]))
