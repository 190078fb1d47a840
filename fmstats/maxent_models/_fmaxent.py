"""The F-measure maximising maxent model: the reweighting algorithms of the thesis.

Notation: our ``alpha`` is the thesis's beta (:mod:`fmstats.measures`); F = 1/(alpha/P + (1-alpha)/R).

Certain labels y in {0, 1} (thesis §4.2, Algorithm 4.1).  The expected F-measure
F~ = TP~ / (TP~ + alpha FP~ + (1 - alpha) FN~), with expected counts from the model
probabilities p_i, is maximised at a weighted maximum-likelihood estimate with weights (4.2)

    w_i = (1 - alpha F~) / (alpha F~) * p_i   if y_i = 1,     w_i = 1 - p_i   if y_i = 0.

Probabilistic labels q_i (thesis ch. 6-7, Algorithm 7.1).  The noisy F-measure with
correlated counts TP^U = sum min(q, p), TN^U = sum min(1 - q, 1 - p) is maximised at a weighted
*uncertain* maximum-likelihood estimate with weights (6.9)

    w_i = p(1-p)/(p-q) * F/TP * [alpha F 1{p >= q} - (1 - alpha F) 1{p <= q}],

which explode as p -> q.  §7.2 smooths the counts with g1, g2 (7.2)-(7.3) of width epsilon,
giving the bounded weights (7.1); the thesis's experiments instead clip the raw weights
(``weight_bounds=``).  The plug-in variant of §9.3 uses the same weights with the deterministic
F and TP of the class predictions against q in place of the noisy ones.

Both algorithms alternate: weights from the current probabilities, then one IRLS step
(``inner="step"``, the variant for which §7.3 proves ascent) or a full weighted fit
(``inner="full"``, which the thesis found to reach better optima, Fig. 9.9), warm-started.
The loop stops when the last ``patience`` iterations improved the best target by less than
``max(min_improvement, rel_improvement * (gain since the start))`` -- "no significant
improvement in the last k steps" of Algorithms 4.1 and 7.1 -- and the best iterate, not the
last, is returned.  The relative rule matters for certain labels: the expected F keeps
creeping towards the F of hard predictions as the coefficients grow without bound.
"""
from __future__ import annotations


import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .._utils.boundary import public
from .. import measures as _m
from .._utils.validation import check_choice, check_scalar, warn
from ..exceptions import (ConvergenceWarning, InvalidArgumentError, ResponseError,
                         SeparationWarning)
from .._utils.call import records_call, refuse_unused
from ._fitdata import prepare
from ..glm import (expected_f_weights, noisy_f_weights, smoothed_noisy_counts,
                           standardised_ridge)
from ..glm import outer_loop
from ._covariance import FMAXENT_COV_TYPES, MIN_CLASS_REWEIGHTED, default_cov_type
from ._fresults import DEFAULT_SHRINKAGE, FMaxentResults

__all__ = [
    "fmaxent",
    "FMaxentResults",
    "expected_f_weights",
    "noisy_f_weights",
    "smoothed_noisy_counts",
    "sweep",
    "DEFAULT_EPSILON",
    "DEFAULT_WEIGHT_BOUNDS",
    "DEFAULT_SHRINKAGE",
    "MIN_CLASS_REWEIGHTED",
    "standardised_ridge",
]

#: Default smoothing width of §7.2; see :func:`fmaxent` for the measurement behind it.
DEFAULT_EPSILON = 0.01
#: Default clipping of the expected-F weights (mean 1): the thesis's own setting (appendix code).
DEFAULT_WEIGHT_BOUNDS = (0.01, 10.0)
#: Default number of bootstrap replicates for ``cov_type="bootstrap"``.
DEFAULT_BOOT_B = 200
#: Fewest bootstrap replicates accepted: below 20 the covariance of 6 coefficients is itself
#: too noisy to report (its relative error is about sqrt(2 / B)).
MIN_BOOT_B = 20
#: The default covariance is ``"reweighted"`` when the smaller class (weighted rows with
#: y = 1, or with y = 0) has at least this many rows, else ``"bootstrap"``; see :func:`fmaxent`.
COV_TYPES_F = FMAXENT_COV_TYPES
METHODS = ("expected", "noisy", "plugin")
INNER = ("full", "step")


# ----------------------------------------------------------------------------- entry points

def _check_bounds(bounds):
    if bounds is None:
        return None
    if isinstance(bounds, str):
        if bounds == "auto":
            return "auto"
        raise InvalidArgumentError(
            f"`weight_bounds` must be 'auto', None or a pair (low, high); got {bounds!r}.")
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`weight_bounds` must be 'auto', None or a pair (low, high); got {bounds!r}.") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and 0 < lo < hi):
        raise InvalidArgumentError(
            f"`weight_bounds` must satisfy 0 < low < high, both finite; got ({lo:g}, {hi:g}).")
    return (lo, hi)


@records_call(rows=("weights", "subset"))
def fmaxent(formula: str, data: pd.DataFrame, weights=None, *, subset=None, na_action=None,
            contrasts=None, alpha=None, beta=None,
            measure=None, method: str | None = None, epsilon: float | None = DEFAULT_EPSILON,
            weight_bounds="auto", shrinkage: float = DEFAULT_SHRINKAGE, inner: str = "full",
            max_outer: int = 100, patience: int = 5, min_improvement: float = 1e-8,
            rel_improvement: float = 0.01, select: str = "target", penalty: float = 0.0,
            cov_type: str | None = None, B: int = DEFAULT_BOOT_B, random_state=None, n_jobs=None,
            progress=None, replicates: str = "kstep", threshold: float = 0.5, missing: str = "drop",
            collinear: str = "drop", engine: str | None = None, tol: float = 1e-8,
            max_iter: int = 25, _call=None) -> FMaxentResults:
    """F-measure maximising maximum-entropy model (thesis ch. 4, 6, 7).

    Parameters
    ----------
    formula : str
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`: an R-style formula; the
        response is 0/1 labels, a probability column q, or ``cbind(yes, no)`` votes.
    data : DataFrame or dask.dataframe.DataFrame
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`.  A Dask DataFrame is fitted
        out of core (``_outofcore.py``): each outer iteration then
        costs about 3 + (inner IRLS steps) passes over the data.
    weights : str or array-like, optional
        As in :func:`fmstats.maxent` / :func:`fmstats.umaxent`: prior weights, a column name
        of ``data`` or an array with one value per row.
    subset : str or array-like of bool, optional
        As in :func:`fmstats.maxent`: the rows to fit (a boolean mask or an expression).
    na_action : {"omit", "exclude", "fail"}, optional
        As in :func:`fmstats.maxent`: rows with missing values (``"exclude"`` pads row-level
        results with NaN).  An offset is not taken: the F-reweighting is derived for eta = X b.
    contrasts : dict, optional
        As in :func:`fmstats.maxent`: factor -> ``"treatment"``, ``"sum"``, ``"helmert"``,
        ``"poly"``.
    alpha : float, optional
        The F-measure to maximise by its weight on precision, the thesis's beta; it must lie
        in (0, 1).  Give at most one of ``alpha``, ``beta`` and ``measure`` (default F1).
    beta : float, optional
        The F-measure to maximise by its beta (positive and finite; default F1).
    measure : FMeasure, optional
        The F-measure to maximise as an object (default F1).
    method : {"expected", "noisy", "plugin"}, optional
        ``"expected"`` (certain labels: Algorithm 4.1, weights (4.2)), ``"noisy"``
        (probabilistic labels: Algorithm 7.1, weights (6.9)/(7.1)) or ``"plugin"`` (§9.3:
        weights (6.9) with the deterministic F and TP of the predicted classes against q).
        Default: ``"expected"`` for 0/1 labels, ``"noisy"`` otherwise.
    epsilon : float or None, default 0.01
        Smoothing width of §7.2 (noisy and plug-in methods).  The default 0.01 keeps
        the weights within p(1-p)F/(0.01 TP) while moving each smoothed count by at most
        0.005 per row; ``None`` uses the raw weights (6.9), which then need ``weight_bounds``.
    weight_bounds : "auto", (float, float) or None, default "auto"
        ``(low, high)`` clipping of the weights, scaled to mean 1 (applied after
        smoothing if both are given); ``None`` for no clipping.  ``"auto"`` (default) is the
        thesis's ``(0.01, 10)`` for the expected-F method and ``None`` for the noisy and
        plug-in methods, whose smoothing (``epsilon``) already bounds every weight.
    shrinkage : float, default 1e-4
        Ridge penalty per observation on standardised coefficients: the weighted
        log-likelihood of every refit is penalised by ``shrinkage * n * var(x_j) * b_j**2 / 2``
        (intercept and constant columns free), so the value does not depend on units.
        Default ``1e-4``.  Why any: the expected F of a logistic model keeps growing along
        every direction that separates the training data better, so an unpenalised
        F-reweighting drives the coefficients towards infinity (10**4 on Titanic) with no gain
        in held-out F; clipping the weights slows this but does not stop it (coefficients 55
        and fitted probabilities of exactly 0/1 on Titanic).  Why this value: on fresh draws
        of the chapter-9 data A and B (400 training rows, 5 seeds, alpha = 0.05, ..., 0.95),
        10 random Titanic splits and Adult, ``weight_bounds=(0.01, 10)`` with shrinkage 1e-4
        had the same mean held-out F as the thesis's setting on A/B (+0.0003, worst case
        -0.005), -0.004 on Titanic and +0.001 on Adult, with coefficients at most 15 on A/B
        (thesis setting: 18, unclipped and unpenalised: 6.5e5) and no separated fit on Titanic;
        3e-5 still separated on Titanic, larger values (1e-3, 1e-2) cost 0.01-0.03 of held-out
        F on Titanic.  ``benchmarks/fidelity/bench_fmaxent_defaults.py`` prints the comparison.
        ``shrinkage=0, weight_bounds=(0.01, 10)`` is the thesis's setting.
    inner : {"full", "step"}, default "full"
        ``"full"`` (a warm-started full weighted fit per outer iteration) or ``"step"``
        (one IRLS step, the variant of §7.3).
    max_outer : int, default 100
        Stop after ``max_outer`` outer iterations if the rule of ``patience`` has not
        stopped the loop before.
    patience : int, default 5
        Stop when the last ``patience`` outer iterations improved the best target by at most
        ``max(min_improvement, rel_improvement * gain since the start)``.
    min_improvement : float, default 1e-8
        The absolute improvement of the stopping rule (see ``patience``).
    rel_improvement : float, default 0.01
        The relative improvement of the stopping rule (see ``patience``), in [0, 1).
        ``rel_improvement=0`` runs to an absolute tolerance.
    select : {"target", "f"}, default "target"
        Return the iterate with the best ``"target"`` (default) or the best plug-in
        training F of the predicted classes (``"f"``).
    penalty : float, default 0
        A ridge penalty on the raw (unstandardised) coefficients, added to
        ``shrinkage``'s, as in :func:`fmstats.maxent`.
    cov_type : {"reweighted", "bootstrap", "HC0", "nonrobust", "HC1", "HC2", "HC3"}, optional
        The covariance of the coefficients, one estimator class each
        (``_covariance.py``).  Default
        (``default_cov_type``): ``"reweighted"`` when
        the smaller class (weighted rows with y = 1, or with y = 0) has at least
        :data:`MIN_CLASS_REWEIGHTED` = 900 rows, ``"bootstrap"`` below that, out of core (a
        Dask DataFrame) as in memory.  Why: in simulation (``benchmarks/inference/bench_fmaxent_coverage.py``;
        the documentation's "Inference for fmaxent") the reweighted sandwich's 95 % intervals
        covered 0.93-0.96 from about 900 rows in the smaller class but 0.5-0.93 below, where
        the bootstrap's covered within a few points of the best any interval centred on the
        estimate can reach (the estimator's own bias limits it).  The default bootstrap is
        computed on first use of the standard errors (``summary()``, ``bse``, ``tidy()``,
        ``conf_int()``), with ``B``, ``n_jobs``, ``progress``, ``random_state`` (seed 0 when
        not given, so the default summary is the same on every run) and ``replicates``; a fit
        whose standard errors are never asked for does not pay for it.  Out of core the fit
        keeps no rows, so its covariance is computed at fit time from the row blocks: the
        reweighted sandwich in four more passes over the data (the same numbers as in
        memory), the bootstrap by Poisson replicates run on the row blocks
        (:func:`fmstats.bootstrap`; its SEs agree with the in-memory bootstrap's within
        Monte-Carlo error).
        ``"reweighted"``: the sandwich of the estimator actually returned, which
        differentiates every outer iteration -- the F-weights' dependence on the
        coefficients, on the F and on the weights' scale, the clipping, and the
        data-dependent shrinkage (for ``inner="step"`` the stacked sandwich at the fixed
        point); it costs about one more fit.  Below 900 rows in the smaller class the summary
        withholds its z values and p-values (:meth:`FMaxentResults.tests_withheld`).
        ``"bootstrap"``: the covariance of case-bootstrap replicates of the *whole* fit, outer
        loop included (:func:`fmstats.bootstrap`): k-step replicates from the fit's own path
        on its stored design, their covariance by regression on their linear part (the
        reweighted influence rows times the resample counts: a control variate), at most
        ``B`` of them and fewer once every standard error's Monte-Carlo error is below 5 % of
        it (``benchmarks/inference/bench_honest_cost.py`` measures the cost and the coverage).  Computed
        at fit time when asked for explicitly.  Its tests are withheld below 150 rows in the
        smaller class, where the estimator's bias (up to 1.2 of its standard deviations)
        keeps every such interval well below 95 %.
        ``"HC0"``, ``"nonrobust"``, ``"HC1"``-``"HC3"`` treat the F-weights as fixed: they
        ignore that the weights are chosen from the fit and are several times too small (the
        old default; kept for comparison, with a warning line in the summary).
    B : int, default 200
        The bootstrap of ``cov_type="bootstrap"`` (also the default one): its most
        replicates, at least 20 (fewer run once every standard error's Monte-Carlo error is
        below 5 % of it).  Refused with another ``cov_type`` given explicitly (it would have no
        effect).
    random_state : int or numpy.random.Generator, optional
        The bootstrap of ``cov_type="bootstrap"``: its seed (the default bootstrap uses 0
        when it is not given); unused otherwise.
    n_jobs : int, optional
        The bootstrap of ``cov_type="bootstrap"``: its joblib workers; unused otherwise.
    progress : bool, optional
        The bootstrap of ``cov_type="bootstrap"``: its progress bar; unused otherwise.
    replicates : {"kstep", "full"}, default "kstep"
        The bootstrap of ``cov_type="bootstrap"``: k-step replicates from the fit's path
        (``"kstep"``; their coefficients equal full refits' to 1e-5 of a standard error,
        ``_refits.py``) or full refits (``"full"``); unused otherwise.
    threshold : float, default 0.5
        Predicted class 1 when the probability is at least this.
    missing : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: rows with missing values are dropped (with a warning)
        or raise.
    collinear : {"drop", "raise"}, default "drop"
        As in :func:`fmstats.maxent`: aliased columns are dropped (NA coefficients, with a
        warning) or raise.
    engine : str, optional
        As in :func:`fmstats.maxent`: the formula engine, ``"formulaic"`` (default) or
        ``"patsy"``.
    tol : float, default 1e-8
        As in :func:`fmstats.maxent`: the IRLS convergence tolerance (relative deviance
        change) of every weighted fit.
    max_iter : int, default 25
        As in :func:`fmstats.maxent`: the IRLS iteration cap of every weighted fit.

    Returns
    -------
    FMaxentResults
        The fitted model.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> fit = fm.fmaxent("y_ml ~ x1 + x2", d[d.split == "train"], alpha=0.3)
    >>> bool(fit.params.abs().max() < 50), fit.settings["weight_bounds"]
    (True, (0.01, 10.0))
    >>> print(f"{fit.measure(d[d.split == 'test']):.3f}")
    0.747
    """
    fm = _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    if not 0 < fm.alpha < 1:
        raise InvalidArgumentError(
            f"fmaxent needs alpha in (0, 1) (beta > 0 and finite); got {fm}.")
    if method is not None:
        check_choice("method", method, METHODS)
    if epsilon is not None:
        check_scalar("epsilon", epsilon, low=0, low_open=True)
    bounds = _check_bounds(weight_bounds)
    check_scalar("shrinkage", shrinkage, low=0)
    check_choice("inner", inner, INNER)
    check_choice("select", select, ("target", "f"))
    check_scalar("max_outer", max_outer, low=1, integer=True)
    check_scalar("patience", patience, low=1, integer=True)
    check_scalar("min_improvement", min_improvement, low=0)
    check_scalar("rel_improvement", rel_improvement, low=0, high=1, high_open=True)
    auto_cov = cov_type is None
    if auto_cov:
        cov_type = "reweighted"          # or the bootstrap for a small class: see below
    check_choice("cov_type", cov_type, COV_TYPES_F)
    check_choice("replicates", replicates, ("kstep", "full"))
    bootstrap_cov = cov_type == "bootstrap"
    if not (auto_cov or bootstrap_cov):
        refuse_unused(_call, ["B", "replicates"], f"with cov_type={cov_type!r} (they set the "
                      "bootstrap covariance's replicates)", "use cov_type='bootstrap'")
    if bootstrap_cov or auto_cov:
        check_scalar("B", B, low=MIN_BOOT_B, integer=True)

    prep = prepare("fmaxent", _call, data, weights, subset=subset, dispersion="pearson",
                   dependence="correlated", start=None, cov_type=cov_type,
                   more_cov_types=("bootstrap", "reweighted"))
    resp = prep.frame.response
    rows = prep.source(float(threshold))   # a row source: in memory or chunks of a Dask frame
    if not rows.has_positives():
        raise ResponseError(f"the response '{resp.name}' has no positives; the F-measure is "
                            "undefined.")
    if method is None:
        method = "expected" if resp.kind == "binary" else "noisy"
    elif method == "expected" and resp.kind != "binary":
        raise InvalidArgumentError(
            f"method='expected' needs 0/1 labels; the response '{resp.name}' is "
            f"{resp.kind}. Use method='noisy' or 'plugin'.")
    if bounds == "auto":
        bounds = DEFAULT_WEIGHT_BOUNDS if method == "expected" else None
    if method != "expected" and epsilon is None and bounds is None:
        raise InvalidArgumentError(
            "the raw weights (6.9) are unbounded as p -> q: give `epsilon` (smoothing) or "
            "`weight_bounds` (clipping).")
    total_weight, column_var = rows.column_variances()
    pen = prep.penalty + standardised_ridge(total_weight, column_var, float(shrinkage))
    settings = prep.settings.replace(method=method, weight_bounds=bounds,
                                     weight_bounds_auto=isinstance(weight_bounds, str),
                                     shrinkage=float(shrinkage), epsilon=epsilon)

    base_coef = rows.baseline(pen, tol, max_iter)
    with threadpool_limits(limits=1, user_api="blas"):
        # many small refits: one BLAS thread each is faster than two fighting
        outer = outer_loop(rows, base_coef, alpha=fm.alpha, method=method,
                            epsilon=epsilon if method != "expected" else None, bounds=bounds,
                            inner=inner, max_outer=int(max_outer), patience=int(patience),
                            min_improvement=float(min_improvement),
                            rel_improvement=float(rel_improvement), select=select,
                            penalty=pen, tol=tol, max_iter=max_iter)
    if not outer.converged:
        h = outer.history
        warn(f"the F-measure maximiser stopped without converging: {outer.reason}. Best target "
             f"{h['target'].max():.6g} at iteration {outer.best_iteration} (start "
             f"{h['target'].iloc[0]:.6g}); the best iterate is returned. Increase `max_outer` "
             "or relax `rel_improvement`/`min_improvement`.", ConvergenceWarning)
    fit = rows.evaluate(outer.fweights, outer.coef, pen)
    if fit.separated and not (shrinkage > 0 or penalty > 0):
        warn("the F-measure maximiser drove fitted probabilities to 0 or 1 (the coefficients grow "
             "without bound as the expected F approaches the F of hard predictions); predictions "
             "remain usable but standard errors do not (they print as NA). Raise `shrinkage` "
             f"(now {shrinkage:g}) to keep the coefficients finite.", SeparationWarning)
    kw = dict(frame=prep.frame, aliased=prep.aliased, fit=fit, outer=outer,
              baseline_coef=base_coef, column_var=column_var,
              training=prep.training(fit, rows=rows, fweights=outer.fweights))
    if auto_cov:
        positives = float(rows.sum_q)
        # computed on first use of the standard errors when it is the bootstrap
        settings = settings.replace(cov_type=default_cov_type(
            "fmaxent", min(positives, float(total_weight) - positives)))
    # out of core, a covariance that needs the rows is computed before they are let go
    res = prep.finish(FMaxentResults(settings=settings, call=_call, **kw), rows)
    if bootstrap_cov:
        res.bootstrap_results          # asked for explicitly: computed at fit time
    return res


@public
def sweep(formula: str, data: pd.DataFrame, newdata: pd.DataFrame | None = None, *,
          alphas=None, weights=None, **kwargs) -> pd.DataFrame:
    """Fit the baseline and the F-maximiser over a grid of alpha (default 0.05, ..., 0.95).

    The baseline is the unweighted model (``maxent`` for 0/1 labels, ``umaxent``
    otherwise), fitted once; the maximiser is refitted for every alpha.  Returns a tidy
    DataFrame with columns alpha, beta, model ("baseline"/"fmaxent"), data
    ("train"/"test"), f (F of the predicted classes; fractional counts for probabilistic
    labels), noisy_f (correlated).  Plot it with :func:`fmstats.plotting.plot_sweep`.

    Parameters
    ----------
    formula : str
        As in :func:`fmaxent`: the R-style formula of both models.
    data : DataFrame
        The training data (rows ``data="train"`` of the table).
    newdata : DataFrame, optional
        Test data with the response (rows ``data="test"``); default: none, training rows
        only.
    alphas : sequence of float, optional
        The grid of F-measure weights alpha, each in (0, 1), e.g. ``[0.25, 0.5]`` (default
        0.05, 0.10, ..., 0.95).
    weights : str or array-like, optional
        Prior weights of both models, as in :func:`fmaxent`.
    **kwargs
        Further arguments of :func:`fmaxent`; ``penalty``, ``threshold``, ``missing``,
        ``collinear`` and ``engine`` also go to the baseline.

    Returns
    -------
    pandas.DataFrame
        One row per alpha, model and data set, as described above.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> train, test = d[d.split == "train"], d[d.split == "test"]
    >>> table = fm.sweep("y_ml ~ x1 + x2", train, test, alphas=[0.2, 0.8])
    >>> print(table.round(3).to_string(index=False))
     alpha  beta    model  data     f  noisy_f
       0.2   2.0 baseline train 0.732    0.612
       0.2   2.0 baseline  test 0.698    0.622
       0.2   2.0  fmaxent train 0.851    0.847
       0.2   2.0  fmaxent  test 0.822    0.821
       0.8   0.5 baseline train 0.705    0.612
       0.8   0.5 baseline  test 0.638    0.583
       0.8   0.5  fmaxent train 0.707    0.702
       0.8   0.5  fmaxent  test 0.658    0.649
    """
    from ._fitting import maxent, umaxent

    given = [k for k in ("alpha", "beta", "measure") if k in kwargs]
    if given:
        raise InvalidArgumentError(
            f"`{given[0]}`: sweep() fits one F-maximiser per F-measure weight of `alphas`, so it "
            f"takes no single {given[0]}; pass the grid as `alphas=` (e.g. alphas=[0.25, 0.5]).")
    if alphas is None:
        alphas = np.round(np.arange(0.05, 0.951, 0.05), 10)
    else:   # a non-empty 1-d float array in (0, 1), or an error naming the argument and rule
        rule = "a non-empty 1-d sequence of F-measure weights alpha in (0, 1), e.g. [0.25, 0.5]"
        try:
            arr = np.asarray(alphas, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"`alphas` must be {rule}; got {alphas!r:.80}.") from None
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidArgumentError(f"`alphas` must be {rule}; got an array of shape "
                                       f"{arr.shape}: {alphas!r:.80}.")
        bad = arr[~((arr > 0) & (arr < 1))]
        if bad.size:
            raise InvalidArgumentError(f"`alphas` must be {rule}; got {bad[0]:g} among them.")
        alphas = arr
    fits = {}
    for a in alphas:
        fits[("fmaxent", float(a))] = fmaxent(formula, data, weights, alpha=float(a), **kwargs)
    first = next(iter(fits.values()))
    base_fn = maxent if first.response_kind == "binary" else umaxent
    base_kw = {k: kwargs[k] for k in ("penalty", "threshold", "missing", "collinear", "engine")
               if k in kwargs}
    baseline = base_fn(formula, data, weights, **base_kw)
    rows = []
    sets = [("train", None)] + ([("test", newdata)] if newdata is not None else [])
    for a in alphas:
        for model, fit in (("baseline", baseline), ("fmaxent", fits[("fmaxent", float(a))])):
            for name, d in sets:
                rows.append({"alpha": float(a), "beta": float(np.sqrt((1 - a) / a)),
                             "model": model, "data": name,
                             "f": fit.measure(d, alpha=float(a)),
                             "noisy_f": fit.noisy_f(d, alpha=float(a), dependence="correlated")})
    return pd.DataFrame(rows)
