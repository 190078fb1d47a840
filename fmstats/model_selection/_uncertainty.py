"""How sure a tuned threshold is: ``tune_threshold(..., ci=True)``.

The whole tuning -- fit the model, cross-validate it, pick the threshold of the best pooled
held-out F -- is a function of the training rows, and is rerun on resampled rows:

* **threshold interval**: ``B`` stratified case-bootstrap replicates (rows drawn with
  replacement within each class, as frequency weights: a row drawn twice counts twice in the
  fit and stays in one fold); the percentile interval of the replicates' thresholds;
* **optimism-corrected F** (``f_corrected``): nested cross-validation of the whole tuning --
  on each outer training part the model is fitted and its threshold tuned by the inner
  folds, and the tuned rule classes the outer held-out rows; the F of the pooled outer
  classes estimates the F of the tuning's rule on new rows, and its delta-method interval
  (:func:`fmstats.f_interval`) is ``f_corrected_ci``.  The ``.632+`` estimate of the same
  (Efron & Tibshirani 1997, from the replicates' out-of-bag classes) is reported beside it.
  Nested CV was chosen by measurement (``benchmarks/inference/bench_f_intervals.py``, part b, 300 data
  sets per cell, n = 200-5000, prevalence 0.05-0.5): its bias against the true F of the tuned
  rule was within +-0.004 in eight of nine cells (+0.022 with about ten positives), its
  interval covered 0.88-0.96, and on the data sets where both were computed .632+ -- which
  leans on the apparent F of a rule tuned on its own rows -- was further off in eight of nine
  cells;
* **band of the CV F curve**: the pointwise delta-method interval of the pooled held-out F
  at every cut (:func:`fmstats.inference.delta_band`).

Warnings: :class:`~fmstats.exceptions.TrivialRuleWarning` when the tuned rule classes every
training row alike, :class:`~fmstats.exceptions.UnstableThresholdWarning` when the threshold's
interval spans more than half of the range of the training scores.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..exceptions import (FmstatsError, InvalidArgumentError, ResamplingWarning,
                          TrivialRuleWarning, UnstableThresholdWarning)
from ..formula import predict_rows
from ..inference import (delta_band, estimate_632plus, interval_of_rows, quantile_mc_error,
                         tail_quantiles,
                         no_information_counts)
from ..results import TrainingRows, predict_kept
from .._utils.folds import stratified_folds
from .._utils.parallel import run_tasks
from .._utils.validation import warn
from .._utils.parallel import capturing
from ..formula import FoldResponse
from ._folds import make_folds
from ._search import cv_threshold, tuned_threshold

__all__ = ["TuningUncertainty", "tuning_uncertainty", "warn_trivial", "OUTER_FOLDS",
           "stratified_draw", "CHUNK_ENTRIES"]

#: Outer folds of the nested cross-validation when ``cv`` is not an integer.
OUTER_FOLDS = 5
#: The threshold interval is "unstable" beyond this share of the range of the scores.
UNSTABLE_SHARE = 0.5


@dataclass(frozen=True, eq=False)
class TuningUncertainty:
    """What ``tune_threshold(..., ci=True)`` measured; ``results.uncertainty``.

    Parameters
    ----------
    level : float
        The level of the intervals.
    B : int
        Bootstrap replicates of the whole tuning.
    thresholds : ndarray
        The replicates' thresholds (NaN where a replicate failed).
    threshold_ci : tuple of float
        Percentile interval of the thresholds.
    f_corrected : float
        Nested-CV F of the whole tuning.
    f_corrected_ci : tuple of float
        Its delta-method interval.
    estimates : DataFrame
        One row per estimate of the tuned rule's F: naive CV, nested CV, .632+, apparent,
        out-of-bag, no-information.
    band : DataFrame
        The pointwise band of the pooled CV F curve (threshold, f, se, low, high).
    n_failed : int
        Replicates whose tuning failed (left out).
    n_trivial : int
        Replicates whose tuned rule classed every row alike.
    outer_folds : int
        Outer folds of the nested cross-validation.
    outer_pairs : tuple
        Its (train, test) row positions.
    threshold_ci_mc : tuple of float
        Monte-Carlo standard errors of the interval's ends (how far they would move with
        other replicates; :func:`fmstats.inference.quantile_mc_error`).
    replicates : str
        How the replicates' fits were made: ``"kstep"`` or ``"full"`` on the model's own
        design (its ``row_refits()``), ``"refit"`` through ``results.refit``.
    n_unconverged : int
        The k-step fits of the replicates that took ``max_iter`` steps without meeting the step
        rule (a separated resample); their scores are where the steps stopped, as a full
        refit's are where its iterations stop.
    """

    level: float
    B: int
    thresholds: np.ndarray = field(repr=False)
    threshold_ci: tuple
    f_corrected: float
    f_corrected_ci: tuple
    estimates: pd.DataFrame = field(repr=False)
    band: pd.DataFrame = field(repr=False)
    n_failed: int = 0
    n_trivial: int = 0
    outer_folds: int = OUTER_FOLDS
    outer_pairs: tuple = field(default=(), repr=False)
    threshold_ci_mc: tuple = (float("nan"), float("nan"))
    replicates: str = "refit"
    n_unconverged: int = 0


def _classes(fit, design, positions, score_type, threshold):
    s = predict_rows(design, fit, positions, type=score_type)
    return positions[s.index.to_numpy()], (s.to_numpy(dtype=float) >= threshold).astype(float)


def warn_trivial(results, data, score_type, threshold) -> None:
    """:class:`TrivialRuleWarning` when ``score >= threshold`` classes every row of ``data``
    alike."""
    try:       # the model's own training rows (the rows of `data`): no design to rebuild
        s = results.predict(None, type=score_type).to_numpy(dtype=float)
    except (FmstatsError, TypeError, AttributeError):
        s = predict_kept(results, data, type=score_type).to_numpy(dtype=float)
    pos = int(np.count_nonzero(s >= threshold))
    if pos in (0, s.size):
        what = "positive" if pos else "negative"
        warn(f"tune_threshold: the tuned rule (threshold {threshold:.4g}) classes all {s.size} "
             f"training rows {what}: the cross-validated F was best for a rule that ignores the "
             "model's scores, which on new data predicts one class for everything.  The data "
             "are too few or the model too weak to tune a threshold on; consider more rows, "
             "repeats=, or reporting the all-positive F 2p/(1+p) (p the prevalence) as the "
             "baseline.", TrivialRuleWarning)


def _whole_tuning(results, design, response, prior, crit, cv, repeats, seed, score_type,
                  mult, eval_pos):
    """Fit and tune on the rows with multiplicity ``mult`` > 0; class ``eval_pos``.

    Returns (threshold, evaluated positions, their classes, trivial?)."""
    rows = np.flatnonzero(mult > 0)
    wfull = prior * mult
    fit = TrainingRows(results, design).refit(rows, weights=wfull[rows])
    threshold = cv_threshold(results, design, response, wfull, wfull, crit, cv, repeats, seed,
                             score_type, positions=rows, quiet=True)[0]
    _, own = _classes(fit, design, rows, score_type, threshold)
    trivial = bool(own.min() == own.max())
    if eval_pos.size == 0:
        return threshold, eval_pos, np.empty(0), trivial
    pos, cls = _classes(fit, design, eval_pos, score_type, threshold)
    return threshold, pos, cls, trivial


def _task(*args):
    return capturing(_whole_tuning, *args)


#: Entries (rows x refits) of the multiplicities of one chunk of engine tunings.
CHUNK_ENTRIES = 2 ** 22


def _engine_chunk(refits, response, prior, crit, cv, repeats, score_type, plans, replicates):
    """The whole tuning of every plan (seed, multiplicities, rows to class) in one batch of
    refits on the model's own design: per plan one fit on its rows and one per training fold,
    all k-step from the fit's solution (:meth:`fmstats.MaxentResults.row_refits`).  Returns a
    (value, error, warnings) triple per plan, as :func:`_task` does."""
    n = refits.n
    observed = response.observed
    columns, layout, out = [], [], [None] * len(plans)
    for i, (seed, mult, _) in enumerate(plans):
        rows = np.flatnonzero(mult > 0)
        sub = FoldResponse(response.name, response.y[rows], response.w[rows])
        try:
            folds = make_folds(sub, cv, repeats=repeats, random_state=seed)
        except FmstatsError as exc:
            out[i] = (None, exc, [])
            continue
        pairs = [(rows[tr], rows[te]) for tr, te in folds.pairs]
        start = len(columns)
        columns.append(mult)
        for tr, _ in pairs:
            m = np.zeros(n)
            m[tr] = mult[tr]
            columns.append(m)
        layout.append((i, rows, pairs, start))
    if not layout:
        return out
    fits = refits.fit(np.column_stack(columns), replicates=replicates, training_f=False,
                      screen=False)
    slow = ~fits.converged
    kind = "link" if score_type == "link" else "response"
    for i, rows, pairs, start in layout:
        seed, mult, eval_pos = plans[i]
        idx = range(start, start + 1 + len(pairs))
        bad = [fits.errors[j] for j in idx if fits.errors[j] is not None]
        if bad:
            out[i] = (None, bad[0], [])
            continue
        s, te_all, split = [], [], []
        for f, (_, te) in enumerate(pairs):
            s.append(refits.scores(fits.design_coef[start + 1 + f][None, :], te, type=kind)[:, 0])
            te_all.append(te)
            split.append(np.full(te.size, f))
        s, te_all, split = np.concatenate(s), np.concatenate(te_all), np.concatenate(split)
        keep = observed[te_all]
        s, te_all, split = s[keep], te_all[keep], split[keep]
        w = (response.w * prior * mult)[te_all]
        threshold = tuned_threshold(s, response.y[te_all], w, split, crit)
        coef = fits.design_coef[start][None, :]
        own = refits.scores(coef, rows, type=kind)[:, 0] >= threshold
        trivial = bool(own.min() == own.max())
        cls = (refits.scores(coef, eval_pos, type=kind)[:, 0] >= threshold).astype(float) \
            if eval_pos.size else np.empty(0)
        n_slow = int(slow[start:start + 1 + len(pairs)].sum())
        out[i] = ((threshold, eval_pos, cls, trivial, n_slow), None, [])
    return out


def _engine_tunings(refits, response, prior, crit, cv, repeats, score_type, plans, *, n_jobs,
                    progress, desc, replicates="kstep") -> list:
    """:func:`_engine_chunk` over chunks of the plans, side by side on ``n_jobs`` threads."""
    k = int(cv) if isinstance(cv, (int, np.integer)) else OUTER_FOLDS
    per = max(1, CHUNK_ENTRIES // max(1, refits.n * (k * repeats + 1)))
    chunks = [plans[a:a + per] for a in range(0, len(plans), per)]
    tasks = [(refits, response, prior, crit, cv, repeats, score_type, c, replicates)
             for c in chunks]
    done = run_tasks(_engine_chunk, tasks, n_jobs=n_jobs, progress=progress, desc=desc,
                     backend="threading" if n_jobs not in (None, 1) else None)
    return [r for chunk in done for r in chunk]


def stratified_draw(strata: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Multiplicities of a case resample drawn within each class."""
    mult = np.zeros(strata.size)
    for c in np.unique(strata):
        rows = np.flatnonzero(strata == c)
        mult += np.bincount(rows[rng.integers(0, rows.size, rows.size)], minlength=strata.size)
    return mult


def _f(q, cls, w, alpha: float) -> float:
    tp, fp, fn = w @ (q * cls), w @ ((1 - q) * cls), w @ (q * (1 - cls))
    den = tp + alpha * fp + (1 - alpha) * fn
    return float(tp / den) if den > 0 else 1.0


def tuning_uncertainty(results, design, response, prior, crit, cv, repeats, seed, score_type,
                       threshold, *, B: int, level: float, n_jobs=None, progress=None,
                       naive: float, cv_scores: pd.DataFrame, curve: pd.DataFrame,
                       refits=None, replicates: str = "kstep") -> TuningUncertainty:
    """Bootstrap and nested cross-validation of the whole tuning (module notes).  With
    ``refits`` (the model's engine) every refit runs on the fit's own design, k-step from
    its solution, many at once (:func:`_engine_tunings`)."""
    if crit.accuracy:
        raise InvalidArgumentError("`ci`=True gives intervals for the F of the tuned rule; it "
                                   "needs an F-measure criterion, not measure='accuracy'.")
    n = response.y.shape[0]
    rng = np.random.default_rng([seed, 30])
    strata = response.strata
    mults = [stratified_draw(strata, rng) for _ in range(B)]
    seeds = rng.integers(0, 2**31 - 1, B + 1)
    k_outer = int(cv) if isinstance(cv, (int, np.integer)) else OUTER_FOLDS
    outer = stratified_folds(strata, k_outer, np.random.default_rng(int(seeds[-1])))
    plans = [(int(seeds[b]), m, np.flatnonzero(m == 0)) for b, m in enumerate(mults)]
    for tr, te in outer:
        m = np.zeros(n)
        m[tr] = 1.0
        plans.append((seed, m, te))
    desc = f"tune_threshold(ci=True): {B} replicates + {k_outer} outer folds"
    if refits is not None:
        out = _engine_tunings(refits, response, prior, crit, cv, repeats, score_type, plans,
                              n_jobs=n_jobs, progress=progress, desc=desc,
                              replicates=replicates)
    else:
        tasks = [(results, design, response, prior, crit, cv, repeats, sd, score_type, m, ev)
                 for sd, m, ev in plans]
        out = run_tasks(_task, tasks, n_jobs=n_jobs, progress=progress, desc=desc)
    errors = [e for _, e, _ in out if e is not None]
    nested = out[B:]
    if any(e is not None for _, e, _ in nested):
        first = next(e for _, e, _ in nested if e is not None)
        raise first.__class__(f"the nested cross-validation of the tuning failed on an outer "
                              f"fold: {first}") from first
    q = np.nan_to_num(response.y)
    w = response.w * prior
    alpha = crit.fmeasure.alpha
    # bootstrap: thresholds and out-of-bag classes
    thresholds = np.full(B, np.nan)
    oob_sum, oob_n = np.zeros(n), np.zeros(n)
    n_trivial = n_slow = 0
    for b, (value, err, _) in enumerate(out[:B]):
        if err is not None:
            continue
        thresholds[b], pos, cls, trivial, *slow = value
        n_trivial += trivial
        n_slow += slow[0] if slow else 0
        oob_sum[pos] += cls
        oob_n[pos] += 1
    ok = np.isfinite(thresholds) | np.isinf(thresholds)
    if ok.sum() < max(10, B // 2):
        raise InvalidArgumentError(
            f"`ci`: only {int(ok.sum())} of {B} bootstrap replicates of the tuning succeeded "
            f"(the first error: {errors[0] if errors else 'none'}); the data are too few for "
            "an interval.")
    if errors:
        warn(f"tune_threshold(ci=True): {len(errors)} of {B} bootstrap replicates of the tuning "
             f"failed and were left out; the first: {errors[0]}", ResamplingWarning)
    a = (1 - level) / 2
    good = np.sort(thresholds[ok])
    threshold_ci = tuple(float(v) for v in tail_quantiles(good, level, method="inverted_cdf"))
    threshold_ci_mc = (quantile_mc_error(good, a), quantile_mc_error(good, 1 - a))
    # nested cross-validation
    cls_nested = np.zeros(n)
    for value, _, _ in nested:
        _, pos, cls, *_ = value
        cls_nested[pos] = cls
    fm = crit.fmeasure
    iv = interval_of_rows(q, cls_nested, w, fm, "delta", level)
    # .632+ from the out-of-bag classes
    s_all = (results.predict(None, type=score_type) if design is None else
             predict_rows(design, results, np.arange(n), type=score_type)).to_numpy(dtype=float)
    cls0 = (s_all >= threshold).astype(float)
    apparent = _f(q, cls0, w, alpha)
    seen = oob_n > 0
    oob = _f(q[seen], oob_sum[seen] / oob_n[seen], w[seen], alpha)
    ni = no_information_counts(q, cls0, w)
    noinfo = float(fm.from_counts(ni[0], ni[1], ni[2]))
    plus = estimate_632plus(apparent, oob, noinfo)[0]
    estimates = pd.DataFrame({
        "estimate": ["naive CV", "nested CV", ".632+", "apparent", "out-of-bag",
                     "no-information"],
        "f": [naive, iv.estimate, plus, apparent, oob, noinfo],
        "conf_low": [np.nan, iv.low, np.nan, np.nan, np.nan, np.nan],
        "conf_high": [np.nan, iv.high, np.nan, np.nan, np.nan, np.nan]})
    fin = curve[np.isfinite(curve["threshold"])]
    band = delta_band(cv_scores["y"], cv_scores["score"], cv_scores["weight"], alpha, level,
                      fin["threshold"].to_numpy())
    band = pd.DataFrame({"threshold": fin["threshold"].to_numpy(), **band})
    lo_s, hi_s = float(np.min(s_all)), float(np.max(s_all))
    width = threshold_ci[1] - threshold_ci[0]
    if not np.isfinite(width) or (hi_s > lo_s and width > UNSTABLE_SHARE * (hi_s - lo_s)):
        warn(f"tune_threshold: the {100 * level:g}% bootstrap interval of the threshold, "
             f"[{threshold_ci[0]:.4g}, {threshold_ci[1]:.4g}], spans more than "
             f"{100 * UNSTABLE_SHARE:g}% of the range of the training scores [{lo_s:.4g}, "
             f"{hi_s:.4g}]: the data barely determine the threshold ({n_trivial} of {B} "
             "replicates tuned a rule that classes every row alike).  Report f_corrected "
             "rather than the naive CV F, and prefer more rows or a default threshold.",
             UnstableThresholdWarning)
    return TuningUncertainty(level=level, B=B, thresholds=thresholds,
                             threshold_ci=threshold_ci, f_corrected=float(iv.estimate),
                             f_corrected_ci=(float(iv.low), float(iv.high)), estimates=estimates, band=band,
                             n_failed=len(errors), n_trivial=int(n_trivial),
                             outer_folds=k_outer, outer_pairs=tuple(outer),
                             threshold_ci_mc=threshold_ci_mc,
                             replicates="refit" if refits is None else replicates,
                             n_unconverged=int(n_slow))
