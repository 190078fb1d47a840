"""Independent refits (CV grid points, bootstrap replicates) through joblib.

:func:`capturing` runs one fit in a worker, returning an FmstatsError instead of raising it and
the warnings it emitted, which :func:`reemit` repeats once per category in the calling process
(so warnings do not depend on ``n_jobs``); used by the tuners and :mod:`fmstats.svm`.

Workers are module-level functions, so ``joblib.parallel_config(backend="dask")``
sends them to a Dask cluster unchanged.  Seeds are spawned from ``random_state``
before any work is dispatched, so results do not depend on ``n_jobs`` or on the
order in which workers finish.  Progress bars follow the rule of ``_progress``.
"""
from __future__ import annotations

import os
import warnings
from concurrent.futures import BrokenExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from .progress import progress_bar, progress_enabled
from .validation import check_choice, check_random_state, check_scalar, warn
from ..exceptions import FmstatsError, WorkerError

__all__ = ["spawn_seeds", "check_n_jobs", "run_tasks", "row_block", "ROW_BLOCKS", "capturing",
           "reemit"]


def spawn_seeds(random_state: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds derived from ``random_state``.

    The same ``random_state`` always gives the same children; a Generator
    contributes one draw from its stream (so it advances, as numpy expects).
    """
    rng = check_random_state(random_state)
    root = np.random.SeedSequence(int(rng.integers(0, 2**63 - 1)))
    return root.spawn(int(n))


def check_n_jobs(n_jobs: Any) -> int | None:
    """``None`` (joblib's configured default), a positive integer, or -1 (all cores)."""
    if n_jobs is None or n_jobs == -1:
        return n_jobs
    return int(check_scalar("n_jobs", n_jobs, low=1, integer=True))


#: Row-parallel work is cut into at least this many blocks when it has enough rows: the
#: threads of a pool finish together (one block more on one thread is 1/16 of the work).
ROW_BLOCKS = 16


def row_block(n: int, largest: int) -> int:
    """Rows per block for ``n`` independent rows: at most ``largest`` (bounded temporaries),
    and small enough for :data:`ROW_BLOCKS` blocks.  Depends on ``n`` only, not on the
    number of threads."""
    return max(1, min(int(largest), -(-int(n) // ROW_BLOCKS)))


#: The BLAS limit set in this worker process (by pid: a forked child starts afresh).
_WORKER_LIMIT: dict = {}


def _limit_blas(blas_threads: int) -> None:
    """Limit BLAS in this worker process for good, once (threadpoolctl re-scans the loaded
    libraries on every call: too much to pay around every fit)."""
    pid = os.getpid()
    if _WORKER_LIMIT.get(pid) != blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=blas_threads, user_api="blas")
        _WORKER_LIMIT[pid] = blas_threads


def _run_one(fn: Callable, args: Sequence, blas_threads: int | None, parent: int):
    if blas_threads is not None and os.getpid() != parent:
        _limit_blas(blas_threads)        # a worker process: once for all its tasks
    return fn(*args)


@contextmanager
def _limited_here(blas_threads: int | None):
    """One BLAS limit around all the tasks that run in this process (n_jobs=1, threads)."""
    if blas_threads is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=blas_threads, user_api="blas"):
        yield


def run_tasks(fn: Callable, tasks: Iterable[Sequence], *, n_jobs: int | None = None,
              progress: Any = None, desc: str | None = None, total: int | None = None,
              blas_threads: int | None = 1, backend: str | None = None) -> list:
    """Run ``fn(*task)`` for every task and return the results in task order.

    ``fn`` must be a module-level function (picklable) for parallel backends.
    BLAS is limited to ``blas_threads`` while the tasks run: parallelism comes from
    running tasks side by side, not from threads inside one fit.  The limit is set once
    per run in this process and once per worker process (where it stays), not per task.
    """
    from joblib import Parallel, delayed

    n_jobs = check_n_jobs(n_jobs)
    if backend is not None:
        check_choice("backend", backend, ("loky", "threading", "multiprocessing", "dask"))
    tasks = list(tasks)
    total = len(tasks) if total is None else total
    show = progress_enabled(progress)
    parallel = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator")
    parent = os.getpid()
    with _limited_here(blas_threads):
        results = parallel(delayed(_run_one)(fn, tuple(t), blas_threads, parent) for t in tasks)
        if show:
            results = progress_bar(results, total=total, desc=desc)
        try:
            return list(results)
        except BrokenExecutor as exc:   # loky's TerminatedWorkerError, multiprocessing's pool
            raise WorkerError(
                f"a worker process died while running {desc or 'the tasks'} "
                f"({type(exc).__name__}: it was killed, e.g. by the out-of-memory killer, or "
                f"crashed); the other workers were stopped, no result of this call was "
                f"returned and nothing was written. Rerun it, with fewer `n_jobs` (or "
                f"n_jobs=1) if memory ran out.") from exc


def capturing(fn: Callable, *args):
    """Run ``fn(*args)``; return (value, FmstatsError or None, [(category, message)])."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value, error = fn(*args), None
        except FmstatsError as exc:
            value, error = None, exc
    return value, error, [(w.category, str(w.message)) for w in caught]


def reemit(records: list, n: int, what: str) -> None:
    by_cat: dict = {}
    for cat, msg in records:
        by_cat.setdefault(cat, []).append(msg)
    for cat, msgs in by_cat.items():
        warn(f"{len(msgs)} warning(s) of this kind in {n} {what}; the first: {msgs[0]}", cat)
