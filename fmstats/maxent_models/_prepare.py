"""The validated design of a maxent-family fit: settings, argument checks, columns, start.

Shared by ``_maxent.py`` and ``_fmaxent.py`` (in memory, :func:`prepare`), by
``_outofcore.py`` (the same checks on a Dask DataFrame) and by :mod:`fmstats.svm`
(:func:`model_call`).  Everything here is argument checking and design building; the numerical
cores live in :mod:`fmstats.glm`, the results in ``_maxent.py``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import measures as _m
from .._utils.call import ARRAY_WEIGHTS, ModelCall, Settings, weights_label
from .._utils.validation import (check_choice, check_scalar, describe, prior_weights,
                                raise_if_any, warn)
from ..exceptions import (CollinearityWarning, DesignError, InvalidArgumentError, ResponseError,
                         WeightsError)
from ..formula import (MISSING_OF, KeptRows, MatrixData, ModelFrame, check_design,
                       describe_subset, is_sparse, kept_model_frame, matrix_model_frame,
                       model_frame, resolve_na_action)
from ..glm import check_weights_range, column_scaling, independent_columns, rank_gram
from ..glm import ArraySource
from ._training import COV_TYPES, InMemoryTraining, full_design

__all__ = ["Prepared", "COV_TYPES",
           "check_threshold", "check_settings", "check_response_kind",
           "single_class_error", "columns_to_keep", "penalty_and_start", "prepare"]



def check_threshold(t):
    return check_scalar("threshold", t, low=0, high=1)


def frame_prior_weights(weights, data: pd.DataFrame, frame: ModelFrame) -> np.ndarray:
    """The checked prior weights of the frame's rows (a Series is aligned on ``data``'s index)."""
    return prior_weights(weights, data, frame.rows)


def check_single_class(y: np.ndarray, w: np.ndarray, name: str) -> None:
    active = w > 0
    ya = y[active]
    if np.all(ya == 0) or np.all(ya == 1):
        single_class_error(name, int(ya[0]))


def single_class_error(name: str, cls: int):
    raise ResponseError(
        f"the response '{name}' has a single class: every row with positive weight is "
        f"{cls}; a classifier needs both classes."
    )


def check_settings(model: str, call: ModelCall, **fixed) -> Settings:
    """Validate the arguments shared by all maxent models; their :class:`Settings`.

    The settings are the call's arguments with the defaults applied (``fixed`` adds the
    model's own: ``dispersion=1`` for maxent), the F-measure resolved from ``measure`` /
    ``beta`` / ``alpha``, and ``weights`` as recorded: a column name, ``None`` or
    ``"<array>"`` (``weights_label``).
    """
    a = {**call.resolved(), **fixed}
    na_action = resolve_na_action(a.get("na_action"),
                                  a.get("missing") if call.given("missing") else None)
    a.update(na_action=na_action, missing=MISSING_OF[na_action])
    check_choice("cov_type", a["cov_type"], COV_TYPES + tuple(fixed.get("more_cov_types", ())))
    check_choice("collinear", a["collinear"], ("drop", "raise"))
    check_choice("dependence", a["dependence"], ("correlated", "independent"))
    check_threshold(a["threshold"])
    check_scalar("penalty", a["penalty"], low=0)
    check_scalar("tol", a["tol"], low=0, low_open=True)
    check_scalar("max_iter", a["max_iter"], low=1, integer=True)
    fm = _m.as_fmeasure(a.pop("measure", None), beta=a.pop("beta", None),
                        alpha=a.pop("alpha", None))
    dispersion = a["dispersion"]
    if not (isinstance(dispersion, str) and dispersion == "pearson"):
        if isinstance(dispersion, str):
            raise InvalidArgumentError(
                f"`dispersion` must be 'pearson' or a positive number; got {dispersion!r}.")
        check_scalar("dispersion", dispersion, low=0, low_open=True)
    a.pop("more_cov_types", None)
    weights = a.get("weights")
    return Settings(a, model=model, measure=fm, penalty=float(a["penalty"]),
                    threshold=float(a["threshold"]), tol=float(a["tol"]),
                    max_iter=int(a["max_iter"]),
                    weights=weights_label(weights))


def check_response_kind(model: str, resp) -> None:
    if model == "maxent" and resp.kind == "probability":  # fmaxent and umaxent take q
        raise ResponseError(
            f"the response '{resp.name}' holds probabilities strictly between 0 and 1; maxent() "
            "needs certain 0/1 labels (or cbind(yes, no) counts). Use umaxent() for "
            "probabilistic labels."
        )


def columns_to_keep(G: np.ndarray | None, names, collinear: str, *, X: np.ndarray | None = None,
                     w: np.ndarray | None = None) -> np.ndarray:
    """Non-aliased columns (R's NA coefficients): warn, or raise if asked.

    Given the design ``X`` (and weights ``w``), the weights' and columns' ranges are checked
    first, and aliasing is decided on the Gram matrix of the centred and scaled design
    (:func:`fmstats.glm.rank_gram`), so an offset column (a timestamp, x + 1e9) or a
    tiny-scale one is not lost to rounding in X'WX; ``G`` = X'WX is the out-of-core input.
    """
    if X is not None:
        G = checked_gram(X, w, names)
    keep = independent_columns(G)
    if not keep.all():
        dropped = [n for n, k in zip(names, keep) if not k]
        if collinear == "raise":
            raise DesignError(
                f"the design is rank deficient: column(s) {', '.join(map(repr, dropped))} are "
                "constant or linear combinations of earlier columns (collinear='raise')."
            )
        warn(
            f"dropped column(s) {', '.join(map(repr, dropped))}: constant or collinear with "
            "earlier columns; their coefficients are reported as NA, as R does.",
            CollinearityWarning,
        )
    return keep


def checked_gram(X: np.ndarray, w: np.ndarray | None, names) -> np.ndarray:
    """The Gram matrix :func:`columns_to_keep` decides aliasing on, after checking the weights'
    range (the columns' values and spreads were checked by the data validator,
    :func:`fmstats.formula.check_design`, in ``model_frame``)."""
    if w is not None:
        check_weights_range(w)
    G = rank_gram(X, w)
    if not np.all(np.isfinite(G)):
        check_design(X, names, "data")
        raise DesignError("X'WX of the design overflows double precision; rescale its "
                          "largest columns or the weights.")
    return G


def start_gram(G: np.ndarray, X: np.ndarray, y: np.ndarray, w: np.ndarray,
               keep: np.ndarray) -> np.ndarray | None:
    """X'W0X of IRLS's first step (R's start mu0 = (w y + 1/2) / (w + 1), W0 = w mu0 (1 - mu0))
    from the aliasing check's G = X'WX, or None where it is not a multiple of it.

    For a 0/1 response mu0 (1 - mu0) = (w + 1/2) / (2 (w + 1)^2) whatever y is, so with equal
    positive weights w0 (rows of weight 0 add nothing to either) W0 = W (w0 + 1/2) /
    (2 (w0 + 1)^2): the fit then skips one pass over X.  None when ``rank_gram`` rescaled X, the weights differ
    or the response has proportions; the fit computes X'W0X itself then.
    """
    pos = w > 0
    wp, yp = w[pos], y[pos]
    if wp.size == 0 or column_scaling(X) is not None:
        return None
    w0 = float(wp[0])
    if w0 > 1e15 or not np.all(wp == w0) or not np.all((yp == 0) | (yp == 1)):
        return None
    return (w0 + 0.5) / (2 * (w0 + 1) ** 2) * G[np.ix_(keep, keep)]


def penalty_and_start(names, keep: np.ndarray, penalty: float, start):
    """The per-coefficient ridge penalty (intercept unpenalised) and the checked start."""
    pen = np.zeros(int(keep.sum()))
    if penalty:
        kept_names = [n for n, k in zip(names, keep) if k]
        pen[:] = penalty
        pen[[i for i, n in enumerate(kept_names) if n in ("Intercept", "(Intercept)")]] = 0.0
    if start is not None:
        start = check_start(start, names, keep)
    return pen, start


def check_start(start, names, keep: np.ndarray) -> np.ndarray:
    """Starting coefficients: one per coefficient (or per kept one), finite where used.

    A Series indexed by the coefficient names (e.g. another fit's ``params``) is taken by
    name; the values of aliased (dropped) columns are ignored, so they may be NaN.
    """
    names = list(names)
    kept = [n for n, k in zip(names, keep) if k]
    if isinstance(start, pd.Series) and set(names) <= set(start.index) \
            and start.index.is_unique:
        start = start.reindex(names)
    try:
        arr = np.asarray(start, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(
            f"`start` must be numeric starting coefficients; got {describe(start)} ({exc})."
        ) from None
    if arr.shape not in ((len(names),), (len(kept),)):
        raise InvalidArgumentError(
            f"`start` must have one value per coefficient ({len(names)}: "
            f"{', '.join(names[:10])}{', ...' if len(names) > 10 else ''})"
            + (f" or per non-aliased coefficient ({len(kept)})" if len(kept) < len(names) else "")
            + f"; got shape {arr.shape}.")
    if arr.shape[0] == len(names):
        arr = arr[keep]
    raise_if_any(~np.isfinite(arr), InvalidArgumentError, lambda i, k: (
        f"`start` must be finite; the value for coefficient '{kept[i]}' is {arr[i]} ({k} "
        "non-finite value(s))."))
    return arr


@dataclass(frozen=True)
class Prepared:
    """A validated model frame ready for the numerical core."""

    settings: Settings
    call: ModelCall
    frame: ModelFrame
    X: np.ndarray
    aliased: np.ndarray
    prior: np.ndarray
    w: np.ndarray
    penalty: np.ndarray
    start: np.ndarray | None
    start_gram: np.ndarray | None = None     # X'W0X of IRLS's first step (see start_gram)

    @property
    def response(self):
        return self.frame.response

    def source(self, threshold: float) -> ArraySource:
        """The row source of the cores (:mod:`fmstats.glm._rowsource`)."""
        return ArraySource(self.X, self.frame.response.y, self.w, threshold,
                           terms=design_terms(self.frame, ~self.aliased),
                           offset=self.frame.offset,
                           start_gram=self.start_gram)

    def training(self, fit, rows=None, fweights=None) -> InMemoryTraining:
        """What the results keep of the training data: the rows (the design, the response,
        the prior weights, the offset and, for fmaxent, the F-weights of the returned fit)."""
        resp = self.frame.response
        return InMemoryTraining(X=self.X, y=resp.y, trials=resp.trials, prior_weights=self.prior,
                                fweights=fweights, index=self.frame.index,
                                offset=self.frame.offset)

    def finish(self, results, rows=None):
        """``results`` as they are: they keep the rows, so every covariance is computed on
        first use (an out-of-core fit computes its own now: ``DaskPrepared.finish``)."""
        return results


def checked_weights(model: str, frame, data, weights,
                    prior=None) -> tuple[np.ndarray, np.ndarray]:
    """(prior weights, count weights) of the frame's rows, with the response checked for the
    model: some row with weight, both classes among them.  ``prior``: the prior weights when
    known already (rows a fit kept), else read from ``weights``."""
    resp = frame.response
    check_response_kind(model, resp)
    prior = frame_prior_weights(weights, data, frame) if prior is None else prior
    w = prior * resp.trials if resp.trials is not None else prior
    if not (w > 0).any():
        raise WeightsError("every row has zero weight (prior weights times cbind trials).")
    check_single_class(resp.y, w, resp.name)
    return prior, w


def design_terms(frame, keep: np.ndarray) -> list:
    """``(label, columns, names)`` of each term of the design, columns counted among the kept
    (non-aliased) ones: the cores name factor cells holding one class in their warnings."""
    try:
        slices = frame.spec.term_slices()
    except (AttributeError, TypeError):      # a spec without terms: nothing to name
        return []
    pos = np.cumsum(keep) - 1
    out = []
    for label, sl in slices:
        full = [j for j in range(sl.start, sl.stop) if keep[j]]
        out.append((label, [int(pos[j]) for j in full], [frame.column_names[j] for j in full]))
    return out


def _kept_frame(rows: KeptRows, weights):
    """(model frame, prior weights) of rows a maxent-family fit kept: its design with the
    aliased columns back as zeros (aliased again), its response, trials and offset; prior
    weights given as an array are those of the rows, else the fit's."""
    fit = rows.results
    if getattr(fit, "X", None) is None or getattr(fit, "training", None) is None:
        raise InvalidArgumentError(
            f"a refit on kept rows needs a fit that keeps its design; this "
            f"{type(fit).__name__} does not (keep_data=False, or out of core): pass the data.")
    X = full_design(fit)
    kind = fit.response_kind if rows.y is None or fit.trials is not None else (
        "binary" if np.all((rows.y == 0) | (rows.y == 1)) else "probability")
    frame = kept_model_frame(rows, X, trials=fit.trials, kind=kind,
                             offset=fit.training.offset)
    if weights is None or isinstance(weights, str):
        return frame, np.asarray(fit.prior_weights, dtype=float)[rows.positions]
    return frame, prior_weights(weights, frame.X, None)


def prepare(model: str, call: ModelCall, data, weights, *, subset=None, offset=None,
            **fixed) -> Prepared:
    """Validate arguments, build the design, weights and penalty (shared by all maxent models).

    ``call`` is the fit's recorded call (its arguments, defaults applied, are the settings);
    ``weights``, ``subset`` and ``offset`` the arguments themselves (the call keeps arrays
    only by description); ``fixed`` the model's own settings (``dispersion=1`` for maxent).
    """
    settings = check_settings(model, call, **fixed)
    if "subset" in settings:        # recorded by description: arrays belong to the rows
        settings = settings.replace(subset=describe_subset(subset), offset=(
            offset if offset is None or isinstance(offset, str) else ARRAY_WEIGHTS))
    formula = settings["formula"]
    missing, collinear, engine = settings["missing"], settings["collinear"], settings["engine"]
    prior = None
    if isinstance(data, KeptRows):          # rows of what a fit kept: no DataFrame
        frame, prior = _kept_frame(data, weights)
    elif isinstance(data, MatrixData):      # a design matrix (fmstats.sklearn), maybe sparse
        frame = matrix_model_frame(data, formula)
        check_design(frame.X, frame.column_names, "X")   # model_frame's check of the values
    else:
        try:
            frame = model_frame(formula, data, missing=missing, engine=engine, subset=subset,
                                offset=offset, contrasts=settings.get("contrasts"))
        except ResponseError as exc:        # name the model that needs a binary response
            msg = str(exc)
            if msg.startswith("the model needs"):
                raise ResponseError(model + msg[len("the model"):]) from None
            raise
    if frame.offset is not None and model == "fmaxent":
        raise InvalidArgumentError(
            "`formula`: fmaxent takes no offset() term: the F-reweighting's weights and its "
            "covariances are derived for eta = X b; fit maxent()/umaxent() with the offset, or "
            "drop it.")
    prior, w = checked_weights(model, frame, data, weights, prior)

    X = frame.X

    def aliasing():
        G = checked_gram(X, w, frame.column_names)
        keep = columns_to_keep(G, frame.column_names, collinear)
        return keep, start_gram(G, X, frame.response.y, w, keep)

    # one check per design and weights (a fold's frame serves each point of a tuning grid)
    keep, g0 = frame.remember(("aliasing", collinear, w.tobytes()), aliasing)
    if not keep.all():
        X = (X[:, np.flatnonzero(keep)] if is_sparse(X)
             else np.ascontiguousarray(X[:, keep]))
    pen, start = penalty_and_start(frame.column_names, keep, settings["penalty"],
                                   settings.get("start"))
    return Prepared(settings=settings, call=call, frame=frame, X=X, aliased=~keep,
                    prior=prior, w=w, penalty=pen, start=start, start_gram=g0)
