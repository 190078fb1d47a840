"""Out-of-core ``maxent``, ``umaxent`` and ``fmaxent``: a Dask DataFrame as a row source.

``prepare`` routes here when ``data`` is a ``dask.dataframe.DataFrame``.
The design is built partition by partition (:func:`fmstats.formula.dask_model_frame`), kept
in (worker) memory with ``persist``, checked with the rules of ``_prepare.py``, and
handed to the model cores as a :class:`fmstats.glm.DaskSource` row source; the
coefficients, standard errors, deviances and iteration counts equal the in-memory fit's (to
~1e-13).  The cores and the results classes are the in-memory ones: a fit returns a
:class:`~fmstats.MaxentResults` (or ``FMaxentResults``) holding, instead of X, the
:class:`TrainingStats` computed here.

Passes over the data of a ``maxent`` fit: one scan (row counts, missing values, factor
levels, response range), one to build and persist the design, one for the checks (X'WX for
aliasing, weights, classes), iterations + 1 for IRLS (+1 per step-halving), and one for the
training statistics (confusion counts, noisy-F counts, sandwich meats for HC0-HC3).

The results keep no row-level data: everything a summary needs is computed at fit time.
Fitted values, residuals, hat values and the training-data ``predict()`` raise
:class:`~fmstats.exceptions.DataError` (ask ``predict(ddf)`` for a lazy dask Series
instead), so pickling a result never pulls the data into memory.
"""
from __future__ import annotations

import warnings
import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit, gammaln

from .. import measures as _m
from .._utils.validation import check_choice, warn
from .._utils.call import ModelCall, Settings
from ._training import noninteger_count
from ._prepare import (check_response_kind, check_settings, check_threshold, columns_to_keep,
                       penalty_and_start, single_class_error)
from ..exceptions import (DataError, InvalidArgumentError, MissingDataWarning,
                          PartitionMemoryWarning, WeightsError)
from ..formula import DaskModelFrame, dask_model_frame
from ..formula import is_dask_frame
from ..glm import (block_sums, partition_memory_advice, persist_if_fits,
                   refuse_offset_columns, start_sums, start_sums_columns)
from ..glm import DaskSource
from ..glm import gram, logit_probs

__all__ = ["prepare_dask", "DaskPrepared", "TrainingStats"]


# ----------------------------------------------------------------------------- preparation

@dataclass(frozen=True)
class DaskPrepared:
    """The dask counterpart of ``Prepared`` (arrays persisted)."""

    settings: Settings
    call: ModelCall
    frame: DaskModelFrame
    X: object
    y: object
    cw: object
    aliased: np.ndarray
    penalty: np.ndarray
    start: np.ndarray | None
    checks: dict
    first_pass: np.ndarray | None = None
    column_sums: np.ndarray | None = None

    @property
    def response(self):
        return self.frame.response

    def source(self, threshold: float) -> DaskSource:
        """The row source of the cores (R's start and the column sums of the fit summed by
        the data checks' pass)."""
        return DaskSource(self.X, self.y, self.cw, threshold, self.checks["sum_q"],
                          first_pass=self.first_pass, column_sums=self.column_sums)

    def finish(self, results, rows: DaskSource):
        """The fit's covariance, computed now if it needs the rows (the results keep none):
        ``"reweighted"`` from sums over the row blocks (the same code as in memory,
        :mod:`fmstats.glm._stacked`; its passes are counted in the docstring of
        :func:`fmstats.fmaxent`), ``"bootstrap"`` by replicates run on the row blocks
        (``_oocrefits.py``).  Returns ``results``."""
        if results.separated and not results.penalised:
            return results            # no finite estimate: every covariance prints as NA
        if results.cov_type == "reweighted":
            try:
                kept = results.reweighted_covariance(sums=rows.sums)
            except np.linalg.LinAlgError:
                p = len(results.core_fit.coef)
                kept = (np.full((p, p), np.nan), None)
            results.training = dataclasses.replace(
                results.training, fit_time={**results.training.fit_time, "reweighted": kept})
        elif results.cov_type == "bootstrap":
            results.keep_bootstrap(rows)
        return results

    def training(self, fit, rows: DaskSource | None = None, fweights=None) -> "TrainingStats":
        """What the results keep of the training data: the sums of :class:`TrainingStats`
        (for fmaxent, ``rows`` and the F-weights of the fit: the sums use weights cw * fw)."""
        if rows is None:
            return training_stats(self, fit)
        return training_stats(self, fit, rows.weights(fweights),
                              (1.0, 1.0) if fweights is None else fweights.active_range)


def _check_block(X, y, trials, prior):
    """IRLS's first pass (R's start, :func:`fmstats.glm.start_sums`), sum cw and cw x,
    then X'WX, active rows, classes, sum w y, cbind log-coefficients, prior weight range."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    w = np.ones(len(y)) if prior is None else prior
    cw = w if trials is None else w * trials
    return np.concatenate([start_sums(X, y, cw), [np.sum(cw)], cw @ X,
                           _checks(X, y, trials, w, cw)])


def _checks(X, y, trials, w, cw):
    act = cw > 0
    lbc = 0.0
    if trials is not None:
        k = y * trials
        lbc = float(np.sum(w * (gammaln(trials + 1) - gammaln(k + 1) - gammaln(trials - k + 1))))
    return np.concatenate([gram(X, cw).ravel(), [
        np.count_nonzero(act), np.count_nonzero(act & (y != 0)), np.count_nonzero(act & (y != 1)),
        float(np.dot(cw, y)), lbc, noninteger_count(w, y, trials), float(np.sum(cw)),
        -np.min(w, initial=np.inf), np.max(w, initial=-np.inf)]])


def prepare_dask(model: str, call: ModelCall, data, weights, **fixed) -> DaskPrepared:
    """``prepare`` for a Dask DataFrame: validate, build,
    persist, check."""
    import dask

    settings = check_settings(model, call, **fixed)
    formula = settings["formula"]
    missing, collinear, engine = settings["missing"], settings["collinear"], settings["engine"]
    if weights is not None and not isinstance(weights, str):
        raise InvalidArgumentError(
            "`weights` must name a column of the Dask DataFrame (weights given as an array "
            f"cannot be matched to its partitions); got {type(weights).__name__}.")
    frame = dask_model_frame(formula, data, missing=missing, engine=engine, weights=weights)
    advice = partition_memory_advice(*frame.largest_partition, len(frame.column_names))
    if advice is not None:
        warn(advice, PartitionMemoryWarning)
    resp = frame.response
    check_response_kind(model, resp)
    X, y, trials, prior = persist_if_fits(frame.X, resp.y, resp.trials, frame.prior)
    p = X.shape[1]
    v = block_sums(_check_block, X, y, trials, prior, n_max=2)
    n_first = p * p + p + 1 + 6 + p          # see fmstats.glm.start_sums
    first, column_sums, v = v[:n_first], v[n_first:n_first + 1 + p], v[n_first + 1 + p:]
    n_ok, n_nonzero, n_nonone = (int(c) for c in v[p * p:p * p + 3])
    checks = {"n_ok": n_ok, "sum_q": float(v[p * p + 3]), "llf_const": float(v[p * p + 4]),
              "noninteger": int(v[p * p + 5]), "sum_c": float(v[p * p + 6]),
              "prior_range": (float(-v[-2]), float(v[-1]))}
    if n_ok == 0:
        raise WeightsError("every row has zero weight (prior weights times cbind trials).")
    if n_nonzero == 0 or n_nonone == 0:
        single_class_error(resp.name, 0 if n_nonzero == 0 else 1)
    refuse_offset_columns(X, frame.column_names)   # X'WX below would lose an offset column
    keep = columns_to_keep(v[:p * p].reshape(p, p), frame.column_names, collinear)
    if not keep.all():
        X = persist_if_fits(X[:, keep])[0]
    cw = prior if trials is None else (trials if prior is None else prior * trials)
    if cw is not None:
        cw = persist_if_fits(cw)[0]
    pen, start = penalty_and_start(frame.column_names, keep, settings["penalty"],
                                   settings.get("start"))
    return DaskPrepared(settings=settings, call=call, frame=frame, X=X, y=y, cw=cw,
                        aliased=~keep, penalty=pen, start=start, checks=checks,
                        first_pass=start_sums_columns(first, p, keep),
                        column_sums=np.r_[column_sums[0], column_sums[1:][keep]])


# ----------------------------------------------------------------------------- training stats

def _cells(y, p, pred, w) -> list[float]:
    """Confusion of the classes (fractional for probabilistic labels) and the correlated and
    independent noisy confusions of p, each as (tp, fp, fn, tn) sums."""
    return [float(np.dot(w, c)) for c in (
        y * pred, (1 - y) * pred, y * (1 - pred), (1 - y) * (1 - pred),
        np.minimum(y, p), np.maximum(0.0, p - y), np.maximum(0.0, y - p),
        np.minimum(1 - y, 1 - p), y * p, (1 - y) * p, y * (1 - p), (1 - y) * (1 - p))]


def _stats_block(X, y, cw, w, coef, threshold, V):
    """Training statistics at the solution on one block (see :class:`TrainingStats`)."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(len(y)) if cw is None else cw
    w = cw if w is None else w
    eta = X @ coef
    mu = logit_probs(eta)
    pred = (expit(eta) >= threshold).astype(float)
    llf_count = float(np.dot(cw, y * np.log(mu) + (1 - y) * np.log1p(-mu)))
    e2 = (w * (y - mu)) ** 2
    h = w * mu * (1 - mu) * np.einsum("ij,ij->i", X @ V, X)
    one_minus_h = np.where(1.0 - h > 0, 1.0 - h, np.inf)
    meats = [gram(X, e2), gram(X, e2 / one_minus_h), gram(X, e2 / one_minus_h ** 2)]
    return np.concatenate([_cells(y, expit(eta), pred, cw), [llf_count]]
                          + [m.ravel() for m in meats])


@dataclass(frozen=True)
class TrainingStats:
    """What an out-of-core fit keeps of its training data: sums computed in one pass.

    The out-of-core kind of the training-data interface of
    ``_training.py``: it answers from its sums what they can give and
    raises a :class:`~fmstats.exceptions.DataError` for row-level quantities.

    Parameters
    ----------
    counts : ndarray of shape (12,)
        Weighted counts: the confusion at the fit's threshold, then the correlated and the
        independent noisy confusion of the fitted probabilities.
    llf_count : float
        The log-likelihood with the count weights.
    meats : tuple of ndarray
        The sandwich middles X'diag(s^2)X for HC0/HC1, HC2 and HC3.
    checks : dict
        ``n_ok``, ``sum_q``, ``llf_const`` and ``prior_range`` of the data checks.
    shape : tuple of int
        (rows used, kept design columns).
    has_intercept : bool
        Whether the design has an intercept column.
    fweights_range_ : tuple of float or None
        The F-weights' range on the active rows (fmaxent), else None.
    """

    counts: np.ndarray
    llf_count: float
    meats: tuple
    checks: dict
    shape: tuple
    has_intercept: bool
    fweights_range_: tuple | None = None
    #: covariances computed at fit time, while the fit had its rows (``DaskPrepared.finish``):
    #: cov_type -> what its estimator keeps (``"reweighted"``: (covariance, fixed-point gap))
    fit_time: dict = field(default_factory=dict)

    in_memory = False
    X = y = trials = prior_weights = fweights = None

    def confusion(self, which: int) -> _m.Confusion:
        """Confusion ``which`` (0: classes, 1: correlated noisy, 2: independent noisy)."""
        return _m.Confusion(*(max(float(c), 0.0) for c in self.counts[4 * which:4 * which + 4]))

    @staticmethod
    def row_level(what: str, advice: str = ""):
        """Raise the DataError of a row-level quantity the results do not keep."""
        unavailable(what, advice)

    @property
    def count_weights(self):
        """Not kept out of core (a DataError)."""
        unavailable("count_weights")

    @property
    def weights(self):
        """Not kept out of core (a DataError)."""
        unavailable("weights")

    def n_ok(self, fit) -> int:
        """Rows with a positive weight."""
        return int(fit.n_active)

    def class_sizes(self) -> tuple[float, float]:
        """Weighted numbers of positives and negatives, sum c q and sum c (1 - q)."""
        sum_q, sum_c = self.checks["sum_q"], self.checks["sum_c"]
        return float(sum_q), float(sum_c - sum_q)

    def pearson_chi2(self, fit) -> float:
        """Pearson's chi-squared, summed by the out-of-core IRLS."""
        return fit.pearson_chi2

    def hat(self, fit):
        """Not kept out of core (a DataError)."""
        unavailable("hat", "HC2/HC3 covariances were computed at fit time")

    def llf(self, results) -> float:
        """The log-likelihood (fmaxent: with the count weights only)."""
        if self.fweights_range_ is not None:
            return self.llf_count
        return results.core_fit.loglik + self.checks["llf_const"]

    def cov(self, results, cov_type: str) -> np.ndarray:
        """The coefficients' covariance of type ``cov_type`` from the stored meats."""
        fit = results.core_fit
        if cov_type == "nonrobust":
            return results.dispersion * fit.xtwx_inv
        bread = fit.xtwx_inv
        meat = self.meats[{"HC0": 0, "HC1": 0, "HC2": 1, "HC3": 2}[cov_type]]
        cov = bread @ meat @ bread
        if cov_type == "HC1":
            cov *= results.nobs / (results.nobs - results.rank)
        return cov

    def noninteger_successes(self) -> int:
        """Rows whose successes are not a count (R's rule), from the data checks."""
        return int(self.checks.get("noninteger", 0))

    def prior_range(self) -> tuple[float, float]:
        """Smallest and largest prior weight, from the data checks."""
        lo, hi = self.checks["prior_range"]
        return float(lo), float(hi)

    def fweights_range(self) -> tuple[float, float]:
        """The F-weights' range on the active rows (fmaxent)."""
        return self.fweights_range_

    def design(self, results, newdata, missing: str = "drop"):
        """(X, index) of in-memory ``newdata``; the training rows are not kept."""
        if newdata is None:
            unavailable("the design of the training rows", "pass `newdata`")
        X, index = results.spec.build(newdata, missing=missing)
        return X[:, ~results.aliased], index

    offset = None          # out of core, offsets are refused at fit time

    def offset_of(self, results, newdata, index):
        """None: an out-of-core fit has no offset."""
        return None

    def truth_weights_eta(self, results, newdata):
        """Labels, weights and linear predictor of in-memory ``newdata``."""
        if newdata is None:
            unavailable("the training rows", "pass `newdata`")
        resp, X, _ = results.spec.build_with_response(newdata, missing="drop")
        w = resp.trials if resp.trials is not None else np.ones(len(resp.y))
        return resp.y, w, X[:, ~results.aliased] @ results.core_fit.coef

    def resid(self, fit, type: str):
        """Not kept out of core (a DataError)."""
        unavailable("resid()")

    def cells(self, results, newdata, threshold) -> np.ndarray | None:
        """Cells on the training data (fit's threshold only) or on Dask data; None otherwise."""
        if newdata is None:
            if threshold is not None and check_threshold(threshold) != results.threshold:
                unavailable(f"the training confusion at threshold {threshold:g}",
                            f"it was counted at {results.threshold:g}; pass the Dask "
                            "DataFrame as `newdata` to count again")
            return self.counts
        if is_dask_frame(newdata):
            return _newdata_cells(results, newdata, threshold)
        return None

    def lazy_predict(self, results, newdata, type, threshold, missing, se_fit, interval):
        """A lazy dask Series for Dask ``newdata``; ``None`` for in-memory ``newdata``."""
        if newdata is None:
            unavailable("predict() on the training rows", "pass the Dask DataFrame")
        if not is_dask_frame(newdata):
            return None
        if se_fit or interval is not None:
            raise InvalidArgumentError(
                "`se_fit`/`interval` on a Dask `newdata` are not supported: pass a pandas "
                "DataFrame (e.g. newdata.compute() or a sample of it).")
        check_choice("type", type, ("response", "link", "class"))
        check_choice("missing", missing, ("drop", "raise"))
        t = results.threshold if threshold is None else check_threshold(threshold)
        meta = pd.Series([], dtype=np.int64 if type == "class" else float, name=type)
        return newdata.map_partitions(_predict_partition, results.spec, ~results.aliased,
                                      results.core_fit.coef, type, t, missing, meta=meta)

    def row_refits(self, results, data):
        """The out-of-core refits engine (:class:`~fmstats.maxent_models._oocrefits.
        BlockRefits`) on ``data``: the Dask DataFrame the model was fitted on (its design
        rebuilt and checked against the fit), or the fit's own row source at fit time."""
        from ._oocrefits import BlockRefits

        if data is None:
            unavailable("resampling and tuning on the training rows",
                        "pass the Dask DataFrame the model was fitted on as `data`")
        rows = data if hasattr(data, "sums") else training_rows(results, data)
        return BlockRefits(results, rows)

    def check_resample(self, newdata) -> None:
        """Resampling labels needs in-memory rows."""
        if newdata is None or is_dask_frame(newdata):
            unavailable("resample_f() on the training or Dask data",
                        "pass an in-memory DataFrame")


def _sums_block(y, cw):
    cw = np.ones(len(y)) if cw is None else cw
    return np.array([float(np.dot(cw, y)), float(np.sum(cw)), float(len(y))])


def training_rows(results, data) -> DaskSource:
    """The row source of the Dask DataFrame ``data`` on which ``results`` were fitted: its
    design rebuilt with the fit's formula and settings (one scan, one build), persisted when
    it fits the workers' memory, and checked against the fit (columns, rows, sums of the
    response and weights; a :class:`DataError` when they differ)."""
    if not is_dask_frame(data):
        raise InvalidArgumentError(
            "`data` must be the Dask DataFrame the model was fitted on (an out-of-core fit "
            f"keeps no rows); got {type(data).__name__}.")
    s = results.settings
    weights = results.call.get("weights")
    frame = dask_model_frame(s["formula"], data, missing=s["missing"], engine=s["engine"],
                             weights=weights if isinstance(weights, str) else None)
    resp = frame.response
    if list(frame.column_names) != list(results.term_names):
        raise DataError(f"`data` gives the design columns {list(frame.column_names)}, the fit "
                        f"has {list(results.term_names)}: pass the Dask DataFrame the model "
                        "was fitted on.")
    X = frame.X if not results.aliased.any() else frame.X[:, ~results.aliased]
    cw = frame.prior if resp.trials is None else (
        resp.trials if frame.prior is None else frame.prior * resp.trials)
    X, y, cw = persist_if_fits(X, resp.y, cw)
    stats = results.training.checks
    got = block_sums(_sums_block, y, cw)
    want = (stats["sum_q"], stats["sum_c"], results.training.shape[0])
    if got[2] != want[2] or not np.allclose(got[:2], want[:2], rtol=1e-9, atol=0):
        raise DataError(
            f"`data` is not the data the model was fitted on: {int(got[2])} rows with response "
            f"sum {got[0]:.10g} and weight sum {got[1]:.10g}, the fit had {int(want[2])}, "
            f"{want[0]:.10g} and {want[1]:.10g}.")
    return DaskSource(X, y, cw, results.threshold, float(got[0]))


def training_stats(prep: DaskPrepared, fit, w=None, fweights_range=None) -> TrainingStats:
    p = len(fit.coef)
    v = block_sums(_stats_block, prep.X, prep.y, prep.cw, w, coef=fit.coef,
                   threshold=prep.settings["threshold"], V=fit.xtwx_inv)
    meats = tuple(v[13 + k * p * p:13 + (k + 1) * p * p].reshape(p, p) for k in range(3))
    return TrainingStats(counts=v[:12], llf_count=float(v[12]), meats=meats, checks=prep.checks,
                         shape=(int(fit.nobs), p), has_intercept=bool(fit.has_intercept),
                         fweights_range_=fweights_range)


# ----------------------------------------------------------------------------- new data

def _newdata_block(part, spec, keep, coef, threshold):
    """Cells of predictions against the response on one partition of new data, and the
    number of rows dropped for missing values."""
    if len(part) == 0:
        return np.zeros(13)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)  # counted and reported once
        resp, X, _ = spec.build_with_response(part, missing="drop")
    X = X[:, keep]
    w = resp.trials if resp.trials is not None else np.ones(len(resp.y))
    p = expit(X @ coef)
    return np.array(_cells(resp.y, p, (p >= threshold).astype(float), w)
                    + [len(part) - len(resp.y)])


def _predict_partition(part, spec, keep, coef, type, threshold, missing):
    name = {"link": "link", "response": "response", "class": "class"}[type]
    if len(part) == 0:
        return pd.Series([], dtype=np.int64 if type == "class" else float, name=name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingDataWarning)  # documented: rows are dropped
        X, index = spec.build(part, missing=missing)
    eta = X[:, keep] @ coef
    if type == "link":
        return pd.Series(eta, index=index, name=name)
    if type == "response":
        return pd.Series(expit(eta), index=index, name=name)
    return pd.Series((expit(eta) >= threshold).astype(np.int64), index=index, name=name)


# ----------------------------------------------------------------------------- results

def unavailable(what: str, advice: str = ""):
    raise DataError(
        f"{what} is not available for a model fitted out of core on a Dask DataFrame: the "
        f"results keep no row-level data{'; ' + advice if advice else ''}.")


def _newdata_cells(results, newdata, threshold) -> np.ndarray:
    """One pass over a Dask DataFrame: the 12 cells of :func:`_cells`."""
    import dask
    from dask import delayed

    t = results.threshold if threshold is None else check_threshold(threshold)
    task = delayed(_newdata_block, pure=False)
    parts = [task(part, results.spec, ~results.aliased, results.core_fit.coef, t)
             for part in newdata.to_delayed()]
    v = np.sum(dask.compute(*parts), axis=0)
    if v[12]:
        from .._utils.validation import warn

        warn(f"dropped {int(v[12])} row(s) of `newdata` with missing or non-finite values.",
             MissingDataWarning)
    return v[:12]
