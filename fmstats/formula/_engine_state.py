"""formulaic's fitted model specification as plain data, and rebuilt from it.

Used by :class:`fmstats.formula.DesignSpec` for results files (``file_state`` and the design
rebuilt on first use after ``load()``).  A design fitted by formulaic holds a ``ModelSpec``:
the parsed formula (terms of factors: an expression and how it is evaluated), the structure
of the design (per term, its factors with their reduced-rank flags and its column names), the
states of stateful transforms (``center``'s mean, ``poly``'s norms, the knots of ``bs`` and
``ns``) and of the categorical encoders (levels and contrasts).  :func:`engine_state` turns it
into numbers, text, lists, dicts and arrays (contrasts by name, from a fixed list);
:func:`engine_state_problem` checks such data before anything is built from it, and
:func:`rebuild_engine` makes the ``ModelSpec`` again through formulaic's constructors, which
parse and evaluate nothing (the terms are checked by ``_safety.py`` before).
Re-applying the rebuilt spec to new data gives the design the original spec gives.
The levels of the categorical terms are read from either engine's specification here too
(:func:`categorical_states`, :func:`categorical_levels`).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["engine_state", "engine_state_problem", "rebuild_engine", "categorical_states",
           "factor_column", "categorical_levels"]

_CONTRASTS = ("TreatmentContrasts", "SASContrasts", "SumContrasts", "HelmertContrasts",
              "DiffContrasts", "PolyContrasts", "CustomContrasts")
_KEYS = {"factors", "terms", "ordering", "structure", "materializer", "materializer_params",
         "ensure_full_rank", "na_action", "output", "cluster_by", "transform_state",
         "encoder_state"}
_PLAIN = (str, int, float, bool, type(None), np.generic, np.ndarray)
_METHODS = ("python", "lookup", "literal")
_KINDS = ("unknown", "constant", "numerical", "categorical")


def _contrasts_classes() -> dict:
    from formulaic.transforms import contrasts

    return {name: getattr(contrasts, name) for name in _CONTRASTS if hasattr(contrasts, name)}


class _NotPlain(Exception):
    pass


def _plain(value: Any) -> Any:
    """``value`` when it is plain data (containers of numbers, text, arrays), else raise."""
    if isinstance(value, _PLAIN):
        if isinstance(value, np.ndarray) and value.dtype.hasobject:
            raise _NotPlain("an array of objects")
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    raise _NotPlain(f"a {type(value).__qualname__}")


def _contrasts_data(state) -> dict:
    import dataclasses

    from formulaic.utils.sentinels import UNSET

    contrasts = state.contrasts
    name = type(contrasts).__name__
    if name not in _contrasts_classes():
        raise _NotPlain(f"the contrasts {name}")
    fields = {f.name: getattr(contrasts, f.name) for f in dataclasses.fields(contrasts)
              if getattr(contrasts, f.name) is not UNSET}
    return {"class": name, "fields": _plain(fields), "levels": _plain(list(state.levels))}


def engine_state(spec) -> dict | None:
    """formulaic's ``ModelSpec`` as plain data (see the module notes); None for patsy's.

    Raises ``ValueError`` naming what is not plain data (a contrast of the user's own), or
    when this formulaic lays out its specification otherwise (``save()`` then writes a
    pickle, with a warning).
    """
    from formulaic.model_spec import ModelSpec

    if not isinstance(spec, ModelSpec):
        return None
    factors: dict = {}
    for term in spec.formula:
        for f in term.factors:
            factors.setdefault(f.expr, [f.expr, f.eval_method.value, f.kind.value])
    order = {expr: i for i, expr in enumerate(factors)}
    terms = [[order[f.expr] for f in term.factors] for term in spec.formula]
    term_index = {str(term): i for i, term in enumerate(spec.formula)}
    try:
        structure = [
            [term_index[str(s.term)],
             [[[[order[sf.factor.expr], bool(sf.reduced)] for sf in st.factors],
               _plain(st.scale)] for st in s.scoped_terms],
             [str(c) for c in s.columns]]
            for s in spec.structure or ()]
        encoders = {}
        for expr, (kind, state) in spec.encoder_state.items():
            state = dict(state)
            if "contrasts" in state:
                state["contrasts"] = _contrasts_data(state["contrasts"])
            encoders[expr] = [kind.value, _plain(state)]
        return {"factors": list(factors.values()), "terms": terms,
                "ordering": spec.formula.ordering.value, "structure": structure,
                "materializer": spec.materializer,
                "materializer_params": _plain(dict(spec.materializer_params or {})),
                "ensure_full_rank": bool(spec.ensure_full_rank),
                "na_action": spec.na_action.value, "output": spec.output,
                "cluster_by": spec.cluster_by.value,
                "transform_state": _plain(dict(spec.transform_state)),
                "encoder_state": encoders}
    except (_NotPlain, KeyError) as exc:
        raise ValueError(f"the formulaic design holds {exc}, which is not data") from None
    except (AttributeError, TypeError) as exc:    # a formulaic laid out otherwise
        raise ValueError(f"this formulaic's specification cannot be written as data "
                         f"({type(exc).__name__}: {exc})") from None


def _index_list(value, n) -> bool:
    return isinstance(value, list) and all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in value)


def engine_state_problem(state: Any) -> str | None:
    """Why data claiming to be a formulaic design's state is not well formed, or None (its
    terms' expressions are checked by ``factor_problem``)."""
    if not isinstance(state, dict) or set(state) != _KEYS:
        return "the formulaic state does not have the fields of one"
    factors, terms = state["factors"], state["terms"]
    if not (isinstance(factors, list) and isinstance(terms, list)):
        return "the formulaic state's terms are not lists"
    n = len(factors)
    if not all(isinstance(f, list) and len(f) == 3 and f[1] in _METHODS and f[2] in _KINDS
               for f in factors):
        return "a term of the formulaic state is not (expression, method, kind)"
    if not all(_index_list(t, n) for t in terms):
        return "a term refers to a factor the state does not have"
    structure = state["structure"]
    if not isinstance(structure, list):
        return "the formulaic state's structure is not a list"
    for s in structure:
        if not (isinstance(s, list) and len(s) == 3 and _index_list([s[0]], len(terms))
                and isinstance(s[1], list) and isinstance(s[2], list)
                and all(isinstance(c, str) for c in s[2])):
            return "the formulaic structure is not (term, scoped terms, columns)"
        for scoped in s[1]:
            if not (isinstance(scoped, list) and len(scoped) == 2
                    and isinstance(scoped[0], list) and isinstance(scoped[1], (int, float))
                    and all(isinstance(p, list) and len(p) == 2 and _index_list([p[0]], n)
                            and isinstance(p[1], bool) for p in scoped[0])):
                return "a scoped term of the formulaic structure is malformed"
    for key in ("ordering", "na_action", "cluster_by"):
        if not isinstance(state[key], str):
            return f"the formulaic state's {key} is not text"
    encoders = state["encoder_state"]
    if not (isinstance(encoders, dict) and isinstance(state["transform_state"], dict)):
        return "the formulaic state's encoders and transforms are not dicts"
    for expr, value in encoders.items():
        if not (isinstance(value, list) and len(value) == 2 and value[0] in _KINDS
                and isinstance(value[1], dict)):
            return f"the encoder state of {expr!r} is not (kind, state)"
        contrasts = value[1].get("contrasts")
        if contrasts is not None and not (
                isinstance(contrasts, dict) and contrasts.get("class") in _CONTRASTS
                and isinstance(contrasts.get("fields"), dict)
                and all(isinstance(k, str) for k in contrasts["fields"])
                and isinstance(contrasts.get("levels"), list)):
            return f"the contrasts of {expr!r} are not known contrasts"
    try:
        _plain([state["transform_state"], encoders, state["materializer_params"]])
    except _NotPlain as exc:
        return f"the formulaic state holds {exc}, which is not data"
    return None


def rebuild_engine(state: dict):
    """formulaic's ``ModelSpec`` made again from :func:`engine_state`'s data (checked by
    :func:`engine_state_problem` and ``_safety.py`` first)."""
    from formulaic.formula import OrderingMethod, SimpleFormula
    from formulaic.materializers.base import EncodedTermStructure
    from formulaic.materializers.types import EvaluatedFactor, ScopedFactor, ScopedTerm
    from formulaic.model_spec import ModelSpec
    from formulaic.parser.types import Factor, Term
    from formulaic.transforms.contrasts import ContrastsState

    factors = [Factor(expr, eval_method=method, kind=kind) for expr, method, kind
               in state["factors"]]
    terms = [Term(factors=[factors[i] for i in t]) for t in state["terms"]]
    formula = SimpleFormula(terms, _ordering="none")
    formula.ordering = OrderingMethod(state["ordering"])
    structure = [
        EncodedTermStructure(
            terms[t],
            [ScopedTerm([ScopedFactor(EvaluatedFactor(factors[i], None), reduced=r)
                         for i, r in scoped], scale=scale) for scoped, scale in scoped_terms],
            list(columns))
        for t, scoped_terms, columns in state["structure"]]
    classes = _contrasts_classes()
    encoders = {}
    for expr, (kind, enc) in state["encoder_state"].items():
        enc = dict(enc)
        if "contrasts" in enc:
            c = enc["contrasts"]
            enc["contrasts"] = ContrastsState(contrasts=classes[c["class"]](**c["fields"]),
                                              levels=list(c["levels"]))
        encoders[expr] = (Factor.Kind(kind), enc)
    return ModelSpec(formula=formula, materializer=state["materializer"],
                     materializer_params=dict(state["materializer_params"]),
                     ensure_full_rank=state["ensure_full_rank"], na_action=state["na_action"],
                     output=state["output"], cluster_by=state["cluster_by"],
                     structure=structure, transform_state=dict(state["transform_state"]),
                     encoder_state=encoders)


# ------------------------------------------------------------------ levels
_FACTOR_EXPR = re.compile(r"^(?:C|factor)\(\s*`?([A-Za-z_][\w.]*)`?\s*(?:,.*)?\)$", re.S)


def categorical_states(engine: str, engine_spec) -> dict:
    """The engine's categorical terms (expression -> levels)."""
    if engine == "patsy":
        return {f.code: info.categories for f, info in engine_spec.factor_infos.items()
                if info.categories is not None}
    return {name: st.get("categories") for name, (kind, st)
            in engine_spec.encoder_state.items() if st.get("categories") is not None}


def factor_column(expr: str) -> str:
    """The data column behind a categorical term ``col``, ``C(col, ...)`` or ``factor(col)``."""
    m = _FACTOR_EXPR.match(expr.strip())
    return expr.strip().strip("`") if m is None else m.group(1)


def categorical_levels(engine: str, engine_spec, variables: list[str]) -> dict:
    """Levels of each categorical data column, read from the engine's fitted state.

    A factor ``col``, ``C(col)`` or ``factor(col)`` maps to the data column ``col``; the
    engine has already found its levels, so no second pass over the data is needed.
    """
    levels: dict = {}
    for expr, cats in categorical_states(engine, engine_spec).items():
        col = factor_column(expr)
        if col in variables:
            known = set(levels.get(col, ()))
            levels[col] = tuple(levels.get(col, ())) + tuple(
                c.item() if hasattr(c, "item") else c for c in cats if c not in known)
    return levels
