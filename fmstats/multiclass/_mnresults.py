"""The results of :func:`fmstats.multinom`: coefficients per class, R's ``nnet::multinom``
summary, class probabilities, the multiclass micro-F and likelihood-ratio tests."""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats

from .. import measures as _m
from .._utils.validation import check_choice, describe
from ..exceptions import InvalidArgumentError, ModelComparisonError, ResponseError
from ..formula import check_frame, split_formula
from ..results import (ModelResults, Section, Summary, check_comparable, format_numbers,
                       predict_kept)
from ._mncore import class_probabilities

__all__ = ["MultinomResults", "lr_table"]


class MultinomResults(ModelResults):
    """A fitted multinomial maximum-entropy model (:func:`fmstats.multinom`).

    ``params`` is a Series indexed ``"class:term"`` (the non-reference classes, class by
    class), ``coefficients()`` and ``std_errors()`` the matrices R prints;
    ``predict(type="probs"|"class")``, ``confusion()``/``measure()`` (the multiclass micro-F
    with a default class, seed 001), ``deviance``, ``aic``, ``anova()``, ``refit()``.

    Parameters
    ----------
    settings : Settings
        The fit's settings (the call's arguments; the response column, its classes, the
        default class, the F-measure).
    call : ModelCall
        The recorded call.
    frame : ModelFrame
        The model frame of the right-hand side (design, encoding, used rows).
    codes : ndarray of int
        The class of each used row (0 the reference).
    prior_weights : ndarray
        The prior weights of the used rows.
    fit : MultinomFit
        The Newton solution.
    """

    _score_type = None          # class probabilities, not one score: no binary curves

    def __init__(self, *, settings, call, frame, codes, prior_weights, fit):
        self.settings = settings
        self.call = call
        self.formula = settings["formula"]
        self.response_name = settings["response"]
        self.levels = tuple(settings["levels"])
        self.default_class = settings["default_class"]
        self.fmeasure = settings["measure"]
        self.spec = frame.spec
        self.index = frame.index
        self.n_input = frame.n_input
        self.n_dropped = frame.n_dropped
        self.term_names = tuple(frame.column_names)
        self.X = frame.X
        self.codes = np.asarray(codes)
        self.prior_weights = np.asarray(prior_weights, dtype=float)
        self.core_fit = fit

    # ------------------------------------------------------------------ coefficients
    @property
    def reference(self):
        """The reference class (its coefficients are zero)."""
        return self.levels[0]

    @property
    def y(self) -> np.ndarray:
        """1 where a training row is of the reference class (what ``data`` checks compare)."""
        return (self.codes == 0).astype(float)

    @property
    def count_weights(self) -> np.ndarray:
        """The prior weights (the weight of each row in the confusion counts)."""
        return self.prior_weights

    @cached_property
    def params(self) -> pd.Series:
        """Coefficients, indexed ``"class:term"``, class by class."""
        names = [f"{c}:{t}" for c in self.levels[1:] for t in self.term_names]
        coef = self.core_fit.coef.astype(float).copy()
        if getattr(self.core_fit, "aliased", None) is not None:
            coef[self.core_fit.aliased] = np.nan          # dropped as collinear: NA, as R
        return pd.Series(coef.T.ravel(), index=pd.Index(names, name="term"))

    def cov_params(self, cov_type: str | None = None) -> pd.DataFrame:
        """The inverse of the negative Hessian (``vcov`` of ``nnet::multinom``).

        Parameters
        ----------
        cov_type : {"nonrobust"}, optional
            Only the model-based covariance.

        Returns
        -------
        pandas.DataFrame
            The covariance matrix, rows and columns labelled ``class:term``.
        """
        if cov_type is not None:
            check_choice("cov_type", cov_type, ("nonrobust",))
        names = self.params.index
        return pd.DataFrame(self.core_fit.cov, index=names, columns=names)

    def coefficients(self) -> pd.DataFrame:
        """The coefficient matrix: one row per non-reference class, one column per term.

        Returns
        -------
        pandas.DataFrame
            The coefficients, classes by terms.
        """
        return pd.DataFrame(self.params.to_numpy().reshape(len(self.levels) - 1, -1),
                            index=pd.Index(self.levels[1:]), columns=list(self.term_names))

    def std_errors(self) -> pd.DataFrame:
        """The standard errors in the layout of :meth:`coefficients`.

        Returns
        -------
        pandas.DataFrame
            The standard errors, classes by terms.
        """
        return pd.DataFrame(self.bse.to_numpy().reshape(len(self.levels) - 1, -1),
                            index=pd.Index(self.levels[1:]), columns=list(self.term_names))

    @property
    def nobs(self) -> int:
        """The number of rows used."""
        return int(len(self.codes))

    @property
    def df_resid(self) -> int:
        """Residual degrees of freedom as ``anova.multinom`` counts them: n (K - 1) - edf."""
        return self.nobs * (len(self.levels) - 1) - self.edf

    @property
    def edf(self) -> int:
        """The number of estimated coefficients, p (K - 1) (aliased columns excluded)."""
        return int(np.isfinite(self.params.to_numpy()).sum())

    @property
    def llf(self) -> float:
        """The weighted log-likelihood."""
        return float(self.core_fit.loglik)

    @property
    def deviance(self) -> float:
        """The residual deviance, -2 llf."""
        return -2.0 * self.llf

    @property
    def aic(self) -> float:
        """AIC = deviance + 2 edf (``nnet``'s)."""
        return self.deviance + 2.0 * self.edf

    @property
    def converged(self) -> bool:
        """Whether Newton's method converged."""
        return bool(self.core_fit.converged)

    @property
    def separated(self) -> bool:
        """Whether the fit has no finite maximum-likelihood estimate as far as Newton's
        method can tell (it did not converge)."""
        return not self.converged

    # ------------------------------------------------------------------ prediction
    def _design(self, newdata):
        if newdata is None:
            return self.X, self.index
        X, index = self.spec.build(check_frame(newdata, "newdata"), missing="drop")
        return X, index

    def predict(self, newdata=None, type: str = "probs") -> pd.DataFrame | pd.Series:
        """Class probabilities or classes (R's ``predict.multinom``).

        Parameters
        ----------
        newdata : DataFrame, optional
            The rows to predict (default: the training rows).
        type : {"probs", "class"}, default "probs"
            ``"probs"``: a DataFrame with one column per class; ``"class"``: the most
            probable class (ties: the first level).
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.DataFrame or pandas.Series
            The probabilities (one column per class) or the classes, one row per row of
            ``newdata``.
        """
        check_choice("type", type, ("probs", "class"))
        X, index = self._design(newdata)
        P = class_probabilities(X, self.core_fit.coef)
        if type == "probs":
            return pd.DataFrame(P, index=index, columns=pd.Index(self.levels, name="class"))
        cls = np.asarray(self.levels, dtype=object)[np.argmax(P, axis=1)]
        return pd.Series(cls, index=index, name="class")

    def _truth(self, newdata):
        """(true classes, weights, rows kept) of ``newdata`` (default: training rows)."""
        if newdata is None:
            return (np.asarray(self.levels, dtype=object)[self.codes], self.prior_weights,
                    None)
        newdata = check_frame(newdata, "newdata")
        if self.response_name not in newdata.columns:
            raise ResponseError(f"`newdata` lacks the response column {self.response_name!r}.")
        return newdata[self.response_name], None, newdata

    def confusion(self, newdata=None, **kwargs) -> _m.Confusion:
        """TP, FP, FN, TN of the multiclass micro-F with the default class (seed 001).

        TP: correct predictions of a non-default class; FN: non-default truths predicted
        wrongly; FP: default-class rows predicted as another class (seed 001's definition,
        as :func:`fmstats.costsens`); TN: default-class rows predicted default.

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows, with the prior weights).
        **kwargs
            ``default_class``: another default class.

        Returns
        -------
        Confusion
            The micro-averaged counts tp, fp, fn, tn.
        """
        d = kwargs.pop("default_class", self.default_class)
        if kwargs:
            raise InvalidArgumentError(f"confusion() got unexpected arguments {list(kwargs)}.")
        if d not in self.levels:
            raise InvalidArgumentError(f"`default_class` must be one of the classes "
                                       f"{describe(list(self.levels))}; got {describe(d)}.")
        truth, w, frame = self._truth(newdata)
        pred = predict_kept(self, frame, type="class")
        if frame is not None:
            truth = truth.loc[pred.index]
            keep = truth.notna().to_numpy()
            known_classes(truth[keep], self.levels)
            truth, pred = truth.to_numpy(dtype=object)[keep], pred.to_numpy()[keep]
            w = np.ones(len(truth))
        else:
            pred = pred.to_numpy()
        return multiclass_confusion(truth, pred, d, w)

    # ------------------------------------------------------------------ reporting
    def anova(self, *others) -> pd.DataFrame:
        """Likelihood-ratio tests against nested fits (R's ``anova.multinom``).

        Parameters
        ----------
        *others : MultinomResults
            Fits on the same rows; the table orders all fits by their number of
            coefficients.

        Returns
        -------
        pandas.DataFrame
            The analysis-of-deviance table, one row per model.
        """
        return lr_table(self, *others)

    def summary(self, digits: int = 7) -> Summary:
        """R's ``summary.multinom`` layout: coefficients and standard errors by class (each
        column in R's common format at ``digits`` significant digits), residual deviance
        and AIC.

        Parameters
        ----------
        digits : int, default 7
            Significant digits of the matrices (R's ``options("digits")``).

        Returns
        -------
        Summary
            The printable summary.
        """
        def cells(table):
            return pd.DataFrame({c: format_numbers(table[c].to_numpy(), digits)
                                 for c in table.columns}, index=table.index)

        coef, se = cells(self.coefficients()), cells(self.std_errors())
        lines = [f"Residual Deviance: {format_numbers([self.deviance], digits)[0]}",
                 f"AIC: {format_numbers([self.aic], digits)[0]}"]
        if not self.converged:
            lines.append("(Newton's method did not converge: raise max_iter.)")
        info = [f"Response: {self.response_name}, classes {', '.join(map(str, self.levels))} "
                f"(reference {self.reference!r}); n = {self.nobs}"]
        return Summary(title="Multinomial maximum-entropy model (multinom)", call=str(self.call),
                       sections=[Section("", info), Section("Coefficients:", table=coef),
                                 Section("Std. Errors:", table=se), Section("", lines)])

    def __repr__(self) -> str:
        return (f"<MultinomResults {self.formula!r}: {len(self.levels)} classes, n = "
                f"{self.nobs}, deviance = {self.deviance:.4g}>")


def known_classes(truth: pd.Series, levels) -> None:
    """Refuse true classes of ``newdata`` that the model was not fitted on: such a row can
    never be predicted right, and counting it as a miss would make the measure quietly
    worse (an unknown class is a different problem, not an error of the model)."""
    unknown = ~truth.isin(list(levels)).to_numpy()
    if unknown.any():
        bad = pd.unique(truth[unknown].to_numpy())
        raise ResponseError(
            f"`newdata`: the response holds {int(unknown.sum())} row(s) of class(es) "
            f"{describe(list(bad[:5]))}, which the model was not fitted on (classes "
            f"{describe(list(levels))}); drop those rows or refit with them.")


def multiclass_confusion(truth, pred, default_class, w=None) -> _m.Confusion:
    """Counts of the multiclass micro-F with a default class (seed 001's FP).

    Parameters
    ----------
    truth, pred : array-like
        True and predicted classes.
    default_class : object
        The default class.
    w : array-like, optional
        Row weights.

    Returns
    -------
    Confusion
    """
    truth, pred = np.asarray(truth, dtype=object), np.asarray(pred, dtype=object)
    w = np.ones(len(truth)) if w is None else np.asarray(w, dtype=float)
    dt, dp = truth == default_class, pred == default_class
    right = truth == pred
    return _m.Confusion(float(w @ (right & ~dt)), float(w @ (dt & ~dp)),
                        float(w @ (~right & ~dt)), float(w @ (dt & dp)))


def lr_table(*fits) -> pd.DataFrame:
    """Likelihood-ratio tests of nested multinomial fits (R's ``anova.multinom``).

    Parameters
    ----------
    *fits : MultinomResults
        Two or more fits on the same rows and response.

    Returns
    -------
    DataFrame
        Columns ``model``, ``resid_df``, ``resid_dev``, ``test``, ``df``, ``lr_stat``,
        ``p_value`` (R's ``Model``, ``Resid. df``, ``Resid. Dev``, ``Test``, ``Df``,
        ``LR stat.``, ``Pr(Chi)``), fits ordered by residual degrees of freedom (largest
        first).
    """
    if len(fits) < 2:
        raise InvalidArgumentError("anova() of multinom fits needs at least two fits to "
                                   "compare.")
    for i, f in enumerate(fits):
        if not isinstance(f, MultinomResults):
            raise ModelComparisonError(f"anova(): fit {i + 1} is {describe(f)}, not a multinom "
                                       "fit.")
    first = fits[0]
    for i, f in enumerate(fits[1:], 2):
        if f.response_name != first.response_name or f.levels != first.levels:
            raise ModelComparisonError(
                f"anova(): fit {i} has another response than fit 1 ({f.response_name!r} with "
                f"classes {describe(list(f.levels))} against {first.response_name!r} with "
                f"{describe(list(first.levels))}); likelihood-ratio tests compare fits of the "
                "same data.")
    order = sorted(fits, key=lambda f: -f.df_resid)
    # the same rows, classes and weights, and each fit nested in the next (R's anova.multinom
    # only orders the fits: non-nested ones gave df 0 and a negative statistic)
    check_comparable(order, "anova()", index=lambda f: f.index, response=lambda f: f.codes,
                     weights=lambda f: f.prior_weights, offset=lambda f: None,
                     design=lambda f: f.X, size=lambda f: f.edf)
    rows = []
    for i, f in enumerate(order):
        rhs = split_formula(f.formula)[1]
        row = {"model": rhs, "resid_df": float(f.df_resid), "resid_dev": f.deviance,
               "test": "", "df": np.nan, "lr_stat": np.nan, "p_value": np.nan}
        if i:
            prev = order[i - 1]
            df = prev.df_resid - f.df_resid
            lr = prev.deviance - f.deviance
            row.update(test=f"{i} vs {i + 1}", df=float(df), lr_stat=lr,
                       p_value=float(stats.chi2.sf(lr, df)) if df > 0 else np.nan)
        rows.append(row)
    out = pd.DataFrame(rows, index=pd.RangeIndex(1, len(rows) + 1))
    out.attrs["heading"] = ["Likelihood ratio tests of Multinomial Models", "",
                            f"Response: {first.response_name}"]
    return out
