"""A design built once per tuning call: refits and predictions on subsets of its rows.

Used by ``fmstats/model_selection/_cv_tune.py`` (``cv_tune``),
``fmstats/model_selection/_threshold.py`` (``tune_threshold``),
``fmstats/resampling/_replicates.py`` (the refit path of ``bootstrap`` and ``validate``) and
``fmstats/svm/_tuning.py`` (``tune_wsvm``'s batched folds).

The protocol
------------
:class:`DesignMatrix` builds the response and design of a formula on all rows of the data
once.  A refit or a prediction on a subset of those rows goes through the model's own code
(``model_fn(formula, sub)``, ``results.refit(sub)``, ``fit.predict(sub)``,
``fit.confusion(sub)``) on a frame handed out by :meth:`DesignMatrix.subset`: a
``DesignRows``, a DataFrame that carries the design and its rows'
positions, so :func:`fmstats.formula.model_frame` and :meth:`fmstats.formula.DesignSpec.build`
take the rows of the design built once instead of calling the formula engine again.  The
design travels with the data argument; nothing is registered or looked up.  Everything
else (the response, missing values and their warnings, weights, aliased columns, the
fit) runs as on any frame, so no model family needs a hook of its own: every model built
on ``model_frame`` (maxent, umaxent, fmaxent, wsvm, fsvm) is covered.  :func:`predict_rows`
predicts rows of a design in one line; refits on its rows go through
``fmstats.results.TrainingRows`` (``results.refit(rows=...)``).

When the rows of the design equal a rebuild
-------------------------------------------
The engine's design of a subset equals those rows of the design of all rows when the
formula has no stateful transform (``center``, ``scale``, ``standardize``, ``poly``,
splines: their means, norms and knots are learnt from the rows they see) and the subset
holds every level of every factor (a level missing from a training fold drops its
column).  So the design is used only when

* the formula has no stateful transform and every categorical term is a data column
  (:meth:`fmstats.formula.DesignSpec.data_dependent`);
* the subset's rows hold every level of every factor column, use the same right-hand
  side, engine and response levels, and have no missing value in the design's columns.

Otherwise the model frame is rebuilt from the subset, as R's ``update()`` on a fold would:
with a stateful transform every fold (and every prediction) gets its own design, and the
tuned results say so (``design_note``).  The rows taken are bit-for-bit the rows the
engine gives, so results are identical to the per-fold rebuild (tests/test_design_cache.py
checks maxent, fmaxent and wsvm to 1e-12).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..exceptions import FmstatsError
from ._frame import DEFAULT_ENGINE, split_formula, stateful_transform
from ._modelframe import model_frame
from ._subset import DesignRows, stamp
from .._utils.boundary import public

__all__ = ["DesignMatrix", "predict_rows", "REUSED", "REBUILT"]

REUSED = "built once; fold fits and predictions take its rows"
REBUILT = "rebuilt for every fold"


class DesignMatrix:
    """The response and design of ``formula`` on all rows of ``data``, built once.

    ``note`` says whether fold fits take its rows or rebuild their design (and why);
    ``usable`` is False in the second case, and :meth:`subset` then hands out plain subsets.
    ``reuse=False`` asks for the second case (every fold rebuilds its design from the
    formula, as R's ``update()`` on a fold would): the tuners' ``reuse_design`` argument.
    Built by the tuners and resampling functions of fmstats rather than by users.

    Parameters
    ----------
    formula : str
        The model's formula.
    data : pandas.DataFrame
        All rows of the data.
    engine : {"formulaic", "patsy"}, optional
        The formula engine (default ``"formulaic"``).
    reuse : bool, default True
        Whether fold fits may take the rows of this design; False rebuilds every fold's.
    """

    #: Subsets whose memo is kept: what was built on a fold's training and held-out frames
    #: serves every grid point of that fold (cv_tune runs fold by fold).
    MEMO_FRAMES = 4

    def __init__(self, formula, data: pd.DataFrame, *, engine: str | None = None,
                 reuse: bool = True):
        self.data = data
        self._frames: dict = {}
        self.formula = formula
        self.engine = DEFAULT_ENGINE if engine is None else engine
        self.usable = False
        self.X = self.spec = self.design_row = self.stamp = None
        self.codes: dict = {}
        reason = self._build(formula, data) if reuse else "rebuilding was asked for"
        self.note = REUSED if reason is None else f"{REBUILT}: {reason}"

    def _build(self, formula, data) -> str | None:
        if not isinstance(formula, str) or not isinstance(data, pd.DataFrame):
            return "no formula and DataFrame"
        try:
            transform = stateful_transform(split_formula(formula)[1])
            if transform is not None:
                return f"the formula uses the stateful transform {transform}()"
            with warnings.catch_warnings():   # the fits report their own warnings
                warnings.simplefilter("ignore")
                mf = model_frame(formula, data, missing="drop", engine=self.engine)
        except FmstatsError as exc:
            return f"the design of all rows cannot be built ({type(exc).__name__})"
        reason = mf.spec.data_dependent()
        if reason is not None:
            return reason
        codes = {}
        for var, levels in mf.spec.levels.items():
            c = pd.Categorical(data[var].to_numpy()[mf.rows], categories=list(levels)).codes
            if (c < 0).any():
                return f"the levels of column {var!r} cannot be matched to its values"
            codes[var] = (c.astype(np.int64), len(levels))
        row = np.full(len(data), -1, dtype=np.int64)
        row[mf.rows] = np.arange(len(mf.rows))
        self.stamp = stamp(data, mf.spec.variables)    # the values it is built from
        if self.stamp is None:
            return "the design's columns cannot be hashed"
        self.X, self.spec, self.design_row, self.codes = mf.X, mf.spec, row, codes
        self.usable = True
        return None

    # ------------------------------------------------------------------ subsets
    @public
    def subset(self, positions, *, reset_index: bool = False,
               frame: pd.DataFrame | None = None) -> pd.DataFrame:
        """The rows ``positions`` of the data, as a frame that carries this design.

        Pass it as the ``data``/``newdata`` of a model function or a results method: it is a
        ``DesignRows`` (a DataFrame) when the design is usable,
        else a plain DataFrame.  ``reset_index`` numbers the rows 0..k-1 (as the tuners'
        held-out frames); ``frame`` hands out a modified copy of those rows instead (the
        bootstrap's labels drawn from q: the response columns differ; if the design's
        columns differ too, the design is not used).  Every call hands out a new frame; the
        frames of the same positions (while they are among the last :attr:`MEMO_FRAMES`)
        share what was built from them (their model frame), which is used again only while
        the columns it was built from hold the same values.  The design itself is used only
        while the frame's design columns hold the values it was built from
        (:meth:`holds`): a frame changed in place, or rows of data changed since the design
        was built, get a design rebuilt from their values.

        Parameters
        ----------
        positions : array-like of int
            The positions (0-based) of the rows in the data.
        reset_index : bool, default False
            Whether to number the rows 0..k-1.
        frame : pandas.DataFrame, optional
            A modified copy of those rows, handed out instead of the data's rows.

        Returns
        -------
        pandas.DataFrame
            The rows, carrying this design when it is usable.
        """
        positions = np.asarray(positions, dtype=np.int64)
        if not self.usable:
            if frame is not None:
                return frame
            frame = self.data.iloc[positions]
            return frame.reset_index(drop=True) if reset_index else frame
        if frame is not None:
            return DesignRows.of(frame, self, positions)
        key = (positions.size, hash(positions.tobytes()), reset_index)
        memo = self._frames.pop(key, None)
        memo = {} if memo is None else memo
        self._frames[key] = memo            # most recent last
        while len(self._frames) > self.MEMO_FRAMES:
            self._frames.pop(next(iter(self._frames)))
        sub = self.data.iloc[positions]
        return DesignRows.of(sub.reset_index(drop=True) if reset_index else sub, self,
                             positions, memo)

    def holds(self, frame: pd.DataFrame, positions) -> bool:
        """Whether the rows of ``frame`` (rows ``positions`` of the data) hold, in the
        design's columns, the values the design was built from (a :class:`Stamp` taken when
        it was built: a 64-bit hash of every row and the columns' dtypes).

        Parameters
        ----------
        frame : pandas.DataFrame
            The rows, with the design's columns.
        positions : ndarray of int
            The positions (0-based) of its rows in the data.

        Returns
        -------
        bool
        """
        own = self.stamp
        return (self.usable and own is not None and len(frame) == len(positions)
                and own.matches(stamp(frame, own.columns), positions))

    def __getstate__(self):
        # the memos of the subsets hold model frames: pickle the design, not them
        state = self.__dict__.copy()
        state["_frames"] = {}
        return state

    def design_rows(self, rhs, engine, variables, response_levels, positions):
        """(X, spec) of the rows ``positions`` for ``model_frame``; None if they may differ.

        Parameters
        ----------
        rhs : str
            The right-hand side of the formula of the new model frame.
        engine : str
            Its formula engine.
        variables : sequence of str
            The data columns it uses.
        response_levels : tuple or None
            The levels of its factor response.
        positions : ndarray of int
            The positions of its rows in the data.

        Returns
        -------
        tuple of (ndarray, DesignSpec) or None
            Those rows of the design and its spec, or None when a rebuild may differ.
        """
        s = self.spec
        if (rhs != s.rhs or engine != s.engine or tuple(variables) != s.variables
                or response_levels != s.response_levels):
            return None
        drows = self._design_rows(positions)
        if drows is None:
            return None
        for codes, k in self.codes.values():
            if np.count_nonzero(np.bincount(codes[drows], minlength=k)) < k:
                return None            # a level absent from the rows: its column would go
        return np.take(self.X, drows, axis=0), s

    def spec_rows(self, spec, positions):
        """The design of the rows ``positions`` encoded by ``spec`` (a fit's), or None.

        Parameters
        ----------
        spec : DesignSpec
            A fit's encoding.
        positions : ndarray of int
            The positions of the rows in the data.

        Returns
        -------
        ndarray or None
            Those rows of the design, or None when ``spec`` encodes differently (or a row
            is not in the design).
        """
        s = self.spec
        if spec is not s and not (spec.engine == s.engine and spec.rhs == s.rhs
                                  and spec.column_names == s.column_names
                                  and spec.levels == s.levels and spec.data_dependent() is None):
            return None
        drows = self._design_rows(positions)
        return None if drows is None else np.take(self.X, drows, axis=0)

    def _design_rows(self, positions):
        if len(positions) == 0:
            return None
        drows = self.design_row[positions]
        return None if (drows < 0).any() else drows


def predict_rows(design: DesignMatrix, results, positions, **kwargs) -> pd.Series:
    """``results.predict`` on the rows ``positions`` (numbered 0..k-1) of the design's data;
    rows the model cannot predict are left out (``na_action="omit"`` where the results class
    takes it: the callers count predictions against the rows' responses).

    Parameters
    ----------
    design : DesignMatrix
        The design of the data.
    results : ModelResults
        The fitted model.
    positions : array-like of int
        The rows' positions in the design's data.
    **kwargs
        Passed to ``results.predict``.

    Returns
    -------
    pandas.Series
        The predictions of the rows the model can predict.
    """
    if getattr(getattr(results, "predict", None), "__fmstats_newdata_rows__", False):
        kwargs.setdefault("na_action", "omit")
    return results.predict(design.subset(positions, reset_index=True), **kwargs)
