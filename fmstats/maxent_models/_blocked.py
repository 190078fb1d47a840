"""``maxent``/``umaxent(..., keep_data=False)`` on a DataFrame in memory: the design in row blocks.

A fit that keeps no design needs it only for sums over the rows, so it never builds it whole:
:func:`fmstats.formula.blocked_model_frame` gives the response and a design built block by
block, and :func:`fmstats.glm.irls_logit_blocks` runs the IRLS core over the blocks
(the same Newton loop, start, stopping rule, column scaling and separation checks), gathering
the hat values and the HC0-HC3 sandwich meats in its last pass.  The argument checks are
``_prepare.py``'s; the numbers are those of the fit on the whole design
to ~1e-13 (the order of the sums differs).

Memory: beyond the data frame, the fit holds the n-vectors of the fit (response, weights,
linear predictor, fitted values, working weights, hat values) and one block of the design;
``benchmarks/reliability/bench_memory.py --case maxent`` measures the extra peak at n = 2e6, p = 50 (a
765 MiB frame) against the bound of 0.5 x the frame's size.  Formulas whose design depends on
all rows at once (stateful transforms, categorical terms that are not columns) and frames of a
design built once (tuning's DesignRows) are built whole, as with ``keep_data=True``, and the
design is dropped after the fit.

Time: a design of numeric columns fills its blocks from the frame's columns directly (the fit
takes about the time of a fit on the whole design: ``reliability/bench_memory.py --case
maxent``); factors and transforms go through the formula engine block by block, so every pass
over the data (iterations + 3) costs about one build of the design: such fits take several
times longer than on the whole design, the price of not holding it.
"""
from __future__ import annotations

import numpy as np

from .._utils.call import ModelCall
from ..exceptions import DesignError
from ..formula import blocked_model_frame, check_extremes
from ..glm import BlockDesign, BlockSource, rank_gram_blocks
from ..glm import check_weights_range
from ..glm import LP_MAX_ENTRIES, no_finite_mle
from ._prepare import checked_weights, check_settings, columns_to_keep, penalty_and_start
from ._training import InMemoryTraining

__all__ = ["prepare_blocked", "BlockedPrepared"]


class BlockedPrepared:
    """The counterpart of ``Prepared`` for a design built in
    row blocks: ``settings``, ``call``, ``frame``, ``aliased``, ``penalty``, ``start``,
    ``source(threshold)`` and ``training(fit)``."""

    def __init__(self, *, settings, call, frame, aliased, prior, w, penalty, start, rows,
                 intercept):
        self.settings, self.call, self.frame, self.aliased = settings, call, frame, aliased
        self.prior, self.w, self.penalty, self.start = prior, w, penalty, start
        self.rows, self.intercept = rows, intercept
        self._source = None

    @property
    def response(self):
        return self.frame.response

    def _exact_separation(self) -> bool:
        """Konis's linear programme on the whole design: small fits only (see
        :data:`fmstats.glm.LP_MAX_ENTRIES`)."""
        X = np.concatenate([X for _, _, X in self.rows])
        return no_finite_mle(X, self.frame.response.y, self.w)

    def source(self, threshold: float) -> BlockSource:
        """The row source of the IRLS core over the blocks."""
        small = self.rows.n * self.rows.p <= LP_MAX_ENTRIES
        self._source = BlockSource(self.rows, self.frame.response.y, self.w, threshold,
                                   intercept=self.intercept,
                                   exact_separation=self._exact_separation if small else None)
        return self._source

    def training(self, fit, rows=None, fweights=None) -> InMemoryTraining:
        """The training rows without their design: the hat values and covariances gathered
        by the last pass of the fit."""
        resp, stats = self.frame.response, self._source.stats
        return InMemoryTraining.without_design(
            shape=(self.rows.n, self.rows.p), has_intercept=self.intercept is not None,
            y=resp.y, trials=resp.trials, prior_weights=self.prior, index=self.frame.index,
            hat=stats.hat, covariances=stats.covariances(fit))


def _kept_columns(frame, keep: np.ndarray):
    """The design(start, stop) and design(positions) of the kept columns."""
    if keep.all():
        return frame.design, frame.rows_design
    cols = np.flatnonzero(keep)
    return (lambda a, b: np.ascontiguousarray(frame.design(a, b)[:, cols]),
            lambda pos: np.ascontiguousarray(frame.rows_design(pos)[:, cols]))


def prepare_blocked(model: str, call: ModelCall, data, weights, **fixed) -> BlockedPrepared | None:
    """``prepare`` with the design in row blocks, or None
    when it must be built whole (see the module docstring)."""
    settings = check_settings(model, call, **fixed)
    frame = blocked_model_frame(settings["formula"], data, missing=settings["missing"],
                                engine=settings["engine"])
    if frame is None:
        return None
    prior, w = checked_weights(model, frame, data, weights)
    names = list(frame.column_names)
    rows = BlockDesign(frame.design, tuple(frame.blocks()), frame.n, len(names),
                       sample=frame.rows_design)
    check_weights_range(w)
    with np.errstate(over="ignore", invalid="ignore"):   # an overflow is reported just below
        G, hi, lo, intercept = rank_gram_blocks(rows, w)
    check_extremes(hi, lo, names, "data")
    if not np.all(np.isfinite(G)):
        raise DesignError("X'WX of the design overflows double precision; rescale its "
                          "largest columns or the weights.")
    keep = columns_to_keep(G, names, settings["collinear"])
    design, sample = _kept_columns(frame, keep)
    kept_ones = [int(np.cumsum(keep)[intercept]) - 1] if intercept is not None else []
    rows = BlockDesign(design, rows.ranges, frame.n, int(keep.sum()), sample=sample)
    pen, start = penalty_and_start(names, keep, settings["penalty"], settings.get("start"))
    return BlockedPrepared(settings=settings, call=call, frame=frame, aliased=~keep,
                           prior=prior, w=w, penalty=pen, start=start, rows=rows,
                           intercept=kept_ones[0] if kept_ones else None)
