"""Data frames registered as row subsets of a design built once (the design cache).

Used by :mod:`fmstats.formula._reuse`, which registers the frames it hands to refits and
predictions, and by :mod:`fmstats.formula._frame`, whose ``model_frame`` and ``DesignSpec.build``
look a frame up here before calling the formula engine.  The registry lives in a
:class:`contextvars.ContextVar`, so it is private to the task (thread or process) that
registered the frame and empty everywhere else; a frame is found by identity only, never
by its contents.  This module imports nothing from fmstats (no import cycle).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Hit", "lookup", "registered"]


class Hit(NamedTuple):
    """A registered frame's owner (the design cache) and its rows' positions there."""

    owner: Any
    positions: np.ndarray


_ACTIVE: ContextVar[tuple] = ContextVar("fmstats_registered_frames", default=())


def lookup(frame) -> Hit | None:
    """The owner and row positions of ``frame`` when it is registered, else None."""
    for registered_frame, owner, positions in reversed(_ACTIVE.get()):
        if registered_frame is frame:
            return Hit(owner, positions)
    return None


@contextmanager
def registered(frame, owner, positions: np.ndarray):
    """Register ``frame`` (rows ``positions`` of ``owner``'s data) for the ``with`` block."""
    token = _ACTIVE.set(_ACTIVE.get() + ((frame, owner, positions),))
    try:
        yield frame
    finally:
        _ACTIVE.reset(token)
