"""The R-style report of maxent-family fits: ``summary()`` in ``summary.glm``'s layout plus an
F-measure section, and its pieces (covariance label, NA footnotes, weights and response text).

Used by :class:`fmstats.MaxentResults` (and through it ``FMaxentResults`` and the
out-of-core results), which mixes :class:`MaxentReport` in; the subclasses override the pieces
(``_iteration_lines``, ``_cov_label``, ``_se_footnotes``, ``_se_advice``).
"""
from __future__ import annotations

import pandas as pd

from ..results import Section, Summary, format_numbers

__all__ = ["MaxentReport", "COV_LABEL"]

COV_LABEL = {
    "nonrobust": "model-based (inverse Fisher information{disp})",
    "HC0": "sandwich HC0 (White; R's sandwich::vcovHC(type = \"HC0\"))",
    "HC1": "sandwich HC1 (HC0 x n/(n - k))",
    "HC2": "sandwich HC2 (scores scaled by 1/(1 - h))",
    "HC3": "sandwich HC3 (scores scaled by 1/(1 - h)^2)",
}


class MaxentReport:
    """Reporting methods of :class:`fmstats.MaxentResults` (a mixin)."""

    # ------------------------------------------------------------------ reporting
    def summary(self, cov_type: str | None = None, level: float = 0.95) -> Summary:
        """R's ``summary.glm`` layout plus an F-measure section."""
        cov_type = self.cov_type if cov_type is None else cov_type
        tidy = self.tidy(level=level, cov_type=cov_type)
        stat = "t value" if self.use_t else "z value"
        pname = "Pr(>|t|)" if self.use_t else "Pr(>|z|)"
        note = ""
        if self.aliased.any():
            note = f"({int(self.aliased.sum())} not defined because of singularities)"
        sections = []
        disp = (f"(Dispersion parameter for {self.family} family taken to be "
                f"{self.dispersion:.6g})")
        devs = format_numbers([self.null_deviance, self.deviance], digits=5)  # R: digits + 1
        dfs = [str(d).rjust(len(str(max(self.df_null, self.df_resid))))
               for d in (self.df_null, self.df_resid)]
        dev_lines = [
            disp,
            "",
            f"    Null deviance: {devs[0]}  on {dfs[0]}  degrees of freedom",
            f"Residual deviance: {devs[1]}  on {dfs[1]}  degrees of freedom",
        ]
        if self.n_dropped:
            dev_lines.append(f"  ({self.n_dropped} observations deleted due to missingness)")
        aic = self.aic
        dev_lines.append(f"AIC: {aic:.2f}" if aic is not None else "AIC: NA (quasi-likelihood)")
        dev_lines.append("")
        dev_lines.extend(self._iteration_lines())
        sections.append(Section("", dev_lines))
        sections.append(self._f_section())
        info = []
        info.append(("Standard errors", self._cov_label(cov_type)))
        info.append(("Confidence intervals", f"Wald, {100 * level:g}% level"))
        info.append(("Weights", self._weights_text()))
        if self.settings["penalty"]:
            info.append(("Ridge penalty", f"{self.settings['penalty']:g} (intercept unpenalised)"))
        info.append(("Response", self._response_text()))
        info.append(("Rows used", f"{self.nobs} of {self.n_input}"))
        sections.append(Section("Model details:", info))
        title = ("Weighted maximum entropy (logistic) model" if self.model == "maxent"
                 else "Uncertain maximum entropy model (probabilistic labels)")
        return Summary(title=title, call=str(self.call), coef_table=tidy, statistic_name=stat,
                       pvalue_name=pname, coef_note=note, sections=sections,
                       coef_footnotes=self._se_footnotes(tidy, cov_type))

    def _cov_label(self, cov_type: str) -> str:
        disp_txt = ", dispersion estimated" if self._estimate_dispersion else ""
        return COV_LABEL[cov_type].format(disp=disp_txt)

    def _se_footnotes(self, tidy: pd.DataFrame, cov_type: str) -> list[str]:
        """One line saying why standard errors print as NA, and what to do (R prints NA too)."""
        why = self.se_unusable(cov_type)
        if why is not None:
            return [f"Std. errors, tests and Wald intervals are NA: {why}. "
                    f"{self._se_advice()}"]
        bad = tidy["std_error"].isna() & tidy["estimate"].notna()
        if bad.any():
            terms = ", ".join(map(str, tidy.loc[bad, "term"].head(3)))
            return [f"Std. errors NA for {terms}{' ...' if bad.sum() > 3 else ''}: the "
                    "estimated variance is not finite and positive (a near-singular "
                    "information matrix). Simplify the model or add a ridge `penalty=`."]
        return []

    def _se_advice(self) -> str:
        return "Add a ridge `penalty=` or remove the separating terms."

    def _iteration_lines(self) -> list[str]:
        conv = "converged" if self.converged else "DID NOT CONVERGE"
        lines = [f"Number of Fisher Scoring iterations: {self.iterations} ({conv}; "
                 f"relative deviance change < {self.settings['tol']:g})"]
        if self.separated:
            lines.append("Warning: fitted probabilities numerically 0 or 1 occurred "
                         "(separation); standard errors are unreliable.")
        return lines

    def _prior_range(self) -> tuple[float, float]:
        """Smallest and largest prior weight (out-of-core results read it from their stats)."""
        if getattr(self, "stats", None) is not None:
            return self.stats.prior_range()
        pw = self.prior_weights
        return float(pw.min()), float(pw.max())

    def _weights_text(self) -> str:
        parts = []
        s = self.settings["weights"]
        if s is None:
            parts.append("none (all 1)")
        else:
            lo, hi = self._prior_range()
            name = f"'{s}'" if isinstance(s, str) else "array"
            parts.append(f"prior weights {name}, range [{lo:.4g}, {hi:.4g}]")
        if self.response_kind == "counts":
            parts.append("times the number of votes (cbind)")
        return ", ".join(parts)

    def _response_text(self) -> str:
        if self.response_kind == "counts":
            return f"{self.response_name}: vote counts, q = yes / (yes + no)"
        if self.response_kind == "probability":
            return f"{self.response_name}: probabilistic labels q in [0, 1]"
        if self.response_levels is not None and self.response_levels != (False, True):
            return (f"{self.response_name}: '{self.response_levels[1]}' is the positive class, "
                    f"'{self.response_levels[0]}' the negative")
        return f"{self.response_name}: 0/1 labels"

    def _f_section(self) -> Section:
        fm = self.fmeasure
        conf = self.confusion()
        lines = [f"{fm}; predicted class 1 when fitted probability >= {self.threshold:g}"]
        lines.append(
            f"  Training F: {conf.f(fm):.4f}   precision: {conf.precision:.4f}   "
            f"recall: {conf.recall:.4f}   accuracy: {conf.accuracy:.4f}"
        )
        if self.response_kind != "binary" or self.settings["weights"] is not None:
            lines.append("  (counts weighted by the prior weights and votes; probabilistic labels "
                         "count fractionally)")
        if self.model == "umaxent":
            nf = self.noisy_f()
            lines.append(f"  Training noisy F ({self.settings['dependence']}, fitted probabilities "
                         f"vs q): {nf:.4f}")
        table = conf.as_frame()
        return Section("F-measure (training data):", lines + ["Confusion table:"], table=table)

