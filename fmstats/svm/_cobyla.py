"""Pure core of the misclassification-counting and F-measure SVMs (thesis (3.4), (3.6)).

With the smooth step s(xi; a) = 2 (1/(1 + e^{-a xi}) - 1/2) = tanh(a xi / 2):

* ``"count"``    ``f = 1/2 w'w + C_+ sum_{y=+1} s(xi_i) + C_- sum_{y=-1} s(xi_i)``       (3.4)
* ``"fmeasure"`` ``f = 1/2 w'w + C (alpha S_- + (1 - alpha) S_+) / (m_+ - S_+)``           (3.6)

where ``S_+`` and ``S_-`` are the (weighted) sums of s(xi_i) over the positive and negative rows
and alpha is the weight on precision (the thesis's beta).  Two formulations:

* ``primal``  -- over (w, b, xi) with the m margin constraints
  1 - xi_i - y_i (x_i'w + b) <= 0 passed to NLopt as *one* vector-valued constraint,
  xi >= 0 as bounds (the thesis's box bounds by default);
* ``reduced`` -- over (w, b) only, with xi_i = max(0, 1 - y_i (x_i'w + b)) substituted.
  Both objectives increase in every xi_i, so at any (w, b) the smallest feasible xi is
  optimal: the two problems have the same minima, the reduced one in n + 1 variables.

The NLopt driver keeps the objective of every evaluation (the trace) and the best
*feasible* point met, maps NLopt's result code to ``converged`` and a message, and
never returns a point worse than the start.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from .._utils.boundary import public

__all__ = ["step_approx", "SvmObjective", "fixed_order_matvec", "fixed_order_dot",
           "quantise_start", "thesis_bounds", "NloptRun", "run_nlopt",
           "NLOPT_ALGORITHMS", "NLOPT_RESULTS", "nlopt_version"]

#: NLopt's local derivative-free algorithms accepted by name (without the ``LN_`` prefix).
NLOPT_ALGORITHMS = ("COBYLA", "BOBYQA", "NEWUOA_BOUND", "NELDERMEAD", "SBPLX", "PRAXIS")
#: Algorithms that handle the primal formulation's nonlinear (margin) constraints.
CONSTRAINED_ALGORITHMS = ("COBYLA",)

#: NLopt result codes -> (converged, message)
NLOPT_RESULTS = {
    1: (True, "NLOPT_SUCCESS: generic success"),
    2: (True, "NLOPT_STOPVAL_REACHED: the objective reached stopval"),
    3: (True, "NLOPT_FTOL_REACHED: relative or absolute change of the objective below ftol"),
    4: (True, "NLOPT_XTOL_REACHED: relative or absolute change of the parameters below xtol"),
    5: (False, "NLOPT_MAXEVAL_REACHED: stopped after maxeval objective evaluations"),
    6: (False, "NLOPT_MAXTIME_REACHED: stopped after maxtime seconds"),
    -1: (False, "NLOPT_FAILURE: generic failure"),
    -2: (False, "NLOPT_INVALID_ARGS: invalid arguments (bounds, start or settings)"),
    -3: (False, "NLOPT_OUT_OF_MEMORY: ran out of memory"),
    -4: (True, "NLOPT_ROUNDOFF_LIMITED: progress halted by rounding errors (NLopt: the point "
               "is usually useful)"),
    -5: (False, "NLOPT_FORCED_STOP: the optimisation was stopped"),
}


def nlopt_version() -> str:
    import nlopt

    return f"{nlopt.version_major()}.{nlopt.version_minor()}.{nlopt.version_bugfix()}"


#: Above this many rows the reduced objective is evaluated in single precision (see
#: :meth:`SvmObjective.reduced`), about twice as fast (``benchmarks/README.md``).
SINGLE_PRECISION_ROWS = 20_000


def fixed_order_matvec(cols: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``cols @ v`` summed column by column in a fixed order, without BLAS.

    Every entry is ``((c_0 v_0 + c_1 v_1) + c_2 v_2) + ...`` with each product and sum
    rounded once (numpy's element-wise ufuncs are exact IEEE operations whatever the SIMD
    width), so the result has the same bits under every BLAS kernel and CPU -- unlike a
    BLAS matrix-vector product, whose kernels (Haswell, SkylakeX, ...) block and fuse
    the sums differently.  COBYLA follows its objective's values exactly: a last-bit
    difference in one evaluation can send it down another path and end at another point,
    so the SVM objectives are evaluated with this.  ``cols`` should be Fortran-ordered
    (contiguous columns); the loop runs over the n + 1 columns, never over rows.
    """
    out = np.multiply(cols[:, 0], v[0])
    tmp = np.empty_like(out)
    for j in range(1, cols.shape[1]):
        np.multiply(cols[:, j], v[j], out=tmp)
        np.add(out, tmp, out=out)
    return out


def fixed_order_dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` as numpy's pairwise sum of the products (no BLAS; see
    :func:`fixed_order_matvec`)."""
    return float(np.add.reduce(np.multiply(a, b)))


def quantise_start(v: np.ndarray, bits: int = 30) -> np.ndarray:
    """``v`` rounded to multiples of 2^-bits times the power of two at or above max|v|, 1.

    A starting point computed by a solver (the weighted SVM's QP) carries rounding
    differences of ~1e-15 between BLAS kernels; rounded to ~1e-9 of its scale (exactly:
    the unit is a power of two) it is the same point on every machine unless a coordinate
    lies within ~1e-15 of a rounding boundary (a chance of ~1e-6 per coordinate), so
    COBYLA starts from the same bits.
    """
    v = np.asarray(v, dtype=float)
    top = float(np.max(np.abs(v), initial=1.0))
    unit = 2.0 ** (int(np.ceil(np.log2(max(top, 1.0)))) - bits)
    return np.round(v / unit) * unit


def step_approx(xi, a: float):
    """s(xi; a) = 2 (1/(1 + exp(-a xi)) - 1/2), computed stably as tanh(a xi / 2).

    Parameters
    ----------
    xi : float or array-like
        The slacks.
    a : float
        The slope (> 0); large a makes s a step counting the violations.

    Returns
    -------
    numpy.ndarray
        The values s(xi; a), element by element.
    """
    return np.tanh(0.5 * a * np.asarray(xi, dtype=float))


@dataclass(frozen=True)
class SvmObjective:
    """The objective (3.4) or (3.6) on fixed data.

    Parameters
    ----------
    X : numpy.ndarray of shape (m, n)
        The design without intercept column.
    y : numpy.ndarray of shape (m,)
        Labels in {-1, +1}.
    weight : numpy.ndarray of shape (m,)
        Row weights (frequency weights of the sums; ones for the thesis).
    kind : {"fmeasure", "count"}
        ``"fmeasure"`` (3.6, uses ``alpha`` and ``C``) or ``"count"`` (3.4, uses
        ``C_pos`` and ``C_neg``).
    a : float
        Slope of the step approximation :func:`step_approx`.
    alpha : float, default 0.5
        Weight of the F-measure on precision (the thesis's beta).
    C : float, default 1.0
        Weight of the F term of (3.6).
    C_pos, C_neg : float, default 1.0
        Costs of positive and negative violations in (3.4).
    """

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    kind: str
    a: float
    alpha: float = 0.5
    C: float = 1.0
    C_pos: float = 1.0
    C_neg: float = 1.0

    def __post_init__(self):
        pos = self.y > 0
        object.__setattr__(self, "_cp", np.where(pos, self.weight, 0.0))
        object.__setattr__(self, "_cn", np.where(pos, 0.0, self.weight))
        # the reduced objective's margins in one product: 1 - [y X, y] @ (w, b); on many rows
        # in single precision (half the memory traffic of the product, which dominates)
        # (Fortran order: contiguous columns for fixed_order_matvec)
        Zb = np.asfortranarray(np.column_stack([self.y[:, None] * self.X, self.y]))
        if len(self.y) > SINGLE_PRECISION_ROWS:
            Zb = Zb.astype(np.float32, order="F")
        object.__setattr__(self, "_Zb", Zb)
        object.__setattr__(self, "_Xb", np.asfortranarray(np.column_stack(
            [self.X, np.ones(len(self.y))])))

    @property
    def n(self) -> int:
        """The number of coefficients (columns of the design)."""
        return self.X.shape[1]

    @property
    def m_pos(self) -> float:
        """The weighted number of positive rows."""
        return float(self._cp.sum())

    def value(self, w: np.ndarray, xi: np.ndarray) -> float:
        """Objective at (w, xi) (b enters only through the constraints / xi).

        Parameters
        ----------
        w : numpy.ndarray
            The weights.
        xi : numpy.ndarray
            The slacks, one per row.

        Returns
        -------
        float
            The objective value.
        """
        s = step_approx(xi, self.a)
        return self._combine(w, fixed_order_dot(self._cp, s), fixed_order_dot(self._cn, s))

    def _combine(self, w: np.ndarray, s_pos: float, s_neg: float) -> float:
        """The objective from w and the smoothed violation counts S+ and S-."""
        reg = 0.5 * fixed_order_dot(w, w)
        if self.kind == "count":
            return reg + self.C_pos * s_pos + self.C_neg * s_neg
        denom = self.m_pos - s_pos
        if denom <= 0:
            return np.inf
        return reg + self.C * (self.alpha * s_neg + (1.0 - self.alpha) * s_pos) / denom

    def slack(self, wb: np.ndarray) -> np.ndarray:
        """xi = max(0, 1 - y (X w + b)) for wb = (w, b).

        Parameters
        ----------
        wb : numpy.ndarray
            The weights w followed by the offset b.

        Returns
        -------
        numpy.ndarray
            The smallest feasible slacks, one per row.
        """
        return np.maximum(0.0, 1.0 - self.y * self.decision(wb))

    def decision(self, wb: np.ndarray) -> np.ndarray:
        """x'w + b on the rows, by :func:`fixed_order_matvec` (the same bits on every machine).

        Parameters
        ----------
        wb : numpy.ndarray
            The weights w followed by the offset b.

        Returns
        -------
        numpy.ndarray
            The decision values, one per row.
        """
        return fixed_order_matvec(self._Xb, np.asarray(wb, dtype=float))

    def reduced(self, wb: np.ndarray) -> float:
        """The reduced objective over (w, b).

        Equal to ``value(w, slack(wb))``; the step function is evaluated only on the rows
        with positive slack (s(0) = 0), since tanh dominates the cost of an evaluation.

        Parameters
        ----------
        wb : numpy.ndarray
            The weights w followed by the offset b.

        Returns
        -------
        float
            The objective value.
        """
        Zb = self._Zb
        xi = 1.0 - fixed_order_matvec(Zb, wb.astype(Zb.dtype))
        rows = np.flatnonzero(xi > 0)
        if Zb.dtype == np.float32:
            # single precision (relative error ~1e-7, far below the optimiser's ftol_rel):
            # the product and tanh are faster; the sums stay in double precision
            s = np.tanh(np.take(xi, rows) * np.float32(0.5 * self.a)).astype(float)
        else:
            s = step_approx(np.take(xi, rows), self.a)
        return self._combine(wb[: self.n], fixed_order_dot(np.take(self._cp, rows), s),
                             fixed_order_dot(np.take(self._cn, rows), s))

    def primal(self, z: np.ndarray) -> float:
        """The primal objective over z = (w, b, xi).

        Parameters
        ----------
        z : numpy.ndarray
            The weights w, the offset b and the slacks xi, in that order.

        Returns
        -------
        float
            The objective value.
        """
        return self.value(z[: self.n], z[self.n + 1:])

    def margin_constraints(self, z: np.ndarray) -> np.ndarray:
        """g(z) = 1 - xi - y (X w + b) <= 0, one entry per row (vectorised).

        Parameters
        ----------
        z : numpy.ndarray
            The weights w, the offset b and the slacks xi, in that order.

        Returns
        -------
        numpy.ndarray
            The constraint values g(z), feasible where every entry is <= 0.
        """
        n = self.n
        return 1.0 - z[n + 1:] - self.y * self.decision(z[:n + 1])


def thesis_bounds(w: np.ndarray, b: float, xi: np.ndarray | None = None):
    """Box bounds of the thesis's R code, derived from the start (w, b, xi).

    ``w_j in [-max_j ceil|w_j|, max_j ceil|w_j|]``, ``b in [-ceil|b|, ceil|b|]`` and
    ``xi_i in [0, ceil(max xi)]``.  A zero width (w = 0, b = 0 or xi = 0 exactly) is
    widened to 1 so that the box has an interior.  Returns (lower, upper) over (w, b)
    when ``xi`` is None, else over (w, b, xi).

    Parameters
    ----------
    w : numpy.ndarray
        The starting weights.
    b : float
        The starting offset.
    xi : numpy.ndarray, optional
        The starting slacks (primal method); None for bounds over (w, b) only.

    Returns
    -------
    lower : numpy.ndarray
        The lower bounds of the box.
    upper : numpy.ndarray
        The upper bounds of the box.
    """
    n = len(w)
    wmax = max(float(np.max(np.ceil(np.abs(w)))) if n else 0.0, 1.0)
    bmax = max(float(np.ceil(abs(b))), 1.0)
    lo = np.r_[np.full(n, -wmax), -bmax]
    hi = np.r_[np.full(n, wmax), bmax]
    if xi is None:
        return lo, hi
    ximax = max(float(np.ceil(np.max(xi))) if len(xi) else 0.0, 1.0)
    return np.r_[lo, np.zeros(len(xi))], np.r_[hi, np.full(len(xi), ximax)]


@dataclass(frozen=True)
class NloptRun:
    """Outcome of one NLopt run.

    ``x`` is the best feasible point evaluated (never worse than the start, which is
    evaluated first); ``trace`` the objective of each evaluation in order,
    ``violation`` the largest constraint violation of each evaluation (zeros without
    constraints); ``runs`` the number of NLopt runs (1 + restarts used).
    """

    x: np.ndarray
    fun: float
    start_fun: float
    code: int
    converged: bool
    message: str
    nevals: int
    seconds: float
    callback_seconds: float
    trace: np.ndarray
    violation: np.ndarray
    algorithm: str
    nlopt_version: str
    runs: int = 1


@public
def run_nlopt(fun, x0: np.ndarray, *, lower=None, upper=None, constraints=None,
              constraint_tol: float = 0.0, algorithm="COBYLA", maxeval: int = 500,
              ftol_rel: float = 1e-4, xtol_rel: float = 0.0, initial_step=None,
              feas_tol: float = 1e-9, maxtime: float = 0.0, restarts: int = 0) -> NloptRun:
    """Minimise ``fun(x)`` with NLopt local derivative-free algorithm(s).

    Parameters
    ----------
    fun : callable
        The objective ``fun(x) -> float``.
    x0 : numpy.ndarray
        The starting point (evaluated first; the result is never worse).
    lower, upper : numpy.ndarray, optional
        Box bounds on x (both or neither).
    constraints : callable, optional
        ``constraints(x) -> g`` (vector, feasible where g <= 0), passed as one
        vector-valued NLopt constraint with tolerance ``constraint_tol`` per entry.
    constraint_tol : float, default 0.0
        NLopt's tolerance of each entry of the constraint.
    algorithm : str or sequence of str, default "COBYLA"
        A name (``"COBYLA"``, without ``LN_``) or a sequence of names used in turn.
    maxeval : int, default 500
        Evaluations allowed; all runs share this budget.
    ftol_rel : float, default 1e-4
        NLopt stopping rule on the relative change of the objective.
    xtol_rel : float, default 0.0
        NLopt stopping rule on the relative change of x (0: not used).
    initial_step : float or array-like, optional
        NLopt's initial step (NLopt's own choice when None).
    feas_tol : float, default 1e-9
        Points whose largest violation exceeds ``feas_tol`` are never returned.
    maxtime : float, default 0.0
        NLopt's time limit in seconds (0: none).
    restarts : int, default 0
        Up to this many further runs, each from the best point so far with a fresh
        initial step (cycling through the algorithms), until every algorithm of the cycle
        in a row fails to improve the objective by ``ftol_rel`` (relative); all runs
        share the ``maxeval`` budget.

    Returns
    -------
    NloptRun
        The best feasible point, its objective, NLopt's result and the trace.
    """
    import nlopt

    algs = (algorithm,) if isinstance(algorithm, str) else tuple(algorithm)
    x0 = np.asarray(x0, dtype=float)
    N = x0.size
    trace: list[float] = []
    viol: list[float] = []
    best = {"x": x0.copy(), "f": np.inf}
    clock = [0.0]
    last_g = [None]

    def objective(x, grad):
        t = time.perf_counter()
        f = float(fun(x))
        v = 0.0
        if constraints is not None:
            g = constraints(x)
            last_g[0] = (x.copy(), g)
            v = max(0.0, float(g.max())) if g.size else 0.0
        if lower is not None:
            v = max(v, float(np.max(lower - x, initial=0.0)), float(np.max(x - upper, initial=0.0)))
        trace.append(f)
        viol.append(v)
        if v <= feas_tol and f < best["f"]:
            best["x"], best["f"] = x.copy(), f
        clock[0] += time.perf_counter() - t
        return f if np.isfinite(f) else 1e300

    def mcon(result, x, grad):
        t = time.perf_counter()
        cached = last_g[0]
        result[:] = cached[1] if cached is not None and np.array_equal(cached[0], x) \
            else constraints(x)
        clock[0] += time.perf_counter() - t

    def make(name):
        opt = nlopt.opt(getattr(nlopt, "LN_" + name), N)
        opt.set_min_objective(objective)
        if constraints is not None:
            opt.add_inequality_mconstraint(mcon, np.full(constraints(x0).size,
                                                         float(constraint_tol)))
        if lower is not None:
            opt.set_lower_bounds(np.asarray(lower, dtype=float))
            opt.set_upper_bounds(np.asarray(upper, dtype=float))
        if initial_step is not None:
            opt.set_initial_step(np.broadcast_to(np.asarray(initial_step, float), (N,)).copy())
        opt.set_ftol_rel(float(ftol_rel))
        if xtol_rel:
            opt.set_xtol_rel(float(xtol_rel))
        if maxtime:
            opt.set_maxtime(float(maxtime))
        return opt

    opts = [make(a) for a in algs]
    start_f = float(fun(x0))
    t0 = time.perf_counter()
    prev, fails, runs, code, last_ok = start_f, 0, 0, -1, None
    while runs <= restarts:
        remaining = int(maxeval) - len(trace)
        if remaining <= 0:
            code = 5
            break
        opt = opts[runs % len(opts)]
        runs += 1
        opt.set_maxeval(remaining)
        x_run = best["x"] if np.isfinite(best["f"]) else x0
        code = _optimize(opt, x_run, nlopt)
        if code > 0 or code == -4:
            last_ok = code
        if code in (5, 6):
            break
        fails = 0 if best["f"] < prev - ftol_rel * abs(prev) else fails + 1
        prev = min(prev, best["f"])
        if fails >= len(opts):
            break
    if code < 0 and code != -4 and last_ok is not None and len(opts) > 1:
        code = last_ok              # one algorithm of the cycle failed, another converged
    seconds = time.perf_counter() - t0
    converged, message = NLOPT_RESULTS.get(code, (False, f"unknown NLopt result code {code}"))
    if start_f <= best["f"]:      # the start was not beaten (or nothing feasible was found)
        best["x"], best["f"] = x0.copy(), start_f
    return NloptRun(x=best["x"], fun=float(best["f"]), start_fun=start_f, code=code,
                    converged=converged, message=message, nevals=len(trace), seconds=seconds,
                    callback_seconds=clock[0], trace=np.asarray(trace), violation=np.asarray(viol),
                    algorithm="+".join(algs), nlopt_version=nlopt_version(), runs=runs)


def _optimize(opt, x, nlopt) -> int:
    """One NLopt run; its result code (exceptions mapped to their negative codes)."""
    try:
        opt.optimize(x.copy())
        return int(opt.last_optimize_result())
    except nlopt.RoundoffLimited:
        return -4
    except nlopt.ForcedStop:
        return -5
    except MemoryError:
        return -3
    except (ValueError, getattr(nlopt, "logic_error", ValueError),
            getattr(nlopt, "domain_error", ValueError)):
        return -2
    except (RuntimeError, getattr(nlopt, "runtime_error", RuntimeError),
            getattr(nlopt, "exception", RuntimeError)):
        return -1
