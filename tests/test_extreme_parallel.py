"""Issue 44: the extreme multi-label pipeline on several threads gives the same numbers.

Every stage (label tree training, sparse estimates, the section-6 thresholds over c, top-k,
BCA, Frank--Wolfe and the measures at k) runs with ``n_jobs=1`` and ``n_jobs=2`` on a small
problem cut into many work units (tiny sibling groups, row blocks of a few dozen rows), and
everything must be identical.  Exact equality is legitimate here (tests/README.md): it is the
*same computation* on the same inputs in one run, serial against parallel workers running
identical code -- every node, row block and (method, c) row is computed by the same code on
its own inputs in a fixed order; only the thread differs, and results are put together in
task order.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fmstats.extreme._plt as plt_module
import fmstats.extreme._plugin as plugin_module
import fmstats.extreme._training as training
from fmstats.extreme import (PAPER_C, bca_macro_at_k, compare_thresholds, frank_wolfe_macro_at_k,
                             inverse_propensities, label_priors, make_extreme_problem,
                             measures_at_k, probabilistic_label_tree, spe_top_k,
                             threshold_bounds)


@pytest.fixture(scope="module")
def split():
    X, Y = make_extreme_problem(1500, 600, 90, nnz_per_row=40, signal=0.6, random_state=4)
    return X[:900], Y[:900], X[900:1200], Y[900:1200], X[1200:], Y[1200:]


@pytest.fixture(scope="module")
def small_units():
    """Many small units: sibling groups of at most 3 (of the pre-leaves' up to 8), every
    pair side by side, prediction and top-k blocks of a few dozen rows."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(training, "_SIBLING_BYTES", 17 * 900 * 3)
        mp.setattr(training, "_SIBLING_PAIR_NNZ", 0)
        mp.setattr(plt_module, "_PREDICT_ROWS", 37)
        mp.setattr(plugin_module, "_TOPK_ROWS", 23)
        yield


def _pipeline(split, n_jobs: int) -> dict:
    Xtr, Ytr, Xva, Yva, Xte, Yte = split
    model = probabilistic_label_tree(Xtr, Ytr, max_leaves=8, C=4.0, weight_threshold=0.01,
                                     random_state=0, n_jobs=n_jobs, progress=False)
    priors = label_priors(Ytr)
    lower = threshold_bounds(priors)[0]
    spe_va = model.predict_proba_sparse(Xva, lower, n_jobs=n_jobs)
    spe_te = model.predict_proba_sparse(Xte, lower, n_jobs=n_jobs)
    table = compare_thresholds(spe_va, Yva, spe_te, Yte, PAPER_C, priors=priors,
                               progress=False, n_jobs=n_jobs)
    top = model.predict_topk(Xte, 5, n_jobs=n_jobs)
    fw = frank_wolfe_macro_at_k(spe_va, Yva, 5, n_jobs=n_jobs)
    preds = {"top": top, "spe_top": spe_top_k(spe_te, 5, n_jobs=n_jobs),
             "bca": bca_macro_at_k(spe_te, 5, random_state=3, n_jobs=n_jobs),
             "fw": fw.predict(spe_te, random_state=1, n_jobs=n_jobs)}
    q = inverse_propensities(Ytr)
    return dict(model=model, spe=(spe_va.matrix, spe_te.matrix), table=table, fw=fw,
                preds=preds, measures={name: measures_at_k(Yte, p, (1, 3, 5),
                                                            inv_propensities=q)
                                       for name, p in preds.items()})


@pytest.fixture(scope="module")
def runs(split, small_units):
    return {j: _pipeline(split, j) for j in (1, 2)}


def _same_sparse(a, b) -> bool:
    # exact: the same computation (see the module docstring)
    return (np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


def test_the_problem_is_cut_into_many_units(split, small_units, runs):
    """The identity below is not trivial: the tree has pre-leaves whose siblings are trained
    in several groups, and every prediction call is cut into many row blocks."""
    model = runs[1]["model"]
    const, units = training._plan(*_plan_args(split, model))
    assert len(units) >= 25 and model.tree.n_children.max() >= 6
    n_groups = {}
    for u in units:
        n_groups[id(u[0])] = n_groups.get(id(u[0]), 0) + 1
    assert max(n_groups.values()) >= 2                     # a parent in several units
    assert split[2].shape[0] // plt_module._PREDICT_ROWS >= 8


def _plan_args(split, model):
    import scipy.sparse as sp

    Xtr, Ytr = split[0], split[1]
    X = plt_module._check_features(Xtr)
    T = model.tree
    Z = sp.csc_matrix(sp.csr_matrix(Ytr).astype(np.float64) @ T.path_matrix())
    Z.data[:] = 1.0
    return X, Z, T, 4.0, 0.1, 100, 0.01


def test_model_is_identical_for_any_n_jobs(runs):
    a, b = runs[1]["model"], runs[2]["model"]
    assert np.array_equal(a.tree.label, b.tree.label)
    assert _same_sparse(a.weights, b.weights)
    assert np.array_equal(a.intercepts, b.intercepts)
    assert np.array_equal(a.n_iter, b.n_iter) and np.array_equal(a.converged, b.converged)
    assert a.weights.nnz > 1000


def test_sparse_estimates_are_identical_for_any_n_jobs(runs):
    for x, y in zip(runs[1]["spe"], runs[2]["spe"]):
        assert _same_sparse(x, y) and x.nnz > 0


def test_threshold_table_is_identical_for_any_n_jobs(runs):
    a, b = runs[1]["table"], runs[2]["table"]
    assert len(a) == 3 * len(PAPER_C) + 1
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_predictions_and_frank_wolfe_rules_are_identical_for_any_n_jobs(runs):
    for name in ("top", "spe_top", "bca", "fw"):
        x, y = runs[1]["preds"][name], runs[2]["preds"][name]
        assert np.array_equal(x.labels, y.labels) and np.array_equal(x.scores, y.scores)
    f1, f2 = runs[1]["fw"], runs[2]["fw"]
    for attr in ("a", "b", "p", "utilities"):
        assert np.array_equal(getattr(f1, attr), getattr(f2, attr))


def test_measures_are_identical_for_any_n_jobs(runs):
    for name, table in runs[1]["measures"].items():
        pd.testing.assert_frame_equal(table, runs[2]["measures"][name], check_exact=True)


def test_node_training_order_does_not_matter(split, small_units, runs, monkeypatch):
    """Which thread trains a node, and when, cannot change it: the units in reverse order
    on two threads give the model of the scheduled order on one."""
    plan = training._plan

    def reversed_plan(*args):
        const, units = plan(*args)
        return const, units[::-1]

    monkeypatch.setattr(training, "_plan", reversed_plan)
    Xtr, Ytr = split[0], split[1]
    got = probabilistic_label_tree(Xtr, Ytr, max_leaves=8, C=4.0, weight_threshold=0.01,
                                   random_state=0, n_jobs=2, progress=False)
    ref = runs[1]["model"]
    assert _same_sparse(got.weights, ref.weights)
    assert np.array_equal(got.intercepts, ref.intercepts)
    assert np.array_equal(got.n_iter, ref.n_iter)
