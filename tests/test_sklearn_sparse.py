"""Issue 26, item 5: the scikit-learn estimators on sparse X (kept sparse by the maxent
family), feature names as term names, class_weight, and one warning per kind for a search."""
from __future__ import annotations

import re
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", minversion="1.6")
import scipy.sparse as sp  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.metrics import fbeta_score, make_scorer  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import fmstats as fm  # noqa: E402
from fmstats.exceptions import InvalidArgumentError, SeparationWarning  # noqa: E402
from fmstats.sklearn import (FMaxentClassifier, FsvmClassifier, MaxentClassifier,  # noqa: E402
                             WsvmClassifier)

ALL = [MaxentClassifier(), FMaxentClassifier(beta=2), WsvmClassifier(C_pos=2.0),
       FsvmClassifier(beta=1)]


def one_hot_data(n=600, levels=(12, 5), seed=0):
    """Two factors one-hot coded (sparse) plus two numeric columns, and 0/1 labels."""
    rng = np.random.default_rng(seed)
    blocks, eta = [], np.zeros(n)
    for k in levels:
        g = rng.integers(0, k, n)
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), g)), shape=(n, k))[:, 1:])
        eta += rng.normal(scale=0.7, size=k)[g]
    Z = rng.normal(size=(n, 2))
    eta += Z @ [0.8, -0.5] - 0.4
    X = sp.hstack(blocks + [sp.csr_matrix(Z)], format="csr")
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    return X, y


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_equals_dense(est, fmt):
    X, y = one_hot_data()
    Xs = X.asformat(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        sparse = clone(est).fit(Xs, y)
        dense = clone(est).fit(X.toarray(), y)
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(X.toarray()),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X.toarray()))
    if isinstance(est, (MaxentClassifier, FMaxentClassifier)):
        assert sp.issparse(sparse.result_.X)          # the fit kept X sparse
        np.testing.assert_allclose(sparse.result_.bse, dense.result_.bse, rtol=1e-9)


def test_maxent_never_densifies_a_wide_sparse_design():
    """One factor with 400 levels on 20,000 rows: X dense would take 64 MB; fitting the
    sparse design (X'WX is 400 x 400) and its summary stay far below that."""
    rng = np.random.default_rng(1)
    n, k = 20_000, 400
    g = rng.integers(0, k, n)
    X = sp.csr_matrix((np.ones(n), (np.arange(n), g)), shape=(n, k))[:, 1:]
    y = (rng.random(n) < 1 / (1 + np.exp(-rng.normal(scale=0.5, size=k)[g]))).astype(int)
    dense_bytes = n * (k - 1) * 8
    tracemalloc.start()
    try:
        with threadpool_limits(limits=1, user_api="blas"):    # 400 x 400 Cholesky steps
            clf = MaxentClassifier().fit(X, y)
            str(clf.result_.summary())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 4, (peak, dense_bytes)
    # and the fit is the one of the dense design (checked on a subsample for time); there, 8
    # levels hold one class only: both designs find the separation (Konis's LP, issue 31) and
    # name the same cells
    sub = slice(0, 4000)
    one_class = [j - 1 for j in np.unique(g[sub]) if np.ptp(y[sub][g[sub] == j]) == 0]
    assert len(one_class) == 8
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore", SeparationWarning)   # reported once per session
        a = MaxentClassifier().fit(X[sub], y[sub])
        b = MaxentClassifier().fit(X[sub].toarray(), y[sub])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-10)
    assert a.result_.separated and b.result_.separated
    assert a.fit_warnings_ == b.fit_warnings_
    (kind, msg), = a.fit_warnings_
    assert kind == "SeparationWarning" and "no finite maximum" in msg
    assert [f"'x{j}'" for j in one_class[:5]] == re.findall(r"'x\d+'", msg)


def test_feature_names_name_the_terms():
    rng = np.random.default_rng(2)
    X = pd.DataFrame({"age": rng.normal(40, 10, 200), "dose": rng.gamma(2, 1.5, 200)})
    y = (rng.random(200) < 1 / (1 + np.exp(-(X.dose - 3)))).astype(int)
    clf = MaxentClassifier().fit(X, y)
    assert list(clf.result_.params.index) == ["Intercept", "age", "dose"]
    assert "dose" in str(clf.result_.summary())
    plain = MaxentClassifier().fit(X.to_numpy(), y)
    assert list(plain.result_.params.index) == ["Intercept", "x0", "x1"]
    np.testing.assert_array_equal(plain.coef_, clf.coef_)
    # the kept fit bootstraps without data
    boot = fm.bootstrap(clf.result_, B=5, random_state=0)
    assert list(boot.replicates.columns[:3]) == ["Intercept", "age", "dose"]


@pytest.mark.parametrize("est", ALL, ids=lambda e: type(e).__name__)
def test_class_weight_equals_scaled_sample_weight(est):
    X, y = one_hot_data(seed=3)
    labels = np.where(y == 1, "yes", "no")
    sw = np.random.default_rng(4).integers(1, 4, len(y)).astype(float)
    # "balanced": total weight / (2 x the class's weight), by hand
    per = {c: sw.sum() / (2 * sw[labels == c].sum()) for c in ("no", "yes")}
    by_hand = sw * np.array([per[c] for c in labels])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.exceptions.FmstatsWarning)
        a = clone(est).set_params(class_weight="balanced").fit(X, labels, sample_weight=sw)
        b = clone(est).fit(X, labels, sample_weight=by_hand)
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9,
                                   atol=1e-9)
        c = clone(est).set_params(class_weight={"yes": 3.0}).fit(X, labels)
        d = clone(est).fit(X, labels, sample_weight=np.where(labels == "yes", 3.0, 1.0))
        np.testing.assert_array_equal(c.decision_function(X), d.decision_function(X))
    with pytest.raises(InvalidArgumentError, match="`class_weight` names class 'maybe'"):
        clone(est).set_params(class_weight={"maybe": 2.0}).fit(X, labels)
    with pytest.raises(InvalidArgumentError, match="`class_weight` must be None, 'balanced'"):
        clone(est).set_params(class_weight="auto").fit(X, labels)


def test_a_search_reports_each_kind_of_warning_once():
    """Separable folds: every fit warns, the search shows one SeparationWarning and each fit
    keeps its own messages; later fits of the class in the session are not reported again."""
    import fmstats.sklearn as fsk

    fsk._estimators._REPORTED.clear()                            # a fresh session
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)                    # separated by x0
    search = GridSearchCV(MaxentClassifier(), {"threshold": [0.3, 0.5, 0.7]}, cv=4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
        again = MaxentClassifier().fit(X, y)
    seps = [w for w in caught if issubclass(w.category, SeparationWarning)]
    assert len(seps) == 1                            # 13 fits, one notice
    assert "fit_warnings_" in str(seps[0].message)
    assert any(k == "SeparationWarning" for k, _ in again.fit_warnings_)
    kinds = {k for k, _ in search.best_estimator_.fit_warnings_}
    assert "SeparationWarning" in kinds
    assert any("row(s)" in m for _, m in search.best_estimator_.fit_warnings_)


def test_one_hot_pipeline_grid_search_on_f2():
    """The standard pipeline: OneHotEncoder (sparse output) into FMaxentClassifier, tuned by
    GridSearchCV on F2; the maxent baseline equals statsmodels on the same design."""
    sm = pytest.importorskip("statsmodels.api")
    adult = fm.datasets.load_adult("train").sample(n=3000, random_state=0)
    cats, nums = ["sex", "race", "relationship"], ["age", "education_num", "hours_per_week"]
    X, y = adult[cats + nums], adult["income"].astype(str).to_numpy()
    # sparse_threshold=1: the transformer's output stays sparse (its default densifies an
    # output denser than 30 %, as these few factors with three numbers are)
    prep = ColumnTransformer([("cat", OneHotEncoder(drop="first"), cats),
                              ("num", StandardScaler(), nums)], sparse_threshold=1.0)
    Z = prep.fit_transform(X)
    assert sp.issparse(Z)
    base = Pipeline([("prep", prep), ("clf", MaxentClassifier())]).fit(X, y)
    assert sp.issparse(base["clf"].result_.X)
    glm = sm.GLM((y == ">50K").astype(float), sm.add_constant(Z.toarray()),
                 family=sm.families.Binomial()).fit(tol=1e-12)
    np.testing.assert_allclose(np.r_[base["clf"].intercept_, base["clf"].coef_[0]], glm.params,
                               rtol=1e-6, atol=1e-8)
    f2 = make_scorer(fbeta_score, beta=2, pos_label=">50K")
    grid = GridSearchCV(Pipeline([("prep", prep), ("clf", FMaxentClassifier(beta=2))]),
                        {"clf__shrinkage": [1e-4, 1e-2]}, scoring=f2, cv=3).fit(X, y)
    f_max = fbeta_score(y, grid.predict(X), beta=2, pos_label=">50K")
    f_base = fbeta_score(y, base.predict(X), beta=2, pos_label=">50K")
    assert f_max > f_base + 0.05                      # measured: ~0.76 against ~0.58


def test_a_fit_on_a_sparse_matrix_round_trips_through_a_file(tmp_path):
    """result_ of a fit on sparse X saves and loads (its MatrixSpec is on the allow-list) and
    predicts new rows given as a DataFrame of its columns, as before saving."""
    X, y = one_hot_data()
    res = MaxentClassifier().fit(X, y).result_
    path = tmp_path / "sparse.fmr"
    res.save(path)                      # a ResultsFileWarning here is an error (pytest.ini)
    back = type(res).load(path)
    new = pd.DataFrame(X[:25].toarray(), columns=res.params.index[1:])
    pd.testing.assert_series_equal(back.predict(new), res.predict(new), check_exact=True)
    pd.testing.assert_frame_equal(back.tidy(), res.tidy(), check_exact=True)
