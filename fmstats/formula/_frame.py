"""Formulas on DataFrames: the only module that talks to the formula engines.

``model_frame(formula, data)`` turns an R-style formula into a response
(0/1 labels, probabilities, or ``cbind(yes, no)`` counts), a design matrix and
a :class:`DesignSpec` that re-applies the same encoding to new data.  Two
engines sit behind it, ``"formulaic"`` (the default: it was faster at 1e6 rows
in ``benchmarks/speed/bench_formula.py``) and ``"patsy"``; they give the same column
names and values, though patsy may order the columns differently (coefficients are
indexed by name, so fits agree term by term).  ``factor(x)`` is accepted as R's
spelling of ``C(x)``; ``^`` is R's power (``I(x^2)``, ``(a + b + c)^2``) and R's ``log``,
``sqrt``, ``log10``... are known to both engines (``_rsyntax.py``).
From :data:`DIRECT_MIN_ROWS` rows, a formulaic design made of the intercept, numeric columns
and treatment dummies is filled from the data's columns (``_direct.py``) once
the engine's design of a sample holding every level has been reproduced exactly.

What is a number and what is a factor is decided in ``_coerce.py`` (an object column
of numbers is numeric, a mostly numeric column holding strings is an error, nullable dtypes
act like numpy's, unused categories are dropped); the response is read by
``_response.py`` and rows with missing values by ``_missing.py``.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np
import pandas as pd

from ._coerce import (check_numeric_columns, check_unique_columns, coerce_columns, engine_frame,
                      numeric_columns)
from ._checks import check_column_kinds, check_design, check_factor_levels, check_frame
from ._engine_state import (categorical_levels, categorical_states, engine_state,
                            engine_state_problem, factor_column, rebuild_engine)
from ._direct import (fill as fill_direct, sample_positions, sources as direct_sources,
                      stack as stack_columns)
from ._missing import report_missing as _report_missing
from ._parse import (DEFAULT_ENGINE, ENGINES, check_formula_columns, expand_dot, formula_names,
                     parse_response, split_formula, used_variables)
from ._offset import evaluate_offsets
from ._response import response as _response
from ._subset import reused_rows, stamp
from ._rsyntax import R_FUNCTIONS, r_power
from ._safety import design_state_problem
from ._splines import formulaic_splines, patsy_splines
from ..exceptions import (
    DataError,
    FmstatsError,
    FormulaError,
    UnseenLevelError,
)

__all__ = ["DesignSpec", "ENGINES", "DEFAULT_ENGINE", "check_frame",
           "parse_response", "split_formula", "formula_names", "expand_dot", "stateful_transform",
           "used_variables", "design_and_spec", "categorical_states", "factor_column",
           "is_dask_frame", "remembered", "design_direct", "drop_rows", "memo_columns",
           "DIRECT_MIN_ROWS"]




@dataclass(frozen=True)
class DesignSpec:
    """Everything needed to rebuild the design matrix for new data.

    Holds the engine's own fitted specification (factor levels, stateful
    transforms such as ``center``), the right-hand side, the column names and
    the levels of every categorical variable seen while fitting.  Built by
    :func:`model_frame` (its ``spec``), not by users.

    Parameters
    ----------
    engine : {"formulaic", "patsy"}
        The formula engine.
    rhs : str
        The right-hand side of the formula, as given to the engine.
    column_names : tuple of str
        The names of the design columns.
    variables : tuple of str
        The data columns the right-hand side uses.
    lhs : str, default ""
        The left-hand side (the response) of the formula.
    response_levels : tuple, optional
        The (negative, positive) labels of a two-level factor response.
    levels : dict, optional
        The levels of each categorical data column seen while fitting.
    engine_spec : object, optional
        The engine's fitted specification (formulaic's ``ModelSpec``, patsy's
        ``DesignInfo``).
    numeric : tuple of str, default ()
        The variables that held numbers when fitting; new data must hold numbers there too.
    patsy_data : pandas.DataFrame, optional
        The used columns of the training frame (patsy only): patsy's ``DesignInfo`` cannot
        be pickled, so it is rebuilt from them.
    offsets : tuple of str, default ()
        Offset expressions: ``offset()`` terms, and an ``offset=`` column in back-quotes.
    offset_array : bool, default False
        Whether an ``offset=`` array was added (it belongs to the training rows).
    engine_state : dict, optional
        The engine's specification as data, when the design was read from a results file
        (see :meth:`file_state`); it is rebuilt from them on first use.
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
    offsets: tuple = field(default=(), repr=False)
    offset_array: bool = field(default=False, repr=False)
    # the engine's specification as data, when read from a results file (file_state)
    engine_state: Any = field(default=None, repr=False, compare=False)

    def offset_values(self, data: pd.DataFrame) -> np.ndarray | None:
        """The model's offset on the rows of ``data`` (None without one; an offset given as an
        array cannot be evaluated on new data: a :class:`DataError`).

        Parameters
        ----------
        data : pandas.DataFrame
            Rows with the offset's columns (those the design of ``build`` covers).

        Returns
        -------
        numpy.ndarray or None
            The offset, one value per row of ``data``, or None.
        """
        if self.offset_array:
            raise DataError(
                "the model was fitted with `offset=` given as an array, which belongs to its "
                "training rows; to predict new data give the offset as a column name "
                "(offset='col') or an offset(col) term in the formula.")
        return evaluate_offsets(self.offsets, data, "newdata")

    def __getstate__(self):
        state = dict(self.__dict__)
        if self.engine == "patsy":
            state["engine_spec"] = None     # rebuilt from patsy_data on first use
        return state

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def engine_object(self):
        """The engine's fitted specification (formulaic's ``ModelSpec``, patsy's
        ``DesignInfo``), rebuilt on first use when the design was unpickled (patsy's, from
        ``patsy_data``) or read from a results file (from :attr:`engine_state`, after the
        design's text is checked again by ``_safety.py``).

        Returns
        -------
        object
            The engine's specification (a formulaic ``ModelSpec`` or a patsy ``DesignInfo``).
        """
        spec = self.engine_spec
        if spec is None:
            spec = _rebuilt_engine(self)
            object.__setattr__(self, "engine_spec", spec)
        return spec

    def file_state(self) -> dict:
        """The design as data only, for results files: its fields, with the engine's
        specification as :attr:`engine_state` (formulaic's as plain data,
        ``_engine_state.py``; ``{}`` for patsy's, rebuilt from
        ``patsy_data``).  Raises ``ValueError`` when the design holds something that is not
        data (a contrast of the user's own).

        Returns
        -------
        dict
            The design's fields as plain data.
        """
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "engine_spec"}
        if state["engine_state"] is None and self.engine in ENGINES:
            formulaic = self.engine == "formulaic"
            state["engine_state"] = engine_state(self.engine_object()) if formulaic else {}
        return state

    @classmethod
    def from_file_state(cls, state: dict) -> "DesignSpec":
        """The design of :meth:`file_state`'s data, checked first (no formula engine runs:
        the engine's specification is rebuilt on first use).  Raises ``ValueError`` with the
        reason when the data are not those of a design or hold text that is not safe."""
        names = {f.name for f in fields(cls)} - {"engine_spec"}
        if not isinstance(state, dict) or set(state) != names:
            raise ValueError("it does not have the fields of a design")
        why = cls._state_problem(state)
        if why is not None:
            raise ValueError(why)
        obj = cls.__new__(cls)
        for key in names:
            object.__setattr__(obj, key, state[key])
        object.__setattr__(obj, "engine_spec", None)
        return obj

    @staticmethod
    def _state_problem(state: dict) -> str | None:
        why = design_state_problem(state)
        if why is None and state["engine"] == "formulaic":
            why = engine_state_problem(state["engine_state"])
        elif why is None and state["engine_state"] != {}:
            why = "a patsy design's engine state must be empty (it is rebuilt from its data)"
        return why

    def build(self, data: pd.DataFrame, *, missing: str = "raise", arg: str = "newdata",
              where: str = "", direct: tuple | None = None) -> tuple[np.ndarray, pd.Index]:
        """Design matrix for ``data`` using the stored encoding.

        Returns the matrix and the index of the rows it covers.  Rows with missing
        values in a used column raise (``missing="raise"``) or are dropped with a
        :class:`MissingDataWarning` (``missing="drop"``).  An unseen factor level
        raises :class:`UnseenLevelError` naming the column and the level; a column that was
        numeric when fitting must be numeric (an object column of numbers is converted, as
        when fitting).  Any failure of the engine is a :class:`DataError`.

        Parameters
        ----------
        data : pandas.DataFrame
            The new data, with the columns the formula uses.
        missing : {"raise", "drop"}, default "raise"
            What to do with rows with missing values in a used column (see above).
        arg : str, default "newdata"
            The name of ``data`` in messages (``"data"`` for a partition of a Dask fit).
        where : str, default ""
            A location added to messages (``" (partition 3)"``).
        direct : tuple, optional
            The design's columns as sources in the data (:func:`direct_design`, checked
            against the engine on a sample of every level): filled from them without the
            engine (the partitions of a Dask fit).

        Returns
        -------
        X : ndarray of shape (k, p)
            The design matrix.
        index : pandas.Index
            The index of the rows of ``data`` it covers.
        """
        data = _check_frame(data, arg)
        hit = reused_rows(data)
        check_formula_columns(data, self.variables, self.rhs, arg)
        check_unique_columns(data, self.variables, arg)
        check_column_kinds(data, self.variables, arg, where=where)
        data = coerce_columns(data, self.numeric, arg, text=False)
        check_numeric_columns(data, self.numeric, arg)
        data, keep = drop_rows(data, list(self.variables), missing, arg)
        for col, seen in self.levels.items():
            vals = pd.unique(data[col]).tolist()
            unseen = [v for v in vals if v not in seen]
            if unseen:
                raise UnseenLevelError(
                    f"column '{col}' of `{arg}`{where} has level {unseen[0]!r}, which was not present "
                    f"when the model was fitted (known levels: {', '.join(map(repr, seen))})."
                )
            if isinstance(data[col].dtype, pd.CategoricalDtype) \
                    and list(data[col].cat.categories) != list(seen):
                data = data.assign(**{col: data[col].cat.set_categories(list(seen))})
        if len(data) == 0:
            return np.empty((0, len(self.column_names))), data.index
        if hit is not None:   # rows of a design built once (fmstats.formula._reuse)
            X = hit.owner.spec_rows(self, _kept(hit.positions, keep))
            if X is not None:
                return X, data.index
        data = engine_frame(data)
        try:
            if direct is not None:
                X, extremes = fill_direct(data, direct, levels=self.levels)
            elif self.engine == "patsy":
                import patsy

                mat = patsy.build_design_matrices([self.engine_object()], data, NA_action="raise",
                                                  return_type="matrix")[0]
                X, extremes = np.asarray(mat, dtype=float), None
            else:
                mm = self.engine_object().get_model_matrix(data, output="pandas", na_action="raise",
                                                       context=_formulaic_context())
                X, extremes = _row_major(mm)
        except FmstatsError:
            raise
        except Exception as exc:  # the engines raise many types
            own = _own_error(exc)
            if own is not None:
                raise own from None
            msg = str(exc).strip().splitlines()
            raise DataError(
                f"`{arg}`{where} cannot be encoded with the design of the fitted model ('{self.rhs}'): "
                f"the formula engine '{self.engine}' raised {type(exc).__name__}: "
                f"{msg[0][:300] if msg else ''} Check that its columns have the types and "
                f"values they had when the model was fitted."
            ) from None
        X = np.ascontiguousarray(X)
        if X.shape[1] != len(self.column_names):  # pragma: no cover - engine invariant
            raise DataError("the stored design produced a different number of columns")
        check_design(X, self.column_names, arg, formula=self.rhs, new=True, where=where,
                     extremes=extremes)
        return X, data.index


    def subset(self, labels, rhs: str) -> "DesignSpec":
        """The encoding of the terms ``labels`` of this design (labels as in
        :meth:`term_slices`, in its order) under the right-hand side ``rhs``: the same columns
        as this design gives them -- a model with terms dropped under R's marginality, as
        :func:`fmstats.step` refits it from the rows a fit kept.

        Parameters
        ----------
        labels : sequence of str
            The terms kept (``"Intercept"`` for the intercept).
        rhs : str
            The right-hand side of the smaller model's formula.

        Returns
        -------
        DesignSpec
            The encoding of the kept terms.
        """
        if self.engine == "patsy":
            engine_spec = self.engine_spec.subset(list(labels))
        else:
            engine_spec = self.engine_spec.subset(["1" if t == "Intercept" else t
                                                   for t in labels])
        text = " ".join(list(labels) + list(self.offsets))
        variables = tuple(v for v in self.variables
                          if re.search(rf"(?<![\w.]){re.escape(v)}(?!\w)", text))
        return replace(self, rhs=rhs, engine_spec=engine_spec, variables=variables,
                       column_names=tuple(engine_spec.column_names),
                       levels={k: v for k, v in self.levels.items() if k in variables},
                       numeric=tuple(v for v in self.numeric if v in variables))

    def data_dependent(self) -> str | None:
        """Why the design of a subset of rows may differ from those rows of this design
        (None when it cannot): a stateful transform (means, knots, norms learnt from the
        data) or a categorical term that is not a data column (its levels are not known
        per row).  A factor column's levels are the other dependence; callers check them.

        Returns
        -------
        str or None
            The reason, or None.
        """
        transform = stateful_transform(self.rhs)
        if transform is not None:
            return f"the formula uses the stateful transform {transform}()"
        for expr in categorical_states(self.engine, self.engine_object()):
            if factor_column(expr) not in self.levels:
                return f"the categorical term {expr!r} is not a column of the data"
        return None

    def term_slices(self) -> list[tuple[str, slice]]:
        """The model terms in design order, each with its slice of design columns.

        The intercept is labelled ``"Intercept"``; other labels are the engine's
        (``"C(pclass):sex"``).  Used by :func:`fmstats.anova` for sequential tables.

        Returns
        -------
        list of tuple
            ``(term label, slice of design columns)`` pairs.
        """
        out = []
        for term, sl in self.engine_object().term_slices.items():
            label = term.name() if self.engine == "patsy" else str(term)
            out.append(("Intercept" if label in ("1", "Intercept") else label, sl))
        return out

    def build_with_response(self, data: pd.DataFrame, *, missing: str = "raise",
                            arg: str = "newdata"):
        """Response and design matrix of new data (for measuring performance on it).

        Returns ``(response, X, index)``; a factor response is coded with the levels
        stored at fit time, so the positive class stays the same.

        Parameters
        ----------
        data : pandas.DataFrame
            The new data, with the response's and the design's columns.
        missing : {"raise", "drop"}, default "raise"
            What to do with rows with missing values in a used column, as in :meth:`build`.
        arg : str, default "newdata"
            The name of ``data`` in messages.

        Returns
        -------
        response : Response
            The response of the kept rows.
        X : ndarray of shape (k, p)
            The design matrix.
        index : pandas.Index
            The index of the rows of ``data`` they cover.
        """
        data = _check_frame(data, arg)
        hit = reused_rows(data)
        if hit is not None and self is hit.owner.spec:   # the same rows, the same answer
            return remembered(hit.memo, ("response", missing),
                              lambda: self._with_response(data, missing, hit, arg),
                              frame=data, columns=memo_columns(hit, data, lhs=self.lhs))
        return self._with_response(data, missing, hit, arg)

    def _with_response(self, data, missing, hit, arg="newdata"):
        kind, cols, expr = _parse_response(self.lhs, data, arg)
        check_formula_columns(data, self.variables, self.rhs, arg)
        check_unique_columns(data, cols, arg)
        numeric = list(self.numeric) + (cols if self.response_levels is None else [])
        data = coerce_columns(data, numeric, arg, text=False)
        data, keep = drop_rows(data, list(dict.fromkeys(cols + list(self.variables))), missing,
                                arg)
        response = _response(kind, cols, expr, data, self.lhs, levels=self.response_levels)
        if hit is not None and len(data):   # rows of a design built once
            X = hit.owner.spec_rows(self, _kept(hit.positions, keep))
            if X is not None:
                return response, X, data.index
        X, index = self.build(data, missing="raise", arg=arg)
        return response, X, index


def remembered(memo: dict, key, build, *, frame: pd.DataFrame | None = None, columns=()):
    """``build()`` once per ``key`` of ``memo``: later calls return its value and emit the
    warnings it emitted again (so that every caller warns as a fresh computation would).

    With ``frame``, the value is used again only while the ``columns`` of ``frame`` it was
    built from (a sequence, or a function of the value giving them) hold the same values
    (``Stamp``): a frame changed in place gets a new answer."""
    got = memo.get(key)
    if got is not None and frame is not None and not (got[2] is not None
                                                      and got[2].holds(frame)):
        got = None
    if got is None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = build()
        mark = None if frame is None else stamp(frame, columns(value) if callable(columns)
                                                else columns)
        got = memo[key] = (value, [(w.message, w.category) for w in caught], mark)
    for message, category in got[1]:
        warnings.warn(message, category, stacklevel=3)
    return got[0]


def memo_columns(hit, data: pd.DataFrame, *, lhs: str | None = None, formula: str = ""):
    """The columns a model frame (or response) remembered from rows of a design built once
    depends on beyond the design's own columns (which :func:`reused_rows` checks): those of
    the response and of any other variable (offsets)."""
    try:
        lhs = split_formula(formula)[0] if lhs is None else lhs
        resp = list(_parse_response(lhs, data)[1])
    except FmstatsError:           # the build raises it
        resp = []
    own = set(hit.owner.stamp.columns)

    def columns(value) -> list:
        spec = getattr(value, "spec", None)      # a ModelFrame's (a response has none)
        spec = spec if isinstance(spec, DesignSpec) else None
        more = list(spec.variables) if spec is not None else []
        return [c for c in dict.fromkeys(resp + more) if c not in own]
    return columns


# --------------------------------------------------------------------------- parsing

def drop_rows(data: pd.DataFrame, columns: list, missing: str, arg: str):
    """``data`` without its rows with missing values in ``columns`` (warned about or raised,
    as ``drop_missing``) and the boolean mask of the kept rows (None
    when every row is kept): one scan of the columns."""
    if not columns:
        return data, None
    bad = np.zeros(len(data), dtype=bool)
    for c in columns:                 # one mask at a time: no n x p temporary on large data
        if not _all_finite(data[c]):
            bad |= _missing_values(data[c])
    if not bad.any():
        return data, None
    per_col = {c: int(_missing_values(data[c]).sum()) for c in columns}
    _report_missing(int(bad.sum()), len(data), per_col, missing, arg)
    return data.loc[~bad], ~bad


def _all_finite(s: pd.Series) -> bool:
    """True when a float column certainly holds no missing or non-finite value: its sum is
    finite (a NaN or an infinity makes it NaN or infinite; an overflowing sum of finite
    values says False, and the mask is computed).  One reduction instead of a mask."""
    if pd.api.types.is_float_dtype(s.dtype) and isinstance(s.dtype, np.dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            return bool(np.isfinite(np.add.reduce(s.to_numpy())))
    return False


def _missing_values(s: pd.Series) -> np.ndarray:
    """Missing or non-finite entries of a column (the rule of ``_missing.nonfinite_mask``)."""
    if pd.api.types.is_float_dtype(s.dtype):
        return ~np.isfinite(s.to_numpy(dtype=float, na_value=np.nan))
    if pd.api.types.is_integer_dtype(s.dtype) and not isinstance(s.dtype, pd.api.extensions.ExtensionDtype):
        return np.zeros(len(s), dtype=bool)     # numpy integers cannot be missing
    return s.isna().to_numpy()


def _kept(positions: np.ndarray, keep) -> np.ndarray:
    return positions if keep is None else positions[keep]


_check_frame = check_frame   # the old private spelling
_parse_response = parse_response   # the old private spelling


# --------------------------------------------------------------------------- engines

def _rebuilt_engine(spec: "DesignSpec"):
    """The engine specification of a design unpickled or read from a file (checked first)."""
    if spec.engine_state is not None:     # read from a results file
        why = type(spec)._state_problem(spec.file_state())
        if why is not None:
            raise FormulaError(f"the stored design cannot be rebuilt: {why}.")
    if spec.engine == "patsy":
        return _build("patsy", spec.rhs, spec.patsy_data)[2]
    if spec.engine_state is None:
        raise FormulaError("the design holds no engine specification to rebuild.")
    try:
        return rebuild_engine(spec.engine_state)
    except Exception as exc:   # formulaic's constructors raise many types
        raise FormulaError(f"the stored design cannot be rebuilt by this formulaic "
                           f"({type(exc).__name__}: {exc}).") from None


def _row_major(frame: pd.DataFrame) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The columns of the engine's output as one C-ordered float matrix, and each column's
    largest and smallest value for :func:`check_design` (``stack``).
    The values are the engine's, converted to float64 as ``np.asarray(..., dtype=float)``
    would."""
    cols = [frame.iloc[:, j].to_numpy() for j in range(frame.shape[1])]
    # numbers are cast block by block while filling (no float copy of every dummy column)
    return stack_columns([c if c.dtype.kind in "biuf" else np.asarray(c, dtype=float)
                          for c in cols], frame.shape[0])


def _own_error(exc: BaseException) -> FmstatsError | None:
    """The FmstatsError an engine wrapped in its own exception (raised by one of fmstats'
    functions in a formula: ``poly``, ``ns``), or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, FmstatsError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _formulaic_context():
    from formulaic.transforms import C as fC

    return {"factor": fC, **R_FUNCTIONS, **formulaic_splines()}


def _build(engine: str, rhs: str, data: pd.DataFrame):
    """Run the engine on the right-hand side; return (X, names, engine_spec, extremes), the
    last the columns' (largest, smallest) values when gathered on the way (else None).

    R's ``^`` becomes ``**`` first (``r_power``); the engine's spec
    holds the rewritten terms, so re-applying it to new data needs no second rewrite.
    """
    data = engine_frame(data)
    rhs = r_power(rhs)
    try:
        if engine == "patsy":
            import patsy

            from patsy.builtins import C as pC

            env = patsy.EvalEnvironment([{"factor": pC, "C": pC, **R_FUNCTIONS,
                                          **patsy_splines()}, {"np": np}])
            mat = patsy.dmatrix(rhs, data, NA_action="raise", eval_env=env, return_type="matrix")
            names = tuple(mat.design_info.column_names)
            return np.asarray(mat, dtype=float), names, mat.design_info, None
        from formulaic import model_matrix

        # the columns as a DataFrame (no copy), stacked row-major here (see _row_major)
        mm = model_matrix(rhs, data, output="pandas", na_action="raise",
                          context=_formulaic_context())
        spec = mm.model_spec
        names = tuple(spec.column_names)
        X, extremes = _row_major(mm)
        return X, names, spec, extremes
    except FmstatsError:
        raise
    except Exception as exc:
        own = _own_error(exc)
        if own is not None:     # fmstats' check inside a transform (poly, ns): its message
            raise own from None
        msg = str(exc).strip().splitlines()
        raise FormulaError(
            f"the formula engine '{engine}' could not build the design for '{rhs}': "
            f"{msg[0] if msg else type(exc).__name__}"
        ) from None


def design_and_spec(engine, rhs, lhs, frame, variables, response_levels):
    """Design matrix of ``frame``, the :class:`DesignSpec` that rebuilds it and the columns'
    (largest, smallest) values when the engine's path gathered them (else None), for
    :func:`check_design`."""
    X, names, engine_spec, extremes = _build(engine, rhs, frame)
    levels = categorical_levels(engine, engine_spec, variables)
    check_factor_levels(levels, "data")
    spec = DesignSpec(engine=engine, rhs=rhs, column_names=names, variables=tuple(variables),
                      lhs=lhs, response_levels=response_levels,
                      levels=levels, engine_spec=engine_spec,
                      numeric=numeric_columns(frame, variables),
                      patsy_data=frame[variables] if engine == "patsy" else None)
    return X, spec, extremes


#: Rows from which :func:`model_frame` fills designs from the data's columns (see
#: ``_direct.py``) when it can: below it the engine call on the sample
#: offsets what the fill saves (the timings: ``benchmarks/README.md``).
DIRECT_MIN_ROWS = 50_000

_FACTOR_CALL = re.compile(r"\b(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?")


def factor_columns(frame: pd.DataFrame, rhs: str, variables) -> list:
    """The data columns the formula uses as factors: called by ``C()``/``factor()`` or not
    numeric."""
    called = set(_FACTOR_CALL.findall(rhs))
    numeric = set(numeric_columns(frame, variables))
    return [c for c in variables if c in called or c not in numeric]


def direct_design(spec: "DesignSpec", frame: pd.DataFrame, factors, X0: np.ndarray,
                  sample: np.ndarray):
    """The sources (``sources``) of the design of ``spec``
    when its columns are the intercept, numeric data columns and treatment dummies of
    factor columns and filling them reproduces the engine's design ``X0`` of the ``sample``
    rows exactly; else None (the engine builds the design)."""
    if spec.data_dependent() is not None:
        return None
    cats = {expr: (factor_column(expr), lv)
            for expr, lv in categorical_states(spec.engine, spec.engine_object()).items()}
    # numbers taken as they are; booleans too (the engine makes them 0/1 numbers)
    plain = {c for c in spec.variables if c not in factors or frame[c].dtype == bool}
    srcs = direct_sources(frame, spec.column_names, plain, cats)
    if srcs is None:
        return None
    try:
        Xs = fill_direct(frame, srcs, sample, spec.levels)[0]
    except (KeyError, ValueError, TypeError):   # a dummy's level is not among the categories
        return None
    return srcs if np.array_equal(Xs, X0) else None


def design_direct(engine, rhs, lhs, frame, variables, response_levels):
    """(X, spec, extremes) filled from the data's columns, or None (see :func:`direct_design`).
    formulaic only: patsy's spec keeps the data it was built on, which would be the sample."""
    if engine != "formulaic" or stateful_transform(rhs) is not None:
        return None
    factors = factor_columns(frame, rhs, variables)
    sample = sample_positions(frame, factors)
    X0, spec, _ = design_and_spec(engine, rhs, lhs, frame.iloc[sample], variables,
                                  response_levels)
    srcs = direct_design(spec, frame, factors, X0, sample)
    if srcs is None:
        return None
    X, extremes = fill_direct(frame, srcs, levels=spec.levels)
    return X, spec, extremes


_STATEFUL = re.compile(r"\b(center|scale|standardize|poly|bs|cr|cs|cc|te|ns|lag|spline\w*)\s*\(")
def stateful_transform(rhs: str) -> str | None:
    """The first stateful transform (``center``, ``scale``, ``poly``, splines...) called in a
    formula side, or None: its state is learnt from the data it is applied to."""
    m = _STATEFUL.search(rhs)
    return None if m is None else m.group(1)


def is_dask_frame(data) -> bool:
    """Whether ``data`` is a Dask DataFrame (without importing dask when it is not loaded).

    Parameters
    ----------
    data : object
        Anything.

    Returns
    -------
    bool
        True for a Dask DataFrame.
    """
    import sys

    if "dask.dataframe" not in sys.modules:
        return False
    import dask.dataframe as dd

    return isinstance(data, dd.DataFrame)
