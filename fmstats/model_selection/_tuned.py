"""What :func:`fmstats.cv_tune` and :func:`fmstats.tune_threshold` share.

Used by ``_cv_tune.py`` and ``_threshold.py`` only: the results base
:class:`Tuned` (criterion, folds, HTML, pickling) and small text helpers of their calls.
"""
from __future__ import annotations

import pandas as pd

from ._folds import Folds, reuse_cv
from ..results import FitRows, Persistable
from .._utils.call import ModelCall, Settings
from .._utils.validation import describe
from ..exceptions import InvalidArgumentError

__all__ = ["Tuned", "fn_name"]


def fn_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


class Tuned(Persistable, FitRows):
    """What the results of both tuning functions share: criterion, folds, HTML, pickling."""

    settings: Settings
    call: ModelCall
    _folds: Folds
    #: What ``ci=True`` measured (:class:`TuningUncertainty`); None without it (and in
    #: results saved before it existed).
    uncertainty = None

    @property
    def fmeasure(self):
        """The F-measure of the criterion (reported beside accuracy when tuning accuracy)."""
        return self.settings["measure"].fmeasure

    @property
    def design_note(self) -> str | None:
        """How the fold fits got their design: built once on all rows (their rows taken from
        it) or rebuilt for every fold, with the reason (e.g. a stateful transform)."""
        return self.settings.get("design_note")

    @property
    def folds(self) -> tuple:
        """The (train, test) position arrays, usable as ``cv=`` elsewhere."""
        return self._folds.pairs

    def fold_table(self) -> pd.DataFrame:
        """One row per split: repeat, fold, n_train, n_test.

        Returns
        -------
        pandas.DataFrame
            One row per split.
        """
        return self._folds.table()

    def _rerun(self, data, fn: str, **changes):
        """The recorded call again on ``data``: the same folds' rule (``cv``), the same seed
        (a random ``random_state`` was fixed at the first run) and ``changes``."""
        cv = reuse_cv(self.settings["cv"], fn)
        # the intervals of ci=True are a report, not part of the tuned model: a refit (as in
        # every replicate of bootstrap() or validate()) tunes without them unless asked
        changes.setdefault("ci", False)
        return self.call.refit(data, cv=cv, random_state=self.settings["random_state"],
                               **changes)

    def _uncertain(self):
        """What ``ci=True`` measured; a clear error when the tuning ran without it."""
        u = self.uncertainty
        if u is None:
            name = "the tuner" if self.call is None else self.call.name
            raise InvalidArgumentError(f"this tuning was run without intervals: rerun "
                                       f"{name}(..., ci=True).")
        return u

    @property
    def f_corrected(self) -> float:
        """The F the tuned rule (or the selected model) is expected to have on new rows,
        corrected for the optimism of choosing it on the same folds: nested cross-validation
        of the whole tuning (``ci=True``)."""
        return self._uncertain().f_corrected

    @property
    def f_corrected_ci(self) -> tuple:
        """(low, high): the delta-method interval of ``f_corrected`` (``ci=True``)."""
        return self._uncertain().f_corrected_ci

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

