"""The results of :func:`fmstats.fmaxent`: the maxent protocol plus the outer loop's history,
the F-weights and the covariances of an F-maximiser (``reweighted``, ``bootstrap``, and the
sandwich with the F-weights held fixed).
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit

from ..exceptions import (InvalidArgumentError)
from .._utils.call import refit_changes
from ..glm import Outer
from ..glm import saturated_rows
from ..glm import (Reweighting, direct_sums, fixed_point_gap,
                           stacked_covariance_sums, unrolled_covariance_sums)
from ._covariance import MIN_CLASS_BOOT_TESTS, MIN_CLASS_REWEIGHTED
from ._maxent import MaxentResults
from ..results import Section

__all__ = ["FMaxentResults", "DEFAULT_SHRINKAGE"]

#: Default shrinkage: ridge per observation on standardised coefficients; see :func:`fmaxent`.
DEFAULT_SHRINKAGE = 1e-4


# ----------------------------------------------------------------------------- results

class FMaxentResults(MaxentResults):
    """A fitted F-measure maximising maxent model (:func:`fmaxent`).

    Shares the maxent API (``params``, ``tidy()``, ``summary()``, ``predict()``,
    ``conf_int()``, pickling).  ``history`` is the outer loop's learning curve: the
    target, training F, noisy F and log-likelihood per iteration; ``coef_path`` the
    coefficients of every iterate; ``best_iteration``
    the iterate returned; ``fweights`` the F-maximising weights (mean 1) at that iterate;
    ``bootstrap_results`` the :class:`fmstats.BootstrapResults` behind
    ``cov_type="bootstrap"`` (else ``None``).  Built by :func:`fmaxent`.

    Parameters
    ----------
    outer : _Outer
        The outer loop's result: returned coefficients and F-weights, learning curve,
        coefficient path, best iteration, convergence and the reason it stopped.
    baseline_coef : ndarray
        The coefficients of the unweighted start fit.
    column_var : ndarray, optional
        Weighted variances of the design columns (for ``std_coef`` and the shrinkage).
    bootstrap : BootstrapResults, optional
        The replicates behind ``cov_type="bootstrap"`` (``None`` otherwise).
    **kwargs
        The parameters of :class:`MaxentResults`: ``settings``, ``call``, ``frame``,
        ``aliased``, ``fit``, ``training``.
    """

    use_t = False
    #: Standardised coefficients (``|b_j| * sd(x_j)``) above this are reported as large.
    LARGE_STD_COEF = 10.0

    def __init__(self, *, outer: Outer, baseline_coef: np.ndarray,
                 column_var: np.ndarray | None = None, bootstrap=None, **kwargs):
        super().__init__(**kwargs)
        self.column_var = column_var
        self.outer_history = outer.history
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        self.coef_path = pd.DataFrame(outer.coef_path, columns=names).rename_axis("iteration")
        self.best_iteration = outer.best_iteration
        self.outer_converged = outer.converged
        self.stop_reason = outer.reason
        self.baseline_coef = baseline_coef
        self._bootstrap = bootstrap

    def __setstate__(self, state):
        if "bootstrap_results" in state:        # files written before the bootstrap was lazy
            state["_bootstrap"] = state.pop("bootstrap_results")
        super().__setstate__(state)

    #: The seed of the default covariance's bootstrap when ``random_state`` is not given, so
    #: that the default summary is the same on every run.
    DEFAULT_BOOT_SEED = 0

    @property
    def bootstrap_results(self):
        """The :class:`fmstats.BootstrapResults` behind ``cov_type="bootstrap"`` (else None).

        The default covariance of a fit whose smaller class is small (see
        :func:`fmstats.fmaxent`) is computed here on first use -- by ``summary()``,
        ``bse``, ``conf_int()``, ``tidy()`` -- and kept (also when pickled); a fit whose
        standard errors are never asked for does not pay for it.
        """
        if self._bootstrap is None and self.cov_type == "bootstrap" and not (
                self.separated and not self.penalised):   # no finite estimate: SEs are NA
            self._bootstrap = self._run_bootstrap()
        return self._bootstrap

    def _run_bootstrap(self, rows=None):
        """Case-resampling replicates of the whole fit on the stored design (k-step, with the
        control variate and the stop rule of :func:`fmstats.bootstrap`).  They resample an
        HC0 view of this fit (:meth:`with_cov`), whose own table is cheap, so the bootstrap's
        table of the model does not ask for this covariance again.  ``rows``: the row blocks
        of an out-of-core fit (its Poisson bootstrap runs on them)."""
        from ..resampling import bootstrap  # resampling sits on top of the models: on use

        s = self.settings
        seed = s["random_state"] if s["random_state"] is not None else self.DEFAULT_BOOT_SEED
        return bootstrap(self.with_cov("HC0"), B=int(s["B"]), type="case", random_state=seed,
                         n_jobs=s["n_jobs"], progress=s["progress"], ci=False,
                         replicates=s.get("replicates", "kstep"), data=rows)

    def keep_bootstrap(self, rows) -> None:
        """Run the bootstrap of ``cov_type="bootstrap"`` now on ``rows`` and keep it: an
        out-of-core fit at fit time, while its row blocks are at hand (they are not kept).

        Parameters
        ----------
        rows : row source
            The fit's row blocks (:mod:`fmstats.glm`'s row source of the Dask DataFrame).
        """
        if self._bootstrap is None:
            self._bootstrap = self._run_bootstrap(rows)

    @property
    def method(self) -> str:
        """The F-maximiser: ``"expected"``, ``"noisy"`` or ``"plugin"``."""
        return self.settings["method"]

    @property
    def history(self) -> pd.DataFrame:  # type: ignore[override]
        """The outer loop's learning curve (one row per outer iteration; 0 is the start)."""
        return self.outer_history

    @property
    def family(self) -> str:
        """``"quasibinomial"``: the F-weighted fit's family, as the summary names it."""
        return "quasibinomial"

    @property
    def estimates_dispersion(self) -> bool:
        """True: the F-weights have an arbitrary scale, so only an estimated dispersion is valid."""
        return True

    @cached_property
    def llf(self) -> float:
        """The (uncertain) log-likelihood of the returned coefficients with the count weights only."""
        if not self.training.in_memory:
            return self.training.llf(self)
        return self.training.count_loglik(self.core_fit)

    @property
    def aic(self):
        """``None``: with data-dependent weights the fit is not a likelihood fit."""
        return None

    @property
    def fweights_range(self) -> tuple[float, float]:
        """Smallest and largest F-weight on the rows with positive weight."""
        return self.training.fweights_range()

    @property
    def target_name(self) -> str:
        """The name of the F the outer loop maximises, as the summary and plots print it."""
        return {"expected": "expected F (Alg. 4.1)", "noisy": "noisy F (correlated, Alg. 7.1)",
                "plugin": "plug-in F of predicted classes vs q (§9.3)"}[self.method]

    @cached_property
    def std_coef(self) -> pd.Series:
        """``|coefficient|`` times the weighted SD of its column: the change in log-odds per SD."""
        sd = np.sqrt(self.column_var)
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        return pd.Series(np.abs(self.core_fit.coef) * sd, index=names, name="std_coef")

    def outer_settings(self) -> dict | None:
        """The settings of the outer loop (:func:`fmstats.glm.outer_loop`), for refits
        on the stored arrays; ``None`` when the fit keeps no design in memory.

        Returns
        -------
        dict or None
            The outer loop's keyword arguments, or None.
        """
        if not self.training.in_memory or self.X is None:
            return None
        return self.loop_settings()

    def loop_settings(self) -> dict:
        """The settings of the outer loop (:func:`fmstats.glm.outer_loop`): what a refit
        of the whole F-maximiser reruns.

        Returns
        -------
        dict
            The outer loop's keyword arguments.
        """
        s = self.settings
        return dict(alpha=self.fmeasure.alpha, method=s["method"],
                    epsilon=None if s["method"] == "expected" else s["epsilon"],
                    bounds=s["weight_bounds"], inner=s["inner"], max_outer=int(s["max_outer"]),
                    patience=int(s["patience"]), min_improvement=float(s["min_improvement"]),
                    rel_improvement=float(s["rel_improvement"]), select=s["select"])

    def row_refits(self, data=None):
        """Refits of the whole F-maximiser on its own design with other frequency weights
        (``FMaxentRefits``), or ``None`` when the fit
        keeps no design in memory; an out-of-core fit's refits run on the row blocks of
        ``data``, its Dask DataFrame (``_oocrefits.py``).

        Parameters
        ----------
        data : dask.dataframe.DataFrame, optional
            The training rows of an out-of-core fit (unused in memory).

        Returns
        -------
        FMaxentRefits or BlockRefits or None
            The refit engine, or None when the fit keeps no design in memory and no ``data`` is
            given.
        """
        if not self.training.in_memory:
            return self.training.row_refits(self, data)
        loop = self.outer_settings()
        if loop is None:
            return None
        from ._refits import FMaxentRefits, refit_fields

        return FMaxentRefits(**refit_fields(self), loop=loop,
                             path=self.coef_path.to_numpy(), shrinkage=self.settings["shrinkage"],
                             reweighting=self._reweighting(),
                             best_iteration=int(self.best_iteration))

    # ------------------------------------------------------------------ covariance
    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:
        """Covariance of the coefficients.

        Parameters
        ----------
        cov_type : {"reweighted", "bootstrap", "HC0", "nonrobust", "HC1", "HC2", "HC3"}, optional
            ``"reweighted"`` (the sandwich that differentiates the F-reweighting), ``"bootstrap"``
            (replicates of the whole fit; only for a fit made with ``cov_type="bootstrap"`` or
            by default) or the estimators of :meth:`fmstats.MaxentResults.cov_params`, which
            treat the F-weights as fixed; default: the one chosen at fit.  Each is a class of
            ``_covariance.py``.

        Returns
        -------
        pandas.DataFrame
            The covariance matrix, rows and columns labelled by term.
        """
        return super().cov_params(cov_type)

    def _reweighting(self) -> Reweighting:
        s = self.settings
        return Reweighting(method=s["method"], alpha=self.fmeasure.alpha,
                           epsilon=None if s["method"] == "expected" else s["epsilon"],
                           bounds=s["weight_bounds"], threshold=self.threshold)

    def reweighted_covariance(self, sums=None) -> tuple:
        """(covariance, fixed-point gap or None) of ``cov_type="reweighted"``, computed
        (``Reweighted`` caches it) from the kept
        design, or from ``sums`` over the training rows (a row source's ``sums``: an
        out-of-core fit at fit time), by the same passes (:mod:`fmstats.glm._stacked`).

        Parameters
        ----------
        sums : callable, optional
            ``sums(block_function, **arguments)``: the sum over the training rows' blocks of
            ``block_function(X, q, c, **arguments)`` (default: the kept design in memory).

        Returns
        -------
        tuple
            ``(covariance, gap)``: the covariance as an ndarray and the fixed-point gap (None
            when it was not measured).
        """
        pen = self.core_fit.penalty
        pen = np.zeros(self.rank) if pen is None else pen
        path = self.coef_path.to_numpy()
        # computed in the core's centred/scaled coordinates when it used them (an offset column
        # such as x + 1e7 would otherwise square its condition number into X'WX); the weights
        # and the standardised ridge are invariant, and V = A V~ A'
        sc = getattr(self.core_fit, "scaling", None)     # out of core: offset columns refused
        if sums is None:
            X = self.X.toarray() if hasattr(self.X, "toarray") else self.X   # sparse: n x p
            sums = direct_sums(X if sc is None else sc.transform(X), self.y,
                               self.count_weights)
        if sc is not None:
            pen = sc.penalty_to_scaled(pen)
            path = np.array([sc.to_scaled(t) for t in path])
        n, shrinkage = int(self.training.shape[0]), self.settings["shrinkage"]
        if self.settings["inner"] == "full":
            cov = unrolled_covariance_sums(sums, n, path, self.best_iteration,
                                           self._reweighting(), pen, shrinkage=shrinkage)
            return (cov if sc is None else sc.cov_to_original(cov)), None
        coef = self.core_fit.coef if sc is None else sc.to_scaled(self.core_fit.coef)
        st = stacked_covariance_sums(sums, n, coef, self._reweighting(), pen,
                                     shrinkage=shrinkage)
        return (st.cov if sc is None else sc.cov_to_original(st.cov)), fixed_point_gap(st)

    @property
    def reweighted_cov(self) -> np.ndarray:
        """The covariance of ``cov_type="reweighted"`` (array over the non-aliased terms)."""
        return self.covariance("reweighted").cov()

    #: Smallest class from which the reweighted sandwich's Wald tests are printed.
    MIN_CLASS_FOR_TESTS = MIN_CLASS_REWEIGHTED
    #: Smallest class from which the bootstrap's Wald tests are printed.
    MIN_CLASS_FOR_BOOT_TESTS = MIN_CLASS_BOOT_TESTS

    def class_sizes(self) -> tuple[float, float]:
        """Weighted numbers of positives and negatives, sum c q and sum c (1 - q).

        Returns
        -------
        tuple of float
            ``(positives, negatives)``.
        """
        return self.training.class_sizes()

    @property
    def penalised(self) -> bool:
        """Whether a ridge (``shrinkage`` or ``penalty``) keeps the coefficients finite."""
        return bool(self.settings["shrinkage"] > 0 or self.settings["penalty"] > 0)

    @cached_property
    def n_saturated(self) -> int:
        """Rows whose fitted probability is within 1e-8 of 0 or 1 (a sharp model: they have
        left the information matrix; :data:`fmstats.glm.SATURATION`)."""
        return saturated_rows(expit(self.core_fit.eta), self.weights)

    def _profile_conf_int(self, level: float) -> pd.DataFrame:
        raise InvalidArgumentError(
            "`method`='profile': the F-weights are chosen from the fit itself, so the weighted "
            "deviance is not a likelihood to profile. Use cov_type='bootstrap' with Wald "
            "intervals, or fm.bootstrap(fit) for percentile/BCa intervals.")

    def se_advice(self) -> str:
        """What to do about unusable standard errors of an F-maximiser.

        Returns
        -------
        str
            The advice.
        """
        return (f"Raise `shrinkage` (now {self.settings['shrinkage']:g}) or keep the "
                "default weight clipping.")

    def refit(self, data: pd.DataFrame = None, weights=None, cov_type: str | None = None, *,
              rows=None, **changes) -> "FMaxentResults":
        """Fit the same model with the same settings to ``data``: the recorded call again.

        The refit's covariance is ``"HC0"`` for a fit made with ``cov_type="bootstrap"``, so
        that tuning and :func:`fmstats.bootstrap` do not nest bootstraps; pass
        ``cov_type="bootstrap"`` to bootstrap the refit too.

        Parameters
        ----------
        data : DataFrame
            The data to fit to.
        weights : str or array-like, optional
            Prior weights for ``data``: needed again when the original ones were an array
            (default: the original weights column, looked up in ``data``).
        cov_type : str, optional
            The refit's covariance type (default: the original one, or ``"HC0"`` in place of
            ``"bootstrap"``).
        rows : RowSelection, optional
            Rows of the training data (``TrainingRows.take``), instead of ``data``.
        **changes
            Other arguments of the call to change (a ``subset`` mask belongs to the old rows:
            give it again, or None).

        Returns
        -------
        FMaxentResults
            The F-maximiser fitted to ``data``.
        """
        changes = {**refit_changes(self.call, weights), **changes}
        if cov_type is not None:
            changes["cov_type"] = cov_type
        elif self.settings["cov_type"] == "bootstrap":
            changes["cov_type"] = "HC0"
        call = self.call
        if changes.get("cov_type", "bootstrap") != "bootstrap" and "B" not in changes:
            call = call.without("B")     # the replicates of a bootstrap the refit does not run
        return call.refit(data, rows=rows, **changes)

    # ------------------------------------------------------------------ reporting
    def iteration_lines(self) -> list[str]:
        """The summary's iteration lines: the final weighted fit and the outer loop.

        Returns
        -------
        list of str
            The lines, as printed.
        """
        lines = ["(Deviances and dispersion are those of the final weighted fit, with the F-weights.)",
                 f"Outer iterations: {len(self.outer_history) - 1}; see 'F-measure maximisation'."]
        n_sat, near = ((self.n_saturated, "within 1e-8 of") if self.training.in_memory else
                       (int(getattr(self.core_fit, "n_separated", 0)), "numerically"))
        if self.penalised and n_sat:
            lines.append(f"Note: {n_sat} of {self.n_ok} fitted probabilities are {near} 0 or 1 "
                         "(a sharp model: the reweighting pushes them "
                         "further, and the ridge alone keeps the coefficients finite, so they "
                         "depend on it). Wald standard errors are the more approximate for it.")
        elif self.separated:
            lines.append("Warning: fitted probabilities numerically 0 or 1 occurred: the "
                         "maximiser drove the coefficients towards infinity (predictions are "
                         "still usable; standard errors are not). Raise `shrinkage`.")
        return lines

    def plot_history(self, ax=None):
        """The learning curve (thesis Fig. 9.8): target and training F per outer iteration.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            The axes to draw on (default: a new figure's).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ..plotting import plot_history

        return plot_history(self.outer_history, best=self.best_iteration,
                            target_label=self.target_name, ax=ax)

    def _regularisation_lines(self) -> list:
        x = self.settings
        out = []
        b = x["weight_bounds"]
        if b is not None:
            src = "default for expected F: the thesis's setting" if x.get("weight_bounds_auto") \
                else "weight_bounds"
            out.append(("Weight clipping", f"[{b[0]:g}, {b[1]:g}] ({src})"))
        else:
            out.append(("Weight clipping", "none"))
        if self.method != "expected" and x["epsilon"] is not None:
            out.append(("Weight smoothing", f"epsilon = {x['epsilon']:g} (§7.2)"))
        sh = x["shrinkage"]
        out.append(("Shrinkage", f"{sh:g} per observation on standardised coefficients"
                    + (" (default)" if sh == DEFAULT_SHRINKAGE else "")
                    + ("" if sh else ": none")))
        if self.settings["penalty"]:
            out.append(("Ridge penalty", f"{self.settings['penalty']:g} on raw coefficients"))
        return out

    def summary(self, cov_type: str | None = None, level: float = 0.95):
        """R's ``summary.glm`` layout plus the F-measure and F-maximisation sections.

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
        s = super().summary(cov_type=cov_type, level=level)
        s.title = "F-measure maximising maximum entropy model"
        h = self.outer_history
        best = h.loc[self.best_iteration]
        start = h.loc[0]
        x = self.settings
        lines = [
            ("Target", f"{self.target_name}, {self.fmeasure}"),
            ("Target: start (unweighted fit) -> returned", f"{start['target']:.4f} -> "
                                                           f"{best['target']:.4f}"),
            ("Training F of predicted classes: start -> returned",
             f"{start['training_f']:.4f} -> {best['training_f']:.4f}"),
            ("Outer iterations", f"{len(h) - 1} ({'converged' if self.outer_converged else 'NOT CONVERGED'}: "
                                 f"{self.stop_reason}); returned iterate {self.best_iteration}"),
            ("Inner step", "one IRLS step per outer iteration" if x["inner"] == "step"
             else "full weighted fit per outer iteration (warm start)"),
        ]
        lines += self._regularisation_lines()
        lo, hi = self.fweights_range
        lines.append(("F-weights (mean 1)", f"range [{lo:.4g}, {hi:.4g}]"))
        big = self.std_coef[self.std_coef > self.LARGE_STD_COEF]
        if len(big):
            lines.append(f"  Warning: large coefficients: a change of one SD in {big.idxmax()} "
                         f"moves the log-odds by {big.max():.3g}; the reweighting drifts towards "
                         "a hard classifier. Raise `shrinkage` for a smoother model.")
        s.sections.insert(1, Section("F-measure maximisation:", lines))
        return s


