"""Decisions among more than two classes.

* :func:`multinom` -- multinomial maximum entropy with the formula API (R's
  ``nnet::multinom``; :class:`MultinomResults`);
* :func:`multiclass_confusion` -- the counts of the multiclass micro-F with a default class.
"""
from ._mncore import MultinomFit, class_probabilities, fit_multinom
from ._mnresults import MultinomResults, lr_table, multiclass_confusion
from ._multinom import multinom, response_classes

__all__ = ["multinom", "MultinomResults", "multiclass_confusion", "lr_table"]
