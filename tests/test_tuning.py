"""Cross-validated tuning (cv_tune) and threshold tuning (tune_threshold).

Reference values are computed independently in the tests: fold fits by statsmodels' GLM
and confusion counts with numpy; the threshold search is compared with scikit-learn's
TunedThresholdClassifierCV on the same folds and with a brute-force loop.
"""
import pickle

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf

import fmstats as fm
from fmstats._utils.validation import check_choice
from fmstats.exceptions import (DataWarning, InvalidArgumentError, ResponseError,
                                SeparationWarning)
from fmstats.model_selection import (CvTuneResults, EmptyFoldWarning, FitFailedWarning,
                            TuneThresholdResults, cv_tune, tune_threshold)

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

FORMULA = "y ~ x1 + x2 + C(g)"


def _folds(y, k, seed):
    """Explicit folds made here with numpy (not by fmstats): rows dealt at random."""
    rng = np.random.default_rng(seed)
    fold = rng.permutation(np.arange(len(y)) % k)
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)]


def _glm_counts(data, folds, threshold):
    """(k, 4) TP, FP, FN, TN of statsmodels' binomial GLM on every fold, counted by numpy."""
    out = []
    for train, test in folds:
        fit = smf.glm(FORMULA, data.iloc[train], family=sm.families.Binomial()).fit(tol=1e-12)
        p = fit.predict(data.iloc[test]).to_numpy()
        # statsmodels' and fmstats' probabilities agree to ~1e-10, not bit for bit: the counts
        # are compared exactly, so no probability may lie that close to the threshold
        assert np.abs(p - threshold).min() > 1e-8
        pred = p >= threshold
        y = data["y"].to_numpy()[test] == 1
        out.append([np.sum(y & pred), np.sum(~y & pred), np.sum(y & ~pred), np.sum(~y & ~pred)])
    return np.array(out, dtype=float)


def _fbeta(tp, fp, fn, beta):
    b2 = beta * beta
    return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)


def weighted_maxent(formula, data, *, w_pos=1.0, w_neg=1.0):
    """A class-weighted maxent: the (C+, C-) grid of the thesis's SVM chapter, on maxent."""
    y = data["y"].to_numpy()
    return fm.maxent(formula, data, weights=np.where(y == 1, w_pos, w_neg))


def noisy_maxent(formula, data, **kwargs):
    fm._utils.validation.warn("a warning from every fit", DataWarning)
    return fm.maxent(formula, data, **kwargs)


class LinkOnly:
    """A model that gives decision scores (the link) but no probabilities."""

    def __init__(self, base):
        self.base, self.formula = base, base.formula

    def predict(self, newdata=None, type="decision"):
        check_choice("type", type, ("decision", "class"))
        return self.base.predict(newdata, type="link")

    def refit(self, data):
        return LinkOnly(self.base.refit(data))


# ----------------------------------------------------------------------------- cv_tune
@pytest.mark.parametrize("pooling", ["tp_fp", "mean"])
def test_pooled_cv_f_equals_hand_computation(synth, pooling):
    folds = _folds(synth["y"].to_numpy(), 4, seed=3)
    thresholds = [0.3, 0.5, 0.7]
    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": thresholds}, cv=folds, beta=2,
                  pooling=pooling)
    table = res.tidy()
    for i, t in enumerate(thresholds):
        c = _glm_counts(synth, folds, t)
        np.testing.assert_array_equal(
            res.fold_results.query("point == @i")[["tp", "fp", "fn", "tn"]].to_numpy(), c)
        tp, fp, fn, tn = c.sum(axis=0)
        want = (_fbeta(tp, fp, fn, 2.0) if pooling == "tp_fp"
                else np.mean(_fbeta(c[:, 0], c[:, 1], c[:, 2], 2.0)))
        assert table.loc[i, "f"] == pytest.approx(want, rel=1e-12)
        assert table.loc[i, "precision"] == pytest.approx(tp / (tp + fp), rel=1e-12)
        assert table.loc[i, "recall"] == pytest.approx(tp / (tp + fn), rel=1e-12)
        fold_f = _fbeta(c[:, 0], c[:, 1], c[:, 2], 2.0)
        assert table.loc[i, "fold_sd"] == pytest.approx(np.std(fold_f, ddof=1), rel=1e-10)
        assert table.loc[i, "fold_min"] == pytest.approx(fold_f.min(), rel=1e-12)
    # the stated tie rule: the first point within TIE_RTOL of the best
    assert res.best_index == fm.measures.best_position(table["f"])
    assert res.best_params == {"threshold": thresholds[res.best_index]}


def test_with_measure_binds_the_models_own_measure(synth):
    folds = _folds(synth["y"].to_numpy(), 3, seed=5)
    bound = fm.with_measure(fm.maxent, beta=2)
    res = cv_tune(bound, FORMULA, synth, {"threshold": [0.3, 0.5]}, cv=folds, alpha=0.5)
    assert res.best_model.fmeasure == fm.FMeasure(beta=2)     # the model's F: F2
    assert res.fmeasure == fm.FMeasure(alpha=0.5)             # the criterion: F1
    plain = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5]}, cv=folds, alpha=0.5)
    pd.testing.assert_frame_equal(res.tidy(), plain.tidy())   # same fits, same folds
    with pytest.raises(InvalidArgumentError, match="'beta'.*does not take"):
        cv_tune(bound, FORMULA, synth, {"beta": [1, 2]}, cv=folds)
    assert pickle.loads(pickle.dumps(bound))(FORMULA, synth).fmeasure == fm.FMeasure(beta=2)


def test_accuracy_criterion_is_pooled_accuracy(synth):
    folds = _folds(synth["y"].to_numpy(), 3, seed=8)
    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.2, 0.5]}, cv=folds,
                  measure="accuracy", beta=0.5)
    for i, t in enumerate([0.2, 0.5]):
        tp, fp, fn, tn = _glm_counts(synth, folds, t).sum(axis=0)
        assert res.tidy().loc[i, "accuracy"] == pytest.approx((tp + tn) / len(synth), rel=1e-12)
        assert res.tidy().loc[i, "f"] == pytest.approx(_fbeta(tp, fp, fn, 0.5), rel=1e-12)
    assert res.criterion == "accuracy" and res.best_params == {"threshold": 0.5}


def test_same_folds_for_every_grid_point_and_seed(synth):
    grid = [{"threshold": 0.5}, {"threshold": 0.4}, {"threshold": 0.5}]
    a = cv_tune(fm.maxent, FORMULA, synth, grid, cv=5, random_state=7, refit=False)
    b = cv_tune(fm.maxent, FORMULA, synth, {"penalty": [0.0]}, cv=5, random_state=7, refit=False)
    c = cv_tune(fm.maxent, FORMULA, synth, {"penalty": [0.0]}, cv=5, random_state=8, refit=False)
    for (tr_a, te_a), (tr_b, te_b) in zip(a.folds, b.folds):
        np.testing.assert_array_equal(te_a, te_b)
        np.testing.assert_array_equal(np.sort(np.r_[tr_a, te_a]), np.arange(len(synth)))
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(a.folds, c.folds))
    fr = a.fold_results.set_index(["point", "fold"])[["tp", "fp", "fn", "tn"]]
    # identical points give identical fold counts: every point saw the same splits
    np.testing.assert_array_equal(fr.loc[0].to_numpy(), fr.loc[2].to_numpy())
    np.testing.assert_array_equal(fr.loc[0].sum(axis=1).to_numpy(),
                                  [len(te) for _, te in a.folds])
    # stratified: each test fold holds floor or ceil of a fifth of the positives
    pos = synth["y"].to_numpy()
    per_fold = [pos[te].sum() for _, te in a.folds]
    assert max(per_fold) - min(per_fold) <= 1 and sum(per_fold) == pos.sum()


def test_results_identical_for_one_and_two_jobs(synth):
    kw = dict(cv=3, random_state=2, beta=2)
    one = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5]}, n_jobs=1, **kw)
    two = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5]}, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(one.tidy(), two.tidy())
    pd.testing.assert_frame_equal(one.fold_results, two.fold_results)
    fit = fm.maxent(FORMULA, synth)
    t1 = tune_threshold(fit, synth, n_jobs=1, **kw)
    t2 = tune_threshold(fit, synth, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(t1.tidy(), t2.tidy())
    assert t1.threshold == t2.threshold      # the same computation whatever n_jobs


def test_lower_triangular_grid_and_dataframe_grid(synth):
    levels = [1.0, 2.0, 4.0]
    grid = [{"w_pos": a, "w_neg": b} for a in levels for b in levels if a >= b]
    res = cv_tune(weighted_maxent, "y ~ x1 + x2", synth, grid, cv=3, random_state=1, beta=2)
    table = res.tidy()
    assert len(table) == 6 and (table["w_pos"] >= table["w_neg"]).all()
    # F of integer counts: ties are exact, so the tie rule's winner holds the maximum, rank 1
    assert res.best_score == table["f"].max() and table.loc[res.best_index, "rank"] == 1
    as_frame = cv_tune(weighted_maxent, "y ~ x1 + x2", synth, pd.DataFrame(grid), cv=3,
                       random_state=1, beta=2)
    pd.testing.assert_frame_equal(as_frame.tidy(), table)
    # a larger positive weight moves predictions towards the positive class: recall rises
    diag = table[table["w_neg"] == 1.0].sort_values("w_pos")
    assert diag["recall"].is_monotonic_increasing


def test_repeats_and_splitters(synth):
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold

    y = synth["y"].to_numpy()
    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=4, repeats=3,
                  random_state=0, refit=False)
    assert len(res.folds) == 12
    ft = res.fold_table()
    assert (ft.groupby("repeat")["n_test"].sum() == len(synth)).all()
    skf = StratifiedKFold(4, shuffle=True, random_state=0)
    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=skf, refit=False)
    for (_, te), (_, te_sk) in zip(res.folds, skf.split(np.zeros((len(y), 1)), y)):
        np.testing.assert_array_equal(te, te_sk)
    rskf = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    assert len(cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=rskf).folds) == 6


def test_failed_fits_are_recorded_not_dropped(synth):
    with pytest.warns(FitFailedWarning, match="3 of 9 fold fits failed.*penalty"):
        res = cv_tune(fm.maxent, FORMULA, synth, {"penalty": [-1.0, 0.0, 1.0]}, cv=3,
                      random_state=0)
    table = res.tidy()
    assert table.loc[0, "n_failed"] == 3 and np.isnan(table.loc[0, "f"])
    assert (table.loc[1:, "n_failed"] == 0).all() and res.best_index in (1, 2)
    errors = res.fold_results.query("point == 0")["error"]
    assert errors.str.contains("InvalidArgumentError: `penalty`").all()
    assert res.fold_results.query("point > 0")["error"].isna().all()
    with pytest.raises(InvalidArgumentError, match="penalty"):
        cv_tune(fm.maxent, FORMULA, synth, {"penalty": [-1.0, 0.0]}, cv=3, on_error="raise")
    with pytest.raises(fm.FmstatsError, match="every grid point failed"):
        cv_tune(fm.maxent, FORMULA, synth, {"penalty": [-1.0]}, cv=3)


def test_warnings_inside_fits_are_reemitted_once(synth):
    with pytest.warns(DataWarning, match="4 warning\\(s\\) of this kind in 4 fold fits") as rec:
        cv_tune(noisy_maxent, FORMULA, synth, {"threshold": [0.4, 0.5]}, cv=2, refit=False)
    assert sum(issubclass(w.category, DataWarning) for w in rec) == 1


def test_folds_without_positives_warn(synth):
    y = synth["y"].to_numpy()
    neg = np.flatnonzero(y == 0)
    folds = [(np.setdiff1d(np.arange(len(y)), neg[:30]), neg[:30]),
             (neg[:30], np.setdiff1d(np.arange(len(y)), neg[:30]))]
    folds[1] = (np.r_[neg[:30], np.flatnonzero(y == 1)[:20]],
                np.setdiff1d(np.arange(len(y)), np.r_[neg[:30], np.flatnonzero(y == 1)[:20]]))
    with pytest.warns(EmptyFoldWarning, match="1 of 2 test folds.*pooling='tp_fp'.*false pos"):
        res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=folds)
    tp, fp, fn, _ = res.fold_results[["tp", "fp", "fn", "tn"]].sum().to_numpy()
    assert res.best_score == pytest.approx(tp / (tp + 0.5 * fp + 0.5 * fn), rel=1e-12)
    with pytest.warns(EmptyFoldWarning, match="pooling='mean'.*biases"):
        cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=folds, pooling="mean")


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(grid={"penaltyy": [0, 1]}), InvalidArgumentError, "'penaltyy'.*valid names: .*penalty"),
    (dict(grid={"penalty": [0]}, tol2=1), InvalidArgumentError, "'tol2'.*valid names"),
    (dict(grid={"penalty": [0]}, penalty=1), InvalidArgumentError, "both in `grid`"),
    (dict(grid=[]), InvalidArgumentError, "`grid` is empty"),
    (dict(grid={}), InvalidArgumentError, "empty dict"),
    (dict(grid={"penalty": []}), InvalidArgumentError, "non-empty list"),
    (dict(grid={"penalty": 1.0}), InvalidArgumentError, "non-empty list"),
    (dict(grid=pd.DataFrame({"penalty": []})), InvalidArgumentError, "`grid` is empty"),
    (dict(grid=[{"f": 1}]), InvalidArgumentError, "result columns"),
    (dict(grid="penalty"), InvalidArgumentError, "dict of lists"),
    (dict(grid={"penalty": [0]}, cv=1), InvalidArgumentError, "`cv` must lie in"),
    (dict(grid={"penalty": [0]}, cv="five"), InvalidArgumentError, "`cv` must be an integer"),
    (dict(grid={"penalty": [0]}, cv=[(np.arange(5), np.arange(3))]), InvalidArgumentError,
     "both for training and for testing"),
    (dict(grid={"penalty": [0]}, cv=[(np.arange(5), np.arange(400, 402))]),
     InvalidArgumentError, "outside"),
    (dict(grid={"penalty": [0]}, pooling="micro"), InvalidArgumentError, "`pooling`"),
    (dict(grid={"penalty": [0]}, measure="f1"), InvalidArgumentError, "'accuracy'"),
    (dict(grid={"penalty": [0]}, beta=1, alpha=0.5), InvalidArgumentError, "at most one"),
    (dict(grid={"penalty": [0]}, progress="yes"), InvalidArgumentError, "`progress`"),
    (dict(grid={"penalty": [0]}, n_jobs=0), InvalidArgumentError, "n_jobs"),
    (dict(grid={"penalty": [0]}, random_state=-3), InvalidArgumentError, "random_state"),
    (dict(grid={"penalty": [0]}, repeats=0), InvalidArgumentError, "`repeats`"),
])
def test_bad_input(synth, kwargs, err, match):
    kwargs = {"cv": 3, **kwargs}
    grid = kwargs.pop("grid")
    with pytest.raises(err, match=match):
        cv_tune(fm.maxent, FORMULA, synth, grid, **kwargs)


def test_cv_larger_than_minority_class(synth):
    small = pd.concat([synth[synth.y == 0], synth[synth.y == 1].head(4)])
    with pytest.raises(InvalidArgumentError, match="`cv` = 5 folds.*4 rows of the minority"):
        cv_tune(fm.maxent, FORMULA, small, {"penalty": [0.0]}, cv=5)
    with pytest.warns(SeparationWarning):  # 4 positives and a 3-level factor
        fit = fm.maxent(FORMULA, small)
    with pytest.raises(InvalidArgumentError, match="cv <= 4"):
        tune_threshold(fit, small, cv=5)
    with pytest.raises(ResponseError, match="single class"):
        cv_tune(fm.maxent, FORMULA, synth.assign(y=0), {"penalty": [0.0]})


def test_model_function_with_kwargs_is_not_checked(synth):
    def anything(formula, data, **kwargs):
        return fm.maxent(formula, data, threshold=kwargs.get("cut", 0.5))

    res = cv_tune(anything, FORMULA, synth, {"cut": [0.1, 0.9]}, cv=2, random_state=0, beta=1)
    assert res.tidy()["recall"].iloc[0] > res.tidy()["recall"].iloc[1]


def test_is_a_model_pickles_and_refits(synth, tmp_path):
    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5], "penalty": [0.0, 2.0]},
                  cv=3, random_state=4, beta=2)
    best = fm.maxent(FORMULA, synth, **res.best_params)
    # exact below: the refit of the best point is this very fit
    pd.testing.assert_series_equal(res.best_model.params, best.params)
    pd.testing.assert_series_equal(res.predict(synth, type="class"), best.predict(synth, "class"))
    assert res.measure(synth) == best.measure(synth, beta=2)
    assert res.confusion(synth) == best.confusion(synth)
    back = pickle.loads(pickle.dumps(res))
    pd.testing.assert_frame_equal(back.tidy(), res.tidy())
    pd.testing.assert_series_equal(back.predict(synth), res.predict(synth))
    res.save(tmp_path / "cv.pkl")
    assert CvTuneResults.load(tmp_path / "cv.pkl").best_params == res.best_params
    pd.testing.assert_frame_equal(res.refit(synth).tidy(), res.tidy())
    half = res.refit(synth.iloc[:200])
    assert half.n_rows == 200 and len(half.tidy()) == 4
    no_refit = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]}, cv=3, refit=False)
    with pytest.raises(InvalidArgumentError, match="refit=False"):
        no_refit.predict(synth)
    explicit = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.5]},
                       cv=_folds(synth["y"].to_numpy(), 2, 0))
    pickle.dumps(explicit)
    with pytest.raises(InvalidArgumentError, match="explicit"):
        explicit.refit(synth)


def test_probabilistic_labels_stratify_on_rounded_q(synth):
    res = cv_tune(fm.umaxent, "q ~ x1 + x2", synth, {"threshold": [0.4, 0.5]}, cv=4,
                  random_state=0)
    hi = (synth["q"] >= 0.5).to_numpy()
    per_fold = [hi[te].sum() for _, te in res.folds]
    assert max(per_fold) - min(per_fold) <= 1
    q = synth["q"].to_numpy()
    tp = res.fold_results.query("point == 0")["tp"].sum()
    pred = {i: fm.umaxent("q ~ x1 + x2", synth.iloc[tr], threshold=0.4).predict(
        synth.iloc[te], type="class").to_numpy() for i, (tr, te) in enumerate(res.folds)}
    assert tp == pytest.approx(sum(q[te] @ pred[i] for i, (_, te) in enumerate(res.folds)))


def test_summary_and_plots(synth):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5], "penalty": [0.0, 1.0]},
                  cv=3, random_state=0, alpha=0.2)
    text = str(res.summary())
    for part in ("F_tp,fp", "beta = 2", "alpha = 0.2", "3-fold stratified on 'y'",
                 "random_state = 0", f"threshold: {res.best_params['threshold']}"):
        assert part in text
    assert "<table" in res._repr_html_() and "\\begin{itemize}" in res.summary().as_latex()
    res.plot()
    res.plot(x="penalty")
    plt.close("all")
    with pytest.warns(fm.exceptions.IneffectiveParameterWarning, match="only in 'tol'"):
        three = cv_tune(fm.maxent, FORMULA, synth, {"threshold": [0.3, 0.5],
                                                    "penalty": [0.0, 1.0],
                                                    "tol": [1e-8, 1e-6]}, cv=2, refit=False)
    with pytest.raises(InvalidArgumentError, match="varies 3 parameters"):
        three.plot()
    three.plot(x="threshold", y="tol")
    plt.close("all")


# ----------------------------------------------------------------------------- tune_threshold
def _cuts(pooled_scores):
    """Midpoints between consecutive distinct scores, plus one below and one above: every
    distinct classification of the held-out rows, ascending."""
    u = np.unique(pooled_scores)
    return np.r_[u[0] - 1.0, 0.5 * (u[1:] + u[:-1]), u[-1] + 1.0]


def test_threshold_matches_sklearn_tuned_threshold_classifier(synth):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import fbeta_score, make_scorer
    from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

    synth = synth.iloc[:150]  # scikit-learn calls fbeta_score once per fold and threshold
    X, y = synth[["x1", "x2"]].to_numpy(), synth["y"].to_numpy()
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    res = tune_threshold(fm.maxent("y ~ x1 + x2", synth), synth, cv=folds, beta=2,
                         pooling="mean")
    # scikit-learn averages the fold F over a given set of thresholds (our pooling="mean").
    # We give it every distinct cut of our pooled held-out scores (midpoints, so that the
    # ~1e-9 differences between its logistic fit and ours cannot move a row across a cut),
    # so its search is exact too and both criterion curves must agree point by point.
    cuts = _cuts(res.cv_scores["score"].to_numpy())
    sk = TunedThresholdClassifierCV(
        # C = inf: no penalty (scikit-learn >= 1.8 deprecates penalty=None for this)
        LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-12, max_iter=1000),
        scoring=make_scorer(fbeta_score, beta=2), cv=folds, thresholds=cuts,
        store_cv_results=True).fit(X, y)
    curve = res.tidy()
    np.testing.assert_allclose(sk.cv_results_["scores"], curve["f"].to_numpy()[::-1],
                               rtol=0, atol=1e-12)
    assert res.best_score == pytest.approx(sk.best_score_, abs=1e-12)
    assert res.cv_value(sk.best_threshold_)["f"] == pytest.approx(res.best_score, abs=1e-12)
    # the tuned classifiers agree on the training rows: both searches pick the same cut (the
    # best F is clear of the others by far more than their 1e-12 agreement), and no training
    # probability is within the fits' ~1e-9 difference of the threshold
    f = curve["f"].to_numpy()
    assert np.sum(f >= f.max() - 1e-9) == 1
    assert np.abs(res.base.predict(synth).to_numpy() - res.threshold).min() > 1e-6
    np.testing.assert_array_equal(res.predict(synth, type="class").to_numpy(), sk.predict(X))


@pytest.mark.parametrize("pooling", ["tp_fp", "mean"])
def test_threshold_search_equals_brute_force(synth, pooling):
    res = tune_threshold(fm.maxent(FORMULA, synth), synth, cv=4, random_state=3, beta=0.5,
                         pooling=pooling)
    h = res.cv_scores
    s, y, split = h["score"].to_numpy(), h["y"].to_numpy() == 1, h["split"].to_numpy()
    values = []
    for t in _cuts(s):  # one candidate at a time, counted with numpy masks
        pred = s >= t
        c = np.array([[np.sum(m & y & pred), np.sum(m & ~y & pred), np.sum(m & y & ~pred)]
                      for m in (split == k for k in range(4))], dtype=float)
        with np.errstate(invalid="ignore"):
            fold_f = np.nan_to_num(_fbeta(*c.T, 0.5))
        values.append(_fbeta(*c.sum(axis=0), 0.5) if pooling == "tp_fp" else fold_f.mean())
    values = np.nan_to_num(np.array(values))
    np.testing.assert_allclose(res.tidy()["f"].to_numpy()[::-1], values, rtol=0, atol=1e-12)
    assert res.best_score == pytest.approx(values.max(), abs=1e-12)
    # the tuned threshold is the midpoint of the best cut and classifies by score >= threshold
    best = _cuts(s)[::-1][res.best_index]
    assert res.threshold == pytest.approx(best, rel=1e-12)
    p = res.base.predict(synth)
    # exact: predict() compares the same base probabilities with the same threshold
    np.testing.assert_array_equal(res.predict(synth, type="class"), (p >= res.threshold) * 1)


def test_threshold_fold_scores_come_from_refits(synth):
    fit = fm.maxent(FORMULA, synth)
    res = tune_threshold(fit, synth, cv=3, random_state=5)
    tr, te = res.folds[1]
    own = fm.maxent(FORMULA, synth.iloc[tr]).predict(synth.iloc[te]).to_numpy()
    np.testing.assert_allclose(res.cv_scores.query("split == 1")["score"], own, rtol=1e-12)
    apparent = tune_threshold(fit, synth, cv=3, random_state=5, refit_folds=False)
    np.testing.assert_allclose(apparent.cv_scores.sort_values("row")["score"],
                               fit.predict(synth).to_numpy(), rtol=1e-12)


def test_threshold_on_decision_scores_by_duck_typing(synth):
    fit = fm.maxent(FORMULA, synth)
    prob = tune_threshold(fit, synth, cv=3, random_state=1, beta=2)
    link = tune_threshold(LinkOnly(fit), synth, cv=3, random_state=1, beta=2)
    assert link.score_type == "decision" and prob.score_type == "response"
    np.testing.assert_allclose(link.tidy()["f"], prob.tidy()["f"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(link.predict(synth, type="class"),
                                  prob.predict(synth, type="class"))


def test_thresholded_results_protocol_pickle_refit(synth, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train, test = synth.iloc[:300], synth.iloc[300:]
    res = tune_threshold(fm.maxent(FORMULA, train), train, cv=3, random_state=2, beta=2)
    cls = res.predict(test, type="class").to_numpy()
    y = test["y"].to_numpy()
    c = res.confusion(test)
    assert (c.tp, c.fp, c.fn) == (np.sum(cls * y), np.sum(cls * (1 - y)), np.sum((1 - cls) * y))
    assert res.measure(test) == pytest.approx(_fbeta(c.tp, c.fp, c.fn, 2.0), rel=1e-12)
    pd.testing.assert_series_equal(res.predict(test), res.base.predict(test))
    back = pickle.loads(pickle.dumps(res))
    assert back.threshold == res.threshold
    pd.testing.assert_series_equal(back.predict(test, type="class"), res.predict(test, "class"))
    res.save(tmp_path / "t.pkl")
    assert TuneThresholdResults.load(tmp_path / "t.pkl").best_score == res.best_score
    again = res.refit(train)      # the same computation again (same data and folds): exact
    assert again.threshold == res.threshold
    kept = res.refit(test, retune=False)
    assert kept.threshold == res.threshold and len(kept.base.fitted_values) == len(test)
    text = str(res.summary())
    assert "exact over all" in text and "model's own threshold 0.5" in text
    assert res.cv_value(0.5)["f"] < res.best_score
    res.plot()
    plt.close("all")


def test_threshold_bad_input(synth):
    fit = fm.maxent(FORMULA, synth)
    with pytest.raises(InvalidArgumentError, match="pass `data=`"):   # no kept rows
        tune_threshold(fm.maxent(FORMULA, synth, keep_data=False))
    with pytest.raises(InvalidArgumentError, match="predict"):
        tune_threshold(object(), synth)
    with pytest.raises(InvalidArgumentError, match="`type`"):
        tune_threshold(fit, synth, type="probability")
    y = synth["y"].to_numpy()
    only_neg = [(np.flatnonzero(y == 0), np.flatnonzero(y == 1))]
    with pytest.raises(ResponseError, match="training fold 0 failed.*single class"):
        tune_threshold(fit, synth, cv=only_neg)


def test_separation_warnings_in_folds_are_visible():
    x = np.r_[np.linspace(-2, -0.1, 20), np.linspace(0.1, 2, 20)]
    d = pd.DataFrame({"x": x, "y": (x > 0).astype(int)})
    with pytest.warns(SeparationWarning):
        fit = fm.maxent("y ~ x", d)
    with pytest.warns(SeparationWarning, match="in 2 fold refits"):
        res = tune_threshold(fit, d, cv=2, random_state=0)
    assert res.best_score == 1.0      # exact: no error in any fold, F = tp / tp
