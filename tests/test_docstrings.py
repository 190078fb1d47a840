"""numpydoc-valid docstrings for every public name (issue 25).

Every function and class in ``fmstats.__all__`` and in the ``__all__`` of each public
subpackage, and every public method of those classes, is checked by numpydoc's validator
(``numpydoc.validate.validate``) for the parameter errors that break the rendered API pages:

* PR01 a parameter is not documented;  PR02 a documented parameter does not exist;
* PR06 a type uses a wrong name (e.g. ``string`` for ``str``);
* PR07 a parameter has no description (e.g. the description sits on the type line);
* PR08 a description does not start with a capital letter;  PR09 nor end with a period.

A mutant docstring (a parameter dropped from its section, a description moved to the type
line) fails this test; the test prints every offender, so a failing run is the to-do list.
"""
from __future__ import annotations

import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

CODES = {"PR01", "PR02", "PR06", "PR07", "PR08", "PR09"}
NAMESPACES = ["fmstats", "fmstats.measures", "fmstats.formula", "fmstats.glm",
              "fmstats.maxent_models", "fmstats.model_selection", "fmstats.resampling",
              "fmstats.results", "fmstats.datasets", "fmstats.svm", "fmstats.multilabel",
              "fmstats.costsensitive", "fmstats.extreme", "fmstats.prcurve", "fmstats.plotting",
              "fmstats.sklearn", "fmstats.exceptions", "fmstats.calibration",
              "fmstats.multiclass"]


def _public_objects() -> list[str]:
    """Dotted names (defining module + qualname) of the public functions, classes and
    the public methods of those classes, once each."""
    out: dict[str, None] = {}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not obj.__module__.startswith("fmstats"):
                continue
            out[f"{obj.__module__}.{obj.__qualname__}"] = None
            if inspect.isclass(obj):
                for mname, meth in vars(obj).items():
                    if mname.startswith("_") or not inspect.isfunction(meth):
                        continue
                    out[f"{obj.__module__}.{meth.__qualname__}"] = None
    return list(out)


OBJECTS = _public_objects()


def _errors(name: str) -> list[str]:
    res = numpydoc_validate.validate(name)
    return [f"{name}: {code} {msg}" for code, msg in res["errors"] if code in CODES]


def test_the_walk_finds_the_api():
    assert "fmstats.maxent_models._fitting.maxent" in OBJECTS
    assert len(OBJECTS) > 200


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_parameters_documented(namespace):
    mod = importlib.import_module(namespace)
    mine = [o for o in OBJECTS if any(
        o == f"{getattr(mod, n).__module__}.{getattr(mod, n).__qualname__}"
        or o.startswith(f"{getattr(mod, n).__module__}.{getattr(mod, n).__qualname__}.")
        for n in getattr(mod, "__all__", [])
        if inspect.isfunction(getattr(mod, n)) or inspect.isclass(getattr(mod, n)))]
    errors = [e for o in mine for e in _errors(o)]
    print("\n".join(errors))
    assert errors == [], f"{len(errors)} numpydoc parameter errors:\n" + "\n".join(errors)
