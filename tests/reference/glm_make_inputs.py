#!/usr/bin/env python
"""Write the model-input CSVs used by ``glm_reference.R``.

Standalone: needs only numpy and pandas (plus the scikit-learn *test fixture*
file for the Titanic data, which is read and parsed here by hand -- no
scikit-learn code is imported or executed).

Outputs (next to this file):

* ``inputs_titanic.csv``   -- 1309 rows of the OpenML Titanic data (id 40945),
  all rows kept (missing ``age``/``fare``/``embarked`` written as empty
  fields), plus a prior weight ``w`` and a probabilistic label ``q``.
* ``inputs_synthetic.csv`` -- 1000 simulated rows from a known logit model
  with responses ``y`` (0/1), ``q`` (probability), ``yes``/``no`` (votes of 5
  annotators) and prior weights ``w`` (all > 0) and ``w0`` (``w`` with about
  5% of the rows set to exactly 0).

Floats are written with ``%.17g`` so that they round-trip exactly.

Usage::

    python tests/reference/glm_make_inputs.py [--sklearn-dir DIR]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import io
import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))

TITANIC_FIXTURE = os.path.join(
    "datasets", "tests", "data", "openml", "id_40945", "data-v1-dl-16826755.arff.gz"
)

# Fixed seeds: change them and every reference value changes.
SEED_TITANIC = 20240501
SEED_SYNTHETIC = 20240502

FLOAT_FORMAT = "%.17g"


# --------------------------------------------------------------------------
# ARFF parsing (just enough for this file: numeric / nominal / string
# attributes, values separated by commas, strings in double quotes, '?' for a
# missing value).
# --------------------------------------------------------------------------
def _find_sklearn_dir() -> str:
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "scikit-learn is not installed; pass --sklearn-dir pointing at the "
            "directory containing datasets/tests/data/openml/id_40945/"
        )
    return list(spec.submodule_search_locations)[0]


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    return token


def read_arff(path: str) -> pd.DataFrame:
    """Parse a (gzipped) dense ARFF file into a DataFrame of strings/NaN."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        text = fh.read()

    names: list[str] = []
    data_lines: list[str] = []
    in_data = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("%"):
            continue
        if in_data:
            data_lines.append(line)
            continue
        low = stripped.lower()
        if low.startswith("@attribute"):
            rest = stripped[len("@attribute"):].strip()
            if rest[0] in "'\"":
                end = rest.index(rest[0], 1)
                name = rest[1:end]
            else:
                name = rest.split()[0]
            names.append(name)
        elif low.startswith("@data"):
            in_data = True

    # Values are comma separated with double-quoted strings (which may contain
    # commas and single quotes).  The csv module handles exactly that; the
    # unquoted token '?' marks a missing value.
    reader = csv.reader(io.StringIO("\n".join(data_lines)), quotechar='"',
                        skipinitialspace=False, strict=True)
    rows = []
    for rec in reader:
        if len(rec) != len(names):
            raise ValueError(f"ARFF row has {len(rec)} fields, expected {len(names)}: {rec!r}")
        rows.append(rec)

    # csv.reader loses the information whether a field was quoted; a quoted
    # "?" would be a genuine string, but this file has none, so check the raw
    # text instead of guessing.
    if '"?"' in text:
        raise ValueError("quoted '?' found; this simple parser would treat it as missing")

    frame = pd.DataFrame(rows, columns=names, dtype=object)
    frame = frame.map(lambda v: np.nan if v == "?" else _unquote(v))
    return frame


def make_titanic(sklearn_dir: str) -> pd.DataFrame:
    path = os.path.join(sklearn_dir, TITANIC_FIXTURE)
    raw = read_arff(path)
    if len(raw) != 1309:
        raise ValueError(f"expected 1309 Titanic rows, got {len(raw)}")

    out = pd.DataFrame(
        {
            "survived": pd.to_numeric(raw["survived"]).astype("int64"),
            "pclass": pd.to_numeric(raw["pclass"]).astype("int64"),
            "sex": raw["sex"].astype(str),
            "age": pd.to_numeric(raw["age"]).astype("float64"),
            "sibsp": pd.to_numeric(raw["sibsp"]).astype("int64"),
            "parch": pd.to_numeric(raw["parch"]).astype("int64"),
            "fare": pd.to_numeric(raw["fare"]).astype("float64"),
            "embarked": raw["embarked"].astype(object),
        }
    )
    assert set(out["survived"]) == {0, 1}
    assert set(out["pclass"]) == {1, 2, 3}
    assert set(out["sex"]) == {"female", "male"}

    rng = np.random.default_rng(SEED_TITANIC)
    n = len(out)
    # positive prior weights
    w = rng.uniform(0.5, 2.0, size=n)
    # probabilistic label: 0.9 for survivors, 0.15 for the others, perturbed
    # by Beta noise centred on that value (concentration 20) ...
    base = np.where(out["survived"].to_numpy() == 1, 0.9, 0.15)
    conc = 20.0
    q = rng.beta(base * conc, (1.0 - base) * conc)
    # ... with about 4% of rows set to an exact 0 or 1 (the hard label).
    hard = rng.uniform(size=n) < 0.04
    q = np.where(hard, out["survived"].to_numpy().astype(float), q)
    q = np.clip(q, 0.0, 1.0)
    out["w"] = w
    out["q"] = q
    return out


def make_synthetic() -> pd.DataFrame:
    rng = np.random.default_rng(SEED_SYNTHETIC)
    n = 1000
    x1 = rng.standard_normal(n)
    x2 = rng.standard_normal(n)
    g = rng.choice(np.array(["a", "b", "c"]), size=n)
    # true model (treatment coding with "a" as the reference level)
    beta = {"(Intercept)": -0.3, "x1": 0.8, "x2": -0.5, "gb": 0.4, "gc": -0.7}
    eta = (beta["(Intercept)"] + beta["x1"] * x1 + beta["x2"] * x2
           + beta["gb"] * (g == "b") + beta["gc"] * (g == "c"))
    p = 1.0 / (1.0 + np.exp(-eta))
    y = rng.binomial(1, p)
    conc = 10.0
    q = rng.beta(p * conc, (1.0 - p) * conc)
    # about 3% exact 0s / 1s (hard labels drawn from the true p)
    hard = rng.uniform(size=n) < 0.03
    q = np.where(hard, rng.binomial(1, p).astype(float), q)
    q = np.clip(q, 0.0, 1.0)
    yes = rng.binomial(5, q)
    no = 5 - yes
    w = rng.uniform(0.2, 3.0, size=n)
    w0 = np.where(rng.uniform(size=n) < 0.05, 0.0, w)
    return pd.DataFrame(
        {
            "x1": x1,
            "x2": x2,
            "g": g,
            "p_true": p,
            "y": y.astype("int64"),
            "q": q,
            "yes": yes.astype("int64"),
            "no": no.astype("int64"),
            "w": w,
            "w0": w0,
        }
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sklearn-dir", default=None,
                    help="scikit-learn package directory (default: located via importlib)")
    ap.add_argument("--out-dir", default=HERE)
    args = ap.parse_args(argv)

    sk = args.sklearn_dir or _find_sklearn_dir()
    titanic = make_titanic(sk)
    synth = make_synthetic()

    tpath = os.path.join(args.out_dir, "inputs_titanic.csv")
    spath = os.path.join(args.out_dir, "inputs_synthetic.csv")
    titanic.to_csv(tpath, index=False, float_format=FLOAT_FORMAT, na_rep="", lineterminator="\n")
    synth.to_csv(spath, index=False, float_format=FLOAT_FORMAT, na_rep="", lineterminator="\n")

    # round-trip check: what is on disk parses back to the identical floats
    for frame, path in ((titanic, tpath), (synth, spath)):
        back = pd.read_csv(path, keep_default_na=False, na_values=[""])
        for col in frame.columns:
            if frame[col].dtype.kind == "f":
                a = frame[col].to_numpy()
                b = back[col].to_numpy(dtype=float)
                same = (a == b) | (np.isnan(a) & np.isnan(b))
                if not same.all():
                    raise AssertionError(f"{path}:{col} does not round-trip")
    print(f"wrote {tpath} ({len(titanic)} rows, {int(titanic['age'].isna().sum())} missing age)")
    print(f"wrote {spath} ({len(synth)} rows, {int((synth['w0'] == 0).sum())} zero w0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
