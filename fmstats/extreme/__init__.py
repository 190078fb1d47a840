"""Extreme multi-label classification (seed 002): macro-F on sparse probability estimates.

* :mod:`~fmstats.extreme._spe` — sparse probability estimates (SPEs): the :class:`SPE`
  container and builders from any dense scorer (:func:`spe_from_scorer`, :func:`iter_spe`);
* :mod:`~fmstats.extreme._thresholds` — per-label thresholds for the macro F-measure:
  :func:`sto`, :func:`fta`, :func:`ofo`, the bounds (5) (:func:`threshold_bounds`) and
  :func:`macro_f_at_thresholds`;
* :mod:`~fmstats.extreme._synthetic` — :func:`make_extreme_spe`, a calibrated synthetic
  extreme problem;
* :mod:`~fmstats.extreme._plt` — probabilistic label trees: :func:`probabilistic_label_tree` (training),
  :class:`PLTResults` (sparse estimates, top-k), :func:`precision_at_k`;
  :mod:`~fmstats.extreme._trees` — the trees (:class:`LabelTree`, :func:`label_tree`);
* :mod:`~fmstats.extreme._protocol` — the experiment of seed 002 section 6:
  :func:`compare_thresholds` (STO, FTA, OFO against 1/c) and :func:`select_by_validation`.
"""
from ._spe import SPE, as_spe, iter_spe, spe_from_scorer
from ._synthetic import make_extreme_spe
from ._ofo import ofo
from ._thresholds import (PAPER_C, ThresholdFit, fta, label_priors, macro_f_at_thresholds, sto,
                          threshold_bounds)
from ._plt import (PLTResults, TopK, logistic_l2, plt, precision_at_k,  # noqa: F401 (plt:
                   probabilistic_label_tree)  # deprecated alias, not in __all__)
from ._trees import LabelTree, label_tree
from ._protocol import compare_thresholds, select_by_validation, spe_thresholds, tune_thresholds

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
    "probabilistic_label_tree",
    "PLTResults",
    "TopK",
    "precision_at_k",
    "logistic_l2",
    "LabelTree",
    "label_tree",
    "compare_thresholds",
    "select_by_validation",
    "spe_thresholds",
    "tune_thresholds",
]
