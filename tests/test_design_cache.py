"""The design built once per tuning call (fmstats.formula._reuse) against the per-fold rebuild.

The reference is the rebuild path (``reuse_design=False``: every fold fit and held-out
prediction rebuilds its design from the formula, the behaviour that the other test modules
check against R, scikit-learn and statsmodels).  Both paths must give the same numbers
(1e-12), and the design must really be built once (the engine is counted), so the equality
is not vacuous.  Folds that lose a factor level and stateful formulas must rebuild.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.formula import _frame as formula_module
from fmstats.formula import _modelframe as modelframe_module
from fmstats.formula import REBUILT, REUSED, DesignMatrix

TOL = 1e-12
FORMULA = "income ~ age + education_num + hours_per_week + C(sex) + C(race) + workclass"


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    d = fm.datasets.load_adult("train")
    d = d[~d["workclass"].isin(["Without-pay", "Never-worked"])]     # levels of < 20 rows
    rows = np.random.default_rng(7).choice(len(d), 3000, replace=False)
    return d.iloc[np.sort(rows)].copy()        # keeps missing workclass values (dropped)


@pytest.fixture
def engine_calls(monkeypatch):
    """How often the formula engine is called (to learn a design or to apply one)."""
    calls = []
    real = formula_module.engine_frame

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(formula_module, "engine_frame", counting)
    return calls


def both(fn, caught=None):
    """fn(reuse_design) with designs built once (True) and with the per-fold rebuild (False);
    the warnings of each run are appended to ``caught`` (a list) as sorted (category, message)
    lists."""
    out = []
    for reuse in (True, False):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out.append(fn(reuse))
        if caught is not None:
            caught.append(sorted((w.category.__name__, str(w.message)) for w in rec))
    return out


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def assert_frames_equal(a: pd.DataFrame, b: pd.DataFrame):
    assert list(a.columns) == list(b.columns)
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if np.issubdtype(np.asarray(x).dtype, np.number):
            np.testing.assert_allclose(x.astype(float), y.astype(float), rtol=0, atol=TOL)
        else:
            assert list(x) == list(y), c


def test_design_rows_equal_the_engine_on_subsets(adult):
    d = DesignMatrix(FORMULA, adult)
    assert d.usable and d.note == REUSED
    rows = np.sort(np.random.default_rng(1).choice(len(adult), 1000, replace=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = modelframe_module.model_frame(FORMULA, adult.iloc[rows])
        got = modelframe_module.model_frame(FORMULA, d.subset(rows))
    assert got.spec is d.spec                       # taken from the design, not rebuilt
    assert got.column_names == ref.column_names
    # bit for bit: the columns are the data's values, 0/1 dummies and 1s, copied not computed
    np.testing.assert_array_equal(got.X, ref.X)
    np.testing.assert_array_equal(got.response.y, ref.response.y)
    assert list(got.index) == list(ref.index) and got.n_dropped == ref.n_dropped > 0


def test_cv_tune_maxent_equals_rebuild(adult, engine_calls):
    def run(reuse):
        engine_calls.clear()
        r = fm.cv_tune(fm.maxent, FORMULA, adult, {"penalty": [0.0, 1.0, 10.0]}, cv=4,
                       random_state=3, reuse_design=reuse)
        return r, len(engine_calls)

    caught = []
    (a, calls_a), (b, calls_b) = both(run, caught)
    assert caught[0] == caught[1] and caught[0]   # the same warnings (missing workclass)
    assert calls_a == 2      # the design of all rows, then the refit of the best point
    assert calls_b == 2 * 3 * 4 + 1    # a fit and a prediction per (point, fold)
    assert_frames_equal(a.tidy(), b.tidy())
    assert_frames_equal(a.fold_results, b.fold_results)
    np.testing.assert_allclose(a.best_model.params, b.best_model.params, rtol=0, atol=TOL)
    assert a.settings["design_note"] == REUSED
    assert "built once" in str(a.summary())


def test_tune_threshold_maxent_and_fmaxent_equal_rebuild(adult, engine_calls):
    for model in (quiet(fm.maxent, FORMULA, adult), quiet(fm.fmaxent, FORMULA, adult, beta=1)):
        def run(reuse):
            engine_calls.clear()
            return (fm.tune_threshold(model, adult, cv=5, random_state=0, reuse_design=reuse),
                    len(engine_calls))

        (a, calls_a), (b, calls_b) = both(run)
        # rebuilding: the check of `data` against the model, then a fit and a prediction per
        # fold; reusing: the folds are refitted on the fit's own design (its engine,
        # row_refits()), and only the check of `data` builds a design (of a sample of rows)
        assert calls_a == 1 and calls_b == 1 + 2 * 5, (calls_a, calls_b)
        assert a.settings["design_note"].startswith("the fit's own design")
        # the same fits by another code path (the same IRLS on the kept rows): equal to
        # rounding, so scores of ~1e-17 may tie in one and not in the other -- the curves are
        # compared at the tuned cut, the scores row by row
        assert a.threshold == pytest.approx(b.threshold, rel=1e-9)
        assert a.best_score == pytest.approx(b.best_score, rel=1e-12)
        pd.testing.assert_frame_equal(a.cv_scores, b.cv_scores, rtol=1e-9, atol=1e-14)


def test_wsvm_tuners_equal_rebuild(adult, engine_calls):
    f = "I(income == '>50K') ~ age + education_num + C(sex) + workclass"
    data = adult.iloc[:600]

    def batched(reuse):
        engine_calls.clear()
        r = fm.svm.tune_wsvm(f, data, grid={"C_pos": [0.5, 2.0], "C_neg": [0.5]}, cv=3,
                             random_state=1, reuse_design=reuse)
        return r, len(engine_calls)

    (a, calls_a), (b, calls_b) = both(batched)
    # the tuner's check of the data, the design (or per fold: the fit and the held-out rows),
    # the refit of the best point
    assert calls_a == 3 and calls_b == 1 + 3 * 2 + 1, (calls_a, calls_b)
    assert_frames_equal(a.tidy(), b.tidy())
    np.testing.assert_allclose(a.best_model.params, b.best_model.params, rtol=0, atol=TOL)
    a, b = both(lambda reuse: fm.cv_tune(fm.wsvm, f, data, {"C_pos": [1.0, 4.0]}, cv=3,
                                         random_state=2, reuse_design=reuse))
    assert_frames_equal(a.tidy(), b.tidy())
    assert_frames_equal(a.fold_results, b.fold_results)


def test_bootstrap_and_validate_refit_paths_equal_rebuild(adult, engine_calls):
    data = adult.iloc[:800]
    fit = quiet(fm.maxent, FORMULA, data)

    def boot(reuse):
        engine_calls.clear()
        return (fm.bootstrap(fit, B=6, fast=False, data=data, random_state=4,
                             reuse_design=reuse), len(engine_calls))

    (a, calls_a), (b, calls_b) = both(boot)
    assert calls_a == 1 and calls_b == 1 + 6      # rebuilding: the check of `data`, 6 refits
    np.testing.assert_allclose(a.replicates.to_numpy(), b.replicates.to_numpy(), rtol=0,
                               atol=TOL, equal_nan=True)
    ffit = quiet(fm.fmaxent, FORMULA, data, beta=1)
    va, vb = both(lambda reuse: fm.validate(ffit, B=5, data=data, random_state=5,
                                            reuse_design=reuse))
    assert_frames_equal(va.table.reset_index(), vb.table.reset_index())


def test_fold_without_a_level_and_stateful_formulas_rebuild(adult, engine_calls):
    data = adult.iloc[:400].copy()
    data["rare"] = np.where(np.arange(len(data)) < 3, "r", "common")   # 3 rows of a level
    f = "income ~ age + education_num + rare"
    a, b = both(lambda reuse: fm.cv_tune(fm.maxent, f, data, {"penalty": [1.0]}, cv=5,
                                         random_state=6, reuse_design=reuse))
    assert_frames_equal(a.tidy(), b.tidy())
    assert_frames_equal(a.fold_results, b.fold_results)

    stateful = "income ~ center(age) + education_num"
    d = DesignMatrix(stateful, data)
    assert not d.usable and d.note.startswith(REBUILT) and "center()" in d.note
    engine_calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fm.cv_tune(fm.maxent, stateful, data, {"penalty": [0.0, 1.0]}, cv=3,
                       random_state=0)
    assert len(engine_calls) > 2 * 3          # every fold fit and prediction rebuilds
    assert "center()" in r.settings["design_note"] and "rebuilt" in str(r.summary())
    assert DesignMatrix("income ~ C(age > 40) + education_num", data).usable is False
