"""Numerical core of the maxent models: pure ndarray functions.

Public names of the private modules: the k-step refits of many frequency weightings at once
(:mod:`fmstats.glm._kstep`).
"""
from ._kstep import (BlockFit, OuterFit, block_size, column_grams, column_products,
                     fmaxent_block, newton_block)

__all__ = ["BlockFit", "OuterFit", "block_size", "column_grams", "column_products",
           "fmaxent_block", "newton_block"]
