"""Errors and warnings raised by fmstats.

Every error is an :class:`FmstatsError` (a ``ValueError``) whose message names
the offending argument, the rule it broke and the value received.  Every
warning is a subclass of :class:`FmstatsWarning` carrying advice.
"""
from __future__ import annotations

import warnings

__all__ = [
    "FmstatsError",
    "InvalidArgumentError",
    "DataError",
    "MissingDataError",
    "ResponseError",
    "WeightsError",
    "ModelComparisonError",
    "FormulaError",
    "UnseenLevelError",
    "DesignError",
    "ResultsFileError",
    "FmstatsWarning",
    "ConvergenceWarning",
    "SeparationWarning",
    "MissingDataWarning",
    "CollinearityWarning",
    "DataWarning",
    "ResultsFileWarning",
    "FitFailedWarning",
    "EmptyFoldWarning",
    "ResamplingWarning",
    "DegenerateFitWarning",
    "WorkerError",
    "IntervalWarning",
    "TrivialRuleWarning",
    "UnstableThresholdWarning",
    "IneffectiveParameterWarning",
    "ConstraintWarning",
    "InappropriateTestWarning",
    "PartitionMemoryWarning",
    "FmstatsDeprecationWarning",
    "brief_warnings",
]


class FmstatsError(ValueError):
    """Base class of every error fmstats raises on bad input."""


class InvalidArgumentError(FmstatsError):
    """An argument has the wrong type, range or combination with another."""


class DataError(FmstatsError):
    """The data cannot be used (empty frame, wrong shape, non-finite values)."""


class MissingDataError(DataError):
    """Missing or non-finite values found and ``missing="raise"`` was asked for."""


class ResponseError(DataError):
    """The response is not binary / not a probability / has a single class."""


class WeightsError(DataError):
    """Weights are negative, non-finite, all zero or of the wrong length."""


class FormulaError(FmstatsError):
    """The formula cannot be parsed or names unknown columns."""


class UnseenLevelError(FormulaError):
    """A factor level at prediction time was not present when fitting."""


class DesignError(DataError):
    """The design matrix is rank deficient and ``collinear="raise"`` was asked for."""


class ResultsFileError(DataError):
    """A results file cannot be read or written: missing, damaged, of another type, or
    refused because it could run code when opened."""


class ModelComparisonError(FmstatsError):
    """Models cannot be compared (anova): different rows or families, not nested, or not
    likelihood fits."""


class WorkerError(FmstatsError):
    """A parallel worker process died (killed, or out of memory) during independent refits."""


class FmstatsWarning(UserWarning):
    """Base class of every warning fmstats emits."""


class ConvergenceWarning(FmstatsWarning):
    """An iterative fit stopped before meeting its convergence criterion."""


class SeparationWarning(FmstatsWarning):
    """Fitted probabilities of 0 or 1 occurred: the data are (quasi-)separated."""


class MissingDataWarning(FmstatsWarning):
    """Rows with missing or non-finite values were dropped."""


class CollinearityWarning(FmstatsWarning):
    """Constant or collinear design columns were dropped (R's NA coefficients)."""


class DataWarning(FmstatsWarning):
    """Something about the data deserves attention but does not stop the fit."""


class PartitionMemoryWarning(DataWarning):
    """A partition of a Dask DataFrame is large for the workers' memory limit: a task that
    builds its design and sums over it may run a worker out of memory (read the files in
    smaller partitions)."""


class ResultsFileWarning(FmstatsWarning):
    """A results file is read or written without the protections of the data-only format: a
    pickle (results file format 2, or an older plain pickle) opened with ``trusted=True``, or
    results written as such a pickle because a data-only file cannot hold them (a function
    of the user's)."""


class FitFailedWarning(FmstatsWarning):
    """Some fits of a cross-validation failed; their grid points have no score."""


class EmptyFoldWarning(DataWarning):
    """A held-out fold has no positive rows, so its F is degenerate."""


class ResamplingWarning(FmstatsWarning):
    """Some bootstrap replicates failed, lacked terms or warned; the summary says how many."""


class DegenerateFitWarning(FmstatsWarning):
    """A fit collapsed to a classifier that predicts a single class on its training rows."""


class IntervalWarning(FmstatsWarning):
    """An interval's approximation fails on these data (e.g. a delta-method interval of
    width 0 where TP = 0 or F = 1); the message names a method that holds there."""


class TrivialRuleWarning(FmstatsWarning):
    """A tuned decision rule classes every row alike (all positive or all negative)."""


class UnstableThresholdWarning(FmstatsWarning):
    """The bootstrap interval of a tuned threshold spans most of the score range: the
    threshold is barely determined by the data."""


class IneffectiveParameterWarning(FmstatsWarning):
    """A tuning grid varies a parameter that changed nothing: grid points differing only in
    it gave identical results (e.g. ``epsilon`` of fmaxent's expected-F method)."""


class ConstraintWarning(FmstatsWarning):
    """No threshold meets the constraint of ``tune_threshold(constraint=)`` on the pooled
    held-out scores; the threshold that comes closest is used."""


class InappropriateTestWarning(FmstatsWarning):
    """A test whose reference distribution does not fit the model, as R warns: an F test of
    a binomial fit (its dispersion is 1, not estimated) or with a dispersion fixed by the
    caller; the message names the test that fits."""

class FmstatsDeprecationWarning(FmstatsWarning, FutureWarning):
    """An argument was given in an old spelling that still works (the same numbers) and will
    be removed in a future version; the message names the new spelling (e.g.
    ``measure(ci="delta")`` is now ``measure(ci=True, ci_method="delta")``)."""



def brief_warnings(on: bool = True) -> None:
    """Print warnings as one line, ``Category: message``.

    Python prints a warning as ``path/to/file.py:49: Category: message`` followed by the
    source line that emitted it; in a notebook the path is a temporary file of the kernel
    and the line is code you already see.  This sets :func:`warnings.formatwarning` (for
    every warning, fmstats' and others') to the category and the message alone, as the
    vignettes do in their first cell.  Which warnings are shown is not changed.

    Parameters
    ----------
    on : bool, default True
        ``False`` restores Python's format.

    Examples
    --------
    >>> import warnings
    >>> import fmstats as fm
    >>> fm.brief_warnings()
    >>> warnings.formatwarning("dropped 3 rows", fm.exceptions.MissingDataWarning, "x.py", 1)
    'MissingDataWarning: dropped 3 rows\\n'
    >>> fm.brief_warnings(False)
    """
    if not isinstance(on, bool):
        raise InvalidArgumentError(f"`on` must be True or False; got {on!r:.60}.")
    if on:
        warnings.formatwarning = _brief_format
    elif warnings.formatwarning is _brief_format:
        warnings.formatwarning = _PYTHON_FORMAT


def _brief_format(message, category, filename, lineno, line=None) -> str:
    return f"{category.__name__}: {message}\n"


_PYTHON_FORMAT = warnings.formatwarning
