"""The F workflow out of core (issue 41): honest SEs, resampling and tuning on Dask row blocks.

References, all independent of the out-of-core code under test:

* the reweighted covariance and the tuned threshold of the same rows fitted in memory (whose
  own references are finite differences of the fit, ``test_fmaxent_inference.py``, and the
  sort-based search, ``test_tune_threshold*.py``);
* the in-memory refit engines (``results.row_refits()``, checked against full refits in
  ``test_kstep.py``) run on the Poisson counts that the row blocks draw, recomputed on the
  client from the seeds;
* straightforward re-implementations inside the tests (the exact search by one sort; the
  validation cells as weighted sums).

Equality tests run on Dask's synchronous scheduler (the same task graphs as on a cluster);
one small test runs the workflow on a 2-worker LocalCluster (threads), and the lost-worker
test on worker processes is marked slow.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("dask.distributed")

import fmstats as fm  # noqa: E402
from fmstats._utils.rowrng import (fold_key, poisson_counts, replicate_keys,  # noqa: E402
                                   row_folds, row_uniforms)
from fmstats.exceptions import (ConvergenceWarning, DataError, EmptyFoldWarning,  # noqa: E402
                                InvalidArgumentError, UnseenLevelError)
from fmstats.glm import RowDraws  # noqa: E402
from fmstats.model_selection import Criterion  # noqa: E402
from fmstats.model_selection._blocksearch import exact_search  # noqa: E402
from fmstats.model_selection._search import curve_arrays, midpoint  # noqa: E402

FORMULA = "y ~ x1 + x2 + x3 + g"


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def _data(n=3000, seed=3, intercept=-1.4):
    rng = np.random.default_rng(seed)
    x1, x2, x3 = rng.normal(size=(3, n))
    g = rng.choice(["a", "b", "c"], n)
    y = (rng.random(n) < expit(intercept + x1 - 0.5 * x2 + 0.8 * x3
                               + np.where(g == "b", 0.4, 0.0))).astype(int)
    q = np.clip(expit(-0.3 + x1) + rng.normal(0, 0.1, n), 0, 1)
    return pd.DataFrame({"y": y, "q": q, "x1": x1, "x2": x2, "x3": x3, "g": g,
                         "w": rng.integers(1, 4, n).astype(float)})


@pytest.fixture(scope="module")
def df():
    return _data()


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------- row draws

def test_row_draws_are_functions_of_the_row_position_only():
    keys = replicate_keys(np.random.SeedSequence(5).spawn(3))
    whole = poisson_counts(keys, np.arange(1000))
    parts = np.vstack([poisson_counts(keys, np.arange(a, b))
                       for a, b in ((0, 1), (1, 333), (333, 334), (334, 1000))])
    np.testing.assert_array_equal(parts, whole)
    # positions need not be one run (a block after rows were dropped)
    pos = np.r_[np.arange(5, 9), np.arange(700, 703)]
    np.testing.assert_array_equal(poisson_counts(keys, pos), whole[pos])
    np.testing.assert_array_equal(row_folds(fold_key(3), pos, 5),
                                  row_folds(fold_key(3), np.arange(1000), 5)[pos])


def test_poisson_counts_and_folds_have_their_distributions():
    n = 200_000
    c = poisson_counts(replicate_keys([np.random.SeedSequence(1)]), np.arange(n))[:, 0]
    freq = np.bincount(c.astype(int), minlength=6)[:6] / n
    p = np.exp(-1.0) / np.array([1, 1, 2, 6, 24, 120])
    # two-sided, 5 binomial standard errors
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / n)), (freq, p)
    u = row_uniforms(fold_key(9), np.arange(n))
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    folds = np.bincount(row_folds(fold_key(9), np.arange(n), 7), minlength=7) / n
    assert np.all(np.abs(folds - 1 / 7) < 5 * np.sqrt(1 / 7 * 6 / 7 / n))
    # replicates are independent: the counts of two keys are uncorrelated
    two = poisson_counts(replicate_keys(np.random.SeedSequence(2).spawn(2)), np.arange(n))
    assert abs(np.corrcoef(two.T)[0, 1]) < 5 / np.sqrt(n)


@pytest.mark.parametrize("formula, direct", [("y ~ x1 + x2 + g", True),
                                             ("y ~ x1 + x1:g", False)])
def test_partitions_are_filled_from_the_columns_where_the_design_allows(df, formula, direct):
    from fmstats.formula import dask_model_frame

    ddf = dd.from_pandas(df, npartitions=3)
    frame = dask_model_frame(formula, ddf)
    assert (frame.direct is not None) == direct
    mem = fm.maxent(formula, df)
    np.testing.assert_array_equal(np.asarray(frame.X.compute()), mem.X)


# ----------------------------------------------------------------------------- honest SEs

SE_CASES = {
    "expected, clipped (default)": (FORMULA, {"beta": 1}),
    "expected, weights, ridge": (FORMULA, {"beta": 2, "weights": "w", "penalty": 1.0,
                                           "cov_type": "reweighted"}),
    "noisy, smoothed": ("q ~ x1 + x2 + g", {"beta": 1}),
}


@pytest.mark.parametrize("case", list(SE_CASES))
def test_reweighted_covariance_out_of_core_equals_in_memory(case):
    formula, kw = SE_CASES[case]
    d = _data(4000, intercept=-0.2)      # the smaller class above 900: the reweighted default
    mem = _quiet(fm.fmaxent, formula, d, **kw)
    ooc = _quiet(fm.fmaxent, formula, dd.from_pandas(d, npartitions=5), **kw)
    assert ooc.cov_type == mem.cov_type == "reweighted"
    np.testing.assert_allclose(ooc.params, mem.params, rtol=1e-10)
    np.testing.assert_allclose(ooc.cov_params(), mem.cov_params(), rtol=1e-6, atol=0)
    assert ooc.se_unusable() is None
    assert ooc.tests_withheld() == mem.tests_withheld()


def test_stacked_sandwich_and_its_gap_out_of_core():
    d = _data(4000, intercept=-0.2)
    kw = {"beta": 1, "inner": "step", "cov_type": "reweighted", "max_outer": 40}
    mem = _quiet(fm.fmaxent, "y ~ x1 + x2", d, **kw)
    ooc = _quiet(fm.fmaxent, "y ~ x1 + x2", dd.from_pandas(d, npartitions=3), **kw)
    cov_m, gap_m = mem.reweighted_covariance()
    cov_o, gap_o = ooc.training.fit_time["reweighted"]
    np.testing.assert_allclose(cov_o, cov_m, rtol=1e-6)
    np.testing.assert_allclose(gap_o, gap_m, rtol=1e-6)
    assert (ooc.se_unusable() is None) == (mem.se_unusable() is None)


def test_reweighted_of_another_fit_type_out_of_core_says_why(df):
    ooc = fm.fmaxent(FORMULA, dd.from_pandas(df, npartitions=3), beta=1, cov_type="HC0")
    assert "computed at fit time" in ooc.se_unusable("reweighted")
    assert np.all(np.isnan(ooc.cov_params("reweighted").to_numpy()))


def test_default_covariance_out_of_core_follows_the_in_memory_rule(df):
    # 857 positives: below MIN_CLASS_REWEIGHTED, so the default is the bootstrap, which out of
    # core runs at fit time as Poisson replicates on the row blocks
    ooc = fm.fmaxent(FORMULA, dd.from_pandas(df, npartitions=4), beta=2, B=40)
    mem = fm.fmaxent(FORMULA, df, beta=2, B=40)
    assert min(mem.class_sizes()) < 900
    assert ooc.class_sizes() == pytest.approx(mem.class_sizes(), rel=1e-12)
    assert ooc.cov_type == mem.cov_type == "bootstrap"
    boot = ooc.bootstrap_results
    assert boot.type == "poisson" and boot.B == 40
    assert "Poisson(1)-weight" in ooc.covariance().label()
    assert np.all(np.isfinite(ooc.bse))
    blob = pickle.dumps(ooc)
    assert b"dask." not in blob and b"distributed" not in blob
    np.testing.assert_allclose(pickle.loads(blob).bse, ooc.bse, rtol=0)


# ----------------------------------------------------------------------------- resampling

@pytest.mark.parametrize("model", ["maxent", "fmaxent"])
def test_replicates_equal_in_memory_refits_on_the_same_counts(df, model):
    fn = {"maxent": fm.maxent, "fmaxent": fm.fmaxent}[model]
    kw = {"weights": "w"} if model == "maxent" else {"beta": 2, "cov_type": "HC0"}
    ddf = dd.from_pandas(df, npartitions=4)
    mem, ooc = fn(FORMULA, df, **kw), fn(FORMULA, ddf, **kw)
    keys = replicate_keys(np.random.SeedSequence(4).spawn(5))
    fits, lin = ooc.row_refits(ddf).fit_draws(RowDraws(keys=keys), linear=True)
    M = poisson_counts(keys, np.arange(len(df)))      # the counts, redrawn on the client
    engine = mem.row_refits()
    ref = engine.fit(M)
    np.testing.assert_allclose(fits.coef, ref.coef, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fits.training_f, ref.training_f, rtol=1e-12)
    psi = engine.influence()
    np.testing.assert_allclose(lin, (M - 1).T @ psi / len(df), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(ooc.row_refits(ddf).linear_cov(), psi.T @ psi / len(df) ** 2,
                               rtol=1e-8)


def test_bootstrap_does_not_depend_on_the_partitioning(df):
    out = []
    for parts in (2, 5):
        ddf = dd.from_pandas(df, npartitions=parts)
        fit = fm.maxent(FORMULA, ddf, weights="w")
        out.append(fm.bootstrap(fit, B=20, data=ddf, random_state=7, mc_tol=None))
    pd.testing.assert_frame_equal(out[0].replicates, out[1].replicates, rtol=1e-12)
    np.testing.assert_array_equal(out[0].counts(3), out[1].counts(3))


def test_bootstrap_se_agrees_with_in_memory_within_monte_carlo_error(df):
    ddf = dd.from_pandas(df, npartitions=3)
    ooc, mem = fm.maxent(FORMULA, ddf), fm.maxent(FORMULA, df)
    bo = fm.bootstrap(ooc, B=200, data=ddf, random_state=1, mc_tol=None, ci=False)
    bm = fm.bootstrap(mem, B=200, random_state=1, mc_tol=None, ci=False)
    terms = list(ooc.params.index)
    se_o, se_m = bo.std_error[terms], bm.std_error[terms]
    mc = np.sqrt(bo.mc_error()["se_mc"][terms] ** 2 + bm.mc_error()["se_mc"][terms] ** 2)
    assert np.all(np.abs(se_o - se_m) < 4 * mc), pd.DataFrame({"ooc": se_o, "mem": se_m,
                                                              "mc": mc})
    assert bo.type == "poisson" and "Poisson(1) frequency weights" in str(bo.summary())


def test_validate_out_of_core_cells_are_the_weighted_sums(df):
    ddf = dd.from_pandas(df, npartitions=3)
    ooc, mem = fm.maxent(FORMULA, ddf, weights="w"), fm.maxent(FORMULA, df, weights="w")
    v = fm.validate(ooc, B=12, data=ddf, random_state=5, measure=["f", "accuracy"])
    assert v.scheme == "poisson"
    # the same replicates in memory on the counts the blocks drew, cells by hand
    M = np.column_stack([v.counts(b) for b in range(12)])
    coef = mem.row_refits().fit(M).design_coef
    X, q, w = mem.X, mem.y, mem.count_weights
    pred = (expit(X @ coef.T) >= 0.5).astype(float)
    train = np.array([_f1(q, pred[:, b], w * M[:, b]) for b in range(12)])
    test = np.array([_f1(q, pred[:, b], w) for b in range(12)])
    np.testing.assert_allclose(v.replicates[("F1", "training")], train, rtol=1e-12)
    np.testing.assert_allclose(v.replicates[("F1", "test")], test, rtol=1e-12)
    out = M == 0
    seen = out.any(axis=1)
    oob = np.where(out, pred, 0).sum(axis=1)[seen] / out.sum(axis=1)[seen]
    table = v.tidy().set_index("measure")
    assert table.loc["F1", "oob"] == pytest.approx(_f1(q[seen], oob, w[seen]), rel=1e-12)
    assert table.loc["F1", "apparent"] == pytest.approx(mem.measure(), rel=1e-12)


def _f1(q, p, w):
    tp, fp, fn = (w * q) @ p, (w * (1 - q)) @ p, (w * q) @ (1 - p)
    return 2 * tp / (2 * tp + fp + fn)


# ----------------------------------------------------------------------------- tuning

def _sorted_search(s, pos, neg, split, crit):
    """The in-memory search: every cut by one sort (fmstats' own curve functions)."""
    t, counts, summary = curve_arrays(s, pos, neg, split, crit)
    best = fm.measures.best_position(summary[crit.column])
    return midpoint(t, best), summary[crit.column][best], t, counts.sum(axis=0)


@pytest.mark.parametrize("pooling, measure", [("tp_fp", None), ("mean", None),
                                              ("tp_fp", "accuracy")])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_search_by_cells_equals_the_sort(pooling, measure, seed):
    rng = np.random.default_rng(seed)
    n, k = 30_000, 4
    # many ties (rounded scores), negative link scores and a tight cluster near the optimum
    s = np.round(np.r_[rng.normal(0, 2, n - 3000), rng.normal(0.3, 1e-9, 3000)], 11)
    y = (rng.random(n) < expit(s)).astype(float)
    w = rng.integers(1, 3, n).astype(float)
    split = rng.integers(0, k, n)
    crit = Criterion(measure, 2.0 if measure is None else None, None, pooling)

    def gather(fn, **kw):     # three blocks
        cuts = np.array_split(np.arange(n), 3)
        return [fn(s[c], (w * y)[c], (w * (1 - y))[c], split[c], **kw) for c in cuts]

    found = exact_search(gather, crit, k)
    thr, value, t, counts = _sorted_search(s, w * y, w * (1 - y), split, crit)
    assert found.threshold == thr
    assert found.curve[crit.column].iloc[found.best] == pytest.approx(value, rel=1e-13)
    # every cut it evaluated is a cut of the full curve, with the same counts
    idx = np.searchsorted(-t, -found.curve["threshold"].to_numpy())
    np.testing.assert_array_equal(t[idx], found.curve["threshold"].to_numpy())
    np.testing.assert_allclose(counts[idx], found.curve[["tp", "fp", "fn", "tn"]].to_numpy())
    assert len(found.curve) < len(t) / 5 and found.passes <= 5


@pytest.mark.parametrize("model, kw, tune", [
    ("maxent", {"weights": "w"}, {}),
    ("maxent", {}, {"pooling": "mean", "beta": 2}),
    ("fmaxent", {"beta": 2, "cov_type": "HC0"}, {}),
])
def test_tune_threshold_out_of_core_equals_in_memory_on_the_same_folds(model, kw, tune):
    fn = {"maxent": fm.maxent, "fmaxent": fm.fmaxent}[model]
    d = _data(12_000, seed=8, intercept=-2.0)
    ddf = dd.from_pandas(d, npartitions=6)
    ooc, mem = fn(FORMULA, ddf, **kw), fn(FORMULA, d, **kw)
    to = fm.tune_threshold(ooc, ddf, cv=5, random_state=11, **tune)
    fold = row_folds(fold_key(11), np.arange(len(d)), 5)      # the same folds, in memory
    pairs = [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(5)]
    tm = fm.tune_threshold(mem, d, cv=pairs, **tune)
    assert to.threshold == pytest.approx(tm.threshold, rel=1e-7)
    assert to.best_score == pytest.approx(tm.best_score, rel=1e-9)
    merged = to.tidy().merge(tm.tidy(), on=["tp", "fp"], suffixes=("_o", "_m"))
    assert len(merged) == len(to.tidy())
    np.testing.assert_allclose(merged["threshold_o"], merged["threshold_m"], rtol=1e-7)
    np.testing.assert_allclose(merged["f_o"], merged["f_m"], rtol=1e-12)
    np.testing.assert_array_equal(to.fold_table()["n_test"], [len(te) for _, te in pairs])
    own = to.cv_value(0.5)["f"]
    assert own == pytest.approx(tm.cv_value(0.5)["f"], rel=1e-9)
    assert "exact, on the row blocks" in str(to.summary())
    blob = pickle.dumps(to)
    assert b"dask." not in blob
    conf = to.confusion(ddf)
    assert conf.tp == pytest.approx(tm.confusion(d).tp, rel=1e-12)


def _workflow(df):
    ddf = dd.from_pandas(df, npartitions=2)
    fit = fm.maxent(FORMULA, ddf, weights="w")
    ffit = fm.fmaxent(FORMULA, ddf, beta=2, cov_type="reweighted")
    boot = fm.bootstrap(fit, B=10, data=ddf, random_state=3, mc_tol=None, ci=False)
    tuned = fm.tune_threshold(fit, ddf, cv=3, random_state=4)
    return fit, ffit, boot, tuned


def test_sums_over_chunks_of_a_block_equal_the_block_sums(df, monkeypatch):
    """A pass sums each block in chunks of its rows (bounded temporaries per task): chunks of
    400 rows give the block sums (to rounding), for the fit, the reweighted covariance, the
    Poisson replicates and the tuned threshold."""
    from fmstats.glm import _dask as glm_dask

    whole = _workflow(df)
    calls = []
    real = glm_dask._chunked_sums
    monkeypatch.setattr(glm_dask, "CHUNK_BYTES", 1)
    monkeypatch.setattr(glm_dask, "CHUNK_MIN_ROWS", 400)
    monkeypatch.setattr(glm_dask, "_chunked_sums",
                        lambda fn, n_max, *b, **k: calls.append(fn.__name__) or real(fn, n_max,
                                                                                    *b, **k))
    chunked = _workflow(df)
    assert {"_eval_block", "_stats_block", "_check_block"} <= set(calls)
    assert glm_dask.chunk_rows([np.zeros((1500, 6))]) == 400
    (a, fa, ba, ta), (b, fb, bb, tb) = whole, chunked
    np.testing.assert_allclose(b.params, a.params, rtol=1e-10)
    np.testing.assert_allclose(b.bse, a.bse, rtol=1e-10)
    np.testing.assert_allclose(fb.bse, fa.bse, rtol=1e-8)
    np.testing.assert_allclose(bb.replicates, ba.replicates, rtol=1e-8)
    assert tb.threshold == pytest.approx(ta.threshold, rel=1e-9)
    assert tb.best_score == pytest.approx(ta.best_score, rel=1e-12)


def test_a_replicates_pass_bounds_its_temporaries_by_chunks():
    """A pass over m replicates makes m-wide temporaries per row: its chunks shrink with m,
    so a block of 300,000 rows and 40 replicates stays within 3 CHUNK_BYTES of temporaries
    (whole, its temporaries take over 300 MiB), with the sums of the whole block."""
    import tracemalloc

    from fmstats.glm import _blockreplicates as br
    from fmstats.glm import _dask as glm_dask

    n, p, m = 300_000, 5, 40
    rng = np.random.default_rng(0)
    X = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    q = (rng.random(n) < 0.3).astype(float)
    pos = np.arange(n, dtype=np.int64)
    draws = RowDraws(keys=replicate_keys(np.random.SeedSequence(1).spawn(m)))
    theta = rng.normal(scale=0.1, size=(m, p))
    step = glm_dask.chunk_rows([X, q, pos], m)
    assert step == glm_dask.CHUNK_BYTES // (8 * (p + 1) + 8 + glm_dask.REPLICATE_ROW_BYTES * m)
    tracemalloc.start()
    got = glm_dask._chunked_sums(br._newton_block, 0, X, q, None, pos, draws=draws,
                                 theta=theta, margins=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * glm_dask.CHUNK_BYTES, peak / 2**20
    whole = br._newton_block(X, q, None, pos, draws=draws, theta=theta, margins=False)
    np.testing.assert_allclose(got, whole, rtol=1e-10, atol=1e-8)


def test_partition_memory_rule():
    """A task's memory: the partition, its design (and y, trials, weights) and four chunks'
    temporaries (a chunk: the design up to CHUNK_BYTES); the warning comes above a quarter of
    a worker's limit."""
    from fmstats.glm import _dask as glm_dask

    rows, nbytes, p = 684_000, 64 * 2**20, 15
    need = nbytes + 8 * rows * (p + 3) + 4 * min(8 * rows * (p + 3), glm_dask.CHUNK_BYTES)
    assert glm_dask.partition_memory_advice(rows, nbytes, p, limit=4 * need * 1.001) is None
    text = glm_dask.partition_memory_advice(rows, nbytes, p, limit=4 * need * 0.999)
    assert f"about {need / 2**20:.3g} MiB" in text and "684,000 rows" in text
    assert "split_row_groups=True" in text
    assert glm_dask.partition_memory_advice(rows, nbytes, p, limit=float("inf")) is None


def test_large_partitions_for_the_workers_warn(df, monkeypatch):
    from fmstats.exceptions import PartitionMemoryWarning
    from fmstats.glm import _dask as glm_dask

    ddf = dd.from_pandas(df, npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartitionMemoryWarning)
        quiet = fm.maxent(FORMULA, ddf)                 # no cluster: no limit, no warning
    monkeypatch.setattr(glm_dask, "worker_memory_limit", lambda: 2.0 ** 20)
    with pytest.warns(PartitionMemoryWarning, match=r"1,000 rows .* limit \(1 MiB\)"):
        loud = fm.maxent(FORMULA, ddf)
    np.testing.assert_allclose(loud.params, quiet.params, rtol=1e-14)


# ----------------------------------------------------------------------------- bad input

def test_resampling_needs_the_dask_data(df):
    ddf = dd.from_pandas(df, npartitions=3)
    fit = fm.maxent(FORMULA, ddf)
    with pytest.raises(DataError, match="pass the Dask DataFrame"):
        fm.bootstrap(fit, B=20)
    with pytest.raises(DataError, match="not the data the model was fitted on"):
        fm.bootstrap(fit, B=20, data=dd.from_pandas(df.iloc[:-5], npartitions=3))
    with pytest.raises(InvalidArgumentError, match="Poisson"):
        fm.bootstrap(fit, B=20, data=ddf, type="stratified")
    with pytest.raises(InvalidArgumentError, match="bca"):
        fm.bootstrap(fit, B=20, data=ddf, ci_method="bca")
    with pytest.raises(InvalidArgumentError, match="integer number of folds"):
        fm.tune_threshold(fit, ddf, cv=[(np.arange(10), np.arange(10, 20))])
    with pytest.raises(InvalidArgumentError, match="ci=True"):
        fm.tune_threshold(fit, ddf, ci=True)


def test_empty_partition_gives_identical_results(df):
    ddf = dd.from_pandas(df, npartitions=3)
    parts = ddf.to_delayed()
    empty = dd.from_delayed([parts[0], dask.delayed(ddf._meta), parts[1], parts[2]],
                            meta=ddf._meta)
    assert empty.npartitions == 4
    a, b = fm.maxent(FORMULA, ddf), fm.maxent(FORMULA, empty)
    ba = fm.bootstrap(a, B=20, data=ddf, random_state=2, mc_tol=None)
    bb = fm.bootstrap(b, B=20, data=empty, random_state=2, mc_tol=None)
    pd.testing.assert_frame_equal(ba.replicates, bb.replicates, rtol=1e-12)
    ta = fm.tune_threshold(a, ddf, cv=3, random_state=1)
    tb = fm.tune_threshold(b, empty, cv=3, random_state=1)
    assert ta.threshold == tb.threshold


def test_unknown_level_or_dtype_in_a_partition_of_the_tuning_data(df):
    ddf = dd.from_pandas(df, npartitions=3)
    fit = fm.maxent(FORMULA, ddf)
    cats = df.assign(g=pd.Categorical(df["g"], categories=["a", "b", "c"]))
    odd = cats.iloc[2000:].assign(g=pd.Categorical(["d"] * 1000, categories=["a", "b", "c",
                                                                              "d"]))
    lying = dd.from_delayed([dask.delayed(cats.iloc[:2000]), dask.delayed(odd)],
                            meta=cats.iloc[:0], verify_meta=False)
    with pytest.raises(UnseenLevelError, match="level 'd'"):
        fm.tune_threshold(fit, lying, cv=3)
    text = df.assign(x1=df["x1"].astype(str))
    mixed = dd.from_delayed([dask.delayed(df.iloc[:1500]), dask.delayed(text.iloc[1500:])],
                            meta=df.iloc[:0], verify_meta=False)
    with pytest.raises(DataError, match="x1"):
        fm.bootstrap(fit, B=20, data=mixed)


def test_fold_without_positives_warns():
    d = _data(400, intercept=-5.5)
    assert 1 <= d["y"].sum() < 10          # fewer positives than folds: a fold holds none
    ddf = dd.from_pandas(d, npartitions=2)
    fit = fm.maxent("y ~ x1", ddf, penalty=1.0)
    with pytest.warns(EmptyFoldWarning):
        fm.tune_threshold(fit, ddf, cv=10, random_state=0)


# ----------------------------------------------------------------------------- on a cluster

def test_workflow_on_a_local_cluster_equals_the_synchronous_run(df):
    from dask.distributed import Client, LocalCluster

    d = df.iloc[:1500]
    sync = fm.maxent(FORMULA, dd.from_pandas(d, npartitions=3))
    ref_boot = fm.bootstrap(sync, B=20, data=dd.from_pandas(d, npartitions=3), random_state=4,
                            mc_tol=None)
    with dask.config.set(scheduler=None), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                         dashboard_address=None) as cluster, Client(cluster):
        ddf = dd.from_pandas(d, npartitions=3)
        fit = fm.maxent(FORMULA, ddf)
        boot = fm.bootstrap(fit, B=20, data=ddf, random_state=4, mc_tol=None)
        tuned = fm.tune_threshold(fit, ddf, cv=3, random_state=2)
    np.testing.assert_allclose(fit.params, sync.params, rtol=1e-12)
    pd.testing.assert_frame_equal(boot.replicates, ref_boot.replicates, rtol=1e-12)
    assert np.isfinite(tuned.threshold)


@pytest.mark.slow
def test_a_worker_lost_mid_resampling_gives_identical_results(df):
    import threading
    import time

    from dask.distributed import Client, LocalCluster

    ddf = dd.from_pandas(df, npartitions=6)
    fit = fm.maxent(FORMULA, ddf)
    ref = fm.bootstrap(fit, B=60, data=ddf, random_state=4, mc_tol=None)
    with dask.config.set({"scheduler": None,
                          "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
            LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                         dashboard_address=None) as cluster, Client(cluster) as client:
        fit_c = fm.maxent(FORMULA, ddf)
        killed = []

        def kill():                    # a worker process dies while the replicates run
            time.sleep(1.0)
            killed.append(list(client.scheduler_info()["workers"])[0])
            try:
                client.run(lambda: __import__("os")._exit(1), workers=killed)
            except Exception:          # noqa: BLE001 - the worker's connection dies with it
                pass

        t = threading.Thread(target=kill)
        t.start()
        boot = fm.bootstrap(fit_c, B=60, data=ddf, random_state=4, mc_tol=None)
        t.join()
        assert killed and killed[0] not in client.scheduler_info()["workers"]
    pd.testing.assert_frame_equal(boot.replicates, ref.replicates, rtol=1e-12)
