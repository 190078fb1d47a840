"""Deprecated path ``fmstats.glm.outer``: the module is private (``fmstats.glm._outer``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._outer import (  # noqa: F401 - re-exported for old imports
    Outer, outer_loop,
)

__all__ = ["Outer", "outer_loop"]

warn_moved(__name__)
