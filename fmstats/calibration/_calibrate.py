"""Cross-fitted calibration of a fitted binary model: :func:`calibrate` and
:class:`CalibrateResults`.

The model is refitted on each training fold and scores its held-out fold; the calibration
map (``_maps.py``) is fitted on the pooled held-out scores, so no row's
score comes from a fit that saw it (scikit-learn's ``CalibratedClassifierCV(ensemble=False)``:
``cross_val_predict`` then one calibrator).  Predictions apply the map to the scores of the
model fitted on all rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.call import Settings, records_call
from .._utils.folds import check_folds, stratified_folds
from .._utils.validation import check_choice, check_random_state, check_scalar, describe
from ..exceptions import InvalidArgumentError, ResponseError
from ..formula import check_frame, take_rows
from ..results import TrainingRows, kept_rows, rows_of, training_frame
from ..results import ModelResults, ScoreCurves, Section, Summary, predict_kept
from ._diagnostics import calibration_stats, plot_calibration, stats_lines
from ._maps import METHODS, fit_map
from .._utils.boundary import public

__all__ = ["calibrate", "CalibrateResults", "CalibratedResults"]

_LINK = {"response": "link"}     # Platt and isotonic calibrate the log-odds of a probability


def _score_type(fit, method: str) -> str:
    own = fit._score_type if isinstance(fit, ScoreCurves) else None
    if own is None:
        raise InvalidArgumentError(
            f"`fit`: {describe(fit)} has no binary scores (probabilities or decision values), "
            "so there is nothing to calibrate; calibrate() takes a fitted binary model such "
            "as maxent, fmaxent, wsvm or fsvm.")
    if method == "beta":
        if own != "response":
            raise InvalidArgumentError(
                f"`method`='beta' calibrates probabilities in (0, 1), and {type(fit).__name__} "
                "has none (only decision values); use method='platt' or 'isotonic'.")
        return "response"
    return _LINK.get(own, own)


def _folds(cv, strata: np.ndarray, random_state) -> list:
    n = len(strata)
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        check_scalar("cv", int(cv), low=2, integer=True)
        counts = np.bincount(strata, minlength=2)
        if counts.min() < cv:
            raise ResponseError(
                f"`cv`={cv}: the response has {counts.min()} row(s) of its rarer class, fewer "
                "than the folds; every training fold needs both classes (lower `cv`).")
        return stratified_folds(strata, int(cv), check_random_state(random_state))
    # cross-fitting scores every row once, by a fit that did not see it
    return check_folds(cv, n, strata=strata, partition=True)


@records_call(rows=("cv",))
def calibrate(fit, data: pd.DataFrame | None = None, *, method: str = "platt", cv=5,
              threshold: float = 0.5, random_state=None, _call=None) -> "CalibrateResults":
    """Calibrate a fitted binary model's scores by cross-fitting (Platt, isotonic or beta).

    The model is refitted on each training fold (``fit.refit``) and scores its held-out
    fold; the map is fitted on the pooled held-out scores and applied to the scores of
    ``fit`` itself.  Platt and isotonic maps take the log-odds of a probabilistic model
    (decision values of an SVM), as scikit-learn's ``CalibratedClassifierCV`` takes
    ``decision_function``; the beta map takes probabilities.  The result is a model:
    ``predict``, ``confusion``, ``measure``, :func:`fmstats.tune_threshold`,
    :func:`fmstats.bootstrap` and the score curves use the calibrated probabilities.

    Parameters
    ----------
    fit : ModelResults
        A fitted binary model with scores (``maxent``, ``umaxent``, ``fmaxent``, ``wsvm``,
        ``fsvm``, a tuned threshold's base...).
    data : DataFrame, optional
        The data ``fit`` was fitted on (checked as :func:`fmstats.bootstrap` checks it);
        default the rows the fit kept, as every function that refits (user guide, *Refits
        without data=*).
    method : {"platt", "isotonic", "beta"}, default "platt"
        The map: Platt's sigmoid (two parameters: the safe default for small data), isotonic
        (monotone, non-parametric: needs about a thousand rows to beat Platt) or beta
        (Kull et al. 2017: three parameters, also fixes the sigmoid's symmetric shape;
        probabilities only).
    cv : int, splitter or iterable of (train, test) positions, default 5
        Stratified folds (integer), a splitter (``split(X, y)``, stratified on the classes)
        or the folds themselves (positions of the fit's rows; training and test rows
        disjoint, each row in exactly one test fold: otherwise an error naming ``cv``).
    threshold : float, default 0.5
        The calibrated probability at or above which ``predict(type="class")`` is 1.
    random_state : int or numpy.random.Generator, optional
        Seeds the folds of an integer ``cv``.

    Returns
    -------
    CalibrateResults

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", t)
    >>> cal = fm.calibrate(fit, t, method="isotonic", random_state=0)
    >>> cal
    <CalibrateResults isotonic on link of MaxentResults (5 folds)>
    >>> p = cal.predict(t)
    >>> bool(p.between(0, 1).all())
    True
    """
    check_choice("method", method, METHODS)
    check_scalar("threshold", threshold, low=0, high=1)
    score_type = _score_type(fit, method)
    if not callable(getattr(fit, "refit", None)):
        raise InvalidArgumentError(f"`fit`: {describe(fit)} has no refit(); cross-fitting "
                                   "refits the model on every training fold.")
    # without data: the rows the fit kept (the rule of every function that refits)
    frame = (kept_rows(fit, "calibrate()") if data is None else
             training_frame(fit, check_frame(data, "data"),
                            what="calibrate()").reset_index(drop=True))
    y, w, _ = fit._truth_weights(None)        # the score-curve hook: labels, count weights
    y, w = np.asarray(y, dtype=float), np.asarray(w, dtype=float)
    if len(y) != len(frame):
        raise InvalidArgumentError("`fit`: the model does not keep its training labels, "
                                   "which cross-fitting needs (refit it with keep_data=True).")
    strata = (y >= 0.5).astype(np.int64)
    if strata.min() == strata.max():
        raise ResponseError(f"the response of `fit` has one class only (all "
                            f"{int(strata[0])}); there is nothing to calibrate.")
    pairs = _folds(cv, strata, random_state)
    train = TrainingRows(fit, frame)
    s_oof = np.full(len(y), np.nan)
    split = np.full(len(y), -1)
    for k, (tr, te) in enumerate(pairs):
        if np.unique(strata[tr]).size < 2:
            raise ResponseError(f"`cv`: training fold {k} holds one class only; every training "
                                "fold needs both classes to refit the model.")
        held = take_rows(frame, te)
        f_k = train.refit(tr)
        s = predict_kept(f_k, held, type=score_type)
        s_oof[te] = s.reindex(held.index).to_numpy(dtype=float)
        split[te] = k
    if not np.isfinite(s_oof).all():
        raise InvalidArgumentError("a fold refit could not score every held-out row (rows "
                                   "dropped for missing values?); no calibration is possible.")
    cmap = fit_map(method, s_oof, y, w)
    oof = pd.DataFrame({"split": split, "score": s_oof, "calibrated": cmap(s_oof), "y": y,
                        "weight": w})
    settings = Settings.of(_call, drop=("fit",), cv=cv if isinstance(cv, (int, np.integer))
                           else "<folds>", threshold=float(threshold), score_type=score_type)
    return CalibrateResults(base=fit, cmap=cmap, oof=oof, folds=pairs, settings=settings,
                             call=_call)


class CalibrateResults(ModelResults):
    """A fitted binary model with cross-fitted calibrated probabilities (:func:`calibrate`).

    ``predict(type="response")`` gives calibrated probabilities, ``"link"`` their log-odds,
    ``"class"`` 1 where the calibrated probability is at least ``threshold``; ``confusion``,
    ``measure`` and the score curves use them; ``refit(data)`` refits the base model and
    recalibrates; ``params`` are the base model's coefficients and the map's parameters;
    ``calibration_summary()``, ``calibration_stats()`` and ``plot_calibration()`` judge the
    calibration.  ``oof`` holds the pooled held-out scores and their calibrated values.

    Parameters
    ----------
    base : ModelResults
        The model fitted on all rows.
    cmap : CalibrationMap
        The map fitted on the pooled held-out scores.
    oof : DataFrame
        The held-out rows: split, score, calibrated, y, weight (in the fit's row order).
    folds : list of (ndarray, ndarray)
        The (train, test) positions.
    settings : Settings
        The calibration's settings: method, cv, threshold, random_state, score_type.
    call : ModelCall
        The recorded :func:`calibrate` call.
    """

    _score_type = "response"

    def __init__(self, *, base, cmap, oof, folds, settings, call):
        self.base = base
        self.cmap = cmap
        self.oof = oof
        self.folds = folds
        self.settings = settings
        self.call = call
        self.method = settings["method"]
        self.score_type = settings["score_type"]
        self.threshold = settings["threshold"]
        self.fmeasure = rows_of(base).fmeasure or _m.FMeasure()

    # what tuning, resampling and the curves read of the training rows: the base model's
    formula = property(lambda self: self.base.formula, doc="The base model's formula.")
    spec = property(lambda self: self.base.spec, doc="The base model's design encoding.")
    index = property(lambda self: self.base.index, doc="Labels of the training rows.")
    y = property(lambda self: self.base._truth_weights(None)[0], doc="The training labels.")
    prior_weights = property(lambda self: rows_of(self.base).prior_weights,
                             doc="The base model's prior weights.")
    count_weights = property(lambda self: self.base._truth_weights(None)[1],
                             doc="The weights of the training rows in confusion counts.")
    converged = property(lambda self: rows_of(self.base).converged,
                         doc="Whether the base model converged.")

    @property
    def fitted_model(self):
        """The base model whose scores are calibrated."""
        return self.base

    @property
    def params(self) -> pd.Series:
        """The base model's coefficients and the map's parameters (Platt: a, b; beta: a, b,
        c; isotonic: none)."""
        extra = pd.Series(self.cmap.params(), dtype=float)
        p = rows_of(self.base).coefficients()
        return extra if p is None else pd.concat([p.astype(float), extra])


    def cov_params(self, cov_type=None) -> pd.DataFrame:
        """Not available: use :func:`fmstats.bootstrap` for the calibrated model's
        uncertainty.

        Parameters
        ----------
        cov_type : str, optional
            Ignored.
        """
        raise InvalidArgumentError("a calibrated model has no analytic covariance; use "
                                   "fmstats.bootstrap(results, data=...) for intervals.")

    # ------------------------------------------------------------------ the model protocol
    def predict(self, newdata=None, type: str = "response", threshold: float | None = None,
                **kwargs) -> pd.Series:
        """Calibrated probabilities (``"response"``), their log-odds (``"link"``) or classes.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows to predict (default: the base model's training rows).
        type : {"response", "link", "class"}, default "response"
            What to return.
        threshold : float, optional
            For ``"class"``: the calibrated probability at or above which the class is 1
            (default ``threshold`` of the calibration).
        **kwargs
            Further arguments of the base model's ``predict``.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series
            One value per row of ``newdata``.
        """
        check_choice("type", type, ("response", "link", "class"))
        s = predict_kept(self.base, newdata, type=self.score_type, **kwargs)
        p = self.cmap(s.to_numpy(dtype=float))
        if type == "response":
            return pd.Series(p, index=s.index, name="response")
        if type == "link":
            with np.errstate(divide="ignore"):
                return pd.Series(np.log(p) - np.log1p(-p), index=s.index, name="link")
        t = self.threshold if threshold is None else check_scalar("threshold", threshold,
                                                                  low=0, high=1)
        return pd.Series((p >= t).astype(np.int64), index=s.index, name="class")

    def confusion(self, newdata=None, threshold: float | None = None) -> _m.Confusion:
        """Confusion counts of the calibrated classes (rows weighted as the base model's
        ``confusion``: prior weights on the training rows, trials on new data).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).
        threshold : float, optional
            The calibrated probability at or above which the class is 1.

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
        """
        t = self.threshold if threshold is None else check_scalar("threshold", threshold,
                                                                  low=0, high=1)
        y, p, w = self._scored(None if newdata is None else check_frame(newdata, "newdata"),
                               None)
        return _m.noisy_confusion(y, (p >= t).astype(float), dependence="independent",
                                  sample_weight=w)

    #: its refit reruns the calibration on new data, not on rows of the training data
    refits_rows = False

    def refit(self, data: pd.DataFrame, weights=None) -> "CalibrateResults":
        """Refit the base model on ``data`` and calibrate it again (same method, folds rule,
        seed).

        Parameters
        ----------
        data : DataFrame
            The new data.
        weights : str or array-like, optional
            Prior weights of the base model for ``data`` (needed again for array weights).

        Returns
        -------
        CalibrateResults
            The recalibrated model.
        """
        return self.call.refit_model_run(data, self.base, n_folds=len(self.folds),
                                         weights=weights)

    # ------------------------------------------------------------------ diagnostics
    def _evaluated(self, newdata):
        """(probabilities, labels, weights): the pooled held-out calibrated values, or the
        calibrated predictions on ``newdata``."""
        if newdata is None:
            o = self.oof
            return (o["calibrated"].to_numpy(), o["y"].to_numpy(), o["weight"].to_numpy())
        y, p, w = self._scored(check_frame(newdata, "newdata"), None)
        return p, y, w

    @public
    def calibration_stats(self, newdata=None, *, n_bins: int = 10, level: float = 0.95,
                          B: int = 500, random_state=0) -> dict:
        """Brier score and decomposition, ECE with a bootstrap interval, and the F*/2
        diagnostic, as numbers (see :meth:`calibration_summary`).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the pooled held-out rows).
        n_bins : int, default 10
            Equal-width probability bins of the decomposition and the ECE.
        level : float, default 0.95
            The level of the bootstrap intervals.
        B : int, default 500
            Bootstrap resamples of the rows for the intervals.
        random_state : int or numpy.random.Generator, default 0
            Seeds the resamples (fixed by default, so a printed summary is reproducible).

        Returns
        -------
        dict
            The statistics by name, each a float.
        """
        p, y, w = self._evaluated(newdata)
        return calibration_stats(p, y, w, n_bins=n_bins, level=level, B=B,
                                 random_state=random_state, measure=self.fmeasure)

    def calibration_summary(self, newdata=None, **kwargs) -> Summary:
        """Brier score with its decomposition, ECE with its interval, and the F*/2 check.

        Brier = reliability - resolution + uncertainty + within-bin term (Murphy's
        decomposition over ``n_bins`` equal-width bins; the last term is what binning
        leaves).  ECE = sum over bins of ``|mean label - mean probability|`` times the bin's
        share, with a percentile bootstrap interval over rows.  F*/2: for calibrated
        probabilities the F-optimal threshold equals half the optimal F (Zhao et al.
        2013); the exact F-maximising threshold on these rows is printed against half the
        F it attains, with a bootstrap interval of the difference (an interval far from 0
        says the probabilities are miscalibrated where it matters for the F-measure).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the pooled held-out rows, on which the map was
            also fitted, so slightly optimistic).
        **kwargs
            ``n_bins``, ``level``, ``B``, ``random_state`` as in :meth:`calibration_stats`.

        Returns
        -------
        Summary
            The printable summary.
        """
        st = self.calibration_stats(newdata, **kwargs)
        where = ("pooled held-out rows (the map was fitted on them)" if newdata is None
                 else f"newdata ({len(newdata)} rows)")
        return Summary(title="Calibration of a fitted model", call=str(self.call),
                       sections=[Section("", [("Method", self.method),
                                              ("Score calibrated",
                                               f"predict(type='{self.score_type}') of "
                                               f"{type(self.base).__name__}"),
                                              ("Evaluated on", where)]),
                                 Section("Scores:", stats_lines(st, self.fmeasure))])

    @public
    def plot_calibration(self, newdata=None, n_bins: int = 10, level: float = 0.95,
                         ax=None):
        """Reliability curve (binned mean label against mean probability, with a Wilson
        band) above a histogram of the calibrated probabilities.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the pooled held-out rows).
        n_bins : int, default 10
            Equal-width bins.
        level : float, default 0.95
            The level of the band.
        ax : sequence of two matplotlib Axes, optional
            Where to draw (default: a new figure).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        p, y, w = self._evaluated(newdata)
        return plot_calibration(p, y, w, n_bins=n_bins, level=level, ax=ax,
                                title=f"{self.method} calibration of "
                                      f"{type(self.base).__name__}")

    def summary(self) -> Summary:
        """The calibration summary on the pooled held-out rows (:meth:`calibration_summary`).

        Returns
        -------
        Summary
            The printable summary.
        """
        return self.calibration_summary()

    def __repr__(self) -> str:
        return (f"<CalibrateResults {self.method} on {self.score_type} of "
                f"{type(self.base).__name__} ({len(self.folds)} folds)>")


#: The name of :class:`CalibrateResults` before results classes were named after the
#: function that makes them (:func:`calibrate`); kept for code and results files.
CalibratedResults = CalibrateResults
