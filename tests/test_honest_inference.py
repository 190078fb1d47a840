"""Honest inference for fitted models (issue 14): bootstrap covariance of the whole
F-reweighting, NA instead of p-values beside unusable standard errors, and no raw
numpy/pandas warning from any reporting call of any results type."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm


@pytest.fixture(scope="module")
def small():
    d = fm.datasets.make_thesis_noisy_data("B", random_state=11)
    return d[d.split == "train"].reset_index(drop=True)


@pytest.fixture(scope="module")
def boot_fit(small):
    with warnings.catch_warnings():
        # a resample may separate; the bootstrap says so (ResamplingWarning)
        warnings.simplefilter("ignore", fm.exceptions.ResamplingWarning)
        return fm.fmaxent("y_ml ~ x1 + x2", small, alpha=0.3, cov_type="bootstrap", B=60,
                      random_state=3)


def test_bootstrap_cov_is_covariance_of_whole_fit_replicates(boot_fit, small):
    r = boot_fit
    assert r.cov_type == "bootstrap" and r.bootstrap_results.B == 60
    reps = r.bootstrap_results.replicates[list(r.params.index)].to_numpy()
    # the covariance of the replicates, by regression on their linear part (the estimator
    # itself is checked against a re-implementation in tests/test_kstep.py); the plain
    # covariance agrees within its Monte-Carlo error (an SE from 60 replicates: ~9 %)
    np.testing.assert_allclose(r.cov_params().to_numpy(),
                               r.bootstrap_results.cov(list(r.params.index)).to_numpy(),
                               rtol=1e-12)
    se_plain = np.sqrt(np.diag(np.cov(reps, rowvar=False)))
    np.testing.assert_allclose(r.bse.to_numpy(), se_plain, rtol=0.3)
    # each replicate is a complete fmaxent fit on resampled rows: replicate 0 by hand (the
    # k-step replicate is within 0.1 of a standard error of the full refit)
    idx = np.sort(np.repeat(np.arange(len(small)), r.bootstrap_results.counts(0)))
    again = fm.fmaxent("y_ml ~ x1 + x2", small.iloc[idx].reset_index(drop=True), alpha=0.3)
    assert np.max(np.abs(reps[0] - again.params.to_numpy()) / se_plain) < 0.1
    # the point estimate is the ordinary fit's
    plain = fm.fmaxent("y_ml ~ x1 + x2", small, alpha=0.3)
    pd.testing.assert_series_equal(r.params, plain.params)


def test_bootstrap_se_agrees_with_a_hand_rolled_case_bootstrap(boot_fit, small):
    # an independent case bootstrap written here (other draws): Monte Carlo error of an SE
    # from 60 replicates is ~9%, of the ratio of two ~13%; the band is +-50% (about 4 sd)
    rng = np.random.default_rng(99)
    reps = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.SeparationWarning)
        for _ in range(60):
            idx = rng.integers(0, len(small), len(small))
            reps.append(fm.fmaxent("y_ml ~ x1 + x2", small.iloc[idx], alpha=0.3).params)
    se_hand = pd.DataFrame(reps).std(ddof=1)
    ratio = boot_fit.bse / se_hand
    assert np.all((ratio > 0.5) & (ratio < 1.5)), ratio


def test_bootstrap_cov_reproducible_pickles_and_is_reported(boot_fit, small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.ResamplingWarning)
        again = fm.fmaxent("y_ml ~ x1 + x2", small, alpha=0.3, cov_type="bootstrap", B=60,
                           random_state=3)
    pd.testing.assert_series_equal(again.bse, boot_fit.bse)
    g = pickle.loads(pickle.dumps(boot_fit))
    pd.testing.assert_frame_equal(g.tidy(), boot_fit.tidy())
    text = str(boot_fit.summary())
    assert ("bootstrap: covariance of 60 of 60 case-resampling k-step replicates (0 refitted "
            "in full) of the whole fit") in text
    assert "treats the F-weights as fixed" not in text
    assert "treats the F-weights as fixed" in str(boot_fit.summary(cov_type="HC0"))
    # refit does not nest bootstraps unless asked
    assert boot_fit.refit(small).cov_type == "HC0"


def test_bootstrap_cov_needs_replicates_and_refuses_dask_like_misuse(small):
    r = fm.fmaxent("y_ml ~ x1 + x2", small, alpha=0.3, cov_type="reweighted")
    with pytest.raises(fm.FmstatsError, match="cov_type='bootstrap'"):
        r.cov_params("bootstrap")


def test_hc0_understates_uncertainty_of_the_reweighting():
    # why the summary warns about HC0: on Titanic the bootstrap SEs of the default fit are
    # 2-7x the HC0 ones (B = 50 and 100, measured); asserted as >= 1.3 for every coefficient
    ti = fm.datasets.load_titanic().dropna(subset=["age"])
    r = fm.fmaxent("survived ~ sex + age + C(pclass)", ti, beta=1, cov_type="bootstrap",
                   B=40, random_state=5)
    ratio = r.bse / r.tidy(cov_type="HC0").set_index("term")["std_error"]
    assert np.all(ratio > 1.3), ratio


# ----------------------------------------------------------------------------- NA, never a p-value
def test_nonfinite_variance_prints_na_without_warnings(small):
    r = fm.maxent("y_ml ~ x1 + x2", small)
    cov = r.cov_params().copy()
    cov.iloc[1, 1] = -1.0                       # a broken variance, as a near-singular fit gives
    r.cov_params = lambda cov_type=None: cov    # type: ignore[method-assign]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = r.tidy()
        text = str(r.summary())
    assert np.isnan(t.loc[1, ["std_error", "statistic", "p_value", "conf_low"]].astype(float)).all()
    assert np.isfinite(t.loc[0, "p_value"])
    row = [line for line in text.splitlines() if line.startswith("x1")][0]
    assert row.split()[2:] == ["NA", "NA", "NA"]
    assert "Std. errors NA for x1" in text


# ----------------------------------------------------------------------------- no raw warnings
def _results_zoo():
    """One fitted object of every results type with a reporting API (fits may warn)."""
    d = fm.datasets.make_thesis_noisy_data("A", random_state=4)
    tr = d[d.split == "train"].iloc[:300].reset_index(drop=True)
    te = d[d.split == "test"].reset_index(drop=True)
    s = fm.datasets.make_thesis_svm_data("A1", random_state=4)
    s_tr, s_te = s[s.split == "train"], s[s.split == "test"]
    zoo = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zoo["maxent"] = (fm.maxent("y_ml ~ x1 + x2", tr), te)
        zoo["maxent_separated"] = (fm.maxent("z ~ x1", tr.assign(z=(tr.x1 > 0.8).astype(int))), te)
        zoo["umaxent"] = (fm.umaxent("q ~ x1 + x2", tr), te)
        zoo["fmaxent"] = (fm.fmaxent("y_ml ~ x1 + x2", tr, alpha=0.3), te)
        zoo["fmaxent_unbounded"] = (fm.fmaxent("y_ml ~ x1 + x2", tr, alpha=0.5,
                                               weight_bounds=None, shrinkage=0), te)
        zoo["fmaxent_noisy"] = (fm.fmaxent("q ~ x1 + x2", tr, alpha=0.7), te)
        zoo["fmaxent_boot"] = (fm.fmaxent("y_ml ~ x1 + x2", tr, alpha=0.3, cov_type="bootstrap",
                                          B=20, random_state=1), te)
        zoo["wsvm"] = (fm.wsvm("y ~ x1 + x2", s_tr), s_te)
        zoo["fsvm"] = (fm.fsvm("y ~ x1 + x2", s_tr, alpha=0.5), s_te)
        zoo["costsens"] = (fm.costsens("y_ml ~ x1 + x2", tr), te)
        zoo["thresholded"] = (fm.tune_threshold(zoo["maxent"][0], tr, cv=3, random_state=1), te)
        zoo["cv_tune"] = (fm.cv_tune(fm.maxent, "y_ml ~ x1 + x2", tr, {"penalty": [0.0, 1.0]},
                                     cv=3, random_state=1), te)
        zoo["bootstrap"] = (fm.bootstrap(zoo["maxent"][0], B=20, random_state=1), None)
        zoo["validate"] = (fm.validate(zoo["maxent"][0], B=5, data=tr, random_state=1), None)
    return zoo


ZOO = None


def _zoo():
    global ZOO
    if ZOO is None:
        ZOO = _results_zoo()
    return ZOO


@pytest.mark.parametrize("name", ["maxent", "maxent_separated", "umaxent", "fmaxent",
                                  "fmaxent_unbounded", "fmaxent_noisy", "fmaxent_boot", "wsvm",
                                  "fsvm", "costsens", "thresholded", "cv_tune", "bootstrap",
                                  "validate"])
def test_reporting_calls_raise_no_raw_warning(name):
    res, newdata = _zoo()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        summ = res.summary()
        text = str(summ)
        summ._repr_html_()
        if hasattr(summ, "as_latex"):
            summ.as_latex()
        repr(res)
        if hasattr(res, "tidy"):
            res.tidy()
        if hasattr(res, "conf_int"):
            try:
                res.conf_int()
            except fm.FmstatsError:
                pass     # models without a covariance say so clearly (SVMs, costsens)
        if newdata is not None and hasattr(res, "predict"):
            res.predict(newdata)
    assert repr(res).startswith(f"<{type(res).__name__}") or type(res).__name__ in repr(res)
    assert "nan" not in text.replace("Dispersion", "")
    # a p-value or stars never stand beside an NA standard error
    for line in text.splitlines():
        cells = line.split()
        if len(cells) >= 3 and cells[2] == "NA":
            assert "e-" not in " ".join(cells[3:]) and "*" not in line, line
