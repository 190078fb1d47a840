"""The cross-validated decision threshold of a fitted model: :func:`tune_threshold`.

Split from ``_cv_tune.py`` (which re-exports it); the criterion, folds and failure
handling are those of :func:`fmstats.cv_tune` (see that module's notes).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._criterion import Criterion
from ..formula import fold_response
from ._folds import fixed_seed, kept_cv, make_folds, warn_empty_folds
from .._utils.parallel import check_n_jobs
from .._utils.progress import progress_enabled
from ..results import (array_weights, kept_design_frame, kept_rows, require_protocol, rows_of,
                       training_design, training_frame)
from ._search import best_row, cv_threshold, held_frame, midpoint, scores, threshold_curve
from ._oocthreshold import tune_out_of_core
from ._thresholded import (BlockThresholdedResults, TuneThresholdResults, ThresholdedResults,
                           row_weights)
from ._uncertainty import tuning_uncertainty, warn_trivial
from ._constrained import check_constraint, constrained_best
from .._utils.call import Settings, records_call, refuse_unused
from .._utils.validation import check_choice
from ..exceptions import FmstatsError, InvalidArgumentError
from ..formula import KeptDesign, check_frame
from ..inference import check_B, check_level
from ..results import ModelResults, ScoreCurves

__all__ = ["tune_threshold", "TuneThresholdResults", "ThresholdedResults",
           "BlockThresholdedResults"]


_TYPES = ("response", "decision", "link")
#: ``design_note`` of a tuning whose folds were refitted on the fit's own design.
KEPT_DESIGN = "the fit's own design; fold refits take its rows (none built)"


def _score_type(results, data: pd.DataFrame, score_type) -> str:
    """Resolve ``type`` (scoring rows only for a model of unknown kind).

    The default is the model's own score: the score-curve hook ``_score_type`` of
    fmstats models (probabilities for the maxent family, decision values for the SVMs,
    whose ``"response"`` is the class); for other models the first of probabilities and
    decision values that ``predict`` gives, passing over a ``"response"`` that is only
    0/1 classes when decision values exist.  A ``type`` whose values are classes
    (``type="response"`` of an SVM) raises: thresholding classes tunes nothing.
    """
    own = results._score_type if isinstance(results, ScoreCurves) else _UNKNOWN
    if own is None:
        raise InvalidArgumentError(
            f"{type(results).__name__} has no scores (probabilities or decision values) to "
            "threshold, so tune_threshold() cannot tune it.")
    if score_type is not None:
        check_choice("type", score_type, _TYPES)
        if own == "decision" and score_type == "response":
            raise InvalidArgumentError(
                f"`type`: predict(type='response') of {type(results).__name__} is the class "
                "(0/1: it has no probabilities), and thresholding classes cannot tune "
                "anything; use type='decision' (its decision values, the default).")
        return score_type
    if own is not _UNKNOWN:
        return own
    errors = []
    for candidate in ("response", "decision"):
        try:
            s = scores(results, data, candidate)
        except FmstatsError as exc:
            errors.append(exc)
            continue
        if candidate == "response" and np.isin(s.to_numpy(dtype=float), (0.0, 1.0)).all():
            try:   # classes, not scores: decision values if the model has them
                scores(results, data, "decision")
                return "decision"
            except FmstatsError:
                pass
        return candidate
    raise errors[0]


_UNKNOWN = object()


@records_call(rows=("cv",))
def tune_threshold(results, data: pd.DataFrame | None = None, *, cv=5, repeats: int = 1,
                   measure=None, beta=None, alpha=None, pooling: str = "tp_fp",
                   refit_folds: bool = True, type: str | None = None, random_state=None,
                   n_jobs=None, progress=None, reuse_design: bool = True, ci: bool = False,
                   B: int = 200, level: float = 0.95, constraint=None,
                   maximize: str | None = None, replicates: str = "kstep",
                   _call=None) -> "TuneThresholdResults":
    """The decision threshold that maximises the cross-validated F of a fitted model.

    The model is refitted on each training fold (``results.refit``), its scores on
    the held-out fold are pooled, and the criterion is evaluated at every cut of
    the pooled scores at once (one sort and cumulative sums per fold): the search
    is exact, not on a grid.  The tuned threshold is the midpoint between the
    lowest score classed positive and the highest classed negative; among equal
    criterion values the highest threshold (fewest positives) wins.  That is fmstats' one tie
    rule (:func:`fmstats.measures.best_position`): values within ``TIE_RTOL`` (1e-12,
    relative) of the best are tied and the first candidate wins -- here the thresholds are
    listed from the highest, in :func:`cv_tune` the grid points in the order given.

    Parameters
    ----------
    results : ModelResults
        A fitted model (the protocol's ``refit``, ``predict``), fitted on ``data``.
    data : DataFrame, optional
        Its training data; default the rows the fit kept (its design, response and weights:
        every in-memory fit keeps them unless ``keep_data=False``), as every function that
        refits does (user guide, *Refits without data=*).
    cv : int, splitter or iterable of (train, test) positions, default 5
        The folds, as in :func:`cv_tune`.
    repeats : int, default 1
        Repeated stratified k-fold (integer ``cv`` only), as in :func:`cv_tune`.
    measure, beta, alpha : FMeasure, str or float, optional
        The criterion, as in :func:`cv_tune` (default F1).
    pooling : {"tp_fp", "mean"}, default "tp_fp"
        How the folds are pooled, as in :func:`cv_tune`.
    refit_folds : bool, default True
        ``False`` scores the rows with ``results`` itself (fitted on all
        rows: no refits, but optimistic); the folds then only matter for
        ``pooling="mean"``.
    type : {"response", "decision"}, optional
        The score thresholded: ``"response"`` (probabilities) or ``"decision"``;
        default the model's own score: probabilities for the maxent family, decision
        values for models without probabilities (``wsvm``, ``fsvm``, whose
        ``"response"`` is the class and is refused).
    random_state : int, SeedSequence or Generator, optional
        Seeds the folds of integer ``cv``, as in :func:`cv_tune`.
    n_jobs : int, optional
        Parallel fold refits through joblib (``None``: joblib's default, one process
        unless configured).
    progress : bool, optional
        A tqdm progress bar (default: only in interactive sessions).
    reuse_design : bool, default True
        Build the design of ``data`` once and refit every fold on its rows (the same
        numbers as rebuilding it, faster).  ``False`` rebuilds the design from the formula
        on every fold, as R's ``update()`` on a fold would.
    ci : bool, default False
        Also say how sure the tuning is (``_uncertainty.py``):
        ``threshold_ci`` from ``B`` case-bootstrap replicates of the whole tuning (the model
        refitted and its threshold retuned on every replicate), ``f_corrected`` -- the F the
        tuned rule is expected to have on new data, corrected for the optimism of choosing
        the threshold on the same held-out scores (nested cross-validation of the whole
        tuning; chosen over ``.632+`` by simulation, ``benchmarks/inference/bench_f_intervals.py``
        part b: bias within +-0.01 in eight of nine settings, where the CV F at the tuned
        threshold was up to 0.11 too high) -- with ``f_corrected_ci``, and a band on the CV F curve
        (``plot()``).
    B : int, default 200
        Bootstrap replicates of the whole tuning (with ``ci``; refused without it); at least
        100, and at least 5 in each tail of the threshold's interval (200 at ``level`` 0.95).
    level : float, default 0.95
        The level of the intervals (with ``ci``; refused without it).
    constraint : tuple (quantity, op, value), optional
        A constrained threshold: ``("precision", ">=", 0.9)`` keeps only the cuts whose
        pooled held-out precision is at least 0.9 (quantities ``"precision"``, ``"recall"``,
        ``"specificity"``, ``"positive_rate"``; ``">="`` or ``"<="``; a value in [0, 1])
        and maximises the criterion (or ``maximize``) among them, by the same exact search.
        When no cut meets it, a :class:`~fmstats.exceptions.ConstraintWarning` says so and
        the closest cut is used.  ``constraint_probability()`` of the result estimates how
        often the constraint holds on new data.
    maximize : {"precision", "recall", "specificity", "positive_rate"}, optional
        With ``constraint``: the quantity to maximise instead of the criterion (e.g. recall
        subject to precision >= 0.9).
    replicates : {"kstep", "full"}, default "kstep"
        With ``ci`` on a maxent-family fit that keeps its design: the replicates' and outer
        folds' fits are k-step refits from the fit's solution on its own design, all at once
        (``fmstats/maxent_models/_refits.py``; the replicates' thresholds equal full refits'
        to ~1e-5), or ``"full"`` refits iterated to convergence.  Other models refit through
        ``results.refit``.

    Returns
    -------
    TuneThresholdResults

    Warns
    -----
    TrivialRuleWarning
        When the tuned rule classes every training row alike (all positive or all negative).
    UnstableThresholdWarning
        With ``ci``: when the threshold's interval spans most of the score range.

    Notes
    -----
    The design of ``data`` is built once; every fold refit and held-out prediction takes its
    rows (``fmstats/formula/_reuse.py``; identical to rebuilding it per fold).  A formula with
    a stateful transform (``center``, ``scale``, ``poly``, splines) is rebuilt per fold, as R
    would; ``design_note`` of the result says which.
    ``data`` is checked against the model as :func:`fmstats.bootstrap` checks it (the
    same rows, response and design; :class:`~fmstats.exceptions.DataError` otherwise).
    Held-out rows count with the model's prior weights (times ``cbind`` trials), and
    array weights are passed to the fold refits, so frequency weights give the
    threshold of the fit on duplicated rows.

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    >>> tuned = fm.tune_threshold(fit, titanic, beta=2, cv=3, random_state=0)
    >>> tuned
    <TuneThresholdResults threshold 0.2893 on response of MaxentResults: CV F2 = 0.7879>
    """
    require_protocol(results, "predict", *(("refit",) if refit_folds else ()))
    crit = Criterion(measure, beta, alpha, pooling)
    if not ci:
        refuse_unused(_call, ["B", "level"], "without ci=True (they set its intervals)",
                      "set ci=True")
    if ci:
        level = check_level(level)
        check_B(B, level)
    check_choice("replicates", replicates, ("kstep", "full"))
    constraint, maximize = check_constraint(constraint, maximize)
    pick = None if constraint is None else \
        (lambda curve: constrained_best(curve, constraint, maximize, crit.column))
    if ci and constraint is not None:
        raise InvalidArgumentError(
            "`ci=True` with `constraint=` is not supported: the intervals retune the "
            "unconstrained rule; for a constrained threshold use the result's "
            "constraint_probability() (how often the constraint holds on new data).")
    check_n_jobs(n_jobs)
    progress_enabled(progress)
    # a fit made out of core tunes on the row blocks of `data`, its Dask DataFrame
    refits = results.row_refits(data) if isinstance(results, ModelResults) else None
    if refits is not None and refits.out_of_core:
        found = tune_out_of_core(results, refits, cv=cv, repeats=repeats, crit=crit,
                                 refit_folds=refit_folds, type=type, ci=ci,
                                 random_state=fixed_seed(random_state), constraint=constraint,
                                 progress=progress)
        return BlockThresholdedResults(
            base=results, data=None, formula=rows_of(results).formula,
            score_type=found.score_type, threshold=found.threshold, curve=found.curve,
            best_index=found.best, cv_scores=None, folds=found.folds, settings=found.settings,
            call=_call, own_counts=found.own_counts, own=found.own, passes=found.passes)
    # a maxent-family fit refits its folds on its own design (its engine: no design built)
    if not (refit_folds and reuse_design):
        refits = None
    rows = rows_of(results)
    formula = rows.formula
    design = None      # the design of the training rows, built once (only when refitting)
    if data is None and not isinstance(rows.training_data, pd.DataFrame):
        # without data: the rows the fit kept (the rule of every function that refits)
        if not reuse_design:
            raise InvalidArgumentError(
                "`reuse_design`=False rebuilds every fold's design from the formula, which "
                "needs `data=` (the DataFrame the model was fitted on).")
        data = kept_rows(results, "tune_threshold()")
        design = KeptDesign(results) if refit_folds and refits is None else None
    elif refits is not None:
        data = kept_design_frame(results, rows.training_data if data is None else data,
                                 what="tune_threshold()")
    else:
        # the rows the model was fitted on, checked as bootstrap() and validate() check them,
        # in the fit's order (so that the prior weights line up); positions index the
        # predictions
        data = rows.training_data if data is None else check_frame(data, "data")
        if refit_folds:
            data, design = training_design(results, data, what="tune_threshold()",
                                           reuse=reuse_design)
        else:
            data = training_frame(results, data, what="tune_threshold()").reset_index(drop=True)
    response = fold_response(formula, data)
    weights = row_weights(results, len(data))
    score_type = _score_type(results, data, type)
    seed = fixed_seed(random_state)
    if ci and not refit_folds:
        raise InvalidArgumentError("`ci`=True bootstraps the whole tuning, refits included; it "
                                   "needs refit_folds=True.")
    if ci and kept_cv(cv) is None:
        raise InvalidArgumentError("`ci`=True reruns the tuning on resampled rows, which needs "
                                   "folds for other rows: an integer `cv` or a splitter, not "
                                   "explicit (train, test) pairs.")
    if refit_folds:
        aw = array_weights(results)
        aw = aw if aw is not None and len(aw) == len(data) else None
        threshold, curve, best, cv_scores, folds = cv_threshold(
            results, design, response, weights, aw, crit, cv, repeats, seed, score_type,
            n_jobs=n_jobs, progress=progress, pick=pick, refits=refits)
    else:
        folds = make_folds(response, cv, repeats=repeats, random_state=seed)
        warn_empty_folds(folds, response, pooling)
        all_scores = scores(results, data, score_type)
        s_all = pd.Series(all_scores.to_numpy(dtype=float), index=all_scores.index.to_numpy())
        held = [(te[np.isin(te, s_all.index)], s_all.reindex(te).dropna().to_numpy())
                for _, te in folds.pairs]
        cv_scores = held_frame(held, response, weights)
        curve = threshold_curve(cv_scores, crit)
        best = best_row(curve, crit.column, pick)
        threshold = midpoint(curve["threshold"].to_numpy(), best)
    warn_trivial(results, data, score_type, threshold)
    uncertainty = None
    if ci:
        uncertainty = tuning_uncertainty(
            results, design, response, weights, crit, cv, repeats, seed, score_type, threshold,
            B=B, level=level, n_jobs=n_jobs, progress=progress,
            naive=float(curve[crit.column].iloc[best]), cv_scores=cv_scores, curve=curve,
            refits=refits, replicates=replicates)
    settings = Settings.of(_call, drop=("results",), cv=kept_cv(cv), measure=crit,
                           type=type, random_state=seed,
                        design_note=(KEPT_DESIGN if refits is not None and isinstance(
                            data, pd.DataFrame) else KeptDesign.note if refits is not None
                            else None if design is None else design.note), ci=bool(ci),
                        constraint=constraint, maximize=maximize)
    return TuneThresholdResults(base=results, data=data, formula=formula, score_type=score_type,
                              threshold=threshold, curve=curve, best_index=best,
                              cv_scores=cv_scores, folds=folds, settings=settings, call=_call,
                              prior_weights=weights, uncertainty=uncertainty)
