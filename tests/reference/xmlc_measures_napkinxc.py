"""Reference values of the measures at k (fmstats.extreme._atk) from napkinXC's ``measures``.

Run once (napkinXC 0.7.2, PyPI ``napkinxc``; the ``bench`` extra):

    python tests/reference/xmlc_measures_napkinxc.py

writes ``xmlc_measures_inputs.csv`` (the label lists of the truth and of the rankings: a
power-law label popularity, some instances without true labels, some rankings shorter than
5, the last label present so that napkinXC's macro averages run over all m labels) and
``xmlc_measures_napkinxc.csv`` (measure, k, value with 17 significant digits, napkinXC's
version in a header line).  napkinXC's macro measures at k always use k = 1..5 (its
``MacroMetricAtK`` passes k=5 to its parent), so k = 5 is asked for.
"""
from __future__ import annotations

import csv
from importlib.metadata import version
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix
from napkinxc import metrics as M

HERE = Path(__file__).parent
N, L, K = 400, 60, 5


def make_inputs(seed=28):
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, L + 1)
    pop /= pop.sum()
    truth, ranks = [], []
    for i in range(N):
        size = rng.poisson(2.5) if i % 17 else 0         # some instances have no labels
        t = sorted(set(rng.choice(L, size=size, p=pop).tolist())) if size else []
        # a ranking: true labels with probability 0.6, the rest by popularity
        cand = [j for j in t if rng.random() < 0.6]
        rest = [int(j) for j in rng.choice(L, size=12, p=pop) if j not in cand]
        r = list(dict.fromkeys(cand + rest))
        rng.shuffle(r[:3])
        r = r[:K if i % 11 else 3]                       # some rankings are shorter
        truth.append([int(j) for j in t])
        ranks.append([int(j) for j in r])
    truth[0] = sorted(set(truth[0]) | {L - 1})
    return truth, ranks


def main():
    truth, ranks = make_inputs()
    with open(HERE / "xmlc_measures_inputs.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["row", "truth", "ranking"])
        for i, (t, r) in enumerate(zip(truth, ranks)):
            w.writerow([i, " ".join(map(str, t)), " ".join(map(str, r))])
    rows = np.repeat(np.arange(N), [len(t) for t in truth])
    Y = csr_matrix((np.ones(rows.size), (rows, np.concatenate([t for t in truth if t]))),
                   shape=(N, L))
    inv_ps = M.Jain_et_al_inverse_propensity(Y, A=0.55, B=1.5)
    inv_ps_b = M.Jain_et_al_inverse_propensity(Y, A=0.6, B=2.6)
    out = {
        "precision": M.precision_at_k(truth, ranks, k=K),
        "recall": M.recall_at_k(truth, ranks, k=K),
        "ndcg": M.ndcg_at_k(truth, ranks, k=K),
        "psprecision": M.psprecision_at_k(truth, ranks, inv_ps, k=K),
        "psndcg": M.psndcg_at_k(truth, ranks, inv_ps, k=K),
        "psprecision_A0.6_B2.6": M.psprecision_at_k(truth, ranks, inv_ps_b, k=K),
        "psprecision_unnormalised": M.psprecision_at_k(truth, ranks, inv_ps, k=K,
                                                       normalize=False),
        "coverage": M.coverage_at_k(truth, ranks, k=K),
        "macro_f1": M.macro_f1_measure_at_k(truth, ranks, k=K),
        "macro_precision": M.macro_precision_at_k(truth, ranks, k=K),
        "macro_recall": M.macro_recall_at_k(truth, ranks, k=K),
    }
    with open(HERE / "xmlc_measures_napkinxc.csv", "w", newline="") as fh:
        fh.write(f"# napkinxc {version('napkinxc')}, made by xmlc_measures_napkinxc.py\n")
        w = csv.writer(fh)
        w.writerow(["measure", "k", "value"])
        for name, vals in out.items():
            for k, v in enumerate(np.asarray(vals, dtype=float), start=1):
                w.writerow([name, k, f"{v:.17g}"])
        for j, v in enumerate(inv_ps):
            w.writerow(["inv_propensity", j, f"{v:.17g}"])


if __name__ == "__main__":
    main()
