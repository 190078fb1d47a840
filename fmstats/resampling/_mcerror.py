"""How many replicates a bootstrap needs: Monte-Carlo errors, control variates, the stop rule.

A bootstrap quantity computed from B replicates (a standard error, an interval end) has a
Monte-Carlo error that shrinks like 1/sqrt(B); it is the error of the *computation*, not of
the statistics, and B only needs to make it small beside the standard error (Andrews &
Buchinsky 2000 choose B for a stated accuracy the same way).

* **Standard errors** (:func:`covariance`).  Where the model supplies the influence rows psi
  of its estimate, each case-resampling replicate theta*_b has a linear part
  L_b = mean((c_b - 1) psi) whose resampling covariance Sigma_L is known exactly (the
  multinomial counts c_b have covariance I - 11'/n within each stratum).  The covariance is
  estimated by regression on that control variate, coefficient by coefficient (Efron 1990,
  "More efficient bootstrap computations"; Davison & Hinkley 1997, section 9.3):
  theta*_bj = a_j + g_j L_bj + r_bj and V = D Sigma_L D + cov(r) + D cov(L, r) + cov(r, L) D,
  D = diag(g) (the cross terms vanish on the diagonal).  When the
  replicates are nearly linear in the counts (large samples) the residuals are small and a
  few dozen replicates give the covariance to a few per cent; when they are not, g shrinks to
  0 and V is the plain sample covariance.  It is consistent either way.
* **Its Monte-Carlo error** (:func:`se_mc_error`): a delete-a-group jackknife over the
  replicates (20 groups) of the standard error as computed.
* **Interval ends** (:func:`fmstats.inference.quantile_mc_error`): a percentile end is an
  order statistic; its Monte-Carlo standard error is half the distance between the order
  statistics at B a +- sqrt(B a (1 - a)) (the binomial spread of how many replicates fall
  below it).

:func:`enough` is the stop rule: every reported quantity's Monte-Carlo error at most
``mc_tol`` times the standard error of its coefficient.
"""
from __future__ import annotations

import math

import numpy as np

from .._utils.validation import check_scalar
from ..exceptions import InvalidArgumentError
from ..inference import quantile_mc_error

__all__ = ["covariance", "linear_covariance", "se_mc_error", "quantile_mc_error", "enough",
           "check_mc_tol", "next_round", "reported_errors", "JACKKNIFE_GROUPS", "MIN_CHECK",
           "AUTO_MC_TOL"]

#: Groups of the delete-a-group jackknife of the standard errors' Monte-Carlo error.
JACKKNIFE_GROUPS = 20
#: The stop rule is first checked after this many replicates (fewer cannot estimate their
#: own Monte-Carlo error).
MIN_CHECK = 40
#: ``mc_tol="auto"``: stop once every Monte-Carlo error is at most this share of its SE.
AUTO_MC_TOL = 0.05


def linear_covariance(psi: np.ndarray, strata: np.ndarray | None = None) -> np.ndarray:
    """The exact resampling covariance of L = mean((c - 1) psi) for case resampling (within
    ``strata`` when given): sum over strata of (sum psi psi' - n_s psi_s-bar psi_s-bar') / n^2."""
    n = psi.shape[0]
    groups = [np.arange(n)] if strata is None else [np.flatnonzero(strata == s)
                                                    for s in np.unique(strata)]
    V = np.zeros((psi.shape[1], psi.shape[1]))
    for rows in groups:
        P = psi[rows]
        mean = P.mean(axis=0)
        V += P.T @ P - len(rows) * np.outer(mean, mean)
    return V / n ** 2


def covariance(T: np.ndarray, L: np.ndarray | None = None,
               sigma_L: np.ndarray | None = None) -> np.ndarray:
    """The bootstrap covariance of the columns of T (B, p) (finite rows only), by regression
    on the control variates L (B, p) of known covariance ``sigma_L`` when given (module
    notes), else the sample covariance."""
    ok = np.all(np.isfinite(T), axis=1)
    T = T[ok]
    B = T.shape[0]
    if B < 2:
        return np.full((T.shape[1], T.shape[1]), np.nan)
    if L is None or B < 4:
        return np.atleast_2d(np.cov(T, rowvar=False, ddof=1))
    L = L[ok]
    Tc, Lc = T - T.mean(axis=0), L - L.mean(axis=0)
    var_L = np.einsum("bj,bj->j", Lc, Lc)
    g = np.where(var_L > 0, np.einsum("bj,bj->j", Tc, Lc) / np.where(var_L > 0, var_L, 1.0),
                 0.0)
    R = Tc - Lc * g
    cross = (Lc.T @ R) / (B - 1) * g[:, None]     # g_j cov(L_j, r_k): 0 on the diagonal
    return np.outer(g, g) * sigma_L + R.T @ R / (B - 2) + cross + cross.T


def _se(T, L, sigma_L):
    return np.sqrt(np.clip(np.diag(covariance(T, L, sigma_L)), 0.0, None))


def se_mc_error(T: np.ndarray, L: np.ndarray | None = None,
                sigma_L: np.ndarray | None = None, groups: int = JACKKNIFE_GROUPS
                ) -> np.ndarray:
    """Monte-Carlo standard error of each standard error of :func:`covariance`: the
    delete-a-group jackknife over the replicates (``groups`` groups of consecutive ones)."""
    ok = np.all(np.isfinite(T), axis=1)
    T = T[ok]
    L = None if L is None else L[ok]
    B = T.shape[0]
    g = min(groups, B)
    if g < 2:
        return np.full(T.shape[1], np.inf)
    label = np.arange(B) * g // B
    reps = np.array([_se(T[label != k], None if L is None else L[label != k], sigma_L)
                     for k in range(g)])
    return np.sqrt((g - 1) / g * np.sum((reps - reps.mean(axis=0)) ** 2, axis=0))


def enough(errors: np.ndarray, se: np.ndarray, mc_tol: float) -> bool:
    """Whether every Monte-Carlo error is at most ``mc_tol`` times its standard error (NaN
    standard errors -- a statistic without replicates -- do not count)."""
    errors, se = np.asarray(errors, dtype=float), np.asarray(se, dtype=float)
    ok = np.isfinite(se) & (se > 0)
    return bool(np.all(errors[ok] <= mc_tol * se[ok]))


def check_mc_tol(mc_tol, B: int, level: float, ci) -> float | None:
    """The stop rule's tolerance: a number in (0, 1), None, or "auto" (module notes)."""
    if mc_tol is None:
        return None
    need = max(MIN_CHECK, math.ceil(2 * 5 / (1 - level)) if ci is not None else MIN_CHECK)
    if isinstance(mc_tol, str) and mc_tol == "auto":
        return AUTO_MC_TOL if B > need else None
    tol = float(check_scalar("mc_tol", mc_tol, low=0, high=1, low_open=True, high_open=True))
    if B <= need:
        raise InvalidArgumentError(
            f"`mc_tol`={tol:g} asks to stop early, but `B`={B} leaves no room: the rule is "
            f"checked from {need} replicates on (at least {MIN_CHECK}, and 5 in each tail of "
            f"the {100 * level:g}% interval); give B > {need}, or mc_tol=None.")
    return tol


def next_round(done: int, B: int, mc_tol, block: int = 20) -> int:
    """How many replicates the next round adds: all B without a stop rule; else MIN_CHECK,
    then a quarter more each round, in whole ``block`` s of replicates (the engines')."""
    if mc_tol is None:
        return B - done
    step = MIN_CHECK if done == 0 else max(MIN_CHECK // 2, done // 4)
    return min(B - done, -(-step // block) * block)


def reported_errors(values, lin_vals, sigma_L, coef_cols, ci, level):
    """(Monte-Carlo errors, the standard errors they are compared with) of the reported
    quantities: every standard error and, with ``ci``, both ends of every interval."""
    errs, ses = [], []
    cols = np.arange(values.shape[1])
    use_lin = (lin_vals is not None and coef_cols.size == lin_vals.shape[1]
               and np.all(np.isfinite(values[:, coef_cols])))
    for group in ([coef_cols, np.setdiff1d(cols, coef_cols)] if use_lin else [cols]):
        if group.size == 0:
            continue
        T = values[:, group]
        keep = np.all(np.isfinite(T), axis=1)
        L = lin_vals[keep] if (use_lin and group is coef_cols) else None
        S = sigma_L if L is not None else None
        se = np.sqrt(np.clip(np.diag(covariance(T[keep], L, S)), 0.0, None))
        errs.append(se_mc_error(T[keep], L, S))
        ses.append(se)
        if ci is not None:
            a = (1 - level) / 2
            for prob in (a, 1 - a):
                errs.append(np.array([quantile_mc_error(T[:, j], prob) for j in range(T.shape[1])]))
                ses.append(se)
    return np.concatenate(errs), np.concatenate(ses)
