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
from ._irls import (
    IrlsFit, irls_logit, as_design, irls_coef, irls_evaluate, binomial_deviance, gram,
    independent_columns, ColumnScaling, column_scaling, rank_gram, MAX_WEIGHT, SPREAD_RANGE,
    column_spread, check_weights_range, r_start_mu, deviance_from_eta, weighted_loglik,
    unscale_fit, deviance_scale, newton_iterate, has_intercept, logit_probs,
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

#: The documented API (numpydoc-checked by tests/test_docstrings.py).  The other names above
#: are glm's interface to the model units (maxent_models, multilabel, costsensitive), reached
#: through this ``__init__`` as the layering test requires; results files name
#: ``fmstats.glm.IrlsFit`` and ``fmstats.glm.DaskIrlsFit``.
__all__ = ["BlockFit", "OuterFit", "block_size", "column_grams", "column_products",
           "fmaxent_block", "newton_block"]
