"""Bootstrap resampling of any fitted model: replicate coefficients, SEs and CIs.

:func:`bootstrap` refits a model (through the results protocol, ``results.refit(data)``) on
B resampled data sets and returns a frozen :class:`BootstrapResults`.  Three resampling
schemes:

* ``"case"``: n rows drawn with replacement (Efron's nonparametric bootstrap);
* ``"stratified"``: rows drawn with replacement within each class (majority class for
  probabilistic labels), so every replicate keeps the class counts;
* ``"labels_from_q"``: X kept, labels drawn from the probabilistic response q (thesis §9.2):
  Y_i ~ Bernoulli(q_i) for a probability column, yes_i ~ Binomial(yes_i + no_i, q_i) for
  ``cbind(yes, no)`` votes.

Fast path.  For ``maxent``/``umaxent``/``fmaxent`` fits that keep their design the prior
weights are frequency weights (a tested property: weights equal duplicated rows), so a case
resample is the fit on the original rows with weights times the resample counts.  The model
hands out the engine that does these refits on its stored design, many at once
(``results.row_refits()``, ``fmstats/maxent_models/_refits.py``): k-step replicates from the
fit's solution by default (``replicates="kstep"``), full refits with ``replicates="full"``
(no formula rebuild, no missing factor levels: a level absent from the resample gives an
aliased column, i.e. a NaN coefficient, exactly as the refit gives a missing term).  It is
used by default where it applies (``fast=None``); ``tests/test_bootstrap.py`` and
``tests/test_kstep.py`` check both against refits through the model.

How many replicates (``_mcerror.py``).  ``B`` is the most: with the stop
rule of ``mc_tol`` the bootstrap stops once the Monte-Carlo error of every reported quantity
is small beside its standard error (Andrews & Buchinsky 2000), and on the fast path the
coefficients' covariance uses the replicates' linear part as a control variate (Efron 1990),
which reaches a given Monte-Carlo error with fewer replicates.  ``mc_error()`` reports the
Monte-Carlo errors.

Confidence intervals are pure functions of the replicate array (:func:`percentile_interval`,
:func:`basic_interval`, :func:`bca_interval`, in :mod:`fmstats.inference`), so they can be fed any replicates (the tests
feed them scipy's).  Quantiles are numpy's linear interpolation, as in
``scipy.stats.bootstrap``.  BCa (Efron & Tibshirani 1993, §14.3) needs the jackknife
acceleration: with n rows that is n refits; above ``JACKKNIFE_MAX`` rows a grouped
(delete-a-group) jackknife with that many random groups estimates the same acceleration
(the skewness of a sum of m influences shrinks by 1/sqrt(m), which the formula's
normalisation undoes).  ``jackknife=`` sets the number of groups.

The replicate engines live in ``_replicates.py`` (shared with ``_validate.py``).
Replicates are computed in chunks by module-level workers through joblib (so
``joblib.parallel_config(backend="dask")`` works unchanged); every replicate has its own
seed spawned from ``random_state`` before dispatch, so results do not depend on ``n_jobs``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd

from .._utils.boundary import public
from .._utils.call import ModelCall
from .._utils.parallel import spawn_seeds
from ..results import Persistable, require_protocol, rows_of
from ._bootplot import draw_replicates
from ._bootsummary import BootSummary
from ._mcerror import (check_mc_tol, covariance as mc_covariance, enough, linear_covariance,
                       next_round, quantile_mc_error, reported_errors, se_mc_error)
from ._replicates import (TYPES, model_call_of, BlockEngine, Draws, PoissonDraws, RowsEngine, as_series,
                          collect, default_statistic, make_engine, replicate_block, report,
                          run, unpack)
from ._separation import (DegenerateReplicateWarning, degenerate_replicates, split_flags,
                          warn_all_nan)
from .._utils.validation import (check_choice, check_scalar, describe, interval_request,
                                 renamed_arguments)
from ..inference import (basic_interval, bca_interval, check_level, jackknife_acceleration,
                         percentile_interval)
from ..exceptions import InvalidArgumentError, ResamplingWarning
from ..results import Section, Summary

__all__ = ["bootstrap", "BootstrapResults", "ResamplingWarning", "DegenerateReplicateWarning",
           "percentile_interval", "basic_interval", "bca_interval", "jackknife_acceleration",
           "TYPES", "CIS", "JACKKNIFE_MAX"]

CIS = ("percentile", "basic", "bca")
#: The ways replicates are refitted on the fast path (``fmstats/maxent_models/_refits.py``).
REPLICATES = ("kstep", "full")
#: The most Newton steps of a k-step replicate's weighted fit.
DEFAULT_K = 8

#: Above this many rows the BCa jackknife is grouped (this many groups) by default.
JACKKNIFE_MAX = 1000
#: The step rule of k-step jackknife refits (in standard errors).
JACKKNIFE_STEP_TOL = 1e-6


def _model_table(results, level: float):
    """The model's own coefficient table (for a thresholded classifier: its base model's)."""
    return rows_of(results).coefficient_table(level)



# ============================================================================ entry point

@public
def bootstrap(results, B: int = 1000, *, type: str = "case", statistic: Callable | None = None,
              ci=True, ci_method: str | None = None, level: float = 0.95,
              data: pd.DataFrame | None = None,
              jackknife: int | None = None, fast: bool | None = None,
              degenerate: str = "drop", n_jobs: int | None = None, random_state=None,
              progress=None, reuse_design: bool = True, replicates: str = "kstep",
              k: int = DEFAULT_K, mc_tol="auto", control: bool = True) -> "BootstrapResults":
    """Bootstrap a fitted model: refit on B resamples, return replicates, SEs and CIs.

    Parameters
    ----------
    results : ModelResults
        A fitted model speaking the results protocol (``refit``, ``params``,
        ``measure``), e.g. from ``maxent``, ``umaxent`` or ``fmaxent`` (whose whole outer
        loop is refitted).
    B : int, default 1000
        Number of replicates (at least 2).
    type : {"case", "stratified", "labels_from_q"}, default "case"
        ``"case"``, ``"stratified"`` (within classes) or ``"labels_from_q"`` (X kept,
        labels drawn from q; thesis §9.2).  See the module docstring.
    statistic : callable, optional
        ``None`` (the coefficients and the training F of the model's measure) or a
        function of a fitted replicate returning a scalar, a Series or a 1-d array.
        Replicate values are aligned by name; missing terms are NaN.
    ci : bool, default True
        Intervals are wanted: the stop rule of ``mc_tol`` looks at the ends of the
        ``ci_method`` interval too.  ``False``: standard errors are what is wanted (intervals
        are still reported), so it looks at the standard errors only.  (``ci="bca"``, the
        method given as ``ci``, is the old spelling of ``ci=True, ci_method="bca"``, and
        ``ci=None`` that of ``ci=False``, deprecated).
    ci_method : {"percentile", "basic", "bca"}, default "percentile"
        The interval reported by ``summary()``/``tidy()``: ``"percentile"``,
        ``"basic"`` or ``"bca"`` (computes the jackknife); any other can be asked of
        :meth:`BootstrapResults.conf_int` later (BCa only if computed here).
    level : float, default 0.95
        The confidence level of that interval.
    data : DataFrame, optional
        The training DataFrame; needed except on the fast path (results objects do not
        keep it).  It is checked against the stored response and design.
    jackknife : int, optional
        Number of jackknife groups for BCa; default n up to ``JACKKNIFE_MAX`` rows,
        else ``JACKKNIFE_MAX`` random groups.
    fast : bool, optional
        Refit on the stored design with frequency weights: the weighted refit of
        maxent/umaxent, or fmaxent's whole outer loop on arrays (``None``: whenever it
        applies, i.e. such a fit keeping its design in memory and ``statistic=None``).
        The same numbers as refitting the model on the resampled rows, about twice as fast
        for fmaxent.
    degenerate : {"drop", "keep"}, default "drop"
        ``"drop"`` (default) or ``"keep"`` the replicates whose fit has no finite
        maximum-likelihood estimate (a (quasi-)separated resample: IRLS's separation flag,
        or standard errors ten times the original fit's confirmed by the linear programme
        of ``_separation.py``) or did not converge.  Either way they are counted
        in ``summary()`` and a :class:`DegenerateReplicateWarning` says how many.  Dropping
        is the default because such a replicate's coefficients are not estimates but the
        point where the iterations stopped (an intercept of 21.7 at ``max_iter=25``, larger
        with more iterations), so keeping them makes the SE a function of the iteration
        limit (on Titanic with ``C(pclass) * sex``, 3 of 200 replicates turn the intercept's
        SE from 0.67 into 2.03); the price is SEs conditional on a finite estimate, which
        understate the instability that the warning reports (``rms::bootcov`` likewise
        leaves out fits that fail).  A ridge ``penalty=`` makes every estimate finite.
        With ``"drop"`` such a replicate is NaN in ``replicates`` (its indices are in
        ``degenerate_replicates``).
    n_jobs : int, optional
        Joblib workers (``None``: joblib's default, 1 unless configured).
    random_state : int, SeedSequence or Generator, optional
        Seed; the same seed gives the same replicates whatever ``n_jobs``.
    progress : bool, optional
        A tqdm progress bar (``None``: only in interactive sessions).
    reuse_design : bool, default True
        Build the design of ``data`` once and refit every replicate on its rows (the same
        numbers as rebuilding it, faster).  ``False`` rebuilds the design from the formula
        on every replicate, as R's ``update()`` on a resample would.
    replicates : {"kstep", "full"}, default "kstep"
        On the fast path: ``"kstep"`` starts every replicate from the fit's solution (moved
        by its linear part) and takes Newton steps of the replicate's own estimating
        equations (for fmaxent, of every outer iteration's weighted fit) until the last step
        moves every coefficient by less than 0.01 of its standard error, at most ``k`` per
        weighted fit (Andrews 2002); ``"full"`` iterates every replicate to convergence from
        R's start.  A k-step replicate that does not meet the rule, loses a column or looks
        separated is refitted in full and counted (``n_full``).  Measured against full refits
        of the same draws: every replicate within 5e-5 of a standard error, at a fraction of
        the cost (``fmstats/maxent_models/_refits.py``;
        ``benchmarks/inference/bench_honest_cost.py``).
    k : int, default 8
        The most Newton steps of a k-step replicate's weighted fit (at least 1).
    mc_tol : float, "auto" or None, default "auto"
        Stop before ``B`` replicates once the Monte-Carlo error of every reported quantity
        -- each standard error, and each end of the interval -- is at most ``mc_tol``
        times the standard error (``_mcerror.py``; checked from 40
        replicates on, then every quarter more).  ``B`` is the maximum.  ``"auto"`` is 0.05
        where ``B`` leaves room for it (at least 40 replicates, and 5 in each tail of the
        interval), else no early stop; ``None`` always runs ``B``.
    control : bool, default True
        On the fast path of case and stratified resampling, estimate the covariance by
        regression on the replicates' linear part (the fit's influence rows times the
        resample counts, whose covariance is known exactly: Efron 1990), which needs fewer
        replicates for the same Monte-Carlo error when the replicates are nearly linear and
        equals the plain covariance when they are not.  Not when some replicates are
        degenerate, failed or lack a term (kept or left out): their coefficients are not
        estimates, or the others are a selection whose linear parts no longer have the known
        covariance.  ``False``: the sample covariance.

    Returns
    -------
    BootstrapResults

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    >>> boot = fm.bootstrap(fit, B=50, random_state=0)
    >>> print(boot.tidy()[["term", "estimate", "std_error", "conf_low", "conf_high"]]
    ...       .round(3).to_string(index=False))
              term  estimate  std_error  conf_low  conf_high
         Intercept     3.522      0.333     2.981      4.183
    C(pclass)[T.2]    -1.281      0.204    -1.725     -0.964
    C(pclass)[T.3]    -2.290      0.240    -2.954     -1.869
       sex[T.male]    -2.498      0.167    -2.779     -2.255
               age    -0.034      0.006    -0.042     -0.022
       training F1     0.728      0.016     0.700      0.752
    """
    check_scalar("B", B, low=2, integer=True)
    ci, ci_method = interval_request(ci, ci_method, CIS, default="percentile", call="bootstrap",
                                     old_none=True, method_needs_ci=False)
    interval = ci_method if ci else None     # the interval the stop rule watches, if any
    check_choice("degenerate", degenerate, ("drop", "keep"))
    check_choice("replicates", replicates, REPLICATES)
    k = int(check_scalar("k", k, low=1, integer=True))
    level = check_level(level)
    mc_tol = check_mc_tol(mc_tol, B, level, interval)
    if not isinstance(control, (bool, np.bool_)):
        raise InvalidArgumentError(f"`control` must be True or False; got {describe(control)}.")
    if statistic is not None and not callable(statistic):
        raise InvalidArgumentError(f"`statistic` must be None or a function of a fitted model; "
                                   f"got {describe(statistic)}.")
    require_protocol(results, "refit", *(() if statistic else ("measure",)))
    if statistic is None and rows_of(results).coefficients() is None:
        raise InvalidArgumentError(
            f"`results`: the default statistic is the coefficients and the training F, and "
            f"{describe(results)} has no coefficients (`params`); pass `statistic=`, a "
            "function of a fitted model.")
    if ci_method == "bca" and type == "labels_from_q":
        raise InvalidArgumentError("ci_method='bca' needs a jackknife over rows, which does not "
                                   "match type='labels_from_q' (labels, not rows, are "
                                   "resampled); use ci_method='percentile' or 'basic'.")
    t0 = as_series(statistic(results) if statistic else default_statistic(results))
    engine, is_fast = make_engine(results, type_=type, data=data, statistic=statistic,
                                  reuse_design=reuse_design, fast=fast, columns=t0.index,
                                  replicates=replicates, k=k, control=bool(control))
    seeds = spawn_seeds(random_state, int(B) + 1)
    linear = engine.linear if isinstance(engine, RowsEngine) else None
    out_of_core = isinstance(engine, BlockEngine)
    if out_of_core and ci_method == "bca":
        raise InvalidArgumentError("ci_method='bca' needs a jackknife over the rows, which a "
                                   "model fitted out of core cannot gather; use "
                                   "ci_method='percentile' or 'basic'.")
    # the exact covariance of the replicates' linear parts (the control variate)
    sigma_L = (engine.linear_cov() if out_of_core else
               None if linear is None else linear_covariance(linear, engine.strata))
    coef_cols = np.flatnonzero(t0.index.isin(_coefficient_names(results)))
    raw = []
    while True:
        todo = next_round(len(raw), int(B), mc_tol, replicate_block(engine.n))
        raw += run(engine, "stat", seeds[len(raw):len(raw) + todo], n_jobs, progress,
                   "bootstrap")
        if len(raw) >= B or mc_tol is None:
            break
        values, _, (infinite, unconverged, _), lin_vals = unpack(raw, len(t0))
        if infinite.any() or unconverged.any():        # no control variate (see control=)
            lin_vals = None
        errs, se = reported_errors(values, lin_vals, sigma_L, coef_cols, interval, level)
        if enough(errs, se, mc_tol):
            break
    values, raw2, (infinite, unconverged, full), lin_vals = unpack(raw, len(t0))
    values, errors, warned = collect(raw2, len(t0))
    defined = np.isfinite(t0.to_numpy())
    ok = np.array([r[1] is None for r in raw2])
    incomplete = int(np.sum(ok & np.any(~np.isfinite(values[:, defined]), axis=1)))
    report("bootstrap", len(raw), errors, incomplete, warned)
    # when the original fit did not converge either, its replicates are kept (and counted)
    bad = degenerate_replicates("bootstrap", values, infinite, unconverged, degenerate,
                                drop_unconverged=bool(rows_of(results).converged))
    warn_all_nan(values, t0, errors)
    jack, groups = None, None
    if ci_method == "bca":
        jack, groups = _jackknife(engine, len(t0), jackknife, seeds[-1], n_jobs, progress,
                                  degenerate)
    reps = pd.DataFrame(values, columns=t0.index).rename_axis("replicate")
    tidy_model = _model_table(results, level)
    lin_frame = None
    # the control variate's covariance is that of all resamples: with some replicates left
    # out (degenerate, failed, lacking a term) the kept ones are a selected set, and the plain
    # covariance is used instead
    if (lin_vals is not None and sigma_L is not None and coef_cols.size == sigma_L.shape[0]
            and np.all(np.isfinite(values[:, coef_cols]))
            and not (infinite.any() or unconverged.any())):
        lin_frame = pd.DataFrame(lin_vals, columns=t0.index[coef_cols])
    return BootstrapResults(
        replicates=reps, estimate=t0, jackknife=jack, jackknife_groups=groups,
        type=engine.type if out_of_core else type,
        ci=ci_method, level=level, B=len(raw), n=engine.n,
        fast=is_fast, n_failed=len(errors),
        n_incomplete=incomplete, replicate_warnings=warned, model_table=tidy_model,
        model_call=model_call_of(results),
        model_se_label=str(rows_of(results).cov_type),
        random_state=repr(random_state), seeds=tuple(seeds[:len(raw)]),
        n_separated=int(infinite.sum()), n_nonconverged=int(unconverged.sum()),
        degenerate=degenerate, degenerate_replicates=tuple(int(i) for i in np.flatnonzero(bad)),
        draws=(PoissonDraws(n=engine.n) if out_of_core else
               Draws(n=engine.n, type=type, strata=engine.strata, q=engine.q,
                     trials=engine.trials)),
        replicate_method=(replicates if is_fast else "refit"), n_full=int(full.sum()),
        k=k, B_max=int(B), mc_tol=mc_tol,
        linear=lin_frame, linear_cov=None if lin_frame is None else sigma_L)


def _coefficient_names(results) -> list:
    """The fit's non-aliased coefficient names (those the influence rows describe)."""
    p = rows_of(results).coefficients()
    return [] if p is None else list(p.dropna().index)


def _jackknife(engine, k, groups, seed, n_jobs, progress, degenerate="drop"):
    """Leave-one-out (or leave-a-group-out) values of the statistic, for BCa."""
    n = engine.n
    g = min(n, JACKKNIFE_MAX) if groups is None else int(check_scalar(
        "jackknife", groups, low=2, high=n, integer=True))
    if g == n:
        items = [("drop", np.array([i])) for i in range(n)]
    else:
        label = np.random.default_rng(seed).permutation(n) % g
        order = np.argsort(label, kind="stable")
        items = [("drop", part) for part in np.split(order, np.cumsum(np.bincount(label))[:-1])]
    if isinstance(engine, RowsEngine):
        # a jackknife value differs from the fit by ~SE/sqrt(n) only: its k-step refit runs
        # to a rule that small deviations need (1e-6 SE), for the acceleration's sake
        engine = dataclasses.replace(engine, step_tol=JACKKNIFE_STEP_TOL)
    raw, infinite, unconverged = split_flags(run(engine, "stat", items, n_jobs, progress,
                                                  "jackknife"))
    values, errors, warned = collect(raw, k)
    report("jackknife", len(items), errors, 0, warned)
    degenerate_replicates("jackknife", values, infinite, unconverged, degenerate)
    return values, g


# ============================================================================ results

@dataclass(frozen=True, eq=False)
class BootstrapResults(Persistable):
    """Replicates of a bootstrap (:func:`bootstrap`) with SEs, CIs, summary and plots.

    ``replicates`` is the B x k DataFrame (NaN where a replicate failed or lacked a term),
    ``estimate`` the statistic on the original fit, ``jackknife`` the jackknife values
    (BCa only).  Pickles.  Built by :func:`bootstrap`, not constructed directly; the
    fields below are its record of the run.

    Parameters
    ----------
    replicates : DataFrame
        The B x k replicate values (NaN where a replicate failed or lacked a term).
    estimate : Series
        The statistic on the original fit.
    jackknife : ndarray or None
        The jackknife values (BCa only).
    jackknife_groups : int or None
        The number of jackknife groups (BCa only).
    type : str
        The resampling scheme (``"case"``, ``"stratified"`` or ``"labels_from_q"``).
    ci : str
        The interval reported by ``summary()``/``tidy()`` (``ci_method`` of
        :func:`bootstrap`).
    level : float
        Its confidence level.
    B : int
        The number of replicates.
    n : int
        The number of training rows.
    fast : bool
        Whether the weighted refit of the stored design was used.
    n_failed : int
        Replicates whose refit failed (left out).
    n_incomplete : int
        Replicates lacking a term (NaN for it).
    replicate_warnings : dict
        Warning category -> number of replicates that raised it.
    model_table : DataFrame, optional
        The model's own coefficient table (``tidy()`` at ``level``), or None.
    model_call : ModelCall or str
        The model's recorded call (printed by ``summary()``); a str in files written before
        it was kept whole.
    model_se_label : str
        The model's covariance type, printed beside its SEs.
    random_state : str
        The ``repr`` of the ``random_state`` given.
    seeds : tuple
        The seed of every replicate (used by :meth:`counts` and :meth:`labels`).
    draws : Draws, optional
        What redraws a replicate's resample from its seed.
    n_separated : int
        Replicates whose fit has no finite maximum-likelihood estimate (separated).
    n_nonconverged : int
        Replicates whose fit did not converge.
    degenerate : str
        ``"drop"`` or ``"keep"``, as given to :func:`bootstrap`.
    degenerate_replicates : tuple
        The indices of the degenerate replicates.
    replicate_method : str
        How replicates were refitted: ``"kstep"`` or ``"full"`` on the fast path
        (:func:`bootstrap`'s ``replicates``), ``"refit"`` through ``results.refit``.
    n_full : int
        The k-step replicates refitted in full (their steps did not meet the rule, or the
        resample looked separated).
    k : int
        The most Newton steps per weighted fit of a k-step replicate.
    B_max : int
        The ``B`` asked for (``B`` is the number run; fewer when the stop rule was met).
    mc_tol : float or None
        The stop rule's tolerance (None: all ``B_max`` replicates were run).
    linear : DataFrame, optional
        The linear part of every replicate's coefficients (the control variate), or None.
    linear_cov : ndarray, optional
        Its exact resampling covariance.
    """

    replicates: pd.DataFrame
    estimate: pd.Series
    jackknife: np.ndarray | None
    jackknife_groups: int | None
    type: str
    ci: str
    level: float
    B: int
    n: int
    fast: bool
    n_failed: int
    n_incomplete: int
    replicate_warnings: dict = field(default_factory=dict)
    model_table: pd.DataFrame | None = None
    model_call: ModelCall | str = ""
    model_se_label: str = ""
    random_state: str = "None"
    seeds: tuple = field(default=(), repr=False)
    draws: Draws | None = field(default=None, repr=False)
    n_separated: int = 0
    n_nonconverged: int = 0
    degenerate: str = "drop"
    degenerate_replicates: tuple = field(default=(), repr=False)
    replicate_method: str = "full"
    n_full: int = 0
    k: int = DEFAULT_K
    B_max: int = 0
    mc_tol: float | None = None
    linear: pd.DataFrame | None = field(default=None, repr=False)
    linear_cov: np.ndarray | None = field(default=None, repr=False)

    def _item(self, replicate):
        check_scalar("replicate", replicate, low=0, high=self.B - 1, integer=True)
        return self.seeds[replicate]

    @public
    def counts(self, replicate: int) -> np.ndarray:
        """How often each training row appears in resample ``replicate`` (case, stratified).

        Parameters
        ----------
        replicate : int
            The replicate's index, 0 to B - 1.

        Returns
        -------
        numpy.ndarray
            One count per training row.
        """
        if self.type == "labels_from_q":
            raise InvalidArgumentError("type='labels_from_q' keeps the rows; see labels().")
        return self.draws.counts(self._item(replicate))

    @public
    def labels(self, replicate: int) -> np.ndarray:
        """The labels drawn for replicate ``replicate`` (type='labels_from_q').

        Parameters
        ----------
        replicate : int
            The replicate's index, 0 to B - 1.

        Returns
        -------
        ndarray
            0/1 labels, or the drawn ``yes`` votes for a cbind(yes, no) response.
        """
        if self.type != "labels_from_q":
            raise InvalidArgumentError(f"labels() is for type='labels_from_q'; this bootstrap "
                                       f"is type={self.type!r}: see counts().")
        d = self.draws.draw(self._item(replicate))
        return d["labels"] if "labels" in d else d["yes"]

    @property
    def n_valid(self) -> pd.Series:
        """Finite replicates per term."""
        return self.replicates.notna().sum().rename("n_valid")

    @property
    def std_error(self) -> pd.Series:
        """Bootstrap standard errors: of the coefficients, by regression on the control
        variate when it was computed (:meth:`cov`); else the sd of the finite replicates
        (ddof = 1)."""
        se = self.replicates.std(ddof=1)
        if self.linear is not None:
            terms = list(self.linear.columns)
            se[terms] = np.sqrt(np.clip(np.diag(self.cov(terms).to_numpy()), 0.0, None))
        return se.rename("std_error")

    def cov(self, terms=None) -> pd.DataFrame:
        """The bootstrap covariance of ``terms`` (default: all statistics) over the replicates
        finite in all of them: by regression on the replicates' linear part when it was
        computed for those terms (``control=True``; ``_mcerror.py``),
        else the sample covariance.

        Parameters
        ----------
        terms : list of str, optional
            The statistics (default all).

        Returns
        -------
        DataFrame
        """
        terms = list(self.replicates.columns if terms is None else terms)
        T = self.replicates[terms].to_numpy(dtype=float)
        use = self.linear is not None and set(terms) <= set(self.linear.columns)
        if use:
            idx = [list(self.linear.columns).index(t) for t in terms]
            L = self.linear[terms].to_numpy(dtype=float)
            V = mc_covariance(T, L, self.linear_cov[np.ix_(idx, idx)])
        else:
            V = mc_covariance(T)
        return pd.DataFrame(V, index=terms, columns=terms)

    @renamed_arguments(ci="ci_method")
    def mc_error(self, ci_method: str | None = None, level: float | None = None
                 ) -> pd.DataFrame:
        """Monte-Carlo standard errors of the bootstrap's own numbers, per statistic: of the
        standard error (``se_mc``) and of the interval's ends (``conf_low_mc``,
        ``conf_high_mc``; percentile and basic intervals) -- the error that more replicates
        would remove (``_mcerror.py``).

        Parameters
        ----------
        ci_method : {"percentile", "basic", "bca"}, optional
            The interval (default the fit's); BCa ends are reported as NaN.  (``ci=`` is the
            old spelling, deprecated).
        level : float, optional
            The confidence level (default the fit's).

        Returns
        -------
        DataFrame
        """
        ci = self.ci if ci_method is None else check_choice("ci_method", ci_method, CIS)
        level = self.level if level is None else check_level(level)
        cols = list(self.replicates.columns)
        se_mc = pd.Series(np.nan, index=cols)
        lin = [] if self.linear is None else list(self.linear.columns)
        for group in ([lin, [c for c in cols if c not in lin]] if lin else [cols]):
            if not group:
                continue
            T = self.replicates[group].to_numpy(dtype=float)
            keep = np.all(np.isfinite(T), axis=1)
            if group is lin:
                se_mc[group] = se_mc_error(T[keep], self.linear[group].to_numpy()[keep],
                                           self.linear_cov)
            else:
                se_mc[group] = se_mc_error(T[keep])
        a = (1 - level) / 2
        ends = np.full((len(cols), 2), np.nan)
        if ci != "bca":
            for j, c in enumerate(cols):
                r = self.replicates[c].to_numpy(dtype=float)
                ends[j] = [quantile_mc_error(r, a), quantile_mc_error(r, 1 - a)]
            if ci == "basic":                  # 2 t0 - q: the ends swap
                ends = ends[:, ::-1]
        return pd.DataFrame({"se_mc": se_mc.to_numpy(), "conf_low_mc": ends[:, 0],
                             "conf_high_mc": ends[:, 1]}, index=pd.Index(cols, name="term"))

    @property
    def bias(self) -> pd.Series:
        """Mean of the replicates minus the original estimate."""
        return (self.replicates.mean() - self.estimate).rename("bias")

    @renamed_arguments(ci="method")
    def conf_int(self, method: str | None = None, level: float | None = None) -> pd.DataFrame:
        """Bootstrap CIs, columns ``conf_low``, ``conf_high`` (default: the fit's method and
        level).

        Parameters
        ----------
        method : {"percentile", "basic", "bca"}, optional
            The interval (default: the one chosen in :func:`bootstrap`; ``"bca"`` only if
            the jackknife was computed there).  (``ci=`` is the old spelling, deprecated).
        level : float, optional
            The confidence level (default: the one chosen in :func:`bootstrap`).

        Returns
        -------
        pandas.DataFrame
            One row per term, columns ``conf_low`` and ``conf_high``.
        """
        ci = self.ci if method is None else check_choice("method", method, CIS)
        level = self.level if level is None else check_level(level)
        if ci == "bca" and self.jackknife is None:
            raise InvalidArgumentError("BCa intervals need the jackknife, which was not computed: "
                                       "rerun bootstrap(..., ci_method='bca').")
        rows = []
        for j, term in enumerate(self.replicates.columns):
            r, t0 = self.replicates[term].to_numpy(), float(self.estimate[term])
            if ci == "percentile":
                rows.append(percentile_interval(r, level))
            elif ci == "basic":
                rows.append(basic_interval(r, t0, level))
            else:
                rows.append(bca_interval(r, t0, self.jackknife[:, j], level))
        return pd.DataFrame(rows, index=self.replicates.columns, columns=["conf_low", "conf_high"])

    @renamed_arguments(ci="ci_method")
    def tidy(self, ci_method: str | None = None, level: float | None = None) -> pd.DataFrame:
        """One row per term: estimate, bias, bootstrap SE and CI, beside the model's SE and
        Wald CI (``model_*`` columns; NaN for the training F).

        Parameters
        ----------
        ci_method : {"percentile", "basic", "bca"}, optional
            The bootstrap interval, as ``method`` of :meth:`conf_int` (default: the fit's;
            ``ci=`` is the old spelling: deprecated).
        level : float, optional
            The confidence level (default: the fit's level).  The ``model_*`` columns are
            filled at the fit's level only (NaN at another).

        Returns
        -------
        pandas.DataFrame
            One row per term, as described above.
        """
        c = self.conf_int(ci_method, level)
        out = pd.DataFrame({"term": self.estimate.index.to_numpy(),
                            "estimate": self.estimate.to_numpy(),
                            "bias": self.bias.to_numpy(), "std_error": self.std_error.to_numpy(),
                            "conf_low": c["conf_low"].to_numpy(),
                            "conf_high": c["conf_high"].to_numpy(),
                            "n_valid": self.n_valid.to_numpy()})
        m = self.model_table
        if m is not None and (level is None or level == self.level):
            m = m.set_index("term")[["std_error", "conf_low", "conf_high"]].add_prefix("model_")
            out = out.join(m, on="term")
        else:
            out = out.assign(model_std_error=np.nan, model_conf_low=np.nan, model_conf_high=np.nan)
        return out

    def summary(self) -> Summary:
        """Coefficient table with bootstrap SE and CI beside the model's SE and Wald CI.

        Returns
        -------
        Summary
            The printable summary.
        """
        scheme = {"case": "case resampling (rows with replacement)",
                  "poisson": "Poisson(1) frequency weights drawn on the row blocks (the Poisson "
                             "bootstrap of a model fitted out of core)",
                  "stratified": "rows with replacement within each class",
                  "labels_from_q": "X fixed, labels drawn from q (thesis §9.2)"}[self.type]
        stop = (f"{self.B} of at most {self.B_max} (stopped when every Monte-Carlo error was "
                f"at most {self.mc_tol:g} x its SE)" if self.mc_tol is not None
                and self.B < self.B_max else str(self.B))
        mc = self.mc_error()
        worst = float(np.nanmax((mc["se_mc"] / self.std_error).to_numpy(dtype=float))) \
            if len(mc) else np.nan
        lines = [("Resampling", scheme), ("Replicates", f"{stop} (rows n = {self.n})"),
                 ("Failed replicates (left out)", self.n_failed),
                 ("Replicates lacking a term (NaN for it)", self.n_incomplete),
                 ("Replicates without a finite MLE (separated)", self.n_separated),
                 ("Replicates not converged", self.n_nonconverged)]
        if self.degenerate_replicates:
            lines.append(("Those replicates", "left out of SEs and CIs (degenerate='drop')"
                          if self.degenerate == "drop" else "kept in SEs and CIs "
                          "(degenerate='keep'): they inflate them"))
        lines += [("Bootstrap CI", f"{self.ci}, {100 * self.level:g}% level"
                  + (f"; jackknife with {self.jackknife_groups} groups"
                     if self.jackknife is not None else "")),
                 ("Refits", self._refit_label()),
                 ("Monte-Carlo error", f"of the SEs at most {worst:.1%} of the SE"
                  + (" (covariance by regression on the replicates' linear part)"
                     if self.linear is not None else "") + "; see mc_error()"),
                 ("Model SE and Wald CI", f"{self.model_se_label} covariance"),
                 ("random_state", self.random_state)]
        if self.replicate_warnings:
            lines.append(("Replicate warnings", ", ".join(
                f"{k} in {v}" for k, v in sorted(self.replicate_warnings.items()))))
        return BootSummary(title="Bootstrap of a fitted model", call=str(self.model_call),
                            coef_table=self.tidy(), sections=[Section("Bootstrap:", lines)])

    def _refit_label(self) -> str:
        if not self.fast:
            return "full refits from the formula"
        what = "refits of the stored design (weights x resample counts)"
        if self.replicate_method == "kstep":
            return (f"k-step {what}: Newton steps from the fit's solution until the last moves "
                    f"every coefficient < 0.1 SE (at most k = {self.k} per weighted fit); "
                    f"{self.n_full} refitted in full")
        return f"full {what}"

    def __repr__(self) -> str:
        return (f"<BootstrapResults {self.type}, B = {self.B}, {len(self.estimate)} statistics, "
                f"{self.n_failed} failed>")

    def plot(self, kind: str = "forest", terms=None, ax=None):
        """The replicates as a forest plot or as histograms.

        Parameters
        ----------
        kind : {"forest", "hist"}, default "forest"
            ``"hist"``: a histogram of each term's replicates with the estimate and CI;
            ``"forest"``: bootstrap CI beside the model's Wald CI for every term, the model's
            coefficients and the other statistics (training F, ...) on separate panels, each
            with its own scale.
        terms : list of str, optional
            The terms (statistics) shown (default: all).
        ax : matplotlib Axes or sequence of Axes, optional
            For ``"forest"``: one axes per panel (a sequence when there are two); default a
            new figure.  ``"hist"`` always draws a new figure.

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        check_choice("kind", kind, ("forest", "hist"))
        terms = list(self.estimate.index if terms is None else terms)
        unknown = [t for t in terms if t not in self.estimate.index]
        if unknown:
            raise InvalidArgumentError(f"`terms` names unknown term(s) {unknown}; known: "
                                       f"{list(self.estimate.index)}.")
        tid = self.tidy().set_index("term").loc[terms]
        call = self.model_call
        family = (call.name if isinstance(call, ModelCall)
                  else str(call).split("(")[0])      # the text kept by older files
        logit = family in ("maxent", "umaxent", "fmaxent")
        return draw_replicates(self, kind, terms, tid, ax, logit)
