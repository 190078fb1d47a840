"""Issue 27, item 3: fm.multinom against statsmodels' MNLogit (tests/reference/
multinom_statsmodels.py: fair's religious, a factor, integer case weights checked against
duplicated rows), R's nnet::multinom summary layout, predictions, LR tests, resampling."""
from __future__ import annotations

import os
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fmstats as fm
from fmstats.exceptions import DesignError, InvalidArgumentError, ResponseError

sm = pytest.importorskip("statsmodels.api")
REF = os.path.join(os.path.dirname(__file__), "reference", "multinom_statsmodels.csv")


def _cases():
    fair = sm.datasets.fair.load_pandas().data
    small = fair.iloc[:600].copy()
    small["w"] = 1 + (np.arange(600) % 4)
    return {"plain": ("religious ~ age + yrs_married + educ", fair, None),
            "factor": ("religious ~ age + C(occupation)", fair, None),
            "weighted": ("religious ~ age + educ", small, "w")}


@pytest.fixture(scope="module")
def fair():
    return sm.datasets.fair.load_pandas().data


@pytest.mark.reference
@pytest.mark.parametrize("case", ["plain", "factor", "weighted"])
def test_equal_to_statsmodels_mnlogit(case):
    formula, data, w = _cases()[case]
    ref = pd.read_csv(REF)
    ref = ref[ref.case == case]
    fit = fm.multinom(formula, data, weights=w)
    coef = ref[ref.term != "llf"]
    # statsmodels (patsy) orders the terms its own way: match by class and term name
    key = [f"{fit.levels[1 + int(t.split(':')[0])]}:{n}" for t, n in zip(coef.term, coef.name)]
    assert sorted(key) == sorted(fit.params.index)
    np.testing.assert_allclose(fit.params[key].to_numpy(), coef.estimate.to_numpy(), rtol=0,
                               atol=1e-8)
    np.testing.assert_allclose(fit.bse[key].to_numpy(), coef.std_error.to_numpy(), rtol=0,
                               atol=1e-8)
    assert fit.llf == pytest.approx(float(ref[ref.term == "llf"].estimate.iloc[0]), abs=1e-8)
    assert fit.converged


def test_summary_layout_and_statistics(fair):
    fit = fm.multinom("religious ~ age + yrs_married + educ", fair)
    text = str(fit.summary())
    for head in ("Call:", "Coefficients:", "Std. Errors:", "Residual Deviance:", "AIC:"):
        assert head in text
    assert text.index("Coefficients:") < text.index("Std. Errors:") < text.index("AIC:")
    assert fit.coefficients().shape == (3, 4)
    assert list(fit.coefficients().index) == [2.0, 3.0, 4.0]
    assert fit.aic == pytest.approx(fit.deviance + 2 * 12, abs=1e-9)
    assert f"{fit.deviance:.6g}" in text
    np.testing.assert_allclose(fit.std_errors().to_numpy().ravel(), fit.bse.to_numpy())


def test_predict_probs_and_class(fair):
    fit = fm.multinom("religious ~ age + C(occupation)", fair)
    new = fair.iloc[:50]
    P = fit.predict(new, type="probs")
    assert list(P.columns) == [1.0, 2.0, 3.0, 4.0]
    np.testing.assert_allclose(P.sum(axis=1), 1, atol=1e-14)
    X = sm.add_constant(pd.get_dummies(new.occupation, prefix="o", drop_first=False)
                        .astype(float).iloc[:, 1:].assign(age=new.age))
    # softmax of the linear predictors by hand
    B = fit.coefficients()
    eta = np.column_stack([np.zeros(50)] + [fit.X[:50] @ B.loc[c].to_numpy() for c in B.index])
    np.testing.assert_allclose(P.to_numpy(), np.exp(eta) / np.exp(eta).sum(1, keepdims=True),
                               atol=1e-14)
    assert X.shape[0] == 50
    cls = fit.predict(new, type="class")
    assert (cls.to_numpy() == P.columns.to_numpy()[np.argmax(P.to_numpy(), 1)]).all()


def test_anova_is_the_likelihood_ratio_test(fair):
    small = fm.multinom("religious ~ age", fair)
    big = fm.multinom("religious ~ age + educ + yrs_married", fair)
    tab = fm.anova(big, small)
    ref_small = sm.MNLogit(fair.religious, sm.add_constant(fair[["age"]])).fit(
        method="newton", disp=0, maxiter=100)
    lr = 2 * (big.llf - ref_small.llf)
    assert list(tab.model) == ["age", "age + educ + yrs_married"]
    assert tab.lr_stat.iloc[1] == pytest.approx(lr, abs=1e-6)
    assert tab.df.iloc[1] == 6
    assert tab.p_value.iloc[1] == pytest.approx(stats.chi2.sf(lr, 6), rel=1e-6)
    assert tab.resid_df.iloc[0] == len(fair) * 3 - 6


def test_micro_f_confusion_with_default_class(fair):
    fit = fm.multinom("religious ~ age + educ", fair, default_class=3.0)
    pred = fit.predict(type="class").to_numpy()
    y = fair.religious.to_numpy()
    assert fit.measure() == pytest.approx(
        fm.measures.multiclass_micro_f(y, pred, 3.0, wrong_class="fn"), abs=1e-14)
    assert fit.measure(fair.iloc[:300]) == pytest.approx(
        fm.measures.multiclass_micro_f(y[:300], pred[:300], 3.0, wrong_class="fn"), abs=1e-14)


def test_bootstrap_and_pickle(fair):
    d = fair.iloc[:500]
    fit = fm.multinom("religious ~ age + educ", d)
    b = fm.bootstrap(fit, B=30, random_state=0, data=d)
    tidy = b.tidy().set_index("term")
    # bootstrap SEs of the same order as the model-based ones (30 replicates: within 2x)
    ratio = tidy.loc[fit.params.index, "std_error"].to_numpy() / fit.bse.to_numpy()
    assert np.all((ratio > 0.5) & (ratio < 2))
    g = pickle.loads(pickle.dumps(fit))
    pd.testing.assert_series_equal(g.params, fit.params)
    pd.testing.assert_frame_equal(g.predict(d), fit.predict(d))


def test_string_and_categorical_response(fair):
    d = fair.iloc[:800].copy()
    d["rel"] = d.religious.map({1.0: "none", 2.0: "low", 3.0: "mid", 4.0: "high"})
    a = fm.multinom("rel ~ age", d)
    assert a.levels == ("high", "low", "mid", "none")
    d["relc"] = pd.Categorical(d.rel, categories=["none", "low", "mid", "high"])
    b = fm.multinom("C(relc) ~ age", d)
    c = fm.multinom("religious ~ age", d)
    assert b.levels == ("none", "low", "mid", "high")
    np.testing.assert_allclose(b.params.to_numpy(), c.params.to_numpy(), atol=1e-10)
    r = fm.multinom("relc ~ age", d, reference="mid")
    assert r.levels[0] == "mid"
    assert r.llf == pytest.approx(b.llf, abs=1e-8)      # the same model, reparametrised


def test_bad_input(fair):
    d = fair.iloc[:200].copy()
    d["one"] = "a"
    with pytest.raises(ResponseError, match="1 class"):
        fm.multinom("one ~ age", d)
    with pytest.raises(ResponseError, match="not a column"):
        fm.multinom("nothere ~ age", d)
    with pytest.raises(InvalidArgumentError, match="`reference`"):
        fm.multinom("religious ~ age", d, reference=9.0)
    w = np.where(d.religious == 4.0, 0.0, 1.0)
    with pytest.raises(ResponseError, match="positive weight"):
        fm.multinom("religious ~ age", d, weights=w)
    d["age2"] = 2 * d.age
    with pytest.raises(DesignError, match="age2"):
        fm.multinom("religious ~ age + age2", d, collinear="raise")
    with pytest.warns(fm.exceptions.CollinearityWarning, match="age2"):
        al = fm.multinom("religious ~ age + age2", d)
    ok = fm.multinom("religious ~ age", d)
    assert al.params.filter(like="age2").isna().all() and al.llf == pytest.approx(ok.llf)
    assert al.edf == ok.edf
    pd.testing.assert_frame_equal(al.predict(d), ok.predict(d), atol=1e-12)
    with pytest.raises(InvalidArgumentError, match="`default_class`"):
        fm.multinom("religious ~ age", d, default_class="x")


def test_penalty_is_the_ridge_optimum(fair):
    """penalty=: the optimum of the log-likelihood minus penalty/2 x the squared slopes,
    checked by scipy's BFGS on that objective written out here."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp
    d = fair.iloc[:400]
    fit = fm.multinom("religious ~ age + educ", d, penalty=5.0)
    X = np.column_stack([np.ones(len(d)), d.age, d.educ])
    y = np.searchsorted([1.0, 2.0, 3.0, 4.0], d.religious.to_numpy())

    def nll(b):
        B = b.reshape(3, 3).T
        eta = np.column_stack([np.zeros(len(d)), X @ B])
        return -(eta[np.arange(len(d)), y] - logsumexp(eta, axis=1)).sum() \
            + 2.5 * np.sum(B[1:] ** 2)
    opt = minimize(nll, np.zeros(9), method="BFGS", options={"gtol": 1e-9})
    b = fit.params.to_numpy()
    np.testing.assert_allclose(b, opt.x, atol=1e-4)          # BFGS stops near, not at
    assert nll(b) <= opt.fun + 1e-9 and -fit.llf == pytest.approx(nll(b), abs=1e-9)
    h = 1e-5                                                  # the gradient vanishes there
    grad = [(nll(b + h * e) - nll(b - h * e)) / (2 * h) for e in np.eye(9)]
    assert np.max(np.abs(grad)) < 1e-4
    unpen = fm.multinom("religious ~ age + educ", d)
    assert np.abs(fit.coefficients()[["age", "educ"]]).to_numpy().sum() < \
        np.abs(unpen.coefficients()[["age", "educ"]]).to_numpy().sum()


@pytest.mark.reference
def test_summary_equals_nnet_multinom():
    """R's nnet::multinom (tests/reference/multinom_nnet.R) on weighted data with a factor:
    the same numbers (to nnet's BFGS accuracy) printed in the same layout: per column the
    decimals of R's format at 7 significant digits, residual deviance and AIC."""
    here = os.path.join(os.path.dirname(__file__), "reference")
    d = pd.read_csv(os.path.join(here, "multinom_nnet_input.csv"))
    fit = fm.multinom("religious ~ age + educ + occ", d, weights="w")
    ref = pd.read_csv(os.path.join(here, "multinom_nnet_coef.csv"))
    np.testing.assert_allclose(fit.params.to_numpy(), ref.estimate.to_numpy().reshape(-1, 3).T
                               .ravel(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.std_error.to_numpy().reshape(-1, 3).T
                               .ravel(), rtol=1e-5)
    r_text = open(os.path.join(here, "multinom_nnet_summary.txt")).read().splitlines()
    ours = str(fit.summary()).splitlines()

    def block(lines, head):
        i = lines.index(head) if head in lines else [j for j, s in enumerate(lines)
                                                     if s.strip() == head][0]
        out = []
        for s in lines[i + 2:]:
            if not s.strip():
                break
            out.append(s.split()[1:])
        return out
    for head in ("Coefficients:", "Std. Errors:"):
        r_rows, o_rows = block(r_text, head), block(ours, head)
        assert len(r_rows) == len(o_rows) == 3
        for r, o in zip(r_rows, o_rows):
            assert [len(a.split(".")[1]) for a in r] == [len(b.split(".")[1]) for b in o]
            np.testing.assert_allclose(np.array(o, float), np.array(r, float), rtol=1e-6,
                                       atol=2e-8)
    assert "Residual Deviance: 3511.327" in ours and "AIC: 3541.327" in ours


def test_cv_tune_stratifies_by_class_and_pools_micro_f_counts(fair):
    d = fair.iloc[:1200].reset_index(drop=True)
    # the two penalties give the same decisions in every fold, and cv_tune says so
    with pytest.warns(fm.exceptions.IneffectiveParameterWarning):
        r = fm.cv_tune(fm.multinom, "religious ~ age + educ", d, {"penalty": [0.0, 50.0]},
                       cv=3, random_state=0)
    # every test fold holds each class's rows to within one (stratified by class)
    lv = sorted(d.religious.unique())
    counts = np.array([[np.sum(d.religious.to_numpy()[te] == c) for c in lv]
                       for _, te in r.folds])
    assert (counts.max(0) - counts.min(0) <= 1).all()
    # the criterion: the pooled micro-F counts of the fold refits (seed 001's definition)
    for i, pen in enumerate([0.0, 50.0]):
        tot = np.zeros(4)
        for tr, te in r.folds:
            f = fm.multinom("religious ~ age + educ", d.iloc[tr], penalty=pen)
            c = f.confusion(d.iloc[te])
            tot += [c.tp, c.fp, c.fn, c.tn]
        assert r.tidy()["f"].iloc[i] == pytest.approx(2 * tot[0] / (2 * tot[0] + tot[1] + tot[2]),
                                                      abs=1e-12)
