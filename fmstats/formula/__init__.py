"""Formulas on DataFrames: the response, the design matrix and the encoding of new data.

:func:`model_frame` turns an R-style formula and a pandas DataFrame into a
:class:`ModelFrame` (response, design matrix, row provenance) and a :class:`DesignSpec` that
re-applies the same encoding to new data; two engines sit behind it (formulaic, the default,
and patsy), with R's spelling translated.  :class:`DesignMatrix` builds the design of a data
set once so that tuning and resampling refit on subsets of its rows; a Dask DataFrame gets a
lazy model frame built partition by partition.  R's ``subset=``, ``na.action``, ``offset``,
``contrasts`` and natural splines ``ns()`` are read here too.
"""
from ._blocks import BLOCK_ROWS, BlockedFrame, blocked_model_frame
from ._checks import check_column_kinds, check_design, check_extremes, check_flat_columns
from ._dask import DaskModelFrame, dask_model_frame
# whether text read from a results file may be evaluated (checked by its syntax tree)
from ._safety import (TEXT_KINDS, code_problem, design_state_problem, formula_problem,
                      lhs_problem, rhs_problem, text_problem)
from ._vocabulary import expression_problem
from ._frame import (DEFAULT_ENGINE, ENGINES, DesignSpec, check_frame, expand_dot,
                     formula_names, is_dask_frame, parse_response, split_formula,
                     stateful_transform)
from ._modelframe import ModelFrame, model_frame
from ._contrasts import CONTRASTS
from ._missing import nonfinite_mask
from ._response import Response, response
from ._reuse import REBUILT, REUSED, DesignMatrix, predict_rows
from ._rows import MISSING_OF, NA_ACTIONS, describe_subset, resolve_na_action
from ._splines import ns_basis, ns_knots
from ._kept import KeptDesign, KeptRows, kept_model_frame, take_rows
from ._lhs import FoldResponse, fold_response
from ._matrix import MatrixData, MatrixSpec, is_sparse, matrix_model_frame
from ._offset import refuse_offsets
from ._scan import split_tilde, split_top

__all__ = ["model_frame", "ModelFrame", "DesignSpec", "DesignMatrix", "ENGINES", "NA_ACTIONS",
           "resolve_na_action", "CONTRASTS", "ns_basis", "ns_knots", "KeptRows", "KeptDesign", "take_rows",
           "MatrixData", "MatrixSpec",
           "split_top", "split_tilde",
           "DEFAULT_ENGINE", "DaskModelFrame", "FoldResponse", "MISSING_OF",
           "blocked_model_frame", "check_design", "check_extremes", "check_frame",
           "dask_model_frame", "describe_subset", "expand_dot", "fold_response", "formula_names",
           "is_dask_frame", "is_sparse", "kept_model_frame", "matrix_model_frame",
           "parse_response", "predict_rows", "refuse_offsets", "split_formula",
           "text_problem"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["KeptDesign", "take_rows", "DEFAULT_ENGINE", "DaskModelFrame", "FoldResponse", "MISSING_OF",
              "blocked_model_frame", "check_design", "check_extremes", "check_frame",
              "dask_model_frame", "describe_subset", "expand_dot", "fold_response",
              "formula_names", "is_dask_frame", "is_sparse", "kept_model_frame",
              "matrix_model_frame", "parse_response", "predict_rows",
              "refuse_offsets", "split_formula", "text_problem"]
