"""The sampling units behind every F interval: their F, its delta-method variance, and its
bootstrap replicates and Bayes posterior draws.

A data set of n rows with truth ``Y`` and the predictions ``P_s`` of one or two classifiers
(s = a, b) is held as K *units* with multiplicities ``c`` (frequency weights):

* cell units (0/1 labels): the distinct combinations of (truth, predictions) -- the 4 cells
  of a 2x2 confusion table, the 8 of two paired classifiers, the r x r table of single-label
  multiclass data given as one-hot label matrices (Takahashi et al. 2022's setting) -- with
  their (weighted) counts; the multinomial of the rows is the multinomial of the cells, so
  every method below gives the same numbers on rows and on cells;
* row units otherwise (probabilistic labels, multi-label matrices): one unit per row,
  ``c`` the row's weight.

Every unit contributes to each label j: tp = y p, fp = (1 - y) p, fn = y (1 - p); with
totals T = sum c tp, the F of label j is T_j / D_j with D_j = alpha Pt_j + (1 - alpha) Yt_j
(Pt, Yt the totals of p and y), ``zero_division`` where D_j = 0.

Delta method (Takahashi et al. 2022, generalised to F_beta and to frequency weights).  F is a
smooth function of the multinomial cell probabilities, homogeneous of degree 0, so the delta
method's g' (diag(p) - p p') g / n reduces to the sum over units of c_k L_k^2 with the
linearisation (influence) of a unit

    L_k = (1/m) sum_j (tp_kj - F_j d_kj) / D_j,   d = alpha p + (1 - alpha) y,

(m = 1 for binary and micro F, whose units are first summed over labels; labels with D_j = 0
contribute nothing).  For 0/1 binary data this is Takahashi's
Var(F1) = F1^2 (1 - F1)(2 - F1) / (2 n p_11) at beta = 1.  A difference of two classifiers'
F on the same units has L_a - L_b.

Bootstrap: N = round(sum c) units drawn with probabilities c / sum c (a case bootstrap of the
rows, frequency weights counting as repeated rows).  Bayes (Goutte & Gaussier 2005): the
posterior of the cell probabilities is Dirichlet(c + lambda); F is homogeneous of degree 0,
so independent Gamma(c_k + lambda) variates stand in for the Dirichlet draw.  Row units get
no prior (the Bayesian bootstrap, Rubin 1981: Gamma(c_k) per row).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["Units", "binary_units", "matrix_units"]

#: Largest number of (draw x unit) weights held at once by the Monte-Carlo methods.
CHUNK = 2_000_000


def _times(W: np.ndarray, M) -> np.ndarray:
    """W (B, K) @ M (K, m), M dense or sparse -> dense (B, m)."""
    if sp.issparse(M):
        return np.asarray((M.T @ W.T).T, dtype=float)
    return np.asarray(W @ M, dtype=float)


def _dot(M, v: np.ndarray) -> np.ndarray:
    """M (K, m) @ v (m,) -> (K,)."""
    return np.asarray(M @ v, dtype=float).ravel()


@dataclass(frozen=True)
class Units:
    """Units with multiplicities ``c``, truth ``Y`` (K, m) and predictions ``P`` (one (K, m)
    matrix per classifier); ``cells`` says whether they are cell units (a prior applies)."""

    c: np.ndarray
    Y: object
    P: tuple
    cells: bool
    alpha: float
    zero_division: float
    macro: bool

    @property
    def m(self) -> int:
        return self.Y.shape[1]

    def _tp(self, s: int):
        P = self.P[s]
        return self.Y.multiply(P) if sp.issparse(self.Y) or sp.issparse(P) else self.Y * P

    # -------------------------------------------------------------- F of weighted totals
    def f_of(self, T: np.ndarray, Pt: np.ndarray, Yt: np.ndarray) -> np.ndarray:
        """F (averaged over labels for macro) of totals of shape (B, m) -> (B,)."""
        D = self.alpha * Pt + (1.0 - self.alpha) * Yt
        F = np.divide(T, D, out=np.full(D.shape, self.zero_division), where=D > 0)
        return F.mean(axis=1)

    def estimate(self, s: int = 0) -> float:
        w = self.c[None, :]
        return float(self.f_of(_times(w, self._tp(s)), _times(w, self.P[s]),
                               _times(w, self.Y))[0])

    def totals(self, s: int = 0):
        w = self.c[None, :]
        return (_times(w, self._tp(s))[0], _times(w, self.P[s])[0], _times(w, self.Y)[0])

    # -------------------------------------------------------------- delta method
    def influence(self, s: int = 0) -> np.ndarray:
        """L_k of every unit (see the module notes), shape (K,)."""
        T, Pt, Yt = self.totals(s)
        D = self.alpha * Pt + (1.0 - self.alpha) * Yt
        ok = D > 0
        inv = np.where(ok, 1.0 / np.where(ok, D, 1.0), 0.0)
        F = np.where(ok, T * inv, 0.0)
        dm = self.alpha * self.P[s] + (1.0 - self.alpha) * self.Y
        return (_dot(self._tp(s), inv) - _dot(dm, F * inv)) / self.m

    def delta_se(self, contrast: bool = False) -> float:
        """SE of F (or of F_a - F_b with ``contrast``) by the delta method."""
        L = self.influence(0) - self.influence(1) if contrast else self.influence(0)
        return float(np.sqrt(self.c @ (L * L)))

    # -------------------------------------------------------------- Monte Carlo
    def draws(self, kind: str, B: int, rng: np.random.Generator, prior: float,
              contrast: bool = False) -> np.ndarray:
        """B bootstrap replicates (``kind="bootstrap"``) or posterior draws (``"bayes"``)
        of F (or of F_a - F_b)."""
        K = self.c.shape[0]
        total = float(self.c.sum())
        N = max(int(round(total)), 1)
        probs = self.c / total
        shape = self.c + (prior if self.cells else 0.0)
        step = max(1, CHUNK // max(K, 1))
        out = []
        for start in range(0, B, step):
            b = min(step, B - start)
            if kind == "bootstrap":
                W = rng.multinomial(N, probs, size=b).astype(float)
            else:
                W = rng.gamma(np.broadcast_to(shape, (b, K)))
            Yt = _times(W, self.Y)
            f = [self.f_of(_times(W, self._tp(s)), _times(W, self.P[s]), Yt)
                 for s in range(2 if contrast else 1)]
            out.append(f[0] - f[1] if contrast else f[0])
        return np.concatenate(out)


# ------------------------------------------------------------------ building units
def _cell_units(codes: np.ndarray, sizes: tuple, w: np.ndarray):
    """Weighted counts of every combination of the integer codes (n, S+1) in ``sizes``."""
    flat = np.ravel_multi_index(tuple(codes.T), sizes)
    counts = np.bincount(flat, weights=w, minlength=int(np.prod(sizes)))
    combos = np.array(np.unravel_index(np.arange(counts.size), sizes)).T
    return counts, combos


def binary_units(y: np.ndarray, preds: list, w: np.ndarray, alpha: float,
                 zero_division: float) -> Units:
    """Units of binary data: cells when ``y`` is 0/1, rows when it holds probabilities."""
    if np.all((y == 0) | (y == 1)):
        codes = np.column_stack([y] + list(preds)).astype(np.int64)
        c, combos = _cell_units(codes, (2,) * codes.shape[1], w)
        Y = combos[:, :1].astype(float)
        P = tuple(combos[:, s + 1:s + 2].astype(float) for s in range(len(preds)))
        return Units(c, Y, P, True, alpha, zero_division, False)
    keep = w > 0
    return Units(w[keep], y[keep, None], tuple(p[keep, None] for p in preds), False, alpha,
                 zero_division, False)


def _one_hot_codes(M) -> np.ndarray | None:
    """The class of every row when each row of M holds exactly one 1, else None."""
    rows = np.asarray(M.sum(axis=1)).ravel()
    if not np.all(rows == 1):
        return None
    return np.asarray(M.argmax(axis=1)).ravel()


def matrix_units(Y, preds: list, w: np.ndarray, alpha: float, zero_division: float,
                 average: str) -> Units:
    """Units of (n, m) label matrices (dense or sparse) for micro or macro averages."""
    n, m = Y.shape
    classes = [_one_hot_codes(M) for M in [Y] + list(preds)]
    if all(k is not None for k in classes) and m ** len(classes) <= max(64, n):
        # single-label multiclass data: the r x r (x r) table of cells (Takahashi's setting)
        c, combos = _cell_units(np.column_stack(classes), (m,) * len(classes), w)
        eye = np.eye(m)
        Y = eye[combos[:, 0]]
        P = tuple(eye[combos[:, s + 1]] for s in range(len(preds)))
        units = Units(c, Y, P, True, alpha, zero_division, average == "macro")
    else:
        keep = np.flatnonzero(w > 0)
        units = Units(w[keep], Y[keep], tuple(p[keep] for p in preds), False, alpha,
                      zero_division, average == "macro")
    if average == "micro":
        summed = [np.asarray(M.sum(axis=1), dtype=float).reshape(-1, 1)
                  for M in (units.Y,) + units.P]
        tps = [np.asarray(units._tp(s).sum(axis=1), dtype=float).reshape(-1, 1)
               for s in range(len(units.P))]
        # micro F is the F of label-summed counts: a unit's p and y summed over labels, with
        # tp kept (sum of y p is not (sum y)(sum p)): keep tp exact by a third column trick
        return _MicroUnits(units.c, summed[0], tuple(summed[1:]), units.cells, alpha,
                           zero_division, False, tuple(tps))
    return units


@dataclass(frozen=True)
class _MicroUnits(Units):
    """Units summed over labels: tp is kept per unit (it is not the product of the sums)."""

    TP: tuple = ()

    def _tp(self, s: int):
        return self.TP[s]
