"""Issue 27: held-out F of decisions beyond one binary threshold.

Binary (three data sets): the held-out F1 of

* ``maxent @0.5``      -- maxent, class 1 at p >= 0.5;
* ``raw threshold``    -- maxent with ``tune_threshold`` (exact search on pooled 5-fold CV
  scores);
* ``calibrated F*/2``  -- ``calibrate(maxent, method)`` and the plug-in threshold F*/2 on the
  calibrated probabilities (F* the F1 the calibrated held-out probabilities attain at
  their optimum; no threshold search on the model's own scale);
* ``calibrated + tuned`` -- ``tune_threshold`` of the calibrated model;
* ``fmaxent``          -- the F1-maximising reweighting (its own threshold 0.5).

Multiclass (three data sets): the held-out micro-F1 with a default class (seed 001's
definition, ``wrong_class="fn"``) and macro-F1 of

* ``argmax``           -- multinom's most probable class;
* ``plug-in micro-F``  -- ``multiclass_decision(rule="micro_f")`` (pooled 5-fold CV);
* ``costsens``         -- ``costsens(measure="multiclass_f")`` (seed 001's reduction:
  19 costs x thresholds on a 1/3 validation split, ridge multinomial learner);
* ``FW macro-F``       -- ``multiclass_decision(rule="macro_f")``.

Intervals: 95% percentile bootstrap over the test rows (B = 1000; the test set is resampled,
the fitted rule is fixed).  Data: Adult (bundled train/test), Titanic and fair (70/30
seeded splits) for the binary part; fair's religious (4 classes), Titanic's pclass (3
classes) and a synthetic 4-class set with a dominant default class (20,000 / 10,000 rows)
for the multiclass part.

Run:  PYTHONPATH=. python benchmarks/fidelity/bench_decisions.py [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import ensure_fmstats_importable

ensure_fmstats_importable()
import fmstats as fm  # noqa: E402
from fmstats.calibration import f_optimal_threshold  # noqa: E402
from fmstats.multiclass import macro_f  # noqa: E402

B = 1000


def _split(d, seed, frac=0.7):
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(d))
    k = int(frac * len(d))
    return d.iloc[idx[:k]].reset_index(drop=True), d.iloc[idx[k:]].reset_index(drop=True)


def binary_sets(quick):
    tr = fm.datasets.load_adult("train")
    te = fm.datasets.load_adult("test")
    for d in (tr, te):
        d["rich"] = (d.income.astype(str).str.rstrip(".") == ">50K").astype(int)
    if quick:
        tr, te = tr.iloc[:5000], te.iloc[:5000]
    yield ("Adult", "rich ~ age + education_num + hours_per_week + C(sex) + C(relationship) "
                    "+ np.log1p(capital_gain) + np.log1p(capital_loss)", tr, te)
    t = fm.datasets.titanic_complete()
    yield ("Titanic", "survived ~ C(pclass) + sex + age + sibsp", *_split(t, 0))
    import statsmodels.api as sm
    fair = sm.datasets.fair.load_pandas().data
    fair["cheat"] = (fair.affairs > 0).astype(int)
    yield ("fair (affairs > 0)", "cheat ~ rate_marriage + age + yrs_married + children + "
                                 "religious + educ", *_split(fair, 1))


def _f1(y, pred):
    tp = np.sum((y == 1) & (pred == 1))
    return 2 * tp / max(2 * tp + np.sum((y == 0) & (pred == 1)) + np.sum((y == 1) & (pred == 0)),
                        1)


def _interval(stat, n, rng):
    vals = [stat(rng.integers(0, n, n)) for _ in range(B)]
    return np.quantile(vals, [0.025, 0.975])


def run_binary(quick):
    rows = []
    for name, formula, tr, te in binary_sets(quick):
        t0 = time.perf_counter()
        m = fm.maxent(formula, tr)
        yte = np.asarray(m.spec.build_with_response(te, missing="drop")[0].y)
        preds = {"maxent @0.5": m.predict(te, type="class").to_numpy()}
        tt = fm.tune_threshold(m, tr, random_state=0)
        preds["raw threshold"] = tt.predict(te, type="class").to_numpy()
        for method in ("platt", "isotonic"):
            cal = fm.calibrate(m, tr, method=method, random_state=0)
            o = cal.oof
            _, fstar = f_optimal_threshold(o.calibrated.to_numpy(), o.y.to_numpy(),
                                           o.weight.to_numpy(), fm.FMeasure())
            preds[f"calibrated ({method}) F*/2"] = cal.predict(te, type="class",
                                                               threshold=fstar / 2).to_numpy()
            ct = fm.tune_threshold(cal, tr, random_state=0)
            preds[f"calibrated ({method}) + tuned"] = ct.predict(te, type="class").to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fmx = fm.fmaxent(formula, tr, beta=1)
        preds["fmaxent"] = fmx.predict(te, type="class").to_numpy()
        rng = np.random.default_rng(0)
        for k, p in preds.items():
            lo, hi = _interval(lambda i, p=p: _f1(yte[i], p[i]), len(yte), rng)
            rows.append({"data": name, "n_train": len(tr), "n_test": len(yte), "rule": k,
                         "test F1": _f1(yte, p), "lo": lo, "hi": hi})
        print(f"  {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return pd.DataFrame(rows)


def multiclass_sets(quick):
    import statsmodels.api as sm
    fair = sm.datasets.fair.load_pandas().data
    yield ("fair religious (4)", "religious ~ age + educ + yrs_married + rate_marriage + "
                                 "C(occupation)", 3.0, *_split(fair, 2))
    t = fm.datasets.titanic_complete()
    yield ("Titanic pclass (3)", "pclass ~ age + sex + sibsp + survived", 3, *_split(t, 3))
    rng = np.random.default_rng(27)
    n = 6000 if quick else 30000
    X = rng.normal(size=(n, 4))
    logits = X @ rng.normal(size=(4, 4)) * 0.8 + np.array([2.0, 0.0, -0.5, -1.0])
    P = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    cls = (P.cumsum(1) > rng.uniform(size=(n, 1))).argmax(1)
    d = pd.DataFrame(X, columns=["x1", "x2", "x3", "x4"])
    d["k"] = np.array(["d", "a", "b", "c"])[cls]
    yield ("synthetic (4, default 'd')", "k ~ x1 + x2 + x3 + x4", "d", *_split(d, 4, 2 / 3))


def run_multiclass(quick):
    rows = []
    for name, formula, dflt, tr, te in multiclass_sets(quick):
        t0 = time.perf_counter()
        m = fm.multinom(formula, tr, default_class=dflt)
        col = m.response_name
        te = te[te[col].isin(m.levels)].reset_index(drop=True)
        y = te[col].to_numpy(dtype=object)
        lv = list(m.levels)
        code = np.array([lv.index(v) for v in y])
        preds = {"argmax": m.predict(te, type="class").to_numpy(dtype=object)}
        preds["plug-in micro-F"] = fm.multiclass_decision(
            m, tr, rule="micro_f", random_state=0).predict(te).to_numpy(dtype=object)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cs = fm.costsens(formula, tr, measure="multiclass_f", default_class=dflt,
                             random_state=0)
        preds["costsens"] = np.asarray(cs.predict(te), dtype=object)
        preds["FW macro-F"] = fm.multiclass_decision(
            m, tr, rule="macro_f", random_state=0).predict(te).to_numpy(dtype=object)
        rng = np.random.default_rng(0)
        ones = np.ones(len(y))
        for k, p in preds.items():
            pc = np.array([lv.index(v) for v in p])

            def micro(i, p=p):
                return fm.measures.multiclass_micro_f(y[i], p[i], dflt, wrong_class="fn")

            def macro(i, pc=pc):
                return macro_f(pc[i], code[i], ones[i], len(lv))
            mlo, mhi = _interval(micro, len(y), rng)
            alo, ahi = _interval(macro, len(y), rng)
            rows.append({"data": name, "n_train": len(tr), "n_test": len(y), "rule": k,
                         "micro-F1": micro(np.arange(len(y))), "micro lo": mlo,
                         "micro hi": mhi, "macro-F1": macro(np.arange(len(y))),
                         "macro lo": alo, "macro hi": ahi})
        print(f"  {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="5000-row Adult, 6000-row synthetic")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    print("Binary: held-out F1 (95% bootstrap interval over test rows)")
    print(run_binary(args.quick).round(4).to_string(index=False))
    print()
    print("Multiclass: held-out micro-F1 (default class, seed 001) and macro-F1")
    print(run_multiclass(args.quick).round(4).to_string(index=False))


if __name__ == "__main__":
    main()
