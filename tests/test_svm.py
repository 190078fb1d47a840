"""The SVM family of the thesis: weighted SVM (QP), counting and F-measure SVMs (NLopt)."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.svm import SVC

from fmstats.datasets import make_thesis_svm_data
from fmstats.exceptions import (
    ConvergenceWarning,
    DegenerateFitWarning,
    InvalidArgumentError,
    MissingDataError,
    MissingDataWarning,
    ResponseError,
    UnseenLevelError,
)
from fmstats.measures import Confusion, FMeasure
from fmstats.svm import SvmObjective, run_nlopt, step_approx, thesis_bounds
from fmstats.svm import FsvmResults, WsvmResults, fsvm, wsvm
from fmstats.svm import wsvm_fit

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

NAMES = ("A1", "A2", "B1", "B2")


@pytest.fixture(scope="module")
def thesis():
    out = {}
    for i, name in enumerate(NAMES):
        d = make_thesis_svm_data(name, random_state=100 + i)
        out[name] = (d[d["split"] == "train"].reset_index(drop=True),
                     d[d["split"] == "test"].reset_index(drop=True))
    return out


def _xy(df):
    return df[["x1", "x2"]].to_numpy(), df["y"].to_numpy()


def _subsample(df, n_pos, n_neg, seed=0):
    rng = np.random.default_rng(seed)
    pos = rng.choice(np.flatnonzero(df["y"] == 1), n_pos, replace=False)
    neg = rng.choice(np.flatnonzero(df["y"] == 0), n_neg, replace=False)
    return df.iloc[np.sort(np.r_[pos, neg])].reset_index(drop=True)


def _fit_expecting_only_convergence_warnings(fn, *args, **kwargs):
    """Run a fit that may stop at maxeval: any warning other than ConvergenceWarning fails."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = fn(*args, **kwargs)
    others = [w for w in rec if not issubclass(w.category, ConvergenceWarning)
              and not (issubclass(w.category, DegenerateFitWarning)
                       and kwargs.get("degenerate") == "keep")]
    assert not others, [str(w.message) for w in others]
    assert bool(len(rec) - len(others) - sum(issubclass(w.category, DegenerateFitWarning)
                                             for w in rec)) == (not res.converged)
    return res


def _sklearn_svc(X, y, C_pos, C_neg, sample_weight=None):
    # libsvm's SMO (an independent solver of the same dual); a tighter tol than 1e-9 can
    # make it cycle for hours on degenerate problems
    return SVC(kernel="linear", C=1.0, class_weight={1: C_pos, 0: C_neg}, tol=1e-9,
               max_iter=10_000_000).fit(X, y, sample_weight=sample_weight)


# ----------------------------------------------------------------------------- wsvm: the QP
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("C", [0.02, 0.3, 5.0])
def test_wsvm_matches_libsvm(thesis, name, C):
    X, y = _xy(thesis[name][0])
    costs = ((y == 0).sum() / (y == 1).sum() * C, C)      # the heuristic ratio (3.3)
    fit = wsvm_fit(X, y, *costs)
    sk = _sklearn_svc(X, y, *costs)
    np.testing.assert_allclose(fit.w, sk.coef_[0], atol=1e-4)
    assert fit.b == pytest.approx(sk.intercept_[0], abs=1e-4)
    # the same support vectors, and libsvm's dual coefficients y_i alpha_i
    assert fit.polished
    np.testing.assert_array_equal(fit.support, np.sort(sk.support_))
    order = np.argsort(sk.support_)
    np.testing.assert_allclose(fit.dual[fit.support], np.abs(sk.dual_coef_[0][order]),
                               atol=1e-4 * max(costs))


def test_wsvm_degenerate_optimum_w_zero_is_certified_by_the_duality_gap(thesis):
    # A2 with equal costs: classifying everything negative (w = 0, b = -1) is optimal and
    # the dual is not unique; zero duality gap with a feasible dual proves optimality
    X, y01 = _xy(thesis["A2"][0])
    fit = wsvm_fit(X, y01, 1.0, 1.0)
    y = 2.0 * y01 - 1
    np.testing.assert_allclose(fit.w, 0.0, atol=1e-8)
    assert fit.b == pytest.approx(-1.0, abs=1e-8)
    assert np.all(fit.dual >= 0) and np.all(fit.dual <= fit.c)
    assert abs(fit.dual @ y) <= 1e-8
    v = X.T @ (fit.dual * y)
    dual_value = fit.dual.sum() - 0.5 * v @ v
    primal_value = 0.5 * fit.w @ fit.w + np.maximum(0, 1 - y * (X @ fit.w + fit.b)).sum()
    assert primal_value == pytest.approx(dual_value, rel=1e-9)
    assert primal_value == pytest.approx(2.0 * (y01 == 1).sum(), rel=1e-9)


@pytest.mark.parametrize("name", NAMES)
def test_wsvm_satisfies_kkt_conditions(thesis, name):
    X, y01 = _xy(thesis[name][0])
    y = np.where(y01 == 1, 1.0, -1.0)
    m_pos, m_neg = (y > 0).sum(), (y < 0).sum()
    fit = wsvm_fit(X, y, m_neg / 10, m_pos / 10)
    alpha, c = fit.dual, fit.c
    assert fit.converged and fit.polished
    np.testing.assert_allclose(fit.w, X.T @ (alpha * y), atol=1e-9)      # (2.3)
    assert abs(alpha @ y) <= 1e-9 * c.sum()                             # (2.4)
    assert np.all(alpha >= 0) and np.all(alpha <= c)                    # (2.6), (2.5)+(2.7)
    margin = y * (X @ fit.w + fit.b)
    assert np.all(margin[alpha == 0] >= 1 - 1e-9)                       # non-support vectors
    assert np.all(margin[alpha == c] <= 1 + 1e-9)                       # at the bound: xi >= 0
    free = (alpha > 0) & (alpha < c)
    assert free.any()
    np.testing.assert_allclose(margin[free], 1.0, atol=1e-9)            # (2.8) with xi = 0
    assert fit.objective == pytest.approx(fit.dual_objective, rel=1e-10)  # zero duality gap


def test_wsvm_b_is_midpoint_without_free_support_vectors():
    # 1-d, overlapping classes and a tiny cost: every support vector sits at the bound C
    X = np.array([[-1.0], [0.2], [0.4], [-0.3], [1.0], [0.1]])
    y = np.array([0, 0, 0, 1, 1, 1])
    fit = wsvm_fit(X, y, 1e-3, 1e-3)
    sk = _sklearn_svc(X, y, 1e-3, 1e-3)
    assert not fit.free.any()
    assert fit.b_rule == "midpoint of the optimal interval"
    np.testing.assert_allclose(fit.w, sk.coef_[0], atol=1e-10)
    assert fit.b == pytest.approx(sk.intercept_[0], abs=1e-8)


def test_wsvm_large_problem_matches_libsvm():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 6))
    y = (X @ rng.normal(size=6) + rng.normal(size=3000) > 1.0).astype(int)
    fit = wsvm_fit(X, y, 2.0, 0.5)
    sk = _sklearn_svc(X, y, 2.0, 0.5)
    np.testing.assert_allclose(fit.w, sk.coef_[0], atol=1e-4)
    assert fit.b == pytest.approx(sk.intercept_[0], abs=1e-4)


def test_wsvm_sample_weights_scale_the_costs(thesis):
    X, y = _xy(thesis["B2"][0])
    sw = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    fit = wsvm_fit(X, y, 2.0, 0.3, sample_weight=sw)
    sk = _sklearn_svc(X, y, 2.0, 0.3, sample_weight=sw)
    np.testing.assert_allclose(fit.w, sk.coef_[0], atol=1e-4)
    assert fit.b == pytest.approx(sk.intercept_[0], abs=1e-4)


def test_wsvm_integer_weights_equal_duplicated_rows(thesis):
    tr = thesis["A1"][0]
    k = np.random.default_rng(2).integers(0, 3, size=len(tr))
    weighted = wsvm("y ~ x1 + x2", tr.assign(k=k), weights="k", C_pos=2.0, C_neg=1.0)
    duplicated = wsvm("y ~ x1 + x2", tr.loc[tr.index.repeat(k)], C_pos=2.0, C_neg=1.0)
    np.testing.assert_allclose(weighted.params, duplicated.params, atol=1e-8)


def test_wsvm_labels_and_row_order_do_not_matter(thesis):
    X, y = _xy(thesis["A2"][0])
    a = wsvm_fit(X, y, 5.7, 0.3)
    b = wsvm_fit(X, 2 * y - 1, 5.7, 0.3)
    perm = np.random.default_rng(0).permutation(len(y))
    c = wsvm_fit(X[perm], y[perm], 5.7, 0.3)
    assert a.polished and c.polished       # a unique dual: compare it too
    np.testing.assert_allclose(a.w, b.w, atol=1e-12)
    np.testing.assert_allclose(a.w, c.w, atol=1e-8)
    assert a.b == pytest.approx(c.b, abs=1e-8)
    np.testing.assert_allclose(a.dual[perm], c.dual, atol=1e-8)


def test_wsvm_formula_results(thesis):
    tr, te = thesis["A2"]
    r = wsvm("y ~ x1 + x2", tr, C_pos=19.0, C_neg=1.0)
    X, y = _xy(tr)
    sk = _sklearn_svc(X, y, 19.0, 1.0)
    assert list(r.params.index) == ["Intercept", "x1", "x2"]
    np.testing.assert_allclose(r.params.to_numpy(), np.r_[sk.intercept_, sk.coef_[0]], atol=1e-4)
    Xte = te[["x1", "x2"]].to_numpy()
    np.testing.assert_allclose(r.predict(te, type="decision"), sk.decision_function(Xte),
                               atol=1e-4)
    # exact: "link" is another name of the decision values, "response" of the classes
    assert r.predict(te, type="link").equals(r.predict(te, type="decision"))
    pred = r.predict(te)
    assert pred.equals(r.predict(te, type="response"))
    # classes from two solvers, which agree to 1e-4 (above): no test point is that close to
    # the boundary, so they cannot disagree
    assert np.abs(sk.decision_function(Xte)).min() > 1e-3
    np.testing.assert_array_equal(pred.to_numpy(), sk.predict(Xte))
    conf = r.confusion(te)
    truth = te["y"].to_numpy()
    assert isinstance(conf, Confusion)
    assert (conf.tp, conf.fp, conf.fn) == (float(((pred == 1) & (truth == 1)).sum()),
                                            float(((pred == 1) & (truth == 0)).sum()),
                                            float(((pred == 0) & (truth == 1)).sum()))
    assert r.measure(te, beta=2) == pytest.approx(conf.f(FMeasure(beta=2)))
    assert r.margin == pytest.approx(2 / np.linalg.norm(sk.coef_[0]), rel=1e-4)
    assert len(r.support) == sk.support_.size
    ns = r.n_support
    assert (ns["negative"], ns["positive"]) == tuple(sk.n_support_)
    assert r.support_vectors.shape == (sk.support_.size, 2)
    text = str(r.summary())
    for piece in ("C+ = 19", "Support vectors", "Margin", "Training F", "Confusion table"):
        assert piece in text
    assert "<table" in r._repr_html_() and "tabular" in r.summary().as_latex()
    assert r.tidy()["estimate"].tolist() == r.params.tolist()      # copies


def test_wsvm_refit_and_pickle(thesis, tmp_path):
    tr, te = thesis["B1"]
    r = wsvm("y ~ x1 + x2", tr, C_pos=2.0, C_neg=0.5)
    again = r.refit(tr)
    assert isinstance(again, WsvmResults) and again.call == r.call
    np.testing.assert_array_equal(again.params, r.params)   # the same computation again
    half = r.refit(tr.iloc[:200])
    assert not np.allclose(half.params, r.params)
    loaded = pickle.loads(pickle.dumps(r))
    pd.testing.assert_series_equal(loaded.predict(te, type="decision"),
                                   r.predict(te, type="decision"))
    r.save(tmp_path / "w.pkl")
    assert WsvmResults.load(tmp_path / "w.pkl").measure(te) == r.measure(te)


def test_wsvm_factor_predictors_on_newdata():
    rng = np.random.default_rng(5)
    n = 300
    g = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    y = (x + np.select([g == "b", g == "c"], [1.5, -1.5], 0) + 0.5 * rng.normal(size=n) > 0)
    df = pd.DataFrame({"x": x, "g": g, "y": np.where(y, "yes", "no")})
    r = wsvm("y ~ x + C(g)", df, C_pos=1.0, C_neg=1.0)
    design = pd.get_dummies(df["g"], drop_first=True).to_numpy(float)
    Xd = np.c_[x, design]
    sk = _sklearn_svc(Xd, y.astype(int), 1.0, 1.0)
    np.testing.assert_allclose(r.params.to_numpy(), np.r_[sk.intercept_, sk.coef_[0]], atol=1e-4)
    new = pd.DataFrame({"x": [0.0, 0.0, 0.3], "g": ["c", "b", "a"], "y": ["no", "yes", "no"]})
    expected = np.r_[sk.decision_function(np.array([[0, 0, 1], [0, 1, 0], [0.3, 0, 0]]))]
    np.testing.assert_allclose(r.predict(new, type="decision"), expected, atol=1e-4)
    # classes from two solvers agreeing to 1e-4: the decisions here are >= 0.25 from 0
    assert r.predict(new).tolist() == (expected > 0).astype(int).tolist()
    with pytest.raises(UnseenLevelError, match="'d'"):
        r.predict(new.assign(g=["a", "b", "d"]))


# ----------------------------------------------------------------------------- objectives
def test_step_approx_is_the_thesis_sigmoid_and_tends_to_the_step():
    xi = np.array([0.0, 0.01, 0.5, 2.0, 30.0])
    for a in (0.1, 1.0, 5.0):
        np.testing.assert_allclose(step_approx(xi, a), 2 * (1 / (1 + np.exp(-a * xi)) - 0.5),
                                   atol=1e-15)
    # exact: at a = 1e9, exp(-a xi) is 1 at xi = 0 and underflows to 0 at xi >= 0.01
    np.testing.assert_array_equal(step_approx(xi, 1e9), (xi > 0).astype(float))


def test_counting_objective_counts_margin_violations_as_a_grows():
    # 1-d separable data; at w = 0.4, b = 0 the two inner points are inside the margin
    X = np.array([[-3.0], [-2.0], [2.0], [3.0], [2.6]])
    y = np.array([-1.0, -1.0, 1.0, 1.0, 1.0])
    obj = SvmObjective(X=X, y=y, weight=np.ones(5), kind="count", a=1e9, C_pos=7.0, C_neg=3.0)
    wb = np.array([0.4, 0.0])
    np.testing.assert_allclose(obj.slack(wb), [0, 0.2, 0.2, 0, 0], atol=1e-12)
    # 1/2 w^2 + C+ #(positive violations) + C- #(negative violations)
    assert obj.reduced(wb) == pytest.approx(0.5 * 0.16 + 7.0 * 1 + 3.0 * 1, rel=1e-12)
    assert obj.reduced(np.array([0.5, 0.0])) == pytest.approx(0.125, rel=1e-12)  # no violation
    # the F objective (3.6) becomes (3.5) of the margin-violation counts: FP = 1, FN = 1, m+ = 3
    f = SvmObjective(X=X, y=y, weight=np.ones(5), kind="fmeasure", a=1e9, alpha=0.3, C=2.0)
    assert f.reduced(wb) == pytest.approx(0.08 + 2.0 * (0.3 * 1 + 0.7 * 1) / (3 - 1), rel=1e-12)
    # and the primal form with the same xi gives the same value (exact: at a = 1e9 the step
    # function is 0 or 1, so both forms sum the same 0/1 counts with unit weights)
    assert f.primal(np.r_[wb, obj.slack(wb)]) == f.reduced(wb)


def test_counting_svm_with_large_a_keeps_the_hard_margin_on_separable_data():
    X = np.array([-3.0, -2.0, -2.5, 2.0, 3.0, 2.4])
    df = pd.DataFrame({"x": X, "y": [0, 0, 0, 1, 1, 1]})
    r = fsvm("y ~ x", df, objective="count", a=1e6, C_pos=10.0, C_neg=10.0, start_C=(1e3, 1e3))
    # the start is the hard-margin SVM (w = 0.5, b = 0): no violation, objective 1/2 w^2
    assert r.start_objective == pytest.approx(0.125, rel=1e-9)
    assert r.objective <= 0.125 + 1e-12
    assert np.all(r.xi[r.y == 1] < 1e-9) or r.objective < 0.125
    assert r.measure() == 1.0        # exact: no error, F = tp / tp


# ----------------------------------------------------------------------------- fsvm
def test_fsvm_primal_never_worse_than_start_and_feasible(thesis):
    tr = _subsample(thesis["A2"][0], 5, 25, seed=1)
    r = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, method="primal",
                                                 alpha=0.4)
    assert r.settings["maxeval"] == 500 and r.settings["ftol_rel"] == 1e-4
    assert r.objective <= r.start_objective
    X, y = _xy(tr)
    ypm = 2 * y - 1
    assert np.all(1 - r.xi - ypm * (X @ r.w + r.b) <= 1e-6)
    assert np.all(r.xi >= 0)
    lo, hi = thesis_bounds(r.start_wb[:-1], r.start_wb[-1], np.maximum(0, 1 - ypm * (
        X @ r.start_wb[:-1] + r.start_wb[-1])))
    z = np.r_[r.w, r.b, r.xi]
    assert np.all(z >= lo - 1e-12) and np.all(z <= hi + 1e-12)
    t = r.trace
    assert len(t) == r.nevals and t["best_feasible"].iloc[-1] == pytest.approx(r.objective)
    assert t["best_feasible"].is_monotonic_decreasing


def _reduced_vs_primal(tr, ftol_rel=1e-4, rel=0.0):
    primal = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, method="primal",
                                                      ftol_rel=ftol_rel)
    reduced = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, a=1.0,
                                                       ftol_rel=ftol_rel)
    assert primal.settings["a"] == 1.0      # the thesis's a is the primal method's default
    assert reduced.start_objective == pytest.approx(primal.start_objective, rel=1e-12)
    assert reduced.objective <= primal.objective * (1 + rel)
    return reduced, primal


@pytest.mark.parametrize("name", ["A2", "B1"])
def test_fsvm_reduced_reaches_primal_objective_small(thesis, name):
    # On 30 rows the primal COBYLA's 500 evaluations suffice to converge, and both methods
    # usually reach the same local minimum; they then differ only by how precisely each
    # optimiser stops.  With ftol_rel = 1e-6 that is below 1e-5 (relative).
    _reduced_vs_primal(_subsample(thesis[name][0], 5, 25, seed=0), ftol_rel=1e-6, rel=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["A2", "B1"])
def test_fsvm_reduced_reaches_primal_objective_thesis_size(thesis, name):
    # m = 400 with the thesis's settings: minutes per primal COBYLA fit, which stops at
    # maxeval far from a minimum; the reduced method must end strictly lower
    reduced, primal = _reduced_vs_primal(thesis[name][0])
    assert not primal.converged and reduced.objective < primal.objective


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("alpha", [0.2, 0.5, 0.8])
def test_fsvm_reduced_improves_on_its_start(thesis, name, alpha):
    tr = thesis[name][0]
    # degenerate="keep": the optimiser's own minimum (a single-class one is kept, with a
    # DegenerateFitWarning, e.g. all-positive on the balanced A1 at alpha 0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateFitWarning)
        r = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, alpha=alpha,
                                                     degenerate="keep")
    assert r.objective <= r.start_objective
    X, y = _xy(tr)
    obj = SvmObjective(X=X, y=2.0 * y - 1, weight=np.ones(len(y)), kind="fmeasure", a=5.0,
                       alpha=alpha, C=float(y.sum()))      # the default a is 5
    assert obj.reduced(np.r_[r.w, r.b]) == pytest.approx(r.objective, rel=1e-12)
    start = wsvm_fit(X, y, (y == 0).sum() / 10, y.sum() / 10)
    np.testing.assert_allclose(r.start_wb, np.r_[start.w, start.b], atol=1e-12)


def test_fsvm_other_algorithms_and_unbounded(thesis):
    tr = thesis["B2"][0]
    for alg in ("COBYLA", "BOBYQA", "SBPLX"):
        r = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, algorithm=alg,
                                                     bounds=None)
        assert r.objective <= r.start_objective
        assert r.settings["algorithm"] == alg


def test_fsvm_maxeval_stop_warns_with_objective(thesis):
    tr = thesis["A1"][0]
    with pytest.warns(ConvergenceWarning, match=r"objective \S+ reached from \S+.*maxeval"):
        r = fsvm("y ~ x1 + x2", tr, maxeval=5)
    assert not r.converged and r.code == 5 and r.nevals == 5
    assert "MAXEVAL" in r.message and "DID NOT CONVERGE" in str(r.summary())


def test_fsvm_count_objective_and_start_options(thesis):
    tr = thesis["A2"][0]
    r = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, objective="count",
                                                 a=5.0)
    assert (r.C_pos, r.C_neg) == (38.0, 2.0)     # exact: m- / 10 = 380 / 10, m+ / 10 = 20 / 10
    assert r.objective <= r.start_objective
    w0 = wsvm("y ~ x1 + x2", tr, C_pos=1.0, C_neg=1.0)
    s = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, start=w0, maxeval=50)
    # a computed start is rounded to 2^-30 of its scale (here 1), quantise_start
    np.testing.assert_allclose(s.start, w0.params, rtol=0, atol=2.0 ** -31)
    t = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr,
                                                 start=w0.params.to_numpy(), maxeval=50)
    np.testing.assert_allclose(t.params, s.params)


def test_fsvm_protocol_refit_pickle_plot(thesis, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    tr, te = thesis["B2"]
    r = _fit_expecting_only_convergence_warnings(fsvm, "y ~ x1 + x2", tr, beta=2, a=5.0)
    assert isinstance(r, FsvmResults) and r.fmeasure.alpha == pytest.approx(0.2)
    again = r.refit(tr)
    np.testing.assert_array_equal(again.params, r.params)   # the same computation again
    loaded = pickle.loads(pickle.dumps(r))
    pd.testing.assert_series_equal(loaded.predict(te), r.predict(te))
    assert loaded.measure(te) == r.measure(te)
    pd.testing.assert_frame_equal(loaded.trace, r.trace)
    pred = r.predict(te).to_numpy()
    dec = te[["x1", "x2"]].to_numpy() @ r.w + r.b
    # the test's BLAS product and predict's fixed-order one may differ in the last bits: no
    # decision value is within rounding of 0, so the classes agree
    assert np.abs(dec).min() > 1e-9
    np.testing.assert_array_equal(pred, (dec > 0).astype(int))
    text = str(r.summary())
    for piece in ("a = 5", "alpha = 0.2", "NLopt", "NELDERMEAD", "Training F", "thesis's box"):
        assert piece in text
    fig = r.plot_trace()
    assert len(fig.axes[0].lines) == 3


def test_run_nlopt_result_codes_and_best_point():
    f = lambda x: float((x[0] - 1) ** 2 + (x[1] + 2) ** 2)
    ok = run_nlopt(f, np.zeros(2), maxeval=2000, ftol_rel=1e-12)
    assert ok.converged and ok.code in (1, 3, 4, -4) and ok.fun < 1e-8
    stop = run_nlopt(f, np.zeros(2), maxeval=3)
    assert not stop.converged and stop.code == 5 and stop.fun <= f(np.zeros(2))
    # constrained: x0 + x1 >= 1 kept to 1e-6, as one vector-valued constraint
    con = run_nlopt(lambda x: float(x @ x), np.array([2.0, 2.0]),
                    constraints=lambda x: np.array([1 - x[0] - x[1], -x[0]]), maxeval=2000,
                    ftol_rel=1e-12)
    assert con.fun == pytest.approx(0.5, abs=1e-5)
    assert 1 - con.x.sum() <= 1e-6


# ----------------------------------------------------------------------------- bad input
def test_bad_input(thesis):
    tr = thesis["A1"][0]
    with pytest.raises(ResponseError, match="binary response .* has 4 classes"):
        wsvm("y ~ x1", tr.assign(y=tr["y"] + np.arange(len(tr)) % 3))
    with pytest.raises(ResponseError, match="two-valued"):
        fsvm("q ~ x1", tr.assign(q=np.linspace(0.1, 0.9, len(tr))))
    one_pos = tr.assign(y=np.r_[1, np.zeros(len(tr) - 1, int)])
    with pytest.raises(ResponseError, match="positive class .* 1 row"):
        wsvm("y ~ x1 + x2", one_pos)
    with pytest.raises(InvalidArgumentError, match=r"`C_pos` must lie in \(0, inf\]; got 0"):
        wsvm("y ~ x1", tr, C_pos=0)
    with pytest.raises(InvalidArgumentError, match=r"`C` must lie .* got -1"):
        fsvm("y ~ x1", tr, C=-1)
    with pytest.raises(InvalidArgumentError, match=r"`C_neg` must lie"):
        fsvm("y ~ x1", tr, objective="count", C_neg=-2.0)
    with pytest.raises(InvalidArgumentError, match=r"`a` must lie .* got 0"):
        fsvm("y ~ x1", tr, a=0)
    for bad in (0.0, 1.5, -0.2):
        with pytest.raises(InvalidArgumentError, match="alpha"):
            fsvm("y ~ x1", tr, alpha=bad)
    with pytest.raises(InvalidArgumentError, match=r"alpha` must lie in \(0, 1\)"):
        fsvm("y ~ x1", tr, alpha=1.0)
    with pytest.raises(InvalidArgumentError, match="no intercept"):
        wsvm("y ~ x1 - 1", tr)
    with pytest.raises(InvalidArgumentError, match="BOBYQA.*margin constraints"):
        fsvm("y ~ x1", tr, method="primal", algorithm="BOBYQA")
    with pytest.raises(InvalidArgumentError, match="`method` must be one of"):
        fsvm("y ~ x1", tr, method="dual")
    with pytest.raises(InvalidArgumentError, match="`start` must hold 2 numbers"):
        fsvm("y ~ x1", tr, start=[1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="`type` must be one of"):
        wsvm("y ~ x1", tr).predict(tr, type="probability")
    bad = tr.copy()
    bad.loc[3, "x1"] = np.inf
    with pytest.raises(MissingDataError):
        wsvm("y ~ x1 + x2", bad, missing="raise")
    with pytest.warns(MissingDataWarning):
        r = wsvm("y ~ x1 + x2", bad)
    assert r.nobs == len(tr) - 1
    with pytest.raises(ValueError, match=r"\{0, 1\} or \{-1, 1\}"):
        wsvm_fit(np.ones((4, 1)), [0, 1, 2, 1], 1.0, 1.0)


# ----------------------------------------------------------------------------- chapter 8 protocol
def test_thesis_grid_is_lower_triangular():
    from fmstats.svm import THESIS_A_GRID, thesis_grid

    grid = thesis_grid()
    values = 2.0 ** (-4 + np.arange(1, 21) / 2)
    assert len(grid) == 20 * 21 // 2
    assert all(p["C_pos"] >= p["C_neg"] for p in grid)
    # the grid takes its values from Python's pow, the test from numpy's power (SIMD on some
    # CPUs): 2^(k/2) for odd k is rounded by each, equal to an ulp, not bit for bit
    c_pos, c_neg = {p["C_pos"] for p in grid}, {p["C_neg"] for p in grid}
    assert c_pos == c_neg and len(c_pos) == 20                 # the same copies in both roles
    np.testing.assert_allclose(sorted(c_pos), values, rtol=1e-15, atol=0)
    flipped = thesis_grid(np.r_[np.ones(30), np.zeros(10)])   # positives in the majority
    assert all(p["C_neg"] >= p["C_pos"] for p in flipped) and len(flipped) == 210
    assert THESIS_A_GRID == (0.1, 1.0, 5.0, 10.0, 30.0)


def test_svm_models_work_with_cv_tune(thesis):
    import functools

    from fmstats.svm import thesis_grid
    from fmstats.model_selection import cv_tune

    tr = thesis["A2"][0]
    grid = thesis_grid(tr["y"])[::23]
    res = cv_tune(wsvm, "y ~ x1 + x2", tr, grid, cv=2, alpha=0.3, random_state=0,
                  progress=False, n_jobs=1)
    table = res.tidy()
    assert len(table) == len(grid)
    # pooled F_tp,fp of the best point, recomputed from the folds by hand
    best = res.best_params
    tp = fp = fn = 0.0
    for train, test in res.folds:
        c = wsvm("y ~ x1 + x2", tr.iloc[train], **best).confusion(tr.iloc[test])
        tp, fp, fn = tp + c.tp, fp + c.fp, fn + c.fn
    assert res.best_score == pytest.approx(tp / (tp + 0.3 * fp + 0.7 * fn), rel=1e-12)
    # the F-SVM's own alpha is bound with partial (cv_tune's alpha is the criterion)
    res2 = cv_tune(functools.partial(fsvm, alpha=0.3), "y ~ x1 + x2", tr, {"a": [1.0, 10.0]},
                   cv=2, alpha=0.3, random_state=0, progress=False, n_jobs=1)
    assert res2.best_model.fmeasure.alpha == pytest.approx(0.3)
    assert res2.best_params["a"] in (1.0, 10.0)


def test_fsvm_weights_are_frequency_weights(thesis):
    tr = thesis["B2"][0]
    k = np.random.default_rng(7).integers(1, 4, size=len(tr))
    weighted = _fit_expecting_only_convergence_warnings(
        fsvm, "y ~ x1 + x2", tr.assign(k=k), weights="k", maxeval=40, restarts=0)
    dup = _fit_expecting_only_convergence_warnings(
        fsvm, "y ~ x1 + x2", tr.loc[tr.index.repeat(k)], maxeval=40, restarts=0)
    # C = m+ counts weights; exact: sums of small integers
    assert weighted.C == dup.C == float(k[tr["y"] == 1].sum())
    np.testing.assert_allclose(weighted.start_wb, dup.start_wb, atol=1e-8)
    assert weighted.start_objective == pytest.approx(dup.start_objective, rel=1e-10)


def test_refit_with_array_weights_needs_them_again(thesis):
    tr = thesis["A1"][0]
    k = np.random.default_rng(3).integers(1, 3, size=len(tr))
    r = wsvm("y ~ x1 + x2", tr, weights=k, C_pos=2.0, C_neg=1.0)
    # exact here and below: a refit repeats the same computation on the same inputs
    np.testing.assert_array_equal(r.refit(tr, weights=k).params, r.params)
    with pytest.raises(InvalidArgumentError, match="array weights"):
        r.refit(tr)
    by_column = wsvm("y ~ x1 + x2", tr.assign(k=k), weights="k", C_pos=2.0, C_neg=1.0)
    np.testing.assert_array_equal(by_column.refit(tr.assign(k=k)).params, r.params)
    f = fsvm("y ~ x1 + x2", tr.assign(k=k), weights="k", maxeval=60, restarts=0, a=1.0,
             bounds=None, algorithm="COBYLA", ftol_rel=1e-2)
    np.testing.assert_array_equal(f.refit(tr.assign(k=k)).params, f.params)


# ----------------------------------------------------------------------------- issue 15: degeneracy
def _objective_36(X, y, w, b, a, alpha, C):
    """(3.6) re-implemented from the thesis's R code (appendix A.1), logistic form."""
    ypm = np.where(y == 1, 1.0, -1.0)
    xi = np.maximum(0.0, 1.0 - ypm * (X @ w + b))
    s = 2.0 * (1.0 / (1.0 + np.exp(-a * xi)) - 0.5)
    s_pos, s_neg = s[y == 1].sum(), s[y == 0].sum()
    return 0.5 * w @ w + C * (alpha * s_neg + (1 - alpha) * s_pos) / ((y == 1).sum() - s_pos)


@pytest.mark.parametrize("a", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("alpha", [0.3, 0.7])
def test_all_negative_point_objective_is_the_closed_formula(thesis, a, alpha):
    from fmstats.svm import all_negative_objective

    X, y = _xy(thesis["B2"][0])
    C = float(y.sum())
    formula = C * (1 - alpha) * np.tanh(a) / (1 - np.tanh(a))
    # 1 - tanh(5) loses ~9 digits to cancellation in the logistic form
    assert _objective_36(X, y, np.zeros(2), -1.0, a, alpha, C) == pytest.approx(formula,
                                                                                rel=1e-8)
    obj = SvmObjective(X=X, y=2.0 * y - 1, weight=np.ones(len(y)), kind="fmeasure", a=a,
                       alpha=alpha, C=C)
    # m+ - S+ = m+ (1 - tanh a) cancels too: the round-off of summing m+ values of tanh(a)
    # (~m+ eps) is amplified by 1 / (1 - tanh a) (1.5e4 at a = 5), so 1e-12 is out of reach
    # for any summation order; 1e-9 is ~ 20x the bound
    assert obj.reduced(np.array([0.0, 0.0, -1.0])) == pytest.approx(formula, rel=1e-9)
    assert all_negative_objective(C, alpha, a) == pytest.approx(formula, rel=1e-12)


def test_the_thesis_slope_minimum_can_be_all_negative_and_the_default_rejects_it():
    # A2, draw 2027, F1 and the thesis's a = 1: the minimum found by the reduced method is
    # the all-negative point, whose objective is the closed formula (31.945 for C = 20);
    # scikit-learn's SVC gives the start (the weighted SVM) independently
    d = make_thesis_svm_data("A2", random_state=2027)
    tr = d[d["split"] == "train"].reset_index(drop=True)
    X, y = _xy(tr)
    with pytest.warns(DegenerateFitWarning, match="predicts no positive on every training row"):
        kept = fsvm("y ~ x1 + x2", tr, alpha=0.5, a=1.0, degenerate="keep")
    assert kept.degenerate_fit and not np.any(X @ kept.w + kept.b > 0)
    formula = 20.0 * 0.5 * np.tanh(1.0) / (1 - np.tanh(1.0))
    # COBYLA stops when a step improves the objective by less than ftol_rel = 1e-4
    # (relative), so the point reached is within a few 1e-4 of the minimum's objective
    assert kept.objective == pytest.approx(formula, rel=5e-4)
    assert _objective_36(X, y, kept.w, kept.b, 1.0, 0.5, 20.0) == pytest.approx(kept.objective)
    start_obj = _objective_36(X, y, kept.start_wb[:-1], kept.start_wb[-1], 1.0, 0.5, 20.0)
    assert formula < start_obj / 2          # the collapse is a far lower objective
    with pytest.warns(DegenerateFitWarning, match="start is returned"):
        safe = fsvm("y ~ x1 + x2", tr, alpha=0.5, a=1.0)
    svc = _sklearn_svc(X, y, 38.0, 2.0)
    np.testing.assert_allclose(safe.w, svc.coef_[0], atol=1e-4)
    assert np.any(X @ safe.w + safe.b > 0)
    assert "predicts a single class: start returned" in str(safe.summary())


def test_default_fsvm_never_predicts_all_negative():
    # fresh draws of A1, A2, B1, B2 with 2000-row test sets; alpha over the thesis's range
    for i, name in enumerate(NAMES):
        d = make_thesis_svm_data(name, random_state=2026 + i, n_test=(1000, 1000))
        tr, te = d[d["split"] == "train"], d[d["split"] == "test"]
        for alpha in (0.1, 0.3, 0.5, 0.7, 0.9):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", DegenerateFitWarning)   # start returned
                r = fsvm("y ~ x1 + x2", tr, alpha=alpha)
            assert r.predict(te).sum() > 0, (name, alpha)
            assert r.predict().sum() > 0, (name, alpha)


def test_issue15_bad_input(thesis):
    tr = thesis["B1"][0]
    for kw, match in [({"a": 0}, r"`a` must lie in \(0, inf\]; got 0"),
                      ({"a": -1.5}, r"`a` must lie .* got -1.5"),
                      ({"C": 0}, r"`C` must lie in \(0, inf\]; got 0"),
                      ({"alpha": 0.0}, r"`alpha` must lie .* got 0"),
                      ({"alpha": 1.0}, r"`alpha` must lie in \(0, 1\) .* got alpha = 1"),
                      ({"degenerate": "drop"}, "`degenerate` must be one of")]:
        with pytest.raises(InvalidArgumentError, match=match):
            fsvm("y ~ x1 + x2", tr, **kw)
    for label, rows in (("positive", tr[tr["y"] == 0]), ("negative", tr[tr["y"] == 1])):
        with pytest.raises(ResponseError, match=f"the {label} class of 'y' has 0 row"):
            fsvm("y ~ x1 + x2", rows)
        with pytest.raises(ResponseError, match=f"the {label} class of 'y' has 0 row"):
            fsvm("y ~ x1 + x2", rows, method="primal")
    for bad in ((1, 2, 3), (-1, 5), (2.5, 3), (0, 0), "big"):
        with pytest.raises(InvalidArgumentError, match="`n_test` must be a pair"):
            make_thesis_svm_data("A1", 0, n_test=bad)
    d = make_thesis_svm_data("A2", 0, n_train=(30, 10), n_test=(7, 5))
    counts = d.groupby(["split", "y"]).size().to_dict()
    assert counts == {("train", 0): 30, ("train", 1): 10, ("test", 0): 7, ("test", 1): 5}
    pd.testing.assert_frame_equal(make_thesis_svm_data("A2", 4),
                                  make_thesis_svm_data("A2", 4, n_train=(380, 20),
                                                       n_test=(25, 25)))


@pytest.mark.parametrize("m", [500, 30_000])
@pytest.mark.parametrize("kind", ["fmeasure", "count"])
def test_reduced_objective_equals_a_plain_transcription_in_both_precisions(m, kind):
    # the reduced objective skips rows with zero slack and, above SINGLE_PRECISION_ROWS rows,
    # works in single precision; a plain transcription of (3.4)/(3.6) on all rows in double
    # precision must agree to 1e-12 (double) or 1e-6 (single) relative
    from fmstats.svm._cobyla import SINGLE_PRECISION_ROWS

    rng = np.random.default_rng(m)
    X = rng.normal(size=(m, 4))
    y = np.where(rng.random(m) < 0.3, 1.0, -1.0)
    wt = rng.uniform(0.5, 2.0, m)
    obj = SvmObjective(X=X, y=y, weight=wt, kind=kind, a=3.0, alpha=0.3, C=50.0, C_pos=2.0,
                       C_neg=0.5)
    assert (m > SINGLE_PRECISION_ROWS) == (obj._Zb.dtype == np.float32)
    for wb in (np.array([0.3, -0.2, 0.1, 0.5, -0.4]), np.array([1.0, 1.0, 1.0, 1.0, 2.0])):
        xi = np.maximum(0.0, 1.0 - y * (X @ wb[:4] + wb[4]))
        s = np.tanh(1.5 * xi)
        sp, sn = np.sum(wt * s * (y > 0)), np.sum(wt * s * (y < 0))
        reg = 0.5 * wb[:4] @ wb[:4]
        want = (reg + 2.0 * sp + 0.5 * sn if kind == "count"
                else reg + 50.0 * (0.3 * sn + 0.7 * sp) / (np.sum(wt * (y > 0)) - sp))
        assert obj.reduced(wb) == pytest.approx(want, rel=1e-12 if m <= SINGLE_PRECISION_ROWS
                                                else 1e-6)
