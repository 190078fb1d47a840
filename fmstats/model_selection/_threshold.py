"""The cross-validated decision threshold of a fitted model: :func:`tune_threshold`.

Split from :mod:`fmstats.model_selection._cv_tune` (which re-exports it); the criterion, folds and failure
handling are those of :func:`fmstats.cv_tune` (see that module's notes).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from ._criterion import Criterion
from ._folds import fixed_seed, fold_response, kept_cv, make_folds, warn_empty_folds
from .._utils.parallel import check_n_jobs
from .._utils.progress import progress_enabled
from ._training import (array_weights, kept_design_frame, kept_rows, prior_weights,
                        training_design, training_frame)
from ._search import (best_row, counts_at, cv_threshold, held_frame, midpoint, scores,
                      threshold_curve)
from ._tuned import Tuned, check_protocol, fn_name
from ._uncertainty import tuning_uncertainty, warn_trivial
from ._constrained import check_constraint, constrained_best, constraint_probability
from .._utils.call import Settings, records_call, refuse_unused
from .._utils.validation import check_choice, describe
from ..exceptions import FmstatsError, InvalidArgumentError
from ..formula import KeptDesign, check_frame
from ..inference import check_B, check_level, interval_of_rows
from ..results import ModelResults, ScoreCurves
from ..results import Section, Summary, predict_kept
from .._utils.boundary import public

__all__ = ["tune_threshold", "ThresholdedResults"]


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


def _row_weights(results, n: int) -> np.ndarray:
    """Prior weights of the ``n`` checked training rows (1 where the model has none)."""
    w = prior_weights(results)
    return np.ones(n) if w is None or len(w) != n else w


@records_call(rows=("cv",))
def tune_threshold(results, data: pd.DataFrame | None = None, *, cv=5, repeats: int = 1,
                   measure=None, beta=None, alpha=None, pooling: str = "tp_fp",
                   refit_folds: bool = True, type: str | None = None, random_state=None,
                   n_jobs=None, progress=None, reuse_design: bool = True, ci: bool = False,
                   B: int = 200, level: float = 0.95, constraint=None,
                   maximize: str | None = None, replicates: str = "kstep",
                   _call=None) -> "ThresholdedResults":
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
        Also say how sure the tuning is (:mod:`fmstats.model_selection._uncertainty`):
        ``threshold_ci`` from ``B`` case-bootstrap replicates of the whole tuning (the model
        refitted and its threshold retuned on every replicate), ``f_corrected`` -- the F the
        tuned rule is expected to have on new data, corrected for the optimism of choosing
        the threshold on the same held-out scores (nested cross-validation of the whole
        tuning; chosen over ``.632+`` by simulation, ``benchmarks/bench_f_intervals.py``
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
        (:mod:`fmstats.maxent_models._refits`; the replicates' thresholds equal full refits'
        to ~1e-5), or ``"full"`` refits iterated to convergence.  Other models refit through
        ``results.refit``.

    Returns
    -------
    ThresholdedResults

    Warns
    -----
    TrivialRuleWarning
        When the tuned rule classes every training row alike (all positive or all negative).
    UnstableThresholdWarning
        With ``ci``: when the threshold's interval spans most of the score range.

    Notes
    -----
    The design of ``data`` is built once; every fold refit and held-out prediction takes its
    rows (:mod:`fmstats.formula._reuse`; identical to rebuilding it per fold).  A formula with
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
    <ThresholdedResults threshold 0.2893 on response of MaxentResults: CV F2 = 0.7879>
    """
    check_protocol(results, "predict", *(("refit",) if refit_folds else ()))
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
    formula = getattr(results, "formula", None)
    design = None      # the design of the training rows, built once (only when refitting)
    # a maxent-family fit refits its folds on its own design (its engine: no design built)
    refits = (results.row_refits() if refit_folds and reuse_design
              and isinstance(results, ModelResults) else None)
    if data is None and not isinstance(getattr(results, "training_data", None), pd.DataFrame):
        # without data: the rows the fit kept (the rule of every function that refits)
        if not reuse_design:
            raise InvalidArgumentError(
                "`reuse_design`=False rebuilds every fold's design from the formula, which "
                "needs `data=` (the DataFrame the model was fitted on).")
        data = kept_rows(results, "tune_threshold()")
        design = KeptDesign(results) if refit_folds and refits is None else None
    elif refits is not None:
        data = kept_design_frame(results, results.training_data if data is None else data,
                                 what="tune_threshold()")
    else:
        # the rows the model was fitted on, checked as bootstrap() and validate() check them,
        # in the fit's order (so that the prior weights line up); positions index the
        # predictions
        data = results.training_data if data is None else check_frame(data, "data")
        if refit_folds:
            data, design = training_design(results, data, what="tune_threshold()",
                                           reuse=reuse_design)
        else:
            data = training_frame(results, data, what="tune_threshold()").reset_index(drop=True)
    response = fold_response(formula, data)
    weights = _row_weights(results, len(data))
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
    settings = Settings(cv=kept_cv(cv), repeats=repeats, measure=crit, refit_folds=refit_folds,
                        type=type, random_state=seed,
                        design_note=(KEPT_DESIGN if refits is not None and isinstance(
                            data, pd.DataFrame) else KeptDesign.note if refits is not None
                            else None if design is None else design.note), ci=bool(ci),
                        constraint=constraint, maximize=maximize)
    return ThresholdedResults(base=results, data=data, formula=formula, score_type=score_type,
                              threshold=threshold, curve=curve, best_index=best,
                              cv_scores=cv_scores, folds=folds, settings=settings, call=_call,
                              prior_weights=weights, uncertainty=uncertainty)


class ThresholdedResults(Tuned, ScoreCurves):
    """A fitted model with a cross-validated decision threshold (:func:`tune_threshold`).

    Speaks the model protocol: ``predict(newdata, type="class")`` classes a row
    positive when its score (``score_type``) is at least ``threshold``; other
    ``type`` values are the base model's predictions.  ``confusion`` and
    ``measure`` use these classes; ``refit(data)`` refits the base model and, by
    default, tunes the threshold again (``retune=False`` keeps it).
    ``tidy()`` is the criterion-versus-threshold curve; ``cv_scores`` the pooled
    held-out scores; ``training_data`` the tuning data (positions as index).  Built by
    :func:`tune_threshold` (and :meth:`refit`), not constructed directly.

    Parameters
    ----------
    base : ModelResults
        The fitted base model whose score is thresholded.
    data : DataFrame
        The tuning data, kept as ``training_data``.
    formula : str or None
        The base model's formula.
    score_type : str
        The ``predict`` type of the thresholded score (``"response"``, ``"decision"``
        or ``"link"``).
    threshold : float
        The tuned threshold.
    curve : DataFrame
        The criterion-versus-threshold curve returned by :meth:`tidy`.
    best_index : int
        The row of the curve at the tuned threshold.
    cv_scores : DataFrame
        The pooled held-out scores (split, row, score, y, weight).
    folds : Folds
        The (train, test) splits.
    settings : Settings
        The recorded arguments of the :func:`tune_threshold` call (cv, criterion, seed...).
    call : ModelCall
        The recorded :func:`tune_threshold` call, rerun by :meth:`refit`.
    prior_weights : ndarray, optional
        Prior weights of the rows of ``training_data`` (the base model's), or None.
    uncertainty : TuningUncertainty, optional
        What ``ci=True`` measured (threshold interval, ``f_corrected``...), or None.
    """

    @property
    def _score_type(self) -> str:  # hook of the score curves: the thresholded score
        return self.score_type

    # the curves default to the tuning rows with the prior weights, as confusion() does
    def _training_scores(self):
        s = scores(self.base, self.training_data, self.score_type)
        return s.index.to_numpy(), s.to_numpy(dtype=float)

    def _scores(self, newdata) -> np.ndarray:
        if newdata is None:
            rows, s = self._training_scores()
            return s[self._training_response().observed[rows]]
        return super()._scores(newdata)

    def _truth_weights(self, newdata):
        if newdata is None:
            response = self._training_response()
            rows, _ = self._training_scores()
            rows = rows[response.observed[rows]]
            return response.y[rows], (response.w * self._prior())[rows], None
        return super()._truth_weights(newdata)

    def _training_response(self):
        return fold_response(self.formula, self.training_data)

    def _prior(self) -> np.ndarray:
        w = getattr(self, "prior_weights", None)   # None in results pickled before weights
        return np.ones(len(self.training_data)) if w is None else w

    def __init__(self, *, base, data, formula, score_type, threshold, curve, best_index,
                 cv_scores, folds, settings, call, prior_weights=None, uncertainty=None):
        self.base = base
        #: what ``ci=True`` measured (:class:`TuningUncertainty`), or None
        self.uncertainty = uncertainty
        #: prior weights of the rows of ``training_data`` (the base model's), or None
        self.prior_weights = prior_weights
        self.training_data = data
        self.formula = formula
        self.score_type = score_type
        self.threshold = float(threshold)
        self._curve = curve
        self.best_index = best_index
        self.cv_scores = cv_scores
        self._folds = folds
        self.settings = settings
        self.call = call

    @property
    def params(self) -> pd.Series:
        """The base model's coefficients and the tuned threshold (what ``bootstrap``
        resamples by default: each replicate refits the model and retunes the threshold)."""
        thr = pd.Series([self.threshold], index=["threshold"])
        p = getattr(self.base, "params", None)
        return thr if p is None else pd.concat([p.astype(float), thr])

    @property
    def spec(self):
        """The base model's design (formula, factor levels)."""
        return self.base.spec

    @property
    def best_score(self) -> float:
        """The cross-validated criterion at the tuned threshold (optimistic: the threshold was
        chosen on these held-out scores; see ``f_corrected``)."""
        return float(self._curve[self.settings["measure"].column].iloc[self.best_index])

    @property
    def threshold_ci(self) -> tuple:
        """(low, high): the percentile interval of the threshold over the bootstrap replicates
        of the whole tuning (``ci=True``)."""
        return self._uncertain().threshold_ci

    def tidy(self) -> pd.DataFrame:
        """The curve: one row per cut of the pooled held-out scores (``threshold`` is the
        lowest score classed positive; +inf is "none"), pooled counts, f, precision,
        recall, accuracy (pooled as chosen)."""
        return self._curve.copy()

    def cv_value(self, threshold: float) -> dict:
        """f, precision, recall, accuracy of the held-out scores at any threshold.

        Parameters
        ----------
        threshold : float
            A row is classed positive when its score is at least this.
        """
        h, crit = self.cv_scores, self.settings["measure"]
        t = np.array([float(threshold)])
        counts = np.stack([counts_at(g["score"].to_numpy(), (g["weight"] * g["y"]).to_numpy(),
                                      (g["weight"] * (1 - g["y"])).to_numpy(), t)
                           for _, g in h.groupby("split")])
        return {k: float(v[0]) for k, v in crit.summarise(counts).items()}

    # ------------------------------------------------------------------ the model protocol
    def predict(self, newdata=None, type: str = "response", **kwargs) -> pd.Series:
        """``type="class"``: 1 where the score is at least ``threshold``; else the base's.

        Parameters
        ----------
        newdata : DataFrame, optional
            The rows to predict (default: the base model's training rows).
        type : str, default "response"
            ``"class"`` for the tuned classes; any other type is passed to the base
            model's ``predict``.
        **kwargs
            Further arguments of the base model's ``predict`` (types other than
            ``"class"``).
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).
        """
        if type != "class":
            return predict_kept(self.base, newdata, type=type, **kwargs)
        s = scores(self.base, newdata, self.score_type)
        return pd.Series((s.to_numpy() >= self.threshold).astype(np.int64), index=s.index,
                         name="class")

    def confusion(self, newdata=None) -> _m.Confusion:
        """Confusion counts of the tuned classes on ``newdata`` (default: the tuning data).

        Rows count with the response's trials (``cbind``) as weights and
        probabilistic labels fractionally, as :meth:`MaxentResults.confusion` on new data;
        on the tuning data also with the model's prior weights (as the base model's
        ``confusion()`` on its training rows).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the tuning data).
        """
        data = (self.training_data if newdata is None
                else check_frame(newdata, "newdata").reset_index(drop=True))
        response = fold_response(self.formula, data)
        w = response.w * self._prior() if newdata is None else response.w
        cls = predict_kept(self, data, type="class")
        rows = cls.index.to_numpy()
        keep = response.observed[rows]
        return _m.noisy_confusion(response.y[rows][keep], cls.to_numpy()[keep],
                                  dependence="independent", sample_weight=w[rows][keep])

    def measure(self, newdata=None, measure=None, *, beta=None, alpha=None, ci=None,
                level=0.95, B=None, random_state=None):
        """F of the tuned classes on ``newdata``; the tuned F-measure by default.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the tuning data).
        measure, beta, alpha : FMeasure or float, optional
            The F-measure (one of them; default: the tuned one).
        ci : {"delta", "bayes", "bootstrap"}, optional
            Return the F with its interval (:class:`fmstats.inference.MeasureInterval`), as
            :meth:`fmstats.results.ModelResults.measure`.
        level : float, default 0.95
            The level of the interval (with ``ci``).
        B : int, optional
            Draws of the Monte-Carlo methods (with ``ci``).
        random_state : int, SeedSequence or Generator, optional
            Seed of the Monte-Carlo methods (with ``ci``).

        Returns
        -------
        float or MeasureInterval
            The F-measure, or with ``ci`` the interval object.
        """
        fm = self.fmeasure if measure is None and beta is None and alpha is None \
            else _m.as_fmeasure(measure, beta, alpha)
        if ci is None:
            return float(self.confusion(newdata).f(fm))
        y, yhat, w, _ = self._class_rows(newdata)
        return interval_of_rows(y, yhat, w, fm, ci, level, B, random_state, name="ci")

    def refit(self, data: pd.DataFrame, *, retune: bool = True, n_jobs=1, progress=False,
              **kwargs) -> "ThresholdedResults":
        """Refit the base model on ``data`` (``kwargs`` go to its ``refit``) and retune.

        Parameters
        ----------
        data : DataFrame
            The new data.
        retune : bool, default True
            Tune the threshold again on ``data``; ``False`` keeps the tuned threshold.
        n_jobs : int, default 1
            Parallel fold refits of the retuning, as in :func:`tune_threshold`.
        progress : bool, default False
            A tqdm progress bar of the retuning.
        **kwargs
            Further arguments of the base model's ``refit``.
        """
        base = self.base.refit(data, **kwargs)
        if not retune:
            out = training_frame(base, data, what="refit()").reset_index(drop=True)
            return ThresholdedResults(
                base=base, data=out, formula=self.formula, score_type=self.score_type,
                threshold=self.threshold, curve=self._curve, best_index=self.best_index,
                cv_scores=self.cv_scores, folds=self._folds, settings=self.settings,
                call=self.call, prior_weights=_row_weights(base, len(out)))
        return self._rerun(data, "tune_threshold", results=base, n_jobs=n_jobs,
                           progress=progress)

    @public
    def constraint_probability(self, B: int = 200, *, random_state=None,
                               level: float = 0.95) -> dict:
        """How often the constraint holds on new data: the model refitted on ``B`` bootstrap
        resamples, the constrained quantity measured at the tuned threshold on the rows
        each resample left out (see :mod:`fmstats.model_selection._constrained`).

        Parameters
        ----------
        B : int, default 200
            Bootstrap refits.
        random_state : int or numpy.random.Generator, optional
            Seeds the resamples.
        level : float, default 0.95
            The level of the (Wilson) interval of the probability.
        """
        return constraint_probability(self, B=B, random_state=random_state, level=level)

    # ------------------------------------------------------------------ reporting
    def summary(self) -> Summary:
        """The tuned threshold, the criterion there and at the base model's own threshold."""
        crit = self.settings["measure"]
        b = self._curve.iloc[self.best_index]
        name = f"CV {crit.name}"
        con = self.settings.get("constraint")
        lines = [f"  predicted class 1 when predict(type='{self.score_type}') >= "
                 f"{self.threshold:.6g}"
                 + ("" if con is None else f", maximising {self.settings.get('maximize') or name}"
                    f" subject to {con[0]} {con[1]} {con[2]:g} (pooled held-out counts)"),
                 (f"{name} at the tuned threshold", float(b[crit.column])),
                 f"  precision {b['precision']:.4f}, recall {b['recall']:.4f} (pooled held-out "
                 "counts)"]
        own = getattr(self.base, "threshold", None)
        if isinstance(own, (int, float)) and self.score_type == "response":
            lines.append((f"{name} at the model's own threshold {own:g}",
                          self.cv_value(own)[crit.column]))
        elif self.score_type == "decision" and isinstance(self.base, ScoreCurves):
            t, strict, label = self.base._decision_rule()   # the score-curve hook: x'w + b > 0
            lines.append((f"{name} at the model's own rule ({label})",
                          self.cv_value(np.nextafter(t, np.inf) if strict else t)[crit.column]))
        cv_lines = [("Measure", crit.text(len(self.folds))),
                    ("Folds", f"{self._folds.description} (random_state = "
                              f"{self.settings['random_state']})"),
                    ("Held-out scores", "from the model refitted on each training fold"
                     if self.settings["refit_folds"] else "from the model fitted on all rows "
                     "(refit_folds=False: optimistic)"),
                    ("Design", self.settings.get("design_note") or "not refitted"),
                    ("Search", f"exact over all {len(self._curve)} cuts of the pooled held-out "
                               "scores; the threshold is the midpoint between the lowest score "
                               "classed positive and the highest classed negative")]
        u = getattr(self, "uncertainty", None)
        if u is not None:
            est = u.estimates.set_index("estimate")["f"]
            lv = f"{100 * u.level:g}%"
            lines += [("Threshold " + lv + " CI (bootstrap of the whole tuning)",
                       f"[{u.threshold_ci[0]:.4g}, {u.threshold_ci[1]:.4g}]"),
                      (f"f_corrected ({name.replace('CV ', '')} of the tuned rule on new data, "
                       f"nested CV)", u.f_corrected),
                      f"  {lv} CI [{u.f_corrected_ci[0]:.4f}, {u.f_corrected_ci[1]:.4f}]; "
                      f".632+ {est['.632+']:.4f}; optimism of the CV F "
                      f"{self.best_score - u.f_corrected:+.4f}",
                      f"  {u.B} bootstrap replicates ({u.n_failed} failed, {u.n_trivial} tuned a "
                      f"rule classing every row alike); {u.outer_folds} outer folds",
                      f"  Monte-Carlo error of the threshold interval's ends: "
                      f"{u.threshold_ci_mc[0]:.2g}, {u.threshold_ci_mc[1]:.2g}; fits: "
                      + {"kstep": "k-step refits of the fit's own design",
                         "full": "full refits of the fit's own design",
                         "refit": "refits through the model"}[u.replicates]
                      + (f" ({u.n_unconverged} stopped at max_iter without meeting the step "
                         "rule: separated resamples)" if u.n_unconverged else "")]
        sections = [Section("Threshold:", lines), Section("Cross-validation:", cv_lines),
                    Section("Base model:", [repr(self.base),
                                            "(its coefficients: results.base.summary())"])]
        return Summary(title="Classifier with a cross-validated decision threshold",
                       call=str(self.call), sections=sections)

    def plot(self, ax=None):
        """The criterion, precision and recall against the threshold; with ``ci=True`` the
        pointwise band of the CV F and, in a second panel, the bootstrap distribution of the
        tuned threshold with its interval.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two Axes, optional
            The axes to draw on (default: a new figure; two axes with ``ci=True``).
        """
        from ..plotting import finish_figure, new_axes, pyplot

        crit = self.settings["measure"]
        c = self._curve[np.isfinite(self._curve["threshold"])]
        u = getattr(self, "uncertainty", None)
        if u is None:
            fig, ax = new_axes(ax)
            hist_ax = None
        elif ax is None:
            fig, (ax, hist_ax) = pyplot().subplots(
                2, 1, figsize=(6.0, 5.6), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]})
        else:
            ax, hist_ax = ax
            fig = ax.figure
        for col, style in ((crit.column, "-"), ("precision", "--"), ("recall", ":")):
            label = f"CV {crit.name} ({crit.pooling})" if col == crit.column else col
            ax.step(c["threshold"], c[col], style, where="post", label=label)
        if u is not None:
            b = u.band
            ax.fill_between(b["threshold"], b["low"], b["high"], step="post", alpha=0.25,
                            label=f"{100 * u.level:g}% pointwise band (delta)")
            ax.axhline(u.f_corrected, color="tab:red", linestyle=":",
                       label=f"f_corrected {u.f_corrected:.3f}")
        ax.axvline(self.threshold, color="grey", linestyle="-.",
                   label=f"tuned threshold {self.threshold:.3g}")
        ax.set_ylabel("held-out value (0 to 1)")
        ax.set_title(f"Cross-validated threshold ({len(self.folds)} folds)", fontsize="medium")
        ax.legend(fontsize="small")
        xlabel = f"threshold on predict(type='{self.score_type}')"
        if hist_ax is None:
            ax.set_xlabel(xlabel)
        else:
            t = u.thresholds[np.isfinite(u.thresholds)]
            hist_ax.hist(t, bins=min(40, max(10, t.size // 5)), color="tab:blue", alpha=0.7)
            for v in u.threshold_ci:
                hist_ax.axvline(v, color="tab:red", linestyle="--")
            hist_ax.axvline(self.threshold, color="grey", linestyle="-.")
            hist_ax.set_xlabel(xlabel)
            hist_ax.set_ylabel("replicates")
            hist_ax.set_title(f"Threshold over {u.B} bootstrap replicates of the tuning "
                              f"({100 * u.level:g}% interval dashed)", fontsize="small")
        return finish_figure(fig)

    def __repr__(self) -> str:
        return (f"<ThresholdedResults threshold {self.threshold:.4g} on {self.score_type} of "
                f"{fn_name(self.base)}: CV {self.settings['measure'].name} = "
                f"{self.best_score:.4f}>")

