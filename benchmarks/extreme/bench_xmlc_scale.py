"""Seed 002 at the seed's scale: a label tree, sparse estimates and STO/FTA/OFO on an RCV1-like problem.

``make_extreme_problem`` draws a sparse problem with RCV1's shape (47,236 tf-idf-like
features, 2,456 Zipf labels, ~5 labels and ~79 non-zeros per row).  The defaults are issue
44's shape: 600,000 training rows (80 % for the tree, 20 % for threshold tuning) and
100,000 test rows; ``--scale 0.25`` divides the row counts by 4.

fmstats' pipeline runs once per value of ``--jobs`` (``n_jobs`` of every call), each stage
timed: wall seconds, CPU seconds of the process, an idle-machine estimate of the wall time
(every parallel task's thread CPU time recorded and the stage replayed on ``n_jobs``
workers: on a loaded machine CPU time still says how the work was spread over the threads;
see ``TaskClock``) and the peak resident memory (Linux VmHWM, reset before every stage
through /proc/self/clear_refs):

1. generate the data (once);
2. ``probabilistic_label_tree`` on the tree rows (napkinXC's defaults: balanced 2-means tree
   with pre-leaves of up to 100 labels, C = 10, tol 0.1, and ``weight_threshold=0.1``;
   ``--C``, ``--max-leaves``, ``--tol``, ``--max-iter`` change them);
3. sparse probability estimates of the tuning rows and the test rows at the lower bounds (5)
   of the thresholds (label priors of the tree rows);
4. the section-6 protocol: ``compare_thresholds`` (STO, FTA, OFO over the paper's grid of c)
   and ``select_by_validation`` -> test macro-F of each method;
5. top-5 prediction and the measures at k (P@k, PSP@k with Jain et al.'s propensities,
   macro-F@k) of top-k, block coordinate ascent (test SPE) and Frank-Wolfe (tuning SPE)
   for macro-F@5.  BCA's sweeps are sequential by definition; with ``n_jobs`` >= 2 it runs
   in a thread of its own beside the top-k prediction and Frank-Wolfe (all release the GIL
   in their compiled parts).

With two values of ``--jobs`` (``--jobs 1 2``) the script prints the speed-up of the
second over the first per stage, in wall time and as CPU(first) / idle-machine estimate
(second) -- what the wall-time ratio would be on an otherwise idle machine if no thread
waited for another (an upper bound) -- and checks that both runs computed the same model,
estimates, tables, predictions and measures (digests of the arrays).  Targets (issue 44):
stages 2-5 in <= 12 min at the full shape with ``n_jobs=2``, peak <= 4 GiB, P@1 within 1
point of napkinXC's, and ``n_jobs=2`` >= 1.7x ``n_jobs=1`` on every stage at 1/4 shape.

Then, unless ``--no-napkinxc``:

6. napkinXC (defaults, ``threads=`` the last ``--jobs``) trained on the same rows;
7. napkinXC's top-5 prediction of the test rows (``--peer-test-rows N``: the first N only,
   fmstats' P@k on the same rows beside it);
8. with ``--napkinxc-spe``: napkinXC's SPEs at the same lower bounds (``spe_from_napkinxc``)
   and the same section-6 protocol (napkinXC's thresholded prediction is ~20x slower than
   fmstats' here, so this is off by default).

Everything stays sparse: the largest arrays are X (CSR), the node weights (CSR) and the
SPEs (CSR); no dense n x m array is made.  ``--also`` trains further settings after the
last run and prints, per setting, the training time, P@k and the section-6 test macro-F,
e.g. ``--also C=3 max_leaves=25``.

    # issue 44, on an idle 2-core machine: the speed-ups at 1/4 shape (~15 min)
    PYTHONPATH=. python benchmarks/extreme/bench_xmlc_scale.py --scale 0.25 --jobs 1 2 --no-napkinxc
    # issue 44: the full shape with both cores, against napkinXC with 2 threads (~40 min)
    PYTHONPATH=. python benchmarks/extreme/bench_xmlc_scale.py --jobs 2 --peer-test-rows 20000
    # a quick check of the script (~2 min)
    PYTHONPATH=. python benchmarks/extreme/bench_xmlc_scale.py --scale 0.03 --jobs 1 2 --no-napkinxc
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import (ensure_fmstats_importable, format_table, print_header, set_thread_env,
                     source_fingerprint)

set_thread_env(1, os.environ)
ensure_fmstats_importable()

import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fmstats.extreme import (PAPER_C, bca_macro_at_k, compare_thresholds,  # noqa: E402
                             frank_wolfe_macro_at_k, inverse_propensities, label_priors,
                             macro_f_at_k, make_extreme_problem, precision_at_k,
                             probabilistic_label_tree, psprecision_at_k, select_by_validation,
                             spe_from_napkinxc, spe_top_k, threshold_bounds)

SOURCES = ("fmstats/extreme/_plt.py", "fmstats/extreme/_nodes.py",
           "fmstats/extreme/_training.py", "fmstats/extreme/_synthetic.py",
           "fmstats/extreme/_plugin.py", "fmstats/extreme/_sweeps.py",
           "fmstats/extreme/_counting.py", "fmstats/extreme/_protocol.py",
           "fmstats/extreme/_thresholds.py", "fmstats/extreme/_ofo.py")
TARGET_MIN, TARGET_GIB, TARGET_SPEEDUP = 12.0, 4.0, 1.7


def _status(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024 ** 2     # GiB
    return float("nan")


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


class TaskClock:
    """Thread CPU seconds of every task fmstats runs through ``run_tasks`` (its threads'
    work units: label-tree units, row blocks, (method, c) rows), and of the driving threads.

    :meth:`estimate` replays a stage on an idle machine: each driving thread's own CPU time
    (the serial parts) plus, for each of its parallel calls, the makespan of the calls'
    tasks on ``n_jobs`` workers in dispatch order (an idle worker takes the next task), and
    at least the stage's CPU time divided by the workers.  Waits for the GIL are not in
    it, so it is an upper bound of the speed-up an idle machine shows; on a loaded machine
    it still says how the work was spread over the threads.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.calls: list = []      # (driving thread, workers, [task CPU seconds])
        self.drivers: dict = {}    # driving thread -> its own CPU seconds in the stage

    def install(self) -> None:
        import fmstats.extreme._plt as m_plt
        import fmstats.extreme._plugin as m_plugin
        import fmstats.extreme._protocol as m_protocol
        import fmstats.extreme._training as m_training
        from fmstats._utils.parallel import run_tasks

        def recorded(fn, tasks, *, n_jobs=None, **kw):
            from joblib import effective_n_jobs

            tasks = list(tasks)
            times = [0.0] * len(tasks)

            def timed(i, *a):
                t = time.thread_time()
                out = fn(*a)
                times[i] = time.thread_time() - t
                return out

            out = run_tasks(timed, [(i, *t) for i, t in enumerate(tasks)], n_jobs=n_jobs, **kw)
            with self.lock:
                self.calls.append((threading.get_native_id(), effective_n_jobs(n_jobs), times))
            return out

        for module in (m_plt, m_plugin, m_protocol, m_training):
            module.run_tasks = recorded

    def reset(self) -> None:
        with self.lock:
            self.calls, self.drivers = [], {}

    def driver(self, seconds: float) -> None:
        """Record the calling thread's own CPU seconds in the stage."""
        with self.lock:
            self.drivers[threading.get_native_id()] = seconds

    def estimate(self, cpu: float) -> float:
        """The stage's wall time on an idle machine (see the class docstring)."""
        est, workers = {}, 1
        for tid, own in self.drivers.items():
            est[tid] = own
        for tid, w, times in self.calls:
            workers = max(workers, w)
            if w > 1:               # else the tasks ran in the driving thread (counted)
                est[tid] = est.get(tid, 0.0) + _makespan(times, w)
        return max(max(est.values(), default=0.0), cpu / workers)


def _makespan(times, workers: int) -> float:
    free = [0.0] * workers
    for t in times:
        i = int(np.argmin(free))
        free[i] += t
    return max(free)


CLOCK = TaskClock()


class Stages:
    """The timed stages of one run."""

    def __init__(self, label: str, verbose: bool = True, estimate: bool = True):
        self.label, self.rows, self.verbose, self.estimate = label, [], verbose, estimate

    def __call__(self, name, fn):
        _reset_peak()
        CLOCK.reset()
        t, c, own = time.perf_counter(), time.process_time(), time.thread_time()
        out = fn()
        el, cpu = time.perf_counter() - t, time.process_time() - c
        CLOCK.driver(time.thread_time() - own)
        busy = CLOCK.estimate(cpu) if self.estimate else float("nan")
        self.rows.append(dict(stage=name, wall=el, cpu=cpu, busy=busy, peak=_status("VmHWM"),
                              rss=_status("VmRSS")))
        if self.verbose:
            est = f" (idle-machine estimate {busy:.1f} s)" if self.estimate else ""
            print(f"  [{self.label}] {name}: {el:.1f} s wall, {cpu:.1f} s CPU{est}, peak "
                  f"{_status('VmHWM'):.2f} GiB (load {os.getloadavg()[0]:.1f})", flush=True)
        return out

    def table(self) -> str:
        return format_table(
            ["stage", "wall s", "CPU s", "idle-machine estimate s", "CPU / wall", "peak GiB",
             "RSS GiB after"],
            [[r["stage"], f"{r['wall']:.1f}", f"{r['cpu']:.1f}",
              f"{r['busy']:.1f}" if self.estimate else "-",
              f"{r['cpu'] / max(r['wall'], 1e-9):.2f}", f"{r['peak']:.2f}", f"{r['rss']:.2f}"]
             for r in self.rows])


def digest(*arrays) -> str:
    """A short hash of the bytes of arrays (sparse: their data, indices and pointer)."""
    h = hashlib.blake2b(digest_size=8)
    for a in arrays:
        if sp.issparse(a):
            parts = (a.data, a.indices, a.indptr)
        else:
            parts = (np.asarray(a),)
        for p in parts:
            h.update(np.ascontiguousarray(p).tobytes())
    return h.hexdigest()


def settings(args, **change):
    out = dict(C=args.C, max_leaves=args.max_leaves, tol=args.tol, max_iter=args.max_iter)
    out.update(change)
    return out


def parse_setting(text: str) -> dict:
    out = {}
    for part in text.split(","):
        key, value = part.split("=")
        out[key.strip()] = float(value) if key.strip() in ("C", "tol") else int(value)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=600_000,
                    help="training rows (tree + threshold tuning), before --scale")
    ap.add_argument("--test", type=int, default=100_000, help="test rows, before --scale")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply --n and --test by this (0.25: issue 44's 1/4 shape)")
    ap.add_argument("--tuning-fraction", type=float, default=0.2,
                    help="the share of the training rows kept for threshold tuning")
    ap.add_argument("--features", type=int, default=47_236)
    ap.add_argument("--labels", type=int, default=2_456)
    ap.add_argument("--labels-per-row", type=float, default=5.0)
    ap.add_argument("--draws-per-row", type=int, default=105,
                    help="feature draws per row (~79 distinct non-zeros)")
    ap.add_argument("--signal", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--max-leaves", type=int, default=100)
    ap.add_argument("--tol", type=float, default=0.1)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--jobs", type=int, nargs="+", default=[2],
                    help="fmstats' n_jobs, one run each (e.g. 1 2: the speed-up of the second)")
    ap.add_argument("--no-napkinxc", action="store_true")
    ap.add_argument("--peer-test-rows", type=int, default=None,
                    help="napkinXC's top-5 of only the first N test rows (its prediction is "
                         "slow); P@k of both on those rows")
    ap.add_argument("--napkinxc-spe", action="store_true",
                    help="also napkinXC's SPEs and the section-6 protocol on them (slow)")
    ap.add_argument("--also", nargs="*", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                    help="further settings (C, max_leaves, tol, max_iter) to train and score")
    args = ap.parse_args(argv)
    args.n, args.test = int(round(args.n * args.scale)), int(round(args.test * args.scale))
    print_header("bench_xmlc_scale: seed 002 at an RCV1-like scale", ["numpy", "scipy", "numba",
                                                                      "napkinxc"], 1,
                 [f"source:   {source_fingerprint(SOURCES)}",
                  f"load:     {os.getloadavg()} (1/5/15-min load average before the run)",
                  f"runs:     n_jobs = {args.jobs} (BLAS at 1 thread throughout)"])
    t0 = time.perf_counter()
    CLOCK.install()
    with threadpool_limits(1):
        extra = run(args)
    for line in extra:
        print(line)
    print(f"\nthe whole run: {(time.perf_counter() - t0) / 60:.1f} min wall")
    print(f"load after the run: {os.getloadavg()}")
    return 0


def train(Xtr, Ytr, args, s, n_jobs):
    return probabilistic_label_tree(Xtr, Ytr, weight_threshold=0.1, random_state=args.seed,
                                    n_jobs=n_jobs, progress=False, **s)


def protocol(spe_va, Yva, spe_te, Yte, priors, n_jobs):
    return compare_thresholds(spe_va, Yva, spe_te, Yte, PAPER_C, priors=priors, progress=False,
                              n_jobs=n_jobs)


def macro_f_line(best) -> str:
    return ", ".join(f"{r['method'].upper()} {100 * r['test_macro_f']:.2f} (c = {r['c']:g})"
                     for _, r in best.iterrows() if r["method"] != "fixed")


def pipeline(args, data, n_jobs: int, verbose: bool = True) -> dict:
    """Stages 2-5 with ``n_jobs``: their timings, digests, scores and (for the peer and
    --also) the model, estimates and predictions."""
    Xtr, Ytr, Xva, Yva, Xte, Yte = data
    st = Stages(f"n_jobs={n_jobs}", verbose)
    model = st("2 PLT training", lambda: train(Xtr, Ytr, args, settings(args), n_jobs))
    if verbose:
        print(f"  model: {model}; weights {model.weights.data.nbytes / 2**30:.2f} GiB; "
              f"epochs {int(model.n_iter.sum())} (max {int(model.n_iter.max())})")
    priors = label_priors(Ytr)
    lower = threshold_bounds(priors)[0]
    spe_va, spe_te = st("3 SPEs at the lower bounds", lambda: (
        model.predict_proba_sparse(Xva, lower, n_jobs=n_jobs),
        model.predict_proba_sparse(Xte, lower, n_jobs=n_jobs)))
    if verbose:
        print(f"  SPEs: tuning {spe_va.nnz / spe_va.shape[0]:.1f}, test "
              f"{spe_te.nnz / spe_te.shape[0]:.1f} estimates per row "
              f"({(spe_va.nnz + spe_te.nnz) * 12 / 2**30:.2f} GiB)")
    table = st("4 STO/FTA/OFO over c (section 6)",
               lambda: protocol(spe_va, Yva, spe_te, Yte, priors, n_jobs))
    best = select_by_validation(table)
    q = inverse_propensities(Ytr)

    def scores(pred, Y=Yte):
        pk, psp = precision_at_k(Y, pred, (1, 3, 5)), psprecision_at_k(Y, pred, q, (1, 5))
        return [100 * pk[1], 100 * pk[3], 100 * pk[5], 100 * psp[1], 100 * psp[5],
                100 * macro_f_at_k(Y, pred, 5)]

    def side_bca():
        own = time.thread_time()
        out = bca_macro_at_k(spe_te, 5, n_jobs=1)
        CLOCK.driver(time.thread_time() - own)
        return out

    def at_k():
        with ThreadPoolExecutor(1) as side:
            # BCA's sweeps are sequential: with n_jobs >= 2, a thread of its own
            bca = side.submit(side_bca) if n_jobs > 1 else None
            top = model.predict_topk(Xte, 5, n_jobs=n_jobs)
            fw_fit = frank_wolfe_macro_at_k(spe_va, Yva, 5, n_jobs=n_jobs)
            fw = fw_fit.predict(spe_te, random_state=args.seed, n_jobs=n_jobs)
            preds = {"fmstats top-k (PLT)": top,
                     "fmstats top-k of the SPE": spe_top_k(spe_te, 5, n_jobs=n_jobs),
                     "fmstats BCA macro-F@5": (bca.result() if bca is not None else
                                               bca_macro_at_k(spe_te, 5, n_jobs=1)),
                     "fmstats Frank-Wolfe macro-F@5": fw}
        return preds, fw_fit, {name: scores(p) for name, p in preds.items()}

    preds, fw_fit, measured = st("5 top-5, BCA, Frank-Wolfe, measures", at_k)
    digests = {
        "model": digest(model.weights, model.intercepts, model.n_iter, model.converged,
                        model.tree.label),
        "SPEs": digest(spe_va.matrix, spe_te.matrix),
        "section-6 table": digest(table.drop(columns="method").to_numpy(dtype=float)),
        "top-k, BCA, Frank-Wolfe": digest(*[a for p in preds.values() for a in p],
                                          fw_fit.a, fw_fit.b, fw_fit.p),
        "measures": digest(np.array([v for s in measured.values() for v in s])),
    }
    return dict(stages=st, digests=digests, best=best, measured=measured, model=model,
                spe_va=spe_va, spe_te=spe_te, top=preds["fmstats top-k (PLT)"], lower=lower,
                priors=priors, scores=scores)


def warm_up(args) -> None:
    """Compile (or load from numba's cache) every kernel the stages use, on a tiny problem
    of the same dtypes, so that no stage of the first run pays for it."""
    t = time.perf_counter()
    X, Y = make_extreme_problem(1200, 400, 60, nnz_per_row=30, random_state=0)
    n_fit = 900
    data = (X[:n_fit], Y[:n_fit], X[n_fit:1050], Y[n_fit:1050], X[1050:], Y[1050:])
    quiet = argparse.Namespace(**{**vars(args), "max_leaves": 8})
    for j in sorted(set(args.jobs)):
        pipeline(quiet, data, j, verbose=False)
    print(f"warm-up (compiling or loading the kernels): {time.perf_counter() - t:.1f} s",
          flush=True)


def run(args) -> list[str]:
    warm_up(args)
    n_all = args.n + args.test
    gen = Stages("data")
    X, Y = gen("1 generate", lambda: make_extreme_problem(
        n_all, args.features, args.labels, labels_per_row=args.labels_per_row,
        nnz_per_row=args.draws_per_row, signal=args.signal, random_state=args.seed))
    n_fit = int(round((1.0 - args.tuning_fraction) * args.n))
    print(f"data: X {X.shape}, {X.nnz / n_all:.1f} non-zeros/row, Y {Y.shape[1]} labels, "
          f"{Y.nnz / n_all:.2f} labels/row; X {X.data.nbytes / 2**30:.2f} GiB of values; "
          f"{n_fit} rows for the tree, {args.n - n_fit} for threshold tuning, {args.test} "
          "test rows", flush=True)
    data = (X[:n_fit], Y[:n_fit], X[n_fit:args.n], Y[n_fit:args.n], X[args.n:], Y[args.n:])
    del X, Y
    runs = {}
    for j in args.jobs:
        if runs:
            last = runs[list(runs)[-1]]
            for key in ("model", "spe_va", "spe_te", "top"):
                last[key] = None      # one run's arrays at a time (the peak is per run)
        print(f"\nfmstats, n_jobs={j}:", flush=True)
        runs[j] = pipeline(args, data, j)
    out = report(args, runs)
    last = runs[args.jobs[-1]]
    rows = [[name, *(f"{v:.2f}" for v in vals)] for name, vals in last["measured"].items()]
    if not args.no_napkinxc:
        out += peer(args, data, last, rows)
    out += ["", format_table(["prediction (test rows)", "P@1", "P@3", "P@5", "PSP@1", "PSP@5",
                              "macro-F1@5"], rows)]
    if args.also:
        out += also(args, data, last)
    return out


def report(args, runs: dict) -> list[str]:
    out = []
    for j, r in runs.items():
        st = r["stages"].rows
        wall, cpu = sum(x["wall"] for x in st), sum(x["cpu"] for x in st)
        peak = max(x["peak"] for x in st)
        out += ["", f"fmstats, n_jobs={j}:", r["stages"].table(),
                f"stages 2-5: {wall / 60:.1f} min wall, {cpu / 60:.1f} min CPU (target <= "
                f"{TARGET_MIN:g} min at the full shape with n_jobs=2: "
                f"{'PASS' if wall <= 60 * TARGET_MIN else 'FAIL'}); peak {peak:.2f} GiB "
                f"(target <= {TARGET_GIB:g} GiB: {'PASS' if peak <= TARGET_GIB else 'FAIL'})",
                f"test macro-F1 of the section-6 thresholds: {macro_f_line(r['best'])}"]
    if len(runs) >= 2:
        j1, j2 = args.jobs[0], args.jobs[-1]
        a, b = runs[j1]["stages"].rows, runs[j2]["stages"].rows
        rows = []
        for x, y in zip(a + [_total(a)], b + [_total(b)]):
            sw, sc = x["wall"] / max(y["wall"], 1e-9), x["cpu"] / max(y["busy"], 1e-9)
            rows.append([x["stage"], f"{x['wall']:.1f}", f"{y['wall']:.1f}", f"{sw:.2f}",
                         f"{x['cpu']:.1f}", f"{y['busy']:.1f}", f"{sc:.2f}",
                         "PASS" if sw >= TARGET_SPEEDUP else "FAIL"])
        out += ["", f"speed-up of n_jobs={j2} over n_jobs={j1} (target >= {TARGET_SPEEDUP} "
                    "per stage at 1/4 shape, on an idle machine):",
                format_table(["stage", f"wall s ({j1})", f"wall s ({j2})", "wall ratio",
                              f"CPU s ({j1})", f"idle-machine estimate s ({j2})",
                              "CPU-based estimate", "wall ratio vs target"], rows),
                "(CPU-based estimate: CPU of the first run / the second's wall time replayed "
                "on an idle machine from its tasks' thread CPU times; no wait for the GIL is "
                "in it, so it is an upper bound)"]
        same = {k: all(r["digests"][k] == runs[j1]["digests"][k] for r in runs.values())
                for k in runs[j1]["digests"]}
        out += ["", "identical across n_jobs: " + ", ".join(
            f"{k} {'yes' if v else 'NO'}" for k, v in same.items())]
    return out


def _total(rows) -> dict:
    return dict(stage="stages 2-5", **{k: sum(r[k] for r in rows)
                                       for k in ("wall", "cpu", "busy")})


def peer(args, data, last, rows) -> list[str]:
    from napkinxc.models import PLT

    Xtr, Ytr, Xva, Yva, Xte, Yte = data
    threads = args.jobs[-1]
    st = Stages(f"napkinXC, threads={threads}", estimate=False)   # its threads are its own
    tmp = tempfile.TemporaryDirectory()
    nxc = PLT(tmp.name, threads=threads, seed=args.seed)
    Yf = sp.csr_matrix(Ytr, dtype=np.float32)
    st("6 napkinXC training (defaults)", lambda: nxc.fit(Xtr, Yf))
    nxc.set_params(threads=1)
    few = args.peer_test_rows is not None and args.peer_test_rows < Xte.shape[0]
    Xp, Yp = (Xte[:args.peer_test_rows], Yte[:args.peer_test_rows]) if few else (Xte, Yte)

    def predict():
        pred = nxc.predict(Xp, top_k=5)
        pad = np.full((len(pred), 5), -1, dtype=np.int64)
        for i, r in enumerate(pred):
            pad[i, :len(r)] = r[:5]
        return pad

    pad = st("7 napkinXC top-5 prediction", predict)
    scores = last["scores"]
    p1_ours = last["measured"]["fmstats top-k (PLT)"][0]
    if few:
        vals = scores(last["top"].labels[:Xp.shape[0]], Yp)
        p1_ours = vals[0]
        rows.append([f"fmstats top-k (PLT), first {Xp.shape[0]} rows",
                     *(f"{v:.2f}" for v in vals)])
    theirs = scores(pad, Yp)
    rows.append([f"napkinXC top-k (defaults){f', first {Xp.shape[0]} rows' if few else ''}",
                 *(f"{v:.2f}" for v in theirs)])
    t_ours, t_peer = last["stages"].rows[0], st.rows[0]
    out = ["", st.table(),
           f"training: fmstats {t_ours['wall']:.1f} s wall / {t_ours['cpu']:.1f} s CPU "
           f"(n_jobs={threads}), napkinXC {t_peer['wall']:.1f} s wall / {t_peer['cpu']:.1f} s "
           f"CPU (threads={threads}); fmstats / napkinXC = "
           f"{t_ours['wall'] / t_peer['wall']:.2f}x wall, "
           f"{t_ours['cpu'] / t_peer['cpu']:.2f}x CPU",
           f"P@1: fmstats {p1_ours:.2f}, napkinXC {theirs[0]:.2f} (target: within 1 point: "
           f"{'PASS' if abs(p1_ours - theirs[0]) <= 1.0 else 'FAIL'})"]
    if args.napkinxc_spe:
        d, m = Xtr.shape[1], Ytr.shape[1]
        lower, priors = last["lower"], last["priors"]

        def spes_and_protocol():
            sva = spe_from_napkinxc(nxc, Xva, lower, n_features=d, n_labels=m)
            ste = spe_from_napkinxc(nxc, Xte, lower, n_features=d, n_labels=m)
            return select_by_validation(protocol(sva, Yva, ste, Yte, priors, threads))

        best_p = st("8 napkinXC SPEs + STO/FTA/OFO", spes_and_protocol)
        out.append(f"napkinXC, test macro-F1 of the section-6 thresholds: "
                   f"{macro_f_line(best_p)}")
    tmp.cleanup()
    return out


def also(args, data, last) -> list[str]:
    """Further settings: training time, P@k, section-6 test macro-F (the last run's n_jobs)."""
    Xtr, Ytr, Xva, Yva, Xte, Yte = data
    j = args.jobs[-1]
    lower, priors = last["lower"], last["priors"]
    table = []

    def row(s, t, p, best):
        mf = {r["method"]: 100 * r["test_macro_f"] for _, r in best.iterrows()}
        table.append([", ".join(f"{k}={v:g}" for k, v in s.items()), f"{t[0]:.1f}",
                      f"{t[1]:.1f}", *(f"{v:.2f}" for v in p),
                      *(f"{mf[m]:.2f}" for m in ("sto", "fta", "ofo"))])

    t0 = last["stages"].rows[0]
    row(settings(args), (t0["wall"], t0["cpu"]), last["measured"]["fmstats top-k (PLT)"][:3],
        last["best"])
    for text in args.also:
        s = settings(args, **parse_setting(text))
        t = time.perf_counter(), time.process_time()
        model = train(Xtr, Ytr, args, s, j)
        t = time.perf_counter() - t[0], time.process_time() - t[1]
        best = select_by_validation(protocol(
            model.predict_proba_sparse(Xva, lower, n_jobs=j), Yva,
            model.predict_proba_sparse(Xte, lower, n_jobs=j), Yte, priors, j))
        pk = precision_at_k(Yte, model.predict_topk(Xte, 5, n_jobs=j), (1, 3, 5))
        row(s, t, [100 * pk[k] for k in (1, 3, 5)], best)
        print(f"  setting {text}: trained in {t[1]:.1f} s CPU", flush=True)
    return ["", f"settings (n_jobs={j}; test rows; STO/FTA/OFO: test macro-F1 at the c chosen "
            "on validation):", format_table(["setting", "train s", "train CPU s", "P@1", "P@3",
                                             "P@5", "STO", "FTA", "OFO"], table)]


if __name__ == "__main__":
    raise SystemExit(main())
