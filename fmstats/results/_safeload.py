"""Reading the pickled content of a results file without running code from it.

Used by :mod:`fmstats.results._persist` (``load()`` and ``save()``).

Why a restricted unpickler and not a data-only format: every results type (19 classes, and
their variants: Dask fits, lean fits, tuners over any model) holds fmstats value objects,
formulaic's fitted model spec, pandas frames with pyarrow strings and scipy matrices; a
data-only format would need a hand-written encoder per class and per third-party object, and
every new results type or library version would break it.  The pickle written by ``save()`` is
the one ``pickle.dumps`` writes, so every type that pickles round-trips exactly; what makes
reading it safe is the unpickler:

* it names only objects on the allow-list (:mod:`fmstats.results._allowlist`), refusing
  anything else before importing its module;
* restricting names is not enough (a pickle calls whatever it named: ``fm.maxent`` with a
  crafted formula runs that formula), so it *calls* only the listed reconstructors
  (``REDUCE``), *creates* only listed classes, without arguments (``NEWOBJ``), *fills*
  (``BUILD``) only objects it created itself, and refuses the protocol-0/1 ``INST``/``OBJ``
  opcodes and persistent ids;
* after the last opcode, before anything is returned, every object that could later run text
  as code or index memory unchecked is checked: formulas (designs, recorded calls, formulaic
  factors and specs, by :mod:`fmstats.formula._safety`), scipy sparse indices, pandas
  categorical codes and masks, SeedSequence pools (pyarrow arrays and pandas block
  placements are checked by wrappers as they are made).  A design's pickled state is applied
  only after its formula passed (patsy's design is rebuilt from the formula).

This runs on Python's own unpickler (``pickle._Unpickler``, the pure-Python implementation
the standard library ships beside the C one; the C unpickler lets a subclass change only
``find_class``), with the opcodes that call, create and fill overridden, and ``BYTEARRAY8``,
whose declared length is allocated before it is read, bounded by the file.  A crafted size
(an array rebuilt at 10**12 elements) is refused by the numpy wrapper.  It reads a results
file in a few milliseconds (the arrays are single byte strings; timings in
``benchmarks/bench_byteflip.py``).
"""
from __future__ import annotations

import functools
import io
import pickle
import struct
from typing import Any

from . import _allowlist
from ..formula import design_state_problem, engine_object_problem, formula_problem

__all__ = ["Refused", "restricted_loads", "scan_dumps"]


class Refused(Exception):
    """The file names, calls or holds something ``load()`` does not accept (the message
    says what)."""


def _qualname(obj: Any) -> str:
    t = obj if isinstance(obj, type) else type(obj)
    return f"{t.__module__}.{t.__qualname__}"


# ------------------------------------------------------------------ content checks
def _check_modelcall(obj) -> str | None:
    fn = getattr(obj, "function", None)
    if not callable(fn):
        return "a recorded call without a function"
    args = getattr(obj, "arguments", None)
    if not isinstance(args, dict):
        return "a recorded call whose arguments are not a dict"
    formula = args.get("formula")
    if formula is None:
        return None
    engine = args.get("engine")
    return formula_problem(formula, engine if isinstance(engine, str) else None)


def _check_sparse(obj) -> str | None:
    try:
        obj.check_format(full_check=True)
    except Exception as exc:  # scipy raises ValueError/TypeError/AttributeError
        return f"a sparse matrix whose indices are inconsistent ({exc})"
    return None


def _check_categorical(obj) -> str | None:
    import numpy as np

    codes = np.asarray(obj._ndarray)
    n = len(obj.dtype.categories)
    if codes.dtype.kind not in "iu" or (codes.size and (codes.min() < -1 or codes.max() >= n)):
        return "a categorical whose codes are not codes of its categories"
    return None


def _check_masked(obj) -> str | None:
    import numpy as np

    data, mask = getattr(obj, "_data", None), getattr(obj, "_mask", None)
    if not (isinstance(data, np.ndarray) and isinstance(mask, np.ndarray)
            and mask.dtype == bool and mask.shape == data.shape):
        return "a masked array whose mask does not match its values"
    return None


def _check_block_manager(obj) -> str | None:
    import numpy as np

    n = len(obj.axes[0]) if obj.axes else 0
    blocks = obj.blocks
    if obj.ndim == 1:
        ok = len(blocks) == 1 and len(blocks[0].values) == n
    else:
        flat = np.concatenate([np.asarray(b.mgr_locs.as_array) for b in blocks]) \
            if blocks else np.empty(0, dtype=np.intp)
        ok = flat.size == n and np.array_equal(np.sort(flat), np.arange(n))
    return None if ok else "a pandas frame whose blocks do not match its columns"


def _check_seedsequence(obj) -> str | None:
    pool = getattr(obj, "pool", None)
    if pool is None or len(pool) != obj.pool_size:
        return "a SeedSequence whose pool does not have its size"
    return None


@functools.lru_cache(maxsize=None)
def _checks() -> dict:
    """class -> its content check (by class: pandas 2 and 3 name these classes differently)."""
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp
    from formulaic.model_spec import ModelSpec
    from formulaic.parser.types import Factor
    from pandas.core.internals.managers import BlockManager, SingleBlockManager

    from .._utils.call import ModelCall

    out = {ModelCall: _check_modelcall, Factor: engine_object_problem,
           ModelSpec: engine_object_problem, pd.Categorical: _check_categorical,
           BlockManager: _check_block_manager, SingleBlockManager: _check_block_manager,
           np.random.SeedSequence: _check_seedsequence}
    out.update(dict.fromkeys((pd.arrays.IntegerArray, pd.arrays.FloatingArray,
                              pd.arrays.BooleanArray), _check_masked))
    out.update(dict.fromkeys((sp.csr_array, sp.csr_matrix, sp.csc_array, sp.csc_matrix),
                             _check_sparse))
    return out


@functools.lru_cache(maxsize=None)
def _deferred() -> dict:
    """class -> check of its pickled state, applied only after the check passed."""
    from ..formula import DesignSpec

    return {DesignSpec: design_state_problem}


def _check_of(obj):
    return _checks().get(type(obj))


# ------------------------------------------------------------------ the unpickler
class _Reader:
    """A read-only file over the content's bytes without copying them (``io.BytesIO`` would
    copy a file of arrays once more)."""

    def __init__(self, data):
        self._view = memoryview(data).cast("B")
        self._pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self._view) if n is None or n < 0 else min(self._pos + n, len(self._view))
        out = self._view[self._pos:end].tobytes()
        self._pos = end
        return out

    def readinto(self, buf) -> int:
        n = min(len(buf), len(self._view) - self._pos)
        memoryview(buf).cast("B")[:n] = self._view[self._pos:self._pos + n]
        self._pos += n
        return n

    def readline(self) -> bytes:
        start = end = self._pos
        while end < len(self._view):          # in blocks: a line is found where it ends
            hit = self._view[end:end + 4096].tobytes().find(b"\n")
            if hit >= 0:
                end += hit + 1
                break
            end = min(end + 4096, len(self._view))
        self._pos = end
        return self._view[start:end].tobytes()


class _Unpickler(pickle._Unpickler):
    """``pickle``'s pure-Python unpickler restricted to the allow-list (see module notes)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, data):
        super().__init__(_Reader(data))
        self._size = memoryview(data).nbytes
        self._calls: dict[int, Any] = {}      # id(listed callable) -> what to call
        self._classes: dict[int, type] = {}   # id(listed class) -> class
        self._buildable: set[int] = set()     # ids of classes whose instances may be filled
        self._made: list = []                 # objects made here, in order (kept alive)
        self._made_ids: set[int] = set()
        self._deferred: list = []             # (instance, state, check)
        self._resolved: dict[tuple[str, str], Any] = {}

    # -- naming
    def find_class(self, module, name):
        key = (module, name)
        if key in self._resolved:
            return self._resolved[key]
        if not _allowlist.listed(module, name):
            raise Refused(f"it names {module}.{name}, which is not on the allow-list of "
                          "results files")
        try:
            obj = _allowlist.resolve(module, name)
        except (ImportError, AttributeError) as exc:
            raise Refused(f"it names {module}.{name}, which this environment does not have "
                          f"({exc})") from None
        self._resolved[key] = obj
        if name in _allowlist.CALLS.get(module, ()):
            self._calls[id(obj)] = _allowlist.WRAPPERS.get(key, obj)
        if name in _allowlist.CLASSES.get(module, ()):
            self._classes[id(obj)] = obj
            self._buildable.add(id(obj))
        if name in _allowlist.BUILT_AFTER_CALL.get(module, ()):
            self._buildable.add(id(obj))
        return obj

    def persistent_load(self, pid):
        raise Refused("it uses a persistent id, which results files never do")

    def _made_obj(self, obj):
        if id(obj) not in self._made_ids:
            self._made.append(obj)
            self._made_ids.add(id(obj))
        return obj

    # -- calling and creating
    def load_reduce(self):
        stack = self.stack
        args = stack.pop()
        func = stack[-1]
        call = self._calls.get(id(func))
        if call is None:
            raise Refused(f"it calls {_describe(func)}, which results files may not call")
        if type(args) is not tuple:
            raise Refused("it calls a function with arguments that are not a tuple")
        stack[-1] = self._made_obj(call(*args))

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._made_obj(self._new(cls, args, {})))

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._made_obj(self._new(cls, args, kwargs)))

    def _new(self, cls, args, kwargs):
        if self._classes.get(id(cls)) is not cls:
            raise Refused(f"it creates {_describe(cls)}, which results files may not create")
        if (args or kwargs) and not issubclass(cls, (tuple, str)):
            raise Refused(f"it creates {_describe(cls)} with constructor arguments")
        return cls.__new__(cls, *args, **(kwargs or {}))

    def load_build(self):
        stack = self.stack
        inst = stack[-2]
        if id(inst) not in self._made_ids or id(type(inst)) not in self._buildable \
                and not _builds_as_dtype(inst):
            raise Refused(f"it fills the {_describe(inst)}, which it did not create or may "
                          "not fill")
        check = _deferred().get(type(inst))
        if check is not None:
            self._deferred.append((inst, stack.pop(), check))
            return
        pickle._Unpickler.load_build(self)

    def load_bytearray8(self):
        # pickle's reader allocates the declared length before reading: not beyond the file
        (n,) = struct.unpack("<Q", self.read(8))
        if n > self._size:
            raise Refused(f"it declares a byte array of {n} bytes in {self._size} bytes")
        b = bytearray(n)
        if self.readinto(b) != n:
            raise Refused("it ends inside a byte array")
        self.append(b)

    def _refuse_old(self):
        raise Refused("it uses the protocol-0/1 instance opcodes, which results files never do")

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.BYTEARRAY8[0]] = load_bytearray8
    dispatch[pickle.INST[0]] = _refuse_old
    dispatch[pickle.OBJ[0]] = _refuse_old

    # -- after the last opcode
    def finish(self, obj):
        for inst, state, check in self._deferred:
            why = check(state)
            if why is not None:
                raise Refused(f"it holds a {_describe(inst)} that is not safe: {why}")
        for made in self._made:
            check = _check_of(made)
            why = None if check is None else check(made)
            if why is not None:
                raise Refused(f"it holds a {_describe(made)} that is not safe: {why}")
        for inst, state, _ in self._deferred:
            inst.__setstate__(state)
        return obj


def _builds_as_dtype(inst) -> bool:
    import numpy as np

    return isinstance(inst, np.dtype)


def _describe(obj) -> str:
    if isinstance(obj, type) or _is_function(obj):
        return f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"
    t = type(obj)
    return f"{t.__qualname__} object ({t.__module__})"


def restricted_loads(data: bytes) -> Any:
    """The object pickled in ``data``, read by the restricted unpickler (module notes).

    Raises :class:`Refused` for anything the allow-list or the content checks refuse; any
    other exception means the content is not a well-formed pickle of listed objects.
    """
    u = _Unpickler(data)
    return u.finish(u.load())


# ------------------------------------------------------------------ writing
class _Scanner(pickle.Pickler):
    """``pickle.Pickler`` that notes what ``restricted_loads`` would refuse in what it
    writes: a named object not on the allow-list, or content that fails its check."""

    def __init__(self, file):
        super().__init__(file, protocol=5)
        self.problems: list[str] = []

    def persistent_id(self, obj):
        if (isinstance(obj, type) or _is_function(obj)) \
                and not _allowlist.listed(obj.__module__, obj.__qualname__):
            self.problems.append(f"{obj.__module__}.{obj.__qualname__} is not on the "
                                 "allow-list of results files")
            return None
        check = _deferred().get(type(obj))
        why = check(obj.__getstate__()) if check is not None else None
        if why is None:
            check = _check_of(obj)
            why = None if check is None else check(obj)
        if why is not None:
            self.problems.append(f"a {_describe(obj)} is refused: {why}")
        return None


def _is_function(obj) -> bool:
    import types

    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType))


def scan_dumps(obj) -> tuple[bytes, list[str]]:
    """``pickle.dumps(obj, protocol=5)`` and what ``restricted_loads`` would refuse in it."""
    buf = io.BytesIO()
    s = _Scanner(buf)
    s.dump(obj)
    return buf.getvalue(), list(dict.fromkeys(s.problems))
