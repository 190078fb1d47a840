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
        users = [name for name in own if name not in developer]
        if users:
            lines.append(".. autosummary::\n   :toctree: generated/\n\n")
            lines += [f"   {name}\n" for name in users]
            lines.append("\n")
        devs = [name for name in own if name in developer]
        if devs:
            lines.append(_title("Developer interface", "-") + "\n" + DEVELOPER_NOTE + "\n\n")
            lines.append(".. autosummary::\n   :toctree: generated/\n\n")
            lines += [f"   {name}\n" for name in devs]
            lines.append("\n")
        if elsewhere:
            lines.append("Also exported here (documented under the shorter path):\n\n")
            lines += [f"* :obj:`{full}`\n" for full in elsewhere]
            lines.append("\n")
        (outdir / f"{modname}.rst").write_text("".join(lines), encoding="utf-8")
        written.append(modname)
    return written
