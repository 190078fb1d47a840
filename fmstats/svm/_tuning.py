"""Cross-validated tuning of the SVMs as in the thesis's chapter 8 (seed 004, section 8.2).

* :func:`thesis_grid` -- the lower-triangular (C_pos, C_neg) grid of the R code;
* :func:`tune_wsvm` -- the weighted SVM tuned over that grid by pooled CV F_tp,fp
  (or by CV accuracy, the thesis's baseline);
* :func:`tune_fsvm` -- the F-measure SVM tuned over the step slope ``a`` with
  C = m+ fixed;
* :func:`chapter8` -- the experiment of section 8.3: training and test F against
  alpha of the three classifiers, with :func:`plot_chapter8` for its figure;
* :func:`with_measure` -- binds a model's own F-measure, since ``cv_tune``'s
  ``alpha``/``beta``/``measure`` name the criterion.

All tuners run through :func:`fmstats.model_selection._cv_tune.cv_tune`: every grid point is scored
on the same folds, the fits run in parallel through joblib with a tqdm progress bar,
and the folds are drawn from ``random_state``.  ``tune_wsvm`` fits its grid in
batches (cv_tune's ``cv_counts`` hook): each joblib task builds one fold's design
once and solves a whole chunk of grid points' QPs side by side
(:func:`fmstats.svm._qp.wsvm_grid`), with the answers of one ``wsvm`` fit per point.  Default
``cv=2`` as in the thesis; any number of folds, a splitter or explicit
(train, test) pairs work.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd

from .. import measures as _m
from ..model_selection import Criterion, capturing, reemit
from .._utils.parallel import run_tasks
from .._utils.progress import progress_bar, progress_enabled
from .._utils.validation import check_binary, check_choice, check_scalar, describe
from ..exceptions import ConvergenceWarning, InvalidArgumentError, ResponseError
from ..model_selection import grid_points
from ..model_selection import CvTuneResults, cv_tune, with_measure
from ._data import svm_data
from ._models import fsvm, wsvm
from ._qp import wsvm_grid

__all__ = ["thesis_grid", "THESIS_C_VALUES", "THESIS_A_GRID", "DEFAULT_A_GRID", "THESIS_ALPHAS",
           "with_measure",
           "tune_wsvm", "tune_fsvm", "chapter8", "plot_chapter8", "CHAPTER8_MODELS"]

#: The cost values of the R code: 2^(-4 + k/2), k = 1, ..., 20 (2^-3.5 to 2^6).
THESIS_C_VALUES = tuple(float(2.0 ** (-4 + k / 2)) for k in range(1, 21))
#: The grid of the step-function slope a searched for the F-measure SVM.
THESIS_A_GRID = (0.1, 1.0, 5.0, 10.0, 30.0)
#: The default grid of a of tune_fsvm and chapter8: the thesis's without a = 1, where the
#: objective's degenerate minimum (the all-negative classifier) is within reach yet the
#: 2-fold CV often prefers it; chosen by held-out F (benchmarks/bench_fsvm_chapter8.py).
DEFAULT_A_GRID = (0.1, 5.0, 10.0, 30.0)
#: The F-measure weights of the R code (its ``betaSeq``: our alpha, the weight on precision).
THESIS_ALPHAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: The three classifiers of chapter 8, as named in the ``model`` column of :func:`chapter8`.
CHAPTER8_MODELS = ("wsvm, CV F", "fsvm, CV F", "wsvm, CV accuracy")


def thesis_grid(y=None, n_values: int = 20) -> list[dict]:
    """The lower-triangular (C_pos, C_neg) grid of chapter 8 as a list of dicts.

    Pairs of the values 2^(-4 + k/2), k = 1..n_values, with C_pos >= C_neg (the positive
    class is the rare one, so its errors cost at least as much): 210 pairs for the
    thesis's 20 values.  When labels ``y`` (0/1) are given and the positives are the
    majority, the triangle is mirrored (C_neg >= C_pos) so that the rare class still
    gets the larger cost.
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
    the rows of the design built once (:mod:`fmstats.formula._reuse`)."""
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
    :func:`~fmstats.svm._qp.wsvm_grid`) and their held-out confusion counts."""
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


class _WsvmGrid(with_measure):
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
def tune_wsvm(formula: str, data: pd.DataFrame, *, alpha=None, beta=None, measure=None,
              criterion: str = "f", grid=None, n_values: int = 20, cv=2, repeats: int = 1,
              pooling: str = "tp_fp", refit: bool = True, on_error: str = "record",
              n_jobs=None, random_state=None, progress=None, reuse_design: bool = True,
              **fit_args) -> CvTuneResults:
    """The weighted SVM with (C_pos, C_neg) chosen by cross-validated F (thesis section 8.2).

    Parameters
    ----------
    formula, data : as in :func:`fmstats.svm.wsvm`.
    alpha, beta, measure : the F-measure of the criterion (default F1; alpha in (0, 1)).
    criterion : ``"f"`` (pooled CV F_tp,fp: TP, FP, FN averaged over the folds, then F)
        or ``"accuracy"`` (the thesis's baseline; the F at ``alpha`` is reported beside).
    grid : the (C_pos, C_neg) points: None for :func:`thesis_grid` on the labels of
        ``data`` with ``n_values`` values (210 points for 20; C_pos >= C_neg when the
        positives are the minority), or a dict of lists, list of dicts or DataFrame over
        ``C_pos`` and ``C_neg``.
    cv, repeats, pooling, refit, on_error, n_jobs, random_state, progress, reuse_design :
        as in :func:`fmstats.model_selection._cv_tune.cv_tune` (default 2 folds, as in the thesis).
        The grid is fitted in chunks of up to ``WSVM_CHUNK`` points per fold and joblib
        task (a batched QP; the same counts as one fit per point, whatever ``n_jobs``).
    **fit_args : further arguments of :func:`~fmstats.svm.wsvm` (``weights`` as a
        column name, ``tol``, ``missing``, ``engine``).

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
    return cv_tune(_WsvmGrid(fm), formula, data, points, cv=cv, repeats=repeats,
                   pooling=pooling, refit=refit, on_error=on_error, n_jobs=n_jobs,
                   random_state=random_state, progress=progress, reuse_design=reuse_design,
                   **crit, **fit_args)


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
    formula, data : as in :func:`fmstats.svm.fsvm`.
    alpha, beta, measure : the F-measure the SVM maximises and the criterion judges
        (default F1; alpha in (0, 1)).
    a_grid : the slopes a > 0 searched.  Default :data:`DEFAULT_A_GRID` = (0.1, 5, 10, 30),
        the thesis's grid (:data:`THESIS_A_GRID`) without a = 1: with a = 1 the fits on
        the folds often look good while the refit on all rows collapses towards the
        all-negative minimum of (3.6).  On fresh draws of A1, A2, B1, B2 (2000-row test
        sets, alpha 0.3/0.5/0.7, 3 fold seeds, 3 data draws) this grid with fsvm's
        default degeneracy check gave a mean test F 0.03-0.07 above the F-tuned weighted
        SVM and no case more than 0.09 below; the thesis's grid gave -0.05 to +0.02 on
        average with cases 0.6-0.76 below (benchmarks/bench_fsvm_chapter8.py).
    C, start_C : see above.
    criterion : ``"f"`` (pooled CV F_tp,fp) or ``"accuracy"``.
    cv, repeats, pooling, refit, on_error, n_jobs, random_state, progress, reuse_design :
        as in :func:`fmstats.model_selection._cv_tune.cv_tune`.
    **fit_args : further arguments of :func:`~fmstats.svm.fsvm` (``method``,
        ``maxeval``, ``ftol_rel``, ``algorithm``, ``restarts``, ``bounds``, ``weights``
        as a column name...).

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


# ----------------------------------------------------------------------------- chapter 8
def _fold_counts(res: CvTuneResults) -> np.ndarray:
    """(grid points, folds, 4) confusion counts of a cv_tune run (NaN for failed fits)."""
    t = res.fold_results
    return t[["tp", "fp", "fn", "tn"]].to_numpy(dtype=float).reshape(len(res.tidy()),
                                                                     len(res.folds), 4)


def _best_by_f(counts: np.ndarray, fm: _m.FMeasure, pooling: str) -> tuple[int, float]:
    """The grid point cv_tune would choose with criterion F at ``fm``: (index, CV F).

    The fold fits of the weighted SVM do not depend on the criterion, so their counts
    are judged again at every alpha instead of being refitted.
    """
    ok = ~np.isnan(counts[..., 0]).any(axis=1)
    f = Criterion(fm, None, None, pooling).summarise(np.nan_to_num(np.moveaxis(counts, 1, 0)))
    score = np.where(ok, f["f"], np.nan)
    best = _m.best_position(score)
    return best, float(score[best])


def _rows(alpha, model, fit, train, test, params, cv_f, cv_acc) -> list[dict]:
    fm = _m.FMeasure(alpha=alpha)
    base = {"alpha": alpha, "beta": fm.beta, "model": model, "C_pos": np.nan, "C_neg": np.nan,
            "a": np.nan, "C": np.nan, **params, "cv_f": cv_f, "cv_accuracy": cv_acc}
    return [{**base, "data": name, "f": fit.measure(d, measure=fm)}
            for name, d in (("train", train), ("test", test))]


def chapter8(formula: str, train: pd.DataFrame, test: pd.DataFrame, alphas=THESIS_ALPHAS, *,
             grid=None, n_values: int = 20, a_grid=DEFAULT_A_GRID, C: float | None = None,
             cv=2, pooling: str = "tp_fp", n_jobs=None, random_state=None, progress=None,
             fsvm_args: dict | None = None) -> pd.DataFrame:
    """The experiment of the thesis's chapter 8: three SVMs' training and test F against alpha.

    For every alpha (the weight on precision; the thesis's beta):

    * ``"wsvm, CV F"``: the weighted SVM with (C_pos, C_neg) chosen by pooled CV
      F_tp,fp at alpha over the grid (:func:`tune_wsvm`);
    * ``"fsvm, CV F"``: the F-measure SVM at alpha with C = m+ and a chosen by pooled
      CV F at alpha over ``a_grid`` (:func:`tune_fsvm`);
    * ``"wsvm, CV accuracy"``: the weighted SVM with the costs chosen by CV accuracy
      (the same classifier for every alpha; the thesis's baseline).

    All three use the same folds (drawn once from ``random_state``), as the R code
    does.  The weighted SVM's grid is fitted once: its fold fits do not depend on
    alpha, so their confusion counts are judged again at every alpha (the choice is
    the one :func:`tune_wsvm` makes at that alpha).

    Parameters
    ----------
    formula : e.g. ``"y ~ x1 + x2"``; train, test : DataFrames (the model is fitted on
        ``train``; ``test`` is only predicted).
    alphas : the F-measure weights (default 0.1, ..., 0.9 as in the R code).
    grid, n_values : the (C_pos, C_neg) grid (default :func:`thesis_grid` with 20 values).
    a_grid, C : the F-measure SVM's grid over a (default :data:`DEFAULT_A_GRID`; the
        thesis's is :data:`THESIS_A_GRID`) and its C (default m+ of ``train``).
    cv, pooling, n_jobs, random_state, progress : as in :func:`tune_wsvm`.
    fsvm_args : further arguments of :func:`~fmstats.svm.fsvm` (e.g. ``method``,
        ``maxeval``).

    Returns
    -------
    DataFrame
        One row per (alpha, model, data): alpha, beta, model, C_pos, C_neg (weighted
        SVMs), a, C (F-measure SVM), cv_f (pooled CV F at alpha of the chosen point),
        cv_accuracy, data (``"train"``/``"test"``), f (F at alpha of the classifier
        fitted on ``train``).  Plot it with :func:`plot_chapter8`.
    """
    fsvm_args = dict(fsvm_args or {})
    _check_fit_args(fsvm, fsvm_args, {**_FSVM_RESERVED, "C": "it is chapter8's own argument"})
    alphas = [_fmeasure(None, None, a).alpha for a in np.atleast_1d(alphas)]
    show = progress_enabled(progress)
    acc = tune_wsvm(formula, train, alpha=alphas[0], criterion="accuracy", grid=grid,
                    n_values=n_values, cv=cv, pooling=pooling, n_jobs=n_jobs,
                    random_state=random_state, progress=progress)
    table = acc.tidy()
    points = table[acc.param_names].to_dict("records")
    counts = _fold_counts(acc)
    wsvm_fits = {}
    out = []
    steps = alphas
    if show:
        steps = progress_bar(alphas, desc="chapter8: fsvm over alpha")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for alpha in steps:
            out += _chapter8_alpha(alpha, formula, train, test, counts, points, table, acc,
                                   wsvm_fits, a_grid=a_grid, C=C, pooling=pooling,
                                   n_jobs=n_jobs, fsvm_args=fsvm_args)
    reemit([(w.category, str(w.message)) for w in caught], len(alphas),
           "F-measure SVM tunings of chapter8 (one per alpha)")
    cols = ["alpha", "beta", "model", "data", "f", "cv_f", "cv_accuracy", "C_pos", "C_neg", "a",
            "C"]
    return pd.DataFrame(out)[cols]


def _chapter8_alpha(alpha, formula, train, test, counts, points, table, acc, wsvm_fits, *,
                    a_grid, C, pooling, n_jobs, fsvm_args) -> list[dict]:
    """The rows of :func:`chapter8` for one alpha (``wsvm_fits`` caches refits by costs)."""
    fm = _m.FMeasure(alpha=alpha)
    best, cv_f = _best_by_f(counts, fm, pooling)
    key = tuple(sorted(points[best].items()))
    if key not in wsvm_fits:
        wsvm_fits[key] = wsvm(formula, train, **points[best])
    out = _rows(alpha, CHAPTER8_MODELS[0], wsvm_fits[key], train, test, points[best], cv_f,
                float(table["accuracy"].iloc[best]))
    tuned = tune_fsvm(formula, train, alpha=alpha, a_grid=a_grid, C=C, cv=acc.folds,
                      pooling=pooling, n_jobs=n_jobs, progress=False, **fsvm_args)
    b = tuned.tidy().iloc[tuned.best_index]
    out += _rows(alpha, CHAPTER8_MODELS[1], tuned.best_model, train, test,
                 {"a": tuned.best_params["a"], "C": tuned.best_model.C}, float(b["f"]),
                 float(b["accuracy"]))
    _, acc_f = _best_by_f(counts[[acc.best_index]], fm, pooling)
    out += _rows(alpha, CHAPTER8_MODELS[2], acc.best_model, train, test, acc.best_params, acc_f,
                 acc.best_score)
    return out


def plot_chapter8(table: pd.DataFrame, axes=None, title: str | None = None):
    """The thesis's figures 8.1-8.4: F against alpha on the training and the test set.

    ``table`` is the output of :func:`chapter8`; ``axes`` a pair of matplotlib axes
    (default a new 1 x 2 figure).  Returns the figure.
    """
    from ..plotting import pyplot, finish_figure

    need = {"alpha", "model", "data", "f"}
    if not isinstance(table, pd.DataFrame) or not need <= set(table.columns):
        raise InvalidArgumentError(f"`table` must be the DataFrame of chapter8() (columns "
                                   f"{', '.join(sorted(need))}); got {describe(table)}.")
    if axes is None:
        fig, axes = pyplot().subplots(1, 2, figsize=(9.0, 3.4), sharey=True)
    elif len(axes) != 2:
        raise InvalidArgumentError(f"`axes` must be two axes (training, test); got "
                                   f"{describe(axes)}.")
    fig = axes[0].figure
    styles = dict(zip(CHAPTER8_MODELS, (("tab:blue", "-"), ("tab:red", "-"), ("black", "--"))))
    for ax, name in zip(axes, ("train", "test")):
        for model, part in table[table["data"] == name].groupby("model", sort=False):
            colour, ls = styles.get(model, (None, "-"))
            ax.plot(part["alpha"], part["f"], ls, color=colour, marker=".", label=model)
        ax.set_xlabel("alpha (weight on precision; the thesis's beta)")
        ax.set_title(f"{'Training' if name == 'train' else 'Test'} set"
                     + (f": {title}" if title else ""), fontsize="medium")
        ax.set_ylabel("F")
    axes[0].legend(fontsize="small")
    return finish_figure(fig)
