"""to_statsmodels: statsmodels' own GLM fit of the same model agrees with fmstats.

fmstats' numbers are R-equal (test_maxent_reference.py); here statsmodels refits the
likelihood itself from the design, so wrong weights, a wrong scale or dropped rows would show
as different coefficients or standard errors.  Tolerances: coefficients rtol 1e-5 (fmstats
stops at R's relative-deviance rule, epsilon 1e-8, which leaves up to ~1e-6 in the
coefficients; measured 8.5e-7 on the interaction model), standard errors rtol 1e-5.
"""
from __future__ import annotations

import numpy as np
import pytest

import fmstats as fm
from fmstats.exceptions import FmstatsError

sm = pytest.importorskip("statsmodels.api")


@pytest.fixture(scope="module")
def titanic():
    data = fm.datasets.load_titanic().dropna(subset=["age"]).reset_index(drop=True)
    data["w"] = np.random.default_rng(7).integers(1, 4, len(data)).astype(float)
    return data


def _agree(fit, sm_fit, rtol=1e-5):
    params, bse = fit.params.dropna(), fit.bse.dropna()     # aliased terms are NA in fmstats
    assert list(sm_fit.params.index) == list(params.index)
    np.testing.assert_allclose(sm_fit.params.to_numpy(), params.to_numpy(), rtol=rtol,
                               atol=1e-6)
    np.testing.assert_allclose(sm_fit.bse.to_numpy(), bse.to_numpy(), rtol=rtol)


@pytest.mark.parametrize("cov_type", ["nonrobust", "HC0"])
def test_weighted_maxent(titanic, cov_type):
    fit = fm.maxent("survived ~ C(pclass) * sex + age", titanic, weights="w",
                    cov_type=cov_type)
    sm_fit = fit.to_statsmodels()
    _agree(fit, sm_fit)
    assert sm_fit.cov_type == cov_type
    # the weights matter: an unweighted statsmodels fit is far from this one
    plain = sm.GLM(sm_fit.model.endog, sm_fit.model.exog, family=sm.families.Binomial()).fit()
    assert np.max(np.abs(plain.params - sm_fit.params.to_numpy())) > 1e-2


def test_cbind_counts(titanic):
    grouped = (titanic.assign(yes=titanic.survived, no=1 - titanic.survived)
               .groupby(["pclass", "sex"], as_index=False)[["yes", "no"]].sum())
    fit = fm.maxent("cbind(yes, no) ~ C(pclass) + sex", grouped)
    _agree(fit, fm.to_statsmodels(fit))
    # the grouped fit equals the fit on the passengers, as a binomial GLM must
    rows = fm.maxent("survived ~ C(pclass) + sex", titanic)
    np.testing.assert_allclose(fit.params, rows.params, rtol=1e-6)


def test_umaxent_quasibinomial(titanic):
    q = np.clip(0.1 + 0.8 * titanic.survived
                + np.random.default_rng(3).normal(0, 0.05, len(titanic)), 0, 1)
    fit = fm.umaxent("q ~ sex + age", titanic.assign(q=q))
    sm_fit = fit.to_statsmodels()
    _agree(fit, sm_fit, rtol=1e-8)
    assert sm_fit.scale == pytest.approx(fit.dispersion, rel=1e-10)
    assert sm_fit.use_t


def test_aliased_column_is_dropped(titanic):
    data = titanic.assign(age2=2 * titanic.age)
    with pytest.warns(fm.exceptions.CollinearityWarning):
        fit = fm.maxent("survived ~ sex + age + age2", data)
    sm_fit = fit.to_statsmodels()
    assert "age2" not in sm_fit.params.index
    _agree(fit, sm_fit)


def test_models_without_a_twin_raise(titanic):
    with pytest.raises(FmstatsError, match="ridge penalty"):
        fm.maxent("survived ~ sex + age", titanic, penalty=1.0).to_statsmodels()
    fit = fm.fmaxent("survived ~ sex + age", titanic)
    with pytest.raises(FmstatsError, match="`fit`: to_statsmodels needs an unpenalised likelihood"):
        fit.to_statsmodels()
    lean = fm.maxent("survived ~ sex + age", titanic, keep_data=False)
    with pytest.raises(FmstatsError, match="keep_data"):
        lean.to_statsmodels()
