"""The folds of the tuning functions: the response they stratify on and the (train, test) splits.

``make_folds`` turns the ``cv`` argument of the tuning functions (an integer, a
scikit-learn-style splitter or explicit index pairs) into a checked
:class:`Folds`.  Integer ``cv`` gives stratified folds: the rows of each class
are shuffled with ``random_state`` and dealt round-robin to the folds, so every
fold holds ``floor`` or ``ceil`` of its share of each class.  Probabilistic
labels q are stratified on ``q >= 0.5``; rows whose response is missing form a
stratum of their own (the model drops them).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


import numpy as np
import pandas as pd

from .._utils.folds import check_folds, stratified_folds
from .._utils.validation import check_random_state, check_scalar, describe, warn
from ..exceptions import EmptyFoldWarning, InvalidArgumentError, ResponseError
from ..formula import FoldResponse

__all__ = ["Folds", "make_folds", "warn_empty_folds", "warn_no_positives",
           "fixed_seed", "kept_cv", "reuse_cv"]


@dataclass(frozen=True)
class Folds:
    """Checked (train, test) row positions with a repeat and fold number each.

    ``pairs[i]`` is ``(train, test)``, two int64 arrays of positions in the
    data; ``repeat[i]`` and ``fold[i]`` number the split (``repeat`` is 0 for
    splitters and explicit pairs).  ``description`` says how they were made.
    """

    pairs: tuple
    repeat: np.ndarray
    fold: np.ndarray
    description: str
    n_rows: int

    def __len__(self) -> int:
        return len(self.pairs)

    def table(self, response: FoldResponse | None = None) -> pd.DataFrame:
        """One row per split: repeat, fold, n_train, n_test (and test positives)."""
        out = pd.DataFrame({"repeat": self.repeat, "fold": self.fold,
                            "n_train": [len(tr) for tr, _ in self.pairs],
                            "n_test": [len(te) for _, te in self.pairs]})
        if response is not None:
            out["test_positives"] = self.test_positives(response)
        return out

    def test_positives(self, response: FoldResponse) -> np.ndarray:
        """Weight of the positive class in each test fold (sum of w y)."""
        wy = np.nan_to_num(response.w * response.y)
        return np.array([wy[te].sum() for _, te in self.pairs])


def make_folds(response: FoldResponse, cv: Any = 5, *, repeats: int = 1,
               random_state: Any = None) -> Folds:
    """Cross-validation splits of the rows of the data behind ``response``.

    Parameters
    ----------
    response : FoldResponse
        From :func:`fold_response`; used to stratify and to check class counts.
    cv : int, splitter or iterable of (train, test)
        An integer k >= 2 gives stratified k-fold splits (no more folds than rows of
        the minority class).  A splitter is called as ``cv.split(X, strata)`` with a
        dummy ``X`` and the 0/1 strata (scikit-learn's ``StratifiedKFold``,
        ``RepeatedStratifiedKFold``... work).  Explicit pairs hold integer positions
        (or boolean masks) of the rows of ``data``.
    repeats : int
        With integer ``cv``: repeat the k-fold split with fresh shuffles.
    random_state : None, int or Generator
        Seeds the shuffles of integer ``cv``.
    """
    check_scalar("repeats", repeats, low=1, integer=True)
    n = response.y.shape[0]
    strata = response.strata
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        k = int(check_scalar("cv", cv, low=2, integer=True))
        counts = {c: int(np.count_nonzero(strata == c)) for c in (0, 1)}
        minority = min(counts, key=counts.get)
        if counts[minority] == 0:
            raise ResponseError(
                f"the response '{response.name}' has a single class (no "
                f"{'positive' if minority else 'negative'} rows); cross-validation of a "
                "classifier needs both classes.")
        if k > counts[minority]:
            few = counts[minority]
            advice = (f"Use cv <= {few}." if few >= 2 else
                      "Cross-validation needs at least 2 rows of each class (cv >= 2), so "
                      "these rows cannot be cross-validated: use more data (with ci=True, "
                      "replicates of tiny data sets can fall below 2 such rows).")
            raise InvalidArgumentError(
                f"`cv` = {k} folds is more than the {few} row{'s' if few != 1 else ''} of the "
                f"minority class "
                f"({'positive' if minority else 'negative'}) of '{response.name}': stratified "
                f"folds would leave some test folds without that class. {advice}")
        pairs = stratified_folds(strata, k, check_random_state(random_state),
                                 repeats=int(repeats))
        repeat = np.repeat(np.arange(repeats), k)
        fold = np.tile(np.arange(k), repeats)
        rep_text = f", {repeats} repeats" if repeats > 1 else ""
        desc = f"{k}-fold stratified on '{response.name}'{rep_text}"
        return Folds(tuple(pairs), repeat, fold, desc, n)
    if repeats != 1:
        raise InvalidArgumentError(
            f"`repeats` works with an integer `cv` only; got repeats={repeats} with "
            f"cv={describe(cv)} (use a repeated splitter instead).")
    pairs = check_folds(cv, n, strata=strata)
    if hasattr(cv, "split") and callable(cv.split) and not isinstance(cv, (str, bytes)):
        desc = f"{len(pairs)} splits from {describe(cv, 80)}"
    else:
        desc = f"{len(pairs)} given (train, test) splits"
    idx = np.arange(len(pairs))
    return Folds(tuple(pairs), np.zeros(len(pairs), dtype=np.int64), idx, desc, n)




def fixed_seed(random_state) -> int:
    """A fixed integer seed, so that refits reproduce the same folds."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return int(random_state)
    return int(check_random_state(random_state).integers(0, 2**31 - 1))


def warn_empty_folds(folds: Folds, response: FoldResponse, pooling: str) -> None:
    warn_no_positives(folds.test_positives(response), response.name, pooling)


def warn_no_positives(test_positives, name: str, pooling: str) -> None:
    """An :class:`EmptyFoldWarning` when a test fold holds no positive weight (the folds'
    positive weights ``test_positives``, the response ``name``), saying what ``pooling``
    makes of it."""
    empty = np.flatnonzero(np.asarray(test_positives) <= 0)
    if not empty.size:
        return
    how = ("with pooling='tp_fp' such a fold only adds its false positives to the pooled counts, "
           "and the pooled F stays well defined" if pooling == "tp_fp" else
           "with pooling='mean' its F is 0 when it predicts any positive and 1 (zero_division) "
           "when it predicts none, which biases the mean of fold F; pooling='tp_fp' avoids this")
    warn(f"{empty.size} of {len(test_positives)} test folds (number(s) "
         f"{', '.join(str(int(i)) for i in empty[:10])}) hold no positive row of "
         f"'{name}'; {how}.", EmptyFoldWarning)


def kept_cv(cv):
    """``cv`` if it can make folds for other data (an int or a splitter), else None."""
    return cv if isinstance(cv, (int, np.integer)) or hasattr(cv, "split") else None


def reuse_cv(cv, fn: str):
    if cv is None:
        raise InvalidArgumentError(
            "refit() needs folds for the new rows, but this tuning used explicit (train, test) "
            f"splits, which belong to the old rows; rerun {fn}() with an integer cv or a "
            "splitter.")
    return cv
