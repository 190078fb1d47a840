"""Reproduction of the thesis's experiments (seed 004: Rose 2014, chapters 8 and 9).

The thesis reports its experiments as figures without numeric tables, so its claims are
qualitative ("the maximiser gives a higher noisy F", "meets its baseline around beta = 0.6",
"about 20 iterations", "full fits reach better optima").  Each claim is measured here as a
number (a share of alpha, a mean gain, an iteration count) on fixed seeds, and asserted
two-sided around the value measured with ``tests/reference/reproduce_004_measured.py``.

Tolerances (say which): the computations are deterministic for a fixed seed, so the bands
only absorb platform differences of the iterative fits; they are set from the measured
*seed spread* (10 draws, 2014-2023) or from the resolution of the measure (one alpha of 19
= 0.053 of a share), whichever the comment names.  The thesis's own number, where it gives
one, is asserted with its precision (e.g. "about 20 iterations").
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.experiments.thesis_ch9 import (ALPHAS, TITANIC_FORMULA, chapter9_gains, claim_fractions,
                              inner_comparison, sweep_gains, thesis_inner_loop, titanic_split)
from fmstats.experiments.thesis_ch8 import chapter8
from fmstats.experiments.thesis_ch8 import fsvm_minus_wsvm, vignette_chapter8

pytestmark = pytest.mark.reference

ONE_ALPHA = 1 / len(ALPHAS)          # resolution of a share of the 19 alphas


# ----------------------------------------------------------------------------- chapter 9
@pytest.fixture(scope="module")
def gains_2014():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return chapter9_gains(seeds=(2014,))


def test_ch9_train_noisy_f_gain_at_every_alpha(gains_2014):
    # Figs. 9.2 / 9.5: the noisy-F maximiser has the highest training noisy F at every beta.
    fr = claim_fractions(gains_2014)
    assert fr["train_gain"].tolist() == [1.0, 1.0]
    # mean gain over the 19 alphas, measured 0.0566 (A) and 0.0462 (B); band: seed spread
    # of the 10 seeds is 0.049-0.060 (A) and 0.045-0.051 (B), so +-0.003 keeps the seed
    mean = gains_2014.groupby("data")["train_gain"].mean()
    assert mean["A"] == pytest.approx(0.0566, abs=0.003)
    assert mean["B"] == pytest.approx(0.0462, abs=0.003)
    # the gain is largest at the extremes of alpha (both ends), smallest near 0.6-0.7
    for _, part in gains_2014.groupby("data"):
        low = part.set_index("alpha")["train_gain"]
        assert 0.55 <= low.idxmin() <= 0.75
        assert low[0.05] > 0.14 and low[0.95] > 0.08


def test_ch9_test_gain_share_and_meeting_point(gains_2014):
    # Figs. 9.3 / 9.6: improved test noisy F, meeting the baseline "around beta = 0.6".
    fr = claim_fractions(gains_2014)
    # measured on draw 2014: 14/19 (A) and 17/19 (B); +- one alpha
    assert fr.loc[("A", 2014), "test_gain"] == pytest.approx(14 / 19, abs=ONE_ALPHA + 1e-9)
    assert fr.loc[("B", 2014), "test_gain"] == pytest.approx(17 / 19, abs=ONE_ALPHA + 1e-9)
    lost = gains_2014[gains_2014["test_gain"] <= 1e-4]
    # the alphas where the maximiser does not gain: measured 0.60-0.80 (+- one step of 0.05)
    assert lost["alpha"].min() == pytest.approx(0.60, abs=0.051)
    assert lost["alpha"].max() == pytest.approx(0.80, abs=0.051)
    # on this draw B gains more on test than A, as the thesis says (0.0501 vs 0.0420)
    mean = gains_2014.groupby("data")["test_gain"].mean()
    assert mean["A"] == pytest.approx(0.0420, abs=0.003)
    assert mean["B"] == pytest.approx(0.0501, abs=0.003)


def test_ch9_plugin_resampled_f_gain_for_most_alphas(gains_2014):
    # Figs. 9.4 / 9.7: the plug-in maximiser's mean F over label draws from q beats the
    # unweighted uncertain maxent "for most values of beta"; it is never below it.
    fr = claim_fractions(gains_2014)
    assert fr.loc[("A", 2014), "resample_gain"] == pytest.approx(18 / 19, abs=ONE_ALPHA + 1e-9)
    assert fr.loc[("B", 2014), "resample_gain"] == pytest.approx(18 / 19, abs=ONE_ALPHA + 1e-9)
    assert gains_2014["resample_gain"].min() >= -1e-3
    mean = gains_2014.groupby("data")["resample_gain"].mean()
    assert mean["A"] == pytest.approx(0.0630, abs=0.004)   # B = 200 draws: MC sd ~0.001
    assert mean["B"] == pytest.approx(0.0572, abs=0.004)


def test_ch9_iterations_about_twenty(gains_2014):
    # Fig. 9.8: "the maximum is reached ... typically in about 20 iterations".  Measured:
    # best iterate 13-19 on draw 2014 (median 14-15); over 10 draws 12-20.
    it = gains_2014["best_iteration"]
    assert 12 <= it.median() <= 18
    assert 12 <= it.min() <= 14 and 18 <= it.max() <= 20      # 13 and 19, +- one iteration


def test_ch9_titanic_gains():
    # Figs. 9.10 / 9.11 on vignette 02's Titanic split (label noise and test rows, seed 9):
    # training noisy F higher at 19/19 alphas (mean gain 0.0467), test at 18/19 (mean 0.0500;
    # the one loss, -0.0004 at alpha 0.70, sits where A and B meet their baseline too).
    # Bands: +- one alpha on the shares, +-0.003 on the means (as for A and B above).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tr, te = titanic_split(9)
        g = sweep_gains(fm.sweep(TITANIC_FORMULA, tr, te))
    assert (g["train"] > 1e-4).mean() == 1.0
    assert (g["test"] > 1e-4).mean() == pytest.approx(18 / 19, abs=ONE_ALPHA + 1e-9)
    assert g["train"].mean() == pytest.approx(0.0467, abs=0.003)
    assert g["test"].mean() == pytest.approx(0.0500, abs=0.003)
    assert g["test"].idxmin() == pytest.approx(0.70, abs=0.051)


@pytest.fixture(scope="module")
def inner_table():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return inner_comparison("B", 2014)


def test_fig_9_9_warm_one_step_equals_full_fit(inner_table):
    # fmstats' inner="step" is one IRLS step *from the previous coefficients*: it reaches the
    # same optimum as the full fit (measured max difference 3e-5 over 10 alphas).
    diff = (inner_table["warm_step"] - inner_table["warm_full"]).abs()
    assert diff.max() <= 1e-4


def test_fig_9_9_thesis_cold_one_step_is_worse(inner_table):
    # The thesis's R loop calls glm(maxit = 1) with no start values: one IRLS step from glm's
    # default start per outer iteration.  Re-implemented independently of fmaxent, it
    # reproduces Fig. 9.9: maxit = 25 equals fmstats' full fit (measured within 1.1e-4), and
    # maxit = 1 is below it at every alpha, by 0.012 (alpha 0.65) to 0.052 (alpha 0.05).
    full = inner_table["warm_full"]
    np.testing.assert_allclose(inner_table["cold_maxit25"], full, atol=3e-4)
    gap = full - inner_table["cold_maxit1"]
    assert gap.min() == pytest.approx(0.0121, abs=0.003)
    assert gap.max() == pytest.approx(0.0518, abs=0.005)
    assert (gap > 0.008).all()


def test_thesis_inner_loop_matches_a_statsmodels_glm_step():
    # the cold one-step of thesis_inner_loop is R's first glm IRLS iteration (from
    # mustart = (w y + 0.5) / (w + 1) on the doubled rows): one outer iteration by hand
    sm = pytest.importorskip("statsmodels.api")
    d = fm.datasets.make_thesis_noisy_data("B", random_state=5)
    tr = d[d.split == "train"]
    X = np.column_stack([np.ones(len(tr)), tr["x1"], tr["x2"]])
    q = tr["q"].to_numpy(float)
    last, best, its = thesis_inner_loop(X, q, 0.4, maxit=1, its=1)
    Xd, y = np.vstack([X, X]), np.r_[np.ones(len(q)), np.zeros(len(q))]
    pw = np.r_[q, 1 - q]
    mu0 = (pw * y + 0.5) / (pw + 1)
    # one weighted least-squares fit of R's working response at mustart (statsmodels WLS)
    var = mu0 * (1 - mu0)
    z = np.log(mu0 / (1 - mu0)) + (y - mu0) / var
    coef = sm.WLS(z, Xd, weights=pw * var).fit().params
    p = 1 / (1 + np.exp(-(X @ coef)))
    expect = np.minimum(q, p).sum() / (0.4 * p.sum() + 0.6 * q.sum())
    assert its == 1 and last == pytest.approx(expect, rel=1e-10) and best == last


@pytest.mark.slow
def test_ch9_claims_over_ten_seeds():
    # The seed spread behind the bands above (10 draws 2014-2023, 19 alphas, A and B).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = chapter9_gains(seeds=tuple(range(2014, 2024)))
    fr = claim_fractions(g).groupby("data").agg(["mean", "min"])
    # measured: train 1.000/1.000 everywhere; test share mean 0.921 (A, sd 0.106, min 0.737)
    # and 0.958 (B, sd 0.048, min 0.895); plug-in resampled share 0.953 (A) and 0.937 (B)
    assert fr[("train_gain", "min")].tolist() == [1.0, 1.0]
    assert fr.loc["A", ("test_gain", "mean")] == pytest.approx(0.921, abs=0.02)
    assert fr.loc["B", ("test_gain", "mean")] == pytest.approx(0.958, abs=0.02)
    assert fr.loc["A", ("test_gain", "min")] == pytest.approx(0.737, abs=ONE_ALPHA + 1e-9)
    assert fr.loc["A", ("resample_gain", "mean")] == pytest.approx(0.953, abs=0.02)
    assert fr.loc["B", ("resample_gain", "mean")] == pytest.approx(0.937, abs=0.02)
    # "even better on B" does not hold on average: mean test gain B - A = -0.009 (sd 0.011
    # over the 10 draws; B ahead only on draw 2014, by 0.008)
    m = g.groupby(["data", "seed"])["test_gain"].mean().unstack(0)
    assert (m["B"] - m["A"]).mean() == pytest.approx(-0.0093, abs=0.004)
    assert (m["B"] - m["A"]).max() == pytest.approx(0.0081, abs=0.003)
    assert (m["B"] - m["A"]).drop(2014).max() <= 1e-3
    lost = g[g["test_gain"] <= 1e-4]
    # measured 0.50-0.80 over the ten draws, median 0.65 (+- one step of 0.05)
    assert lost["alpha"].min() == pytest.approx(0.50, abs=0.051)
    assert lost["alpha"].max() == pytest.approx(0.80, abs=0.051)
    assert 0.55 <= lost["alpha"].median() <= 0.70
    assert g["best_iteration"].max() <= 25 and g["best_iteration"].median() == 15


# ----------------------------------------------------------------------------- chapter 8
def _chapter8(name, seed, **kw):
    d = fm.datasets.make_thesis_svm_data(name, random_state=seed, **kw.pop("data_kw", {}))
    tr, te = d[d["split"] == "train"], d[d["split"] == "test"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return chapter8("y ~ x1 + x2", tr, te, cv=2, n_jobs=1, progress=False, **kw)


@pytest.fixture(scope="module")
def vignette_a2():
    # vignette 03's A2 (draw 9, 12 cost values, fold seed 1) at three alphas: the default
    # run; the slow test below runs all four designs at the nine alphas of the vignette
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vignette_chapter8(("A2",), alphas=(0.1, 0.5, 0.9))


def test_ch8_accuracy_tuning_is_useless_on_unbalanced_a2(vignette_a2):
    # Thesis §8.2/8.3: accuracy-tuned SVMs "return notoriously useless classifiers" on
    # unbalanced data.  Reproduced exactly: F = 0 on training and test at every alpha.
    acc = vignette_a2[vignette_a2["model"] == "wsvm, CV accuracy"]
    assert len(acc) == 6 and (acc["f"] == 0).all()


def test_ch8_fsvm_vs_wsvm_on_the_vignette_a2(vignette_a2):
    # Thesis: the F-SVM "is at least holding its own" against the F-tuned weighted SVM.
    # On this draw's 50-row balanced test set it is ahead at alpha 0.1/0.5/0.9 by
    # +0.037/+0.255/+0.001 and behind on the unbalanced training set by
    # -0.023/-0.146/-0.163.  Band +-0.005 per value: one test row moves F by ~0.02, so any
    # change of a prediction fails it; the fits themselves are deterministic.
    d = fsvm_minus_wsvm(vignette_a2)
    t = vignette_a2.pivot_table(index=["data", "alpha"], columns="model", values="f")
    diff = t["fsvm, CV F"] - t["wsvm, CV F"]
    np.testing.assert_allclose(diff["test"].to_numpy(), [0.037, 0.255, 0.001], atol=0.005)
    np.testing.assert_allclose(diff["train"].to_numpy(), [-0.023, -0.146, -0.163], atol=0.005)
    assert d.loc[("A2", "test"), "mean"] == pytest.approx(diff["test"].mean())


@pytest.mark.slow
def test_ch8_vignette_03_prose_numbers():
    # The numbers vignette 03 states about its draws (9 alphas, 4 designs), computed by the
    # same helper the vignette calls.  Band: +-0.01 on a mean over 9 alphas of 50-row test F.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = vignette_chapter8()
    d = fsvm_minus_wsvm(res)
    expect_test = {"A1": -0.060, "A2": 0.120, "B1": -0.019, "B2": 0.164}
    for name, v in expect_test.items():
        assert d.loc[(name, "test"), "mean"] == pytest.approx(v, abs=0.01), name
    assert d.loc[("A1", "test"), "min"] == pytest.approx(-0.206, abs=0.01)
    assert d.loc[("A2", "test"), "min"] > 0 and d.loc[("B2", "test"), "min"] > 0
    assert d.loc[("A2", "train"), "accuracy_svm_f_max"] == 0
    assert d.loc[("A2", "test"), "accuracy_svm_f_max"] == 0
    assert d.loc[("A2", "train"), "mean"] == pytest.approx(-0.106, abs=0.01)
    # B2 at alpha 0.1: accuracy-tuned 0.302 against the F-tuned weighted SVM's 0.824 (test)
    t = res[(res.dataset == "B2") & (res.data == "test") & (res.alpha == 0.1)].set_index("model")
    assert t.loc["wsvm, CV accuracy", "f"] == pytest.approx(0.302, abs=0.005)
    assert t.loc["wsvm, CV F", "f"] == pytest.approx(0.824, abs=0.005)


@pytest.mark.slow
@pytest.mark.parametrize("data_seed, mean_diff, worst, by_data", [
    # benchmarks/bench_fsvm_chapter8.py --data-seed S (README: three draws)
    (2026, 0.0724, -0.0883, (-0.026, 0.224, -0.000, 0.092)),
    (3030, 0.0324, -0.0838, (-0.032, 0.089, -0.006, 0.078)),
    (4040, 0.0326, -0.0730, (-0.019, 0.097, -0.005, 0.058)),
])
def test_ch8_fsvm_minus_wsvm_on_fresh_draws(data_seed, mean_diff, worst, by_data):
    # 4 designs x alpha 0.3/0.5/0.7 x fold seeds 1-3, 2000-row test sets, 210-point grid.
    # Tolerance: +-0.005 on the mean of 36 cases (one case moving by 0.18 shifts it 0.005),
    # +-0.01 per design (9 cases), +-0.005 on the worst case.
    rows = []
    for i, name in enumerate(("A1", "A2", "B1", "B2")):
        for seed in (1, 2, 3):
            t = _chapter8(name, data_seed + i, alphas=(0.3, 0.5, 0.7), n_values=20,
                          random_state=seed, data_kw={"n_test": (1000, 1000)})
            t = t[t["data"] == "test"].pivot_table(index="alpha", columns="model", values="f")
            for d in (t["fsvm, CV F"] - t["wsvm, CV F"]):
                rows.append((name, d))
    df = pd.DataFrame(rows, columns=["data", "diff"])
    assert df["diff"].mean() == pytest.approx(mean_diff, abs=0.005)
    assert df["diff"].min() == pytest.approx(worst, abs=0.005)
    np.testing.assert_allclose(df.groupby("data")["diff"].mean().to_numpy(), by_data, atol=0.01)
