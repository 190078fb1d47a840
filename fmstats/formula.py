"""Formulas on DataFrames: the only module that talks to the formula engines.

``model_frame(formula, data)`` turns an R-style formula into a response
(0/1 labels, probabilities, or ``cbind(yes, no)`` counts), a design matrix and
a :class:`DesignSpec` that re-applies the same encoding to new data.  Two
engines sit behind it, ``"formulaic"`` (the default: it was faster at 1e6 rows
in ``benchmarks/bench_formula.py``) and ``"patsy"``; they give the same column
names and values, though patsy may order the columns differently (coefficients are
indexed by name, so fits agree term by term).  ``factor(x)`` is accepted as R's
spelling of ``C(x)``.
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

from ._validation import check_choice, describe, num, warn
from .exceptions import (
    DataError,
    FmstatsError,
    FormulaError,
    InvalidArgumentError,
    MissingDataError,
    MissingDataWarning,
    ResponseError,
    UnseenLevelError,
)

__all__ = ["DesignSpec", "ModelFrame", "model_frame", "ENGINES", "DEFAULT_ENGINE"]

ENGINES = ("formulaic", "patsy")
DEFAULT_ENGINE = "formulaic"

_CBIND = re.compile(r"^\s*cbind\s*\((?P<args>.*)\)\s*$", re.S)


@dataclass(frozen=True)
class Response:
    """The response as the models use it.

    ``y`` is a proportion in [0, 1]; ``trials`` the number of binomial trials per
    row (``yes + no`` for ``cbind``, else ``None``); ``kind`` one of
    ``"binary"``, ``"probability"``, ``"counts"``; ``levels`` the (negative,
    positive) labels of a two-level factor response.
    """

    name: str
    kind: str
    y: np.ndarray
    trials: np.ndarray | None = None
    levels: tuple | None = None


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
        raises :class:`UnseenLevelError` naming the column and the level.
        """
        data = _check_frame(data, "newdata")
        _check_columns(data, self.variables, self.rhs, "newdata")
        data = _drop_missing(data, list(self.variables), missing, "newdata")
        for col, seen in self.levels.items():
            vals = pd.unique(data[col]).tolist()
            unseen = [v for v in vals if v not in seen]
            if unseen:
                raise UnseenLevelError(
                    f"column '{col}' of `newdata` has level {unseen[0]!r}, which was not present "
                    f"when the model was fitted (known levels: {', '.join(map(repr, seen))})."
                )
        if len(data) == 0:
            return np.empty((0, len(self.column_names))), data.index
        if self.engine == "patsy":
            import patsy

            mat = patsy.build_design_matrices([self.engine_spec], data, NA_action="raise",
                                              return_type="matrix")[0]
            X = np.asarray(mat, dtype=float)
        else:
            mm = self.engine_spec.get_model_matrix(data, output="numpy", na_action="raise",
                                                   context=_formulaic_context())
            X = np.asarray(mm, dtype=float)
        X = np.ascontiguousarray(X)
        if X.shape[1] != len(self.column_names):  # pragma: no cover - engine invariant
            raise DataError("the stored design produced a different number of columns")
        return X, data.index


    def build_with_response(self, data: pd.DataFrame, *, missing: str = "raise"):
        """Response and design matrix of new data (for measuring performance on it).

        Returns ``(response, X, index)``; a factor response is coded with the levels
        stored at fit time, so the positive class stays the same.
        """
        data = _check_frame(data, "newdata")
        kind, cols, expr = _parse_response(self.lhs, data)
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
                 "Poly", "True", "False", "None", "pi", "contr", "lag"}


def _nonfinite_mask(frame: pd.DataFrame) -> np.ndarray:
    bad = np.zeros(len(frame), dtype=bool)
    for col in frame.columns:
        s = frame[col]
        if pd.api.types.is_float_dtype(s.dtype):
            bad |= ~np.isfinite(s.to_numpy(dtype=float, na_value=np.nan))  # NaN and +-inf
        else:
            bad |= s.isna().to_numpy()
    return bad


def _drop_missing(data: pd.DataFrame, columns: list[str], missing: str, arg: str) -> pd.DataFrame:
    """``data`` without the rows that have missing or non-finite values in ``columns``."""
    if not columns:
        return data
    bad = _nonfinite_mask(data[columns])
    if not bad.any():
        return data
    per_col = {c: int(_nonfinite_mask(data[[c]]).sum()) for c in columns}
    detail = ", ".join(f"{c}: {k}" for c, k in per_col.items() if k)
    if missing == "raise":
        raise MissingDataError(
            f"`{arg}` has {int(bad.sum())} row(s) with missing or non-finite values in the "
            f"model's columns ({detail}) and missing='raise' was given; impute them or use "
            f"missing='drop'."
        )
    warn(
        f"dropped {int(bad.sum())} of {len(data)} row(s) of `{arg}` with missing or non-finite "
        f"values ({detail}).",
        MissingDataWarning,
    )
    return data.loc[~bad]


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


def _eval_expr(expr: str, data: pd.DataFrame) -> pd.Series:
    inner = expr.strip()
    if inner.startswith("I(") and inner.endswith(")"):
        inner = inner[2:-1]
    try:
        out = data.eval(inner, engine="python")
    except Exception as exc:  # pandas raises many types
        raise FormulaError(f"cannot evaluate the response {expr!r}: {exc}") from None
    return pd.Series(out, index=data.index)


def _binary_from_series(s: pd.Series, name: str, levels=None) -> tuple[np.ndarray, tuple | None]:
    if levels is not None and levels != (False, True):
        unknown = set(pd.unique(s.to_numpy())) - set(levels)
        if unknown:
            raise UnseenLevelError(
                f"the response '{name}' has level {sorted(unknown, key=str)[0]!r}, which was not "
                f"present when the model was fitted (known levels: {levels[0]!r}, {levels[1]!r})."
            )
        return (s == levels[1]).to_numpy(dtype=float), tuple(levels)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.to_numpy(dtype=float), (False, True)
    if isinstance(s.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(s.dtype):
        if isinstance(s.dtype, pd.CategoricalDtype):
            levels = list(s.cat.categories)
            present = [lv for lv in levels if (s == lv).any()]
            levels = present if len(present) == 2 else levels
        else:
            levels = sorted(pd.unique(s.to_numpy()), key=str)
        if len(levels) != 2:
            raise ResponseError(
                f"the response '{name}' must have two levels (or be 0/1, or a probability); got "
                f"{len(levels)}: {', '.join(map(repr, levels[:10]))}."
            )
        # like R: the first level is 'failure' (0), the second 'success' (1)
        return (s == levels[1]).to_numpy(dtype=float), (levels[0], levels[1])
    return s.to_numpy(dtype=float), None


def _response(kind: str, cols: list[str], expr: str | None, data: pd.DataFrame, lhs: str,
              levels: tuple | None = None) -> Response:
    if kind == "cbind":
        yes = data[cols[0]].to_numpy(dtype=float)
        no = data[cols[1]].to_numpy(dtype=float)
        for nm, v in ((cols[0], yes), (cols[1], no)):
            if (v < 0).any():
                i = int(np.flatnonzero(v < 0)[0])
                raise ResponseError(
                    f"cbind() counts must be non-negative; column '{nm}' holds {num(v[i])} at row "
                    f"{data.index[i]!r}."
                )
        trials = yes + no
        with np.errstate(invalid="ignore", divide="ignore"):
            y = np.where(trials > 0, yes / np.where(trials > 0, trials, 1.0), 0.0)
        return Response(name=lhs, kind="counts", y=y, trials=trials)
    s = data[cols[0]] if kind == "column" else _eval_expr(expr, data)
    y, levels = _binary_from_series(s, lhs, levels)
    if levels is not None:
        return Response(name=lhs, kind="binary", y=y, levels=levels)
    bad = (y < 0) | (y > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ResponseError(
            f"the response '{lhs}' must be 0/1 labels or probabilities in [0, 1]; row "
            f"{data.index[i]!r} holds {num(y[i])} ({int(bad.sum())} value(s) outside [0, 1])."
        )
    is01 = bool(np.all((y == 0) | (y == 1)))
    return Response(name=lhs, kind="binary" if is01 else "probability", y=y)


# --------------------------------------------------------------------------- engines

def _formulaic_context():
    from formulaic.transforms import C as fC

    return {"factor": fC}


def _build(engine: str, rhs: str, data: pd.DataFrame):
    """Run the engine on the right-hand side; return (X, names, engine_spec)."""
    try:
        if engine == "patsy":
            import patsy

            from patsy.builtins import C as pC

            env = patsy.EvalEnvironment([{"factor": pC, "C": pC}, {"np": np}])
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


def _categorical_levels(engine: str, engine_spec, variables: list[str]) -> dict:
    """Levels of each categorical data column, read from the engine's fitted state.

    A factor ``col``, ``C(col)`` or ``factor(col)`` maps to the data column ``col``; the
    engine has already found its levels, so no second pass over the data is needed.
    """
    if engine == "patsy":
        states = {f.code: info.categories for f, info in engine_spec.factor_infos.items()
                  if info.categories is not None}
    else:
        states = {name: st.get("categories") for name, (kind, st)
                  in engine_spec.encoder_state.items() if st.get("categories") is not None}
    levels: dict = {}
    for expr, cats in states.items():
        m = _FACTOR_EXPR.match(expr.strip())
        col = expr.strip().strip("`") if m is None else m.group(1)
        if col in variables:
            known = set(levels.get(col, ()))
            levels[col] = tuple(levels.get(col, ())) + tuple(
                c.item() if hasattr(c, "item") else c for c in cats if c not in known)
    return levels


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
    variables = _used_variables(rhs, data)
    n_input = len(data)
    used = list(dict.fromkeys(resp_cols + variables))
    frame = _drop_missing(data, used, missing, "data")
    rows = (np.arange(n_input) if len(frame) == n_input
            else np.flatnonzero(~_nonfinite_mask(data[used])))
    if len(frame) == 0:
        raise DataError(f"no rows of `data` remain after dropping the {n_input} row(s) with "
                        f"missing values in the model's columns.")
    response = _response(kind, resp_cols, expr, frame, lhs)
    X, names, engine_spec = _build(engine, rhs, frame)
    levels = _categorical_levels(engine, engine_spec, variables)
    spec = DesignSpec(engine=engine, rhs=rhs, column_names=names, variables=tuple(variables),
                      lhs=lhs, response_levels=response.levels,
                      levels=levels, engine_spec=engine_spec,
                      patsy_data=frame[variables] if engine == "patsy" else None)
    return ModelFrame(
        formula=formula, response=response, X=np.ascontiguousarray(X), column_names=names,
        spec=spec, index=frame.index, rows=rows, n_input=n_input,
        n_dropped=n_input - len(frame),
    )
