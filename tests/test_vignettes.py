"""Execute every vignette's code cells in order (no Jupyter needed) and check they run."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

VIGNETTES = sorted((Path(__file__).parent.parent / "vignettes").glob("*.ipynb"))
#: vignettes that take 10-40 s each (measured, 2 cores): they would be half of the default
#: run's time, so they run with `pytest -m slow` and in the documentation build (which fails on
#: any error); what their prose claims is tested in the default run by tests/test_reproduce_*
#: and tests/test_vignette_claims.py through the same helpers
SLOW = {"02-fmeasure-maxent.ipynb", "03-fmeasure-svm.ipynb", "04-tuning-and-bootstrap.ipynb",
        "06-cost-sensitive.ipynb", "07-extreme-macro-f.ipynb", "09-how-sure-is-the-f.ipynb",
        "12-out-of-core.ipynb"}


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
