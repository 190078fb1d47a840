"""Progress bars for long work: one rule for when to show them and one way to draw them.

Used by every function that takes ``progress=`` (``_parallel.run_tasks`` and, through it,
tuning, bootstrap and validation; the cost-sensitive search; the SVM tuners; the
extreme-classification thresholds, SPE and label trees).

``progress=None`` (the default everywhere) means *show a bar only where it reads well*:

* in a terminal (standard error is a TTY): a text bar;
* in a Jupyter kernel with ``ipywidgets`` installed: a widget bar (``tqdm.auto``);
* in a Jupyter kernel **without** ``ipywidgets``: nothing.  tqdm would fall back to text on
  standard error there, and a notebook cell would fill with one stderr chunk per update;
* anywhere else (scripts with redirected output, pytest, CI): nothing.

The environment variable ``FMSTATS_PROGRESS`` overrides the automatic choice: ``0`` turns
bars off (the documentation build sets it, so executed notebooks carry no progress output),
``1`` turns them on.  An explicit ``progress=True``/``False`` always wins.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, Iterable

import numpy as np

from .validation import describe
from ..exceptions import InvalidArgumentError

__all__ = ["progress_enabled", "progress_bar", "ENV_VAR"]

ENV_VAR = "FMSTATS_PROGRESS"


def _in_kernel() -> bool:
    return "ipykernel" in sys.modules


def _widgets_available() -> bool:
    return importlib.util.find_spec("ipywidgets") is not None


def _auto() -> bool:
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env in ("0", "false", "no", "off"):
        return False
    if env in ("1", "true", "yes", "on"):
        return True
    if _in_kernel():
        return _widgets_available()
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):
        return False


def progress_enabled(progress: Any) -> bool:
    """``True``/``False`` as given; ``None`` applies the automatic rule of this module."""
    if progress is None:
        return _auto()
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"`progress` must be True, False or None (auto); got {describe(progress)}.")
    return bool(progress)


def progress_bar(iterable: Iterable | None = None, *, total: int | None = None,
                 desc: str | None = None, unit: str = "it"):
    """A transient ``tqdm.auto`` bar: a widget in Jupyter, text on standard error elsewhere.

    Callers decide *whether* to show one with :func:`progress_enabled`; this only draws it.
    """
    from tqdm.auto import tqdm
    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False)
