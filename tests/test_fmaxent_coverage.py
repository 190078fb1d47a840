"""Do fmaxent's default standard errors measure the estimates' spread?

Slow checks of issue 29 against sources outside the covariance code:

* coverage over fixed-seed samples of a known distribution, of a target computed by the
  estimator on 300,000 rows (``tests/reference/fmaxent_coverage_target.py``): with 1,500
  rows per class (the default is the reweighted sandwich) and with 150 (the default is the
  bootstrap of the whole fit);
* agreement with the case bootstrap (the whole fit, outer loop included, refitted B = 200
  times) on three data sets whose smaller class has 900+ rows, the regime where the summary
  prints tests.
"""
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm

REF = Path(__file__).with_name("reference")
_spec = importlib.util.spec_from_file_location("fmaxent_coverage_target",
                                               REF / "fmaxent_coverage_target.py")
target_script = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(target_script)

Z = 1.959963984540054


def _samples(terms, n, seeds, default, other):
    """Estimates and standard errors (the default's, which must be ``default``, and
    ``other``'s) of fmaxent on fixed-seed samples of n rows of the reference design."""
    est, se, se_other = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        for seed in seeds:
            fit = fm.fmaxent(target_script.FORMULA, target_script.draw(n, seed), alpha=0.5,
                             progress=False, n_jobs=2)     # n_jobs: the default bootstrap's
            assert fit.cov_type == default
            if default == "reweighted":
                assert fit.tests_withheld() is None
            est.append(fit.params[terms].to_numpy())
            se.append(fit.bse[terms].to_numpy())
            se_other.append(fit.tidy(cov_type=other).set_index("term")["std_error"][terms])
    return np.array(est), np.array(se), np.array(se_other, dtype=float)


@pytest.mark.slow
def test_reweighted_intervals_cover_the_population_target():
    target = pd.read_csv(REF / "fmaxent_coverage_target.csv", index_col=0)["target"]
    est, se_rw, se_hc0 = _samples(target.index, 3000, range(150), "reweighted", "HC0")
    t = target.to_numpy()
    cover = (np.abs(est - t) <= Z * se_rw).mean(axis=0)
    # 150 samples: a coverage of 0.95 is seen within +/- 3 sqrt(.95 .05 / 150) = 0.053 (the
    # benchmark measured 0.934-0.946 over 500 samples); HC0 covered 0.30 there
    assert np.all((cover > 0.95 - 0.053) & (cover < 0.95 + 0.045)), cover
    # and the SEs are the size of the estimates' spread: the median SE over the Monte-Carlo
    # sd, whose own relative error with 150 samples is ~1/sqrt(300) = 0.058 (3 sd: 0.17)
    ratio = np.median(se_rw, axis=0) / est.std(axis=0, ddof=1)
    assert np.all((ratio > 0.83) & (ratio < 1.17)), ratio
    # the check discriminates: the weights-held-fixed sandwich fails it
    assert np.all((np.abs(est - t) <= Z * se_hc0).mean(axis=0) < 0.6)


@pytest.mark.slow
def test_default_bootstrap_covers_in_small_samples():
    """Below 900 rows in the smaller class the default is the bootstrap: at n = 300 (150 rows
    per class) its intervals cover; the reweighted sandwich's do not (the benchmark measured
    0.93-0.95 and 0.85-0.88 per coefficient)."""
    target = pd.read_csv(REF / "fmaxent_coverage_target.csv", index_col=0)["target"]
    est, se_boot, se_rw = _samples(target.index, 300, range(5000, 5100), "bootstrap",
                                   "reweighted")
    t = target.to_numpy()
    inside = {k: np.abs(est - t) <= Z * np.array(v) for k, v in
              (("bootstrap", se_boot), ("reweighted", se_rw))}
    # 300 intervals: a coverage of 0.95 is seen within +/- 3 sqrt(.95 .05 / 300) = 0.038;
    # per coefficient (100 intervals) within 0.065
    pooled = inside["bootstrap"].mean()
    assert 0.95 - 0.038 < pooled < 0.95 + 0.038, pooled
    assert np.all(inside["bootstrap"].mean(axis=0) > 0.95 - 0.065), inside["bootstrap"].mean(0)
    # the check discriminates: the reweighted sandwich, the default from 900 rows, fails it
    assert inside["reweighted"].mean() < 0.95 - 0.038, inside["reweighted"].mean()


def _adult():
    return fm.datasets.load_adult().sample(10_000, random_state=3)


def _logistic():
    rng = np.random.default_rng(7)
    n = 4000
    x1, x2, x3 = rng.normal(size=n), rng.normal(size=n), rng.uniform(-1, 1, size=n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n, p=[0.5, 0.3, 0.2])
    eta = -1.151 + x1 - 0.5 * x2 + 0.8 * x3 + np.select([g == "b", g == "c"], [0.6, -0.7], 0.0)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "x3": x3, "g": g})


@pytest.mark.slow
@pytest.mark.parametrize("name, formula, data, beta", [
    ("adult", "income ~ age + education_num + hours_per_week + sex", _adult, 1.0),
    ("thesis A", "q ~ x1 + x2", lambda: target_script.draw(4000, 7), 1.0),
    ("logistic", "y ~ x1 + x2 + x3 + C(g)", _logistic, 2.0),
])
def test_reweighted_and_bootstrap_standard_errors_agree(name, formula, data, beta):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        fit = fm.fmaxent(formula, data(), beta=beta, cov_type="bootstrap", B=200,
                         random_state=1, progress=False)
    assert min(fit.class_sizes()) >= fit.MIN_CLASS_FOR_TESTS
    rw = fit.tidy(cov_type="reweighted").set_index("term")["std_error"]
    hc0 = fit.tidy(cov_type="HC0").set_index("term")["std_error"]
    # 15 %: the tolerance; a bootstrap SE from B = 200 replicates has a relative Monte-
    # Carlo error of about 1/sqrt(2 B) = 5 % (measured ratios: 0.87-1.07 over the three sets)
    np.testing.assert_allclose(rw, fit.bse, rtol=0.15)
    assert np.all(hc0 / fit.bse < 0.6)     # the old default is far off on each


@pytest.mark.slow
def test_vignette_02_titanic_standard_errors():
    # vignette 02's claims: HC0 0.15-0.46 and reweighted 0.50-0.96 of the bootstrap's SEs,
    # and no tests printed (427 rows in the smaller class)
    titanic = fm.datasets.load_titanic().dropna(subset=["age"])
    fit = fm.fmaxent("survived ~ C(pclass) * sex + age + sibsp", titanic, beta=1,
                     cov_type="bootstrap", B=200, random_state=1, progress=False)
    ratio = {ct: fit.tidy(cov_type=ct).set_index("term")["std_error"] / fit.bse
             for ct in ("HC0", "reweighted")}
    np.testing.assert_allclose([ratio["HC0"].min(), ratio["HC0"].max()], [0.154, 0.459],
                               atol=0.01)
    np.testing.assert_allclose([ratio["reweighted"].min(), ratio["reweighted"].max()],
                               [0.505, 0.958], atol=0.01)
    assert min(fit.class_sizes()) == pytest.approx(427)
    assert fit.tests_withheld(cov_type="reweighted") is not None
    assert "p-values are withheld" in str(fit.summary(cov_type="reweighted"))
