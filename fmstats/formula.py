"""Formulas on DataFrames: the only module that talks to the formula engines.

``model_frame(formula, data)`` turns an R-style formula into a response
(0/1 labels, probabilities, or ``cbind(yes, no)`` counts), a design matrix and
a :class:`DesignSpec` that re-applies the same encoding to new data.  Two
engines sit behind it, ``"formulaic"`` (the default: it was faster at 1e6 rows
in ``benchmarks/bench_formula.py``) and ``"patsy"``; they give the same column
names and values, though patsy may order the columns differently (coefficients are
indexed by name, so fits agree term by term).  ``factor(x)`` is accepted as R's
spelling of ``C(x)``; ``^`` is R's power (``I(x^2)``, ``(a + b + c)^2``) and R's ``log``,
``sqrt``, ``log10``... are known to both engines (:mod:`fmstats._rsyntax`).

What is a number and what is a factor is decided in :mod:`fmstats._coerce` (an object column
of numbers is numeric, a mostly numeric column holding strings is an error, nullable dtypes
act like numpy's, unused categories are dropped); the response is read by
:mod:`fmstats._response` and rows with missing values by :mod:`fmstats._missing`.
"""
from __future__ import annotations

import io
import keyword
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._coerce import (
    check_numeric_columns,
    check_unique_columns,
    coerce_columns,
    drop_unused_categories,
    engine_frame,
    factor_only_columns,
    is_text,
    merge_text_stats,
    numeric_columns,
    object_note,
    object_states,
    text_stats,
    text_verdict,
)
from ._missing import drop_missing as _drop_missing
from ._missing import nonfinite_mask as _nonfinite_mask
from ._missing import report_missing as _report_missing
from ._response import Response
from ._response import binary_from_series as _binary_from_series
from ._response import eval_expr as _eval_expr
from ._response import response as _response
from ._rsyntax import R_FUNCTIONS, r_power
from ._validation import check_choice, describe, num
from .exceptions import (
    DataError,
    FmstatsError,
    FormulaError,
    InvalidArgumentError,
    ResponseError,
    UnseenLevelError,
    WeightsError,
)

__all__ = ["DesignSpec", "ModelFrame", "model_frame", "ENGINES", "DEFAULT_ENGINE"]

ENGINES = ("formulaic", "patsy")
DEFAULT_ENGINE = "formulaic"

_CBIND = re.compile(r"^\s*cbind\s*\((?P<args>.*)\)\s*$", re.S)


@dataclass(frozen=True)
class DesignSpec:
    """Everything needed to rebuild the design matrix for new data.

    Holds the engine's own fitted specification (factor levels, stateful
    transforms such as ``center``), the right-hand side, the column names and
    the levels of every categorical variable seen while fitting.
    """

    engine: str
    rhs: str
    column_names: tuple[str, ...]
    variables: tuple[str, ...]
    lhs: str = ""
    response_levels: tuple | None = None
    levels: dict = field(default_factory=dict, repr=False)
    engine_spec: Any = field(default=None, repr=False)
    # the variables that held numbers when fitting: new data must hold numbers there too
    # (a plain class default, so results pickled before this field existed still load)
    numeric: tuple = field(default=(), repr=False)
    # patsy's DesignInfo cannot be pickled; the used columns of the training frame are kept
    # instead and the DesignInfo is rebuilt from them (same data, so the same encoding and
    # the same stateful-transform states).
    patsy_data: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    def __getstate__(self):
        state = dict(self.__dict__)
        if self.engine == "patsy":
            state["engine_spec"] = None
        return state

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)
        if self.engine == "patsy" and self.engine_spec is None:
            object.__setattr__(self, "engine_spec", _build("patsy", self.rhs, self.patsy_data)[2])

    def build(self, data: pd.DataFrame, *, missing: str = "raise") -> tuple[np.ndarray, pd.Index]:
        """Design matrix for ``data`` using the stored encoding.

        Returns the matrix and the index of the rows it covers.  Rows with missing
        values in a used column raise (``missing="raise"``) or are dropped with a
        :class:`MissingDataWarning` (``missing="drop"``).  An unseen factor level
        raises :class:`UnseenLevelError` naming the column and the level; a column that was
        numeric when fitting must be numeric (an object column of numbers is converted, as
        when fitting).  Any failure of the engine is a :class:`DataError`.
        """
        data = _check_frame(data, "newdata")
        _check_columns(data, self.variables, self.rhs, "newdata")
        check_unique_columns(data, self.variables, "newdata")
        data = coerce_columns(data, self.numeric, "newdata", text=False)
        check_numeric_columns(data, self.numeric, "newdata")
        data = _drop_missing(data, list(self.variables), missing, "newdata")
        for col, seen in self.levels.items():
            vals = pd.unique(data[col]).tolist()
            unseen = [v for v in vals if v not in seen]
            if unseen:
                raise UnseenLevelError(
                    f"column '{col}' of `newdata` has level {unseen[0]!r}, which was not present "
                    f"when the model was fitted (known levels: {', '.join(map(repr, seen))})."
                )
            if isinstance(data[col].dtype, pd.CategoricalDtype) \
                    and list(data[col].cat.categories) != list(seen):
                data = data.assign(**{col: data[col].cat.set_categories(list(seen))})
        if len(data) == 0:
            return np.empty((0, len(self.column_names))), data.index
        data = engine_frame(data)
        try:
            if self.engine == "patsy":
                import patsy

                mat = patsy.build_design_matrices([self.engine_spec], data, NA_action="raise",
                                                  return_type="matrix")[0]
                X = np.asarray(mat, dtype=float)
            else:
                mm = self.engine_spec.get_model_matrix(data, output="numpy", na_action="raise",
                                                       context=_formulaic_context())
                X = np.asarray(mm, dtype=float)
        except FmstatsError:
            raise
        except Exception as exc:  # the engines raise many types
            msg = str(exc).strip().splitlines()
            raise DataError(
                f"`newdata` cannot be encoded with the design of the fitted model ('{self.rhs}'): "
                f"the formula engine '{self.engine}' raised {type(exc).__name__}: "
                f"{msg[0][:300] if msg else ''} Check that its columns have the types and "
                f"values they had when the model was fitted."
            ) from None
        X = np.ascontiguousarray(X)
        if X.shape[1] != len(self.column_names):  # pragma: no cover - engine invariant
            raise DataError("the stored design produced a different number of columns")
        return X, data.index


    def term_slices(self) -> list[tuple[str, slice]]:
        """The model terms in design order, each with its slice of design columns.

        The intercept is labelled ``"Intercept"``; other labels are the engine's
        (``"C(pclass):sex"``).  Used by :func:`fmstats.anova` for sequential tables.
        """
        out = []
        for term, sl in self.engine_spec.term_slices.items():
            label = term.name() if self.engine == "patsy" else str(term)
            out.append(("Intercept" if label in ("1", "Intercept") else label, sl))
        return out

    def build_with_response(self, data: pd.DataFrame, *, missing: str = "raise"):
        """Response and design matrix of new data (for measuring performance on it).

        Returns ``(response, X, index)``; a factor response is coded with the levels
        stored at fit time, so the positive class stays the same.
        """
        data = _check_frame(data, "newdata")
        kind, cols, expr = _parse_response(self.lhs, data)
        check_unique_columns(data, cols, "newdata")
        numeric = list(self.numeric) + (cols if self.response_levels is None else [])
        data = coerce_columns(data, numeric, "newdata", text=False)
        data = _drop_missing(data, list(dict.fromkeys(cols + list(self.variables))), missing,
                             "newdata")
        response = _response(kind, cols, expr, data, self.lhs, levels=self.response_levels)
        X, index = self.build(data, missing="raise")
        return response, X, index


@dataclass(frozen=True)
class ModelFrame:
    """Response, design matrix and provenance of one fit."""

    formula: str
    response: Response
    X: np.ndarray
    column_names: tuple[str, ...]
    spec: DesignSpec
    index: pd.Index
    rows: np.ndarray          # positions (0-based) of the used rows in the input frame
    n_input: int
    n_dropped: int


# --------------------------------------------------------------------------- parsing

def _check_frame(data, name: str) -> pd.DataFrame:
    if not isinstance(data, pd.DataFrame):
        if isinstance(data, dict):
            data = pd.DataFrame(data)
        else:
            raise InvalidArgumentError(f"`{name}` must be a pandas DataFrame; got {describe(data)}.")
    if data.shape[0] == 0:
        raise DataError(f"`{name}` has no rows; at least one row is needed.")
    return data


def split_formula(formula: str) -> tuple[str, str]:
    """Split ``"lhs ~ rhs"`` at its top-level tilde."""
    if not isinstance(formula, str):
        raise FormulaError(f"`formula` must be a string like 'y ~ x1 + x2'; got {describe(formula)}.")
    depth = 0
    for i, ch in enumerate(formula):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "~" and depth == 0:
            lhs, rhs = formula[:i].strip(), formula[i + 1:].strip()
            if not lhs:
                raise FormulaError(f"`formula` needs a response on the left of '~'; got {formula!r}.")
            if not rhs:
                raise FormulaError(f"`formula` needs terms on the right of '~' (use '1' for "
                                   f"an intercept only); got {formula!r}.")
            return lhs, rhs
    raise FormulaError(f"`formula` must have the form 'response ~ terms'; got {formula!r}.")


def formula_names(expr: str) -> list[str]:
    """Identifiers (and back-quoted names) used in a formula side, in order of appearance."""
    names: list[str] = []
    for m in re.finditer(r"`([^`]+)`", expr):
        names.append(m.group(1))
    expr = re.sub(r"`[^`]+`", " ", expr)
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(expr).readline))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise FormulaError(f"cannot parse formula term {expr!r}: {exc}") from None
    prev = None
    for i, tok in enumerate(toks):
        if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            is_call = nxt is not None and nxt.string in ("(", ".")
            is_attr = prev is not None and prev.string == "."
            if not is_call and not is_attr:
                names.append(tok.string)
        prev = tok
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


_DOT = re.compile(r"(?<![\w.])\.(?![\w.])")


def expand_dot(rhs: str, columns, exclude=(), engine: str | None = None) -> str:
    """R's ``.`` on the right of a formula: every column not used by the response.

    ``"y ~ . - x3"`` keeps working (the dot becomes a parenthesised sum).  Names that
    are not identifiers are quoted for the engine (backticks for formulaic, ``Q()``
    for patsy).
    """
    bare = re.sub(r"`[^`]*`", lambda m: "_" * len(m.group(0)), rhs)
    spots = [m.start() for m in _DOT.finditer(bare)]
    if not spots:
        return rhs
    patsy = (DEFAULT_ENGINE if engine is None else engine) == "patsy"
    names = [str(c) if str(c).isidentifier() else (f"Q({str(c)!r})" if patsy else f"`{c}`")
             for c in columns if c not in set(exclude)]
    if not names:
        raise FormulaError("`formula` uses '.' (all other columns) but `data` has no column "
                           "besides the response.")
    sub = "(" + " + ".join(names) + ")"
    for i in reversed(spots):
        rhs = rhs[:i] + sub + rhs[i + 1:]
    return rhs


def _check_columns(data: pd.DataFrame, names, formula: str, arg: str = "data") -> None:
    missing = [n for n in names if n not in data.columns]
    if missing:
        raise FormulaError(
            f"`formula` {formula!r} uses column(s) {', '.join(map(repr, missing))} not found in "
            f"`{arg}` (available: {', '.join(map(str, list(data.columns)[:20]))}"
            f"{', ...' if data.shape[1] > 20 else ''})."
        )


def _used_variables(rhs: str, data: pd.DataFrame) -> list[str]:
    names = formula_names(rhs)
    unknown = [n for n in names if n not in data.columns and n not in _ENGINE_NAMES]
    if unknown:
        raise FormulaError(
            f"`formula` uses {', '.join(map(repr, unknown))}, which is neither a column of "
            f"`data` nor a known function."
        )
    return [n for n in names if n in data.columns]


# names an engine resolves itself (functions, constants)
_ENGINE_NAMES = {"np", "C", "factor", "I", "Q", "center", "scale", "standardize", "poly",
                 "bs", "log", "exp", "sqrt", "abs", "Treatment", "Sum", "Helmert", "Diff",
                 "Poly", "True", "False", "None", "pi", "contr", "lag"} | set(R_FUNCTIONS)


def _parse_response(lhs: str, data: pd.DataFrame) -> tuple[str, list[str], str | None]:
    """Return (kind, columns, expression) where kind is 'cbind', 'column' or 'expr'."""
    m = _CBIND.match(lhs)
    if m:
        args = [a.strip().strip("`") for a in _split_args(m.group("args"))]
        if len(args) != 2:
            raise FormulaError(
                f"cbind() on the left of the formula takes exactly two columns (successes, "
                f"failures); got {len(args)}: {lhs!r}."
            )
        _check_columns(data, args, lhs)
        return "cbind", args, None
    name = lhs.strip("`").strip()
    if name in data.columns:
        return "column", [name], None
    names = formula_names(lhs)
    _check_columns(data, [n for n in names if n not in _ENGINE_NAMES], lhs)
    return "expr", [n for n in names if n in data.columns], lhs


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [a for a in out if a.strip()]


# --------------------------------------------------------------------------- engines

def _formulaic_context():
    from formulaic.transforms import C as fC

    return {"factor": fC, **R_FUNCTIONS}


def _build(engine: str, rhs: str, data: pd.DataFrame):
    """Run the engine on the right-hand side; return (X, names, engine_spec).

    R's ``^`` becomes ``**`` first (:func:`fmstats._rsyntax.r_power`); the engine's spec
    holds the rewritten terms, so re-applying it to new data needs no second rewrite.
    """
    data = engine_frame(data)
    rhs = r_power(rhs)
    try:
        if engine == "patsy":
            import patsy

            from patsy.builtins import C as pC

            env = patsy.EvalEnvironment([{"factor": pC, "C": pC, **R_FUNCTIONS}, {"np": np}])
            mat = patsy.dmatrix(rhs, data, NA_action="raise", eval_env=env, return_type="matrix")
            names = tuple(mat.design_info.column_names)
            return np.asarray(mat, dtype=float), names, mat.design_info
        from formulaic import model_matrix

        mm = model_matrix(rhs, data, output="numpy", na_action="raise",
                          context=_formulaic_context())
        spec = mm.model_spec
        names = tuple(spec.column_names)
        return np.asarray(mm, dtype=float), names, spec
    except FmstatsError:
        raise
    except Exception as exc:
        msg = str(exc).strip().splitlines()
        raise FormulaError(
            f"the formula engine '{engine}' could not build the design for '{rhs}': "
            f"{msg[0] if msg else type(exc).__name__}"
        ) from None


_FACTOR_EXPR = re.compile(r"^(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?\s*(?:,.*)?\)$", re.S)


def _categorical_states(engine: str, engine_spec) -> dict:
    """The engine's categorical terms (expression -> levels)."""
    if engine == "patsy":
        return {f.code: info.categories for f, info in engine_spec.factor_infos.items()
                if info.categories is not None}
    return {name: st.get("categories") for name, (kind, st)
            in engine_spec.encoder_state.items() if st.get("categories") is not None}


def _factor_column(expr: str) -> str:
    """The data column behind a categorical term ``col``, ``C(col, ...)`` or ``factor(col)``."""
    m = _FACTOR_EXPR.match(expr.strip())
    return expr.strip().strip("`") if m is None else m.group(1)


def _categorical_levels(engine: str, engine_spec, variables: list[str]) -> dict:
    """Levels of each categorical data column, read from the engine's fitted state.

    A factor ``col``, ``C(col)`` or ``factor(col)`` maps to the data column ``col``; the
    engine has already found its levels, so no second pass over the data is needed.
    """
    levels: dict = {}
    for expr, cats in _categorical_states(engine, engine_spec).items():
        col = _factor_column(expr)
        if col in variables:
            known = set(levels.get(col, ()))
            levels[col] = tuple(levels.get(col, ())) + tuple(
                c.item() if hasattr(c, "item") else c for c in cats if c not in known)
    return levels


def _design_and_spec(engine, rhs, lhs, frame, variables, response_levels):
    """Design matrix of ``frame`` and the :class:`DesignSpec` that rebuilds it."""
    X, names, engine_spec = _build(engine, rhs, frame)
    levels = _categorical_levels(engine, engine_spec, variables)
    spec = DesignSpec(engine=engine, rhs=rhs, column_names=names, variables=tuple(variables),
                      lhs=lhs, response_levels=response_levels,
                      levels=levels, engine_spec=engine_spec,
                      numeric=numeric_columns(frame, variables),
                      patsy_data=frame[variables] if engine == "patsy" else None)
    return X, spec


def model_frame(formula: str, data: pd.DataFrame, *, missing: str = "drop",
                engine: str | None = None) -> ModelFrame:
    """Build the response and design matrix of ``formula`` on ``data``.

    Parameters
    ----------
    formula : ``"response ~ terms"``; the response is a 0/1, boolean or
        two-level column, a probability column in [0, 1], ``cbind(yes, no)``
        vote counts, or an expression such as ``I(income == '>50K')``.
    data : pandas DataFrame.
    missing : ``"drop"`` (drop rows with missing/non-finite values in the
        model's columns, with a :class:`MissingDataWarning` giving the count) or
        ``"raise"``.
    engine : ``"formulaic"`` (default) or ``"patsy"``.
    """
    engine = DEFAULT_ENGINE if engine is None else engine
    check_choice("engine", engine, ENGINES)
    check_choice("missing", missing, ("drop", "raise"))
    data = _check_frame(data, "data")
    lhs, rhs = split_formula(formula)
    kind, resp_cols, expr = _parse_response(lhs, data)
    rhs = expand_dot(rhs, data.columns, resp_cols, engine)
    variables = _used_variables(rhs, data)
    n_input = len(data)
    used = list(dict.fromkeys(resp_cols + variables))
    check_unique_columns(data, used, "data")
    factor_only = factor_only_columns(rhs, variables, formula_names)
    data = coerce_columns(data, [c for c in used if c not in factor_only], "data")
    frame = _drop_missing(data, used, missing, "data")
    rows = (np.arange(n_input) if len(frame) == n_input
            else np.flatnonzero(~_nonfinite_mask(data[used])))
    if len(frame) == 0:
        raise DataError(f"no rows of `data` remain after dropping the {n_input} row(s) with "
                        f"missing values in the model's columns.")
    response = _response(kind, resp_cols, expr, frame, lhs)
    frame = drop_unused_categories(frame, variables)
    X, spec = _design_and_spec(engine, rhs, lhs, frame, variables, response.levels)
    names = spec.column_names
    return ModelFrame(
        formula=formula, response=response, X=np.ascontiguousarray(X), column_names=names,
        spec=spec, index=frame.index, rows=rows, n_input=n_input,
        n_dropped=n_input - len(frame),
    )


# --------------------------------------------------------------------------- Dask DataFrames

#: Transforms whose state (means, knots, norms) an engine learns from the data: they would be
#: learnt from a sample, not the whole Dask DataFrame, so out-of-core fits refuse them.
_STATEFUL = re.compile(r"\b(center|scale|standardize|poly|bs|cr|cs|cc|te|lag)\s*\(")
_FACTOR_CALL = re.compile(r"\b(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?")
_SAMPLE_ROWS = 5


@dataclass(frozen=True)
class DaskModelFrame:
    """The Dask counterpart of :class:`ModelFrame`.

    ``response.y``/``response.trials``, ``X`` and ``prior`` are dask arrays with one row block
    per non-empty partition (known sizes); there is no row index.  ``prior`` holds the
    ``weights`` column (or is ``None``).
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
    index = None  # rows stay in the partitions


def is_dask_frame(data) -> bool:
    """Whether ``data`` is a Dask DataFrame (without importing dask when it is not loaded)."""
    import sys

    if "dask.dataframe" not in sys.modules:
        return False
    import dask.dataframe as dd

    return isinstance(data, dd.DataFrame)


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


def _scan_partition(part: pd.DataFrame, i: int, used, variables, factors, categoricals,
                    resp_kind, resp_cols, resp_expr, weights, objects=(), texts=()) -> dict:
    """Per-partition facts for :func:`dask_model_frame`: counts, levels, response range."""
    part = _partition_numbers(part, objects)
    bad = _nonfinite_mask(part[used])
    out = {"n": len(part), "missing": {c: int(_nonfinite_mask(part[[c]]).sum()) for c in used}
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
                     levels, weights, numeric=()):
    """(X, y, trials, prior weights) of one partition, without its incomplete rows."""
    part = _partition_numbers(part, numeric, numeric)
    bad = _nonfinite_mask(part[used])
    clean = part.loc[~bad] if bad.any() else part
    resp = _response(kind, cols, expr, clean, lhs, levels=levels)
    X, _ = spec.build(clean, missing="raise")
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
    """
    import dask
    import dask.array as da
    from dask import delayed

    engine = DEFAULT_ENGINE if engine is None else engine
    check_choice("engine", engine, ENGINES)
    check_choice("missing", missing, ("drop", "raise"))
    meta = data._meta
    lhs, rhs = split_formula(formula)
    m = _STATEFUL.search(rhs)
    if m:
        raise InvalidArgumentError(
            f"`formula` uses the stateful transform {m.group(1)}(), whose state would not be "
            "learnt from the whole Dask DataFrame; compute the column beforehand (e.g. with "
            "data.assign(...)) or fit in memory.")
    kind, resp_cols, expr = _parse_response(lhs, meta)
    rhs = expand_dot(rhs, [c for c in meta.columns if c != weights], resp_cols, engine)
    variables = _used_variables(rhs, meta)
    if weights is not None and weights not in meta.columns:
        raise WeightsError(f"`weights` names column {weights!r}, which is not in `data`.")
    used = list(dict.fromkeys(resp_cols + variables))
    check_unique_columns(meta, used, "data")
    called = set(_FACTOR_CALL.findall(rhs))
    factor_only = factor_only_columns(rhs, variables, formula_names)
    objects = [c for c in used if meta[c].dtype == object and c not in factor_only]
    texts = [c for c in used if c not in factor_only
             and (meta[c].dtype == object or isinstance(meta[c].dtype, pd.StringDtype))]
    factors = [c for c in variables if c in called or _is_factor_dtype(meta[c].dtype)]
    categoricals = [c for c in factors if isinstance(meta[c].dtype, pd.CategoricalDtype)]
    parts = data.to_delayed()
    scan = delayed(_scan_partition, pure=False)
    scans = dask.compute(*[scan(part, i, used, variables, factors, categoricals, kind, resp_cols,
                                expr, weights, objects, texts) for i, part in enumerate(parts)])
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
    _, spec = _design_and_spec(engine, rhs, lhs, proto, variables, resp_levels)
    strays = [e for e in _categorical_states(engine, spec.engine_spec)
              if _factor_column(e) not in levels]
    if strays:
        raise InvalidArgumentError(
            f"`formula` term {strays[0]!r} is categorical but not a column of `data`: its levels "
            "cannot be collected out of core; add it as a column (data.assign(...)) first.")
    p = len(spec.column_names)
    build = delayed(_build_partition, pure=False)
    blocks = [(build(part, used, spec, kind, resp_cols, expr, lhs, resp_levels, weights, numeric),
               s["n_clean"]) for part, s in zip(parts, scans) if s["n_clean"]]

    def stack(i, shape):
        return da.concatenate([da.from_delayed(b[i], shape=(k,) + shape, dtype=float)
                               for b, k in blocks])

    response = Response(name=lhs, kind=resp_kind, y=stack(1, ()),
                        trials=stack(2, ()) if kind == "cbind" else None, levels=resp_levels)
    return DaskModelFrame(formula=formula, response=response, X=stack(0, (p,)),
                          prior=stack(3, ()) if weights is not None else None,
                          column_names=spec.column_names, spec=spec, n_input=n_input,
                          n_dropped=n_input - n_clean, npartitions=len(parts))
