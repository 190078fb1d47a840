"""Cross-validated choices for any fitted fmstats model.

* :func:`cv_tune` -- a grid of model arguments judged by the pooled cross-validated F
  (:class:`CvTuneResults`);
* :func:`tune_threshold` -- the decision threshold of a fitted model by an exact search over
  pooled cross-validated scores (:class:`TuneThresholdResults`);
* :func:`with_measure` -- a model function with its F-measure fixed, for a tuner.
"""
from ._cv_tune import (CvTuneResults, EmptyFoldWarning, FitFailedWarning, TuneThresholdResults,
                       ThresholdedResults,
                       cv_tune, tune_threshold, with_measure)
from ._thresholded import BlockThresholdedResults   # a threshold tuned out of core
from ._oocthreshold import RowFolds   # held by it (the public name results files give it)
from ._criterion import Criterion
from ._folds import Folds   # held by tuners (the public name results files give it)
from ._constrained import QUANTITIES, ConstraintWarning
from ._grid_uncertainty import GridUncertainty
from ._uncertainty import TuningUncertainty

__all__ = ["cv_tune", "CvTuneResults", "tune_threshold", "TuneThresholdResults", "ThresholdedResults",
           "with_measure",
           "FitFailedWarning", "EmptyFoldWarning", "TuningUncertainty", "GridUncertainty",
           "ConstraintWarning", "BlockThresholdedResults"]
