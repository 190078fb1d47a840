"""The data of a maxent-family fit, in memory or out of core: the one place that chooses.

:func:`prepare` validates the arguments and builds the design with the rules of
``_prepare.py``; for a Dask DataFrame it hands over to ``_outofcore.py``.
Either way the answer offers ``settings``, ``call``, ``frame``, ``aliased``, ``penalty``,
``start``, ``rows(threshold)`` (a row source, :mod:`fmstats.glm._rowsource`) and
``results_data(fit, ...)`` (what the results keep: X and the prior weights, or the training
sums of an out-of-core fit).  Used by ``_maxent.py`` and ``_fmaxent.py``, which
therefore hold no out-of-core code.
"""
from __future__ import annotations

import re

from ._prepare import prepare as prepare_in_memory
from ..formula import is_dask_frame

__all__ = ["prepare", "is_out_of_core"]


def is_out_of_core(data) -> bool:
    """Whether ``data`` is fitted out of core (a Dask DataFrame)."""
    return is_dask_frame(data)


def _r_extras(call) -> list:
    """The R-habit arguments of ``call`` that the row-wise paths (Dask, row blocks) do not
    take: ``subset``, ``offset`` (argument or ``offset()`` term), ``contrasts`` and
    ``na_action="exclude"``."""
    given = [a for a in ("subset", "offset", "contrasts") if call.get(a) is not None]
    given += ["na_action"] if call.get("na_action") == "exclude" else []
    if re.search(r"\boffset\s*\(", str(call.get("formula", ""))) and "offset" not in given:
        given.append("offset")
    return given


def prepare(model: str, call, data, weights, *, subset=None, offset=None, blocked: bool = False,
            **fixed):
    """``prepare``, or its out-of-core counterpart for a
    Dask DataFrame (``call``: the fit's recorded call; ``fixed``: the model's own settings).
    Out of core, ``subset``, ``offset``, ``contrasts`` and ``na_action="exclude"`` are refused
    (filter or transform the Dask DataFrame first).  ``blocked`` (a fit that keeps no design)
    builds the design of a DataFrame in row blocks (``_blocked.py``)
    where it can: not with those arguments, whose fits build the design whole and drop it
    after the fit (as for stateful transforms)."""
    if is_out_of_core(data):
        from ..exceptions import InvalidArgumentError
        from ._outofcore import prepare_dask

        given = _r_extras(call)
        if given:
            raise InvalidArgumentError(
                f"`{given[0]}` is not available for a Dask DataFrame (out-of-core fits read "
                "the formula's columns chunk by chunk): filter or transform the Dask "
                "DataFrame first, or fit a pandas DataFrame.")
        return prepare_dask(model, call, data, weights, **fixed)
    if blocked and not _r_extras(call):
        from ._blocked import prepare_blocked

        prep = prepare_blocked(model, call, data, weights, **fixed)
        if prep is not None:
            return prep
    return prepare_in_memory(model, call, data, weights, subset=subset, offset=offset, **fixed)
