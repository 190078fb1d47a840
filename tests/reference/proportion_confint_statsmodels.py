"""Reference values of Wilson and Clopper-Pearson intervals from statsmodels (issue 30).

Run once from the repository root: ``python tests/reference/proportion_confint_statsmodels.py``;
writes ``proportion_confint.csv`` (17 significant digits) with the statsmodels version in a
header line.  fmstats' precision_interval / recall_interval implement the formulas themselves.
"""
from pathlib import Path

import statsmodels
from statsmodels.stats.proportion import proportion_confint

CASES = [(0, 5), (1, 5), (3, 4), (5, 5), (7, 30), (30, 30), (412, 1000), (2.5, 7.5),
         (17, 230), (999, 1000)]
LEVELS = [0.9, 0.95, 0.99]

out = Path(__file__).with_name("proportion_confint.csv")
with out.open("w") as fh:
    fh.write(f"# statsmodels {statsmodels.__version__}: proportion_confint(x, n, alpha, method)\n")
    fh.write("x,n,level,method,low,high\n")
    for x, n in CASES:
        for level in LEVELS:
            for method, sm in (("wilson", "wilson"), ("clopper-pearson", "beta")):
                lo, hi = proportion_confint(x, n, alpha=1 - level, method=sm)
                fh.write(f"{x!r},{n!r},{level!r},{method},{lo:.17g},{hi:.17g}\n")
print(out)
