"""How sure a grid search is: ``cv_tune(..., ci=True)``.

* **per-point interval**: the delta-method interval (Takahashi et al. 2022, generalised to
  F_beta) of every grid point's pooled CV F, from its pooled held-out counts (with repeats,
  the counts of one pass: summed over all folds and divided by the repeats); with
  ``repeats > 1`` also the spread of the per-repeat CV F (``repeat_sd``);
* **selection frequency**: the whole selection -- every grid point cross-validated, the best
  chosen -- rerun on ``B`` stratified case-bootstrap replicates of the rows (drawn within each
  class, as frequency weights: a row drawn twice counts twice and stays in one fold); how
  often each point is chosen;
* **corrected F of the whole selection** (``f_corrected``): nested cross-validation -- on
  each outer training part the grid is cross-validated and the best point refitted, and it
  classes the outer held-out rows; F of the pooled outer classes, with its delta-method
  interval (``f_corrected_ci``), as ``tune_threshold(ci=True)`` does for a threshold.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from .. import measures as _m
from .._utils.folds import stratified_folds
from .._utils.parallel import run_tasks
from .._utils.validation import warn
from ..exceptions import FmstatsError, InvalidArgumentError, ResamplingWarning
from ..inference import interval_of_rows
from ..results import predict_kept
from ._criterion import Criterion
from .._utils.parallel import capturing
from ..formula import FoldResponse, fold_response
from ._folds import make_folds
from ._uncertainty import CHUNK_ENTRIES, OUTER_FOLDS, stratified_draw
from .._utils.boundary import public

__all__ = ["GridUncertainty", "grid_uncertainty", "point_intervals"]


@dataclass(frozen=True, eq=False)
class GridUncertainty:
    """What ``cv_tune(..., ci=True)`` measured; ``results.uncertainty``.

    Parameters
    ----------
    level : float
        The level of the intervals.
    B : int
        Bootstrap replicates of the whole selection.
    chosen : ndarray
        The grid point (row of ``tidy()``) each replicate chose; -1 where it failed.
    f_corrected : float
        Nested-CV F of the whole selection.
    f_corrected_ci : tuple of float
        Its delta-method interval.
    outer_folds : int
        Outer folds of the nested cross-validation.
    outer_pairs : tuple
        Its (train, test) row positions.
    """

    level: float
    B: int
    chosen: np.ndarray = field(repr=False)
    f_corrected: float = float("nan")
    f_corrected_ci: tuple = (float("nan"), float("nan"))
    outer_folds: int = OUTER_FOLDS
    outer_pairs: tuple = field(default=(), repr=False)

    @public
    def frequency(self, n_points: int) -> np.ndarray:
        """Share of the successful replicates that chose each of the ``n_points`` points.

        Parameters
        ----------
        n_points : int
            The number of grid points.

        Returns
        -------
        ndarray
            One share per grid point (summing to 1).
        """
        ok = self.chosen[self.chosen >= 0]
        return np.bincount(ok, minlength=n_points) / max(ok.size, 1)


def point_intervals(counts: np.ndarray, repeat: np.ndarray, crit: Criterion,
                    level: float) -> dict:
    """f_low, f_high (delta, from the pooled counts of one pass) and repeat_sd per point.

    ``counts`` has shape (G, K, 4); ``repeat`` numbers the repeat of each of the K folds.
    """
    a = crit.fmeasure.alpha
    reps = np.unique(repeat)
    tot = np.nan_to_num(counts).sum(axis=1) / reps.size        # (G, 4): one pass
    tp, fp, fn = tot[:, 0], tot[:, 1], tot[:, 2]
    D = tp + a * fp + (1 - a) * fn
    F = np.asarray(_m.ratio(tp, fp, fn, a, 1 - a, 1.0), dtype=float)
    S = tp * (1 - F) ** 2 + fp * (a * F) ** 2 + fn * ((1 - a) * F) ** 2
    se = np.where(D > 0, np.sqrt(S) / np.where(D > 0, D, 1.0), 0.0)
    z = stats.norm.ppf(0.5 + level / 2)
    out = {"f_se": se, "f_low": np.clip(F - z * se, 0, 1), "f_high": np.clip(F + z * se, 0, 1)}
    if reps.size > 1:
        per = np.stack([np.asarray(_m.pooled_f(np.moveaxis(counts[:, repeat == r], 1, 0), a),
                                   dtype=float) for r in reps], axis=1)
        out["repeat_sd"] = per.std(axis=1, ddof=1)
    return out


def _select(worker, model_fn, formula, design, response, points, fixed, prior, mult, crit, cv,
            seed, eval_pos):
    """The whole selection on the rows with multiplicity ``mult`` > 0: (chosen point, classes
    of ``eval_pos`` by the refitted best point).  ``worker`` is cv_tune's fold fit, passed by
    it (fit on the training positions, counts of the held-out ones)."""
    rows = np.flatnonzero(mult > 0)
    w = prior * mult
    sub = FoldResponse(response.name, response.y[rows], response.w[rows])
    folds = make_folds(sub, cv, random_state=seed)
    fx = {**fixed, "weights": w}
    counts = np.array([[worker(model_fn, formula, design, rows[tr], rows[te], p, fx)
                        for tr, te in folds.pairs] for p in points])
    best = _m.best_position(crit.summarise(np.moveaxis(counts, 1, 0))[crit.column])
    if eval_pos is None:
        return best, None
    fit = model_fn(formula, design.subset(rows), **points[best], **{**fixed, "weights": w[rows]})
    test = design.subset(eval_pos, reset_index=True)
    cls = predict_kept(fit, test, type="class")
    return best, (eval_pos[cls.index.to_numpy()], cls.to_numpy(dtype=float))


def _task(*args):
    return capturing(_select, *args)


def _engine_chunk(engines, response, prior, crit, cv, plans, replicates="kstep"):
    """The whole selection of every plan (seed, multiplicities, rows to class) on the grid
    points' own engines (each point fitted once on all rows, ``row_refits()``): per point and
    plan one refit per training fold and one on the plan's rows, k-step, many at once.
    Returns (value, error, warnings) triples, as :func:`_task` does."""
    n = engines[0].n
    q = np.nan_to_num(response.y)
    observed = response.observed
    layout, out, columns = [], [None] * len(plans), []
    for i, (seed, mult, _) in enumerate(plans):
        rows = np.flatnonzero(mult > 0)
        sub = FoldResponse(response.name, response.y[rows], response.w[rows])
        try:
            folds = make_folds(sub, cv, random_state=seed)
        except FmstatsError as exc:
            out[i] = (None, exc, [])
            continue
        pairs = [(rows[tr], rows[te]) for tr, te in folds.pairs]
        start = len(columns)
        columns.append(mult)
        for tr, _ in pairs:
            m = np.zeros(n)
            m[tr] = mult[tr]
            columns.append(m)
        layout.append((i, rows, pairs, start))
    if not layout:
        return out
    M = np.column_stack(columns)
    fits = [e.fit(M, training_f=False, screen=False, replicates=replicates) for e in engines]
    for i, rows, pairs, start in layout:
        _, mult, eval_pos = plans[i]
        bad = [f.errors[j] for f in fits for j in range(start, start + 1 + len(pairs))
               if f.errors[j] is not None]
        if bad:
            out[i] = (None, bad[0], [])
            continue
        w = response.w * prior * mult
        counts = np.empty((len(engines), len(pairs), 4))
        for g, (e, f) in enumerate(zip(engines, fits)):
            for j, (_, te) in enumerate(pairs):
                te = te[observed[te]]
                cls = e.scores(f.design_coef[start + 1 + j][None, :], te)[:, 0] >= e.threshold
                wq, wn = w[te] * q[te], w[te] * (1 - q[te])
                counts[g, j] = [wq @ cls, wn @ cls, wq @ ~cls, wn @ ~cls]
        best = _m.best_position(crit.summarise(np.moveaxis(counts, 1, 0))[crit.column])
        if eval_pos is None or eval_pos.size == 0:
            out[i] = ((best, None), None, [])
            continue
        e = engines[best]
        cls = (e.scores(fits[best].design_coef[start][None, :], eval_pos)[:, 0]
               >= e.threshold).astype(float)
        out[i] = ((best, (eval_pos, cls)), None, [])
    return out


def _grid_engines(model_fn, formula, data, points, fixed):
    """The engines of the grid points' fits on all rows (``row_refits()``), or None when a
    point's model has none (its selection then refits through the model function)."""
    from ..results import ModelResults

    engines = []
    for p in points:
        try:
            fit = model_fn(formula, data, **p, **fixed)
        except FmstatsError:
            return None
        e = fit.row_refits() if isinstance(fit, ModelResults) else None
        if e is None:
            return None
        engines.append(e)
    return engines


def grid_uncertainty(worker, model_fn, formula, design, points, fixed, prior, crit, cv, seed, *,
                     B, level, n_jobs=None, progress=None, replicates="kstep") -> GridUncertainty:
    """Bootstrap and nested cross-validation of the whole grid selection (module notes)."""
    if crit.accuracy:
        raise InvalidArgumentError("`ci`=True gives intervals for F; it needs an F-measure "
                                   "criterion, not measure='accuracy'.")
    if callable(getattr(model_fn, "cv_counts", None)):
        raise InvalidArgumentError("`ci`=True is not available for a model function that fits "
                                   "the whole grid itself (cv_counts); use its plain model "
                                   "function.")
    response = fold_response(formula, design.data)
    n = response.y.shape[0]
    rng = np.random.default_rng([seed, 31])
    strata = response.strata
    mults = [stratified_draw(strata, rng) for _ in range(B)]
    seeds = rng.integers(0, 2**31 - 1, B + 1)
    k_outer = int(cv) if isinstance(cv, (int, np.integer)) else OUTER_FOLDS
    outer = stratified_folds(strata, k_outer, np.random.default_rng(int(seeds[-1])))
    plans = [(int(seeds[b]), m, None) for b, m in enumerate(mults)]
    for tr, te in outer:
        m = np.zeros(n)
        m[tr] = 1.0
        plans.append((seed, m, te))
    desc = f"cv_tune(ci=True): {B} replicates + {k_outer} outer folds"
    engines = _grid_engines(model_fn, formula, design.data, points, fixed)
    if engines is not None:
        per = max(1, CHUNK_ENTRIES // max(1, n * len(points) * (k_outer + 1)))
        tasks = [(engines, response, prior, crit, cv, plans[a:a + per], replicates)
                 for a in range(0, len(plans), per)]
        done = run_tasks(_engine_chunk, tasks, n_jobs=n_jobs, progress=progress, desc=desc,
                         backend="threading" if n_jobs not in (None, 1) else None)
        out = [r for chunk in done for r in chunk]
    else:
        tasks = [(worker, model_fn, formula, design, response, points, fixed, prior, m, crit,
                  cv, sd, ev) for sd, m, ev in plans]
        out = run_tasks(_task, tasks, n_jobs=n_jobs, progress=progress, desc=desc)
    chosen = np.array([v[0] if e is None else -1 for v, e, _ in out[:B]])
    failed = int((chosen < 0).sum())
    if failed > B // 2:
        first = next(e for _, e, _ in out[:B] if e is not None)
        raise InvalidArgumentError(f"`ci`: {failed} of {B} bootstrap replicates of the grid "
                                   f"search failed (the first: {first}).")
    if failed:
        first = next(e for _, e, _ in out[:B] if e is not None)
        warn(f"cv_tune(ci=True): {failed} of {B} bootstrap replicates of the grid search "
             f"failed and were left out; the first: {first}", ResamplingWarning)
    cls = np.full(n, np.nan)
    for value, err, _ in out[B:]:
        if err is not None:
            raise err.__class__(f"the nested cross-validation of cv_tune failed on an outer "
                                f"fold: {err}") from err
        pos, c = value[1]
        cls[pos] = c
    keep = ~np.isnan(cls) & response.observed
    q = np.nan_to_num(response.y)
    iv = interval_of_rows(q[keep], cls[keep], (response.w * prior)[keep], crit.fmeasure,
                          "delta", level)
    return GridUncertainty(level=level, B=B, chosen=chosen, f_corrected=float(iv.estimate),
                           f_corrected_ci=(float(iv.low), float(iv.high)),
                           outer_folds=k_outer, outer_pairs=tuple(outer))
