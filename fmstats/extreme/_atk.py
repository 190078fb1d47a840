"""Measures at k of extreme multi-label classification, on sparse labels and top-k predictions.

The measures the field reports (napkinXC's ``measures``, pyxclib, xCOLUMNs), computed
vectorised from a CSR label matrix ``Y`` (n, m) and a top-k prediction (an (n, K) array of
label indices per instance in decreasing score, -1 for no prediction, or a
:class:`~fmstats.extreme.TopK`):

* instance-wise: :func:`precision_at_k`, :func:`recall_at_k`, :func:`ndcg_at_k`;
* propensity-scored (Jain, Prabhu and Varma 2016): :func:`inverse_propensities` and the
  normalised :func:`psprecision_at_k`, :func:`psndcg_at_k`;
* label-wise: :func:`macro_f_at_k` (with :func:`macro_precision_at_k`,
  :func:`macro_recall_at_k`) and :func:`coverage_at_k`;
* :func:`measures_at_k`: all of them as one table.

Every function takes ``k`` as an integer (returns a float) or a sequence of integers
(returns ``{k: value}``); each k must be between 1 and K.  Conventions are napkinXC's
(which pyxclib shares): the propensity-scored measures are normalised by the best value a
ranking could reach on the same truth (the ratio of the sums over instances); an instance
without true labels counts ``zero_division`` in recall@k, nDCG@k and PSnDCG@k (default 0).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._utils.validation import check_scalar, describe, num
from ..exceptions import DataError, InvalidArgumentError
from ..measures import FMeasure, as_fmeasure, check_zero_division, ratio
from ._spe import check_label_matrix
from .._utils.boundary import public

__all__ = ["TopK", "precision_at_k", "recall_at_k", "ndcg_at_k", "inverse_propensities",
           "psprecision_at_k", "psndcg_at_k", "macro_f_at_k", "macro_precision_at_k",
           "macro_recall_at_k", "coverage_at_k", "measures_at_k"]


class TopK(NamedTuple):
    """Top-k predictions: ``labels`` (n, k) in decreasing probability, ``scores`` (n, k).

    Built by :meth:`ProbabilisticLabelTreeResults.predict_topk` and the plug-in classifiers, not by
    users.

    Parameters
    ----------
    labels : ndarray of shape (n, k)
        Label indices per instance, in decreasing probability (-1: no label).
    scores : ndarray of shape (n, k)
        Their marginal probabilities.
    """

    labels: np.ndarray
    scores: np.ndarray


_SHARED = """Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance, best first; -1 marks no prediction.
    k : int or sequence of int, default (1, 3, 5)
        Each between 1 and K."""

_RETURNS = """Returns
    -------
    float or dict
        A float for an integer ``k``, else a dict ``{k: value}``."""


def _documented(fn):
    """Fill the parameters and the return value every measure at k shares into the docstring."""
    if fn.__doc__:   # None under python -OO
        fn.__doc__ = fn.__doc__.replace("{shared}", _SHARED).replace("{returns}", _RETURNS)
    return fn


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------
def _ks(k: Any, K: int) -> list[int]:
    ks = [k] if np.ndim(k) == 0 else list(k)
    if not ks:
        raise InvalidArgumentError("`k` must hold at least one integer; got none.")
    return [int(check_scalar("k", kk, low=1, high=K, integer=True)) for kk in ks]


def _result(values: dict, k: Any):
    return values[int(k)] if np.ndim(k) == 0 else values


def _prepare(Y: Any, topk: Any, k: Any):
    """(canonical CSR Y, predicted labels (n, K) int64, hit flags (n, K), the ks)."""
    Y = check_label_matrix(Y)
    n, m = Y.shape
    pred = topk.labels if isinstance(topk, TopK) else topk
    if sp.issparse(pred):
        raise InvalidArgumentError(
            "`topk` must be a dense (n, K) array of label indices (best first, -1 for none) "
            f"or a TopK; got a sparse matrix {describe(pred)}.")
    pred = np.asarray(pred)
    if pred.ndim != 2 or pred.shape[0] != n or not (
            np.issubdtype(pred.dtype, np.integer) or pred.size == 0):
        raise InvalidArgumentError(
            f"`topk` must be an integer array with one row per instance of `Y` ({n}); got "
            f"{describe(pred)}.")
    if pred.shape[1] == 0:
        raise InvalidArgumentError("`topk` must hold at least one prediction per row (K >= 1); "
                                   "got K = 0.")
    pred = pred.astype(np.int64, copy=False)
    bad = (pred < -1) | (pred >= m)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise InvalidArgumentError(
            f"`topk` must hold label indices in [0, {m}) or -1 for none; got "
            f"{int(bad.sum())} other value(s), the first {int(pred[i, j])} at row {i}, "
            f"rank {j}.")
    ks = _ks(k, pred.shape[1])
    ordered = np.sort(pred, axis=1)         # a label twice in a row would count twice
    dup = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if dup.any():
        i = int(np.flatnonzero(dup.any(axis=1))[0])
        label = int(ordered[i, 1:][dup[i]][0])
        raise InvalidArgumentError(
            f"`topk` must list each label at most once per row; row {i} lists label {label} "
            f"more than once ({int(dup.any(axis=1).sum())} row(s) repeat a label), which would "
            "count its hit more than once (recall@k and nDCG@k above 1).")
    return Y, pred, hits(Y, pred), ks


def hits(Y: sp.csr_array, pred: np.ndarray) -> np.ndarray:
    """hit[i, r]: is the label predicted at rank r of instance i true?"""
    n, m = Y.shape
    keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(Y.indptr)) * m + Y.indices
    if keys.size == 0:
        return np.zeros(pred.shape, dtype=bool)
    query = np.arange(n, dtype=np.int64)[:, None] * m + pred
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    return (pred >= 0) & (keys[pos] == query)


def _discounts(K: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(K) + 2.0)


# ---------------------------------------------------------------------------
# instance-wise measures
# ---------------------------------------------------------------------------
@_documented
def precision_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5)) -> float | dict[int, float]:
    """Precision@k: the mean over instances of ``|top-k labels ∩ true labels| / k``.

    Parameters
    ----------
    Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance in decreasing score (as from
        :meth:`ProbabilisticLabelTreeResults.predict_topk`); -1 marks no prediction.
    k : int or sequence of int, default (1, 3, 5)
        Each between 1 and K.

    {returns}

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.extreme import precision_at_k
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]])
    >>> topk = np.array([[0, 2], [0, 1]])   # label indices, best first
    >>> precision_at_k(Y, topk, k=(1, 2))
    {1: 0.5, 2: 0.75}
    """
    _, _, hit, ks = _prepare(Y, topk, k)
    cum = np.cumsum(hit, axis=1)
    return _result({kk: float(cum[:, kk - 1].mean() / kk) for kk in ks}, k)


@_documented
def recall_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *,
                zero_division: float = 0.0) -> float | dict[int, float]:
    """Recall@k: the mean over instances of ``|top-k labels ∩ true labels| / |true labels|``.

    Parameters
    ----------
    {shared}
    zero_division : float, default 0
        The recall of an instance without true labels (napkinXC's default).

    {returns}
    """
    Y, _, hit, ks = _prepare(Y, topk, k)
    zd = check_zero_division(zero_division)
    size = np.diff(Y.indptr).astype(float)
    cum = np.cumsum(hit, axis=1)
    out = {}
    for kk in ks:
        r = np.divide(cum[:, kk - 1], size, out=np.full(size.shape, zd), where=size > 0)
        out[kk] = float(r.mean())
    return _result(out, k)


@_documented
def ndcg_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *,
              zero_division: float = 0.0) -> float | dict[int, float]:
    """nDCG@k: DCG@k = sum over ranks r < k of hit_r / log2(r + 2), divided by its best
    value ``sum_{r < min(k, |y|)} 1 / log2(r + 2)``, averaged over instances.

    Parameters
    ----------
    {shared}
    zero_division : float, default 0
        The nDCG of an instance without true labels (napkinXC's default).

    {returns}
    """
    Y, pred, hit, ks = _prepare(Y, topk, k)
    zd = check_zero_division(zero_division)
    disc = _discounts(pred.shape[1])
    dcg = np.cumsum(hit * disc, axis=1)
    ideal = np.concatenate(([0.0], np.cumsum(disc)))
    size = np.diff(Y.indptr)
    out = {}
    for kk in ks:
        best = ideal[np.minimum(size, kk)]
        out[kk] = float(np.divide(dcg[:, kk - 1], best, out=np.full(best.shape, zd),
                                  where=size > 0).mean())
    return _result(out, k)


# ---------------------------------------------------------------------------
# propensity-scored measures
# ---------------------------------------------------------------------------
def inverse_propensities(Y: Any, A: float = 0.55, B: float = 1.5) -> np.ndarray:
    """Jain et al.'s (2016) inverse propensities of the labels from training labels.

    ``q_l = 1 + C (N_l + B)^-A`` with ``C = (log N - 1)(B + 1)^A``, N the number of
    instances and N_l those carrying label l (napkinXC's
    ``Jain_et_al_inverse_propensity``, pyxclib's ``compute_inv_propesity``).

    Parameters
    ----------
    Y : sparse matrix or 2-d array (N, m) of 0/1
        Training labels; at least 3 instances (so that log N > 1).
    A : float, default 0.55
        Positive; the paper's 0.55 (0.5 for WikiLSHTC-325K, 0.6 for Amazon-670K).
    B : float, default 1.5
        Positive; the paper's 1.5 (0.4 for WikiLSHTC-325K, 2.6 for Amazon-670K).

    Returns
    -------
    ndarray of shape (m,)
        The inverse propensities, all > 1.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.extreme import inverse_propensities
    >>> Y = np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    >>> inverse_propensities(Y).round(4)
    array([1.2796, 1.3863])
    """
    A = float(check_scalar("A", A, low=0, low_open=True))
    B = float(check_scalar("B", B, low=0, low_open=True))
    Y = check_label_matrix(Y)
    N = Y.shape[0]
    if N < 3:
        raise DataError(f"`Y` must have at least 3 instances for Jain et al.'s propensities "
                        f"(C = (log N - 1)(B + 1)^A must be positive); got N = {N}.")
    counts = np.bincount(Y.indices, minlength=Y.shape[1]).astype(float)
    C = (np.log(N) - 1.0) * (B + 1.0) ** A
    return 1.0 + C * (counts + B) ** -A


def _check_inv_ps(inv_ps: Any, m: int) -> np.ndarray:
    try:
        q = np.asarray(inv_ps, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            "`inv_propensities` must be an array of one positive number per label; got "
            f"{describe(inv_ps)}.") from None
    if q.shape != (m,):
        raise InvalidArgumentError(
            f"`inv_propensities` must have one value per label ({m}); got shape {q.shape}.")
    bad = ~(np.isfinite(q) & (q > 0))
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise InvalidArgumentError(
            f"`inv_propensities` must be finite and positive; got {int(bad.sum())} other "
            f"value(s), the first for label {j} ({num(q[j])}).")
    return q


def _best_weights(Y: sp.csr_array, q: np.ndarray, K: int) -> np.ndarray:
    """(n, K): the inverse propensities of each instance's true labels, largest first,
    0-padded (the ranking a perfect predictor would give)."""
    n = Y.shape[0]
    rows = np.repeat(np.arange(n), np.diff(Y.indptr))
    w = q[Y.indices]
    order = np.lexsort((-w, rows))
    rank = np.arange(order.size) - Y.indptr[rows[order]]
    keep = rank < K
    out = np.zeros((n, K))
    out[rows[order][keep], rank[keep]] = w[order][keep]
    return out


def _normalise(got: np.ndarray, best: np.ndarray, normalize: bool) -> float:
    if normalize:
        total = best.sum()
        return float(got.sum() / total) if total > 0 else 0.0
    return float(got.mean())


@public
@_documented
def psprecision_at_k(Y: Any, topk: Any, inv_propensities: Any, k: Any = (1, 3, 5), *,
                     normalize: bool = True) -> float | dict[int, float]:
    """Propensity-scored precision@k: ``sum_{r < k} q_{l_r} hit_r / k``, summed over
    instances and divided by the same sum for the best ranking (``normalize``).

    Parameters
    ----------
    Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance, best first; -1 marks no prediction.
    inv_propensities : array of shape (m,)
        Positive inverse propensities q (e.g. :func:`inverse_propensities` of the
        training labels).
    k : int or sequence of int, default (1, 3, 5)
        Each between 1 and K.
    normalize : bool, default True
        Divide by the value of the best ranking (the reported PSP@k); False: the mean
        over instances of the unnormalised value.

    {returns}
    """
    Y, pred, hit, ks = _prepare(Y, topk, k)
    q = _check_inv_ps(inv_propensities, Y.shape[1])
    gain = np.cumsum(np.where(hit, q[np.maximum(pred, 0)], 0.0), axis=1)
    best = np.cumsum(_best_weights(Y, q, pred.shape[1]), axis=1)
    return _result({kk: _normalise(gain[:, kk - 1] / kk, best[:, kk - 1] / kk, normalize)
                    for kk in ks}, k)


@public
@_documented
def psndcg_at_k(Y: Any, topk: Any, inv_propensities: Any, k: Any = (1, 3, 5), *,
                normalize: bool = True, zero_division: float = 0.0
                ) -> float | dict[int, float]:
    """Propensity-scored nDCG@k: ``sum_{r < k} q_{l_r} hit_r / log2(r + 2)`` divided by
    ``sum_{r < min(k, |y|)} 1 / log2(r + 2)``, summed over instances and divided by the same
    sum for the best ranking (``normalize``).

    Parameters
    ----------
    Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance, best first; -1 marks no prediction.
    inv_propensities : array of shape (m,)
        Positive inverse propensities q.
    k : int or sequence of int, default (1, 3, 5)
        Each between 1 and K.
    normalize : bool, default True
        Divide by the value of the best ranking (the reported PSnDCG@k).
    zero_division : float, default 0
        The value of an instance without true labels, for it and for the best ranking.

    {returns}
    """
    Y, pred, hit, ks = _prepare(Y, topk, k)
    q = _check_inv_ps(inv_propensities, Y.shape[1])
    zd = check_zero_division(zero_division)
    disc = _discounts(pred.shape[1])
    gain = np.cumsum(np.where(hit, q[np.maximum(pred, 0)], 0.0) * disc, axis=1)
    best = np.cumsum(_best_weights(Y, q, pred.shape[1]) * disc, axis=1)
    ideal = np.concatenate(([0.0], np.cumsum(disc)))
    size = np.diff(Y.indptr)
    out = {}
    for kk in ks:
        norm = ideal[np.minimum(size, kk)]
        empty = size == 0
        g = np.divide(gain[:, kk - 1], norm, out=np.full(size.shape, zd), where=~empty)
        b = np.divide(best[:, kk - 1], norm, out=np.full(size.shape, zd), where=~empty)
        out[kk] = _normalise(g, b, normalize)
    return _result(out, k)


# ---------------------------------------------------------------------------
# label-wise measures
# ---------------------------------------------------------------------------
def label_counts_at_k(Y: sp.csr_array, pred: np.ndarray, hit: np.ndarray, kk: int):
    """Per label: (TP, FP, FN) of the top-kk predictions."""
    m = Y.shape[1]
    top = pred[:, :kk]
    valid = top >= 0
    tp = np.bincount(top[hit[:, :kk]], minlength=m).astype(float)
    predicted = np.bincount(top[valid], minlength=m).astype(float)
    pos = np.bincount(Y.indices, minlength=m).astype(float)
    return tp, predicted - tp, pos - tp


def _macro(Y, topk, k, a, b, zero_division):
    Y, pred, hit, ks = _prepare(Y, topk, k)
    zd = check_zero_division(zero_division)
    out = {}
    for kk in ks:
        tp, fp, fn = label_counts_at_k(Y, pred, hit, kk)
        out[kk] = float(np.mean(ratio(tp, fp, fn, a, b, zd)))
    return _result(out, k)


@_documented
def macro_f_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *, beta: float | None = None,
                 alpha: float | None = None, measure: FMeasure | None = None,
                 zero_division: float = 0.0) -> float | dict[int, float]:
    """Macro-F@k: the F-measure of every label over the top-k predictions of all
    instances (TP, FP, FN counted per label), averaged over the m labels.

    Parameters
    ----------
    {shared}
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 0
        F of a label never true and never predicted (napkinXC's and xCOLUMNs' 0; the
        thresholding functions of seed 002 use Lewis's 1).

    {returns}
    """
    fm = as_fmeasure(measure, beta, alpha)
    return _macro(Y, topk, k, fm.alpha, 1.0 - fm.alpha, zero_division)


@_documented
def macro_precision_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *,
                         zero_division: float = 0.0) -> float | dict[int, float]:
    """Macro-precision@k: per-label precision of the top-k predictions, averaged over labels.

    Parameters
    ----------
    {shared}
    zero_division : float, default 0
        The precision of a label never predicted.

    {returns}
    """
    return _macro(Y, topk, k, 1.0, 0.0, zero_division)


@_documented
def macro_recall_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *,
                      zero_division: float = 0.0) -> float | dict[int, float]:
    """Macro-recall@k: per-label recall of the top-k predictions, averaged over labels.

    Parameters
    ----------
    {shared}
    zero_division : float, default 0
        The recall of a label without positives.

    {returns}
    """
    return _macro(Y, topk, k, 0.0, 1.0, zero_division)


@_documented
def coverage_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5)) -> float | dict[int, float]:
    """Coverage@k: the fraction of the labels present in ``Y`` that are correctly predicted
    in the top k of at least one instance.

    Parameters
    ----------
    Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels; at least one positive entry.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance, best first; -1 marks no prediction.
    k : int or sequence of int, default (1, 3, 5)
        Each between 1 and K.

    {returns}
    """
    Y, pred, hit, ks = _prepare(Y, topk, k)
    present = np.count_nonzero(np.bincount(Y.indices, minlength=Y.shape[1]))
    if present == 0:
        raise DataError("`Y` has no positive entry; coverage@k is undefined.")
    out = {}
    for kk in ks:
        found = np.unique(pred[:, :kk][hit[:, :kk]])
        out[kk] = found.size / present
    return _result(out, k)


@_documented
def measures_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5), *, inv_propensities: Any = None,
                  zero_division: float = 0.0) -> pd.DataFrame:
    """All the measures at k of this module as one table (rows: measures, columns: k).

    Parameters
    ----------
    {shared}
    inv_propensities : array of shape (m,), optional
        Inverse propensities for PSP@k and PSnDCG@k (omitted when None).
    zero_division : float, default 0
        As in the single measures.

    Returns
    -------
    pandas.DataFrame
        Rows ``P``, ``R``, ``nDCG``, ``PSP``, ``PSnDCG`` (with ``inv_propensities``),
        ``macro-P``, ``macro-R``, ``macro-F1``, ``coverage``; one column per k.
    """
    ks = [k] if np.ndim(k) == 0 else list(k)
    zd = zero_division
    rows = {"P": precision_at_k(Y, topk, ks), "R": recall_at_k(Y, topk, ks, zero_division=zd),
            "nDCG": ndcg_at_k(Y, topk, ks, zero_division=zd)}
    if inv_propensities is not None:
        rows["PSP"] = psprecision_at_k(Y, topk, inv_propensities, ks)
        rows["PSnDCG"] = psndcg_at_k(Y, topk, inv_propensities, ks, zero_division=zd)
    rows["macro-P"] = macro_precision_at_k(Y, topk, ks, zero_division=zd)
    rows["macro-R"] = macro_recall_at_k(Y, topk, ks, zero_division=zd)
    rows["macro-F1"] = macro_f_at_k(Y, topk, ks, zero_division=zd)
    rows["coverage"] = coverage_at_k(Y, topk, ks)
    table = pd.DataFrame(rows).T
    table.columns = [f"@{kk}" for kk in table.columns]
    return table
