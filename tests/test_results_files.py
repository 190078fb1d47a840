"""Issues 33 and 39 (and the "Saved results" part of issue 31): results files that cannot run
code when opened and cannot be silently corrupted.

* every results type (40 variants of the 20 classes) saves and loads with the same params,
  covariance, fitted values, predictions, tables and summary text; ``pickle.dumps``/``loads``
  of the objects themselves keeps working;
* the layout of format 3 (magic, format, SHA-256, a JSON header holding the state as a tree
  of data, ``.npy`` arrays) is re-read here independently, with json and ``np.load(...,
  allow_pickle=False)``: no pickle anywhere, public class names only;
* single-byte flips in a fixed-seed sample (every region of the file) never load; damaged
  files say what is wrong; a missing path is a ``ResultsFileError``;
* format 2 (a pickle) and older plain pickles open only with ``trusted=True``, with a
  ``ResultsFileWarning``; results holding a function of the user's are written as format 2;
* the formula check: what people write passes, terms beyond the vocabulary are refused.

The files built by hand for each attack of issue 39 are in tests/test_results_attacks.py.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
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
            ddf = dd.from_pandas(d, npartitions=3)
            out["maxent_dask"] = (fm.maxent("y ~ x1 + x2 + C(g)", ddf), d)
            # out of core: a threshold tuned on the row blocks, a Poisson bootstrap
            out["tune_threshold_dask"] = (fm.tune_threshold(out["maxent_dask"][0], ddf, cv=3,
                                                            random_state=0), d)
            out["bootstrap_dask"] = (fm.bootstrap(out["maxent_dask"][0], B=20, data=ddf,
                                                  random_state=0), d)
            # cv_tune out of core: the fold fits on the row blocks, the best refitted there
            out["cv_tune_dask"] = (fm.cv_tune(fm.maxent, "y ~ x1 + x2 + C(g)", ddf,
                                              {"penalty": [0.0, 10.0]}, cv=3, random_state=0),
                                   d)
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
         "tune_threshold_dask", "bootstrap_dask", "cv_tune_dask", "calibrate", "multinom", "multiclass_decision"]


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
    elif isinstance(obj, fm.extreme.ProbabilisticLabelTreeResults):
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
    if kind.startswith(("maxent", "umaxent", "fmaxent")) and not kind.endswith("_dask"):
        assert isinstance(want["fitted_values"], pd.Series)
    _assert_same(want, got)
    # loaded again, and saved before any use (which caches what is computed on first use,
    # as fmaxent's default bootstrap): the very same file, nothing lost, nothing added
    again = tmp_path / f"{kind}-again.fmr"
    type(obj).load(path).save(again)
    assert again.read_bytes() == path.read_bytes()


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


def test_every_registered_name_is_public_and_resolves():
    """The registry names classes and functions by public paths (no ``_module`` part), each
    resolving to the object whose name a file gives it; anything else is refused."""
    from fmstats.results import _registry

    for kind, names in (("class", _registry.CLASSES), ("function", _registry.FUNCTIONS)):
        for name in names:
            assert not any(part.startswith("_") for part in name.split(".")), name
            try:
                obj = _registry.resolve(name, kind)
            except ImportError:     # pragma: no cover - the Dask fit's class without dask
                continue
            assert _registry.name_of(obj) == name
    for name in ("os.system", "builtins.eval", "fmstats.formula._frame._build",
                 "fmstats.maxent_models._maxent.MaxentResults", "fmstats.results._persist"):
        with pytest.raises(LookupError):
            _registry.resolve(name, "class")
        with pytest.raises(LookupError):
            _registry.resolve(name, "function")


def test_saved_files_name_public_classes_only(built, tmp_path):
    """Issue 43's rule, kept by the format: every class a file names is a public path."""
    for kind in ("maxent", "cv_tune_with_measure", "tune_wsvm", "bootstrap", "plt"):
        obj = built[kind][0]
        path = tmp_path / "f.fmr"
        obj.save(path)
        header, _ = _read_independently(path.read_bytes())
        names = _names_in(header["state"])
        assert names and all("._" not in n and n.startswith("fmstats.") for n in names), names


def _names_in(node) -> set:
    out = set()
    if isinstance(node, dict):
        if node.get("~") in ("obj", "fn"):
            out.add(node.get("cls") or node.get("name"))
        for v in node.values():
            out |= _names_in(v)
    elif isinstance(node, list):
        for v in node:
            out |= _names_in(v)
    return out


# ---------------------------------------------------------------------------
# results a data-only file cannot hold, and format 2
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    return make_synth(200)


def my_model(formula, data, **kw):
    """A model function of the user's (a module-level function: it pickles by name)."""
    return fm.maxent(formula, data, **kw)


def test_results_holding_a_users_function_are_written_as_format_2(small, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tuned = fm.cv_tune(my_model, "y ~ x1", small, {"penalty": [0.0, 1.0]}, cv=2,
                           random_state=0)
        method = fm.maxent("y ~ x1.abs() + x2", small)
    for obj, what in ((tuned, r"the function .*my_model"),
                      (method, r"the attribute '\.abs' is not allowed")):
        path = tmp_path / "w.fmr"
        with pytest.warns(ResultsFileWarning, match="written as a pickle .*format 2.*" + what):
            obj.save(path)
        assert path.read_bytes().split(b"\n")[1] == b"format 2"
        with pytest.raises(ResultsFileError, match="format 2.*pickle.*trusted=True"):
            type(obj).load(path)
        with pytest.warns(ResultsFileWarning, match="read with pickle itself"):
            back = type(obj).load(path, trusted=True)
        assert repr(back) == repr(obj)


def _write_format2(path, content: bytes, cls="fmstats.maxent_models._maxent.MaxentResults"):
    """A file in results format 2 (as fmstats wrote before format 3), the checksum right."""
    header = json.dumps({"class": cls, "content_bytes": len(content)}).encode() + b"\n"
    version = b"format 2\n"
    digest = hashlib.sha256(version + header + content).hexdigest()
    path.write_bytes(b"fmstats-results\n" + version + f"sha256 {digest}\n".encode() + header
                     + content)


def test_format_2_files_open_only_when_trusted(small, tmp_path):
    """A format-2 file holding a payload: refused without reading its content; read (and
    the payload runs) only with trusted=True, with the warning."""
    marker = tmp_path / "marker"
    fit = fm.maxent("y ~ x1 + x2", small)
    clone = pickle.loads(pickle.dumps(fit))
    clone.__dict__["note"] = _Call(os.system, (f"touch {marker}",))
    path = tmp_path / "old.fmr"
    _write_format2(path, pickle.dumps(clone, protocol=5))
    with pytest.raises(ResultsFileError, match=r"format 2, whose content is a pickle, which can "
                                               r"run code .*load\(path, trusted=True\)"):
        fm.MaxentResults.load(path)
    assert not marker.exists()
    with pytest.warns(ResultsFileWarning, match="format 2.*read with pickle itself"):
        back = fm.MaxentResults.load(path, trusted=True)
    assert marker.exists() and back.params.equals(fit.params)


def test_files_naming_modules_made_private_still_open(small, tmp_path):
    """glm's modules became private (``fmstats.glm.irls`` -> ``fmstats.glm._irls``): the old
    public name of the IRLS fit still resolves in format-3 files, and a trusted format-2
    pickle naming the old module opens, with the same numbers.  Mutants: the entry dropped
    from ``_registry.RENAMED`` or ``_registry.MOVED_MODULES``."""
    from fmstats.results import _registry

    assert _registry.resolve("fmstats.glm.irls.IrlsFit", "class") is fm.glm.IrlsFit
    assert _registry.name_of(fm.glm.IrlsFit) == "fmstats.glm.IrlsFit"
    fit = fm.maxent("y ~ x1 + x2", small)
    payload = pickle.dumps(fit, protocol=2)       # protocol 2 names classes as text lines
    old = payload.replace(b"cfmstats.glm._irls\n", b"cfmstats.glm.irls\n")
    assert old != payload and b"fmstats.glm._irls" not in old
    path = tmp_path / "old.fmr"
    _write_format2(path, old)
    with pytest.warns(ResultsFileWarning, match="format 2"):
        back = fm.MaxentResults.load(path, trusted=True)
    assert type(back.core_fit) is fm.glm.IrlsFit
    np.testing.assert_array_equal(back.params.to_numpy(), fit.params.to_numpy())


def test_pickles_naming_a_moved_class_by_its_old_private_path_open(small, tmp_path):
    """Trusted old pickles named the bootstrap's draws ``fmstats.resampling._bootstrap._Draws``
    (an alias the module no longer holds): ``_registry.MOVED_CLASSES`` finds the class.
    Mutant: the entry dropped."""
    boot = fm.bootstrap(fm.maxent("y ~ x1 + x2", small), B=20, random_state=0)
    payload = pickle.dumps(boot, protocol=2)
    old = payload.replace(b"cfmstats.resampling._replicates\nDraws\n",
                          b"cfmstats.resampling._bootstrap\n_Draws\n")
    assert old != payload
    path = tmp_path / "old.fmr"
    _write_format2(path, old, cls="fmstats.resampling._bootstrap.BootstrapResults")
    with pytest.warns(ResultsFileWarning, match="format 2"):
        back = fm.BootstrapResults.load(path, trusted=True)
    assert type(back.draws) is fm.resampling.Draws
    pd.testing.assert_frame_equal(back.replicates, boot.replicates)


class _Call:
    """Pickles as ``function(*args)``: what a crafted ``__reduce__`` looks like."""

    def __init__(self, function, args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


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
    ("y ~ (x1 + x2 + g)^2 - x1:x2 + x1 %in% g + C(g, contr.sum)", None),
    ("~ x1 + x2", None),
    ("I(g == 'a~b') ~ x1", None),
])
def test_formulas_people_write_pass(formula, engine):
    assert formula_problem(formula, engine) is None


@pytest.mark.parametrize("code, why", [
    ("__import__('os').system('x')", "attribute '.system'"),
    ("len(__import__('os'))", "'__import__'"),
    ("x.abs()", "attribute '.abs'"),
    ("().__class__.__bases__", "attribute '.__bases__'"),
    ("(x) . query('a > 0')", "attribute '.query'"),
    ("C(g, __builtins__)", "'__builtins__'"),
    ("np.load('x.npy', allow_pickle=True)", "attribute '.load'"),
    ("np.__builtins__", "attribute '.__builtins__'"),
    ("np.f2py.os.system('x')", "attribute '.system'"),
    ("eval('1')", "'eval'"),
    ("C(g, breakpoint)", "'breakpoint'"),        # patsy calls a callable contrast
    ("C(g, input)", "'input'"),
    ("np.log(x, out=x)", "'out='"),
    ("bs(x, df=3, hash_func=print)", "'hash_func='"),
    ("x[0]", "subscript"),
    ("(lambda: 1)()", "'lambda'"),
    ("[c for c in x]", "comprehension"),
    ("f'{x}'", "f-string"),
    ("`eval`('1')", "back-quoted name"),
    ("hashed(x, 10)", "'hashed'"),               # calls the function it is given
    ("open('f')", "'open'"),
    ("np", "np.<function>"),
    ("(x := 1)", "':='"),
    ("@x", "'@'"),
    ("C(*g)", "'*'"),
    ("C(g, **k)", "'**'"),
    ("{'a': 1}", "a dict"),
    ("9 ** 9 ** 9", "a power inside an exponent"),
    ("x ** 1000", "too large"),
    ("'a' * 10 ** 9", "repeating text"),
    ("I(g == 'a\\\\' )", "backslash"),
    ("C(g, Treatment('\"'))", "quote"),
])
def test_terms_beyond_the_vocabulary_are_refused(code, why):
    problem = code_problem(code)
    assert problem is not None and why in problem, problem


@pytest.mark.parametrize("kind, text, why", [
    ("subset", "x1.to_csv('m') is None", "attribute '.to_csv'"),
    ("subset", "x1 > @limit", "'@'"),
    ("subset", "sqrt(x1) > 1 & g in ['a', 'b'] | ~(x2 < 0)", None),
    ("subset", "a mask of 3 of 10 rows", None),           # how settings describe a mask
    ("subset", "a mask of 3 of 10 rows or x1.to_csv('m')", "cannot be read"),
    ("offsets", ("np.__builtins__['eval']('1')",), "subscript"),
    ("offsets", ("np.log(np.__builtins__)",), "attribute '.__builtins__'"),
    ("offsets", ("log(w) + 0.5 * x1",), None),
    ("offset", "w`) + (np.__builtins__", "back-quote"),
    ("contrasts", {"g": "sum", "h": "contr.helmert"}, None),
    ("contrasts", {"g": "print"}, "not a known contrast"),
    ("contrasts", {"C(g)": "sum"}, "not a name"),
    ("lhs", "Sepal.Length", None),
    ("lhs", "I(y.to_csv('m') is None)", "attribute '.to_csv'"),
    ("lhs", "cbind(yes, no.x)", None),
    ("lhs", "cbind(yes, f(no))", "two column names"),
    ("rhs", "x1 + I((np) . f2py . os . system('m'))", "attribute '.system'"),
    # R's "." of a formula as typed stands for the data's columns: the check reads
    # "I((np)(_fmstats_dot_)f2py...)", the engine "I((np)(a + b)f2py...)" at refit: no
    # Python, nothing evaluated
    ("formula", "y ~ x1 + I((np) . f2py . os . system('m'))", None),
    ("formula", "y ~ x1 + I(np.f2py.os.system('m'))", "attribute '.system'"),
    ("formula", ["y ~ x1", "y ~ x1 + I(x1.to_csv('m'))"], "attribute '.to_csv'"),
])
def test_every_kind_of_stored_text_is_checked_in_one_place(kind, text, why):
    from fmstats.formula import text_problem

    problem = text_problem(kind, text)
    assert (problem is None) if why is None else (problem is not None and why in problem), \
        problem


def test_a_formula_whose_engine_is_named_is_read_as_that_engine_reads_it():
    from fmstats.formula import text_problem

    spaced = "y ~ x1 + I((np) . f2py . os . system('m'))"
    assert "cannot be parsed by formulaic" in text_problem("formula", spaced, "formulaic")
    # patsy reads R's %in% as Python: refused for patsy, a nesting for formulaic
    assert text_problem("rhs", "x1 %in% g", "formulaic") is None
    assert "cannot be read" in text_problem("rhs", "x1 %in% g", "patsy")


# ---------------------------------------------------------------------------
# the layout, damage and missing files
# ---------------------------------------------------------------------------
def _read_independently(blob: bytes):
    """Format 3 re-read with json and numpy alone: (header, arrays)."""
    magic, version, sha, rest = blob.split(b"\n", 3)
    assert magic == b"fmstats-results" and version == f"format {FORMAT_VERSION}".encode()
    want = hashlib.sha256(version + b"\n" + rest).hexdigest()
    assert sha == f"sha256 {want}".encode()
    header_line, section = rest.split(b"\n", 1)
    header = json.loads(header_line)
    arrays = []
    for start, length in header["arrays"]:
        arrays.append(np.load(io.BytesIO(section[start:start + length]), allow_pickle=False))
    assert sum(n for _, n in header["arrays"]) == len(section)
    return header, arrays


def test_the_layout_is_as_documented(built, tmp_path):
    obj, data = built["maxent"]
    path = tmp_path / "m.fmr"
    obj.save(path)
    blob = path.read_bytes()
    header, arrays = _read_independently(blob)
    assert set(header) == {"arrays", "class", "fmstats_version", "libraries", "python", "state"}
    assert header["class"] == "fmstats.MaxentResults"
    assert header["fmstats_version"] == fm.__version__
    assert header["state"]["~"] == "obj" and header["state"]["cls"] == "fmstats.MaxentResults"
    assert all(a.dtype != object for a in arrays)
    # the coefficients are an array of the file, bit for bit
    coef = obj.params.to_numpy()
    assert any(a.shape == coef.shape and np.array_equal(a, coef) for a in arrays)


def _regions(blob: bytes) -> list[int]:
    ends = [i for i, b in enumerate(blob) if b == 10][:4]
    return [0, ends[0] + 1, ends[1] + 1, ends[2] + 1, ends[3] + 1]


@pytest.mark.parametrize("kind", ["maxent", "fmaxent", "bootstrap", "cv_tune", "sto", "plt"])
def test_single_byte_flips_never_load(built, kind, tmp_path):
    """A fixed-seed sample of flips in every region (magic, format, checksum, header,
    arrays): each is a ResultsFileError, never a load or another exception.  The full
    experiment is benchmarks/reliability/bench_byteflip.py."""
    obj = built[kind][0]
    path = tmp_path / "f.fmr"
    obj.save(path)
    blob = path.read_bytes()
    rng = np.random.default_rng(33)
    starts = _regions(blob)
    positions = set()
    for lo, hi in zip(starts, starts[1:] + [len(blob)]):
        positions |= set(rng.integers(lo, hi, size=min(8, hi - lo)).tolist())
    positions |= set(rng.integers(starts[3], len(blob), size=120).tolist())
    for pos in sorted(positions):
        bad = bytearray(blob)
        bad[pos] ^= int(rng.integers(1, 256))
        path.write_bytes(bytes(bad))
        with pytest.raises(ResultsFileError, match="`path`"):
            type(obj).load(path)


@pytest.mark.parametrize("kind", ["bootstrap", "validate", "plt", "maxent_patsy_ns"])
def test_flips_with_the_checksum_recomputed_are_refused_or_read(built, kind, tmp_path):
    """Without its checksum (recomputed after each flip, as an attacker would), the reader
    still meets nothing but ResultsFileError or a loaded object: never another exception.
    Flips in the header (the JSON tree and the .npy headers' kind of text) and anywhere."""
    obj = built[kind][0]
    path = tmp_path / "f.fmr"
    obj.save(path)
    magic, version, _, rest = path.read_bytes().split(b"\n", 3)
    head = rest.index(b"\n") + 1
    rng = np.random.default_rng(39)
    loaded = 0
    for pos in np.r_[rng.integers(0, head, 60), rng.integers(0, len(rest), 30)]:
        bad = bytearray(rest)
        bad[pos] ^= int(rng.integers(1, 256))
        digest = hashlib.sha256(version + b"\n" + bytes(bad)).hexdigest().encode()
        path.write_bytes(b"\n".join([magic, version, b"sha256 " + digest, bytes(bad)]))
        try:
            type(obj).load(path)
            loaded += 1
        except ResultsFileError:
            pass
    assert loaded < 90     # most flips of the header break its JSON or its checks


@pytest.mark.parametrize("edit, match", [
    (lambda b: b[:-1], "checksum does not match"),
    (lambda b: b + b"\x00", "checksum does not match"),
    (lambda b: b[:40], "ends inside its header|checksum"),
    (lambda b: b"", "is empty"),
    (lambda b: b.replace(b"format 3", b"format 4", 1), "format 4; this fmstats reads format 3"),
    (lambda b: b.replace(b"format 3", b"format 1", 1), "format 1; .*which no fmstats wrote"),
    (lambda b: b.replace(b"format 3", b"format x", 1), "format line"),
    (lambda b: b"fmstats-results\nformat 3\n", "ends inside its header"),
], ids=["cut-one", "appended", "cut-header", "empty", "newer", "older", "bad-version",
        "no-body"])
def test_damaged_files_say_what_is_wrong(built, tmp_path, edit, match):
    obj = built["wsvm"][0]
    path = tmp_path / "w.fmr"
    obj.save(path)
    path.write_bytes(edit(path.read_bytes()))
    with pytest.raises(ResultsFileError, match=match):
        fm.WsvmResults.load(path)


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
    # format 1: a pickled dict envelope, as save() wrote before issue 33
    path.write_bytes(pickle.dumps({"fmstats_results": 1, "fmstats_version": "0.1.0",
                                   "class": "fmstats.maxent_models._maxent.MaxentResults",
                                   "results": obj}))
    with pytest.raises(ResultsFileError, match="plain pickle.*trusted=True"):
        fm.MaxentResults.load(path)
    with pytest.warns(ResultsFileWarning, match="plain pickle.*save\\(\\) it again"):
        back = fm.MaxentResults.load(path, trusted=True)
    _assert_same(_evidence(back, data), _evidence(obj, data))


# ---------------------------------------------------------------------------
# the tree is generic: new fields and registered classes need no format work
# ---------------------------------------------------------------------------
def test_new_fields_of_any_data_need_no_format_work(built, tmp_path):
    """A results object with fields added later (issue 40's Monte-Carlo errors, settings)
    round-trips whatever data they hold: arrays of any plain dtype, numpy scalars, dicts
    with number and tuple keys, tuples, sets, complex numbers, slices, frames with a
    MultiIndex, categoricals, nullable and text arrays, and registered objects."""
    fit = pickle.loads(pickle.dumps(built["maxent"][0]))
    extra = {
        "mc_error": np.array([[0.1, 0.2], [0.3, 0.4]], dtype=np.float32),
        "flags": np.array([True, False]), "when": np.array(["2024-01-02"], "datetime64[D]"),
        "count": np.int64(7), "scale": np.float16(0.5), "label": np.str_("a"),
        "by_key": {1: "one", (2, "b"): [1.5, None], None: frozenset({3})},
        "settings": fm.results.Settings(replicates=200, ci={"level": 0.9}),
        "z": 1 - 2j, "window": slice(1, None, 2), "kinds": {"a", "b"},
        "table": pd.DataFrame({"x": pd.array([1, None], dtype="Int64"),
                               "g": pd.Categorical(["u", "v"], ordered=True),
                               "s": pd.array(["p", None], dtype="string"),
                               "o": np.array([1, "a"], dtype=object)},
                              index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)],
                                                              names=["k", "n"])),
        "measure": fm.FMeasure(alpha=0.3, beta=None),
    }
    fit.__dict__.update(extra)
    path = tmp_path / "f.fmr"
    fit.save(path)
    back = fm.MaxentResults.load(path)
    for key, value in extra.items():
        got = back.__dict__[key]
        assert type(got) is type(value), key
        if isinstance(value, np.ndarray):
            assert got.dtype == value.dtype and np.array_equal(got, value), key
        elif isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(got, value, check_exact=True)
        elif isinstance(value, fm.results.Settings):
            assert dict(got) == dict(value)
        else:
            assert got == value and repr(got) == repr(value), key


def test_a_registered_named_tuple_is_rebuilt_by_its_constructor(monkeypatch, tmp_path):
    from typing import NamedTuple

    from fmstats.results import _registry

    class Interval(NamedTuple):
        low: float
        high: float

    monkeypatch.setattr(fm.results, "Interval", Interval, raising=False)
    monkeypatch.setattr(_registry, "CLASSES", _registry.CLASSES + ("fmstats.results.Interval",))
    for cached in (_registry._lookup, _registry._names):
        cached.cache_clear()
    try:
        obj = fm.extreme.SPE(sp.csr_array(np.eye(2) * 0.5))
        object.__setattr__(obj, "ci", Interval(0.1, 0.9))
        path = tmp_path / "t.fmr"
        obj.save(path)
        back = fm.extreme.SPE.load(path)
        assert type(back.ci) is Interval and back.ci == (0.1, 0.9)
    finally:
        for cached in (_registry._lookup, _registry._names):
            cached.cache_clear()
