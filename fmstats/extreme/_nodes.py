"""The compiled node trainer of probabilistic label trees (numba).

Used by ``_training.py`` and ``_plt.py`` (imported lazily, so ``import fmstats`` does not
load numba).  Every node of a label tree is an L2-regularised logistic regression in
liblinear's form (napkinXC's node model), the bias a feature of value 1 penalised like the
weights:

    min_w  ||w||^2 / 2 + C sum_i log(1 + exp(-s_i w'x_i)),   x_i = (features, 1), s_i = 2 z_i - 1

(scikit-learn's ``LogisticRegression(C=C, solver="liblinear", intercept_scaling=1)``),
solved by dual coordinate descent (Yu, Huang and Lin 2011; liblinear's ``L2R_LR_DUAL``):
every epoch visits the rows in a seeded random order, solves the one-variable dual problem
of each row by a few Newton steps and keeps w = sum_i alpha_i s_i x_i up to date.  It stops
when the largest absolute dual gradient of an epoch is below ``tol`` (see
:func:`fmstats.extreme.logistic_l2`).

:func:`gather_rows` gathers the rows positive at a parent (all rows for the root) into a
local CSR matrix over the columns they use (numbered in order of first appearance, so the
frequent columns' weights sit together in cache; int32 indices, the input's float dtype);
:func:`fit_unit` derives the 0/1 targets of some of its children from the sparse
node-membership matrix Z (rows x nodes, CSC) and fits them; :func:`sparse_weights` keeps
their weights above ``weight_threshold`` (in increasing column order).  All children of a
parent visit the rows in one seeded order.  Siblings with 3 or more children to fit
(pre-leaves), and pairs on rows beyond the caches, are trained side by side by
:func:`fit_siblings`: one pass over a row serves all of them (weights stored p x
siblings, Newton steps in lockstep), each problem with liblinear's own stopping rule, so
the model is the same as one by one.  Everything runs in compiled code with the GIL
released, so threads train disjoint units side by side
(``_training.py`` schedules them).

:func:`expand_children` is the compiled step of pruned prediction (Algorithm 4): the
children of a node are scored for all the rows that reach it with one pass over each
row's entries (the children's weights regrouped by feature).

Why numba and not Cython: ``pip install -e .`` and ``.ci/run`` on a clean clone need no C
compiler with numba (a binary wheel).  Measured in ``benchmarks/extreme/bench_plt.py`` (debtags,
one thread, 2026-11-27), training takes 0.79x napkinXC's C++ (liblinear) time on the same
tree and C, and 0.66x with both libraries' defaults (pre-leaves of 100 labels); on an
RCV1-like problem at a tenth of the seed's size (``benchmarks/extreme/bench_xmlc_scale.py``),
0.56x napkinXC's CPU time.  A Cython build would add an install-time compiler for no
speed to gain.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["fit_logistic", "fit_siblings", "gather_rows", "fit_unit", "sparse_weights",
           "scatter_rows", "expand_children", "rows_csr"]



_AHEAD = 4       # rows ahead whose data the trainers prefetch (the order is random)
# nodes with at least this many children score the features most of them use from dense
# rows of weights (pre-leaves; a binary node gains nothing)
_DENSE_MIN_CHILDREN = 8


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Hint the CPU to fetch ``arr[idx]`` (1-d) into the caches (LLVM's prefetch; never
    faults, changes no value)."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        # read access, high temporal locality, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                          ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@njit(cache=True, nogil=True)
def _fetch_row(indptr, indices, data, r):
    """Prefetch the first cache lines of CSR row ``r``."""
    q = indptr[r]
    last = indices.shape[0] - 1
    if q <= last:
        _prefetch(indices, q)
        _prefetch(data, q)
        _prefetch(indices, min(q + 16, last))
        _prefetch(data, min(q + 16, last))


@njit(cache=True, nogil=True)
def _shuffle(order, state):
    """Fisher-Yates shuffle of ``order`` in place by splitmix64 (liblinear draws its
    order with ``rand()``; any uniform permutation will do).  Returns the new state."""
    for i in range(order.shape[0] - 1, 0, -1):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        r = state
        r = (r ^ (r >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        r = (r ^ (r >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        r = r ^ (r >> np.uint64(31))
        j = np.int64(r % np.uint64(i + 1))
        order[i], order[j] = order[j], order[i]
    return state


@njit(cache=True, nogil=True)
def fit_logistic(indptr, indices, data, p, z, C, tol, max_iter, seed):
    """Dual coordinate descent for the L2 logistic regression of the module docstring on the
    CSR rows (indptr, indices, data) with p columns and 0/1 targets z.  ``data`` may be
    float32 (the products are formed in float64).

    Returns (w of length p + 1 with the bias weight last, epochs, converged).
    """
    n = z.shape[0]
    w = np.zeros(p + 1)
    xsq = np.empty(n)
    ys = np.empty(n)
    alpha = np.empty(n)       # alpha_i in (0, C); C - alpha_i kept separately (no cancellation)
    alpha_c = np.empty(n)
    a0 = min(1e-3 * C, 1e-8)
    for i in range(n):
        s = 1.0               # the bias feature
        y = 2.0 * z[i] - 1.0
        ys[i] = y
        for k in range(indptr[i], indptr[i + 1]):
            d = np.float64(data[k])
            s += d * d
            w[indices[k]] += y * a0 * d
        w[p] += y * a0
        xsq[i] = s
        alpha[i] = a0
        alpha_c[i] = C - a0
    order = np.arange(n)
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    inner_eps = 1e-2
    inner_min = min(1e-8, tol)
    epochs = 0
    converged = False
    while epochs < max_iter:
        state = _shuffle(order, state)
        g_max = 0.0
        newton_steps = 0
        for o in range(n):
            if o + _AHEAD < n:
                r = order[o + _AHEAD]
                _fetch_row(indptr, indices, data, r)
                _prefetch(xsq, r)
                _prefetch(ys, r)
                _prefetch(alpha, r)
                _prefetch(alpha_c, r)
            i = order[o]
            y = ys[i]
            k0, k1 = indptr[i], indptr[i + 1]
            ywx = w[p]
            for k in range(k0, k1):
                ywx += np.float64(data[k]) * w[indices[k]]
            ywx *= y
            qa = xsq[i]
            # the sub-problem in the smaller of (alpha_i, C - alpha_i), for accuracy
            if 0.5 * qa * (alpha_c[i] - alpha[i]) + ywx < 0.0:
                old, sign = alpha_c[i], -1.0
            else:
                old, sign = alpha[i], 1.0
            t = old
            if C - t < 0.5 * C:
                t = 0.1 * t
            b = sign * ywx
            gp = qa * (t - old) + b + math.log(t / (C - t))
            g_max = max(g_max, abs(gp))
            steps = 0
            while steps <= 100 and abs(gp) >= inner_eps:
                nt = t - gp / (qa + C / ((C - t) * t))
                t = 0.1 * t if nt <= 0.0 else nt
                gp = qa * (t - old) + b + math.log(t / (C - t))
                steps += 1
            newton_steps += steps
            if steps > 0:
                if sign > 0.0:
                    alpha[i], alpha_c[i] = t, C - t
                else:
                    alpha_c[i], alpha[i] = t, C - t
                delta = sign * (t - old) * y
                for k in range(k0, k1):
                    w[indices[k]] += delta * np.float64(data[k])
                w[p] += delta
        epochs += 1
        if g_max < tol:
            converged = True
            break
        if newton_steps <= n // 10:
            inner_eps = max(inner_min, 0.1 * inner_eps)
    return w, epochs, converged


@njit(cache=True, nogil=True)
def fit_siblings(indptr, indices, data, p, z, C, tol, max_iter, seed):
    """:func:`fit_logistic` for every column of the 0/1 targets ``z`` (nr x nc, int8) on the
    same CSR rows: sibling nodes trained together.

    Every epoch visits the rows once in one random order for all the problems still running;
    a row's dot products with all their weight vectors (stored side by side, p x nc) take
    one pass over its entries, and so does the update.  Each problem keeps its own dual
    variables, inner Newton tolerance and stopping rule, so it computes exactly what
    :func:`fit_logistic` computes with the same row order; a finished problem's weights
    are copied out and the running ones are packed to the left.

    Returns (W (nc, p + 1), the bias weights last; epochs (nc,); converged (nc,)).
    """
    nr, nc = z.shape
    a0 = min(1e-3 * C, 1e-8)
    Wb = np.zeros((p, nc))
    bb = np.zeros(nc)
    xsq = np.empty(nr)
    alpha = np.empty((nr, nc))
    alpha_c = np.empty((nr, nc))
    for i in range(nr):
        s = 1.0
        for k in range(indptr[i], indptr[i + 1]):
            d = np.float64(data[k])
            s += d * d
            f = indices[k]
            for c in range(nc):
                Wb[f, c] += (2.0 * z[i, c] - 1.0) * a0 * d
        for c in range(nc):
            bb[c] += (2.0 * z[i, c] - 1.0) * a0
            alpha[i, c] = a0
            alpha_c[i, c] = C - a0
        xsq[i] = s
    act = np.arange(nc)
    na = nc
    z_flat = z.reshape(-1)
    alpha_flat = alpha.reshape(-1)
    alpha_c_flat = alpha_c.reshape(-1)
    W_out = np.zeros((nc, p + 1))
    epochs = np.zeros(nc, dtype=np.int64)
    conv = np.zeros(nc, dtype=np.bool_)
    inner_eps = np.full(nc, 1e-2)
    inner_min = min(1e-8, tol)
    g_max = np.empty(nc)
    steps_tot = np.empty(nc, dtype=np.int64)
    ywx = np.empty(nc)
    delta = np.empty(nc)
    ys_ = np.empty(nc)
    olds = np.empty(nc)
    signs = np.empty(nc)
    bs = np.empty(nc)
    ts = np.empty(nc)
    gps = np.empty(nc)
    nsteps = np.empty(nc, dtype=np.int64)
    order = np.arange(nr)
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    while na > 0:
        state = _shuffle(order, state)
        for c in range(na):
            g_max[c] = 0.0
            steps_tot[c] = 0
        for o in range(nr):
            if o + _AHEAD < nr:
                r = order[o + _AHEAD]
                _fetch_row(indptr, indices, data, r)
                _prefetch(xsq, r)
                _prefetch(z_flat, r * nc)
                _prefetch(alpha_flat, r * nc)
                _prefetch(alpha_c_flat, r * nc)
            i = order[o]
            k0, k1 = indptr[i], indptr[i + 1]
            for c in range(na):
                ywx[c] = bb[c]
            for k in range(k0, k1):
                v = np.float64(data[k])
                f = indices[k]
                for c in range(na):
                    ywx[c] += v * Wb[f, c]
            qa = xsq[i]
            # the one-variable problems of all siblings, Newton steps in lockstep (independent
            # chains side by side)
            for c in range(na):
                y = 2.0 * z[i, act[c]] - 1.0
                ys_[c] = y
                yw = ywx[c] * y
                if 0.5 * qa * (alpha_c[i, c] - alpha[i, c]) + yw < 0.0:
                    old, sign = alpha_c[i, c], -1.0
                else:
                    old, sign = alpha[i, c], 1.0
                t = old
                if C - t < 0.5 * C:
                    t = 0.1 * t
                b = sign * yw
                gp = qa * (t - old) + b + math.log(t / (C - t))
                if abs(gp) > g_max[c]:
                    g_max[c] = abs(gp)
                olds[c] = old
                signs[c] = sign
                bs[c] = b
                ts[c] = t
                gps[c] = gp
                nsteps[c] = 0
            running = True
            while running:
                running = False
                for c in range(na):
                    if nsteps[c] <= 100 and abs(gps[c]) >= inner_eps[c]:
                        t = ts[c]
                        nt = t - gps[c] / (qa + C / ((C - t) * t))
                        t = 0.1 * t if nt <= 0.0 else nt
                        ts[c] = t
                        gps[c] = qa * (t - olds[c]) + bs[c] + math.log(t / (C - t))
                        nsteps[c] += 1
                        running = True
            moved = False
            for c in range(na):
                steps_tot[c] += nsteps[c]
                if nsteps[c] > 0:
                    t = ts[c]
                    if signs[c] > 0.0:
                        alpha[i, c], alpha_c[i, c] = t, C - t
                    else:
                        alpha_c[i, c], alpha[i, c] = t, C - t
                    delta[c] = signs[c] * (t - olds[c]) * ys_[c]
                    moved = True
                else:
                    delta[c] = 0.0
            if moved:
                for k in range(k0, k1):
                    v = np.float64(data[k])
                    f = indices[k]
                    for c in range(na):
                        Wb[f, c] += delta[c] * v
                for c in range(na):
                    bb[c] += delta[c]
        keep = 0
        for c in range(na):
            ch = act[c]
            epochs[ch] += 1
            done = False
            if g_max[c] < tol:
                conv[ch] = True
                done = True
            elif epochs[ch] >= max_iter:
                done = True
            elif steps_tot[c] <= nr // 10:
                inner_eps[c] = max(inner_min, 0.1 * inner_eps[c])
            if done:
                for j in range(p):
                    W_out[ch, j] = Wb[j, c]
                W_out[ch, p] = bb[c]
            else:
                if keep != c:
                    for j in range(p):
                        Wb[j, keep] = Wb[j, c]
                    for i in range(nr):
                        alpha[i, keep] = alpha[i, c]
                        alpha_c[i, keep] = alpha_c[i, c]
                    bb[keep] = bb[c]
                    inner_eps[keep] = inner_eps[c]
                    act[keep] = ch
                keep += 1
        na = keep
    return W_out, epochs, conv


@njit(cache=True, nogil=True)
def _grow(a, need):
    if need <= a.shape[0]:
        return a
    out = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def gather_rows(x_indptr, x_indices, x_data, n_features, rows):
    """The CSR rows ``rows`` of X (a parent's training rows) over the columns they use.

    Local columns are numbered in order of first appearance (frequent columns early: the
    node's weights stay close in cache); int32 indices, the input's float dtype.  Returns
    (indptr, indices, data, srt, by_col): ``srt`` the used global columns in increasing
    order, ``by_col[j]`` the local number of ``srt[j]`` (every node's weights come out
    sorted by :func:`sparse_weights`).
    """
    nr = rows.shape[0]
    col_map = np.full(n_features, -1, dtype=np.int32)
    nnz = 0
    for a in range(nr):
        nnz += x_indptr[rows[a] + 1] - x_indptr[rows[a]]
    loc_indptr = np.empty(nr + 1, dtype=np.int64)
    loc_indices = np.empty(nnz, dtype=np.int32)
    loc_data = np.empty(nnz, dtype=x_data.dtype)
    cols = np.empty(min(nnz, n_features), dtype=np.int32)
    p = 0
    pos = 0
    loc_indptr[0] = 0
    for a in range(nr):
        i = rows[a]
        for k in range(x_indptr[i], x_indptr[i + 1]):
            c = x_indices[k]
            j = col_map[c]
            if j < 0:
                j = p
                col_map[c] = p
                cols[p] = c
                p += 1
            loc_indices[pos] = j
            loc_data[pos] = x_data[k]
            pos += 1
        loc_indptr[a + 1] = pos
    # the columns in increasing global order: a scan of the column map when the node uses
    # many columns, else a sort
    if 64 * p >= n_features:
        srt = np.empty(p, dtype=np.int32)
        q = 0
        for c in range(n_features):
            if col_map[c] >= 0:
                srt[q] = c
                q += 1
    else:
        srt = np.sort(cols[:p])
    by_col = np.empty(p, dtype=np.int32)
    for j in range(p):
        by_col[j] = col_map[srt[j]]
    return loc_indptr, loc_indices, loc_data, srt, by_col


@njit(cache=True, nogil=True)
def _local_positions(rows, sub, out):
    """``out[t]``: the position in ``rows`` of ``sub[t]`` (both increasing, sub within rows;
    a merge)."""
    a = 0
    for t in range(sub.shape[0]):
        while rows[a] != sub[t]:
            a += 1
        out[t] = a


@njit(cache=True, nogil=True)
def fit_unit(loc_indptr, loc_indices, loc_data, p, rows, z_indptr, z_indices, nodes,
             side_by_side, C, tol, max_iter, seed):
    """Fit the children ``nodes`` of one parent on its gathered rows (:func:`gather_rows`
    of ``rows``, increasing row numbers; ``p`` local columns): side by side by
    :func:`fit_siblings`, or one by one by :func:`fit_logistic`; the same model either way.

    ``z_indptr``/``z_indices``: the CSC pattern of Z (rows x nodes), Z[i, t] = 1 when some
    label below node t is positive for row i (increasing row numbers per node); a child's
    positive rows are a subset of its parent's.  ``seed``: the parent's row order (all its
    children visit the rows in one order).  Returns (W (len(nodes), p + 1), the bias weights
    last; epochs; converged).
    """
    nr = rows.shape[0]
    g = nodes.shape[0]
    pos = np.empty(nr, dtype=np.int64)
    if side_by_side:
        zb = np.zeros((nr, g), dtype=np.int8)
        for c in range(g):
            sub = z_indices[z_indptr[nodes[c]]:z_indptr[nodes[c] + 1]]
            _local_positions(rows, sub, pos)
            for t in range(sub.shape[0]):
                zb[pos[t], c] = 1
        return fit_siblings(loc_indptr, loc_indices, loc_data, p, zb, C, tol, max_iter, seed)
    W = np.empty((g, p + 1))
    it = np.zeros(g, dtype=np.int64)
    ok = np.zeros(g, dtype=np.bool_)
    z = np.empty(nr)
    for c in range(g):
        sub = z_indices[z_indptr[nodes[c]]:z_indptr[nodes[c] + 1]]
        _local_positions(rows, sub, pos)
        z[:] = 0.0
        for t in range(sub.shape[0]):
            z[pos[t]] = 1.0
        W[c], it[c], ok[c] = fit_logistic(loc_indptr, loc_indices, loc_data, p, z, C, tol,
                                          max_iter, seed)
    return W, it, ok


@njit(cache=True, nogil=True)
def sparse_weights(W, srt, by_col, weight_threshold):
    """The weights of the rows of ``W`` (g, p + 1; local columns, bias last) as CSR over the
    global columns ``srt`` (increasing), keeping ``|w| > weight_threshold`` (all non-zero
    weights when it is 0).  Returns (pointer, columns, values)."""
    g, p = W.shape[0], W.shape[1] - 1
    ptr = np.zeros(g + 1, dtype=np.int64)
    cols = np.empty(g * p, dtype=np.int32)
    vals = np.empty(g * p)
    q = 0
    for c in range(g):
        for j in range(p):
            v = W[c, by_col[j]]
            if (weight_threshold > 0.0 and abs(v) > weight_threshold) or \
                    (weight_threshold <= 0.0 and v != 0.0):
                cols[q] = srt[j]
                vals[q] = v
                q += 1
        ptr[c + 1] = q
    return ptr, cols[:q].copy(), vals[:q].copy()


@njit(cache=True, nogil=True)
def scatter_rows(nodes, w_ptr, cols, vals, indptr, out_cols, out_vals):
    """Copy the weights of ``nodes`` (one worker's output) to their rows of the model's CSR
    arrays (``indptr``: the final row pointer); workers write disjoint rows."""
    for r in range(nodes.shape[0]):
        a, o = w_ptr[r], indptr[nodes[r]]
        for q in range(w_ptr[r + 1] - a):
            out_cols[o + q] = cols[a + q]
            out_vals[o + q] = vals[a + q]
    return 0


@njit(cache=True, nogil=True)
def expand_children(x_indptr, x_indices, x_data, w_indptr, w_indices, w_data, bias,
                    child_start, n_children, n_features, xrow, node, prob, order, node_tau,
                    row_tau):
    """One level of the pruned descent (Algorithm 4) for the pairs (row ``xrow[i]`` of X,
    inner node ``node[i]``) reached with path probability ``prob[i]``, visited in ``order``
    (pairs of the same node consecutive).

    Per node, the children's weights (rows of W, CSR) are regrouped by feature (a counting
    sort over the features they use), so that a row's score for all children costs one
    pass over the row's entries.  Of a node with at least :data:`_DENSE_MIN_CHILDREN`
    children, the features that half of them or more use get a dense row of weights (0
    for the others): a row's entry adds to all children in one vectorised loop.  The
    scores are summed in the row's entry order either way (an added 0 changes no sum but
    the sign of a zero, which no probability sees), so they do not depend on the layout.
    A child is kept when its path probability ``prob[i] * sigmoid(x w_c + b_c)`` exceeds
    ``node_tau[c]`` and ``row_tau[i]``.  Returns (pair i, child, path probability) of the
    kept children.
    """
    n_pairs = order.shape[0]
    cnt = np.zeros(n_features, dtype=np.int32)
    beg = np.empty(n_features, dtype=np.int32)
    dense_at = np.full(n_features, -1, dtype=np.int64)
    dw = np.empty(1024)
    touched = np.empty(1024, dtype=np.int32)
    ent_c = np.empty(1024, dtype=np.int32)
    ent_w = np.empty(1024)
    acc = np.empty(1024)
    out_i = np.empty(1024, dtype=np.int64)
    out_c = np.empty(1024, dtype=np.int64)
    out_p = np.empty(1024)
    n_out = 0
    g0 = 0
    while g0 < n_pairs:
        u = node[order[g0]]
        g1 = g0 + 1
        while g1 < n_pairs and node[order[g1]] == u:
            g1 += 1
        cs, nc = child_start[u], n_children[u]
        a, z = w_indptr[cs], w_indptr[cs + nc]
        touched = _grow(touched, z - a)
        ent_c = _grow(ent_c, z - a)
        ent_w = _grow(ent_w, z - a)
        acc = _grow(acc, nc)
        n_t = 0
        for k in range(a, z):
            f = w_indices[k]
            if cnt[f] == 0:
                touched[n_t] = f
                n_t += 1
            cnt[f] += 1
        run = 0
        for t in range(n_t):
            f = touched[t]
            beg[f] = run
            run += cnt[f]
        for c in range(nc):
            for k in range(w_indptr[cs + c], w_indptr[cs + c + 1]):
                f = w_indices[k]
                q = beg[f]
                ent_c[q] = c
                ent_w[q] = w_data[k]
                beg[f] = q + 1
        for t in range(n_t):
            f = touched[t]
            beg[f] -= cnt[f]
        # features used by half of the children or more: dense rows of weights
        n_dense = 0
        if nc >= _DENSE_MIN_CHILDREN:
            for t in range(n_t):
                f = touched[t]
                if 2 * cnt[f] >= nc:
                    dense_at[f] = n_dense * nc
                    n_dense += 1
            dw = _grow(dw, n_dense * nc)
            dw[:n_dense * nc] = 0.0
            if n_dense > 0:
                for t in range(n_t):
                    f = touched[t]
                    d = dense_at[f]
                    if d >= 0:
                        for q in range(beg[f], beg[f] + cnt[f]):
                            dw[d + ent_c[q]] = ent_w[q]
        need = n_out + (g1 - g0) * nc
        if need > out_i.shape[0]:
            out_i = _grow(out_i, need)
            out_c = _grow(out_c, need)
            out_p = _grow(out_p, need)
        for g in range(g0, g1):
            i = order[g]
            r = xrow[i]
            for c in range(nc):
                acc[c] = 0.0
            for k in range(x_indptr[r], x_indptr[r + 1]):
                f = x_indices[k]
                d = dense_at[f]
                if d >= 0:
                    v = np.float64(x_data[k])
                    for c in range(nc):
                        acc[c] += v * dw[d + c]
                    continue
                cf = cnt[f]
                if cf > 0:
                    v = np.float64(x_data[k])
                    q0 = beg[f]
                    for q in range(q0, q0 + cf):
                        acc[ent_c[q]] += v * ent_w[q]
            pi, ti = prob[i], row_tau[i]
            for c in range(nc):
                pc = pi * (1.0 / (1.0 + math.exp(-(acc[c] + bias[cs + c]))))
                if pc > node_tau[cs + c] and pc > ti:
                    out_i[n_out] = i
                    out_c[n_out] = cs + c
                    out_p[n_out] = pc
                    n_out += 1
        for t in range(n_t):
            cnt[touched[t]] = 0
            dense_at[touched[t]] = -1
        g0 = g1
    return out_i[:n_out].copy(), out_c[:n_out].copy(), out_p[:n_out].copy()


@njit(cache=True, nogil=True)
def rows_csr(r, j, v, n_rows):
    """Entries (row ``r[t]`` in [0, n_rows), label ``j[t]``, value ``v[t]``), at most one per
    (row, label), as CSR rows sorted by label: (entries per row, labels (int32), values)."""
    counts = np.zeros(n_rows, dtype=np.int64)
    for t in range(r.shape[0]):
        counts[r[t]] += 1
    fill = np.empty(n_rows + 1, dtype=np.int64)
    fill[0] = 0
    for i in range(n_rows):
        fill[i + 1] = fill[i] + counts[i]
    labels = np.empty(r.shape[0], dtype=np.int32)
    values = np.empty(r.shape[0])
    for t in range(r.shape[0]):
        q = fill[r[t]]
        labels[q] = j[t]
        values[q] = v[t]
        fill[r[t]] = q + 1
    a = 0
    for i in range(n_rows):
        b = a + counts[i]
        if b - a > 1:
            order = np.argsort(labels[a:b])
            labels[a:b] = labels[a:b][order]
            values[a:b] = values[a:b][order]
        a = b
    return counts, labels, values
