"""The shared joblib runner: order, seeds independent of n_jobs, argument checks."""
import numpy as np
import pytest

from fmstats._utils.parallel import check_n_jobs, run_tasks, spawn_seeds
from fmstats._utils.progress import progress_enabled
from fmstats._utils.validation import check_random_state
from fmstats.exceptions import InvalidArgumentError


def _draw(seed, k):
    return np.random.default_rng(seed).standard_normal(k)


def _square(x):
    return x * x


def test_results_come_back_in_task_order():
    assert run_tasks(_square, [(i,) for i in range(20)], n_jobs=2) == [i * i for i in range(20)]


def test_replicates_do_not_depend_on_n_jobs():
    one = run_tasks(_draw, [(s, 3) for s in spawn_seeds(11, 8)], n_jobs=1)
    two = run_tasks(_draw, [(s, 3) for s in spawn_seeds(11, 8)], n_jobs=2)
    np.testing.assert_array_equal(np.vstack(one), np.vstack(two))


def test_spawned_seeds_are_distinct_and_reproducible():
    a = [_draw(s, 1)[0] for s in spawn_seeds(5, 50)]
    b = [_draw(s, 1)[0] for s in spawn_seeds(5, 50)]
    assert a == b
    assert len(set(a)) == 50
    assert a != [_draw(s, 1)[0] for s in spawn_seeds(6, 50)]


def test_a_generator_advances():
    rng = np.random.default_rng(0)
    first, second = spawn_seeds(rng, 1)[0], spawn_seeds(rng, 1)[0]
    assert _draw(first, 1)[0] != _draw(second, 1)[0]


@pytest.mark.parametrize("bad", [-2, 0, 1.5, "two"])
def test_bad_n_jobs(bad):
    with pytest.raises(InvalidArgumentError, match="n_jobs"):
        check_n_jobs(bad)


def test_bad_progress():
    with pytest.raises(InvalidArgumentError, match="`progress`"):
        progress_enabled("yes")
    assert progress_enabled(False) is False and progress_enabled(True) is True


@pytest.mark.parametrize("bad", [-1, 1.0, "a", True])
def test_bad_random_state(bad):
    with pytest.raises(InvalidArgumentError, match="`random_state`"):
        check_random_state(bad)


def test_progress_bar_writes_to_stderr(capsys):
    run_tasks(_square, [(i,) for i in range(3)], n_jobs=1, progress=True, desc="refits")
    assert "refits" in capsys.readouterr().err


def _blas_threads(_):
    from threadpoolctl import threadpool_info

    return sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})


def test_blas_is_limited_once_per_run_not_per_task(monkeypatch):
    import threadpoolctl

    calls = []
    real = threadpoolctl.threadpool_limits

    def counting(*args, **kwargs):
        calls.append(kwargs.get("limits"))
        return real(*args, **kwargs)

    monkeypatch.setattr(threadpoolctl, "threadpool_limits", counting)
    out = run_tasks(_blas_threads, [(i,) for i in range(12)], n_jobs=1)
    assert calls == [1]                                  # one call for 12 tasks (was 12)
    assert all(t in ([1], []) for t in out)             # and every task ran with BLAS at 1
    calls.clear()
    run_tasks(_square, [(i,) for i in range(5)], n_jobs=1, blas_threads=None)
    assert calls == []
