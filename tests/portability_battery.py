"""The decisions fmstats makes from computed numbers, printed as JSON (tests/test_portability.py).

Run once per OpenBLAS kernel (``OPENBLAS_CORETYPE``) in a fresh process; the test compares the
outputs.  Every *decision* (a chosen grid point, a tuned threshold's row, a QP's active set, an
F-SVM's fold predictions) must be identical under every kernel; continuous values are reported
too and compared with a tolerance.
"""
from __future__ import annotations

import hashlib
import json
import warnings

import numpy as np
from threadpoolctl import threadpool_info

import fmstats as fm
from fmstats.svm import tune_fsvm, tune_wsvm
from fmstats.svm._qp import wsvm_fit, wsvm_grid
from fmstats.svm import thesis_grid


def _digest(values) -> str:
    return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:16]


def main() -> dict:
    warnings.simplefilter("ignore")
    out: dict = {"kernel": next((i.get("architecture") for i in threadpool_info()
                                 if i.get("internal_api") == "openblas"), None)}
    # the F-SVM tuned on B1 (the tune_fsvm docstring example): fold confusion counts and choice
    d = fm.datasets.make_thesis_svm_data("B1", random_state=0, n_train=(90, 30))
    tr = d[d.split == "train"]
    tuned = tune_fsvm("y ~ x1 + x2", tr, alpha=0.5, a_grid=(1.0, 5.0), random_state=0)
    out["fsvm_best"] = tuned.best_params
    out["fsvm_fold_counts"] = tuned.fold_results[["tp", "fp", "fn", "tn"]].to_numpy().tolist()
    out["fsvm_params"] = tuned.best_model.params.tolist()
    # the weighted SVM's grid: polish decisions and the chosen costs
    a2 = fm.datasets.make_thesis_svm_data("A2", random_state=2024)
    a2 = a2[a2.split == "train"].reset_index(drop=True)
    X, y = a2[["x1", "x2"]].to_numpy(), a2["y"].to_numpy()
    costs = np.array([[p["C_pos"], p["C_neg"]] for p in thesis_grid(y, 20)])
    for name, rows in (("all", slice(None)), ("half", slice(None, None, 2))):
        fits = wsvm_grid(X[rows], y[rows], costs)
        out[f"qp_{name}_polished"] = _digest([f.polished for f in fits])
        out[f"qp_{name}_rules"] = _digest([f.b_rule for f in fits])
        out[f"qp_{name}_classes"] = _digest([(f.decision > 0).tolist() for f in fits])
        out[f"qp_{name}_w"] = [f.w.tolist() + [f.b] for f in fits[::23]]
        lone = [wsvm_fit(X[rows], y[rows], *c) for c in costs]
        out[f"qp_{name}_lone_polished"] = _digest([f.polished for f in lone])
    tw = tune_wsvm("y ~ x1 + x2", a2, n_values=8, random_state=1)
    out["wsvm_best"] = tw.best_params
    # a threshold tuned on Titanic (exact search over pooled CV scores) and a grid choice
    t = fm.datasets.titanic_complete()
    fit = fm.maxent("survived ~ C(pclass) * sex + age", t)
    th = fm.tune_threshold(fit, t, beta=2, random_state=3)
    out["threshold_row"] = int(th.best_index)
    out["threshold"] = float(th.threshold)
    cv = fm.cv_tune(fm.maxent, "survived ~ C(pclass) * sex + age", t,
                    {"penalty": [0.0, 0.1, 1.0, 10.0]}, beta=2, random_state=3)
    out["cv_best"] = int(cv.best_index)
    fmx = fm.fmaxent("survived ~ C(pclass) * sex + age", t, beta=2)
    out["fmaxent_outer"] = len(fmx.history)
    out["fmaxent_params"] = fmx.params.tolist()
    return out


if __name__ == "__main__":
    print(json.dumps(main()))
