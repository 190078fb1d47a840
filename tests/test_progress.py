"""When progress bars appear: the automatic rule of fmstats._utils.progress, and that forced-off
bars write nothing while forced-on bars do write to standard error."""
from __future__ import annotations

import io
import sys
import types

import numpy as np
import pytest

from fmstats._utils import progress as _progress
from fmstats._utils.parallel import run_tasks
from fmstats._utils.progress import ENV_VAR, progress_enabled
from fmstats.exceptions import InvalidArgumentError


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    return monkeypatch


@pytest.mark.parametrize("tty, expected", [(True, True), (False, False)])
def test_auto_follows_the_terminal(clean_env, tty, expected):
    clean_env.setattr(sys, "stderr", _Stream(tty))
    assert progress_enabled(None) is expected


@pytest.mark.parametrize("widgets, expected", [(True, True), (False, False)])
def test_auto_in_a_kernel_needs_widgets(clean_env, widgets, expected):
    # a kernel without ipywidgets would get tqdm's text fallback: one stderr chunk per update
    clean_env.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    clean_env.setattr(sys, "stderr", _Stream(True))
    clean_env.setattr(_progress, "_widgets_available", lambda: widgets)
    assert progress_enabled(None) is expected


@pytest.mark.parametrize("value, tty, expected",
                         [("0", True, False), ("off", True, False), ("1", False, True)])
def test_environment_variable_overrides_auto(clean_env, value, tty, expected):
    clean_env.setenv(ENV_VAR, value)
    clean_env.setattr(sys, "stderr", _Stream(tty))
    assert progress_enabled(None) is expected


def test_explicit_argument_beats_environment(clean_env):
    clean_env.setenv(ENV_VAR, "0")
    assert progress_enabled(True) is True
    clean_env.setenv(ENV_VAR, "1")
    assert progress_enabled(False) is False


def test_bad_progress_names_the_argument():
    with pytest.raises(InvalidArgumentError, match="`progress` must be True, False or None"):
        progress_enabled("yes")


@pytest.mark.parametrize("progress, writes", [(False, False), (True, True), (None, False)])
def test_run_tasks_writes_a_bar_only_when_enabled(clean_env, progress, writes):
    err = _Stream(False)
    clean_env.setattr(sys, "stderr", err)
    out = run_tasks(np.square, [(i,) for i in range(5)], n_jobs=1, progress=progress,
                    desc="squares")
    assert out == [0, 1, 4, 9, 16]
    text = err.getvalue()
    assert ("squares" in text) is writes
