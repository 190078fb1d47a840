"""The same data give the same decisions under every OpenBLAS kernel.

``tests/portability_battery.py`` runs fmstats' decisions made from computed numbers -- the
F-SVM's tuned slope and its fold predictions (COBYLA follows its objective bit for bit), the
weighted SVM's active-set polish over a 210-point grid, ``tune_wsvm``'s, ``tune_threshold``'s
and ``cv_tune``'s choices, the number of ``fmaxent`` outer iterations -- in a fresh process per
kernel (``OPENBLAS_CORETYPE`` is read when OpenBLAS loads).  Decisions must be identical;
continuous values (coefficients, the tuned threshold) may differ by rounding only (1e-9
relative: last-bit differences of BLAS sums, amplified at most by the conditioning of the fits).

The kernels are chosen from the instruction sets the CPU has (``tests/blas_kernels.py``:
SkylakeX needs AVX-512, Haswell AVX2 and FMA, Sandybridge AVX; none on ARM).  A kernel the CPU
cannot run is "unavailable", never an error: a battery that dies with SIGILL (OpenBLAS does not
refuse a forced kernel the CPU lacks; its first matrix product executes an illegal instruction)
or whose OpenBLAS reports another kernel (it fell back).  With fewer than two kernels available
the comparison is skipped, with the reasons.  On the machine these were written on (an AVX-512
CPU whose default is SkylakeX), Haswell and SkylakeX gave three different results before issue
32 (a polish flag, the F-SVM's fold counts, a 1-ulp threshold).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from blas_kernels import (KERNELS, cpu_features, openblas_default, run_with_kernel,
                          runnable_kernels)

pytestmark = pytest.mark.numerics

BATTERY = [sys.executable, str(Path(__file__).with_name("portability_battery.py"))]
CONTINUOUS = ("qp_all_w", "qp_half_w", "threshold", "fmaxent_params", "fsvm_params")


def kernel_runs(kernels, battery=BATTERY, why=None) -> dict:
    """{kernel: the battery's output} for each of ``kernels`` that runs (a fresh process per
    kernel); a kernel whose battery dies with SIGILL, or whose OpenBLAS falls back to
    another kernel, is unavailable.  Fewer than two available: a skip naming each reason
    (``why`` holds reasons found before, e.g. the instruction sets the CPU lacks)."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    got, why = {}, dict(why or {})
    for k in kernels:
        out, reason = run_with_kernel(k, battery, env=env)
        if out is None:
            why[k] = reason
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if r["kernel"] == k:
            got[k] = r
        else:
            why[k] = f"OpenBLAS ran {r['kernel']!r} instead (it fell back)"
    if len(got) < 2:
        pytest.skip(f"fewer than two OpenBLAS kernels available (ran: {sorted(got) or 'none'}); "
                    + "; ".join(f"{k}: {v}" for k, v in why.items()))
    return got


@pytest.fixture(scope="module")
def runs() -> dict:
    if openblas_default() is None:
        pytest.skip("numpy's BLAS is not OpenBLAS: there is no second kernel to force")
    kernels, why = runnable_kernels(cpu_features())
    return kernel_runs(kernels, why=why)


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
