"""Multi-label models whose predictions can be tailored to the instance-wise F-measure.

Seed 000 (Dembczynski, Waegeman, Cheng and Huellermeier, NIPS 2011), section 4:

* :func:`br` -- **binary relevance**: one ridge-regularised logistic model per label on the
  features.  It estimates the marginals p_i(x) = p(y_i = 1 | x) and, read as a joint model,
  says that the labels are independent given x.
* :func:`pcc` -- **probabilistic classifier chain**: by the product rule (eq. 9)
  p(y | x) = prod_j p(y_j | x, y_1, ..., y_{j-1}); label j's logistic model uses the features
  and the labels before it in the chain (the *true* labels when training).  Ancestral sampling
  along the chain draws label vectors from the estimated joint distribution; from a sample the
  GFM parameters (P, p0) and the marginals are estimated (:func:`~.inference.estimate_P`).

Both models standardise the features (the training means and standard deviations are stored
and re-applied to new data) and choose the ridge penalty of every label by k-fold
cross-validation on the log-loss over a grid, as the paper does.  The penalty is per row:
label j's coefficients minimise

    mean_i logloss(y_ij, x_i b) + lambda_j / 2 * ||b without intercept||^2,

so a grid does not depend on the number of rows (``irls_logit`` gets ``lambda * n``).

Inference (``predict(newdata, inference=...)``) turns the estimated distribution into 0/1
predictions: ``"hamming"`` (marginal >= 1/2, optimal for the Hamming loss), ``"gfm"`` (the
exact F-maximiser, Algorithm 1), ``"gfm-t"`` (the best threshold on the marginals),
``"meuf"`` / ``"meuf-approx"`` (Jansche's maximiser under label independence, exact and
approximate) and ``"lewis"`` (Lewis's rule).  :func:`evaluate` reproduces the protocol of
Table 1 of the paper.
"""
from __future__ import annotations

import numbers
import re
from functools import cached_property
from typing import Any, Sequence

import numpy as np
import pandas as pd
from scipy.special import expit
from threadpoolctl import threadpool_limits

from ..results import Persistable
from .._utils.call import ModelCall, Settings, describe_value, records_call
from .._utils.validation import check_choice, check_random_state, check_scalar, describe, warn
from ..exceptions import (
    ConvergenceWarning,
    DataError,
    FormulaError,
    InvalidArgumentError,
    MissingDataError,
    ResponseError,
    SeparationWarning,
)
from ..formula import check_frame, split_formula
from ..glm.irls import irls_logit
from ._inference import estimate_P, gfm, gfm_threshold, hamming

__all__ = ["br", "pcc", "BRResults", "PCCResults", "INFERENCES",
           "DEFAULT_PENALTIES"]

#: The inference methods understood by ``predict``, in the order of Table 1 of the paper.
INFERENCES = ("hamming", "gfm", "gfm-t", "meuf-approx", "meuf", "lewis")

#: Default grid of per-row ridge penalties tried by cross-validation (half decades).
DEFAULT_PENALTIES = tuple(float(v) for v in 10.0 ** np.arange(-4.0, 1.01, 0.5))

#: Largest number of (instance, sample, label) cells sampled at once; larger requests are
#: split into blocks of instances so that memory stays bounded.
_SAMPLE_BLOCK = 1 << 23

#: Largest m accepted by :meth:`PCCResults.exact_P` (it enumerates all 2^m label vectors).
EXACT_MAX_LABELS = 16

_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.]*$")


# ----------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------
def _parse_side(side: str, formula: str) -> list[str]:
    """``a + b + `c d``` -> ["a", "b", "c d"]; anything else is a FormulaError."""
    names = []
    for term in side.split("+"):
        term = term.strip()
        if len(term) >= 2 and term[0] == term[-1] == "`":
            term = term[1:-1]
        elif not _NAME.match(term):
            raise FormulaError(
                f"`formula` {formula!r}: multi-label formulas take '+'-separated column names "
                f"(back-quote unusual names, '.' on the right for all other columns); cannot "
                f"use the term {term!r}.")
        names.append(term)
    return names


def _resolve_columns(data: pd.DataFrame, labels: Any, features: Any
                     ) -> tuple[list[str], list[str]]:
    """Label and feature column names from a formula or from lists."""
    if isinstance(labels, str) and "~" in labels:
        formula = labels
        if features is not None:
            raise InvalidArgumentError(
                "give the features either on the right of the formula or as `features`, not "
                f"both; got formula {formula!r} and features={describe(features)}.")
        lhs, rhs = split_formula(formula)
        labels = _parse_side(lhs, formula)
        features = None if rhs.strip() == "." else _parse_side(rhs, formula)
        unknown = [c for c in labels + (features or []) if c not in data.columns]
        if unknown:
            raise FormulaError(
                f"`formula` {formula!r} uses column(s) {', '.join(map(repr, unknown))} not "
                f"found in `data`.")
    else:
        if isinstance(labels, str):
            labels = [labels]
        if labels is None:
            raise InvalidArgumentError(
                "`labels` is required: a list of 0/1 label columns or a formula such as "
                "'y1 + y2 ~ .'.")
        labels = list(labels)
        if isinstance(features, str):
            features = [features]
        features = None if features is None else list(features)
        for arg, cols in (("labels", labels), ("features", features or [])):
            unknown = [c for c in cols if c not in data.columns]
            if unknown:
                raise InvalidArgumentError(
                    f"`{arg}` names column(s) {', '.join(map(repr, unknown))} not found in "
                    f"`data` (columns: {', '.join(map(str, list(data.columns)[:12]))}"
                    f"{', ...' if data.shape[1] > 12 else ''}).")
    if not labels:
        raise InvalidArgumentError("`labels` must name at least one label column; got none.")
    dup = sorted({c for c in labels if labels.count(c) > 1})
    if dup:
        raise InvalidArgumentError(f"`labels` lists column(s) {dup} more than once.")
    if features is None:
        features = [c for c in data.columns if c not in labels]
    both = [c for c in features if c in labels]
    if both:
        raise InvalidArgumentError(
            f"column(s) {', '.join(map(repr, both))} cannot be both a label and a feature.")
    if len(set(features)) != len(features):
        raise InvalidArgumentError("`features` lists a column more than once.")
    return labels, features


def _feature_matrix(data: pd.DataFrame, features: Sequence[str], name: str) -> np.ndarray:
    missing = [c for c in features if c not in data.columns]
    if missing:
        raise DataError(
            f"`{name}` lacks the feature column(s) {', '.join(map(repr, missing[:10]))}"
            f"{' ...' if len(missing) > 10 else ''} used by the model.")
    for c in features:
        dt = data[c].dtype
        if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)):
            raise DataError(
                f"feature column {c!r} of `{name}` must be numeric or boolean; got dtype "
                f"{dt}. Encode factors as 0/1 columns first.")
    X = data[list(features)].to_numpy(dtype=float, na_value=np.nan) if features else \
        np.empty((len(data), 0))
    bad = ~np.isfinite(X)
    if bad.any():
        cols = [features[j] for j in np.flatnonzero(bad.any(axis=0))]
        raise MissingDataError(
            f"`{name}` has {int(bad.sum())} missing or non-finite feature value(s), in "
            f"column(s) {', '.join(map(repr, cols[:10]))}; drop or impute them first.")
    return np.ascontiguousarray(X)


def label_matrix(data: pd.DataFrame, labels: Sequence[str], name: str) -> np.ndarray:
    missing = [c for c in labels if c not in data.columns]
    if missing:
        raise DataError(
            f"`{name}` lacks the label column(s) {', '.join(map(repr, missing))}.")
    out = np.empty((len(data), len(labels)))
    for j, c in enumerate(labels):
        col = data[c]
        try:
            v = col.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise ResponseError(
                f"label column {c!r} of `{name}` must hold 0/1 values; got dtype "
                f"{col.dtype} (e.g. {col.iloc[0]!r}).") from None
        ok = (v == 0) | (v == 1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ResponseError(
                f"label column {c!r} of `{name}` must hold only 0 and 1; row {i} "
                f"(index {data.index[i]!r}) holds {col.iloc[i]!r}.")
        out[:, j] = v
    return out


def _check_penalties(penalty: Any, penalties: Any, m: int):
    """-> (mode, fixed (m,) or None, grid (L,) or None)."""
    grid = None
    if isinstance(penalty, str):
        check_choice("penalty", penalty, ("cv",))
        try:
            grid = np.asarray(list(penalties), dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"`penalties` must be a sequence of positive numbers; got "
                f"{describe(penalties)}.") from None
        if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) \
                or np.any(grid <= 0):
            raise InvalidArgumentError(
                f"`penalties` must be a non-empty sequence of positive finite numbers; got "
                f"{describe(penalties)}.")
        return "cv", None, np.unique(grid)[::-1]             # largest first: warm starts
    if isinstance(penalty, numbers.Real) and not isinstance(penalty, bool):
        check_scalar("penalty", penalty, low=0)
        return "fixed", np.full(m, float(penalty)), None
    try:
        fixed = np.asarray(list(penalty), dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`penalty` must be 'cv', a non-negative number or one number per label; got "
            f"{describe(penalty)}.") from None
    if fixed.shape != (m,) or not np.all(np.isfinite(fixed)) or np.any(fixed < 0):
        raise InvalidArgumentError(
            f"`penalty` as a sequence must hold {m} non-negative numbers (one per label); "
            f"got {describe(penalty)}.")
    return "fixed", fixed, None


def _check_cv(cv: Any, n: int):
    if hasattr(cv, "split"):
        return cv
    check_scalar("cv", cv, low=2, integer=True)
    if cv > n:
        raise InvalidArgumentError(f"`cv` ({cv}) cannot exceed the number of rows ({n}).")
    return int(cv)


def check_n_samples(n_samples: Any) -> int:
    check_scalar("n_samples", n_samples, low=1, integer=True)
    return int(n_samples)


def check_inference(inference: Any) -> str:
    if not isinstance(inference, str) or inference not in INFERENCES:
        raise InvalidArgumentError(
            f"`inference` must be one of {', '.join(map(repr, INFERENCES))}; got "
            f"{describe(inference)}.")
    return inference


# ----------------------------------------------------------------------------------------
# the numerical core: one regularised logistic model, penalty chosen by CV
# ----------------------------------------------------------------------------------------
def _stratified_folds(y: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Fold ids 0..k-1, the positives and the negatives each spread evenly over the folds.

    Kept apart from :func:`fmstats._utils.folds.stratified_folds` (which the tuners use) on
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
    return [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(D, y)]


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
    labels, features = _resolve_columns(data, labels, features)
    X = _feature_matrix(data, features, "data")
    Y = label_matrix(data, labels, "data")
    n, p = X.shape
    m = Y.shape[1]
    mode, fixed, grid = _check_penalties(penalty, penalties, m)
    cv = _check_cv(cv, n) if mode == "cv" else cv
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


# ----------------------------------------------------------------------------------------
# inference shared by the two models
# ----------------------------------------------------------------------------------------
def _independent():
    from . import _independent as module

    return module


def _infer_marginals(marg: np.ndarray, inference: str, beta: float) -> np.ndarray:
    """The marginal-based rules."""
    if inference == "hamming":
        return hamming(marg)
    ind = _independent()
    if inference == "meuf":
        return ind.meuf(marg, exact=True, beta=beta)[0]
    if inference == "meuf-approx":
        return ind.meuf(marg, exact=False, beta=beta)[0]
    if inference == "lewis":
        return ind.lewis(marg, beta=beta)
    raise AssertionError(inference)  # pragma: no cover


def _infer_joint(P: np.ndarray, p0: np.ndarray, inference: str, beta: float) -> np.ndarray:
    if inference == "gfm":
        return gfm(P, p0, beta=beta)[0]
    return gfm_threshold(P, p0, beta=beta)[0]


def _frame(H: np.ndarray, labels, index) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(H, dtype=np.int64), index=index, columns=list(labels))


class MultilabelResults(Persistable):
    """What BR and PCC share: the fitted per-label logistic models and their settings.

    Attributes
    ----------
    labels, features : the label and feature column names (the chain order for PCC).
    coef : DataFrame (terms x labels) of the coefficients on the *standardised* scale;
        terms are ``(Intercept)``, the features and, for PCC, the labels (zero for labels
        that are not parents in the chain).
    center, scale : training means and standard deviations of the features.
    penalty : Series, the ridge penalty (per row) used for each label.
    cv_loss : DataFrame (labels x penalty grid) of cross-validated mean log-loss, or None.
    converged, separated : Series of flags of the final fits.
    n_obs : number of training rows.
    """

    model = ""

    def __init__(self, *, labels, features, coef, center, scale, label_center, label_scale,
                 penalty, grid, cv_loss, converged, separated, n_obs, settings, call):
        self.labels = list(labels)
        self.features = list(features)
        self._coef = np.asarray(coef, dtype=float)
        self.center = np.asarray(center, dtype=float)
        self.scale = np.asarray(scale, dtype=float)
        self.label_center = None if label_center is None else np.asarray(label_center, float)
        self.label_scale = None if label_scale is None else np.asarray(label_scale, float)
        self.penalty = pd.Series(penalty, index=self.labels, name="penalty")
        self.grid = grid
        self.cv_loss = None if cv_loss is None else pd.DataFrame(
            cv_loss, index=self.labels, columns=pd.Index(grid, name="penalty"))
        self.converged = pd.Series(converged, index=self.labels, name="converged")
        self.separated = pd.Series(separated, index=self.labels, name="separated")
        self.n_obs = int(n_obs)
        self.settings = settings
        self.call = call

    # -- descriptive ------------------------------------------------------------------
    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def _terms(self) -> list[str]:
        return ["(Intercept)"] + self.features

    @cached_property
    def coef(self) -> pd.DataFrame:
        return pd.DataFrame(self._coef, index=self._terms(), columns=self.labels)

    def tidy(self) -> pd.DataFrame:
        """Long table: label, term, estimate (standardised scale), penalty."""
        c = self.coef
        out = c.stack().rename("estimate").reset_index()
        out.columns = ["term", "label", "estimate"]
        out["penalty"] = out["label"].map(self.penalty)
        return out[["label", "term", "estimate", "penalty"]]

    def __repr__(self) -> str:
        how = ("fixed" if self.cv_loss is None
               else f"chosen by {self.settings['cv']}-fold CV on log-loss" if isinstance(
                   self.settings["cv"], int) else "chosen by CV on log-loss")
        lam = self.penalty
        return (f"<{type(self).__name__}: {self.model}, {self.n_labels} labels, "
                f"{len(self.features)} features, {self.n_obs} rows; ridge penalty {how} "
                f"(range {lam.min():.3g} .. {lam.max():.3g})>")

    def refit(self, data) -> "MultilabelResults":
        """The same model with the same settings on other data: the recorded call again."""
        return self.call.refit(data)

    # -- prediction helpers ----------------------------------------------------------
    def _design(self, newdata) -> tuple[np.ndarray, pd.Index]:
        newdata = check_frame(newdata, "newdata")
        X = _feature_matrix(newdata, self.features, "newdata")
        return (X - self.center) / self.scale, newdata.index

    def _base_eta(self, Z: np.ndarray) -> np.ndarray:
        """The feature part of every label's linear predictor, (n, m)."""
        p = len(self.features)
        return self._coef[0] + Z @ self._coef[1: 1 + p]


class BRResults(MultilabelResults):
    """Binary relevance fit (see :func:`br` and :class:`MultilabelResults`).

    Under BR the labels are independent given x, so its joint distribution is known exactly
    from the marginals: ``predict`` uses the exact GFM parameters of the independent model
    (``independent_P``) instead of a Monte Carlo estimate unless ``n_samples`` is given.

    Built by :func:`br`, not directly.

    Parameters
    ----------
    labels, features : list of str
        The label and feature column names.
    coef : numpy.ndarray
        Coefficients (terms x labels) on the standardised scale.
    center, scale : numpy.ndarray
        Training means and standard deviations of the features.
    label_center, label_scale : numpy.ndarray or None
        Training means and standard deviations of the labels (None for BR, whose models
        do not use them).
    penalty : numpy.ndarray
        The ridge penalty (per row) used for each label.
    grid : numpy.ndarray or None
        The penalty grid of the cross-validation (None with a fixed penalty).
    cv_loss : numpy.ndarray or None
        Cross-validated mean log-loss (labels x penalty grid), or None.
    converged, separated : numpy.ndarray of bool
        Flags of the final fits, one per label.
    n_obs : int
        Number of training rows.
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, the penalty
        grid and the folds.
    call : ModelCall
        The recorded call (printed by the results, rerun by ``refit``).
    """

    model = "binary relevance"

    def predict_marginals(self, newdata) -> pd.DataFrame:
        """p(y_j = 1 | x) for every label: DataFrame (newdata index x labels).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.

        Returns
        -------
        pandas.DataFrame
            The marginals, newdata index x labels.
        """
        marg, index = self._marginals(newdata)
        return pd.DataFrame(marg, index=index, columns=self.labels)

    def _marginals(self, newdata) -> tuple[np.ndarray, pd.Index]:
        Z, index = self._design(newdata)
        return expit(self._base_eta(Z)), index

    def sample(self, newdata, n_samples: int = 200, random_state=None) -> np.ndarray:
        """Label vectors drawn from the model: independent Bernoulli draws, (n, S, m) int8.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).
        n_samples : int, default 200
            Label vectors S drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        numpy.ndarray
            The draws, shape (n, S, m), int8.
        """
        S = check_n_samples(n_samples)
        rng = check_random_state(random_state)
        marg, _ = self._marginals(newdata)
        return _bernoulli(marg, S, rng)

    def predict(self, newdata, inference: str = "gfm", n_samples=None, random_state=None,
                beta: float = 1.0) -> pd.DataFrame:
        """0/1 predictions (DataFrame, newdata index x labels) by the chosen inference.

        ``inference`` is one of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``,
        ``"meuf-approx"``, ``"lewis"``.  With ``n_samples=None`` (default) every method
        uses the exact distribution of the model: the marginals, and for GFM / GFM-T the
        matrix P and p0 of independent labels (``independent_P``), so that GFM, GFM-T and
        exact MEUF coincide up to ties.  With an integer ``n_samples`` P, p0 and the
        marginals are estimated from that many independent draws per instance instead.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        inference : str, default "gfm"
            One of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``, ``"meuf-approx"``,
            ``"lewis"``.
        n_samples : int, optional
            None (default) for the exact distribution, or the number of draws per
            instance to estimate it from.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws (with ``n_samples``).
        beta : float, default 1.0
            The beta of the F-measure maximised (>= 0).

        Returns
        -------
        pandas.DataFrame
            The 0/1 predictions, newdata index x labels.
        """
        inference = check_inference(inference)
        check_scalar("beta", beta, low=0)
        if n_samples is not None:
            n_samples = check_n_samples(n_samples)
        marg, index = self._marginals(newdata)
        H = br_infer(marg, inference, n_samples, random_state, beta)
        return _frame(H, self.labels, index)


def _bernoulli(marg: np.ndarray, S: int, rng: np.random.Generator) -> np.ndarray:
    n, m = marg.shape
    return (rng.random((n, S, m)) < marg[:, None, :]).astype(np.int8)


def br_infer(marg, inference, n_samples, random_state, beta):
    if n_samples is not None:
        samples = _bernoulli(marg, n_samples, check_random_state(random_state))
        return samples_infer(samples, inference, beta)
    if inference in ("gfm", "gfm-t"):
        P, p0 = _independent().independent_P(marg)
        return _infer_joint(P, p0, inference, beta)
    return _infer_marginals(marg, inference, beta)


def samples_infer(samples, inference, beta):
    if inference in ("gfm", "gfm-t"):
        P, p0 = estimate_P(samples)
        return _infer_joint(P, p0, inference, beta)
    return _infer_marginals(samples.mean(axis=1), inference, beta)


class PCCResults(MultilabelResults):
    """Probabilistic classifier chain fit (see :func:`pcc` and :class:`MultilabelResults`).

    The chain's joint distribution is reached through ancestral sampling (:meth:`sample`):
    ``predict`` estimates P, p0 (for GFM, GFM-T) and the marginals (for the other rules)
    from one sample of ``n_samples`` label vectors per instance, as in the paper.
    :meth:`exact_P` enumerates all 2^m label vectors instead (small m only).

    Built by :func:`pcc`, not directly.

    Parameters
    ----------
    labels, features : list of str
        The label and feature column names (the labels in the chain order).
    coef : numpy.ndarray
        Coefficients (terms x labels) on the standardised scale.
    center, scale : numpy.ndarray
        Training means and standard deviations of the features.
    label_center, label_scale : numpy.ndarray or None
        Training means and standard deviations of the labels, inputs of the later models
        of the chain.
    penalty : numpy.ndarray
        The ridge penalty (per row) used for each label.
    grid : numpy.ndarray or None
        The penalty grid of the cross-validation (None with a fixed penalty).
    cv_loss : numpy.ndarray or None
        Cross-validated mean log-loss (labels x penalty grid), or None.
    converged, separated : numpy.ndarray of bool
        Flags of the final fits, one per label.
    n_obs : int
        Number of training rows.
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, the penalty
        grid and the folds.
    call : ModelCall
        The recorded call (printed by the results, rerun by ``refit``).
    """

    model = "probabilistic classifier chain"

    def _terms(self) -> list[str]:
        return ["(Intercept)"] + self.features + self.labels

    @cached_property
    def _chain(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(intercepts (m,), feature coefs (p, m), A (m, m)) on the raw 0/1 label scale:
        eta_j = b0_j + z' B[:, j] + sum_{k<j} A[k, j] y_k with A strictly upper triangular."""
        p = len(self.features)
        A = self._coef[1 + p:] / self.label_scale[:, None]
        A = np.triu(A, 1)
        b0 = self._coef[0] - self.label_center @ A
        return b0, self._coef[1: 1 + p], np.ascontiguousarray(A)

    def _base(self, newdata) -> tuple[np.ndarray, pd.Index]:
        Z, index = self._design(newdata)
        b0, B, _ = self._chain
        return b0 + Z @ B, index

    def sample(self, newdata, n_samples: int = 200, random_state=None) -> np.ndarray:
        """Ancestral sampling along the chain: an (n, S, m) int8 array of label vectors.

        For label j the linear predictor of all n x S partial vectors is one BLAS product
        with the labels drawn so far; the loop runs over the m labels only (and over blocks
        of instances when n x S x m is very large).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).
        n_samples : int, default 200
            Label vectors S drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        numpy.ndarray
            The draws, shape (n, S, m), int8.
        """
        return self._sample(newdata, n_samples, random_state)[0]

    def _sample(self, newdata, n_samples, random_state) -> tuple[np.ndarray, pd.Index]:
        S = check_n_samples(n_samples)
        rng = check_random_state(random_state)
        base, index = self._base(newdata)
        return self._sample_base(base, S, rng), index

    def _sample_base(self, base: np.ndarray, S: int, rng: np.random.Generator) -> np.ndarray:
        n, m = base.shape
        A = self._chain[2]
        out = np.empty((n, S, m), dtype=np.int8)
        block = max(1, _SAMPLE_BLOCK // (S * m))
        with threadpool_limits(limits=1, user_api="blas"):
            for lo in range(0, n, block):
                hi = min(n, lo + block)
                N = (hi - lo) * S
                Yf = np.empty((m, N))                   # label-major: Yf[:j] is contiguous
                for j in range(m):
                    eta = np.repeat(base[lo:hi, j], S)  # instance-major, like `out`
                    if j:
                        eta += A[:j, j] @ Yf[:j]
                    Yf[j] = rng.random(N) < expit(eta)
                out[lo:hi] = Yf.T.reshape(hi - lo, S, m)
        return out

    def predict_marginals(self, newdata, n_samples: int = 200, random_state=None
                          ) -> pd.DataFrame:
        """Marginals p(y_j = 1 | x) estimated from ``n_samples`` chain samples per instance.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        n_samples : int, default 200
            Chain samples drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        pandas.DataFrame
            The estimated marginals, newdata index x labels.
        """
        Y, index = self._sample(newdata, n_samples, random_state)
        return pd.DataFrame(Y.mean(axis=1), index=index, columns=self.labels)

    def exact_P(self, newdata) -> tuple[np.ndarray, np.ndarray]:
        """The exact GFM parameters of the chain by enumerating all 2^m label vectors.

        Only for m <= ``EXACT_MAX_LABELS`` (cost n 2^m m).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).

        Returns
        -------
        P : numpy.ndarray
            Shape (n, m, m), P[:, i, s-1] = p(y_i = 1, s_y = s | x).
        p0 : numpy.ndarray
            Shape (n,), p(y = 0 | x).
        """
        m = self.n_labels
        if m > EXACT_MAX_LABELS:
            raise InvalidArgumentError(
                f"`exact_P` enumerates 2^m label vectors and allows m <= {EXACT_MAX_LABELS}; "
                f"this chain has m = {m}. Use `sample()` and `estimate_P()` instead.")
        base, _ = self._base(newdata)
        A = self._chain[2]
        V = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)
        onehot = np.zeros((2 ** m, m))                   # [s_y = s], s = 1..m
        s = V.sum(axis=1).astype(int)
        onehot[s > 0, s[s > 0] - 1] = 1.0
        VA = V @ A                                       # label part of every eta, (2^m, m)
        n = base.shape[0]
        P, p0 = np.empty((n, m, m)), np.empty(n)
        block = max(1, _SAMPLE_BLOCK // (2 ** m * m))
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            eta = base[lo:hi, None, :] + VA[None]        # (b, 2^m, m)
            # log p(y) = sum_j [y_j log sigma(eta_j) + (1 - y_j) log sigma(-eta_j)]
            prob = np.exp(-np.logaddexp(0.0, np.where(V[None] == 1, -eta, eta)).sum(axis=2))
            P[lo:hi] = np.swapaxes(prob[:, :, None] * V[None], 1, 2) @ onehot
            p0[lo:hi] = prob[:, 0]
        return P, p0

    def predict(self, newdata, inference: str = "gfm", n_samples: int = 200,
                random_state=None, beta: float = 1.0) -> pd.DataFrame:
        """0/1 predictions (DataFrame, newdata index x labels) by the chosen inference.

        One sample of ``n_samples`` label vectors per instance is drawn from the chain;
        ``"gfm"`` / ``"gfm-t"`` use ``estimate_P`` of it, ``"meuf"``, ``"meuf-approx"``,
        ``"lewis"`` and ``"hamming"`` use the marginals estimated from the same sample.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        inference : str, default "gfm"
            One of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``, ``"meuf-approx"``,
            ``"lewis"``.
        n_samples : int, default 200
            Label vectors drawn from the chain per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.
        beta : float, default 1.0
            The beta of the F-measure maximised (>= 0).

        Returns
        -------
        pandas.DataFrame
            The 0/1 predictions, newdata index x labels.
        """
        inference = check_inference(inference)
        check_scalar("beta", beta, low=0)
        Y, index = self._sample(newdata, n_samples, random_state)
        return _frame(samples_infer(Y, inference, beta), self.labels, index)


# ----------------------------------------------------------------------------------------
# Table 1 of the paper
# ----------------------------------------------------------------------------------------
