"""A sparse one-hot design: MaxentClassifier on CSR against the same design dense, and
scikit-learn's LogisticRegression on the same CSR matrix.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_sparse.py            # n = 50_000, 600 levels
    PYTHONPATH=. python benchmarks/speed/bench_sparse.py --quick    # n = 10_000, 200 levels

Problem: one factor with ``--levels`` levels and a second with 20, one-hot coded without the
first level (scipy.sparse CSR, two non-zeros a row), plus two N(0, 1) columns; labels from a
logistic model with N(0, 0.5) level effects; fixed seed.  Every contender fits the same
matrix, BLAS limited to one thread (many small Newton steps).

Contenders
----------
* ``fmstats sparse``  ``MaxentClassifier().fit(X_csr, y)``: X'WX from sparse products;
* ``fmstats dense``   ``MaxentClassifier().fit(X_csr.toarray(), y)``;
* ``sklearn sparse``  ``LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-8,
  max_iter=100).fit(X_csr, y)``.

Printed per contender: wall time (best of ``--repeats``), peak memory traced by
``tracemalloc`` during one fit (numpy and scipy allocations), the largest coefficient
difference from ``fmstats sparse``, and the time ratio to ``fmstats sparse``.
"""
from __future__ import annotations
import os
import sys

import argparse
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable

ensure_fmstats_importable()

import scipy.sparse as sp  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402


def make(n: int, levels: int, seed: int = 20261126):
    rng = np.random.default_rng(seed)
    blocks, eta = [], np.zeros(n)
    for k in (levels, 20):
        g = rng.integers(0, k, n)
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), g)), shape=(n, k))[:, 1:])
        eta += rng.normal(scale=0.5, size=k)[g]
    Z = rng.normal(size=(n, 2))
    eta += Z @ [0.7, -0.4] - 0.5
    X = sp.hstack(blocks + [sp.csr_matrix(Z)], format="csr")
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return X, y


def run(fit, repeats: int):
    tracemalloc.start()
    model = fit()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fit()
        best = min(best, time.perf_counter() - t)
    return model, best, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    n, levels = (10_000, 200) if args.quick else (50_000, 600)
    from sklearn.linear_model import LogisticRegression

    from fmstats.sklearn import MaxentClassifier

    X, y = make(n, levels)
    Xd = X.toarray()
    print(f"n = {n}, p = {X.shape[1]} (+ intercept), nnz = {X.nnz} "
          f"({X.nnz / np.prod(X.shape):.2%} filled); dense X = {Xd.nbytes / 2**20:.0f} MiB")
    contenders = {
        "fmstats sparse": lambda: MaxentClassifier().fit(X, y),
        "fmstats dense": lambda: MaxentClassifier().fit(Xd, y),
        "sklearn sparse": lambda: LogisticRegression(C=np.inf, solver="newton-cholesky",
                                                     tol=1e-8, max_iter=100).fit(X, y),
    }
    rows = {}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, fit in contenders.items():
            rows[name] = run(fit, args.repeats)
    ref = rows["fmstats sparse"]
    ref_coef = np.r_[ref[0].intercept_, ref[0].coef_.ravel()]
    print(f"{'contender':<16}{'time (s)':>10}{'peak MiB':>10}{'max |coef diff|':>17}"
          f"{'time / fmstats sparse':>23}")
    for name, (model, secs, peak) in rows.items():
        coef = np.r_[model.intercept_, model.coef_.ravel()]
        print(f"{name:<16}{secs:>10.3f}{peak / 2**20:>10.1f}{np.max(np.abs(coef - ref_coef)):>17.2e}"
              f"{secs / ref[1]:>23.2f}")


if __name__ == "__main__":
    main()
