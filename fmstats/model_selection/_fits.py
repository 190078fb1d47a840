"""Running fits in workers: an FmstatsError returned instead of raised, warnings repeated once.

:func:`capturing` runs one fit in a worker, returning an FmstatsError instead of raising it and
the warnings it emitted, which :func:`reemit` repeats once per category in the calling process
(so warnings do not depend on ``n_jobs``).  Used by the tuners and :mod:`fmstats.svm`.
"""
from __future__ import annotations

import warnings
from typing import Callable

from .._utils.validation import warn
from ..exceptions import FmstatsError

__all__ = ["capturing", "reemit"]


def capturing(fn: Callable, *args):
    """Run ``fn(*args)``; return (value, FmstatsError or None, [(category, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value, error = fn(*args), None
        except FmstatsError as exc:
            value, error = None, exc
    return value, error, [(w.category, str(w.message)) for w in caught]


def reemit(records: list, n: int, what: str) -> None:
    by_cat: dict = {}
    for cat, msg in records:
        by_cat.setdefault(cat, []).append(msg)
    for cat, msgs in by_cat.items():
        warn(f"{len(msgs)} warning(s) of this kind in {n} {what}; the first: {msgs[0]}", cat)


