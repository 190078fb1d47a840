"""Tuning on a design built once (issue 21, item 1): fmstats against hand loops on arrays.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_tuning_design.py            # 9 interleaved repeats
    PYTHONPATH=. python benchmarks/speed/bench_tuning_design.py --repeat 9

Data: Adult (``load_adult("train")``, 32,561 rows; the rows with a missing value in the
model's columns are dropped first, so that fold positions index the prebuilt arrays
directly).  Formula ``ADULT`` below: 7 variables, 5 of them factors, 25 design columns.

Contenders, all in this one process, one thread (``threadpool_limits(1)``):

1. ``tune_threshold`` of a maxent fit, 5 stratified folds, exact threshold search:
   * ``fmstats``          ``fm.tune_threshold(fit, data, cv=5)`` (design built once);
   * ``fmstats/rebuild``  the same with ``reuse_design=False``: the per-fold rebuild of the
     design (the behaviour before this change; its result must be identical);
   * ``hand loop``        the floor: on the prebuilt arrays of the same design, per fold a
     scikit-learn ``LogisticRegression(penalty=None, solver="newton-cholesky")`` fit on the
     training rows, probabilities of the held-out rows, then the same exact search (one sort
     and cumulative sums over the pooled held-out scores).
   Target: fmstats <= 1.5 x hand loop.
2. ``cv_tune`` of maxent over 10 ridge penalties x 5 folds (``refit=False``):
   * ``fmstats``, ``fmstats/rebuild`` as above;
   * ``hand loop``        per (penalty, fold) :func:`fmstats.glm.irls_logit` on the
     prebuilt training rows (intercept unpenalised, the same tol and max_iter), the held-out
     classes and their confusion counts.
   Target: fmstats <= 1.2 x hand loop.

Timing: every repeat runs every contender once, in a fresh random order (interleaved), after
``gc.collect()``; the ratios are of the minima over repeats (the machine is shared: the load
average is printed).  Exactness: the design-once and rebuild results are compared (max
|difference| of the criterion tables and thresholds); the hand loops' optima are printed
beside fmstats' (scikit-learn stops at its own tolerance, so its threshold may differ in the
last digits of the scores).
"""
from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402

_common.ensure_fmstats_importable()

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats.formula import model_frame  # noqa: E402
from fmstats.glm import irls_logit  # noqa: E402

ADULT = ("income ~ age + education_num + hours_per_week + C(sex) + C(relationship) + C(race)"
         " + workclass + np.log1p(capital_gain)")
PENALTIES = list(np.logspace(-2, 3, 10))
SEED = 0


def exact_best(scores: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Best F1 over all cuts of the pooled scores and its midpoint threshold."""
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    tp = np.cumsum(y[order])
    fp = np.cumsum(1.0 - y[order])
    last = np.r_[s[1:] != s[:-1], True]          # cut after the last row of each score
    tp, fp, s_cut = tp[last], fp[last], s[last]
    f = 2 * tp / (2 * tp + fp + (y.sum() - tp))
    j = int(np.argmax(f))
    nxt = s_cut[j + 1] if j + 1 < len(s_cut) else -np.inf
    return float(f[j]), 0.5 * (s_cut[j] + nxt)


def hand_threshold(X, y, folds):
    from sklearn.linear_model import LogisticRegression

    held_s, held_y = [], []
    for tr, te in folds:
        m = LogisticRegression(penalty=None, solver="newton-cholesky", fit_intercept=False,
                               tol=1e-8, max_iter=100).fit(X[tr], y[tr])
        held_s.append(m.predict_proba(X[te])[:, 1])
        held_y.append(y[te])
    return exact_best(np.concatenate(held_s), np.concatenate(held_y))


def hand_cv(X, y, folds, intercept: int):
    counts = np.zeros((len(PENALTIES), 4))
    for g, pen in enumerate(PENALTIES):
        pv = np.full(X.shape[1], pen)
        pv[intercept] = 0.0
        for tr, te in folds:
            fit = irls_logit(X[tr], y[tr], penalty=pv, tol=1e-8, max_iter=25, warn=False)
            cls = (X[te] @ fit.coef >= 0.0).astype(float)   # p >= 0.5
            yt = y[te]
            tp = yt @ cls
            counts[g] += [tp, cls.sum() - tp, yt.sum() - tp, (1 - yt) @ (1 - cls)]
    tp, fp, fn = counts[:, 0], counts[:, 1], counts[:, 2]
    return 2 * tp / (2 * tp + fp + fn)


def adult_design():
    """Adult's complete rows for ``ADULT`` and their model frame (the data of the ratios)."""
    raw = fm.datasets.load_adult("train")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf0 = model_frame(ADULT, raw.iloc[:50])
    data = raw.dropna(subset=list(dict.fromkeys(["income", *mf0.spec.variables]))
                      ).reset_index(drop=True)
    return data, model_frame(ADULT, data)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    _common.print_header("Tuning on a design built once vs hand loops on prebuilt arrays",
                         ["numpy", "pandas", "sklearn", "formulaic", "threadpoolctl"], 1,
                         [f"load:     {os.getloadavg()}"])
    data, mf = adult_design()
    X, y = mf.X, mf.response.y
    intercept = list(mf.column_names).index("Intercept")
    print(f"data: Adult, {len(data)} complete rows x {X.shape[1]} design columns; "
          f"formula {ADULT!r}\n")

    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        fit = fm.maxent(ADULT, data)
        def thr(reuse=True):
            return fm.tune_threshold(fit, data, cv=5, random_state=SEED, n_jobs=1,
                                     progress=False, reuse_design=reuse)

        def cvt(reuse=True):
            return fm.cv_tune(fm.maxent, ADULT, data, {"penalty": PENALTIES}, cv=5,
                              random_state=SEED, refit=False, n_jobs=1, progress=False,
                              reuse_design=reuse)

        folds_thr = thr().folds
        folds_cv = cvt().folds

        contenders = {
            ("threshold", "fmstats"): thr,
            ("threshold", "fmstats/rebuild"): lambda: thr(False),
            ("threshold", "hand loop"): lambda: hand_threshold(X, y, folds_thr),
            ("cv_tune", "fmstats"): cvt,
            ("cv_tune", "fmstats/rebuild"): lambda: cvt(False),
            ("cv_tune", "hand loop"): lambda: hand_cv(X, y, folds_cv, intercept),
        }
        times = {k: [] for k in contenders}
        results = {}
        rng = random.Random(SEED)
        for _ in range(args.repeat):
            keys = list(contenders)
            rng.shuffle(keys)
            for k in keys:
                gc.collect()
                t0 = time.perf_counter()
                results[k] = contenders[k]()
                times[k].append(time.perf_counter() - t0)

    best = {k: min(v) for k, v in times.items()}
    print(f"{'task':10s} {'contender':16s} {'min s':>8s} {'median s':>9s}")
    for k, v in times.items():
        print(f"{k[0]:10s} {k[1]:16s} {min(v):8.3f} {float(np.median(v)):9.3f}")
    print()

    a, b = results[("threshold", "fmstats")], results[("threshold", "fmstats/rebuild")]
    d_thr = max(abs(a.threshold - b.threshold),
                float(np.nanmax(np.abs(a.tidy()["f"].to_numpy() - b.tidy()["f"].to_numpy()))))
    hand_f, hand_t = results[("threshold", "hand loop")]
    print(f"tune_threshold: fmstats threshold {a.threshold:.6f} (CV F1 {a.best_score:.5f}); "
          f"hand loop {hand_t:.6f} (CV F1 {hand_f:.5f}); design-once vs rebuild max |diff| "
          f"{d_thr:.1e}")
    a, b = results[("cv_tune", "fmstats")], results[("cv_tune", "fmstats/rebuild")]
    d_cv = float(np.nanmax(np.abs(a.tidy()["f"].to_numpy() - b.tidy()["f"].to_numpy())))
    hand = results[("cv_tune", "hand loop")]
    print(f"cv_tune: max |F(fmstats) - F(hand loop)| over the grid "
          f"{np.max(np.abs(a.tidy()['f'].to_numpy() - hand)):.1e}; design-once vs rebuild max "
          f"|diff| {d_cv:.1e}\n")

    for task, target in (("threshold", 1.5), ("cv_tune", 1.2)):
        r = best[(task, "fmstats")] / best[(task, "hand loop")]
        before = best[(task, "fmstats/rebuild")] / best[(task, "hand loop")]
        exact = (d_thr if task == "threshold" else d_cv) <= 1e-12
        ok = r <= target and exact
        print(f"{task:10s} fmstats / hand loop = {r:.2f} (target <= {target}; per-fold rebuild "
              f"{before:.2f}); identical to the rebuild: {exact}  -> {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
