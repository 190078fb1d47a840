"""Where does the time of ``fmstats.formula.model_frame`` go, beyond the formulaic call?

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/profile_formula.py [--n 1000000] [--h-dtype str|category]

On the data of ``bench_formula.py`` this times, in one process and without
other contenders in between, the raw formulaic call, ``model_frame`` and the
pieces of ``model_frame`` (they are private helpers of fmstats/formula.py and
are skipped if renamed), plus one candidate fix: converting string factor
columns to pandas Categorical once before calling formulaic (the Categorical
codes then also give the missing-value mask and the levels for free).
Diagnostic only: nothing is asserted, exit status 0.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402


def timeit(fn, k):
    ts = []
    for _ in range(k):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), _common.median(ts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=9, help="timings per item (best and median)")
    ap.add_argument("--h-dtype", choices=("str", "category"), default="str")
    args = ap.parse_args(argv)
    _common.ensure_fmstats_importable()

    import numpy as np
    from formulaic import model_matrix

    from bench_formula import FORMULA, RHS, SEED, make_frame
    from fmstats.formula import _frame as F

    df = make_frame(args.n, SEED, args.h_dtype)
    used = ["y", "x", "g", "h"]
    print(f"profile_formula: n = {args.n:,}, h dtype {df['h'].dtype}, load {os.getloadavg()}")
    print("source: " + _common.source_fingerprint(["fmstats/formula.py"]))
    F.model_frame(FORMULA, df.iloc[:2000])
    model_matrix(RHS, df.iloc[:2000], output="numpy")

    def to_categorical():
        d = df.copy(deep=False)
        for col in ("g", "h"):
            if not isinstance(d[col].dtype, __import__("pandas").CategoricalDtype):
                d[col] = d[col].astype("category")
        return model_matrix(RHS, d, output="numpy", na_action="raise")

    a = np.asarray(model_matrix(RHS, df, output="numpy", na_action="raise"))
    b = np.asarray(to_categorical())
    print(f"categorical-first matrix equals the direct one: {a.shape == b.shape and (a == b).all()}")

    items = [
        ("formulaic model_matrix(rhs, df, output='numpy')",
         lambda: model_matrix(RHS, df, output="numpy")),
        ("formulaic ... na_action='raise' (fmstats' call)",
         lambda: model_matrix(RHS, df, output="numpy", na_action="raise")),
        ("fmstats model_frame(formula, df)", lambda: F.model_frame(FORMULA, df)),
    ]
    helpers = [
        ("  _drop_missing (isna scan of the used columns)",
         "_drop_missing", lambda f: f(df, used, "drop", "data")),
        ("  _categorical_levels (pd.unique + sort of factors)",
         "_categorical_levels", lambda f: f(RHS, df, ["x", "g", "h"])),
        ("  _response", "_response", lambda f: f("column", ["y"], None, df, "y")),
        ("  _build('formulaic', ...)", "_build", lambda f: f("formulaic", RHS, df)),
    ]
    for label, name, call in helpers:
        fn = getattr(F, name, None)
        if fn is None:
            print(f"(skipped {name}: not in fmstats.formula._frame any more)")
            continue
        try:
            call(fn)
        except Exception as exc:  # private helper whose signature changed
            print(f"(skipped {name}: {type(exc).__name__}: {exc})")
            continue
        items.append((label, lambda fn=fn, call=call: call(fn)))
    items += [
        ("  h.isna()", lambda: df["h"].isna().to_numpy()),
        ("  pd.unique(h)", lambda: __import__("pandas").unique(df["h"].to_numpy())),
        ("FIX? astype('category') once + formulaic", to_categorical),
    ]
    rows = []
    for label, fn in items:
        b_, m_ = timeit(fn, args.k)
        rows.append([label, f"{b_ * 1e3:.1f}", f"{m_ * 1e3:.1f}"])
    print(_common.format_table(["item", "best ms", "median ms"], rows, "lrr"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
