"""What proving a design built once current costs (issue 42, mechanism 1).

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_design_stamp.py              # n = 1_000_000, 3 repeats
    PYTHONPATH=. python benchmarks/speed/bench_design_stamp.py --quick      # n = 100_000

A :class:`fmstats.formula.DesignMatrix` records a stamp of the columns its design was built
from (a 64-bit hash of every row and the columns' dtypes, :func:`fmstats.formula._subset.stamp`)
and compares the rows of every frame it handed out with it at each use, so that a frame
changed in place (or data changed after the build) never gets the old design.  This prints,
on ``n`` rows of ``y ~ x1 + x2 + k + g + c`` (two float columns, an integer, a string factor of
4 levels, a categorical of 3):

* the stamp of each column kind alone and of the design's five columns (the check of one use
  of a frame of n rows; a fold's frame of 0.8 n rows costs 0.8 of it);
* the model frame of a fold's rows (80 %) rebuilt by the formula engine, and taken from the
  design built once (which includes the check);
* a maxent fit on the fold's rows from the design built once (the check's share of a use);
* ``pd.util.hash_pandas_object`` of the same columns, the peer of the stamp.

One thread (``threadpool_limits``); minima and medians over ``--repeat`` runs.
"""
from __future__ import annotations

import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402

_common.ensure_fmstats_importable()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats.formula import DesignMatrix, model_frame  # noqa: E402
from fmstats.formula._subset import stamp  # noqa: E402

FORMULA = "y ~ x1 + x2 + k + g + c"


def data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                      "k": rng.integers(0, 9, n), "g": rng.choice(["aa", "bb", "cc", "dd"], n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    eta = 0.5 * d.x1 - 0.3 * d.x2 + 0.1 * d.k + (d.g == "bb") - 1.0
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return d


def main() -> None:
    ap = _common.bench_parser(__doc__, "repeats (default 3)", "threads (default 1)", 42)
    ap.set_defaults(threads=1)
    args = ap.parse_args()
    n = 100_000 if args.quick else args.n
    _common.print_header(f"stamp of a design built once, n = {n:,}",
                         ["numpy", "pandas", "formulaic"], args.threads)
    d = data(n, args.seed)
    fold = np.sort(np.random.default_rng(args.seed).choice(n, int(0.8 * n), replace=False))
    cols = ["x1", "x2", "k", "g", "c"]
    rows = []

    def row(label, fn):
        med, best, out = _common.timed(fn, args.repeat)
        rows.append([label, f"{best * 1e3:.1f}", f"{med * 1e3:.1f}"])
        return out

    with threadpool_limits(args.threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for c in cols:
            row(f"stamp of column {c!r} ({d[c].dtype}), n rows", lambda c=c: stamp(d, [c]))
        row("stamp of the design's 5 columns, n rows", lambda: stamp(d, cols))
        row("pd.util.hash_pandas_object of the 5 columns, n rows",
            lambda: pd.util.hash_pandas_object(d[cols], index=False))
        design = row("DesignMatrix (design of n rows + its stamp)",
                     lambda: DesignMatrix(FORMULA, d))
        row("stamp of the 5 columns of the fold (0.8 n rows)",
            lambda: stamp(d.iloc[fold], cols))
        row("fold's model frame rebuilt by the engine",
            lambda: model_frame(FORMULA, d.iloc[fold]))
        row("fold's model frame from the design (with the check)",
            lambda: model_frame(FORMULA, design.subset(fold)))
        row("maxent on the fold from the design (with the check)",
            lambda: fm.maxent(FORMULA, design.subset(fold)))
    print(_common.format_table(["what", "best ms", "median ms"], rows))


if __name__ == "__main__":
    main()
