"""Deprecated path ``fmstats.glm.blockreplicates``: the module is private (``fmstats.glm._blockreplicates``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._blockreplicates import (  # noqa: F401 - re-exported for old imports
    RowDraws, PassFit, OuterPassFit, newton_passes, outer_passes, replicate_constants,
    training_f_passes, margins_pass,
)

__all__ = ["RowDraws", "PassFit", "OuterPassFit", "newton_passes", "outer_passes",
           "replicate_constants", "training_f_passes", "margins_pass"]

warn_moved(__name__)
