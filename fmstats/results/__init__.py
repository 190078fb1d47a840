"""The results protocol every fitted fmstats model speaks, and the summary tables it prints.

* :class:`ModelResults` -- coefficient tables, ``measure``, ``tidy``, pickling and
  ``save``/``load`` (:class:`Persistable`), and the score curves (:class:`ScoreCurves`:
  ``f_curve``, ``plot_pr``, ``plot_roc``), ``refit`` (the recorded call again); a family
  implements ``params``, ``cov_params``, ``predict``, ``confusion`` and ``summary``;
* :class:`Summary` and :class:`Section` -- R-style text, HTML and LaTeX summaries;
* :class:`ModelCall` and :class:`Settings` -- the recorded call and settings every result
  holds (``fit.call``, ``fit.settings``), named here in results files;
* :func:`check_comparable` -- what a nested comparison of fits (``anova``) checks;
* :class:`FitRows` -- "my training rows", one interface for every results class
  (``formula``, ``spec``, ``index``, ``y``, ``X``, ``prior_weights``, ...), asked through
  ``rows_of`` by the functions that refit (``training_frame``, ``kept_rows``, ...);
* :class:`TrainingRows` -- those rows located once (``training_rows(fit, data)``), whose
  ``take(positions)`` is a :class:`RowSelection` for ``fit.refit(rows=...)``
  (``fit.call.refit(rows=...)``): the one path of every refit on training rows;
* :func:`keeps_rows` -- ``predict(newdata)`` returns one row per row of ``newdata`` (R's
  ``na.pass``; ``na_action=`` for the other choices), for every family.
"""
from .._utils.call import ModelCall, RowArgument, RowSelection, Settings  # what results hold
from ._comparison import check_comparable, nested_columns
from ._curves import ScoreCurves
from ._newdata import NEWDATA_NA, keeps_rows, predict_kept
from ._persist import FORMAT_VERSION, Persistable
from ._protocol import ModelResults, RowRefitEngine
from ._training import (CHECK_ROWS, FitRows, TrainingRows, array_offset, array_weights,
                        formula_offsets,
                        keeps_training_rows, kept_design_frame, kept_rows, require_protocol, rows_of,
                        training_design, training_frame, training_rows, training_weights)
from ._summary import (SIGNIF_LEGEND, Section, Summary, anova_columns, coef_columns,
                       format_numbers, format_pvalue, format_pvalues, r_matrix_text,
                       signif_stars)

__all__ = ["ModelResults", "ScoreCurves", "Persistable", "Summary", "Section",
           "check_comparable", "nested_columns", "keeps_rows", "predict_kept", "NEWDATA_NA",
           "FitRows", "SIGNIF_LEGEND", "anova_columns", "array_weights", "format_numbers",
           "keeps_training_rows", "kept_design_frame", "kept_rows", "r_matrix_text", "rows_of",
           "training_design", "training_frame", "training_weights", "TrainingRows",
           "RowRefitEngine", "require_protocol", "training_rows", "array_offset",
           "formula_offsets", "RowSelection"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["FitRows", "SIGNIF_LEGEND", "anova_columns", "array_weights", "format_numbers",
              "keeps_training_rows", "kept_design_frame", "kept_rows", "r_matrix_text",
              "rows_of", "training_design", "training_frame", "training_weights",
              "TrainingRows", "RowRefitEngine", "require_protocol", "training_rows",
              "array_offset", "formula_offsets", "RowSelection"]
