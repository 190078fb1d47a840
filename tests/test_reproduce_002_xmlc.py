"""Reproduction of seed 002 (Jasinska et al., ICML 2016): STO, FTA and OFO under the §6 protocol.

Where every asserted number comes from
--------------------------------------
Nothing asserted here was measured by running fmstats.  The references are:

* **A re-implementation written in this file** (numpy/scipy only; section "Reference" below)
  from the seed's own text, ``/work/shared/seeds/002_*.txt``:

  - macro-F (§2): F_M = (1/m) sum_j 2 sum_i y_ij yhat_ij / (sum_i y_ij + sum_i yhat_ij), the
    mean over *all* m labels, with F = 1 for a label with no positives and no predicted
    positives (§6, after Lewis 1995); label j is predicted when its estimate is *strictly*
    above theta_j (§3, [eta(x, j) > theta_j]); an estimate the SPE does not store is never
    predicted (it is at most the SPE threshold, which every threshold used here exceeds);
  - STO (§3 eq. (3) and Algorithm 1): per label, the best F over the candidate thresholds
    "{eta(x_i, j)}" restricted to the SPE, i.e. every stored estimate above tau_j and tau_j
    itself (predict all stored estimates), evaluated exhaustively;
  - FTA (§4.2, §6): at c the fixed thresholds max(1/c, lower_j); over a candidate grid, the
    shared version picks the candidate with the best macro-F, the per-label version each
    label's best candidate;
  - OFO (Algorithm 2): a plain loop over the instances in order and over y_i U yhat_i, with
    a_j += [j in y_i and j in yhat_i], b_j += [j in y_i] + [j in yhat_i], theta_j = a_j / b_j,
    initialised at a = 1, b = c and kept >= lower_j ("we also control the thresholds in OFO
    to be greater than the lower bound", §6); its online F is the F of its own sequential
    predictions;
  - the protocol (§6): priors estimated on the part that trains the estimator, lower_j =
    pi_j / (pi_j + 1) (eq. (5)), the grid C = {10000, ..., 2} transcribed from §6, selection
    of c per method by the validation macro-F; OFO's validation macro-F is that of its final
    thresholds applied to the validation set (its online F is a separate column).

  The paper does not say how ties are broken.  The reference follows fmstats' documented
  conventions (the docstrings of ``sto``, ``fta`` and ``select_by_validation``):
  among equal F the largest threshold (the fewest predicted positives: a label without
  positives predicts nothing and keeps F = 1), among equal validation macro-F the largest
  1/c (the sparsest SPE).  Ties are exact: every F is one quotient of integers, so equal
  fractions are equal floats.
* **Brute force**: a loop over every candidate threshold of a single label, each scored by
  counting its predictions (no sorting, no cumulative sums), checks the STO reference and
  fmstats' STO on sampled labels and on every label of a small problem with exact ties.
* **The data layout**: the synthetic problem is fmstats' generator
  (:func:`~fmstats.extreme.make_extreme_spe`, the data of vignette 07) and the split is the
  paper's 64/16/20 made here from ``np.random.default_rng(seed).permutation``; shapes and
  counts such as "labels occurring in test" are recomputed with numpy.  The debtags SPEs
  (slow test) are the output of fmstats' PLT; only the thresholding on top of them is
  checked against the reference.
* **The paper's qualitative patterns** (Figure 1: STO's validation macro-F far above its
  test macro-F, while FTA and OFO stay close; Table 2: OFO, then FTA, ahead of STO after
  selection) are asserted on the *reference's* numbers; fmstats must then equal the
  reference.

Tolerances: counts (predicted positives, estimates per instance) are integers and compared
exactly.  Thresholds chosen among stored estimates (STO), max(1/c, lower) (FTA) and
a_j / b_j of equal integer counts (OFO) are exact by construction and compared with
``assert_array_equal``.  A label's F is one quotient of integers in the reference and
TP / (TP + FP/2 + FN/2) in fmstats: algebraically equal, a few roundings apart, so 1e-14.
A macro-F is a mean of 10^5 such values summed in a different order: 1e-12.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse as sp

from fmstats.extreme import (PAPER_C, SPE, fta, macro_f_at_thresholds, make_extreme_spe, ofo,
                             precision_at_k, sto)
from fmstats.experiments.seed002 import (absent_label_breakdown, best_label_threshold,
                                         debtags_split, run_protocol, selected_thresholds,
                                         shared_threshold_scan, synthetic_split)
from fmstats.extreme import compare_thresholds, select_by_validation
from fmstats.measures import f_score

pytestmark = pytest.mark.reference

#: §6: "c in C = {10000, 1000, 200, 100, 50, 20, 10, 7, 5, 4, 3, 2}" (transcribed from the seed)
GRID = (10000, 1000, 200, 100, 50, 20, 10, 7, 5, 4, 3, 2)
METHODS = ("sto", "fta", "ofo")
F_TOL = 1e-14        # one label's F: two algebraically equal expressions of integer counts
MACRO_TOL = 1e-12    # a mean of up to 10^5 label F's, summed in another order


# ===========================================================================
# Reference (numpy / scipy only; no fmstats numerics)
# ===========================================================================
class Problem:
    """The stored estimates of one SPE and its labels, as flat numpy arrays.

    ``row``, ``col``, ``val``: every stored estimate; ``y``: is it a positive; ``pos``: the
    positives of each label; ``hid_row``, ``hid_col``: positives without a stored estimate;
    ``tau``: the SPE's thresholds (no estimate above them is missing).
    """

    def __init__(self, matrix, Y, tau=0.0):
        # reads the sparse arrays' coordinates only
        est = sp.coo_array(matrix)
        lab = sp.coo_array(Y)
        self.n, self.m = est.shape
        assert lab.shape == est.shape
        m = self.m
        self.row = np.asarray(est.coords[0], dtype=np.int64)
        self.col = np.asarray(est.coords[1], dtype=np.int64)
        self.val = np.asarray(est.data, dtype=float)
        self.tau = np.broadcast_to(np.asarray(tau, dtype=float), (m,)).copy()
        assert (self.val > self.tau[self.col]).all()
        nz = np.asarray(lab.data) != 0
        lrow = np.asarray(lab.coords[0], dtype=np.int64)[nz]
        lcol = np.asarray(lab.coords[1], dtype=np.int64)[nz]
        key, lkey = self.row * m + self.col, lrow * m + lcol
        self.y = np.isin(key, lkey)
        self.pos = np.bincount(lcol, minlength=m)
        hidden = ~np.isin(lkey, key)
        self.hid_row, self.hid_col = lrow[hidden], lcol[hidden]

    @classmethod
    def of(cls, spe, Y):
        """From an fmstats SPE (its CSR matrix and thresholds are read, nothing else)."""
        return cls(spe.matrix, Y, spe.thresholds)

    @functools.cached_property
    def by_label(self):
        """(col, val, y) of the stored estimates sorted by label, then decreasing estimate."""
        order = np.lexsort((-self.val, self.col))
        return self.col[order], self.val[order], self.y[order]

    @functools.cached_property
    def events(self):
        """Algorithm 2's events in instance order, as lists (label, estimate, positive):
        every stored estimate and every positive without one (estimate -1: never
        predicted, as an unstored estimate is at most the SPE threshold)."""
        order = np.argsort(np.r_[self.row, self.hid_row], kind="stable")
        return (np.r_[self.col, self.hid_col][order].tolist(),
                np.r_[self.val, np.full(self.hid_row.size, -1.0)][order].tolist(),
                np.r_[self.y, np.ones(self.hid_row.size, dtype=bool)][order].tolist())


def ref_f(tp, pred, pos):
    """F1 = 2 TP / (PRED + POS) from integer counts; 0/0 = 1 (Lewis)."""
    tp, den = np.asarray(tp), np.asarray(pred) + np.asarray(pos)
    return np.where(den == 0, 1.0, 2.0 * tp / np.maximum(den, 1))


def ref_label_f(P: Problem, theta):
    """Each label's F at thresholds theta (predict eta > theta_j) and its predicted count."""
    hit = P.val > np.asarray(theta, dtype=float)[P.col]
    pred = np.bincount(P.col[hit], minlength=P.m)
    tp = np.bincount(P.col[hit & P.y], minlength=P.m)
    return ref_f(tp, pred, P.pos), pred


def ref_macro(P: Problem, theta) -> float:
    return float(ref_label_f(P, theta)[0].mean())


def ref_sto(P: Problem, tau):
    """Exhaustive STO: for every label, every candidate threshold in {tau_j} U {its stored
    estimates above tau_j} is scored; the best F wins, ties to the largest threshold.

    Vectorised: with the estimates sorted by (label, decreasing value), a candidate theta =
    v predicts exactly the entries of its label before the first entry equal to v; theta =
    tau_j predicts all of them.  A label without estimates above tau_j keeps theta = tau_j.
    """
    m = P.m
    tau = np.maximum(np.asarray(tau, dtype=float), P.tau)
    col, val, y = P.by_label
    keep = val > tau[col]
    col, val, y = col[keep], val[keep], y[keep]
    n_lab = np.bincount(col, minlength=m)
    tp_lab = np.bincount(col[y], minlength=m)
    theta, f = tau.copy(), ref_f(np.zeros(m), np.zeros(m), P.pos)
    if col.size == 0:
        return theta, f
    lab_start = np.concatenate(([0], np.cumsum(n_lab)))[col]
    new_run = np.r_[True, (col[1:] != col[:-1]) | (val[1:] != val[:-1])]
    run_first = np.flatnonzero(new_run)[np.cumsum(new_run) - 1]
    cum_tp = np.concatenate(([0], np.cumsum(y)))
    has = np.flatnonzero(n_lab)
    c_label = np.r_[col, has]
    c_theta = np.r_[val, tau[has]]
    c_f = ref_f(np.r_[cum_tp[run_first] - cum_tp[lab_start], tp_lab[has]],
                np.r_[run_first - lab_start, n_lab[has]], P.pos[c_label])
    # F's are single quotients of integers: equal fractions are equal floats, so ties are exact
    best = np.lexsort((-c_theta, -c_f, c_label))
    first = best[np.r_[True, c_label[best][1:] != c_label[best][:-1]]]
    assert np.array_equal(c_label[first], has)
    theta[has], f[has] = c_theta[first], c_f[first]
    return theta, f


def ref_fta(P: Problem, candidates, lower, shared=True):
    """FTA over candidate thresholds max(c_k, lower_j); ties to the largest candidate."""
    cands = np.sort(np.unique(np.asarray(candidates, dtype=float)))
    F = np.column_stack([ref_label_f(P, np.maximum(c, lower))[0] for c in cands])
    macro = F.mean(axis=0)
    if shared:
        k = np.full(P.m, np.flatnonzero(macro == macro.max())[-1])
    else:   # per label, the last (largest) candidate among the exact maximisers
        is_max = F == F.max(axis=1, keepdims=True)
        k = cands.size - 1 - np.argmax(is_max[:, ::-1], axis=1)
    return np.maximum(cands[k], lower), F[np.arange(P.m), k], macro


def ref_ofo(P: Problem, a0: float, b0: float, lower):
    """Algorithm 2 literally: instances in order, the labels of y_i U yhat_i updated.

    Returns the final thresholds and each label's online counts (TP, predicted).
    """
    m = P.m
    lo = np.asarray(lower, dtype=float).tolist()
    a, b = [float(a0)] * m, [float(b0)] * m
    theta = [max(float(a0) / float(b0), v) for v in lo]     # line 2, kept >= lower (§6)
    tp, npred = [0] * m, [0] * m
    # a label occurs at most once per instance, so handling an instance's labels one after
    # the other predicts all of them with the thresholds from before the instance (line 4)
    for j, v, y in zip(*P.events):
        h = v > theta[j]                                     # line 4
        if h or y:                                           # line 5: j in y_i U yhat_i
            if h:
                npred[j] += 1
                if y:
                    tp[j] += 1
                    a[j] += 1.0                              # line 6
            b[j] += (1.0 if y else 0.0) + (1.0 if h else 0.0)   # line 7
            t = a[j] / b[j]                                  # line 8
            theta[j] = t if t > lo[j] else lo[j]
    return np.array(theta), np.array(tp), np.array(npred)


def ref_priors_lower(Y_fit):
    """Priors of the estimator's training part and the lower ends pi / (pi + 1) of (5)."""
    Y_fit = sp.csc_array(Y_fit)
    pi = np.diff(Y_fit.indptr) / Y_fit.shape[0]
    return pi, pi / (pi + 1.0)


def ref_split(n: int, seed: int):
    """§6: 20 % test; of the rest, 80 % train the estimator and 20 % validate."""
    perm = np.random.default_rng(seed).permutation(n)
    a, b = int(0.8 * int(0.8 * n)), int(0.8 * n)
    return np.sort(perm[:a]), np.sort(perm[a:b]), np.sort(perm[b:])


def ref_protocol(Pv: Problem, Pt: Problem, lower, grid=GRID, fixed=0.5):
    """Every (method, c) row of §6 and the per-method selection by validation."""
    rows, fits = [], {}
    n_val, n_test = Pv.n, Pt.n

    def row(method, c, theta, spe_tau, online=np.nan, label_f=None, **extra):
        fv = ref_label_f(Pv, theta)[0]
        if label_f is not None:      # the reference tuner's own F agrees with re-scoring
            np.testing.assert_array_equal(label_f, fv)
        ft, pred_t = ref_label_f(Pt, theta)
        rows.append(dict(method=method, c=c, valid_label_f=fv, valid_macro_f=fv.mean(),
                         test_label_f=ft, test_macro_f=ft.mean(), valid_online_f=online,
                         mean_threshold=theta.mean(), test_predicted=int(pred_t.sum()),
                         spe_kept=int(np.count_nonzero(Pv.val > np.maximum(spe_tau, Pv.tau)
                                                       [Pv.col])),
                         n_val=n_val, n_test=n_test))
        fits[method, None if method == "fixed" else c] = dict(theta=theta, **extra)

    for c in grid:
        tau = np.maximum(1.0 / c, lower)
        theta, f = ref_sto(Pv, tau)
        row("sto", c, theta, tau, label_f=f, f=f)
    for c in grid:
        tau = np.maximum(1.0 / c, lower)
        row("fta", c, tau, tau)
    for c in grid:
        theta, tp, npred = ref_ofo(Pv, 1.0, c, lower)
        online = ref_f(tp, npred, Pv.pos).mean()
        row("ofo", c, theta, lower, online=online, tp=tp, npred=npred)
    row("fixed", np.nan, np.full(Pv.m, fixed), np.full(Pv.m, fixed))
    best = {}
    for method in METHODS:
        mine = [r for r in rows if r["method"] == method]
        top = max(r["valid_macro_f"] for r in mine)
        tied = [r for r in mine if r["valid_macro_f"] == top]
        best[method] = min(tied, key=lambda r: r["c"])          # ties: the largest 1/c
        # no near-tie that float summation order could flip (exact ties are equal arrays)
        rest = [r["valid_macro_f"] for r in mine if r["valid_macro_f"] != top]
        assert not rest or top - max(rest) > 1e-9
        for r in tied:
            np.testing.assert_array_equal(r["valid_label_f"], best[method]["valid_label_f"])
    best["fixed"] = rows[-1]
    return rows, best, fits


def brute_label(p, y, tau):
    """One label's best threshold by trying every candidate in {tau} U {p_i > tau} in turn
    (a loop, no sorting); p is the dense column (0 where nothing is stored).  Ties -> the
    largest threshold.  Returns (threshold, F) as Python floats."""
    p, y = np.asarray(p, dtype=float), np.asarray(y) != 0
    n_pos = int(y.sum())
    best_t, best_f = None, None
    for t in sorted({float(tau)} | set(p[p > tau].tolist())):
        hit = p > t
        tp, pred = int((hit & y).sum()), int(hit.sum())
        f = 1.0 if pred + n_pos == 0 else 2 * tp / (pred + n_pos)
        if best_f is None or f >= best_f:
            best_t, best_f = t, f
    return best_t, best_f


def column(mat, j):
    return sp.csc_array(mat)[:, [j]].toarray().ravel()


# ===========================================================================
# Comparison helpers
# ===========================================================================
def assert_table_equals_reference(table, rows):
    """fmstats' compare_thresholds table, row by row, against the reference rows."""
    assert list(table.method) == [r["method"] for r in rows]
    for (_, got), r in zip(table.iterrows(), rows):
        what = (r["method"], r["c"])
        if np.isnan(r["c"]):
            assert np.isnan(got.c), what
        else:
            assert got.c == r["c"] and got.inv_c == 1.0 / r["c"], what
        assert abs(got.valid_macro_f - r["valid_macro_f"]) <= MACRO_TOL, what
        assert abs(got.test_macro_f - r["test_macro_f"]) <= MACRO_TOL, what
        assert abs(got.mean_threshold - r["mean_threshold"]) <= MACRO_TOL, what
        if np.isnan(r["valid_online_f"]):
            assert np.isnan(got.valid_online_f), what
        else:
            assert abs(got.valid_online_f - r["valid_online_f"]) <= MACRO_TOL, what
        # per-instance counts: the integer count is reproduced exactly
        assert round(got.test_predicted_per_instance * r["n_test"]) == r["test_predicted"], what
        assert got.test_predicted_per_instance == pytest.approx(
            r["test_predicted"] / r["n_test"], rel=1e-15), what
        assert round(got.spe_per_instance * r["n_val"]) == r["spe_kept"], what


def assert_best_equals_reference(best, ref_best):
    best = best.set_index("method")
    assert list(best.index) == ["sto", "fta", "ofo", "fixed"]
    for method, r in ref_best.items():
        if method != "fixed":
            assert best.loc[method, "c"] == r["c"], method      # grid values: exact
        assert abs(best.loc[method, "valid_macro_f"] - r["valid_macro_f"]) <= MACRO_TOL
        assert abs(best.loc[method, "test_macro_f"] - r["test_macro_f"]) <= MACRO_TOL


# ===========================================================================
# The synthetic 100,000-label problem of vignette 07
# ===========================================================================
SYNTH = dict(n=100_000, m=100_000, nnz_per_row=20, hidden_per_row=1.0)


def synthetic_reference(seed: int):
    """The data (generator + this file's split), the reference protocol, fmstats' protocol."""
    spe, Y = make_extreme_spe(SYNTH["n"], SYNTH["m"], SYNTH["nnz_per_row"],
                              hidden_per_row=SYNTH["hidden_per_row"], random_state=seed)
    fit, val, test = ref_split(SYNTH["n"], seed)
    Y = sp.csr_array(Y)
    priors, lower = ref_priors_lower(Y[fit])
    Pv = Problem(spe.matrix[val], Y[val], spe.thresholds)
    Pt = Problem(spe.matrix[test], Y[test], spe.thresholds)
    rows, best, fits = ref_protocol(Pv, Pt, lower)
    split = synthetic_split(seed)
    table, fm_best = run_protocol(split)
    return dict(Pv=Pv, Pt=Pt, priors=priors, lower=lower, rows=rows, best=best, fits=fits,
                split=split, table=table, fm_best=fm_best)


@pytest.fixture(scope="module")
def synthetic():
    return synthetic_reference(1)


def test_split_priors_and_bounds_follow_section_6(synthetic):
    """The data layout and the protocol's inputs: synthetic_split's validation and test parts
    are the rows of this file's 64/16/20 split, its priors those of the 64 % part and its
    lower bounds pi / (pi + 1).  Catches: priors from the wrong part (e.g. the validation
    rows), a wrong bound (5) (e.g. pi / (pi + 2) or 1 / (pi + 1)), a wrong split."""
    s, Pv, Pt = synthetic["split"], synthetic["Pv"], synthetic["Pt"]
    assert tuple(PAPER_C) == GRID
    assert s.spe_val.shape == (16_000, 100_000)
    assert s.spe_test.shape == s.Y_test.shape == (20_000, 100_000)
    for P, spe, Y in ((Pv, s.spe_val, s.Y_val), (Pt, s.spe_test, s.Y_test)):
        Q = Problem.of(spe, Y)
        for name in ("row", "col", "val", "y", "pos", "hid_row", "hid_col"):
            np.testing.assert_array_equal(getattr(Q, name), getattr(P, name), err_msg=name)
    # pi_j = count / 64,000 in both: the same integer division, exact
    np.testing.assert_array_equal(s.priors, synthetic["priors"])
    # alpha pi / (alpha + (1 - alpha) pi) with alpha = 1/2 against pi / (pi + 1): equal up
    # to rounding
    np.testing.assert_allclose(s.lower, synthetic["lower"], rtol=1e-15, atol=0)
    # "only about 28,000 of the 100,000 labels occur among the 20,000 test instances" and the
    # validation part "is not guaranteed to contain positive instances for every label" (§6)
    occurs_test = np.diff(sp.csc_array(s.Y_test).indptr) > 0
    assert int(occurs_test.sum()) == int(np.count_nonzero(Pt.pos))
    assert 0.2 < occurs_test.mean() < 0.35
    assert (Pv.pos == 0).mean() > 0.6


def test_protocol_table_equals_reference(synthetic):
    """Every (method, c) row of run_protocol (validation and test macro-F, OFO's online F,
    mean threshold, predicted positives and stored estimates per instance) equals the
    reference.  Catches: STO ties broken towards the lowest threshold (labels whose F is 0
    at every candidate then predict all their estimates on test), OFO updating a or b with
    the wrong counts, macro-F averaged over the labels with positives or predictions
    instead of all m, FTA at 1/c without the lower bounds, priors or bounds (5) wrong."""
    assert_table_equals_reference(synthetic["table"], synthetic["rows"])


def test_selection_by_validation_and_the_papers_pattern(synthetic):
    """Selection by validation (§6) equals the reference's, and the reference shows the
    paper's pattern: STO's validation-test gap far above FTA's and OFO's (Figure 1) and
    OFO > FTA > STO on test after selection (Table 2, PLT columns of most data sets).
    On this draw STO's validation macro-F at c = 10,000 and c = 1,000 is exactly equal (the
    same F for every label), so the tie rule decides.  Catches: ties in the selection going
    to the smallest 1/c (c = 10,000 instead of 1,000), selection by test instead of
    validation, and the mutants of the table above."""
    ref = synthetic["best"]
    assert_best_equals_reference(synthetic["fm_best"], ref)
    sto_rows = [r for r in synthetic["rows"] if r["method"] == "sto"]
    # the tie is exact (equal label-F arrays, see ref_protocol) and at the top
    assert sto_rows[0]["valid_macro_f"] == sto_rows[1]["valid_macro_f"] == ref["sto"][
        "valid_macro_f"]
    assert ref["sto"]["c"] == GRID[1]
    test = {m: ref[m]["test_macro_f"] for m in METHODS}
    gap = {m: ref[m]["valid_macro_f"] - ref[m]["test_macro_f"] for m in METHODS}
    assert test["ofo"] > test["fta"] > test["sto"]
    assert gap["sto"] > 0.2 and gap["sto"] > 3 * max(gap["fta"], gap["ofo"])
    assert 0 < gap["fta"] < 0.1 and 0 < gap["ofo"] < 0.1


def test_macro_f_equals_hand_count(synthetic):
    """fmstats' measures on the test set at each method's selected thresholds: per-label F
    (macro_f_at_thresholds with average=None, and f_score on the 0/1 predictions), the
    macro-F and the predicted positives equal the reference's counts.  Catches: macro-F over
    the labels with positives or predictions only, 0/0 scored 0 instead of 1 (Lewis)."""
    s, Pt = synthetic["split"], synthetic["Pt"]
    for method in ("sto", "fta", "ofo", "fixed"):
        r = synthetic["best"][method]
        theta = synthetic["fits"][method, None if method == "fixed" else r["c"]]["theta"]
        f_ref, pred_ref = ref_label_f(Pt, theta)
        f = macro_f_at_thresholds(s.spe_test, s.Y_test, theta, average=None)
        np.testing.assert_allclose(f, f_ref, rtol=0, atol=F_TOL, err_msg=method)
        assert abs(macro_f_at_thresholds(s.spe_test, s.Y_test, theta)
                   - f_ref.mean()) <= MACRO_TOL, method
        pred = s.spe_test.predict(theta)
        np.testing.assert_array_equal(np.diff(sp.csc_array(pred).indptr), pred_ref)
        assert abs(f_score(s.Y_test, pred, average="macro") - f_ref.mean()) <= MACRO_TOL
        # the labels with neither positives nor predictions count, at F = 1
        empty = (Pt.pos == 0) & (pred_ref == 0)
        assert empty.mean() > 0.3 and (f_ref[empty] == 1.0).all()


@pytest.mark.parametrize("c", [1000, 10, 2])
def test_sto_thresholds_equal_exhaustive_search(synthetic, c):
    """fmstats.extreme.sto at tau = max(1/c, lower) (Algorithm 1 on the SPE restricted to
    tau) gives, for every one of the 100,000 labels, the reference's threshold (exactly: a
    stored estimate or tau_j) and F.  The reference itself is checked by brute force (every
    candidate tried in a loop) on labels 10, 100 (and 0, 1 at c = 2, where tau cuts their
    13,000 and 9,000 estimates down) and 100 random labels with estimates, and so is
    fmstats' own brute-force helper (``best_label_threshold``, tau = 0).
    Catches: ties broken towards the lowest threshold; the threshold after a cut set to the
    last predicted estimate (which ">" then no longer predicts); the cut after a label's last
    estimate not mapped to tau_j; a label's positives counted among its scored estimates
    only (hidden positives dropped)."""
    s, Pv, lower = synthetic["split"], synthetic["Pv"], synthetic["lower"]
    tau = np.maximum(1.0 / c, lower)
    fit = sto(s.spe_val, s.Y_val, lower_bounds=tau)
    ref = synthetic["fits"]["sto", c]
    theta, f = ref["theta"], ref["f"]
    np.testing.assert_array_equal(fit.thresholds, theta)
    np.testing.assert_allclose(fit.label_f, f, rtol=0, atol=F_TOL)
    assert abs(fit.macro_f - f.mean()) <= MACRO_TOL
    rng = np.random.default_rng(c)
    # labels 0 and 1 have 13,000 and 9,000 estimates: brute force only where tau cuts most
    big = [0, 1] if c == 2 else []
    labels = np.r_[big, [10, 100], rng.choice(np.unique(Pv.col), 100, replace=False)]
    labels = labels.astype(np.int64)
    pv, yv = sp.csc_array(s.spe_val.matrix), sp.csc_array(s.Y_val)
    for j in labels:
        t_b, f_b = brute_label(column(pv, j), column(yv, j), tau[j])
        # the threshold is a data value or tau_j; F one quotient of the same integers
        assert theta[j] == t_b and f[j] == f_b, j
    if c == 1000:
        fit0 = sto(s.spe_val, s.Y_val)
        for j in labels[:20]:
            p, y = column(pv, j), column(yv, j)
            t_b, f_b = brute_label(p, y, 0.0)
            t_h, f_h = best_label_threshold(p, y)
            assert t_h == t_b == fit0.thresholds[j], j
            assert f_h == f_b and abs(fit0.label_f[j] - f_b) <= F_TOL, j
        # the paper's range (5): for the frequent labels the optimum is far below 1/2
        # (about F*/2 for calibrated estimates) and above lower_j
        for j in (0, 1, 10, 100):
            assert lower[j] < theta[j] < 0.4, j


def test_fta_equals_fixed_thresholds(synthetic):
    """fmstats.extreme.fta at one c gives theta_j = max(1/c, lower_j) and the reference's F
    per label; over the whole grid its per-candidate macro-F, its shared choice and its
    per-label choices (shared=False) equal the reference's.  Catches: per-label ties between
    candidates going to the smallest one (a label without positives has F = 1 at several
    candidates), positives counted among the scored estimates only.  (">=" for ">" needs
    estimates equal to a candidate: see the tied problem below.)"""
    s, Pv, lower = synthetic["split"], synthetic["Pv"], synthetic["lower"]
    one = fta(s.spe_val, s.Y_val, [0.5], lower_bounds=lower)
    np.testing.assert_array_equal(one.thresholds, np.maximum(0.5, lower))
    np.testing.assert_allclose(one.label_f, ref_label_f(Pv, np.maximum(0.5, lower))[0],
                               rtol=0, atol=F_TOL)
    inv_c = 1.0 / np.array(GRID, dtype=float)
    theta_s, f_s, macro = ref_fta(Pv, inv_c, lower, shared=True)
    shared = fta(s.spe_val, s.Y_val, inv_c, shared=True, lower_bounds=lower)
    np.testing.assert_array_equal(shared.candidates, np.sort(inv_c))
    np.testing.assert_allclose(shared.candidate_macro_f, macro, rtol=0, atol=MACRO_TOL)
    np.testing.assert_array_equal(shared.thresholds, theta_s)
    np.testing.assert_allclose(shared.label_f, f_s, rtol=0, atol=F_TOL)
    theta_l, f_l, _ = ref_fta(Pv, inv_c, lower, shared=False)
    per_label = fta(s.spe_val, s.Y_val, inv_c, shared=False, lower_bounds=lower)
    np.testing.assert_array_equal(per_label.thresholds, theta_l)
    np.testing.assert_allclose(per_label.label_f, f_l, rtol=0, atol=F_TOL)
    # the shared choice is the protocol's FTA selection (c = 2 here, i.e. threshold 1/2)
    assert np.all(theta_s == np.maximum(1.0 / synthetic["best"]["fta"]["c"], lower))


@pytest.mark.parametrize("c", [2, 100])
def test_ofo_equals_algorithm_2(synthetic, c):
    """fmstats.extreme.ofo with a = 1, b = c, thresholds kept >= lower (§6) ends at the
    reference loop's thresholds for all 100,000 labels (exact: a_j / b_j of the same integer
    counts), and its online F and sequential predictions per label equal the loop's.
    Catches: a_j += [j in yhat] (predictions counted as hits), b_j without the [j in y]
    term, the initial theta = a/b without the lower bound (c = 100), thresholds not kept
    >= lower after an update (c = 100), a positive without an estimate not counted."""
    s, Pv, lower = synthetic["split"], synthetic["Pv"], synthetic["lower"]
    ref = synthetic["fits"]["ofo", c]
    fit = ofo(s.spe_val, s.Y_val, 1.0, float(c), lower_bounds=lower, return_predictions=True)
    np.testing.assert_array_equal(fit.thresholds, ref["theta"])
    np.testing.assert_array_equal(np.bincount(sp.coo_array(fit.predictions).coords[1],
                                              minlength=Pv.m), ref["npred"])
    online = ref_f(ref["tp"], ref["npred"], Pv.pos)
    np.testing.assert_allclose(fit.label_f, online, rtol=0, atol=F_TOL)
    assert abs(fit.macro_f - online.mean()) <= MACRO_TOL
    # condition (4) behind the update: a label's final threshold is half its running F
    # (with the initial a = 1, b = c), or its lower bound
    b_final = c + ref["npred"] + Pv.pos
    np.testing.assert_array_equal(ref["theta"], np.maximum((1.0 + ref["tp"]) / b_final, lower))


def test_absent_label_breakdown_explains_stos_gap(synthetic):
    """The test macro-F of the selected rows split into labels that occur in the test set
    and labels that do not (experiments.absent_label_breakdown) equals the reference; and
    the reference shows the paper's explanation of STO's gap (§6: the validation data "is
    not guaranteed to contain positive instances for every label"): STO predicts many more
    of the labels absent from test (they lose their F = 1) while being the best on the
    labels that occur.  Catches: "occurs" taken from the validation labels, the absent
    labels' F not 1 when nothing is predicted (zero division 0), and the selection's
    mutants (the breakdown is of fmstats' selected rows)."""
    split, rows = synthetic["split"], synthetic["rows"]
    fm = absent_label_breakdown(split, synthetic["fm_best"]).set_index("method")
    occurs = synthetic["Pt"].pos > 0
    ref = {}
    for method in ("sto", "fta", "ofo", "fixed"):
        r = synthetic["best"][method]
        f = r["test_label_f"]
        ref[method] = (f[occurs].mean(), f[~occurs].mean())
        assert abs(fm.loc[method, "test_macro_f"] - r["test_macro_f"]) <= MACRO_TOL
        assert abs(fm.loc[method, "mean_f_labels_in_test"] - ref[method][0]) <= MACRO_TOL
        assert abs(fm.loc[method, "share_absent_labels_never_predicted"]
                   - ref[method][1]) <= MACRO_TOL
        # an absent label scores 1 if never predicted, else 0
        assert set(np.unique(f[~occurs])) <= {0.0, 1.0}
    assert ref["sto"][1] < ref["fta"][1] - 0.2 and ref["sto"][1] < ref["ofo"][1] - 0.2
    assert ref["sto"][0] > ref["fta"][0] and ref["sto"][0] > ref["ofo"][0]
    assert len(rows) == 3 * len(GRID) + 1


def test_shared_threshold_scan_finer_than_the_grid(synthetic):
    """One shared threshold max(t, lower) on a grid of step 0.01 (experiments.
    shared_threshold_scan) equals the reference macro-F on validation and test; and by the
    reference, the best shared threshold lies strictly between the paper's grid points 1/3
    and 1/2 and beats FTA's selection (1/2) on validation and on test: FTA's grid is too
    coarse here.  Catches: macro-F over the labels with positives or predictions only, 0/0
    scored 0."""
    split, Pv, Pt, lower = (synthetic[k] for k in ("split", "Pv", "Pt", "lower"))
    grid = np.round(np.arange(0.30, 0.601, 0.01), 2)
    scan = shared_threshold_scan(split, grid)
    ref_v = np.array([ref_macro(Pv, np.maximum(t, lower)) for t in grid])
    ref_t = np.array([ref_macro(Pt, np.maximum(t, lower)) for t in grid])
    np.testing.assert_array_equal(scan["threshold"], grid)
    np.testing.assert_allclose(scan["valid_macro_f"], ref_v, rtol=0, atol=MACRO_TOL)
    np.testing.assert_allclose(scan["test_macro_f"], ref_t, rtol=0, atol=MACRO_TOL)
    k = int(np.argmax(ref_v))
    assert 1 / 3 < grid[k] < 1 / 2
    fta_best = synthetic["best"]["fta"]
    assert fta_best["c"] == 2
    assert ref_v[k] > fta_best["valid_macro_f"] and ref_t[k] > fta_best["test_macro_f"]


# ===========================================================================
# A small problem with exact ties (estimates on a grid of 1/20)
# ===========================================================================
def tied_problem(seed=7, n=1500, m=40):
    """Estimates k/20 (so equal to 1/c for c = 2, 4, 5, 10, 20 and to many a_j/b_j), labels
    drawn with these probabilities, hidden positives, a label without positives (3), one
    without estimates (4) and one whose positives are never scored (5: every STO candidate
    has F = 0, a tie).  Returns [(P, Y)] for the fit, validation and test parts."""
    rng = np.random.default_rng(seed)
    pop = 1.0 / np.arange(1, m + 1)
    stored = rng.random((n, m)) < np.minimum(1.0, 3 * pop)
    P = np.where(stored, rng.integers(1, 20, size=(n, m)) / 20, 0.0)
    Y = rng.random((n, m)) < np.where(stored, P, 0.02 * pop)
    Y[:, 3] = False
    P[:, 4] = 0.0
    Y[:, 5] = (P[:, 5] == 0) & (rng.random(n) < 0.05)
    thirds = n // 3
    parts = [slice(0, thirds), slice(thirds, 2 * thirds), slice(2 * thirds, n)]
    return [(sp.csr_array(P[s]), sp.csr_array(Y[s].astype(float))) for s in parts]


def test_tied_problem_protocol_and_tuners_equal_reference():
    """On estimates with exact ties the whole protocol (compare_thresholds +
    select_by_validation) and the tuners sto / fta / ofo equal the reference, thresholds and
    counts exactly; STO also equals brute force on every label and c.  Catches what the
    continuous synthetic estimates cannot: ">=" for ">" at a threshold equal to an estimate
    (FTA at 1/2, 1/4, 1/5, ...; OFO at a_j / b_j = k/20), and again ties between equal-F
    cuts broken towards the lowest threshold (label 5), equal validation macro-F going to
    the smallest 1/c, FTA's per-label ties, OFO's counts and bounds."""
    (_, Y_fit), (P_val, Y_val), (P_test, Y_test) = tied_problem()
    pi, lower = ref_priors_lower(Y_fit)
    Pv, Pt = Problem(P_val, Y_val), Problem(P_test, Y_test)
    rows, best, fits = ref_protocol(Pv, Pt, lower)
    table = compare_thresholds(SPE(P_val), Y_val, SPE(P_test), Y_test, GRID, priors=pi)
    assert_table_equals_reference(table, rows)
    assert_best_equals_reference(select_by_validation(table), best)
    dense_v, dense_y = P_val.toarray(), Y_val.toarray()
    for c in GRID:
        tau = np.maximum(1.0 / c, lower)
        fit = sto(SPE(P_val), Y_val, lower_bounds=tau)
        np.testing.assert_array_equal(fit.thresholds, fits["sto", c]["theta"])
        for j in range(Pv.m):
            t_b, f_b = brute_label(np.where(dense_v[:, j] > tau[j], dense_v[:, j], 0.0),
                                   dense_y[:, j], tau[j])
            assert (fits["sto", c]["theta"][j], fits["sto", c]["f"][j]) == (t_b, f_b), (c, j)
        fo = ofo(SPE(P_val), Y_val, 1.0, float(c), lower_bounds=lower)
        np.testing.assert_array_equal(fo.thresholds, fits["ofo", c]["theta"])
    inv_c = 1.0 / np.array(GRID, dtype=float)
    for shared in (True, False):
        theta, f, macro = ref_fta(Pv, inv_c, lower, shared=shared)
        fit = fta(SPE(P_val), Y_val, inv_c, shared=shared, lower_bounds=lower)
        np.testing.assert_array_equal(fit.thresholds, theta)
        np.testing.assert_allclose(fit.label_f, f, rtol=0, atol=F_TOL)
        np.testing.assert_allclose(fit.candidate_macro_f, macro, rtol=0, atol=MACRO_TOL)
    # the problem does exercise the ties: estimates equal to grid thresholds and to OFO's
    assert np.isin(Pv.val, inv_c).mean() > 0.2
    assert any(np.isin(Pv.val, fits["ofo", c]["theta"]).any() for c in GRID)


# ===========================================================================
# Slow: five draws, and the debtags run of vignette 07
# ===========================================================================
@pytest.mark.slow
def test_synthetic_protocol_over_five_draws():
    """Draws 1-5: fmstats' protocol table and selection equal the reference's, and the
    reference shows the paper's pattern on every draw (OFO > FTA > STO on test after
    selection, STO's validation-test gap the largest).  Catches the mutants of the
    draw-1 tests on other data."""
    for seed in range(1, 6):
        d = synthetic_reference(seed)
        assert_table_equals_reference(d["table"], d["rows"])
        assert_best_equals_reference(d["fm_best"], d["best"])
        ref = d["best"]
        test = {m: ref[m]["test_macro_f"] for m in METHODS}
        gap = {m: ref[m]["valid_macro_f"] - ref[m]["test_macro_f"] for m in METHODS}
        assert test["ofo"] > test["fta"] > test["sto"], seed
        assert gap["sto"] > 3 * max(gap["fta"], gap["ofo"]), seed


@pytest.mark.slow
def test_debtags_protocol_equals_reference():
    """Vignette 07 on debtags (a PLT, random binary tree, C = 1, seed 0, trained by fmstats:
    its SPEs are the *data* here).  The split and priors equal this file's; the protocol's
    table and selection, OFO's selected thresholds and the fine shared-threshold scan equal
    the reference; P@1/3/5 equal a count by hand of the PLT's top-5, and the top-5 are the
    five largest exhaustive marginals.  The reference shows the paper's pattern: OFO best on
    test after selection, STO's validation-test gap the largest, every tuned method far above
    the threshold 1/2.  Catches the synthetic tests' mutants on real estimates (SPE
    thresholds at the lower bounds, not 0)."""
    from fmstats.datasets import load_debtags

    split = debtags_split(0)
    X, Y, _, _ = load_debtags()
    Y = sp.csr_array(Y)
    fit_rows, val, test = ref_split(X.shape[0], 0)
    pi, lower = ref_priors_lower(Y[fit_rows])
    assert (sp.csr_array(split.Y_val) != Y[val]).nnz == 0
    assert (sp.csr_array(split.Y_test) != Y[test]).nnz == 0
    np.testing.assert_array_equal(split.priors, pi)
    np.testing.assert_allclose(split.lower, lower, rtol=1e-15, atol=0)
    # the SPEs are built at the lower bounds (5): nothing above them is missing
    np.testing.assert_allclose(split.spe_val.thresholds, lower, rtol=1e-15, atol=0)
    Pv, Pt = Problem.of(split.spe_val, split.Y_val), Problem.of(split.spe_test, split.Y_test)
    # the validation part: half the tags have at most five positives (§6's sparse labels)
    assert Pv.n == val.size and (Pv.pos <= 5).mean() > 0.4
    rows, best, fits = ref_protocol(Pv, Pt, lower)
    table, fm_best = run_protocol(split)
    assert_table_equals_reference(table, rows)
    assert_best_equals_reference(fm_best, best)
    c_ofo = best["ofo"]["c"]
    np.testing.assert_array_equal(selected_thresholds(split, "ofo", c_ofo),
                                  fits["ofo", c_ofo]["theta"])
    test_f = {m: best[m]["test_macro_f"] for m in METHODS}
    gap = {m: best[m]["valid_macro_f"] - best[m]["test_macro_f"] for m in METHODS}
    assert test_f["ofo"] > max(test_f["fta"], test_f["sto"])
    assert gap["sto"] > 2 * max(gap["fta"], gap["ofo"])
    assert min(test_f.values()) > 2 * best["fixed"]["test_macro_f"]
    # shared threshold on a grid of 0.01
    grid = np.round(np.arange(0.01, 0.2, 0.01), 2)
    scan = shared_threshold_scan(split, grid)
    for col, P in (("valid_macro_f", Pv), ("test_macro_f", Pt)):
        ref = [ref_macro(P, np.maximum(t, lower)) for t in grid]
        np.testing.assert_allclose(scan[col], ref, rtol=0, atol=MACRO_TOL)
    # Precision@k of the PLT on the test packages, counted by hand
    topk = split.model.predict_topk(X[test], k=5)
    labels = np.asarray(topk.labels)
    Yt = Y[test].toarray() != 0
    hits = np.take_along_axis(Yt, np.maximum(labels, 0), axis=1) & (labels >= 0)
    pk = precision_at_k(Y[test], topk, k=(1, 3, 5))
    for k in (1, 3, 5):
        assert abs(pk[k] - hits[:, :k].sum() / (k * len(test))) <= 1e-15
    marg = split.model.predict_marginals(X[test])
    kth = -np.sort(-marg, axis=1)[:, 4]
    top_scores = np.take_along_axis(marg, labels, axis=1)
    assert (top_scores >= kth[:, None] - 1e-12).all()
