"""``tune_threshold`` of a model fitted out of core: fold fits, pooled scores and the exact
search all on the row blocks.

A model fitted on a Dask DataFrame keeps no rows; its engine (``results.row_refits(data)``,
``fmstats/maxent_models/_oocrefits.py``) refits the folds on the row blocks of ``data`` with
fold memberships as frequency weights, every pass updating all folds at once.  The folds are
assigned by a counter-based hash of each row's global position
(``row_folds``): uniform over the folds, the same whatever the
partitioning, but not stratified (with the numbers of rows that need a cluster each fold holds
close to 1/k of each class; an :class:`~fmstats.exceptions.EmptyFoldWarning` says when one
holds no positive).  The held-out scores stay on the workers: the exact search
(``_blocksearch.py``) sums cells of them and refines the few cells
near the best cut, so the tuned threshold equals that of the in-memory search on the same
folds (``tests/test_dask_workflow.py`` checks it against ``tune_threshold`` on the rows in
memory with the same folds given as ``cv=``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._utils.call import Settings
from .._utils.validation import check_choice, warn
from ..exceptions import DataError, EmptyFoldWarning, InvalidArgumentError, TrivialRuleWarning
from ._blocksearch import exact_search

__all__ = ["tune_out_of_core", "RowFolds", "OutOfCoreTuning"]


class RowFolds:
    """The folds of an out-of-core tuning: assigned on the row blocks by the rows' positions
    (the interface of ``Folds``, without positions)."""

    def __init__(self, k: int, seed: int, table):
        self.k, self.seed, self._table = int(k), int(seed), table
        self.description = (f"{k} folds assigned on the row blocks by a counter-based hash of "
                            f"each row's position (not stratified; seed {seed})")

    def __len__(self) -> int:
        return self.k

    @property
    def repeat(self) -> np.ndarray:
        """The repeat of each split (one repeat out of core)."""
        return np.zeros(self.k, dtype=np.int64)

    @property
    def fold(self) -> np.ndarray:
        """The number of each split."""
        return np.arange(self.k)

    @property
    def pairs(self):
        raise DataError("the folds of a tuning out of core are assigned on the row blocks; "
                        "their positions are not held (fmstats._utils.rowrng.row_folds "
                        "recomputes them from the seed and the rows' positions).")

    def table(self, response=None):
        """One row per fold: held-out rows and their positive and negative weights."""
        return self._table.copy()


@dataclass(frozen=True)
class OutOfCoreTuning:
    """What the tuning of an out-of-core fit found (the fields of the results object)."""

    score_type: str
    threshold: float
    curve: object
    best: int
    folds: RowFolds
    settings: Settings
    own_counts: np.ndarray | None
    own: float | None
    passes: int


def tune_out_of_core(results, refits, *, cv, repeats, crit, refit_folds, type, random_state,
                     ci, constraint, progress) -> OutOfCoreTuning:
    """:func:`fmstats.tune_threshold` of an out-of-core fit (module notes)."""
    if not refit_folds or ci or constraint is not None or repeats != 1:
        what = ("refit_folds=False" if not refit_folds else "ci=True" if ci else
                "constraint=" if constraint is not None else "repeats > 1")
        raise InvalidArgumentError(
            f"`{what.split('=')[0]}`: {what} is not available for a model fitted out of core, "
            "whose tuning refits its folds on the row blocks once; use the defaults "
            "(refit_folds=True, ci=False, no constraint, repeats=1).")
    if not (isinstance(cv, (int, np.integer)) and not isinstance(cv, bool) and cv >= 2):
        raise InvalidArgumentError(
            f"`cv` must be an integer number of folds (at least 2) for a model fitted out of "
            f"core: its folds are assigned on the row blocks; got {cv!r}.")
    score_type = "response" if type is None else type
    check_choice("type", score_type, ("response", "link"))
    k = int(cv)
    draws = refits.fold_draws(k, random_state)
    fits, _ = refits.fit_draws(draws, replicates="full", training_f=False, screen=False,
                               progress=progress, desc="tune_threshold folds")
    bad = [(i, e) for i, e in enumerate(fits.errors) if e is not None]
    if bad:
        i, e = bad[0]
        raise e.__class__(f"refitting the model on training fold {i} failed ({len(bad)} of "
                          f"{k} folds failed), so no threshold can be tuned: {e}") from e
    own = float(results.threshold)
    if score_type == "link":
        own = float(np.log(own / (1 - own))) if 0 < own < 1 else None
    found = exact_search(refits.held_out(draws, fits.design_coef, score_type), crit, k, own)
    empty = np.flatnonzero(found.fold_table["test_positives"].to_numpy() <= 0)
    if empty.size:
        warn(f"{empty.size} of {k} test folds hold no positive row; see "
             "fold_table().", EmptyFoldWarning)
    if found.best in (0, len(found.curve) - 1):
        warn(f"tune_threshold: the tuned rule (threshold {found.threshold:.4g}) classes all "
             "training rows alike: the cross-validated F was best for a rule that ignores the "
             "model's scores.", TrivialRuleWarning)
    settings = Settings(cv=k, repeats=1, measure=crit, refit_folds=True, type=type,
                        random_state=random_state,
                        design_note="out of core: the fold refits and their held-out scores "
                                    "ran on the row blocks", ci=False, constraint=None,
                        maximize=None)
    return OutOfCoreTuning(score_type=score_type, threshold=found.threshold,
                           curve=found.curve, best=found.best,
                           folds=RowFolds(k, random_state, found.fold_table), settings=settings,
                           own_counts=found.own_counts, own=own, passes=found.passes)


