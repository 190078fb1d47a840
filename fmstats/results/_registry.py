"""The classes and functions a results file may hold, by their public names.

Used by ``_tree.py`` (the data-only results file, format 3).  A file names
every fmstats object it holds by a public name of fmstats (``"fmstats.MaxentResults"``,
``"fmstats.glm.IrlsFit"``), never by the private module that defines it, so files stay
readable when modules move.  A name is resolved only if it is on these lists, by importing
the public module it names and taking the attribute: nothing a file says is imported.

To store a new class in results files, add its public name to :data:`CLASSES` (the class
must be reachable under that name, without private ``_module`` parts).  Its instances are
written as their state (``__getstate__``: the instance's ``__dict__`` for plain classes and
dataclasses) and read back with ``cls.__new__(cls)`` and ``__setstate__`` (or the
``__dict__`` filled), so new fields need no change here.  A class whose state is not plain
data defines ``file_state()`` and the classmethod ``from_file_state(state)`` instead (the
design, :class:`fmstats.formula.DesignSpec`, stores formulaic's specification as data that
way).  A class whose arrays compiled code indexes unchecked defines ``file_problem()``,
called on each instance read from a file (the reason it is inconsistent, or None): the
probabilistic label tree's descent, the randomized top-k rule.  :data:`FUNCTIONS` are the
model functions a recorded call or a tuner's settings refer to; a file may name them, and
nothing calls them while it is read.
"""
from __future__ import annotations

import functools
import importlib
import types
from typing import Any

__all__ = ["CLASSES", "FUNCTIONS", "RENAMED", "resolve", "name_of"]

#: Public names of the classes a results file may hold.
CLASSES = (
    # results
    "fmstats.MaxentResults", "fmstats.FMaxentResults", "fmstats.WsvmResults",
    "fmstats.FsvmResults", "fmstats.CostsensResults", "fmstats.CvTuneResults",
    "fmstats.TuneThresholdResults", "fmstats.BootstrapResults", "fmstats.ValidateResults",
    "fmstats.CalibrateResults", "fmstats.MultinomResults", "fmstats.MulticlassDecisionResults",
    "fmstats.maxent_models.ResampleFResults", "fmstats.multilabel.BRResults",
    "fmstats.multilabel.PCCResults", "fmstats.extreme.SPE", "fmstats.extreme.ThresholdFit",
    "fmstats.extreme.ProbabilisticLabelTreeResults", "fmstats.extreme.RandomizedTopK",
    # what results hold
    "fmstats.results.ModelCall", "fmstats.results.RowArgument", "fmstats.results.Settings",
    "fmstats.FMeasure", "fmstats.Confusion", "fmstats.with_measure",
    "fmstats.formula.DesignSpec", "fmstats.formula.MatrixSpec", "fmstats.formula.Response",
    "fmstats.formula.KeptRows",
    "fmstats.glm.IrlsFit", "fmstats.glm.DaskIrlsFit",
    "fmstats.maxent_models.InMemoryTraining", "fmstats.maxent_models.TrainingStats",
    "fmstats.svm.WsvmFit", "fmstats.svm.NloptRun", "fmstats.svm.WsvmGrid",
    "fmstats.model_selection.Criterion", "fmstats.model_selection.Folds",
    "fmstats.model_selection.TuningUncertainty", "fmstats.model_selection.GridUncertainty",
    "fmstats.resampling.Draws", "fmstats.resampling.PoissonDraws",
    "fmstats.model_selection.BlockThresholdedResults",
    "fmstats.model_selection.RowFolds", "fmstats.extreme.LabelTree",
    "fmstats.calibration.CalibrationMap", "fmstats.multiclass.MultinomFit",
)

#: Names files written before a class got its present public name hold: old name -> new.
RENAMED = {
    "fmstats.glm.irls.IrlsFit": "fmstats.glm.IrlsFit",
    "fmstats.glm.dask.DaskIrlsFit": "fmstats.glm.DaskIrlsFit",
    # results classes named after the function that makes them
    "fmstats.ThresholdedResults": "fmstats.TuneThresholdResults",
    "fmstats.CalibratedResults": "fmstats.CalibrateResults",
    "fmstats.CostSensitiveResults": "fmstats.CostsensResults",
    "fmstats.MulticlassDecision": "fmstats.MulticlassDecisionResults",
    "fmstats.maxent_models.ResampledF": "fmstats.maxent_models.ResampleFResults",
    "fmstats.extreme.PLTResults": "fmstats.extreme.ProbabilisticLabelTreeResults",
}

#: Modules that became private, for the pickles of format 2 and older (``trusted=True``),
#: which name a class by the module that defined it: old module -> its module now.
MOVED_MODULES = {f"fmstats.glm.{m}": f"fmstats.glm._{m}" for m in (
    "irls", "blockreplicates", "blocks", "dask", "daskrows", "fweights", "outer", "rowsource",
    "separation", "stacked")}

#: Classes old pickles name by a private path that no longer holds them: (module, name) ->
#: (the public module, name) now.
MOVED_CLASSES = {
    ("fmstats.resampling._bootstrap", "_Draws"): ("fmstats.resampling", "Draws"),
    ("fmstats.model_selection._folds", "FoldResponse"): ("fmstats.formula", "FoldResponse"),
}

#: Public names of the functions a results file may name (never calls).
FUNCTIONS = (
    "fmstats.maxent", "fmstats.umaxent", "fmstats.fmaxent", "fmstats.wsvm", "fmstats.fsvm",
    "fmstats.costsens", "fmstats.cv_tune", "fmstats.tune_threshold", "fmstats.calibrate",
    "fmstats.multinom", "fmstats.multiclass_decision", "fmstats.multilabel.br",
    "fmstats.multilabel.pcc", "fmstats.extreme.probabilistic_label_tree",
)


def _public(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "fmstats" and all(p.isidentifier() and not p.startswith("_")
                                         for p in parts)


@functools.lru_cache(maxsize=None)
def _lookup(name: str) -> Any:
    """The object a listed public name refers to (ImportError/AttributeError if this
    environment lacks it: e.g. the Dask fit's class without dask)."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):     # the longest importable module prefix
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            if cut == 1:
                raise
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(name)     # pragma: no cover - "fmstats" always imports


def resolve(name: Any, kind: str) -> Any:
    """The class (``kind="class"``) or function (``kind="function"``) a file names.

    Raises ``LookupError`` when the name is not on the list, ``ImportError`` when this
    environment does not have it.
    """
    listed = CLASSES if kind == "class" else FUNCTIONS
    if isinstance(name, str):
        name = RENAMED.get(name, name)
    if not isinstance(name, str) or name not in listed or not _public(name):
        raise LookupError(name)
    try:
        obj = _lookup(name)
    except AttributeError as exc:
        raise ImportError(f"{name} ({exc})") from None
    ok = isinstance(obj, type) if kind == "class" else callable(obj)
    if not ok:     # pragma: no cover - a wrong entry in the lists
        raise LookupError(name)
    return obj


@functools.lru_cache(maxsize=None)
def _names() -> dict:
    out: dict = {}
    for kind, names in (("class", CLASSES), ("function", FUNCTIONS)):
        for name in names:
            try:
                out.setdefault(id(resolve(name, kind)), (name, resolve(name, kind)))
            except ImportError:      # not in this environment: cannot be held either
                pass
    return out


def name_of(obj: Any) -> str | None:
    """The public name a file gives ``obj`` (a listed class, or a listed function), or
    None when it is not listed (the exact class: subclasses are not)."""
    hit = _names().get(id(obj))
    return hit[0] if hit is not None and hit[1] is obj else None


def is_function(obj: Any) -> bool:
    """Whether ``obj`` is a function (as opposed to data or an instance)."""
    return isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                            functools.partial))
