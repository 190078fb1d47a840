"""Where does the time of ``irls_logit`` go?  Component timings at bench_irls' problem size.

Run from the repository root::

    PYTHONPATH=. python benchmarks/profile_irls.py [--n 1000000] [--threads 1] [--cprofile]

Times, on the data of ``bench_irls.py``, the building blocks one IRLS
iteration of fmstats uses (the weighted Gram matrix, the score, the linear
predictor, the probabilities, the deviance), counts how often a full fit calls
each of them, and compares with the corresponding kernels of scikit-learn's
newton-cholesky solver (``X.T @ (h[:, None] * X)`` Hessian and its loss and
gradient).  ``--cprofile`` also prints the top functions of a cProfile run
of a whole fit.  Diagnostic only: nothing is asserted, exit status 0.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def best_of(fn, k=5):
    ts = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), _common.median(ts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--k", type=int, default=5, help="timings per component (best and median)")
    ap.add_argument("--cprofile", action="store_true")
    args = ap.parse_args(argv)
    _common.ensure_fmstats_importable()

    import numpy as np
    from scipy.special import expit, xlogy
    from threadpoolctl import threadpool_limits

    from bench_irls import SEED, make_arrays
    from fmstats.glm import irls as irls_mod
    from fmstats.glm.irls import _probs, binomial_deviance, gram, has_intercept, irls_logit

    X, y, w = make_arrays(args.n, SEED)
    n, p = X.shape
    print(f"profile_irls: n = {n:,}, p = {p}, threads = {args.threads}, "
          f"load {os.getloadavg()}")
    with threadpool_limits(limits=args.threads):
        fit = irls_logit(X, y, w)
        coef, mu = fit.coef, fit.mu
        ww = w * mu * (1 - mu)
        r = w * (y - mu)

        # --- how many times a fit calls each piece (count by wrapping the module functions)
        counts = {"gram": 0, "binomial_deviance": 0, "_probs": 0}
        orig = {k: getattr(irls_mod, k) for k in counts}

        def counting(name):
            f = orig[name]

            def g(*a, **kw):
                counts[name] += 1
                return f(*a, **kw)
            return g

        for k in counts:
            setattr(irls_mod, k, counting(k))
        try:
            fit2 = irls_logit(X, y, w)
        finally:
            for k, f in orig.items():
                setattr(irls_mod, k, f)
        print(f"one fit: {fit2.iterations} Newton steps; calls: " +
              ", ".join(f"{k} x{v}" for k, v in counts.items()) +
              " (+ 1 null_deviance, 1 has_intercept, 1 loglik, 1 extra expit)")
        print()

        comps = [
            ("whole irls_logit(X, y, w)", lambda: irls_logit(X, y, w)),
            ("gram(X, ww)  [X*sqrt(ww) copy + dsyrk]", lambda: gram(X, ww)),
            ("  X * sqrt(ww)[:, None]  (n x p temporary)", lambda: X * np.sqrt(ww)[:, None]),
            ("  dsyrk on the scaled copy", None),
            ("X.T @ r  (score, gemv)", lambda: X.T @ r),
            ("X @ coef  (eta, gemv)", lambda: X @ coef),
            ("_probs(eta)  [expit + clip]", lambda: _probs(X @ coef)),
            ("binomial_deviance(y, mu, w)  [4 xlogy]", lambda: binomial_deviance(y, mu, w)),
            ("  xlogy(y, mu) alone", lambda: xlogy(y, mu)),
            ("  deviance without xlogy(y,y), xlogy(1-y,1-y)",
             lambda: -2.0 * float(np.dot(w, xlogy(y, mu) + xlogy(1 - y, 1 - mu)))),
            ("has_intercept(X)  [X == 1.0 over n x p]", lambda: has_intercept(X)),
            ("w * mu * (1 - mu)", lambda: w * mu * (1 - mu)),
            ("sklearn-style hessian X.T @ (ww[:,None] * X)", lambda: X.T @ (ww[:, None] * X)),
        ]
        from scipy.linalg import blas

        A = X * np.sqrt(ww)[:, None]
        comps[3] = ("  dsyrk on the scaled copy", lambda: blas.dsyrk(1.0, A.T, trans=0, lower=0))
        try:
            from sklearn._loss.loss import HalfBinomialLoss
            from sklearn.linear_model._linear_loss import LinearModelLoss

            lml = LinearModelLoss(base_loss=HalfBinomialLoss(), fit_intercept=False)
            sw = w / w.sum()
            comps.append(("sklearn loss_gradient (one call)",
                          lambda: lml.loss_gradient(coef, X, y, sample_weight=sw,
                                                    l2_reg_strength=0.0)))
            comps.append(("sklearn gradient_hessian (one call)",
                          lambda: lml.gradient_hessian(coef, X, y, sample_weight=sw,
                                                       l2_reg_strength=0.0)))
        except Exception as exc:  # private API: may move between versions
            print(f"(sklearn kernels not timed: {exc})")

        rows = []
        for label, fn in comps:
            b, m = best_of(fn, args.k)
            rows.append([label, f"{b * 1e3:.1f}", f"{m * 1e3:.1f}"])
        print(_common.format_table(["component", "best ms", "median ms"], rows, "lrr"))

        if args.cprofile:
            pr = cProfile.Profile()
            pr.enable()
            irls_logit(X, y, w)
            pr.disable()
            s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15)
            print()
            print(s.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
