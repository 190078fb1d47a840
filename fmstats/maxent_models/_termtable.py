"""The tables of ``_stepwise.py``: single-term deletions and additions
(:class:`TermTable`, R's ``drop1``/``add1`` print) and the outcome of ``step``
(:class:`StepResults`, R's ``fit$anova``).
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["TermTable", "StepResults", "term_table", "warn_f_test", "r_anova_text"]


class TermTable(pd.DataFrame):
    """A table of single-term deletions or additions, printed like R's ``drop1``/``add1``.

    Rows ``"<none>"`` (the model) and one per term; columns ``df``, ``deviance``, ``aic``
    (absent without an AIC, as for quasi fits) and, with a test, ``statistic`` (LRT, F or Rao
    score) and ``p_value``.  ``heading`` holds R's header lines.  Built by :func:`drop1` and
    :func:`add1`; the constructor is :class:`pandas.DataFrame`'s.

    Parameters
    ----------
    data : ndarray, dict or DataFrame, optional
        The table's contents, as in :class:`pandas.DataFrame`.
    index : Index or array-like, optional
        Row labels, as in :class:`pandas.DataFrame`.
    columns : Index or array-like, optional
        Column labels, as in :class:`pandas.DataFrame`.
    dtype : dtype, optional
        Data type to force, as in :class:`pandas.DataFrame`.
    copy : bool, optional
        Whether to copy the data, as in :class:`pandas.DataFrame`.
    """

    _metadata = ["heading"]

    @property
    def _constructor(self):
        return pd.DataFrame

    def _columns(self) -> dict:
        """R's column labels and values, in R's order."""
        labels = {"df": "Df", "deviance": "Deviance", "aic": "AIC",
                  "statistic": self.attrs.get("statistic", ""),
                  "p_value": self.attrs.get("p_label", "Pr(>Chi)")}
        return {labels[c]: self[c].to_numpy(float)
                for c in ("df", "deviance", "aic", "statistic", "p_value") if c in self.columns}

    def _cells(self) -> pd.DataFrame:
        from ..results import anova_columns

        return pd.DataFrame(anova_columns(self._columns()), index=self.index)

    def __str__(self) -> str:
        from ..results import anova_columns

        return r_anova_text(getattr(self, "heading", None), anova_columns(self._columns()),
                            self.index)

    def __repr__(self) -> str:
        return self.__str__()

    def _repr_html_(self) -> str:
        head = "".join(f"<p>{html.escape(h)}</p>" for h in (getattr(self, "heading", None) or [])
                       if h)
        return head + self._cells().to_html(escape=True)


def r_anova_text(heading, cells: dict, index) -> str:
    """The text of R's ``print.anova``: the heading lines, the table and, when it has
    significance stars, R's legend."""
    from ..results import SIGNIF_LEGEND, r_matrix_text

    out = list(heading or []) + r_matrix_text(cells, index)
    if "" in cells:
        out += ["---", SIGNIF_LEGEND]
    return "\n".join(out)


def term_table(fit, labels, ranks, devs, test, k, dispersion, extra, heading, add: bool,
           scores=None) -> TermTable:
    """R's drop1.glm / add1.glm table from the models' ranks and deviances (row 0: the fit)."""
    ranks, devs = np.asarray(ranks, dtype=float), np.asarray(devs, dtype=float)
    loglik = devs / dispersion
    aic0 = None if fit.aic is None else float(fit.aic + (k - 2.0) * (fit.nobs - fit.df_resid))
    df = (ranks - ranks[0]) if add else (ranks[0] - ranks)
    df[0] = np.nan
    data = {"df": df, "deviance": devs}
    if aic0 is not None:
        aic = loglik + k * ranks
        data["aic"] = aic + (aic0 - aic[0])
    stat = p = None
    label = {"LRT": "LRT" if dispersion == 1 else "scaled dev.",
             "Rao": "Rao score" if dispersion == 1 else "scaled Rao sc.", "F": "F value"}
    if test == "LRT":
        stat = np.maximum(0.0, (loglik[0] - loglik) if add else (loglik - loglik[0]))
    elif test == "Rao":
        stat = np.maximum(0.0, np.asarray(scores, dtype=float)) / dispersion
    elif test == "F":
        rdf = float(fit.df_resid)
        if add:
            diff = np.maximum(0.0, (devs[0] - devs) / df)
            stat = diff / (devs / (rdf - df))
            dfd = rdf - df
        else:
            stat = np.maximum(0.0, devs - devs[0]) / df / (devs[0] / rdf)
            dfd = np.full(len(devs), rdf)
        stat[~(df >= 1e-4)] = np.nan
    if stat is not None:
        stat = np.asarray(stat, dtype=float)
        stat[0] = np.nan
        p = np.full(len(stat), np.nan)
        ok = np.isfinite(stat) & (df > 0)
        if test == "F":
            p[ok] = stats.f.sf(stat[ok], df[ok], dfd[ok])
        else:
            p[ok] = stats.chi2.sf(stat[ok], df[ok])
        data["statistic"], data["p_value"] = stat, p
    t = TermTable(pd.DataFrame(data, index=pd.Index(["<none>"] + list(labels))))
    t.heading = heading + extra
    t.attrs.update(statistic=label.get(test, ""), p_label="Pr(>F)" if test == "F" else
                   "Pr(>Chi)", test=test, k=float(k), dispersion=float(dispersion))
    return t


def warn_f_test(what: str, test: str, *, family: str, fixed_dispersion: bool,
                terms: bool) -> None:
    """R's warning for an F test where the dispersion is not estimated: ``drop1``/``add1``
    (``terms``) of a binomial fit, "F test assumes 'quasibinomial' family"; ``anova`` of a
    binomial fit, "using F test with a 'binomial' family is inappropriate", or of a quasi fit
    given a fixed ``dispersion``, "using F test with a fixed dispersion is inappropriate"."""
    if test != "F":
        return
    from .._utils.validation import warn
    from ..exceptions import InappropriateTestWarning

    advice = ("the binomial dispersion is 1, not estimated, so the F statistic's denominator "
              "is not a variance estimate; use test='Chisq' (the likelihood-ratio test), or "
              "fit umaxent() (quasibinomial) if the data are overdispersed")
    if family == "binomial":
        head = ("F test assumes 'quasibinomial' family" if terms
                else "using F test with a 'binomial' family is inappropriate")
        warn(f"{what}: {head}: {advice}.", InappropriateTestWarning)
    elif fixed_dispersion and not terms:
        warn(f"{what}: using F test with a fixed dispersion is inappropriate: a dispersion "
             "given as `dispersion=` is not estimated, so test='Chisq' applies to it; leave "
             "`dispersion` unset for the F test with the estimated one.",
             InappropriateTestWarning)


class StepResults:
    """The outcome of :func:`step`: the selected model and the path that led to it.

    As R's ``step()`` returns the selected model, the selected model's attributes and methods
    are the result's too: ``result.predict(newdata)``, ``result.params``,
    ``result.summary()``, ``result.save(path)`` (which saves the selected model:
    ``load`` gives it back as a model, without the path).

    Attributes
    ----------
    model : MaxentResults
        The selected model, refitted from its formula.
    path : pandas.DataFrame
        R's ``fit$anova``: per accepted step, its ``step`` ("- age", "+ C(pclass)"), ``df``,
        ``deviance``, ``resid_df``, ``resid_dev`` and ``aic``.
    tables : list of TermTable
        The candidate table of every step (R's ``trace``), sorted by AIC.
    start : str
        The formula of the initial model.
    k : float
        The AIC's penalty per parameter.

    Parameters
    ----------
    model : MaxentResults
        The selected model.
    path : pandas.DataFrame
        The accepted steps.
    tables : list of TermTable
        The candidate tables.
    start : str
        The initial formula.
    k : float
        The penalty per parameter.
    """

    def __init__(self, model, path: pd.DataFrame, tables: list, start: str, k: float):
        self.model, self.path, self.tables, self.start, self.k = model, path, tables, start, k

    def __getattr__(self, name: str):
        # R's step() returns the selected model (with the path as its $anova): the model's
        # own attributes and methods are the result's (predict, summary, params, save...)
        model = self.__dict__.get("model")
        if name.startswith("_") or model is None:
            raise AttributeError(name)
        try:
            return getattr(model, name)
        except AttributeError:
            raise AttributeError(
                f"'StepResults' object has no attribute {name!r}, nor has its selected model "
                f"({type(model).__name__}); StepResults holds `model`, `path`, `tables`, "
                "`start`, `k`.") from None

    @property
    def formula(self) -> str:
        """The selected model's formula."""
        return self.model.formula

    def _cells(self) -> pd.DataFrame:
        p = self.path
        num = {"df": ("Df", "{:.0f}"), "deviance": ("Deviance", "{:.6g}"),
               "resid_df": ("Resid. Df", "{:.0f}"), "resid_dev": ("Resid. Dev", "{:.7g}"),
               "aic": ("AIC", "{:.7g}")}
        out = {"Step": p["step"].tolist()}
        for col, (label, fmt) in num.items():
            out[label] = ["" if not np.isfinite(v) else fmt.format(v)
                          for v in p[col].to_numpy(float)]
        return pd.DataFrame(out, index=pd.RangeIndex(1, len(p) + 1))

    def __str__(self) -> str:
        return "\n".join(["Stepwise Model Path", "Analysis of Deviance Table", "",
                          "Initial Model:", self.start, "", "Final Model:", self.model.formula,
                          "", self._cells().to_string()])

    def __repr__(self) -> str:
        return self.__str__()

    def _repr_html_(self) -> str:
        return ("<p><b>Stepwise Model Path</b> (analysis of deviance)</p>"
                f"<p>Initial model: <code>{html.escape(self.start)}</code><br>"
                f"Final model: <code>{html.escape(self.model.formula)}</code></p>"
                + self._cells().to_html(escape=True))


