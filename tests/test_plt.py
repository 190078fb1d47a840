"""Probabilistic label trees (fmstats.extreme._plt): eq. (9), Algorithms 3 and 4, top-k, P@k."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from fmstats.exceptions import ConvergenceWarning, DataError, FmstatsError, InvalidArgumentError
from fmstats.extreme import (LabelTree, TopK, label_tree, logistic_l2, probabilistic_label_tree,
                                 precision_at_k)
from fmstats.extreme import SPE

TOL = 1e-8  # tight Newton tolerance where the tests compare with other solvers


def _problem(n=300, d=40, m=11, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.25, random_state=seed, format="csr")
    B = rng.normal(scale=2.0, size=(d, m))
    P = expit(X @ B - 1.0)
    Y = (rng.random((n, m)) < P).astype(np.int64)
    Y[Y.sum(axis=1) == 0, rng.integers(0, m)] = 1
    return X, Y


@pytest.fixture(scope="module")
def data():
    return _problem()


@pytest.fixture(scope="module", params=[("random", 2), ("random", 3), ("balanced-kmeans", 2),
                                        ("balanced-kmeans", 4)])
def model(request, data):
    X, Y = data
    tree, arity = request.param
    return probabilistic_label_tree(X, Y, arity=arity, tree=tree, max_leaves=1, C=2.0, tol=TOL, random_state=3,
               progress=False)


# ---------------------------------------------------------------------------
# eq. (9) and the node classifiers
# ---------------------------------------------------------------------------
def test_node_probabilities_are_logistic_of_the_stored_weights(model, data):
    X, _ = data
    W = model.weights.toarray()
    expected = expit(X.toarray() @ W.T + model.intercepts)
    np.testing.assert_allclose(model.predict_node_proba(X), expected, rtol=1e-12, atol=1e-15)


def test_marginals_are_products_along_the_path(model, data):
    X, _ = data
    P = model.predict_node_proba(X)
    M = model.predict_marginals(X)
    for j in range(model.n_labels):
        path = model.tree.path(j)
        assert path[0] == 0 and model.tree.label[path[-1]] == j
        np.testing.assert_allclose(M[:, j], np.prod(P[:, path], axis=1), rtol=1e-12)


def _algorithm3_training_set(tree: LabelTree, Y: np.ndarray, node: int):
    """Rows and targets of a node, written from the definition (loops over labels)."""
    def z(t):
        below = [j for j in range(tree.n_labels) if t in tree.path(j)]
        return Y[:, below].max(axis=1)

    rows = np.arange(Y.shape[0]) if node == 0 else np.flatnonzero(z(tree.parent[node]) == 1)
    return rows, z(node)[rows]


@pytest.mark.reference
@pytest.mark.parametrize("max_leaves,sibling_bytes", [(1, 1 << 28), (6, 1 << 28), (6, 17 * 300)])
def test_node_classifiers_equal_sklearn_on_the_filtered_examples(data, monkeypatch, max_leaves,
                                                                 sibling_bytes):
    """Algorithm 3 + the L2 logistic learner against scikit-learn's LogisticRegression; with
    pre-leaves of up to 6 labels, their leaves are trained side by side (all together, or
    in groups of one or two siblings when their per-row state is capped)."""
    from sklearn.linear_model import LogisticRegression

    import fmstats.extreme._training as training

    monkeypatch.setattr(training, "_SIBLING_BYTES", sibling_bytes)
    X, Y = data
    res = probabilistic_label_tree(X, Y, arity=2, tree="random", C=2.0, tol=TOL, random_state=5,
                                   max_leaves=max_leaves, progress=False)
    assert (res.tree.n_children >= 5).any() == (max_leaves > 1)
    W = res.weights.toarray()
    Xd = X.toarray()
    checked = 0
    for node in range(1, res.tree.n_nodes):
        rows, target = _algorithm3_training_set(res.tree, Y, node)
        if target.min() == target.max():
            assert np.isinf(res.intercepts[node])
            assert (res.intercepts[node] > 0) == (target[0] == 1)
            continue
        ref = LogisticRegression(C=2.0, solver="liblinear", intercept_scaling=1.0, tol=1e-12,
                                 max_iter=10000).fit(Xd[rows], target)
        np.testing.assert_allclose(W[node], ref.coef_[0], atol=2e-6)
        np.testing.assert_allclose(res.intercepts[node], ref.intercept_[0], atol=2e-6)
        seen = np.unique(X[rows].indices)
        assert np.all(W[node, np.setdiff1d(np.arange(X.shape[1]), seen)] == 0)
        checked += 1
    assert checked >= (15 if max_leaves == 1 else 11)


@pytest.mark.parametrize("tree,max_leaves", [("random", 1), ("balanced-kmeans", 6)])
def test_siblings_side_by_side_or_one_by_one_give_the_same_model(data, monkeypatch, tree,
                                                                 max_leaves):
    """The children of a parent share one row order, so training them side by side (every
    pair too, or in groups of one or two rows' worth of state) or one by one gives the same
    model to the last bit."""
    import fmstats.extreme._training as training

    X, Y = data
    kw = dict(tree=tree, max_leaves=max_leaves, C=2.0, tol=1e-3, random_state=2,
              progress=False)
    ref = probabilistic_label_tree(X, Y, **kw)
    for pair_nnz, sibling_bytes in ((0, 1 << 28), (0, 17 * 300), (1 << 40, 1 << 28)):
        monkeypatch.setattr(training, "_SIBLING_PAIR_NNZ", pair_nnz)
        monkeypatch.setattr(training, "_SIBLING_BYTES", sibling_bytes)
        got = probabilistic_label_tree(X, Y, **kw)
        assert (got.weights != ref.weights).nnz == 0
        assert np.array_equal(got.intercepts, ref.intercepts)
        assert np.array_equal(got.n_iter, ref.n_iter)


def test_logistic_l2_equals_liblinear_with_penalised_bias():
    """The node objective is liblinear's (the bias a feature of value 1, penalised like the
    weights): scikit-learn's liblinear solver (primal trust-region Newton) is the reference.
    An unpenalised intercept (the former objective) would differ by ~1e-2 here."""
    from sklearn.linear_model import LogisticRegression

    X, Y = _problem(n=200, d=15, m=3, seed=4)
    z = Y[:, 1].astype(float)
    assert 0 < z.mean() < 1
    w, b, n_iter, ok = logistic_l2(sp.csr_matrix(X), z, C=0.7, tol=1e-9, max_iter=10000)
    ref = LogisticRegression(C=0.7, solver="liblinear", intercept_scaling=1.0, tol=1e-12,
                             max_iter=10000).fit(X.toarray(), z)
    assert ok and n_iter > 0
    np.testing.assert_allclose(w, ref.coef_[0], atol=1e-7)
    assert b == pytest.approx(ref.intercept_[0], abs=1e-7)



# ---------------------------------------------------------------------------
# prediction: threshold pruning (Algorithm 4) and top-k
# ---------------------------------------------------------------------------
def test_threshold_zero_pruned_prediction_equals_exhaustive(model, data):
    X, _ = data
    spe = model.predict_proba_sparse(X, 0.0)
    assert isinstance(spe, SPE)
    np.testing.assert_allclose(spe.toarray(), model.predict_marginals(X), rtol=1e-12, atol=0)


@pytest.mark.parametrize("threshold", [0.05, 0.3, 0.7])
def test_pruned_prediction_keeps_exactly_the_marginals_above_threshold(model, data, threshold):
    X, _ = data
    M = model.predict_marginals(X)
    spe = model.predict_proba_sparse(X, threshold)
    got = spe.matrix
    rows, cols = got.nonzero()
    # the pruned path products and the exhaustive marginals are two computations of M, equal
    # to rounding (below); no marginal lies within rounding of the threshold, so both pick
    # the same entries (and a pruned node's product, >= its leaves', cannot hide one above it)
    assert np.abs(M - threshold).min() > 1e-9
    assert set(zip(rows.tolist(), cols.tolist())) == set(zip(*np.nonzero(M > threshold)))
    np.testing.assert_allclose(got.toarray()[M > threshold], M[M > threshold], rtol=1e-12)
    assert np.all(spe.thresholds == threshold)           # copied


def test_per_label_thresholds(model, data):
    X, _ = data
    tau = np.linspace(0.05, 0.6, model.n_labels)
    M = model.predict_marginals(X)
    got = model.predict_proba_sparse(X, tau).toarray()
    np.testing.assert_allclose(got, np.where(M > tau, M, 0.0), rtol=1e-12)


def test_pruned_prediction_in_row_blocks_with_pre_leaves(data, monkeypatch):
    """Rows predicted in blocks (of 7 here) and nodes with many children (pre-leaves of up
    to 5 labels, scored together by the compiled kernel) give exactly the marginals above
    the thresholds, in sorted CSR."""
    import fmstats.extreme._plt as plt_module

    X, Y = data
    model = probabilistic_label_tree(X, Y, max_leaves=5, C=2.0, tol=TOL, random_state=1,
                                     progress=False)
    assert model.tree.n_children.max() >= 3
    monkeypatch.setattr(plt_module, "_PREDICT_ROWS", 7)
    tau = np.linspace(0.02, 0.4, model.n_labels)
    M = model.predict_marginals(X)
    assert np.abs(M - tau).min() > 1e-9
    got = model.predict_proba_sparse(X, tau).matrix
    assert got.has_sorted_indices and got.nnz == int((M > tau).sum())
    np.testing.assert_allclose(got.toarray(), np.where(M > tau, M, 0.0), rtol=1e-12)


def test_node_thresholds_are_minima_over_children(model):
    tree = model.tree
    tau = np.random.default_rng(1).random(model.n_labels)
    node_tau = tree.node_thresholds(tau)
    for t in range(tree.n_nodes):
        below = [j for j in range(tree.n_labels) if t in tree.path(j)]
        assert node_tau[t] == tau[below].min()            # the minimum of copies: exact


@pytest.mark.parametrize("method", ["threshold", "heap"])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_topk_equals_largest_exhaustive_marginals(model, data, method, k):
    X, _ = data
    M = model.predict_marginals(X)
    top = model.predict_topk(X, k, method=method)
    assert isinstance(top, TopK) and top.labels.shape == (X.shape[0], k)
    expected = -np.sort(-M, axis=1)[:, :k]
    np.testing.assert_allclose(top.scores, expected, rtol=1e-12)
    np.testing.assert_allclose(np.take_along_axis(M, top.labels, axis=1), top.scores, rtol=1e-12)
    assert all(len(set(row)) == k for row in top.labels.tolist())


def test_precision_at_k_by_brute_force():
    rng = np.random.default_rng(7)
    Y = (rng.random((50, 12)) < 0.3).astype(int)
    pred = np.array([rng.permutation(12)[:5] for _ in range(50)])
    pred[3, 4] = -1
    expected = {k: np.mean([sum(Y[i, j] for j in pred[i, :k] if j >= 0) / k
                            for i in range(50)]) for k in (1, 3, 5)}
    got = precision_at_k(sp.csr_matrix(Y), pred)
    assert got == pytest.approx(expected, abs=1e-15)
    assert precision_at_k(Y, pred, k=3) == pytest.approx(expected[3], abs=1e-15)


# ---------------------------------------------------------------------------
# trees
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("m,arity", [(1, 2), (2, 2), (7, 2), (16, 2), (17, 3), (40, 5)])
def test_random_tree_structure(m, arity):
    tree = label_tree(m, arity, random_state=0)
    inner = tree.n_children > 0
    assert np.all(tree.n_children[inner] >= 2) and np.all(tree.n_children <= arity)
    assert sorted(tree.label[tree.label >= 0].tolist()) == list(range(m))
    assert np.all(tree.label[tree.leaf] == np.arange(m))
    assert np.all(tree.parent[1:] < np.arange(1, tree.n_nodes)) and tree.parent[0] == -1
    for t in np.flatnonzero(inner):
        kids = np.arange(tree.child_start[t], tree.child_start[t] + tree.n_children[t])
        assert np.all(tree.parent[kids] == t)
    assert tree.height == (0 if m == 1 else int(np.ceil(np.log(m) / np.log(arity) - 1e-12)))


def test_balanced_kmeans_tree_separates_label_groups():
    rng = np.random.default_rng(2)
    n, m = 400, 8
    group = np.arange(m) % 2  # labels 0,2,4,6 use features 0-9; labels 1,3,5,7 features 10-19
    X = np.zeros((n, 20))
    Y = np.zeros((n, m), dtype=int)
    for i in range(n):
        j = rng.integers(m)
        Y[i, j] = 1
        X[i, 10 * group[j] + rng.choice(10, 3, replace=False)] = 1.0
    tree = label_tree(m, 2, "balanced-kmeans", X=sp.csr_matrix(X), Y=Y, random_state=0,
                      max_leaves=1)
    first = {c: [j for j in range(m) if tree.path(j)[1] == c] for c in (1, 2)}
    assert {tuple(sorted(group[v])) for v in first.values()} == {(0, 0, 0, 0), (1, 1, 1, 1)}



@pytest.mark.parametrize("tree,max_leaves", [("random", 5), ("balanced-kmeans", 4),
                                             ("balanced-kmeans", 100)])
def test_max_leaves_makes_pre_leaves(data, tree, max_leaves):
    """Sets of at most max_leaves labels become one node with a leaf per label; above
    that, nodes split into `arity` parts."""
    X, Y = data
    m = Y.shape[1]
    T = label_tree(m, 2, tree, X=X, Y=Y, random_state=1, max_leaves=max_leaves)
    assert sorted(T.label[T.label >= 0].tolist()) == list(range(m))
    for t in np.flatnonzero(T.n_children > 0):
        kids = np.arange(T.child_start[t], T.child_start[t] + T.n_children[t])
        below = sum(1 for j in range(m) if t in T.path(j))
        if below <= max_leaves:
            assert np.all(T.label[kids] >= 0) and kids.size == below
        else:
            assert kids.size == 2 and np.all(T.label[kids] < 0)
    def height(size):  # parts of equal size within one
        return 1 if size <= max(2, max_leaves) else 1 + height(-(-size // 2))

    assert T.height == height(m)
    res = probabilistic_label_tree(X, Y, tree=tree, max_leaves=max_leaves, C=2.0, tol=TOL, random_state=1,
              progress=False)
    assert res.tree.n_nodes == T.n_nodes and res.converged.all()

# ---------------------------------------------------------------------------
# special nodes, learners, warnings
# ---------------------------------------------------------------------------
def test_label_without_positives_has_probability_zero(data):
    X, Y = data
    Y = Y.copy()
    Y[:, 4] = 0
    Y[Y.sum(axis=1) == 0, 0] = 1
    res = probabilistic_label_tree(X, Y, random_state=0, progress=False)
    assert res.intercepts[res.tree.leaf[4]] == -np.inf
    assert np.all(res.predict_marginals(X)[:, 4] == 0)   # exact: expit(-inf) = 0 in the product
    assert 4 not in res.predict_proba_sparse(X, 0.0).matrix.indices


def test_custom_node_learner_is_used(data):
    X, Y = data

    def half(Xn, z):
        return np.zeros(Xn.shape[1]), 0.0

    res = probabilistic_label_tree(X, Y, node_learner=half, random_state=1, progress=False)
    P = res.predict_node_proba(X)
    learned = np.isfinite(res.intercepts)
    assert learned.sum() > 5 and np.all(P[:, learned] == 0.5)   # exact: expit(0)


def test_convergence_warning_when_max_iter_is_too_small(data):
    X, Y = data
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        res = probabilistic_label_tree(X, Y, max_iter=1, tol=1e-14, random_state=0, progress=False)
    assert not res.converged.all()


# ---------------------------------------------------------------------------
# reproducibility and pickling
# ---------------------------------------------------------------------------
def test_same_random_state_same_model_and_n_jobs_do_not_matter(data):
    from joblib import parallel_config

    X, Y = data
    a = probabilistic_label_tree(X, Y, arity=3, tree="random", random_state=11, n_jobs=1, progress=False)
    with parallel_config(backend="threading"):
        b = probabilistic_label_tree(X, Y, arity=3, tree="random", random_state=11, n_jobs=2, progress=False)
    c = probabilistic_label_tree(X, Y, arity=3, tree="random", random_state=12, progress=False)
    assert np.array_equal(a.tree.label, b.tree.label)
    assert (a.weights != b.weights).nnz == 0 and np.array_equal(a.intercepts, b.intercepts)
    assert not np.array_equal(a.tree.label, c.tree.label)
    k1 = probabilistic_label_tree(X, Y, tree="balanced-kmeans", max_leaves=1, random_state=4, progress=False)
    k2 = probabilistic_label_tree(X, Y, tree="balanced-kmeans", max_leaves=1, random_state=4, progress=False)
    assert np.array_equal(k1.tree.label, k2.tree.label)


@pytest.mark.slow
def test_process_workers_give_the_same_model(data):
    X, Y = data
    a = probabilistic_label_tree(X, Y, arity=2, random_state=8, n_jobs=1, progress=False)
    b = probabilistic_label_tree(X, Y, arity=2, random_state=8, n_jobs=2, progress=False)  # loky processes
    assert (a.weights != b.weights).nnz == 0 and np.array_equal(a.intercepts, b.intercepts)


def test_pickle_round_trip_and_refit(model, data):
    X, Y = data
    back = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(back.predict_marginals(X), model.predict_marginals(X))
    again = model.refit(X, Y)
    np.testing.assert_array_equal(again.predict_marginals(X), model.predict_marginals(X))
    assert "labels" in repr(model)


def test_given_tree_is_used(data):
    X, Y = data
    tree = label_tree(Y.shape[1], 3, random_state=9)
    res = probabilistic_label_tree(X, Y, tree=tree, progress=False)
    assert res.tree is tree


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("arity", [1, 0, -2, 2.5, True, "2"])
def test_arity_below_two_raises(data, arity):
    X, Y = data
    # 2.5, True and "2" are refused at the boundary, as any non-integer count (issue 42)
    with pytest.raises(InvalidArgumentError, match="`arity`.*(>= 2|must be an integer)"):
        probabilistic_label_tree(X, Y, arity=arity)


def test_empty_label_set_raises(data):
    X, _ = data
    with pytest.raises(DataError, match="label"):
        probabilistic_label_tree(X, np.zeros((X.shape[0], 0)))
    with pytest.raises(DataError, match="no positive"):
        probabilistic_label_tree(X, np.zeros((X.shape[0], 3)))


@pytest.mark.parametrize("kwargs,match", [
    ({"tree": "kmeans"}, "`tree`"), ({"C": 0.0}, "`C`"), ({"tol": -1.0}, "`tol`"),
    ({"max_iter": 0}, "`max_iter`"), ({"node_learner": "svm"}, "`node_learner`"),
    ({"weight_threshold": -0.1}, "`weight_threshold`"), ({"random_state": -3}, "random_state"),
    ({"max_leaves": 0}, "`max_leaves`"),
])
def test_bad_arguments_raise(data, kwargs, match):
    X, Y = data
    with pytest.raises(FmstatsError, match=match):
        probabilistic_label_tree(X, Y, **kwargs)


def test_bad_data_raise(data):
    X, Y = data
    with pytest.raises(DataError, match="same number of rows"):
        probabilistic_label_tree(X[:-1], Y)
    with pytest.raises(FmstatsError, match="only 0 and 1"):
        probabilistic_label_tree(X, Y * 2)
    bad = X.copy().astype(float)
    bad.data[0] = np.nan
    with pytest.raises(DataError, match="finite"):
        probabilistic_label_tree(bad, Y)
    with pytest.raises(DataError, match="leaves"):
        probabilistic_label_tree(X, Y, tree=label_tree(Y.shape[1] + 1, 2, random_state=0))


def test_bad_prediction_input_raise(model, data):
    X, _ = data
    with pytest.raises(DataError, match="columns"):
        model.predict_proba_sparse(X[:, :-1], 0.1)
    with pytest.raises(InvalidArgumentError, match="`threshold`.*\\[0, 1\\]"):
        model.predict_proba_sparse(X, 1.5)
    with pytest.raises(InvalidArgumentError, match="`threshold`"):
        model.predict_proba_sparse(X, np.full(model.n_labels + 1, 0.1))
    with pytest.raises(InvalidArgumentError, match="`k`"):
        model.predict_topk(X, model.n_labels + 1)
    with pytest.raises(InvalidArgumentError, match="`method`"):
        model.predict_topk(X, 2, method="beam")
    with pytest.raises(InvalidArgumentError, match="`k`"):
        precision_at_k(np.eye(3, dtype=int), np.zeros((3, 2), dtype=int), k=3)
