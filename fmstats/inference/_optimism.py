"""The .632+ estimator of Efron & Tibshirani (1997) for a measure where higher is better, and
the no-information confusion counts it needs (see ``fmstats/resampling/_validate.py`` for the
derivation for F).  Used by :func:`fmstats.validate` and by ``tune_threshold(ci=True)``."""
from __future__ import annotations

import numpy as np

__all__ = ["no_information_counts", "estimate_632plus"]


def no_information_counts(q, pred, w=None) -> np.ndarray:
    """Confusion counts pooled over all pairings of labels q and predictions.

    With pi = sum w q / W and rho = sum w pred / W: W [pi rho, (1 - pi) rho, pi (1 - rho),
    (1 - pi)(1 - rho)] (tp, fp, fn, tn).

    Parameters
    ----------
    q : array-like
        The labels (0/1 or probabilities).
    pred : array-like
        The 0/1 predictions.
    w : array-like, optional
        The rows' weights (None: all 1).

    Returns
    -------
    numpy.ndarray
        The four counts (tp, fp, fn, tn) of the no-information rule.
    """
    q, pred = np.asarray(q, dtype=float), np.asarray(pred, dtype=float)
    w = np.ones_like(q) if w is None else np.asarray(w, dtype=float)
    W = w.sum()
    pi, rho = (w @ q) / W, (w @ pred) / W
    return W * np.array([pi * rho, (1 - pi) * rho, pi * (1 - rho), (1 - pi) * (1 - rho)])


def estimate_632plus(apparent: float, oob: float, no_information: float
                     ) -> tuple[float, float, float]:
    """The .632+ estimate of a measure (higher is better; Efron & Tibshirani 1997).

    Parameters
    ----------
    apparent : float
        The measure on the training rows.
    oob : float
        The measure on the rows left out of the replicates (the leave-one-out bootstrap).
    no_information : float
        The measure of the no-information rule (labels and predictions paired at random).

    Returns
    -------
    tuple of float
        (.632+ estimate, relative overfitting rate R, weight w of the out-of-bag measure).
    """
    err, err1, gamma = 1 - apparent, 1 - oob, 1 - no_information
    err1p = min(err1, gamma)
    r = (err1p - err) / (gamma - err) if (err1 > err and gamma > err) else 0.0
    w = 0.632 / (1 - 0.368 * r)
    return 1 - ((1 - w) * err + w * err1p), r, w
