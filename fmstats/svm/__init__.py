"""The SVM family of the thesis (seed 004, chapters 2, 3 and 8).

* :func:`wsvm` -- class-weighted linear soft-margin SVM, solved exactly as a QP
  (pure core :func:`wsvm_fit`);
* :func:`fsvm` -- F-measure maximising SVM (3.6) and misclassification-counting SVM
  (3.4), minimised with NLopt (COBYLA by default), started from :func:`wsvm`.
"""
from .cobyla import SvmObjective, run_nlopt, step_approx, thesis_bounds
from .models import FsvmResults, WsvmResults, fsvm, wsvm
from .qp import WsvmFit, wsvm_fit

__all__ = ["wsvm", "fsvm", "WsvmResults", "FsvmResults", "wsvm_fit", "WsvmFit",
           "SvmObjective", "run_nlopt", "step_approx", "thesis_bounds"]
