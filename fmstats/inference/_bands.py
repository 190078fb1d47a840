"""Pointwise bands of the F-versus-threshold curve: the delta method (every cut at once, from
cumulative sums), the bootstrap, and the profile likelihood of the confusion multinomial.

At a cut "positive iff score >= t" the rows split into predicted positives and negatives.
The delta-method variance of F (frequency weights, probabilistic labels y in [0, 1], see
``_units.py``) is sum_i w_i r_i^2 / D^2 with

* r_i = y_i (1 - F) - alpha F (1 - y_i) for a predicted positive,
* r_i = -(1 - alpha) F y_i for a predicted negative,

so it needs, over the predicted positives, the sums of w y^2, w y (1 - y) and w (1 - y)^2,
and over the negatives that of w y^2: cumulative sums in the order of the scores.
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from ._percentile import tail_quantiles

__all__ = ["delta_band", "bootstrap_band", "profile_band", "profile_f_interval", "pr_region",
           "pr_statistic"]


def delta_band(y, s, w, alpha: float, level: float, thresholds) -> dict:
    """F, its delta-method SE and pointwise interval at each threshold (rule s >= t).

    Parameters
    ----------
    y : numpy.ndarray
        The 0/1 (or probability) labels.
    s : numpy.ndarray
        The scores.
    w : numpy.ndarray
        The rows' weights.
    alpha : float
        The F-measure's weight on precision.
    level : float
        The confidence level of the pointwise intervals.
    thresholds : array-like
        The thresholds t of the rules s >= t.

    Returns
    -------
    dict
        Arrays ``f``, ``se``, ``low``, ``high`` (``low``/``high`` clipped to [0, 1]) aligned
        with ``thresholds``.
    """
    y, s, w = (np.asarray(v, dtype=float) for v in (y, s, w))
    t = np.asarray(thresholds, dtype=float)
    order = np.argsort(-s, kind="stable")
    yo, wo = y[order], w[order]

    def cum(v):
        return np.r_[0.0, np.cumsum(wo * v)]

    k = np.searchsorted(-s[order], -t, side="right")        # rows with s >= t
    tp, pp = cum(yo)[k], cum(np.ones_like(yo))[k]
    y2, y1m, m2 = cum(yo * yo)[k], cum(yo * (1 - yo))[k], cum((1 - yo) ** 2)[k]
    tot_y, tot_y2 = cum(yo)[-1], cum(yo * yo)[-1]
    fp, fn = pp - tp, tot_y - tp
    D = tp + alpha * fp + (1 - alpha) * fn
    ok = D > 0
    F = np.where(ok, tp / np.where(ok, D, 1.0), 1.0)
    S = (y2 * (1 - F) ** 2 - 2 * alpha * F * (1 - F) * y1m + alpha ** 2 * F ** 2 * m2
         + (1 - alpha) ** 2 * F ** 2 * (tot_y2 - y2))
    se = np.where(ok, np.sqrt(np.maximum(S, 0.0)) / np.where(ok, D, 1.0), 0.0)
    z = stats.norm.ppf(0.5 + level / 2)
    return {"f": F, "se": se, "low": np.clip(F - z * se, 0, 1), "high": np.clip(F + z * se, 0, 1)}


# ------------------------------------------------------------------ bootstrap and profile
def _cut_order(s: np.ndarray):
    """The order of the scores (descending) and the last position of each tie group."""
    order = np.argsort(-s, kind="stable")
    so = s[order]
    last = np.flatnonzero(np.r_[so[1:] != so[:-1], True])
    return order, so[last], last


def bootstrap_band(y, s, w, alpha: float, level: float, B: int, rng, chunk: int = 2_000_000):
    """Percentile bands of F, precision and recall at every distinct score (rule s >= t),
    from ``B`` case-bootstrap replicates of the rows (frequency weights ``w``), and the
    replicates' F-optimal thresholds (ties: the highest threshold, as ``best_row``)."""
    y, s, w = (np.asarray(v, dtype=float) for v in (y, s, w))
    order, t, last = _cut_order(s)
    yo, wo = y[order], w[order]
    total = w.sum()
    N = max(int(round(total)), 1)
    probs = wo / total
    step = max(1, chunk // max(y.size, 1))
    f_all, p_all, r_all, best = [], [], [], []
    for start in range(0, B, step):
        b = min(step, B - start)
        W = rng.multinomial(N, probs, size=b).astype(float)
        tp = np.cumsum(W * yo, axis=1)[:, last]
        pp = np.cumsum(W, axis=1)[:, last]
        pos = (W * yo).sum(axis=1, keepdims=True)             # (b, 1) positives
        fp, fn = pp - tp, pos - tp
        D = tp + alpha * fp + (1 - alpha) * fn
        F = np.divide(tp, D, out=np.ones_like(D), where=D > 0)
        P = np.divide(tp, pp, out=np.ones_like(pp), where=pp > 0)
        R = np.divide(tp, pos, out=np.ones_like(tp), where=np.broadcast_to(pos, tp.shape) > 0)
        top = F.max(axis=1, keepdims=True)
        near = F >= top - 1e-12 * np.maximum(1.0, np.abs(top))      # TIE_RTOL
        best.append(t[np.argmax(near, axis=1)])
        f_all.append(F)
        p_all.append(P)
        r_all.append(R)
    out = {"threshold": t}
    for name, arr in (("f", f_all), ("precision", p_all), ("recall", r_all)):
        lo, hi = tail_quantiles(np.concatenate(arr), level, axis=0)
        out[f"{name}_low"], out[f"{name}_high"] = lo, hi
    return out, np.concatenate(best)


def _profile_loglik(c: np.ndarray, f: np.ndarray, alpha: float, iters: int = 80) -> np.ndarray:
    """Profile log-likelihood of F = f for multinomial counts c (T, 4) = tp, fp, fn, tn.

    Maximises sum c log p subject to F(p) = f, i.e. sum g p = 0 with g = (1 - f, -alpha f,
    -(1 - alpha) f, 0): p_k = c_k / (n + mu g_k) with mu the root of sum c g / (n + mu g)
    (decreasing in mu; bisection).  -inf where no p gives F = f.
    """
    n = c.sum(axis=1)
    g = np.stack([1 - f, -alpha * f, -(1 - alpha) * f, np.zeros_like(f)], axis=1)
    has = c > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds = -n[:, None] / g                                  # n + mu g = 0
    lo = np.max(np.where(has & (g > 0), bounds, -np.inf), axis=1)
    hi = np.min(np.where(has & (g < 0), bounds, np.inf), axis=1)
    feasible = np.isfinite(lo) & np.isfinite(hi) | ~(has & (g != 0)).any(axis=1)
    # no positive g with a count (TP = 0 and f < 1) or no negative one: only the boundary
    lo = np.where(np.isfinite(lo), lo, np.where(np.isfinite(hi), hi - 1e6 * n, -n))
    hi = np.where(np.isfinite(hi), hi, lo + 1e6 * n)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        den = n[:, None] + mid[:, None] * g
        h = np.sum(np.where(has, c * g / np.where(den > 0, den, 1.0), 0.0), axis=1)
        up = h > 0
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    mu = 0.5 * (lo + hi)
    den = n[:, None] + mu[:, None] * g
    p = np.where(has, c / np.where(den > 0, den, 1.0), 0.0)
    with np.errstate(divide="ignore"):
        ll = np.sum(np.where(has, c * np.log(np.where(has, p, 1.0)), 0.0), axis=1)
    # the constraint must hold at the root (it does not when no feasible mu exists)
    resid = np.abs(np.sum(g * p, axis=1))
    ll = np.where(feasible & (resid < 1e-6), ll, -np.inf)
    # boundary optima, where the cells that must carry the constraint have no count: p of the
    # empty cell is set by the constraint and the others maximise sum c log p subject to
    # sum a p = 1, i.e. p_k = c_k / (n a_k)
    def weighted(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sum(np.where(has, c * np.log(np.where(has, c / (n[:, None] * a), 1.0)),
                                   0.0), axis=1)

    interior = (f > 0) & (f < 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = f / (1 - f)
        a_tp0 = np.stack([np.ones_like(f), 1 + alpha * k, 1 + (1 - alpha) * k,
                          np.ones_like(f)], axis=1)
        a_err0 = np.stack([1 + (1 - f) / (f * max(alpha, 1 - alpha)), np.ones_like(f),
                           np.ones_like(f), np.ones_like(f)], axis=1)
    no_tp = ~has[:, 0] & (interior | (f == 0))
    no_err = ~has[:, 1] & ~has[:, 2] & (interior | (f == 1))
    ll = np.where(no_tp, weighted(np.where(np.isfinite(a_tp0), a_tp0, 1.0)), ll)
    ll = np.where(no_err, weighted(np.where(np.isfinite(a_err0), a_err0, 1.0)), ll)
    return ll


def profile_f_interval(counts, alpha: float, level: float, iters: int = 50):
    """Profile-likelihood interval of F for each row of ``counts`` (T, 4): the F values whose
    likelihood-ratio statistic 2 (l_hat - l(f)) is at most the chi-square(1) quantile."""
    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lhat = np.sum(np.where(c > 0, c * np.log(np.where(c > 0, c / n[:, None], 1.0)), 0.0),
                      axis=1)
    D = c[:, 0] + alpha * c[:, 1] + (1 - alpha) * c[:, 2]
    F = np.divide(c[:, 0], D, out=np.ones_like(D), where=D > 0)
    crit = stats.chi2.ppf(level, 1)

    def inside(f):
        return 2 * (lhat - _profile_loglik(c, f, alpha)) <= crit

    ends = []
    for target in (0.0, 1.0):
        a, b = np.full_like(F, target), F.copy()          # a outside (or the bound), b inside
        ok_a = inside(a)
        for _ in range(iters):
            mid = 0.5 * (a + b)
            ins = inside(mid)
            a, b = np.where(ins, a, mid), np.where(ins, mid, b)
        ends.append(np.where(ok_a, target, 0.5 * (a + b)))
    return F, ends[0], ends[1]


def _cut_counts(y, s, w):
    """The distinct scores (descending) and (T, 4) counts tp, fp, fn, tn of "s >= t"."""
    y, s, w = (np.asarray(v, dtype=float) for v in (y, s, w))
    order, t, last = _cut_order(s)
    yo, wo = y[order], w[order]
    tp = np.cumsum(wo * yo)[last]
    fp = np.cumsum(wo * (1 - yo))[last]
    pos, neg = np.sum(wo * yo), np.sum(wo * (1 - yo))
    return t, np.column_stack([tp, fp, pos - tp, neg - fp])


def profile_band(y, s, w, alpha: float, level: float) -> dict:
    """The profile-likelihood interval of F at every distinct score (rule s >= t); 0/1
    labels, frequency weights (the multinomial of the confusion cells)."""
    t, counts = _cut_counts(y, s, w)
    F, lo, hi = profile_f_interval(np.maximum(counts, 0.0), alpha, level)
    return {"threshold": t, "f_low": lo, "f_high": hi}


def pr_statistic(counts, P, R) -> np.ndarray:
    """2 (l_hat - l(P, R)), the profile likelihood-ratio statistic of the precision-recall point
    (P, R) (arrays of G points) for each row of ``counts`` (T, 4) = tp, fp, fn, tn: (G, T).
    The closed form is in :func:`pr_region`; it equals the ``mmu`` package's
    ``PrecisionRecallUncertainty.compute_score_for`` (tests/reference/mmu_pr_profile.csv)."""
    c = np.asarray(counts, dtype=float)
    tp, fp, fn, tn = c.T
    n = c.sum(axis=1)
    S = tp + fp + fn
    P, R = np.asarray(P, dtype=float)[:, None], np.asarray(R, dtype=float)[:, None]

    def xlogy(a, b):
        return np.where(a > 0, a * np.log(np.where(a > 0, b, 1.0)), 0.0)

    with np.errstate(divide="ignore", invalid="ignore"):
        k = 1 / P + 1 / R - 1
        ll = (xlogy(S, S / (k * n)) + xlogy(fp, (1 - P) / P) + xlogy(fn, (1 - R) / R)
              + xlogy(tn, tn / n))
        lhat = xlogy(tp, tp / n) + xlogy(fp, fp / n) + xlogy(fn, fn / n) + xlogy(tn, tn / n)
    return 2 * (lhat - ll)


def pr_region(y, s, w, level: float, grid: int = 201, max_cuts: int = 300):
    """The profile-likelihood confidence region of a precision-recall curve (Urlus et al.
    2023, the ``mmu`` package's curve uncertainty).

    At a cut with counts (TP, FP, FN, TN) the multinomial likelihood profiled over the
    nuisance parameter at precision P and recall R has the closed form (p_TP = x, p_FP =
    x (1 - P)/P, p_FN = x (1 - R)/R maximised at x = S / (c n), c = 1/P + 1/R - 1,
    S = TP + FP + FN)

        l(P, R) = S log(S / (c n)) + FP log((1 - P)/P) + FN log((1 - R)/R) + TN log(TN / n),

    and 2 (l_hat - l(P, R)) is asymptotically chi-square with 2 degrees of freedom.  The
    region of the curve is where the smallest statistic over the cuts (at most ``max_cuts``,
    evenly spread over the curve) is within the chi-square(2) quantile at ``level``.

    Returns
    -------
    (recall grid, precision grid, statistic (grid x grid), critical value)
    """
    t, counts = _cut_counts(y, s, w)
    keep = np.unique(np.linspace(0, t.size - 1, min(max_cuts, t.size)).round().astype(int))
    tp, fp, fn, tn = np.maximum(counts[keep], 0.0).T
    r = np.linspace(0.0, 1.0, grid)[1:-1]
    p = np.linspace(0.0, 1.0, grid)[1:-1]
    R, P = np.meshgrid(r, p)                          # rows: precision, columns: recall
    stat = pr_statistic(np.column_stack([tp, fp, fn, tn]), P.ravel(), R.ravel())
    stat = stat.min(axis=1).reshape(p.size, r.size)
    return r, p, stat, float(stats.chi2.ppf(level, 2))
