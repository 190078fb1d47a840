"""The fitting machinery behind :func:`costsens`: validation split, learner, outer loops
and the assembly of the results' fields."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from .._utils.parallel import run_tasks
from .._utils.progress import progress_enabled
from .._utils.validation import check_choice, check_random_state, check_scalar, describe, warn
from ..exceptions import ConvergenceWarning, DataError, InvalidArgumentError, ResponseError
from ._cuts import cost_grid
from ._learners import LEARNERS, LogitLearner, SvmLearner
from ._search import (BinaryProblem, MulticlassProblem, MultilabelProblem, best_level,
                     run_search)

__all__ = ["Fitting"]

VARIANTS = {(False, False): "-", (False, True): "T", (True, False): "CS", (True, True): "CS&T"}


def _split(strata: np.ndarray | None, n: int, validation: Any, rows: np.ndarray | None,
           data_index: pd.Index | None, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask (over the n model rows) of the validation rows.

    A fraction draws a random split, stratified by ``strata`` (the class) when given; a
    boolean mask is over the rows of ``data``; anything else is a list of index labels.
    """
    if isinstance(validation, numbers.Real) and not isinstance(validation, bool):
        frac = float(check_scalar("validation", validation, low=0, high=1, low_open=True,
                                  high_open=True))
        mask = np.zeros(n, dtype=bool)
        groups = [np.arange(n)] if strata is None else [
            np.flatnonzero(strata == c) for c in np.unique(strata)]
        for idx in groups:
            mask[rng.choice(idx, size=int(round(frac * idx.size)), replace=False)] = True
        return mask
    v = np.asarray(validation)
    if v.dtype == bool:
        full = n if data_index is None else len(data_index)
        if v.ndim != 1 or v.size != full:
            raise InvalidArgumentError(
                f"`validation` as a boolean mask must have one entry per row of `data` ({full}); "
                f"got shape {v.shape}.")
        return v if rows is None else v[rows]
    if data_index is None:
        mask = np.zeros(n, dtype=bool)
        mask[v.astype(int)] = True
        return mask
    unknown = ~pd.Index(v).isin(data_index)
    if unknown.any():
        raise InvalidArgumentError(
            f"`validation` contains labels not in the index of `data`, e.g. {v[unknown][0]!r}.")
    return np.asarray(data_index[rows].isin(v))


def _no_positives(part: str, what: str, validation) -> DataError:
    return DataError(
        f"the {part} part of the split (validation={describe(validation)}) has no {what}; "
        "F is undefined there. Use a larger or different `validation` split.")


def _check_classes(kind: str, target, outputs) -> None:
    """The whole response needs both classes (of every label): no split can be blamed."""
    if kind == "binary":
        values = np.unique(target)
        if values.size < 2:
            raise ResponseError(
                f"the response has a single class: all {len(target)} rows are "
                f"{values[0]:g}; costsens learns a classifier and needs rows of both classes "
                "(0 and 1), whatever the validation split.")
    elif kind == "multilabel":
        pos = target.sum(axis=0)
        for j in np.flatnonzero((pos == 0) | (pos == target.shape[0])):
            raise ResponseError(
                f"label {outputs[j]!r} has a single class: it is {int(pos[j] > 0)} on all "
                f"{target.shape[0]} rows; every label needs rows of both classes (drop the "
                "label or add rows), whatever the validation split.")


def _check_split(kind: str, measure_name: str, target, va: np.ndarray, outputs,
                 default_index, validation) -> None:
    _check_classes(kind, target, outputs)
    tr = ~va
    if not va.any() or not tr.any():
        raise InvalidArgumentError(
            f"`validation` must leave rows in both parts; got {int(va.sum())} validation and "
            f"{int(tr.sum())} training rows.")
    if kind == "binary":
        for part, m in (("validation", va), ("training", tr)):
            if not np.any(target[m] == 1):
                raise _no_positives(part, "positive rows", validation)
        if not np.any(target[tr] == 0):
            raise DataError("the training part of the split has no negative rows.")
    elif kind == "multilabel":
        for part, m in (("training", tr), ("validation", va)):
            pos = target[m].sum(axis=0)
            need = part == "training" or measure_name == "macro_f"
            if need and np.any(pos == 0):
                raise _no_positives(part, f"positive rows for label "
                                    f"{outputs[int(np.argmin(pos))]!r}", validation)
            if part == "training" and np.any(pos == m.sum()):
                raise DataError(f"label {outputs[int(np.argmax(pos == m.sum()))]!r} is 1 on "
                                "every training row; its classifier cannot be learned.")
        if target[va].sum() == 0:
            raise _no_positives("validation", "positive labels", validation)
    else:
        missing = [outputs[k] for k in range(len(outputs)) if not np.any(target[tr] == k)]
        if missing:
            raise DataError(f"class {missing[0]!r} has no rows in the training part of the "
                            "split; every class needs training rows.")
        if not np.any(target[va] != default_index):
            raise _no_positives("validation", "rows outside the default class", validation)


def _learner(learner: str, penalty: float, intercept, tol, max_iter, n_columns=None):
    check_choice("learner", learner, LEARNERS)
    if learner == "logit":
        return LogitLearner(penalty, intercept, tol, max_iter)
    if intercept is None:
        raise InvalidArgumentError("learner='svm' needs an intercept column in the design "
                                   "(the SVM offset b); remove '- 1' / '0 +' from the formula.")
    if n_columns == 1:
        raise InvalidArgumentError("learner='svm' needs at least one predictor besides the "
                                   "intercept; the formula has none (e.g. 'y ~ 1').")
    if not penalty > 0:
        raise InvalidArgumentError(
            f"`penalty` must be > 0 with learner='svm' (C = 1/penalty); got {penalty!r}.")
    try:
        return SvmLearner(penalty, intercept)
    except ImportError:
        raise InvalidArgumentError(
            "learner='svm' needs fmstats.svm.wsvm_fit, which is not available in this "
            "installation; use learner='logit'.") from None


def _macro_label(Xtr, ytr, Xva, yva, b2, learner, ts, opts):
    """Worker (module level for joblib): Algorithm 1 on one label."""
    return run_search(BinaryProblem(Xtr, ytr, Xva, yva, b2, learner), ts, progress=False,
                      **opts)


def _curve_frame(recs, top, thresholds: bool, label=None) -> pd.DataFrame:
    ev = [r[thresholds] for r in recs]
    out = pd.DataFrame({
        "t": [r["t"] for r in recs],
        "fn_cost": [top - r["t"] for r in recs],
        "fp_cost": [r["t"] for r in recs],
        **{k: [e[k] for e in ev] for k in ("threshold", "f", "tp", "fp", "fn", "cost")},
        "converged": [bool(r["converged"]) for r in recs],
        "iterations": [r["iterations"] for r in recs],
    })
    if label is not None:
        out.insert(0, "label", label)
    return out


class Fitting:
    """A validated problem (design, target, split, learner) ready for the outer loop.

    ``run(costs, thresholds)`` searches and returns the fields of a
    :class:`~.results.CostsensResults`; ``search`` and ``assemble`` are its two halves,
    so that one search can give both the thresholded and the untuned variant.
    """

    def __init__(self, X, target, *, kind, measure_name, fm, outputs, default_index, intercept,
                 learner, grid, search, validation, penalty, random_state, tol, max_iter,
                 n_jobs, progress, term_names, rows, data_index, strata):
        check_choice("search", search, ("grid", "bracket"))
        self.b2 = fm.beta ** 2
        self.top = 1.0 + self.b2
        self.ts = cost_grid(grid, fm.beta)
        self.penalty = float(check_scalar("penalty", penalty, low=0))
        check_scalar("tol", tol, low=0, low_open=True)
        check_scalar("max_iter", max_iter, low=1, integer=True)
        self.show = progress_enabled(progress)
        self.learner = _learner(learner, self.penalty, intercept, tol, max_iter, X.shape[1])
        rng = check_random_state(random_state)
        va = _split(strata, X.shape[0], validation, rows, data_index, rng)
        _check_split(kind, measure_name, target, va, outputs, default_index, validation)
        self.va = va
        tr = ~va
        self.parts = (np.ascontiguousarray(X[tr]), target[tr], np.ascontiguousarray(X[va]),
                      target[va])
        self.kind, self.measure_name, self.fm = kind, measure_name, fm
        self.outputs, self.default_index = outputs, default_index
        self.search_kind, self.n_jobs = search, n_jobs
        self.budget = self.ts.size if isinstance(grid, numbers.Integral) else max(self.ts.size, 3)
        self.term_names = tuple(term_names)

    def search(self, costs: bool, thresholds: bool):
        """The fitted levels (for macro-F: one list per label)."""
        opts = dict(costs=costs, thresholds=thresholds, search=self.search_kind,
                    budget=self.budget)
        Xtr, Ttr, Xva, Tva = self.parts
        if self.measure_name == "macro_f":
            tasks = [(Xtr, Ttr[:, j], Xva, Tva[:, j], self.b2, self.learner, self.ts, opts)
                     for j in range(Ttr.shape[1])]
            return run_tasks(_macro_label, tasks, n_jobs=self.n_jobs, progress=self.show,
                             desc="labels")
        if self.kind == "binary":
            pb = BinaryProblem(Xtr, Ttr, Xva, Tva, self.b2, self.learner)
        elif self.kind == "multilabel":
            pb = MultilabelProblem(Xtr, Ttr, Xva, Tva, self.b2, self.learner)
        else:
            pb = MulticlassProblem(Xtr, Ttr, Xva, Tva, len(self.outputs), self.default_index,
                                   self.b2, self.learner)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return run_search(pb, self.ts, progress=self.show, **opts)

    def assemble(self, recs, costs: bool, thresholds: bool) -> dict:
        """The results' fields for one variant from the fitted levels."""
        top = self.top
        if self.measure_name == "macro_f":
            bests = [best_level(r, thresholds) for r in recs]
            out = self.outputs
            coef = np.column_stack([b["params"] for b in bests])
            best_cost = pd.Series([b["t"] for b in bests], index=out, name="t")
            best_thr = pd.Series([b[thresholds]["threshold"] for b in bests], index=out,
                                 name="threshold")
            label_f = pd.Series([b[thresholds]["f"] for b in bests], index=out,
                                name="validation_f")
            curve = pd.concat([_curve_frame(r, top, thresholds, lab) for r, lab in zip(recs, out)],
                              ignore_index=True)
            vf = float(label_f.mean())
            n_levels = int(curve.groupby("label").size().max())
        else:
            best = best_level(recs, thresholds)
            coef, best_cost, label_f = best["params"], best["t"], None
            best_thr, vf = best[thresholds]["threshold"], best[thresholds]["f"]
            curve = _curve_frame(recs, top, thresholds)
            n_levels = len(curve)
        if not curve["converged"].all():
            warn(f"{int((~curve['converged']).sum())} of {len(curve)} learner fits did not "
                 "converge (see the 'converged' column of tidy()); increase `max_iter` or the "
                 "ridge `penalty`.", ConvergenceWarning)
        search_used = ("one level t = (1+beta^2)/2 (equal costs)" if not costs else
                       f"grid of {self.ts.size} levels" if self.search_kind == "grid" else
                       f"bracketing (section 5.1), {n_levels} levels fitted (budget "
                       f"{self.budget})")
        return dict(kind=self.kind, measure_name=self.measure_name, fmeasure=self.fm,
                    variant=VARIANTS[(bool(costs), bool(thresholds))], learner=self.learner.name,
                    search=search_used, penalty=self.penalty, _coef=coef,
                    term_names=self.term_names, outputs=self.outputs,
                    default_index=self.default_index, best_cost=best_cost,
                    best_threshold=best_thr, label_f=label_f, validation_f=float(vf),
                    curve=curve, n_train=int((~self.va).sum()), n_validation=int(self.va.sum()),
                    validation_mask=self.va)

    def run(self, costs: bool, thresholds: bool) -> dict:
        return self.assemble(self.search(costs, thresholds), costs, thresholds)
