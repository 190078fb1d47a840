"""How sure is the F?  Simulated coverage, bias, type I error and power (issue 30).

Population: x ~ N(0, I_3), y ~ Bernoulli(expit(b0 + x'beta)) with b0 set for the prevalence.
The true F of any linear rule "theta'x >= c" is computed *analytically*: u = beta'x and
v = theta'x are jointly normal, so TP = E[expit(b0 + u) P(v >= c | u)] is a one-dimensional
integral (adaptive quadrature, scipy.integrate.quad), P(v >= c) is a normal tail, and F follows.
The quadrature is checked against 10^6 fresh rows in every cell (printed).

Parts (``--part a b c``; each prints a table):

a. ``f_interval`` coverage of the true F of a fixed rule (the population's F1-optimal rule
   on u): delta, bayes with prior 0.5 and 1 (the choice of the default), bootstrap.
b. ``tune_threshold``: a maxent model fitted on n rows, its threshold tuned by 5-fold CV;
   bias of the naive CV F and of ``f_corrected`` (the nested CV of the whole tuning, as
   ``ci=True`` computes it) against the true F of the tuned rule (a linear rule: analytic),
   coverage of ``f_corrected_ci``; the .632+ estimate of ``ci=True`` (200 bootstrap refits
   of the tuning) on every 10th data set (``--every``; the user guide's table: every 20th).
c. ``compare`` of two rules with equal true F (x1 + x3/2 >= c and x2 + x3/2 >= c under a
   symmetric beta): type I error at 5 %; and of two rules whose true F differ by 0.03: power.

Run from the repository root::

    PYTHONPATH=. python benchmarks/inference/bench_f_intervals.py --part a c            # ~2 min
    PYTHONPATH=. python benchmarks/inference/bench_f_intervals.py --part b --every 20 # ~2 h on one core
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import integrate, optimize, stats
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _common
from _common import ensure_fmstats_importable, print_header  # noqa: E402

ensure_fmstats_importable()
import fmstats as fm  # noqa: E402

NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(120)   # probabilists' Hermite
WEIGHTS = WEIGHTS / WEIGHTS.sum()
BETA = np.array([1.0, 0.5, -0.5])


# ---------------------------------------------------------------------------- the population
def intercept(beta, prevalence):
    sd = np.sqrt(beta @ beta)
    return optimize.brentq(lambda b0: WEIGHTS @ expit(b0 + sd * NODES) - prevalence, -20, 20)


def true_counts(b0, beta, theta, c):
    """(TP, FP, FN) probabilities of the rule theta'x >= c (adaptive quadrature over u)."""
    vu, vv, cov = beta @ beta, theta @ theta, beta @ theta
    su = np.sqrt(vu)
    sd = np.sqrt(max(vv - cov * cov / vu, 0.0))

    def integrand(u):
        mu = cov / vu * u
        return expit(b0 + u) * stats.norm.sf((c - mu) / sd) * stats.norm.pdf(u / su) / su

    if sd > 1e-9 * np.sqrt(vv):
        tp = integrate.quad(integrand, -np.inf, np.inf, epsabs=1e-12, epsrel=1e-10)[0]
    else:      # v is a multiple of u: the rule is u >= c su / sqrt(vv) (for cov > 0)
        cu = c * vu / cov
        tp = integrate.quad(lambda u: expit(b0 + u) * stats.norm.pdf(u / su) / su, cu, np.inf,
                            epsabs=1e-12, epsrel=1e-10)[0]
    pos = integrate.quad(lambda u: expit(b0 + u) * stats.norm.pdf(u / su) / su, -np.inf,
                         np.inf, epsabs=1e-12, epsrel=1e-10)[0]
    ppos = stats.norm.sf(c / np.sqrt(vv))
    return tp, ppos - tp, pos - tp


def true_f(b0, beta, theta, c, alpha=0.5):
    tp, fp, fn = true_counts(b0, beta, theta, c)
    return tp / (tp + alpha * fp + (1 - alpha) * fn)


def best_cut(b0, beta, theta):
    sd = np.sqrt(theta @ theta)
    res = optimize.minimize_scalar(lambda c: -true_f(b0, beta, theta, c),
                                   bounds=(-4 * sd, 4 * sd), method="bounded")
    return res.x


def draw(rng, n, b0, beta):
    x = rng.normal(size=(n, beta.size))
    y = (rng.random(n) < expit(b0 + x @ beta)).astype(float)
    return x, y


def check_quadrature(b0, beta, theta, c, rng):
    x, y = draw(rng, 1_000_000, b0, beta)
    return fm.f_score(y, (x @ theta >= c).astype(float))


# ---------------------------------------------------------------------------- part a
def part_a(ns, prevalences, datasets, seed):
    rows = []
    for prev in prevalences:
        b0 = intercept(BETA, prev)
        c = best_cut(b0, BETA, BETA)
        f_true = true_f(b0, BETA, BETA, c)
        mc = check_quadrature(b0, BETA, BETA, c, np.random.default_rng(seed + 99))
        for n in ns:
            rng = np.random.default_rng([seed, n, int(prev * 1000)])
            hits = {k: [] for k in ("delta", "bayes", "bayes (prior 1)", "bootstrap")}
            widths = {k: [] for k in hits}
            for _ in range(datasets):
                x, y = draw(rng, n, b0, BETA)
                if y.sum() == 0:
                    continue
                p = (x @ BETA >= c).astype(float)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", fm.exceptions.IntervalWarning)
                    ivs = {"delta": fm.f_interval(y, p),
                           "bayes": fm.f_interval(y, p, method="bayes", random_state=rng),
                           "bayes (prior 1)": fm.f_interval(y, p, method="bayes", prior=1.0,
                                                            random_state=rng),
                           "bootstrap": fm.f_interval(y, p, method="bootstrap",
                                                      random_state=rng)}
                for k, iv in ivs.items():
                    hits[k].append(iv.contains(f_true))
                    widths[k].append(iv.width)
            for k in hits:
                rows.append({"n": n, "prevalence": prev, "true F": f_true,
                             "F on 1e6 rows": mc, "method": k, "datasets": len(hits[k]),
                             "coverage": np.mean(hits[k]), "mean width": np.mean(widths[k])})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- part b
def nested_cv(df, seed, k_outer=5, k_inner=5):
    """The nested cross-validation of the whole tuning, through the public API: on each outer
    training part maxent is fitted and its threshold tuned by ``k_inner``-fold CV; the tuned
    rule classes the outer held-out rows.  This is what ``tune_threshold(ci=True)`` computes
    as ``f_corrected`` (tests/test_tuning_uncertainty.py checks the equality on its own outer
    folds), without its 200 bootstrap replicates of the tuning."""
    from fmstats._utils.folds import stratified_folds

    y = df["y"].to_numpy()
    cls = np.full(len(df), np.nan)
    for tr, te in stratified_folds(y, k_outer, np.random.default_rng(seed)):
        sub = df.iloc[tr].reset_index(drop=True)
        inner = fm.tune_threshold(fm.maxent("y ~ x1 + x2 + x3", sub), sub, cv=k_inner,
                                  random_state=seed, progress=False)
        cls[te] = inner.predict(df.iloc[te], type="class").to_numpy()
    iv = fm.f_interval(y, cls)
    return iv.estimate, iv.low, iv.high


def part_b(ns, prevalences, datasets, seed, B, every):
    """Naive CV F, nested CV (f_corrected, f_corrected_ci) on every data set; .632+ from
    tune_threshold(ci=True, B=B) on every ``every``-th data set (200 refits of the tuning)."""
    rows = []
    for prev in prevalences:
        b0 = intercept(BETA, prev)
        for n in ns:
            rng = np.random.default_rng([seed, n, int(prev * 1000), 2])
            rec = []
            t0 = time.perf_counter()
            for d in range(datasets):
                x, y = draw(rng, n, b0, BETA)
                df = pd.DataFrame(x, columns=["x1", "x2", "x3"]).assign(y=y)
                s = int(rng.integers(2**31))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        fit = fm.maxent("y ~ x1 + x2 + x3", df)
                        tuned = fm.tune_threshold(fit, df, cv=5, random_state=s, progress=False)
                        est, lo, hi = nested_cv(df, s)
                        plus = np.nan
                        if every and d % every == 0:
                            full = fm.tune_threshold(fit, df, cv=5, random_state=s, ci=True,
                                                     B=B, progress=False)
                            plus = full.uncertainty.estimates.set_index("estimate")["f"][".632+"]
                    except fm.FmstatsError as exc:
                        print(f"  data set {d} skipped: {exc}"[:200])
                        continue
                coef = fit.params.to_numpy()
                t = tuned.threshold
                if not 0 < t < 1:
                    continue
                c = np.log(t / (1 - t)) - coef[0]          # coef0 + coef'x >= logit(t)
                f_true = true_f(b0, BETA, coef[1:], c)
                rec.append({"true": f_true, "naive": tuned.best_score, "nested": est,
                            "632+": plus, "covered": lo <= f_true <= hi, "width": hi - lo,
                            "low": lo, "high": hi})
            r = pd.DataFrame(rec)
            mean_true = r["true"].mean()
            p632 = r.dropna(subset=["632+"])
            rows.append({"n": n, "prevalence": prev, "datasets": len(r),
                         "mean true F": mean_true,
                         "bias naive CV": (r["naive"] - r["true"]).mean(),
                         "bias f_corrected (nested)": (r["nested"] - r["true"]).mean(),
                         "coverage f_corrected_ci": r["covered"].mean(),
                         "coverage of mean true F": ((r["low"] <= mean_true)
                                                     & (mean_true <= r["high"])).mean(),
                         "mean width": r["width"].mean(),
                         "datasets with .632+": len(p632),
                         "bias .632+": (p632["632+"] - p632["true"]).mean(),
                         "bias nested (same sets)": (p632["nested"] - p632["true"]).mean(),
                         "seconds per data set": (time.perf_counter() - t0) / max(len(r), 1)})
            print(pd.DataFrame(rows).tail(1).round(4).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- part c
def part_c(ns, prevalences, datasets, seed, B):
    beta = np.array([1.0, 1.0, 0.5])
    theta_a = np.array([1.0, 0.0, 0.5])
    rows = []
    for prev in prevalences:
        b0 = intercept(beta, prev)
        c_a = best_cut(b0, beta, theta_a)
        f_a = true_f(b0, beta, theta_a, c_a)

        def gap(g):
            th = np.array([0.0, g, 0.5])
            return true_f(b0, beta, th, best_cut(b0, beta, th)) - (f_a - 0.03)

        g = optimize.brentq(gap, 0.01, 1.0)
        theta_w = np.array([0.0, g, 0.5])
        c_w = best_cut(b0, beta, theta_w)
        f_w = true_f(b0, beta, theta_w, c_w)
        theta_b = np.array([0.0, 1.0, 0.5])    # the mirror of a: the same true F
        for n in ns:
            rng = np.random.default_rng([seed, n, int(prev * 1000), 3])
            rej = {(k, m): [] for k in ("null", "power") for m in fm.inference.COMPARE_METHODS}
            for _ in range(datasets):
                x, y = draw(rng, n, b0, beta)
                if y.sum() == 0:
                    continue
                pa = (x @ theta_a >= c_a).astype(float)
                for kind, (th, cc) in (("null", (theta_b, c_a)), ("power", (theta_w, c_w))):
                    pb = (x @ th >= cc).astype(float)
                    for m in fm.inference.COMPARE_METHODS:
                        r = fm.compare(pa, pb, y_true=y, method=m, B=B, random_state=rng)
                        rej[(kind, m)].append(r.p_value < 0.05)
            for m in fm.inference.COMPARE_METHODS:
                rows.append({"n": n, "prevalence": prev, "method": m,
                             "F_a": f_a, "F_b (power)": f_w,
                             "datasets": len(rej[("null", m)]),
                             "type I error": np.mean(rej[("null", m)]),
                             "power (dF = 0.03)": np.mean(rej[("power", m)])})
    return pd.DataFrame(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", nargs="+", default=["a", "c"], choices=["a", "b", "c"])
    ap.add_argument("--n", nargs="+", type=int, default=[200, 1000, 5000])
    ap.add_argument("--prevalence", nargs="+", type=float, default=[0.05, 0.2, 0.5])
    ap.add_argument("--datasets", type=int, default=300)
    ap.add_argument("--B", type=int, default=2000, help="Monte-Carlo draws (parts a, c)")
    ap.add_argument("--B-tuning", type=int, default=200, help="replicates of part b's ci=True")
    ap.add_argument("--every", type=int, default=10,
                    help="part b: tune_threshold(ci=True) (for .632+) on every k-th data set")
    ap.add_argument("--seed", type=int, default=30)
    args = ap.parse_args(argv)
    print_header("How sure is the F? (issue 30)", ["numpy", "scipy", "pandas"], threads=1)
    pd.set_option("display.width", 200)
    if "a" in args.part:
        t = time.perf_counter()
        out = part_a(args.n, args.prevalence, args.datasets, args.seed)
        print(f"\nPart a: f_interval coverage of the true F of a fixed rule "
              f"({time.perf_counter() - t:.0f} s)")
        print(out.round(4).to_string(index=False), flush=True)
    if "c" in args.part:
        t = time.perf_counter()
        out = part_c(args.n, args.prevalence, args.datasets, args.seed, args.B)
        print(f"\nPart c: compare, type I error at 5 % and power at dF = 0.03 "
              f"({time.perf_counter() - t:.0f} s)")
        print(out.round(4).to_string(index=False), flush=True)
    if "b" in args.part:
        t = time.perf_counter()
        print("\nPart b: tune_threshold(ci=True) -- bias against the true F of the tuned rule")
        out = part_b(args.n, args.prevalence, args.datasets, args.seed, args.B_tuning,
                     args.every)
        print(f"\nPart b, all cells ({time.perf_counter() - t:.0f} s)")
        print(out.round(4).to_string(index=False), flush=True)


if __name__ == "__main__":
    main()
