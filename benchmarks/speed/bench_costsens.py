"""Algorithm 1 (seed 001) on Adult: 19 cost levels with thresholding, logistic learner.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_costsens.py [--repeats 3]

Data: ``load_adult("train")`` (32,561 rows); the missing values of ``workclass`` and
``occupation`` are recoded as a level "Unknown" so that every row is used.  Formula::

    income == '>50K' ~ age + education_num + hours_per_week + capital_gain + capital_loss
        + C(sex) + C(race) + C(marital_status) + C(relationship) + C(workclass) + C(occupation)

Contenders (same stratified 2/3 - 1/3 split, same 19 levels t = 0.1..1.9, class weights
(2 - t) for positives and t for negatives rescaled to mean 1, ridge penalty 1 on the
non-intercept coefficients, exact threshold search on the validation scores):

* ``costsens``  the whole call ``costsens(formula, data, random_state=0)``: formula,
  split, 19 warm-started IRLS fits (each starts from the previous t's coefficients),
  validation scoring and threshold search;
* ``cold IRLS``  the same 19 fits with ``irls_coef(..., start=None)`` (R's start),
  plus the same scoring (design matrix built once, outside the timing);
* ``sklearn``  ``LogisticRegression(C=1/penalty, class_weight={1: w_pos, 0: w_neg})``, solver "newton-cholesky" (tol 1e-8), on the
  same matrix without the intercept column (sklearn fits its own, unpenalised).
  fmstats minimises  deviance + penalty ||b||^2 = -2 sum w loglik + penalty ||b||^2;
  sklearn minimises  C * (-sum w loglik) + ||b||^2 / 2, so C = 1 / penalty.

Every contender runs with BLAS limited to one thread (threadpoolctl), as costsens does inside
its loop: on these shared 2-core machines two BLAS threads per fit were measured to be
several times slower under load.
"""
from __future__ import annotations
import os
import sys

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable

ensure_fmstats_importable()

from fmstats.costsensitive import best_threshold, cost_grid, costsens  # noqa: E402
from fmstats.datasets._datasets import load_adult  # noqa: E402
from fmstats.formula import model_frame  # noqa: E402
from fmstats.glm import irls_coef  # noqa: E402

FORMULA = (
    "income == '>50K' ~ age + education_num + hours_per_week + capital_gain + capital_loss"
    " + C(sex) + C(race) + C(marital_status) + C(relationship) + C(workclass) + C(occupation)"
)
PENALTY = 1.0


def _data():
    d = load_adult("train").copy()
    for col in ("workclass", "occupation"):
        d[col] = d[col].astype(object).where(d[col].notna(), "Unknown")
    return d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    data = _data()
    ts = cost_grid(19)

    # --- fmstats costsens (whole call) ---
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        fit = costsens(FORMULA, data, random_state=0, penalty=PENALTY)
        times.append(time.perf_counter() - t0)
    t_cs = min(times)
    print(f"rows used: {fit.n_train + fit.n_validation} (train {fit.n_train}, "
          f"validation {fit.n_validation}); columns: {len(fit.coef)}")
    print(f"costsens, 19 levels, warm starts + thresholds: {t_cs:.2f} s (target <= 10 s); "
          f"best t = {fit.best_cost:.2f}, validation F1 = {fit.validation_f:.4f}")

    # --- same split, shared matrices ---
    mf = model_frame(FORMULA, data, missing="drop")
    X, y = mf.X, mf.response.y
    va = fit.validation_mask
    Xtr, ytr, Xva, yva = X[~va], y[~va], X[va], y[va]
    pen = np.full(X.shape[1], PENALTY)
    pen[0] = 0.0

    def weights(t):
        w = np.where(ytr > 0.5, 2.0 - t, t)
        return w / w.mean()

    def warm():
        coef, best = None, -1.0
        for t in ts:
            coef = irls_coef(Xtr, ytr, weights(t), coef, penalty=pen)
            best = max(best, best_threshold(yva, Xva @ coef)[1])
        return best

    def cold():
        best = -1.0
        for t in ts:
            coef = irls_coef(Xtr, ytr, weights(t), None, penalty=pen)
            best = max(best, best_threshold(yva, Xva @ coef)[1])
        return best

    def sk():
        from sklearn.linear_model import LogisticRegression

        best = -1.0
        for t in ts:
            wp, wn = 2.0 - t, t
            m = (wp * ytr.sum() + wn * (ytr.size - ytr.sum())) / ytr.size
            lr = LogisticRegression(C=1.0 / PENALTY, class_weight={1: wp / m, 0: wn / m},
                                    solver="newton-cholesky", tol=1e-8, max_iter=100)
            lr.fit(Xtr[:, 1:], ytr)
            best = max(best, best_threshold(yva, lr.decision_function(Xva[:, 1:]))[1])
        return best

    res = {}
    for name, fn in (("warm IRLS (core)", warm), ("cold IRLS (core)", cold), ("sklearn", sk)):
        tt = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            with threadpool_limits(limits=1, user_api="blas"):
                f = fn()
            tt.append(time.perf_counter() - t0)
        res[name] = (min(tt), f)
    tw = res["warm IRLS (core)"][0]
    for name, (tt, f) in res.items():
        print(f"{name:18s} {tt:6.2f} s  ratio to warm core {tt / tw:5.2f}  best validation F1 {f:.4f}")
    print(f"cold / warm (core): {res['cold IRLS (core)'][0] / tw:.2f}; "
          f"sklearn / costsens (whole call): {res['sklearn'][0] / t_cs:.2f}")


if __name__ == "__main__":
    main()
