"""The replicate engines of the bootstrap: draws, refits, parallel runs, failure reports.

Used by ``_bootstrap.py`` (replicates of a statistic, the jackknife) and
``_validate.py`` (replicates of the class predictions).  See
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

from .. import measures as _m
from ..formula import DesignMatrix, KeptDesign
from .._utils.parallel import check_n_jobs, run_tasks
from .._utils.progress import progress_enabled
from ..resampling._separation import no_finite_mle, suspect
from ..results import (TrainingRows, keeps_training_rows, rows_of, training_design,
                       training_frame)
from ..results import ModelResults
from .._utils.rowrng import poisson_counts, replicate_keys
from .._utils.validation import check_choice, describe, warn
from ..exceptions import DataError, InvalidArgumentError, ResamplingWarning, ResponseError
from ..results import predict_kept

__all__ = ["TYPES", "Draws", "run", "collect", "report", "make_engine", "default_statistic",
           "as_series", "fmeasure_of", "unpack", "RowsEngine", "replicate_block",
           "PoissonDraws", "BlockEngine", "block_engine", "RefitEngine",
           "model_call_of"]

TYPES = ("case", "stratified", "labels_from_q")
#: Entries (rows x replicates) of a block of replicates refitted together on the fit's own
#: design: blocks of n rows hold ``replicate_block(n)`` replicates (at least 20, at most 500),
#: and runs of replicates start at multiples of it, so blocks do not depend on ``n_jobs`` or on
#: the stop rule's rounds.
BLOCK_ENTRIES = 2 ** 18


def replicate_block(n: int) -> int:
    """Replicates per block for a design of ``n`` rows (see :data:`BLOCK_ENTRIES`): many at
    once where rows are few (the per-call overhead of a block is then most of its cost), 20
    where they are many."""
    return int(min(500, max(20, BLOCK_ENTRIES // max(n, 1))))


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
    loop reading them costs more CPU than on private memory
    (``benchmarks/speed/bench_resampling.py``).  One copy per chunk is cheap by comparison.
    """
    if not dataclasses.is_dataclass(engine):
        return engine
    maps = {f.name: np.array(v) for f in dataclasses.fields(engine)
            if isinstance(v := getattr(engine, f.name), np.memmap)}
    return dataclasses.replace(engine, **maps) if maps else engine


def _run_chunk(engine, job: str, items: list) -> list:
    """Worker: one chunk of replicates (``items``: seeds, or ("drop", positions))."""
    engine = _plain_arrays(engine)
    if isinstance(engine, RowsEngine):
        return engine._block(items, job)

    def one(item):
        draw = engine.draw(item)
        fit = engine.fit(draw)
        if job == "stat":   # with the (no finite MLE, converged) flags of the replicate fit
            return engine.stat(fit, draw), engine.flags(fit)
        return engine.classes(fit)

    return [_guarded(one, item) for item in items]


def run(engine, job: str, items: list, n_jobs, progress, desc: str) -> list:
    """All replicates through ``run_tasks``, in task order (out
    of core: all at once, each pass over the row blocks updating every replicate)."""
    from joblib import effective_n_jobs

    if isinstance(engine, BlockEngine):
        return engine._block(items, job, progress)

    jobs = max(1, effective_n_jobs(check_n_jobs(n_jobs)))
    rows = isinstance(engine, RowsEngine)
    if rows:
        # refits on the fit's own design: blocks of replicate_block(n) replicates, the same
        # blocks whatever n_jobs (a replicate's numbers may depend on its block's width in the
        # last bit), side by side in threads (their matrix products and element-wise passes
        # release the GIL, and threads share the design instead of copying it)
        bounds = np.r_[np.arange(0, len(items), replicate_block(engine.n)), len(items)]
    else:
        # in one process chunks only feed the progress bar
        n_chunks = min(len(items), (50 if progress_enabled(progress) else 1) if jobs == 1
                       else 8 * jobs)
        bounds = np.linspace(0, len(items), n_chunks + 1).round().astype(int)
    tasks = [(engine, job, items[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    out = run_tasks(_run_chunk, tasks, n_jobs=n_jobs, progress=progress,
                    desc=f"{desc} ({len(items)} fits in {len(tasks)} chunks)",
                    backend="threading" if rows and jobs > 1 else None)
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


@dataclass(frozen=True)
class RowsEngine(Draws):
    """maxent, umaxent, fmaxent: refits on the fit's own design with frequency weights, many
    at once (the engine the results hand out: ``results.row_refits()``).

    Case and stratified draws are multiplicities of the rows (the resample counts); draws of
    labels from q change the response and are refitted in full, one by one.
    """

    refits: Any = None
    replicates: str = "kstep"
    k: int = 8
    step_tol: float = 0.01
    linear: np.ndarray | None = None    # influence rows: the covariance's control variate

    def _block(self, items: list, job: str) -> list:
        draws = [self.draw(item) for item in items]
        rows = [d for d in draws if "idx" in d]
        out = [None] * len(items)
        if rows:
            which = [i for i, d in enumerate(draws) if "idx" in d]
            mult = np.empty((self.n, len(rows)))
            for j, d in enumerate(rows):
                mult[:, j] = np.bincount(d["idx"], minlength=self.n)
            fits = self.refits.fit(mult, replicates=self.replicates, k=self.k,
                                   step_tol=self.step_tol, training_f=job == "stat")
            lin = None
            if job == "stat" and self.linear is not None:
                lin = (mult - 1.0).T @ self.linear / self.n
            for j, i in enumerate(which):
                out[i] = self._value(fits, j, job, None if lin is None else lin[j])
        for i, d in enumerate(draws):
            if out[i] is None:
                out[i] = _guarded(self._labels_fit, d, job)
        return out

    def _value(self, fits, j: int, job: str, lin):
        if job == "stat" or (fits.errors and fits.errors[j] is not None):
            return _stat_value(fits, j, lin)
        return self._classes(fits.design_coef[j]), None, ()

    def _classes(self, design_coef) -> np.ndarray:
        s = self.refits.scores(design_coef[None, :])[:, 0]
        return (s >= self.refits.threshold).astype(float)

    def _labels_fit(self, draw: dict, job: str):
        y = draw["labels"] if "labels" in draw else np.where(
            self.trials > 0, draw["yes"] / np.where(self.trials > 0, self.trials, 1), 0.0)
        design, coef, f, infinite, conv = self.refits.full_fit(np.ones(self.n), y=y)
        if job == "stat":
            return np.append(coef, f), (infinite, conv, True), None
        return self._classes(design)


def _stat_value(fits, j: int, lin):
    """A replicate's output (value, error text, warnings) for the statistic job: its
    coefficients and training F with its (no finite MLE, converged, refitted in full) flags
    and linear part."""
    if fits.errors and fits.errors[j] is not None:
        return None, f"{type(fits.errors[j]).__name__}: {fits.errors[j]}", ()
    flags = (bool(fits.infinite[j]), bool(fits.converged[j]), bool(fits.full[j]))
    return (np.append(fits.coef[j], fits.training_f[j]), flags, lin), None, ()


@dataclass(frozen=True)
class PoissonDraws:
    """The Poisson(1) frequency weights of the out-of-core bootstrap, as the client can
    redraw them: ``counts(seed)`` gives every row's count (a function of the replicate's seed
    and the row's global position only, ``fmstats/_utils/rowrng.py``)."""

    n: int
    type: str = "poisson"
    strata: None = None
    q: None = None
    trials: None = None

    def counts(self, item) -> np.ndarray:
        return poisson_counts(replicate_keys([item]), np.arange(self.n))[:, 0]


@dataclass(frozen=True)
class BlockEngine(PoissonDraws):
    """Out of core: the Poisson bootstrap on an out-of-core fit's row blocks
    (``results.row_refits(data)``, ``fmstats/maxent_models/_oocrefits.py``): each replicate
    weights every row by a Poisson(1) count drawn on its block from the replicate's seed and
    the row's global position (so the partitioning does not matter), and every pass over the
    blocks updates all replicates of a round at once.  The replicates differ from the
    in-memory bootstrap's multinomial counts, not in distribution to first order (Hanley &
    MacGibbon 2006; Chamandy et al. 2012): the standard errors agree within Monte-Carlo
    error."""

    refits: Any = None
    replicates: str = "kstep"
    k: int = 8
    step_tol: float = 0.01
    control: bool = False

    def linear_cov(self):
        """The exact covariance of the replicates' linear parts (the control variate), or
        None without it."""
        return self.refits.linear_cov() if self.control else None

    def _block(self, items: list, job: str, progress=None) -> list:
        if job != "stat":          # pragma: no cover - validate() has its own out-of-core path
            raise InvalidArgumentError(f"out-of-core replicates compute statistics, not {job}")
        fits, lin = self.refits.fit_draws(
            self.refits.poisson_draws(items), replicates=self.replicates, k=self.k,
            step_tol=self.step_tol, linear=self.control, progress=progress, desc="bootstrap")
        return [_stat_value(fits, j, None if lin is None else lin[j])
                for j in range(len(items))]


def block_engine(refits, *, type_, statistic, fast, replicates, k, control) -> BlockEngine:
    """The engine of an out-of-core fit (its refits run on the row blocks), after the checks
    of what it cannot do."""
    if type_ != "case":
        raise InvalidArgumentError(
            f"type={type_!r} is not available for a model fitted out of core: its bootstrap "
            "weights the rows by Poisson(1) counts drawn on the row blocks (type='case').")
    if statistic is not None or fast is False:
        raise InvalidArgumentError(
            "a model fitted out of core is bootstrapped by refits on its row blocks, which "
            "compute the coefficients and the training F: `statistic` and fast=False need "
            "refits through the formula on resampled rows, which an out-of-core fit cannot "
            "gather.")
    return BlockEngine(n=refits.n, refits=refits, replicates=replicates, k=int(k),
                       control=bool(control))


@dataclass(frozen=True)
class RefitEngine(Draws):
    """Any model: refits through the results protocol on the resampled training rows
    (``results.refit(rows=...)``, :class:`fmstats.results.TrainingRows`)."""

    results: Any = None
    se0: pd.Series | None = None         # the original fit's model-based SEs by term
    frame: pd.DataFrame = None           # the training frame (None: the rows the fit kept)
    statistic: Callable | None = None
    columns: pd.Index = None
    response: tuple = ()                 # ("column", name) or ("cbind", yes, no)
    design: DesignMatrix = None          # the design of ``frame``, built once
    rows: TrainingRows = None            # the training rows every refit takes rows of

    def fit(self, draw: dict):
        if "idx" in draw:
            # rows in training order: a replicate depends on the counts only, not on the
            # order of the draws (which matters to order-dependent refits such as CV folds)
            return self.rows.refit(np.sort(draw["idx"]), reset_index=True)
        if self.frame is None:               # the rows the model kept, with drawn labels
            y = draw["labels"] if "labels" in draw else np.where(
                self.trials > 0, draw["yes"] / np.where(self.trials > 0, self.trials, 1), 0.0)
            return self.rows.refit(y=y)
        sub = self.frame.copy()
        if "labels" in draw:
            sub[self.response[1]] = draw["labels"]
        else:
            sub[self.response[1]] = draw["yes"]
            sub[self.response[2]] = self.trials - draw["yes"]
        if set(self.response[1:]) & set(self.design_columns):
            return TrainingRows(self.results, sub).refit()     # the design uses the labels
        return self.rows.refit(frame=sub)

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
        src = rows_of(rows_of(fit).fitted_model)
        converged = bool(src.converged)
        penalised = src.penalised                       # the model knows its own ridge
        if penalised is None:
            settings = src.settings
            penalty = settings.get("penalty", 0.0) if isinstance(settings, Mapping) else 0.0
            penalised = np.any(np.asarray(penalty if penalty is not None else 0.0) > 0)
        penalised = bool(penalised)
        # a ridge keeps every estimate finite, however sharp the fitted probabilities
        infinite = bool(src.separated) and not penalised
        se, se0 = src.information_se(), self.se0
        if not infinite and not penalised and se is not None and se0 is not None:
            common = se.index.intersection(se0.index)
            if not converged or suspect(se[common].to_numpy(), se0[common].to_numpy()):
                # the exact test needs the design; a keep_data=False replicate keeps the
                # screen's verdict
                infinite = (no_finite_mle(src.X, src.y, src.count_weights)
                            if src.X is not None else True)
        return infinite, converged


def model_call_of(results):
    """The recorded call of the model resampled ("" for an object that records none)."""
    call = rows_of(results).call
    return "" if call is None else call


def fmeasure_of(results):
    fm = rows_of(results).fmeasure
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


def _label_probabilities(results, frame, type_):
    """(q, trials, response columns) for labels_from_q; rejects certain 0/1 labels."""
    rows = rows_of(results)
    q, trials = rows.y, rows.trials
    name = rows.response_name
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

        kind, names, _ = parse_response(rows.spec.lhs, frame)
        if kind == "expr":
            raise InvalidArgumentError(
                f"type='labels_from_q' writes the drawn labels into the response column, but "
                f"the response {name!r} is an expression; make it a column of `data`.")
        cols = (kind, *names)
    return q, trials, cols


def make_engine(results, *, type_, data, statistic, fast, columns=None, reuse_design=True,
                replicates="kstep", k=8, control=False):
    """The engine for ``results`` and whether it is the weighted fast path (refits on the
    fit's own design: ``results.row_refits()``; ``control`` also computes the influence rows
    that the covariance uses as a control variate)."""
    check_choice("type", type_, TYPES)
    if fast is not None and not isinstance(fast, (bool, np.bool_)):
        raise InvalidArgumentError(f"`fast` must be True, False or None (auto); got "
                                   f"{describe(fast)}.")
    refits = results.row_refits(data) if isinstance(results, ModelResults) else None
    if refits is not None and refits.out_of_core:
        return block_engine(refits, type_=type_, statistic=statistic, fast=fast,
                            replicates=replicates, k=k, control=control), True
    can = refits is not None
    call = rows_of(results).call
    if fast and not can:
        raise InvalidArgumentError(
            f"fast=True needs a maxent()/umaxent()/fmaxent() fit that keeps its design in "
            f"memory (frequency weights); got "
            f"{type(results).__name__}{'' if call is None else ' (' + call.name + ')'}.")
    if fast and statistic is not None:
        raise InvalidArgumentError("fast=True computes coefficients and the training F only; a "
                                   "callable `statistic` needs full refits: use fast=False.")
    use_fast = can and statistic is None and fast is not False
    frame = design = None
    if use_fast:
        frame = None if data is None else training_frame(results, data)
    elif data is None and keeps_training_rows(results):
        pass                       # refits on the rows the model kept (KeptRows)
    else:
        frame, design = training_design(results, data, reuse=reuse_design)
    q = trials = None
    cols = ()
    if type_ == "labels_from_q":
        q, trials, cols = _label_probabilities(results, None if use_fast else frame, type_)
    rows = rows_of(results)
    y = rows.y
    if y is None and frame is not None and rows.spec is not None:
        y = rows.spec.build_with_response(frame, missing="raise")[0].y
    n = len(frame) if frame is not None else int(results.nobs)
    strata = None
    if type_ == "stratified":
        if y is None:
            raise InvalidArgumentError(f"type='stratified' needs the training labels; "
                                       f"{type(results).__name__} does not expose them (`y`).")
        strata = (np.asarray(y) >= 0.5).astype(np.int8)
    trials = rows.trials if trials is None else trials
    base = dict(n=n, type=type_, strata=strata, q=q, trials=trials)
    if use_fast:
        linear = refits.influence() if control and type_ != "labels_from_q" else None
        return RowsEngine(**base, refits=refits, replicates=replicates, k=int(k),
                           linear=linear), True
    src = rows_of(rows_of(results).fitted_model)
    train = TrainingRows(results, KeptDesign(results) if frame is None else design)
    return RefitEngine(**base, results=results, se0=src.information_se(), frame=frame,
                        statistic=statistic, columns=columns, response=cols,
                        design=design, rows=train), False


def unpack(raw: list, k: int):
    """(values, outputs for collect(), (no finite MLE, unconverged, refitted in full),
    linear parts or None) of the replicate outputs so far."""
    out, infinite, unconverged, full = [], np.zeros(len(raw), bool), np.zeros(len(raw), bool), \
        np.zeros(len(raw), bool)
    lin = []
    for i, (v, err, ws) in enumerate(raw):
        if err is None:
            v, flags, *rest = v
            infinite[i], conv = flags[0], flags[1]
            unconverged[i] = not conv
            full[i] = len(flags) > 2 and flags[2]
            lin.append(rest[0] if rest else None)
        else:
            lin.append(None)
        out.append((v, err, ws))
    values, _, _ = collect(out, k)
    lin_vals = None
    if any(x is not None for x in lin):
        width = next(x for x in lin if x is not None).size
        lin_vals = np.array([np.full(width, np.nan) if x is None else x for x in lin])
    return values, out, (infinite, unconverged, full), lin_vals


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
