#!/usr/bin/env python
"""Independent cross-check of the issue 17 R reference values (glm17_*.csv).

Not a test (statsmodels is not a dependency of fmstats); run it by hand after
regenerating the references:

    python tests/reference/glm17_crosscheck_statsmodels.py

For every model in glm17_predict.csv it rebuilds the design matrix from the
input CSV (reusing glm_crosscheck_statsmodels.py), fits the GLM with
statsmodels (Binomial family, ``var_weights`` = prior weights, scale = Pearson
X2 for the quasi models) and compares what statsmodels computes the same way:

* ``get_prediction(which="linear")`` / ``which="mean"``: fitted values and
  standard errors on the link and response scales (glm17_predict.csv);
* ``get_influence()``: hat values, ``resid_studentized`` (= R's
  ``rstandard(type = "pearson")``) and Cook's distance; R's
  ``rstandard(type = "deviance")`` from statsmodels' deviance residuals and hat
  values (glm17_influence.csv);
* ``conf_int()`` (normal quantiles, as ``confint.default``) and the exact
  profile-likelihood roots: the signed root deviance is re-solved with
  statsmodels offset fits and ``scipy.optimize.brentq`` (glm17_confint.csv,
  ``exact_lower``/``exact_upper``; MASS's spline-interpolated ``lower``/``upper``
  are reported against it, not checked);
* residual deviances and degrees of freedom of the sequential and nested
  analysis-of-deviance tables from statsmodels fits of the sub-designs, and
  the Chisq / F p-values recomputed from them (glm17_anova.csv).

Prints the maximum relative difference per model and quantity; exits
non-zero if any checked one exceeds the tolerance.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from glm_crosscheck_statsmodels import model_data, read, rel  # noqa: E402

RTOL = 1e-8
MODELS = {  # model -> glm_stats.csv-like row (family, data, weights)
    "titanic_binom": ("binomial", "titanic", "none"),
    "titanic_binom_w": ("binomial", "titanic", "w"),
    "titanic_quasi_q": ("quasibinomial", "titanic", "none"),
    "synth_binom_w": ("binomial", "synth", "w"),
    "synth_quasi_q": ("quasibinomial", "synth", "none"),
    "synth_cbind": ("binomial", "synth", "none"),
}
# R's attr(model.matrix(fit), "assign") for the two designs
ASSIGN = {"titanic": [0, 1, 1, 2, 3, 4, 5, 5], "synth": [0, 1, 2, 3, 3]}
# nested anova: column subsets (by R term name) of m0, mmid, m1
NESTED = {
    "titanic": [["(Intercept)", "factor(pclass)2", "factor(pclass)3", "sexmale"],
                ["(Intercept)", "factor(pclass)2", "factor(pclass)3", "sexmale",
                 "factor(pclass)2:sexmale", "factor(pclass)3:sexmale"],
                None],
    "synth": [["(Intercept)", "x1"], ["(Intercept)", "x1", "x2"], None],
}


def fit(sm, y, X, w, quasi, offset=None):
    return sm.GLM(y, X, family=sm.families.Binomial(), var_weights=w, offset=offset).fit(
        tol=1e-14, maxiter=200, scale="X2" if quasi else None)


def main() -> int:
    import statsmodels.api as sm
    from scipy import optimize, stats

    titanic = read("inputs_titanic.csv")
    synth = read("inputs_synthetic.csv")
    pred = read("glm17_predict.csv")
    infl = read("glm17_influence.csv")
    ci = read("glm17_confint.csv")
    anova = read("glm17_anova.csv")

    worst = 0.0
    info = {}
    for name, (family, data, weights) in MODELS.items():
        quasi = family.startswith("quasi")
        srow = pd.Series({"model": name, "data": data, "weights": weights})
        rows, Xdf, y, w = model_data(srow, titanic, synth)
        X = Xdf.to_numpy()
        res = fit(sm, y, X, w, quasi)
        scale = float(res.scale)
        checks = {}

        # --- predict with standard errors
        rp = pred[pred.model == name]
        assert np.array_equal(rows, rp["row"].to_numpy()), name
        lin = res.get_prediction(X, transform=False, which="linear")
        mean = res.get_prediction(X, transform=False, which="mean")
        checks["fit_link"] = rel(lin.predicted, rp["fit_link"])
        checks["se_link"] = rel(lin.se, rp["se_link"])
        checks["fit_response"] = rel(mean.predicted, rp["fit_response"])
        checks["se_response"] = rel(mean.se, rp["se_response"])
        checks["residual_scale"] = rel(np.sqrt(scale), rp["residual_scale"])

        # --- influence
        ri = infl[infl.model == name]
        assert np.array_equal(rows, ri["row"].to_numpy()), name
        inf = res.get_influence()
        h = np.asarray(inf.hat_matrix_diag)
        checks["hat"] = rel(h, ri["hat"])
        checks["rstandard_pearson"] = rel(inf.resid_studentized, ri["rstandard_pearson"])
        checks["rstandard_deviance"] = rel(
            np.asarray(res.resid_deviance) / np.sqrt(scale * (1 - h)), ri["rstandard_deviance"])
        checks["cooks_distance"] = rel(inf.cooks_distance[0], ri["cooks_distance"])

        # --- Wald and exact profile intervals
        rc = ci[ci.model == name]
        prof_err = 0.0
        mass_err = 0.0
        b_hat = np.asarray(res.params)
        se = np.asarray(res.bse)
        dev0 = float(res.deviance)
        for level, g in rc.groupby("level"):
            assert list(g["term"]) == list(Xdf.columns), (name, list(g["term"]))
            wald = res.conf_int(alpha=1 - level)
            checks[f"wald_{level:g}"] = max(rel(wald[:, 0], g["wald_lower"]),
                                            rel(wald[:, 1], g["wald_upper"]))
            cut = stats.norm.ppf((1 + level) / 2)
            for i, term in enumerate(Xdf.columns):
                Xi = np.delete(X, i, axis=1)

                def z(b, i=i, Xi=Xi):
                    r = fit(sm, y, Xi, w, False, offset=X[:, i] * b)
                    return np.sign(b - b_hat[i]) * np.sqrt(max(r.deviance - dev0, 0.0) / scale)

                for col, sgn in (("exact_lower", -1), ("exact_upper", 1)):
                    b_r = float(g[col].iloc[i])
                    d = 1e-4 * se[i]
                    root = optimize.brentq(lambda b: z(b) - sgn * cut, b_r - d, b_r + d,
                                           xtol=1e-14 * max(1.0, abs(b_r)), rtol=1e-15)
                    prof_err = max(prof_err, abs(root - b_r) / se[i])
                    mass = float(g[col.replace("exact_", "")].iloc[i])
                    mass_err = max(mass_err, abs(mass - root) / se[i])
        checks["profile_root_in_se"] = prof_err
        info[name] = mass_err

        # --- analysis of deviance: residual deviances of the sub-designs
        ra = anova[(anova.model == name) & (anova.test == "Chisq")]
        assign = np.array(ASSIGN[data])
        dev_seq, df_seq = [], []
        for j in range(assign.max() + 1):
            rj = fit(sm, y, X[:, assign <= j], w, False)
            dev_seq.append(rj.deviance)
            df_seq.append(rj.df_resid)
        assert np.allclose(df_seq, ra["resid_df"]), name
        checks["anova_seq_resid_dev"] = rel(dev_seq, ra["resid_dev"])
        ddev = -np.diff(dev_seq)
        ddf = -np.diff(df_seq)
        p_chi = stats.chi2.sf(ddev / scale, ddf)
        checks["anova_seq_p_chisq"] = rel(p_chi, ra["p_value"].to_numpy()[1:])
        if quasi:
            rf = anova[(anova.model == name) & (anova.test == "F")]
            fval = ddev / ddf / scale
            checks["anova_seq_F"] = rel(fval, rf["statistic"].to_numpy()[1:])
            checks["anova_seq_p_F"] = rel(stats.f.sf(fval, ddf, res.df_resid),
                                          rf["p_value"].to_numpy()[1:])
        if name in ("titanic_binom", "titanic_quasi_q", "synth_binom_w", "synth_quasi_q"):
            cc = rows if data == "titanic" else None  # nested fits use the same rows
            assert cc is None or len(cc) == 1046
            rn = anova[(anova.model == name + "_nested3") & (anova.test == "Chisq")]
            devs = []
            for cols in NESTED[data]:
                cols = list(Xdf.columns) if cols is None else cols
                devs.append(fit(sm, y, Xdf[cols].to_numpy(), w, False).deviance)
            checks["anova_nested_resid_dev"] = rel(devs, rn["resid_dev"])

        m = max(checks.values())
        worst = max(worst, m)
        flag = "OK " if m < RTOL else "BAD"
        print(f"{flag} {name:16s} max rel diff {m:.2e}  " +
              " ".join(f"{k}={v:.1e}" for k, v in checks.items()))
    print("not checked: MASS spline-interpolated profile CI (lower/upper) vs exact root, "
          "max |diff| in SE units: " + " ".join(f"{k}={v:.1e}" for k, v in info.items()))
    print(f"worst relative difference: {worst:.3e} (tolerance {RTOL:g})")
    return 0 if worst < RTOL else 1


if __name__ == "__main__":
    sys.exit(main())
