"""Weighted and uncertain maximum-entropy (logistic) models: ``maxent()`` and ``umaxent()``.

``maxent`` maximises the weighted log-likelihood of certain labels (thesis
ch. 4): R's ``glm(family = binomial, weights = w)``.  ``umaxent`` maximises the
uncertain log-likelihood of probabilistic labels q (thesis ch. 5),
sum_i w_i [q_i log p_i + (1 - q_i) log(1 - p_i)]: the same estimating equations
as R's ``glm(family = quasibinomial)``, whose dispersion it estimates by
default.  Both are fitted by :func:`fmstats.glm.irls.irls_logit`.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit, gammaln

from .. import measures as _m
from .._utils.validation import check_choice, describe
from .._utils.call import ModelCall, Settings, records_call, refit_changes
from ._prepare import COV_TYPES, check_threshold
from ..exceptions import InvalidArgumentError
from ._fitdata import prepare
from ..formula import ModelFrame
from ..glm.irls import IrlsFit, has_intercept
from ._report import MaxentReport
from ._rows import MaxentRows
from ..results import ModelResults


__all__ = ["maxent", "umaxent", "MaxentResults", "COV_TYPES"]


class MaxentResults(MaxentReport, MaxentRows, ModelResults):
    """A fitted weighted (``maxent``) or uncertain (``umaxent``) maximum-entropy model.

    Main attributes: ``params``, ``bse``, ``tvalues``, ``pvalues``,
    ``cov_params()``, ``conf_int()``, ``tidy()``, ``summary()``,
    ``fitted_values``, ``deviance``, ``null_deviance``, ``aic``, ``llf``,
    ``dispersion``, ``converged``, ``iterations``, ``history``;
    methods ``predict()``, ``resid()``, ``confusion()``, ``measure()``,
    ``refit()``.
    """

    def __init__(self, *, settings: Settings, call: ModelCall, frame: ModelFrame, X: np.ndarray,
                 aliased: np.ndarray, prior_weights: np.ndarray, fit: IrlsFit,
                 fweights: np.ndarray | None = None, stats=None):
        self.settings = settings
        self.call = call
        self.formula = settings["formula"]
        self.model = settings["model"]
        self.spec = frame.spec
        self.response_kind = frame.response.kind
        self.response_name = frame.response.name
        self.response_levels = frame.response.levels
        self.index = frame.index
        self.n_input = frame.n_input
        self.n_dropped = frame.n_dropped
        self.term_names = tuple(frame.column_names)
        self.aliased = aliased
        self.X = X
        # an out-of-core fit keeps sums over its rows (``stats``, fmstats.maxent_models._outofcore) instead of
        # X, y and the weights; every row-level quantity then says so
        self.stats = stats
        if stats is None:
            self._shape, self._has_intercept = tuple(X.shape), bool(has_intercept(X))
        else:
            self._shape = (fit.nobs, len(fit.coef))
            self._has_intercept = bool(fit.has_intercept)
        self._kept = None        # what keep_data=False precomputed before dropping X
        self.y = None if stats is not None else frame.response.y
        self.trials = None if stats is not None else frame.response.trials
        self.prior_weights = prior_weights
        self.fweights = fweights
        self.core_fit = fit
        self.cov_type = settings["cov_type"]
        self.fmeasure = settings["measure"]
        self.threshold = settings["threshold"]

    # ------------------------------------------------------------------ basic quantities
    @property
    def family(self) -> str:
        return "quasibinomial" if self._estimate_dispersion else "binomial"

    @property
    def _estimate_dispersion(self) -> bool:
        d = self.settings["dispersion"]
        return isinstance(d, str) and d == "pearson"

    @property
    def use_t(self) -> bool:
        return self._estimate_dispersion

    @cached_property
    def params(self) -> pd.Series:
        out = np.full(len(self.term_names), np.nan)
        out[~self.aliased] = self.core_fit.coef
        return pd.Series(out, index=pd.Index(self.term_names, name="term"), name="estimate")

    @property
    def nobs(self) -> int:
        """Rows used in the fit (after dropping missing values)."""
        return int(self._shape[0])

    @cached_property
    def n_ok(self) -> int:
        """Rows with a positive weight (R's ``n.ok``)."""
        if self.stats is not None:
            return int(self.core_fit.n_active)
        return int(np.count_nonzero(self.weights > 0))

    @property
    def rank(self) -> int:
        return int(self._shape[1])

    @property
    def df_resid(self) -> int:
        return self.n_ok - self.rank

    @property
    def df_null(self) -> int:
        return self.n_ok - int(self._has_intercept)

    @property
    def deviance(self) -> float:
        return self.core_fit.deviance

    @property
    def null_deviance(self) -> float:
        return self.core_fit.null_deviance

    @property
    def converged(self) -> bool:
        return self.core_fit.converged

    @property
    def iterations(self) -> int:
        return self.core_fit.iterations

    @property
    def separated(self) -> bool:
        return self.core_fit.separated

    @cached_property
    def history(self) -> pd.DataFrame:
        """Deviance and step size per IRLS iteration (row 0 is the start)."""
        h = self.core_fit.history
        return pd.DataFrame({"iteration": np.arange(len(h)), "deviance": h[:, 0], "step": h[:, 1]})

    @cached_property
    def dispersion(self) -> float:
        """1 for binomial; Pearson chi^2 / df_resid for quasibinomial (as R's summary.glm)."""
        d = self.settings["dispersion"]
        if self._estimate_dispersion:
            if self.df_resid <= 0:
                raise InvalidArgumentError(
                    "cannot estimate the dispersion with no residual degrees of freedom "
                    f"(n = {self.n_ok}, rank = {self.rank}); pass dispersion=1."
                )
            return self.pearson_chi2 / self.df_resid
        return float(d)

    @cached_property
    def llf(self) -> float:
        """Log-likelihood.

        For 0/1 labels: sum w [y log p + (1-y) log(1-p)] (the weighted likelihood of
        thesis ch. 4; equals R's ``logLik`` for integer weights).  For ``cbind``
        counts it includes the binomial coefficients, as R's.  For probabilistic
        labels it is the uncertain log-likelihood of thesis ch. 5 (no R analogue:
        R reports NA for quasibinomial fits).
        """
        if self.stats is not None:
            return self.stats.llf(self.core_fit)
        ll = self.core_fit.loglik
        if self.trials is not None:
            k = self.y * self.trials
            ll += float(np.sum(self.prior_weights * (gammaln(self.trials + 1) - gammaln(k + 1)
                                                     - gammaln(self.trials - k + 1))))
        return ll

    @property
    def aic(self) -> float | None:
        """-2 llf + 2 rank; ``None`` (R's NA) for quasi-likelihood fits."""
        if self._estimate_dispersion or self.response_kind == "probability":
            return None
        return -2.0 * self.llf + 2.0 * self.rank

    @property
    def bic(self) -> float | None:
        if self.aic is None:
            return None
        return -2.0 * self.llf + np.log(self.n_ok) * self.rank

    # ------------------------------------------------------------------ covariance
    def se_unusable(self, cov_type: str | None = None) -> str | None:
        """Why standard errors cannot be used: fitted probabilities of 0 or 1 (separation)."""
        if self.separated:
            return ("fitted probabilities numerically 0 or 1 occurred (separation): the "
                    "coefficients run towards infinity and their standard errors are meaningless")
        return None

    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:
        """Covariance of the (non-aliased) coefficients.

        ``cov_type``: ``"nonrobust"`` (model-based, times the dispersion) or the
        sandwich estimators ``"HC0"``–``"HC3"``; default: the one chosen at fit.
        """
        cov_type = self.cov_type if cov_type is None else cov_type
        check_choice("cov_type", cov_type, COV_TYPES)
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        return pd.DataFrame(self._cov_array(cov_type), index=names, columns=names)

    # ------------------------------------------------------------------ prediction
    def predict(self, newdata: pd.DataFrame | None = None, type: str = "response",
                threshold: float | None = None, missing: str = "drop", se_fit: bool = False,
                interval: str | None = None, level: float = 0.95):
        """Predictions for ``newdata`` (default: the training rows).

        ``type="response"`` gives probabilities of the positive class, ``"link"``
        the log-odds, ``"class"`` 0/1 labels (1 when the probability is at least
        ``threshold``, default the fit's threshold).  Rows of ``newdata`` with
        missing values are dropped with a warning (``missing="drop"``) or raise.

        ``se_fit=True`` (R's ``predict.glm(se.fit = TRUE)``) returns a DataFrame with
        columns ``fit`` and ``se_fit``: the link-scale standard error from the covariance in
        use (``cov_type``; quasi fits include the dispersion), on the response scale by the
        delta method.  ``interval="confidence"`` adds ``conf_low``/``conf_high`` at ``level``,
        computed on the link scale and transformed (so always within [0, 1]).
        """
        if self.stats is not None:   # out of core: a lazy series for new chunked data
            lazy = self.stats.predict(self, newdata, type, threshold, missing, se_fit, interval)
            if lazy is not None:
                return lazy
        check_choice("type", type, ("response", "link", "class"))
        check_choice("missing", missing, ("drop", "raise"))
        if interval is not None:
            check_choice("interval", interval, ("confidence",))
        if (se_fit or interval) and type == "class":
            raise InvalidArgumentError(
                "`se_fit`/`interval` need type='response' or 'link'; a predicted class has no "
                "standard error.")
        if newdata is None and self.X is None and not (se_fit or interval):
            X, index, eta = None, self.index, self.core_fit.eta
        else:
            X, index = self._design(newdata, missing)
            eta = X @ self.core_fit.coef
        if se_fit or interval:
            from ._inference import predict_se

            return predict_se(self, X, eta, index, type, interval, level)
        if type == "link":
            return pd.Series(eta, index=index, name="link")
        p = expit(eta)
        if type == "response":
            return pd.Series(p, index=index, name="response")
        t = self.threshold if threshold is None else check_threshold(threshold)
        return pd.Series((p >= t).astype(np.int64), index=index, name="class")

    def _profile_conf_int(self, level: float) -> pd.DataFrame:
        from ._inference import profile_conf_int

        return profile_conf_int(self, level)

    # ------------------------------------------------------------------ performance
    def confusion(self, newdata: pd.DataFrame | None = None, threshold: float | None = None):
        """Confusion counts of the class predictions against the response.

        On the training rows the counts are weighted by the model's weights (prior
        weights times trials); probabilistic labels count fractionally (q for
        positives, 1 - q for negatives).  Returns a :class:`fmstats.measures.Confusion`.
        """
        cells = self._stored_cells(newdata, threshold)
        if cells is not None:
            return _m.Confusion(*(max(float(c), 0.0) for c in cells[:4]))
        y, w, eta = self._truth_and_weights(newdata)
        t = self.threshold if threshold is None else check_threshold(threshold)
        pred = (expit(eta) >= t).astype(float)
        return _m.noisy_confusion(y, pred, dependence="independent", sample_weight=w)

    def noisy_f(self, newdata: pd.DataFrame | None = None, measure=None, *, beta=None,
                alpha=None, dependence: str | None = None) -> float:
        """Noisy F-measure (thesis §6.1) of the fitted probabilities against the labels."""
        fm = self.resolve_measure(measure, beta, alpha)
        dep = self.settings["dependence"] if dependence is None else dependence
        cells = self._stored_cells(newdata, None)
        if cells is not None:
            check_choice("dependence", dep, ("correlated", "independent"))
            k = 4 if dep == "correlated" else 8
            return float(_m.Confusion(*(max(float(c), 0.0) for c in cells[k:k + 4])).f(fm))
        y, w, eta = self._truth_and_weights(newdata)
        p = expit(eta)
        return float(_m.noisy_f(y, p, measure=fm, dependence=dep, sample_weight=w))

    def resample_f(self, newdata: pd.DataFrame | None = None, *, B: int = 1000,
                   random_state=None, **kwargs):
        """F of the predicted classes on B label vectors drawn from q (thesis §9.2).

        See :func:`fmstats.resample_f`.
        """
        if self.stats is not None:
            self.stats.check_resample(newdata)
        from ._qresample import resample_f

        return resample_f(self, newdata, B=B, random_state=random_state, **kwargs)

    def refit(self, data: pd.DataFrame, weights=None) -> "MaxentResults":
        """Fit the same model with the same settings to ``data``: the recorded call again.

        A weights column given by name is looked up in ``data``; weights given as
        an array must be passed again (they belong to the old rows).
        """
        return self.call.refit(data, **refit_changes(self.call, weights))

    def to_statsmodels(self, cov_type: str | None = None):
        """This model refitted by statsmodels' GLM; see :func:`fmstats.to_statsmodels`."""
        from ._interop import to_statsmodels

        return to_statsmodels(self, cov_type)

    def __repr__(self) -> str:
        where = " (out of core)" if self.stats is not None else ""
        return (f"<{type(self).__name__}{where} {self.model}: {self.formula!r}, n = {self.nobs}, "
                f"deviance = {self.deviance:.4g}, converged = {self.converged}>")


# ---------------------------------------------------------------------------- fitting

def _fit(call: ModelCall, data, weights, model: str, **fixed) -> MaxentResults:
    keep_data = call.get("keep_data", True)
    if not isinstance(keep_data, (bool, np.bool_)):
        raise InvalidArgumentError(f"`keep_data` must be True or False; got {describe(keep_data)}.")
    prep = prepare(model, call, data, weights, **fixed)
    s = prep.settings
    fit = prep.source(s["threshold"]).fit(start=prep.start, penalty=prep.penalty, tol=s["tol"],
                                        max_iter=s["max_iter"])
    res = MaxentResults(settings=s, call=call, frame=prep.frame, aliased=prep.aliased,
                        fit=fit, **prep.results_data(fit))
    return res if keep_data or res.stats is not None else res.without_design()


@records_call
def maxent(formula: str, data: pd.DataFrame, weights=None, *, penalty: float = 0.0,
           cov_type: str = "nonrobust", threshold: float = 0.5, measure=None, beta=None,
           alpha=None, missing: str = "drop", collinear: str = "drop", engine: str | None = None,
           tol: float = 1e-8, max_iter: int = 25, start=None,
           keep_data: bool = True, _call=None) -> MaxentResults:
    """Weighted maximum-entropy (logistic regression) model for certain labels.

    Maximises sum_i w_i log p(y_i | x_i) (thesis ch. 4); identical to R's
    ``glm(formula, family = binomial, weights = w)``.

    Parameters
    ----------
    formula : ``"y ~ x1 + C(g) * x2"``; the response is 0/1, boolean, a two-level
        factor (the second level is the positive class, as in R) or
        ``cbind(yes, no)`` counts.
    data : DataFrame, or a Dask DataFrame: then the fit runs out of core, chunk by chunk,
        with the same results (see :mod:`fmstats.maxent_models._outofcore`; ``weights`` must be a column).
    weights : prior weights: a column name of ``data`` or an array with one value
        per row of ``data``; non-negative and finite.
    penalty : ridge penalty on the non-intercept coefficients (helps under separation).
    cov_type : ``"nonrobust"`` (model-based) or sandwich ``"HC0"`` to ``"HC3"``.
    threshold : probability at or above which the predicted class is 1.
    measure, beta, alpha : the F-measure reported in the summary (default F1).
    missing : ``"drop"`` rows with missing values (with a warning) or ``"raise"``.
    collinear : ``"drop"`` aliased columns (NA coefficients, with a warning) or ``"raise"``.
    engine : formula engine, ``"formulaic"`` (default) or ``"patsy"``.
    tol, max_iter : IRLS convergence tolerance (relative deviance change) and iteration cap.
    start : starting coefficients (warm start).
    keep_data : keep the design matrix X in the results (default).  ``False`` stores every
        covariance type and the hat values instead, so the results still summarise, predict
        and score new data and refit, at a fraction of the memory (n = 2e6, p = 50: X alone is
        763 MiB); profile intervals, ``anova`` and the fast bootstrap then need a refit.

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    >>> print(fit.params.round(3).to_string())
    term
    Intercept         3.522
    C(pclass)[T.2]   -1.281
    C(pclass)[T.3]   -2.290
    sex[T.male]      -2.498
    age              -0.034
    >>> print(f"{fit.deviance:.2f}")
    982.45
    """
    return _fit(_call, data, weights, "maxent", dispersion=1.0, dependence="correlated")


@records_call
def umaxent(formula: str, data: pd.DataFrame, weights=None, *, dispersion="pearson",
            penalty: float = 0.0, cov_type: str = "nonrobust", threshold: float = 0.5,
            measure=None, beta=None, alpha=None, dependence: str = "correlated",
            missing: str = "drop", collinear: str = "drop", engine: str | None = None,
            tol: float = 1e-8, max_iter: int = 25, start=None,
            keep_data: bool = True, _call=None) -> MaxentResults:
    """Uncertain maximum-entropy model for probabilistic labels q (thesis ch. 5).

    Maximises sum_i w_i [q_i log p_i + (1 - q_i) log(1 - p_i)], the uncertain
    log-likelihood; the coefficients equal R's
    ``glm(q ~ ..., family = quasibinomial, weights = w)``.  The response is a
    probability column, ``cbind(yes, no)`` annotator votes (q = yes/(yes+no),
    weighted by the number of votes), or 0/1 labels.

    ``dispersion="pearson"`` (default) estimates the dispersion like R's
    quasibinomial; a number fixes it (1 gives binomial-style standard errors).
    ``dependence`` selects the noisy F-measure reported in the summary.
    Other arguments as in :func:`maxent`.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> fit = fm.umaxent("q ~ x1 + x2", d[d.split == "train"])
    >>> print(fit.params.round(3).to_string())
    term
    Intercept   -0.051
    x1           0.854
    x2          -0.367
    """
    return _fit(_call, data, weights, "umaxent")
