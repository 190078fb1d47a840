"""Constrained thresholds for :func:`fmstats.tune_threshold`: "maximise F (or recall) subject to
precision >= 0.9", by the same exact search over every cut of the pooled held-out scores.

Used by ``_threshold.py`` only.  The quantities are those of the
pooled held-out counts at each cut (TP, FP, FN, TN summed over the folds): precision
TP / (TP + FP) (a cut with no predicted positive never meets a precision constraint), recall
TP / (TP + FN), specificity TN / (TN + FP) and the positive rate (TP + FP) / n.  Among the
cuts that meet the constraint (within 1e-12, so that an exactly met bound does not flip with
rounding), the one with the best objective (the tuner's F, or one of the quantities) wins,
ties to the highest threshold.  When no cut meets
it, :class:`ConstraintWarning` says so and the cut that comes closest is returned.

:func:`constraint_probability` estimates how often the constraint holds on new data: the
model is refitted on bootstrap resamples of the rows and the quantity is measured at the
tuned threshold on the rows each resample left out.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.validation import check_choice, check_level, check_random_state, check_scalar, describe, warn
from ..exceptions import ConstraintWarning, InvalidArgumentError
from ..formula import take_rows
from ..results import TrainingRows, predict_kept
from .._utils.parallel import capturing, reemit

__all__ = ["QUANTITIES", "ConstraintWarning", "check_constraint", "constrained_best",
           "quantities", "constraint_probability"]

QUANTITIES = ("precision", "recall", "specificity", "positive_rate")
_TOL = 1e-12


def check_constraint(constraint, maximize):
    """``constraint`` as (quantity, op, value) and ``maximize`` as None or a quantity, checked."""
    if constraint is None:
        if maximize is not None:
            raise InvalidArgumentError("`maximize` applies to a constrained threshold: give "
                                       "`constraint=` too (or leave `maximize` None).")
        return None, None
    if not isinstance(constraint, (tuple, list)) or len(constraint) != 3:
        raise InvalidArgumentError(
            f"`constraint` must be a tuple (quantity, '>=' or '<=', value), such as "
            f"('precision', '>=', 0.9); got {describe(constraint)}.")
    q, op, v = constraint
    check_choice("constraint[0] (the constrained quantity)", q, QUANTITIES)
    check_choice("constraint[1] (the comparison)", op, (">=", "<="))
    check_scalar("constraint[2] (the bound)", v, low=0, high=1)
    if maximize is not None:
        check_choice("maximize", maximize, QUANTITIES)
        if maximize == q:
            raise InvalidArgumentError(f"`maximize`={maximize!r} is the constrained quantity; "
                                       "maximise another one (or the F-measure: None).")
    return (q, op, float(v)), maximize


def quantities(counts: np.ndarray) -> dict:
    """precision, recall, specificity, positive_rate of counts (..., 4) = tp, fp, fn, tn."""
    tp, fp, fn, tn = (counts[..., i] for i in range(4))
    n = tp + fp + fn + tn
    return {"precision": np.asarray(_m.ratio(tp, fp, fn, 1.0, 0.0, 1.0), dtype=float),
            "recall": np.asarray(_m.ratio(tp, fp, fn, 0.0, 1.0, 1.0), dtype=float),
            "specificity": np.divide(tn, tn + fp, out=np.ones(np.shape(tn)), where=tn + fp > 0),
            "positive_rate": np.divide(tp + fp, n, out=np.zeros(np.shape(n)), where=n > 0)}


def _meets(values: np.ndarray, op: str, bound: float) -> np.ndarray:
    return values >= bound - _TOL if op == ">=" else values <= bound + _TOL


def constrained_best(curve: pd.DataFrame, constraint, maximize, column: str) -> int:
    """The row of ``curve`` (columns tp, fp, fn, tn and ``column``) chosen under ``constraint``;
    adds the quantities' columns to ``curve`` (in place)."""
    q, op, bound = constraint
    for name, v in quantities(curve[["tp", "fp", "fn", "tn"]].to_numpy(dtype=float)).items():
        if name not in ("precision", "recall"):       # the criterion already pools these two
            curve[name] = v
    values = curve[q].to_numpy(dtype=float)
    ok = _meets(values, op, bound)
    if q == "precision":       # no predicted positive: precision is undefined, not met
        ok &= (curve["tp"] + curve["fp"]).to_numpy(dtype=float) > 0
    if not ok.any():
        pool = np.where((curve["tp"] + curve["fp"]).to_numpy() > 0, values, np.nan) \
            if q == "precision" else values
        j = int(np.nanargmax(pool) if op == ">=" else np.nanargmin(pool))
        best = values[j]
        warn(f"tune_threshold: no threshold meets {q} {op} {bound:g} on the pooled held-out "
             f"scores (the {'highest' if op == '>=' else 'lowest'} {q} reached is {best:.4g}); "
             "the threshold that comes closest is used. Loosen the constraint, or improve the "
             "model (more features, more data).", ConstraintWarning)
        return j
    objective = curve[column if maximize is None else maximize].to_numpy(dtype=float)
    return _m.best_position(np.where(ok, objective, np.nan))


def _refit(train, idx):
    return train.refit(idx, reset_index=True)


def constraint_probability(results, *, B: int = 200, random_state=None, level: float = 0.95
                           ) -> dict:
    """How often the constraint of a constrained :func:`fmstats.tune_threshold` holds on new
    data, estimated by refitting on bootstrap resamples (the model at the tuned threshold,
    scored on the rows each resample left out).

    Parameters
    ----------
    results : TuneThresholdResults
        A constrained threshold.
    B : int, default 200
        Bootstrap refits.
    random_state : int or numpy.random.Generator, optional
        Seeds the resamples.
    level : float, default 0.95
        The level of the interval of the probability (Wilson).

    Returns
    -------
    dict
        ``probability``, ``conf_low``, ``conf_high``, ``B`` (refits that scored rows), and
        ``values`` (the quantity on each resample's left-out rows).
    """
    constraint = results.settings.get("constraint")
    if constraint is None:
        raise InvalidArgumentError("constraint_probability() needs a threshold tuned with "
                                   "`constraint=`.")
    check_scalar("B", B, low=10, integer=True)
    check_level(level)
    q, op, bound = constraint
    rng = check_random_state(random_state)
    data = results.training_data
    response = results._training_response()
    y, w = response.y, response.w * results._prior()
    train = TrainingRows(results.base, data)    # the tuning data or the kept rows
    values, caught = [], []
    n = len(data)
    for _ in range(B):      # B refits: each fit and score is vectorised over the rows
        idx = rng.integers(0, n, n)
        out = np.setdiff1d(np.arange(n), idx)
        if not len(out):
            continue
        fit, err, ws = capturing(_refit, train, idx)
        caught += ws
        if err is not None:          # a resample the model cannot be fitted to: left out
            continue
        held = take_rows(data, out)
        s = predict_kept(fit, held, type=results.score_type)
        scored = held.index.get_indexer(s.index)      # positions in `out` of the scored rows
        rows = out[scored]
        yy = y[rows]
        keep = ~np.isnan(yy)
        pred = (s.to_numpy() >= results.threshold)[keep]
        yy, ww = yy[keep], w[rows][keep]
        c = np.array([ww @ (yy * pred), ww @ ((1 - yy) * pred), ww @ (yy * ~pred),
                      ww @ ((1 - yy) * ~pred)])
        values.append(float(quantities(c)[q]))
    reemit(caught, B, "bootstrap refits of constraint_probability")
    values = np.asarray(values)
    k, m = int(_meets(values, op, bound).sum()), len(values)
    from scipy import stats
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / m
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    return {"probability": p, "conf_low": max(0.0, centre - half),
            "conf_high": min(1.0, centre + half), "B": m, "values": values}
