"""Probabilistic label trees (PLTs; seed 002, sections 5.1-5.2, Algorithms 3-4).

A PLT arranges the m labels as the leaves of a tree.  Every node t carries a
probabilistic classifier of ``z_t = [some label below t is positive]`` given
that its parent is positive, and the marginal of label j is the product of the
node probabilities on the path from the root to its leaf (eq. 9):

    eta(x, j) = prod_{t in Path(j)} eta_T(x, t).

* :func:`probabilistic_label_tree` trains one L2-regularised logistic regression per node on the
  examples positive at the node's parent (Algorithm 3), sibling nodes together,
  in parallel over parents with joblib, node by node with scipy's trust-region
  Newton-CG.
* :meth:`PLTResults.predict_proba_sparse` descends only into nodes whose path
  probability exceeds the node threshold ``tau_t = min`` over its children
  (Algorithm 4 with per-label thresholds) and returns sparse probability
  estimates (an :class:`~fmstats.extreme.SPE`), vectorised over instances
  level by level.
* :meth:`PLTResults.predict_topk` returns the k largest marginals, either by
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
from typing import Any, Callable, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit

from .._utils.parallel import check_n_jobs, run_tasks
from ..results import Persistable
from .._utils.call import Settings, records_call
from .._utils.validation import check_choice, check_scalar, describe, num, warn
from ..exceptions import ConvergenceWarning, DataError, InvalidArgumentError
from ._trees import LabelTree, check_arity, label_tree
from ._spe import SPE, check_label_matrix, check_thresholds

__all__ = ["probabilistic_label_tree", "plt", "PLTResults", "TopK", "precision_at_k", "logistic_l2",
           "LabelTree", "label_tree"]

_CHUNK_ELEMENTS = 4_000_000  # dense elements per block in exhaustive prediction


# ---------------------------------------------------------------------------
# node learners
# ---------------------------------------------------------------------------
def logistic_l2(X: sp.csr_matrix, z: np.ndarray, C: float = 1.0, tol: float = 1e-6,
                max_iter: int = 100) -> tuple[np.ndarray, float, int, bool]:
    """L2-regularised logistic regression with an unpenalised intercept.

    Minimises ``0.5 ||w||^2 + C sum_i log(1 + exp(-s_i (x_i w + b)))`` with
    ``s_i = 2 z_i - 1`` (scikit-learn's ``LogisticRegression(C=C)``), scaled by
    ``1 / (C n)`` (the mean log-loss plus ``||w||^2 / (2 C n)``), by a trust-region
    Newton method with conjugate gradients on Hessian-vector products
    (scipy's ``trust-ncg``; liblinear's TRON works the same way).  Stops when the
    Euclidean norm of the gradient is below ``tol``.  Returns
    ``(w, b, n_iter, converged)``.  :func:`probabilistic_label_tree` uses it node by node.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix of shape (n, p)
        Features x_i (rows).
    z : ndarray of shape (n,)
        The 0/1 targets z_i.
    C : float, default 1.0
        Inverse L2 penalty (scikit-learn's ``C``).
    tol : float, default 1e-6
        Stop when the Euclidean norm of the gradient of the scaled objective is below it.
    max_iter : int, default 100
        At most this many Newton iterations.

    Returns
    -------
    w : ndarray of shape (p,)
        The weights.
    b : float
        The intercept.
    n_iter : int
        The number of Newton iterations.
    converged : bool
        Whether the gradient norm fell below ``tol``.
    """
    n, p = X.shape
    lam = 1.0 / (C * n)
    Xt = X.T
    state = {"x": None, "d": None}

    def curvature(theta):
        if state["x"] is None or not np.array_equal(theta, state["x"]):
            s = expit(X @ theta[:p] + theta[p])
            state["x"], state["d"] = theta.copy(), s * (1.0 - s) / n
        return state["d"]

    def fun(theta):
        w, b = theta[:p], theta[p]
        eta = X @ w + b
        s = expit(eta)
        state["x"], state["d"] = theta.copy(), s * (1.0 - s) / n
        f = (np.logaddexp(0.0, eta).sum() - z @ eta) / n + 0.5 * lam * (w @ w)
        r = (s - z) / n
        grad = np.empty(p + 1)
        grad[:p] = Xt @ r + lam * w
        grad[p] = r.sum()
        return f, grad

    def hessp(theta, v):
        u = curvature(theta) * (X @ v[:p] + v[p])
        out = np.empty(p + 1)
        out[:p] = Xt @ u + lam * v[:p]
        out[p] = u.sum()
        return out

    prior = float(np.clip(z.mean(), 1e-12, 1 - 1e-12))
    theta0 = np.zeros(p + 1)
    theta0[p] = np.log(prior / (1 - prior))
    res = minimize(fun, theta0, jac=True, hessp=hessp, method="trust-ncg",
                   options={"gtol": tol, "maxiter": max_iter})
    return res.x[:p], float(res.x[p]), int(res.nit), bool(res.success)


def _fit_node(Xn: sp.csr_matrix, z: np.ndarray, learner, C, tol, max_iter):
    """One node: a constant model when ``z`` has one class (or no rows), else
    :func:`logistic_l2` (``learner`` None) or the learner's fit."""
    if z.size == 0 or z.min() == z.max():
        b = np.inf if z.size and z[0] == 1 else -np.inf
        return np.zeros(Xn.shape[1]), b, 0, True
    if learner is None:
        return logistic_l2(Xn, z, C, tol, max_iter)
    w, b = learner(Xn, z)
    return np.asarray(w, dtype=float).ravel(), float(b), 0, True


def _compress_columns(Xp: sp.csr_matrix) -> tuple[np.ndarray, sp.csr_matrix]:
    """The non-zero columns of ``Xp`` and ``Xp`` restricted to them (float64)."""
    seen = np.zeros(Xp.shape[1], dtype=bool)
    seen[Xp.indices] = True
    cols = np.flatnonzero(seen)
    position = np.zeros(Xp.shape[1], dtype=np.int32)
    position[cols] = np.arange(cols.size, dtype=np.int32)
    return cols, sp.csr_matrix((Xp.data.astype(np.float64), position[Xp.indices], Xp.indptr),
                               shape=(Xp.shape[0], cols.size))


def _train_units(X, units, learner, C, tol, max_iter, weight_threshold):
    """Worker: the children of several parents.  A unit is (children, rows, Z, nnz) with
    Z the 0/1 targets (len(rows), len(children)) and nnz the stored entries of its rows;
    the root is a unit of its own (rows None: all); nodes are fitted one by one."""
    out = []

    def emit(node, cols, w, b, it, ok):
        keep = np.abs(w) > weight_threshold if weight_threshold > 0 else w != 0
        out.append((int(node), cols[keep].astype(np.int32), w[keep], float(b), int(it),
                    bool(ok)))

    for nodes, rows, Z, _ in units:
        if Z.shape[0] == 0 or np.all(Z.min(axis=0) == Z.max(axis=0)):  # constants only
            cols, Xn = np.zeros(0, np.int64), sp.csr_matrix((Z.shape[0], 0))
        else:
            cols, Xn = _compress_columns(X[rows] if rows is not None else X)
        for c, node in enumerate(nodes):
            emit(node, cols, *_fit_node(Xn, Z[:, c].astype(np.float64), learner, C, tol,
                                        max_iter))
    return out


def _batches(units: list, costs: np.ndarray, n_batches: int) -> list[list]:
    """Longest-processing-time-first assignment of units to ``n_batches`` bins."""
    bins: list[list] = [[] for _ in range(n_batches)]
    heap = [(0.0, i) for i in range(n_batches)]
    for u in np.argsort(-costs, kind="stable"):
        load, i = heapq.heappop(heap)
        bins[i].append(units[u])
        heapq.heappush(heap, (load + float(costs[u]), i))
    return [b for b in bins if b]


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
        node_learner: str | Callable = "logistic", C: float = 10.0, tol: float = 1e-5,
        max_iter: int = 100, weight_threshold: float = 0.0, kmeans_max_iter: int = 50,
        max_leaves: int | None = None, random_state: Any = None, n_jobs: int | None = None,
        progress: Any = None, _call=None) -> "PLTResults":
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
        Stopping rule of the Newton iterations (:func:`logistic_l2`): Euclidean
        norm of the gradient of the scaled objective below ``tol``, at most
        ``max_iter`` iterations.
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
        Parallel workers over groups of sibling nodes (joblib; None: joblib's default).
    progress : bool or None
        A progress bar over batches of nodes (None: only in interactive sessions).

    Returns
    -------
    PLTResults

    Notes
    -----
    A node is trained on the examples positive at its parent (all examples at the
    root) with target ``z_t = [some label of its subtree is positive]``.  Siblings
    share their training rows and are trained in one task.  When all these
    targets are equal (or there is no row), the node is the constant 1 or 0
    (intercept +-inf).  Only the columns with a non-zero value among a node's rows
    enter its problem; the other weights are exactly 0 at the optimum.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.extreme import probabilistic_label_tree, precision_at_k
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 5))
    >>> Y = (X[:, :4] + 0.5 * rng.normal(size=(300, 4)) > 0.8).astype(int)
    >>> model = probabilistic_label_tree(X, Y, arity=2, random_state=0)
    >>> model  # doctest: +ELLIPSIS
    <PLTResults: 4 labels, 5 nodes (balanced-kmeans tree, arity 2, height 1), 5 features, ...>
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
    units, costs = [], []
    row_nnz = np.diff(X.indptr)
    root_z = np.zeros((n, 1), dtype=np.uint8)
    root_z[Z.indices[Z.indptr[0]:Z.indptr[1]], 0] = 1
    units.append((np.array([0]), None, root_z, X.nnz))
    costs.append(float(X.nnz))
    for p in np.flatnonzero(T.n_children > 0):
        rows = Z.indices[Z.indptr[p]:Z.indptr[p + 1]]
        kids = np.arange(T.child_start[p], T.child_start[p] + T.n_children[p])
        targets = np.stack([np.isin(rows, Z.indices[Z.indptr[c]:Z.indptr[c + 1]],
                                    assume_unique=True) for c in kids], axis=1)
        nnz = int(row_nnz[rows].sum())
        units.append((kids, rows, targets.astype(np.uint8), nnz))
        costs.append(float(nnz) * kids.size + 1.0)
    from joblib import effective_n_jobs

    workers = effective_n_jobs(n_jobs) if n_jobs is not None else effective_n_jobs()
    batches = _batches(units, np.asarray(costs), max(1, min(len(units), 8 * workers)))
    done = run_tasks(_train_units,
                     [(X, b, learner, C, tol, max_iter, weight_threshold) for b in batches],
                     n_jobs=n_jobs, progress=progress, desc="PLT nodes", blas_threads=1)
    fitted = sorted((r for batch in done for r in batch), key=lambda r: r[0])
    sizes = np.array([r[1].size for r in fitted])
    indptr = np.concatenate(([0], np.cumsum(sizes)))
    W = sp.csr_matrix((np.concatenate([r[2] for r in fitted]) if fitted else np.zeros(0),
                       np.concatenate([r[1] for r in fitted]), indptr),
                      shape=(T.n_nodes, X.shape[1]))
    bias = np.array([r[3] for r in fitted])
    n_iter = np.array([r[4] for r in fitted])
    converged = np.array([r[5] for r in fitted])
    if not converged.all():
        warn(f"{int((~converged).sum())} of {T.n_nodes} node classifiers did not reach a "
             f"gradient norm below tol={num(tol)} within max_iter={max_iter} Newton "
             "iterations; increase `max_iter` or `tol`, or lower `C`.", ConvergenceWarning)
    return PLTResults(T, W, bias, n_iter, converged, n, settings, _call)


def plt(X: Any, Y: Any, **kwargs) -> "PLTResults":
    """Deprecated alias of :func:`probabilistic_label_tree`.

    The short name shadowed matplotlib's ``plt``; it will be removed in a later release.
    """
    warnings.warn("fmstats.extreme.plt is deprecated; use probabilistic_label_tree (the short "
                  "name shadows matplotlib's `plt`).", FutureWarning, stacklevel=2)
    return probabilistic_label_tree(X, Y, **kwargs)


# ---------------------------------------------------------------------------
# sparse kernels for prediction
# ---------------------------------------------------------------------------
def row_entries(X: sp.csr_matrix, rows: np.ndarray):
    """(local row, column, value) of the stored entries of ``X[rows]``, without scipy's
    fancy indexing (which rescans the whole index array on every call)."""
    starts = X.indptr[rows]
    lens = X.indptr[rows + 1] - starts
    before = np.cumsum(lens) - lens
    pos = np.repeat(starts - before, lens) + np.arange(int(lens.sum()))
    return np.repeat(np.arange(rows.size), lens), X.indices[pos], X.data[pos]


def _dot_rows(rl, cols, vals, n_rows, w_idx, w_val, scratch):
    """Dot products of rows (given as entries) with one sparse weight vector."""
    if w_idx.size == 0 or cols.size == 0:
        return np.zeros(n_rows)
    if cols.size * (np.log2(w_idx.size) + 1.0) < 4.0 * w_idx.size:
        loc = np.minimum(np.searchsorted(w_idx, cols), w_idx.size - 1)
        prod = np.where(w_idx[loc] == cols, w_val[loc], 0.0) * vals
    else:
        scratch[w_idx] = w_val
        prod = scratch[cols] * vals
        scratch[w_idx] = 0.0
    return np.bincount(rl, weights=prod, minlength=n_rows)


# ---------------------------------------------------------------------------
# the fitted model and prediction (Algorithm 4)
# ---------------------------------------------------------------------------
class TopK(NamedTuple):
    """Top-k predictions: ``labels`` (n, k) in decreasing probability, ``scores`` (n, k).

    Built by :meth:`PLTResults.predict_topk`, not by users.

    Parameters
    ----------
    labels : ndarray of shape (n, k)
        Label indices per instance, in decreasing probability.
    scores : ndarray of shape (n, k)
        Their marginal probabilities.
    """

    labels: np.ndarray
    scores: np.ndarray


class PLTResults(Persistable):
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
        Newton iterations and convergence flag per node (0 and True for constant nodes).
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
        return self.tree.n_labels

    @property
    def n_features(self) -> int:
        return int(self.weights.shape[1])

    def __repr__(self) -> str:
        s, T = self.settings, self.tree
        kind = "given" if isinstance(s["tree"], LabelTree) else s["tree"]
        return (f"<PLTResults: {self.n_labels} labels, {T.n_nodes} nodes ({kind} tree, arity "
                f"{s['arity']}, height {T.height}), {self.n_features} features, "
                f"{self.weights.nnz} weights, C={num(s['C'])}, {self.n_obs} rows; "
                f"{int((~self.converged).sum())} nodes not converged>")

    def refit(self, X: Any, Y: Any) -> "PLTResults":
        """The same model with the same settings on other data: the recorded call again.

        Parameters
        ----------
        X : scipy.sparse matrix or 2-d array of shape (n, d)
            Features.
        Y : scipy.sparse matrix or 2-d array of shape (n, m)
            0/1 labels.

        Returns
        -------
        PLTResults
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

    def _children_proba(self, X: sp.csr_matrix, rows: np.ndarray, nodes: np.ndarray):
        """For pairs (rows[i], nodes[i]) of internal nodes: (pair index, child, eta_T(x, child))
        for every child, grouped by node.

        Per node, the dot products of its rows with each child's weights are computed
        either by scattering the child's weights into a dense scratch vector (cost
        ~ the child's support) or by binary search of the rows' columns in the
        child's sorted weight indices (cost ~ nnz of the rows x log support),
        whichever is cheaper.
        """
        T, W, b = self.tree, self.weights, self.intercepts
        order = np.argsort(nodes, kind="stable")
        nodes_s = nodes[order]
        uniq, starts = np.unique(nodes_s, return_index=True)
        ends = np.append(starts[1:], nodes_s.size)
        scratch = np.zeros(self.n_features)
        pairs, kids, probs = [], [], []
        for u, lo, hi in zip(uniq, starts, ends):
            cs, nc = int(T.child_start[u]), int(T.n_children[u])
            group = order[lo:hi]
            rl, cols, vals = row_entries(X, rows[group])
            S = np.empty((hi - lo, nc))
            for c in range(nc):
                a, z = W.indptr[cs + c], W.indptr[cs + c + 1]
                S[:, c] = _dot_rows(rl, cols, vals, hi - lo, W.indices[a:z], W.data[a:z],
                                    scratch)
            probs.append(expit(S + b[cs:cs + nc]).ravel())
            pairs.append(np.repeat(group, nc))
            kids.append(np.tile(np.arange(cs, cs + nc), hi - lo))
        if not pairs:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return np.concatenate(pairs), np.concatenate(kids), np.concatenate(probs)

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
    def predict_proba_sparse(self, X: Any, threshold: Any) -> SPE:
        """Sparse probability estimates by threshold pruning (Algorithm 4).

        Parameters
        ----------
        X : sparse matrix (n, d)
            Features, with the d columns of the training data.
        threshold : float or array (m,) in [0, 1]
            Per-label thresholds tau_j.  A node is expanded only when its path
            probability exceeds tau_t = min over its children (tau_j at a leaf).

        Returns
        -------
        SPE
            The marginals eta(x, j) > tau_j (stored in a CSR matrix), with
            thresholds tau: exactly the entries of :meth:`predict_marginals`
            above the thresholds.
        """
        X = self._check(X)
        tau_label = check_thresholds("threshold", threshold, self.n_labels)
        r, j, v = self._descend(X, np.arange(X.shape[0]),
                                node_tau=self.tree.node_thresholds(tau_label))
        mat = sp.csr_array((v, (r, j)), shape=(X.shape[0], self.n_labels))
        mat.sort_indices()
        return SPE(mat, tau_label)

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
            pair, kids, pc = self._children_proba(X, rows[idx], nodes)
            pp = p[pair] * pc
            keep = (pp > node_tau[kids]) & (pp > row_tau[idx[pair]])
            idx, nodes, p = idx[pair[keep]], kids[keep], pp[keep]
        if not out_r:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        return tuple(np.concatenate(a) for a in (out_r, out_j, out_p))

    def predict_topk(self, X: Any, k: int = 5, method: str = "threshold") -> TopK:
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

        Returns
        -------
        TopK
            ``labels`` (n, k) and ``scores`` (n, k), in decreasing probability.
        """
        X = self._check(X)
        k = int(check_scalar("k", k, low=1, high=self.n_labels, integer=True))
        check_choice("method", method, ("heap", "threshold"))
        if method == "heap":
            return self._topk_heap(X, k)
        n = X.shape[0]
        labels = np.full((n, k), -1, dtype=np.int64)
        scores = np.zeros((n, k))
        pending, tau = np.arange(n), 0.1
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
        return TopK(labels, scores)

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
            pair, kids, pc = self._children_proba(X, active[inner], nodes[inner])
            owner = active[inner][pair]
            for i, c, v in zip(owner.tolist(), kids.tolist(), (p[inner][pair] * pc).tolist()):
                heapq.heappush(heaps[i], (-v, c))
            active = active[found[active] < k]
        return TopK(labels, scores)


# ---------------------------------------------------------------------------
# Precision@k
# ---------------------------------------------------------------------------
def precision_at_k(Y: Any, topk: Any, k: Any = (1, 3, 5)) -> float | dict[int, float]:
    """Precision@k: the mean over instances of ``|top-k labels ∩ true labels| / k``.

    Parameters
    ----------
    Y : sparse matrix or 2-d array (n, m) of 0/1
        True labels.
    topk : TopK or array of int, shape (n, K)
        Predicted labels per instance in decreasing score (as from
        :meth:`PLTResults.predict_topk`); -1 marks no prediction.
    k : int or sequence of int, default (1, 3, 5)
        Each at most K.

    Returns
    -------
    float or dict
        A float for an integer ``k``, else a dict ``{k: P@k}``.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.extreme import precision_at_k
    >>> Y = np.array([[1, 0, 1], [0, 1, 0]])
    >>> topk = np.array([[0, 2], [0, 1]])   # label indices, best first
    >>> precision_at_k(Y, topk, k=(1, 2))
    {1: 0.5, 2: 0.75}
    """
    Y = check_label_matrix(Y)
    n, m = Y.shape
    pred = np.asarray(topk.labels if isinstance(topk, TopK) else topk)
    if pred.ndim != 2 or pred.shape[0] != n or not np.issubdtype(pred.dtype, np.integer):
        raise InvalidArgumentError(
            f"`topk` must be an integer array with one row per instance of `Y` ({n}); got "
            f"{describe(pred)}.")
    if ((pred < -1) | (pred >= m)).any():
        raise InvalidArgumentError(f"`topk` must hold label indices in [0, {m}) or -1.")
    ks = [k] if np.ndim(k) == 0 else list(k)
    for kk in ks:
        check_scalar("k", kk, low=1, high=pred.shape[1], integer=True)
    keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(Y.indptr)) * m + Y.indices
    query = np.arange(n, dtype=np.int64)[:, None] * m + pred
    pos = np.minimum(np.searchsorted(keys, query), max(keys.size - 1, 0))
    hit = (pred >= 0) & (keys[pos] == query) if keys.size else np.zeros(pred.shape, bool)
    cum = np.cumsum(hit, axis=1)
    res = {int(kk): float(cum[:, kk - 1].mean() / kk) for kk in ks}
    return res[int(k)] if np.ndim(k) == 0 else res
