"""Issue 31, mechanism 2: fits that looked fine but were not.

* the stopping rule must not depend on the weights' scale (weights of 1e-300 stopped after
  one step with coefficients 5-7 % off);
* separation is found from the Newton step at the stopping point (confirmed by Konis's linear
  programme) and from factor cells holding one class, not only from fitted probabilities
  within 10 eps (n = 2 and 3, a level of Adult's education with no positive);
* fmaxent's ridge keeps its coefficients finite, so its summary notes the rows it saturates;
* non-integer successes get R's note beside the AIC.

References: statsmodels' GLM (coefficients), a brute-force separation test of one predictor,
counts by pandas (cells, saturated rows, R's non-integer rule), the weighted log-likelihood by
numpy.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import fmstats as fm
from fmstats.exceptions import SeparationWarning

REF = Path(__file__).parent / "reference"
pytestmark = pytest.mark.numerics     # separation flags and stopping rules are decisions on doubles


@pytest.fixture(scope="module")
def synth():
    return pd.read_csv(REF / "inputs_synthetic.csv")


def _sm_coef(data, weights):
    X = sm.add_constant(np.column_stack([data.x1, data.x2, data.g == "b", data.g == "c"])
                        .astype(float))
    return sm.GLM(data.y, X, family=sm.families.Binomial(),
                  var_weights=weights).fit(tol=1e-13).params


# ----------------------------------------------------------------------------- weights' scale
@pytest.mark.parametrize("scale", [1e-300, 1e-100, 1e-8, 1.0, 1e100])
def test_coefficients_do_not_depend_on_the_weights_scale(synth, scale):
    """R's rule |dev - dev_old| / (|dev| + 0.1) with weights of 1e-300 stops after one step:
    the deviance is ~1e-298 beside the 0.1.  Mutant: the absolute 0.1 restored."""
    w = synth["w"].to_numpy() * scale
    fit = fm.maxent("y ~ x1 + x2 + g", synth, weights=w)
    assert fit.converged and fit.iterations > 1
    np.testing.assert_allclose(fit.params.to_numpy(), _sm_coef(synth, synth["w"]), rtol=1e-6)


def test_iterations_of_unit_and_frequency_weights_stay_r_s(synth):
    """Weights with a mean of at least 1 keep R's rule exactly: the iteration counts of the
    unit-weight fit and of weights x 10 are R's (glm_stats.csv: 4 for synth_binom_w)."""
    stats = pd.read_csv(REF / "glm_stats.csv").set_index("model")
    fit = fm.maxent("y ~ x1 + x2 + g", synth, weights="w")
    assert fit.iterations == int(stats.loc["synth_binom_w", "iter"])


def test_out_of_core_fit_does_not_depend_on_the_weights_scale(synth):
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    data = synth.assign(wt=synth["w"] * 1e-300)
    with dask.config.set(scheduler="synchronous"):
        fit = fm.maxent("y ~ x1 + x2 + g", dd.from_pandas(data, npartitions=3), weights="wt")
    np.testing.assert_allclose(fit.params.to_numpy(), _sm_coef(synth, synth["w"]), rtol=1e-6)


# ----------------------------------------------------------------------------- separation
def _separable(x: np.ndarray, y: np.ndarray) -> bool:
    """Brute force for one predictor with an intercept: the MLE is infinite iff a threshold
    puts every positive on one side and every negative on the other (ties allowed)."""
    x0, x1 = x[y == 0], x[y == 1]
    return bool(x0.max() <= x1.min() or x1.max() <= x0.min())


@pytest.mark.parametrize("x, y", [([0.3, 0.9], [0, 1]), ([0.3, 0.9, 1.2], [0, 1, 1])])
def test_tiny_separated_samples_warn_and_print_no_standard_errors(x, y):
    """n = 2: coefficients (-47, 79), fitted 6e-11 and 1, SEs of 2e5, converged, no warning
    (R's glm does the same for n = 2)."""
    d = pd.DataFrame({"x": x, "y": y})
    with pytest.warns(SeparationWarning, match="separated"):
        fit = fm.maxent("y ~ x", d)
    assert fit.separated and fit.bse.isna().all()
    assert "Std. errors, tests and Wald intervals are NA" in str(fit.summary())


@pytest.mark.parametrize("seed", range(24))
def test_separation_flag_equals_brute_force_on_small_samples(seed):
    """The flag matches the brute-force test, both ways (no false alarm on overlapping
    classes, which a rule 'fitted within 1e-8' could give)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 12))
    x = np.round(rng.normal(size=n), 1)
    y = (rng.random(n) < 1 / (1 + np.exp(-3 * x))).astype(int)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = fm.maxent("y ~ x", pd.DataFrame({"x": x, "y": y}))
    truth = _separable(x, y)
    assert fit.separated == truth
    assert any(issubclass(w.category, SeparationWarning) for w in caught) == truth


def test_a_level_without_positives_is_found_and_named():
    """Adult with C(education_num): Preschool (education_num 1, the reference level) has 51
    negatives and no positive; the fit stopped with an intercept of -18.9, SE 174, no warning."""
    adult = fm.datasets.load_adult()
    counts = adult.groupby("education_num")["income"].agg(
        pos=lambda s: int((s == ">50K").sum()), n="size")
    empty = counts[counts.pos == 0]
    assert list(empty.index) == [1]          # the reference level, by pandas
    k = int(empty.n.iloc[0])
    with pytest.warns(SeparationWarning, match=rf"'C\(education_num\)' at its reference level "
                                                rf"\(no positives among its {k} rows\)"):
        fit = fm.maxent("I(income == '>50K') ~ age + C(education_num) + sex", adult)
    assert fit.separated and fit.bse.isna().all()


def test_a_dummy_level_without_positives_is_named(synth):
    d = synth.assign(h=np.where(synth.index < 30, "z", synth.g))
    d.loc[d.h == "z", "y"] = 0
    with pytest.warns(SeparationWarning, match=r"'h\[T\.z\]' \(no positives among its 30 rows\)"):
        fit = fm.maxent("y ~ x1 + h", d)
    assert fit.separated


def test_an_overlapping_fit_with_extreme_probabilities_is_not_flagged():
    """A strong but finite effect: fitted probabilities below 1e-8 at the tails (above R's
    10 eps), a finite MLE (the brute-force test says the classes overlap)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=3000) * 2
    y = (rng.random(3000) < 1 / (1 + np.exp(-3.5 * x))).astype(int)
    assert not _separable(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeparationWarning)
        fit = fm.maxent("y ~ x", pd.DataFrame({"x": x, "y": y}))
    assert np.min(np.minimum(fit.fitted_values, 1 - fit.fitted_values)) < 1e-8
    assert not fit.separated and np.all(np.isfinite(fit.bse))


def test_fmaxent_notes_the_rows_its_ridge_saturates():
    """fmaxent on Titanic: fitted probabilities within 1e-8 of 0/1 and nothing said.  The ridge
    (shrinkage) keeps the coefficients finite, so the note says so instead of a
    SeparationWarning (the fit is quiet: pytest turns FmstatsWarnings into errors)."""
    t = fm.datasets.titanic_complete()
    fit = fm.fmaxent("survived ~ C(pclass) * sex + age + sibsp", t)
    mu = fit.fitted_values.to_numpy()
    k = int(np.sum(np.minimum(mu, 1 - mu) < 1e-8))
    assert k > 0 and fit.n_saturated == k
    text = str(fit.summary())
    assert f"Note: {k} of {len(t)} fitted probabilities are within 1e-8 of 0 or 1" in text
    assert "ridge alone keeps the coefficients finite" in text
    calm = fm.fmaxent("survived ~ C(pclass) * sex + age + sibsp", t, shrinkage=1e-2)
    assert calm.n_saturated == 0 and "within 1e-8" not in str(calm.summary())


# ----------------------------------------------------------------------------- AIC
def test_non_integer_successes_get_r_s_note_beside_the_aic(synth):
    fit = fm.maxent("y ~ x1 + x2 + g", synth, weights="w")
    m = synth["w"].to_numpy() * synth["y"].to_numpy()
    odd = int(np.sum(np.abs(m - np.round(m)) > 1e-3))        # R's binomial()$initialize rule
    assert odd > 0
    mu = fit.fitted_values.to_numpy()
    y, w = synth["y"].to_numpy(), synth["w"].to_numpy()
    llf = float(np.sum(w * (y * np.log(mu) + (1 - y) * np.log1p(-mu))))
    assert fit.aic == pytest.approx(-2 * llf + 2 * 5, rel=1e-10)
    text = str(fit.summary())
    assert f"(non-integer #successes in {odd} row(s), as R warns" in text


@pytest.mark.parametrize("weights", [None, "k"])
def test_integer_successes_have_no_note(synth, weights):
    d = synth.assign(k=np.round(synth["w"]) + 1)
    assert "non-integer" not in str(fm.maxent("y ~ x1 + x2 + g", d, weights=weights).summary())
