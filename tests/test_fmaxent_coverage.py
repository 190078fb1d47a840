"""Do fmaxent's default (reweighted) standard errors measure the estimates' spread?

Two slow checks of issue 29 against sources outside the covariance code:

* coverage over fixed-seed samples of a known distribution, of a target computed by the
  estimator on 300,000 rows (``tests/reference/fmaxent_coverage_target.py``);
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


@pytest.mark.slow
def test_reweighted_intervals_cover_the_population_target():
    target = pd.read_csv(REF / "fmaxent_coverage_target.csv", index_col=0)["target"]
    reps, n = 150, 3000
    est, se_rw, se_hc0 = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        for seed in range(reps):
            fit = fm.fmaxent(target_script.FORMULA, target_script.draw(n, seed), alpha=0.5)
            assert fit.cov_type == "reweighted" and fit.tests_withheld() is None
            est.append(fit.params[target.index].to_numpy())
            se_rw.append(fit.bse[target.index].to_numpy())
            se_hc0.append(fit.tidy(cov_type="HC0").set_index("term")["std_error"][target.index])
    est, se_rw, se_hc0 = np.array(est), np.array(se_rw), np.array(se_hc0, dtype=float)
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
