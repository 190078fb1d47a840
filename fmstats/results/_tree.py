"""A results object as a tree of data: written as JSON and ``.npy`` arrays, audited whole,
then rebuilt.  The content of a results file of format 3 (``_persist.py``).

Used by ``_persist.py``.  This is skops.io's approach: every node of the tree
has a type and every type its own writer, checker and loader; nothing in the file is code.

**Nodes.**  JSON's ``null``, booleans, numbers, texts and lists are themselves.  Everything
else is a JSON object whose ``"~"`` names its type:

* ``tuple``, ``set``, ``frozenset`` (``"v"``: the items), ``dict`` (``"k"``, ``"v"``: keys and
  values, so keys may be numbers or tuples), ``complex`` (``"v"``: real and imaginary part),
  ``slice`` (``"v"``: start, stop, step);
* ``obj`` -- an fmstats object: ``"cls"``, the public name of its class
  (``_registry.py``), and ``"state"``, its state (a dict, for most: the
  instance's fields; a named tuple's fields, rebuilt by its constructor); ``fn`` --
  ``"name"``, the public name of a model function;
* numpy, pandas and scipy data (``_frames.py``): arrays, numpy scalars,
  categoricals, nullable and text arrays, indexes, series, frames, sparse matrices, seed
  sequences.

**Reading** is two passes over the parsed JSON.  The *audit* visits every node before anything
is built: each node's type must be known and its keys exactly the type's, classes and
functions must be on the registry, array numbers must refer to arrays of the file whose
``.npy`` headers passed their checks (dtype, shape against the bytes present), the number of
nodes is bounded (:data:`MAX_NODES`; the depth was bounded before JSON parsed it), and every
text a results object evaluates later -- a dict's (a state's) ``formula``, ``subset``,
``offset`` and ``contrasts`` entries -- passes :func:`fmstats.formula.text_problem`, with the
formula engine named beside it when there is one (a class with a ``from_file_state`` checks
the text of its own state: a design's right- and left-hand sides, offsets and engine terms,
by ``DesignSpec.from_file_state``, before the design exists).  The *build* then makes the
objects bottom-up: containers, data through the libraries' public constructors after the
checks those constructors would skip, fmstats objects by ``cls.__new__(cls)`` and their
state (``__setstate__``, or the ``__dict__`` filled with text keys) -- then the class's
``file_problem`` -- or by the class's ``from_file_state``.  No function
named by the file is called and no formula engine runs.  Every refusal is a :class:`Refused`
naming the field (``state.spec.rhs``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _registry
from ._frames import HANDLERS, encode_data
from ._npy import NpyHeader, npy_array, npy_parts, read_npy_header

__all__ = ["Encoder", "Reader", "Refused", "Unencodable", "CODE_KEYS", "MAX_NODES"]

#: Most nodes a file's tree may have.
MAX_NODES = 20_000_000
#: Entries of a dict (or a state) that hold text evaluated later, and what the text is
#: (:func:`fmstats.formula.text_problem`).
CODE_KEYS = {"formula": "formula", "subset": "subset", "offset": "offset",
             "contrasts": "contrasts"}
_KEYS = {"tuple": {"v"}, "set": {"v"}, "frozenset": {"v"}, "dict": {"k", "v"},
         "complex": {"v"}, "slice": {"v"}, "obj": {"cls", "state"}, "fn": {"name"}}
_NOT_TEXT = object()     # a value that is not text (data: a mask, an array)
#: The only ``__names__`` a state may set (a wrapper's name): never methods Python or copy look
#: up on an instance (``__getstate__``, ``__wrapped__``, ...).
_DUNDER_FIELDS = frozenset({"__name__", "__qualname__", "__doc__"})


class Refused(Exception):
    """A file's content refused by the audit or the build: ``field`` and ``reason``."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


class Unencodable(Exception):
    """An object a data-only file cannot hold (``field`` and what it is)."""

    def __init__(self, field: str, what: str):
        super().__init__(f"{field} is {what}")
        self.field, self.what = field, what


def _state_of(obj) -> Any:
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):    # a named tuple: its fields
        return obj._asdict()
    getstate = getattr(obj, "__getstate__", None)
    return getstate() if getstate is not None else dict(obj.__dict__)


# ------------------------------------------------------------------ writing
class Encoder:
    """Turns an object into a tree of nodes and a list of ``.npy`` blobs (see module notes).

    Raises :class:`Unencodable` for anything not on the registry and not plain data, and
    for text a results object would evaluate that :func:`fmstats.formula.text_problem`
    refuses (``load()`` would refuse it).
    """

    def __init__(self):
        self.blobs: list[tuple] = []      # per array: its .npy header and its data bytes
        self._arrays: dict[int, int] = {}
        self._keep: list = []             # arrays kept alive while their ids are keys
        self._active: set[int] = set()    # containers being written (a cycle is refused)
        self._own_text = False            # inside the state of a class checking its own text

    def unencodable(self, field: str, what: str) -> Unencodable:
        return Unencodable(field, what)

    def array(self, arr: np.ndarray, field: str) -> int:
        """The number of ``arr`` among the file's arrays (an array held twice is written once)."""
        key = id(arr)
        if key not in self._arrays:
            try:
                self.blobs.append(npy_parts(arr))
            except ValueError as exc:
                raise Unencodable(field, f"an array the file cannot hold ({exc})") from None
            self._arrays[key] = len(self.blobs) - 1
            self._keep.append(arr)
        return self._arrays[key]

    def encode(self, obj: Any, field: str = "state") -> Any:
        t = type(obj)
        if obj is None or t in (bool, int, str):
            return obj
        if t is float:
            return obj
        if id(obj) in self._active:
            raise Unencodable(field, "a reference back to an object that holds it (a cycle)")
        self._active.add(id(obj))
        try:
            return self._container(obj, t, field)
        finally:
            self._active.discard(id(obj))

    def _container(self, obj, t, field):
        if t is list:
            return [self.encode(v, f"{field}[{i}]") for i, v in enumerate(obj)]
        if t in (tuple, set, frozenset):
            items = obj if t is tuple else sorted(obj, key=repr)
            return {"~": t.__name__, "v": [self.encode(v, f"{field}[{i}]")
                                           for i, v in enumerate(items)]}
        if t is dict:
            keys = list(obj)
            out = {"~": "dict", "k": [self.encode(k, f"{field}.keys") for k in keys],
                   "v": [self.encode(obj[k], _field(field, k)) for k in keys]}
            if not self._own_text:
                self._check_code(obj, field)
            return out
        if t is complex:
            return {"~": "complex", "v": [obj.real, obj.imag]}
        if t is slice:
            return {"~": "slice", "v": [self.encode(p, field) for p in
                                        (obj.start, obj.stop, obj.step)]}
        data = encode_data(self, obj, field)
        if data is not None:
            return data
        name = _registry.name_of(obj)
        if name is not None and isinstance(obj, type):
            raise Unencodable(field, f"the class {name} (a file holds instances, not classes)")
        if name is not None:
            return {"~": "fn", "name": name}
        name = _registry.name_of(t)
        if name is None and _registry.is_function(obj):
            raise Unencodable(field, f"the function {getattr(obj, '__module__', '?')}."
                                     f"{getattr(obj, '__qualname__', repr(obj))}")
        if name is None:
            raise Unencodable(field, f"a {t.__module__}.{t.__qualname__}, which is not on the "
                                     "registry of results files")
        own = getattr(t, "from_file_state", None) is not None
        try:
            state = obj.file_state() if own else _state_of(obj)
            if own:     # the class checks its own text when read: would it accept this?
                t.from_file_state(state)
        except ValueError as exc:
            raise Unencodable(field, f"a {name} that load() refuses ({exc})") from None
        outer, self._own_text = self._own_text, own
        try:
            return {"~": "obj", "cls": name, "state": self.encode(state, field)}
        finally:
            self._own_text = outer

    @staticmethod
    def _check_code(d: dict, field: str) -> None:
        from ..formula import text_problem

        engine = _engine_of(d)
        for key, kind in CODE_KEYS.items():
            if key in d and d[key] is not None:
                why = text_problem(kind, d[key], engine)
                if why is not None:
                    raise Unencodable(_field(field, key), f"text that load() refuses: {why}")


def _engine_of(d: dict) -> str | None:
    """The formula engine of the formulas of a dict (a call's arguments, settings): its
    ``engine`` entry (None there is the default engine); None when it has none (the text
    must then be safe for every engine that can parse it)."""
    from ..formula import DEFAULT_ENGINE

    if "engine" not in d:
        return None
    engine = d["engine"]
    return DEFAULT_ENGINE if engine is None else engine if type(engine) is str else None


def _field(field: str, key) -> str:
    return f"{field}.{key}" if isinstance(key, str) and key.isidentifier() else f"{field}[{key!r}]"


# ------------------------------------------------------------------ reading
class Reader:
    """Audits (:meth:`audit_all`), then builds (:meth:`build`) the tree of a file whose
    arrays are the ``.npy`` blobs ``blobs`` (memoryviews).  See the module notes."""

    def __init__(self, blobs: list):
        self._blobs = blobs
        self._headers: dict[int, NpyHeader] = {}
        self._built_arrays: dict[int, np.ndarray] = {}
        self._nodes = 0
        self._own_text = False     # inside the state of a class that checks its own text

    def refuse(self, field: str, reason: str):
        raise Refused(field, reason)

    # -- arrays
    def array_header(self, index, field: str) -> NpyHeader:
        if type(index) is not int or not 0 <= index < len(self._blobs):
            self.refuse(field, f"refers to array {index!r}, which the file does not have")
        header = self._headers.get(index)
        if header is None:
            try:
                header = read_npy_header(self._blobs[index])
            except ValueError as exc:
                self.refuse(f"{field} (array {index})", str(exc))
            self._headers[index] = header
        return header

    def array_value(self, index: int, field: str) -> np.ndarray:
        if index not in self._built_arrays:
            self._built_arrays[index] = npy_array(self._blobs[index], self._headers[index])
        return self._built_arrays[index]

    # -- the audit
    def count(self, node=None) -> None:
        self._nodes += 1
        if self._nodes > MAX_NODES:
            self.refuse("state", f"it has more than {MAX_NODES} nodes")

    def expect(self, node, field: str, tag: str) -> None:
        """Audit ``node``, which must be of type ``tag``."""
        if not (isinstance(node, dict) and node.get("~") == tag):
            self.refuse(field, f"is not a {tag} node")
        self.audit(node, field)

    def audit_all(self, node) -> None:
        """The audit of the whole tree (raises :class:`Refused` at the first problem)."""
        self.audit(node, "state")

    def audit(self, node, field: str) -> None:
        self.count()
        if node is None or type(node) in (bool, int, float, str):
            return
        if type(node) is list:
            for i, v in enumerate(node):
                self.audit(v, f"{field}[{i}]")
            return
        if type(node) is not dict:      # pragma: no cover - json gives nothing else
            self.refuse(field, f"holds a JSON {type(node).__name__}")
        tag = node.get("~")
        if tag in _KEYS:
            if set(node) != _KEYS[tag] | {"~"}:
                self.refuse(field, f"a {tag} node must have exactly the keys "
                                   f"{sorted(_KEYS[tag])}")
            getattr(self, f"_audit_{tag}")(node, field)
            return
        handler = HANDLERS.get(tag) if isinstance(tag, str) else None
        if handler is None:
            self.refuse(field, f"holds a node of unknown type {str(tag)[:40]!r}")
        if handler.keys is not None and frozenset(node) not in handler.keys:
            self.refuse(field, f"a {tag} node must have exactly the keys "
                               f"{sorted(next(iter(handler.keys)) - {'~'})}")
        handler.audit(self, node, field)

    def _items(self, node, field, key="v") -> list:
        items = node[key]
        if type(items) is not list:
            self.refuse(field, f"the {key!r} of a {node['~']} node is not a list")
        return items

    def _audit_tuple(self, node, field):
        for i, v in enumerate(self._items(node, field)):
            self.audit(v, f"{field}[{i}]")

    _audit_set = _audit_frozenset = _audit_tuple

    def _audit_dict(self, node, field):
        keys, values = self._items(node, field, "k"), self._items(node, field, "v")
        if len(keys) != len(values):
            self.refuse(field, "a dict node has not as many keys as values")
        for k in keys:
            self.audit(k, f"{field}.keys")
        for k, v in zip(keys, values):
            self.audit(v, _field(field, k))
        self._audit_code(keys, values, field)

    def _audit_code(self, keys, values, field):
        from ..formula import text_problem

        if self._own_text:      # a design's text: checked by DesignSpec.from_file_state
            return
        named = {k: v for k, v in zip(keys, values) if type(k) is str}
        engine = _engine_of(named)
        for key, kind in CODE_KEYS.items():
            if key in named:
                value = _plain(named[key])
                why = None if value is _NOT_TEXT and kind in ("offset", "subset") else (
                    "it is not text" if value is _NOT_TEXT else text_problem(kind, value, engine))
                if why is not None:
                    self.refuse(_field(field, key), f"it holds text that is not safe to evaluate: "
                                                    f"{why}")

    def _audit_complex(self, node, field):
        v = self._items(node, field)
        if not (len(v) == 2 and all(type(x) in (int, float) for x in v)):
            self.refuse(field, "a complex number is not two numbers")

    def _audit_slice(self, node, field):
        v = self._items(node, field)
        if not (len(v) == 3 and all(x is None or type(x) is int for x in v)):
            self.refuse(field, "a slice is not three integers or nulls")

    def _audit_obj(self, node, field):
        try:
            cls = _registry.resolve(node["cls"], "class")
        except LookupError:
            self.refuse(field, f"names the class {str(node['cls'])[:100]!r}, which is not on the "
                               "registry of results files")
        except ImportError as exc:
            self.refuse(field, f"names {node['cls']}, which this environment does not have "
                               f"({exc})")
        outer = self._own_text
        self._own_text = getattr(cls, "from_file_state", None) is not None
        try:
            self.audit(node["state"], field)
        finally:
            self._own_text = outer

    def _audit_fn(self, node, field):
        try:
            _registry.resolve(node["name"], "function")
        except (LookupError, ImportError):
            self.refuse(field, f"names the function {str(node['name'])[:100]!r}, which is not "
                               "a model function of fmstats")

    # -- the build
    def build(self, node, field: str = "state") -> Any:
        """The object of an audited node (raises :class:`Refused` when it is inconsistent)."""
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [self.build(v, f"{field}[{i}]") for i, v in enumerate(node)]
        tag = node["~"]
        try:
            if tag in _KEYS:
                return getattr(self, f"_build_{tag}")(node, field)
            return HANDLERS[tag].build(self, node, field)
        except Refused:
            raise
        except RecursionError:
            raise
        except Exception as exc:     # a library's constructor refused inconsistent data
            raise Refused(field, f"cannot be rebuilt ({type(exc).__name__}: "
                                 f"{str(exc)[:200]})") from None

    def _build_tuple(self, node, field):
        return tuple(self.build(v, f"{field}[{i}]") for i, v in enumerate(node["v"]))

    def _build_set(self, node, field):
        return set(self._build_tuple(node, field))

    def _build_frozenset(self, node, field):
        return frozenset(self._build_tuple(node, field))

    def _build_dict(self, node, field):
        out = {}
        for k, v in zip(node["k"], node["v"]):
            key = self.build(k, f"{field}.keys")
            try:
                out[key] = self.build(v, _field(field, key))
            except TypeError:
                self.refuse(field, f"has a key that cannot be a key ({type(key).__name__})")
        return out

    def _build_complex(self, node, field):
        return complex(*node["v"])

    def _build_slice(self, node, field):
        return slice(*node["v"])

    def _build_fn(self, node, field):
        return _registry.resolve(node["name"], "function")

    def _build_obj(self, node, field):
        cls = _registry.resolve(node["cls"], "class")
        state = self.build(node["state"], field)
        from_state = getattr(cls, "from_file_state", None)
        if from_state is not None:
            try:
                return from_state(state)
            except ValueError as exc:
                self.refuse(field, f"is not a valid {node['cls']}: {exc}")
        slots = None
        if type(state) is tuple and len(state) == 2:    # a class with __slots__
            state, slots = state
        for part in (state, slots):
            if part is not None and not (type(part) is dict and all(
                    type(k) is str and (not k.startswith("__") or k in _DUNDER_FIELDS)
                    for k in part)):
                self.refuse(field, f"the state of a {node['cls']} is not a dict of field names")
        if issubclass(cls, tuple):      # a named tuple: made by its constructor, from fields
            if slots is not None or set(state or ()) != set(getattr(cls, "_fields", ())):
                self.refuse(field, f"the state of a {node['cls']} is not its fields")
            return cls(**state)
        obj = cls.__new__(cls)
        setstate = getattr(obj, "__setstate__", None)
        if setstate is not None and slots is None:
            setstate(state)
        else:
            if state:
                obj.__dict__.update(state)
            for k, v in (slots or {}).items():
                object.__setattr__(obj, k, v)
        check = getattr(cls, "file_problem", None)     # the class's, never the state's
        why = check(obj) if check is not None else None
        if why is not None:
            self.refuse(field, f"is not a consistent {node['cls']}: {why}")
        return obj


def _plain(node) -> Any:
    """The Python value of a JSON node made of texts, lists, tuples, dicts and null (what
    formulas, subsets, offsets and contrasts are); :data:`_NOT_TEXT` for anything else."""
    if node is None or type(node) in (str, bool, int, float):
        return node
    if type(node) is list:
        items = [_plain(v) for v in node]
        return _NOT_TEXT if any(v is _NOT_TEXT for v in items) else items
    tag = node.get("~") if type(node) is dict else None
    if tag == "tuple":
        items = _plain(node["v"])
        return items if items is _NOT_TEXT else tuple(items)
    if tag == "dict":
        keys, values = _plain(node["k"]), _plain(node["v"])
        if keys is _NOT_TEXT or values is _NOT_TEXT:
            return _NOT_TEXT
        try:
            return dict(zip(keys, values))
        except TypeError:
            return _NOT_TEXT
    return _NOT_TEXT
