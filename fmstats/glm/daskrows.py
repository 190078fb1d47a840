"""Deprecated path ``fmstats.glm.daskrows``: the module is private (``fmstats.glm._daskrows``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._daskrows import (  # noqa: F401 - re-exported for old imports
    DaskSource,
)

__all__ = ["DaskSource"]

warn_moved(__name__)
