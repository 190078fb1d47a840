"""Issue 33 (and the "Saved results" part of issue 31): results files that cannot run code when
opened and cannot be silently corrupted.

* every results type (31 variants of the 19 classes) saves and loads with the same params,
  covariance, fitted values, predictions, tables and summary text; ``pickle.dumps``/``loads``
  of the objects themselves keeps working;
* files crafted to call ``os.system``, ``subprocess.Popen``, ``eval``, ``exec``, to import a
  module, or to reach code through objects fmstats does allow (a model function called with a
  formula, a design whose formula patsy rebuilds when read, a formula term evaluated at
  predict, a recorded call's formula run by refit) are refused, and the test checks that the
  side effect (a marker file) did not happen; the same file read with ``trusted=True`` does
  create the marker, which shows each payload is live;
* the layout (magic, format, SHA-256 of the content, JSON header) is re-read here
  independently; single-byte flips in a fixed-seed sample (every region of the file) never
  load; a missing path is a ``ResultsFileError``.
"""
from __future__ import annotations

import builtins
import hashlib
import json
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import fmstats as fm
from fmstats.exceptions import InvalidArgumentError, ResultsFileError, ResultsFileWarning
from fmstats.extreme import SPE, probabilistic_label_tree
from fmstats.formula import code_problem, formula_problem
from fmstats.results import FORMAT_VERSION, Persistable

from conftest import make_synth
from test_reliability_persist import _multilabel_frame, _xmlc as _spe_and_labels


# ---------------------------------------------------------------------------
# every results type
# ---------------------------------------------------------------------------
def _xmlc():
    spe, Y = _spe_and_labels()
    return spe, Y, sp.csr_array(np.random.default_rng(9).random((60, 4)))


def _build_all() -> dict:
    """kind -> (results object, the data its predictions are evaluated on)."""
    d = make_synth(300)
    d["yb"] = d["y"].astype(bool)
    dn = d.copy()                          # issue 26: rows with a missing value, kept
    dn.loc[dn.index[::37], "x2"] = np.nan   # as NaN by na_action="exclude"
    ml = _multilabel_frame()
    spe, Y, X = _xmlc()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = fm.maxent("y ~ x1 + x2 + C(g)", d)
        fq = fm.fmaxent("q ~ x1 + x2", d, alpha=0.5, method="plugin")
        models = {
            "maxent": m,
            "maxent_patsy": fm.maxent("y ~ x1 + center(x2) + C(g)", d, engine="patsy"),
            "maxent_transforms": fm.maxent("y ~ center(x1) + log(abs(x2) + 1) + I(x1^2)", d),
            "maxent_array_weights": fm.maxent("y ~ x1 + x2", d, weights=d["w"].to_numpy()),
            "maxent_column_weights": fm.maxent("y ~ x1 + x2", d, weights="w"),
            "maxent_lean": fm.maxent("y ~ x1 + x2", d, keep_data=False),
            "maxent_hc0": fm.maxent("yb ~ x1 + x2", d, cov_type="HC0"),
            "maxent_r_habits": fm.maxent("y ~ ns(x1, df=3) + C(g, sum) + offset(0.1 * x2)",
                                         dn, subset="w > 1", na_action="exclude"),
            "maxent_patsy_ns": fm.maxent("y ~ ns(x1, df=3) + C(g, Sum) + x2", d,
                                         engine="patsy", offset="x2"),
            "umaxent": fm.umaxent("q ~ x1 + x2", d),
            "umaxent_cbind": fm.umaxent("cbind(yes, no) ~ x1 + x2", d),
            "fmaxent": fm.fmaxent("y ~ x1 + x2", d, alpha=0.5),
            "fmaxent_q": fq,
            "wsvm": fm.wsvm("y ~ x1 + x2", d),
            "fsvm": fm.fsvm("y ~ x1 + x2", d, maxeval=30),
            "costsens": fm.costsens("y ~ x1 + x2", d, grid=5, random_state=0),
            "cv_tune": fm.cv_tune(fm.maxent, "y ~ x1 + x2", d, {"penalty": [0.0, 1.0]}, cv=2,
                                  random_state=0),
            "cv_tune_with_measure": fm.cv_tune(fm.with_measure(fm.maxent, beta=2), "y ~ x1 + x2",
                                               d, {"penalty": [0.0, 1.0]}, cv=2, random_state=0),
            "tune_threshold": fm.tune_threshold(m, d, cv=2, random_state=0),
            "tune_threshold_ci": fm.tune_threshold(m, d, cv=2, random_state=0, ci=True, B=100,
                                                   level=0.8),
            "cv_tune_ci": fm.cv_tune(fm.maxent, "y ~ x1 + x2", d, {"penalty": [0.0, 1.0]},
                                     cv=2, random_state=0, ci=True, B=20),
            "tune_wsvm": fm.svm.tune_wsvm("y ~ x1 + x2", d, cv=2, random_state=0),
            "calibrate": fm.calibrate(m, d, method="isotonic", cv=3, random_state=0),
            "multinom": fm.multinom("g ~ x1 + x2", d, weights="w"),
            "multiclass_decision": fm.multiclass_decision(fm.multinom("g ~ x1 + x2", d), d,
                                                          rule="macro_f", cv=3, random_state=0),
        }
        out.update({k: (v, d) for k, v in models.items()})
        out["costsens_multilabel"] = (fm.costsens("y1 + y2 + y3 ~ x1 + x2", ml, grid=3,
                                                  random_state=0), ml)
        out["bootstrap"] = (fm.bootstrap(m, B=5, data=d, random_state=0), d)
        out["validate"] = (fm.validate(m, B=5, data=d, random_state=0), d)
        out["resample_f"] = (fm.resample_f(fq, B=20, random_state=0), d)
        for kind in ("br", "pcc"):
            fn = getattr(fm.multilabel, kind)
            out[kind] = (fn(ml, ["y1", "y2", "y3"], penalty=1.0, random_state=0), ml)
        out["spe"] = (spe, spe)
        out["sto"] = (fm.extreme.sto(spe, Y), spe)
        out["fta"] = (fm.extreme.fta(spe, Y, [0.2, 0.5]), spe)
        out["ofo"] = (fm.extreme.ofo(spe, Y, 1.0, 10.0), spe)
        out["plt"] = (probabilistic_label_tree(X, Y, random_state=0, n_jobs=1), X)
        out["frank_wolfe"] = (fm.extreme.frank_wolfe_macro_at_k(spe, Y, 2), spe)
        try:
            import dask.dataframe as dd
        except ImportError:   # pragma: no cover - dask is in the test extra
            pass
        else:
            out["maxent_dask"] = (fm.maxent("y ~ x1 + x2 + C(g)",
                                            dd.from_pandas(d, npartitions=3)), d)
    return out


@pytest.fixture(scope="module")
def built():
    return _build_all()


KINDS = ["maxent", "maxent_patsy", "maxent_transforms", "maxent_array_weights",
         "maxent_r_habits", "maxent_patsy_ns",
         "maxent_column_weights", "maxent_lean", "maxent_hc0", "umaxent", "umaxent_cbind",
         "fmaxent", "fmaxent_q", "wsvm", "fsvm", "costsens", "costsens_multilabel", "cv_tune",
         "cv_tune_with_measure", "tune_threshold", "tune_threshold_ci", "cv_tune_ci",
         "tune_wsvm", "bootstrap", "validate",
         "resample_f", "br", "pcc", "spe", "sto", "fta", "ofo", "plt", "frank_wolfe", "maxent_dask",
         "calibrate", "multinom", "multiclass_decision"]


def _evidence(obj, data) -> dict:
    """The numbers and text a user reads off a results object, by name."""
    out = {"repr": repr(obj)}
    for name in ("params", "fitted_values", "coef", "thresholds", "replicates", "values",
                 "weights", "best_params", "table"):
        try:
            value = getattr(obj, name, None)
        except fm.FmstatsError as exc:    # a Dask fit keeps no fitted values: same message
            value = f"{type(exc).__name__}: {exc}"
        if value is not None and not callable(value):
            out[name] = value
    for name in ("cov_params", "tidy", "summary"):
        method = getattr(obj, name, None)
        if callable(method):
            try:
                value = method()
            except fm.FmstatsError as exc:    # e.g. an SVM has no covariance: same message
                value = f"{type(exc).__name__}: {exc}"
            out[name] = value if isinstance(value, (pd.DataFrame, pd.Series)) else str(value)
    if isinstance(obj, fm.results.ModelResults):
        out["predict"] = obj.predict(data)
        out["measure"] = obj.measure(data)
    elif isinstance(obj, fm.multilabel.PCCResults):     # sampled: a fixed seed
        out["predict"] = obj.predict_marginals(data, random_state=0)
    elif isinstance(obj, fm.multilabel.BRResults):
        out["predict"] = obj.predict_marginals(data)
    elif isinstance(obj, fm.extreme.PLTResults):
        out["predict"] = obj.predict_marginals(data)
    elif isinstance(obj, fm.extreme.ThresholdFit):
        out["predict"] = obj.predict(data).toarray()
    elif isinstance(obj, SPE):
        out["predict"] = obj.toarray()
    elif isinstance(obj, fm.extreme.RandomizedTopK):     # sampled: a fixed seed
        out["predict"] = obj.predict(data, random_state=0).labels
    return out


def _assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        x, y = a[key], b[key]
        # exact: a file holds the same bytes as the object's pickle
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y, check_exact=True)
        elif isinstance(x, pd.Series):
            pd.testing.assert_series_equal(x, y, check_exact=True)
        elif isinstance(x, np.ndarray) or sp.issparse(x):
            np.testing.assert_array_equal(x.toarray() if sp.issparse(x) else x,
                                          y.toarray() if sp.issparse(y) else y)
        else:
            assert x == y, key


@pytest.mark.parametrize("kind", KINDS)
def test_every_results_type_round_trips_through_a_file(built, kind, tmp_path):
    if kind not in built:   # pragma: no cover - dask missing
        pytest.skip("dask is not installed")
    obj, data = built[kind]
    path = tmp_path / f"{kind}.fmr"
    obj.save(path)      # no ResultsFileWarning (pytest turns it into an error)
    back = type(obj).load(path)
    assert type(back) is type(obj) and back is not obj
    want, got = _evidence(obj, data), _evidence(back, data)
    if isinstance(obj, fm.results.ModelResults):   # what the issue names, for model fits
        assert {"params", "cov_params", "summary", "predict"} <= set(want)
    if kind.startswith(("maxent", "umaxent", "fmaxent")) and kind != "maxent_dask":
        assert isinstance(want["fitted_values"], pd.Series)
    _assert_same(want, got)


@pytest.mark.parametrize("kind", KINDS)
def test_pickle_of_the_objects_themselves_still_works(built, kind):
    # joblib and multiprocessing pickle results directly: not restricted
    if kind not in built:   # pragma: no cover
        pytest.skip("dask is not installed")
    obj, data = built[kind]
    _assert_same(_evidence(obj, data), _evidence(pickle.loads(pickle.dumps(obj)), data))


@pytest.mark.parametrize("storage", ["python", "pyarrow"])
def test_text_columns_of_either_pandas_storage_round_trip(storage, tmp_path):
    """Without pyarrow pandas keeps text in a StringArray (another reconstructor); results
    holding text (factor levels, the bootstrap's term names) load under both storages."""
    if storage == "pyarrow":
        pytest.importorskip("pyarrow")
    with pd.option_context("mode.string_storage", storage):
        d = make_synth(200)
        assert type(d["g"].array).__name__ == ("StringArray" if storage == "python"
                                              else "ArrowStringArray")
        fit = fm.maxent("y ~ x1 + C(g)", d)
        boot = fm.bootstrap(fit, B=3, data=d, random_state=0)
    for obj in (fit, boot):
        path = tmp_path / "s.fmr"
        obj.save(path)
        # in the same option context: cached statistics build their text index with it
        with pd.option_context("mode.string_storage", storage):
            _assert_same(_evidence(type(obj).load(path), d), _evidence(obj, d))


def test_every_results_class_is_covered(built):
    """Every concrete Persistable class of fmstats is among the round-tripped kinds (a new
    results type must be added to KINDS, and to the allow-list if it is refused)."""
    seen = {type(obj) for obj, _ in built.values()}

    def below(cls):
        return set().union(*({s} | below(s) for s in cls.__subclasses__()))
    abstract = {c for c in below(Persistable)
                if c.__qualname__ in ("ModelResults", "Tuned", "SvmResults", "MultilabelResults")}
    concrete = {c for c in below(Persistable) - abstract if c.__module__.startswith("fmstats.")}
    assert len(concrete) >= 15 and concrete <= seen, \
        sorted(c.__qualname__ for c in concrete - seen)


def test_every_listed_name_exists():
    for table in (_allowlist.CLASSES, _allowlist.CALLS, _allowlist.NAMES):
        for module, names in table.items():
            for name in names:
                assert _allowlist.resolve(module, name) is not None
    with pytest.raises(LookupError):
        _allowlist.resolve("os", "system")


# ---------------------------------------------------------------------------
# crafted files
# ---------------------------------------------------------------------------
def _write_format2(path, content: bytes, cls="fmstats.maxent_models._maxent.MaxentResults"):
    """A file in results format 2 written by hand (what an attacker can do): the checksum is
    right, so only the restricted reading stands between the content and the interpreter."""
    header = json.dumps({"class": cls, "content_bytes": len(content)}).encode() + b"\n"
    version = b"format 2\n"
    digest = hashlib.sha256(version + header + content).hexdigest()
    path.write_bytes(b"fmstats-results\n" + version + f"sha256 {digest}\n".encode() + header
                     + content)


class _Call:
    """Pickles as ``function(*args)``: what a crafted ``__reduce__`` looks like."""

    def __init__(self, function, args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


@pytest.fixture(scope="module")
def small():
    return make_synth(200)


@pytest.fixture(scope="module")
def plain_fit(small):
    return fm.maxent("y ~ x1 + I(x2)", small)


def _with_extra(fit, extra) -> bytes:
    """A maxent fit with one more attribute holding ``extra``, pickled."""
    clone = pickle.loads(pickle.dumps(fit))
    clone.__dict__["note"] = extra
    return pickle.dumps(clone, protocol=5)


def _touch_code(marker) -> str:
    return f"open({str(marker)!r}, 'w').close()"


def _payloads(marker, data):
    """name -> (pickled content, how a user would use the loaded object)."""
    evil_term = f"0 * len(str(__import__('os').system('touch {marker}')))"
    return {
        "os.system": (_Call(os.system, (f"touch {marker}",)), None),
        "subprocess.Popen": (_Call(subprocess.Popen, (["touch", str(marker)],)), None),
        "eval": (_Call(builtins.eval, (_touch_code(marker),)), None),
        "builtins.exec": (_Call(builtins.exec, (_touch_code(marker),)), None),
        # allowed names, reached differently: calling a model function with a formula
        "call of fm.maxent": (_Call(fm.maxent, (f"y ~ I(x1 + {evil_term})", data)), None),
        "call of a with_measure": (_Call(fm.with_measure(fm.maxent, beta=1),
                                         (f"y ~ I(x1 + {evil_term})", data)), None),
    }


@pytest.mark.parametrize("name", ["os.system", "subprocess.Popen", "eval", "builtins.exec",
                                  "call of fm.maxent", "call of a with_measure"])
def test_a_crafted_payload_is_refused_without_running(name, plain_fit, small, tmp_path):
    marker = tmp_path / "marker"
    payload, _ = _payloads(marker, small)[name]
    path = tmp_path / "crafted.fmr"
    _write_format2(path, _with_extra(plain_fit, payload))
    with pytest.raises(ResultsFileError, match="refused without running anything") as err:
        fm.MaxentResults.load(path)
    assert not marker.exists()
    assert "`path`" in str(err.value) and "trusted=True" in str(err.value)
    # the payload is live: read with pickle itself, it runs
    fm.MaxentResults.load(path, trusted=True)
    if name == "subprocess.Popen":
        _wait_for(marker)
    assert marker.exists()


def _wait_for(marker, seconds=10.0):
    import time

    end = time.monotonic() + seconds
    while not marker.exists() and time.monotonic() < end:
        time.sleep(0.02)


def test_a_payload_naming_a_module_does_not_import_it(plain_fit, tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    (tmp_path / "h33_payload_module.py").write_text(_touch_code(marker) + "\nvalue = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "crafted.fmr"
    _write_format2(path, b"ch33_payload_module\nvalue\n.")
    with pytest.raises(ResultsFileError, match=r"names h33_payload_module\.value, which is not "
                                               r"on the allow-list"):
        fm.MaxentResults.load(path)
    assert not marker.exists() and "h33_payload_module" not in sys.modules
    with pytest.raises(ResultsFileError):    # trusted: imported (the marker), then not results
        fm.MaxentResults.load(path, trusted=True)
    assert marker.exists()
    monkeypatch.delitem(sys.modules, "h33_payload_module")


@pytest.mark.parametrize("module, name", [
    ("fmstats.formula._frame", "_build"),                 # evaluates a formula
    ("fmstats.formula._frame", "DesignSpec.__init__"),    # an attribute path below a class
    ("fmstats.__main__", "main"),
    ("importlib", "import_module"),
    ("pickle", "loads"),
    ("copyreg", "_reconstructor"),
    ("numpy", "load"),
    ("pandas", "read_pickle"),
])
def test_names_beside_the_allow_list_are_refused(module, name, tmp_path):
    path = tmp_path / "crafted.fmr"
    _write_format2(path, f"c{module}\n{name}\n.".encode())
    with pytest.raises(ResultsFileError, match="not on the allow-list"):
        fm.MaxentResults.load(path)


def _set_factor_expr(fit, expr):
    for term in fit.spec.engine_spec.formula:
        for factor in term.factors:
            if factor.expr.startswith("I("):
                factor.expr = expr


@pytest.mark.parametrize("vector", ["patsy design rebuilt when read", "formulaic term at predict",
                                    "recorded call at refit"])
def test_allowed_objects_cannot_smuggle_a_formula(vector, small, tmp_path):
    """Formulas are code to the engines: a file may not hold one beyond their vocabulary."""
    marker = tmp_path / "marker"
    evil = f"I(x2 + 0 * len(str(__import__('os').system('touch {marker}'))))"
    engine = "patsy" if vector.startswith("patsy") else "formulaic"
    fit = pickle.loads(pickle.dumps(fm.maxent("y ~ x1 + I(x2)", small, engine=engine)))
    if vector.startswith("patsy"):
        object.__setattr__(fit.spec, "rhs", f"x1 + {evil}")
        use = lambda r: None                                       # noqa: E731
    elif vector.startswith("formulaic"):
        _set_factor_expr(fit, evil)
        use = lambda r: r.predict(small)                           # noqa: E731
    else:
        object.__setattr__(fit.call, "arguments",
                           {**fit.call.arguments, "formula": f"y ~ x1 + {evil}"})
        use = lambda r: r.refit(small)                             # noqa: E731
    path = tmp_path / "crafted.fmr"
    _write_format2(path, pickle.dumps(fit, protocol=5))
    with pytest.raises(ResultsFileError, match=r"not safe: in the term .*'__import__' is not "
                                               r"allowed"):
        fm.MaxentResults.load(path)
    assert not marker.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            use(fm.MaxentResults.load(path, trusted=True))
        except fm.FmstatsError:     # the term ran, then its columns did not fit the design
            pass
    assert marker.exists()


def test_a_crafted_response_is_refused(small, tmp_path):
    fit = pickle.loads(pickle.dumps(fm.maxent("I(y > 0) ~ x1", small)))
    object.__setattr__(fit.spec, "lhs", "I(y + 0 * __import__('os').getpid() > 0)")
    path = tmp_path / "crafted.fmr"
    _write_format2(path, pickle.dumps(fit, protocol=5))
    with pytest.raises(ResultsFileError, match=r"in the response .*'__import__'"):
        fm.MaxentResults.load(path)


def test_a_file_cannot_fill_a_class_it_did_not_create(tmp_path):
    # BUILD on the class object would set class attributes (monkeypatching fmstats)
    path = tmp_path / "crafted.fmr"
    from fmstats.glm.irls import IrlsFit     # a listed class without __setstate__

    _write_format2(path, b"cfmstats.glm.irls\nIrlsFit\n(N(S'h33_attr'\nI1\ndtb.")
    with pytest.raises(ResultsFileError, match="did not create"):
        fm.MaxentResults.load(path)
    assert not hasattr(IrlsFit, "h33_attr")


def test_a_file_cannot_create_a_class_with_arguments_or_call_a_class(tmp_path):
    path = tmp_path / "crafted.fmr"
    # NEWOBJ of DesignSpec with arguments, then REDUCE on DataFrame (listed to create only)
    _write_format2(path, b"\x80\x04cfmstats.formula._frame\nDesignSpec\nX\x05\x00\x00\x00patsy"
                         b"\x85\x81.")
    with pytest.raises(ResultsFileError, match="constructor arguments"):
        fm.MaxentResults.load(path)
    _write_format2(path, b"cpandas\nDataFrame\n)R.")
    with pytest.raises(ResultsFileError, match="may not call"):
        fm.MaxentResults.load(path)


@pytest.mark.parametrize("content, match", [
    # an ndarray of 10**12 float64 (numpy pickles an empty array, then fills it)
    (pickle.dumps(_Call(np.ndarray.__reduce__(np.empty(0))[0], (np.ndarray, (10**12,), b"d")),
                  protocol=5), "empty ndarray"),
    # a byte array declared 2**40 bytes long in a file of a few bytes
    (b"\x80\x05\x96\x00\x00\x00\x00\x00\x01\x00\x00.", "declares a byte array"),
], ids=["huge-array", "huge-bytearray"])
def test_declared_sizes_beyond_the_file_are_refused(content, match, tmp_path):
    path = tmp_path / "crafted.fmr"
    _write_format2(path, content)
    with pytest.raises(ResultsFileError, match=match):
        fm.MaxentResults.load(path)


def test_inconsistent_sparse_indices_are_refused(tmp_path):
    spe = SPE(sp.csr_array(np.array([[0.3, 0.8], [0.0, 0.6]])))
    clone = pickle.loads(pickle.dumps(spe))
    clone.matrix.indices[0] = 7          # a column beyond the shape: scipy's C++ trusts it
    path = tmp_path / "crafted.fmr"
    _write_format2(path, pickle.dumps(clone, protocol=5), cls="fmstats.extreme._spe.SPE")
    with pytest.raises(ResultsFileError, match="sparse matrix whose indices"):
        SPE.load(path)


def test_categorical_codes_beyond_the_categories_are_refused(plain_fit, tmp_path):
    cat = pd.Categorical(["a", "b", "a"])
    cat._ndarray[1] = 5
    path = tmp_path / "crafted.fmr"
    _write_format2(path, _with_extra(plain_fit, cat))
    with pytest.raises(ResultsFileError, match="categorical whose codes"):
        fm.MaxentResults.load(path)


def my_model(formula, data, **kw):
    """A model function of the user's (a module-level function: it pickles by name)."""
    return fm.maxent(formula, data, **kw)


def test_save_warns_when_load_would_refuse(small, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = fm.cv_tune(my_model, "y ~ x1", small, {"penalty": [0.0, 1.0]}, cv=2,
                           random_state=0)
        method = fm.maxent("y ~ x1.abs() + x2", small)
    for obj, what in ((tuned, "my_model is not on the allow-list"),
                      (method, "the attribute '.abs' is not allowed")):
        path = tmp_path / "w.fmr"
        with pytest.warns(ResultsFileWarning, match=what):
            obj.save(path)
        with pytest.raises(ResultsFileError, match="refused"):
            type(obj).load(path)
        back = type(obj).load(path, trusted=True)
        assert repr(back) == repr(obj)


# ---------------------------------------------------------------------------
# the formula check
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("formula, engine", [
    ("survived ~ C(pclass) * sex + age + sibsp", None),
    ("y ~ C(g, Treatment('b')) * x1 + I(x1^2) + np.log(abs(x2) + 1) + center(x2)", None),
    ("y ~ C(g, Treatment('b')) * x1 + I(x1^2) + np.log(abs(x2) + 1) + center(x2)", "patsy"),
    ("y ~ C(g, contr.treatment('b')) + scale(x1) + poly(x2, 2) + log(x1 + 10, 2)", None),
    ("y ~ factor(g) + `odd name` + Sepal.Length + {x1 + 1} + Q('x y')", None),
    ("cbind(yes, no) ~ . - x3", None),
    ("I(y > 0) ~ x1 + bs(x2, df=4) + np.where(x1 > 0, x1, 0)", None),
    ("y1 + y2 + y3 ~ x1 + x2", None),
    ("y ~ ns(x1, df=3) + C(g, sum) + cr(x2, df=4) + offset(log(w))", None),
    ("~ x1 + x2", None),
    ("I(g == 'a~b') ~ x1", None),
])
def test_formulas_people_write_pass(formula, engine):
    assert formula_problem(formula, engine) is None


@pytest.mark.parametrize("code, why", [
    ("__import__('os').system('x')", "'__import__'"),
    ("x.abs()", "attribute '.abs'"),
    ("().__class__.__bases__", "attribute '.__class__'"),
    ("C(g, __builtins__)", "'__builtins__'"),
    ("np.load('x.npy', allow_pickle=True)", "attribute '.load'"),
    ("eval('1')", "'eval'"),
    ("C(g, breakpoint)", "'breakpoint'"),        # patsy calls a callable contrast
    ("C(g, input)", "'input'"),
    ("np.log(x, out=x)", "'out='"),
    ("x[0]", "subscripts"),
    ("(lambda: 1)()", "'lambda'"),
    ("[c for c in x]", "'for'"),
    ("f'{x}'", "f-string"),
    ("`eval`('1')", "back-quoted name"),
    ("hashed(x, 10, hash_func=print)", "'hashed'"),    # calls the function it is given
    ("open('f')", "'open'"),
    ("np", "np.<function>"),
    ("x := 1", "':='"),
    ("@x", "'@'"),
])
def test_terms_beyond_the_vocabulary_are_refused(code, why):
    problem = code_problem(code)
    assert problem is not None and why in problem


# ---------------------------------------------------------------------------
# the layout, damage and missing files
# ---------------------------------------------------------------------------
def _read_independently(blob: bytes):
    magic, version, sha, header, content = blob.split(b"\n", 4)
    assert magic == b"fmstats-results" and version == f"format {FORMAT_VERSION}".encode()
    want = hashlib.sha256(version + b"\n" + header + b"\n" + content).hexdigest()
    assert sha == f"sha256 {want}".encode()
    return json.loads(header), content


def test_the_layout_is_as_documented(built, tmp_path):
    obj, data = built["maxent"]
    path = tmp_path / "m.fmr"
    obj.save(path)
    header, content = _read_independently(path.read_bytes())
    assert header["class"] == "fmstats.maxent_models._maxent.MaxentResults"
    assert header["fmstats_version"] == fm.__version__
    assert header["content_bytes"] == len(content) and header["pickle_protocol"] == 5
    assert content[:2] == b"\x80\x05"     # protocol 5
    _assert_same(_evidence(pickle.loads(content), data), _evidence(obj, data))


def _regions(blob: bytes) -> list[int]:
    ends = [i for i, b in enumerate(blob) if b == 10][:4]
    return [0, ends[0] + 1, ends[1] + 1, ends[2] + 1, ends[3] + 1]


@pytest.mark.parametrize("kind", ["maxent", "fmaxent", "bootstrap", "cv_tune", "sto", "plt"])
def test_single_byte_flips_never_load(built, kind, tmp_path):
    """A fixed-seed sample of flips in every region (magic, format, checksum, header,
    content): each is a ResultsFileError, never a load or another exception.  The full
    experiment is benchmarks/bench_byteflip.py."""
    obj = built[kind][0]
    path = tmp_path / "f.fmr"
    obj.save(path)
    blob = path.read_bytes()
    rng = np.random.default_rng(33)
    starts = _regions(blob)
    positions = set()
    for lo, hi in zip(starts, starts[1:] + [len(blob)]):
        positions |= set(rng.integers(lo, hi, size=min(8, hi - lo)).tolist())
    positions |= set(rng.integers(starts[-1], len(blob), size=120).tolist())
    for pos in sorted(positions):
        bad = bytearray(blob)
        bad[pos] ^= int(rng.integers(1, 256))
        path.write_bytes(bytes(bad))
        with pytest.raises(ResultsFileError, match="`path`"):
            type(obj).load(path)


@pytest.mark.parametrize("edit, match", [
    (lambda b: b[:-1], "checksum does not match"),
    (lambda b: b + b"\x00", "checksum does not match"),
    (lambda b: b[:40], "ends inside its header|checksum"),
    (lambda b: b"", "is empty"),
    (lambda b: b.replace(b"format 2", b"format 3", 1), "format 3; this fmstats reads format 2"),
    (lambda b: b.replace(b"format 2", b"format x", 1), "format line"),
    (lambda b: b"fmstats-results\nformat 2\n", "ends inside its header"),
], ids=["cut-one", "appended", "cut-header", "empty", "newer", "bad-version", "no-body"])
def test_damaged_files_say_what_is_wrong(built, tmp_path, edit, match):
    obj = built["wsvm"][0]
    path = tmp_path / "w.fmr"
    obj.save(path)
    path.write_bytes(edit(path.read_bytes()))
    with pytest.raises(ResultsFileError, match=match):
        fm.WsvmResults.load(path)


def test_a_header_naming_something_else_is_refused_before_reading(plain_fit, tmp_path):
    path = tmp_path / "h.fmr"
    _write_format2(path, pickle.dumps(plain_fit, protocol=5), cls="posix.system")
    with pytest.raises(ResultsFileError, match="not an fmstats results type"):
        fm.MaxentResults.load(path)


def test_missing_and_unwritable_paths_are_results_file_errors(built, tmp_path):
    obj = built["sto"][0]
    with pytest.raises(ResultsFileError, match=r"`path` .*nope\.fmr' does not exist"):
        type(obj).load(tmp_path / "nope.fmr")
    with pytest.raises(ResultsFileError, match="is a directory"):
        type(obj).load(tmp_path)
    with pytest.raises(ResultsFileError, match="does not exist"):
        obj.save(tmp_path / "no-such-dir" / "f.fmr")
    with pytest.raises(InvalidArgumentError, match="`path` must be a file name"):
        type(obj).load(3)
    obj.save(tmp_path / "ok.fmr")
    with pytest.raises(InvalidArgumentError, match="`trusted` must be True or False"):
        type(obj).load(tmp_path / "ok.fmr", trusted="yes")


def test_older_plain_pickles_open_only_when_trusted(built, tmp_path):
    obj, data = built["maxent"]
    path = tmp_path / "old.pkl"
    # format 1: a pickled dict envelope, as save() wrote before this issue
    path.write_bytes(pickle.dumps({"fmstats_results": 1, "fmstats_version": "0.1.0",
                                   "class": "fmstats.maxent_models._maxent.MaxentResults",
                                   "results": obj}))
    with pytest.raises(ResultsFileError, match="plain pickle.*trusted=True"):
        fm.MaxentResults.load(path)
    with pytest.warns(ResultsFileWarning, match="plain pickle.*save\\(\\) it again"):
        back = fm.MaxentResults.load(path, trusted=True)
    _assert_same(_evidence(back, data), _evidence(obj, data))
