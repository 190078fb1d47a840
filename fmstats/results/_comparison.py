"""What a comparison of fitted models checks: the same rows, the same response, weights and
offset, and nested designs.

Likelihood-ratio (and F, Rao) tests of nested fits, R's ``anova(m0, m1)``, compare the
deviances of two fits of the *same* data, the smaller model a special case of the larger one.
A difference of deviances of fits of other rows, of another response, with other weights or
another offset, or of models neither of which contains the other, is a number without a
distribution: it is refused with a :class:`~fmstats.exceptions.ModelComparisonError` that
says which condition fails.  Used by :func:`fmstats.anova` (maxent family) and
:meth:`fmstats.MultinomResults.anova`; ``add1``/``step`` check their ``data`` against the
fit before mixing its deviance with refits on it (``fmstats/maxent_models/_stepwise.py``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..exceptions import ModelComparisonError

__all__ = ["nested_columns", "check_comparable"]

#: Relative size of the residual of a column of the smaller design projected on the larger
#: design's columns below which the column lies in their span.
NESTED_RTOL = 1e-7


def nested_columns(small: np.ndarray, big: np.ndarray) -> bool:
    """Whether the column space of ``small`` lies in that of ``big`` (the same rows).

    Parameters
    ----------
    small, big : ndarray of shape (n, p_small), (n, p_big)
        The designs.

    Returns
    -------
    bool
    """
    small, big = np.asarray(small, dtype=float), np.asarray(big, dtype=float)
    if small.shape[1] == 0:
        return True
    if big.shape[1] == 0:
        return not np.any(small)
    coef = np.linalg.lstsq(big, small, rcond=None)[0]
    resid = small - big @ coef
    scale = np.maximum(np.linalg.norm(small, axis=0), 1e-300)
    return bool(np.all(np.linalg.norm(resid, axis=0) <= NESTED_RTOL * scale))


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def check_comparable(fits, what: str, *, index: Callable, response: Callable,
                     weights: Callable, offset: Callable, design: Callable,
                     size: Callable) -> None:
    """Refuse fits that a nested test cannot compare, saying why.

    Consecutive fits, ordered by ``size`` (their number of coefficients), must have the same
    rows (``index``), response, weights and offset (each a function of a fit returning an
    array, or None for no offset), and the smaller's ``design`` must lie in the column space
    of the larger's.

    Parameters
    ----------
    fits : sequence of results
        The fits, in the order of the table.
    what : str
        The comparison, as messages name it (``"anova"``).
    index, response, weights, offset, design, size : callable
        What to read from a fit.

    Raises
    ------
    ModelComparisonError
        Naming the fits and the condition that fails.
    """
    first = fits[0]
    for i, f in enumerate(fits[1:], start=2):
        for label, get in (("rows", index), ("responses", response), ("weights", weights),
                           ("offsets", offset)):
            a, b = get(first), get(f)
            same = a.equals(b) if hasattr(a, "equals") else _same(a, b)
            if not same:
                extra = (" (one has an offset, the other none)" if label == "offsets" and
                         (a is None) != (b is None) else "")
                raise ModelComparisonError(
                    f"{what}: fit {i} and fit 1 were fitted on different {label}{extra}; "
                    "nested tests "
                    "compare fits of the same rows, response, weights and offset. Fit both "
                    "models to the same data (drop missing values first) with the same "
                    "weights and offset.")
    for i in range(1, len(fits)):
        a, b = fits[i - 1], fits[i]
        small, big = (a, b) if size(a) <= size(b) else (b, a)
        if not nested_columns(design(small), design(big)):
            raise ModelComparisonError(
                f"{what}: fits {i} and {i + 1} are not nested: the columns of the smaller "
                f"model ({getattr(small, 'formula', '?')!r}) are not in the span of the "
                f"larger one's ({getattr(big, 'formula', '?')!r}), so the difference of "
                "their deviances has no chi-squared distribution; compare non-nested models "
                "by AIC or cross-validated F.")
