"""Reference outputs of xCOLUMNs (PyPI ``xcolumns`` 0.0.2) for the plug-in macro-at-k rules.

Run once:  python tests/reference/xmlc_plugin_xcolumns.py

Inputs (``xmlc_plugin_inputs.csv``): n = 1000 instances, m = 80 labels with power-law
popularity, ~10 stored estimates per instance ~ Beta(1, 3), labels drawn with these
probabilities (calibrated).  Outputs (``xmlc_plugin_xcolumns.csv``, 17 significant digits,
version header):

* ``bca_f1_k{k}``, ``bca_recall_k{k}``: the labels predicted per instance by
  ``predict_optimizing_macro_{f1_score,recall}_using_bc(y_proba, k, init_y_pred="top",
  shuffle_order=False)`` (rows "instance, label");
* ``fw_f1_k3_{a,b,p}``: the rules and their probabilities of ``find_classifier_using_fw(
  y_true, y_proba, macro_f1_score_on_conf_matrix, 3, init_classifier="top", skip_tn=True)``
  (xCOLUMNs 0.0.2's ``find_classifier_optimizing_macro_f1_score_using_fw`` wrapper passes
  the metric of label matrices, not of confusion matrices, and fails; its arrays are
  float32).
"""
from __future__ import annotations

import csv
from importlib.metadata import version
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from xcolumns.block_coordinate import (predict_optimizing_macro_f1_score_using_bc,
                                       predict_optimizing_macro_recall_using_bc)
from xcolumns.frank_wolfe import find_classifier_using_fw
from xcolumns.metrics import macro_f1_score_on_conf_matrix

HERE = Path(__file__).parent
N, M, PER_ROW = 1000, 80, 10


def make_inputs(seed=2024):
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, M + 1)
    pop /= pop.sum()
    rows, cols = [], []
    for i in range(N):
        labels = np.unique(rng.choice(M, size=PER_ROW, p=pop))
        rows.append(np.full(labels.size, i))
        cols.append(labels)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    eta = rng.beta(1.0, 3.0, size=rows.size)
    y = rng.random(rows.size) < eta
    return rows, cols, eta, y


def main():
    rows, cols, eta, y = make_inputs()
    with open(HERE / "xmlc_plugin_inputs.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["instance", "label", "eta", "y"])
        for r, c, e, t in zip(rows, cols, eta, y):
            w.writerow([r, c, f"{e:.17g}", int(t)])
    P = sp.csr_matrix((eta, (rows, cols)), shape=(N, M))
    Y = sp.csr_matrix((np.ones(int(y.sum())), (rows[y], cols[y])), shape=(N, M))
    out = []
    for k in (1, 3):
        for name, fn in (("f1", predict_optimizing_macro_f1_score_using_bc),
                         ("recall", predict_optimizing_macro_recall_using_bc)):
            pred = fn(P.copy(), k, init_y_pred="top", shuffle_order=False)
            for i in range(N):
                for j in sorted(pred.indices[pred.indptr[i]:pred.indptr[i + 1]].tolist()):
                    out.append([f"bca_{name}_k{k}", i, j, 1])
    clf = find_classifier_using_fw(Y, P, macro_f1_score_on_conf_matrix, 3,
                                   init_classifier="top", skip_tn=True)
    for c in range(clf.p.size):
        for j in range(M):
            out.append(["fw_f1_k3_a", c, j, f"{float(clf.a[c, j]):.17g}"])
            out.append(["fw_f1_k3_b", c, j, f"{float(clf.b[c, j]):.17g}"])
        out.append(["fw_f1_k3_p", c, -1, f"{float(clf.p[c]):.17g}"])
    with open(HERE / "xmlc_plugin_xcolumns.csv", "w", newline="") as fh:
        fh.write(f"# xcolumns {version('xcolumns')}, made by xmlc_plugin_xcolumns.py\n")
        w = csv.writer(fh)
        w.writerow(["what", "i", "j", "value"])
        w.writerows(out)


if __name__ == "__main__":
    main()
