"""Gram matrices, aliasing and the conditioning of a design's columns.

X'WX by BLAS ``syrk`` in blocks of rows (:func:`gram`), R's aliasing rule on it
(:func:`independent_columns`), and the reparametrisation that keeps X'WX well conditioned when
a column is an offset (a large centre) or badly scaled (:class:`ColumnScaling`,
:func:`column_scaling`, :func:`rank_gram`): the linear algebra :mod:`fmstats.glm._irls` and the
row-block and Dask cores share.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, sparse
from scipy.linalg import blas

from .._utils.validation import SPREAD_RANGE as _SPREAD_RANGE
from ..exceptions import DesignError

__all__ = ["GRAM_BLOCK", "gram", "independent_columns", "ColumnScaling", "column_scaling",
           "rank_gram", "SPREAD_RANGE", "column_spread", "intercept_index", "has_intercept"]


#: Rows per block in :func:`gram`: small enough that the scaled block stays in cache-friendly,
#: already-touched memory, large enough that the per-block Python overhead is negligible.
GRAM_BLOCK = 32768


def gram(X: np.ndarray, w: np.ndarray | None = None, block: int = GRAM_BLOCK) -> np.ndarray:
    """X' diag(w) X (w >= 0) by BLAS syrk, accumulated over blocks of rows.

    Each block of sqrt(w) X is written into one reused (block x p) buffer, so the cost in
    memory is O(block p) rather than an n x p temporary (whose first touch alone costs more
    than the arithmetic on large n).  Returned as a full symmetric p x p matrix.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.
    w : ndarray of shape (n,), optional
        Non-negative row weights (None: all 1).
    block : int, default GRAM_BLOCK
        Rows per block.

    Returns
    -------
    ndarray of shape (p, p)
        X' diag(w) X.
    """
    if sparse.issparse(X):         # sparse X: X' diag(w) X as a sparse product, p x p dense
        Xw = X if w is None else sparse.diags(np.asarray(w, dtype=float)) @ X
        return np.asarray((X.T @ Xw).toarray(), dtype=float)
    n, p = X.shape
    syrk = blas.dsyrk if X.dtype == np.float64 else blas.ssyrk
    C = np.zeros((p, p), dtype=X.dtype, order="F")
    sw = None if w is None else np.sqrt(w)
    buf = np.empty((min(block, n), p), dtype=X.dtype)
    for start in range(0, n, block):
        stop = min(start + block, n)
        rows = X[start:stop]
        if sw is None:
            A = rows
        else:
            A = np.multiply(rows, sw[start:stop, None], out=buf[: stop - start])
        # A.T is F-contiguous (p, rows) when A is C-contiguous: syrk accumulates A.T @ A
        At = A.T if A.flags.c_contiguous else np.asfortranarray(A.T)
        C = syrk(1.0, At, beta=1.0, c=C, trans=0, lower=0, overwrite_c=1)
    return np.triu(C) + np.triu(C, 1).T


def independent_columns(G: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """Which columns to keep, in order, given the Gram matrix G = X'WX.

    Mirrors R's limited-pivoting QR (``dqrdc2``): a column is aliased when the
    norm of its residual after projection on the previously kept columns is
    below ``tol`` times its own norm.  Works on the p x p Gram matrix, so its
    cost does not depend on n.

    Parameters
    ----------
    G : ndarray of shape (p, p)
        The Gram matrix X'WX.
    tol : float, default 1e-7
        The relative tolerance of R's ``dqrdc2``.

    Returns
    -------
    ndarray of bool, shape (p,)
        True for a column kept, False for an aliased one.
    """
    p = G.shape[0]
    keep = np.zeros(p, dtype=bool)
    L = np.zeros((p, p))
    k = 0
    idx: list[int] = []
    for j in range(p):
        gjj = G[j, j]
        if gjj <= 0:
            continue
        if k:
            lj = linalg.solve_triangular(L[:k, :k], G[idx, j], lower=True)
            resid = gjj - lj @ lj
        else:
            lj = np.empty(0)
            resid = gjj
        if resid <= (tol ** 2) * gjj:
            continue
        L[k, :k] = lj
        L[k, k] = np.sqrt(resid)
        idx.append(j)
        keep[j] = True
        k += 1
    return keep


#: A design column must spread (largest ``|x - centre|``) within this range (the data
#: validator's rule, :data:`fmstats._utils.validation.SPREAD_RANGE`).
SPREAD_RANGE = _SPREAD_RANGE
#: Centre a column when its centre exceeds this many times its spread (an offset column:
#: X'WX would square the condition number |centre| / spread).
_OFFSET_RATIO = 8.0
#: Scale columns when a spread leaves [2^-64, 2^64] (guards X'WX against over/underflow).
_SCALE_LIMIT = 2.0 ** 64


@dataclass(frozen=True)
class ColumnScaling:
    """The affine reparametrisation X~ = (X - 1 centre') / scale of a design.

    ``centre`` is 0 for the intercept column ``intercept`` (a column of ones, kept as is) and
    for every column when there is none (or the intercept is penalised): then the column space
    of X~ equals that of X and the fit is the same model.  ``scale`` holds powers of two, so
    dividing by it is exact.  With A = (I - e_k centre') diag(1/scale), X~ = X A, so
    coefficients b = A b~ and the inverse information (X'WX)^-1 = A (X~'WX~)^-1 A'.
    """

    centre: np.ndarray
    scale: np.ndarray
    intercept: int | None

    def transform(self, X: np.ndarray) -> np.ndarray:
        """X~ as a new C-contiguous array (the intercept column stays 1); a sparse X (never
        centred) as a sparse CSR matrix."""
        if sparse.issparse(X):
            return (X @ sparse.diags(1.0 / self.scale)).tocsr()
        Xs = np.subtract(X, self.centre)
        Xs *= 1.0 / self.scale
        return Xs

    def matrix(self) -> np.ndarray:
        """A, with b = A b~."""
        A = np.diag(1.0 / self.scale)
        if self.intercept is not None:
            A[self.intercept] -= self.centre / self.scale
            A[self.intercept, self.intercept] = 1.0
        return A

    def to_original(self, coef_s: np.ndarray) -> np.ndarray:
        b = coef_s / self.scale
        if self.intercept is not None:
            k = self.intercept
            b[k] = coef_s[k] - float(np.dot(self.centre, b) - self.centre[k] * b[k])
        return b

    def to_scaled(self, coef: np.ndarray) -> np.ndarray:
        """b~ = A^-1 b: b~_j = scale_j b_j; b~_k = b_k + centre' b."""
        bs = np.asarray(coef, dtype=float) * self.scale
        if self.intercept is not None:
            k = self.intercept
            bs[k] = coef[k] + float(np.dot(self.centre, coef))
        return bs

    def cov_to_original(self, V_s: np.ndarray) -> np.ndarray:
        A = self.matrix()
        V = A @ V_s @ A.T
        return (V + V.T) / 2.0

    def penalty_to_scaled(self, pen: np.ndarray) -> np.ndarray:
        """b' P b = b~' A'PA b~, and A'PA = diag(pen / scale^2) when the intercept is unpenalised."""
        return pen * (1.0 / self.scale) ** 2


def intercept_index(X: np.ndarray) -> int | None:
    """Position of the first column of ones in X (the intercept), or None.  Used here and by
    :mod:`fmstats.glm._dask` to decide where offset columns can be centred."""
    if X.shape[0] == 0:
        return None
    if sparse.issparse(X):
        X = X.tocsc()
        for j in np.flatnonzero(X[0].toarray().ravel() == 1.0):
            col = X[:, j]
            if col.nnz == X.shape[0] and np.all(col.data == 1.0):
                return int(j)
        return None
    for j in np.flatnonzero(X[0] == 1.0):
        if np.all(X[:, j] == 1.0):
            return int(j)
    return None


def column_spread(X: np.ndarray):
    """Per column: the midrange (centre) and half the range (spread), from two reductions."""
    if sparse.issparse(X):
        hi, lo = X.max(axis=0).toarray().ravel(), X.min(axis=0).toarray().ravel()
    else:
        hi, lo = X.max(axis=0), X.min(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        return lo / 2 + hi / 2, hi / 2 - lo / 2


def column_scaling(X: np.ndarray, pen: np.ndarray | None = None, *, force: bool = False,
                   intercept: int | None | str = "find") -> ColumnScaling | None:
    """The reparametrisation that makes X'WX well conditioned, or None when X needs none.

    Columns are centred (only when X has an unpenalised column of ones, so the column space
    is unchanged) if some column's centre exceeds ``_OFFSET_RATIO`` times its spread, and
    scaled to spread ~1 when some spread is far from 1.  ``force`` always builds it.
    ``intercept`` is the column of ones when the caller knows it (X is then a sample of the
    rows); by default it is looked for in X.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design (or a sample of its rows).
    pen : ndarray of shape (p,), optional
        The per-coefficient ridge (a penalised column of ones is not an intercept).
    force : bool, default False
        Build the scaling even when X needs none.
    intercept : int, None or "find", default "find"
        The column of ones (None: there is none; "find": look for it in X).

    Returns
    -------
    ColumnScaling or None
        The reparametrisation, or None.
    """
    n, p = X.shape
    if n == 0 or p == 0:
        return None
    # decided on <= ~4096 evenly spaced rows: any centre and scale near the data's serve (the
    # reparametrisation is exact whatever they are), and a full scan would cost ~4% of a fit
    mid, half = column_spread(X[::max(1, n // 4096)])
    if not (np.all(np.isfinite(mid)) and np.all(np.isfinite(half))):
        bad = int(np.flatnonzero(~(np.isfinite(mid) & np.isfinite(half)))[0])
        raise DesignError(f"column {bad} of the design has non-finite values or a range that "
                          "overflows double precision; rescale it.")
    offset = (np.abs(mid) > _OFFSET_RATIO * half) & (half > 0)
    if sparse.issparse(X):
        offset[:] = False                  # centring would fill every zero of a sparse X
    k = (intercept_index(X) if intercept == "find" else intercept) if offset.any() or force \
        else None
    if k is not None and pen is not None and pen[k] > 0:
        k = None                       # a penalised intercept: centring would change the penalty
    if k is not None:
        offset[k] = False
    centring = k is not None and bool(offset.any())
    spread = np.where(half > 0, half, np.abs(mid))
    spread = np.where(spread > 0, spread, 1.0)
    if centring:
        centre = np.where(offset, mid, 0.0)
        centre[k] = 0.0
        spread = np.where(offset & (half > 0), half, spread)
    else:
        centre = np.zeros(p)
        spread = np.maximum(np.abs(mid), half)
        spread = np.where(spread > 0, spread, 1.0)
    scaling = bool(np.any((spread > _SCALE_LIMIT) | (spread < 1.0 / _SCALE_LIMIT)))
    if not (centring or scaling or force):
        return None
    scale = np.exp2(np.round(np.log2(spread)))
    if k is not None:
        scale[k] = 1.0
    return ColumnScaling(centre=centre, scale=scale, intercept=k if centring else None)


def rank_gram(X: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """The Gram matrix to decide aliasing on: X'WX, or X~'WX~ of :func:`column_scaling` when
    X has offset or badly scaled columns (their Gram matrix would lose them to rounding).

    :func:`independent_columns` on it tests each column against the earlier ones relative to
    its own (centred) norm; centring keeps the column space when X has an intercept.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.
    w : ndarray of shape (n,), optional
        Non-negative row weights (None: all 1).

    Returns
    -------
    ndarray of shape (p, p)
        The Gram matrix (of the rescaled columns when X needs rescaling).
    """
    sc = column_scaling(X)
    if sc is None:
        return gram(X, w)
    if sparse.issparse(X):
        return gram(sc.transform(X), w)
    G = np.zeros((X.shape[1], X.shape[1]))
    sw = None if w is None else np.sqrt(w)
    for start in range(0, X.shape[0], GRAM_BLOCK):
        A = sc.transform(X[start:start + GRAM_BLOCK])
        if sw is not None:
            A *= sw[start:start + GRAM_BLOCK, None]
        G += A.T @ A
    return G


def has_intercept(X: np.ndarray) -> bool:
    """Whether the column space of X contains the constant (checked on a column of ones).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The design.

    Returns
    -------
    bool
        True when X has a column of ones.
    """
    return intercept_index(X) is not None
