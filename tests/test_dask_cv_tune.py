"""``cv_tune`` on a Dask DataFrame (issue 41 item 3): the grid tuned on the row blocks.

The reference is the in-memory ``cv_tune`` of the same rows given the same folds as explicit
(train, test) pairs -- the folds recomputed on the client from the seed and the rows'
positions (``row_folds(fold_key(seed), arange(n), k)``) -- whose fold fits are ordinary
in-memory fits of each training fold (``model_fn(formula, fold_rows)``), independent of the
out-of-core refit engine under test.  Equality tests run on Dask's synchronous scheduler
(the task graphs a cluster runs); one small test runs on a 2-worker LocalCluster (threads),
as ``test_dask_workflow.py`` does.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("dask.distributed")

import fmstats as fm  # noqa: E402
from fmstats._utils.rowrng import fold_key, row_folds  # noqa: E402
from fmstats.exceptions import (EmptyFoldWarning, FitFailedWarning,  # noqa: E402
                                InvalidArgumentError, SeparationWarning)
from test_dask_workflow import _data  # noqa: E402  (the same simulated rows)

FORMULA = "y ~ x1 + x2 + x3 + g"
SEED = 11
K = 3


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _pairs(n, k=K, seed=SEED):
    """The out-of-core folds as (train, test) positions, computed in memory."""
    fold = row_folds(fold_key(seed), np.arange(n), k)
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeparationWarning)
        return fn(*args, **kwargs)


CASES = {
    "maxent weights, penalty x threshold": (
        fm.maxent, {"weights": "w"}, {"penalty": [0.0, 30.0], "threshold": [0.2, 0.35, 0.5]},
        {}),
    "maxent, pooling mean, F2": (fm.maxent, {}, {"penalty": [0.0, 100.0, 1000.0]},
                                 {"pooling": "mean", "beta": 2}),
    "maxent, accuracy": (fm.maxent, {}, {"threshold": [0.3, 0.5]}, {"measure": "accuracy"}),
    "fmaxent F2 shrinkage": (fm.fmaxent, {"beta": 2, "cov_type": "HC0"},
                             {"shrinkage": [0.0, 1.0]}, {}),
    "with_measure(fmaxent)": (fm.with_measure(fm.fmaxent, alpha=0.3), {"cov_type": "HC0"},
                              {"shrinkage": [0.1, 3.0]}, {"alpha": 0.3}),
    # probabilistic labels q: the held-out rows count fractionally (q, 1 - q)
    "umaxent q": (fm.umaxent, {}, {"penalty": [0.0, 10.0]}, {}),
}


@pytest.fixture(scope="module")
def tuned():
    d = _data(2400, seed=8, intercept=-2.0)
    ddf = dd.from_pandas(d, npartitions=4)
    out = {}
    with dask.config.set(scheduler="synchronous"):
        for name, (fn, kw, grid, crit) in CASES.items():
            n = 2400 if fn is fm.maxent else 1500
            sub = d.iloc[:n]
            part = ddf if n == len(d) else dd.from_pandas(sub, npartitions=3)
            formula = "q ~ x1 + x2 + g" if fn is fm.umaxent else FORMULA
            ooc = _quiet(fm.cv_tune, fn, formula, part, grid, cv=K, random_state=SEED, **crit,
                         **kw)
            mem = _quiet(fm.cv_tune, fn, formula, sub, grid, cv=_pairs(n), **crit, **kw)
            out[name] = (ooc, mem, sub, part)
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_cv_tune_out_of_core_equals_in_memory_on_the_same_folds(tuned, case):
    ooc, mem, d, _ = tuned[case]
    assert ooc.best_params == mem.best_params and ooc.best_index == mem.best_index
    a, b = ooc.tidy(), mem.tidy()
    assert list(a.columns) == list(b.columns)
    for col in ("f", "precision", "recall", "accuracy", "fold_mean", "fold_sd", "fold_min",
                "fold_max"):
        np.testing.assert_allclose(a[col], b[col], rtol=0, atol=1e-8, err_msg=col)
    pd.testing.assert_series_equal(a["rank"], b["rank"])
    cells = ["tp", "fp", "fn", "tn"]
    np.testing.assert_allclose(ooc.fold_results[cells], mem.fold_results[cells], rtol=1e-10)
    # the refit on all rows (out of core) is the in-memory refit
    np.testing.assert_allclose(ooc.best_model.params, mem.best_model.params, rtol=1e-7,
                               atol=1e-9)
    assert ooc.n_rows == mem.n_rows == len(d)
    np.testing.assert_array_equal(ooc.fold_table()["n_test"], [len(te) for _, te in _pairs(
        len(d))])


def test_the_results_read_as_a_cv_tune_and_are_a_model(tuned):
    ooc, mem, d, ddf = tuned["maxent weights, penalty x threshold"]
    assert isinstance(ooc, fm.CvTuneResults)
    text = str(ooc.summary())
    assert "on the row blocks" in text and "Refitted on all rows: yes (2400 rows)" in text
    assert "6 points x 3 folds" in repr(ooc)
    assert ooc.confusion(d).tp == pytest.approx(mem.confusion(d).tp, rel=1e-12)
    np.testing.assert_allclose(ooc.predict(d), mem.predict(d), rtol=1e-9)
    assert ooc.measure(ddf) == pytest.approx(mem.measure(d), rel=1e-9)
    with pytest.raises(fm.FmstatsError, match="not held"):
        ooc.folds
    blob = pickle.dumps(ooc)
    assert b"dask." not in blob
    back = pickle.loads(blob)
    pd.testing.assert_frame_equal(back.tidy(), ooc.tidy())


def test_the_result_does_not_depend_on_the_partitioning():
    d = _data(1800, seed=3, intercept=-2.0)
    grid = {"penalty": [0.0, 50.0], "threshold": [0.25, 0.4]}
    a = fm.cv_tune(fm.maxent, FORMULA, dd.from_pandas(d, npartitions=2), grid, cv=4,
                   random_state=2)
    b5 = dd.from_pandas(d, npartitions=5)
    b = fm.cv_tune(fm.maxent, FORMULA, b5, grid, cv=4, random_state=2)
    pd.testing.assert_frame_equal(a.tidy(), b.tidy(), rtol=1e-12)
    # refit() reruns the recorded tuning (same folds' rule and seed) on the Dask data
    pd.testing.assert_frame_equal(b.refit(b5).tidy(), b.tidy(), rtol=1e-12)


def test_options_that_need_the_rows_in_memory_are_refused_by_name():
    d = _data(600, seed=1, intercept=-1.0)
    ddf = dd.from_pandas(d, npartitions=2)
    grid = {"penalty": [0.0, 1.0]}
    for kwargs, what in [({"cv": _pairs(600)}, "`cv`"), ({"repeats": 2}, "`repeats`"),
                         ({"ci": True}, "`ci`"), ({"reuse_design": False}, "`reuse_design`"),
                         ({"n_jobs": 2}, "`n_jobs`")]:
        with pytest.raises(InvalidArgumentError, match=what + ".*Dask DataFrame"):
            fm.cv_tune(fm.maxent, FORMULA, ddf, grid, **kwargs)
    with pytest.raises(InvalidArgumentError, match="wsvm.*maxent, umaxent, fmaxent"):
        fm.cv_tune(fm.wsvm, FORMULA, ddf, {"C_pos": [1.0]})
    with pytest.raises(InvalidArgumentError, match="wsvm fits its grid itself"):
        fm.cv_tune(fm.svm.WsvmGrid(fm.FMeasure()), FORMULA, ddf, {"C_pos": [1.0]})

    def in_memory(formula, data, **kw):
        return fm.maxent(formula, data.compute(), **kw)
    with pytest.raises(InvalidArgumentError, match="in_memory fitted the Dask DataFrame but"):
        fm.cv_tune(in_memory, FORMULA, ddf, grid)


def test_a_failed_grid_point_is_recorded_or_raised():
    d = _data(900, seed=4, intercept=-1.0)
    ddf = dd.from_pandas(d, npartitions=3)
    grid = [{"penalty": 1.0}, {"penalty": -1.0}]     # a negative ridge: the fit refuses it
    with pytest.warns(FitFailedWarning, match="3 of 6 fold fits failed"):
        res = fm.cv_tune(fm.maxent, FORMULA, ddf, grid, cv=3, random_state=0)
    t = res.tidy()
    assert t["n_failed"].tolist() == [0, 3] and np.isnan(t["f"].iloc[1])
    assert res.best_params == {"penalty": 1.0}
    assert res.fold_results["error"].iloc[3].startswith("InvalidArgumentError")
    with pytest.raises(InvalidArgumentError, match="penalty"):
        fm.cv_tune(fm.maxent, FORMULA, ddf, grid, cv=3, on_error="raise")
    with pytest.warns(FitFailedWarning, match="3 of 6 fold fits failed"):
        rev = fm.cv_tune(fm.maxent, FORMULA, ddf, grid[::-1], cv=3, random_state=0)
    assert rev.tidy()["n_failed"].tolist() == [3, 0]       # the order of the grid: no matter
    assert rev.best_params == {"penalty": 1.0}
    assert rev.tidy()["f"].iloc[1] == pytest.approx(t["f"].iloc[0], rel=1e-12)
    with pytest.raises(InvalidArgumentError, match="failed at every point"):
        fm.cv_tune(fm.maxent, FORMULA, ddf, [{"penalty": -1.0}, {"penalty": -2.0}], cv=3)


def test_a_fold_without_positives_warns():
    d = _data(400, seed=3, intercept=-5.5)
    assert 1 <= d["y"].sum() < 10          # fewer positives than folds: a fold holds none
    with pytest.warns(EmptyFoldWarning, match="hold no positive row of 'y'"):
        fm.cv_tune(fm.maxent, "y ~ x1", dd.from_pandas(d, npartitions=2),
                   {"penalty": [1.0]}, cv=10, random_state=0)


def test_progress_bar_over_the_grid_points(capsys):
    d = _data(600, seed=1, intercept=-1.0)
    fm.cv_tune(fm.maxent, FORMULA, dd.from_pandas(d, npartitions=2), {"penalty": [0.0, 1.0]},
               cv=3, progress=True)
    assert "cv_tune out of core: 2 points x 3 folds" in capsys.readouterr().err


def test_on_a_local_cluster_equals_the_synchronous_run():
    from dask.distributed import Client, LocalCluster

    d = _data(1200, seed=5, intercept=-2.0)
    grid = {"penalty": [0.0, 20.0]}
    sync = fm.cv_tune(fm.maxent, FORMULA, dd.from_pandas(d, npartitions=3), grid, cv=3,
                      random_state=1)
    with dask.config.set(scheduler=None), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                         dashboard_address=":0") as cluster, Client(cluster):
        res = fm.cv_tune(fm.maxent, FORMULA, dd.from_pandas(d, npartitions=3), grid, cv=3,
                         random_state=1)
    pd.testing.assert_frame_equal(res.tidy(), sync.tidy(), rtol=1e-12)


@pytest.mark.parametrize("fn, kw, point", [(fm.maxent, {"weights": "w"}, {"penalty": 5.0}),
                                           (fm.fmaxent, {"beta": 2, "cov_type": "HC0"},
                                            {"shrinkage": 1.0})])
def test_fold_fits_are_the_in_memory_fits_of_the_training_folds(fn, kw, point):
    """Fits iterated to convergence, not k-step approximations: each fold fit's coefficients
    are those of the model fitted in memory on the fold's training rows."""
    from fmstats.model_selection._ooccvtune import cv_tune_out_of_core

    d = _data(1500, seed=6, intercept=-2.0)
    found = _quiet(cv_tune_out_of_core, fn, FORMULA, dd.from_pandas(d, npartitions=3),
                   [point], kw, k=K, seed=SEED, pooling="tp_fp", on_error="record",
                   progress=False)
    for j, (train, _) in enumerate(_pairs(len(d))):
        mem = _quiet(fn, FORMULA, d.iloc[train].reset_index(drop=True), **point, **kw)
        np.testing.assert_allclose(found.fold_coef[0, j], mem.params.to_numpy(), rtol=1e-7,
                                   atol=1e-8)
