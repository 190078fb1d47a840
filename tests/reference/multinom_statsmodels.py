"""Reference values for fmstats.multinom: statsmodels' MNLogit (Newton, tight tolerance).

Three cases on statsmodels' bundled `fair` data (6366 rows, religious in 1..4):

* ``plain``: religious ~ age + yrs_married + educ;
* ``factor``: religious ~ age + C(occupation) (treatment contrasts, first level reference);
* ``weighted``: religious ~ age + educ on the first 600 rows with integer case weights
  w = 1 + (row mod 4) (seeded order); statsmodels has no case weights, so its fit is made on
  the rows repeated w times (frequency weights = duplicated rows, an independent route).

Writes tests/reference/multinom_statsmodels.csv: case, term (class:position), estimate,
std_error, and one row per case with the log-likelihood (term "llf").
Run:  python tests/reference/multinom_statsmodels.py
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf

HERE = os.path.dirname(os.path.abspath(__file__))


def cases():
    fair = sm.datasets.fair.load_pandas().data
    small = fair.iloc[:600].copy()
    small["w"] = 1 + (np.arange(600) % 4)
    return {
        "plain": ("religious ~ age + yrs_married + educ", fair, None),
        "factor": ("religious ~ age + C(occupation)", fair, None),
        "weighted": ("religious ~ age + educ", small, "w"),
    }


def main():
    rows = []
    for name, (formula, data, w) in cases().items():
        d = data if w is None else data.loc[data.index.repeat(data[w])].reset_index(drop=True)
        res = smf.mnlogit(formula, d).fit(method="newton", maxiter=200, tol=1e-14, disp=0)
        P, B = res.params, res.bse
        for j, cls in enumerate(P.columns):
            for i in range(P.shape[0]):
                rows.append({"case": name, "term": f"{j}:{i}", "name": P.index[i],
                             "estimate": P.iloc[i, j], "std_error": B.iloc[i, j]})
        rows.append({"case": name, "term": "llf", "name": "", "estimate": res.llf,
                     "std_error": np.nan})
    pd.DataFrame(rows).to_csv(os.path.join(HERE, "multinom_statsmodels.csv"), index=False,
                              float_format="%.17g")


if __name__ == "__main__":
    main()
