"""Deprecated path ``fmstats.glm.dask``: the module is private (``fmstats.glm._dask``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._dask import (  # noqa: F401 - re-exported for old imports
    DaskIrlsFit, irls_logit_dask, irls_evaluate_dask, block_sums, map_rows, gram_dask,
    as_row_blocks, is_dask_collection, refuse_offset_columns, persist_if_fits, memory_limit,
    PERSIST_SHARE, block_results, start_sums, start_sums_columns,
)

__all__ = ["DaskIrlsFit", "irls_logit_dask", "irls_evaluate_dask", "block_sums", "map_rows",
           "gram_dask", "as_row_blocks", "is_dask_collection", "refuse_offset_columns",
           "persist_if_fits", "memory_limit", "PERSIST_SHARE", "block_results", "start_sums",
           "start_sums_columns"]

warn_moved(__name__)
