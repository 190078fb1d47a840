"""Parameter grids of the thesis's chapter 8 (for :func:`fmstats.tuning.cv_tune`)."""
from __future__ import annotations

import numpy as np

from .._validation import check_binary, check_scalar

__all__ = ["thesis_grid", "THESIS_C_VALUES", "THESIS_A_GRID"]

#: The cost values of the R code: 2^(-4 + k/2), k = 1, ..., 20 (2^-3.5 to 2^6).
THESIS_C_VALUES = tuple(float(2.0 ** (-4 + k / 2)) for k in range(1, 21))
#: The grid of the step-function slope a searched for the F-measure SVM.
THESIS_A_GRID = (0.1, 1.0, 5.0, 10.0, 30.0)


def thesis_grid(y=None, n_values: int = 20) -> list[dict]:
    """The lower-triangular (C_pos, C_neg) grid of chapter 8 as a list of dicts.

    Pairs of the values 2^(-4 + k/2), k = 1..n_values, with C_pos >= C_neg (the positive
    class is the rare one, so its errors cost at least as much): 210 pairs for the
    thesis's 20 values.  When labels ``y`` (0/1) are given and the positives are the
    majority, the triangle is mirrored (C_neg >= C_pos) so that the rare class still
    gets the larger cost.
    """
    n_values = int(check_scalar("n_values", n_values, low=1, integer=True))
    values = [float(2.0 ** (-4 + k / 2)) for k in range(1, n_values + 1)]
    mirror = False
    if y is not None:
        labels = check_binary("y", np.asarray(y).ravel())
        mirror = labels.sum() > labels.size - labels.sum()
    grid = []
    for i, hi in enumerate(values):
        for lo in values[: i + 1]:
            grid.append({"C_pos": lo, "C_neg": hi} if mirror else {"C_pos": hi, "C_neg": lo})
    return grid
