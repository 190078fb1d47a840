"""k-step replicates (issue 40): the refits of the maxent family on their own design.

References are independent: statsmodels' GLM with frequency weights for one weighted fit,
the full outer loop (``replicates="full"``, iterated to convergence from R's start) for the
F-maximiser, a straightforward re-implementation of the control-variate covariance inside the
test, and the spread of bootstrap standard errors over seeds for their Monte-Carlo error.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.special import expit

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError
from fmstats.glm import fmaxent_block, newton_block


def _data(n=600, seed=0, b0=-1.2):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    eta = b0 + x1 - 0.5 * x2 + np.select([g == "b", g == "c"], [0.6, -0.7], 0.0)
    y = (rng.random(n) < expit(eta)).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": g})


def _counts(n, B, seed):
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1 / n), size=B).T.astype(float)


# ----------------------------------------------------------------------------- the cores
def test_newton_block_equals_statsmodels_frequency_weighted_fits():
    """Every column converges to its own weighted MLE (statsmodels' GLM with freq_weights);
    mutant: a step that reuses another column's Hessian or score misses by far more."""
    d = _data()
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    X, y = fit.X, fit.y
    W = _counts(len(d), 6, 1)
    out = newton_block(X, y, W, fit.core_fit.coef, np.zeros(X.shape[1]), k=30, step_tol=1e-10)
    assert out.converged.all()
    for b in range(W.shape[1]):
        ref = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=W[:, b]).fit(
            tol=1e-12).params
        np.testing.assert_allclose(out.coef[b], ref, rtol=1e-8, atol=1e-10)


def test_newton_block_reports_columns_that_do_not_meet_the_step_rule():
    d = _data()
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    W = _counts(len(d), 5, 2)
    one = newton_block(fit.X, fit.y, W, np.zeros(fit.X.shape[1]), 0.0, k=1, step_tol=1e-6)
    assert not one.converged.any() and (one.steps == 1).all()
    many = newton_block(fit.X, fit.y, W, np.zeros(fit.X.shape[1]), 0.0, k=40, step_tol=1e-6)
    assert many.converged.all() and (many.steps > 1).all()


@pytest.mark.parametrize("kw", [dict(beta=2.0), dict(alpha=0.3, inner="step"),
                                dict(beta=1.0, shrinkage=1e-3)])
def test_fmaxent_block_with_a_tight_rule_is_the_full_outer_loop(kw):
    """The vectorised outer loop makes the decisions of outer_loop (best iterate, patience
    stop) on every column: with a tight step rule its replicates equal full refits to 1e-6
    of a standard error.  Mutant: dropping a replicate's own shrinkage (using the fit's) or
    its own stopping rule moves replicates by ~0.1 SE."""
    d = _data(800, seed=3)
    fit = fm.fmaxent("y ~ x1 + x2 + C(g)", d, cov_type="HC0", **kw)
    ref = fit.row_refits()
    M = _counts(len(d), 12, 4)
    full = ref.fit(M, replicates="full")
    tight = ref.fit(M, step_tol=1e-9, k=40)
    se = fit.bse.to_numpy()
    assert not tight.full.any()
    np.testing.assert_allclose(tight.coef, full.coef, rtol=0, atol=1e-6 * se.max())
    np.testing.assert_allclose(tight.training_f, full.training_f, rtol=1e-9)


def test_default_kstep_replicates_are_within_a_thousandth_of_a_standard_error_of_full():
    """The default rule (steps < 0.01 SE, at most 8 per weighted fit): every replicate within
    1e-3 of the replicates' sd of its full refit, the sd itself within 0.01 %."""
    d = _data(800, seed=5)
    fit = fm.fmaxent("y ~ x1 + x2 + C(g)", d, beta=2, cov_type="HC0")
    ref = fit.row_refits()
    M = _counts(len(d), 40, 6)
    full, fast = ref.fit(M, replicates="full"), ref.fit(M)
    sd = np.std(full.coef, axis=0, ddof=1)
    assert np.max(np.abs(fast.coef - full.coef) / sd) < 1e-3
    assert np.median(np.abs(fast.coef - full.coef) / sd) < 1e-4
    np.testing.assert_allclose(np.std(fast.coef, axis=0, ddof=1), sd, rtol=1e-4)


# ----------------------------------------------------------------------------- bootstrap
def test_bootstrap_kstep_equals_full_replicates_and_counts_refits_in_full():
    d = _data(500, seed=7)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    a = fm.bootstrap(fit, B=60, random_state=1, mc_tol=None, progress=False)
    b = fm.bootstrap(fit, B=60, random_state=1, mc_tol=None, progress=False, replicates="full")
    assert a.replicate_method == "kstep" and b.replicate_method == "full"
    assert b.n_full == 60
    sd = b.replicates.std(ddof=1).to_numpy()
    assert np.max(np.abs(a.replicates.to_numpy() - b.replicates.to_numpy()) / sd) < 0.05
    # k = 1 cannot meet the rule (one step from the linear start moves by ~0.1 SE): every
    # replicate is refitted in full, counted, and gives the full replicates' numbers
    c = fm.bootstrap(fit, B=20, random_state=1, mc_tol=None, progress=False, k=1)
    assert c.n_full == 20
    np.testing.assert_allclose(c.replicates.to_numpy(), b.replicates.to_numpy()[:20],
                               rtol=1e-12)
    assert "20 refitted in full" in str(c.summary())


def _cv_cov(T, L, S):
    """The control-variate covariance written out: per coefficient the regression of the
    replicates on their linear part; D S D + cov(residuals) + the cross terms."""
    p = T.shape[1]
    Tc, Lc = T - T.mean(0), L - L.mean(0)
    g = np.array([np.dot(Tc[:, j], Lc[:, j]) / np.dot(Lc[:, j], Lc[:, j]) for j in range(p)])
    R = Tc - Lc * g
    B = T.shape[0]
    V = np.empty((p, p))
    for j in range(p):
        for k in range(p):
            V[j, k] = (g[j] * g[k] * S[j, k] + R[:, j] @ R[:, k] / (B - 2)
                       + g[j] * (Lc[:, j] @ R[:, k]) / (B - 1)
                       + g[k] * (R[:, j] @ Lc[:, k]) / (B - 1))
    return V


def test_control_variate_covariance_is_the_regression_estimator():
    d = _data(400, seed=9)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    b = fm.bootstrap(fit, B=80, random_state=2, mc_tol=None, progress=False)
    terms = list(b.linear.columns)
    T, L = b.replicates[terms].to_numpy(), b.linear.to_numpy()
    # the linear part's covariance is the HC0 sandwich (its exact resampling covariance,
    # minus the centring term, which vanishes at the MLE)
    np.testing.assert_allclose(b.linear_cov, fit.cov_params("HC0").to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.cov(terms).to_numpy(), _cv_cov(T, L, b.linear_cov),
                               rtol=1e-10)
    plain = fm.bootstrap(fit, B=80, random_state=2, mc_tol=None, progress=False, control=False)
    np.testing.assert_allclose(plain.std_error, plain.replicates.std(ddof=1), rtol=1e-12)


def test_control_variate_needs_fewer_replicates_and_its_mc_error_is_honest():
    """Over 30 seeds: the control-variate SE is centred where the plain one is, its spread
    over seeds is smaller, and the reported Monte-Carlo error matches that spread (within a
    factor 1.6: the jackknife estimate of it from 60 replicates is itself noisy)."""
    d = _data(1000, seed=11)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    cv, plain, reported = [], [], []
    for seed in range(30):
        b = fm.bootstrap(fit, B=60, random_state=seed, mc_tol=None, progress=False)
        cv.append(b.std_error.to_numpy()[:-1])
        reported.append(b.mc_error()["se_mc"].to_numpy()[:-1])
        plain.append(b.replicates.std(ddof=1).to_numpy()[:-1])
    cv, plain, reported = map(np.array, (cv, plain, reported))
    np.testing.assert_allclose(cv.mean(0), plain.mean(0), rtol=0.03)
    assert np.all(cv.std(0) < 0.7 * plain.std(0))
    ratio = reported.mean(0) / cv.std(0)
    assert np.all((ratio > 1 / 1.6) & (ratio < 1.6)), ratio


def test_stop_rule_stops_before_B_and_says_so():
    d = _data(1000, seed=12)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    b = fm.bootstrap(fit, B=400, random_state=0, ci=False, mc_tol=0.1, progress=False)
    assert b.B < b.B_max == 400
    errs = b.mc_error()["se_mc"] / b.std_error
    assert float(errs.max()) <= 0.1
    assert f"{b.B} of at most 400" in str(b.summary())
    full = fm.bootstrap(fit, B=120, random_state=0, mc_tol=None, progress=False)
    assert full.B == full.B_max == 120


@pytest.mark.parametrize("kw, word", [(dict(replicates="fast"), "replicates"),
                                      (dict(k=0), "k"), (dict(k=2.5), "k"),
                                      (dict(mc_tol=0.05, B=30), "mc_tol"),
                                      (dict(mc_tol=1.5), "mc_tol"),
                                      (dict(control="yes"), "control")])
def test_bootstrap_refuses_bad_replicate_arguments(kw, word):
    fit = fm.maxent("y ~ x1 + x2 + C(g)", _data(200))
    with pytest.raises(InvalidArgumentError, match=f"`{word}`"):
        fm.bootstrap(fit, **{"B": 100, **kw})


# ----------------------------------------------------------------------------- tuning
@pytest.mark.parametrize("n, cv", [(150, 3), pytest.param(500, 5, marks=pytest.mark.slow)])
def test_tune_threshold_ci_on_the_engine_equals_the_refit_path(n, cv, monkeypatch):
    """Without the model's engine every fold is refitted through the model (the old path,
    on the design built once); the engine
    path (k-step from the fit, many at once) gives the same replicate thresholds to 1e-4
    (a threshold is a midpoint between two held-out scores: where two scores are within
    1e-5, the fits' convergence tolerances alone can swap them), the same interval to 1e-4
    and the same nested-CV F."""
    d = _data(n, seed=13)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    a = fm.tune_threshold(fit, d, beta=2, random_state=3, ci=True, cv=cv)
    full = fm.tune_threshold(fit, d, beta=2, random_state=3, ci=True, cv=cv, replicates="full")
    with monkeypatch.context() as m:
        m.setattr(type(fit), "row_refits", lambda self, data=None: None)
        b = fm.tune_threshold(fit, d, beta=2, random_state=3, ci=True, cv=cv)
    assert a.uncertainty.replicates == "kstep" and b.uncertainty.replicates == "refit"
    assert a.threshold == pytest.approx(b.threshold, rel=1e-9)
    np.testing.assert_allclose(a.uncertainty.thresholds, b.uncertainty.thresholds, atol=1e-4)
    np.testing.assert_allclose(a.threshold_ci, b.threshold_ci, atol=1e-4)
    assert a.uncertainty.f_corrected == pytest.approx(b.uncertainty.f_corrected, rel=1e-12)
    assert full.uncertainty.replicates == "full"
    np.testing.assert_allclose(full.uncertainty.thresholds, b.uncertainty.thresholds, atol=1e-6)


def test_cv_tune_ci_on_the_engines_equals_the_refit_path(monkeypatch):
    import fmstats.model_selection._grid_uncertainty as G

    d = _data(200, seed=14)
    grid = {"penalty": [0.0, 2.0, 20.0]}
    a = fm.cv_tune(fm.maxent, "y ~ x1 + x2 + C(g)", d, grid, beta=2, random_state=1,
                   ci=True, B=20, cv=3)
    monkeypatch.setattr(G, "_grid_engines", lambda *args: None)
    b = fm.cv_tune(fm.maxent, "y ~ x1 + x2 + C(g)", d, grid, beta=2, random_state=1,
                   ci=True, B=20, cv=3)
    np.testing.assert_array_equal(a.uncertainty.chosen, b.uncertainty.chosen)
    assert a.uncertainty.f_corrected == pytest.approx(b.uncertainty.f_corrected, rel=1e-12)


def test_validate_on_kstep_replicates_equals_full_replicates():
    d = _data(500, seed=15)
    fit = fm.maxent("y ~ x1 + x2 + C(g)", d)
    a = fm.validate(fit, B=40, random_state=4, progress=False)
    b = fm.validate(fit, B=40, random_state=4, progress=False, fast=False, data=d)
    assert (a.replicate_method, b.replicate_method) == ("kstep", "refit")
    assert "kstep refits of the stored design" in str(a.summary())
    pd.testing.assert_frame_equal(a.table[["apparent", "optimism", "oob"]],
                                  b.table[["apparent", "optimism", "oob"]], rtol=1e-6)


# ----------------------------------------------------------------------------- covariance home
def test_with_cov_is_a_copy_and_each_estimator_is_its_class():
    from fmstats.maxent_models._covariance import ESTIMATORS, default_cov_type

    d = _data(600, seed=16)
    fit = fm.fmaxent("y ~ x1 + x2 + C(g)", d, beta=2, cov_type="reweighted")
    hc0 = fit.with_cov("HC0")
    assert fit.cov_type == "reweighted" and hc0.cov_type == "HC0"
    assert hc0.call.get("cov_type") == "HC0" and fit.call.get("cov_type") == "reweighted"
    np.testing.assert_allclose(hc0.bse, fit.cov_params("HC0").pipe(np.diag) ** 0.5)
    assert not np.allclose(hc0.bse, fit.bse)
    for name in ("nonrobust", "HC0", "HC3", "reweighted"):
        assert type(fit.covariance(name)) is ESTIMATORS[name]
    with pytest.raises(InvalidArgumentError, match="`cov_type`"):
        fit.covariance("bogus")
    assert default_cov_type("fmaxent", 899) == "bootstrap"
    assert default_cov_type("fmaxent", 900) == "reweighted"
    assert default_cov_type("maxent", 10) == "nonrobust"
