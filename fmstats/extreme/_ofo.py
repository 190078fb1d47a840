"""Online F-measure optimisation (OFO, seed 002 Algorithm 2): per-label thresholds a_j / b_j
updated as the estimates of a stream arrive."""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import scipy.sparse as sp

from .._utils.progress import progress_bar, progress_enabled
from .._utils.validation import describe, num, raise_if_any
from ..exceptions import DataError, InvalidArgumentError
from ..measures import FMeasure, check_zero_division, as_fmeasure
from ._spe import (SPE, as_spe, check_label_matrix, check_thresholds, mask_entries,
                  per_label)

from ._thresholds import ThresholdFit, f_values, group_order, threshold_fit, truth_at_entries

__all__ = ["ofo"]

# ---------------------------------------------------------------------------
# OFO
# ---------------------------------------------------------------------------
def _per_label(name: str, value: Any, m: int, positive: bool) -> np.ndarray:
    rule = "positive" if positive else "non-negative"
    arr = per_label(name, value, m, f"a {rule} number or one per label")
    raise_if_any(~np.isfinite(arr) | ((arr <= 0) if positive else (arr < 0)),
                 InvalidArgumentError, lambda j, k: (
                     f"`{name}` must be finite and {rule}; got {num(arr[j])} for label {j}."))
    return arr


def _spe_stream(spe: Any) -> Iterable[Any]:
    if isinstance(spe, SPE) or sp.issparse(spe) or isinstance(spe, np.ndarray):
        return (spe,)
    if isinstance(spe, (str, bytes)) or not hasattr(spe, "__iter__"):
        raise InvalidArgumentError(
            f"`spe` must be an SPE, a sparse probability matrix or an iterable of them "
            f"(consecutive row chunks); got {describe(spe)}.")
    return spe


def _chunk_events(mat: sp.csr_array, truth: sp.csr_array):
    """The events of a chunk grouped by instance: its stored estimates, and its true
    labels the SPE does not store (estimate 0, never predicted).

    Returns (indptr, label, estimate, y, instance) with one entry per event.
    """
    y_spe = truth_at_entries(mat, truth)
    y_only = ~truth_at_entries(truth, mat)
    r = mat.shape[0]
    inst = np.concatenate((np.repeat(np.arange(r), np.diff(mat.indptr)),
                           np.repeat(np.arange(r), np.diff(truth.indptr))[y_only]))
    order, indptr = group_order(inst, r)
    label = np.concatenate((mat.indices, truth.indices[y_only]))[order]
    value = np.concatenate((mat.data, np.zeros(int(y_only.sum()))))[order]
    y = np.concatenate((y_spe, np.ones(int(y_only.sum()), dtype=bool)))[order]
    return indptr, label, value, y, inst[order]


class _OnlineState:
    """OFO's O(m) state: a, b, thresholds, and the counts and F of the online F-measure."""

    def __init__(self, a, b, lower, upper, fm: FMeasure, zd: float):
        self.a, self.b, self.lower, self.upper = a, b, lower, upper
        self.fm, self.zd = fm, zd
        self.w_pos = (1.0 - fm.alpha) / fm.alpha    # beta^2: the weight of a positive in b
        m = a.shape[0]
        self.theta = self._bound(a / b, slice(None))
        self.tp, self.pred, self.pos = np.zeros(m), np.zeros(m), np.zeros(m)
        self.f = np.full(m, zd)                     # no truth and no prediction yet: 0/0
        self.f_sum = float(self.f.sum())

    def _bound(self, theta, idx):
        if self.lower is not None:
            np.maximum(theta, self.lower[idx], out=theta)
        if self.upper is not None:
            np.minimum(theta, self.upper[idx], out=theta)
        return theta

    def step(self, indptr, label, value, y, wy, hit):
        """Algorithm 2 for the instances of a chunk's events (in order), compiled
        (``ofo_pass``).

        Every event of an instance is a label in its SPE or in y; adding 0 to a and b
        and recomputing theta for the other SPE labels leaves them unchanged.
        """
        from ._counting import ofo_pass

        none = np.zeros(0)
        ofo_pass(indptr, label, value, y, wy, self.theta, self.a, self.b,
                 none if self.lower is None else self.lower,
                 none if self.upper is None else self.upper, hit)

    def account(self, label, y, hit, inst, trace):
        """Online F counts and the macro online F after each instance, vectorised.

        Events are grouped by label (instance order kept); cumulative counts per
        label give the F after each event, the previous event (or the state) the F
        before it, and the change of the macro sum is added up per instance.
        """
        ev = np.flatnonzero(hit | y)
        order, starts = group_order(label[ev], self.tp.shape[0])
        ev = ev[order]
        lab = label[ev]
        seg = starts[:-1][lab]                      # first event of each event's label
        sums = []
        for d, base in ((hit[ev] & y[ev], self.tp), (hit[ev], self.pred), (y[ev], self.pos)):
            cum = np.cumsum(d, dtype=np.int64)
            sums.append(cum - np.concatenate(([0], cum))[seg] + base[lab])
        tp, pred, pos = sums
        f_after = np.asarray(f_values(tp, pred, pos, self.fm, self.zd), dtype=float)
        first = np.arange(ev.size) == seg
        f_before = np.where(first, self.f[lab], np.roll(f_after, 1))
        per_instance = np.bincount(inst[ev], weights=f_after - f_before,
                                   minlength=trace.shape[0])
        np.cumsum(per_instance, out=trace)
        trace += self.f_sum
        if trace.size:
            self.f_sum = float(trace[-1])
        last = np.flatnonzero(np.r_[lab[1:] != lab[:-1], True]) if ev.size else ev
        j = lab[last]
        self.tp[j], self.pred[j], self.pos[j], self.f[j] = (tp[last], pred[last], pos[last],
                                                            f_after[last])


def ofo(spe: Any, Y: Any, a: Any, b: Any, *, lower_bounds: Any = None,
        upper_bounds: Any = None, beta: float | None = None, alpha: float | None = None,
        measure: FMeasure | None = None, zero_division: float = 1.0,
        return_predictions: bool = False, progress: bool | None = None) -> ThresholdFit:
    """Online F-measure optimisation (OFO, Algorithm 2 of seed 002).

    Instances are visited in order; instance i is predicted with the current
    thresholds (label j when its estimate > theta_j) and then, for the labels in
    y_i U y_hat_i only,

        a_j += [j in y_i and j in y_hat_i],   b_j += beta^2 [j in y_i] + [j in y_hat_i],
        theta_j = a_j / b_j   (clipped to the bounds when given).

    For F1 (beta = 1) this is the seed's update, theta_j = F_j / 2 of the
    counts so far; in general theta_j = alpha F_j.  The state is O(m); the
    sequential pass is compiled (numba) and visits only each instance's stored
    estimates and true labels.

    Parameters
    ----------
    spe : SPE, sparse (n, m) probability matrix, or an iterable of them
        An iterable is a stream of consecutive row chunks (e.g. from
        :func:`~fmstats.extreme.iter_spe` or ``SPE.row_chunks``) whose rows
        together match ``Y``.  Estimates the SPE does not store count as 0, so
        the SPE thresholds should not exceed the thresholds OFO reaches (use
        ``lower_bounds`` >= them).
    Y : scipy.sparse or array-like of shape (n, m)
        The 0/1 label matrix.
    a, b : float or array of shape (m,)
        Initial a_j >= 0 and b_j > 0 (the seed's experiments: a = 1, b = c for c
        in :data:`PAPER_C`); the first thresholds are a_j / b_j.
    lower_bounds, upper_bounds : float or array of shape (m,), optional
        Keep the thresholds in [lower, upper], e.g. :func:`threshold_bounds`.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives (Lewis: 1).
    return_predictions : bool, default False
        Keep the sequential 0/1 predictions (a sparse (n, m) array).
    progress : bool, optional
        A tqdm bar over instances; ``None``: only in an interactive session.

    Returns
    -------
    ThresholdFit
        ``thresholds`` after the last instance; ``label_f`` the online F of each
        label (its F over the sequential predictions, without the initial a, b);
        ``trace`` the macro-average of the online F after each instance.

    Examples
    --------
    >>> from fmstats.extreme import make_extreme_spe, ofo
    >>> spe, Y = make_extreme_spe(400, 50, 8, random_state=0)
    >>> fit = ofo(spe, Y, 1.0, 2.0)
    >>> print(f"{fit.macro_f:.4f}")
    0.5277
    >>> fit.thresholds[:3].round(3)
    array([0.317, 0.206, 0.234])
    """
    fm = as_fmeasure(measure, beta, alpha)
    zd = check_zero_division(zero_division)
    if not isinstance(return_predictions, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"`return_predictions` must be True or False; got {describe(return_predictions)}.")
    stream = _spe_stream(spe)
    truth = check_label_matrix(Y)
    n, m = truth.shape
    a0, b0 = _per_label("a", a, m, False), _per_label("b", b, m, True)
    ratio = a0 / b0
    if (ratio > 1).any():
        j = int(np.flatnonzero(ratio > 1)[0])
        raise InvalidArgumentError(
            f"`a` / `b` (the initial thresholds) must lie in [0, 1]; got "
            f"{num(a0[j])} / {num(b0[j])} for label {j}.")
    lower = None if lower_bounds is None else check_thresholds("lower_bounds", lower_bounds, m)
    upper = None if upper_bounds is None else check_thresholds("upper_bounds", upper_bounds, m)
    if lower is not None and upper is not None and (lower > upper).any():
        j = int(np.flatnonzero(lower > upper)[0])
        raise InvalidArgumentError(
            f"`lower_bounds` must not exceed `upper_bounds`; label {j} has "
            f"{num(lower[j])} > {num(upper[j])}.")

    state = _OnlineState(a0, b0, lower, upper, fm, zd)
    trace = np.empty(n)
    pred_parts, done = [], 0
    bar = None
    if progress_enabled(progress):
        bar = progress_bar(total=n, desc="OFO", unit="inst")
    try:
        for chunk in stream:
            whole = as_spe(chunk, "spe")
            if whole.shape[1] != m:
                raise DataError(f"`spe` must have the {m} labels of `Y`; a chunk has "
                                f"{whole.shape[1]}.")
            if done + whole.shape[0] > n:
                raise DataError(f"`spe` has more rows than `Y` ({n}): a chunk of "
                                f"{whole.shape[0]} rows starts at row {done}.")
            # sub-chunks bound the temporary event arrays and pace the progress bar
            for part in ((whole,) if whole.shape[0] <= _OFO_BLOCK
                         else whole.row_chunks(_OFO_BLOCK)):
                mat, rows = part.matrix, part.shape[0]
                t_part = truth[done:done + rows]
                indptr, label, value, y, inst = _chunk_events(mat, t_part)
                hit = np.zeros(label.shape[0], dtype=bool)
                state.step(indptr, label, value, y, state.w_pos * y, hit)
                state.account(label, y, hit, inst, trace[done:done + rows])
                if return_predictions:
                    pred_parts.append(mask_entries(mat, truth_at_entries(
                        mat, _events_matrix(indptr, label, hit, (rows, m)))))
                done += rows
                if bar is not None:
                    bar.update(rows)
    finally:
        if bar is not None:
            bar.close()
    if done != n:
        raise DataError(f"`spe` must have the {n} rows of `Y`; the stream ended after {done}.")
    trace /= m
    label_f = np.asarray(f_values(state.tp, state.pred, state.pos, fm, zd), dtype=float)
    preds = (sp.csr_array(sp.vstack(pred_parts, format="csr")) if return_predictions
             else None)
    return threshold_fit("ofo", state.theta, label_f, fm, zd, trace=trace, predictions=preds)


# rows per block of OFO's vectorised bookkeeping
_OFO_BLOCK = 8192


def _events_matrix(indptr, label, hit, shape) -> sp.csr_array:
    """The predicted events of a chunk as a 0/1 CSR array."""
    rows = np.repeat(np.arange(shape[0]), np.diff(indptr))[hit]
    out = sp.csr_array((np.ones(int(hit.sum())), (rows, label[hit])), shape=shape)
    out.sum_duplicates()
    return out

