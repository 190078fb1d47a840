"""Numerical core of the maxent models: pure ndarray functions.

The modules are private (``_irls``, ``_dask``, ...); their names are imported from here.  Weighted logistic IRLS on
dense or sparse designs (:func:`irls_logit`, its fit :class:`IrlsFit`), the separation
tests (:func:`no_finite_mle`), the F-reweighting formulas (:func:`expected_f_weights`,
:func:`noisy_f_weights`, ...), the outer loop of the F-measure maximiser
(:func:`outer_loop`), row sources in memory (:class:`ArraySource`), in row blocks
(:class:`BlockSource`) and on Dask (:class:`DaskSource`, :func:`irls_logit_dask`), the
reweighted covariances (:func:`stacked_covariance`, :func:`unrolled_covariance`) and the
k-step replicates as passes over row blocks (:class:`RowDraws`, :func:`newton_block`).
"""
from ._separation import (
    no_finite_mle, newton_reach, zero_count_cells, saturated_rows, NEWTON_REACH, LP_MAX_ENTRIES,
    SATURATION, warn_fit,
)
from ._gram import (
    gram, independent_columns, ColumnScaling, column_scaling, rank_gram, SPREAD_RANGE,
    column_spread, has_intercept,
)
from ._irls import (
    IrlsFit, irls_logit, as_design, irls_coef, irls_evaluate, binomial_deviance, MAX_WEIGHT,
    check_weights_range, r_start_mu, deviance_from_eta, weighted_loglik, unscale_fit,
    deviance_scale, newton_iterate, logit_probs,
)
from ._fweights import (
    expected_f_weights, noisy_f_weights, smoothed_noisy_counts, smoothed_sums,
    smoothed_from_sums, standardised_ridge, f_from_counts, iterate_metrics, metric_sums,
    metrics_from_sums, Iterate, TINY, weight_scale, smooth_g1, smooth_g2, f_of_counts,
)
from ._outer import (
    Outer, outer_loop,
)
from ._rowsource import (
    ArraySource,
)
from ._stacked import (
    Reweighting, direct_sums, estimating_equations, fixed_point_gap, influence_rows,
    stacked_covariance, stacked_covariance_sums, stacked_terms, unrolled_covariance,
    unrolled_covariance_sums, unrolled_influence, unrolled_plan, StackedCov, UnrolledPlan,
)
from ._blocks import (
    BlockDesign, rank_gram_blocks, irls_logit_blocks, BlockStats, BlockSource,
)
from ._dask import (
    DaskIrlsFit, irls_logit_dask, irls_evaluate_dask, block_sums, map_rows, gram_dask,
    as_row_blocks, is_dask_collection, refuse_offset_columns, persist_if_fits, memory_limit,
    PERSIST_SHARE, CHUNK_BYTES, block_results, start_sums, start_sums_columns,
    partition_memory_advice,
)
from ._daskrows import (
    DaskSource,
)
from ._blockreplicates import (
    RowDraws, PassFit, OuterPassFit, newton_passes, outer_passes, replicate_constants,
    training_f_passes, margins_pass,
)
from ._kstep import (
    BlockFit, OuterFit, block_size, column_grams, column_products, fmaxent_block, newton_block,
)

#: glm's interface (numpydoc-checked by tests/test_docstrings.py): the k-step refits, and the
#: names the model units (maxent_models, multilabel, costsensitive, resampling) import, which
#: are its developer interface (``_DEVELOPER``).  The other names above serve glm's own
#: modules and the deprecated old paths (``fmstats.glm.irls``, ...); results files name
#: ``fmstats.glm.IrlsFit`` and ``fmstats.glm.DaskIrlsFit``.
__all__ = ["BlockFit", "OuterFit", "block_size", "column_grams", "column_products",
           "fmaxent_block", "newton_block",
           "CHUNK_BYTES", "partition_memory_advice", "ArraySource", "BlockDesign", "BlockSource", "DaskSource", "IrlsFit",
           "LP_MAX_ENTRIES", "Outer", "Reweighting", "RowDraws", "SATURATION",
           "binomial_deviance", "block_sums", "check_weights_range", "column_scaling",
           "deviance_scale", "direct_sums", "expected_f_weights", "fixed_point_gap", "gram",
           "has_intercept", "independent_columns", "influence_rows", "irls_evaluate",
           "irls_logit", "logit_probs", "margins_pass", "newton_iterate", "newton_passes",
           "no_finite_mle", "noisy_f_weights", "outer_loop", "outer_passes", "persist_if_fits",
           "rank_gram", "rank_gram_blocks", "refuse_offset_columns", "replicate_constants",
           "saturated_rows", "smoothed_noisy_counts", "stacked_covariance_sums",
           "standardised_ridge", "start_sums", "start_sums_columns", "training_f_passes",
           "unrolled_covariance_sums", "unrolled_influence", "unrolled_plan"]

#: The developer interface (in ``__all__``; the API page's *Developer interface* section).
_DEVELOPER = ["CHUNK_BYTES", "partition_memory_advice", "ArraySource", "BlockDesign", "BlockSource", "DaskSource", "IrlsFit",
              "LP_MAX_ENTRIES", "Outer", "Reweighting", "RowDraws", "SATURATION",
              "binomial_deviance", "block_sums", "check_weights_range", "column_scaling",
              "deviance_scale", "direct_sums", "expected_f_weights", "fixed_point_gap", "gram",
              "has_intercept", "independent_columns", "influence_rows", "irls_evaluate",
              "irls_logit", "logit_probs", "margins_pass", "newton_iterate", "newton_passes",
              "no_finite_mle", "noisy_f_weights", "outer_loop", "outer_passes",
              "persist_if_fits", "rank_gram", "rank_gram_blocks", "refuse_offset_columns",
              "replicate_constants", "saturated_rows", "smoothed_noisy_counts",
              "stacked_covariance_sums", "standardised_ridge", "start_sums",
              "start_sums_columns", "training_f_passes", "unrolled_covariance_sums",
              "unrolled_influence", "unrolled_plan"]
