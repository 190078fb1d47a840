"""Cross-validation plumbing shared by the tuning functions: folds, the pooled criterion, fits.

Folds
-----
``make_folds`` turns the ``cv`` argument of the tuning functions (an integer, a
scikit-learn-style splitter or explicit index pairs) into a checked
:class:`Folds`.  Integer ``cv`` gives stratified folds: the rows of each class
are shuffled with ``random_state`` and dealt round-robin to the folds, so every
fold holds ``floor`` or ``ceil`` of its share of each class.  Probabilistic
labels q are stratified on ``q >= 0.5``; rows whose response is missing form a
stratum of their own (the model drops them).

Criterion and fits
------------------
:class:`Criterion` pools fold confusion counts into F (or accuracy) as
Forman & Scholz's F_tp,fp or as the mean of fold values; :func:`capturing` runs
one fit in a worker, returning an FmstatsError instead of raising it and the
warnings it emitted, which :func:`reemit` repeats once per category in the
calling process (so warnings do not depend on ``n_jobs``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import warnings

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.folds import stratified_folds
from .._utils.validation import check_choice, check_random_state, check_scalar, describe, warn
from ..exceptions import (DataError, EmptyFoldWarning, FmstatsError,
                         FormulaError, InvalidArgumentError, ResponseError)
from ..formula import nonfinite_mask
from ..formula import response as response_of
from ..formula import check_frame, parse_response, split_formula

__all__ = ["ResponseRows", "response_rows", "Folds", "make_folds", "Criterion",
           "capturing", "reemit", "warn_empty_folds",
           "fixed_seed", "kept_cv", "reuse_cv"]


@dataclass(frozen=True)
class ResponseRows:
    """The response of a formula on every row of a frame.

    ``y`` is the proportion in [0, 1] (NaN where the response is missing), ``w``
    the count weight of the row (``yes + no`` for ``cbind``, else 1; 0 where
    missing), ``name`` the response's text.  A row contributes ``w y`` to the
    positives and ``w (1 - y)`` to the negatives of confusion counts.
    """

    name: str
    y: np.ndarray
    w: np.ndarray

    @property
    def observed(self) -> np.ndarray:
        return ~np.isnan(self.y)

    @property
    def strata(self) -> np.ndarray:
        """0/1 by ``y >= 0.5``; -1 where the response is missing."""
        return np.where(self.observed, (np.nan_to_num(self.y) >= 0.5).astype(np.int64), -1)


def response_rows(formula: Any, data: Any) -> ResponseRows:
    """Evaluate only the left-hand side of ``formula`` on ``data`` (no design matrix)."""
    if not isinstance(formula, str):
        raise FormulaError(f"`formula` must be a string such as 'y ~ x1 + x2'; got "
                           f"{describe(formula)}.")
    data = check_frame(data, "data")
    lhs, _ = split_formula(formula)
    kind, cols, expr = parse_response(lhs, data)
    ok = ~nonfinite_mask(data[cols]) if cols else np.ones(len(data), dtype=bool)
    if not ok.any():
        raise DataError(f"the response '{lhs}' is missing on every row of `data`.")
    resp = response_of(kind, cols, expr, data.loc[ok], lhs)
    y = np.full(len(data), np.nan)
    w = np.zeros(len(data))
    y[ok] = resp.y
    w[ok] = 1.0 if resp.trials is None else resp.trials
    return ResponseRows(name=lhs, y=y, w=w)


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

    def table(self, response: ResponseRows | None = None) -> pd.DataFrame:
        """One row per split: repeat, fold, n_train, n_test (and test positives)."""
        out = pd.DataFrame({"repeat": self.repeat, "fold": self.fold,
                            "n_train": [len(tr) for tr, _ in self.pairs],
                            "n_test": [len(te) for _, te in self.pairs]})
        if response is not None:
            out["test_positives"] = self.test_positives(response)
        return out

    def test_positives(self, response: ResponseRows) -> np.ndarray:
        """Weight of the positive class in each test fold (sum of w y)."""
        wy = np.nan_to_num(response.w * response.y)
        return np.array([wy[te].sum() for _, te in self.pairs])


def _as_positions(name: str, idx: Any, n: int) -> np.ndarray:
    arr = np.asarray(idx)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise InvalidArgumentError(
                f"{name} is a boolean mask of shape {arr.shape}; it must have one value per "
                f"row of `data` ({n}).")
        return np.flatnonzero(arr)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise InvalidArgumentError(
            f"{name} must be a 1-d array of integer row positions; got {describe(idx)}.")
    arr = arr.astype(np.int64)
    if arr.size == 0:
        raise InvalidArgumentError(f"{name} is empty; every split needs training and test rows.")
    if arr.min() < 0 or arr.max() >= n:
        raise InvalidArgumentError(
            f"{name} holds positions outside [0, {n - 1}] (the rows of `data`); got min "
            f"{arr.min()} and max {arr.max()}.")
    return arr


def _explicit(pairs: Any, n: int, what: str) -> list:
    try:
        if isinstance(pairs, (str, bytes, dict, float)):
            raise TypeError
        pairs = list(pairs)
    except TypeError:
        raise InvalidArgumentError(
            "`cv` must be an integer number of folds, a splitter with a split(X, y) method or "
            f"an iterable of (train, test) index arrays; got {describe(pairs)}.") from None
    if not pairs:
        raise InvalidArgumentError(f"`cv` ({what}) gave no splits; at least one is needed.")
    out = []
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise InvalidArgumentError(
                f"split {i} of `cv` ({what}) must be a (train, test) pair of index arrays; "
                f"got {describe(pair)}.")
        train = _as_positions(f"the training rows of split {i} of `cv`", pair[0], n)
        test = _as_positions(f"the test rows of split {i} of `cv`", pair[1], n)
        both = np.intersect1d(train, test)
        if both.size:
            raise InvalidArgumentError(
                f"split {i} of `cv` uses {both.size} row(s) both for training and for testing "
                f"(e.g. position {both[0]}); the test rows must be held out.")
        out.append((train, test))
    return out


def make_folds(response: ResponseRows, cv: Any = 5, *, repeats: int = 1,
               random_state: Any = None) -> Folds:
    """Cross-validation splits of the rows of the data behind ``response``.

    Parameters
    ----------
    response : ResponseRows
        From :func:`response_rows`; used to stratify and to check class counts.
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
            raise InvalidArgumentError(
                f"`cv` = {k} folds is more than the {counts[minority]} rows of the minority class "
                f"({'positive' if minority else 'negative'}) of '{response.name}': stratified "
                "folds would leave some test folds without that class. Use cv <= "
                f"{counts[minority]}.")
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
    if hasattr(cv, "split") and callable(cv.split) and not isinstance(cv, (str, bytes)):
        what = type(cv).__name__
        pairs = _explicit(cv.split(np.zeros((n, 1)), strata), n, what)
        desc = f"{len(pairs)} splits from {describe(cv, 80)}"
    else:
        pairs = _explicit(cv, n, "explicit splits")
        desc = f"{len(pairs)} given (train, test) splits"
    idx = np.arange(len(pairs))
    return Folds(tuple(pairs), np.zeros(len(pairs), dtype=np.int64), idx, desc, n)


_POOLINGS = ("tp_fp", "mean")
_POOLING_TEXT = {
    "tp_fp": "TP, FP and FN averaged over the {k} held-out folds, then the measure "
             "(Forman & Scholz's F_tp,fp; thesis section 8.2)",
    "mean": "the measure on each of the {k} held-out folds, averaged (mean of fold values)",
}


# ----------------------------------------------------------------------------- the criterion
class Criterion:
    """The measure (an F-measure or accuracy) and the pooling over folds."""

    def __init__(self, measure, beta, alpha, pooling):
        check_choice("pooling", pooling, _POOLINGS)
        self.accuracy = isinstance(measure, str) and measure == "accuracy"
        if isinstance(measure, str) and not self.accuracy:
            raise InvalidArgumentError(
                f"`measure` must be an FMeasure, 'accuracy' or None (F from beta/alpha, default "
                f"F1); got {measure!r}.")
        # with accuracy, the F-measure (beta/alpha, default F1) is still reported beside it
        self.fmeasure = _m.as_fmeasure(None if self.accuracy else measure, beta, alpha)
        self.pooling = pooling
        self.name = "accuracy" if self.accuracy else self.fmeasure.name
        self.column = "accuracy" if self.accuracy else "f"

    def as_kwargs(self) -> dict:
        """The arguments that make this criterion again (for refits)."""
        kw = ({"measure": "accuracy", "alpha": self.fmeasure.alpha} if self.accuracy
              else {"measure": self.fmeasure})
        return {**kw, "pooling": self.pooling}

    def text(self, k: int) -> str:
        what = "accuracy (TP + TN) / n" if self.accuracy else str(self.fmeasure)
        return f"{what}; {_POOLING_TEXT[self.pooling].format(k=k)}"

    def per_fold(self, counts: np.ndarray) -> np.ndarray:
        """The measure of every count vector in ``counts`` (..., 4) = tp, fp, fn, tn."""
        if self.accuracy:
            return _accuracy(counts)
        return _f(counts, self.fmeasure.alpha)

    def summarise(self, counts: np.ndarray) -> dict:
        """Pool fold counts (k, ..., 4) over axis 0: f, precision, recall, accuracy.

        ``f`` and ``accuracy`` follow the pooling (``"tp_fp"``: the measure of the
        summed counts, which equals that of the averaged counts, as
        :func:`fmstats.measures.pooled_cv_f`; ``"mean"``: the mean of the fold
        values); precision and recall are always those of the summed counts.
        """
        total = counts.sum(axis=0)
        tp, fp, fn = total[..., 0], total[..., 1], total[..., 2]
        acc = (_accuracy(total) if self.pooling == "tp_fp"
               else _accuracy(counts).mean(axis=0))
        return {"precision": _m.ratio(tp, fp, fn, 1.0, 0.0, 1.0),
                "recall": _m.ratio(tp, fp, fn, 0.0, 1.0, 1.0),
                "f": _m.pooled_f(counts, self.fmeasure.alpha, self.pooling), "accuracy": acc}


def _f(counts: np.ndarray, alpha: float) -> np.ndarray:
    """F = TP / (TP + alpha FP + (1 - alpha) FN) (1 where the denominator is 0)."""
    return np.asarray(_m.ratio(counts[..., 0], counts[..., 1], counts[..., 2], alpha,
                                1.0 - alpha, 1.0), dtype=float)


def _accuracy(counts: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=-1)
    return np.divide(counts[..., 0] + counts[..., 3], n, out=np.full(np.shape(n), np.nan),
                     where=n > 0)


# ----------------------------------------------------------------------------- running fits
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


def fixed_seed(random_state) -> int:
    """A fixed integer seed, so that refits reproduce the same folds."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return int(random_state)
    return int(check_random_state(random_state).integers(0, 2**31 - 1))


def warn_empty_folds(folds: Folds, response: ResponseRows, pooling: str) -> None:
    empty = np.flatnonzero(folds.test_positives(response) <= 0)
    if not empty.size:
        return
    how = ("with pooling='tp_fp' such a fold only adds its false positives to the pooled counts, "
           "and the pooled F stays well defined" if pooling == "tp_fp" else
           "with pooling='mean' its F is 0 when it predicts any positive and 1 (zero_division) "
           "when it predicts none, which biases the mean of fold F; pooling='tp_fp' avoids this")
    warn(f"{empty.size} of {len(folds)} test folds (number(s) "
         f"{', '.join(str(int(i)) for i in empty[:10])}) hold no positive row of "
         f"'{response.name}'; {how}.", EmptyFoldWarning)


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
