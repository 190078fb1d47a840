"""The data of a maxent-family fit, in memory or out of core: the one place that chooses.

:func:`prepare` validates the arguments and builds the design with the rules of
:mod:`fmstats.maxent_models._prepare`; for a Dask DataFrame it hands over to :mod:`fmstats.maxent_models._outofcore`.
Either way the answer offers ``settings``, ``call``, ``frame``, ``aliased``, ``penalty``,
``start``, ``rows(threshold)`` (a row source, :mod:`fmstats.glm.rowsource`) and
``results_data(fit, ...)`` (what the results keep: X and the prior weights, or the training
sums of an out-of-core fit).  Used by :mod:`fmstats.maxent_models._maxent` and :mod:`fmstats.maxent_models._fmaxent`, which
therefore hold no out-of-core code.
"""
from __future__ import annotations

from ._prepare import prepare as prepare_in_memory
from ..formula import is_dask_frame

__all__ = ["prepare", "is_out_of_core"]


def is_out_of_core(data) -> bool:
    """Whether ``data`` is fitted out of core (a Dask DataFrame)."""
    return is_dask_frame(data)


def prepare(model: str, call, data, weights, *, blocked: bool = False, **fixed):
    """:func:`fmstats.maxent_models._prepare.prepare`, or its out-of-core counterpart for a
    Dask DataFrame (``call``: the fit's recorded call; ``fixed``: the model's own settings).
    ``blocked`` (a fit that keeps no design) builds the design of a DataFrame in row blocks
    (:mod:`fmstats.maxent_models._blocked`) where it can."""
    if is_out_of_core(data):
        from ._outofcore import prepare_dask

        return prepare_dask(model, call, data, weights, **fixed)
    if blocked:
        from ._blocked import prepare_blocked

        prep = prepare_blocked(model, call, data, weights, **fixed)
        if prep is not None:
            return prep
    return prepare_in_memory(model, call, data, weights, **fixed)
