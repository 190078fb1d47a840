"""Refits of an out-of-core maxent-family fit: many replicates at once, on the row blocks.

The out-of-core counterpart of ``_refits.py``.  A fit made on a Dask
DataFrame keeps no rows, so its resamplings run where the rows are: every replicate is the
same model on the same rows with other frequency weights, drawn on each row block from the
rows' global positions (:class:`fmstats.glm.RowDraws`: Poisson(1) counts
for the bootstrap, fold memberships for cross-validation), and every pass over the blocks
updates all replicates at once (:mod:`fmstats.glm._blockreplicates`).  The client receives
sums of a few numbers per replicate; no row leaves its worker.

* ``replicates="kstep"`` (the default): as in memory, each maxent refit starts from the fit's
  solution moved by its linear part and takes Newton steps until the last moves every
  coefficient by less than ``step_tol`` of its standard error (at most ``k``); each fmaxent
  refit runs the whole outer loop with k-step weighted fits.  Refits that do not meet the rule
  are iterated on (maxent: Newton steps up to ``max_iter``; fmaxent: the outer loop again with
  weighted fits iterated to 1e-6 of a standard error) and counted as refitted in full;
* ``replicates="full"``: every refit iterated that way from the start.

Where the in-memory engine tests a suspect replicate for separation with Konis's linear
programme (which needs its rows), the out-of-core engine counts a replicate whose fitted
probabilities reach 1e-8 of 0 or 1 on a row it weights, or whose standard errors are ten
times the fit's, as having no finite estimate (unpenalised fits only; a ridge keeps every
estimate finite).  A replicate whose rows hold one class, or whose design loses a column (a
factor level absent from its rows), fails with the error saying so and is left out.

Handed out by ``results.row_refits(data)`` of an out-of-core fit (the training rows given
again as the Dask DataFrame, or the fit's own row blocks at fit time).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from .._utils.progress import progress_bar, progress_enabled
from .._utils.rowrng import fold_key, replicate_keys
from ..exceptions import DesignError, ResponseError
from ..glm import (RowDraws, margins_pass, newton_passes, outer_passes,
                                   replicate_constants, training_f_passes)
from ..glm import SATURATION
from ..glm import influence_rows, unrolled_covariance_sums, unrolled_plan
from ._refits import SE_RATIO, Refits
from ..results import RowRefitEngine

__all__ = ["BlockRefits", "FULL_STEP_TOL"]

#: The step rule (in standard errors) of refits iterated in full out of core.
FULL_STEP_TOL = 1e-6


def _colsum_block(X, q, c):
    X = np.require(X, dtype=float, requirements=["A", "C"])
    c = np.ones(X.shape[0]) if c is None else np.asarray(c, dtype=float)
    return np.concatenate([[c.sum()], c @ X])


def _maxent_psi(X, q, c, coef, bread, n):
    """The influence rows of a maxent fit on a block: n x (its weighted score) x bread."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    c = np.ones(X.shape[0]) if c is None else np.asarray(c, dtype=float)
    return ((c * (np.asarray(q, dtype=float) - expit(X @ coef)))[:, None] * X) @ bread.T * n


class _Passes:
    """A progress bar over passes (``progress``: the rule of ``fmstats/_utils/progress.py``)."""

    def __init__(self, progress, desc: str):
        self.bar = progress_bar(total=None, desc=desc, unit="pass") \
            if progress_enabled(progress) else None

    def tick(self):
        if self.bar is not None:
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()


class BlockRefits(RowRefitEngine):
    """Refits of a maxent, umaxent or fmaxent fit on its row blocks (module notes).

    Parameters
    ----------
    results : MaxentResults
        The out-of-core fit.
    rows : row source
        Its training rows (:class:`fmstats.glm.DaskSource`, or any row source with
        ``sums``; an :class:`~fmstats.glm.ArraySource` gives the same numbers in
        memory).
    """

    #: replicate draws are made on the blocks (:class:`fmstats.glm.RowDraws`)
    out_of_core = True

    def __init__(self, results, rows):
        self.rows = rows
        names = [t for t, a in zip(results.term_names, results.aliased) if not a]
        self.positions = np.flatnonzero(~results.aliased)
        self.n_terms = len(results.term_names)
        self.prior_penalty = np.where(np.isin(names, ["Intercept", "(Intercept)"]), 0.0,
                                      float(results.settings["penalty"]))
        fit = results.core_fit
        self.coef = np.asarray(fit.coef, dtype=float)
        self.bread = np.asarray(fit.xtwx_inv, dtype=float)
        self.se0 = np.sqrt(np.clip(np.diag(self.bread), 0.0, None))
        self.max_iter = int(results.settings["max_iter"])
        self.threshold = float(results.threshold)
        self.fmeasure = results.fmeasure
        self.converged = bool(fit.converged)
        self.fmaxent = results.model == "fmaxent"
        self.shrinkage = float(results.settings.get("shrinkage", 0.0) or 0.0) \
            if self.fmaxent else 0.0
        if self.fmaxent:
            self.loop = results.loop_settings()
            self.path = results.coef_path.to_numpy()
            self.best_iteration = int(results.best_iteration)
            self.reweighting = results._reweighting()
            pen = fit.penalty
            self.penalty_total = np.zeros(len(self.coef)) if pen is None else np.asarray(pen)
        self.hc0 = results.covariance("HC0").cov() if not self.fmaxent else None
        kept = getattr(results.training, "fit_time", {}).get("reweighted")
        self._cache = {} if kept is None or results.settings.get("inner") != "full" else \
            {"sigma_L": kept[0]}

    @property
    def n(self) -> int:
        """The number of training rows."""
        return int(self.rows.n_rows)

    @property
    def penalised(self) -> bool:
        """Whether a ridge keeps every estimate finite."""
        return bool(self.shrinkage > 0 or np.any(self.prior_penalty > 0))

    # ------------------------------------------------------------------ what the fit implies
    def center(self) -> np.ndarray:
        """The count-weighted column means (one pass, kept)."""
        if "center" not in self._cache:
            v = self.rows.sums(_colsum_block)
            self._cache["center"] = v[1:] / v[0]
        return self._cache["center"]

    def _plan(self):
        """The unrolled influence's plan of an fmaxent fit (three passes, kept)."""
        if "plan" not in self._cache:
            self._cache["plan"] = unrolled_plan(
                self.rows.sums, self.n, self.path, self.best_iteration, self.reweighting,
                self.penalty_total, shrinkage=self.shrinkage)
        return self._cache["plan"]

    def _psi(self):
        """(a block's influence rows, its arguments): what the linear parts need."""
        if self.fmaxent:
            return _fmaxent_psi, {"plan": self._plan()}
        return _maxent_psi, {"coef": self.coef, "bread": self.bread, "n": self.n}

    def linear_cov(self) -> np.ndarray:
        """The exact covariance of the linear parts mean((M - 1) psi) under Poisson(1)
        multiplicities M: sum psi psi' / n^2 (independent counts of variance 1), i.e. the
        HC0 sandwich of a maxent fit and the reweighted (unrolled) covariance of fmaxent."""
        if self.hc0 is not None:
            return self.hc0
        if "sigma_L" not in self._cache:
            plan = self._plan()
            self._cache["sigma_L"] = unrolled_covariance_sums(
                self.rows.sums, self.n, plan.path, plan.best, plan.spec, self.penalty_total,
                shrinkage=self.shrinkage)
        return self._cache["sigma_L"]

    # ------------------------------------------------------------------ refits
    @staticmethod
    def poisson_draws(seeds) -> RowDraws:
        """The draws of Poisson(1) replicates with these seeds (``SeedSequence`` or ints)."""
        return RowDraws(keys=replicate_keys(seeds))

    @staticmethod
    def fold_draws(k: int, seed: int) -> RowDraws:
        """The draws of k fold refits (fold j held out by refit j), the folds assigned by a
        counter-based hash of each row's position keyed by ``seed``."""
        return RowDraws(fold_key=fold_key(seed), folds=int(k), held=np.arange(int(k)))

    def fit_draws(self, draws: RowDraws, *, replicates: str = "kstep", k: int = 8,
                  step_tol: float = 0.01, training_f: bool = True, screen: bool = True,
                  linear: bool = False, progress=None, desc: str = "refits"):
        """Refit on every replicate of ``draws`` (module notes).

        Parameters
        ----------
        draws : RowDraws
            The replicates' multiplicities (drawn on the blocks).
        replicates : {"kstep", "full"}, default "kstep"
            k-step refits from the fit's solution, or refits iterated in full.
        k : int, default 8
            The most Newton steps per weighted fit of a k-step refit.
        step_tol : float, default 0.01
            The k-step rule, in standard errors.
        training_f : bool, default True
            Compute each refit's training F (one more pass for maxent).
        screen : bool, default True
            Screen unpenalised refits for separation (the bootstrap); ``False`` keeps
            every refit's coefficients where ``max_iter`` steps leave them (scores for
            tuning).
        linear : bool, default False
            Also return each replicate's linear part mean((M - 1) psi) (the control
            variate; :meth:`linear_cov` is its covariance).
        progress : bool, optional
            A progress bar over the passes.
        desc : str
            Its label.

        Returns
        -------
        (Refits, ndarray of shape (m, p) or None)
        """
        bar = _Passes(progress, f"{desc}: {draws.m} at once, passes over the row blocks")
        try:
            return self._fit(draws, replicates, k, step_tol, training_f, screen, linear,
                             bar.tick)
        finally:
            bar.close()

    def _fit(self, draws, replicates, k, step_tol, training_f, screen, linear, tick):
        m, p = draws.m, len(self.coef)
        psi_fn, psi_args = self._psi() if linear else (None, None)
        cons = replicate_constants(self.rows.sums, draws, self.center(), self.n, psi_fn,
                                   psi_args)
        tick()
        single = (cons.sum_q <= 0) | (cons.total - cons.sum_q <= 0)
        kstep = replicates == "kstep" and self.converged
        run = np.flatnonzero(~single)
        design = np.full((m, p), np.nan)
        f = np.full(m, np.nan)
        infinite = np.zeros(m, dtype=bool)
        full = np.zeros(m, dtype=bool)
        if self.fmaxent:
            self._outer(draws, cons, run, kstep, k, step_tol, design, f, full, tick)
            if not self.penalised and screen:
                done = run[np.all(np.isfinite(design[run]), axis=1)]
                if done.size:
                    infinite[done] = margins_pass(self.rows.sums, draws.take(done),
                                                  design[done]) < SATURATION
                    tick()
        else:
            start = self.coef[None, :] + (cons.linear if cons.linear is not None
                                          else self._linear_start(draws, run, tick))
            self._maxent(draws, run, start, kstep, k, step_tol, screen, design, full,
                         infinite, tick)
            ok = run[np.all(np.isfinite(design[run]), axis=1)]
            if training_f and ok.size:
                f[ok] = training_f_passes(self.rows.sums, draws.take(ok), design[ok],
                                          self.threshold, self.fmeasure.alpha)
                tick()
        errors = [None] * m
        for b in np.flatnonzero(single):
            errors[b] = ResponseError("the resample has a single class; a classifier needs "
                                      "both.")
        for b in np.flatnonzero(~single & ~np.all(np.isfinite(design), axis=1)):
            errors[b] = DesignError(
                "the replicate's weighted design is not of full rank (a factor level or a "
                "column absent from its rows) or its fit did not converge: out of core such a "
                "replicate is left out.")
        coef = np.full((m, self.n_terms), np.nan)
        coef[:, self.positions] = design
        design = np.where(np.isfinite(design), design, np.nan)
        return (Refits(coef=coef, design_coef=design, training_f=f, infinite=infinite,
                       converged=np.ones(m, dtype=bool), full=full, errors=tuple(errors)),
                cons.linear)

    def _linear_start(self, draws, run, tick):
        """The linear parts of the replicates when they were not asked for (one pass): the
        start of every maxent refit."""
        psi_fn, psi_args = self._psi()
        cons = replicate_constants(self.rows.sums, draws, self.center(), self.n, psi_fn,
                                   psi_args)
        tick()
        return cons.linear

    def _maxent(self, draws, run, start, kstep, k, step_tol, screen, design, full, infinite,
                tick):
        """Newton passes of the maxent refits ``run``: k-step, then in full for those that
        need it (module notes)."""
        pen = self.prior_penalty
        margins = screen and not self.penalised
        need = np.zeros(draws.m, dtype=bool)
        theta = start.copy()
        if kstep and run.size:
            fit = newton_passes(self.rows.sums, draws.take(run), start[run], pen,
                                k=k if screen else max(k, self.max_iter), step_tol=step_tol,
                                margins=margins, on_pass=tick)
            theta[run] = fit.coef
            need[run] = ~fit.converged if screen else ~np.all(np.isfinite(fit.coef), axis=1)
            if margins:
                suspect = (fit.margin < SATURATION) | np.any(
                    ~np.isfinite(fit.se) | (fit.se > SE_RATIO * self.se0), axis=1)
                infinite[run] = suspect & fit.converged
            design[run[~need[run]]] = fit.coef[~need[run]]
        else:
            need[run] = True
        redo = np.flatnonzero(need)
        if redo.size:
            fit = newton_passes(self.rows.sums, draws.take(redo), theta[redo] if kstep
                                else self.coef, pen, k=self.max_iter, step_tol=FULL_STEP_TOL,
                                margins=margins, on_pass=tick)
            good = fit.converged if screen else np.all(np.isfinite(fit.coef), axis=1)
            design[redo[good]] = fit.coef[good]
            full[redo] = True
            if margins:
                infinite[redo] = good & ((fit.margin < SATURATION) | np.any(
                    ~np.isfinite(fit.se) | (fit.se > SE_RATIO * self.se0), axis=1))

    def _outer(self, draws, cons, run, kstep, k, step_tol, design, f, full, tick):
        """The fmaxent refits ``run``: the outer loop with k-step weighted fits, then in
        full for those that need it (and for all without a ridge or when asked)."""
        settings = dict(**self.loop, threshold=self.threshold,
                        prior_penalty=self.prior_penalty, shrinkage=self.shrinkage,
                        on_pass=tick)

        def loop(cols, kk, tol):
            sub = type(cons)(total=cons.total[cols], sum_q=cons.sum_q[cols],
                             var=cons.var[cols], linear=None)
            return outer_passes(self.rows.sums, draws.take(cols), self.path, sub, k=kk,
                                step_tol=tol, **settings)

        need = np.zeros(draws.m, dtype=bool)
        if kstep and self.penalised and run.size:
            out = loop(run, k, step_tol)
            ok = out.converged
            design[run[ok]], f[run[ok]] = out.coef[ok], out.training_f[ok]
            need[run[~ok]] = True
        else:
            need[run] = True
        redo = np.flatnonzero(need)
        if redo.size:
            out = loop(redo, self.max_iter, FULL_STEP_TOL)
            ok = out.converged
            design[redo[ok]], f[redo[ok]] = out.coef[ok], out.training_f[ok]
            full[redo] = True

    # ------------------------------------------------------------------ scores
    def scores(self, design_coef, rows=None, type: str = "response"):
        """Not available: out of core the rows are scored on the blocks (:meth:`held_out`)."""
        raise DesignError("out of core the refits score the rows on their blocks; the rows "
                          "are not held on the client.")

    def validation_cells(self, draws: RowDraws, design_coef):
        """One pass for :func:`fmstats.validate`: (the fit's apparent cells, each replicate's
        cells on its own weighted rows and on all rows (m, 4), the out-of-bag cells, the rows
        never out of bag); cells are tp, fp, fn, tn of the class predictions."""
        m = draws.m
        v = self.rows.sums(_validation_block, positions=True, draws=draws, coef0=self.coef,
                           coef=np.asarray(design_coef, dtype=float), threshold=self.threshold)
        return (v[:4], v[4:4 + 4 * m].reshape(m, 4), v[4 + 4 * m:4 + 8 * m].reshape(m, 4),
                v[4 + 8 * m:8 + 8 * m], int(v[-1]))

    def held_out(self, draws: RowDraws, design_coef, type: str = "response"):
        """The pass over the pooled held-out scores of fold refits (their ``design_coef``,
        one per fold of the fold ``draws``): ``gather(fn, **kw)`` runs
        ``fn(s, pos, neg, fold, **kw)`` on every block's rows -- each scored by the fit of
        the fold it is held out of, weighted by its count weight into the positives and the
        negatives -- and returns the results; the scores never leave the workers."""
        coef = np.asarray(design_coef, dtype=float)

        def gather(fn, **kwargs):
            return self.rows.gather(_held_out_block, positions=True, draws=draws, coef=coef,
                                    link=type == "link", inner=fn, inner_kwargs=kwargs)

        return gather

    def held_out_cells(self, draws: RowDraws, design_coef, threshold: float) -> np.ndarray:
        """One pass: the held-out cells of fold refits (their ``design_coef``, one per fold of
        the fold ``draws``), summed on the workers: (k, 5) with each fold's tp, fp, fn, tn of
        the class predictions at ``threshold`` (a row is scored by the fit of the fold it is
        held out of and weighted by its count weight) and its number of rows."""
        k = int(draws.folds)
        v = self.rows.sums(_held_out_block, positions=True, draws=draws,
                           coef=np.asarray(design_coef, dtype=float), link=False,
                           inner=_fold_cells, inner_kwargs={"threshold": float(threshold),
                                                            "k": k})
        return v.reshape(k, 5)


def _fold_cells(s, pos, neg, fold, threshold, k):
    """A block's cells per fold (tp, fp, fn, tn, rows) of the predictions s >= threshold."""
    pred = s >= threshold

    def per_fold(w):
        return np.bincount(fold, weights=w, minlength=k)

    return np.stack([per_fold(np.where(pred, pos, 0.0)), per_fold(np.where(pred, neg, 0.0)),
                     per_fold(np.where(pred, 0.0, pos)), per_fold(np.where(pred, 0.0, neg)),
                     np.bincount(fold, minlength=k).astype(float)], axis=1).ravel()


def _cells(q, pred, w):
    """Cells (..., 4) of predictions (n, ...) against q with row weights w (n, ...)."""
    wq, wn = (w.T * q).T, (w.T * (1 - q)).T
    return np.stack([(wq * pred).sum(0), (wn * pred).sum(0), (wq * (1 - pred)).sum(0),
                     (wn * (1 - pred)).sum(0)], axis=-1)


def _validation_block(X, q, c, positions, draws, coef0, coef, threshold):
    """A block's cells for :meth:`BlockRefits.validation_cells`."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    q = np.asarray(q, dtype=float).reshape(-1)
    c = np.ones(len(q)) if c is None else np.asarray(c, dtype=float).reshape(-1)
    M = draws.block(np.asarray(positions).reshape(-1))
    pred0 = (expit(X @ coef0) >= threshold).astype(float)
    P = (expit(X @ coef.T) >= threshold).astype(float)
    out = M == 0
    n_out = out.sum(axis=1)
    seen = n_out > 0
    oob = np.where(out, P, 0.0).sum(axis=1)[seen] / n_out[seen]
    return np.concatenate([_cells(q, pred0, c), _cells(q, P, c[:, None] * M).ravel(),
                           _cells(q, P, np.broadcast_to(c[:, None], P.shape)).ravel(),
                           _cells(q[seen], oob, c[seen]), [np.count_nonzero(~seen)]])


def _held_out_block(X, q, c, positions, draws, coef, link, inner, inner_kwargs):
    """A block's held-out scores (each row by the fit of its fold) handed to ``inner``."""
    X = np.require(X, dtype=float, requirements=["A", "C"])
    q = np.asarray(q, dtype=float).reshape(-1)
    c = np.ones(len(q)) if c is None else np.asarray(c, dtype=float).reshape(-1)
    fold = draws.fold_of(np.asarray(positions).reshape(-1))
    eta = np.einsum("ij,ij->i", X, coef[fold])
    s = eta if link else expit(eta)
    return inner(s, c * q, c * (1.0 - q), fold, **inner_kwargs)


def _fmaxent_psi(X, q, c, plan):
    """The influence rows of an fmaxent fit on a block (:func:`fmstats.glm.influence_rows`)."""
    return influence_rows(X, q, c, plan)
