"""Resampling labels from q: the long-run deterministic F of a fitted model (thesis §9.2).

With probabilistic labels q_i, a "realisation" of the data draws Y_i ~ Bernoulli(q_i)
independently.  :func:`resample_f` draws B such label vectors (vectorised, in chunks) and
reports the deterministic F of the model's predicted classes on each, so that the mean and
spread of the F a user would see on such data can be read off.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from .._utils.boundary import public
from .. import measures as _m
from ..results import Persistable
from .._utils.validation import check_random_state, check_scalar, describe
from ..exceptions import InvalidArgumentError

__all__ = ["ResampleFResults", "ResampledF", "resample_f"]


@dataclass(frozen=True)
class ResampleFResults(Persistable):
    """F of fixed predictions on B label vectors drawn from q.

    Built by :func:`resample_f` (and :meth:`fmstats.MaxentResults.resample_f`).

    Parameters
    ----------
    values : ndarray
        The F of the predicted classes on each of the B label draws.
    measure : FMeasure
        The F-measure of ``values``.
    B : int
        The number of label vectors drawn.
    random_state : object
        The seed or generator the draws were made with, as given.
    n : int
        The number of rows (labels per draw).
    """

    values: np.ndarray
    measure: _m.FMeasure
    B: int
    random_state: object
    n: int

    @property
    def mean(self) -> float:
        """Mean of the resampled F."""
        return float(np.mean(self.values))

    @property
    def std(self) -> float:
        """Standard deviation (ddof = 1) of the resampled F."""
        return float(np.std(self.values, ddof=1))

    def quantiles(self, probs=(0.025, 0.5, 0.975)) -> pd.Series:
        """Quantiles of the resampled F, labelled in percent.

        Parameters
        ----------
        probs : sequence of float, default (0.025, 0.5, 0.975)
            The probabilities of the quantiles, in [0, 1].

        Returns
        -------
        pandas.Series
            One quantile per probability, indexed like ``'2.5%'``.
        """
        return pd.Series(np.quantile(self.values, probs), index=[f"{100 * p:g}%" for p in probs])

    def summary(self) -> pd.Series:
        """Mean, standard deviation and 2.5/50/97.5 % quantiles of the resampled F.

        Returns
        -------
        pandas.Series
            mean, sd and the three quantiles.
        """
        out = pd.Series({"mean": self.mean, "std": self.std})
        return pd.concat([out, self.quantiles()]).rename(f"{self.measure.name} over {self.B} draws")

    def __repr__(self) -> str:
        q = self.quantiles()
        return (f"<ResampleFResults {self.measure.name}: mean {self.mean:.4f}, sd {self.std:.4f}, "
                f"95% range [{q.iloc[0]:.4f}, {q.iloc[2]:.4f}] over B = {self.B} label draws "
                f"of n = {self.n} rows>")

    def plot(self, ax=None):
        """Histogram of the resampled F with its mean.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            The axes to draw on (default: a new figure's).

        Returns
        -------
        matplotlib.figure.Figure
            The figure drawn on.
        """
        from ..plotting import new_axes, finish_figure

        fig, ax = new_axes(ax)
        ax.hist(self.values, bins=min(50, max(10, self.B // 20)), color="tab:blue", alpha=0.7)
        ax.axvline(self.mean, color="black", linestyle="--", label=f"mean {self.mean:.3f}")
        ax.set_xlabel(f"{self.measure.name} of the predicted classes")
        ax.set_ylabel("label draws (count)")
        ax.set_title(f"{self.measure.name} over B = {self.B} label draws from q",
                     fontsize="medium")
        ax.legend(fontsize="small")
        return finish_figure(fig)


@public
def resample_f(results, newdata: pd.DataFrame | None = None, *, B: int = 1000,
               random_state=None, measure=None, beta=None, alpha=None,
               threshold: float | None = None, max_cells: int = 10_000_000) -> ResampleFResults:
    """Deterministic F of a fitted model's predicted classes on B label draws from q.

    Parameters
    ----------
    results : MaxentResults
        A fitted maxent, umaxent or fmaxent model.
    newdata : DataFrame, optional
        Data with the response column (q, 0/1 labels or ``cbind`` votes); default the
        training rows (weighted by the prior weights).
    B : int, default 1000
        Number of label vectors drawn, each Y_i ~ Bernoulli(q_i) independently.
    random_state : int or numpy.random.Generator, optional
        Seed or numpy Generator (results are reproducible with the same seed).
    measure : FMeasure, optional
        The F-measure (default: the model's); give at most one of ``measure``, ``beta`` and
        ``alpha``.
    beta, alpha : float, optional
        The F-measure by its beta, or by its weight on precision alpha (default: the
        model's).
    threshold : float, optional
        Class threshold (default: the model's).
    max_cells : int, default 10_000_000
        Draws are made in chunks of at most this many B x n cells (an integer of at least n:
        one label vector).

    Returns
    -------
    ResampleFResults
        The B values of F with their quantiles and summary.

    Examples
    --------
    >>> import fmstats as fm
    >>> d = fm.datasets.make_thesis_noisy_data("A", random_state=1)
    >>> fit = fm.umaxent("q ~ x1 + x2", d[d.split == "train"])
    >>> fit_f = fm.resample_f(fit, d[d.split == "test"], B=200, random_state=0)
    >>> fit_f  # doctest: +ELLIPSIS
    <ResampleFResults F1: mean 0.6629, sd 0.0360, 95% range [0.5930, ...>
    """
    check_scalar("B", B, low=2, integer=True)
    needed = ("core_fit", "X", "y", "aliased", "threshold", "prior_weights", "spec", "fmeasure")
    if any(not hasattr(results, a) for a in needed) or not hasattr(results.core_fit, "coef"):
        raise InvalidArgumentError(
            "`results` must be a fitted maxent, umaxent or fmaxent model: resample_f() "
            "classes rows by the model's probabilities, and "
            f"{describe(results)} has none (an SVM's response is its class). Use "
            "fm.bootstrap() for other models.")
    rng = check_random_state(random_state)
    fm = results.fmeasure if (measure is None and beta is None and alpha is None) \
        else _m.as_fmeasure(measure, beta=beta, alpha=alpha)
    t = results.threshold if threshold is None else check_scalar("threshold", threshold, low=0,
                                                                 high=1)
    if newdata is None:
        q, X, w = results.y, results.X, results.prior_weights
        off = results.training.offset
    else:
        resp, Xn, index = results.spec.build_with_response(newdata, missing="drop")
        q, X, w = resp.y, Xn[:, ~results.aliased], np.ones(len(resp.y))
        off = results.training.offset_of(results, newdata, index)
    eta = X @ results.core_fit.coef
    pred = (expit(eta if off is None else eta + off) >= t).astype(float)
    wp = w * pred
    n = len(q)
    check_scalar("max_cells", max_cells, low=1, integer=True)
    if max_cells < n:
        raise InvalidArgumentError(
            f"`max_cells` must be at least the number of rows n = {n} (one label vector of "
            f"B x n cells per chunk at the least); got {max_cells}.")
    chunk = max(1, min(int(B), max_cells // max(n, 1)))
    values = np.empty(int(B))
    done = 0
    while done < B:
        b = min(chunk, int(B) - done)
        Y = rng.random((b, n)) < q          # one label vector per row of Y
        tp = Y @ wp
        pos = Y @ w
        values[done:done + b] = fm.from_counts(tp, wp.sum() - tp, pos - tp)
        done += b
    return ResampleFResults(values=values, measure=fm, B=int(B), random_state=random_state, n=n)


#: The name of :class:`ResampleFResults` before results classes were named after the
#: function that makes them (:func:`resample_f`); kept for code and results files.
ResampledF = ResampleFResults
