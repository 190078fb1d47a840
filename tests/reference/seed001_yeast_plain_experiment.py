"""Seed 001, yeast, the plain "-" variant: why fmstats is below Tables 3 and 5.

The paper (section 5) selects *every* hyper-parameter on the validation third by the F
measure -- for "-" that is the ridge constant C in {2^-6, ..., 2^6} (LIBLINEAR, C weights the
summed loss) -- and averages five random splits.  fmstats' ``costsens`` fixes penalty = 1
(C = 1).  This script runs "-" (and "T") over the paper's C grid on five splits and
reports, per measure: the test F at C = 1, and the test F of the C chosen on validation
(for macro-F also with C chosen per label, as binary relevance allows).

Run:  python tests/reference/seed001_yeast_plain_experiment.py > tests/reference/seed001_yeast_plain_experiment.out
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from fmstats.costsensitive import costsens
from fmstats.datasets import load_yeast, yeast_label_names

LABELS = yeast_label_names()
FORMULA = " + ".join(LABELS) + " ~ ."
C_GRID = 2.0 ** np.arange(-6, 7)
SPLITS = range(5)


def per_label_f(Y, P):
    tp = (Y * P).sum(0)
    den = Y.sum(0) + P.sum(0)
    return np.where(den == 0, 1.0, 2 * tp / np.where(den == 0, 1, den))


def main():
    train, test = load_yeast("train"), load_yeast("test")
    Yt = test[LABELS].to_numpy()
    rows = []
    for split in SPLITS:
        rng = np.random.default_rng(1000 + split)
        va = np.zeros(len(train), bool)
        va[rng.permutation(len(train))[: len(train) // 3]] = True
        for C in C_GRID:
            for measure in ("macro_f", "micro_f"):
                for thr in (False, True):
                    fit = costsens(FORMULA, train, measure=measure, costs=False, thresholds=thr,
                                   validation=va, penalty=1.0 / C, progress=False)
                    P = fit.predict(test).to_numpy()
                    rec = dict(split=split, C=C, measure=measure, variant=fit.variant,
                               validation_f=fit.validation_f, test_f=fit.measure(test))
                    if measure == "macro_f":
                        rec.update({f"val_{k}": v for k, v in fit.label_f.items()})
                        rec.update({f"test_{k}": v for k, v in zip(LABELS, per_label_f(Yt, P))})
                    rows.append(rec)
    d = pd.DataFrame(rows)
    out = []
    for (measure, variant), g in d.groupby(["measure", "variant"]):
        at1 = g[g.C == 1.0].test_f.mean()
        sd1 = g[g.C == 1.0].test_f.std(ddof=1)
        best = g.loc[g.groupby("split").validation_f.idxmax()]
        rec = dict(measure=measure, variant=variant, test_f_C1=at1, sd_over_splits_C1=sd1,
                   test_f_C_tuned=best.test_f.mean(), sd_C_tuned=best.test_f.std(ddof=1),
                   C_chosen=" ".join(f"{c:g}" for c in best.C))
        if measure == "macro_f":
            per = []
            for split, gs in g.groupby("split"):
                f = [gs.loc[gs[f"val_{k}"].idxmax(), f"test_{k}"] for k in LABELS]
                per.append(np.mean(f))
            rec["test_f_C_per_label"] = np.mean(per)
        out.append(rec)
    print("yeast, five random 2/3-1/3 splits of the training file, test = MULAN test file")
    print(pd.DataFrame(out).round(4).to_string(index=False))
    g = d[(d.measure == "macro_f") & (d.variant == "-")].groupby("C").test_f.mean()
    print("\nmacro-F of '-' by C (mean of five splits):")
    print(g.round(4).to_string())
    g = d[(d.measure == "micro_f") & (d.variant == "-")].groupby("C").test_f.mean()
    print("\nmicro-F of '-' by C (mean of five splits):")
    print(g.round(4).to_string())


if __name__ == "__main__":
    main()
