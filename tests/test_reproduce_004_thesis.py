"""Reproduction of the thesis's experiments (seed 004: Rose 2014, chapters 8 and 9).

The thesis reports its experiments as figures without numeric tables.  Every number this
module asserts comes from a source other than fmstats:

* **the thesis's own statements**, with the thesis's precision (e.g. "about 20 iterations",
  "around beta = 0.6", "for most values of beta");
* **re-implementations written here from the thesis's equations**, on numpy, statsmodels and
  scikit-learn, never calling the fmstats code under test:

  - the F-measure (Def. 2.2.1) and the noisy F-measure (eq. 6.1, Def. 6.1.1) by hand;
  - the weighted uncertain likelihood (§5.2) as the thesis's R code fits it: every row doubled,
    response 1 with weight w q and response 0 with weight w (1 - q), by statsmodels' GLM;
  - Algorithm 7.1 with the smoothed weights (7.1) of §7.2 (g1, g2 of (7.2)-(7.3)), its
    plug-in variant of §9.3, Algorithm 4.1 with the weights (4.2) and the expected F of
    Def. 4.2.1, and the appendix's R loop (A.2: raw weights (6.9) clipped to [1e-6, 10], a
    cold ``glm`` call per outer iteration, ``maxit = 1`` as R's first IRLS step from its
    ``mustart``);
  - the mean F over label draws from q (§9.2) by Monte Carlo with numpy's generator;
  - the chapter-8 weighted SVM (3.1)-(3.2) by scikit-learn's ``SVC`` (libsvm), its 2-fold
    cross-validation with the pooled F_tp,fp of §8.2 and the accuracy criterion, the
    lower-triangular cost grid and the tie-break of the R code (appendix A.1), and the
    objective (3.6) of the F-measure SVM by hand.

fmstats' results (``fmaxent``, ``sweep``, ``resample_f``, ``noisy_f`` and the experiment
functions ``fmstats.experiments.thesis_ch9`` / ``fmstats.experiments.thesis_ch8`` / ``chapter8``) are then compared
with these computations, two-sided, at the tolerance stated in each test; the thesis's
qualitative claims are asserted on the independent numbers.  The data sets are drawn with
``fmstats.datasets._datasets`` (data preparation only) and the chapter-8 folds are fmstats' (both
computations then see the same rows).  Each test names the wrong implementation it catches.

The default run covers alpha = 0.1, ..., 0.9 (the range the thesis plots) on draw 2014 and
vignette 03's A2; the slow part runs the 19 alphas of chapter 9 over ten draws, the Titanic
sweep over 19 alphas, all four chapter-8 designs and fresh chapter-8 draws.

Where fmstats and the references differ by design, the test says so: fmstats' default ridge
(shrinkage 1e-4; the thesis has none) is compared at RIDGE_TOL / PLUGIN_TOL and switched off
for the iterate-by-iterate comparisons; fmstats breaks ties in the CV F by the first grid
point in the order C_pos, C_neg where the R code takes C_neg first (both choices are
computed; the thesis's claims use the R code's).  One claim does not reproduce in general:
"even better on data B" holds on draw 2014 only (slow test).
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import patsy
import pytest
import statsmodels.api as sm           # the `test` extra; a missing reference must fail loudly
from sklearn import svm as svm_mod
from threadpoolctl import threadpool_limits

import fmstats as fm

pytestmark = pytest.mark.reference

VIGNETTE_02 = Path(__file__).parent.parent / "vignettes" / "02-fmeasure-maxent.ipynb"
VIGNETTE_03 = Path(__file__).parent.parent / "vignettes" / "03-fmeasure-svm.ipynb"
#: The thesis's plotted range (its figures show betaSeq[2:18] = 0.1, ..., 0.9).
ALPHAS9 = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: Chapter 9's grid (R code: betaSeq = 1:19 / 20).
ALPHAS19 = tuple(round(k / 20, 2) for k in range(1, 20))
#: A gain counts as a gain above this (a noisy F moves by ~1e-3 when one of 1000 rows moves by 1).
GAIN = 1e-4


# ============================================================================ references
# Everything in this section is written from the thesis; none of it calls fmstats.

def f_from_pr(P, R, alpha):
    """Def. 2.2.1: F = (alpha / P + (1 - alpha) / R)^-1 (0 when P or R is 0)."""
    if P == 0 or R == 0:
        return 0.0
    return 1.0 / (alpha / P + (1.0 - alpha) / R)


def noisy_f(q, p, alpha, dependence="correlated"):
    """Def. 6.1.1 with the counts of eq. 6.1 (correlated) or the products (independent)."""
    if dependence == "correlated":
        tp, fp, fn = np.minimum(q, p).sum(), np.maximum(0, p - q).sum(), np.maximum(0, q - p).sum()
    else:
        tp, fp, fn = (q * p).sum(), ((1 - q) * p).sum(), (q * (1 - p)).sum()
    return f_from_pr(tp / (tp + fp), tp / (tp + fn), alpha)


def det_f(y, pred, alpha):
    """F of 0/1 predictions against 0/1 labels (or fractional truth q: TP = sum pred q)."""
    y, pred = np.asarray(y, float), np.asarray(pred, float)
    tp, fp, fn = pred @ y, pred @ (1 - y), (1 - pred) @ y
    return f_from_pr(tp / (tp + fp) if tp + fp > 0 else 0.0, tp / (tp + fn), alpha)


def expit(eta):
    return 1.0 / (1.0 + np.exp(-eta))


def uncertain_logit(X, q, w):
    """Weighted uncertain maximum likelihood (§5.2) the way the R code fits it: the rows twice,
    response 1 with weight w q and response 0 with weight w (1 - q), binomial GLM."""
    n = len(q)
    res = sm.GLM(np.r_[np.ones(n), np.zeros(n)], np.vstack([X, X]),
                 family=sm.families.Binomial(),
                 freq_weights=np.r_[w * q, w * (1 - q)]).fit(tol=1e-12, maxiter=200)
    assert res.converged
    return np.asarray(res.params)


def weighted_logit(X, y, w):
    res = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-12, maxiter=200)
    assert res.converged
    return np.asarray(res.params)


def _g1(x, e):        # (7.2)
    return np.where(x <= -e, 0.0, np.where(x <= 0, (x + e) ** 2 / (2 * e), x + e / 2))


def _g2(x, e):        # (7.3)
    return np.where(x <= 0, 0.0, np.where(x < e, x * x / (2 * e), x - e / 2))


def _g1_prime(x, e):
    return np.clip((x + e) / e, 0.0, 1.0)


def _g2_prime(x, e):
    return np.clip(x / e, 0.0, 1.0)


def smoothed_noisy(q, p, alpha, eps):
    """§7.2: TP = sum [p - g1(p - q)], TN = sum [q0 - g2(p - q)], and the noisy F in the form
    of the proof of Theorem 6.2.1: TP / (beta (TP - TN) + beta sum q0 + (1 - beta) sum q1)."""
    d = p - q
    tp = np.sum(p - _g1(d, eps))
    tn = np.sum((1 - q) - _g2(d, eps))
    return tp, tp / (alpha * (tp - tn) + alpha * np.sum(1 - q) + (1 - alpha) * np.sum(q))


def weights_7_1(q, p, F, TP, alpha, eps):
    """(7.1): p(1-p)/(p-q) * F/TP * [beta F g2'(p-q) - (1 - beta F)(1 - g1'(p-q))]."""
    d = p - q
    bracket = alpha * F * _g2_prime(d, eps) - (1 - alpha * F) * (1 - _g1_prime(d, eps))
    # bracket / d is finite: (1 - beta F) / eps inside (-eps, 0], beta F / eps inside (0, eps)
    ratio = np.where(d == 0, (1 - alpha * F) / eps, bracket / np.where(d == 0, 1.0, d))
    return p * (1 - p) * F / TP * ratio


def weights_6_9(q, p, F, TP, alpha):
    """(6.9) raw: p(1-p)/(p-q) * F/TP * [beta F 1{p >= q} - (1 - beta F) 1{p <= q}]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return p * (1 - p) / (p - q) * F / TP * (alpha * F * (p >= q) - (1 - alpha * F) * (p <= q))


def stop_iteration(target, k=5, rel=0.01, minimum=1e-8):
    """Step 6 of Algorithms 4.1 / 7.1, "no significant improvement of the target in the last
    k steps", read as: stop at the first n >= k where the best target so far improved over the
    last k iterations by at most max(minimum, rel * (best so far - start)); the best iterate
    up to n is the answer (fmstats documents this reading with k = 5, rel = 0.01).

    Returns (stop iteration or None, best iterate, smallest |improvement - threshold| seen,
    i.e. how far every decision was from flipping)."""
    best = np.maximum.accumulate(np.asarray(target, float))
    margin = np.inf
    for n in range(k, len(best)):
        window = best[n] - best[n - k]
        needed = max(minimum, rel * (best[n] - best[0]))
        margin = min(margin, abs(window - needed))
        if window <= needed:
            return n, int(np.argmax(target[: n + 1])), margin
    return None, int(np.argmax(target)), margin


def algorithm_7_1(X, q, alpha, *, eps=0.01, plugin=False, max_iter=100, stop=True):
    """Algorithm 7.1 (weights (7.1), a full weighted uncertain fit per iteration, the
    unweighted fit as iteration 0).  ``plugin=True``: §9.3's plug-in variant -- the weights
    take the deterministic F and TP of the predicted classes (p >= 1/2) against q; its target
    is that F.  Returns dict(noisy=noisy F per iterate, target=..., coefs, stop, best, margin).
    """
    w = np.ones(len(q))
    noisy, target, coefs = [], [], []
    out = dict(stop=None, best=None, margin=np.inf)
    for _ in range(max_iter):
        b = uncertain_logit(X, q, w)
        p = expit(X @ b)
        pred = (p >= 0.5).astype(float)
        coefs.append(b)
        noisy.append(noisy_f(q, p, alpha))
        if plugin:
            TP = pred @ q
            F = det_f(q, pred, alpha)
        else:
            TP, F = smoothed_noisy(q, p, alpha, eps)
        target.append(F if plugin else noisy[-1])
        if stop:
            n, best, margin = stop_iteration(target)
            if n is not None:
                out.update(stop=n, best=best, margin=margin)
                break
        w = weights_7_1(q, p, F, TP, alpha, eps)
    if out["best"] is None:
        out["best"] = int(np.argmax(target))
    out.update(noisy=np.array(noisy), target=np.array(target), coefs=coefs)
    return out


def expected_f(y, p, alpha):
    """Def. 4.2.1: plug-in F from the expected confusion matrix (TP = sum_{y=1} p, ...)."""
    tp, fp, fn = p[y == 1].sum(), p[y == 0].sum(), (1 - p[y == 1]).sum()
    return f_from_pr(tp / (tp + fp), tp / (tp + fn), alpha)


def algorithm_4_1(X, y, alpha, iterations, bounds=None):
    """Algorithm 4.1 with weights (4.2): (1 - beta F)/(beta F) p(y|x) for y = 1, p(y|x) for y = 0.
    ``bounds``: clip the weights scaled to mean 1 (the scale of the weights is otherwise
    irrelevant to a weighted likelihood; fmstats documents this scaling)."""
    w = np.ones(len(y))
    path = []
    for _ in range(iterations):
        b = weighted_logit(X, y, w)
        p = expit(X @ b)
        F = expected_f(y, p, alpha)
        path.append(F)
        w = np.where(y == 1, (1 - alpha * F) / (alpha * F) * p, 1 - p)
        if bounds is not None:
            w = np.clip(w / w.mean(), *bounds)
    return np.array(path), b


def r_glm_first_step(X, q, w):
    """R's glm(maxit = 1) on the doubled rows: one IRLS step from mustart = (w y + 0.5)/(w + 1)
    (binomial()$initialize), the weighted least squares solved by statsmodels' WLS."""
    n = len(q)
    Xd, y = np.vstack([X, X]), np.r_[np.ones(n), np.zeros(n)]
    pw = np.r_[w * q, w * (1 - q)]
    mu = (pw * y + 0.5) / (pw + 1)
    var = mu * (1 - mu)
    z = np.log(mu / (1 - mu)) + (y - mu) / var
    return np.asarray(sm.WLS(z, Xd, weights=pw * var).fit().params)


def thesis_r_loop(X, q, alpha, *, maxit, weights="raw", eps=0.01, its=100):
    """The appendix's R loop (A.2): glm afresh each outer iteration (maxit 1: one cold IRLS step;
    maxit 25: a full fit), weights clipped to [1e-6, 10] -- ``"raw"`` (6.9) as in the R code or
    ``"smoothed"`` (7.1) -- stop when the noisy F changes by < 1e-8, keep the last iterate.
    Returns (noisy F of the last iterate, the noisy F path)."""
    w = np.ones(len(q))
    path = []
    for k in range(its):
        b = r_glm_first_step(X, q, w) if maxit == 1 else uncertain_logit(X, q, w)
        p = expit(X @ b)
        tp = np.minimum(q, p).sum()
        path.append(tp / (alpha * p.sum() + (1 - alpha) * q.sum()))    # the R code's formula
        if k > 0 and abs(path[-1] - path[-2]) < 1e-8:
            break
        if weights == "raw":
            raw = weights_6_9(q, p, path[-1], tp, alpha)
            w = np.clip(np.nan_to_num(raw, nan=10.0, posinf=10.0), 1e-6, 10)
        else:
            TP, F = smoothed_noisy(q, p, alpha, eps)
            w = np.clip(weights_7_1(q, p, F, TP, alpha, eps), 1e-6, 10)
    return path[-1], np.array(path)


def resampled_f(q, preds, alpha, B, seed):
    """§9.2: F of fixed predictions on B label vectors Y ~ Bernoulli(q), one row of F per
    prediction vector in ``preds`` (the same draws for all: common random numbers)."""
    Y = (np.random.default_rng(seed).random((B, len(q))) < q).astype(float)
    out = []
    for pred in preds:
        tp = Y @ pred
        out.append(tp / (alpha * pred.sum() + (1 - alpha) * Y.sum(axis=1)))
    return np.array(out)


def design(frame):
    return np.column_stack([np.ones(len(frame)), frame["x1"], frame["x2"]])


def thesis_noisy(name, seed):
    d = fm.datasets.make_thesis_noisy_data(name, random_state=seed)
    return d[d.split == "train"], d[d.split == "test"]


def reference_sweep(tr, te, alphas, X=None, Xt=None, B=2000, seed=0):
    """Chapter 9 by the references: per alpha the gains of Algorithm 7.1 (noisy F, train and
    test) and of its plug-in variant (mean F over B label draws from the training q) over the
    unweighted uncertain fit, with the returned iteration."""
    X = design(tr) if X is None else X
    Xt = design(te) if Xt is None else Xt
    q, qt = tr["q"].to_numpy(float), te["q"].to_numpy(float)
    rows = []
    with threadpool_limits(1, "blas"):
        b0 = uncertain_logit(X, q, np.ones(len(q)))
        for a in alphas:
            r = algorithm_7_1(X, q, a)
            b = r["coefs"][r["best"]]
            pl = algorithm_7_1(X, q, a, plugin=True)
            preds = [(expit(X @ b0) >= 0.5).astype(float),
                     (expit(X @ pl["coefs"][pl["best"]]) >= 0.5).astype(float)]
            rs = resampled_f(q, preds, a, B, seed)
            rows.append(dict(
                alpha=a, best=r["best"], margin=r["margin"],
                train_gain=r["noisy"][r["best"]] - r["noisy"][0],
                test_gain=noisy_f(qt, expit(Xt @ b), a) - noisy_f(qt, expit(Xt @ b0), a),
                resample_gain=float(np.mean(rs[1] - rs[0])),
                resample_gain_sd=float(np.std(rs[1] - rs[0], ddof=1))))
    return pd.DataFrame(rows).set_index("alpha")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ============================================================================ chapter 9
# ------------------------------------------------------------------ the measures themselves
def test_noisy_f_measure_is_eq_6_1():
    """fmstats' noisy F (measures.noisy_f and a fitted model's noisy_f, train and test rows)
    equals eq. 6.1 / Def. 6.1.1 by hand, both dependences, to 1e-12 (sums of 1000 terms).
    Catches: the correlated counts computed with products (or the reverse), FP and FN
    swapped, alpha applied to recall."""
    tr, te = thesis_noisy("B", 2014)
    fit = _quiet(fm.umaxent, "q ~ x1 + x2", tr)
    rng = np.random.default_rng(4)
    q, p = rng.random(500), rng.random(500)
    for a in (0.2, 0.5, 0.9):
        for dep in ("correlated", "independent"):
            assert fm.measures.noisy_f(q, p, alpha=a, dependence=dep) == pytest.approx(
                noisy_f(q, p, a, dep), rel=1e-12)
            for part in (tr, te):
                p_fit = fit.predict(part, type="response").to_numpy()
                assert fit.noisy_f(None if part is tr else part, alpha=a, dependence=dep) \
                    == pytest.approx(noisy_f(part["q"].to_numpy(), p_fit, a, dep), rel=1e-12)
    # the two dependences differ (so the comparison above can tell them apart)
    assert abs(noisy_f(q, p, 0.5) - noisy_f(q, p, 0.5, "independent")) > 0.05


# ------------------------------------------------------------------ the algorithms, per iterate
@pytest.mark.parametrize("name, alpha", [("A", 0.1), ("B", 0.4), ("B", 0.9)])
def test_algorithm_7_1_iterates_equal_the_reference(name, alpha):
    """fmaxent(method="noisy") with the thesis's setting (no ridge: shrinkage=0; weights (7.1)
    with epsilon 0.01, no clipping) against Algorithm 7.1 written here: the noisy F of every
    outer iterate agrees to 1e-8 (the weighted fits converge to 1e-12 in deviance; measured
    agreement 1e-10), the returned coefficients to 1e-6 and the returned iteration exactly
    (the stop rule's decisions are asserted to be at least 1e-7 from flipping).
    Catches: alpha and 1 - alpha swapped in (6.9)/(7.1), the smoothing of §7.2 dropped or
    its g1'/g2' exchanged, the raw instead of the smoothed counts in the weights, an
    off-by-one in the patience of the stop rule, the last instead of the best iterate."""
    tr, _ = thesis_noisy(name, 2014)
    X, q = design(tr), tr["q"].to_numpy(float)
    with threadpool_limits(1, "blas"):
        ref = algorithm_7_1(X, q, alpha)
    fit = _quiet(fm.fmaxent, "q ~ x1 + x2", tr, alpha=alpha, shrinkage=0, weight_bounds=None)
    hist = fit.history["noisy_f"].to_numpy()
    assert len(hist) == len(ref["noisy"])          # both stop at the same iteration
    np.testing.assert_allclose(hist, ref["noisy"], rtol=0, atol=1e-8)
    assert ref["margin"] > 1e-7
    assert fit.best_iteration == ref["best"]
    np.testing.assert_allclose(fit.params.to_numpy(), ref["coefs"][ref["best"]], rtol=1e-6,
                               atol=1e-8)
    assert fit.noisy_f(alpha=alpha) == pytest.approx(ref["noisy"][ref["best"]], abs=1e-8)


@pytest.mark.parametrize("name, alpha", [("A", 0.3), ("A", 0.8), ("B", 0.6)])
def test_plugin_iterates_equal_the_reference(name, alpha):
    """fmaxent(method="plugin"), thesis setting (shrinkage=0), against the plug-in variant of
    §9.3 written here (weights (7.1) with the F and TP of the predicted classes against q):
    the plug-in target of every iterate agrees to 1e-10 (it is a ratio of sums of q over
    predicted rows: it moves only if a prediction flips), the returned iterate exactly (the
    stop decisions are asserted to be more than 1e-9 from flipping).
    Catches: the noisy instead of the plug-in F in the weights, predictions at p > 1/2
    instead of p >= 1/2 (a row at exactly 1/2 is not expected; the target would then move)."""
    tr, _ = thesis_noisy(name, 2014)
    X, q = design(tr), tr["q"].to_numpy(float)
    with threadpool_limits(1, "blas"):
        ref = algorithm_7_1(X, q, alpha, plugin=True)
    fit = _quiet(fm.fmaxent, "q ~ x1 + x2", tr, alpha=alpha, method="plugin", shrinkage=0)
    hist = fit.history["target"].to_numpy()
    assert len(hist) == len(ref["target"])
    np.testing.assert_allclose(hist, ref["target"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(fit.history["noisy_f"], ref["noisy"], rtol=0, atol=1e-8)
    # the targets agree to 1e-10, so stop decisions more than 1e-9 from flipping are the same
    assert ref["margin"] > 1e-9 and fit.best_iteration == ref["best"]


@pytest.mark.parametrize("bounds", [None, (0.01, 10.0)])
@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_algorithm_4_1_iterates_equal_the_reference(alpha, bounds):
    """Certain labels (y_ml of data B, eq. 9.1): fmaxent(method="expected", shrinkage=0) for 12
    outer iterations against Algorithm 4.1 written here (weights (4.2), expected F of
    Def. 4.2.1, statsmodels' weighted GLM), unclipped and with the clipping [0.01, 10] of the
    R code (applied to the weights scaled to mean 1): the expected F of every iterate agrees
    to 1e-8 (measured 3e-10) and the final coefficients to 1e-6.
    Catches: alpha and 1 - alpha swapped in (4.2), p(y|x) = p instead of 1 - p for the
    negatives, the F of hard predictions instead of the expected F in the weights."""
    tr, _ = thesis_noisy("B", 2014)
    X, y = design(tr), tr["y_ml"].to_numpy(float)
    with threadpool_limits(1, "blas"):
        path, coef = algorithm_4_1(X, y, alpha, 12, bounds)
    fit = _quiet(fm.fmaxent, "y_ml ~ x1 + x2", tr, alpha=alpha, shrinkage=0, weight_bounds=bounds,
                 max_outer=11, patience=12)
    np.testing.assert_allclose(fit.history["target"], path, rtol=0, atol=1e-8)
    # the expected F rises monotonically here, so the last iterate is the one returned
    assert fit.best_iteration == 11
    np.testing.assert_allclose(fit.params.to_numpy(), coef, rtol=1e-6)


# ------------------------------------------------------------------ Figs. 9.2-9.7 on draw 2014
@pytest.fixture(scope="module")
def sweep_2014():
    """References and fmstats' chapter9_gains (its defaults: ridge 1e-4, 200 label draws) on
    data A and B, draw 2014, alpha = 0.1, ..., 0.9."""
    from fmstats.experiments.thesis_ch9 import chapter9_gains

    ref = pd.concat({name: reference_sweep(*thesis_noisy(name, 2014), ALPHAS9)
                     for name in ("A", "B")}, names=["data"])
    fmg = _quiet(chapter9_gains, seeds=(2014,), alphas=ALPHAS9)
    return ref, fmg.set_index(["data", "alpha"])


#: fmstats' default ridge (shrinkage 1e-4 per observation on standardised coefficients) is
#: the one difference between chapter9_gains / sweep and the reference (the tests above:
#: without it the iterates agree to 1e-8).  It adds 1e-4 x (sum of squared standardised
#: coefficients, 1-2 here) / 2 to a per-row log-likelihood of about 0.5: a relative change of
#: ~2e-4, so a noisy F moves by well under 1e-3 (measured over the 380 cases of the ten-draw
#: test: at most 3.3e-5 on training and 2.4e-4 on test rows).
RIDGE_TOL = 1e-3
#: The plug-in target is the F of hard predictions, a step function of the coefficients:
#: the ridge's ~1e-3 relative change of the iterates flips the predictions of rows at
#: p ~ 1/2 and can change which of two iterates with nearly equal targets is returned.  Each
#: flipped row of 1000 moves a resampled F by up to ~1e-3; 0.01 allows ten (measured over
#: the 380 cases of the ten-draw test: at most 0.0062 beyond the Monte-Carlo error).
PLUGIN_TOL = 0.01


def _check_agreement(ref, fmg, resample_b=200):
    np.testing.assert_allclose(fmg["train_gain"], ref["train_gain"], rtol=0, atol=RIDGE_TOL)
    np.testing.assert_allclose(fmg["test_gain"], ref["test_gain"], rtol=0, atol=RIDGE_TOL)
    # the ridge may move the stop by one iteration
    assert (fmg["best_iteration"] - ref["best"]).abs().max() <= 1
    # resampled gains: Monte-Carlo error of both (4 sd; common random numbers within each)
    # plus PLUGIN_TOL
    se = ref["resample_gain_sd"] * np.sqrt(1 / resample_b + 1 / 2000)
    assert ((fmg["resample_gain"] - ref["resample_gain"]).abs() <= 4 * se + PLUGIN_TOL).all()


def test_ch9_gains_agree_with_the_reference(sweep_2014):
    """fmstats.experiments.thesis_ch9.chapter9_gains (the vignette's numbers) against the references, per
    data set and alpha: train and test noisy-F gains within RIDGE_TOL, returned iteration
    within one, plug-in resampled gains within their Monte-Carlo error plus PLUGIN_TOL.
    Catches: the gains taken against the wrong baseline (certain maxent), test and train
    rows exchanged, the resampled F computed on predictions at p > q, or with labels drawn
    with probability 1 - q."""
    ref, fmg = sweep_2014
    _check_agreement(ref, fmg.loc[ref.index])


def test_ch9_train_noisy_f_higher_at_every_alpha(sweep_2014):
    """Figs. 9.2 / 9.5: the noisy-F maximiser has "a significantly higher noisy F-measure on the
    training set" than the unweighted uncertain maxent -- on the reference, at every alpha
    (by more than GAIN), most at the extremes of alpha; and "there is a point around
    beta = 0.6 where the performance approximately meets that of its baseline": the smallest
    gain lies at alpha 0.6 +- 0.1 (the thesis gives one decimal) and is below 0.01."""
    ref, _ = sweep_2014
    for name in ("A", "B"):
        g = ref.loc[name, "train_gain"]
        assert (g > GAIN).all(), name
        assert 0.5 <= g.idxmin() <= 0.7 and g.min() < 0.01, name
        assert min(g[0.1], g[0.9]) > 3 * g.min(), name


def test_ch9_test_noisy_f_higher_for_most_alphas(sweep_2014):
    """Figs. 9.3 / 9.6: "improved performance on the test set over the baseline", meeting it
    "around beta = 0.6": on the reference the maximiser's test noisy F is higher at most
    alphas (more than half) and at both ends (0.1, 0.9), and at alpha = 0.6 it is within
    0.01 of the baseline (one of the 100 test rows moves a noisy F by up to ~0.01)."""
    ref, _ = sweep_2014
    for name in ("A", "B"):
        g = ref.loc[name, "test_gain"]
        assert (g > GAIN).mean() > 0.5, name
        assert g[0.1] > GAIN and g[0.9] > GAIN, name
        assert abs(g[0.6]) < 0.01, name


def test_ch9_plugin_resampled_f_higher_for_most_alphas(sweep_2014):
    """Figs. 9.4 / 9.7: the plug-in maximiser's mean F over label draws from q beats the
    unweighted uncertain maxent "for most values of beta": on the reference (2000 draws) at
    more than half of the alphas by more than 4 Monte-Carlo sd, and nowhere below it by more
    than 4 sd."""
    ref, _ = sweep_2014
    se = ref["resample_gain_sd"] / np.sqrt(2000)
    for name in ("A", "B"):
        g, s = ref.loc[name, "resample_gain"], se.loc[name]
        assert (g > 4 * s).mean() > 0.5, name
        assert (g >= -4 * s).all(), name


def test_ch9_iterations_about_twenty(sweep_2014):
    """Fig. 9.8 (data B, beta = 0.4): "the maximum is reached quite quickly, typically for our
    examples in about 20 iterations".  The thesis's own loop (appendix A.2: raw weights (6.9)
    clipped to [1e-6, 10], a full glm fit per iteration, stop when the noisy F changes by
    < 1e-8), re-implemented here, first comes within 1 % of its final gain at iteration 20
    +- 10 ("about 20", one significant figure), and runs past it; fmstats' returned
    iterations (default stop rule) lie in the same range, and so do the reference's.
    Catches: a loop that stops at the first non-improving step (2-5 iterations)."""
    ref, fmg = sweep_2014
    tr, _ = thesis_noisy("B", 2014)
    with threadpool_limits(1, "blas"):
        _, path = thesis_r_loop(design(tr), tr["q"].to_numpy(float), 0.4, maxit=25)
    gain = path[-1] - path[0]
    reached = int(np.argmax(path >= path[-1] - 0.01 * gain))
    assert 10 <= reached <= 30 and len(path) > reached + 5
    for it in (ref["best"], fmg["best_iteration"]):
        assert 10 <= it.median() <= 30 and it.min() >= 5 and it.max() <= 40


def test_ch9_resample_f_is_the_mean_f_over_label_draws():
    """fmstats' resample_f (the numbers behind Figs. 9.4/9.7) against numpy Monte Carlo: the
    mean over 2000 draws within 4 combined standard errors, the sd within 10 % (for a
    normal sample of 2000 the sd's own relative sd is 1.6 %).
    Catches: labels drawn as Y = 1 with probability 1 - q, the F of the probabilities
    instead of the predicted classes, the training rows used for newdata."""
    tr, te = thesis_noisy("A", 2014)
    fit = _quiet(fm.fmaxent, "q ~ x1 + x2", tr, alpha=0.3, method="plugin")
    for part, frame in (("train", tr), ("test", te)):
        pred = (fit.predict(frame, type="response").to_numpy() >= 0.5).astype(float)
        ours = resampled_f(frame["q"].to_numpy(float), [pred], 0.3, 2000, 11)[0]
        r = fit.resample_f(None if part == "train" else frame, B=2000, random_state=5, alpha=0.3)
        se = np.sqrt(r.std ** 2 / r.B + ours.std(ddof=1) ** 2 / len(ours))
        assert abs(r.mean - ours.mean()) <= 4 * se, part
        assert r.std == pytest.approx(ours.std(ddof=1), rel=0.10), part


# ------------------------------------------------------------------ Figs. 9.10-9.11: Titanic
TITANIC_RHS = "C(pclass) * sex + age + sibsp"      # §9.1's features (patsy builds the design)


def _titanic_reference(alphas):
    from fmstats.experiments.thesis_ch9 import titanic_split

    tr, te = titanic_split(9)
    X = patsy.dmatrix(TITANIC_RHS, tr, return_type="dataframe")
    Xt = patsy.build_design_matrices([X.design_info], te, return_type="dataframe")[0]
    ref = reference_sweep(tr, te, alphas, X=X.to_numpy(), Xt=Xt.to_numpy(), B=200)
    table = _quiet(fm.sweep, "q ~ " + TITANIC_RHS, tr, te, alphas=list(alphas))
    wide = table.pivot_table(index=["data", "alpha"], columns="model", values="noisy_f")
    gains = (wide["fmaxent"] - wide["baseline"]).unstack("data")
    return ref, gains


def test_ch9_titanic_gains():
    """Figs. 9.10 / 9.11 on vignette 02's Titanic split (label noise and test rows of seed 9;
    800 training, 246 test rows): fmstats' sweep (default ridge) agrees with Algorithm 7.1
    written here on the patsy design within RIDGE_TOL (train and test), and on the reference
    the conclusions are "basically identical to those for data A and B": training noisy F
    higher at every alpha, test noisy F higher at most alphas, within 0.01 at 0.6."""
    ref, gains = _titanic_reference(ALPHAS9)
    np.testing.assert_allclose(gains["train"].to_numpy(), ref["train_gain"], atol=RIDGE_TOL)
    np.testing.assert_allclose(gains["test"].to_numpy(), ref["test_gain"], atol=RIDGE_TOL)
    assert (ref["train_gain"] > GAIN).all()
    assert (ref["test_gain"] > GAIN).mean() > 0.5 and abs(ref.loc[0.6, "test_gain"]) < 0.01


# ------------------------------------------------------------------ Fig. 9.9: maxit = 1 vs 25
FIG99_ALPHAS = (0.1, 0.3, 0.5, 0.7, 0.9)


@pytest.fixture(scope="module")
def fig99():
    from fmstats.experiments.thesis_ch9 import inner_comparison

    tr, _ = thesis_noisy("B", 2014)
    X, q = design(tr), tr["q"].to_numpy(float)
    rows = []
    with threadpool_limits(1, "blas"):
        for a in FIG99_ALPHAS:
            r = algorithm_7_1(X, q, a)
            rows.append(dict(
                alpha=a, alg71=r["noisy"][r["best"]],
                raw1=thesis_r_loop(X, q, a, maxit=1)[0], raw25=thesis_r_loop(X, q, a, maxit=25)[0],
                smooth1=thesis_r_loop(X, q, a, maxit=1, weights="smoothed")[0],
                smooth25=thesis_r_loop(X, q, a, maxit=25, weights="smoothed")[0]))
    ref = pd.DataFrame(rows).set_index("alpha")
    table = _quiet(inner_comparison, "B", 2014, alphas=FIG99_ALPHAS).set_index("alpha")
    return ref, table


def test_fig_9_9_full_fits_beat_one_cold_step(fig99):
    """Fig. 9.9: with one IRLS step per outer iteration (R's glm(maxit = 1), cold) the loop
    "does well, but not as well as" with maxit = 25: on the appendix's R loop re-implemented
    here (raw weights (6.9), clipped) the last iterate's noisy F with maxit = 25 is above the
    one with maxit = 1 at every alpha, by more than 0.005 (visible at the figure's scale;
    the computation is deterministic); the same with the smoothed weights (7.1)."""
    ref, _ = fig99
    assert (ref["raw25"] - ref["raw1"] > 0.005).all()
    assert (ref["smooth25"] - ref["smooth1"] > 0.005).all()


def test_fig_9_9_fmstats_inner_loops_agree_with_the_reference(fig99):
    """fmstats.experiments.thesis_ch9.inner_comparison against the references.  ``cold_maxit1`` and
    ``cold_maxit25`` (thesis_inner_loop: the R loop with the smoothed weights (7.1), clipped to
    [1e-6, 10]) equal the R loop written here to 1e-6 (both are deterministic; the full fits
    converge to 1e-12 in deviance here and ~1e-8 in fmstats).  ``warm_full`` and
    ``warm_step`` (fmaxent, inner = "full" / "step", default ridge, warm starts) reach
    Algorithm 7.1's returned noisy F within RIDGE_TOL: one warm IRLS step per outer iteration
    has the full fit's fixed point.
    Catches: thesis_inner_loop warm-starting its one step (it would then equal warm_step),
    inner="step" taking more than one step, or restarting from the unweighted fit."""
    ref, table = fig99
    np.testing.assert_allclose(table["cold_maxit1"], ref["smooth1"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(table["cold_maxit25"], ref["smooth25"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(table["warm_full"], ref["alg71"], rtol=0, atol=RIDGE_TOL)
    np.testing.assert_allclose(table["warm_step"], ref["alg71"], rtol=0, atol=RIDGE_TOL)
    # the cold one step is far below (so the comparison above could tell them apart)
    assert (ref["alg71"] - ref["smooth1"] > 0.005).all()


def test_thesis_inner_loop_matches_a_statsmodels_glm_step():
    """One outer iteration of fmstats.experiments.thesis_ch9.thesis_inner_loop(maxit = 1) is R's first glm
    IRLS step from mustart on the doubled rows (statsmodels WLS by hand), to 1e-10.
    Catches: the wrong mustart (statsmodels' (y + 1/2)/2), undoubled rows."""
    from fmstats.experiments.thesis_ch9 import thesis_inner_loop

    d = fm.datasets.make_thesis_noisy_data("B", random_state=5)
    tr = d[d.split == "train"]
    X, q = design(tr), tr["q"].to_numpy(float)
    last, best, its = thesis_inner_loop(X, q, 0.4, maxit=1, its=1)
    p = expit(X @ r_glm_first_step(X, q, np.ones(len(q))))
    expect = np.minimum(q, p).sum() / (0.4 * p.sum() + 0.6 * q.sum())
    assert its == 1 and last == pytest.approx(expect, rel=1e-10) and best == last


# ------------------------------------------------------------------ ten draws (slow)
@pytest.mark.slow
def test_ch9_claims_over_ten_draws():
    """The 19 alphas of chapter 9 on draws 2014-2023 of A and B: fmstats' chapter9_gains agrees
    with the references everywhere (as in the default test), and on the references:
    training noisy F higher at every alpha on every draw; test noisy F higher at most alphas
    on every draw and on average at more than 80 % of them; the plug-in resampled F higher at
    most alphas; the returned iteration about 20 (median within 20 +- 10); the point where the
    maximiser meets the baseline around 0.6 on average.  "Our algorithm's
    test set performance compared to the baseline is even better on data B" holds on draw
    2014 but not on average over the ten draws: asserted as found (B - A < 0 on average)."""
    from fmstats.experiments.thesis_ch9 import chapter9_gains

    seeds = tuple(range(2014, 2024))
    ref = pd.concat({(name, s): reference_sweep(*thesis_noisy(name, s), ALPHAS19)
                     for name in ("A", "B") for s in seeds}, names=["data", "seed"])
    fmg = _quiet(chapter9_gains, seeds=seeds).set_index(["data", "seed", "alpha"])
    _check_agreement(ref, fmg.loc[ref.index])
    share = lambda col: (ref[col] > GAIN).groupby(["data", "seed"]).mean()  # noqa: E731
    assert (share("train_gain") == 1).all()
    assert (share("test_gain") > 0.5).all()
    assert (share("test_gain").groupby("data").mean() > 0.8).all()
    assert (share("resample_gain") > 0.5).all()
    assert 10 <= ref["best"].median() <= 30 and 10 <= fmg["best_iteration"].median() <= 30
    # "around beta = 0.6" on average over the draws: the smallest mean training gain at
    # 0.6 +- 0.1, the mean test gain at 0.6 within 0.01 of the baseline
    mean_gain = ref.groupby(["data", "alpha"])[["train_gain", "test_gain"]].mean()
    for name in ("A", "B"):
        assert 0.5 <= mean_gain.loc[name, "train_gain"].idxmin() <= 0.7, name
        assert abs(mean_gain.loc[(name, 0.6), "test_gain"]) < 0.01, name
    m = ref["test_gain"].groupby(["data", "seed"]).mean().unstack("data")
    assert m.loc[2014, "B"] > m.loc[2014, "A"]
    assert (m["B"] - m["A"]).mean() < 0


@pytest.mark.slow
def test_ch9_titanic_gains_19_alphas():
    """As test_ch9_titanic_gains on the 19 alphas of chapter 9."""
    ref, gains = _titanic_reference(ALPHAS19)
    np.testing.assert_allclose(gains["train"].to_numpy(), ref["train_gain"], atol=RIDGE_TOL)
    np.testing.assert_allclose(gains["test"].to_numpy(), ref["test_gain"], atol=RIDGE_TOL)
    assert (ref["train_gain"] > GAIN).all()
    assert (ref["test_gain"] > GAIN).mean() > 0.5


@pytest.mark.slow
def test_vignette_02_claims():
    """The chapter-9 numbers vignette 02 states in prose (draw 2014, 19 alphas), recomputed
    here from the references (not from fmstats)."""
    ref = pd.concat({name: reference_sweep(*thesis_noisy(name, 2014), ALPHAS19)
                     for name in ("A", "B")}, names=["data"])
    n = {k: int((ref.loc[k, "train_gain"] > GAIN).sum()) for k in ("A", "B")}
    t = {k: int((ref.loc[k, "test_gain"] > GAIN).sum()) for k in ("A", "B")}
    mean_train = ref["train_gain"].groupby("data").mean()
    mean_test = ref["test_gain"].groupby("data").mean()
    lost = ref[ref["test_gain"] <= GAIN].index.get_level_values("alpha")
    assert n["A"] == n["B"] == 19
    _claims(VIGNETTE_02,
            f"(19 of 19 on A and B; mean gain {mean_train['A']:.3f} on A, "
            f"{mean_train['B']:.3f} on B)",
            f"higher at {t['A']} of 19 α on A and {t['B']} of 19 on B",
            f"between {lost.min():.2f} and {lost.max():.2f}",
            f"(mean test gain {mean_test['B']:.3f} on B against {mean_test['A']:.3f} on A)")


# ============================================================================ chapter 8
def f_counts(tp, fp, fn, alpha):
    return f_from_pr(tp / (tp + fp) if tp + fp > 0 else 0.0, tp / (tp + fn), alpha)


def thesis_cost_values(n_values):
    """The R code's cost values 2^(-4 + k/2), k = 1..ncost."""
    return [2.0 ** (-4 + k / 2) for k in range(1, n_values + 1)]


class _OneClass:
    """The weighted SVM's solution w = 0, b = +-1 (every row one class)."""

    def __init__(self, n, b):
        self.coef_, self.intercept_ = np.zeros((1, n)), np.array([float(b)])

    def decision_function(self, X):
        return np.full(len(X), self.intercept_[0])


def one_class_solution(X, y, C_pos, C_neg):
    """Whether w = 0, b = -1 (or b = +1) solves (3.1)-(3.2), by the KKT conditions (2.3)-(2.9),
    sufficient for this convex problem: at b = -1 every positive has xi = 2, so alpha = C_pos,
    and every negative lies on its margin, 0 <= alpha <= C_neg; w = sum alpha y x = 0 and
    sum alpha y = 0 then ask for a feasible point of a small linear program (scipy's HiGHS).
    b is unique when C_neg m- != C_pos m+ (the objective along b at w = 0 has slope
    C_neg m- - C_pos m+).  Returns -1, +1 or None."""
    from scipy.optimize import linprog

    for b, own, other, c_own, c_other in ((-1.0, y == 1, y == 0, C_pos, C_neg),
                                          (1.0, y == 0, y == 1, C_neg, C_pos)):
        total = c_own * own.sum()
        if not total < c_other * other.sum():
            continue
        # sum_{other} a_j x_j = c_own sum_{own} x_i,  sum a_j = c_own m_own,  0 <= a_j <= c_other
        A = np.vstack([X[other].T, np.ones(other.sum())])
        rhs = np.r_[c_own * X[own].sum(axis=0), total]
        res = linprog(np.zeros(other.sum()), A_eq=A, b_eq=rhs, bounds=(0, c_other),
                      method="highs")
        if res.status == 0:
            return b
    return None


def sk_wsvm(X, y, C_pos, C_neg):
    """(3.1)-(3.2) by libsvm: C_i = C_pos for positives, C_neg for negatives, tol 1e-8 (at 1e-5
    a held-out decision value of -7e-6 came out +5e-6).  libsvm crawls (minutes) where the
    solution is w = 0, the one-class classifier; those costs are recognised exactly first
    (one_class_solution)."""
    b = one_class_solution(X, y, C_pos, C_neg)
    if b is not None:
        return _OneClass(X.shape[1], b)
    return svm_mod.SVC(kernel="linear", C=1.0, class_weight={1: C_pos, 0: C_neg},
                       tol=1e-8).fit(X, y)


def counts(y, pred):
    y, pred = np.asarray(y) == 1, np.asarray(pred, bool)
    return np.array([np.sum(pred & y), np.sum(pred & ~y), np.sum(~pred & y), np.sum(~pred & ~y)])


def reference_wsvm_cv(X, y, folds, n_values):
    """The R code's grid search (appendix A.1): every (C_pos >= C_neg) pair, the confusion
    counts of each held-out fold.  Returns {(i, j): (folds, 4) counts} over the indices of
    thesis_cost_values."""
    vals = thesis_cost_values(n_values)
    out = {}
    for i, cp in enumerate(vals):
        for j, cn in enumerate(vals[: i + 1]):
            c = []
            for train, test in folds:
                m = sk_wsvm(X[train], y[train], cp, cn)
                c.append(counts(y[test], m.decision_function(X[test]) > 0))
            out[(i, j)] = np.array(c)
    return out


def r_choice(scores):
    """which(cvscore == max(cvscore), arr.ind = TRUE)[1, ] of the R code: the first maximum in
    column-major order of the (C_pos index, C_neg index) matrix, i.e. the smallest C_neg,
    then the smallest C_pos."""
    best = max(scores.values())
    return min((k for k, v in scores.items() if v >= best - 1e-12), key=lambda k: (k[1], k[0]))


def fmstats_rule_choice(scores):
    """fmstats' documented tie-break: the first maximum in the order C_pos, then C_neg."""
    best = max(scores.values())
    return min((k for k, v in scores.items() if v >= best - 1e-12))


def fsvm_objective(X, ypm, w, b, C, alpha, a):
    """(3.6) with s(xi; a) = 2 (1/(1 + e^{-a xi}) - 1/2) at xi = max(0, 1 - y (x'w + b))."""
    xi = np.maximum(0.0, 1.0 - ypm * (X @ w + b))
    s = 2 * (1 / (1 + np.exp(-a * xi)) - 0.5)
    pos = ypm > 0
    return 0.5 * w @ w + C * (alpha * s[~pos].sum() + (1 - alpha) * s[pos].sum()) / (
        pos.sum() - s[pos].sum())


def chapter8_reference(train, test, folds, alphas, n_values):
    """The wSVM arm of chapter 8 by scikit-learn: per alpha the F-tuned weighted SVM (pooled
    CV F, the R code's tie-break) and the accuracy-tuned one, with their train/test F."""
    X, y = train[["x1", "x2"]].to_numpy(), train["y"].to_numpy()
    Xt, yt = test[["x1", "x2"]].to_numpy(), test["y"].to_numpy()
    vals = thesis_cost_values(n_values)
    with threadpool_limits(1, "blas"):
        per_fold = reference_wsvm_cv(X, y, folds, n_values)
        # §8.2: TP, FP, FN averaged over the folds (the sums: the same F); accuracy: the R
        # code's mean of the fold accuracies (equal folds: the pooled accuracy)
        grid = {k: c.sum(axis=0) for k, c in per_fold.items()}
        acc = {k: np.mean([(f[0] + f[3]) / f.sum() for f in c]) for k, c in per_fold.items()}
        ka = r_choice(acc)
        rows = []
        for a in alphas:
            scores = {k: f_counts(*c[:3], a) for k, c in grid.items()}
            for model, k in (("wsvm, CV F", r_choice(scores)),
                             ("wsvm, CV F, fmstats tie-break", fmstats_rule_choice(scores)),
                             ("wsvm, CV accuracy", ka)):
                m = sk_wsvm(X, y, vals[k[0]], vals[k[1]])
                for part, XX, yy in (("train", X, y), ("test", Xt, yt)):
                    pred = m.decision_function(XX) > 0
                    rows.append(dict(alpha=a, model=model, data=part, C_pos=vals[k[0]],
                                     C_neg=vals[k[1]], cv_f=max(scores.values()),
                                     f=f_counts(*counts(yy, pred)[:3], a)))
    return per_fold, pd.DataFrame(rows)


def _folds(train, n_values, seed=1):
    """The folds chapter8 draws (2 stratified folds from ``random_state``), as data."""
    from fmstats.svm import tune_wsvm

    res = _quiet(tune_wsvm, "y ~ x1 + x2", train, criterion="accuracy", n_values=n_values,
                 cv=2, random_state=seed, n_jobs=1, progress=False)
    return res, res.folds


def _check_folds(train, folds):
    y = train["y"].to_numpy()
    every = np.sort(np.concatenate([te for _, te in folds]))
    assert np.array_equal(every, np.arange(len(y)))                      # a partition
    for tr_idx, te_idx in folds:
        assert np.intersect1d(tr_idx, te_idx).size == 0
        assert abs(y[te_idx].sum() - y.sum() / 2) <= 1                   # stratified


@pytest.fixture(scope="module")
def vignette_a2():
    """vignette 03's A2 (draw 9, 12 cost values, fold seed 1) at three alphas: fmstats'
    chapter8 and the scikit-learn reference on the same folds."""
    from fmstats.experiments.thesis_ch8 import vignette_chapter8, vignette_data

    alphas = (0.1, 0.5, 0.9)
    train, test = vignette_data(("A2",))["A2"]
    acc, folds = _folds(train, 12)
    _check_folds(train, folds)
    per_fold, ref = chapter8_reference(train, test, folds, alphas, 12)
    res = _quiet(vignette_chapter8, ("A2",), alphas=alphas)
    return dict(train=train, test=test, acc=acc, per_fold=per_fold, ref=ref, res=res)


def test_ch8_wsvm_fold_counts_equal_libsvm(vignette_a2):
    """Every one of the 78 grid points x 2 folds of fmstats' weighted-SVM grid (one batched
    QP) gives the held-out confusion counts of libsvm's SVC with the same costs, exactly
    (integer counts; no held-out decision value of the reference lies within 1e-4 of 0).
    Catches: C_pos and C_neg exchanged, a wrong grid, the intercept left out, a test fold
    predicted with the other fold's model."""
    acc, per_fold = vignette_a2["acc"], vignette_a2["per_fold"]
    vals = thesis_cost_values(12)
    table = acc.tidy()
    fr = acc.fold_results.merge(table[["C_pos", "C_neg"]], left_on="point", right_index=True)
    ours = fr.set_index(["C_pos", "C_neg", "fold"])[["tp", "fp", "fn", "tn"]].sort_index()
    assert len(ours) == 2 * len(per_fold) == 156
    for (i, j), c in per_fold.items():
        np.testing.assert_array_equal(ours.loc[(vals[i], vals[j])].to_numpy(), c)


def test_ch8_wsvm_cv_f_and_choice_equal_the_reference(vignette_a2):
    """chapter8's "wsvm, CV F" rows: the cv_f of the chosen costs equals the largest pooled
    F_tp,fp of the reference grid (to 1e-12: a ratio of integer counts); the chosen costs are
    those fmstats documents (first maximum in the order C_pos, C_neg -- here also the R
    code's choice); training and test F equal the reference's (libsvm refit) to 1e-12.
    Catches: the CV F averaged over folds (mean of per-fold F) instead of pooled; the
    criterion at 1 - alpha; the tie-break reversed where it matters."""
    ref, res = vignette_a2["ref"], vignette_a2["res"]
    ours = res[res.model == "wsvm, CV F"].set_index(["alpha", "data"]).sort_index()
    theirs = ref[ref.model == "wsvm, CV F, fmstats tie-break"].set_index(
        ["alpha", "data"]).sort_index()
    np.testing.assert_allclose(ours["cv_f"], theirs["cv_f"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours[["C_pos", "C_neg"]], theirs[["C_pos", "C_neg"]], rtol=1e-12)
    np.testing.assert_allclose(ours["f"], theirs["f"], rtol=0, atol=1e-12)
    r = ref[ref.model == "wsvm, CV F"].set_index(["alpha", "data"]).sort_index()
    np.testing.assert_allclose(r[["C_pos", "C_neg"]], theirs[["C_pos", "C_neg"]])
    # the mean of the per-fold F differs from the pooled F at the chosen costs (by more than
    # 1e-3 at some alpha), so the comparison above tells the two criteria apart
    per_fold, vals = vignette_a2["per_fold"], thesis_cost_values(12)
    gaps = []
    for a, row in ours.xs("test", level="data").iterrows():
        k = (vals.index(row["C_pos"]), vals.index(row["C_neg"]))
        gaps.append(abs(np.mean([f_counts(*c[:3], a) for c in per_fold[k]]) - row["cv_f"]))
    assert max(gaps) > 1e-3


def test_ch8_accuracy_tuning_is_useless_on_unbalanced_a2(vignette_a2):
    """Thesis §8.2/8.3: accuracy-tuned SVMs "return notoriously useless classifiers" on
    unbalanced data.  The reference (libsvm, CV accuracy, the R code's tie-break) predicts no
    positive on A2's training and test rows, so F = 0 at every alpha, while the F-tuned
    reference is above 0.2 everywhere; fmstats' accuracy-tuned rows are F = 0 too (exact:
    no true positive).
    Catches: accuracy computed as TP / n, or the accuracy choice made at the F criterion."""
    ref, res = vignette_a2["ref"], vignette_a2["res"]
    r_acc = ref[ref.model == "wsvm, CV accuracy"]
    assert (r_acc["f"] == 0).all() and len(r_acc) == 6
    assert (ref[ref.model == "wsvm, CV F"]["f"] > 0.2).all()
    acc = res[res.model == "wsvm, CV accuracy"]
    assert len(acc) == 6 and (acc["f"] == 0).all()


def _refit_fsvm(train, alpha, a):
    """The F-measure SVM that chapter8 reports, refitted with the tuned slope a."""
    m_pos, m_neg = int(train["y"].sum()), int((1 - train["y"]).sum())
    return _quiet(fm.fsvm, "y ~ x1 + x2", train, alpha=alpha, a=a, C=m_pos,
                  start_C=(m_neg / 10, m_pos / 10))


def test_ch8_fsvm_objective_start_and_f(vignette_a2):
    """The tuned F-measure SVM of chapter8 at each alpha: its objective equals (3.6) by hand at
    its (w, b) to 1e-9 relative and is no higher than (3.6) by hand at its start; the start
    is libsvm's weighted SVM with (C+, C-) = (m-, m+)/10 (§8.2) to 1e-4 in decision values;
    chapter8's training and test F equal F by hand from its predictions (1e-12).
    Catches: alpha and 1 - alpha swapped in (3.6), S+ in the numerator instead of S-, the
    start costs exchanged, a reported F at the wrong alpha."""
    train, test, res = vignette_a2["train"], vignette_a2["test"], vignette_a2["res"]
    X, y = train[["x1", "x2"]].to_numpy(), train["y"].to_numpy()
    ypm = np.where(y == 1, 1.0, -1.0)
    m_pos, m_neg = int(y.sum()), int((1 - y).sum())
    start = sk_wsvm(X, y, m_neg / 10, m_pos / 10)
    for alpha in (0.1, 0.5, 0.9):
        rows = res[(res.model == "fsvm, CV F") & (res.alpha == alpha)].set_index("data")
        a = float(rows["a"].iloc[0])
        fit = _refit_fsvm(train, alpha, a)
        w, b = fit.params[["x1", "x2"]].to_numpy(), float(fit.params["Intercept"])
        obj = fsvm_objective(X, ypm, w, b, m_pos, alpha, a)
        # a minimum that predicts one class is replaced by the start (fsvm's default)
        reported = fit.start_objective if fit.degenerate_fit else fit.objective
        assert reported == pytest.approx(obj, rel=1e-9)
        s_w, s_b = fit.start[["x1", "x2"]].to_numpy(), float(fit.start["Intercept"])
        assert obj <= fsvm_objective(X, ypm, s_w, s_b, m_pos, alpha, a) * (1 + 1e-9)
        np.testing.assert_allclose(X @ s_w + s_b, start.decision_function(X), atol=1e-4)
        for part, frame in (("train", train), ("test", test)):
            pred = frame[["x1", "x2"]].to_numpy() @ w + b > 0
            expect = f_counts(*counts(frame["y"], pred)[:3], alpha)
            assert rows.loc[part, "f"] == pytest.approx(expect, abs=1e-12)


def test_ch8_fsvm_holds_its_own_on_the_vignette_a2(vignette_a2):
    """Thesis §8.3: the F-measure SVM "is at least holding its own" against the F-tuned
    weighted SVM.  On A2's 50-row test set, test F (by hand, previous test) of the F-SVM
    minus that of the libsvm reference (R tie-break), averaged over the three alphas, is
    not below -0.02 (one test row moves F by about 0.02)."""
    ref, res = vignette_a2["ref"], vignette_a2["res"]
    f_svm = res[(res.model == "fsvm, CV F") & (res.data == "test")].set_index("alpha")["f"]
    w_ref = ref[(ref.model == "wsvm, CV F") & (ref.data == "test")].set_index("alpha")["f"]
    assert (f_svm - w_ref).mean() >= -0.02


@pytest.mark.slow
def test_ch8_vignette_03_all_designs():
    """Vignette 03's four designs at the nine alphas (12 cost values, fold seed 1): fmstats'
    weighted SVMs equal the libsvm reference (pooled CV F to 1e-12, train/test F to 1e-12 with
    fmstats' documented tie-break); the accuracy-tuned reference predicts nothing positive on
    A2 and is below the F-tuned reference on B2 at alpha = 0.1 ("consistently superior
    performance ... in the presence of class imbalance"); and the numbers the vignette's prose
    states, recomputed with the libsvm weighted SVM and the F-SVM's F by hand."""
    from fmstats.experiments.thesis_ch8 import vignette_chapter8, vignette_data
    from fmstats.experiments.thesis_ch8 import THESIS_ALPHAS

    res = _quiet(vignette_chapter8)
    diffs, diffs_r = {}, {}
    for name, (train, test) in vignette_data().items():
        _, folds = _folds(train, 12)
        _, ref = chapter8_reference(train, test, folds, THESIS_ALPHAS, 12)
        ours = res[res.dataset == name]
        for model, rmodel in (("wsvm, CV F", "wsvm, CV F, fmstats tie-break"),
                              ("wsvm, CV accuracy", "wsvm, CV accuracy")):
            a = ours[ours.model == model].set_index(["alpha", "data"]).sort_index()
            b = ref[ref.model == rmodel].set_index(["alpha", "data"]).sort_index()
            np.testing.assert_allclose(a["f"], b["f"], atol=1e-12, err_msg=name)
            if model == "wsvm, CV F":
                np.testing.assert_allclose(a["cv_f"], b["cv_f"], atol=1e-12, err_msg=name)
        f_svm = ours[ours.model == "fsvm, CV F"].set_index(["data", "alpha"])["f"]
        w_r = ref[ref.model == "wsvm, CV F"].set_index(["data", "alpha"])["f"]
        w_fm = ref[ref.model == "wsvm, CV F, fmstats tie-break"].set_index(["data", "alpha"])["f"]
        diffs[name] = f_svm - w_fm           # the vignette's numbers (fmstats' tie-break)
        diffs_r[name] = f_svm - w_r          # the thesis's protocol (R tie-break)
        if name == "A2":
            assert (ref[ref.model == "wsvm, CV accuracy"]["f"] == 0).all()
        if name == "B2":
            r = ref[(ref.alpha == 0.1) & (ref.data == "test")].set_index("model")["f"]
            assert r["wsvm, CV accuracy"] < r["wsvm, CV F"] - 0.2
            prose = (_prose_value(VIGNETTE_03, r"\(test F " + NUM + r" against"),
                     _prose_value(VIGNETTE_03, r"against " + NUM + r" at α = 0\.1\)"))
            np.testing.assert_allclose(prose, [r["wsvm, CV accuracy"], r["wsvm, CV F"]],
                                       atol=0.005 + 1e-9)      # printed with two decimals
    # the prose prints three decimals; one unit of the last digit allows its rounding
    test = {k: v.loc["test"] for k, v in diffs.items()}
    for name in ("A1", "A2", "B1", "B2"):
        prose = _prose_value(VIGNETTE_03, r"\*\*" + NUM + f" on {name}\\*\\*")
        assert abs(prose - test[name].mean()) <= 0.001 + 1e-9, name
    assert abs(_prose_value(VIGNETTE_03, r"\(worst " + NUM + r" at α = 0\.1\)")
               - test["A1"].min()) <= 0.001 + 1e-9 and test["A1"].idxmin() == 0.1
    assert abs(_prose_value(VIGNETTE_03, r"\(A2: " + NUM + r" on average\)")
               - diffs["A2"].loc["train"].mean()) <= 0.001 + 1e-9
    assert (test["A2"] > 0).all() and (test["B2"] > 0).all()     # "ahead at every α on test"
    # the thesis: "at least holding its own" -- on average over designs and alphas, test F not
    # below the weighted SVM's by more than one test row (0.02)
    assert pd.concat([v.loc["test"] for v in diffs_r.values()]).mean() >= -0.02


@pytest.mark.slow
@pytest.mark.parametrize("data_seed", [2026, 3030, 4040])
def test_ch8_fsvm_holds_its_own_on_fresh_draws(data_seed):
    """4 designs x alpha 0.3/0.5/0.7 x fold seeds 1-3, 2000-row test sets, the thesis's
    210-point grid (as benchmarks/fidelity/bench_fsvm_chapter8.py): fmstats' F-tuned weighted SVM
    equals the libsvm reference (test F to 1e-12, fmstats' tie-break), and the thesis's
    "at least holding its own" holds on average: the F-SVM's test F (by hand from its
    predictions) minus the reference weighted SVM's (R tie-break), over the 36 cases, is
    >= 0; the vignette's prose numbers for this draw are recomputed the same way."""
    from fmstats.experiments.thesis_ch8 import chapter8

    diffs = []
    for i, name in enumerate(("A1", "A2", "B1", "B2")):
        d = fm.datasets.make_thesis_svm_data(name, random_state=data_seed + i,
                                             n_test=(1000, 1000))
        train, test = d[d.split == "train"], d[d.split == "test"]
        for seed in (1, 2, 3):
            _, folds = _folds(train, 20, seed)
            _, ref = chapter8_reference(train, test, folds, (0.3, 0.5, 0.7), 20)
            res = _quiet(chapter8, "y ~ x1 + x2", train, test, alphas=(0.3, 0.5, 0.7), cv=2,
                         n_jobs=1, progress=False, n_values=20, random_state=seed)
            res, ref = res[res.data == "test"], ref[ref.data == "test"]
            ours = res[res.model == "wsvm, CV F"].set_index("alpha")["f"]
            same = ref[ref.model == "wsvm, CV F, fmstats tie-break"].set_index("alpha")["f"]
            np.testing.assert_allclose(ours, same, atol=1e-12)
            f_svm = res[res.model == "fsvm, CV F"].set_index("alpha")["f"]
            w_r = ref[ref.model == "wsvm, CV F"].set_index("alpha")["f"]
            diffs += [(name, r, v) for r, v in zip(f_svm - same, f_svm - w_r)]
    df = pd.DataFrame(diffs, columns=["data", "diff", "diff_r"])
    assert df["diff_r"].mean() >= 0
    # the vignette's numbers (from benchmarks/fidelity/bench_fsvm_chapter8.py) are F-SVM minus fmstats'
    # weighted SVM (its tie-break), to +-0.005: one of the 36 cases moving by 0.18
    k = (2026, 3030, 4040).index(data_seed)
    skip = r"(?:[^*,]+?(?:, | and )){%d}" % k            # the k-th number of the list
    means = r"mean difference is \*\*" + skip + NUM
    worst = r"worst case \*\*" + skip + NUM
    assert abs(_prose_value(VIGNETTE_03, means) - df["diff"].mean()) <= 0.005
    assert abs(_prose_value(VIGNETTE_03, worst) - df["diff"].min()) <= 0.005


# ============================================================================ vignette prose
def _prose_value(path, pattern):
    """The number matched by the one group of ``pattern`` (a regular expression, searched in
    the vignette's prose with blanks normalised; a Unicode minus is read as "-")."""
    import re

    nb = json.loads(Path(path).read_text())
    text = " ".join("\n".join("".join(c["source"]) for c in nb["cells"]
                              if c["cell_type"] == "markdown").split())
    m = re.search(pattern, text)
    assert m, f"{Path(path).name} no longer matches {pattern!r}: update the prose or the test"
    return float(m.group(1).replace("−", "-"))


NUM = r"([+−-]?\d+\.\d+)"


def _claims(path, *phrases):
    """Every phrase (a number as the vignette prints it) occurs in the vignette's prose."""
    nb = json.loads(Path(path).read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    text = " ".join(text.split())
    missing = [p for p in phrases if " ".join(p.split()) not in text]
    assert not missing, f"{Path(path).name} no longer states {missing}: update the prose or test"
