"""Model selection by terms: R's ``drop1``, ``add1`` and ``step`` (``MASS::stepAIC``) for
maxent/umaxent fits.

Exported as :func:`fmstats.drop1`, :func:`fmstats.add1` and :func:`fmstats.step`.  The
computations are R's ``drop1.glm``, ``add1.glm`` and ``step`` (R 4.2):

* **drop1** refits the model without each term, on the stored design (the term's columns
  left out, the same rows, weights and offset): Df is the drop in rank, AIC is
  ``deviance / dispersion + k * rank`` shifted so that the full model's row is its
  ``extractAIC``; the tests are R's -- ``"Chisq"``/``"LRT"`` (the scaled deviance change,
  chi-squared), ``"F"`` (the deviance change per df over the full model's deviance per
  residual df; R warns that it assumes a quasi family, the table's heading says so) and
  ``"Rao"`` (the score statistic: the weighted sum of squares of the smaller model's working
  residuals explained by the full design, as R computes it).  Without ``scope`` only the terms
  that are not contained in another term are candidates (R's ``drop.scope``: no main effect
  is dropped while its interaction stays).
* **add1** builds the design of the model plus every term of ``scope`` from ``data`` (the
  rows the model used) and refits the model with each addable term (R's ``add.scope``: a term
  whose margins are all in the model).  Its Rao score is the score statistic of the added
  term at the model's fit, as drop1's.  (R's ``add1.glm`` regresses the working residuals
  *minus the offset* on the larger design, so with an offset it reports another number --
  0 for a term whose deviance drops by 321 on star98, tests/reference/issue26_reference.R;
  without an offset the two agree.)
* **step** alternates them, as R's ``step``: from the model, drop (``direction="backward"``)
  or add (``"forward"``) the term with the smallest AIC while that lowers the AIC (ties
  within 1e-10 relative go to the earlier row, "<none>" first, as R's stable ``order``), and
  refits the chosen model from its formula.  ``scope`` is the upper model (a formula such as
  ``"~ . + age"``, ``.`` standing for the model's terms) or ``{"lower": ..., "upper":
  ...}``; terms are dropped and added respecting marginality (R's ``factor.scope``).

Only likelihood fits qualify: the F-maximisers (``fmaxent``, the SVMs) refuse, because their
weights are chosen from the fit itself, so their deviance is not a likelihood and AIC does not
apply (compare them by cross-validated F, :func:`fmstats.cv_tune`).  ``add1`` and ``step``
need the training DataFrame (``data=``): results keep the design of the model's terms, not
the columns of new ones.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._utils.call import ARRAY_WEIGHTS
from .._utils.validation import check_choice, check_scalar, describe
from ..exceptions import (DataError, FmstatsWarning, FormulaError, InvalidArgumentError,
                          ModelComparisonError)
from ..formula import is_sparse, model_frame, split_formula, split_tilde, split_top
from ..glm import independent_columns, irls_logit, rank_gram
from ..results import array_offset, formula_offsets
from ._termtable import StepResults, TermTable, term_table, warn_f_test
from .._utils.boundary import public

__all__ = ["drop1", "add1", "step", "TermTable", "StepResults", "STEP_TESTS"]

STEP_TESTS = ("none", "Chisq", "LRT", "F", "Rao")
#: AIC values within this relative distance of the smallest are tied (the earlier row wins).
AIC_RTOL = 1e-10
_INTERCEPTS = ("Intercept", "(Intercept)", "1")


# ----------------------------------------------------------------------------- terms
def factors_of(label: str) -> frozenset:
    """The factors of a term label (``"C(pclass):sex"`` -> {"C(pclass)", "sex"})."""
    return frozenset(re.sub(r"\s+", "", f) for f in split_top(label, ":"))


@dataclass(frozen=True)
class Term:
    """A model term: its label, factors and the columns of the full design it spans."""

    label: str
    factors: frozenset
    columns: range


def model_terms(spec) -> tuple[bool, list[Term]]:
    """(has an intercept, the other terms in design order) of a fit's design."""
    terms, intercept = [], False
    for label, sl in spec.term_slices():
        if label in _INTERCEPTS:
            intercept = True
        else:
            terms.append(Term(label, factors_of(label), range(sl.start, sl.stop)))
    return intercept, terms


def drop_candidates(terms: list[Term], lower: frozenset = frozenset()) -> list[Term]:
    """R's ``factor.scope(drop=)``: the terms outside ``lower`` (factor sets) not contained in
    another such term (no main effect goes while its interaction stays)."""
    pool = [t for t in terms if t.factors not in lower]
    return [t for t in pool if not any(t.factors < u.factors for u in pool if u is not t)]


def add_candidates(current: list[Term], upper: list[Term]) -> list[Term]:
    """R's ``factor.scope(add=)``: the terms of ``upper`` not in the model none of whose
    margins is itself still to be added."""
    have = {t.factors for t in current}
    pool = [t for t in upper if t.factors not in have]
    return [t for t in pool if not any(u.factors < t.factors for u in pool if u is not t)]


# ----------------------------------------------------------------------------- checks
def _check_fit(fit, what: str):
    model = getattr(fit, "model", None)
    if getattr(fit, "fweights", None) is not None or model == "fmaxent":
        raise ModelComparisonError(
            f"{what}: {type(fit).__name__} is an F-measure maximiser; its weights are chosen "
            "from the fit itself, so its deviance is not a likelihood and AIC and deviance "
            "tests do not apply. Compare F-maximisers by cross-validated F (fm.cv_tune) or "
            "the bootstrap.")
    if model not in ("maxent", "umaxent") or not hasattr(fit, "core_fit"):
        raise ModelComparisonError(
            f"{what} needs a maxent() or umaxent() fit (a likelihood); got "
            f"{type(fit).__name__}. An SVM's or cost-sensitive learner's loss is not a "
            "likelihood: compare them by cross-validated F (fm.cv_tune).")
    if getattr(fit, "X", None) is None:
        raise ModelComparisonError(
            f"{what}: the fit keeps no design matrix (out of core, or keep_data=False), so its "
            "sub-models cannot be refitted; refit it in memory with keep_data=True.")
    if fit.settings["penalty"]:
        raise ModelComparisonError(
            f"{what}: the fit has a ridge penalty ({fit.settings['penalty']:g}); deviances "
            "and AIC of penalised fits are not those of the likelihood. Refit with penalty=0.")


def _check_test(test) -> str:
    test = "none" if test is None else test
    check_choice("test", test, STEP_TESTS)
    return "LRT" if test == "Chisq" else test


def _dispersion(fit, scale) -> float:
    if scale is None or scale == 0:
        return float(fit.dispersion)
    check_scalar("scale", scale, low=0, low_open=True)
    return float(scale)


def _edf(fit) -> int:
    """R's ``extractAIC`` edf: n - df.residual (the rank unless weights are 0)."""
    return int(fit.nobs - fit.df_resid)


def extract_aic(fit, k: float = 2.0) -> float | None:
    """R's ``extractAIC(fit, k)``: ``aic + (k - 2) * edf`` (None without an AIC).

    Parameters
    ----------
    fit : MaxentResults
        A maxent/umaxent fit.
    k : float, default 2
        The penalty per parameter (``log(n)`` gives the BIC).

    Returns
    -------
    float or None
        The criterion, or None.
    """
    return None if fit.aic is None else float(fit.aic + (k - 2.0) * _edf(fit))


# ----------------------------------------------------------------------------- fits
def _subfit(fit, X, tol):
    """(rank, deviance, mu, working residuals, working weights) of the model on columns X."""
    y, w, off = fit.y, fit.count_weights, fit.training.offset
    if X.shape[1] == 0:
        eta = np.zeros(len(y)) if off is None else off
        mu = 1.0 / (1.0 + np.exp(-eta))
        from ..glm import binomial_deviance

        return 0, binomial_deviance(y, mu, w), mu
    keep = independent_columns(rank_gram(X, w))
    Xk = X if keep.all() else np.ascontiguousarray(X[:, keep])
    f = irls_logit(Xk, y, w, tol=tol, max_iter=max(fit.settings["max_iter"], 100), warn=False,
                   offset=off)
    return int(keep.sum()), float(f.deviance), f.mu


def _score(X, r, w) -> float:
    """Rao's score statistic as R computes it, ``glm.fit(X, r, w)$null.deviance -
    $deviance`` (gaussian): the weighted sum of squares of the working residuals ``r`` about
    their weighted mean minus the residual sum of squares of ``r`` regressed on X."""
    sw = np.sqrt(w)
    X = X.toarray() if is_sparse(X) else X          # a least-squares solve on the dense design
    coef = np.linalg.lstsq(X * sw[:, None], r * sw, rcond=None)[0]
    rss = float(np.sum(w * (r - X @ coef) ** 2))
    mean = float(np.dot(w, r) / np.sum(w))
    return float(np.sum(w * (r - mean) ** 2)) - rss


def _working(fit, mu):
    """R's working residuals and weights of a logit fit with fitted probabilities ``mu``."""
    v = mu * (1 - mu)
    return (fit.y - mu) / v, fit.count_weights * v


def _full_columns(fit) -> np.ndarray:
    """For each column of the full design, its column in ``fit.X`` (-1 when aliased)."""
    pos = np.full(len(fit.aliased), -1)
    pos[~np.asarray(fit.aliased)] = np.arange(int((~np.asarray(fit.aliased)).sum()))
    return pos


# ----------------------------------------------------------------------------- drop1
def _scope_labels(scope, what):
    """Term labels of a drop1/add1 ``scope``: a list of labels, or a formula's terms."""
    if isinstance(scope, (list, tuple)) and all(isinstance(s, str) for s in scope):
        return [re.sub(r"\s+", "", s) for s in scope]
    raise InvalidArgumentError(
        f"`scope` of {what} must be a formula such as '~ . + age' or a list of term labels; "
        f"got {describe(scope)}.")


def drop1(fit, scope=None, *, test: str | None = None, k: float = 2.0,
          scale: float | None = None) -> TermTable:
    """Single-term deletions, as R's ``drop1`` (``drop1.glm``).

    Parameters
    ----------
    fit : MaxentResults
        An unpenalised ``maxent``/``umaxent`` fit that keeps its design.
    scope : list of str or str, optional
        The terms to try: labels as in ``fit.spec.term_slices()``, or a formula of them
        (``"~ age + sibsp"``); default every term not contained in another (R's
        ``drop.scope``).
    test : {"none", "Chisq", "LRT", "F", "Rao"}, optional
        The test of each deletion (default none).
    k : float, default 2
        The AIC's penalty per parameter (``log(n)`` for the BIC).
    scale : float, optional
        The dispersion of the tests and AIC (default the fit's: 1, or Pearson's for quasi
        fits).

    Returns
    -------
    TermTable
        Rows ``"<none>"`` and one per term.

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete(["survived", "pclass", "sex", "age", "sibsp", "parch"])
    >>> fit = fm.maxent("survived ~ C(pclass) * sex + age + sibsp + parch", t)
    >>> print(fm.drop1(fit, test="Chisq"))
    Single term deletions
    <BLANKLINE>
    Model:
    survived ~ C(pclass) * sex + age + sibsp + parch
                  Df Deviance    AIC    LRT  Pr(>Chi)
    <none>             918.09 936.09
    age            1   961.75 977.75 43.665 3.896e-11 ***
    sibsp          1   931.95 947.95 13.865 0.0001965 ***
    parch          1   919.40 935.40  1.307 0.2530133
    C(pclass):sex  2   970.12 984.12 52.030 5.034e-12 ***
    ---
    Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1

    The main effects ``C(pclass)`` and ``sex`` are not candidates while their interaction
    stays (R's marginality).
    """
    _check_fit(fit, "drop1")
    test = _check_test(test)
    check_scalar("k", k, low=0)
    disp = _dispersion(fit, scale)
    warn_f_test("drop1", test, family=fit.family, fixed_dispersion=scale is not None,
                terms=True)
    terms = model_terms(fit.spec)[1]
    if scope is None:
        chosen = drop_candidates(terms)
    else:
        if isinstance(scope, str):
            scope = _formula_labels(fit, scope, None, "drop1")
        labels = _scope_labels(scope, "drop1")
        by = {re.sub(r"\s+", "", t.label): t for t in terms}
        unknown = [s for s in labels if s not in by]
        if unknown:
            raise InvalidArgumentError(
                f"`scope` of drop1 names {', '.join(map(repr, unknown))}, which are not terms "
                f"of the model ({', '.join(t.label for t in terms)}).")
        chosen = [by[s] for s in labels]
    return _drop_table(fit, chosen, test, k, disp)


def _drop_table(fit, chosen, test, k, disp) -> TermTable:
    pos = _full_columns(fit)
    tol = fit.settings["tol"]
    ranks, devs, scores = [fit.rank], [float(fit.deviance)], [np.nan]
    for t in chosen:
        keep = pos[np.setdiff1d(np.flatnonzero(pos >= 0), np.asarray(t.columns))]
        X = fit.X[:, keep] if is_sparse(fit.X) else np.ascontiguousarray(fit.X[:, keep])
        rank, dev, mu = _subfit(fit, X, tol)
        ranks.append(rank)
        devs.append(dev)
        if test == "Rao":
            r, w = _working(fit, mu)
            scores.append(_score(fit.X, r, w))
    heading = ["Single term deletions", "", "Model:", fit.formula]
    return term_table(fit, [t.label for t in chosen], ranks, devs, test, k, disp,
                  [], heading, False, scores)


# ----------------------------------------------------------------------------- add1
def _rhs(labels, intercept, offsets) -> str:
    parts = list(labels) + [f"offset({o})" for o in offsets]
    rhs = " + ".join(parts) if parts else "1"
    return rhs if intercept else f"{rhs} - 1"


def _check_scope_formula(scope, what):
    if not isinstance(scope, str) or "~" not in scope:
        raise InvalidArgumentError(
            f"`scope` of {what} must be a formula such as '~ . + age + C(pclass):sex' ('.' "
            f"stands for the model's terms); got {describe(scope)}.")
    sides = split_tilde(scope)
    if sides is None:
        raise FormulaError(f"`scope` of {what} has more than one '~': {scope!r}.")
    lhs, rhs = (side.strip() for side in sides)
    if not rhs:
        raise FormulaError(f"`scope` of {what} has no terms after '~': {scope!r}.")
    return lhs, rhs


def _upper_formula(fit, scope, what) -> str:
    """``fit``'s response ~ ``scope`` with ``.`` the model's right-hand side (R's
    ``update.formula``)."""
    _, rhs = _check_scope_formula(scope, what)
    lhs = split_formula(fit.formula)[0]
    cur = _rhs(_labels(fit), model_terms(fit.spec)[0], [])
    rhs = re.sub(r"(?<![\w.])\.(?![\w.])", f"({cur})", rhs)
    return f"{lhs} ~ {rhs}"


def _labels(fit):
    return [t.label for t in model_terms(fit.spec)[1]]


def training_rows(fit, data, what: str) -> pd.DataFrame:
    """The rows of ``data`` that ``fit`` used (by index label), or a clear error."""
    if not isinstance(data, pd.DataFrame):
        raise InvalidArgumentError(
            f"{what} needs `data`, the DataFrame the model was fitted on; got {describe(data)}.")
    if not data.index.is_unique:
        raise DataError(f"{what}: `data` has duplicate index labels, so the rows the model was "
                        "fitted on cannot be located.")
    absent = fit.index.difference(data.index)
    if len(absent):
        raise DataError(f"{what}: `data` lacks {len(absent)} of the rows the model was fitted "
                        f"on (e.g. index label {absent[0]!r}); pass the training DataFrame.")
    return data.loc[fit.index]


def _same_data(fit, rows, what) -> None:
    """Refuse rows of ``data`` that are not the fit's (the same index labels, other values):
    add1 and step set the fit's deviance beside refits on them, so the rows must give the
    fit's response, design and offset again (a :class:`ModelComparisonError` saying which
    differs)."""
    resp, X, _ = fit.spec.build_with_response(rows, missing="raise", arg="data")
    X = X[:, ~np.asarray(fit.aliased)]
    own = fit.X.toarray() if is_sparse(fit.X) else np.asarray(fit.X)
    problem = None
    if resp.y.shape != fit.y.shape or not np.allclose(resp.y, fit.y, rtol=1e-10, atol=1e-12):
        problem = "its response differs"
    elif X.shape != own.shape or not np.allclose(X, own, rtol=1e-10, atol=1e-12):
        problem = "the design of the model's terms differs"
    elif fit.spec.offsets and not fit.spec.offset_array:
        off = fit.spec.offset_values(rows)
        if not np.allclose(off, fit.training.offset, rtol=1e-10, atol=1e-12):
            problem = "its offset differs"
    if problem is not None:
        raise ModelComparisonError(
            f"{what}: `data` is not the data the model was fitted on ({problem} on the rows the "
            "model used), so the model's deviance cannot be compared with refits on it; pass "
            "the training DataFrame.")


def _frame_of(fit, formula, data, what):
    """The model frame of ``formula`` on the rows ``fit`` used (same options), after checking
    that they are the fit's rows (:func:`_same_data`)."""
    rows = training_rows(fit, data, what)
    _same_data(fit, rows, what)
    s = fit.settings
    try:
        mf = model_frame(formula, rows, missing="raise", engine=s["engine"],
                         contrasts=s.get("contrasts"),
                         offset=s.get("offset") if isinstance(s.get("offset"), str) else None)
    except DataError as exc:
        raise DataError(f"{what}: the scope's variables are missing in rows the model used "
                        f"({exc}); drop those rows from the data and refit first.") from None
    return rows, mf


def _formula_labels(fit, scope, data, what) -> list:
    """The term labels of a scope formula (without data: parsed by formulaic)."""
    from formulaic import Formula

    _, rhs = _check_scope_formula(scope, what)
    cur = _rhs(_labels(fit), True, [])
    rhs = re.sub(r"(?<![\w.])\.(?![\w.])", f"({cur})", rhs)
    try:
        terms = list(Formula(rhs.replace("^", "**")))
    except Exception as exc:
        raise FormulaError(f"`scope` of {what}: cannot parse {scope!r}: {exc}") from None
    return [str(t) for t in terms if str(t) not in _INTERCEPTS]


def add1(fit, scope, data: pd.DataFrame, *, test: str | None = None, k: float = 2.0,
         scale: float | None = None) -> TermTable:
    """Single-term additions, as R's ``add1`` (``add1.glm``).

    Parameters
    ----------
    fit : MaxentResults
        An unpenalised ``maxent``/``umaxent`` fit that keeps its design.
    scope : str
        The upper model as a formula, ``"~ . + age + parch"`` (``.`` is the model's terms);
        the terms of it that the model lacks and whose margins it has are tried.
    data : DataFrame
        The data the model was fitted on (the new terms' columns are read from its rows).
    test : {"none", "Chisq", "LRT", "F", "Rao"}, optional
        The test of each addition (default none).
    k : float, default 2
        The AIC's penalty per parameter.
    scale : float, optional
        The dispersion of the tests and AIC (default the fit's).

    Returns
    -------
    TermTable
        Rows ``"<none>"`` and one per term added.

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ sex", t)
    >>> print(fm.add1(fit, "~ . + C(pclass) + age + sibsp", t, test="Rao"))
    Single term additions
    <BLANKLINE>
    Model:
    survived ~ sex
              Df Deviance    AIC Rao score Pr(>Chi)
    <none>         1102.0 1106.0
    C(pclass)  2   1013.8 1021.8    88.422  < 2e-16 ***
    age        1   1101.3 1107.3     0.668  0.41378
    sibsp      1   1095.7 1101.7     5.999  0.01432 *
    ---
    Signif. codes:  0 '***' 0.001 '**' 0.01 '*' 0.05 '.' 0.1 ' ' 1
    """
    _check_fit(fit, "add1")
    test = _check_test(test)
    check_scalar("k", k, low=0)
    disp = _dispersion(fit, scale)
    warn_f_test("add1", test, family=fit.family, fixed_dispersion=scale is not None,
                terms=True)
    upper = _upper_formula(fit, scope, "add1")
    return _add_table(fit, upper, data, test, k, disp)


def _add_table(fit, upper, data, test, k, disp, candidates=None) -> TermTable:
    """add1 of the terms of ``upper`` that ``fit`` lacks (or of ``candidates``, labels)."""
    lhs, rhs = split_formula(upper)
    intercept, current = model_terms(fit.spec)
    big_rhs = _rhs(_labels(fit) + [rhs], intercept, formula_offsets(fit))
    _, mf = _frame_of(fit, f"{lhs} ~ {big_rhs}", data, "add1")
    _, big_terms = model_terms(mf.spec)
    have = {t.factors for t in current}
    old_cols = [j for t in big_terms if t.factors in have for j in t.columns]
    if intercept:
        old_cols = [j for lab, sl in mf.spec.term_slices() if lab in _INTERCEPTS
                    for j in range(sl.start, sl.stop)] + old_cols
    if candidates is None:
        upper_terms = [t for t in big_terms]
        candidates = add_candidates(current, upper_terms)
    else:
        by = {t.factors: t for t in big_terms}
        candidates = [by[c] for c in candidates]
    X, tol = mf.X, fit.settings["tol"]
    X0 = np.ascontiguousarray(X[:, sorted(old_cols)])
    rank0, dev0, mu0 = _subfit(fit, X0, tol)
    ranks, devs, scores = [rank0], [dev0], [np.nan]
    r, w = _working(fit, mu0)
    for t in candidates:
        cols = sorted(set(old_cols) | set(t.columns))
        Xt = np.ascontiguousarray(X[:, cols])
        rank, dev, _ = _subfit(fit, Xt, tol)
        ranks.append(rank)
        devs.append(dev)
        if test == "Rao":
            scores.append(_score(Xt, r, w))
    heading = ["Single term additions", "", "Model:", fit.formula]
    return term_table(fit, [t.label for t in candidates], ranks, devs, test, k, disp,
                  [], heading, True, scores)


# ----------------------------------------------------------------------------- step
def _scope_sets(fit, scope, data):
    """(lower factor sets, upper formula or None) of step's ``scope``."""
    if scope is None:
        return frozenset(), None
    if isinstance(scope, dict):
        extra = set(scope) - {"lower", "upper"}
        if extra:
            raise InvalidArgumentError(f"`scope` of step takes keys 'lower' and 'upper'; got "
                                       f"{', '.join(map(repr, sorted(extra)))}.")
        lower = scope.get("lower")
        low = frozenset() if lower is None else frozenset(
            factors_of(lab) for lab in _formula_labels(fit, lower, data, "step"))
        up = scope.get("upper")
        return low, None if up is None else _upper_formula(fit, up, "step")
    return frozenset(), _upper_formula(fit, scope, "step")


@public
def step(fit, scope=None, data: pd.DataFrame | None = None, *, direction: str = "both",
         k: float = 2.0, steps: int = 1000, scale: float | None = None) -> StepResults:
    """Choose a model by AIC in a stepwise algorithm, as R's ``step`` / ``MASS::stepAIC``.

    Parameters
    ----------
    fit : MaxentResults
        The initial model: an unpenalised ``maxent`` fit (binomial, with an AIC).
    scope : str or dict, optional
        The upper model as a formula (``"~ . + age + C(pclass):sex"``) or ``{"lower": formula,
        "upper": formula}``; default: the initial model's terms (backward only, as R).
    data : DataFrame, optional
        The data the model was fitted on (every step refits from the formula on its rows);
        default the rows the fit kept, as every function that refits (user guide, *Refits
        without data=*): a model with a term dropped takes the columns of the fit's design
        (identical under R's marginality); adding terms (an upper ``scope``) needs ``data``.
    direction : {"both", "backward", "forward"}, default "both"
        Drop and add terms, only drop or only add (R's default is "backward" when ``scope``
        is missing).
    k : float, default 2
        The penalty per parameter: 2 for the AIC, ``log(n)`` for the BIC.
    steps : int, default 1000
        The maximum number of steps.
    scale : float, optional
        The dispersion of the AIC (default the fit's).

    Returns
    -------
    StepResults
        The selected ``model``, the ``path`` of accepted steps and the candidate ``tables``.

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete(["survived", "pclass", "sex", "age", "sibsp", "parch"])
    >>> fit = fm.maxent("survived ~ C(pclass) * sex + age + sibsp + parch", t)
    >>> sel = fm.step(fit, data=t)
    >>> print(sel)
    Stepwise Model Path
    Analysis of Deviance Table
    <BLANKLINE>
    Initial Model:
    survived ~ C(pclass) * sex + age + sibsp + parch
    <BLANKLINE>
    Final Model:
    survived ~ C(pclass) + sex + age + sibsp + C(pclass):sex
    <BLANKLINE>
          Step Df Deviance Resid. Df Resid. Dev      AIC
    1                           1037   918.0895 936.0895
    2  - parch  1  1.30659      1038   919.3961 935.3961
    >>> sel.model.aic < fit.aic
    True
    """
    _check_fit(fit, "step")
    check_choice("direction", direction, ("both", "backward", "forward"))
    check_scalar("k", k, low=0)
    check_scalar("steps", steps, low=1, integer=True)
    disp = _dispersion(fit, scale)
    if extract_aic(fit, k) is None:
        raise ModelComparisonError(
            "step: AIC is not defined for this model (a quasi-likelihood or probabilistic-label "
            "fit), so step cannot proceed; compare models with drop1(test='F') or anova.")
    lower, upper = _scope_sets(fit, scope, data)
    if data is None and upper is not None:
        raise InvalidArgumentError(
            "step: an upper `scope` adds terms, whose variables come from `data`: pass `data=` "
            "(the DataFrame the model was fitted on). Without data, step drops terms only, "
            "refitting on the rows the fit kept (R's default without a scope).")
    backward = direction in ("both", "backward")
    forward = direction in ("both", "forward") and (scope is not None or direction != "both")
    if scope is None and direction == "both":
        forward = False                   # R: without scope, backward only
    upper_terms = None
    if upper is not None:
        _, mf = _frame_of(fit, upper, data, "step")
        upper_terms = model_terms(mf.spec)[1]
    start = fit.formula
    rows = [{"step": "", "df": np.nan, "deviance": np.nan, "resid_df": float(fit.nobs - _edf(fit)),
             "resid_dev": float(fit.deviance), "aic": extract_aic(fit, k)}]
    tables = []
    current = fit
    for _ in range(int(steps)):
        aic_now = extract_aic(current, k)
        _, terms = model_terms(current.spec)
        cand = []
        if backward:
            drops = drop_candidates(terms, lower)
            if drops:
                cand.append(("-", _drop_table(current, drops, "none", k, disp)))
        if forward and upper_terms is not None:
            adds = add_candidates(terms, upper_terms)
            if adds:
                cand.append(("+", _add_table(current, upper, data, "none", k, disp,
                                             [t.factors for t in adds])))
        if not cand:
            break
        table = _joined(cand)
        tables.append(table)
        choice = _choose(table)
        if choice == "<none>":
            break
        sign, label = choice.split(" ", 1)
        labels = _labels(current)
        labels = [x for x in labels if x != label] if sign == "-" else labels + [label]
        lhs = split_formula(current.formula)[0]
        intercept = model_terms(current.spec)[0]
        formula = f"{lhs} ~ {_rhs(labels, intercept, formula_offsets(current))}"
        new = (_refit(current, formula, data) if data is not None
               else _kept_refit(current, labels, formula))
        if new.nobs != current.nobs:
            raise DataError("step: the number of rows in use has changed; remove the rows with "
                            "missing values in the scope's variables from the data first.")
        aic_new = extract_aic(new, k)
        if aic_new >= aic_now + 1e-7:
            break
        rows.append({"step": choice, "df": float(_edf(current) - _edf(new)),
                     "deviance": abs(float(current.deviance - new.deviance)),
                     "resid_df": float(new.nobs - _edf(new)), "resid_dev": float(new.deviance),
                     "aic": aic_new})
        current = new
    path = pd.DataFrame(rows)
    return StepResults(current, path, tables, start, float(k))


def _joined(cand) -> TermTable:
    parts = []
    for i, (sign, t) in enumerate(cand):
        t = pd.DataFrame(t)
        t.index = [ix if ix == "<none>" else f"{sign} {ix}" for ix in t.index]
        parts.append(t if i == 0 else t.iloc[1:])
    joined = pd.concat(parts)
    joined = joined[~(joined["df"] == 0)]          # R: terms with zero df are not candidates
    return TermTable(joined)


def _choose(table) -> str:
    """The row with the smallest AIC; ties within AIC_RTOL go to the earlier row (R's stable
    ``order``: "<none>" first, then deletions, then additions)."""
    aic = table["aic"].to_numpy(dtype=float)
    best = float(np.nanmin(aic))
    tied = np.flatnonzero(aic <= best + AIC_RTOL * max(abs(best), 1.0))
    return str(table.index[int(tied[0])])


def _refit(fit, formula, data):
    """``fit``'s call with another formula, on the rows it used: contrasts are in the term
    labels now (not passed again), ``subset`` has been applied, and arguments given per row
    are those of the rows used."""
    import warnings

    rows = training_rows(fit, data, "step")
    changes = {"formula": formula}
    for name in ("contrasts", "subset"):
        if fit.call.given(name):
            changes[name] = None
    changes.update(_row_weights(fit))
    offset = fit.settings.get("offset")
    if fit.call.given("offset") and (not isinstance(offset, str) or offset == ARRAY_WEIGHTS):
        changes["offset"] = array_offset(fit, rows)   # the formula evaluates its own terms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FmstatsWarning)   # the initial fit has warned already
        return fit.call.refit(rows, **changes)


def _row_weights(fit) -> dict:
    """``{"weights": the prior weights}`` when they were given as an array (they belong to the
    rows: a refit on the same rows is given them again), else ``{}``."""
    w = fit.settings.get("weights")
    if w is None or (isinstance(w, str) and w != ARRAY_WEIGHTS):
        return {}
    return {"weights": fit.prior_weights}


def _kept_refit(fit, labels, formula):
    """``fit``'s call with the smaller ``formula`` (terms ``labels``), refitted on the rows
    the fit kept: the columns of its design that the kept terms own, encoded as the fit
    encodes them (:meth:`~fmstats.formula.DesignSpec.subset`).  Arguments given per row are
    the kept rows' (a subset was applied, an offset array is carried), as in
    :func:`fmstats.bootstrap` without data."""
    import warnings

    from .._utils.call import RowArgument
    from ..formula import KeptRows

    keep = [(lab, sl) for lab, sl in fit.spec.term_slices()
            if lab == "Intercept" or lab in labels]
    columns = np.concatenate([np.arange(sl.start, sl.stop) for _, sl in keep])
    spec = fit.spec.subset([lab for lab, _ in keep], split_formula(formula)[1])
    rows = KeptRows(fit, np.arange(len(fit.y)), columns=columns, spec=spec, formula=formula,
                    labels=fit.index)
    args = fit.call.arguments
    changes = {"formula": formula}
    for name in ("contrasts", "subset", "offset"):
        if fit.call.given(name) and (name != "offset" or isinstance(args[name], RowArgument)):
            changes[name] = None
    changes.update(_row_weights(fit))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FmstatsWarning)   # the initial fit has warned already
        return fit.call.refit(rows, **changes)
