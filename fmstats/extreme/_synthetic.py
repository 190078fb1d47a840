"""Synthetic extreme multi-label problems: calibrated sparse probability estimates
(:func:`make_extreme_spe`) and sparse features with labels at the seed's scale
(:func:`make_extreme_problem`)."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_random_state, check_scalar
from ..exceptions import InvalidArgumentError
from ._spe import SPE, check_thresholds

__all__ = ["make_extreme_spe", "make_extreme_problem"]


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    # np.unique in numpy 2.x hashes first and is much slower than a sort on millions of keys
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


def make_extreme_problem(n: int, n_features: int, n_labels: int, *,
                         labels_per_row: float = 5.0, nnz_per_row: int = 75,
                         exponent: float = 1.0, signal: float = 0.7, words_per_label: int = 40,
                         random_state: Any = None):
    """A sparse extreme multi-label problem with the shapes of the seed's data sets.

    Labels have power-law popularity ((j + 1)^-exponent).  Every instance gets
    1 + Poisson(labels_per_row - 1) labels drawn from it (duplicates merged) and
    ``nnz_per_row`` feature draws: with probability ``signal`` a draw from the "words" of
    one of its labels (``words_per_label`` features per label, themselves drawn with a
    power law over the features), otherwise a background feature from that power law.
    Values are log(1 + count), rows L2-normalised (tf-idf-like), float32.  Everything is
    vectorised and sparse: memory is O(n * nnz_per_row).

    Parameters
    ----------
    n, n_features, n_labels : int
        Instances, features and labels (RCV1 as in seed 002: 623,847 x 47,236, 2,456
        labels).
    labels_per_row : float, default 5
        Mean number of labels per instance (at least 1).
    nnz_per_row : int, default 75
        Feature draws per instance (distinct features are a little fewer).
    exponent : float, default 1
        Power-law exponent of the label (and feature) popularity, >= 0.
    signal : float, default 0.7
        The fraction of the feature draws that come from the instance's labels, in [0, 1].
    words_per_label : int, default 40
        Features characteristic of each label.
    random_state : None, int or numpy.random.Generator
        Seed or generator of the draws.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n, n_features), float32
        Features.
    Y : scipy.sparse.csr_matrix of shape (n, n_labels)
        0/1 labels; every instance has at least one.

    Examples
    --------
    >>> X, Y = make_extreme_problem(1000, 5000, 200, random_state=0)
    >>> X.shape, Y.shape, round(Y.nnz / 1000, 1) > 3
    ((1000, 5000), (1000, 200), True)
    """
    n = int(check_scalar("n", n, low=1, integer=True))
    d = int(check_scalar("n_features", n_features, low=1, integer=True))
    m = int(check_scalar("n_labels", n_labels, low=1, integer=True))
    lam = float(check_scalar("labels_per_row", labels_per_row, low=1))
    k = int(check_scalar("nnz_per_row", nnz_per_row, low=1, integer=True))
    exponent = float(check_scalar("exponent", exponent, low=0))
    signal = float(check_scalar("signal", signal, low=0, high=1))
    w = int(check_scalar("words_per_label", words_per_label, low=1, integer=True))
    rng = check_random_state(random_state)

    label_cdf = np.cumsum(np.arange(1, m + 1, dtype=float) ** -exponent)
    feature_cdf = np.cumsum(np.arange(1, d + 1, dtype=float) ** -exponent)
    feature_perm = rng.permutation(d)          # popular features spread over the columns
    sizes = 1 + rng.poisson(lam - 1.0, n)
    label_keys = _draw_labels(rng, label_cdf, np.repeat(np.arange(n), sizes), m)
    lrows, lcols = np.divmod(label_keys, m)
    lptr = np.concatenate(([0], np.cumsum(np.bincount(lrows, minlength=n))))
    words = feature_perm[np.minimum(np.searchsorted(
        feature_cdf, rng.random((m, w)) * feature_cdf[-1], side="right"), d - 1)]

    rows = np.repeat(np.arange(n, dtype=np.int64), k)
    from_label = rng.random(rows.size) < signal
    pick = lptr[rows] + (rng.random(rows.size) * np.diff(lptr)[rows]).astype(np.int64)
    feats = np.where(
        from_label, words[lcols[np.minimum(pick, lcols.size - 1)], rng.integers(0, w, rows.size)],
        feature_perm[np.minimum(np.searchsorted(feature_cdf, rng.random(rows.size)
                                                * feature_cdf[-1], side="right"), d - 1)])
    del from_label, pick
    keys = np.sort(rows * d + feats)
    del rows, feats
    first = np.r_[True, keys[1:] != keys[:-1]]
    counts = np.diff(np.r_[np.flatnonzero(first), keys.size])
    keys = keys[first]
    xr, xc = np.divmod(keys, d)
    vals = np.log1p(counts).astype(np.float32)
    norms = np.sqrt(np.bincount(xr, weights=vals.astype(float) ** 2, minlength=n))
    vals /= norms[xr].astype(np.float32)
    xptr = np.concatenate(([0], np.cumsum(np.bincount(xr, minlength=n))))
    X = sp.csr_matrix((vals, xc.astype(np.int32), xptr), shape=(n, d))
    Y = sp.csr_matrix((np.ones(lcols.size), lcols.astype(np.int32), lptr), shape=(n, m))
    return X, Y
