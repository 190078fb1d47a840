"""Designs filled from the data's columns (fmstats.formula._direct) equal the engine's.

The reference is formulaic itself: every formula is built twice, once by the engine on all
rows and once by the direct fill (forced with ``DIRECT_MIN_ROWS = 0``), and the two model
frames must be equal exactly (values, names, levels, the encoding of new data).  Formulas
the fill cannot reproduce (interactions, transforms, other contrasts, patsy) must go to the
engine, and the test says which path each took.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
import fmstats.formula._frame as frame_mod
import fmstats.formula._modelframe as modelframe_mod
from fmstats.exceptions import MissingDataWarning
from fmstats.formula import blocked_model_frame, model_frame


@pytest.fixture
def data():
    rng = np.random.default_rng(11)
    n = 400
    d = pd.DataFrame({
        "x1": rng.standard_normal(n),
        "x2": rng.integers(-5, 50, n),                        # integers, used as numbers
        "x3": rng.uniform(0.5, 3.0, n).astype(np.float32),
        "g": pd.Categorical(rng.choice(list("bcad"), n), categories=list("dcbae")),  # 'e' unused
        "s": rng.choice(["lo", "mid", "hi"], n).astype(object),
        "k": rng.integers(1, 4, n),
        "flag": rng.random(n) < 0.4,
    })
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-0.5 * d.x1))).astype(int)
    d.loc[[3, 17], "x1"] = np.nan                               # rows dropped as missing
    d.loc[[5], "s"] = None
    return d


DIRECT = ["y ~ x1 + x2 + g", "y ~ x1 + x3 + s", "y ~ C(k) + x2", "y ~ 0 + g + x1",
          "y ~ factor(k) + g", "y ~ C(g, Treatment('a')) + x1", "y ~ x1 + flag",
          "y ~ g + s + k"]
ENGINE = ["y ~ x1:g", "y ~ np.log(x3) + g", "y ~ C(g, Sum) + x1", "y ~ x1 + I(x2 ** 2)",
          "y ~ scale(x1) + g", "y ~ g * s"]


def _frames(monkeypatch, formula, d, engine="formulaic"):
    calls = []
    real = frame_mod.fill_direct

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(frame_mod, "fill_direct", counted)
    monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 10 ** 12)
    with warnings.catch_warnings(record=True) as ref_warned:
        warnings.simplefilter("always", MissingDataWarning)
        ref = model_frame(formula, d, engine=engine)
    assert not calls
    monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 0)
    with warnings.catch_warnings(record=True) as got_warned:
        warnings.simplefilter("always", MissingDataWarning)
        got = model_frame(formula, d, engine=engine)
    assert [str(w.message) for w in got_warned] == [str(w.message) for w in ref_warned]
    # two fills (the sample's check and the whole design) when the direct path was taken
    return ref, got, len(calls) == 2


def _assert_same_frame(ref, got, new):
    assert got.column_names == ref.column_names
    assert got.X.flags.c_contiguous and got.X.dtype == np.float64
    np.testing.assert_array_equal(got.X, ref.X)
    np.testing.assert_array_equal(got.rows, ref.rows)
    np.testing.assert_array_equal(got.response.y, ref.response.y)
    assert got.spec.levels == ref.spec.levels
    assert got.spec.numeric == ref.spec.numeric
    # the stored encoding rebuilds new data identically
    np.testing.assert_array_equal(got.spec.build(new)[0], ref.spec.build(new)[0])


@pytest.mark.parametrize("formula", DIRECT)
def test_direct_fill_equals_the_engine(monkeypatch, data, formula):
    ref, got, direct = _frames(monkeypatch, formula, data)
    assert direct, f"{formula!r} was expected to be filled from the columns"
    _assert_same_frame(ref, got, data.dropna().iloc[:50])


@pytest.mark.parametrize("formula", ENGINE)
def test_other_designs_are_left_to_the_engine(monkeypatch, data, formula):
    ref, got, direct = _frames(monkeypatch, formula, data)
    assert not direct, f"{formula!r} cannot be filled from the columns"
    _assert_same_frame(ref, got, data.dropna().iloc[:50])


def test_patsy_designs_are_left_to_patsy(monkeypatch, data):
    ref, got, direct = _frames(monkeypatch, "y ~ x1 + g", data, engine="patsy")
    assert not direct
    np.testing.assert_array_equal(got.X, ref.X)


def test_direct_extremes_are_the_designs(data):
    """The extremes gathered while filling (the validator's input) are numpy's."""
    from fmstats.formula._direct import fill, sources

    d = data.dropna()
    srcs = sources(d, ["Intercept", "x1", "x2", "g[T.c]", "g[T.b]", "s[T.mid]"],
                   {"x1", "x2"}, {"g": ("g", ("d", "c", "b", "a")),
                                  "s": ("s", ("hi", "lo", "mid"))})
    assert srcs == (None, "x1", "x2", ("g", "c"), ("g", "b"), ("s", "mid"))
    X, (hi, lo) = fill(d, srcs, levels={"s": ("hi", "lo", "mid")})
    np.testing.assert_array_equal(X[:, 3], (d.g == "c").to_numpy())
    np.testing.assert_array_equal(X[:, 5], (d.s == "mid").to_numpy())
    np.testing.assert_array_equal(hi, X.max(axis=0))
    np.testing.assert_array_equal(lo, X.min(axis=0))
    # a level present in every row: its dummy's smallest value is 1
    one = d.assign(g=pd.Categorical(["c"] * len(d), categories=["c", "b"]))
    X1, (hi1, lo1) = fill(one, (("g", "c"), ("g", "b")))
    assert (hi1[0], lo1[0], hi1[1], lo1[1]) == (1.0, 1.0, 0.0, 0.0)


@pytest.mark.parametrize("engine", ["formulaic", "patsy"])
def test_blocked_frame_fills_factor_dummies(data, engine):
    """The blocked frame (keep_data=False fits) fills dummies too, block by block, with
    either engine (its spec is learnt on the sample in any case)."""
    d = data.dropna()
    whole = model_frame("y ~ x1 + g + s", d, engine=engine)
    blocked = blocked_model_frame("y ~ x1 + g + s", d, block_rows=64, engine=engine)
    assert blocked.direct is not None
    np.testing.assert_array_equal(blocked.whole(), whole.X)


def test_fits_agree_on_both_paths(monkeypatch, data):
    """A maxent fit on the filled design is the engine-built fit (coefficients to 1e-12)."""
    d = data.dropna()
    monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 10 ** 12)
    ref = fm.maxent("y ~ x1 + x2 + g + s", d)
    monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 0)
    got = fm.maxent("y ~ x1 + x2 + g + s", d)
    np.testing.assert_allclose(got.params.to_numpy(), ref.params.to_numpy(), rtol=0, atol=1e-12)


def test_tuple_levels_and_values_outside_levels(monkeypatch):
    """Levels that are tuples stay single levels, and a value outside ``C(x, levels=...)``
    gets all-zero dummies with the engine's warnings only (a reviewer's two cases)."""
    rng = np.random.default_rng(3)
    n = 300
    m = np.empty(n, dtype=object)
    m[:] = [(1,), (2,), (3,)] * (n // 3)
    d = pd.DataFrame({"y": rng.integers(0, 2, n), "m": m, "s": rng.choice(list("uvw"), n)})
    for formula in ("y ~ C(m)", "y ~ m", "y ~ C(s, levels=['u', 'v'])"):
        ref, got, direct = _frames(monkeypatch, formula, d)
        assert direct, formula
        _assert_same_frame(ref, got, d[d.s != "w"].iloc[:30])
    with warnings.catch_warnings(record=True) as ref_w:
        warnings.simplefilter("always")
        monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 10 ** 12)
        model_frame("y ~ C(s, levels=['u', 'v'])", d)
    with warnings.catch_warnings(record=True) as got_w:
        warnings.simplefilter("always")
        monkeypatch.setattr(modelframe_mod, "DIRECT_MIN_ROWS", 0)
        model_frame("y ~ C(s, levels=['u', 'v'])", d)
    assert sorted(type(w.message).__name__ for w in got_w) == \
        sorted(type(w.message).__name__ for w in ref_w)
