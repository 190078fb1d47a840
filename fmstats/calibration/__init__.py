"""Calibrated probabilities for any fitted binary model.

* :func:`calibrate` -- cross-fitted Platt, isotonic or beta calibration
  (:class:`CalibrateResults`, a model usable wherever the fit was);
* the maps on arrays (:func:`fit_map`, :class:`CalibrationMap`) and the diagnostics
  (:func:`calibration_stats`: Brier decomposition, ECE, the F*/2 check).
"""
from ._calibrate import CalibrateResults, CalibratedResults, calibrate
from ._diagnostics import brier_decomposition, calibration_stats, ece, f_optimal_threshold
from ._maps import METHODS, CalibrationMap, fit_map

__all__ = ["calibrate", "CalibrateResults", "CalibratedResults", "fit_map", "CalibrationMap",
           "calibration_stats",
           "brier_decomposition", "ece", "f_optimal_threshold", "METHODS"]
