"""Pseudo-linear performance measures and their reduction to cost-sensitive classification.

Seed 001 (Puthiya Parambath, Usunier, Grandvalet).  Two layers:

1. **Error-profile algebra** (sections 3.1-3.4, Remark 2).  An *error profile* is the
   vector ``e = (FN_1, FP_1, FN_2, FP_2, ..., FN_L, FP_L)`` of false-negative and
   false-positive *probabilities* (proportions of the sample) per class / label, and
   ``priors = (P_1, ..., P_L)`` are the positive priors.  Every measure handled here is
   fractional-linear, ``F(e) = (c0 + <g, e>) / (d0 + <h, e>)`` with a positive
   denominator, hence pseudo-linear: for every level ``t``

       F(e) >= t   <=>   <a(t), e> + b(t) <= 0,

   where ``a(t) = t h - g`` and ``b(t) = t d0 - c0`` (multiply ``F(e) >= t`` by the
   positive denominator).  Rescaling ``(a, b)`` by a positive constant keeps the
   equivalence; the scalings below are the paper's (Propositions 4, 6, 7, Remark 2):

   ============================  =====================================  ============================
   measure                       a(t)                                   b(t)
   ============================  =====================================  ============================
   ``"f"`` (binary F_beta)       (1+b2-t, t) on (FN_1, FP_1), 0 else    (1+b2)(t-1) P_1
   ``"micro_f"`` (multilabel)    1+b2-t on every FN_k, t on every FP_k  (1+b2)(t-1) sum_k P_k
   ``"multiclass_f"``            t on FN_1 (default class 1), 1+b2-t on (1+b2)(t-1)(1-P_1)
                                 FN_k (k >= 2), 0 on FP_k
   ``"jaccard"`` (binary)        (1, t) on (FN_1, FP_1)                 (t-1) P_1
   ``"micro_jaccard"``           1 on every FN_k, t on every FP_k       (t-1) sum_k P_k
   ``"multiclass_jaccard"``      t on FN_1, 1 on FN_k (k >= 2)          (t-1)(1-P_1)
   ============================  =====================================  ============================

   (b2 = beta^2.)  The discretisation factor Phi of Proposition 3 (``F(e') - F(e) <=
   Phi <a(F(e')), e - e'>`` whenever ``F(e') > F(e)``) is the inverse of the minimum of
   the denominator over the feasible profiles: ``1/(b2 P_1)``, ``1/(b2 sum P_k)``,
   ``1/(b2 (1-P_1))`` for the F-measures, ``1/P_1``, ``1/sum P_k``, ``1/(1-P_1)`` for
   the Jaccard indices.

   Note: the paper's Algorithm 3 lists the costs of Proposition 6 with the odd/even
   entries swapped and Algorithm 4 prints ``1 + beta^2 * t``; both are typos
   (the derivations in Appendix A give the table above, which is what is implemented
   and property-tested).

2. **Algorithm 1** (:func:`costsens`): for each cost level ``t`` on a grid in
   ``(0, 1+beta^2)`` fit a class-weighted ridge logistic regression on the training
   rows, score the validation rows, optionally tune the threshold on them, and keep
   the ``(t, threshold)`` with the best validation F_beta.

   *t and the class weights.*  The cost vector ``a(t) = (1+beta^2-t, t)`` charges a
   false negative ``1+beta^2-t`` and a false positive ``t``.  Positive training rows
   therefore get weight proportional to ``1+beta^2-t`` and negative rows weight
   proportional to ``t`` (the paper's "FN cost ``(2-t)/t``" for F1 is the ratio of the
   two).  The weights are rescaled to have mean 1 over the training rows, so the ridge
   ``penalty`` keeps the same meaning for every ``t``.  ``t = (1+beta^2)/2`` gives equal
   weights (the unweighted fit).  The default grid is ``t_j = (1+beta^2) j/(grid+1)``,
   ``j = 1..grid``, i.e. ``0.1, 0.2, ..., 1.9`` for F1 with ``grid=19`` (section 5).

   *Selection and refitting.*  As in Algorithm 1, the returned classifier is the model
   trained on the training part with the selected cost and threshold; it is **not**
   refitted on all rows (refitting would change the scores the threshold was tuned on).
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit

from ._validation import check_choice, check_scalar, describe
from .exceptions import DataError, InvalidArgumentError, ResponseError
from .measures import FMeasure, as_fmeasure

__all__ = [
    "PROFILE_MEASURES", "profile_value", "cost_vector", "cost_offset", "discretisation_factor",
    "cost_grid", "best_threshold", "costsens", "costsens_arrays", "CostSensitiveFit",
]

#: Measures of an error profile implemented here (all pseudo-linear).
PROFILE_MEASURES = ("f", "micro_f", "multiclass_f", "jaccard", "micro_jaccard",
                    "multiclass_jaccard")


# =========================================================================== error profiles

def _check_measure(measure: str) -> str:
    if measure in ("macro_f", "instance_f"):
        raise InvalidArgumentError(
            f"`measure` {measure!r} is not a pseudo-linear function of the error profile "
            "(seed 001, section 3.2.2 and Remark 1); macro-F is optimised label by label "
            "with measure='f'."
        )
    return check_choice("measure", measure, PROFILE_MEASURES)


def _check_beta(beta: Any) -> float:
    b = float(check_scalar("beta", beta, low=0, low_open=True))
    if not math.isfinite(b):
        raise InvalidArgumentError(f"`beta` must be finite; got {describe(beta)}.")
    return b


def _priors(priors: Any, measure: str) -> np.ndarray:
    p = np.atleast_1d(np.asarray(priors, dtype=float))
    if p.ndim != 1 or p.size == 0 or not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise InvalidArgumentError(
            f"`priors` must be a non-empty vector of probabilities in [0, 1]; got {describe(priors)}."
        )
    if measure.startswith("multiclass") and p.size < 2:
        raise InvalidArgumentError(
            f"`priors` of a multiclass measure needs one prior per class (>= 2, the default "
            f"class first); got {describe(priors)}."
        )
    return p


def _parts(measure: str, priors: np.ndarray, beta: float):
    """(c0, g, d0, h): F(e) = (c0 + <g, e>) / (d0 + <h, e>) on profiles of length 2L."""
    L = priors.size
    g = np.zeros(2 * L)
    h = np.zeros(2 * L)
    b2 = beta * beta
    jac = measure.endswith("jaccard")
    k = 1.0 if jac else 1.0 + b2          # numerator weight on "positives found"
    if measure in ("f", "jaccard"):
        pos, fn_idx, fp_idx = priors[0], [0], [1]
    elif measure in ("micro_f", "micro_jaccard"):
        pos, fn_idx, fp_idx = priors.sum(), list(range(0, 2 * L, 2)), list(range(1, 2 * L, 2))
    else:  # multiclass, class 1 (index 0) is the default class; its FN is the measure's FP
        pos, fn_idx, fp_idx = 1.0 - priors[0], list(range(2, 2 * L, 2)), [0]
    c0 = k * pos
    g[fn_idx] = -k
    d0 = k * pos
    h[fn_idx] = 0.0 if jac else -1.0
    h[fp_idx] = 1.0
    return c0, g, d0, h, pos


def _profile(e: Any, L: int) -> np.ndarray:
    e = np.asarray(e, dtype=float)
    if e.shape[-1] != 2 * L:
        raise InvalidArgumentError(
            f"`e` must have 2L = {2 * L} entries (FN_1, FP_1, ..., FN_L, FP_L) for {L} "
            f"prior(s); got shape {e.shape}."
        )
    return e


def profile_value(measure: str, e: Any, priors: Any, *, beta: float = 1.0) -> np.ndarray | float:
    """F(e) for an error profile ``e = (FN_1, FP_1, ..., FN_L, FP_L)`` (probabilities).

    ``e`` may be a matrix of profiles (one per row).  ``priors`` are P_1..P_L (for the
    binary measures only P_1 is used; give ``[P_1]`` or ``[P_1, 1-P_1]`` with a 4-entry
    profile).  For the multiclass measures class 1 (entry 0) is the default class.
    """
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    p = _priors(priors, measure)
    e = _profile(e, p.size)
    c0, g, d0, h, _ = _parts(measure, p, beta)
    out = (c0 + e @ g) / (d0 + e @ h)
    return float(out) if np.ndim(out) == 0 else out


def cost_vector(measure: str, t: float, priors: Any, *, beta: float = 1.0) -> np.ndarray:
    """The cost vector a(t) of Propositions 4, 6, 7 and Remark 2 (see the module table)."""
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    t = float(check_scalar("t", t))
    p = _priors(priors, measure)
    _, g, _, h, _ = _parts(measure, p, beta)
    return t * h - g


def cost_offset(measure: str, t: float, priors: Any, *, beta: float = 1.0) -> float:
    """b(t) = t d0 - c0, so that F(e) >= t  <=>  <a(t), e> + b(t) <= 0."""
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    t = float(check_scalar("t", t))
    p = _priors(priors, measure)
    c0, _, d0, _, _ = _parts(measure, p, beta)
    return float(t * d0 - c0)


def discretisation_factor(measure: str, priors: Any, *, beta: float = 1.0) -> float:
    """Phi of Proposition 3 (Propositions 4, 6, 7; for the Jaccard indices by the same
    argument): the inverse of the smallest denominator over feasible profiles."""
    measure = _check_measure(measure)
    beta = _check_beta(beta)
    p = _priors(priors, measure)
    *_, pos = _parts(measure, p, beta)
    scale = 1.0 if measure.endswith("jaccard") else beta * beta
    if pos <= 0:
        raise InvalidArgumentError(
            f"`priors` give no positive mass for {measure!r}; Phi is infinite.")
    return 1.0 / (scale * pos)


# =========================================================================== Algorithm 1

def cost_grid(grid: Any, beta: float = 1.0) -> np.ndarray:
    """The cost levels t: an int ``grid`` gives ``(1+beta^2) j/(grid+1)``, j = 1..grid;
    a sequence is used as given (sorted), each value in (0, 1+beta^2)."""
    top = 1.0 + beta * beta
    if isinstance(grid, numbers.Integral) and not isinstance(grid, bool):
        if grid < 1:
            raise InvalidArgumentError(f"`grid` must have at least one cost level; got {grid!r}.")
        return top * np.arange(1, grid + 1) / (grid + 1)
    try:
        ts = np.sort(np.asarray(grid, dtype=float).ravel())
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`grid` must be a positive integer or a sequence of cost levels; got {describe(grid)}."
        ) from None
    if ts.size == 0:
        raise InvalidArgumentError("`grid` is empty; give at least one cost level t in "
                                   f"(0, {top:g}).")
    if not np.all(np.isfinite(ts)) or ts[0] <= 0 or ts[-1] >= top:
        raise InvalidArgumentError(
            f"`grid` cost levels must lie in (0, 1+beta^2) = (0, {top:g}); got {describe(grid)}.")
    return ts


def _f_from_counts(tp, fp, fn, b2):
    num = (1.0 + b2) * tp
    den = num + b2 * fn + fp
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def best_threshold(y: Any, score: Any, *, beta: float = 1.0) -> tuple[float, float]:
    """Exact best threshold of ``score`` for F_beta on (y, score): returns (threshold, F).

    The rule is "positive iff score >= threshold".  All cut points between distinct
    scores are tried at once (sort + cumulative counts); the threshold returned is the
    midpoint between the lowest included and the highest excluded score (``+inf``
    predicts nothing positive, ``-inf`` everything).
    """
    y = np.asarray(y, dtype=float)
    s = np.asarray(score, dtype=float)
    b2 = beta * beta
    order = np.argsort(-s, kind="mergesort")
    ss, yy = s[order], y[order]
    tp = np.cumsum(yy)
    k = np.arange(1, ss.size + 1)
    fp = k - tp
    P = tp[-1] if ss.size else 0.0
    last = np.r_[ss[1:] != ss[:-1], True]          # cut only after a tie group ends
    f = np.where(last, _f_from_counts(tp, fp, P - tp, b2), -1.0)
    f0 = 0.0  # nothing predicted positive
    j = int(np.argmax(f)) if ss.size else -1
    if ss.size == 0 or f[j] <= f0:
        return math.inf, f0
    thr = -math.inf if j == ss.size - 1 else 0.5 * (ss[j] + ss[j + 1])
    return float(thr), float(f[j])


def _weights(y: np.ndarray, t: float, b2: float) -> np.ndarray:
    w = np.where(y > 0.5, 1.0 + b2 - t, t)
    return w / w.mean()


class _Searcher:
    """Fits and scores one cost level; caches results and warm-starts from the nearest t."""

    def __init__(self, Xtr, ytr, Xva, yva, b2, penalty, thresholds, tol, max_iter):
        from .glm.irls import irls_coef

        self._fit = irls_coef
        self.Xtr, self.ytr, self.Xva, self.yva = Xtr, ytr, Xva, yva
        self.b2 = b2
        p = Xtr.shape[1]
        pen = np.full(p, float(penalty))
        pen[0] = 0.0
        self.pen = pen
        self.thresholds = thresholds
        self.tol, self.max_iter = tol, max_iter
        self.cache: dict[float, dict] = {}

    def __call__(self, t: float) -> dict:
        if t in self.cache:
            return self.cache[t]
        start = None
        if self.cache:
            near = min(self.cache, key=lambda s: abs(s - t))
            start = self.cache[near]["coef"]
        w = _weights(self.ytr, t, self.b2)
        coef = self._fit(self.Xtr, self.ytr, w, start, penalty=self.pen, tol=self.tol,
                         max_iter=self.max_iter)
        eta = self.Xva @ coef
        if self.thresholds:
            thr, f = best_threshold(self.yva, eta, beta=math.sqrt(self.b2))
        else:
            thr = 0.0  # probability 1/2
            pred = eta >= 0
            tp = float(self.yva @ pred)
            f = float(_f_from_counts(tp, pred.sum() - tp, self.yva.sum() - tp, self.b2))
        rec = {"t": t, "coef": coef, "eta_threshold": thr, "f": f}
        self.cache[t] = rec
        return rec


def _bracket(search: _Searcher, top: float, budget: int, min_width: float) -> None:
    """Section 5.1: bracketing on the quasi-concave curve t -> F(t).

    Start from [0, 1+beta^2] and its three quarter points.  If F is quasi-concave in t,
    its maximum lies between the neighbours of the best quarter point, a sub-interval of
    half the width whose midpoint is already evaluated; evaluate its two new quarter
    points and repeat until the width falls below ``min_width`` or ``budget`` fits are
    used.  The endpoints 0 and 1+beta^2 (degenerate weights) are never fitted.
    """
    lo, hi = 0.0, top
    while True:
        pts = [lo + (hi - lo) * k / 4 for k in range(5)]
        for q in pts[1:4]:
            if len(search.cache) >= budget and q not in search.cache:
                return
            search(q)
        fs = [search.cache[q]["f"] if q in search.cache else -math.inf for q in pts]
        i = int(np.argmax(fs[1:4])) + 1
        lo, hi = pts[i - 1], pts[i + 1]
        if hi - lo < min_width:
            return


def _split(n: int, y: np.ndarray, validation: Any, rows: np.ndarray | None,
           data_index: pd.Index | None, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask (over the n model rows) of the validation rows."""
    if isinstance(validation, numbers.Real) and not isinstance(validation, bool):
        frac = float(check_scalar("validation", validation, low=0, high=1, low_open=True,
                                  high_open=True))
        mask = np.zeros(n, dtype=bool)
        for cls in (0, 1):  # stratified, so both parts keep the class balance
            idx = np.flatnonzero(y == cls)
            m = int(round(frac * idx.size))
            mask[rng.choice(idx, size=m, replace=False)] = True
        return mask
    v = np.asarray(validation)
    if v.dtype == bool:
        full = rows.size if data_index is None else len(data_index)
        if v.ndim != 1 or v.size != full:
            raise InvalidArgumentError(
                f"`validation` as a boolean mask must have one entry per row of `data` ({full}); "
                f"got shape {v.shape}.")
        return v if rows is None else v[rows]
    if data_index is None:
        mask = np.zeros(n, dtype=bool)
        mask[v.astype(int)] = True
        return mask
    used = data_index[rows]
    unknown = ~pd.Index(v).isin(data_index)
    if unknown.any():
        raise InvalidArgumentError(
            f"`validation` contains labels not in the index of `data`, e.g. {v[unknown][0]!r}.")
    return np.asarray(used.isin(v))


class CostSensitiveFit:
    """Outcome of :func:`costsens` (plain, picklable).

    Attributes: ``measure`` (FMeasure), ``variant`` ("-", "T", "CS" or "CS&T"),
    ``best_cost`` (t), ``best_threshold`` (on the probability scale; rule "positive iff
    P(y=1|x) >= threshold"), ``best_threshold_eta`` (same on the linear-predictor scale),
    ``validation_f``, ``curve`` (DataFrame: t, fn_cost, fp_cost, threshold, f; one row
    per fitted cost), ``coef`` (Series), ``search``, ``penalty``, ``n_train``,
    ``n_validation``.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def _design(self, newdata):
        if self.spec is None:
            X = np.asarray(newdata, dtype=float)
            return X, pd.RangeIndex(X.shape[0])
        return self.spec.build(newdata, missing="drop")

    def predict(self, newdata: Any, type: str = "class") -> pd.Series:
        """``type="class"``: 0/1 predictions with the selected threshold; ``"score"``: the
        selected model's probabilities P(y=1|x) (before thresholding)."""
        check_choice("type", type, ("class", "score"))
        X, index = self._design(newdata)
        eta = X @ self.coef.to_numpy()
        if type == "score":
            return pd.Series(expit(eta), index=index, name="score")
        return pd.Series((eta >= self.best_threshold_eta).astype(int), index=index, name="class")

    def summary(self) -> str:
        m = self.measure
        lines = [
            f"Cost-sensitive F-measure maximisation (seed 001, Algorithm 1), variant {self.variant}",
            f"Measure: F_beta with beta = {m.beta:.6g} (alpha = {m.alpha:.6g})",
            f"Learner: class-weighted ridge logistic regression, penalty = {self.penalty:g}",
            f"Search: {self.search}; {len(self.curve)} cost level(s) fitted; "
            f"train n = {self.n_train}, validation n = {self.n_validation}",
            f"Best cost t = {self.best_cost:.6g} (FN cost {1 + m.beta ** 2 - self.best_cost:.6g}, "
            f"FP cost {self.best_cost:.6g})",
            f"Best threshold = {self.best_threshold:.6g} (probability scale)",
            f"Validation F = {self.validation_f:.6g}",
            "",
            "F versus cost:",
            self.curve.to_string(index=False, float_format=lambda x: f"{x:.4f}"),
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<CostSensitiveFit {self.variant}: t={self.best_cost:.4g}, "
                f"threshold={self.best_threshold:.4g}, validation F={self.validation_f:.4f}>")

    def plot(self, ax=None):
        """Validation F against the cost level t (matplotlib, imported lazily)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        c = self.curve.sort_values("t")
        ax.plot(c["t"], c["f"], marker="o")
        ax.axvline(self.best_cost, linestyle=":", color="grey")
        ax.set_xlabel("cost level t (FP cost t, FN cost 1+beta^2-t)")
        ax.set_ylabel(f"validation {self.measure.name if hasattr(self.measure, 'name') else 'F'}")
        ax.set_title(f"costsens, variant {self.variant}")
        return ax


def costsens_arrays(X: Any, y: Any, *, measure: FMeasure | None = None, beta: float | None = None,
                    alpha: float | None = None, costs: bool = True, thresholds: bool = True,
                    grid: Any = 19, search: str = "grid", validation: Any = 1 / 3,
                    penalty: float = 1.0, random_state: Any = None, tol: float = 1e-8,
                    max_iter: int = 25, column_names=None, _spec=None, _rows=None,
                    _data_index=None, _formula=None) -> CostSensitiveFit:
    """Algorithm 1 on a design matrix ``X`` (first column the intercept) and 0/1 ``y``.
    See :func:`costsens` for the arguments."""
    m = as_fmeasure(measure, beta=beta, alpha=alpha)
    if m.beta <= 0:
        raise InvalidArgumentError(
            f"`beta` must be > 0 for cost-sensitive F maximisation (beta = 0 is precision); "
            f"got {m.beta!r}.")
    b2 = m.beta ** 2
    top = 1.0 + b2
    check_choice("search", search, ("grid", "bracket"))
    ts = cost_grid(grid, m.beta)
    penalty = float(check_scalar("penalty", penalty, low=0))
    X = np.ascontiguousarray(np.asarray(X, dtype=float))
    y = np.asarray(y, dtype=float).ravel()
    if X.ndim != 2 or X.shape[0] != y.size:
        raise DataError(f"`X` must be a matrix with one row per response; got {X.shape} "
                        f"and {y.size} responses.")
    if not np.all((y == 0) | (y == 1)):
        raise ResponseError("costsens needs a 0/1 (binary) response.")
    rng = np.random.default_rng(random_state)
    va = _split(y.size, y, validation, _rows, _data_index, rng)
    tr = ~va
    for name, part in (("validation", va), ("training", tr)):
        if not np.any(y[part] == 1):
            raise DataError(
                f"the {name} part of the split (validation={describe(validation)}) has no "
                f"positive rows; F is undefined. Use a larger or stratified `validation`.")
    if not np.any(y[tr] == 0):
        raise DataError("the training part of the split has no negative rows.")
    s = _Searcher(X[tr], y[tr], X[va], y[va], b2, penalty, thresholds, tol, max_iter)
    if not costs:
        s(top / 2)
        search_used = "none (unweighted)"
    elif search == "grid":
        for t in ts:
            s(float(t))
        search_used = f"grid of {ts.size}"
    else:
        n_budget = ts.size if isinstance(grid, numbers.Integral) else max(ts.size, 3)
        _bracket(s, top, n_budget, min_width=top / (n_budget + 1))
        search_used = f"bracket (budget {n_budget})"
    recs = sorted(s.cache.values(), key=lambda r: r["t"])
    best = max(recs, key=lambda r: r["f"])  # first maximum in increasing t
    curve = pd.DataFrame({
        "t": [r["t"] for r in recs],
        "fn_cost": [top - r["t"] for r in recs],
        "fp_cost": [r["t"] for r in recs],
        "threshold": [float(expit(r["eta_threshold"])) for r in recs],
        "f": [r["f"] for r in recs],
    })
    names = list(column_names) if column_names is not None else [f"x{j}" for j in range(X.shape[1])]
    variant = {(False, False): "-", (False, True): "T", (True, False): "CS",
               (True, True): "CS&T"}[(bool(costs), bool(thresholds))]
    return CostSensitiveFit(
        measure=m, variant=variant, best_cost=best["t"],
        best_threshold=float(expit(best["eta_threshold"])),
        best_threshold_eta=best["eta_threshold"], validation_f=best["f"], curve=curve,
        coef=pd.Series(best["coef"], index=names), search=search_used, penalty=penalty,
        n_train=int(tr.sum()), n_validation=int(va.sum()), validation_mask=va,
        spec=_spec, formula=_formula,
    )


def costsens(formula: str, data: pd.DataFrame, *, measure: FMeasure | None = None,
             beta: float | None = None, alpha: float | None = None, kind: str = "binary",
             learner: str = "logit", costs: bool = True, thresholds: bool = True,
             grid: Any = 19, search: str = "grid", validation: Any = 1 / 3,
             penalty: float = 1.0, random_state: Any = None, tol: float = 1e-8,
             max_iter: int = 25) -> CostSensitiveFit:
    """Maximise F_beta by reduction to cost-sensitive classification (seed 001, Algorithm 1).

    Parameters
    ----------
    formula, data : a binary response formula (``"income == '>50K' ~ age + C(sex)"``) and
        its data frame; rows with missing values are dropped.
    measure / beta / alpha : the F-measure (default F1); ``beta`` must be > 0.
    kind : ``"binary"`` (the only kind implemented so far; ``"multilabel"`` and
        ``"multiclass"`` raise).
    learner : ``"logit"`` (class-weighted ridge logistic regression by IRLS).  ``"svm"`` is
        reserved for fmstats' weighted SVM and raises.
    costs, thresholds : the four variants of section 6: ``-`` (both False), ``T``
        (thresholds only), ``CS`` (costs only), ``CS&T`` (both, default).
    grid : number of cost levels ``t_j = (1+beta^2) j/(grid+1)`` or explicit levels.
    search : ``"grid"`` (every level, warm-started in increasing t) or ``"bracket"``
        (section 5.1, with ``grid`` as budget of fits when it is an int).
    validation : fraction of rows held out (stratified random split), a boolean mask
        over the rows of ``data``, or index labels of ``data``.
    penalty : ridge penalty on every non-intercept coefficient (the weights have mean 1,
        so its scale is that of an unweighted fit on the training rows).
    random_state : seed of the validation split.
    """
    check_choice("kind", kind, ("binary", "multilabel", "multiclass"))
    check_choice("learner", learner, ("logit", "svm"))
    if learner == "svm":
        raise InvalidArgumentError(
            "learner='svm' needs fmstats' weighted SVM (wsvm), not yet available; use learner='logit'")
    if kind != "binary":
        raise InvalidArgumentError(
            f"kind={kind!r} (Algorithms 2-4) is not implemented yet; only kind='binary'.")
    m = as_fmeasure(measure, beta=beta, alpha=alpha)
    if m.beta <= 0:
        raise InvalidArgumentError(
            f"`beta` must be > 0 for cost-sensitive F maximisation (beta = 0 is precision); "
            f"got {m.beta!r}.")
    from .formula import model_frame

    mf = model_frame(formula, data, missing="drop")
    if mf.response.kind != "binary":
        raise ResponseError(
            f"costsens needs a binary (0/1) response for kind='binary'; the response of "
            f"{formula!r} is {mf.response.kind!r}.")
    return costsens_arrays(
        mf.X, mf.response.y, measure=m, costs=costs, thresholds=thresholds, grid=grid,
        search=search, validation=validation, penalty=penalty, random_state=random_state,
        tol=tol, max_iter=max_iter, column_names=mf.column_names, _spec=mf.spec,
        _rows=np.asarray(mf.rows), _data_index=data.index, _formula=formula)
