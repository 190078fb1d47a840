"""Issue 16 (inputs): dtypes of data columns, aligned weights, and clear errors for bad input.

Each case names the silent-wrong result or raw exception it replaces; coefficients are compared
with the fit on the plain numpy-dtype column.
"""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import FmstatsError


@pytest.fixture
def d80():
    rng = np.random.default_rng(16)
    n = 80
    x = rng.normal(size=n)
    g = rng.choice(["a", "b", "c"], size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-0.3 - 1.1 * x))).astype(int)
    return pd.DataFrame({"y": y, "x": x, "k": np.round(x * 3), "g": g,
                         "w": rng.integers(1, 5, size=n).astype(float)})


# ------------------------------------------------------------------ truncated pickle

@pytest.mark.parametrize("cut", [0, 0.5])
def test_load_of_a_truncated_pickle_is_an_fmstats_error(d80, tmp_path, cut):
    fit = fm.maxent("y ~ x", d80)
    blob = pickle.dumps(fit, protocol=pickle.HIGHEST_PROTOCOL)
    path = tmp_path / "fit.pkl"
    path.write_bytes(blob[: int(len(blob) * cut)])
    with pytest.raises(FmstatsError, match=r"`path`.*not a complete"):
        type(fit).load(path)
