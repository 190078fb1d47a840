"""fmstats: F-measure optimisation with formulas, summaries, tuning and bootstrap diagnostics.

The R-style public API:

* ``maxent(formula, data, weights=)`` — weighted maximum-entropy (logistic) model;
* ``umaxent(formula, data, weights=)`` — uncertain maxent for probabilistic labels;
* ``fmaxent(formula, data, alpha=|beta=)`` — the F-measure maximising reweighting;
* ``sweep()`` over alpha, ``resample_f()`` (labels drawn from q);
* ``wsvm(formula, data, C_pos=, C_neg=)`` and ``fsvm(formula, data, alpha=)`` — the
  weighted and F-measure SVMs (:mod:`fmstats.svm`, NLopt COBYLA);
* ``cv_tune()``, ``tune_threshold()``, ``bootstrap()``, ``validate()`` — tuning and
  resampling diagnostics for every model;
* ``costsens()`` — pseudo-linear F-measures by reduction to cost-sensitive learning;
* ``multilabel`` (GFM) and ``extreme`` (STO/FTA/OFO, probabilistic label trees);
* ``FMeasure(beta=|alpha=)`` and the measures in :mod:`fmstats.measures`;
* ``f_curve()``: precision, recall and F at every threshold (:mod:`fmstats.prcurve`);
  every model with scores also has ``f_curve()``, ``plot_pr()`` and ``plot_roc()``;
* data sets in :mod:`fmstats.datasets`.
"""
from ._version import __version__
from . import datasets, exceptions, measures
from .exceptions import ConvergenceWarning, FmstatsError, SeparationWarning
from .maxent import MaxentResults, maxent, umaxent
from .inference import AnovaTable, anova
from .fmaxent import FMaxentResults, fmaxent, sweep
from .qresample import resample_f
from . import plotting
from . import multilabel
from .measures import Confusion, FMeasure, f_score, noisy_f
from . import prcurve
from .prcurve import f_curve
from . import svm
from .svm import FsvmResults, WsvmResults, fsvm, wsvm
from .tuning import CvTuneResults, ThresholdedResults, cv_tune, tune_threshold, with_measure
from .bootstrap import BootstrapResults, bootstrap
from .validate import ValidateResults, validate
from . import costsensitive
from .costsensitive import CostSensitiveResults, costsens, costsens_variants
from . import extreme
from .interop import to_statsmodels

__all__ = [
    "__version__",
    "maxent",
    "umaxent",
    "MaxentResults",
    "anova",
    "AnovaTable",
    "fmaxent",
    "FMaxentResults",
    "sweep",
    "resample_f",
    "plotting",
    "multilabel",
    "extreme",
    "svm",
    "wsvm",
    "fsvm",
    "WsvmResults",
    "FsvmResults",
    "cv_tune",
    "CvTuneResults",
    "tune_threshold",
    "with_measure",
    "ThresholdedResults",
    "bootstrap",
    "BootstrapResults",
    "validate",
    "ValidateResults",
    "costsensitive",
    "costsens",
    "costsens_variants",
    "CostSensitiveResults",
    "FMeasure",
    "Confusion",
    "f_score",
    "noisy_f",
    "f_curve",
    "prcurve",
    "datasets",
    "to_statsmodels",
    "measures",
    "exceptions",
    "FmstatsError",
    "ConvergenceWarning",
    "SeparationWarning",
]
