"""Multinomial maximum entropy with the formula API: :func:`multinom` (R's ``nnet::multinom``).

The response is one column with K >= 2 classes (numbers, strings or a categorical; ``C(g)``
and ``factor(g)`` are accepted as R spells it); the first level is the reference class (its
coefficients are zero), as in ``nnet::multinom`` and statsmodels' ``MNLogit``.  The design is
built by :func:`fmstats.formula.model_frame` from the right-hand side (factors, interactions,
transforms as for :func:`fmstats.maxent`), so new data is encoded the same way.  The fit
(``_mncore.py``) maximises the weighted log-likelihood exactly (Newton),
which is what ``nnet`` approximates by BFGS.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._utils.call import Settings, records_call, weights_label
from .._utils.validation import check_choice, check_scalar, describe, prior_weights, warn
from ..exceptions import (CollinearityWarning, ConvergenceWarning, DesignError,
                          InvalidArgumentError, ResponseError)
from ..formula import FoldResponse, check_frame, model_frame, refuse_offsets, split_formula
from ._mncore import expand_aliased, fit_multinom
from ._mnresults import MultinomResults

__all__ = ["multinom", "response_classes", "class_fold_response", "ClassFoldResponse"]

_WRAPPED = re.compile(r"^\s*(?:C|factor|as\.factor)\s*\(\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\)\s*$")


def _response_column(lhs: str, data: pd.DataFrame) -> str:
    m = _WRAPPED.match(lhs)
    col = m.group(1) if m else lhs.strip()
    if col not in data.columns:
        raise ResponseError(
            f"`formula`: the response of multinom() must be one column of `data` (optionally "
            f"written C(col) or factor(col)); got {lhs!r}, and {col!r} is not a column.")
    return col


def response_classes(values: pd.Series, reference=None) -> tuple:
    """The classes of a multiclass response, reference first.

    Categorical columns keep their category order (unused categories dropped), others are
    sorted; ``reference`` (default the first) is moved to the front.

    Parameters
    ----------
    values : Series
        The response column (missing values are ignored).
    reference : object, optional
        The reference class.

    Returns
    -------
    tuple
        The classes, the reference first.
    """
    v = values.dropna()
    if isinstance(values.dtype, pd.CategoricalDtype):
        seen = set(v.tolist())
        levels = [c for c in values.cat.categories.tolist() if c in seen]
    else:
        try:
            levels = sorted(pd.unique(v).tolist())
        except TypeError as exc:
            raise ResponseError(f"the response classes cannot be ordered (mixed types: "
                                f"{describe(pd.unique(v)[:4].tolist())}); convert them to "
                                "strings or a categorical.") from exc
    levels = [x.item() if isinstance(x, np.generic) else x for x in levels]
    if len(levels) < 2:
        raise ResponseError(
            f"the response has {len(levels)} class(es) ({describe(levels)}); multinom() needs "
            "at least two.")
    if reference is not None:
        if reference not in levels:
            raise InvalidArgumentError(f"`reference` must be one of the classes "
                                       f"{describe(levels)}; got {describe(reference)}.")
        levels = [reference] + [x for x in levels if x != reference]
    return tuple(levels)


@dataclass(frozen=True)
class ClassFoldResponse(FoldResponse):
    """The response of a multiclass formula for the folds of :func:`fmstats.cv_tune`:
    ``codes`` number the classes by weight (0 the most frequent, the default class of the
    micro-F), ``y`` is 1 for the other classes; the folds are stratified by class."""

    codes: np.ndarray | None = None

    @property
    def strata(self) -> np.ndarray:
        """The class codes; -1 where the response is missing."""
        return np.where(self.observed, self.codes, -1)


def class_fold_response(formula: str, data: pd.DataFrame) -> ClassFoldResponse:
    """The fold response of a :func:`multinom` formula (its ``fold_response`` hook, which
    :func:`fmstats.cv_tune` uses to stratify the folds by class).

    Parameters
    ----------
    formula : str
        The multinom formula.
    data : DataFrame
        The data.

    Returns
    -------
    ClassFoldResponse
    """
    data = check_frame(data, "data")
    lhs, _ = split_formula(formula)
    values = data[_response_column(lhs, data)]
    observed = values.notna().to_numpy()
    counts = values[observed].value_counts(sort=True)
    codes = pd.Categorical(values, categories=counts.index).codes.astype(np.int64)
    y = np.where(observed, (codes > 0).astype(float), np.nan)
    return ClassFoldResponse(name=lhs, y=y, w=observed.astype(float), codes=codes)


def _aliased(X: np.ndarray) -> np.ndarray:
    """Columns that are linear combinations of the columns before them (R's order: the later
    of two collinear columns is the one dropped), by Gram-Schmidt over the columns."""
    n, p = X.shape
    out = np.zeros(p, dtype=bool)
    basis = np.zeros((n, 0))
    for j in range(p):                       # a loop over columns; each step is vectorised
        x = X[:, j]
        r = x - basis @ (basis.T @ x)
        r = r - basis @ (basis.T @ r)        # re-orthogonalise once (numerical safety)
        norm = np.linalg.norm(r)
        if norm <= 1e-7 * max(np.linalg.norm(x), 1e-300):
            out[j] = True
        else:
            basis = np.column_stack([basis, r / norm])
    return out


@records_call
def multinom(formula: str, data: pd.DataFrame, weights=None, *, penalty: float = 0.0,
             reference=None, default_class=None, measure=None, beta=None, alpha=None,
             missing: str = "drop", collinear: str = "drop", engine: str | None = None,
             tol: float = 1e-10, max_iter: int = 100, _call=None) -> MultinomResults:
    """Multinomial maximum-entropy (multinomial logistic) model: R's ``nnet::multinom``.

    Maximises sum_i w_i log p(y_i | x_i) with p(k | x) proportional to exp(x' b_k) and
    b_reference = 0; the coefficients, standard errors, deviance and AIC are those of
    ``nnet::multinom(formula, data, weights = w, Hess = TRUE)`` and of statsmodels'
    ``MNLogit`` (fitted exactly by Newton's method, not by ``nnet``'s BFGS).

    Parameters
    ----------
    formula : str
        ``"class ~ x1 + C(g)"``: the response is one column with two or more classes
        (``C(class)`` or ``factor(class)`` also accepted); the right-hand side as in
        :func:`fmstats.maxent`.
    data : DataFrame
        The data.
    weights : str or array-like, optional
        Prior (case) weights: a column of ``data`` or one value per row; non-negative.
    penalty : float, default 0
        Ridge penalty: maximise the log-likelihood minus ``penalty / 2`` times the sum of
        the squared non-intercept coefficients (finite estimates under separation; the
        standard errors are then the inverse penalised Hessian's).
    reference : object, optional
        The reference class (default the first level: categorical order, else sorted).
    default_class : object, optional
        The "uninteresting" class of the multiclass micro-F that ``confusion()`` and
        ``measure()`` report (seed 001; default the most frequent class, weighted, as
        :func:`fmstats.costsens` chooses it).
    measure, beta, alpha : FMeasure or float, optional
        The F-measure of ``measure()`` (default F1).
    missing : {"drop", "raise"}, default "drop"
        Rows with missing values are dropped (with a warning) or raise.
    collinear : {"drop", "raise"}, default "drop"
        Design columns that are linear combinations of the columns before them are dropped
        (NA coefficients, with a :class:`~fmstats.exceptions.CollinearityWarning`, as R
        does) or raise a :class:`~fmstats.exceptions.DesignError`; not checked with a
        ``penalty`` (which identifies every slope).
    engine : str, optional
        The formula engine, ``"formulaic"`` (default) or ``"patsy"``.
    tol : float, default 1e-10
        Newton convergence tolerance on the relative coefficient step.
    max_iter : int, default 100
        Newton iteration cap.

    Returns
    -------
    MultinomResults

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> fit = fm.multinom("pclass ~ age + sex", t)
    >>> fit.levels
    (1, 2, 3)
    >>> print(fit.coefficients().round(3).to_string())
       Intercept    age  sex[T.male]
    2      1.418 -0.052        0.493
    3      2.602 -0.084        1.012
    """
    data = check_frame(data, "data")
    if not isinstance(formula, str) or "~" not in formula:
        raise InvalidArgumentError(f"`formula` must be a string 'class ~ terms'; got "
                                   f"{describe(formula)}.")
    check_choice("missing", missing, ("drop", "raise"))
    check_choice("collinear", collinear, ("drop", "raise"))
    check_scalar("tol", tol, low=0, low_open=True)
    check_scalar("penalty", penalty, low=0)
    check_scalar("max_iter", max_iter, low=1, integer=True)
    lhs, rhs = split_formula(formula)
    col = _response_column(lhs, data)
    levels = response_classes(data[col], reference)
    ref = levels[0]
    frame = model_frame(f"I({col} == {ref!r}) ~ {rhs}", data, missing=missing, engine=engine)
    refuse_offsets(frame, "multinom")
    values = data[col].iloc[frame.rows]
    codes = pd.Categorical(values.tolist(), categories=list(levels)).codes.astype(np.int64)
    w = prior_weights(weights, data, frame.rows)
    K = len(levels)
    present = np.bincount(codes, weights=w, minlength=K) > 0
    if not present.all():
        gone = [levels[k] for k in np.flatnonzero(~present)]
        raise ResponseError(
            f"the response class(es) {describe(gone)} have no rows with positive weight among "
            f"the {len(codes)} rows used; every class needs rows to be estimated (drop the "
            "class from the data, or merge it with another).")
    X = frame.X
    # a ridge identifies every slope, so only an unpenalised fit drops collinear columns
    aliased = _aliased(X) if penalty == 0 else np.zeros(X.shape[1], dtype=bool)
    if aliased.any():
        names = [n for n, a in zip(frame.column_names, aliased) if a]
        text = (f"the design of {formula!r} is rank deficient: the column(s) "
                f"{describe(names)} are linear combinations of the others")
        if collinear == "raise":
            raise DesignError(f"{text}; remove the terms (or collinear='drop').")
        warn(f"multinom: {text}; their coefficients are NA (dropped), as R reports them.",
             CollinearityWarning)
    intercept = np.array([n in ("Intercept", "(Intercept)") for n in frame.column_names])
    fit = fit_multinom(X[:, ~aliased], codes, K, w, tol=tol, max_iter=max_iter,
                       penalty=float(penalty), penalised=~intercept[~aliased])
    if aliased.any():
        fit = expand_aliased(fit, aliased)
    if not fit.converged:
        warn(f"multinom: Newton's method did not converge in {max_iter} iterations; the "
             "likelihood may have no finite maximum (separation: a class absent from a factor "
             "level or a region of the design), so coefficients and standard errors are not "
             "estimates. Merge sparse levels or remove the separating terms.",
             ConvergenceWarning)
    if default_class is None:
        default_class = levels[int(np.argmax(np.bincount(codes, weights=w, minlength=K)))]
    elif default_class not in levels:
        raise InvalidArgumentError(f"`default_class` must be one of the classes "
                                   f"{describe(list(levels))}; got {describe(default_class)}.")
    from ..measures import as_fmeasure

    settings = Settings(_call.resolved(), formula=formula, response=col, levels=levels,
                        default_class=default_class, measure=as_fmeasure(measure, beta, alpha),
                        weights=weights_label(weights))
    return MultinomResults(settings=settings, call=_call, frame=frame, codes=codes,
                           prior_weights=w, fit=fit)


multinom.fold_response = class_fold_response   # cv_tune stratifies the folds by class
