"""One vocabulary: the interval choice (user guide, *Intervals: one vocabulary*), and results
classes named after the function that makes them.

``ci`` asks for an interval (True or False), ``ci_method`` names how it is computed where the
interval is an optional part of a result, ``method`` where the interval is the result
(``f_interval``, ``conf_int``, ``compare``, ``f_band``), ``level`` its level.  The old
spellings -- the method given as ``ci`` (``measure(ci="delta")``, ``bootstrap(ci="bca")``),
``bootstrap(ci=None)``, ``tidy(conf_method=)``, ``BootstrapResults.conf_int(ci=)`` and
``tidy(ci=)``/``mc_error(ci=)`` -- still work, give the same numbers, and warn with a
:class:`~fmstats.exceptions.FmstatsDeprecationWarning` naming the new spelling.
"""
from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import (FmstatsDeprecationWarning, FmstatsWarning, InvalidArgumentError,
                                ResultsFileWarning)
from fmstats.results import _registry


@pytest.fixture(scope="module")
def split():
    titanic = fm.datasets.titanic_complete().sample(frac=1.0, random_state=0)
    return titanic.iloc[:500], titanic.iloc[500:]


@pytest.fixture(scope="module")
def fit(split):
    return fm.maxent("survived ~ C(pclass) + sex + age", split[0])


@pytest.fixture(scope="module")
def boot(fit, split):
    return fm.bootstrap(fit, B=40, ci_method="bca", jackknife=10, data=split[0],
                        random_state=3, mc_tol=None, progress=False)


def _old(call, match):
    """Run ``call`` (an old spelling): it must warn, naming the new spelling."""
    with pytest.warns(FmstatsDeprecationWarning, match=match) as rec:
        out = call()
    assert all(r.filename == __file__ for r in rec
               if issubclass(r.category, FmstatsDeprecationWarning)), \
        "the warning names the user's line, not fmstats'"
    return out


def test_the_warning_is_an_fmstats_and_a_future_warning():
    assert issubclass(FmstatsDeprecationWarning, FmstatsWarning)
    assert issubclass(FmstatsDeprecationWarning, FutureWarning)
    assert "FmstatsDeprecationWarning" in fm.exceptions.__all__


@pytest.mark.parametrize("method", ["delta", "bayes", "bootstrap"])
def test_measure_old_spelling_same_interval(fit, split, method):
    test = split[1]
    tuned = fm.tune_threshold(fit, split[0], cv=3, random_state=0)
    for obj in (fit, tuned):
        new = obj.measure(test, ci=True, ci_method=method, random_state=0)
        old = _old(lambda: obj.measure(test, ci=method, random_state=0),
                   rf"measure\(ci='{method}'\) is the old spelling of "
                   rf"measure\(ci=True, ci_method='{method}'\)")
        assert isinstance(old, fm.MeasureInterval)
        assert (old.estimate, old.low, old.high, old.method) == \
            (new.estimate, new.low, new.high, new.method)


def test_measure_default_method_is_delta(fit, split):
    test = split[1]
    by_default = fit.measure(test, ci=True)
    delta = fm.f_interval(test["survived"], fit.predict(test, type="class"), method="delta")
    assert (by_default.low, by_default.high) == pytest.approx((delta.low, delta.high),
                                                              rel=1e-12)
    assert fit.measure(test, ci=False) == fit.measure(test)


def test_costsens_measure_old_spelling_same_interval(split):
    train, test = split
    cs = fm.costsens("survived ~ C(pclass) + sex + age", train, grid=3, random_state=0)
    new = cs.measure(test, ci=True, ci_method="bayes", random_state=0)
    old = _old(lambda: cs.measure(test, ci="bayes", random_state=0), "ci_method='bayes'")
    assert (old.low, old.high) == (new.low, new.high)


def test_old_and_new_spelling_together_refused(fit, split, boot):
    with pytest.raises(InvalidArgumentError, match="old spelling of `ci=True, ci_method="):
        fit.measure(split[1], ci="delta", ci_method="bayes")
    with pytest.raises(InvalidArgumentError, match="`conf_method` is the old name of "
                                                   "`ci_method`"):
        fit.tidy(conf_method="wald", ci_method="wald")
    with pytest.raises(InvalidArgumentError, match="`ci` is the old name of `method`"):
        boot.conf_int(ci="basic", method="basic")


def test_bootstrap_old_spelling_same_replicates(fit, split, boot):
    old = _old(lambda: fm.bootstrap(fit, B=40, ci="bca", jackknife=10, data=split[0],
                                    random_state=3, mc_tol=None, progress=False),
               r"bootstrap\(ci='bca'\) is the old spelling of "
               r"bootstrap\(ci=True, ci_method='bca'\)")
    pd.testing.assert_frame_equal(old.replicates, boot.replicates)
    np.testing.assert_array_equal(old.jackknife, boot.jackknife)
    pd.testing.assert_frame_equal(old.tidy(), boot.tidy())
    assert old.ci == boot.ci == "bca"


def test_bootstrap_ci_none_is_ci_false(fit, split):
    kw = dict(B=60, data=split[0], random_state=5, mc_tol=0.2, progress=False)
    new = fm.bootstrap(fit, ci=False, **kw)
    old = _old(lambda: fm.bootstrap(fit, ci=None, **kw),
               r"bootstrap\(ci=None\) is the old spelling of bootstrap\(ci=False\)")
    # ci=False: the early stop watches the standard errors only, so both stop alike
    assert old.B == new.B
    pd.testing.assert_frame_equal(old.replicates, new.replicates)
    assert old.ci == new.ci == "percentile"


def test_bootstrap_results_old_keywords(boot):
    for method in ("percentile", "basic", "bca"):
        pd.testing.assert_frame_equal(
            _old(lambda: boot.conf_int(ci=method), r"conf_int\(ci=...\) is the old spelling "
                                                   r"of conf_int\(method=...\)"),
            boot.conf_int(method=method))
        pd.testing.assert_frame_equal(boot.conf_int(method), boot.conf_int(method=method))
        pd.testing.assert_frame_equal(
            _old(lambda: boot.tidy(ci=method), r"tidy\(ci=...\) is the old spelling of "
                                               r"tidy\(ci_method=...\)"),
            boot.tidy(ci_method=method))
        pd.testing.assert_frame_equal(
            _old(lambda: boot.mc_error(ci=method), r"mc_error\(ci=...\)"),
            boot.mc_error(ci_method=method))
    basic = boot.conf_int(method="basic").to_numpy()
    t0 = boot.estimate.to_numpy()
    q = boot.replicates.quantile([0.975, 0.025]).to_numpy().T     # numpy's linear rule
    np.testing.assert_allclose(basic, 2 * t0[:, None] - q, rtol=1e-12, atol=1e-12)


def test_curve_bands_old_spelling(fit):
    """``f_curve(band="profile")``/``plot_pr(band=...)``: the band's method given as the
    switch, the same rule as ``ci``."""
    new = fit.f_curve(band=True, band_method="profile")
    old = _old(lambda: fit.f_curve(band="profile"),
               r"f_curve\(band='profile'\) is the old spelling of "
               r"f_curve\(band=True, band_method='profile'\)")
    pd.testing.assert_frame_equal(old, new)
    boot = fit.f_curve(band=True, B=200, random_state=0)       # bootstrap by default
    pd.testing.assert_frame_equal(
        boot, fit.f_curve(band=True, band_method="bootstrap", B=200, random_state=0))
    with pytest.raises(InvalidArgumentError, match="`band_method='delta'` names the method"):
        fit.f_curve(band_method="delta")
    pytest.importorskip("matplotlib").use("Agg")
    _old(lambda: fit.plot_pr(band="profile"), r"plot_pr\(band='profile'\)")
    with pytest.raises(InvalidArgumentError, match="`band_method` must be one of 'bootstrap', "
                                                   "'profile'"):
        fit.plot_pr(band=True, band_method="delta")


@pytest.mark.parametrize("method", ["wald", "profile"])
def test_tidy_conf_method_old_spelling(fit, method):
    new = fit.tidy(ci_method=method)
    old = _old(lambda: fit.tidy(conf_method=method),
               r"tidy\(conf_method=...\) is the old spelling of tidy\(ci_method=...\)")
    pd.testing.assert_frame_equal(old, new)
    pd.testing.assert_frame_equal(fit.tidy(0.95, None, method), new)     # positional too


NAMESPACES = ["fmstats", "fmstats.inference", "fmstats.resampling", "fmstats.model_selection",
              "fmstats.results", "fmstats.maxent_models", "fmstats.costsensitive",
              "fmstats.calibration", "fmstats.multiclass", "fmstats.svm", "fmstats.extreme"]


def _public_signatures():
    seen = {}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        for name in mod.__all__:
            obj = getattr(mod, name)
            members = [(name, obj)] if inspect.isfunction(obj) else []
            if inspect.isclass(obj):
                members += [(f"{name}.{m}", f) for m, f in inspect.getmembers(obj)
                            if not m.startswith("_") and inspect.isfunction(f)]
            for label, f in members:
                try:
                    seen.setdefault(label, inspect.signature(f))
                except (TypeError, ValueError):
                    pass
    return seen


def test_every_entry_point_speaks_the_vocabulary():
    """``ci`` is a switch (default True or False), never a method name; ``ci_method`` only
    beside ``ci`` or where the interval is always part of the table (``tidy``, ``mc_error``);
    ``conf_method`` is gone.  Mutant: a new ``ci="percentile"`` default."""
    sigs = _public_signatures()
    assert "bootstrap" in sigs and "MaxentResults.measure" in sigs
    assert "MaxentResults.f_curve" in sigs and "MaxentResults.plot_pr" in sigs
    bad = []
    for label, sig in sigs.items():
        params = sig.parameters
        for switch in ("ci", "band"):
            if switch in params and params[switch].default not in (True, False):
                bad.append(f"{label}: {switch}={params[switch].default!r}")
            if f"{switch}_method" in params and switch not in params and switch == "band":
                bad.append(f"{label}: band_method without band")
        if "conf_method" in params:
            bad.append(f"{label}: conf_method")
        if ("ci_method" in params and "ci" not in params
                and label.rsplit(".", 1)[-1] not in ("tidy", "mc_error")):
            bad.append(f"{label}: ci_method without ci")
    assert bad == [], bad


# ----------------------------------------------------------------------------- results names
#: (namespace, the function, its results class, the class's name before the pairing)
PAIRS = [("fmstats", "tune_threshold", "TuneThresholdResults", "ThresholdedResults"),
         ("fmstats", "calibrate", "CalibrateResults", "CalibratedResults"),
         ("fmstats", "costsens", "CostsensResults", "CostSensitiveResults"),
         ("fmstats", "multiclass_decision", "MulticlassDecisionResults", "MulticlassDecision"),
         ("fmstats.maxent_models", "resample_f", "ResampleFResults", "ResampledF"),
         ("fmstats.extreme", "probabilistic_label_tree", "ProbabilisticLabelTreeResults",
          "PLTResults")]


@pytest.mark.parametrize("ns, fn, new, old", PAIRS)
def test_results_named_after_their_function_old_names_kept(ns, fn, new, old):
    mod = importlib.import_module(ns)
    cls = getattr(mod, new)
    assert cls.__name__ == new and getattr(mod, old) is cls
    assert new in mod.__all__ and old in mod.__all__
    assert new.lower() == fn.replace("_", "") + "results"
    # results files: the new public name is written, the old one still resolves
    assert _registry.name_of(cls) == f"{ns}.{new}"
    assert _registry.resolve(f"{ns}.{old}", "class") is cls


def test_every_model_function_pairs_with_its_results_class():
    """A function of fmstats' namespace whose return annotation is one of its results classes
    names that class after itself (``maxent`` -> ``MaxentResults``), except the functions
    that share one family's class (``umaxent``: ``MaxentResults``) and the tuners of the SVM
    family (``tune_wsvm``: ``CvTuneResults``)."""
    shared = {"umaxent": "MaxentResults", "tune_wsvm": "CvTuneResults",
              "tune_fsvm": "CvTuneResults", "costsens_arrays": "CostsensResults"}
    unpaired = []
    for ns in ("fmstats", "fmstats.extreme", "fmstats.multilabel", "fmstats.maxent_models",
               "fmstats.svm", "fmstats.resampling", "fmstats.model_selection"):
        mod = importlib.import_module(ns)
        for name in mod.__all__:
            fn = getattr(mod, name)
            if not inspect.isfunction(fn):
                continue
            ret = str(inspect.signature(fn).return_annotation).strip("'\"")
            if not ret.endswith("Results") or shared.get(name) == ret:
                continue
            if ret.lower() != name.replace("_", "").lower() + "results":
                unpaired.append(f"{ns}.{name} -> {ret}")
    assert unpaired == [], unpaired


def test_files_naming_the_old_class_names_still_open(split, fit, tmp_path, monkeypatch):
    """A format-3 file written before the renaming (it names ``fmstats.ThresholdedResults``)
    and a trusted format-2 pickle naming the old class both open, with the same numbers.
    Mutants: the entry dropped from ``_registry.RENAMED``; the module alias removed."""
    tuned = fm.tune_threshold(fit, split[0], cv=3, random_state=0)
    old_writer = _registry.name_of

    def as_before(obj):
        name = old_writer(obj)
        back = {v: k for k, v in _registry.RENAMED.items()}
        return back.get(name, name)

    monkeypatch.setattr(_registry, "name_of", as_before)
    path = tmp_path / "old3.fmr"
    tuned.save(path)
    monkeypatch.setattr(_registry, "name_of", old_writer)
    assert b'"fmstats.ThresholdedResults"' in path.read_bytes()
    back = fm.TuneThresholdResults.load(path)
    assert type(back) is fm.TuneThresholdResults
    assert back.threshold == tuned.threshold
    assert back.measure(split[1]) == tuned.measure(split[1])

    payload = pickle.dumps(tuned, protocol=2)
    payload = payload.replace(b"\nTuneThresholdResults\n", b"\nThresholdedResults\n")
    assert b"TuneThresholdResults" not in payload
    header = json.dumps({"class": "fmstats.model_selection._thresholded.ThresholdedResults",
                         "content_bytes": len(payload)}).encode() + b"\n"
    version = b"format 2\n"
    digest = hashlib.sha256(version + header + payload).hexdigest()
    path2 = tmp_path / "old2.fmr"
    path2.write_bytes(b"fmstats-results\n" + version + f"sha256 {digest}\n".encode() + header
                      + payload)
    with pytest.warns(ResultsFileWarning, match="format 2"):
        back2 = fm.ThresholdedResults.load(path2, trusted=True)
    assert type(back2) is fm.TuneThresholdResults and back2.threshold == tuned.threshold
