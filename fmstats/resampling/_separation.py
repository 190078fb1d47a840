"""Does a bootstrap replicate have a finite maximum-likelihood estimate?  Used by
:mod:`fmstats.resampling` (the test, and the counting, dropping and warning of replicates
without one).

Every unpenalised IRLS fit flags separation itself (:mod:`fmstats.glm._separation`: fitted
probabilities numerically 0 or 1, or a Newton step at the stopping point that still moves
rows by ~1, confirmed by the linear programme of Konis (2007) :func:`no_finite_mle`).  A
replicate whose standard errors grew tenfold beside the original fit's (:func:`suspect`), or
that did not converge, is tested with the linear programme too.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._utils.validation import warn
from ..exceptions import ResamplingWarning
from ..glm import no_finite_mle

__all__ = ["no_finite_mle", "suspect", "SE_RATIO", "DegenerateReplicateWarning", "split_flags",
           "degenerate_replicates", "warn_all_nan"]

#: A replicate is tested when a coefficient's SE is this many times the original fit's.
SE_RATIO = 10.0


def suspect(se: np.ndarray, se0: np.ndarray) -> bool:
    """Whether replicate standard errors ``se`` dwarf the original ``se0`` (same terms)."""
    se, se0 = np.asarray(se, dtype=float), np.asarray(se0, dtype=float)
    ok = np.isfinite(se0) & (se0 > 0)
    return bool(np.any(~np.isfinite(se[ok])) or np.any(se[ok] > SE_RATIO * se0[ok]))


class DegenerateReplicateWarning(ResamplingWarning):
    """Bootstrap replicates without a finite maximum-likelihood estimate (separated
    resamples) or whose fit did not converge: see ``bootstrap(degenerate=)``."""



def split_flags(raw: list) -> tuple[list, np.ndarray, np.ndarray]:
    """Replicate outputs (statistic, (no finite MLE, converged)) -> (outputs, flags)."""
    out, infinite, unconverged = [], np.zeros(len(raw), bool), np.zeros(len(raw), bool)
    for i, (v, err, ws) in enumerate(raw):
        if err is None:
            v, flags, *_ = v
            infinite[i], conv = flags[0], flags[1]
            unconverged[i] = not conv
        out.append((v, err, ws))
    return out, infinite, unconverged


def degenerate_replicates(what: str, values: np.ndarray, infinite: np.ndarray,
                          unconverged: np.ndarray, policy: str, *,
                          drop_unconverged: bool = True) -> np.ndarray:
    """Drop (NaN) or keep the replicates without a finite MLE or unconverged; warn.

    ``drop_unconverged=False`` (the original fit did not converge either) keeps the
    unconverged ones whatever ``policy`` says: dropping them could leave no replicate.
    """
    bad = infinite | (unconverged & drop_unconverged)
    if not (infinite | unconverged).any():
        return bad
    if policy == "drop":
        values[bad] = np.nan
    parts = []
    if infinite.any():
        parts.append(f"{int(infinite.sum())} of {len(bad)} {what} replicates have no finite "
                     "maximum-likelihood estimate (the resample is (quasi-)separated, e.g. a "
                     "factor cell holding one class only)")
    if unconverged.any():
        parts.append(f"{int(unconverged.sum())} did not converge"
                     + ("" if drop_unconverged else " (as the original fit; they are kept)"))
    how = ("they are left out (degenerate='drop'), so the SEs and CIs describe the replicates "
           "with a finite estimate and understate the instability of the fit" if policy == "drop"
           else "they are kept (degenerate='keep'): their coefficients are where the iterations "
           "stopped, not estimates, and they inflate the SEs and CIs")
    warn(f"{what}: " + "; ".join(parts) + f"; {how}. Consider a ridge `penalty=` (finite "
         "estimates in every resample), type='stratified' (every resample keeps the class "
         "counts), merging sparse factor levels, or the other `degenerate=` choice.",
         DegenerateReplicateWarning)
    return bad


def warn_all_nan(values: np.ndarray, t0: pd.Series, errors: list) -> None:
    """A ResamplingWarning naming the statistics that are NaN in every replicate."""
    if len(errors) == values.shape[0]:
        return                                   # every fit failed: bootstrap raised already
    dead = ~np.isfinite(values).any(axis=0)
    if dead.any():
        names = ", ".join(map(repr, list(t0.index[dead])[:5])) + (" ..." if dead.sum() > 5
                                                                   else "")
        warn(f"bootstrap: {int(dead.sum())} statistic(s) ({names}) are NaN (or infinite) in "
             "every replicate, so they have no bootstrap SE or CI"
             + (" (they are NaN in the original fit too: an aliased term?)"
                if not np.isfinite(t0.to_numpy()[dead]).any() else "")
             + ". Check the statistic, or whether those terms are estimable in resamples "
             "(sparse factor levels; degenerate='keep').", ResamplingWarning)
