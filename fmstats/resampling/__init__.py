"""Resampling diagnostics for any fitted fmstats model.

* :func:`bootstrap` -- case, stratified or label-from-q bootstrap replicates of a model's
  coefficients (or any statistic), with standard errors and percentile, basic and BCa
  intervals (:class:`BootstrapResults`);
* :func:`validate` -- optimism-corrected performance (the bootstrap, .632 and .632+
  estimators, in the spirit of R's ``rms::validate``; :class:`ValidateResults`).
"""
from ._bootstrap import (BootstrapResults, DegenerateReplicateWarning, ResamplingWarning,
                         bootstrap)
from ..inference import basic_interval, bca_interval, jackknife_acceleration, percentile_interval
from ._validate import OptimismWarning, ValidateResults, validate
from ._replicates import Draws, PoissonDraws   # held by bootstraps (the public names results files give them)

__all__ = ["bootstrap", "BootstrapResults", "validate", "ValidateResults", "ResamplingWarning",
           "DegenerateReplicateWarning", "OptimismWarning", "percentile_interval",
           "basic_interval", "bca_interval", "jackknife_acceleration"]
