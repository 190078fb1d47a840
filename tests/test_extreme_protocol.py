"""The seed-002 section 6 protocol (fmstats.extreme._protocol): STO, FTA, OFO against 1/c.

References are independent of fmstats' tuners: the exhaustive per-label threshold search and
the literal per-instance loop of Algorithm 2 from tests/test_extreme_thresholds.py, and
scikit-learn's macro F1 (zero_division=1, Lewis) on dense 0/1 predictions.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from fmstats.exceptions import DataError, DataWarning, InvalidArgumentError
from fmstats.extreme import (compare_thresholds, select_by_validation,
                                      spe_thresholds, tune_thresholds)
from fmstats.extreme import SPE
from fmstats.extreme import PAPER_C
from test_extreme_thresholds import brute_sto, loop_ofo, problem

skm = pytest.importorskip("sklearn.metrics")

GRID = (100, 10, 5, 3, 2)


def sk_macro(Y, pred):
    return skm.f1_score(Y, pred.astype(int), average="macro", zero_division=1.0)


@pytest.fixture(scope="module", params=[0, 1])
def split(request):
    """Dense validation and test estimates (zeros not stored), labels, and training priors."""
    seed = request.param
    P_val, Y_val = problem(10 * seed, n=60, m=12, grid=20)
    P_test, Y_test = problem(10 * seed + 1, n=50, m=12, grid=20)
    priors = problem(10 * seed + 2, n=40, m=12)[1].mean(axis=0)
    lower = priors / (priors + 1)
    table = compare_thresholds(sp.csr_array(P_val), Y_val, sp.csr_array(P_test), Y_test, GRID,
                               priors=priors)
    return P_val, Y_val, P_test, Y_test, lower, table


def rows(table, method):
    part = table[table.method == method]
    assert list(part.c) == list(GRID)
    return part


def test_sto_rows_equal_exhaustive_search_and_sklearn(split):
    P_val, Y_val, P_test, Y_test, lower, table = split
    for c, (_, row) in zip(GRID, rows(table, "sto").iterrows()):
        tau = np.maximum(1.0 / c, lower)
        theta, _ = brute_sto(np.where(P_val > tau, P_val, 0.0), Y_val, tau)
        assert row.valid_macro_f == pytest.approx(sk_macro(Y_val, P_val > theta), abs=1e-12)
        assert row.test_macro_f == pytest.approx(sk_macro(Y_test, P_test > theta), abs=1e-12)
        assert row.mean_threshold == pytest.approx(theta.mean(), abs=1e-12)
        assert row.spe_per_instance == pytest.approx((P_val > tau).sum() / P_val.shape[0])
        assert row.test_predicted_per_instance == pytest.approx(
            (P_test > theta).sum() / P_test.shape[0])


def test_fta_rows_use_the_fixed_thresholds_max_inv_c_lower(split):
    P_val, Y_val, P_test, Y_test, lower, table = split
    for c, (_, row) in zip(GRID, rows(table, "fta").iterrows()):
        theta = np.maximum(1.0 / c, lower)
        assert row.inv_c == 1.0 / c
        assert row.valid_macro_f == pytest.approx(sk_macro(Y_val, P_val > theta), abs=1e-12)
        assert row.test_macro_f == pytest.approx(sk_macro(Y_test, P_test > theta), abs=1e-12)
        assert np.isnan(row.valid_online_f)


def test_ofo_rows_equal_algorithm_2_by_hand(split):
    P_val, Y_val, P_test, Y_test, lower, table = split
    for c, (_, row) in zip(GRID, rows(table, "ofo").iterrows()):
        theta, preds = loop_ofo(P_val, Y_val, 1.0, c, lower=lower)
        assert row.valid_macro_f == pytest.approx(sk_macro(Y_val, P_val > theta), abs=1e-12)
        assert row.test_macro_f == pytest.approx(sk_macro(Y_test, P_test > theta), abs=1e-12)
        assert row.valid_online_f == pytest.approx(sk_macro(Y_val, preds), abs=1e-12)
        assert row.spe_per_instance == pytest.approx((P_val > lower).sum() / P_val.shape[0])


def test_fixed_baseline_row(split):
    P_val, Y_val, P_test, Y_test, lower, table = split
    row = table[table.method == "fixed"].iloc[0]
    assert np.isnan(row.c)
    assert row.valid_macro_f == pytest.approx(sk_macro(Y_val, P_val > 0.5), abs=1e-12)
    assert row.test_macro_f == pytest.approx(sk_macro(Y_test, P_test > 0.5), abs=1e-12)
    assert len(table) == 3 * len(GRID) + 1


def test_default_priors_are_the_validation_priors_and_options():
    P_val, Y_val = problem(5, n=50, m=10, grid=10)
    P_test, Y_test = problem(6, n=50, m=10, grid=10)
    table = compare_thresholds(sp.csr_array(P_val), Y_val, sp.csr_array(P_test), Y_test,
                               (20, 4), methods="fta", fixed=None)
    assert list(table.method) == ["fta", "fta"]
    pi = Y_val.mean(axis=0)
    theta = np.maximum(1 / 4, pi / (pi + 1))
    assert table.test_macro_f.iloc[1] == pytest.approx(sk_macro(Y_test, P_test > theta),
                                                       abs=1e-12)


def test_other_beta_changes_the_lower_bounds():
    P_val, Y_val = problem(7, n=50, m=10, grid=10)
    P_test, Y_test = problem(8, n=50, m=10, grid=10)
    table = compare_thresholds(sp.csr_array(P_val), Y_val, sp.csr_array(P_test), Y_test, (50,),
                               methods=("fta",), beta=2.0, fixed=None)
    pi, alpha = Y_val.mean(axis=0), 1 / 5
    theta = np.maximum(1 / 50, alpha * pi / (alpha + (1 - alpha) * pi))
    want = skm.fbeta_score(Y_test, (P_test > theta).astype(int), beta=2.0, average="macro",
                           zero_division=1.0)
    assert table.test_macro_f.iloc[0] == pytest.approx(want, abs=1e-12)


def test_tune_thresholds_single_methods():
    P, Y = problem(3, n=40, m=8, grid=10)
    lower = np.full(8, 0.05)
    fit = tune_thresholds("fta", sp.csr_array(P), Y, 4, lower_bounds=lower)
    np.testing.assert_array_equal(fit.thresholds, np.full(8, 0.25))
    theta, _ = loop_ofo(P, Y, 2.0, 10, lower=lower)
    np.testing.assert_allclose(
        tune_thresholds("ofo", P, Y, 10, lower_bounds=lower, a=2.0).thresholds, theta)
    np.testing.assert_array_equal(spe_thresholds(10, [0.05, 0.3]), [0.1, 0.3])


def test_select_by_validation_takes_the_best_and_breaks_ties_to_larger_inv_c():
    table = pd.DataFrame({
        "method": ["sto", "sto", "sto", "ofo", "ofo", "fixed"],
        "c": [100, 10, 2, 100, 10, np.nan],
        "inv_c": [0.01, 0.1, 0.5, 0.01, 0.1, np.nan],
        "valid_macro_f": [0.4, 0.4, 0.3, 0.2, 0.25, 0.1],
        "test_macro_f": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    best = select_by_validation(table)
    assert list(best.method) == ["sto", "ofo", "fixed"]
    assert list(best.c[:2]) == [10, 10]
    assert list(best.test_macro_f) == [0.2, 0.5, 0.6]


def test_spe_above_the_lower_bounds_warns():
    P, Y = problem(4, n=40, m=8, grid=10)
    spe = SPE(P, 0.2)
    with pytest.warns(DataWarning) as record:   # the tuners add their own DataWarnings
        compare_thresholds(spe, Y, P, Y, (10,), priors=np.full(8, 0.1), methods="fta")
    assert any("`spe_val` has thresholds above the lower bounds (5) for 8 label(s)"
               in str(w.message) for w in record)


def test_paper_grid_is_the_default():
    P, Y = problem(9, n=30, m=6, grid=10)
    table = compare_thresholds(P, Y, P, Y, methods="fta", fixed=None)
    assert tuple(table.c) == tuple(float(c) for c in PAPER_C)


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(c_grid=()), InvalidArgumentError, "at least one"),
    (dict(c_grid=(10, 0.5)), InvalidArgumentError, ">= 1"),
    (dict(c_grid="abc"), InvalidArgumentError, "c_grid"),
    (dict(methods=("sto", "xyz")), InvalidArgumentError, "methods"),
    (dict(methods=()), InvalidArgumentError, "at least one"),
    (dict(fixed=1.5), InvalidArgumentError, "fixed"),
    (dict(priors=np.full(3, 0.1)), DataError, "one value per label"),
    (dict(priors=np.full(6, 1.5)), Exception, "priors"),
])
def test_bad_arguments(kwargs, err, match):
    P, Y = problem(2, n=20, m=6)
    args = dict(c_grid=(10,))
    args.update(kwargs)
    with pytest.raises(err, match=match):
        compare_thresholds(P, Y, P, Y, **args)


def test_bad_data():
    P, Y = problem(2, n=20, m=6)
    with pytest.raises(DataError, match="shape"):
        compare_thresholds(P, Y[:10], P, Y, (10,))
    with pytest.raises(DataError, match="same labels"):
        compare_thresholds(P, Y, P[:, :5], Y[:, :5], (10,))
    with pytest.raises(InvalidArgumentError, match="method"):
        tune_thresholds("sorting", P, Y, 10, lower_bounds=0.0)
    with pytest.raises(InvalidArgumentError, match="`c`"):
        tune_thresholds("sto", P, Y, 0.5, lower_bounds=0.0)
    with pytest.raises(InvalidArgumentError, match="lower_bounds"):
        tune_thresholds("sto", P, Y, 10, lower_bounds=np.full(6, 2.0))
    with pytest.raises(InvalidArgumentError, match="compare_thresholds"):
        select_by_validation(pd.DataFrame({"x": [1]}))
