"""Out-of-core IRLS on a 2-worker Dask LocalCluster against the in-memory fit, same data.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_dask.py            # n = 1_000_000, p = 20
    PYTHONPATH=. python benchmarks/speed/bench_dask.py --quick    # n = 100_000

Problem: X = [1, Z], Z (n, 19) independent N(0, 1), y ~ Bernoulli(expit(X beta)), prior
weights ~ U(0.5, 2) (the problem of bench_irls.py); for the model functions a factor with
5 levels is added.  Contenders, timed in this one process after a warm-up fit:

* ``irls_logit``        in-memory core on ndarrays (1 BLAS thread);
* ``irls_logit_dask``   the chunked core on a LocalCluster(n_workers=2, threads_per_worker=1)
                        with X, y, w already persisted on the workers (``--chunk`` rows per block);
* ``maxent(df)``        the whole in-memory front end on a pandas DataFrame;
* ``maxent(ddf)``       the whole out-of-core front end on a Dask DataFrame with the same rows
                        (scan, design per partition, persist, checks, IRLS, training statistics).

MALLOC_TRIM_THRESHOLD_ is unset for the workers.  The table prints wall times
(median of --repeat), the ratio to the in-memory contender, the passes over the data, and
the largest relative coefficient difference to the in-memory fit.  The machine is shared:
the load average is printed with the results; compare ratios only within one run.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import (bench_parser, ensure_fmstats_importable, format_table, median,  # noqa: E402
                     print_header)

ensure_fmstats_importable()


def _data(n, seed):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 19))
    beta = np.r_[-0.5, np.linspace(-1, 1, 19)]
    X = np.column_stack([np.ones(n), Z])
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ beta))).astype(float)
    w = rng.uniform(0.5, 2.0, n)
    df = pd.DataFrame(Z, columns=[f"x{i}" for i in range(1, 20)])
    df["g"] = rng.choice(list("abcde"), n)
    df["y"], df["w"] = y, w
    return X, y, w, df


def main():
    ap = bench_parser(__doc__, "repeats per contender (default 3)", "BLAS threads in-memory",
                      seed=20240611)
    ap.add_argument("--chunk", type=int, default=125_000, help="rows per block / partition")
    args = ap.parse_args()
    n = 100_000 if args.quick else args.n
    chunk = min(args.chunk, max(n // 4, 1))

    import dask
    import dask.array as da
    import dask.dataframe as dd
    import numpy as np
    from threadpoolctl import threadpool_limits

    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    from dask.distributed import Client, LocalCluster

    import fmstats as fm
    from fmstats.glm import irls_logit_dask
    from fmstats.glm import irls_logit

    print_header(f"bench_dask: n = {n:,}, p = 20, blocks of {chunk:,} rows, 2 workers",
                 ["numpy", "dask", "distributed", "fmstats"], 1,
                 [f"load average before: {os.getloadavg()}"])
    X, y, w, df = _data(n, args.seed)
    formula = "y ~ " + " + ".join(f"x{i}" for i in range(1, 20)) + " + g"
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        Xd = da.from_array(X, chunks=(chunk, 20)).persist()
        yd = da.from_array(y, chunks=chunk).persist()
        wd = da.from_array(w, chunks=chunk).persist()
        ddf = dd.from_pandas(df, chunksize=chunk).persist()
        with threadpool_limits(1):
            ref = irls_logit(X, y, w)
            ref_m = fm.maxent(formula, df, weights="w")
        irls_logit_dask(Xd[:2000], yd[:2000], wd[:2000])  # warm-up: imports on the workers
        fm.maxent(formula, ddf.partitions[0], weights="w")
        contenders = {
            "irls_logit (in memory)": lambda: irls_logit(X, y, w),
            "irls_logit_dask (2 workers)": lambda: irls_logit_dask(Xd, yd, wd, persist=False),
            "maxent(df) (in memory)": lambda: fm.maxent(formula, df, weights="w"),
            "maxent(ddf) (2 workers)": lambda: fm.maxent(formula, ddf, weights="w"),
        }
        times = {k: [] for k in contenders}
        last = {}
        for _ in range(args.repeat):
            for name, fn in contenders.items():
                with threadpool_limits(1):
                    t0 = time.perf_counter()
                    last[name] = fn()
                    times[name].append(time.perf_counter() - t0)
        rows = []
        for name in contenders:
            base = "irls_logit (in memory)" if name.startswith("irls") else "maxent(df) (in memory)"
            r = last[name]
            coef = r.coef if hasattr(r, "coef") else r.params.to_numpy()
            refc = ref.coef if name.startswith("irls") else ref_m.params.to_numpy()
            diff = float(np.max(np.abs(coef - refc) / np.maximum(np.abs(refc), 1e-300)))
            fit = r if hasattr(r, "passes") else getattr(r, "core_fit", None)
            passes = getattr(fit, "passes", "-")
            rows.append([name, f"{median(times[name]):.3f}",
                         f"{median(times[name]) / median(times[base]):.2f}x", str(passes),
                         f"{diff:.1e}"])
        print(format_table(["contender", "median s", "vs in-memory", "IRLS passes",
                            "max rel coef diff"], rows))
        print(f"\nload average after: {os.getloadavg()}")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
