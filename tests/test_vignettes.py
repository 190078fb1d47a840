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
    # the vignette sets the warnings' format (brief_warnings()): Python's again afterwards
    monkeypatch.setattr(warnings, "formatwarning", warnings.formatwarning)
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


@pytest.mark.parametrize("path", VIGNETTES, ids=[p.name for p in VIGNETTES])
def test_vignette_cells_have_ids(path):
    """nbformat 4.5's rule (its schema): every cell has an id of 1-64 letters, digits, '-' or
    '_', unique in the notebook; without one nbformat warns on every read (Jupyter, myst-nb)
    and adds a random id, so a saved notebook changes each time it is opened."""
    import re

    nb = json.loads(path.read_text())
    assert (nb["nbformat"], nb["nbformat_minor"]) >= (4, 5)
    ids = [cell.get("id") for cell in nb["cells"]]
    bad = [i for i, cid in enumerate(ids)
           if not (isinstance(cid, str) and re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", cid))]
    assert not bad, f"{path.name}: cells {bad} have no valid id"
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"
    try:                                        # the docs extra; the rule above holds anyway
        import nbformat
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # "Cell is missing an id field" and the like
        nbformat.validate(nbformat.reads(path.read_text(), as_version=nbformat.NO_CONVERT))


@pytest.mark.parametrize("path", VIGNETTES, ids=[p.name for p in VIGNETTES])
def test_vignette_shows_warnings_as_one_line(path):
    """Its first code cell calls ``brief_warnings()`` (``fm.brief_warnings()``): the warnings
    it shows read "Category: message", without the kernel's temporary file path and source
    line (tests/test_warnings_display.py checks the format)."""
    nb = json.loads(path.read_text())
    first = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
    assert "brief_warnings()" in first, f"{path.name}: first cell"
