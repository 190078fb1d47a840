"""``save()`` / ``load()`` for every fmstats results type: one mixin, one file format.

Used by (each inherits :class:`Persistable`):

* ``results.ModelResults``: maxent, umaxent, fmaxent, wsvm, fsvm, costsens and the Dask fits;
* ``_tuned.Tuned``: cv_tune and tune_threshold;
* ``bootstrap.BootstrapResults``, ``validate.ValidateResults``, ``qresample.ResampledF``;
* ``multilabel.models.MultilabelResults``: br and pcc;
* ``extreme.probabilistic_label_tree.PLTResults``, ``extreme.thresholds.ThresholdFit`` (sto, fta, ofo) and
  ``extreme.spe.SPE``.

File format (:data:`FORMAT_VERSION` 1): a pickle of the dict
``{"fmstats_results": 1, "class": "<module>.<QualName>", "fmstats_version": "<x.y.z>",
"results": <the object>}``.  ``Cls.load(path)`` checks the envelope and the format, and that
the object is an instance of ``Cls`` (``Persistable.load`` accepts any results type); it
raises a :class:`~fmstats.exceptions.DataError` that says what the file holds otherwise.  A
bare pickle of a results object (files written before format 1) is still read, with the same
type check.  Pickles can run code when read: only load files you trust.
"""
from __future__ import annotations

import pickle
from typing import Any

__all__ = ["Persistable", "FORMAT_VERSION"]

#: Version of the file layout written by :meth:`Persistable.save`.
FORMAT_VERSION = 1

_KEY = "fmstats_results"


def _class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _what(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(map(repr, list(obj)[:5])) + (", ..." if len(obj) > 5 else "")
        return f"a dict (keys {keys})" if obj else "an empty dict"
    return f"a {_class_path(type(obj))}"


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
        """Pickle the results to ``path`` with the file format version and the class name.

        Everything the object holds is stored (for model fits: the design and the fitted
        values as well as the coefficients; a ``maxent(..., keep_data=False)`` fit holds no
        design, only n-length vectors, so its file is small); cached derived statistics are
        not.  Read it
        back with ``type(results).load(path)``.

        Parameters
        ----------
        path : str or path-like
            The file to write.
        """
        from .._version import __version__

        envelope = {_KEY: FORMAT_VERSION, "class": _class_path(type(self)),
                    "fmstats_version": __version__, "results": self}
        with open(path, "wb") as fh:
            pickle.dump(envelope, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path):
        """Results saved with :meth:`save`, checked to be a ``cls`` (only load files you trust).

        Raises :class:`~fmstats.exceptions.DataError` naming ``path`` when the file is
        truncated or not a pickle, was written by a newer file format, refers to classes
        this fmstats does not have, or holds something other than ``cls`` results.

        Parameters
        ----------
        path : str or path-like
            The file written by :meth:`save`.
        """
        from ..exceptions import DataError

        where = f"`path` {str(path)!r}"
        with open(path, "rb") as fh:
            try:
                obj = pickle.load(fh)
            except (pickle.UnpicklingError, EOFError, ValueError) as exc:
                raise DataError(
                    f"{where} is not a complete fmstats results file (it must be written by "
                    f"save() and read back whole); unpickling failed: {exc}.") from None
            except (AttributeError, ImportError) as exc:
                raise DataError(
                    f"{where} refers to a class this fmstats does not have ({exc}); it was "
                    "probably saved by another fmstats version.") from None
        if isinstance(obj, dict) and _KEY in obj:
            version, saved_by = obj[_KEY], obj.get("fmstats_version", "unknown")
            if not isinstance(version, int) or isinstance(version, bool):
                raise DataError(f"{where} has an invalid results file format {version!r}.")
            if version > FORMAT_VERSION:
                raise DataError(
                    f"{where} uses results file format {version} (saved by fmstats "
                    f"{saved_by}); this fmstats reads format {FORMAT_VERSION} at most: "
                    "upgrade fmstats to load it.")
            if "results" not in obj:
                raise DataError(f"{where} is an fmstats results file without results.")
            results, origin = obj["results"], f"format {version}, fmstats {saved_by}"
        elif isinstance(obj, Persistable):
            results, origin = obj, "a bare pickle written before format 1"
        else:
            raise DataError(
                f"{where} holds {_what(obj)}, not fmstats results written by save(); "
                f"expected {cls.__name__}.")
        if not isinstance(results, cls):
            hint = (f"; load it with {type(results).__name__}.load()"
                    if isinstance(results, Persistable) else "")
            raise DataError(
                f"{where} holds {_what(results)} ({origin}), not a {cls.__name__}{hint}.")
        return results
