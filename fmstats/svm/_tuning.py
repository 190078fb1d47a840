"""Cross-validated tuning of the SVMs as in the thesis's chapter 8 (seed 004, section 8.2).

* :func:`thesis_grid` -- the lower-triangular (C_pos, C_neg) grid of the R code;
* :func:`tune_wsvm` -- the weighted SVM tuned over that grid by pooled CV F_tp,fp
  (or by CV accuracy, the thesis's baseline);
* :func:`tune_fsvm` -- the F-measure SVM tuned over the step slope ``a`` with
  C = m+ fixed;
* :func:`with_measure` -- binds a model's own F-measure, since ``cv_tune``'s
  ``alpha``/``beta``/``measure`` name the criterion.

All tuners run through :func:`fmstats.cv_tune`: every grid point is scored
on the same folds, the fits run in parallel through joblib with a tqdm progress bar,
and the folds are drawn from ``random_state``.  ``tune_wsvm`` fits its grid in
batches (cv_tune's ``cv_counts`` hook): each joblib task builds one fold's design
once and solves a whole chunk of grid points' QPs side by side
(``wsvm_grid``), with the answers of one ``wsvm`` fit per point.  Default
``cv=2`` as in the thesis; any number of folds, a splitter or explicit
(train, test) pairs work.
"""
from __future__ import annotations

import inspect

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.parallel import capturing
from .._utils.parallel import run_tasks
from .._utils.validation import check_binary, check_choice, check_scalar, describe
from ..exceptions import ConvergenceWarning, InvalidArgumentError, ResponseError
from .._utils.grid import grid_points
from ..model_selection import CvTuneResults, cv_tune, with_measure
from ._data import svm_data
from ._fsvm import fsvm
from ._wsvm import wsvm
from ._qp import wsvm_grid
from .._utils.boundary import public

__all__ = ["thesis_grid", "THESIS_C_VALUES", "THESIS_A_GRID", "DEFAULT_A_GRID", "with_measure",
           "tune_wsvm", "tune_fsvm"]

#: The cost values of the R code: 2^(-4 + k/2), k = 1, ..., 20 (2^-3.5 to 2^6).
THESIS_C_VALUES = tuple(float(2.0 ** (-4 + k / 2)) for k in range(1, 21))
#: The grid of the step-function slope a searched for the F-measure SVM.
THESIS_A_GRID = (0.1, 1.0, 5.0, 10.0, 30.0)
#: The default grid of a of tune_fsvm and chapter8: the thesis's without a = 1, where the
#: objective's degenerate minimum (the all-negative classifier) is within reach yet the
#: 2-fold CV often prefers it; chosen by held-out F (benchmarks/fidelity/bench_fsvm_chapter8.py).
DEFAULT_A_GRID = (0.1, 5.0, 10.0, 30.0)
@public
def thesis_grid(y=None, n_values: int = 20) -> list[dict]:
    """The lower-triangular (C_pos, C_neg) grid of chapter 8 as a list of dicts.

    Pairs of the values 2^(-4 + k/2), k = 1..n_values, with C_pos >= C_neg (the positive
    class is the rare one, so its errors cost at least as much): 210 pairs for the
    thesis's 20 values.  When labels ``y`` (0/1) are given and the positives are the
    majority, the triangle is mirrored (C_neg >= C_pos) so that the rare class still
    gets the larger cost.

    Parameters
    ----------
    y : array-like, optional
        The 0/1 labels; when the positives are the majority the triangle is mirrored.
    n_values : int, default 20
        How many cost values 2^(-4 + k/2), k = 1..n_values (the thesis's 20).

    Returns
    -------
    list of dict
        One dict ``{"C_pos": ..., "C_neg": ...}`` per grid point.
    """
    n_values = int(check_scalar("n_values", n_values, low=1, integer=True))
    values = [float(2.0 ** (-4 + k / 2)) for k in range(1, n_values + 1)]
    mirror = False
    if y is not None:
        labels = check_binary("y", np.asarray(y).ravel())
        mirror = labels.sum() > labels.size - labels.sum()
    grid = []
    for i, hi in enumerate(values):
        for lo in values[: i + 1]:
            grid.append({"C_pos": lo, "C_neg": hi} if mirror else {"C_pos": hi, "C_neg": lo})
    return grid


# ----------------------------------------------------------------------------- checks
def _fmeasure(measure, beta, alpha) -> _m.FMeasure:
    fm = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    if not 0 < fm.alpha < 1:
        raise InvalidArgumentError(
            f"`alpha` must lie in (0, 1) (the weight on precision; the thesis's range); got "
            f"alpha = {fm.alpha:g} (beta = {fm.beta:g}). alpha = 1 is precision alone, which "
            "the SVMs maximise by predicting almost nothing positive.")
    return fm


def _check_fit_args(fn, fit_args: dict, reserved: dict) -> None:
    """``fit_args`` must be arguments of ``fn`` other than the tuner's own (``reserved``)."""
    for name in fit_args:
        if name in reserved:
            raise InvalidArgumentError(f"`{name}` cannot be passed to the fits here: "
                                       f"{reserved[name]}.")
    valid = [p for p in list(inspect.signature(fn).parameters)[2:] if p not in reserved]
    unknown = [k for k in fit_args if k not in valid]
    if unknown:
        raise InvalidArgumentError(
            f"{', '.join(map(repr, unknown))} is not an argument of {fn.__name__}() that the "
            f"tuner passes on; valid: {', '.join(valid)}.")
    weights = fit_args.get("weights")
    if weights is not None and not isinstance(weights, str):
        raise InvalidArgumentError(
            "`weights` must name a column of `data` when tuning (each fold takes its own "
            f"rows); got {describe(weights)}.")


def _svm_rows(formula, data, fit_args):
    """The model frame the fits will see (validates the response and the classes)."""
    return svm_data(formula, data, fit_args.get("weights"), fit_args.get("missing", "drop"),
                     fit_args.get("engine"))


def _criterion(criterion: str, fm: _m.FMeasure) -> dict:
    check_choice("criterion", criterion, ("f", "accuracy"))
    if criterion == "accuracy":
        return {"measure": "accuracy", "alpha": fm.alpha}   # F at alpha reported beside
    return {"measure": fm}


_SHARED_RESERVED = {
    "formula": "it is the tuner's first argument", "data": "it is the tuner's second argument",
    "measure": "give the F-measure to the tuner (alpha=, beta= or measure=)",
    "beta": "give the F-measure to the tuner (alpha=, beta= or measure=)",
    "alpha": "give the F-measure to the tuner (alpha=, beta= or measure=)",
}
_WSVM_RESERVED = {**_SHARED_RESERVED,
                  "C_pos": "the costs are tuned over `grid`", "C_neg": "the costs are tuned over "
                  "`grid`"}
_FSVM_RESERVED = {**_SHARED_RESERVED,
                  "a": "it is tuned over `a_grid`",
                  "objective": "tune_fsvm tunes the F-measure SVM (objective='fmeasure')",
                  "C_pos": "it belongs to the counting objective, not the F-measure SVM",
                  "C_neg": "it belongs to the counting objective, not the F-measure SVM",
                  "start": "every fold starts from the weighted SVM on its own rows (costs "
                           "`start_C`)"}


def _wsvm_points(grid, y, n_values) -> list[dict]:
    points = thesis_grid(y, n_values) if grid is None else grid_points(grid)
    for i, p in enumerate(points):
        bad = [k for k in p if k not in ("C_pos", "C_neg")]
        if bad:
            raise InvalidArgumentError(
                f"`grid` may only vary 'C_pos' and 'C_neg' (the class costs of wsvm); point {i} "
                f"has {', '.join(map(repr, bad))}.")
        for k, v in p.items():
            check_scalar(f"grid point {i}: {k}", v, low=0, low_open=True)
    return points


def _a_points(a_grid) -> list[dict]:
    if isinstance(a_grid, (str, bytes)) or np.ndim(a_grid) != 1 or len(a_grid) == 0:
        raise InvalidArgumentError(
            f"`a_grid` must be a non-empty sequence of slopes a > 0; got {describe(a_grid)}.")
    return [{"a": float(check_scalar(f"a_grid[{i}]", v, low=0, low_open=True))}
            for i, v in enumerate(a_grid)]


# ----------------------------------------------------------------------------- tune_wsvm's grid
#: Most grid points per task of tune_wsvm: a fold's grid is split into equal parts of at most
#: this many points (fixed, so that the results do not depend on n_jobs).
WSVM_CHUNK = 512


def _fold_design(formula, design, train, test, fit_args) -> tuple:
    """The arrays a fold's fits need, taken once per fold as ``wsvm`` and its
    ``confusion`` would take them on every fit (same checks, errors and warnings), from
    the rows of the design built once (``fmstats/formula/_reuse.py``)."""
    check_scalar("tol", fit_args.get("tol", 1e-10), low=0, low_open=True)
    sd = _svm_rows(formula, design.subset(train), fit_args)
    held = design.subset(test, reset_index=True)
    resp, X, rows = sd.frame.spec.build_with_response(held, missing="drop")
    if resp.kind != "binary":
        raise ResponseError(f"the response '{resp.name}' of `newdata` must be two-valued; "
                            f"got {resp.kind} values.")
    # held-out rows count with their prior weights, as cv_tune's single fits count them
    weights = fit_args.get("weights")
    w_test = (np.ones(len(rows)) if weights is None else
              pd.to_numeric(held[weights], errors="coerce").to_numpy(dtype=float)[
                  np.asarray(rows)])
    return (sd.X, sd.ypm, sd.weights, np.delete(X, sd.intercept_pos, axis=1),
            np.asarray(resp.y, dtype=float), w_test)


def _grid_counts(design, costs, tol) -> list:
    """One fold's weighted SVMs at the (C_pos, C_neg) rows of ``costs`` (one batched QP,
    ``wsvm_grid``) and their held-out confusion counts."""
    X, ypm, weights, X_test, y_test, w_test = design
    fits = wsvm_grid(X, ypm, costs, sample_weight=weights, tol=tol)
    W = np.stack([f.w for f in fits])
    pred = (X_test @ W.T + np.array([f.b for f in fits]) > 0).astype(float)   # (rows, points)
    pos, neg = w_test * y_test, w_test * (1.0 - y_test)
    tp = pos @ pred
    fp = neg @ pred
    counts = np.stack([tp, fp, pos.sum() - tp, neg.sum() - fp], axis=1)
    return [(counts[g], None, [] if f.converged else [(
        ConvergenceWarning, f"wsvm: {f.message}; the hyperplane may be inaccurate. Standardise "
                            "the features or reduce very large costs C_pos/C_neg.")])
            for g, f in enumerate(fits)]


def _wsvm_chunk(formula, design, train, test, fixed, costs) -> list:
    """Worker: a chunk of grid points on one fold; per point, what ``capturing`` returns
    for a single fit ((tp, fp, fn, tn) or None, error or None, warnings).  The design is
    built here (in parallel), once per chunk."""
    arrays, error, caught = capturing(_fold_design, formula, design, train, test, fixed)
    if error is not None:
        return [(None, error, caught)] * len(costs)
    return [(v, e, caught + w)
            for v, e, w in _grid_counts(arrays, costs, fixed.get("tol", 1e-10))]


class WsvmGrid(with_measure):
    """``with_measure(wsvm, fm)`` that fits a whole (C_pos, C_neg) grid per fold.

    ``cv_tune`` calls :meth:`cv_counts` instead of one ``wsvm`` fit per (point, fold):
    each joblib task builds a fold's design once and solves up to :data:`WSVM_CHUNK`
    grid points' QPs side by side (BLAS limited once per task).  Counts, errors and
    warnings are those of the per-fit path.
    """

    def __init__(self, fm: _m.FMeasure):
        super().__init__(wsvm, fm)

    def cv_counts(self, formula, design, points, pairs, fixed, *, n_jobs, progress) -> list:
        costs = np.array([[p.get("C_pos", 1.0), p.get("C_neg", 1.0)] for p in points],
                         dtype=float)
        G, K = len(points), len(pairs)
        parts = np.array_split(np.arange(G), -(-G // WSVM_CHUNK))
        tasks = [(formula, design, train, test, fixed, costs[idx])
                 for train, test in pairs for idx in parts]
        results = run_tasks(_wsvm_chunk, tasks, n_jobs=n_jobs, progress=progress,
                            desc=f"tune_wsvm: {G} points x {K} folds in {len(tasks)} tasks")
        out: list = [None] * (G * K)
        for j, res in enumerate(results):
            k, idx = divmod(j, len(parts))
            for g, r in zip(parts[idx], res):
                out[g * K + k] = r
        return out


# ----------------------------------------------------------------------------- tuners
@public
def tune_wsvm(formula: str, data: pd.DataFrame, *, alpha=None, beta=None, measure=None,
              criterion: str = "f", grid=None, n_values: int = 20, cv=2, repeats: int = 1,
              pooling: str = "tp_fp", refit: bool = True, on_error: str = "record",
              n_jobs=None, random_state=None, progress=None, reuse_design: bool = True,
              **fit_args) -> CvTuneResults:
    """The weighted SVM with (C_pos, C_neg) chosen by cross-validated F (thesis section 8.2).

    The grid is fitted in chunks of up to ``WSVM_CHUNK`` points per fold and joblib task
    (a batched QP; the same counts as one fit per point, whatever ``n_jobs``).

    Parameters
    ----------
    formula : str
        R-style formula, as in :func:`fmstats.svm.wsvm`.
    data : pandas.DataFrame
        The data, as in :func:`fmstats.svm.wsvm`.
    alpha, beta : float, optional
        The F-measure of the criterion by its weight on precision or by its beta (default
        F1; alpha in (0, 1)).
    measure : FMeasure, optional
        The F-measure of the criterion as an object (at most one of ``alpha``, ``beta``
        and ``measure``).
    criterion : {"f", "accuracy"}, default "f"
        ``"f"`` (pooled CV F_tp,fp: TP, FP, FN averaged over the folds, then F) or
        ``"accuracy"`` (the thesis's baseline; the F at ``alpha`` is reported beside).
    grid : dict, list of dict or pandas.DataFrame, optional
        The (C_pos, C_neg) points: None for :func:`thesis_grid` on the labels of ``data``
        with ``n_values`` values (210 points for 20; C_pos >= C_neg when the positives are
        the minority), or a dict of lists, list of dicts or DataFrame over ``C_pos`` and
        ``C_neg``.
    n_values : int, default 20
        The number of cost values of the default grid (:func:`thesis_grid`).
    cv : int, splitter or iterable of (train, test) positions, default 2
        As in :func:`fmstats.cv_tune` (default 2 folds, as in the thesis).
    repeats : int, default 1
        As in :func:`fmstats.cv_tune`: repeated stratified k-fold (integer ``cv`` only).
    pooling : {"tp_fp", "mean"}, default "tp_fp"
        As in :func:`fmstats.cv_tune`: average TP, FP, FN over the folds, then the
        measure, or the mean of the fold values.
    refit : bool, default True
        As in :func:`fmstats.cv_tune`: refit the best point on all of ``data``
        (``best_model``).
    on_error : {"record", "raise"}, default "record"
        As in :func:`fmstats.cv_tune`: record failed fits or raise.
    n_jobs : int, optional
        As in :func:`fmstats.cv_tune`: parallel (grid point x fold) fits through joblib.
    random_state : int or numpy.random.Generator, optional
        As in :func:`fmstats.cv_tune`: seeds the folds of integer ``cv``.
    progress : bool, optional
        As in :func:`fmstats.cv_tune`: a tqdm progress bar (None: automatic).
    reuse_design : bool, default True
        As in :func:`fmstats.cv_tune`: build the design of ``data`` once and refit every
        fold on its rows.
    **fit_args
        Further arguments of :func:`~fmstats.svm.wsvm` (``weights`` as a column name,
        ``tol``, ``missing``, ``engine``).

    Returns
    -------
    CvTuneResults
        ``best_params``, ``tidy()`` (one row per grid point), ``best_model`` (the
        weighted SVM refitted on all of ``data``, reporting the tuned F), ``plot()``
        (a heat map over the grid).

    Examples
    --------
    >>> import fmstats as fm
    >>> from fmstats.svm import tune_wsvm
    >>> d = fm.datasets.make_thesis_svm_data("A1", random_state=0, n_train=(40, 40))
    >>> tuned = tune_wsvm("y ~ x1 + x2", d[d.split == "train"], n_values=3, random_state=0)
    >>> {k: round(v, 4) for k, v in tuned.best_params.items()}
    {'C_pos': 0.1768, 'C_neg': 0.0884}
    >>> print(f"{tuned.best_score:.3f}")
    0.655
    """
    fm = _fmeasure(measure, beta, alpha)
    crit = _criterion(criterion, fm)
    _check_fit_args(wsvm, fit_args, _WSVM_RESERVED)
    rows = _svm_rows(formula, data, fit_args)
    points = _wsvm_points(grid, rows.y, n_values)
    return cv_tune(WsvmGrid(fm), formula, data, points, cv=cv, repeats=repeats,
                   pooling=pooling, refit=refit, on_error=on_error, n_jobs=n_jobs,
                   random_state=random_state, progress=progress, reuse_design=reuse_design,
                   **crit, **fit_args)


@public
def tune_fsvm(formula: str, data: pd.DataFrame, *, alpha=None, beta=None, measure=None,
              a_grid=DEFAULT_A_GRID, C: float | None = None, start_C=None, criterion: str = "f",
              cv=2, repeats: int = 1, pooling: str = "tp_fp", refit: bool = True,
              on_error: str = "record", n_jobs=None, random_state=None, progress=None,
              reuse_design: bool = True, **fit_args) -> CvTuneResults:
    """The F-measure SVM with the step slope ``a`` chosen by cross-validated F (section 8.2).

    As in the thesis's code, ``C`` (default m+, the number -- or weight -- of positive
    rows of ``data``) and the costs of the starting weighted SVM (``start_C``, default
    (m-, m+)/10 of ``data``) are computed once on ``data`` and kept on every training
    fold and in the final refit, so all fits minimise the same objective; each fold
    starts from the weighted SVM on its own rows.

    Parameters
    ----------
    formula : str
        R-style formula, as in :func:`fmstats.svm.fsvm`.
    data : pandas.DataFrame
        The data, as in :func:`fmstats.svm.fsvm`.
    alpha, beta : float, optional
        The F-measure the SVM maximises and the criterion judges, by its weight on
        precision or by its beta (default F1; alpha in (0, 1)).
    measure : FMeasure, optional
        The same F-measure as an object (at most one of ``alpha``, ``beta`` and
        ``measure``).
    a_grid : sequence of float, default DEFAULT_A_GRID
        The slopes a > 0 searched.  Default :data:`DEFAULT_A_GRID` = (0.1, 5, 10, 30),
        the thesis's grid (:data:`THESIS_A_GRID`) without a = 1: with a = 1 the fits on
        the folds often look good while the refit on all rows collapses towards the
        all-negative minimum of (3.6).  On fresh draws of A1, A2, B1, B2 (2000-row test
        sets, alpha 0.3/0.5/0.7, 3 fold seeds, 3 data draws) this grid with fsvm's
        default degeneracy check gave a mean test F 0.03-0.07 above the F-tuned weighted
        SVM and no case more than 0.09 below; the thesis's grid gave -0.05 to +0.02 on
        average with cases 0.6-0.76 below (benchmarks/fidelity/bench_fsvm_chapter8.py).
    C : float, optional
        Weight of the F term, computed once on ``data`` (see above; default m+).
    start_C : tuple of float, optional
        Costs (C_pos, C_neg) of the starting weighted SVM, computed once on ``data`` (see
        above; default (m-, m+)/10).
    criterion : {"f", "accuracy"}, default "f"
        ``"f"`` (pooled CV F_tp,fp) or ``"accuracy"``.
    cv : int, splitter or iterable of (train, test) positions, default 2
        As in :func:`fmstats.cv_tune` (default 2 folds).
    repeats : int, default 1
        As in :func:`fmstats.cv_tune`: repeated stratified k-fold (integer ``cv`` only).
    pooling : {"tp_fp", "mean"}, default "tp_fp"
        As in :func:`fmstats.cv_tune`: average TP, FP, FN over the folds, then the
        measure, or the mean of the fold values.
    refit : bool, default True
        As in :func:`fmstats.cv_tune`: refit the best point on all of ``data``
        (``best_model``).
    on_error : {"record", "raise"}, default "record"
        As in :func:`fmstats.cv_tune`: record failed fits or raise.
    n_jobs : int, optional
        As in :func:`fmstats.cv_tune`: parallel (grid point x fold) fits through joblib.
    random_state : int or numpy.random.Generator, optional
        As in :func:`fmstats.cv_tune`: seeds the folds of integer ``cv``.
    progress : bool, optional
        As in :func:`fmstats.cv_tune`: a tqdm progress bar (None: automatic).
    reuse_design : bool, default True
        As in :func:`fmstats.cv_tune`: build the design of ``data`` once and refit every
        fold on its rows.
    **fit_args
        Further arguments of :func:`~fmstats.svm.fsvm` (``method``, ``maxeval``,
        ``ftol_rel``, ``algorithm``, ``restarts``, ``bounds``, ``weights`` as a column
        name...).

    Returns
    -------
    CvTuneResults
        One row of ``tidy()`` per value of a; ``best_model`` is the F-measure SVM
        refitted on all of ``data`` with the best a.  Its ``refit(newdata)`` reruns the
        tuning with the same ``C`` and ``start_C`` values (call ``tune_fsvm`` again to
        recompute them from new data).

    Examples
    --------
    >>> import fmstats as fm
    >>> from fmstats.svm import tune_fsvm
    >>> d = fm.datasets.make_thesis_svm_data("B1", random_state=0, n_train=(90, 30))
    >>> tuned = tune_fsvm("y ~ x1 + x2", d[d.split == "train"], alpha=0.5, a_grid=(1.0, 5.0),
    ...                   random_state=0)
    >>> tuned.best_params
    {'a': 1.0}
    >>> print(f"{tuned.best_score:.3f}")
    0.667
    """
    fm = _fmeasure(measure, beta, alpha)
    crit = _criterion(criterion, fm)
    _check_fit_args(fsvm, fit_args, _FSVM_RESERVED)
    points = _a_points(a_grid)
    rows = _svm_rows(formula, data, fit_args)
    C = rows.m_pos if C is None else float(check_scalar("C", C, low=0, low_open=True))
    if start_C is None:
        start_C = (rows.m_neg / 10, rows.m_pos / 10)
    if not (isinstance(start_C, (tuple, list)) and len(start_C) == 2):
        raise InvalidArgumentError(f"`start_C` must be a pair (C_pos, C_neg); got "
                                   f"{describe(start_C)}.")
    start_C = tuple(float(check_scalar(f"start_C[{i}]", v, low=0, low_open=True))
                    for i, v in enumerate(start_C))
    return cv_tune(with_measure(fsvm, fm), formula, data, points, cv=cv, repeats=repeats,
                   pooling=pooling, refit=refit, on_error=on_error, n_jobs=n_jobs,
                   random_state=random_state, progress=progress, reuse_design=reuse_design,
                   C=C, start_C=start_C,
                   **crit, **fit_args)
