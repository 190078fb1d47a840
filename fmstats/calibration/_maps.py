"""The three calibration maps, pure: fitted on (score, label, weight) arrays, applied to scores.

* **Platt** (sigmoid): p = 1 / (1 + exp(-(a s + b))) fitted by maximum likelihood to Platt's
  smoothed targets t+ = (N+ + 1) / (N+ + 2) and t- = 1 / (N- + 2) (N the weighted class
  totals), as scikit-learn's ``CalibratedClassifierCV(method="sigmoid")``; solved exactly
  by Newton's method.
* **Isotonic**: the weighted least-squares non-decreasing fit of the labels on the distinct
  scores (pool-adjacent-violators, :func:`scipy.optimize.isotonic_regression`; equal scores
  pooled first), interpolated linearly between the distinct scores and clipped outside
  them, as scikit-learn's ``IsotonicRegression(out_of_bounds="clip")``.
* **Beta** (Kull, Silva Filho and Flach, 2017): p = 1 / (1 + exp(-(a log s - b log(1 - s)
  + c))) for scores s in (0, 1), a logistic regression of the label on log s and
  -log(1 - s) with a, b >= 0: when the unconstrained fit gives a < 0 (b < 0) the
  coefficient is fixed at 0 and the model refitted, as the ``betacal`` package does.
  Scores are clipped to [eps, 1 - eps] first.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.special import expit, log_expit

__all__ = ["CalibrationMap", "fit_map", "METHODS"]

METHODS = ("platt", "isotonic", "beta")
_EPS = np.finfo(float).eps


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted calibration map from scores to probabilities.

    Parameters
    ----------
    method : {"platt", "isotonic", "beta"}
        The map.
    coef : ndarray
        Platt: (a, b); beta: (a, b, c); isotonic: the fitted values at ``knots``.
    knots : ndarray, optional
        Isotonic only: the distinct scores, increasing.
    """

    method: str
    coef: np.ndarray
    knots: np.ndarray | None = None

    def __call__(self, s) -> np.ndarray:
        """The calibrated probabilities of scores ``s``."""
        s = np.asarray(s, dtype=float)
        if self.method == "platt":
            a, b = self.coef
            return expit(a * s + b)
        if self.method == "isotonic":
            return np.interp(s, self.knots, self.coef)
        a, b, c = self.coef
        s = np.clip(s, _EPS, 1 - _EPS)
        return expit(a * np.log(s) - b * np.log1p(-s) + c)

    def params(self) -> dict:
        """The named parameters (Platt and beta; the isotonic map has none of fixed size).

        Returns
        -------
        dict
            Parameter name to value.
        """
        if self.method == "platt":
            return {"platt_a": float(self.coef[0]), "platt_b": float(self.coef[1])}
        if self.method == "beta":
            return dict(zip(("beta_a", "beta_b", "beta_c"), map(float, self.coef)))
        return {}


def _logistic(Z: np.ndarray, t: np.ndarray, w: np.ndarray, max_iter: int = 100) -> np.ndarray:
    """Weighted maximum-likelihood logistic regression of (soft) targets t on Z, by Newton
    with step halving (Z has a handful of columns)."""
    coef = np.zeros(Z.shape[1])

    def nll(c):
        eta = Z @ c
        return -float(w @ (t * log_expit(eta) + (1 - t) * log_expit(-eta)))

    cur = nll(coef)
    for _ in range(max_iter):
        p = expit(Z @ coef)
        g = Z.T @ (w * (t - p))
        H = Z.T @ (Z * (w * p * (1 - p))[:, None])
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, g, rcond=None)[0]
        lam = 1.0
        while lam > 1e-10:
            new = nll(coef + lam * step)
            if new <= cur + 1e-12 * abs(cur):
                break
            lam /= 2
        coef, cur = coef + lam * step, new
        if np.max(np.abs(lam * step)) < 1e-12 * (1 + np.max(np.abs(coef))):
            break
    return coef


def _platt(s, y, w) -> np.ndarray:
    n1, n0 = float(w @ y), float(w @ (1 - y))
    t = y * (n1 + 1) / (n1 + 2) + (1 - y) * 1 / (n0 + 2)
    scale = max(1.0, float(np.max(np.abs(s))))    # conditioning only: the optimum is the same
    a, b = _logistic(np.column_stack([s / scale, np.ones_like(s)]), t, w)
    return np.array([a / scale, b])


def _isotonic(s, y, w) -> tuple[np.ndarray, np.ndarray]:
    keep = w > 0
    s, y, w = s[keep], y[keep], w[keep]
    knots, inv = np.unique(s, return_inverse=True)
    ws = np.bincount(inv, weights=w)
    ys = np.bincount(inv, weights=w * y) / ws
    fitted = isotonic_regression(ys, weights=ws, increasing=True).x
    return fitted, knots


def _beta(s, y, w) -> np.ndarray:
    s = np.clip(s, _EPS, 1 - _EPS)
    ls, l1 = np.log(s), -np.log1p(-s)
    one = np.ones_like(s)
    a, b, c = _logistic(np.column_stack([ls, l1, one]), y, w)
    if a < 0:
        b, c = _logistic(np.column_stack([l1, one]), y, w)
        a = 0.0
    elif b < 0:
        a, c = _logistic(np.column_stack([ls, one]), y, w)
        b = 0.0
    return np.array([a, b, c])


def fit_map(method: str, s, y, w=None) -> CalibrationMap:
    """Fit the calibration map ``method`` to scores ``s``, labels ``y`` (0/1, or
    probabilistic labels in [0, 1]) and weights ``w``.

    Parameters
    ----------
    method : {"platt", "isotonic", "beta"}
        The map (see the module notes).
    s : array-like of shape (n,)
        Scores (probabilities in (0, 1) for ``"beta"``).
    y : array-like of shape (n,)
        Labels.
    w : array-like of shape (n,), optional
        Non-negative weights (default 1).

    Returns
    -------
    CalibrationMap
    """
    s, y = np.asarray(s, dtype=float), np.asarray(y, dtype=float)
    w = np.ones_like(s) if w is None else np.asarray(w, dtype=float)
    if method == "platt":
        return CalibrationMap("platt", _platt(s, y, w))
    if method == "isotonic":
        fitted, knots = _isotonic(s, y, w)
        return CalibrationMap("isotonic", fitted, knots)
    return CalibrationMap("beta", _beta(s, y, w))
