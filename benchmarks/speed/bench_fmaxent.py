"""Time the F-measure maximiser against single maxent fits and a statsmodels re-implementation.

Targets of issue 3 (measured here, never asserted in tests):

1. one full alpha sweep (19 values) on n = 1,000, p = 3 (thesis data A): under 2 s;
2. n = 1e5, p = 20: a complete ``fmaxent`` fit costs at most 10 single ``maxent`` fits.

The peer for (1) is the same algorithm written with statsmodels: ``GLM(var_weights=)`` refitted
in a loop with the weights of thesis eq. (7.1), as a user without fmstats would write it (same
number of outer iterations as fmstats used, so the comparison is per iteration).

    python benchmarks/speed/bench_fmaxent.py [--quick]
"""
from __future__ import annotations
import os
import sys

import argparse
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable

ensure_fmstats_importable()

import fmstats as fm  # noqa: E402
from fmstats.maxent_models._fmaxent import noisy_f_weights, smoothed_noisy_counts  # noqa: E402


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def statsmodels_noisy_fmaxent(X, q, alpha, n_outer, eps=0.01):
    import statsmodels.api as sm

    fit = sm.GLM(q, X, family=sm.families.Binomial()).fit()
    for _ in range(n_outer):
        p = fit.fittedvalues
        tp, _, f = smoothed_noisy_counts(q, p, np.ones_like(q), alpha, eps)
        w = noisy_f_weights(q, p, f, tp, alpha, epsilon=eps)
        fit = sm.GLM(q, X, family=sm.families.Binomial(), var_weights=w / w.mean()).fit(
            start_params=fit.params)
    return fit


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 2e4 for the second part")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"fmstats {fm.__version__}; best of {args.repeat} runs\n")

    # 1. the alpha sweep on data A
    d = fm.datasets.make_thesis_noisy_data("A", random_state=2014)
    tr, te = d[d.split == "train"], d[d.split == "test"]
    t_sweep, table = best_of(lambda: fm.sweep("q ~ x1 + x2", tr, te), args.repeat)
    alphas = np.round(np.arange(0.05, 0.951, 0.05), 2)
    outer = [len(fm.fmaxent("q ~ x1 + x2", tr, alpha=a).history) - 1 for a in alphas]
    X = np.column_stack([np.ones(len(tr)), tr["x1"], tr["x2"]])
    q = tr["q"].to_numpy()
    t_sm, _ = best_of(lambda: [statsmodels_noisy_fmaxent(X, q, a, k) for a, k in
                               zip(alphas, outer)], 1)
    print("1. alpha sweep, 19 values, n = 1000, p = 3 (noisy F, data A; train + test measures)")
    print(f"   fmstats sweep():                     {t_sweep:8.3f} s   (target < 2 s)")
    print(f"   statsmodels loop, same iterations:   {t_sm:8.3f} s   "
          f"ratio statsmodels/fmstats = {t_sm / t_sweep:.1f}x")
    print(f"   outer iterations per alpha: mean {np.mean(outer):.1f}, max {max(outer)}\n")

    # 2. cost of a complete fit relative to one maxent fit
    n = 20_000 if args.quick else 100_000
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(n, 19))
    eta = Z @ (rng.normal(size=19) * 0.3) - 0.5
    p = 1 / (1 + np.exp(-eta))
    df = pd.DataFrame(Z, columns=[f"x{i}" for i in range(1, 20)])
    df["q"] = np.clip(p + rng.normal(0, 0.1, n), 0, 1)
    df["y"] = (rng.random(n) < p).astype(int)
    rhs = " + ".join(f"x{i}" for i in range(1, 20))
    print(f"2. n = {n:,}, p = 20: complete fmaxent fit / one maxent fit (same formula front end)")
    for label, base_fn, resp in (("probabilistic labels (noisy F)", fm.umaxent, "q"),
                                 ("certain labels (expected F)", fm.maxent, "y")):
        formula = f"{resp} ~ {rhs}"
        t_base, _ = best_of(lambda: base_fn(formula, df), args.repeat)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fm.SeparationWarning)
            t_f, r = best_of(lambda: fm.fmaxent(formula, df, alpha=0.3), args.repeat)
        print(f"   {label:32s} maxent {t_base:6.3f} s, fmaxent {t_f:6.3f} s "
              f"({len(r.history) - 1} outer iterations): ratio {t_f / t_base:5.2f} "
              f"(target <= 10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
