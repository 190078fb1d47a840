"""Issue 41: the F workflow on a 2-worker Dask cluster, end to end, against the same rows in
memory and against dask-ml, in one run.

Run from the repository root (a quiet machine; about 15 min at the default size)::

    PYTHONPATH=. python benchmarks/speed/bench_dask_workflow.py                 # n = 2e6, 16 files
    PYTHONPATH=. python benchmarks/speed/bench_dask_workflow.py --quick         # n = 2e5, part A
    PYTHONPATH=. python benchmarks/speed/bench_dask_workflow.py --skip-big      # without part B
    PYTHONPATH=. python benchmarks/speed/bench_dask_workflow.py --skip-big --cv-tune-only

Data: n rows x 14 columns (y, prior weights w, eleven N(0, 1) predictors x1..x11 and a
5-level factor g), y ~ Bernoulli(expit(eta)) with an intercept that gives about 10 %
positives, written to ``--files`` parquet files.  Formula ``y ~ x1 + ... + x11 + g``
(16 design columns).

Part A (n rows; a LocalCluster of 2 worker processes, 1 thread each, ``--worker-memory``
each, MALLOC_TRIM_THRESHOLD_ unset, for speed, as for every contender):

1. ``maxent`` from the parquet files, end to end (read, design, fit): in memory
   (``pd.read_parquet`` + ``maxent(df)``), out of core (``dd.read_parquet`` + ``maxent(ddf)``)
   and dask-ml's ``LogisticRegression(solver="newton")`` (dask-glm; design by
   ``dd.get_dummies``, unweighted, since dask-ml takes no weights: fmstats is timed on the
   same unweighted model).  Each contender runs ``--repeat`` (3) times, in rounds, and the
   medians are compared (each one's first run pays one-off costs: imports and caches on the
   workers, the files' first reads).  Targets: out of core <= 2x in memory and <= 1x
   dask-ml, the coefficients equal to in memory (1e-8 relative).
2. ``fmaxent`` with its default covariance out of core and in memory (the smaller class is
   above 900 rows, so the reweighted sandwich): target SEs equal (1e-6 relative).
3. ``bootstrap`` of the maxent fit (B replicates, no early stop): out of core (Poisson
   weights drawn on the blocks) against in memory (multinomial counts).  Target: every SE
   within 3 Monte-Carlo standard errors (the two runs' ``mc_error()`` combined).  The bag of
   little bootstraps (Kleiner et al. 2014), the alternative for data that do not fit one
   machine, beside it at the same number of replicate fits: s = 5 subsets of b = n^0.7 rows
   (each small enough to gather), r = B / s resamples of n rows each (multinomial counts
   over the subset's rows), fitted by the IRLS core on the b rows only; reported: its time
   and its largest relative SE difference to the in-memory bootstrap.
4. ``tune_threshold`` (5 folds) out of core against in memory on the same folds (the
   hash folds given as ``cv=`` pairs).  Target: CV F within 0.005 (expected: equal).
5. ``cv_tune`` of maxent over 3 penalties x 5 folds out of core against in memory on the
   same folds (given as ``cv=`` pairs).  Target: the same best point and every grid point's
   CV F within 0.005 (expected: equal to ~1e-12).  ``--cv-tune-only`` runs this row alone.

Part B (workers limited to ``--big-worker-memory`` (1 GiB) each, and as many rows as make the
data -- their pandas size -- ``--ratio`` (2) times the two workers' total, in files of about
64 MiB): ``maxent`` and ``fmaxent`` (default covariance) out of core from the parquet files;
the design is then not persisted (:data:`fmstats.glm.PERSIST_SHARE`) and every pass
re-reads the files.  Part B keeps Dask's defaults (MALLOC_TRIM_THRESHOLD_ set), as a user's
cluster has them.  ``--big-row-group-rows`` writes the files in row groups of that many rows
and reads each row group as a partition (``split_row_groups=True``), the advice of
:class:`fmstats.exceptions.PartitionMemoryWarning`.  Reported: no error, the time, the
passes, each worker's peak resident memory (its own ``ru_maxrss``; the scheduler's metric
polled every 0.2 s beside it), whether a worker was restarted (target: none) and whether
fmstats warned that the partitions are large for the workers.  At the defaults the data are
4 GiB (3.7e7 rows): part B takes the longest (every pass reads the files); ``--big-maxent-only``
shortens it.

The machine is shared while this runs; the load average is printed; compare ratios within
one run only.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable, format_table, print_header  # noqa: E402

ensure_fmstats_importable()

P_NUM = 11
FORMULA = "y ~ " + " + ".join(f"x{i}" for i in range(1, P_NUM + 1)) + " + g"


def write_parquet(n, files, seed, path, row_group_rows=None):
    """n rows in ``files`` parquet files (row groups of ``row_group_rows`` rows, default one
    per file); returns the in-memory size of the rows (bytes)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    beta = np.linspace(-0.8, 0.8, P_NUM)
    size = 0
    bounds = np.linspace(0, n, files + 1).round().astype(int)
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        m = b - a
        Z = rng.normal(size=(m, P_NUM))
        g = rng.choice(list("abcde"), m)
        eta = -2.6 + Z @ beta + np.select([g == "b", g == "c"], [0.4, -0.3], 0.0)
        df = pd.DataFrame(Z, columns=[f"x{j}" for j in range(1, P_NUM + 1)])
        df["g"] = pd.Categorical(g, categories=list("abcde"))
        df["w"] = rng.uniform(0.5, 2.0, m)
        df["y"] = (rng.random(m) < 1 / (1 + np.exp(-eta))).astype(np.int8)
        df.to_parquet(os.path.join(path, f"part-{i:03d}.parquet"), index=False,
                      row_group_size=row_group_rows)
        size += int(df.memory_usage(deep=True).sum())
    return size


class PeakMemory:
    """The peak of every worker's memory (the scheduler's metric), polled in a thread."""

    def __init__(self, client, every=0.2):
        self.client, self.every, self.peak = client, every, {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            try:
                info = self.client.scheduler_info()["workers"]
            except Exception:       # noqa: BLE001 - the cluster may be restarting a worker
                info = {}
            for i, (_, w) in enumerate(sorted(info.items())):
                mem = w.get("metrics", {}).get("memory", 0)
                self.peak[i] = max(self.peak.get(i, 0), mem)
            time.sleep(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


class Rows(list):
    """The table's rows, each also printed as soon as it is measured."""

    def append(self, row):
        print("  " + " | ".join(str(c) for c in row), flush=True)
        super().append(row)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def rel(a, b):
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


def _dummy_design(part):
    """A partition's design (x1..x11, treatment dummies of g) and y, as one float array."""
    import numpy as np

    g = part["g"].astype(str).to_numpy()
    return np.column_stack([part[[f"x{i}" for i in range(1, P_NUM + 1)]].to_numpy(float)]
                           + [(g == lev).astype(float) for lev in "bcde"]
                           + [part["y"].to_numpy(float)])


def dask_ml_fit(path):
    """dask-ml's LogisticRegression(solver="newton") from the parquet files: the design built
    per partition (treatment coding, as the formula's) and persisted, then the fit
    (unweighted)."""
    import dask
    import dask.array as da
    import dask.dataframe as dd
    import numpy as np
    from dask_ml.linear_model import LogisticRegression

    ddf = dd.read_parquet(path)
    lengths = ddf.map_partitions(len).compute()
    parts = ddf.to_delayed()
    Z = da.concatenate([da.from_delayed(dask.delayed(_dummy_design)(p), shape=(int(k), P_NUM + 5),
                                        dtype=float) for p, k in zip(parts, lengths)]).persist()
    Xa, ya = Z[:, :-1], Z[:, -1]
    model = LogisticRegression(solver="newton", tol=1e-8, max_iter=50, fit_intercept=True)
    model.fit(Xa, ya)
    return np.r_[model.intercept_, model.coef_]


def blb_se(fit, B, seed, s=5, gamma=0.7):
    """The bag of little bootstraps' standard errors (Kleiner et al. 2014) of a maxent fit:
    s subsets of b = n^gamma rows (each small enough to gather on one machine), r = B / s
    resamples of n rows each (multinomial counts over the subset's rows, fitted by the IRLS
    core on the b rows only), the SEs averaged over the subsets."""
    import numpy as np

    from fmstats.glm import irls_logit

    X, y, w = fit.X, fit.y, fit.count_weights
    n = len(y)
    b = int(n ** gamma)
    r = max(2, B // s)
    rng = np.random.default_rng(seed)
    ses = []
    for _ in range(s):
        rows = rng.choice(n, b, replace=False)
        Xs, ys, ws = X[rows], y[rows], w[rows]
        coef = [irls_logit(Xs, ys, ws * rng.multinomial(n, np.full(b, 1.0 / b)),
                           start=fit.core_fit.coef, warn=False).coef for _ in range(r)]
        ses.append(np.std(coef, axis=0, ddof=1))
    return np.mean(ses, axis=0)


def part_a(args, path, client, rows):
    import numpy as np
    import pandas as pd
    import dask.dataframe as dd

    import fmstats as fm

    out = {}
    # warm-up (imports on the workers)
    fm.maxent("y ~ x1", dd.read_parquet(path).partitions[0])
    df, t_read = timed(lambda: pd.read_parquet(path))
    if args.cv_tune_only:
        part_cv_tune(df, dd.read_parquet(path), rows)
        out["ok"] = True
        return out
    # each contender --repeat times, in rounds (in memory, out of core, dask-ml), the median
    # reported: the first run of each pays one-off costs (imports and caches on the workers,
    # the files' first reads) that would otherwise fall on whichever runs first
    times = {"read": [], "mem": [], "ooc": [], "peer": []}
    for _ in range(args.repeat):
        df, t_read = timed(lambda: pd.read_parquet(path))
        mem, t_mem = timed(lambda: fm.maxent(FORMULA, df))
        ddf = dd.read_parquet(path)
        ooc, t_ooc = timed(lambda: fm.maxent(FORMULA, ddf))
        peer, t_peer = timed(lambda: dask_ml_fit(path))
        for key, t in zip(times, (t_read, t_mem, t_ooc, t_peer)):
            times[key].append(t)
    print("  runs (s): " + "; ".join(f"{k} " + ", ".join(f"{t:.2f}" for t in v)
                                     for k, v in times.items()), flush=True)
    t_read, t_mem, t_ooc, t_peer = (float(np.median(v)) for v in times.values())
    end_mem = float(np.median(np.add(times["read"], times["mem"])))
    coef_diff = rel(ooc.params, mem.params)
    peer_diff = rel(peer, mem.params.to_numpy())
    rows.append(["maxent from parquet: in memory (read + fit)", f"{end_mem:.2f}", "1.00x",
                 f"read {t_read:.2f} s + fit {t_mem:.2f} s", ""])
    rows.append(["maxent from parquet: out of core", f"{t_ooc:.2f}",
                 f"{t_ooc / end_mem:.2f}x", f"{ooc.core_fit.passes} IRLS passes; "
                 f"coef diff {coef_diff:.1e}",
                 "PASS" if t_ooc <= 2 * end_mem and coef_diff <= 1e-8 else "FAIL"])
    rows.append(["dask-ml LogisticRegression(newton)", f"{t_peer:.2f}",
                 f"{t_peer / end_mem:.2f}x", f"coef diff {peer_diff:.1e}; fmstats/dask-ml "
                 f"{t_ooc / t_peer:.2f}x", "PASS" if t_ooc <= t_peer else "FAIL"])
    if args.maxent_only:
        out["ok"] = True
        return out
    # 2. fmaxent's default covariance
    fmem, t_fmem = timed(lambda: fm.fmaxent(FORMULA, df, beta=2))
    fooc, t_fooc = timed(lambda: fm.fmaxent(FORMULA, ddf, beta=2))
    se_diff = rel(fooc.bse, fmem.bse)
    rows.append([f"fmaxent default ({fooc.cov_type}): in memory", f"{t_fmem:.2f}", "1.00x",
                 f"SEs read: {fmem.bse.iloc[0]:.4g} ...", ""])
    rows.append([f"fmaxent default ({fooc.cov_type}): out of core", f"{t_fooc:.2f}",
                 f"{t_fooc / t_fmem:.2f}x", f"SE diff {se_diff:.1e}",
                 "PASS" if fooc.cov_type == fmem.cov_type and se_diff <= 1e-6 else "FAIL"])
    # 3. bootstrap
    B = args.B
    bmem, t_bmem = timed(lambda: fm.bootstrap(mem, B=B, random_state=1, mc_tol=None, ci=False))
    booc, t_booc = timed(lambda: fm.bootstrap(ooc, B=B, data=ddf, random_state=1, mc_tol=None,
                                              ci=False))
    terms = list(mem.params.index)
    mc = np.sqrt(bmem.mc_error()["se_mc"][terms] ** 2 + booc.mc_error()["se_mc"][terms] ** 2)
    z = np.abs(booc.std_error[terms] - bmem.std_error[terms]) / mc
    blb, t_blb = timed(lambda: blb_se(mem, B, seed=2))
    blb_diff = np.abs(blb - bmem.std_error[terms].to_numpy()) / bmem.std_error[terms].to_numpy()
    rows.append([f"bootstrap B = {B}: in memory (multinomial)", f"{t_bmem:.2f}", "1.00x",
                 f"SE MC error <= {float((bmem.mc_error()['se_mc'][terms] / bmem.std_error[terms]).max()):.1%} of SE", ""])
    rows.append([f"bootstrap B = {B}: out of core (Poisson)", f"{t_booc:.2f}",
                 f"{t_booc / t_bmem:.2f}x", f"max |SE diff| / MC error {float(z.max()):.2f}",
                 "PASS" if float(z.max()) <= 3 else "FAIL"])
    rows.append([f"bag of little bootstraps (in memory, s = 5, b = n^0.7)", f"{t_blb:.2f}",
                 f"{t_blb / t_bmem:.2f}x", f"max rel SE diff to in-memory "
                 f"{float(blb_diff.max()):.1%}", ""])
    # 4. tune_threshold
    tooc, t_tooc = timed(lambda: fm.tune_threshold(ooc, ddf, cv=5, random_state=11))
    tmem, t_tmem = timed(lambda: fm.tune_threshold(mem, df, cv=same_folds(len(df))))
    fdiff = abs(tooc.best_score - tmem.best_score)
    rows.append(["tune_threshold cv = 5: in memory (same folds)", f"{t_tmem:.2f}", "1.00x",
                 f"threshold {tmem.threshold:.6g}, CV F1 {tmem.best_score:.5f}", ""])
    rows.append(["tune_threshold cv = 5: out of core", f"{t_tooc:.2f}",
                 f"{t_tooc / t_tmem:.2f}x", f"threshold {tooc.threshold:.6g}; CV F1 diff "
                 f"{fdiff:.1e}; {tooc.search_passes} search passes",
                 "PASS" if fdiff <= 0.005 else "FAIL"])
    # 5. cv_tune
    part_cv_tune(df, ddf, rows)
    out["ok"] = True
    return out


def same_folds(n, k=5, seed=11):
    """The folds of the out-of-core tuning with seed ``seed``, as (train, test) pairs."""
    from fmstats._utils.rowrng import fold_key, row_folds

    fold = row_folds(fold_key(seed), np.arange(n), k)
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)]


def part_cv_tune(df, ddf, rows):
    """Part A, 5: cv_tune of maxent out of core against in memory on the same folds."""
    import fmstats as fm

    grid = {"penalty": [0.0, 10.0, 100.0]}
    what = f"cv_tune maxent, {len(grid['penalty'])} penalties x 5 folds"
    cooc, t_cooc = timed(lambda: fm.cv_tune(fm.maxent, FORMULA, ddf, grid, cv=5,
                                            random_state=11))
    cmem, t_cmem = timed(lambda: fm.cv_tune(fm.maxent, FORMULA, df, grid,
                                            cv=same_folds(len(df))))
    fdiff = float(np.max(np.abs(cooc.tidy()["f"].to_numpy() - cmem.tidy()["f"].to_numpy())))
    same = cooc.best_params == cmem.best_params
    rows.append([f"{what}: in memory (same folds)", f"{t_cmem:.2f}", "1.00x",
                 f"best {cmem.best_params}, CV F1 {cmem.best_score:.5f}", ""])
    rows.append([f"{what}: out of core", f"{t_cooc:.2f}", f"{t_cooc / t_cmem:.2f}x",
                 f"best {cooc.best_params} ({'same' if same else 'DIFFERENT'}); max |CV F1 "
                 f"diff| {fdiff:.1e}", "PASS" if same and fdiff <= 0.005 else "FAIL"])


def part_b(args, base_dir, cluster_kwargs, bytes_per_row):
    import dask.dataframe as dd
    from dask.distributed import Client, LocalCluster

    import fmstats as fm
    from fmstats.glm import _dask as glm_dask

    if args.persist_share is not None:
        glm_dask.PERSIST_SHARE = args.persist_share
    limit = parse_bytes(args.big_worker_memory)
    big_n = int(args.ratio * 2 * limit / bytes_per_row)
    files = max(args.files, int(np.ceil(big_n * bytes_per_row / 64 / 2**20)))
    path = os.path.join(base_dir, "big")
    os.makedirs(path)
    rg = args.big_row_group_rows
    size = write_parquet(big_n, files, args.seed + 1, path, row_group_rows=rg)
    rows = Rows()
    with LocalCluster(**{**cluster_kwargs, "memory_limit": limit}) as cluster, \
            Client(cluster) as client, PeakMemory(client) as peak:
        pids = set(client.run(os.getpid).values())
        ddf = dd.read_parquet(path, split_row_groups=True) if rg else dd.read_parquet(path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit, t_fit = timed(lambda: fm.maxent(FORMULA, ddf))
            ffit, t_ffit = (timed(lambda: fm.fmaxent(FORMULA, ddf, beta=2))
                            if not args.big_maxent_only else (None, 0.0))
        restarted = len(pids - set(client.run(os.getpid).values()))
        maxrss = client.run(_max_rss)
    peaks = ", ".join(f"{v / 2**20:.0f}" for _, v in sorted(peak.peak.items()))
    rss = ", ".join(f"{v / 2**20:.0f}" for _, v in sorted(maxrss.items()))
    memory_warnings = [str(w.message) for w in caught
                       if type(w.message).__name__ == "PartitionMemoryWarning"]
    rows.append([f"B: maxent, {big_n:,} rows in {files} files, {size / 2**20:.0f} MiB = "
                 f"{size / (2 * limit):.2g}x the workers' {2 * limit / 2**20:.0f} MiB",
                 f"{t_fit:.2f}", "", f"{fit.core_fit.passes} IRLS passes", "PASS"])
    if ffit is not None:
        rows.append([f"B: fmaxent default ({ffit.cov_type}), same data", f"{t_ffit:.2f}", "",
                     f"{len(ffit.history) - 1} outer iterations", "PASS"])
    rows.append(["B: peak memory per worker (MiB)", "", "", f"max RSS {rss}; polled {peaks} "
                 f"(limit {limit / 2**20:.0f}); {ddf.npartitions} partitions; workers "
                 f"restarted: {restarted}; PartitionMemoryWarning: "
                 f"{'yes' if memory_warnings else 'no'}",
                 "PASS" if size >= args.ratio * 2 * limit * 0.99 and not restarted
                 else "FAIL" if restarted else "(ratio below the target)"])
    for text in memory_warnings[:1]:
        print(f"  PartitionMemoryWarning: {text}")
    return rows


def _max_rss():
    """This process's peak resident memory (bytes; run on every worker)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def parse_bytes(text) -> int:
    from dask.utils import parse_bytes as parse

    return int(parse(text))


def main():
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=float, default=2e6, help="rows of part A (default 2e6)")
    ap.add_argument("--files", type=int, default=16, help="parquet files (default 16)")
    ap.add_argument("--B", type=int, default=200, help="bootstrap replicates (default 200)")
    ap.add_argument("--worker-memory", default="4GiB", help="part A's memory limit per worker")
    ap.add_argument("--big-worker-memory", default="1GiB",
                    help="part B's memory limit per worker (default 1GiB; the rows are "
                         "chosen so that the data are --ratio times the two workers' total)")
    ap.add_argument("--ratio", type=float, default=2.0,
                    help="part B: data size / the workers' total memory limit (default 2)")
    ap.add_argument("--big-row-group-rows", type=int, default=None,
                    help="part B: row groups of this many rows, read as partitions "
                         "(split_row_groups=True); default one row group per file")
    ap.add_argument("--big-maxent-only", action="store_true", help="part B: maxent only")
    ap.add_argument("--persist-share", type=float, default=None,
                    help="override fmstats.glm.PERSIST_SHARE in part B (a small value "
                         "checks the path of data that are not persisted at a small size)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="part A's maxent rows: runs of each contender, in rounds (median shown)")
    ap.add_argument("--maxent-only", action="store_true",
                    help="part A: the maxent rows only (the speed targets)")
    ap.add_argument("--skip-big", action="store_true", help="part A only")
    ap.add_argument("--cv-tune-only", action="store_true",
                    help="part A: the cv_tune rows only (5)")
    ap.add_argument("--quick", action="store_true", help="n = 2e5, B = 60, no part B")
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--dir", default=None, help="where to write the files (default: a temp dir)")
    args = ap.parse_args()
    if args.quick:
        args.n, args.B, args.skip_big = 2e5, 60, True
    args.n = int(args.n)

    import dask
    from dask.distributed import Client, LocalCluster

    speed = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    print_header(f"bench_dask_workflow: n = {args.n:,} rows x 14 columns in {args.files} "
                 f"parquet files, 2 workers", ["numpy", "pandas", "dask", "distributed",
                                               "dask_ml", "pyarrow", "fmstats"], 1,
                 [f"load average before: {os.getloadavg()}"])
    base = tempfile.mkdtemp(dir=args.dir)
    cluster_kwargs = dict(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None)
    rows = Rows()
    try:
        path = os.path.join(base, "a")
        os.makedirs(path)
        size = write_parquet(args.n, args.files, args.seed, path)
        print(f"part A data: {size / 2**20:.0f} MiB in memory")
        with dask.config.set(speed), \
                LocalCluster(**cluster_kwargs, memory_limit=args.worker_memory) as cluster, \
                Client(cluster) as client:
            part_a(args, path, client, rows)
        if not args.skip_big:
            rows += part_b(args, base, cluster_kwargs, size / args.n)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(format_table(["contender", "seconds", "vs in memory", "detail", "target"], rows))
    print(f"\nload average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
