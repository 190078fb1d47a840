"""The package's architecture rules, checked by reading every module with ``ast``.

Rules (ARCHITECTURE.md):

* a module never imports another module's private (single-underscore) name, neither with
  ``from fmstats.x import _name`` / ``from .x import _name`` nor as ``x._name`` on an
  imported fmstats module; public names of underscore modules are fine;
* no import cycle between modules (top-level and function-level imports both count;
  a package ``__init__`` that only re-exports is not a node of the graph: an import of a
  name from a package is followed to the submodule that defines it);
* every module has at most 800 lines;
* ``fmstats/maxent_models/_maxent.py`` and ``_fmaxent.py`` import nothing from Dask or
  out-of-core code.

Each test prints every offender, so a failing run is the to-do list.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fmstats

PACKAGE_DIR = Path(fmstats.__file__).resolve().parent
MAX_LINES = 800
# modules that hold out-of-core (Dask) code; maxent.py / fmaxent.py may not import them
OUT_OF_CORE = {"fmstats.maxent_models._outofcore", "fmstats.glm._dask", "fmstats.glm._daskrows", "fmstats.formula._dask"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _collect_modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for p in sorted(PACKAGE_DIR.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


MODULES = _collect_modules()
PACKAGES = {name for name, p in MODULES.items() if p.name == "__init__.py"}
TREES = {name: ast.parse(p.read_text(), filename=str(p)) for name, p in MODULES.items()}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _resolve_from(module: str, node: ast.ImportFrom) -> str:
    """The absolute module named by a (possibly relative) ``from ... import``."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if module in PACKAGES else module.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _package_exports(package: str) -> dict[str, str]:
    """For a package ``__init__``: the submodule each re-exported name comes from."""
    out: dict[str, str] = {}
    for node in ast.walk(TREES[package]):
        if isinstance(node, ast.ImportFrom):
            target = _resolve_from(package, node)
            for alias in node.names:
                bound = alias.asname or alias.name
                sub = f"{target}.{alias.name}"
                out[bound] = sub if sub in MODULES else target
    return out


def _follow(target: str, name: str | None = None) -> str | None:
    """The module an import of ``target`` (and optionally ``name`` from it) depends on.

    A package is followed through its re-exports to the defining submodule; an import
    of a bare package with no name gives no edge (``None``)."""
    seen = set()
    while target in PACKAGES and name is not None and (target, name) not in seen:
        seen.add((target, name))
        sub = f"{target}.{name}"
        if sub in MODULES:
            return sub
        nxt = _package_exports(target).get(name)
        if nxt is None or nxt == target:
            return None
        target = nxt
        if target not in PACKAGES:
            return target
    if target in PACKAGES:
        return None
    return target if target in MODULES else None


class _Imports:
    """Imports of one module: fmstats edges, private-name offences, external roots."""

    def __init__(self, module: str):
        self.module = module
        self.edges: set[str] = set()
        self.private: list[str] = []
        self.external: set[str] = set()
        self.module_aliases: dict[str, str] = {}  # local name -> fmstats module

    def _edge(self, target: str | None) -> None:
        if target and target != self.module and target.startswith("fmstats"):
            self.edges.add(target)

    def add_import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not alias.name.startswith("fmstats"):
                self.external.add(alias.name)
                continue
            self._edge(_follow(alias.name))
            if alias.asname:
                self.module_aliases[alias.asname] = alias.name
            else:
                self.module_aliases.setdefault("fmstats", "fmstats")

    def add_import_from(self, node: ast.ImportFrom) -> None:
        target = _resolve_from(self.module, node)
        if not target.startswith("fmstats"):
            self.external.add(target)
            return
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            if sub in MODULES:  # a module, not a name
                self.module_aliases[alias.asname or alias.name] = sub
                self._edge(_follow(sub))
                continue
            self._edge(_follow(target, alias.name))
            if _is_private(alias.name) and target != self.module:
                self.private.append(
                    f"{self.module} (line {node.lineno}): from {target} import {alias.name}"
                )

    def _dotted(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.module_aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._dotted(node.value)
            if base is None:
                return None
            return f"{base}.{node.attr}"
        return None


def _scan(module: str) -> _Imports:
    v = _Imports(module)
    # imports first (anywhere in the module), so aliases are known to attribute access
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Import):
            v.add_import(node)
        elif isinstance(node, ast.ImportFrom):
            v.add_import_from(node)
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Attribute):
            base = v._dotted(node.value)
            if base is not None and base in MODULES:
                full = f"{base}.{node.attr}"
                if full in MODULES:
                    v._edge(_follow(full))
                else:
                    v._edge(_follow(base, node.attr))
                    if _is_private(node.attr) and base != module:
                        v.private.append(f"{module} (line {node.lineno}): {base}.{node.attr}")
    return v


SCANS = {name: _scan(name) for name in MODULES}


def _graph() -> dict[str, set[str]]:
    return {
        m: {t for t in s.edges if t not in PACKAGES}
        for m, s in SCANS.items()
        if m not in PACKAGES
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through every strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)

    cycles = []
    for comp in components:
        members = set(comp)
        start = comp[0]
        # breadth-first search for the shortest path back to start inside the component
        parent = {start: None}
        queue = [start]
        found = None
        while queue and found is None:
            nxt = []
            for v in queue:
                for w in sorted(graph[v] & members):
                    if w == start:
                        found = v
                        break
                    if w not in parent:
                        parent[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            queue = nxt
        path = []
        v = found
        while v is not None:
            path.append(v)
            v = parent[v]
        cycles.append(list(reversed(path)) + [start])
    return cycles


def test_scanner_sees_the_package():
    # the walk must find the modules and their imports, or every other test passes vacuously
    assert "fmstats.maxent_models._maxent" in MODULES and "fmstats.glm._irls" in MODULES
    assert "fmstats.glm" in PACKAGES
    assert "fmstats.exceptions" in SCANS["fmstats.maxent_models._maxent"].edges
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_cross_imports():
    def line_no(text: str) -> int:
        return int(text.split("(line ", 1)[1].split(")", 1)[0])

    offenders = [
        line for m in sorted(SCANS) for line in sorted(set(SCANS[m].private), key=line_no)
    ]
    print("\n".join(["private cross-imports:"] + offenders))
    assert offenders == [], f"{len(offenders)} private cross-imports:\n" + "\n".join(offenders)


def test_no_import_cycles():
    cycles = _cycles(_graph())
    text = [" -> ".join(c) for c in cycles]
    print("\n".join(["import cycles:"] + text))
    assert cycles == [], "import cycles:\n" + "\n".join(text)


def test_modules_at_most_800_lines():
    long = {
        name: len(p.read_text().splitlines())
        for name, p in MODULES.items()
        if len(p.read_text().splitlines()) > MAX_LINES
    }
    print("modules over", MAX_LINES, "lines:", long)
    assert long == {}


@pytest.mark.parametrize("module", ["fmstats.maxent_models._maxent",
                                    "fmstats.maxent_models._fmaxent"])
def test_maxent_cores_hold_no_out_of_core_code(module):
    scan = SCANS[module]
    bad = sorted(
        {e for e in scan.external if e.split(".")[0] == "dask"}
        | {e for e in scan.edges if e in OUT_OF_CORE}
    )
    assert bad == [], f"{module} imports out-of-core code: {bad}"
    # no code names a Dask thing either (docstrings and messages may mention Dask DataFrames)
    names = sorted({n.id for n in ast.walk(TREES[module]) if isinstance(n, ast.Name)}
                   | {n.attr for n in ast.walk(TREES[module]) if isinstance(n, ast.Attribute)}
                   | {n.name for n in ast.walk(TREES[module])
                      if isinstance(n, (ast.FunctionDef, ast.ClassDef))})
    assert [n for n in names if "dask" in n.lower()] == [], f"{module} holds Dask code"


# ----------------------------------------------------------------------------- the layout
ARCHITECTURE = PACKAGE_DIR.parent / "ARCHITECTURE.md"


def _unit(module: str) -> str:
    """The unit of the table a module belongs to: its subpackage, or its top-level module
    (``fmstats/__init__``, ``__main__`` and ``_version`` are the unit ``fmstats``)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("__main__", "_version"):
        return "fmstats"
    return parts[1]


def _table() -> dict[str, tuple[set, set]]:
    """ARCHITECTURE.md's table: unit -> (allowed module-level imports, allowed lazy ones)."""
    rows = {}
    for line in ARCHITECTURE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        unit = cells[0].strip("`")

        def units(cell):
            if cell == "*":
                return {"*"}
            return {c.strip().strip("`") for c in cell.split(",") if c.strip() not in ("-", "")}

        rows[unit] = (units(cells[2]), units(cells[3]))
    return rows


TABLE = _table()


def _imports_by_level(module: str):
    """(module-level, function-level) lists of (imported fmstats module, line)."""
    tree = TREES[module]
    inner = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner |= {id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}
    top, lazy = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve_from(module, node)
            if not target.startswith("fmstats"):
                continue
            subs = [f"{target}.{a.name}" for a in node.names]
            # ``from fmstats.glm import irls`` imports the module fmstats.glm.irls
            names = ([target] + [s for s in subs if s in MODULES]) if node.module else subs
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.startswith("fmstats")]
        else:
            continue
        (lazy if id(node) in inner else top).extend((n, node.lineno) for n in names)
    return top, lazy


def test_the_table_names_every_unit():
    units = {_unit(m) for m in MODULES}
    missing = sorted(units - set(TABLE))
    assert "maxent_models" in TABLE and "exceptions" in TABLE
    assert missing == [], f"units without a row in ARCHITECTURE.md's table: {missing}"


def test_imports_follow_the_table():
    """Mutant: ``from ..resampling import bootstrap`` at the top of a maxent module (a model
    importing the resampling layer above it) or ``from ..svm import ...`` in ``measures``."""
    offenders = []
    for module in sorted(MODULES):
        unit = _unit(module)
        allowed, lazily = TABLE[unit]
        top, lazy = _imports_by_level(module)
        for level, found, ok in (("module level", top, allowed),
                                 ("inside a function", lazy, allowed | lazily)):
            for target, line in found:
                tu = _unit(target)
                if tu == unit or "*" in ok or tu == "fmstats" and target == "fmstats":
                    continue
                if tu not in ok:
                    offenders.append(f"{module} (line {line}, {level}): imports {target} "
                                     f"({unit} may not import {tu})")
    print("\n".join(["imports against the table:"] + offenders))
    assert offenders == [], "\n".join(offenders)


def test_other_units_are_reached_through_their_init():
    """A subpackage's modules are private: another unit imports ``fmstats.svm``, never
    ``fmstats.svm._wsvm``, nor a module of it with a public-looking name (``fmstats.glm.irls``
    before glm's modules became private); ``_utils``, the private foundation, is imported
    by module.  Mutant: ``from ..glm._irls import irls_logit`` or ``from ..glm import _irls``
    in a maxent module."""
    offenders = []
    for module in sorted(MODULES):
        unit = _unit(module)
        if unit in ("experiments", "fmstats"):
            continue
        top, lazy = _imports_by_level(module)
        for target, line in top + lazy:
            parts = target.split(".")
            tu = _unit(target)
            if tu in (unit, "_utils") or len(parts) < 3:
                continue
            if target in MODULES and target not in PACKAGES:
                offenders.append(f"{module} (line {line}): imports the module {target}, not "
                                 f"through {'.'.join(parts[:2])}")
    print("\n".join(offenders))
    assert offenders == [], "\n".join(offenders)


def test_small_top_level_and_no_ambient_state():
    top = sorted(p.name for p in PACKAGE_DIR.glob("*.py"))
    assert len(top) <= 10, top
    ambient = sorted(str(p.relative_to(PACKAGE_DIR)) for p in PACKAGE_DIR.rglob("*.py")
                     if "ContextVar" in p.read_text())
    assert ambient == [], f"ContextVar (ambient state) in {ambient}"


def test_one_percentile_rule():
    """Equal-tailed intervals of replicates or draws take their quantiles in one place
    (``inference.tail_quantiles``, issue 43), not inline.  Mutant: calibration's
    ``np.quantile(eces, [(1 - level) / 2, (1 + level) / 2])`` back."""
    import re

    inline = re.compile(r"quantile\([^)]*\[\s*(a\s*,\s*1\s*-\s*a|\(1\s*-\s*level\)\s*/\s*2\s*,)"
                        r"|\(1\s*\+\s*level\)\s*/\s*2|=\s*\[\(1\s*-\s*level\)\s*/\s*2")
    offenders = [f"{name}: {m.group(0)}" for name, p in sorted(MODULES.items())
                 if name != "fmstats.inference._percentile"
                 for m in inline.finditer(p.read_text())]
    assert offenders == [], "\n".join(offenders)


# ----------------------------------------------------------------------------- interfaces
#: the shared private toolbox every unit imports by name (ARCHITECTURE.md: ``_utils``, and the
#: errors and warnings): not an interface between units, so not held to ``__all__``
SHARED = {"_utils", "exceptions"}


def _interface(unit: str) -> set[str]:
    """``fmstats.<unit>.__all__``: a unit's interface to users and to the other units."""
    import importlib

    return set(importlib.import_module(f"fmstats.{unit}").__all__)


def _outside_interface(module: str) -> list[str]:
    """The names ``module`` imports from another unit that are not in its ``__all__``: by
    ``from ..unit import name``, or as ``unit.name`` on an imported unit
    (``from .. import measures as _m``; ``_m.pooled_f``)."""
    unit = _unit(module)
    path = MODULES[module].relative_to(PACKAGE_DIR.parent)
    out = []
    scan = SCANS[module]
    for node in ast.walk(TREES[module]):
        if not isinstance(node, ast.Attribute):
            continue
        base = scan._dotted(node.value)
        if base is None or base.count(".") != 1 or base not in MODULES:
            continue
        tu = _unit(base)
        if tu in (unit, "fmstats") or tu in SHARED or f"{base}.{node.attr}" in MODULES:
            continue
        if node.attr not in _interface(tu):
            out.append(f"{path} (line {node.lineno}): uses {tu}.{node.attr}, not in "
                       f"fmstats.{tu}.__all__")
    for node in ast.walk(TREES[module]):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = _resolve_from(module, node)
        parts = target.split(".")
        if parts[0] != "fmstats" or len(parts) != 2:
            continue            # a unit's own module (``from ..glm._irls``): refused above
        tu = _unit(target)
        if tu in (unit, "fmstats") or tu in SHARED:
            continue
        for alias in node.names:
            if f"{target}.{alias.name}" in MODULES:     # ``from .. import plotting``
                continue
            if alias.name not in _interface(tu):
                out.append(f"{path} (line {node.lineno}): imports {alias.name} from {tu}, "
                           f"not in fmstats.{tu}.__all__")
    return out


def test_units_import_only_each_others_interface():
    """``__all__`` is a unit's interface: a name another unit imports must be in it (the
    user API, or the developer interface listed in the unit's ``_DEVELOPER``).  ``_utils`` and
    ``exceptions`` are the shared toolbox; ``experiments`` (the papers' code, every unit) and
    the top unit ``fmstats`` (its ``__init__`` re-exports) import anything.  Mutants:
    ``from ..glm import as_design`` in a maxent module, ``check_frame`` dropped from
    ``fmstats.formula.__all__``, ``pooled_f`` dropped from ``fmstats.measures.__all__`` (used
    as ``measures.pooled_f`` by model_selection)."""
    offenders = [line for module in sorted(MODULES)
                 if _unit(module) not in ("experiments", "fmstats")
                 for line in _outside_interface(module)]
    print("\n".join(["imports of names outside the unit's __all__:"] + offenders))
    assert offenders == [], f"{len(offenders)} imports of names outside __all__:\n" + "\n".join(
        offenders)


def test_developer_interface_is_part_of_all():
    """Each unit's ``_DEVELOPER`` (its developer interface, on the API page's *Developer
    interface* section) names only names of its ``__all__``."""
    import importlib

    units = sorted({_unit(m) for m in MODULES} - {"fmstats", "experiments"} - SHARED)
    seen = 0
    for unit in units:
        mod = importlib.import_module(f"fmstats.{unit}")
        dev = getattr(mod, "_DEVELOPER", ())
        seen += len(dev)
        assert set(dev) <= set(mod.__all__), (unit, sorted(set(dev) - set(mod.__all__)))
        assert len(set(dev)) == len(dev), unit
    assert seen > 0


def test_old_glm_paths_are_not_imported_by_fmstats():
    """``fmstats.glm.irls`` etc. are deprecation shims for user code (they warn on import):
    no module of fmstats imports them, at module level or lazily."""
    from fmstats.glm._moved import OLD_MODULES

    old = {f"fmstats.glm.{name}" for name in OLD_MODULES}
    assert old <= set(MODULES)          # the shims are there and scanned
    offenders = [f"{module} (line {line}): imports {target}" for module in sorted(MODULES)
                 for target, line in sum(_imports_by_level(module), [])
                 if target in old and module not in old]
    assert offenders == [], "\n".join(offenders)
