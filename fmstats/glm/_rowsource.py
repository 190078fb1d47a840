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

import inspect

import numpy as np
from scipy import sparse
from scipy.special import expit

from ._fweights import (TINY, Iterate, expected_f_weights, metric_sums, metrics_from_sums,
                       noisy_f_weights, smoothed_noisy_counts, weight_scale)
from ._irls import irls_coef, irls_evaluate, irls_logit

__all__ = ["ArraySource", "documented_like"]


class ArraySource:
    """A row source in memory: the design X, response q and count weights cw as arrays, and
    an optional offset (a known part of the linear predictor, eta = X b + offset).

    Parameters
    ----------
    X : numpy.ndarray or scipy.sparse matrix
        The design (n, p).
    q : numpy.ndarray
        The response as proportions in [0, 1].
    cw : numpy.ndarray
        The rows' count weights.
    threshold : float
        The probability threshold of the predicted classes.
    terms : tuple, optional
        ``(label, columns, names)`` of the design's terms, to name cells in warnings.
    offset : numpy.ndarray, optional
        A known part of the linear predictor.
    start_gram : numpy.ndarray, optional
        X'WX at IRLS's start, when the caller has it (:func:`irls_logit`).
    """

    def __init__(self, X, q, cw, threshold: float, terms=None, offset=None, start_gram=None):
        self.X, self.q, self.cw, self.threshold = X, q, cw, threshold
        self.terms = terms      # (label, columns, names) of the design's terms, for warnings
        self.offset = offset
        self.start_gram = start_gram        # X'WX at IRLS's start, when known (irls_logit)
        self.sum_q = float(np.dot(cw, q))
        self.active = cw > 0

    def has_positives(self) -> bool:
        """Whether the active rows hold any positive response.

        Returns
        -------
        bool
            True when some row with positive weight has a positive response.
        """
        return bool(np.any((self.q > 0) & self.active))

    def fit(self, *, start=None, penalty, tol, max_iter):
        """The weighted IRLS fit of q on X with the count weights.

        Parameters
        ----------
        start : numpy.ndarray, optional
            Warm-start coefficients (None: R's start).
        penalty : float or numpy.ndarray
            The ridge penalty (a scalar or one per coefficient).
        tol : float
            Tolerance on the relative deviance change.
        max_iter : int
            Maximum number of Newton steps.

        Returns
        -------
        IrlsFit
            The fit.
        """
        return irls_logit(self.X, self.q, self.cw, start=start, penalty=penalty, tol=tol,
                          max_iter=max_iter, terms=self.terms, offset=self.offset,
                          start_gram=self.start_gram)

    def baseline(self, penalty, tol, max_iter) -> np.ndarray:
        """The coefficients of the unweighted fit (the outer loop's start).

        Parameters
        ----------
        penalty : float or numpy.ndarray
            The ridge penalty.
        tol : float
            Tolerance on the relative deviance change.
        max_iter : int
            Maximum number of Newton steps.

        Returns
        -------
        numpy.ndarray
            The coefficients.
        """
        return self.fit(penalty=penalty, tol=tol, max_iter=max_iter).coef

    def iterate(self, coef, alpha: float, epsilon: float | None) -> Iterate:
        """One pass: the training metrics at the coefficients ``coef``.

        Parameters
        ----------
        coef : numpy.ndarray
            The coefficients.
        alpha : float
            The F-measure's weight on precision.
        epsilon : float or None
            The smoothing of the noisy F (None: none).

        Returns
        -------
        Iterate
            The metrics (precision, recall, F, ...) and log-likelihood at ``coef``.
        """
        q, cw = self.q, self.cw
        eta = self.X @ coef
        p = np.clip(expit(eta if self.offset is None else eta + self.offset), TINY, 1 - TINY)
        pred = (p >= self.threshold).astype(float)
        sums = metric_sums(q, p, pred, cw)
        return Iterate(*metrics_from_sums(sums, alpha, self.sum_q), loglik=sums[5], p=p)

    def smoothed_counts(self, it: Iterate, alpha: float, epsilon: float):
        """The smoothed noisy counts at an iterate.

        Parameters
        ----------
        it : Iterate
            The iterate.
        alpha : float
            The F-measure's weight on precision.
        epsilon : float
            The smoothing.

        Returns
        -------
        tuple of float
            (TP, TN, F), smoothed (:func:`smoothed_noisy_counts`).
        """
        return smoothed_noisy_counts(self.q, it.p, self.cw, alpha, epsilon)

    def fweights(self, it: Iterate, method, f, tp, alpha, epsilon, bounds):
        """The F-weights at an iterate, scaled to mean 1 over the active rows (a mean weighted
        by the count weights, so that a row of weight k acts as k rows), then clipped.

        Parameters
        ----------
        it : Iterate
            The iterate (its probabilities).
        method : {"expected", "noisy"}
            The F-weights' formula (:func:`expected_f_weights`, :func:`noisy_f_weights`).
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
        numpy.ndarray
            The F-weights, one per row.
        """
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
        """The F-weights of the unweighted fit.

        Returns
        -------
        numpy.ndarray or None
            F-weights of 1 for every row (None out of core: all ones).
        """
        return np.ones_like(self.q)

    def column_variances(self) -> tuple[float, np.ndarray]:
        """Total count weight and the weighted variance of each column (two passes).

        Returns
        -------
        tuple
            (total count weight, numpy.ndarray of the columns' weighted variances).
        """
        cw = self.cw
        total = float(cw.sum())
        if sparse.issparse(self.X):        # E[x^2] - E[x]^2 (centring would densify X)
            mean = (self.X.T @ cw) / total
            return total, np.maximum((self.X.multiply(self.X).T @ cw) / total - mean ** 2, 0.0)
        mean = (cw @ self.X) / total
        return total, (cw @ (self.X - mean) ** 2) / total

    def weight_range(self, fw) -> tuple[float, float]:
        """The range of the F-weights ``fw``.

        Parameters
        ----------
        fw : numpy.ndarray or object
            F-weights as :meth:`fweights` returns them.

        Returns
        -------
        tuple of float
            (smallest, largest) weight.
        """
        return float(fw.min()), float(fw.max())

    def refit(self, fw, coef, *, penalty, tol, max_iter) -> np.ndarray:
        """The fit with the count weights times the F-weights ``fw``, warm-started.

        Parameters
        ----------
        fw : numpy.ndarray or object
            F-weights as :meth:`fweights` returns them.
        coef : numpy.ndarray
            Warm-start coefficients.
        penalty : float or numpy.ndarray
            The ridge penalty.
        tol : float
            Tolerance on the relative deviance change.
        max_iter : int
            Maximum number of Newton steps.

        Returns
        -------
        numpy.ndarray
            The coefficients of the weighted fit.
        """
        return irls_coef(self.X, self.q, self.cw * fw, coef, penalty=penalty, tol=tol,
                         max_iter=max_iter, offset=self.offset)

    def sums(self, fn, *, positions: bool = False, n_max: int = 0, **kwargs) -> np.ndarray:
        """``fn(X, q, cw, **kwargs)``: the rows as one block (see
        :meth:`fmstats.glm.DaskSource.sums`; ``positions`` passes 0 .. n - 1).

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
        extra = (np.arange(self.n_rows),) if positions else ()
        return np.asarray(fn(self.X, self.q, self.cw, *extra, **kwargs), dtype=float)

    def gather(self, fn, *, positions: bool = False, **kwargs) -> list:
        """``[fn(X, q, cw[, positions], **kwargs)]``: the rows as one block.

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
        extra = (np.arange(self.n_rows),) if positions else ()
        return [fn(self.X, self.q, self.cw, *extra, **kwargs)]

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return int(self.X.shape[0])

    def evaluate(self, fw, coef, penalty):
        """The weighted fit evaluated at ``coef`` (:func:`irls_evaluate`).

        Parameters
        ----------
        fw : numpy.ndarray or object
            F-weights as :meth:`fweights` returns them.
        coef : numpy.ndarray
            The coefficients.
        penalty : float or numpy.ndarray
            The ridge penalty.

        Returns
        -------
        IrlsFit
            The fit at ``coef`` (covariance, deviance), without iterating.
        """
        return irls_evaluate(self.X, self.q, self.cw * fw, coef, penalty=penalty,
                             offset=self.offset)


def documented_like(interface: type):
    """Class decorator of a row source: its public methods without a docstring take those of
    the same methods of ``interface`` (the row-source interface is documented once, on
    :class:`ArraySource`; :class:`fmstats.glm.DaskSource` and :class:`fmstats.glm.BlockSource`
    document only what they do differently).

    Parameters
    ----------
    interface : type
        The class whose methods' docstrings are taken.

    Returns
    -------
    callable
        The decorator (it returns the class, its methods' docstrings filled in).
    """
    def decorate(cls: type) -> type:
        for name, member in vars(cls).items():
            base = getattr(interface, name, None)
            if (not name.startswith("_") and inspect.isfunction(member)
                    and member.__doc__ is None and base is not None):
                member.__doc__ = base.__doc__
        return cls
    return decorate
