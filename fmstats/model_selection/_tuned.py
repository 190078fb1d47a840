"""What :func:`fmstats.model_selection._cv_tune.cv_tune` and :func:`fmstats.model_selection._threshold.tune_threshold` share.

Used by :mod:`fmstats.model_selection._cv_tune` and :mod:`fmstats.model_selection._threshold` only: the results base
:class:`Tuned` (criterion, folds, HTML, pickling) and small text helpers of their calls.
"""
from __future__ import annotations

import pandas as pd

from ._folds import Folds, reuse_cv
from ..results import Persistable
from .._utils.validation import describe
from ..exceptions import InvalidArgumentError

__all__ = ["Tuned", "check_protocol", "fn_name", "call_text", "data_text"]


def check_protocol(results, *methods) -> None:
    missing = [m for m in methods if not callable(getattr(results, m, None))]
    if missing:
        raise InvalidArgumentError(
            f"`results` must be a fitted fmstats model with {', '.join(methods)}() methods; "
            f"{describe(results)} has no {', '.join(missing)}().")


def fn_name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def call_text(name: str, parts: dict) -> str:
    return f"{name}({', '.join(f'{k} = {v}' for k, v in parts.items())})"


def data_text(data: pd.DataFrame) -> str:
    return f"<DataFrame {data.shape[0]} x {data.shape[1]}>"



class Tuned(Persistable):
    """What the results of both tuning functions share: criterion, folds, HTML, pickling."""

    _spec: dict
    _folds: Folds

    @property
    def measure_(self):
        """The F-measure of the criterion (reported beside accuracy when tuning accuracy)."""
        return self._spec["measure"].fmeasure

    @property
    def design_note(self) -> str | None:
        """How the fold fits got their design: built once on all rows (their rows taken from
        it) or rebuilt for every fold, with the reason (e.g. a stateful transform)."""
        return self._spec.get("design_note")

    @property
    def folds(self) -> tuple:
        """The (train, test) position arrays, usable as ``cv=`` elsewhere."""
        return self._folds.pairs

    def fold_table(self) -> pd.DataFrame:
        """One row per split: repeat, fold, n_train, n_test."""
        return self._folds.table()

    def _rerun_kwargs(self, fn: str) -> dict:
        s = self._spec
        return dict(cv=reuse_cv(s["cv"], fn), repeats=s["repeats"], random_state=s["random_state"],
                    **s["measure"].as_kwargs())

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

