"""Print the measured values that tests/test_reproduce_004_thesis.py asserts (seed 004).

    PYTHONPATH=. python tests/reference/reproduce_004_measured.py [--slow]

Chapter 9 on draw 2014 (and draws 2014-2023 with --slow, the seed spread), Fig. 9.9's
inner-loop comparison, chapter 8 on vignette 03's draws.  The chapter-8 fresh-draw means
come from benchmarks/bench_fsvm_chapter8.py --data-seed 2026|3030|4040.
"""
import sys
import warnings

import pandas as pd

from fmstats.experiments.thesis_ch9 import chapter9_gains, claim_fractions, inner_comparison
from fmstats.experiments.thesis_ch8 import fsvm_minus_wsvm, vignette_chapter8

warnings.simplefilter("ignore")
pd.set_option("display.width", 160)
seeds = tuple(range(2014, 2024)) if "--slow" in sys.argv else (2014,)
g = chapter9_gains(seeds=seeds)
print(claim_fractions(g))
print(g.groupby(["data", "seed"])[["train_gain", "test_gain", "resample_gain"]].mean().round(4))
print(g[g.test_gain <= 1e-4][["data", "seed", "alpha"]])
print(g.groupby("data")["best_iteration"].describe())
print(inner_comparison("B", 2014).round(5))
print(fsvm_minus_wsvm(vignette_chapter8(("A2",) if "--slow" not in sys.argv else
                                        ("A1", "A2", "B1", "B2"))).round(4))
