"""Stratified k-fold splits: the one assignment of rows to folds.

Used by :func:`fmstats.model_selection` (``cv_tune``, ``tune_threshold``: integer ``cv``) and by
:mod:`fmstats.multilabel` (the per-label penalty search of ``br``/``pcc``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["stratified_folds"]


def stratified_folds(strata: np.ndarray, k: int, rng: np.random.Generator,
                     repeats: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """``repeats`` x ``k`` (train, test) position pairs, stratified on ``strata``.

    The rows are shuffled within each stratum and dealt round-robin over the k folds, so
    every fold holds each stratum's rows evenly (to one row).
    """
    strata = np.asarray(strata)
    n = strata.shape[0]
    out = []
    for _ in range(repeats):
        perm = rng.permutation(n)
        order = perm[np.argsort(strata[perm], kind="stable")]  # shuffled within each stratum
        fold = np.empty(n, dtype=np.int64)
        fold[order] = np.arange(n) % k                         # dealt round-robin
        out.extend((np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k))
    return out
