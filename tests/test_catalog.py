"""The data-set catalogue: every stated shape is the loaded shape, every loader is listed,
and ``python -m fmstats datasets`` prints all of them."""
from __future__ import annotations

import subprocess
import sys

import pytest

import fmstats as fm
from fmstats.datasets._catalog import CATALOG


def _shape(entry):
    obj = eval("fm.datasets." + entry.loader, {"fm": fm})   # noqa: S307 - our own strings
    if isinstance(obj, fm.datasets.Debtags):
        return obj.X.shape[0], obj.X.shape[1], obj.Y.shape[1]
    labels = (len(fm.datasets.yeast_label_names()) if entry.name == "yeast" else None)
    return obj.shape[0], obj.shape[1], labels


@pytest.mark.parametrize("entry", CATALOG, ids=[e.name for e in CATALOG])
def test_stated_shape_is_the_loaded_shape(entry):
    assert _shape(entry) == (entry.rows, entry.columns, entry.labels)


def test_every_loader_is_listed():
    loaders = {n for n in fm.datasets.__all__ if n.startswith("load_")}
    listed = {e.loader.split("(")[0] for e in CATALOG}
    assert loaders == listed


def test_table_columns_and_licences():
    table = fm.datasets.list_datasets()
    assert list(table.columns) == ["name", "rows", "columns", "labels", "source", "licence",
                                   "loader"]
    assert len(table) == len(CATALOG) and table["licence"].str.len().min() > 5
    assert table.set_index("name").loc["debtags", "labels"] == 581


def test_command_line_lists_all_datasets():
    out = subprocess.run([sys.executable, "-m", "fmstats", "datasets"], capture_output=True,
                         text=True, check=True).stdout
    for e in CATALOG:
        assert e.loader in out and f"{e.rows:,}" in out
    assert "debtags" in out and "data/README.md" in out
