"""The API pages docs/apigen.py writes: every unit's ``__all__``, its developer interface
(``_DEVELOPER``) in a section of its own, constants with their values and ``#:`` comments, no
page for the deprecated old module paths of glm."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")     # the constants' comments are read by sphinx.pycode

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    sys.path.insert(0, str(DOCS))
    try:
        apigen = importlib.import_module("apigen")
        out = tmp_path_factory.mktemp("api")
        written = apigen.write_pages(out)
    finally:
        sys.path.remove(str(DOCS))
    return written, {p.stem: p.read_text() for p in out.glob("*.rst")}, apigen


def _sections(text: str) -> tuple[str, str]:
    user, _, developer = text.partition("Developer interface\n-------------------\n")
    return user, developer


def test_developer_names_get_their_own_section(pages):
    _, text, apigen = pages
    user, developer = _sections(text["fmstats.glm"])
    assert apigen.DEVELOPER_NOTE in developer
    assert "   irls_logit\n" in developer and "   irls_logit\n" not in user
    assert "   newton_block\n" in user and "   newton_block\n" not in developer
    import fmstats.glm as glm
    for name in glm.__all__:              # every name once, in its section
        where = developer if name in glm._DEVELOPER else user
        assert f"   {name}\n" in where or f".. py:data:: {name}\n" in where, name
    user, developer = _sections(text["fmstats.results"])
    assert "   training_frame\n" in developer and "   ModelResults\n" in user
    # a unit without developer names has no such section
    assert "Developer interface" not in text["fmstats.datasets"]


def test_constants_show_their_value_and_comment(pages):
    _, text, _ = pages
    _, developer = _sections(text["fmstats.glm"])
    block = developer.split(".. py:data:: SATURATION\n", 1)[1].split("\n\n", 2)
    assert block[0] == "   :value: 1e-08"
    assert block[1].lstrip().startswith("A fitted probability this close to 0 or 1")
    assert "   SATURATION\n" not in developer        # not in the autosummary


def test_old_glm_paths_have_no_page(pages):
    written, text, _ = pages
    assert "fmstats.glm" in written and "fmstats.glm.irls" not in written
    assert not [name for name in text if name.startswith("fmstats.glm.")]
