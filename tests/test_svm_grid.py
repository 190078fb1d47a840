"""The batched QP of the weighted SVM (``wsvm_grid``) and tune_wsvm's batched grid path.

References: lone ``wsvm_fit`` runs (the path of ``wsvm``), libsvm (scikit-learn's SVC at a
tight tolerance), and ``cv_tune``'s generic path (one ``wsvm`` fit per grid point and fold)
on the same folds.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVC

from fmstats.datasets import make_thesis_svm_data
from fmstats.exceptions import DataError
from fmstats.measures import FMeasure
from fmstats.svm import _tuning as svm_tuning
from fmstats.svm import wsvm
from fmstats.svm._qp import wsvm_fit, wsvm_grid
from fmstats.svm import thesis_grid, tune_wsvm
from fmstats.model_selection import cv_tune, with_measure

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

FORMULA = "y ~ x1 + x2"


@pytest.fixture(scope="module")
def a2():
    d = make_thesis_svm_data("A2", random_state=2024)
    return d[d["split"] == "train"].reset_index(drop=True)


def _costs(y, n_values=20):
    return np.array([[p["C_pos"], p["C_neg"]] for p in thesis_grid(y, n_values)])


# ----------------------------------------------------------------------------- wsvm_grid
def test_grid_equals_lone_fits_on_the_thesis_grid(a2):
    # every other row of A2 (seed 2024): with these rows one problem of the batch misses the
    # tolerance through rounding in the batched sums and must be solved again alone
    half = a2.iloc[::2]
    X, y = half[["x1", "x2"]].to_numpy(), half["y"].to_numpy()
    costs = _costs(y)
    grid = wsvm_grid(X, y, costs)
    lone = [wsvm_fit(X, y, *c) for c in costs]
    assert len(grid) == 210 and all(f.converged for f in grid)
    assert [f.polished for f in grid] == [f.polished for f in lone]
    assert sum(not f.polished for f in lone) > 0        # degenerate (w = 0) optima included
    for g, f in zip(grid, lone):
        np.testing.assert_allclose(g.w, f.w, atol=1e-7)
        assert g.b == pytest.approx(f.b, abs=1e-7)
        assert g.objective == pytest.approx(f.objective, rel=1e-9)
        # classes of two solutions equal to ~1e-7 (above): no row's decision is near enough
        # to 0 for rounding to flip it (the smallest here is 4.5e-5)
        assert np.abs(f.decision).min() > 1e-6
        np.testing.assert_array_equal(g.decision > 0, f.decision > 0)


def test_grid_batch_size_does_not_change_the_answers(a2):
    X, y = a2[["x1", "x2"]].to_numpy(), a2["y"].to_numpy()
    costs = _costs(y, n_values=8)
    one = wsvm_grid(X, y, costs, batch=1)
    for f, c in zip(one, costs):                        # batch=1 is the lone path exactly
        ref = wsvm_fit(X, y, *c)
        np.testing.assert_array_equal(f.w, ref.w)
        assert f.b == ref.b and f.iterations == ref.iterations
    for batch in (7, 128):
        for f, g in zip(one, wsvm_grid(X, y, costs, batch=batch)):
            np.testing.assert_allclose(g.w, f.w, atol=1e-8)
            assert g.b == pytest.approx(f.b, abs=1e-8)


def test_grid_agrees_with_libsvm(a2):
    sub = a2.iloc[::4]
    X, y = sub[["x1", "x2"]].to_numpy(), sub["y"].to_numpy()
    costs = np.array([[0.5, 0.5], [4.0, 0.25], [2.0, 1.0], [8.0, 2.0]])
    for f, (cp, cn) in zip(wsvm_grid(X, y, costs), costs):
        sk = SVC(kernel="linear", C=1.0, tol=1e-8, class_weight={1: cp, 0: cn}).fit(X, y)
        np.testing.assert_allclose(f.w, sk.coef_[0], atol=1e-4)
        assert f.b == pytest.approx(sk.intercept_[0], abs=1e-4)


def test_grid_with_sample_weights_equals_lone_fits(a2):
    X, y = a2[["x1", "x2"]].to_numpy(), a2["y"].to_numpy()
    w = np.random.default_rng(1).integers(0, 3, size=len(y)).astype(float)
    costs = np.array([[1.0, 0.5], [4.0, 0.25], [0.3, 0.3]])
    for f, c in zip(wsvm_grid(X, y, costs, sample_weight=w), costs):
        ref = wsvm_fit(X, y, *c, sample_weight=w)
        np.testing.assert_allclose(f.w, ref.w, atol=1e-8)
        assert f.b == pytest.approx(ref.b, abs=1e-8)
        assert np.all(f.dual[w == 0] == 0)     # exact: their box is [0, 0]


@pytest.mark.parametrize("costs", [np.ones(3), np.array([[1.0, 0.0]]), np.empty((0, 2)),
                                   np.array([[1.0, np.inf]])])
def test_grid_rejects_bad_costs(a2, costs):
    with pytest.raises(ValueError, match="costs|C_pos"):
        wsvm_grid(a2[["x1", "x2"]].to_numpy(), a2["y"].to_numpy(), costs)


# ----------------------------------------------------------------------------- tune_wsvm
@pytest.fixture(scope="module")
def messy(a2):
    """A2 rows with a 3-level factor, row weights (some 0) and a missing value."""
    rng = np.random.default_rng(8)
    d = a2.iloc[:160].assign(g=rng.choice(["a", "b", "c"], size=160),
                             k=rng.integers(0, 3, size=160).astype(float))
    d.loc[5, "x1"] = np.nan
    return d.reset_index(drop=True)


def _run(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, sorted((w.category.__name__, str(w.message)) for w in rec)


@pytest.mark.parametrize("criterion", ["f", "accuracy"])
def test_batched_grid_equals_one_fit_per_point(messy, criterion):
    formula = "y ~ x1 + x2 + C(g)"
    points = thesis_grid(messy["y"], n_values=5)
    rng = np.random.default_rng(3)
    fold = rng.permutation(np.arange(len(messy)) % 3)
    folds = [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(3)]
    fast, fast_w = _run(tune_wsvm, formula, messy, alpha=0.4, criterion=criterion,
                        n_values=5, cv=folds, weights="k", n_jobs=1, progress=False)
    slow, slow_w = _run(cv_tune, with_measure(wsvm, FMeasure(alpha=0.4)), formula, messy,
                        points, cv=folds, weights="k", n_jobs=1, progress=False,
                        **({"alpha": 0.4} if criterion == "f" else
                           {"measure": "accuracy", "alpha": 0.4}))
    pd.testing.assert_frame_equal(fast.tidy(), slow.tidy())
    pd.testing.assert_frame_equal(fast.fold_results, slow.fold_results)
    # tune_wsvm also builds the model frame of all rows once (its own check): one more
    # warning about `data` itself; the fold fits' warnings are the same
    extra = list(fast_w)
    for w in slow_w:
        extra.remove(w)
    assert [c for c, _ in extra] == ["MissingDataWarning"] and "of `data`" in extra[0][1]
    assert any("missing" in m for _, m in slow_w)
    # exact: both refit the chosen point with the same lone wsvm call on all rows
    np.testing.assert_array_equal(fast.best_model.params, slow.best_model.params)


def test_batched_grid_records_failed_folds_like_single_fits(messy):
    # the first training fold holds a single positive row: every fit on it fails, so no
    # grid point can be scored and both paths raise the same error
    messy = messy.dropna().reset_index(drop=True)
    pos = np.flatnonzero(messy["y"] == 1)
    test0 = np.r_[pos[1:], np.flatnonzero(messy["y"] == 0)[:20]]
    train0 = np.setdiff1d(np.arange(len(messy)), test0)
    folds = [(train0, test0), (test0, train0)]
    points = thesis_grid(messy["y"], n_values=3)
    errors = []
    for fn, args in ((tune_wsvm, (FORMULA, messy)),
                     (cv_tune, (with_measure(wsvm, FMeasure()), FORMULA, messy, points))):
        with pytest.raises(DataError, match="positive class of 'y' has 1 row") as exc:
            fn(*args, **({"grid": points} if fn is tune_wsvm else {}), cv=folds, n_jobs=1,
               progress=False, refit=False)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]


def test_chunked_parallel_results_equal_serial(a2, monkeypatch):
    kw = dict(alpha=0.3, n_values=8, cv=2, random_state=4, refit=False, progress=False)
    serial = tune_wsvm(FORMULA, a2, n_jobs=1, **kw)
    monkeypatch.setattr(svm_tuning, "WSVM_CHUNK", 5)      # 36 points: 8 chunks per fold
    chunked = tune_wsvm(FORMULA, a2, n_jobs=1, **kw)
    parallel = tune_wsvm(FORMULA, a2, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(chunked.tidy(), serial.tidy())
    pd.testing.assert_frame_equal(parallel.tidy(), chunked.tidy())
    pd.testing.assert_frame_equal(parallel.fold_results, chunked.fold_results)


@pytest.mark.parametrize("name", ["A2", "B1"])
@pytest.mark.parametrize("scale", [1.0, 1e4, 1e-4])
def test_qp_raises_no_floating_point_error_on_the_thesis_grids(name, scale):
    """The interior point on the 210-point thesis grid, on all rows and on every other row,
    with one column rescaled by ``scale``, under ``np.errstate(all="raise")``: no overflow,
    underflow, division by zero or invalid value anywhere, and every problem ends at a
    verified optimum.

    Mutant: without the stall rule and the floor on the iterates (a problem whose
    complementarity is far below its tolerance while a residual is not keeps iterating), the
    iterates of the badly conditioned problems fall towards 1e-300 and the reduced system
    overflows (issue 32: qp.py lines 112, 134, 135, 194, 195 warned on A2's every other row;
    the code before issue 32 fails this test).
    """
    d = make_thesis_svm_data(name, random_state=2024)
    d = d[d["split"] == "train"].reset_index(drop=True)
    for rows in (slice(None), slice(None, None, 2)):
        X = d[["x1", "x2"]].to_numpy()[rows] * np.array([1.0, scale])
        y = d["y"].to_numpy()[rows]
        with np.errstate(all="raise"):
            fits = wsvm_grid(X, y, _costs(y))
            lone = [wsvm_fit(X, y, *c) for c in _costs(y)]
        assert all(f.converged for f in fits + lone)
        for f in fits:    # a verified optimum: the dual box and the primal objective's bound
            assert np.all(f.dual >= 0) and np.all(f.dual <= f.c)
            assert f.dual_objective <= f.objective * (1 + 1e-7) + 1e-9
