"""Choose fmaxent's default regularisation by held-out F (issue 14): the comparison table.

Candidates for the expected-F maximiser (0/1 labels), all with full warm-started refits:

* ``default``   -- weight_bounds="auto" (= (0.01, 10)) and shrinkage=1e-4 (the package default)
* ``thesis``    -- weight_bounds=(0.01, 10), shrinkage=0: the thesis's own setting
* ``unbounded`` -- weight_bounds=None, shrinkage=0: Algorithm 4.1 with no control at all
* ``clip.05``   -- weight_bounds=(0.05, 10), shrinkage=0: a tighter floor on the weights
* ``shrink3e-5``, ``shrink1e-3``, ``shrink1e-2`` -- the default's clipping with other shrinkage
* ``ridge1``    -- no clipping, a raw ridge ``penalty=1`` (unit-dependent)
* ``maxent``    -- plain maximum likelihood, for reference

Data: fresh draws of the chapter-9 data A and B (``make_thesis_noisy_data``; the first 400
training rows, the labels y_ml; the test set is the 1,000 training rows of an independent draw),
alpha = 0.05, ..., 0.95; Titanic (``survived ~ C(pclass) * sex + age + sibsp``) on 10 random
70/30 splits at alpha 0.3, 0.5, 0.7; Adult (its own test file) at alpha 0.3, 0.5, 0.7.
For probabilistic labels (noisy-F maximiser, q ~ x1 + x2) the default (epsilon = 0.01, no
clipping, shrinkage 1e-4) is compared with the thesis's clipping of the raw weights.

    python benchmarks/fidelity/bench_fmaxent_defaults.py [--seeds 5] [--quick]

Prints the tables and whether the targets of issue 14 hold; never asserts.
"""
from __future__ import annotations
import os
import sys

import argparse
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable

ensure_fmstats_importable()

import fmstats as fm  # noqa: E402

ALPHAS = np.round(np.arange(0.05, 0.951, 0.05), 2)
CANDIDATES = {
    "default": {},
    "thesis": dict(weight_bounds=(0.01, 10), shrinkage=0.0),
    "unbounded": dict(weight_bounds=None, shrinkage=0.0),
    "clip.05": dict(weight_bounds=(0.05, 10), shrinkage=0.0),
    "shrink3e-5": dict(shrinkage=3e-5),
    "shrink1e-3": dict(shrinkage=1e-3),
    "shrink1e-2": dict(shrinkage=1e-2),
    "ridge1": dict(weight_bounds=None, shrinkage=0.0, penalty=1.0),
}
NOISY = {"default": {}, "thesis": dict(epsilon=None, weight_bounds=(0.01, 10), shrinkage=0.0)}
TITANIC = "survived ~ C(pclass) * sex + age + sibsp"
ADULT = ("income ~ age + education_num + hours_per_week + C(sex) + C(relationship) + C(race)"
         " + C(marital_status) + np.log1p(capital_gain) + np.log1p(capital_loss)")


def thesis_draw(name: str, seed: int):
    d = fm.datasets.make_thesis_noisy_data(name, random_state=seed)
    train = d[d.split == "train"].iloc[:400].reset_index(drop=True)
    t = fm.datasets.make_thesis_noisy_data(name, random_state=seed + 10_000)
    return train, t[t.split == "train"].reset_index(drop=True)


def fit_row(formula, train, test, alpha, cand, kwargs, **labels):
    t = time.perf_counter()
    if cand == "maxent":
        r = fm.maxent(formula, train)
        maxc, sep = float(np.nanmax(np.abs(r.params))), r.separated
    else:
        r = fm.fmaxent(formula, train, alpha=alpha, **kwargs)
        maxc, sep = float(np.nanmax(np.abs(r.params))), r.separated
    return dict(labels, alpha=alpha, cand=cand, test_f=r.measure(test, alpha=alpha),
                max_coef=maxc, separated=bool(sep), seconds=time.perf_counter() - t)


def table(df: pd.DataFrame, ref: str = "thesis") -> pd.DataFrame:
    keys = [c for c in ("data", "seed", "alpha") if c in df]
    w = df.pivot_table(index=keys, columns="cand", values="test_f")
    d = w.sub(w[ref], axis=0)
    g = df.groupby("cand")
    out = pd.DataFrame({"mean_test_F": w.mean(), f"mean_vs_{ref}": d.mean(),
                        f"worst_vs_{ref}": d.min(), "max_|coef|": g["max_coef"].max(),
                        "n_|coef|>50": g["max_coef"].apply(lambda s: int((s > 50).sum())),
                        "n_separated": g["separated"].sum().astype(int),
                        "cases": g.size(), "sec/fit": g["seconds"].mean()})
    return out.sort_values("mean_test_F", ascending=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="2 seeds, no Adult")
    args = ap.parse_args(argv)
    seeds = range(1, 3 if args.quick else args.seeds + 1)
    warnings.simplefilter("ignore")
    pd.set_option("display.width", 200)
    print(f"fmstats {fm.__version__}; seeds {list(seeds)}\n")
    cands = {**CANDIDATES, "maxent": None}

    rows = []
    for name in ("A", "B"):
        for seed in seeds:
            train, test = thesis_draw(name, seed)
            for a in ALPHAS:
                for c, kw in cands.items():
                    rows.append(fit_row("y_ml ~ x1 + x2", train, test, float(a), c, kw,
                                        data=name, seed=seed))
    ab = pd.DataFrame(rows)
    print("1. Expected-F maximiser, chapter-9 data A and B (400 training rows), "
          f"{len(ALPHAS)} alphas x {len(seeds)} seeds x 2 data sets")
    print(table(ab).round(4).to_string(), "\n")

    rows = []
    ti = fm.datasets.load_titanic().dropna(subset=["age"]).reset_index(drop=True)
    rng = np.random.default_rng(7)
    for s in range(10):
        idx = rng.permutation(len(ti))
        n_tr = int(0.7 * len(ti))
        train, test = ti.iloc[idx[:n_tr]], ti.iloc[idx[n_tr:]]
        for a in (0.3, 0.5, 0.7):
            for c, kw in cands.items():
                rows.append(fit_row(TITANIC, train, test, a, c, kw, data="titanic", seed=s))
    tt = pd.DataFrame(rows)
    print("2. Titanic, 10 random 70/30 splits x alpha 0.3/0.5/0.7")
    print(table(tt).round(4).to_string(), "\n")
    full = {c: fm.fmaxent(TITANIC, ti, beta=1, **kw) for c, kw in CANDIDATES.items()}
    print("   the README model on all rows (beta = 1): max |coef|, separated, finite SEs")
    for c, r in full.items():
        print(f"   {c:11s} {np.abs(r.params).max():12.4g}  {str(r.separated):5s}  "
              f"{bool(np.all(np.isfinite(r.bse)))}")
    print()

    if not args.quick:
        rows = []
        ad, adt = fm.datasets.load_adult("train"), fm.datasets.load_adult("test")
        for a in (0.3, 0.5, 0.7):
            for c in ("default", "thesis", "unbounded", "shrink1e-3", "ridge1", "maxent"):
                rows.append(fit_row(ADULT, ad, adt, a, c, cands[c], data="adult", seed=0))
        print("3. Adult (train -> test file), alpha 0.3/0.5/0.7")
        print(table(pd.DataFrame(rows)).round(4).to_string(), "\n")

    rows = []
    for name in ("A", "B"):
        for seed in seeds:
            train, test = thesis_draw(name, seed)
            for a in ALPHAS:
                for c, kw in NOISY.items():
                    r = fm.fmaxent("q ~ x1 + x2", train, alpha=float(a), **kw)
                    rows.append(dict(data=name, seed=seed, alpha=a, cand=c,
                                     train=r.noisy_f(alpha=float(a)),
                                     test=r.noisy_f(test, alpha=float(a)),
                                     max_coef=float(np.abs(r.params).max())))
    nz = pd.DataFrame(rows)
    print("4. Noisy-F maximiser (q ~ x1 + x2), noisy F (correlated) on training and test rows")
    out = {}
    for col in ("train", "test"):
        w = nz.pivot_table(index=["data", "seed", "alpha"], columns="cand", values=col)
        out[f"mean_{col}"] = w.mean()
        out[f"mean_{col}_vs_thesis"] = (w["default"] - w["thesis"]).mean() * (w.columns == "default")
    out["max_|coef|"] = nz.groupby("cand")["max_coef"].max()
    print(pd.DataFrame(out).round(5).to_string(), "\n")

    # the targets of issue 14
    w = ab.pivot_table(index=["data", "seed", "alpha"], columns="cand", values="test_f")
    diff = w["default"] - w["thesis"]
    nd = {col: (nz.pivot_table(index=["data", "seed", "alpha"], columns="cand", values=col))
          for col in ("train", "test")}
    checks = [
        ("A/B mean held-out F >= thesis - 0.002", diff.mean() >= -0.002, f"{diff.mean():+.4f}"),
        ("A/B no case more than 0.03 below thesis", diff.min() >= -0.03, f"{diff.min():+.4f}"),
        ("A/B max |coef| <= 50", ab[ab.cand == "default"].max_coef.max() <= 50,
         f"{ab[ab.cand == 'default'].max_coef.max():.2f}"),
        ("Titanic model max |coef| <= 100", np.abs(full["default"].params).max() <= 100,
         f"{np.abs(full['default'].params).max():.2f}"),
        ("Titanic model finite SEs, not separated",
         bool(np.all(np.isfinite(full["default"].bse))) and not full["default"].separated, ""),
    ]
    for col in ("train", "test"):
        dn = (nd[col]["default"] - nd[col]["thesis"]).mean()
        checks.append((f"noisy F ({col}) >= thesis - 0.001", dn >= -0.001, f"{dn:+.5f}"))
    print("Targets of issue 14 (default vs thesis settings):")
    for label, ok, value in checks:
        print(f"   [{'PASS' if ok else 'FAIL'}] {label} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
