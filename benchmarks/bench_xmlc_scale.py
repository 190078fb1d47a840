"""Seed 002 at the seed's scale: a label tree, sparse estimates and STO/FTA/OFO on an RCV1-like problem.

``make_extreme_problem`` draws a sparse problem with RCV1's shape (seed 002: 623,847
training rows, 47,236 features, 2,456 labels; ~5 labels and ~75 non-zeros per row by
default here).  Stages, each timed with its peak resident memory (Linux: VmHWM, reset
before every stage through /proc/self/clear_refs):

1. generate the data (train = the first ``--n`` rows, test = the next ``--test``);
2. fmstats ``probabilistic_label_tree`` on 90 % of the training rows (defaults: balanced
   k-means tree, C = 10; ``weight_threshold=0.1`` as napkinXC's default);
3. sparse probability estimates of the 10 % validation rows and of the test rows at the
   lower bounds (5) of the thresholds (label priors of the training rows);
4. the section-6 protocol: ``compare_thresholds`` (STO, FTA, OFO over the paper's grid of c)
   and ``select_by_validation`` -> test macro-F of each method;
5. top-5 prediction and the measures at k (P@k, PSP@k with Jain et al.'s propensities,
   macro-F@k) of top-k, block coordinate ascent (test SPE) and Frank-Wolfe (validation
   SPE) for macro-F@5;
6. napkinXC (defaults, one thread) on the same training rows: training time and P@k; the
   training-time ratio printed.

Everything stays sparse: the largest arrays are X (CSR), the node weights (CSR) and the
SPEs (CSR); no dense n x m array is made (the memory column says so).

    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py                 # RCV1-like, long
    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py --n 60000 --test 15000
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

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
                             spe_top_k, threshold_bounds)

SOURCES = ("fmstats/extreme/_plt.py", "fmstats/extreme/_nodes.py",
           "fmstats/extreme/_synthetic.py", "fmstats/extreme/_plugin.py")


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


STAGES: list[list] = []


def stage(name, fn):
    _reset_peak()
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    el, cpu = time.perf_counter() - t, time.process_time() - c
    STAGES.append([name, f"{el:.1f}", f"{cpu:.1f}", f"{_status('VmHWM'):.2f}",
                   f"{_status('VmRSS'):.2f}"])
    print(f"  {name}: {el:.1f} s wall, {cpu:.1f} s CPU, peak {_status('VmHWM'):.2f} GiB",
          flush=True)
    return out, (el, cpu)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=623_847, help="training rows")
    ap.add_argument("--test", type=int, default=155_962, help="test rows")
    ap.add_argument("--features", type=int, default=47_236)
    ap.add_argument("--labels", type=int, default=2_456)
    ap.add_argument("--labels-per-row", type=float, default=5.0)
    ap.add_argument("--draws-per-row", type=int, default=105,
                    help="feature draws per row (~75 distinct non-zeros)")
    ap.add_argument("--signal", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-napkinxc", action="store_true")
    args = ap.parse_args(argv)
    print_header("bench_xmlc_scale: seed 002 at an RCV1-like scale", ["numpy", "scipy", "numba",
                                                                      "napkinxc"], 1,
                 [f"source:   {source_fingerprint(SOURCES)}",
                  f"load:     {os.getloadavg()} (1/5/15-min load average before the run)"])
    t0 = time.perf_counter()
    with threadpool_limits(1):
        run(args)
    total = time.perf_counter() - t0
    print()
    print(format_table(["stage", "wall s", "CPU s", "peak GiB (stage)", "RSS GiB after"],
                       STAGES))
    print(f"\ntotal {total / 60:.1f} min (target <= 20 min): "
          f"{'PASS' if total <= 1200 else 'FAIL'}; peak memory "
          f"{max(float(r[3]) for r in STAGES):.2f} GiB (target <= 8 GiB)")
    print(f"load after the run: {os.getloadavg()}")
    return 0


def run(args):
    n_all = args.n + args.test
    (X, Y), _ = stage("1 generate", lambda: make_extreme_problem(
        n_all, args.features, args.labels, labels_per_row=args.labels_per_row,
        nnz_per_row=args.draws_per_row, signal=args.signal, random_state=args.seed))
    print(f"data: X {X.shape}, {X.nnz / n_all:.1f} non-zeros/row, Y {Y.shape[1]} labels, "
          f"{Y.nnz / n_all:.2f} labels/row; X {X.data.nbytes / 2**30:.2f} GiB of values")
    n_fit = int(0.9 * args.n)
    Xtr, Ytr = X[:n_fit], Y[:n_fit]
    Xva, Yva = X[n_fit:args.n], Y[n_fit:args.n]
    Xte, Yte = X[args.n:], Y[args.n:]
    model, t_ours = stage("2 fmstats PLT training", lambda: probabilistic_label_tree(
        Xtr, Ytr, weight_threshold=0.1, random_state=args.seed, n_jobs=1, progress=False))
    print(f"model: {model}; weights {model.weights.data.nbytes / 2**30:.2f} GiB")
    priors = label_priors(Ytr)
    lower = threshold_bounds(priors)[0]
    (spe_va, spe_te), _ = stage("3 SPEs at the lower bounds", lambda: (
        model.predict_proba_sparse(Xva, lower), model.predict_proba_sparse(Xte, lower)))
    print(f"SPEs: validation {spe_va.nnz / spe_va.shape[0]:.1f}, test "
          f"{spe_te.nnz / spe_te.shape[0]:.1f} estimates per row")
    (table, best), _ = stage("4 STO/FTA/OFO over c (section 6)", lambda: (lambda t: (
        t, select_by_validation(t)))(compare_thresholds(spe_va, Yva, spe_te, Yte, PAPER_C,
                                                        priors=priors, progress=False)))
    print(best[["method", "c", "valid_macro_f", "test_macro_f"]].round(4).to_string(index=False))
    q = inverse_propensities(Ytr)

    def at_k():
        top = model.predict_topk(Xte, 5)
        bca = bca_macro_at_k(spe_te, 5)
        fw = frank_wolfe_macro_at_k(spe_va, Yva, 5).predict(spe_te, random_state=args.seed)
        rows = []
        for name, pred in (("top-k (PLT)", top), ("top-k of the SPE", spe_top_k(spe_te, 5)),
                           ("BCA macro-F@5", bca), ("Frank-Wolfe macro-F@5", fw)):
            pk, psp = precision_at_k(Yte, pred, (1, 5)), psprecision_at_k(Yte, pred, q, (1, 5))
            rows.append([name, f"{100 * pk[1]:.2f}", f"{100 * pk[5]:.2f}",
                         f"{100 * psp[1]:.2f}", f"{100 * psp[5]:.2f}",
                         f"{100 * macro_f_at_k(Yte, pred, 5):.2f}"])
        return top, rows

    (top, rows), _ = stage("5 top-5, BCA, Frank-Wolfe, measures", at_k)
    print(format_table(["prediction", "P@1", "P@5", "PSP@1", "PSP@5", "macro-F1@5"], rows))
    for method in ("sto", "fta", "ofo"):
        r = best[best["method"] == method].iloc[0]
        print(f"  thresholds {method.upper()} (c = {r['c']:g}): test macro-F1 "
              f"{100 * r['test_macro_f']:.2f} (no k)")
    if args.no_napkinxc:
        return
    from napkinxc.models import PLT

    def peer():
        with tempfile.TemporaryDirectory() as tmp:
            nxc = PLT(tmp, threads=1, seed=args.seed)
            t, c = time.perf_counter(), time.process_time()
            nxc.fit(Xtr, sp.csr_matrix(Ytr, dtype=np.float32))
            fit_s = (time.perf_counter() - t, time.process_time() - c)   # in this process
            pred = nxc.predict(Xte, top_k=5)
        pad = np.full((len(pred), 5), -1, dtype=np.int64)
        for i, r in enumerate(pred):
            pad[i, :len(r)] = r[:5]
        return fit_s, pad

    (t_peer, pad), _ = stage("6 napkinXC training + top-5 (defaults)", peer)
    pk_o, pk_p = precision_at_k(Yte, top, (1, 5)), precision_at_k(Yte, pad, (1, 5))
    print(f"training, one thread: fmstats {t_ours[0]:.1f} s wall / {t_ours[1]:.1f} s CPU, "
          f"napkinXC {t_peer[0]:.1f} s wall / {t_peer[1]:.1f} s CPU; ratio "
          f"{t_ours[0] / t_peer[0]:.2f}x wall, {t_ours[1] / t_peer[1]:.2f}x CPU; P@1 "
          f"{100 * pk_o[1]:.2f} vs {100 * pk_p[1]:.2f}, "
          f"P@5 {100 * pk_o[5]:.2f} vs {100 * pk_p[5]:.2f}")


if __name__ == "__main__":
    raise SystemExit(main())
