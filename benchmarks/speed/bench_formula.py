"""Design-matrix building at 1e6 rows: formulaic vs patsy, raw and through fmstats.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_formula.py             # n = 1_000_000, 3 repeats
    PYTHONPATH=. python benchmarks/speed/bench_formula.py --quick     # n = 100_000 smoke run
    PYTHONPATH=. python benchmarks/speed/bench_formula.py --h-dtype category
    PYTHONPATH=. python benchmarks/speed/bench_formula.py --maxent-only --threads 1 --repeat 5

Data: a DataFrame with a numeric ``x`` ~ N(0, 1), a 3-level pandas
Categorical ``g`` (a, b, c), a 4-level ``h`` (p, q, r, s) stored as pandas'
default string dtype (``--h-dtype str``, the default; ``category`` makes it a
Categorical too) and a 0/1 integer ``y``; fixed seed.  Formula
``y ~ x + g * h``: intercept, x, 2 + 3 main-effect dummies and 6 interaction
columns = 13 columns.

Contenders (the right-hand side ``rhs = "x + g * h"``):

* ``formulaic``          ``formulaic.model_matrix(rhs, df, output="numpy")``;
* ``formulaic/raise``    the same with ``na_action="raise"`` -- the exact engine call
  fmstats makes (fmstats scans for missing values itself), so fmstats/formulaic
  over this one is the pure cost of fmstats' own work;
* ``patsy``              ``patsy.dmatrix(rhs, df)``;
* ``fmstats/formulaic``  ``fmstats.formula.model_frame("y ~ " + rhs, df, engine="formulaic")``;
* ``fmstats/patsy``      ``fmstats.formula.model_frame("y ~ " + rhs, df, engine="patsy")``.

``model_frame`` does more than the raw engine call (formula parsing, the
missing-value scan of the used columns, the response, the recorded factor
levels), so fmstats/formulaic over formulaic is the price of the front end;
patsy over formulaic says which engine is faster and so justifies fmstats'
default engine.

Timing: all contenders run in this one process, after a warm-up call on
2,000 rows each (imports, caches); every repeat runs every contender once, in
turn (interleaved, in a fresh seeded random order each repeat, because the call
that follows patsy runs slower), after ``gc.collect()``; ``time.perf_counter`` around the
call; the median and the best of ``--repeat`` runs are reported, and the
ratios are given on both (on a machine shared with other jobs the best is the
more stable statistic; raise ``--repeat`` for a steadier median).  BLAS/OpenMP threads are limited with
``threadpoolctl.threadpool_limits(--threads)`` (default: all usable cores),
the same for everyone.  Nothing is asserted; the script always exits 0.

Last, ``fm.maxent`` from a formula against the IRLS core on the prebuilt arrays (n rows,
p = 20; issue 21 item 4), interleaved, ratio of the bests printed with PASS/FAIL.

Equality check: the two fmstats engines' matrices are compared column by
column *by name* (same set of names, max |difference| of the values), and
it is reported whether the column *order* is the same too.
"""
from __future__ import annotations

import gc
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402

SEED = 20240611
RHS = "x + g * h"
FORMULA = "y ~ " + RHS


def make_frame(n: int, seed: int, h_dtype: str = "str"):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    h = np.array(["p", "q", "r", "s"], dtype=object)[rng.integers(0, 4, n)]
    df = pd.DataFrame({
        "x": rng.standard_normal(n),
        "g": pd.Categorical.from_codes(rng.integers(0, 3, n), categories=["a", "b", "c"]),
        "h": pd.Series(h, dtype="category" if h_dtype == "category" else "str"),
        "y": rng.integers(0, 2, n),
    })
    return df


def contenders():
    import numpy as np
    import patsy
    from formulaic import model_matrix

    from fmstats.formula import model_frame

    def run_formulaic(df):
        mm = model_matrix(RHS, df, output="numpy")
        return np.asarray(mm), list(mm.model_spec.column_names)

    def run_formulaic_raise(df):
        mm = model_matrix(RHS, df, output="numpy", na_action="raise")
        return np.asarray(mm), list(mm.model_spec.column_names)

    def run_patsy(df):
        dm = patsy.dmatrix(RHS, df)
        return np.asarray(dm), list(dm.design_info.column_names)

    def run_fm(engine):
        def run(df):
            mf = model_frame(FORMULA, df, engine=engine)
            return mf.X, list(mf.column_names)
        return run

    return {
        "formulaic": ("formulaic model_matrix(rhs, df, output='numpy')", run_formulaic),
        "formulaic/raise": ("formulaic model_matrix(..., na_action='raise')", run_formulaic_raise),
        "patsy": ("patsy dmatrix(rhs, df)", run_patsy),
        "fmstats/formulaic": ("fmstats model_frame(formula, df, engine='formulaic')",
                              run_fm("formulaic")),
        "fmstats/patsy": ("fmstats model_frame(formula, df, engine='patsy')", run_fm("patsy")),
    }


def compare_by_name(A, names_a, B, names_b):
    """(same set of names, same order, max |A - B| over columns matched by name)."""
    import numpy as np

    same_set = sorted(names_a) == sorted(names_b) and len(set(names_a)) == len(names_a)
    same_order = list(names_a) == list(names_b)
    if not same_set or A.shape != B.shape:
        return same_set, same_order, float("nan")
    pos = {nm: j for j, nm in enumerate(names_b)}
    Bp = B[:, [pos[nm] for nm in names_a]]
    return same_set, same_order, float(np.max(np.abs(A - Bp)))


def main(argv=None) -> int:
    ap = _common.bench_parser(__doc__, "timed runs per contender",
                              "BLAS/OpenMP threads (default: usable cores)", SEED)
    ap.add_argument("--h-dtype", choices=("str", "category"), default="str",
                    help="dtype of the 4-level column h (default: pandas string dtype)")
    ap.add_argument("--maxent-only", action="store_true",
                    help="only maxent from a formula against the IRLS core (issue 21 item 4)")
    args = ap.parse_args(argv)
    if args.quick:
        args.n = 100_000
    if args.maxent_only:
        _common.ensure_fmstats_importable()
        _common.set_thread_env(args.threads, os.environ)
        print(f"load: {os.getloadavg()}")
        maxent_vs_core(args.n, args.repeat, args.threads, args.seed)
        print(f"load at end: {os.getloadavg()}")
        return 0
    _common.ensure_fmstats_importable()
    # children of BLAS/OpenMP that start later read these
    _common.set_thread_env(args.threads, os.environ)

    from threadpoolctl import threadpool_info, threadpool_limits

    df = make_frame(args.n, args.seed, args.h_dtype)
    _common.print_header(
        f"bench_formula: design matrix of '{FORMULA}' on {args.n:,} rows, seed {args.seed}",
        ["fmstats", "numpy", "pandas", "formulaic", "patsy", "threadpoolctl"],
        args.threads,
        [f"data:     x float64, g {df['g'].dtype} (3 levels), h {df['h'].dtype} (4 levels), "
         f"y {df['y'].dtype}",
         f"repeats:  {args.repeat}, interleaved (seeded random order each repeat), in one process, "
         "after a 2,000-row warm-up call each; time = perf_counter around the call",
         "source:   " + _common.source_fingerprint(["fmstats/formula.py"]),
         f"load:     1/5/15-min load average at start {os.getloadavg()}"],
    )

    cands = contenders()
    times = {k: [] for k in cands}
    out = {}
    with threadpool_limits(limits=args.threads):
        pools = threadpool_info()
        small = df.iloc[:2000].copy()
        for _, run in cands.values():
            run(small)
        keys = list(cands)
        shuffler = random.Random(args.seed)
        for r in range(args.repeat):
            line = []
            # a fresh (seeded) order every repeat: the call that follows patsy runs measurably
            # slower (fresh memory after patsy's large frees), so no contender may always follow it
            order = keys[:]
            shuffler.shuffle(order)
            for key in order:
                run = cands[key][1]
                out.pop(key, None)
                gc.collect()
                t0 = time.perf_counter()
                res = run(df)
                times[key].append(time.perf_counter() - t0)
                out[key] = res
                line.append(f"{key} {times[key][-1]:.3f} s")
            print(f"  repeat {r + 1}: " + ";  ".join(line), flush=True)
    print()
    print("thread pools: " + _common.blas_description(pools))
    print()

    med = {k: _common.median(v) for k, v in times.items()}
    base = med["formulaic"]
    rows = []
    for key, (label, _) in cands.items():
        X, names = out[key]
        rows.append([label, f"{med[key]:.3f}", f"{min(times[key]):.3f}",
                     f"{med[key] / base:.2f}x", f"{X.shape[0]:,} x {X.shape[1]}"])
    print(_common.format_table(["contender", "median s", "best s", "ratio vs formulaic",
                                "shape"], rows, "lrrrr"))
    print()

    best = {k: min(v) for k, v in times.items()}
    ratio_fm = med["fmstats/formulaic"] / base
    ratio_patsy = med["patsy"] / base
    ratio_fm_engines = med["fmstats/patsy"] / med["fmstats/formulaic"]
    ratio_fm_best = best["fmstats/formulaic"] / best["formulaic"]
    print(f"fmstats(formulaic) / formulaic   = {ratio_fm:.2f}x on medians, {ratio_fm_best:.2f}x on "
          f"bests  (target <= 1.2: {'met' if ratio_fm <= 1.2 else 'NOT met'} on medians, "
          f"{'met' if ratio_fm_best <= 1.2 else 'NOT met'} on bests; never asserted)")
    print(f"fmstats(formulaic) / formulaic(na_action='raise', the call fmstats makes) = "
          f"{med['fmstats/formulaic'] / med['formulaic/raise']:.2f}x on medians, "
          f"{best['fmstats/formulaic'] / best['formulaic/raise']:.2f}x on bests  (fmstats' own "
          f"work: {(best['fmstats/formulaic'] - best['formulaic/raise']) * 1e3:.0f} ms on bests)")
    print(f"patsy / formulaic                = {ratio_patsy:.2f}x on medians, "
          f"{best['patsy'] / best['formulaic']:.2f}x on bests")
    print(f"fmstats(patsy) / fmstats(formulaic) = {ratio_fm_engines:.2f}x on medians, "
          f"{best['fmstats/patsy'] / best['fmstats/formulaic']:.2f}x on bests")
    faster = "formulaic" if med["formulaic"] < med["patsy"] else "patsy"
    print(f"faster engine at {args.n:,} rows: {faster} "
          f"(fmstats' default engine is 'formulaic'"
          f"{': consistent' if faster == 'formulaic' else ': NOT consistent'})")
    print()

    Xf, nf = out["fmstats/formulaic"]
    Xp, np_ = out["fmstats/patsy"]
    same_set, same_order, diff = compare_by_name(Xf, nf, Xp, np_)
    equal = same_set and diff == 0.0
    print("engine equality (fmstats model_frame, engine='formulaic' vs engine='patsy'):")
    print(f"  same column names: {same_set};  same column order: {same_order};  "
          f"max |difference| over columns matched by name: {diff:.3g}  ->  "
          f"{'EQUAL' if equal else 'DIFFERENT'}")
    if not same_order:
        print(f"    formulaic order: {nf}")
        print(f"    patsy order:     {np_}")
    Xr, nr = out["formulaic"]
    s2, o2, d2 = compare_by_name(Xf, nf, Xr, nr)
    print(f"  fmstats(formulaic) vs raw formulaic: same names {s2}, same order {o2}, "
          f"max |difference| {d2:.3g}")
    Xq, nq = out["patsy"]
    s3, o3, d3 = compare_by_name(Xp, np_, Xq, nq)
    print(f"  fmstats(patsy) vs raw patsy:         same names {s3}, same order {o3}, "
          f"max |difference| {d3:.3g}")
    print()
    maxent_vs_core(args.n, args.repeat, args.threads, args.seed)
    print(f"load at end: {os.getloadavg()}")
    return 0


MAXENT_P = 20   # intercept + 15 numeric columns + 4 dummies of a 5-level factor


def maxent_problem(n: int, seed: int):
    """(formula, data, X, y): 15 normal columns and a 5-level factor (p = 20 with the
    intercept), a logit response; X and y the prebuilt design and response."""
    import numpy as np
    import pandas as pd

    from fmstats.formula import model_frame

    rng = np.random.default_rng(seed)
    k = MAXENT_P - 5
    df = pd.DataFrame({f"x{j}": rng.standard_normal(n) for j in range(k)})
    df["g"] = pd.Categorical.from_codes(rng.integers(0, 5, n), categories=list("abcde"))
    eta = df[[f"x{j}" for j in range(k)]].to_numpy() @ rng.normal(0, 0.3, k)
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    formula = "y ~ " + " + ".join(f"x{j}" for j in range(k)) + " + g"
    mf = model_frame(formula, df)
    return formula, df, mf.X, mf.response.y


def maxent_vs_core(n: int, repeat: int, threads: int, seed: int) -> None:
    """maxent() from a formula against the IRLS core on the prebuilt arrays (issue 21, item 4).

    Data: 15 N(0, 1) columns, a 5-level Categorical and a logistic 0/1 response; p = 20.
    Contenders, interleaved in a fresh random order every repeat: ``fm.maxent(formula, df)``
    (design, checks, fit, results) and ``irls_logit(X, y)`` on the design built beforehand.
    Target: the ratio of the minima <= 1.25.
    """
    from threadpoolctl import threadpool_limits

    import fmstats as fm
    from fmstats.glm import irls_logit

    formula, df, X, y = maxent_problem(n, seed)
    cands = {"fmstats maxent(formula, df)": lambda: fm.maxent(formula, df),
             "irls_logit(X, y) on prebuilt arrays": lambda: irls_logit(X, y)}
    times = {key: [] for key in cands}
    shuffler = random.Random(seed)
    with threadpool_limits(limits=threads):
        fm.maxent(formula, df.iloc[:2000])
        for _ in range(repeat):
            order = list(cands)
            shuffler.shuffle(order)
            for key in order:
                gc.collect()
                t0 = time.perf_counter()
                cands[key]()
                times[key].append(time.perf_counter() - t0)
    print(f"maxent from a formula vs the core, n = {n:,}, p = {X.shape[1]}, {threads} thread(s), "
          f"{repeat} interleaved repeats:")
    for key, ts in times.items():
        print(f"  {key:38s} best {min(ts):.3f} s, median {_common.median(ts):.3f} s")
    best = [min(ts) for ts in times.values()]
    ratio = best[0] / best[1]
    print(f"  maxent / core = {ratio:.2f} on bests (target <= 1.25: "
          f"{'PASS' if ratio <= 1.25 else 'FAIL'})")


if __name__ == "__main__":
    sys.exit(main())
