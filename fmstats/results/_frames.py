"""The nodes of a results file that hold numpy, pandas and scipy data: how each is written,
checked and rebuilt.

Used by ``_tree.py``, which walks the tree and calls these handlers.  Every
node is a JSON object whose ``"~"`` names its type; each type has its own handler, which
checks the node's fields (exactly its keys, each of its JSON type) while the whole tree is
audited, and rebuilds the object afterwards through the library's public constructors,
after checking what the constructor would trust:

==============  ======================================================================
``ndarray``     an array of the file (``"a"``: its number), dtype and shape from its
                ``.npy`` header only (``_npy.py``)
``npscalar``    a numpy scalar: a 0-d array of the file
``objarray``    an array of Python objects: its shape and its items as nodes (never bytes)
``categorical`` ``pd.Categorical.from_codes``: integer codes checked in
                [-1, number of categories) first
``masked``      pandas' nullable integers, floats and booleans: values and a boolean mask
                of the same shape
``strings``     pandas' text arrays: the texts (JSON, null for missing), storage and
                missing-value kind
``index``       pandas indexes: ``range`` (start, stop, step), ``base`` (its values),
                ``multi`` (levels and integer codes checked against them, then
                ``MultiIndex(..., verify_integrity=True)``), ``categorical``
``series``      values, index and name; their lengths must agree
``frame``       columns, index and one array per column (or one 2-d ``block``)
``sparse``      scipy's CSR/CSC arrays and matrices: ``check_format(full_check=True)``
``seedseq``     ``numpy.random.SeedSequence(entropy, spawn_key=..., pool_size=...)``
==============  ======================================================================
"""
from __future__ import annotations

import numpy as np

__all__ = ["encode_data", "HANDLERS", "MAX_SEED_POOL"]

#: Largest SeedSequence pool a file may ask for (numpy's default is 4 words).
MAX_SEED_POOL = 1 << 12

def _is_int(v) -> bool:
    return type(v) is int


# ------------------------------------------------------------------ writing
def encode_data(enc, obj, path):
    """The node of a numpy, pandas or scipy object, or None when ``obj`` is none of those."""
    import pandas as pd

    t = type(obj)
    if t is np.ndarray:
        if obj.dtype.hasobject:
            items = obj.ravel(order="C")
            return {"~": "objarray", "shape": list(obj.shape),
                    "v": [enc.encode(v, f"{path}[{i}]") for i, v in enumerate(items)]}
        return {"~": "ndarray", "a": enc.array(obj, path)}
    if isinstance(obj, np.generic):
        return {"~": "npscalar", "a": enc.array(np.asarray(obj), path)}
    if t is pd.DataFrame:
        dtypes = set(obj.dtypes) if obj.shape[1] else set()
        base = {"~": "frame", "columns": enc.encode(obj.columns, f"{path}.columns"),
                "index": enc.encode(obj.index, f"{path}.index")}
        if len(dtypes) == 1 and isinstance(next(iter(dtypes)), np.dtype) \
                and not next(iter(dtypes)).hasobject:
            return {**base, "block": enc.encode(obj.to_numpy(), f"{path}.values")}
        return {**base, "data": [enc.encode(_values(obj.iloc[:, j]), f"{path}[{obj.columns[j]!r}]")
                                 for j in range(obj.shape[1])]}
    if t is pd.Series:
        return {"~": "series", "values": enc.encode(_values(obj), f"{path}.values"),
                "index": enc.encode(obj.index, f"{path}.index"),
                "name": enc.encode(obj.name, f"{path}.name")}
    if isinstance(obj, pd.Index):
        return _encode_index(enc, obj, path)
    if t is pd.Categorical:
        return {"~": "categorical", "codes": {"~": "ndarray", "a": enc.array(obj.codes, path)},
                "categories": enc.encode(obj.categories, f"{path}.categories"),
                "ordered": bool(obj.ordered)}
    if t in _masked_types():
        return {"~": "masked", "values": {"~": "ndarray", "a": enc.array(obj._data, path)},
                "mask": {"~": "ndarray", "a": enc.array(obj._mask, path)}}
    if isinstance(obj, pd.arrays.StringArray) or _arrow_strings(obj):
        dtype = obj.dtype
        na = "nan" if dtype.na_value is not pd.NA else "NA"
        return {"~": "strings", "storage": str(dtype.storage), "na": na,
                "v": [None if v is None or v is pd.NA or (isinstance(v, float) and v != v)
                      else str(v) for v in obj.to_numpy(dtype=object, na_value=None)]}
    if t.__module__.startswith("scipy.sparse") and t.__name__ in _SPARSE:
        fmt, kind = _SPARSE[t.__name__]
        return {"~": "sparse", "format": fmt, "kind": kind, "shape": [int(n) for n in obj.shape],
                "data": enc.encode(obj.data, f"{path}.data"),
                "indices": enc.encode(obj.indices, f"{path}.indices"),
                "indptr": enc.encode(obj.indptr, f"{path}.indptr")}
    if t is np.random.SeedSequence:
        entropy = obj.entropy
        return {"~": "seedseq", "entropy": entropy if entropy is None or _is_int(entropy)
                else [int(e) for e in entropy],
                "spawn_key": [int(k) for k in obj.spawn_key], "pool_size": int(obj.pool_size),
                "n_children_spawned": int(obj.n_children_spawned)}
    return None


_SPARSE = {"csr_array": ("csr", "array"), "csr_matrix": ("csr", "matrix"),
           "csc_array": ("csc", "array"), "csc_matrix": ("csc", "matrix")}


def _masked_types():
    import pandas as pd

    return (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)


def _arrow_strings(obj) -> bool:
    import pandas as pd

    arrow = getattr(pd.arrays, "ArrowStringArray", None)
    return arrow is not None and type(obj) is arrow


def _values(s):
    """A Series' values as the file holds them: the numpy array or the pandas array."""
    import pandas as pd

    values = s.array
    return values.to_numpy() if type(values) is pd.arrays.NumpyExtensionArray else values


def _encode_index(enc, idx, path):
    import pandas as pd

    name = enc.encode(idx.name, f"{path}.name")
    t = type(idx)
    if t is pd.RangeIndex:
        return {"~": "index", "kind": "range", "start": int(idx.start), "stop": int(idx.stop),
                "step": int(idx.step), "name": name}
    if t is pd.MultiIndex:
        return {"~": "index", "kind": "multi",
                "levels": [enc.encode(lv, f"{path}.levels[{i}]")
                           for i, lv in enumerate(idx.levels)],
                "codes": [{"~": "ndarray", "a": enc.array(np.asarray(c), path)} for c in idx.codes],
                "names": [enc.encode(n, f"{path}.names") for n in idx.names]}
    if t is pd.CategoricalIndex:
        return {"~": "index", "kind": "categorical", "name": name,
                "values": enc.encode(idx.array, f"{path}.values")}
    tz = getattr(idx, "tz", None)
    if t in (pd.Index, pd.DatetimeIndex, pd.TimedeltaIndex) and tz is None:
        values = idx.array
        pandas_array = isinstance(values, (pd.arrays.StringArray, *_masked_types())) \
            or _arrow_strings(values)
        return {"~": "index", "kind": "base", "name": name,
                "values": enc.encode(values if pandas_array else values.to_numpy(),
                                     f"{path}.values")}
    raise enc.unencodable(path, f"a {t.__name__}{' with a time zone' if tz is not None else ''}")


# ------------------------------------------------------------------ reading
class Handler:
    """The fields of one node type (the sets of keys it may have) and its two steps:
    ``audit(reader, node, path)`` checks the node and audits its children;
    ``build(reader, node, path)`` rebuilds the object."""

    def __init__(self, keys, audit, build):
        self.keys = [frozenset(k) | {"~"} for k in keys] if keys is not None else None
        self.audit, self.build = audit, build


def _need(reader, ok, path, what):
    if not ok:
        reader.refuse(path, what)


def _audit_array_ref(reader, node, path, kinds=None, ndim=None):
    """A child that must be an ``ndarray`` node (codes, masks, indices): its header."""
    reader.expect(node, path, "ndarray")
    header = reader.array_header(node["a"], path)
    if kinds is not None:
        _need(reader, header.dtype.kind in kinds, path,
              f"has dtype {header.dtype}, not {'integers' if kinds == 'iu' else kinds}")
    if ndim is not None:
        _need(reader, len(header.shape) == ndim, path, f"is not {ndim}-dimensional")
    return header


def _audit_ndarray(reader, node, path):
    reader.array_header(node["a"], path)


def _build_ndarray(reader, node, path):
    return reader.array_value(node["a"], path)


def _audit_npscalar(reader, node, path):
    header = reader.array_header(node["a"], path)
    _need(reader, header.shape == (), path, "is not a single number (a 0-d array)")


def _build_npscalar(reader, node, path):
    return reader.array_value(node["a"], path)[()]


def _audit_objarray(reader, node, path):
    shape = node["shape"]
    _need(reader, isinstance(shape, list) and len(shape) <= 32
          and all(_is_int(d) and d >= 0 for d in shape), path, "has no valid shape")
    _need(reader, isinstance(node["v"], list)
          and len(node["v"]) == int(np.prod(shape, dtype=object)),
          path, "does not hold as many items as its shape")
    for i, v in enumerate(node["v"]):
        reader.audit(v, f"{path}[{i}]")


def _build_objarray(reader, node, path):
    out = np.empty(len(node["v"]), dtype=object)
    for i, v in enumerate(node["v"]):
        out[i] = reader.build(v, f"{path}[{i}]")
    return out.reshape(node["shape"])


def _audit_categorical(reader, node, path):
    _audit_array_ref(reader, node["codes"], f"{path}.codes", "iu", 1)
    reader.expect(node["categories"], f"{path}.categories", "index")
    _need(reader, isinstance(node["ordered"], bool), path, "has no ordered flag")


def _codes(reader, codes, n, path):
    if codes.size and (codes.min() < -1 or codes.max() >= n):
        reader.refuse(path, f"holds codes outside [-1, {n}) (there are {n} categories)")
    return codes


def _build_categorical(reader, node, path):
    import pandas as pd

    categories = reader.build(node["categories"], f"{path}.categories")
    codes = _codes(reader, reader.build(node["codes"], f"{path}.codes"), len(categories),
                   f"{path}.codes")
    dtype = pd.CategoricalDtype(categories, ordered=node["ordered"])
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=True)


def _audit_masked(reader, node, path):
    values = _audit_array_ref(reader, node["values"], f"{path}.values", "iufb", 1)
    mask = _audit_array_ref(reader, node["mask"], f"{path}.mask", "b", 1)
    _need(reader, values.shape == mask.shape, path, "has a mask of another length")


def _build_masked(reader, node, path):
    import pandas as pd

    values = reader.build(node["values"], f"{path}.values")
    mask = reader.build(node["mask"], f"{path}.mask")
    cls = {"b": pd.arrays.BooleanArray, "f": pd.arrays.FloatingArray}.get(
        values.dtype.kind, pd.arrays.IntegerArray)
    return cls(values, mask)


def _audit_strings(reader, node, path):
    _need(reader, node["storage"] in ("python", "pyarrow") and node["na"] in ("nan", "NA"),
          path, "has an unknown text storage")
    _need(reader, isinstance(node["v"], list) and all(v is None or type(v) is str
                                                       for v in node["v"]),
          path, "holds something other than texts")


def _build_strings(reader, node, path):
    import pandas as pd

    storage = node["storage"]
    if storage == "pyarrow":
        try:
            import pyarrow  # noqa: F401
        except ImportError:          # written with pyarrow, read without: the same texts
            storage = "python"
    try:
        dtype = pd.StringDtype(storage, na_value=np.nan if node["na"] == "nan" else pd.NA)
    except TypeError:                # pandas before 2.3
        dtype = pd.StringDtype("pyarrow_numpy" if node["na"] == "nan" else storage)
    return pd.array(node["v"], dtype=dtype)


_INDEX_KEYS = {"range": {"start", "stop", "step", "name"}, "base": {"values", "name"},
               "multi": {"levels", "codes", "names"}, "categorical": {"values", "name"}}


def _audit_index(reader, node, path):
    kind = node.get("kind")
    _need(reader, kind in _INDEX_KEYS and set(node) == {"~", "kind"} | _INDEX_KEYS[kind], path,
          "is not an index of a known kind with its fields")
    if kind == "range":
        _need(reader, all(_is_int(node[k]) and abs(node[k]) < 2 ** 63
                          for k in ("start", "stop", "step")) and node["step"] != 0,
              path, "is not a range of integers")
    elif kind == "multi":
        levels, codes, names = node["levels"], node["codes"], node["names"]
        _need(reader, isinstance(levels, list) and isinstance(codes, list)
              and isinstance(names, list) and len(levels) == len(codes) == len(names)
              and levels, path, "does not have as many levels, codes and names")
        lengths = set()
        for i, (lv, c) in enumerate(zip(levels, codes)):
            reader.expect(lv, f"{path}.levels[{i}]", "index")
            lengths.add(_audit_array_ref(reader, c, f"{path}.codes[{i}]", "iu", 1).shape)
        _need(reader, len(lengths) == 1, path, "has codes of different lengths")
        for i, n in enumerate(names):
            reader.audit(n, f"{path}.names[{i}]")
    else:
        reader.audit(node["values"], f"{path}.values")
    if kind != "multi":
        reader.audit(node["name"], f"{path}.name")


def _build_index(reader, node, path):
    import pandas as pd

    kind = node["kind"]
    if kind == "multi":
        levels = [reader.build(lv, f"{path}.levels[{i}]") for i, lv in enumerate(node["levels"])]
        codes = [_codes(reader, reader.build(c, f"{path}.codes[{i}]"), len(lv),
                        f"{path}.codes[{i}]")
                 for i, (c, lv) in enumerate(zip(node["codes"], levels))]
        names = [reader.build(n, f"{path}.names[{i}]") for i, n in enumerate(node["names"])]
        return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=True)
    name = reader.build(node["name"], f"{path}.name")
    if kind == "range":
        return pd.RangeIndex(node["start"], node["stop"], node["step"], name=name)
    values = reader.build(node["values"], f"{path}.values")
    if kind == "categorical":
        _need(reader, isinstance(values, pd.Categorical), path, "does not hold a categorical")
        return pd.CategoricalIndex(values, name=name)
    _need(reader, isinstance(values, (np.ndarray, pd.api.extensions.ExtensionArray))
          and np.ndim(values) == 1, path, "does not hold a 1-d array")
    return pd.Index(values, name=name, dtype=object if values.dtype == object else None,
                    copy=False)


def _array_like(reader, values, path):
    import pandas as pd

    _need(reader, isinstance(values, (np.ndarray, pd.api.extensions.ExtensionArray))
          and np.ndim(values) == 1, path, "is not a 1-d array")
    return values


def _audit_series(reader, node, path):
    reader.audit(node["values"], f"{path}.values")
    reader.expect(node["index"], f"{path}.index", "index")
    reader.audit(node["name"], f"{path}.name")


def _build_series(reader, node, path):
    import pandas as pd

    index = reader.build(node["index"], f"{path}.index")
    _need(reader, isinstance(index, pd.Index), f"{path}.index", "is not an index")
    values = _array_like(reader, reader.build(node["values"], f"{path}.values"), f"{path}.values")
    _need(reader, len(values) == len(index), path, "has values and an index of other lengths")
    return pd.Series(values, index=index, name=reader.build(node["name"], f"{path}.name"),
                     dtype=object if values.dtype == object else None, copy=False)


def _audit_frame(reader, node, path):
    reader.expect(node["columns"], f"{path}.columns", "index")
    reader.expect(node["index"], f"{path}.index", "index")
    if "block" in node:
        _audit_array_ref(reader, node["block"], f"{path}.values", None, 2)
    else:
        _need(reader, isinstance(node["data"], list), path, "has no list of columns")
        for j, col in enumerate(node["data"]):
            reader.audit(col, f"{path}.data[{j}]")


def _build_frame(reader, node, path):
    import pandas as pd

    columns = reader.build(node["columns"], f"{path}.columns")
    index = reader.build(node["index"], f"{path}.index")
    if "block" in node:
        block = reader.build(node["block"], f"{path}.values")
        _need(reader, block.shape == (len(index), len(columns)), path,
              f"has a block of shape {block.shape}, not {len(index)} x {len(columns)}")
        return pd.DataFrame(block, index=index, columns=columns, copy=False)
    _need(reader, len(node["data"]) == len(columns), path,
          "does not have one array per column")
    cols = {}
    for j, col in enumerate(node["data"]):
        values = _array_like(reader, reader.build(col, f"{path}.data[{j}]"), f"{path}.data[{j}]")
        _need(reader, len(values) == len(index), f"{path}.data[{j}]",
              f"has {len(values)} rows, the index {len(index)}")
        cols[j] = pd.Series(values, index=index, copy=False,
                            dtype=object if values.dtype == object else None)
    frame = pd.DataFrame(cols, index=index, copy=False)
    frame.columns = columns
    return frame


def _audit_sparse(reader, node, path):
    _need(reader, node["format"] in ("csr", "csc") and node["kind"] in ("array", "matrix"),
          path, "is not a CSR or CSC array or matrix")
    shape = node["shape"]
    _need(reader, isinstance(shape, list) and len(shape) == 2
          and all(_is_int(d) and 0 <= d < 2 ** 62 for d in shape), path, "has no valid shape")
    data = _audit_array_ref(reader, node["data"], f"{path}.data", "biufc", 1)
    indices = _audit_array_ref(reader, node["indices"], f"{path}.indices", "iu", 1)
    indptr = _audit_array_ref(reader, node["indptr"], f"{path}.indptr", "iu", 1)
    major = shape[0] if node["format"] == "csr" else shape[1]
    _need(reader, data.shape == indices.shape and indptr.shape == (major + 1,), path,
          "has data, indices and pointers of inconsistent lengths")


def _build_sparse(reader, node, path):
    import scipy.sparse as sp

    parts = [reader.build(node[k], f"{path}.{k}") for k in ("data", "indices", "indptr")]
    cls = getattr(sp, f"{node['format']}_{node['kind']}")
    try:
        out = cls(tuple(parts), shape=tuple(node["shape"]))
        out.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        reader.refuse(path, f"has inconsistent indices ({exc})")
    return out


def _audit_seedseq(reader, node, path):
    entropy = node["entropy"]
    _need(reader, entropy is None or (_is_int(entropy) and entropy >= 0)
          or (isinstance(entropy, list) and len(entropy) <= MAX_SEED_POOL
              and all(_is_int(e) and e >= 0 for e in entropy)), path, "has no valid entropy")
    _need(reader, isinstance(node["spawn_key"], list) and len(node["spawn_key"]) <= 1024
          and all(_is_int(k) and k >= 0 for k in node["spawn_key"]), path,
          "has no valid spawn key")
    _need(reader, _is_int(node["pool_size"]) and 4 <= node["pool_size"] <= MAX_SEED_POOL
          and _is_int(node["n_children_spawned"]) and node["n_children_spawned"] >= 0,
          path, "has no valid pool size")


def _build_seedseq(reader, node, path):
    return np.random.SeedSequence(node["entropy"], spawn_key=tuple(node["spawn_key"]),
                                  pool_size=node["pool_size"],
                                  n_children_spawned=node["n_children_spawned"])


#: node type -> its handler.
HANDLERS = {
    "ndarray": Handler([{"a"}], _audit_ndarray, _build_ndarray),
    "npscalar": Handler([{"a"}], _audit_npscalar, _build_npscalar),
    "objarray": Handler([{"shape", "v"}], _audit_objarray, _build_objarray),
    "categorical": Handler([{"codes", "categories", "ordered"}], _audit_categorical,
                           _build_categorical),
    "masked": Handler([{"values", "mask"}], _audit_masked, _build_masked),
    "strings": Handler([{"storage", "na", "v"}], _audit_strings, _build_strings),
    "index": Handler(None, _audit_index, _build_index),
    "series": Handler([{"values", "index", "name"}], _audit_series, _build_series),
    "frame": Handler([{"columns", "index", "data"}, {"columns", "index", "block"}],
                     _audit_frame, _build_frame),
    "sparse": Handler([{"format", "kind", "shape", "data", "indices", "indptr"}], _audit_sparse,
                      _build_sparse),
    "seedseq": Handler([{"entropy", "spawn_key", "pool_size", "n_children_spawned"}],
                       _audit_seedseq, _build_seedseq),
}
