"""Input checks of the multi-label models: label and feature columns, penalties, folds,
inference names (used by ``_fitting.py`` and ``_results``)."""
from __future__ import annotations

import numbers
import re
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .._utils.validation import check_choice, check_scalar, describe
from ..exceptions import (
    DataError,
    FormulaError,
    InvalidArgumentError,
    MissingDataError,
    ResponseError,
)
from ..formula import split_formula

__all__ = ["INFERENCES", "DEFAULT_PENALTIES", "EXACT_MAX_LABELS", "SAMPLE_BLOCK", "resolve_columns",
           "feature_matrix", "label_matrix", "check_penalties", "check_cv", "check_n_samples",
           "check_inference"]

#: The inference methods understood by ``predict``, in the order of Table 1 of the paper.
INFERENCES = ("hamming", "gfm", "gfm-t", "meuf-approx", "meuf", "lewis")

#: Default grid of per-row ridge penalties tried by cross-validation (half decades).
DEFAULT_PENALTIES = tuple(float(v) for v in 10.0 ** np.arange(-4.0, 1.01, 0.5))

#: Largest number of (instance, sample, label) cells sampled at once; larger requests are
#: split into blocks of instances so that memory stays bounded.
SAMPLE_BLOCK = 1 << 23

#: Largest m accepted by :meth:`PCCResults.exact_P` (it enumerates all 2^m label vectors).
EXACT_MAX_LABELS = 16

NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.]*$")


# ----------------------------------------------------------------------------------------
# input checks
# ----------------------------------------------------------------------------------------
def parse_side(side: str, formula: str) -> list[str]:
    """``a + b + `c d``` -> ["a", "b", "c d"]; anything else is a FormulaError."""
    names = []
    for term in side.split("+"):
        term = term.strip()
        if len(term) >= 2 and term[0] == term[-1] == "`":
            term = term[1:-1]
        elif not NAME.match(term):
            raise FormulaError(
                f"`formula` {formula!r}: multi-label formulas take '+'-separated column names "
                f"(back-quote unusual names, '.' on the right for all other columns); cannot "
                f"use the term {term!r}.")
        names.append(term)
    return names


def resolve_columns(data: pd.DataFrame, labels: Any, features: Any
                     ) -> tuple[list[str], list[str]]:
    """Label and feature column names from a formula or from lists."""
    if isinstance(labels, str) and "~" in labels:
        formula = labels
        if features is not None:
            raise InvalidArgumentError(
                "give the features either on the right of the formula or as `features`, not "
                f"both; got formula {formula!r} and features={describe(features)}.")
        lhs, rhs = split_formula(formula)
        labels = parse_side(lhs, formula)
        features = None if rhs.strip() == "." else parse_side(rhs, formula)
        unknown = [c for c in labels + (features or []) if c not in data.columns]
        if unknown:
            raise FormulaError(
                f"`formula` {formula!r} uses column(s) {', '.join(map(repr, unknown))} not "
                f"found in `data`.")
    else:
        if isinstance(labels, str):
            labels = [labels]
        if labels is None:
            raise InvalidArgumentError(
                "`labels` is required: a list of 0/1 label columns or a formula such as "
                "'y1 + y2 ~ .'.")
        labels = list(labels)
        if isinstance(features, str):
            features = [features]
        features = None if features is None else list(features)
        for arg, cols in (("labels", labels), ("features", features or [])):
            unknown = [c for c in cols if c not in data.columns]
            if unknown:
                raise InvalidArgumentError(
                    f"`{arg}` names column(s) {', '.join(map(repr, unknown))} not found in "
                    f"`data` (columns: {', '.join(map(str, list(data.columns)[:12]))}"
                    f"{', ...' if data.shape[1] > 12 else ''}).")
    if not labels:
        raise InvalidArgumentError("`labels` must name at least one label column; got none.")
    dup = sorted({c for c in labels if labels.count(c) > 1})
    if dup:
        raise InvalidArgumentError(f"`labels` lists column(s) {dup} more than once.")
    if features is None:
        features = [c for c in data.columns if c not in labels]
    both = [c for c in features if c in labels]
    if both:
        raise InvalidArgumentError(
            f"column(s) {', '.join(map(repr, both))} cannot be both a label and a feature.")
    if len(set(features)) != len(features):
        raise InvalidArgumentError("`features` lists a column more than once.")
    return labels, features


def feature_matrix(data: pd.DataFrame, features: Sequence[str], name: str) -> np.ndarray:
    missing = [c for c in features if c not in data.columns]
    if missing:
        raise DataError(
            f"`{name}` lacks the feature column(s) {', '.join(map(repr, missing[:10]))}"
            f"{' ...' if len(missing) > 10 else ''} used by the model.")
    for c in features:
        dt = data[c].dtype
        if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt)):
            raise DataError(
                f"feature column {c!r} of `{name}` must be numeric or boolean; got dtype "
                f"{dt}. Encode factors as 0/1 columns first.")
    X = data[list(features)].to_numpy(dtype=float, na_value=np.nan) if features else \
        np.empty((len(data), 0))
    bad = ~np.isfinite(X)
    if bad.any():
        cols = [features[j] for j in np.flatnonzero(bad.any(axis=0))]
        raise MissingDataError(
            f"`{name}` has {int(bad.sum())} missing or non-finite feature value(s), in "
            f"column(s) {', '.join(map(repr, cols[:10]))}; drop or impute them first.")
    return np.ascontiguousarray(X)


def label_matrix(data: pd.DataFrame, labels: Sequence[str], name: str) -> np.ndarray:
    missing = [c for c in labels if c not in data.columns]
    if missing:
        raise DataError(
            f"`{name}` lacks the label column(s) {', '.join(map(repr, missing))}.")
    out = np.empty((len(data), len(labels)))
    for j, c in enumerate(labels):
        col = data[c]
        try:
            v = col.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise ResponseError(
                f"label column {c!r} of `{name}` must hold 0/1 values; got dtype "
                f"{col.dtype} (e.g. {col.iloc[0]!r}).") from None
        ok = (v == 0) | (v == 1)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ResponseError(
                f"label column {c!r} of `{name}` must hold only 0 and 1; row {i} "
                f"(index {data.index[i]!r}) holds {col.iloc[i]!r}.")
        out[:, j] = v
    return out


def check_penalties(penalty: Any, penalties: Any, m: int):
    """-> (mode, fixed (m,) or None, grid (L,) or None)."""
    grid = None
    if isinstance(penalty, str):
        check_choice("penalty", penalty, ("cv",))
        try:
            grid = np.asarray(list(penalties), dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"`penalties` must be a sequence of positive numbers; got "
                f"{describe(penalties)}.") from None
        if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) \
                or np.any(grid <= 0):
            raise InvalidArgumentError(
                f"`penalties` must be a non-empty sequence of positive finite numbers; got "
                f"{describe(penalties)}.")
        return "cv", None, np.unique(grid)[::-1]             # largest first: warm starts
    if isinstance(penalty, numbers.Real) and not isinstance(penalty, bool):
        check_scalar("penalty", penalty, low=0)
        return "fixed", np.full(m, float(penalty)), None
    try:
        fixed = np.asarray(list(penalty), dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"`penalty` must be 'cv', a non-negative number or one number per label; got "
            f"{describe(penalty)}.") from None
    if fixed.shape != (m,) or not np.all(np.isfinite(fixed)) or np.any(fixed < 0):
        raise InvalidArgumentError(
            f"`penalty` as a sequence must hold {m} non-negative numbers (one per label); "
            f"got {describe(penalty)}.")
    return "fixed", fixed, None


def check_cv(cv: Any, n: int):
    if hasattr(cv, "split"):
        return cv
    check_scalar("cv", cv, low=2, integer=True)
    if cv > n:
        raise InvalidArgumentError(f"`cv` ({cv}) cannot exceed the number of rows ({n}).")
    return int(cv)


def check_n_samples(n_samples: Any) -> int:
    check_scalar("n_samples", n_samples, low=1, integer=True)
    return int(n_samples)


def check_inference(inference: Any) -> str:
    if not isinstance(inference, str) or inference not in INFERENCES:
        raise InvalidArgumentError(
            f"`inference` must be one of {', '.join(map(repr, INFERENCES))}; got "
            f"{describe(inference)}.")
    return inference


