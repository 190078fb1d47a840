"""Chapter 8 of the thesis (seed 004) on vignette 03's draws, shared by the vignette and tests.

Vignette 03 states numbers in prose about its one draw of A1, A2, B1, B2; the reproduction
test ``tests/test_reproduce_004_thesis.py`` computes them with these functions.
"""
from __future__ import annotations

import pandas as pd

from ..datasets import make_thesis_svm_data
from ..svm import THESIS_ALPHAS, chapter8

__all__ = ["VIGNETTE_NAMES", "vignette_data", "vignette_chapter8", "fsvm_minus_wsvm"]

#: The four designs of §8.1, in the order of the vignette (draw 8 + index).
VIGNETTE_NAMES = ("A1", "A2", "B1", "B2")


def vignette_data(names=VIGNETTE_NAMES) -> dict:
    """``{name: (train, test)}`` of vignette 03: ``make_thesis_svm_data(name, 8 + i)``."""
    out = {}
    for name in names:
        d = make_thesis_svm_data(name, random_state=8 + VIGNETTE_NAMES.index(name))
        out[name] = (d[d.split == "train"], d[d.split == "test"])
    return out


def vignette_chapter8(names=VIGNETTE_NAMES, alphas=THESIS_ALPHAS, *, n_values: int = 12,
                      n_jobs: int = 1, fsvm_args=None) -> pd.DataFrame:
    """``chapter8`` on vignette 03's draws (2 folds, fold seed 1), one frame with ``dataset``."""
    parts = []
    for name, (train, test) in vignette_data(names).items():
        parts.append(chapter8("y ~ x1 + x2", train, test, alphas=alphas, n_values=n_values,
                              cv=2, random_state=1, n_jobs=n_jobs, fsvm_args=fsvm_args or {},
                              progress=False).assign(dataset=name))
    return pd.concat(parts, ignore_index=True)


def fsvm_minus_wsvm(results: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and data part: mean, min and max over alpha of F(F-SVM) - F(F-tuned wSVM).

    Also ``accuracy_svm_f_max``: the largest F of the accuracy-tuned weighted SVM.
    """
    t = results.pivot_table(index=["dataset", "data", "alpha"], columns="model", values="f",
                            sort=False)
    diff = (t["fsvm, CV F"] - t["wsvm, CV F"]).groupby(level=["dataset", "data"], sort=False)
    out = diff.agg(["mean", "min", "max"])
    out["accuracy_svm_f_max"] = t["wsvm, CV accuracy"].groupby(
        level=["dataset", "data"], sort=False).max()
    return out
