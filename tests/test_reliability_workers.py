"""Issue 31, mechanism 6: a lost worker.

* joblib's loky backend (``n_jobs=2``): a worker killed mid-bootstrap or mid-tuning is a
  :class:`~fmstats.exceptions.WorkerError` that says what happened and that nothing was written
  (it was joblib's TerminatedWorkerError);
* a ``dask.distributed`` cluster (a LocalCluster of 2 worker processes, started here): an
  out-of-core fit and a tuning grid survive the loss of one worker -- Dask recomputes its tasks
  and the data it held -- with the coefficients and scores of an undisturbed run.

Workers are killed with SIGKILL, deterministically: by the task itself in a worker process
(a marker file makes it happen once), or between two passes of the IRLS loop.
"""
from __future__ import annotations

import os
import signal

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import WorkerError

@pytest.fixture(scope="module")
def d():
    rng = np.random.default_rng(6)
    n = 600
    x1, x2 = rng.normal(size=(2, n))
    y = (rng.random(n) < 1 / (1 + np.exp(-0.2 - x1 + 0.5 * x2))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2})


def _die_once(marker: str, parent: int) -> None:
    """SIGKILL this process the first time it runs in a worker (never in the test process,
    ``parent``)."""
    if os.getpid() == parent:
        return
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def dying_statistic(results, marker, parent):
    _die_once(marker, parent)
    return results.params


def dying_maxent(formula, data, marker=None, parent=None, **kwargs):
    """fm.maxent, whose first call in a worker process kills that worker."""
    _die_once(marker, parent)
    return fm.maxent(formula, data, **kwargs)


# ----------------------------------------------------------------------------- loky
def test_a_worker_killed_mid_bootstrap_is_a_worker_error(d, tmp_path):
    fit = fm.maxent("y ~ x1 + x2", d)
    marker, parent = str(tmp_path / "killed"), os.getpid()
    with pytest.raises(WorkerError, match=r"a worker process died while running bootstrap.*"
                                          r"killed.*nothing was written"):
        fm.bootstrap(fit, B=12, statistic=lambda r: dying_statistic(r, marker, parent),
                     n_jobs=2, random_state=1, data=d, progress=False)
    assert os.path.exists(marker)               # it was a worker that died


@pytest.mark.slow      # ~7 s: two loky workers import fmstats (the bootstrap test is the fast one)
def test_a_worker_killed_mid_tuning_is_a_worker_error(d, tmp_path):
    marker = str(tmp_path / "killed")
    with pytest.raises(WorkerError, match=r"a worker process died.*nothing was written"):
        fm.cv_tune(dying_maxent, "y ~ x1 + x2", d, {"penalty": [0.0, 1.0]}, n_jobs=2,
                   random_state=1, marker=marker, parent=os.getpid(), reuse_design=False,
                   progress=False)


# ----------------------------------------------------------------------------- distributed
@pytest.fixture(scope="module")
def cluster():
    pytest.importorskip("distributed")
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        lc = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None)
    client = Client(lc)
    yield client
    client.close()
    lc.close()


def _kill_a_worker(client) -> None:
    pids = client.run(os.getpid)
    os.kill(sorted(pids.values())[0], signal.SIGKILL)


@pytest.mark.slow
def test_out_of_core_fit_survives_a_worker_killed_between_passes(d, cluster, monkeypatch):
    """The design is persisted on the workers; killing one between two IRLS passes loses its
    share, which the scheduler recomputes from the graph: the same coefficients."""
    import dask.dataframe as dd

    import fmstats.glm._dask as gdask

    ddf = dd.from_pandas(d, npartitions=6)
    undisturbed = fm.maxent("y ~ x1 + x2", ddf)
    original, calls = gdask.block_sums, []

    def killing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:                   # the Newton loop's second pass
            _kill_a_worker(cluster)
        return original(*args, **kwargs)

    monkeypatch.setattr(gdask, "block_sums", killing)
    got = fm.maxent("y ~ x1 + x2", ddf)
    assert len(calls) > 3
    np.testing.assert_array_equal(got.params.to_numpy(), undisturbed.params.to_numpy())
    np.testing.assert_allclose(got.params, fm.maxent("y ~ x1 + x2", d).params, rtol=1e-10)
    np.testing.assert_allclose(got.bse, undisturbed.bse, rtol=1e-12)


@pytest.mark.slow
def test_out_of_core_fit_survives_a_worker_killed_by_its_task(d, cluster, tmp_path):
    """A worker dies while running a partition's task (the scan): Dask reruns the task."""
    import dask.dataframe as dd

    marker, parent = str(tmp_path / "killed"), os.getpid()

    def dying(part):
        _die_once(marker, parent)
        return part

    ddf = dd.from_pandas(d, npartitions=6)
    got = fm.maxent("y ~ x1 + x2", ddf.map_partitions(dying, meta=ddf._meta))
    assert os.path.exists(marker)
    np.testing.assert_allclose(got.params, fm.maxent("y ~ x1 + x2", d).params, rtol=1e-10)


@pytest.mark.slow
def test_tuning_on_the_cluster_survives_a_killed_worker(d, cluster, tmp_path):
    """cv_tune's fits sent to the cluster through joblib's dask backend: a fit kills its
    worker; the scheduler reruns it elsewhere, and the scores are those of a local run."""
    from joblib import parallel_config

    marker = str(tmp_path / "killed")
    grid = {"penalty": [0.0, 1.0, 10.0]}
    local = fm.cv_tune(fm.maxent, "y ~ x1 + x2", d, grid, random_state=2, progress=False)
    with parallel_config(backend="dask"):
        got = fm.cv_tune(dying_maxent, "y ~ x1 + x2", d, grid, random_state=2, marker=marker,
                         parent=os.getpid(), progress=False)
    assert os.path.exists(marker)
    pd.testing.assert_frame_equal(got.tidy(), local.tidy(), check_exact=False, rtol=1e-10)
    assert got.best_params == local.best_params
