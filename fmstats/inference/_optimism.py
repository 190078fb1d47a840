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
    """
    q, pred = np.asarray(q, dtype=float), np.asarray(pred, dtype=float)
    w = np.ones_like(q) if w is None else np.asarray(w, dtype=float)
    W = w.sum()
    pi, rho = (w @ q) / W, (w @ pred) / W
    return W * np.array([pi * rho, (1 - pi) * rho, pi * (1 - rho), (1 - pi) * (1 - rho)])


def estimate_632plus(apparent: float, oob: float, no_information: float
                     ) -> tuple[float, float, float]:
    """(.632+ estimate, relative overfitting rate R, weight w) for a measure (higher better)."""
    err, err1, gamma = 1 - apparent, 1 - oob, 1 - no_information
    err1p = min(err1, gamma)
    r = (err1p - err) / (gamma - err) if (err1 > err and gamma > err) else 0.0
    w = 0.632 / (1 - 0.368 * r)
    return 1 - ((1 - w) * err + w * err1p), r, w
