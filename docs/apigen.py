"""Write the API reference pages of the documentation from the package's ``__all__`` lists.

Run by ``conf.py`` before Sphinx reads the sources, so every public function and class is on
a page without anyone keeping a list: the top-level ``fmstats`` namespace first, then every
public (non-underscore) subpackage and module.  Each object is documented once, at the
shortest public path that exports it; a module page lists what it merely re-exports with a
link to that page.

A unit's ``__all__`` is its interface to users and to the other units; the names it also lists
in ``_DEVELOPER`` (its developer interface, for extension authors and the other fmstats
units) get their own section, *Developer interface*, on the unit's page.  The deprecated old
module paths of ``fmstats.glm`` (``fmstats.glm.irls``, ...) get no page.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
from pathlib import Path

PACKAGE = "fmstats"

DEVELOPER_NOTE = ("These names serve extension authors and the other fmstats units (the "
                  "numerical cores, the training rows a refit takes, the checks every unit "
                  "shares); they may change between minor versions.")


def _deprecated_paths() -> set[str]:
    from fmstats.glm._moved import OLD_MODULES
    return {f"{PACKAGE}.glm.{name}" for name in OLD_MODULES}


def public_modules(package: str = PACKAGE) -> list[str]:
    """The package and every module or subpackage whose dotted path has no ``_`` part."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        parts = info.name.split(".")
        # private modules and the papers' experiments (not the modelling API) get no pages
        if (not any(part.startswith("_") for part in parts) and "experiments" not in parts
                and info.name not in _deprecated_paths()):
            names.append(info.name)
    # shortest paths first: an object is documented where the fewest dots reach it
    return sorted(names, key=lambda n: (n.count("."), n))


def exported(modname: str) -> list[str]:
    """The module's ``__all__`` without submodules and dunder names."""
    module = importlib.import_module(modname)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and getattr(v, "__module__", None) == modname
                 and (inspect.isclass(v) or inspect.isfunction(v))]
    return [n for n in names if not n.startswith("__")
            and not isinstance(getattr(module, n), types.ModuleType)]


def _title(text: str, mark: str = "=") -> str:
    return f"{text}\n{mark * len(text)}\n"


def _constant_doc(module: types.ModuleType, name: str) -> list[str]:
    """The ``#:`` comment of the constant ``name`` of ``module``: where it is assigned, in the
    module itself or (a package re-exporting it) in one of its submodules."""
    from sphinx.pycode import ModuleAnalyzer

    candidates = [module.__name__]
    if hasattr(module, "__path__"):
        candidates += [info.name for info in pkgutil.iter_modules(module.__path__,
                                                                  module.__name__ + ".")]
    for modname in candidates:
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:       # noqa: BLE001 - a module without source: no comment
            continue
        if ("", name) in docs:
            return [line for line in docs[("", name)] if line.strip()]
    return []


def _entries(module: types.ModuleType, names: list[str]) -> list[str]:
    """rst for ``names`` of ``module``: an autosummary of the functions and classes, then each
    constant as ``py:data`` with its value and its ``#:`` comment (autosummary would show the
    docstring of its type: "Built-in immutable sequence")."""
    objects = [n for n in names if inspect.isclass(getattr(module, n))
               or callable(getattr(module, n))]
    out = []
    if objects:
        out.append(".. autosummary::\n   :toctree: generated/\n\n")
        out += [f"   {name}\n" for name in objects]
        out.append("\n")
    for name in names:
        if name in objects:
            continue
        value = repr(getattr(module, name)).replace("\n", " ")
        out.append(f".. py:data:: {name}\n   :value: {value}\n\n")
        out += [f"   {line}\n" for line in _constant_doc(module, name)]
        out.append("\n")
    return out


def write_pages(outdir: Path) -> list[str]:
    """Write one ``<module>.rst`` per public module into ``outdir``; return the module names."""
    outdir.mkdir(parents=True, exist_ok=True)
    documented: dict[int, str] = {}   # id(object) -> the full name it is documented under
    modules = public_modules()
    written = []
    for modname in modules:
        module = importlib.import_module(modname)
        own, elsewhere = [], []
        developer = set(getattr(module, "_DEVELOPER", ()))
        for name in exported(modname):
            obj = getattr(module, name)
            key = id(obj)
            # only functions and classes are shared by identity; constants (ints, tuples)
            # may be equal objects by accident, so each module documents its own
            if (inspect.isclass(obj) or callable(obj)) and key in documented:
                elsewhere.append(documented[key])
                continue
            documented[key] = f"{modname}.{name}"
            own.append(name)
        lines = [_title(f"``{modname}``")]
        # a module whose name is also a documented function (fmstats.maxent is both) is
        # not indexed, or Sphinx would see two descriptions of one name
        parent, _, leaf = modname.rpartition(".")
        shadowed = bool(parent) and not isinstance(
            getattr(importlib.import_module(parent), leaf), types.ModuleType)
        lines.append(f".. automodule:: {modname}\n   :no-members:\n"
                     + ("   :no-index:\n" if shadowed else "") + "\n")
        lines.append(f".. currentmodule:: {modname}\n\n")
        for name in own:
            # a constant is a py:data entry of the page, not an autosummary stub (one left
            # by an older build would describe it twice)
            stub = outdir / "generated" / f"{modname}.{name}.rst"
            if not (inspect.isclass(getattr(module, name)) or callable(getattr(module, name))):
                stub.unlink(missing_ok=True)
        lines += _entries(module, [name for name in own if name not in developer])
        devs = [name for name in own if name in developer]
        if devs:
            lines.append(_title("Developer interface", "-") + "\n" + DEVELOPER_NOTE + "\n\n")
            lines += _entries(module, devs)
        if elsewhere:
            lines.append("Also exported here (documented under the shorter path):\n\n")
            lines += [f"* :obj:`{full}`\n" for full in elsewhere]
            lines.append("\n")
        (outdir / f"{modname}.rst").write_text("".join(lines), encoding="utf-8")
        written.append(modname)
    return written
