"""The model functions ``maxent()`` and ``umaxent()`` (their results: :mod:`._maxent`).

``maxent`` maximises the weighted log-likelihood of certain labels (thesis
ch. 4): R's ``glm(family = binomial, weights = w)``.  ``umaxent`` maximises the
uncertain log-likelihood of probabilistic labels q (thesis ch. 5),
sum_i w_i [q_i log p_i + (1 - q_i) log(1 - p_i)]: the same estimating equations
as R's ``glm(family = quasibinomial)``, whose dispersion it estimates by
default.  Both are fitted by :func:`fmstats.glm.irls_logit`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils.call import ModelCall, records_call
from .._utils.validation import describe
from ..exceptions import InvalidArgumentError
from ._fitdata import prepare
from ._maxent import MaxentResults

#: Arguments a call may give per row of its data (recorded by description; a refit on other
#: rows needs them again).
ROW_ARGUMENTS = ("weights", "subset", "offset")

__all__ = ["maxent", "umaxent", "ROW_ARGUMENTS"]


def _fit(call: ModelCall, data, weights, model: str, subset=None, offset=None,
         **fixed) -> MaxentResults:
    keep_data = call.get("keep_data", True)
    if not isinstance(keep_data, (bool, np.bool_)):
        raise InvalidArgumentError(f"`keep_data` must be True or False; got {describe(keep_data)}.")
    prep = prepare(model, call, data, weights, subset=subset, offset=offset, blocked=not keep_data,
                   **fixed)
    s = prep.settings
    fit = prep.source(s["threshold"]).fit(start=prep.start, penalty=prep.penalty, tol=s["tol"],
                                        max_iter=s["max_iter"])
    res = MaxentResults(settings=s, call=call, frame=prep.frame, aliased=prep.aliased,
                        fit=fit, training=prep.training(fit))
    if not keep_data and res.training.in_memory:   # out of core keeps no rows anyway
        res.training.drop_design(res)
    return res


@records_call(rows=ROW_ARGUMENTS)
def maxent(formula: str, data: pd.DataFrame, weights=None, *, subset=None, na_action=None,
           offset=None, contrasts=None, penalty: float = 0.0,
           cov_type: str = "nonrobust", threshold: float = 0.5, measure=None, beta=None,
           alpha=None, missing: str = "drop", collinear: str = "drop", engine: str | None = None,
           tol: float = 1e-8, max_iter: int = 25, start=None,
           keep_data: bool = True, _call=None) -> MaxentResults:
    """Weighted maximum-entropy (logistic regression) model for certain labels.

    Maximises sum_i w_i log p(y_i | x_i) (thesis ch. 4); identical to R's
    ``glm(formula, family = binomial, weights = w)``.

    Parameters
    ----------
    formula : str
        R-style formula ``"y ~ x1 + C(g) * x2"``; the response is 0/1, boolean, a two-level
        factor (the second level is the positive class, as in R) or ``cbind(yes, no)`` counts.
    data : DataFrame or dask.dataframe.DataFrame
        The data.  A Dask DataFrame is fitted out of core, chunk by chunk, with the same
        results (see ``_outofcore.py``; ``weights`` must then be a
        column).
    weights : str or array-like, optional
        Prior weights: a column name of ``data`` or an array with one value per row of
        ``data``; non-negative and finite.
    subset : str or array-like of bool, optional
        The rows to fit, as R's ``subset=``: a boolean mask (one value per row of ``data``)
        or an expression on its columns (``"age > 30 & sex == 'male'"``).
    na_action : {"omit", "exclude", "fail"}, optional
        R's ``na.action`` for rows with missing values in the model's variables: ``"omit"``
        (the default) drops them with a warning, ``"exclude"`` drops them from the fit but
        pads ``predict()``, ``fitted_values``, ``resid()`` and ``hat`` with NaN at their rows,
        ``"fail"`` raises.  ``missing="drop"``/``"raise"`` is the older spelling.
    offset : str or array-like, optional
        A known part of the linear predictor (eta = X b + offset), as R's ``offset=``: a
        column name (re-read from ``newdata`` by ``predict``) or one finite value per row of
        ``data``.  ``offset(expr)`` terms in the formula are the other spelling.
    contrasts : dict, optional
        The coding of factors, as R's ``contrasts=``: factor -> ``"treatment"`` (default),
        ``"sum"``, ``"helmert"`` or ``"poly"`` (R's ``contr.*``); ``C(g, sum)`` in the
        formula is the other spelling.
    penalty : float, default 0
        Ridge penalty on the non-intercept coefficients (helps under separation).
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3"}, default "nonrobust"
        ``"nonrobust"`` (model-based) or the sandwich estimators ``"HC0"`` to ``"HC3"``.
    threshold : float, default 0.5
        Probability at or above which the predicted class is 1.
    measure : FMeasure, optional
        The F-measure reported in the summary (default F1); give at most one of
        ``measure``, ``beta`` and ``alpha``.
    beta, alpha : float, optional
        The F-measure reported in the summary given by its beta, or by its weight on
        precision alpha (default F1).
    missing : {"drop", "raise"}, default "drop"
        The older spelling of ``na_action``: ``"drop"`` (``"omit"``) or ``"raise"``
        (``"fail"``).
    collinear : {"drop", "raise"}, default "drop"
        ``"drop"`` aliased columns (NA coefficients, with a warning) or ``"raise"``.
    engine : str, optional
        Formula engine, ``"formulaic"`` (default) or ``"patsy"``.
    tol : float, default 1e-8
        IRLS convergence tolerance (relative deviance change).
    max_iter : int, default 25
        IRLS iteration cap.
    start : array-like, optional
        Starting coefficients (warm start).
    keep_data : bool, default True
        Keep the design matrix X in the results (default).  ``False`` stores every
        covariance type and the hat values instead, so the results still summarise, predict
        and score new data and refit, at a fraction of the memory (n = 2e6, p = 50: X alone
        is 763 MiB); profile intervals, ``anova`` and the fast bootstrap then need a refit.
        The fit itself never holds the design then: it is built and accumulated in blocks of
        32768 rows (X'WX, scores, hat values, sandwich meats), so the fit's peak memory beyond
        the DataFrame is the fit's n-vectors and one block -- at most 0.5 x the frame's size
        for frames of 40 or more columns (measured at n = 2e6, p = 50, a 778 MiB frame: 229
        MiB, 0.29 x, against 2.2 x when the design is built whole; ``python
        benchmarks/reliability/bench_memory.py --case maxent`` prints it), with the numbers of
        ``keep_data=True`` to ~1e-13.  Formulas whose design depends on all rows at once
        (``center()``, splines) and fits with ``subset``, ``offset``, ``contrasts`` or
        ``na_action="exclude"`` build it whole and drop it after the fit.

    Returns
    -------
    MaxentResults
        The fitted model: coefficients, covariance, the recorded call and the F-measure section
        of its summary.

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    >>> print(fit.params.round(3).to_string())
    term
    Intercept         3.522
    C(pclass)[T.2]   -1.281
    C(pclass)[T.3]   -2.290
    sex[T.male]      -2.498
    age              -0.034
    >>> print(f"{fit.deviance:.2f}")
    982.45
    """
    return _fit(_call, data, weights, "maxent", subset=subset, offset=offset, dispersion=1.0,
                dependence="correlated")


@records_call(rows=ROW_ARGUMENTS)
def umaxent(formula: str, data: pd.DataFrame, weights=None, *, subset=None, na_action=None,
            offset=None, contrasts=None, dispersion="pearson",
            penalty: float = 0.0, cov_type: str = "nonrobust", threshold: float = 0.5,
            measure=None, beta=None, alpha=None, dependence: str = "correlated",
            missing: str = "drop", collinear: str = "drop", engine: str | None = None,
            tol: float = 1e-8, max_iter: int = 25, start=None,
            keep_data: bool = True, _call=None) -> MaxentResults:
    """Uncertain maximum-entropy model for probabilistic labels q (thesis ch. 5).

    Maximises sum_i w_i [q_i log p_i + (1 - q_i) log(1 - p_i)], the uncertain
    log-likelihood; the coefficients equal R's
    ``glm(q ~ ..., family = quasibinomial, weights = w)``.  The response is a
    probability column, ``cbind(yes, no)`` annotator votes (q = yes/(yes+no),
    weighted by the number of votes), or 0/1 labels.

    Parameters
    ----------
    formula : str
        As in :func:`maxent`: an R-style formula ``"q ~ x1 + C(g) * x2"``; the response is a
        probability column, ``cbind(yes, no)`` annotator votes or 0/1 labels.
    data : DataFrame or dask.dataframe.DataFrame
        As in :func:`maxent`: the data; a Dask DataFrame is fitted out of core.
    weights : str or array-like, optional
        As in :func:`maxent`: prior weights, a column name of ``data`` or an array with one
        value per row; non-negative and finite.
    subset : str or array-like of bool, optional
        As in :func:`maxent`: the rows to fit (a boolean mask or an expression).
    na_action : {"omit", "exclude", "fail"}, optional
        As in :func:`maxent`: rows with missing values (``"exclude"`` pads row-level results).
    offset : str or array-like, optional
        As in :func:`maxent`: a known part of the linear predictor.
    contrasts : dict, optional
        As in :func:`maxent`: factor -> ``"treatment"``, ``"sum"``, ``"helmert"``, ``"poly"``.
    dispersion : "pearson" or float, default "pearson"
        ``"pearson"`` (default) estimates the dispersion like R's quasibinomial; a number
        fixes it (1 gives binomial-style standard errors).
    penalty : float, default 0
        As in :func:`maxent`: ridge penalty on the non-intercept coefficients.
    cov_type : {"nonrobust", "HC0", "HC1", "HC2", "HC3"}, default "nonrobust"
        As in :func:`maxent`: model-based or a sandwich estimator.
    threshold : float, default 0.5
        As in :func:`maxent`: probability at or above which the predicted class is 1.
    measure : FMeasure, optional
        As in :func:`maxent`: the F-measure reported in the summary (default F1); give at
        most one of ``measure``, ``beta`` and ``alpha``.
    beta, alpha : float, optional
        As in :func:`maxent`: the F-measure by its beta or its weight on precision alpha.
    dependence : {"correlated", "independent"}, default "correlated"
        Selects the noisy F-measure reported in the summary (see
        :func:`fmstats.measures.noisy_confusion`).
    missing : {"drop", "raise"}, default "drop"
        As in :func:`maxent`: the older spelling of ``na_action``.
    collinear : {"drop", "raise"}, default "drop"
        As in :func:`maxent`: aliased columns are dropped (NA coefficients, with a warning)
        or raise.
    engine : str, optional
        As in :func:`maxent`: the formula engine, ``"formulaic"`` (default) or ``"patsy"``.
    tol : float, default 1e-8
        As in :func:`maxent`: IRLS convergence tolerance (relative deviance change).
    max_iter : int, default 25
        As in :func:`maxent`: IRLS iteration cap.
    start : array-like, optional
        As in :func:`maxent`: starting coefficients (warm start).
    keep_data : bool, default True
        As in :func:`maxent`: keep the design matrix X in the results; ``False`` keeps the
        covariances and hat values instead, at a fraction of the memory, and builds the
        design in row blocks (the fit's extra memory at most 0.5 x a frame of 40 or more
        columns).

    Returns
    -------
    MaxentResults
        The fitted model of the probabilistic labels, with the dispersion and dependence used
        by its standard errors.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> fit = fm.umaxent("q ~ x1 + x2", d[d.split == "train"])
    >>> print(fit.params.round(3).to_string())
    term
    Intercept   -0.051
    x1           0.854
    x2          -0.367
    """
    return _fit(_call, data, weights, "umaxent", subset=subset, offset=offset)
