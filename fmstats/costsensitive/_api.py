"""``costsens()``: F-measure maximisation by reduction to cost-sensitive classification.

Input handling (formula, label matrix, class response); the split and the outer loops are
in :mod:`.fitting` and :mod:`.search`, the learners in :mod:`.learners`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._utils.boundary import public
from .._utils.call import ModelCall, Settings, records_call
from .._utils.validation import check_binary, check_choice, describe, warn
from ..exceptions import (DataError, FormulaError, InvalidArgumentError, MissingDataError,
                          MissingDataWarning, ResponseError)
from ..formula import expand_dot, formula_names, model_frame, refuse_offsets, split_formula
from ..measures import FMeasure, as_fmeasure
from ._fitting import VARIANTS, Fitting
from ._results import CostsensResults

__all__ = ["costsens", "costsens_arrays", "costsens_variants", "COSTSENS_MEASURES"]

#: Measures costsens maximises, with the response each needs.
COSTSENS_MEASURES = {"f": "binary", "micro_f": "multilabel", "macro_f": "multilabel",
                     "multiclass_f": "multiclass"}
_DEFAULT_MEASURE = {"binary": "f", "multilabel": "micro_f", "multiclass": "multiclass_f"}
_DUMMY = "_costsens_response_"
_INTERCEPT_NAMES = ("Intercept", "(Intercept)")


# =========================================================================== arguments

def _measure(measure, beta, alpha) -> tuple[str | None, FMeasure]:
    """(measure name or None for automatic, FMeasure) with beta > 0 checked."""
    name = None
    if isinstance(measure, str):
        if measure in ("instance_f", "samples_f"):
            raise InvalidArgumentError(
                f"`measure` {measure!r} is not a pseudo-linear function of the error profile "
                "(seed 001, Remark 1); costsens maximises 'f', 'micro_f', 'macro_f' or "
                "'multiclass_f'.")
        name = check_choice("measure", measure, tuple(COSTSENS_MEASURES))
        measure = None
    fm = as_fmeasure(measure, beta=beta, alpha=alpha)
    if not fm.beta > 0:
        raise InvalidArgumentError(
            f"`beta` must be > 0 for cost-sensitive F maximisation (beta = 0 is precision, "
            f"whose costs a(t) degenerate); got beta = {fm.beta!r}.")
    return name, fm


def _check_kind(name: str | None, kind: str, what: str) -> str:
    if name is None:
        return _DEFAULT_MEASURE[kind]
    need = COSTSENS_MEASURES[name]
    if need != kind:
        hint = {"binary": "a single 0/1 or two-level response",
                "multilabel": "several 0/1 label columns ('y1 + y2 ~ ...' or labels=[...])",
                "multiclass": "one class column with two or more classes"}[need]
        raise InvalidArgumentError(
            f"`measure` {name!r} is not defined for {what} ({kind} labels); it needs {hint}. "
            f"For {kind} labels use " + " or ".join(
                repr(k) for k, v in COSTSENS_MEASURES.items() if v == kind) + ".")
    return name


# =========================================================================== responses

def _one_sided(formula: str) -> tuple[str, str]:
    if not isinstance(formula, str):
        raise FormulaError(
            f"`formula` must be a string like 'y ~ x1 + x2'; got {describe(formula)}.")
    if formula.strip().startswith("~"):
        rhs = formula.strip()[1:].strip()
        if not rhs:
            raise FormulaError(f"`formula` needs terms on the right of '~'; got {formula!r}.")
        return "", rhs
    return split_formula(formula)


def _response_kind(lhs: str, data: pd.DataFrame, labels, name: str | None):
    """('binary' | 'multilabel' | 'multiclass', label columns or class column)."""
    if labels is not None:
        if lhs:
            raise InvalidArgumentError(
                "give the labels either on the left of the formula or as `labels`, not both; "
                f"got lhs {lhs!r} and labels={describe(labels)}.")
        labels = [labels] if isinstance(labels, str) else list(labels)
        unknown = [c for c in labels if c not in data.columns]
        if not labels or unknown:
            raise InvalidArgumentError(
                f"`labels` must name label columns of `data`; got {describe(labels)}"
                + (f" ({unknown[0]!r} is not a column)." if unknown else "."))
        return "multilabel", labels
    if not lhs:
        raise FormulaError("a one-sided formula '~ terms' needs `labels=[...]`.")
    parts = [p.strip().strip("`") for p in lhs.split("+")]
    if len(parts) > 1 and all(p in data.columns for p in parts):
        return "multilabel", parts
    col = lhs.strip().strip("`")
    if col in data.columns:
        s = data[col]
        values = pd.unique(s.dropna().to_numpy())
        if name == "multiclass_f":
            return "multiclass", col
        binary01 = pd.api.types.is_bool_dtype(s.dtype) or (
            pd.api.types.is_numeric_dtype(s.dtype) and set(np.asarray(values, float)) <= {0, 1})
        if not binary01 and values.size > 2 and not pd.api.types.is_float_dtype(s.dtype):
            return "multiclass", col
    return "binary", None


def _drop_label_rows(data: pd.DataFrame, cols: list[str], missing: str) -> np.ndarray:
    bad = data[cols].isna().to_numpy().any(axis=1)
    if bad.any():
        if missing == "raise":
            raise MissingDataError(
                f"the response column(s) {', '.join(map(repr, cols))} hold missing values in "
                f"{int(bad.sum())} row(s) (missing='raise').")
        warn(f"dropped {int(bad.sum())} row(s) with missing response values.", MissingDataWarning)
    return np.flatnonzero(~bad)


def _classes(s: pd.Series) -> list:
    if isinstance(s.dtype, pd.CategoricalDtype):
        return [c for c in s.cat.categories if (s == c).any()]
    return sorted(pd.unique(s.to_numpy()).tolist(), key=lambda v: (str(type(v)), v))


def _default_index(classes: list, yidx: np.ndarray, default_class) -> int:
    if default_class is None:
        return int(np.argmax(np.bincount(yidx, minlength=len(classes))))
    if default_class not in classes:
        raise InvalidArgumentError(
            f"`default_class` must be one of the classes {', '.join(map(repr, classes))}; got "
            f"{describe(default_class)}.")
    return classes.index(default_class)


# =========================================================================== public

def _formula_problem(formula, data, measure, beta, alpha, labels, default_class, missing,
                     engine) -> dict:
    """Parse the formula and response: the design, target and provenance for Fitting."""
    name, fm = _measure(measure, beta, alpha)
    check_choice("missing", missing, ("drop", "raise"))
    lhs, rhs = _one_sided(formula)
    if not isinstance(data, pd.DataFrame):
        raise InvalidArgumentError(f"`data` must be a pandas DataFrame; got {describe(data)}.")
    kind, resp = _response_kind(lhs, data, labels, name)
    name = _check_kind(name, kind, f"the response of {formula!r}")
    used = resp if kind == "multilabel" else [resp] if kind == "multiclass" else [
        c for c in formula_names(lhs) if c in data.columns]
    rhs = expand_dot(rhs, data.columns, used)
    outputs, default_index, strata = None, None, None
    if kind == "binary":
        mf = model_frame(f"{lhs} ~ {rhs}", data, missing=missing, engine=engine)
        refuse_offsets(mf, "costsens")
        if mf.response.kind != "binary":
            raise ResponseError(
                f"costsens needs 0/1 labels; the response of {formula!r} is {mf.response.kind!r}.")
        target, rows, strata = mf.response.y, np.asarray(mf.rows), mf.response.y
    else:
        cols = resp if kind == "multilabel" else [resp]
        keep = _drop_label_rows(data, cols, missing)
        sub = data.iloc[keep]
        mf = model_frame(f"{_DUMMY} ~ {rhs}", sub.assign(**{_DUMMY: 0}), missing=missing,
                         engine=engine)
        refuse_offsets(mf, "costsens")
        rows = keep[np.asarray(mf.rows)]
        frame = sub.iloc[np.asarray(mf.rows)]
        if kind == "multilabel":
            outputs = list(resp)
            target = np.column_stack([check_binary(f"label '{c}'", frame[c].to_numpy())
                                      for c in outputs])
        else:
            outputs = _classes(frame[resp])
            if len(outputs) < 2:
                raise ResponseError(f"the response '{resp}' has a single class; "
                                    "a classifier needs two or more.")
            lookup = {c: i for i, c in enumerate(outputs)}
            target = np.array([lookup[v] for v in frame[resp].to_numpy()])
            default_index = _default_index(outputs, target, default_class)
            strata = target
    names = list(mf.column_names)
    return dict(X=mf.X, target=target, kind=kind, measure_name=name, fm=fm, outputs=outputs,
                default_index=default_index, term_names=names, rows=rows,
                data_index=data.index, strata=strata,
                intercept=next((i for i, n in enumerate(names) if n in _INTERCEPT_NAMES), None),
                spec=mf.spec, response_name=resp if kind == "multiclass" else None)


def _settings(call: ModelCall, fm) -> Settings:
    """The fit's settings: the call's arguments (defaults applied) with beta resolved."""
    args = {k: v for k, v in call.resolved().items() if k not in ("alpha",)}
    return Settings(args, beta=fm.beta,
                    measure=args["measure"] if isinstance(args.get("measure"), str) else None)


@records_call
def costsens(formula: str, data: pd.DataFrame, *, measure: Any = None, beta: float | None = None,
             alpha: float | None = None, labels=None, default_class=None, learner: str = "logit",
             costs: bool = True, thresholds: bool = True, grid: Any = 19, search: str = "grid",
             validation: Any = 1 / 3, penalty: float = 1.0, random_state: Any = None,
             tol: float = 1e-8, max_iter: int = 25, n_jobs: int | None = None,
             progress: Any = None, missing: str = "drop", engine: str | None = None,
             _call=None) -> CostsensResults:
    """Maximise an F-measure by reduction to cost-sensitive classification (seed 001).

    For each cost level t on a grid in (0, 1+beta^2) a class-weighted learner is fitted on
    the training part (false negatives cost 1+beta^2-t, false positives t), the validation
    part is scored, the threshold is optionally tuned on it, and the (t, threshold) with the
    best validation F is kept (Algorithm 1; Algorithms 2-4 for the multi-label and
    multiclass micro-F).  The returned classifier is the one trained on the training part
    (refitting on all rows would change the scores the threshold was tuned on).

    Parameters
    ----------
    formula : str
        R-style formula ``"y ~ x1 + C(g)"``.  The response decides the task: a 0/1,
        boolean or two-level column (or expression) is binary; ``"y1 + y2 + y3 ~ ..."``
        (or ``"~ ..."`` with ``labels=[...]``) is multi-label, as in
        :func:`fmstats.multilabel.br`; one column with more than two classes is multiclass.
        ``.`` on the right stands for every column not in the response.
    data : pandas.DataFrame
        The data the formula refers to.
    measure : str or FMeasure, optional
        ``"f"`` (binary F_beta), ``"micro_f"`` / ``"macro_f"`` (multi-label; macro-F runs
        Algorithm 1 for each label, binary relevance) or ``"multiclass_f"`` (micro-F with
        a default class); default by response.  An :class:`FMeasure` sets beta.
    beta, alpha : float, optional
        F_beta weight (default F1), or its weight alpha on precision; beta must be > 0.
    labels : str or list of str, optional
        Label columns (multi-label with a one-sided formula).
    default_class : object, optional
        The "uninteresting" class of the multiclass micro-F (default: the most frequent
        training class).
    learner : {"logit", "svm"}, default "logit"
        ``"logit"`` (ridge logistic / multinomial regression) or ``"svm"`` (weighted
        linear SVM of :func:`fmstats.svm.wsvm_fit` on standardised columns;
        C = 1/penalty).
    costs, thresholds : bool, default True
        The four variants of the paper: ``-`` (both False), ``T``, ``CS``, ``CS&T`` (both
        True, the default).  Without ``costs`` one equal-cost fit is made.
    grid : int or array-like, default 19
        Number of levels t_j = (1+beta^2) j/(grid+1) (19: 0.1, ..., 1.9 for F1) or the
        levels themselves.
    search : {"grid", "bracket"}, default "grid"
        ``"grid"`` (every level, warm-started in increasing t) or ``"bracket"`` (section
        5.1; with an int ``grid`` as its budget of fits).
    validation : float, array-like of bool or array-like, default 1/3
        Fraction of rows held out (stratified by class for binary and multiclass
        responses), a boolean mask over the rows, or index labels of ``data``.
    penalty : float, default 1.0
        Ridge penalty on the non-intercept coefficients; the row costs are rescaled to
        mean 1, so it keeps one meaning across t.
    random_state : int or numpy.random.Generator, optional
        Seed of the validation split.
    tol : float, default 1e-8
        Convergence tolerance of the logistic learner.
    max_iter : int, default 25
        Iteration cap of the logistic learner.
    n_jobs : int, optional
        Parallel jobs for the labels of macro-F (joblib).
    progress : bool, optional
        Progress bar (None: when interactive).
    missing : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: rows with missing values are dropped (with a
        warning) or raise.
    engine : str, optional
        As in :func:`fmstats.maxent`: the formula engine, ``"formulaic"`` (default) or
        ``"patsy"``.

    Returns
    -------
    CostsensResults
        The classifier trained on the training part, with the chosen cost level and
        threshold.

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.costsens("survived ~ C(pclass) + sex + age", titanic, beta=2, grid=5,
    ...                   random_state=0)
    >>> fit
    <CostsensResults f, CS&T, learner=logit: validation F = 0.7871>
    """
    pb = _formula_problem(formula, data, measure, beta, alpha, labels, default_class, missing,
                          engine)
    spec, response_name = pb.pop("spec"), pb.pop("response_name")
    fitting = Fitting(**pb, learner=learner, grid=grid, search=search, validation=validation,
                      penalty=penalty, random_state=random_state, tol=tol, max_iter=max_iter,
                      n_jobs=n_jobs, progress=progress)
    return CostsensResults(**fitting.run(costs, thresholds), spec=spec, formula=formula,
                                call=_call, settings=_settings(_call, pb["fm"]),
                                response_name=response_name)


@public
def costsens_variants(formula: str, data: pd.DataFrame, newdata: pd.DataFrame | None = None, *,
                      learners=("logit",), **kwargs) -> tuple[pd.DataFrame, dict]:
    """The paper's comparison (Tables 2, 3, 5): the variants -, T, CS and CS&T per learner.

    Every variant uses the same validation split; the untuned and the tuned-threshold
    variants share their fits (one equal-cost fit for - and T, one search for CS and CS&T;
    with ``search="bracket"`` CS and CS&T are searched separately, as the bracketing follows
    their own curves).

    Parameters
    ----------
    formula : str
        R-style formula, as in :func:`costsens`.
    data : pandas.DataFrame
        The data the formula refers to.
    newdata : pandas.DataFrame, optional
        Test data; when given, the table gets each variant's measure on it.
    learners : str or sequence of str, default ("logit",)
        The learners compared (``"logit"``, ``"svm"``).
    **kwargs
        Arguments of :func:`costsens` except ``costs``, ``thresholds`` and ``learner``.

    Returns
    -------
    table : pandas.DataFrame
        One row per learner and variant (t, threshold, validation F and, with
        ``newdata``, the measure on it).
    fits : dict
        ``{(learner, variant): CostsensResults}``.

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> table, fits = fm.costsens_variants("survived ~ C(pclass) + sex + age", titanic, beta=2,
    ...                                    grid=5, random_state=0)
    >>> print(table.round(3).to_string(index=False))
    learner variant     t  threshold  validation_f
      logit       - 2.500      0.000         0.670
      logit       T 2.500     -2.259         0.781
      logit      CS 0.833      0.000         0.769
      logit    CS&T 0.833      0.333         0.787
    """
    for k in ("costs", "thresholds", "learner"):
        if k in kwargs:
            raise InvalidArgumentError(f"costsens_variants() sets `{k}` itself; do not pass it.")
    if isinstance(learners, str):
        learners = (learners,)
    fit_keys = ("grid", "search", "validation", "penalty", "random_state", "tol", "max_iter",
                "n_jobs", "progress")
    pb_keys = ("measure", "beta", "alpha", "labels", "default_class", "missing", "engine")
    unknown = set(kwargs) - set(fit_keys) - set(pb_keys)
    if unknown:
        raise InvalidArgumentError(f"unknown argument(s) {', '.join(sorted(unknown))}.")
    pb = _formula_problem(formula, data, **{k: kwargs.get(k) for k in pb_keys
                                            if k not in ("missing",)},
                          missing=kwargs.get("missing", "drop"))
    spec, response_name = pb.pop("spec"), pb.pop("response_name")
    fit_kw = {k: kwargs[k] for k in fit_keys if k in kwargs}
    fit_kw.setdefault("grid", 19)
    fit_kw.setdefault("search", "grid")
    fit_kw.setdefault("validation", 1 / 3)
    rows, fits = [], {}
    for learner in learners:
        fitting = Fitting(**pb, learner=learner, **{
            "penalty": 1.0, "random_state": None, "tol": 1e-8, "max_iter": 25,
            "n_jobs": None, "progress": None, **fit_kw})
        for costs in (False, True):
            shared = fitting.search(costs, True)
            for thr in (False, True):
                recs = (fitting.search(costs, thr)
                        if costs and fitting.search_kind == "bracket" and not thr else shared)
                # each variant as the costsens() call that gives it
                call = ModelCall.of(costsens, formula, data, **kwargs, learner=learner,
                                    costs=costs, thresholds=thr)
                res = CostsensResults(
                    **fitting.assemble(recs, costs, thr), spec=spec, formula=formula,
                    call=call, settings=_settings(call, pb["fm"]),
                    response_name=response_name)
                fits[(learner, res.variant)] = res
                row = {"learner": learner, "variant": res.variant,
                       "t": res.best_cost if np.ndim(res.best_cost) == 0 else np.nan,
                       "threshold": res.best_threshold if np.ndim(res.best_threshold) == 0
                       else np.nan, "validation_f": res.validation_f}
                if newdata is not None:
                    row["test_f"] = res.measure(newdata)
                rows.append(row)
    order = {v: i for i, v in enumerate(VARIANTS.values())}
    table = pd.DataFrame(rows).sort_values(["learner", "variant"], key=lambda c: c.map(
        order) if c.name == "variant" else c.map({lr: i for i, lr in enumerate(learners)}))
    return table.reset_index(drop=True), fits


@records_call(data="X")
def costsens_arrays(X: Any, y: Any, *, kind: str | None = None, measure: Any = None,
                    beta: float | None = None, alpha: float | None = None, intercept: bool = True,
                    default_class=None, learner: str = "logit", costs: bool = True,
                    thresholds: bool = True, grid: Any = 19, search: str = "grid",
                    validation: Any = 1 / 3, penalty: float = 1.0, random_state: Any = None,
                    tol: float = 1e-8, max_iter: int = 25, n_jobs: int | None = None,
                    progress: Any = None, column_names=None, _call=None) -> CostsensResults:
    """:func:`costsens` on a design matrix ``X`` and a response ``y``.

    Parameters
    ----------
    X : array-like of shape (n, p)
        The design matrix; with ``intercept=True`` its first column is the constant.
    y : array-like
        A 0/1 vector (binary), a 0/1 matrix (multi-label; a DataFrame names the labels) or
        a class vector with ``kind="multiclass"``.
    kind : {"binary", "multilabel", "multiclass"}, optional
        The task; default: multi-label for a matrix ``y``, multiclass with
        ``measure="multiclass_f"``, binary otherwise.
    measure : str or FMeasure, optional
        As in :func:`costsens`.
    beta, alpha : float, optional
        As in :func:`costsens`.
    intercept : bool, default True
        Whether the first column of ``X`` is the constant (a column of ones).
    default_class : object, optional
        As in :func:`costsens`.
    learner : {"logit", "svm"}, default "logit"
        As in :func:`costsens`.
    costs, thresholds : bool, default True
        As in :func:`costsens`.
    grid : int or array-like, default 19
        As in :func:`costsens`.
    search : {"grid", "bracket"}, default "grid"
        As in :func:`costsens`.
    validation : float or array-like, default 1/3
        As in :func:`costsens`; masks / positions refer to the rows of ``X``.
    penalty : float, default 1.0
        As in :func:`costsens`.
    random_state : int or numpy.random.Generator, optional
        As in :func:`costsens`.
    tol : float, default 1e-8
        As in :func:`costsens`.
    max_iter : int, default 25
        As in :func:`costsens`.
    n_jobs : int, optional
        As in :func:`costsens`.
    progress : bool, optional
        As in :func:`costsens`.
    column_names : list of str, optional
        Names of the columns of ``X`` (default ``x0``, ``x1``, ...).

    Returns
    -------
    CostsensResults
        The fitted classifier.
    """
    name, fm = _measure(measure, beta, alpha)
    X = np.ascontiguousarray(np.asarray(X, dtype=float))
    yv = np.asarray(y)
    if kind is None:
        kind = "multilabel" if yv.ndim == 2 else (
            "multiclass" if name == "multiclass_f" else "binary")
    check_choice("kind", kind, ("binary", "multilabel", "multiclass"))
    name = _check_kind(name, kind, "`y`")
    if X.ndim != 2 or X.shape[0] != yv.shape[0] or not np.all(np.isfinite(X)):
        raise DataError(f"`X` must be a finite matrix with one row per response; got "
                        f"{describe(X)} and {yv.shape[0]} responses.")
    if intercept and not np.all(X[:, 0] == 1.0):
        raise InvalidArgumentError("`intercept=True` needs a first column of ones in `X`.")
    outputs, default_index, strata = None, None, None
    if kind == "binary":
        target = check_binary("y", yv.ravel() if yv.ndim == 2 and yv.shape[1] == 1 else yv)
        strata = target
    elif kind == "multilabel":
        if yv.ndim != 2:
            raise InvalidArgumentError(f"multi-label `y` must be a 0/1 matrix; got {describe(y)}.")
        target = np.column_stack([check_binary(f"y[:, {j}]", yv[:, j])
                                  for j in range(yv.shape[1])])
        outputs = list(y.columns) if isinstance(y, pd.DataFrame) else [
            f"y{j + 1}" for j in range(yv.shape[1])]
    else:
        outputs = sorted(pd.unique(yv).tolist(), key=lambda v: (str(type(v)), v))
        lookup = {c: i for i, c in enumerate(outputs)}
        target = np.array([lookup[v] for v in yv])
        default_index = _default_index(outputs, target, default_class)
        strata = target
    names = list(column_names) if column_names is not None else [f"x{j}" for j in range(X.shape[1])]
    fitting = Fitting(X, target, kind=kind, measure_name=name, fm=fm, outputs=outputs,
                      default_index=default_index, intercept=0 if intercept else None,
                      learner=learner, grid=grid, search=search, validation=validation,
                      penalty=penalty, random_state=random_state, tol=tol, max_iter=max_iter,
                      n_jobs=n_jobs, progress=progress, term_names=names, rows=None,
                      data_index=None, strata=strata)
    return CostsensResults(**fitting.run(costs, thresholds), spec=None, formula=None,
                                settings=_settings(_call, fm), response_name=None, call=_call)
