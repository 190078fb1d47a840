"""The bundled debtags data (data/debtags_*.npz) and its loader fmstats.datasets.load_debtags."""
from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from fmstats.datasets import _datasets as ds

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def _readme_table() -> dict[str, tuple[str, str]]:
    text = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*`(debtags_[a-z]+\.npz)`\s*\|\s*`([0-9a-f]{64})`\s*\|\s*"
                      r"`([0-9a-f]{64})`", text, flags=re.MULTILINE)
    return {name: (stored, content) for name, stored, content in rows}


@pytest.fixture(scope="module")
def debtags():
    return ds.load_debtags()


def test_readme_lists_both_files():
    assert set(_readme_table()) == set(ds.DEBTAGS_FILES) == {
        p.name for p in DATA_DIR.glob("debtags_*.npz")}


@pytest.mark.parametrize("name", ["debtags_features.npz", "debtags_labels.npz"])
def test_sha256_matches_readme(name):
    stored, content = _readme_table()[name]
    with ds._data_file(name).open("rb") as fh:
        raw = fh.read()
    assert hashlib.sha256(raw).hexdigest() == stored
    h = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        for member in zf.namelist():
            h.update(zf.read(member))
    assert h.hexdigest() == content


def test_total_size_is_small():
    assert sum((DATA_DIR / f).stat().st_size for f in ds.DEBTAGS_FILES) < 10_000_000


def test_shapes_and_types(debtags):
    X, Y, labels, names = debtags
    assert X.shape == (30300, 2 ** 18) and X.format == "csr" and X.dtype == np.float32
    assert Y.shape == (30300, 581) and Y.format == "csr" and Y.dtype == np.uint8
    assert X.nnz == 3_175_792 and Y.nnz == 112_101
    assert labels.shape == (581,) and names.shape == (30300,)


def test_labels_are_valid(debtags):
    _, Y, labels, names = debtags
    assert np.all(Y.data == 1)
    assert np.asarray(Y.sum(axis=1)).min() >= 1          # every package keeps a tag
    assert np.asarray(Y.sum(axis=0)).min() >= 2          # tags of one package dropped
    assert len(set(labels.tolist())) == 581 and list(labels) == sorted(labels)
    assert all("::" in t for t in labels)
    assert len(set(names.tolist())) == 30300 and list(names) == sorted(names)


def test_rows_have_unit_norm(debtags):
    X = debtags.X
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, 1.0, rtol=1e-6)


def test_a_known_package_matches_the_index(debtags):
    """0ad's stanza in the index reads: Section games, Description 'Real-time strategy game
    of ancient warfare', Tag game::strategy, interface::graphical, interface::x11,
    role::program, uitoolkit::sdl, uitoolkit::wxwidgets, use::gameplaying, x11::application."""
    from sklearn.feature_extraction.text import HashingVectorizer

    X, Y, labels, names = debtags
    i = int(np.flatnonzero(names == "0ad")[0])
    assert sorted(labels[Y[i].indices]) == [
        "game::strategy", "interface::graphical", "interface::x11", "role::program",
        "uitoolkit::sdl", "uitoolkit::wxwidgets", "use::gameplaying", "x11::application"]
    text = ["0ad Real-time strategy game of ancient warfare"]
    kw = dict(n_features=2 ** 18, alternate_sign=False, norm=None, binary=True)
    parts = (HashingVectorizer(ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b", **kw)
             .transform(text)
             + HashingVectorizer(analyzer="char_wb", ngram_range=(3, 4), **kw).transform(text)
             + HashingVectorizer(analyzer=lambda s: [s], **kw).transform(["section=games"]))
    cols = np.unique(sp.csr_matrix(parts).indices)
    assert np.array_equal(X[i].indices, cols)
    np.testing.assert_allclose(X[i].data, 1 / np.sqrt(cols.size), rtol=1e-6)


def test_loader_returns_fresh_copies(debtags):
    first = ds.load_debtags()
    first.X.data[:] = 0
    first.labels[0] = "changed"
    second = ds.load_debtags()
    assert second.X.data.max() > 0 and second.labels[0] == debtags.labels[0]
