"""Issue 27, item 5: MultinomClassifier (multiclass y) and CalibratedMaxentClassifier against
scikit-learn's checks, in a Pipeline, and against the formula functions they wrap."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn", minversion="1.6")

from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats.exceptions import ResponseError  # noqa: E402
from fmstats.sklearn import (CalibratedMaxentClassifier, MultinomClassifier,  # noqa: E402
                             expected_failed_checks)

ESTIMATORS = [MultinomClassifier(), CalibratedMaxentClassifier(random_state=0)]


@pytest.mark.filterwarnings("ignore::fmstats.exceptions.FmstatsWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.filterwarnings("ignore::fmstats.exceptions.FmstatsWarning")
def test_penalised_multinom_passes_the_weight_check():
    from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_dense_data
    check_sample_weight_equivalence_on_dense_data("MultinomClassifier",
                                                   MultinomClassifier(penalty=1.0))


def test_expected_failures_are_explained():
    for est in ESTIMATORS:
        xf = expected_failed_checks(est)
        assert set(xf) <= {"check_sample_weight_equivalence_on_dense_data",
                           "check_sample_weight_equivalence_on_sparse_data"}
        assert all(len(reason) > 100 for reason in xf.values())


def _three_class(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.array(["lo", "mid", "hi"])[np.argmax(X @ [[1, 0, -1], [0, 1, -1], [0.5, 0.5, 0]]
                                                + rng.gumbel(size=(n, 3)), 1)]
    return X, y


def test_multinom_classifier_equals_sklearn_logistic_regression():
    X, y = _three_class()
    clf = MultinomClassifier().fit(X, y)
    lr = LogisticRegression(C=np.inf, solver="newton-cg", tol=1e-12, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), lr.predict_proba(X), atol=1e-7)
    assert (clf.predict(X) == lr.predict(X)).all()
    # the formula model behind it
    assert clf.result_.levels == (0, 1, 2) and list(clf.classes_) == ["hi", "lo", "mid"]
    w = np.random.default_rng(1).integers(1, 4, len(y)).astype(float)
    a = MultinomClassifier().fit(X, y, sample_weight=w)
    b = MultinomClassifier().fit(np.repeat(X, w.astype(int), 0), np.repeat(y, w.astype(int)))
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)


def test_multinom_in_a_pipeline_with_cv():
    X, y = _three_class()
    pipe = make_pipeline(StandardScaler(), MultinomClassifier())
    s = cross_val_score(pipe, X, y, cv=StratifiedKFold(3, shuffle=True, random_state=0),
                        scoring="f1_macro")
    assert s.shape == (3,) and s.mean() > 0.5


def test_calibrated_classifier_equals_sklearn_in_a_pipeline():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(500, 2))
    y = (X[:, 0] + 0.8 * X[:, 0] ** 2 - X[:, 1] + rng.logistic(size=500) > 0.5).astype(int)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    ours = make_pipeline(StandardScaler(), CalibratedMaxentClassifier(method="isotonic"))
    ours.fit(X, y)
    # the calibrated model inside the pipeline, refitted on the same folds, equals sklearn's
    inner = ours[-1].result_
    Xs = ours[0].transform(X)
    frame = inner.base.call.refit  # noqa: F841 (the recorded call is kept)
    ref = CalibratedClassifierCV(LogisticRegression(C=np.inf, solver="newton-cholesky",
                                                    tol=1e-12),
                                 method="isotonic", cv=folds, ensemble=False).fit(Xs, y)
    again = fm.calibrate(inner.base, _frame(Xs, y), method="isotonic", cv=folds)
    np.testing.assert_allclose(again.predict(_frame(Xs, y)).to_numpy(),
                               ref.predict_proba(Xs)[:, 1], atol=1e-7)
    assert ours.predict_proba(X).shape == (500, 2)
    s = cross_val_score(ours, X, y, cv=3, scoring="neg_brier_score")
    assert s.shape == (3,)


def _frame(X, y):
    import pandas as pd
    d = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    d["y"] = y
    return d


def test_multiclass_y_refused_where_the_model_is_binary():
    X, y = _three_class()
    with pytest.raises(ResponseError, match="Only binary"):
        CalibratedMaxentClassifier().fit(X, y)
    with pytest.raises(ResponseError, match="one class"):
        MultinomClassifier().fit(X, np.zeros(len(y)))
