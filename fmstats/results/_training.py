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

import inspect
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._utils.call import ARRAY_WEIGHTS, RowArgument, RowSelection
from .._utils.validation import describe
from ..exceptions import DataError, InvalidArgumentError
from ..formula import KeptDesign, KeptRows, fold_response, take_rows

__all__ = ["FitRows", "rows_of", "training_frame", "training_design", "training_weights",
           "array_weights", "keeps_training_rows", "kept_rows", "kept_design_frame",
           "CHECK_ROWS", "TrainingRows", "training_rows", "require_protocol"]


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
    #: The offset of those rows, when the call gave it as an array (a refit on some of them
    #: takes their part).
    training_offset = None
    #: The recorded call (:class:`fmstats.results.ModelCall`) that made these results.
    call = None
    #: Whether ``refit(rows=...)`` refits on rows of the training data
    #: (:meth:`TrainingRows.refit`); results without it are refitted on the rows' data.
    refits_rows = False

    # What tuning and resampling read of the fit itself (asked, never probed):
    #: The fit's settings (:class:`fmstats.results.Settings`).
    settings = None
    #: The model these results were built on (a tuned threshold's, a calibration's, a
    #: decision's); None for a model.
    base = None
    #: Whether the fit converged (fits without iterations: True).
    converged = True
    #: Whether the classes are separated in the training rows (no finite MLE).
    separated = False
    #: Whether the fit is penalised (a ridge); None: its settings' ``penalty`` says.
    penalised = None
    #: The weight of each training row in confusion counts (None: ones).
    count_weights = None
    #: The covariance the fit's standard errors use, as a bootstrap summary labels them.
    cov_type = "model-based"
    #: The name of the response, in messages.
    response_name = "the response"
    #: The fit's F-measure (:class:`fmstats.measures.FMeasure`; None: F1).
    fmeasure = None
    #: The probability at or above which the fit predicts class 1 (None: no such rule).
    threshold = None

    @property
    def fitted_model(self):
        """The fitted model these results stand on: themselves for a model; the base model
        of a tuned threshold, a calibration or a decision; the refitted best model of
        ``cv_tune``."""
        return self

    def coefficients(self):
        """The coefficient estimates by term, as a bootstrap resamples them.

        Returns
        -------
        pandas.Series or None
            ``params`` for results built on a base model (its coefficients and the numbers
            of their own rule: a tuned threshold, a decision's shifts); None for results
            without coefficients (the default: ``cv_tune``'s).
        """
        return None if self.base is None else self.params

    def coefficient_table(self, level: float = 0.95):
        """The fitted model's coefficient table (``tidy(level=...)``), beside a bootstrap's.

        Parameters
        ----------
        level : float, default 0.95
            The level of its intervals.

        Returns
        -------
        pandas.DataFrame or None
            The base model's table for results built on one; None for results without one
            (the default).
        """
        return None if self.base is None else rows_of(self.base).coefficient_table(level)

    def information_se(self):
        """Standard errors from the fit's information matrix, by non-aliased term: the
        yardstick of resampling's screen for replicates without a finite MLE.

        Returns
        -------
        pandas.Series or None
            The standard errors; None for fits without an information matrix (the default).
        """
        return None


_DECLARED = tuple(n for n, v in vars(FitRows).items()
                  if not n.startswith("_") and not isinstance(v, property) and not callable(v))


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

    # the methods of FitRows, answered from what the object has
    def coefficients(self):
        return getattr(self._results, "params", None)

    def coefficient_table(self, level: float = 0.95):
        src = getattr(self._results, "base", None) or self._results
        tidy = getattr(src, "tidy", None)
        if tidy is None or "level" not in inspect.signature(tidy).parameters:
            return None
        return tidy(level=level)

    def information_se(self):
        own = getattr(self._results, "information_se", None)
        return own() if callable(own) else None


def require_protocol(results, *methods: str, name: str = "results") -> None:
    """Refuse an object without the protocol methods a function needs (a user's own class;
    the fmstats results classes declare them): an :class:`InvalidArgumentError` naming the
    argument and the missing methods, never an AttributeError from deep inside.

    Parameters
    ----------
    results : object
        The object given.
    *methods : str
        The methods needed (``"refit"``, ``"predict"``, ...).
    name : str, default "results"
        The argument's name, in the message.
    """
    missing = [m for m in methods if not callable(getattr(results, m, None))]
    if missing:
        raise InvalidArgumentError(
            f"`{name}` must be a fitted fmstats model with {', '.join(methods)}() methods; "
            f"{describe(results)} has no {', '.join(missing)}().")


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
    s = rows_of(results).settings
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


def formula_offsets(results) -> list:
    """The ``offset()`` terms of a fit's formula, as its design specification holds them
    (without an ``offset=`` column, which the call keeps).

    Parameters
    ----------
    results : FitRows
        The fitted results (their ``spec`` and ``settings``).

    Returns
    -------
    list of str
        The terms (empty without any).
    """
    column = (results.settings or {}).get("offset")
    return [o for o in getattr(results.spec, "offsets", ())
            if not (isinstance(column, str) and o == f"`{column}`")]


def array_offset(results, data: pd.DataFrame):
    """The part of a fit's training offset that its call gave as an array (``offset=``), on
    the training rows ``data`` (in the fit's order): the training offset less the formula's
    ``offset()`` terms, which a refit on those rows evaluates again.

    Parameters
    ----------
    results : FitRows
        The fitted results (their ``training_offset`` and ``spec``).
    data : pandas.DataFrame
        The training rows, in the fit's order.

    Returns
    -------
    numpy.ndarray or None
        The array part of the offset, or None when the fit has no offset.
    """
    import dataclasses

    total = results.training_offset
    terms = tuple(formula_offsets(results))
    if total is None or not terms:
        return total
    part = dataclasses.replace(results.spec, offset_array=False,
                               offsets=terms).offset_values(data)
    return np.asarray(total, dtype=float) - (0.0 if part is None else part)


class TrainingRows:
    """The rows a fit used, located once, for refits on some of them: the one path of every
    refit on training rows (tuning's folds, resampling's replicates, calibration's folds).

    ``take(positions)`` gives a :class:`~fmstats.results.RowSelection` for
    ``results.refit(rows=...)`` (the recorded call again, ``ModelCall.refit(rows=...)``):
    the data argument of those rows and, for them, the arguments the call recorded per row
    (array prior weights; an offset array; a subset, already applied, set to None).
    :meth:`refit` does both.

    Parameters
    ----------
    results : FitRows
        The fitted model.
    source : DataFrame, DesignMatrix, KeptDesign or KeptRows
        Its training rows in the fit's order: the checked training frame (numbered
        0..n-1), the design built once on it, or the rows the fit kept.
    """

    def __init__(self, results, source):
        require_protocol(results, "refit")
        self.results, self.source = results, source
        rows = rows_of(results)
        self.kept = isinstance(source, (KeptDesign, KeptRows))
        self.n = (len(source) if isinstance(source, (pd.DataFrame, KeptRows)) else
                  int(np.asarray(rows_of(source.results).y).shape[0])
                  if isinstance(source, KeptDesign) else
                  len(source.data))                 # a DesignMatrix of the training frame
        # the per-row arguments are the fitted model's: a result built on a base model (a
        # tuned threshold, a calibration) refits it on the rows' data with them
        model = results if rows.refits_rows else rows.fitted_model
        self.function = None if rows.call is None else rows.call.function
        rows = rows_of(model)
        aw = array_weights(model)
        if aw is not None and len(aw) != self.n:
            raise DataError(
                f"the fit's prior weights were given as an array of {len(aw)} values, one per "
                f"training row, but the rows given hold {self.n}: pass the data the model was "
                "fitted on.")
        self.weights = aw
        args = {} if rows.call is None else rows.call.arguments
        self.cleared = tuple(a for a in ("subset", "offset")
                             if isinstance(args.get(a), RowArgument)
                             or (a == "subset" and isinstance(args.get(a), str)))
        self.offset = None
        if "offset" in self.cleared and not self.kept:    # kept rows carry their offset
            self.offset = array_offset(rows, source if isinstance(source, pd.DataFrame)
                                       else source.data)

    def take(self, positions=None, *, weights=None, y=None, frame=None,
             reset_index: bool = False) -> RowSelection:
        """The rows at ``positions`` (0-based, repeats allowed; default all), as a refit
        takes them.

        Parameters
        ----------
        positions : array-like of int, optional
            Positions among the training rows (default: every row, in order).
        weights : ndarray, optional
            Prior weights of those rows (a reweighting; default the fit's array weights of
            those rows, if it was given weights as an array).
        y : ndarray, optional
            A response for those rows (rows the fit kept only).
        frame : DataFrame, optional
            Those rows as a DataFrame (with another response) to pair with the design.
        reset_index : bool, default False
            Number the rows of a DataFrame 0..k-1.

        Returns
        -------
        RowSelection
            The data argument and the per-row arguments of a refit on those rows.
        """
        pos = np.arange(self.n) if positions is None else np.asarray(positions, np.int64)
        src = self.source
        if isinstance(src, KeptDesign) or (isinstance(src, KeptRows) and y is not None):
            data = KeptRows(src.results, pos if isinstance(src, KeptDesign)
                            else src.positions[pos], y=y)
        elif isinstance(src, (pd.DataFrame, KeptRows)):
            data = take_rows(src if frame is None else frame, pos, reset_index=reset_index)
        else:
            data = src.subset(pos, reset_index=reset_index, frame=frame)
        values = {a: None for a in self.cleared}
        if weights is not None:
            values["weights"] = weights
        elif self.weights is not None:
            values["weights"] = self.weights[pos]
        if self.offset is not None:
            values["offset"] = self.offset[pos]
        return RowSelection(data=data, values=values, function=self.function)

    def refit(self, positions=None, **kwargs):
        """The model refitted on the rows at ``positions``: ``results.refit(rows=...)``.

        Parameters
        ----------
        positions : array-like of int, optional
            Positions among the training rows (default: every row).
        **kwargs
            ``weights``, ``y``, ``frame`` and ``reset_index`` as :meth:`take` takes them.

        Returns
        -------
        object
            The refitted results.  Results that do not refit on rows
            (``refits_rows=False``: a user's own class speaking the protocol) are refitted
            on the rows' data, with the per-row arguments.
        """
        rows = self.take(positions, **kwargs)
        r = self.results
        if rows_of(r).refits_rows:
            return r.refit(rows=rows)
        return r.refit(rows.data, **{k: v for k, v in rows.values.items() if v is not None})


def training_rows(results, data=None, *, what: str = "resampling",
                  reuse: bool = True) -> TrainingRows:
    """The training rows of ``results`` for refits: without ``data``, the rows the fit kept
    (:func:`kept_rows`' rule); with ``data``, its rows the fit used, checked
    (:func:`training_design`), with their design built once.

    Parameters
    ----------
    results : FitRows
        The fitted model.
    data : DataFrame, optional
        The data the model was fitted on.
    what : str, default "resampling"
        The caller, named in the messages.
    reuse : bool, default True
        Build the design once and refit on its rows (False: rebuild it per refit).

    Returns
    -------
    TrainingRows
        The rows, numbered 0..n-1 in the fit's order.
    """
    if data is None:
        kept_rows(results, what)                   # raises when the fit keeps none
        return TrainingRows(results, KeptDesign(results))
    return TrainingRows(results, training_design(results, data, what=what, reuse=reuse)[1])
