"""fmstats: F-measure optimisation with formulas, summaries, tuning and bootstrap diagnostics.

The R-style public API:

* ``maxent(formula, data, weights=)`` — weighted maximum-entropy (logistic) model;
* ``umaxent(formula, data, weights=)`` — uncertain maxent for probabilistic labels;
* ``fmaxent(formula, data, alpha=|beta=)`` — the F-measure maximising reweighting;
* ``sweep()`` over alpha, ``resample_f()`` (labels drawn from q);
* ``wsvm(formula, data, C_pos=, C_neg=)`` and ``fsvm(formula, data, alpha=)`` — the
  weighted and F-measure SVMs (:mod:`fmstats.svm`, NLopt COBYLA);
* ``drop1()``, ``add1()``, ``step()`` -- R's model selection by terms (maxent/umaxent);
  ``anova()`` and ``confint()`` (profile-likelihood intervals, as MASS);
* ``cv_tune()``, ``tune_threshold()``, ``bootstrap()``, ``validate()`` — tuning and
  resampling diagnostics for every model;
* ``calibrate(fit, method=)`` — cross-fitted Platt, isotonic or beta calibration;
* ``multinom()`` — multinomial maxent; ``multiclass_decision()`` — multiclass F-optimal and
  cost-matrix decisions from class probabilities, tuned by pooled CV;
* ``costsens()`` — pseudo-linear F-measures by reduction to cost-sensitive learning;
* ``multilabel`` (GFM) and ``extreme`` (STO/FTA/OFO, probabilistic label trees);
* ``FMeasure(beta=|alpha=)`` and the measures in :mod:`fmstats.measures`;
* ``f_interval()``, ``precision_interval()``, ``recall_interval()``, ``compare()``: how sure
  the F is (:mod:`fmstats.inference`); every model's ``measure(newdata, ci=True)``;
* ``f_curve()``: precision, recall and F at every threshold (:mod:`fmstats.prcurve`);
  every model with scores also has ``f_curve()``, ``plot_pr()`` and ``plot_roc()``;
* data sets in :mod:`fmstats.datasets`.
"""
from ._version import __version__
from . import (calibration, costsensitive, datasets, exceptions, extreme, formula, glm,
               inference, maxent_models, measures, model_selection, multiclass, multilabel,
               plotting, prcurve, resampling, results, svm)
from .calibration import CalibrateResults, CalibratedResults, calibrate
from .costsensitive import CostsensResults, CostSensitiveResults, costsens, costsens_variants
from .exceptions import ConvergenceWarning, FmstatsError, SeparationWarning, brief_warnings
from .inference import (Comparison, MeasureInterval, compare, f_interval, precision_interval,
                        recall_interval)
from .maxent_models import (AnovaTable, FMaxentResults, MaxentResults, StepResults, TermTable,
                            add1, anova, confint, drop1, fmaxent, resample_f, step, sweep,
                            to_statsmodels, umaxent)
from .maxent_models import maxent  # noqa: E402  (the function; the family is maxent_models)
from .measures import Confusion, FMeasure, f_score, noisy_f
from .model_selection import (CvTuneResults, TuneThresholdResults, ThresholdedResults, cv_tune,
                              tune_threshold,
                              with_measure)
from .multiclass import (MulticlassDecisionResults, MulticlassDecision, MultinomResults,
                         multiclass_decision,
                         multinom)
from .prcurve import f_curve
from .resampling import BootstrapResults, ValidateResults, bootstrap, validate
from .svm import FsvmResults, WsvmResults, fsvm, wsvm

__all__ = [
    "__version__",
    "maxent",
    "umaxent",
    "MaxentResults",
    "anova",
    "AnovaTable",
    "confint",
    "drop1",
    "add1",
    "step",
    "TermTable",
    "StepResults",
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
    "TuneThresholdResults", "ThresholdedResults",
    "bootstrap",
    "BootstrapResults",
    "validate",
    "ValidateResults",
    "calibrate",
    "CalibrateResults", "CalibratedResults",
    "calibration",
    "multinom",
    "MultinomResults",
    "multiclass_decision",
    "MulticlassDecisionResults", "MulticlassDecision",
    "multiclass",
    "costsensitive",
    "costsens",
    "costsens_variants",
    "CostsensResults", "CostSensitiveResults",
    "FMeasure",
    "Confusion",
    "f_score",
    "noisy_f",
    "f_curve",
    "prcurve",
    "inference",
    "f_interval",
    "precision_interval",
    "recall_interval",
    "MeasureInterval",
    "compare",
    "Comparison",
    "datasets",
    "to_statsmodels",
    "measures",
    "exceptions",
    "FmstatsError",
    "ConvergenceWarning",
    "SeparationWarning",
    "brief_warnings",
]
