#!/usr/bin/env python
"""Write the extra model inputs of ``issue26_reference.R`` (issue 26: offset, subset, contrasts,
na.exclude, splines, drop1/add1/step).

* ``inputs_adult3000.csv`` -- 3000 rows of the UCI Adult training file (``adult.data.gz``
  bundled with fmstats, read here with pandas, not with fmstats), drawn with
  ``DataFrame.sample(n=3000, random_state=26)``; columns ``age``, ``education_num``,
  ``hours_per_week``, ``sex``, ``race``, ``marital_status``, ``relationship`` and
  ``rich`` (1 when ``income`` is ``>50K``).
* ``inputs_star98.csv`` -- statsmodels' ``star98`` data (303 California school districts:
  ``NABOVE``/``NBELOW`` students above/below the national median in maths, and predictors),
  the columns the R script uses.
* ``inputs_fair.csv`` -- statsmodels' ``fair`` data (6366 women: ``affairs`` and eight
  ordinal predictors), all columns.

Titanic and the synthetic cbind data come from ``glm_make_inputs.py`` (``inputs_titanic.csv``,
``inputs_synthetic.csv``).  Floats are written with ``%.17g``.

Usage::

    python tests/reference/issue26_make_inputs.py
"""
from __future__ import annotations

import gzip
import os

import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ADULT = ["age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
         "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
         "hours_per_week", "native_country", "income"]
STAR98 = ["NABOVE", "NBELOW", "LOWINC", "PERASIAN", "PERBLACK", "PERHISP", "PERMINTE",
          "AVYRSEXP", "AVSALK", "PERSPENK", "PTRATIO", "PCTAF", "PCTCHRT", "PCTYRRND"]


def main() -> None:
    with gzip.open(os.path.join(ROOT, "data", "adult.data.gz"), "rt", encoding="ascii") as fh:
        adult = pd.read_csv(fh, header=None, names=ADULT, skipinitialspace=True,
                            na_values=["?"], keep_default_na=False)
    sub = adult.sample(n=3000, random_state=26)
    out = sub[["age", "education_num", "hours_per_week", "sex", "race", "marital_status",
               "relationship"]].copy()
    out["rich"] = (sub["income"] == ">50K").astype(int)
    out.to_csv(os.path.join(HERE, "inputs_adult3000.csv"), index=False)

    import statsmodels.api as sm

    star = sm.datasets.star98.load_pandas().data[STAR98]
    star.to_csv(os.path.join(HERE, "inputs_star98.csv"), index=False, float_format="%.17g")
    fair = sm.datasets.fair.load_pandas().data
    fair.to_csv(os.path.join(HERE, "inputs_fair.csv"), index=False, float_format="%.17g")


if __name__ == "__main__":
    main()
