"""Population target of tests/test_fmaxent_coverage.py: fmaxent's estimate on 300,000 rows.

The design is the thesis's Gaussian design A (section 8.1: class means (0.5, 1.0) and (1.0, 0.8),
diagonal variances 0.3) with equal class sizes and the Beta label noise of section 9.2 (a
latent positive keeps its label with probability 1 - Beta(1, 5), a latent negative becomes
positive with Beta(2, 5)).  The target is the estimator itself on a sample 100 times larger
than the test's, so the test's coverage is evidence about the standard errors, not agreement
of the code with itself.

Run from the repository root:  PYTHONPATH=. python tests/reference/fmaxent_coverage_target.py
"""
from pathlib import Path

import numpy as np
import pandas as pd

MEANS = ((0.5, 1.0), (1.0, 0.8))
VAR = (0.3, 0.3)
FORMULA = "q ~ x1 + x2"
OUT = Path(__file__).with_name("fmaxent_coverage_target.csv")


def draw(n: int, seed: int) -> pd.DataFrame:
    """n rows of thesis design A with noisy labels q."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.arange(n) % 2)
    mu = np.asarray(MEANS)[y]
    x = mu + np.sqrt(VAR) * rng.normal(size=(n, 2))
    q = np.where(y == 1, 1 - rng.beta(1, 5, size=n), rng.beta(2, 5, size=n))
    return pd.DataFrame({"q": q, "x1": x[:, 0], "x2": x[:, 1]})


def main():
    import fmstats as fm

    fit = fm.fmaxent(FORMULA, draw(300_000, 10 ** 6), alpha=0.5, cov_type="HC0")
    fit.params.rename("target").to_csv(OUT, float_format="%.10g")
    print(fit.params)


if __name__ == "__main__":
    main()
