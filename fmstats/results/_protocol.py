"""The shared results base: coefficient tables, the model protocol, pickling.

Every fmstats model returns a results object that

* holds ``params`` (a Series indexed by term), a covariance, and its settings;
* answers ``tidy()`` (one DataFrame: term, estimate, std_error, statistic,
  p_value, conf_low, conf_high) from which ``summary()`` formats its table;
* speaks the protocol used by tuning and bootstrap: ``refit(data)``,
  ``predict(newdata, type=...)``, ``confusion(newdata)``, ``measure(newdata)``;
* draws its score curves (:class:`fmstats.results.ScoreCurves`): ``f_curve()``,
  ``plot_pr()``, ``plot_roc()``, ``roc_auc()``;
* saves and loads itself (``save(path)``, ``Cls.load(path)``; ``_persist.py``) and
  shows its summary in a notebook (``_repr_html_``).

What is shared is implemented here once: the coefficient table (standard errors, Wald
statistics, p-values, intervals, ``tidy``), ``measure`` (the F-measure of ``confusion``
under the fit's measure ``fmeasure`` or the one asked for), ``_repr_html_``, pickling and
persistence, and ``refit`` (the recorded call, ``self.call``, again on other data).  A family
implements what differs: ``params``, ``cov_params``, ``predict``, ``confusion`` and
``summary``; its model function, recorded in the call, is its core fit.

Results are immutable after construction; derived statistics are
``functools.cached_property`` values computed on first use.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from ._persist import Persistable
from .._utils.call import refit_changes
from .._utils.validation import check_choice, check_level, interval_request, renamed_arguments
from ..exceptions import InvalidArgumentError
from ..measures import as_fmeasure
from ._curves import ScoreCurves
from ._training import FitRows, rows_of

__all__ = ["ModelResults", "RowRefitEngine"]


class RowRefitEngine:
    """The base of the refit engines :meth:`ModelResults.row_refits` hands out: refits of a
    fit on its own rows with other frequency weights, many at once (the interface is
    described there; ``fmstats/maxent_models/_refits.py`` and ``_oocrefits.py`` implement
    it)."""

    #: Whether the engine runs on the row blocks of a Dask DataFrame (a fit made out of
    #: core, which keeps no rows) and draws the replicates' weights there.
    out_of_core = False


class ModelResults(Persistable, ScoreCurves, FitRows):
    """Base class for fitted models with a coefficient vector.

    Subclasses provide ``params`` (Series, NaN for aliased terms),
    ``cov_params(cov_type=None)`` (DataFrame over the non-aliased terms),
    ``df_resid`` and ``use_t`` (t rather than normal reference distribution).
    """

    use_t: bool = False
    #: the fit's F-measure (a :class:`fmstats.measures.FMeasure`), set by the family
    fmeasure = None
    #: whether the coefficients are log-odds (logit link), so exp() of them are odds ratios
    log_odds: bool = False
    #: ``refit(rows=...)`` refits on rows of the training data (``TrainingRows.take``)
    refits_rows = True

    # ------------------------------------------------------------------ coefficient table
    @property
    def params(self) -> pd.Series:  # pragma: no cover - abstract
        """The coefficient estimates, indexed by term (a family implements it)."""
        raise NotImplementedError

    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:  # pragma: no cover
        """The covariance of the coefficient estimates (a family implements it).

        Parameters
        ----------
        cov_type : str, optional
            The covariance estimator (default: the fit's).

        Returns
        -------
        pandas.DataFrame
            The covariance matrix, rows and columns labelled by term.
        """
        raise NotImplementedError

    def row_refits(self, data=None):
        """Refits of this model on its own rows with other frequency weights, many at once,
        or ``None`` (the default: resampling then refits through :meth:`refit`).

        A family whose refits are a core fit on its kept design returns an engine with
        ``n``, ``threshold``, ``fit(multiplicities, replicates=, k=, step_tol=)``,
        ``full_fit(multiplicities, y=)``, ``scores(design_coef, rows, type)`` and
        ``influence()`` (``fmstats/maxent_models/_refits.py``); the bootstrap, ``validate``
        and the tuners' resampling use it.  A model fitted out of core keeps no rows: its
        engine (``out_of_core = True``) runs on the row blocks of ``data`` and draws the
        replicates' weights there (``fit_draws``, ``fmstats/maxent_models/_oocrefits.py``).

        Parameters
        ----------
        data : optional
            The training rows, for a model that keeps none (an out-of-core fit's Dask
            DataFrame); unused otherwise.
        """
        return None

    def se_unusable(self, cov_type=None) -> str | None:
        """Why the standard errors under ``cov_type`` cannot be used (``None``: they can).

        Subclasses flag fits whose covariance is meaningless (e.g. separation); their
        standard errors, statistics, p-values and Wald intervals are then NaN (printed NA).

        Parameters
        ----------
        cov_type : str, optional
            The covariance type (default: the one chosen at fit time), as
            ``cov_params`` takes it.
        """
        return None

    def tests_withheld(self, cov_type=None) -> str | None:
        """Why Wald tests (z or t values and p-values) are withheld although standard errors
        are shown (``None``: they are not withheld).

        A model whose standard errors are usable but whose Wald tests are known, by
        simulation, not to hold their level on data like these says so here; ``tidy()`` and
        ``summary()`` then print the estimates, standard errors and intervals without tests.

        Parameters
        ----------
        cov_type : str, optional
            The covariance type (default: the one chosen at fit time), as
            ``cov_params`` takes it.
        """
        return None

    def _se(self, cov_type=None) -> pd.Series:
        """Standard errors; NaN where the variance is not finite and positive, or where the
        fit flags them unusable (:meth:`se_unusable`), so no p-value is computed from them."""
        cov = self.cov_params(cov_type)
        var = np.diag(cov.to_numpy()).astype(float)
        ok = np.isfinite(var) & (var > 0)
        se = np.full(var.shape, np.nan)
        se[ok] = np.sqrt(var[ok])
        if self.se_unusable(cov_type) is not None:
            se[:] = np.nan
        return pd.Series(se, index=cov.index).reindex(self.params.index)

    @cached_property
    def bse(self) -> pd.Series:
        """Standard errors under the covariance chosen at fit time."""
        return self._se()

    def _reference(self):
        return stats.t(self.df_resid) if self.use_t else stats.norm()

    def _stat_p(self, se: pd.Series, cov_type=None) -> tuple[pd.Series, pd.Series]:
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = self.params / se
        stat = stat.where(np.isfinite(stat.to_numpy()))
        if self.tests_withheld(cov_type) is not None:
            stat = stat.where(np.zeros(len(stat), dtype=bool))
        p = np.full(len(stat), np.nan)
        ok = np.isfinite(stat.to_numpy())
        p[ok] = 2 * self._reference().sf(np.abs(stat.to_numpy()[ok]))
        return stat, pd.Series(p, index=stat.index)

    @cached_property
    def tvalues(self) -> pd.Series:
        """Wald statistics params / bse (z or t values)."""
        return self._stat_p(self.bse)[0]

    @cached_property
    def pvalues(self) -> pd.Series:
        """Two-sided p-values of the Wald statistics."""
        return self._stat_p(self.bse)[1]

    def conf_int(self, level: float = 0.95, cov_type: str | None = None,
                 method: str = "wald") -> pd.DataFrame:
        """Confidence intervals, columns ``conf_low``, ``conf_high``.

        ``method="wald"`` (default): estimate -/+ quantile x standard error under ``cov_type``
        (R's ``confint.default``), consistent with the standard errors of ``summary()`` and
        cheap.  ``method="profile"``: profile-likelihood intervals (R's ``confint.glm``), for
        likelihood fits only (model-based, ``cov_type`` does not apply); better in small
        samples and for skewed likelihoods, at the cost of refits per coefficient.

        Parameters
        ----------
        level : float, default 0.95
            The confidence level, in (0, 1).
        cov_type : str, optional
            The covariance type (default: the one chosen at fit time), as
            ``cov_params`` takes it.
        method : {"wald", "profile"}, default "wald"
            Wald or profile-likelihood intervals (see above).

        Returns
        -------
        pandas.DataFrame
            One row per term, columns ``conf_low`` and ``conf_high``.
        """
        check_level(level)
        check_choice("method", method, ("wald", "profile"))
        if method == "profile":
            return self._profile_conf_int(level)
        se = self._se(cov_type)
        q = self._reference().ppf(0.5 + level / 2)
        return pd.DataFrame({"conf_low": self.params - q * se, "conf_high": self.params + q * se})

    def _profile_conf_int(self, level: float) -> pd.DataFrame:
        raise InvalidArgumentError(
            f"`method`='profile' needs a likelihood fit; {type(self).__name__} has none. Use "
            "method='wald'.")

    @renamed_arguments(conf_method="ci_method")
    def tidy(self, level: float = 0.95, cov_type: str | None = None,
             ci_method: str = "wald", exponentiate: bool = False) -> pd.DataFrame:
        """The coefficient table as a tidy DataFrame (one row per term).

        Parameters
        ----------
        level : float, default 0.95
            The confidence level of ``conf_low`` and ``conf_high``.
        cov_type : str, optional
            The covariance type (default: the one chosen at fit time), as
            ``cov_params`` takes it.
        ci_method : {"wald", "profile"}, default "wald"
            The intervals, as ``method`` of :meth:`conf_int` (``conf_method=`` is the old
            spelling: deprecated).
        exponentiate : bool, default False
            Report exp(estimate) and exp() of the interval's bounds: odds ratios and their
            intervals for a logistic model, as ``broom::tidy(exponentiate = TRUE)``; the
            standard error, statistic and p-value stay on the log-odds scale, as broom's.
            Refused for models whose coefficients are not log-odds (the SVMs).

        Returns
        -------
        pandas.DataFrame
            One row per term: term, estimate, std_error, statistic, p_value, conf_low,
            conf_high.
        """
        if not isinstance(exponentiate, (bool, np.bool_)):
            raise InvalidArgumentError(f"`exponentiate` must be True or False; got "
                                       f"{exponentiate!r}.")
        if exponentiate and not self.log_odds:
            raise InvalidArgumentError(
                f"`exponentiate`: the coefficients of a {type(self).__name__} are not log-odds, "
                "so exp() of them is no odds ratio.")
        se = self._se(cov_type)
        stat, p = self._stat_p(se, cov_type)
        ci = self.conf_int(level, cov_type, method=ci_method)
        est, lo, hi = (self.params.to_numpy(), ci["conf_low"].to_numpy(),
                       ci["conf_high"].to_numpy())
        if exponentiate:
            est, lo, hi = np.exp(est), np.exp(lo), np.exp(hi)
        return pd.DataFrame({
            "term": self.params.index.to_numpy(),
            "estimate": est,
            "std_error": se.to_numpy(),
            "statistic": stat.to_numpy(),
            "p_value": p.to_numpy(),
            "conf_low": lo,
            "conf_high": hi,
        })

    # ------------------------------------------------------------------ protocol
    def refit(self, data=None, weights=None, *, rows=None, **changes):
        """Fit the same model with the same settings to ``data``: the recorded call again.

        Implemented once, here, for every family: the model function of the recorded call
        (``self.call``) is called again with the arguments it was given, on ``data``.
        Defaults that depend on the data (fsvm's C = m+, the costs of its start) are
        recomputed on ``data``.  A weights column given by name is looked up in ``data``;
        weights given as an array must be passed again (they belong to the old rows).
        ``rows`` instead of ``data``: rows of the data this fit used
        (:class:`fmstats.results.TrainingRows`: ``training_rows(fit, data).take(positions)``),
        which carry their own per-row arguments: the one path of the refits of tuning and
        resampling (``ModelCall.refit(rows=...)``).

        Parameters
        ----------
        data : DataFrame, optional
            The data to fit to (or give ``rows``).
        weights : str or array-like, optional
            Prior weights for ``data``: needed again when the original ones were an array
            (default: the original weights column, looked up in ``data``).
        rows : RowSelection, optional
            Rows of the training data (``TrainingRows.take``), instead of ``data``.
        **changes
            Other arguments of the call to change (a ``subset`` mask or an ``offset`` array
            belongs to the old rows: give it again, or None).

        Returns
        -------
        ModelResults
            The new fit, of this fit's class.
        """
        return self.call.refit(data, rows=rows,
                               **{**refit_changes(self.call, weights), **changes})

    def coefficients(self):
        """The coefficient estimates by term (``params``), as a bootstrap resamples them.

        Returns
        -------
        pandas.Series
            ``params``.
        """
        return self.params

    def coefficient_table(self, level: float = 0.95):
        """A model's own ``tidy(level=level)`` (a calibration's: its base model's), which a
        bootstrap summary prints beside its replicates.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level of the Wald intervals in the table.

        Returns
        -------
        pandas.DataFrame or None
            One row per term; None where a family's ``tidy`` is not a coefficient table.
        """
        if self.base is not None:
            return rows_of(self.base).coefficient_table(level)
        return self.tidy(level=level)

    def predict(self, newdata=None, type: str = "response"):  # pragma: no cover - abstract
        """Predictions for ``newdata`` (a family implements it).

        Parameters
        ----------
        newdata : DataFrame, optional
            The rows to predict (default: the training rows).
        type : str, default 'response'
            What to predict; the family documents its types.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series
            One prediction per row of ``newdata``.
        """
        raise NotImplementedError

    def confusion(self, newdata=None, **kwargs):  # pragma: no cover - abstract
        """Confusion counts (:class:`fmstats.measures.Confusion`) of the class predictions.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training data).
        **kwargs
            Family-specific options (e.g. ``threshold``).
        """
        raise NotImplementedError

    def summary(self):  # pragma: no cover - abstract
        """The printable summary (a family implements it).

        Returns
        -------
        Summary
            The summary; ``print`` it, or ``as_latex()``.
        """
        raise NotImplementedError

    def resolve_measure(self, measure=None, beta=None, alpha=None):
        """The F-measure asked for (``measure``, ``beta`` or ``alpha``), else the fit's own.

        Parameters
        ----------
        measure : FMeasure, optional
            An F-measure.
        beta, alpha : float, optional
            The F-measure's beta, or its weight on precision alpha.

        Returns
        -------
        FMeasure
            The measure to use.
        """
        if measure is None and beta is None and alpha is None:
            return self.fmeasure
        return as_fmeasure(measure, beta=beta, alpha=alpha)

    def measure(self, newdata=None, measure=None, *, beta=None, alpha=None, ci=False,
                ci_method=None, level=0.95, B=None, random_state=None, **kwargs):
        """F-measure of the class predictions on ``newdata`` (default: the training data),
        under the fit's measure or the one given; with ``ci=True``, with its interval.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training data).
        measure : FMeasure, optional
            The F-measure (default: the fit's own, unless ``beta`` or ``alpha`` is given).
        beta, alpha : float, optional
            The F-measure's beta, or its weight on precision alpha.
        ci : bool, default False
            Return a :class:`fmstats.inference.MeasureInterval` made by
            :func:`fmstats.f_interval` (rows counted as :meth:`confusion` counts them: count
            weights as frequency weights, probabilistic labels fractionally) instead of a
            float.  (``ci="delta"``, the method given as ``ci``, is the old spelling of
            ``ci=True, ci_method="delta"``, deprecated).
        ci_method : {"delta", "bayes", "bootstrap"}, default "delta"
            The method of the interval (with ``ci=True``), as ``method`` of
            :func:`fmstats.f_interval`.
        level : float, default 0.95
            The level of the interval (with ``ci``).
        B : int, optional
            Draws of the Monte-Carlo methods (with ``ci``).
        random_state : int, SeedSequence or Generator, optional
            Seed of the Monte-Carlo methods (with ``ci``).
        **kwargs
            Other keywords (e.g. ``threshold``) go to :meth:`confusion`.

        Returns
        -------
        float or MeasureInterval
            The F-measure, or with ``ci`` the interval object.
        """
        from ..inference import F_METHODS, interval_of_rows

        ci, ci_method = interval_request(ci, ci_method, F_METHODS, default="delta",
                                         call="measure")
        fm = self.resolve_measure(measure, beta, alpha)
        if not ci:
            return float(self.confusion(newdata, **kwargs).f(fm))
        y, yhat, w, _ = self._class_rows(newdata, **kwargs)
        return interval_of_rows(y, yhat, w, fm, ci_method, level, B, random_state,
                                name="ci_method")

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    # ------------------------------------------------------------------ persistence
    def __getstate__(self):
        # cached values are cheap to recompute and may be large: do not pickle them
        return {k: v for k, v in self.__dict__.items()
                if not isinstance(getattr(type(self), k, None), cached_property)}

    def __setstate__(self, state):
        self.__dict__.update(state)

    # save(path) / Cls.load(path) come from Persistable (fmstats/_persist.py): a versioned
    # file, checked on load to hold a Cls (a truncated file is a DataError naming the path)
