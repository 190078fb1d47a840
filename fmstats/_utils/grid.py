"""Grid points of the tuners: parsing a ``grid`` argument and checking its names.

Used by :mod:`fmstats.model_selection._cv_tune` (``cv_tune``) and :mod:`fmstats.svm._tuning` (``tune_wsvm``'s
(C_pos, C_neg) grids).  A grid is a dict of lists (their Cartesian product), a list of
dicts (explicit points) or a DataFrame (one point per row, NaN cells left out).
"""
from __future__ import annotations

import inspect
import itertools

import numpy as np
import pandas as pd

from .validation import describe
from ..exceptions import InvalidArgumentError

__all__ = ["grid_points", "check_names", "ineffective_parameters", "TABLE_COLUMNS"]

#: The columns of ``CvTuneResults.tidy()`` besides the parameters (not parameter names).
TABLE_COLUMNS = ("f", "precision", "recall", "accuracy", "fold_mean", "fold_sd", "fold_min",
                 "fold_max", "n_folds", "n_failed", "rank")


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def grid_points(grid) -> list[dict]:
    """A dict of lists (Cartesian product), a list of dicts, or a DataFrame -> list of dicts."""
    if isinstance(grid, pd.DataFrame):
        points = [{k: _plain(v) for k, v in row.items() if not _is_missing(v)}
                  for row in grid.to_dict("records")]
    elif isinstance(grid, dict):
        if not grid:
            raise InvalidArgumentError(
                "`grid` is an empty dict; give lists of values, e.g. {'penalty': [0, 1]} (use "
                "grid=[{}] to cross-validate the model without tuning).")
        for key, values in grid.items():
            if isinstance(values, (str, bytes)) or np.ndim(values) != 1 or len(values) == 0:
                raise InvalidArgumentError(
                    f"`grid[{key!r}]` must be a non-empty list of values; got {describe(values)}.")
        keys = list(grid)
        points = [dict(zip(keys, map(_plain, combo)))
                  for combo in itertools.product(*(list(grid[k]) for k in keys))]
    elif isinstance(grid, (list, tuple)):
        bad = [p for p in grid if not isinstance(p, dict)]
        if bad:
            raise InvalidArgumentError(
                f"`grid` as a list must hold dicts of parameter values; got {describe(bad[0])}.")
        points = [dict(p) for p in grid]
    else:
        raise InvalidArgumentError(
            "`grid` must be a dict of lists, a list of dicts or a DataFrame; got "
            f"{describe(grid)}.")
    if not points:
        raise InvalidArgumentError("`grid` is empty; give at least one grid point.")
    for p in points:
        bad_keys = [k for k in p if not isinstance(k, str) or k in TABLE_COLUMNS]
        if bad_keys:
            raise InvalidArgumentError(
                "`grid` parameter names must be strings other than the result columns "
                f"({', '.join(TABLE_COLUMNS)}); got {describe(bad_keys[0])}.")
    return points


def check_names(model_fn, names: list, fixed: dict) -> None:
    both = sorted(set(names) & set(fixed))
    if both:
        raise InvalidArgumentError(
            f"parameter(s) {', '.join(map(repr, both))} are both in `grid` and fixed keyword "
            "arguments; give each in one place.")
    try:
        params = list(inspect.signature(model_fn).parameters.values())
    except (TypeError, ValueError):  # builtins and some C callables: cannot check
        return
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                       p.POSITIONAL_OR_KEYWORD)]
    valid = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
             and p.name not in positional[:2]]
    fn_name = getattr(model_fn, "__name__", "model_fn")
    for where, keys in (("`grid`", names), ("the fixed keyword arguments", list(fixed))):
        unknown = [k for k in keys if k not in valid]
        if unknown:
            raise InvalidArgumentError(
                f"{where} name(s) {', '.join(map(repr, unknown))}, which {fn_name}() does not "
                f"take; valid names: {', '.join(valid)}.")


def ineffective_parameters(points: list, names: list, counts: np.ndarray) -> list:
    """The parameters whose values changed nothing: every pair of grid points that differ in
    that parameter only has the same counts in every fold (no failed fold).

    ``counts`` is (points, folds, 4).  Identical fits give bit-identical counts (the same
    computation on the same rows), so equality is exact by construction; a parameter that
    moves the fits without changing one held-out class is reported too -- it made no
    difference to the criterion.
    """
    out = []
    for name in names:
        groups: dict = {}
        for i, p in enumerate(points):
            if name in p:
                rest = tuple(sorted((k, repr(v)) for k, v in p.items() if k != name))
                groups.setdefault(rest, []).append(i)
        pairs = [g for g in groups.values()
                 if len(g) > 1 and len({repr(points[i][name]) for i in g}) > 1]
        if pairs and all(np.all(np.isfinite(counts[g])) and
                         all(np.array_equal(counts[g[0]], counts[i]) for i in g[1:])
                         for g in pairs):
            out.append(name)
    return out
