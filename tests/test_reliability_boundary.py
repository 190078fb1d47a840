"""Issue 31, mechanism 4: foreign exceptions are translated at the boundary.

Every public entry point raises FmstatsErrors naming the argument, never pandas' KeyError,
Python's TypeError of a call or statsmodels' ValueError (``fmstats/_utils/boundary.py``); the
listed cases are fixed at their cause, and the wrapper catches the rest.  The command line
prints one line.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats._utils.boundary import public
from fmstats.exceptions import DataError, FmstatsError, FormulaError, InvalidArgumentError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def d():
    rng = np.random.default_rng(4)
    n = 160
    x1, x2 = rng.normal(size=(2, n))
    y = (rng.random(n) < 1 / (1 + np.exp(-0.3 - x1))).astype(int)
    return pd.DataFrame({"y": y, "x1": x1, "x2": x2, "g": np.where(x2 > 0, "a", "b")})


def test_sweep_with_newdata_lacking_a_column(d):
    """Was pandas' KeyError: 'x1'."""
    with pytest.raises(FormulaError, match=r"'x1' not found in `newdata`"):
        fm.sweep("y ~ x1", d, d.drop(columns="x1"), alphas=[0.5])


def test_tune_threshold_with_data_lacking_a_column(d):
    """Was pandas' KeyError: 'g' (and the data argument is `data`, not `newdata`)."""
    fit = fm.maxent("y ~ x1 + g", d)
    with pytest.raises(FormulaError, match=r"'g' not found in `data`"):
        fm.tune_threshold(fit, data=d.drop(columns="g"), random_state=1)


@pytest.mark.parametrize("value", ["a", {"x": 1}, [["a", "b"]]])
def test_bootstrap_statistic_returning_text(d, value):
    """Was numpy's ValueError: could not convert string to float."""
    fit = fm.maxent("y ~ x1", d)
    with pytest.raises(InvalidArgumentError, match=r"`statistic` must return numbers"):
        fm.bootstrap(fit, B=3, statistic=lambda r: value, random_state=1, data=d)


def test_a_users_own_error_passes_unchanged(d):
    """Errors of the user's callbacks are not foreign: they keep their type."""
    class Mine(Exception):
        pass

    def statistic(r):
        raise Mine("mine")

    with pytest.raises(Mine):
        fm.bootstrap(fm.maxent("y ~ x1", d), B=3, statistic=statistic, random_state=1, data=d)


@pytest.mark.parametrize("name", ["alpha", "beta", "measure"])
def test_sweep_with_a_single_alpha_says_use_alphas(d, name):
    """Was Python's TypeError 'got multiple values for keyword argument alpha'."""
    with pytest.raises(InvalidArgumentError, match=rf"`{name}`: sweep\(\).*`alphas=`"):
        fm.sweep("y ~ x1", d, **{name: 0.3})


@pytest.mark.parametrize("kw", [{"beta": 2}, {"alpha": 0.2}, {"measure": fm.FMeasure(beta=2)}])
@pytest.mark.parametrize("plot", ["plot_pr", "plot_roc"])
def test_plots_take_the_measure_as_f_curve_does(d, kw, plot):
    """plot_pr(beta=2) raised TypeError while f_curve(beta=2) worked: the plot marks the
    F2-optimal threshold of f_curve(beta=2)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fit = fm.maxent("y ~ x1", d)
    fig = getattr(fit, plot)(**kw)
    text = " ".join(t.get_text() for ax in fig.axes for t in ax.texts + [ax.title]) + " ".join(
        t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().texts)
    curve = fit.f_curve(beta=2)
    best = curve.loc[curve["f"].idxmax()]
    assert f"{best['f']:.3f}" in text and "F2" in text
    plt.close(fig)


@pytest.mark.parametrize("model", ["wsvm", "costsens"])
def test_predict_with_an_argument_the_model_does_not_take(d, model):
    """Was TypeError: predict() got an unexpected keyword argument 'se_fit'."""
    fit = getattr(fm, model)("y ~ x1", d)
    with pytest.raises(InvalidArgumentError, match=r"`se_fit` is not an argument of "
                                                   r"\w+Results\.predict\(\); it takes newdata"):
        fit.predict(d, se_fit=True)


def test_misspelt_argument_of_a_model_function_suggests_the_right_one(d):
    with pytest.raises(InvalidArgumentError, match=r"`wieghts` is not an argument of maxent\(\)"
                                                   r".*Did you mean `weights`\?"):
        fm.maxent("y ~ x1", d, wieghts="y")


def test_a_foreign_key_error_names_the_frame_lacking_the_column(d):
    """The wrapper's own rule on a foreign KeyError: the DataFrame argument missing it."""
    @public
    def entry(data, newdata):
        return newdata["x9"]          # pandas raises KeyError inside

    with pytest.raises(FormulaError, match=r"entry\(\): column 'x9' is not in `data`"):
        entry(d, d.assign(x9=1.0).drop(columns="x9"))


def test_a_foreign_value_error_names_the_entry_point_and_library(d):
    @public
    def entry(data):
        return pd.to_numeric(data["g"])          # pandas raises ValueError inside

    with pytest.raises(DataError, match=r"entry\(\): pandas raised ValueError: Unable to parse "
                                        r".*check `data`") as err:
        entry(d)
    assert isinstance(err.value.__cause__, ValueError)


def test_an_error_out_of_a_c_function_called_by_fmstats_is_translated():
    """fmstats' own frame calling a C function (a ufunc on text) is foreign."""
    from fmstats.glm import binomial_deviance

    @public
    def entry(y):
        return binomial_deviance(y, np.full(2, 0.5), np.ones(2))

    with pytest.raises(InvalidArgumentError, match=r"entry\(\): a C function raised "
                                                   r"UFuncTypeError.*check `y`|entry\(\): a C"):
        entry(np.array(["a", "b"]))


def test_a_raise_of_fmstats_own_code_passes_unchanged():
    """An internal invariant of the core (its shape check) is not a foreign error."""
    from fmstats.glm import irls_logit

    @public
    def entry(X):
        return irls_logit(X, np.zeros(2), start=np.zeros(5))

    with pytest.raises(ValueError, match=r"start must have shape") as err:
        entry(np.ones((2, 2)))
    assert not isinstance(err.value, FmstatsError)


def test_command_line_prints_one_line_on_bad_input():
    res = subprocess.run([sys.executable, "-m", "fmstats", "demo", "--beta", "-1"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert lines == ["python -m fmstats demo: error: `beta` must lie in [0, inf]; got -1.0."]


def test_every_error_is_an_fmstats_error_subclass():
    assert issubclass(fm.exceptions.WorkerError, FmstatsError)
