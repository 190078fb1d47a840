"""The macro-F experiment of seed 002 section 6: STO, FTA and OFO against 1/c.

Thresholds are tuned on sparse probability estimates (SPEs) of a validation set
and scored on a test set.  For every c of a grid (the paper's
:data:`~fmstats.extreme.PAPER_C`) and every label j, with
lower_j the lower end of the range (5) from the label priors:

* **STO** searches the exact per-label optimum on the validation SPE restricted
  to tau_j = max(1/c, lower_j) (Algorithm 1; only thresholds >= tau_j);
* **FTA** uses the fixed thresholds tau_j = max(1/c, lower_j) (the grid of c
  is FTA's candidate set; choosing c by validation is FTA with a shared
  threshold);
* **OFO** runs Algorithm 2 over the validation instances with a = 1, b = c and
  its thresholds kept >= lower_j.

The test macro-F of the chosen thresholds is what the paper plots against 1/c
(Figure 1) and reports at the c with the best validation macro-F (Table 2,
:func:`select_by_validation`).
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np
import pandas as pd

from .._utils.parallel import check_n_jobs, run_tasks
from .._utils.validation import check_choice, check_scalar, describe, num, warn
from ..exceptions import DataError, DataWarning, InvalidArgumentError
from ..measures import FMeasure, as_fmeasure, check_zero_division
from ._spe import SPE, as_spe, check_label_matrix, check_thresholds
from ._ofo import ofo
from ._thresholds import (PAPER_C, ThresholdFit, f_values, fta, label_priors, sto,
                          threshold_bounds, truth_at_entries)

__all__ = ["METHODS", "spe_thresholds", "tune_thresholds", "compare_thresholds",
           "select_by_validation"]

#: The tuners compared by :func:`compare_thresholds`.
METHODS = ("sto", "fta", "ofo")

_COLUMNS = ["method", "c", "inv_c", "valid_macro_f", "test_macro_f", "valid_online_f",
            "mean_threshold", "spe_per_instance", "test_predicted_per_instance"]


def _check_c(c: Any) -> float:
    return float(check_scalar("c", c, low=1))


def spe_thresholds(c: float, lower_bounds: Any) -> np.ndarray:
    """The SPE thresholds of the paper's protocol: tau_j = max(1/c, lower_j).

    Parameters
    ----------
    c : float
        At least 1 (the paper's grid runs from 2 to 10,000).
    lower_bounds : array of shape (m,)
        E.g. the lower end of :func:`~fmstats.extreme.threshold_bounds`.

    Returns
    -------
    ndarray of shape (m,)
        The thresholds tau_j.
    """
    lower = np.atleast_1d(np.asarray(lower_bounds, dtype=float))
    return np.maximum(1.0 / _check_c(c), check_thresholds("lower_bounds", lower, lower.size))


def tune_thresholds(method: str, spe: Any, Y: Any, c: float, *, lower_bounds: Any,
                    a: float = 1.0, beta: float | None = None, alpha: float | None = None,
                    measure: FMeasure | None = None, zero_division: float = 1.0,
                    progress: bool | None = None) -> ThresholdFit:
    """Thresholds of one method at one c of the protocol (see the module docstring).

    Parameters
    ----------
    method : {"sto", "fta", "ofo"}
        The tuner: :func:`~fmstats.extreme.sto`, :func:`~fmstats.extreme.fta` or
        :func:`~fmstats.extreme.ofo`.
    spe : SPE or sparse (n, m) probability matrix
        Validation estimates; its thresholds should not exceed ``lower_bounds``
        (OFO) or ``max(1/c, lower_bounds)`` (STO, FTA).
    Y : scipy.sparse or array-like of shape (n, m)
        The validation 0/1 label matrix.
    c : float
        STO, FTA: the SPE threshold 1/c; OFO: the initial b (with a = ``a``).
    lower_bounds : float or array of shape (m,)
        Lower bounds of the thresholds (all methods).
    a : float, default 1
        OFO's initial a (the paper keeps it at 1).
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives (Lewis: 1).
    progress : bool, optional
        OFO's tqdm bar over instances; ``None``: only in an interactive session.

    Returns
    -------
    ThresholdFit
        The thresholds tuned by ``method``.
    """
    check_choice("method", method, METHODS)
    fm = as_fmeasure(measure, beta, alpha)
    c = _check_c(c)
    s = as_spe(spe)
    m = s.shape[1]
    lower = check_thresholds("lower_bounds", lower_bounds, m)
    common = dict(measure=fm, zero_division=zero_division)
    if method == "sto":
        return sto(s, Y, lower_bounds=spe_thresholds(c, lower), **common)
    if method == "fta":
        return fta(s, Y, [1.0 / c], shared=True, lower_bounds=lower, **common)
    return ofo(s, Y, a, c, lower_bounds=lower, progress=progress, **common)


def _check_grid(c_grid: Any) -> np.ndarray:
    try:
        grid = np.asarray(list(c_grid), dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`c_grid` must be a sequence of numbers >= 1; got {describe(c_grid)}.") from None
    if grid.size == 0:
        raise InvalidArgumentError("`c_grid` must hold at least one value; got none.")
    bad = ~(np.isfinite(grid) & (grid >= 1))
    if bad.any():
        raise InvalidArgumentError(
            f"`c_grid` values must be finite and >= 1; got {num(grid[bad][0])}.")
    return grid


def _check_methods(methods: Iterable[str]) -> tuple[str, ...]:
    if isinstance(methods, str):
        methods = (methods,)
    out = tuple(check_choice("methods", mth, METHODS) for mth in methods)
    if not out:
        raise InvalidArgumentError(f"`methods` must name at least one of {METHODS}; got none.")
    return out


def compare_thresholds(spe_val: Any, Y_val: Any, spe_test: Any, Y_test: Any,
                       c_grid: Iterable[float] = PAPER_C, *, priors: Any = None,
                       methods: Iterable[str] = METHODS, a: float = 1.0,
                       fixed: float | None = 0.5, beta: float | None = None,
                       alpha: float | None = None, measure: FMeasure | None = None,
                       zero_division: float = 1.0, progress: bool | None = None,
                       n_jobs: int | None = None) -> pd.DataFrame:
    """Validation and test macro-F of STO, FTA and OFO over a grid of c (seed 002, §6).

    Parameters
    ----------
    spe_val, Y_val : SPE (or sparse probability matrix) and 0/1 labels
        The validation part of the training data: thresholds are tuned here.
    spe_test, Y_test : SPE and 0/1 labels
        The test set (same labels).  Both SPEs should be built at thresholds no
        larger than the lower bounds (e.g. ``plt_model.predict_proba_sparse(X,
        lower)``): then every prediction below is exact.  Otherwise a
        :class:`~fmstats.exceptions.DataWarning` says so.
    c_grid : sequence of float >= 1, default :data:`PAPER_C`
        The values of c.
    priors : array of shape (m,), optional
        Label priors for the lower bounds (5) (the paper: estimated on the
        training data, e.g. ``label_priors(Y_train)``); default: those of ``Y_val``.
    methods : subset of ("sto", "fta", "ofo")
        The tuners compared, in this order (default all three).
    a : float, default 1
        OFO's initial a; its b runs over ``c_grid``.
    fixed : float or None, default 0.5
        A baseline row (method "fixed", c NaN) with this one threshold for every
        label; None: no baseline.
    beta, alpha : float, optional
        The F-measure (default F1); see :class:`~fmstats.measures.FMeasure`.
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``beta``, ``alpha`` and ``measure``.
    zero_division : float, default 1
        F of a label with no positives and no predicted positives (Lewis: 1).
    progress : bool, optional
        A tqdm bar over (method, c) pairs; ``None``: only in an interactive session.
    n_jobs : int, optional
        Threads over the (method, c) pairs (the tuners' compiled parts and the scoring
        release the GIL): STO's rows run one after the other in one task, OFO's and FTA's
        rows beside it; None: joblib's default.  The table does not depend on it.
        Memory beyond the SPEs: one flag per stored estimate of each, and per thread one
        tuner's temporaries (STO about 32 bytes per stored validation estimate; OFO those
        of 8,192 rows at a time).

    Returns
    -------
    pandas.DataFrame
        One row per (method, c) in the given orders: ``method``, ``c``,
        ``inv_c`` (1/c), ``valid_macro_f`` and ``test_macro_f`` (macro-F of the
        tuned thresholds on the validation and the test data),
        ``valid_online_f`` (OFO: the macro-averaged online F of its sequential
        predictions; NaN otherwise), ``mean_threshold``, ``spe_per_instance``
        (validation estimates per instance above the SPE thresholds the method
        needs: max(1/c, lower) for STO and FTA, lower for OFO, the threshold
        itself for "fixed") and ``test_predicted_per_instance``.

    Examples
    --------
    >>> from fmstats.extreme import make_extreme_spe, compare_thresholds
    >>> spe_val, Y_val = make_extreme_spe(300, 40, 6, random_state=0)
    >>> spe_test, Y_test = make_extreme_spe(300, 40, 6, random_state=1)
    >>> table = compare_thresholds(spe_val, Y_val, spe_test, Y_test, c_grid=(10, 5, 2))
    >>> print(table[["method", "c", "valid_macro_f", "test_macro_f"]].round(3)
    ...       .to_string(index=False))
    method    c  valid_macro_f  test_macro_f
       sto 10.0          0.642         0.491
       sto  5.0          0.616         0.508
       sto  2.0          0.364         0.335
       fta 10.0          0.477         0.458
       fta  5.0          0.531         0.501
       fta  2.0          0.345         0.358
       ofo 10.0          0.520         0.500
       ofo  5.0          0.512         0.509
       ofo  2.0          0.517         0.525
     fixed  NaN          0.345         0.358
    """
    fm = as_fmeasure(measure, beta, alpha)
    sv, st = as_spe(spe_val, "spe_val"), as_spe(spe_test, "spe_test")
    yv = check_label_matrix(Y_val, sv.shape, "Y_val")
    yt = check_label_matrix(Y_test, st.shape, "Y_test")
    if sv.shape[1] != st.shape[1]:
        raise DataError(f"`spe_val` and `spe_test` must have the same labels; got {sv.shape[1]} "
                        f"and {st.shape[1]}.")
    m = sv.shape[1]
    grid = _check_grid(c_grid)
    mths = _check_methods(methods)
    if fixed is not None:
        fixed = float(check_scalar("fixed", fixed, low=0, high=1))
    n_jobs = check_n_jobs(n_jobs)
    pri = label_priors(yv) if priors is None else priors
    lower = threshold_bounds(pri, measure=fm)[0]
    if lower.shape != (m,):
        raise DataError(f"`priors` must have one value per label ({m}); got shape "
                        f"{lower.shape}.")
    for name, s in (("spe_val", sv), ("spe_test", st)):
        above = s.thresholds > lower
        if above.any():
            j = int(np.flatnonzero(above)[0])
            warn(f"`{name}` has thresholds above the lower bounds (5) for {int(above.sum())} "
                 f"label(s) (the first: label {j}, {num(s.thresholds[j])} > "
                 f"{num(lower[j])}); estimates it did not store count as 0, so some "
                 "thresholds are tuned or scored inexactly. Build the SPEs at the lower "
                 "bounds.", DataWarning)

    score = _Scorer(sv, yv, st, yt, fm, zero_division)
    rows = [(mth, float(c), sv, yv, lower, a, fm, zero_division, score)
            for mth in mths for c in grid]
    # STO's rows one after the other in one task (its temporaries, ~32 bytes per stored
    # estimate, exist once), the others a task each, beside it
    sto_rows = [r for r in rows if r[0] == "sto"]
    tasks = ([(sto_rows,)] if sto_rows else []) + [([r],) for r in rows if r[0] != "sto"]
    done = run_tasks(_protocol_rows, tasks, n_jobs=n_jobs, progress=progress,
                     desc="thresholds", blas_threads=None, backend="threading")
    by_key = {(r["method"], r["c"]): r for part in done for r in part}
    rows = [by_key[(r[0], r[1])] for r in rows]
    if fixed is not None:
        theta = np.full(m, fixed)
        rows.append(dict(method="fixed", c=np.nan, inv_c=np.nan, valid_online_f=np.nan,
                         **score(theta, theta)))
    return pd.DataFrame(rows, columns=_COLUMNS)


class _Scorer:
    """The validation and test macro-F of thresholds and the other columns of a row of
    :func:`compare_thresholds`: the truth of every stored estimate is found once, then each
    call counts per label in one compiled pass over each SPE
    (``label_counts_above``; the GIL is released) and applies
    :func:`~fmstats.measures.f_score`'s arithmetic to the counts, so the values equal
    :func:`~fmstats.extreme.macro_f_at_thresholds`'s."""

    def __init__(self, sv: SPE, yv, st: SPE, yt, fm: FMeasure, zero_division: float):
        self.parts = [(s, truth_at_entries(s.matrix, y),
                       np.bincount(y.indices, minlength=s.shape[1]).astype(float))
                      for s, y in ((sv, yv), (st, yt))]
        self.fm, self.zd = fm, check_zero_division(zero_division)

    def __call__(self, theta: np.ndarray, spe_tau: np.ndarray) -> dict:
        from ._counting import label_counts_above

        out = []
        for s, truth, pos in self.parts:
            s.check_below(theta)
            mat = s.matrix
            pred, tp, kept = label_counts_above(mat.indices, mat.data, truth, theta,
                                                np.maximum(spe_tau, s.thresholds))
            out.append((float(np.mean(f_values(tp.astype(float), pred.astype(float), pos,
                                               self.fm, self.zd))), int(pred.sum()), kept))
        (f_val, _, kept), (f_test, n_pred, _) = out
        sv, st = self.parts[0][0], self.parts[1][0]
        return dict(valid_macro_f=f_val, test_macro_f=f_test, mean_threshold=float(theta.mean()),
                    spe_per_instance=kept / sv.shape[0],
                    test_predicted_per_instance=n_pred / st.shape[0])


def _protocol_rows(rows: list) -> list[dict]:
    """Worker: (method, c) rows of :func:`compare_thresholds`, one after the other."""
    return [_protocol_row(*r) for r in rows]


def _protocol_row(mth: str, c: float, sv: SPE, yv, lower: np.ndarray, a: float, fm: FMeasure,
                  zero_division: float, score: _Scorer) -> dict:
    """One (method, c) row of :func:`compare_thresholds`."""
    spe_tau = lower if mth == "ofo" else spe_thresholds(c, lower)
    if mth == "fta":
        # FTA with the one candidate 1/c: the thresholds max(1/c, lower) whatever the data
        # (what fta(sv, yv, [1/c], lower_bounds=lower) returns, and its warning)
        theta = spe_tau
        SPE._trusted(sv.matrix, np.maximum(lower, sv.thresholds)).check_below(
            theta, name="candidates")
        fit_f = np.nan
    else:
        fit = tune_thresholds(mth, sv, yv, c, lower_bounds=lower, a=a, measure=fm,
                              zero_division=zero_division, progress=False)
        theta, fit_f = np.asarray(fit.thresholds), fit.macro_f
    return dict(method=mth, c=c, inv_c=1.0 / c,
                valid_online_f=fit_f if mth == "ofo" else np.nan, **score(theta, spe_tau))


def select_by_validation(table: pd.DataFrame) -> pd.DataFrame:
    """Per method, the row of :func:`compare_thresholds` with the best validation macro-F.

    Ties go to the largest 1/c (the sparsest SPE, the cheapest prediction).  The
    paper's Table 2 reports the ``test_macro_f`` of these rows.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`compare_thresholds` (at least the columns ``method``, ``inv_c``
        and ``valid_macro_f``).

    Returns
    -------
    pandas.DataFrame
        One row per method, in the order of first appearance in ``table``.
    """
    if not isinstance(table, pd.DataFrame) or not {"method", "inv_c",
                                                   "valid_macro_f"} <= set(table.columns):
        raise InvalidArgumentError(
            "`table` must be a DataFrame from compare_thresholds (with columns method, inv_c "
            f"and valid_macro_f); got {describe(table)}.")
    order = table.sort_values(["method", "valid_macro_f", "inv_c"], ascending=[True, False,
                                                                               False],
                              kind="stable", na_position="last")
    best = order.groupby("method", sort=False).head(1)
    methods = list(dict.fromkeys(table["method"]))
    return best.set_index("method").loc[methods].reset_index()
