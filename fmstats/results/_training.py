"""The training rows and prior weights of a fitted model, for functions that refit it.

Every results object answers "my training rows" through one interface, :class:`FitRows`
(``formula``, ``spec``, ``index``, ``y``, ``trials``, ``X``, ``aliased``, ``prior_weights``,
``refits_kept_rows``, ``training_data``): each is None (False) where the results do not keep
it, and the families set or compute the ones they keep (a maxent-family fit asks its
training-data object, :class:`fmstats.maxent_models.InMemoryTraining`).  The functions here
ask it through :func:`rows_of`, never by probing attributes.

Used by ``bootstrap`` and ``validate``, ``tune_threshold``, ``calibrate`` and
``multiclass_decision``: every function that refits a model on
parts of "its" data checks that the data given is the data the model was fitted on
(:func:`training_frame`) and scores rows with the model's prior weights
(:func:`training_weights`), passing array weights back to the refits
(:func:`array_weights`), so that frequency weights give the results of duplicated rows.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._utils.call import ARRAY_WEIGHTS
from .._utils.validation import describe
from ..exceptions import DataError, InvalidArgumentError
from ..formula import KeptRows, fold_response

__all__ = ["FitRows", "rows_of", "training_frame", "training_design", "training_weights",
           "array_weights", "keeps_training_rows", "kept_rows", "kept_design_frame",
           "CHECK_ROWS"]


class FitRows:
    """What a results object says about the rows it was fitted on: the one interface of
    every fmstats results class (the models, the tuners, the decisions).

    A class attribute is the answer of results that do not keep that item (None, or False);
    a family sets or computes the ones it keeps.
    """

    #: The model formula (None: fitted from arrays).
    formula = None
    #: The design specification that rebuilds the design of data.
    spec = None
    #: The index labels of the rows the fit used, in its order.
    index = None
    #: The response of those rows as proportions (as the fit used it).
    y = None
    #: Binomial trials of ``cbind`` responses.
    trials = None
    #: The design of those rows, when the fit keeps it.
    X = None
    #: Which design columns were aliased (dropped) by the fit.
    aliased = None
    #: The prior weights of those rows.
    prior_weights = None
    #: Whether the fit refits on the rows it kept (``formula.KeptRows``) when it keeps ``X``.
    refits_kept_rows = False
    #: The DataFrame the results keep of their training data (a tuned threshold's).
    training_data = None

    @property
    def fitted_model(self):
        """The fitted model these results stand on: themselves for a model; the base model
        of a tuned threshold, a calibration or a decision; the refitted best model of
        ``cv_tune``."""
        return self


_DECLARED = tuple(n for n, v in vars(FitRows).items()
                  if not n.startswith("_") and not isinstance(v, property))


class _Foreign:
    """An object outside the fmstats results classes (the model :func:`fmstats.step`
    returns, which delegates to the selected model; a user's own object) read through the
    names of :class:`FitRows`: what it lacks reads as FitRows' answer."""

    def __init__(self, results):
        self._results = results

    def __getattr__(self, name):
        if name not in _DECLARED:
            raise AttributeError(name)
        return getattr(self._results, name, getattr(FitRows, name))

    @property
    def fitted_model(self):
        r = self._results
        return getattr(r, "base", None) or getattr(r, "best_model", None) or r


def model_engine(results) -> str | None:
    """The formula engine of a fitted model's design (of its base model for tuned ones)."""
    return getattr(rows_of(rows_of(results).fitted_model).spec, "engine", None)


def rows_of(results) -> FitRows | _Foreign:
    """``results`` as :class:`FitRows`: itself for every fmstats results class; an object
    of another class is read through the same names (what it lacks reads as None).

    Parameters
    ----------
    results : object
        A results object (any fmstats results class, or another object read by the same names).

    Returns
    -------
    FitRows
        ``results`` itself, or a read-only view of it with FitRows' names.
    """
    return results if isinstance(results, FitRows) else _Foreign(results)


_INTERCEPTS = ("Intercept", "(Intercept)")


def training_frame(results, data, *, what: str = "resampling", design=None) -> pd.DataFrame:
    """The rows the model was fitted on, checked against what the results object stores.

    ``data`` defaults to ``results.training_data`` where the model keeps it.  When the
    model stores its row labels (``index``), the rows are looked up by label (rows the fit
    dropped for missing values are left out, in the fit's order) and, when it stores its
    design and labels (``spec``, ``X``, ``y``), both are rebuilt from ``data`` and
    compared: a flipped response or other rows raise a :class:`DataError` naming the
    first difference.  ``what`` names the caller in the messages.  ``design`` (a function
    of the rows, returning a :class:`fmstats.formula.DesignMatrix`) builds the design
    of the rows once for the caller, and the comparison takes it from there.

    Parameters
    ----------
    results : FitRows
        The fitted results.
    data : pandas.DataFrame or None
        The data the model was fitted on (None: the data the results keep).
    what : str, default "resampling"
        The caller's name, for the messages.
    design : callable, optional
        A function of the rows returning their :class:`~fmstats.formula.DesignMatrix`.

    Returns
    -------
    pandas.DataFrame
        The training rows, in the fit's order.
    """
    rows = rows_of(results)
    if data is None:
        data = rows.training_data
    if isinstance(data, KeptRows):
        raise InvalidArgumentError(
            f"{what} a {type(results).__name__} tuned on the rows its model kept refits it "
            "from its formula, which needs the training data: pass `data=` (the DataFrame the "
            "model was fitted on).")
    if data is None:
        raise InvalidArgumentError(
            f"{what} a {type(results).__name__} refits it from its formula, which needs the "
            "training data, and the results object does not keep it: pass `data=` (the "
            "DataFrame the model was fitted on).")
    if not isinstance(data, pd.DataFrame):
        raise InvalidArgumentError(f"`data` must be a pandas DataFrame; got {describe(data)}.")
    index = rows.index
    if not isinstance(index, pd.Index):
        return data
    if not data.index.is_unique:
        raise DataError("`data` has duplicate index labels, so the rows the model was fitted on "
                        "cannot be located; pass the frame the model was fitted on.")
    missing = index.difference(data.index)
    if len(missing):
        raise DataError(f"`data` lacks {len(missing)} of the {len(index)} rows the model was "
                        f"fitted on (e.g. index label {missing[0]!r}); pass the training frame "
                        f"({what} needs the data the model was fitted on).")
    frame = data.loc[index]
    spec, y = rows.spec, rows.y
    if spec is not None and y is not None:
        if design is None:
            resp, X, _ = spec.build_with_response(frame, missing="raise", arg="data")
        else:
            frame = frame.reset_index(drop=True)
            cache = design(frame)
            resp, X, _ = spec.build_with_response(cache.subset(np.arange(len(frame)),
                                                               frame=frame), missing="raise",
                                                  arg="data")
        X = X[:, ~rows.aliased] if rows.aliased is not None else X
        stored = rows.X
        if stored is not None and stored.shape[1] == X.shape[1] - 1:
            # SVMs store the design without its intercept column (b is separate)
            names = list(spec.column_names)
            keep = [i for i, n in enumerate(names) if n not in _INTERCEPTS]
            X = X[:, keep] if len(keep) == stored.shape[1] else X
        bad = ~np.isclose(resp.y, y, rtol=1e-10, atol=1e-12)
        if bad.any() or (stored is not None and (stored.shape != X.shape or not np.allclose(
                X, stored, rtol=1e-10, atol=1e-12))):
            where = (f"the response differs at row {frame.index[np.flatnonzero(bad)[0]]!r}"
                     if bad.any() else "the design matrix differs")
            raise DataError(f"`data` does not match the data the model was fitted on: {where} "
                            f"({what} needs the data the model was fitted on).")
    return frame


#: Rows of the design rebuilt to check ``data`` against a fit that refits on its own design.
CHECK_ROWS = 256


def kept_design_frame(results, data, *, what: str = "resampling") -> pd.DataFrame:
    """The rows the model was fitted on (numbered 0..n-1), checked for functions whose refits
    run on the fit's own design (``results.row_refits()``) and so never build one.

    As :func:`training_frame`, but the design is rebuilt on :data:`CHECK_ROWS` evenly spaced
    rows only (the response on every row): enough to refuse another data set, without
    rebuilding the whole design the fit already holds.

    Parameters
    ----------
    results : FitRows
        The fitted results.
    data : pandas.DataFrame or None
        The data the model was fitted on (None: the data the results keep).
    what : str, default "resampling"
        The caller's name, for the messages.

    Returns
    -------
    pandas.DataFrame
        The training rows, numbered 0..n-1.
    """
    if not isinstance(data, pd.DataFrame):
        return training_frame(results, data, what=what)
    rows = rows_of(results)
    index, spec, y, stored = rows.index, rows.spec, rows.y, rows.X
    if not isinstance(index, pd.Index) or spec is None or y is None or stored is None:
        return training_frame(results, data, what=what).reset_index(drop=True)
    n = len(index)
    sample = np.unique(np.linspace(0, n - 1, min(n, CHECK_ROWS)).round().astype(np.int64))
    if not data.index.is_unique or len(index.difference(data.index)):
        return training_frame(results, data, what=what)     # raises the lookup's DataError
    frame = data.loc[index].reset_index(drop=True)
    resp = fold_response(rows.formula, frame)
    bad = ~np.isclose(resp.y, y, rtol=1e-10, atol=1e-12)
    where = None
    if bad.any():
        where = f"the response differs at row {index[np.flatnonzero(bad)[0]]!r}"
    else:
        _, X, _ = spec.build_with_response(frame.iloc[sample], missing="raise", arg="data")
        X = X[:, ~rows.aliased]
        part = stored[sample]
        part = part.toarray() if hasattr(part, "toarray") else part
        if X.shape != part.shape or not np.allclose(X, part, rtol=1e-10, atol=1e-12):
            where = "the design matrix differs"
    if where is not None:
        raise DataError(f"`data` does not match the data the model was fitted on: {where} "
                        f"({what} needs the data the model was fitted on).")
    return frame


def training_design(results, data, *, what: str = "resampling", reuse: bool = True):
    """(the checked training rows numbered 0..n-1, their design built once): the
    :class:`~fmstats.formula.DesignMatrix` that also served the check of ``data``.

    Parameters
    ----------
    results : FitRows
        The fitted results.
    data : pandas.DataFrame or None
        The data the model was fitted on (None: the data the results keep).
    what : str, default "resampling"
        The caller's name, for the messages.
    reuse : bool, default True
        Whether the design's row subsets reuse it (``DesignMatrix(reuse=)``).

    Returns
    -------
    tuple
        (the training rows as a DataFrame numbered 0..n-1, their
        :class:`~fmstats.formula.DesignMatrix`).
    """
    from ..formula import DesignMatrix

    built = []

    def design_of(frame):
        built.append(DesignMatrix(rows_of(results).formula, frame,
                                  engine=model_engine(results), reuse=reuse))
        return built[-1]

    frame = training_frame(results, data, what=what, design=design_of)
    if built and built[0].data is frame:
        return frame, built[0]
    frame = frame.reset_index(drop=True)
    return frame, design_of(frame)


def training_weights(results) -> np.ndarray | None:
    """The model's prior weights, one per training row (in the fit's order), or None.

    Parameters
    ----------
    results : FitRows
        The fitted results.

    Returns
    -------
    numpy.ndarray or None
        The prior weights as floats, or None when the fit has none.
    """
    w = rows_of(results).prior_weights
    return None if w is None else np.asarray(w, dtype=float)


def _recorded_weights(results):
    s = getattr(results, "settings", None)
    return s.get("weights") if isinstance(s, Mapping) else None


def array_weights(results) -> np.ndarray | None:
    """The prior weights when they were given as an array (a refit needs them again,
    for the rows it is given); None for weights from a column or no weights.

    Parameters
    ----------
    results : FitRows
        The fitted results.

    Returns
    -------
    numpy.ndarray or None
        The prior weights given as an array, or None.
    """
    rec = _recorded_weights(results)
    if isinstance(rec, str) and rec == ARRAY_WEIGHTS:
        return training_weights(results)
    return None


def keeps_training_rows(results) -> bool:
    """Whether ``results`` refits on the rows it kept (:class:`~fmstats.formula.KeptRows`):
    maxent-family fits in memory with their design (``keep_data=True``), and the SVMs.

    Parameters
    ----------
    results : FitRows
        The fitted results.

    Returns
    -------
    bool
        True when a refit without ``data=`` can take the kept rows.
    """
    rows = rows_of(results)
    return bool(rows.refits_kept_rows) and rows.X is not None


def kept_rows(results, what: str) -> KeptRows:
    """All the rows ``results`` kept, for ``what`` called without ``data=`` (the rule of
    every function that refits: docs/user_guide.rst, "Refits without data="); an
    :class:`InvalidArgumentError` asking for ``data=`` when it keeps none.

    Parameters
    ----------
    results : FitRows
        The fitted results.
    what : str
        The caller's name, for the message.

    Returns
    -------
    KeptRows
        Every row the fit kept, in its order.
    """
    if keeps_training_rows(results):
        return KeptRows(results, np.arange(np.asarray(results.y).shape[0]))
    why = ("keeps no design (keep_data=False, or fitted out of core)"
           if rows_of(results).refits_kept_rows else "does not keep its rows")
    raise InvalidArgumentError(
        f"{what} refits the model on its training rows; without `data=` it takes the rows "
        f"the fit kept, but this {type(results).__name__} {why}: pass `data=`, the DataFrame "
        "the model was fitted on.")
