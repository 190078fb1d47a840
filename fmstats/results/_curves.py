"""Precision-recall, F and ROC curves of a fitted model's scores: the results mixin.

:class:`ScoreCurves` gives every results class with scores ``f_curve()``, ``roc_auc()``,
``plot_pr()`` and ``plot_roc()``.  It is a base of :class:`fmstats.results.ModelResults`
(maxent, umaxent, fmaxent, wsvm, fsvm) and of
:class:`fmstats.TuneThresholdResults`.  The computations are the pure functions of
:mod:`fmstats.prcurve`; the figures are drawn by :mod:`fmstats.plotting`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from .. import prcurve as _pr
from .._utils.boundary import public
from .._utils.validation import describe, interval_request, prior_weights
from ..exceptions import DataError, InvalidArgumentError, ResponseError
from ..formula import formula_names, split_formula
from ._newdata import keeps_rows, predict_kept

__all__ = ["ScoreCurves"]


class ScoreCurves:
    """Precision-recall, F and ROC curves of a fitted model's scores.

    The curves threshold the model's scores (``predict(type=...)``: probabilities for
    the maxent family, decision values for SVMs) at every distinct value and count the
    confusion cells as the model's own ``confusion()`` does: on the training rows with
    its count weights (prior weights times ``cbind`` trials), on ``newdata`` with the
    trials (times ``weights`` if given); probabilistic labels count fractionally.

    Hooks a family overrides where it differs from the maxent family:
    ``_score_type`` (the ``predict`` type of the score; ``None``: no scores),
    ``_truth_weights(None)`` (labels and count weights of the training rows),
    ``_decision_rule()`` (the model's own threshold, whether it is strict, a label) and
    ``_curve_data()`` (data scored when ``newdata`` is None; ``None``: the training rows
    the model keeps).
    """

    _score_type: str | None = "response"

    #: The protocol methods every results class exposes: a subclass's definitions of them are
    #: public entry points whose foreign exceptions leave as FmstatsErrors
    #: (``public``).
    BOUNDARY = ("predict", "confusion", "measure", "refit", "summary", "tidy", "conf_int",
                "cov_params", "noisy_f", "resid", "influence", "to_statsmodels", "resample_f",
                "plot_diagnostics", "f_curve", "roc_auc", "plot_pr", "plot_roc")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ScoreCurves.BOUNDARY:
            method = cls.__dict__.get(name)
            if callable(method):
                if name == "predict":       # one row per row of newdata (R's na.pass)
                    method = keeps_rows(method)
                setattr(cls, name, public(method, name=f"{cls.__name__}.{name}"))

    # ------------------------------------------------------------------ hooks
    def _curve_data(self):
        return None

    def _decision_rule(self) -> tuple[float, bool, str]:
        t = float(self.threshold)
        return t, False, f"{self._curve_score_name()} >= {t:.3g}"

    def _curve_score_name(self) -> str:
        return {"response": "probability", "decision": "decision value",
                "link": "log-odds"}.get(self._score_type, "score")

    def _scores(self, newdata) -> np.ndarray:
        return np.asarray(predict_kept(self, newdata, type=self._score_type), dtype=float)

    def _truth_weights(self, newdata):
        """(labels, count weights, positions of the used rows in ``newdata`` or None)."""
        if newdata is None:
            return (np.asarray(self.y, dtype=float), np.asarray(self.count_weights, dtype=float),
                    None)
        lhs, _ = split_formula(self.formula)
        absent = [n for n in formula_names(lhs) if n not in newdata.columns]
        if absent:
            raise ResponseError(
                f"`newdata` lacks the response column(s) {', '.join(map(repr, absent))} of the "
                f"formula {self.formula!r}; the curves compare the scores with observed labels.")
        resp, _, index = self.spec.build_with_response(newdata, missing="drop")
        w = np.ones(len(resp.y)) if resp.trials is None else np.asarray(resp.trials, float)
        return np.asarray(resp.y, dtype=float), w, np.asarray(index)

    # ------------------------------------------------------------------ scored rows
    def _scored(self, newdata, weights):
        """(labels, scores, weights) of the rows the curves count."""
        return self._scored_rows(newdata, weights)[:3]

    def _class_rows(self, newdata=None, threshold=None):
        """(labels, 0/1 classes of the model's rule -- or of ``score >= threshold`` --, count
        weights, row keys or None): the rows ``measure(ci=True)`` and ``compare`` count, as
        ``confusion(newdata)`` counts them."""
        y, s, w, keys = self._scored_rows(newdata, None)
        t, strict, _ = self._decision_rule() if threshold is None else (threshold, False, "")
        return y, ((s > t) if strict else (s >= t)).astype(float), w, keys

    def _scored_rows(self, newdata, weights):
        if self._score_type is None:
            raise InvalidArgumentError(
                f"{type(self).__name__} has no scores to threshold, so it has no precision-"
                "recall, F or ROC curve.")
        if newdata is None:
            if weights is not None:
                raise InvalidArgumentError(
                    "`weights` applies to `newdata` only; on the training rows the fit's own "
                    "prior weights are used.")
            newdata = self._curve_data()
            if newdata is None:
                y, w, _ = self._truth_weights(None)
                return y, self._scores(None), w, getattr(self, "index", None)
        if not isinstance(newdata, pd.DataFrame):
            raise InvalidArgumentError(f"`newdata` must be a pandas DataFrame; got "
                                       f"{describe(newdata)}.")
        if len(newdata) == 0:
            raise DataError("`newdata` has no rows; the curves need scored rows with labels.")
        # weights as every model reads them: a column, a Series aligned on newdata's index by
        # label, or an array by position
        extra = None if weights is None else prior_weights(weights, newdata)
        data = newdata.reset_index(drop=True)
        y, w, rows = self._truth_weights(data)
        if len(rows) == 0:
            raise DataError("no rows of `newdata` remain after dropping those with missing "
                            "values in the model's columns.")
        s = self._scores(data.iloc[rows])
        return y, s, (w if extra is None else w * extra[rows]), rows

    def _measure_arg(self, measure, beta, alpha):
        if measure is None and beta is None and alpha is None:
            return self.fmeasure
        return _m.as_fmeasure(measure, beta, alpha)

    # ------------------------------------------------------------------ public
    @public
    def f_curve(self, newdata=None, weights=None, *, measure=None, beta=None,
                alpha=None, band=False, band_method=None, level=0.95, B=None,
                random_state=None) -> pd.DataFrame:
        """Precision, recall and F at every distinct score as the threshold.

        A row is classed positive when its score is at least ``threshold``.  Returns one
        row per distinct score, highest first: ``threshold``, ``precision``, ``recall``,
        ``f`` (the model's measure unless ``measure``/``beta``/``alpha`` is given),
        ``tp``, ``fp``, ``fn``, ``tn`` (see :func:`fmstats.prcurve.f_curve`).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, counted with
            the fit's prior weights and trials, so ``tp``/``fp``/``fn`` at threshold t equal
            ``confusion(threshold=t)``).
        weights : str or array_like, optional
            For ``newdata``: a column name or array of case weights.
        measure : FMeasure, optional
            The F-measure of column ``f`` (default: the model's).
        beta, alpha : float, optional
            The F-measure of column ``f`` given by its beta, or its weight on precision alpha.
        band : bool, default False
            Add pointwise bands ``f_low``, ``f_high`` (see :meth:`f_band`); ``band="profile"``,
            the method given as ``band``, is the old spelling of ``band=True,
            band_method="profile"`` (deprecated).
        band_method : {"bootstrap", "profile", "delta"}, default "bootstrap"
            The method of the band (with ``band=True``).
        level : float, default 0.95
            The pointwise level of the band.
        B : int, optional
            Bootstrap replicates of the band.
        random_state : int, SeedSequence or Generator, optional
            Seed of the bootstrap.

        Returns
        -------
        pandas.DataFrame
            One row per distinct score, as described above.

        Examples
        --------
        >>> import fmstats as fm
        >>> fit = fm.maxent("survived ~ sex + C(pclass)", fm.datasets.load_titanic())
        >>> curve = fit.f_curve()
        >>> list(curve.columns)
        ['threshold', 'precision', 'recall', 'f', 'tp', 'fp', 'fn', 'tn']
        >>> len(curve)  # one row per distinct fitted probability
        6
        """
        from ..inference import BAND_METHODS

        band, band_method = interval_request(band, band_method, BAND_METHODS,
                                             default="bootstrap", call="f_curve", name="band")
        if band:
            return self.f_band(newdata, weights, method=band_method, level=level, B=B,
                               random_state=random_state, measure=measure, beta=beta,
                               alpha=alpha).table
        y, s, w = self._scored(newdata, weights)
        return _pr.f_curve(y, s, w, measure=self._measure_arg(measure, beta, alpha))

    @public
    def f_band(self, newdata=None, weights=None, *, method="bootstrap", level=0.95, B=None,
               random_state=None, measure=None, beta=None, alpha=None):
        """Pointwise bands of the F curve and an interval for the F-optimal threshold.

        The rows are counted as :meth:`f_curve` counts them (count weights as frequency
        weights); see :func:`fmstats.inference.f_band` for the methods.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).
        weights : str or array_like, optional
            For ``newdata``: a column name or array of case weights.
        method : {"bootstrap", "profile", "delta"}, default "bootstrap"
            The band.
        level : float, default 0.95
            The pointwise level.
        B : int, optional
            Bootstrap replicates (default 2000), also those of the threshold interval.
        random_state : int, SeedSequence or Generator, optional
            Seed of the bootstrap.
        measure : FMeasure, optional
            The F-measure (default: the model's).
        beta, alpha : float, optional
            The F-measure given by its beta, or its weight on precision alpha.

        Returns
        -------
        CurveBand
            ``table``, ``best_threshold``, ``threshold_ci``.
        """
        from ..inference import f_band

        y, s, w = self._scored(newdata, weights)
        return f_band(y, s, w, method=method, level=level, B=B, random_state=random_state,
                      measure=self._measure_arg(measure, beta, alpha))

    @public
    def roc_auc(self, newdata=None, weights=None) -> float:
        """Area under the weighted ROC curve of the scores (trapezoid rule).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, counted with the fit's
            prior weights and trials).
        weights : str or array_like, optional
            For ``newdata``: a column name or array of case weights.

        Returns
        -------
        float
            The area under the ROC curve.

        Examples
        --------
        >>> import fmstats as fm
        >>> fit = fm.maxent("survived ~ sex + C(pclass)", fm.datasets.load_titanic())
        >>> 0.5 < fit.roc_auc() < 1
        True
        """
        y, s, w = self._scored(newdata, weights)
        return _pr.roc_auc(y, s, w)

    def _curve_points(self, curve):
        best = _pr.best_row(curve)
        t, strict, label = self._decision_rule()
        own = _pr.operating_row(curve, t, strict)
        return best, own, label

    def _pr_band(self, newdata, weights, band, level, B, random_state, measure=None):
        """The band of :meth:`plot_pr`, as :func:`fmstats.plotting.plot_pr` takes it."""
        if band is None:
            return None
        from ..inference import band_region

        if band == "profile":
            y, s, w = self._scored(newdata, weights)
            r, p, stat, crit = band_region(y, s, w, level)
            return {"r": r, "p": p, "stat": stat, "crit": crit,
                    "label": f"{100 * level:g}% profile-likelihood region (Urlus et al. 2023)"}
        t = self.f_band(newdata, weights, method=band, level=level, B=B,
                        random_state=random_state, measure=measure).table
        if "precision_low" not in t:
            raise InvalidArgumentError(f"`band`: plot_pr draws 'bootstrap' or 'profile' bands; "
                                       f"got {band!r}.")
        return {"recall": t["recall"].to_numpy(), "low": t["precision_low"].to_numpy(),
                "high": t["precision_high"].to_numpy(),
                "label": f"{100 * level:g}% pointwise bootstrap band of precision"}

    def _plot(self, which, newdata, weights, ax, measure=None, beta=None, alpha=None,
              **kwargs):
        from .. import plotting

        fm = self._measure_arg(measure, beta, alpha)
        curve = self.f_curve(newdata, weights, measure=fm)
        best, own, label = self._curve_points(curve)
        draw = plotting.plot_pr if which == "pr" else plotting.plot_roc
        return draw(curve, fm, best=best, own=own, own_label=label,
                    score_name=self._curve_score_name(), ax=ax,
                    data_label="training rows" if newdata is None else "newdata", **kwargs)

    @public
    def plot_pr(self, newdata=None, weights=None, *, ax=None, iso_f=(0.2, 0.4, 0.6, 0.8),
                measure=None, beta=None, alpha=None, band=False, band_method=None, level=0.95,
                B=None, random_state=None):
        """The precision-recall curve with iso-F lines of the model's measure.

        Marks the model's own decision rule and the F-optimal threshold (annotated with
        its value).  ``band=True`` shades the pointwise bootstrap interval of precision
        at each threshold; ``band_method="profile"`` the profile-likelihood region of the curve
        (Urlus et al. 2023: where some threshold's confusion multinomial is consistent with
        the (recall, precision) point at ``level``, chi-square with 2 df).  Returns the
        figure.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, counted with the fit's
            prior weights and trials).
        weights : str or array_like, optional
            For ``newdata``: a column name or array of case weights.
        ax : matplotlib Axes, optional
            The axes to draw on (default: a new figure).
        iso_f : sequence of float, default (0.2, 0.4, 0.6, 0.8)
            The F values of the iso-F lines.
        measure : FMeasure, optional
            The F-measure of the iso-F lines and of the F-optimal point, as in
            :meth:`f_curve` (default: the model's own); give at most one of ``measure``,
            ``beta`` and ``alpha``.
        beta, alpha : float, optional
            That F-measure by its beta, or by its weight on precision alpha.
        band : bool, default False
            An uncertainty band (see above); ``band="profile"``, the method given as ``band``,
            is the old spelling of ``band=True, band_method="profile"`` (deprecated).
        band_method : {"bootstrap", "profile"}, default "bootstrap"
            The band's method (with ``band=True``).
        level : float, default 0.95
            Its level.
        B : int, optional
            Bootstrap replicates of the bootstrap band.
        random_state : int, SeedSequence or Generator, optional
            Seed of the bootstrap.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.

        Examples
        --------
        >>> import fmstats as fm
        >>> fit = fm.maxent("survived ~ sex + C(pclass)", fm.datasets.load_titanic())
        >>> fig = fit.plot_pr()
        """
        band, band_method = interval_request(band, band_method, ("bootstrap", "profile"),
                                             default="bootstrap", call="plot_pr", name="band")
        fm = self._measure_arg(measure, beta, alpha)
        return self._plot("pr", newdata, weights, ax, fm, iso_f=iso_f,
                          band=self._pr_band(newdata, weights, band_method if band else None,
                                             level, B, random_state,
                                             measure=fm))

    @public
    def plot_roc(self, newdata=None, weights=None, *, ax=None, measure=None, beta=None,
                 alpha=None):
        """The weighted ROC curve with its AUC, the model's rule and the F-optimal point.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, counted with the fit's
            prior weights and trials).
        weights : str or array_like, optional
            For ``newdata``: a column name or array of case weights.
        ax : matplotlib Axes, optional
            The axes to draw on (default: a new figure).
        measure : FMeasure, optional
            The F-measure of the F-optimal point, as in :meth:`f_curve` (default: the
            model's own); give at most one of ``measure``, ``beta`` and ``alpha``.
        beta, alpha : float, optional
            That F-measure by its beta, or by its weight on precision alpha.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.

        Examples
        --------
        >>> import fmstats as fm
        >>> fit = fm.maxent("survived ~ sex + C(pclass)", fm.datasets.load_titanic())
        >>> fig = fit.plot_roc()
        """
        return self._plot("roc", newdata, weights, ax, measure, beta, alpha)
