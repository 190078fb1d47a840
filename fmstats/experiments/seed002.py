"""Seed 002's §6 experiment on the data of vignette 07, as functions the vignette and tests share.

Vignette 07 states numbers in prose (the selected c, test macro-F, "OFO best"); the
reproduction test ``tests/test_reproduce_002_xmlc.py`` computes them with these same
functions, so the prose cannot drift from the code.

* :func:`synthetic_split` draws the 100,000-label problem of the vignette and splits it
  64/16/20 (PLT-training part for the priors, validation, test);
* :func:`debtags_split` splits the bundled debtags data the same way and trains the PLT;
* :func:`run_protocol` runs :func:`~fmstats.extreme.compare_thresholds` and
  :func:`~fmstats.extreme.select_by_validation` on a split;
* :func:`absent_label_breakdown` splits the test macro-F of the selected thresholds into
  labels that occur in the test set and labels that do not;
* :func:`shared_threshold_scan` scores one shared threshold (FTA) over any grid, and
  :func:`best_label_threshold` finds one label's exact best threshold by brute force.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..extreme import compare_thresholds, select_by_validation, tune_thresholds
from ..extreme import make_extreme_spe
from ..extreme import PAPER_C, label_priors, macro_f_at_thresholds, threshold_bounds

__all__ = ["ProtocolSplit", "split_rows", "synthetic_split", "debtags_split", "run_protocol",
           "selected_thresholds", "absent_label_breakdown", "shared_threshold_scan",
           "best_label_threshold"]


@dataclass
class ProtocolSplit:
    """Validation and test SPEs and labels of one run of the §6 protocol.

    ``priors`` are the label priors of the part that trains the estimator (64 % of the
    rows) and ``lower`` the lower ends of the range (5) computed from them.  ``model`` is
    the PLT for debtags (None for the synthetic problem).
    """

    spe_val: Any
    Y_val: Any
    spe_test: Any
    Y_test: Any
    priors: np.ndarray
    lower: np.ndarray
    model: Any = None


def split_rows(n: int, random_state: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """§6's split: 20 % test; of the rest, 80 % train the estimator and 20 % validate."""
    perm = np.random.default_rng(random_state).permutation(n)
    n_train = int(0.8 * n)
    n_fit = int(0.8 * n_train)
    return np.sort(perm[:n_fit]), np.sort(perm[n_fit:n_train]), np.sort(perm[n_train:])


def synthetic_split(random_state: int = 1, *, n: int = 100_000, m: int = 100_000,
                    nnz_per_row: int = 20, hidden_per_row: float = 1.0) -> ProtocolSplit:
    """The vignette's synthetic problem: calibrated SPEs, power-law labels, hidden positives."""
    spe, Y = make_extreme_spe(n, m, nnz_per_row, hidden_per_row=hidden_per_row,
                              random_state=random_state)
    fit, val, test = split_rows(n, random_state)
    priors = label_priors(Y[fit])
    return ProtocolSplit(spe.take_rows(val), Y[val], spe.take_rows(test), Y[test], priors,
                         threshold_bounds(priors)[0])


def debtags_split(random_state: int = 0, *, n_jobs: int = 2, C: float = 1.0) -> ProtocolSplit:
    """The vignette's debtags run: a random binary PLT on 64 %, SPEs at the lower bounds."""
    from ..datasets import load_debtags
    from ..extreme import probabilistic_label_tree
    from ..extreme import spe_from_scorer

    X, Y, _, _ = load_debtags()
    fit, val, test = split_rows(X.shape[0], random_state)
    priors = label_priors(Y[fit])
    lower = threshold_bounds(priors)[0]
    model = probabilistic_label_tree(X[fit], Y[fit], arity=2, tree="random", C=C, random_state=random_state,
                n_jobs=n_jobs, progress=False)
    spe_val = spe_from_scorer(model.predict_marginals, X[val], lower, progress=False)
    spe_test = spe_from_scorer(model.predict_marginals, X[test], lower, progress=False)
    return ProtocolSplit(spe_val, Y[val], spe_test, Y[test], priors, lower, model)


def run_protocol(split: ProtocolSplit, c_grid=PAPER_C) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(table, best)``: every (method, c) row and the rows selected by validation."""
    table = compare_thresholds(split.spe_val, split.Y_val, split.spe_test, split.Y_test, c_grid,
                               priors=split.priors, progress=False)
    return table, select_by_validation(table)


def selected_thresholds(split: ProtocolSplit, method: str, c: float) -> np.ndarray:
    """The per-label thresholds of ``method`` at ``c`` ("fixed": ½ for every label)."""
    if method == "fixed":
        return np.full(split.lower.size, 0.5)
    return np.asarray(tune_thresholds(method, split.spe_val, split.Y_val, c,
                                      lower_bounds=split.lower, progress=False).thresholds)


def absent_label_breakdown(split: ProtocolSplit, best: pd.DataFrame) -> pd.DataFrame:
    """Test macro-F of the selected rows, split by whether a label occurs in the test set.

    Columns: ``method``, ``c``, ``test_macro_f``, ``mean_f_labels_in_test`` and
    ``share_absent_labels_never_predicted`` (the mean F of the absent labels, 1 or 0 each).
    """
    occurs = label_priors(split.Y_test) > 0
    rows = []
    for r in best.itertuples():
        f = macro_f_at_thresholds(split.spe_test, split.Y_test,
                                  selected_thresholds(split, r.method, r.c), average=None)
        rows.append(dict(method=r.method, c=r.c, test_macro_f=f.mean(),
                         mean_f_labels_in_test=f[occurs].mean(),
                         share_absent_labels_never_predicted=f[~occurs].mean()))
    return pd.DataFrame(rows)


def shared_threshold_scan(split: ProtocolSplit, thresholds) -> pd.DataFrame:
    """Validation and test macro-F of one shared threshold θ (kept ≥ the lower bounds)."""
    rows = []
    for t in np.asarray(thresholds, float):
        theta = np.maximum(t, split.lower)
        rows.append(dict(threshold=t,
                         valid_macro_f=macro_f_at_thresholds(split.spe_val, split.Y_val, theta),
                         test_macro_f=macro_f_at_thresholds(split.spe_test, split.Y_test,
                                                            theta)))
    return pd.DataFrame(rows)


def best_label_threshold(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """One label's exact best F1 threshold by brute force over its estimates.

    ``p`` are the label's estimates (0 where the SPE stores none) and ``y`` its 0/1
    labels on the same instances.  Predicting "p > θ" can only change at the distinct
    values of p, so every candidate θ in {0} ∪ p is tried.  Returns ``(θ, F1)`` with the
    largest θ among ties and 0/0 = 1 (Lewis).
    """
    p = np.asarray(p, float)
    y = np.asarray(y, bool)
    best = (-1.0, 1.0)
    for t in np.unique(np.r_[0.0, p]):
        pred = p > t
        tp = np.sum(pred & y)
        den = pred.sum() + y.sum()
        f = 1.0 if den == 0 else 2 * tp / den
        if f >= best[0]:
            best = (f, float(t))
    return best[1], best[0]
