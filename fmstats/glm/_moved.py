"""The module paths ``fmstats.glm`` had before its modules became private.

``fmstats.glm.irls``, ``fmstats.glm.dask``, ... were public modules with API pages; their
code now lives in ``_irls``, ``_dask``, ... and their names are imported from ``fmstats.glm``.
Each old path is a small module beside its private one that still imports: it offers the names
it offered then (its old ``__all__``) and warns with a :class:`FmstatsDeprecationWarning`
naming the import from ``fmstats.glm``.  Nothing in fmstats imports them
(tests/test_architecture.py checks); the API pages skip them (docs/apigen.py).
"""
from __future__ import annotations

import warnings

from ..exceptions import FmstatsDeprecationWarning

__all__ = ["OLD_MODULES", "warn_moved"]

#: old module (``fmstats.glm.<key>``) -> the names of ``fmstats.glm`` its warning shows in the
#: new import (its main names; all are in ``fmstats.glm.__all__``).
OLD_MODULES = {
    "irls": ("irls_logit", "IrlsFit"),
    "blockreplicates": ("RowDraws", "newton_passes", "outer_passes"),
    "blocks": ("BlockDesign", "BlockSource"),
    "dask": ("block_sums", "start_sums"),
    "daskrows": ("DaskSource",),
    "fweights": ("expected_f_weights", "noisy_f_weights"),
    "outer": ("Outer", "outer_loop"),
    "rowsource": ("ArraySource",),
    "separation": ("no_finite_mle", "saturated_rows"),
    "stacked": ("Reweighting", "stacked_covariance_sums"),
}


def warn_moved(module: str) -> None:
    """Warn that the old path ``module`` (``fmstats.glm.irls``, ...) is deprecated.

    Parameters
    ----------
    module : str
        The old module's dotted name (its ``__name__``).
    """
    names = ", ".join(OLD_MODULES[module.rsplit(".", 1)[-1]])
    # stacklevel 3: past this function and the old module's body to the importing line (the
    # import machinery's own frames are skipped by the warnings module)
    warnings.warn(f"`{module}` is deprecated: glm's modules are private; import their names "
                  f"from `fmstats.glm` (`from fmstats.glm import {names}`).  The old path "
                  "will be removed in a future version.", FmstatsDeprecationWarning,
                  stacklevel=3)
