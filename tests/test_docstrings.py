"""numpydoc-valid docstrings for every public name.

Every function and class in ``fmstats.__all__`` and in the ``__all__`` of each public
subpackage, and every public method and property of those classes (inherited ones from
fmstats' own bases included), is checked by numpydoc's validator
(``numpydoc.validate.validate``) for the errors that break the rendered API pages:

* GL08 the object has no docstring;
* PR01 a parameter is not documented;  PR02 a documented parameter does not exist;
* PR06 a type uses a wrong name (e.g. ``string`` for ``str``);
* PR07 a parameter has no description (e.g. the description sits on the type line);
* PR08 a description does not start with a capital letter;  PR09 nor end with a period;
* RT01 a function that returns something has no Returns section.

A mutant docstring (a parameter dropped from its section, a description moved to the type
line, a Returns section deleted) fails this test; the test prints every offender, so a failing
run is the to-do list.
"""
from __future__ import annotations

import functools
import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

CODES = {"GL08", "PR01", "PR02", "PR06", "PR07", "PR08", "PR09", "RT01"}
NAMESPACES = ["fmstats", "fmstats.measures", "fmstats.formula", "fmstats.glm",
              "fmstats.inference", "fmstats.maxent_models", "fmstats.model_selection", "fmstats.resampling",
              "fmstats.results", "fmstats.datasets", "fmstats.svm", "fmstats.multilabel",
              "fmstats.costsensitive", "fmstats.extreme", "fmstats.prcurve", "fmstats.plotting",
              "fmstats.sklearn", "fmstats.exceptions", "fmstats.calibration",
              "fmstats.multiclass"]


def _members(cls) -> dict[str, object]:
    """The public methods and properties of ``cls`` and of its fmstats bases, each under the
    dotted name of the class that defines it."""
    out = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith("fmstats"):
            continue
        for mname, member in vars(klass).items():
            if mname.startswith("_"):
                continue
            if inspect.isfunction(member) or isinstance(member, (property,
                                                                  functools.cached_property)):
                out.setdefault(f"{klass.__module__}.{klass.__qualname__}.{mname}", member)
    return out


def _public_objects() -> dict[str, str]:
    """Dotted names (defining module + qualname) of the public functions and classes and of
    the public methods and properties of those classes, once each, with the namespace that
    first exports them."""
    out: dict[str, str] = {}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not obj.__module__.startswith("fmstats"):
                continue
            out.setdefault(f"{obj.__module__}.{obj.__qualname__}", ns)
            if inspect.isclass(obj):
                for dotted in _members(obj):
                    out.setdefault(dotted, ns)
    return out


OBJECTS = _public_objects()


def _resolve(name: str):
    """The object at dotted ``name`` (a property as the property, not its value)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = inspect.getattr_static(obj, part)
        return obj
    raise ImportError(name)


def _errors(name: str) -> list[str]:
    obj = _resolve(name)
    if isinstance(obj, (property, functools.cached_property)):
        fget = obj.fget if isinstance(obj, property) else obj.func
        if fget.__name__ == "<lambda>":
            # numpydoc cannot read a lambda's source; its docstring is the property's doc=
            return [] if (obj.__doc__ or "").strip() else [f"{name}: GL08 no docstring"]
    res = numpydoc_validate.validate(name)
    return [f"{name}: {code} {msg}" for code, msg in res["errors"] if code in CODES]


def test_the_walk_finds_the_api():
    assert "fmstats.maxent_models._fitting.maxent" in OBJECTS
    assert len(OBJECTS) > 200


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_docstrings_valid(namespace):
    mine = [o for o, ns in OBJECTS.items() if ns == namespace]
    errors = [e for o in mine for e in _errors(o)]
    print("\n".join(errors))
    assert errors == [], f"{len(errors)} numpydoc errors:\n" + "\n".join(errors)
