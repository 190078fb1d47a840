"""The model frame of a Dask DataFrame: a lazy design, built partition by partition.

:func:`dask_model_frame` is :func:`fmstats.formula.model_frame` for data that does not fit
in memory (used by ``fmstats/maxent_models/_outofcore.py``): one pass collects the missing
values, the levels of the factor columns and the range of the response; the formula engine
then learns the design on a small prototype frame holding every level, and the design is
rebuilt on each partition from that spec.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._coerce import (
    check_unique_columns,
    coerce_columns,
    factor_only_columns,
    is_text,
    merge_text_stats,
    object_note,
    object_states,
    text_stats,
    text_verdict,
)
from ._checks import check_column_kinds, check_flat_columns, check_intercept_name
from ._missing import nonfinite_mask as _nonfinite_mask
from ._missing import report_missing as _report_missing
from ._response import Response
from ._response import binary_from_series as _binary_from_series
from ._response import eval_expr as _eval_expr
from ._response import response as _response
from .._utils.validation import check_choice, num
from ..exceptions import DataError, InvalidArgumentError, ResponseError, UnseenLevelError, WeightsError
from ._frame import (DEFAULT_ENGINE, ENGINES, DesignSpec, categorical_states, design_and_spec,
                      direct_design, expand_dot, factor_column, formula_names, parse_response,
                      split_formula, stateful_transform, used_variables)

__all__ = ["DaskModelFrame", "dask_model_frame"]

_FACTOR_CALL = re.compile(r"\b(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?")
_SAMPLE_ROWS = 5


@dataclass(frozen=True)
class DaskModelFrame:
    """The Dask counterpart of :class:`ModelFrame`.

    ``response.y``/``response.trials``, ``X`` and ``prior`` are dask arrays with one row block
    per non-empty partition (known sizes); there is no row index.  ``prior`` holds the
    ``weights`` column (or is ``None``).

    Parameters
    ----------
    formula : str
        The model formula.
    response : Response
        The response (``y`` and ``trials`` as dask arrays).
    X : dask.array.Array
        The design, one row block per non-empty partition.
    prior : dask.array.Array or None
        The prior weights (the ``weights`` column), or None.
    column_names : tuple of str
        The design's column names.
    spec : DesignSpec
        The design specification that rebuilds the design on each partition.
    n_input : int
        The rows of ``data``.
    n_dropped : int
        The rows dropped for missing values.
    npartitions : int
        The partitions of ``data``.
    direct : tuple or None, default None
        The plan of a design read directly from the columns (no engine), or None.
    largest_partition : tuple of int, default (0, 0)
        (rows, bytes in memory) of the partition of ``data`` that takes the most memory.
    """

    formula: str
    response: Response
    X: Any
    prior: Any
    column_names: tuple[str, ...]
    spec: DesignSpec
    n_input: int
    n_dropped: int
    npartitions: int
    direct: tuple | None = None    # the design filled from the columns (None: by the engine)
    largest_partition: tuple = (0, 0)
    index = None  # rows stay in the partitions


def _is_factor_dtype(dtype) -> bool:
    return not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)


def _first_bad(values: np.ndarray, bad: np.ndarray, index: pd.Index):
    """(count, index label of the first, its value) of the flagged entries."""
    i = int(np.flatnonzero(bad)[0])
    label = index[i]
    return int(bad.sum()), label.item() if isinstance(label, np.generic) else label, \
        float(values[i])


def _partition_numbers(part: pd.DataFrame, objects, numeric=None) -> pd.DataFrame:
    """A partition with its object columns of numbers as float (``numeric``: those known to
    hold numbers over all partitions)."""
    if not objects:
        return part
    part = coerce_columns(part, objects, "data", text=False, note=False)
    if numeric:
        part = part.astype({c: float for c in numeric})
    return part


def _kind(dtype) -> str:
    """The kind of values a dtype holds, as far as a model is concerned."""
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_numeric_dtype(dtype):
        return "number"
    if dtype == object:
        return "object"
    if isinstance(dtype, pd.StringDtype):
        return "text"
    return str(dtype)


#: What a partition may hold where the meta declares a kind (numbers of any width are numbers;
#: an object column may hold anything its partitions agree on, text or numbers).
_COMPATIBLE = {"object": {"object", "text", "number", "bool"}, "text": {"object", "text"}}


def check_partition(part: pd.DataFrame, meta: pd.DataFrame, columns, i: int) -> None:
    """Raise :class:`DataError` when partition ``i`` holds another kind of values than the
    Dask DataFrame's meta declares for a used column (text where numbers are declared,
    dates, ...): every partition is read with the rules the meta implies."""
    where = f" (partition {i})"
    for col in dict.fromkeys(columns):
        want, got = _kind(meta[col].dtype), _kind(part[col].dtype)
        if got != want and got not in _COMPATIBLE.get(want, ()):
            raise DataError(
                f"column '{col}' of `data`{where} has dtype {part[col].dtype}, but the Dask "
                f"DataFrame's meta declares {meta[col].dtype}; every partition must hold the "
                f"kind of values its meta declares. Fix the partition (e.g. "
                f"data.astype({{'{col}': '{meta[col].dtype}'}}) after converting its values), "
                "or give from_delayed/map_partitions the right meta.")


def _scan_partition(part: pd.DataFrame, i: int, used, variables, factors, categoricals,
                    resp_kind, resp_cols, resp_expr, weights, objects=(), texts=(),
                    meta=None) -> dict:
    """Per-partition facts for :func:`dask_model_frame`: counts, levels, response range."""
    if meta is not None:
        check_partition(part, meta, used + ([weights] if weights is not None else []), i)
    nbytes = int(part.memory_usage(deep=True).sum())
    part = _partition_numbers(part, objects)
    bad = _nonfinite_mask(part[used])
    out = {"n": len(part), "nbytes": nbytes, "missing": {c: int(_nonfinite_mask(part[[c]]).sum()) for c in used}
           if bad.any() else {}}
    if weights is not None:
        wv = part[weights].to_numpy(dtype=float, na_value=np.nan)
        out["w_nonfinite"] = _first_bad(wv, ~np.isfinite(wv), part.index) \
            if not np.isfinite(wv).all() else None
        out["w_negative"] = _first_bad(wv, wv < 0, part.index) if (wv < 0).any() else None
    clean = part.loc[~bad] if bad.any() else part
    out["n_clean"] = len(clean)
    out["sample"] = clean[list(variables)].head(_SAMPLE_ROWS)
    out["levels"] = {c: list(pd.unique(clean[c].to_numpy())) for c in factors
                     if c not in categoricals}
    out["categories"] = {c: list(part[c].cat.categories) for c in categoricals}
    out["used_categories"] = {c: set(clean[c].cat.remove_unused_categories().cat.categories)
                              for c in categoricals}
    out["objects"] = object_states(clean, objects)
    out["text"] = {c: text_stats(clean[c]) for c in texts if is_text(clean[c])}
    if resp_kind != "cbind":
        s = clean[resp_cols[0]] if resp_kind == "column" else _eval_expr(resp_expr, clean)
        if _is_factor_dtype(s.dtype):
            out["resp_values"] = list(pd.unique(s.to_numpy()))
            if isinstance(s.dtype, pd.CategoricalDtype):
                out["resp_categories"] = list(s.cat.categories)
        else:
            y = s.to_numpy(dtype=float)
            out["resp_out"] = _first_bad(y, (y < 0) | (y > 1), clean.index) \
                if ((y < 0) | (y > 1)).any() else None
            out["resp_01"] = bool(np.all((y == 0) | (y == 1)))
    return out


def _union(lists) -> list:
    seen: dict = {}
    for lst in lists:
        for v in lst:
            seen.setdefault(v, None)
    return list(seen)


def _build_partition(part: pd.DataFrame, used, spec: DesignSpec, kind, cols, expr, lhs,
                     levels, weights, numeric=(), i: int = 0, direct=None):
    """(X, y, trials, prior weights) of one partition, without its incomplete rows (the design
    filled from the columns when ``direct`` says how, as :func:`model_frame` does)."""
    part = _partition_numbers(part, numeric, numeric)
    bad = _nonfinite_mask(part[used])
    clean = part.loc[~bad] if bad.any() else part
    resp = _response(kind, cols, expr, clean, lhs, levels=levels)
    X, _ = spec.build(clean, missing="raise", arg="data", where=f" (partition {i})",
                      direct=direct)
    prior = None if weights is None else clean[weights].to_numpy(dtype=float)
    return X, resp.y, resp.trials, prior


def _check_dask_weights(scans, weights: str) -> None:
    for key, rule in (("w_nonfinite", "finite"), ("w_negative", "non-negative")):
        hits = [s[key] for s in scans if s[key] is not None]
        if hits:
            raise WeightsError(
                f"`weights (column '{weights}')` must be {rule}; got "
                f"{sum(h[0] for h in hits)} value(s) that are not, the first at row "
                f"{hits[0][1]!r} ({num(hits[0][2])}).")


def _dask_levels(meta: pd.DataFrame, scans, factors, categoricals) -> dict:
    """Levels of every factor column over all partitions (declared categories are checked)."""
    levels = {c: _union(s["levels"][c] for s in scans) for c in factors if c not in categoricals}
    for c in categoricals:
        declared = meta[c].cat.categories
        if len(declared) and not declared.equals(pd.Index(["__UNKNOWN_CATEGORIES__"])):
            for i, s in enumerate(scans):
                extra = [v for v in s["categories"][c] if v not in set(declared)]
                if extra:
                    raise UnseenLevelError(
                        f"column '{c}' of partition {i} of `data` has level {extra[0]!r}, which "
                        f"its declared categories do not include (known levels: "
                        f"{', '.join(map(repr, declared))}); fix the partition or the meta, "
                        "e.g. with `data.categorize()`.")
            levels[c] = list(declared)
        else:  # unknown categories: their union, in order of appearance
            levels[c] = _union(s["categories"][c] for s in scans)
        # like model_frame (R's drop.unused.levels): only the categories that occur
        occurring = set().union(*(s["used_categories"][c] for s in scans))
        levels[c] = [v for v in levels[c] if v in occurring]
    return levels


def _dask_object_numbers(scans, objects) -> list:
    """The object columns that hold numbers in every partition (warned about once); a column
    holding numbers in some partitions and text in others raises."""
    numeric = []
    for c in objects:
        states = {s["objects"][c] for s in scans} - {"none"}
        if states == {"numbers"}:
            numeric.append(c)
            object_note(c, "data", "numbers", np.dtype(float))
        elif len(states) > 1:
            which = [i for i, s in enumerate(scans) if s["objects"][c] == "text"]
            raise DataError(
                f"column '{c}' of `data` holds numbers in some partitions and text in others "
                f"(text in partition(s) {', '.join(map(str, which[:5]))}); a column must hold "
                f"numbers or text, not both. Fix those values, or write C({c}) to use the "
                "column as a factor.")
    return numeric


def _prototype(meta: pd.DataFrame, scans, variables, levels: dict) -> pd.DataFrame:
    """A small frame on which the engine learns the design: real rows (valid for numeric
    transforms) with every level of every factor column."""
    sample = next(s["sample"] for s in scans if len(s["sample"]))
    n = max([len(sample), 2] + [len(v) for v in levels.values()])
    proto = sample.iloc[np.arange(n) % len(sample)].reset_index(drop=True)
    for c, lv in levels.items():
        vals = [lv[i % len(lv)] for i in range(n)]
        if isinstance(meta[c].dtype, pd.CategoricalDtype):
            proto[c] = pd.Categorical(vals, categories=lv)
        else:
            proto[c] = pd.Series(vals, dtype=meta[c].dtype if lv else object)
    return proto


def dask_model_frame(formula: str, data, *, missing: str = "drop", engine: str | None = None,
                     weights: str | None = None) -> DaskModelFrame:
    """:func:`model_frame` for a Dask DataFrame: a lazy design, built partition by partition.

    One pass over ``data`` counts the rows with missing values, collects the levels of the
    factor columns (strings, booleans, categoricals, ``C(x)``) and the range of the response;
    the engine then learns the design on a small prototype frame holding every level, and
    the design is rebuilt on each partition from that spec (so the columns equal those of
    :func:`model_frame` on the whole data).  Categoricals with known categories keep them
    (a partition holding another level raises :class:`UnseenLevelError`); unknown
    categories become their union.  Stateful transforms (``center``, ``scale``, ``poly``,
    splines) are refused: they would be learnt from the prototype, not from the data.

    Parameters
    ----------
    formula : str
        The model formula.
    data : dask.dataframe.DataFrame
        The data.
    missing : {"drop", "raise"}, default "drop"
        What a row with a missing value does.
    engine : {"formulaic", "patsy"}, optional
        The formula engine (None: the default engine).
    weights : str, optional
        The column of the prior weights.

    Returns
    -------
    DaskModelFrame
        The lazy model frame.
    """
    import dask
    import dask.array as da
    from dask import delayed

    engine = DEFAULT_ENGINE if engine is None else engine
    check_choice("engine", engine, ENGINES)
    check_choice("missing", missing, ("drop", "raise"))
    meta = data._meta
    check_flat_columns(meta.columns, "data")
    lhs, rhs = split_formula(formula)
    transform = stateful_transform(rhs)
    if transform is not None:
        raise InvalidArgumentError(
            f"`formula` uses the stateful transform {transform}(), whose state would not be "
            "learnt from the whole Dask DataFrame; compute the column beforehand (e.g. with "
            "data.assign(...)) or fit in memory.")
    kind, resp_cols, expr = parse_response(lhs, meta)
    rhs = expand_dot(rhs, [c for c in meta.columns if c != weights], resp_cols, engine)
    variables = used_variables(rhs, meta)
    check_intercept_name(variables, "data")
    if weights is not None and weights not in meta.columns:
        raise WeightsError(f"`weights` names column {weights!r}, which is not in `data`.")
    used = list(dict.fromkeys(resp_cols + variables))
    check_unique_columns(meta, used, "data")
    called = set(_FACTOR_CALL.findall(rhs))
    factor_only = factor_only_columns(rhs, variables, formula_names)
    check_column_kinds(meta, [c for c in used if c not in factor_only], "data")
    objects = [c for c in used if meta[c].dtype == object and c not in factor_only]
    texts = [c for c in used if c not in factor_only
             and (meta[c].dtype == object or isinstance(meta[c].dtype, pd.StringDtype))]
    factors = [c for c in variables if c in called or _is_factor_dtype(meta[c].dtype)]
    categoricals = [c for c in factors if isinstance(meta[c].dtype, pd.CategoricalDtype)]
    parts = data.to_delayed()
    scan = delayed(_scan_partition, pure=False)
    scans = dask.compute(*[scan(part, i, used, variables, factors, categoricals, kind, resp_cols,
                                expr, weights, objects, texts, meta) for i, part in enumerate(parts)])
    numeric = _dask_object_numbers(scans, objects)
    factors = [c for c in factors if c not in numeric or c in called]
    n_input = sum(s["n"] for s in scans)
    n_clean = sum(s["n_clean"] for s in scans)
    if weights is not None:
        _check_dask_weights(scans, weights)
    if n_clean < n_input:
        per_col = {c: sum(s["missing"].get(c, 0) for s in scans) for c in used}
        _report_missing(n_input - n_clean, n_input, per_col, missing, "data")
    if n_clean == 0:
        raise DataError(f"no rows of `data` remain after dropping the {n_input} row(s) with "
                        f"missing values in the model's columns.")
    levels = _dask_levels(meta, scans, factors, categoricals)
    for c in texts:  # the rules of model_frame for text that reads as numbers
        stats = [s["text"][c] for s in scans if c in s["text"]]
        if stats and c not in numeric:
            text_verdict(c, "data", merge_text_stats(stats), len(levels.get(c, ())) or None)

    resp_levels, resp_kind = None, "counts"
    if kind != "cbind":
        first = next(s for s in scans if s["n_clean"])
        if "resp_values" in first:
            values = _union(s.get("resp_values", ()) for s in scans)
            if "resp_categories" in first:
                values = pd.Categorical(values, categories=_union(s["resp_categories"]
                                                                  for s in scans))
            _, resp_levels = _binary_from_series(pd.Series(values), lhs)
            resp_kind = "binary"
        else:
            out = [s["resp_out"] for s in scans if s["resp_out"] is not None]
            if out:
                raise ResponseError(
                    f"the response '{lhs}' must be 0/1 labels or probabilities in [0, 1]; row "
                    f"{out[0][1]!r} holds {num(out[0][2])} ({sum(o[0] for o in out)} value(s) "
                    "outside [0, 1]).")
            resp_kind = "binary" if all(s["resp_01"] for s in scans) else "probability"

    proto = _prototype(meta, scans, variables, levels)
    X0, spec, _ = design_and_spec(engine, rhs, lhs, proto, variables, resp_levels)
    strays = [e for e in categorical_states(engine, spec.engine_object())
              if factor_column(e) not in levels]
    if strays:
        raise InvalidArgumentError(
            f"`formula` term {strays[0]!r} is categorical but not a column of `data`: its levels "
            "cannot be collected out of core; add it as a column (data.assign(...)) first.")
    p = len(spec.column_names)
    # the prototype holds every level: where filling the design from the columns reproduces
    # the engine's design of it exactly, the partitions are filled so (as model_frame does)
    direct = (direct_design(spec, proto, factors, X0, np.arange(len(proto)))
              if engine == "formulaic" else None)
    build = delayed(_build_partition, pure=False)
    blocks = [(build(part, used, spec, kind, resp_cols, expr, lhs, resp_levels, weights, numeric,
                     i, direct), s["n_clean"]) for i, (part, s) in enumerate(zip(parts, scans))
              if s["n_clean"]]

    def stack(i, shape):
        return da.concatenate([da.from_delayed(b[i], shape=(k,) + shape, dtype=float)
                               for b, k in blocks])

    response = Response(name=lhs, kind=resp_kind, y=stack(1, ()),
                        trials=stack(2, ()) if kind == "cbind" else None, levels=resp_levels)
    return DaskModelFrame(formula=formula, response=response, X=stack(0, (p,)),
                          prior=stack(3, ()) if weights is not None else None,
                          column_names=spec.column_names, spec=spec, n_input=n_input,
                          n_dropped=n_input - n_clean, npartitions=len(parts), direct=direct,
                          largest_partition=max(((s["n"], s["nbytes"]) for s in scans),
                                                key=lambda t: t[1]))
