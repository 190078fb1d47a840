"""Measure the bounds asserted by tests/test_sklearn.py::test_adult_f2_maximiser_beats_maxent.

For seeds 0-9: 3000 training rows of Adult (``train.sample(n=3000, random_state=seed)``), the
Pipeline of vignette 08 with MaxentClassifier and with FMaxentClassifier(beta=2) tuned by
GridSearchCV (F2 scorer, shrinkage 1e-3 / 1e-2, 3 stratified folds), both scored by F2 on
the whole Adult test file (16,281 rows).  "oracle" is the best test F2 of any threshold on
Maxent's test probabilities (it looks at the test labels, so nothing fitted can beat it by
much).  Run from the repository root:

    python tests/reference/sklearn_adult_f2.py > tests/reference/sklearn_adult_f2.out
"""
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import fbeta_score
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from test_sklearn import adult_experiment, oracle_f2  # noqa: E402

rows = []
print("seed  maxent_F2  fmaxent_F2   gain  oracle_F2  fmaxent-oracle  best_shrinkage")
for seed in range(10):
    with threadpool_limits(limits=1, user_api="blas"):
        r = adult_experiment(seed)
    yt, Xt = r["yt"], r["Xt"]
    fb = fbeta_score(yt, r["base"].predict(Xt), beta=2, pos_label=">50K")
    ff = fbeta_score(yt, r["grid"].predict(Xt), beta=2, pos_label=">50K")
    oracle = oracle_f2(yt == ">50K", r["base"].predict_proba(Xt)[:, 1])
    rows.append((fb, ff, ff - fb, oracle, ff - oracle))
    print(f"{seed:4d}  {fb:9.4f}  {ff:10.4f}  {ff - fb:5.3f}  {oracle:9.4f}  {ff - oracle:14.4f}  "
          f"{r['grid'].best_params_['clf__shrinkage']:g}")
a = np.array(rows)
print("min   " + "  ".join(f"{v:.4f}" for v in a.min(0)))
print("max   " + "  ".join(f"{v:.4f}" for v in a.max(0)))
