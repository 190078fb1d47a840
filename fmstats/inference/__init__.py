"""How sure is the F?  Intervals for F, precision and recall, and comparisons of classifiers.

* :func:`f_interval` -- an F-measure (binary, micro or macro) with a delta-method
  (Takahashi et al. 2022), Bayes (Goutte & Gaussier 2005) or bootstrap interval;
* :func:`precision_interval`, :func:`recall_interval` -- Wilson and Clopper-Pearson;
* :func:`compare` -- the difference in F of two classifiers on the same rows (two fitted
  models or two prediction vectors), with its interval and p-value;
* :func:`f_band`, :func:`band_region` -- pointwise bands of the F-versus-threshold curve
  (bootstrap, profile likelihood) and the profile-likelihood region of a precision-recall
  curve (Urlus et al. 2023), with an interval for the F-optimal threshold;
* :class:`MeasureInterval`, :class:`Comparison`, :class:`CurveBand` -- the frozen results.

Every fitted model's ``measure(newdata, ci=True, ci_method=...)`` returns a
:class:`MeasureInterval`, and ``tune_threshold(..., ci=True)`` / ``cv_tune(..., ci=True)`` use
these intervals for the optimism-corrected F of a tuned rule.  The units, the delta method and the Monte-Carlo draws
are described in ``fmstats/inference/_units.py``.
"""
from ._finterval import (DEFAULT_PRIOR, F_METHODS, excluded, f_interval, interval_of_rows,
                         precision_interval, recall_interval)
from ._compare import COMPARE_METHODS, Comparison, compare
from ._interval import MeasureInterval, check_B, check_level, quantile_mc_error
from ._bands import delta_band
from ._curveband import BAND_METHODS, CurveBand, band_region, f_band
from ._optimism import estimate_632plus, no_information_counts
from ._percentile import (basic_interval, bca_interval, finite_values, jackknife_acceleration,
                          percentile_interval, tail_quantiles)

__all__ = ["f_interval", "precision_interval", "recall_interval", "MeasureInterval",
           "compare", "Comparison", "f_band", "CurveBand", "interval_of_rows", "percentile_interval",
           "basic_interval", "bca_interval", "jackknife_acceleration", "tail_quantiles",
           "BAND_METHODS", "F_METHODS", "band_region", "check_B", "check_level", "delta_band",
           "estimate_632plus", "finite_values", "no_information_counts", "quantile_mc_error"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["BAND_METHODS", "F_METHODS", "band_region", "check_B", "check_level",
              "delta_band", "estimate_632plus", "finite_values", "no_information_counts",
              "quantile_mc_error"]
