"""Training the nodes of a label tree on several threads (Algorithm 3's work, scheduled).

Every node of a probabilistic label tree is trained on the rows positive at its parent
(Algorithm 3), so all node problems are independent: which thread trains a node, and
when, cannot change it.  :func:`train_nodes` cuts the work into *units* and runs them in
threads (joblib's threading backend; the compiled trainer of ``_nodes.py``
releases the GIL):

* a parent's rows are gathered once (``gather_rows``) and
  shared by all its units; the last unit to finish frees them;
* a unit is one compiled call: a group of siblings trained side by side (pre-leaves, and
  pairs on rows beyond the caches; groups capped at :data:`_SIBLING_BYTES` of per-row
  state, as before) or one child trained alone;
* units run largest first (longest processing time first, by an estimate of their cost),
  the units of one parent one after the other, and an idle thread takes the next unit, so
  the two threads stay busy to the end and at most ``n_jobs`` parents' rows are held at
  once.

The model does not depend on ``n_jobs``, on the order or on the grouping: every child of a
parent visits the rows in one order seeded by the parent's first fitted child, and
side-by-side training computes exactly what one-by-one training computes
(``tests/test_plt.py``).

Memory beyond the data and the model: per thread, the gathered rows of one parent (8
bytes per non-zero of float32 data, 12 of float64, and 8 per row) and one unit's state
(at most :data:`_SIBLING_BYTES` for the siblings' dual variables and targets, plus their
weights, 16 bytes per column and sibling).

A user's ``node_learner`` (a Python callable) is run per parent through
``run_tasks`` (joblib's default backend).
"""
from __future__ import annotations

import heapq
import threading

import numpy as np
import scipy.sparse as sp

from .._utils.parallel import run_tasks

__all__ = ["train_nodes"]

# Siblings trained side by side (one pass over a row for all of them): parents with 3 or
# more children to fit (pre-leaves), and pairs when the parent's rows hold at least
# _SIBLING_PAIR_NNZ non-zeros (beyond the caches, where one pass for both saves memory
# traffic; below it the pair is as fast one by one); per-row state at most _SIBLING_BYTES.
_SIBLING_BYTES = 1 << 28
_SIBLING_PAIR_NNZ = 4_000_000
# The cost of a unit, for the order: non-zeros of the parent's rows x (children + _COST_BASE).
# Measured on the RCV1-like problem at 1/10 of seed 002's size: a pair of binary children
# costs as much per non-zero as ~20 pre-leaf siblings side by side (more epochs, no
# shared pass), i.e. cost ~ nnz (18 + children).
_COST_BASE = 16.0


class _ParentRows:
    """A parent's rows gathered once for all its units (thread-safe), freed after the last."""

    def __init__(self, X: sp.csr_matrix, rows: np.ndarray, n_units: int):
        self.X, self.rows, self.left = X, rows, n_units
        self.data = None
        self.lock = threading.Lock()

    def acquire(self):
        with self.lock:
            if self.data is None:
                from ._nodes import gather_rows

                X = self.X
                self.data = gather_rows(X.indptr, X.indices, X.data, X.shape[1], self.rows)
            return self.data

    def release(self) -> None:
        with self.lock:
            self.left -= 1
            if self.left == 0:
                self.data = None


def _fit_unit(parent: _ParentRows, Z: sp.csc_matrix, nodes: np.ndarray, side_by_side: bool,
              seed: int, C: float, tol: float, max_iter: int, weight_threshold: float):
    """Worker: one unit (children ``nodes`` of one parent) -> the part layout of
    :func:`_assemble` (nodes, weight pointer, columns, values, intercepts, epochs, flags)."""
    from ._nodes import fit_unit, sparse_weights

    indptr, indices, data, srt, by_col = parent.acquire()
    try:
        W, it, ok = fit_unit(indptr, indices, data, srt.shape[0], parent.rows, Z.indptr,
                             Z.indices, nodes, side_by_side, C, tol, max_iter, seed)
        ptr, cols, vals = sparse_weights(W, srt, by_col, weight_threshold)
        bias = W[:, -1].copy()
    finally:
        parent.release()
    return nodes, ptr, cols, vals, bias, it, ok


def _plan(X: sp.csr_matrix, Z: sp.csc_matrix, T, C, tol, max_iter, weight_threshold):
    """The constant nodes (one part) and the units in their order: parents by decreasing
    cost, each parent's units together (largest first)."""
    n = X.shape[0]
    z_count = np.diff(Z.indptr)
    inner = np.flatnonzero(T.n_children > 0)
    node_nnz = np.bincount(np.repeat(np.arange(T.n_nodes), z_count),
                           weights=np.diff(X.indptr)[Z.indices], minlength=T.n_nodes)
    # the virtual parent -1 of the root: all rows
    parents = np.concatenate(([-1], inner))
    first = np.concatenate(([0], T.child_start[inner]))
    count = np.concatenate(([1], T.n_children[inner]))
    n_rows = np.concatenate(([n], z_count[inner]))
    nnz = np.concatenate(([float(X.nnz)], node_nnz[inner]))
    const_nodes, const_bias = [], []
    jobs = []
    for u in range(parents.size):
        kids = np.arange(first[u], first[u] + count[u], dtype=np.int64)
        npos = z_count[kids]
        nr = int(n_rows[u])
        fixed = (npos == 0) | (npos == nr)
        const_nodes.append(kids[fixed])
        const_bias.append(np.where((npos[fixed] == nr) & (nr > 0), np.inf, -np.inf))
        fit = kids[~fixed]
        if fit.size == 0:
            continue
        side = fit.size >= 3 or (fit.size == 2 and nnz[u] >= _SIBLING_PAIR_NNZ)
        width = max(1, min(fit.size, _SIBLING_BYTES // (17 * nr))) if side else 1
        groups = [fit[g:g + width] for g in range(0, fit.size, width)]
        rows = (np.arange(n, dtype=np.int64) if parents[u] < 0 else
                Z.indices[Z.indptr[parents[u]]:Z.indptr[parents[u] + 1]].astype(np.int64))
        jobs.append((float(nnz[u]) * (fit.size + _COST_BASE * len(groups)), rows, groups,
                     side, int(fit[0])))
    units = []
    for _, rows, groups, side, seed in sorted(jobs, key=lambda j: -j[0]):
        parent = _ParentRows(X, rows, len(groups))
        units += [(parent, Z, g, side, seed, C, tol, max_iter, weight_threshold)
                  for g in groups]
    nodes = np.concatenate(const_nodes)
    k = nodes.size
    const = (nodes, np.zeros(k + 1, dtype=np.int64), np.zeros(0, np.int32), np.zeros(0),
             np.concatenate(const_bias).astype(float), np.zeros(k, dtype=np.int64),
             np.ones(k, dtype=bool))
    return const, units


def train_nodes(X: sp.csr_matrix, Z: sp.csc_matrix, T, learner, C: float, tol: float,
                max_iter: int, weight_threshold: float, n_jobs, progress):
    """All node classifiers of the label tree ``T``: (W (CSR, T x d), intercepts, epochs,
    converged).

    ``Z`` (CSC, rows x nodes): Z[i, t] = 1 when some label below node t is positive for
    row i.  ``learner`` None: the compiled logistic trainer with ``C``, ``tol``,
    ``max_iter``; else a callable ``f(X_node, z) -> (coef, intercept)``.
    """
    if learner is not None:
        return _train_with_learner_all(X, Z, T, learner, weight_threshold, n_jobs, progress)
    if not Z.has_sorted_indices:
        Z = Z.sorted_indices()
    const, units = _plan(X, Z, T, C, tol, max_iter, weight_threshold)
    done = run_tasks(_fit_unit, units, n_jobs=n_jobs,
                     progress=progress, desc="PLT nodes", blas_threads=None,
                     backend="threading")
    return _assemble([const] + done, T.n_nodes, X.shape[1], n_jobs)


# ---------------------------------------------------------------------------
# a user's node learner
# ---------------------------------------------------------------------------
def _fit_node(Xn: sp.csr_matrix, z: np.ndarray, learner):
    """One node with a user's learner: a constant model when ``z`` has one class (or no
    rows), else the learner's fit."""
    if z.size == 0 or z.min() == z.max():
        b = np.inf if z.size and z[0] == 1 else -np.inf
        return np.zeros(Xn.shape[1]), b
    w, b = learner(Xn, z)
    return np.asarray(w, dtype=float).ravel(), float(b)


def _compress_columns(Xp: sp.csr_matrix) -> tuple[np.ndarray, sp.csr_matrix]:
    """The non-zero columns of ``Xp`` and ``Xp`` restricted to them (float64)."""
    seen = np.zeros(Xp.shape[1], dtype=bool)
    seen[Xp.indices] = True
    cols = np.flatnonzero(seen)
    position = np.zeros(Xp.shape[1], dtype=np.int32)
    position[cols] = np.arange(cols.size, dtype=np.int32)
    return cols, sp.csr_matrix((Xp.data.astype(np.float64), position[Xp.indices], Xp.indptr),
                               shape=(Xp.shape[0], cols.size))


def _train_with_learner(X, Z, T, parents, learner, weight_threshold):
    """Worker: the children of ``parents`` (-1: the root) by a user's learner (one call per
    node), in the part layout of :func:`_assemble`."""
    nodes, cols_out, vals_out, bias = [], [], [], []
    for par in parents:
        if par < 0:
            rows, kids = np.arange(X.shape[0]), np.array([0])
        else:
            rows = np.sort(Z.indices[Z.indptr[par]:Z.indptr[par + 1]])
            kids = np.arange(T.child_start[par], T.child_start[par] + T.n_children[par])
        cols, Xn = _compress_columns(X[rows])
        for node in kids:
            z = np.isin(rows, Z.indices[Z.indptr[node]:Z.indptr[node + 1]]).astype(float)
            w, b = _fit_node(Xn if z.min() != z.max() else Xn[:, :0], z, learner)
            keep = np.abs(w) > weight_threshold if weight_threshold > 0 else w != 0
            nodes.append(int(node))
            cols_out.append(cols[keep] if w.size else cols[:0])
            vals_out.append(w[keep])
            bias.append(b)
    k = len(nodes)
    ptr = np.concatenate(([0], np.cumsum([c.size for c in cols_out]))).astype(np.int64)
    return (np.array(nodes, dtype=np.int64), ptr,
            np.concatenate(cols_out).astype(np.int32) if k else np.zeros(0, np.int32),
            np.concatenate(vals_out) if k else np.zeros(0), np.array(bias, dtype=float),
            np.zeros(k, dtype=np.int64), np.ones(k, dtype=bool))


def _batches(units: list, costs: np.ndarray, n_batches: int) -> list[list]:
    """Longest-processing-time-first assignment of units to ``n_batches`` bins."""
    bins: list[list] = [[] for _ in range(n_batches)]
    heap = [(0.0, i) for i in range(n_batches)]
    for u in np.argsort(-costs, kind="stable"):
        load, i = heapq.heappop(heap)
        bins[i].append(units[u])
        heapq.heappush(heap, (load + float(costs[u]), i))
    return [b for b in bins if b]


def _train_with_learner_all(X, Z, T, learner, weight_threshold, n_jobs, progress):
    """The user's learner over batches of parents in joblib's default backend (processes)."""
    from joblib import effective_n_jobs

    workers = effective_n_jobs(n_jobs) if n_jobs is not None else effective_n_jobs()
    parents = np.concatenate(([-1], np.flatnonzero(T.n_children > 0)))
    node_nnz = np.bincount(np.repeat(np.arange(T.n_nodes), np.diff(Z.indptr)),
                           weights=np.diff(X.indptr)[Z.indices], minlength=T.n_nodes)
    costs = np.concatenate(([float(X.nnz)],
                            node_nnz[parents[1:]] * T.n_children[parents[1:]])) + 1.0
    batches = _batches(list(parents), costs, max(1, min(parents.size, 8 * workers)))
    done = run_tasks(_train_with_learner, [(X, Z, T, np.array(bt, dtype=np.int64), learner,
                                            weight_threshold) for bt in batches],
                     n_jobs=n_jobs, progress=progress, desc="PLT nodes", blas_threads=1)
    return _assemble(done, T.n_nodes, X.shape[1], n_jobs)


# ---------------------------------------------------------------------------
# the model's arrays from the workers' parts
# ---------------------------------------------------------------------------
def _scatter(part, indptr, out_cols, out_vals):
    """Worker: one part's node weights into their rows of the model (disjoint rows)."""
    from ._nodes import scatter_rows

    return scatter_rows(part[0], part[1], part[2], part[3], indptr, out_cols, out_vals)


def _assemble(parts, n_nodes: int, n_features: int, n_jobs):
    """The node weights (CSR, sorted indices), intercepts, epochs and flags of all nodes
    from the workers' parts (each: nodes, pointer, columns, values, intercepts, epochs,
    flags); the weights are copied to their rows part by part in parallel threads."""
    nodes = np.concatenate([p[0] for p in parts])
    order = np.argsort(nodes, kind="stable")
    if not np.array_equal(nodes[order], np.arange(n_nodes)):  # pragma: no cover - a bug
        raise RuntimeError("the label tree's nodes were not all trained exactly once")
    lens = np.zeros(n_nodes, dtype=np.int64)
    lens[nodes] = np.concatenate([np.diff(p[1]) for p in parts])
    indptr = np.concatenate(([0], np.cumsum(lens)))
    out_cols = np.empty(int(indptr[-1]), dtype=np.int32)
    out_vals = np.empty(int(indptr[-1]))
    run_tasks(_scatter, [(p, indptr, out_cols, out_vals) for p in parts], n_jobs=n_jobs,
              progress=False, blas_threads=None, backend="threading")
    W = sp.csr_matrix((out_vals, out_cols, indptr), shape=(n_nodes, n_features))
    W.has_sorted_indices = True   # every worker emits a node's columns in increasing order
    out = [np.concatenate([p[k] for p in parts])[order] for k in (4, 5, 6)]
    return W, out[0], out[1], out[2].astype(bool)
