"""Reproduction of seed 002 (Jasinska et al., ICML 2016): STO, FTA and OFO under the §6 protocol.

The paper's data sets (RCV1, AmazonCat, Wiki10, Delicious-200K, WikiLSHTC, Amazon) cannot be
had here, so its Table 2 values are not comparable.  What is asserted is the paper's
*pattern* on the two problems of vignette 07 — STO's validation macro-F far above its test
macro-F (Figure 1), a tuned method far above threshold ½, OFO best after selection by
validation — with the measured values of vignette 07, computed by the helpers the vignette
calls (``fmstats.extreme.experiments``), so its prose cannot drift.

Tolerances: the protocol is deterministic for a fixed seed (no fitting on the synthetic
problem), so values are asserted to +-0.0005 (the precision the vignette prints, 3
decimals, with half a unit to spare); seed spreads are measured over 5 draws (random_state
1-5) and given where a band uses them.  Measured with ``tests/reference/reproduce_002_measured.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from fmstats.extreme import label_priors, precision_at_k, sto
from fmstats.datasets import load_debtags
from fmstats.extreme.experiments import (absent_label_breakdown, best_label_threshold,
                                         debtags_split, run_protocol, selected_thresholds,
                                         shared_threshold_scan, split_rows, synthetic_split)

pytestmark = pytest.mark.reference

PREC = 5e-4


@pytest.fixture(scope="module")
def synthetic():
    split = synthetic_split(1)
    table, best = run_protocol(split)
    return split, table, best.set_index("method")


def test_synthetic_selected_rows(synthetic):
    # vignette 07: STO c = 1000 (validation 0.94, test 0.64), FTA c = 2 (0.804 / 0.773),
    # OFO c = 2 (0.856 / 0.780), threshold ½ (0.804 / 0.773)
    split, _, best = synthetic
    # "only about 28,000 of the 100,000 labels occur among the 20,000 test instances"
    assert split.Y_test.shape == (20_000, 100_000)
    assert int((label_priors(split.Y_test) > 0).sum()) == 27_852
    expect = {"sto": (1000, 0.9425, 0.6436), "fta": (2, 0.8038, 0.7728),
              "ofo": (2, 0.8558, 0.7802), "fixed": (np.nan, 0.8038, 0.7728)}
    for m, (c, v, t) in expect.items():
        if not np.isnan(c):
            assert best.loc[m, "c"] == c, m
        assert best.loc[m, "valid_macro_f"] == pytest.approx(v, abs=PREC), m
        assert best.loc[m, "test_macro_f"] == pytest.approx(t, abs=PREC), m


def test_synthetic_ordering_and_sto_overfit(synthetic):
    # the paper's pattern: OFO > FTA > STO on test after selection by validation, and STO's
    # validation - test gap far larger (0.30) than FTA's and OFO's (0.03-0.08)
    _, _, best = synthetic
    f = best["test_macro_f"]
    assert f["ofo"] > f["fta"] > f["sto"]
    gap = best["valid_macro_f"] - best["test_macro_f"]
    assert gap["sto"] == pytest.approx(0.299, abs=0.002)
    assert 0.02 <= gap["fta"] <= 0.04 and 0.07 <= gap["ofo"] <= 0.08


def test_synthetic_absent_label_breakdown(synthetic):
    # vignette 07: absent labels never predicted: STO 0.67, FTA 0.96, OFO 0.95; mean F on
    # the labels that occur in test: STO 0.57, FTA 0.28, OFO 0.35
    split, _, best = synthetic
    b = absent_label_breakdown(split, best.reset_index()).set_index("method")
    np.testing.assert_allclose(b.loc[["sto", "fta", "ofo"], "share_absent_labels_never_predicted"],
                               [0.6701, 0.9643, 0.9466], atol=PREC)
    np.testing.assert_allclose(b.loc[["sto", "fta", "ofo"], "mean_f_labels_in_test"],
                               [0.57, 0.28, 0.35], atol=0.005)
    np.testing.assert_allclose(b["test_macro_f"], best["test_macro_f"], atol=1e-12)


def test_fta_grid_is_too_coarse_not_half_best(synthetic):
    # FTA's candidates are 1/c for the paper's grid: ..., 1/4, 1/3, 1/2.  Threshold ½ wins
    # on that grid by 0.0007 of validation macro-F over 1/3; on a grid of step 0.01 the best
    # shared threshold is 0.43 (0.40-0.43 over 5 draws) with validation 0.8083 (+0.0045)
    # and test 0.7790 (+0.0062) — level with OFO's 0.7802.
    split, _, best = synthetic
    grid = np.round(np.arange(0.30, 0.601, 0.01), 2)
    scan = shared_threshold_scan(split, np.r_[1 / 3, grid]).set_index("threshold")
    top = scan["valid_macro_f"].idxmax()
    assert 0.38 <= top <= 0.45
    half = scan.loc[0.5]
    assert half["valid_macro_f"] == pytest.approx(best.loc["fta", "valid_macro_f"], abs=1e-12)
    assert half["valid_macro_f"] - scan.loc[1 / 3, "valid_macro_f"] == pytest.approx(0.0007,
                                                                                   abs=3e-4)
    assert scan.loc[top, "valid_macro_f"] - half["valid_macro_f"] == pytest.approx(0.0045,
                                                                                 abs=0.001)
    assert scan.loc[top, "test_macro_f"] - half["test_macro_f"] == pytest.approx(0.0062,
                                                                               abs=0.001)
    assert abs(scan.loc[top, "test_macro_f"] - best.loc["ofo", "test_macro_f"]) <= 0.002


def test_per_label_best_thresholds_by_brute_force(synthetic):
    # For labels that occur, the exact best threshold is far below ½ (about F*/2, F* ~ 0.53):
    # brute force over every estimate agrees with STO's sort-based search, and on test the
    # validation-tuned threshold beats ½ by 0.12-0.15 of F for the frequent labels.
    split, _, _ = synthetic
    fit = sto(split.spe_val, split.Y_val)
    pv, yv = split.spe_val.matrix.tocsc(), split.Y_val.tocsc()
    pt, yt = split.spe_test.matrix.tocsc(), split.Y_test.tocsc()

    def col(m, j):
        return m[:, [j]].toarray().ravel()

    def f1(p, y, t):
        tp, den = np.sum((p > t) & (y > 0)), np.sum(p > t) + y.sum()
        return 1.0 if den == 0 else 2 * tp / den

    for j in (0, 1, 10, 100):
        t_val, f_val = best_label_threshold(col(pv, j), col(yv, j))
        assert t_val == pytest.approx(fit.thresholds[j], abs=1e-12)
        assert f_val == pytest.approx(fit.label_f[j], abs=1e-12)
        assert 0.25 <= t_val <= 0.30
        p, y = col(pt, j), col(yt, j)
        assert 0.09 <= f1(p, y, t_val) - f1(p, y, 0.5) <= 0.17


@pytest.mark.slow
def test_synthetic_ordering_over_five_draws():
    # random_state 1-5: OFO > FTA > STO on test every time; OFO - FTA 0.0051-0.0074
    # (mean 0.0061); the fine-grid shared threshold (0.40-0.43) closes the gap to -0.002..+0.002
    for rs in range(1, 6):
        split = synthetic_split(rs)
        _, best = run_protocol(split)
        f = best.set_index("method")["test_macro_f"]
        assert f["ofo"] > f["fta"] > f["sto"], rs
        assert 0.004 <= f["ofo"] - f["fta"] <= 0.009, rs
        scan = shared_threshold_scan(split, np.round(np.arange(0.30, 0.601, 0.01), 2))
        top = scan.loc[scan["valid_macro_f"].idxmax()]
        assert 0.38 <= top["threshold"] <= 0.45, rs
        assert -0.003 <= top["test_macro_f"] - f["ofo"] <= 0.003, rs


@pytest.mark.slow
def test_debtags_protocol_reproduces_vignette_07():
    # vignette 07 on debtags (PLT, random binary tree, C = 1, seed 0): STO c = 10,000
    # (validation 0.429, test 0.254), FTA c = 20 (0.240), OFO c = 100 (0.272), ½: 0.105.
    # The PLT fit is deterministic for a seed, but liblinear-style solvers may differ in
    # the last digits across platforms: band +-0.003.
    split = debtags_split(0)
    table, best = run_protocol(split)
    best = best.set_index("method")
    # the split: 4,848 validation packages, half of the tags (49.6 %) with at most five
    # positives there, median 6
    pos = np.asarray(split.Y_val.sum(axis=0)).ravel()
    assert split.Y_val.shape[0] == 4848 and np.median(pos) == 6
    assert (pos <= 5).mean() == pytest.approx(0.496, abs=0.001)
    # the PLT's P@1/3/5 on the test packages: 88.32 / 60.35 / 44.41 %
    X, Y, _, _ = load_debtags()
    test_rows = split_rows(X.shape[0], 0)[2]
    pk = precision_at_k(Y[test_rows], split.model.predict_topk(X[test_rows], k=5), k=(1, 3, 5))
    np.testing.assert_allclose([pk[1], pk[3], pk[5]], [0.8832, 0.6035, 0.4441], atol=0.003)
    # OFO's selected thresholds: 10/50/90 % quantiles 0.010 / 0.019 / 0.102
    theta = selected_thresholds(split, "ofo", best.loc["ofo", "c"])
    np.testing.assert_allclose(np.quantile(theta, [0.1, 0.5, 0.9]), [0.010, 0.019, 0.102],
                               atol=0.002)
    # theta = 1e-4 (FTA, c = 10,000) predicts 178 tags per package
    fta_rows = table[table.method == "fta"].set_index("c")
    assert fta_rows.loc[10000, "test_predicted_per_instance"] == pytest.approx(177.8, abs=0.5)
    # FTA and OFO: validation - test 0.03-0.05 (measured 0.053 and 0.031)
    gap = best["valid_macro_f"] - best["test_macro_f"]
    assert gap["fta"] == pytest.approx(0.053, abs=0.003)
    assert gap["ofo"] == pytest.approx(0.031, abs=0.003)
    expect = {"sto": (10000, 0.2536), "fta": (20, 0.2396), "ofo": (100, 0.2724),
              "fixed": (None, 0.1051)}
    for m, (c, t) in expect.items():
        if c is not None:
            assert best.loc[m, "c"] == c, m
        assert best.loc[m, "test_macro_f"] == pytest.approx(t, abs=0.003), m
    assert best.loc["sto", "valid_macro_f"] == pytest.approx(0.4287, abs=0.003)
    sto_rows = table[table.method == "sto"].set_index("c")
    assert sto_rows.loc[100, "test_macro_f"] == pytest.approx(0.3016, abs=0.003)
    # here FTA's grid is fine enough: the best shared threshold of step 0.01 (0.04) gains
    # 0.002 on validation over the grid's 0.05 and nothing on test (0.2419 vs 0.2396)
    scan = shared_threshold_scan(split, np.round(np.arange(0.01, 0.2, 0.01), 2))
    top = scan.loc[scan["valid_macro_f"].idxmax()]
    assert top["threshold"] == pytest.approx(0.04)
    assert top["test_macro_f"] == pytest.approx(0.2419, abs=0.003)
