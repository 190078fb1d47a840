"""Chapter 8 of the thesis (seed 004) on vignette 03's draws, shared by the vignette and tests.

Vignette 03 states numbers in prose about its one draw of A1, A2, B1, B2; the reproduction
test ``tests/test_reproduce_004_thesis.py`` computes them with these functions.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.progress import progress_bar, progress_enabled
from .._utils.validation import describe
from ..datasets import make_thesis_svm_data
from ..exceptions import InvalidArgumentError
from .._utils.parallel import reemit
from ..model_selection import CvTuneResults
from ..svm import DEFAULT_A_GRID, tune_fsvm, tune_wsvm, wsvm

__all__ = ["THESIS_ALPHAS", "CHAPTER8_MODELS", "chapter8", "plot_chapter8", "VIGNETTE_NAMES",
           "vignette_data", "vignette_chapter8", "fsvm_minus_wsvm"]

#: The F-measure weights of the R code (its ``betaSeq``: our alpha, the weight on precision).
THESIS_ALPHAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: The three classifiers of chapter 8, as named in the ``model`` column of :func:`chapter8`.
CHAPTER8_MODELS = ("wsvm, CV F", "fsvm, CV F", "wsvm, CV accuracy")


def _alpha(a) -> float:
    """An F-measure weight in (0, 1), as tune_fsvm requires."""
    alpha = _m.FMeasure(alpha=a).alpha
    if not alpha < 1:
        raise InvalidArgumentError(f"`alphas` must lie in (0, 1); got {a!r}.")
    return alpha

#: The four designs of §8.1, in the order of the vignette (draw 8 + index).
VIGNETTE_NAMES = ("A1", "A2", "B1", "B2")


def vignette_data(names=VIGNETTE_NAMES) -> dict:
    """``{name: (train, test)}`` of vignette 03: ``make_thesis_svm_data(name, 8 + i)``."""
    out = {}
    for name in names:
        d = make_thesis_svm_data(name, random_state=8 + VIGNETTE_NAMES.index(name))
        out[name] = (d[d.split == "train"], d[d.split == "test"])
    return out


def vignette_chapter8(names=VIGNETTE_NAMES, alphas=THESIS_ALPHAS, *, n_values: int = 12,
                      n_jobs: int = 1, fsvm_args=None) -> pd.DataFrame:
    """``chapter8`` on vignette 03's draws (2 folds, fold seed 1), one frame with ``dataset``."""
    parts = []
    for name, (train, test) in vignette_data(names).items():
        parts.append(chapter8("y ~ x1 + x2", train, test, alphas=alphas, n_values=n_values,
                              cv=2, random_state=1, n_jobs=n_jobs, fsvm_args=fsvm_args or {},
                              progress=False).assign(dataset=name))
    return pd.concat(parts, ignore_index=True)


def fsvm_minus_wsvm(results: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and data part: mean, min and max over alpha of F(F-SVM) - F(F-tuned wSVM).

    Also ``accuracy_svm_f_max``: the largest F of the accuracy-tuned weighted SVM.
    """
    t = results.pivot_table(index=["dataset", "data", "alpha"], columns="model", values="f",
                            sort=False)
    diff = (t["fsvm, CV F"] - t["wsvm, CV F"]).groupby(level=["dataset", "data"], sort=False)
    out = diff.agg(["mean", "min", "max"])
    out["accuracy_svm_f_max"] = t["wsvm, CV accuracy"].groupby(
        level=["dataset", "data"], sort=False).max()
    return out


def _fold_counts(res: CvTuneResults) -> np.ndarray:
    """(grid points, folds, 4) confusion counts of a cv_tune run (NaN for failed fits)."""
    t = res.fold_results
    return t[["tp", "fp", "fn", "tn"]].to_numpy(dtype=float).reshape(len(res.tidy()),
                                                                     len(res.folds), 4)


def _best_by_f(counts: np.ndarray, fm: _m.FMeasure, pooling: str) -> tuple[int, float]:
    """The grid point cv_tune would choose with criterion F at ``fm``: (index, CV F).

    The fold fits of the weighted SVM do not depend on the criterion, so their counts
    are judged again at every alpha instead of being refitted.
    """
    ok = ~np.isnan(counts[..., 0]).any(axis=1)
    f = _m.pooled_f(np.nan_to_num(np.moveaxis(counts, 1, 0)), fm.alpha, pooling)
    score = np.where(ok, f, np.nan)
    best = _m.best_position(score)
    return best, float(score[best])


def _rows(alpha, model, fit, train, test, params, cv_f, cv_acc) -> list[dict]:
    fm = _m.FMeasure(alpha=alpha)
    base = {"alpha": alpha, "beta": fm.beta, "model": model, "C_pos": np.nan, "C_neg": np.nan,
            "a": np.nan, "C": np.nan, **params, "cv_f": cv_f, "cv_accuracy": cv_acc}
    return [{**base, "data": name, "f": fit.measure(d, measure=fm)}
            for name, d in (("train", train), ("test", test))]


def chapter8(formula: str, train: pd.DataFrame, test: pd.DataFrame, alphas=THESIS_ALPHAS, *,
             grid=None, n_values: int = 20, a_grid=DEFAULT_A_GRID, C: float | None = None,
             cv=2, pooling: str = "tp_fp", n_jobs=None, random_state=None, progress=None,
             fsvm_args: dict | None = None) -> pd.DataFrame:
    """The experiment of the thesis's chapter 8: three SVMs' training and test F against alpha.

    For every alpha (the weight on precision; the thesis's beta):

    * ``"wsvm, CV F"``: the weighted SVM with (C_pos, C_neg) chosen by pooled CV
      F_tp,fp at alpha over the grid (:func:`tune_wsvm`);
    * ``"fsvm, CV F"``: the F-measure SVM at alpha with C = m+ and a chosen by pooled
      CV F at alpha over ``a_grid`` (:func:`tune_fsvm`);
    * ``"wsvm, CV accuracy"``: the weighted SVM with the costs chosen by CV accuracy
      (the same classifier for every alpha; the thesis's baseline).

    All three use the same folds (drawn once from ``random_state``), as the R code
    does.  The weighted SVM's grid is fitted once: its fold fits do not depend on
    alpha, so their confusion counts are judged again at every alpha (the choice is
    the one :func:`tune_wsvm` makes at that alpha).

    Parameters
    ----------
    formula : e.g. ``"y ~ x1 + x2"``; train, test : DataFrames (the model is fitted on
        ``train``; ``test`` is only predicted).
    alphas : the F-measure weights (default 0.1, ..., 0.9 as in the R code).
    grid, n_values : the (C_pos, C_neg) grid (default :func:`thesis_grid` with 20 values).
    a_grid, C : the F-measure SVM's grid over a (default :data:`DEFAULT_A_GRID`; the
        thesis's is :data:`THESIS_A_GRID`) and its C (default m+ of ``train``).
    cv, pooling, n_jobs, random_state, progress : as in :func:`tune_wsvm`.
    fsvm_args : further arguments of :func:`~fmstats.svm.fsvm` (e.g. ``method``,
        ``maxeval``).

    Returns
    -------
    DataFrame
        One row per (alpha, model, data): alpha, beta, model, C_pos, C_neg (weighted
        SVMs), a, C (F-measure SVM), cv_f (pooled CV F at alpha of the chosen point),
        cv_accuracy, data (``"train"``/``"test"``), f (F at alpha of the classifier
        fitted on ``train``).  Plot it with :func:`plot_chapter8`.
    """
    fsvm_args = dict(fsvm_args or {})
    if "C" in fsvm_args:     # tune_fsvm checks the others
        raise InvalidArgumentError("`C` cannot be passed in `fsvm_args`: it is chapter8's own "
                                   "argument.")
    alphas = [_alpha(a) for a in np.atleast_1d(alphas)]
    show = progress_enabled(progress)
    acc = tune_wsvm(formula, train, alpha=alphas[0], criterion="accuracy", grid=grid,
                    n_values=n_values, cv=cv, pooling=pooling, n_jobs=n_jobs,
                    random_state=random_state, progress=progress)
    table = acc.tidy()
    points = table[acc.param_names].to_dict("records")
    counts = _fold_counts(acc)
    wsvm_fits = {}
    out = []
    steps = alphas
    if show:
        steps = progress_bar(alphas, desc="chapter8: fsvm over alpha")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for alpha in steps:
            out += _chapter8_alpha(alpha, formula, train, test, counts, points, table, acc,
                                   wsvm_fits, a_grid=a_grid, C=C, pooling=pooling,
                                   n_jobs=n_jobs, fsvm_args=fsvm_args)
    reemit([(w.category, str(w.message)) for w in caught], len(alphas),
           "F-measure SVM tunings of chapter8 (one per alpha)")
    cols = ["alpha", "beta", "model", "data", "f", "cv_f", "cv_accuracy", "C_pos", "C_neg", "a",
            "C"]
    return pd.DataFrame(out)[cols]


def _chapter8_alpha(alpha, formula, train, test, counts, points, table, acc, wsvm_fits, *,
                    a_grid, C, pooling, n_jobs, fsvm_args) -> list[dict]:
    """The rows of :func:`chapter8` for one alpha (``wsvm_fits`` caches refits by costs)."""
    fm = _m.FMeasure(alpha=alpha)
    best, cv_f = _best_by_f(counts, fm, pooling)
    key = tuple(sorted(points[best].items()))
    if key not in wsvm_fits:
        wsvm_fits[key] = wsvm(formula, train, **points[best])
    out = _rows(alpha, CHAPTER8_MODELS[0], wsvm_fits[key], train, test, points[best], cv_f,
                float(table["accuracy"].iloc[best]))
    tuned = tune_fsvm(formula, train, alpha=alpha, a_grid=a_grid, C=C, cv=acc.folds,
                      pooling=pooling, n_jobs=n_jobs, progress=False, **fsvm_args)
    b = tuned.tidy().iloc[tuned.best_index]
    out += _rows(alpha, CHAPTER8_MODELS[1], tuned.best_model, train, test,
                 {"a": tuned.best_params["a"], "C": tuned.best_model.C}, float(b["f"]),
                 float(b["accuracy"]))
    _, acc_f = _best_by_f(counts[[acc.best_index]], fm, pooling)
    out += _rows(alpha, CHAPTER8_MODELS[2], acc.best_model, train, test, acc.best_params, acc_f,
                 acc.best_score)
    return out


def plot_chapter8(table: pd.DataFrame, axes=None, title: str | None = None):
    """The thesis's figures 8.1-8.4: F against alpha on the training and the test set.

    ``table`` is the output of :func:`chapter8`; ``axes`` a pair of matplotlib axes
    (default a new 1 x 2 figure).  Returns the figure.
    """
    from ..plotting import finish_figure, pyplot

    need = {"alpha", "model", "data", "f"}
    if not isinstance(table, pd.DataFrame) or not need <= set(table.columns):
        raise InvalidArgumentError(f"`table` must be the DataFrame of chapter8() (columns "
                                   f"{', '.join(sorted(need))}); got {describe(table)}.")
    if axes is None:
        fig, axes = pyplot().subplots(1, 2, figsize=(9.0, 3.4), sharey=True)
    elif len(axes) != 2:
        raise InvalidArgumentError(f"`axes` must be two axes (training, test); got "
                                   f"{describe(axes)}.")
    fig = axes[0].figure
    styles = dict(zip(CHAPTER8_MODELS, (("tab:blue", "-"), ("tab:red", "-"), ("black", "--"))))
    for ax, name in zip(axes, ("train", "test")):
        for model, part in table[table["data"] == name].groupby("model", sort=False):
            colour, ls = styles.get(model, (None, "-"))
            ax.plot(part["alpha"], part["f"], ls, color=colour, marker=".", label=model)
        ax.set_xlabel("alpha (weight on precision; the thesis's beta)")
        ax.set_title(f"{'Training' if name == 'train' else 'Test'} set"
                     + (f": {title}" if title else ""), fontsize="medium")
        ax.set_ylabel("F")
    axes[0].legend(fontsize="small")
    return finish_figure(fig)
