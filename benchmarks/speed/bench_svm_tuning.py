"""Benchmark of the chapter-8 tuning: tune_wsvm over the thesis's (C+, C-) grid.

The thesis's setting: data A2 (m = 400, 20 positives), 2-fold CV, the lower-triangular grid
of 20 cost values (210 points, 420 fold fits).  Contenders, on the same folds:

* ``tune_wsvm`` with n_jobs = 1 and n_jobs = 2 (joblib/loky; the worker pool is warmed up
  by a first call that is not timed);
* scikit-learn ``GridSearchCV(SVC(kernel="linear"), {"class_weight": [...]})`` with the
  same 210 class weights and the same folds (libsvm at its default tol = 1e-3; a tighter
  tol costs seconds per fit at the large costs of the grid), n_jobs = 1 and 2.
  GridSearchCV scores the mean of fold accuracies, so fmstats runs with
  ``criterion="accuracy", pooling="mean"`` in the comparison, and the two tables of CV
  accuracy (and the chosen points) are checked to agree.

The four runs are interleaved (a rotating order in each repeat) and the ratios use the
minima over the repeats (the machine is shared, so medians carry other jobs' load).
Targets (issue 15): tune_wsvm / GridSearchCV(SVC) <= 1.0 with one job, and tune_wsvm's
n_jobs = 1 / n_jobs = 2 time >= 1.6.

Usage: python benchmarks/speed/bench_svm_tuning.py [--repeat 7] [--n-values 20] [--sklearn-tol 1e-3]
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import (ensure_fmstats_importable, format_table, print_header,  # noqa: E402
                     set_thread_env, timed)

os.environ.update(set_thread_env(1, {}))   # before numpy: one BLAS thread, inherited by workers
ensure_fmstats_importable()

import numpy as np  # noqa: E402

from fmstats.datasets._datasets import make_thesis_svm_data  # noqa: E402
from fmstats.svm._tuning import thesis_grid, tune_wsvm  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--n-values", type=int, default=20, help="cost values (20: 210 points)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--sklearn-tol", type=float, default=1e-3, help="libsvm's tol")
    args = ap.parse_args()

    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    print_header("tune_wsvm (thesis grid, 2-fold CV) vs scikit-learn GridSearchCV(SVC)",
                 ["fmstats", "numpy", "sklearn", "joblib"], threads=1,
                 extra_lines=["note: a shared 2-core machine; other jobs may run at the same "
                              "time, so timings are noisy"])
    d = make_thesis_svm_data("A2", random_state=args.seed)
    train = d[d["split"] == "train"].reset_index(drop=True)
    grid = thesis_grid(train["y"], n_values=args.n_values)
    X, y = train[["x1", "x2"]].to_numpy(), train["y"].to_numpy()
    folds = tune_wsvm("y ~ x1 + x2", train, n_values=2, random_state=1, n_jobs=1,
                      progress=False, refit=False).folds
    print(f"data A2: m = {len(train)} ({int(y.sum())} positives); {len(grid)} grid points x "
          f"{len(folds)} folds = {len(grid) * len(folds)} fits per run; repeat {args.repeat}\n")

    def ours(n_jobs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tune_wsvm("y ~ x1 + x2", train, criterion="accuracy", pooling="mean",
                             grid=grid, cv=list(folds), n_jobs=n_jobs, progress=False,
                             refit=False)

    def sklearn(n_jobs):
        weights = [{1: p["C_pos"], 0: p["C_neg"]} for p in grid]
        return GridSearchCV(SVC(kernel="linear", C=1.0, tol=args.sklearn_tol), {"class_weight": weights},
                            cv=list(folds), scoring="accuracy", n_jobs=n_jobs,
                            refit=False).fit(X, y)

    ours(2), sklearn(2)                                   # warm up the loky worker pools
    runs = [(name, fn, n_jobs) for name, fn in (("fmstats tune_wsvm", ours),
                                                ("sklearn GridSearchCV(SVC)", sklearn))
            for n_jobs in (1, 2)]
    times = {(name, n_jobs): [] for name, _, n_jobs in runs}
    results = {}
    load0 = os.getloadavg()
    for r in range(args.repeat):                          # interleaved, rotating order
        for name, fn, n_jobs in runs[r % len(runs):] + runs[:r % len(runs)]:
            t, _, out = timed(lambda fn=fn, n_jobs=n_jobs: fn(n_jobs), 1)
            times[(name, n_jobs)].append(t)
            results[(name, n_jobs)] = out
    load1 = os.getloadavg()
    rows = [[name, n_jobs, f"{np.median(times[(name, n_jobs)]):.3f}",
             f"{min(times[(name, n_jobs)]):.3f}"] for name, _, n_jobs in runs]
    print(format_table(["contender", "n_jobs", "median s", "min s"], rows))
    print(f"load average (1, 5, 15 min) before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; "
          f"after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    best = {k: min(v) for k, v in times.items()}
    for n_jobs in (1, 2):
        ratio = best[("fmstats tune_wsvm", n_jobs)] / best[("sklearn GridSearchCV(SVC)", n_jobs)]
        print(f"ratio fmstats / sklearn at n_jobs = {n_jobs} (minima): {ratio:.2f}"
              + ("   target <= 1.0: " + ("met" if ratio <= 1.0 else "NOT met")
                 if n_jobs == 1 else ""))
    speedup = best[("fmstats tune_wsvm", 1)] / best[("fmstats tune_wsvm", 2)]
    print(f"speed-up of tune_wsvm from n_jobs = 1 to 2 (minima): {speedup:.2f}   target >= 1.6: "
          + ("met" if speedup >= 1.6 else "NOT met"))
    ours_res, sk_res = results[("fmstats tune_wsvm", 1)], results[("sklearn GridSearchCV(SVC)", 1)]
    ours_acc = ours_res.tidy()["accuracy"].to_numpy()
    sk_acc = sk_res.cv_results_["mean_test_score"]
    print(f"CV accuracy: max |fmstats - sklearn| over the grid = "
          f"{np.max(np.abs(ours_acc - sk_acc)):.3g} ({int(np.sum(ours_acc != sk_acc))} of "
          f"{len(grid)} points differ; libsvm stops at tol = {args.sklearn_tol:g})")
    print(f"chosen point: fmstats {ours_res.best_params} (index {ours_res.best_index}), "
          f"GridSearchCV index {sk_res.best_index_}: "
          + ("equal" if ours_res.best_index == sk_res.best_index_ else "DIFFERENT"))
    same = results[("fmstats tune_wsvm", 2)].tidy().equals(ours_res.tidy())
    print(f"tune_wsvm n_jobs = 2 table identical to n_jobs = 1: {same}")


if __name__ == "__main__":
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        main()
