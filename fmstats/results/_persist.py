"""``save()`` / ``load()`` for every fmstats results type: one mixin, one file format.

Used by (each inherits :class:`Persistable`):

* ``results.ModelResults``: maxent, umaxent, fmaxent, wsvm, fsvm, costsens and the Dask fits;
* ``_tuned.Tuned``: cv_tune and tune_threshold;
* ``bootstrap.BootstrapResults``, ``validate.ValidateResults``, ``qresample.ResampledF``;
* ``multilabel.models.MultilabelResults``: br and pcc;
* ``extreme.probabilistic_label_tree.PLTResults``, ``extreme.thresholds.ThresholdFit`` (sto, fta, ofo) and
  ``extreme.spe.SPE``.

File format (:data:`FORMAT_VERSION` 2), four text lines and the content::

    fmstats-results
    format 2
    sha256 <64 hex digits: SHA-256 of the bytes of line 2, line 4 and the content>
    {"class": "fmstats.maxent_models._maxent.MaxentResults", "fmstats_version": "0.1.0", ...}
    <the content: the results object pickled with protocol 5>

``Cls.load(path)`` checks the first line, the format, the checksum (so a file changed by even
one byte, or cut short, is refused as damaged), that the class named in line 4 is a ``Cls``,
and then reads the content with the restricted unpickler of
:mod:`fmstats.results._safeload`: only objects on the allow-list of
:mod:`fmstats.results._allowlist` are named, created or called, and formulas are checked
before anything could evaluate them, so a crafted file cannot run code.  Every problem is a
:class:`~fmstats.exceptions.ResultsFileError` naming ``path``.  ``load(path, trusted=True)``
reads the content with ``pickle`` itself (for files naming a function of the user's, say) and
also opens files written before format 2 (plain pickles, which can run code when read), with a
:class:`~fmstats.exceptions.ResultsFileWarning`.  ``pickle.dumps``/``pickle.loads`` of a
results object itself (joblib, multiprocessing) is unchanged.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import warnings
from typing import Any

__all__ = ["Persistable", "FORMAT_VERSION"]

#: Version of the file layout written by :meth:`Persistable.save`.
FORMAT_VERSION = 2

MAGIC = b"fmstats-results\n"
_KEY = "fmstats_results"            # the key of the format-1 envelope (a pickled dict)
_TRUSTED_HINT = ("if you trust where the file came from, load(path, trusted=True) reads it "
                 "with pickle itself")


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
        """Write the results to ``path`` in the fmstats results file format (version 2).

        Everything the object holds is stored (for model fits: the design and the fitted
        values as well as the coefficients; a ``maxent(..., keep_data=False)`` fit holds no
        design, only n-length vectors, so its file is small); cached derived statistics are
        not.  The file carries its format version and a SHA-256 checksum of its content, and
        is read back with ``type(results).load(path)`` (see :meth:`load`).  If the results
        refer to something ``load()`` refuses (a function of your own given to a tuner, a
        formula term calling a method such as ``x.abs()``), the file is written and a
        :class:`~fmstats.exceptions.ResultsFileWarning` says that it needs
        ``load(path, trusted=True)``.

        Parameters
        ----------
        path : str or path-like
            The file to write (replaced if it exists).

        Raises
        ------
        ResultsFileError
            The file cannot be written (a missing directory, no permission).
        """
        from .._version import __version__
        from ..exceptions import ResultsFileWarning
        from ._safeload import scan_dumps

        _check_path(path)
        payload, problems = scan_dumps(self)
        header = json.dumps({"class": _class_path(type(self)), "fmstats_version": __version__,
                             "python": ".".join(map(str, sys.version_info[:3])),
                             "libraries": _libraries(), "pickle_protocol": 5,
                             "content_bytes": len(payload)}, sort_keys=True).encode() + b"\n"
        version = f"format {FORMAT_VERSION}\n".encode()
        digest = _sha256(version, header, payload)
        try:
            with open(path, "wb") as fh:
                for part in (MAGIC, version, f"sha256 {digest}\n".encode(), header, payload):
                    fh.write(part)
        except OSError as exc:
            raise _file_error(_where(path), exc, "written") from None
        if problems:
            warnings.warn(
                f"{_where(path)} was written, but load() will refuse it: "
                f"{'; '.join(problems[:3])}. It can be opened with load(path, trusted=True).",
                ResultsFileWarning, stacklevel=2)

    @classmethod
    def load(cls, path, *, trusted: bool = False):
        """Results saved with :meth:`save`, checked to be a ``cls`` and safe to open.

        The file's format version and checksum are checked first (a damaged or truncated
        file is refused, never read with different numbers), then the class it holds, then
        its content is read by an unpickler that names, creates and calls only what is on
        fmstats' allow-list (its results and value classes, numpy, pandas, scipy.sparse and
        formulaic objects) and checks every formula before it could be evaluated: a file
        crafted to run code is refused without running it.

        Parameters
        ----------
        path : str or path-like
            The file written by :meth:`save`.
        trusted : bool, default False
            Read the content with ``pickle`` itself, without the allow-list: for files you
            trust that refer to your own functions, and for files written before format 2
            (plain pickles), which are read with a
            :class:`~fmstats.exceptions.ResultsFileWarning`.  The format and checksum are
            still checked for format-2 files.  A pickle can run any code when read: never
            use it for a file of unknown origin.

        Returns
        -------
        Persistable
            The results object (an instance of ``cls``).

        Raises
        ------
        ResultsFileError
            The file is missing or unreadable, is not an fmstats results file, is damaged
            (checksum), was written by a newer format, holds another results type, or
            names, calls or holds something the allow-list refuses.
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
        header, payload = _read_envelope(blob, where)
        results = _unpickle(payload, where, trusted, cls, header)
        return _checked_type(results, cls, where, f"format {FORMAT_VERSION}, fmstats "
                                                  f"{header.get('fmstats_version', '?')}")

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
                      f"{FORMAT_VERSION}): it was read with pickle itself, without a checksum "
                      "or the allow-list. save() it again to convert it.",
                      ResultsFileWarning, stacklevel=3)
        try:
            obj = pickle.loads(blob)
        except (pickle.UnpicklingError, EOFError, ValueError, IndexError) as exc:
            raise ResultsFileError(
                f"{where} is not a complete fmstats results file (it must be written by "
                f"save() and read back whole); unpickling failed: {exc}.") from None
        except (AttributeError, ImportError) as exc:
            raise ResultsFileError(
                f"{where} refers to a class this fmstats does not have ({exc}); it was "
                "probably saved by another fmstats version.") from None
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


def _sha256(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return h.hexdigest()


def _read_envelope(blob: bytes, where: str) -> tuple[dict, memoryview]:
    """The header and the content of a format-2 file, after its format and checksum."""
    from ..exceptions import ResultsFileError

    damaged = (f"{where} is damaged: it is not a complete fmstats results file as save() "
               "wrote it")
    ends, start = [], len(MAGIC)
    for _ in range(3):            # the ends of the format, checksum and header lines
        end = blob.find(b"\n", start)
        if end < 0:
            raise ResultsFileError(f"{damaged} (it ends inside its header).")
        ends.append(end)
        start = end + 1
    version_line = blob[len(MAGIC):ends[0]]
    sha_line = blob[ends[0] + 1:ends[1]]
    header_line = blob[ends[1] + 1:ends[2]]
    payload = memoryview(blob)[ends[2] + 1:]     # the content, not copied
    try:
        version = int(version_line.decode("ascii").removeprefix("format "))
    except (UnicodeDecodeError, ValueError):
        raise ResultsFileError(f"{damaged} (its format line reads {version_line[:40]!r}).") \
            from None
    if version != FORMAT_VERSION:
        newer = version > FORMAT_VERSION
        raise ResultsFileError(
            f"{where} uses results file format {version}; this fmstats reads format "
            f"{FORMAT_VERSION}" + (": upgrade fmstats to load it (or the file is damaged)."
                                   if newer else ", which no fmstats wrote: it is damaged."))
    digest = _sha256(version_line + b"\n", header_line + b"\n", payload)
    if sha_line != f"sha256 {digest}".encode():
        raise ResultsFileError(
            f"{damaged}: its SHA-256 checksum does not match its content, so the file was "
            "changed or cut short after it was written. Nothing was read from it; save the "
            "results again from where they were made.")
    try:
        header = json.loads(header_line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        header = None
    if not isinstance(header, dict) or header.get("content_bytes") != len(payload):
        raise ResultsFileError(f"{damaged} (its header does not describe its content).")
    return header, payload


def _unpickle(payload, where: str, trusted: bool, cls: type, header: dict):
    from ..exceptions import ResultsFileError
    from . import _allowlist
    from ._safeload import Refused, restricted_loads

    name = header.get("class")
    module, _, qual = str(name).rpartition(".")
    try:
        saved = _allowlist.resolve(module, qual)
    except (LookupError, ImportError, AttributeError):
        saved = None
    if not trusted and not (isinstance(saved, type) and issubclass(saved, Persistable)):
        raise ResultsFileError(f"{where} says it holds a {name}, which is not an fmstats "
                               f"results type this fmstats has; {_TRUSTED_HINT}.")
    if saved is not None and not issubclass(saved, cls):
        hint = f"; load it with {saved.__name__}.load()" if issubclass(saved, Persistable) \
            else ""
        raise ResultsFileError(f"{where} holds a {name}, not a {cls.__name__}{hint}.")
    try:
        return pickle.loads(payload) if trusted else restricted_loads(payload)
    except Refused as exc:
        raise ResultsFileError(f"{where} was refused without running anything from it: {exc}. "
                               f"{_TRUSTED_HINT[0].upper()}{_TRUSTED_HINT[1:]}.") from None
    except RecursionError:
        raise ResultsFileError(f"{where} nests its content too deeply to be read.") from None
    except Exception as exc:  # a well-formed file never gets here: report what broke
        raise ResultsFileError(f"{where} passed its checksum but its content cannot be "
                               f"rebuilt ({type(exc).__name__}: {exc}); it may have been "
                               "written by an fmstats with other classes.") from None


def _checked_type(results, cls: type, where: str, origin: str):
    from ..exceptions import ResultsFileError

    if not isinstance(results, cls):
        hint = (f"; load it with {type(results).__name__}.load()"
                if isinstance(results, Persistable) else "")
        raise ResultsFileError(
            f"{where} holds {_what(results)} ({origin}), not a {cls.__name__}{hint}.")
    return results
