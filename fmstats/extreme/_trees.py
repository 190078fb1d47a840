"""Label trees for probabilistic label trees (seed 002, section 5.2).

A :class:`LabelTree` holds the m labels as leaves, numbered breadth first so
that a node's children are consecutive and every parent precedes its
children.  :func:`label_tree` builds a random complete b-ary tree (the
paper's experiments) or a tree by hierarchical balanced k-means on label
centroids.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_choice, check_random_state, check_scalar, describe
from ..exceptions import InvalidArgumentError

__all__ = ["LabelTree", "label_tree", "TREES"]

TREES = ("random", "balanced-kmeans")


def check_arity(arity: Any) -> int:
    if isinstance(arity, bool) or not isinstance(arity, (int, np.integer)) or arity < 2:
        raise InvalidArgumentError(
            f"`arity` (the number of children of a tree node) must be an integer >= 2; "
            f"got {describe(arity)}.")
    return int(arity)



# ---------------------------------------------------------------------------
# the label tree
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LabelTree:
    """A label tree with nodes numbered breadth first (node 0 is the root).

    Usually built by :func:`label_tree`; every parameter is kept as the attribute
    of the same name.

    Parameters
    ----------
    parent : ndarray (T,)
        Parent of each node (-1 for the root); ``parent[t] < t``.
    child_start, n_children : ndarray (T,)
        The children of ``t`` are ``child_start[t] .. child_start[t] + n_children[t] - 1``
        (``child_start`` is -1 for leaves).
    label : ndarray (T,)
        The label of a leaf, -1 for internal nodes.
    leaf : ndarray (m,)
        The leaf of each label.
    depth : ndarray (T,)
        Depth of each node (the root has depth 0).
    """

    parent: np.ndarray
    child_start: np.ndarray
    n_children: np.ndarray
    label: np.ndarray
    leaf: np.ndarray
    depth: np.ndarray

    @property
    def n_nodes(self) -> int:
        """The number of nodes."""
        return int(self.parent.shape[0])

    @property
    def n_labels(self) -> int:
        """The number of labels (leaves)."""
        return int(self.leaf.shape[0])

    @property
    def height(self) -> int:
        """The depth of the deepest node (the root has depth 0)."""
        return int(self.depth.max())

    def problem(self) -> str | None:
        """Why the arrays are not a label tree as :func:`label_tree` builds them, or None: the
        compiled descent of :class:`~fmstats.extreme.ProbabilisticLabelTreeResults` indexes with
        them unchecked,
        so a tree read from a results file is checked first.

        Returns
        -------
        str or None
            The reason, or None.
        """
        arrays = (self.parent, self.child_start, self.n_children, self.label, self.depth)
        if not all(isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "iu"
                   for a in arrays + (self.leaf,)):
            return "the tree's arrays are not 1-d integer arrays"
        T, m = self.parent.shape[0], self.leaf.shape[0]
        if T == 0 or any(a.shape[0] != T for a in arrays):
            return "the tree's node arrays do not have one entry per node"
        inner = self.child_start >= 0
        ok = (np.all(self.parent < np.arange(T)) and self.parent[0] == -1
              and np.all(self.parent[1:] >= 0)
              and np.all(self.child_start[inner] >= 1) and np.all(self.n_children >= 0)
              and np.all(self.child_start[inner] + self.n_children[inner] <= T)
              and np.all(self.n_children[~inner] == 0) and np.all(self.child_start[~inner] == -1)
              and np.all((self.label >= -1) & (self.label < m))
              and np.all((self.leaf >= 0) & (self.leaf < T))
              and self.depth[0] == 0 and np.all(np.diff(self.depth) >= 0))
        return None if ok else "the tree's nodes do not refer to nodes and labels it has"

    @property
    def arity(self) -> int:
        """The largest number of children of a node."""
        return int(self.n_children.max()) if self.n_nodes > 1 else 0

    def path(self, j: int) -> np.ndarray:
        """Path(j): the nodes from the root to the leaf of label ``j``.

        Parameters
        ----------
        j : int
            A label, in [0, m).

        Returns
        -------
        ndarray of int
            The nodes, root first.
        """
        nodes = [int(self.leaf[j])]
        while self.parent[nodes[-1]] >= 0:
            nodes.append(int(self.parent[nodes[-1]]))
        return np.array(nodes[::-1])

    def path_matrix(self) -> sp.csr_matrix:
        """The (m, T) 0/1 matrix with a 1 where node t lies on Path(j).

        Returns
        -------
        scipy.sparse.csr_matrix
            The (m, T) matrix.
        """
        cur = self.leaf.copy()
        rows, cols = [], []
        labels = np.arange(self.n_labels)
        while cur.size:
            rows.append(labels)
            cols.append(cur)
            up = self.parent[cur]
            keep = up >= 0
            labels, cur = labels[keep], up[keep]
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        return sp.csr_matrix((np.ones(rows.size), (rows, cols)),
                             shape=(self.n_labels, self.n_nodes))

    def level_ranges(self) -> list[tuple[int, int]]:
        """``[(lo, hi), ...]``: the nodes of depth d are ``lo .. hi - 1``.

        Returns
        -------
        list of tuple of int
            One ``(lo, hi)`` pair per depth.
        """
        bounds = np.searchsorted(self.depth, np.arange(self.height + 2))
        return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]

    def node_thresholds(self, label_thresholds: np.ndarray) -> np.ndarray:
        """Per-node thresholds: tau of the label at a leaf, min over the children inside.

        Parameters
        ----------
        label_thresholds : ndarray of shape (m,)
            The threshold tau_j of each label.

        Returns
        -------
        ndarray of shape (T,)
            The threshold of each node.
        """
        tau = np.full(self.n_nodes, np.inf)
        leaves = self.label >= 0
        tau[leaves] = label_thresholds[self.label[leaves]]
        for lo, hi in reversed(self.level_ranges()):
            inner = np.arange(lo, hi)[self.n_children[lo:hi] > 0]
            if inner.size:
                first = self.child_start[inner]
                end = first[-1] + self.n_children[inner[-1]]
                tau[inner] = np.minimum.reduceat(tau[first[0]:end], first - first[0])
        return tau


def _tree_from_splits(labels: np.ndarray, arity: int,
                      split: Callable[[np.ndarray], list[np.ndarray]],
                      max_leaves: int = 1) -> LabelTree:
    """Breadth-first construction: a set of more than ``max(arity, max_leaves)`` labels
    is split into ``arity`` parts by ``split``; smaller sets get one leaf per label."""
    parent, child_start, n_children, label, depth = [], [], [], [], []
    queue = deque([(np.asarray(labels), -1, 0)])
    while queue:
        part, par, d = queue.popleft()
        t = len(parent)
        parent.append(par)
        depth.append(d)
        if par >= 0 and child_start[par] < 0:
            child_start[par] = t
        child_start.append(-1)
        if part.size == 1:
            label.append(int(part[0]))
            n_children.append(0)
            continue
        parts = [part[i:i + 1] for i in range(part.size)] if part.size <= max(arity, max_leaves) \
            else split(part)
        label.append(-1)
        n_children.append(len(parts))
        queue.extend((p, t, d + 1) for p in parts)
    label = np.array(label, dtype=np.int64)
    leaf = np.empty(int((label >= 0).sum()), dtype=np.int64)
    leaf[label[label >= 0]] = np.flatnonzero(label >= 0)
    as_int = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    return LabelTree(as_int(parent), as_int(child_start), as_int(n_children), label, leaf,
                     as_int(depth))


def _balanced_assign(sim: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Assign rows to columns (clusters) maximising similarity with cluster sizes ``sizes``.

    Two clusters: exact (sort by the difference of similarities).  More: greedy rounds
    in which every unassigned row proposes to its best non-full cluster and each cluster
    accepts its most similar proposers up to its remaining capacity.
    """
    n, k = sim.shape
    if k == 2:
        order = np.argsort(sim[:, 1] - sim[:, 0], kind="stable")
        out = np.ones(n, dtype=np.int64)
        out[order[:sizes[0]]] = 0
        return out
    out = np.full(n, -1, dtype=np.int64)
    cap = np.asarray(sizes, dtype=np.int64).copy()
    todo = np.arange(n)
    while todo.size:
        s = sim[todo].copy()
        s[:, cap == 0] = -np.inf
        best = np.argmax(s, axis=1)
        order = np.lexsort((-s[np.arange(todo.size), best], best))
        b = best[order]
        rank = np.arange(b.size) - np.searchsorted(b, b)
        accept = rank < cap[b]
        out[todo[order[accept]]] = b[accept]
        cap -= np.bincount(b[accept], minlength=k)
        todo = todo[order[~accept]]
    return out


def _kmeans_split(centroids: sp.csr_matrix, arity: int, rng: np.random.Generator,
                  max_iter: int, tol: float) -> Callable[[np.ndarray], list[np.ndarray]]:
    """A split function: balanced spherical k-means of the labels' centroids."""

    def split(part: np.ndarray) -> list[np.ndarray]:
        sub = centroids[part]
        # the columns the part uses, renumbered in increasing order (np.unique's
        # inverse, by a mark array: O(nnz + d), not a sort of the non-zeros)
        seen = np.zeros(centroids.shape[1] + 1, dtype=np.int64)
        seen[sub.indices + 1] = 1
        rank = np.cumsum(seen)
        sub = sp.csr_matrix((sub.data, rank[sub.indices], sub.indptr),
                            shape=(part.size, max(int(rank[-1]), 1)))
        sizes = np.array([len(a) for a in np.array_split(np.arange(part.size), arity)])
        centres = sub[rng.choice(part.size, arity, replace=False)].toarray()
        assign, previous = None, -np.inf
        for _ in range(max_iter):
            sim = np.asarray(sub @ centres.T)
            assign = _balanced_assign(sim, sizes)
            objective = float(sim[np.arange(part.size), assign].sum())
            member = sp.csr_matrix((np.ones(part.size), (assign, np.arange(part.size))),
                                   shape=(arity, part.size))
            centres = np.asarray((member @ sub).todense())
            norms = np.linalg.norm(centres, axis=1, keepdims=True)
            centres /= np.where(norms > 0, norms, 1.0)
            if objective - previous <= tol * abs(objective):
                break
            previous = objective
        return [part[assign == c] for c in range(arity)]

    return split


def label_tree(m: int, arity: int = 2, tree: str = "random", *, X: Any = None, Y: Any = None,
               random_state: Any = None, kmeans_max_iter: int = 50,
               kmeans_tol: float = 1e-4, max_leaves: int | None = None) -> LabelTree:
    """Build a label tree over ``m`` labels.

    Parameters
    ----------
    m : int
        Number of labels (leaves).
    arity : int, default 2
        Largest number of children of a node (b); at least 2.
    tree : {"random", "balanced-kmeans"}
        ``"random"``: a random permutation of the labels split recursively into
        ``arity`` parts of equal size (within one): a complete b-ary tree.
        ``"balanced-kmeans"``: the labels' centroids (the L2-normalised sums of
        the feature rows of their positive examples; needs ``X`` and ``Y``) are
        split recursively by spherical k-means into ``arity`` clusters of equal
        size (within one).
    X : scipy.sparse matrix or 2-d array of shape (n, d), optional
        Features of the training data (``"balanced-kmeans"`` only).
    Y : scipy.sparse matrix or 2-d array of shape (n, m), optional
        0/1 labels of the training data (``"balanced-kmeans"`` only).
    random_state : None, int or numpy.random.Generator
        The permutation, or the k-means starting centres.
    kmeans_max_iter : int, default 50
        Iterations per split of ``"balanced-kmeans"``.
    kmeans_tol : float, default 1e-4
        A split's k-means stops when its objective (the summed similarity of the
        centroids to their cluster centres) improves by at most this fraction.
    max_leaves : int, optional
        A set of at most ``max(arity, max_leaves)`` labels is not split further: its
        node gets one leaf child per label (a "pre-leaf"; napkinXC's ``max_leaves``).
        1 gives a tree in which every inner node has at most ``arity`` children.
        None: 100 for ``"balanced-kmeans"`` (as napkinXC), 1 for ``"random"`` (the
        complete b-ary trees of the paper).

    Returns
    -------
    LabelTree
        The tree.
    """
    m = int(check_scalar("m", m, low=1, integer=True))
    arity = check_arity(arity)
    check_choice("tree", tree, TREES)
    if max_leaves is None:
        max_leaves = 100 if tree == "balanced-kmeans" else 1
    max_leaves = int(check_scalar("max_leaves", max_leaves, low=1, integer=True))
    rng = check_random_state(random_state)
    if tree == "random":
        return _tree_from_splits(rng.permutation(m), arity, lambda s: np.array_split(s, arity),
                                 max_leaves)
    if X is None or Y is None:
        raise InvalidArgumentError('`tree="balanced-kmeans"` needs the training data `X` and `Y`.')
    max_iter = int(check_scalar("kmeans_max_iter", kmeans_max_iter, low=1, integer=True))
    tol = float(check_scalar("kmeans_tol", kmeans_tol, low=0))
    cent = sp.csr_matrix(sp.csr_matrix(Y, dtype=np.float64).T @ sp.csr_matrix(X, dtype=np.float64))
    norms = np.sqrt(np.asarray(cent.multiply(cent).sum(axis=1)).ravel())
    cent = sp.csr_matrix(sp.diags(np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 0)) @ cent)
    return _tree_from_splits(np.arange(m), arity, _kmeans_split(cent, arity, rng, max_iter, tol),
                             max_leaves)
