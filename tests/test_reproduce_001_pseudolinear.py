"""Seed 001 (Puthiya Parambath, Usunier, Grandvalet: pseudo-linear measures) reproduced.

Every number of the paper that fmstats can compute is compared two-sided with the value
transcribed in ``tests/reference/seed001_*.csv`` (see tests/reference/README.md for table,
section and line of the seed text), with the tolerance stated at each test:

* Figure 3, the F1 of the seven tabulated classifiers (exact arithmetic; three of the
  paper's values are wrong and the tests assert the correct ones, saying why);
* Galaxy, the optimal F1 (the paper's 67.5 % is a sample value; no reading of the stated
  parameters gives it -- ``tests/reference/seed001_galaxy_experiment.py``);
* Adult, Table 2: the variants -, T, CS, CS&T of logistic regression and the linear SVM;
* yeast, Tables 3 and 5: macro-F and micro-F of logistic regression.

The numbers come from :mod:`fmstats.experiments.papers`, the functions vignette 06 calls, so the
vignette's prose is checked here too (``test_vignette_06_claims``).  Where the paper prints
no number, the expected value is computed here without fmstats: exact rational arithmetic
(Figure 3), brute force over the cluster rules and the delta method with a numpy sampler
(Galaxy), scikit-learn's logistic regression (the plain variant's predictions and tuned C).
"""
from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from fmstats.experiments.papers import (
    FIG3_ETA, FIG3_MU, GALAXY_ETA, GALAXY_MU, fig3_classifiers, galaxy_optimum,
    galaxy_sample_f, paper_variants, plain_variant_tuned,
)

pytestmark = pytest.mark.reference

REF = Path(__file__).parent / "reference"
VIGNETTE = Path(__file__).parent.parent / "vignettes" / "06-cost-sensitive.ipynb"


def _paper_tables() -> pd.DataFrame:
    return pd.read_csv(REF / "seed001_tables.csv", keep_default_na=False)


def _paper(table, dataset, learner, measure="f") -> pd.Series:
    t = _paper_tables()
    t = t[(t.table == table) & (t.dataset == dataset) & (t.learner == learner)
          & (t.measure == measure)]
    return t.set_index("variant").f1_pct / 100


# --------------------------------------------------------------------------- Figure 3

def _fig3_by_hand(pred):
    """F1 = 2 TP / (2 TP + FP + FN) in exact rational arithmetic (1 = positive)."""
    mu = [Fraction(v).limit_denominator(1000) for v in FIG3_MU]
    eta = [Fraction(v).limit_denominator(1000) for v in FIG3_ETA]
    tp = sum(m * e for m, e, p in zip(mu, eta, pred) if p == 1)
    fp = sum(m * (1 - e) for m, e, p in zip(mu, eta, pred) if p == 1)
    fn = sum(m * e for m, e, p in zip(mu, eta, pred) if p == 2)
    return Fraction(0) if tp == 0 else 2 * tp / (2 * tp + fp + fn)


@pytest.fixture(scope="module")
def fig3():
    ours = fig3_classifiers().set_index(["x0", "x1", "x2"])
    paper = pd.read_csv(REF / "seed001_fig3.csv").set_index("classifier")
    return ours, paper


def test_fig3_every_classifier_equals_exact_arithmetic(fig3):
    ours, _ = fig3
    assert len(ours) == 8
    for pred, row in ours.iterrows():
        assert row.f1 == pytest.approx(float(_fig3_by_hand(pred)), abs=1e-15), pred


@pytest.mark.parametrize("name", list("BDEG"))
def test_fig3_matches_paper(fig3, name):
    # Tolerance: the paper prints F1 in % with two decimals, so a correct value is within
    # 0.005 points of the print; 0.006 allows for the rounding of the printed digit.
    ours, paper = fig3
    p = paper.loc[name]
    assert abs(100 * ours.loc[(p.x0, p.x1, p.x2), "f1"] - p.f1_pct) <= 0.006


def test_fig3_where_the_paper_is_wrong(fig3):
    ours, paper = fig3

    def f(name):
        p = paper.loc[name]
        return 100 * ours.loc[(p.x0, p.x1, p.x2), "f1"]

    # h_A predicts class 2 everywhere: no true positive, so F1 = 2 TP / (...) = 0 exactly.
    # The paper's 2.22 cannot be the F1 of any classifier without positives.
    assert f("A") == 0.0 and paper.loc["A", "f1_pct"] == 2.22
    # h_F = (1, 1, 2): TP = 0.65*0.7 + 0.3*0.4 = 0.575, FP = 0.65*0.3 + 0.3*0.6 = 0.375,
    # FN = 0.05*0.15 = 0.0075, F1 = 1.15 / 1.5325 = 75.04 %; the paper prints 75.24 (one
    # digit off).  F is still the best classifier, as the paper says.
    assert _fig3_by_hand((1, 1, 2)) == Fraction(115, 100) / Fraction(15325, 10000)
    assert f("F") == pytest.approx(75.041, abs=0.001)
    assert abs(f("F") - paper.loc["F", "f1_pct"]) == pytest.approx(0.199, abs=0.001)
    assert ours.f1.idxmax() == tuple(paper.loc["F", ["x0", "x1", "x2"]])
    # h_C = (2, 1, 2): TP = 0.12, FP = 0.18, FN = 0.4625, F1 = 0.24 / 0.8825 = 27.195 %;
    # the paper prints 27.22, 0.025 points off -- beyond its two-decimal precision.
    assert f("C") == pytest.approx(27.195, abs=0.001)
    assert 0.02 < paper.loc["C", "f1_pct"] - f("C") < 0.03
    # The eighth classifier (2, 1, 1) is missing from the paper's table: 27.35 %.
    assert 100 * ours.loc[(2, 1, 1), "f1"] == pytest.approx(27.35, abs=0.005)


# --------------------------------------------------------------------------- Galaxy

def _galaxy_brute(mu, eta, beta=1.0):
    """Brute force: the F_beta of each of the 2^k whole-cluster rules, by hand; the best."""
    best = (0.0, None)
    for rule in itertools.product((0, 1), repeat=len(mu)):
        tp = sum(m * e for m, e, r in zip(mu, eta, rule) if r)
        fp = sum(m * (1 - e) for m, e, r in zip(mu, eta, rule) if r)
        fn = sum(m * e for m, e, r in zip(mu, eta, rule) if not r)
        f = (1 + beta ** 2) * tp / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp) if tp > 0 else 0.0
        if f > best[0]:
            best = (f, rule)
    return best


#: The optimal rule's confusion cells (clusters 1 and 3 positive): P(TP), P(FP), P(FN).
GALAXY_CELLS = (0.01 * 0.9 + 0.001 * 0.9, 0.01 * 0.1 + 0.001 * 0.1, 0.1 * 0.09)


def _galaxy_delta_sd(n):
    """Delta method: sd of F1 = 2a/(2a + b + c) of multinomial cell shares (a, b, c) of n draws."""
    a, b, c = GALAXY_CELLS
    D = 2 * a + b + c
    g = np.array([2 * (b + c), -2 * a, -2 * a]) / D ** 2
    p = np.array(GALAXY_CELLS)
    cov = (np.diag(p) - np.outer(p, p)) / n
    return float(np.sqrt(g @ cov @ g))


def _galaxy_sample_by_hand(n, draws, seed):
    """F1 of the optimal rule on ``draws`` samples of n examples: multinomial cell counts."""
    p = list(GALAXY_CELLS) + [1 - sum(GALAXY_CELLS)]
    tp, fp, fn, _ = np.random.default_rng(seed).multinomial(n, p, size=draws).T
    return 2 * tp / (2 * tp + fp + fn)


def test_galaxy_population_optimum_is_66_22_not_67_5():
    paper = pd.read_csv(REF / "seed001_galaxy.csv").set_index("quantity").f1_pct / 100
    f, rule = galaxy_optimum()
    # By hand: clusters 1 and 3 positive, TP = 0.009 + 0.0009, FP = 0.001 + 0.0001,
    # FN = 0.1 * 0.09 = 0.009, F1 = 0.0198 / 0.0299.
    assert rule == (1, 0, 1, 0)
    assert f == pytest.approx(0.0198 / 0.0299, abs=1e-12)
    # The paper's 67.5 % is 1.28 points higher.  No reading of the stated parameters gives
    # it: replacing any one of the seven numbers by a plausible misprint (or using F_0.5 /
    # F_2) never lands within the paper's precision (0.05 points) of 67.5 %
    # (seed001_galaxy_experiment.py prints the full grid; the closest is 67.9 %).  Each
    # reading is scored by brute force over the 16 cluster rules, and fmstats' galaxy_optimum
    # must agree with it (to 1e-12).
    variants = []
    for i, values in {0: [0.001, 0.02, 0.1, 0.011], 1: [0.01, 0.09, 0.11, 0.2],
                      2: [0.01, 0.0001, 0.002]}.items():
        for v in values:
            mu = np.array(GALAXY_MU)
            mu[i] = v
            mu[3] = 1 - mu[:3].sum()
            variants.append((mu, np.array(GALAXY_ETA)))
    for i, values in {0: [0.95, 0.99, 0.8], 1: [0.009, 0.1, 0.08, 0.05],
                      2: [0.09, 0.95, 0.99, 0.8], 3: [0.001, 0.01]}.items():
        for v in values:
            eta = np.array(GALAXY_ETA)
            eta[i] = v
            variants.append((np.array(GALAXY_MU), eta))
    for mu, eta in variants:
        for beta in (0.5, 1.0, 2.0):
            f_brute, rule = _galaxy_brute(mu, eta, beta)
            assert abs(f_brute - paper["optimal_f1"]) > 5e-4
            assert galaxy_optimum(mu, eta, beta) == (pytest.approx(f_brute, abs=1e-12), rule)


def test_galaxy_paper_value_is_a_plausible_sample_value():
    """The paper evaluates on 'a very large sample (100,000 examples)'.  References computed
    here: the delta method for F1 = 2a / (2a + b + c) of the multinomial cell shares gives a
    standard deviation of 0.0100 on such a sample, and a sampler written here (20,000
    samples of the four confusion cells) its 2.5 % / 97.5 % quantiles and the share of
    samples reporting 67.45 % or more.  The paper's 67.5 % is 1.3 sd above the population
    value 66.22 %: inside the central 95 % of sample values, and about one sample in ten
    (0.05-0.15, "one in ten" to one significant figure) reports it.  fmstats'
    galaxy_sample_f (2,000 samples, drawn cluster by cluster) agrees with both: mean within
    4 standard errors of 0.0198/0.0299, sd within 10 % of the delta method (the sd of a
    2,000-sample sd is 1.6 %), share within 4 binomial standard errors of the reference's.
    Catches: the sample F computed with the wrong rule, F_2 instead of F_1, n draws per
    cluster instead of n in all."""
    paper = pd.read_csv(REF / "seed001_galaxy.csv").set_index("quantity").f1_pct / 100
    f_pop, sd = 0.0198 / 0.0299, _galaxy_delta_sd(100_000)
    ref = _galaxy_sample_by_hand(100_000, 20_000, 7)
    assert ref.mean() == pytest.approx(f_pop, abs=4 * sd / np.sqrt(len(ref)) + 1e-4)
    assert ref.std(ddof=1) == pytest.approx(sd, rel=0.05)
    lo, hi = np.quantile(ref, [0.025, 0.975])
    assert lo <= paper["optimal_f1"] <= hi
    share = np.mean(ref >= paper["optimal_f1"] - 5e-4)
    assert 0.05 <= share < 0.15
    f = galaxy_sample_f(100_000, draws=2000, random_state=2024)
    assert abs(f.mean() - f_pop) <= 4 * sd / np.sqrt(len(f)) + 1e-4
    assert f.std(ddof=1) == pytest.approx(sd, rel=0.10)
    ours = np.mean(f >= paper["optimal_f1"] - 5e-4)
    assert abs(ours - share) <= 4 * np.sqrt(share * (1 - share) * (1 / len(f) + 1 / len(ref)))


# --------------------------------------------------------------------------- Adult, Table 2

@pytest.fixture(scope="module")
def adult_logit():
    return paper_variants("adult", "f", "logit", splits=range(5), reading="libsvm")


def _means(d):
    return d.groupby("variant").test_f.mean()


#: Adult tolerances (fractions of F1).  Measured (seed001_adult_experiment.out): over five
#: splits the per-split sd of each variant is 0.0012-0.0023, so two independent five-split
#: means (the paper's and ours) differ with sd <= 0.0023 * sqrt(2/5) = 0.0015; two sd, plus
#: the paper's rounding (0.0005), is 0.0035 for T, CS and CS&T.  The plain "-" variant is
#: the one the paper's tuning of C moves most (on yeast, tuning C moves "-" by 6 points and
#: the others by < 0.3; seed001_yeast_plain_experiment.out) and fmstats fixes C = 1: 0.006.
ADULT_TOL = {"-": 0.006, "T": 0.0035, "CS": 0.0035, "CS&T": 0.0035}
#: The default reading (complete rows, continuous attributes) is a different data set from
#: the paper's (30,162 / 15,060 rows instead of 32,561 / 16,281): its measured gaps to Table
#: 2 are +0.98, +0.99, +1.03, +0.57 points (LR) and -0.73, +0.60, +0.26, +0.61 (SVM), so the
#: tests on that reading allow 1.1 points (the largest gap, rounded up by the paper's 0.05).
COMPLETE_TOL = 0.011


@pytest.mark.slow      # five Adult splits x four variants: ~15 s, too long for the default run
def test_adult_logit_variants(adult_logit):
    """Logistic regression, -, T, CS, CS&T, in the paper's data reading (all rows, LIBSVM-like
    binary features; fmstats.experiments.papers.adult_data("libsvm")): mean test F1 of five random
    validation splits (the paper's protocol) against Table 2, two-sided within ADULT_TOL.
    (Measured: 65.53, 67.98, 67.91, 67.87 against 65.0, 67.7, 67.7, 67.9.)"""
    ours, paper = _means(adult_logit), _paper(2, "Adult", "logit")
    for v in ("-", "T", "CS", "CS&T"):
        assert abs(ours[v] - paper[v]) <= ADULT_TOL[v], v
    # the order of the variants is the paper's: "-" far below, the other three together
    assert ours["-"] < min(ours[["T", "CS", "CS&T"]]) - 0.02
    assert max(ours[["T", "CS", "CS&T"]]) - min(ours[["T", "CS", "CS&T"]]) <= 0.005
    # the split-to-split spread the tolerance is built on
    assert adult_logit.groupby("variant").test_f.std(ddof=1).max() <= 0.0035
    _claims(", ".join(_pct(ours[v]) for v in ("-", "T", "CS")) + f" and {_pct(ours['CS&T'])}")


def test_adult_cs_and_t_single_split_and_protocol():
    """(Moved from test_costsensitive.py, formerly one-sided ">= 0.67".)  One split, the
    default call on the complete rows: the test F1 of CS&T against the paper's 67.9 %,
    two-sided with COMPLETE_TOL; plus the results protocol on Adult."""
    import pickle

    from scipy.special import expit

    from fmstats.costsensitive import costsens
    from fmstats.datasets import load_adult
    from fmstats.experiments.papers import ADULT_FORMULA

    train, test = load_adult("train").dropna(), load_adult("test").dropna()
    fit = costsens(ADULT_FORMULA, train, random_state=0)
    assert fit.variant == "CS&T" and len(fit.curve) == 19
    assert abs(fit.measure(test) - _paper(2, "Adult", "logit")["CS&T"]) <= COMPLETE_TOL
    text = str(fit.summary())
    assert "alpha = 0.5" in text and "CS&T" in text and "Cost level t" in text
    clone = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(clone.predict(test.head(50)), fit.predict(test.head(50)))
    sc = fit.predict(test.head(5), type="response")
    assert np.all((sc > 0) & (sc < 1))
    # the class rule is "log-odds >= threshold", i.e. probability >= expit(threshold)
    np.testing.assert_array_equal(fit.predict(test.head(200)).to_numpy(),
                                  (fit.predict(test.head(200), type="response")
                                   >= expit(fit.best_threshold)).astype(int).to_numpy())
    # bracketing uses fewer fits and gets about the same validation F
    br = costsens(ADULT_FORMULA, train, search="bracket", random_state=0)
    assert len(br.curve) <= 19
    assert br.validation_f >= fit.validation_f - 0.005


@pytest.mark.slow
def test_adult_svm_variants():
    """(Replaces test_adult_svm_cs_and_t, formerly ">= 0.67".)  Linear SVM, five splits,
    19 cost levels, C = 1 on standardised columns, complete rows, against Table 2's SVM
    columns, two-sided within COMPLETE_TOL (measured: 66.17, 68.10, 68.16, 68.41 against
    66.9, 67.5, 67.9, 67.8)."""
    d = paper_variants("adult", "f", "svm", splits=range(5))
    ours, paper = _means(d), _paper(2, "Adult", "svm")
    for v in ("-", "T", "CS", "CS&T"):
        assert abs(ours[v] - paper[v]) <= COMPLETE_TOL, v
    assert ours["-"] < min(ours[["T", "CS", "CS&T"]])


# --------------------------------------------------------------------------- yeast, Tables 3, 5

@pytest.mark.slow
@pytest.mark.parametrize("measure, table", [("macro_f", 3), ("micro_f", 5)])
def test_yeast_variants(measure, table):
    """(Replaces test_yeast_cs_and_t_near_paper, formerly ">= paper - 0.02".)  Logistic
    regression on yeast, five splits, penalty fixed at 1, against Tables 3 (macro-F) and 5
    (micro-F, C_min).  T, CS and CS&T: two-sided within YEAST_TOL.  The plain "-" variant
    depends on the ridge constant, which the paper tunes: test_yeast_plain_variant_tuned_c."""
    d = paper_variants("yeast", measure, "logit", splits=range(5))
    ours, paper = _means(d), _paper(table, "Yeast", "logit", measure)
    for v in ("T", "CS", "CS&T"):
        assert abs(ours[v] - paper[v]) <= YEAST_TOL, v
    assert d.groupby("variant").test_f.std(ddof=1).max() <= 0.0075
    if measure == "macro_f":
        _claims(f"macro-F {_pct(ours['-'], 1)} against Table 3's 38.7",
                ", ".join(_pct(ours[v]) for v in ("T", "CS")) + f" and {_pct(ours['CS&T'])}")


#: Yeast tolerance: measured per-split sd of T, CS, CS&T up to 0.0064 (macro-F, five
#: splits), so two independent five-split means differ with sd 0.0064 * sqrt(2/5) = 0.0040;
#: two sd plus the paper's rounding: 0.0086.  (Measured macro-F 47.35, 47.82, 47.32 against
#: 47.6, 47.6, 47.3.)
YEAST_TOL = 0.0086


@pytest.mark.slow
def test_yeast_plain_variant_tuned_c():
    """The plain "-" macro-F on yeast is 5 points below Table 3 at C = 1 (34.0 against 38.7,
    five splits) because the paper tunes C in {2^-6, ..., 2^6} on validation F for every
    variant and fmstats fixes it: at the 1/2 cut macro-F rises steadily with C (weaker
    regularisation predicts the rare labels more often; seed001_yeast_plain_experiment.out:
    12.5 at C = 2^-6, 33.7 at 1, 39.8 at 2^6).  Tuned as the paper does, "-" reaches the
    paper's value: two-sided within 2 sd of the difference of two five-split means with the
    measured per-split sd of the tuned variant (0.0117): 0.015.  The chosen C is checked
    against scikit-learn's logistic regression on the same splits."""
    d = plain_variant_tuned("macro_f")
    paper = _paper(3, "Yeast", "logit", "macro_f")["-"]
    assert abs(d.test_f.mean() - paper) <= 0.015
    _claims(f"with C tuned as in the paper it is {_pct(d.test_f.mean(), 1)}")
    # "the validation F picks weak regularisation": the choice of C, recomputed by
    # scikit-learn on the same validation splits, is above the C = 1 used elsewhere on every
    # split, and fmstats chose the same C
    assert (d.C > 1).all()
    np.testing.assert_array_equal(d.C.to_numpy(), _sklearn_tuned_c(d.split, "macro_f"))


def _sklearn_tuned_c(splits, measure, c_grid=tuple(2.0 ** np.arange(-6, 7))):
    """The paper's choice of C for the plain variant by scikit-learn: per split (fmstats'
    validation third of that seed, as data) and C, per label an L2 logistic regression
    (1/2 ||b||^2 + C sum log-loss) on the training part, cut at 1/2; the validation macro-F
    (mean over labels of 2 TP / (2 TP + FP + FN)) or micro-F; the first C with the best."""
    from sklearn.linear_model import LogisticRegression

    from fmstats.costsensitive import costsens
    from fmstats.datasets import load_yeast, yeast_label_names

    train, labels = load_yeast("train"), yeast_label_names()
    features = [c for c in train.columns if c not in labels]
    chosen = []
    for split in splits:
        mask = np.asarray(costsens(" + ".join(labels) + " ~ .", train, measure=measure,
                                   costs=False, thresholds=False, random_state=split,
                                   progress=False).validation_mask)
        X = train.loc[~mask, features].to_numpy(float)
        Xv = train.loc[mask, features].to_numpy(float)
        best = (-1.0, None)
        for C in c_grid:
            tp, fp, fn = (np.zeros(len(labels)) for _ in range(3))
            for k, lab in enumerate(labels):
                y, yv = train.loc[~mask, lab].to_numpy(), train.loc[mask, lab].to_numpy()
                with threadpool_limits(1, "blas"):     # small fits: one BLAS thread is faster
                    m = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(X, y)
                pred = m.predict_proba(Xv)[:, 1] >= 0.5
                tp[k], fp[k] = np.sum(pred & (yv == 1)), np.sum(pred & (yv == 0))
                fn[k] = np.sum(~pred & (yv == 1))
            if measure == "macro_f":
                f = np.mean(np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0))
            else:
                f = 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())
            if f > best[0] + 1e-12:
                best = (f, C)
        chosen.append(best[1])
    return np.array(chosen)


# --------------------------------------------------------------------------- vignette 06

def _vignette_text() -> str:
    nb = json.loads(VIGNETTE.read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def _claims(*phrases):
    """Every phrase (a number as the vignette prints it) occurs in vignette 06's prose."""
    text = _vignette_text()
    text = " ".join(text.split())                 # line breaks in prose are spaces
    missing = [p for p in phrases if " ".join(p.split()) not in text]
    assert not missing, f"vignette 06 no longer states {missing}: update the prose or the test"


def _pct(x, nd=2):
    return f"{100 * x:.{nd}f}"


def test_vignette_06_claims_fig3_and_galaxy(fig3):
    ours, _ = fig3
    # "G is found for t < 0.3": the cost (2 - t) FN + t FP of the all-positive G equals that
    # of F = (1, 1, 2) at t* = 2 FN_F / (FN_F + FP_G - FP_F) = 0.015 / 0.05 = 0.3
    G, F = ours.loc[(1, 1, 1)], ours.loc[(1, 1, 2)]
    assert 2 * F.fn / (F.fn + G.fp - F.fp) == pytest.approx(0.3, abs=1e-12)
    for t, G_wins in ((0.001, True), (0.299, True), (0.301, False), (1.0, False)):
        costs = (2 - t) * ours.fn + t * ours.fp
        assert (costs.idxmin() == (1, 1, 1)) is G_wins, t
    fopt = _galaxy_brute(GALAXY_MU, GALAXY_ETA)[0]
    mu = np.array(GALAXY_MU)
    mu[0], mu[3] = 0.011, 1 - 0.011 - 0.1 - 0.001
    # the figures quoted are exact arithmetic (test_fig3_every_classifier_equals_exact_
    # arithmetic) and brute force; "one sample in ten" is test_galaxy_paper_value_is_a_...
    _claims("(B, D, E, G)", f"{_pct(float(_fig3_by_hand((1, 1, 2))))} %",
            f"{_pct(float(_fig3_by_hand((2, 1, 2))), 3)} %",
            "found for t < 0.3", f"{_pct(fopt)} %", f"{_pct(_galaxy_brute(mu, GALAXY_ETA)[0])} %",
            "one sample in ten")


@pytest.mark.slow
def test_vignette_06_claims_adult_complete_rows():
    """The five-split means of the complete-row reading the vignette quotes, two-sided
    against Table 2 within COMPLETE_TOL."""
    ours = _means(paper_variants("adult", "f", "logit", splits=range(5)))
    paper = _paper(2, "Adult", "logit")
    for v in ("-", "T", "CS", "CS&T"):
        assert abs(ours[v] - paper[v]) <= COMPLETE_TOL, v
    _claims(", ".join(_pct(ours[v]) for v in ("-", "T", "CS")) + f" and {_pct(ours['CS&T'])}")


def test_vignette_06_paper_numbers_are_the_reference_csv():
    """The Table 2, 3 and 5 values vignette 06 quotes are those of seed001_tables.csv."""
    def quoted(table, dataset, learner, measure="f"):
        p = _paper(table, dataset, learner, measure)
        return ", ".join(f"{100 * p[v]:.1f}" for v in ("-", "T", "CS", "CS&T"))

    lr = _paper(2, "Adult", "logit")
    _claims("logistic regression {:.1f} (–), {:.1f} (T), {:.1f} (CS), {:.1f} (CS&T)".format(
                *(100 * lr[v] for v in ("-", "T", "CS", "CS&T"))),
            f"SVM {quoted(2, 'Adult', 'svm')}",
            "macro-F " + quoted(3, "Yeast", "logit", "macro_f"),
            "micro-F " + quoted(5, "Yeast", "logit", "micro_f"))


def _sklearn_plain_counts(train, test, labels, C=1.0):
    """The plain "-" variant by scikit-learn: per label an L2 logistic regression minimising
    1/2 ||b||^2 + C sum log-loss (intercept unpenalised: fmstats' ridge penalty 1/C on the
    raw columns), cut at 1/2; the number of test rows predicted positive per label."""
    from sklearn.linear_model import LogisticRegression

    features = [c for c in train.columns if c not in labels]
    X, Xt = train[features].to_numpy(float), test[features].to_numpy(float)
    out = {}
    with threadpool_limits(1, "blas"):      # small fits: one BLAS thread is ~7x faster here
        for lab in labels:
            m = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(X, train[lab].to_numpy())
            p = m.predict_proba(Xt)[:, 1]
            # rows near the cut would make the count depend on the solvers' accuracy
            assert np.min(np.abs(p - 0.5)) > 1e-6, lab
            out[lab] = int(np.sum(p >= 0.5))
    return pd.Series(out)


def test_vignette_06_claim_plain_variant_misses_rare_labels():
    """"at the 1/2 cut the plain classifiers never predict the rare labels Class 9, 10, 11
    and 14 for any test gene (training priors 1.4-13 %)".  Reference: scikit-learn's
    logistic regression with the same ridge (penalty 1) on the same training part (the rows
    fmstats' split keeps for training); fmstats' count of predicted positives per label
    equals the reference's, and the never-predicted labels are the reference's.
    Catches: the penalty applied to the intercept, the cut at a threshold other than 1/2."""
    from fmstats.costsensitive import costsens
    from fmstats.datasets import load_yeast, yeast_label_names

    train, test = load_yeast("train"), load_yeast("test")
    labels = yeast_label_names()
    fit = costsens(" + ".join(labels) + " ~ .", train, measure="macro_f", costs=False,
                   thresholds=False, random_state=0, progress=False)
    ref = _sklearn_plain_counts(train[~np.asarray(fit.validation_mask)], test, labels)
    ours = fit.predict(test).sum(axis=0)
    np.testing.assert_array_equal(ours[labels].to_numpy(), ref[labels].to_numpy())
    never = set(ref.index[ref == 0])
    assert never == {"Class9", "Class10", "Class11", "Class14"}
    prior = train[sorted(never)].mean()
    assert (round(100 * prior.min(), 1), round(100 * prior.max())) == (1.4, 13)
    _claims("Class 9, 10, 11 and 14 for any test gene (training priors 1.4–13 %)")
