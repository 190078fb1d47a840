"""R's natural cubic splines ``ns()`` (``splines::ns``) and R's ``bs()`` default, for both engines.

Used by ``_frame.py``, which hands :data:`FORMULAIC_SPLINES` to formulaic and
:data:`PATSY_SPLINES` to patsy.  Neither engine has R's ``ns``; both learn its knots from the
training data (a stateful transform), so ``predict`` on new data re-uses them, as R's
``predict(fit, newdata)`` does through ``makepredictcall``.

The basis is R's, computed the same way (``splines::ns`` in R 4.2):

* interior knots at the quantiles (type 7, numpy's default) ``seq(0, 1, length = k + 2)`` of
  ``x`` without the ends, k = ``df - 1 - intercept``; boundary knots at ``range(x)``;
* the cubic B-spline basis on the knots with the boundary knots four times (R's
  ``splineDesign``), continued linearly outside the boundary knots;
* the columns projected on the null space of the second derivatives at the two boundary
  knots: with the Householder QR of those derivatives' transpose, ``basis %*% Q[, -(1:2)]``.
  Householder reflectors do not depend on the sign convention of the QR routine (LINPACK's
  ``dqrdc2`` in R, LAPACK's ``dgeqrf`` here), so Q, and the basis, are R's.

``bs()`` is formulaic's B-spline basis (R's ``splines::bs``) with R's default outside the
boundary knots, ``extrapolation="extend"`` (formulaic's default raises).

Examples
--------
>>> import numpy as np
>>> knots, bounds = ns_knots(np.arange(10.0), df=3)
>>> np.round(knots, 6).tolist(), bounds
([3.0, 6.0], (0.0, 9.0))
>>> ns_basis(np.array([0.0, 9.0]), knots, bounds).round(6).tolist()
[[0.0, 0.0, 0.0], [-0.142857, 0.428571, 0.714286]]
"""
from __future__ import annotations

import functools

import numpy as np
from scipy import linalg
from scipy.interpolate import BSpline
from .._utils.boundary import public

__all__ = ["ns_knots", "ns_basis", "FORMULAIC_SPLINES", "PATSY_SPLINES"]


def _check_df(df, knots, intercept) -> None:
    from ..exceptions import FormulaError

    if df is not None and knots is not None:
        raise FormulaError("ns(): give `df` or `knots`, not both.")
    if df is not None and (isinstance(df, bool) or not float(df).is_integer() or df < 1):
        raise FormulaError(f"ns(): `df` must be a positive integer; got {df!r}.")
    if not isinstance(intercept, (bool, np.bool_)):
        raise FormulaError(f"ns(): `intercept` must be True or False; got {intercept!r}.")


def ns_knots(x, df=None, knots=None, intercept=False, boundary_knots=None):
    """The interior and boundary knots R's ``ns(x, df, knots, intercept, Boundary.knots)``
    chooses for ``x`` (missing values ignored): ``(interior knots, (low, high))``.

    Parameters
    ----------
    x : array-like
        The values the knots are learnt from.
    df : int, optional
        Degrees of freedom: ``df - 1 - intercept`` interior knots at quantiles of ``x``.
    knots : array-like, optional
        The interior knots (instead of ``df``); none when neither is given.
    intercept : bool, default False
        Whether the basis includes the intercept (one more column).
    boundary_knots : pair of float, optional
        The boundary knots (default: the range of ``x``).

    Returns
    -------
    tuple of (ndarray, tuple of float)
        The interior knots and the boundary knots.
    """
    from ..exceptions import FormulaError

    _check_df(df, knots, intercept)
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    if boundary_knots is None:
        if x.size == 0:
            raise FormulaError("ns(): `x` has no non-missing value to place the knots.")
        lo, hi = float(x.min()), float(x.max())
        inside = x
    else:
        lo, hi = sorted(float(b) for b in boundary_knots)
        inside = x[(x >= lo) & (x <= hi)]
    if knots is None and df is not None:
        k = max(int(df) - 1 - int(bool(intercept)), 0)
        probs = np.linspace(0.0, 1.0, k + 2)[1:-1]
        knots = np.quantile(inside, probs) if k and inside.size else np.empty(0)
    knots = np.sort(np.asarray([] if knots is None else knots, dtype=float))
    return knots, (lo, hi)


def _splines(t: np.ndarray, x: np.ndarray, nu: int = 0) -> np.ndarray:
    """R's ``splineDesign(t, x, ord = 4, derivs = nu)``: the cubic B-splines on knots ``t``."""
    nb = len(t) - 4
    return BSpline(t, np.eye(nb), 3, extrapolate=True)(x, nu=nu)


@public
def ns_basis(x, knots, boundary, intercept: bool = False) -> np.ndarray:
    """R's natural cubic spline basis ``ns(x, knots = knots, Boundary.knots = boundary,
    intercept = intercept)`` (rows of missing ``x`` are NaN).

    Parameters
    ----------
    x : array-like
        The values to evaluate the basis at.
    knots : array-like
        The interior knots.
    boundary : pair of float
        The boundary knots; outside them the basis continues linearly.
    intercept : bool, default False
        Whether the basis includes the intercept.

    Returns
    -------
    ndarray of shape (len(x), len(knots) + 1 + intercept)
        The basis.
    """
    x = np.asarray(x, dtype=float)
    lo, hi = float(boundary[0]), float(boundary[1])
    knots = np.asarray(knots, dtype=float)
    t = np.sort(np.r_[[lo] * 4, knots, [hi] * 4])
    nb = len(t) - 4
    basis = np.full((x.size, nb), np.nan)
    ok = ~np.isnan(x)
    left, right = ok & (x < lo), ok & (x > hi)
    inside = ok & ~left & ~right
    if inside.any():
        basis[inside] = _splines(t, x[inside])
    for side, pivot in ((left, lo), (right, hi)):
        if side.any():      # linear beyond the boundary knots: value and slope at the knot
            tt = np.vstack([_splines(t, np.array([pivot]), 0), _splines(t, np.array([pivot]), 1)])
            basis[side] = np.column_stack([np.ones(int(side.sum())), x[side] - pivot]) @ tt
    const = np.vstack([_splines(t, np.array([lo]), 2), _splines(t, np.array([hi]), 2)])
    if not intercept:
        const, basis = const[:, 1:], basis[:, 1:]
    q, _ = linalg.qr(const.T)      # Householder: the same reflectors as R's qr()
    return basis @ q[:, 2:]


# ----------------------------------------------------------------------------- engines

def _ns_state(x, df, knots, intercept, boundary_knots, state: dict):
    if "knots" not in state:
        k, b = ns_knots(x, df=df, knots=knots, intercept=intercept, boundary_knots=boundary_knots)
        state["knots"], state["boundary"] = [float(v) for v in k], [float(v) for v in b]
    return np.asarray(state["knots"]), tuple(state["boundary"])


def _formulaic_ns():
    from formulaic.materializers.types import FactorValues
    from formulaic.transforms import stateful_transform

    @stateful_transform
    def ns(x, df=None, knots=None, intercept=False, boundary_knots=None, _state=None):
        """R's natural cubic spline basis (``splines::ns``); knots learnt once."""
        kn, bd = _ns_state(x, df, knots, intercept, boundary_knots, _state)
        B = ns_basis(np.asarray(x, dtype=float), kn, bd, bool(intercept))
        return FactorValues({str(j + 1): B[:, j] for j in range(B.shape[1])},
                            kind="numerical", spans_intercept=bool(intercept),
                            drop_field="1" if intercept else None, format="{name}[{field}]",
                            encoded=False)

    return ns


def _formulaic_bs():
    from formulaic.transforms import TRANSFORMS

    formulaic_bs = TRANSFORMS["bs"]

    def bs(x, *args, extrapolation="extend", **kwargs):
        """formulaic's ``bs`` with R's default outside the boundary knots (extend)."""
        return formulaic_bs(x, *args, extrapolation=extrapolation, **kwargs)

    # formulaic recognises a stateful transform (and hands it its state) by the attributes
    # its stateful_transform decorator sets
    bs.__is_stateful_transform__ = True
    bs.get_required_variables = formulaic_bs.get_required_variables
    return bs


class _PatsyNS:
    """patsy's side of ``ns``: knots memorised over the data's chunks, then the basis."""

    def __init__(self):
        self._chunks = []
        self._state: dict = {}

    def memorize_chunk(self, x, df=None, knots=None, intercept=False, boundary_knots=None):
        self._chunks.append(np.asarray(x, dtype=float).ravel())

    def memorize_finish(self):
        self._x = np.concatenate(self._chunks) if self._chunks else np.empty(0)
        del self._chunks

    def transform(self, x, df=None, knots=None, intercept=False, boundary_knots=None):
        import pandas as pd

        kn, bd = _ns_state(self._x, df, knots, intercept, boundary_knots, self._state)
        B = ns_basis(np.asarray(x, dtype=float).ravel(), kn, bd, bool(intercept))
        index = x.index if isinstance(x, pd.Series) else None
        return pd.DataFrame(B, columns=[str(j + 1) for j in range(B.shape[1])], index=index)


def _patsy_ns():
    import patsy

    return patsy.stateful_transform(_PatsyNS)


def _check_poly(degree, raw) -> None:
    """R's rules for ``poly(x, degree, raw)``: a positive integer degree (0 would leave an
    intercept-only model without a word) and a logical ``raw`` (a string such as ``"no"``
    would be taken as true)."""
    from ..exceptions import FormulaError

    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, (int, np.integer)) \
            or degree < 1:
        raise FormulaError(f"poly(): `degree` must be a positive integer (R: 'degree' must be "
                           f"at least 1); got {degree!r}.")
    if not isinstance(raw, (bool, np.bool_)):
        raise FormulaError(f"poly(): `raw` must be True or False; got {raw!r}.")


def _formulaic_poly():
    from formulaic.transforms import TRANSFORMS

    formulaic_poly = TRANSFORMS["poly"]

    def poly(x, degree=1, raw=False, **kwargs):
        """formulaic's ``poly`` with R's checks of ``degree`` and ``raw``."""
        _check_poly(degree, raw)
        return formulaic_poly(x, degree, raw, **kwargs)

    poly.__is_stateful_transform__ = True       # as bs below: formulaic hands it its state
    poly.get_required_variables = formulaic_poly.get_required_variables
    return poly


@functools.lru_cache(maxsize=1)
def formulaic_splines() -> dict:
    """The basis functions given to formulaic: ``ns``, ``bs`` with R's extrapolation, and
    ``poly`` with R's argument checks."""
    return {"ns": _formulaic_ns(), "bs": _formulaic_bs(), "poly": _formulaic_poly()}


def patsy_splines() -> dict:
    """The spline functions given to patsy (``ns``)."""
    return {"ns": _patsy_ns()}


FORMULAIC_SPLINES = formulaic_splines
PATSY_SPLINES = patsy_splines
