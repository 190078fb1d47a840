"""Reference values of the profile likelihood-ratio statistic of a precision-recall point from
the ``mmu`` package (Urlus et al. 2023), for fmstats' ``plot_pr(band="profile")`` (issue 30).

Run once from the repository root with mmu installed (``pip install mmu``):
``python tests/reference/mmu_pr_profile.py``; writes ``mmu_pr_profile.csv`` (17 digits) with
the mmu version in a header line.  mmu's confusion matrix is [[TN, FP], [FN, TP]].
"""
from pathlib import Path

import mmu
import numpy as np

CASES = [(40, 10, 25, 125), (3, 1, 9, 87), (300, 150, 60, 1490), (12, 30, 2, 56)]
POINTS = [(0.75, 0.6), (0.7, 0.5), (0.85, 0.7), (0.5, 0.9), (0.3, 0.2), (0.95, 0.35)]

out = Path(__file__).with_name("mmu_pr_profile.csv")
with out.open("w") as fh:
    fh.write(f"# mmu {mmu.__version__}: PrecisionRecallUncertainty.from_confusion_matrix("
             "method='multinomial').compute_score_for(precision, recall)\n")
    fh.write("tp,fp,fn,tn,precision,recall,statistic\n")
    for tp, fp, fn, tn in CASES:
        cm = np.array([[tn, fp], [fn, tp]], dtype=np.int64)
        u = mmu.PrecisionRecallUncertainty.from_confusion_matrix(cm, method="multinomial")
        for p, r in POINTS:
            fh.write(f"{tp},{fp},{fn},{tn},{p!r},{r!r},{float(u.compute_score_for(p, r)):.17g}\n")
print(out)
