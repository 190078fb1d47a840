"""The results of ``maxent()`` and ``umaxent()`` (:class:`MaxentResults`; the model functions
are in :mod:`._fitting`): coefficients, covariances (one estimator per ``cov_type``,
:mod:`._covariance`), prediction, confusion, refits and the R-style summary.
"""
from __future__ import annotations

import warnings
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit

from .. import measures as _m
from .._utils.validation import check_bool, check_choice
from .._utils.call import ModelCall, Settings
from ._prepare import check_threshold
from ..exceptions import InvalidArgumentError, MissingDataWarning
from ..formula import ModelFrame
from ..glm import IrlsFit
from ..results import ModelResults, Summary
from ._report import SummaryHooks, maxent_summary
from ._covariance import estimator, with_cov
from ._training import COV_TYPES, require_design

__all__ = ["MaxentResults", "COV_TYPES"]


class MaxentResults(SummaryHooks, ModelResults):
    """A fitted weighted (``maxent``) or uncertain (``umaxent``) maximum-entropy model.

    Main attributes: ``params``, ``bse``, ``tvalues``, ``pvalues``,
    ``cov_params()``, ``conf_int()``, ``tidy()``, ``summary()``,
    ``fitted_values``, ``deviance``, ``null_deviance``, ``aic``, ``llf``,
    ``dispersion``, ``converged``, ``iterations``, ``history``;
    methods ``predict()``, ``resid()``, ``confusion()``, ``measure()``,
    ``refit()``.  Built by :func:`maxent` and :func:`umaxent`.

    Parameters
    ----------
    settings : Settings
        The fit's settings (its call's arguments, defaults applied).
    call : ModelCall
        The recorded call (printed by ``summary()``, rerun by ``refit()``).
    frame : ModelFrame
        The model frame: design encoding, response, row provenance.
    aliased : ndarray of bool
        Which design columns were dropped as collinear.
    fit : IrlsFit
        The IRLS solution.
    training : InMemoryTraining or TrainingStats
        What the results keep of the training data (``_training.py``):
        the rows, or the sums of an out-of-core fit.
    """

    #: refits run on rows of the kept design (KeptRows) when it is kept: bootstrap without data
    refits_kept_rows = True
    log_odds = True          # tidy(exponentiate=True) gives odds ratios

    def __init__(self, *, settings: Settings, call: ModelCall, frame: ModelFrame,
                 aliased: np.ndarray, fit: IrlsFit, training):
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
        #: na_action="exclude": the rows the model considered and where the used ones sit
        #: among them (row-level results are padded with NaN back to them, as R's na.exclude)
        self.na_index, self.na_rows = ((frame.input_index, frame.input_rows)
                                       if settings.get("na_action") == "exclude" else (None, None))
        self.term_names = tuple(frame.column_names)
        self.aliased = aliased
        #: the training data: its rows in memory, or the sums of an out-of-core fit
        self.training = training
        self.core_fit = fit
        self.cov_type = settings["cov_type"]
        self.fmeasure = settings["measure"]
        self.threshold = settings["threshold"]

    # ------------------------------------------------------------------ the training rows
    @property
    def X(self):
        """The design of the training rows (None out of core or with ``keep_data=False``)."""
        return self.training.X

    @property
    def y(self):
        """The response of the training rows as proportions (None out of core)."""
        return self.training.y

    @property
    def trials(self):
        """Binomial trials of ``cbind`` responses (None otherwise or out of core)."""
        return self.training.trials

    @property
    def prior_weights(self):
        """The prior weights of the training rows (None out of core)."""
        return self.training.prior_weights

    @property
    def training_offset(self):
        """The offset of the training rows (None without one, or out of core)."""
        return self.training.offset

    @property
    def fweights(self):
        """The F-measure maximising weights of an ``fmaxent`` fit (None otherwise)."""
        return self.training.fweights

    @property
    def count_weights(self) -> np.ndarray:
        """Weight of each row in confusion counts: prior weights times trials (cbind)."""
        return self.training.count_weights

    @property
    def weights(self) -> np.ndarray:
        """Weights of the fitted likelihood: count weights times any F-maximising weights."""
        return self.training.weights

    def information_se(self):
        """Standard errors from the IRLS information ``(X'WX)^-1`` by non-aliased term (no
        dispersion or sandwich): resampling's yardstick for replicates without a finite MLE.

        Returns
        -------
        pandas.Series or None
            The standard errors, or None when the fit holds no information matrix.
        """
        inv = self.core_fit.xtwx_inv
        kept = [n for n, a in zip(self.term_names, self.aliased) if not a]
        if inv is None or len(kept) != inv.shape[0]:
            return None
        return pd.Series(np.sqrt(np.clip(np.diag(inv), 0.0, None)), index=kept)

    def row_refits(self, data=None):
        """Refits of this model on its own design with other frequency weights, many at once
        (``_refits.py``): what the bootstrap, ``validate`` and the
        tuners' resampling use.  ``None`` when the fit keeps no design in memory
        (``keep_data=False``) or is not a maxent/umaxent fit.  An out-of-core fit's refits
        run on the row blocks of ``data``, its Dask DataFrame
        (``_oocrefits.py``).

        Parameters
        ----------
        data : dask.dataframe.DataFrame, optional
            The training rows of an out-of-core fit (unused in memory).

        Returns
        -------
        MaxentRefits or BlockRefits or None
            The refit engine, or None when the fit keeps no design in memory and no ``data`` is
            given.
        """
        if not self.training.in_memory and type(self) is MaxentResults:
            return self.training.row_refits(self, data)
        if not (type(self) is MaxentResults and self.model in ("maxent", "umaxent")
                and self.X is not None):
            return None
        from ._refits import MaxentRefits, refit_fields

        return MaxentRefits(**refit_fields(self))

    def require_design(self, what: str):
        """Raise the DataError of ``what``, which needs the design this fit does not keep.

        Parameters
        ----------
        what : str
            The call that needs the design matrix, named in the error message.
        """
        require_design(what)

    # ------------------------------------------------------------------ basic quantities
    @property
    def family(self) -> str:
        """``"binomial"``, or ``"quasibinomial"`` when the dispersion is estimated."""
        return "quasibinomial" if self.estimates_dispersion else "binomial"

    @property
    def estimates_dispersion(self) -> bool:
        """Whether the dispersion is estimated (Pearson chi^2 / df, R's quasibinomial)."""
        d = self.settings["dispersion"]
        return isinstance(d, str) and d == "pearson"

    @property
    def use_t(self) -> bool:
        """Whether tests use the t distribution (with an estimated dispersion)."""
        return self.estimates_dispersion

    @cached_property
    def params(self) -> pd.Series:
        """The coefficients by term (NaN for aliased terms)."""
        out = np.full(len(self.term_names), np.nan)
        out[~self.aliased] = self.core_fit.coef
        return pd.Series(out, index=pd.Index(self.term_names, name="term"), name="estimate")

    @property
    def nobs(self) -> int:
        """Rows used in the fit (after dropping missing values)."""
        return int(self.training.shape[0])

    @cached_property
    def n_ok(self) -> int:
        """Rows with a positive weight (R's ``n.ok``)."""
        return self.training.n_ok(self.core_fit)

    @property
    def rank(self) -> int:
        """The number of estimated (non-aliased) coefficients."""
        return int(self.training.shape[1])

    @property
    def df_resid(self) -> int:
        """Residual degrees of freedom."""
        return self.n_ok - self.rank

    @property
    def df_null(self) -> int:
        """Degrees of freedom of the null model."""
        return self.n_ok - int(self.training.has_intercept)

    deviance = property(lambda self: self.core_fit.deviance, doc="The residual deviance.")
    null_deviance = property(lambda self: self.core_fit.null_deviance,
                             doc="The deviance of the null model (R's null.deviance).")
    converged = property(lambda self: self.core_fit.converged, doc="Whether IRLS converged.")
    iterations = property(lambda self: self.core_fit.iterations, doc="IRLS iterations.")
    separated = property(lambda self: self.core_fit.separated,
                         doc="Whether fitted probabilities reached 0 or 1 (separation).")

    @cached_property
    def history(self) -> pd.DataFrame:
        """Deviance and step size per IRLS iteration (row 0 is the start)."""
        h = self.core_fit.history
        return pd.DataFrame({"iteration": np.arange(len(h)), "deviance": h[:, 0], "step": h[:, 1]})

    @cached_property
    def pearson_chi2(self) -> float:
        """Pearson's chi-squared statistic of the fit."""
        return self.training.pearson_chi2(self.core_fit)

    @cached_property
    def dispersion(self) -> float:
        """1 for binomial; Pearson chi^2 / df_resid for quasibinomial (as R's summary.glm)."""
        if self.estimates_dispersion:
            if self.df_resid <= 0:
                raise InvalidArgumentError(
                    "cannot estimate the dispersion with no residual degrees of freedom "
                    f"(n = {self.n_ok}, rank = {self.rank}); pass dispersion=1.")
            return self.pearson_chi2 / self.df_resid
        return float(self.settings["dispersion"])

    @cached_property
    def llf(self) -> float:
        """Log-likelihood.

        For 0/1 labels: sum w [y log p + (1-y) log(1-p)] (the weighted likelihood of
        thesis ch. 4; equals R's ``logLik`` for integer weights).  For ``cbind``
        counts it includes the binomial coefficients, as R's.  For probabilistic
        labels it is the uncertain log-likelihood of thesis ch. 5 (no R analogue:
        R reports NA for quasibinomial fits).
        """
        return self.training.llf(self)

    @property
    def aic(self) -> float | None:
        """-2 llf + 2 rank; ``None`` (R's NA) for quasi-likelihood fits.

        With non-integer successes (prior weights x y not counts; R warns "non-integer
        #successes in a binomial glm!") llf is the weighted log-likelihood of thesis ch. 4, not
        that of a binomial count model, and ``summary()`` says so beside the AIC."""
        if self.estimates_dispersion or self.response_kind == "probability":
            return None
        return -2.0 * self.llf + 2.0 * self.rank

    @property
    def bic(self) -> float | None:
        """-2 llf + log(n) rank; ``None`` for quasi-likelihood fits."""
        if self.aic is None:
            return None
        return -2.0 * self.llf + np.log(self.n_ok) * self.rank

    # ------------------------------------------------------------------ rows
    def padded(self, values, name: str, fill: float = np.nan) -> pd.Series:
        """``values`` of the training rows as a Series, padded with ``fill`` to every row the
        model considered when it was fitted with ``na_action="exclude"`` (R's ``naresid``).

        Parameters
        ----------
        values : array-like
            One value per training row.
        name : str
            The Series' name.
        fill : float, default NaN
            The value of the rows left out.

        Returns
        -------
        pandas.Series
            One value per row the model considered, ``fill`` at the rows the fit left out.
        """
        if getattr(self, "na_index", None) is None:
            return pd.Series(values, index=self.index, name=name)
        out = np.full(len(self.na_index), fill)
        out[self.na_rows] = values
        return pd.Series(out, index=self.na_index, name=name)

    @cached_property
    def fitted_values(self) -> pd.Series:
        """Fitted probabilities of the positive class on the training rows (padded with NaN
        to the rows with missing values under ``na_action="exclude"``)."""
        self.training.row_level("fitted_values", "use predict(ddf) for a lazy dask Series")
        return self.padded(self.core_fit.mu, "fitted")

    @cached_property
    def linear_predictor(self) -> pd.Series:
        """The linear predictor (log-odds, offset included) on the training rows (padded
        under ``na_action="exclude"``)."""
        self.training.row_level("linear_predictor", "use predict(ddf, type='link')")
        return self.padded(self.core_fit.eta, "link")

    @cached_property
    def hat(self) -> pd.Series:
        """Diagonal of the weighted hat matrix W^1/2 X (X'WX)^-1 X' W^1/2 (R's hatvalues;
        under ``na_action="exclude"`` the rows left out have 0, as in R's ``lm.influence``)."""
        return self.padded(self.training.hat(self.core_fit), "hat", 0.0)

    def resid(self, type: str = "deviance") -> pd.Series:
        """Residuals on the training rows: deviance, pearson, response or working (padded
        with NaN under ``na_action="exclude"``, as R's ``residuals``).

        Parameters
        ----------
        type : {"deviance", "pearson", "response", "working"}, default "deviance"
            The kind of residual.

        Returns
        -------
        pandas.Series
            The residuals, indexed as the training rows.
        """
        return self.padded(self.training.resid(self.core_fit, type), f"resid_{type}")

    def influence(self) -> pd.DataFrame:
        """Leverage, standardised and studentised residuals and Cook's distance per row (R's
        ``influence.measures``); see :func:`fmstats.maxent_models.influence`.

        Returns
        -------
        pandas.DataFrame
            One row per training row: hat, std_resid_deviance, std_resid_pearson,
            student_resid, cooks_distance.
        """
        from ._diagnostics import influence

        return influence(self)

    def plot_diagnostics(self, fig=None):
        """R's four diagnostic panels; see :func:`fmstats.maxent_models.plot_diagnostics`.

        Parameters
        ----------
        fig : matplotlib.figure.Figure, optional
            The figure to draw the 2 x 2 panels on (default: a new figure).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ._diagnostics import plot_diagnostics

        return plot_diagnostics(self, fig=fig)

    # ------------------------------------------------------------------ covariance
    # one estimator class per cov_type, looked up in fmstats.maxent_models._covariance
    def covariance(self, cov_type: str | None = None):
        """The covariance estimator of ``cov_type`` (default: the fit's), a class of
        ``_covariance.py``.

        Parameters
        ----------
        cov_type : str, optional
            The covariance type, as ``cov_params`` takes it.

        Returns
        -------
        CovarianceEstimator
        """
        return estimator(self, self.cov_type if cov_type is None else cov_type)

    def se_unusable(self, cov_type: str | None = None) -> str | None:
        """Why standard errors cannot be used (separation, or the estimator's own reason).

        Parameters
        ----------
        cov_type : str, optional
            The covariance type (default: the fit's), as ``cov_params`` takes it.

        Returns
        -------
        str or None
            The reason, or None when the standard errors are usable.
        """
        return self.covariance(cov_type).unusable()

    def tests_withheld(self, cov_type: str | None = None) -> str | None:
        """Why z values and p-values are not printed beside usable standard errors.

        Parameters
        ----------
        cov_type : str, optional
            The covariance type (default: the fit's), as ``cov_params`` takes it.

        Returns
        -------
        str or None
            The reason, or None when the tests are printed.
        """
        return None if self.se_unusable(cov_type) else self.covariance(cov_type).tests_withheld()

    @property
    def separation_text(self) -> str:
        """How separation was found: fitted probabilities numerically 0 or 1 (R's rule), or
        no finite maximum of the likelihood (:mod:`fmstats.glm._separation`)."""
        if getattr(self.core_fit, "separation", "fitted") == "no finite MLE":
            return "the likelihood has no finite maximum"
        return "fitted probabilities numerically 0 or 1 occurred"

    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:
        """Covariance of the (non-aliased) coefficients.

        Parameters
        ----------
        cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3"}, optional
            ``"nonrobust"`` (model-based, times the dispersion) or the sandwich estimators
            ``"HC0"``–``"HC3"``; default: the one chosen at fit.

        Returns
        -------
        pandas.DataFrame
            The covariance matrix, rows and columns labelled by term.
        """
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        return pd.DataFrame(self.covariance(cov_type).cov(), index=names, columns=names)

    def with_cov(self, cov_type: str) -> "MaxentResults":
        """The same fit reporting ``cov_type``: a copy (settings and recorded call say
        ``cov_type``) sharing the coefficients and computed covariances.

        Parameters
        ----------
        cov_type : str
            The covariance type, as ``cov_params`` takes it.

        Returns
        -------
        MaxentResults
        """
        return with_cov(self, cov_type)

    # ------------------------------------------------------------------ prediction
    def predict(self, newdata: pd.DataFrame | None = None, type: str = "response",
                threshold: float | None = None, missing: str = "drop", se_fit: bool = False,
                interval: str | None = None, level: float = 0.95):
        """Predictions for ``newdata`` (default: the training rows).

        ``type="response"`` gives probabilities of the positive class, ``"link"``
        the log-odds, ``"class"`` 0/1 labels (1 when the probability is at least
        ``threshold``, default the fit's threshold).  A row of ``newdata`` with a missing
        value in the model's columns gets NaN in its place (R's ``na.pass`` for new data;
        ``na_action`` for the other choices), so the result lines up with ``newdata``.

        ``se_fit=True`` (R's ``predict.glm(se.fit = TRUE)``) returns a DataFrame with
        columns ``fit`` and ``se_fit``: the link-scale standard error from the covariance in
        use (``cov_type``; quasi fits include the dispersion), on the response scale by the
        delta method.  ``interval="confidence"`` adds ``conf_low``/``conf_high`` at ``level``,
        computed on the link scale and transformed (so always within [0, 1]).

        Parameters
        ----------
        newdata : DataFrame or dask.dataframe.DataFrame, optional
            The rows to predict (default: the training rows).  A Dask DataFrame gives a lazy
            dask Series (out-of-core fits) of the rows it can predict (rows with missing
            values dropped, as ``na_action="omit"``).
        type : {"response", "link", "class"}, default "response"
            Probabilities of the positive class, the log-odds, or 0/1 labels.
        threshold : float, optional
            For ``type="class"``: the probability at or above which the class is 1 (default:
            the fit's threshold).
        missing : {"drop", "raise"}, default "drop"
            The older spelling of ``na_action``: ``"drop"`` is ``"omit"``, ``"raise"``
            ``"fail"``.  (A fit with ``na_action="exclude"`` pads ``predict()`` of its
            training rows with NaN at the rows it left out, as R's ``na.exclude``.)
        se_fit : bool, default False
            Return a DataFrame with columns ``fit`` and ``se_fit`` (see above); not for
            ``type="class"``.
        interval : {"confidence"}, optional
            ``"confidence"`` adds the columns ``conf_low``/``conf_high`` (see above); not for
            ``type="class"``.
        level : float, default 0.95
            The confidence level of ``interval``.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series or pandas.DataFrame
            One prediction per row of ``newdata`` (a DataFrame with ``se_fit`` or ``interval``;
            a lazy dask Series for a Dask ``newdata``).
        """
        se_fit = check_bool("se_fit", se_fit)
        lazy = self.training.lazy_predict(self, newdata, type, threshold, missing, se_fit,
                                          interval)
        if lazy is not None:    # out of core: a lazy series for new chunked data
            return lazy
        check_choice("type", type, ("response", "link", "class"))
        check_choice("missing", missing, ("drop", "raise"))
        if interval is not None:
            check_choice("interval", interval, ("confidence",))
        if (se_fit or interval) and type == "class":
            raise InvalidArgumentError(
                "`se_fit`/`interval` need type='response' or 'link'; a predicted class has no "
                "standard error.")
        if getattr(self, "na_index", None) is None:
            return self._predict(newdata, type, threshold, missing, se_fit, interval, level)
        # na_action="exclude": rows with missing values get NaN instead of being dropped
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingDataWarning)
            out = self._predict(newdata, type, threshold, missing, se_fit, interval, level)
        if newdata is None:
            pos = self.na_rows
            index = self.na_index
        elif newdata.index.is_unique:
            pos = newdata.index.get_indexer(out.index)
            index = newdata.index
        else:
            return out
        values = out.to_numpy(dtype=float)
        full = np.full((len(index),) + values.shape[1:], np.nan)
        full[pos] = values
        if isinstance(out, pd.Series):
            return pd.Series(full, index=index, name=out.name)
        padded = pd.DataFrame(full, index=index, columns=out.columns)
        padded.attrs.update(out.attrs)
        return padded

    def _predict(self, newdata, type, threshold, missing, se_fit, interval, level):
        if newdata is None and self.X is None and not (se_fit or interval):
            X, index, eta = None, self.index, self.core_fit.eta
        else:
            X, index = self.training.design(self, newdata, missing)
            eta = X @ self.core_fit.coef
            off = self.training.offset_of(self, newdata, index)
            eta = eta if off is None else eta + off
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

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).
        threshold : float, optional
            The probability at or above which the predicted class is 1 (default: the fit's
            threshold).

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
        """
        cells = self.training.cells(self, newdata, threshold)
        if cells is not None:
            return _m.Confusion(*(max(float(c), 0.0) for c in cells[:4]))
        y, w, eta = self.training.truth_weights_eta(self, newdata)
        t = self.threshold if threshold is None else check_threshold(threshold)
        pred = (expit(eta) >= t).astype(float)
        return _m.noisy_confusion(y, pred, dependence="independent", sample_weight=w)

    def noisy_f(self, newdata: pd.DataFrame | None = None, measure=None, *, beta=None,
                alpha=None, dependence: str | None = None) -> float:
        """Noisy F-measure (thesis §6.1) of the fitted probabilities against the labels.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, weighted by the count
            weights).
        measure : FMeasure, optional
            The F-measure (default: the fit's own); give at most one of ``measure``,
            ``beta`` and ``alpha``.
        beta, alpha : float, optional
            The F-measure by its beta, or by its weight on precision alpha.
        dependence : {"correlated", "independent"}, optional
            The noisy counts (see :func:`fmstats.measures.noisy_confusion`); default: the
            fit's own (``"correlated"`` unless ``umaxent`` was given another).

        Returns
        -------
        float
            The noisy F-measure.
        """
        fm = self.resolve_measure(measure, beta, alpha)
        dep = self.settings["dependence"] if dependence is None else dependence
        cells = self.training.cells(self, newdata, None)
        if cells is not None:
            check_choice("dependence", dep, ("correlated", "independent"))
            k = 4 if dep == "correlated" else 8
            return float(_m.Confusion(*(max(float(c), 0.0) for c in cells[k:k + 4])).f(fm))
        y, w, eta = self.training.truth_weights_eta(self, newdata)
        return float(_m.noisy_f(y, expit(eta), measure=fm, dependence=dep, sample_weight=w))

    def resample_f(self, newdata: pd.DataFrame | None = None, *, B: int = 1000,
                   random_state=None, **kwargs):
        """F of the predicted classes on B label vectors drawn from q (thesis §9.2).

        See :func:`fmstats.resample_f`.

        Parameters
        ----------
        newdata : DataFrame, optional
            As in :func:`fmstats.resample_f`: data with the response column (default: the
            training rows).
        B : int, default 1000
            Number of label vectors drawn.
        random_state : int or numpy.random.Generator, optional
            Seed or generator of the draws.
        **kwargs
            Further arguments of :func:`fmstats.resample_f`: ``measure``, ``beta``,
            ``alpha``, ``threshold``, ``max_cells``.

        Returns
        -------
        ResampleFResults
            The B values of F with their quantiles and summary.
        """
        self.training.check_resample(newdata)
        from ._qresample import resample_f

        return resample_f(self, newdata, B=B, random_state=random_state, **kwargs)

    def to_statsmodels(self, cov_type: str | None = None):
        """This model refitted by statsmodels' GLM; see :func:`fmstats.to_statsmodels`.

        Parameters
        ----------
        cov_type : str, optional
            ``"nonrobust"`` or ``"HC0"``–``"HC3"``; default: the fit's own ``cov_type``.

        Returns
        -------
        statsmodels.genmod.generalized_linear_model.GLMResultsWrapper
            The statsmodels fit of the same model.
        """
        from ._interop import to_statsmodels

        return to_statsmodels(self, cov_type)

    # ------------------------------------------------------------------ reporting
    def summary(self, cov_type: str | None = None, level: float = 0.95) -> Summary:
        """R's ``summary.glm`` layout plus an F-measure section.

        Parameters
        ----------
        cov_type : str, optional
            The covariance of the standard errors (default: the one chosen at fit time), as
            ``cov_params`` takes it.
        level : float, default 0.95
            The confidence level of the Wald coefficient intervals.

        Returns
        -------
        Summary
            The printable summary (``print`` it, or ``as_latex()``).
        """
        return maxent_summary(self, cov_type=cov_type, level=level)

    def __repr__(self) -> str:
        where = "" if self.training.in_memory else " (out of core)"
        return (f"<{type(self).__name__}{where} {self.model}: {self.formula!r}, n = {self.nobs}, "
                f"deviance = {self.deviance:.4g}, converged = {self.converged}>")


# ---------------------------------------------------------------------------- fitting
