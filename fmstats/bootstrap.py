"""Bootstrap resampling of any fitted model: replicate coefficients, SEs and CIs.

:func:`bootstrap` refits a model (through the results protocol, ``results.refit(data)``) on
B resampled data sets and returns a frozen :class:`BootstrapResults`.  Three resampling
schemes:

* ``"case"``: n rows drawn with replacement (Efron's nonparametric bootstrap);
* ``"stratified"``: rows drawn with replacement within each class (majority class for
  probabilistic labels), so every replicate keeps the class counts;
* ``"labels_from_q"``: X kept, labels drawn from the probabilistic response q (thesis §9.2):
  Y_i ~ Bernoulli(q_i) for a probability column, yes_i ~ Binomial(yes_i + no_i, q_i) for
  ``cbind(yes, no)`` votes.

Fast path.  For ``maxent``/``umaxent`` fits the prior weights are frequency weights (a tested
property: weights equal duplicated rows), so a case resample equals the fit on the original
rows with weights times the resample counts.  That fit reuses the stored design matrix (no
formula rebuild, no missing factor levels: a level absent from the resample gives an aliased
column, i.e. a NaN coefficient, exactly as the refit gives a missing term).  It is used by
default where it applies (``fast=None``); ``tests/test_bootstrap.py`` checks that both paths
give the same replicates and ``benchmarks/bench_resampling.py`` measures the gain.

Confidence intervals are pure functions of the replicate array (:func:`percentile_interval`,
:func:`basic_interval`, :func:`bca_interval`, in :mod:`fmstats.bootci`), so they can be fed any replicates (the tests
feed them scipy's).  Quantiles are numpy's linear interpolation, as in
``scipy.stats.bootstrap``.  BCa (Efron & Tibshirani 1993, §14.3) needs the jackknife
acceleration: with n rows that is n refits; above ``JACKKNIFE_MAX`` rows a grouped
(delete-a-group) jackknife with that many random groups estimates the same acceleration
(the skewness of a sum of m influences shrinks by 1/sqrt(m), which the formula's
normalisation undoes).  ``jackknife=`` sets the number of groups.

Replicates are computed in chunks by module-level workers through joblib (so
``joblib.parallel_config(backend="dask")`` works unchanged); every replicate has its own
seed spawned from ``random_state`` before dispatch, so results do not depend on ``n_jobs``.
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd
from scipy.special import expit

from . import measures as _m
from ._parallel import check_n_jobs, progress_enabled, run_tasks, spawn_seeds
from ._persist import Persistable
from ._separation import (DegenerateReplicateWarning, degenerate_replicates, no_finite_mle,
                          split_flags, suspect, warn_all_nan)
from .bootci import (basic_interval, bca_interval, check_level, finite_values,
                     jackknife_acceleration, percentile_interval)
from ._training import array_weights, training_frame
from ._validation import check_choice, check_scalar, describe, warn
from .exceptions import (
    DataError,
    InvalidArgumentError,
    ResamplingWarning,
    ResponseError,
)
from .summary import SIGNIF_LEGEND, Section, Summary

__all__ = ["bootstrap", "BootstrapResults", "ResamplingWarning", "DegenerateReplicateWarning",
           "percentile_interval", "basic_interval", "bca_interval", "jackknife_acceleration", "TYPES", "CIS",
           "JACKKNIFE_MAX"]

TYPES = ("case", "stratified", "labels_from_q")
CIS = ("percentile", "basic", "bca")
#: Above this many rows the BCa jackknife is grouped (this many groups) by default.
JACKKNIFE_MAX = 1000


# ============================================================================ replicate engines

def _guarded(fn: Callable, *args):
    """Run fn, returning (value, error text or None, names of the warnings it raised)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            value, err = fn(*args), None
        except Exception as exc:  # a failed replicate is counted and reported, not fatal
            value, err = None, f"{type(exc).__name__}: {exc}"
    return value, err, tuple(sorted({w.category.__name__ for w in rec}))


def _plain_arrays(engine):
    """The engine with joblib's memory-mapped arrays copied into the worker's own memory.

    Workers see large arrays as read-only memory maps of a shared file; the replicate
    loop reading them cost about 20 % more CPU than on private memory (measured with
    ``benchmarks/bench_resampling.py``).  One copy per chunk is cheap by comparison.
    """
    if not dataclasses.is_dataclass(engine):
        return engine
    maps = {f.name: np.array(v) for f in dataclasses.fields(engine)
            if isinstance(v := getattr(engine, f.name), np.memmap)}
    return dataclasses.replace(engine, **maps) if maps else engine


def _run_chunk(engine, job: str, items: list) -> list:
    """Worker: one chunk of replicates (``items``: seeds, or ("drop", positions))."""
    engine = _plain_arrays(engine)

    def one(item):
        draw = engine.draw(item)
        fit = engine.fit(draw)
        if job == "stat":   # with the (no finite MLE, converged) flags of the replicate fit
            return engine.stat(fit, draw), engine.flags(fit)
        return engine.classes(fit)

    return [_guarded(one, item) for item in items]


def _run(engine, job: str, items: list, n_jobs, progress, desc: str) -> list:
    """All replicates through :func:`fmstats._parallel.run_tasks`, in task order."""
    from joblib import effective_n_jobs

    jobs = max(1, effective_n_jobs(check_n_jobs(n_jobs)))
    # in one process chunks only feed the progress bar (each costs a threadpool_limits call)
    n_chunks = min(len(items), (50 if progress_enabled(progress) else 1) if jobs == 1
                   else 8 * jobs)
    bounds = np.linspace(0, len(items), n_chunks + 1).round().astype(int)
    tasks = [(engine, job, items[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    out = run_tasks(_run_chunk, tasks, n_jobs=n_jobs, progress=progress,
                    desc=f"{desc} ({len(items)} fits in {len(tasks)} chunks)")
    return [r for chunk in out for r in chunk]


@dataclass(frozen=True)
class _Draws:
    """How rows or labels are drawn; shared by both engines."""

    n: int
    type: str
    strata: np.ndarray | None        # class of each row (stratified)
    q: np.ndarray | None             # label probabilities (labels_from_q)
    trials: np.ndarray | None        # cbind trials (labels_from_q on votes)

    def draw(self, item) -> dict:
        if isinstance(item, tuple):                 # jackknife: leave rows out
            return {"idx": np.delete(np.arange(self.n), item[1])}
        rng = np.random.default_rng(item)
        if self.type == "case":
            return {"idx": rng.integers(0, self.n, self.n)}
        if self.type == "stratified":
            parts = [rows[rng.integers(0, rows.size, rows.size)]
                     for rows in (np.flatnonzero(self.strata == s)
                                  for s in np.unique(self.strata))]
            return {"idx": np.concatenate(parts)}
        if self.trials is None:
            return {"labels": (rng.random(self.n) < self.q).astype(float)}
        return {"yes": rng.binomial(self.trials.astype(np.int64), self.q).astype(float)}

    def counts(self, item) -> np.ndarray:
        return np.bincount(self.draw(item)["idx"], minlength=self.n)


def _independent(G: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """:func:`fmstats.glm.irls.independent_columns`, with a one-call shortcut for full rank.

    That function keeps column j when its squared residual on the kept columns exceeds
    tol^2 G_jj; when every column is kept those residuals are the squared diagonal of the
    Cholesky factor of G, so one factorisation decides the common full-rank case.
    """
    from .glm.irls import independent_columns

    d = np.diag(G)
    if np.all(d > 0):
        try:
            L = np.linalg.cholesky(G)
        except np.linalg.LinAlgError:
            L = None
        if L is not None and np.all(np.diag(L) ** 2 > tol ** 2 * d):
            return np.ones(G.shape[0], dtype=bool)
    return independent_columns(G, tol)


@dataclass(frozen=True)
class _WeightedEngine(_Draws):
    """maxent/umaxent: refit the stored design with weights times resample counts."""

    X: np.ndarray = None
    y: np.ndarray = None
    prior: np.ndarray = None
    positions: np.ndarray = None     # term index of each column of X
    n_terms: int = 0
    penalty: np.ndarray = None
    tol: float = 1e-8
    max_iter: int = 25
    threshold: float = 0.5
    fmeasure: Any = None
    se0: np.ndarray = None           # the original fit's model-based SE of each term

    def fit(self, draw: dict):
        from .glm.irls import irls_logit, rank_gram

        w = self.prior if self.trials is None else self.prior * self.trials
        X, y = self.X, self.y
        if "idx" in draw:
            c = np.bincount(draw["idx"], minlength=self.n)
            rows = np.flatnonzero(c)      # np.take: several times faster than a boolean mask
            X, y, w = np.take(X, rows, axis=0), y[rows], w[rows] * c[rows]
        elif "labels" in draw:
            y = draw["labels"]
        else:
            y = np.where(self.trials > 0, draw["yes"] / np.where(self.trials > 0,
                                                                 self.trials, 1), 0.0)
        active = w > 0
        if np.all(y[active] == 0) or np.all(y[active] == 1):
            raise ResponseError("the resample has a single class; a classifier needs both.")
        keep = _independent(rank_gram(X, w))   # centred/scaled when X has offset columns
        Xk = X if keep.all() else np.ascontiguousarray(X[:, keep])
        fit = irls_logit(Xk, y, w, penalty=self.penalty[keep], tol=self.tol,
                         max_iter=self.max_iter, warn=False)
        se = np.sqrt(np.clip(np.diag(fit.xtwx_inv), 0.0, None))
        # a ridge penalty makes every estimate finite: only unpenalised fits are tested
        infinite = fit.separated or (not np.any(self.penalty[keep] > 0) and (
            not fit.converged or suspect(se, self.se0[self.positions[keep]]))
            and no_finite_mle(Xk, y, w))
        coef = np.zeros(X.shape[1])
        coef[keep] = fit.coef               # aliased columns predict as 0, as R does
        pred = (expit(fit.eta) >= self.threshold).astype(float)
        tp, pos, truth = w @ (y * pred), w @ pred, w @ y
        f = float(self.fmeasure.from_counts(tp, pos - tp, truth - tp))
        full = np.full(self.n_terms, np.nan)
        full[self.positions[keep]] = fit.coef
        return full, coef, f, (bool(infinite), bool(fit.converged))

    def flags(self, fit) -> tuple:
        return fit[3]

    def stat(self, fit, draw) -> np.ndarray:
        return np.append(fit[0], fit[2])

    def classes(self, fit) -> np.ndarray:
        return (expit(self.X @ fit[1]) >= self.threshold).astype(float)


@dataclass(frozen=True)
class _RefitEngine(_Draws):
    """Any model: ``results.refit`` on the resampled training frame."""

    results: Any = None
    se0: pd.Series | None = None         # the original fit's model-based SEs by term
    frame: pd.DataFrame = None
    weights: np.ndarray | None = None    # array prior weights (refit needs them again)
    statistic: Callable | None = None
    columns: pd.Index = None
    response: tuple = ()                 # ("column", name) or ("cbind", yes, no)

    def fit(self, draw: dict):
        w = self.weights
        if "idx" in draw:
            # rows in training order: a replicate depends on the counts only, not on the
            # order of the draws (which matters to order-dependent refits such as CV folds)
            idx = np.sort(draw["idx"])
            sub = self.frame.iloc[idx].reset_index(drop=True)
            w = None if w is None else w[idx]
        else:
            sub = self.frame.copy()
            if "labels" in draw:
                sub[self.response[1]] = draw["labels"]
            else:
                sub[self.response[1]] = draw["yes"]
                sub[self.response[2]] = self.trials - draw["yes"]
        return self.results.refit(sub) if w is None else self.results.refit(sub, weights=w)

    def stat(self, fit, draw) -> np.ndarray:
        s = _as_series(self.statistic(fit) if self.statistic else _default_statistic(fit))
        extra = s.index.difference(self.columns)
        if len(extra):
            raise DataError(f"the replicate has term(s) {', '.join(map(str, extra[:3]))} "
                            "that the original fit does not have; it cannot be aligned.")
        return s.reindex(self.columns).to_numpy(dtype=float)

    def classes(self, fit) -> np.ndarray:
        return fit.predict(self.frame, type="class").to_numpy(dtype=float)

    def flags(self, fit) -> tuple:
        """(no finite MLE, converged) of a refitted model (of its base model for tuned ones)."""
        src = getattr(fit, "base", None) or getattr(fit, "best_model", None) or fit
        converged = bool(getattr(src, "converged", True))
        infinite = bool(getattr(src, "separated", False))
        se, se0 = _model_se(src), self.se0
        penalty = getattr(getattr(src, "settings", None), "penalty", 0.0)
        penalised = bool(np.any(np.asarray(penalty if penalty is not None else 0.0) > 0))
        if not infinite and not penalised and se is not None and se0 is not None:
            common = se.index.intersection(se0.index)
            if not converged or suspect(se[common].to_numpy(), se0[common].to_numpy()):
                infinite = no_finite_mle(src.X, src.y, src.count_weights)
        return infinite, converged


def _model_se(results) -> pd.Series | None:
    """Model-based SEs (from the IRLS information) by term, for the maxent family; else None."""
    fit = getattr(results, "fit_", None)
    inv = getattr(fit, "xtwx_inv", None)
    names, aliased = getattr(results, "term_names", None), getattr(results, "aliased", None)
    if inv is None or names is None or aliased is None or not all(
            hasattr(results, a) for a in ("X", "y", "count_weights")):
        return None
    kept = [n for n, a in zip(names, aliased) if not a]
    if len(kept) != inv.shape[0]:
        return None
    return pd.Series(np.sqrt(np.clip(np.diag(inv), 0.0, None)), index=kept)


def _fmeasure_of(results):
    fm = getattr(results, "measure_", None)
    return fm if isinstance(fm, _m.FMeasure) else _m.FMeasure()


def _model_table(results, level: float):
    """The model's own coefficient table (for a thresholded classifier: its base model's)."""
    src = getattr(results, "base", results)
    tidy = getattr(src, "tidy", None)
    if tidy is None or "level" not in inspect.signature(tidy).parameters:
        return None
    return tidy(level=level)


def _default_statistic(results) -> pd.Series:
    """Coefficients plus the training F (the model's measure) of a fitted model."""
    f = pd.Series([float(results.measure())], index=[f"training {_fmeasure_of(results).name}"])
    return pd.concat([results.params.astype(float), f])


def _as_series(value) -> pd.Series:
    if isinstance(value, pd.Series):
        return value.astype(float)
    arr = np.atleast_1d(np.asarray(value, dtype=float))
    if arr.ndim != 1:
        raise InvalidArgumentError(f"`statistic` must return a scalar, a Series or a 1-d array; "
                                   f"got shape {arr.shape}.")
    return pd.Series(arr, index=["statistic"] if arr.size == 1 else
                     [f"statistic{i}" for i in range(arr.size)])


def _supports_weighted(results) -> bool:
    from .maxent import MaxentResults

    return (type(results) is MaxentResults and getattr(results, "fweights", None) is None
            and results.model in ("maxent", "umaxent"))


def _label_probabilities(results, frame, type_):
    """(q, trials, response columns) for labels_from_q; rejects certain 0/1 labels."""
    q = getattr(results, "y", None)
    trials = getattr(results, "trials", None)
    name = getattr(results, "response_name", "the response")
    if q is None:
        raise InvalidArgumentError(f"type={type_!r} needs the model's label probabilities q; "
                                   f"{type(results).__name__} does not expose them (`y`).")
    if np.all((q == 0) | (q == 1)):
        raise InvalidArgumentError(
            f"type='labels_from_q' draws each label from Bernoulli(q_i), but the response "
            f"{name!r} holds certain 0/1 labels, so every draw would equal the data. Use "
            "type='case' or 'stratified', or fit umaxent()/fmaxent() on probabilistic labels q "
            "or cbind(yes, no) votes.")
    if trials is not None and not np.all(trials == np.round(trials)):
        raise ResponseError("type='labels_from_q' with cbind(yes, no) draws Binomial(yes + no, "
                            "q) votes and needs whole-number counts.")
    cols = ()
    if frame is not None:
        from .formula import _parse_response

        kind, names, _ = _parse_response(results.spec.lhs, frame)
        if kind == "expr":
            raise InvalidArgumentError(
                f"type='labels_from_q' writes the drawn labels into the response column, but "
                f"the response {name!r} is an expression; make it a column of `data`.")
        cols = (kind, *names)
    return q, trials, cols


def _make_engine(results, *, type_, data, statistic, fast, columns=None):
    """The engine for ``results`` and whether it is the weighted fast path."""
    check_choice("type", type_, TYPES)
    if fast is not None and not isinstance(fast, (bool, np.bool_)):
        raise InvalidArgumentError(f"`fast` must be True, False or None (auto); got "
                                   f"{describe(fast)}.")
    can = _supports_weighted(results)
    if fast and not can:
        raise InvalidArgumentError(
            f"fast=True needs a maxent()/umaxent() fit (frequency weights); got "
            f"{type(results).__name__}{' (' + results.model + ')' if hasattr(results, 'model') else ''}.")
    if fast and statistic is not None:
        raise InvalidArgumentError("fast=True computes coefficients and the training F only; a "
                                   "callable `statistic` needs full refits: use fast=False.")
    use_fast = can and statistic is None and fast is not False
    frame = None if use_fast and data is None else training_frame(results, data)
    q = trials = None
    cols = ()
    if type_ == "labels_from_q":
        q, trials, cols = _label_probabilities(results, None if use_fast else frame, type_)
    y = getattr(results, "y", None)
    if y is None and frame is not None and hasattr(results, "spec"):
        y = results.spec.build_with_response(frame, missing="raise")[0].y
    n = len(frame) if frame is not None else int(results.nobs)
    strata = None
    if type_ == "stratified":
        if y is None:
            raise InvalidArgumentError(f"type='stratified' needs the training labels; "
                                       f"{type(results).__name__} does not expose them (`y`).")
        strata = (np.asarray(y) >= 0.5).astype(np.int8)
    trials = getattr(results, "trials", None) if trials is None else trials
    base = dict(n=n, type=type_, strata=strata, q=q, trials=trials)
    if use_fast:
        s = results.settings
        names = list(results.term_names)
        kept = [t for t, a in zip(names, results.aliased) if not a]
        pen = np.where(np.isin(kept, ["Intercept", "(Intercept)"]), 0.0, s.penalty)
        engine = _WeightedEngine(
            **base, X=results.X, y=results.y, prior=results.prior_weights,
            positions=np.flatnonzero(~results.aliased), n_terms=len(names), penalty=pen,
            tol=s.tol, max_iter=s.max_iter, threshold=results.threshold,
            fmeasure=_fmeasure_of(results),
            se0=_model_se(results).reindex(names).to_numpy(dtype=float))
        return engine, True
    w = array_weights(results)
    src = getattr(results, "base", None) or getattr(results, "best_model", None) or results
    return _RefitEngine(**base, results=results, se0=_model_se(src), frame=frame, weights=w, statistic=statistic,
                        columns=columns, response=cols), False



def _collect(raw: list, k: int) -> tuple[np.ndarray, list, dict]:
    """Stack replicate outputs; return (values, error texts, warning counts)."""
    values = np.full((len(raw), k), np.nan)
    errors, warned = [], {}
    for i, (v, err, ws) in enumerate(raw):
        if err is None:
            values[i] = v
        else:
            errors.append(err)
        for name in ws:
            warned[name] = warned.get(name, 0) + 1
    return values, errors, warned


def _report(what: str, total: int, errors: list, n_incomplete: int, warned: dict) -> None:
    """One ResamplingWarning summarising failed, incomplete and warning replicates."""
    parts = []
    if errors:
        parts.append(f"{len(errors)} of {total} {what} fits failed and are left out (first: "
                     f"{errors[0]})")
    if n_incomplete:
        parts.append(f"{n_incomplete} lack one or more terms (a factor level absent from the "
                     "resample, or an aliased column): those values are NaN and each term's "
                     "SE and CI use its remaining replicates")
    if warned:
        parts.append("replicate fits warned: " + ", ".join(f"{k} in {v}" for k, v in
                                                          sorted(warned.items())))
    if parts:
        warn(f"{what}: " + "; ".join(parts) + ". Consider merging sparse factor levels, a ridge "
             "`penalty=`, or type='stratified'.", ResamplingWarning)
    if errors and len(errors) == total:
        raise DataError(f"every {what} fit failed; the first error was: {errors[0]}")


# ============================================================================ entry point

def bootstrap(results, B: int = 1000, *, type: str = "case", statistic: Callable | None = None,
              ci: str = "percentile", level: float = 0.95, data: pd.DataFrame | None = None,
              jackknife: int | None = None, fast: bool | None = None,
              degenerate: str = "drop", n_jobs: int | None = None, random_state=None,
              progress=None) -> "BootstrapResults":
    """Bootstrap a fitted model: refit on B resamples, return replicates, SEs and CIs.

    Parameters
    ----------
    results : a fitted model speaking the results protocol (``refit``, ``params``,
        ``measure``), e.g. from ``maxent``, ``umaxent`` or ``fmaxent`` (whose whole outer
        loop is refitted).
    B : number of replicates (at least 2).
    type : ``"case"``, ``"stratified"`` (within classes) or ``"labels_from_q"`` (X kept,
        labels drawn from q; thesis §9.2).  See the module docstring.
    statistic : ``None`` (the coefficients and the training F of the model's measure) or a
        function of a fitted replicate returning a scalar, a Series or a 1-d array.
        Replicate values are aligned by name; missing terms are NaN.
    ci, level : the interval reported by ``summary()``/``tidy()``: ``"percentile"``,
        ``"basic"`` or ``"bca"`` (computes the jackknife); any other can be asked of
        :meth:`BootstrapResults.conf_int` later (BCa only if computed here).
    data : the training DataFrame; needed except on the fast path (results objects do not
        keep it).  It is checked against the stored response and design.
    jackknife : number of jackknife groups for BCa; default n up to ``JACKKNIFE_MAX`` rows,
        else ``JACKKNIFE_MAX`` random groups.
    fast : use the weighted refit of maxent/umaxent (``None``: whenever it applies, i.e. a
        maxent/umaxent fit and ``statistic=None``).
    degenerate : ``"drop"`` (default) or ``"keep"`` the replicates whose fit has no finite
        maximum-likelihood estimate (a (quasi-)separated resample: IRLS's separation flag,
        or standard errors ten times the original fit's confirmed by the linear programme
        of :mod:`fmstats._separation`) or did not converge.  Either way they are counted
        in ``summary()`` and a :class:`DegenerateReplicateWarning` says how many.  Dropping
        is the default because such a replicate's coefficients are not estimates but the
        point where the iterations stopped (an intercept of 21.7 at ``max_iter=25``, larger
        with more iterations), so keeping them makes the SE a function of the iteration
        limit (on Titanic with ``C(pclass) * sex``, 3 of 200 replicates turn the intercept's
        SE from 0.67 into 2.03); the price is SEs conditional on a finite estimate, which
        understate the instability that the warning reports (``rms::bootcov`` likewise
        leaves out fits that fail).  A ridge ``penalty=`` makes every estimate finite.
        With ``"drop"`` such a replicate is NaN in ``replicates`` (its indices are in
        ``degenerate_replicates``).
    n_jobs : joblib workers (``None``: joblib's default, 1 unless configured).
    random_state : seed; the same seed gives the same replicates whatever ``n_jobs``.
    progress : tqdm progress bar (``None``: only in interactive sessions).

    Returns
    -------
    BootstrapResults
    """
    check_scalar("B", B, low=2, integer=True)
    check_choice("ci", ci, CIS)
    check_choice("degenerate", degenerate, ("drop", "keep"))
    level = check_level(level)
    if statistic is not None and not callable(statistic):
        raise InvalidArgumentError(f"`statistic` must be None or a function of a fitted model; "
                                   f"got {describe(statistic)}.")
    if ci == "bca" and type == "labels_from_q":
        raise InvalidArgumentError("ci='bca' needs a jackknife over rows, which does not match "
                                   "type='labels_from_q' (labels, not rows, are resampled); use "
                                   "ci='percentile' or 'basic'.")
    t0 = _as_series(statistic(results) if statistic else _default_statistic(results))
    engine, is_fast = _make_engine(results, type_=type, data=data, statistic=statistic,
                                   fast=fast, columns=t0.index)
    seeds = spawn_seeds(random_state, int(B) + 1)
    raw, infinite, unconverged = split_flags(_run(engine, "stat", seeds[:-1], n_jobs, progress,
                                                  "bootstrap"))
    values, errors, warned = _collect(raw, len(t0))
    defined = np.isfinite(t0.to_numpy())
    ok = np.array([r[1] is None for r in raw])
    incomplete = int(np.sum(ok & np.any(~np.isfinite(values[:, defined]), axis=1)))
    _report("bootstrap", int(B), errors, incomplete, warned)
    # when the original fit did not converge either, its replicates are kept (and counted)
    bad = degenerate_replicates("bootstrap", values, infinite, unconverged, degenerate,
                                drop_unconverged=bool(getattr(results, "converged", True)))
    warn_all_nan(values, t0, errors)
    jack, groups = None, None
    if ci == "bca":
        jack, groups = _jackknife(engine, len(t0), jackknife, seeds[-1], n_jobs, progress,
                                  degenerate)
    reps = pd.DataFrame(values, columns=t0.index).rename_axis("replicate")
    tidy_model = _model_table(results, level)
    return BootstrapResults(
        replicates=reps, estimate=t0, jackknife=jack, jackknife_groups=groups, type=type,
        ci=ci, level=level, B=int(B), n=engine.n, fast=is_fast, n_failed=len(errors),
        n_incomplete=incomplete, replicate_warnings=warned, model_table=tidy_model,
        model_call=str(getattr(results, "call", results.__class__.__name__)),
        model_se_label=str(getattr(results, "cov_type", "model-based")),
        random_state=repr(random_state), seeds=tuple(seeds[:-1]),
        n_separated=int(infinite.sum()), n_nonconverged=int(unconverged.sum()),
        degenerate=degenerate, degenerate_replicates=tuple(int(i) for i in np.flatnonzero(bad)),
        draws=_Draws(n=engine.n, type=type, strata=engine.strata, q=engine.q,
                     trials=engine.trials))


def _jackknife(engine, k, groups, seed, n_jobs, progress, degenerate="drop"):
    """Leave-one-out (or leave-a-group-out) values of the statistic, for BCa."""
    n = engine.n
    g = min(n, JACKKNIFE_MAX) if groups is None else int(check_scalar(
        "jackknife", groups, low=2, high=n, integer=True))
    if g == n:
        items = [("drop", np.array([i])) for i in range(n)]
    else:
        label = np.random.default_rng(seed).permutation(n) % g
        order = np.argsort(label, kind="stable")
        items = [("drop", part) for part in np.split(order, np.cumsum(np.bincount(label))[:-1])]
    raw, infinite, unconverged = split_flags(_run(engine, "stat", items, n_jobs, progress,
                                                  "jackknife"))
    values, errors, warned = _collect(raw, k)
    _report("jackknife", len(items), errors, 0, warned)
    degenerate_replicates("jackknife", values, infinite, unconverged, degenerate)
    return values, g


# ============================================================================ results

class _BootSummary(Summary):
    """A Summary whose coefficient table holds bootstrap columns (no significance stars)."""

    def _coef_text_rows(self):
        t = self.coef_table
        header = ["", "Estimate", "Model SE", "Boot SE", "Bias", "Wald low", "Wald high",
                  "Boot low", "Boot high", ""]
        cols = ["estimate", "model_std_error", "std_error", "bias", "model_conf_low",
                "model_conf_high", "conf_low", "conf_high"]
        rows = [[str(r["term"])] + [("NA" if not np.isfinite(r[c]) else f"{r[c]:.5g}")
                                    for c in cols] + [""] for _, r in t.iterrows()]
        return header, rows

    def __str__(self) -> str:
        return super().__str__().replace("---\n" + SIGNIF_LEGEND + "\n", "")

    def _repr_html_(self) -> str:
        return super()._repr_html_().replace(SIGNIF_LEGEND, "")


@dataclass(frozen=True, eq=False)
class BootstrapResults(Persistable):
    """Replicates of a bootstrap (:func:`bootstrap`) with SEs, CIs, summary and plots.

    ``replicates`` is the B x k DataFrame (NaN where a replicate failed or lacked a term),
    ``estimate`` the statistic on the original fit, ``jackknife`` the jackknife values
    (BCa only).  Pickles.
    """

    replicates: pd.DataFrame
    estimate: pd.Series
    jackknife: np.ndarray | None
    jackknife_groups: int | None
    type: str
    ci: str
    level: float
    B: int
    n: int
    fast: bool
    n_failed: int
    n_incomplete: int
    replicate_warnings: dict = field(default_factory=dict)
    model_table: pd.DataFrame | None = None
    model_call: str = ""
    model_se_label: str = ""
    random_state: str = "None"
    seeds: tuple = field(default=(), repr=False)
    draws: _Draws | None = field(default=None, repr=False)
    n_separated: int = 0
    n_nonconverged: int = 0
    degenerate: str = "drop"
    degenerate_replicates: tuple = field(default=(), repr=False)

    def _item(self, replicate):
        check_scalar("replicate", replicate, low=0, high=self.B - 1, integer=True)
        return self.seeds[replicate]

    def counts(self, replicate: int) -> np.ndarray:
        """How often each training row appears in resample ``replicate`` (case, stratified)."""
        if self.type == "labels_from_q":
            raise InvalidArgumentError("type='labels_from_q' keeps the rows; see labels().")
        return self.draws.counts(self._item(replicate))

    def labels(self, replicate: int) -> np.ndarray:
        """The labels drawn for replicate ``replicate`` (type='labels_from_q'): 0/1 labels,
        or the drawn ``yes`` votes for a cbind(yes, no) response."""
        if self.type != "labels_from_q":
            raise InvalidArgumentError(f"labels() is for type='labels_from_q'; this bootstrap "
                                       f"is type={self.type!r}: see counts().")
        d = self.draws.draw(self._item(replicate))
        return d["labels"] if "labels" in d else d["yes"]

    @property
    def n_valid(self) -> pd.Series:
        """Finite replicates per term."""
        return self.replicates.notna().sum().rename("n_valid")

    @property
    def std_error(self) -> pd.Series:
        """Bootstrap standard errors (sd of the finite replicates, ddof = 1)."""
        return self.replicates.std(ddof=1).rename("std_error")

    @property
    def bias(self) -> pd.Series:
        """Mean of the replicates minus the original estimate."""
        return (self.replicates.mean() - self.estimate).rename("bias")

    def conf_int(self, ci: str | None = None, level: float | None = None) -> pd.DataFrame:
        """Bootstrap CIs, columns ``conf_low``, ``conf_high`` (default: the fit's ci, level)."""
        ci = self.ci if ci is None else check_choice("ci", ci, CIS)
        level = self.level if level is None else check_level(level)
        if ci == "bca" and self.jackknife is None:
            raise InvalidArgumentError("BCa intervals need the jackknife, which was not computed: "
                                       "rerun bootstrap(..., ci='bca').")
        rows = []
        for j, term in enumerate(self.replicates.columns):
            r, t0 = self.replicates[term].to_numpy(), float(self.estimate[term])
            if ci == "percentile":
                rows.append(percentile_interval(r, level))
            elif ci == "basic":
                rows.append(basic_interval(r, t0, level))
            else:
                rows.append(bca_interval(r, t0, self.jackknife[:, j], level))
        return pd.DataFrame(rows, index=self.replicates.columns, columns=["conf_low", "conf_high"])

    def tidy(self, ci: str | None = None, level: float | None = None) -> pd.DataFrame:
        """One row per term: estimate, bias, bootstrap SE and CI, beside the model's SE and
        Wald CI (``model_*`` columns; NaN for the training F)."""
        c = self.conf_int(ci, level)
        out = pd.DataFrame({"term": self.estimate.index.to_numpy(),
                            "estimate": self.estimate.to_numpy(),
                            "bias": self.bias.to_numpy(), "std_error": self.std_error.to_numpy(),
                            "conf_low": c["conf_low"].to_numpy(),
                            "conf_high": c["conf_high"].to_numpy(),
                            "n_valid": self.n_valid.to_numpy()})
        m = self.model_table
        if m is not None and (level is None or level == self.level):
            m = m.set_index("term")[["std_error", "conf_low", "conf_high"]].add_prefix("model_")
            out = out.join(m, on="term")
        else:
            out = out.assign(model_std_error=np.nan, model_conf_low=np.nan, model_conf_high=np.nan)
        return out

    def summary(self) -> Summary:
        """Coefficient table with bootstrap SE and CI beside the model's SE and Wald CI."""
        scheme = {"case": "case resampling (rows with replacement)",
                  "stratified": "rows with replacement within each class",
                  "labels_from_q": "X fixed, labels drawn from q (thesis §9.2)"}[self.type]
        lines = [("Resampling", scheme), ("Replicates", f"{self.B} (rows n = {self.n})"),
                 ("Failed replicates (left out)", self.n_failed),
                 ("Replicates lacking a term (NaN for it)", self.n_incomplete),
                 ("Replicates without a finite MLE (separated)", self.n_separated),
                 ("Replicates not converged", self.n_nonconverged)]
        if self.degenerate_replicates:
            lines.append(("Those replicates", "left out of SEs and CIs (degenerate='drop')"
                          if self.degenerate == "drop" else "kept in SEs and CIs "
                          "(degenerate='keep'): they inflate them"))
        lines += [("Bootstrap CI", f"{self.ci}, {100 * self.level:g}% level"
                  + (f"; jackknife with {self.jackknife_groups} groups"
                     if self.jackknife is not None else "")),
                 ("Refits", "weighted refit of the stored design (weights x resample counts)"
                  if self.fast else "full refits from the formula"),
                 ("Model SE and Wald CI", f"{self.model_se_label} covariance"),
                 ("random_state", self.random_state)]
        if self.replicate_warnings:
            lines.append(("Replicate warnings", ", ".join(
                f"{k} in {v}" for k, v in sorted(self.replicate_warnings.items()))))
        return _BootSummary(title="Bootstrap of a fitted model", call=self.model_call,
                            coef_table=self.tidy(), sections=[Section("Bootstrap:", lines)])

    def __repr__(self) -> str:
        return (f"<BootstrapResults {self.type}, B = {self.B}, {len(self.estimate)} statistics, "
                f"{self.n_failed} failed>")

    def plot(self, kind: str = "forest", terms=None, ax=None):
        """``"hist"``: a histogram of each term's replicates with the estimate and CI;
        ``"forest"``: bootstrap CI beside the model's Wald CI for every term."""
        from .plotting import _axes, _pyplot

        check_choice("kind", kind, ("forest", "hist"))
        terms = list(self.estimate.index if terms is None else terms)
        unknown = [t for t in terms if t not in self.estimate.index]
        if unknown:
            raise InvalidArgumentError(f"`terms` names unknown term(s) {unknown}; known: "
                                       f"{list(self.estimate.index)}.")
        tid = self.tidy().set_index("term").loc[terms]
        if kind == "forest":
            fig, ax = _axes(ax, figsize=(6.0, 0.45 * len(terms) + 1.2))
            y = np.arange(len(terms))[::-1]
            ax.hlines(y + 0.12, tid["conf_low"], tid["conf_high"], color="tab:blue",
                      label=f"bootstrap {self.ci} CI")
            ax.hlines(y - 0.12, tid["model_conf_low"], tid["model_conf_high"], color="tab:grey",
                      label="Wald CI (model)")
            ax.plot(tid["estimate"], y, "ko", ms=4, label="estimate")
            ax.set_yticks(y, terms)
            ax.axvline(0, color="lightgrey", lw=0.8, zorder=0)
            ax.legend(fontsize="small")
            fig.tight_layout()
            return fig
        plt = _pyplot()
        cols = min(3, len(terms))
        rows = math.ceil(len(terms) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.4 * rows), squeeze=False)
        for a, term in zip(axes.ravel(), terms):
            r = finite_values(self.replicates[term])
            a.hist(r, bins=min(50, max(10, r.size // 20)), color="tab:blue", alpha=0.7)
            a.axvline(tid.loc[term, "estimate"], color="black")
            for c in ("conf_low", "conf_high"):
                a.axvline(tid.loc[term, c], color="tab:red", linestyle="--")
            a.set_title(term, fontsize="small")
        for a in axes.ravel()[len(terms):]:
            a.set_visible(False)
        fig.tight_layout()
        return fig
