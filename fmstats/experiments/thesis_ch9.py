"""The thesis's chapter-9 experiments as functions (seed 004): the claims measured over seeds.

Used by vignette 02 and by ``tests/test_reproduce_004_thesis.py`` so that the numbers the
vignette states in prose are the numbers the test asserts.

* :func:`chapter9_gains` fits the unweighted uncertain maxent and the noisy-F maximiser on
  fresh draws of data A and B (1000 training and 100 test rows, as in §9.1) for every alpha
  of 0.05, ..., 0.95, with the plug-in maximiser's mean F over label draws from q (Figs.
  9.2-9.7), and returns one row per (data, seed, alpha) with the gains.
* :func:`claim_fractions` turns those rows into the share of alpha where the maximiser
  gains, per claim, data set and seed.
* :func:`thesis_inner_loop` re-implements the thesis's R loop of Fig. 9.9 (appendix code):
  every outer iteration calls ``glm`` with the new weights and *no* start values, so with
  ``maxit = 1`` each iterate is a single IRLS step from glm's default start
  (mustart = (w y + 0.5) / (w + 1)), not from the previous coefficients.  It is a small
  numpy re-implementation, independent of :mod:`fmstats.maxent_models._fmaxent`, so the comparison with
  ``fmaxent(inner="step")`` (one step from a warm start) is meaningful.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..datasets import make_thesis_noisy_data
from ..glm import noisy_f_weights
from ..maxent_models import umaxent

__all__ = ["ALPHAS", "chapter9_gains", "claim_fractions", "titanic_split", "TITANIC_FORMULA",
           "sweep_gains", "thesis_inner_loop", "inner_comparison"]

#: The thesis's Titanic model (§9.1): class, sex, their interaction, age, siblings/spouses.
TITANIC_FORMULA = "q ~ C(pclass) * sex + age + sibsp"

#: The alpha grid of the chapter-9 sweeps (fmstats' ``sweep`` default).
ALPHAS = tuple(float(a) for a in np.round(np.arange(0.05, 0.951, 0.05), 2))


def chapter9_gains(names=("A", "B"), seeds=(2014,), alphas=ALPHAS, *, B: int = 200,
                   resample_seed: int = 1) -> pd.DataFrame:
    """Gains of the maximisers over the unweighted uncertain maxent, per (data, seed, alpha).

    Columns: ``data``, ``seed``, ``alpha``, ``train_gain`` and ``test_gain`` (noisy F of
    ``fmaxent(method="noisy")`` minus that of ``umaxent`` on the training and the test
    rows, Figs. 9.2/9.3, 9.5/9.6), ``resample_gain`` (mean F over ``B`` label draws from
    the training q of the plug-in maximiser minus that of ``umaxent``, Figs. 9.4/9.7) and
    ``best_iteration`` (the outer iteration the noisy maximiser returned, Fig. 9.8).
    """
    from ..maxent_models import fmaxent

    rows = []
    for name in names:
        for seed in seeds:
            d = make_thesis_noisy_data(name, random_state=seed)
            tr, te = d[d.split == "train"], d[d.split == "test"]
            base = umaxent("q ~ x1 + x2", tr)
            for a in alphas:
                fit = fmaxent("q ~ x1 + x2", tr, alpha=a)
                plug = fmaxent("q ~ x1 + x2", tr, alpha=a, method="plugin")
                r_plug = plug.resample_f(B=B, random_state=resample_seed, alpha=a).mean
                r_base = base.resample_f(B=B, random_state=resample_seed, alpha=a).mean
                rows.append(dict(
                    data=name, seed=seed, alpha=a,
                    train_gain=fit.noisy_f(alpha=a) - base.noisy_f(alpha=a),
                    test_gain=fit.noisy_f(te, alpha=a) - base.noisy_f(te, alpha=a),
                    resample_gain=r_plug - r_base, best_iteration=fit.best_iteration))
    return pd.DataFrame(rows)


def claim_fractions(gains: pd.DataFrame, tol: float = 1e-4) -> pd.DataFrame:
    """Share of alpha with a gain above ``tol``, per data set and seed (one column per claim)."""
    cols = ["train_gain", "test_gain", "resample_gain"]
    return (gains.assign(**{c: gains[c] > tol for c in cols})
            .groupby(["data", "seed"])[cols].mean())


def titanic_split(random_state: int = 9):
    """Vignette 02's Titanic data (Figs. 9.10-9.11): complete rows, Beta label noise ``q``.

    ``thesis_label_noise(survived, random_state)`` blurs the labels; 246 rows drawn with
    the same seed are the test set.  Returns ``(train, test)``.
    """
    from ..datasets import thesis_label_noise, titanic_complete

    titanic = titanic_complete()
    titanic["q"] = thesis_label_noise(titanic["survived"], random_state=random_state)
    rng = np.random.default_rng(random_state)
    is_test = np.zeros(len(titanic), bool)
    is_test[rng.choice(len(titanic), size=246, replace=False)] = True
    return titanic[~is_test], titanic[is_test]


def sweep_gains(table: pd.DataFrame, value: str = "noisy_f") -> pd.DataFrame:
    """From a :func:`fmstats.sweep` table: ``fmaxent - baseline`` of ``value`` per data, alpha."""
    wide = table.pivot_table(index=["data", "alpha"], columns="model", values=value)
    return (wide["fmaxent"] - wide["baseline"]).unstack("data")


# ----------------------------------------------------------------------------- Fig. 9.9

def _noisy_f(q, p, alpha):
    tp = np.minimum(q, p).sum()
    return tp / (alpha * p.sum() + (1 - alpha) * q.sum())


def _glm_steps(X, q, w, maxit):
    """R's ``glm(cbind-doubled data, weights = w * q / w * (1 - q))`` started from mustart.

    The thesis doubles the rows (response 1 with weight w q, response 0 with weight
    w (1 - q)); glm's binomial start is mustart = (weight y + 0.5) / (weight + 1) per row.
    Then ``maxit`` IRLS steps.
    """
    Xd = np.vstack([X, X])
    y = np.r_[np.ones(len(q)), np.zeros(len(q))]
    pw = np.r_[w * q, w * (1 - q)]
    mu = (pw * y + 0.5) / (pw + 1)
    eta = np.log(mu / (1 - mu))
    coef = None
    for _ in range(maxit):
        var = mu * (1 - mu)
        z = eta + (y - mu) / var
        ww = pw * var
        coef = np.linalg.solve(Xd.T @ (ww[:, None] * Xd), Xd.T @ (ww * z))
        eta = Xd @ coef
        mu = 1 / (1 + np.exp(-eta))
    return coef


def thesis_inner_loop(X, q, alpha: float, *, maxit: int, its: int = 100,
                      bounds=(1e-6, 10.0), epsilon: float = 0.01):
    """The thesis's outer loop with a cold-started ``glm(maxit=maxit)`` per iteration.

    Weights: the smoothed noisy-F weights (7.1) of fmstats (width ``epsilon``) clipped to
    ``bounds`` as in the R code.  The loop stops when the noisy F changes by < 1e-8 or after
    ``its`` iterations, and — like the R code — keeps the *last* iterate.  Returns
    ``(noisy F of the last iterate, best noisy F over the iterates, iterations)``.
    """
    from ..glm import smoothed_noisy_counts

    X = np.asarray(X, float)
    q = np.asarray(q, float)
    w = np.ones(len(q))
    path = []
    for k in range(its):
        coef = _glm_steps(X, q, w, maxit)
        p = 1 / (1 + np.exp(-(X @ coef)))
        path.append(_noisy_f(q, p, alpha))
        if k > 0 and abs(path[-1] - path[-2]) < 1e-8:
            break
        tp, _, f = smoothed_noisy_counts(q, p, np.ones_like(q), alpha, epsilon)
        w = np.clip(noisy_f_weights(q, p, f, tp, alpha, epsilon=epsilon), *bounds)
    return path[-1], max(path), len(path)


def inner_comparison(name: str = "B", seed: int = 2014, alphas=ALPHAS[::2]) -> pd.DataFrame:
    """Training noisy F per alpha: fmstats' warm ``inner="step"|"full"`` and the thesis's cold loop.

    Columns ``warm_step``, ``warm_full`` (``fmaxent``), ``cold_maxit1`` and ``cold_maxit25``
    (:func:`thesis_inner_loop`, last iterate, as the thesis plots).
    """
    from ..maxent_models import fmaxent

    d = make_thesis_noisy_data(name, random_state=seed)
    tr = d[d.split == "train"]
    X = np.column_stack([np.ones(len(tr)), tr["x1"], tr["x2"]])
    q = tr["q"].to_numpy(float)
    rows = []
    for a in alphas:
        row = {"alpha": a}
        for inner in ("step", "full"):
            r = fmaxent("q ~ x1 + x2", tr, alpha=a, inner=inner, max_outer=300)
            row[f"warm_{inner}"] = r.noisy_f(alpha=a)
        for maxit in (1, 25):
            row[f"cold_maxit{maxit}"] = thesis_inner_loop(X, q, a, maxit=maxit)[0]
        rows.append(row)
    return pd.DataFrame(rows)
