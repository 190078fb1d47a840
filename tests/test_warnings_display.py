"""How a warning reaches its reader (issue 38): attributed to the user's line, not to fmstats'
internals, and -- in the vignettes, with ``fm.brief_warnings()`` -- as one line
``Category: message``."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import MissingDataWarning


@pytest.fixture
def with_na():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x": rng.normal(size=60), "y": np.tile([0, 1], 30)})
    d.loc[:2, "x"] = np.nan
    return d


def test_a_warning_from_deep_inside_fmstats_points_at_the_callers_line(with_na):
    """The NA note is raised in fmstats/formula/_missing.py, three packages below maxent().
    Mutant: the frame walk stopping at fmstats/_utils (as before) attributes it to
    _missing.py, and Python prints that file's ``warn(`` line under the message."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fm.maxent("y ~ x", with_na)
    w = [c for c in caught if issubclass(c.category, MissingDataWarning)]
    assert len(w) == 1
    assert w[0].filename == __file__


def test_brief_warnings_prints_one_line_and_restores_pythons_format(with_na):
    """Python's default ``showwarning`` (what a Jupyter kernel prints to stderr) writes
    ``formatwarning(...)``; pytest replaces ``showwarning``, so the format is asked directly."""
    python_format = warnings.formatwarning
    try:
        fm.brief_warnings()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fm.maxent("y ~ x", with_na)
        w = caught[0]
        shown = warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
    finally:
        fm.brief_warnings(False)
    assert shown == ("MissingDataWarning: dropped 3 of 60 row(s) of `data` with "
                              "missing or non-finite values (x: 3).\n")
    assert warnings.formatwarning is python_format
    assert __file__ in warnings.formatwarning("m", UserWarning, __file__, 1)


def test_brief_warnings_false_leaves_another_format_alone():
    """``brief_warnings(False)`` undoes only its own setting."""
    mine = lambda *a, **k: "mine\n"  # noqa: E731
    saved = warnings.formatwarning
    try:
        warnings.formatwarning = mine
        fm.brief_warnings(False)
        assert warnings.formatwarning is mine
    finally:
        warnings.formatwarning = saved
