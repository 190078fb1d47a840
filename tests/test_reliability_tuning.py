"""Issue 16, tuning and resampling: no silent wrong answers, a clear error for bad input.

Every case failed (or passed silently) before the fix.  References are independent: fits on
duplicated rows (frequency weights), numpy hand loops, statsmodels GLMs per replicate.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

import fmstats as fm
from fmstats.exceptions import DataError, FmstatsError, InvalidArgumentError, ResamplingWarning

FORMULA = "y ~ x1 + x2"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 120
    d = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n)})
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-(-1.2 + 1.5 * d.x1 - d.x2)))).astype(int)
    d["k"] = np.where(d.y == 1, 3, 1)          # frequency weights: 3 for positives
    return d


def _folds(n, k=5, seed=0):
    fold = np.random.default_rng(seed).permutation(np.arange(n) % k)
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)]


def _duplicated(d):
    """The rows repeated k times, and the position of each copy's original row."""
    src = np.repeat(np.arange(len(d)), d["k"].to_numpy())
    return d.iloc[src].reset_index(drop=True), src


def _dup_folds(pairs, src):
    """The same folds on the duplicated rows: every copy goes where its original went."""
    return [(np.flatnonzero(np.isin(src, tr)), np.flatnonzero(np.isin(src, te)))
            for tr, te in pairs]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------- item 3: SVMs
@pytest.mark.parametrize("model", [fm.wsvm, fm.fsvm])
def test_tune_threshold_svm_thresholds_decision_values(data, model):
    fit = _quiet(model, FORMULA, data)
    pairs = _folds(len(data))
    tuned = _quiet(fm.tune_threshold, fit, data, cv=pairs)
    assert tuned.score_type == "decision"
    # hand loop: decision values of the fold refits, best pooled F1 over every cut
    scores, truth = np.empty(len(data)), data["y"].to_numpy()
    for tr, te in pairs:
        f = _quiet(fit.refit, data.iloc[tr])
        scores[te] = f.predict(data.iloc[te], type="decision").to_numpy()
    best = max(2 * np.sum(truth * (scores >= t)) / (truth.sum() + np.sum(scores >= t))
               for t in np.unique(scores))
    assert len(tuned.tidy()) == len(np.unique(scores)) + 1   # every cut, not {inf, 1, 0}
    assert tuned.best_score == pytest.approx(best, rel=1e-12)
    own = 2 * np.sum(truth * (scores > 0)) / (truth.sum() + np.sum(scores > 0))
    assert tuned.cv_value(np.nextafter(0.0, 1.0))["f"] == pytest.approx(own, rel=1e-12)
    assert "own rule (decision value > 0)" in str(tuned.summary())


def test_tune_threshold_svm_refuses_class_response(data):
    fit = _quiet(fm.wsvm, FORMULA, data)
    with pytest.raises(InvalidArgumentError, match="type='decision'"):
        fm.tune_threshold(fit, data, cv=3, type="response")


# ----------------------------------------------------------------------------- item 4: data
@pytest.mark.parametrize("change", ["flipped", "subset"])
def test_tune_threshold_checks_training_data(data, change):
    fit = fm.maxent(FORMULA, data)
    other = data.assign(y=1 - data["y"]) if change == "flipped" else data.iloc[:40]
    with pytest.raises(DataError, match="fitted on"):
        fm.tune_threshold(fit, other, cv=3)
    with pytest.raises(DataError, match="fitted on"):   # as bootstrap refuses it
        fm.bootstrap(fit, B=2, data=other, fast=False)


# ----------------------------------------------------------------------------- item 5: weights
@pytest.mark.parametrize("how", ["column", "array"])
def test_tune_threshold_frequency_weights_equal_duplicated_rows(data, how):
    w = "k" if how == "column" else data["k"].to_numpy()
    fit = fm.maxent(FORMULA, data, weights=w)
    dup, src = _duplicated(data)
    ref = fm.maxent(FORMULA, dup)
    pairs = _folds(len(data))
    a = fm.tune_threshold(fit, data, cv=pairs)
    b = fm.tune_threshold(ref, dup, cv=_dup_folds(pairs, src))
    assert a.threshold == pytest.approx(b.threshold, rel=1e-7)
    assert a.best_score == pytest.approx(b.best_score, rel=1e-12)
    np.testing.assert_allclose(a.tidy()[["tp", "fp", "fn", "tn"]],
                               b.tidy()[["tp", "fp", "fn", "tn"]], rtol=1e-9)
    # the tuned model's own (weighted) F on its training rows is the duplicated fit's
    assert a.measure() == pytest.approx(b.measure(), rel=1e-12)
    # so are its curves on the tuning rows (counted with the prior weights)
    np.testing.assert_allclose(a.f_curve()[["tp", "fp", "fn", "tn"]],
                               b.f_curve()[["tp", "fp", "fn", "tn"]], rtol=1e-9)


@pytest.mark.parametrize("how", ["column", "array"])
def test_cv_tune_frequency_weights_equal_duplicated_rows(data, how):
    w = "k" if how == "column" else data["k"].to_numpy()
    dup, src = _duplicated(data)
    pairs = _folds(len(data))
    grid = {"penalty": [0.0, 5.0]}
    a = fm.cv_tune(fm.maxent, FORMULA, data, grid, cv=pairs, weights=w)
    b = fm.cv_tune(fm.maxent, FORMULA, dup, grid, cv=_dup_folds(pairs, src))
    cols = ["f", "precision", "recall", "accuracy", "fold_mean"]
    np.testing.assert_allclose(a.tidy()[cols], b.tidy()[cols], rtol=1e-12)
    np.testing.assert_allclose(a.fold_results[["tp", "fp", "fn", "tn"]],
                               b.fold_results[["tp", "fp", "fn", "tn"]], rtol=1e-9)


def test_cv_tune_model_fn_returning_none_is_an_error(data):
    def broken(formula, data, **kwargs):
        return None

    with pytest.raises(InvalidArgumentError, match="model_fn.*returned None"):
        fm.cv_tune(broken, FORMULA, data, [{}], cv=3)


# ----------------------------------------------------------------------------- item 10
@pytest.fixture(scope="module")
def titanic_boot():
    d = fm.datasets.titanic_complete()
    formula = "survived ~ C(pclass) * sex + age + sibsp"
    fit = fm.maxent(formula, d)
    out = {}
    for how in ("drop", "keep"):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out[how] = fm.bootstrap(fit, B=200, random_state=1, degenerate=how)
        out[how + "_warnings"] = rec
    return d, formula, fit, out


def _separated_cells(d, counts):
    """Hand check: some pclass x sex cell of the resample holds one class only."""
    sub = d.loc[d.index.repeat(counts)]
    return bool((sub.groupby(["pclass", "sex"])["survived"].nunique() < 2).any())


def test_bootstrap_counts_and_drops_separated_replicates(titanic_boot):
    d, formula, fit, out = titanic_boot
    boot = out["drop"]
    hand = np.array([_separated_cells(d, boot.counts(i)) for i in range(boot.B)])
    assert hand.sum() == 3
    assert boot.n_separated == 3
    assert set(boot.degenerate_replicates) == set(np.flatnonzero(hand))
    assert "Replicates without a finite MLE (separated): 3" in str(boot.summary())
    from fmstats.resampling import DegenerateReplicateWarning

    assert any(issubclass(w.category, DegenerateReplicateWarning)
               and "penalty=" in str(w.message) for w in out["drop_warnings"])
    # reference: statsmodels on every resample with a finite MLE
    intercepts = []
    for i in np.flatnonzero(~hand):
        c = boot.counts(i)
        design = fit.X                      # the stored design, rows weighted by counts
        rows = c > 0
        r = sm.GLM(fit.y[rows], design[rows], family=sm.families.Binomial(),
                   freq_weights=c[rows]).fit(tol=1e-12)
        intercepts.append(r.params[0])
    # the replicates are k-step refits (within ~0.01 SE of full ones): their sd equals the
    # statsmodels replicates' to 0.5 %; the reported SE is the control-variate estimate of it
    plain = boot.replicates["Intercept"].dropna().std(ddof=1)
    assert plain == pytest.approx(np.std(intercepts, ddof=1), rel=5e-3)
    assert boot.std_error["Intercept"] == pytest.approx(plain, rel=0.15)
    assert boot.std_error["Intercept"] < 1.0


def test_bootstrap_keep_degenerate_replicates_warns(titanic_boot):
    _, _, _, out = titanic_boot
    boot = out["keep"]
    assert boot.n_separated == 3
    assert boot.std_error["Intercept"] > 1.5          # kept: they inflate the SE
    assert any("degenerate='keep'" in str(w.message) for w in out["keep_warnings"])
    assert "Those replicates: kept" in str(boot.summary())


def test_bootstrap_statistic_nan_in_every_replicate_warns(data):
    fit = fm.maxent(FORMULA, data)
    with pytest.warns(ResamplingWarning, match="NaN .* in every replicate"):
        fm.bootstrap(fit, B=3, data=data, random_state=0,
                     statistic=lambda r: pd.Series({"a": r.params.iloc[0], "b": np.nan}))


def test_bootstrap_degenerate_argument_checked(data):
    fit = fm.maxent(FORMULA, data)
    with pytest.raises(FmstatsError, match="degenerate"):
        fm.bootstrap(fit, B=3, degenerate="ignore")


# ----------------------------------------------------------------------------- item 9
@pytest.fixture(scope="module")
def tiny():
    """40 rows, 3 positives: the model barely fits, its optimism exceeds its apparent F."""
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"x1": rng.normal(size=40), "x2": rng.normal(size=40),
                      "x3": rng.normal(size=40)})
    y = np.zeros(40, int)
    y[rng.choice(40, 3, replace=False)] = 1
    return d.assign(y=y)


def test_validate_keeps_estimates_in_range_and_warns(tiny):
    from fmstats.resampling import OptimismWarning

    fit = _quiet(fm.maxent, "y ~ x1 + x2 + x3", tiny)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        v = fm.validate(fit, B=50, random_state=1)
    assert any(issubclass(w.category, OptimismWarning) and "penalty=" in str(w.message)
               for w in rec)
    t = v.tidy().iloc[0]
    # hand computation from the replicates: optimism = mean(training - test)
    name = v.table.index[0]
    opt = np.mean(v.replicates[(name, "training")] - v.replicates[(name, "test")])
    assert t["optimism"] == pytest.approx(opt, rel=1e-12)
    assert t["optimism"] > t["apparent"]
    assert t["unclipped_boot"] == pytest.approx(t["apparent"] - opt, rel=1e-12)
    for col in ("corrected_boot", "corrected_632", "corrected_632plus", "corrected"):
        assert 0.0 <= t[col] <= 1.0
    # exact: the optimism exceeds the apparent value (above), so both sides are the clip, 0
    assert t["corrected_boot"] == max(0.0, t["apparent"] - opt)
    assert bool(t["clipped"])
    assert "Clipped to [0, 1]" in str(v.summary())


# ----------------------------------------------------------------------------- item 11
@pytest.mark.parametrize("max_cells", [0, -3, 5, 2.5])
def test_resample_f_max_cells_checked(data, max_cells):
    fit = fm.maxent(FORMULA, data)
    with pytest.raises(InvalidArgumentError, match="max_cells"):
        fm.resample_f(fit, B=10, max_cells=max_cells)


def test_resample_f_needs_probabilities(data):
    fit = _quiet(fm.wsvm, FORMULA, data)
    with pytest.raises(InvalidArgumentError, match="`results`.*probabilities"):
        fm.resample_f(fit, B=10)


@pytest.mark.parametrize("cands", [[[0.1, 0.5], [0.2, 0.6]], np.full((3, 1), 0.5)])
def test_fta_two_dimensional_candidates_refused(cands):
    from fmstats.extreme import fta

    P = np.array([[0.9, 0.3], [0.2, 0.6], [0.6, 0.1]])
    Y = np.array([[1, 0], [0, 1], [1, 0]])
    with pytest.raises(InvalidArgumentError, match="`candidates` must be a 1-d"):
        fta(P, Y, cands)


# ----------------------------------------------------------------------------- raw exceptions
@pytest.mark.parametrize("alphas", [[], [[0.3, 0.5]], np.array([[0.5]]), ["a"], [0.0, 0.5]])
def test_sweep_alphas_checked(alphas):
    d = fm.datasets.load_titanic()
    with pytest.raises(InvalidArgumentError, match="`alphas` must be a non-empty 1-d"):
        fm.sweep("survived ~ sex", d, alphas=alphas)


@pytest.mark.parametrize("value", [0, 1])
def test_costsens_one_class_names_the_response(data, value):
    d = data.assign(y=value)
    with pytest.raises(FmstatsError, match="single class") as err:
        fm.costsens("y ~ x1 + x2", d)
    assert "split" not in str(err.value).replace("whatever the validation split", "")


def test_bootstrap_ridge_penalty_has_no_degenerate_replicates():
    """The advice works: with a ridge penalty every replicate has a finite estimate."""
    d = fm.datasets.titanic_complete()
    fit = fm.maxent("survived ~ C(pclass) * sex + age + sibsp", d, penalty=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        boot = fm.bootstrap(fit, B=200, random_state=1)
    assert boot.n_separated == 0 and boot.degenerate_replicates == ()
    assert boot.std_error["Intercept"] < 1.0


def test_bootstrap_unconverged_replicates_counted(data):
    """IRLS stopped after 2 steps: every replicate is unconverged, as the original fit; they
    are counted and reported but kept (dropping would leave nothing)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fm.maxent(FORMULA, data, max_iter=2)
    assert not fit.converged
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        boot = fm.bootstrap(fit, B=20, random_state=0)
    assert boot.n_nonconverged == 20
    assert boot.replicates.notna().all().all()
    assert any("did not converge" in str(w.message) for w in rec)
    assert "Replicates not converged: 20" in str(boot.summary())


def test_tune_wsvm_batched_grid_weights_equal_duplicated_rows(data):
    """tune_wsvm's batched grid scores held-out rows with their weights, as cv_tune does."""
    from fmstats.svm import tune_wsvm

    dup, src = _duplicated(data)
    pairs = _folds(len(data), k=3)
    grid = [{"C_pos": cp, "C_neg": cn} for cp in (1.0, 10.0, 100.0) for cn in (1.0, 10.0)]
    a = _quiet(tune_wsvm, FORMULA, data, cv=pairs, weights="k", grid=grid, progress=False)
    b = _quiet(tune_wsvm, FORMULA, dup, cv=_dup_folds(pairs, src), grid=grid, progress=False)
    np.testing.assert_allclose(a.fold_results[["tp", "fp", "fn", "tn"]],
                               b.fold_results[["tp", "fp", "fn", "tn"]], atol=1e-9)
    np.testing.assert_allclose(a.tidy()["f"], b.tidy()["f"], rtol=1e-12)
