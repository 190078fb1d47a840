"""Seed 002 at the seed's scale: a label tree, sparse estimates and STO/FTA/OFO on an RCV1-like problem.

``make_extreme_problem`` draws a sparse problem with RCV1's shape (seed 002: 623,847
training rows, 47,236 features, 2,456 labels; ~5 labels and ~75 non-zeros per row by
default here).  Stages, each timed (wall and CPU seconds) with its peak resident memory
(Linux: VmHWM, reset before every stage through /proc/self/clear_refs):

1. generate the data (train = the first ``--n`` rows, test = the next ``--test``);
2. fmstats ``probabilistic_label_tree`` on 90 % of the training rows (napkinXC's defaults:
   balanced 2-means tree with pre-leaves of up to 100 labels, C = 10, tol 0.1, and
   ``weight_threshold=0.1``; ``--C``, ``--max-leaves``, ``--tol``, ``--max-iter`` change
   them);
3. sparse probability estimates of the 10 % validation rows and of the test rows at the
   lower bounds (5) of the thresholds (label priors of the training rows);
4. the section-6 protocol: ``compare_thresholds`` (STO, FTA, OFO over the paper's grid of c)
   and ``select_by_validation`` -> test macro-F of each method;
5. top-5 prediction and the measures at k (P@k, PSP@k with Jain et al.'s propensities,
   macro-F@k) of top-k, block coordinate ascent (test SPE) and Frank-Wolfe (validation
   SPE) for macro-F@5;
6. napkinXC (defaults, ``threads=--n-jobs``) trained on the same rows;
7. napkinXC's top-5 prediction of the test rows (``--peer-test-rows N``: the first N only,
   fmstats' P@k on the same rows beside it);
8. with ``--napkinxc-spe``: napkinXC's SPEs at the same lower bounds (``spe_from_napkinxc``)
   and the same section-6 protocol, so both models' macro-F are compared (napkinXC's
   thresholded prediction is ~20x slower than fmstats' here, so this is off by default).

The 20-minute target is for fmstats' pipeline (stages 1-5); the run's total, napkinXC
included, is printed too.  Everything stays sparse: the largest arrays are X (CSR), the node
weights (CSR) and the SPEs (CSR); no dense n x m array is made (the memory column says so).

``--also`` trains further settings after stage 5 and prints, per setting, the training time,
P@k and the section-6 test macro-F (the measurements behind the defaults), e.g.
``--also C=3 C=1 max_leaves=25 max_leaves=1``.

    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py                 # RCV1-like, long
    # the issue-28 run: 601,200 training rows for the PLT (90 % of --n), ~64 min with napkinXC
    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py --n 668000 --peer-test-rows 20000
    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py --n 62385 --test 15596   # 1/10
    PYTHONPATH=. python benchmarks/bench_xmlc_scale.py --n-jobs 2 --peer-test-rows 20000
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
                             spe_from_napkinxc, spe_top_k, threshold_bounds)

SOURCES = ("fmstats/extreme/_plt.py", "fmstats/extreme/_nodes.py",
           "fmstats/extreme/_synthetic.py", "fmstats/extreme/_plugin.py",
           "fmstats/extreme/_sweeps.py")


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
    STAGES.append([name, el, cpu, _status("VmHWM"), _status("VmRSS")])
    print(f"  {name}: {el:.1f} s wall, {cpu:.1f} s CPU, peak {_status('VmHWM'):.2f} GiB "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    return out, (el, cpu)


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
    ap.add_argument("--n", type=int, default=623_847, help="training rows")
    ap.add_argument("--test", type=int, default=155_962, help="test rows")
    ap.add_argument("--features", type=int, default=47_236)
    ap.add_argument("--labels", type=int, default=2_456)
    ap.add_argument("--labels-per-row", type=float, default=5.0)
    ap.add_argument("--draws-per-row", type=int, default=105,
                    help="feature draws per row (~75 distinct non-zeros)")
    ap.add_argument("--signal", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--max-leaves", type=int, default=100)
    ap.add_argument("--tol", type=float, default=0.1)
    ap.add_argument("--max-iter", type=int, default=100)
    ap.add_argument("--n-jobs", type=int, default=1,
                    help="fmstats' training threads and napkinXC's threads")
    ap.add_argument("--no-napkinxc", action="store_true")
    ap.add_argument("--peer-test-rows", type=int, default=None,
                    help="napkinXC's top-5 of only the first N test rows (its prediction is "
                         "slow); P@k of both on those rows")
    ap.add_argument("--napkinxc-spe", action="store_true",
                    help="also napkinXC's SPEs and the section-6 protocol on them (slow)")
    ap.add_argument("--also", nargs="*", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                    help="further settings (C, max_leaves, tol, max_iter) to train and score")
    args = ap.parse_args(argv)
    print_header("bench_xmlc_scale: seed 002 at an RCV1-like scale", ["numpy", "scipy", "numba",
                                                                      "napkinxc"], 1,
                 [f"source:   {source_fingerprint(SOURCES)}",
                  f"load:     {os.getloadavg()} (1/5/15-min load average before the run)"])
    t0 = time.perf_counter()
    with threadpool_limits(1):
        extra = run(args)
    total = time.perf_counter() - t0
    print()
    print(format_table(["stage", "wall s", "CPU s", "peak GiB (stage)", "RSS GiB after"],
                       [[r[0], f"{r[1]:.1f}", f"{r[2]:.1f}", f"{r[3]:.2f}", f"{r[4]:.2f}"]
                        for r in STAGES]))
    ours = [r for r in STAGES if r[0][0] in "12345"]
    t_ours, c_ours = sum(r[1] for r in ours), sum(r[2] for r in ours)
    print(f"\nfmstats' pipeline (stages 1-5): {t_ours / 60:.1f} min wall, {c_ours / 60:.1f} min "
          f"CPU (target <= 20 min): {'PASS' if t_ours <= 1200 else 'FAIL'}; peak memory "
          f"{max(r[3] for r in ours):.2f} GiB (target <= 8 GiB): "
          f"{'PASS' if max(r[3] for r in ours) <= 8 else 'FAIL'}")
    print(f"the whole run: {total / 60:.1f} min wall, peak {max(r[3] for r in STAGES):.2f} GiB")
    for line in extra:
        print(line)
    print(f"load after the run: {os.getloadavg()}")
    return 0


def train(Xtr, Ytr, args, s):
    return probabilistic_label_tree(Xtr, Ytr, weight_threshold=0.1, random_state=args.seed,
                                    n_jobs=args.n_jobs, progress=False, **s)


def protocol(spe_va, Yva, spe_te, Yte, priors):
    return select_by_validation(compare_thresholds(spe_va, Yva, spe_te, Yte, PAPER_C,
                                                   priors=priors, progress=False))


def macro_f_line(best) -> str:
    return ", ".join(f"{r['method'].upper()} {100 * r['test_macro_f']:.2f} (c = {r['c']:g})"
                     for _, r in best.iterrows() if r["method"] != "fixed")


def run(args) -> list[str]:
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
    s0 = settings(args)
    model, t_ours = stage("2 fmstats PLT training", lambda: train(Xtr, Ytr, args, s0))
    print(f"model: {model}; weights {model.weights.data.nbytes / 2**30:.2f} GiB; epochs "
          f"{int(model.n_iter.sum())} (max {int(model.n_iter.max())})")
    priors = label_priors(Ytr)
    lower = threshold_bounds(priors)[0]
    (spe_va, spe_te), _ = stage("3 SPEs at the lower bounds", lambda: (
        model.predict_proba_sparse(Xva, lower), model.predict_proba_sparse(Xte, lower)))
    print(f"SPEs: validation {spe_va.nnz / spe_va.shape[0]:.1f}, test "
          f"{spe_te.nnz / spe_te.shape[0]:.1f} estimates per row "
          f"({(spe_va.nnz + spe_te.nnz) * 12 / 2**30:.2f} GiB)")
    best, _ = stage("4 STO/FTA/OFO over c (section 6)",
                    lambda: protocol(spe_va, Yva, spe_te, Yte, priors))
    print(best[["method", "c", "valid_macro_f", "test_macro_f"]].round(4).to_string(index=False))
    q = inverse_propensities(Ytr)

    def scores(pred, Y=Yte):
        pk, psp = precision_at_k(Y, pred, (1, 3, 5)), psprecision_at_k(Y, pred, q, (1, 5))
        return [f"{100 * pk[1]:.2f}", f"{100 * pk[3]:.2f}", f"{100 * pk[5]:.2f}",
                f"{100 * psp[1]:.2f}", f"{100 * psp[5]:.2f}",
                f"{100 * macro_f_at_k(Y, pred, 5):.2f}"]

    def at_k():
        top = model.predict_topk(Xte, 5)
        bca = bca_macro_at_k(spe_te, 5)
        fw = frank_wolfe_macro_at_k(spe_va, Yva, 5).predict(spe_te, random_state=args.seed)
        rows = [[name, *scores(pred)] for name, pred in (
            ("fmstats top-k (PLT)", top), ("fmstats top-k of the SPE", spe_top_k(spe_te, 5)),
            ("fmstats BCA macro-F@5", bca), ("fmstats Frank-Wolfe macro-F@5", fw))]
        return top, rows

    (top, rows), _ = stage("5 top-5, BCA, Frank-Wolfe, measures", at_k)
    out = [f"fmstats, test macro-F1 of the section-6 thresholds: {macro_f_line(best)}"]
    if not args.no_napkinxc:
        out += peer(args, Xtr, Ytr, Xva, Yva, Xte, Yte, lower, priors, t_ours, rows, scores,
                    top)
    print()
    print(format_table(["prediction", "P@1", "P@3", "P@5", "PSP@1", "PSP@5", "macro-F1@5"],
                       rows))
    if args.also:
        out += also(args, Xtr, Ytr, Xva, Yva, Xte, Yte, lower, priors, s0, t_ours, top, best)
    return out


def peer(args, Xtr, Ytr, Xva, Yva, Xte, Yte, lower, priors, t_ours, rows, scores, top):
    from napkinxc.models import PLT

    tmp = tempfile.TemporaryDirectory()
    nxc = PLT(tmp.name, threads=args.n_jobs, seed=args.seed)
    Yf = sp.csr_matrix(Ytr, dtype=np.float32)
    _, t_peer = stage("6 napkinXC training (defaults)", lambda: nxc.fit(Xtr, Yf))
    nxc.set_params(threads=1)

    few = args.peer_test_rows is not None and args.peer_test_rows < Xte.shape[0]
    Xp, Yp = (Xte[:args.peer_test_rows], Yte[:args.peer_test_rows]) if few else (Xte, Yte)

    def predict():
        pred = nxc.predict(Xp, top_k=5)
        pad = np.full((len(pred), 5), -1, dtype=np.int64)
        for i, r in enumerate(pred):
            pad[i, :len(r)] = r[:5]
        return pad

    pad, _ = stage("7 napkinXC top-5 prediction", predict)
    if few:
        rows.append([f"fmstats top-k (PLT), first {Xp.shape[0]} rows",
                     *scores(top.labels[:Xp.shape[0]], Yp)])
    rows.append([f"napkinXC top-k (defaults){f', first {Xp.shape[0]} rows' if few else ''}",
                 *scores(pad, Yp)])
    out = [f"training: fmstats {t_ours[0]:.1f} s wall / {t_ours[1]:.1f} s CPU, napkinXC "
           f"{t_peer[0]:.1f} s wall / {t_peer[1]:.1f} s CPU ({args.n_jobs} thread(s) each); "
           f"fmstats / napkinXC = {t_ours[0] / t_peer[0]:.2f}x wall, "
           f"{t_ours[1] / t_peer[1]:.2f}x CPU"]
    if args.napkinxc_spe:
        d, m = Xtr.shape[1], Ytr.shape[1]

        def spes_and_protocol():
            sva = spe_from_napkinxc(nxc, Xva, lower, n_features=d, n_labels=m)
            ste = spe_from_napkinxc(nxc, Xte, lower, n_features=d, n_labels=m)
            return protocol(sva, Yva, ste, Yte, priors)

        best_p, _ = stage("8 napkinXC SPEs + STO/FTA/OFO", spes_and_protocol)
        out.append(f"napkinXC, test macro-F1 of the section-6 thresholds: "
                   f"{macro_f_line(best_p)}")
    tmp.cleanup()
    return out


def also(args, Xtr, Ytr, Xva, Yva, Xte, Yte, lower, priors, s0, t_ours, top, best):
    """The defaults and further settings: training time, P@k, section-6 test macro-F."""
    table = []

    def row(s, t, pred, b):
        pk = precision_at_k(Yte, pred, (1, 3, 5))
        mf = {r["method"]: 100 * r["test_macro_f"] for _, r in b.iterrows()}
        table.append([", ".join(f"{k}={v:g}" for k, v in s.items()), f"{t[0]:.1f}",
                      f"{t[1]:.1f}", *(f"{100 * pk[k]:.2f}" for k in (1, 3, 5)),
                      *(f"{mf[m]:.2f}" for m in ("sto", "fta", "ofo"))])

    row(s0, t_ours, top, best)
    for text in args.also:
        s = settings(args, **parse_setting(text))
        t = time.perf_counter(), time.process_time()
        model = train(Xtr, Ytr, args, s)
        t = time.perf_counter() - t[0], time.process_time() - t[1]
        b = protocol(model.predict_proba_sparse(Xva, lower), Yva,
                     model.predict_proba_sparse(Xte, lower), Yte, priors)
        row(s, t, model.predict_topk(Xte, 5), b)
        print(f"  setting {text}: trained in {t[1]:.1f} s CPU", flush=True)
    return ["", "settings (test rows; STO/FTA/OFO: test macro-F1 at the c chosen on "
            "validation):", format_table(["setting", "train s", "train CPU s", "P@1", "P@3",
                                          "P@5", "STO", "FTA", "OFO"], table)]


if __name__ == "__main__":
    raise SystemExit(main())
