"""Peak memory of ``gfm``, ``sto`` (issue 16) and ``maxent(keep_data=False)`` (issue 31).

Each (case, code version) runs in a fresh Python process: the worker builds the inputs,
warms up on a tiny problem, then measures one call

* **peak RSS**: VmHWM - VmRSS before the call, with the kernel's peak counter reset right
  before it (``echo 5 > /proc/self/clear_refs``), i.e. everything the call needs beyond its
  inputs (numpy, scipy and C extensions alike);
* **traced peak**: the peak of ``tracemalloc`` (numpy/scipy array allocations) in a second,
  identical call;
* the time of the first call (``perf_counter``), to show the bound costs no speed.

"before" is the package at ``--before`` (default 8b742a7, the commit before the change),
extracted with ``git archive`` into a temporary directory; "after" is this working tree.
A checksum of the results shows both compute the same thing.

The ``maxent`` case (issue 31) fits ``y ~ x0 + ... + x{p-1}`` on an n x p frame of floats
(default n = 2e6, p = 50: a 765 MiB frame) with ``keep_data=False`` -- the design built and
accumulated in row blocks -- and prints the fit's extra peak RSS as a multiple of the frame's
size beside the bound 0.5 (the docstring of ``fmstats.maxent``); "whole" is the same tree with
``keep_data=True`` (the design built whole), "before" the code at ``--maxent-before``
(5d6713b: ``keep_data=False`` built the whole design and dropped it).  Coefficients and
standard errors of every run are compared with the "whole" run (max relative difference).

    PYTHONPATH=. python benchmarks/reliability/bench_memory.py            # gfm n=600, m=300; sto 2e7 estimates
    PYTHONPATH=. python benchmarks/reliability/bench_memory.py --quick    # gfm n=300, m=200; sto 2e6
    PYTHONPATH=. python benchmarks/reliability/bench_memory.py --gfm-m 500 --case gfm   # ~4 GB before
    PYTHONPATH=. python benchmarks/reliability/bench_memory.py --case maxent   # n=2e6, p=50 (~6 GB in all)
    PYTHONPATH=. python benchmarks/reliability/bench_memory.py --case maxent --maxent-n 200000

Figures are printed, never asserted; the exit status is 0.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import (REPO_ROOT, format_table, print_header, proc_status_kib, reset_peak_rss,
                     set_thread_env)

HERE = Path(__file__).resolve().parent


# ---------------------------------------------------------------------------
# worker (runs inside the measured process)
# ---------------------------------------------------------------------------
def _status(field: str) -> int:
    kib = proc_status_kib(field)
    if kib is None:
        raise RuntimeError(field)
    return kib * 1024


def _inputs(case: str, args):
    import numpy as np

    if case == "gfm":
        from fmstats.multilabel import estimate_P

        rng = np.random.default_rng(args.seed)
        P, p0 = estimate_P(rng.random((args.gfm_n, 20, args.gfm_m)) < 3.0 / args.gfm_m)
        from fmstats.multilabel import gfm

        gfm(P[:2], p0[:2])                                   # warm-up
        return (lambda: gfm(P, p0)), {"n": args.gfm_n, "m": args.gfm_m,
                                      "input_bytes": int(P.nbytes)}
    from fmstats.extreme import sto
    from fmstats.extreme import make_extreme_spe

    spe, Y = make_extreme_spe(args.sto_n, args.sto_m, args.sto_per_row, hidden_per_row=2.0,
                              random_state=args.seed)
    sto(spe.take_rows(slice(0, 100)), Y[:100])              # warm-up
    return (lambda: sto(spe, Y)), {"n": args.sto_n, "m": args.sto_m, "nnz": spe.nnz,
                                   "input_bytes": int(spe.matrix.data.nbytes
                                                      + spe.matrix.indices.nbytes)}


def _maxent_frame(args):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(args.seed)
    n, p = args.maxent_n, args.maxent_p
    X = rng.normal(size=(n, p))
    eta = X @ (rng.normal(size=p) * 0.2) - 0.5
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    return df, "y ~ " + " + ".join(f"x{j}" for j in range(p))


def maxent_worker(args) -> None:
    """One fit of the maxent case in this process: its extra peak RSS over the frame."""
    import tracemalloc

    from threadpoolctl import threadpool_limits

    import fmstats as fm

    keep = args.worker == "maxent-whole"
    with threadpool_limits(1):
        df, formula = _maxent_frame(args)
        frame_bytes = int(df.memory_usage(deep=True).sum())
        fm.maxent(formula, df.head(2000), keep_data=keep)          # warm-up
        gc.collect()
        before = _status("VmRSS")
        reset = reset_peak_rss()
        t0 = time.perf_counter()
        fit = fm.maxent(formula, df, keep_data=keep)
        seconds = time.perf_counter() - t0
        peak = _status("VmHWM")
        params, bse = fit.params.tolist(), fit.bse.tolist()
        del fit
        gc.collect()
        traced = None
        if args.traced:
            tracemalloc.start()
            fm.maxent(formula, df, keep_data=keep)
            traced = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    import fmstats

    print(json.dumps({"n": args.maxent_n, "p": args.maxent_p, "frame_bytes": frame_bytes,
                      "seconds": seconds, "rss_extra": peak - before, "peak_reset": reset,
                      "traced_peak": traced, "params": params, "bse": bse,
                      "fmstats": str(Path(fmstats.__file__).parent)}))


def _maxent_rows(args, trees) -> list:
    """Run the maxent variants, each in a fresh process; the printed table rows."""
    import numpy as np

    runs = {}
    for label, tree, worker_name in (("after", trees["after"], "maxent"),
                                     ("whole", trees["after"], "maxent-whole"),
                                     ("before", trees["before"], "maxent")):
        runs[label] = _run(worker_name, tree, args)
    ref = runs["whole"]
    rows = []
    for label, r in runs.items():
        if "error" in r:
            rows.append(["maxent", label, r["error"][:60]] + [""] * 6)
            continue
        dcoef = dse = float("nan")
        if "error" not in ref:
            a, b = np.asarray(r["params"]), np.asarray(ref["params"])
            dcoef = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))
            a, b = np.asarray(r["bse"]), np.asarray(ref["bse"])
            dse = float(np.max(np.abs(a - b) / b))
        what = {"after": "keep_data=False (blocks)", "whole": "keep_data=True",
                "before": "keep_data=False (before)"}[label]
        rows.append(["maxent", f"{label}: {what}", f"n={r['n']}, p={r['p']}",
                     f"{r['seconds']:.1f}", f"{r['rss_extra'] / 2**20:.0f}",
                     "" if r["traced_peak"] is None else f"{r['traced_peak'] / 2**20:.0f}",
                     f"{r['rss_extra'] / r['frame_bytes']:.3f} x frame "
                     f"({r['frame_bytes'] / 2**20:.0f} MiB)",
                     f"coef {dcoef:.1e}, SE {dse:.1e}", ""])
    return rows


def _checksum(case: str, out) -> float:
    import numpy as np

    if case == "gfm":
        H, ef = out
        return float(np.sum(ef)) + float(H.sum())
    return float(np.sum(out.thresholds)) + float(np.sum(out.label_f))


def worker(case: str, args) -> None:
    import tracemalloc

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        fn, info = _inputs(case, args)
        gc.collect()
        before = _status("VmRSS")
        reset = reset_peak_rss()
        t0 = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - t0
        peak = _status("VmHWM")
        check = _checksum(case, out)
        del out
        gc.collect()
        tracemalloc.start()
        fn()
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    import fmstats

    print(json.dumps({**info, "seconds": seconds, "rss_extra": peak - before,
                      "peak_reset": reset, "traced_peak": traced, "checksum": check,
                      "fmstats": str(Path(fmstats.__file__).parent)}))


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------
def _extract(rev: str, into: str) -> str:
    blob = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", rev, "fmstats"],
                          check=True, capture_output=True).stdout
    path = Path(into) / "tree.tar"
    path.write_bytes(blob)
    with tarfile.open(path) as tar:
        tar.extractall(into, filter="data")
    return into


def _run(case: str, tree: str, args) -> dict:
    env = set_thread_env(1)
    env["PYTHONPATH"] = tree
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", case,
           "--gfm-n", str(args.gfm_n), "--gfm-m", str(args.gfm_m), "--sto-n", str(args.sto_n),
           "--sto-m", str(args.sto_m), "--sto-per-row", str(args.sto_per_row),
           "--seed", str(args.seed), "--maxent-n", str(args.maxent_n),
           "--maxent-p", str(args.maxent_p)] + (["--traced"] if args.traced else [])
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=str(HERE))
    if res.returncode != 0:
        return {"error": res.stderr.strip().splitlines()[-1] if res.stderr else "failed"}
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", choices=("gfm", "sto", "maxent", "maxent-whole"))
    ap.add_argument("--case", nargs="+", choices=("gfm", "sto", "maxent"),
                    default=["gfm", "sto"])
    ap.add_argument("--before", default="8b742a7", help="git revision of the 'before' code")
    ap.add_argument("--maxent-before", default="5d6713b",
                    help="git revision of the 'before' code of the maxent case")
    ap.add_argument("--maxent-n", type=int, default=2_000_000)
    ap.add_argument("--maxent-p", type=int, default=50)
    ap.add_argument("--traced", action="store_true",
                    help="maxent: also the tracemalloc peak of a second fit (slow)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="processes per (case, version)")
    ap.add_argument("--gfm-n", type=int, default=600)
    ap.add_argument("--gfm-m", type=int, default=300)
    ap.add_argument("--sto-n", type=int, default=400_000)
    ap.add_argument("--sto-m", type=int, default=100_000)
    ap.add_argument("--sto-per-row", type=int, default=50)
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args()
    if args.worker in ("maxent", "maxent-whole"):
        maxent_worker(args)
        return
    if args.worker:
        worker(args.worker, args)
        return
    if args.quick:
        args.gfm_n, args.gfm_m, args.sto_n = 300, 200, 40_000
    before = ([f"before (gfm, sto): fmstats at {args.before} (git archive)"]
              if set(args.case) - {"maxent"} else [])
    if "maxent" in args.case:
        before.append(f"before (maxent): fmstats at {args.maxent_before} (git archive)")
    print_header(f"Peak memory of {', '.join(args.case)}, before / after (fresh process per "
                 "run)", ["numpy", "scipy", "pandas", "formulaic"], 1,
                 before + [f"after: {REPO_ROOT}"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": _extract(args.before, tmp) if set(args.case) - {"maxent"} else None,
                 "after": str(REPO_ROOT)}
        if "maxent" in args.case:
            sub = Path(tmp) / "maxent-before"
            sub.mkdir()
            rows += _maxent_rows(args, {"before": _extract(args.maxent_before, str(sub)),
                                        "after": str(REPO_ROOT)})
        for case in [c for c in args.case if c != "maxent"]:
            results = {}
            for _ in range(args.repeat):
                for version, tree in trees.items():
                    results.setdefault(version, []).append(_run(case, tree, args))
            for version in trees:
                runs = [r for r in results[version] if "error" not in r]
                if not runs:
                    rows.append([case, version, results[version][0]["error"][:60]] + [""] * 6)
                    continue
                r = min(runs, key=lambda d: d["rss_extra"])
                unit = r["n"] if case == "gfm" else r["nnz"]
                what = "instance" if case == "gfm" else "estimate"
                size = (f"n={r['n']}, m={r['m']}" if case == "gfm"
                        else f"{r['nnz']:,} estimates")
                rows.append([case, version, size,
                             f"{min(d['seconds'] for d in runs):.2f}",
                             f"{r['rss_extra'] / 2**20:.0f}",
                             f"{r['traced_peak'] / 2**20:.0f}",
                             f"{r['rss_extra'] / unit:,.0f} / {what}",
                             f"{r['traced_peak'] / unit:,.0f} / {what}",
                             f"{r['checksum']:.10g}"])
    print(format_table(["case", "code", "size", "time s", "peak RSS +MiB", "traced MiB",
                        "RSS bytes", "traced bytes", "checksum"], rows, "lllrrrrrr"))
    print("\npeak RSS +MiB: VmHWM - VmRSS around one call (peak counter reset before it); "
          "traced: tracemalloc peak of a second call. Inputs are not counted.")
    if "maxent" in args.case:
        print("maxent: 'RSS bytes' is the fit's extra peak over the frame as a multiple of the "
              "frame's size; the bound of keep_data=False is 0.5 x frame. 'traced bytes' "
              "compares coefficients and SEs with the keep_data=True fit.")


if __name__ == "__main__":
    main()
