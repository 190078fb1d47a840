"""What a maxent-family fit keeps of its training data: one interface, in memory or out of core.

A :class:`~fmstats.MaxentResults` holds one training-data object and asks it every question
that needs the training rows, whichever kind it is:

* :class:`InMemoryTraining` -- the rows themselves (design X, labels, weights).  With
  ``keep_data=False`` it drops X after precomputing every covariance type and the hat values
  (:meth:`InMemoryTraining.drop_design`), so it still summarises, scores its rows and refits;
* ``TrainingStats`` -- the sums an out-of-core (Dask) fit
  computed in one pass; a row-level question raises a :class:`~fmstats.exceptions.DataError`
  that says so.

The interface (both classes): ``in_memory``, ``shape``, ``has_intercept``, ``X``, ``y``,
``trials``, ``prior_weights``, ``fweights``, ``count_weights``, ``weights``,
``row_level(what, advice)``, ``n_ok(fit)``, ``class_sizes()``, ``pearson_chi2(fit)``, ``hat(fit)``,
``noninteger_successes()``,
``cov(results, cov_type)``, ``llf(results)``, ``prior_range()``, ``fweights_range()``,
``design(results, newdata, missing)``, ``offset_of(results, newdata, index)``,
``truth_weights_eta(results, newdata)``,
``cells(results, newdata, threshold)``, ``resid(fit, type)``,
``lazy_predict(results, newdata, ...)`` and ``check_resample(newdata)``.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy.special import gammaln, xlogy

from .._utils.validation import check_choice
from ..exceptions import DataError
from ..formula import KeptRows, is_sparse
from ..glm import has_intercept

__all__ = ["InMemoryTraining", "COV_TYPES", "noninteger_count", "sandwich_cov", "full_design"]

COV_TYPES = ("nonrobust", "HC0", "HC1", "HC2", "HC3")


class InMemoryTraining:
    """The training rows of a maxent-family fit, held in memory.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The design of the used rows, aliased columns dropped.
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    trials : ndarray of shape (n,) or None
        Binomial trials per row (``cbind(yes, no)``), else None.
    prior_weights : ndarray of shape (n,)
        The prior weights.
    fweights : ndarray of shape (n,) or None
        The F-measure maximising weights of an ``fmaxent`` fit (mean 1), else None.
    index : pandas.Index
        The index labels of the used rows.
    offset : ndarray of shape (n,), optional
        The offset of the used rows (a known part of the linear predictor), else None.
    """

    in_memory = True
    offset = None        # results pickled before offsets existed have none

    def __init__(self, *, X, y, trials, prior_weights, fweights=None, index=None, offset=None):
        self.offset = offset
        self.X = X
        self.y = y
        self.trials = trials
        self.prior_weights = prior_weights
        self.fweights = fweights
        self.index = index
        self.shape = tuple(X.shape)
        self.has_intercept = bool(has_intercept(X))
        self._kept = None        # what drop_design() precomputed before dropping X

    @classmethod
    def without_design(cls, *, shape, has_intercept: bool, y, trials, prior_weights, index,
                       hat, covariances) -> "InMemoryTraining":
        """The training rows of a fit whose design was built in row blocks and never held
        (``keep_data=False``): the hat values and HC0-HC3 covariances it gathered instead."""
        out = cls.__new__(cls)
        out.X, out.y, out.trials, out.prior_weights = None, y, trials, prior_weights
        out.fweights, out.index = None, index
        out.shape, out.has_intercept = tuple(shape), bool(has_intercept)
        out._kept = {"hat": hat, "cov": dict(covariances)}
        return out

    # ------------------------------------------------------------------ weights
    @cached_property
    def count_weights(self) -> np.ndarray:
        """Weight of each row in confusion counts: prior weights times trials (cbind)."""
        w = self.prior_weights
        return w * self.trials if self.trials is not None else w

    @cached_property
    def weights(self) -> np.ndarray:
        """Weights of the fitted likelihood: count weights times any F-maximising weights."""
        return self.count_weights if self.fweights is None else self.count_weights * self.fweights

    def row_level(self, what: str, advice: str = "") -> None:
        """Rows are at hand: every row-level quantity is available."""

    def n_ok(self, fit) -> int:
        """Rows with a positive weight (R's ``n.ok``)."""
        return int(np.count_nonzero(self.weights > 0))

    def class_sizes(self) -> tuple[float, float]:
        """Weighted numbers of positives and negatives, sum c q and sum c (1 - q)."""
        c, q = self.count_weights, self.y
        return float(c @ q), float(c @ (1 - q))

    # ------------------------------------------------------------------ statistics
    def pearson_chi2(self, fit) -> float:
        """Pearson's chi-squared of the weighted fit."""
        mu = fit.mu
        return float(np.sum(self.weights * (self.y - mu) ** 2 / (mu * (1 - mu))))

    def hat(self, fit) -> np.ndarray:
        """Diagonal of the weighted hat matrix (R's ``hatvalues``)."""
        return self._kept["hat"] if self.X is None else fit.leverage(self.X)

    def cov(self, results, cov_type: str) -> np.ndarray:
        """The coefficients' covariance of type ``cov_type`` (model-based or sandwich)."""
        fit = results.core_fit
        if cov_type == "nonrobust":
            return results.dispersion * fit.xtwx_inv
        if self.X is None:
            return self._kept["cov"][cov_type]
        return sandwich_cov(fit, self.X, self.y, self.weights, cov_type)

    def llf(self, results) -> float:
        """Log-likelihood of the count-weighted fit (binomial coefficients for counts)."""
        ll = results.core_fit.loglik
        if self.trials is not None:
            k = self.y * self.trials
            ll += float(np.sum(self.prior_weights * (gammaln(self.trials + 1) - gammaln(k + 1)
                                                     - gammaln(self.trials - k + 1))))
        return ll

    def count_loglik(self, fit) -> float:
        """The log-likelihood with the count weights only (fmaxent: without the F-weights)."""
        mu = fit.mu
        return float(np.dot(self.count_weights,
                            self.y * np.log(mu) + (1 - self.y) * np.log1p(-mu)))

    def noninteger_successes(self) -> int:
        """Rows whose successes (prior weight x y x trials) are not a count, by R's rule
        (``abs(m - round(m)) > 0.001``): the binomial likelihood is then a weighted one."""
        return noninteger_count(self.prior_weights, self.y, self.trials)

    def prior_range(self) -> tuple[float, float]:
        """Smallest and largest prior weight."""
        return float(self.prior_weights.min()), float(self.prior_weights.max())

    def fweights_range(self) -> tuple[float, float]:
        """Smallest and largest F-weight on the rows with positive weight."""
        fw = self.fweights[self.count_weights > 0]
        return float(fw.min()), float(fw.max())

    # ------------------------------------------------------------------ rows
    def drop_design(self, results) -> None:
        """Drop X (``keep_data=False``), keeping every covariance type and the hat values."""
        if self.X is None:          # built in row blocks: never held
            return
        self._kept = {"hat": results.core_fit.leverage(self.X),
                      "cov": {ct: self.cov(results, ct) for ct in COV_TYPES}}
        self.X = None

    def design(self, results, newdata, missing: str = "drop"):
        """(X, index) of ``newdata`` (default: the training rows) for the kept columns;
        ``newdata`` may be :class:`~fmstats.formula.KeptRows` (rows of a fit's design: a
        refit's held-out rows in tuning without data)."""
        if newdata is None:
            if self.X is None:
                require_design("this call on the training rows")
            return self.X, self.index
        if isinstance(newdata, KeptRows):
            return full_design(newdata.results, newdata.positions)[:, ~results.aliased], \
                newdata.index
        X, index = results.spec.build(newdata, missing=missing)
        return X[:, ~results.aliased], index

    def truth_weights_eta(self, results, newdata):
        """Labels, count weights and linear predictor on ``newdata`` (default: training rows)."""
        if newdata is None:
            return self.y, self.count_weights, results.core_fit.eta
        if isinstance(newdata, KeptRows):
            X, index = self.design(results, newdata)
            off = self.offset_of(results, newdata, index)
            eta = X @ results.core_fit.coef
            return newdata.response(), newdata.trials(), eta if off is None else eta + off
        resp, X, index = results.spec.build_with_response(newdata, missing="drop")
        w = resp.trials if resp.trials is not None else np.ones(len(resp.y))
        eta = X[:, ~results.aliased] @ results.core_fit.coef
        off = offset_of(results.spec, newdata, index)
        return resp.y, w, eta if off is None else eta + off

    def offset_of(self, results, newdata, index):
        """The offset of the rows ``index`` of ``newdata`` (default: the training rows), or
        None when the model has none."""
        if newdata is None:
            return self.offset
        if isinstance(newdata, KeptRows):
            off = getattr(newdata.results.training, "offset", None)
            return None if off is None else np.asarray(off)[newdata.positions]
        return offset_of(results.spec, newdata, index)

    def cells(self, results, newdata, threshold):
        """None: in memory, the confusion is counted from the rows."""
        return None

    def resid(self, fit, type: str) -> np.ndarray:
        """Residuals of ``type``: deviance, pearson, response or working."""
        check_choice("type", type, ("deviance", "pearson", "response", "working"))
        y, mu, w = self.y, fit.mu, self.weights
        if type == "response":
            return y - mu
        if type == "working":
            return (y - mu) / (mu * (1 - mu))
        if type == "pearson":
            return np.sqrt(w) * (y - mu) / np.sqrt(mu * (1 - mu))
        d = 2 * w * (xlogy(y, y) - xlogy(y, mu) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - mu))
        return np.sign(y - mu) * np.sqrt(np.maximum(d, 0))

    def lazy_predict(self, results, newdata, type, threshold, missing, se_fit, interval):
        """None: in memory, predictions are computed at once."""
        return None

    def check_resample(self, newdata) -> None:
        """Resampling labels from q works on the training rows and on any DataFrame."""


def sandwich_cov(fit, X: np.ndarray, y: np.ndarray, weights: np.ndarray,
                 cov_type: str) -> np.ndarray:
    """The sandwich covariance HC0-HC3 of a weighted logistic fit (R's ``sandwich::vcovHC``):
    B X' diag(e2) X B with B the inverse information, e = w (y - mu), divided by (1 - h) (HC2)
    or (1 - h)^2 (HC3), h the hat values; HC1 scales HC0 by n / (n - p).  ``fit`` is the
    :class:`~fmstats.glm.IrlsFit` at the coefficients (used by the results and by
    :func:`fmstats.to_statsmodels`, whose GLM gives HC0 whatever HC type is asked)."""
    e2 = (weights * (y - fit.mu)) ** 2
    if cov_type in ("HC2", "HC3"):
        one_minus_h = 1.0 - fit.leverage(X)
        power = 1 if cov_type == "HC2" else 2
        e2 = e2 / np.where(one_minus_h > 0, one_minus_h, np.inf) ** power
    cov = fit.sandwich(X, e2)   # bread @ X'diag(e2)X @ bread, accurately
    if cov_type == "HC1":
        n, p = X.shape
        cov *= n / (n - p)
    return cov


def noninteger_count(prior, y, trials) -> int:
    """R's ``binomial()$initialize`` test: rows whose successes m = w y (times the trials of
    ``cbind`` counts) differ from an integer by more than 0.001."""
    m = prior * y if trials is None else prior * y * trials
    return int(np.count_nonzero(np.abs(m - np.round(m)) > 1e-3))
def offset_of(spec, newdata, index):
    """The model's offset (``spec.offsets``) on the rows ``index`` of ``newdata``, or None."""
    if not (getattr(spec, "offsets", ()) or getattr(spec, "offset_array", False)):
        return None
    if not newdata.index.is_unique:
        raise DataError("`newdata` has duplicate index labels; the model's offset is evaluated "
                        "on the rows it predicts, which must be labelled uniquely.")
    return spec.offset_values(newdata.loc[index])


def require_design(what: str):
    """The DataError of a call that needs the design of a ``keep_data=False`` fit."""
    raise DataError(
        f"{what} needs the design matrix, which this fit does not keep (keep_data=False); "
        "refit with keep_data=True (or, where the call takes one, pass `newdata`: the "
        "training rows give the same answer).")


def full_design(fit, positions=None):
    """The design of a fit's training rows (those at ``positions``, default all) with every
    column of its formula: the columns of ``fit.X`` and the aliased ones back as zeros (a refit
    on rows of it aliases them again); sparse when ``fit.X`` is."""
    if getattr(fit, "X", None) is None:
        require_design("a refit or prediction on the rows the fit kept")
    aliased = np.asarray(fit.aliased, dtype=bool)
    X = fit.X if positions is None else (fit.X.tocsr()[positions] if is_sparse(fit.X)
                                         else np.take(fit.X, positions, axis=0))
    if is_sparse(X):             # the aliased columns back as zero columns, still sparse
        import scipy.sparse as sp

        kept = np.flatnonzero(~aliased)
        return X @ sp.csr_matrix((np.ones(kept.size), (np.arange(kept.size), kept)),
                                 shape=(kept.size, aliased.size))
    out = np.zeros((X.shape[0], aliased.size))
    out[:, ~aliased] = X
    return out
