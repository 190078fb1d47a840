"""Precision-recall, F and ROC curves (fmstats.prcurve and the results' f_curve/plot_pr/plot_roc).

Independent references: scikit-learn's ``precision_recall_curve`` and ``roc_auc_score`` with
sample weights; a brute-force loop over thresholds written here; the models' own
``confusion(threshold=t)``; ``tune_threshold``'s exact search; the harmonic-mean definition
of F for the iso-F lines.
"""
from __future__ import annotations


import matplotlib
import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from conftest import make_synth
from fmstats.exceptions import (DataError, FmstatsError, InvalidArgumentError, ResponseError,
                                WeightsError)
from fmstats.prcurve import (best_row, f_curve, iso_f_precision, iso_f_recall_start,
                             operating_row, roc_auc, roc_curve)

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

matplotlib.use("Agg")

sk_metrics = pytest.importorskip("sklearn.metrics")


def _arrays(seed=3, n=300, ties=True, prob=False):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    if ties:
        s = np.round(s, 1)          # many tied scores
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(float)
    if prob:
        y = np.clip(0.8 * y + 0.2 * rng.random(n), 0, 1)
    w = rng.uniform(0.2, 3.0, size=n)
    return y, s, w


def _brute(y, s, w, beta):
    """Counts and F at every distinct score by direct masks (no sorting, no cumsums)."""
    rows = []
    for t in np.unique(s)[::-1]:
        pred = s >= t
        tp = np.sum(w * y * pred)
        fp = np.sum(w * (1 - y) * pred)
        fn = np.sum(w * y * ~pred)
        tn = np.sum(w * (1 - y) * ~pred)
        b2 = beta ** 2
        rows.append((t, tp / (tp + fp), tp / (tp + fn),
                     (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp), tp, fp, fn, tn))
    return pd.DataFrame(rows, columns=["threshold", "precision", "recall", "f", "tp", "fp",
                                       "fn", "tn"])


# --------------------------------------------------------------------------- arrays

@pytest.mark.parametrize("prob", [False, True])
@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_f_curve_equals_brute_force_loop(prob, beta):
    y, s, w = _arrays(prob=prob)
    got = f_curve(y, s, w, beta=beta)
    ref = _brute(y, s, w, beta)
    assert len(got) == len(np.unique(s))
    pd.testing.assert_frame_equal(got, ref, rtol=1e-12, atol=1e-10)


def test_f_curve_alpha_and_beta_agree():
    y, s, w = _arrays()
    a = f_curve(y, s, w, alpha=0.2)
    b = f_curve(y, s, w, beta=2.0)
    np.testing.assert_allclose(a["f"], b["f"], rtol=1e-14)


@pytest.mark.parametrize("ties", [False, True])
def test_precision_recall_match_sklearn_with_weights(ties):
    y, s, w = _arrays(ties=ties)
    prec, rec, thr = sk_metrics.precision_recall_curve(y, s, sample_weight=w)
    ref = pd.DataFrame({"threshold": thr, "precision": prec[:-1], "recall": rec[:-1]})
    got = f_curve(y, s, w)
    # merging on floats is exact here: both thresholds are copies of the distinct scores
    merged = ref.merge(got, on="threshold", suffixes=("_sk", ""))
    assert len(merged) == len(ref) and len(ref) >= len(got) - 1
    np.testing.assert_allclose(merged["precision"], merged["precision_sk"], rtol=1e-12)
    np.testing.assert_allclose(merged["recall"], merged["recall_sk"], rtol=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_roc_auc_matches_sklearn_with_weights(ties):
    y, s, w = _arrays(ties=ties, seed=8)
    assert roc_auc(y, s, w) == pytest.approx(sk_metrics.roc_auc_score(y, s, sample_weight=w),
                                             rel=1e-12)
    fpr, tpr, _ = sk_metrics.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    r = roc_curve(y, s, w)
    np.testing.assert_allclose(r["fpr"], fpr, atol=1e-12)
    np.testing.assert_allclose(r["tpr"], tpr, atol=1e-12)


def test_iso_f_lines_have_constant_f():
    for measure in (fm.FMeasure(beta=1), fm.FMeasure(beta=2), fm.FMeasure(alpha=0.7)):
        for f in (0.2, 0.5, 0.8):
            r = np.linspace(iso_f_recall_start(f, measure), 1, 50)
            p = iso_f_precision(f, r, measure)
            assert np.all(np.isfinite(p)) and p[0] == pytest.approx(1.0)
            a = measure.alpha
            np.testing.assert_allclose(1 / (a / p + (1 - a) / r), f, rtol=1e-12)


def test_best_row_breaks_ties_by_the_highest_threshold():
    c = f_curve([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.1])   # F = 2/3 at 0.9 and at 0.1
    assert c["f"].iloc[0] == pytest.approx(c["f"].iloc[-1])
    assert best_row(c) == 0          # the tie rule: within TIE_RTOL, the highest threshold
    assert operating_row(c, 0.75) == 1 and operating_row(c, 0.8, strict=True) == 0
    assert operating_row(c, 0.95) is None


def test_array_input_errors():
    with pytest.raises(DataError, match="`score` must be finite"):
        f_curve([1, 0], [0.5, np.nan])
    with pytest.raises(FmstatsError, match="`y`"):
        f_curve([1, 2], [0.5, 0.1])
    with pytest.raises(FmstatsError, match="`sample_weight`"):
        f_curve([1, 0], [0.5, 0.1], [1.0, -1.0])
    with pytest.raises(ResponseError, match="no negative weight"):
        roc_auc([1, 1], [0.5, 0.1])
    with pytest.raises(DataError, match="`y` has no rows"):
        f_curve([], [])


# --------------------------------------------------------------------------- models

@pytest.fixture(scope="module")
def fits(synth_module):
    d = synth_module
    return {
        "maxent weighted": (fm.maxent("y ~ x1 + x2 + g", d, weights="w"), d),
        "maxent cbind": (fm.maxent("cbind(yes, no) ~ x1 + g", d), d),
        "umaxent": (fm.umaxent("q ~ x1 + x2", d, weights="w"), d),
        "fmaxent": (fm.fmaxent("y ~ x1 + x2", d, beta=2), d),
    }


@pytest.fixture(scope="module")
def synth_module():
    return make_synth(300)


@pytest.mark.parametrize("name", ["maxent weighted", "maxent cbind", "umaxent", "fmaxent"])
def test_training_counts_equal_confusion_at_every_threshold(fits, name):
    fit, _ = fits[name]
    curve = fit.f_curve()
    assert len(curve) == len(np.unique(fit.predict(type="response")))
    for t, tp, fp, fn, tn, f in curve[["threshold", "tp", "fp", "fn", "tn", "f"]].itertuples(
            index=False):
        c = fit.confusion(threshold=t)
        np.testing.assert_allclose([tp, fp, fn, tn], [c.tp, c.fp, c.fn, c.tn],
                                   rtol=1e-10, atol=1e-9)
        assert f == pytest.approx(c.f(fit.fmeasure), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("name", ["maxent weighted", "maxent cbind", "umaxent"])
def test_newdata_counts_equal_confusion(fits, name):
    fit, d = fits[name]
    new = d.iloc[::3].set_index(np.arange(100) * 7)          # non-default index
    curve = fit.f_curve(new)
    for t, tp, fp, fn in curve[["threshold", "tp", "fp", "fn"]].iloc[::9].itertuples(
            index=False):
        c = fit.confusion(new, threshold=t)
        np.testing.assert_allclose([tp, fp, fn], [c.tp, c.fp, c.fn], rtol=1e-10, atol=1e-9)


def test_newdata_weights_column_equals_brute_force(fits):
    fit, d = fits["maxent weighted"]
    new = d.iloc[1::2]
    curve = fit.f_curve(new, weights="w", beta=2)
    p = fit.predict(new, type="response").to_numpy()
    ref = _brute(new["y"].to_numpy(float), p, new["w"].to_numpy(float), 2.0)
    pd.testing.assert_frame_equal(curve, ref, rtol=1e-10, atol=1e-9)


def test_roc_auc_of_weighted_fit_matches_sklearn(fits):
    fit, d = fits["maxent weighted"]
    ref = sk_metrics.roc_auc_score(d["y"], fit.fitted_values, sample_weight=d["w"])
    assert fit.roc_auc() == pytest.approx(ref, rel=1e-12)
    new = d.iloc[::2]
    ref_new = sk_metrics.roc_auc_score(new["y"], fit.predict(new), sample_weight=new["w"])
    assert fit.roc_auc(new, weights=new["w"].to_numpy()) == pytest.approx(ref_new, rel=1e-12)


def test_f_optimal_threshold_equals_tune_threshold_exact_search(synth_module):
    d = synth_module
    fit = fm.maxent("y ~ x1 + x2 + g", d)
    tuned = fm.tune_threshold(fit, d, refit_folds=False, beta=2, random_state=1)
    mine = fit.f_curve(beta=2)
    b = mine.iloc[best_row(mine)]
    ref = tuned.tidy().iloc[tuned.best_index]
    # the same fitted probability, computed by two paths (the fit's IRLS fitted values and
    # tune_threshold's prediction on the data): equal to rounding, not bit for bit
    assert b["threshold"] == pytest.approx(ref["threshold"], rel=1e-12)
    assert b["f"] == pytest.approx(ref["f"], rel=1e-12)
    # the tuned model's own curve is on the tuning data, its rule at the tuned threshold
    tc = tuned.f_curve()
    pd.testing.assert_frame_equal(tc, mine, rtol=1e-12)
    own = operating_row(tc, tuned.threshold)
    c = tuned.confusion()
    np.testing.assert_allclose(tc[["tp", "fp", "fn"]].iloc[own], [c.tp, c.fp, c.fn], rtol=1e-12)


def test_svm_curve_uses_decision_values_and_prior_weights(synth_module):
    d = synth_module
    fit = fm.wsvm("y ~ x1 + x2", d, weights="w", C_pos=2.0, C_neg=1.0)
    curve = fit.f_curve()
    s = fit.decision_values.to_numpy()
    ref = _brute(d["y"].to_numpy(float), s, d["w"].to_numpy(float), fit.fmeasure.beta)
    pd.testing.assert_frame_equal(curve, ref, rtol=1e-10, atol=1e-9)
    # the model's own rule x'w + b > 0 is the row of the smallest positive decision value
    t, strict, _ = fit._decision_rule()
    own = operating_row(curve, t, strict)
    c = fit.confusion()
    np.testing.assert_allclose(curve[["tp", "fp", "fn"]].iloc[own], [c.tp, c.fp, c.fn],
                               rtol=1e-12)
    new = d.iloc[::2]
    ref_new = sk_metrics.roc_auc_score(new["y"], fit.predict(new, type="decision"))
    assert fit.roc_auc(new) == pytest.approx(ref_new, rel=1e-12)


def test_top_level_f_curve_dispatches_on_a_fit(fits):
    fit, d = fits["maxent weighted"]
    pd.testing.assert_frame_equal(fm.f_curve(fit), fit.f_curve())
    pd.testing.assert_frame_equal(fm.f_curve(fit, d.iloc[:50], alpha=0.3),
                                  fit.f_curve(d.iloc[:50], alpha=0.3))


# --------------------------------------------------------------------------- bad input

def test_bad_input_errors_name_the_argument(fits):
    fit, d = fits["maxent weighted"]
    with pytest.raises(DataError, match="`newdata` has no rows"):
        fit.f_curve(d.iloc[:0])
    with pytest.raises(ResponseError, match="`newdata` lacks the response column.*'y'"):
        fit.f_curve(d.drop(columns="y"))
    with pytest.raises(InvalidArgumentError, match="`newdata` must be a pandas DataFrame"):
        fit.plot_pr(newdata=[1, 2])
    with pytest.raises(InvalidArgumentError, match="`weights` applies to `newdata` only"):
        fit.f_curve(weights="w")
    with pytest.raises(WeightsError, match="`weights` names column 'k'"):   # as every model
        fit.f_curve(d, weights="k")
    with pytest.raises(ResponseError, match="no positive weight"):
        fit.roc_auc(d[d["y"] == 0])
    from fmstats.costsensitive import CostsensResults

    with pytest.raises(InvalidArgumentError, match="has no scores"):
        CostsensResults().f_curve()
    with pytest.raises(InvalidArgumentError, match="`y`: .*without scores"):
        fm.f_curve(fm.CvTuneResults.__new__(fm.CvTuneResults))


# --------------------------------------------------------------------------- figures

def test_plot_pr_draws_curve_iso_f_and_points(fits):
    import matplotlib.pyplot as plt

    fit, _ = fits["maxent weighted"]
    curve = fit.f_curve()
    fig = fit.plot_pr(iso_f=(0.3, 0.6))
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "F1=0.3" in texts and "F1=0.6" in texts
    b = curve.iloc[best_row(curve)]
    assert f"t = {b['threshold']:.3g}" in texts
    labels = ax.get_legend_handles_labels()[1]
    assert any(lab.startswith("F-optimal") for lab in labels)
    assert any(lab.startswith("model's rule: probability >= 0.5") for lab in labels)
    star = [ln for ln in ax.lines if ln.get_label().startswith("F-optimal")][0]
    assert star.get_xdata()[0] == pytest.approx(b["recall"])
    assert star.get_ydata()[0] == pytest.approx(b["precision"])
    assert ax.get_xlabel().startswith("recall") and ax.get_ylabel().startswith("precision")
    plt.close(fig)


def test_plot_roc_legend_has_the_auc(fits):
    import matplotlib.pyplot as plt

    fit, d = fits["umaxent"]
    fig = fit.plot_roc(d.iloc[::2])
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert f"ROC curve (AUC = {fit.roc_auc(d.iloc[::2]):.3f})" in labels
    plt.close(fig)
    svm = fm.wsvm("y ~ x1 + x2", d, C_pos=1.0, C_neg=1.0)
    fig, ax = plt.subplots()
    assert svm.plot_pr(ax=ax) is fig
    assert any("decision value > 0" in lab for lab in ax.get_legend_handles_labels()[1])
    plt.close(fig)


def test_newdata_weights_series_is_aligned_by_label():
    # a Series of weights is matched to newdata's rows by index label, as the models read
    # weights= (issue 16, item 6): a shuffled Series gives the same curve as the array
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"x": rng.normal(size=200)})
    d["y"] = (rng.random(200) < 1 / (1 + np.exp(-2 * d["x"]))).astype(int)
    fit = fm.maxent("y ~ x", d)
    w = pd.Series(rng.integers(1, 4, 200).astype(float), index=d.index)
    shuffled = w.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(fit.f_curve(d, weights=shuffled),
                                  fit.f_curve(d, weights=w.to_numpy()))
    with pytest.raises(WeightsError, match="weights"):
        fit.f_curve(d, weights=w.iloc[:150])
