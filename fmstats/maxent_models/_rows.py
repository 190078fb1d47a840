"""The training data of a maxent-family fit: its rows, or the sums an out-of-core fit keeps.

:class:`MaxentRows` is a mixin of :class:`fmstats.MaxentResults` (and so of
``FMaxentResults``): the quantities that need the training rows -- weights, fitted values,
residuals, hat values, the sandwich covariances, the design for predictions -- computed from
X and y when the fit keeps them, from the precomputed values of ``keep_data=False``, or from
the training sums (``stats``, :class:`fmstats.maxent_models._outofcore.TrainingStats`) of a fit on a Dask
DataFrame; a row-level quantity such a fit cannot give raises a clear DataError.
Used only by :mod:`fmstats.maxent_models._maxent`.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import xlogy

from .._utils.validation import check_choice
from ._prepare import COV_TYPES
from ..exceptions import DataError

__all__ = ["MaxentRows"]


class MaxentRows:
    """Row-level quantities of a maxent fit (attributes X, y, trials, prior_weights,
    fweights, fit_, index, spec, aliased, stats and _kept are set by the results)."""

    @cached_property
    def count_weights(self) -> np.ndarray:
        """Weight of each row in confusion counts: prior weights times trials (cbind)."""
        self._row_level("count_weights")
        w = self.prior_weights
        return w * self.trials if self.trials is not None else w

    @cached_property
    def weights(self) -> np.ndarray:
        """Weights of the fitted likelihood: the count weights times any F-maximising weights."""
        self._row_level("weights")
        return self.count_weights if self.fweights is None else self.count_weights * self.fweights

    def _row_level(self, what: str, advice: str = "") -> None:
        """Raise a DataError for a row-level quantity of a fit that keeps no rows."""
        if self.stats is not None:
            self.stats.unavailable(what, advice)

    @cached_property
    def fitted_values(self) -> pd.Series:
        """Fitted probabilities of the positive class on the training rows."""
        self._row_level("fitted_values", "use predict(ddf) for a lazy dask Series")
        return pd.Series(self.core_fit.mu, index=self.index, name="fitted")

    @cached_property
    def linear_predictor(self) -> pd.Series:
        self._row_level("linear_predictor", "use predict(ddf, type='link')")
        return pd.Series(self.core_fit.eta, index=self.index, name="link")

    @cached_property
    def pearson_chi2(self) -> float:
        if self.stats is not None:
            return self.core_fit.pearson_chi2
        mu = self.core_fit.mu
        return float(np.sum(self.weights * (self.y - mu) ** 2 / (mu * (1 - mu))))

    @cached_property
    def hat(self) -> pd.Series:
        """Diagonal of the weighted hat matrix W^1/2 X (X'WX)^-1 X' W^1/2 (R's hatvalues)."""
        self._row_level("hat", "HC2/HC3 covariances were computed at fit time")
        h = self._kept["hat"] if self.X is None else self.core_fit.leverage(self.X)   # centred
        return pd.Series(h, index=self.index, name="hat")

    def _cov_array(self, cov_type: str) -> np.ndarray:
        if self.stats is not None:
            return self.stats.cov(self, cov_type)
        if self.X is None:
            return self._kept["cov"][cov_type]
        bread = self.core_fit.xtwx_inv
        if cov_type == "nonrobust":
            return self.dispersion * bread
        score = self.weights * (self.y - self.core_fit.mu)
        e2 = score ** 2
        if cov_type in ("HC2", "HC3"):
            one_minus_h = 1.0 - self.hat.to_numpy()
            power = 1 if cov_type == "HC2" else 2
            e2 = e2 / np.where(one_minus_h > 0, one_minus_h, np.inf) ** power
        cov = self.core_fit.sandwich(self.X, e2)   # bread @ X'diag(e2)X @ bread, accurately
        if cov_type == "HC1":
            n = self.nobs
            cov *= n / (n - self.rank)
        return cov

    def without_design(self) -> "MaxentRows":
        """Drop the design matrix X (``keep_data=False``), keeping every covariance type and
        the hat values precomputed; the fit still summarises, predicts new data, scores
        its training rows (from the stored linear predictor) and refits."""
        self._kept = {"hat": self.core_fit.leverage(self.X),
                      "cov": {ct: self._cov_array(ct) for ct in COV_TYPES}}
        self.X = None
        return self

    def require_design(self, what: str):
        raise DataError(
            f"{what} needs the design matrix, which this fit does not keep (keep_data=False); "
            "refit with keep_data=True (or, where the call takes one, pass `newdata`: the "
            "training rows give the same answer).")

    def _design(self, newdata, missing="drop"):
        if newdata is None:
            if self.X is None:
                self.require_design("this call on the training rows")
            return self.X, self.index
        X, index = self.spec.build(newdata, missing=missing)
        return X[:, ~self.aliased], index

    def influence(self) -> pd.DataFrame:
        """Leverage, standardised and studentised residuals and Cook's distance per row (R's
        ``influence.measures``); see :func:`fmstats.maxent_models.influence`."""
        from ._diagnostics import influence

        return influence(self)

    def plot_diagnostics(self, fig=None):
        """R's four diagnostic panels (``plot.lm``); see :func:`fmstats.maxent_models.plot_diagnostics`."""
        from ._diagnostics import plot_diagnostics

        return plot_diagnostics(self, fig=fig)

    def resid(self, type: str = "deviance") -> pd.Series:
        """Residuals on the training rows: deviance, pearson, response or working."""
        self._row_level("resid()")
        check_choice("type", type, ("deviance", "pearson", "response", "working"))
        y, mu, w = self.y, self.core_fit.mu, self.weights
        if type == "response":
            r = y - mu
        elif type == "working":
            r = (y - mu) / (mu * (1 - mu))
        elif type == "pearson":
            r = np.sqrt(w) * (y - mu) / np.sqrt(mu * (1 - mu))
        else:
            d = 2 * w * (xlogy(y, y) - xlogy(y, mu) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - mu))
            r = np.sign(y - mu) * np.sqrt(np.maximum(d, 0))
        return pd.Series(r, index=self.index, name=f"resid_{type}")

    def _truth_and_weights(self, newdata):
        """Labels, count weights and linear predictor on ``newdata`` (default: training rows)."""
        if newdata is None:
            return self.y, self.count_weights, self.core_fit.eta
        resp, X, _ = self.spec.build_with_response(newdata, missing="drop")
        w = resp.trials if resp.trials is not None else np.ones(len(resp.y))
        return resp.y, w, X[:, ~self.aliased] @ self.core_fit.coef

    def _stored_cells(self, newdata, threshold):
        """Out of core: the confusion and noisy counts summed over the training rows (or one
        pass over chunked ``newdata``); ``None`` when the rows are at hand."""
        return None if self.stats is None else self.stats.cells_for(self, newdata, threshold)
