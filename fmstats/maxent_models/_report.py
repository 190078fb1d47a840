"""The R-style report of maxent-family fits: ``summary()`` in ``summary.glm``'s layout plus an
F-measure section, and its pieces (covariance label, NA footnotes, weights and response text).

:func:`maxent_summary` builds the report of a :class:`fmstats.MaxentResults` (or
``FMaxentResults``) from its public protocol -- ``tidy``, ``confusion``, ``noisy_f``, the
deviances, ``settings``, ``training`` -- and four hooks the results classes define, which is
how ``FMaxentResults`` tells its own story: ``iteration_lines()``, ``cov_label(cov_type)``,
``se_footnotes(tidy, cov_type)`` and ``se_advice()``; the base versions are here
(:func:`iteration_lines`, :func:`cov_label`, :func:`se_footnotes`).
"""
from __future__ import annotations

import pandas as pd

from ..results import Section, Summary, format_numbers

__all__ = ["SummaryHooks", "maxent_summary", "dispersion_lines", "cov_label", "se_footnotes",
           "iteration_lines", "weights_text", "response_text", "f_section"]

def maxent_summary(results, cov_type: str | None = None, level: float = 0.95) -> Summary:
    """R's ``summary.glm`` layout plus an F-measure section for a maxent-family fit."""
    r = results
    cov_type = r.cov_type if cov_type is None else cov_type
    tidy = r.tidy(level=level, cov_type=cov_type)
    stat = "t value" if r.use_t else "z value"
    pname = "Pr(>|t|)" if r.use_t else "Pr(>|z|)"
    note = ""
    if r.aliased.any():
        note = f"({int(r.aliased.sum())} not defined because of singularities)"
    devs = format_numbers([r.null_deviance, r.deviance], digits=5)  # R: digits + 1
    dfs = [str(d).rjust(len(str(max(r.df_null, r.df_resid)))) for d in (r.df_null, r.df_resid)]
    dev_lines = dispersion_lines(r, cov_type) + [
        f"    Null deviance: {devs[0]}  on {dfs[0]}  degrees of freedom",
        f"Residual deviance: {devs[1]}  on {dfs[1]}  degrees of freedom",
    ]
    if r.n_dropped:
        dev_lines.append(f"  ({r.n_dropped} observations deleted due to missingness)")
    aic = r.aic
    dev_lines.append(f"AIC: {aic:.2f}" if aic is not None else "AIC: NA (quasi-likelihood)")
    odd = r.training.noninteger_successes() if aic is not None else 0
    if odd:
        dev_lines.append(f"  (non-integer #successes in {odd} row(s), as R warns: the AIC of the "
                         "weighted likelihood, not of binomial counts)")
    dev_lines.append("")
    dev_lines.extend(r.iteration_lines())
    sections = [Section("", dev_lines), f_section(r)]
    info = [("Standard errors", r.cov_label(cov_type)),
            ("Confidence intervals", f"Wald, {100 * level:g}% level"),
            ("Weights", weights_text(r))]
    if r.settings["penalty"]:
        info.append(("Ridge penalty", f"{r.settings['penalty']:g} (intercept unpenalised)"))
    info.append(("Response", response_text(r)))
    subset = r.settings.get("subset")
    info.append(("Rows used", f"{r.nobs} of {r.n_input}" + (
        "" if subset is None else f" (subset: {subset})")))
    if r.settings.get("na_action") == "exclude":
        info.append(("Missing values", "na_action='exclude': row-level results are padded "
                     "with NaN at the rows left out"))
    if r.settings.get("offset") is not None or getattr(r.spec, "offsets", ()):
        info.append(("Offset", r.settings.get("offset") or " + ".join(r.spec.offsets)))
    sections.append(Section("Model details:", info))
    title = ("Weighted maximum entropy (logistic) model" if r.model == "maxent"
             else "Uncertain maximum entropy model (probabilistic labels)")
    if r.tests_withheld(cov_type) is not None:     # no z / p columns at all, not NA columns
        tidy = tidy.drop(columns=["statistic", "p_value"])
    return Summary(title=title, call=str(r.call), coef_table=tidy, statistic_name=stat,
                   pvalue_name=pname, coef_note=note, sections=sections,
                   coef_footnotes=r.se_footnotes(tidy, cov_type))


def dispersion_lines(results, cov_type: str) -> list[str]:
    """R's dispersion line.  An F-maximiser's "dispersion" is Pearson's chi-squared per
    residual df of the F-weighted fit, whose weights have an arbitrary scale (37174 on
    Titanic with F2): printed only when the standard errors use it (``cov_type="nonrobust"``),
    and then said what it is."""
    if getattr(results, "model", None) != "fmaxent":
        return [f"(Dispersion parameter for {results.family} family taken to be "
                f"{results.dispersion:.6g})", ""]
    if cov_type != "nonrobust":
        return []
    return [f"(Dispersion parameter taken to be {results.dispersion:.6g}: Pearson's chi-squared "
            "per residual df of the F-weighted fit, whose weights have an arbitrary scale; it "
            "scales these model-based standard errors)", ""]


def cov_label(results, cov_type: str) -> str:
    """The summary's "Standard errors" line: the covariance estimator's own label
    (``_covariance.py``)."""
    return results.covariance(cov_type).label()


def se_footnotes(results, tidy: pd.DataFrame, cov_type: str) -> list[str]:
    """One line saying why standard errors print as NA, and what to do (R prints NA too)."""
    why = results.se_unusable(cov_type)
    if why is not None:
        return [f"Std. errors, tests and Wald intervals are NA: {why}. {results.se_advice()}"]
    withheld = results.tests_withheld(cov_type)
    if withheld is not None:
        return [f"z values and p-values are withheld: {withheld}"]
    bad = tidy["std_error"].isna() & tidy["estimate"].notna()
    if bad.any():
        terms = ", ".join(map(str, tidy.loc[bad, "term"].head(3)))
        return [f"Std. errors NA for {terms}{' ...' if bad.sum() > 3 else ''}: the "
                "estimated variance is not finite and positive (a near-singular "
                "information matrix). Simplify the model or add a ridge `penalty=`."]
    return results.covariance(cov_type).footnotes()


def iteration_lines(results) -> list[str]:
    """The base "Number of Fisher Scoring iterations" lines."""
    conv = "converged" if results.converged else "DID NOT CONVERGE"
    lines = [f"Number of Fisher Scoring iterations: {results.iterations} ({conv}; "
             f"relative deviance change < {results.settings['tol']:g})"]
    if results.separated:
        lines.append(f"Warning: {results.separation_text} (separation); standard errors "
                     "are unreliable.")
    return lines


def weights_text(results) -> str:
    """The summary's "Weights" line."""
    parts = []
    s = results.settings["weights"]
    if s is None:
        parts.append("none (all 1)")
    else:
        lo, hi = results.training.prior_range()
        name = f"'{s}'" if isinstance(s, str) else "array"
        parts.append(f"prior weights {name}, range [{lo:.4g}, {hi:.4g}]")
    if results.response_kind == "counts":
        parts.append("times the number of votes (cbind)")
    return ", ".join(parts)


def response_text(results) -> str:
    """The summary's "Response" line."""
    r = results
    if r.response_kind == "counts":
        return f"{r.response_name}: vote counts, q = yes / (yes + no)"
    if r.response_kind == "probability":
        return f"{r.response_name}: probabilistic labels q in [0, 1]"
    if r.response_levels is not None and r.response_levels != (False, True):
        return (f"{r.response_name}: '{r.response_levels[1]}' is the positive class, "
                f"'{r.response_levels[0]}' the negative")
    return f"{r.response_name}: 0/1 labels"


def f_section(results) -> Section:
    """The summary's "F-measure (training data)" section with the confusion table."""
    r = results
    fm = r.fmeasure
    conf = r.confusion()
    lines = [f"{fm}; predicted class 1 when fitted probability >= {r.threshold:g}",
             f"  Training F: {conf.f(fm):.4f}   precision: {conf.precision:.4f}   "
             f"recall: {conf.recall:.4f}   accuracy: {conf.accuracy:.4f}"]
    if r.response_kind != "binary" or r.settings["weights"] is not None:
        lines.append("  (counts weighted by the prior weights and votes; probabilistic labels "
                     "count fractionally)")
    if r.model == "umaxent":
        lines.append(f"  Training noisy F ({r.settings['dependence']}, fitted probabilities "
                     f"vs q): {r.noisy_f():.4f}")
    return Section("F-measure (training data):", lines + ["Confusion table:"],
                   table=conf.as_frame())


class SummaryHooks:
    """The summary hooks of :class:`~fmstats.maxent_models.MaxentResults` (its lines on
    standard errors and iterations), which :class:`FmaxentResults` extends."""

    def cov_label(self, cov_type: str) -> str:
        """The summary's "Standard errors" line for ``cov_type``.

        Parameters
        ----------
        cov_type : str
            The covariance type, as ``cov_params`` takes it.

        Returns
        -------
        str
            The line's text.
        """
        return cov_label(self, cov_type)

    def se_footnotes(self, tidy: pd.DataFrame, cov_type: str) -> list[str]:
        """Why standard errors print as NA, and what to do (none when they are usable).

        Parameters
        ----------
        tidy : DataFrame
            The coefficient table (``tidy()``) whose standard errors are explained.
        cov_type : str
            The covariance type of ``tidy``, as ``cov_params`` takes it.

        Returns
        -------
        list of str
            The footnotes, empty when the standard errors are usable.
        """
        return se_footnotes(self, tidy, cov_type)

    def se_advice(self) -> str:
        """What to do about unusable standard errors.

        Returns
        -------
        str
            The advice.
        """
        return "Add a ridge `penalty=` or remove the separating terms."

    def iteration_lines(self) -> list[str]:
        """The summary's iteration lines.

        Returns
        -------
        list of str
            The lines, as printed.
        """
        return iteration_lines(self)
