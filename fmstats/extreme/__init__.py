"""Extreme multi-label classification (seed 002): macro-F on sparse probability estimates.

* ``fmstats/extreme/_spe.py`` — sparse probability estimates (SPEs): the :class:`SPE`
  container and builders from any dense scorer (:func:`spe_from_scorer`, :func:`iter_spe`);
* ``fmstats/extreme/_thresholds.py`` — per-label thresholds for the macro F-measure:
  :func:`sto`, :func:`fta`, :func:`ofo`, the bounds (5) (:func:`threshold_bounds`) and
  :func:`macro_f_at_thresholds`; their compiled kernels (OFO's pass, per-label counts)
  are in ``fmstats/extreme/_counting.py``;
* ``fmstats/extreme/_synthetic.py`` — :func:`make_extreme_spe`, a calibrated synthetic
  extreme problem;
* ``fmstats/extreme/_plt.py`` — probabilistic label trees: :func:`probabilistic_label_tree`
  (training), :class:`ProbabilisticLabelTreeResults` (sparse estimates, top-k); the compiled
  node trainer is ``fmstats/extreme/_nodes.py`` (numba), its work units are scheduled on
  threads by
  ``fmstats/extreme/_training.py``;
* ``fmstats/extreme/_atk.py`` — measures at k on top-k predictions: :func:`precision_at_k`,
  :func:`recall_at_k`, :func:`ndcg_at_k`, the propensity-scored :func:`psprecision_at_k`,
  :func:`psndcg_at_k` (:func:`inverse_propensities`), :func:`macro_f_at_k`,
  :func:`coverage_at_k` and the table :func:`measures_at_k`;
  ``fmstats/extreme/_trees.py`` — the trees (:class:`LabelTree`, :func:`label_tree`);
* ``fmstats/extreme/_plugin.py`` — consistent plug-in inference for macro measures at k
  (Schultheis et al.): :func:`bca_macro_at_k` (block coordinate ascent on the test set),
  :func:`frank_wolfe_macro_at_k` (the randomised population classifier), :func:`spe_top_k`;
* ``fmstats/extreme/_napkinxc.py`` — :func:`spe_from_napkinxc`, SPEs of a napkinXC model;
* ``fmstats/extreme/_protocol.py`` — the experiment of seed 002 section 6:
  :func:`compare_thresholds` (STO, FTA, OFO against 1/c) and :func:`select_by_validation`.
"""
from ._spe import SPE, as_spe, iter_spe, spe_from_scorer
from ._synthetic import make_extreme_problem, make_extreme_spe
from ._ofo import ofo
from ._thresholds import (PAPER_C, ThresholdFit, fta, label_priors, macro_f_at_thresholds, sto,
                          threshold_bounds)
from ._atk import (TopK, coverage_at_k, inverse_propensities, macro_f_at_k,
                   macro_precision_at_k, macro_recall_at_k, measures_at_k, ndcg_at_k,
                   precision_at_k, psndcg_at_k, psprecision_at_k, recall_at_k)
from ._plt import (ProbabilisticLabelTreeResults, PLTResults, logistic_l2,
                   plt,  # noqa: F401 (plt: deprecated alias, not in __all__)
                   probabilistic_label_tree)
from ._trees import LabelTree, label_tree
from ._napkinxc import spe_from_napkinxc
from ._plugin import RandomizedTopK, bca_macro_at_k, frank_wolfe_macro_at_k, spe_top_k
from ._protocol import compare_thresholds, select_by_validation, spe_thresholds, tune_thresholds

__all__ = [
    "SPE",
    "as_spe",
    "iter_spe",
    "spe_from_scorer",
    "spe_from_napkinxc",
    "make_extreme_spe",
    "make_extreme_problem",
    "PAPER_C",
    "ThresholdFit",
    "sto",
    "fta",
    "ofo",
    "label_priors",
    "threshold_bounds",
    "macro_f_at_thresholds",
    "probabilistic_label_tree",
    "ProbabilisticLabelTreeResults", "PLTResults",
    "TopK",
    "precision_at_k",
    "recall_at_k",
    "ndcg_at_k",
    "inverse_propensities",
    "psprecision_at_k",
    "psndcg_at_k",
    "macro_f_at_k",
    "macro_precision_at_k",
    "macro_recall_at_k",
    "coverage_at_k",
    "measures_at_k",
    "spe_top_k",
    "bca_macro_at_k",
    "frank_wolfe_macro_at_k",
    "RandomizedTopK",
    "logistic_l2",
    "LabelTree",
    "label_tree",
    "compare_thresholds",
    "select_by_validation",
    "spe_thresholds",
    "tune_thresholds",
]
