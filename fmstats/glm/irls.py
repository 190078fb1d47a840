"""Deprecated path ``fmstats.glm.irls``: the module is private (``fmstats.glm._irls``).

Import its names from :mod:`fmstats.glm`; this module offers the names it offered before and
warns with a ``FmstatsDeprecationWarning`` (see ``fmstats/glm/_moved.py``).
"""
from ._moved import warn_moved
from ._irls import (  # noqa: F401 - re-exported for old imports
    IrlsFit, irls_logit, as_design, irls_coef, irls_evaluate, binomial_deviance, gram,
    independent_columns, ColumnScaling, column_scaling, rank_gram, MAX_WEIGHT, SPREAD_RANGE,
    column_spread, check_weights_range, r_start_mu, deviance_from_eta, weighted_loglik,
    unscale_fit, deviance_scale,
)

__all__ = ["IrlsFit", "irls_logit", "as_design", "irls_coef", "irls_evaluate",
           "binomial_deviance", "gram", "independent_columns", "ColumnScaling",
           "column_scaling", "rank_gram", "MAX_WEIGHT", "SPREAD_RANGE", "column_spread",
           "check_weights_range", "r_start_mu", "deviance_from_eta", "weighted_loglik",
           "unscale_fit", "deviance_scale"]

warn_moved(__name__)
