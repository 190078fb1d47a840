"""Memory of a maxent fit with and without its design matrix (``keep_data=False``, issue 16).

n rows x p numeric columns (default n = 2e6, p = 50, as in the issue), one fit per variant in
a fresh process. Printed per variant:

* the pickle size of the results (``save()`` writes this);
* the memory the results object retains: RSS after ``gc`` with the results alive minus RSS
  after they are deleted (the input DataFrame stays alive in both readings);
* the peak RSS of the fit above the RSS before it (the fit itself needs X either way);
* the fit's wall time.

    PYTHONPATH=. python benchmarks/reliability/bench_keep_data.py [--n 2000000] [--p 50] [--quick]

Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable, proc_status_kib, reset_peak_rss

ensure_fmstats_importable()


def _status(field: str) -> int:
    return (proc_status_kib(field) or 0) * 1024


def worker(n: int, p: int, keep: bool) -> dict:
    import numpy as np
    import pandas as pd

    import fmstats as fm

    rng = np.random.default_rng(16)
    X = rng.normal(size=(n, p))
    eta = X @ (rng.normal(size=p) * 0.2) - 0.5
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    del X, eta
    formula = "y ~ " + " + ".join(f"x{j}" for j in range(p))
    gc.collect()
    reset_peak_rss()
    before = _status("VmRSS")
    t = time.perf_counter()
    res = fm.maxent(formula, df, keep_data=keep)
    seconds = time.perf_counter() - t
    peak = _status("VmHWM") - before
    size = len(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL))
    res.summary()
    gc.collect()
    alive = _status("VmRSS")
    del res
    gc.collect()
    retained = alive - _status("VmRSS")
    return {"pickle": size, "retained": retained, "peak": peak, "seconds": seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2_000_000)
    ap.add_argument("--p", type=int, default=50)
    ap.add_argument("--quick", action="store_true", help="n = 200,000")
    ap.add_argument("--worker", choices=("keep", "drop"))
    args = ap.parse_args()
    n = 200_000 if args.quick else args.n
    if args.worker:
        print(json.dumps(worker(n, args.p, args.worker == "keep")))
        return
    mib = 1024 ** 2
    print(f"maxent on n = {n:,}, p = {args.p} numeric columns; X alone is "
          f"{n * (args.p + 1) * 8 / mib:,.0f} MiB\n")
    print(f"{'variant':18s} {'pickle MiB':>10s} {'retained MiB':>12s} {'fit peak MiB':>12s} "
          f"{'fit s':>6s}")
    for variant in ("keep", "drop"):
        cmd = [sys.executable, __file__, "--worker", variant, "--n", str(n), "--p", str(args.p)]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                        text=True).stdout.strip().splitlines()[-1])
        label = "keep_data=True" if variant == "keep" else "keep_data=False"
        print(f"{label:18s} {out['pickle'] / mib:10.1f} {out['retained'] / mib:12.1f} "
              f"{out['peak'] / mib:12.1f} {out['seconds']:6.2f}")


if __name__ == "__main__":
    main()
