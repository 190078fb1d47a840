"""Rows of a data frame whose design was built once: the data argument carries the design.

:class:`DesignRows` is a pandas DataFrame of some rows of the data a
:class:`~fmstats.formula.DesignMatrix` was built on, which also holds that design and the rows'
positions in it.  Tuning and resampling hand such a frame to a model function or a results
method as its ``data``/``newdata`` argument (``fit.refit(design.subset(train))``);
:func:`fmstats.formula.model_frame` and :meth:`fmstats.formula.DesignSpec.build` see it and take
the design's rows instead of calling the formula engine again.  Nothing is looked up by
identity and nothing lives in ambient state: the frame itself carries the design.  Anything
derived from it (a column selection, a row subset, ``assign``) is a plain DataFrame, so a
changed frame never passes for the design's rows.  This module imports nothing from fmstats.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = ["DesignRows", "Reused", "reused_rows"]


class Reused(NamedTuple):
    """What a :class:`DesignRows` frame carries: the design built once (``owner``, a
    :class:`~fmstats.formula.DesignMatrix`), the rows' positions in it, and a memo of what
    was built from this frame (model frames, responses) shared by the fits that receive it."""

    owner: Any
    positions: np.ndarray
    memo: dict


class DesignRows(pd.DataFrame):
    """Rows ``positions`` of the data of a design built once, as a DataFrame.

    Built by :meth:`fmstats.formula.DesignMatrix.subset`; behaves as any DataFrame.  Operations
    return plain DataFrames (:attr:`_constructor`), so only this very frame carries the design.
    """

    _metadata = ["design_owner", "design_positions", "design_memo"]

    @property
    def _constructor(self):
        return pd.DataFrame

    @classmethod
    def of(cls, frame: pd.DataFrame, owner: Any, positions: np.ndarray) -> "DesignRows":
        """``frame`` (rows ``positions`` of ``owner``'s data) carrying ``owner``'s design."""
        out = cls(frame)
        out.design_owner = owner
        out.design_positions = np.asarray(positions, dtype=np.int64)
        out.design_memo = {}
        return out


def reused_rows(data: Any) -> Reused | None:
    """The design ``data`` carries (a :class:`DesignRows`), or None for any other data."""
    if isinstance(data, DesignRows) and getattr(data, "design_owner", None) is not None:
        return Reused(data.design_owner, data.design_positions, data.design_memo)
    return None
