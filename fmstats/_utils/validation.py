"""Checks of user input, used at public entry points only.

Each helper either returns a cleaned value or raises an :class:`FmstatsError`
subclass whose message names the argument, the rule and the value received.
"""
from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, Iterable

import numpy as np

from ..exceptions import (DataError, FmstatsDeprecationWarning, InvalidArgumentError,
                          ResponseError, WeightsError)


def describe(value: Any, limit: int = 60) -> str:
    """A short printable description of a value for error messages."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def warn(message: str, category: type[Warning]) -> None:
    """Emit a warning attributed to the first caller outside the fmstats package."""
    import os
    import sys
    import warnings

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # fmstats/, not _utils/
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(pkg):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def num(value) -> str:
    """A number as plain text for messages (no numpy repr)."""
    try:
        return f"{float(value):g}"
    except (TypeError, ValueError):
        return repr(value)


def check_bool(name: str, value: Any) -> bool:
    """``True`` or ``False`` (numpy booleans too); anything else (``"yes"``, 1) raises."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidArgumentError(f"`{name}` must be True or False; got {describe(value)}.")


def interval_request(ci: Any, ci_method: Any, methods: tuple, *, default: str, call: str,
                     old_none: bool = False, method_needs_ci: bool = True,
                     name: str = "ci") -> tuple[bool, str]:
    """``(ci, ci_method)`` in fmstats' one vocabulary for intervals: ``ci`` asks for one
    (True or False), ``ci_method`` names how it is computed (one of ``methods``; None:
    ``default``).

    The old spelling, the method given as ``ci`` (``measure(ci="delta")``, ``bootstrap(ci=
    "bca")``), gives the same interval with a :class:`FmstatsDeprecationWarning` naming the
    new one; ``old_none``: ``ci=None`` was the old spelling of ``ci=False`` (bootstrap's),
    else it is read as False quietly (an unset ``ci``).  ``method_needs_ci``: a
    ``ci_method`` without ``ci=True`` has no effect and is refused.  ``name``: the switch's
    name (``"band"`` for the bands of ``f_curve``/``plot_pr``: ``band``, ``band_method``).
    """
    method_name = f"{name}_method"
    if isinstance(ci, str):
        method = check_choice(name, ci, methods)
        if ci_method is not None:
            raise InvalidArgumentError(
                f"`{name}={ci!r}` is the old spelling of `{name}=True, {method_name}={ci!r}`, "
                f"and `{method_name}={ci_method!r}` was given too; give `{name}=True` and one "
                f"`{method_name}`.")
        warn(f"{call}({name}={ci!r}) is the old spelling of {call}({name}=True, "
             f"{method_name}={ci!r}) (the same interval); it will be removed in a future "
             "version.", FmstatsDeprecationWarning)
        return True, method
    if ci is None:
        if old_none:
            warn(f"{call}({name}=None) is the old spelling of {call}({name}=False) (the same "
                 "results); it will be removed in a future version.", FmstatsDeprecationWarning)
        ci = False
    ci = check_bool(name, ci)
    if ci_method is None:
        return ci, default
    method = check_choice(method_name, ci_method, methods)
    if method_needs_ci and not ci:
        raise InvalidArgumentError(
            f"`{method_name}={ci_method!r}` names the method of an interval, and none was "
            f"asked for; add `{name}=True`.")
    return ci, method


def renamed_arguments(**renames: str) -> Callable:
    """Decorate a function whose keyword arguments ``old=new`` were renamed: the old keyword
    still works (the same numbers) with a :class:`FmstatsDeprecationWarning` naming the new
    one; both together are refused."""
    def wrap(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InvalidArgumentError(
                            f"`{old}` is the old name of `{new}`; give `{new}` only.")
                    warn(f"{f.__name__}({old}=...) is the old spelling of "
                         f"{f.__name__}({new}=...) (the same results); it will be removed in "
                         "a future version.", FmstatsDeprecationWarning)
                    kwargs[new] = kwargs.pop(old)
            return f(*args, **kwargs)
        return wrapper
    return wrap


#: A design column must spread (largest ``|x - centre|``) within this range, and a column of
#: new data stay within it in magnitude, so that X'WX and its inverse, the coefficients'
#: covariance (~ 1 / (n spread^2)), and x'Vx of a prediction are representable doubles.
SPREAD_RANGE = (1e-150, 1e150)

#: The dtypes that are not numbers although numpy converts them to floats: datetimes and
#: timedeltas (numpy/pandas give their integer nanoseconds or microseconds, which no model
#: should read as a quantity without being told the unit).
TEMPORAL_KINDS = ("m", "M")


def temporal_advice(label: str, dtype) -> str:
    """The rule and the conversions to offer for a datetime or timedelta ``dtype``."""
    kind = getattr(dtype, "kind", None)
    if kind == "m":
        how = (f"a number in the unit you mean, e.g. {label}.dt.total_seconds() or "
               f"{label} / pd.Timedelta(days=1)")
    else:
        how = (f"a number in the unit you mean, e.g. ({label} - {label}.min()).dt.days, or a "
               f"factor such as C({label}.dt.year)")
    return (f"has dtype {dtype}, which is not a number: its integer nano- or microseconds "
            f"would be used without a word about the unit. Convert it to {how}")


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    choices = tuple(choices)
    if value not in choices:
        raise InvalidArgumentError(
            f"`{name}` must be one of {', '.join(map(repr, choices))}; got {describe(value)}."
        )
    return value


def check_scalar(name: str, value: Any, *, low=None, high=None, low_open=False,
                 high_open=False, integer=False) -> float | int:
    """Check a real (or integer) scalar lies in the given interval."""
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        what = "an integer" if integer else "a real number"
        raise InvalidArgumentError(f"`{name}` must be {what}; got {describe(value)}.")
    if not np.isfinite(value):
        raise InvalidArgumentError(f"`{name}` must be finite; got {value!r}.")
    bad_low = low is not None and (value <= low if low_open else value < low)
    bad_high = high is not None and (value >= high if high_open else value > high)
    if bad_low or bad_high:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        lo_v = "-inf" if low is None else low
        hi_v = "inf" if high is None else high
        raise InvalidArgumentError(
            f"`{name}` must lie in {lo}{lo_v}, {hi_v}{hi}; got {value!r}."
        )
    return value


def check_level(level) -> float:
    """``level`` in (0, 1), as a float (an :class:`InvalidArgumentError` naming it otherwise):
    the check of every confidence level of fmstats.

    Parameters
    ----------
    level : float
        The confidence level given.

    Returns
    -------
    float
        ``level`` as a float.
    """
    return float(check_scalar("level", level, low=0, high=1, low_open=True, high_open=True))


def raise_if_any(bad: np.ndarray, error: type, message) -> None:
    """Raise ``error(message(i, count))`` when any entry of the mask ``bad`` is set.

    ``i`` is the position of the first offending entry (an index tuple for arrays of more
    than one dimension), ``count`` the number of offending entries: every "the first bad
    value" check of fmstats goes through here, so each names the argument, the rule, the
    first value and how many there are.
    """
    bad = np.asarray(bad, dtype=bool)
    if not bad.any():
        return
    flat = int(np.flatnonzero(bad)[0])
    i = flat if bad.ndim <= 1 else tuple(int(v) for v in np.unravel_index(flat, bad.shape))
    raise error(message(i, int(bad.sum())))


def as_float_vector(name: str, value: Any, n: int | None = None) -> np.ndarray:
    """Convert to a 1-d float array, checking its length when ``n`` is given."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind in TEMPORAL_KINDS:
        raise InvalidArgumentError(f"`{name}` {temporal_advice(name, value.dtype)}.")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"`{name}` must be numeric; got {describe(value)} ({exc})."
        ) from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise InvalidArgumentError(f"`{name}` must be one-dimensional; got shape {arr.shape}.")
    if n is not None and arr.shape[0] != n:
        raise InvalidArgumentError(
            f"`{name}` must have length {n} (one value per row); got length {arr.shape[0]}."
        )
    return arr


def check_weights(name: str, weights: Any, n: int) -> np.ndarray:
    """Prior/sample weights: finite, non-negative, right length, not all zero."""
    if weights is None:
        return np.ones(n)
    if getattr(getattr(weights, "dtype", None), "kind", None) in TEMPORAL_KINDS:
        raise WeightsError(f"`{name}` {temporal_advice(name, weights.dtype)}.")
    w = as_float_vector(name, weights)
    if w.shape[0] != n:
        raise WeightsError(
            f"`{name}` must have one value per row ({n}); got length {w.shape[0]}."
        )
    raise_if_any(~np.isfinite(w), WeightsError, lambda i, k: (
        f"`{name}` must be finite; got {k} non-finite value(s), the first at position {i} "
        f"({num(w[i])})."))
    neg = w < 0
    if neg.any():
        i = int(np.flatnonzero(neg)[0])
        raise WeightsError(
            f"`{name}` must be non-negative; got {int(neg.sum())} negative value(s), "
            f"the first at position {i} ({num(w[i])})."
        )
    if not (w > 0).any():
        raise WeightsError(f"`{name}` must not be all zero; every one of the {n} weights is 0.")
    return w


def _weight_values(values, label: str) -> np.ndarray:
    """A column or Series of weights as floats (``pd.NA`` as NaN); text raises."""
    import pandas as pd

    if getattr(values.dtype, "kind", None) in TEMPORAL_KINDS:
        raise WeightsError(f"`{label}` {temporal_advice('weights', values.dtype)}.")
    if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        return values.to_numpy(dtype=float, na_value=np.nan)
    num_ = pd.to_numeric(values, errors="coerce")
    bad = num_.isna() & values.notna()
    if bad.any():
        shown = pd.unique(values[bad].to_numpy())[:5]
        raise WeightsError(
            f"`{label}` must be numeric; got dtype {values.dtype} with {int(bad.sum())} value(s) "
            f"that are not numbers ({', '.join(map(repr, shown))}), e.g. at row "
            f"{values.index[np.flatnonzero(bad.to_numpy())[0]]!r}.")
    return num_.to_numpy(dtype=float, na_value=np.nan)


def _aligned(weights, index, name: str):
    """A Series of weights aligned on ``data``'s index (by label, as pandas aligns)."""
    if weights.index.equals(index):
        return weights
    if not weights.index.is_unique:
        dup = weights.index[weights.index.duplicated()].unique()[:5]
        raise WeightsError(
            f"`{name}` is a pandas Series, which is aligned on `data`'s index by label, but its "
            f"index has duplicated labels ({', '.join(map(repr, dup))}); give one weight per "
            f"label, or pass `{name}.to_numpy()` to use the weights by position.")
    absent = ~index.isin(weights.index)
    if absent.any():
        shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v)
                          for v in index[absent][:5])
        raise WeightsError(
            f"`{name}` is a pandas Series, which is aligned on `data`'s index by label, but "
            f"{int(absent.sum())} of the {len(index)} row label(s) of `data` are missing from "
            f"its index ({shown}{', ...' if absent.sum() > 5 else ''}); reindex it like `data`, "
            f"or pass `{name}.to_numpy()` to use the weights by position.")
    if not index.is_unique:
        raise WeightsError(
            f"`{name}` is a pandas Series with an index other than `data`'s, and `data`'s index "
            f"has duplicated labels, so the weights cannot be aligned by label; give the Series "
            f"`data`'s index, or pass `{name}.to_numpy()` to use the weights by position.")
    return weights.reindex(index)


def prior_weights(weights: Any, data, rows=None, name: str = "weights") -> np.ndarray:
    """Prior weights of the rows of ``data``, checked; the shared reading of ``weights=``.

    ``weights`` is ``None`` (all 1), the name of a numeric column of ``data``, a pandas Series
    (aligned on ``data``'s index by label; labels of ``data`` missing from it raise) or an
    array-like with one value per row (by position).  ``rows`` are the positions of the rows
    a model uses (after dropping missing values); the weights of those rows are returned and
    must not all be zero.  Used by the maxent and SVM model functions.
    """
    import pandas as pd

    n = len(data)
    if weights is None:
        return np.ones(n if rows is None else len(rows))
    if isinstance(weights, str):
        if weights not in data.columns:
            raise WeightsError(f"`{name}` names column {weights!r}, which is not in `data`.")
        label = f"{name} (column '{weights}')"
        col = data.loc[:, weights]
        if isinstance(col, pd.DataFrame):
            raise WeightsError(f"`{name}` names column {weights!r}, which appears "
                               f"{col.shape[1]} times in `data`; column names must be unique.")
        w = check_weights(label, _weight_values(col, label), n)
    elif isinstance(weights, pd.Series):
        w = check_weights(name, _weight_values(_aligned(weights, data.index, name), name), n)
    elif isinstance(weights, pd.DataFrame):
        raise WeightsError(f"`{name}` must be a column name, a Series or a one-dimensional "
                           f"array; got a DataFrame of shape {weights.shape}.")
    else:
        w = check_weights(name, weights, n)
    if rows is None:
        return w
    w = w[rows]
    if not (w > 0).any():
        raise WeightsError(f"`{name}` are all zero on the rows left after dropping missing "
                           "values.")
    return w


def check_probabilities(name: str, values: Any, n: int | None = None) -> np.ndarray:
    """Values in [0, 1], finite."""
    p = as_float_vector(name, values, n)
    raise_if_any(~np.isfinite(p), ResponseError, lambda i, k: (
        f"`{name}` must be finite probabilities; position {i} holds {num(p[i])}."))
    out = (p < 0) | (p > 1)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ResponseError(
            f"`{name}` must be probabilities in [0, 1]; got {int(out.sum())} value(s) "
            f"outside, the first at position {i} ({num(p[i])})."
        )
    return p


def check_binary(name: str, values: Any, n: int | None = None) -> np.ndarray:
    """A 0/1 (or boolean) vector, returned as float."""
    y = as_float_vector(name, values, n)
    raise_if_any(~((y == 0) | (y == 1)), ResponseError, lambda i, k: (
        f"`{name}` must contain only 0 and 1; position {i} holds {num(y[i])}."))
    return y


def check_nonempty(name: str, n_rows: int) -> None:
    if n_rows == 0:
        raise DataError(f"`{name}` has no rows; at least one row is needed.")


def check_random_state(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """None, a non-negative integer, a SeedSequence or a Generator -> a numpy Generator.

    A Generator is returned as is (so the caller's stream advances); anything else
    seeds a fresh one.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
            and random_state >= 0):
        return np.random.default_rng(int(random_state))
    raise InvalidArgumentError(
        f"`{name}` must be None, a non-negative integer or a numpy.random.Generator; "
        f"got {describe(random_state)}.")
