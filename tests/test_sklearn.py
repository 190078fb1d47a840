"""fmstats.sklearn: the four estimators against scikit-learn's own checks, the formula
functions they wrap, statsmodels / scikit-learn's logistic regression, and the Adult
Pipeline + GridSearchCV of vignette 08."""
from __future__ import annotations

import doctest
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", minversion="1.6")

from sklearn.base import clone  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import fbeta_score, make_scorer, precision_recall_curve  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold  # noqa: E402
from sklearn.pipeline import Pipeline, make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import (  # noqa: E402
    check_sample_weight_equivalence_on_dense_data, check_sample_weight_equivalence_on_sparse_data,
    parametrize_with_checks)
from threadpoolctl import threadpool_limits  # noqa: E402

import fmstats as fm  # noqa: E402
import fmstats.sklearn as fsk  # noqa: E402
from fmstats.exceptions import (FmstatsError, InvalidArgumentError, ResponseError,  # noqa: E402
                                WeightsError)
from fmstats.sklearn import (FMaxentClassifier, FsvmClassifier, MaxentClassifier,  # noqa: E402
                             WsvmClassifier, expected_failed_checks)

ESTIMATORS = [MaxentClassifier(), FMaxentClassifier(), WsvmClassifier(), FsvmClassifier()]
FORMULA_FN = {MaxentClassifier: fm.maxent, FMaxentClassifier: fm.fmaxent,
              WsvmClassifier: fm.wsvm, FsvmClassifier: fm.fsvm}


# ----------------------------------------------------------------------------- sklearn's checks
# The check data are tiny and often separable: the fits warn as they should (maxent:
# SeparationWarning, CollinearityWarning on 15 x 30 data; fsvm: ConvergenceWarning,
# DegenerateFitWarning), which the project's pytest configuration would turn into errors.
@pytest.mark.filterwarnings("ignore::fmstats.exceptions.FmstatsWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


WEIGHT_CHECKS = {"check_sample_weight_equivalence_on_dense_data",
                 "check_sample_weight_equivalence_on_sparse_data"}


def test_expected_failures_are_few_and_explained():
    """The SVMs pass both weight checks (issue 38: a class of one row of weight >= 2 is its
    copies); MaxentClassifier fails them on the check's separable data only."""
    for est in ESTIMATORS:
        xf = expected_failed_checks(est)
        assert all(len(reason) > 100 for reason in xf.values())
        expected = {MaxentClassifier: WEIGHT_CHECKS,
                    FsvmClassifier: {"check_class_weight_classifiers"}}.get(type(est), set())
        assert set(xf) == expected, type(est).__name__


@pytest.mark.parametrize("check", [check_sample_weight_equivalence_on_dense_data,
                                   check_sample_weight_equivalence_on_sparse_data],
                         ids=["dense", "sparse"])
def test_penalised_maxent_passes_the_weight_check(check):
    """The reason given for MaxentClassifier's expected failure: with a finite estimate it
    passes, on sparse X too (the sparse path uses the weights: issue 38 measured the same
    failure on both, from the separable data, and the same pass with a penalty)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.CollinearityWarning)
        check("MaxentClassifier", MaxentClassifier(penalty=1e-3))


@pytest.mark.parametrize("fn", [fm.wsvm, fm.fsvm], ids=["wsvm", "fsvm"])
def test_svm_class_of_one_row_of_weight_two_is_its_two_copies(fn):
    """Frequency weights are repeated rows: a class held by one row of weight 2 is fitted as
    its two copies are, and a single row of weight 1 is still refused.  Mutant: the rule
    counting rows only (before issue 38) refuses the weighted data."""
    rng = np.random.default_rng(5)
    d = pd.DataFrame({"x1": rng.normal(size=20), "x2": rng.normal(size=20)})
    d["y"] = np.r_[0, np.ones(19, dtype=int)]
    d["w"] = np.r_[2.0, np.ones(19)]
    twice = pd.concat([d.iloc[[0]], d]).reset_index(drop=True).assign(w=1.0)
    kw = {"maxeval": 3000} if fn is fm.fsvm else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        a = fn("y ~ x1 + x2", d, weights="w", **kw)
        b = fn("y ~ x1 + x2", twice, weights="w", **kw)
    np.testing.assert_allclose(a.params, b.params, rtol=1e-6, atol=1e-8)
    with pytest.raises(fm.exceptions.ResponseError, match="at least 2 rows in each class"):
        fn("y ~ x1 + x2", d.assign(w=1.0), weights="w", **kw)


@pytest.mark.parametrize("est", [MaxentClassifier(),
                                 FMaxentClassifier(),
                                 WsvmClassifier(), FsvmClassifier(maxeval=2000)],
                         ids=lambda e: type(e).__name__)
def test_integer_weights_are_repeated_rows(est):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = (X @ [1.0, -0.5, 0.3] + rng.logistic(size=60) > 0.3).astype(int)
    w = rng.integers(0, 4, size=60)
    w[:4] = [0, 0, 1, 1]
    weighted = clone(est).fit(X, y, sample_weight=w)
    repeated = clone(est).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    dec_w, dec_r = weighted.decision_function(X), repeated.decision_function(X)
    assert np.max(np.abs(dec_w - dec_r)) < 1e-5 * (1 + np.max(np.abs(dec_r)))
    ones = clone(est).fit(X, y, sample_weight=np.ones(60))
    # exact: unit weights are the default, and multiplying by 1 is exact
    assert np.array_equal(ones.decision_function(X), clone(est).fit(X, y).decision_function(X))


# ----------------------------------------------------------- same core as the formula functions
@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(3)
    n = 300
    d = pd.DataFrame({"age": rng.normal(40, 10, n), "dose": rng.gamma(2.0, 1.5, n)})
    eta = -2.5 + 0.08 * (d.age - 40) + 0.8 * d.dose
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    d["w"] = rng.integers(1, 4, n).astype(float)
    return d


@pytest.mark.parametrize("est", [MaxentClassifier(penalty=0.1), FMaxentClassifier(beta=2),
                                 WsvmClassifier(C_pos=3.0, C_neg=0.5),
                                 FsvmClassifier(alpha=0.4)], ids=lambda e: type(e).__name__)
def test_same_fit_as_formula_function(est, frame):
    X = frame[["age", "dose"]]
    clf = clone(est).fit(X, frame.y, sample_weight=frame.w.to_numpy())
    params = {k: v for k, v in est.get_params().items() if k != "class_weight"}
    res = FORMULA_FN[type(est)]("y ~ age + dose", frame, "w", **params)
    # exact: the estimator calls the same formula function on a frame of the same values
    np.testing.assert_array_equal(clf.intercept_, [res.params["Intercept"]])
    np.testing.assert_array_equal(clf.coef_, [res.params[["age", "dose"]].to_numpy()])
    assert list(clf.feature_names_in_) == ["age", "dose"] and clf.n_features_in_ == 2
    link = res.predict(frame, type="link" if hasattr(clf, "predict_proba") else "decision")
    np.testing.assert_allclose(clf.decision_function(X), link, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), res.predict(frame, type="class"))
    if hasattr(clf, "predict_proba"):
        np.testing.assert_allclose(clf.predict_proba(X)[:, 1], res.predict(frame), rtol=1e-12)
        np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), clf.predict_proba(X),
                                   rtol=1e-12)
    else:
        assert not hasattr(clf, "predict_proba")
    assert clf.n_iter_ >= 1


def test_threshold_moves_predictions_not_probabilities(frame):
    X = frame[["age", "dose"]].to_numpy()
    lo = MaxentClassifier(threshold=0.2).fit(X, frame.y)
    mid = MaxentClassifier().fit(X, frame.y)
    # exact: the threshold does not enter the fit, and predict compares the same probabilities
    np.testing.assert_array_equal(lo.predict_proba(X), mid.predict_proba(X))
    p = mid.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(lo.predict(X), (p >= 0.2).astype(int))
    assert lo.predict(X).sum() > mid.predict(X).sum()


# ------------------------------------------------------------------------- labels and bad input
@pytest.mark.parametrize("labels, positive", [(["no", "yes"], "yes"), ([False, True], True),
                                              ([-1, 1], 1), ([2, 7], 7)])
def test_two_labels_of_any_kind(labels, positive, frame):
    X = frame[["age", "dose"]].to_numpy()
    y = np.where(frame.y == 1, labels[1], labels[0])
    for est in (MaxentClassifier(), WsvmClassifier()):
        clf = clone(est).fit(X, y)
        assert clf.classes_.tolist() == list(labels) and clf.classes_[1] == positive
        ref = clone(est).fit(X, frame.y)
        np.testing.assert_array_equal(clf.coef_, ref.coef_)   # the same fit of the same 0/1
        np.testing.assert_array_equal(clf.predict(X), np.asarray(labels)[ref.predict(X)])


def test_multiclass_and_single_class_are_clear_errors(frame):
    X = frame[["age", "dose"]].to_numpy()
    y3 = np.resize(["a", "b", "c"], len(X))
    with pytest.raises(ResponseError, match="Only binary classification is supported.*3 classes"):
        FMaxentClassifier().fit(X, y3)
    with pytest.raises(ResponseError, match="one class only"):
        MaxentClassifier().fit(X, np.ones(len(X)))
    with pytest.raises(ResponseError, match="Unknown label type.*continuous"):
        WsvmClassifier().fit(X, np.linspace(0, 1, len(X)))
    assert issubclass(ResponseError, FmstatsError) and issubclass(FmstatsError, ValueError)


def test_bad_weights_and_parameters(frame):
    X, y = frame[["age", "dose"]].to_numpy(), frame.y.to_numpy()
    with pytest.raises(WeightsError, match=r"`sample_weight` must have shape \(300,\)"):
        MaxentClassifier().fit(X, y, sample_weight=np.ones(5))
    with pytest.raises(WeightsError, match="finite and non-negative; got -1.0"):
        MaxentClassifier().fit(X, y, sample_weight=np.r_[-1.0, np.ones(299)])
    with pytest.raises(WeightsError, match="all zero"):
        WsvmClassifier().fit(X, y, sample_weight=np.zeros(300))
    with pytest.raises(ResponseError, match="every row of class 1 has weight 0"):
        FsvmClassifier().fit(X, y, sample_weight=(y == 0).astype(float))
    with pytest.raises(InvalidArgumentError, match="`penalty` must"):
        MaxentClassifier(penalty=-1.0).fit(X, y)
    with pytest.raises(InvalidArgumentError, match="C_pos"):
        WsvmClassifier(C_pos=0.0).fit(X, y)
    with pytest.raises(fm.exceptions.DataError, match="NaN"):
        MaxentClassifier().fit(np.r_[X[:-1], [[np.nan, 1.0]]], y)


def test_import_needs_no_sklearn_and_names_the_extra():
    code = ("import sys, fmstats; assert 'sklearn' not in sys.modules, 'fmstats imports sklearn'\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'sklearn' or name.startswith('sklearn.'):\n"
            "            raise ImportError('blocked ' + name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "try:\n"
            "    import fmstats.sklearn\n"
            "except ImportError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install fmstats[sklearn]" in out.stdout


def test_module_examples_run():
    from fmstats.sklearn import _estimators, _multiclass

    results = [doctest.testmod(m, optionflags=doctest.ELLIPSIS)
               for m in (fsk, _estimators, _multiclass)]
    assert sum(r.attempted for r in results) >= 20 and sum(r.failed for r in results) == 0


# --------------------------------------------------------------- Adult: Pipeline + GridSearchCV
NUM = ["age", "education_num", "hours_per_week"]
LOG = ["capital_gain", "capital_loss"]     # heavy-tailed, with a censoring code 99999
CAT = ["marital_status", "occupation", "relationship", "race", "sex", "native_country"]


def adult_preprocessor(train: pd.DataFrame) -> ColumnTransformer:
    """Standardised numeric columns (log1p first for the capital columns) and one-hot factors
    with the modal level as reference and levels rarer than 100 rows pooled.  The levels come
    from the whole training file (``train``), so no level of a subsample is unknown later;
    ``workclass`` is left out (missing exactly where ``occupation`` is, its 'unknown' level
    would duplicate occupation's) and ``education`` too (``education_num`` codes it)."""
    levels = [sorted(train[c].dropna().unique()) + (["unknown"] if train[c].isna().any() else [])
              for c in CAT]
    reference = [train[c].mode()[0] for c in CAT]
    return ColumnTransformer([
        ("num", StandardScaler(), NUM),
        ("log", make_pipeline(FunctionTransformer(np.log1p, feature_names_out="one-to-one"),
                              StandardScaler()), LOG),
        ("cat", make_pipeline(SimpleImputer(strategy="constant", fill_value="unknown"),
                              OneHotEncoder(categories=levels, drop=reference, min_frequency=100,
                                            sparse_output=False)), CAT)])


def adult_experiment(seed: int, n: int = 3000):
    """Maxent and a GridSearchCV-tuned F2-maximiser fitted to ``n`` training rows (seeded),
    scored on the whole test file."""
    train, test = fm.datasets.load_adult("train"), fm.datasets.load_adult("test")
    sub = train.sample(n=n, random_state=seed)
    X, y = sub[NUM + LOG + CAT], sub["income"].astype(str).to_numpy()
    base = Pipeline([("prep", adult_preprocessor(train)), ("clf", MaxentClassifier())]).fit(X, y)
    f2 = make_scorer(fbeta_score, beta=2, pos_label=">50K")
    grid = GridSearchCV(
        Pipeline([("prep", adult_preprocessor(train)), ("clf", FMaxentClassifier(beta=2))]),
        {"clf__shrinkage": [1e-3, 1e-2]}, scoring=f2,
        cv=StratifiedKFold(3, shuffle=True, random_state=seed)).fit(X, y)
    return dict(X=X, y=y, base=base, grid=grid, Xt=test[NUM + LOG + CAT],
                yt=test["income"].astype(str).to_numpy())


def oracle_f2(truth: np.ndarray, p: np.ndarray) -> float:
    """The best F2 of any threshold on the probabilities ``p`` against the 0/1 ``truth``."""
    prec, rec, _ = precision_recall_curve(truth, p)
    return float(np.max(5 * prec * rec / np.maximum(4 * prec + rec, 1e-300)))


@pytest.fixture(scope="module")
def adult():
    with threadpool_limits(limits=1, user_api="blas"):   # small designs: one BLAS thread
        return adult_experiment(seed=0)


def test_adult_f2_maximiser_beats_maxent(adult):
    """Measured on seeds 0-9 (tests/reference/sklearn_adult_f2.py, .out): test F2 of
    Maxent 0.557-0.612, of the tuned F2-maximiser 0.767-0.777, gain 0.155-0.216; the
    F2-maximiser within [-0.010, +0.005] of the best F2 any threshold on Maxent's test
    probabilities reaches (an oracle that looks at the test labels)."""
    yt, Xt = adult["yt"], adult["Xt"]
    f_base = fbeta_score(yt, adult["base"].predict(Xt), beta=2, pos_label=">50K")
    f_max = fbeta_score(yt, adult["grid"].predict(Xt), beta=2, pos_label=">50K")
    assert 0.54 < f_base < 0.63
    assert 0.75 < f_max < 0.79
    assert 0.12 < f_max - f_base < 0.25
    oracle = oracle_f2(yt == ">50K", adult["base"].predict_proba(Xt)[:, 1])
    assert -0.025 < f_max - oracle < 0.015
    assert adult["grid"].best_params_["clf__shrinkage"] in (1e-3, 1e-2)


def test_adult_maxent_equals_statsmodels_and_sklearn(adult):
    sm = pytest.importorskip("statsmodels.api")
    pipe = adult["base"]
    Z = pipe["prep"].transform(adult["X"])
    y01 = (adult["y"] == ">50K").astype(float)
    clf = pipe["clf"]
    assert clf.classes_.tolist() == ["<=50K", ">50K"]
    ours = np.r_[clf.intercept_, clf.coef_[0]]
    with threadpool_limits(limits=1, user_api="blas"):
        glm = sm.GLM(y01, sm.add_constant(Z), family=sm.families.Binomial()).fit(tol=1e-12)
        lr = LogisticRegression(C=np.inf, solver="newton-cholesky", tol=1e-10,
                                max_iter=200).fit(Z, y01)
    np.testing.assert_allclose(ours, glm.params, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(ours, np.r_[lr.intercept_, lr.coef_[0]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(clf.predict_proba(Z), lr.predict_proba(Z), atol=1e-8)


def test_adult_clone_and_pickle_round_trip(adult):
    grid, Xt = adult["grid"], adult["Xt"].iloc[:2000]
    best = grid.best_estimator_
    again = pickle.loads(pickle.dumps(best))
    np.testing.assert_array_equal(again.predict(Xt), best.predict(Xt))
    np.testing.assert_array_equal(again.predict_proba(Xt), best.predict_proba(Xt))
    fresh = clone(best)
    assert fresh.get_params()["clf__beta"] == 2 and not hasattr(fresh["clf"], "coef_")
    assert fresh["clf"].get_params() == best["clf"].get_params()
    with threadpool_limits(limits=1, user_api="blas"):
        fresh.fit(adult["X"], adult["y"])
    np.testing.assert_array_equal(fresh.predict(Xt), best.predict(Xt))
