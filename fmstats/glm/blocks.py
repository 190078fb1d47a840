"""Deprecated path ``fmstats.glm.blocks``: the module is private (``fmstats.glm._blocks``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._blocks import (  # noqa: F401 - re-exported for old imports
    BlockDesign, rank_gram_blocks, irls_logit_blocks, BlockStats, BlockSource,
)

__all__ = ["BlockDesign", "rank_gram_blocks", "irls_logit_blocks", "BlockStats", "BlockSource"]

warn_moved(__name__)
