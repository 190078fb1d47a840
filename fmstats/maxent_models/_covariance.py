"""The covariance of a maxent-family fit: one estimator per ``cov_type``, one default rule.

As linearmodels' ``iv/covariance.py``: each estimator is a class with ``cov`` (the p x p
covariance of the non-aliased coefficients), what makes it unusable, whether its Wald tests
are withheld, and the line the summary prints; its formula is in its Notes.  The results ask
:func:`estimator` for the class of a ``cov_type`` (the lookup table :data:`ESTIMATORS`) and
never branch on the type themselves; :func:`default_cov_type` is the one place that decides
which estimator a fit gets by default, with the evidence behind it.

Computed covariances are cached on the results (``results._covariances``, pickled with them),
so a summary, ``bse`` and ``conf_int`` share one computation.  ``results.with_cov(cov_type)``
is the same fit under another estimator (a copy; nothing is edited in place).
"""
from __future__ import annotations

import copy
from functools import cached_property

import numpy as np

from ..exceptions import InvalidArgumentError

__all__ = ["CovarianceEstimator", "ModelBased", "Sandwich", "Reweighted", "Bootstrap",
           "ESTIMATORS", "MAXENT_COV_TYPES", "FMAXENT_COV_TYPES", "estimator",
           "default_cov_type", "with_cov", "MIN_CLASS_REWEIGHTED", "MIN_CLASS_BOOT_TESTS"]

#: The default covariance of ``fmaxent`` is the reweighted sandwich from this many rows in the
#: smaller class (weighted rows with y = 1, or with y = 0), the bootstrap below; its Wald tests
#: are withheld below it (see :func:`default_cov_type`).
MIN_CLASS_REWEIGHTED = 900
#: The bootstrap's Wald tests are withheld below this many rows in the smaller class.
MIN_CLASS_BOOT_TESTS = 150


class CovarianceEstimator:
    """One covariance estimator of a fitted maxent-family model.

    Parameters
    ----------
    results : MaxentResults
        The fit.
    """

    #: the ``cov_type`` this class implements
    name = ""

    def __init__(self, results):
        self.results = results

    def cov(self) -> np.ndarray:  # pragma: no cover - abstract
        """The covariance of the non-aliased coefficients (cached on the results)."""
        raise NotImplementedError

    def unusable(self) -> str | None:
        """Why these standard errors cannot be used (None: they can): separation without a
        ridge makes every covariance meaningless; subclasses add their own reasons."""
        r = self.results
        ridge = r.model == "fmaxent" and (r.settings["shrinkage"] > 0 or r.settings["penalty"] > 0)
        if r.separated and not ridge:
            return (f"{r.separation_text} (separation): the coefficients run towards "
                    "infinity and their standard errors are meaningless")
        return None

    def tests_withheld(self) -> str | None:
        """Why Wald tests are withheld beside these standard errors (None: they are not)."""
        return None

    def label(self) -> str:  # pragma: no cover - abstract
        """The summary's "Standard errors" line."""
        raise NotImplementedError

    def footnotes(self) -> list[str]:
        """Lines the summary prints under the coefficient table about these errors."""
        return []

    def _cached(self, compute):
        store = self.results.__dict__.setdefault("_covariances", {})
        if self.name not in store:
            store[self.name] = compute()
        return store[self.name]


class ModelBased(CovarianceEstimator):
    """``cov_type="nonrobust"``: the inverse (penalised) Fisher information.

    Notes
    -----
    V = phi (X' W X + P)^-1 with W = diag(w mu (1 - mu)), P the ridge and phi the
    dispersion (1 for binomial fits, Pearson's chi^2 / df for quasi fits), as R's
    ``vcov.glm``.
    """

    name = "nonrobust"

    def cov(self):
        return self._cached(lambda: self.results.training.cov(self.results, self.name))

    def label(self):
        disp = ", dispersion estimated" if self.results.estimates_dispersion else ""
        return f"model-based (inverse Fisher information{disp})"


class Sandwich(CovarianceEstimator):
    """``cov_type="HC0"``-``"HC3"``: the sandwich (R's ``sandwich::vcovHC``).

    Notes
    -----
    V = B X' diag(e_i^2 / (1 - h_i)^k) X B with B = (X'WX + P)^-1 the bread, e = w (y - mu) and
    h the hat values; k = 0 (HC0, White), HC1 = HC0 x n / (n - p), k = 1 (HC2), k = 2 (HC3).
    For an F-maximiser the F-weights enter w as fixed numbers, which they are not (see
    :class:`Reweighted`).  Out of core the meats are sums accumulated per partition.
    """

    LABELS = {"HC0": "sandwich HC0 (White; R's sandwich::vcovHC(type = \"HC0\"))",
              "HC1": "sandwich HC1 (HC0 x n/(n - k))",
              "HC2": "sandwich HC2 (scores scaled by 1/(1 - h))",
              "HC3": "sandwich HC3 (scores scaled by 1/(1 - h)^2)"}

    def __init__(self, results, kind: str):
        super().__init__(results)
        self.name = kind

    def cov(self):
        return self._cached(lambda: self.results.training.cov(self.results, self.name))

    def label(self):
        text = self.LABELS[self.name]
        if self.results.model == "fmaxent":
            text += ("; treats the F-weights as fixed although they depend on the estimates, "
                     "so it is approximate: cov_type='bootstrap' refits the whole reweighting")
        return text

    def footnotes(self):
        if self.results.model != "fmaxent":
            return []
        return ["Std. errors treat the F-weights as fixed, but the weights depend on the "
                "estimates: they are several times too small (95% intervals covered 15-50% in "
                "simulation). For inference use the default cov_type='reweighted', or "
                "'bootstrap' (refits of the whole reweighting)."]


class Reweighted(CovarianceEstimator):
    """``cov_type="reweighted"`` (fmaxent): the sandwich of the estimator actually returned.

    Notes
    -----
    ``inner="full"``: the influence rows psi of the returned iterate, differentiated through
    every outer iteration (the F-weights' dependence on the coefficients, on F and on their
    scale, the clipping and the data-dependent shrinkage), V = sum psi psi' / N^2
    (:func:`fmstats.glm.unrolled_covariance`).  Every term is a sum over rows, so an
    out-of-core fit computes it at fit time from its row blocks, with the same code
    (:func:`fmstats.glm.unrolled_covariance_sums`: four passes).  ``inner="step"``: the stacked
    sandwich J^-1 B J^-T / N of the coefficients and the F aggregates at the fixed point
    (:func:`fmstats.glm.stacked_covariance`).  Computed in the core's centred and
    scaled coordinates when it used them, V = A V~ A'.  The documentation's "Inference for
    fmaxent" derives both.
    """

    name = "reweighted"
    #: A Newton step to the fixed point larger than this many standard errors: the returned
    #: iterate is not a fixed point and the stacked sandwich (``inner="step"``) does not hold.
    FIXED_POINT_TOL = 0.1

    def _compute(self):
        r = self.results
        kept = getattr(r.training, "fit_time", {}).get(self.name)
        if kept is not None:             # an out-of-core fit computed it while it had the rows
            return kept
        if not r.training.in_memory or r.X is None:
            n = len(r.term_names) - int(r.aliased.sum())
            return np.full((n, n), np.nan), None
        return r.reweighted_covariance()

    def _missing_rows(self) -> str | None:
        """Why the rows this estimator needs are not at hand (None: they are)."""
        r = self.results
        if self.name in getattr(r.training, "fit_time", {}):
            return None
        if not r.training.in_memory:
            return ("out of core the reweighted covariance is computed at fit time, from the "
                    "row blocks, when it is the fit's covariance (the default from "
                    f"{MIN_CLASS_REWEIGHTED} rows in the smaller class); this fit's is "
                    f"{r.cov_type!r}: refit with cov_type='reweighted'")
        if r.X is None:
            return ("the reweighted covariance needs the training rows in memory "
                    "(keep_data=False dropped them); refit with keep_data=True")
        return None

    def cov(self):
        return self._cached(self._compute)[0]

    def unusable(self):
        r = self.results
        if super().unusable():
            return super().unusable()
        missing = self._missing_rows()
        if missing is not None:
            return missing
        gap = self._cached(self._compute)[1]
        if gap is not None and np.max(gap) > self.FIXED_POINT_TOL:
            j = int(np.argmax(gap))
            name = [t for t, a in zip(r.term_names, r.aliased) if not a][j]
            return (f"the returned iterate is not a fixed point of the reweighting (a Newton "
                    f"step to it moves {name} by {gap[j]:.2g} standard errors), so the stacked "
                    "sandwich does not apply; use inner='full' or cov_type='bootstrap'")
        if not np.all(np.isfinite(self.cov())):
            return "the reweighted covariance is not finite"
        return None

    def tests_withheld(self):
        small = min(self.results.class_sizes())
        if small >= MIN_CLASS_REWEIGHTED:
            return None
        return (f"the smaller class has {small:.0f} rows (weighted), fewer than "
                f"{MIN_CLASS_REWEIGHTED}; below that, in simulation, the reweighted sandwich's "
                "95% intervals covered less than 93%, those of cov_type='bootstrap' 0.92-0.96 "
                "with 300 rows. The intervals of conf_int() and tidy() are approximate; use "
                "the bootstrap for tests (see `tests_withheld`).")

    def label(self):
        how = ("differentiated through every outer iteration" if
               self.results.settings["inner"] == "full" else "stacked sandwich at the fixed point")
        return ("reweighted sandwich: accounts for the F-weights' dependence on the estimates "
                f"and on F ({how}; see the documentation's 'Inference for fmaxent')")


class Bootstrap(CovarianceEstimator):
    """``cov_type="bootstrap"`` (fmaxent): replicates of the whole fit, outer loop included.

    Notes
    -----
    Case-resampling replicates of the whole F-maximiser on the stored design
    (:func:`fmstats.bootstrap`): k-step replicates from the fit's path
    (``_refits.py``), their covariance by regression on the replicates'
    linear part (the reweighted influence rows times the resample counts, Efron 1990), and at
    most ``B`` of them, fewer once the Monte-Carlo error of every standard error is below 5 %
    of it (``fmstats/resampling/_mcerror.py``).  Computed on first use of the standard errors.
    """

    name = "bootstrap"

    def cov(self):
        r = self.results
        names = [t for t, a in zip(r.term_names, r.aliased) if not a]
        boot = r.bootstrap_results
        if boot is None:
            if r.cov_type == "bootstrap":     # a separated fit: unusable() says why
                return np.full((len(names), len(names)), np.nan)
            raise InvalidArgumentError(
                "cov_type='bootstrap' needs the replicates: refit with "
                "fmaxent(..., cov_type='bootstrap', B=..., random_state=...).")
        return boot.cov(names).to_numpy()

    def unusable(self):
        if super().unusable():
            return super().unusable()
        boot = self.results.bootstrap_results
        if boot is None:
            return None
        ok = int(np.all(np.isfinite(boot.replicates[self.results.params.dropna().index]),
                        axis=1).sum())
        if ok < max(2, boot.B // 2):
            return f"only {ok} of {boot.B} bootstrap replicates gave finite coefficients"
        return None

    def tests_withheld(self):
        small = min(self.results.class_sizes())
        if small >= MIN_CLASS_BOOT_TESTS:
            return None
        return (f"the smaller class has {small:.0f} rows (weighted), fewer than "
                f"{MIN_CLASS_BOOT_TESTS}; below that the estimator itself is biased by up to "
                "1.2 of its standard deviations, so in simulation no interval centred on the "
                "estimate covered 95% (the bootstrap's 95% intervals: 0.72-1.00). The "
                "intervals of conf_int() and tidy() are approximate; see `tests_withheld`.")

    def label(self):
        r = self.results
        b = r.bootstrap_results
        if b is None:       # a separated fit without a ridge: nothing to resample
            return "bootstrap: not computed (the fit has no finite estimate)"
        ok = int(np.all(np.isfinite(b.replicates[r.params.dropna().index]), axis=1).sum())
        lost = f"; {b.B - ok} lost ({(b.B - ok) / b.B:.0%})" if ok < b.B else "; none lost"
        how = ("k-step" if b.replicate_method == "kstep" else "full") + " replicates"
        if b.replicate_method == "kstep":
            how += f" ({b.n_full} refitted in full)"
        stop = (f"{b.B} of at most {b.B_max}, stopped as every Monte-Carlo error fell below "
                f"{b.mc_tol:g} x SE" if b.B < b.B_max else f"{b.B}")
        why = ""
        if r.call.get("cov_type") is None:
            why = (f"; the default, as the smaller class has {min(r.class_sizes()):.0f} < "
                   f"{MIN_CLASS_REWEIGHTED} rows and the reweighted sandwich undercovers there")
        scheme = ("Poisson(1)-weight (drawn on the row blocks)" if b.type == "poisson"
                  else "case-resampling")
        return (f"bootstrap: covariance of {ok} of {stop} {scheme} {how} of the whole "
                f"fit, outer loop included{lost} (random_state = {b.random_state})" + why)


ESTIMATORS = {"nonrobust": ModelBased, "HC0": Sandwich, "HC1": Sandwich, "HC2": Sandwich,
              "HC3": Sandwich, "reweighted": Reweighted, "bootstrap": Bootstrap}
MAXENT_COV_TYPES = ("nonrobust", "HC0", "HC1", "HC2", "HC3")
FMAXENT_COV_TYPES = ("reweighted", "HC0", "HC1", "HC2", "HC3", "nonrobust", "bootstrap")


def estimator(results, cov_type: str) -> CovarianceEstimator:
    """The estimator of ``cov_type`` for ``results`` (an InvalidArgumentError naming the
    types the fit offers otherwise)."""
    allowed = FMAXENT_COV_TYPES if results.model == "fmaxent" else MAXENT_COV_TYPES
    if cov_type not in allowed:
        raise InvalidArgumentError(
            f"`cov_type` must be one of {', '.join(map(repr, allowed))} for a "
            f"{results.model}() fit; got {cov_type!r}.")
    cls = ESTIMATORS[cov_type]
    return cls(results, cov_type) if cls is Sandwich else cls(results)


def with_cov(results, cov_type: str):
    """``results`` reporting ``cov_type``: a shallow copy with that type in its settings and
    recorded call, its cached tables dropped (they depend on the type) and its computed
    covariances shared (they do not)."""
    estimator(results, cov_type)                       # validates it for this model
    new = copy.copy(results)
    cached = {k for klass in type(results).__mro__ for k, v in vars(klass).items()
              if isinstance(v, cached_property)}
    new.__dict__ = {k: v for k, v in results.__dict__.items() if k not in cached}
    new.settings = results.settings.replace(cov_type=cov_type)
    call = results.call.replace(cov_type=cov_type)
    # the bootstrap's own arguments have no effect with another covariance (and are refused)
    new.call = call if cov_type == "bootstrap" else call.without("B", "replicates")
    new.cov_type = cov_type
    return new


def default_cov_type(model: str, smaller_class: float) -> str:
    """The covariance a fit gets when ``cov_type`` is not given.

    ``maxent``/``umaxent``: ``"nonrobust"`` (R's ``glm``).  ``fmaxent``: ``"reweighted"`` when
    the smaller class (weighted rows with y = 1, or with y = 0) has at least
    :data:`MIN_CLASS_REWEIGHTED` = 900 rows, else ``"bootstrap"``.  Evidence
    (``benchmarks/inference/bench_fmaxent_coverage.py``, the documentation's "Inference for fmaxent"):
    the reweighted sandwich's 95 % intervals covered 0.93-0.96 from about 900 rows in the
    smaller class but 0.5-0.93 below, where the bootstrap's covered within a few points of
    the best any interval centred on the estimate can reach; with k-step replicates and the
    control variate the bootstrap costs a few fits (``benchmarks/inference/bench_honest_cost.py``).

    Parameters
    ----------
    model : str
        ``"maxent"``, ``"umaxent"`` or ``"fmaxent"``.
    smaller_class : float
        The weighted number of rows in the smaller class.
    """
    if model != "fmaxent":
        return "nonrobust"
    return "reweighted" if smaller_class >= MIN_CLASS_REWEIGHTED else "bootstrap"
