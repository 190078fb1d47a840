"""Do fmaxent's confidence intervals cover?  Coverage of 95 % Wald intervals by simulation.

For each design (a data-generating distribution, a prevalence, an F-measure and a sample size
n) the script

1. computes the *population target* theta*: the same estimator (``fmaxent`` with the same
   settings) on ``--n-pop`` rows (default 300,000) drawn from the same distribution;
2. draws ``--reps`` independent data sets of n rows, fits ``fmaxent`` to each and records the
   estimates and three kinds of standard errors: ``reweighted`` (the default: the sandwich that
   differentiates the F-reweighting), ``HC0`` (the sandwich with the F-weights held fixed, the
   old default) and, on a subset of designs and ``--boot-reps`` data sets, ``bootstrap``
   (``cov_type="bootstrap"``, B = ``--B`` refits of the whole fit);
3. reports, per coefficient, the coverage of estimate +/- 1.96 SE of theta*, the ratio of the
   mean SE to the Monte-Carlo sd of the estimates, the bias in units of that sd, and the
   *oracle* coverage (estimate +/- 1.96 x the Monte-Carlo sd): the best any standard error can
   do for an estimator with this bias.

The target is computed by the estimator on a large sample, never from the standard errors,
so the coverage is evidence about the standard errors, not agreement of the code with itself.
Monte-Carlo error of a coverage near 0.95 over R replicates: sqrt(0.95 * 0.05 / R) (0.0097 at
R = 500).

Designs:
  logistic      y ~ Bernoulli(expit(b0 + x1 - 0.5 x2 + 0.8 x3 + g)), x1, x2 ~ N(0, 1),
                x3 ~ U(-1, 1), g a 3-level factor (shares .5/.3/.2, effects 0/0.6/-0.7);
                b0 set for prevalence 0.1 or 0.3.  Fitted: y ~ x1 + x2 + x3 + C(g).
  misspecified  as logistic with 0.6 x1^2 + 0.7 x1 x2 and 0.8 sign(x3) in place of 0.8 x3,
                fitted with the same (linear) formula.
  thesisA/B     the Gaussian classes of thesis sections 8.1/9.1 (designs A and B, equal class
                sizes) with the Beta label noise of section 9.2; fitted: q ~ x1 + x2 (the
                noisy-F maximiser, Algorithm 7.1).

Run from the repository root (about 40 minutes on 2 cores for everything)::

    PYTHONPATH=. python benchmarks/inference/bench_fmaxent_coverage.py                 # all designs
    PYTHONPATH=. python benchmarks/inference/bench_fmaxent_coverage.py --quick         # a smoke run
    PYTHONPATH=. python benchmarks/inference/bench_fmaxent_coverage.py --table-only    # re-print

Replicates are saved to ``benchmarks/results/fmaxent_coverage_*.csv`` as they finish, so a
run can be resumed and the table re-printed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.special import expit
from threadpoolctl import threadpool_limits

import fmstats as fm
from fmstats.maxent_models import MIN_CLASS_REWEIGHTED

Z = 1.959963984540054
RESULTS = Path(__file__).resolve().parents[1] / "results"   # benchmarks/results/
RESULTS.mkdir(parents=True, exist_ok=True)   # benchmarks/results/ is not in git
FORMULA = {"logistic": "y ~ x1 + x2 + x3 + C(g)", "misspecified": "y ~ x1 + x2 + x3 + C(g)",
           "thesisA": "q ~ x1 + x2", "thesisB": "q ~ x1 + x2"}
# intercepts giving prevalence 0.1 / 0.3 (solved numerically on 400,000 draws)
INTERCEPT = {("logistic", 0.1): -2.815, ("logistic", 0.3): -1.151,
             ("misspecified", 0.1): -3.821, ("misspecified", 0.3): -1.812}
# thesis section 8.1: class means and diagonal variances (class 0, class 1)
THESIS = {"thesisA": ((0.5, 1.0), (0.3, 0.3), (1.0, 0.8), (0.3, 0.3)),
          "thesisB": ((2.0, 1.0), (1.0, 0.3), (1.0, 2.0), (0.3, 1.0))}


def draw(design: str, prevalence: float, n: int, seed: int) -> pd.DataFrame:
    """n rows of a design; the seed fixes them."""
    rng = np.random.default_rng(seed)
    if design.startswith("thesis"):
        mu0, v0, mu1, v1 = THESIS[design]
        y = (np.arange(n) % 2).astype(int)
        rng.shuffle(y)
        mu = np.where(y[:, None] == 1, mu1, mu0)
        sd = np.sqrt(np.where(y[:, None] == 1, v1, v0))
        x = mu + sd * rng.normal(size=(n, 2))
        # section 9.2: a latent positive keeps its label with 1 - Beta(1, 5), a latent
        # negative becomes positive with Beta(2, 5)
        q = np.where(y == 1, 1 - rng.beta(1, 5, size=n), rng.beta(2, 5, size=n))
        return pd.DataFrame({"q": q, "x1": x[:, 0], "x2": x[:, 1]})
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    x3 = rng.uniform(-1, 1, size=n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    g_eff = np.select([g == "b", g == "c"], [0.6, -0.7], 0.0)
    if design == "logistic":
        eta = x1 - 0.5 * x2 + 0.8 * x3 + g_eff
    else:
        eta = x1 + 0.6 * x1 ** 2 - 0.5 * x2 + 0.7 * x1 * x2 + 0.8 * np.sign(x3) + g_eff
    eta = eta + INTERCEPT[(design, prevalence)]
    y = (rng.uniform(size=n) < expit(eta)).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "x3": x3, "g": g})


def fit(design, prevalence, n, beta, seed, cov_type, B=200):
    """One replicate: estimates and standard errors (NaN where unusable)."""
    d = draw(design, prevalence, n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with threadpool_limits(1):
            kw = dict(B=B, random_state=seed) if cov_type == "bootstrap" else {}
            f = fm.fmaxent(FORMULA[design], d, beta=beta, cov_type=cov_type, **kw)
            out = {"seed": seed, "n_pos": float(f.y.sum()), "iterations": f.best_iteration,
                   "converged": f.outer_converged}
            for name, v in f.params.items():
                out[f"est:{name}"] = v
            types = ["bootstrap"] if cov_type == "bootstrap" else ["reweighted", "HC0"]
            for ct in types:
                se = np.sqrt(np.diag(f.cov_params(ct).to_numpy()))
                if f.se_unusable(ct):
                    se = np.full_like(se, np.nan)
                for name, v in zip(f.params.index, se):
                    out[f"se_{ct}:{name}"] = v
            if cov_type == "bootstrap":
                reps = f.bootstrap_results.replicates[f.params.index].to_numpy()
                ok = np.all(np.isfinite(reps), axis=1)
                out["boot_lost"] = 1 - ok.mean()
                # the bootstrap bias correction: 2 theta - mean(theta*)
                for name, v, m in zip(f.params.index, f.params, reps[ok].mean(axis=0)):
                    out[f"bc:{name}"] = 2 * v - m
    return out


def target(design, prevalence, beta, n_pop, seed=10 ** 6):
    path = RESULTS / f"fmaxent_coverage_target_{design}_{prevalence}_{beta}_{n_pop}.csv"
    if path.exists():
        return pd.read_csv(path, index_col=0).iloc[:, 0]
    d = draw(design, prevalence, n_pop, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = fm.fmaxent(FORMULA[design], d, beta=beta, cov_type="HC0")
    t = f.params.rename("target")
    t.to_csv(path)
    return t


def replicates(design, prevalence, n, beta, reps, cov_type, jobs, B, compute=True):
    """The saved replicates (seeds below ``reps``), computing the missing ones if ``compute``."""
    tag = "boot" if cov_type == "bootstrap" else "rw"
    path = RESULTS / f"fmaxent_coverage_{tag}_{design}_{prevalence}_{n}_{beta}.csv"
    done = pd.read_csv(path) if path.exists() else pd.DataFrame({"seed": []})
    todo = [s for s in range(reps) if s not in set(done["seed"].astype(int))] if compute else []
    if todo:
        t0 = time.perf_counter()
        # the workers import the function by module name (a __main__ function does not travel)
        from bench_fmaxent_coverage import fit as fit_one

        rows = Parallel(n_jobs=jobs)(delayed(fit_one)(design, prevalence, n, beta, s, cov_type, B)
                                     for s in todo)
        done = pd.concat([done, pd.DataFrame(rows)], ignore_index=True) if len(done) else \
            pd.DataFrame(rows)
        done.to_csv(path, index=False)
        print(f"  {design} prev={prevalence} n={n} beta={beta} {tag}: {len(todo)} fits in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    return done[done["seed"] < reps]


def coverage_table(tgt, rw, boot=None):
    """Per coefficient: bias/sd, SE/sd, coverage of each SE and the oracle coverage."""
    rows = []
    for name, t in tgt.items():
        est = rw[f"est:{name}"].to_numpy()
        sd = np.std(est, ddof=1)
        row = {"term": name, "target": t, "bias/sd": (est.mean() - t) / sd, "mc_sd": sd,
               "oracle": np.mean(np.abs(est - t) <= Z * sd)}
        for ct, frame in (("reweighted", rw), ("HC0", rw), ("bootstrap", boot)):
            if frame is None or f"se_{ct}:{name}" not in frame:
                continue
            se = frame[f"se_{ct}:{name}"].to_numpy()
            e = frame[f"est:{name}"].to_numpy()
            ok = np.isfinite(se)
            row[f"cov_{ct}"] = np.mean(np.abs(e[ok] - t) <= Z * se[ok]) if ok.any() else np.nan
            row[f"se/sd_{ct}"] = np.median(se[ok]) / sd if ok.any() else np.nan
            row[f"unusable_{ct}"] = 1 - ok.mean()
        if boot is not None and f"bc:{name}" in boot:
            # bias-corrected estimate with the bootstrap SE
            bc, se = boot[f"bc:{name}"].to_numpy(), boot[f"se_bootstrap:{name}"].to_numpy()
            ok = np.isfinite(se) & np.isfinite(bc)
            row["cov_bootstrap_bc"] = np.mean(np.abs(bc[ok] - t) <= Z * se[ok])
        rows.append(row)
    return pd.DataFrame(rows).set_index("term")


def designs(args):
    out = []
    for n in args.n:
        for prev in (0.1, 0.3):
            for beta in (1.0, 2.0):
                out.append(("logistic", prev, n, beta))
        for beta in (1.0, 2.0):
            out.append(("misspecified", 0.3, n, beta))
        for name in ("thesisA", "thesisB"):
            out.append((name, 0.5, n, 1.0))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[300, 1000, 3000])
    p.add_argument("--reps", type=int, default=500)
    p.add_argument("--boot-reps", type=int, default=100)
    p.add_argument("--B", type=int, default=200)
    p.add_argument("--n-pop", type=int, default=300_000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--no-bootstrap", action="store_true")
    p.add_argument("--only", nargs="+", help="these designs only (e.g. misspecified)")
    p.add_argument("--boot-all", action="store_true",
                   help="the bootstrap also where the default is the reweighted sandwich")
    p.add_argument("--quick", action="store_true", help="n = 1000, 60 replicates, no bootstrap")
    p.add_argument("--table-only", action="store_true", help="print from saved replicates")
    p.add_argument("--rst", action="store_true", help="also print the docs' table (reST)")
    args = p.parse_args(argv)
    if args.quick:
        args.n, args.reps, args.no_bootstrap, args.n_pop = [1000], 60, True, 100_000
    RESULTS.mkdir(exist_ok=True)
    print(f"fmstats {fm.__version__}; numpy {np.__version__}; {os.cpu_count()} cpus")
    summary = []
    for design, prev, n, beta in designs(args):
        if args.only and design not in args.only:
            continue
        tgt = target(design, prev, beta, args.n_pop)
        if args.table_only and not (RESULTS / f"fmaxent_coverage_rw_{design}_{prev}_{n}_{beta}.csv").exists():
            continue
        rw = replicates(design, prev, n, beta, args.reps, "reweighted", args.jobs, args.B,
                        compute=not args.table_only)
        boot = None
        # the default covariance is the bootstrap below MIN_CLASS_REWEIGHTED rows in the
        # smaller class: measure it on every such design
        small = min(rw["n_pos"].median(), n - rw["n_pos"].median())
        with_boot = small < MIN_CLASS_REWEIGHTED or args.boot_all
        saved = (RESULTS / f"fmaxent_coverage_boot_{design}_{prev}_{n}_{beta}.csv").exists()
        if with_boot and not args.no_bootstrap and (saved or not args.table_only):
            boot = replicates(design, prev, n, beta, args.boot_reps, "bootstrap", args.jobs,
                              args.B, compute=not args.table_only)
        table = coverage_table(tgt, rw, boot)
        print(f"\n{design}, prevalence {prev}, n = {n}, beta = {beta:g}: {len(rw)} replicates"
              f" (median positives {rw['n_pos'].median():.0f})"
              + (f", bootstrap on {len(boot)} (B = {args.B}, replicates lost: "
                 f"{boot['boot_lost'].mean():.1%})" if boot is not None else ""))
        print(table.round(3).to_string())
        s = {"design": design, "prev": prev, "n": n, "beta": beta,
             "positives": rw["n_pos"].median()}
        for col in ("oracle", "cov_reweighted", "cov_HC0", "cov_bootstrap"):
            if col in table:
                s[f"{col} min"] = table[col].min()
                s[f"{col} max"] = table[col].max()
        default = "cov_bootstrap" if small < MIN_CLASS_REWEIGHTED else "cov_reweighted"
        if default in table:
            s["default"] = default[4:]
            s["default min"], s["default max"] = table[default].min(), table[default].max()
            s["default gap to oracle"] = (table[default] - table["oracle"]).abs().max()
        summary.append(s)
    print("\nSummary: coverage range over the coefficients of each design (95 % intervals)")
    print(pd.DataFrame(summary).round(3).to_string(index=False))
    if args.rst:
        print("\n" + rst_table(pd.DataFrame(summary)))


def rst_table(summary: pd.DataFrame) -> str:
    """The summary as the list-table of docs/inference.rst (designs merged over beta)."""
    def span(lo, hi):
        return "" if pd.isna(lo) else f"{lo:.2f}–{hi:.2f}"

    name = {"logistic": "logistic, prevalence {prev}", "misspecified": "misspecified, "
            "prevalence {prev}", "thesisA": "thesis design A (noisy labels)",
            "thesisB": "thesis design B (noisy labels)"}
    cols = ["design", "n", "smaller class", "oracle", "default", "reweighted", "bootstrap",
            "HC0 (old default)"]
    lines = [".. list-table:: Coverage of 95 % intervals, range over the coefficients (and "
             "over β = 1, 2 where both ran)", "   :header-rows: 1", ""]
    lines += [f"   {'*' if i == 0 else ' '} - {c}" for i, c in enumerate(cols)]
    keys = ["design", "prev", "n"]
    for (design, prev, n), g in summary.groupby(keys, sort=False):
        small = min(g["positives"].median(), n - g["positives"].median())
        default = g["default"].iloc[0] if "default" in g else ""
        row = [name[design].format(prev=prev), str(n), f"{small:.0f}",
               span(g["oracle min"].min(), g["oracle max"].max()),
               f"{default}: {span(g['default min'].min(), g['default max'].max())}"
               if "default min" in g and g["default min"].notna().any() else "",
               span(g["cov_reweighted min"].min(), g["cov_reweighted max"].max()),
               span(g["cov_bootstrap min"].min(), g["cov_bootstrap max"].max())
               if "cov_bootstrap min" in g else "",
               span(g["cov_HC0 min"].min(), g["cov_HC0 max"].max())]
        lines += [f"   {'*' if i == 0 else ' '} - {c}" for i, c in enumerate(row)]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
