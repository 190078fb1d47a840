"""What the SVM results share: the hyperplane x'w + b = 0, its coefficient table, predictions,
confusion counts and the summary layout (used by ``_wsvm.py`` and
``_fsvm.py``), and the settings of an SVM fit.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.validation import check_choice, check_scalar
from ..exceptions import (InvalidArgumentError,
                          ResponseError)
from .._utils.call import ModelCall, Settings
from ..formula import KeptRows
from ..results import ModelResults
from ..results import Section, Summary
from ._data import SvmData

__all__ = ["SvmResults", "check_cost", "svm_settings"]

_PREDICT_TYPES = ("class", "response", "decision", "link")


# ----------------------------------------------------------------------------- arguments
def check_cost(name, value):
    return float(check_scalar(name, value, low=0, low_open=True))


def svm_settings(call: ModelCall, **resolved) -> Settings:
    """The fit's settings: its call's arguments (defaults applied), the F-measure resolved
    from ``measure``/``beta``/``alpha``, and what the fit resolved on the data."""
    args = {k: v for k, v in call.resolved().items() if k not in ("beta", "alpha")}
    return Settings(args, **resolved)


# ----------------------------------------------------------------------------- results base
class SvmResults(ModelResults):
    """Shared protocol of the linear SVM results (hyperplane x'w + b = 0)."""

    title = "Linear SVM"
    #: refits run on rows of the kept design (KeptRows): bootstrap without data
    refits_kept_rows = True

    def __init__(self, *, settings: Settings, call: ModelCall, sd: SvmData, w: np.ndarray,
                 b: float):
        fr = sd.frame
        self.settings = settings
        self.call = call
        self.formula = settings["formula"]
        self.spec = fr.spec
        self.index = fr.index
        self.n_input = fr.n_input
        self.n_dropped = fr.n_dropped
        self.response_name = fr.response.name
        self.response_levels = fr.response.levels
        self.term_names = sd.term_names
        self.intercept_pos = sd.intercept_pos
        self.X = sd.X
        self.y = sd.y
        self.prior_weights = sd.weights
        self.w = np.asarray(w, dtype=float)
        self.b = float(b)
        self.fmeasure = settings["measure"]

    # ------------------------------------------------------------------ coefficients
    @cached_property
    def params(self) -> pd.Series:
        """b (under the intercept's name) and w, in the order of the design columns."""
        vals = np.insert(self.w, self.intercept_pos, self.b)
        return pd.Series(vals, index=pd.Index(self.term_names, name="term"), name="estimate")

    def cov_params(self, cov_type=None):
        """Refused: an SVM has no model-based covariance of its coefficients.

        Parameters
        ----------
        cov_type : str, optional
            Ignored.

        Raises
        ------
        InvalidArgumentError
            Always; use the bootstrap for the coefficients' variability.
        """
        raise InvalidArgumentError(
            "an SVM has no model-based covariance of its coefficients; use the bootstrap for "
            "their variability.")

    def tidy(self, level: float = 0.95, cov_type=None, exponentiate: bool = False
             ) -> pd.DataFrame:
        """Coefficient table (term, estimate); SVMs have no standard errors.

        Parameters
        ----------
        level : float, default 0.95
            Unused (no intervals): the protocol's signature.
        cov_type : str, optional
            Unused (no covariance): the protocol's signature.
        exponentiate : bool, default False
            Refused: an SVM's coefficients are not log-odds.

        Returns
        -------
        pandas.DataFrame
            One row per term: term, estimate.
        """
        if exponentiate:
            raise InvalidArgumentError(
                "`exponentiate`: an SVM's coefficients are not log-odds, so exp() of them is "
                "no odds ratio.")
        return pd.DataFrame({"term": self.params.index.to_numpy(),
                             "estimate": self.params.to_numpy()})

    @property
    def nobs(self) -> int:
        """The number of training rows."""
        return int(self.X.shape[0])

    @property
    def margin(self) -> float:
        """Width 2 / ||w|| between the hyperplanes x'w + b = -1 and +1."""
        nw = float(np.linalg.norm(self.w))
        return 2.0 / nw if nw > 0 else np.inf

    @cached_property
    def decision_values(self) -> pd.Series:
        """x'w + b on the training rows."""
        return pd.Series(self.X @ self.w + self.b, index=self.index, name="decision")

    # hooks of the score curves (fmstats.results._curves): decision values, rule x'w + b > 0
    _score_type = "decision"

    def _decision_rule(self):
        return 0.0, True, "decision value > 0"

    def _truth_weights(self, newdata):
        if newdata is None:
            return self.y, self.prior_weights, None
        return super()._truth_weights(newdata)

    # ------------------------------------------------------------------ prediction
    def _design(self, newdata, missing="drop"):
        if newdata is None:
            return self.X, self.index
        if isinstance(newdata, KeptRows):       # rows of a fit's design (tuning without data)
            return np.take(newdata.results.X, newdata.positions, axis=0), newdata.index
        X, index = self.spec.build(newdata, missing=missing)
        return np.delete(X, self.intercept_pos, axis=1), index

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "class",
                missing: str = "drop") -> pd.Series:
        """Predictions for ``newdata`` (default: the training rows).

        ``type="class"`` gives 0/1 labels (1 where x'w + b > 0); ``"response"`` is the
        same (an SVM has no probabilities: as kernlab's ``predict``, its response is the
        class); ``"decision"`` (alias ``"link"``) gives the decision value x'w + b.

        Parameters
        ----------
        newdata : DataFrame, optional
            The rows to predict (default: the training rows).
        type : {"class", "response", "decision", "link"}, default "class"
            The classes or the decision values.
        missing : {"drop", "raise"}, default "drop"
            The older spelling of ``na_action``: ``"drop"`` is ``"omit"``, ``"raise"``
            ``"fail"``.
        na_action : {"pass", "omit", "exclude", "fail"}, optional
            A row with a missing value in the model's columns: NaN in its place (default, R's
            ``na.pass``), dropped or refused (:func:`fmstats.results.keeps_rows`).

        Returns
        -------
        pandas.Series
            One value per row of ``newdata``: the class (``name='class'``) or the decision
            value (``name='decision'``).
        """
        check_choice("type", type, _PREDICT_TYPES)
        check_choice("missing", missing, ("drop", "raise"))
        X, index = self._design(newdata, missing)
        f = X @ self.w + self.b
        if type in ("decision", "link"):
            return pd.Series(f, index=index, name="decision")
        return pd.Series((f > 0).astype(np.int64), index=index, name="class")

    def confusion(self, newdata: pd.DataFrame | None = None) -> _m.Confusion:
        """Confusion counts of the predicted classes (training rows weighted by the prior weights).

        Parameters
        ----------
        newdata : DataFrame, optional
            Rows with the response (default: the training rows).

        Returns
        -------
        Confusion
            The weighted counts tp, fp, fn, tn.
        """
        if newdata is None:
            y, X, w = self.y, self.X, self.prior_weights
        else:
            resp, X, _ = self.spec.build_with_response(newdata, missing="drop")
            if resp.kind != "binary":
                raise ResponseError(f"the response '{resp.name}' of `newdata` must be two-valued; "
                                    f"got {resp.kind} values.")
            y, X, w = resp.y, np.delete(X, self.intercept_pos, axis=1), None
        return _m.confusion(y, (X @ self.w + self.b > 0).astype(float), sample_weight=w)

    @property
    def training_f(self) -> float:
        """The F-measure of the fit's classes on its training rows."""
        return self.measure()

    # ------------------------------------------------------------------ reporting
    def _coef_table(self) -> pd.DataFrame:
        # estimates only: an SVM has no standard errors (Summary prints the columns present)
        return pd.DataFrame({"term": [str(t) for t in self.params.index],
                             "estimate": self.params.to_numpy(dtype=float)})

    def _f_section(self) -> Section:
        fm = self.fmeasure
        conf = self.confusion()
        lines = [f"{fm}; predicted class 1 when x'w + b > 0",
                 f"  Training F: {conf.f(fm):.4f}   precision: {conf.precision:.4f}   "
                 f"recall: {conf.recall:.4f}   accuracy: {conf.accuracy:.4f}"]
        if self.settings.get("weights") is not None:
            lines.append("  (counts weighted by the prior weights)")
        return Section("F-measure (training data):", lines + ["Confusion table:"],
                       table=conf.as_frame())

    def _data_lines(self) -> list:
        lv = self.response_levels
        resp = (f"{self.response_name}: '{lv[1]}' is the positive class"
                if lv is not None and lv != (False, True) else f"{self.response_name}: 0/1 labels")
        return [("Response", resp), ("Rows used", f"{self.nobs} of {self.n_input}"),
                ("Positives / negatives", f"{int((self.y == 1).sum())} / "
                                          f"{int((self.y == 0).sum())}")]

    def _summary(self, fit_lines: list, detail_lines: list) -> Summary:
        sections = [Section("Fit:", fit_lines), self._f_section(),
                    Section("Model details:", detail_lines + self._data_lines())]
        return Summary(title=self.title, call=str(self.call), coef_table=self._coef_table(),
                       coef_note="(hyperplane x'w + b = 0; b is the unpenalised intercept)",
                       sections=sections)


