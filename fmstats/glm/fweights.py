"""Deprecated path ``fmstats.glm.fweights``: the module is private (``fmstats.glm._fweights``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._fweights import (  # noqa: F401 - re-exported for old imports
    expected_f_weights, noisy_f_weights, smoothed_noisy_counts, smoothed_sums,
    smoothed_from_sums, standardised_ridge, f_from_counts, iterate_metrics, metric_sums,
    metrics_from_sums, Iterate, TINY, weight_scale, smooth_g1, smooth_g2, f_of_counts,
)

__all__ = ["expected_f_weights", "noisy_f_weights", "smoothed_noisy_counts", "smoothed_sums",
           "smoothed_from_sums", "standardised_ridge", "f_from_counts", "iterate_metrics",
           "metric_sums", "metrics_from_sums", "Iterate", "TINY", "weight_scale", "smooth_g1",
           "smooth_g2", "f_of_counts"]

warn_moved(__name__)
