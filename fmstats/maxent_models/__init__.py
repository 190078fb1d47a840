"""The maximum-entropy (logistic) family of the thesis (seed 004, chapters 4-7, 9).

* :func:`maxent` -- weighted maximum entropy for certain labels (R's ``glm(binomial)``);
* :func:`umaxent` -- uncertain maximum entropy for probabilistic labels q (R's
  ``glm(quasibinomial)``);
* :func:`fmaxent` -- the F-measure maximising reweighting (expected F for 0/1 labels, the
  noisy F for q), and :func:`sweep` over alpha;
* model selection by terms: :func:`drop1`, :func:`add1`, :func:`step` (R's, marginality kept);
* inference after the fit: :func:`anova`, :func:`confint` (profile intervals), prediction standard errors,
  :func:`influence` and :func:`plot_diagnostics`, :func:`to_statsmodels`, and
  :func:`resample_f` (the long-run F of labels drawn from q).

In memory or out of core: a Dask DataFrame as ``data`` fits chunk by chunk with the same
results.
"""
from ._diagnostics import influence, plot_diagnostics
from ._fmaxent import (DEFAULT_EPSILON, DEFAULT_SHRINKAGE, DEFAULT_WEIGHT_BOUNDS,
                       MIN_CLASS_REWEIGHTED, FMaxentResults, fmaxent, sweep)
from ._inference import AnovaTable, anova, confint
from ._interop import to_statsmodels
from ._fitting import maxent, umaxent
from ._maxent import COV_TYPES, MaxentResults
from ._qresample import ResampleFResults, ResampledF, resample_f
# what fitted models hold, under the public names results files give them
from ._training import InMemoryTraining
from ._outofcore import TrainingStats
from ._stepwise import StepResults, TermTable, add1, drop1, extract_aic, step

__all__ = ["maxent", "umaxent", "MaxentResults", "fmaxent", "FMaxentResults", "sweep", "anova",
           "confint",
           "AnovaTable", "influence", "plot_diagnostics", "to_statsmodels", "resample_f",
           "ResampleFResults", "ResampledF", "drop1", "add1", "step", "TermTable", "StepResults",
           "extract_aic",
           "DEFAULT_EPSILON", "DEFAULT_SHRINKAGE", "DEFAULT_WEIGHT_BOUNDS",
           "COV_TYPES", "MIN_CLASS_REWEIGHTED"]
