"""Decisions among more than two classes.

* :func:`multinom` -- multinomial maximum entropy with the formula API (R's
  ``nnet::multinom``; :class:`MultinomResults`);
* :func:`multiclass_decision` -- micro-F (default class), macro-F (Frank-Wolfe) and
  cost-matrix decisions from class probabilities, tuned by pooled CV
  (:class:`MulticlassDecisionResults`);
* :func:`multiclass_confusion` -- the counts of the multiclass micro-F with a default class.
"""
from ._mncore import MultinomFit, class_probabilities, fit_multinom
from ._mnresults import MultinomResults, lr_table, multiclass_confusion
from ._multinom import multinom, response_classes
from ._decision import MulticlassDecisionResults, MulticlassDecision, multiclass_decision
from ._rules import cost_decision, frank_wolfe, macro_f, micro_curve, micro_scores

__all__ = ["multinom", "MultinomResults", "multiclass_decision", "MulticlassDecisionResults",
           "MulticlassDecision",
           "multiclass_confusion", "lr_table", "macro_f", "cost_decision", "frank_wolfe",
           "micro_curve", "micro_scores", "fit_multinom", "class_probabilities", "MultinomFit",
           "response_classes"]
