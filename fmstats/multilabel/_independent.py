"""F-measure inference from marginal label probabilities (seed 000, Dembczynski et al. 2011, §2.1-2.2).

Notation.  One instance has m labels with marginals p_i = p(y_i = 1).  For a label vector y and
a prediction h in {0,1}^m, with s_y = sum_i y_i and s_h = sum_i h_i,

    F_beta(y, h) = (1 + beta^2) sum_i y_i h_i / (beta^2 s_y + s_h),   F_beta(y, 0) = [y = 0],

i.e. eq. (1) of the seed for beta = 1 (0/0 = 1 when y = h = 0).  The empty prediction scores 1
exactly when y = 0, for every beta >= 0 (this is also the convention of
:func:`fmstats.multilabel.gfm`, whose k = 0 value is p(y = 0)).

Label independence (§2.1): p(y) = prod_i p_i^{y_i} (1 - p_i)^{1 - y_i}.  Then, for a fixed number
k of predicted positives, the best prediction takes the k labels with the largest marginals
(Theorem 2.1 of the seed, from Lewis 1995 and Jansche 2007; the exchange argument holds for every
beta >= 0), so only the m + 1 "top-k" predictions need to be compared:

* :func:`meuf` - Jansche's maximum expected utility framework: the exact expected F_beta of each
  top-k prediction under independence (``exact=True``), or a cheap approximation of it
  (``exact=False``);
* :func:`lewis` - Lewis' approximation E[F] ~ (1 + b^2) sum p_i h_i / (b^2 sum p_i + sum h_i).

Multinomial case (§2.2): the mass sits on the one-hot vectors y(i), p(Y = y(i)) = p_i, and
:func:`multinomial_rule` is the closed-form maximiser of del Coz et al. (Theorem 2.2).

:func:`independent_P` and :func:`one_hot_P` build the (P, p0) inputs of
:func:`fmstats.multilabel.gfm` for those two families, so that GFM (which is exact for
any distribution) can be compared with the specialised methods.

Conventions (shared with ``_inference.py``): marginals are batched as (n, m);
a single (m,) vector is accepted and gives unbatched results.  Labels are ranked by decreasing
marginal with ties broken by the lower label index; among equally good numbers of positives the
smallest wins (within an absolute tolerance of 1e-12).  Predictions are int8 arrays.  All work is
vectorised over instances; the Python loops run over labels (m) only.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._utils.validation import check_scalar, describe, raise_if_any
from ..exceptions import DataError, InvalidArgumentError
from .._utils.boundary import public

__all__ = ["independent_P", "lewis", "meuf", "multinomial_rule", "one_hot_P"]

#: Absolute tolerance under which two expected F values count as tied (smaller k wins).
TIE_TOL = 1e-12
#: Tolerance on sum_i p_i = 1 (multinomial rule) and sum_i p_i <= 1 (one-hot P).
SUM_TOL = 1e-9
#: Soft cap on the number of floats of the (block, m + 1, m + 1) work arrays of the exact DP.
_BLOCK_FLOATS = 1 << 22


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _check_marginals(marginals, name: str = "marginals") -> tuple[np.ndarray, bool]:
    """Return the marginals as a float (n, m) array and whether the input was batched."""
    try:
        p = np.asarray(marginals, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"`{name}` must be a numeric array of probabilities; got {describe(marginals)} "
            f"({exc}).") from None
    if p.ndim not in (1, 2):
        raise InvalidArgumentError(
            f"`{name}` must have shape (m,) or (n, m); got shape {p.shape}.")
    batched = p.ndim == 2
    if not batched:
        p = p[None, :]
    if p.shape[1] == 0:
        raise InvalidArgumentError(
            f"`{name}` must hold at least one label (m >= 1); got shape {np.shape(marginals)}.")
    bad = ~np.isfinite(p)
    if bad.any():
        idx = np.unravel_index(int(np.flatnonzero(bad)[0]), p.shape)
        where = idx if batched else idx[1:]
        raise DataError(f"`{name}` must be finite; entry {tuple(map(int, where))} is {p[idx]:g}.")
    bad = (p < 0) | (p > 1)
    if bad.any():
        idx = np.unravel_index(int(np.flatnonzero(bad)[0]), p.shape)
        where = idx if batched else idx[1:]
        raise DataError(f"`{name}` must be probabilities in [0, 1]; entry "
                        f"{tuple(map(int, where))} is {p[idx]:g}.")
    return p, batched


def _check_beta(beta) -> float:
    check_scalar("beta", beta, low=0)
    beta = float(beta)
    if not np.isfinite(beta * beta):
        raise InvalidArgumentError(f"`beta` is too large: beta^2 overflows; got {beta!r}.")
    return beta


def _sorted(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Label order by decreasing marginal (ties: lower index first) and the sorted marginals."""
    order = np.argsort(-p, axis=1, kind="stable")
    return order, np.take_along_axis(p, order, axis=1)


def _best_k(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """values (n, m + 1), column k = (approximate) expected F of the top-k prediction."""
    best = values.max(axis=1, keepdims=True)
    k = np.argmax(values >= best - TIE_TOL, axis=1)       # first (smallest) k within TIE_TOL
    return k, values[np.arange(values.shape[0]), k]


def _top_k_labels(order: np.ndarray, k: np.ndarray) -> np.ndarray:
    """0/1 int8 predictions switching on the first k[n] labels of order[n]."""
    n, m = order.shape
    on = (np.arange(m)[None, :] < k[:, None]).astype(np.int8)
    H = np.zeros((n, m), dtype=np.int8)
    np.put_along_axis(H, order, on, axis=1)
    return H


def _blocks(n: int, m: int):
    size = max(1, _BLOCK_FLOATS // ((m + 1) * (m + 1)))
    for start in range(0, max(n, 1), size):
        yield slice(start, min(n, start + size))


# --------------------------------------------------------------------------------------------
# Poisson-binomial dynamic programmes
# --------------------------------------------------------------------------------------------
def _add_label(dist: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Distribution of (count + Bernoulli(x)) from the distribution of count; batched rows."""
    out = dist * (1.0 - x)[:, None]
    out[:, 1:] += dist[:, :-1] * x[:, None]
    return out


def _suffix_counts(q: np.ndarray) -> np.ndarray:
    """S[:, j, c] = p(sum_{l >= j} y_l = c) for j = 0..m (S[:, m] is the point mass at 0)."""
    n, m = q.shape
    S = np.zeros((n, m + 1, m + 1))
    S[:, m, 0] = 1.0
    for j in range(m - 1, -1, -1):
        S[:, j] = _add_label(S[:, j + 1], q[:, j])
    return S


# --------------------------------------------------------------------------------------------
# expected F of every top-k prediction under independence
# --------------------------------------------------------------------------------------------
def _meuf_values_exact(q: np.ndarray, b2: float) -> np.ndarray:
    """Exact E[F_beta] of the top-k predictions, k = 0..m, for sorted marginals q (n, m).

    With A = number of true positives among the k chosen labels and R = number of positives
    among the m - k others (independent Poisson-binomial counts),

        E_k = sum_{a=0}^{k} sum_{b=0}^{m-k} p(A = a) p(R = b) (1 + b^2) a / (b^2 (a + b) + k),

    and E_0 = p(y = 0) = prod_i (1 - q_i).  p(A = .) for k = 1..m comes from a running prefix
    DP, p(R = .) from a suffix DP stored once (O(m^2) per instance); each E_k is a (k+1) x (m-k+1)
    bilinear form, so the total is O(m^3 / 6) per instance.
    """
    n, m = q.shape
    values = np.empty((n, m + 1))
    a_all = np.arange(m + 1, dtype=float)
    for blk in _blocks(n, m):
        qb = q[blk]
        nb = qb.shape[0]
        R = _suffix_counts(qb)                              # R[:, k, b] = p(R = b) for top-k
        A = np.zeros((nb, m + 1))
        A[:, 0] = 1.0
        values[blk, 0] = R[:, 0, 0]
        for k in range(1, m + 1):
            A = _add_label(A, qb[:, k - 1])                 # p(A = a), support 0..k
            a = a_all[: k + 1, None]
            b = a_all[None, : m - k + 1]
            W = (1.0 + b2) * a / (b2 * (a + b) + k)         # denominator >= k >= 1
            values[blk, k] = np.sum((A[:, : k + 1] @ W) * R[:, k, : m - k + 1], axis=1)
    return values


def _meuf_values_approx(q: np.ndarray, b2: float) -> np.ndarray:
    """Approximate E[F_beta] of the top-k predictions (see :func:`meuf`, ``exact=False``).

    Exact over the true positives A (prefix DP), second-order (delta-method) expansion over
    the positives R among the unselected labels, with mu_R = sum_{i>k} q_i and
    v_R = sum_{i>k} q_i (1 - q_i):

        E_k ~ (1 + b^2) sum_a p(A = a) a [1 / D_a + b^4 v_R / D_a^3],  D_a = b^2 (a + mu_R) + k.

    O(k) per k given the running prefix distribution, O(m^2) per instance in total.
    """
    n, m = q.shape
    values = np.empty((n, m + 1))
    values[:, 0] = np.prod(1.0 - q, axis=1)
    # suffix moments of R for each k: mu_R[:, k] = sum_{j >= k} q_j, same for the variance
    mu_R = np.concatenate([np.cumsum(q[:, ::-1], axis=1)[:, ::-1], np.zeros((n, 1))], axis=1)
    var = q * (1.0 - q)
    v_R = np.concatenate([np.cumsum(var[:, ::-1], axis=1)[:, ::-1], np.zeros((n, 1))], axis=1)
    A = np.zeros((n, m + 1))
    A[:, 0] = 1.0
    a_all = np.arange(m + 1, dtype=float)
    for k in range(1, m + 1):
        A = _add_label(A, q[:, k - 1])
        a = a_all[None, : k + 1]
        D = b2 * (a + mu_R[:, k, None]) + k                 # >= k >= 1
        term = a / D + a * (b2 * b2) * v_R[:, k, None] / D**3
        values[:, k] = (1.0 + b2) * np.sum(A[:, : k + 1] * term, axis=1)
    return values


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------
@public
def meuf(marginals, *, exact: bool = True, beta: float = 1.0):
    r"""Jansche's MEUF: the F_beta-maximiser when the labels are independent.

    Under independence the best prediction with k positives is the top-k one (the k largest
    marginals), so MEUF evaluates the expected F_beta of the m + 1 top-k predictions and keeps
    the best (outer maximisation, eq. (4) of the seed).

    Parameters
    ----------
    marginals : (m,) or (n, m) array_like
        The marginals p_i = p(y_i = 1), finite and in [0, 1]; m >= 1.
    exact : bool, default True
        ``True``: exact expected F_beta of every top-k prediction.  With q the sorted marginals,
        A ~ PoissonBinomial(q_1..q_k) the true positives and R ~ PoissonBinomial(q_{k+1}..q_m)
        the positives left out (independent),

        .. math:: E_k = \sum_{a=0}^{k}\sum_{b=0}^{m-k} p(A=a)\,p(R=b)\,
                       \frac{(1+\beta^2)\,a}{\beta^2 (a+b) + k}, \qquad E_0 = \prod_i (1-q_i).

        The count distributions come from dynamic programmes over labels (a running prefix
        DP for A, one suffix DP for R), so all m + 1 values cost O(m^3) per instance
        (Jansche's original per-hypothesis evaluation is cubic, O(m^4) in total).

        ``False``: an approximation of the expectation of the ratio, O(m^2) per instance.  A is
        kept exact and R is replaced by a second-order Taylor (delta-method) expansion of
        g(R) = a / (b^2 (a + R) + k) around mu_R = E[R], using v_R = Var[R]:

        .. math:: E_k \approx (1+\beta^2) \sum_{a=0}^{k} p(A=a)\, a
                  \left[\frac{1}{D_a} + \frac{\beta^4 v_R}{D_a^3}\right],
                  \qquad D_a = \beta^2 (a + \mu_R) + k.

        The seed only reports that Jansche has inexact variants (quadratic or linear time per
        hypothesis) without giving formulas; this one is ours, in the same spirit.  It is exact
        for k = 0, for k = m (R = 0), and for beta = 0 (F_0 is the precision, linear in A).
        On random marginals its expected-F regret is tiny (mean ~1e-5, see the tests).
    beta : float, default 1
        The F_beta weight, beta >= 0.

    Returns
    -------
    H : (m,) or (n, m) int8 array
        The prediction: the best k labels with the largest marginals (ties between labels:
        lower index; ties between values of k within 1e-12: smaller k).
    expected_f : float or (n,) array
        E[F_beta(y, H)] under independence; with ``exact=False`` the approximated value that
        was maximised.

    Examples
    --------
    >>> from fmstats.multilabel import meuf
    >>> q = [0.45, 0.4, 0.35, 0.05]
    >>> H, expected_f = meuf(q)
    >>> H, round(float(expected_f), 4)
    (array([1, 1, 1, 0], dtype=int8), 0.5063)
    """
    if not isinstance(exact, (bool, np.bool_)):
        raise InvalidArgumentError(f"`exact` must be True or False; got {describe(exact)}.")
    beta = _check_beta(beta)
    p, batched = _check_marginals(marginals)
    order, q = _sorted(p)
    values = (_meuf_values_exact if exact else _meuf_values_approx)(q, beta * beta)
    k, ef = _best_k(values)
    H = _top_k_labels(order, k)
    return (H, ef) if batched else (H[0], float(ef[0]))


def lewis(marginals, *, beta: float = 1.0) -> np.ndarray:
    r"""Lewis' approximation of the F_beta-maximiser under label independence.

    The expected F_beta is replaced by the ratio of expectations (first-order approximation;
    exact for h = 0):

    .. math:: E[F_\beta(y, h)] \approx
              \begin{cases} \prod_i (1 - p_i), & h = 0, \\
              \dfrac{(1+\beta^2) \sum_i p_i h_i}{\beta^2 \sum_i p_i + \sum_i h_i}, & h \ne 0,
              \end{cases}

    (seed §2.1 with beta = 1), maximised over the m + 1 top-k predictions.  O(m log m) per
    instance (the sort dominates).

    Parameters
    ----------
    marginals : (m,) or (n, m) array_like
        The marginals p_i = p(y_i = 1), finite and in [0, 1].
    beta : float, default 1
        The F_beta weight, beta >= 0.

    Returns
    -------
    H : (m,) or (n, m) int8 array
        Ties as in :func:`meuf`.

    Examples
    --------
    >>> from fmstats.multilabel import lewis
    >>> q = [0.45, 0.4, 0.35, 0.05]
    >>> lewis(q)
    array([1, 1, 1, 0], dtype=int8)
    """
    beta = _check_beta(beta)
    b2 = beta * beta
    p, batched = _check_marginals(marginals)
    m = p.shape[1]
    order, q = _sorted(p)
    k = np.arange(1, m + 1, dtype=float)[None, :]
    approx = (1.0 + b2) * np.cumsum(q, axis=1) / (b2 * q.sum(axis=1, keepdims=True) + k)
    values = np.concatenate([np.prod(1.0 - q, axis=1, keepdims=True), approx], axis=1)
    best, _ = _best_k(values)
    H = _top_k_labels(order, best)
    return H if batched else H[0]


def multinomial_rule(marginals, *, beta: float = 1.0) -> np.ndarray:
    r"""Del Coz et al.'s rule (Theorem 2.2 of the seed) for one-hot ("multinomial") distributions.

    The distribution puts mass p_i on the vector y(i) with a single one at label i, so the
    marginals sum to 1.  A prediction with k >= 1 positives has
    E[F_beta] = (1 + beta^2) (sum of its p_i) / (beta^2 + k); with q the sorted marginals and
    S_k = q_1 + ... + q_k, the maximiser takes the top k labels for the first k in 1..m-1 with

    .. math:: S_k \ge (\beta^2 + k)\, q_{k+1}

    (the seed's (1 + k) q_{k+1} for beta = 1), and h = 1 (all labels) if there is none.  The
    ratio S_k / (beta^2 + k) increases while the condition fails and never increases once it
    holds, so the first such k is optimal (and the smallest among ties).  O(m log m) per instance.

    Parameters
    ----------
    marginals : (m,) or (n, m) array_like
        The masses p_i = p(Y = y(i)); they must sum to 1 within 1e-9 per instance.  If the
        remaining mass 1 - sum p_i sits on y = 0, the theorem does not apply: use
        ``gfm(*one_hot_P(marginals))`` instead.
    beta : float, default 1
        The F_beta weight, beta >= 0 (the seed states the beta = 1 case).

    Returns
    -------
    H : (m,) or (n, m) int8 array
        The prediction.

    Raises
    ------
    DataError
        If some instance's marginals do not sum to 1 (within 1e-9).

    Examples
    --------
    >>> from fmstats.multilabel import multinomial_rule
    >>> multinomial_rule([0.5, 0.3, 0.2])
    array([1, 1, 0], dtype=int8)
    >>> multinomial_rule([0.5, 0.3, 0.2], beta=3)
    array([1, 1, 1], dtype=int8)
    """
    beta = _check_beta(beta)
    b2 = beta * beta
    p, batched = _check_marginals(marginals)
    n, m = p.shape
    total = p.sum(axis=1)
    raise_if_any(np.abs(total - 1.0) > SUM_TOL, DataError, lambda i, k: (
        f"`marginals` must sum to 1 (within {SUM_TOL:g}) for the multinomial rule: Theorem 2.2 "
        f"assumes all the mass is on one-hot label vectors; "
        f"{f'instance {i} sums' if batched else 'they sum'} to {total[i]:.12g}. If the "
        f"remaining mass is on y = 0, use gfm(*one_hot_P(marginals))."))
    order, q = _sorted(p)
    S = np.cumsum(q, axis=1)
    k = np.arange(1, m, dtype=float)[None, :]               # k = 1..m-1
    stop = S[:, :-1] >= (b2 + k) * q[:, 1:]                 # condition at k (q_{k+1} = q[:, k])
    if m == 1:
        best = np.ones(n, dtype=np.int64)                   # the single label, p_1 = 1
    else:
        best = np.where(stop.any(axis=1), np.argmax(stop, axis=1) + 1, m)
    H = _top_k_labels(order, best)
    return H if batched else H[0]


def independent_P(marginals) -> tuple[np.ndarray, np.ndarray]:
    r"""The GFM inputs (P, p0) of independent labels with the given marginals.

    .. math:: P_{i,s} = p(y_i = 1, s_y = s) = p_i \; p\Big(\sum_{j \ne i} y_j = s - 1\Big),
              \qquad p_0 = \prod_i (1 - p_i),

    where the sum over j != i is Poisson-binomial.  Its distribution is the convolution of a
    prefix DP (labels < i, run forward) and a suffix DP (labels > i, stored once), both exact
    (no deconvolution), so the cost is O(m^3) per instance and O(m^2) memory per instance.

    Parameters
    ----------
    marginals : (m,) or (n, m) array_like
        The marginals p_i = p(y_i = 1), finite and in [0, 1].

    Returns
    -------
    P : (m, m) or (n, m, m) array
        P[..., i, s-1] = p(y_i = 1, s_y = s), s = 1..m.
    p0 : float or (n,) array
        The probability p(y = 0).
    """
    p, batched = _check_marginals(marginals)
    n, m = p.shape
    P = np.empty((n, m, m))
    for blk in _blocks(n, m):
        pb = p[blk]
        nb = pb.shape[0]
        suffix = _suffix_counts(pb)                         # suffix[:, j] over labels >= j
        prefix = np.zeros((nb, m + 1))
        prefix[:, 0] = 1.0                                  # over labels < i (support 0..i)
        padded = np.zeros((nb, 2 * m))
        for i in range(m):
            # p(sum_{j != i} y_j = t) = sum_a prefix[a] suffix[i+1][t - a], t = 0..m-1
            padded[:, m:] = suffix[:, i + 1, :m]
            win = sliding_window_view(padded, m, axis=1)    # win[:, s, t] = padded[:, s + t]
            toeplitz = win[:, m - i: m + 1][:, ::-1]        # [:, a, t] = suffix[i+1][t - a]
            others = (prefix[:, None, : i + 1] @ toeplitz)[:, 0, :]
            P[blk, i, :] = pb[:, i, None] * others
            prefix = _add_label(prefix, pb[:, i])
    p0 = np.prod(1.0 - p, axis=1)
    return (P, p0) if batched else (P[0], float(p0[0]))


def one_hot_P(marginals) -> tuple[np.ndarray, np.ndarray]:
    r"""The GFM inputs (P, p0) of a distribution on one-hot vectors (and possibly y = 0).

    p(Y = y(i)) = p_i and p(Y = 0) = 1 - sum_i p_i, so

    .. math:: P_{i,1} = p_i, \quad P_{i,s} = 0 \ (s \ge 2), \qquad p_0 = 1 - \sum_i p_i.

    Parameters
    ----------
    marginals : (m,) or (n, m) array_like
        p_i in [0, 1] with sum_i p_i <= 1 (within 1e-9) per instance.

    Returns
    -------
    P : (m, m) or (n, m, m) array
    p0 : float or (n,) array
        Clipped at 0 when the sum exceeds 1 by rounding.
    """
    p, batched = _check_marginals(marginals)
    n, m = p.shape
    total = p.sum(axis=1)
    raise_if_any(total > 1.0 + SUM_TOL, DataError, lambda i, k: (
        f"`marginals` of a one-hot distribution must sum to at most 1 (within {SUM_TOL:g}); "
        f"{f'instance {i} sums' if batched else 'they sum'} to {total[i]:.12g}."))
    P = np.zeros((n, m, m))
    P[:, :, 0] = p
    p0 = np.clip(1.0 - total, 0.0, None)
    return (P, p0) if batched else (P[0], float(p0[0]))
