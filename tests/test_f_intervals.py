"""Intervals for F, precision and recall, and comparisons of classifiers (issue 30).

References are independent of fmstats: statsmodels' ``proportion_confint`` (stored in
tests/reference/proportion_confint.csv by its script), the delta method re-derived here by
numerical differentiation of F over the multinomial cell probabilities (Takahashi et al.
2022's g' (diag(p) - p p') g / n), Takahashi's closed form for binary F1, Monte Carlo of the
Dirichlet posterior with numpy's own ``dirichlet`` and the Beta posterior of precision
(Goutte & Gaussier 2005), and simulation of the sampling distribution.
"""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import fmstats as fm
from fmstats.exceptions import (DataError, IntervalWarning, InvalidArgumentError,
                                ModelComparisonError, ResponseError)

REF = Path(__file__).parent / "reference"


def rows_of_counts(counts):
    """0/1 truth and prediction vectors with the cells (tp, fp, fn, tn)."""
    tp, fp, fn, tn = (int(c) for c in counts)
    y = np.r_[np.ones(tp), np.zeros(fp), np.ones(fn), np.zeros(tn)]
    p = np.r_[np.ones(tp), np.ones(fp), np.zeros(fn), np.zeros(tn)]
    return y, p


# ----------------------------------------------------------------------------- precision, recall
@pytest.mark.reference
def test_proportion_intervals_equal_statsmodels():
    ref = pd.read_csv(REF / "proportion_confint.csv", comment="#")
    assert len(ref) == 60
    for r in ref.itertuples():
        # x "successes" of n trials as weighted rows: 2 rows per unit of weight 0.5
        k, m = int(round(2 * r.x)), int(round(2 * r.n))
        w = np.full(m, 0.5)
        y_pred = np.r_[np.ones(k), np.zeros(m - k)]          # precision: TP / (TP + FP)
        pi = fm.precision_interval(np.r_[np.ones(k), np.zeros(m - k)], np.ones(m),
                                   method=r.method, level=r.level, sample_weight=w)
        ri = fm.recall_interval(np.ones(m), y_pred, method=r.method, level=r.level,
                                sample_weight=w)
        for iv in (pi, ri):
            assert iv.n == pytest.approx(r.n, rel=1e-12)
            assert iv.low == pytest.approx(r.low, rel=1e-9, abs=1e-12)
            assert iv.high == pytest.approx(r.high, rel=1e-9, abs=1e-12)


@pytest.mark.reference
def test_micro_f1_equals_the_confidenceinterval_package():
    """Single-label multiclass predictions as one-hot label matrices: micro F1 is the
    accuracy, and Takahashi's delta interval is the one the ``confidenceinterval`` package
    computes (the only case where fmstats uses that package as a reference)."""
    ref = pd.read_csv(REF / "confidenceinterval_micro_f1.csv", comment="#")
    assert len(ref) == 10
    for r in ref.itertuples():
        rng = np.random.default_rng(r.seed)          # the recipe of the reference script
        truth = rng.integers(0, r.classes, r.n)
        guess = np.where(rng.random(r.n) < r.keep, truth, rng.integers(0, r.classes, r.n))
        eye = np.eye(r.classes)
        iv = fm.f_interval(eye[truth], eye[guess], average="micro", level=r.level)
        assert iv.estimate == pytest.approx(r.f1, rel=1e-12)
        assert (iv.low, iv.high) == pytest.approx((r.low, r.high), rel=1e-9)


def test_proportion_interval_refuses_empty_denominators():
    with pytest.raises(DataError, match="y_pred"):
        fm.precision_interval([1, 0, 1], [0, 0, 0])
    with pytest.raises(DataError, match="y_true"):
        fm.recall_interval([0, 0, 0], [1, 0, 1])


# ----------------------------------------------------------------------------- the delta method
def _numeric_delta_se(f_of_p, counts):
    """sqrt(g' (diag(p) - p p') g / n) with g by central differences."""
    counts = np.asarray(counts, dtype=float)
    n = counts.sum()
    p = counts / n
    g = np.empty_like(p)
    for k in range(p.size):
        h = 1e-6
        e = np.zeros_like(p)
        e[k] = h
        g[k] = (f_of_p(p + e) - f_of_p(p - e)) / (2 * h)
    return np.sqrt((g @ (g * p) - (g @ p) ** 2) / n)


@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
@pytest.mark.parametrize("counts", [(40, 10, 25, 125), (3, 1, 9, 87), (300, 150, 60, 1490)])
def test_binary_delta_se_is_the_numerical_derivative(beta, counts):
    """Mutant: a dropped FP or FN term, or alpha and 1 - alpha swapped, in the influence."""
    a = 1 / (1 + beta ** 2)

    def f(p):
        return p[0] / (p[0] + a * p[1] + (1 - a) * p[2])

    y, yhat = rows_of_counts(counts)
    iv = fm.f_interval(y, yhat, beta=beta)
    assert iv.se == pytest.approx(_numeric_delta_se(f, counts), rel=1e-6)
    z = stats.norm.ppf(0.975)
    assert iv.low == pytest.approx(max(0, iv.estimate - z * iv.se), rel=1e-12)


@pytest.mark.parametrize("counts", [(40, 10, 25, 125), (300, 150, 60, 1490)])
def test_binary_f1_delta_is_takahashis_closed_form(counts):
    y, yhat = rows_of_counts(counts)
    n = sum(counts)
    F = fm.f_score(y, yhat)
    var = F ** 2 * (1 - F) * (2 - F) / (2 * n * (counts[0] / n))
    assert fm.f_interval(y, yhat).se == pytest.approx(np.sqrt(var), rel=1e-12)


def _multiclass(n, r, acc, seed):
    rng = np.random.default_rng(seed)
    yc = rng.choice(r, n, p=np.linspace(1, 2, r) / np.linspace(1, 2, r).sum())
    pc = np.where(rng.random(n) < acc, yc, rng.integers(0, r, n))
    return yc, pc


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_micro_and_macro_delta_se_are_the_numerical_derivatives(beta):
    """Takahashi's multiclass setting: the r x r table; micro F1 = accuracy,
    Var = F (1 - F) / n; macro F the mean of per-class F."""
    r, n = 4, 900
    yc, pc = _multiclass(n, r, 0.6, 1)
    table = np.zeros((r, r))
    np.add.at(table, (yc, pc), 1)
    a = 1 / (1 + beta ** 2)

    def per_class(p):
        P = p.reshape(r, r)              # rows: truth, columns: prediction
        tp = np.diag(P)
        return tp / (tp + a * (P.sum(axis=0) - tp) + (1 - a) * (P.sum(axis=1) - tp))

    def micro(p):
        P = p.reshape(r, r)
        tp = np.trace(P)
        return tp / (tp + a * (P.sum() - tp) + (1 - a) * (P.sum() - tp))

    Y, Ph = np.eye(r)[yc], np.eye(r)[pc]
    mi = fm.f_interval(Y, Ph, beta=beta, average="micro")
    ma = fm.f_interval(Y, Ph, beta=beta, average="macro")
    assert mi.estimate == pytest.approx(fm.measures.f_score(Y, Ph, beta=beta, average="micro"),
                                        rel=1e-12)
    assert ma.estimate == pytest.approx(fm.measures.f_score(Y, Ph, beta=beta, average="macro"),
                                        rel=1e-12)
    assert mi.se == pytest.approx(_numeric_delta_se(micro, table.ravel()), rel=1e-6)
    assert ma.se == pytest.approx(_numeric_delta_se(lambda p: per_class(p).mean(),
                                                    table.ravel()), rel=1e-6)
    acc = np.mean(yc == pc)
    assert mi.se == pytest.approx(np.sqrt(acc * (1 - acc) / n), rel=1e-10)
    # the same data as rows (sparse matrices): the same numbers
    import scipy.sparse as sp
    ma_sparse = fm.f_interval(sp.csr_array(Y), sp.csr_array(Ph), beta=beta, average="macro")
    assert ma_sparse.se == pytest.approx(ma.se, rel=1e-10)


@pytest.mark.parametrize("average", ["binary", "macro"])
def test_delta_se_matches_the_simulated_sd(average):
    """400 samples of n rows from one population: the sd of F against the mean delta SE.
    The sd of 400 draws is within 12 % (3.5 of its relative SE 1/sqrt(800)) of the truth."""
    rng = np.random.default_rng(7)
    n, sims = 1500, 400
    f, se = [], []
    for _ in range(sims):
        if average == "binary":
            y = (rng.random(n) < 0.2).astype(float)
            p = np.where(rng.random(n) < 0.75, y, 1 - y)
            iv = fm.f_interval(y, p)
        else:
            yc, pc = _multiclass(n, 3, 0.7, int(rng.integers(2**31)))
            iv = fm.f_interval(np.eye(3)[yc], np.eye(3)[pc], average="macro")
        f.append(iv.estimate)
        se.append(iv.se)
    assert np.std(f, ddof=1) == pytest.approx(np.mean(se), rel=0.12)


def test_delta_interval_warns_when_degenerate():
    with pytest.warns(IntervalWarning, match="bayes"):
        iv = fm.f_interval([1, 1, 0, 0], [0, 0, 1, 0])
    assert iv.estimate == 0 and iv.width == 0      # exact: TP = 0
    # the Bayes interval holds there, but lies above the estimate 0 (issue 42: it says so)
    with pytest.warns(IntervalWarning, match="excludes the estimate F1 = 0"):
        assert fm.f_interval([1, 1, 0, 0], [0, 0, 1, 0], method="bayes",
                             random_state=0).high > 0.05


# ----------------------------------------------------------------------------- Bayes
def test_bayes_posterior_of_precision_is_the_beta_distribution():
    """beta = 0 is precision, whose posterior is Beta(TP + lambda, FP + lambda) (G & G)."""
    y, p = rows_of_counts((12, 5, 30, 53))
    iv = fm.f_interval(y, p, beta=0, method="bayes", B=40000, random_state=1, prior=0.5)
    lo, hi = stats.beta.ppf([0.025, 0.975], 12.5, 5.5)
    assert iv.low == pytest.approx(lo, abs=0.01)
    assert iv.high == pytest.approx(hi, abs=0.01)


def test_bayes_f_matches_a_dirichlet_monte_carlo():
    counts = np.array([40, 10, 25, 125])
    lam = 1.0
    rng = np.random.default_rng(3)
    d = rng.dirichlet(counts + lam, size=40000)
    f = 2 * d[:, 0] / (2 * d[:, 0] + d[:, 1] + d[:, 2])
    y, p = rows_of_counts(counts)
    iv = fm.f_interval(y, p, method="bayes", B=40000, random_state=4, prior=lam)
    assert iv.low == pytest.approx(np.quantile(f, 0.025), abs=0.006)
    assert iv.high == pytest.approx(np.quantile(f, 0.975), abs=0.006)
    assert iv.se == pytest.approx(f.std(), rel=0.03)


def test_prob_greater_of_two_independent_posteriors():
    a = fm.f_interval(*rows_of_counts((80, 10, 10, 100)), method="bayes", random_state=0)
    b = fm.f_interval(*rows_of_counts((50, 40, 40, 70)), method="bayes", random_state=1)
    assert a.prob_greater(b) > 0.999
    assert a.prob_greater(b) + b.prob_greater(a) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(InvalidArgumentError, match="Bayes"):
        a.prob_greater(fm.f_interval(*rows_of_counts((50, 40, 40, 70))))


# ----------------------------------------------------------------------------- bootstrap
def test_bootstrap_frequency_weights_equal_duplicated_rows():
    y, p = rows_of_counts((30, 12, 8, 50))
    w = np.where(np.arange(y.size) % 3 == 0, 2.0, 1.0)
    dup = np.repeat(np.arange(y.size), w.astype(int))
    for method in ("bootstrap", "bayes", "delta"):
        a = fm.f_interval(y, p, sample_weight=w, method=method, random_state=5)
        b = fm.f_interval(y[dup], p[dup], method=method, random_state=5)
        # the same cells with the same (integer) counts: the same draws
        assert (a.low, a.high, a.estimate) == pytest.approx((b.low, b.high, b.estimate),
                                                            rel=1e-12)


def test_bootstrap_se_is_close_to_the_delta_se():
    y, p = rows_of_counts((300, 150, 60, 1490))
    boot = fm.f_interval(y, p, method="bootstrap", B=4000, random_state=2)
    assert boot.se == pytest.approx(fm.f_interval(y, p).se, rel=0.06)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, error, name", [
    (dict(y_true=[1, 0, 1], y_pred=[1, 0]), InvalidArgumentError, "y_pred"),
    (dict(y_true=[1, 0, 2], y_pred=[1, 0, 1]), ResponseError, "y_true"),
    (dict(y_true=[0, 0, 0], y_pred=[1, 0, 1]), DataError, "y_true"),
    (dict(y_true=[1, 0, 1], y_pred=[1, 0, 1], level=1.0), InvalidArgumentError, "level"),
    (dict(y_true=[1, 0, 1], y_pred=[1, 0, 1], method="bootstrap", B=50),
     InvalidArgumentError, "B"),
    (dict(y_true=[1, 0, 1], y_pred=[1, 0, 1], sample_weight=[0.2, 0.3, 0.5]),
     InvalidArgumentError, "sample_weight"),
    (dict(y_true=[1, 0, 1], y_pred=[1, 0, 1], method="wald"), InvalidArgumentError, "method"),
    (dict(y_true=[1, 0, 1], y_pred=[1, 0, 1], average="macro"), InvalidArgumentError,
     "average"),
])
def test_bad_input_names_the_argument(kwargs, error, name):
    with pytest.raises(error, match=name):
        fm.f_interval(**kwargs)


def test_no_positives_says_what_f_means():
    with pytest.raises(DataError, match="zero_division"):
        fm.f_interval([0, 0, 0, 0], [0, 0, 0, 0])


# ----------------------------------------------------------------------------- compare
def test_paired_delta_se_is_the_numerical_derivative_over_eight_cells():
    rng = np.random.default_rng(11)
    n = 800
    y = (rng.random(n) < 0.3).astype(float)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, a, 1 - a)
    cells = np.zeros((2, 2, 2))
    np.add.at(cells, (y.astype(int), a.astype(int), b.astype(int)), 1)

    def diff(p):
        P = p.reshape(2, 2, 2)

        def f(axis):
            M = P.sum(axis=axis)          # (truth, prediction)
            return 2 * M[1, 1] / (2 * M[1, 1] + M[0, 1] + M[1, 0])
        return f(2) - f(1)

    cmp = fm.compare(a, b, y_true=y, method="delta")
    assert cmp.difference.se == pytest.approx(_numeric_delta_se(diff, cells.ravel()), rel=1e-6)
    assert cmp.estimate == pytest.approx(fm.f_score(y, a) - fm.f_score(y, b), rel=1e-12)
    z = cmp.estimate / cmp.difference.se
    assert cmp.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


def test_compare_methods_agree_and_pair_the_rows():
    rng = np.random.default_rng(12)
    n = 1500
    y = (rng.random(n) < 0.3).astype(float)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.95, a, 1 - a)        # b: a with 5 % of rows flipped
    out = {m: fm.compare(a, b, y_true=y, method=m, random_state=0)
           for m in ("paired-bootstrap", "delta", "bayes")}
    se = out["delta"].difference.se
    for m in ("paired-bootstrap", "bayes"):
        assert out[m].difference.se == pytest.approx(se, rel=0.1)
    # pairing: the difference's SE is far below that of two independent F
    unpaired = np.hypot(fm.f_interval(y, a).se, fm.f_interval(y, b).se)
    assert se < 0.6 * unpaired
    assert 0 <= out["bayes"].prob_a_better <= 1
    same = fm.compare(a, a, y_true=y, method="delta")
    assert same.estimate == 0 and same.p_value == 1     # exact: identical predictions


def test_compare_models_on_the_same_rows_and_refusals():
    titanic = fm.datasets.titanic_complete()
    a = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    b = fm.maxent("survived ~ C(pclass) + sex", titanic)
    cmp = fm.compare(a, b, titanic, method="delta")
    assert cmp.f_a == pytest.approx(a.measure(titanic), rel=1e-12)
    assert cmp.f_b == pytest.approx(b.measure(titanic), rel=1e-12)
    c = fm.maxent("survived ~ C(pclass) + sex", titanic.iloc[:500])
    with pytest.raises(ModelComparisonError, match="different rows"):
        fm.compare(a, c)
    holey = titanic.copy()
    holey.loc[holey.index[:3], "age"] = np.nan
    with pytest.warns(fm.exceptions.MissingDataWarning):
        with pytest.raises(ModelComparisonError, match="different rows"):
            fm.compare(a, b, holey)
    with pytest.raises(InvalidArgumentError, match="y_true"):
        fm.compare([1, 0, 1], [1, 1, 1])
    # tuned models compare like any model (the protocol's rows)
    grid = fm.cv_tune(fm.maxent, "survived ~ C(pclass) + sex", titanic, {"threshold": [0.3]},
                      cv=3, random_state=0)
    tuned = fm.tune_threshold(b, titanic, cv=3, random_state=0)
    cmp = fm.compare(grid, tuned, titanic, method="delta")
    assert cmp.f_a == pytest.approx(grid.measure(titanic), rel=1e-12)
    assert cmp.f_b == pytest.approx(tuned.measure(titanic), rel=1e-12)


# ----------------------------------------------------------------------------- models
def _families():
    titanic = fm.datasets.titanic_complete().sample(frac=1.0, random_state=0)
    train, test = titanic.iloc[:500], titanic.iloc[500:]
    f = "survived ~ C(pclass) + sex + age"
    base = fm.maxent(f, train)
    return train, test, {
        "maxent": base, "fmaxent": fm.fmaxent(f, train, beta=2),
        "wsvm": fm.wsvm(f, train), "fsvm": fm.fsvm(f, train), "tuned": fm.tune_threshold(base, train, cv=3,
                                                              random_state=0),
        "cv_tune": fm.cv_tune(fm.maxent, f, train, {"threshold": [0.3, 0.5]}, cv=3,
                              random_state=0)}


def test_measure_with_ci_on_every_family():
    """Mutant: the interval counting other rows or other classes than measure() does."""
    train, test, fits = _families()
    for name, fit in fits.items():
        for newdata in (None, test):
            value = fit.measure(newdata)
            for method in ("delta", "bayes", "bootstrap"):
                iv = fit.measure(newdata, ci=True, ci_method=method, random_state=0)
                assert isinstance(iv, fm.MeasureInterval), name
                assert iv.estimate == pytest.approx(value, rel=1e-12), (name, method)
                assert iv.low <= iv.high
        back = pickle.loads(pickle.dumps(iv))
        assert (back.low, back.high, back.method) == (iv.low, iv.high, iv.method)


def test_measure_with_ci_on_costsens_binary_micro_macro():
    """costsens counts its own classes (binary, multi-label): its interval is f_interval of
    those classes under the fit's average; the multiclass micro-F has no interval."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 3))
    eta = X @ np.array([[1.5, -1.0, 0.3], [0.2, 1.2, -0.8], [-0.5, 0.4, 1.0]]) - [1.5, 0.5, 2.0]
    d = pd.DataFrame(X, columns=["x1", "x2", "x3"])
    d[["y1", "y2", "y3"]] = (rng.random((600, 3)) < 1 / (1 + np.exp(-eta))).astype(int)
    train, test = d.iloc[:400], d.iloc[400:]
    cases = [("y1 ~ x1 + x2 + x3", "f", "binary", ["y1"]),
             ("y1 + y2 + y3 ~ x1 + x2 + x3", "micro_f", "micro", ["y1", "y2", "y3"]),
             ("y1 + y2 + y3 ~ x1 + x2 + x3", "macro_f", "macro", ["y1", "y2", "y3"])]
    for formula, measure, average, labels in cases:
        fit = fm.costsens(formula, train, measure=measure, grid=5, random_state=0)
        pred = fit.predict(test).to_numpy()
        truth = test[labels].to_numpy()
        if average == "binary":
            truth = truth[:, 0]
        for method in ("delta", "bayes"):
            iv = fit.measure(test, ci=True, ci_method=method, random_state=0)
            ref = fm.f_interval(truth, pred, average=average, method=method, random_state=0)
            assert iv.estimate == pytest.approx(fit.measure(test), rel=1e-12)
            assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    mc = pd.DataFrame({"x1": d["x1"], "x2": d["x2"],
                       "y": np.where(d["y1"] == 1, "A", np.where(d["y2"] == 1, "B", "none"))})
    fit = fm.costsens("y ~ x1 + x2", mc, grid=3, default_class="none", random_state=0)
    with pytest.raises(InvalidArgumentError, match="`ci`.*multiclass"):
        fit.measure(mc, ci=True)


def test_measure_ci_counts_probabilistic_labels_fractionally():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=300)})
    df["q"] = 1 / (1 + np.exp(-(df["x"] - 0.5)))
    fit = fm.umaxent("q ~ x", df)
    iv = fit.measure(ci=True)
    assert iv.estimate == pytest.approx(fit.measure(), rel=1e-12)
    with pytest.raises(InvalidArgumentError, match="0/1 labels"):
        fit.measure(ci=True, ci_method="bayes")


# ----------------------------------------------------------------------------- bands
def _lr_by_optimiser(c, f, alpha=0.5):
    """2 (l_hat - max l subject to F = f), maximised by scipy's SLSQP (independent of the
    closed forms and the bisection of fmstats)."""
    from scipy.optimize import minimize

    c = np.asarray(c, dtype=float)
    n = c.sum()
    lhat = np.sum(c[c > 0] * np.log(c[c > 0] / n))
    cons = ({"type": "eq", "fun": lambda p: p[0] * (1 - f) - f * (alpha * p[1]
                                                                   + (1 - alpha) * p[2])},
            {"type": "eq", "fun": lambda p: p.sum() - 1})
    r = minimize(lambda p: -np.sum(c * np.log(np.maximum(p, 1e-300))), c / n * 0.9 + 0.025,
                 constraints=cons, bounds=[(1e-12, 1)] * 4, method="SLSQP",
                 options={"ftol": 1e-14, "maxiter": 1000})
    return 2 * (lhat + r.fun)


@pytest.mark.parametrize("counts", [(40, 10, 25, 125), (3, 0, 4, 50), (0, 5, 10, 85),
                                    (10, 0, 0, 90)])
def test_profile_interval_ends_where_the_likelihood_ratio_is_the_chi2_quantile(counts):
    from fmstats.inference._bands import profile_f_interval

    F, lo, hi = profile_f_interval(np.array([counts], dtype=float), 0.5, 0.95)
    crit = stats.chi2.ppf(0.95, 1)
    for end, bound in ((lo[0], 0.0), (hi[0], 1.0)):
        if end != bound:          # an end at 0 or 1 is the boundary itself
            assert _lr_by_optimiser(counts, end) == pytest.approx(crit, rel=1e-5)
    assert lo[0] <= F[0] <= hi[0]


def test_pr_region_statistic_is_the_profile_likelihood_ratio():
    """The closed form of the (precision, recall) profile at one cut against a numerical
    maximisation over the nuisance parameter."""
    from scipy.optimize import minimize_scalar
    from fmstats.inference._bands import pr_region

    y, p = rows_of_counts((40, 10, 25, 125))
    r, pg, stat, crit = pr_region(y, p.astype(float), np.ones(y.size), 0.95, grid=11)
    assert crit == pytest.approx(stats.chi2.ppf(0.95, 2), rel=1e-12)
    n = 200.0

    def lr(c, P, R):
        a, b = (1 - P) / P, (1 - R) / R
        c = np.asarray(c, dtype=float)
        lhat = np.sum(c[c > 0] * np.log(c[c > 0] / n))

        def negll(x):
            q = np.array([x, a * x, b * x, 1 - (1 + a + b) * x])
            return -np.sum(c[c > 0] * np.log(q[c > 0])) if (q >= 0).all() else np.inf

        best = minimize_scalar(negll, bounds=(1e-12, 1 / (1 + a + b)), method="bounded",
                               options={"xatol": 1e-14})
        return 2 * (lhat + best.fun)

    for i, j in ((3, 5), (7, 6), (8, 2), (5, 8)):
        # two cuts: "score >= 1" (the counts above) and "score >= 0" (all positive); the
        # region's statistic is the smaller of their statistics
        want = min(lr((40, 10, 25, 125), pg[i], r[j]), lr((65, 135, 0, 0), pg[i], r[j]))
        assert stat[i, j] == pytest.approx(want, rel=1e-6)


def test_f_band_threshold_interval_and_methods():
    rng = np.random.default_rng(0)
    y = (rng.random(600) < 0.3).astype(float)
    s = y + rng.normal(size=600)
    boot = fm.inference.f_band(y, s, random_state=1, B=400)
    again = fm.inference.f_band(y, s, random_state=1, B=400)
    assert boot.threshold_ci == again.threshold_ci       # the same seed: the same draws
    lo, hi = boot.threshold_ci
    assert lo <= boot.best_threshold <= hi
    t = boot.table
    assert (t["f_low"] <= t["f"] + 1e-12).all() and (t["f"] <= t["f_high"] + 1e-12).all()
    prof = fm.inference.f_band(y, s, method="profile", B=200, random_state=1).table
    delta = fm.inference.f_band(y, s, method="delta", B=200, random_state=1).table
    k = int(np.argmax(t["f"]))
    # at the best cut (hundreds of positives) the three bands agree to a few thousandths
    for other in (prof, delta):
        assert other["f_low"][k] == pytest.approx(t["f_low"][k], abs=0.02)
        assert other["f_high"][k] == pytest.approx(t["f_high"][k], abs=0.02)
    with pytest.raises(InvalidArgumentError, match="0/1 labels"):
        fm.inference.f_band(np.full(600, 0.4), s, method="profile")


def test_model_curves_with_bands():
    titanic = fm.datasets.titanic_complete()
    fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    c = fit.f_curve(band=True, band_method="profile")
    plain = fit.f_curve()
    np.testing.assert_allclose(c["f"], plain["f"], rtol=1e-12)
    assert {"f_low", "f_high"} <= set(c.columns)
    pytest.importorskip("matplotlib").use("Agg")
    fit.plot_pr(band=True, B=200, random_state=0)
    fit.plot_pr(band=True, band_method="profile")


@pytest.mark.reference
def test_pr_profile_statistic_equals_mmu():
    """The closed-form profile likelihood ratio of a (precision, recall) point against the
    ``mmu`` package of Urlus et al. (2023) (stored values; mmu is not needed to run this)."""
    from fmstats.inference._bands import pr_statistic

    ref = pd.read_csv(REF / "mmu_pr_profile.csv", comment="#")
    assert len(ref) == 24
    counts = ref[["tp", "fp", "fn", "tn"]].to_numpy(dtype=float)
    stat = np.array([pr_statistic(c[None], [p], [r])[0, 0]
                     for c, p, r in zip(counts, ref["precision"], ref["recall"])])
    np.testing.assert_allclose(stat, ref["statistic"], rtol=1e-8, atol=1e-9)
