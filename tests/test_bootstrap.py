"""bootstrap(): replicate SEs against model-based and analytic SEs, CI formulas against scipy,
equivalence of the weighted fast path with full refits, reproducibility, bad input."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fmstats as fm
from fmstats.resampling import (
    BootstrapResults, ResamplingWarning, basic_interval, bca_interval, bootstrap,
    jackknife_acceleration, percentile_interval,
)
from fmstats.datasets import titanic_complete
from fmstats.exceptions import DataError, InvalidArgumentError

TITANIC = "survived ~ pclass + sex + age + sibsp"


@pytest.fixture(scope="module")
def titanic():
    return titanic_complete()


@pytest.fixture(scope="module")
def titanic_fit(titanic):
    return fm.maxent(TITANIC, titanic)


def _resample(data: pd.DataFrame, counts: np.ndarray) -> pd.DataFrame:
    return data.loc[data.index.repeat(counts)].reset_index(drop=True)


# --------------------------------------------------------------------------- SEs
@pytest.mark.slow
def test_bootstrap_se_within_10pct_of_model_based_titanic_B2000(titanic_fit):
    b = bootstrap(titanic_fit, 2000, random_state=20240601, progress=False)
    ratio = b.std_error[titanic_fit.params.index] / titanic_fit.bse
    assert np.all(np.abs(ratio - 1) < 0.10), ratio


@pytest.mark.slow
def test_bootstrap_se_matches_sandwich_with_factor_pclass_B2000(titanic):
    # with C(pclass) the model-based SE of the 2nd-class effect is ~11% above the bootstrap
    # (misspecification); the bootstrap estimates the sandwich (HC0) SE, within MC error
    # (sd of an SE from B = 2000 replicates ~ 1.6%).
    r = fm.maxent("survived ~ C(pclass) + sex + age + sibsp", titanic)
    b = bootstrap(r, 2000, random_state=7, progress=False)
    ratio = b.std_error[r.params.index] / r._se("HC0")
    assert np.all(np.abs(ratio - 1) < 0.06), ratio


def test_bootstrap_se_close_to_sandwich_small_B(titanic_fit):
    # B = 300: the relative sd of a bootstrap SE is about 1/sqrt(2(B-1)) = 4.1%; 15% allows
    # 3 sd plus the ~3% finite-sample gap to the sandwich seen at B = 2000.
    b = bootstrap(titanic_fit, 300, random_state=3, progress=False)
    ratio = b.std_error[titanic_fit.params.index] / titanic_fit._se("HC0")
    assert np.all(np.abs(ratio - 1) < 0.15), ratio


def test_tidy_and_summary_put_model_se_beside_bootstrap(titanic_fit):
    # control=False: the plain sd of the replicates (the control variate's covariance is
    # checked against its own re-implementation in tests/test_kstep.py)
    b = bootstrap(titanic_fit, 50, random_state=1, progress=False, control=False)
    t = b.tidy().set_index("term")
    model = titanic_fit.tidy().set_index("term")
    np.testing.assert_allclose(t.loc[model.index, "model_std_error"], model["std_error"])
    np.testing.assert_allclose(t.loc[model.index, "model_conf_low"], model["conf_low"])
    np.testing.assert_allclose(t["std_error"], b.replicates.std(ddof=1))
    np.testing.assert_allclose(t["conf_low"], b.replicates.quantile(0.025))
    np.testing.assert_allclose(t["bias"], b.replicates.mean() - b.estimate)
    assert t.loc["training F1", "estimate"] == pytest.approx(titanic_fit.measure())
    assert np.isnan(t.loc["training F1", "model_std_error"])
    text = str(b.summary())
    assert "Boot SE" in text and "Wald low" in text and "Signif. codes" not in text
    assert "<table>" in b.summary()._repr_html_()
    assert "tabular" in b.summary().as_latex()


# --------------------------------------------------------------------------- CI formulas
@pytest.mark.parametrize("statistic", [np.mean, np.std])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_ci_formulas_equal_scipy_on_scipy_replicates(statistic, level):
    x = np.random.default_rng(5).exponential(size=40)
    jack = np.array([statistic(np.delete(x, i)) for i in range(x.size)])
    for method in ("percentile", "basic", "BCa"):
        res = stats.bootstrap((x,), statistic, n_resamples=999, confidence_level=level,
                              method=method, random_state=np.random.default_rng(11))
        reps = res.bootstrap_distribution
        if method == "percentile":
            ours = percentile_interval(reps, level)
        elif method == "basic":
            ours = basic_interval(reps, statistic(x), level)
        else:
            ours = bca_interval(reps, statistic(x), jack, level)
        np.testing.assert_allclose(ours, (res.confidence_interval.low,
                                          res.confidence_interval.high), rtol=1e-12)


def test_jackknife_acceleration_of_the_mean_is_a_sixth_of_the_skewness():
    # for the mean, a = skewness(x) / (6 sqrt(n)) with the biased moments (E & T 1993, 14.15)
    x = np.random.default_rng(2).gamma(2.0, size=30)
    jack = np.array([np.delete(x, i).mean() for i in range(x.size)])
    d = x - x.mean()
    skew = np.mean(d ** 3) / np.mean(d ** 2) ** 1.5
    assert jackknife_acceleration(jack) == pytest.approx(skew / (6 * np.sqrt(x.size)), rel=1e-12)


def test_bca_jackknife_equals_leave_one_out_refits(synth):
    small = synth.iloc[:60]
    r = fm.maxent("y ~ x1 + x2", small)
    b = bootstrap(r, 40, ci_method="bca", random_state=2, progress=False)
    assert b.jackknife_groups == 60 and b.jackknife.shape == (60, 4)
    for i in (0, 17, 59):
        loo = fm.maxent("y ~ x1 + x2", small.drop(small.index[i]))
        np.testing.assert_allclose(b.jackknife[i, :3], loo.params, rtol=1e-6)
        assert b.jackknife[i, 3] == pytest.approx(loo.measure())
    ci = b.conf_int()
    lo, hi = bca_interval(b.replicates["x1"], b.estimate["x1"], b.jackknife[:, 1])
    # exact: conf_int calls bca_interval on these very arrays
    assert (ci.loc["x1", "conf_low"], ci.loc["x1", "conf_high"]) == (lo, hi)
    basic = b.conf_int("basic", 0.9)
    assert basic.loc["x1", "conf_high"] == pytest.approx(
        2 * b.estimate["x1"] - b.replicates["x1"].quantile(0.05))


def test_grouped_jackknife_has_the_requested_groups(synth):
    r = fm.maxent("y ~ x1 + x2", synth)
    b = bootstrap(r, 20, ci_method="bca", jackknife=25, random_state=2, progress=False)
    assert b.jackknife.shape == (25, 4) and b.jackknife_groups == 25
    assert np.all(np.isfinite(b.conf_int().to_numpy()))


# --------------------------------------------------------------------------- fast path
@pytest.mark.parametrize("formula,weights,model", [
    ("y ~ x1 + x2 + g", "w", "maxent"),
    ("cbind(yes, no) ~ x1 + g", None, "maxent"),
    ("q ~ x1 + x2 + g", "w", "umaxent"),
])
@pytest.mark.parametrize("type_", ["case", "stratified"])
def test_fast_path_equals_full_refits(synth, formula, weights, model, type_):
    r = getattr(fm, model)(formula, synth, weights=weights, tol=1e-13)
    a = bootstrap(r, 12, type=type_, fast=True, random_state=4, progress=False,
                  replicates="full")
    b = bootstrap(r, 12, type=type_, fast=False, data=synth, random_state=4, progress=False)
    assert a.fast and not b.fast
    np.testing.assert_allclose(a.replicates, b.replicates, rtol=1e-9, atol=1e-12)
    # the default k-step replicates: within 0.02 of a replicate sd of the full ones
    k = bootstrap(r, 12, type=type_, fast=True, random_state=4, progress=False)
    sd = b.replicates.std(ddof=1).to_numpy()
    assert np.max(np.abs(k.replicates.to_numpy() - b.replicates.to_numpy()) / sd) < 0.02
    # and a replicate equals the fit on the duplicated rows, built independently
    c = a.counts(3)
    dup = getattr(fm, model)(formula, _resample(synth, c), weights=weights, tol=1e-13)
    np.testing.assert_allclose(a.replicates.iloc[3, :-1], dup.params, rtol=1e-9)
    assert a.replicates.iloc[3, -1] == pytest.approx(dup.measure(), rel=1e-12)


def test_stratified_keeps_class_counts(synth):
    r = fm.maxent("y ~ x1 + x2", synth)
    b = bootstrap(r, 5, type="stratified", random_state=1, progress=False)
    y = synth["y"].to_numpy()
    for i in range(5):
        c = b.counts(i)
        assert c.sum() == len(y) and c[y == 1].sum() == y.sum()
    case = bootstrap(r, 5, random_state=1, progress=False)
    assert any(case.counts(i)[y == 1].sum() != y.sum() for i in range(5))


def test_absent_level_is_nan_and_aligned_by_name(synth):
    rare = synth.copy()
    rare.loc[rare.index[:2], "g"] = "d"           # two rows of level d: often absent
    # a ridge penalty keeps the d effect finite when the resample holds one class of it
    r = fm.maxent("y ~ x1 + g", rare, penalty=1.0, tol=1e-12)
    with pytest.warns(ResamplingWarning, match="lack one or more terms"):
        a = bootstrap(r, 40, fast=True, random_state=9, progress=False, replicates="full")
    with pytest.warns(ResamplingWarning, match="lack one or more terms"):
        k = bootstrap(r, 40, fast=True, random_state=9, progress=False)
    # a k-step replicate missing the level is refitted in full (the column is dropped)
    np.testing.assert_array_equal(k.replicates["g[T.d]"].isna(), a.replicates["g[T.d]"].isna())
    with pytest.warns(ResamplingWarning, match="lack one or more terms"):
        b = bootstrap(r, 40, fast=False, data=rare, random_state=9, progress=False)
    absent = np.array([a.counts(i)[:2].sum() == 0 for i in range(40)])
    assert 0 < absent.sum() < 40
    np.testing.assert_array_equal(a.replicates["g[T.d]"].isna(), absent)
    np.testing.assert_array_equal(b.replicates["g[T.d]"].isna(), absent)
    assert a.n_incomplete == b.n_incomplete == absent.sum()
    assert a.replicates.drop(columns="g[T.d]").notna().all().all()
    np.testing.assert_allclose(a.replicates, b.replicates, rtol=1e-7, atol=1e-10)
    assert a.n_valid["g[T.d]"] == 40 - absent.sum()


# --------------------------------------------------------------------------- labels from q
def _label_noise_se(r, counts: bool) -> np.ndarray:
    """Delta-method SE of a refit on labels drawn from q: the fit on y* solves
    X'W(y* - p) = 0, so b* - b ~ (X'WVX)^-1 X'W (y* - q) with Var(y*) = q(1-q)/trials."""
    X, q, p = r.X, r.y, r.core_fit.mu
    w = r.prior_weights * (r.trials if counts else 1.0)
    bread = np.linalg.inv(X.T @ (X * (w * p * (1 - p))[:, None]))
    var = w ** 2 * q * (1 - q) / (r.trials if counts else 1.0)
    return np.sqrt(np.diag(bread @ (X.T @ (X * var[:, None])) @ bread))


@pytest.mark.parametrize("formula,counts", [("q ~ x1 + x2", False),
                                            ("cbind(yes, no) ~ x1 + x2", True)])
def test_labels_from_q_matches_delta_method_se(synth, formula, counts):
    r = fm.umaxent(formula, synth)
    b = bootstrap(r, 400, type="labels_from_q", random_state=8, progress=False)
    se = b.std_error[r.params.index].to_numpy()
    # B = 400: an SE has relative MC sd ~3.5%; 15% = 3 sd plus the linearisation error
    np.testing.assert_allclose(se, _label_noise_se(r, counts), rtol=0.15)


def test_labels_from_q_replicate_equals_fit_on_drawn_labels(synth):
    r = fm.umaxent("q ~ x1 + x2 + g", synth, weights="w", tol=1e-12)
    a = bootstrap(r, 6, type="labels_from_q", random_state=3, progress=False)
    b = bootstrap(r, 6, type="labels_from_q", fast=False, data=synth, random_state=3,
                  progress=False)
    np.testing.assert_allclose(a.replicates, b.replicates, rtol=1e-8)
    y = a.labels(2)
    assert set(np.unique(y)) == {0.0, 1.0}
    # the draws follow q: labels of rows with q near 0 are mostly 0
    assert y[synth["q"].to_numpy() < 0.05].mean() < 0.1
    ref = fm.umaxent("q ~ x1 + x2 + g", synth.assign(q=y), weights="w", tol=1e-12)
    np.testing.assert_allclose(a.replicates.iloc[2, :-1], ref.params, rtol=1e-8)


def test_labels_from_q_rejects_certain_labels(titanic_fit):
    with pytest.raises(InvalidArgumentError, match="certain 0/1 labels.*type='case'"):
        bootstrap(titanic_fit, 10, type="labels_from_q")


# --------------------------------------------------------------------------- other models
def test_fmaxent_bootstrap_refits_the_outer_loop(synth):
    small = synth.iloc[:150]
    r = fm.fmaxent("q ~ x1 + x2", small, alpha=0.3)
    lean = fm.maxent("y ~ x1 + x2", small, keep_data=False)
    with pytest.raises(InvalidArgumentError, match="fast=True needs a maxent"):
        bootstrap(lean, 3, data=small, fast=True)
    # the fast path: the outer loop on the stored arrays (fmstats.glm._outer)
    b = bootstrap(r, 3, data=small, random_state=5, progress=False, replicates="full")
    assert b.fast
    slow = bootstrap(r, 3, data=small, random_state=5, progress=False, fast=False)
    assert not slow.fast
    np.testing.assert_allclose(b.replicates, slow.replicates, rtol=1e-6, atol=1e-9)
    # without data= the replicates refit the rows the model kept: the same numbers (issue 26)
    kept = bootstrap(r, 3, random_state=5, progress=False, fast=False)
    np.testing.assert_array_equal(kept.replicates, slow.replicates)
    with pytest.raises(InvalidArgumentError, match="pass `data=`"):
        bootstrap(lean, 3, fast=False)
    ref = fm.fmaxent("q ~ x1 + x2", _resample(small, b.counts(1)), alpha=0.3)
    np.testing.assert_allclose(b.replicates.iloc[1, :-1], ref.params, rtol=1e-6)
    assert b.replicates.iloc[1, -1] == pytest.approx(ref.measure(), rel=1e-9)
    assert b.estimate.index[-1] == "training F(beta=1.52753)"


def test_callable_statistic(synth):
    r = fm.maxent("y ~ x1 + x2", synth, weights="w")
    b = bootstrap(r, 5, statistic=lambda m: m.params["x1"] / m.params["x2"], data=synth,
                  random_state=6, progress=False)
    assert list(b.replicates.columns) == ["statistic"]
    c = b.counts(4)
    ref = fm.maxent("y ~ x1 + x2", _resample(synth, c), weights="w")
    assert b.replicates.iloc[4, 0] == pytest.approx(ref.params["x1"] / ref.params["x2"],
                                                    rel=1e-8)


def test_array_weights_are_resampled_with_the_rows(synth):
    w = synth["w"].to_numpy()
    r = fm.maxent("y ~ x1 + x2", synth, weights=w)
    b = bootstrap(r, 3, data=synth, fast=False, random_state=6, progress=False)
    c = b.counts(2)
    ref = fm.maxent("y ~ x1 + x2", _resample(synth, c), weights=np.repeat(w, c))
    np.testing.assert_allclose(b.replicates.iloc[2, :-1], ref.params, rtol=1e-8)


def test_refit_of_array_weighted_fit_needs_new_weights(synth):
    w = synth["w"].to_numpy()
    r = fm.maxent("y ~ x1 + x2", synth, weights=w)
    with pytest.raises(InvalidArgumentError, match="weights.*array"):
        r.refit(synth.iloc[:50])
    again = r.refit(synth, weights=w)
    np.testing.assert_allclose(again.params, r.params, rtol=1e-12)


# --------------------------------------------------------------------------- reproducibility
def _same_whatever_n_jobs(synth, backend):
    from joblib import parallel_config

    r = fm.maxent("y ~ x1 + x2 + g", synth)
    one = bootstrap(r, 24, n_jobs=1, random_state=12, progress=False)
    with parallel_config(backend=backend):
        two = bootstrap(r, 24, n_jobs=2, random_state=12, progress=False)
        refit = bootstrap(r, 8, n_jobs=2, fast=False, data=synth, random_state=12,
                          progress=False)
    np.testing.assert_array_equal(one.replicates, two.replicates)
    np.testing.assert_array_equal(refit.replicates, bootstrap(
        r, 8, n_jobs=1, fast=False, data=synth, random_state=12, progress=False).replicates)
    other = bootstrap(r, 24, n_jobs=1, random_state=13, progress=False)
    assert not np.allclose(one.replicates, other.replicates)


def test_same_replicates_whatever_n_jobs_threads(synth):
    _same_whatever_n_jobs(synth, "threading")


@pytest.mark.slow
def test_same_replicates_whatever_n_jobs_processes(synth):
    _same_whatever_n_jobs(synth, "loky")   # ~10 s: starting the worker processes


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_replicates(synth):
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    r = fm.maxent("y ~ x1 + x2 + g", synth)
    ref = bootstrap(r, 16, n_jobs=1, random_state=21, progress=False)
    refit_ref = bootstrap(r, 6, fast=False, data=synth, n_jobs=1, random_state=21,
                          progress=False)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster):
            with parallel_config(backend="dask"):
                got = bootstrap(r, 16, random_state=21, progress=False)
                refit = bootstrap(r, 6, fast=False, data=synth, random_state=21,
                                  progress=False)
    np.testing.assert_array_equal(got.replicates, ref.replicates)
    np.testing.assert_array_equal(refit.replicates, refit_ref.replicates)


def test_pickle_round_trip(titanic_fit, tmp_path):
    b = bootstrap(titanic_fit, 30, ci_method="bca", jackknife=20, random_state=1, progress=False)
    c = pickle.loads(pickle.dumps(b))
    assert isinstance(c, BootstrapResults)
    pd.testing.assert_frame_equal(c.replicates, b.replicates)
    pd.testing.assert_frame_equal(c.tidy(), b.tidy())
    assert str(c.summary()) == str(b.summary())
    np.testing.assert_array_equal(c.counts(7), b.counts(7))
    with pytest.raises(AttributeError):
        b.B = 3  # frozen


def test_plots(titanic_fit):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    b = bootstrap(titanic_fit, 30, random_state=1, progress=False)
    fig = b.plot()
    # coefficients and the training F on separate panels (issue 18)
    assert len(fig.axes) == 2
    assert sum(len(a.get_yticklabels()) for a in fig.axes) == len(b.estimate)
    fig2 = b.plot("hist", terms=["age", "sex[T.male]"])
    assert sum(a.get_visible() for a in fig2.axes) == 2
    plt.close("all")
    with pytest.raises(InvalidArgumentError, match="unknown term"):
        b.plot(terms=["nope"])


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs,error,match", [
    (dict(B=1), InvalidArgumentError, r"`B` must lie in \[2, inf\]; got 1"),
    (dict(B=2.5), InvalidArgumentError, "`B` must be an integer"),
    (dict(type="jackknife"), InvalidArgumentError, "`type` must be one of 'case'"),
    (dict(ci_method="normal"), InvalidArgumentError, "`ci_method` must be one of 'percentile'"),
    (dict(level=1.0), InvalidArgumentError, "`level` must lie in"),
    (dict(statistic="params"), InvalidArgumentError, "`statistic` must be None or a function"),
    (dict(fast="yes"), InvalidArgumentError, "`fast` must be True, False or None"),
    (dict(statistic=lambda m: 1.0, fast=True), InvalidArgumentError, "use fast=False"),
    (dict(n_jobs=0), InvalidArgumentError, "`n_jobs` must lie in"),
    (dict(random_state=-1), InvalidArgumentError, "`random_state` must be None"),
])
def test_bad_arguments(titanic_fit, titanic, kwargs, error, match):
    kwargs = {"B": 5, "data": titanic, **kwargs}
    with pytest.raises(error, match=match):
        bootstrap(titanic_fit, **kwargs)


def test_bca_with_labels_from_q_is_refused(synth):
    r = fm.umaxent("q ~ x1", synth)
    with pytest.raises(InvalidArgumentError, match="ci_method='bca' needs a jackknife over rows"):
        bootstrap(r, 5, type="labels_from_q", ci_method="bca")


def test_bca_interval_needs_the_jackknife(titanic_fit):
    b = bootstrap(titanic_fit, 5, random_state=1, progress=False)
    with pytest.raises(InvalidArgumentError, match="rerun bootstrap"):
        b.conf_int("bca")


def test_data_mismatch(titanic_fit, titanic):
    with pytest.raises(DataError, match="does not match.*response differs"):
        bootstrap(titanic_fit, 5, data=titanic.assign(survived=1 - titanic["survived"]),
                  fast=False)
    with pytest.raises(DataError, match="design matrix differs"):
        bootstrap(titanic_fit, 5, data=titanic.assign(age=titanic["age"] + 1), fast=False)
    with pytest.raises(DataError, match="lacks 10 of the 1046 rows"):
        bootstrap(titanic_fit, 5, data=titanic.iloc[10:], fast=False)
    with pytest.raises(DataError, match="duplicate index labels"):
        bootstrap(titanic_fit, 5, data=pd.concat([titanic, titanic]), fast=False)
    with pytest.raises(InvalidArgumentError, match="must be a pandas DataFrame"):
        bootstrap(titanic_fit, 5, data=titanic.to_numpy(), fast=False)


def test_failed_replicates_are_counted_and_reported():
    # 12 rows, 2 positives: some resamples have no positive at all
    d = pd.DataFrame({"x": np.arange(12.0), "y": [0, 1] + [0] * 9 + [1]})
    r = fm.maxent("y ~ x", d, penalty=1.0)
    with pytest.warns(ResamplingWarning, match="fits failed.*single class"):
        b = bootstrap(r, 30, random_state=0, progress=False)
    no_pos = np.array([b.counts(i)[[1, 11]].sum() == 0 for i in range(30)])
    assert b.n_failed == no_pos.sum() > 0
    np.testing.assert_array_equal(b.replicates.isna().all(axis=1), no_pos)


# --------------------------------------------------------------------------- other models
def test_wsvm_replicate_equals_a_fit_on_the_resampled_rows(titanic):
    r = fm.wsvm(TITANIC, titanic, C_pos=1.0, C_neg=0.5)
    b = bootstrap(r, 3, data=titanic, random_state=8, progress=False)
    c = b.counts(1)
    ref = fm.wsvm(TITANIC, _resample(titanic, c), C_pos=1.0, C_neg=0.5)
    np.testing.assert_allclose(b.replicates.iloc[1][ref.params.index], ref.params,
                               rtol=1e-6, atol=1e-8)
    v = fm.validate(r, 3, data=titanic, random_state=8, progress=False)
    assert np.isclose(v.tidy().set_index("measure").loc["F1", "apparent"], r.measure(),
                      rtol=1e-12)


def test_thresholded_classifier_is_refitted_and_retuned(titanic):
    base = fm.maxent(TITANIC, titanic)
    t = fm.tune_threshold(base, titanic, cv=3, random_state=2, progress=False)
    assert t.params.index[-1] == "threshold" and t.params["threshold"] == t.threshold  # a copy
    b = bootstrap(t, 2, random_state=4, progress=False)
    sub = _resample(t.training_data, b.counts(0))
    ref = t.refit(sub)
    np.testing.assert_allclose(b.replicates.iloc[0][ref.params.index], ref.params, rtol=1e-9)
    assert b.model_table is not None  # the base model's own coefficient table
