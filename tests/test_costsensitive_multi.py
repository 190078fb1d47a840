"""costsens beyond binary F: multi-label micro-F (Algorithms 2-3), macro-F (binary relevance),
multiclass micro-F with a default class (Algorithms 2 and 4), the SVM learner, and the
results protocol (predict / confusion / measure / refit / summary / plot / pickling).

Reference values come from scikit-learn fits of the same weighted problems and brute-force
threshold searches scored by scikit-learn's metrics."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from fmstats.costsensitive import costsens, costsens_arrays
from fmstats.costsensitive._learners import LogitLearner
from fmstats.exceptions import DataError, FormulaError, InvalidArgumentError
from fmstats.measures import multiclass_micro_f

sklearn = pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import confusion_matrix, f1_score, fbeta_score  # noqa: E402

LABELS = ["y1", "y2", "y3"]
ML_FORMULA = "y1 + y2 + y3 ~ x1 + x2 + x3"


def _ml_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    eta = X @ np.array([[1.5, -1.0, 0.3], [0.2, 1.2, -0.8], [-0.5, 0.4, 1.0]]) + [-1.5, -0.5, -2.0]
    Y = (rng.random((n, 3)) < 1 / (1 + np.exp(-eta))).astype(int)
    d = pd.DataFrame(X, columns=["x1", "x2", "x3"])
    d[LABELS] = Y
    return d


def _mc_data(n=900, seed=1):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=(2, n))
    Z = np.column_stack([np.full(n, 1.5), 1.2 * x1 - 0.5, -x1 + 0.8 * x2 - 0.8, 0.7 * x2 - 1.2])
    P = softmax(Z, axis=1)
    cls = (rng.random(n)[:, None] < P.cumsum(axis=1)).argmax(axis=1)
    return pd.DataFrame({"x1": x1, "x2": x2, "y": np.array(["none", "A", "B", "C"])[cls]})


def _weights(y_is_costly_t, t, top=2.0):
    w = np.where(y_is_costly_t, t, top - t)
    return w / w.mean()


def _brute_micro_f1(Y, S):
    """Best F1 of "positive iff S >= c" pooled over all cells, c over every distinct score
    (direct counts by broadcasting), and the best c."""
    cuts = np.unique(S)
    pred = S.ravel()[None, :] >= cuts[:, None]
    tp = pred @ Y.ravel()
    f = 2 * tp / (pred.sum(axis=1) + Y.sum())
    return f.max(), cuts[np.argmax(f)]


def _sk_logit(X, y, w, penalty):
    # sklearn minimises C sum w loss + ||coef||^2 / 2 (intercept unpenalised): C = 1/penalty
    return LogisticRegression(C=1.0 / penalty, tol=1e-12, max_iter=20_000).fit(
        X, y, sample_weight=w)


# --------------------------------------------------------------------------- micro / macro

def test_micro_f_algorithm2_matches_sklearn_brute_force():
    d = _ml_data()
    va = np.arange(len(d)) % 3 == 0
    grid = [0.3, 0.8, 1.0, 1.5]
    fit = costsens(ML_FORMULA, d, measure="micro_f", grid=grid, validation=va)
    cs = costsens(ML_FORMULA, d, measure="micro_f", grid=grid, validation=va, thresholds=False)
    X, Y = d[["x1", "x2", "x3"]].to_numpy(), d[LABELS].to_numpy()
    best_f = []
    for t, f_fit, f_cs in zip(grid, fit.curve["f"], cs.curve["f"]):
        S = np.column_stack([
            _sk_logit(X[~va], Y[~va, j], _weights(Y[~va, j] == 0, t), 1.0).decision_function(X[va])
            for j in range(3)])
        brute, cut = _brute_micro_f1(Y[va], S)
        assert brute == pytest.approx(
            f1_score(Y[va], (S >= cut).astype(int), average="micro"), rel=1e-12)
        assert f_fit == pytest.approx(brute, rel=1e-12)
        assert f_cs == pytest.approx(f1_score(Y[va], (S >= 0).astype(int), average="micro"),
                                     rel=1e-12)
        best_f.append(brute)
    assert fit.validation_f == pytest.approx(max(best_f), rel=1e-12)
    # F values are ratios of integer counts: distinct ones differ by far more than the 1e-12
    # tie tolerance, equal counts give equal F, and argmax's first-wins is best_position's rule
    assert fit.best_cost == grid[int(np.argmax(best_f))]
    assert fit.kind == "multilabel" and fit.measure_name == "micro_f"
    # the common threshold reproduces the validation F through predict()
    pred = fit.predict(d[va])
    assert list(pred.columns) == LABELS
    assert f1_score(Y[va], pred.to_numpy(), average="micro") == pytest.approx(fit.validation_f)


def test_macro_f_is_algorithm1_per_label():
    d = _ml_data(seed=3)
    va = np.arange(len(d)) % 3 == 1
    grid = [0.4, 1.0, 1.6]
    fit = costsens(ML_FORMULA, d, measure="macro_f", grid=grid, validation=va)
    X, Y = d[["x1", "x2", "x3"]].to_numpy(), d[LABELS].to_numpy()
    for j, lab in enumerate(LABELS):
        per_t = []
        for t in grid:
            s = _sk_logit(X[~va], Y[~va, j], _weights(Y[~va, j] == 0, t), 1.0).decision_function(X[va])
            brute, cut = _brute_micro_f1(Y[va, j], s)
            assert brute == pytest.approx(f1_score(Y[va, j], (s >= cut).astype(int)))
            per_t.append(brute)
        np.testing.assert_allclose(fit.curve.loc[fit.curve["label"] == lab, "f"], per_t,
                                   rtol=1e-12)
        assert fit.best_cost[lab] == grid[int(np.argmax(per_t))]   # ratios of counts, as above
        assert fit.label_f[lab] == pytest.approx(max(per_t), rel=1e-12)
    assert fit.validation_f == pytest.approx(fit.label_f.mean())
    pred = fit.predict(d[va]).to_numpy()
    assert fit.measure(d[va]) == pytest.approx(f1_score(Y[va], pred, average="macro"))
    assert fit.measure(d[va]) == pytest.approx(fit.validation_f)


def test_labels_argument_equals_formula_lhs():
    d = _ml_data(seed=4)
    a = costsens(ML_FORMULA, d, grid=5, random_state=2)
    b = costsens("~ x1 + x2 + x3", d, labels=LABELS, grid=5, random_state=2)
    c = costsens(" y1 + y2 + y3 ~ .", d, grid=5, random_state=2)   # '.' = the other columns
    # exact: the three spellings build the same design matrix, so the fits are the same
    # computation (c's tolerance is the looser claim kept from before)
    np.testing.assert_array_equal(a.coef.to_numpy(), b.coef.to_numpy())
    np.testing.assert_allclose(a.coef.to_numpy(), c.coef.to_numpy())
    assert a.validation_f == b.validation_f == c.validation_f
    assert list(c.coef.index) == ["Intercept", "x1", "x2", "x3"]


# --------------------------------------------------------------------------- multiclass

def test_multinomial_learner_matches_sklearn():
    d = _mc_data()
    X = d[["x1", "x2"]].to_numpy()
    y = pd.factorize(d["y"])[0]
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=len(y))
    B, conv, _ = LogitLearner(0.5, 0, 1e-10, 100).fit_multiclass(
        np.column_stack([np.ones(len(y)), X]), y, 4, w, None)
    assert conv
    sk = _sk_logit(X, y, w, 0.5)
    np.testing.assert_allclose(softmax(np.column_stack([np.ones(len(y)), X]) @ B, axis=1),
                               sk.predict_proba(X), atol=2e-6)


def test_multiclass_algorithm4_matches_brute_force():
    d = _mc_data()
    va = np.arange(len(d)) % 3 == 2
    grid = [0.3, 1.0, 1.7]
    fit = costsens("y ~ x1 + x2", d, grid=grid, validation=va, default_class="none")
    assert fit.kind == "multiclass" and fit.outputs == ["A", "B", "C", "none"]
    X, classes = d[["x1", "x2"]].to_numpy(), fit.outputs
    y = np.array([classes.index(v) for v in d["y"]])
    dflt = classes.index("none")
    for t, f_fit in zip(grid, fit.curve["f"]):
        S = _sk_logit(X[~va], y[~va], _weights(y[~va] == dflt, t), 1.0).decision_function(X[va])
        other = np.where(np.arange(4) == dflt, -np.inf, S)
        cand, m = other.argmax(axis=1), other.max(axis=1) - S[:, dflt]
        brute = max(multiclass_micro_f(y[va], np.where(m >= c, cand, dflt), dflt,
                                       wrong_class="fn") for c in np.unique(m))
        assert f_fit == pytest.approx(brute, abs=1e-9)
    test = _mc_data(seed=9)
    pred = fit.predict(test)
    assert set(pred) <= set(classes)
    assert fit.measure(test) == pytest.approx(
        multiclass_micro_f(test["y"], pred, "none", wrong_class="fn"))
    c = fit.confusion(test)
    tp = np.sum((test["y"] == pred) & (test["y"] != "none"))
    fp = np.sum((test["y"] == "none") & (pred != "none"))
    assert (c.tp, c.fp, c.tp + c.fn) == (tp, fp, np.sum(test["y"] != "none"))
    assert c.f() == pytest.approx(fit.measure(test))
    probs = fit.predict(test.head(5), type="response")
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)


def test_multiclass_default_class_and_variants():
    d = _mc_data(seed=5)
    fit = costsens("y ~ x1 + x2", d, random_state=1)     # default: the most frequent class
    assert fit.outputs[fit.default_index] == d["y"].value_counts().idxmax()
    plain = costsens("y ~ x1 + x2", d, random_state=1, costs=False, thresholds=False)
    assert plain.variant == "-" and len(plain.curve) == 1
    # with equal costs and no threshold the prediction is the multinomial arg max
    P = plain.predict(d, type="response")
    # two paths to the arg max (the margin over the default class vs the largest probability)
    # agree on every row because no row has two classes within rounding of each other
    top2 = np.sort(P.to_numpy(), axis=1)[:, -2:]
    assert np.all(top2[:, 1] - top2[:, 0] > 1e-9)
    np.testing.assert_array_equal(plain.predict(d).to_numpy(), P.idxmax(axis=1).to_numpy())
    assert fit.validation_f >= plain.validation_f


# --------------------------------------------------------------------------- SVM learner

def test_svm_learner_matches_sklearn_svc():
    from sklearn.svm import SVC

    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2)) * [1.0, 30.0] + [0.0, 100.0]
    y = (X[:, 0] + X[:, 1] / 30 - 3.3 + rng.normal(size=300) > 0).astype(float)
    X1 = np.column_stack([np.ones(300), X])
    va = np.arange(300) % 3 == 0
    t, pen = 0.6, 0.5
    fit = costsens_arrays(X1, y, learner="svm", grid=[t], thresholds=False, validation=va,
                          penalty=pen)
    Xtr = X[~va]
    mean, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    w = _weights(y[~va] == 0, t)
    svc = SVC(kernel="linear", C=1 / pen, tol=1e-10).fit((Xtr - mean) / sd, y[~va],
                                                        sample_weight=w)
    ref = svc.decision_function((X[va] - mean) / sd)
    got = fit.predict(X1[va], type="link").to_numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    with pytest.raises(InvalidArgumentError, match="probabilities"):
        fit.predict(X1[va], type="response")


def test_multiclass_svm_one_versus_rest():
    d = _mc_data(seed=6)
    fit = costsens("y ~ x1 + x2", d, learner="svm", grid=3, random_state=0)
    assert fit.coef.shape == (3, 4) and fit.converged
    test = _mc_data(seed=8)
    assert fit.measure(test) == pytest.approx(
        multiclass_micro_f(test["y"], fit.predict(test), fit.outputs[fit.default_index],
                           wrong_class="fn"))


# --------------------------------------------------------------------------- protocol

def test_results_protocol(tmp_path):
    d = _ml_data(seed=7)
    test = _ml_data(seed=8)
    fit = costsens(ML_FORMULA, d, beta=2.0, grid=6, random_state=3)
    # pickle and save/load round trips
    for clone in (pickle.loads(pickle.dumps(fit)),):
        pd.testing.assert_frame_equal(clone.predict(test), fit.predict(test))
    path = tmp_path / "fit.pkl"
    fit.save(path)
    pd.testing.assert_frame_equal(type(fit).load(path).predict(test), fit.predict(test))
    # refit with the same settings reproduces the fit
    again = fit.refit(d)     # the same computation again: validation_f equal bit for bit
    pd.testing.assert_frame_equal(again.coef, fit.coef)
    assert again.validation_f == fit.validation_f and again.fmeasure.beta == 2.0
    # tidy is the curve
    tidy = fit.tidy()
    assert list(tidy["t"]) == pytest.approx(list(5 * np.arange(1, 7) / 7))
    assert {"t", "fn_cost", "fp_cost", "threshold", "f", "cost", "converged"} <= set(tidy)
    # F >= t exactly when the total validation cost <a(t), e> + b(t) is <= 0 (Theorem 1); no
    # F lies within rounding of its t here, so the two comparisons cannot disagree by rounding
    assert (tidy["f"] - tidy["t"]).abs().min() > 1e-9
    assert ((tidy["f"] >= tidy["t"]) == (tidy["cost"] <= 0)).all()
    # summary renderings
    s = fit.summary()
    text = str(s)
    assert "micro-F" in text and "beta = 2" in text and "Cost level t" in text
    assert "<table" in s._repr_html_() and "itemize" in s.as_latex()
    # confusion by label against sklearn, and the pooled counts give measure()
    Y, P = test[LABELS].to_numpy(), fit.predict(test).to_numpy()
    by = fit.confusion(test, by_label=True)
    for j, lab in enumerate(LABELS):
        tn, fp, fn, tp = confusion_matrix(Y[:, j], P[:, j], labels=[0, 1]).ravel()
        assert tuple(by.loc[lab, ["tp", "fp", "fn", "tn"]]) == (tp, fp, fn, tn)
    assert fit.confusion(test).f(beta=2.0) == pytest.approx(
        fbeta_score(Y, P, beta=2.0, average="micro"))
    assert fit.measure(test) == pytest.approx(fbeta_score(Y, P, beta=2.0, average="micro"))
    links = fit.predict(test, type="link")
    # exact: predict() thresholds the same X @ coef that type="link" returns
    np.testing.assert_array_equal((links.to_numpy() >= fit.best_threshold).astype(int), P)
    with pytest.raises(InvalidArgumentError, match="newdata"):
        fit.predict(None)
    with pytest.raises(InvalidArgumentError, match="covariance"):
        fit.conf_int()


def test_plot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    d = _ml_data(seed=7)
    for measure in ("micro_f", "macro_f"):
        fig = costsens(ML_FORMULA, d, measure=measure, grid=4, random_state=0).plot()
        ax = fig.axes[0]
        assert ax.get_xlabel().startswith("cost level t")
        assert len(ax.lines) >= 2
        matplotlib.pyplot.close(fig)


# --------------------------------------------------------------------------- bad input

def test_bad_input_multi():
    d = _ml_data(seed=1)
    mc = _mc_data(seed=2)
    with pytest.raises(InvalidArgumentError, match="'f' is not defined for .*multilabel"):
        costsens(ML_FORMULA, d, measure="f")
    with pytest.raises(InvalidArgumentError, match="'multiclass_f' is not defined .*multilabel"):
        costsens(ML_FORMULA, d, measure="multiclass_f")
    with pytest.raises(InvalidArgumentError, match="'micro_f' is not defined .*multiclass"):
        costsens("y ~ x1 + x2", mc, measure="micro_f")
    with pytest.raises(InvalidArgumentError, match="beta"):
        costsens(ML_FORMULA, d, beta=0)
    with pytest.raises(InvalidArgumentError, match="grid.*empty"):
        costsens("y ~ x1", mc, grid=[])
    # a label without positives in the validation part: macro-F is undefined there
    none_y3 = ((d["y3"] == 0) & (d.index % 2 == 0)).to_numpy()
    with pytest.raises(DataError, match="validation.*no positive rows for label 'y3'"):
        costsens(ML_FORMULA, d, measure="macro_f", validation=none_y3)
    with pytest.raises(DataError, match="validation.*no rows outside the default class"):
        costsens("y ~ x1 + x2", mc, default_class="none",
                 validation=((mc["y"] == "none") & (mc.index % 2 == 0)).to_numpy())
    with pytest.raises(InvalidArgumentError, match="default_class"):
        costsens("y ~ x1 + x2", mc, default_class="Z")
    with pytest.raises(InvalidArgumentError, match="labels"):
        costsens(ML_FORMULA, d, labels=LABELS)
    with pytest.raises(FormulaError, match="labels"):
        costsens("~ x1", d)
    with pytest.raises(InvalidArgumentError, match="labels"):
        costsens("~ x1", d, labels=["y1", "nope"])
    bad = d.assign(y2=d["y2"] * 2)
    with pytest.raises(DataError, match="y2"):
        costsens(ML_FORMULA, bad)
