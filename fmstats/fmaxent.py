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

import dataclasses
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit, xlogy
from threadpoolctl import threadpool_limits

from . import measures as _m
from ._validation import check_choice, check_scalar, warn
from .exceptions import (ConvergenceWarning, InvalidArgumentError, ResponseError,
                         SeparationWarning)
from .glm.irls import irls_coef, irls_evaluate, irls_logit
from .formula import is_dask_frame
from .maxent import MaxentResults, _prepare, refit_weights
from .summary import Section

__all__ = [
    "fmaxent",
    "FMaxentResults",
    "expected_f_weights",
    "noisy_f_weights",
    "smoothed_noisy_counts",
    "sweep",
    "DEFAULT_EPSILON",
]

#: Default smoothing width of §7.2; see :func:`fmaxent` for the measurement behind it.
DEFAULT_EPSILON = 0.01
_TINY = np.finfo(float).eps
METHODS = ("expected", "noisy", "plugin")
INNER = ("full", "step")


# ----------------------------------------------------------------------------- pure formulas

def expected_f_weights(y: np.ndarray, p: np.ndarray, f: float, alpha: float) -> np.ndarray:
    """Weights (4.2) of the expected-F maximiser for 0/1 labels ``y`` (thesis's beta = alpha)."""
    return np.where(y == 1, (1.0 - alpha * f) / (alpha * f) * p, 1.0 - p)


def _g1(x, eps):
    """Smooth max(0, x) of (7.2): 0 below -eps, quadratic on (-eps, 0], x + eps/2 above."""
    return np.where(x <= -eps, 0.0, np.where(x <= 0, (x + eps) ** 2 / (2 * eps), x + eps / 2))


def _g2(x, eps):
    """Smooth max(0, x) of (7.3): 0 below 0, quadratic on (0, eps), x - eps/2 above."""
    return np.where(x <= 0, 0.0, np.where(x < eps, x * x / (2 * eps), x - eps / 2))


def _g1_prime(x, eps):
    return np.clip((x + eps) / eps, 0.0, 1.0)


def _g2_prime(x, eps):
    return np.clip(x / eps, 0.0, 1.0)


def smoothed_noisy_counts(q, p, w, alpha: float, epsilon: float) -> tuple[float, float, float]:
    """Smoothed (TP^U, TN^U, F^U) of §7.2 with row weights ``w``.

    TP = sum w [p - g1(p - q)], TN = sum w [(1 - q) - g2(p - q)] and
    F = TP / (alpha (TP - TN) + alpha sum w (1 - q) + (1 - alpha) sum w q); as epsilon -> 0
    these are the correlated noisy counts (6.1) and the noisy F-measure.
    """
    return _smoothed_from_sums(_smoothed_sums(q, p, w, epsilon), alpha)


def _smoothed_sums(q, p, w, epsilon) -> tuple[float, float, float, float]:
    """The sums behind :func:`smoothed_noisy_counts`: TP, TN, sum w (1 - q), sum w q."""
    d = p - q
    return (float(np.dot(w, p - _g1(d, epsilon))), float(np.dot(w, (1 - q) - _g2(d, epsilon))),
            float(np.dot(w, 1 - q)), float(np.dot(w, q)))


def _smoothed_from_sums(sums, alpha: float) -> tuple[float, float, float]:
    tp, tn, neg, pos = sums
    den = alpha * (tp - tn) + alpha * neg + (1 - alpha) * pos
    return tp, tn, tp / den


def noisy_f_weights(q: np.ndarray, p: np.ndarray, f: float, tp: float, alpha: float,
                    epsilon: float | None = None) -> np.ndarray:
    """Weights of the noisy-F maximiser: (6.9), or the smoothed (7.1) when ``epsilon`` is given.

    Raw (6.9): p(1-p)/(p-q) * F/TP * [alpha F 1{p >= q} - (1 - alpha F) 1{p <= q}].  At p = q
    exactly the raw weight is unbounded and returned as ``inf`` (clip it with bounds).
    Smoothed (7.1): the indicators become g2'(p - q) and 1 - g1'(p - q); for |p - q| < epsilon
    the weight is p(1-p) F (1 - alpha F) / (epsilon TP) (p <= q) or
    p(1-p) alpha F^2 / (epsilon TP) (p > q), so it is bounded by p(1-p) F / (epsilon TP).
    """
    d = p - q
    scale = p * (1 - p) * f / tp
    af = alpha * f
    if epsilon is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(d > 0, scale * af / d, np.where(d < 0, -scale * (1 - af) / d, np.inf))
        return w
    # bracket / d written without dividing by a vanishing d inside the smoothing band
    up = np.where(d >= epsilon, af / np.where(d >= epsilon, d, 1.0), af / epsilon)
    down = np.where(d <= -epsilon, -(1 - af) / np.where(d <= -epsilon, d, -1.0),
                    (1 - af) / epsilon)
    # for -eps < d < 0 only the g1 part is active, for 0 < d < eps only g2 (left limit at d = 0)
    core = np.where(d > 0, up, 0.0) + np.where(d <= 0, down, 0.0)
    return scale * core


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


def _f_from_counts(tp, fp, fn, alpha):
    den = tp + alpha * fp + (1 - alpha) * fn
    return tp / den if den > 0 else 1.0


def _iterate_metrics(q, p, pred, cw, alpha, sum_q):
    """Training F of predicted classes (with TP), noisy F (correlated) and expected F.

    Inline versions of the measures in :mod:`fmstats.measures` (which validate their
    inputs); the tests check them against those functions.
    """
    return _metrics_from_sums(_metric_sums(q, p, pred, cw), alpha, sum_q)


def _metric_sums(q, p, pred, cw) -> list[float]:
    """Weighted sums behind :func:`_iterate_metrics` and the log-likelihood (additive over rows)."""
    return [float(np.dot(cw, q * pred)), float(np.dot(cw, pred)),
            float(np.dot(cw, np.minimum(q, p))), float(np.dot(cw, p)), float(np.dot(cw, q * p)),
            float(np.dot(cw, xlogy(q, p) + xlogy(1 - q, 1 - p)))]


def _metrics_from_sums(sums, alpha, sum_q):
    tp_det, pos, tp_n, sum_p, tp_e = sums[:5]
    f_det = _f_from_counts(tp_det, pos - tp_det, sum_q - tp_det, alpha)
    noisy = _f_from_counts(tp_n, sum_p - tp_n, sum_q - tp_n, alpha)
    expected = _f_from_counts(tp_e, sum_p - tp_e, sum_q - tp_e, alpha)
    return tp_det, f_det, tp_n, noisy, expected


@dataclass(frozen=True)
class _Iterate:
    """Metrics of one outer iterate (``p``: the probabilities, kept by in-memory rows only)."""

    tp_det: float
    f_det: float
    tp_noisy: float
    noisy: float
    expected: float
    loglik: float
    p: np.ndarray | None = None
    coef: np.ndarray | None = None
    smoothed: tuple | None = None


class _ArrayRows:
    """The data of the outer loop in memory; :class:`fmstats.outofcore.DaskRows` is the same
    interface over a Dask DataFrame, each method one or two passes over the data."""

    def __init__(self, X, q, cw, threshold: float):
        self.X, self.q, self.cw, self.threshold = X, q, cw, threshold
        self.sum_q = float(np.dot(cw, q))
        self.active = cw > 0

    def has_positives(self) -> bool:
        return bool(np.any((self.q > 0) & self.active))

    def baseline(self, penalty, tol, max_iter) -> np.ndarray:
        return irls_logit(self.X, self.q, self.cw, penalty=penalty, tol=tol, max_iter=max_iter).coef

    def iterate(self, coef, alpha: float, epsilon: float | None) -> _Iterate:
        q, cw = self.q, self.cw
        p = np.clip(expit(self.X @ coef), _TINY, 1 - _TINY)
        pred = (p >= self.threshold).astype(float)
        sums = _metric_sums(q, p, pred, cw)
        return _Iterate(*_metrics_from_sums(sums, alpha, self.sum_q), loglik=sums[5], p=p)

    def smoothed_counts(self, it: _Iterate, alpha: float, epsilon: float):
        return smoothed_noisy_counts(self.q, it.p, self.cw, alpha, epsilon)

    def fweights(self, it: _Iterate, method, f, tp, alpha, epsilon, bounds):
        """The F-weights at an iterate, scaled to mean 1 over the active rows, then clipped."""
        if method == "expected":
            fw = expected_f_weights(self.q, it.p, f, alpha)
        else:
            fw = noisy_f_weights(self.q, it.p, f, tp, alpha, epsilon)
        fw = fw / np.mean(fw[np.isfinite(fw) & self.active])  # the scale does not change the fit
        if bounds is not None:
            fw = np.clip(fw, bounds[0], bounds[1])
        return fw

    def unit_weights(self):
        return np.ones_like(self.q)

    def weight_range(self, fw) -> tuple[float, float]:
        return float(fw.min()), float(fw.max())

    def refit(self, fw, coef, *, penalty, tol, max_iter) -> np.ndarray:
        return irls_coef(self.X, self.q, self.cw * fw, coef, penalty=penalty, tol=tol,
                         max_iter=max_iter)

    def evaluate(self, fw, coef, penalty):
        return irls_evaluate(self.X, self.q, self.cw * fw, coef, penalty=penalty)


def _outer_loop(data, start, *, alpha, method, epsilon, bounds, inner, max_outer, patience,
                min_improvement, rel_improvement, select, penalty, tol, max_iter) -> _Outer:
    """Algorithms 4.1 / 7.1 on ``data`` (:class:`_ArrayRows` or its Dask counterpart)."""
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
    the iterate returned; ``fweights`` the F-maximising weights (mean 1) at that iterate.
    """

    use_t = False

    def __init__(self, *, outer: _Outer, baseline_coef: np.ndarray, **kwargs):
        super().__init__(**kwargs)
        self.outer_history = outer.history
        names = [t for t, a in zip(self.term_names, self.aliased) if not a]
        self.coef_path = pd.DataFrame(outer.coef_path, columns=names).rename_axis("iteration")
        self.best_iteration = outer.best_iteration
        self.outer_converged = outer.converged
        self.stop_reason = outer.reason
        self.baseline_coef = baseline_coef

    @property
    def method(self) -> str:
        return self.settings.extra["method"]

    @property
    def history(self) -> pd.DataFrame:  # type: ignore[override]
        """The outer loop's learning curve (one row per outer iteration; 0 is the start)."""
        return self.outer_history

    @property
    def family(self) -> str:
        return "quasibinomial"

    @property
    def _estimate_dispersion(self) -> bool:
        return True  # the F-weights have an arbitrary scale: only an estimated dispersion is valid

    @cached_property
    def llf(self) -> float:
        """The (uncertain) log-likelihood of the returned coefficients with the count weights only."""
        mu = self.fit_.mu
        return float(np.dot(self.count_weights, self.y * np.log(mu) + (1 - self.y) * np.log1p(-mu)))

    @property
    def aic(self):
        """``None``: with data-dependent weights the fit is not a likelihood fit."""
        return None

    @property
    def fweights_range(self) -> tuple[float, float]:
        """Smallest and largest F-weight on the rows with positive weight."""
        fw = self.fweights[self.count_weights > 0]
        return float(fw.min()), float(fw.max())

    @property
    def target_name(self) -> str:
        return {"expected": "expected F (Alg. 4.1)", "noisy": "noisy F (correlated, Alg. 7.1)",
                "plugin": "plug-in F of predicted classes vs q (§9.3)"}[self.method]

    def refit(self, data: pd.DataFrame, weights=None) -> "FMaxentResults":
        s = self.settings
        x = s.extra
        w = refit_weights(s.weights, weights)
        return fmaxent(s.formula, data, w, measure=s.measure, method=x["method"],
                       epsilon=x["epsilon"], weight_bounds=x["weight_bounds"], inner=x["inner"],
                       max_outer=x["max_outer"], patience=x["patience"],
                       min_improvement=x["min_improvement"],
                       rel_improvement=x["rel_improvement"], select=x["select"],
                       penalty=s.penalty, cov_type=s.cov_type, threshold=s.threshold,
                       missing=s.missing, collinear=s.collinear, engine=s.engine, tol=s.tol,
                       max_iter=s.max_iter)

    def _iteration_lines(self) -> list[str]:
        lines = ["(Deviances and dispersion are those of the final weighted fit, with the F-weights.)",
                 f"Outer iterations: {len(self.outer_history) - 1}; see 'F-measure maximisation'."]
        if self.separated:
            lines.append("Warning: fitted probabilities numerically 0 or 1 occurred: the "
                         "maximiser drove the coefficients towards infinity (predictions are "
                         "still usable; standard errors are not). A ridge `penalty=` keeps them "
                         "finite.")
        return lines

    def plot_history(self, ax=None):
        """The learning curve (thesis Fig. 9.8): target and training F per outer iteration."""
        from .plotting import plot_history

        return plot_history(self.outer_history, best=self.best_iteration,
                            target_label=self.target_name, ax=ax)

    def summary(self, cov_type: str | None = None, level: float = 0.95):
        s = super().summary(cov_type=cov_type, level=level)
        s.title = "F-measure maximising maximum entropy model"
        h = self.outer_history
        best = h.loc[self.best_iteration]
        start = h.loc[0]
        x = self.settings.extra
        lines = [
            ("Target", f"{self.target_name}, {self.measure_}"),
            ("Target at start (unweighted fit) -> returned", f"{start['target']:.4f} -> "
                                                             f"{best['target']:.4f}"),
            ("Outer iterations", f"{len(h) - 1} ({'converged' if self.outer_converged else 'NOT CONVERGED'}: "
                                 f"{self.stop_reason}); returned iterate {self.best_iteration}"),
            ("Inner step", "one IRLS step per outer iteration" if x["inner"] == "step"
             else "full weighted fit per outer iteration (warm start)"),
        ]
        if self.method != "expected":
            wc = []
            if x["epsilon"] is not None:
                wc.append(f"smoothed counts, epsilon = {x['epsilon']:g} (§7.2)")
            if x["weight_bounds"] is not None:
                wc.append(f"clipped to [{x['weight_bounds'][0]:g}, {x['weight_bounds'][1]:g}]")
            lines.append(("Weight control", "; ".join(wc)))
        lo, hi = self.fweights_range
        lines.append(("F-weights (mean 1)", f"range [{lo:.4g}, {hi:.4g}]"))
        s.sections.insert(1, Section("F-measure maximisation:", lines))
        return s


# ----------------------------------------------------------------------------- entry points

def _check_bounds(bounds):
    if bounds is None:
        return None
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`weight_bounds` must be a pair (low, high); got {bounds!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise InvalidArgumentError(
            f"`weight_bounds` must satisfy 0 < low < high (finite); got ({lo:g}, {hi:g}).")
    return (lo, hi)


def fmaxent(formula: str, data: pd.DataFrame, weights=None, *, alpha=None, beta=None,
            measure=None, method: str | None = None, epsilon: float | None = DEFAULT_EPSILON,
            weight_bounds=None, inner: str = "full", max_outer: int = 100, patience: int = 5,
            min_improvement: float = 1e-8, rel_improvement: float = 0.01, select: str = "target", penalty: float = 0.0,
            cov_type: str = "HC0", threshold: float = 0.5, missing: str = "drop",
            collinear: str = "drop", engine: str | None = None, tol: float = 1e-8,
            max_iter: int = 25) -> FMaxentResults:
    """F-measure maximising maximum-entropy model (thesis ch. 4, 6, 7).

    Parameters
    ----------
    formula, data, weights : as in :func:`fmstats.maxent` / :func:`fmstats.umaxent`; the
        response is 0/1 labels, a probability column q, or ``cbind(yes, no)`` votes.  A Dask
        DataFrame is fitted out of core (:mod:`fmstats.outofcore`): each outer iteration then
        costs about 3 + (inner IRLS steps) passes over the data.
    alpha, beta, measure : the F-measure to maximise (one of them; default F1).  ``alpha``
        is the weight on precision, the thesis's beta; it must lie in (0, 1).
    method : ``"expected"`` (certain labels: Algorithm 4.1, weights (4.2)), ``"noisy"``
        (probabilistic labels: Algorithm 7.1, weights (6.9)/(7.1)) or ``"plugin"`` (§9.3:
        weights (6.9) with the deterministic F and TP of the predicted classes against q).
        Default: ``"expected"`` for 0/1 labels, ``"noisy"`` otherwise.
    epsilon : smoothing width of §7.2 (noisy and plug-in methods).  The default 0.01 keeps
        the weights within p(1-p)F/(0.01 TP) while moving each smoothed count by at most
        0.005 per row; ``None`` uses the raw weights (6.9), which then need ``weight_bounds``.
    weight_bounds : ``(low, high)`` clipping of the weights (the thesis's experiments), on
        the weights scaled to mean 1; applied after smoothing if both are given.
    inner : ``"full"`` (a warm-started full weighted fit per outer iteration) or ``"step"``
        (one IRLS step, the variant of §7.3).
    max_outer, patience, min_improvement, rel_improvement : stop when the last ``patience``
        outer iterations improved the best target by at most
        ``max(min_improvement, rel_improvement * gain since the start)``, or after
        ``max_outer`` iterations.  ``rel_improvement=0`` runs to an absolute tolerance.
    select : return the iterate with the best ``"target"`` (default) or the best plug-in
        training F of the predicted classes (``"f"``).
    cov_type : ``"HC0"`` (default: the weights depend on the data, so the model-based
        covariance understates the uncertainty) or ``"nonrobust"``/``"HC1"``-``"HC3"``.
    threshold : predicted class 1 when the probability is at least this.
    Other arguments as in :func:`fmstats.maxent`.

    Returns
    -------
    FMaxentResults
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
    check_choice("inner", inner, INNER)
    check_choice("select", select, ("target", "f"))
    check_scalar("max_outer", max_outer, low=1, integer=True)
    check_scalar("patience", patience, low=1, integer=True)
    check_scalar("min_improvement", min_improvement, low=0)
    check_scalar("rel_improvement", rel_improvement, low=0, high=1, high_open=True)

    extra = dict(method=method, epsilon=epsilon, weight_bounds=bounds, inner=inner,
                 max_outer=int(max_outer), patience=int(patience),
                 min_improvement=float(min_improvement), rel_improvement=float(rel_improvement),
                 select=select)
    call_extra = {"alpha": round(fm.alpha, 6)}
    call_extra.update({k: v for k, v in extra.items()
                       if v is not None and k in ("method", "inner", "weight_bounds")})
    dask_data = is_dask_frame(data)
    if dask_data:
        from .outofcore import DaskFMaxentResults, DaskRows, prepare_dask as prepare
    else:
        prepare = _prepare
    prep = prepare("fmaxent", formula, data, weights, penalty=penalty, cov_type=cov_type,
                   dispersion="pearson", threshold=threshold, measure=fm, beta=None, alpha=None,
                   dependence="correlated", missing=missing, collinear=collinear,
                   engine=engine, tol=tol, max_iter=max_iter, start=None,
                   call_extra=call_extra, extra=extra)
    resp = prep.frame.response
    rows = (DaskRows(prep, float(threshold)) if dask_data
            else _ArrayRows(prep.X, resp.y, prep.w, float(threshold)))
    if not rows.has_positives():
        raise ResponseError(f"the response '{resp.name}' has no positives; the F-measure is "
                            "undefined.")
    if method is None:
        method = "expected" if resp.kind == "binary" else "noisy"
    elif method == "expected" and resp.kind != "binary":
        raise InvalidArgumentError(
            f"method='expected' needs 0/1 labels; the response '{resp.name}' is "
            f"{resp.kind}. Use method='noisy' or 'plugin'.")
    if method != "expected" and epsilon is None and bounds is None:
        raise InvalidArgumentError(
            "the raw weights (6.9) are unbounded as p -> q: give `epsilon` (smoothing) or "
            "`weight_bounds` (clipping).")
    extra["method"] = method
    settings = dataclasses.replace(prep.settings, extra=extra)

    base_coef = rows.baseline(prep.penalty, tol, max_iter)
    with threadpool_limits(limits=1, user_api="blas"):
        # many small refits: one BLAS thread each is faster than two fighting (DESIGN §7)
        outer = _outer_loop(rows, base_coef, alpha=fm.alpha, method=method,
                            epsilon=epsilon if method != "expected" else None, bounds=bounds,
                            inner=inner, max_outer=int(max_outer), patience=int(patience),
                            min_improvement=float(min_improvement),
                            rel_improvement=float(rel_improvement), select=select,
                            penalty=prep.penalty, tol=tol, max_iter=max_iter)
    if not outer.converged:
        h = outer.history
        warn(f"the F-measure maximiser stopped without converging: {outer.reason}. Best target "
             f"{h['target'].max():.6g} at iteration {outer.best_iteration} (start "
             f"{h['target'].iloc[0]:.6g}); the best iterate is returned. Increase `max_outer` "
             "or relax `rel_improvement`/`min_improvement`.", ConvergenceWarning)
    fit = rows.evaluate(outer.fweights, outer.coef, prep.penalty)
    if fit.separated:
        warn("the F-measure maximiser drove fitted probabilities to 0 or 1 (the coefficients grow "
             "without bound as the expected F approaches the F of hard predictions); predictions "
             "remain usable but standard errors do not. Add a ridge `penalty=` to keep the "
             "coefficients finite.", SeparationWarning)
    if dask_data:
        return DaskFMaxentResults.create(prep, settings, fit, rows, outer=outer,
                                         baseline_coef=base_coef)
    return FMaxentResults(settings=settings, call=prep.call, frame=prep.frame, X=prep.X,
                          aliased=prep.aliased, prior_weights=prep.prior, fit=fit,
                          fweights=outer.fweights, outer=outer, baseline_coef=base_coef)


def sweep(formula: str, data: pd.DataFrame, newdata: pd.DataFrame | None = None, *,
          alphas=None, weights=None, **kwargs) -> pd.DataFrame:
    """Fit the baseline and the F-maximiser over a grid of alpha (default 0.05, ..., 0.95).

    The baseline is the unweighted model (``maxent`` for 0/1 labels, ``umaxent``
    otherwise), fitted once; the maximiser is refitted for every alpha.  Returns a tidy
    DataFrame with columns alpha, beta, model ("baseline"/"fmaxent"), data
    ("train"/"test"), f (F of the predicted classes; fractional counts for probabilistic
    labels), noisy_f (correlated).  Plot it with :func:`fmstats.plotting.plot_sweep`.
    """
    from .maxent import maxent, umaxent

    alphas = np.round(np.arange(0.05, 0.951, 0.05), 10) if alphas is None else np.asarray(alphas)
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
