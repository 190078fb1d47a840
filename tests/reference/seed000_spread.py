"""Seed 000, yeast Table 1: run-to-run spread of every cell, for the tolerances of
tests/test_reproduce_000_gfm.py.

The paper's Table 1 is one run: its own random 3-fold CV folds and its own 200 chain samples
per gene.  fmstats' run is another draw of the same protocol, so the spread of a cell over
runs with different CV-fold seeds and sampling seeds measures how far two faithful runs can
differ.  Five runs (CV seed = sampling seed = 0..4); printed: mean, sd and the largest
|run - run 0| of each cell, then the fmstats (run 0) - paper difference.

Run:  python tests/reference/seed000_spread.py > tests/reference/seed000_spread.out
"""
from __future__ import annotations

import pandas as pd

from fmstats.experiments.papers import yeast_table1

COLS = ["instance_f", "micro_f", "macro_f", "hamming_loss"]


def main():
    runs = [yeast_table1(random_state=s, sample_seed=s)[COLS] for s in range(5)]
    stack = pd.concat(runs, keys=range(5), names=["run"])
    g = stack.groupby(level=["model", "inference"], sort=False)
    print("sd over 5 runs")
    print(g.std(ddof=1).round(4).to_string())
    print("\nlargest |run - run 0|")
    print((stack - pd.concat([runs[0]] * 5, keys=range(5), names=["run"])).abs()
          .groupby(level=["model", "inference"], sort=False).max().round(4).to_string())
    print("\nlargest sd per measure:", g.std(ddof=1).max().round(4).to_dict())
    paper = pd.read_csv("tests/reference/seed000_table1.csv").set_index(["model", "inference"])
    diff = (runs[0].loc[paper.index] - paper[COLS])
    print("\nrun 0 - paper")
    print(diff.round(4).to_string())
    print("\nmean of 5 runs - paper")
    print((g.mean().loc[paper.index] - paper[COLS]).round(4).to_string())


if __name__ == "__main__":
    main()
