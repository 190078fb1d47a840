"""Out-of-core IRLS: the binomial-logit fit of :mod:`fmstats.glm._irls` on a dask array of rows.

The rows of X, y and the prior weights live in blocks (dask chunks along the rows; one chunk
across the columns).  Each evaluation of the model at a coefficient vector is one pass over the
data: every block returns its X'WX, X'w(y - mu), deviance terms and a few sums as one flat
vector, the vectors are added in a tree of tasks on the workers, and only the sum (a few p^2
numbers) reaches the client, which does the Cholesky solve.  The Newton loop itself is
:func:`fmstats.glm._irls.newton_loop`, shared with the in-memory core, so the start, the
step-halving, the stopping rule, the penalty and the warm start are the same code; only the
order of the floating-point sums differs (results agree to ~1e-13, not bit for bit).

A pass evaluates the candidate point completely (deviance *and* its X'WX and score), so an
accepted step needs no second pass: a fit from R's start costs iterations + 1 passes, plus one
per step-halving.  The covariance at the solution comes from the last accepted pass.

``persist=True`` (default) keeps X, y and the weights in (worker) memory across the passes:
without it every pass recomputes the graph that produced them (re-reading files, rebuilding
designs), which is the price of data larger than the cluster's memory.  Scheduler: whatever
``dask.compute`` uses (a ``distributed.Client`` if one is active).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.special import expit, xlogy
from threadpoolctl import threadpool_limits

from ..exceptions import DataError, DesignError, InvalidArgumentError
from ._irls import (SEPARATION_EPS, SPREAD_RANGE, intercept_index, newton_loop, Point, logit_probs,
                   column_spread, deviance_scale, gram, independent_columns,
                   information_inverse, warn_fit)

#: An offset column (|centre| above this many times its spread, with an intercept) is refused
#: by the out-of-core fit: its X'WX loses ~2 log10(ratio) digits (the in-memory core centres;
#: measured: standard errors off by 5e-8 at ratio ~3e3, 1e-6 at ~3e4).
_DASK_OFFSET_RATIO = 1e4

__all__ = ["DaskIrlsFit", "irls_logit_dask", "irls_evaluate_dask", "block_sums", "map_rows",
           "gram_dask", "as_row_blocks", "is_dask_collection", "refuse_offset_columns",
           "persist_if_fits", "memory_limit", "PERSIST_SHARE", "block_results", "start_sums",
           "start_sums_columns", "worker_memory_limit", "partition_memory_advice", "chunk_rows",
           "CHUNK_BYTES", "TASK_MEMORY_SHARE"]

#: The design is persisted in the workers' memory when it takes at most this share of their
#: total memory limit; above it every pass recomputes it from its source (re-reading the
#: files, rebuilding the design), which is slower but does not spill or run out of memory.
PERSIST_SHARE = 0.5

#: Number of partial results added per task in the tree reduction of a pass.
SPLIT_EVERY = 8

#: Within a task, a pass's sums run over chunks of a block's rows holding at most this many
#: bytes of its arrays and, in a replicates' pass, of the replicates' temporaries
#: (:data:`REPLICATE_ROW_BYTES`; at least :data:`CHUNK_MIN_ROWS` rows), so the temporaries of
#: a task (the weighted design of a Gram, the leverages, the replicates' weights and
#: probabilities) stay within a small multiple of this size whatever the partition size and
#: the number of replicates; a task's memory is then its block (and the partition it was
#: built from) plus this.
CHUNK_BYTES = 16 * 2**20
CHUNK_MIN_ROWS = 1024
#: The temporaries a replicates' pass makes per row and replicate (bytes): the weights, the
#: linear predictors, the probabilities and three products of them, as float64.
REPLICATE_ROW_BYTES = 48


def is_dask_collection(x) -> bool:
    """Whether ``x`` is a dask collection (without importing dask when it is not loaded)."""
    import sys

    if "dask" not in sys.modules:
        return False
    from dask import is_dask_collection as _is

    return bool(_is(x))


@dataclass(frozen=True)
class DaskIrlsFit:
    """The outcome of :func:`irls_logit_dask`: :class:`~fmstats.glm.IrlsFit` without
    the n-length arrays (eta, mu, working weights stay with the data), plus sums computed on
    the way.

    Attributes
    ----------
    coef, xtwx_inv, deviance, null_deviance, loglik, iterations, converged, separated,
    history, tol, penalty : as in :class:`~fmstats.glm.IrlsFit`.
    pearson_chi2 : sum w (y - mu)^2 / (mu (1 - mu)) at the solution.
    n_separated : rows with positive weight and fitted probability numerically 0 or 1.
    nobs, n_active : rows, rows with positive weight.
    has_intercept : whether some column of X is identically 1.
    passes : passes over the data the fit took.
    """

    coef: np.ndarray
    xtwx_inv: np.ndarray
    deviance: float
    null_deviance: float
    loglik: float
    pearson_chi2: float
    iterations: int
    converged: bool
    separated: bool
    n_separated: int
    nobs: int
    n_active: int
    has_intercept: bool
    passes: int
    history: np.ndarray = field(repr=False)
    tol: float = 1e-8
    penalty: np.ndarray | None = field(default=None, repr=False)


# ----------------------------------------------------------------------------- passes

def _blocks(arr):
    """The row blocks of a dask array as a flat list of Delayed objects."""
    d = arr.to_delayed()
    return list(d.ravel()) if d.ndim > 1 else list(d)


def _add(*parts, n_max=0):
    out = parts[0].copy()
    k = len(out) - n_max
    for q in parts[1:]:
        out[:k] += q[:k]
        np.maximum(out[k:], q[k:], out=out[k:])
    return out


def chunk_rows(blocks, replicates: int = 0) -> int:
    """The rows of a chunk of ``blocks`` (arrays with the same rows; None entries skipped):
    :data:`CHUNK_BYTES` of their rows and, for a pass over ``replicates`` replicates, of the
    temporaries it makes per row (:data:`REPLICATE_ROW_BYTES` per replicate), at least
    :data:`CHUNK_MIN_ROWS`.

    Parameters
    ----------
    blocks : sequence of ndarray or None
        A block's arrays (same rows).
    replicates : int, default 0
        The replicates a pass evaluates at once (the ``m`` of its ``draws``).

    Returns
    -------
    int
        The rows of a chunk.
    """
    row_bytes = sum(b.itemsize * int(np.prod(b.shape[1:], dtype=np.int64))
                    for b in blocks if b is not None) + REPLICATE_ROW_BYTES * int(replicates)
    return max(int(CHUNK_MIN_ROWS), int(CHUNK_BYTES) // max(row_bytes, 1))


def _chunked_sums(fn: Callable, n_max: int, *blocks, **kwargs) -> np.ndarray:
    """``fn(*blocks, **kwargs)`` of a pass, summed over chunks of the blocks' rows (the last
    ``n_max`` entries by their maximum): the same sums with bounded temporaries."""
    blocks = [None if b is None else np.asarray(b) for b in blocks]
    n = next(len(b) for b in blocks if b is not None)
    draws = kwargs.get("draws")          # a replicates' pass: m columns per row
    step = chunk_rows(blocks, 0 if draws is None else draws.m)
    if n <= step:
        return fn(*blocks, **kwargs)
    return _add(*[fn(*[None if b is None else b[i:i + step] for b in blocks], **kwargs)
                  for i in range(0, n, step)], n_max=n_max)


def _block_tasks(fn: Callable, arrays, kwargs, *, chunk_n_max: int | None = None) -> list:
    """Delayed ``fn(block_1, ..., block_k, **kwargs)``, one per row block of ``arrays``
    (with ``chunk_n_max`` given: a pass's sums, over chunks of each block's rows)."""
    from dask import delayed

    lists = [None if a is None else _blocks(a) for a in arrays]
    m = next(len(b) for b in lists if b is not None)
    if any(b is not None and len(b) != m for b in lists):
        raise DataError("the dask arrays must have the same row blocks (chunks along axis 0); "
                        f"got {[None if b is None else len(b) for b in lists]} blocks.")
    if chunk_n_max is None:
        task, head = delayed(fn, pure=False), ()
    else:
        task, head = delayed(_chunked_sums, pure=False), (fn, chunk_n_max)
    return [task(*head, *[None if b is None else b[i] for b in lists], **kwargs)
            for i in range(m)]


def block_sums(fn: Callable, *arrays, n_max: int = 0, **kwargs) -> np.ndarray:
    """One pass: ``fn(block_1, ..., block_k, **kwargs)`` on every row block, summed.

    ``arrays`` are dask arrays with the same row blocks (``None`` entries are passed through
    as ``None``); ``fn`` returns a 1-d float vector of fixed length whose last ``n_max``
    entries are combined by their maximum (return -min for a minimum), the others summed.
    ``fn`` must therefore be additive over any split of the rows: within a task it runs on
    chunks of the block's rows (:data:`CHUNK_BYTES`), which bounds its temporaries. The
    partial vectors are combined in a tree of tasks (``SPLIT_EVERY`` per task), so the
    client receives one vector.

    Parameters
    ----------
    fn : callable
        The function of one block of each array, returning a 1-d float vector.
    *arrays : dask.array.Array or None
        The arrays, with the same row blocks.
    n_max : int, default 0
        The last ``n_max`` entries are combined by their maximum.
    **kwargs
        Passed to ``fn``.

    Returns
    -------
    ndarray
        The combined vector.
    """
    import dask
    from dask import delayed

    parts = _block_tasks(fn, arrays, kwargs, chunk_n_max=n_max)
    add = delayed(_add, pure=False)
    while len(parts) > SPLIT_EVERY:
        parts = [add(*parts[i:i + SPLIT_EVERY], n_max=n_max)
                 for i in range(0, len(parts), SPLIT_EVERY)]
    # the last level on the client: one scheduling round trip fewer
    return np.asarray(_add(*dask.compute(*parts), n_max=n_max), dtype=float)


def block_results(fn: Callable, *arrays, **kwargs) -> list:
    """One pass: ``fn(block_1, ..., block_k, **kwargs)`` on every row block, the results (of
    any size: a block's aggregates) returned in block order."""
    import dask

    return list(dask.compute(*_block_tasks(fn, arrays, kwargs)))


def map_rows(fn: Callable, *arrays, **kwargs):
    """A lazy 1-d dask array: ``fn(blocks..., **kwargs)`` per row block (n_i values each),
    chunked like the rows of ``arrays[0]`` (whose chunk sizes must be known)."""
    import dask.array as da

    sizes = arrays[0].chunks[0]
    tasks = _block_tasks(fn, arrays, kwargs)
    return da.concatenate([da.from_delayed(t, shape=(k,), dtype=float)
                           for t, k in zip(tasks, sizes)])


def _rows(X, y=None, w=None):
    """Aligned float blocks (arrays gathered from workers may arrive unaligned)."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    n = X.shape[0]
    y = None if y is None else np.require(y, dtype=float, requirements="A").reshape(n)
    w = np.ones(n) if w is None else np.require(w, dtype=float, requirements="A").reshape(n)
    return X, y, w


def _gram_block(X, w):
    X, _, w = _rows(X, None, w)
    return gram(X, w).ravel()


def gram_dask(X, weights=None) -> np.ndarray:
    """X' diag(w) X of a dask array of rows, in one pass."""
    p = X.shape[1]
    return block_sums(_gram_block, X, weights).reshape(p, p)


def _constants(X, y, w) -> list:
    """Sums that do not depend on the coefficients: saturated term, sum w y, sum w (1 - y),
    sum w, rows, active rows, and per column the number of entries equal to 1."""
    return [float(np.dot(w, xlogy(y, y) + xlogy(1 - y, 1 - y))), float(np.dot(w, y)),
            float(np.dot(w, 1 - y)), float(np.sum(w)), float(len(y)),
            float(np.count_nonzero(w > 0))] + list(np.count_nonzero(X == 1.0, axis=0))


_N_CONST_FIXED = 6


def _start_block(X, y, w, consts):
    """R's start on one block: X'WX, X'(W eta + w (y - mu)), the start's deviance terms."""
    X, y, w = _rows(X, y, w)
    mu0 = (w * y + 0.5) / (w + 1.0)
    eta0 = np.log(mu0 / (1 - mu0))
    dev0 = float(np.dot(w, xlogy(y, y) - xlogy(y, mu0) + xlogy(1 - y, 1 - y)
                        - xlogy(1 - y, 1 - mu0)))
    ww = w * mu0 * (1 - mu0)
    out = [gram(X, ww).ravel(), X.T @ (ww * eta0 + w * (y - mu0)), [dev0]]
    if consts:
        out.append(_constants(X, y, w))
    return np.concatenate(out)


def _eval_block(X, y, w, coef, consts):
    """The model at ``coef`` on one block: X'WX, score, deviance and likelihood terms."""
    X, y, w = _rows(X, y, w)
    eta = X @ coef
    mu = logit_probs(eta)
    ww = w * mu * (1 - mu)
    mu_raw = expit(eta)
    sep = (w > 0) & ((mu_raw > 1 - SEPARATION_EPS) | (mu_raw < SEPARATION_EPS))
    # loglik uses the clipped mu: 2 (saturated - loglik) is irls_evaluate's deviance
    scalars = [float(np.dot(w * y, eta)), float(np.dot(w, np.logaddexp(0.0, eta))),
               float(np.dot(w, xlogy(y, mu) + xlogy(1 - y, 1 - mu))),
               float(np.sum(w * (y - mu) ** 2 / (mu * (1 - mu)))), float(np.count_nonzero(sep))]
    out = [gram(X, ww).ravel(), X.T @ (w * (y - mu)), scalars]
    if consts:
        out.append(_constants(X, y, w))
    return np.concatenate(out)


def start_sums(X, y, w) -> np.ndarray:
    """The first pass of :func:`irls_logit_dask` (R's start) on one block, with the sums that
    do not depend on the coefficients: a caller's own pass over the rows can compute it and
    hand the sum over the blocks to the fit as ``first_pass`` (one pass fewer).

    Parameters
    ----------
    X : ndarray of shape (n_block, p)
        A block of the design.
    y : ndarray of shape (n_block,)
        The response of the block's rows.
    w : ndarray of shape (n_block,)
        Their prior weights.

    Returns
    -------
    ndarray
        The block's vector of sums (add the blocks' vectors).
    """
    return _start_block(X, y, w, consts=True)


def start_sums_columns(v: np.ndarray, p: int, keep: np.ndarray) -> np.ndarray:
    """:func:`start_sums` of X's columns ``keep`` from those of all its p columns.

    Parameters
    ----------
    v : ndarray
        :func:`start_sums` of all p columns (summed over the blocks).
    p : int
        The number of columns of X.
    keep : ndarray of bool, shape (p,)
        The columns kept.

    Returns
    -------
    ndarray
        The sums of the kept columns, as :func:`start_sums` of X[:, keep] would give them.
    """
    keep = np.asarray(keep, dtype=bool)
    G = v[:p * p].reshape(p, p)[np.ix_(keep, keep)].ravel()
    consts = v[p * p + p + 1:]
    return np.concatenate([G, v[p * p:p * p + p][keep], [v[p * p + p]],
                           consts[:_N_CONST_FIXED], consts[_N_CONST_FIXED:][keep]])


class _Evaluation:
    """What one evaluation pass returned (beyond the deviance)."""

    __slots__ = ("H", "score", "loglik", "pearson", "n_sep")

    def __init__(self, H, score, loglik, pearson, n_sep):
        self.H, self.score, self.loglik, self.pearson, self.n_sep = H, score, loglik, pearson, n_sep


class _DaskProblem:
    """The three evaluations the Newton loop needs, each one pass over the row blocks."""

    def __init__(self, X, y, w, first_pass=None):
        self.X, self.y, self.w = X, y, w
        self.p = X.shape[1]
        self.consts = None
        self.passes = 0
        self.first = first_pass       # R's start, summed by the caller's own pass

    def _pass(self, fn, **kwargs) -> np.ndarray:
        need = self.consts is None
        v = block_sums(fn, self.X, self.y, self.w, consts=need, **kwargs)
        self.passes += 1
        if need:
            k = _N_CONST_FIXED + self.p
            v, c = v[:-k], v[-k:]
            self.consts = c
        return v

    @property
    def sat(self) -> float:
        return float(self.consts[0])

    def deviance_scale(self) -> float:
        """s of the stopping rule (:func:`fmstats.glm.deviance_scale`)."""
        return deviance_scale(float(self.consts[3]), int(self.consts[5]))

    def r_start(self):
        p = self.p
        if self.first is not None:
            v, self.first = self.first, None
            k = _N_CONST_FIXED + p
            v, self.consts = v[:-k], v[-k:]
        else:
            v = self._pass(_start_block)
        return 2.0 * float(v[p * p + p]), v[:p * p].reshape(p, p), v[p * p:p * p + p]

    def at(self, coef) -> Point:
        p = self.p
        v = self._pass(_eval_block, coef=np.asarray(coef, dtype=float))
        a, b, loglik, pearson, n_sep = v[p * p + p:]
        dev = 2.0 * (self.sat - (a - b))
        ev = _Evaluation(v[:p * p].reshape(p, p), v[p * p:p * p + p], loglik, pearson, n_sep)
        return Point(coef, dev, None, ev)

    def newton(self, pt: Point):
        return pt.extra.H.copy(), pt.extra.score.copy()

    def null_deviance(self) -> tuple[float, bool]:
        sat, swy, sw1y, sw, n = self.consts[:5]
        intercept = bool(n > 0 and np.any(self.consts[_N_CONST_FIXED:] == n))
        mu0 = swy / sw if intercept else 0.5
        return 2.0 * (sat - float(xlogy(swy, mu0) + xlogy(sw1y, 1 - mu0))), intercept


# ----------------------------------------------------------------------------- inputs

def as_row_blocks(X, y=None, weights=None, *, name: str = "X"):
    """Check and align a dask array of rows with its response and weights.

    X becomes one chunk across the columns; numpy ``y``/``weights`` are chunked like X's rows,
    dask ones rechunked to them when the row chunks differ (known chunk sizes needed then).
    """
    import dask.array as da

    if not is_dask_collection(X):
        X = da.from_array(np.asarray(X, dtype=float), chunks=(min(len(X), 100_000), -1))
    if X.ndim != 2:
        raise InvalidArgumentError(f"`{name}` must be a 2-d dask array of rows; got {X.ndim} "
                                   "dimension(s).")
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    out = [X]
    for label, v in (("y", y), ("weights", weights)):
        if v is None:
            out.append(None)
            continue
        if not is_dask_collection(v):
            v = np.asarray(v, dtype=float)
            if not np.isnan(X.shape[0]) and v.shape != (X.shape[0],):
                raise InvalidArgumentError(f"`{label}` must have one value per row of `{name}` "
                                           f"({X.shape[0]}); got shape {v.shape}.")
            v = da.from_array(v, chunks=(X.chunks[0],))
        elif v.ndim != 1:
            raise InvalidArgumentError(f"`{label}` must be 1-d; got {v.ndim} dimension(s).")
        elif v.chunks[0] != X.chunks[0]:
            if any(np.isnan(c) for c in v.chunks[0] + X.chunks[0]):
                raise InvalidArgumentError(
                    f"`{label}` and `{name}` have different row chunks of unknown size; give them "
                    "the same partitions (or call compute_chunk_sizes() on both).")
            if v.shape[0] != X.shape[0]:
                raise InvalidArgumentError(f"`{label}` must have one value per row of `{name}` "
                                           f"({X.shape[0]}); got {v.shape[0]}.")
            v = v.rechunk((X.chunks[0],))
        out.append(v)
    return tuple(out)


def refuse_offset_columns(X, names=None) -> None:
    """Raise :class:`DesignError` when X (a dask array of rows) has an offset or badly scaled
    column, judged on its first non-empty row block.

    The in-memory core centres and scales such columns (:func:`~fmstats.glm.column_scaling`);
    the out-of-core passes accumulate X'WX of X as given, which would lose an offset column
    (x + 1e7, a timestamp) to rounding and drop it as collinear.  Until the passes centre too,
    such a design fails loudly rather than silently.

    Parameters
    ----------
    X : dask.array.Array
        The design, in row blocks.
    names : sequence of str, optional
        The column names, for the message.
    """
    for block in _blocks(X):
        B = np.asarray(dask_compute(block), dtype=float)
        if B.shape[0]:
            break
    else:
        return
    mid, half = column_spread(B)
    k = intercept_index(B)
    lo, hi = SPREAD_RANGE
    for j in range(B.shape[1]):
        label = repr(names[j]) if names is not None else f"{j}"
        offset = k is not None and j != k and abs(mid[j]) > _DASK_OFFSET_RATIO * half[j] > 0
        if offset or not (half[j] == 0 or lo <= half[j] <= hi):
            what = (f"is offset: centre {mid[j]:.6g} over {_DASK_OFFSET_RATIO:g} times its "
                    f"spread {half[j]:.3g}" if offset else
                    f"spreads {half[j]:.3g}, outside [{lo:g}, {hi:g}]")
            raise DesignError(
                f"design column {label} {what} (on the first row block). The out-of-core fit "
                "accumulates X'WX without centring or scaling, which would lose it to rounding: "
                "centre/scale it in the Dask DataFrame first (e.g. subtract its mean, divide "
                "by its standard deviation), or fit in memory.")


def _worker_limits() -> list | None:
    """The memory limits of the active ``distributed`` cluster's workers (bytes; 0: none), or
    None without a cluster."""
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):
        return None
    return [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]


def memory_limit() -> float:
    """The total memory limit of the active ``distributed`` cluster's workers (bytes; inf
    when a worker has none), or the memory available to this process without a cluster."""
    limits = _worker_limits()
    if limits is None:
        try:
            import psutil
        except ImportError:            # pragma: no cover - psutil comes with distributed
            return float("inf")
        return float(psutil.virtual_memory().available)
    return float(sum(limits)) if limits and all(limits) else float("inf")


def worker_memory_limit() -> float:
    """The smallest memory limit of the active cluster's workers (bytes; inf without a
    cluster or without limits)."""
    limits = [v for v in (_worker_limits() or ()) if v]
    return float(min(limits)) if limits else float("inf")


#: A task's memory (its partition, the design built from it, the chunks' temporaries) should
#: stay under this share of a worker's memory limit: the rest is the worker's own footprint
#: (Python, pandas, pyarrow, fmstats: about 300-400 MiB) and Dask's margins (it pauses a
#: worker at 80 % of its limit and restarts it at 95 %).
TASK_MEMORY_SHARE = 0.25


def partition_memory_advice(rows: int, nbytes: int, columns: int,
                            limit: float | None = None) -> str | None:
    """The advice of a :class:`~fmstats.exceptions.PartitionMemoryWarning`, when a task over
    the largest partition may need more than :data:`TASK_MEMORY_SHARE` of a worker's memory.

    A task holds the partition, its design (with the response, trials and weights: ``columns
    + 3`` float columns) and the temporaries of four chunks (:data:`CHUNK_BYTES` each, or the
    design if smaller).

    Parameters
    ----------
    rows : int
        The rows of the largest partition.
    nbytes : int
        Its size as a DataFrame (bytes).
    columns : int
        The design's columns.
    limit : float, optional
        A worker's memory limit (bytes); default the active cluster's smallest
        (:func:`worker_memory_limit`; inf without a cluster).

    Returns
    -------
    str or None
        The warning's text (the sizes, the limit and how to read smaller partitions), or
        None when the task fits.
    """
    limit = worker_memory_limit() if limit is None else float(limit)
    design = 8.0 * rows * (columns + 3)
    need = nbytes + design + 4.0 * min(design, CHUNK_BYTES)
    if not need > TASK_MEMORY_SHARE * limit:
        return None

    def mib(b):
        return f"{b / 2.0 ** 20:.3g} MiB"

    return (f"the largest partition of `data` holds {rows:,} rows ({mib(nbytes)} as a "
            f"DataFrame, {mib(8.0 * rows * columns)} as a design): a task that builds "
            f"and sums it needs about {mib(need)}, more than "
            f"{TASK_MEMORY_SHARE:.0%} of a worker's memory limit ({mib(limit)}), so "
            "a worker may run out of memory. Read the data in smaller partitions: "
            "dd.read_parquet(..., split_row_groups=True) for files of several row groups, "
            "or a smaller blocksize= for text files.")


def persist_if_fits(*arrays) -> tuple:
    """The dask arrays (``None`` passed through) persisted in memory if together they take at
    most :data:`PERSIST_SHARE` of :func:`memory_limit`, else as they are.

    Parameters
    ----------
    *arrays : dask.array.Array or None
        The arrays.

    Returns
    -------
    tuple
        The arrays, persisted or as given, in order.
    """
    import dask

    present = [a for a in arrays if a is not None]
    nbytes = sum(float(a.nbytes) for a in present)
    if present and not nbytes > PERSIST_SHARE * memory_limit():    # NaN (unknown): persist
        present = list(dask.persist(*present, optimize_graph=False))
    it = iter(present)
    return tuple(None if a is None else next(it) for a in arrays)


def dask_compute(x):
    import dask

    return dask.compute(x)[0]


# ----------------------------------------------------------------------------- the fit

def irls_logit_dask(X, y, weights=None, *, start: np.ndarray | None = None,
                    penalty: float | np.ndarray = 0.0, tol: float = 1e-8, max_iter: int = 25,
                    max_halving: int = 30, warn: bool = True, persist: bool = True,
                    check_rank: bool = False, first_pass: np.ndarray | None = None
                    ) -> DaskIrlsFit:
    """:func:`fmstats.glm.irls_logit` on a dask array of rows.

    Parameters
    ----------
    X : (n, p) dask array chunked along the rows (full column rank).
    y, weights : (n,) dask arrays with the same row chunks (numpy arrays are chunked like X).
    start, penalty, tol, max_iter, max_halving, warn : as in :func:`~fmstats.glm.irls_logit`.
    persist : keep X, y and the weights in (worker) memory across the passes (default);
        ``False`` recomputes their graph on every pass.
    check_rank : raise :class:`~fmstats.exceptions.InvalidArgumentError` when X'WX is rank
        deficient (costs one pass); the model functions drop aliased columns instead.
    first_pass : the sum over the blocks of :func:`start_sums` (R's start), when the caller
        computed it in a pass of its own (the model functions' data checks do): the fit
        then starts without a pass of its own (``start`` must be None).

    Returns
    -------
    DaskIrlsFit
    """
    import dask

    X, y, w = as_row_blocks(X, y, weights)
    p = X.shape[1]
    if persist:
        X, y, w = dask.persist(X, y, w)
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (p,)).copy()
    penalised = bool(np.any(pen > 0))
    refuse_offset_columns(X)
    with threadpool_limits(limits=1, user_api="blas"):
        # the local threaded scheduler runs blocks in parallel: one BLAS thread each
        if check_rank:
            keep = independent_columns(gram_dask(X, w))
            if not keep.all():
                raise InvalidArgumentError(
                    f"`X` is rank deficient: column(s) {np.flatnonzero(~keep).tolist()} are "
                    "constant or linear combinations of earlier columns; drop them first.")
        problem = _DaskProblem(X, y, w, first_pass if start is None else None)
        pt, it, converged, history = newton_loop(problem, start, pen, penalised, tol, max_iter,
                                                  max_halving)
    fit = _dask_fit(problem, pt, pt.dev, pen if penalised else None, it, converged, history, tol)
    if warn:
        warn_fit(converged, fit.separated, fit.n_separated, it, tol, max_iter)
    return fit


def irls_evaluate_dask(X, y, weights, coef: np.ndarray, *, penalty: float | np.ndarray = 0.0
                       ) -> DaskIrlsFit:
    """:func:`fmstats.glm.irls_evaluate` on a dask array of rows: the fit at given
    coefficients, in one pass (``iterations`` 0, ``converged`` True)."""
    X, y, w = as_row_blocks(X, y, weights)
    coef = np.asarray(coef, dtype=float).copy()
    pen = np.broadcast_to(np.asarray(penalty, dtype=float), (X.shape[1],)).copy()
    penalised = bool(np.any(pen > 0))
    problem = _DaskProblem(X, y, w)
    with threadpool_limits(limits=1, user_api="blas"):
        pt = problem.at(coef)
    dev = 2.0 * (problem.sat - float(pt.extra.loglik))  # binomial deviance at the clipped mu
    return _dask_fit(problem, pt, dev, pen if penalised else None, 0, True, [(dev, 0.0)], 0.0)


def _dask_fit(problem, pt, dev, pen, it, converged, history, tol) -> DaskIrlsFit:
    ev = pt.extra
    null_dev, intercept = problem.null_deviance()
    n_sep = int(ev.n_sep)
    return DaskIrlsFit(
        coef=np.asarray(pt.coef, dtype=float), xtwx_inv=information_inverse(ev.H, pen),
        deviance=float(dev), null_deviance=float(null_dev), loglik=float(ev.loglik),
        pearson_chi2=float(ev.pearson), iterations=int(it), converged=bool(converged),
        separated=n_sep > 0, n_separated=n_sep, nobs=int(problem.consts[4]),
        n_active=int(problem.consts[5]), has_intercept=intercept, passes=problem.passes,
        history=np.asarray(history, dtype=float), tol=float(tol), penalty=pen)
