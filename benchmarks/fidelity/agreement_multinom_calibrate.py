"""Issue 27: how closely fmstats matches its references (prints the largest differences).

multinom vs statsmodels MNLogit on the three stored cases; calibrate vs scikit-learn
CalibratedClassifierCV (sigmoid, isotonic), the exact beta map and betacal, on the stored folds.
The tests (tests/test_multinom.py, tests/test_calibration.py) assert the tolerances; this prints
the numbers behind them.  Run:  PYTHONPATH=. python benchmarks/fidelity/agreement_multinom_calibrate.py
"""
import numpy as np
import pandas as pd
import statsmodels.api as sm

import fmstats as fm

REF = "tests/reference"
fair = sm.datasets.fair.load_pandas().data
small = fair.iloc[:600].copy(); small["w"] = 1 + (np.arange(600) % 4)
cases = {"plain": ("religious ~ age + yrs_married + educ", fair, None),
         "factor": ("religious ~ age + C(occupation)", fair, None),
         "weighted": ("religious ~ age + educ", small, "w")}
ref = pd.read_csv(f"{REF}/multinom_statsmodels.csv")
for name, (f, d, w) in cases.items():
    fit = fm.multinom(f, d, weights=w)
    r = ref[(ref.case == name) & (ref.term != "llf")]
    key = [f"{fit.levels[1 + int(t.split(':')[0])]}:{n}" for t, n in zip(r.term, r.name)]
    dp = np.max(np.abs(fit.params[key].to_numpy() - r.estimate.to_numpy()))
    ds = np.max(np.abs(fit.bse[key].to_numpy() - r.std_error.to_numpy()))
    dl = abs(fit.llf - ref[(ref.case == name) & (ref.term == "llf")].estimate.iloc[0])
    print(f"multinom vs MNLogit {name}: max|d params| = {dp:.1e}, max|d se| = {ds:.1e}, "
          f"|d llf| = {dl:.1e}")
tr = pd.read_csv(f"{REF}/calibration_train.csv"); nw = pd.read_csv(f"{REF}/calibration_new.csv")
pairs = [(np.flatnonzero(tr.fold != k), np.flatnonzero(tr.fold == k)) for k in range(5)]
m = fm.maxent("y ~ x0 + x1", tr)
for meth, col in [("platt", "sigmoid"), ("isotonic", "isotonic"), ("beta", "beta_exact"),
                  ("beta", "beta_betacal")]:
    c = fm.calibrate(m, tr, method=meth, cv=pairs)
    d = np.max(np.abs(c.predict(nw).to_numpy() - nw[col].to_numpy()))
    print(f"calibrate {meth} vs {col}: max|d p| = {d:.1e}")
