"""``save()`` / ``load()`` for every fmstats results type: one mixin, one file format.

Used by (each inherits :class:`Persistable`):

* ``results.ModelResults``: maxent, umaxent, fmaxent, wsvm, fsvm, costsens, calibrate,
  multinom and the Dask fits;
* ``_tuned.Tuned``: cv_tune and tune_threshold; ``multiclass_decision``;
* ``bootstrap.BootstrapResults``, ``validate.ValidateResults``, ``qresample.ResampleFResults``;
* ``multilabel.models.MultilabelResults``: br and pcc;
* ``extreme.probabilistic_label_tree.ProbabilisticLabelTreeResults``,
  ``extreme.thresholds.ThresholdFit`` (sto, fta,
  ofo), ``extreme.spe.SPE`` and the randomized top-k rule.

File format (:data:`FORMAT_VERSION` 3): four text lines, then the arrays::

    fmstats-results
    format 3
    sha256 <64 hex digits: SHA-256 of the bytes of line 2, line 4 and the arrays>
    {"arrays": [[0, 1152], [1152, 288], ...], "class": "fmstats.MaxentResults", "fmstats_version": "0.1.0", ..., "state": {...}}
    <the arrays: .npy files, back to back, at the offsets the header gives>

Line 4 (at most :data:`MAX_HEADER_BYTES`, nested at most :data:`MAX_JSON_DEPTH` deep) is a
JSON object: the public name of the results class, the versions that wrote the file, where
each array lies in the array section, and ``state``, the results object as a tree of data
(``_tree.py``).  There is no pickle in a format-3 file: ``load()`` checks the
first line, the format, the checksum, the header's size and depth, parses it, audits the
whole tree (node types, registered public class names, every ``.npy`` header's dtype and
shape against its bytes, every stored formula, subset, offset and contrast by its syntax
tree), and only then rebuilds the objects; no formula engine runs (designs are rebuilt at
their first use).  Every problem is a :class:`~fmstats.exceptions.ResultsFileError` naming
``path`` and the field.  The checksum detects accidental damage (a flipped byte, a cut-short
copy); anyone can recompute it, so it says nothing about who wrote a file: safety against a
crafted file comes from the format holding data only.

Memory: ``load()`` holds the file's bytes, a copy of each array and the parsed header, about
twice the file's size (every size a file declares is checked against the bytes it holds
before anything is allocated); ``save()`` holds the ``.npy`` bytes of the arrays once more.

Results holding something a data-only file cannot hold (a function of the user's given to a
tuner, a formula term outside the vocabulary such as ``x.abs()``) are written in format 2:
the same first three lines, a JSON header, and the object pickled with protocol 5.  A pickle
can run code when read, so ``load()`` opens format 2 (and the plain pickles written before
it) only with ``trusted=True``, with a :class:`~fmstats.exceptions.ResultsFileWarning`.
``pickle.dumps``/``pickle.loads`` of a results object itself (joblib, multiprocessing) is
unchanged.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import sys
import warnings
from typing import Any

import numpy as np

from . import _registry

__all__ = ["Persistable", "FORMAT_VERSION"]

#: Version of the file layout written by :meth:`Persistable.save`.
FORMAT_VERSION = 3
#: The pickle format written for results a data-only file cannot hold (trusted only).
PICKLE_FORMAT = 2
#: Longest header line (the JSON tree of the state) ``load()`` reads.
MAX_HEADER_BYTES = 256 * 2 ** 20
#: Deepest nesting of the header's JSON (checked before it is parsed).
MAX_JSON_DEPTH = 200
#: Most arrays a file may hold.
MAX_ARRAYS = 1_000_000

MAGIC = b"fmstats-results\n"
_KEY = "fmstats_results"            # the key of the format-1 envelope (a pickled dict)
_HEADER_KEYS = {"arrays", "class", "fmstats_version", "libraries", "python", "state"}
_TRUSTED_HINT = ("if you trust where the file came from, load(path, trusted=True) reads it "
                 "with pickle itself")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def _class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _what(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(map(repr, list(obj)[:5])) + (", ..." if len(obj) > 5 else "")
        return f"a dict (keys {keys})" if obj else "an empty dict"
    return f"a {_class_path(type(obj))}"


def _where(path) -> str:
    return f"`path` {os.fspath(path)!r}"


def _check_path(path) -> None:
    from ..exceptions import InvalidArgumentError

    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"`path` must be a file name (str or path-like); got a "
                                   f"{type(path).__name__}.")


def _file_error(where: str, exc: OSError, doing: str):
    from ..exceptions import ResultsFileError

    reason = {FileNotFoundError: "does not exist", IsADirectoryError: "is a directory",
              PermissionError: "is not accessible (permission denied)"}.get(
        type(exc), f"cannot be {doing} ({exc.strerror or exc})")
    return ResultsFileError(f"{where} {reason}.")


def _libraries() -> dict:
    mods = {}
    for name in ("numpy", "pandas", "scipy", "formulaic"):
        mod = sys.modules.get(name)
        if mod is not None:
            mods[name] = getattr(mod, "__version__", "?")
    return mods


def _sha256(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return h.hexdigest()


class Persistable:
    """Mixin giving results objects ``save(path)`` and ``Cls.load(path)`` (see module notes),
    and an HTML view in notebooks (``_repr_html_``: the summary's, else the ``repr``)."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        """The object's summary as HTML (a notebook shows it), else its ``repr``."""
        import html

        import pandas as pd

        summary = getattr(self, "summary", None)
        if callable(summary):
            s = summary()
            if hasattr(s, "_repr_html_"):
                return s._repr_html_()
            if isinstance(s, pd.Series):
                s = s.to_frame()
            if isinstance(s, pd.DataFrame):
                return f"<p>{html.escape(repr(self))}</p>" + s.to_html()
        return f"<pre>{html.escape(repr(self))}</pre>"

    def save(self, path) -> None:
        """Write the results to ``path`` in the fmstats results file format (version 3).

        Everything the object holds is stored as data -- numbers, text, arrays, tables --
        never as code (for model fits: the design and the fitted values as well as the
        coefficients; a ``maxent(..., keep_data=False)`` fit holds no design, only n-length
        vectors, so its file is small); cached derived statistics are not.  The file
        carries its format version and a SHA-256 checksum of its content, and is read back
        with ``type(results).load(path)`` (see :meth:`load`).  Results holding something a
        data-only file cannot hold (a function of your own given to a tuner, a formula
        term calling a method such as ``x.abs()``) are written as a pickle (format 2) with
        a :class:`~fmstats.exceptions.ResultsFileWarning`: such a file opens only with
        ``load(path, trusted=True)``.

        Parameters
        ----------
        path : str or path-like
            The file to write (replaced if it exists).

        Returns
        -------
        None
            The file is written at ``path``.

        Raises
        ------
        ResultsFileError
            The file cannot be written (a missing directory, no permission).
        """
        from ._tree import Encoder, Unencodable

        _check_path(path)
        encoder = Encoder()
        try:
            state = encoder.encode(self)
        except Unencodable as exc:
            return self._save_pickle(path, exc)
        offsets, start = [], 0
        for head, data in encoder.blobs:
            offsets.append([start, len(head) + data.nbytes])
            start += offsets[-1][1]
        header = self._header(state["cls"], arrays=offsets, state=state)
        _write(path, FORMAT_VERSION, header, [p for parts in encoder.blobs for p in parts])

    def _header(self, name: str, **more) -> bytes:
        from .._version import __version__

        head = {"class": name, "fmstats_version": __version__,
                "python": ".".join(map(str, sys.version_info[:3])), "libraries": _libraries(),
                **more}
        return json.dumps(head, sort_keys=True, allow_nan=True,
                          separators=(",", ":")).encode() + b"\n"

    def _save_pickle(self, path, why) -> None:
        from ..exceptions import ResultsFileWarning

        payload = pickle.dumps(self, protocol=5)
        header = self._header(_class_path(type(self)), pickle_protocol=5,
                              content_bytes=len(payload))
        _write(path, PICKLE_FORMAT, header, [payload])
        warnings.warn(
            f"{_where(path)} was written as a pickle (results file format {PICKLE_FORMAT}), "
            f"which load() opens only with trusted=True: the results hold something a "
            f"data-only file cannot hold ({why}).", ResultsFileWarning, stacklevel=3)

    @classmethod
    def load(cls, path, *, trusted: bool = False):
        """Results saved with :meth:`save`, checked to be a ``cls``, read without running
        anything from the file.

        The file's format version and checksum are checked first (a damaged or truncated
        file is refused, never read with different numbers), then the size and depth of its
        header, the class it holds, and its whole content: a tree of data whose every node
        is checked (types, sizes, arrays' dtypes and shapes against their bytes, the
        formulas, subsets and offsets it stores by their syntax tree) before anything is
        built from it.  Nothing in a file is code: a file crafted to run code, crash the
        interpreter or allocate far more memory than it holds is refused.

        Parameters
        ----------
        path : str or path-like
            The file written by :meth:`save`.
        trusted : bool, default False
            Also open results files of format 2 and the plain pickles written before
            (:meth:`save` writes format 2 for results holding a function of your own), by
            reading them with ``pickle`` itself, with a
            :class:`~fmstats.exceptions.ResultsFileWarning`.  A pickle can run any code
            when read: never use it for a file of unknown origin.  Format-3 files are read
            the same way either way.

        Returns
        -------
        Persistable
            The results object (an instance of ``cls``).

        Raises
        ------
        ResultsFileError
            The file is missing or unreadable, is not an fmstats results file, is damaged
            (checksum), was written by a newer format, holds another results type, holds
            something the format does not allow (naming the field), or is a pickle
            (format 2 or older) and ``trusted`` is False.
        """
        from ..exceptions import InvalidArgumentError

        _check_path(path)
        if not isinstance(trusted, bool):
            raise InvalidArgumentError(f"`trusted` must be True or False; got {trusted!r}.")
        where = _where(path)
        try:
            with open(path, "rb") as fh:
                blob = fh.read()
        except OSError as exc:
            raise _file_error(where, exc, "read") from None
        if not blob.startswith(MAGIC):
            return cls._load_legacy(blob, where, trusted)
        version, header, content = _read_envelope(blob, where)
        if version == PICKLE_FORMAT:
            return _load_pickle(cls, header, content, where, trusted)
        return _load_tree(cls, header, content, where)

    @classmethod
    def _load_legacy(cls, blob: bytes, where: str, trusted: bool):
        """Files written before format 2: a pickled format-1 envelope or a bare pickle."""
        from ..exceptions import ResultsFileError, ResultsFileWarning

        if not blob:
            raise ResultsFileError(f"{where} is empty: it is not a complete fmstats results "
                                   "file.")
        if not trusted:
            looks = blob[:1] == b"\x80"
            raise ResultsFileError(
                f"{where} is not an fmstats results file of format {FORMAT_VERSION} (it does "
                f"not start with {MAGIC.decode().strip()!r})"
                + ("; it looks like a plain pickle, as fmstats wrote before format 2 or "
                   "pickle.dump writes. A pickle can run code when it is read: "
                   + _TRUSTED_HINT + ", then save() it again to convert it."
                   if looks else "; it is not a complete fmstats results file."))
        warnings.warn(f"{where} is a plain pickle (written before results file format "
                      f"{PICKLE_FORMAT}): it was read with pickle itself, without a checksum. "
                      "save() it again to convert it.", ResultsFileWarning, stacklevel=3)
        obj = _unpickle(blob, where)
        if isinstance(obj, dict) and _KEY in obj:
            version, saved_by = obj[_KEY], obj.get("fmstats_version", "unknown")
            if not isinstance(version, int) or isinstance(version, bool):
                raise ResultsFileError(f"{where} has an invalid results file format "
                                       f"{version!r}.")
            if version > 1:
                raise ResultsFileError(
                    f"{where} is a pickle claiming results file format {version} (saved by "
                    f"fmstats {saved_by}); format 1 was the last written as a pickle.")
            if "results" not in obj:
                raise ResultsFileError(f"{where} is an fmstats results file without results.")
            return _checked_type(obj["results"], cls, where, f"format 1, fmstats {saved_by}")
        if isinstance(obj, Persistable):
            return _checked_type(obj, cls, where, "a bare pickle written before format 1")
        raise ResultsFileError(f"{where} holds {_what(obj)}, not fmstats results written by "
                               f"save(); expected {cls.__name__}.")


def _write(path, version: int, header: bytes, parts: list) -> None:
    line = f"format {version}\n".encode()
    digest = _sha256(line, header, *parts)
    try:
        with open(path, "wb") as fh:
            for part in (MAGIC, line, f"sha256 {digest}\n".encode(), header, *parts):
                fh.write(part)
    except OSError as exc:
        raise _file_error(_where(path), exc, "written") from None


def _read_envelope(blob: bytes, where: str) -> tuple[int, bytes, memoryview]:
    """The format, header line and content of a file of format 2 or 3, after its checksum
    (nothing of the content is read before it matches)."""
    from ..exceptions import ResultsFileError

    damaged = (f"{where} is damaged: it is not a complete fmstats results file as save() "
               "wrote it")
    start = len(MAGIC)
    ends = []
    for limit in (32, 80):        # the format and checksum lines are short
        end = blob.find(b"\n", start, start + limit)
        if end < 0:
            raise ResultsFileError(f"{damaged} (it ends inside its header).")
        ends.append(end)
        start = end + 1
    version_line = blob[len(MAGIC):ends[0]]
    sha_line = blob[ends[0] + 1:ends[1]]
    try:
        version = int(version_line.decode("ascii").removeprefix("format "))
    except (UnicodeDecodeError, ValueError):
        raise ResultsFileError(f"{damaged} (its format line reads {version_line[:40]!r}).") \
            from None
    if version not in (PICKLE_FORMAT, FORMAT_VERSION):
        newer = version > FORMAT_VERSION
        raise ResultsFileError(
            f"{where} uses results file format {version}; this fmstats reads format "
            f"{FORMAT_VERSION}" + (": upgrade fmstats to load it (or the file is damaged)."
                                   if newer else ", which no fmstats wrote: it is damaged."))
    rest = memoryview(blob)[ends[1] + 1:]
    digest = _sha256(version_line + b"\n", rest)
    if sha_line != f"sha256 {digest}".encode():
        raise ResultsFileError(
            f"{damaged}: its SHA-256 checksum does not match its content, so the file was "
            "changed or cut short after it was written. Nothing was read from it; save the "
            "results again from where they were made. (The checksum detects damage; it does "
            "not tell who wrote a file.)")
    end = blob.find(b"\n", ends[1] + 1, ends[1] + 2 + MAX_HEADER_BYTES)
    if end < 0:
        raise ResultsFileError(
            f"{damaged} (its header line ends beyond {MAX_HEADER_BYTES} bytes, or not at all).")
    return version, blob[ends[1] + 1:end], memoryview(blob)[end + 1:]


def _json_depth(text: bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (outside strings), without
    parsing it: vectorised over the brackets, so the parser never meets deeper text."""
    bare = _STRING.sub(b'""', text)
    codes = np.frombuffer(bare, dtype=np.uint8)
    at = codes[(codes == 91) | (codes == 93) | (codes == 123) | (codes == 125)]
    if at.size == 0:
        return 0
    steps = np.where((at == 91) | (at == 123), 1, -1).astype(np.int64)
    return int(np.cumsum(steps).max())


def _unique_keys(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a JSON object repeats a key")
    return out


def _parse_header(line: bytes, where: str) -> dict:
    from ..exceptions import ResultsFileError

    depth = _json_depth(line)
    if depth > MAX_JSON_DEPTH:
        raise ResultsFileError(f"{where} was refused: its header nests {depth} levels deep, "
                               f"beyond the {MAX_JSON_DEPTH} results files use.")
    try:
        header = json.loads(line.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError, MemoryError) as exc:
        raise ResultsFileError(f"{where} is damaged: its header is not valid JSON "
                               f"({type(exc).__name__}: {str(exc)[:120]}).") from None
    if not isinstance(header, dict):
        raise ResultsFileError(f"{where} is damaged: its header is not a JSON object.")
    return header


def _load_pickle(cls, header_line: bytes, content: memoryview, where: str, trusted: bool):
    from ..exceptions import ResultsFileError, ResultsFileWarning

    if not trusted:
        raise ResultsFileError(
            f"{where} is a results file of format {PICKLE_FORMAT}, whose content is a "
            "pickle, which can run code when it is read (fmstats wrote format 2 before "
            f"format {FORMAT_VERSION}, and still writes it for results holding a function of "
            f"your own); {_TRUSTED_HINT}, then save() it again to write format "
            f"{FORMAT_VERSION} where possible.")
    header = _parse_header(header_line, where)
    if header.get("content_bytes") != len(content):
        raise ResultsFileError(f"{where} is damaged: its header does not describe its "
                               "content.")
    warnings.warn(f"{where} (results file format {PICKLE_FORMAT}) was read with pickle "
                  "itself, as trusted=True asked: only do this for files whose origin you "
                  "trust.", ResultsFileWarning, stacklevel=3)
    return _checked_type(_unpickle(content, where), cls, where,
                         f"format {PICKLE_FORMAT}, fmstats "
                         f"{header.get('fmstats_version', '?')}")


class _Unpickler(pickle.Unpickler):
    """``pickle.loads``, with the classes that moved found where they are now
    (``_registry.MOVED_CLASSES``, ``_registry.MOVED_MODULES``): old trusted files name them
    by their old paths."""

    def find_class(self, module, name):
        module, name = _registry.MOVED_CLASSES.get((module, name), (module, name))
        return super().find_class(_registry.MOVED_MODULES.get(module, module), name)


def _unpickle(payload, where: str):
    from ..exceptions import ResultsFileError

    try:
        return _Unpickler(io.BytesIO(payload)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, IndexError) as exc:
        raise ResultsFileError(
            f"{where} is not a complete fmstats results file (it must be written by "
            f"save() and read back whole); unpickling failed: {exc}.") from None
    except (AttributeError, ImportError) as exc:
        raise ResultsFileError(
            f"{where} refers to a class this fmstats does not have ({exc}); it was "
            "probably saved by another fmstats version.") from None


def _arrays(table, section: memoryview, where: str) -> list:
    """The ``.npy`` blobs of the array section, at the offsets of the header (back to back,
    covering the section exactly)."""
    from ..exceptions import ResultsFileError

    bad = f"{where} was refused: its header's `arrays`"
    if not isinstance(table, list) or len(table) > MAX_ARRAYS:
        raise ResultsFileError(f"{bad} is not a list of at most {MAX_ARRAYS} arrays.")
    blobs, at = [], 0
    for i, entry in enumerate(table):
        if not (isinstance(entry, list) and len(entry) == 2
                and all(type(v) is int for v in entry) and entry[0] == at and entry[1] >= 0):
            raise ResultsFileError(f"{bad}[{i}] is not the next [start, length] of the array "
                                   "section.")
        at += entry[1]
        if at > len(section):
            raise ResultsFileError(f"{bad}[{i}] reaches beyond the file's {len(section)} "
                                   "bytes of arrays.")
        blobs.append(section[entry[0]:at])
    if at != len(section):
        raise ResultsFileError(f"{bad} do not cover the file's array section.")
    return blobs


def _load_tree(cls, header_line: bytes, section: memoryview, where: str):
    from ..exceptions import ResultsFileError
    from . import _registry
    from ._tree import Reader, Refused

    header = _parse_header(header_line, where)
    if set(header) != _HEADER_KEYS:
        raise ResultsFileError(f"{where} is damaged: its header does not have the fields of "
                               f"format {FORMAT_VERSION}.")
    name = header["class"]
    try:
        saved = _registry.resolve(name, "class")
    except (LookupError, ImportError):
        raise ResultsFileError(f"{where} says it holds {str(name)[:100]!r}, which is not an "
                               "fmstats results type this fmstats has.") from None
    if not issubclass(saved, cls):
        hint = f"; load it with {saved.__name__}.load()" if issubclass(saved, Persistable) \
            else ""
        raise ResultsFileError(f"{where} holds a {name}, not a {cls.__name__}{hint}.")
    state = header["state"]
    if not (isinstance(state, dict) and state.get("~") == "obj" and state.get("cls") == name):
        raise ResultsFileError(f"{where} is damaged: its state is not the {name} its header "
                               "names.")
    reader = Reader(_arrays(header["arrays"], section, where))
    try:
        reader.audit_all(state)
        results = reader.build(state)
    except Refused as exc:
        raise ResultsFileError(f"{where} was refused without running anything from it: "
                               f"{exc.field}: {exc.reason}.") from None
    except RecursionError:    # pragma: no cover - the depth is bounded before parsing
        raise ResultsFileError(f"{where} nests its content too deeply to be read.") from None
    return _checked_type(results, cls, where, f"format {FORMAT_VERSION}, fmstats "
                                              f"{header.get('fmstats_version', '?')}")


def _checked_type(results, cls: type, where: str, origin: str):
    from ..exceptions import ResultsFileError

    if not isinstance(results, cls):
        hint = (f"; load it with {type(results).__name__}.load()"
                if isinstance(results, Persistable) else "")
        raise ResultsFileError(
            f"{where} holds {_what(results)} ({origin}), not a {cls.__name__}{hint}.")
    return results
