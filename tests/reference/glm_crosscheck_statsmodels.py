#!/usr/bin/env python
"""Independent cross-check of the committed R reference values.

Not a test (statsmodels is not a dependency of fmstats); run it by hand after
regenerating the references:

    python tests/reference/glm_crosscheck_statsmodels.py

For every model in glm_stats.csv it rebuilds the design matrix from the input
CSV with pandas (treatment coding, R's column order), drops NA rows the way
R's na.omit does, and then

* fits the GLM with statsmodels (Binomial family, ``var_weights`` = prior
  weights) and compares coefficients, model-based standard errors (scaled by
  the Pearson dispersion for the quasi models), deviance and null deviance;
* recomputes fitted values, hat values and the sandwich HC0-HC3 covariance
  matrices with plain numpy from the formulas of sandwich 3.0 (see README.md)
  and compares them with R's.

Exits non-zero if any relative difference exceeds the tolerance.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL = 1e-8


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(os.path.join(HERE, name))


def titanic_design(df: pd.DataFrame) -> pd.DataFrame:
    p2 = (df["pclass"] == 2).astype(float)
    p3 = (df["pclass"] == 3).astype(float)
    male = (df["sex"] == "male").astype(float)
    return pd.DataFrame({
        "(Intercept)": 1.0,
        "factor(pclass)2": p2,
        "factor(pclass)3": p3,
        "sexmale": male,
        "age": df["age"],
        "sibsp": df["sibsp"].astype(float),
        "factor(pclass)2:sexmale": p2 * male,
        "factor(pclass)3:sexmale": p3 * male,
    }, index=df.index)


def synth_design(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "(Intercept)": 1.0,
        "x1": df["x1"],
        "x2": df["x2"],
        "gb": (df["g"] == "b").astype(float),
        "gc": (df["g"] == "c").astype(float),
    }, index=df.index)


def model_data(stats_row: pd.Series, titanic: pd.DataFrame, synth: pd.DataFrame):
    """Return (rows (1-based), X, y, prior weights) as R's glm sees them."""
    name = stats_row["model"]
    if stats_row["data"] == "titanic":
        df = titanic.dropna(subset=["survived", "pclass", "sex", "age", "sibsp"])
        X = titanic_design(df)
        y = df["q"] if name.endswith("_q") else df["survived"].astype(float)
    else:
        df = synth if stats_row["data"] == "synth" else synth[synth["w0"] > 0]
        X = synth_design(df)
        if name == "synth_cbind":
            y = df["yes"] / (df["yes"] + df["no"])
        elif "_q" in name:
            y = df["q"]
        else:
            y = df["y"].astype(float)
    wcol = stats_row["weights"]
    w = pd.Series(1.0, index=df.index) if wcol == "none" else df[wcol].astype(float)
    if name == "synth_cbind":
        w = w * (df["yes"] + df["no"])  # binomial(): weights <- weights * n
    rows = (df.index + 1).to_numpy()
    return rows, X, y.to_numpy(float), w.to_numpy(float)


def sandwich_hc(X, y, mu, w_prior, types=("HC0", "HC1", "HC2", "HC3")):
    """vcovHC(glm, type) as computed by sandwich 3.0 (zero weights included)."""
    n, k = X.shape
    ww = w_prior * mu * (1 - mu)            # working weights
    C = np.linalg.inv(X.T @ (ww[:, None] * X))  # cov.unscaled
    wres = w_prior * (y - mu)               # working residual * working weight
    n_nz = int(np.sum(w_prior != 0))        # sum(summary(fit)$df[1:2])
    sw = np.sqrt(ww)
    h = np.einsum("ij,jk,ik->i", sw[:, None] * X, C, sw[:, None] * X)
    out = {}
    for t in types:
        if t == "HC0":
            om = wres**2
        elif t == "HC1":
            om = wres**2 * n / (n - k)
        elif t == "HC2":
            om = wres**2 / (1 - h)
        else:
            om = wres**2 / (1 - h) ** 2
        meat = X.T @ (om[:, None] * X)
        out[t] = (n_nz / n) ** 2 * C @ meat @ C
    return out, h


def rel(a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) if a.size else 0.0


def main() -> int:
    import statsmodels.api as sm

    titanic = read("inputs_titanic.csv")
    synth = read("inputs_synthetic.csv")
    stats = read("glm_stats.csv")
    coef = read("glm_coef.csv")
    fitted = read("glm_fitted.csv")
    vcov = read("glm_vcov.csv")

    worst = 0.0
    for _, srow in stats.iterrows():
        name = srow["model"]
        rows, X, y, w = model_data(srow, titanic, synth)
        rc = coef[coef.model == name].set_index("term")
        rf = fitted[fitted.model == name]
        assert list(X.columns) == list(rc.index), (name, list(rc.index))
        assert np.array_equal(rows, rf["row"].to_numpy()), name
        assert len(rows) == srow["nobs"]

        res = sm.GLM(y, X.to_numpy(), family=sm.families.Binomial(), var_weights=w).fit(
            tol=1e-14, maxiter=200, scale="X2" if srow["family"].startswith("quasi") else None)
        mu = np.asarray(res.mu)
        hc, h = sandwich_hc(X.to_numpy(), y, mu, w)

        checks = {
            "coef": rel(res.params, rc["estimate"]),
            "se": rel(res.bse, rc["se"]),
            "deviance": rel(res.deviance, srow["deviance"]),
            "null_dev": rel(res.null_deviance, srow["null_deviance"]),
            "dispersion": rel(res.scale, srow["dispersion"]),
            "fitted": rel(mu, rf["fitted"]),
        }
        ok_hat = rf["hat"].notna().to_numpy()
        checks["hat"] = rel(h[ok_hat], rf["hat"].to_numpy()[ok_hat])
        for t in ("HC0", "HC1", "HC2", "HC3"):
            r_se = rc[f"se_{t}"].to_numpy()
            if np.isnan(r_se).all():
                continue
            checks[f"se_{t}"] = rel(np.sqrt(np.diag(hc[t])), r_se)
            rv = vcov[vcov.model == name].pivot(index="row_term", columns="col_term", values=f"vcov_{t}")
            rv = rv.loc[X.columns, X.columns].to_numpy()
            checks[f"vcov_{t}"] = float(np.max(np.abs(hc[t] - rv)) / np.max(np.abs(rv)))
        m = max(checks.values())
        worst = max(worst, m)
        flag = "OK " if m < RTOL else "BAD"
        print(f"{flag} {name:20s} max rel diff {m:.2e}  " +
              " ".join(f"{k}={v:.1e}" for k, v in checks.items()))
    print(f"worst relative difference: {worst:.3e} (tolerance {RTOL:g})")
    return 0 if worst < RTOL else 1


if __name__ == "__main__":
    sys.exit(main())
