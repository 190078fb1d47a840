"""Pseudo-linear performance measures and their reduction to cost-sensitive classification.

Seed 001 (Puthiya Parambath, Usunier, Grandvalet):

* :mod:`.profiles` -- measures as functions of error profiles: ``profile_value``,
  ``cost_vector`` a(t), ``cost_offset`` b(t), ``discretisation_factor`` Phi (F_beta,
  micro-F, multiclass micro-F and their Jaccard variants);
* :mod:`.cuts` -- the cost grid and the exact threshold search;
* :mod:`.learners` -- class-weighted logistic / multinomial regression and the weighted SVM;
* :mod:`.search` -- Algorithms 1-4 and the bracketing of section 5.1;
* :mod:`.api` -- :func:`costsens` (formula interface) and :func:`costsens_arrays`;
* :mod:`.results` -- :class:`CostsensResults`.
"""
from ._api import COSTSENS_MEASURES, costsens, costsens_arrays, costsens_variants
from ._cuts import best_threshold, cost_grid
from ._profiles import (PROFILE_MEASURES, cost_offset, cost_vector, discretisation_factor,
                       profile_value)
from ._results import CostsensResults, CostSensitiveResults

__all__ = [
    "PROFILE_MEASURES", "COSTSENS_MEASURES", "profile_value", "cost_vector", "cost_offset",
    "discretisation_factor", "cost_grid", "best_threshold", "costsens", "costsens_arrays",
    "costsens_variants",
    "CostsensResults", "CostSensitiveResults",
]
