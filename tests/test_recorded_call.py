"""Issue 43, item 1: the recorded call is the one source of refits and settings.

* ``refit`` is implemented once, on the results protocol (``ModelResults.refit``: the recorded
  call again); the families supply the model function and ``predict``;
* the results of a function run on a fitted model (``calibrate``, ``multiclass_decision``)
  refit by rerunning their recorded call on the refitted model, and give the numbers of
  that call made by hand;
* the settings of the tuners and of those functions are the call's resolved arguments plus
  what the run resolved;
* ``bootstrap`` and ``validate`` keep the model's :class:`ModelCall`, not its text.
"""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.results import ModelCall, ModelResults


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(43)
    n = 300
    d = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n)})
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-(0.3 + 1.2 * d.x1 - 0.8 * d.x2)))).astype(int)
    return d


@pytest.fixture(scope="module")
def titanic():
    return fm.datasets.titanic_complete()


def test_refit_is_implemented_once_on_the_protocol():
    """The model families inherit the protocol's refit (mutant: a family's own copy of
    ``self.call.refit(...)`` back in its class)."""
    for cls in (fm.MaxentResults, fm.WsvmResults, fm.FsvmResults, fm.MultinomResults):
        assert cls.refit is ModelResults.refit, cls.__name__
    # the protocol's refit is the recorded call again
    src = inspect.getsource(ModelResults.refit)
    assert "self.call.refit(" in src


def test_a_protocol_refit_is_the_call_again(data):
    fit = fm.maxent("y ~ x1 + x2", data, penalty=0.5)
    half = data.iloc[::2].reset_index(drop=True)
    again = fit.refit(half)
    by_hand = fm.maxent("y ~ x1 + x2", half, penalty=0.5)
    np.testing.assert_array_equal(again.params.to_numpy(), by_hand.params.to_numpy())
    assert again.call == by_hand.call


def test_calibrated_refit_reruns_its_call_with_explicit_folds(data):
    """Explicit folds belong to the old rows: the refit takes as many folds of the new rows
    (seeded as recorded).  Mutant: the folds passed on unchanged (the refit is refused) or
    the refit rebuilt with another seed."""
    fit = fm.maxent("y ~ x1 + x2", data)
    pairs = [(np.flatnonzero(np.arange(len(data)) % 4 != k),
              np.flatnonzero(np.arange(len(data)) % 4 == k)) for k in range(4)]
    cal = fm.calibrate(fit, data, method="isotonic", cv=pairs, threshold=0.4, random_state=7)
    assert cal.settings["cv"] == "<folds>" and cal.settings["threshold"] == 0.4
    new = data.iloc[:240].reset_index(drop=True)
    again = cal.refit(new)
    by_hand = fm.calibrate(fit.refit(new), new, method="isotonic", cv=4, threshold=0.4,
                           random_state=7)
    pd.testing.assert_frame_equal(again.oof, by_hand.oof)
    assert again.settings["method"] == "isotonic"


def test_multiclass_decision_refit_keeps_what_it_resolved(titanic):
    fit = fm.multinom("pclass ~ age + sex + sibsp", titanic)
    dec = fm.multiclass_decision(fit, titanic, rule="micro_f", default_class=3, cv=4,
                                 random_state=0)
    new = titanic.iloc[: len(titanic) * 3 // 4].reset_index(drop=True)
    again = dec.refit(new)
    by_hand = fm.multiclass_decision(fit.refit(new), new, rule="micro_f", default_class=3,
                                     cv=4, random_state=0)
    assert again.rule_params == by_hand.rule_params
    assert again.cv_score == by_hand.cv_score
    assert again.settings["default_class"] == 3


@pytest.mark.parametrize("make, model_arg", [
    (lambda fit, d: fm.calibrate(fit, d, random_state=1), "fit"),
    (lambda fit, d: fm.tune_threshold(fit, d, cv=3, random_state=1), "results"),
])
def test_settings_are_the_calls_resolved_arguments(data, make, model_arg):
    """Every argument of the function's signature (but the data and the fitted model) is
    in the settings, with its default applied.  Mutant: settings built by hand again."""
    res = make(fm.maxent("y ~ x1 + x2", data), data)
    params = inspect.signature(res.call.function).parameters
    want = {k for k in params if k not in ("data", model_arg)}
    assert want <= set(res.settings), sorted(want - set(res.settings))
    assert model_arg not in res.settings
    for k, v in res.call.resolved().items():
        if k in want and k not in ("cv", "measure", "random_state", "threshold", "type"):
            assert res.settings[k] == v, k


def test_cv_tune_settings_are_its_calls_arguments(data):
    res = fm.cv_tune(fm.maxent, "y ~ x1 + x2", data, {"penalty": [0.0, 1.0]}, cv=3,
                     random_state=2, beta=2.0)
    params = inspect.signature(fm.cv_tune).parameters
    want = {k for k in params if k not in ("data",) and params[k].kind
            is not inspect.Parameter.VAR_KEYWORD}
    assert want <= set(res.settings), sorted(want - set(res.settings))
    assert res.settings["beta"] == 2.0 and res.settings["measure"].fmeasure.beta == 2.0


def test_bootstrap_and_validate_keep_the_models_call(data):
    """The model's recorded call, not its text; files written before (the text) still plot
    the forest with the log-odds label.  Mutant: ``str(results.call)`` kept again."""
    pytest.importorskip("matplotlib")
    import matplotlib
    import matplotlib.pyplot
    matplotlib.use("Agg")
    fit = fm.maxent("y ~ x1 + x2", data)
    boot = fm.bootstrap(fit, B=50, random_state=0)
    assert isinstance(boot.model_call, ModelCall) and boot.model_call == fit.call
    assert str(fit.call) in str(boot.summary())
    val = fm.validate(fit, B=20, random_state=0)
    assert isinstance(val.model_call, ModelCall) and val.model_call == fit.call
    for b in (boot, dataclasses.replace(boot, model_call=str(fit.call))):
        fig = b.plot(kind="forest")
        labels = [a.get_xlabel() for a in fig.axes]
        assert any("log-odds" in lab for lab in labels), labels
        matplotlib.pyplot.close(fig)


def test_every_results_class_answers_its_training_rows_through_one_interface(data):
    """Issue 43, item 2: the models, the tuners and the decisions speak FitRows (what they
    do not keep reads None), and the functions that refit ask it through ``rows_of``; an
    object of another class (``step()``'s result delegates to its model) is read through the
    same names.  Mutants: a class dropped from FitRows (a tuned threshold's rows lost:
    bootstrap refuses it), ``rows_of`` answering None for a foreign object's rows."""
    from fmstats.results import FitRows, rows_of

    fit = fm.maxent("y ~ x1 + x2", data)
    tuned = fm.tune_threshold(fit, data, cv=3, random_state=0)
    cal = fm.calibrate(fit, data, random_state=0)
    cvt = fm.cv_tune(fm.maxent, "y ~ x1 + x2", data, {"penalty": [0.0, 1.0]}, cv=3,
                     random_state=0)
    for obj in (fit, tuned, cal, cvt, fm.wsvm("y ~ x1 + x2", data)):
        assert isinstance(obj, FitRows) and rows_of(obj) is obj
    assert rows_of(tuned).training_data is tuned.training_data
    # the model a result stands on (the replicates' separation flags, the design's engine)
    assert fit.fitted_model is fit and tuned.fitted_model is fit and cal.fitted_model is fit
    assert cvt.fitted_model is cvt.best_model
    assert rows_of(cvt).X is None and rows_of(cvt).training_data is None
    pd.testing.assert_index_equal(rows_of(cal).index, fit.index)
    # a foreign object: what it has is read, what it lacks is FitRows' answer
    step = fm.step(fm.maxent("y ~ x1 + x2", data))
    view = rows_of(step)
    assert not isinstance(step, FitRows)
    np.testing.assert_array_equal(view.y, step.model.y)
    assert view.training_data is None and view.refits_kept_rows is True
    assert view.fitted_model is step
    with pytest.raises(AttributeError):
        view.params                      # only the training-rows names
    # the tuned threshold's own rows are what a bootstrap of it resamples
    boot = fm.bootstrap(tuned, B=20, random_state=0)
    assert boot.n == len(data)
