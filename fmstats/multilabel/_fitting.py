"""Fitting binary relevance and probabilistic classifier chains: one ridge-regularised logistic
model per label, its penalty chosen by cross-validation (seed 000)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .._utils.call import ModelCall, Settings, describe_value, records_call
from .._utils.validation import check_random_state, check_scalar, warn
from ..exceptions import (
    ConvergenceWarning,
    SeparationWarning,
)
from .._utils.folds import check_folds
from ..formula import check_frame
from ..glm import irls_logit

from ._checks import (DEFAULT_PENALTIES, check_cv, check_penalties, feature_matrix,
                      label_matrix, resolve_columns)
from ._results import BRResults, PCCResults

__all__ = ["br", "pcc"]


# ----------------------------------------------------------------------------------------
# the numerical core: one regularised logistic model, penalty chosen by CV
# ----------------------------------------------------------------------------------------
def _stratified_folds(y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Fold ids 0..k-1, the positives and the negatives each spread evenly over the folds.

    Kept apart from ``stratified_folds`` (which the tuners use) on
    purpose: it draws the rows of each class with its own permutation, and the seed-000
    reproduction and vignette 05's account of the macro-F gap were measured with these draws
    (the other scheme gives other penalties for the rare labels; tests/reference/
    seed000_spread.out measures the spread between such draws).
    """
    fold = np.empty(len(y), dtype=np.int64)
    start = 0
    for cls in (0.0, 1.0):
        idx = rng.permutation(np.flatnonzero(y == cls))
        fold[idx] = (np.arange(len(idx)) + start) % k
        start += len(idx)
    return fold


def _constant_fit(y: np.ndarray, q: int) -> np.ndarray:
    """A label that is constant in the training rows: intercept only, at the logit of the
    add-one-half estimate (n y_bar + 1/2) / (n + 1), which stays finite."""
    coef = np.zeros(q)
    p = (y.sum() + 0.5) / (len(y) + 1.0)
    coef[0] = np.log(p / (1 - p))
    return coef


def _ridge_fit(D: np.ndarray, y: np.ndarray, lam: float, start: np.ndarray | None):
    """Ridge logistic fit (intercept in column 0 unpenalised) -> (coef, converged, separated)."""
    if y.min() == y.max():
        return _constant_fit(y, D.shape[1]), True, False
    pen = np.full(D.shape[1], lam * len(y))
    pen[0] = 0.0
    fit = irls_logit(D, y, penalty=pen, start=start, warn=False)
    return fit.coef, fit.converged, fit.separated


def _log_loss(D: np.ndarray, y: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Summed log-loss of each column of coefficients B (q, L): one matmul for the grid."""
    eta = D @ B
    return (np.logaddexp(0.0, eta) - y[:, None] * eta).sum(axis=0)


def _fit_label(D: np.ndarray, y: np.ndarray, mode: str, lam_fixed: float | None,
               grid: np.ndarray | None, folds) -> tuple:
    """Fit one label's model on design D (intercept first).

    ``folds`` is a list of (train, test) index pairs (CV) or None.  Returns
    (coef, lambda, cv_loss (L,) or None, converged, separated).
    """
    if mode == "fixed":
        coef, conv, sep = _ridge_fit(D, y, lam_fixed, None)
        return coef, lam_fixed, None, conv, sep
    L = len(grid)
    loss = np.zeros(L)
    for train, test in folds:
        Dt, yt = np.ascontiguousarray(D[train]), y[train]
        B = np.empty((D.shape[1], L))
        start = None
        for g, lam in enumerate(grid):                  # largest penalty first: warm starts
            B[:, g], _, _ = _ridge_fit(Dt, yt, lam, start)
            start = B[:, g] if yt.min() != yt.max() else None
        loss += _log_loss(D[test], y[test], B)
    loss /= len(y)
    # ties (to 1e-12) go to the larger penalty, the simpler model
    best = int(np.argmax(loss <= loss.min() + 1e-12))
    coef, conv, sep = _ridge_fit(D, y, float(grid[best]), None)
    return coef, float(grid[best]), loss, conv, sep


def _make_folds(cv, y: np.ndarray, D: np.ndarray, rng: np.random.Generator):
    if isinstance(cv, int):
        fold = _stratified_folds(y, cv, rng)
        return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(cv)]
    return check_folds(list(cv.split(D, y)), len(y))    # a splitter's folds, checked


def _standardise(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    center = A.mean(axis=0) if A.shape[0] else np.zeros(A.shape[1])
    scale = A.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)            # constant columns stay (all zero)
    return center, scale


def _fit(kind: str, call: ModelCall, data: Any, labels: Any, features: Any, penalty: Any,
         penalties: Any, cv: Any, random_state: Any, n_jobs: Any):
    # R-style call order: br(formula, data); recorded in the function's own order
    if isinstance(data, str) and isinstance(labels, pd.DataFrame):
        data, labels = labels, data
        args = {k: v for k, v in call.arguments.items() if k != "labels"}
        call = ModelCall(function=call.function, arguments={"labels": labels, **args},
                         data=describe_value(data), data_arg=call.data_arg)
    data = check_frame(data, "data")
    labels, features = resolve_columns(data, labels, features)
    X = feature_matrix(data, features, "data")
    Y = label_matrix(data, labels, "data")
    n, p = X.shape
    m = Y.shape[1]
    mode, fixed, grid = check_penalties(penalty, penalties, m)
    cv = check_cv(cv, n) if mode == "cv" else cv
    rng = check_random_state(random_state)
    if n_jobs is not None:
        check_scalar("n_jobs", n_jobs, integer=True)

    center, scale = _standardise(X)
    parts = [np.ones((n, 1)), (X - center) / scale]
    if kind == "pcc":
        lcenter, lscale = _standardise(Y)
        parts.append((Y - lcenter) / lscale)
    else:
        lcenter = lscale = None
    D = np.ascontiguousarray(np.hstack(parts))

    tasks = []
    for j in range(m):
        q = 1 + p + (j if kind == "pcc" else 0)
        Dj = D[:, :q] if q < D.shape[1] else D
        folds = _make_folds(cv, Y[:, j], Dj, rng) if mode == "cv" else None
        tasks.append((Dj, Y[:, j], mode, None if fixed is None else float(fixed[j]), grid,
                      folds))
    with threadpool_limits(limits=1, user_api="blas"):
        if n_jobs in (None, 1) or m == 1:
            out = [_fit_label(*t) for t in tasks]
        else:
            from joblib import Parallel, delayed
            out = Parallel(n_jobs=n_jobs)(delayed(_fit_label)(*t) for t in tasks)

    width = 1 + p + (m if kind == "pcc" else 0)
    coef = np.zeros((width, m))
    for j, (c, *_rest) in enumerate(out):
        coef[: len(c), j] = c
    lam = np.array([o[1] for o in out])
    cv_loss = None if mode == "fixed" else np.vstack([o[2] for o in out])
    converged = np.array([o[3] for o in out], dtype=bool)
    # with a positive ridge penalty the coefficients stay finite: fitted probabilities near
    # 0 or 1 then only mean a very predictive input, so separation is reported for lambda = 0
    separated = np.array([o[4] for o in out], dtype=bool) & (lam == 0)
    bad = [labels[j] for j in np.flatnonzero(~converged & ~separated)]
    if bad:
        warn(f"the logistic model(s) of label(s) {', '.join(map(repr, bad))} did not converge "
             "(without a penalty this usually means (quasi-)separated data); use a positive or "
             "larger ridge penalty (`penalty=`, or `penalty='cv'` with a `penalties` grid).",
             ConvergenceWarning)
    sep = [labels[j] for j in np.flatnonzero(separated)]
    if sep:
        warn(f"fitted probabilities numerically 0 or 1 for label(s) {', '.join(map(repr, sep))}:"
             " the data are (quasi-)separated. Use a positive ridge penalty (`penalty=`).",
             SeparationWarning)
    settings = Settings(call.resolved(), penalties=None if grid is None else tuple(grid[::-1]),
                        cv=cv if mode == "cv" else None)
    cls = PCCResults if kind == "pcc" else BRResults
    return cls(labels=labels, features=features, coef=coef, center=center, scale=scale,
               label_center=lcenter, label_scale=lscale, penalty=lam,
               grid=None if grid is None else grid[::-1].copy(),
               cv_loss=None if cv_loss is None else cv_loss[:, ::-1].copy(),
               converged=converged, separated=separated, n_obs=n, settings=settings,
               call=call)


@records_call(rows=())
def br(data, labels=None, features=None, *, penalty="cv", penalties=DEFAULT_PENALTIES, cv=3,
       random_state=None, n_jobs=None, _call=None) -> "BRResults":
    """Binary relevance: one ridge-regularised logistic model per label.

    Parameters
    ----------
    data : pandas.DataFrame
        The data, with 0/1 label columns and numeric feature columns
        (``br(formula, data)`` in R's order works too).
    labels : list of str or str, optional
        The label column names, or a formula ``"y1 + y2 + y3 ~ x1 + x2"`` (``"... ~ ."``
        uses every other column as a feature).  Names are separated by '+'; back-quote
        unusual names.
    features : list of str, optional
        The feature column names (default: every non-label column).  Must be numeric or
        boolean without missing values.  They are standardised with the training means and
        standard deviations, which are stored and re-applied to new data.
    penalty : "cv", float or sequence of float, default "cv"
        ``"cv"`` (default) to choose each label's ridge penalty by ``cv``-fold
        cross-validation on the log-loss over ``penalties``; or a number >= 0 used for every
        label; or one number per label.  The penalty is per row (see the module docstring):
        lambda / 2 * ||b||^2 is added to the *mean* log-loss; the intercept is not penalised.
    penalties : sequence of float, default DEFAULT_PENALTIES
        The grid tried by cross-validation (positive numbers); default
        10^-4, 10^-3.5, ..., 10^1.
    cv : int or splitter, default 3
        Number of folds (>= 2; folds are stratified by the label) or a splitter with a
        scikit-learn style ``split(X, y)`` method.
    random_state : int or numpy.random.Generator, optional
        Seeds the folds.
    n_jobs : int, optional
        Fit the labels in parallel with joblib (default: sequentially).

    Returns
    -------
    BRResults
        The fitted per-label models.

    Notes
    -----
    A label that is constant in the training data gets an intercept-only model at the
    logit of (sum y + 1/2) / (n + 1), so its probability stays inside (0, 1).

    Examples
    --------
    >>> import fmstats as fm
    >>> yeast = fm.datasets.load_yeast()
    >>> train, test = yeast.iloc[917:1217], yeast.iloc[:200]
    >>> from fmstats.multilabel import br
    >>> model = br("Class1 + Class2 + Class3 ~ Att1 + Att2 + Att3", train, penalty=1.0)
    >>> model  # doctest: +ELLIPSIS
    <BRResults: binary relevance, 3 labels, 3 features, ...>
    >>> print(model.predict_marginals(test.head(3)).round(3))
       Class1  Class2  Class3
    0   0.297   0.423   0.453
    1   0.310   0.441   0.439
    2   0.273   0.306   0.343
    """
    return _fit("br", _call, data, labels, features, penalty, penalties, cv, random_state,
                n_jobs)


@records_call(rows=())
def pcc(data, labels=None, features=None, *, penalty="cv", penalties=DEFAULT_PENALTIES, cv=3,
        random_state=None, n_jobs=None, _call=None) -> "PCCResults":
    """Probabilistic classifier chain (seed 000, eq. 9) of ridge-regularised logistic models.

    Label j (in the order of ``labels``) is modelled by a logistic regression on the
    standardised features and on labels 1, ..., j-1 (standardised with their training
    means and standard deviations); the true labels are used when training, so the m models
    are fitted independently of one another.  The arguments are those of :func:`br`.

    Parameters
    ----------
    data : pandas.DataFrame
        The data, with 0/1 label columns and numeric feature columns, as in :func:`br`
        (``pcc(formula, data)`` in R's order works too).
    labels : list of str or str, optional
        The label column names in the order of the chain, or a formula
        ``"y1 + y2 + y3 ~ x1 + x2"``, as in :func:`br`.
    features : list of str, optional
        The feature column names (default: every non-label column), as in :func:`br`.
    penalty : "cv", float or sequence of float, default "cv"
        The ridge penalty per row: chosen by cross-validation, one for every label or one
        per label, as in :func:`br`.
    penalties : sequence of float, default DEFAULT_PENALTIES
        The grid tried by cross-validation, as in :func:`br`.
    cv : int or splitter, default 3
        Number of folds or a splitter, as in :func:`br`.
    random_state : int or numpy.random.Generator, optional
        Seeds the folds.
    n_jobs : int, optional
        Fit the labels in parallel with joblib (default: sequentially).

    Returns
    -------
    PCCResults
        The fitted chain.

    Examples
    --------
    >>> import fmstats as fm
    >>> yeast = fm.datasets.load_yeast()
    >>> train, test = yeast.iloc[917:1217], yeast.iloc[:200]
    >>> from fmstats.multilabel import pcc
    >>> model = pcc("Class1 + Class2 + Class3 ~ Att1 + Att2 + Att3", train, penalty=1.0)
    >>> model  # doctest: +ELLIPSIS
    <PCCResults: probabilistic classifier chain, 3 labels, 3 features, ...>
    >>> print(model.predict(test.head(3), inference="gfm", random_state=0))
       Class1  Class2  Class3
    0       0       1       1
    1       1       1       1
    2       1       1       1
    """
    return _fit("pcc", _call, data, labels, features, penalty, penalties, cv, random_state,
                n_jobs)


