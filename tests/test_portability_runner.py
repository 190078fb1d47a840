"""The portability battery's runner (tests/test_portability.py, tests/blas_kernels.py): a kernel
the CPU cannot run is a skip with its reason, never an error; a battery that fails otherwise
is an error.  Fake batteries stand in for the real one (a process that kills itself with
SIGILL is what an AVX-512 kernel is on a CPU without AVX-512)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from blas_kernels import (KERNELS, SIGILL_CODES, killed_by_sigill, runnable_kernels,
                          run_with_kernel)
from test_portability import kernel_runs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: prints what the battery prints, except under SkylakeX, where it dies as an AVX-512 kernel
#: dies on a CPU without AVX-512
FAKE = [sys.executable, "-c", """\
import json, os, signal
k = os.environ["OPENBLAS_CORETYPE"]
if k == "SkylakeX":
    os.kill(os.getpid(), signal.SIGILL)
print(json.dumps({"kernel": "Haswell" if k == "Zen" else k, "decision": 1}))
"""]
FAILING = [sys.executable, "-c", "import sys; sys.exit('the battery itself is broken')"]


def test_a_kernel_dying_with_sigill_is_a_skip_with_the_reason():
    """Mutant: run_with_kernel raising on every non-zero return code (the original
    ``check=True``) makes this an error, as it was on AMD EPYC."""
    with pytest.raises(pytest.skip.Exception, match="SkylakeX: .*SIGILL.*cannot execute"):
        kernel_runs(["SkylakeX", "Haswell"], FAKE)


def test_the_kernels_that_run_are_compared_and_the_dead_one_left_out():
    got = kernel_runs(["SkylakeX", "Haswell", "Sandybridge"], FAKE)
    assert sorted(got) == ["Haswell", "Sandybridge"]


def test_a_kernel_openblas_replaces_is_unavailable():
    """OpenBLAS reporting another kernel than the one forced (it fell back) is not a run of
    the forced kernel."""
    with pytest.raises(pytest.skip.Exception, match="Zen: OpenBLAS ran 'Haswell' instead"):
        kernel_runs(["Zen", "Haswell"], FAKE)


def test_a_battery_that_fails_otherwise_is_an_error_not_a_skip():
    """Mutant: treating every non-zero return code as an unavailable kernel turns a broken
    battery into a silent skip."""
    with pytest.raises(subprocess.CalledProcessError) as err:
        run_with_kernel("Haswell", FAILING)
    assert "the battery itself is broken" in err.value.stderr


@pytest.mark.parametrize("code, dead", [(-4, True), (132, True), (0, False), (1, False),
                                        (-11, False), (139, False)])
def test_sigill_return_codes(code, dead):
    assert SIGILL_CODES == (-4, 132)
    assert killed_by_sigill(code) is dead


AVX2_ONLY = {"SSE2", "AVX", "F16C", "FMA3", "AVX2"}              # AMD EPYC (Zen 2/3)
AVX512 = AVX2_ONLY | {"AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"}


@pytest.mark.parametrize("features, machine, expected", [
    (AVX512, "x86_64", ["SkylakeX", "Haswell", "Sandybridge"]),
    (AVX2_ONLY, "x86_64", ["Haswell", "Sandybridge"]),
    (AVX2_ONLY - {"FMA3"}, "AMD64", ["Sandybridge"]),
    (AVX512 - {"AVX512VL"}, "x86_64", ["Haswell", "Sandybridge"]),  # Knights Landing
    ({"SSE2", "SSE3"}, "x86_64", []),
    ({"NEON", "ASIMD", "ASIMDDP"}, "aarch64", []),
    ({"NEON", "ASIMD"}, "arm64", []),
])
def test_kernels_chosen_from_the_cpu_features(features, machine, expected):
    """Mutant: SkylakeX needing AVX2 only (or the features ignored) lists a kernel the CPU
    cannot execute."""
    ok, why = runnable_kernels(features, machine)
    assert ok == expected
    assert set(ok) | set(why) == set(KERNELS) and not set(ok) & set(why)
    if machine in ("aarch64", "arm64"):
        assert all("no x86-64 kernels" in reason for reason in why.values())
    elif "SkylakeX" in why:
        assert "AVX512" in why["SkylakeX"]
