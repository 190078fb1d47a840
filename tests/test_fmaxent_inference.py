"""Inference for fmaxent: the covariance that accounts for the F-reweighting (issue 29).

The references are independent of the formulas under test:

* the influence of each row on the returned coefficients is checked against *finite
  differences of the fit itself*: fmaxent refitted with every row's weight moved by +/- eps
  along a random direction (the outer loop held to the same number of iterations);
* the analytic Jacobian of the stacked estimating equations against their finite
  differences;
* with the F-weights frozen, the stacked sandwich against fmstats' HC0, which
  ``test_glm_reference`` checks against R's ``sandwich::vcovHC``;
* coverage against a population target computed by the estimator on 200,000 rows, with
  bounds from the Monte-Carlo spread.
"""
from __future__ import annotations

import warnings

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import fmstats as fm
from fmstats.exceptions import ConvergenceWarning, InvalidArgumentError
from fmstats.glm import (estimating_equations, stacked_covariance, stacked_terms,
                                 unrolled_covariance, unrolled_influence)

pytestmark = pytest.mark.numerics


def _logistic(n, seed, prevalence=0.3):
    """x1, x2 ~ N(0, 1), x3 ~ U(-1, 1), a 3-level factor; intercepts for prevalence 0.1/0.3."""
    rng = np.random.default_rng(seed)
    x1, x2, x3 = rng.normal(size=n), rng.normal(size=n), rng.uniform(-1, 1, size=n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    eta = {0.1: -2.815, 0.3: -1.151}[prevalence] + x1 - 0.5 * x2 + 0.8 * x3 + \
        np.select([g == "b", g == "c"], [0.6, -0.7], 0.0)
    y = (rng.uniform(size=n) < expit(eta)).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "x3": x3, "g": g})


def _noisy(n, seed):
    """Thesis design A with the Beta label noise of section 9.2 (probabilistic labels q)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    x = np.where(y[:, None] == 1, (1.0, 0.8), (0.5, 1.0)) + np.sqrt(0.3) * rng.normal(size=(n, 2))
    q = np.where(y == 1, 1 - rng.beta(1, 5, size=n), rng.beta(2, 5, size=n))
    return pd.DataFrame({"q": q, "x1": x[:, 0], "x2": x[:, 1]})


def _fixed_path(formula, d, **kw):
    """fmaxent held to a set number of outer iterations (it says it did not converge)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fm.fmaxent(formula, d, **kw)


def _influence(fit):
    return unrolled_influence(fit.X, fit.y, fit.count_weights, fit.coef_path.to_numpy(),
                              fit.best_iteration, fit._reweighting(), fit.core_fit.penalty,
                              shrinkage=fit.settings["shrinkage"])


CASES = {
    "expected, clipped (default)": ("y ~ x1 + x2 + x3 + C(g)", "logistic", dict(beta=2)),
    "expected, unclipped, ridge": ("y ~ x1 + x2 + x3 + C(g)", "logistic",
                                   dict(beta=1, weight_bounds=None, penalty=2.0)),
    "noisy, smoothed (default)": ("q ~ x1 + x2", "noisy", dict(beta=1)),
    "noisy, clipped": ("q ~ x1 + x2", "noisy", dict(beta=0.5, weight_bounds=(0.05, 5))),
    "plug-in": ("q ~ x1 + x2", "noisy", dict(beta=1, method="plugin")),
}


@pytest.mark.parametrize("case", list(CASES))
def test_influence_equals_finite_differences_of_the_fit(case):
    """d theta / d eps of the refit with weights 1 + eps u equals mean(u * influence), 1e-5."""
    formula, design, kw = CASES[case]
    n = 600
    d = _logistic(n, 3) if design == "logistic" else _noisy(n, 3)
    fit = fm.fmaxent(formula, d, **kw)
    infl = _influence(fit)
    k = fit.best_iteration
    same_path = dict(kw, max_outer=k, patience=10 ** 6, rel_improvement=0, min_improvement=0)
    rng = np.random.default_rng(11)
    eps = 1e-5
    for _ in range(2):
        u = rng.normal(size=n)
        up = _fixed_path(formula, d, weights=1 + eps * u, **same_path).coef_path.to_numpy()[k]
        down = _fixed_path(formula, d, weights=1 - eps * u, **same_path).coef_path.to_numpy()[k]
        numeric = (up - down) / (2 * eps)
        analytic = u @ infl / n
        np.testing.assert_allclose(analytic, numeric, rtol=0, atol=1e-5 * np.abs(numeric).max())


@pytest.mark.parametrize("case", ["expected, clipped (default)", "noisy, smoothed (default)"])
def test_stacked_jacobian_equals_finite_differences(case):
    """The analytic Jacobian of the stacked equations, and so the stacked sandwich, against
    central differences of the equations (relative 1e-5)."""
    formula, design, kw = CASES[case]
    d = _logistic(800, 5) if design == "logistic" else _noisy(800, 5)
    fit = fm.fmaxent(formula, d, **kw)
    X, q, c = fit.X, fit.y, fit.count_weights
    spec, pen, shrink = fit._reweighting(), fit.core_fit.penalty, fit.settings["shrinkage"]
    theta = fit.core_fit.coef
    g, G, J, m = stacked_terms(X, q, c, theta, spec, pen, shrink)
    phi = np.r_[theta, m]
    p = len(theta)
    J_fd = np.empty_like(J)
    for j in range(len(phi)):
        h = 1e-6 * max(1.0, abs(phi[j]))
        e = np.zeros_like(phi)
        e[j] = h
        plus = estimating_equations(X, q, c, (phi + e)[:p], (phi + e)[p:], spec, pen, shrink)
        minus = estimating_equations(X, q, c, (phi - e)[:p], (phi - e)[p:], spec, pen, shrink)
        J_fd[:, j] = (plus - minus) / (2 * h)
    np.testing.assert_allclose(J, J_fd, rtol=0, atol=1e-5 * np.abs(J_fd).max())
    n = len(q)
    B = g.T @ g / n
    bread = np.linalg.inv(J_fd)
    cov_fd = (bread @ B @ bread.T / n)[:p, :p]
    cov = stacked_covariance(X, q, c, theta, spec, pen, shrinkage=shrink).cov
    np.testing.assert_allclose(cov, cov_fd, rtol=1e-5, atol=0)


def test_frozen_weights_give_the_hc0_sandwich():
    """With the F-weights as fixed numbers the stacked sandwich is fmstats' HC0 (1e-10)."""
    fit = fm.fmaxent("y ~ x1 + x2 + x3 + C(g)", _logistic(700, 8), beta=2)
    frozen = stacked_covariance(fit.X, fit.y, fit.count_weights, fit.core_fit.coef,
                                fit._reweighting(), fit.core_fit.penalty,
                                frozen_weights=fit.fweights).cov
    hc0 = fit.cov_params("HC0").to_numpy()
    np.testing.assert_allclose(frozen, hc0, rtol=1e-10, atol=0)
    # and the reweighting matters: the default covariance is several times larger
    ratio = np.sqrt(np.diag(fit.cov_params().to_numpy()) / np.diag(hc0))
    assert np.all(ratio > 1.5) and np.all(ratio < 10), ratio


def test_unrolled_tends_to_the_stacked_sandwich_at_a_fixed_point():
    """Run to convergence, the loop's iterate is a fixed point of the reweighting, and the
    covariance of the K-th iterate approaches the stacked sandwich (the geometric series of the
    iteration map sums to the implicit derivative)."""
    d = _noisy(1500, 2)
    fit = _fixed_path("q ~ x1 + x2", d, beta=1, max_outer=400, patience=400,
                      rel_improvement=0, min_improvement=0)
    X, q, c = fit.X, fit.y, fit.count_weights
    spec, pen, shrink = fit._reweighting(), fit.core_fit.penalty, fit.settings["shrinkage"]
    k = len(fit.coef_path) - 1
    stacked = stacked_covariance(X, q, c, fit.coef_path.to_numpy()[k], spec, pen,
                                 shrinkage=shrink)
    assert np.max(np.abs(stacked.step) / stacked.se) < 1e-6        # a fixed point
    unrolled = unrolled_covariance(X, q, c, fit.coef_path.to_numpy(), k, spec, pen,
                                   shrinkage=shrink)
    np.testing.assert_allclose(np.sqrt(np.diag(unrolled)), stacked.se, rtol=1e-3)
    # a few iterations from the start are not yet the fixed point's covariance
    early = unrolled_covariance(X, q, c, fit.coef_path.to_numpy(), 2, spec, pen,
                                shrinkage=shrink)
    assert np.max(np.abs(np.sqrt(np.diag(early)) / stacked.se - 1)) > 0.05


def test_default_covariance_follows_the_smaller_class_and_hc0_keeps_its_warning():
    """The default is the reweighted sandwich from 900 rows in the smaller class, the
    bootstrap of the whole fit below (computed on first use, seed 0 unless given)."""
    big = fm.fmaxent("y ~ x1 + x2 + x3 + C(g)", _logistic(3200, 4))    # 960-ish positives
    assert min(big.class_sizes()) >= 900
    assert big.cov_type == "reweighted" and big.call.arguments.get("cov_type") is None
    text = str(big.summary())
    assert "reweighted sandwich" in text and "Pr(>|z|)" in text
    assert "treat the F-weights as fixed" not in text
    assert "treat the F-weights as fixed" in str(big.summary(cov_type="HC0"))

    d = fm.datasets.titanic_complete()
    fit = fm.fmaxent("survived ~ C(pclass) * sex + age", d, beta=2)
    assert fit.cov_type == "bootstrap" and fit.call.arguments.get("cov_type") is None
    assert fit._bootstrap is None                 # nothing computed until asked for
    text = str(fit.summary())
    assert "bootstrap: covariance of 200 of 200" in text and "smaller class has 427 < 900" in text
    assert "Pr(>|z|)" in text                     # 427 >= MIN_CLASS_FOR_BOOT_TESTS
    # the same replicates as an explicit bootstrap with seed 0
    explicit = fm.fmaxent("survived ~ C(pclass) * sex + age", d, beta=2, cov_type="bootstrap",
                          random_state=0)
    np.testing.assert_allclose(fit.bse, explicit.bse, rtol=1e-10)
    # kept once computed, also through pickling
    again = pickle.loads(pickle.dumps(fit))
    assert again._bootstrap is not None
    np.testing.assert_allclose(again.bse, fit.bse, rtol=0)


@pytest.mark.parametrize("bad, match", [
    (dict(cov_type="HC9"), "cov_type"),
    (dict(cov_type="bootstrap", B=10), "`B`"),
])
def test_bad_inference_arguments(bad, match):
    d = _logistic(300, 1)
    with pytest.raises(InvalidArgumentError, match=match):
        fm.fmaxent("y ~ x1 + x2", d, **bad)


def test_bad_level():
    fit = fm.fmaxent("y ~ x1 + x2", _logistic(300, 1))
    for level in (0, 1, 1.5, -0.1):
        with pytest.raises(InvalidArgumentError, match="level"):
            fit.conf_int(level=level)
        with pytest.raises(InvalidArgumentError, match="level"):
            fit.summary(level=level)
