"""Deprecated path ``fmstats.glm.stacked``: the module is private (``fmstats.glm._stacked``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._stacked import (  # noqa: F401 - re-exported for old imports
    Reweighting, StackedCov, stacked_covariance, estimating_equations, stacked_terms,
    aggregates, fixed_point_gap, unrolled_covariance, unrolled_influence, direct_sums,
    path_aggregates, stacked_covariance_sums, UnrolledPlan, unrolled_plan, influence_rows,
    unrolled_covariance_sums,
)

__all__ = ["Reweighting", "StackedCov", "stacked_covariance", "estimating_equations",
           "stacked_terms", "aggregates", "fixed_point_gap", "unrolled_covariance",
           "unrolled_influence", "direct_sums", "path_aggregates", "stacked_covariance_sums",
           "UnrolledPlan", "unrolled_plan", "influence_rows", "unrolled_covariance_sums"]

warn_moved(__name__)
