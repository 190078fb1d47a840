"""Issue 40: the cost of honest uncertainty, and whether the cheap replicates cover.

Run from the repository root::

    PYTHONPATH=. python benchmarks/inference/bench_honest_cost.py                  # timings + coverage
    PYTHONPATH=. python benchmarks/inference/bench_honest_cost.py --only timings
    PYTHONPATH=. python benchmarks/inference/bench_honest_cost.py --only coverage --reps 200

**Timings** (interleaved pairs, minimum and median of ``--repeat``; wall seconds, one BLAS
thread per worker):

1. ``fmaxent`` defaults (fit + standard errors + intervals: ``fit.tidy()``) against the same
   fit with ``cov_type="HC0"`` on the logistic design of ``bench_fmaxent_coverage.py`` at
   n = 1,000 (prevalence 0.1), 50,000 (~1 % positives) and 400,000 (~0.5 % positives).
   Target: <= 5 at every size.  The default's replicates run with ``n_jobs=1`` and ``2``.
2. ``tune_threshold(ci=True)`` against ``tune_threshold`` at n = 1,000, 5,000 and 20,000 (a
   logistic design with 8 terms, prevalence ~0.2).  Target: <= 5.
3. ``tune_threshold`` against a hand loop of scikit-learn fits on prebuilt arrays
   (``LogisticRegression(penalty=None, solver="newton-cholesky")`` per stratified fold, the
   exact search by one sort), same folds.  Target: <= 1.5.

**Coverage** (the designs, targets and table of ``bench_fmaxent_coverage.py``): on each
design, ``--reps`` data sets (same seeds as that script); for each the default covariance
(k-step replicates, control variate, stop rule at 5 %) and, on ``--full-reps`` of them, the
full-replicate bootstrap (``replicates="full", control=False, mc_tol=None``, B = 200: the
bootstrap before this issue).  Coverage of estimate +/- 1.96 SE of the population target
theta* (the estimator on 300,000 rows, computed independently of any standard error).
Target: every cell within 0.02 of the full-replicate bootstrap's, and never below
min(0.95, oracle) - 0.03 at n >= 1,000.  Monte-Carlo error of a coverage near 0.95:
+-0.015 over 200 data sets.  Paired on the data sets with both, the k-step SE over the
full-replicate SE (median and 5-95 % range over data sets and coefficients): the accuracy of
the cheap replicates without the coverage's sampling error.  ``--cells design:prevalence:beta``
restricts the designs (e.g. ``--cells logistic:0.1:1 thesisA:0.5:1``).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
import _common  # noqa: E402

os.environ.update(_common.set_thread_env(1, {}))
_common.ensure_fmstats_importable()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from scipy.special import expit  # noqa: E402

import fmstats as fm  # noqa: E402

Z = 1.959963984540054


# ----------------------------------------------------------------------------- data
def logistic(n: int, intercept: float, seed: int) -> pd.DataFrame:
    """The logistic design of bench_fmaxent_coverage.py with a chosen intercept."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    x3 = rng.uniform(-1, 1, size=n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    eta = intercept + x1 - 0.5 * x2 + 0.8 * x3 + np.select([g == "b", g == "c"], [0.6, -0.7], 0.0)
    y = (rng.uniform(size=n) < expit(eta)).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "x3": x3, "g": g})


def tuning_data(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    g = rng.choice(list("abcd"), n)
    eta = -1.5 + X @ np.array([1, -0.5, 0.3, 0, 0.8, -0.2]) + (g == "b") * 0.5
    d = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    d["g"] = g
    d["y"] = (rng.random(n) < expit(eta)).astype(int)
    return d


FMAXENT = "y ~ x1 + x2 + x3 + C(g)"
TUNING = "y ~ x0 + x1 + x2 + x3 + x4 + x5 + C(g)"
#: (rows, intercept): prevalence 0.1, ~1 % and ~0.5 % positives
SIZES = [(1_000, -2.815), (50_000, -5.3), (400_000, -6.2)]


# ----------------------------------------------------------------------------- timing
def pairs(a, b, repeat: int, seed: int = 0):
    """Interleaved wall times of callables a and b (a fresh random order per pair)."""
    ta, tb = [], []
    rng = random.Random(seed)
    for _ in range(repeat):
        order = [(a, ta), (b, tb)]
        rng.shuffle(order)
        for fn, out in order:
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return ta, tb


def _row(what, ta, tb, target):
    r = [x / y for x, y in zip(ta, tb)]
    return {"what": what, "honest s (min)": min(ta), "point s (min)": min(tb),
            "ratio (median)": statistics.median(r), "ratio range": f"{min(r):.2f}-{max(r):.2f}",
            "target": target}


def fmaxent_timings(repeat: int, sizes) -> list:
    rows = []
    for n, b0 in sizes:
        d = logistic(n, b0, 1)
        pos = int(d.y.sum())
        point = lambda: fm.fmaxent(FMAXENT, d, beta=2, cov_type="HC0").tidy()   # noqa: E731
        for jobs in (1, 2):
            honest = lambda: fm.fmaxent(FMAXENT, d, beta=2, n_jobs=jobs).tidy()  # noqa: E731
            honest(), point()                                                  # warm up
            ta, tb = pairs(honest, point, repeat)
            fit = fm.fmaxent(FMAXENT, d, beta=2, n_jobs=jobs)
            fit.bse
            extra = (f", B = {fit.bootstrap_results.B}" if fit.cov_type == "bootstrap" else "")
            rows.append(_row(f"fmaxent n={n} ({pos} positives) {fit.cov_type}{extra}, "
                             f"n_jobs={jobs}", ta, tb, "<= 5"))
            print(rows[-1], flush=True)
    return rows


def tuning_timings(repeat: int, sizes=(1_000, 5_000, 20_000)) -> list:
    rows = []
    for n in sizes:
        d = tuning_data(n)
        fit = fm.maxent(TUNING, d)
        point = lambda: fm.tune_threshold(fit, d, random_state=1)   # noqa: E731
        for jobs in (1, 2):
            honest = lambda: fm.tune_threshold(fit, d, random_state=1, ci=True,  # noqa: E731
                                               n_jobs=jobs)
            honest(), point()
            ta, tb = pairs(honest, point, repeat)
            rows.append(_row(f"tune_threshold(ci=True) n={n}, n_jobs={jobs}", ta, tb, "<= 5"))
            print(rows[-1], flush=True)
    return rows


def sklearn_loop(X, y, folds):
    from sklearn.linear_model import LogisticRegression

    held_s, held_y = [], []
    for tr, te in folds:
        m = LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-8,
                               max_iter=100).fit(X[tr], y[tr])
        held_s.append(m.predict_proba(X[te])[:, 1])
        held_y.append(y[te])
    s, yy = np.concatenate(held_s), np.concatenate(held_y)
    order = np.argsort(-s, kind="stable")
    tp = np.cumsum(yy[order])
    fp = np.cumsum(1 - yy[order])
    f = 2 * tp / (tp + fp + yy.sum())
    return s[order][int(np.argmax(f))]


def tuning_vs_sklearn(repeat: int, n: int = 32_561) -> list:
    d = tuning_data(n, 2)
    fit = fm.maxent(TUNING, d)
    X, y = np.asarray(fit.X), fit.y
    tuned = fm.tune_threshold(fit, d, random_state=1)
    folds = tuned._folds.pairs
    ta, tb = pairs(lambda: fm.tune_threshold(fit, d, random_state=1),
                   lambda: sklearn_loop(X, y, folds), repeat)
    row = _row(f"tune_threshold vs scikit-learn hand loop, n={n}", ta, tb, "<= 1.5")
    print(row, flush=True)
    return [row]


# ----------------------------------------------------------------------------- coverage
def _coverage_one(design, prevalence, n, beta, seed, full):
    import bench_fmaxent_coverage as cov

    d = cov.draw(design, prevalence, n, seed)
    out = {"seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = fm.fmaxent(cov.FORMULA[design], d, beta=beta, cov_type="bootstrap",
                       random_state=seed)
        out["B"] = f.bootstrap_results.B
        for name, v in f.params.items():
            out[f"est:{name}"] = v
        se = np.sqrt(np.diag(f.cov_params().to_numpy()))
        for name, v in zip(f.params.index, se):
            out[f"se_kstep:{name}"] = v
        if full:
            g = f.with_cov("HC0")
            b = fm.bootstrap(g, B=200, random_state=seed, replicates="full", control=False,
                             mc_tol=None, ci=False, progress=False)
            sef = b.std_error[f.params.index].to_numpy()
            for name, v in zip(f.params.index, sef):
                out[f"se_full:{name}"] = v
    return out


def _wanted(cell, only) -> bool:
    """``--cells`` entries ``design:prevalence:beta`` (e.g. ``logistic:0.1:1``); all when
    none is given."""
    design, prev, _, beta = cell
    return not only or any(c.split(":")[0] == design and float(c.split(":")[1]) == prev
                           and float(c.split(":")[2]) == beta for c in only)


def coverage(reps: int, full_reps: int, jobs: int, n_values, cells=None) -> pd.DataFrame:
    import bench_fmaxent_coverage as cov

    rows = []
    for design, prev, n, beta in cov.designs(argparse.Namespace(n=n_values)):
        if not _wanted((design, prev, n, beta), cells):
            continue
        tgt = cov.target(design, prev, beta, 300_000)
        t0 = time.perf_counter()
        res = Parallel(n_jobs=jobs)(delayed(_coverage_one)(design, prev, n, beta, s,
                                                           s < full_reps)
                                    for s in range(reps))
        res = pd.DataFrame(res)
        row = {"design": design, "prev": prev, "n": n, "beta": beta, "reps": reps,
               "mean B": res["B"].mean()}
        lo = {"oracle": [], "kstep": [], "full": []}
        for name, t in tgt.items():
            est = res[f"est:{name}"].to_numpy()
            sd = np.std(est, ddof=1)
            lo["oracle"].append(np.mean(np.abs(est - t) <= Z * sd))
            for kind in ("kstep", "full"):
                col = f"se_{kind}:{name}"
                if col in res:
                    se = res[col].to_numpy()
                    ok = np.isfinite(se)
                    lo[kind].append(np.mean(np.abs(est[ok] - t) <= Z * se[ok]))
        for kind, v in lo.items():
            if v:
                row[f"{kind} min"], row[f"{kind} max"] = min(v), max(v)
        # paired on the data sets with both: the k-step SE over the full-replicate SE (the
        # accuracy of the cheap replicates, free of the coverage's sampling error)
        ratios = np.concatenate([(res[f"se_kstep:{name}"] / res[f"se_full:{name}"]).dropna()
                                 .to_numpy() for name in tgt.keys() if f"se_full:{name}" in res])
        if ratios.size:
            row["SE ratio median"] = float(np.median(ratios))
            row["SE ratio 5%"], row["SE ratio 95%"] = np.quantile(ratios, [0.05, 0.95])
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
        print(pd.DataFrame([row]).round(3).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", choices=["timings", "coverage"])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("--full-reps", type=int, default=100)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--n", type=int, nargs="+", default=[300, 1000, 3000])
    p.add_argument("--sizes", type=int, nargs="+", help="fmaxent timing sizes (rows)")
    p.add_argument("--cells", nargs="+", help="coverage cells design:prevalence:beta "
                   "(default: all of bench_fmaxent_coverage.py's)")
    args = p.parse_args(argv)
    print(f"fmstats {fm.__version__}; numpy {np.__version__}; {_common.n_cores()} cores; "
          f"{_common.cpu_model()}; load {os.getloadavg()}")
    if args.only in (None, "timings"):
        sizes = [s for s in SIZES if args.sizes is None or s[0] in args.sizes]
        rows = fmaxent_timings(args.repeat, sizes) + tuning_timings(args.repeat) \
            + tuning_vs_sklearn(args.repeat)
        print("\nTimings (wall seconds, one BLAS thread per worker)")
        print(pd.DataFrame(rows).round(3).to_string(index=False))
    if args.only in (None, "coverage"):
        table = coverage(args.reps, args.full_reps, args.jobs, args.n, args.cells)
        print("\nCoverage of 95 % Wald intervals, range over the coefficients")
        print(table.round(3).to_string(index=False))
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
