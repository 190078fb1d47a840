"""Does a logistic fit have a finite maximum-likelihood estimate?  Pure functions on ndarrays.

R's ``glm.fit`` flags separation when fitted probabilities reach 0 or 1 numerically (within
10 eps).  Under quasi-complete separation, and in small samples, IRLS usually stops first, by
its relative-deviance rule: n = 2 stops with fitted values 6e-11 and 1, a factor level of
Adult with 51 negatives and no positive with an intercept of -18.9 (fitted 8e-8), and
nothing is flagged.  Two facts decide it instead:

* **the Newton step at the stopping point** (:func:`newton_reach`).  At a finite maximum the
  next Newton step is ~0 (1e-9 on Titanic and Adult); along a direction of separation the
  log-likelihood is a sum of terms log(1 + e^-t), on which Newton moves t by ~1 per step
  however far it is: the rows being separated have s_i x_i' step ~ 1 (s = +1 for y = 1, -1
  for y = 0).  A move of more than :data:`NEWTON_REACH` (0.5) on some row is the screen;
* **the linear programme of Konis (2007; R's ``detectseparation``)** (:func:`no_finite_mle`),
  the exact test: the MLE is infinite iff some direction b != 0 has s_i x_i'b >= 0 for every
  row with a certain label, x_i'b = 0 for rows with a probabilistic label 0 < y < 1, and a
  strict inequality somewhere.  It confirms the screen (a loose ``tol`` can leave a large
  Newton step without separation); designs with more than :data:`LP_MAX_ENTRIES` entries
  trust the screen, whose two outcomes (~1 and ~0) are far apart.

:func:`zero_count_cells` names the cells of factor terms that hold one class only (each is a
separating direction by itself), for the warning.  Used by :mod:`fmstats.glm._irls` (every
unpenalised fit) and :mod:`fmstats.resampling` (bootstrap replicates).
"""
from __future__ import annotations

import numpy as np

from .._utils.validation import warn
from ..exceptions import ConvergenceWarning, SeparationWarning

__all__ = ["no_finite_mle", "newton_reach", "zero_count_cells", "saturated_rows",
           "NEWTON_REACH", "LP_MAX_ENTRIES", "SATURATION", "warn_fit"]

#: A row whose linear predictor the Newton step at the stopping point still moves by this much
#: towards its label marks a suspected separation (separated rows: ~1; a finite MLE: ~0).
NEWTON_REACH = 0.5
#: Designs with more entries (rows x columns) than this skip the linear programme and trust
#: the Newton screen (the LP at 32561 x 19, Adult, takes ~0.8 s).
LP_MAX_ENTRIES = 5_000_000


#: A fitted probability this close to 0 or 1 gives its row a working weight mu (1 - mu) below
#: it: the row has left the information matrix (a "saturated" row of a sharp model).
SATURATION = 1e-8


def saturated_rows(mu: np.ndarray, w: np.ndarray, eps: float = SATURATION) -> int:
    """Rows with positive weight whose fitted probability is within ``eps`` of 0 or 1.

    Parameters
    ----------
    mu : ndarray of shape (n,)
        The fitted probabilities.
    w : ndarray of shape (n,)
        The prior weights.
    eps : float, default SATURATION
        The distance from 0 or 1.

    Returns
    -------
    int
        The number of rows.
    """
    mu = np.asarray(mu, dtype=float)
    return int(np.count_nonzero((np.asarray(w) > 0) & (np.minimum(mu, 1 - mu) < eps)))


def newton_reach(X: np.ndarray, y: np.ndarray, w: np.ndarray, mu: np.ndarray,
                 xtwx_inv: np.ndarray) -> np.ndarray:
    """s_i x_i' step of the Newton step step = (X'WX)^-1 X'w(y - mu) at fitted values ``mu``:
    how far it moves each row's linear predictor towards its label (s = +1 for y = 1, -1 for
    y = 0; 0 for rows with zero weight or a probabilistic label)."""
    step = xtwx_inv @ (X.T @ (w * (y - mu)))
    move = X @ step
    s = np.where(y == 1, 1.0, np.where(y == 0, -1.0, 0.0))
    return np.where(w > 0, s * move, 0.0)


def no_finite_mle(X: np.ndarray, y: np.ndarray, w: np.ndarray, tol: float = 1e-7) -> bool:
    """True when the weighted logistic likelihood of (X, y) has no finite maximiser.

    Maximises sum_i s_i x_i'b subject to s_i x_i'b >= 0 (certain labels), x_i'b = 0
    (probabilistic labels) over the box [-1, 1]^p, with the columns scaled to a largest
    absolute value of 1; a positive optimum is a direction of separation.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.
    y : ndarray of shape (n,)
        The response as proportions in [0, 1].
    w : ndarray of shape (n,)
        The prior weights (rows of weight 0 are left out).
    tol : float, default 1e-7
        The optimum counted as positive.

    Returns
    -------
    bool
        True when the data are separated.
    """
    from scipy.optimize import linprog

    active = np.asarray(w) > 0
    X = _dense(X[active] if _sparse(X) else np.asarray(X, dtype=float)[active])
    y = np.asarray(y, dtype=float)[active]
    if X.shape[0] == 0 or X.shape[1] == 0:
        return False
    scale = np.abs(X).max(axis=0)
    X = X / np.where(scale > 0, scale, 1.0)          # columns on one scale: the box is fair
    certain = (y == 0) | (y == 1)
    if not certain.any():
        return False
    S = np.where(y[certain] == 1, 1.0, -1.0)[:, None] * X[certain]
    A_eq = X[~certain] if (~certain).any() else None
    res = linprog(-S.sum(axis=0), A_ub=-S, b_ub=np.zeros(S.shape[0]), A_eq=A_eq,
                  b_eq=None if A_eq is None else np.zeros(A_eq.shape[0]), bounds=(-1, 1),
                  method="highs")
    return bool(res.status == 0 and -res.fun > tol * max(1.0, S.shape[0]))


def _sparse(X) -> bool:
    from scipy import sparse

    return sparse.issparse(X)


def _dense(X) -> np.ndarray:
    """A scipy.sparse design as an array (its size is bounded by :data:`LP_MAX_ENTRIES`, or
    it is one term's columns)."""
    return np.asarray(X.toarray(), dtype=float) if _sparse(X) else X


def separated(X: np.ndarray, y: np.ndarray, w: np.ndarray, reach: np.ndarray) -> bool:
    """The decision of the module docstring: the Newton screen, confirmed by the LP when the
    design is small enough for it."""
    if not np.any(reach > NEWTON_REACH):
        return False
    if X.shape[0] * X.shape[1] > LP_MAX_ENTRIES:
        return True
    return no_finite_mle(X, y, w)


def zero_count_cells(X: np.ndarray, y: np.ndarray, w: np.ndarray, terms) -> list[str]:
    """The cells of factor terms holding rows of one class only, described for a warning.

    ``terms`` are ``(label, columns, names)``: a term's label, the positions of its columns in
    X and their names.  A term whose columns are 0/1 with at most one 1 per row is a factor
    (or an interaction of factors): each column is a cell, and, when X has a column of ones,
    so are the rows where all are 0 (the reference level of a main effect).  A cell whose
    active rows are all negative (or all positive) makes the MLE infinite.
    """
    active = w > 0
    if not active.any():
        return []
    # (no copy of the design when every row is active, the usual case: 19 MB on Adult)
    Xa, ya, wa = (X, y, w) if active.all() else (X[active], y[active], w[active])
    if _sparse(Xa):     # a scipy.sparse design: one term's columns densified at a time
        Xa = Xa.tocsc()
        n_ones = np.asarray((Xa == 1.0).sum(axis=0)).ravel()
    else:
        n_ones = np.count_nonzero(Xa == 1.0, axis=0)
    ones = next((j for j in range(X.shape[1]) if n_ones[j] == Xa.shape[0]), None)
    out = []
    for label, cols, names in terms:
        cols = list(cols)
        if not cols or (ones is not None and ones in cols):
            continue
        sub = _dense(Xa[:, cols])
        if not np.all((sub == 0) | (sub == 1)) or np.any(sub.sum(axis=1) > 1):
            continue
        cells = [(f"'{nm}'", sub[:, k] == 1) for k, nm in enumerate(names)]
        if ones is not None and ":" not in label:
            cells.append((f"'{label}' at its reference level", sub.sum(axis=1) == 0))
        for what, rows in cells:
            k = int(np.count_nonzero(rows))
            if k == 0:
                continue
            pos = float(np.dot(wa[rows], ya[rows]))
            neg = float(np.dot(wa[rows], 1 - ya[rows]))
            if pos == 0 or neg == 0:
                out.append(f"{what} (no {'positives' if pos == 0 else 'negatives'} among its "
                           f"{k} rows)")
    return out


def warn_fit(converged: bool, separated: bool, n_separated: int, iterations: int, tol: float,
             max_iter: int, *, how: str = "fitted", cells=(), closest: float = 0.0) -> None:
    """The :class:`ConvergenceWarning` / :class:`SeparationWarning` of a finished fit.

    ``how`` is ``"fitted"`` (fitted probabilities numerically 0 or 1, R's rule) or ``"no
    finite MLE"`` (found by :mod:`fmstats.glm._separation` at a fit that met its stopping
    rule); ``cells`` names factor cells holding one class only, ``closest`` is the fitted
    probability closest to 0 or 1.
    """
    if not converged and not separated:
        warn(
            f"IRLS did not converge in {max_iter} iterations (last relative deviance "
            f"change above tol={tol:g}). Increase `max_iter`, check for separation, or "
            "add a ridge penalty (`penalty=`).",
            ConvergenceWarning,
        )
    if not separated:
        return
    if how == "no finite MLE":
        what = (f"the data are (quasi-)separated: the likelihood has no finite maximum, "
                f"although IRLS {'met its stopping rule' if converged else 'stopped'} with "
                f"fitted probabilities as close as {closest:.2g} to 0 or 1; a direction of the "
                f"coefficients fits {n_separated} row(s) ever better (Konis's linear programme "
                "confirms it)")
    else:
        what = (f"fitted probabilities numerically 0 or 1 occurred for {n_separated} row(s)"
                + ("" if converged else
                   f" and IRLS stopped unconverged after {iterations} iterations")
                + ": the data are (quasi-)separated")
    cell_text = (f" Factor cells holding one class only: {'; '.join(cells[:5])}"
                 + (f" and {len(cells) - 5} more" if len(cells) > 5 else "") + ".") if cells else ""
    warn(
        f"{what}, so some coefficients drift towards infinity and their standard errors are "
        f"meaningless.{cell_text} Consider a ridge penalty (`penalty=`), removing the "
        "separating predictor, or merging sparse factor levels.",
        SeparationWarning,
    )
