"""The weighted logistic problem of ``bench_irls.py`` and ``profile_irls.py``: n rows, an
intercept and P - 1 standard normal columns, y ~ Bernoulli(expit(X beta_true)), prior
weights ~ U(0.5, 2), one seed.  Both scripts import it from here (neither imports the
other's problem), so they time the same data."""
from __future__ import annotations

P = 20
SEED = 20240611


def beta_true(p: int = P):
    import numpy as np

    b = np.linspace(-1.0, 1.0, p)
    b[0] = -0.5
    return b


def make_arrays(n: int, seed: int):
    """X (n, p) C-contiguous with an intercept column, y in {0, 1}, w ~ U(0.5, 2).

    Generated in chunks so that generation needs little more memory than X itself.
    """
    import numpy as np
    from scipy.special import expit

    rng = np.random.default_rng(seed)
    X = np.empty((n, P))
    X[:, 0] = 1.0
    chunk = 100_000
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        X[start:stop, 1:] = rng.standard_normal((stop - start, P - 1))
    mu = expit(X @ beta_true())
    y = (rng.random(n) < mu).astype(float)
    w = rng.uniform(0.5, 2.0, n)
    return X, y, w
