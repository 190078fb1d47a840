"""The criterion of the tuners: an F-measure or accuracy, pooled over folds.

:class:`Criterion` pools fold confusion counts into F (or accuracy) as Forman & Scholz's
F_tp,fp (:func:`fmstats.measures.pooled_cv_f`) or as the mean of fold values.
"""
from __future__ import annotations

import numpy as np

from .. import measures as _m
from .._utils.validation import check_choice
from ..exceptions import InvalidArgumentError

__all__ = ["Criterion"]

_POOLINGS = ("tp_fp", "mean")
_POOLING_TEXT = {
    "tp_fp": "TP, FP and FN averaged over the {k} held-out folds, then the measure "
             "(Forman & Scholz's F_tp,fp; thesis section 8.2)",
    "mean": "the measure on each of the {k} held-out folds, averaged (mean of fold values)",
}

class Criterion:
    """The measure (an F-measure or accuracy) and the pooling over folds."""

    def __init__(self, measure, beta, alpha, pooling):
        check_choice("pooling", pooling, _POOLINGS)
        self.accuracy = isinstance(measure, str) and measure == "accuracy"
        if isinstance(measure, str) and not self.accuracy:
            raise InvalidArgumentError(
                f"`measure` must be an FMeasure, 'accuracy' or None (F from beta/alpha, default "
                f"F1); got {measure!r}.")
        # with accuracy, the F-measure (beta/alpha, default F1) is still reported beside it
        self.fmeasure = _m.as_fmeasure(None if self.accuracy else measure, beta, alpha)
        self.pooling = pooling
        self.name = "accuracy" if self.accuracy else self.fmeasure.name
        self.column = "accuracy" if self.accuracy else "f"

    def text(self, k: int) -> str:
        what = "accuracy (TP + TN) / n" if self.accuracy else str(self.fmeasure)
        return f"{what}; {_POOLING_TEXT[self.pooling].format(k=k)}"

    def per_fold(self, counts: np.ndarray) -> np.ndarray:
        """The measure of every count vector in ``counts`` (..., 4) = tp, fp, fn, tn."""
        if self.accuracy:
            return _accuracy(counts)
        return _f(counts, self.fmeasure.alpha)

    def summarise(self, counts: np.ndarray) -> dict:
        """Pool fold counts (k, ..., 4) over axis 0: f, precision, recall, accuracy.

        ``f`` and ``accuracy`` follow the pooling (``"tp_fp"``: the measure of the
        summed counts, which equals that of the averaged counts, as
        :func:`fmstats.measures.pooled_cv_f`; ``"mean"``: the mean of the fold
        values); precision and recall are always those of the summed counts.
        """
        total = counts.sum(axis=0)
        tp, fp, fn = total[..., 0], total[..., 1], total[..., 2]
        acc = (_accuracy(total) if self.pooling == "tp_fp"
               else _accuracy(counts).mean(axis=0))
        return {"precision": _m.ratio(tp, fp, fn, 1.0, 0.0, 1.0),
                "recall": _m.ratio(tp, fp, fn, 0.0, 1.0, 1.0),
                "f": _m.pooled_f(counts, self.fmeasure.alpha, self.pooling), "accuracy": acc}


def _f(counts: np.ndarray, alpha: float) -> np.ndarray:
    """F = TP / (TP + alpha FP + (1 - alpha) FN) (1 where the denominator is 0)."""
    return np.asarray(_m.ratio(counts[..., 0], counts[..., 1], counts[..., 2], alpha,
                                1.0 - alpha, 1.0), dtype=float)


def _accuracy(counts: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=-1)
    return np.divide(counts[..., 0] + counts[..., 3], n, out=np.full(np.shape(n), np.nan),
                     where=n > 0)


