"""Hand a fitted fmstats model to statsmodels, for users who want statsmodels' extras.

``to_statsmodels(fit)`` refits the same likelihood with ``statsmodels.api.GLM`` on the
design fmstats built (aliased columns dropped, the same rows, the same weights) and returns
statsmodels' ``GLMResults``: its ``get_influence()``, ``wald_test()``, ``t_test()``,
``get_prediction()`` and the rest then work on an fmstats model.  statsmodels is an optional
dependency (``pip install fmstats[statsmodels]``); nothing else in fmstats imports it.

Which fits have a statsmodels twin
----------------------------------
* ``maxent`` (0/1, two-level or ``cbind`` responses): ``GLM(family=Binomial())`` with the
  prior weights (times the trials for ``cbind``) as ``var_weights``.  The coefficients
  agree to the two fits' convergence tolerances (R's rule, which fmstats follows, stops
  with ~1e-6 left in the coefficients; statsmodels is run to 1e-12), and so do the
  model-based and HC0 covariances.  statsmodels' GLM computes HC0 whatever HC type it is
  asked for (0.15: its GLM results have no ``cov_HC1``-``cov_HC3``, so it falls back to
  the uncorrected sandwich while labelling it HC1/HC2/HC3); for ``"HC1"``-``"HC3"`` the
  returned results carry the covariance of R's ``sandwich::vcovHC`` (fmstats' own, computed
  at statsmodels' estimates), so its ``bse``, tests and intervals are the ones asked for.
* ``umaxent`` (probabilistic labels): the same GLM with the dispersion estimated by
  Pearson's chi-squared (R's quasibinomial, ``scale="X2"``) unless a fixed dispersion was
  given.
* Penalised fits (``penalty > 0``) and F-measure maximisers (``fmaxent``) have no twin:
  statsmodels' GLM has no ridge with inference, and the F-maximiser's weights are themselves
  estimated.  They raise :class:`~fmstats.exceptions.InvalidArgumentError` (the guard of
  ``require_likelihood``, shared with profile intervals
  and ``anova``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._utils.boundary import public
from .._utils.validation import check_choice
from ..glm import irls_evaluate
from ._inference import require_likelihood
from ._training import COV_TYPES, sandwich_cov

__all__ = ["to_statsmodels"]


def _import_statsmodels():
    try:
        import statsmodels.api as sm
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise ImportError("`to_statsmodels` needs statsmodels: pip install "
                          "'fmstats[statsmodels]' (or pip install statsmodels).") from exc
    return sm


@public
def to_statsmodels(fit: Any, cov_type: str | None = None):
    """The statsmodels ``GLMResults`` of the same model, refitted by statsmodels.

    Parameters
    ----------
    fit : MaxentResults
        A fit of :func:`fmstats.maxent` or :func:`fmstats.umaxent` without a ridge penalty
        and with its design kept (``keep_data=True``, the default).
    cov_type : str, optional
        ``"nonrobust"`` or ``"HC0"``–``"HC3"``; default: the fit's own ``cov_type``.

    Returns
    -------
    statsmodels.genmod.generalized_linear_model.GLMResultsWrapper

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.load_titanic().dropna(subset=["age"])
    >>> fit = fm.maxent("survived ~ sex + age", titanic)
    >>> sm_fit = fm.to_statsmodels(fit)
    >>> print(f"{abs(sm_fit.params - fit.params).max() < 1e-8}")
    True
    >>> print(sm_fit.params.round(3).to_dict())
    {'Intercept': 1.235, 'sex[T.male]': -2.461, 'age': -0.004}
    """
    require_likelihood(fit, "`fit`: to_statsmodels")
    if fit.X is None:
        fit.require_design("to_statsmodels")
    cov_type = fit.cov_type if cov_type is None else check_choice("cov_type", cov_type,
                                                                  COV_TYPES)
    sm = _import_statsmodels()
    keep = ~np.asarray(fit.aliased, dtype=bool)
    names = [t for t, k in zip(fit.term_names, keep) if k]
    exog = pd.DataFrame(np.asarray(fit.X), index=fit.index, columns=names)   # X: kept columns
    endog = pd.Series(np.asarray(fit.y, dtype=float), index=fit.index, name=fit.response_name)
    w = np.asarray(fit.weights, dtype=float)
    off = fit.training.offset
    glm = sm.GLM(endog, exog, family=sm.families.Binomial(), var_weights=w, offset=off)
    scale = "X2" if fit.family == "quasibinomial" else float(fit.dispersion)
    corrected = cov_type in ("HC1", "HC2", "HC3")
    res = glm.fit(method="IRLS", scale=scale, cov_type="HC0" if corrected else cov_type,
                  use_t=fit.use_t, tol=1e-12, maxiter=100)
    if corrected:   # statsmodels' GLM would label HC0 as HC1-HC3: give it the covariance asked
        X = np.asarray(fit.X)
        at = irls_evaluate(X, fit.y, w, res.params.to_numpy(), offset=off)
        cov = sandwich_cov(at, X, fit.y, w, cov_type)
        inner = res._results
        inner.cov_params_default = cov
        inner.cov_type = cov_type
        inner.cov_kwds["description"] = (
            f"Standard Errors are heteroscedasticity robust ({cov_type}), R's "
            "sandwich::vcovHC, computed by fmstats")
        for name in ("bse", "tvalues", "pvalues"):   # derived from the covariance on first use
            inner._cache.pop(name, None)
    return res
