"""The results object of :func:`fmstats.costsensitive.costsens`."""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit, softmax

from .. import measures as _m
from .._utils.validation import check_binary, check_choice, describe, interval_request
from ..exceptions import InvalidArgumentError, UnseenLevelError
from ..results import ModelResults
from ..results import Section, Summary
from ._search import multiclass_margin

__all__ = ["CostsensResults", "CostSensitiveResults", "MEASURE_TITLES"]

MEASURE_TITLES = {
    "f": "binary F",
    "micro_f": "multi-label micro-F",
    "macro_f": "multi-label macro-F (binary relevance, one search per label)",
    "multiclass_f": "multiclass micro-F with a default class",
}
_VARIANTS = {"-": "no cost asymmetry, no threshold tuning",
             "T": "threshold tuned on the validation part",
             "CS": "cost-sensitive learner, its own cut",
             "CS&T": "cost-sensitive learner and tuned threshold"}


def _fmt_table(df: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    out = df.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c].dtype):
            out[c] = out[c].map(lambda v: f"{v:.{digits}g}" if np.isfinite(v) else str(v))
    return out


class CostsensResults(ModelResults):
    """A classifier selected by the cost-sensitive reduction (seed 001).

    Built by :func:`~fmstats.costsensitive.costsens` (and ``costsens_arrays``,
    ``costsens_variants``), not directly.

    Parameters
    ----------
    **kw
        The fields of the fit, set as attributes: those listed below and the ones
        prediction and display use (coefficients, design spec, outputs, settings, call).

    Attributes
    ----------
    kind : ``"binary"``, ``"multilabel"`` or ``"multiclass"``.
    measure_name : ``"f"``, ``"micro_f"``, ``"macro_f"`` or ``"multiclass_f"``.
    fmeasure : the :class:`~fmstats.measures.FMeasure` (beta, alpha).
    variant : ``"-"``, ``"T"``, ``"CS"`` or ``"CS&T"`` (section 5 of the paper).
    learner : ``"logit"`` or ``"svm"``.
    coef : Series (binary) or DataFrame (terms x labels / classes) of the selected model(s).
    best_cost, best_threshold : the selected level t and cut on the score (link) scale;
        Series by label for macro-F.  Scores are log-odds (logit), SVM decision values, or
        for multiclass the margin "best non-default score - default score".
    validation_f : the validation value of the measure at the selection (macro-F: the mean
        of the per-label validation F).
    curve : one row per fitted level (and label, for macro-F): t, FN/FP costs, threshold,
        validation F, TP/FP/FN counts, total cost <a(t), e> + b(t), convergence.
    n_train, n_validation, validation_mask : the split (mask over the rows used).
    """

    _score_type = None  # no score curves (f_curve, plot_pr) yet: scores depend on the variant

    def __init__(self, **kw):
        self.__dict__.update(kw)

    # ------------------------------------------------------------------ tables
    @cached_property
    def coef(self):
        """The selected classifier's coefficients: a Series by term, or a DataFrame (terms
        by class or label) for several outputs."""
        if self._coef.ndim == 1:
            return pd.Series(self._coef, index=pd.Index(self.term_names, name="term"),
                             name="estimate")
        return pd.DataFrame(self._coef, index=pd.Index(self.term_names, name="term"),
                            columns=pd.Index(self.outputs, name=self._output_name))

    @property
    def params(self):
        """The coefficients (:attr:`coef`), for the results protocol."""
        return self.coef

    @property
    def _output_name(self) -> str:
        return "class" if self.kind == "multiclass" else "label"

    @property
    def converged(self) -> bool:
        """Whether every fit of every level met its convergence criterion."""
        return bool(self.curve["converged"].all())

    def tidy(self) -> pd.DataFrame:
        """The F-versus-cost curve on the validation part (one row per fitted level).

        Returns
        -------
        pandas.DataFrame
            One row per cost level.
        """
        return self.curve.copy()

    def cov_params(self, cov_type=None):
        """Refused: a classifier selected on a validation split has no coefficient covariance.

        Parameters
        ----------
        cov_type : str, optional
            Ignored.

        Raises
        ------
        InvalidArgumentError
            Always; use fmstats' bootstrap for uncertainty.
        """
        raise InvalidArgumentError(
            "costsens selects a classifier on a validation split; it has no coefficient "
            "covariance (use fmstats' bootstrap for uncertainty).")

    def conf_int(self, level: float = 0.95, cov_type=None):
        """Refused, as :meth:`cov_params`: there is no coefficient covariance.

        Parameters
        ----------
        level : float, default 0.95
            Ignored.
        cov_type : str, optional
            Ignored.

        Returns
        -------
        pandas.DataFrame
            Not reached: :meth:`cov_params` raises.

        Raises
        ------
        InvalidArgumentError
            Always.
        """
        return self.cov_params()

    # ------------------------------------------------------------------ prediction
    def _design(self, newdata):
        if newdata is None:
            raise InvalidArgumentError(
                "`newdata` is required: costsens keeps no copy of the training rows.")
        if self.spec is None:
            X = np.asarray(newdata, dtype=float)
            if X.ndim != 2 or X.shape[1] != len(self.term_names):
                raise InvalidArgumentError(
                    f"`newdata` must be a matrix with {len(self.term_names)} columns (the design "
                    f"used to fit); got {describe(newdata)}.")
            return X, pd.RangeIndex(X.shape[0])
        return self.spec.build(newdata, missing="drop")

    def _classes(self, X) -> np.ndarray:
        """0/1 predictions (binary: (n,), multilabel: (n, L)) or class indices (multiclass)."""
        S = X @ self._coef
        if self.kind == "multiclass":
            m, cand = multiclass_margin(S, self.default_index)
            return np.where(m >= self.best_threshold, cand, self.default_index)
        thr = self._thr
        return (S >= thr).astype(np.int64)

    @property
    def _thr(self):
        t = self.best_threshold
        return t.to_numpy() if isinstance(t, pd.Series) else t

    def predict(self, newdata, type: str = "class"):
        """Predictions for ``newdata``.

        ``type="class"``: the selected classifier's decisions (0/1; a 0/1 DataFrame for
        multi-label; class labels for multiclass); ``"link"``: the scores before the
        threshold (log-odds or SVM decision values; a DataFrame with one column per label or
        class); ``"response"``: probabilities of the logistic learner (multiclass: the
        weighted multinomial's class probabilities).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like
            The rows to predict: a DataFrame with the formula's columns, or a design
            matrix (with the fit's columns) for a fit of ``costsens_arrays``.
        type : {"class", "link", "response"}, default "class"
            What to predict (see above).
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series or pandas.DataFrame
            One value per row, or one column per label or class.
        """
        check_choice("type", type, ("class", "link", "response"))
        X, index = self._design(newdata)
        if type == "class":
            c = self._classes(X)
            if self.kind == "multiclass":
                return pd.Series(np.asarray(self.outputs, dtype=object)[c], index=index,
                                 name="class")
            if self.kind == "multilabel":
                return pd.DataFrame(c, index=index, columns=list(self.outputs))
            return pd.Series(c, index=index, name="class")
        if type == "response" and self.learner != "logit":
            raise InvalidArgumentError(
                f"type='response' needs probabilities, which learner={self.learner!r} does not "
                "give; use type='link' for its decision values.")
        S = X @ self._coef
        if type == "response":
            S = softmax(S, axis=1) if self.kind == "multiclass" else expit(S)
        if S.ndim == 1:
            return pd.Series(S, index=index, name=type)
        return pd.DataFrame(S, index=index, columns=list(self.outputs))

    # ------------------------------------------------------------------ performance
    def _truth(self, newdata, y):
        """(truth, predictions) on newdata: 0/1 vector, 0/1 matrix or class indices."""
        X, index = self._design(newdata)
        if self.spec is None:
            if y is None:
                raise InvalidArgumentError("`y` is required with a design-matrix `newdata`.")
            truth = np.asarray(y)
        elif self.kind == "binary":
            resp, X, index = self.spec.build_with_response(newdata, missing="drop")
            truth = resp.y
        elif self.kind == "multilabel":
            truth = np.column_stack([check_binary(f"label '{c}' of newdata",
                                                  newdata.loc[index, c].to_numpy())
                                     for c in self.outputs])
        else:
            truth = newdata.loc[index, self.response_name].to_numpy()
        if self.kind == "multiclass":
            lookup = {c: i for i, c in enumerate(self.outputs)}
            unseen = [v for v in pd.unique(truth) if v not in lookup]
            if unseen:
                raise UnseenLevelError(
                    f"the response has class {unseen[0]!r}, which was not present when the "
                    f"model was fitted (known classes: {', '.join(map(repr, self.outputs))}).")
            truth = np.array([lookup[v] for v in truth]) if truth.size else truth.astype(int)
        return truth, self._classes(X)

    def confusion(self, newdata, y=None, by_label: bool = False):
        """Confusion counts of the selected classifier on ``newdata``.

        Binary: the 2x2 counts.  Multi-label: the counts pooled over labels (the micro
        counts), or with ``by_label=True`` a DataFrame of tp, fp, fn, tn per label.
        Multiclass (seed 001's definition): TP = a non-default truth predicted right,
        FN = a non-default truth predicted wrong, FP = a default-class truth predicted as
        another class.  ``y`` is needed only when ``newdata`` is a design matrix.

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like
            The rows to score: a DataFrame with the response and the formula's columns, or
            a design matrix for a fit of ``costsens_arrays``.
        y : array-like, optional
            The truth, when ``newdata`` is a design matrix.
        by_label : bool, default False
            Multi-label: a DataFrame of tp, fp, fn, tn per label instead of the pooled
            counts.

        Returns
        -------
        Confusion or pandas.DataFrame
            The confusion counts.
        """
        truth, pred = self._truth(newdata, y)
        if self.kind == "multiclass":
            d = self.default_index
            right = truth == pred
            tp = float(np.sum(right & (truth != d)))
            fn = float(np.sum(~right & (truth != d)))
            fp = float(np.sum((truth == d) & (pred != d)))
            return _m.Confusion(tp, fp, fn, truth.size - tp - fn - fp)
        Y, P = truth.astype(float), pred.astype(float)
        tp, fp = (Y * P).sum(axis=0), ((1 - Y) * P).sum(axis=0)
        fn, tn = (Y * (1 - P)).sum(axis=0), ((1 - Y) * (1 - P)).sum(axis=0)
        if by_label and self.kind == "multilabel":
            return pd.DataFrame({"tp": tp, "fp": fp, "fn": fn, "tn": tn},
                                index=pd.Index(self.outputs, name="label"))
        return _m.Confusion(float(np.sum(tp)), float(np.sum(fp)), float(np.sum(fn)),
                            float(np.sum(tn)))

    def measure(self, newdata, y=None, measure=None, *, beta=None, alpha=None, ci=False,
                ci_method=None, level=0.95, B=None, random_state=None):
        """The fit's measure (F, micro-F, macro-F or multiclass micro-F) on ``newdata``; with
        ``ci=True``, with its interval.

        Empty denominators follow :mod:`fmstats.measures` (``zero_division=1``: a label with
        neither truth nor predictions has F = 1 in the macro mean).

        Parameters
        ----------
        newdata : pandas.DataFrame or array-like
            The rows to score, as in :meth:`confusion`.
        y : array-like, optional
            The truth, when ``newdata`` is a design matrix.
        measure : FMeasure, optional
            The F-measure (default: the fit's own).
        beta, alpha : float, optional
            The F-measure by its beta or by its weight alpha on precision (at most one of
            ``measure``, ``beta`` and ``alpha``).
        ci : bool, default False
            Return the :class:`fmstats.inference.MeasureInterval` of
            :func:`fmstats.f_interval` (binary F, micro-F and macro-F; the multiclass
            micro-F with a default class has none) instead of a float (``ci="delta"`` is the
            old spelling of ``ci=True, ci_method="delta"``: deprecated).
        ci_method : {"delta", "bayes", "bootstrap"}, default "delta"
            The method of the interval (with ``ci=True``), as ``method`` of
            :func:`fmstats.f_interval`.
        level : float, default 0.95
            The level of the interval (with ``ci``).
        B : int, optional
            Draws of the Monte-Carlo methods (with ``ci``).
        random_state : int, SeedSequence or Generator, optional
            Seed of the Monte-Carlo methods (with ``ci``).

        Returns
        -------
        float or MeasureInterval
            The measure's value, or with ``ci`` the interval object.
        """
        from ..inference import F_METHODS, f_interval

        ci, ci_method = interval_request(ci, ci_method, F_METHODS, default="delta",
                                         call="measure")
        fm = self.resolve_measure(measure, beta, alpha)
        truth, pred = self._truth(newdata, y)
        if ci:
            if self.kind == "multiclass":
                raise InvalidArgumentError(
                    "`ci`: fmstats has no interval for the multiclass micro-F with a default "
                    "class (f_interval covers binary, micro and macro F); got ci=True on a "
                    "multiclass fit.")
            avg = {"f": "binary", "micro_f": "micro", "macro_f": "macro"}[self.measure_name]
            return f_interval(truth, pred, measure=fm, average=avg, method=ci_method,
                              level=level, B=B, random_state=random_state)
        if self.kind == "multiclass":
            return float(_m.multiclass_micro_f(truth, pred, self.default_index, measure=fm,
                                               wrong_class="fn"))
        avg = {"f": "binary", "micro_f": "micro", "macro_f": "macro"}[self.measure_name]
        return float(_m.f_score(truth, pred, measure=fm, average=avg))

    def coefficient_table(self, level: float = 0.95):
        """None: the table of a cost-sensitive fit is its F-versus-cost curve (``tidy``).

        Parameters
        ----------
        level : float, default 0.95
            Unused.

        Returns
        -------
        None
            No coefficient table.
        """
        return None

    def refit(self, data=None, *, rows=None):
        """Run :func:`costsens` again with the same settings on ``data``.

        Parameters
        ----------
        data : pandas.DataFrame, optional
            The data to fit, with the columns the formula refers to (or give ``rows``).
        rows : RowSelection, optional
            Rows of the training data (``TrainingRows.take``), instead of ``data``.

        Returns
        -------
        CostsensResults
            The new fit.
        """
        if self.formula is None:
            raise InvalidArgumentError(
                "refit() needs a fit made from a formula; call costsens_arrays() again.")
        return super().refit(data, rows=rows)

    # ------------------------------------------------------------------ display
    def _selection_lines(self) -> list:
        top = 1.0 + self.fmeasure.beta ** 2
        if self.measure_name == "macro_f":
            return [("Validation macro-F (mean over labels)", self.validation_f),
                    "  per-label selection in the table below"]
        t = self.best_cost
        thr = self.best_threshold
        lines = [("Cost level t", t),
                 ("Costs", f"false negative {top - t:.4g}, false positive {t:.4g}"
                  + (" (default class: t, other classes: 1+beta^2-t)"
                     if self.kind == "multiclass" else ""))]
        thr_txt = f"{thr:.6g} on the {self._score_name} scale"
        if self.learner == "logit" and self.kind != "multiclass" and np.isfinite(thr):
            thr_txt += f" (probability {float(expit(thr)):.4g})"
        lines += [("Threshold", thr_txt), ("Validation F", self.validation_f)]
        return lines

    @property
    def _score_name(self) -> str:
        if self.kind == "multiclass":
            return "margin (best non-default minus default score)"
        return "log-odds" if self.learner == "logit" else "SVM decision"

    def summary(self) -> Summary:
        """The measure, the learner, the cost levels tried and the selected classifier.

        Returns
        -------
        Summary
            The printable summary.
        """
        fm = self.fmeasure
        learner = ("class-weighted ridge logistic regression" if self.learner == "logit"
                   else "class-weighted linear soft-margin SVM (C = 1/penalty)")
        if self.kind == "multiclass" and self.learner == "logit":
            learner = "class-weighted ridge multinomial logistic regression"
        elif self.kind == "multiclass":
            learner += ", one versus rest"
        info = [("Measure", f"{MEASURE_TITLES[self.measure_name]}; {fm}"),
                ("Variant", f"{self.variant} ({_VARIANTS[self.variant]})"),
                ("Learner", f"{learner}, penalty {self.penalty:g}"),
                ("Search", self.search),
                ("Split", f"train {self.n_train} rows, validation {self.n_validation} rows")]
        if self.kind == "multilabel":
            info.append(("Labels", ", ".join(map(str, self.outputs))))
        if self.kind == "multiclass":
            info.append(("Classes", ", ".join(map(str, self.outputs))
                         + f"; default class {self.outputs[self.default_index]!r}"))
        conv = self.curve["converged"]
        info.append(("Convergence", "every fit converged" if conv.all() else
                     f"{int((~conv).sum())} of {len(conv)} fits DID NOT CONVERGE"))
        sections = [Section("Cost-sensitive reduction (seed 001):", info),
                    Section("Selected on the validation part:", self._selection_lines())]
        if self.measure_name == "macro_f":
            sel = pd.DataFrame({"t": self.best_cost, "threshold": self.best_threshold,
                                "validation_f": self.label_f})
            sections[-1].table = _fmt_table(sel)
            sections.append(Section("Levels fitted per label: see tidy()", []))
        else:
            cols = ["t", "fn_cost", "fp_cost", "threshold", "f", "cost", "converged"]
            sections.append(Section("Validation F and total cost <a(t), e> + b(t) by cost "
                                    "level:", [],
                                    table=_fmt_table(self.curve[cols]).set_index("t")))
        coef = self.coef
        if coef.size <= 60:
            tab = coef.to_frame() if isinstance(coef, pd.Series) else coef
            sections.append(Section("Coefficients of the selected model:", [],
                                    table=_fmt_table(tab, 5)))
        else:
            sections.append(Section(f"Coefficients: {coef.shape[0]} terms x {coef.shape[1]} "
                                    "outputs, see .coef", []))
        return Summary(title="Cost-sensitive F-measure maximisation", call=str(self.call),
                       sections=sections)

    def __repr__(self) -> str:
        return (f"<CostsensResults {self.measure_name}, {self.variant}, "
                f"learner={self.learner}: validation F = {self.validation_f:.4f}>")

    def plot(self, ax=None):
        """Validation F against the cost level t, with the line F = t.

        Proposition 2: the best classifier is found at the level t equal to its own F.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ..plotting import new_axes, finish_figure

        fig, ax = new_axes(ax)
        c = self.curve
        if self.measure_name == "macro_f":
            for lab, part in c.groupby("label", sort=False):
                ax.plot(part["t"], part["f"], marker=".", alpha=0.7, label=str(lab))
        else:
            ax.plot(c["t"], c["f"], marker="o", label="validation F")
            ax.axvline(self.best_cost, linestyle=":", color="grey", label="selected t")
        lim = min(float(c["t"].max()), 1.0)
        ax.plot([0, lim], [0, lim], color="black", linewidth=0.6, linestyle="--", label="F = t")
        ax.set_xlabel("cost level t (FP cost t, FN cost 1+beta^2-t)")
        ax.set_ylabel("validation F of each label" if self.measure_name == "macro_f" else
                      f"validation {MEASURE_TITLES[self.measure_name]}")
        ax.set_title(f"costsens {self.variant}, learner {self.learner}")
        ax.legend(fontsize="x-small", ncol=2 if self.measure_name == "macro_f" else 1)
        return finish_figure(fig)


#: The name of :class:`CostsensResults` before results classes were named after the
#: function that makes them (:func:`costsens`); kept for code and results files.
CostSensitiveResults = CostsensResults
