"""Out-of-core ``maxent``, ``umaxent`` and ``fmaxent`` on Dask DataFrames.

``maxent(formula, ddf)`` (and the others) route here when ``data`` is a
``dask.dataframe.DataFrame``.  The design is built partition by partition
(:func:`fmstats.formula.dask_model_frame`), kept in (worker) memory with ``persist``, and
fitted by the chunked IRLS of :mod:`fmstats.glm.dask`; the coefficients, standard errors,
deviances and iteration counts equal the in-memory fit's (to ~1e-13).

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
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, gammaln

from . import measures as _m
from ._validation import check_choice
from .exceptions import DataError, InvalidArgumentError, MissingDataWarning, WeightsError
from .fmaxent import FMaxentResults
from .glm.fweights import (TINY as _TINY, Iterate as _Iterate, expected_f_weights,
                           metric_sums as _metric_sums, metrics_from_sums as _metrics_from_sums,
                           noisy_f_weights, smoothed_from_sums as _smoothed_from_sums,
                           smoothed_sums as _smoothed_sums)
from .formula import DaskModelFrame, dask_model_frame, is_dask_frame
from .glm.dask import (block_sums, irls_evaluate_dask, irls_logit_dask, map_rows,
                       refuse_offset_columns)
from .glm.irls import _probs, gram
from .maxent import (MaxentResults, _Settings, _call, _check_response_kind, _check_settings,
                     _check_threshold, _columns_to_keep, _penalty_and_start, _single_class_error)

__all__ = ["fit_dask", "prepare_dask", "DaskMaxentResults", "DaskFMaxentResults", "DaskRows",
           "TrainingStats"]


# ----------------------------------------------------------------------------- preparation

@dataclass(frozen=True)
class _DaskPrepared:
    """The dask counterpart of :class:`fmstats.maxent._Prepared` (arrays persisted)."""

    settings: _Settings
    call: str
    frame: DaskModelFrame
    X: object
    y: object
    cw: object
    aliased: np.ndarray
    penalty: np.ndarray
    start: np.ndarray | None
    checks: dict


def _check_block(X, y, trials, prior):
    """X'WX, active rows, classes, sum w y, cbind log-coefficients, prior weight range."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    w = np.ones(len(y)) if prior is None else prior
    cw = w if trials is None else w * trials
    act = cw > 0
    lbc = 0.0
    if trials is not None:
        k = y * trials
        lbc = float(np.sum(w * (gammaln(trials + 1) - gammaln(k + 1) - gammaln(trials - k + 1))))
    return np.concatenate([gram(X, cw).ravel(), [
        np.count_nonzero(act), np.count_nonzero(act & (y != 0)), np.count_nonzero(act & (y != 1)),
        float(np.dot(cw, y)), lbc, -np.min(w, initial=np.inf), np.max(w, initial=-np.inf)]])


def prepare_dask(model: str, formula, data, weights, *, missing, collinear, engine, start,
                 call_extra, penalty, **kwargs) -> _DaskPrepared:
    """:func:`fmstats.maxent._prepare` for a Dask DataFrame: validate, build, persist, check."""
    import dask

    settings = _check_settings(model, formula, weights, missing=missing, collinear=collinear,
                               engine=engine, penalty=penalty, **kwargs)
    if weights is not None and not isinstance(weights, str):
        raise InvalidArgumentError(
            "`weights` must name a column of the Dask DataFrame (weights given as an array "
            f"cannot be matched to its partitions); got {type(weights).__name__}.")
    frame = dask_model_frame(formula, data, missing=missing, engine=engine, weights=weights)
    resp = frame.response
    _check_response_kind(model, resp)
    X, y, trials, prior = dask.persist(frame.X, resp.y, resp.trials, frame.prior)
    p = X.shape[1]
    v = block_sums(_check_block, X, y, trials, prior, n_max=2)
    n_ok, n_nonzero, n_nonone = (int(c) for c in v[p * p:p * p + 3])
    checks = {"n_ok": n_ok, "sum_q": float(v[p * p + 3]), "llf_const": float(v[p * p + 4]),
              "prior_range": (float(-v[-2]), float(v[-1]))}
    if n_ok == 0:
        raise WeightsError("every row has zero weight (prior weights times cbind trials).")
    if n_nonzero == 0 or n_nonone == 0:
        _single_class_error(resp.name, 0 if n_nonzero == 0 else 1)
    refuse_offset_columns(X, frame.column_names)   # X'WX below would lose an offset column
    keep = _columns_to_keep(v[:p * p].reshape(p, p), frame.column_names, collinear)
    if not keep.all():
        X = X[:, keep].persist()
    cw = prior if trials is None else (trials if prior is None else prior * trials)
    if cw is not None:
        cw = cw.persist()
    pen, start = _penalty_and_start(frame.column_names, keep, penalty, start)
    return _DaskPrepared(settings=settings, call=_call(model, formula, data, weights, call_extra),
                         frame=frame, X=X, y=y, cw=cw, aliased=~keep, penalty=pen, start=start,
                         checks=checks)


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
    mu = _probs(eta)
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

    ``cells``: 12 weighted counts (confusion at the fit's threshold, then the correlated
    and the independent noisy confusion of the fitted probabilities); ``llf_count``: the
    log-likelihood with the count weights; ``meats``: the sandwich middles X'diag(s^2)X for
    HC0/HC1, HC2 and HC3; ``checks``: n_ok, sum_q, llf_const, prior_range;
    ``fweights_range``: the F-weights' range on active rows (fmaxent).
    """

    cells: np.ndarray
    llf_count: float
    meats: tuple
    checks: dict
    fweights_range: tuple | None = None

    def confusion(self, which: int) -> _m.Confusion:
        return _m.Confusion(*(max(float(c), 0.0) for c in self.cells[4 * which:4 * which + 4]))


def training_stats(prep: _DaskPrepared, fit, w=None, fweights_range=None) -> TrainingStats:
    p = len(fit.coef)
    v = block_sums(_stats_block, prep.X, prep.y, prep.cw, w, coef=fit.coef,
                   threshold=prep.settings.threshold, V=fit.xtwx_inv)
    meats = tuple(v[13 + k * p * p:13 + (k + 1) * p * p].reshape(p, p) for k in range(3))
    return TrainingStats(cells=v[:12], llf_count=float(v[12]), meats=meats, checks=prep.checks,
                         fweights_range=fweights_range)


def fit_dask(model: str, formula, data, weights, **kwargs) -> "DaskMaxentResults":
    """``maxent``/``umaxent`` on a Dask DataFrame (called by :func:`fmstats.maxent._fit`)."""
    prep = prepare_dask(model, formula, data, weights, **kwargs)
    s = prep.settings
    fit = irls_logit_dask(prep.X, prep.y, prep.cw, start=prep.start, penalty=prep.penalty,
                          tol=s.tol, max_iter=s.max_iter, persist=False)
    return DaskMaxentResults.create(prep, s, fit)


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

class _OutOfCore:
    """Overrides of the maxent results for fits on a Dask DataFrame (no row-level data kept)."""

    def __init__(self, *, stats: TrainingStats, **kwargs):
        super().__init__(**kwargs)
        self.stats = stats
        self.X = self.y = self.trials = self.prior_weights = None  # never the dask arrays

    @classmethod
    def create(cls, prep: _DaskPrepared, settings, fit, w=None, fweights_range=None, **kwargs):
        stats = training_stats(prep, fit, w, fweights_range)
        return cls(settings=settings, call=prep.call, frame=prep.frame, X=None,
                   aliased=prep.aliased, prior_weights=None, fit=fit, stats=stats, **kwargs)

    def _unavailable(self, what: str, advice: str = ""):
        raise DataError(
            f"{what} is not available for a model fitted out of core on a Dask DataFrame: the "
            f"results keep no row-level data{'; ' + advice if advice else ''}.")

    @property
    def nobs(self) -> int:
        return self.fit_.nobs

    @property
    def n_ok(self) -> int:
        return self.fit_.n_active

    @property
    def rank(self) -> int:
        return len(self.fit_.coef)

    @property
    def df_null(self) -> int:
        return self.n_ok - int(self.fit_.has_intercept)

    @property
    def count_weights(self):
        self._unavailable("count_weights")

    @property
    def weights(self):
        self._unavailable("weights")

    @property
    def fitted_values(self):
        self._unavailable("fitted_values", "use predict(ddf) for a lazy dask Series")

    @property
    def linear_predictor(self):
        self._unavailable("linear_predictor", "use predict(ddf, type='link')")

    @property
    def hat(self):
        self._unavailable("hat", "HC2/HC3 covariances were computed at fit time")

    def resid(self, type: str = "deviance"):
        self._unavailable("resid()")

    def resample_f(self, newdata=None, **kwargs):
        if newdata is None or is_dask_frame(newdata):
            self._unavailable("resample_f() on the training or Dask data",
                              "pass an in-memory DataFrame")
        return super().resample_f(newdata, **kwargs)

    @property
    def pearson_chi2(self) -> float:
        return self.fit_.pearson_chi2

    @property
    def llf(self) -> float:
        return self.fit_.loglik + self.stats.checks["llf_const"]

    def _cov_array(self, cov_type: str) -> np.ndarray:
        if cov_type == "nonrobust":
            return self.dispersion * self.fit_.xtwx_inv
        bread = self.fit_.xtwx_inv
        meat = self.stats.meats[{"HC0": 0, "HC1": 0, "HC2": 1, "HC3": 2}[cov_type]]
        cov = bread @ meat @ bread
        if cov_type == "HC1":
            cov *= self.nobs / (self.nobs - self.rank)
        return cov

    def _prior_range(self) -> tuple[float, float]:
        lo, hi = self.stats.checks["prior_range"]
        return float(lo), float(hi)

    def predict(self, newdata=None, type: str = "response", threshold: float | None = None,
                missing: str = "drop", se_fit: bool = False, interval: str | None = None,
                level: float = 0.95):
        """As :meth:`MaxentResults.predict`; for a Dask DataFrame a lazy dask Series (rows with
        missing values are dropped, so their index is absent, or raise with
        ``missing="raise"`` when computed).  The training rows are not kept: pass them.
        ``se_fit``/``interval`` need an in-memory (pandas) ``newdata``."""
        if newdata is None:
            self._unavailable("predict() on the training rows", "pass the Dask DataFrame")
        if not is_dask_frame(newdata):
            return super().predict(newdata, type=type, threshold=threshold, missing=missing,
                                   se_fit=se_fit, interval=interval, level=level)
        if se_fit or interval is not None:
            raise InvalidArgumentError(
                "`se_fit`/`interval` on a Dask `newdata` are not supported: pass a pandas "
                "DataFrame (e.g. newdata.compute() or a sample of it).")
        check_choice("type", type, ("response", "link", "class"))
        check_choice("missing", missing, ("drop", "raise"))
        t = self.threshold if threshold is None else _check_threshold(threshold)
        meta = pd.Series([], dtype=np.int64 if type == "class" else float, name=type)
        return newdata.map_partitions(_predict_partition, self.spec, ~self.aliased,
                                      self.fit_.coef, type, t, missing, meta=meta)

    def _newdata_cells(self, newdata, threshold) -> np.ndarray:
        """One pass over a Dask DataFrame: the 12 cells of :func:`_cells`."""
        import dask
        from dask import delayed

        t = self.threshold if threshold is None else _check_threshold(threshold)
        task = delayed(_newdata_block, pure=False)
        parts = [task(part, self.spec, ~self.aliased, self.fit_.coef, t)
                 for part in newdata.to_delayed()]
        v = np.sum(dask.compute(*parts), axis=0)
        if v[12]:
            from ._validation import warn

            warn(f"dropped {int(v[12])} row(s) of `newdata` with missing or non-finite values.",
                 MissingDataWarning)
        return v[:12]

    def _cells_for(self, newdata, threshold) -> np.ndarray | None:
        """Cells on the training data (fit's threshold only) or on Dask data; None otherwise."""
        if newdata is None:
            if threshold is not None and _check_threshold(threshold) != self.threshold:
                self._unavailable(f"the training confusion at threshold {threshold:g}",
                                  f"it was counted at {self.threshold:g}; pass the Dask "
                                  "DataFrame as `newdata` to count again")
            return self.stats.cells
        if is_dask_frame(newdata):
            return self._newdata_cells(newdata, threshold)
        return None

    def confusion(self, newdata=None, threshold: float | None = None):
        cells = self._cells_for(newdata, threshold)
        if cells is None:
            return super().confusion(newdata, threshold)
        return _m.Confusion(*(max(float(c), 0.0) for c in cells[:4]))

    def noisy_f(self, newdata=None, measure=None, *, beta=None, alpha=None,
                dependence: str | None = None) -> float:
        cells = self._cells_for(newdata, None)
        if cells is None:
            return super().noisy_f(newdata, measure, beta=beta, alpha=alpha,
                                   dependence=dependence)
        fm = self.measure_ if (measure is None and beta is None and alpha is None) \
            else _m.as_fmeasure(measure, beta=beta, alpha=alpha)
        dep = self.settings.dependence if dependence is None else dependence
        check_choice("dependence", dep, ("correlated", "independent"))
        k = 4 if dep == "correlated" else 8
        return float(_m.Confusion(*(max(float(c), 0.0) for c in cells[k:k + 4])).f(fm))

    def __repr__(self) -> str:
        return super().__repr__().replace("Results ", "Results (out of core) ", 1)


class DaskMaxentResults(_OutOfCore, MaxentResults):
    """A ``maxent``/``umaxent`` fit on a Dask DataFrame (see :mod:`fmstats.outofcore`)."""


class DaskFMaxentResults(_OutOfCore, FMaxentResults):
    """An ``fmaxent`` fit on a Dask DataFrame (see :mod:`fmstats.outofcore`)."""

    @classmethod
    def create(cls, prep, settings, fit, rows: "DaskRows", **kwargs):
        fw = kwargs["outer"].fweights
        return super().create(prep, settings, fit, w=rows.weights(fw),
                              fweights_range=(1.0, 1.0) if fw is None else fw.active_range,
                              fweights=None, **kwargs)

    @property
    def llf(self) -> float:
        return self.stats.llf_count

    @property
    def fweights_range(self) -> tuple[float, float]:
        return self.stats.fweights_range


# ----------------------------------------------------------------------------- fmaxent rows

@dataclass(frozen=True)
class _DaskWeights:
    """F-weights clip(raw / mean) as a persisted dask array ``raw`` and the scalars."""

    raw: object
    mean: float
    bounds: tuple | None
    range: tuple
    active_range: tuple


def _iterate_block(X, q, cw, coef, threshold, epsilon):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(len(q)) if cw is None else cw
    p = np.clip(expit(X @ coef), _TINY, 1 - _TINY)
    pred = (p >= threshold).astype(float)
    out = _metric_sums(q, p, pred, cw)
    if epsilon is not None:
        out += list(_smoothed_sums(q, p, cw, epsilon))
    return np.asarray(out)


def _colsum_block(X, cw):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(X.shape[0]) if cw is None else cw
    return np.concatenate([[cw.sum()], cw @ X])


def _centred_sq_block(X, cw, mean):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    cw = np.ones(X.shape[0]) if cw is None else cw
    return cw @ (X - mean) ** 2


def _raw_fweights_block(X, q, coef, method, f, tp, alpha, epsilon):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    p = np.clip(expit(X @ coef), _TINY, 1 - _TINY)
    if method == "expected":
        return expected_f_weights(q, p, f, alpha)
    return noisy_f_weights(q, p, f, tp, alpha, epsilon)


def _norm_block(raw, cw):
    """Sum and count of the finite weights on active rows; min and max, overall and active."""
    act = np.ones(len(raw), dtype=bool) if cw is None else cw > 0
    ok = np.isfinite(raw) & act
    ra = raw[act]
    return np.array([float(np.sum(raw[ok])), float(np.count_nonzero(ok)),
                     -np.min(raw, initial=np.inf), np.max(raw, initial=-np.inf),
                     -np.min(ra, initial=np.inf), np.max(ra, initial=-np.inf)])


def _weights_block(raw, cw, mean, bounds):
    fw = raw / mean
    if bounds is not None:
        fw = np.clip(fw, bounds[0], bounds[1])
    return fw if cw is None else cw * fw


class DaskRows:
    """The rows of the fmaxent outer loop on dask arrays (interface of
    :class:`fmstats.fmaxent._ArrayRows`): per outer iteration one pass for the metrics, one
    for the raw F-weights (persisted) and their normalisation, then the warm-started IRLS."""

    def __init__(self, prep: _DaskPrepared, threshold: float):
        self.prep = prep
        self.X, self.q, self.cw = prep.X, prep.y, prep.cw
        self.threshold = threshold
        self.sum_q = prep.checks["sum_q"]

    def has_positives(self) -> bool:
        return True  # prepare_dask has rejected a response without positives (single class)

    def baseline(self, penalty, tol, max_iter) -> np.ndarray:
        return irls_logit_dask(self.X, self.q, self.cw, penalty=penalty, tol=tol,
                               max_iter=max_iter, persist=False).coef

    def iterate(self, coef, alpha, epsilon) -> _Iterate:
        v = block_sums(_iterate_block, self.X, self.q, self.cw, coef=coef,
                       threshold=self.threshold, epsilon=epsilon)
        return _Iterate(*_metrics_from_sums(v[:6], alpha, self.sum_q), loglik=float(v[5]),
                        coef=coef, smoothed=tuple(v[6:10]) if epsilon is not None else None)

    def smoothed_counts(self, it: _Iterate, alpha, epsilon):
        return _smoothed_from_sums(it.smoothed, alpha)

    def fweights(self, it: _Iterate, method, f, tp, alpha, epsilon, bounds) -> _DaskWeights:
        raw = map_rows(_raw_fweights_block, self.X, self.q, coef=it.coef, method=method, f=f,
                       tp=tp, alpha=alpha, epsilon=epsilon).persist()
        s, n, lo, hi, alo, ahi = block_sums(_norm_block, raw, self.cw, n_max=4)
        mean = s / n

        def scaled(x):
            x = x / mean
            return float(np.clip(x, *bounds)) if bounds is not None else float(x)

        return _DaskWeights(raw=raw, mean=mean, bounds=bounds, range=(scaled(-lo), scaled(hi)),
                            active_range=(scaled(-alo), scaled(ahi)))

    def unit_weights(self):
        return None

    def column_variances(self) -> tuple[float, np.ndarray]:
        """Total count weight and weighted column variances: two passes (mean, then centred)."""
        v = block_sums(_colsum_block, self.X, self.cw)
        total, mean = float(v[0]), v[1:] / v[0]
        return total, block_sums(_centred_sq_block, self.X, self.cw, mean=mean) / total

    def weight_range(self, fw: _DaskWeights) -> tuple[float, float]:
        return fw.range

    def weights(self, fw: _DaskWeights | None):
        """The fit's weights cw * fw, lazily (``None`` for all-one weights)."""
        if fw is None:
            return self.cw
        return map_rows(_weights_block, fw.raw, self.cw, mean=fw.mean, bounds=fw.bounds)

    def refit(self, fw, coef, *, penalty, tol, max_iter) -> np.ndarray:
        return irls_logit_dask(self.X, self.q, self.weights(fw), start=coef, penalty=penalty,
                               tol=tol, max_iter=max_iter, warn=False).coef

    def evaluate(self, fw, coef, penalty):
        return irls_evaluate_dask(self.X, self.q, self.weights(fw), coef, penalty=penalty)
