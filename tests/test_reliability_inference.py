"""Issue 31, mechanism 3: inference after the fit is refused or NaN where it has no meaning.

* profile intervals of a (quasi-)separated fit are NaN with a SeparationWarning (they were
  zero-width at the estimate, or one-sided, without a word);
* one guard, "needs an unpenalised likelihood", for conf_int(method="profile"),
  tidy(ci_method="profile"), anova and to_statsmodels (profile intervals accepted a ridge
  fit and profiled around the penalised estimate);
* to_statsmodels("HC1" | "HC2" | "HC3") carries the covariance asked for (statsmodels' GLM
  computes HC0 whatever it is asked).  References: R's sandwich::vcovHC
  (tests/reference/glm_coef.csv, glm_reference.R) and a sandwich computed here with numpy.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError, ModelComparisonError, SeparationWarning

REF = Path(__file__).parent / "reference"
R_TERMS = {"(Intercept)": "Intercept", "x1": "x1", "x2": "x2", "gb": "g[T.b]", "gc": "g[T.c]"}


@pytest.fixture(scope="module")
def synth():
    return pd.read_csv(REF / "inputs_synthetic.csv")


# ----------------------------------------------------------------------------- separation
@pytest.mark.parametrize("case", ["complete", "quasi-x", "quasi-factor"])
def test_profile_intervals_of_a_separated_fit_are_nan_with_a_warning(case):
    """Before: Intercept [22.673, 22.673] (complete) and one-sided bounds (quasi)."""
    x = np.r_[np.linspace(-2, -0.1, 10), np.linspace(0.1, 2, 10)]
    y = np.r_[np.zeros(10), np.ones(10)]
    if case == "quasi-x":
        x[9], y[9] = 0.1, 0                   # a tie across the classes: quasi-complete
    d = pd.DataFrame({"x": x, "y": y, "g": np.repeat(["a", "b"], 10)})
    d.loc[[12, 15], "y"] = 0                  # ... and overlap within level b
    formula = "y ~ g" if case == "quasi-factor" else "y ~ x"
    if case != "quasi-factor":
        d["y"] = y
    with pytest.warns(SeparationWarning):
        fit = fm.maxent(formula, d)
    assert fit.separated
    with pytest.warns(SeparationWarning, match=r"conf_int\(method='profile'\).*no finite "
                                               r"maximum to profile around.*NaN"):
        ci = fit.conf_int(method="profile")
    assert ci.isna().all().all() and list(ci.index) == list(fit.params.index)


def test_profile_intervals_of_an_ordinary_fit_are_finite_and_bracket_the_estimate(synth):
    fit = fm.maxent("y ~ x1 + x2 + g", synth)
    ci = fit.conf_int(method="profile")
    assert np.all(ci["conf_low"] < fit.params) and np.all(fit.params < ci["conf_high"])


# ----------------------------------------------------------------------------- the one guard
def _entry_points(fit):
    return {"conf_int": lambda: fit.conf_int(method="profile"),
            "tidy": lambda: fit.tidy(ci_method="profile"),
            "anova": lambda: fm.anova(fit),
            "to_statsmodels": lambda: fm.to_statsmodels(fit)}


@pytest.mark.parametrize("entry", ["conf_int", "tidy", "anova", "to_statsmodels"])
def test_a_ridge_fit_is_refused_by_every_likelihood_method(synth, entry):
    fit = fm.maxent("y ~ x1 + x2 + g", synth, penalty=1.0)
    error = ModelComparisonError if entry == "anova" else InvalidArgumentError
    with pytest.raises(error, match=r"needs an unpenalised likelihood fit: it was fitted with a "
                                    r"ridge penalty \(1\)"):
        _entry_points(fit)[entry]()


@pytest.mark.parametrize("entry", ["conf_int", "tidy", "anova", "to_statsmodels"])
def test_an_f_maximiser_is_refused_by_every_likelihood_method(synth, entry):
    fit = fm.fmaxent("y ~ x1 + x2 + g", synth)
    with pytest.raises(fm.FmstatsError, match=r"not a likelihood"):
        _entry_points(fit)[entry]()


@pytest.mark.parametrize("entry", ["conf_int", "tidy", "anova", "to_statsmodels"])
def test_an_unpenalised_fit_passes_the_guard(synth, entry):
    out = _entry_points(fm.maxent("y ~ x1 + x2 + g", synth))[entry]()
    assert out is not None


# ----------------------------------------------------------------------------- HC1-HC3
def _hand_sandwich(fit, cov_type):
    """B X' diag(e2) X B by numpy, e = w (y - mu), HC2/HC3 dividing by (1 - h)^k, HC1 n/(n-p)."""
    X, y, w = fit.X, fit.y, fit.weights
    mu = 1 / (1 + np.exp(-X @ fit.params.to_numpy()))
    B = np.linalg.inv(X.T @ (X * (w * mu * (1 - mu))[:, None]))
    h = w * mu * (1 - mu) * np.einsum("ij,jk,ik->i", X, B, X)
    e2 = (w * (y - mu)) ** 2 / (1 - h) ** {"HC0": 0, "HC1": 0, "HC2": 1, "HC3": 2}[cov_type]
    V = B @ (X.T @ (X * e2[:, None])) @ B
    n, p = X.shape
    return V * (n / (n - p)) if cov_type == "HC1" else V


@pytest.mark.parametrize("cov_type", ["HC0", "HC1", "HC2", "HC3"])
def test_to_statsmodels_carries_the_sandwich_it_says(synth, cov_type):
    """statsmodels 0.15 labels HC0 as HC1-HC3 for a GLM: the SEs were HC0's (0.3-1 % off on
    Titanic).  Reference: R's sandwich::vcovHC (glm_coef.csv, synth_binom_w), fmstats' own
    covariance and a sandwich computed here."""
    fit = fm.maxent("y ~ x1 + x2 + g", synth, weights="w")
    res = fm.to_statsmodels(fit, cov_type)
    r = pd.read_csv(REF / "glm_coef.csv")
    r = r[r["model"] == "synth_binom_w"].assign(term=lambda t: t["term"].map(R_TERMS))
    r = r.set_index("term")
    np.testing.assert_allclose(res.bse[r.index], r[f"se_{cov_type}"], rtol=1e-6)
    np.testing.assert_allclose(res.cov_params().to_numpy(), fit.cov_params(cov_type).to_numpy(),
                               rtol=1e-6, atol=1e-14)
    np.testing.assert_allclose(res.cov_params().to_numpy(), _hand_sandwich(fit, cov_type),
                               rtol=1e-6, atol=1e-14)
    assert res.cov_type == cov_type
    z = res.params / res.bse
    np.testing.assert_allclose(res.tvalues, z, rtol=1e-12)


def test_hc_types_differ_in_statsmodels_now(synth):
    fit = fm.maxent("y ~ x1 + x2 + g", synth, weights="w")
    se = {ct: fm.to_statsmodels(fit, ct).bse.to_numpy() for ct in ("HC0", "HC1", "HC2", "HC3")}
    assert np.all(se["HC0"] < se["HC1"]) and np.all(se["HC2"] < se["HC3"])


@pytest.mark.parametrize("cov_type", ["HC9", "hc1", 3])
def test_to_statsmodels_refuses_an_unknown_covariance(synth, cov_type):
    """'HC9' reached statsmodels' ValueError('cov_type not recognized')."""
    fit = fm.maxent("y ~ x1 + x2 + g", synth)
    with pytest.raises(InvalidArgumentError, match=r"`cov_type` must be one of"):
        fit.to_statsmodels(cov_type)
