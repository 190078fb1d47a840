"""The exact threshold search of :func:`fmstats.tune_threshold`: fold refits, pooled held-out
scores, the criterion at every cut, the tuned threshold (:func:`cv_threshold`).

Used by ``_threshold.py`` (the tuning) and
``_uncertainty.py`` (the tuning rerun on resampled rows).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import measures as _m
from ..formula import DesignMatrix, predict_rows
from ..results import TrainingRows, predict_kept
from .._utils.parallel import run_tasks
from ._criterion import Criterion
from .._utils.parallel import capturing, reemit
from ..formula import FoldResponse
from ._folds import make_folds, warn_empty_folds
from ..exceptions import ConvergenceWarning, SeparationWarning

__all__ = ["scores", "best_row", "refit_and_score", "threshold_task", "counts_at", "threshold_curve",
           "midpoint", "held_frame", "cv_threshold", "engine_scores", "curve_arrays",
           "tuned_threshold"]


# ----------------------------------------------------------------------------- workers
def scores(results, newdata, score_type: str) -> pd.Series:
    return predict_kept(results, newdata, type=score_type)


def refit_and_score(results, design: DesignMatrix, train, test, score_type, weights) -> tuple:
    # the training fold's rows of the design, with their prior weights (a reweighting)
    fit = TrainingRows(results, design).refit(
        train, weights=None if weights is None else weights[train])
    s = predict_rows(design, fit, test, type=score_type)
    return test[s.index.to_numpy()], s.to_numpy(dtype=float)


def threshold_task(results, design, train, test, score_type, weights):
    return capturing(refit_and_score, results, design, train, test, score_type, weights)


def engine_scores(refits, pairs, score_type: str, mult=None, *, replicates: str = "full"
                  ) -> tuple[list, object]:
    """The held-out scores of fold refits done by the model's own engine
    (``results.row_refits()``) on its design: fold j refits the rows ``pairs[j][0]`` with
    multiplicities ``mult`` (default 1) and scores the rows ``pairs[j][1]``.  Returns
    ([(test positions, scores)], the refits)."""
    base = np.ones(refits.n) if mult is None else np.asarray(mult, dtype=float)
    M = np.zeros((refits.n, len(pairs)))
    for j, (tr, _) in enumerate(pairs):
        M[tr, j] = base[tr]
    fits = refits.fit(M, replicates=replicates, training_f=False,
                      screen=False)
    kind = "link" if score_type == "link" else "response"
    held = [(te, refits.scores(fits.design_coef[j][None, :], te, type=kind)[:, 0])
            for j, (_, te) in enumerate(pairs)]
    return held, fits


# ----------------------------------------------------------------------------- thresholds
def _warn_fold_fits(fits, n: int) -> None:
    """The warnings of fold refits done by the model's engine (separated or unconverged
    folds), once per kind, as :func:`reemit` repeats those of refits through the model."""
    records = [(SeparationWarning, "the fold's rows are separated: the likelihood has no finite "
                "maximum, and the fold's scores are those where the iterations stopped; "
                "consider a ridge `penalty=` or fewer folds")] * int(np.count_nonzero(fits.infinite))
    records += [(ConvergenceWarning, "the fold refit did not converge; increase the model's "
                 "`max_iter`")] * int(np.count_nonzero(~fits.converged & ~fits.infinite))
    reemit(records, n, "fold refits of tune_threshold")


def counts_at(s: np.ndarray, pos: np.ndarray, neg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Counts (len(t), 4) of the rule "positive iff s >= t" for every t: one sort, cumsums.

    ``pos`` and ``neg`` are the weights a row adds to the positives (w y) and the
    negatives (w (1 - y)); TP and FP at t are their sums over the rows with s >= t.
    """
    order = np.argsort(-s, kind="stable")
    cp = np.r_[0.0, np.cumsum(pos[order])]
    cn = np.r_[0.0, np.cumsum(neg[order])]
    k = np.searchsorted(-s[order], -t, side="right")  # how many rows have s >= t
    tp, fp = cp[k], cn[k]
    return np.stack([tp, fp, cp[-1] - tp, cn[-1] - fp], axis=-1)


def curve_arrays(s, pos, neg, split, crit: Criterion):
    """(thresholds, counts (k, T, 4), criterion columns) at every cut of pooled scores ``s``
    (``pos``/``neg``: each row's weight in the positives/negatives; ``split``: its fold,
    used by ``pooling="mean"``).  Row 0 is "nothing positive" (threshold +inf); row j >= 1
    classes positive the rows whose score is at least the j-th largest distinct score."""
    t = np.r_[np.inf, np.unique(s)[::-1]]
    if crit.pooling == "tp_fp":
        counts = counts_at(s, pos, neg, t)[None]          # pooled = summed counts
    else:
        counts = np.stack([counts_at(s[split == k], pos[split == k], neg[split == k], t)
                           for k in np.unique(split)])
    return t, counts, crit.summarise(counts)


def threshold_curve(held: pd.DataFrame, crit: Criterion) -> pd.DataFrame:
    """The criterion at every cut of the pooled held-out scores (exact search;
    :func:`curve_arrays`)."""
    t, counts, summary = curve_arrays(
        held["score"].to_numpy(), (held["weight"] * held["y"]).to_numpy(),
        (held["weight"] * (1.0 - held["y"])).to_numpy(), held["split"].to_numpy(), crit)
    out = pd.DataFrame({"threshold": t})
    out[["tp", "fp", "fn", "tn"]] = counts.sum(axis=0)
    for col, v in summary.items():
        out[col] = v
    return out


def tuned_threshold(s, y, w, split, crit: Criterion) -> float:
    """The tuned threshold of pooled held-out scores given as arrays: the search of
    :func:`cv_threshold` (same cuts, criterion and tie rule) without its tables, for the
    replicates of the tuning.  One sort; the counts at every distinct score are cumulative
    sums at the ends of its run."""
    order = np.argsort(-s, kind="stable")
    ss = s[order]
    ends = np.flatnonzero(np.r_[ss[1:] != ss[:-1], True])
    t = np.r_[np.inf, ss[ends]]
    pos, neg = (w * y)[order], (w * (1.0 - y))[order]
    groups = [slice(None)] if crit.pooling == "tp_fp" else [split[order] == k
                                                          for k in np.unique(split)]
    counts = []
    for g in groups:
        p_k = pos if isinstance(g, slice) else np.where(g, pos, 0.0)
        n_k = neg if isinstance(g, slice) else np.where(g, neg, 0.0)
        tp, fp = np.r_[0.0, np.cumsum(p_k)[ends]], np.r_[0.0, np.cumsum(n_k)[ends]]
        counts.append(np.stack([tp, fp, tp[-1] - tp, fp[-1] - fp], axis=-1))
    c = np.stack(counts)
    if crit.accuracy:
        values = crit.per_fold(c).mean(axis=0)
    else:                           # F = TP / (TP + a FP + (1 - a) FN), 1 where 0/0
        a = crit.fmeasure.alpha
        den = c[..., 0] + a * c[..., 1] + (1 - a) * c[..., 2]
        values = np.where(den > 0, c[..., 0] / np.where(den > 0, den, 1.0), 1.0).mean(axis=0)
    return midpoint(t, _m.best_position(values))


def midpoint(t: np.ndarray, j: int) -> float:
    """The threshold between cut j's lowest positive score and the next lower score."""
    if j == 0:
        return np.inf
    return -np.inf if j == len(t) - 1 else 0.5 * (t[j] + t[j + 1])


def held_frame(held, response, weights) -> pd.DataFrame:
    """The pooled held-out scores (split, row, score, y, weight) of the observed rows."""
    rows = np.concatenate([p for p, _ in held])
    cv_scores = pd.DataFrame({"split": np.repeat(np.arange(len(held)), [len(p) for p, _ in held]),
                              "row": rows, "score": np.concatenate([s for _, s in held]),
                              "y": response.y[rows], "weight": response.w[rows] * weights[rows]})
    return cv_scores[response.observed[rows]].reset_index(drop=True)


def best_row(curve, column: str, pick=None) -> int:
    """The chosen row of a threshold curve: the best ``column`` (ties: the highest
    threshold, :func:`fmstats.measures.best_position`), or ``pick(curve)`` (a constrained
    search)."""
    return _m.best_position(curve[column].to_numpy()) if pick is None else pick(curve)


def cv_threshold(results, design, response, weights, aw, crit, cv, repeats, seed, score_type, *,
                 n_jobs=None, progress=None, positions=None, quiet=False, pick=None,
                 refits=None):
    """The tuning itself: folds, fold refits, pooled held-out scores, the exact search
    (``pick(curve)``, if given, returns the chosen row of the curve instead of its best F).

    ``positions`` (default all) are the rows of ``design`` tuned on, ``weights`` the count
    weights of every row of the design (prior weights, times bootstrap multiplicities in a
    replicate), ``aw`` the array weights given to the fold refits (or None).  ``refits``
    (the model's engine, ``results.row_refits()``) refits the folds on the fit's own design
    instead of through ``results.refit``: the same fits, without a model frame per fold.
    Returns (threshold, curve, best index, pooled held-out scores, folds); the folds number
    the positions.  Used by :func:`tune_threshold` and by the replicates of its uncertainty.
    """
    pos = np.arange(len(response.y)) if positions is None else np.asarray(positions)
    sub = response if positions is None else FoldResponse(response.name, response.y[pos],
                                                          response.w[pos])
    folds = make_folds(sub, cv, repeats=repeats, random_state=seed)
    if not quiet:
        warn_empty_folds(folds, sub, crit.pooling)
    if refits is not None:
        pairs = [(pos[tr], pos[te]) for tr, te in folds.pairs]
        held, fits = engine_scores(refits, pairs, score_type)
        bad = [(i, e) for i, e in enumerate(fits.errors) if e is not None]
        if bad:
            i, e = bad[0]
            raise e.__class__(f"refitting the model on training fold {i} failed ({len(bad)} of "
                              f"{len(pairs)} folds failed), so no threshold can be tuned: "
                              f"{e}") from e
        if not quiet:
            _warn_fold_fits(fits, len(pairs))
        cv_scores = held_frame(held, response, weights)
        curve = threshold_curve(cv_scores, crit)
        best = best_row(curve, crit.column, pick)
        return midpoint(curve["threshold"].to_numpy(), best), curve, best, cv_scores, folds
    tasks = [(results, design, pos[tr], pos[te], score_type, aw) for tr, te in folds.pairs]
    if quiet:
        out = [threshold_task(*t) for t in tasks]
    else:
        out = run_tasks(threshold_task, tasks, n_jobs=n_jobs, progress=progress,
                        desc=f"tune_threshold: {len(folds)} folds")
    bad = [(i, e) for i, (_, e, _) in enumerate(out) if e is not None]
    if bad:
        i, e = bad[0]
        raise e.__class__(f"refitting the model on training fold {i} failed ({len(bad)} of "
                          f"{len(folds)} folds failed), so no threshold can be tuned: "
                          f"{e}") from e
    if not quiet:
        reemit([w for _, _, ws in out for w in ws], len(folds), "fold refits of tune_threshold")
    cv_scores = held_frame([v for v, _, _ in out], response, weights)
    curve = threshold_curve(cv_scores, crit)
    best = best_row(curve, crit.column, pick)
    return midpoint(curve["threshold"].to_numpy(), best), curve, best, cv_scores, folds
