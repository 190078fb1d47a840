"""The README a newcomer reads first (issue 38): it starts with what fmstats is for and the two
commands, lists every vignette, and its first model runs and says what it shows."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_two_commands_come_first():
    """Before the first heading: one paragraph on what fmstats is for, then the two commands
    (install + demo, install + tests), then at most one paragraph about them."""
    head = README.split("\n## ", 1)[0]
    blocks = re.findall(r"```(\w*)\n(.*?)```", head, re.S)
    assert blocks and blocks[0][1].splitlines() == [
        "pip install -e . && python -m fmstats demo", 'pip install -e ".[test]" && pytest']
    before = head.split("```", 1)[0]
    assert "F-measure" in before and len(before.split()) < 120


def test_every_vignette_is_in_the_table():
    """Mutant: a notebook added without its row (09 was missing)."""
    listed = re.findall(r"^\| `(\d\d-[\w-]+\.ipynb)` \|", README, re.M)
    assert listed == sorted(p.name for p in (ROOT / "vignettes").glob("*.ipynb"))


@pytest.mark.slow
def test_first_model_runs_and_shows_what_it_says():
    pytest.importorskip("sklearn")
    code = re.search(r"## A first model\n\n```python\n(.*?)```", README, re.S).group(1)
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), ns)   # noqa: S102
    fit, tuned, sk = ns["fit"], ns["tuned"], ns["sk"]
    assert "Coefficients:" in out.getvalue() and "Confusion table:" in out.getvalue()
    # the same coefficients as scikit-learn's unpenalised fit (lbfgs stops at ~1e-4)
    np.testing.assert_allclose(sk.estimator_.coef_[0], fit.params.to_numpy()[1:], rtol=2e-3,
                               atol=1e-3)
    lo, hi = tuned.threshold_ci
    assert lo <= tuned.threshold <= hi
    assert 0 < tuned.uncertainty.f_corrected < 1
