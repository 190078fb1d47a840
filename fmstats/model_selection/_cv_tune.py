"""Cross-validated F-tuning of any fmstats model: :func:`cv_tune` and :func:`tune_threshold`
(the latter lives in ``_threshold.py`` and is re-exported here).

Both work through the results protocol (:class:`fmstats.results.ModelResults`) only: a model
function
``model_fn(formula, data, **params)`` returning a results object that can
``refit(data)``, ``predict(newdata, type=...)`` and ``confusion(newdata)``.

The criterion (thesis section 8.2, Forman & Scholz)
---------------------------------------------------
Every grid point (or threshold) is scored on the same held-out folds.  With
``pooling="tp_fp"`` (default) the confusion counts TP, FP, FN are averaged over
the folds and F is computed once from the averages (F_tp,fp); with
``pooling="mean"`` F is computed on each fold and averaged.  The thesis's
accuracy baseline is ``measure="accuracy"`` (pooled (TP + TN) / n, or the mean
of the fold accuracies).

Failures and warnings
---------------------
A fit that raises an :class:`~fmstats.exceptions.FmstatsError` on a fold (a
training fold with one class, an unseen factor level in the test fold...) is
recorded: the error text is kept in ``fold_results``, the grid point gets
``n_failed > 0`` and no score (NaN; it cannot be best), and one
:class:`FitFailedWarning` sums the failures up.  ``on_error="raise"`` re-raises
the first error instead.  Warnings raised inside the fits are collected in the
workers and re-emitted once per category in the calling process (with the count
of fits that raised them), so the same warnings appear whatever ``n_jobs`` is.
"""
from __future__ import annotations

import inspect
import warnings
from typing import Callable

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.grid import check_names, grid_points, ineffective_parameters
from ._criterion import Criterion
from .._utils.parallel import capturing, reemit
from ..formula import fold_response
from ._folds import Folds, fixed_seed, kept_cv, make_folds, warn_empty_folds
from ..formula import DesignMatrix
from .._utils.parallel import check_n_jobs, run_tasks
from .._utils.progress import progress_enabled
from .._utils.validation import check_choice, check_scalar, describe, warn
from ..exceptions import (DataError, EmptyFoldWarning, FitFailedWarning,
                          IneffectiveParameterWarning, InvalidArgumentError)
from ._tuned import Tuned, fn_name
from .._utils.call import Settings, records_call, refuse_unused
from ..formula import check_frame, is_dask_frame
from ._ooccvtune import check_out_of_core, cv_tune_out_of_core
from ..results import Section, Summary, keeps_rows, predict_kept
from ._threshold import TuneThresholdResults, ThresholdedResults, tune_threshold
from ._grid_uncertainty import grid_uncertainty, point_intervals
from ..inference import check_level
from .._utils.boundary import public

__all__ = ["cv_tune", "CvTuneResults", "tune_threshold", "TuneThresholdResults", "ThresholdedResults",
           "with_measure",
           "FitFailedWarning", "EmptyFoldWarning"]


# ----------------------------------------------------------------------------- workers

class _ProtocolError(InvalidArgumentError):
    """``model_fn`` broke the model protocol: raised at once, not recorded as a failed fit."""


def _row_weights(weights, data: pd.DataFrame) -> np.ndarray | None:
    """Prior weights given to the fits (a column name or one value per row) per row of data."""
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in data.columns:
            return None            # the model function reports the unknown column itself
        w = pd.to_numeric(data[weights], errors="coerce").to_numpy(dtype=float)
    elif isinstance(weights, pd.Series) and data.index.isin(weights.index).all():
        w = weights.reindex(data.index).to_numpy(dtype=float)
    else:
        w = np.asarray(weights, dtype=float) if np.ndim(weights) == 1 else None
    return w if w is not None and w.shape == (len(data),) else None


def _weighted_counts(fit, formula, test: pd.DataFrame, w: np.ndarray) -> np.ndarray:
    """tp, fp, fn, tn of ``fit``'s classes on ``test`` (numbered 0..k-1), rows weighted by
    ``w`` (times trials)."""
    response = fold_response(formula, test)
    cls = predict_kept(fit, test, type="class")
    rows = cls.index.to_numpy()
    keep = response.observed[rows]
    c = _m.noisy_confusion(response.y[rows][keep], cls.to_numpy(dtype=float)[keep],
                           dependence="independent",
                           sample_weight=(response.w * w)[rows][keep])
    return np.array([c.tp, c.fp, c.fn, c.tn])


def _fit_and_count(model_fn, formula, design: DesignMatrix, train, test, params,
                   fixed) -> np.ndarray:
    kwargs = {**params, **fixed}
    data = design.data
    w = _row_weights(kwargs.get("weights"), data)
    if w is not None and not isinstance(kwargs["weights"], str):
        kwargs["weights"] = w[train]       # array weights belong to the rows: the fold's share
    # the fold's rows carry the design built once (DesignRows): no rebuild in the fit
    fit = model_fn(formula, design.subset(train), **kwargs)
    if not callable(getattr(fit, "confusion", None)):
        raise _ProtocolError(
            f"`model_fn` ({fn_name(model_fn)}) must return a fitted model with confusion() and "
            f"predict() methods; it returned {describe(fit)} for the grid point {params}.")
    if w is not None:   # held-out rows count with their prior weights, as measure() does
        return _weighted_counts(fit, formula, design.subset(test, reset_index=True), w[test])
    c = fit.confusion(design.subset(test))
    return np.array([c.tp, c.fp, c.fn, c.tn])


def _cv_task(model_fn, formula, design, train, test, params, fixed):
    return capturing(_fit_and_count, model_fn, formula, design, train, test, params, fixed)


# ----------------------------------------------------------------------------- cv_tune
class with_measure:  # lower case: used like a function, with_measure(fsvm, alpha=0.3)
    """``model_fn`` with its own F-measure bound, for :func:`fmstats.cv_tune`.

    ``cv_tune``'s ``alpha``/``beta``/``measure`` choose the *criterion*, so a model's
    own F-measure argument (the F that ``fmaxent`` or the F-measure SVM maximises, the
    F a model reports) cannot be passed through its ``**fixed``.  ``with_measure(fsvm, alpha=0.3)``
    is a picklable callable (it works with every joblib backend) that calls
    ``fsvm(formula, data, measure=FMeasure(alpha=0.3), **params)``::

        cv_tune(with_measure(fsvm, alpha=0.3), "y ~ x1 + x2", train, {"a": [1, 10]},
                alpha=0.3)

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fmaxent_03 = fm.with_measure(fm.fmaxent, alpha=0.3)
    >>> fmaxent_03
    with_measure(fmaxent, alpha=0.3)
    >>> tuned = fm.cv_tune(fmaxent_03, "survived ~ C(pclass) + sex + age", titanic,
    ...                    {"shrinkage": [1e-4, 1.0]}, cv=3, random_state=0)
    >>> tuned.best_params, round(tuned.best_score, 3)
    ({'shrinkage': 0.0001}, 0.728)
    """

    def __init__(self, model_fn, measure=None, *, beta=None, alpha=None):
        if not callable(model_fn):
            raise InvalidArgumentError(f"`model_fn` must be a model function such as "
                                       f"fmstats.fmaxent; got {describe(model_fn)}.")
        self.model_fn = model_fn
        self.measure = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
        self.__name__ = getattr(model_fn, "__name__", type(model_fn).__name__)

    def __call__(self, formula, data, **params):
        return self.model_fn(formula, data, measure=self.measure, **params)

    @property
    def __signature__(self) -> inspect.Signature:
        """The model's signature without its measure arguments (so that ``cv_tune``
        checks grid names against the model's own parameters)."""
        sig = inspect.signature(self.model_fn)
        return sig.replace(parameters=[p for p in sig.parameters.values()
                                       if p.name not in ("measure", "beta", "alpha")])

    def __repr__(self) -> str:
        return f"with_measure({self.__name__}, alpha={self.measure.alpha:.4g})"


@records_call(rows=("weights", "cv"))
def cv_tune(model_fn: Callable, formula: str, data: pd.DataFrame, grid, *, cv=5,
            repeats: int = 1, measure=None, beta=None, alpha=None, pooling: str = "tp_fp",
            refit: bool = True, on_error: str = "record", n_jobs=None, random_state=None,
            progress=None, reuse_design: bool = True, ci: bool = False, B: int = 100,
            level: float = 0.95, replicates: str = "kstep", _call=None,
            **fixed) -> "CvTuneResults":
    """Choose a model's parameters by cross-validated F (or accuracy).

    Parameters
    ----------
    model_fn : callable
        ``model_fn(formula, train_data, **params, **fixed)`` returning a results
        object with ``confusion(newdata)``, e.g. ``fmstats.maxent``.  A module-level
        function keeps the results picklable and works with every joblib backend.
    formula : str
        The model's formula.
    data : DataFrame or dask.dataframe.DataFrame
        The data the model is tuned on.  A Dask DataFrame is tuned out of core, for model
        functions that fit one (maxent, umaxent, fmaxent) and an integer ``cv``: the same
        table as in memory on the same folds (``_ooccvtune.py``; *Data larger than memory*).
    grid : dict of lists, list of dicts or DataFrame
        A dict of lists (their Cartesian product), a list of dicts (explicit
        points, e.g. a lower-triangular (C+, C-) grid), or a DataFrame (one
        point per row; NaN cells are left out of that point).  Names are checked
        against ``model_fn``'s signature unless it takes ``**kwargs``.
    cv : int, splitter or iterable of (train, test) positions, default 5
        An int k gives stratified k-fold splits on the response, shuffled with
        ``random_state``; a scikit-learn-style splitter (``split(X, y)``, called
        with the 0/1 strata as y) or explicit index pairs are used as given.
        Every grid point uses the same splits.  The design is built once on all rows and
        every fold fit and held-out prediction takes its rows (identical to rebuilding it
        per fold); a formula with a stateful transform (``center``, ``scale``, ``poly``,
        splines) is rebuilt per fold, as R would (``summary()`` says which).
    repeats : int, default 1
        Repeated stratified k-fold (integer ``cv`` only): ``repeats * k`` splits.
    measure, beta, alpha : FMeasure, str or float, optional
        The criterion: an :class:`~fmstats.measures.FMeasure`
        (or ``beta=``/``alpha=``; default F1) or ``measure="accuracy"`` (then
        ``beta``/``alpha`` choose the F reported beside it).
    pooling : {"tp_fp", "mean"}, default "tp_fp"
        ``"tp_fp"`` (average TP, FP, FN over folds, then the measure) or
        ``"mean"`` (mean of the fold values).
    refit : bool, default True
        Refit the best point on all of ``data`` (``best_model``).
    on_error : {"record", "raise"}, default "record"
        ``"record"`` failed fits (see the module notes) or ``"raise"`` the first error.
    n_jobs : int, optional
        Parallel (grid point x fold) fits through joblib (``None``: joblib's default, one
        process unless configured).
    random_state : int, SeedSequence or Generator, optional
        Seeds the folds of integer ``cv``.
    progress : bool, optional
        A tqdm progress bar (default: only in interactive sessions).
    reuse_design : bool, default True
        Build the design of ``data`` once and refit every fold on its rows (the same
        numbers as rebuilding it, faster).  ``False`` rebuilds the design from the formula
        on every fold, as R's ``update()`` on a fold would.
    ci : bool, default False
        Also say how sure the selection is (``_grid_uncertainty.py``):
        ``tidy()`` gains every point's delta-method interval of its CV F (``f_low``,
        ``f_high``; with repeats the spread across repeats, ``repeat_sd``) and how often it is
        chosen when the whole selection is rerun on ``B`` bootstrap replicates
        (``selected``); ``f_corrected`` and ``f_corrected_ci`` are the F of the whole
        selection on new rows by nested cross-validation.  Costs ``B`` grid searches.
    B : int, default 100
        Bootstrap replicates of the whole selection (with ``ci``; refused without it); at
        least 20.
    level : float, default 0.95
        The level of the intervals (with ``ci``; refused without it).
    replicates : {"kstep", "full"}, default "kstep"
        With ``ci``, when every grid point's fit is a maxent-family fit that keeps its design:
        the replicates' and outer folds' fits are k-step refits from each point's fit on its
        own design, all at once (``fmstats/maxent_models/_refits.py``), or ``"full"`` refits
        iterated to convergence; other models refit through ``model_fn``.
    **fixed
        Further arguments passed to every fit.  Prior ``weights`` (a column name,
        or one value per row of ``data``, which each fold fit gets its share of) also
        weight the held-out rows, as ``measure()`` weights a model's training rows: with
        frequency weights the criterion equals that of the data with duplicated rows.

    Returns
    -------
    CvTuneResults

    Notes
    -----
    Ties: grid points whose criterion lies within ``fmstats.measures.TIE_RTOL`` (1e-12,
    relative) of the best are tied, and the first in grid order wins -- fmstats' one tie rule
    (:func:`fmstats.measures.best_position`), which :func:`tune_threshold` applies to its
    thresholds listed from the highest.  Grid points that differ only in a parameter and
    give identical held-out counts in every fold are reported by an
    :class:`~fmstats.exceptions.IneffectiveParameterWarning` (the parameter made no
    difference, e.g. fmaxent's ``epsilon`` with 0/1 labels).

    A model function may fit the whole grid itself: if it has a method
    ``cv_counts(formula, design, points, pairs, fixed, *, n_jobs, progress)`` (``design``:
    the :class:`~fmstats.formula.DesignMatrix` of ``data``), that is
    called instead of one fit per (grid point, fold), and must return, for every
    (point, fold) in point-major order, what a single fit's task returns: the counts
    (tp, fp, fn, tn) or None, the FmstatsError or None, and the list of caught
    (warning category, message) pairs (:func:`fmstats.svm.tune_wsvm` uses this to
    solve the whole grid of a fold as one batched QP on one design).

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> tuned = fm.cv_tune(fm.maxent, "survived ~ C(pclass) + sex + age", titanic,
    ...                    {"threshold": [0.2, 0.5]}, cv=3, random_state=0, beta=2)
    >>> tuned.best_params
    {'threshold': 0.2}
    >>> print(tuned.tidy()[["threshold", "f", "rank"]].round(3).to_string(index=False))
     threshold     f  rank
           0.2 0.779     1
           0.5 0.713     2
    """
    if not callable(model_fn):
        raise InvalidArgumentError(f"`model_fn` must be a model function such as fmstats.maxent; "
                                   f"got {describe(model_fn)}.")
    crit = Criterion(measure, beta, alpha, pooling)
    check_choice("on_error", on_error, ("record", "raise"))
    if not ci:
        refuse_unused(_call, ["B", "level"], "without ci=True (they set its intervals)",
                      "set ci=True")
    if ci:
        level = check_level(level)
        check_scalar("B", B, low=20, integer=True)
    check_choice("replicates", replicates, ("kstep", "full"))
    check_n_jobs(n_jobs)
    progress_enabled(progress)
    points = grid_points(grid)
    names = list(dict.fromkeys(k for p in points for k in p))
    check_names(model_fn, names, fixed)
    if is_dask_frame(data):     # the fold fits and held-out counts on the row blocks
        return _cv_tune_out_of_core(model_fn, formula, data, points, names, crit, fixed,
                                    cv=cv, repeats=repeats, ci=ci, reuse_design=reuse_design,
                                    n_jobs=n_jobs, random_state=random_state,
                                    on_error=on_error, progress=progress, call=_call)
    data = check_frame(data, "data")
    # a model with another kind of response (multinom's classes) says how to stratify it
    response = getattr(model_fn, "fold_response", fold_response)(formula, data)
    seed = fixed_seed(random_state)
    folds = make_folds(response, cv, repeats=repeats, random_state=seed)
    warn_empty_folds(folds, response, pooling)

    design = DesignMatrix(formula, data, engine=fixed.get("engine"), reuse=reuse_design)
    batched = getattr(model_fn, "cv_counts", None)
    if callable(batched):   # the model fits the whole grid itself (tune_wsvm's batched QP)
        out = batched(formula, design, points, folds.pairs, fixed, n_jobs=n_jobs,
                      progress=progress)
    else:
        # fold by fold: a fold's frames and design rows then serve all its grid points
        tasks = [(model_fn, formula, design, tr, te, p, fixed) for tr, te in folds.pairs
                 for p in points]
        by_fold = run_tasks(_cv_task, tasks, n_jobs=n_jobs, progress=progress,
                            desc=f"cv_tune: {len(points)} points x {len(folds)} folds")
        out = [by_fold[k * len(points) + g] for g in range(len(points))
               for k in range(len(folds))]       # point-major, as the table reads them
    G, K = len(points), len(folds)
    values, errors, caught = zip(*out)
    counts = np.array([np.full(4, np.nan) if v is None else v for v in values])
    first = next((e for e in errors if e is not None), None)
    protocol = next((e for e in errors if isinstance(e, _ProtocolError)), None)
    if protocol is not None:
        raise protocol
    if first is not None and on_error == "raise":
        raise first
    reemit([w for ws in caught for w in ws], G * K, "fold fits of cv_tune")
    settings = Settings.of(_call, grid=points, names=names, cv=kept_cv(cv), measure=crit,
                           random_state=seed, fixed=fixed, design_note=design.note, ci=bool(ci))
    uncertainty = None
    if ci:
        if kept_cv(cv) is None:
            raise InvalidArgumentError("`ci`=True reruns the selection on resampled rows, which "
                                       "needs folds for other rows: an integer `cv` or a "
                                       "splitter, not explicit (train, test) pairs.")
        w = _row_weights(fixed.get("weights"), data)
        prior = np.ones(len(data)) if w is None else w
        uncertainty = grid_uncertainty(_fit_and_count, model_fn, formula, design, points, fixed,
                                       prior, crit, cv, seed, B=int(B), level=level,
                                       n_jobs=n_jobs, progress=progress, replicates=replicates)
    res = CvTuneResults._build(settings, _call, names, folds, counts.reshape(G, K, 4), errors,
                               data, uncertainty)
    return _warn_failed(res, errors)


def _warn_failed(res: "CvTuneResults", errors) -> "CvTuneResults":
    """``res``, after one :class:`FitFailedWarning` summing up the failed fold fits."""
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        n_bad = int(sum(e is not None for e in errors))
        G = len(res.tidy())
        warn(f"{n_bad} of {len(errors)} fold fits failed, in "
             f"{int((res.tidy()['n_failed'] > 0).sum())} of {G} grid points (they get no score; "
             f"see fold_results): the first error: {type(first).__name__}: {first}",
             FitFailedWarning)
    return res


def _cv_tune_out_of_core(model_fn, formula, data, points, names, crit, fixed, *, cv, repeats,
                         ci, reuse_design, n_jobs, random_state, on_error, progress, call):
    """:func:`cv_tune` of a Dask DataFrame (``_ooccvtune.py``)."""
    k = check_out_of_core(model_fn, cv=cv, repeats=repeats, ci=ci, reuse_design=reuse_design,
                          n_jobs=n_jobs)
    seed = fixed_seed(random_state)
    found = cv_tune_out_of_core(model_fn, formula, data, points, fixed, k=k, seed=seed,
                                pooling=crit.pooling, on_error=on_error, progress=progress)
    settings = Settings.of(call, grid=points, names=names, cv=k, measure=crit,
                           random_state=seed, fixed=fixed, design_note=found.note, ci=False)
    res = CvTuneResults._build(settings, call, names, found.folds, found.counts,
                               found.errors, data, fits=found.fits, n_rows=found.n_rows)
    return _warn_failed(res, found.errors)


class CvTuneResults(Tuned):
    """The grid table, the best parameters and the refitted best model of :func:`cv_tune`.

    It is itself a model: ``predict``, ``confusion``, ``measure`` use ``best_model``
    and ``refit(data)`` reruns the whole tuning on new data.  Built by :func:`cv_tune`, not
    constructed directly.

    Parameters
    ----------
    settings : Settings
        The recorded arguments of the :func:`cv_tune` call (model function, formula, grid,
        cv, criterion, seed...).
    table : DataFrame
        The grid table returned by :meth:`tidy`.
    fold_results : DataFrame
        One row per (grid point, fold): counts, fold value, error.
    folds : Folds
        The (train, test) splits every grid point was scored on.
    best_index : int
        The row of ``tidy()`` with the best criterion.
    best_model : object or None
        The model refitted on all data with ``best_params`` (None if ``refit=False``).
    call : ModelCall
        The recorded :func:`cv_tune` call, rerun by :meth:`refit`.
    n_rows : int
        The number of rows of the tuning data.
    uncertainty : GridUncertainty, optional
        What ``ci=True`` measured (selection frequencies, ``f_corrected``...), or None.

    Attributes
    ----------
    best_params : dict
        The best grid point.
    best_score : float
        The criterion at the best grid point.
    best_index : int
        The row of ``tidy()`` of the best grid point.
    best_model : object or None
        The model refitted on all data with ``best_params`` (None if ``refit=False``).
    folds : tuple
        The (train, test) position arrays, usable as ``cv=`` elsewhere.
    fold_results : DataFrame
        One row per (grid point, fold): counts, fold value, error.
    criterion : str
        The column of ``tidy()`` that was maximised ("f" or "accuracy").
    """

    def __init__(self, *, settings: Settings, table: pd.DataFrame, fold_results: pd.DataFrame,
                 folds: Folds, best_index: int, best_model, call, n_rows: int,
                 uncertainty=None):
        self.settings = settings
        #: what ``ci=True`` measured (:class:`GridUncertainty`), or None
        self.uncertainty = uncertainty
        self._table = table
        self.fold_results = fold_results
        self._folds = folds
        self.best_index = best_index
        self.best_model = best_model
        self.call = call
        self.n_rows = n_rows

    @property
    def fitted_model(self):
        """The best model refitted on all rows (these results themselves without it)."""
        return self.best_model or self

    @classmethod
    def _build(cls, spec, call, names, folds, counts, errors, data, uncertainty=None, *,
               fits=None, n_rows=None) -> "CvTuneResults":
        """The results of the fold ``counts`` (G, K, 4); ``fits``: every point's fit on all
        rows when the tuning made them (out of core), the best one kept as ``best_model``."""
        crit: Criterion = spec["measure"]
        G, K, _ = counts.shape
        fold_vals = crit.per_fold(counts)
        failed = np.isnan(counts[..., 0])
        ok = ~failed.any(axis=1)
        # the table is built from one dict of columns: assigning 14 columns one by one cost
        # more than the whole grid of a small tuning problem
        cols = {n: [p.get(n, np.nan) for p in spec["grid"]] for n in names}
        pooled = crit.summarise(np.nan_to_num(np.moveaxis(counts, 1, 0)))
        for col in ("f", "precision", "recall", "accuracy"):
            cols[col] = np.where(ok, pooled[col], np.nan)
        vals = np.where(failed, np.nan, fold_vals)
        n_ok = (~failed).sum(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: NaN, as documented
            cols["fold_mean"] = np.nanmean(vals, axis=1)
            cols["fold_sd"] = np.where(n_ok > 1, np.nanstd(vals, axis=1, ddof=1), np.nan)
            cols["fold_min"] = np.nanmin(vals, axis=1)
            cols["fold_max"] = np.nanmax(vals, axis=1)
        cols["n_folds"] = np.full(G, K)
        cols["n_failed"] = K - n_ok
        table = pd.DataFrame(cols)
        score = table[crit.column].to_numpy(dtype=float)
        if np.isnan(score).all():
            first = next(e for e in errors if e is not None)
            raise DataError(f"every grid point failed on at least one fold, so none can be "
                            f"chosen; the first error: {type(first).__name__}: {first}")
        table["rank"] = pd.Series(score).rank(ascending=False, method="min").astype("Int64")
        if uncertainty is not None:
            for col, v in point_intervals(counts, folds.repeat, crit, uncertainty.level).items():
                table[col] = np.where(ok, v, np.nan)
            table["selected"] = uncertainty.frequency(G)
        best = _m.best_position(score)     # ties (to TIE_RTOL): the first in grid order
        idle = ineffective_parameters(spec["grid"], list(names), counts)
        if idle:
            warn(f"cv_tune: grid points that differ only in {', '.join(map(repr, idle))} gave "
                 "identical held-out counts in every fold: those values made no difference on "
                 "these data (a parameter the model does not use here, e.g. fmaxent's epsilon "
                 "with 0/1 labels, or values too close to matter); ties go to the first point "
                 "in grid order. Drop or widen them to save the fits.",
                 IneffectiveParameterWarning)
        flat = counts.reshape(G * K, 4)
        fr = pd.DataFrame({"point": np.repeat(np.arange(G), K),
                           "repeat": np.tile(folds.repeat, G), "fold": np.tile(folds.fold, G),
                           "tp": flat[:, 0], "fp": flat[:, 1], "fn": flat[:, 2], "tn": flat[:, 3],
                           crit.column: fold_vals.reshape(-1),
                           "error": [None if e is None else f"{type(e).__name__}: {e}"
                                     for e in errors]})
        best_model = None
        if spec["refit"]:
            best_model = fits[best] if fits is not None else \
                spec["model_fn"](spec["formula"], data, **spec["grid"][best], **spec["fixed"])
        return cls(settings=spec, table=table, fold_results=fr, folds=folds, best_index=best,
                   best_model=best_model, call=call,
                   n_rows=len(data) if n_rows is None else n_rows, uncertainty=uncertainty)

    # ------------------------------------------------------------------ results
    @property
    def criterion(self) -> str:
        """The column of :meth:`tidy` the tuning maximised (``"f"`` or ``"accuracy"``)."""
        return self.settings["measure"].column

    @property
    def param_names(self) -> list:
        """The names of the tuned parameters, in the grid's order."""
        return list(self.settings["names"])

    @property
    def best_params(self) -> dict:
        """The grid point with the best cross-validated criterion."""
        return dict(self.settings["grid"][self.best_index])

    @property
    def best_score(self) -> float:
        """The cross-validated criterion at :attr:`best_params`."""
        return float(self._table[self.criterion].iloc[self.best_index])

    def tidy(self) -> pd.DataFrame:
        """One row per grid point: parameters, f, precision, recall, accuracy (pooled as
        chosen; precision and recall always from the pooled counts), fold_mean, fold_sd,
        fold_min, fold_max of the criterion over folds, n_folds, n_failed, rank; with
        ``ci=True`` also f_se, f_low, f_high (the delta-method interval of the CV F),
        repeat_sd (with repeats) and selected (how often the point is chosen in bootstrap
        replicates of the whole selection).

        Returns
        -------
        pandas.DataFrame
            The grid table described above.
        """
        return self._table.copy()

    # ------------------------------------------------------------------ the model protocol
    def _model(self):
        if self.best_model is None:
            raise InvalidArgumentError(
                "this CvTuneResults was made with refit=False, so it has no best_model; "
                "rerun cv_tune(..., refit=True) or fit the model with best_params.")
        return self.best_model

    @keeps_rows
    def predict(self, newdata=None, type: str = "response", **kwargs):
        """Predictions of ``best_model`` (see its ``predict``).

        Parameters
        ----------
        newdata : DataFrame, optional
            The rows to predict (default: the data ``best_model`` was fitted on).
        type : str, default "response"
            The kind of prediction, as ``best_model.predict`` takes it.
        **kwargs
            Further arguments of ``best_model.predict``.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series or pandas.DataFrame
            What ``best_model.predict`` returns.
        """
        return predict_kept(self._model(), newdata, type=type, **kwargs)

    def _class_rows(self, newdata=None, **kwargs):
        """The rows ``best_model`` counts (the hook of :func:`fmstats.compare`)."""
        return self._model()._class_rows(newdata, **kwargs)

    def confusion(self, newdata=None, **kwargs):
        """Confusion counts of ``best_model`` on ``newdata``.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the data ``best_model`` was fitted on).
        **kwargs
            Further arguments of ``best_model.confusion``.

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
        """
        return self._model().confusion(newdata, **kwargs)

    def measure(self, newdata=None, measure=None, **kwargs) -> float:
        """``best_model.measure(newdata, ...)``; the tuned F-measure by default.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the data ``best_model`` was fitted on).
        measure : FMeasure, optional
            The F-measure (default: the tuned one, unless ``kwargs`` are given).
        **kwargs
            Further arguments of ``best_model.measure`` (e.g. ``beta``, ``alpha``).

        Returns
        -------
        float
            The measure's value.
        """
        if measure is None and not kwargs:
            measure = self.fmeasure
        return self._model().measure(newdata, measure=measure, **kwargs)

    def refit(self, data: pd.DataFrame, *, n_jobs=1, progress=False) -> "CvTuneResults":
        """Rerun the whole tuning (same grid, cv, measure, seed) on ``data``.

        Explicit (train, test) splits belong to the old rows and cannot be reused.

        Parameters
        ----------
        data : DataFrame
            The new data.
        n_jobs : int, default 1
            Parallel fits through joblib, as in :func:`cv_tune`.
        progress : bool, default False
            A tqdm progress bar.

        Returns
        -------
        CvTuneResults
            The tuning rerun on ``data``.
        """
        return self._rerun(data, "cv_tune", n_jobs=n_jobs, progress=progress)

    # ------------------------------------------------------------------ reporting
    @public
    def summary(self, top: int = 10) -> Summary:
        """The criterion, the folds, the best point and the ``top`` grid points.

        Parameters
        ----------
        top : int, default 10
            How many grid points (best first) the grid table shows.

        Returns
        -------
        Summary
            The printable summary.
        """
        crit: Criterion = self.settings["measure"]
        t = self._table
        b = t.iloc[self.best_index]
        col = crit.column
        lines = [("Measure", crit.text(len(self._folds))),
                 ("Folds", f"{self._folds.description}; the same splits for every grid point"
                           f" (random_state = {self.settings['random_state']})"),
                 ("Design", self.settings.get("design_note") or "rebuilt for every fold"),
                 ("Grid", f"{len(t)} points over {', '.join(self.param_names) or '(none)'}; "
                          f"{int((t['n_failed'] > 0).sum())} with failed fits")]
        best = [(k, v) for k, v in self.best_params.items()] or ["(no parameters)"]
        best.append((f"CV {crit.name}", float(b[col])))
        best.append(f"  precision {b['precision']:.4f}, recall {b['recall']:.4f} (pooled counts); "
                    f"fold {crit.name} mean {b['fold_mean']:.4f}, sd {b['fold_sd']:.4f}, range "
                    f"[{b['fold_min']:.4f}, {b['fold_max']:.4f}]")
        best.append(("Refitted on all rows", f"yes ({self.n_rows} rows)" if self.best_model
                     is not None else "no (refit=False)"))
        u = self.uncertainty
        if u is not None:
            lv = f"{100 * u.level:g}%"
            best.append((f"CV {crit.name} {lv} CI (delta)",
                         f"[{b['f_low']:.4f}, {b['f_high']:.4f}]"))
            best.append(("Chosen in bootstrap replicates of the selection",
                         f"{b['selected']:.0%} of {u.B}"))
            best.append((f"f_corrected ({crit.name} of the whole selection on new data, "
                         "nested CV)", u.f_corrected))
            best.append(f"  {lv} CI [{u.f_corrected_ci[0]:.4f}, {u.f_corrected_ci[1]:.4f}]; "
                        f"optimism of the best CV F {float(b[col]) - u.f_corrected:+.4f}")
        shown = t.sort_values(["rank"]).head(top).reset_index(drop=True)
        shown = shown[self.param_names + ["f", "precision", "recall", "accuracy", "fold_sd",
                                          "n_failed"]]
        for c in ("f", "precision", "recall", "accuracy", "fold_sd"):
            shown[c] = [f"{v:.4f}" for v in shown[c]]
        sections = [Section("Cross-validation:", lines), Section("Best point:", best),
                    Section(f"Grid (best {len(shown)} of {len(t)} by CV {crit.name}):", [],
                            table=shown)]
        return Summary(title=f"Cross-validated tuning of {fn_name(self.settings['model_fn'])}",
                       call=str(self.call), sections=sections)

    def plot(self, x: str | None = None, y: str | None = None, ax=None):
        """F (the criterion) over one parameter, or a heat map over two.

        With more than two varying parameters, name ``x`` (and ``y``): the plot is
        the slice through the best point (the other parameters at their best values).

        Parameters
        ----------
        x, y : str, optional
            The grid parameters on the horizontal (and vertical) axis (default: the
            varying parameters, when there are at most two).
        ax : matplotlib Axes, optional
            The axes to draw on (default: a new figure).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ..plotting import new_axes, powers_of_two, finish_figure, scale_label, tick_labels

        t, crit = self._table, self.settings["measure"]
        varying = [n for n in self.param_names if t[n].nunique(dropna=False) > 1]
        axes_names = [n for n in (x, y) if n is not None]
        for n in axes_names:
            if n not in self.param_names:
                raise InvalidArgumentError(
                    f"`x`/`y` must name grid parameters ({', '.join(self.param_names)}); "
                    f"got {n!r}.")
        if not axes_names:
            if len(varying) > 2:
                raise InvalidArgumentError(
                    f"the grid varies {len(varying)} parameters ({', '.join(varying)}); name one "
                    "or two of them as x= and y= (the others are held at their best values).")
            axes_names = varying or self.param_names[:1]
        if not axes_names:
            raise InvalidArgumentError("the grid has no parameters to plot.")
        best = t.iloc[self.best_index]
        keep = np.ones(len(t), dtype=bool)
        for n in self.param_names:
            if n not in axes_names:
                keep &= (t[n] == best[n]).to_numpy() | (t[n].isna() & pd.isna(best[n])).to_numpy()
        part = t[keep]
        fig, ax = new_axes(ax)
        label = f"CV {crit.name} ({crit.pooling})"
        if len(axes_names) == 1:
            n = axes_names[0]
            part = part.sort_values(n)
            xs = part[n].astype(str) if not pd.api.types.is_numeric_dtype(part[n]) else part[n]
            ax.plot(xs, part[crit.column], marker="o", label=label)
            if "f_low" in part and crit.column == "f":
                ax.fill_between(xs, part["f_low"], part["f_high"], alpha=0.2,
                                label=f"{100 * self.uncertainty.level:g}% interval (delta)")
            else:
                ax.fill_between(xs, part["fold_min"], part["fold_max"], alpha=0.2,
                                label="range over folds")
            vals = part[n].to_numpy()
            numeric = pd.api.types.is_numeric_dtype(part[n])
            if numeric and powers_of_two(vals):
                ax.set_xscale("log", base=2)
            elif numeric and vals.min() > 0 and vals.max() / vals.min() >= 100:
                ax.set_xscale("log")
            ax.axvline(best[n] if numeric else str(best[n]),
                       color="grey", linestyle=":", label="best")
            ax.set_xlabel(scale_label(n, vals if numeric else None, ax.get_xscale()))
            ax.set_ylabel(label)
            ax.set_title(f"{label} over {n}", fontsize="medium")
            ax.legend(fontsize="small")
        else:
            grid = part.pivot_table(index=axes_names[1], columns=axes_names[0],
                                    values=crit.column, aggfunc="mean", dropna=False)
            im = ax.imshow(grid.to_numpy(dtype=float), origin="lower", aspect="auto",
                           cmap="viridis")
            ax.set_xticks(range(grid.shape[1]), tick_labels(grid.columns),
                          rotation=45 if grid.shape[1] > 6 else 0)
            ax.set_yticks(range(grid.shape[0]), tick_labels(grid.index))
            ax.plot(list(grid.columns).index(best[axes_names[0]]),
                    list(grid.index).index(best[axes_names[1]]), "r*", markersize=12,
                    label="best")
            ax.set_xlabel(scale_label(axes_names[0], list(grid.columns)))
            ax.set_ylabel(scale_label(axes_names[1], list(grid.index)))
            ax.set_title(f"{label} over the grid (red star: best)", fontsize="medium")
            fig.colorbar(im, ax=ax, label=label)
        return finish_figure(fig)

    def __repr__(self) -> str:
        return (f"<CvTuneResults {fn_name(self.settings['model_fn'])}: {len(self._table)} points x "
                f"{len(self._folds)} folds, best {self.best_params} with CV "
                f"{self.settings['measure'].name} = {self.best_score:.4f}>")
