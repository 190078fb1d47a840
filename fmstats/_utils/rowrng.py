"""Random numbers attached to rows: counter-based draws that do not depend on the partitioning.

Out of core the rows of a data set live in partitions whose number and sizes are the user's
(or the file layout's) choice; a resampling must not depend on them.  Every draw here is a
function of a *key* (from the seed and the replicate) and of the row's *global position* only
(its place among the rows of the data, counted over all partitions in order): the uniform of
row i under key k is output i mod 4 of block i // 4 of numpy's Philox4x64 counter-based
generator with that key (Salmon et al. 2011; the generator takes a counter, so any block is
computed directly, without the blocks before it).  A partition holding rows a..b computes its
own draws, and the same rows give the same draws whichever partition holds them.

* :func:`row_uniforms` -- U(0, 1) per row, for one key;
* :func:`poisson_counts` -- Poisson(1) multiplicities (the Poisson bootstrap: Hanley &
  MacGibbon 2006, Chamandy et al. 2012), one column per key, by inverse CDF of the uniform;
* :func:`row_folds` -- a fold per row, uniform over k folds from the row's uniform under a
  fold key;
* :func:`replicate_keys` -- the keys of B replicates from their seeds.

Pure numpy; used by the out-of-core replicate engine (``fmstats.glm.RowDraws``) and by
anyone who wants the same counts in memory (``BootstrapResults.counts``, the tests).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["row_uniforms", "poisson_counts", "row_folds", "replicate_keys", "fold_key",
           "POISSON_CDF"]

#: P(N <= j) of N ~ Poisson(1), j = 0 .. 19 (the last equals 1 to double precision).
POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(j) for j in range(20)])
_TO_UNIT = 2.0 ** -53


def replicate_keys(seeds) -> np.ndarray:
    """(B, 2) uint64 Philox keys of replicates from their seeds (``numpy.random.SeedSequence``
    or integers)."""
    out = np.empty((len(seeds), 2), dtype=np.uint64)
    for b, s in enumerate(seeds):
        ss = s if isinstance(s, np.random.SeedSequence) else np.random.SeedSequence(int(s))
        out[b] = ss.generate_state(2, np.uint64)
    return out


def fold_key(seed: int) -> np.ndarray:
    """The Philox key of the fold assignment of ``seed`` (an integer)."""
    return np.random.SeedSequence([int(seed), 0x666F6C64]).generate_state(2, np.uint64)


def _raw(key: np.ndarray, start: int, n: int) -> np.ndarray:
    """The uint64 outputs of rows start .. start + n - 1 under ``key``."""
    from numpy.random import Philox

    block, skip = divmod(int(start), 4)
    gen = Philox(key=np.asarray(key, dtype=np.uint64),
                 counter=np.array([block, 0, 0, 0], dtype=np.uint64))
    return gen.random_raw(skip + n)[skip:] if n else np.empty(0, dtype=np.uint64)


def _runs(positions: np.ndarray):
    """(start, first index, length) of the runs of consecutive positions."""
    positions = np.asarray(positions, dtype=np.int64)
    if positions.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(positions) != 1) + 1
    firsts = np.r_[0, breaks]
    lengths = np.diff(np.r_[firsts, positions.size])
    return [(int(positions[f]), int(f), int(k)) for f, k in zip(firsts, lengths)]


def row_uniforms(key: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """U(0, 1) draws of the rows at global ``positions`` under ``key`` (53-bit resolution).

    Parameters
    ----------
    key : ndarray of 2 uint64
        The key (:func:`replicate_keys`, :func:`fold_key`).
    positions : ndarray of int
        The rows' global positions (usually one run, a partition's rows).

    Returns
    -------
    ndarray of float
    """
    positions = np.asarray(positions, dtype=np.int64)
    raw = np.empty(positions.size, dtype=np.uint64)
    for start, first, k in _runs(positions):
        raw[first:first + k] = _raw(key, start, k)
    return (raw >> np.uint64(11)) * _TO_UNIT


def poisson_counts(keys: np.ndarray, positions: np.ndarray, dtype=float) -> np.ndarray:
    """Poisson(1) multiplicities (len(positions), len(keys)) of the rows, one column per key.

    The count is the smallest j with U <= P(N <= j) for the row's uniform U: exact
    Poisson(1) to double precision.
    """
    keys = np.atleast_2d(np.asarray(keys, dtype=np.uint64))
    out = np.empty((np.size(positions), keys.shape[0]), dtype=dtype)
    for b, key in enumerate(keys):
        u = row_uniforms(key, positions)
        c = (u > POISSON_CDF[0]).astype(np.int64)
        c += u > POISSON_CDF[1]
        c += u > POISSON_CDF[2]
        tail = np.flatnonzero(u > POISSON_CDF[2])        # 8 % of the rows
        if tail.size:
            c[tail] = np.searchsorted(POISSON_CDF, u[tail], side="left")
        out[:, b] = c
    return out


def row_folds(key: np.ndarray, positions: np.ndarray, k: int) -> np.ndarray:
    """A fold 0 .. k-1 per row: floor(k U) of the row's uniform under the fold ``key``
    (independent, uniform over the folds; not stratified)."""
    return np.minimum((row_uniforms(key, positions) * k).astype(np.int64), k - 1)
