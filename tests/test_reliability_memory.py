"""Issue 31, mechanism 5: ``keep_data=False`` builds and accumulates the design in row blocks.

The numbers must be R's (tests/reference/glm_*: coefficients, model-based and sandwich
standard errors, deviances) and those of the fit on the whole design (``keep_data=True``) to
1e-10, with the blocks small enough here (64 rows) that every fit crosses many of them; the
design is never held whole, which tracemalloc sees.  The full-size bound (n = 2e6, p = 50) is
printed by ``benchmarks/reliability/bench_memory.py --case maxent``.
"""
from __future__ import annotations

import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
import fmstats.formula._blocks as blocks
from fmstats.exceptions import MissingDataWarning

REF = Path(__file__).parent / "reference"
pytestmark = pytest.mark.numerics     # blocked sums equal the whole design to 1e-10
R_TERMS = {"(Intercept)": "Intercept", "x1": "x1", "x2": "x2", "gb": "g[T.b]", "gc": "g[T.c]"}

MODELS = {   # R's model name -> (function, formula, keyword arguments); synthetic inputs
    "synth_binom_w": (fm.maxent, "y ~ x1 + x2 + g", {"weights": "w"}),
    "synth_quasi_q": (fm.umaxent, "q ~ x1 + x2 + g", {}),
    "synth_cbind": (fm.maxent, "cbind(yes, no) ~ x1 + x2 + g", {}),
    "synth_binom_w0": (fm.maxent, "y ~ x1 + x2 + g", {"weights": "w0"}),
}


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_ROWS", 64)


@pytest.fixture(scope="module")
def synth():
    return pd.read_csv(REF / "inputs_synthetic.csv")


def _pair(fn, formula, data, **kw):
    return fn(formula, data, **kw), fn(formula, data, keep_data=False, **kw)


@pytest.mark.parametrize("model", list(MODELS))
def test_blocked_fit_equals_r(synth, small_blocks, model):
    fn, formula, kw = MODELS[model]
    lean = fn(formula, synth, keep_data=False, **kw)
    assert lean.X is None and lean.training._kept is not None
    r = pd.read_csv(REF / "glm_coef.csv")
    r = r[r["model"] == model].assign(term=lambda t: t["term"].map(R_TERMS)).set_index("term")
    np.testing.assert_allclose(lean.params[r.index], r["estimate"], rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(lean.bse[r.index], r["se"], rtol=1e-7)
    if model != "synth_binom_w0":         # sandwich::vcovHC mishandles zero weights (README)
        for ct in ("HC0", "HC1", "HC2", "HC3"):
            np.testing.assert_allclose(lean._se(ct)[r.index], r[f"se_{ct}"], rtol=1e-7)
    stats = pd.read_csv(REF / "glm_stats.csv").set_index("model").loc[model]
    assert lean.deviance == pytest.approx(stats["deviance"], rel=1e-7)
    assert lean.null_deviance == pytest.approx(stats["null_deviance"], rel=1e-7)
    assert lean.iterations == int(stats["iter"])


CASES = {
    "numeric (blocks without the engine)": ("y ~ x1 + x2", {}),
    "factor and interaction (engine per block)": ("y ~ x1 * g + x2", {"cov_type": "HC3"}),
    "offset column (centred blocks)": ("y ~ x1 + t", {}),
    "ridge": ("y ~ x1 + x2 + g", {"penalty": 3.0}),
    "collinear column dropped": ("y ~ x1 + x2 + z", {}),
    "stateful transform (built whole)": ("y ~ center(x1) + x2", {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_blocked_fit_equals_the_whole_design_to_1e_10(synth, small_blocks, case):
    formula, kw = CASES[case]
    data = synth.assign(t=synth.x2 * 1e-3 + 1e7, z=synth.x1 - synth.x2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.CollinearityWarning)
        full, lean = _pair(fm.maxent, formula, data, **kw)
    assert lean.X is None and lean.iterations == full.iterations
    np.testing.assert_allclose(lean.params, full.params, rtol=1e-10, atol=1e-14)
    for ct in ("nonrobust", "HC0", "HC1", "HC2", "HC3"):
        np.testing.assert_allclose(lean.cov_params(ct), full.cov_params(ct), rtol=1e-10,
                                   atol=1e-14 * np.abs(full.cov_params(ct).to_numpy()).max())
    np.testing.assert_allclose(lean.hat, full.hat, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(lean.fitted_values, full.fitted_values, rtol=1e-10, atol=1e-15)
    assert lean.deviance == pytest.approx(full.deviance, rel=1e-12)
    assert lean.null_deviance == pytest.approx(full.null_deviance, rel=1e-12)
    assert list(lean.aliased) == list(full.aliased)


def test_rows_dropped_for_missing_values_and_weights_by_label(synth, small_blocks):
    data = synth.assign(x1=np.where(synth.index % 17 == 3, np.nan, synth.x1))
    w = pd.Series(synth["w"].to_numpy()[::-1], index=synth.index[::-1])
    with pytest.warns(MissingDataWarning):
        full = fm.maxent("y ~ x1 + g", data, weights=w)
    with pytest.warns(MissingDataWarning):
        lean = fm.maxent("y ~ x1 + g", data, weights=w, keep_data=False)
    np.testing.assert_allclose(lean.params, full.params, rtol=1e-10)
    assert lean.index.equals(full.index) and lean.nobs == full.nobs


def test_separation_is_found_through_the_blocks(small_blocks):
    x = np.linspace(-2, 2, 200)
    d = pd.DataFrame({"x": x, "y": (x > 0.1).astype(int)})
    with pytest.warns(fm.SeparationWarning):
        lean = fm.maxent("y ~ x", d, keep_data=False)
    assert lean.separated and lean.bse.isna().all()


def test_bad_values_are_refused_through_the_blocks(synth, small_blocks):
    with pytest.raises(fm.exceptions.DesignError, match=r"'x1' spreads"):
        fm.maxent("y ~ x1", synth.assign(x1=synth.x1 * 1e300), keep_data=False)


def test_the_design_is_never_held_whole(monkeypatch):
    """tracemalloc (numpy's allocations): the blocked fit's peak stays below half the frame,
    the fit on the whole design needs twice it (the design and its copies).  Blocks of 2048
    rows for 40000 rows stand for the 32768 of a fit of 2e6 (blocks a small share of n)."""
    monkeypatch.setattr(blocks, "BLOCK_ROWS", 2048)
    rng = np.random.default_rng(0)
    n, p = 40_000, 40
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-df.x0))).astype(np.int64)
    formula = "y ~ " + " + ".join(df.columns[:-1])
    frame = int(df.memory_usage(deep=True).sum())
    peaks = {}
    for keep in (False, True):
        fm.maxent(formula, df.head(200), keep_data=keep)      # imports and caches first
        tracemalloc.start()
        fm.maxent(formula, df, keep_data=keep)
        peaks[keep] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks[False] < 0.5 * frame < frame < peaks[True]
