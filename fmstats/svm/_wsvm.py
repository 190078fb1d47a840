"""The class-weighted linear soft-margin SVM of the thesis (3.1)-(3.3): ``wsvm()``, solved
exactly as a QP (:func:`fmstats.svm.wsvm_fit`), and its results."""
from __future__ import annotations

from functools import cached_property

import pandas as pd

from .. import measures as _m
from .._utils.validation import check_scalar, warn
from ..exceptions import (ConvergenceWarning)
from .._utils.call import records_call, weights_label
from ..results import Summary
from ._data import svm_data
from ._qp import WsvmFit, wsvm_fit

from ._base import SvmResults, check_cost, svm_settings

__all__ = ["wsvm", "WsvmResults"]


# ----------------------------------------------------------------------------- wsvm
class WsvmResults(SvmResults):
    """A fitted class-weighted linear SVM (thesis (3.1)-(3.3)).

    Attributes: ``w``, ``b``, ``params``, ``dual_coef`` (alpha per training row),
    ``support`` (index labels of the support vectors), ``support_vectors``,
    ``n_support``, ``margin``, ``decision_values``, ``objective``, ``converged``,
    ``core_fit`` (the :class:`~fmstats.svm.WsvmFit`); methods ``predict``,
    ``confusion``, ``measure``, ``refit``, ``summary``.

    Built by :func:`wsvm`, not directly.

    Parameters
    ----------
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, and the
        F-measure and costs resolved by :func:`wsvm`.
    call : ModelCall
        The recorded call of :func:`wsvm` (printed by ``summary()``, rerun by ``refit``).
    sd : SvmData
        The checked model frame: design without the intercept, labels, prior weights.
    fit : WsvmFit
        The QP solution of :func:`fmstats.svm.wsvm_fit`.
    """

    title = "Weighted linear soft-margin SVM (class costs C+ and C-)"

    def __init__(self, *, settings, call, sd, fit: WsvmFit):
        super().__init__(settings=settings, call=call, sd=sd, w=fit.w, b=fit.b)
        self.core_fit = fit
        self.C_pos = settings["C_pos"]
        self.C_neg = settings["C_neg"]

    @property
    def converged(self) -> bool:
        """Whether the QP solver converged."""
        return self.core_fit.converged

    @property
    def objective(self) -> float:
        """The QP's objective at the solution."""
        return self.core_fit.objective

    @cached_property
    def dual_coef(self) -> pd.Series:
        """Dual coefficients alpha_i (0 <= alpha_i <= c_i); w = sum alpha_i y_i x_i."""
        return pd.Series(self.core_fit.dual, index=self.index, name="alpha")

    @cached_property
    def support(self) -> pd.Index:
        """Index labels of the support vectors (alpha_i > 0)."""
        return self.index[self.core_fit.support]

    @cached_property
    def support_vectors(self) -> pd.DataFrame:
        """Design rows (without the intercept) of the support vectors."""
        names = [t for i, t in enumerate(self.term_names) if i != self.intercept_pos]
        return pd.DataFrame(self.X[self.core_fit.support], index=self.support, columns=names)

    @cached_property
    def n_support(self) -> dict:
        """Support vectors per class and how many are free (0 < alpha < c) or at the bound."""
        sv = self.core_fit.dual > 0
        free = self.core_fit.free
        return {"positive": int((sv & (self.y == 1)).sum()),
                "negative": int((sv & (self.y == 0)).sum()),
                "free": int(free.sum()), "at_bound": int((sv & ~free).sum())}

    def summary(self) -> Summary:
        """The kernel, the class costs, the solver's report and the coefficient table.

        Returns
        -------
        Summary
            The printable summary.
        """
        f = self.core_fit
        ns = self.n_support
        fit_lines = [
            ("Class costs", f"C+ = {self.C_pos:.6g} (positives), C- = {self.C_neg:.6g} "
                            "(negatives)"),
            ("Solver", f"{f.message}; {'converged' if f.converged else 'DID NOT CONVERGE'}"),
            ("Objective", f"primal {f.objective:.8g}, dual {f.dual_objective:.8g}"),
            ("Support vectors", f"{ns['positive'] + ns['negative']} ({ns['positive']} positive, "
                                f"{ns['negative']} negative; {ns['free']} free, "
                                f"{ns['at_bound']} at the bound C)"),
            ("Margin 2/||w||", f"{self.margin:.6g}"),
            ("Offset b", f"from {f.b_rule}"),
        ]
        details = [("Weights", "none (all 1)" if self.settings["weights"] is None else
                    f"prior weights {self.settings['weights']!r} multiply the costs")]
        return self._summary(fit_lines, details)

    def __repr__(self) -> str:
        return (f"<WsvmResults {self.formula!r}, n = {self.nobs}, C+ = {self.C_pos:.4g}, "
                f"C- = {self.C_neg:.4g}, support vectors = {len(self.support)}>")


@records_call
def wsvm(formula: str, data: pd.DataFrame, weights=None, *, C_pos: float = 1.0,
         C_neg: float = 1.0, measure=None, beta=None, alpha=None, tol: float = 1e-10,
         missing: str = "drop", engine: str | None = None, _call=None) -> WsvmResults:
    """Class-weighted linear soft-margin SVM (thesis (3.1)-(3.3)), solved exactly as a QP.

    Minimises 1/2 w'w + C+ sum_{y=1} xi_i + C- sum_{y=0} xi_i subject to
    y_i (x_i'w + b) >= 1 - xi_i, xi_i >= 0 (labels coded -1/+1 inside), with a
    structure-exploiting interior-point method and an active-set polish
    (:func:`fmstats.svm.wsvm_fit`); b is unpenalised and obtained from the free
    support vectors (thesis ch. 2).

    Parameters
    ----------
    formula : str
        R-style formula ``"y ~ x1 + C(g)"`` with a two-valued response (0/1, boolean or a
        two-level factor whose second level is the positive class); the intercept is the
        SVM's offset b and must not be removed.
    data : pandas.DataFrame
        The data the formula refers to.
    weights : str or array-like, optional
        Prior weights (column name or array) multiplying the costs.
    C_pos, C_neg : float, default 1.0
        Costs of margin violations of positive and negative rows (> 0).  The heuristic
        (3.3) is C_pos / C_neg = m- / m+.
    measure : FMeasure, optional
        The F-measure reported by ``summary()`` and ``measure()`` (default F1); give at
        most one of ``measure``, ``beta`` and ``alpha``.
    beta, alpha : float, optional
        The same F-measure given by its beta or by its weight alpha on precision.
    tol : float, default 1e-10
        Relative tolerance of the interior-point method.
    missing : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: rows with missing values are dropped (with a
        warning) or raise.
    engine : str, optional
        As in :func:`fmstats.maxent`: the formula engine, ``"formulaic"`` (default) or
        ``"patsy"``.

    Returns
    -------
    WsvmResults
        The fitted SVM.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_svm_data("A1", random_state=0)
    >>> fit = fm.wsvm("y ~ x1 + x2", d[d.split == "train"], C_pos=1.0, C_neg=0.5)
    >>> print(fit.params.round(3).to_string())
    term
    Intercept    0.294
    x1           1.132
    x2          -0.463
    """
    C_pos, C_neg = check_cost("C_pos", C_pos), check_cost("C_neg", C_neg)
    check_scalar("tol", tol, low=0, low_open=True)
    fm = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    sd = svm_data(formula, data, weights, missing, engine)
    fit = wsvm_fit(sd.X, sd.ypm, C_pos, C_neg, sample_weight=sd.weights, tol=tol)
    if not fit.converged:
        warn(f"wsvm: {fit.message}; the hyperplane may be inaccurate. Standardise the "
             "features or reduce very large costs C_pos/C_neg.", ConvergenceWarning)
    settings = svm_settings(_call, weights=weights_label(weights), C_pos=C_pos, C_neg=C_neg,
                         measure=fm, tol=float(tol))
    return WsvmResults(settings=settings, call=_call, sd=sd, fit=fit)


