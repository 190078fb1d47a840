"""Optimism-corrected performance by the bootstrap, in the spirit of R's ``rms::validate``.

For a measure M (an F-measure, accuracy, precision, recall or Jaccard; higher is better) of a
fitted model's class predictions, :func:`validate` refits the model on B case resamples and
reports, with w the model's row weights (prior weights times ``cbind`` trials) and q the labels
(probabilistic labels count fractionally, as in ``results.confusion()``):

* apparent: M of the model's predictions on its training rows;
* training / test: the mean over replicates of M of replicate model b on its own resample
  (rows weighted by w times their resample counts) and on the original rows;
* optimism = mean(training_b - test_b), and the ``"boot"`` estimate apparent - optimism
  (Harrell's optimism bootstrap, ``rms::validate(method = "boot")``), clipped to the
  measure's range [0, 1] (with an :class:`OptimismWarning` when the optimism exceeds the
  apparent value; ``unclipped_boot`` in ``tidy()`` keeps the difference);
* oob: the leave-one-out bootstrap M^(1) (Efron & Tibshirani 1997): every row's confusion
  cells averaged over the replicates that left it out, summed over rows, then M of the sums.
  For accuracy this is exactly Efron's Err^(1); for F it pools the out-of-bag counts as the
  pooled cross-validated F_tp,fp pools fold counts (Forman & Scholz);
* ``".632"``: 0.368 apparent + 0.632 oob;
* ``".632+"``: with errors e = 1 - M (err = apparent, Err1 = oob) and the no-information
  error gamma, Err1' = min(Err1, gamma), R = (Err1' - err)/(gamma - err) when Err1 > err and
  gamma > err (else 0), w = 0.632/(1 - 0.368 R) and Err.632+ = (1 - w) err + w Err1'
  (Efron & Tibshirani 1997, eqs. 27-32; Hastie, Tibshirani & Friedman 2009, eq. 7.58).

No-information rate for F.  Efron & Tibshirani define gamma as the error of the prediction
rule when labels and predictions are independent: averaged over all n^2 pairings
(y_i, yhat_j) of the original labels and the apparent predictions.  For a count-based measure
pool the counts over all pairings (pair (i, j) weighted w_i w_j / W): with pi = sum w q / W
the positive share of the labels and rho = sum w yhat / W that of the predictions, the pooled
counts are TP = W pi rho, FP = W (1 - pi) rho, FN = W pi (1 - rho), TN = W (1 - pi)(1 - rho),
so the no-information F is

    F_0 = pi rho / (pi rho + alpha (1 - pi) rho + (1 - alpha) pi (1 - rho))
        = pi rho / (alpha rho + (1 - alpha) pi),

(2 pi rho / (pi + rho) for F1) and the no-information accuracy is pi rho + (1 - pi)(1 - rho),
Efron & Tibshirani's gamma for the 0-1 loss.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._utils.boundary import public
from .._utils.call import ModelCall
from .. import measures as _m
from .._utils.parallel import spawn_seeds
from ..results import Persistable, predict_kept, require_protocol, rows_of
from ._replicates import (BlockEngine, Draws, PoissonDraws, RefitEngine, collect, make_engine,
                          model_call_of, report, run)
from .._utils.validation import check_choice, check_scalar, describe, warn
from ..exceptions import InvalidArgumentError, ResamplingWarning
from ..inference import estimate_632plus, no_information_counts
from ..results import Section, Summary

__all__ = ["validate", "ValidateResults", "METHODS", "no_information_counts",
           "estimate_632plus", "OptimismWarning"]

METHODS = ("boot", ".632", ".632+")


class OptimismWarning(ResamplingWarning):
    """The bootstrap optimism of a measure exceeds its apparent value: the model barely
    fits, and the corrected estimate apparent - optimism fell below 0 (it is clipped)."""
_OTHER = ("accuracy", "precision", "recall", "jaccard")


def _ratio(num, den):
    """num / den with 0/0 = 1 (the package's convention for precision, recall, Jaccard)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 1.0)


def _measures(measure, beta, alpha, results) -> dict:
    """{name: function of a (..., 4) array of tp, fp, fn, tn}."""
    items = list(measure) if isinstance(measure, (list, tuple)) else [measure]
    if not items:
        raise InvalidArgumentError("`measure` must name at least one measure; got [].")
    out = {}
    for m in items:
        if m is None or m == "f" or isinstance(m, _m.FMeasure):
            fm = m if isinstance(m, _m.FMeasure) else None
            if fm is None and beta is None and alpha is None:
                fm = rows_of(results).fmeasure or _m.FMeasure()
            else:
                fm = _m.as_fmeasure(fm, beta=beta, alpha=alpha)
            out[fm.name] = lambda c, fm=fm: fm.from_counts(c[..., 0], c[..., 1], c[..., 2])
        elif isinstance(m, str) and m in _OTHER:
            out[m] = {
                "accuracy": lambda c: (c[..., 0] + c[..., 3]) / c.sum(axis=-1),
                "precision": lambda c: _ratio(c[..., 0], c[..., 0] + c[..., 1]),
                "recall": lambda c: _ratio(c[..., 0], c[..., 0] + c[..., 2]),
                "jaccard": lambda c: _ratio(c[..., 0], c[..., :3].sum(axis=-1)),
            }[m]
        else:
            raise InvalidArgumentError(
                "`measure` must be an FMeasure, 'f', one of " + ", ".join(map(repr, _OTHER))
                + f", or a list of these; got {describe(m)}.")
    return out


def _cells(q, p, w) -> np.ndarray:
    """Weighted confusion cells [tp, fp, fn, tn] of predictions p (0/1 or averaged) vs q."""
    wq, wn = w * q, w * (1 - q)
    return np.array([wq @ p, wn @ p, wq @ (1 - p), wn @ (1 - p)])


@public
def validate(results, B: int = 200, *, method: str = "boot", measure=None, beta=None,
             alpha=None, data: pd.DataFrame | None = None, fast: bool | None = None,
             random_state=None, n_jobs: int | None = None, progress=None,
             reuse_design: bool = True, replicates: str = "kstep") -> "ValidateResults":
    """Optimism-corrected performance of a fitted model's class predictions.

    Parameters
    ----------
    results : ModelResults
        A fitted model speaking the results protocol (``refit``, ``predict``).
    B : int, default 200
        Bootstrap replicates (at least 2; Efron & Tibshirani use 50-200).
    method : {"boot", ".632", ".632+"}, default "boot"
        The estimate reported as ``corrected``: ``"boot"`` (apparent - optimism),
        ``".632"`` or ``".632+"``; all three are in ``tidy()``.
    measure, beta, alpha : FMeasure, str, list or float, optional
        An FMeasure (default the model's, or F given by ``beta``/``alpha``),
        ``"f"``, ``"accuracy"``, ``"precision"``, ``"recall"``, ``"jaccard"``, or a list.
    data : DataFrame, optional
        The training DataFrame (needed except for maxent/umaxent fits, see
        :func:`fmstats.bootstrap`).
    fast : bool, optional
        Weighted refits of maxent/umaxent (default: whenever they apply).
    random_state : int, SeedSequence or Generator, optional
        Seed, as in :func:`fmstats.bootstrap`.
    n_jobs : int, optional
        Joblib workers, as in :func:`fmstats.bootstrap`.
    progress : bool, optional
        A tqdm progress bar, as in :func:`fmstats.bootstrap`.
    reuse_design : bool, default True
        Build the design once and refit every replicate on its rows, as in
        :func:`fmstats.bootstrap`.
    replicates : {"kstep", "full"}, default "kstep"
        On the fast path: k-step or full refits, as in :func:`fmstats.bootstrap`.

    Returns
    -------
    ValidateResults

    Examples
    --------
    >>> import fmstats as fm
    >>> titanic = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ C(pclass) + sex + age", titanic)
    >>> v = fm.validate(fit, B=30, random_state=0)
    >>> print(v.tidy()[["measure", "apparent", "corrected"]].round(3).to_string(index=False))
    measure  apparent  corrected
         F1     0.728      0.728
    """
    check_scalar("B", B, low=2, integer=True)
    check_choice("method", method, METHODS)
    require_protocol(results, "refit", "predict")
    fns = _measures(measure, beta, alpha, results)
    check_choice("replicates", replicates, ("kstep", "full"))
    engine, is_fast = make_engine(results, type_="case", data=data, statistic=None, fast=fast,
                                  reuse_design=reuse_design, replicates=replicates)
    seeds = spawn_seeds(random_state, int(B))
    if isinstance(engine, BlockEngine):       # out of core: every cell summed on the blocks
        cells = _block_cells(engine, seeds, progress)
    else:
        cells = _replicate_cells(engine, results, seeds, n_jobs, progress)
    app_cells, ok, train, test, oob_cells, n_never_out, errors, warned = cells
    rows, reps = {}, {}
    for name, fn in fns.items():
        app = float(fn(app_cells))
        tr, te = np.asarray(fn(train), dtype=float), np.asarray(fn(test), dtype=float)
        opt = float(np.mean(tr - te))
        oob = float(fn(oob_cells))
        # the pooled counts of all pairings depend on the margins only: those of four rows
        # carrying the apparent cells
        noinfo = float(fn(no_information_counts([1, 0, 1, 0], [1, 1, 0, 0], app_cells)))
        plus, r, wt = estimate_632plus(app, oob, noinfo)
        # every measure here lies in [0, 1]; apparent - optimism need not (3 positives in
        # 40 rows gave -0.116), so the estimates are clipped to the range and say so
        raw = dict(corrected_boot=app - opt, corrected_632=0.368 * app + 0.632 * oob,
                   corrected_632plus=plus)
        rows[name] = dict(apparent=app, training=float(tr.mean()), test=float(te.mean()),
                          optimism=opt, oob=oob, no_information=noinfo, overfit_rate=r,
                          weight_632plus=wt,
                          **{k: float(np.clip(v, 0.0, 1.0)) for k, v in raw.items()},
                          unclipped_boot=app - opt,
                          clipped=bool(any(not 0.0 <= v <= 1.0 for v in raw.values())),
                          # the Monte-Carlo error of the optimism (and so of "boot"): the
                          # standard error of a mean over the replicates
                          optimism_mc=float(np.std(tr - te, ddof=1) / np.sqrt(tr.size))
                          if tr.size > 1 else float("nan"))
        if opt > app:
            pos = float(app_cells[0] + app_cells[2])
            warn(f"validate: the bootstrap optimism of {name} ({opt:.4f}) exceeds its apparent "
                 f"value ({app:.4f}), so apparent - optimism = {app - opt:.4f} lies outside "
                 f"[0, 1] and the 'boot' estimate is clipped to 0.  The model barely fits its "
                 f"{engine.n} rows ({pos:g} positive): no estimate of its performance is "
                 "reliable here.  Consider method='.632+' (bounded by the no-information "
                 "value), a simpler model or a ridge `penalty=`, more data, or "
                 "cross-validation repeated over many splits.", OptimismWarning)
        reps[(name, "training")], reps[(name, "test")] = tr, te
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("measure")
    values = pd.DataFrame(reps, index=pd.Index(ok, name="replicate"))
    return ValidateResults(table=table, replicates=values, method=method, B=int(B),
                           n=engine.n, n_failed=len(errors), n_never_out=n_never_out,
                           fast=is_fast, seeds=tuple(seeds), replicate_warnings=warned,
                           replicate_method=replicates if is_fast else "refit",
                           model_call=model_call_of(results),
                           random_state=repr(random_state),
                           scheme="poisson" if isinstance(engine, BlockEngine) else "case")


def _replicate_cells(engine, results, seeds, n_jobs, progress):
    """(apparent cells, successful replicates, their training and test cells, the out-of-bag
    cells, rows never out of bag, failures, warnings) from replicates' class predictions of
    the rows in memory."""
    frame = engine.frame if isinstance(engine, RefitEngine) else None
    rows = rows_of(results)
    q, w = rows.y, rows.count_weights
    if q is None and rows.spec is None:
        raise InvalidArgumentError(
            f"`results`: validate() classes the training rows against their labels, and "
            f"{describe(results)} keeps neither its labels (`y`) nor a design specification "
            "(`spec`) to read them from `data`.")
    if q is None:
        resp = results.spec.build_with_response(frame, missing="raise")[0]
        q = resp.y
        w = resp.trials
    if w is None:
        w = np.ones(len(q))
    pred0 = predict_kept(results, frame, type="class").to_numpy(dtype=float)
    raw = run(engine, "classes", seeds, n_jobs, progress, "validate")
    preds, errors, warned = collect(raw, engine.n)
    report("validate", len(seeds), errors, 0, warned)
    ok = np.flatnonzero(np.isfinite(preds[:, 0]))
    train, test = np.empty((len(ok), 4)), np.empty((len(ok), 4))
    oob_sum, oob_n = np.zeros(engine.n), np.zeros(engine.n)
    for j, b in enumerate(ok):
        c = engine.counts(seeds[b])
        train[j] = _cells(q, preds[b], w * c)
        test[j] = _cells(q, preds[b], w)
        out = c == 0
        oob_sum += np.where(out, preds[b], 0.0)
        oob_n += out
    seen = oob_n > 0
    oob_cells = _cells(q[seen], oob_sum[seen] / oob_n[seen], w[seen])
    return (_cells(q, pred0, w), ok, train, test, oob_cells, int((~seen).sum()), errors,
            warned)


def _block_cells(engine, seeds, progress):
    """:func:`_replicate_cells` of a model fitted out of core: Poisson replicates refitted
    on the row blocks, then one more pass for every cell (the predictions stay there)."""
    draws = engine.refits.poisson_draws(seeds)
    fits, _ = engine.refits.fit_draws(draws, replicates=engine.replicates, k=engine.k,
                                      training_f=False, progress=progress, desc="validate")
    errors = [f"{type(e).__name__}: {e}" for e in fits.errors if e is not None]
    report("validate", len(seeds), errors, 0, {})
    ok = np.flatnonzero(np.all(np.isfinite(fits.design_coef), axis=1))
    app, train, test, oob, never = engine.refits.validation_cells(draws.take(ok),
                                                                  fits.design_coef[ok])
    return app, ok, train, test, oob, never, errors, {}


@dataclass(frozen=True, eq=False)
class ValidateResults(Persistable):
    """Result of :func:`validate`: apparent, optimism and corrected performance per measure.

    ``table`` has one row per measure (columns as in :meth:`tidy`); ``replicates`` the
    training and test value of every successful replicate.  Pickles.  Built by
    :func:`validate`, not constructed directly; the fields below are its record of the run.

    Parameters
    ----------
    table : DataFrame
        One row per measure (columns as in :meth:`tidy`).
    replicates : DataFrame
        The training and test value of every successful replicate.
    method : str
        The estimate reported as ``corrected`` (``"boot"``, ``".632"`` or ``".632+"``).
    B : int
        The number of replicates.
    n : int
        The number of training rows.
    n_failed : int
        Replicates whose refit failed.
    n_never_out : int
        Rows never out of bag (left out of the oob estimate).
    fast : bool
        Whether the weighted refit of the stored design was used.
    seeds : tuple
        The seed of every replicate (used by :meth:`counts`).
    replicate_warnings : dict
        Warning category -> number of replicates that raised it.
    model_call : ModelCall or str
        The model's recorded call (printed by ``summary()``); a str in files written before
        it was kept whole.
    random_state : str
        The ``repr`` of the ``random_state`` given.
    scheme : str
        ``"case"`` (rows drawn with replacement) or ``"poisson"`` (Poisson(1) frequency
        weights drawn on the row blocks of a model fitted out of core).
    replicate_method : str
        ``"kstep"`` or ``"full"`` refits of the stored design, or ``"refit"``.
    """

    table: pd.DataFrame
    replicates: pd.DataFrame
    method: str
    B: int
    n: int
    n_failed: int
    n_never_out: int
    fast: bool
    seeds: tuple = field(repr=False, default=())
    replicate_warnings: dict = field(default_factory=dict)
    model_call: ModelCall | str = ""
    random_state: str = "None"
    scheme: str = "case"
    replicate_method: str = "full"

    @property
    def corrected(self) -> pd.Series:
        """The corrected estimate of the chosen ``method`` per measure."""
        col = {"boot": "corrected_boot", ".632": "corrected_632", ".632+": "corrected_632plus"}
        return self.table[col[self.method]].rename("corrected")

    @property
    def apparent(self) -> pd.Series:
        """The apparent measures (the fit's on its own training rows), one per measure."""
        return self.table["apparent"]

    @property
    def optimism(self) -> pd.Series:
        """The estimated optimism of each measure (apparent minus test on the bootstrap
        samples)."""
        return self.table["optimism"]

    @public
    def counts(self, replicate: int) -> np.ndarray:
        """How often each training row appears in bootstrap sample ``replicate``.

        Parameters
        ----------
        replicate : int
            The replicate's index, 0 to B - 1.

        Returns
        -------
        numpy.ndarray
            One count per training row.
        """
        check_scalar("replicate", replicate, low=0, high=self.B - 1, integer=True)
        draws = (PoissonDraws(n=self.n) if self.scheme == "poisson" else
                 Draws(n=self.n, type="case", strata=None, q=None, trials=None))
        return draws.counts(self.seeds[replicate])

    def tidy(self) -> pd.DataFrame:
        """One row per measure: apparent, training, test, optimism, oob, no_information,
        overfit_rate, weight_632plus, the three corrected estimates (clipped to the
        measure's range [0, 1]), ``unclipped_boot`` (apparent - optimism before clipping),
        ``clipped`` (whether an estimate was clipped), ``optimism_mc`` (the Monte-Carlo
        standard error of the optimism: more replicates would shrink it), ``corrected`` (the
        chosen method) and ``n`` (successful replicates).

        Returns
        -------
        pandas.DataFrame
            One row per measure, as described above.
        """
        return self.table.assign(corrected=self.corrected,
                                 n=len(self.replicates)).reset_index()

    def summary(self) -> Summary:
        """The apparent, optimism and corrected estimates of every measure.

        Returns
        -------
        Summary
            The printable summary.
        """
        t = self.table
        show = pd.DataFrame({
            "apparent": t["apparent"], "training": t["training"], "test": t["test"],
            "optimism": t["optimism"], "MC error": t.get("optimism_mc", np.nan),
            "corrected (boot)": t["corrected_boot"],
            "oob": t["oob"], "no-info": t["no_information"],
            ".632": t["corrected_632"], ".632+": t["corrected_632plus"]}).map(
                lambda v: f"{v:.4f}")
        lines = [("Replicates", f"{len(self.replicates)} of {self.B} succeeded "
                                f"(rows n = {self.n})"),
                 ("Reported estimate", f"method = {self.method!r}"),
                 ("Refits", (f"{self.replicate_method} refits of the stored design "
                             "(weights x resample counts)") if self.fast
                  else "full refits from the formula"),
                 ("Resampling", "Poisson(1) frequency weights drawn on the row blocks (out "
                  "of core)" if self.scheme == "poisson" else "rows with replacement"),
                 ("random_state", self.random_state)]
        clipped = self.table.index[self.table.get("clipped", pd.Series(False, self.table.index))
                                   .astype(bool)]
        for name in clipped:
            lines.append((f"Clipped to [0, 1] ({name})", "apparent - optimism = "
                          f"{self.table.loc[name, 'unclipped_boot']:.4f}: the optimism exceeds "
                          "the apparent value"))
        if self.n_never_out:
            lines.append(("Rows never out of bag (left out of oob)", self.n_never_out))
        if self.replicate_warnings:
            lines.append(("Replicate warnings", ", ".join(
                f"{k} in {v}" for k, v in sorted(self.replicate_warnings.items()))))
        return Summary(title="Bootstrap validation of a fitted model (optimism-corrected)",
                       call=str(self.model_call),
                       sections=[Section("Performance of the predicted classes:", [], table=show),
                                 Section("Corrected:", [f"  {k}: {v:.4f}" for k, v in
                                                        self.corrected.items()]),
                                 Section("Details:", lines)])

    def __repr__(self) -> str:
        c = ", ".join(f"{k} {v:.4f}" for k, v in self.corrected.items())
        return f"<ValidateResults {self.method}, B = {self.B}: corrected {c}>"
