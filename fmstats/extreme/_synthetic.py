"""A synthetic extreme multi-label problem with calibrated sparse probability estimates."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_random_state, check_scalar
from ..exceptions import InvalidArgumentError
from ._spe import SPE, check_thresholds

__all__ = ["make_extreme_spe"]


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    # np.unique in numpy 2.x hashes first and is ~20x slower than a sort on 5e6 keys
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys


def _draw_labels(rng: np.random.Generator, cdf: np.ndarray, rows: np.ndarray, m: int):
    """Sorted unique keys row * m + label, labels drawn from the popularity ``cdf``."""
    labels = np.searchsorted(cdf, rng.random(rows.size) * cdf[-1], side="right")
    np.minimum(labels, m - 1, out=labels)
    return _sorted_unique(rows.astype(np.int64) * m + labels)


def make_extreme_spe(n: int, m: int, nnz_per_row: int = 50, *, threshold: Any = 0.0,
                     exponent: float = 1.0, beta_params: tuple[float, float] = (1.0, 3.0),
                     hidden_per_row: float = 0.0, random_state: Any = None):
    """A synthetic extreme problem: an SPE with calibrated probabilities and its labels.

    Label j has popularity proportional to (j + 1)^-exponent (a power law; label 0
    is the most frequent).  For each instance, ``nnz_per_row`` labels are drawn
    from the popularity (duplicates merged, so a few rows have fewer) and get an
    estimate p ~ ``Beta(*beta_params)``; the label is then positive with probability
    p, so the estimates are calibrated: P(y = 1 | p) = p.  Optionally
    Poisson(``hidden_per_row``) further positives per instance, drawn from the
    popularity among the labels not scored, model positives the estimator misses
    (their estimate is below the SPE threshold).

    Parameters
    ----------
    n, m : int
        Instances and labels (e.g. m = 100_000 for the seed's scale).
    nnz_per_row : int, default 50
        Label draws scored per instance.
    threshold : float or array of shape (m,), default 0
        The SPE threshold tau: estimates at or below it are not stored (the labels
        are drawn before this cut, so Y keeps those positives).
    exponent : float, default 1
        Power-law exponent of the label popularity (>= 0).
    beta_params : (float, float), default (1, 3)
        Beta shape parameters of the estimates (mean 0.25 by default).
    hidden_per_row : float, default 0
        Mean number of positives per instance outside the scored labels.
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator of the draws.

    Returns
    -------
    spe : SPE
        (n, m) estimates above ``threshold``.
    Y : scipy.sparse.csr_array
        (n, m) 0/1 labels.

    Examples
    --------
    >>> spe, Y = make_extreme_spe(1000, 100_000, 20, random_state=0)
    >>> spe.shape, Y.shape
    ((1000, 100000), (1000, 100000))
    """
    n = int(check_scalar("n", n, low=1, integer=True))
    m = int(check_scalar("m", m, low=1, integer=True))
    k = int(check_scalar("nnz_per_row", nnz_per_row, low=0, integer=True))
    exponent = float(check_scalar("exponent", exponent, low=0))
    hidden = float(check_scalar("hidden_per_row", hidden_per_row, low=0))
    if not (isinstance(beta_params, (tuple, list)) and len(beta_params) == 2):
        raise InvalidArgumentError(
            f"`beta_params` must be a pair (a, b) of positive numbers; got {beta_params!r}.")
    pa, pb = (float(check_scalar("beta_params", v, low=0, low_open=True)) for v in beta_params)
    tau = check_thresholds("threshold", threshold, m)
    rng = check_random_state(random_state)

    cdf = np.cumsum((np.arange(1, m + 1, dtype=float)) ** -exponent)
    keys = _draw_labels(rng, cdf, np.repeat(np.arange(n), k), m)
    prob = rng.beta(pa, pb, size=keys.size)
    positive = rng.random(keys.size) < prob

    pos_keys = keys[positive]
    if hidden > 0:
        extra = _draw_labels(rng, cdf, np.repeat(np.arange(n), rng.poisson(hidden, n)), m)
        at = np.minimum(np.searchsorted(keys, extra), max(keys.size - 1, 0))
        scored = keys[at] == extra if keys.size else np.zeros(extra.size, dtype=bool)
        pos_keys = _sorted_unique(np.concatenate((pos_keys, extra[~scored])))

    def csr(keys_, data):
        rows, cols = np.divmod(keys_, m)
        indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n))))
        return sp.csr_array((data, cols.astype(np.int32), indptr), shape=(n, m))

    Y = csr(pos_keys, np.ones(pos_keys.size))
    return SPE(csr(keys, prob), tau), Y
