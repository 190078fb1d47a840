"""Deprecated path ``fmstats.glm.separation``: the module is private (``fmstats.glm._separation``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._separation import (  # noqa: F401 - re-exported for old imports
    no_finite_mle, newton_reach, zero_count_cells, saturated_rows, NEWTON_REACH,
    LP_MAX_ENTRIES, SATURATION, warn_fit,
)

__all__ = ["no_finite_mle", "newton_reach", "zero_count_cells", "saturated_rows",
           "NEWTON_REACH", "LP_MAX_ENTRIES", "SATURATION", "warn_fit"]

warn_moved(__name__)
