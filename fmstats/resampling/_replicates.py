"""The replicate engines of the bootstrap: draws, refits, parallel runs, failure reports.

Used by :mod:`fmstats.resampling._bootstrap` (replicates of a statistic, the jackknife) and
:mod:`fmstats.resampling._validate` (replicates of the class predictions).  See
:func:`fmstats.bootstrap` for the resampling schemes and the weighted fast path
of maxent/umaxent fits.  Replicates are computed in chunks by module-level workers
through joblib (so ``joblib.parallel_config(backend="dask")`` works unchanged); every
replicate has its own seed, so results do not depend on ``n_jobs``.
"""
from __future__ import annotations

from collections.abc import Mapping

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import expit

from .. import measures as _m
from ..formula import DesignMatrix
from .._utils.parallel import check_n_jobs, run_tasks
from .._utils.progress import progress_enabled
from ..resampling._separation import no_finite_mle, suspect
from ..model_selection import array_weights, training_design, training_frame
from .._utils.validation import check_choice, describe, warn
from ..exceptions import DataError, InvalidArgumentError, ResamplingWarning, ResponseError
from ..results import predict_kept

__all__ = ["TYPES", "Draws", "run", "collect", "report", "make_engine", "default_statistic",
           "as_series", "fmeasure_of"]

TYPES = ("case", "stratified", "labels_from_q")


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

    if not getattr(engine, "one_blas_thread", False):
        return [_guarded(one, item) for item in items]
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return [_guarded(one, item) for item in items]


def run(engine, job: str, items: list, n_jobs, progress, desc: str) -> list:
    """All replicates through :func:`fmstats._utils.parallel.run_tasks`, in task order."""
    from joblib import effective_n_jobs

    jobs = max(1, effective_n_jobs(check_n_jobs(n_jobs)))
    # in one process chunks only feed the progress bar
    n_chunks = min(len(items), (50 if progress_enabled(progress) else 1) if jobs == 1
                   else 8 * jobs)
    bounds = np.linspace(0, len(items), n_chunks + 1).round().astype(int)
    tasks = [(engine, job, items[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    out = run_tasks(_run_chunk, tasks, n_jobs=n_jobs, progress=progress,
                    desc=f"{desc} ({len(items)} fits in {len(tasks)} chunks)")
    return [r for chunk in out for r in chunk]


@dataclass(frozen=True)
class Draws:
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
    from ..glm.irls import independent_columns

    d = np.diag(G)
    if np.all(d > 0):
        try:
            L = np.linalg.cholesky(G)
        except np.linalg.LinAlgError:
            L = None
        if L is not None and np.all(np.diag(L) ** 2 > tol ** 2 * d):
            return np.ones(G.shape[0], dtype=bool)
    return independent_columns(G, tol)


def _resampled(engine, draw: dict):
    """(X, y, w, offset, kept columns, X of the kept columns) of a replicate: the stored
    design's rows with count weights times the resample counts (case and stratified
    draws), or its labels redrawn from q (labels_from_q)."""
    from ..glm.irls import rank_gram

    w = engine.prior if engine.trials is None else engine.prior * engine.trials
    X, y, off = engine.X, engine.y, engine.offset
    if "idx" in draw:
        c = np.bincount(draw["idx"], minlength=engine.n)
        rows = np.flatnonzero(c)      # np.take: several times faster than a boolean mask
        X = X[rows] if sparse.issparse(X) else np.take(X, rows, axis=0)
        y, w = y[rows], w[rows] * c[rows]
        off = None if off is None else off[rows]
    elif "labels" in draw:
        y = draw["labels"]
    else:
        y = np.where(engine.trials > 0, draw["yes"] / np.where(engine.trials > 0,
                                                               engine.trials, 1), 0.0)
    active = w > 0
    if np.all(y[active] == 0) or np.all(y[active] == 1):
        raise ResponseError("the resample has a single class; a classifier needs both.")
    keep = _independent(rank_gram(X, w))   # centred/scaled when X has offset columns
    Xk = X if keep.all() else (X[:, np.flatnonzero(keep)] if sparse.issparse(X)
                               else np.ascontiguousarray(X[:, keep]))
    return X, y, w, off, keep, Xk


def _training_f(fmeasure, y, w, eta, threshold) -> float:
    """The F of a replicate's predicted classes on its own rows (fractional counts for q)."""
    pred = (expit(eta) >= threshold).astype(float)
    tp, pos, truth = w @ (y * pred), w @ pred, w @ y
    return float(fmeasure.from_counts(tp, pos - tp, truth - tp))


@dataclass(frozen=True)
class _WeightedEngine(Draws):
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
    offset: np.ndarray | None = None  # the fit's offset (eta = X b + offset)

    def fit(self, draw: dict):
        from ..glm.irls import irls_logit

        X, y, w, off, keep, Xk = _resampled(self, draw)
        fit = irls_logit(Xk, y, w, penalty=self.penalty[keep], tol=self.tol,
                         max_iter=self.max_iter, warn=False, offset=off)
        se = np.sqrt(np.clip(np.diag(fit.xtwx_inv), 0.0, None))
        # a ridge penalty makes every estimate finite: only unpenalised fits are tested
        infinite = fit.separated or (not np.any(self.penalty[keep] > 0) and (
            not fit.converged or suspect(se, self.se0[self.positions[keep]]))
            and no_finite_mle(Xk, y, w))
        coef = np.zeros(X.shape[1])
        coef[keep] = fit.coef               # aliased columns predict as 0, as R does
        f = _training_f(self.fmeasure, y, w, fit.eta, self.threshold)
        full = np.full(self.n_terms, np.nan)
        full[self.positions[keep]] = fit.coef
        return full, coef, f, (bool(infinite), bool(fit.converged))

    def flags(self, fit) -> tuple:
        return fit[3]

    def stat(self, fit, draw) -> np.ndarray:
        return np.append(fit[0], fit[2])

    def classes(self, fit) -> np.ndarray:
        eta = self.X @ fit[1]
        return (expit(eta if self.offset is None else eta + self.offset)
                >= self.threshold).astype(float)


@dataclass(frozen=True)
class _FMaxentEngine(_WeightedEngine):
    """fmaxent: the whole outer loop (baseline fit, F-reweighting, shrinkage recomputed on the
    replicate's rows) on the stored design with weights times resample counts.

    The same numbers as ``results.refit`` on the resampled rows, without rebuilding a
    design, a call and a results object per replicate.
    """

    loop: dict = None                # the outer loop's settings (FMaxentResults.outer_settings)
    shrinkage: float = 0.0
    one_blas_thread = True           # many small refits: one BLAS thread each (DESIGN §7)

    def fit(self, draw: dict):
        from ..glm.fweights import standardised_ridge
        from ..glm.outer import outer_loop
        from ..glm.rowsource import ArraySource

        X, y, w, _, keep, Xk = _resampled(self, draw)
        src = ArraySource(Xk, y, w, self.threshold)
        total, var = src.column_variances()
        pen = self.penalty[keep] + standardised_ridge(total, var, self.shrinkage)
        start = src.baseline(pen, self.tol, self.max_iter)
        out = outer_loop(src, start, penalty=pen, tol=self.tol, max_iter=self.max_iter,
                         **self.loop)
        # as the model's flags: a ridge keeps every estimate finite; "converged" is that of
        # the final evaluation (the outer loop's own stop is part of the estimator)
        penalised = bool(self.shrinkage > 0 or np.any(self.penalty > 0))
        infinite = (not penalised) and bool(src.evaluate(out.fweights, out.coef, pen).separated)
        coef = np.zeros(X.shape[1])
        coef[keep] = out.coef
        f = _training_f(self.fmeasure, y, w, Xk @ out.coef, self.threshold)
        full = np.full(self.n_terms, np.nan)
        full[self.positions[keep]] = out.coef
        return full, coef, f, (infinite, True)


@dataclass(frozen=True)
class _RefitEngine(Draws):
    """Any model: ``results.refit`` on the resampled training frame."""

    results: Any = None
    se0: pd.Series | None = None         # the original fit's model-based SEs by term
    frame: pd.DataFrame = None
    weights: np.ndarray | None = None    # array prior weights (refit needs them again)
    statistic: Callable | None = None
    columns: pd.Index = None
    response: tuple = ()                 # ("column", name) or ("cbind", yes, no)
    design: DesignMatrix = None          # the design of ``frame``, built once
    row_offset: np.ndarray | None = None  # an offset given as an array (per training row)
    row_args: tuple = ()                 # arguments the call recorded per row (subset, offset)

    def fit(self, draw: dict):
        if self.frame is None:               # no data: refit on rows the model kept
            return self._fit_kept(draw)
        w = self.weights
        kwargs = {} if w is None else {"weights": w}
        kwargs.update({a: None for a in self.row_args})
        if self.row_offset is not None:
            kwargs["offset"] = (self.row_offset if "idx" not in draw
                                else self.row_offset[np.sort(draw["idx"])])
        if "idx" in draw:
            # rows in training order: a replicate depends on the counts only, not on the
            # order of the draws (which matters to order-dependent refits such as CV folds)
            idx = np.sort(draw["idx"])
            if w is not None:
                kwargs["weights"] = w[idx]
            # the rows carry the design built once (DesignRows)
            return self.results.refit(self.design.subset(idx, reset_index=True), **kwargs)
        sub = self.frame.copy()
        if "labels" in draw:
            sub[self.response[1]] = draw["labels"]
        else:
            sub[self.response[1]] = draw["yes"]
            sub[self.response[2]] = self.trials - draw["yes"]
        if set(self.response[1:]) & set(self.design_columns):
            return self.results.refit(sub, **kwargs)      # the design uses the labels
        return self.results.refit(self.design.subset(np.arange(self.n), frame=sub), **kwargs)

    def _fit_kept(self, draw: dict):
        """The refit on :class:`~fmstats.formula.KeptRows` of the model (no DataFrame)."""
        from ..formula import KeptRows

        w = self.weights
        kwargs = {a: None for a in self.row_args}
        if "idx" in draw:
            idx = np.sort(draw["idx"])
            rows = KeptRows(self.results, idx)
            w = None if w is None else w[idx]
        elif "labels" in draw:
            rows = KeptRows(self.results, np.arange(self.n), y=draw["labels"])
        else:
            rows = KeptRows(self.results, np.arange(self.n), y=np.where(
                self.trials > 0, draw["yes"] / np.where(self.trials > 0, self.trials, 1), 0.0))
        if w is not None:
            kwargs["weights"] = w
        return self.results.refit(rows, **kwargs)

    @property
    def design_columns(self) -> tuple:
        spec = self.design.spec
        return () if spec is None else spec.variables

    def stat(self, fit, draw) -> np.ndarray:
        s = as_series(self.statistic(fit) if self.statistic else default_statistic(fit))
        extra = s.index.difference(self.columns)
        if len(extra):
            raise DataError(f"the replicate has term(s) {', '.join(map(str, extra[:3]))} "
                            "that the original fit does not have; it cannot be aligned.")
        return s.reindex(self.columns).to_numpy(dtype=float)

    def classes(self, fit) -> np.ndarray:
        if self.frame is None:
            raise InvalidArgumentError("validate() needs `data=`, the DataFrame the model was "
                                       "fitted on, to class its rows with each replicate.")
        rows = self.design.subset(np.arange(self.n), frame=self.frame)
        return predict_kept(fit, rows, type="class").to_numpy(dtype=float)

    def flags(self, fit) -> tuple:
        """(no finite MLE, converged) of a refitted model (of its base model for tuned ones)."""
        src = getattr(fit, "base", None) or getattr(fit, "best_model", None) or fit
        converged = bool(getattr(src, "converged", True))
        penalised = getattr(src, "penalised", None)     # the model knows its own ridge
        if penalised is None:
            settings = getattr(src, "settings", None)
            penalty = settings.get("penalty", 0.0) if isinstance(settings, Mapping) else 0.0
            penalised = np.any(np.asarray(penalty if penalty is not None else 0.0) > 0)
        penalised = bool(penalised)
        # a ridge keeps every estimate finite, however sharp the fitted probabilities
        infinite = bool(getattr(src, "separated", False)) and not penalised
        se, se0 = _model_se(src), self.se0
        if not infinite and not penalised and se is not None and se0 is not None:
            common = se.index.intersection(se0.index)
            if not converged or suspect(se[common].to_numpy(), se0[common].to_numpy()):
                # the exact test needs the design; a keep_data=False replicate keeps the
                # screen's verdict
                infinite = (no_finite_mle(src.X, src.y, src.count_weights)
                            if getattr(src, "X", None) is not None else True)
        return infinite, converged


def _model_se(results) -> pd.Series | None:
    """Model-based SEs (from the IRLS information) by term, for the maxent family; else None."""
    fit = getattr(results, "core_fit", None)
    inv = getattr(fit, "xtwx_inv", None)
    names, aliased = getattr(results, "term_names", None), getattr(results, "aliased", None)
    if inv is None or names is None or aliased is None or not all(
            hasattr(results, a) for a in ("X", "y", "count_weights")):
        return None
    kept = [n for n, a in zip(names, aliased) if not a]
    if len(kept) != inv.shape[0]:
        return None
    return pd.Series(np.sqrt(np.clip(np.diag(inv), 0.0, None)), index=kept)


def fmeasure_of(results):
    fm = getattr(results, "fmeasure", None)
    return fm if isinstance(fm, _m.FMeasure) else _m.FMeasure()



def default_statistic(results) -> pd.Series:
    """Coefficients plus the training F (the model's measure) of a fitted model."""
    f = pd.Series([float(results.measure())], index=[f"training {fmeasure_of(results).name}"])
    return pd.concat([results.params.astype(float), f])


def as_series(value) -> pd.Series:
    """A statistic's value as a float Series (named ``statistic``, ``statistic0``, ...)."""
    rule = ("`statistic` must return numbers: a scalar, a Series or a 1-d array of them; "
            f"it returned {describe(value)}")
    try:
        if isinstance(value, pd.Series):
            return value.astype(float)
        arr = np.atleast_1d(np.asarray(value, dtype=float))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{rule} ({exc}).") from None
    if arr.ndim != 1:
        raise InvalidArgumentError(f"`statistic` must return a scalar, a Series or a 1-d array; "
                                   f"got shape {arr.shape}.")
    return pd.Series(arr, index=["statistic"] if arr.size == 1 else
                     [f"statistic{i}" for i in range(arr.size)])


def _outer_settings(results) -> dict | None:
    """The outer loop's settings of an fmaxent fit that keeps its design (its replicates run
    on arrays: :class:`_FMaxentEngine`), else None."""
    fn = getattr(results, "outer_settings", None)
    return fn() if callable(fn) else None


def _supports_weighted(results) -> bool:
    """Whether the model says its replicates are frequency-weighted refits of its own rows
    (``supports_weighted_bootstrap``: maxent and umaxent fits that keep their design)."""
    return bool(getattr(results, "supports_weighted_bootstrap", False))


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
        from ..formula import parse_response

        kind, names, _ = parse_response(results.spec.lhs, frame)
        if kind == "expr":
            raise InvalidArgumentError(
                f"type='labels_from_q' writes the drawn labels into the response column, but "
                f"the response {name!r} is an expression; make it a column of `data`.")
        cols = (kind, *names)
    return q, trials, cols


def make_engine(results, *, type_, data, statistic, fast, columns=None, reuse_design=True):
    """The engine for ``results`` and whether it is the weighted fast path."""
    check_choice("type", type_, TYPES)
    if fast is not None and not isinstance(fast, (bool, np.bool_)):
        raise InvalidArgumentError(f"`fast` must be True, False or None (auto); got "
                                   f"{describe(fast)}.")
    loop = _outer_settings(results)
    can = _supports_weighted(results) or loop is not None
    if fast and not can:
        raise InvalidArgumentError(
            f"fast=True needs a maxent()/umaxent()/fmaxent() fit that keeps its design in "
            f"memory (frequency weights); got "
            f"{type(results).__name__}{' (' + results.model + ')' if hasattr(results, 'model') else ''}.")
    if fast and statistic is not None:
        raise InvalidArgumentError("fast=True computes coefficients and the training F only; a "
                                   "callable `statistic` needs full refits: use fast=False.")
    use_fast = can and statistic is None and fast is not False
    frame = design = None
    if use_fast:
        frame = None if data is None else training_frame(results, data)
    elif data is None and _keeps_rows(results):
        pass                       # refits on the rows the model kept (KeptRows)
    else:
        frame, design = training_design(results, data, reuse=reuse_design)
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
        pen = np.where(np.isin(kept, ["Intercept", "(Intercept)"]), 0.0, s["penalty"])
        common = dict(
            **base, X=results.X, y=results.y, prior=results.prior_weights,
            positions=np.flatnonzero(~results.aliased), n_terms=len(names), penalty=pen,
            tol=s["tol"], max_iter=s["max_iter"], threshold=results.threshold,
            fmeasure=fmeasure_of(results), offset=getattr(results.training, "offset", None),
            se0=_model_se(results).reindex(names).to_numpy(dtype=float))
        if loop is not None:
            return _FMaxentEngine(**common, loop=loop, shrinkage=s["shrinkage"]), True
        return _WeightedEngine(**common), True
    w = array_weights(results)
    src = getattr(results, "base", None) or getattr(results, "best_model", None) or results
    row_args, row_offset = _row_arguments(results, kept=frame is None)
    return _RefitEngine(**base, results=results, se0=_model_se(src), frame=frame, weights=w,
                        statistic=statistic, columns=columns, response=cols,
                        design=design, row_offset=row_offset, row_args=row_args), False


def _keeps_rows(results) -> bool:
    """Whether ``results`` refits on the rows it kept (:class:`~fmstats.formula.KeptRows`):
    maxent-family fits in memory with their design, and the SVMs."""
    return (bool(getattr(results, "refits_kept_rows", False))
            and getattr(results, "X", None) is not None)


def _row_arguments(results, kept: bool):
    """(the arguments a refit on training rows sets to None, an offset array to index): a
    subset given as a mask was applied already (the rows are the model's); an offset given
    as an array is the training rows' (the kept rows carry it themselves)."""
    from .._utils.call import RowArgument

    call = getattr(results, "call", None)
    args = getattr(call, "arguments", {}) if call is not None else {}
    names = tuple(a for a in ("subset", "offset") if isinstance(args.get(a), RowArgument))
    if "subset" not in names and isinstance(args.get("subset"), str):
        names += ("subset",)
    offset = None
    if "offset" in names and not kept:
        names = tuple(a for a in names if a != "offset")
        offset = getattr(getattr(results, "training", None), "offset", None)
    return names, offset



def collect(raw: list, k: int) -> tuple[np.ndarray, list, dict]:
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


def report(what: str, total: int, errors: list, n_incomplete: int, warned: dict) -> None:
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
