"""Sparse probability estimates (SPEs, seed 002 section 4).

An SPE of n instances and m labels keeps, for every instance x and label j,
only the estimate eta(x, j) that exceeds a label threshold tau_j:

    SPE(x) = {(j, eta(x, j)) : eta(x, j) > tau_j}.

It is stored as a scipy.sparse CSR array of shape (n, m) together with the
thresholds tau (one per label).  Conventions used throughout
:mod:`fmstats.extreme`:

* an entry that is not stored has probability 0 for every computation, so it
  is never predicted positive (thresholds lie in [0, 1] and prediction is
  ``eta > theta``, strictly, as in the seed's definition of the SPE and of OFO's
  predictions);
* prediction at thresholds ``theta >= tau`` is exact: it is the prediction the
  full (dense) estimator would make.  Below ``tau_j`` the stored entries no
  longer tell the whole story; functions that would use such thresholds say so
  with a :class:`~fmstats.exceptions.DataWarning`.

:func:`spe_from_scorer` builds an SPE from any dense scorer (a callable
mapping a chunk of rows to an ``(n_chunk, m)`` probability array), chunk by
chunk, so the n x m dense matrix never exists at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import scipy.sparse as sp

from .._utils.progress import progress_bar, progress_enabled
from ..results import Persistable
from .._utils.validation import check_scalar, describe, num, raise_if_any, warn
from ..exceptions import DataError, DataWarning, InvalidArgumentError, ResponseError
from ..measures import label_matrix

__all__ = ["SPE", "as_spe", "check_thresholds", "spe_from_scorer", "iter_spe"]

# dense elements per scorer chunk when ``chunk_size`` is not given (32 MB of float64)
_CHUNK_ELEMENTS = 4_000_000


def float_array(name: str, value: Any, what: str) -> np.ndarray:
    """``value`` as a float array, or an error naming the argument and ``what`` it must be."""
    try:
        return np.asarray(value.toarray() if sp.issparse(value) else value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"`{name}` must be {what}; got {describe(value)} ({exc}).") from None


def per_label(name: str, value: Any, m: int, what: str) -> np.ndarray:
    """A scalar or a length-``m`` vector -> a new float array of shape (m,)."""
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"`{name}` must be {what}; got {value!r}.")
    arr = float_array(name, value, what)
    if arr.ndim == 0:
        return np.full(m, float(arr))
    if arr.shape != (m,):
        raise InvalidArgumentError(
            f"`{name}` must be a scalar or have one value per label ({m}); got shape "
            f"{arr.shape}.")
    return arr.copy()


def check_thresholds(name: str, value: Any, m: int) -> np.ndarray:
    """A scalar or a length-``m`` vector of thresholds in [0, 1] -> float array (m,)."""
    arr = per_label(name, value, m, "a number or an array of numbers in [0, 1]")
    raise_if_any(~(np.isfinite(arr) & (arr >= 0) & (arr <= 1)), InvalidArgumentError,
                 lambda j, k: f"`{name}` must lie in [0, 1]; got {k} value(s) outside, the "
                              f"first for label {j} ({num(arr[j])}).")
    return arr


def _check_no_duplicates(name: str, value: Any) -> None:
    """Raise if a COO/CSR/CSC matrix stores two entries at one (row, label).

    Reads the matrix as given: scipy sums duplicates when it converts to CSR (0.5 and 0.4
    would become one estimate 0.9).  Called only when the conversion lost entries, so the
    sort of the (row, label) keys costs nothing on valid input.
    """
    fmt = value.format
    if fmt not in ("coo", "csr", "csc"):
        return  # other formats cannot hold duplicates
    coo = value.tocoo(copy=False) if fmt != "coo" else value
    row, col = (np.asarray(a, dtype=np.int64) for a in coo.coords)
    if row.size < 2:
        return
    key = row * int(value.shape[1]) + col
    order = np.argsort(key, kind="stable")
    key = key[order]
    same = key[1:] == key[:-1]
    if not same.any():
        return
    first = int(np.flatnonzero(same)[0])
    i, j = int(row[order[first]]), int(col[order[first]])
    k_lo = first
    k_hi = int(np.searchsorted(key, key[first], side="right"))
    values = np.asarray(coo.data)[order[k_lo:k_hi]]
    n_dup = int(same.sum())
    raise DataError(
        f"`{name}` must store at most one probability per (row, label); got {n_dup} "
        f"duplicate entr{'y' if n_dup == 1 else 'ies'}, the first at row {i}, label {j} "
        f"with {values.size} values ({', '.join(num(float(v)) for v in values)}). scipy "
        "would add them up; keep one value per (row, label).")


def _sparse_probabilities(name: str, value: Any) -> sp.csr_array:
    """A 2-d sparse (or dense) matrix of probabilities in [0, 1] -> canonical float CSR."""
    if sp.issparse(value):
        if value.ndim != 2:
            raise InvalidArgumentError(
                f"`{name}` must be a 2-d (n, m) matrix; got a sparse array of shape "
                f"{value.shape}.")
        nnz_in = value.nnz
        mat = sp.csr_array(value, dtype=float, copy=True)
        if not mat.has_canonical_format:
            mat.sum_duplicates()
        if mat.nnz != nnz_in:
            _check_no_duplicates(name, value)   # raises naming the first duplicate
    else:
        dense = float_array(name, value, "a scipy.sparse matrix of probabilities")
        if dense.ndim != 2:
            raise InvalidArgumentError(
                f"`{name}` must be a 2-d (n, m) matrix; got shape {dense.shape}.")
        mat = sp.csr_array(dense)
    n, m = mat.shape
    if m == 0:
        raise DataError(f"`{name}` has an empty label set (shape {mat.shape}); at least one "
                        "label is needed.")
    if n == 0:
        raise DataError(f"`{name}` has no rows (shape {mat.shape}); at least one is needed.")
    if not mat.has_canonical_format:
        mat.sum_duplicates()  # sorts the indices; duplicates were refused above
    data = mat.data
    bad = ~(np.isfinite(data) & (data >= 0) & (data <= 1))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(mat.indptr, k, side="right") - 1)
        raise ResponseError(
            f"`{name}` must hold probabilities in [0, 1]; got {int(bad.sum())} value(s) "
            f"outside, the first at row {row}, label {int(mat.indices[k])} "
            f"({num(data[k])}).")
    return mat


def _keep_above(mat: sp.csr_array, tau: np.ndarray) -> sp.csr_array:
    """Drop the stored entries at or below their label's threshold (no copy if none)."""
    keep = mat.data > tau[mat.indices]
    if keep.all():
        return mat
    # kept entries before each row start (reduceat fails when trailing rows are empty)
    indptr = np.concatenate(([0], np.cumsum(keep)))[mat.indptr].astype(mat.indptr.dtype)
    return sp.csr_array((mat.data[keep], mat.indices[keep], indptr), shape=mat.shape)


@dataclass(frozen=True, init=False, eq=False)
class SPE(Persistable):
    """Sparse probability estimates: a CSR (n, m) array and per-label thresholds.

    Parameters
    ----------
    matrix : scipy.sparse matrix or array of shape (n, m), or a dense 2-d array
        Probability estimates in [0, 1].  Entries at or below their label's
        threshold are dropped (they carry no information above it); duplicate
        (row, label) entries are an error.
    thresholds : float or array of shape (m,), default 0
        Thresholds tau_j in [0, 1]: every estimate above ``tau_j`` is stored, every
        estimate not stored is at most ``tau_j``.

    Attributes
    ----------
    matrix : scipy.sparse.csr_array
        Canonical (sorted indices, no duplicates) float64 CSR array.
    thresholds : ndarray of shape (m,)
        Read-only.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from fmstats.extreme import SPE
    >>> spe = SPE(sp.csr_array(np.array([[0.9, 0.0, 0.3], [0.1, 0.6, 0.0]])), thresholds=0.05)
    >>> spe
    SPE(2 instances x 3 labels, 4 estimates, 2 per instance, thresholds 0.05)
    >>> spe.predict(0.5).toarray()
    array([[1., 0., 0.],
           [0., 1., 0.]])
    """

    matrix: sp.csr_array
    thresholds: np.ndarray

    def __init__(self, matrix: Any, thresholds: Any = 0.0):
        mat = _sparse_probabilities("matrix", matrix)
        tau = check_thresholds("thresholds", thresholds, mat.shape[1])
        mat = _keep_above(mat, tau)
        tau.setflags(write=False)
        object.__setattr__(self, "matrix", mat)
        object.__setattr__(self, "thresholds", tau)

    @classmethod
    def _trusted(cls, matrix: sp.csr_array, thresholds: np.ndarray) -> "SPE":
        """Build without re-validating (the parts come from a validated SPE)."""
        obj = object.__new__(cls)
        thresholds = np.array(thresholds, dtype=float)
        thresholds.setflags(write=False)
        object.__setattr__(obj, "matrix", matrix)
        object.__setattr__(obj, "thresholds", thresholds)
        return obj

    # ------------------------------------------------------------------ basics
    @property
    def shape(self) -> tuple[int, int]:
        """``(n, m)``: rows by labels."""
        return self.matrix.shape

    @property
    def nnz(self) -> int:
        """The number of stored estimates."""
        return int(self.matrix.nnz)

    def __repr__(self) -> str:
        n, m = self.shape
        lo, hi = float(self.thresholds.min()), float(self.thresholds.max())
        tau = num(lo) if lo == hi else f"{num(lo)}..{num(hi)}"
        return (f"SPE({n} instances x {m} labels, {self.nnz} estimates, "
                f"{self.nnz / n:.3g} per instance, thresholds {tau})")

    def toarray(self) -> np.ndarray:
        """The dense (n, m) array with 0 where nothing is stored (small problems only).

        Returns
        -------
        numpy.ndarray
            The dense array, shape (n, m).
        """
        return self.matrix.toarray()

    # ------------------------------------------------------------------ derived SPEs
    def restrict(self, thresholds: Any) -> "SPE":
        """The SPE at higher thresholds (entries at or below them are dropped).

        ``thresholds`` must be at least the current ones for every label: an SPE
        cannot recover estimates it did not store.

        Parameters
        ----------
        thresholds : float or array of shape (m,)
            The new thresholds, in [0, 1] and at least the SPE's own.

        Returns
        -------
        SPE
            The SPE at ``thresholds``.
        """
        m = self.shape[1]
        tau = check_thresholds("thresholds", thresholds, m)
        low = tau < self.thresholds
        if low.any():
            j = int(np.flatnonzero(low)[0])
            raise InvalidArgumentError(
                f"`thresholds` must be at least the SPE's own thresholds; got "
                f"{int(low.sum())} lower value(s), the first for label {j} "
                f"({num(tau[j])} < {num(self.thresholds[j])}).")
        return SPE._trusted(_keep_above(self.matrix, tau), tau)

    def take_rows(self, rows: Any) -> "SPE":
        """The SPE of a subset of instances (a slice, integer indices or a boolean mask).

        Parameters
        ----------
        rows : slice, array of int or array of bool
            The instances to keep; at least one.

        Returns
        -------
        SPE
            Their SPE, at the same thresholds.
        """
        sub = sp.csr_array(self.matrix[rows] if isinstance(rows, slice)
                           else self.matrix[np.asarray(rows)])
        if sub.shape[0] == 0:
            raise DataError(f"`rows` selects no instance; got {describe(rows)}.")
        return SPE._trusted(sub, self.thresholds)

    def row_chunks(self, chunk_size: int) -> Iterator["SPE"]:
        """Consecutive SPEs of at most ``chunk_size`` instances (a stream for :func:`ofo`).

        Parameters
        ----------
        chunk_size : int
            The number of instances per chunk (at least 1).

        Yields
        ------
        SPE
            The chunks in order, at the same thresholds.
        """
        size = int(check_scalar("chunk_size", chunk_size, low=1, integer=True))
        for lo in range(0, self.shape[0], size):
            yield self.take_rows(slice(lo, lo + size))

    def predict(self, thresholds: Any = None) -> sp.csr_array:
        """0/1 predictions ``eta > theta_j`` as a CSR array (``None``: the SPE's own tau).

        A :class:`DataWarning` is emitted when some ``theta_j`` lies below the SPE's
        ``tau_j`` (unstored estimates count as 0 there, so the prediction may differ
        from the full estimator's).

        Parameters
        ----------
        thresholds : float or array of shape (m,), optional
            The prediction thresholds theta_j in [0, 1]; ``None``: the SPE's own tau.

        Returns
        -------
        scipy.sparse.csr_array
            The 0/1 predictions, shape (n, m).
        """
        theta = self.thresholds if thresholds is None else self.check_below(thresholds)
        mat = self.matrix
        return mask_entries(mat, mat.data > theta[mat.indices])

    def check_below(self, thresholds: Any, name: str = "thresholds") -> np.ndarray:
        """Validate prediction thresholds; warn where they fall below the SPE's tau.

        Parameters
        ----------
        thresholds : float or array of shape (m,)
            The prediction thresholds, in [0, 1].
        name : str, default "thresholds"
            The argument's name in messages.

        Returns
        -------
        ndarray of shape (m,)
            The thresholds, one per label; a :class:`DataWarning` is emitted when some lie
            below the SPE's.
        """
        theta = check_thresholds(name, thresholds, self.shape[1])
        below = theta < self.thresholds
        if below.any():
            j = int(np.flatnonzero(below)[0])
            warn(f"`{name}` lie below the SPE's thresholds for {int(below.sum())} label(s) "
                 f"(the first: label {j}, {num(theta[j])} < {num(self.thresholds[j])}); "
                 "estimates the SPE did not store count as 0 there, so predictions may "
                 "differ from the full estimator's. Build the SPE at lower thresholds.",
                 DataWarning)
        return theta


def mask_entries(mat: sp.csr_array, keep: np.ndarray) -> sp.csr_array:
    """The 0/1 CSR array with a 1 at the stored entries of ``mat`` where ``keep``."""
    out = sp.csr_array((keep.astype(float), mat.indices.copy(), mat.indptr.copy()),
                       shape=mat.shape)
    out.eliminate_zeros()
    return out


def as_spe(spe: Any, name: str = "spe") -> SPE:
    """An :class:`SPE` as is; a sparse or dense probability matrix as an SPE at tau = 0.

    Parameters
    ----------
    spe : SPE, scipy.sparse matrix or array-like of shape (n, m)
        The estimates: an SPE, or probabilities in [0, 1].
    name : str, default "spe"
        The argument's name in messages.

    Returns
    -------
    SPE
        ``spe`` itself, or the SPE of the matrix at thresholds 0.
    """
    if isinstance(spe, SPE):
        return spe
    if isinstance(spe, (str, bytes)) or not (sp.issparse(spe) or hasattr(spe, "__array__")
                                             or isinstance(spe, (list, tuple))):
        raise InvalidArgumentError(
            f"`{name}` must be an SPE or a scipy.sparse (n, m) probability matrix; got "
            f"{describe(spe)}.")
    return SPE(_sparse_probabilities(name, spe), 0.0)


def check_label_matrix(Y: Any, shape: tuple[int, int] | None = None,
                       name: str = "Y") -> sp.csr_array:
    """A 0/1 label matrix (of the given shape) as a canonical CSR array."""
    mat = sp.csr_array(label_matrix(name, Y))
    if shape is not None and mat.shape != tuple(shape):
        raise DataError(f"`{name}` must have the shape of the SPE {tuple(shape)}; got "
                        f"{mat.shape}.")
    if not mat.has_canonical_format:
        mat.sum_duplicates()
        if (mat.data > 1).any():
            raise DataError(f"`{name}` holds duplicate (row, label) entries.")
    mat.eliminate_zeros()
    return mat


# ---------------------------------------------------------------------------
# Building SPEs from dense scorers
# ---------------------------------------------------------------------------
def _n_rows(X: Any) -> int:
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        raise InvalidArgumentError(
            f"`X` must be an array, sparse matrix or DataFrame of rows; got {describe(X)}."
        ) from None


def _rows(X: Any, lo: int, hi: int):
    iloc = getattr(X, "iloc", None)
    return iloc[lo:hi] if iloc is not None else X[lo:hi]


def _check_chunk(probs: Any, n_rows: int, m: int | None, lo: int) -> np.ndarray:
    arr = float_array("scorer", probs, "a callable returning an (n_chunk, m) array of "
                      "probabilities")
    if arr.ndim != 2 or arr.shape[0] != n_rows or (m is not None and arr.shape[1] != m):
        want = f"({n_rows}, {m if m is not None else 'm'})"
        raise InvalidArgumentError(
            f"`scorer` must return an array of shape {want} for rows {lo}..{lo + n_rows - 1}; "
            f"got shape {arr.shape}.")
    if arr.shape[1] == 0:
        raise DataError("`scorer` returned an empty label set (0 columns); at least one "
                        "label is needed.")
    bad = ~(np.isfinite(arr) & (arr >= 0) & (arr <= 1))
    if bad.any():
        i, j = (int(k[0]) for k in np.nonzero(bad))
        raise ResponseError(
            f"`scorer` must return probabilities in [0, 1]; got {int(bad.sum())} value(s) "
            f"outside in rows {lo}..{lo + n_rows - 1}, the first at row {lo + i}, label {j} "
            f"({num(arr[i, j])}).")
    return arr


def iter_spe(scorer: Callable[[Any], Any], X: Any, thresholds: Any = 0.0, *,
             chunk_size: int | None = None, progress: bool | None = None) -> Iterator[SPE]:
    """SPEs of consecutive row chunks of ``X`` scored by a dense ``scorer``.

    Parameters
    ----------
    scorer : callable
        ``scorer(X_chunk)`` returns an ``(n_chunk, m)`` array of probabilities
        (e.g. ``model.predict_proba`` of a one-vs-rest model).
    X : array, sparse matrix or DataFrame
        Rows to score; chunks are ``X[lo:hi]`` (``X.iloc[lo:hi]`` for frames).
    thresholds : float or array of shape (m,), default 0
        Thresholds tau: keep the estimates above it.
    chunk_size : int, optional
        Rows per call of ``scorer``; default about 4e6 / m (32 MB of dense
        estimates), found after the first call.
    progress : bool, optional
        A tqdm bar over rows; ``None``: only in an interactive session.

    Yields
    ------
    SPE
        One per chunk, all with the same thresholds.
    """
    if not callable(scorer):
        raise InvalidArgumentError(
            f"`scorer` must be a callable mapping rows to an (n_chunk, m) probability array "
            f"(e.g. model.predict_proba); got {describe(scorer)}.")
    n = _n_rows(X)
    if n == 0:
        raise DataError("`X` has no rows; at least one row is needed.")
    size = None if chunk_size is None else int(check_scalar("chunk_size", chunk_size, low=1,
                                                            integer=True))
    bar = None
    if progress_enabled(progress):
        bar = progress_bar(total=n, desc="SPE", unit="row")
    m, tau, lo = None, None, 0
    try:
        while lo < n:
            # before m is known, score a few rows only (m may be 1e5 labels)
            hi = min(n, lo + (size if size is not None else 16))
            arr = _check_chunk(scorer(_rows(X, lo, hi)), hi - lo, m, lo)
            if m is None:
                m = arr.shape[1]
                tau = check_thresholds("thresholds", thresholds, m)
                size = size or max(1, _CHUNK_ELEMENTS // m)
            keep = arr > tau
            rows, cols = np.nonzero(keep)
            indptr = np.concatenate(([0], np.cumsum(keep.sum(axis=1))))
            mat = sp.csr_array((arr[rows, cols], cols, indptr), shape=arr.shape)
            yield SPE._trusted(mat, tau)
            if bar is not None:
                bar.update(hi - lo)
            lo = hi
    finally:
        if bar is not None:
            bar.close()


def spe_from_scorer(scorer: Callable[[Any], Any], X: Any, thresholds: Any = 0.0, *,
                    chunk_size: int | None = None, progress: bool | None = None) -> SPE:
    """The SPE of a dense scorer on ``X``, built chunk by chunk (see :func:`iter_spe`).

    Parameters
    ----------
    scorer : callable
        ``scorer(X_chunk)`` returns an ``(n_chunk, m)`` array of probabilities
        (e.g. ``model.predict_proba`` of a one-vs-rest model).
    X : array, sparse matrix or DataFrame
        Rows to score; chunks are ``X[lo:hi]`` (``X.iloc[lo:hi]`` for frames).
    thresholds : float or array of shape (m,), default 0
        Thresholds tau: keep the estimates above it.
    chunk_size : int, optional
        Rows per call of ``scorer``; default about 4e6 / m (32 MB of dense
        estimates), found after the first call.
    progress : bool, optional
        A tqdm bar over rows; ``None``: only in an interactive session.

    Returns
    -------
    SPE
        The estimates of all rows of ``X`` above ``thresholds``.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.9, 0.05, 0.3], [0.1, 0.6, 0.0]])
    >>> spe_from_scorer(lambda rows: rows, P, thresholds=0.2).matrix.toarray()
    array([[0.9, 0. , 0.3],
           [0. , 0.6, 0. ]])
    """
    chunks = list(iter_spe(scorer, X, thresholds, chunk_size=chunk_size, progress=progress))
    mat = sp.csr_array(sp.vstack([c.matrix for c in chunks], format="csr"))
    return SPE._trusted(mat, chunks[0].thresholds)

