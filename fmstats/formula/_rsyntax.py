"""R's spelling inside formulas, translated for the Python formula engines.

Used by ``_frame.py`` only (the one module that talks to the engines).

* ``^`` is R's power operator everywhere in a formula: ``I(age^2)`` is the square and
  ``(a + b + c)^2`` the main effects with all two-way interactions.  Python (and so both
  engines, when they evaluate a term such as ``I(...)``) reads ``^`` as bitwise xor,
  and patsy does not know ``^`` between terms at all.  :func:`r_power` rewrites every
  ``^`` outside string literals and back-quoted names to ``**``, which both engines
  read as the power of terms between terms and as the arithmetic power inside a
  Python expression: exactly R's two meanings.  (Write ``a != b`` or
  ``np.logical_xor(a, b)`` for an exclusive or.)  Terms are named in the engines'
  Python spelling: ``I(age^2)`` becomes the coefficient ``I(age ** 2)``.
* R's elementary functions: ``log(x)`` (natural log, ``log(x, base)``), ``log2``,
  ``log10``, ``log1p``, ``exp``, ``expm1``, ``sqrt``, ``abs``, given to both engines by
  :data:`R_FUNCTIONS` (stateless, so re-applying a stored design is exact).

Examples
--------
>>> r_power("y ~ (a + b)^2 + I(x^2) + I(s == 'a^b')")
"y ~ (a + b)**2 + I(x**2) + I(s == 'a^b')"
>>> float(R_FUNCTIONS["log"](8.0, 2))
3.0
"""
from __future__ import annotations

import numpy as np

from ._scan import replace_top

__all__ = ["r_power", "R_FUNCTIONS"]


def _log(x, base=None):
    """R's ``log(x, base = exp(1))``."""
    out = np.log(x)
    return out if base is None else out / np.log(base)


#: R's elementary functions under their R names (all stateless).
R_FUNCTIONS = {"log": _log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
               "exp": np.exp, "expm1": np.expm1, "sqrt": np.sqrt, "abs": np.abs}


def r_power(text: str) -> str:
    """``text`` with every ``^`` outside quotes (``'...'``, ``"..."``, `````...`````) as ``**``.

    Quotes are read by the one scanner of formula text (:func:`fmstats.formula.split_top`'s
    rule: backslash escapes inside string literals are honoured).  Text without ``^`` outside
    quotes is returned unchanged (the same object).
    """
    return replace_top(text, "^", "**")
