"""Probabilistic label trees (PLTs; seed 002, sections 5.1-5.2, Algorithms 3-4).

A PLT arranges the m labels as the leaves of a tree.  Every node t carries a
probabilistic classifier of ``z_t = [some label below t is positive]`` given
that its parent is positive, and the marginal of label j is the product of the
node probabilities on the path from the root to its leaf (eq. 9):

    eta(x, j) = prod_{t in Path(j)} eta_T(x, t).

* :func:`probabilistic_label_tree` trains one L2-regularised logistic regression per node on the
  examples positive at the node's parent (Algorithm 3), sibling nodes together, on
  threads (``_training.py`` schedules the work), every node by the
  compiled dual coordinate descent of :func:`logistic_l2` (numba,
  ``_nodes.py``).
* :meth:`ProbabilisticLabelTreeResults.predict_proba_sparse` descends only into nodes whose path
  probability exceeds the node threshold ``tau_t = min`` over its children
  (Algorithm 4 with per-label thresholds) and returns sparse probability
  estimates (an :class:`~fmstats.extreme.SPE`), vectorised over instances
  level by level, in blocks of rows on threads.
* :meth:`ProbabilisticLabelTreeResults.predict_topk` returns the k largest marginals, either by
  Algorithm 4 with per-instance thresholds lowered tenfold until k labels are
  found (default, the faster one here) or by the best-first search with a
  priority queue per instance; :func:`precision_at_k` scores it.

Trees (:class:`~fmstats.extreme.LabelTree`, built by
:func:`~fmstats.extreme.label_tree`) are random complete b-ary trees (as
in the paper's experiments) or built by hierarchical balanced k-means on label
centroids (the default, with pre-leaf nodes of up to 100 labels as in napkinXC).
"""
from __future__ import annotations

import heapq
import warnings
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from .._utils.boundary import public
from .._utils.parallel import check_n_jobs, row_block, run_tasks
from ..results import Persistable
from .._utils.call import Settings, records_call
from .._utils.validation import check_choice, check_scalar, describe, num, warn
from ..exceptions import ConvergenceWarning, DataError, InvalidArgumentError
from ._trees import LabelTree, check_arity, label_tree
from ._training import train_nodes
from ._spe import SPE, check_label_matrix, check_thresholds
from ._atk import TopK, precision_at_k

__all__ = ["probabilistic_label_tree", "plt", "ProbabilisticLabelTreeResults", "PLTResults", "TopK",
           "precision_at_k", "logistic_l2",
           "LabelTree", "label_tree"]

_CHUNK_ELEMENTS = 4_000_000  # dense elements per block in exhaustive prediction
_PREDICT_ROWS = 4096           # rows per block of pruned prediction (one thread each), at most


# ---------------------------------------------------------------------------
# node learners
# ---------------------------------------------------------------------------
def logistic_l2(X: sp.csr_matrix, z: np.ndarray, C: float = 1.0, tol: float = 0.1,
                max_iter: int = 100) -> tuple[np.ndarray, float, int, bool]:
    """L2-regularised logistic regression with the bias as a penalised feature (liblinear's).

    Minimises ``0.5 (||w||^2 + b^2) + C sum_i log(1 + exp(-s_i (x_i w + b)))`` with
    ``s_i = 2 z_i - 1``: liblinear's L2-regularised logistic regression with a bias feature
    of value 1 (napkinXC's node model; scikit-learn's ``LogisticRegression(C=C,
    solver="liblinear", intercept_scaling=1)``).  Solved by dual coordinate descent (Yu,
    Huang and Lin 2011, liblinear's ``L2R_LR_DUAL``, napkinXC's default) compiled with
    numba: every epoch visits the rows in a random order (seeded, so the fit is
    reproducible) and solves each one-variable dual problem by a few Newton steps.  Stops
    when the largest absolute dual gradient of an epoch is below ``tol`` (liblinear's rule;
    napkinXC's ``liblinear_eps``).

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, p)
        Features x_i (rows).
    z : ndarray of shape (n,)
        The 0/1 targets z_i.
    C : float, default 1.0
        Inverse L2 penalty (scikit-learn's ``C``).
    tol : float, default 0.1
        Stop when the largest absolute dual gradient of an epoch is below it (napkinXC's
        default 0.1).
    max_iter : int, default 100
        At most this many epochs over the rows.

    Returns
    -------
    w : ndarray of shape (p,)
        The weights.
    b : float
        The intercept.
    n_iter : int
        The number of epochs.
    converged : bool
        Whether the stopping rule was met within ``max_iter`` epochs.
    """
    from ._nodes import fit_logistic

    X = sp.csr_matrix(X)
    z = np.ascontiguousarray(z, dtype=np.float64)
    data = X.data if X.dtype in (np.float32, np.float64) else X.data.astype(np.float64)
    w, n_iter, ok = fit_logistic(X.indptr.astype(np.int64), X.indices.astype(np.int32), data,
                                 X.shape[1], z, float(C), float(tol), int(max_iter), 0)
    return w[:-1], float(w[-1]), int(n_iter), bool(ok)


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------
def _check_features(X: Any, n_features: int | None = None, name: str = "X") -> sp.csr_matrix:
    if sp.issparse(X):
        if X.ndim != 2:
            raise InvalidArgumentError(f"`{name}` must be 2-d; got shape {X.shape}.")
        mat = sp.csr_matrix(X)
    else:
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"`{name}` must be a scipy.sparse CSR matrix or a numeric 2-d array; got "
                f"{describe(X)} ({exc}).") from None
        if arr.ndim != 2:
            raise InvalidArgumentError(f"`{name}` must be 2-d; got shape {arr.shape}.")
        mat = sp.csr_matrix(arr)
    if mat.dtype not in (np.float32, np.float64):
        mat = mat.astype(np.float64)
    if mat.shape[0] == 0:
        raise DataError(f"`{name}` has no rows; at least one is needed.")
    if not np.isfinite(mat.data).all():
        raise DataError(f"`{name}` must be finite; got {int((~np.isfinite(mat.data)).sum())} "
                        "non-finite value(s).")
    if n_features is not None and mat.shape[1] != n_features:
        raise DataError(f"`{name}` must have {n_features} columns (as in training); got "
                        f"{mat.shape[1]}.")
    if not mat.has_sorted_indices:
        mat = mat.sorted_indices()
    return mat


# ---------------------------------------------------------------------------
# training (Algorithm 3)
# ---------------------------------------------------------------------------
@records_call(data="X", rows=("Y",))
def probabilistic_label_tree(X: Any, Y: Any, *, arity: int = 2, tree: str | LabelTree = "balanced-kmeans",
        node_learner: str | Callable = "logistic", C: float = 10.0, tol: float = 0.1,
        max_iter: int = 100, weight_threshold: float = 0.0, kmeans_max_iter: int = 50,
        max_leaves: int | None = None, random_state: Any = None, n_jobs: int | None = None,
        progress: Any = None, _call=None) -> "ProbabilisticLabelTreeResults":
    """Train a probabilistic label tree (Algorithm 3).

    Parameters
    ----------
    X : scipy.sparse matrix (n, d) or 2-d array
        Features (used as CSR; float32 is kept).
    Y : scipy.sparse matrix (n, m) or 2-d array of 0/1
        Labels; at least one label column and one positive entry.
    arity : int, default 2
        Number of children of an internal node (b >= 2).
    tree : {"balanced-kmeans", "random"} or LabelTree, default "balanced-kmeans"
        How to build the tree (see :func:`label_tree`), or a ready tree over m labels.
        The defaults (balanced 2-means on label centroids, pre-leaves of at most 100
        labels, C = 10; napkinXC's defaults) were chosen on held-out P@1 of debtags
        (80/20 split, seed 0; napkinXC's defaults: 93.4): random binary tree 89.2
        with C = 1 (the former default), 93.1 with C = 10; balanced k-means with
        ``max_leaves=100`` 90.1 with C = 1, 92.6 with C = 4, 93.3 with C = 10.  C
        gives most of the gain; the k-means tree adds 0.9 points at C = 1 and 0.2 at
        C = 10, and trains about twice as long as the random tree (its pre-leaves
        train ~70 siblings on the same rows).
    node_learner : "logistic" or callable, default "logistic"
        ``"logistic"``: :func:`logistic_l2` with ``C``, ``tol``, ``max_iter``.  A
        callable ``f(X_node, z) -> (coef, intercept)`` receives the CSR rows reaching
        the node restricted to their non-zero columns (float64) and 0/1 targets with
        both classes present; it must be picklable when ``n_jobs`` is not 1.
    C : float, default 10
        Inverse L2 penalty of the logistic node classifiers (scikit-learn's ``C``).
    tol, max_iter
        Stopping rule of the dual coordinate descent (:func:`logistic_l2`): the largest
        absolute dual gradient of an epoch below ``tol``, at most ``max_iter`` epochs.
        The default 0.1 is napkinXC's; on debtags (80/20 split, seed 0, random binary
        tree, C = 1) held-out P@1 was 89.14 with ``tol=0.1`` and with ``tol=0.01``
        (P@3, P@5 within 0.02 points).  On an RCV1-like problem at a quarter of the
        seed's size (``benchmarks/extreme/bench_xmlc_scale.py --n 155961 --test 38990``, the
        defaults otherwise) ``max_iter=20`` gave the same P@k and section-6 macro-F
        (within 0.04 points) in the same time (the nodes that need more epochs are few),
        ``tol=1`` 30 % less training time for 0.02-0.05 points less, ``max_iter=10``
        40 % less for 0.2 points less macro-F: the defaults stay napkinXC's.
    weight_threshold : float, default 0
        Node weights with ``|w| <= weight_threshold`` are dropped after training
        (0 keeps all non-zero weights; napkinXC drops below 0.1).
    kmeans_max_iter : int, default 50
        Iterations per split of ``tree="balanced-kmeans"``.
    max_leaves : int, optional
        Sets of at most this many labels are not split: their node gets one leaf per
        label (see :func:`label_tree`; None: 100 for balanced k-means, 1 for random).
    random_state : None, int or numpy.random.Generator
        The random tree, or the k-means starting centres.  Training itself is
        deterministic and does not depend on ``n_jobs``.
    n_jobs : int, optional
        Threads over the node problems (joblib's threading backend; the compiled trainer
        releases the GIL): a parent's rows are gathered once, and its children trained in
        units (a group of siblings side by side, or one child), the largest first, so
        that the threads stay busy to the end (``_training.py``).  A
        callable ``node_learner`` runs per parent in joblib's default backend.  None:
        joblib's default.  The model does not depend on it.  Memory beyond the data and
        the model, per thread: one parent's gathered rows (8 bytes per non-zero of
        float32 data, 12 of float64) and one unit's state (at most 256 MB of dual
        variables, plus the siblings' weights).
    progress : bool or None
        A progress bar over the units (None: only in interactive sessions).

    Returns
    -------
    ProbabilisticLabelTreeResults

    Notes
    -----
    A node is trained on the examples positive at its parent (all examples at the
    root) with target ``z_t = [some label of its subtree is positive]``.  Siblings
    share their training rows and are trained in one task.  When all these
    targets are equal (or there is no row), the node is the constant 1 or 0
    (intercept +-inf).  Only the columns with a non-zero value among a node's rows
    enter its problem; the other weights are exactly 0 at the optimum.  The node
    classifiers are liblinear's (the bias a penalised feature of value 1; napkinXC's
    model), so a tree trained here and by napkinXC on the same tree and C agree to the
    solvers' tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.extreme import probabilistic_label_tree, precision_at_k
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5))
    >>> Y = (X[:, :4] + 0.5 * rng.normal(size=(300, 4)) > 0.8).astype(int)
    >>> model = probabilistic_label_tree(X, Y, arity=2, tol=1e-6, max_iter=1000, random_state=0)
    >>> model  # doctest: +ELLIPSIS
    <ProbabilisticLabelTreeResults: 4 labels, 5 nodes (balanced-kmeans tree, arity 2, height 1), ...>
    >>> print(f"{precision_at_k(Y, model.predict_topk(X, k=1), k=1):.3f}")
    0.537
    """
    X = _check_features(X)
    Y = sp.csr_matrix(check_label_matrix(Y))
    n, m = Y.shape
    if X.shape[0] != n:
        raise DataError(f"`X` and `Y` must have the same number of rows; got {X.shape[0]} "
                        f"and {n}.")
    if Y.nnz == 0:
        raise DataError("`Y` has no positive entry: every label is empty, there is nothing "
                        "to learn.")
    arity = check_arity(arity)
    if isinstance(node_learner, str):
        check_choice("node_learner", node_learner, ("logistic",))
        learner = None
    elif callable(node_learner):
        learner = node_learner
    else:
        raise InvalidArgumentError(f'`node_learner` must be "logistic" or a callable; got '
                                   f"{describe(node_learner)}.")
    C = float(check_scalar("C", C, low=0, low_open=True))
    tol = float(check_scalar("tol", tol, low=0, low_open=True))
    max_iter = int(check_scalar("max_iter", max_iter, low=1, integer=True))
    weight_threshold = float(check_scalar("weight_threshold", weight_threshold, low=0))
    n_jobs = check_n_jobs(n_jobs)
    settings = Settings(_call.resolved(), C=C, tol=tol, max_iter=max_iter,
                        weight_threshold=weight_threshold, n_jobs=n_jobs)
    if isinstance(tree, LabelTree):
        if tree.n_labels != m:
            raise DataError(f"`tree` has {tree.n_labels} leaves but `Y` has {m} labels.")
        T = tree
    elif isinstance(tree, str):
        T = label_tree(m, arity, tree, X=X, Y=Y, random_state=random_state,
                       kmeans_max_iter=kmeans_max_iter, max_leaves=max_leaves)
    else:
        raise InvalidArgumentError(f'`tree` must be "random", "balanced-kmeans" or a '
                                   f"LabelTree; got {describe(tree)}.")

    # z_t for every example and node: [some label below t is positive]
    Z = sp.csc_matrix(Y.astype(np.float64) @ T.path_matrix())
    Z.data[:] = 1.0
    W, bias, n_iter, converged = train_nodes(X, Z, T, learner, C, tol, max_iter,
                                             weight_threshold, n_jobs, progress)
    if not converged.all():
        warn(f"{int((~converged).sum())} of {T.n_nodes} node classifiers did not reach a "
             f"dual gradient below tol={num(tol)} within max_iter={max_iter} epochs; "
             "increase `max_iter` or `tol`, or lower `C`.", ConvergenceWarning)
    return ProbabilisticLabelTreeResults(T, W, bias, n_iter, converged, n, settings, _call)


def plt(X: Any, Y: Any, **kwargs) -> "ProbabilisticLabelTreeResults":
    """Deprecated alias of :func:`probabilistic_label_tree`.

    The short name shadowed matplotlib's ``plt``; it will be removed in a later release.
    """
    warnings.warn("fmstats.extreme.plt is deprecated; use probabilistic_label_tree (the short "
                  "name shadows matplotlib's `plt`).", FutureWarning, stacklevel=2)
    return probabilistic_label_tree(X, Y, **kwargs)


# ---------------------------------------------------------------------------
# the fitted model and prediction (Algorithm 4)
# ---------------------------------------------------------------------------
class ProbabilisticLabelTreeResults(Persistable):
    """A trained probabilistic label tree.

    Built by :func:`probabilistic_label_tree` rather than by users; every parameter is
    kept as the attribute of the same name.

    Parameters
    ----------
    tree : LabelTree
        The tree of T nodes over the m labels.
    weights : scipy.sparse.csr_matrix (T, d)
        Node weight vectors (row t: node t), zero outside the columns seen at the node.
    intercepts : ndarray (T,)
        Node intercepts (+-inf for constant nodes).
    n_iter, converged : ndarray (T,)
        Epochs of the dual coordinate descent and convergence flag per node (0 and True
        for constant nodes).
    n_obs : int
        Number of training rows.
    settings : Settings
        The arguments of :func:`probabilistic_label_tree`, defaults applied.
    call : ModelCall
        The recorded call (``refit`` reruns it).
    """

    def __init__(self, tree, weights, intercepts, n_iter, converged, n_obs, settings, call):
        self.tree = tree
        self.weights = weights
        self.intercepts = intercepts
        self.n_iter = n_iter
        self.converged = converged
        self.n_obs = int(n_obs)
        self.settings = settings
        self.call = call

    @property
    def n_labels(self) -> int:
        """The number of labels (leaves of the tree)."""
        return self.tree.n_labels

    def file_problem(self) -> str | None:
        """Why these results, read from a results file, are not consistent, or None: the
        compiled descent (``expand_children``) indexes the
        weights with the tree's arrays unchecked.

        Returns
        -------
        str or None
            The reason, or None.
        """
        tree, W, b = self.tree, self.weights, self.intercepts
        if not isinstance(tree, LabelTree):
            return "its tree is not a LabelTree"
        why = tree.problem()
        if why is not None:
            return why
        if not (sp.issparse(W) and W.format == "csr" and W.shape[0] == tree.n_nodes
                and isinstance(b, np.ndarray) and b.shape == (tree.n_nodes,)):
            return "its weights and intercepts do not have one row per node of its tree"
        return None

    @property
    def n_features(self) -> int:
        """The number of features the node classifiers take."""
        return int(self.weights.shape[1])

    def __repr__(self) -> str:
        s, T = self.settings, self.tree
        kind = "given" if isinstance(s["tree"], LabelTree) else s["tree"]
        return (f"<ProbabilisticLabelTreeResults: {self.n_labels} labels, {T.n_nodes} nodes "
                f"({kind} tree, arity "
                f"{s['arity']}, height {T.height}), {self.n_features} features, "
                f"{self.weights.nnz} weights, C={num(s['C'])}, {self.n_obs} rows; "
                f"{int((~self.converged).sum())} nodes not converged>")

    def refit(self, X: Any, Y: Any) -> "ProbabilisticLabelTreeResults":
        """The same model with the same settings on other data: the recorded call again.

        Parameters
        ----------
        X : scipy.sparse matrix or 2-d array of shape (n, d)
            Features.
        Y : scipy.sparse matrix or 2-d array of shape (n, m)
            0/1 labels.

        Returns
        -------
        ProbabilisticLabelTreeResults
            The model trained on ``X``, ``Y``.
        """
        return self.call.refit(X, Y=Y)

    # -- node probabilities -------------------------------------------------------------
    def _check(self, X: Any) -> sp.csr_matrix:
        return _check_features(X, self.n_features)

    def _root_proba(self, X: sp.csr_matrix) -> np.ndarray:
        W = self.weights
        w = np.zeros(self.n_features)
        w[W.indices[W.indptr[0]:W.indptr[1]]] = W.data[W.indptr[0]:W.indptr[1]]
        return expit(X @ w + self.intercepts[0])

    def _children_proba(self, X: sp.csr_matrix, rows: np.ndarray, nodes: np.ndarray,
                        p: np.ndarray, node_tau: np.ndarray, row_tau: np.ndarray):
        """For pairs (rows[i], nodes[i]) of inner nodes reached with path probability p[i]:
        (pair index, child, p[i] * eta_T(x, child)) of the children whose path probability
        exceeds ``node_tau[child]`` and ``row_tau[i]``, by the compiled kernel
        ``expand_children`` (per node, the children's weights
        regrouped by feature: one pass over a row's entries scores all children)."""
        from ._nodes import expand_children

        T, W = self.tree, self.weights
        if nodes.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        order = np.argsort(nodes, kind="stable")
        return expand_children(X.indptr, X.indices, X.data, W.indptr, W.indices, W.data,
                               self.intercepts, T.child_start, T.n_children, self.n_features,
                               rows, nodes, p, order, node_tau, row_tau)

    def _node_proba_dense(self, X: sp.csr_matrix) -> np.ndarray:
        S = np.asarray((X @ self.weights.T).todense())
        return expit(S + self.intercepts)

    def predict_node_proba(self, X: Any) -> np.ndarray:
        """Conditional node probabilities eta_T(x, t) for every node: dense (n, T).

        Parameters
        ----------
        X : scipy.sparse matrix or 2-d array of shape (n, d)
            Features, with the d columns of the training data.

        Returns
        -------
        ndarray of shape (n, T)
            The node probabilities.
        """
        return self._node_proba_dense(self._check(X))

    def predict_marginals(self, X: Any) -> np.ndarray:
        """Exhaustive marginals eta(x, j) by eq. (9) for every label: dense (n, m).

        Every node classifier is evaluated (no pruning); rows are processed in
        blocks so that a block of node probabilities stays small.

        Parameters
        ----------
        X : scipy.sparse matrix or 2-d array of shape (n, d)
            Features, with the d columns of the training data.

        Returns
        -------
        ndarray of shape (n, m)
            The marginals.
        """
        X = self._check(X)
        T = self.tree
        levels = T.level_ranges()
        out = np.empty((X.shape[0], self.n_labels))
        step = max(1, _CHUNK_ELEMENTS // T.n_nodes)
        for lo in range(0, X.shape[0], step):
            P = self._node_proba_dense(X[lo:lo + step])
            for a, z in levels[1:]:
                P[:, a:z] *= P[:, T.parent[a:z]]
            out[lo:lo + step] = P[:, T.leaf]
        return out

    # -- threshold pruning (Algorithm 4) -------------------------------------------------
    @public
    def predict_proba_sparse(self, X: Any, threshold: Any, *, n_jobs: int | None = None,
                             progress: Any = None) -> SPE:
        """Sparse probability estimates by threshold pruning (Algorithm 4).

        Parameters
        ----------
        X : sparse matrix (n, d)
            Features, with the d columns of the training data.
        threshold : float or array (m,) in [0, 1]
            Per-label thresholds tau_j.  A node is expanded only when its path
            probability exceeds tau_t = min over its children (tau_j at a leaf).
        n_jobs : int, optional
            Threads over at least 16 blocks of rows (of at most 4,096; the compiled
            descent releases the GIL); None: joblib's default.  The estimates do not
            depend on it.
        progress : bool or None
            A progress bar over the blocks (None: only in interactive sessions).

        Returns
        -------
        SPE
            The marginals eta(x, j) > tau_j (stored in a CSR matrix), with
            thresholds tau: exactly the entries of :meth:`predict_marginals`
            above the thresholds.

        Notes
        -----
        Memory beyond X and the result: per thread, one block's nodes reached and leaves
        (about 24 bytes per (row, node) pair of a level), and 12 bytes per estimate while the
        blocks are joined.
        """
        X = self._check(X)
        tau_label = check_thresholds("threshold", threshold, self.n_labels)
        n_jobs = check_n_jobs(n_jobs)
        node_tau = self.tree.node_thresholds(tau_label)
        n = X.shape[0]
        size = row_block(n, _PREDICT_ROWS)
        parts = run_tasks(_spe_block, [(self, X, lo, min(n, lo + size), node_tau)
                                       for lo in range(0, n, size)],
                          n_jobs=n_jobs, progress=progress, desc="SPE", blas_threads=None,
                          backend="threading")
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.concatenate([p[0] for p in parts]), out=indptr[1:])
        labels = np.concatenate([p[1] for p in parts])
        values = np.concatenate([p[2] for p in parts])
        del parts
        # valid by construction: one estimate per (row, label), labels sorted within rows,
        # products of sigmoids in [0, 1] above tau_j (no copy, no re-validation)
        return SPE._trusted(sp.csr_array((values, labels, indptr), shape=(n, self.n_labels)),
                            tau_label)

    def _descend(self, X: sp.csr_matrix, rows: np.ndarray, *, node_tau=None, row_tau=None):
        """Algorithm 4 for the instances ``rows``, level by level: expand a node while its
        path probability exceeds ``node_tau[node]`` (or ``row_tau[i]`` for the i-th
        instance).  Returns (index into ``rows``, label, marginal) of the leaves reached."""
        T = self.tree
        whole = rows.size == X.shape[0] and np.array_equal(rows, np.arange(rows.size))
        p0 = self._root_proba(X if whole else X[rows])
        if row_tau is None:
            row_tau = np.zeros(rows.size)
        else:
            node_tau = np.zeros(T.n_nodes)
        idx = np.flatnonzero((p0 > node_tau[0]) & (p0 > row_tau))
        nodes = np.zeros(idx.size, dtype=np.int64)
        p = p0[idx]
        out_r, out_j, out_p = [], [], []
        while idx.size:
            leaf = T.label[nodes] >= 0
            out_r.append(idx[leaf])
            out_j.append(T.label[nodes[leaf]])
            out_p.append(p[leaf])
            idx, nodes, p = idx[~leaf], nodes[~leaf], p[~leaf]
            pair, nodes, p = self._children_proba(X, rows[idx], nodes, p, node_tau,
                                                  row_tau[idx])
            idx = idx[pair]
        if not out_r:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return tuple(np.concatenate(a) for a in (out_r, out_j, out_p))

    def predict_topk(self, X: Any, k: int = 5, method: str = "threshold", *,
                     n_jobs: int | None = None, progress: Any = None) -> TopK:
        """The k labels of largest marginal per instance.

        Parameters
        ----------
        X : sparse matrix (n, d)
            Features, with the d columns of the training data.
        k : int, default 5
            At most the number of labels.
        method : {"threshold", "heap"}, default "threshold"
            ``"heap"``: best-first search with a priority queue per instance (the
            paper's variant of Algorithm 4).  ``"threshold"``: Algorithm 4 with one
            threshold per instance, starting at 0.1 and divided by 10 (down to 0)
            for the instances with fewer than k labels above it.  Both are exact:
            they return the k largest marginals of :meth:`predict_marginals`
            (ties in any order; labels of probability 0 fill up in index order).
        n_jobs : int, optional
            ``"threshold"``: threads over blocks of rows, as above (the result does not depend
            on it); None: joblib's default.  ``"heap"`` runs in one thread.
        progress : bool or None
            ``"threshold"``: a progress bar over the blocks (None: only in interactive
            sessions).

        Returns
        -------
        TopK
            ``labels`` (n, k) and ``scores`` (n, k), in decreasing probability.
        """
        X = self._check(X)
        k = int(check_scalar("k", k, low=1, high=self.n_labels, integer=True))
        check_choice("method", method, ("heap", "threshold"))
        n_jobs = check_n_jobs(n_jobs)
        if method == "heap":
            return self._topk_heap(X, k)
        n = X.shape[0]
        labels = np.full((n, k), -1, dtype=np.int64)
        scores = np.zeros((n, k))
        size = row_block(n, _PREDICT_ROWS)
        run_tasks(_topk_block, [(self, X, lo, min(n, lo + size), k, labels, scores)
                                for lo in range(0, n, size)],
                  n_jobs=n_jobs, progress=progress, desc="top-k", blas_threads=None,
                  backend="threading")
        return TopK(labels, scores)

    def _topk_rows(self, X: sp.csr_matrix, lo: int, hi: int, k: int, labels: np.ndarray,
                   scores: np.ndarray) -> None:
        """The "threshold" top-k of rows lo..hi-1 into ``labels`` and ``scores``."""
        pending, tau = np.arange(lo, hi), 0.1
        while pending.size:
            r, j, v = self._descend(X, pending, row_tau=np.full(pending.size, tau))
            count = np.bincount(r, minlength=pending.size)
            done = (count >= k) | (tau == 0.0)
            order = np.lexsort((-v, r))
            r, j, v = r[order], j[order], v[order]
            rank = np.arange(r.size) - np.searchsorted(r, r)
            take = done[r] & (rank < k)
            labels[pending[r[take]], rank[take]] = j[take]
            scores[pending[r[take]], rank[take]] = v[take]
            for i in pending[done & (count < k)]:  # fewer than k labels above 0
                rest = np.setdiff1d(np.arange(self.n_labels), labels[i, labels[i] >= 0])
                labels[i, labels[i] < 0] = rest[:int((labels[i] < 0).sum())]
            pending = pending[~done]
            tau = tau / 10.0 if tau > 1e-12 else 0.0

    def _topk_heap(self, X: sp.csr_matrix, k: int) -> TopK:
        """Best-first search: every instance keeps a priority queue of (path probability,
        node); the instances pop their best node together, leaves are emitted in
        decreasing probability, and the children of popped inner nodes are scored
        together.  Exact: an emitted leaf beats every leaf below the queued nodes."""
        T, n = self.tree, X.shape[0]
        labels = np.full((n, k), -1, dtype=np.int64)
        scores = np.zeros((n, k))
        found = np.zeros(n, dtype=np.int64)
        heaps = [[(-float(v), 0)] for v in self._root_proba(X)]
        active = np.arange(n)
        while active.size:
            popped = [heapq.heappop(heaps[i]) for i in active]
            p = -np.array([q[0] for q in popped])
            nodes = np.array([q[1] for q in popped], dtype=np.int64)
            leaf = T.label[nodes] >= 0
            rl = active[leaf]
            labels[rl, found[rl]] = T.label[nodes[leaf]]
            scores[rl, found[rl]] = p[leaf]
            found[rl] += 1
            inner = ~leaf
            keep_all = np.full(int(inner.sum()), -1.0)
            pair, kids, pc = self._children_proba(X, active[inner], nodes[inner], p[inner],
                                                  np.full(T.n_nodes, -1.0), keep_all)
            owner = active[inner][pair]
            for i, c, v in zip(owner.tolist(), kids.tolist(), pc.tolist()):
                heapq.heappush(heaps[i], (-v, c))
            active = active[found[active] < k]
        return TopK(labels, scores)


def _spe_block(model: ProbabilisticLabelTreeResults, X: sp.csr_matrix, lo: int, hi: int,
               node_tau: np.ndarray):
    """Worker: the estimates of rows lo..hi-1 above ``node_tau`` as (entries per row,
    labels, values), labels sorted within rows."""
    from ._nodes import rows_csr

    r, j, v = model._descend(X, np.arange(lo, hi), node_tau=node_tau)
    return rows_csr(r, j, v, hi - lo)


def _topk_block(model: ProbabilisticLabelTreeResults, X: sp.csr_matrix, lo: int, hi: int, k: int,
                labels: np.ndarray, scores: np.ndarray) -> None:
    """Worker: the top-k of rows lo..hi-1 into their rows of ``labels``, ``scores``."""
    model._topk_rows(X, lo, hi, k, labels, scores)


#: The name of :class:`ProbabilisticLabelTreeResults` before results classes were named after the
#: function that makes them (:func:`probabilistic_label_tree`); kept for code and results files.
PLTResults = ProbabilisticLabelTreeResults
