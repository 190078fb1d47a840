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
  with ~1e-6 left in the coefficients; statsmodels is run to 1e-12), the model-based and
  HC0 covariances agree; statsmodels' HC1–HC3 for GLMs use other small-sample
  corrections than R's ``sandwich`` (and fmstats): 0.3 % and 1 % apart in the standard
  errors on the Titanic model.
* ``umaxent`` (probabilistic labels): the same GLM with the dispersion estimated by
  Pearson's chi-squared (R's quasibinomial, ``scale="X2"``) unless a fixed dispersion was
  given.
* Penalised fits (``penalty > 0``) and F-measure maximisers (``fmaxent``) have no twin:
  statsmodels' GLM has no ridge with inference, and the F-maximiser's weights are themselves
  estimated.  They raise :class:`~fmstats.exceptions.InvalidArgumentError`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import InvalidArgumentError

__all__ = ["to_statsmodels"]


def _import_statsmodels():
    try:
        import statsmodels.api as sm
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise ImportError("`to_statsmodels` needs statsmodels: pip install "
                          "'fmstats[statsmodels]' (or pip install statsmodels).") from exc
    return sm


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
    model = getattr(fit, "model", None)
    if model not in ("maxent", "umaxent") or getattr(fit, "fweights", None) is not None:
        raise InvalidArgumentError(
            f"`fit`: to_statsmodels handles maxent and umaxent fits; got a "
            f"{type(fit).__name__} ({model!r}). An F-measure maximiser's weights are "
            "estimated, so no statsmodels GLM has the same inference.")
    if fit.settings["penalty"] > 0:
        raise InvalidArgumentError(
            f"`fit`: fitted with a ridge penalty ({fit.settings['penalty']:g}); statsmodels' GLM "
            "has no penalised fit with standard errors. Refit with penalty=0.")
    if fit.X is None:
        fit.require_design("to_statsmodels")
    sm = _import_statsmodels()
    cov_type = fit.cov_type if cov_type is None else cov_type
    keep = ~np.asarray(fit.aliased, dtype=bool)
    names = [t for t, k in zip(fit.term_names, keep) if k]
    exog = pd.DataFrame(np.asarray(fit.X), index=fit.index, columns=names)   # X: kept columns
    endog = pd.Series(np.asarray(fit.y, dtype=float), index=fit.index, name=fit.response_name)
    glm = sm.GLM(endog, exog, family=sm.families.Binomial(),
                 var_weights=np.asarray(fit.weights, dtype=float), offset=fit.training.offset)
    scale = "X2" if fit.family == "quasibinomial" else float(fit.dispersion)
    return glm.fit(method="IRLS", scale=scale, cov_type=cov_type, use_t=fit.use_t, tol=1e-12,
                   maxiter=100)
