"""Reference values for fmstats.calibrate: scikit-learn's CalibratedClassifierCV (sigmoid,
isotonic) and the betacal package (beta), on the same folds.

Data: 600 training rows and 200 new rows, x0, x1 ~ N(0, 1), P(y = 1) = expit(-0.5 + 1.2 x0
- 0.8 x1 + 0.6 x0^2) (the linear logistic model is misspecified, so calibration changes the
probabilities); five folds given by the column ``fold`` (a seeded permutation).

* ``sigmoid``, ``isotonic``: CalibratedClassifierCV(LogisticRegression(penalty=None,
  solver="newton-cholesky", tol=1e-12), method=..., cv=<the folds>, ensemble=False)
  .predict_proba(new)[:, 1] (scikit-learn calibrates decision_function, the log-odds);
* ``beta_betacal``: betacal.BetaCalibration("abm") fitted on the cross-validated
  probabilities (cross_val_predict, the same folds), applied to the probabilities of the
  model fitted on all rows (betacal fits with LogisticRegression's default tolerance, 1e-4);
* ``beta_exact``: the same map by its formula (Kull et al. 2017: logistic regression of y
  on log s and -log(1 - s), a and b >= 0: a coefficient that comes out negative is fixed
  at 0 and the model refitted) solved exactly by statsmodels' Logit.  On these data the
  unconstrained a is negative (-0.49), so the constrained path (a = 0) is the one tested.

Needs betacal (pip install betacal; not a test dependency: the values are stored).
Run:  python tests/reference/calibration_reference.py
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.special import expit
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict

HERE = os.path.dirname(os.path.abspath(__file__))


def data():
    rng = np.random.default_rng(2027)
    X = rng.normal(size=(800, 2))
    p = expit(-0.5 + 1.2 * X[:, 0] - 0.8 * X[:, 1] + 0.6 * X[:, 0] ** 2)
    y = (rng.uniform(size=800) < p).astype(int)
    fold = np.empty(600, dtype=int)
    fold[rng.permutation(600)] = np.arange(600) % 5
    train = pd.DataFrame({"x0": X[:600, 0], "x1": X[:600, 1], "y": y[:600], "fold": fold})
    new = pd.DataFrame({"x0": X[600:, 0], "x1": X[600:, 1], "y": y[600:]})
    return train, new


def main():
    from betacal import BetaCalibration

    train, new = data()
    X, y, Xn = train[["x0", "x1"]].to_numpy(), train["y"].to_numpy(), new[["x0", "x1"]].to_numpy()
    pairs = [(np.flatnonzero(train.fold != k), np.flatnonzero(train.fold == k)) for k in range(5)]

    def lr():
        return LogisticRegression(penalty=None, solver="newton-cholesky", tol=1e-12,
                                  max_iter=1000)

    for method in ("sigmoid", "isotonic"):
        cal = CalibratedClassifierCV(lr(), method=method, cv=pairs, ensemble=False).fit(X, y)
        new[method] = cal.predict_proba(Xn)[:, 1]
    oof = cross_val_predict(lr(), X, y, cv=pairs, method="predict_proba")[:, 1]
    p_new = lr().fit(X, y).predict_proba(Xn)[:, 1]
    new["beta_betacal"] = BetaCalibration(parameters="abm").fit(oof, y).predict(p_new)
    ls, l1, one = np.log(oof), -np.log1p(-oof), np.ones(600)

    def logit(*cols):
        return sm.Logit(y, np.column_stack(cols)).fit(method="newton", tol=1e-14, maxiter=100,
                                                      disp=0).params

    a, b, c = logit(ls, l1, one)
    if a < 0:                       # the constraint a >= 0 is active on these data
        a, (b, c) = 0.0, logit(l1, one)
    elif b < 0:
        (a, c), b = logit(ls, one), 0.0
    print(f"beta map (exact): a = {a:.6f}, b = {b:.6f}, c = {c:.6f}")
    new["beta_exact"] = expit(a * np.log(p_new) - b * np.log1p(-p_new) + c)
    train.to_csv(os.path.join(HERE, "calibration_train.csv"), index=False, float_format="%.17g")
    new.to_csv(os.path.join(HERE, "calibration_new.csv"), index=False, float_format="%.17g")


if __name__ == "__main__":
    main()
