"""The SVM family of the thesis (seed 004, chapters 2, 3 and 8).

* :func:`wsvm` -- class-weighted linear soft-margin SVM, solved exactly as a QP
  (pure core :func:`wsvm_fit`);
* :func:`fsvm` -- F-measure maximising SVM (3.6) and misclassification-counting SVM
  (3.4), minimised with NLopt (COBYLA by default), started from :func:`wsvm`;
* :func:`tune_wsvm`, :func:`tune_fsvm` -- the cross-validated tuning of chapter 8 (the
  experiment itself is :func:`fmstats.experiments.thesis_ch8.chapter8`).
"""
from ._cobyla import SvmObjective, run_nlopt, step_approx, thesis_bounds
from ._fsvm import DEFAULT_A, THESIS_A, FsvmResults, all_negative_objective, fsvm
from ._wsvm import WsvmResults, wsvm
from ._qp import WsvmFit, wsvm_fit
# held by fits and tuners, under the public names results files give them
from ._cobyla import NloptRun
from ._tuning import WsvmGrid
from ._tuning import (DEFAULT_A_GRID, THESIS_A_GRID, THESIS_C_VALUES, thesis_grid, tune_fsvm,
                      tune_wsvm, with_measure)

__all__ = ["wsvm", "fsvm", "WsvmResults", "FsvmResults", "wsvm_fit", "WsvmFit",
           "SvmObjective", "run_nlopt", "step_approx", "thesis_bounds", "tune_wsvm", "tune_fsvm",
           "with_measure", "thesis_grid", "THESIS_C_VALUES",
           "THESIS_A_GRID", "DEFAULT_A_GRID", "DEFAULT_A",
           "THESIS_A", "all_negative_objective"]
