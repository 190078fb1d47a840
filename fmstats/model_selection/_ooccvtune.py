"""``cv_tune`` on a Dask DataFrame: every fold fit and held-out count on the row blocks.

Out of core the rows stay where they are, so the grid is tuned through the refit engine of
the model's out-of-core fit (``results.row_refits(data)``,
``fmstats/maxent_models/_oocrefits.py``), which refits the folds on the row blocks with
the fold memberships as 0/1 frequency weights.  For every grid point:

1. the model is fitted on all rows out of core (``model_fn(formula, data, **point,
   **fixed)``): its solution starts the fold fits, and the best point's fit is the model
   refitted on all rows (``best_model``) -- the same call the in-memory ``cv_tune`` makes
   after the search;
2. its k fold fits run as one set of replicates, every pass over the blocks updating all k,
   each iterated to convergence (``replicates="full"``: Newton steps until the last moves
   every coefficient by less than 1e-6 of its standard error; fmaxent's outer loop with
   weighted fits iterated so): fits of the training folds, not k-step approximations;
3. one more pass counts each fold's held-out rows (tp, fp, fn, tn of the class predictions at
   the point's threshold, weighted by the rows' count weights) on the workers; the client
   receives k x 5 numbers.

The folds are those of the out-of-core ``tune_threshold`` (``_oocthreshold.py``): a fold per
row from a counter-based hash of the row's global position keyed by the seed
(``fmstats._utils.rowrng.row_folds``), so the result does not depend on the partitioning, and
the in-memory ``cv_tune`` given the same folds as ``cv=`` pairs finds the same table
(``tests/test_dask_cv_tune.py``).  The design's row source is built and checked once and
reused by every grid point whose fit has the same design.

The model functions that fit a Dask DataFrame (``maxent``, ``umaxent``, ``fmaxent``, and
:func:`~fmstats.with_measure` of them) can be tuned so; any other is refused by name, as are
the options that need the rows in one process (explicit folds or a splitter, ``repeats``,
``ci=True``, ``reuse_design=False``, ``n_jobs``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._utils.progress import progress_bar, progress_enabled
from .._utils.validation import describe
from ..exceptions import FmstatsError, InvalidArgumentError
from ._folds import warn_no_positives
from ._oocthreshold import RowFolds
from ..results import ModelResults
from ._tuned import fn_name

__all__ = ["OutOfCoreGrid", "cv_tune_out_of_core"]

#: The design note of a grid tuned out of core.
NOTE = ("out of core: every grid point fitted on all rows, its fold fits (iterated to "
        "convergence) and their held-out counts on the row blocks")


@dataclass(frozen=True)
class OutOfCoreGrid:
    """What the out-of-core grid search found: the counts (G, k, 4) and errors (point-major)
    of the fold fits, the folds, every point's fit on all rows (None where it failed), the
    number of rows and the fold fits' coefficients (G, k, p; NaN where a fit failed)."""

    counts: np.ndarray
    errors: list
    folds: RowFolds
    fits: list
    n_rows: int
    fold_coef: np.ndarray
    note: str = NOTE


def _refuse(what: str, why: str, instead: str) -> None:
    raise InvalidArgumentError(f"`{what}`: {why} is not available when cv_tune's `data` is a "
                               f"Dask DataFrame (out of core); {instead}.")


def check_out_of_core(model_fn, *, cv, repeats, ci, reuse_design, n_jobs) -> int:
    """The number of folds, or a clear error for an option that cannot run out of core."""
    if getattr(model_fn, "cv_counts", None) is not None:
        raise InvalidArgumentError(
            f"`model_fn`: {fn_name(model_fn)} fits its grid itself in memory and cannot be "
            "tuned on a Dask DataFrame; out of core cv_tune tunes the model functions that fit "
            "a Dask DataFrame (maxent, umaxent, fmaxent): tune a sample in memory.")
    if not (isinstance(cv, (int, np.integer)) and not isinstance(cv, bool) and cv >= 2):
        _refuse("cv", f"cv={describe(cv)} (explicit folds or a splitter)",
                "give an integer number of folds (at least 2): they are assigned on the row "
                "blocks by a hash of each row's position")
    if repeats != 1:
        _refuse("repeats", f"repeats={repeats!r}", "use repeats=1")
    if ci:
        _refuse("ci", "ci=True (B grid searches on bootstrap replicates and nested CV)",
                "tune a sample in memory for the intervals")
    if not reuse_design:
        _refuse("reuse_design", "reuse_design=False",
                "the design of the row blocks is built once; use the default")
    if n_jobs not in (None, 1):
        _refuse("n_jobs", f"n_jobs={n_jobs!r}", "the Dask scheduler runs the fits in "
                "parallel; leave n_jobs unset")
    return int(cv)


def _design_key(fit) -> tuple:
    """What decides a fit's design rows (``training_rows`` of ``_outofcore.py``)."""
    s = fit.settings
    weights = fit.call.get("weights")
    return (s.get("formula"), s.get("missing"), s.get("engine"),
            weights if isinstance(weights, str) else None, tuple(fit.term_names))


def _engine(fit, data, shared, name):
    """The fold-refit engine of ``fit`` on the row blocks of ``data`` (the row source shared
    by the fits with the same design)."""
    refits = fit.row_refits(shared.get(_design_key(fit), data)) \
        if isinstance(fit, ModelResults) else None
    if refits is None or not refits.out_of_core:
        raise InvalidArgumentError(
            f"`model_fn`: {name} fitted the Dask DataFrame but its fit ({describe(fit)}) "
            "cannot refit its folds on the row blocks; out of core cv_tune tunes maxent, "
            "umaxent and fmaxent (and with_measure of them): tune a sample in memory.")
    shared.setdefault(_design_key(fit), refits.rows)
    return refits


def cv_tune_out_of_core(model_fn, formula, data, points, fixed, *, k, seed, pooling,
                        on_error, progress) -> OutOfCoreGrid:
    """The fold counts of every grid point, on the row blocks of ``data`` (module notes)."""
    response = formula.split("~")[0].strip()
    G = len(points)
    name = fn_name(model_fn)
    counts = np.full((G, k, 4), np.nan)
    errors = [None] * (G * k)
    fits = [None] * G
    fold_coef = [None] * G
    folds = None
    shared = {}         # design key -> the row source built and checked once
    bar = progress_bar(total=G, desc=f"cv_tune out of core: {G} points x {k} folds",
                       unit="point") if progress_enabled(progress) else None
    try:
        for g, point in enumerate(points):
            try:
                fit = model_fn(formula, data, **point, **fixed)
            except FmstatsError as e:
                if on_error == "raise":
                    raise
                errors[g * k:(g + 1) * k] = [e] * k
                continue
            refits = _engine(fit, data, shared, name)
            draws = refits.fold_draws(k, seed)
            found, _ = refits.fit_draws(draws, replicates="full", training_f=False,
                                        screen=False, progress=False)
            cells = refits.held_out_cells(draws, found.design_coef, fit.threshold)
            for j, e in enumerate(found.errors):
                if e is not None and on_error == "raise":
                    raise _said(e, f"refitting grid point {point} on training fold {j} "
                                   f"failed: {e}") from e
                errors[g * k + j] = e
            ok = np.array([e is None for e in found.errors])
            counts[g, ok] = cells[ok, :4]
            fits[g], fold_coef[g] = fit, found.coef
            if folds is None:
                folds = _row_folds(cells, k, seed)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    if all(f is None for f in fits):    # no point fitted on all rows: say why it may be
        e = errors[0]
        raise _said(e, f"`model_fn`: cv_tune on a Dask DataFrame fits every grid point on all "
                       f"rows first, and {name} failed at every point, first with "
                       f"{points[0]} (out of core cv_tune tunes the model functions that fit "
                       f"a Dask DataFrame: maxent, umaxent, fmaxent): {e}") from e
    n_rows = 0
    if folds is None:       # every point failed (cv_tune says so): no fold table
        folds = RowFolds(k, seed, None)
    else:
        table = folds.table()
        warn_no_positives(table["test_positives"].to_numpy(), response, pooling)
        n_rows = int(table["n_test"].sum())
    p = max((len(c[0]) for c in fold_coef if c is not None), default=0)
    coef = np.stack([np.full((k, p), np.nan) if c is None else c for c in fold_coef])
    return OutOfCoreGrid(counts=counts, errors=errors, folds=folds, fits=fits, n_rows=n_rows,
                         fold_coef=coef)


def _said(error: Exception, message: str) -> Exception:
    """``error``'s class with ``message`` (an InvalidArgumentError if the class takes other
    arguments)."""
    try:
        return error.__class__(message)
    except TypeError:
        return InvalidArgumentError(message)


def _row_folds(cells, k, seed) -> RowFolds:
    """The folds with their table (held-out rows, positive and negative weights)."""
    table = pd.DataFrame({"fold": np.arange(k), "n_test": cells[:, 4].astype(np.int64),
                          "test_positives": cells[:, 0] + cells[:, 2],
                          "test_negatives": cells[:, 1] + cells[:, 3]})
    return RowFolds(k, seed, table)
