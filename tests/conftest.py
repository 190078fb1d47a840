import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def synth():
    """A small logistic data set with a factor, weights and probabilistic labels."""
    return make_synth(400)


def make_synth(n: int) -> pd.DataFrame:
    """The data of the ``synth`` fixture with ``n`` rows (also for module-scoped fixtures)."""
    rng = np.random.default_rng(11)
    x1, x2 = rng.normal(size=(2, n))
    g = rng.choice(["a", "b", "c"], size=n)
    eta = -0.2 + 0.9 * x1 - 0.6 * x2 + np.select([g == "b", g == "c"], [0.5, -0.4], 0.0)
    p = 1 / (1 + np.exp(-eta))
    y = (rng.random(n) < p).astype(int)
    q = np.clip(rng.beta(8 * p + 0.1, 8 * (1 - p) + 0.1), 0, 1)
    w = rng.integers(1, 4, size=n)
    yes = rng.binomial(4, q)
    return pd.DataFrame({"x1": x1, "x2": x2, "g": g, "y": y, "q": q, "w": w,
                         "yes": yes, "no": 4 - yes})
