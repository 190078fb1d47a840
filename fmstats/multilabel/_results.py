"""The results of :func:`fmstats.multilabel.br` and :func:`fmstats.multilabel.pcc`: marginals,
sampled label vectors and their inference for the instance-wise F-measure."""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd
from scipy.special import expit
from threadpoolctl import threadpool_limits

from ..results import Persistable
from .._utils.validation import check_random_state, check_scalar
from ..exceptions import (
    InvalidArgumentError,
)
from ..formula import check_frame
from ._inference import estimate_P, gfm, gfm_threshold, hamming

from ._checks import (EXACT_MAX_LABELS, SAMPLE_BLOCK, check_inference,
                      check_n_samples, feature_matrix)
from .._utils.boundary import public

__all__ = ["MultilabelResults", "BRResults", "PCCResults", "br_infer", "samples_infer"]


# ----------------------------------------------------------------------------------------
# inference shared by the two models
# ----------------------------------------------------------------------------------------
def _independent():
    from . import _independent as module

    return module


def _infer_marginals(marg: np.ndarray, inference: str, beta: float) -> np.ndarray:
    """The marginal-based rules."""
    if inference == "hamming":
        return hamming(marg)
    ind = _independent()
    if inference == "meuf":
        return ind.meuf(marg, exact=True, beta=beta)[0]
    if inference == "meuf-approx":
        return ind.meuf(marg, exact=False, beta=beta)[0]
    if inference == "lewis":
        return ind.lewis(marg, beta=beta)
    raise AssertionError(inference)  # pragma: no cover


def _infer_joint(P: np.ndarray, p0: np.ndarray, inference: str, beta: float) -> np.ndarray:
    if inference == "gfm":
        return gfm(P, p0, beta=beta)[0]
    return gfm_threshold(P, p0, beta=beta)[0]


def _frame(H: np.ndarray, labels, index) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(H, dtype=np.int64), index=index, columns=list(labels))


class MultilabelResults(Persistable):
    """What BR and PCC share: the fitted per-label logistic models and their settings.

    Attributes
    ----------
    labels, features : the label and feature column names (the chain order for PCC).
    coef : DataFrame (terms x labels) of the coefficients on the *standardised* scale;
        terms are ``(Intercept)``, the features and, for PCC, the labels (zero for labels
        that are not parents in the chain).
    center, scale : training means and standard deviations of the features.
    penalty : Series, the ridge penalty (per row) used for each label.
    cv_loss : DataFrame (labels x penalty grid) of cross-validated mean log-loss, or None.
    converged, separated : Series of flags of the final fits.
    n_obs : number of training rows.
    """

    model = ""

    def __init__(self, *, labels, features, coef, center, scale, label_center, label_scale,
                 penalty, grid, cv_loss, converged, separated, n_obs, settings, call):
        self.labels = list(labels)
        self.features = list(features)
        self._coef = np.asarray(coef, dtype=float)
        self.center = np.asarray(center, dtype=float)
        self.scale = np.asarray(scale, dtype=float)
        self.label_center = None if label_center is None else np.asarray(label_center, float)
        self.label_scale = None if label_scale is None else np.asarray(label_scale, float)
        self.penalty = pd.Series(penalty, index=self.labels, name="penalty")
        self.grid = grid
        self.cv_loss = None if cv_loss is None else pd.DataFrame(
            cv_loss, index=self.labels, columns=pd.Index(grid, name="penalty"))
        self.converged = pd.Series(converged, index=self.labels, name="converged")
        self.separated = pd.Series(separated, index=self.labels, name="separated")
        self.n_obs = int(n_obs)
        self.settings = settings
        self.call = call

    # -- descriptive ------------------------------------------------------------------
    @property
    def n_labels(self) -> int:
        """The number of labels."""
        return len(self.labels)

    def _terms(self) -> list[str]:
        return ["(Intercept)"] + self.features

    @cached_property
    def coef(self) -> pd.DataFrame:
        """The coefficients, terms by labels (standardised scale)."""
        return pd.DataFrame(self._coef, index=self._terms(), columns=self.labels)

    def tidy(self) -> pd.DataFrame:
        """Long table: label, term, estimate (standardised scale), penalty.

        Returns
        -------
        pandas.DataFrame
            One row per label and term.
        """
        c = self.coef
        out = c.stack().rename("estimate").reset_index()
        out.columns = ["term", "label", "estimate"]
        out["penalty"] = out["label"].map(self.penalty)
        return out[["label", "term", "estimate", "penalty"]]

    def __repr__(self) -> str:
        how = ("fixed" if self.cv_loss is None
               else f"chosen by {self.settings['cv']}-fold CV on log-loss" if isinstance(
                   self.settings["cv"], int) else "chosen by CV on log-loss")
        lam = self.penalty
        return (f"<{type(self).__name__}: {self.model}, {self.n_labels} labels, "
                f"{len(self.features)} features, {self.n_obs} rows; ridge penalty {how} "
                f"(range {lam.min():.3g} .. {lam.max():.3g})>")

    def refit(self, data) -> "MultilabelResults":
        """The same model with the same settings on other data: the recorded call again.

        Parameters
        ----------
        data : DataFrame
            The data to fit, with the columns the formula names.

        Returns
        -------
        MultilabelResults
            The model fitted to ``data``.
        """
        return self.call.refit(data)

    # -- prediction helpers ----------------------------------------------------------
    def _design(self, newdata) -> tuple[np.ndarray, pd.Index]:
        newdata = check_frame(newdata, "newdata")
        X = feature_matrix(newdata, self.features, "newdata")
        return (X - self.center) / self.scale, newdata.index

    def _base_eta(self, Z: np.ndarray) -> np.ndarray:
        """The feature part of every label's linear predictor, (n, m)."""
        p = len(self.features)
        return self._coef[0] + Z @ self._coef[1: 1 + p]


class BRResults(MultilabelResults):
    """Binary relevance fit (see :func:`br` and :class:`MultilabelResults`).

    Under BR the labels are independent given x, so its joint distribution is known exactly
    from the marginals: ``predict`` uses the exact GFM parameters of the independent model
    (``independent_P``) instead of a Monte Carlo estimate unless ``n_samples`` is given.

    Built by :func:`br`, not directly.

    Parameters
    ----------
    labels, features : list of str
        The label and feature column names.
    coef : numpy.ndarray
        Coefficients (terms x labels) on the standardised scale.
    center, scale : numpy.ndarray
        Training means and standard deviations of the features.
    label_center, label_scale : numpy.ndarray or None
        Training means and standard deviations of the labels (None for BR, whose models
        do not use them).
    penalty : numpy.ndarray
        The ridge penalty (per row) used for each label.
    grid : numpy.ndarray or None
        The penalty grid of the cross-validation (None with a fixed penalty).
    cv_loss : numpy.ndarray or None
        Cross-validated mean log-loss (labels x penalty grid), or None.
    converged, separated : numpy.ndarray of bool
        Flags of the final fits, one per label.
    n_obs : int
        Number of training rows.
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, the penalty
        grid and the folds.
    call : ModelCall
        The recorded call (printed by the results, rerun by ``refit``).
    """

    model = "binary relevance"

    @public
    def predict_marginals(self, newdata) -> pd.DataFrame:
        """p(y_j = 1 | x) for every label: DataFrame (newdata index x labels).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.

        Returns
        -------
        pandas.DataFrame
            The marginals, newdata index x labels.
        """
        marg, index = self._marginals(newdata)
        return pd.DataFrame(marg, index=index, columns=self.labels)

    def _marginals(self, newdata) -> tuple[np.ndarray, pd.Index]:
        Z, index = self._design(newdata)
        return expit(self._base_eta(Z)), index

    @public
    def sample(self, newdata, n_samples: int = 200, random_state=None) -> np.ndarray:
        """Label vectors drawn from the model: independent Bernoulli draws, (n, S, m) int8.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).
        n_samples : int, default 200
            Label vectors S drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        numpy.ndarray
            The draws, shape (n, S, m), int8.
        """
        S = check_n_samples(n_samples)
        rng = check_random_state(random_state)
        marg, _ = self._marginals(newdata)
        return _bernoulli(marg, S, rng)

    @public
    def predict(self, newdata, inference: str = "gfm", n_samples=None, random_state=None,
                beta: float = 1.0) -> pd.DataFrame:
        """0/1 predictions (DataFrame, newdata index x labels) by the chosen inference.

        ``inference`` is one of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``,
        ``"meuf-approx"``, ``"lewis"``.  With ``n_samples=None`` (default) every method
        uses the exact distribution of the model: the marginals, and for GFM / GFM-T the
        matrix P and p0 of independent labels (``independent_P``), so that GFM, GFM-T and
        exact MEUF coincide up to ties.  With an integer ``n_samples`` P, p0 and the
        marginals are estimated from that many independent draws per instance instead.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        inference : str, default "gfm"
            One of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``, ``"meuf-approx"``,
            ``"lewis"``.
        n_samples : int, optional
            None (default) for the exact distribution, or the number of draws per
            instance to estimate it from.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws (with ``n_samples``).
        beta : float, default 1.0
            The beta of the F-measure maximised (>= 0).

        Returns
        -------
        pandas.DataFrame
            The 0/1 predictions, newdata index x labels.
        """
        inference = check_inference(inference)
        check_scalar("beta", beta, low=0)
        if n_samples is not None:
            n_samples = check_n_samples(n_samples)
        marg, index = self._marginals(newdata)
        H = br_infer(marg, inference, n_samples, random_state, beta)
        return _frame(H, self.labels, index)


def _bernoulli(marg: np.ndarray, S: int, rng: np.random.Generator) -> np.ndarray:
    n, m = marg.shape
    return (rng.random((n, S, m)) < marg[:, None, :]).astype(np.int8)


def br_infer(marg, inference, n_samples, random_state, beta):
    if n_samples is not None:
        samples = _bernoulli(marg, n_samples, check_random_state(random_state))
        return samples_infer(samples, inference, beta)
    if inference in ("gfm", "gfm-t"):
        P, p0 = _independent().independent_P(marg)
        return _infer_joint(P, p0, inference, beta)
    return _infer_marginals(marg, inference, beta)


def samples_infer(samples, inference, beta):
    if inference in ("gfm", "gfm-t"):
        P, p0 = estimate_P(samples)
        return _infer_joint(P, p0, inference, beta)
    return _infer_marginals(samples.mean(axis=1), inference, beta)


class PCCResults(MultilabelResults):
    """Probabilistic classifier chain fit (see :func:`pcc` and :class:`MultilabelResults`).

    The chain's joint distribution is reached through ancestral sampling (:meth:`sample`):
    ``predict`` estimates P, p0 (for GFM, GFM-T) and the marginals (for the other rules)
    from one sample of ``n_samples`` label vectors per instance, as in the paper.
    :meth:`exact_P` enumerates all 2^m label vectors instead (small m only).

    Built by :func:`pcc`, not directly.

    Parameters
    ----------
    labels, features : list of str
        The label and feature column names (the labels in the chain order).
    coef : numpy.ndarray
        Coefficients (terms x labels) on the standardised scale.
    center, scale : numpy.ndarray
        Training means and standard deviations of the features.
    label_center, label_scale : numpy.ndarray or None
        Training means and standard deviations of the labels, inputs of the later models
        of the chain.
    penalty : numpy.ndarray
        The ridge penalty (per row) used for each label.
    grid : numpy.ndarray or None
        The penalty grid of the cross-validation (None with a fixed penalty).
    cv_loss : numpy.ndarray or None
        Cross-validated mean log-loss (labels x penalty grid), or None.
    converged, separated : numpy.ndarray of bool
        Flags of the final fits, one per label.
    n_obs : int
        Number of training rows.
    settings : Settings
        The fit's settings: the call's arguments with the defaults applied, the penalty
        grid and the folds.
    call : ModelCall
        The recorded call (printed by the results, rerun by ``refit``).
    """

    model = "probabilistic classifier chain"

    def _terms(self) -> list[str]:
        return ["(Intercept)"] + self.features + self.labels

    @cached_property
    def _chain(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(intercepts (m,), feature coefs (p, m), A (m, m)) on the raw 0/1 label scale:
        eta_j = b0_j + z' B[:, j] + sum_{k<j} A[k, j] y_k with A strictly upper triangular."""
        p = len(self.features)
        A = self._coef[1 + p:] / self.label_scale[:, None]
        A = np.triu(A, 1)
        b0 = self._coef[0] - self.label_center @ A
        return b0, self._coef[1: 1 + p], np.ascontiguousarray(A)

    def _base(self, newdata) -> tuple[np.ndarray, pd.Index]:
        Z, index = self._design(newdata)
        b0, B, _ = self._chain
        return b0 + Z @ B, index

    @public
    def sample(self, newdata, n_samples: int = 200, random_state=None) -> np.ndarray:
        """Ancestral sampling along the chain: an (n, S, m) int8 array of label vectors.

        For label j the linear predictor of all n x S partial vectors is one BLAS product
        with the labels drawn so far; the loop runs over the m labels only (and over blocks
        of instances when n x S x m is very large).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).
        n_samples : int, default 200
            Label vectors S drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        numpy.ndarray
            The draws, shape (n, S, m), int8.
        """
        return self._sample(newdata, n_samples, random_state)[0]

    def _sample(self, newdata, n_samples, random_state) -> tuple[np.ndarray, pd.Index]:
        S = check_n_samples(n_samples)
        rng = check_random_state(random_state)
        base, index = self._base(newdata)
        return self._sample_base(base, S, rng), index

    def _sample_base(self, base: np.ndarray, S: int, rng: np.random.Generator) -> np.ndarray:
        n, m = base.shape
        A = self._chain[2]
        out = np.empty((n, S, m), dtype=np.int8)
        block = max(1, SAMPLE_BLOCK // (S * m))
        with threadpool_limits(limits=1, user_api="blas"):
            for lo in range(0, n, block):
                hi = min(n, lo + block)
                N = (hi - lo) * S
                Yf = np.empty((m, N))                   # label-major: Yf[:j] is contiguous
                for j in range(m):
                    eta = np.repeat(base[lo:hi, j], S)  # instance-major, like `out`
                    if j:
                        eta += A[:j, j] @ Yf[:j]
                    Yf[j] = rng.random(N) < expit(eta)
                out[lo:hi] = Yf.T.reshape(hi - lo, S, m)
        return out

    @public
    def predict_marginals(self, newdata, n_samples: int = 200, random_state=None
                          ) -> pd.DataFrame:
        """Marginals p(y_j = 1 | x) estimated from ``n_samples`` chain samples per instance.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        n_samples : int, default 200
            Chain samples drawn per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.

        Returns
        -------
        pandas.DataFrame
            The estimated marginals, newdata index x labels.
        """
        Y, index = self._sample(newdata, n_samples, random_state)
        return pd.DataFrame(Y.mean(axis=1), index=index, columns=self.labels)

    def exact_P(self, newdata) -> tuple[np.ndarray, np.ndarray]:
        """The exact GFM parameters of the chain by enumerating all 2^m label vectors.

        Only for m <= ``EXACT_MAX_LABELS`` (cost n 2^m m).

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns (n of them).

        Returns
        -------
        P : numpy.ndarray
            Shape (n, m, m), P[:, i, s-1] = p(y_i = 1, s_y = s | x).
        p0 : numpy.ndarray
            Shape (n,), p(y = 0 | x).
        """
        m = self.n_labels
        if m > EXACT_MAX_LABELS:
            raise InvalidArgumentError(
                f"`exact_P` enumerates 2^m label vectors and allows m <= {EXACT_MAX_LABELS}; "
                f"this chain has m = {m}. Use `sample()` and `estimate_P()` instead.")
        base, _ = self._base(newdata)
        A = self._chain[2]
        V = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)
        onehot = np.zeros((2 ** m, m))                   # [s_y = s], s = 1..m
        s = V.sum(axis=1).astype(int)
        onehot[s > 0, s[s > 0] - 1] = 1.0
        VA = V @ A                                       # label part of every eta, (2^m, m)
        n = base.shape[0]
        P, p0 = np.empty((n, m, m)), np.empty(n)
        block = max(1, SAMPLE_BLOCK // (2 ** m * m))
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            eta = base[lo:hi, None, :] + VA[None]        # (b, 2^m, m)
            # log p(y) = sum_j [y_j log sigma(eta_j) + (1 - y_j) log sigma(-eta_j)]
            prob = np.exp(-np.logaddexp(0.0, np.where(V[None] == 1, -eta, eta)).sum(axis=2))
            P[lo:hi] = np.swapaxes(prob[:, :, None] * V[None], 1, 2) @ onehot
            p0[lo:hi] = prob[:, 0]
        return P, p0

    @public
    def predict(self, newdata, inference: str = "gfm", n_samples: int = 200,
                random_state=None, beta: float = 1.0) -> pd.DataFrame:
        """0/1 predictions (DataFrame, newdata index x labels) by the chosen inference.

        One sample of ``n_samples`` label vectors per instance is drawn from the chain;
        ``"gfm"`` / ``"gfm-t"`` use ``estimate_P`` of it, ``"meuf"``, ``"meuf-approx"``,
        ``"lewis"`` and ``"hamming"`` use the marginals estimated from the same sample.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows with the feature columns.
        inference : str, default "gfm"
            One of ``"hamming"``, ``"gfm"``, ``"gfm-t"``, ``"meuf"``, ``"meuf-approx"``,
            ``"lewis"``.
        n_samples : int, default 200
            Label vectors drawn from the chain per instance.
        random_state : int or numpy.random.Generator, optional
            Seeds the draws.
        beta : float, default 1.0
            The beta of the F-measure maximised (>= 0).

        Returns
        -------
        pandas.DataFrame
            The 0/1 predictions, newdata index x labels.
        """
        inference = check_inference(inference)
        check_scalar("beta", beta, low=0)
        Y, index = self._sample(newdata, n_samples, random_state)
        return _frame(samples_infer(Y, inference, beta), self.labels, index)


# ----------------------------------------------------------------------------------------
# Table 1 of the paper
# ----------------------------------------------------------------------------------------

