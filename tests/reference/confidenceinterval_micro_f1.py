"""Reference values of the micro-F1 interval of the ``confidenceinterval`` package (issue 30).

The one case where that package and fmstats follow the same formula: Takahashi et al. (2022)'s
micro F1 of single-label multiclass predictions (micro F1 = accuracy, delta-method variance
acc (1 - acc) / n).  Its binary and macro versions depart from the paper and are not used as
references (docs/user_guide.rst).  Run once, in an environment with the package
(``pip install confidenceinterval==1.0.5``), from the repository root:
``python tests/reference/confidenceinterval_micro_f1.py``; writes
``confidenceinterval_micro_f1.csv`` (17 significant digits).  The labels of each case are
drawn again by the test with the same recipe (numpy's PCG64 streams are stable).
"""
from importlib.metadata import version
from pathlib import Path

import numpy as np
from confidenceinterval import f1_score

CASES = [(1, 60, 3, 0.6), (2, 500, 3, 0.7), (3, 2000, 5, 0.5), (4, 300, 2, 0.9),
         (5, 1000, 4, 0.3)]
LEVELS = [0.9, 0.95]


def labels(seed, n, k, keep):
    """Truth uniform over k classes; a prediction keeps the truth with probability ``keep``
    and is otherwise uniform over the k classes."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    guess = np.where(rng.random(n) < keep, truth, rng.integers(0, k, n))
    return truth, guess


if __name__ == "__main__":
    out = Path(__file__).with_name("confidenceinterval_micro_f1.csv")
    with out.open("w") as fh:
        fh.write(f"# confidenceinterval {version('confidenceinterval')}: "
                 "f1_score(y_true, y_pred, confidence_level, average='micro', "
                 "method='takahashi')\n")
        fh.write("seed,n,classes,keep,level,f1,low,high\n")
        for seed, n, k, keep in CASES:
            truth, guess = labels(seed, n, k, keep)
            for level in LEVELS:
                f, (lo, hi) = f1_score(truth.tolist(), guess.tolist(), confidence_level=level,
                                       average="micro", method="takahashi")
                fh.write(f"{seed},{n},{k},{keep!r},{level!r},{f:.17g},{lo:.17g},{hi:.17g}\n")
    print(out)
