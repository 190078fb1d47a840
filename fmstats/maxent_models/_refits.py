"""Refits of a maxent-family fit on its own design with other frequency weights.

Every resampling of a maxent, umaxent or fmaxent fit -- a bootstrap replicate, a fold of a
(nested) cross-validation, a replicate of a whole tuning -- is the same model on the same
design with other frequency weights: the count weights times a multiplicity per row (how
often a bootstrap drew it; 0 for a held-out row).  A fit hands out one engine
(:meth:`fmstats.MaxentResults.row_refits`) that does these refits on arrays, many at once:

* ``replicates="kstep"`` (the default of every resampling): each refit starts from the
  full-data solution moved by the refit's linear part (the fit's influence rows times the
  multiplicities minus one: within O(1/n) of the refit's solution) and takes Newton steps of
  its own estimating equations until the last step moves every coefficient by less than
  ``step_tol`` (0.01) of its standard error, at most ``k`` (8) per weighted fit
  (:mod:`fmstats.glm._kstep`; Andrews 2002).  For fmaxent every outer iteration's weighted
  fit is such a solve, started from the full-data fit's iterate of the same index moved by
  the replicate's deviation from it, and every replicate keeps its own stopping rule and best
  iterate.  A refit whose steps do not meet the rule, whose design loses a column in the
  resample (an absent factor level), whose standard errors grow tenfold or whose fitted
  probabilities reach 0 or 1 (the screens of a separated resample) is refitted in full and
  counted;
* ``replicates="full"``: every refit iterates to convergence from R's start, as
  ``results.refit`` on the resampled rows would (the same numbers, without building a model
  frame or a results object per refit).

Why these defaults (measured on the logistic design of ``bench_fmaxent_coverage.py``,
n = 1,000 with 95 and 288 positives, beta = 1 and 2, 100-200 replicates against full refits
of the same draws): with the rule at 0.01 standard errors every k-step replicate was within
1.4e-5 (fmaxent) and 4.8e-5 (maxent) of a standard error of its full refit and the bootstrap
standard errors agreed to 1e-4; rules of 0.1 and 0.25 left up to 5e-3 and 3e-2 of a standard
error (the standard errors 0.01-0.1 % low, and a replicate's result then depends on whether
one rounding-sensitive step is taken) for 5-15 % less time; a single step per weighted fit,
without a rule, left replicates up to 3 standard errors off.  No weighted fit needed more
than 8 steps.

Used by :mod:`fmstats.resampling` and :mod:`fmstats.model_selection` through the results
protocol (they never import this module).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import expit

from ..exceptions import FmstatsError
from ..results import RowRefitEngine
from ..glm import block_size, column_grams, column_products, fmaxent_block, newton_block
from ..glm import standardised_ridge
from ..glm import column_scaling, independent_columns, irls_logit, rank_gram
from ..glm import outer_loop
from ..glm import ArraySource
from ..glm import SATURATION, no_finite_mle
from ..glm import Reweighting, unrolled_influence

__all__ = ["Refits", "MaxentRefits", "FMaxentRefits", "REPLICATES", "SE_RATIO", "suspect",
           "refit_fields"]

REPLICATES = ("kstep", "full")
#: The most Newton steps per weighted fit of a k-step refit, and the step rule (module notes).
DEFAULT_K = 8
DEFAULT_STEP_TOL = 0.01
#: A refit is screened for separation when a coefficient's standard error is this many times
#: the original fit's.
SE_RATIO = 10.0


def suspect(se: np.ndarray, se0: np.ndarray) -> bool:
    """Whether replicate standard errors ``se`` dwarf the original ``se0`` (same terms)."""
    se, se0 = np.asarray(se, dtype=float), np.asarray(se0, dtype=float)
    ok = np.isfinite(se0) & (se0 > 0)
    return bool(np.any(~np.isfinite(se[ok])) or np.any(se[ok] > SE_RATIO * se0[ok]))


@dataclass(frozen=True)
class Refits:
    """The outcome of m refits (one per column of the multiplicities).

    Parameters
    ----------
    coef : ndarray of shape (m, n_terms)
        Coefficients by term of the model (NaN for a term aliased in the refit or the fit).
    design_coef : ndarray of shape (m, p)
        Coefficients of the fit's design columns (0 for a column aliased in the refit), for
        scoring rows.
    training_f : ndarray of shape (m,)
        The F (the model's measure) of each refit's predicted classes on its weighted rows.
    infinite : ndarray of shape (m,)
        Refits without a finite maximum-likelihood estimate (a separated resample).
    converged : ndarray of shape (m,)
        Whether each refit converged.
    full : ndarray of shape (m,)
        Refits computed in full (``replicates="full"``, or a k-step refit that did not meet
        its rule).
    errors : tuple of (FmstatsError or None)
        Why a refit failed (its coefficients are then NaN), e.g. a resample of one class.
    """

    coef: np.ndarray
    design_coef: np.ndarray
    training_f: np.ndarray
    infinite: np.ndarray
    converged: np.ndarray
    full: np.ndarray
    errors: tuple = ()


def refit_fields(results) -> dict:
    """The fields of :class:`MaxentRefits` taken from a fitted maxent-family model (the prior
    ridge ``penalty``, 0 on the intercept; an fmaxent fit adds its own)."""
    names = [t for t, a in zip(results.term_names, results.aliased) if not a]
    pen = np.where(np.isin(names, ["Intercept", "(Intercept)"]), 0.0,
                   results.settings["penalty"])
    se0 = np.sqrt(np.clip(np.diag(results.core_fit.xtwx_inv), 0.0, None))
    return dict(X=results.X, y=results.y, cw=results.count_weights,
                positions=np.flatnonzero(~results.aliased), n_terms=len(results.term_names),
                penalty=np.asarray(pen, dtype=float), coef=results.core_fit.coef, se0=se0,
                tol=results.settings["tol"], max_iter=results.settings["max_iter"],
                threshold=results.threshold, fmeasure=results.fmeasure,
                offset=getattr(results.training, "offset", None),
                converged=bool(results.core_fit.converged))


def _independent(G: np.ndarray, tol: float = 1e-7) -> np.ndarray:
    """:func:`fmstats.glm.independent_columns`, with a one-call shortcut for full rank
    (every column kept iff the squared Cholesky diagonal exceeds tol^2 G_jj)."""
    d = np.diag(G)
    if np.all(d > 0):
        try:
            L = np.linalg.cholesky(G)
        except np.linalg.LinAlgError:
            L = None
        if L is not None and np.all(np.diag(L) ** 2 > tol ** 2 * d):
            return np.ones(G.shape[0], dtype=bool)
    return independent_columns(G, tol)


def _rank_deficient(X: np.ndarray, W: np.ndarray, products, tol: float = 1e-7) -> np.ndarray:
    """Columns of W whose weighted design X' diag(w) X loses a column by the rule of
    :func:`_independent` (a factor level absent from the resample, a collinear resample):
    their refits drop it, which a k-step refit of every column cannot, so they are refitted
    in full."""
    G = column_grams(X, W, products)
    d = np.einsum("bii->bi", G)
    bad = np.any(d <= 0, axis=1)
    s = np.sqrt(np.where(d > 0, d, 1.0))
    Gn = G / s[:, :, None] / s[:, None, :]
    Gn[bad] = np.eye(G.shape[1])
    try:
        L = np.linalg.cholesky(Gn)
        bad |= np.einsum("bii->bi", L).min(axis=1) ** 2 <= tol ** 2
    except np.linalg.LinAlgError:
        for b in np.flatnonzero(~bad):
            try:
                bad[b] = np.diag(np.linalg.cholesky(Gn[b])).min() ** 2 <= tol ** 2
            except np.linalg.LinAlgError:
                bad[b] = True
    return bad


def _training_f(fmeasure, y, w, eta, threshold) -> float:
    pred = (expit(eta) >= threshold).astype(float)
    tp, pos, truth = w @ (y * pred), w @ pred, w @ y
    return float(fmeasure.from_counts(tp, pos - tp, truth - tp))


@dataclass(frozen=True, eq=False)
class MaxentRefits(RowRefitEngine):
    """Refits of a ``maxent``/``umaxent`` fit on its design (module notes).

    Parameters
    ----------
    X : ndarray of shape (n, p)
        The fit's design (its non-aliased columns).
    y : ndarray of shape (n,)
        The response as proportions.
    cw : ndarray of shape (n,)
        The count weights (prior weights times ``cbind`` trials).
    positions : ndarray of shape (p,)
        The term index of each design column.
    n_terms : int
        The number of terms (aliased ones included).
    penalty : ndarray of shape (p,)
        The ridge of the fit (0 for the intercept).
    coef : ndarray of shape (p,)
        The fit's coefficients: where every k-step refit starts.
    se0 : ndarray of shape (p,)
        The fit's model-based standard errors (the separation screen's reference).
    tol, max_iter : float, int
        The IRLS settings of full refits.
    threshold : float
        The class threshold.
    fmeasure : FMeasure
        The model's measure (the training F of each refit).
    offset : ndarray of shape (n,), optional
        The fit's offset.
    converged : bool, default True
        Whether the fit converged (else every refit iterates in full, as it did).
    """

    X: Any
    y: np.ndarray
    cw: np.ndarray
    positions: np.ndarray
    n_terms: int
    penalty: np.ndarray
    coef: np.ndarray
    se0: np.ndarray
    tol: float
    max_iter: int
    threshold: float
    fmeasure: Any
    offset: np.ndarray | None = None
    converged: bool = True
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n(self) -> int:
        """The number of rows."""
        return int(self.X.shape[0])

    @property
    def penalised(self) -> bool:
        """Whether a ridge keeps every estimate finite."""
        return bool(np.any(self.penalty > 0))

    # ------------------------------------------------------------------ the k-step refits
    def _scaled(self):
        """(X, start, penalty, scaling) in the coordinates the refits run in: the fit's
        reparametrisation of badly scaled or offset columns (exact), or X as it is."""
        if "scaled" not in self._cache:
            X = self.X.toarray() if sparse.issparse(self.X) else np.asarray(self.X, float)
            sc = column_scaling(X, self.penalty)
            if sc is None:
                self._cache["scaled"] = (X, self.coef, self.penalty, None)
            else:
                self._cache["scaled"] = (sc.transform(X), sc.to_scaled(self.coef),
                                         sc.penalty_to_scaled(self.penalty), sc)
            self._cache["products"] = column_products(self._cache["scaled"][0])
        return self._cache["scaled"]

    @staticmethod
    def _original(coef_s: np.ndarray, sc) -> np.ndarray:
        return coef_s if sc is None else np.array([sc.to_original(c) for c in coef_s])

    def _kstep_block(self, W: np.ndarray, k: int, step_tol: float, screen: bool = True):
        """(coefficients (m, p) in the original coordinates, refits that need a full fit):
        those that did not meet the step rule, and -- the separation screen of
        :func:`fmstats.bootstrap` -- unpenalised ones whose fitted probabilities reach
        :data:`~fmstats.glm.SATURATION` of 0 or 1 on a row they weight or whose
        standard errors are :data:`SE_RATIO` times the fit's (a full refit tests them)."""
        Xs, start, pen, sc = self._scaled()
        if not screen:        # scores only: steps up to IRLS's own cap, kept where they stop
            k = max(k, int(self.max_iter))
        # each refit starts from the fit's solution moved by the refit's linear part,
        # mean((multiplicity - 1) psi): within O(1/n) of its solution, so one or two steps do
        psi = self._influence_scaled()
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = np.where(self.cw[:, None] > 0, W / np.where(self.cw > 0, self.cw, 1.0)[:, None],
                            1.0)
        start = start[None, :] + (mult - 1.0).T @ psi / self.n
        fit = newton_block(Xs, self.y, W, start, pen, k=k, step_tol=step_tol,
                           offset=self.offset, products=self._cache["products"],
                           margins=screen and not self.penalised)
        need = ~fit.converged if screen else ~np.all(np.isfinite(fit.coef), axis=1)
        if screen and not self.penalised:
            se0 = self.se0 if sc is None else self.se0 * sc.scale
            need |= fit.margin < SATURATION
            need |= np.array([suspect(s, se0) for s in fit.se])
        return self._original(fit.coef, sc), need

    def fit(self, mult: np.ndarray, *, replicates: str = "kstep", k: int = DEFAULT_K,
            step_tol: float = DEFAULT_STEP_TOL, training_f: bool = True,
            screen: bool = True) -> Refits:
        """Refit on every column of ``mult`` (n, m): the rows' multiplicities (frequency
        weights times the count weights).

        Parameters
        ----------
        mult : ndarray of shape (n, m)
            Multiplicities of the rows, one column per refit (0 leaves a row out).
        replicates : {"kstep", "full"}, default "kstep"
            k-step refits from the fit's solution (refitted in full where they do not meet
            the rule) or full refits (module notes).
        k : int, default 8
            The most Newton steps per weighted fit of a k-step refit.
        step_tol : float, default 0.1
            A k-step weighted fit stops when its last step moved every coefficient by less
            than this many standard errors.
        training_f : bool, default True
            Compute each refit's training F (NaN otherwise).
        screen : bool, default True
            Refit in full, which tests for separation, the k-step refits that look
            separated or do not meet the step rule (the bootstrap counts those replicates);
            ``False`` (scores for tuning, which need no test) allows up to ``max_iter`` steps,
            as IRLS does, and keeps the coefficients where they stop.

        Returns
        -------
        Refits
        """
        mult = np.asarray(mult, dtype=float)
        m = mult.shape[1]
        p = self.X.shape[1]
        design = np.zeros((m, p))
        coef = np.full((m, self.n_terms), np.nan)
        f = np.full(m, np.nan)
        infinite = np.zeros(m, dtype=bool)
        converged = np.ones(m, dtype=bool)
        # a fit that did not converge has no solution to start from: its refits iterate
        # as it did (to max_iter), in full
        kstep = replicates == "kstep" and self.converged
        full = np.zeros(m, dtype=bool) if kstep else np.ones(m, dtype=bool)
        if kstep:
            for a in range(0, m, block_size(self.n, m)):
                cols = slice(a, min(m, a + block_size(self.n, m)))
                W = self.cw[:, None] * mult[:, cols]
                c, need = self._kstep_block(W, k, step_tol, screen)
                need |= self._single_class(W)
                need |= _rank_deficient(self._scaled()[0], W, self._cache["products"])
                design[cols] = c
                full[cols] = need
            done = np.flatnonzero(~full)
            coef[np.ix_(done, self.positions)] = design[done]
            if training_f:
                f[done] = self._training_f_block(design[done], mult[:, done])
        errors = [None] * m
        for b in np.flatnonzero(full):
            try:
                design[b], coef[b], f[b], infinite[b], converged[b] = self.full_fit(mult[:, b])
            except FmstatsError as exc:
                errors[b] = exc
                design[b] = np.nan
        return Refits(coef=coef, design_coef=design, training_f=f, infinite=infinite,
                      converged=converged, full=full, errors=tuple(errors))

    def _single_class(self, W: np.ndarray) -> np.ndarray:
        """Refits whose weighted rows hold one class only (the full fit raises for them)."""
        active = W > 0
        pos = (active & (self.y[:, None] > 0)).any(axis=0)
        neg = (active & (self.y[:, None] < 1)).any(axis=0)
        return ~(pos & neg)

    def _training_f_block(self, coef: np.ndarray, mult: np.ndarray) -> np.ndarray:
        eta = np.asarray(self.X @ coef.T)
        if self.offset is not None:
            eta += self.offset[:, None]
        Wpred = (self.cw[:, None] * mult) * (expit(eta) >= self.threshold)
        tp, pos = self.y @ Wpred, Wpred.sum(axis=0)
        truth = self.y @ (self.cw[:, None] * mult)
        a = self.fmeasure.alpha               # F = TP / (TP + a FP + (1 - a) FN), 0/0 = 1
        den = tp + a * (pos - tp) + (1 - a) * (truth - tp)
        return np.where(den > 0, tp / np.where(den > 0, den, 1.0), 1.0)

    # ------------------------------------------------------------------ full refits
    def _rows(self, mult: np.ndarray, y=None):
        """(X, y, w, offset, kept columns, X of the kept columns) of the rows with positive
        multiplicity (``y``: other labels of the rows); raises ResponseError when they hold
        one class only."""
        from ..exceptions import ResponseError

        rows = np.flatnonzero(mult > 0)
        X = self.X[rows] if sparse.issparse(self.X) else np.take(self.X, rows, axis=0)
        y, w = (self.y if y is None else y)[rows], self.cw[rows] * mult[rows]
        off = None if self.offset is None else self.offset[rows]
        active = w > 0
        if np.all(y[active] == 0) or np.all(y[active] == 1):
            raise ResponseError("the resample has a single class; a classifier needs both.")
        keep = _independent(rank_gram(X, w))
        Xk = X if keep.all() else (X[:, np.flatnonzero(keep)] if sparse.issparse(X)
                                   else np.ascontiguousarray(X[:, keep]))
        return X, y, w, off, keep, Xk

    def full_fit(self, mult: np.ndarray, y: np.ndarray | None = None):
        """One refit iterated to convergence on the rows' multiplicities ``mult`` (n,), with
        other labels ``y`` if given (labels drawn from q): (design coefficients, coefficients
        by term, training F, no finite MLE, converged)."""
        X, y, w, off, keep, Xk = self._rows(mult, y)
        fit = irls_logit(Xk, y, w, penalty=self.penalty[keep], tol=self.tol,
                         max_iter=self.max_iter, warn=False, offset=off)
        se = np.sqrt(np.clip(np.diag(fit.xtwx_inv), 0.0, None))
        infinite = fit.separated or (not np.any(self.penalty[keep] > 0) and (
            not fit.converged or suspect(se, self.se0[keep])) and no_finite_mle(Xk, y, w))
        design = np.zeros(X.shape[1])
        design[keep] = fit.coef                 # aliased columns predict as 0, as R does
        coef = np.full(self.n_terms, np.nan)
        coef[self.positions[keep]] = fit.coef
        f = _training_f(self.fmeasure, y, w, fit.eta, self.threshold)
        return design, coef, f, bool(infinite), bool(fit.converged)

    # ------------------------------------------------------------------ scores
    def scores(self, design_coef: np.ndarray, rows=None, type: str = "response") -> np.ndarray:
        """Scores (len(rows), m) of refits (their ``design_coef``) on rows of the design.

        Parameters
        ----------
        design_coef : ndarray of shape (m, p)
            The refits' design coefficients (:attr:`Refits.design_coef`).
        rows : ndarray of int, optional
            The rows scored (default all).
        type : {"response", "link"}, default "response"
            Probabilities or linear predictors.

        Returns
        -------
        ndarray of shape (len(rows), m)
        """
        X = self.X if rows is None else self.X[rows]
        eta = np.asarray(X @ np.atleast_2d(design_coef).T)
        if self.offset is not None:
            eta += (self.offset if rows is None else self.offset[rows])[:, None]
        return eta if type == "link" else expit(eta)

    # ------------------------------------------------------------------ linear approximation
    def influence(self) -> np.ndarray:
        """Influence rows psi (n, p) of the fit's coefficients: a refit on multiplicities
        c is the fit plus mean((c - 1) psi) to first order, and sum(psi psi') / n^2 is the
        HC0 sandwich (the control variate of the bootstrap's covariance)."""
        psi = self._influence_scaled()
        sc = self._scaled()[3]
        return psi if sc is None else psi @ sc.matrix().T     # b = A b~

    def _influence_scaled(self) -> np.ndarray:
        """:meth:`influence` in the coordinates the refits run in (cached)."""
        if "psi" not in self._cache:
            Xs, start, pen, _ = self._scaled()
            eta = Xs @ start + (0.0 if self.offset is None else self.offset)
            mu = expit(eta)
            info = (Xs.T * (self.cw * mu * (1 - mu))) @ Xs + np.diag(pen)
            scores = (self.cw * (self.y - mu))[:, None] * Xs
            self._cache["psi"] = scores @ np.linalg.inv(info).T * self.n
        return self._cache["psi"]


@dataclass(frozen=True, eq=False)
class FMaxentRefits(MaxentRefits):
    """Refits of an ``fmaxent`` fit: the whole outer loop on each column (module notes).

    Parameters
    ----------
    loop : dict
        The outer loop's settings (:meth:`fmstats.FMaxentResults.outer_settings`).
    path : ndarray of shape (K + 1, p)
        The fit's iterates (its ``coef_path``).
    shrinkage : float
        The standardised ridge per observation (recomputed on each refit's rows).
    reweighting : Reweighting
        The F-weights (for the influence rows).
    best_iteration : int
        The iterate the fit returned.
    **kwargs
        The parameters of :class:`MaxentRefits` (``penalty`` is the prior ridge only).
    """

    loop: dict = None
    path: np.ndarray = None
    shrinkage: float = 0.0
    reweighting: Reweighting = None
    best_iteration: int = 0

    @property
    def penalised(self) -> bool:
        return bool(self.shrinkage > 0 or np.any(self.penalty > 0))

    def _kstep_block(self, W, k, step_tol, screen=True):
        """As :meth:`MaxentRefits._kstep_block` for the whole outer loop; without a ridge
        (``shrinkage=0, penalty=0``) every refit is done in full, which tests separation."""
        Xs, _, pen, sc = self._scaled()
        if not self.penalised:
            return np.zeros((W.shape[1], Xs.shape[1])), np.ones(W.shape[1], dtype=bool)
        path = self.path if sc is None else np.array([sc.to_scaled(t) for t in self.path])
        out = fmaxent_block(Xs, self.y, W, path, **self.loop, threshold=self.threshold,
                            prior_penalty=pen, shrinkage=self.shrinkage, k=k,
                            step_tol=step_tol, products=self._cache["products"])
        return self._original(out.coef, sc), ~out.converged

    def full_fit(self, mult: np.ndarray, y: np.ndarray | None = None):
        """The whole outer loop (baseline fit, F-reweighting, shrinkage of the refit's rows)
        iterated as :func:`fmstats.fmaxent` does, on the rows' multiplicities ``mult``."""
        X, y, w, _, keep, Xk = self._rows(mult, y)
        src = ArraySource(Xk, y, w, self.threshold)
        total, var = src.column_variances()
        pen = self.penalty[keep] + standardised_ridge(total, var, self.shrinkage)
        start = src.baseline(pen, self.tol, self.max_iter)
        out = outer_loop(src, start, penalty=pen, tol=self.tol, max_iter=self.max_iter,
                         **self.loop)
        infinite = (not self.penalised) and bool(src.evaluate(out.fweights, out.coef,
                                                              pen).separated)
        design = np.zeros(X.shape[1])
        design[keep] = out.coef
        coef = np.full(self.n_terms, np.nan)
        coef[self.positions[keep]] = out.coef
        f = _training_f(self.fmeasure, y, w, Xk @ out.coef, self.threshold)
        return design, coef, f, infinite, True

    def influence(self) -> np.ndarray:
        """Influence rows of the returned iterate, differentiated through every outer
        iteration (:func:`fmstats.glm.unrolled_influence`)."""
        if "influence" not in self._cache:
            Xs, _, pen0, sc = self._scaled()
            path = self.path if sc is None else np.array([sc.to_scaled(t) for t in self.path])
            total, var = ArraySource(Xs, self.y, self.cw, self.threshold).column_variances()
            pen = pen0 + standardised_ridge(total, var, self.shrinkage)
            infl = unrolled_influence(Xs, self.y, self.cw, path, self.best_iteration,
                                      self.reweighting, pen, shrinkage=self.shrinkage)
            if sc is not None:            # b = A b~: influence rows transform with A
                infl = infl @ sc.matrix().T
            self._cache["influence"] = infl
        return self._cache["influence"]
