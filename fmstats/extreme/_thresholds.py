"""Per-label thresholds for the macro F-measure on sparse probability estimates.

Seed 002 section 4: STO (Algorithm 1, the exact per-label optimum on the data),
FTA (a fixed candidate grid, one shared threshold or one per label) and OFO
(Algorithm 2, online F-measure optimisation), plus the threshold range (5)
derived from the label priors and the macro-F of thresholded SPEs.

Conventions (see ``_spe.py``): label j is predicted for an
instance when its estimate is *strictly* above the threshold, ``eta > theta_j``;
estimates the SPE does not store count as 0 (they are below every candidate
threshold); a label with no positives and no predicted positives scores
``zero_division`` (default 1, Lewis's convention, as :mod:`fmstats.measures` counts 0/0).

With alpha = 1/(1+beta^2), the F-measure of label j is
F_j = TP_j / (alpha * PRED_j + (1 - alpha) * POS_j), with PRED_j the number of
predicted positives and POS_j the number of positives.  All three tuners take
``beta=``, ``alpha=`` or ``measure=`` (default F1, the seed's measure).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..results import Persistable
from .._utils.validation import check_probabilities, describe
from ..exceptions import DataError, InvalidArgumentError
from ..measures import FMeasure, check_zero_division, ratio, as_fmeasure, f_score
from ._spe import (as_spe, check_label_matrix, check_thresholds, float_array)

__all__ = ["ThresholdFit", "PAPER_C", "label_priors", "threshold_bounds", "sto", "fta",
           "macro_f_at_thresholds"]

#: The grid C of seed 002 section 6: SPE thresholds max(1/c, lower bound) and OFO's b = c.
PAPER_C = (10000, 1000, 200, 100, 50, 20, 10, 7, 5, 4, 3, 2)

# maximisers within this relative distance of the maximum are ties (broken towards the
# larger threshold), so that float rounding in F never decides between equal counts
_TIE_RTOL = 1e-12


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ThresholdFit(Persistable):
    """Per-label thresholds found by :func:`sto`, :func:`fta` or :func:`ofo`.

    Built by those tuners rather than by users; every parameter is kept as the
    attribute of the same name (arrays read-only).

    Parameters
    ----------
    method : {"sto", "fta", "ofo"}
        The tuner that found the thresholds.
    thresholds : ndarray of shape (m,)
        Thresholds theta_j; predict label j when its estimate is > theta_j.
    label_f : ndarray of shape (m,)
        F of each label on the tuning data at ``thresholds`` (OFO: the online F,
        i.e. the F of its own sequential predictions).
    macro_f : float
        The mean of ``label_f``.
    measure : FMeasure
        The F-measure tuned.
    zero_division : float, default 1.0
        The F of a label with no positives and no predicted positives.
    candidates, candidate_macro_f : ndarray or None
        FTA: the sorted candidate grid and the macro-F at each candidate
        (shared by all labels, lower bounds applied).
    shared : bool or None
        FTA: whether one threshold was chosen for all labels.
    trace : ndarray of shape (n,) or None
        OFO: the macro-averaged online F after each instance.
    predictions : scipy.sparse.csr_array or None
        OFO with ``return_predictions=True``: its sequential 0/1 predictions.
    """

    method: str
    thresholds: np.ndarray
    label_f: np.ndarray
    macro_f: float
    measure: FMeasure
    zero_division: float = 1.0
    candidates: np.ndarray | None = None
    candidate_macro_f: np.ndarray | None = None
    shared: bool | None = None
    trace: np.ndarray | None = field(default=None, repr=False)
    predictions: Any = field(default=None, repr=False)

    def __post_init__(self):
        for name in ("thresholds", "label_f", "candidates", "candidate_macro_f", "trace"):
            arr = getattr(self, name)
            if arr is not None:
                arr.setflags(write=False)

    def __repr__(self) -> str:
        th = self.thresholds
        extra = "" if self.shared is None else f", shared={self.shared}"
        return (f"ThresholdFit(method={self.method!r}{extra}, {th.shape[0]} labels, "
                f"{self.measure.name} macro-F on the tuning data = {self.macro_f:.4f}, "
                f"thresholds in [{th.min():.4g}, {th.max():.4g}], median {np.median(th):.4g})")

    def predict(self, spe: Any) -> sp.csr_array:
        """0/1 predictions of an SPE (or probability matrix) at these thresholds.

        Parameters
        ----------
        spe : SPE or scipy.sparse (n, m) probability matrix
            New estimates, with the m labels tuned.

        Returns
        -------
        scipy.sparse.csr_array
            The 0/1 predictions ``eta > theta_j``, shape (n, m).
        """
        return as_spe(spe).predict(self._thresholds_for(spe))

    def score(self, spe: Any, Y: Any, average: str | None = "macro"):
        """The F-measure of these thresholds on new SPEs and labels (default macro-F).

        Parameters
        ----------
        spe : SPE or scipy.sparse (n, m) probability matrix
            New estimates, with the m labels tuned.
        Y : scipy.sparse or array-like of shape (n, m)
            Their 0/1 labels.
        average : {"macro", "micro", "instance", None}, default "macro"
            As in :func:`fmstats.measures.f_score` (None: per-label values).

        Returns
        -------
        float or ndarray
            The F-measure of ``self.measure`` (with ``self.zero_division``), see
            :func:`macro_f_at_thresholds`.
        """
        return macro_f_at_thresholds(spe, Y, self._thresholds_for(spe), measure=self.measure,
                                     zero_division=self.zero_division, average=average)

    def _thresholds_for(self, spe: Any) -> np.ndarray:
        m = as_spe(spe).shape[1]
        if m != self.thresholds.shape[0]:
            raise DataError(f"`spe` must have {self.thresholds.shape[0]} labels (as when "
                            f"tuned); got {m}.")
        return self.thresholds


# ---------------------------------------------------------------------------
# Priors, bounds (5) and evaluation
# ---------------------------------------------------------------------------
def label_priors(Y: Any) -> np.ndarray:
    """The fraction of instances carrying each label (column means of a 0/1 matrix).

    Parameters
    ----------
    Y : scipy.sparse or array-like of shape (n, m)
        A 0/1 label matrix.

    Returns
    -------
    ndarray of shape (m,)
        The label priors, in [0, 1].
    """
    mat = check_label_matrix(Y)
    return np.bincount(mat.indices, minlength=mat.shape[1]) / mat.shape[0]


def threshold_bounds(priors: Any, *, beta: float | None = None, alpha: float | None = None,
                     measure: FMeasure | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The range (5) of seed 002 for the optimal threshold of each label.

    At the population optimum the threshold equals alpha F* (F*/2 for F1), and
    F* exceeds the F of predicting every instance positive; with prior pi this
    gives

        alpha pi / (alpha + (1 - alpha) pi)  <  theta*  <=  alpha,

    i.e. (pi / (pi + 1), 0.5] for F1.

    Parameters
    ----------
    priors : array of shape (m,)
        Label priors in [0, 1] (e.g. :func:`label_priors` of training labels).
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.

    Returns
    -------
    lower, upper : ndarray of shape (m,)
        The lower (open) and upper (closed) ends of the range of each label.
    """
    fm = as_fmeasure(measure, beta, alpha)
    pi = check_probabilities("priors", priors)
    a = fm.alpha
    lower = a * pi / (a + (1.0 - a) * pi)
    return lower, np.full(pi.shape, a)


def macro_f_at_thresholds(spe: Any, Y: Any, thresholds: Any, *, beta: float | None = None,
                          alpha: float | None = None, measure: FMeasure | None = None,
                          zero_division: float = 1.0, average: str | None = "macro"):
    """The F-measure of the predictions ``eta > theta_j`` of an SPE against ``Y``.

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        The estimates eta.
    Y : scipy.sparse or array-like of shape (n, m)
        The 0/1 label matrix (sparse or dense).
    thresholds : float or array of shape (m,)
        In [0, 1]; below the SPE's own thresholds a DataWarning says that
        unstored estimates count as 0.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives.
    average : {"macro", "micro", "instance", None}, default "macro"
        As in :func:`fmstats.measures.f_score` (None: per-label values).

    Returns
    -------
    float or ndarray
        The averaged F-measure, or the per-label values when ``average`` is None.
    """
    s = as_spe(spe)
    truth = check_label_matrix(Y, s.shape)
    pred = s.predict(s.check_below(thresholds))
    return f_score(truth, pred, measure=as_fmeasure(measure, beta, alpha),
                   zero_division=zero_division, average=average)


# ---------------------------------------------------------------------------
# Shared preparation
# ---------------------------------------------------------------------------
def truth_at_entries(mat: sp.csr_array, truth: sp.csr_array) -> np.ndarray:
    """For every stored entry of ``mat``: is ``truth`` non-zero there? (canonical CSR)"""
    ids = sp.csr_array((np.arange(1, mat.nnz + 1, dtype=float), mat.indices, mat.indptr),
                       shape=mat.shape)
    hit = ids.multiply(sp.csr_array((np.ones(truth.nnz), truth.indices, truth.indptr),
                                    shape=truth.shape))
    out = np.zeros(mat.nnz, dtype=bool)
    out[np.asarray(hit.data, dtype=np.int64) - 1] = True
    return out


def prepare_inputs(spe: Any, Y: Any, lower_bounds: Any):
    s = as_spe(spe)
    truth = check_label_matrix(Y, s.shape)
    lb = np.zeros(s.shape[1])
    if lower_bounds is not None:
        lb = check_thresholds("lower_bounds", lower_bounds, s.shape[1])
        s = s.restrict(np.maximum(lb, s.thresholds))
    positives = np.bincount(truth.indices, minlength=s.shape[1]).astype(float)
    return s, truth, positives, lb


def f_values(tp, pred, pos, fm: FMeasure, zd: float):
    """F from (possibly array) counts: the same arithmetic as :func:`f_score`."""
    return ratio(tp, pred - tp, pos - tp, fm.alpha, 1.0 - fm.alpha, zd)


def threshold_fit(method, thresholds, label_f, fm, zd, **extra) -> ThresholdFit:
    label_f = np.asarray(label_f, dtype=float)
    return ThresholdFit(method=method, thresholds=np.asarray(thresholds, dtype=float),
                        label_f=label_f, macro_f=float(label_f.mean()), measure=fm,
                        zero_division=zd, **extra)


# ---------------------------------------------------------------------------
# STO
# ---------------------------------------------------------------------------
def group_order(keys: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """A stable order grouping ``keys`` (ints in [0, n_groups)) and the group offsets.

    A counting sort in O(len(keys) + n_groups): scipy's CSR -> CSC conversion of
    a matrix with one entry per row (the entry's position) in column ``key``.
    """
    k = keys.shape[0]
    one_per_row = sp.csr_array((np.arange(k, dtype=np.int64), keys,
                                np.arange(k + 1, dtype=np.int64)), shape=(k, n_groups))
    csc = one_per_row.tocsc()
    return np.asarray(csc.data, dtype=np.int64), np.asarray(csc.indptr, dtype=np.int64)


#: Estimates per block of STO's per-label work (and per row block of its truth lookup):
#: keeps the sort and count temporaries at a few tens of MB whatever the SPE's size.
_STO_BLOCK = 1 << 18


def _blocks(offsets: np.ndarray, size: int) -> np.ndarray:
    """Boundaries (indices into ``offsets``, a non-decreasing CSR/CSC pointer) of consecutive
    groups holding about ``size`` entries each (a group larger than ``size`` stays whole)."""
    total = int(offsets[-1])
    first = np.searchsorted(offsets, np.arange(0, total, size), side="right") - 1
    return np.unique(np.concatenate((first, [offsets.shape[0] - 1])))


def _truth_signed(mat: sp.csr_array, truth: sp.csr_array) -> np.ndarray:
    """A copy of ``mat.data`` with the sign bit set on the entries where ``truth`` (canonical
    CSR) is non-zero.  Estimates are >= 0, so ``np.signbit`` recovers the flags exactly
    (also for a stored 0: -0.0) and ``abs`` the estimates, in one 8-byte array."""
    m = mat.shape[1]
    data = mat.data.astype(float, copy=True)
    ip, tp = mat.indptr, truth.indptr
    bounds = _blocks(ip, _STO_BLOCK)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        a, b, ta, tb = int(ip[r0]), int(ip[r1]), int(tp[r0]), int(tp[r1])
        if a == b or ta == tb:
            continue
        rows = np.arange(r0, r1, dtype=np.int64)
        keys = np.repeat(rows * m, np.diff(ip[r0:r1 + 1])) + mat.indices[a:b]
        tkeys = np.repeat(rows * m, np.diff(tp[r0:r1 + 1])) + truth.indices[ta:tb]
        at = np.searchsorted(tkeys, keys)
        np.minimum(at, tkeys.shape[0] - 1, out=at)
        hit = tkeys[at] == keys
        np.negative(data[a:b], out=data[a:b], where=hit)
    return data


def _sto_block(value, y, starts, positives, tau, f_none, fm, zd):
    """STO for a block of consecutive labels (``starts``: their entry offsets, from 0), with
    every label's estimates ``value`` and truth flags ``y`` grouped by label (any order
    inside a label).  Returns (labels with entries, their thresholds, their F)."""
    k_all = value.shape[0]
    n_lab = starts.shape[0] - 1
    label = np.repeat(np.arange(n_lab, dtype=np.int64), np.diff(starts))
    # (label, decreasing estimate): a sort by estimate, then a stable grouping by label
    by_score = np.argsort(-value)
    grouped, _ = group_order(label[by_score], n_lab)
    order = by_score[grouped]
    del by_score, grouped
    value = value[order]
    cum_tp = np.cumsum(y[order], dtype=np.int64)
    del order
    first_of = starts[:-1]
    base = np.concatenate(([0], cum_tp))[first_of]

    # a cut is allowed after the last entry of a run of equal estimates of a label
    nxt_differs = np.ones(k_all, dtype=bool)
    nxt_differs[:-1] = (label[1:] != label[:-1]) | (value[1:] != value[:-1])
    cut = np.flatnonzero(nxt_differs)
    del nxt_differs
    cut_label = label[cut]
    n_pred = cut - first_of[cut_label] + 1
    tp = cum_tp[cut] - base[cut_label]
    f_cut = np.asarray(f_values(tp, n_pred, positives[cut_label], fm, zd), dtype=float)

    # best cut per label (labels with entries only), ties -> first cut (largest threshold)
    seg = np.flatnonzero(np.r_[True, cut_label[1:] != cut_label[:-1]])
    seg_label = cut_label[seg]
    best_cut_f = np.full(n_lab, -np.inf)
    best_cut_f[seg_label] = np.maximum.reduceat(f_cut, seg)
    tied = np.flatnonzero(f_cut >= best_cut_f[cut_label] * (1.0 - _TIE_RTOL))
    first = tied[np.r_[True, cut_label[tied][1:] != cut_label[tied][:-1]]]
    k = cut[first]                       # sorted position of the chosen cut
    j = label[k]
    none_wins = f_none[j] >= best_cut_f[j] * (1.0 - _TIE_RTOL)

    # threshold after a cut: the next estimate of the label, or tau_j after its last one
    last_of_label = k == starts[j + 1] - 1
    after = np.where(last_of_label, tau[j], value[np.minimum(k + 1, k_all - 1)])
    top = value[first_of[j]]             # predicting nothing: theta = the largest estimate
    return (j, np.where(none_wins, top, after), np.where(none_wins, f_none[j], f_cut[first]))


def sto(spe: Any, Y: Any, *, beta: float | None = None, alpha: float | None = None,
        measure: FMeasure | None = None, zero_division: float = 1.0,
        lower_bounds: Any = None) -> ThresholdFit:
    """Sorting-based threshold optimisation (STO, Algorithm 1 of seed 002).

    For every label the exact maximiser of its F on ``(spe, Y)`` over all
    thresholds theta >= tau_j (the SPE's threshold): the candidates are the
    distinct stored estimates of the label (predict those strictly above) and
    tau_j itself (predict every stored estimate).  One sort of all entries by
    (label, -estimate) and cumulative counts per label; no loop over labels.

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        The estimates (a matrix is an SPE at tau = 0).
    Y : scipy.sparse or array-like of shape (n, m)
        The 0/1 label matrix.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives (Lewis: 1).
    lower_bounds : float or array of shape (m,), optional
        Thresholds are kept >= these (the SPE is restricted to them first).

    Returns
    -------
    ThresholdFit
        ``label_f`` holds each label's maximal F on the data.

    Notes
    -----
    Ties (thresholds with equal F, up to a relative 1e-12) are broken towards the
    largest threshold, i.e. the fewest predicted positives: a label without
    positives in ``Y`` gets a threshold that predicts nothing (F = zero_division)
    and so does a label whose positives the SPE never scores (F = 0 either way).
    Labels without any stored estimate get theta_j = tau_j.

    Memory beyond the inputs: about 20 bytes per stored estimate at the peak (a
    sign-marked copy of the estimates and their by-label CSC copy), then 8, plus work
    arrays for blocks of about :data:`_STO_BLOCK` estimates (a label is never split);
    ``benchmarks/reliability/bench_memory.py`` measures it.

    Examples
    --------
    >>> from fmstats.extreme import make_extreme_spe, sto
    >>> spe, Y = make_extreme_spe(400, 50, 8, random_state=0)
    >>> fit = sto(spe, Y)
    >>> print(f"{fit.macro_f:.4f}")
    0.6717
    >>> fit.thresholds[:3].round(3)
    array([0.292, 0.172, 0.143])
    """
    fm = as_fmeasure(measure, beta, alpha)
    zd = check_zero_division(zero_division)
    s, truth, positives, _ = prepare_inputs(spe, Y, lower_bounds)
    mat, tau = s.matrix, s.thresholds
    m = s.shape[1]
    f_none = np.asarray(f_values(np.zeros(m), np.zeros(m), positives, fm, zd), dtype=float)
    thresholds, label_f = tau.copy(), f_none.copy()
    if mat.nnz == 0:
        return threshold_fit("sto", thresholds, label_f, fm, zd)

    # the estimates grouped by label (CSC), each carrying its truth flag in its sign bit
    signed = _truth_signed(mat, truth)
    by_label = sp.csr_array((signed, mat.indices, mat.indptr), shape=mat.shape).tocsc()
    del signed
    data, starts = by_label.data, np.asarray(by_label.indptr, dtype=np.int64)
    del by_label                         # the row indices are not needed
    bounds = _blocks(starts, _STO_BLOCK)
    for j0, j1 in zip(bounds[:-1], bounds[1:]):
        a, b = starts[j0], starts[j1]
        if a == b:
            continue
        part = data[a:b]
        j, th, f = _sto_block(np.abs(part), np.signbit(part), starts[j0:j1 + 1] - a,
                              positives[j0:j1], tau[j0:j1], f_none[j0:j1], fm, zd)
        thresholds[j0 + j], label_f[j0 + j] = th, f
    return threshold_fit("sto", thresholds, label_f, fm, zd)


# ---------------------------------------------------------------------------
# FTA
# ---------------------------------------------------------------------------
def _check_candidates(candidates: Any) -> np.ndarray:
    c = float_array("candidates", candidates, "numbers in [0, 1]")
    if c.ndim > 1:   # a matrix is no list of shared thresholds: ravel() would hide the mistake
        raise InvalidArgumentError(
            "`candidates` must be a 1-d array of thresholds in [0, 1] shared by all labels (fta "
            f"tries each for every label); got an array of shape {c.shape}.")
    c = c.ravel()
    if c.size == 0:
        raise InvalidArgumentError("`candidates` must hold at least one threshold; got none.")
    return np.unique(check_thresholds("candidates", c, c.size))


def _last_max(F: np.ndarray, axis: int) -> np.ndarray:
    """Index of the last maximiser along ``axis`` (ties up to _TIE_RTOL)."""
    best = F.max(axis=axis, keepdims=True)
    hit = F >= best * (1.0 - _TIE_RTOL)
    K = F.shape[axis]
    return K - 1 - np.argmax(np.flip(hit, axis=axis), axis=axis)


def fta(spe: Any, Y: Any, candidates: Any, *, shared: bool = True,
        beta: float | None = None, alpha: float | None = None,
        measure: FMeasure | None = None, zero_division: float = 1.0,
        lower_bounds: Any = None) -> ThresholdFit:
    """Fixed thresholds approach (FTA, seed 002 section 4.2).

    Every candidate c_k is tried, as theta_jk = max(c_k, lower_j), for all labels
    at once: one pass over the stored entries counts, per label and candidate,
    the predicted and the true positives.

    Parameters
    ----------
    spe : SPE or scipy.sparse (n, m) probability matrix
        The estimates (a matrix is an SPE at tau = 0).
    Y : scipy.sparse or array-like of shape (n, m)
        The 0/1 label matrix.
    candidates : array of thresholds in [0, 1]
        E.g. ``1 / np.array(PAPER_C)``; sorted and de-duplicated.
    shared : bool, default True
        True: the one candidate with the largest macro-F is used for every label
        (more stable, the seed's recommendation); False: each label takes its own
        best candidate.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives (Lewis: 1).
    lower_bounds : float or array of shape (m,), optional
        E.g. the lower end of :func:`threshold_bounds`.

    Returns
    -------
    ThresholdFit
        With ``candidates`` and ``candidate_macro_f`` (macro-F per shared
        candidate).  Ties go to the largest candidate.  Memory O(m K) for K
        candidates.

    Examples
    --------
    >>> from fmstats.extreme import make_extreme_spe, fta
    >>> spe, Y = make_extreme_spe(400, 50, 8, random_state=0)
    >>> fit = fta(spe, Y, [0.1, 0.2, 0.3, 0.5])
    >>> print(f"{fit.macro_f:.4f}")
    0.5253
    >>> fit.candidate_macro_f.round(4)
    array([0.4702, 0.5253, 0.5204, 0.469 ])
    """
    fm = as_fmeasure(measure, beta, alpha)
    zd = check_zero_division(zero_division)
    if not isinstance(shared, (bool, np.bool_)):
        raise InvalidArgumentError(f"`shared` must be True or False; got {describe(shared)}.")
    c = _check_candidates(candidates)
    s, truth, positives, lower = prepare_inputs(spe, Y, lower_bounds)
    mat = s.matrix
    m, K = s.shape[1], c.size
    s.check_below(np.maximum(c[0], lower), name="candidates")
    # entry e is predicted at candidates 0 .. n_below[e]-1 (those < its estimate)
    # (entries at or below lower_j were dropped by the restriction in _prepare)
    n_below = np.searchsorted(c, mat.data, side="left")
    cell = mat.indices.astype(np.int64) * (K + 1) + n_below
    y = truth_at_entries(mat, truth)
    hist_all = np.bincount(cell, minlength=m * (K + 1)).reshape(m, K + 1)
    hist_tp = np.bincount(cell[y], minlength=m * (K + 1)).reshape(m, K + 1)
    # predicted at candidate k: entries with n_below > k (reverse cumulative sums)
    pred = np.cumsum(hist_all[:, :0:-1], axis=1)[:, ::-1].astype(float)
    tp = np.cumsum(hist_tp[:, :0:-1], axis=1)[:, ::-1].astype(float)
    F = np.asarray(f_values(tp, pred, positives[:, None], fm, zd), dtype=float).reshape(m, K)
    macro = F.mean(axis=0)
    if shared:
        k = int(_last_max(macro, axis=0))
        choice = np.full(m, k)
    else:
        choice = _last_max(F, axis=1)
    thresholds = np.maximum(c[choice], lower)
    return threshold_fit("fta", thresholds, F[np.arange(m), choice], fm, zd, candidates=c,
                candidate_macro_f=macro, shared=bool(shared))
