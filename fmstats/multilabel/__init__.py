"""Multi-label classification tailored to the instance-wise F-measure (seed 000).

* Inference from a distribution over label vectors: :func:`gfm` (the exact F-maximiser,
  General F-measure Maximizer), :func:`gfm_threshold` (GFM-T), :func:`estimate_P` (its inputs
  from sampled label vectors) and :func:`hamming` (marginals >= 1/2);
* inference from marginals under label independence: :func:`meuf`, :func:`lewis`,
  :func:`multinomial_rule`, and :func:`independent_P` (GFM's inputs for independent labels);
* models: :func:`br` (binary relevance) and :func:`pcc` (probabilistic classifier chains) of
  ridge-regularised logistic regressions, and :func:`evaluate` (Table 1 of the paper).
"""
from ._inference import estimate_P, gfm, gfm_threshold, hamming
from ._independent import independent_P, lewis, meuf, multinomial_rule
from ._fitting import br, pcc
from ._results import BRResults, PCCResults
from ._report import evaluate

__all__ = [
    "gfm",
    "gfm_threshold",
    "estimate_P",
    "hamming",
    "meuf",
    "lewis",
    "multinomial_rule",
    "independent_P",
    "br",
    "pcc",
    "evaluate",
    "BRResults",
    "PCCResults",
]
