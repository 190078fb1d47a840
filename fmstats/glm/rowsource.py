"""Deprecated path ``fmstats.glm.rowsource``: the module is private (``fmstats.glm._rowsource``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._rowsource import (  # noqa: F401 - re-exported for old imports
    ArraySource,
)

__all__ = ["ArraySource"]

warn_moved(__name__)
