"""napkinXC interop: sparse probability estimates from a trained napkinXC model.

napkinXC (PyPI ``napkinxc``) is not a dependency of fmstats: :func:`spe_from_napkinxc`
only calls the model's ``predict_proba`` and reads the number of labels from the
``tree.txt`` it saves beside its weights.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils.validation import check_scalar, describe, num
from ..exceptions import DataError, InvalidArgumentError
from ._spe import SPE, check_thresholds

__all__ = ["spe_from_napkinxc"]


def _model_labels(model: Any) -> int | None:
    """The number of labels of a saved napkinXC tree model (first field of ``tree.txt``)."""
    try:
        out = Path(model.get_params()["output"])
        with open(out / "tree.txt") as fh:
            return int(fh.readline().split()[0])
    except (OSError, KeyError, ValueError, IndexError, AttributeError, TypeError):
        return None


def spe_from_napkinxc(model: Any, X: Any, thresholds: Any = 0.0, *, n_features: int,
                      n_labels: int | None = None, chunk_size: int = 10_000) -> SPE:
    """Sparse probability estimates of a trained napkinXC model (PLT, HSM, BR, OVR).

    The model's ``predict_proba(X, threshold=tau)`` (labels with estimates above the
    per-label thresholds) is read chunk by chunk into an :class:`~fmstats.extreme.SPE`, so
    that napkinXC users can tune STO/FTA/OFO thresholds and score with fmstats' measures.

    Parameters
    ----------
    model : napkinxc.models.Model
        A trained (or loaded) napkinXC model.
    X : scipy.sparse matrix of shape (n, d)
        Features; ``d`` must equal ``n_features``.
    thresholds : float or array of shape (m,), default 0
        The SPE thresholds tau in [0, 1] (napkinXC's per-label thresholds).
    n_features : int
        The number of features the model was trained on.  napkinXC does not store it
        where its Python API can read it, and it silently scores rows of another width
        (extra columns ignored or misread), so it is asked for and checked here.
    n_labels : int, optional
        The number of labels m; default: read from the ``tree.txt`` of the model's
        ``output`` directory (tree models).  Required for models without a tree.
    chunk_size : int, default 10000
        Rows per call of ``predict_proba``.

    Returns
    -------
    SPE
        The (n, m) estimates above ``thresholds``.

    Raises
    ------
    DataError
        When ``X`` has another number of columns than ``n_features``, or the model returns
        a label outside [0, m) or a value outside [0, 1].
    """
    if not callable(getattr(model, "predict_proba", None)):
        raise InvalidArgumentError(
            f"`model` must be a napkinXC model (with predict_proba); got {describe(model)}.")
    d = int(check_scalar("n_features", n_features, low=1, integer=True))
    if not sp.issparse(X) or X.ndim != 2:
        raise InvalidArgumentError(
            f"`X` must be a 2-d scipy.sparse matrix of features; got {describe(X)}.")
    if X.shape[1] != d:
        raise DataError(f"`X` must have the model's {d} features (`n_features`); got "
                        f"{X.shape[1]} columns.")
    if n_labels is None:
        n_labels = _model_labels(model)
        if n_labels is None:
            raise InvalidArgumentError(
                "`n_labels` must be given: the model's tree.txt (in its `output` directory) "
                "could not be read.")
    m = int(check_scalar("n_labels", n_labels, low=1, integer=True))
    size = int(check_scalar("chunk_size", chunk_size, low=1, integer=True))
    tau = check_thresholds("thresholds", thresholds, m)
    X = sp.csr_matrix(X, dtype=np.float64)
    # per-label thresholds as a list: napkinxc 0.7.2 compares its argument with 0 before
    # its type check, which fails for an ndarray
    threshold_arg = float(tau[0]) if np.all(tau == tau[0]) else tau.tolist()
    parts = []
    for lo in range(0, X.shape[0], size):
        rows = model.predict_proba(X[lo:lo + size], threshold=threshold_arg)
        lens = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        flat = list(itertools.chain.from_iterable(rows))
        labels = np.fromiter((p[0] for p in flat), dtype=np.int64, count=len(flat))
        probs = np.fromiter((p[1] for p in flat), dtype=np.float64, count=len(flat))
        bad = (labels < 0) | (labels >= m)
        if bad.any():
            raise DataError(
                f"the napkinXC model returned label {int(labels[bad][0])}, outside [0, {m}) "
                "(`n_labels`); was it trained with another number of labels?")
        badp = ~((probs >= 0) & (probs <= 1))
        if badp.any():
            raise DataError(f"the napkinXC model returned an estimate outside [0, 1] "
                            f"({num(float(probs[badp][0]))}).")
        indptr = np.concatenate(([0], np.cumsum(lens)))
        parts.append(sp.csr_array((probs, labels, indptr), shape=(lens.size, m)))
    mat = sp.csr_array(sp.vstack(parts, format="csr"))
    mat.sort_indices()
    return SPE(mat, tau)
