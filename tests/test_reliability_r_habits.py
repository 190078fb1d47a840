"""Issue 31's checks meet issue 26's R habits: separation tests on sparse designs and with
offsets, the design in row blocks (``keep_data=False``) with offsets and subsets, the data
validator on offset columns and on matrix designs.

References: dense-design twins of each sparse computation, the fit that keeps its design
(``keep_data=True``), and the one-class factor cells counted by brute force.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fmstats as fm
from fmstats.exceptions import DataError, DesignError, SeparationWarning
from fmstats.formula import blocked_model_frame
from fmstats.glm import irls_logit
from fmstats.glm import newton_reach, no_finite_mle, zero_count_cells
from fmstats.sklearn import MaxentClassifier


@pytest.fixture(scope="module")
def offset_data():
    rng = np.random.default_rng(31)
    n = 400
    d = pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(list("abc"), n),
                      "z": rng.normal(scale=0.5, size=n)})
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-(0.7 * d.x + d.z)))).astype(int)
    return d


def _one_hot_design(separated: bool):
    """An intercept, x and a 4-level factor; with ``separated`` its level 3 has no positive."""
    rng = np.random.default_rng(5)
    n = 240
    g = np.repeat(np.arange(4), n // 4)
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(float)
    if separated:
        y[g == 3] = 0.0
    X = np.column_stack([np.ones(n), x] + [(g == j).astype(float) for j in (1, 2, 3)])
    return X, y, np.ones(n)


@pytest.mark.parametrize("separated", [True, False])
def test_separation_tests_take_sparse_designs_as_dense(separated):
    X, y, w = _one_hot_design(separated)
    S = sp.csr_matrix(X)
    assert no_finite_mle(S, y, w) is no_finite_mle(X, y, w) is separated
    terms = [("g", [2, 3, 4], ["g[T.1]", "g[T.2]", "g[T.3]"])]
    cells = zero_count_cells(X, y, w, terms)
    assert zero_count_cells(S, y, w, terms) == cells
    assert cells == (["'g[T.3]' (no positives among its 60 rows)"] if separated else [])
    fit = irls_logit(X, y, w, warn=False)
    np.testing.assert_allclose(newton_reach(S, y, w, fit.mu, fit.xtwx_inv),
                               newton_reach(X, y, w, fit.mu, fit.xtwx_inv), rtol=0, atol=1e-12)


def test_sparse_fit_finds_the_separation_the_dense_fit_finds():
    X, y, w = _one_hot_design(True)
    terms = [("g", [2, 3, 4], ["g[T.1]", "g[T.2]", "g[T.3]"])]
    for design in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        with pytest.warns(SeparationWarning, match=r"no finite maximum.*'g\[T\.3\]' \(no "
                                                   r"positives among its 60 rows\)"):
            fit = irls_logit(design, y, w, terms=terms)
        assert fit.separated and fit.separation == "no finite MLE"


def test_an_offset_does_not_hide_a_separation(offset_data):
    """The likelihood has a finite maximum or not whatever the offset (its recession
    directions are X's); the null deviance is the offset's intercept-only fit (R's)."""
    d = offset_data.copy()
    d.loc[d.g == "c", "y"] = 0
    with pytest.warns(SeparationWarning, match=r"'C\(g\)\[T\.c\]' \(no positives"):
        fit = fm.maxent("y ~ x + C(g)", d, offset="z")
    assert fit.separated
    fm.maxent("y ~ x + C(g)", offset_data, offset="z")     # not separated: quiet (warnings raise)


@pytest.mark.parametrize("how", ["argument", "term", "subset"])
def test_keep_data_false_with_offset_or_subset_is_the_kept_fit(offset_data, how):
    """Row blocks take no offset or subset: such fits build the design whole and drop it."""
    formula = "y ~ x + C(g)" + (" + offset(z)" if how == "term" else "")
    kw = {"argument": dict(offset="z"), "term": {}, "subset": dict(subset="x > -1")}[how]
    kept = fm.maxent(formula, offset_data, **kw)
    lean = fm.maxent(formula, offset_data, keep_data=False, **kw)
    assert lean.X is None and lean.nobs == kept.nobs
    np.testing.assert_allclose(lean.params, kept.params, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lean.cov_params("HC3"), kept.cov_params("HC3"), rtol=1e-8)
    np.testing.assert_allclose(lean.deviance, kept.deviance, rtol=1e-12)
    new = offset_data.iloc[:50]
    np.testing.assert_allclose(lean.predict(new), kept.predict(new), rtol=1e-12)


def test_blocked_model_frame_leaves_offset_terms_to_the_whole_design(offset_data):
    assert blocked_model_frame("y ~ x + C(g) + offset(z)", offset_data) is None
    assert blocked_model_frame("y ~ x + C(g)", offset_data) is not None


@pytest.mark.parametrize("formula, kw", [("y ~ x", dict(offset="z")),
                                         ("y ~ x + offset(z)", {})])
def test_validator_checks_offset_columns(offset_data, formula, kw):
    d = offset_data.copy()
    d["z"] = d.z.astype(object)
    d.loc[5, "z"] = "abc"
    with pytest.raises(DataError, match=r"column 'z' of `data` holds mostly numbers but 1 "
                                        r"value\(s\) that are not \('abc'"):
        fm.maxent(formula, d, **kw)


@pytest.mark.parametrize("kind", ["dense", "csr"])
def test_matrix_designs_get_the_validators_spread_rule(kind):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 3))
    X[:, 1] *= 1e200
    y = (rng.random(100) < 0.5).astype(int)
    with pytest.raises(DesignError, match=r"design column 'x1' spreads 2\.\d+e\+200 .* in `X`"):
        MaxentClassifier().fit(X if kind == "dense" else sp.csr_matrix(X), y)


def test_a_one_class_factor_cell_decides_separation_without_the_lp(monkeypatch):
    """A factor cell holding one class is a separating direction by itself, so the fit takes
    it as the certificate and skips Konis's LP (0.17 s per fold on Adult, which made
    tune_threshold 5x its hand loop).  The decision is the LP's: it is run here on the same
    design, and a fit without the cell still goes to the LP."""
    import fmstats.glm._irls as irls

    X, y, w = _one_hot_design(True)
    terms = [("g", [2, 3, 4], ["g[T.1]", "g[T.2]", "g[T.3]"])]
    calls = []
    real = irls.no_finite_maximum
    monkeypatch.setattr(irls, "no_finite_maximum",
                        lambda *a: calls.append(1) or real(*a))
    fit = irls_logit(X, y, w, warn=False, terms=terms)
    assert fit.separated and fit.separation == "no finite MLE" and calls == []
    assert no_finite_mle(X, y, w)                   # the LP agrees
    # without the terms there is no certificate: the LP decides, the same way
    fit2 = irls_logit(X, y, w, warn=False)
    assert fit2.separated and calls == [1]
    # a continuous separation has no cell: the LP is asked
    Xc = X[:, :2]
    yc = (Xc[:, 1] > 0).astype(float)
    fit3 = irls_logit(Xc, yc, w, warn=False, terms=[("x", [1], ["x"])])
    assert fit3.separated and no_finite_mle(Xc, yc, w)
