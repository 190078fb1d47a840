"""What a results file may name, create and call: the explicit allow-list of ``load()``.

Used by :mod:`fmstats.results._safeload` only.  A pickle is a program: it names objects
(``GLOBAL``), calls them (``REDUCE``), creates instances of classes (``NEWOBJ``) and fills
them (``BUILD``).  A file is read by an unpickler that does each of these only for what is
listed here, in three tables, by module and qualified name:

* :data:`CLASSES` -- classes a file may create empty (``cls.__new__(cls)``) and fill with
  their pickled state: fmstats' results and value classes, formulaic's parsed formulas,
  pandas' frames, arrays and dtypes, scipy's CSR/CSC matrices;
* :data:`CALLS` -- functions and classes a file may call with arguments it chooses: the
  reconstructors numpy, pandas and pyarrow pickle with, enum lookups and ``slice``; some run
  through a wrapper that checks their arguments first (:data:`WRAPPERS`);
* :data:`NAMES` -- functions a file may name but never call: the model functions a recorded
  call refers to (``fm.maxent`` in ``fit.call``).

Anything else named by a file (``os.system``, ``builtins.eval``, ``subprocess.Popen``, a
module of the user's, a class of fmstats not listed) is refused before its module is
imported.  The names are those the pickles of every results type use with this
environment's libraries (``tests/test_results_files.py`` checks both ways: every results type
loads, and every listed name exists); a library that pickles with other names makes
``load()`` refuse the file and ``load(path, trusted=True)`` read it.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["CLASSES", "CALLS", "NAMES", "WRAPPERS", "resolve", "listed"]

_FMSTATS_CLASSES = {
    "fmstats._utils.call": ("ModelCall", "RowArgument", "Settings"),
    "fmstats.formula._frame": ("DesignSpec",),
    "fmstats.formula._kept": ("KeptRows",),
    "fmstats.formula._matrix": ("MatrixSpec",),
    "fmstats.formula._response": ("Response",),
    "fmstats.measures._fmeasure": ("FMeasure", "Confusion"),
    "fmstats.glm.irls": ("IrlsFit",),
    "fmstats.glm.dask": ("DaskIrlsFit",),
    "fmstats.maxent_models._maxent": ("MaxentResults",),
    "fmstats.maxent_models._fresults": ("FMaxentResults",),
    "fmstats.maxent_models._training": ("InMemoryTraining",),
    "fmstats.maxent_models._outofcore": ("TrainingStats",),
    "fmstats.maxent_models._qresample": ("ResampledF",),
    "fmstats.svm._wsvm": ("WsvmResults",),
    "fmstats.svm._fsvm": ("FsvmResults",),
    "fmstats.svm._qp": ("WsvmFit",),
    "fmstats.svm._cobyla": ("NloptRun",),
    "fmstats.svm._tuning": ("_WsvmGrid",),
    "fmstats.costsensitive._results": ("CostSensitiveResults",),
    "fmstats.model_selection._cv_tune": ("CvTuneResults", "with_measure"),
    "fmstats.model_selection._threshold": ("ThresholdedResults",),
    "fmstats.model_selection._uncertainty": ("TuningUncertainty",),
    "fmstats.model_selection._grid_uncertainty": ("GridUncertainty",),
    "fmstats.model_selection._criterion": ("Criterion",),
    "fmstats.model_selection._folds": ("Folds",),
    "fmstats.resampling._bootstrap": ("BootstrapResults",),
    "fmstats.resampling._replicates": ("Draws",),
    "fmstats.resampling._validate": ("ValidateResults",),
    "fmstats.multilabel._results": ("BRResults", "PCCResults"),
    "fmstats.extreme._spe": ("SPE",),
    "fmstats.extreme._thresholds": ("ThresholdFit",),
    "fmstats.extreme._plt": ("PLTResults",),
    "fmstats.extreme._trees": ("LabelTree",),
    "fmstats.calibration._calibrate": ("CalibratedResults",),
    "fmstats.calibration._maps": ("CalibrationMap",),
    "fmstats.multiclass._mnresults": ("MultinomResults",),
    "fmstats.multiclass._mncore": ("MultinomFit",),
    "fmstats.multiclass._decision": ("MulticlassDecision",),
    "fmstats.extreme._plugin": ("RandomizedTopK",),
}

_LIBRARY_CLASSES = {
    # formulaic's parsed formula and fitted model spec (every formulaic design holds one)
    "formulaic.model_spec": ("ModelSpec",),
    "formulaic.formula": ("SimpleFormula",),
    "formulaic.parser.types.factor": ("Factor",),
    "formulaic.parser.types.term": ("Term",),
    "formulaic.parser.types.token": ("Token",),
    "formulaic.materializers.base": ("EncodedTermStructure",),
    "formulaic.materializers.types.evaluated_factor": ("EvaluatedFactor",),
    "formulaic.materializers.types.scoped_factor": ("ScopedFactor",),
    "formulaic.materializers.types.scoped_term": ("ScopedTerm",),
    "formulaic.transforms.contrasts": ("ContrastsState", "TreatmentContrasts", "SumContrasts",
                                       "HelmertContrasts", "DiffContrasts", "PolyContrasts"),
    "formulaic.utils.variables": ("Variable",),
    # pandas objects (pandas >= 3 pickles them under their public module)
    "pandas": ("DataFrame", "Series", "Int64Dtype", "Int32Dtype", "Float64Dtype",
               "BooleanDtype", "CategoricalDtype"),
    "pandas.arrays": ("IntegerArray", "FloatingArray", "BooleanArray", "ArrowStringArray",
                      "StringArray"),
    "pandas.core.internals.managers": ("SingleBlockManager",),
    # pandas 2.x pickles them under their defining modules
    "pandas.core.frame": ("DataFrame",),
    "pandas.core.series": ("Series",),
    "pandas.core.arrays.integer": ("IntegerArray", "Int64Dtype", "Int32Dtype"),
    "pandas.core.arrays.floating": ("FloatingArray", "Float64Dtype"),
    "pandas.core.arrays.boolean": ("BooleanArray", "BooleanDtype"),
    "pandas.core.dtypes.dtypes": ("CategoricalDtype",),
    "scipy.sparse._csr": ("csr_array", "csr_matrix"),
    "scipy.sparse._csc": ("csc_array", "csc_matrix"),
}

#: Classes a file may create empty and fill with their pickled state, by module.
CLASSES = {**_FMSTATS_CLASSES, **_LIBRARY_CLASSES}

#: Functions and classes a file may call with arguments of its choice, by module.
CALLS = {
    "builtins": ("slice", "complex", "frozenset", "set"),
    "numpy": ("dtype",),
    "numpy._core.multiarray": ("_reconstruct", "scalar"),
    "numpy._core.numeric": ("_frombuffer",),
    "numpy.core.multiarray": ("_reconstruct", "scalar"),     # numpy 1.x's names (_ALIASES)
    "numpy.core.numeric": ("_frombuffer",),
    "numpy.random.bit_generator": ("__pyx_unpickle_SeedSequence",),
    "pandas": ("StringDtype",),
    "pandas.core.arrays.string_": ("StringDtype",),            # pandas 2.x
    "pandas.core.indexes.base": ("_new_Index",),
    "pandas._libs.internals": ("_unpickle_block",),
    "pandas._libs.arrays": ("__pyx_unpickle_NDArrayBacked",),
    "pandas.core.internals.managers": ("BlockManager",),
    "pyarrow.lib": ("_restore_array", "py_buffer", "type_for_alias"),
    "formulaic.formula": ("OrderingMethod",),
    "formulaic.materializers.types.enums": ("ClusterBy", "NAAction"),
    "formulaic.parser.types.factor": ("Factor.EvalMethod", "Factor.Kind"),
    "formulaic.parser.types.token": ("Token.Kind",),
    "formulaic.utils.sentinels": ("Sentinel",),
    "formulaic.utils.variables": ("Variable.Role",),
}

#: Objects a file may name as values but never call (a recorded call's model function).
NAMES = {
    "fmstats.maxent_models._maxent": ("maxent", "umaxent"),
    "fmstats.maxent_models._fmaxent": ("fmaxent",),
    "fmstats.svm._wsvm": ("wsvm",),
    "fmstats.svm._fsvm": ("fsvm",),
    "fmstats.costsensitive._api": ("costsens",),
    "fmstats.model_selection._cv_tune": ("cv_tune",),
    "fmstats.model_selection._threshold": ("tune_threshold",),
    "fmstats.multilabel._fitting": ("br", "pcc"),
    "fmstats.extreme._plt": ("probabilistic_label_tree",),
    "fmstats.calibration._calibrate": ("calibrate",),
    "fmstats.multiclass._multinom": ("multinom",),
    "fmstats.multiclass._decision": ("multiclass_decision",),
    "numpy": ("ndarray",),
    "numpy.random.bit_generator": ("SeedSequence",),
    "pandas": ("Index", "RangeIndex", "MultiIndex", "CategoricalIndex", "DatetimeIndex",
               "Categorical"),
    "pandas.arrays": ("DatetimeArray",),
    "pandas._libs.missing": ("NA",),
    # pandas 2.x names
    "pandas.core.indexes.base": ("Index",),
    "pandas.core.indexes.range": ("RangeIndex",),
    "pandas.core.indexes.multi": ("MultiIndex",),
    "pandas.core.indexes.category": ("CategoricalIndex",),
    "pandas.core.arrays.categorical": ("Categorical",),
    "pandas.core.arrays.datetimes": ("DatetimeArray",),
    "pandas.core.arrays.string_": ("StringArray",),
}

#: Classes whose instances made by a listed call may then be filled by the file (``BUILD``).
BUILT_AFTER_CALL = {
    "numpy": ("ndarray",),
    "numpy.random.bit_generator": ("SeedSequence",),
    "pandas": ("Categorical",),
    "pandas.arrays": ("DatetimeArray", "StringArray"),
    "pandas.core.arrays.categorical": ("Categorical",),               # pandas 2.x names
    "pandas.core.arrays.datetimes": ("DatetimeArray",),
    "pandas.core.arrays.string_": ("StringArray",),
}

_TABLES = (CLASSES, CALLS, NAMES)


def listed(module: str, qualname: str) -> bool:
    """Whether ``module.qualname`` is on any of the tables."""
    return any(qualname in table.get(module, ()) for table in _TABLES)


#: numpy 2 renamed ``numpy.core`` to ``numpy._core`` (the old name imports with a warning):
#: either spelling in a file resolves to whichever module this numpy has.
_ALIASES = {"numpy.core.multiarray": "numpy._core.multiarray",
            "numpy.core.numeric": "numpy._core.numeric"}
_ALIASES.update({new: old for old, new in _ALIASES.items()})


def resolve(module: str, qualname: str) -> Any:
    """The object ``module.qualname`` names (its module imported only if listed).

    Raises ``LookupError`` when it is not listed, ``ImportError``/``AttributeError`` when
    this environment does not have it.
    """
    if not listed(module, qualname):
        raise LookupError(f"{module}.{qualname}")
    names = [module] + ([_ALIASES[module]] if module in _ALIASES else [])
    names.sort(key=lambda m: not m.startswith("numpy._core"))   # numpy 2's name first
    for i, name in enumerate(names):
        try:
            obj = importlib.import_module(name)
            break
        except ImportError:
            if i == len(names) - 1:
                raise
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


# ------------------------------------------------------------------ checked calls
def _checked_dtype(obj, align=False, copy=False):
    """``numpy.dtype`` returning a new dtype object every time (``copy=True``): the file may
    then fill it, and must never fill numpy's shared built-in dtypes."""
    import numpy as np

    return np.dtype(obj, bool(align), True)


def _checked_reconstruct(subtype, shape, dtype):
    """numpy's array reconstructor as numpy pickles with it: an empty ndarray that the file
    then fills (a crafted shape would allocate memory the file does not hold)."""
    import numpy as np

    _reconstruct = resolve("numpy._core.multiarray", "_reconstruct")
    if subtype is not np.ndarray or tuple(shape) != (0,):
        raise ValueError(f"numpy arrays are rebuilt from an empty ndarray, not {subtype!r} "
                         f"of shape {shape!r}")
    return _reconstruct(subtype, shape, dtype)


def _checked_seed_sequence(cls, *rest):
    """numpy's SeedSequence reconstructor, for SeedSequence only."""
    import numpy as np
    from numpy.random.bit_generator import __pyx_unpickle_SeedSequence

    if cls is not np.random.SeedSequence:
        raise ValueError(f"{cls!r} is not numpy's SeedSequence")
    return __pyx_unpickle_SeedSequence(cls, *rest)


def _checked_restore_array(*args):
    """pyarrow's array reconstructor, then a full validation of offsets and buffers (an
    array built from a file's buffers is otherwise trusted by pyarrow's C++ code)."""
    import pyarrow.lib

    arr = pyarrow.lib._restore_array(*args)
    arr.validate(full=True)
    return arr


def _checked_block_manager(blocks, axes, *rest):
    """pandas' BlockManager, after checking that the blocks' row placements cover the
    columns exactly once (pandas' Cython code indexes with them unchecked)."""
    import numpy as np
    from pandas.core.internals.managers import BlockManager

    n = len(axes[0]) if len(axes) else 0
    locs = [np.asarray(b.mgr_locs.as_array) for b in blocks]
    flat = np.concatenate(locs) if locs else np.empty(0, dtype=np.intp)
    if flat.size != n or not np.array_equal(np.sort(flat), np.arange(n)):
        raise ValueError("the frame's blocks do not cover its columns exactly once")
    return BlockManager(blocks, axes, *rest)


def _checked_new_index(cls, d, *rest):
    """pandas' ``_new_Index`` for pandas Index classes only."""
    import pandas as pd
    from pandas.core.indexes.base import _new_Index

    if not (isinstance(cls, type) and issubclass(cls, pd.Index)):
        raise ValueError(f"{cls!r} is not a pandas Index class")
    return _new_Index(cls, d, *rest)


def _checked_ndarray_backed(cls, *rest):
    """pandas' reconstructor of Categorical, DatetimeArray and StringArray (text without
    pyarrow), for those classes only."""
    import pandas as pd
    from pandas._libs.arrays import __pyx_unpickle_NDArrayBacked

    if cls not in (pd.Categorical, pd.arrays.DatetimeArray, pd.arrays.StringArray):
        raise ValueError(f"{cls!r} is not a pandas Categorical, DatetimeArray or StringArray")
    return __pyx_unpickle_NDArrayBacked(cls, *rest)


#: Listed calls that run through a checking wrapper instead, by (module, qualname).
WRAPPERS: dict[tuple[str, str], Callable] = {
    ("numpy", "dtype"): _checked_dtype,
    ("numpy._core.multiarray", "_reconstruct"): _checked_reconstruct,
    ("numpy.core.multiarray", "_reconstruct"): _checked_reconstruct,
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"): _checked_seed_sequence,
    ("pyarrow.lib", "_restore_array"): _checked_restore_array,
    ("pandas.core.internals.managers", "BlockManager"): _checked_block_manager,
    ("pandas.core.indexes.base", "_new_Index"): _checked_new_index,
    ("pandas._libs.arrays", "__pyx_unpickle_NDArrayBacked"): _checked_ndarray_backed,
}
