"""Every public plot function and method, drawn with the Agg backend on small data.

Checked on every figure: each visible axes has an x label, a y label and a title (or the
figure a suptitle); a log axis says so in its label; every numeric tick label has at most 3
significant digits (or reads 2^k / 10^k); a colour bar has a label.  Specific: the bootstrap
forest plot puts coefficients and the training F on separate, differently labelled panels;
plot_sweep has a secondary top axis of beta = sqrt((1 - alpha)/alpha), checked against
fmstats.measures.FMeasure; the CV heat map labels a power-of-two grid as 2^k.

PLOTTERS lists the plot functions and methods by name; test_the_list_is_complete walks the
package for public callables whose names start with ``plot`` so that a new one cannot be
missed.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats import plotting  # noqa: E402
from fmstats.measures import FMeasure  # noqa: E402

REF = Path(__file__).parent / "reference"
FORMULA = "y ~ x1 + x2 + g"

# owner (module function "module.func" or method "Class.method") -> how the test draws it
PLOTTERS = {
    "fmstats.plotting.plot_history": "fmaxent history",
    "fmstats.plotting.plot_sweep": "sweep table",
    "fmstats.plotting.plot_pr": "f_curve table",
    "fmstats.plotting.plot_roc": "f_curve table",
    "fmstats.diagnostics.plot_diagnostics": "maxent fit",
    "fmstats.svm.tuning.plot_chapter8": "chapter-8 table",
    "ScoreCurves.plot_pr": "maxent, fmaxent, wsvm fits and a thresholded classifier",
    "ScoreCurves.plot_roc": "maxent, fmaxent, wsvm fits and a thresholded classifier",
    "FMaxentResults.plot_history": "fmaxent fit",
    "FsvmResults.plot_trace": "fsvm fit",
    "BootstrapResults.plot": "forest and hist",
    "ResampledF.plot": "resample_f",
    "ThresholdedResults.plot": "tune_threshold",
    "CvTuneResults.plot": "1-D curve and 2-D heat map",
    "CostSensitiveResults.plot": "costsens",
    "MaxentRows.plot_diagnostics": "maxent fit",
}


def _public_plotters() -> set[str]:
    """Public functions named plot* and plot* methods of classes, defined in fmstats."""
    found = set()
    mods = [fm] + [importlib.import_module(m.name) for m in
                   pkgutil.walk_packages(fm.__path__, "fmstats.")
                   if not m.name.endswith("__main__")]
    for mod in mods:
        for name, obj in vars(mod).items():
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            if inspect.isfunction(obj) and name.startswith("plot"):
                found.add(f"{mod.__name__}.{name}")
            elif inspect.isclass(obj):
                for attr in vars(obj):
                    if attr.startswith("plot"):
                        found.add(f"{obj.__name__}.{attr}")
    return found


def test_the_list_is_complete():
    assert _public_plotters() == set(PLOTTERS)


# ----------------------------------------------------------------------------- checks

_NUMBER = re.compile(r"-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?")
_POWER = re.compile(r"-?(?:(\d+(?:\.\d+)?)\\times)?(?:10|2)\^-?\d+(?:\.5)?")


def significant_digits(label: str) -> int | None:
    """Significant digits of a numeric tick label; None for a category name or 2^k / 10^k."""
    t = (label.replace("\u2212", "-").replace("$", "").replace("\\mathdefault", "")
         .replace("{", "").replace("}", "").strip())
    m = _POWER.fullmatch(t)
    if m:
        return len(m.group(1).replace(".", "").strip("0")) if m.group(1) else None
    if not _NUMBER.fullmatch(t):
        return None
    mant = t.lstrip("-").split("e")[0]
    digits = mant.replace(".", "").lstrip("0")
    if "." not in mant:
        digits = digits.rstrip("0")
    return max(len(digits), 1)


def test_significant_digits_counts():
    assert significant_digits("0.0883883") == 6
    assert significant_digits("0.0884") == 3
    assert significant_digits("1250") == 3
    assert significant_digits("\u22120.25") == 2
    assert significant_digits("2.5e-05") == 2
    assert significant_digits("$2^{-3.5}$") is None
    assert significant_digits("$\\mathdefault{10^{-1}}$") is None
    assert significant_digits("g[T.b]") is None
    assert significant_digits("$\\mathdefault{2\\times10^{-1}}$") == 1


def _tick_texts(axis) -> list[str]:
    return [t.get_text() for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]


def check_figure(fig) -> None:
    fig.canvas.draw()
    suptitle = fig._suptitle.get_text() if fig._suptitle is not None else ""
    drawn = [ax for ax in fig.axes if ax.get_visible()]
    assert drawn, "no visible axes"
    for ax in drawn:
        if ax.get_label() == "<colorbar>":
            assert ax.get_ylabel() or ax.get_xlabel(), "colour bar without a label"
        else:
            where = f"axes {ax.get_title()!r}"
            assert ax.get_xlabel().strip(), f"{where}: no x label"
            assert ax.get_ylabel().strip(), f"{where}: no y label"
            assert ax.get_title().strip() or suptitle.strip(), "axes without a title"
            for axis, label in ((ax.xaxis, ax.get_xlabel()), (ax.yaxis, ax.get_ylabel())):
                if axis.get_scale() == "log":
                    assert "log" in label, f"{where}: log axis labelled {label!r}"
        for a in [ax, *ax.child_axes]:
            for axis in (a.xaxis, a.yaxis):
                for text in _tick_texts(axis):
                    k = significant_digits(text)
                    assert k is None or k <= 3, f"tick label {text!r} has {k} digits"
    plt.close(fig)


# ----------------------------------------------------------------------------- fits

@pytest.fixture(scope="module")
def data():
    return pd.read_csv(REF / "inputs_synthetic.csv").iloc[:300].reset_index(drop=True)


@pytest.fixture(scope="module")
def fits(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "maxent": fm.maxent(FORMULA, data),
            "umaxent": fm.umaxent("q ~ x1 + x2 + g", data),
            "fmaxent": fm.fmaxent(FORMULA, data, beta=2),
            "wsvm": fm.wsvm(FORMULA, data),
            "fsvm": fm.fsvm(FORMULA, data, maxeval=150),
        }


def test_module_plot_functions(fits):
    f = fits["maxent"]
    curve = f.f_curve()
    from fmstats.prcurve import best_row

    check_figure(plotting.plot_pr(curve, None, best=best_row(curve), own=1, own_label="p >= 0.5"))
    check_figure(plotting.plot_roc(curve, None, best=best_row(curve), own=None, own_label="-"))
    check_figure(plotting.plot_history(fits["fmaxent"].outer_history, best=2))
    from fmstats.diagnostics import plot_diagnostics

    check_figure(plot_diagnostics(f))


@pytest.mark.parametrize("model", ["maxent", "fmaxent", "wsvm", "umaxent"])
def test_score_curves(fits, model):
    check_figure(fits[model].plot_pr())
    check_figure(fits[model].plot_roc())


def test_model_methods(fits):
    check_figure(fits["maxent"].plot_diagnostics())
    check_figure(fits["fmaxent"].plot_history())
    fig = fits["fsvm"].plot_trace()
    assert fig.axes[0].get_yscale() == "log"
    check_figure(fig)


def test_sweep_has_a_beta_axis(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = fm.sweep(FORMULA, data, alphas=[0.2, 0.5, 0.8])
    fig = plotting.plot_sweep(table)
    ax = fig.axes[0]
    tops = [c for c in ax.child_axes if type(c).__name__ == "SecondaryAxis"]
    assert len(tops) == 1 and "beta" in tops[0].get_xlabel()
    # the top ticks sit at the alpha of their beta: beta = sqrt((1 - alpha)/alpha)
    betas = tops[0].get_xticks()
    for a in (0.2, 0.5, 0.8):
        assert np.any(np.isclose(betas, round(FMeasure(alpha=a).beta, 2)))
    check_figure(fig)


def test_alpha_beta_functions_match_fmeasure():
    for a in (0.05, 0.2, 0.5, 0.9, 1.0):
        assert plotting.alpha_to_beta(a) == pytest.approx(FMeasure(alpha=a).beta, rel=1e-12)
        assert plotting.beta_to_alpha(plotting.alpha_to_beta(a)) == pytest.approx(a)
    b = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(plotting.beta_to_alpha(b), [FMeasure(beta=v).alpha for v in b])


def test_bootstrap_forest_has_separate_panels(fits):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = fm.bootstrap(fits["maxent"], 40, random_state=0, progress=False)
    fig = b.plot("forest")
    axes = [a for a in fig.axes if a.get_visible()]
    assert len(axes) >= 2
    labels = [a.get_xlabel() for a in axes]
    assert "log-odds" in labels[0] and len(set(labels)) == len(labels)
    # each panel holds its own terms: coefficients first, the training F apart
    assert [t.get_text() for t in axes[1].get_yticklabels()] == \
        [t for t in b.estimate.index if t not in set(b.model_table["term"])]
    check_figure(fig)
    check_figure(b.plot("hist"))


def test_resample_threshold_costsens(fits, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fm.resample_f(fits["umaxent"], B=60, random_state=0)
        check_figure(r.plot())
        th = fm.tune_threshold(fits["maxent"], data, cv=3, random_state=0, progress=False)
        check_figure(th.plot())
        check_figure(th.plot_pr())
        check_figure(th.plot_roc())
        cs = fm.costsens(FORMULA, data, grid=5, random_state=0, progress=False)
        check_figure(cs.plot())


def test_cv_tune_curve_and_heat_map(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = fm.cv_tune(fm.maxent, FORMULA, data, {"penalty": 2.0 ** np.arange(-6, 3)},
                         cv=3, random_state=0, progress=False)
        two = fm.cv_tune(fm.maxent, FORMULA, data,
                         {"penalty": 2.0 ** np.arange(-3.5, 0, 1.0), "threshold": [0.3, 0.5]},
                         cv=3, random_state=0, progress=False)
    fig = one.plot()
    assert fig.axes[0].get_xlabel() == "penalty (log2 scale)"
    check_figure(fig)
    fig = two.plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "penalty (log2 scale)"
    assert [t.get_text() for t in ax.get_xticklabels()] == \
        ["$2^{-3.5}$", "$2^{-2.5}$", "$2^{-1.5}$", "$2^{-0.5}$"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0.3", "0.5"]
    check_figure(fig)


def test_chapter8_plot():
    from fmstats.svm.tuning import CHAPTER8_MODELS, plot_chapter8

    rows = [{"alpha": a, "model": m, "data": d, "f": 0.5 + 0.1 * a + 0.01 * k}
            for k, m in enumerate(CHAPTER8_MODELS) for d in ("train", "test")
            for a in (0.1, 0.3, 0.5, 0.7, 0.9)]
    check_figure(plot_chapter8(pd.DataFrame(rows), title="synthetic"))


def test_tick_helpers():
    assert plotting.format_tick(0.0883883) == "0.0884"
    assert plotting.format_tick(123456.0) == "1.23e+05"
    assert plotting.tick_labels([0.125, 0.25, 0.5, 1.0]) == \
        ["$2^{-3}$", "$2^{-2}$", "$2^{-1}$", "$2^{0}$"]
    assert plotting.tick_labels([0.1, 0.2, 0.4]) == ["0.1", "0.2", "0.4"]   # not powers of 2
    # a subset of a log2 grid (the thesis's C values 2^-3.5, ..., 2^6 in steps of 2^0.5)
    from fmstats.svm.tuning import THESIS_C_VALUES

    assert plotting.tick_labels(THESIS_C_VALUES[::3])[:2] == ["$2^{-3.5}$", "$2^{-2}$"]
    assert not plotting.powers_of_two([1.0, 2.0])            # two values are not a grid
    assert plotting.scale_label("C", [1, 10, 1000]) == "C (log scale)"
    assert plotting.scale_label("C", [2.0 ** k for k in range(4)]) == "C (log2 scale)"
    assert plotting.scale_label("alpha", [0.1, 0.5]) == "alpha"


def test_docstring_examples():
    import doctest

    assert doctest.testmod(plotting).failed == 0
