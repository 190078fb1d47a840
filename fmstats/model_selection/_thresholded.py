"""The results of :func:`fmstats.tune_threshold`: a threshold tuned in memory
(:class:`TuneThresholdResults`) or out of core (:class:`BlockThresholdedResults`).

Split from ``_threshold.py`` (the tuning), as linearmodels splits a
model from its results.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from ..formula import fold_response
from ..results import rows_of, training_frame, training_weights
from ._search import counts_at, scores
from ._tuned import Tuned, fn_name
from ._constrained import constraint_probability
from ..exceptions import DataError, InvalidArgumentError
from ..formula import check_frame
from ..inference import F_METHODS, interval_of_rows
from ..results import ScoreCurves
from ..results import Section, Summary, predict_kept
from .._utils.boundary import public
from .._utils.validation import interval_request

__all__ = ["TuneThresholdResults", "ThresholdedResults", "BlockThresholdedResults", "row_weights"]


def row_weights(results, n: int) -> np.ndarray:
    """Prior weights of the ``n`` checked training rows (1 where the model has none)."""
    w = training_weights(results)
    return np.ones(n) if w is None or len(w) != n else w


class TuneThresholdResults(Tuned, ScoreCurves):
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
        w = self.prior_weights       # FitRows' None in results pickled before weights
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
    def fitted_model(self):
        """The base model whose threshold was tuned."""
        return self.base

    @property
    def params(self) -> pd.Series:
        """The base model's coefficients and the tuned threshold (what ``bootstrap``
        resamples by default: each replicate refits the model and retunes the threshold)."""
        thr = pd.Series([self.threshold], index=["threshold"])
        p = rows_of(self.base).coefficients()
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
        recall, accuracy (pooled as chosen).

        Returns
        -------
        pandas.DataFrame
            The curve, one row per cut.
        """
        return self._curve.copy()

    def cv_value(self, threshold: float) -> dict:
        """f, precision, recall, accuracy of the held-out scores at any threshold.

        Parameters
        ----------
        threshold : float
            A row is classed positive when its score is at least this.

        Returns
        -------
        dict
            The keys f, precision, recall and accuracy, each a float.
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

        Returns
        -------
        pandas.Series
            One value per row of ``newdata``.
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

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
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

    def measure(self, newdata=None, measure=None, *, beta=None, alpha=None, ci=False,
                ci_method=None, level=0.95, B=None, random_state=None):
        """F of the tuned classes on ``newdata``; the tuned F-measure by default.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the tuning data).
        measure, beta, alpha : FMeasure or float, optional
            The F-measure (one of them; default: the tuned one).
        ci : bool, default False
            Return the F with its interval (:class:`fmstats.inference.MeasureInterval`), as
            :meth:`fmstats.results.ModelResults.measure` (``ci="delta"`` is the old spelling
            of ``ci=True, ci_method="delta"``: deprecated).
        ci_method : {"delta", "bayes", "bootstrap"}, default "delta"
            The method of the interval (with ``ci=True``).
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
        ci, ci_method = interval_request(ci, ci_method, F_METHODS, default="delta",
                                         call="measure")
        fm = self.fmeasure if measure is None and beta is None and alpha is None \
            else _m.as_fmeasure(measure, beta, alpha)
        if not ci:
            return float(self.confusion(newdata).f(fm))
        y, yhat, w, _ = self._class_rows(newdata)
        return interval_of_rows(y, yhat, w, fm, ci_method, level, B, random_state,
                                name="ci_method")

    def refit(self, data: pd.DataFrame, *, retune: bool = True, n_jobs=1, progress=False,
              **kwargs) -> "TuneThresholdResults":
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

        Returns
        -------
        TuneThresholdResults
            The refitted (and, with ``retune=True``, retuned) rule.
        """
        base = self.base.refit(data, **kwargs)
        if not retune:
            out = training_frame(base, data, what="refit()").reset_index(drop=True)
            return TuneThresholdResults(
                base=base, data=out, formula=self.formula, score_type=self.score_type,
                threshold=self.threshold, curve=self._curve, best_index=self.best_index,
                cv_scores=self.cv_scores, folds=self._folds, settings=self.settings,
                call=self.call, prior_weights=row_weights(base, len(out)))
        return self._rerun(data, "tune_threshold", results=base, n_jobs=n_jobs,
                           progress=progress)

    @public
    def constraint_probability(self, B: int = 200, *, random_state=None,
                               level: float = 0.95) -> dict:
        """How often the constraint holds on new data: the model refitted on ``B`` bootstrap
        resamples, the constrained quantity measured at the tuned threshold on the rows
        each resample left out (see ``_constrained.py``).

        Parameters
        ----------
        B : int, default 200
            Bootstrap refits.
        random_state : int or numpy.random.Generator, optional
            Seeds the resamples.
        level : float, default 0.95
            The level of the (Wilson) interval of the probability.

        Returns
        -------
        dict
            ``probability``, ``conf_low``, ``conf_high`` (its Wilson interval at ``level``),
            ``B`` (the refits that scored rows) and ``values`` (the quantity on each resample's
            left-out rows).
        """
        return constraint_probability(self, B=B, random_state=random_state, level=level)

    # ------------------------------------------------------------------ reporting
    def summary(self) -> Summary:
        """The tuned threshold, the criterion there and at the base model's own threshold.

        Returns
        -------
        Summary
            The printable summary.
        """
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
        own = rows_of(self.base).threshold
        if isinstance(own, (int, float)) and self.score_type == "response":
            lines.append((f"{name} at the model's own threshold {own:g}",
                          self.cv_value(own)[crit.column]))
        elif self.score_type == "decision" and isinstance(self.base, ScoreCurves):
            t, strict, label = self.base._decision_rule()   # the score-curve hook: x'w + b > 0
            lines.append((f"{name} at the model's own rule ({label})",
                          self.cv_value(np.nextafter(t, np.inf) if strict else t)[crit.column]))
        cv_lines = [("Measure", crit.text(len(self._folds))),
                    ("Folds", f"{self._folds.description} (random_state = "
                              f"{self.settings['random_state']})"),
                    ("Held-out scores", "from the model refitted on each training fold"
                     if self.settings["refit_folds"] else "from the model fitted on all rows "
                     "(refit_folds=False: optimistic)"),
                    ("Design", self.settings.get("design_note") or "not refitted"),
                    ("Search", self._search_text())]
        u = self.uncertainty
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

    def _search_text(self) -> str:
        return (f"exact over all {len(self._curve)} cuts of the pooled held-out scores; the "
                "threshold is the midpoint between the lowest score classed positive and the "
                "highest classed negative")

    def plot(self, ax=None):
        """The criterion, precision and recall against the threshold; with ``ci=True`` the
        pointwise band of the CV F and, in a second panel, the bootstrap distribution of the
        tuned threshold with its interval.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of two Axes, optional
            The axes to draw on (default: a new figure; two axes with ``ci=True``).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ..plotting import finish_figure, new_axes, pyplot

        crit = self.settings["measure"]
        c = self._curve[np.isfinite(self._curve["threshold"])]
        u = self.uncertainty
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
        ax.set_title(f"Cross-validated threshold ({len(self._folds)} folds)", fontsize="medium")
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
        return (f"<TuneThresholdResults threshold {self.threshold:.4g} on {self.score_type} of "
                f"{fn_name(self.base)}: CV {self.settings['measure'].name} = "
                f"{self.best_score:.4f}>")


def _rows_not_kept(what: str):
    raise DataError(f"{what} of a threshold tuned out of core needs the rows, which it does "
                    "not keep: pass the Dask DataFrame as `newdata`.")


class BlockThresholdedResults(TuneThresholdResults):
    """A threshold tuned out of core (:func:`fmstats.tune_threshold` of a Dask fit).

    As :class:`TuneThresholdResults`, but it keeps no rows:
    ``tidy()`` is the curve at the cuts the exact search evaluated (every cut near the best
    and the edges of the cells it pruned, each exact), ``cv_scores`` is None, and the
    training-row methods (``confusion()``, ``measure()``, the curves) need the Dask
    DataFrame as ``newdata``.

    Parameters
    ----------
    own_counts : ndarray, optional
        The pooled held-out confusion counts at the tuned threshold (one row per fold).
    own : float, optional
        The tuned threshold those counts belong to.
    passes : int, default 0
        The passes over the row blocks the exact search took.
    **kwargs
        The fields of :class:`TuneThresholdResults`.
    """

    def __init__(self, *, own_counts=None, own=None, passes=0, **kwargs):
        super().__init__(**kwargs)
        self.own_counts = own_counts
        self.own = own
        self.search_passes = int(passes)

    def _training_scores(self):
        _rows_not_kept("the training scores")

    def _training_response(self):
        _rows_not_kept("the training response")

    def _response_threshold(self) -> float:
        t = self.threshold
        if self.score_type == "response":
            return t
        return float(1.0 / (1.0 + np.exp(-t))) if np.isfinite(t) else float(t > 0)

    def cv_value(self, threshold: float) -> dict:
        """f, precision, recall, accuracy of the held-out scores at ``threshold``: at the
        model's own threshold and at the thresholds of :meth:`tidy` (out of core the scores
        are not kept, so other thresholds raise a DataError).

        Parameters
        ----------
        threshold : float
            A row is classed positive when its score is at least this.

        Returns
        -------
        dict
            The keys f, precision, recall and accuracy, each a float.
        """
        crit = self.settings["measure"]
        if self.own_counts is not None and self.own is not None and threshold == self.own:
            counts = self.own_counts if crit.pooling == "mean" else \
                self.own_counts.sum(axis=0, keepdims=True)
            return {k: float(np.asarray(v)) for k, v in crit.summarise(counts).items()}
        hit = np.flatnonzero(self._curve["threshold"].to_numpy() == threshold)
        if hit.size:
            row = self._curve.iloc[hit[0]]
            return {k: float(row[k]) for k in ("f", "precision", "recall", "accuracy")}
        raise DataError(f"the held-out scores of a tuning out of core are not kept: cv_value() "
                        f"answers at the model's own threshold and at the thresholds of tidy(); "
                        f"got {threshold:g}.")

    def predict(self, newdata=None, type: str = "response", **kwargs):
        """``type="class"``: 1 where the score is at least ``threshold`` (a lazy dask Series
        for Dask ``newdata``); else the base model's predictions.

        Parameters
        ----------
        newdata : DataFrame or dask.dataframe.DataFrame
            The rows to predict (the training rows are not kept).
        type : {"response", "link", "class"}, default "response"
            As the base model's ``predict``; ``"class"`` uses the tuned threshold.
        **kwargs
            Further arguments of the base model's ``predict`` (types other than
            ``"class"``).
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns, as in the base model's
            ``predict``.

        Returns
        -------
        pandas.Series or dask.dataframe.Series
            One value per row of ``newdata``.
        """
        if type != "class":
            return self.base.predict(newdata, type=type, **kwargs)
        return self.base.predict(newdata, type="class", threshold=self._response_threshold())

    def confusion(self, newdata=None):
        """Confusion counts of the tuned classes on ``newdata`` (a Dask or pandas DataFrame
        with the response; the training rows are not kept).

        Parameters
        ----------
        newdata : DataFrame or dask.dataframe.DataFrame
            Rows with the response.

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
        """
        if newdata is None:
            _rows_not_kept("confusion()")
        return self.base.confusion(newdata, threshold=self._response_threshold())

    def measure(self, newdata=None, measure=None, *, beta=None, alpha=None, ci=False,
                ci_method=None, level=0.95, B=None, random_state=None):
        """F of the tuned classes on ``newdata`` (see :meth:`confusion`); the tuned
        F-measure by default.

        Parameters
        ----------
        newdata : DataFrame or dask.dataframe.DataFrame
            Rows with the response.
        measure, beta, alpha : FMeasure or float, optional
            The F-measure (one of them; default: the tuned one).
        ci, ci_method, level, B, random_state
            Not available out of core (``ci=True`` raises).

        Returns
        -------
        float
            The measure's value.
        """
        if (ci is not None and ci is not False) or ci_method is not None:
            raise InvalidArgumentError("`ci`: intervals of the F need the rows in memory; "
                                       "use the base model's measure(newdata, ci=True) on a "
                                       "pandas DataFrame.")
        fm = self.fmeasure if measure is None and beta is None and alpha is None \
            else _m.as_fmeasure(measure, beta, alpha)
        return float(self.confusion(newdata).f(fm))

    def fold_table(self):
        """One row per fold: held-out rows and their positive and negative weights.

        Returns
        -------
        pandas.DataFrame
            One row per fold.
        """
        return self._folds.table()

    def _search_text(self) -> str:
        return (f"exact, on the row blocks ({self.search_passes} passes): cells of the pooled "
                f"held-out scores by their leading bits, refined near the best cut; tidy() "
                f"holds the {len(self._curve)} cuts evaluated (each exact); the threshold is "
                "the midpoint between the lowest score classed positive and the highest "
                "classed negative")


#: The name of :class:`TuneThresholdResults` before results classes were named after the
#: function that makes them (:func:`tune_threshold`); kept for code and results files.
ThresholdedResults = TuneThresholdResults
