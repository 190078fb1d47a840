"""Probabilistic label trees on the bundled debtags data (seed 002, sections 5-6).

An 80/20 split of ``load_debtags()`` (30,300 packages, 581 tags, 2^18 hashed features),
seeded.  fmstats' ``plt`` is trained on the 80 % (wall time, ``n_jobs`` workers; target:
under 10 minutes on 2 cores) and scored on the 20 %: P@1/3/5 from ``predict_topk`` and the
test time per example of top-5 prediction (both methods), of threshold pruning
(``predict_proba_sparse``) and of exhaustive marginals.

If napkinXC (PyPI ``napkinxc``) is installed, its PLT is trained and scored on the same split
in the same run, twice: with its defaults (hierarchical balanced k-means tree, arity 2,
at most 100 labels per pre-leaf node, liblinear C = 10, weights below 0.1 pruned), and with
fmstats' tree passed as ``tree_structure`` and the same C with no weight pruning
(a near like-for-like model: liblinear penalises its bias feature, fmstats does not).
Ratios are fmstats / napkinXC (P@k: > 1 is better for fmstats; time: > 1 is slower).
Prediction runs single-threaded for both.  The machine is shared, so times are noisy; the
load average is printed.

    PYTHONPATH=. python benchmarks/bench_plt.py                 # full split, n_jobs = 2
    PYTHONPATH=. python benchmarks/bench_plt.py --quick         # 6,000 packages
    PYTHONPATH=. python benchmarks/bench_plt.py --C 4 --arity 4 --tree balanced-kmeans
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

from _common import (ensure_fmstats_importable, format_table, print_header, set_thread_env,
                     source_fingerprint)

set_thread_env(1, os.environ)  # BLAS/OpenMP: one thread (parallelism comes from n_jobs)
ensure_fmstats_importable()

import numpy as np  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

from fmstats.datasets import load_debtags  # noqa: E402
from fmstats.extreme.plt import plt, precision_at_k  # noqa: E402

SOURCES = ("fmstats/extreme/plt.py",)


def split(n: int, seed: int, quick: bool):
    perm = np.random.default_rng(seed).permutation(n)
    if quick:
        perm = perm[:6000]
    cut = int(0.8 * perm.size)
    return np.sort(perm[:cut]), np.sort(perm[cut:])


def clock(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def pad(rows, k):
    out = np.full((len(rows), k), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r[:k]
    return out


def run_napkinxc(name, Xtr, Ytr, Xte, Yte, n_jobs, **params):
    import scipy.sparse as sp
    from napkinxc.models import PLT

    Ytr = sp.csr_matrix(Ytr, dtype=np.float32)  # napkinXC reads float32/float64 CSR only
    with tempfile.TemporaryDirectory() as tmp:
        model = PLT(tmp, threads=n_jobs, seed=0, **params)
        _, t_train = clock(lambda: model.fit(Xtr, Ytr))
        model.set_params(threads=1)
        top, t_top = clock(lambda: model.predict(Xte, top_k=5))
        _, t_thr = clock(lambda: model.predict_proba(Xte, threshold=0.1))
    return {"name": name, "train": t_train, "pk": precision_at_k(Yte, pad(top, 5)),
            "top5": t_top / Xte.shape[0], "thr": t_thr / Xte.shape[0], "top": top}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--arity", type=int, default=2)
    ap.add_argument("--tree", default="random", choices=("random", "balanced-kmeans"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-napkinxc", action="store_true")
    args = ap.parse_args(argv)

    print_header("PLT on debtags: fmstats vs napkinXC", ["numpy", "scipy", "joblib", "napkinxc"],
                 1, [f"source:   {source_fingerprint(SOURCES)}",
                     f"load:     {os.getloadavg()} (1/5/15-min load average before the run)"])
    X, Y, labels, _ = load_debtags()
    tr, te = split(X.shape[0], args.seed, args.quick)
    Xtr, Ytr, Xte, Yte = X[tr], Y[tr], X[te], Y[te]
    print(f"split: {tr.size} train / {te.size} test packages, {Y.shape[1]} labels, seed {args.seed}")

    model, t_train = clock(lambda: plt(Xtr, Ytr, arity=args.arity, tree=args.tree, C=args.C,
                                       random_state=args.seed, n_jobs=args.n_jobs,
                                       progress=False))
    print(f"fmstats: {model}")
    print(f"         training {t_train:.1f} s wall with n_jobs={args.n_jobs} "
          f"(target < 600 s); Newton iterations {int(model.n_iter.sum())} in all")
    rows = []
    with threadpool_limits(1):
        top, t_top = clock(lambda: model.predict_topk(Xte, 5))
        _, t_heap = clock(lambda: model.predict_topk(Xte, 5, method="heap"))
        spe, t_thr = clock(lambda: model.predict_proba_sparse(Xte, 0.1))
        _, t_all = clock(lambda: model.predict_marginals(Xte))
    pk = precision_at_k(Yte, top)
    ms = 1000.0 / te.size
    print(f"         top-5 per example: {t_top * ms:.3f} ms (threshold method), "
          f"{t_heap * ms:.3f} ms (priority queue); threshold 0.1: {t_thr * ms:.3f} ms "
          f"({spe.nnz / te.size:.2f} labels per example); exhaustive: {t_all * ms:.3f} ms")
    rows.append(["fmstats plt", f"{t_train:.1f}", *(f"{100 * pk[k]:.2f}" for k in (1, 3, 5)),
                 f"{t_top * ms:.3f}", f"{t_thr * ms:.3f}"])

    results = []
    if not args.no_napkinxc:
        try:
            import napkinxc.models  # noqa: F401
        except ImportError:
            print("napkinXC is not installed (pip install napkinxc): comparison skipped")
        else:
            T = model.tree
            structure = [(int(T.parent[t]), t, int(T.label[t])) for t in range(T.n_nodes)]
            results.append(run_napkinxc("napkinXC defaults", Xtr, Ytr, Xte, Yte, args.n_jobs))
            results.append(run_napkinxc("napkinXC same tree & C", Xtr, Ytr, Xte, Yte,
                                        args.n_jobs, tree_structure=structure,
                                        liblinear_c=args.C, weights_threshold=0.0))
    for r in results:
        rows.append([r["name"], f"{r['train']:.1f}",
                     *(f"{100 * r['pk'][k]:.2f}" for k in (1, 3, 5)),
                     f"{r['top5'] * 1000:.3f}", f"{r['thr'] * 1000:.3f}"])
    print()
    print(format_table(["model", "train s", "P@1", "P@3", "P@5", "top-5 ms/ex", "thr 0.1 ms/ex"],
                       rows))
    for r in results:
        print(f"ratios fmstats / {r['name']}: "
              + ", ".join(f"P@{k} {pk[k] / r['pk'][k]:.3f}" for k in (1, 3, 5))
              + f", top-5 time {t_top / te.size / r['top5']:.1f}x, threshold-0.1 time "
              f"{t_thr / te.size / r['thr']:.1f}x, training time {t_train / r['train']:.1f}x")
    if results:
        from napkinxc.metrics import precision_at_k as nxc_pk

        ours = precision_at_k(Yte, pad(results[0]["top"], 5), k=5)
        print(f"cross-check of precision_at_k: fmstats {ours:.6f} vs napkinxc.metrics "
              f"{float(nxc_pk(Yte, results[0]['top'], k=5)[-1]):.6f} on napkinXC's predictions")
    print(f"load after the run: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
