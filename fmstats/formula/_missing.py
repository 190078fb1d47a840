"""Rows with missing or non-finite values: the mask, the drop, and its warning or error.

Used by ``_frame.py`` (``model_frame``, ``DesignSpec.build`` and the Dask model frame,
which re-export these names under their old private spellings) and
``fmstats/model_selection/_folds.py``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils.validation import warn
from ..exceptions import MissingDataError, MissingDataWarning

__all__ = ["nonfinite_mask", "drop_missing", "report_missing"]


def nonfinite_mask(frame: pd.DataFrame) -> np.ndarray:
    bad = np.zeros(len(frame), dtype=bool)
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_float_dtype(s.dtype):
            bad |= ~np.isfinite(s.to_numpy(dtype=float, na_value=np.nan))  # NaN and +-inf
        else:
            bad |= s.isna().to_numpy()
    return bad


def drop_missing(data: pd.DataFrame, columns: list[str], missing: str, arg: str) -> pd.DataFrame:
    """``data`` without the rows that have missing or non-finite values in ``columns``."""
    if not columns:
        return data
    bad = nonfinite_mask(data[columns])
    if not bad.any():
        return data
    per_col = {c: int(nonfinite_mask(data[[c]]).sum()) for c in columns}
    report_missing(int(bad.sum()), len(data), per_col, missing, arg)
    return data.loc[~bad]


def report_missing(n_bad: int, n: int, per_col: dict, missing: str, arg: str) -> None:
    """Raise (``missing="raise"``) or warn about ``n_bad`` of ``n`` rows with missing values."""
    detail = ", ".join(f"{c}: {k}" for c, k in per_col.items() if k)
    if missing == "raise":
        raise MissingDataError(
            f"`{arg}` has {n_bad} row(s) with missing or non-finite values in the "
            f"model's columns ({detail}), which na_action='fail' (R's na.fail; missing='raise' "
            f"in the older spelling) makes an error; impute them, or use na_action='omit' to "
            f"drop those rows (R's default) or na_action='exclude' to drop them and pad "
            f"predict() and resid() with NA."
        )
    warn(
        f"dropped {n_bad} of {n} row(s) of `{arg}` with missing or non-finite "
        f"values ({detail}).",
        MissingDataWarning,
    )
