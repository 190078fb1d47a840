"""Many L2-regularised logistic regressions at once: the node classifiers of a PLT.

:func:`fit_logistic_blocks` solves, for every (unit, child) pair, the problem that
:func:`fmstats.extreme._label_tree.logistic_l2` solves for one node,

    minimise  (1/n_u) sum_{i in unit u} [log(1 + exp(eta_i)) - z_ic eta_i]
              + ||w_c||^2 / (2 C n_u),      eta_i = x_i w_c + b_c,

(scikit-learn's ``LogisticRegression(C=C)`` objective divided by ``C n_u``; the
intercept is not penalised) for many units together.  A unit is a set of rows of ``X``
(the examples reaching a parent node) with one 0/1 target column per child.  The rows
of all units are stacked into one block-diagonal sparse design whose column block u
holds only the columns that are non-zero among unit u's rows (the other weights are
exactly 0 at the optimum), and all problems share every sparse product: one
``design @ V`` and one ``design.T @ U`` per conjugate-gradient step for all of them.

The solver is a truncated Newton method: per problem, preconditioned conjugate
gradients (Jacobi preconditioner: the Hessian's diagonal, as liblinear's TRON uses) on
the Newton system until the residual, in the norm of the inverse preconditioner, falls
below ``min(0.5, sqrt(|g|))`` times the gradient's, then a
backtracking line search (Armijo).  Every quantity that differs between problems
(step lengths, CG coefficients, stopping) is a vector over problems; problems that
have converged are frozen.  A problem stops when the Euclidean norm of its gradient is
below ``tol``, the rule of :func:`~fmstats.extreme._label_tree.logistic_l2`.

Used by :mod:`fmstats.extreme._label_tree` (training) and by its single-problem
``logistic_l2``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

__all__ = ["row_entries", "BlockFit", "fit_logistic_blocks"]

_ARMIJO = 1e-4
_MAX_HALVINGS = 40


def row_entries(X: sp.csr_matrix, rows: np.ndarray):
    """(local row, column, value) of the stored entries of ``X[rows]``, without scipy's
    fancy indexing (which rescans the whole index array on every call)."""
    starts = X.indptr[rows]
    lens = X.indptr[rows + 1] - starts
    before = np.cumsum(lens) - lens
    pos = np.repeat(starts - before, lens) + np.arange(int(lens.sum()))
    return np.repeat(np.arange(rows.size), lens), X.indices[pos], X.data[pos]


class BlockFit(NamedTuple):
    """The fits of the units, in order: per unit ``cols`` (global column indices of its
    block), ``coef`` (len(cols), k), ``intercept`` (k,), ``n_iter`` (k,), ``converged``
    (k,).  Constant problems (one class or no row) get intercept +-inf and weights 0."""

    cols: list
    coef: list
    intercept: list
    n_iter: list
    converged: list


def _block_design(X: sp.csr_matrix, rows_list: list):
    """The block-diagonal design of the units' rows restricted to their non-zero columns.

    Returns (design CSR (N, P), unit of each stacked row, unit of each block column,
    global column of each block column, column offsets of the blocks)."""
    d = X.shape[1]
    seen = np.zeros(d, dtype=bool)
    position = np.zeros(d, dtype=np.int64)
    idx_parts, val_parts, len_parts, gcols, offsets = [], [], [], [], [0]
    for rows in rows_list:
        rl, cols, vals = row_entries(X, rows)
        seen[cols] = True
        ucols = np.flatnonzero(seen)
        seen[ucols] = False
        position[ucols] = np.arange(ucols.size) + offsets[-1]
        idx_parts.append(position[cols])
        val_parts.append(vals)
        len_parts.append(X.indptr[rows + 1] - X.indptr[rows])
        gcols.append(ucols)
        offsets.append(offsets[-1] + ucols.size)
    lens = np.concatenate(len_parts)
    indptr = np.concatenate(([0], np.cumsum(lens)))
    n_rows = np.array([r.size for r in rows_list])
    n_cols = np.diff(offsets)
    design = sp.csr_matrix((np.concatenate(val_parts).astype(np.float64),
                            np.concatenate(idx_parts), indptr),
                           shape=(int(n_rows.sum()), int(offsets[-1])))
    unit_of_row = np.repeat(np.arange(len(rows_list)), n_rows)
    unit_of_col = np.repeat(np.arange(len(rows_list)), n_cols)
    return design, unit_of_row, unit_of_col, gcols, np.asarray(offsets)


def _indicator(owner: np.ndarray, n_units: int) -> sp.csr_matrix:
    """(n_units, len(owner)) 0/1 matrix: segment sums by owner as one sparse product."""
    return sp.csr_matrix((np.ones(owner.size), owner, np.arange(owner.size + 1)),
                         shape=(owner.size, n_units)).T.tocsr()


def _ranges(offsets: np.ndarray, sel: np.ndarray) -> np.ndarray:
    """The concatenated index ranges ``offsets[u] .. offsets[u + 1] - 1`` of the units sel."""
    lens = offsets[sel + 1] - offsets[sel]
    before = np.cumsum(lens) - lens
    return np.repeat(offsets[sel] - before, lens) + np.arange(int(lens.sum()))


class _Blocks:
    """The stacked problems of some units: the block design and everything per row,
    per column and per unit that the Newton iterations need."""

    def __init__(self, design, uor, uoc, n_u, Z, C, ids):
        U = n_u.size
        self.design, self.uor, self.uoc, self.Z, self.ids, self.C = design, uor, uoc, Z, ids, C
        self.n_u = n_u
        self.designT = design.T.tocsr()
        self.sq = design.multiply(design).T.tocsr()
        self.Srow, self.Scol = _indicator(uor, U), _indicator(uoc, U)
        self.a_row = (1.0 / np.maximum(n_u, 1.0))[uor][:, None]
        self.lam = 1.0 / (C * np.maximum(n_u, 1.0))[:, None]
        self.lam_col = self.lam[uoc]
        self.row_off = np.concatenate(([0], np.cumsum(np.bincount(uor, minlength=U))))
        self.col_off = np.concatenate(([0], np.cumsum(np.bincount(uoc, minlength=U))))

    def take(self, sel: np.ndarray):
        """The blocks of the units ``sel`` (sorted) and the rows and columns they keep."""
        rows, cols = _ranges(self.row_off, sel), _ranges(self.col_off, sel)
        position = np.zeros(self.design.shape[1], dtype=np.int64)
        position[cols] = np.arange(cols.size)
        sub = self.design[rows]
        design = sp.csr_matrix((sub.data, position[sub.indices], sub.indptr),
                               shape=(rows.size, cols.size))
        renumber = np.zeros(self.n_u.size, dtype=np.int64)
        renumber[sel] = np.arange(sel.size)
        return _Blocks(design, renumber[self.uor[rows]], renumber[self.uoc[cols]],
                       self.n_u[sel], self.Z[rows], self.C, self.ids[sel]), rows, cols

    def unit_sum(self, M: np.ndarray) -> np.ndarray:
        """Sums of the rows of M (N, k) by unit: (U, k)."""
        return np.asarray(self.Srow @ M)

    def dot(self, Aw, Bw, ab=None):
        """Per-problem inner products of column-space arrays (plus intercept parts)."""
        out = np.asarray(self.Scol @ (Aw * Bw))
        return out if ab is None else out + ab

    def objective(self, eta, wsq):
        loss = self.unit_sum(self.a_row * (np.logaddexp(0.0, eta) - self.Z * eta))
        return loss + 0.5 * self.lam * wsq

    def gradient(self, eta, W):
        R = (expit(eta) - self.Z) * self.a_row
        Gw = self.designT @ R + self.lam_col * W
        Gb = self.unit_sum(R)
        return Gw, Gb, np.sqrt(self.dot(Gw, Gw, Gb * Gb))


def fit_logistic_blocks(X: sp.csr_matrix, rows_list: list, targets: list, C: float,
                        tol: float, max_iter: int, max_cg: int = 500,
                        compact: float = 0.6) -> BlockFit:
    """Fit the logistic node problems of several units with the same number of children.

    Parameters
    ----------
    X : CSR (n, d), sorted indices
    rows_list : list of int arrays
        The rows of ``X`` of each unit.
    targets : list of 0/1 arrays (len(rows), k)
        One column per child; the same k for all units.
    C, tol, max_iter
        As in :func:`fmstats.extreme._label_tree.logistic_l2` (``max_iter``: Newton iterations).
    max_cg : int
        Conjugate-gradient steps per Newton iteration at most.
    compact : float
        When the units with an unconverged problem fall below this fraction of the
        units in work, the others are set aside (their blocks leave the design).
    """
    U = len(rows_list)
    k = targets[0].shape[1]
    n_u = np.array([r.size for r in rows_list], dtype=np.float64)
    Z = np.concatenate([np.asarray(t, dtype=np.float64) for t in targets])
    design, uor, uoc, gcols, offsets = _block_design(X, rows_list)
    B = _Blocks(design, uor, uoc, n_u, Z, C, np.arange(U))
    positives = B.unit_sum(Z)
    constant = (positives == 0) | (positives == n_u[:, None])
    prior = np.clip(positives / np.maximum(n_u, 1.0)[:, None], 1e-12, 1 - 1e-12)
    b = np.where(constant, 0.0, np.log(prior / (1.0 - prior)))
    W = np.zeros((design.shape[1], k))
    W_out, b_out = W.copy(), b.copy()
    n_iter_out = np.zeros((U, k), dtype=np.int64)
    conv_out = constant.copy()
    cols_in = np.arange(design.shape[1])  # the columns of the original design in work
    eta = b[uor]
    wsq = np.zeros((U, k))
    n_iter = np.zeros((U, k), dtype=np.int64)
    done = constant.copy()
    f = B.objective(eta, wsq)

    def store(sel):
        W_out[cols_in[_ranges(B.col_off, sel)]] = W[_ranges(B.col_off, sel)]
        b_out[B.ids[sel]] = b[sel]
        n_iter_out[B.ids[sel]] = n_iter[sel]
        conv_out[B.ids[sel]] = done[sel]

    for _ in range(max_iter + 1):
        Gw, Gb, gnorm = B.gradient(eta, W)
        done |= gnorm < tol
        busy = ~done.all(axis=1)
        if not busy.any():
            break
        if busy.sum() < compact * busy.size:
            store(np.flatnonzero(~busy))
            sel = np.flatnonzero(busy)
            B, rows, cols = B.take(sel)
            cols_in = cols_in[cols]
            W, Gw, eta = W[cols], Gw[cols], eta[rows]
            b, Gb, gnorm, wsq, f = b[sel], Gb[sel], gnorm[sel], wsq[sel], f[sel]
            done, n_iter = done[sel], n_iter[sel]
        if _ == max_iter:
            break
        live = ~done
        n_iter += live
        s = expit(eta)
        Dw = s * (1.0 - s) * B.a_row
        inv_mw = 1.0 / (B.sq @ Dw + B.lam_col)  # Jacobi preconditioner
        mb = B.unit_sum(Dw)
        inv_mb = np.where(mb > 0, 1.0 / np.where(mb > 0, mb, 1.0), 0.0)
        mask_c = live[B.uoc]
        rw, rb = -Gw * mask_c, -Gb * live
        pw, pb = rw * inv_mw, rb * inv_mb
        dw, db = np.zeros_like(W), np.zeros_like(b)
        ry = B.dot(rw, pw, rb * pb)
        # stop CG when |r|_{M^-1} <= min(0.5, sqrt|g|) |g|_{M^-1} (r = g at the start)
        forcing = np.minimum(0.25, gnorm) * ry
        cg = live.copy()
        for _cg in range(max_cg):
            if not cg.any():
                break
            # stopped problems keep alpha = beta = 0: their p, d and r no longer change
            u = Dw * (B.design @ pw + pb[B.uor])
            hw = B.designT @ u
            hw += B.lam_col * pw
            hb = B.unit_sum(u)
            php = B.dot(pw, hw, pb * hb)
            alpha = np.where(cg, ry / np.where(php > 0, php, 1.0), 0.0)
            alpha_c = alpha[B.uoc]
            dw += alpha_c * pw
            db += alpha * pb
            rw -= alpha_c * hw
            rb -= alpha * hb
            yw, yb = rw * inv_mw, rb * inv_mb
            ry_new = B.dot(rw, yw, rb * yb)
            beta = np.where(cg, ry_new / np.where(ry > 0, ry, 1.0), 0.0)
            pw *= beta[B.uoc]
            pw += yw
            pb = yb + beta * pb
            ry = np.where(cg, ry_new, ry)
            cg &= ry > forcing
        # backtracking line search, one step length per problem
        xd = B.design @ dw + db[B.uor]
        slope = B.dot(Gw, dw, Gb * db)
        wd, dd = B.dot(W, dw), B.dot(dw, dw)
        t = live.astype(np.float64)
        for _ls in range(_MAX_HALVINGS):
            wsq_t = wsq + 2.0 * t * wd + t * t * dd
            eta_t = eta + t[B.uor] * xd
            f_t = B.objective(eta_t, wsq_t)
            ok = ~live | (f_t <= f + _ARMIJO * t * slope + 1e-13 * np.abs(f))
            if ok.all():
                break
            t = np.where(ok, t, 0.5 * t)
        else:
            t = np.where(ok, t, 0.0)
            wsq_t = wsq + 2.0 * t * wd + t * t * dd
            eta_t = eta + t[B.uor] * xd
            f_t = B.objective(eta_t, wsq_t)
        W += t[B.uoc] * dw
        b += t * db
        eta, wsq, f = eta_t, wsq_t, f_t
    store(np.arange(B.n_u.size))
    b_out = np.where(constant, np.where(positives > 0, np.inf, -np.inf), b_out)
    W_out[constant[uoc]] = 0.0
    coef = [W_out[offsets[u]:offsets[u + 1]] for u in range(U)]
    return BlockFit(gcols, coef, list(b_out), list(n_iter_out), list(conv_out))
