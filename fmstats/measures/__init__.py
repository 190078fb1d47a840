"""F-measures and related classification measures.

One F-measure, two parameterisations
------------------------------------
With confusion counts TP, FP, FN (and TN), the F-measure with weight
``alpha`` in (0, 1] on precision is

    F = TP / (TP + alpha * FP + (1 - alpha) * FN)
      = 1 / (alpha / P + (1 - alpha) / R),

and the same measure written with ``beta`` >= 0 (scikit-learn's convention) is

    F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP),

related by ``alpha = 1 / (1 + beta^2)`` and ``beta = sqrt((1 - alpha) / alpha)``.
F1 is ``beta = 1`` or ``alpha = 0.5``; ``beta = 0`` (``alpha = 1``) is precision.
The thesis of seed 004 calls our ``alpha`` "beta": when you implement one of its
formulas, its beta is our ``alpha``.  Every function here takes ``beta=`` or
``alpha=`` (not both; default F1) or an :class:`FMeasure` through ``measure=``.

Zero division
-------------
A ratio whose denominator is zero takes the value ``zero_division`` (default
1.0), never NaN:

* F: the denominator ``TP + alpha FP + (1 - alpha) FN`` is zero, i.e. for
  ``alpha < 1`` an empty truth with an empty prediction (TP + FP + FN = 0), and
  for ``alpha = 1`` (precision) no predictions.  With predictions but no truth,
  or truth but no predictions, F is 0 (for ``alpha < 1``).
* precision: no predictions (TP + FP = 0); recall: no truth (TP + FN = 0);
  Jaccard: TP + FP + FN = 0.

These are scikit-learn's rules for ``zero_division=1.0``, and they keep F
between precision and recall.  In multi-label averages the rule applies per
row (instance-wise average) or per label (macro average), so empty rows or
labels count as ``zero_division``.
"""
from ._fmeasure import (
                        TIE_RTOL,
                        Confusion,
                        FMeasure,
                        as_fmeasure,
                        best_position,
                        check_zero_division,
                        confusion,
                        ratio,
)
from ._labels import (
                        accuracy_score,
                        f_score,
                        hamming_loss,
                        jaccard_score,
                        label_matrix,
                        precision_score,
                        recall_score,
)
from ._multiclass import multiclass_micro_f
from ._noisy import expected_confusion, expected_f, noisy_confusion, noisy_f
from ._pooling import pooled_cv_f, pooled_f

__all__ = [
    "FMeasure",
    "as_fmeasure",
    "Confusion",
    "confusion",
    "f_score",
    "precision_score",
    "recall_score",
    "jaccard_score",
    "accuracy_score",
    "hamming_loss",
    "expected_confusion",
    "expected_f",
    "noisy_confusion",
    "noisy_f",
    "pooled_cv_f",
    "multiclass_micro_f",
    "best_position",
    "TIE_RTOL",
    "check_zero_division",
    "label_matrix",
    "ratio",
    "pooled_f",
]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["check_zero_division", "label_matrix", "ratio", "pooled_f"]

