"""Where does the time of ``irls_logit`` go?  Component timings at bench_irls' problem size.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/profile_irls.py [--n 1000000] [--threads 1] [--cprofile]

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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402


def best_of(fn, k=5):
    ts = []
    for _ in range(k):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), _common.median(ts)


# ----------------------------------------------------------------------------- prototype
def prototype_irls_logit(X, y, w, *, tol=1e-8, max_iter=25, chunk=32_768):
    """NOT fmstats code: a sketch of ``irls_logit`` (no penalty, no warm start) with the
    three fixes this profile points to, to measure what they would buy.

    1. the weighted Gram matrix is accumulated by ``dsyrk`` over blocks of ``chunk``
       rows, so the n x p temporary ``X * sqrt(ww)`` (153 MiB at n = 1e6) is never
       allocated: a cache-sized block buffer is reused;
    2. the deviance is computed from eta, ``y*eta - log(1 + e^eta)`` (one
       ``logaddexp`` per row instead of four ``xlogy``), with the constant
       ``sum w [y log y + (1-y) log(1-y)]`` computed once per fit;
    3. log-likelihood, null deviance and the intercept check reuse those sums
       instead of new passes over n (and over the n x p matrix).

    Same start (R's), Newton steps, step halving and convergence rule as fmstats,
    so it takes the same iterations and lands on the same coefficients.
    """
    import numpy as np
    from scipy import linalg
    from scipy.linalg import blas
    from scipy.special import expit, xlogy

    n, p = X.shape
    buf = np.empty((min(chunk, n), p))

    def gram_blocks(ww):
        C = np.zeros((p, p), order="F")
        s = np.sqrt(ww)
        for i in range(0, n, chunk):
            j = min(i + chunk, n)
            A = np.multiply(X[i:j], s[i:j, None], out=buf[: j - i])
            C = blas.dsyrk(1.0, A.T, beta=1.0, c=C, trans=0, lower=0, overwrite_c=1)
        return np.triu(C) + np.triu(C, 1).T

    const = float(np.dot(w, xlogy(y, y) + xlogy(1 - y, 1 - y)))

    def dev_eta(eta):
        return 2.0 * (const - float(np.dot(w, y * eta - np.logaddexp(0.0, eta))))

    mu0 = (w * y + 0.5) / (w + 1.0)
    eta0 = np.log(mu0 / (1 - mu0))
    dev0 = dev_eta(eta0)
    ww = w * mu0 * (1 - mu0)
    H = gram_blocks(ww)
    coef = linalg.cho_solve(linalg.cho_factor(H, check_finite=False),
                            X.T @ (ww * eta0 + w * (y - mu0)))
    eta = X @ coef
    dev = dev_eta(eta)
    it, converged = 1, abs(dev - dev0) / (abs(dev) + 0.1) < tol
    while not converged and it < max_iter:
        mu = expit(eta)
        H = gram_blocks(w * mu * (1 - mu))
        step = linalg.cho_solve(linalg.cho_factor(H, check_finite=False), X.T @ (w * (y - mu)))
        t = 1.0
        for _ in range(31):
            new = coef + t * step
            eta_new = X @ new
            dev_new = dev_eta(eta_new)
            if np.isfinite(dev_new) and dev_new <= dev * (1 + 1e-12) + 1e-12:
                break
            t *= 0.5
        it += 1
        change = abs(dev_new - dev) / (abs(dev_new) + 0.1)
        coef, eta, dev = new, eta_new, dev_new
        if change < tol:
            converged = True
    mu = expit(eta)
    ww = w * mu * (1 - mu)
    xtwx_inv = linalg.cho_solve(linalg.cho_factor(gram_blocks(ww), check_finite=False), np.eye(p))
    sw, swy = float(w.sum()), float(np.dot(w, y))
    has_int = any(bool(np.all(X[:, j] == 1.0)) for j in np.flatnonzero(X[0] == 1.0))
    m0 = swy / sw if has_int else 0.5
    null_dev = 2.0 * (const - (swy * np.log(m0) + (sw - swy) * np.log1p(-m0)))
    loglik = const - dev / 2.0
    return {"coef": coef, "iterations": it, "converged": converged, "deviance": dev,
            "null_deviance": null_dev, "loglik": loglik, "xtwx_inv": xtwx_inv}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--k", type=int, default=5, help="timings per component (best and median)")
    ap.add_argument("--cprofile", action="store_true")
    args = ap.parse_args(argv)
    _common.ensure_fmstats_importable()

    import numpy as np
    from scipy.special import xlogy
    from threadpoolctl import threadpool_limits

    from _irls_problem import SEED, make_arrays
    from fmstats.glm import _irls as irls_mod
    from fmstats.glm._irls import _probs, binomial_deviance, gram, has_intercept, irls_logit

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

        # --- candidate fixes (prototypes, NOT fmstats code): timed on the same inputs
        def gram_chunked(X, ww, chunk=32_768):
            """X' diag(ww) X accumulated by dsyrk over row blocks: the scaled block stays in cache."""
            C = np.zeros((p, p), order="F")
            s = np.sqrt(ww)
            buf = np.empty((chunk, p))
            for i in range(0, n, chunk):
                j = min(i + chunk, n)
                A = np.multiply(X[i:j], s[i:j, None], out=buf[: j - i])
                C = blas.dsyrk(1.0, A.T, beta=1.0, c=C, trans=0, lower=0, overwrite_c=1)
            return np.triu(C) + np.triu(C, 1).T

        const = float(np.dot(w, xlogy(y, y) + xlogy(1 - y, 1 - y)))  # once per fit (0 for 0/1 y)
        eta = X @ coef

        def deviance_from_eta(eta):
            # y log mu + (1-y) log(1-mu) = y*eta - log(1 + e^eta); one transcendental per row
            return 2.0 * (const - float(np.dot(w, y * eta - np.logaddexp(0.0, eta))))

        def has_intercept_cheap(X):
            cand = np.flatnonzero(X[0] == 1.0)
            return any(bool(np.all(X[:, j] == 1.0)) for j in cand)

        g_ref, g_new = gram(X, ww), gram_chunked(X, ww)
        d_ref, d_new = binomial_deviance(y, _probs(eta), w), deviance_from_eta(eta)
        print(f"prototype checks: max|gram_chunked - gram| / max|gram| = "
              f"{np.max(np.abs(g_new - g_ref)) / np.max(np.abs(g_ref)):.1e}; "
              f"|deviance_from_eta - binomial_deviance| / deviance = "
              f"{abs(d_new - d_ref) / d_ref:.1e}; has_intercept_cheap = "
              f"{has_intercept_cheap(X)}")
        comps += [
            ("FIX? gram by 32k-row blocks (dsyrk beta=1)", lambda: gram_chunked(X, ww)),
            ("FIX? deviance from eta (logaddexp, const once)",
             lambda: deviance_from_eta(eta)),
            ("FIX? has_intercept on candidate columns only", lambda: has_intercept_cheap(X)),
        ]

        pr = prototype_irls_logit(X, y, w)
        print(f"prototype_irls_logit: {pr['iterations']} iterations (fmstats {fit.iterations}); "
              f"max|coef - fmstats| = {np.max(np.abs(pr['coef'] - fit.coef)):.1e}; "
              f"deviance rel. diff {abs(pr['deviance'] - fit.deviance) / fit.deviance:.1e}; "
              f"null deviance rel. diff "
              f"{abs(pr['null_deviance'] - fit.null_deviance) / fit.null_deviance:.1e}; "
              f"loglik rel. diff {abs(pr['loglik'] - fit.loglik) / abs(fit.loglik):.1e}; "
              f"max|xtwx_inv diff| {np.max(np.abs(pr['xtwx_inv'] - fit.xtwx_inv)):.1e}")
        comps.append(("FIX? whole prototype_irls_logit (all fixes)",
                      lambda: prototype_irls_logit(X, y, w)))

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
