"""Issue 39: results files built by hand for each attack found against format 2, refused.

Each test takes a file ``save()`` wrote, edits its JSON header or replaces one of its ``.npy``
arrays the way an attacker would, and recomputes the SHA-256 (anyone can).  The file must be
refused with a ``ResultsFileError`` naming the field, and:

* no side effect: the payload would create a marker file; the test shows the payload is live
  (the same text evaluated as the engine or pandas would evaluate it creates the marker) and
  that loading, predicting and refitting do not;
* no crash: the files whose bytes could reach compiled code unchecked (an object dtype, a
  zero-itemsize dtype, MultiIndex codes out of bounds, huge declared shapes, deep JSON) are
  also loaded in a separate Python process, which must exit normally after refusing each;
* no allocation beyond a bound: the peak memory traced while refusing a file of a few hundred
  bytes that declares gigabytes stays under 4 MB (``tracemalloc``).

The attacks: a formula whose spaced ``.`` hides an attribute access (a design rebuilt when
read; a term evaluated at predict; a recorded call's formula run by refit), an offset reaching
``np.__builtins__``, a ``subset=`` evaluated by ``DataFrame.eval`` at refit, a response
evaluated by ``DataFrame.eval`` at ``measure``, an object dtype in an ``.npy`` header (and a
structured dtype holding objects), MultiIndex and categorical codes out of bounds, sparse
indices out of bounds, a zero-itemsize dtype, a deeply nested JSON header, huge declared
shapes in a tiny file, classes and functions beside the registry, and private class paths.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import FormulaError, ResultsFileError
from fmstats.extreme import SPE

from conftest import make_synth


# ---------------------------------------------------------------------------
# writing files by hand
# ---------------------------------------------------------------------------
def _split(blob: bytes):
    magic, version, _sha, rest = blob.split(b"\n", 3)
    header_line, section = rest.split(b"\n", 1)
    header = json.loads(header_line)
    blobs = [section[a:a + n] for a, n in header["arrays"]]
    return header, blobs


def _join(header: dict, blobs: list, header_line: bytes | None = None) -> bytes:
    """A format-3 file with a correct checksum (what an attacker can write)."""
    starts, at = [], 0
    for b in blobs:
        starts.append([at, len(b)])
        at += len(b)
    header = dict(header, arrays=starts)
    line = header_line if header_line is not None else json.dumps(header).encode()
    version = b"format 3\n"
    body = line + b"\n" + b"".join(blobs)
    digest = hashlib.sha256(version + body).hexdigest()
    return b"fmstats-results\n" + version + f"sha256 {digest}\n".encode() + body


def _craft(path, obj, edit):
    """Save ``obj`` to ``path``, then apply ``edit(header, blobs)`` and rewrite the file."""
    obj.save(path)
    header, blobs = _split(path.read_bytes())
    edit(header, blobs)
    path.write_bytes(_join(header, blobs))


def _npy(descr: str, shape: tuple, data: bytes, fortran=False) -> bytes:
    """An ``.npy`` blob written by hand: any header, any bytes."""
    head = f"{{'descr': {descr!r}, 'fortran_order': {fortran}, 'shape': {shape!r}, }}"
    head = head.encode("latin1")
    pad = 64 - (10 + len(head) + 1) % 64
    head = head + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + data


def _find(node, test, path=()):
    """(path, node) of the JSON nodes for which ``test(node)`` holds."""
    out = []
    if isinstance(node, dict):
        if test(node):
            out.append((path, node))
        for k, v in node.items():
            out += _find(v, test, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _find(v, test, path + (i,))
    return out


def _entry(state_dict_node, key):
    """The value node of ``key`` in a dict node (``{"~": "dict", "k": [...], "v": [...]}``)."""
    return state_dict_node["v"][state_dict_node["k"].index(key)]


def _set_entry(state_dict_node, key, value):
    state_dict_node["v"][state_dict_node["k"].index(key)] = value


def _obj(header, cls):
    return [n for _, n in _find(header["state"], lambda n: n.get("~") == "obj"
                                and n.get("cls") == cls)]


def _refused(path, cls=fm.MaxentResults, match=None):
    with pytest.raises(ResultsFileError) as err:
        cls.load(path)
    msg = str(err.value)
    assert "`path`" in msg
    if match is not None:
        assert any(m in msg for m in ([match] if isinstance(match, str) else match)), msg
    return msg


@pytest.fixture(scope="module")
def data():
    return make_synth(200)


@pytest.fixture(scope="module")
def fit(data):
    return fm.maxent("y ~ x1 + I(x2) + C(g)", data)


@pytest.fixture(scope="module")
def patsy_fit(data):
    return fm.maxent("y ~ x1 + I(x2)", data, engine="patsy")


def _spaced(marker) -> str:
    """A term whose spaced dots hide attribute access: runs ``touch marker`` when either
    engine evaluates it (numpy.f2py imports os)."""
    return f"I(x2 + 0 * (np) . f2py . os . system('touch {marker}'))"


# ---------------------------------------------------------------------------
# formulas, offsets, subsets, responses: code hidden in text
# ---------------------------------------------------------------------------
def test_the_spaced_dot_payload_is_live(data, tmp_path):
    """What the file tests below carry runs a command when an engine evaluates it."""
    import formulaic
    import patsy

    for i, run in enumerate([
            lambda rhs: formulaic.model_matrix(rhs, data),
            lambda rhs: patsy.dmatrix(rhs, data, eval_env=patsy.EvalEnvironment([{"np": np}]))]):
        marker = tmp_path / f"marker{i}"
        try:
            run("x1 + " + _spaced(marker))
        except Exception:   # noqa: BLE001 - the command ran, then the term is not numeric
            pass
        assert marker.exists()


def test_a_patsy_design_hiding_code_behind_spaced_dots_is_refused(patsy_fit, tmp_path):
    """Format 2 rebuilt patsy's design inside load() from a formula whose ``(x) . attr``
    the check had expanded away; here the design's text is checked exactly as the engine
    reads it, and no engine runs during load()."""
    marker = tmp_path / "marker"
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        spec, = _obj(header, "fmstats.formula.DesignSpec")
        _set_entry(spec["state"], "rhs", "x1 + " + _spaced(marker))
    _craft(path, patsy_fit, edit)
    msg = _refused(path, match="state.spec")
    assert "attribute '.system'" in msg and not marker.exists()


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_a_design_term_evaluated_at_predict_is_refused(engine, data, tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "crafted.fmr"
    obj = fm.maxent("y ~ x1 + I(x2)", data, engine=engine)

    def edit(header, blobs):
        spec, = _obj(header, "fmstats.formula.DesignSpec")
        _set_entry(spec["state"], "rhs", "x1 + " + _spaced(marker))
        engine_state = _entry(spec["state"], "engine_state")
        if engine == "formulaic":       # the term formulaic evaluates at predict
            fs = _entry(engine_state, "factors")
            for f in fs:
                if f[0] == "I(x2)":
                    f[0] = _spaced(marker)
    _craft(path, obj, edit)
    _refused(path, match="attribute '.system'")
    assert not marker.exists()


def test_a_formulaic_term_alone_is_refused(fit, tmp_path):
    """Only the engine's stored term is changed (the right-hand side still reads well)."""
    marker = tmp_path / "marker"
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        spec, = _obj(header, "fmstats.formula.DesignSpec")
        for f in _entry(_entry(spec["state"], "engine_state"), "factors"):
            if f[0] == "I(x2)":
                f[0] = _spaced(marker)
    _craft(path, fit, edit)
    _refused(path, match=["in the term", "attribute '.system'"])
    assert not marker.exists()


def test_a_recorded_call_formula_run_by_refit_is_refused(fit, data, tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        call, = _obj(header, "fmstats.results.ModelCall")
        _set_entry(_entry(call["state"], "arguments"), "formula",
                   f"y ~ x1 + I(np.f2py.os.system('touch {marker}'))")
    _craft(path, fit, edit)
    msg = _refused(path, match="state.call.arguments.formula")
    assert "attribute '.system'" in msg and not marker.exists()


def test_an_offset_reaching_np_builtins_is_refused(data, tmp_path):
    """The offset was eval-ed at the first predict(newdata); np.__builtins__ escaped the
    empty builtins."""
    marker = tmp_path / "marker"
    payload = (f"np.__builtins__['__import__']('os').system('touch {marker}') * 0 + x1")
    # live: evaluated as format 2 evaluated offsets, it runs
    eval(payload, {"__builtins__": {}}, {"np": np, "x1": 1.0})      # noqa: S307
    assert marker.exists()
    marker.unlink()
    obj = fm.maxent("y ~ x1 + offset(0.1 * x2)", data)
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        spec, = _obj(header, "fmstats.formula.DesignSpec")
        _set_entry(spec["state"], "offsets", {"~": "tuple", "v": [payload]})
    _craft(path, obj, edit)
    _refused(path, match=["offset(", "subscript"])
    assert not marker.exists()
    # and at predict, on a design built in this session: checked before it is evaluated
    from dataclasses import replace
    bad = replace(obj.spec, offsets=(payload,))
    with pytest.raises(FormulaError, match="offset.*cannot be evaluated"):
        bad.offset_values(data)
    assert not marker.exists()


def test_a_subset_run_by_refit_through_dataframe_eval_is_refused(fit, data, tmp_path):
    marker = tmp_path / "marker"
    payload = f"x1.to_csv('{marker}') is None"
    try:                                   # live: DataFrame.eval runs the method
        data.eval(payload, engine="python")
    except Exception:   # noqa: BLE001 - pandas cannot compare with 'is', after the call
        pass
    assert marker.exists()
    marker.unlink()
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        call, = _obj(header, "fmstats.results.ModelCall")
        args = _entry(call["state"], "arguments")
        args["k"].append("subset")
        args["v"].append(payload)
    _craft(path, fit, edit)
    msg = _refused(path, match="state.call.arguments.subset")
    assert "attribute '.to_csv'" in msg and not marker.exists()
    # the refit path itself checks a subset before DataFrame.eval sees it
    with pytest.raises(FormulaError, match="`subset`.*cannot be evaluated"):
        fm.maxent("y ~ x1", data, subset=payload)
    assert not marker.exists()


def test_a_response_evaluated_by_dataframe_eval_is_refused(data, tmp_path):
    marker = tmp_path / "marker"
    obj = fm.maxent("I(y > 0) ~ x1", data)
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        spec, = _obj(header, "fmstats.formula.DesignSpec")
        _set_entry(spec["state"], "lhs", f"I(y.to_csv('{marker}') is None)")
    _craft(path, obj, edit)
    _refused(path, match="in the response")
    assert not marker.exists()


def test_contrasts_and_offset_columns_are_checked(fit, tmp_path):
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        call, = _obj(header, "fmstats.results.ModelCall")
        args = _entry(call["state"], "arguments")
        args["k"].append("contrasts")
        args["v"].append({"~": "dict", "k": ["g"], "v": ["print"]})
    _craft(path, fit, edit)
    _refused(path, match="not a known contrast")


def test_no_formula_engine_runs_during_load(data, tmp_path, monkeypatch):
    """A loaded design is rebuilt at its first use, after its text is checked again: a
    design changed after load() is refused then, and the engine never ran in load()."""
    import formulaic
    import patsy

    calls = []
    for mod, name in ((patsy, "dmatrix"), (patsy, "build_design_matrices"),
                      (formulaic, "model_matrix")):
        real = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, _r=real, _n=name, **k: calls.append(_n)
                            or _r(*a, **k))
    for engine in ("formulaic", "patsy"):
        obj = fm.maxent("y ~ x1 + I(x2) + C(g)", data, engine=engine)
        path = tmp_path / f"{engine}.fmr"
        obj.save(path)
        calls.clear()
        back = fm.MaxentResults.load(path)
        assert calls == [] and back.spec.engine_spec is None
        np.testing.assert_array_equal(back.predict(data), obj.predict(data))
        assert back.spec.engine_spec is not None
        marker = tmp_path / "marker"
        again = fm.MaxentResults.load(path)
        object.__setattr__(again.spec, "rhs", "x1 + " + _spaced(marker))
        with pytest.raises(FormulaError, match="cannot be rebuilt.*attribute '.system'"):
            again.predict(data)
        assert not marker.exists()


# ---------------------------------------------------------------------------
# arrays: dtypes, shapes, codes
# ---------------------------------------------------------------------------
def _params_array(header) -> int:
    """The number of the first float array of the file (the coefficients' kind of array)."""
    return _find(header["state"], lambda n: n.get("~") == "ndarray")[0][1]["a"]


def _object_dtype(header, blobs):
    blobs[_params_array(header)] = _npy("|O", (2,), b"\x00" * 16)


def _structured_object_dtype(header, blobs):
    blobs[_params_array(header)] = _npy([("a", "|O")], (2,), b"\x00" * 16)


def _zero_itemsize(header, blobs):
    blobs[_params_array(header)] = _npy("|V0", (3, 8_000_000_000), b"")


def _zero_itemsize_text(header, blobs):
    blobs[_params_array(header)] = _npy("<U0", (3, 8_000_000_000), b"")


def _huge_shape(header, blobs):
    blobs[_params_array(header)] = _npy("<f8", (10 ** 12,), b"\x00" * 8)


def _negative_shape(header, blobs):
    blobs[_params_array(header)] = _npy("<f8", (-1, 2), b"\x00" * 8)


def _huge_objarray(header, blobs):
    settings, = _obj(header, "fmstats.results.Settings")
    _set_entry(settings["state"], "penalty", {"~": "objarray", "shape": [10 ** 12], "v": [1.0]})


def _deep_json(header, blobs):
    header["state"] = json.loads("[" * 150 + "]" * 150)


ARRAY_ATTACKS = {
    "object dtype": (_object_dtype, "holds Python objects"),
    "structured object dtype": (_structured_object_dtype, "holds Python objects"),
    "zero itemsize": (_zero_itemsize, ["zero bytes", "not a plain number"]),
    "zero itemsize text": (_zero_itemsize_text, "zero bytes"),
    "huge shape": (_huge_shape, "declares 1000000000000 items"),
    "negative shape": (_negative_shape, "non-negative dimensions"),
    "huge object array": (_huge_objarray, "as many items as its shape"),
}


@pytest.mark.parametrize("attack", list(ARRAY_ATTACKS))
def test_arrays_are_refused_by_their_npy_header_alone(attack, fit, tmp_path):
    edit, match = ARRAY_ATTACKS[attack]
    path = tmp_path / "crafted.fmr"
    _craft(path, fit, edit)
    fm.MaxentResults.load(_valid(fit, tmp_path))       # imports and caches warmed up
    tracemalloc.start()
    try:
        msg = _refused(path, match=match)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "state." in msg                 # names the field
    assert peak < 4 * 2 ** 20, peak        # far below the gigabytes declared


def _valid(obj, tmp_path):
    path = tmp_path / "valid.fmr"
    obj.save(path)
    return path


def test_a_deeply_nested_header_is_refused_before_parsing(fit, tmp_path):
    path = tmp_path / "crafted.fmr"
    obj_path = _valid(fit, tmp_path)
    header, blobs = _split(obj_path.read_bytes())
    line = json.dumps(dict(header, state=None)).encode().replace(
        b'"state": null', b'"state": ' + b"[" * 100_000 + b"]" * 100_000)
    path.write_bytes(_join(header, blobs, header_line=line))
    _refused(path, match="nests 100001 levels deep")
    # brackets inside texts do not count
    line = json.dumps(dict(header, fmstats_version="[" * 5000)).encode()
    path.write_bytes(_join(header, blobs, header_line=line))
    assert fm.MaxentResults.load(path).params.equals(fit.params)


def test_a_header_repeating_a_key_is_refused(fit, tmp_path):
    path = tmp_path / "crafted.fmr"
    header, blobs = _split(_valid(fit, tmp_path).read_bytes())
    line = json.dumps(header).encode()
    line = line.replace(b'"class": ', b'"class": "fmstats.WsvmResults", "class": ', 1)
    path.write_bytes(_join(header, blobs, header_line=line))
    _refused(path, match="repeats a key")


@pytest.fixture(scope="module")
def validated(data):
    fit = fm.maxent("y ~ x1 + x2", data)
    return fm.validate(fit, B=3, data=data, random_state=0)


def test_multiindex_codes_out_of_bounds_are_refused(validated, tmp_path):
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        (_, multi), = _find(header["state"], lambda n: n.get("kind") == "multi")
        i = multi["codes"][-1]["a"]
        n = int(np.load(__import__("io").BytesIO(blobs[i])).shape[0])
        blobs[i] = _npy("<i8", (n,), np.full(n, 10 ** 6, dtype="<i8").tobytes())
    _craft(path, validated, edit)
    msg = _refused(path, fm.ValidateResults, match="holds codes outside")
    assert "codes[" in msg


def test_categorical_codes_out_of_bounds_are_refused(tmp_path, data):
    obj = fm.maxent("y ~ x1", data)
    clone = __import__("copy").copy(obj)
    clone.__dict__["note"] = pd.Categorical(["a", "b", "a"])
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        (_, cat), = _find(header["state"], lambda n: n.get("~") == "categorical")
        blobs[cat["codes"]["a"]] = _npy("|i1", (3,), bytes([0, 7, 255]))
    _craft(path, clone, edit)
    _refused(path, match="holds codes outside [-1, 2)")


def test_sparse_indices_out_of_bounds_are_refused(tmp_path):
    import scipy.sparse as sp

    spe = SPE(sp.csr_array(np.array([[0.3, 0.8], [0.0, 0.6]])))
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        (_, node), = _find(header["state"], lambda n: n.get("~") == "sparse")
        blobs[node["indices"]["a"]] = _npy("<i4", (3,), np.array([0, 7, 1], "<i4").tobytes())
    _craft(path, spe, edit)
    _refused(path, SPE, match="inconsistent indices")


def test_shapes_that_do_not_agree_are_refused_before_allocation(fit, tmp_path):
    """A frame declaring 10**18 rows around a 1 x 1 block: refused by the lengths, and no
    RangeIndex of that length is materialised."""
    path = tmp_path / "crafted.fmr"
    obj = __import__("copy").copy(fit)
    obj.__dict__["note"] = pd.DataFrame({"a": [1.0]})

    def edit(header, blobs):
        (_, frame), = _find(header["state"], lambda n: n.get("~") == "frame"
                             and "block" in n and n["index"].get("stop") == 1)
        frame["index"]["stop"] = 10 ** 18
    _craft(path, obj, edit)
    tracemalloc.start()
    try:
        _refused(path, match="has a block of shape (1, 1)")
        assert tracemalloc.get_traced_memory()[1] < 4 * 2 ** 20
    finally:
        tracemalloc.stop()


# ---------------------------------------------------------------------------
# names: the registry
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "os.system", "builtins.eval", "subprocess.Popen", "fmstats.formula._frame._build",
    "fmstats.maxent_models._maxent.MaxentResults",        # private paths are not names
    "fmstats.__main__.main", "pickle.loads", "numpy.load",
])
def test_classes_and_functions_beside_the_registry_are_refused(name, fit, tmp_path):
    path = tmp_path / "crafted.fmr"

    def edit_cls(header, blobs):
        settings, = _obj(header, "fmstats.results.Settings")
        settings["cls"] = name
    _craft(path, fit, edit_cls)
    _refused(path, match="not on the registry")

    def edit_fn(header, blobs):
        (_, fn), = _find(header["state"], lambda n: n.get("~") == "fn")
        fn["name"] = name
    _craft(path, fit, edit_fn)
    _refused(path, match="not a model function")


def test_a_header_naming_another_class_is_refused_before_reading(fit, tmp_path):
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        header["class"] = "posix.system"
    _craft(path, fit, edit)
    _refused(path, match="not an fmstats results type")


@pytest.mark.parametrize("node, match", [
    ({"~": "eval", "v": "1"}, "unknown type 'eval'"),
    ({"~": "tuple", "v": [], "extra": 1}, "exactly the keys"),
    ({"k": ["a"], "v": [1]}, "unknown type 'None'"),
    ({"~": "ndarray", "a": 999}, "does not have"),
    ({"~": "obj", "cls": "fmstats.FMeasure", "state": {"~": "dict", "k": ["__class__"],
                                                       "v": [1]}}, "not a dict of field"),
])
def test_nodes_beside_the_format_are_refused(node, match, fit, tmp_path):
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        settings, = _obj(header, "fmstats.results.Settings")
        _set_entry(settings["state"], "penalty", node)
    _craft(path, fit, edit)
    _refused(path, match=match)


# ---------------------------------------------------------------------------
# no crash: the risky files read in another process
# ---------------------------------------------------------------------------
def test_risky_files_are_refused_without_crashing_the_interpreter(fit, validated, plt_fit,
                                                                 tmp_path):
    paths = []
    for name, (edit, _) in ARRAY_ATTACKS.items():
        path = tmp_path / f"{name.replace(' ', '_')}.fmr"
        _craft(path, fit, edit)
        paths.append(("MaxentResults", path))
    path = tmp_path / "deep.fmr"
    _craft(path, fit, _deep_json)
    paths.append(("MaxentResults", path))
    path = tmp_path / "multi.fmr"

    def codes(header, blobs):
        (_, multi), = _find(header["state"], lambda n: n.get("kind") == "multi")
        i = multi["codes"][0]["a"]
        n = int(np.load(__import__("io").BytesIO(blobs[i])).shape[0])
        blobs[i] = _npy("<i8", (n,), np.full(n, -(10 ** 9), dtype="<i8").tobytes())
    _craft(path, validated, codes)
    paths.append(("ValidateResults", path))
    fit_plt, _ = plt_fit
    for i, edit in enumerate(PLT_ATTACKS.values()):
        path = tmp_path / f"plt{i}.fmr"
        _craft(path, fit_plt, edit)
        paths.append(("extreme.ProbabilisticLabelTreeResults", path))
    script = textwrap.dedent("""
        import sys
        import fmstats as fm
        from fmstats.exceptions import ResultsFileError
        for cls, path in zip(sys.argv[1::2], sys.argv[2::2]):
            try:
                obj = fm
                for part in cls.split("."):
                    obj = getattr(obj, part)
                obj.load(path)
                print("LOADED", path)
            except ResultsFileError:
                print("refused", path)
    """)
    args = [a for cls, p in paths for a in (cls, str(p))]
    run = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert len(lines) == len(paths) and all(line.startswith("refused") for line in lines), \
        run.stdout


def test_byte_flips_of_a_crafted_file_do_not_help(fit, tmp_path):
    """Flipping a byte of a crafted file (checksum not recomputed): still refused."""
    path = tmp_path / "crafted.fmr"
    _craft(path, fit, _object_dtype)
    blob = bytearray(path.read_bytes())
    blob[-3] ^= 0xFF
    path.write_bytes(bytes(blob))
    _refused(path, match="checksum")


def test_warnings_are_not_needed_to_refuse(fit, tmp_path):
    """Refusals are errors, not warnings (no warning is emitted while refusing)."""
    path = tmp_path / "crafted.fmr"
    _craft(path, fit, _object_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _refused(path, match="holds Python objects")


# ---------------------------------------------------------------------------
# arrays compiled code indexes unchecked
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def plt_fit():
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    X = sp.csr_array(rng.random((60, 4)))
    Y = sp.csr_array((rng.random((60, 6)) < 0.3).astype(float))
    return fm.extreme.probabilistic_label_tree(X, Y, random_state=0, n_jobs=1), X


def _tree_edit(field, values):
    def edit(header, blobs):
        tree, = _obj(header, "fmstats.extreme.LabelTree")
        node = _entry(tree["state"], field)
        old = np.load(__import__("io").BytesIO(blobs[node["a"]]))
        new = np.asarray(values(old), dtype=old.dtype)
        blobs[node["a"]] = _npy(new.dtype.str, new.shape, new.tobytes())
    return edit


PLT_ATTACKS = {
    "child_start beyond the nodes": _tree_edit("child_start",
                                               lambda a: np.where(a > 0, a + 10 ** 6, a)),
    "n_children beyond the nodes": _tree_edit("n_children", lambda a: a * 1000),
    "label beyond the labels": _tree_edit("label", lambda a: np.where(a >= 0, a + 50, a)),
    "parent after its child": _tree_edit("parent",
                                         lambda a: np.r_[-1, np.full(a.size - 1, a.size - 1)]),
}


@pytest.mark.parametrize("attack", list(PLT_ATTACKS))
def test_a_label_tree_indexing_beyond_its_arrays_is_refused(attack, plt_fit, tmp_path):
    """The compiled descent (numba, no bounds checks) reads the weights at the tree's
    node numbers: a tree pointing outside them would read arbitrary memory."""
    fit, X = plt_fit
    path = tmp_path / "crafted.fmr"
    _craft(path, fit, PLT_ATTACKS[attack])
    _refused(path, fm.extreme.ProbabilisticLabelTreeResults,
             match="not a consistent fmstats.extreme.ProbabilisticLabelTreeResults")


def test_a_randomized_rule_with_a_huge_k_is_refused(tmp_path):
    rule = fm.extreme.RandomizedTopK(k=2, a=np.ones((1, 3)), b=np.zeros((1, 3)),
                                     p=np.ones(1), utilities=np.zeros(1), metric="f")
    path = tmp_path / "crafted.fmr"

    def edit(header, blobs):
        _set_entry(header["state"]["state"], "k", 10 ** 12)
    _craft(path, rule, edit)
    _refused(path, fm.extreme.RandomizedTopK, match="its k is not a number of labels")
