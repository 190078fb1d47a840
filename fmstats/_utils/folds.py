"""Folds: the one assignment of rows to stratified folds, and the one check of folds a user
gives.

:func:`stratified_folds` deals the rows of each stratum round-robin over k folds (integer
``cv``).  :func:`check_folds` checks the folds a user gives as ``cv`` -- explicit (train,
test) pairs of positions or boolean masks, or a splitter with ``split(X, y)`` -- for every
entry point that takes them (``cv_tune``, ``tune_threshold``, ``calibrate``,
``multiclass_decision``, ``br``/``pcc``): every split a pair of non-empty one-dimensional
integer positions (or masks) of the rows, within range, training and test rows disjoint (no
held-out row is fitted on); and, for the methods that score every row once from a fit that
did not see it (cross-fitting: ``calibrate``'s pooled scores, ``multiclass_decision``'s
out-of-fold probabilities), test folds that hold every row exactly once.  Errors name
``cv``, the split and the rule.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import InvalidArgumentError
from .validation import describe

__all__ = ["stratified_folds", "check_folds"]


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


def _positions(name: str, idx: Any, n: int) -> np.ndarray:
    """The rows ``idx`` (integer positions or a boolean mask of the n rows), checked."""
    try:
        arr = np.asarray(idx)
    except (TypeError, ValueError):
        arr = np.asarray(idx, dtype=object)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InvalidArgumentError(
                f"{name} is a boolean mask of shape {arr.shape}; it must have one value per "
                f"row of the data ({n}).")
        arr = np.flatnonzero(arr)
    elif arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidArgumentError(
            f"{name} must be a 1-d array of integer row positions; got {describe(idx)}.")
    arr = arr.astype(np.int64)
    if arr.size == 0:
        raise InvalidArgumentError(f"{name} is empty; every split needs training and test rows.")
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidArgumentError(
            f"{name} has positions outside [0, {n - 1}] (the rows of the data); got min "
            f"{arr.min()} and max {arr.max()}.")
    return arr


def check_folds(cv: Any, n: int, *, strata: np.ndarray | None = None,
                partition: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) positions of the folds ``cv`` gives for ``n`` rows, checked.

    Parameters
    ----------
    cv : splitter or iterable of (train, test)
        A splitter (``cv.split(X, strata)`` is called with a dummy ``X`` of n rows) or
        explicit pairs of integer positions or boolean masks of the rows.
    n : int
        The number of rows.
    strata : ndarray of shape (n,), optional
        What a splitter stratifies on.
    partition : bool, default False
        Whether every row must be in exactly one test fold (methods that score every row
        once, from a fit that did not see it).

    Returns
    -------
    list of (ndarray, ndarray)
        int64 positions of the training and test rows of each split.

    Raises
    ------
    InvalidArgumentError
        Naming ``cv``, the split and the rule it breaks.
    """
    splitter = hasattr(cv, "split") and callable(cv.split) and not isinstance(cv, (str, bytes))
    what = type(cv).__name__ if splitter else "explicit splits"
    try:
        if isinstance(cv, (str, bytes, dict, float, bool, np.floating)):
            raise TypeError
        pairs = list(cv.split(np.zeros((n, 1)), np.zeros(n) if strata is None else strata)
                     if splitter else cv)
    except TypeError:
        raise InvalidArgumentError(
            "`cv` must be an integer number of folds, a splitter with a split(X, y) method or "
            f"an iterable of (train, test) index arrays; got {describe(cv)}.") from None
    if not pairs:
        raise InvalidArgumentError(f"`cv` ({what}) gave no splits; at least one is needed.")
    out = []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise InvalidArgumentError(
                f"split {i} of `cv` ({what}) must be a (train, test) pair of index arrays; "
                f"got {describe(pair)}.")
        train = _positions(f"the training rows of split {i} of `cv`", pair[0], n)
        test = _positions(f"the test rows of split {i} of `cv`", pair[1], n)
        both = np.intersect1d(train, test)
        if both.size:
            raise InvalidArgumentError(
                f"split {i} of `cv` uses {both.size} row(s) both for training and for testing "
                f"(e.g. position {both[0]}); the test rows must be held out.")
        out.append((train, test))
    if partition:
        times = np.bincount(np.concatenate([te for _, te in out]), minlength=n)
        if len(out) < 2 or times.max() != 1 or times.min() != 1:
            never, twice = np.flatnonzero(times == 0), np.flatnonzero(times > 1)
            detail = (f"{never.size} row(s) are in no test fold (e.g. position {never[0]}), so "
                      "they would get no score" if never.size else
                      f"{twice.size} row(s) are in more than one test fold (e.g. position "
                      f"{twice[0]})" if twice.size else "it has a single split")
            raise InvalidArgumentError(
                f"`cv` ({what}): every one of the {n} rows must be in exactly one test fold, "
                f"of at least two (each row is scored once by a fit that did not see it); "
                f"{detail}.")
    return out
