"""The same data give the same decisions under every OpenBLAS kernel.

``tests/portability_battery.py`` runs fmstats' decisions made from computed numbers -- the
F-SVM's tuned slope and its fold predictions (COBYLA follows its objective bit for bit), the
weighted SVM's active-set polish over a 210-point grid, ``tune_wsvm``'s, ``tune_threshold``'s
and ``cv_tune``'s choices, the number of ``fmaxent`` outer iterations -- in a fresh process per
kernel (``OPENBLAS_CORETYPE`` is read when OpenBLAS loads).  Decisions must be identical;
continuous values (coefficients, the tuned threshold) may differ by rounding only (1e-9
relative: last-bit differences of BLAS sums, amplified at most by the conditioning of the fits).

Kernels the CPU cannot run are skipped (OpenBLAS falls back and reports another name).  On the
machine these were written on (an AVX-512 CPU whose default is SkylakeX), Haswell and
SkylakeX gave three different results before issue 32 (a polish flag, the F-SVM's fold
counts, a 1-ulp threshold).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.numerics

BATTERY = Path(__file__).with_name("portability_battery.py")
KERNELS = ("SkylakeX", "Haswell", "Sandybridge")
CONTINUOUS = ("qp_all_w", "qp_half_w", "threshold", "fmaxent_params", "fsvm_params")


def _run(kernel: str) -> dict:
    env = {**os.environ, "OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": "1",
           "OPENBLAS_VERBOSE": "0"}
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(BATTERY)], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs() -> dict:
    got = {}
    for k in KERNELS:
        r = _run(k)
        if r["kernel"] == k:          # the CPU runs this kernel (else OpenBLAS fell back)
            got[k] = r
    if len(got) < 2:
        pytest.skip(f"this CPU runs fewer than two of the kernels {KERNELS}: {list(got)}")
    return got


def test_decisions_identical_under_every_kernel(runs):
    """Mutant: any BLAS-dependent tie or accept/reject step (e.g. the QP polish read off the
    multipliers alone, or COBYLA on a BLAS matrix-vector product) makes a decision differ."""
    ref_kernel, ref = next(iter(runs.items()))
    for kernel, r in runs.items():
        for key, value in ref.items():
            if key in CONTINUOUS or key == "kernel":
                continue
            assert r[key] == value, f"{key}: {kernel} gives {r[key]!r}, {ref_kernel} {value!r}"


def test_continuous_values_agree_to_rounding(runs):
    ref_kernel, ref = next(iter(runs.items()))
    for kernel, r in runs.items():
        for key in CONTINUOUS:
            np.testing.assert_allclose(np.asarray(r[key], dtype=float),
                                       np.asarray(ref[key], dtype=float), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{key}: {kernel} vs {ref_kernel}")
