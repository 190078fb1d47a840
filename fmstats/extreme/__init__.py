"""Extreme multi-label classification (seed 002): macro-F on sparse probability estimates.

* :mod:`~fmstats.extreme.spe` — sparse probability estimates (SPEs): the :class:`SPE`
  container and builders from any dense scorer (:func:`spe_from_scorer`, :func:`iter_spe`);
* :mod:`~fmstats.extreme.thresholds` — per-label thresholds for the macro F-measure:
  :func:`sto`, :func:`fta`, :func:`ofo`, the bounds (5) (:func:`threshold_bounds`) and
  :func:`macro_f_at_thresholds`;
* :mod:`~fmstats.extreme.synthetic` — :func:`make_extreme_spe`, a calibrated synthetic
  extreme problem.
"""
from .spe import SPE, as_spe, iter_spe, spe_from_scorer
from .synthetic import make_extreme_spe
from .thresholds import (PAPER_C, ThresholdFit, fta, label_priors, macro_f_at_thresholds, ofo,
                         sto, threshold_bounds)

# --- probabilistic label trees (fmstats/extreme/plt.py): exports to be added here -------------

__all__ = [
    "SPE",
    "as_spe",
    "iter_spe",
    "spe_from_scorer",
    "make_extreme_spe",
    "PAPER_C",
    "ThresholdFit",
    "sto",
    "fta",
    "ofo",
    "label_priors",
    "threshold_bounds",
    "macro_f_at_thresholds",
    # --- PLT names (fmstats/extreme/plt.py) to be added here ---
]
