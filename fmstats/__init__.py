"""fmstats: F-measure optimisation with formulas, summaries, tuning and bootstrap diagnostics.

The R-style public API:

* ``maxent(formula, data, weights=)`` — weighted maximum-entropy (logistic) model;
* ``umaxent(formula, data, weights=)`` — uncertain maxent for probabilistic labels;
* ``fmaxent(formula, data, alpha=|beta=)`` — the F-measure maximising reweighting;
* ``sweep()`` over alpha, ``resample_f()`` (labels drawn from q);
* ``FMeasure(beta=|alpha=)`` and the measures in :mod:`fmstats.measures`;
* data sets in :mod:`fmstats.datasets`.
"""
from ._version import __version__
from . import datasets, exceptions, measures
from .exceptions import ConvergenceWarning, FmstatsError, SeparationWarning
from .maxent import MaxentResults, maxent, umaxent
from .fmaxent import FMaxentResults, fmaxent, sweep
from .qresample import resample_f
from . import plotting
from . import multilabel
from .measures import Confusion, FMeasure, f_score, noisy_f

__all__ = [
    "__version__",
    "maxent",
    "umaxent",
    "MaxentResults",
    "fmaxent",
    "FMaxentResults",
    "sweep",
    "resample_f",
    "plotting",
    "multilabel",
    "FMeasure",
    "Confusion",
    "f_score",
    "noisy_f",
    "datasets",
    "measures",
    "exceptions",
    "FmstatsError",
    "ConvergenceWarning",
    "SeparationWarning",
]
