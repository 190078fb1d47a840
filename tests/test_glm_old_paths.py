"""The module paths of ``fmstats.glm`` before its modules became private still import.

``fmstats.glm.irls`` etc. had API pages until the modules became private (``_irls``, ...).
Importing an old path works, offers the names it offered then (``OLD_ALL``: the ``__all__`` of
each module at commit 1acb485^, copied here by hand, not read from the package) as the very
objects of the private module, and warns with a FmstatsDeprecationWarning that names the
import from ``fmstats.glm`` and points at the importing line.
"""
from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import fmstats.glm as glm
from fmstats.exceptions import FmstatsDeprecationWarning
from fmstats.glm._moved import OLD_MODULES

OLD_ALL = {
    "blockreplicates": ["RowDraws", "PassFit", "OuterPassFit", "newton_passes", "outer_passes",
                        "replicate_constants", "training_f_passes", "margins_pass"],
    "blocks": ["BlockDesign", "rank_gram_blocks", "irls_logit_blocks", "BlockStats",
               "BlockSource"],
    "dask": ["DaskIrlsFit", "irls_logit_dask", "irls_evaluate_dask", "block_sums", "map_rows",
             "gram_dask", "as_row_blocks", "is_dask_collection", "refuse_offset_columns",
             "persist_if_fits", "memory_limit", "PERSIST_SHARE", "block_results", "start_sums",
             "start_sums_columns"],
    "daskrows": ["DaskSource"],
    "fweights": ["expected_f_weights", "noisy_f_weights", "smoothed_noisy_counts",
                 "smoothed_sums", "smoothed_from_sums", "standardised_ridge", "f_from_counts",
                 "iterate_metrics", "metric_sums", "metrics_from_sums", "Iterate", "TINY",
                 "weight_scale", "smooth_g1", "smooth_g2", "f_of_counts"],
    "irls": ["IrlsFit", "irls_logit", "as_design", "irls_coef", "irls_evaluate",
             "binomial_deviance", "gram", "independent_columns", "ColumnScaling",
             "column_scaling", "rank_gram", "MAX_WEIGHT", "SPREAD_RANGE", "column_spread",
             "check_weights_range", "r_start_mu", "deviance_from_eta", "weighted_loglik",
             "unscale_fit", "deviance_scale"],
    "outer": ["Outer", "outer_loop"],
    "rowsource": ["ArraySource"],
    "separation": ["no_finite_mle", "newton_reach", "zero_count_cells", "saturated_rows",
                   "NEWTON_REACH", "LP_MAX_ENTRIES", "SATURATION", "warn_fit"],
    "stacked": ["Reweighting", "StackedCov", "stacked_covariance", "estimating_equations",
                "stacked_terms", "aggregates", "fixed_point_gap", "unrolled_covariance",
                "unrolled_influence", "direct_sums", "path_aggregates",
                "stacked_covariance_sums", "UnrolledPlan", "unrolled_plan", "influence_rows",
                "unrolled_covariance_sums"],
}


def test_every_old_path_has_a_shim():
    assert sorted(OLD_MODULES) == sorted(OLD_ALL)


@pytest.mark.parametrize("old", sorted(OLD_ALL))
def test_old_glm_path_imports_with_a_deprecation_warning(old):
    name = f"fmstats.glm.{old}"
    sys.modules.pop(name, None)          # a module warns once, when it is first imported
    with pytest.warns(FmstatsDeprecationWarning) as record:
        module = importlib.import_module(name)
    [w] = [w for w in record if issubclass(w.category, FmstatsDeprecationWarning)]
    text = str(w.message)
    new = ", ".join(OLD_MODULES[old])
    assert f"`{name}` is deprecated" in text
    assert f"`from fmstats.glm import {new}`" in text
    # the new import works and gives the same objects; the names are glm's interface
    for n in OLD_MODULES[old]:
        assert n in glm.__all__ and getattr(glm, n) is getattr(module, n)
    # the warning points at the importing code, not at fmstats or the import machinery
    assert "fmstats" not in w.filename.replace("test_glm_old_paths", "")
    # every name the module offered, as the object its private module holds now
    private = importlib.import_module(f"fmstats.glm._{old}")
    assert module.__all__ == OLD_ALL[old]
    for n in OLD_ALL[old]:
        assert getattr(module, n) is getattr(private, n), n


def test_from_old_path_import_name_warns_and_works():
    sys.modules.pop("fmstats.glm.irls", None)
    with pytest.warns(FmstatsDeprecationWarning, match=r"from fmstats\.glm import irls_logit"):
        from fmstats.glm.irls import irls_logit
    assert irls_logit is glm.irls_logit


def test_fmstats_itself_does_not_import_the_old_paths():
    # a fresh interpreter that imports every unit of fmstats loads none of the old paths
    # (tests/test_architecture.py checks the same statically, for lazy imports too)
    code = ("import importlib, pkgutil, sys, fmstats\n"
            "for m in pkgutil.iter_modules(fmstats.__path__):\n"
            "    importlib.import_module('fmstats.' + m.name)\n"
            "print(sorted(n for n in sys.modules if n.startswith('fmstats.glm.')))")
    out = subprocess.run([sys.executable, "-W", "error::FutureWarning", "-c", code],
                         capture_output=True, text=True, check=True).stdout
    loaded = eval(out)
    assert "fmstats.glm._irls" in loaded          # the scan sees glm's modules
    assert [n for n in loaded if n.rsplit(".", 1)[-1] in OLD_MODULES] == []
