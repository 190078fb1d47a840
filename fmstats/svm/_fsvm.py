"""The F-measure SVM (thesis (3.6)) and the misclassification-counting SVM (3.4): ``fsvm()``,
minimised with NLopt (COBYLA by default) from the weighted SVM's solution, and its results."""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.validation import check_choice, check_scalar, describe, warn
from ..exceptions import (ConvergenceWarning, DegenerateFitWarning, InvalidArgumentError)
from .._utils.call import records_call, weights_label
from ..results import Summary
from ._data import SvmData, svm_data
from ._cobyla import (
    CONSTRAINED_ALGORITHMS,
    NLOPT_ALGORITHMS,
    NloptRun,
    SvmObjective,
    fixed_order_matvec,
    quantise_start,
    run_nlopt,
    thesis_bounds,
)
from ._qp import wsvm_fit

from ._base import SvmResults, check_cost, svm_settings

__all__ = ["fsvm", "FsvmResults", "DEFAULT_REDUCED_ALGORITHMS", "DEFAULT_A", "THESIS_A",
           "all_negative_objective"]

#: NLopt algorithms alternated by the reduced method's restarts (chosen by benchmark).
DEFAULT_REDUCED_ALGORITHMS = ("NELDERMEAD", "COBYLA")
#: Default slope a of the reduced method, chosen by held-out F
#: (benchmarks/fidelity/bench_fsvm_chapter8.py, part 2).
DEFAULT_A = 5.0
#: The thesis's slope a (section 8.2), the default of ``method="primal"``.
THESIS_A = 1.0


# ----------------------------------------------------------------------------- fsvm
def _run_attr(name: str, doc: str) -> property:
    return property(lambda self: getattr(self.nlopt_run, name), doc=doc)


class FsvmResults(SvmResults):
    """A fitted F-measure maximising (3.6) or misclassification-counting (3.4) linear SVM.

    Attributes: ``w``, ``b``, ``params``, ``xi`` (slacks of the solution),
    ``objective`` and ``start_objective``, ``converged``, ``code`` and ``message``
    (NLopt), ``nevals``, ``trace`` (objective per evaluation), ``start`` (w, b of the
    starting point); methods ``predict``, ``confusion``, ``measure``, ``refit``,
    ``summary``, ``plot_trace``.

    Built by :func:`fsvm`, not directly.

    Parameters
    ----------
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, and what
        :func:`fsvm` resolved on the data (F-measure, C, a, costs, algorithm, restarts,
        bounds, start, whether the fit was degenerate).
    call : ModelCall
        The recorded call of :func:`fsvm` (printed by ``summary()``, rerun by ``refit``).
    sd : SvmData
        The checked model frame: design without the intercept, labels, prior weights.
    w : numpy.ndarray
        The returned weight vector.
    b : float
        The returned offset.
    xi : numpy.ndarray
        Slacks of the solution.
    run : NloptRun
        The NLopt run (result code, evaluations, trace).
    start_wb : numpy.ndarray
        The starting point (w, b), b last.
    """

    def __init__(self, *, settings, call, sd, w, b, xi, run: NloptRun, start_wb):
        super().__init__(settings=settings, call=call, sd=sd, w=w, b=b)
        self.nlopt_run = run
        self.xi = xi
        self.start_wb = start_wb
        self.C = settings["C"]
        self.C_pos, self.C_neg = settings["C_pos"], settings["C_neg"]
        #: whether the minimum predicted a single class (see ``fsvm(degenerate=)``)
        self.degenerate_fit = bool(settings["degenerate_fit"])
        self.title = ("F-measure maximising linear SVM (thesis (3.6))"
                      if settings["objective"] == "fmeasure"
                      else "Weighted misclassification-counting linear SVM (thesis (3.4))")

    converged = _run_attr("converged", "Whether NLopt stopped on a convergence criterion.")
    code = _run_attr("code", "NLopt's result code (see cobyla.NLOPT_RESULTS).")
    message = _run_attr("message", "NLopt's result as text.")
    objective = _run_attr("fun", "Objective value at the returned point.")
    start_objective = _run_attr("start_fun", "Objective value at the start.")
    nevals = _run_attr("nevals", "Objective evaluations, over all restarts.")

    @cached_property
    def start(self) -> pd.Series:
        """The starting (b, w) in the order of ``params``."""
        w, b = self.start_wb[:-1], self.start_wb[-1]
        return pd.Series(np.insert(w, self.intercept_pos, b),
                         index=pd.Index(self.term_names, name="term"), name="start")

    @cached_property
    def trace(self) -> pd.DataFrame:
        """Objective of each NLopt evaluation, its constraint violation and the best so far."""
        r = self.nlopt_run
        f = np.where(r.violation <= 1e-9, r.trace, np.inf)
        best = np.minimum.accumulate(np.r_[r.start_fun, f])[1:]
        return pd.DataFrame({"evaluation": np.arange(1, r.nevals + 1), "objective": r.trace,
                             "violation": r.violation, "best_feasible": best})

    def plot_trace(self, ax=None):
        """Objective per NLopt evaluation and the best feasible value so far (log scale).

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
        t = self.trace
        ax.plot(t["evaluation"], t["objective"], lw=0.8, alpha=0.6, label="evaluated point")
        ax.plot(t["evaluation"], t["best_feasible"], lw=1.5, label="best feasible so far")
        ax.axhline(self.start_objective, color="grey", ls=":", label="start (weighted SVM)")
        ax.set_yscale("log")
        ax.set_xlabel("objective evaluation")
        ax.set_ylabel("objective (log scale)")
        ax.set_title(f"{self.nlopt_run.algorithm} ({self.settings['method']}): "
                     f"{self.message.split(':')[0]}", fontsize="small")
        ax.legend(fontsize="small")
        return finish_figure(fig)

    def summary(self) -> Summary:
        """The objective, NLopt's report and the coefficient table.

        Returns
        -------
        Summary
            The printable summary.
        """
        s, r = self.settings, self.nlopt_run
        if s["objective"] == "fmeasure":
            obj = (f"1/2 w'w + C (alpha S- + (1-alpha) S+) / (m+ - S+), C = {self.C:.6g}, "
                   f"alpha = {self.fmeasure.alpha:.4g} (beta = {self.fmeasure.beta:.4g})")
        else:
            obj = f"1/2 w'w + C+ S+ + C- S-, C+ = {self.C_pos:.6g}, C- = {self.C_neg:.6g}"
        conv = "converged" if r.converged else "DID NOT CONVERGE"
        fit_lines = [
            ("Objective", obj),
            ("Step function", f"s(xi) = 2 (1/(1 + exp(-a xi)) - 1/2), a = {s['a']:.6g}; "
                              "S+/S- sum s(xi) over positives/negatives"),
            ("Method", f"{s['method']} ("
                       + ("over (w, b, xi) with the m margin constraints"
                          if s["method"] == "primal" else
                          "over (w, b) with xi = max(0, 1 - y(x'w + b))") + ")"),
            ("Optimiser", f"NLopt {r.nlopt_version} LN_{r.algorithm}, maxeval = {s['maxeval']}, "
                          f"ftol_rel = {s['ftol_rel']:g}; {r.nevals} evaluations in {r.runs} "
                          f"run(s) (up to {self.settings['restarts']} restarts), {r.seconds:.3g} s"),
            ("Result", f"{r.message} ({conv})"),
            ("Objective value", f"{r.fun:.8g} (start {r.start_fun:.8g})"
                                + (("; the minimum predicts a single class: "
                                    + ("start returned" if self.settings["degenerate"] == "start"
                                       else "kept")) if self.degenerate_fit else "")),
            ("Margin 2/||w||", f"{self.margin:.6g}"),
        ]
        details = [("Start", s["start_info"]), ("Bounds", s["bounds_text"]),
                   ("Weights", "none (all 1)" if s["weights"] is None else
                    f"prior weights {s['weights']!r} weight the sums S+ and S-")]
        return self._summary(fit_lines, details)

    def __repr__(self) -> str:
        return (f"<FsvmResults {self.settings['objective']}/{self.settings['method']}: "
                f"{self.formula!r}, n = {self.nobs}, objective = {self.objective:.6g}, "
                f"converged = {self.converged}>")


def _to_internal(vec, sd: SvmData, name: str) -> np.ndarray:
    """A vector in ``params`` order (intercept at its design position) -> (w, b)."""
    v = np.asarray(vec, dtype=float).ravel()
    k = len(sd.term_names)
    if v.shape != (k,) or np.isnan(v).any():
        raise InvalidArgumentError(
            f"`{name}` must hold {k} numbers, one per coefficient in the order "
            f"{', '.join(sd.term_names)}; got {describe(vec)}.")
    return np.r_[np.delete(v, sd.intercept_pos), v[sd.intercept_pos]]


def _start_point(start, start_C, sd: SvmData):
    """(w, b) to start from and a description."""
    if start is None:
        cp, cn = (sd.m_neg / 10, sd.m_pos / 10) if start_C is None else start_C
        cp, cn = check_cost("start_C[0]", cp), check_cost("start_C[1]", cn)
        fit = wsvm_fit(sd.X, sd.ypm, cp, cn, sample_weight=sd.weights)
        # rounded to ~1e-9 of its scale, so that COBYLA starts from the same bits whatever
        # rounding the QP's BLAS calls did (cobyla.quantise_start)
        return (quantise_start(np.r_[fit.w, fit.b]),
                f"weighted SVM with C+ = {cp:.6g}, C- = {cn:.6g}")
    if isinstance(start, SvmResults):
        if start.term_names != sd.term_names:
            raise InvalidArgumentError(
                "`start` was fitted with other design columns "
                f"({', '.join(start.term_names)}) than this model ({', '.join(sd.term_names)}).")
        return quantise_start(np.r_[start.w, start.b]), f"given results {start.__class__.__name__}"
    wb = _to_internal(start, sd, "start")
    if not np.all(np.isfinite(wb)):
        raise InvalidArgumentError(f"`start` must be finite; got {describe(start)}.")
    return quantise_start(wb), "given coefficients"


def _bounds(bounds, wb0, xi0, sd, method):
    if isinstance(bounds, str):
        check_choice("bounds", bounds, ("thesis",))
        lo, hi = thesis_bounds(wb0[:-1], wb0[-1], xi0 if method == "primal" else None)
        text = (f"the thesis's box from the start: |w_j| <= {hi[0]:g}, |b| <= {hi[sd.X.shape[1]]:g}"
                + (f", 0 <= xi_i <= {hi[-1]:g}" if method == "primal" else ""))
        return lo, hi, text
    m = sd.X.shape[0]
    if bounds is None:
        lo = np.full(wb0.size, -np.inf)
        hi = np.full(wb0.size, np.inf)
        text = "none" + (" (xi >= 0 only)" if method == "primal" else "")
    else:
        if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2):
            raise InvalidArgumentError(
                "`bounds` must be 'thesis', None or a pair (lower, upper) of coefficient "
                f"vectors in params order; got {describe(bounds)}.")
        lo, hi = _to_internal(bounds[0], sd, "bounds[0]"), _to_internal(bounds[1], sd, "bounds[1]")
        if np.any(lo > wb0) or np.any(hi < wb0):
            raise InvalidArgumentError("`bounds` must contain the starting point; got lower "
                                       f"{describe(bounds[0])}, upper {describe(bounds[1])}.")
        text = "given by the user"
    if method == "primal":
        lo, hi = np.r_[lo, np.zeros(m)], np.r_[hi, np.full(m, np.inf)]
    return lo, hi, text


def all_negative_objective(C: float, alpha: float, a: float) -> float:
    """Objective (3.6) at the all-negative classifier w = 0, b = -1 (unweighted sums).

    Every positive row has xi = 2, every negative xi = 0, so S+ = m+ tanh(a), S- = 0
    and the objective is C (1 - alpha) tanh(a) / (1 - tanh(a)).

    Parameters
    ----------
    C : float
        Weight of the F term.
    alpha : float
        Weight of the F-measure on precision, in (0, 1).
    a : float
        Slope of the step approximation (> 0).

    Returns
    -------
    float
        The objective; infinite when tanh(a) rounds to 1.
    """
    t = float(np.tanh(a))
    return C * (1.0 - alpha) * t / (1.0 - t) if t < 1.0 else np.inf


def _single_class(X: np.ndarray, wb: np.ndarray) -> bool:
    """Whether x'w + b > 0 gives the same class on every row."""
    p = fixed_order_matvec(np.asfortranarray(np.column_stack([X, np.ones(len(X))])), wb) > 0
    return bool(p.all() or not p.any())


@records_call
def fsvm(formula: str, data: pd.DataFrame, weights=None, *, alpha=None, beta=None, measure=None,
         C: float | None = None, a: float | None = None, method: str = "reduced",
         objective: str = "fmeasure", C_pos: float | None = None, C_neg: float | None = None,
         start=None, start_C=None, bounds="thesis", algorithm: str | None = None,
         maxeval: int = 500, ftol_rel: float = 1e-4, xtol_rel: float = 0.0, initial_step=None,
         restarts: int | None = None, constraint_tol: float = 0.0,
         degenerate: str | None = None, missing: str = "drop",
         engine: str | None = None, _call=None) -> FsvmResults:
    """F-measure maximising linear SVM (thesis (3.6)) or misclassification-counting SVM (3.4).

    Minimises, with s(xi; a) = 2 (1/(1 + e^{-a xi}) - 1/2) and S+ / S- the sums of
    s(xi_i) over positive / negative rows,

    * ``objective="fmeasure"``: 1/2 w'w + C (alpha S- + (1-alpha) S+) / (m+ - S+)
      (the F-measure with weight alpha on precision; the thesis calls it beta);
    * ``objective="count"``: 1/2 w'w + C_pos S+ + C_neg S-,

    subject to y_i (x_i'w + b) >= 1 - xi_i, xi_i >= 0, by an NLopt derivative-free
    local algorithm (chapter 8: COBYLA, maxeval 500, ftol_rel 1e-4, started from the
    weighted SVM with (C+, C-) = (m-, m+)/10, C = m+).  The problem is not convex:
    the result is a local minimum near the start.

    **The minimum of (3.6) can be a useless classifier.**  At w = 0, b = -1 every
    positive row has xi = 2 and every negative xi = 0, so S+ = m+ tanh(a), S- = 0 and
    the objective is C (1 - alpha) tanh(a) / (1 - tanh(a)) with no regularisation cost
    (31.9 for C = m+ = 20, alpha = 0.5, a = 1): for small a this all-negative classifier
    (or a point near it) is often the minimum.  The thesis's results came from stopping
    COBYLA early (``method="primal"``, 500 evaluations of 400+ variables hardly leave the
    weighted-SVM start); a solver that minimises well finds the collapse.  Two defaults,
    chosen by held-out F on fresh draws of the chapter-8 data (2000-row test sets;
    ``benchmarks/fidelity/bench_fsvm_chapter8.py``), keep the default method a good classifier:

    * ``a = 5`` for the reduced method (``bench_fsvm_chapter8.py --single``: mean test F
      0.751 over 4 designs x 3 draws x 5 alphas, no fit without a predicted positive; the
      thesis's a = 1 gave 0.562 and 14 of 60 fits that predict no positive; a = 10 0.749),
      where tanh(a) ~ 1 puts the all-negative point far above any sensible classifier;
    * ``degenerate="start"``: a minimum that predicts a single class on the training rows,
      when the start predicted both, is rejected: the start is returned with a
      :class:`~fmstats.exceptions.DegenerateFitWarning`.  Measured in the same benchmark:
      rejecting only all-negative minima let all-positive ones through at alpha = 0.7
      (test F 0.59, up to 0.21 below the weighted SVM); rejecting both kept every case
      within 0.09 of it, on three data draws.

    Parameters
    ----------
    formula : str
        R-style formula, as in :func:`wsvm`: a two-valued response, the intercept kept.
    data : pandas.DataFrame
        The data the formula refers to.
    weights : str or array-like, optional
        Prior weights (column name or array), as in :func:`wsvm`; they weight the sums
        and m+.
    alpha, beta : float, optional
        The F-measure by its weight alpha on precision or by its beta (default F1); alpha
        must lie in (0, 1).
    measure : FMeasure, optional
        The F-measure as an object; give at most one of ``alpha``, ``beta`` and
        ``measure``.
    C : float, optional
        Weight of the F term (> 0; default m+, the number of positive rows).
    a : float, optional
        Slope of the step approximation (> 0); large a counts violations.  Default 5 for
        the reduced method (see above) and the thesis's 1 for the primal one.
    method : {"reduced", "primal"}, default "reduced"
        ``"reduced"`` (default; over (w, b) with xi = max(0, 1 - y(x'w + b))
        substituted -- the same minima, n + 1 variables; timed in
        ``benchmarks/speed/bench_fsvm.py``) or ``"primal"``: the thesis's method
        exactly -- its formulation over (w, b, xi) with the m margin constraints (one
        vector-valued NLopt constraint), COBYLA from the weighted SVM with
        (C+, C-) = (m-, m+)/10, the box bounds of its R code, ftol_rel 1e-4, maxeval 500,
        a = 1, C = m+, no restarts and no degeneracy check -- **early stopping included**:
        COBYLA's work per evaluation grows as constraints x variables^2, so the 500
        evaluations end far from the minimum (near the start), which is where the thesis's
        results come from.  It takes minutes at m = 400 (about as long as R's nloptr on
        the same problem; ``benchmarks/speed/bench_fsvm.py`` prints the ratio): use it to
        reproduce the thesis, not to classify.
    objective : {"fmeasure", "count"}, default "fmeasure"
        The F-measure objective (3.6) or the counting objective (3.4).
    C_pos, C_neg : float, optional
        Costs of the counting objective (default (m-, m+)/10).
    start : None, WsvmResults, FsvmResults or array-like, optional
        None (the weighted SVM, costs ``start_C``), a fitted ``wsvm``/``fsvm`` result, or
        coefficients in ``params`` order.  The start is rounded to multiples of 2^-30 of
        its largest coefficient (at least 1), ~1e-9 relative: COBYLA follows the
        objective's values bit for bit, and a start that differs in the last bits between
        BLAS kernels would end at another point.  With the objective evaluated without
        BLAS (``fixed_order_matvec``) the same data give the same
        fit on every machine.
    start_C : tuple of float, optional
        The costs (C_pos, C_neg) of the weighted SVM that is the default start (default
        (m-, m+)/10).
    bounds : "thesis", None or tuple, default "thesis"
        ``"thesis"`` (the R code's box: ``|w_j| <= max ceil|w_j0|``, ``|b| <= ceil|b0|``,
        ``0 <= xi <= ceil max xi0``; a zero width becomes 1), None (only xi >= 0), or a
        pair (lower, upper) in ``params`` order.
    algorithm : str or sequence of str, optional
        NLopt local derivative-free algorithm (without ``LN_``), or a sequence of them
        used in turn by the restarts: ``"COBYLA"`` (the thesis's, and the only one for the
        primal method) or, for the reduced method, ``"NELDERMEAD"``, ``"SBPLX"``,
        ``"BOBYQA"``, ``"NEWUOA_BOUND"``, ``"PRAXIS"``.  Default: COBYLA for the primal
        method; ``("NELDERMEAD", "COBYLA")`` alternating for the reduced one (its objective
        has kinks where a margin becomes active, on which either method alone stalls; the
        alternation reached the lowest objectives in the benchmark).
    maxeval : int, default 500
        NLopt stopping rule: the number of evaluations, the total over restarts.
    ftol_rel : float, default 1e-4
        NLopt stopping rule: the relative change of the objective.
    xtol_rel : float, default 0.0
        NLopt stopping rule: the relative change of the point (0: not used).
    initial_step : float or array-like, optional
        NLopt's initial step (NLopt's own choice when None).
    restarts : int, optional
        Further NLopt runs from the best point, until every algorithm of the cycle in a
        row fails to improve the objective by ``ftol_rel`` (relative); default 20 for the
        reduced method, 0 for the primal one (the thesis's single run).
    constraint_tol : float, default 0.0
        NLopt's tolerance of each margin constraint (primal method).
    degenerate : {"start", "keep"}, optional
        ``"start"`` (default for the reduced method) returns the start, with a
        :class:`~fmstats.exceptions.DegenerateFitWarning`, when the minimum predicts a
        single class on every training row and the start predicted both; ``"keep"``
        (default for the primal method, the thesis's behaviour) returns the minimum
        anyway, with the same warning.  ``degenerate_fit`` on the result says whether it
        happened.
    missing : {"drop", "raise"}, default "drop"
        As in :func:`wsvm`.
    engine : str, optional
        As in :func:`wsvm`.

    Returns
    -------
    FsvmResults
        The fitted SVM.

    Warns
    -----
    ConvergenceWarning
        Stopping at ``maxeval`` (or any non-success NLopt code) emits a
        :class:`~fmstats.exceptions.ConvergenceWarning`; the best feasible point evaluated
        is returned, never worse than the start.
    DegenerateFitWarning
        When the minimum predicts a single class on every training row and the start
        predicted both (see ``degenerate``).

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_svm_data("B1", random_state=0, n_train=(60, 20))
    >>> fit = fm.fsvm("y ~ x1 + x2", d[d.split == "train"], alpha=0.5, a=5)
    >>> print(fit.params.round(2).to_string())
    term
    Intercept    2.00
    x1          -2.00
    x2           1.14
    >>> print(f"{fit.measure(d[d.split == 'test']):.3f}")
    0.868
    """
    check_choice("method", method, ("reduced", "primal"))
    check_choice("objective", objective, ("fmeasure", "count"))
    if algorithm is None:
        algorithm = ("COBYLA",) if method == "primal" else DEFAULT_REDUCED_ALGORITHMS
    algs = (algorithm,) if isinstance(algorithm, str) else tuple(algorithm)
    if not algs:
        raise InvalidArgumentError("`algorithm` must name at least one NLopt algorithm; got "
                                   f"{describe(algorithm)}.")
    for alg in algs:
        check_choice("algorithm", alg, NLOPT_ALGORITHMS)
        if method == "primal" and alg not in CONSTRAINED_ALGORITHMS:
            raise InvalidArgumentError(
                f"`algorithm` {alg!r} cannot handle the primal method's margin constraints; "
                "use algorithm='COBYLA' or method='reduced'.")
    algorithm = algs[0] if len(algs) == 1 else algs
    if restarts is None:
        restarts = 0 if method == "primal" else 20
    restarts = int(check_scalar("restarts", restarts, low=0, integer=True))
    if a is None:
        a = THESIS_A if method == "primal" else DEFAULT_A
    a = float(check_scalar("a", a, low=0, low_open=True))
    if degenerate is None:
        degenerate = "keep" if method == "primal" else "start"
    check_choice("degenerate", degenerate, ("start", "keep"))
    maxeval = int(check_scalar("maxeval", maxeval, low=1, integer=True))
    ftol_rel = float(check_scalar("ftol_rel", ftol_rel, low=0))
    xtol_rel = float(check_scalar("xtol_rel", xtol_rel, low=0))
    constraint_tol = float(check_scalar("constraint_tol", constraint_tol, low=0))
    fm = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    if objective == "fmeasure" and not fm.alpha < 1:
        raise InvalidArgumentError(
            f"`alpha` must lie in (0, 1) for the F-measure SVM; got alpha = {fm.alpha:g} "
            f"(beta = {fm.beta:g}).")
    if start_C is not None and not (isinstance(start_C, (tuple, list)) and len(start_C) == 2):
        raise InvalidArgumentError(f"`start_C` must be a pair (C_pos, C_neg); got "
                                   f"{describe(start_C)}.")
    sd = svm_data(formula, data, weights, missing, engine, "fsvm")
    if objective == "fmeasure":
        C = sd.m_pos if C is None else check_cost("C", C)
        C_pos = C_neg = None
    else:
        C_pos = sd.m_neg / 10 if C_pos is None else check_cost("C_pos", C_pos)
        C_neg = sd.m_pos / 10 if C_neg is None else check_cost("C_neg", C_neg)
        C = None
    problem = SvmObjective(X=sd.X, y=sd.ypm, weight=sd.weights, kind=objective, a=a,
                           alpha=fm.alpha, C=C or 1.0, C_pos=C_pos or 1.0, C_neg=C_neg or 1.0)
    wb0, start_info = _start_point(start, start_C, sd)
    xi0 = problem.slack(wb0)
    lo, hi, bounds_text = _bounds(bounds, wb0, xi0, sd, method)
    if method == "primal":
        x0 = np.clip(np.r_[wb0, xi0], lo, hi)
        run = run_nlopt(problem.primal, x0, lower=lo, upper=hi,
                        constraints=problem.margin_constraints, constraint_tol=constraint_tol,
                        algorithm=algorithm, maxeval=maxeval, ftol_rel=ftol_rel,
                        xtol_rel=xtol_rel, initial_step=initial_step, restarts=restarts)
        n1 = sd.X.shape[1] + 1
        wb, xi = run.x[:n1], run.x[n1:]
    else:
        finite = np.isfinite(lo).any() or np.isfinite(hi).any()
        run = run_nlopt(problem.reduced, wb0, lower=lo if finite else None,
                        upper=hi if finite else None, algorithm=algorithm, maxeval=maxeval,
                        ftol_rel=ftol_rel, xtol_rel=xtol_rel, initial_step=initial_step,
                        restarts=restarts)
        wb = run.x
        xi = problem.slack(wb)
    degenerate_fit = _single_class(sd.X, wb) and not _single_class(sd.X, wb0)
    if degenerate_fit:
        keep = degenerate == "keep"
        only = "positive" if np.all(problem.decision(wb) > 0) else "no positive"
        formula_text = (f" (its all-negative point w = 0, b = -1 costs C (1 - alpha) tanh(a) / "
                        f"(1 - tanh(a)) = {all_negative_objective(C, fm.alpha, a):.6g})"
                        if objective == "fmeasure" else "")
        warn(f"fsvm: the minimum found (objective {run.fun:.6g}) predicts {only} on every "
             f"training row, while the start (objective {run.start_fun:.6g}) predicted both "
             f"classes: the objective is degenerate for these settings{formula_text}. "
             + ("Kept as asked (degenerate='keep'). " if keep else
                "The start is returned instead (degenerate='start'). ")
             + "Use a larger slope a (e.g. 5) or tune a with tune_fsvm.", DegenerateFitWarning)
        if not keep:
            wb, xi = wb0, problem.slack(wb0)
    if not run.converged:
        warn(f"fsvm: NLopt {run.algorithm} stopped without converging after {run.nevals} "
             f"evaluations ({run.message}); objective {run.fun:.6g} reached from "
             f"{run.start_fun:.6g} at the start. Increase `maxeval`, loosen `ftol_rel`"
             + (", or use method='reduced' (n + 1 variables instead of n + 1 + m)"
                if method == "primal" else "") + ".", ConvergenceWarning)
    # the arguments with their defaults resolved on this data (the call keeps them as given,
    # so a refit resolves them again on its data)
    settings = svm_settings(_call, weights=weights_label(weights), measure=fm, C=C, a=a,
                         C_pos=C_pos, C_neg=C_neg, algorithm=algorithm, restarts=restarts,
                         degenerate=degenerate, bounds_text=bounds_text, start_info=start_info,
                         degenerate_fit=degenerate_fit)
    return FsvmResults(settings=settings, call=_call, sd=sd, w=wb[:-1], b=wb[-1], xi=xi,
                       run=run, start_wb=wb0)

