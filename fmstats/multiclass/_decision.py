"""Multiclass F-optimal and cost-matrix decisions tuned by pooled cross-validation:
:func:`multiclass_decision` and :class:`MulticlassDecisionResults`.

The model is refitted on each training fold (``fit.refit``) and predicts the class
probabilities of its held-out fold (``predict(type="probs")``); the rule of
``_rules.py`` is tuned on the pooled held-out probabilities (one
criterion over all folds, as :func:`fmstats.tune_threshold` pools counts) and then applied
to the probabilities of the model fitted on all rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.boundary import public
from .._utils.call import Settings, records_call, refuse_unused
from .._utils.folds import check_folds, stratified_folds
from .._utils.validation import check_choice, check_random_state, check_scalar, describe
from ..exceptions import InvalidArgumentError, ResponseError
from ..formula import check_frame
from ..results import FitRows, TrainingRows, rows_of, training_frame
from ..results import Persistable, Section, Summary, keeps_rows, predict_kept
from ._mnresults import known_classes, multiclass_confusion
from ._rules import (cost_decision, frank_wolfe, macro_f, micro_curve, micro_scores,
                     weighted_argmax)

__all__ = ["multiclass_decision", "MulticlassDecisionResults", "MulticlassDecision"]

RULES = ("micro_f", "macro_f", "cost")


def micro_confusion(y, pred, d, w, wrong_class: str) -> _m.Confusion:
    """Micro-F counts with default class ``d`` under either ``wrong_class`` convention."""
    if wrong_class == "fn":
        return multiclass_confusion(y, pred, d, w)
    right, dt, dp = y == pred, y == d, pred == d
    return _m.Confusion(float(w @ (right & ~dt)), float(w @ (~right & ~dp)),
                        float(w @ (~right & ~dt)), float(w @ (dt & dp)))


def _check_cost(cost, levels) -> np.ndarray:
    K = len(levels)
    if cost is None:
        raise InvalidArgumentError("`cost` is needed for rule='cost': a K x K matrix of the "
                                   "cost of predicting column j when the truth is row i.")
    if isinstance(cost, pd.DataFrame):
        try:
            cost = cost.loc[list(levels), list(levels)]
        except KeyError as exc:
            raise InvalidArgumentError(f"`cost`: a DataFrame must be labelled by the classes "
                                       f"{describe(list(levels))} on both axes.") from exc
    try:
        c = np.asarray(cost, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"`cost` must be a {K} x {K} matrix of numbers (true class by "
                                   f"row, predicted by column); got {describe(cost)}.") from None
    if c.shape != (K, K):
        raise InvalidArgumentError(f"`cost` must be a {K} x {K} matrix (true class by row, "
                                   f"predicted by column, classes {describe(list(levels))}); "
                                   f"got shape {c.shape}.")
    if not np.isfinite(c).all():
        raise InvalidArgumentError("`cost` must hold finite numbers.")
    return c


def _oof(fit, frame, codes, K, folds):
    train = TrainingRows(fit, frame)
    P = np.full((len(frame), K), np.nan)
    split = np.full(len(frame), -1)
    for j, (tr, te) in enumerate(folds):
        if np.unique(codes[tr]).size < K:
            absent = sorted(set(range(K)) - set(np.unique(codes[tr]).tolist()))
            raise ResponseError(
                f"`cv`: training fold {j} lacks the class(es) "
                f"{describe([fit.levels[a] for a in absent])}; every fold refit needs every "
                "class (lower `cv`, or merge rare classes).")
        f_j = train.refit(tr)
        pr = predict_kept(f_j, frame.iloc[te], type="probs").reindex(frame.index[te])
        P[te] = pr[list(fit.levels)].to_numpy(dtype=float)
        split[te] = j
    return P, split


@records_call(rows=("cv",))
def multiclass_decision(fit, data: pd.DataFrame | None = None, *, rule: str = "micro_f",
                        default_class=None, cost=None, measure=None, beta=None, alpha=None,
                        wrong_class: str = "fn", cv=5, iterations: int = 50,
                        random_state=None, _call=None) -> "MulticlassDecisionResults":
    """The F-optimal (or least-cost) multiclass decision from a model's class probabilities,
    tuned by pooled cross-validation.

    Parameters
    ----------
    fit : MultinomResults
        A fitted multiclass model with ``predict(type="probs")`` and ``refit``.
    data : DataFrame
        The data ``fit`` was fitted on.
    rule : {"micro_f", "macro_f", "cost"}, default "micro_f"
        ``"micro_f"``: the multiclass micro-F with a default class (seed 001; the plug-in
        rule with a threshold tuned exactly); ``"macro_f"``: macro-F by Frank-Wolfe
        (Narasimhan et al. 2015); ``"cost"``: the least expected cost under ``cost``.
    default_class : object, optional
        The default class of ``"micro_f"`` (default: the model's ``default_class``, else
        the most frequent class).
    cost : array-like or DataFrame of shape (K, K), optional
        For ``"cost"`` (refused with the other rules, where it would have no effect): the
        cost of predicting class j (column) when the truth is class i (row), classes in the
        model's order (or a DataFrame labelled by them).
    measure, beta, alpha : FMeasure or float, optional
        The F-measure of the F rules (default F1; refused with ``"cost"``).
    wrong_class : {"fn", "fn_fp"}, default "fn"
        How a confusion between two non-default classes counts in the micro-F: ``"fn"``
        (seed 001 and :func:`fmstats.costsens`) or ``"fn_fp"`` (scikit-learn's micro
        average over the non-default labels); see :func:`fmstats.measures.multiclass_micro_f`.
    cv : int, splitter or iterable of (train, test) positions, default 5
        Stratified folds (by class), a splitter (``split(X, y)``, on the class codes) or the
        folds themselves (training and test rows disjoint, each row in exactly one test
        fold: otherwise an error naming ``cv``).
    iterations : int, default 50
        Frank-Wolfe iterations (``"macro_f"``; refused with the other rules).
    random_state : int or numpy.random.Generator, optional
        Seeds the folds of an integer ``cv``.

    Returns
    -------
    MulticlassDecisionResults

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> fit = fm.multinom("pclass ~ age + sex + sibsp", t)
    >>> fm.multiclass_decision(fit, t, rule="macro_f", random_state=0)
    <MulticlassDecisionResults macro_f on MultinomResults: CV 0.4883 (most probable class 0.4191)>
    >>> fm.multiclass_decision(fit, t, rule="micro_f", default_class=3, random_state=0)
    <MulticlassDecisionResults micro_f on MultinomResults: CV 0.5103 (most probable class 0.4106)>
    """
    check_choice("rule", rule, RULES)
    for names, rules in ((["cost"], ("cost",)), (["iterations"], ("macro_f",)),
                         (["measure", "beta", "alpha"], ("micro_f", "macro_f"))):
        if rule not in rules:
            refuse_unused(_call, names, f"with rule={rule!r}",
                          f"use rule={rules[0]!r}" if len(rules) == 1 else "")
    check_choice("wrong_class", wrong_class, ("fn", "fn_fp"))
    check_scalar("iterations", iterations, low=1, integer=True)
    if not (callable(getattr(fit, "refit", None)) and hasattr(fit, "levels")):
        raise InvalidArgumentError(f"`fit` must be a fitted multiclass model with class "
                                   f"probabilities (fm.multinom); got {describe(fit)}.")
    if data is None:
        raise InvalidArgumentError("multiclass_decision() needs `data`, the DataFrame the "
                                   "model was fitted on (the folds refit it).")
    fm_ = _m.as_fmeasure(measure, beta, alpha)
    levels = tuple(fit.levels)
    K = len(levels)
    c = _check_cost(cost, levels) if rule == "cost" else None
    frame = training_frame(fit, check_frame(data, "data"),
                           what="multiclass_decision()").reset_index(drop=True)
    codes = np.asarray(fit.codes)
    w = np.asarray(fit.prior_weights, dtype=float)
    d = getattr(fit, "default_class", None) if default_class is None else default_class
    if d not in levels:
        raise InvalidArgumentError(f"`default_class` must be one of the classes "
                                   f"{describe(list(levels))}; got {describe(d)}.")
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        check_scalar("cv", int(cv), low=2, integer=True)
        folds = stratified_folds(codes, int(cv), check_random_state(random_state))
    else:
        # every row gets one out-of-fold probability, from a fit that did not see it
        folds = check_folds(cv, len(codes), strata=codes, partition=True)
    P, split = _oof(fit, frame, codes, K, folds)
    di = levels.index(d)
    rule_params = {}
    if rule == "micro_f":
        k, r = micro_scores(P, di, wrong_class)
        cuts, f = micro_curve(r, k, codes, w, di, wrong_class, fm_.alpha)
        j = _m.best_position(f)
        # the midpoint between the lowest score deciding k and the next; finite at the ends
        # (just above the highest score: all default; the lowest score: none default)
        thr = (np.nextafter(cuts[1], np.inf) if j == 0 else
               0.5 * (cuts[j] + cuts[j + 1]) if j + 1 < len(cuts) else cuts[j])
        rule_params = {"threshold": float(thr)}
        cv_score = float(f[j])
        curve = pd.DataFrame({"cut": cuts, "f": f})
    elif rule == "macro_f":
        scale, shift, cv_score, hist = frank_wolfe(P, codes, w, fm_.alpha, iterations)
        rule_params = {"scale": scale, "shift": shift}
        curve = pd.DataFrame({"iteration": np.arange(len(hist)), "macro_f": hist})
    else:
        pred = cost_decision(P, c)
        cv_score = float(w @ c[codes, pred] / w.sum())
        rule_params = {"cost": c}
        curve = None
    argmax_oof = np.argmax(P, axis=1)
    baseline = (micro_confusion(codes, argmax_oof, di, w, wrong_class).f(fm_)
                if rule == "micro_f"
                else macro_f(argmax_oof, codes, w, K, fm_.alpha) if rule == "macro_f"
                else float(w @ c[codes, argmax_oof] / w.sum()))
    settings = Settings.of(_call, drop=("fit",), default_class=d, measure=fm_,
                           cv=cv if isinstance(cv, (int, np.integer)) else "<folds>")
    oof = pd.DataFrame(P, columns=pd.Index(levels, name="class"))
    oof.insert(0, "split", split)
    oof.insert(1, "y", np.asarray(levels, dtype=object)[codes])
    oof.insert(2, "weight", w)
    return MulticlassDecisionResults(base=fit, rule_params=rule_params, cv_score=cv_score,
                              baseline=float(baseline), curve=curve, oof=oof, folds=folds,
                              settings=settings, call=_call)


class MulticlassDecisionResults(Persistable, FitRows):
    """A multiclass model with a decision rule tuned by pooled CV (:func:`multiclass_decision`).

    ``predict(newdata)`` gives the decided classes (``type="probs"``: the base model's
    probabilities); ``confusion``/``measure`` the tuned criterion on new data (micro-F
    counts, macro-F, or the mean cost); ``cv_score`` the pooled held-out criterion of the
    tuned rule and ``cv_baseline`` that of the most probable class.

    Parameters
    ----------
    base : MultinomResults
        The model fitted on all rows.
    rule_params : dict
        The tuned rule: ``threshold`` (micro-F), ``scale``/``shift`` (macro-F) or ``cost``.
    cv_score : float
        The pooled held-out criterion at the tuned rule.
    baseline : float
        The pooled held-out criterion of the most probable class.
    curve : DataFrame or None
        Micro-F at every cut, or macro-F at every Frank-Wolfe iterate.
    oof : DataFrame
        The pooled held-out probabilities (split, y, weight, one column per class).
    folds : list of (ndarray, ndarray)
        The (train, test) positions.
    settings : Settings
        The call's settings: rule, default_class, measure, wrong_class, cv, random_state,
        iterations.
    call : ModelCall
        The recorded call.
    """

    def __init__(self, *, base, rule_params, cv_score, baseline, curve, oof, folds, settings,
                 call):
        self.base = base
        self.rule_params = rule_params
        self.cv_score = cv_score
        self.cv_baseline = baseline
        self.curve = curve
        self.oof = oof
        self.folds = folds
        self.settings = settings
        self.call = call
        self.rule = settings["rule"]
        self.levels = tuple(base.levels)
        self.default_class = settings["default_class"]
        self.fmeasure = settings["measure"]

    @public
    def decide(self, P: np.ndarray) -> np.ndarray:
        """The class codes the tuned rule gives probabilities ``P`` (n, K).

        Parameters
        ----------
        P : ndarray of shape (n, K)
            Class probabilities in the model's class order.

        Returns
        -------
        numpy.ndarray
            The class code of each row.
        """
        P = np.asarray(P, dtype=float)
        if self.rule == "micro_f":
            di = self.levels.index(self.default_class)
            k, r = micro_scores(P, di, self.settings["wrong_class"])
            return np.where(r >= self.rule_params["threshold"], k, di)
        if self.rule == "macro_f":
            return weighted_argmax(P, self.rule_params["scale"], self.rule_params["shift"])
        return cost_decision(P, self.rule_params["cost"])

    @public
    @keeps_rows
    def predict(self, newdata=None, type: str = "class"):
        """The decided classes (``"class"``) or the base model's probabilities (``"probs"``).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows to predict (default: the training rows).
        type : {"class", "probs"}, default "class"
            What to return.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series or pandas.DataFrame
            The classes, or the probabilities (one column per class).
        """
        check_choice("type", type, ("class", "probs"))
        pr = predict_kept(self.base, newdata, type="probs")
        if type == "probs":
            return pr
        codes = self.decide(pr[list(self.levels)].to_numpy())
        return pd.Series(np.asarray(self.levels, dtype=object)[codes], index=pr.index,
                         name="class")

    def _truth_pred(self, newdata):
        if newdata is None:
            return (np.asarray(self.base.codes), self.decide(self.base.predict(None).to_numpy()),
                    np.asarray(self.base.prior_weights, dtype=float))
        newdata = check_frame(newdata, "newdata")
        name = self.base.response_name
        if name not in newdata.columns:
            raise ResponseError(f"`newdata` lacks the response column {name!r}.")
        pred = predict_kept(self, newdata)
        truth = newdata[name].loc[pred.index]
        keep = truth.notna().to_numpy()
        known_classes(truth[keep], self.levels)
        lv = {c: i for i, c in enumerate(self.levels)}
        codes = np.array([lv[v] for v in truth[keep]], dtype=np.int64)
        pcodes = np.array([lv[v] for v in pred[keep]], dtype=np.int64)
        return codes, pcodes, np.ones(len(codes))

    @public
    def confusion(self, newdata=None) -> _m.Confusion:
        """Micro-F counts of the decided classes (seed 001's, with the default class).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).

        Returns
        -------
        Confusion
            The micro-averaged counts tp, fp, fn, tn.
        """
        y, pred, w = self._truth_pred(newdata)
        return micro_confusion(y, pred, self.levels.index(self.default_class), w,
                               self.settings["wrong_class"])

    @public
    def measure(self, newdata=None) -> float:
        """The tuned criterion on ``newdata``: micro-F, macro-F, or the mean cost.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).

        Returns
        -------
        float
            The criterion's value.
        """
        if self.rule == "micro_f":
            return float(self.confusion(newdata).f(self.fmeasure))
        y, pred, w = self._truth_pred(newdata)
        if self.rule == "macro_f":
            return macro_f(pred, y, w, len(self.levels), self.fmeasure.alpha)
        return float(w @ self.rule_params["cost"][y, pred] / w.sum())

    @public
    def refit(self, data: pd.DataFrame, weights=None) -> "MulticlassDecisionResults":
        """Refit the base model on ``data`` and tune the rule again.

        Parameters
        ----------
        data : DataFrame
            The new data.
        weights : str or array-like, optional
            The base model's prior weights for ``data`` (needed again for array weights).

        Returns
        -------
        MulticlassDecisionResults
            The refitted, retuned rule.
        """
        # the default class the fit resolved stays (the refitted model's may differ)
        return self.call.refit_model_run(data, self.base, n_folds=len(self.folds),
                                         weights=weights,
                                         default_class=self.settings["default_class"])

    @property
    def fitted_model(self):
        """The base model whose class probabilities the rule decides on."""
        return self.base

    @property
    def params(self) -> pd.Series:
        """The base model's coefficients and the rule's tuned numbers (what bootstrap
        resamples)."""
        extra = {}
        if self.rule == "micro_f":
            extra["threshold"] = self.rule_params["threshold"]
        elif self.rule == "macro_f":
            extra.update({f"shift:{c}": v for c, v in zip(self.levels, self.rule_params["shift"])})
        return pd.concat([self.base.params, pd.Series(extra, dtype=float)])

    @public
    def summary(self) -> Summary:
        """The rule, its pooled held-out criterion and that of the most probable class.

        Returns
        -------
        Summary
            The printable summary.
        """
        crit = {"micro_f": f"micro-{self.fmeasure.name} (default class "
                           f"{self.default_class!r}, wrong_class='{self.settings['wrong_class']}')",
                "macro_f": f"macro-{self.fmeasure.name}", "cost": "mean cost"}[self.rule]
        lines = [("Criterion", crit), ("Folds", f"{len(self.folds)} (pooled held-out rows)"),
                 ("CV criterion of the tuned rule", self.cv_score),
                 ("CV criterion of the most probable class", self.cv_baseline)]
        if self.rule == "micro_f":
            lines.append(("Threshold on p_k / (p_k + E[FP])", self.rule_params["threshold"]))
        return Summary(title="Multiclass decision tuned by pooled cross-validation",
                       call=str(self.call), sections=[Section("", lines)])

    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def __repr__(self) -> str:
        return (f"<MulticlassDecisionResults {self.rule} on {type(self.base).__name__}: CV "
                f"{self.cv_score:.4f} (most probable class {self.cv_baseline:.4f})>")


#: The name of :class:`MulticlassDecisionResults` before results classes were named after the
#: function that makes them (:func:`multiclass_decision`); kept for code and results files.
MulticlassDecision = MulticlassDecisionResults
