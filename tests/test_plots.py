"""Every public plot function and method, drawn with the Agg backend on small data.

Labels, checked on every figure by :func:`check_figure`: each visible axes has an x label, a
y label and a title (or the figure a suptitle); a log axis says so in its label; every
numeric tick label has at most 3 significant digits (or reads 2^k / 10^k); a colour bar has
a label.  Specific: the bootstrap forest plot puts coefficients and the training F on
separate, differently labelled panels; plot_sweep has a secondary top axis of
beta = sqrt((1 - alpha)/alpha), checked against fmstats.measures.FMeasure; the CV heat map
labels a power-of-two grid as 2^k.

Data, checked per plot (the ``test_*_draws_*`` tests): what the drawn artists hold --
``Line2D.get_xydata()``, the segments of ``hlines`` collections, the vertices of
``fill_between``, the value an image shows at each labelled cell (read back through
``AxesImage.get_cursor_data`` at the cell's tick position, so that a transposed or flipped
image fails), histogram bar heights and edges, the area under a line as matplotlib draws it
(its drawstyle's steps applied) -- against references computed in the test, independently
of the plotting code and, where one exists, of fmstats: scikit-learn's
``precision_recall_curve``, ``roc_curve``, ``average_precision_score``, ``roc_auc_score``
and ``fbeta_score``; statsmodels' binomial GLM; confusion counts and F written out in
numpy; model refits on the cross-validation folds.  Each data test's docstring names the
wrong plots it is written to fail on; each of them was made by hand in the plotting code
and seen to fail the test.

Tolerances: ``assert_array_equal`` where the plot copies numbers from a table without
arithmetic (exact by construction, as are integer counts); rtol 1e-12 where the reference
does the same arithmetic on the same numbers in another order or formula (sums of at most
a few hundred terms of size <= 3 and one division: rounding below 1e-13 relative); rtol
1e-8 against statsmodels (run to tol 1e-12; fmstats' IRLS stops at 1e-8: the coefficients
agree to 4e-12 and the Wald limits to 3e-11 here) and against the held-out scores of refits
(bit-identical here): room for another BLAS, while every wrong quantity tried is off by
1e-3 or more.

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
import statsmodels.api as sm  # noqa: E402
from matplotlib.backend_bases import MouseEvent  # noqa: E402
from matplotlib.cbook import STEP_LOOKUP_MAP  # noqa: E402
from scipy import stats  # noqa: E402
from sklearn.metrics import (average_precision_score, confusion_matrix,  # noqa: E402
                             fbeta_score, precision_recall_curve, roc_auc_score, roc_curve)

import fmstats as fm  # noqa: E402
from fmstats import plotting  # noqa: E402
from fmstats.glm._moved import OLD_MODULES  # noqa: E402

# the deprecated old module paths (fmstats.glm.irls, ...) warn on import and define nothing
OLD_PATHS = {f"fmstats.glm.{name}" for name in OLD_MODULES}
from fmstats.measures import FMeasure  # noqa: E402
REF = Path(__file__).parent / "reference"
FORMULA = "y ~ x1 + x2 + g"

# owner (module function "module.func" or method "Class.method") -> how the test draws it
PLOTTERS = {
    "fmstats.plotting.plot_history": "fmaxent history",
    "fmstats.plotting.plot_sweep": "sweep table",
    "fmstats.plotting.plot_pr": "f_curve table",
    "fmstats.plotting.plot_roc": "f_curve table",
    "fmstats.maxent_models._diagnostics.plot_diagnostics": "maxent fit",
    "fmstats.experiments.thesis_ch8.plot_chapter8": "chapter-8 table",
    "ScoreCurves.plot_pr": "maxent, fmaxent, wsvm fits and a thresholded classifier",
    "ScoreCurves.plot_roc": "maxent, fmaxent, wsvm fits and a thresholded classifier",
    "FMaxentResults.plot_history": "fmaxent fit",
    "FsvmResults.plot_trace": "fsvm fit",
    "BootstrapResults.plot": "forest and hist",
    "ResampleFResults.plot": "resample_f",
    "TuneThresholdResults.plot": "tune_threshold",
    "CvTuneResults.plot": "1-D curve and 2-D heat map",
    "CostsensResults.plot": "costsens",
    "MaxentResults.plot_diagnostics": "maxent fit",
    "fmstats.calibration._diagnostics.plot_calibration": "calibrated maxent",
    "CalibrateResults.plot_calibration": "calibrated maxent",
}


def _public_plotters() -> set[str]:
    """Public functions named plot* and plot* methods of classes, defined in fmstats."""
    found = set()
    mods = [fm] + [importlib.import_module(m.name) for m in
                   pkgutil.walk_packages(fm.__path__, "fmstats.")
                   if not m.name.endswith("__main__") and m.name not in OLD_PATHS]
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

def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def data():
    return pd.read_csv(REF / "inputs_synthetic.csv").iloc[:300].reset_index(drop=True)


@pytest.fixture(scope="module")
def newdata():
    """200 rows the models are not fitted on (``newdata=`` curves, the sweep's test set)."""
    return pd.read_csv(REF / "inputs_synthetic.csv").iloc[300:500].reset_index(drop=True)


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


@pytest.fixture(scope="module")
def boot(fits):
    return _quiet(fm.bootstrap, fits["maxent"], 40, random_state=0, progress=False)


@pytest.fixture(scope="module")
def tuned(fits, data):
    return _quiet(fm.tune_threshold, fits["maxent"], data, cv=3, random_state=0, progress=False)


@pytest.fixture(scope="module")
def cv_one(data):
    return _quiet(fm.cv_tune, fm.maxent, FORMULA, data, {"penalty": 2.0 ** np.arange(-6, 3)},
                  cv=3, random_state=0, progress=False)


@pytest.fixture(scope="module")
def cv_two(data):
    return _quiet(fm.cv_tune, fm.maxent, FORMULA, data,
                  {"penalty": 2.0 ** np.arange(-3.5, 0, 1.0), "threshold": [0.3, 0.5]},
                  cv=3, random_state=0, progress=False)


@pytest.fixture(scope="module")
def costs(data):
    return _quiet(fm.costsens, FORMULA, data, grid=5, random_state=0, progress=False)


@pytest.fixture(scope="module")
def resampled(fits):
    return _quiet(fm.resample_f, fits["umaxent"], B=60, random_state=0)


ALPHAS = (0.2, 0.5, 0.8)


@pytest.fixture(scope="module")
def sweep_table(data, newdata):
    return _quiet(fm.sweep, FORMULA, data, newdata, alphas=list(ALPHAS))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------- drawn data

def artist(ax, label: str):
    """The one line or collection of ``ax`` whose legend label starts with ``label``."""
    found = [a for a in [*ax.lines, *ax.collections] if a.get_label().startswith(label)]
    assert len(found) == 1, (f"{len(found)} artists labelled {label!r} among "
                             f"{[a.get_label() for a in [*ax.lines, *ax.collections]]}")
    return found[0]


def xy(line) -> np.ndarray:
    """The (n, 2) data of a Line2D (before any drawstyle steps)."""
    return np.asarray(line.get_xydata(), dtype=float)


def drawn_area(line) -> float:
    """Trapezoid area under the path matplotlib draws for ``line``: its drawstyle's steps
    applied, so that a steps-pre curve is a sum of rectangles."""
    x, y = xy(line).T
    xs, ys = STEP_LOOKUP_MAP[line.get_drawstyle()](x, y)
    return float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2))


def rows_of_panel(ax) -> dict:
    """term -> y position, from the panel's y tick labels."""
    return {t.get_text(): float(v) for t, v in zip(ax.get_yticklabels(), ax.get_yticks())}


def segments_by_row(coll, rows: dict) -> dict:
    """term -> (low, high) of the horizontal segments of an ``hlines`` collection, each
    assigned to the nearest tick row (at most one segment per row, within half a row); a
    NaN interval is drawn as an empty segment and left out."""
    ys = np.array(list(rows.values()))
    names = list(rows)
    out = {}
    for seg in coll.get_segments():
        seg = np.asarray(seg, dtype=float)
        if seg.size == 0:
            continue
        assert seg.shape == (2, 2) and seg[0, 1] == seg[1, 1], f"not horizontal: {seg}"
        k = int(np.argmin(np.abs(ys - seg[0, 1])))
        assert abs(ys[k] - seg[0, 1]) < 0.5 and names[k] not in out
        out[names[k]] = (seg[:, 0].min(), seg[:, 0].max())
    return out


def tick_value(text: str) -> float:
    """The number a categorical tick label shows: ``$2^{-3.5}$`` or ``0.3``."""
    m = re.fullmatch(r"\$2\^\{(-?[\d.]+)\}\$", text)
    return 2.0 ** float(m.group(1)) if m else float(text)


def shown_cells(ax) -> dict:
    """(x tick value, y tick value) -> the value the image shows at that tick position, read
    back through matplotlib's own data -> pixel -> array mapping (extent and origin)."""
    (im,) = ax.images
    out = {}
    for xt, xl in zip(ax.get_xticks(), ax.get_xticklabels()):
        for yt, yl in zip(ax.get_yticks(), ax.get_yticklabels()):
            px, py = ax.transData.transform((xt, yt))
            event = MouseEvent("motion_notify_event", ax.figure.canvas, px, py)
            out[tick_value(xl.get_text()), tick_value(yl.get_text())] = \
                float(im.get_cursor_data(event))
    return out


# ----------------------------------------------------------------------------- references

def f_from_counts(tp, fp, fn, beta=1.0):
    """F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP), written out; 1 for 0/0."""
    tp, fp, fn = (np.asarray(v, dtype=float) for v in (tp, fp, fn))
    num = (1 + beta ** 2) * tp
    den = num + beta ** 2 * fn + fp
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


def f_alpha(tp, fp, fn, alpha):
    """The thesis's form F = TP / (TP + alpha FP + (1 - alpha) FN)."""
    return tp / (tp + alpha * fp + (1 - alpha) * fn)


def counts(y, s, w, t, strict=False):
    """Weighted TP, FP, FN, TN of the rule "positive iff s >= t" (s > t when strict)."""
    pos = s > t if strict else s >= t
    return (np.sum(w * y * pos), np.sum(w * (1 - y) * pos), np.sum(w * y * ~pos),
            np.sum(w * (1 - y) * ~pos))


def class_counts(y, cls):
    """TP, FP, FN of 0/1 classes, from scikit-learn's confusion matrix (integers)."""
    tn, fp, fn, tp = confusion_matrix(np.asarray(y), np.asarray(cls), labels=[0, 1]).ravel()
    return tp, fp, fn


def first_max(v) -> int:
    """The first position whose value is within rounding (rtol 1e-12) of the maximum: among
    equal F values the highest threshold (listed first) wins, and values equal in exact
    arithmetic may differ in the last bit between two ways of computing them."""
    v = np.asarray(v, dtype=float)
    return int(np.flatnonzero(v >= v.max() - 1e-12 * abs(v.max()))[0])


def sk_rows(y, s, w):
    """Labels, scores, weights for scikit-learn: a probabilistic label q becomes two rows, a
    positive of weight w q and a negative of weight w (1 - q) (fractional counting)."""
    y, s, w = (np.asarray(v, dtype=float) for v in (y, s, w))
    if np.all((y == 0) | (y == 1)):
        return y.astype(int), s, w
    return (np.r_[np.ones(len(y), int), np.zeros(len(y), int)], np.r_[s, s],
            np.r_[w * y, w * (1 - y)])


def sk_pr(y, s, w):
    """scikit-learn's PR curve, highest threshold first (rule score >= threshold), without
    its end point (recall 0, precision 1), which belongs to no threshold."""
    yb, sb, wb = sk_rows(y, s, w)
    p, r, t = precision_recall_curve(yb, sb, sample_weight=wb, drop_intermediate=False)
    return t[::-1], r[:-1][::-1], p[:-1][::-1]


def binomial_glm(data):
    """statsmodels' binomial GLM of y ~ x1 + x2 + g on a design built here by hand
    (treatment coding, level a the reference)."""
    X = np.column_stack([np.ones(len(data)), data["x1"], data["x2"], data["g"] == "b",
                         data["g"] == "c"]).astype(float)
    return X, sm.GLM(data["y"].to_numpy(float), X, family=sm.families.Binomial()).fit(tol=1e-12)


# ----------------------------------------------------------------------------- label checks

def test_module_plot_functions(fits):
    f = fits["maxent"]
    curve = f.f_curve()
    from fmstats.prcurve import best_row

    check_figure(plotting.plot_pr(curve, None, best=best_row(curve), own=1, own_label="p >= 0.5"))
    check_figure(plotting.plot_roc(curve, None, best=best_row(curve), own=None, own_label="-"))
    check_figure(plotting.plot_history(fits["fmaxent"].outer_history, best=2))
    from fmstats.maxent_models import plot_diagnostics

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


def test_sweep_has_a_beta_axis(sweep_table):
    fig = plotting.plot_sweep(sweep_table)
    ax = fig.axes[0]
    tops = [c for c in ax.child_axes if type(c).__name__ == "SecondaryAxis"]
    assert len(tops) == 1 and "beta" in tops[0].get_xlabel()
    # the top ticks sit at the alpha of their beta: beta = sqrt((1 - alpha)/alpha)
    betas = tops[0].get_xticks()
    for a in ALPHAS:
        assert np.any(np.isclose(betas, round(FMeasure(alpha=a).beta, 2)))
    check_figure(fig)


def test_alpha_beta_functions_match_fmeasure():
    for a in (0.05, 0.2, 0.5, 0.9, 1.0):
        assert plotting.alpha_to_beta(a) == pytest.approx(FMeasure(alpha=a).beta, rel=1e-12)
        assert plotting.beta_to_alpha(plotting.alpha_to_beta(a)) == pytest.approx(a)
    b = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(plotting.beta_to_alpha(b), [FMeasure(beta=v).alpha for v in b])


def test_bootstrap_forest_has_separate_panels(boot):
    b = boot
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


def test_resample_threshold_costsens(resampled, tuned, costs):
    check_figure(resampled.plot())
    check_figure(tuned.plot())
    check_figure(tuned.plot_pr())
    check_figure(tuned.plot_roc())
    check_figure(costs.plot())


def test_calibration_plot_draws_binned_frequencies(fits, data):
    """plot_calibration(): the reliability points are the binned mean probability and mean
    label of the pooled held-out rows (recomputed here), the histogram counts their rows."""
    cal = _quiet(fm.calibrate, fits["maxent"], data, method="platt", random_state=0)
    fig = cal.plot_calibration(n_bins=5)
    top, bottom = fig.axes
    x, y = top.lines[-1].get_data()
    p, lab = cal.oof["calibrated"].to_numpy(), cal.oof["y"].to_numpy()
    b = np.minimum((p * 5).astype(int), 4)
    keep = np.bincount(b, minlength=5) > 0
    np.testing.assert_allclose(x, [p[b == k].mean() for k in range(5) if keep[k]], atol=1e-12)
    np.testing.assert_allclose(y, [lab[b == k].mean() for k in range(5) if keep[k]], atol=1e-12)
    assert sum(r.get_height() for r in bottom.patches) == pytest.approx(len(p))
    check_figure(fig)


def test_cv_tune_curve_and_heat_map(cv_one, cv_two):
    fig = cv_one.plot()
    assert fig.axes[0].get_xlabel() == "penalty (log2 scale)"
    check_figure(fig)
    fig = cv_two.plot()
    ax = fig.axes[0]
    assert ax.get_xlabel() == "penalty (log2 scale)"
    assert [t.get_text() for t in ax.get_xticklabels()] == \
        ["$2^{-3.5}$", "$2^{-2.5}$", "$2^{-1.5}$", "$2^{-0.5}$"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0.3", "0.5"]
    check_figure(fig)


def _chapter8_table():
    """A synthetic chapter8() table: F = 0.5 + 0.1 alpha + 0.01 k (+ 0.2 on the test set) for
    the k-th model, so that every line, and the two panels, differ."""
    from fmstats.experiments.thesis_ch8 import CHAPTER8_MODELS

    rows = [{"alpha": a, "model": m, "data": d, "f": 0.5 + 0.1 * a + 0.01 * k
             + (0.2 if d == "test" else 0.0)}
            for k, m in enumerate(CHAPTER8_MODELS) for d in ("train", "test")
            for a in (0.1, 0.3, 0.5, 0.7, 0.9)]
    return pd.DataFrame(rows)


def test_chapter8_plot():
    from fmstats.experiments.thesis_ch8 import plot_chapter8

    check_figure(plot_chapter8(_chapter8_table(), title="synthetic"))


def test_tick_helpers():
    assert plotting.format_tick(0.0883883) == "0.0884"
    assert plotting.format_tick(123456.0) == "1.23e+05"
    assert plotting.tick_labels([0.125, 0.25, 0.5, 1.0]) == \
        ["$2^{-3}$", "$2^{-2}$", "$2^{-1}$", "$2^{0}$"]
    assert plotting.tick_labels([0.1, 0.2, 0.4]) == ["0.1", "0.2", "0.4"]   # not powers of 2
    # a subset of a log2 grid (the thesis's C values 2^-3.5, ..., 2^6 in steps of 2^0.5)
    from fmstats.svm import THESIS_C_VALUES

    assert plotting.tick_labels(THESIS_C_VALUES[::3])[:2] == ["$2^{-3.5}$", "$2^{-2}$"]
    assert not plotting.powers_of_two([1.0, 2.0])            # two values are not a grid
    assert plotting.scale_label("C", [1, 10, 1000]) == "C (log scale)"
    assert plotting.scale_label("C", [2.0 ** k for k in range(4)]) == "C (log2 scale)"
    assert plotting.scale_label("alpha", [0.1, 0.5]) == "alpha"


def test_docstring_examples():
    import doctest

    assert doctest.testmod(plotting).failed == 0


# ----------------------------------------------------------------------------- data: PR and ROC

# id -> (fit, on newdata, weights column, label column, predict type, own rule (t, strict), beta);
# a rule of None: the fit's own threshold (tuned, or set to one of the scores)
CURVE_CASES = {
    "maxent": ("maxent", False, None, "y", "response", (0.5, False), 1.0),
    "maxent-newdata-weights": ("maxent", True, "w", "y", "response", (0.5, False), 1.0),
    "maxent-threshold-at-a-score": ("maxent_at_score", False, None, "y", "response", None, 1.0),
    "fmaxent-F2": ("fmaxent", False, None, "y", "response", (0.5, False), 2.0),
    "wsvm": ("wsvm", False, None, "y", "decision", (0.0, True), 1.0),
    "umaxent-q": ("umaxent", False, None, "q", "response", (0.5, False), 1.0),
    "umaxent-q-newdata": ("umaxent", True, None, "q", "response", (0.5, False), 1.0),
    "tune_threshold": ("tuned", False, None, "y", "response", None, 1.0),
}


@pytest.fixture(scope="module")
def maxent_at_score(fits, data):
    """maxent with its class threshold equal to its 40th largest fitted probability, so that
    its rule "p >= threshold" and "p > threshold" class one row differently."""
    p = np.sort(fits["maxent"].predict(type="response").to_numpy())[::-1]
    return fm.maxent(FORMULA, data, threshold=float(p[39]))


@pytest.fixture(params=list(CURVE_CASES))
def curve_case(request, fits, tuned, maxent_at_score, data, newdata):
    """A fitted model, how to call its plot_pr/plot_roc, and the truth, scores, weights, own
    rule and beta that the reference curves are computed from (scores: the model's predict,
    on the training rows or newdata)."""
    key, on_new, wcol, ycol, kind, rule, beta = CURVE_CASES[request.param]
    res = tuned if key == "tuned" else maxent_at_score if key == "maxent_at_score" else fits[key]
    frame = newdata if on_new else data
    kwargs = {"newdata": newdata} if on_new else {}
    if wcol is not None:
        kwargs["weights"] = wcol
    s = res.predict(newdata if on_new else None, type=kind).to_numpy(dtype=float)
    w = frame[wcol].to_numpy(float) if wcol is not None else np.ones(len(frame))
    if rule is None:
        rule = (res.threshold, False)
        assert key != "maxent_at_score" or np.sum(s == res.threshold) == 1
    return dict(results=res, kwargs=kwargs, y=frame[ycol].to_numpy(float), s=s, w=w,
                rule=rule, beta=beta)


def test_pr_plot_draws_sklearn_precision_recall_curve(curve_case):
    """``plot_pr()`` of maxent (training rows; newdata with case weights), fmaxent (F2),
    wsvm (decision values, rule > 0), umaxent (labels q, counted fractionally; training and
    newdata) and a tuned threshold, against scikit-learn's precision_recall_curve of the same
    labels, scores and weights (rule score >= threshold; a label q as two weighted rows):
    every point of the curve, the area under the drawn steps (= average_precision_score),
    the F-optimal star (F_beta written out, first maximum), the model's own rule (counted
    here with >= or >; one case has a score exactly at the threshold).

    Fails on: precision and recall swapped on the axes; the curve of the training rows
    drawn for newdata, or newdata without its weights; steps-post instead of steps-pre (the
    previous threshold's precision across each recall step); the star at the F1 optimum of
    an F2 model; the rule marker at score > t for a >= t model (caught where a score
    equals t)."""
    c = curve_case
    fig = c["results"].plot_pr(**c["kwargs"])
    ax = fig.axes[0]
    y, s, w, beta = c["y"], c["s"], c["w"], c["beta"]
    t, rec, prec = sk_pr(y, s, w)
    line = artist(ax, "precision-recall curve")
    # drawn from (recall 0, the first precision): one point per distinct score after it
    np.testing.assert_allclose(xy(line), np.c_[np.r_[0.0, rec], np.r_[prec[0], prec]],
                               rtol=1e-12, atol=0)
    assert drawn_area(line) == pytest.approx(
        average_precision_score(*sk_rows(y, s, w)[:2], sample_weight=sk_rows(y, s, w)[2]),
        rel=1e-12)
    tp, fp, fn, _ = np.array([counts(y, s, w, v) for v in t]).T
    np.testing.assert_allclose(tp / (tp + fn), rec, rtol=1e-12)     # the same counts
    f = f_from_counts(tp, fp, fn, beta)
    k = first_max(f)
    star = artist(ax, "F-optimal")
    np.testing.assert_allclose(xy(star), [[rec[k], prec[k]]], rtol=1e-12)
    assert f">= {t[k]:.3g}, F{beta:g} = {f[k]:.3f}" in star.get_label()
    tp, fp, fn, _ = counts(y, s, w, *c["rule"])
    own = [0.0, 1.0] if tp + fp == 0 else [tp / (tp + fn), tp / (tp + fp)]
    np.testing.assert_allclose(xy(artist(ax, "model's rule")), [own], rtol=1e-12)
    assert f"F{beta:g} = {f_from_counts(tp, fp, fn, beta):.3f}" in \
        artist(ax, "model's rule").get_label()


def test_roc_plot_draws_sklearn_roc_curve(curve_case):
    """``plot_roc()`` of the same models against scikit-learn's roc_curve (all thresholds,
    drop_intermediate=False): every point from (0, 0), the AUC in the legend and the area
    under the drawn line (= roc_auc_score), the F-optimal star and the model's rule at their
    rates counted here.

    Fails on: FPR and TPR swapped; the PR curve's coordinates drawn; the curve of the
    training rows for newdata, or of newdata without its weights; the star one threshold
    off (the ROC table has an extra first row for +inf)."""
    c = curve_case
    fig = c["results"].plot_roc(**c["kwargs"])
    ax = fig.axes[0]
    y, s, w, beta = c["y"], c["s"], c["w"], c["beta"]
    yb, sb, wb = sk_rows(y, s, w)
    fpr, tpr, thr = roc_curve(yb, sb, sample_weight=wb, drop_intermediate=False)
    line = artist(ax, "ROC curve")
    np.testing.assert_allclose(xy(line), np.c_[fpr, tpr], rtol=1e-12, atol=0)
    auc = roc_auc_score(yb, sb, sample_weight=wb)
    assert drawn_area(line) == pytest.approx(auc, rel=1e-12)
    assert f"(AUC = {auc:.3f})" in line.get_label()
    t = thr[1:]                                       # thr[0] = +inf: nothing positive
    tp, fp, fn, _ = np.array([counts(y, s, w, v) for v in t]).T
    k = first_max(f_from_counts(tp, fp, fn, beta))
    np.testing.assert_allclose(xy(artist(ax, "F-optimal")), [[fpr[k + 1], tpr[k + 1]]],
                               rtol=1e-12)
    tp, fp, fn, tn = counts(y, s, w, *c["rule"])
    np.testing.assert_allclose(xy(artist(ax, "model's rule")), [[fp / (fp + tn), tp / (tp + fn)]],
                               rtol=1e-12, atol=0)


def test_module_pr_and_roc_plots_on_tied_weighted_scores():
    """``plotting.plot_pr``/``plot_roc`` on ``fm.f_curve`` of scores with many ties (6 values
    for 40 rows) and fractional weights: the drawn curves equal scikit-learn's, which also
    makes one threshold of each group of tied scores; the stars sit at the rows passed.  On
    a curve with two equal maxima of F1 the star (row ``best_row``) is at the higher
    threshold; with no positive rule the rule marker is at precision 1, recall 0 (PR) and
    at (0, 0) (ROC).

    Fails on: tied rows drawn as separate steps (a diagonal ROC segment split in two, or a
    PR point per row); the star of row ``best`` drawn at row ``best + 1`` of the ROC table;
    the star at the last of tied maxima."""
    from fmstats.prcurve import best_row, operating_row

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40).astype(float)
    s = rng.choice([0.1, 0.25, 0.4, 0.55, 0.7, 0.9], 40)
    w = rng.uniform(0.5, 2.0, 40)
    curve = fm.f_curve(y, s, w)
    best, own = best_row(curve), operating_row(curve, 0.5)
    t, rec, prec = sk_pr(y, s, w)
    assert len(t) == 6
    fig = plotting.plot_pr(curve, None, best=best, own=own, own_label="s >= 0.5")
    ax = fig.axes[0]
    np.testing.assert_allclose(xy(artist(ax, "precision-recall curve")),
                               np.c_[np.r_[0.0, rec], np.r_[prec[0], prec]], rtol=1e-12)
    tp, fp, fn, _ = np.array([counts(y, s, w, v) for v in t]).T
    k = first_max(f_from_counts(tp, fp, fn))
    assert best == k
    np.testing.assert_allclose(xy(artist(ax, "F-optimal")), [[rec[k], prec[k]]], rtol=1e-12)
    tp1, fp1, fn1, tn1 = counts(y, s, w, 0.5)
    np.testing.assert_allclose(xy(artist(ax, "model's rule")),
                               [[tp1 / (tp1 + fn1), tp1 / (tp1 + fp1)]], rtol=1e-12)
    fig = plotting.plot_roc(curve, None, best=best, own=own, own_label="s >= 0.5")
    ax = fig.axes[0]
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(xy(artist(ax, "ROC curve")), np.c_[fpr, tpr], rtol=1e-12)
    np.testing.assert_allclose(xy(artist(ax, "F-optimal")), [[fpr[k + 1], tpr[k + 1]]],
                               rtol=1e-12)
    np.testing.assert_allclose(xy(artist(ax, "model's rule")),
                               [[fp1 / (fp1 + tn1), tp1 / (tp1 + fn1)]], rtol=1e-12)
    # tied maxima: F1 = 1/2 at the top score (1 TP) and at the 4th (2 TP, 2 FP)
    y, s, w = np.array([1.0, 0, 0, 1, 0]), np.array([0.9, 0.8, 0.7, 0.6, 0.5]), np.ones(5)
    curve = fm.f_curve(y, s)
    t, rec, prec = sk_pr(y, s, w)
    tp, fp, fn, _ = np.array([counts(y, s, w, v) for v in t]).T
    f = f_from_counts(tp, fp, fn)
    assert np.flatnonzero(f == f.max()).tolist() == [0, 3]
    ax = plotting.plot_pr(curve, None, best=best_row(curve), own=None, own_label="-").axes[0]
    np.testing.assert_array_equal(xy(artist(ax, "F-optimal")), [[rec[0], prec[0]]])
    np.testing.assert_array_equal(xy(artist(ax, "model's rule")), [[0.0, 1.0]])
    ax = plotting.plot_roc(curve, None, best=best_row(curve), own=None, own_label="-").axes[0]
    np.testing.assert_array_equal(xy(artist(ax, "F-optimal")), [[0.0, 0.5]])
    np.testing.assert_array_equal(xy(artist(ax, "model's rule")), [[0.0, 0.0]])


# ----------------------------------------------------------------------------- data: F curve

def test_threshold_plot_draws_cv_f_by_hand_with_its_maximum_at_the_tuned_threshold(tuned, data):
    """``tune_threshold(...).plot()``: its F, precision and recall step lines against the
    held-out scores of maxent refitted here on each training fold, counted by hand at every
    distinct score (pooled counts, the default); the maximum of the drawn F is at the tuned
    threshold, found here by brute force as the midpoint below the first cut of maximal F.

    Fails on: the precision and recall lines swapped; the mean of the fold F values drawn
    instead of F of the pooled counts; the thresholds reversed against the values; the
    vertical line at the lowest positive score of the best cut instead of the midpoint."""
    y, s = [], []
    for train, test in tuned.folds:
        fit = fm.maxent(FORMULA, data.iloc[train])
        y.append(data["y"].to_numpy(float)[test])
        s.append(fit.predict(data.iloc[test], type="response").to_numpy(float))
    y, s = np.concatenate(y), np.concatenate(s)
    u = np.unique(s)[::-1]                        # every distinct score, highest first
    tp, fp, fn, _ = np.array([counts(y, s, np.ones_like(y), v) for v in u]).T
    f = f_from_counts(tp, fp, fn)
    fig = tuned.plot()
    ax = fig.axes[0]
    for label, values in (("CV F1", f), ("precision", tp / (tp + fp)), ("recall", tp / (tp + fn))):
        line = artist(ax, label)
        assert line.get_drawstyle() == "steps-post"
        np.testing.assert_allclose(xy(line)[:, 0], u, rtol=1e-8)
        np.testing.assert_allclose(xy(line)[:, 1], values, rtol=1e-12)
    k = first_max(f)
    cut = (u[k] + u[k + 1]) / 2
    assert tuned.threshold == pytest.approx(cut, rel=1e-8)
    vline = xy(artist(ax, "tuned threshold"))
    np.testing.assert_allclose(vline[:, 0], cut, rtol=1e-8)
    drawn = xy(artist(ax, "CV F1"))
    j = first_max(drawn[:, 1])
    assert drawn[j, 0] > vline[0, 0] > drawn[j + 1, 0]


# ----------------------------------------------------------------------------- data: bootstrap

def test_bootstrap_forest_draws_estimates_and_intervals(boot, fits, data):
    """The forest plot's points and whiskers, row by row (rows found from the tick labels):
    the estimate points equal statsmodels' binomial GLM coefficients and, on the statistics
    panel, the training F1 of the model's classes from scikit-learn's fbeta_score; the
    bootstrap whiskers equal the 2.5 and 97.5 % quantiles of each term's replicates
    (np.quantile here: the percentile CI at level 0.95) and the tidy() table; the Wald
    whiskers statsmodels' 95 % Wald interval; the training F has no Wald whisker.

    Fails on: whiskers at another level (tidy(level=0.9)); the bootstrap and Wald whiskers
    swapped; the mean of the replicates drawn as the estimate; the rows in reverse against
    their labels; the training F drawn on the coefficient panel."""
    fig = boot.plot("forest")
    coef_ax, stat_ax = [a for a in fig.axes if a.get_visible()]
    _, glm = binomial_glm(data)
    terms = list(fits["maxent"].params.index)
    wald = pd.DataFrame(np.asarray(glm.conf_int(alpha=0.05)), index=terms)
    estimate = pd.Series(np.asarray(glm.params), index=terms)
    f1 = fbeta_score(data["y"], fits["maxent"].predict(data, type="class"), beta=1)
    estimate["training F1"] = f1
    tid = boot.tidy().set_index("term")
    assert set(rows_of_panel(coef_ax)) == set(terms)
    assert list(rows_of_panel(stat_ax)) == ["training F1"]
    for ax in (coef_ax, stat_ax):
        rows = rows_of_panel(ax)
        points = xy(artist(ax, "estimate"))
        assert len(points) == len(rows)
        boots = segments_by_row(artist(ax, "bootstrap percentile CI"), rows)
        walds = segments_by_row(artist(ax, "Wald CI"), rows)
        for term, row in rows.items():
            (x,) = points[points[:, 1] == row, 0]
            assert x == pytest.approx(estimate[term], rel=1e-8)
            assert x == tid.loc[term, "estimate"]
            r = boot.replicates[term].to_numpy(float)
            lo_hi = np.quantile(r[np.isfinite(r)], [0.025, 0.975])
            np.testing.assert_allclose(boots[term], lo_hi, rtol=1e-12)
            np.testing.assert_array_equal(boots[term], tid.loc[term, ["conf_low", "conf_high"]])
            if term in wald.index:
                np.testing.assert_allclose(walds[term], wald.loc[term], rtol=1e-8)
            else:
                assert term not in walds         # no Wald interval for the training F


def test_bootstrap_hist_draws_the_replicates(boot):
    """Each term's histogram panel (found by its title): the bar heights are the counts of
    numpy's histogram of that term's finite replicates over the drawn bar edges (integers,
    exact) and add up to their number; the black line at the estimate, the red ones at the
    2.5 and 97.5 % quantiles (np.quantile here).

    Fails on: one term's replicates drawn in another term's panel; the CI lines at
    another level; the estimate line at the replicates' mean."""
    fig = boot.plot("hist")
    tid = boot.tidy().set_index("term")
    panels = {a.get_title(): a for a in fig.axes if a.get_visible()}
    assert set(panels) == set(boot.estimate.index)
    for term, ax in panels.items():
        r = boot.replicates[term].to_numpy(float)
        r = r[np.isfinite(r)]
        heights = np.array([p.get_height() for p in ax.patches])
        edges = np.r_[[p.get_x() for p in ax.patches], ax.patches[-1].get_x()
                      + ax.patches[-1].get_width()]
        assert heights.sum() == r.size
        np.testing.assert_array_equal(heights, np.histogram(r, bins=len(heights))[0])
        np.testing.assert_allclose(edges, np.histogram_bin_edges(r, bins=len(heights)),
                                   rtol=1e-12, atol=1e-15)
        black = [xy(l)[0, 0] for l in ax.lines if l.get_color() == "black"]
        red = sorted(xy(l)[0, 0] for l in ax.lines if l.get_color() == "tab:red")
        assert black == [boot.estimate[term]] == [tid.loc[term, "estimate"]]
        np.testing.assert_allclose(red, np.quantile(r, [0.025, 0.975]), rtol=1e-12)


# ----------------------------------------------------------------------------- data: cv_tune

def test_cv_heat_map_draws_the_cv_table(cv_two, data):
    """The heat map over (penalty, threshold): the value shown at every labelled cell (read
    back at its tick position) equals the CV table's F for that pair, and F of the fold
    counts pooled by hand; for the best cell also F of counts from maxent refitted here on
    each training fold and classed on its test fold (scikit-learn's confusion matrix); the
    red star sits on the cell of the largest value.

    Fails on: the image transposed against its tick labels; its rows flipped against their
    labels (or origin="upper" with a "lower" extent; origin="upper" alone also inverts the
    axis, shows the right value at every label and rightly passes); the fold mean of F
    drawn instead of F of the pooled counts; the star at the smallest value."""
    fig = cv_two.plot()
    ax = fig.axes[0]
    shown = shown_cells(ax)
    t = cv_two.tidy()
    assert len(shown) == len(t) == 8
    fr = cv_two.fold_results
    for (pen, thr), value in shown.items():
        (row,) = np.flatnonzero(np.isclose(t["penalty"], pen, rtol=1e-12)
                                & np.isclose(t["threshold"], thr, rtol=1e-12))
        assert value == t["f"].iloc[row]
        tp, fp, fn = fr.loc[fr["point"] == row, ["tp", "fp", "fn"]].sum()
        assert value == pytest.approx(f_from_counts(tp, fp, fn), rel=1e-12)
    (best_pen, best_thr), best = max(shown.items(), key=lambda kv: kv[1])
    assert cv_two.best_params == pytest.approx({"penalty": best_pen, "threshold": best_thr})
    total = np.zeros(3)
    for train, test in cv_two.folds:
        fit = fm.maxent(FORMULA, data.iloc[train], penalty=best_pen, threshold=best_thr)
        total += class_counts(data["y"].iloc[test],
                              fit.predict(data.iloc[test], type="class"))
    assert best == pytest.approx(f_from_counts(*total), rel=1e-12)
    star = xy(artist(ax, "best"))
    px, py = ax.transData.transform(star[0])
    assert float(ax.images[0].get_cursor_data(
        MouseEvent("motion_notify_event", fig.canvas, px, py))) == best


def test_cv_curve_draws_pooled_f_and_the_fold_range(cv_one):
    """The 1-D CV curve over the penalty: its points equal F of the fold counts pooled by
    hand at each penalty, in penalty order; the shaded band spans, at each penalty, the
    smallest and largest per-fold F computed by hand from the same counts; the "best" line
    is at the penalty of the largest F.

    Fails on: the fold mean drawn instead of pooled F; the band f +- fold_sd instead of
    the fold range."""
    fig = cv_one.plot()
    ax = fig.axes[0]
    t = cv_one.tidy()
    fr = cv_one.fold_results.assign(penalty=lambda d: t["penalty"].to_numpy()[d["point"]])
    fr = fr.assign(fold_f=f_from_counts(fr["tp"], fr["fp"], fr["fn"]))
    pooled = fr.groupby("penalty")[["tp", "fp", "fn"]].sum()
    ref = f_from_counts(pooled["tp"], pooled["fp"], pooled["fn"])
    line = xy(artist(ax, "CV F1"))
    np.testing.assert_array_equal(line[:, 0], pooled.index.to_numpy())
    np.testing.assert_allclose(line[:, 1], ref, rtol=1e-12)
    band = artist(ax, "range over folds").get_paths()[0].vertices
    lo, hi = fr.groupby("penalty")["fold_f"].min(), fr.groupby("penalty")["fold_f"].max()
    for pen in pooled.index:
        ys = band[band[:, 0] == pen, 1]
        assert ys.min() == pytest.approx(lo[pen], rel=1e-12)
        assert ys.max() == pytest.approx(hi[pen], rel=1e-12)
    best = xy(artist(ax, "best"))
    assert best[0, 0] == pooled.index[first_max(ref)]


# ----------------------------------------------------------------------------- data: sweep

def test_sweep_plot_draws_f_by_hand_per_alpha(sweep_table, fits, data, newdata):
    """plot_sweep of a train/test sweep: each of the four lines (unweighted and F-maximiser,
    train and test) holds, at each alpha, F_alpha = TP / (TP + alpha FP + (1 - alpha) FN) of
    the classes of maxent and of fmaxent(alpha=...) refitted here, counted by scikit-learn's
    confusion matrix on the training rows or the new rows; measure="noisy_f" draws the
    table's noisy_f column.

    Fails on: the train and test lines swapped (or labelled the other way); beta on the x
    axis instead of alpha; the noisy F drawn for measure="f"; the baseline and the
    F-maximiser swapped."""
    fits_by = {("unweighted", a): fits["maxent"] for a in ALPHAS}
    fits_by.update({("F-maximiser", a): _quiet(fm.fmaxent, FORMULA, data, alpha=a)
                    for a in ALPHAS})
    ax = plotting.plot_sweep(sweep_table).axes[0]
    for model in ("unweighted", "F-maximiser"):
        for name, frame in (("train", data), ("test", newdata)):
            ref = [f_alpha(*class_counts(frame["y"], fits_by[model, a].predict(
                frame, type="class")), a) for a in ALPHAS]
            line = xy(artist(ax, f"{model} ({name})"))
            np.testing.assert_array_equal(line[:, 0], ALPHAS)
            np.testing.assert_allclose(line[:, 1], ref, rtol=1e-12)
    ax = plotting.plot_sweep(sweep_table, measure="noisy_f").axes[0]
    part = sweep_table[(sweep_table["model"] == "fmaxent") & (sweep_table["data"] == "test")]
    np.testing.assert_array_equal(xy(artist(ax, "F-maximiser (test)")),
                                  part[["alpha", "noisy_f"]].to_numpy())


# ----------------------------------------------------------------------------- data: traces

@pytest.mark.parametrize("select", ["target", "f"])
def test_history_plot_draws_the_outer_history(fits, data, select):
    """The F-maximiser's learning curve: the target and training-F lines are the columns of
    ``outer_history`` against the iteration; at the returned iterate (the dotted line) the
    target is the expected F2 of the returned fit's probabilities written out here (TP~ =
    sum over y=1 of p, FP~ = sum over y=0 of p, FN~ = sum over y=1 of 1 - p) and the
    training F is scikit-learn's F2 of its classes.  With ``select="f"`` and 15 outer
    iterations the returned iterate is not the last one (9 of 0..15 here).
    plotting.plot_history marks ``best``.

    Fails on: the target and training-F columns swapped; the dotted line at the last
    iteration instead of the returned one; the iterations shifted by one (x from 1)."""
    fit = fits["fmaxent"] if select == "target" else _quiet(
        fm.fmaxent, FORMULA, data, beta=2, select="f", max_outer=15, min_improvement=0.0,
        rel_improvement=0.0)
    h = fit.outer_history
    if select == "f":
        assert fit.best_iteration < h["iteration"].max()     # else the check below is idle
    ax = fit.plot_history().axes[0]
    target = xy(artist(ax, fit.target_name))
    train = xy(artist(ax, "training F"))
    np.testing.assert_array_equal(target, h[["iteration", "target"]].to_numpy(float))
    np.testing.assert_array_equal(train, h[["iteration", "training_f"]].to_numpy(float))
    best = xy(artist(ax, "returned iterate"))[0, 0]
    y, p = data["y"].to_numpy(float), fit.predict(data, type="response").to_numpy(float)
    expected = f_alpha(np.sum(p * y), np.sum(p * (1 - y)), np.sum((1 - p) * y), 0.2)
    assert target[target[:, 0] == best, 1][0] == pytest.approx(expected, rel=1e-12)
    assert train[train[:, 0] == best, 1][0] == pytest.approx(
        fbeta_score(data["y"], fit.predict(data, type="class"), beta=2), rel=1e-12)
    ax = plotting.plot_history(h, best=2).axes[0]
    assert xy(artist(ax, "returned iterate"))[0, 0] == 2
    np.testing.assert_array_equal(xy(artist(ax, "target")), h[["iteration", "target"]])


@pytest.mark.parametrize("method", ["reduced", "primal"])
def test_fsvm_trace_draws_the_objective_trace(fits, data, method):
    """plot_trace of fsvm: the evaluated-point line is the run's objective per evaluation
    (1, 2, ...); the best-feasible line is the running minimum written here over the start
    and the evaluations with violation <= 1e-9, ending at the returned objective; the dotted
    line at the start objective.  The reduced method has no constraints; the primal one
    (60 rows, 80 evaluations) evaluates many infeasible points, where the two differ.

    Fails on: the best-so-far line counting infeasible points; the evaluations numbered
    from 0; the two lines swapped."""
    fit = fits["fsvm"] if method == "reduced" else _quiet(
        fm.fsvm, FORMULA, data.iloc[:60], method="primal", maxeval=80)
    r = fit.nlopt_run
    feasible = np.where(np.asarray(r.violation) <= 1e-9, r.trace, np.inf)
    if method == "primal":
        assert np.isinf(feasible).sum() > 10                 # else the check below is idle
    ax = fit.plot_trace().axes[0]
    evals = np.arange(1, len(r.trace) + 1)
    np.testing.assert_array_equal(xy(artist(ax, "evaluated point")), np.c_[evals, r.trace])
    running = np.minimum.accumulate(np.r_[fit.start_objective, feasible])[1:]
    np.testing.assert_array_equal(xy(artist(ax, "best feasible")), np.c_[evals, running])
    assert running[-1] == fit.objective
    np.testing.assert_array_equal(xy(artist(ax, "start"))[:, 1], fit.start_objective)


# ----------------------------------------------------------------------------- data: others

def test_resample_plot_draws_the_resampled_values(resampled):
    """resample_f(...).plot(): the bar heights are numpy's histogram of the B values over the
    drawn edges (integers, exact), B in all; the dashed line at their mean.

    Fails on: the first B - 1 values drawn; the line at the median."""
    r = resampled
    ax = r.plot().axes[0]
    heights = np.array([p.get_height() for p in ax.patches])
    assert heights.sum() == r.B == len(r.values)
    np.testing.assert_array_equal(heights, np.histogram(r.values, bins=len(heights))[0])
    np.testing.assert_allclose([p.get_x() for p in ax.patches],
                               np.histogram_bin_edges(r.values, bins=len(heights))[:-1],
                               rtol=1e-12)
    assert xy(artist(ax, "mean"))[0, 0] == pytest.approx(np.mean(r.values), rel=1e-12)


def test_costsens_plot_draws_validation_f(costs, data):
    """costsens(...).plot(): the validation-F line holds, at each cost level t, F1 of the
    level's validation counts (written out); at the selected level (the dotted line, the
    largest drawn F) it equals scikit-learn's F1 of the selected model's classes on the
    validation rows; the dashed line is F = t.

    Fails on: the FN-cost instead of t on the x axis; the selected line at the last level;
    the diagonal drawn as F = 1 - t."""
    cs = costs
    ax = cs.plot().axes[0]
    c = cs.curve
    line = xy(artist(ax, "validation F"))
    np.testing.assert_array_equal(line[:, 0], c["t"])
    np.testing.assert_allclose(line[:, 1], f_from_counts(c["tp"], c["fp"], c["fn"]), rtol=1e-12)
    selected = xy(artist(ax, "selected t"))[0, 0]
    assert selected == line[first_max(line[:, 1]), 0]
    va = data[cs.validation_mask]
    assert line[line[:, 0] == selected, 1][0] == pytest.approx(
        fbeta_score(va["y"], cs.predict(va, type="class"), beta=1), rel=1e-12)
    diag = xy(artist(ax, "F = t"))
    np.testing.assert_array_equal(diag[:, 0], diag[:, 1])


def test_chapter8_plot_draws_the_table():
    """plot_chapter8: each model's line in the training panel (left) holds the table's F of
    that model on the training set against alpha, and in the test panel (right) on the test
    set, built here from the same formula as the table.

    Fails on: the panels swapped (train on the right); a model's line drawn from another
    model's rows."""
    from fmstats.experiments.thesis_ch8 import CHAPTER8_MODELS, plot_chapter8

    fig = plot_chapter8(_chapter8_table())
    alphas = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    for ax, (name, shift) in zip(fig.axes, (("train", 0.0), ("test", 0.2))):
        assert ax.get_title().lower().startswith(name if name == "test" else "training")
        for k, model in enumerate(CHAPTER8_MODELS):
            np.testing.assert_allclose(xy(artist(ax, model)),
                                       np.c_[alphas, 0.5 + 0.1 * alphas + 0.01 * k + shift],
                                       rtol=1e-12)


@pytest.mark.parametrize("how", ["function", "method"])
def test_diagnostics_draw_glm_residuals_and_leverage(fits, data, how):
    """plot_diagnostics(fit) and fit.plot_diagnostics(), panel by panel (found by title),
    against statsmodels' binomial GLM of the same model on a design built here: residuals vs
    fitted = (X b, deviance residuals); normal Q-Q = (Phi^-1((i - 1/2) / n), sorted deviance
    residuals / sqrt(1 - h)), h the GLM hat values; scale-location = (X b, sqrt(|those|));
    residuals vs leverage = (h, Pearson residuals / sqrt(1 - h)); the dashed Cook's
    contours satisfy r^2 = c k (1 - h) / h with c = 0.5, 1 and k = 5 coefficients.

    Fails on: fitted probabilities instead of the linear predictor on the x axis; the Q-Q
    plot of Pearson residuals, or of unstandardised ones; leverage against deviance
    residuals; Cook's contours with n in place of k."""
    from fmstats.maxent_models import plot_diagnostics

    fit = fits["maxent"]
    fig = plot_diagnostics(fit) if how == "function" else fit.plot_diagnostics()
    panels = {a.get_title(): a for a in fig.axes}
    X, glm = binomial_glm(data)
    eta = X @ np.asarray(glm.params)
    h = glm.get_influence().hat_matrix_diag
    dev = np.asarray(glm.resid_deviance)
    std_dev = dev / np.sqrt(1 - h)
    std_pearson = np.asarray(glm.resid_pearson) / np.sqrt(1 - h)
    n, k = X.shape
    theo = stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n)
    expected = {"Residuals vs Fitted": np.c_[eta, dev],
                "Normal Q-Q": np.c_[theo, np.sort(std_dev)],
                "Scale-Location": np.c_[eta, np.sqrt(np.abs(std_dev))],
                "Residuals vs Leverage": np.c_[h, std_pearson]}
    for title, ref in expected.items():
        (points,) = panels[title].collections
        np.testing.assert_allclose(points.get_offsets(), ref, rtol=1e-8, atol=1e-10)
    cooks = [xy(l) for l in panels["Residuals vs Leverage"].lines if l.get_linestyle() == "--"]
    assert len(cooks) == 4
    cs = sorted(round(float(np.median(c[:, 1] ** 2 * c[:, 0] / (k * (1 - c[:, 0])))), 12)
                for c in cooks)
    assert cs == [0.5, 0.5, 1.0, 1.0]
    for c in cooks:
        r2 = c[:, 1] ** 2 * c[:, 0] / (k * (1 - c[:, 0]))
        np.testing.assert_allclose(r2, r2[0], rtol=1e-12)
