"""Consistent plug-in inference for macro measures at k (Schultheis et al. 2023, 2024).

Macro-F@k and macro-recall@k are not maximised by the top k estimates of each instance:
rare labels deserve a place ahead of frequent ones.  Two plug-in rules act on sparse
probability estimates (SPEs) eta and predict exactly k labels per instance (among the
stored estimates; fewer where an instance stores fewer):

* :func:`bca_macro_at_k` -- block coordinate ascent on the *test set* (Schultheis et al.,
  NeurIPS 2023): the expected confusion matrix ``E tp_j = sum_i yhat_ij eta_ij``,
  ``E fp_j = sum_i yhat_ij (1 - eta_ij)``, ``E fn_j = sum_i (1 - yhat_ij) eta_ij`` (divided
  by n) is kept up to date while every instance in turn gets the k labels of largest gain
  ``U_j(tp + eta, fp + 1 - eta, fn) - U_j(tp, fp, fn + eta)``; sweeps repeat until the
  expected macro measure changes by less than ``tol``.
* :func:`frank_wolfe_macro_at_k` -- the Frank--Wolfe population classifier (Schultheis et
  al., ICLR 2024) learnt on a validation set (estimates and labels): a randomised mixture
  of linear rules "top k of a_j eta_ij + b_j", with (a, b) the gradient of the macro measure
  at the current confusion matrix, mixed in by an exact line search; at prediction every
  instance draws one rule (``random_state``).

The binary measures are xCOLUMNs' (``epsilon`` in the denominators, on confusion matrices
divided by n): F_beta = (1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp + epsilon) and
recall = tp / (tp + fn + epsilon).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.boundary import public
from .._utils.parallel import check_n_jobs, row_block, run_tasks
from .._utils.progress import progress_bar, progress_enabled
from .._utils.validation import check_choice, check_random_state, check_scalar
from ..exceptions import DataError
from ..results import Persistable
from ._atk import TopK, hits, label_counts_at_k
from ._spe import as_spe, check_label_matrix

__all__ = ["bca_macro_at_k", "frank_wolfe_macro_at_k", "RandomizedTopK", "spe_top_k", "METRICS"]

METRICS = ("f", "recall")
_TOPK_ROWS = 8192    # rows per block of the top-k selections (one thread each), at most


# ---------------------------------------------------------------------------
# the binary measures and their gradients (vectorised over labels)
# ---------------------------------------------------------------------------
def _utility(tp, fp, fn, metric: str, beta2: float, eps: float) -> np.ndarray:
    if metric == "recall":
        return tp / (tp + fn + eps)
    return (1 + beta2) * tp / ((1 + beta2) * tp + beta2 * fn + fp + eps)


def _gradient(tp, fp, fn, metric: str, beta2: float, eps: float):
    """d U_j / d (tp_j, fp_j, fn_j), U the macro mean (hence / m)."""
    m = tp.shape[0]
    if metric == "recall":
        d = (tp + fn + eps) ** 2
        return (fn + eps) / d / m, np.zeros(m), -tp / d / m
    c = 1 + beta2
    d = (c * tp + beta2 * fn + fp + eps) ** 2
    return c * (beta2 * fn + fp + eps) / d / m, -c * tp / d / m, -beta2 * c * tp / d / m


def _topk_block(indptr: np.ndarray, gains: np.ndarray, k: int, lo: int, hi: int,
                out: np.ndarray) -> None:
    """Worker: rows lo..hi-1 of :func:`_topk_entries`."""
    from ._sweeps import topk_positions

    topk_positions(indptr, gains, k, lo, hi, out)


def _topk_entries(mat: sp.csr_array, gains: np.ndarray, k: int, n_jobs=None) -> np.ndarray:
    """(n, k) positions (into ``mat.data``) of the k largest ``gains`` (one per stored entry)
    of every row of the canonical CSR ``mat``, in decreasing gain, -1 where a row stores
    fewer; ties to the smaller label index.  Compiled
    (``topk_positions``), O(nnz k), in blocks of rows on
    ``n_jobs`` threads (the rows are independent: the result does not depend on it)."""
    n = mat.shape[0]
    out = np.empty((n, k), dtype=np.int64)
    indptr = np.asarray(mat.indptr, dtype=np.int64)
    gains = np.asarray(gains, dtype=np.float64)
    size = row_block(n, _TOPK_ROWS)
    run_tasks(_topk_block, [(indptr, gains, k, lo, min(n, lo + size), out)
                            for lo in range(0, n, size)],
              n_jobs=n_jobs, progress=False, blas_threads=None, backend="threading")
    return out


def _topk_of_gains(mat: sp.csr_array, gains: np.ndarray, k: int, n_jobs=None) -> np.ndarray:
    """(n, k) labels of the k largest ``gains`` (one per stored entry) of every row, -1 where
    a row stores fewer; ties to the smaller label index."""
    pos = _topk_entries(mat, gains, k, n_jobs)
    return _at(mat.indices, pos, -1).astype(np.int64)


def _at(values: np.ndarray, pos: np.ndarray, fill) -> np.ndarray:
    """``values[pos]``, and ``fill`` where ``pos`` is -1 -- also when ``values`` is empty (an
    estimate matrix that stores no estimate: every position is -1)."""
    return np.where(pos >= 0, values[pos] if values.size else fill, fill)


def _check(metric, k, beta, epsilon):
    check_choice("metric", metric, METRICS)
    k = int(check_scalar("k", k, low=1, integer=True))
    beta = float(check_scalar("beta", beta, low=0, low_open=True))
    return k, beta * beta, float(check_scalar("epsilon", epsilon, low=0))


def spe_top_k(spe: Any, k: int, *, n_jobs: int | None = None) -> TopK:
    """The k largest stored estimates of every instance (ties: the smaller label first).

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        The estimates.
    k : int
        At least 1.
    n_jobs : int, optional
        Threads over at least 16 blocks of rows (of at most 8,192) for the top-k
        selections (compiled; the GIL is released); None: joblib's default.  The result
        does not depend on it.

    Returns
    -------
    TopK
        ``labels`` (n, k) in decreasing estimate, -1 where an instance stores fewer than k
        estimates, and the estimates as ``scores``.
    """
    s = as_spe(spe)
    k = int(check_scalar("k", k, low=1, integer=True))
    n_jobs = check_n_jobs(n_jobs)
    return _labels_and_scores(s.matrix, _topk_entries(s.matrix, s.matrix.data, k, n_jobs))


def _labels_and_scores(mat: sp.csr_array, pos: np.ndarray) -> TopK:
    """The labels and estimates of the stored entries at ``pos`` (-1: none)."""
    return TopK(_at(mat.indices, pos, -1).astype(np.int64), _at(mat.data, pos, 0.0))


def bca_macro_at_k(spe: Any, k: int, *, metric: str = "f", beta: float = 1.0,
                   epsilon: float = 1e-6, max_iter: int = 100, tol: float = 1e-6,
                   random_state: Any = None, n_jobs: int | None = None,
                   progress: Any = None) -> TopK:
    """Block coordinate ascent for the expected test-set macro measure at k.

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        Estimates eta of the instances to predict (the test set).
    k : int
        Labels per instance (at least 1).
    metric : {"f", "recall"}, default "f"
        Macro-F_beta@k or macro-recall@k.
    beta : float, default 1
        F_beta's beta (``metric="f"``).
    epsilon : float, default 1e-6
        Added to the denominators of the binary measures on confusion matrices divided by
        n (xCOLUMNs' default), so that a label with no expected count scores 0.
    max_iter : int, default 100
        At most this many sweeps over the instances.
    tol : float, default 1e-6
        Stop when a sweep changes the expected macro measure by less than this.
    random_state : None, int or numpy.random.Generator
        None: instances in their order in every sweep; otherwise a new random order per
        sweep drawn from it (Schultheis et al.'s shuffling).

    n_jobs : int, optional
        Threads over at least 16 blocks of rows (of at most 8,192) for the top-k
        selections that start and end the ascent (compiled; the GIL is released); None:
        joblib's default.  The sweeps are sequential by definition (every instance's
        choice changes the counts the next one sees) and run on one thread.  The result
        does not depend on ``n_jobs``.
    progress : bool or None
        A progress bar over the sweeps (None: only in interactive sessions).

    Returns
    -------
    TopK
        ``labels`` (n, k) chosen per instance, ordered by decreasing estimate, and their
        ``scores`` (the estimates); -1 where an instance stores fewer than k estimates.

    Examples
    --------
    >>> from fmstats.extreme import make_extreme_spe, bca_macro_at_k, macro_f_at_k, spe_top_k
    >>> spe, Y = make_extreme_spe(2000, 300, 20, random_state=0)
    >>> top = spe_top_k(spe, 3)
    >>> bca = bca_macro_at_k(spe, 3)
    >>> macro_f_at_k(Y, bca, 3) > macro_f_at_k(Y, top, 3)
    True
    """
    s = as_spe(spe)
    k, beta2, eps = _check(metric, k, beta, epsilon)
    max_iter = int(check_scalar("max_iter", max_iter, low=1, integer=True))
    tol = float(check_scalar("tol", tol, low=0))
    n_jobs = check_n_jobs(n_jobs)
    mat = s.matrix
    n, m = mat.shape
    data = np.asarray(mat.data, dtype=np.float64)
    indptr = np.asarray(mat.indptr, dtype=np.int64)
    indices = np.asarray(mat.indices, dtype=np.int64)
    # start: the top k estimates of every instance
    chosen = np.zeros(data.size, dtype=bool)
    start = _topk_entries(mat, data, k, n_jobs)
    chosen[start[start >= 0]] = True
    tp = np.bincount(indices, weights=np.where(chosen, data, 0.0), minlength=m)
    fp = np.bincount(indices, weights=np.where(chosen, 1.0 - data, 0.0), minlength=m)
    fn = np.bincount(indices, weights=np.where(chosen, 0.0, data), minlength=m)
    rng = None if random_state is None else check_random_state(random_state)
    order = np.arange(n, dtype=np.int64)
    from ._sweeps import bca_sweep

    recall = metric == "recall"
    value = float(np.mean(_utility(tp / n, fp / n, fn / n, metric, beta2, eps)))
    bar = progress_bar(total=max_iter, desc="BCA sweeps") if progress_enabled(progress) else None
    try:
        for _ in range(max_iter):
            if rng is not None:
                order = rng.permutation(n).astype(np.int64)
            bca_sweep(indptr, indices, data, chosen, tp, fp, fn, order, k, n, recall, beta2,
                      eps)
            if bar is not None:
                bar.update(1)
            new = float(np.mean(_utility(tp / n, fp / n, fn / n, metric, beta2, eps)))
            if abs(new - value) < tol:
                break
            value = new
    finally:
        if bar is not None:
            bar.close()
    # the chosen entries (min(k, stored) per instance) first, by decreasing estimate
    return _labels_and_scores(mat, _topk_entries(mat, np.where(chosen, data + 2.0, data - 2.0),
                                                 k, n_jobs))


@dataclass(frozen=True, eq=False)
class RandomizedTopK(Persistable):
    """A randomised classifier at k: rule c (``a[c]``, ``b[c]``) with probability ``p[c]``.

    Built by :func:`frank_wolfe_macro_at_k`; every parameter is kept as the attribute of
    the same name.

    Parameters
    ----------
    k : int
        Labels per instance.
    a, b : ndarray of shape (C, m)
        The rules: an instance gets the k labels of largest ``a[c] * eta + b[c]``.
    p : ndarray of shape (C,)
        The probabilities of the rules (sum 1).
    utilities : ndarray
        The validation macro measure after each Frank--Wolfe step.
    metric : str
        ``"f"`` or ``"recall"``.
    """

    k: int
    a: np.ndarray
    b: np.ndarray
    p: np.ndarray
    utilities: np.ndarray
    metric: str

    def file_problem(self) -> str | None:
        """Why this rule, read from a results file, is not consistent, or None (``k`` sizes
        the compiled top-k's buffers).

        Returns
        -------
        str or None
            The reason, or None.
        """
        a, b, p = self.a, self.b, self.p
        if not all(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in (a, b, p)):
            return "its rules are not float arrays"
        if not (a.ndim == 2 and b.shape == a.shape and p.shape == (a.shape[0],)):
            return "its rules and their probabilities do not have matching shapes"
        if not (type(self.k) is int and 1 <= self.k <= a.shape[1]):
            return f"its k is not a number of labels in [1, {a.shape[1]}]"
        return None

    @public
    def predict(self, spe: Any, random_state: Any = None, *,
                n_jobs: int | None = None) -> TopK:
        """Every instance draws a rule and gets its top k labels (among stored estimates).

        Parameters
        ----------
        spe : SPE or scipy.sparse (n, m) probability matrix
            Estimates of the instances to predict (the m labels of the fit).
        random_state : None, int or numpy.random.Generator
            The draws of the rules (drawn in one stream before the threads start).
        n_jobs : int, optional
            Threads over at least 16 blocks of rows (of at most 8,192) for the top-k
            selections (compiled; the GIL is released); None: joblib's default.  The
            result does not depend on it.

        Returns
        -------
        TopK
            ``labels`` (n, k), -1 where an instance stores fewer than k estimates, and
            their estimates as ``scores``.
        """
        s = as_spe(spe)
        mat = s.matrix
        n, m = mat.shape
        if m != self.a.shape[1]:
            raise DataError(f"`spe` must have the {self.a.shape[1]} labels of the fit; got {m}.")
        n_jobs = check_n_jobs(n_jobs)
        rng = check_random_state(random_state)
        rule = rng.choice(self.p.size, size=n, p=self.p)
        rows = np.repeat(np.arange(n), np.diff(mat.indptr))
        r = rule[rows]
        gains = self.a[r, mat.indices] * mat.data + self.b[r, mat.indices]
        return _labels_and_scores(mat, _topk_entries(mat, gains, self.k, n_jobs))


def frank_wolfe_macro_at_k(spe: Any, Y: Any, k: int, *, metric: str = "f", beta: float = 1.0,
                           epsilon: float = 1e-6, max_iter: int = 100,
                           step: float = 1e-3, n_jobs: int | None = None) -> RandomizedTopK:
    """The Frank--Wolfe randomised classifier for a macro measure at k, from validation data.

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        Validation estimates eta.
    Y : scipy.sparse or array-like of shape (n, m)
        Their 0/1 labels.
    k : int
        Labels per instance (at least 1).
    metric : {"f", "recall"}, default "f"
        Macro-F_beta@k or macro-recall@k.
    beta : float, default 1
        F_beta's beta.
    epsilon : float, default 1e-6
        As in :func:`bca_macro_at_k`.
    max_iter : int, default 100
        At most this many Frank--Wolfe steps.
    step : float, default 0.001
        The mixing weight of a step is the best of the grid 0, step, 2 step, ... below 1
        (xCOLUMNs' uniform search: a weight of 1, which would drop the earlier rules, is not
        tried); the iterations stop when it is below ``step``.
    n_jobs : int, optional
        Threads over at least 16 blocks of rows (of at most 8,192) for the top-k
        selections (compiled; the GIL is released); None: joblib's default.  The result
        does not depend on it.

    Returns
    -------
    RandomizedTopK
        The mixture of rules; its first rule is "top k of eta".
    """
    s = as_spe(spe)
    truth = check_label_matrix(Y, s.shape)
    k, beta2, eps = _check(metric, k, beta, epsilon)
    max_iter = int(check_scalar("max_iter", max_iter, low=1, integer=True))
    step = float(check_scalar("step", step, low=0, high=1, low_open=True))
    n_jobs = check_n_jobs(n_jobs)
    mat = s.matrix
    n, m = mat.shape
    grid = np.concatenate(([0.0], np.arange(step, 1.0, step)))   # xCOLUMNs' uniform search

    def confusion(a, b):
        labels = _topk_of_gains(mat, a[mat.indices] * mat.data + b[mat.indices], k, n_jobs)
        tp, fp, fn = label_counts_at_k(truth, labels, hits(truth, labels), k)
        return tp / n, fp / n, fn / n

    A, B = [np.ones(m)], [np.full(m, -0.5)]
    p = [1.0]
    tp, fp, fn = confusion(A[0], B[0])
    utilities = [float(np.mean(_utility(tp, fp, fn, metric, beta2, eps)))]
    for _ in range(max_iter):
        gtp, gfp, gfn = _gradient(tp, fp, fn, metric, beta2, eps)
        a, b = gtp - gfp - gfn, gfp
        ntp, nfp, nfn = confusion(a, b)
        mix = [np.mean(_utility((1 - g) * tp + g * ntp, (1 - g) * fp + g * nfp,
                                (1 - g) * fn + g * nfn, metric, beta2, eps)) for g in grid]
        g = float(grid[int(np.argmax(mix))])
        if g < step:
            break
        tp, fp, fn = (1 - g) * tp + g * ntp, (1 - g) * fp + g * nfp, (1 - g) * fn + g * nfn
        utilities.append(float(np.mean(_utility(tp, fp, fn, metric, beta2, eps))))
        p = [q * (1 - g) for q in p] + [g]
        A.append(a)
        B.append(b)
    return RandomizedTopK(k, np.array(A), np.array(B), np.array(p) / np.sum(p),
                          np.array(utilities), metric)
