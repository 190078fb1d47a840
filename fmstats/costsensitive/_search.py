"""The outer loops of seed 001: Algorithm 1 (binary F), Algorithm 2 (multi-label micro-F with
the costs of Algorithm 3, multiclass micro-F with the costs of Algorithm 4), and the
bracketing refinement of section 5.1.

A *problem* knows its training and validation parts and how, for one cost level t, to
(1) give every training row its misclassification cost, (2) call the learner, (3) score the
validation rows and (4) turn scores into predictions, with the F-optimal threshold (``T``)
or at the learner's own cut 0 (probability 1/2, SVM margin 0, the weighted multinomial's
arg max).  The cost of a row depends only on its (true) class:

========================  ================================  ==================================
problem                   training cost of a row            score and prediction
========================  ================================  ==================================
binary F (Alg. 1)         positive: 1+b2-t, negative: t     linear predictor; positive if >= c
multi-label micro-F       per label as binary (Alg. 3: FN    one score per (row, label); one
(Alg. 2 + 3)              cost 1+b2-t, FP cost t)            common cut c over all labels
multiclass micro-F        default class: t, others: 1+b2-t   margin = best non-default score -
(Alg. 2 + 4)              (Alg. 4)                           default score; its class if >= c
========================  ================================  ==================================

Within a level the threshold maximises the validation F (Algorithm 1, line 7).  Across
levels the level with the highest validation F is kept; Algorithm 2 of the paper writes this
selection as "lowest total cost <a(t), e>", but costs at different t are on different
scales, so the F criterion of Algorithm 1 is used for every measure and the validation total
cost <a(t), e> + b(t) (<= 0 exactly when F >= t) is reported beside it.
"""
from __future__ import annotations

import math

import numpy as np

from ._cuts import best_cut, f_from_counts

__all__ = ["BinaryProblem", "MultilabelProblem", "MulticlassProblem", "run_search", "best_level"]


def _weights(cost_of_row: np.ndarray) -> np.ndarray:
    return cost_of_row / cost_of_row.mean()


class _Problem:
    """Shared parts: the validation gain/loss vectors and the cut."""

    gain: np.ndarray   # per validation score: 1 if predicting it positive is a TP
    loss: np.ndarray   # per validation score: 1 if predicting it positive is an FP
    n_pos: float       # positives in the validation part (TP + FN)
    n_val: int         # validation rows (for the error profile as proportions)

    def __init__(self, b2: float, learner):
        self.b2 = b2
        self.top = 1.0 + b2
        self.learner = learner

    def margin(self, params):  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, params, thresholds: bool):
        """(threshold, F, TP, FP) on the validation part."""
        m = self.margin(params)
        if thresholds:
            return best_cut(m, self.gain, self.loss, self.n_pos, self.b2)
        pred = (m >= 0).ravel()
        tp = float(self.gain @ pred)
        fp = float(self.loss @ pred)
        return 0.0, float(f_from_counts(tp, fp, self.n_pos - tp, self.b2)), tp, fp


class BinaryProblem(_Problem):
    """Algorithm 1: one binary learner per level."""

    def __init__(self, Xtr, ytr, Xva, yva, b2, learner):
        super().__init__(b2, learner)
        self.Xtr, self.ytr, self.Xva = Xtr, ytr, Xva
        self.gain, self.loss = yva, 1.0 - yva
        self.n_pos, self.n_val = float(yva.sum()), yva.size

    def fit(self, t, start):
        w = _weights(np.where(self.ytr > 0.5, self.top - t, t))
        return self.learner.fit(self.Xtr, self.ytr, w, start)

    def margin(self, params):
        return self.Xva @ params


class MultilabelProblem(_Problem):
    """Algorithms 2 and 3: the micro-F costs are the same for every label, so the
    cost-sensitive multi-label problem splits into one binary learner per label."""

    def __init__(self, Xtr, Ytr, Xva, Yva, b2, learner):
        super().__init__(b2, learner)
        self.Xtr, self.Ytr, self.Xva = Xtr, Ytr, Xva
        self.gain = Yva.ravel()
        self.loss = 1.0 - self.gain
        self.n_pos, self.n_val = float(Yva.sum()), Yva.shape[0]

    def fit(self, t, start):
        cols, conv, its = [], True, 0
        for j in range(self.Ytr.shape[1]):
            y = self.Ytr[:, j]
            w = _weights(np.where(y > 0.5, self.top - t, t))
            coef, c, it = self.learner.fit(self.Xtr, y, w, None if start is None else start[:, j])
            cols.append(coef)
            conv &= c
            its += it
        return np.column_stack(cols), conv, its

    def margin(self, params):
        return self.Xva @ params


def multiclass_margin(S: np.ndarray, default: int) -> tuple[np.ndarray, np.ndarray]:
    """(best non-default score - default score, index of the best non-default class)."""
    other = S.copy()
    other[:, default] = -np.inf
    cand = np.argmax(other, axis=1)
    return other[np.arange(S.shape[0]), cand] - S[:, default], cand


class MulticlassProblem(_Problem):
    """Algorithms 2 and 4: one multiclass learner per level, rows weighted by class cost."""

    def __init__(self, Xtr, ytr, Xva, yva, K, default, b2, learner):
        super().__init__(b2, learner)
        self.Xtr, self.ytr, self.Xva, self.yva = Xtr, ytr, Xva, yva
        self.K, self.default = K, default
        self.loss = (yva == default).astype(float)
        self.n_pos, self.n_val = float(np.sum(yva != default)), yva.size

    def fit(self, t, start):
        w = _weights(np.where(self.ytr == self.default, t, self.top - t))
        return self.learner.fit_multiclass(self.Xtr, self.ytr, self.K, w, start)

    def margin(self, params):
        m, cand = multiclass_margin(self.Xva @ params, self.default)
        self.gain = ((cand == self.yva) & (self.yva != self.default)).astype(float)
        return m


def _evaluation(pb: _Problem, params, t: float, thresholds: bool) -> dict:
    thr, f, tp, fp = pb.evaluate(params, thresholds)
    fn = pb.n_pos - tp
    # <a(t), e> + b(t) on the validation profile (proportions).  For micro-F and the
    # multiclass micro-F the costs are equal across labels / non-default classes, so the
    # pooled counts give the same value as the full profile.
    cost = ((pb.top - t) * fn + t * fp + pb.top * (t - 1.0) * pb.n_pos) / pb.n_val
    return {"threshold": thr, "f": f, "tp": tp, "fp": fp, "fn": fn, "cost": cost}


class Searcher:
    """Fits cost levels, caches them and warm-starts from the nearest fitted level.

    Every level is evaluated both with the tuned threshold (``rec[True]``) and at the
    learner's own cut (``rec[False]``), so one search serves the T and the untuned variants;
    ``thresholds`` says which of the two guides the bracketing.
    """

    def __init__(self, problem: _Problem, thresholds: bool):
        self.problem = problem
        self.thresholds = thresholds
        self.cache: dict[float, dict] = {}

    def __call__(self, t: float) -> dict:
        if t in self.cache:
            return self.cache[t]
        start = None
        if self.cache:
            start = self.cache[min(self.cache, key=lambda s: abs(s - t))]["params"]
        pb = self.problem
        params, conv, it = pb.fit(t, start)
        rec = {"t": t, "params": params, "converged": conv, "iterations": it,
               True: _evaluation(pb, params, t, True), False: _evaluation(pb, params, t, False)}
        rec["f"] = rec[self.thresholds]["f"]
        self.cache[t] = rec
        return rec


def _bracket(search: Searcher, top: float, budget: int, min_width: float) -> None:
    """Section 5.1: bracketing on the (empirically quasi-concave) curve t -> F(t).

    Start from [0, 1+beta^2] and its three quarter points.  If F is quasi-concave in t,
    its maximum lies between the neighbours of the best quarter point, a sub-interval of
    half the width whose midpoint is already evaluated; evaluate its two new quarter
    points and repeat until the width falls below ``min_width`` or ``budget`` fits are
    used.  The endpoints 0 and 1+beta^2 (degenerate weights) are never fitted.
    """
    lo, hi = 0.0, top
    while True:
        pts = [lo + (hi - lo) * k / 4 for k in range(5)]
        for q in pts[1:4]:
            if len(search.cache) >= budget and q not in search.cache:
                return
            search(q)
        fs = [search.cache[q]["f"] if q in search.cache else -math.inf for q in pts]
        i = int(np.argmax(fs[1:4])) + 1
        lo, hi = pts[i - 1], pts[i + 1]
        if hi - lo < min_width:
            return


def run_search(problem: _Problem, ts: np.ndarray, *, costs: bool, thresholds: bool,
               search: str, budget: int, progress: bool, desc: str = "cost levels"
               ) -> list[dict]:
    """Run the outer loop; returns the fitted levels sorted by t."""
    s = Searcher(problem, thresholds)
    if not costs:
        s(problem.top / 2)
    elif search == "grid":
        levels = [float(t) for t in ts]
        if progress:
            from .._utils.progress import progress_bar

            levels = progress_bar(levels, desc=desc)
        for t in levels:
            s(t)
    else:
        _bracket(s, problem.top, budget, min_width=problem.top / (budget + 1))
    return sorted(s.cache.values(), key=lambda r: r["t"])


def best_level(recs: list[dict], thresholds: bool) -> dict:
    """The level with the highest validation F (the first maximum in increasing t)."""
    return max(recs, key=lambda r: r[thresholds]["f"])
