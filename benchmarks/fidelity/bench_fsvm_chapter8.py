"""Is the F-measure SVM a good classifier by default?  The chapter-8 protocol on fresh draws.

Part 1 (the targets of issue 15): fresh draws of A1, A2, B1, B2 from the distributions of
``make_thesis_svm_data`` (400 training rows as the thesis draws them, 2000-row balanced
test sets from the same two Gaussians), alpha in {0.3, 0.5, 0.7}, three fold seeds, the
chapter-8 protocol (``fmstats.svm.chapter8``: ``tune_wsvm`` over the thesis's 210-point
cost grid and ``tune_fsvm`` over a, 2-fold pooled-F CV on the same folds).  For every case
it prints the test F of the F-tuned weighted SVM and of the F-measure SVM, their
difference, and checks the targets:

* mean (F-SVM - weighted SVM) test F >= -0.01 (aim > 0);
* no case more than 0.10 below;
* no F-SVM with test F 0 (no true positive: all-negative) where the weighted SVM's F > 0.

``--compare-thesis`` adds the same table for the previous default (the thesis's a grid
with a = 1 and no degeneracy check).

Part 2 (``--single``): one ``fsvm`` fit without tuning (C = m+, start wsvm (m-, m+)/10)
for a in {1, 5, 10} and the default, on several draws x 5 alphas: mean and worst test F
and the number of fits that predict no positive test row -- how DEFAULT_A was chosen.

Usage: PYTHONPATH=. python benchmarks/fidelity/bench_fsvm_chapter8.py [--data-seed 2026]
       [--compare-thesis] [--single] [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable, format_table, print_header, source_fingerprint

ensure_fmstats_importable()

from fmstats.datasets import make_thesis_svm_data
from fmstats.experiments.thesis_ch8 import chapter8
from fmstats.svm import DEFAULT_A, DEFAULT_A_GRID, THESIS_A_GRID, fsvm

NAMES = ("A1", "A2", "B1", "B2")
ALPHAS = (0.3, 0.5, 0.7)
FOLD_SEEDS = (1, 2, 3)
TEST_SIZE = (1000, 1000)


def draw(name, seed):
    d = make_thesis_svm_data(name, random_state=seed, n_test=TEST_SIZE)
    return d[d["split"] == "train"], d[d["split"] == "test"]


def protocol(data_seed, fold_seeds, a_grid, fsvm_args, n_values):
    rows = []
    for i, name in enumerate(NAMES):
        train, test = draw(name, data_seed + i)
        for seed in fold_seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = chapter8("y ~ x1 + x2", train, test, alphas=ALPHAS, n_values=n_values, cv=2,
                             random_state=seed, a_grid=a_grid, fsvm_args=fsvm_args,
                             progress=False, n_jobs=1)
            t = t[t["data"] == "test"]
            for alpha in ALPHAS:
                part = t[t["alpha"] == alpha].set_index("model")
                f_s = float(part.loc["fsvm, CV F", "f"])
                f_w = float(part.loc["wsvm, CV F", "f"])
                rows.append(dict(data=name, fold_seed=seed, alpha=alpha, wsvm=f_w, fsvm=f_s,
                                 diff=f_s - f_w, a=float(part.loc["fsvm, CV F", "a"])))
    return pd.DataFrame(rows)


def report(df, label):
    print(f"\n{label}")
    rows = [[r.data, r.fold_seed, f"{r.alpha:.1f}", f"{r.wsvm:.3f}", f"{r.fsvm:.3f}",
             f"{r.diff:+.3f}", f"{r.a:g}"] for r in df.itertuples()]
    print(format_table(["data", "fold seed", "alpha", "wsvm CV F", "fsvm CV F", "diff", "a"],
                       rows, align="lrrrrrr"))
    by = df.groupby("data")["diff"].mean()
    print("mean diff by data set: " + ", ".join(f"{k} {v:+.3f}" for k, v in by.items()))
    mean, worst = df["diff"].mean(), df["diff"].min()
    collapsed = int(((df["fsvm"] == 0) & (df["wsvm"] > 0)).sum())
    checks = [(f"mean diff {mean:+.4f} >= -0.01", mean >= -0.01),
              (f"worst case {worst:+.4f} >= -0.10", worst >= -0.10),
              (f"all-negative F-SVM where wsvm predicts positives: {collapsed} == 0",
               collapsed == 0)]
    for text, ok in checks:
        print(f"target: {text} -> {'met' if ok else 'NOT met'}")
    print(f"(aim > 0: {'met' if mean > 0 else 'not met'}; mean test F fsvm "
          f"{df['fsvm'].mean():.4f}, wsvm {df['wsvm'].mean():.4f})")
    return mean, worst, collapsed


def single(seeds, a_values):
    rows = []
    for s in seeds:
        for i, name in enumerate(NAMES):
            train, test = draw(name, s + i)
            for alpha in (0.1, 0.3, 0.5, 0.7, 0.9):
                for a in a_values:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        fit = fsvm("y ~ x1 + x2", train, alpha=alpha, a=a,
                                   degenerate="keep")
                    pred = fit.predict(test)
                    rows.append(dict(a=a, data=name, f=fit.measure(test),
                                     none=int(pred.sum() == 0),
                                     start_f=_start_f(fit, test, alpha)))
    df = pd.DataFrame(rows)
    out = []
    for a, g in df.groupby("a"):
        out.append([f"{a:g}" + (" (default)" if a == DEFAULT_A else ""), f"{g['f'].mean():.4f}",
                    f"{g['f'].min():.4f}", int(g["none"].sum()), len(g)]
                   + [f"{g[g.data == n]['f'].mean():.3f}" for n in NAMES])
    print(f"\nPart 2: one fsvm fit (reduced, C = m+, degenerate='keep'), data seeds {list(seeds)}"
          " x A1..B2 x alpha 0.1..0.9; held-out F on 2000 rows")
    print(format_table(["a", "mean test F", "worst", "no positive predicted", "fits"]
                       + [f"{n} mean" for n in NAMES], out, align="lrrrrrrrr"))
    print(f"the weighted-SVM start alone: mean test F {df.groupby('a')['start_f'].mean().iloc[0]:.4f}")


def _start_f(fit, test, alpha):
    from fmstats.measures import FMeasure, confusion

    w, b = fit.start_wb[:-1], fit.start_wb[-1]
    X = test[["x1", "x2"]].to_numpy()
    return float(confusion(test["y"].to_numpy(), (X @ w + b > 0).astype(float))
                 .f(FMeasure(alpha=alpha)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-seed", type=int, default=2026,
                    help="draw k (A1, A2, B1, B2) uses seed data-seed + k")
    ap.add_argument("--n-values", type=int, default=20, help="cost values (20: 210 points)")
    ap.add_argument("--compare-thesis", action="store_true")
    ap.add_argument("--single", action="store_true")
    ap.add_argument("--quick", action="store_true", help="one fold seed, 12 cost values")
    args = ap.parse_args()
    fold_seeds = FOLD_SEEDS[:1] if args.quick else FOLD_SEEDS
    n_values = 12 if args.quick else args.n_values
    print_header("fmstats F-measure SVM vs F-tuned weighted SVM (chapter-8 protocol)",
                 ["numpy", "scipy", "nlopt"], 1,
                 ["sources:  " + source_fingerprint(["fmstats/svm/models.py",
                                                     "fmstats/svm/tuning.py",
                                                     "fmstats/svm/cobyla.py"])])
    print(f"Part 1: data seed {args.data_seed}, fold seeds {list(fold_seeds)}, alpha "
          f"{list(ALPHAS)}, {n_values} cost values, test sets {TEST_SIZE[0]} + {TEST_SIZE[1]}")
    t0 = time.perf_counter()
    df = protocol(args.data_seed, fold_seeds, DEFAULT_A_GRID, {}, n_values)
    report(df, f"fmstats default: a grid {DEFAULT_A_GRID}, fsvm defaults "
               f"(reduced, degenerate='start')  [{time.perf_counter() - t0:.0f} s]")
    if args.compare_thesis:
        t0 = time.perf_counter()
        old = protocol(args.data_seed, fold_seeds, THESIS_A_GRID, {"degenerate": "keep"},
                       n_values)
        report(old, f"previous default: the thesis's a grid {THESIS_A_GRID}, reduced, no "
                    f"degeneracy check  [{time.perf_counter() - t0:.0f} s]")
    if args.single:
        single((args.data_seed, args.data_seed + 1000, args.data_seed + 2000), (1.0, 5.0, 10.0))


if __name__ == "__main__":
    main()
