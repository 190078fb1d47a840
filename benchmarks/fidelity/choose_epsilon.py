"""Measure the smoothing width epsilon of the noisy-F maximiser (thesis §7.2).

For data A and B of chapter 9 (several seeds) and alpha = 0.05, ..., 0.95, fit the noisy-F
maximiser with several epsilon values and with the thesis's hard clipping, and print the mean
training and test noisy F, the mean number of outer iterations and the largest weight ratio.
This is the measurement behind fmstats.maxent_models.DEFAULT_EPSILON.

    python benchmarks/fidelity/choose_epsilon.py [--seeds 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import fmstats as fm

SETTINGS = [("eps=0.001", {"epsilon": 0.001}), ("eps=0.005", {"epsilon": 0.005}),
            ("eps=0.01", {"epsilon": 0.01}), ("eps=0.02", {"epsilon": 0.02}),
            ("eps=0.05", {"epsilon": 0.05}), ("eps=0.1", {"epsilon": 0.1}),
            ("clip [0.01, 100]", {"epsilon": None, "weight_bounds": (0.01, 100)}),
            ("clip [0.1, 10]", {"epsilon": None, "weight_bounds": (0.1, 10)})]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args(argv)
    alphas = np.round(np.arange(0.05, 0.951, 0.05), 2)
    rows = []
    t0 = time.perf_counter()
    for name in ("A", "B"):
        for seed in range(args.seeds):
            d = fm.datasets.make_thesis_noisy_data(name, random_state=seed)
            tr, te = d[d.split == "train"], d[d.split == "test"]
            base = fm.umaxent("q ~ x1 + x2", tr)
            for a in alphas:
                b_tr, b_te = base.noisy_f(alpha=a), base.noisy_f(te, alpha=a)
                for label, kw in SETTINGS:
                    r = fm.fmaxent("q ~ x1 + x2", tr, alpha=a, **kw)
                    fw = r.fweights
                    rows.append({"setting": label, "data": name, "seed": seed, "alpha": a,
                                 "train_gain": r.noisy_f(alpha=a) - b_tr,
                                 "test_gain": r.noisy_f(te, alpha=a) - b_te,
                                 "outer": len(r.history) - 1,
                                 "weight_ratio": fw.max() / fw.min()})
    res = pd.DataFrame(rows)
    table = res.groupby("setting", sort=False).agg(
        train_gain=("train_gain", "mean"), test_gain=("test_gain", "mean"),
        min_train_gain=("train_gain", "min"), outer=("outer", "mean"),
        max_weight_ratio=("weight_ratio", "max"))
    print(f"noisy-F gain over unweighted umaxent, data A and B, {args.seeds} seeds, "
          f"{len(alphas)} alphas ({time.perf_counter() - t0:.1f} s)")
    print(table.to_string(float_format=lambda v: f"{v:.4g}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
