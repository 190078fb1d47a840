"""Weighted logistic regression at n = 1e6, p = 20: fmstats against statsmodels and scikit-learn.

Run from the repository root::

    PYTHONPATH=. python benchmarks/speed/bench_irls.py              # n = 1_000_000, 3 repeats
    PYTHONPATH=. python benchmarks/speed/bench_irls.py --quick      # n = 100_000 smoke run
    PYTHONPATH=. python benchmarks/speed/bench_irls.py --threads 1  # single-threaded BLAS/OpenMP

Problem
-------
X = [1, Z] with Z an (n, 19) matrix of independent N(0, 1) entries, known
coefficients ``BETA_TRUE`` (intercept -0.5, slopes spread over [-1, 1]),
y ~ Bernoulli(expit(X beta)), prior weights w ~ Uniform(0.5, 2); fixed seed
(``--seed``, default 20240611), so every contender sees the same data.

Contenders (each timed on exactly the call shown)
-------------------------------------------------
* ``fmstats irls_logit``  ``irls_logit(X, y, w)`` -- the numerical core;
* ``fmstats maxent``      ``maxent("y ~ x1 + ... + x19", df, weights="w")`` -- the whole
  front end: formula parsing, design matrix from the DataFrame (formulaic),
  missing-value and collinearity checks, IRLS and the results object;
* ``statsmodels GLM``     ``sm.GLM(y, X, family=Binomial(), var_weights=w).fit()`` (IRLS);
* ``sklearn newton-chol`` ``LogisticRegression(solver="newton-cholesky", C=np.inf,
  fit_intercept=False, tol=1e-8, max_iter=100).fit(X, y, sample_weight=w)``
  (``C=np.inf`` rather than the deprecated ``penalty=None``: no warning is raised;
  any warning a contender raises during the timed fit is printed).

``--with-prototype`` adds ``prototype_irls_logit`` from ``profile_irls.py``: NOT
fmstats code, a sketch of the optimisations that profile suggests (blocked Gram
matrix, deviance from eta), timed the same way to size what they would buy.

All use their default (or the stated) convergence tolerance: fmstats and
statsmodels stop on a relative deviance change below 1e-8, scikit-learn when
the max-abs gradient of its mean loss is below 1e-8.  No peer needed a tighter
tolerance: the table also prints each contender's distance from the optimum
computed to machine precision (fmstats with ``tol=1e-15``, untimed), and at
these defaults both peers are within ~1e-12 of it; the ~1e-8 difference to
fmstats is fmstats' own default stopping point (its ``tol=1e-8`` stops one
Newton step before machine precision; ~3e-6 standard errors here).

How time and memory are measured
--------------------------------
Every (contender, repeat) pair runs in a *fresh* Python process (this script
re-invoked with ``--worker NAME``), so no contender inherits another one's
heap, caches or imported modules.  The runs are interleaved (repeat 1 of every
contender, then repeat 2, ...), so slow drifts of the machine hit everyone alike.
Inside the worker:

1. thread pools are limited (``threadpoolctl.threadpool_limits(T)`` plus the
   ``*_NUM_THREADS`` environment variables, T = ``--threads``, default: all
   usable cores) -- the same T for every contender;
2. the data are generated (ndarrays, or a DataFrame for ``maxent``);
3. a warm-up fit on the first 2,000 rows triggers lazy imports and first-call
   set-up, so the timed fit measures the computation only;
4. ``gc.collect()``, then the kernel's peak-RSS counter is reset by writing
   ``5`` to ``/proc/self/clear_refs`` (Linux >= 4.0), and the current RSS is read;
5. the fit is timed with ``time.perf_counter``;
6. ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` is read after the fit.

PEAK MEMORY = ru_maxrss after the fit - RSS just before it: the largest extra
resident memory the fit needed on top of the data it was given (its
temporaries and its result, everything counted: numpy, BLAS buffers, C
extensions).  Because of step 4 the memory used to *generate* the data does
not mask the fit's peak.  If the kernel refuses the reset, the script falls
back to ``ru_maxrss(after) - ru_maxrss(before)`` and says so (that can only
under-report peaks lower than the data-generation peak).

After the measured fit the worker times the same fit once more in the same
process ("2nd fit").  The 1st fit is what a one-off fit costs in a fresh
process -- including the kernel's cost of handing out fresh memory for large
temporaries (shown as minor page faults; on this VM first-touched memory is
expensive) -- the 2nd shows the computation with the allocator and page tables
already warm.  Times are reported as the median and the best of the repeats;
ratios are contender / fmstats core on the medians, and the targets are
judged on the 1st fit.  Nothing is asserted; the script always exits 0.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402
from _irls_problem import P, SEED, beta_true, make_arrays  # noqa: E402

CONTENDERS = {
    "fmstats-core": "fmstats irls_logit(X, y, w)",
    "fmstats-maxent": "fmstats maxent(formula, df, weights='w')",
    "statsmodels": "statsmodels GLM(Binomial, var_weights).fit()",
    "sklearn": "sklearn LogisticRegression(newton-cholesky)",
}
#: optional (--with-prototype): a sketch of irls_logit with the fixes suggested by
#: benchmarks/speed/profile_irls.py -- NOT fmstats code, shown only to size those fixes.
PROTOTYPE = {"prototype": "prototype irls (profile_irls.py; NOT fmstats)"}
REFERENCE = "fmstats-core"
MARKER = "@@BENCH_RESULT@@"
TARGETS = {"statsmodels": 5.0, "sklearn": 1.0}


def make_frame(n: int, seed: int):
    """The same data as a DataFrame with columns y, x1..x19, w (X is not kept)."""
    import pandas as pd

    X, y, w = make_arrays(n, seed)
    cols = {"y": y}
    for j in range(1, P):
        cols[f"x{j}"] = X[:, j].copy()
    cols["w"] = w
    del X
    return pd.DataFrame(cols)


def formula_text() -> str:
    return "y ~ " + " + ".join(f"x{j}" for j in range(1, P))


# ----------------------------------------------------------------------------- fits

def make_fitter(name: str):
    """Return (make_data(n, seed), fit(data) -> (coef, iterations, converged, extra))."""
    import numpy as np

    if name == "fmstats-core":
        from fmstats.glm import irls_logit

        def fit(d):
            X, y, w = d
            r = irls_logit(X, y, w)
            return r.coef, r.iterations, r.converged, {"deviance": r.deviance}

        return make_arrays, fit

    if name == "fmstats-maxent":
        import fmstats

        formula = formula_text()

        def fit(df):
            r = fmstats.maxent(formula, df, weights="w")
            return r.params.to_numpy(), r.iterations, r.converged, {"deviance": r.deviance}

        return make_frame, fit

    if name == "statsmodels":
        import statsmodels.api as sm

        def fit(d):
            X, y, w = d
            r = sm.GLM(y, X, family=sm.families.Binomial(), var_weights=w).fit()
            it = int(r.fit_history.get("iteration", -1))
            return np.asarray(r.params), it, bool(r.converged), {"deviance": float(r.deviance)}

        return make_arrays, fit

    if name == "sklearn":
        from sklearn.linear_model import LogisticRegression

        def fit(d):
            X, y, w = d
            m = LogisticRegression(solver="newton-cholesky", C=np.inf, fit_intercept=False,
                                   tol=1e-8, max_iter=100)
            m.fit(X, y, sample_weight=w)
            it = int(np.max(m.n_iter_))
            return m.coef_.ravel().copy(), it, it < 100, {}

        return make_arrays, fit

    if name == "prototype":
        from profile_irls import prototype_irls_logit

        def fit(d):
            X, y, w = d
            r = prototype_irls_logit(X, y, w)
            return r["coef"], r["iterations"], r["converged"], {"deviance": r["deviance"]}

        return make_arrays, fit

    raise SystemExit(f"unknown worker {name!r}; choose from {', '.join(CONTENDERS)}")


def _head(data, k: int):
    if isinstance(data, tuple):
        import numpy as np

        return tuple(np.ascontiguousarray(a[:k]) for a in data)
    return data.iloc[:k].copy()


def run_worker(name: str, n: int, seed: int, threads: int) -> None:
    from threadpoolctl import threadpool_info, threadpool_limits

    make_data, fit = make_fitter(name)
    with threadpool_limits(limits=threads):
        pools = threadpool_info()
        data = make_data(n, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit(_head(data, 2000))  # warm-up: lazy imports, first-call set-up
        gc.collect()
        reset = _common.reset_peak_rss()
        rss_before = _common.proc_status_kib("VmRSS")
        ru_before = resource.getrusage(resource.RUSAGE_SELF)
        maxrss_before = ru_before.ru_maxrss
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t0 = time.perf_counter()
            coef, iterations, converged, extra = fit(data)
            seconds = time.perf_counter() - t0
        ru_after = resource.getrusage(resource.RUSAGE_SELF)
        maxrss_after = ru_after.ru_maxrss
        minflt = ru_after.ru_minflt - ru_before.ru_minflt
        # a second, "warm" fit in the same process: allocator and page tables already grown
        gc.collect()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            fit(data)
            seconds_warm = time.perf_counter() - t0
    exact = None
    if name == REFERENCE:
        # the optimum to machine precision (untimed), to show how far each stopping rule is
        from fmstats.glm import irls_logit

        with threadpool_limits(limits=threads):
            exact = [float(c) for c in irls_logit(*data, tol=1e-15, max_iter=50, warn=False).coef]
    if reset and rss_before is not None:
        peak_kib, method = maxrss_after - rss_before, "reset"
    else:
        peak_kib, method = maxrss_after - maxrss_before, "delta"
    out = {
        "name": name,
        "seconds": seconds,
        "seconds_warm": seconds_warm,
        "minflt": minflt,
        "peak_mib": peak_kib / 1024,
        "mem_method": method,
        "coef": [float(c) for c in coef],
        "coef_exact": exact,
        "iterations": iterations,
        "converged": converged,
        "warnings": sorted({f"{w.category.__name__}: {str(w.message)[:120]}" for w in caught}),
        "pools": pools,
        **extra,
    }
    print(MARKER + json.dumps(out))


# ----------------------------------------------------------------------------- driver

def spawn(name: str, args) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, "--n", str(args.n),
           "--seed", str(args.seed), "--threads", str(args.threads)]
    env = _common.set_thread_env(args.threads)
    if "fmstats" not in env.get("PYTHONPATH", ""):
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(_common.REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    sys.stderr.write(f"worker {name} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}\n")
    return {"name": name, "failed": True}


def main(argv=None) -> int:
    ap = _common.bench_parser(__doc__, "fresh-process runs per contender",
                              "BLAS/OpenMP threads for every contender (default: usable cores)",
                              SEED)
    ap.add_argument("--only", nargs="+", choices=list(CONTENDERS), default=list(CONTENDERS),
                    help="run a subset of the contenders")
    ap.add_argument("--with-prototype", action="store_true",
                    help="also time the prototype IRLS of profile_irls.py (not fmstats code)")
    ap.add_argument("--worker", choices=list(CONTENDERS) + list(PROTOTYPE),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.quick:
        args.n = 100_000
    _common.ensure_fmstats_importable()

    if args.worker:
        run_worker(args.worker, args.n, args.seed, args.threads)
        return 0

    import numpy as np

    data_mib = args.n * (P + 2) * 8 / 2 ** 20
    _common.print_header(
        f"bench_irls: weighted logistic regression, n = {args.n:,}, p = {P} "
        f"(intercept + {P - 1} N(0,1)), w ~ U(0.5, 2), seed {args.seed}",
        ["fmstats", "numpy", "scipy", "pandas", "statsmodels", "sklearn", "formulaic",
         "threadpoolctl"],
        args.threads,
        [f"repeats:  {args.repeat} fresh processes per contender, interleaved; "
         "time = perf_counter around the fit call (after a 2,000-row warm-up fit)",
         "memory:   peak RSS increase during the fit = ru_maxrss(after fit) - RSS(before fit), "
         "with the kernel peak counter reset (/proc/self/clear_refs) just before the fit, "
         "in a fresh process per run",
         f"data:     X, y, w as float64 arrays = {data_mib:.0f} MiB "
         f"(X alone {args.n * P * 8 / 2 ** 20:.0f} MiB)",
         "source:   " + _common.source_fingerprint(["fmstats/glm/irls.py", "fmstats/maxent.py",
                                                       "fmstats/formula.py"]),
         f"load:     1/5/15-min load average at start {os.getloadavg()} "
         "(other processes on the machine add noise; compare medians)"],
    )

    names = [c for c in CONTENDERS if c in args.only]
    if args.with_prototype:
        CONTENDERS.update(PROTOTYPE)
        names.append("prototype")
    runs: dict[str, list[dict]] = {c: [] for c in names}
    for r in range(args.repeat):
        for c in names:
            res = spawn(c, args)
            runs[c].append(res)
            if res.get("failed"):
                print(f"  repeat {r + 1}: {c:15s} FAILED", flush=True)
            else:
                print(f"  repeat {r + 1}: {c:15s} first fit {res['seconds']:7.3f} s, "
                      f"second fit {res['seconds_warm']:7.3f} s, "
                      f"peak +{res['peak_mib']:7.1f} MiB, {res['minflt'] / 1e3:6.0f}k page "
                      f"faults, {res['iterations']} iterations", flush=True)
    print()

    ok = {c: [x for x in v if not x.get("failed")] for c, v in runs.items()}
    summary = {}
    for c, v in ok.items():
        if not v:
            continue
        summary[c] = {
            "median": _common.median([x["seconds"] for x in v]),
            "best": min(x["seconds"] for x in v),
            "warm": _common.median([x["seconds_warm"] for x in v]),
            "warm_best": min(x["seconds_warm"] for x in v),
            "minflt": _common.median([x["minflt"] for x in v]),
            "peak": _common.median([x["peak_mib"] for x in v]),
            "peak_max": max(x["peak_mib"] for x in v),
            "coef": np.asarray(v[0]["coef"]),
            "iterations": v[0]["iterations"],
            "converged": v[0]["converged"],
            "warnings": sorted({w for x in v for w in x["warnings"]}),
            "mem_method": {x["mem_method"] for x in v},
            "pools": v[0]["pools"],
        }

    if summary:
        first = next(iter(summary.values()))
        print("thread pools seen inside the workers: " + _common.blas_description(first["pools"]))
        if any("delta" in s["mem_method"] for s in summary.values()):
            print("NOTE: /proc/self/clear_refs could not be written; memory is the plain "
                  "ru_maxrss increase and may under-report.")
        print()

    ref = summary.get(REFERENCE)
    exact = None
    if ref is not None:
        v = [x for x in ok[REFERENCE] if x.get("coef_exact")]
        exact = np.asarray(v[0]["coef_exact"]) if v else None
    header = ["contender", "1st fit median s", "best s", "ratio", "2nd fit median s", "best s",
              "ratio", "peak MiB", "page faults", "max|coef - fmstats|", "max|coef - optimum|",
              "iter", "conv"]
    rows = []
    for c, s in summary.items():
        ratio = f"{s['median'] / ref['median']:.2f}x" if ref else "n/a"
        ratio_w = f"{s['warm'] / ref['warm']:.2f}x" if ref else "n/a"
        diff = (f"{np.max(np.abs(s['coef'] - ref['coef'])):.2e}" if ref is not None
                and s["coef"].shape == ref["coef"].shape else "n/a")
        rows.append([CONTENDERS[c], f"{s['median']:.3f}", f"{s['best']:.3f}", ratio,
                     f"{s['warm']:.3f}", f"{s['warm_best']:.3f}", ratio_w,
                     f"{s['peak']:.1f}", f"{s['minflt'] / 1e3:.0f}k",
                     "(reference)" if c == REFERENCE else diff,
                     f"{np.max(np.abs(s['coef'] - exact)):.2e}" if exact is not None else "n/a",
                     str(s["iterations"]), str(s["converged"])])
    print(_common.format_table(header, rows, "lrrrrrrrrrrrl"))
    print("1st fit = the timed fit in a fresh process (what a one-off fit costs; also the run "
          "whose peak memory and minor page faults are shown); 2nd fit = the same fit repeated "
          "in that process; ratio = contender / fmstats core (medians); optimum = fmstats irls_logit "
          "with tol=1e-15 (the maximum-likelihood coefficients to machine precision)")
    print()

    if ref is not None:
        print("targets (informational, never asserted):")
        for c, target in TARGETS.items():
            if c not in summary:
                continue
            ratio = summary[c]["median"] / ref["median"]
            ratio_b = summary[c]["best"] / ref["best"]
            ratio_w = summary[c]["warm"] / ref["warm"]
            status = "met" if ratio >= target else "NOT met"
            print(f"  {c + '/fmstats core time ratio':40s} = {ratio:6.2f}x 1st fit "
                  f"({ratio_b:.2f}x on bests), {ratio_w:.2f}x 2nd fit  "
                  f"(target >= {target:g}x on the 1st-fit medians: {status})")
        for c, s in summary.items():
            if c in (REFERENCE, "prototype"):
                continue
            d = float(np.max(np.abs(s["coef"] - ref["coef"])))
            print(f"  {'max|coef ' + c + ' - fmstats core|':40s} = {d:.2e}  (target <= 1e-6: "
                  f"{'met' if d <= 1e-6 else 'NOT met'})")
        if "statsmodels" in summary:
            pf, ps = ref["peak"], summary["statsmodels"]["peak"]
            print(f"  peak memory fmstats core {pf:.1f} MiB vs statsmodels {ps:.1f} MiB "
                  f"({ps / pf if pf > 0 else float('inf'):.2f}x; target fmstats below "
                  f"statsmodels: {'met' if pf < ps else 'NOT met'})")
        if "fmstats-maxent" in summary:
            s = summary["fmstats-maxent"]
            print(f"  fmstats front-end overhead (maxent - core) = "
                  f"{s['median'] - ref['median']:.3f} s "
                  f"({s['median'] / ref['median']:.2f}x core)")
        err = np.max(np.abs(ref["coef"] - beta_true()))
        print(f"  max|fmstats coef - true beta| = {err:.3f} (sampling error, for orientation)")
    print(f"load at end: {os.getloadavg()}")
    for c, s in summary.items():
        if s["warnings"]:
            print(f"warnings raised by {c}: " + " | ".join(s["warnings"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
