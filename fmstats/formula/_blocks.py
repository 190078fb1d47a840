"""The design of an in-memory DataFrame built in blocks of rows, never whole.

:func:`model_frame` builds the n x p design at once: at n = 2e6, p = 50 that is 763 MiB beside
the 765 MiB frame, plus the engine's own column copies.  A fit that keeps no design
(``maxent(..., keep_data=False)``) needs the design only to accumulate sums over the rows
(X'WX, scores, hat values, sandwich meats), so :func:`blocked_model_frame` gives it a
:class:`BlockedFrame` instead: the response and the checked rows as :func:`model_frame` has
them, a :class:`DesignSpec` learnt on a sample holding every level of every factor, and
:meth:`BlockedFrame.design` building the design of any block of rows on demand -- the
row-source idea of the Dask path (``_dask.py``) applied to a frame in memory.

The blocks equal the rows of the whole design (same engine, same spec): the spec learnt on
the sample has the levels the whole frame has, and formulas whose design depends on all rows
(stateful transforms such as ``center``/``scale``/splines, categorical terms that are not
columns) are not built in blocks (:func:`blocked_model_frame` returns None).  When every
design column is the intercept, a numeric data column taken as it is or a treatment dummy
of a factor column (checked on the sample), a block is filled from the columns directly,
without the engine (several times faster; ``benchmarks/README.md``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._checks import check_frame
from ._direct import fill as fill_direct, sample_positions
from ._frame import (DEFAULT_ENGINE, ENGINES, DesignSpec, design_and_spec, direct_design, factor_columns, stateful_transform)
from ._modelframe import used_rows
from ._response import Response
from ._coerce import drop_unused_categories
from ._subset import reused_rows
from .._utils.validation import check_choice

__all__ = ["BlockedFrame", "blocked_model_frame", "BLOCK_ROWS"]

#: Rows per block: 32768 x 50 columns is 13 MiB of design per block.
BLOCK_ROWS = 32768


@dataclass(frozen=True)
class BlockedFrame:
    """A model frame whose design is built block by block (see the module docstring).

    ``formula``, ``response``, ``column_names``, ``spec``, ``index``, ``rows``, ``n_input``
    and ``n_dropped`` are :class:`ModelFrame`'s; ``data`` holds the used rows (a view of the
    user's frame when none was dropped; never kept by results), ``direct`` the data column of
    each design column (``sources``) when blocks are filled without
    the engine.
    """

    formula: str
    response: Response
    column_names: tuple
    spec: DesignSpec
    index: pd.Index
    rows: np.ndarray
    n_input: int
    n_dropped: int
    data: pd.DataFrame = field(repr=False)
    direct: tuple | None = None
    block_rows: int = BLOCK_ROWS
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n(self) -> int:
        """The number of rows used."""
        return len(self.rows)

    def blocks(self) -> list[tuple[int, int]]:
        """The (start, stop) row ranges of the blocks."""
        return [(a, min(a + self.block_rows, self.n)) for a in range(0, self.n, self.block_rows)]

    def design(self, start: int, stop: int) -> np.ndarray:
        """The design of rows ``start:stop`` (positions among the used rows), C-ordered."""
        if self.direct is None:
            return self.spec.build(self.data.iloc[start:stop], missing="raise", arg="data")[0]
        return fill_direct(self.data.iloc[start:stop], self.direct, levels=self.spec.levels)[0]

    def rows_design(self, positions) -> np.ndarray:
        """The design of the used rows at ``positions`` (a sample)."""
        positions = np.asarray(positions)
        if self.direct is None:
            return self.spec.build(self.data.iloc[positions], missing="raise", arg="data")[0]
        return fill_direct(self.data, self.direct, positions, self.spec.levels)[0]

    def whole(self) -> np.ndarray:
        """The whole design (small fits only: the exact separation test needs it)."""
        return np.concatenate([self.design(a, b) for a, b in self.blocks()]) if self.n else \
            np.empty((0, len(self.column_names)))


def blocked_model_frame(formula: str, data: Any, *, missing: str = "drop",
                        engine: str | None = None,
                        block_rows: int | None = None) -> BlockedFrame | None:
    """:func:`model_frame` without the design: a :class:`BlockedFrame` that builds it by
    blocks of ``block_rows`` rows (default :data:`BLOCK_ROWS`), or None when the design
    depends on all rows at once (a stateful transform, a categorical term that is not a data
    column), the formula has ``offset()`` terms (the row sources over blocks take no offset)
    or ``data`` is a :class:`DesignRows` frame (its design is built already); the
    caller then builds it whole.  The checks are :func:`model_frame`'s; the design's values
    are checked by the caller as it passes over the blocks
    (:func:`fmstats.formula.check_extremes`).

    Parameters
    ----------
    formula : str
        The model formula.
    data : pandas.DataFrame
        The data.
    missing : {"drop", "raise"}, default "drop"
        What a row with a missing value does.
    engine : {"formulaic", "patsy"}, optional
        The formula engine (None: the default engine).
    block_rows : int, optional
        Rows per block (None: :data:`BLOCK_ROWS`).

    Returns
    -------
    BlockedFrame or None
        The frame whose design is built by blocks, or None when it must be built whole.
    """
    engine = DEFAULT_ENGINE if engine is None else engine
    check_choice("engine", engine, ENGINES)
    check_choice("missing", missing, ("drop", "raise"))
    data = check_frame(data, "data")
    if reused_rows(data) is not None:
        return None
    u = used_rows(formula, data, missing, engine)
    if stateful_transform(u.rhs) is not None or u.offsets:    # offsets: the whole design's
        return None
    frame = drop_unused_categories(u.frame, u.variables)
    factors = factor_columns(frame, u.rhs, u.variables)
    sample = sample_positions(frame, factors)
    X0, spec, _ = design_and_spec(engine, u.rhs, u.lhs, frame.iloc[sample], u.variables,
                                  u.response.levels)
    if spec.data_dependent() is not None:
        return None
    return BlockedFrame(formula=formula, response=u.response, column_names=spec.column_names,
                        spec=spec, index=frame.index, rows=u.rows, n_input=u.n_input,
                        n_dropped=u.n_input - len(frame), data=frame,
                        direct=direct_design(spec, frame, factors, X0, sample),
                        block_rows=int(BLOCK_ROWS if block_rows is None else block_rows))
