"""Print the measured values that tests/test_reproduce_002_xmlc.py asserts (seed 002).

    PYTHONPATH=. python tests/reference/reproduce_002_measured.py [--slow]

The synthetic 100,000-label problem of vignette 07 (draw 1; draws 1-5 with --slow) and,
with --slow, the debtags protocol (trains a PLT: minutes).
"""
import sys

import numpy as np
import pandas as pd

from fmstats.extreme.experiments import (absent_label_breakdown, debtags_split, run_protocol,
                                         shared_threshold_scan, synthetic_split)

pd.set_option("display.width", 160)
grid = np.round(np.arange(0.30, 0.601, 0.01), 2)
for rs in (range(1, 6) if "--slow" in sys.argv else (1,)):
    split = synthetic_split(rs)
    table, best = run_protocol(split)
    print(f"draw {rs}\n", best.round(4))
    print(absent_label_breakdown(split, best).round(4))
    scan = shared_threshold_scan(split, np.r_[1 / 3, grid])
    print(scan.loc[scan.valid_macro_f.idxmax()].round(4).to_dict(),
          scan[scan.threshold.isin([1 / 3, 0.5])].round(4).to_dict("records"))
if "--slow" in sys.argv:
    split = debtags_split(0)
    table, best = run_protocol(split)
    print(table.round(4), best.round(4), sep="\n")
    scan = shared_threshold_scan(split, np.round(np.arange(0.01, 0.2, 0.01), 2))
    print(scan.round(4))
