"""Execute every vignette's code cells in order (no Jupyter needed) and check they run."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.ipynb"))
#: vignettes too long for the default run (07 trains a label tree on debtags, ~40 s of the
#: default suite's budget): they run with `pytest -m slow` and in the documentation build
SLOW = {"07-extreme-macro-f.ipynb"}


@pytest.mark.notebook
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p
                                  for p in VIGNETTES], ids=[p.name for p in VIGNETTES])
def test_vignette_runs(path, monkeypatch, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    nb = json.loads(path.read_text())
    assert nb["nbformat"] == 4
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert not cell.get("outputs"), f"{path.name}: outputs must be stripped in git"
    namespace: dict = {}
    stray = []
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        source = "".join(cell["source"])
        with warnings.catch_warnings(record=True) as caught:
            # a vignette shows fmstats' warnings to its reader; here they must not abort the run
            warnings.simplefilter("always")
            exec(compile(source, f"{path.name}[cell {i}]", "exec"), namespace)  # noqa: S102
        expected = set(cell.get("metadata", {}).get("fmstats", {}).get("expected_warnings", []))
        stray += [f"cell {i}: {w.category.__name__}: {w.message}" for w in caught
                  if w.category.__name__ not in expected]
    assert namespace, "the vignette defined nothing"
    # A warning in a vignette's output must be one the vignette is about: such a cell names
    # it in its metadata {"fmstats": {"expected_warnings": ["SeparationWarning"]}}.
    assert not stray, f"{path.name}: stray warnings in the output:\n" + "\n".join(stray)
