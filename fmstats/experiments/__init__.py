"""The source papers' experiments, as functions the vignettes and the reproduction tests share.

Not part of fmstats' modelling API: these modules run the protocols of the papers on their
data (seed 000's yeast Table 1 and seed 001's tables in :mod:`fmstats.experiments.papers`,
seed 002's section 6 in :mod:`fmstats.experiments.seed002`, the thesis's chapters 8 and 9 in
:mod:`fmstats.experiments.thesis_ch8` and :mod:`fmstats.experiments.thesis_ch9`), using only
fmstats' public functions.
"""
