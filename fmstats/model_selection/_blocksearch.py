"""The exact threshold search on scores that stay where they are: refinement by score bits.

:func:`fmstats.tune_threshold` evaluates the criterion at every cut of the pooled held-out
scores (``curve_arrays``: one sort).  Out of core the
scores live on the row blocks, and sorting 10^6-10^8 of them on the client is what a cluster
is for avoiding.  The search here gives the same tuned threshold without a sort and without a
sample:

* the scores are mapped to 64-bit keys that sort as the scores do (the float's bits, the sign
  flipped for positive numbers and all bits flipped for negative ones), and every block sums
  its rows' positive and negative weights (per fold for ``pooling="mean"``) in *cells*: the
  rows sharing the keys' leading 16 bits; the client adds the blocks' cells;
* a cut at a cell's lower edge is an exact cut of the curve (its counts are the sums of the
  cells above); a cut inside a cell can do no better than the cell's *bound*, the criterion
  with all the cell's positives and none of its negatives classed positive (the criterion
  grows with TP and falls with FP, fold by fold);
* the cells whose bound reaches the best edge value (within the tie tolerance) are refined by
  12 more bits of the key, on the rows in them only, until the refined cells are single
  scores (64 bits).

The result is the criterion at every edge of the final cells -- the exact curve at those cuts
-- and the best cut among them is the best cut of the whole curve (every other cut lies in a
pruned cell, whose bound is below the best value by more than the tie tolerance), with the
same tie rule (:func:`fmstats.measures.best_position`, thresholds from the highest) and the
same midpoint threshold.  Each level is one pass over the blocks (4-5 in all), and the
client holds at most the cells of one level.

``gather(fn, **kw)`` is the pass: ``fn(s, pos, neg, split, **kw)`` on every block's
held-out scores, the results in a list (:meth:`fmstats.maxent_models._oocrefits.BlockRefits.
held_out`).  Pure numpy otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import measures as _m
from ._criterion import Criterion

__all__ = ["score_keys", "exact_search", "BlockSearch", "LEVELS"]

#: The leading key bits of the cells of each refinement level.
LEVELS = (16, 28, 40, 52, 64)
_SIGN = np.uint64(1 << 63)


def score_keys(s) -> np.ndarray:
    """uint64 keys that sort as the float scores ``s`` do (-0.0 taken as 0.0)."""
    s = np.ascontiguousarray(np.asarray(s, dtype=np.float64) + 0.0)
    u = s.view(np.uint64)
    return np.where(s >= 0, u | _SIGN, ~u)


def _cells_block(s, pos, neg, split, bits, parent_bits, parents, folds, per_fold, own):
    """One block's cells at ``bits``: (prefixes, positive and negative weights (cells,
    folds or 1), lowest and highest score), on the rows whose ``parent_bits`` prefix is among
    ``parents`` (all rows at the first level), with the first level's fold totals (rows,
    positives, negatives and the TP and FP of ``score >= own``)."""
    s = np.asarray(s, dtype=float)
    split = np.asarray(split, dtype=np.int64)
    extra = None
    if parents is None:
        at = s >= own if own is not None else np.zeros(len(s), dtype=bool)
        extra = np.stack([np.bincount(split, minlength=folds),
                          np.bincount(split, pos, minlength=folds),
                          np.bincount(split, neg, minlength=folds),
                          np.bincount(split, np.where(at, pos, 0.0), minlength=folds),
                          np.bincount(split, np.where(at, neg, 0.0), minlength=folds)])
    key = score_keys(s)
    if parents is not None:
        keep = np.isin(key >> np.uint64(64 - parent_bits), parents)
        s, pos, neg, split, key = s[keep], pos[keep], neg[keep], split[keep], key[keep]
    return _aggregate(key >> np.uint64(64 - bits), s, pos, neg, split if per_fold else None,
                      folds) + (extra,)


def _aggregate(prefix, s, pos, neg, split, folds):
    """Cells of rows (or of cells) by ``prefix``: sums of pos and neg (per fold when
    ``split`` is given), min and max score."""
    uniq, inv = np.unique(prefix, return_inverse=True)
    inv = inv.reshape(-1)
    m = len(uniq)
    if split is None:
        P = np.bincount(inv, pos, minlength=m)[:, None]
        N = np.bincount(inv, neg, minlength=m)[:, None]
    else:
        idx = inv * folds + split
        P = np.bincount(idx, pos, minlength=m * folds).reshape(m, folds)
        N = np.bincount(idx, neg, minlength=m * folds).reshape(m, folds)
    lo = np.full(m, np.inf)
    hi = np.full(m, -np.inf)
    np.minimum.at(lo, inv, s)
    np.maximum.at(hi, inv, s)
    return uniq, P, N, lo, hi


def _merge(parts, folds, per_fold):
    """The cells of all blocks added (by prefix)."""
    prefix = np.concatenate([p[0] for p in parts])
    P = np.concatenate([p[1] for p in parts])
    N = np.concatenate([p[2] for p in parts])
    lo = np.concatenate([p[3] for p in parts])
    hi = np.concatenate([p[4] for p in parts])
    uniq, inv = np.unique(prefix, return_inverse=True)
    inv = inv.reshape(-1)
    Pm = np.zeros((len(uniq), P.shape[1]))
    Nm = np.zeros_like(Pm)
    np.add.at(Pm, inv, P)
    np.add.at(Nm, inv, N)
    lo_m = np.full(len(uniq), np.inf)
    hi_m = np.full(len(uniq), -np.inf)
    np.minimum.at(lo_m, inv, lo)
    np.maximum.at(hi_m, inv, hi)
    return uniq, Pm, Nm, lo_m, hi_m


@dataclass
class _Cells:
    """Disjoint cells of the key space, each at its own level (bits)."""

    prefix: np.ndarray
    bits: np.ndarray
    P: np.ndarray
    N: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    def order(self) -> "_Cells":
        """Sorted from the highest scores (the cells' lower key edges, descending)."""
        edge = self.prefix << (np.uint64(64) - self.bits.astype(np.uint64))
        o = np.argsort(edge, kind="stable")[::-1]
        return _Cells(self.prefix[o], self.bits[o], self.P[o], self.N[o], self.lo[o],
                      self.hi[o])

    def drop(self, mask) -> "_Cells":
        k = ~mask
        return _Cells(self.prefix[k], self.bits[k], self.P[k], self.N[k], self.lo[k],
                      self.hi[k])

    def add(self, other: "_Cells") -> "_Cells":
        return _Cells(*(np.concatenate([a, b]) for a, b in
                        zip((self.prefix, self.bits, self.P, self.N, self.lo, self.hi),
                            (other.prefix, other.bits, other.P, other.N, other.lo, other.hi))))


def _counts(cells: _Cells, totals_P, totals_N):
    """Counts (folds, cells + 1, 4) at the cut above every cell edge: row 0 nothing
    positive, row j the cells 1..j positive."""
    tp = np.vstack([np.zeros((1, cells.P.shape[1])), np.cumsum(cells.P, axis=0)])
    fp = np.vstack([np.zeros((1, cells.N.shape[1])), np.cumsum(cells.N, axis=0)])
    c = np.stack([tp, fp, totals_P[None, :] - tp, totals_N[None, :] - fp], axis=-1)
    return np.moveaxis(c, 1, 0)        # (folds, cuts, 4)


def _bounds(cells: _Cells, counts, crit: Criterion):
    """The criterion's bound inside every cell: its positives in, its negatives out."""
    best = counts[:, :-1].copy()            # the cut above the cell
    best[..., 0] += cells.P.T
    best[..., 2] -= cells.P.T
    return np.asarray(crit.summarise(best)[crit.column], dtype=float)


@dataclass(frozen=True)
class BlockSearch:
    """What :func:`exact_search` found.

    Parameters
    ----------
    threshold : float
        The tuned threshold (the midpoint between the lowest score classed positive and the
        next lower score).
    curve : DataFrame
        The criterion at every edge of the final cells: the exact curve at those cuts
        (threshold: the lowest score classed positive; +inf: none), a thinned version of the
        in-memory curve that holds every cut near the best one.
    best : int
        The row of ``curve`` at the tuned threshold.
    fold_table : DataFrame
        Per fold: held-out rows, their positive and negative weights.
    own_counts : ndarray of shape (folds, 4) or None
        The held-out counts of the rule ``score >= own`` (the model's own threshold).
    passes : int
        The passes over the blocks.
    """

    threshold: float
    curve: pd.DataFrame
    best: int
    fold_table: pd.DataFrame
    own_counts: np.ndarray | None
    passes: int


def exact_search(gather, crit: Criterion, folds: int, own: float | None = None
                 ) -> BlockSearch:
    """The exact threshold search of the held-out scores behind ``gather`` (module notes).

    Parameters
    ----------
    gather : callable
        ``gather(fn, **kwargs)``: ``fn(s, pos, neg, split, **kwargs)`` on every block's
        held-out scores, weights of the positives and negatives and fold, the results as a
        list.
    crit : Criterion
        The criterion and its pooling.
    folds : int
        The number of folds (``split`` takes values 0 .. folds - 1).
    own : float, optional
        A threshold whose held-out counts are reported too (the model's own).

    Returns
    -------
    BlockSearch
    """
    per_fold = crit.pooling == "mean"
    width = folds if per_fold else 1
    tol = 2 * _m.TIE_RTOL
    parts = gather(_cells_block, bits=LEVELS[0], parent_bits=0, parents=None, folds=folds,
                   per_fold=per_fold, own=own)
    extra = sum(p[5] for p in parts)
    totals_P = extra[1] if per_fold else np.array([extra[1].sum()])
    totals_N = extra[2] if per_fold else np.array([extra[2].sum()])
    merged = _merge([p[:5] for p in parts], folds, per_fold)
    cells = _Cells(merged[0], np.full(len(merged[0]), LEVELS[0]), *merged[1:]).order()
    passes, level = 1, 0
    while True:
        counts = _counts(cells, totals_P, totals_N)
        values = np.asarray(crit.summarise(counts)[crit.column], dtype=float)
        top = float(np.nanmax(values))
        bound = _bounds(cells, counts, crit)
        cand = (cells.bits < 64) & (bound >= top - tol * max(1.0, abs(top)))
        if not cand.any() or level + 1 >= len(LEVELS):
            break
        level += 1
        parents = np.sort(cells.prefix[cand])
        parts = gather(_cells_block, bits=LEVELS[level], parent_bits=LEVELS[level - 1],
                       parents=parents, folds=folds, per_fold=per_fold, own=None)
        passes += 1
        merged = _merge([p[:5] for p in parts], folds, per_fold)
        new = _Cells(merged[0], np.full(len(merged[0]), LEVELS[level]), *merged[1:])
        cells = cells.drop(cand).add(new).order()
    best = _m.best_position(values)
    t = np.r_[np.inf, cells.lo]
    if best == 0:
        threshold = np.inf
    elif best == len(cells.lo):
        threshold = -np.inf
    else:
        threshold = 0.5 * (cells.lo[best - 1] + cells.hi[best])
    curve = pd.DataFrame({"threshold": t})
    curve[["tp", "fp", "fn", "tn"]] = counts.sum(axis=0)
    for col, v in crit.summarise(counts).items():
        curve[col] = v
    table = pd.DataFrame({"fold": np.arange(folds), "n_test": extra[0].astype(np.int64),
                          "test_positives": extra[1], "test_negatives": extra[2]})
    own_counts = None
    if own is not None:
        own_counts = np.stack([extra[3], extra[4], extra[1] - extra[3], extra[2] - extra[4]],
                              axis=-1)
    return BlockSearch(threshold=float(threshold), curve=curve, best=int(best),
                       fold_table=table, own_counts=own_counts, passes=passes)
