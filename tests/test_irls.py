"""The IRLS core against independent fits, and its numerical safeguards."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import statsmodels.api as sm
from sklearn.linear_model import LogisticRegression

from fmstats.exceptions import ConvergenceWarning
from fmstats.glm import IrlsFit, binomial_deviance, gram, independent_columns, irls_logit

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(5)
    n, p = 3000, 6
    X = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    beta = np.array([-0.5, 1.0, -0.7, 0.3, 0.0, 0.4])
    mu = 1 / (1 + np.exp(-X @ beta))
    y = (rng.random(n) < mu).astype(float)
    q = np.clip(mu + rng.normal(0, 0.15, n), 0, 1)
    w = rng.uniform(0.2, 3.0, n)
    return X, y, q, w


@pytest.mark.parametrize("response", ["y", "q"])
def test_matches_statsmodels(problem, response):
    X, y, q, w = problem
    t = y if response == "y" else q
    f = irls_logit(X, t, w, tol=1e-14, max_iter=100)
    r = sm.GLM(t, X, family=sm.families.Binomial(), var_weights=w).fit(tol=1e-14, maxiter=100)
    np.testing.assert_allclose(f.coef, r.params, rtol=1e-10)
    assert f.deviance == pytest.approx(r.deviance, rel=1e-12)
    assert f.null_deviance == pytest.approx(r.null_deviance, rel=1e-12)
    np.testing.assert_allclose(np.sqrt(np.diag(f.xtwx_inv)), r.bse, rtol=1e-8)


def test_ridge_matches_sklearn_l2(problem):
    X, y, _, w = problem
    lam = 25.0
    pen = np.r_[0.0, np.full(X.shape[1] - 1, lam)]
    f = irls_logit(X, y, w, penalty=pen, tol=1e-14, max_iter=100)
    # sklearn minimises sum w * logloss + ||b||^2 / (2 C), intercept unpenalised
    m = LogisticRegression(C=1 / lam, solver="newton-cholesky", tol=1e-12, max_iter=200)
    m.fit(X[:, 1:], y, sample_weight=w)
    np.testing.assert_allclose(f.coef, np.r_[m.intercept_, m.coef_[0]], rtol=1e-7, atol=1e-9)


def test_warm_start_converges_immediately(problem):
    X, y, _, w = problem
    f = irls_logit(X, y, w)
    g = irls_logit(X, y, w, start=f.coef)
    assert g.iterations <= 1 and g.converged
    np.testing.assert_allclose(g.coef, f.coef, rtol=1e-7)


def test_step_halving_from_a_bad_start(problem):
    X, y, _, w = problem
    start = np.full(X.shape[1], 8.0)
    f = irls_logit(X, y, w, start=start, max_iter=100, tol=1e-12)
    ref = irls_logit(X, y, w, tol=1e-12)
    steps = f.history[1:, 1]
    assert np.any(steps < 1.0)                     # at least one step was halved
    assert np.all(np.diff(f.history[:, 0]) <= 1e-9)  # the deviance never increased
    np.testing.assert_allclose(f.coef, ref.coef, rtol=1e-8)


def test_nonconvergence_warns_and_is_flagged(problem):
    X, y, _, w = problem
    with pytest.warns(ConvergenceWarning, match="did not converge in 1 iteration"):
        f = irls_logit(X, y, w, max_iter=1)
    assert not f.converged and f.iterations == 1


def test_history_and_frozen(problem):
    X, y, _, w = problem
    f = irls_logit(X, y, w)
    assert f.history.shape == (f.iterations + 1, 2)
    assert f.history[-1, 0] == pytest.approx(f.deviance)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.coef = None  # type: ignore[misc]
    assert isinstance(f, IrlsFit)


def test_gram_and_deviance_helpers(problem):
    X, y, q, w = problem
    np.testing.assert_allclose(gram(X, w), X.T @ (w[:, None] * X), rtol=1e-12)
    mu = np.full_like(q, 0.3)
    direct = 2 * np.sum(w * (np.where(q > 0, q * np.log(np.where(q > 0, q, 1) / mu), 0)
                             + np.where(q < 1, (1 - q) * np.log(np.where(q < 1, 1 - q, 1)
                                                                / (1 - mu)), 0)))
    assert binomial_deviance(q, mu, w) == pytest.approx(direct, rel=1e-12)


def test_independent_columns_like_r_pivoting(problem):
    X, *_ = problem
    noise = np.random.default_rng(0).normal(size=len(X))
    # exact combination and constant are aliased; a nearly collinear column (1e-3 apart) is not
    Z = np.column_stack([X, X[:, 1] - 2 * X[:, 2], np.full(len(X), 4.0), X[:, 3] + 1e-3 * noise])
    keep = independent_columns(gram(Z))
    assert keep.tolist() == [True] * 6 + [False, False, True]


def test_start_gram_is_the_first_steps_gram(problem, monkeypatch):
    """maxent's aliasing check's X'WX serves as IRLS's first X'W0X (issue 28: one pass over X
    less): equal to gram(X, w mu0 (1 - mu0)) at R's start for a 0/1 response with equal
    weights, refused otherwise; the fits agree with irls_logit and make as many passes."""
    import pandas as pd

    import fmstats as fm
    import fmstats.glm._gram as gram_module
    import fmstats.glm._irls as irls
    from fmstats.maxent_models._prepare import start_gram

    X, y, q, w = problem
    n = len(y)
    keep = np.array([True, True, False, True, True, True])
    for wc in (np.ones(n), np.full(n, 2.5), np.where(np.arange(n) % 7 == 0, 0.0, 40.0)):
        mu0 = (wc * y + 0.5) / (wc + 1)
        want = gram(X[:, keep], wc * mu0 * (1 - mu0))
        np.testing.assert_allclose(start_gram(gram(X, wc), X, y, wc, keep), want, rtol=1e-12)
    assert start_gram(gram(X, w), X, y, w, keep) is None           # unequal weights
    assert start_gram(gram(X), X, q, np.ones(n), keep) is None      # proportions
    Xo = X.copy()
    Xo[:, 1] += 1e9                                                 # rank_gram rescales X
    assert start_gram(gram(Xo), Xo, y, np.ones(n), keep) is None

    df = pd.DataFrame(X[:, 1:], columns=[f"x{j}" for j in range(1, 6)]).assign(y=y)
    f = "y ~ x1 + x2 + x3 + x4 + x5"
    passes = []
    real = irls.gram

    def counted(*a, **k):
        passes.append(1)
        return real(*a, **k)

    # every pass over X: the IRLS steps' (glm._irls) and the aliasing check's (glm._gram)
    monkeypatch.setattr(irls, "gram", counted)
    monkeypatch.setattr(gram_module, "gram", counted)
    for wc in (None, np.full(n, 2.5), w):
        passes.clear()
        core = irls_logit(X, y, wc)
        n_core = len(passes)
        passes.clear()
        fit = fm.maxent(f, df, weights=wc)
        # the aliasing check's pass replaces the first step's, unless the weights differ
        assert len(passes) == n_core + (wc is w)
        np.testing.assert_allclose(fit.core_fit.coef, core.coef, rtol=1e-10)
        assert fit.core_fit.iterations == core.iterations
