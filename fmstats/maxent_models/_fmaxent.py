"""The F-measure maximising maxent model: the reweighting algorithms of the thesis.

Notation: our ``alpha`` is the thesis's beta (DESIGN.md §1); F = 1/(alpha/P + (1-alpha)/R).

Certain labels y in {0, 1} (thesis §4.2, Algorithm 4.1).  The expected F-measure
F~ = TP~ / (TP~ + alpha FP~ + (1 - alpha) FN~), with expected counts from the model
probabilities p_i, is maximised at a weighted maximum-likelihood estimate with weights (4.2)

    w_i = (1 - alpha F~) / (alpha F~) * p_i   if y_i = 1,     w_i = 1 - p_i   if y_i = 0.

Probabilistic labels q_i (thesis ch. 6-7, Algorithm 7.1).  The noisy F-measure with
correlated counts TP^U = sum min(q, p), TN^U = sum min(1 - q, 1 - p) is maximised at a weighted
*uncertain* maximum-likelihood estimate with weights (6.9)

    w_i = p(1-p)/(p-q) * F/TP * [alpha F 1{p >= q} - (1 - alpha F) 1{p <= q}],

which explode as p -> q.  §7.2 smooths the counts with g1, g2 (7.2)-(7.3) of width epsilon,
giving the bounded weights (7.1); the thesis's experiments instead clip the raw weights
(``weight_bounds=``).  The plug-in variant of §9.3 uses the same weights with the deterministic
F and TP of the class predictions against q in place of the noisy ones.

Both algorithms alternate: weights from the current probabilities, then one IRLS step
(``inner="step"``, the variant for which §7.3 proves ascent) or a full weighted fit
(``inner="full"``, which the thesis found to reach better optima, Fig. 9.9), warm-started.
The loop stops when the last ``patience`` iterations improved the best target by less than
``max(min_improvement, rel_improvement * (gain since the start))`` -- "no significant
improvement in the last k steps" of Algorithms 4.1 and 7.1 -- and the best iterate, not the
last, is returned.  The relative rule matters for certain labels: the expected F keeps
creeping towards the F of hard predictions as the coefficients grow without bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit
from threadpoolctl import threadpool_limits

from .. import measures as _m
from .._utils.validation import check_choice, check_scalar, warn
from ..exceptions import (ConvergenceWarning, InvalidArgumentError, ResponseError,
                         SeparationWarning)
from .._utils.call import records_call, refit_changes
from ._fitdata import is_out_of_core, prepare
from ..glm.fweights import (expected_f_weights, noisy_f_weights, smoothed_noisy_counts,
                           standardised_ridge)
from ..glm.irls import SEPARATION_EPS
from ._maxent import MaxentResults
from ..results import Section

__all__ = [
    "fmaxent",
    "FMaxentResults",
    "expected_f_weights",
    "noisy_f_weights",
    "smoothed_noisy_counts",
    "sweep",
    "DEFAULT_EPSILON",
    "DEFAULT_WEIGHT_BOUNDS",
    "DEFAULT_SHRINKAGE",
    "standardised_ridge",
]

#: Default smoothing width of §7.2; see :func:`fmaxent` for the measurement behind it.
DEFAULT_EPSILON = 0.01
#: Default clipping of the expected-F weights (mean 1): the thesis's own setting (appendix code).
DEFAULT_WEIGHT_BOUNDS = (0.01, 10.0)
#: Default shrinkage: ridge per observation on standardised coefficients; see :func:`fmaxent`.
DEFAULT_SHRINKAGE = 1e-4
#: Default number of bootstrap replicates for ``cov_type="bootstrap"``.
DEFAULT_BOOT_B = 200
COV_TYPES_F = ("HC0", "HC1", "HC2", "HC3", "nonrobust", "bootstrap")
METHODS = ("expected", "noisy", "plugin")
INNER = ("full", "step")


# ----------------------------------------------------------------------------- the outer loop

@dataclass(frozen=True)
class _Outer:
    coef: np.ndarray
    fweights: np.ndarray
    history: pd.DataFrame
    coef_path: np.ndarray
    best_iteration: int
    converged: bool
    reason: str


def _outer_loop(data, start, *, alpha, method, epsilon, bounds, inner, max_outer, patience,
                min_improvement, rel_improvement, select, penalty, tol, max_iter) -> _Outer:
    """Algorithms 4.1 / 7.1 on ``data``, a row source (:mod:`fmstats.glm.rowsource`)."""
    coef = start
    rows = []
    best = None  # (criterion, iteration, coef, weights): the best iterate, strictly
    best_curve = []  # the best criterion so far, per iteration
    converged, reason = False, ""
    fw_prev = data.unit_weights()
    w_range = (1.0, 1.0)
    path = []
    for it in range(max_outer + 1):
        m = data.iterate(coef, alpha, epsilon)
        target = {"expected": m.expected, "noisy": m.noisy, "plugin": m.f_det}[method]
        crit = target if select == "target" else m.f_det
        path.append(coef)
        rows.append({"iteration": it, "target": target, "training_f": m.f_det,
                     "noisy_f": m.noisy, "loglik": m.loglik, "weight_min": w_range[0],
                     "weight_max": w_range[1]})
        if best is None or crit > best[0]:
            best = (crit, it, coef, fw_prev)
        best_curve.append(best[0])
        if it >= patience:
            window = best_curve[-1] - best_curve[-1 - patience]
            needed = max(min_improvement, rel_improvement * (best_curve[-1] - best_curve[0]))
            if window <= needed:
                converged = True
                reason = (f"the last {patience} iterations improved the target by {window:.3g} "
                          f"<= {needed:.3g}")
                break
        if it == max_outer:
            reason = f"reached max_outer = {max_outer} while still improving"
            break
        # weights from the current probabilities
        tp = None
        if method == "expected":
            f = target
        elif method == "noisy":
            if epsilon is not None:
                tp, _, f = data.smoothed_counts(m, alpha, epsilon)
            else:
                tp, f = m.tp_noisy, m.noisy
        else:
            tp, f = m.tp_det, m.f_det
            if tp <= 0:
                reason = (f"the plug-in F is 0 at iteration {it} (no predicted positives), "
                          "so the plug-in weights are undefined; try method='noisy' or a "
                          "lower threshold")
                break
        fw = data.fweights(m, method, f, tp, alpha, epsilon, bounds)
        coef = data.refit(fw, coef, penalty=penalty, tol=tol,
                          max_iter=1 if inner == "step" else max_iter)
        fw_prev = fw
        w_range = data.weight_range(fw)
    history = pd.DataFrame(rows)
    return _Outer(coef=best[2], fweights=best[3], history=history, coef_path=np.array(path),
                  best_iteration=best[1], converged=converged, reason=reason)


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

    def __init__(self, *, outer: _Outer, baseline_coef: np.ndarray,
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
        self.bootstrap_results = bootstrap

    @property
    def method(self) -> str:
        return self.settings["method"]

    @property
    def history(self) -> pd.DataFrame:  # type: ignore[override]
        """The outer loop's learning curve (one row per outer iteration; 0 is the start)."""
        return self.outer_history

    @property
    def family(self) -> str:
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
        return {"expected": "expected F (Alg. 4.1)", "noisy": "noisy F (correlated, Alg. 7.1)",
                "plugin": "plug-in F of predicted classes vs q (§9.3)"}[self.method]

    @cached_property
    def std_coef(self) -> pd.Series:
        """``|coefficient|`` times the weighted SD of its column: the change in log-odds per SD."""
        sd = np.sqrt(self.column_var)
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        return pd.Series(np.abs(self.core_fit.coef) * sd, index=names, name="std_coef")

    # ------------------------------------------------------------------ covariance
    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:
        """Covariance of the coefficients: bootstrap or the sandwich with fixed F-weights.

        Parameters
        ----------
        cov_type : {"HC0", "nonrobust", "HC1", "HC2", "HC3", "bootstrap"}, optional
            ``"bootstrap"`` (replicates of the whole fit; only for a fit made with
            ``cov_type="bootstrap"``) or the estimators of
            :meth:`fmstats.MaxentResults.cov_params`, which treat the F-weights as fixed;
            default: the one chosen at fit.
        """
        cov_type = self.cov_type if cov_type is None else cov_type
        if cov_type != "bootstrap":
            return super().cov_params(cov_type)
        if self.bootstrap_results is None:
            raise InvalidArgumentError(
                "cov_type='bootstrap' needs the replicates: refit with "
                "fmaxent(..., cov_type='bootstrap', B=..., random_state=...).")
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        reps = self.bootstrap_results.replicates[names].to_numpy(dtype=float)
        reps = reps[np.all(np.isfinite(reps), axis=1)]
        cov = np.cov(reps, rowvar=False, ddof=1) if len(reps) > 1 else \
            np.full((len(names), len(names)), np.nan)
        return pd.DataFrame(np.atleast_2d(cov), index=names, columns=names)

    def se_unusable(self, cov_type: str | None = None) -> str | None:
        """Why standard errors cannot be used: too few finite bootstrap replicates, or
        separation without a ridge.

        Parameters
        ----------
        cov_type : str, optional
            The covariance type (default: the one chosen at fit time), as ``cov_params``
            takes it.
        """
        cov_type = self.cov_type if cov_type is None else cov_type
        if cov_type == "bootstrap":
            boot = self.bootstrap_results
            ok = int(np.all(np.isfinite(boot.replicates[self.params.dropna().index]),
                            axis=1).sum()) if boot is not None else 0
            if boot is not None and ok < max(2, boot.B // 2):
                return (f"only {ok} of {boot.B} bootstrap replicates gave finite coefficients")
            return None
        if self.separated and not self.penalised:
            return super().se_unusable(cov_type)
        return None

    @property
    def penalised(self) -> bool:
        """Whether a ridge (``shrinkage`` or ``penalty``) keeps the coefficients finite."""
        return bool(self.settings["shrinkage"] > 0 or self.settings["penalty"] > 0)

    @cached_property
    def n_saturated(self) -> int:
        """Rows whose fitted probability is numerically 0 or 1 (a sharp model)."""
        mu = expit(self.core_fit.eta)
        return int(np.count_nonzero((self.weights > 0) & ((mu < SEPARATION_EPS)
                                                          | (mu > 1 - SEPARATION_EPS))))

    def se_footnotes(self, tidy: pd.DataFrame, cov_type: str) -> list[str]:
        """Why standard errors print as NA, or that the HC0 ones treat the weights as fixed.

        Parameters
        ----------
        tidy : DataFrame
            The coefficient table (``tidy()``) whose standard errors are explained.
        cov_type : str
            The covariance type of ``tidy``, as ``cov_params`` takes it.
        """
        notes = super().se_footnotes(tidy, cov_type)
        if not notes and cov_type != "bootstrap":
            notes.append("Std. errors treat the F-weights as fixed, but the weights depend on "
                         "the estimates: they are approximate and can be several times too "
                         "small. For inference use cov_type='bootstrap' (B refits of the whole "
                         "reweighting).")
        return notes

    def _profile_conf_int(self, level: float) -> pd.DataFrame:
        raise InvalidArgumentError(
            "`method`='profile': the F-weights are chosen from the fit itself, so the weighted "
            "deviance is not a likelihood to profile. Use cov_type='bootstrap' with Wald "
            "intervals, or fm.bootstrap(fit) for percentile/BCa intervals.")

    def se_advice(self) -> str:
        """What to do about unusable standard errors of an F-maximiser."""
        return (f"Raise `shrinkage` (now {self.settings['shrinkage']:g}) or keep the "
                "default weight clipping.")

    def cov_label(self, cov_type: str) -> str:
        """The summary's \"Standard errors\" line (bootstrap or the approximate sandwich).

        Parameters
        ----------
        cov_type : str
            The covariance type, as ``cov_params`` takes it.
        """
        if cov_type == "bootstrap":
            b = self.bootstrap_results
            return (f"bootstrap: covariance of {b.B} case-resampling replicates of the whole "
                    f"fit, outer loop included (random_state = {b.random_state})")
        return (super().cov_label(cov_type) + "; treats the F-weights as fixed although they "
                "depend on the estimates, so it is approximate: cov_type='bootstrap' refits "
                "the whole reweighting")

    def refit(self, data: pd.DataFrame, weights=None, cov_type: str | None = None
              ) -> "FMaxentResults":
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
        """
        changes = refit_changes(self.call, weights)
        if cov_type is not None:
            changes["cov_type"] = cov_type
        elif self.settings["cov_type"] == "bootstrap":
            changes["cov_type"] = "HC0"
        return self.call.refit(data, **changes)

    # ------------------------------------------------------------------ reporting
    def iteration_lines(self) -> list[str]:
        """The summary's iteration lines: the final weighted fit and the outer loop."""
        lines = ["(Deviances and dispersion are those of the final weighted fit, with the F-weights.)",
                 f"Outer iterations: {len(self.outer_history) - 1}; see 'F-measure maximisation'."]
        if self.separated and self.penalised:
            lines.append(f"Note: {self.n_saturated} of {self.n_ok} fitted probabilities are "
                         "numerically 0 or 1 (a sharp model; the ridge keeps the coefficients "
                         "finite). Wald standard errors are the more approximate for it.")
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


# ----------------------------------------------------------------------------- entry points

def _check_bounds(bounds):
    if bounds is None:
        return None
    if isinstance(bounds, str):
        if bounds == "auto":
            return "auto"
        raise InvalidArgumentError(
            f"`weight_bounds` must be 'auto', None or a pair (low, high); got {bounds!r}.")
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`weight_bounds` must be 'auto', None or a pair (low, high); got {bounds!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise InvalidArgumentError(
            f"`weight_bounds` must satisfy 0 < low < high, both finite; got ({lo:g}, {hi:g}).")
    return (lo, hi)


@records_call
def fmaxent(formula: str, data: pd.DataFrame, weights=None, *, alpha=None, beta=None,
            measure=None, method: str | None = None, epsilon: float | None = DEFAULT_EPSILON,
            weight_bounds="auto", shrinkage: float = DEFAULT_SHRINKAGE, inner: str = "full",
            max_outer: int = 100, patience: int = 5, min_improvement: float = 1e-8,
            rel_improvement: float = 0.01, select: str = "target", penalty: float = 0.0,
            cov_type: str = "HC0", B: int = DEFAULT_BOOT_B, random_state=None, n_jobs=None,
            progress=None, threshold: float = 0.5, missing: str = "drop",
            collinear: str = "drop", engine: str | None = None, tol: float = 1e-8,
            max_iter: int = 25, _call=None) -> FMaxentResults:
    """F-measure maximising maximum-entropy model (thesis ch. 4, 6, 7).

    Parameters
    ----------
    formula : str
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`: an R-style formula; the
        response is 0/1 labels, a probability column q, or ``cbind(yes, no)`` votes.
    data : DataFrame or dask.dataframe.DataFrame
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`.  A Dask DataFrame is fitted
        out of core (:mod:`fmstats.maxent_models._outofcore`): each outer iteration then
        costs about 3 + (inner IRLS steps) passes over the data.
    weights : str or array-like, optional
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`: prior weights, a column name
        of ``data`` or an array with one value per row.
    alpha : float, optional
        The F-measure to maximise by its weight on precision, the thesis's beta; it must lie
        in (0, 1).  Give at most one of ``alpha``, ``beta`` and ``measure`` (default F1).
    beta : float, optional
        The F-measure to maximise by its beta (positive and finite; default F1).
    measure : FMeasure, optional
        The F-measure to maximise as an object (default F1).
    method : {"expected", "noisy", "plugin"}, optional
        ``"expected"`` (certain labels: Algorithm 4.1, weights (4.2)), ``"noisy"``
        (probabilistic labels: Algorithm 7.1, weights (6.9)/(7.1)) or ``"plugin"`` (§9.3:
        weights (6.9) with the deterministic F and TP of the predicted classes against q).
        Default: ``"expected"`` for 0/1 labels, ``"noisy"`` otherwise.
    epsilon : float or None, default 0.01
        Smoothing width of §7.2 (noisy and plug-in methods).  The default 0.01 keeps
        the weights within p(1-p)F/(0.01 TP) while moving each smoothed count by at most
        0.005 per row; ``None`` uses the raw weights (6.9), which then need ``weight_bounds``.
    weight_bounds : "auto", (float, float) or None, default "auto"
        ``(low, high)`` clipping of the weights, scaled to mean 1 (applied after
        smoothing if both are given); ``None`` for no clipping.  ``"auto"`` (default) is the
        thesis's ``(0.01, 10)`` for the expected-F method and ``None`` for the noisy and
        plug-in methods, whose smoothing (``epsilon``) already bounds every weight.
    shrinkage : float, default 1e-4
        Ridge penalty per observation on standardised coefficients: the weighted
        log-likelihood of every refit is penalised by ``shrinkage * n * var(x_j) * b_j**2 / 2``
        (intercept and constant columns free), so the value does not depend on units.
        Default ``1e-4``.  Why any: the expected F of a logistic model keeps growing along
        every direction that separates the training data better, so an unpenalised
        F-reweighting drives the coefficients towards infinity (10**4 on Titanic) with no gain
        in held-out F; clipping the weights slows this but does not stop it (coefficients 55
        and fitted probabilities of exactly 0/1 on Titanic).  Why this value: on fresh draws
        of the chapter-9 data A and B (400 training rows, 5 seeds, alpha = 0.05, ..., 0.95),
        10 random Titanic splits and Adult, ``weight_bounds=(0.01, 10)`` with shrinkage 1e-4
        had the same mean held-out F as the thesis's setting on A/B (+0.0003, worst case
        -0.005), -0.004 on Titanic and +0.001 on Adult, with coefficients at most 15 on A/B
        (thesis setting: 18, unclipped and unpenalised: 6.5e5) and no separated fit on Titanic;
        3e-5 still separated on Titanic, larger values (1e-3, 1e-2) cost 0.01-0.03 of held-out
        F on Titanic.  ``benchmarks/bench_fmaxent_defaults.py`` prints the comparison.
        ``shrinkage=0, weight_bounds=(0.01, 10)`` is the thesis's setting.
    inner : {"full", "step"}, default "full"
        ``"full"`` (a warm-started full weighted fit per outer iteration) or ``"step"``
        (one IRLS step, the variant of §7.3).
    max_outer : int, default 100
        Stop after ``max_outer`` outer iterations if the rule of ``patience`` has not
        stopped the loop before.
    patience : int, default 5
        Stop when the last ``patience`` outer iterations improved the best target by at most
        ``max(min_improvement, rel_improvement * gain since the start)``.
    min_improvement : float, default 1e-8
        The absolute improvement of the stopping rule (see ``patience``).
    rel_improvement : float, default 0.01
        The relative improvement of the stopping rule (see ``patience``), in [0, 1).
        ``rel_improvement=0`` runs to an absolute tolerance.
    select : {"target", "f"}, default "target"
        Return the iterate with the best ``"target"`` (default) or the best plug-in
        training F of the predicted classes (``"f"``).
    penalty : float, default 0
        A ridge penalty on the raw (unstandardised) coefficients, added to
        ``shrinkage``'s, as in :func:`fmstats.maxent`.
    cov_type : {"HC0", "nonrobust", "HC1", "HC2", "HC3", "bootstrap"}, default "HC0"
        ``"HC0"`` (default) or ``"nonrobust"``/``"HC1"``-``"HC3"``, which treat the
        F-weights as fixed: they depend on the estimates, so the model-based covariance is wrong
        and the sandwich is approximate; or ``"bootstrap"``: the covariance of ``B`` case
        bootstrap replicates of the *whole* fit (every replicate reruns the outer loop;
        :func:`fmstats.bootstrap`), the honest choice, about ``B`` times the cost of a fit.
        HC0 is the default because it costs nothing extra.
    B : int, default 200
        The bootstrap of ``cov_type="bootstrap"``: its number of replicates; unused
        otherwise.
    random_state : int or numpy.random.Generator, optional
        The bootstrap of ``cov_type="bootstrap"``: its seed; unused otherwise.
    n_jobs : int, optional
        The bootstrap of ``cov_type="bootstrap"``: its joblib workers; unused otherwise.
    progress : bool, optional
        The bootstrap of ``cov_type="bootstrap"``: its progress bar; unused otherwise.
    threshold : float, default 0.5
        Predicted class 1 when the probability is at least this.
    missing : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: rows with missing values are dropped (with a warning)
        or raise.
    collinear : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: aliased columns are dropped (NA coefficients, with a
        warning) or raise.
    engine : str, optional
        As in :func:`fmstats.maxent`: the formula engine, ``"formulaic"`` (default) or
        ``"patsy"``.
    tol : float, default 1e-8
        As in :func:`fmstats.maxent`: the IRLS convergence tolerance (relative deviance
        change) of every weighted fit.
    max_iter : int, default 25
        As in :func:`fmstats.maxent`: the IRLS iteration cap of every weighted fit.

    Returns
    -------
    FMaxentResults
        The fitted model.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> fit = fm.fmaxent("y_ml ~ x1 + x2", d[d.split == "train"], alpha=0.3)
    >>> bool(fit.params.abs().max() < 50), fit.settings["weight_bounds"]
    (True, (0.01, 10.0))
    >>> print(f"{fit.measure(d[d.split == 'test']):.3f}")
    0.747
    """
    fm = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    if not 0 < fm.alpha < 1:
        raise InvalidArgumentError(
            f"fmaxent needs alpha in (0, 1) (beta > 0 and finite); got {fm}.")
    if method is not None:
        check_choice("method", method, METHODS)
    if epsilon is not None:
        check_scalar("epsilon", epsilon, low=0, low_open=True)
    bounds = _check_bounds(weight_bounds)
    check_scalar("shrinkage", shrinkage, low=0)
    check_choice("inner", inner, INNER)
    check_choice("select", select, ("target", "f"))
    check_scalar("max_outer", max_outer, low=1, integer=True)
    check_scalar("patience", patience, low=1, integer=True)
    check_scalar("min_improvement", min_improvement, low=0)
    check_scalar("rel_improvement", rel_improvement, low=0, high=1, high_open=True)
    check_choice("cov_type", cov_type, COV_TYPES_F)
    bootstrap_cov = cov_type == "bootstrap"
    if bootstrap_cov:
        check_scalar("B", B, low=2, integer=True)
    if bootstrap_cov and is_out_of_core(data):
        raise InvalidArgumentError(
            "cov_type='bootstrap' refits the model B times and is not available for a Dask "
            "DataFrame; use cov_type='HC0' (approximate) out of core.")

    prep = prepare("fmaxent", _call, data, weights, dispersion="pearson", dependence="correlated",
                   start=None, more_cov_types=("bootstrap",))
    resp = prep.frame.response
    rows = prep.source(float(threshold))   # a row source: in memory or chunks of a Dask frame
    if not rows.has_positives():
        raise ResponseError(f"the response '{resp.name}' has no positives; the F-measure is "
                            "undefined.")
    if method is None:
        method = "expected" if resp.kind == "binary" else "noisy"
    elif method == "expected" and resp.kind != "binary":
        raise InvalidArgumentError(
            f"method='expected' needs 0/1 labels; the response '{resp.name}' is "
            f"{resp.kind}. Use method='noisy' or 'plugin'.")
    if bounds == "auto":
        bounds = DEFAULT_WEIGHT_BOUNDS if method == "expected" else None
    if method != "expected" and epsilon is None and bounds is None:
        raise InvalidArgumentError(
            "the raw weights (6.9) are unbounded as p -> q: give `epsilon` (smoothing) or "
            "`weight_bounds` (clipping).")
    total_weight, column_var = rows.column_variances()
    pen = prep.penalty + standardised_ridge(total_weight, column_var, float(shrinkage))
    settings = prep.settings.replace(method=method, weight_bounds=bounds,
                                     weight_bounds_auto=isinstance(weight_bounds, str),
                                     shrinkage=float(shrinkage), epsilon=epsilon)

    base_coef = rows.baseline(pen, tol, max_iter)
    with threadpool_limits(limits=1, user_api="blas"):
        # many small refits: one BLAS thread each is faster than two fighting (DESIGN §7)
        outer = _outer_loop(rows, base_coef, alpha=fm.alpha, method=method,
                            epsilon=epsilon if method != "expected" else None, bounds=bounds,
                            inner=inner, max_outer=int(max_outer), patience=int(patience),
                            min_improvement=float(min_improvement),
                            rel_improvement=float(rel_improvement), select=select,
                            penalty=pen, tol=tol, max_iter=max_iter)
    if not outer.converged:
        h = outer.history
        warn(f"the F-measure maximiser stopped without converging: {outer.reason}. Best target "
             f"{h['target'].max():.6g} at iteration {outer.best_iteration} (start "
             f"{h['target'].iloc[0]:.6g}); the best iterate is returned. Increase `max_outer` "
             "or relax `rel_improvement`/`min_improvement`.", ConvergenceWarning)
    fit = rows.evaluate(outer.fweights, outer.coef, pen)
    if fit.separated and not (shrinkage > 0 or penalty > 0):
        warn("the F-measure maximiser drove fitted probabilities to 0 or 1 (the coefficients grow "
             "without bound as the expected F approaches the F of hard predictions); predictions "
             "remain usable but standard errors do not (they print as NA). Raise `shrinkage` "
             f"(now {shrinkage:g}) to keep the coefficients finite.", SeparationWarning)
    kw = dict(frame=prep.frame, aliased=prep.aliased, fit=fit, outer=outer,
              baseline_coef=base_coef, column_var=column_var,
              training=prep.training(fit, rows=rows, fweights=outer.fweights))
    if not bootstrap_cov:
        return FMaxentResults(settings=settings, call=_call, **kw)
    from ..resampling import bootstrap  # resampling sits on top of the models: import on use

    # the replicates refit this HC0 fit (its call says HC0), so bootstraps never nest
    base = FMaxentResults(settings=settings.replace(cov_type="HC0"),
                          call=_call.replace(cov_type="HC0"), **kw)
    boot = bootstrap(base, B=int(B), type="case", data=data, random_state=random_state,
                     n_jobs=n_jobs, progress=progress)
    return FMaxentResults(settings=settings, call=_call, bootstrap=boot, **kw)


def sweep(formula: str, data: pd.DataFrame, newdata: pd.DataFrame | None = None, *,
          alphas=None, weights=None, **kwargs) -> pd.DataFrame:
    """Fit the baseline and the F-maximiser over a grid of alpha (default 0.05, ..., 0.95).

    The baseline is the unweighted model (``maxent`` for 0/1 labels, ``umaxent``
    otherwise), fitted once; the maximiser is refitted for every alpha.  Returns a tidy
    DataFrame with columns alpha, beta, model ("baseline"/"fmaxent"), data
    ("train"/"test"), f (F of the predicted classes; fractional counts for probabilistic
    labels), noisy_f (correlated).  Plot it with :func:`fmstats.plotting.plot_sweep`.

    Parameters
    ----------
    formula : str
        As in :func:`fmaxent`: the R-style formula of both models.
    data : DataFrame
        The training data (rows ``data="train"`` of the table).
    newdata : DataFrame, optional
        Test data with the response (rows ``data="test"``); default: none, training rows
        only.
    alphas : sequence of float, optional
        The grid of F-measure weights alpha, each in (0, 1), e.g. ``[0.25, 0.5]`` (default
        0.05, 0.10, ..., 0.95).
    weights : str or array-like, optional
        Prior weights of both models, as in :func:`fmaxent`.
    **kwargs
        Further arguments of :func:`fmaxent`; ``penalty``, ``threshold``, ``missing``,
        ``collinear`` and ``engine`` also go to the baseline.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> train, test = d[d.split == "train"], d[d.split == "test"]
    >>> table = fm.sweep("y_ml ~ x1 + x2", train, test, alphas=[0.2, 0.8])
    >>> print(table.round(3).to_string(index=False))
     alpha  beta    model  data     f  noisy_f
       0.2   2.0 baseline train 0.732    0.612
       0.2   2.0 baseline  test 0.698    0.622
       0.2   2.0  fmaxent train 0.851    0.847
       0.2   2.0  fmaxent  test 0.822    0.821
       0.8   0.5 baseline train 0.705    0.612
       0.8   0.5 baseline  test 0.638    0.583
       0.8   0.5  fmaxent train 0.707    0.702
       0.8   0.5  fmaxent  test 0.658    0.649
    """
    from ._maxent import maxent, umaxent

    if alphas is None:
        alphas = np.round(np.arange(0.05, 0.951, 0.05), 10)
    else:   # a non-empty 1-d float array in (0, 1), or an error naming the argument and rule
        rule = "a non-empty 1-d sequence of F-measure weights alpha in (0, 1), e.g. [0.25, 0.5]"
        try:
            arr = np.asarray(alphas, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"`alphas` must be {rule}; got {alphas!r:.80}.") from None
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidArgumentError(f"`alphas` must be {rule}; got an array of shape "
                                       f"{arr.shape}: {alphas!r:.80}.")
        bad = arr[~((arr > 0) & (arr < 1))]
        if bad.size:
            raise InvalidArgumentError(f"`alphas` must be {rule}; got {bad[0]:g} among them.")
        alphas = arr
    fits = {}
    for a in alphas:
        fits[("fmaxent", float(a))] = fmaxent(formula, data, weights, alpha=float(a), **kwargs)
    first = next(iter(fits.values()))
    base_fn = maxent if first.response_kind == "binary" else umaxent
    base_kw = {k: kwargs[k] for k in ("penalty", "threshold", "missing", "collinear", "engine")
               if k in kwargs}
    baseline = base_fn(formula, data, weights, **base_kw)
    rows = []
    sets = [("train", None)] + ([("test", newdata)] if newdata is not None else [])
    for a in alphas:
        for model, fit in (("baseline", baseline), ("fmaxent", fits[("fmaxent", float(a))])):
            for name, d in sets:
                rows.append({"alpha": float(a), "beta": float(np.sqrt((1 - a) / a)),
                             "model": model, "data": name,
                             "f": fit.measure(d, alpha=float(a)),
                             "noisy_f": fit.noisy_f(d, alpha=float(a), dependence="correlated")})
    return pd.DataFrame(rows)
