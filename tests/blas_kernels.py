"""Which OpenBLAS kernels this CPU can run: for tests/test_portability.py and .ci/run.

OpenBLAS chooses a kernel for the CPU when it loads; ``OPENBLAS_CORETYPE`` forces another.  A
forced kernel whose instructions the CPU lacks is *not* refused: the first BLAS call dies with
SIGILL (``OPENBLAS_CORETYPE=SkylakeX python -c "import numpy as np; a = np.ones((200, 200));
a @ a"`` exits with 132 on an AVX2 CPU without AVX-512).  So the kernels are chosen from the
instruction sets the CPU has (numpy's ``__cpu_features__``, else the flags of /proc/cpuinfo),
only on x86-64 (OpenBLAS' ARM builds have none of these kernels), only when numpy's BLAS is
OpenBLAS; and a process that dies with SIGILL all the same is reported as "kernel
unavailable" (:func:`run_with_kernel`), never as a failure.

``python tests/blas_kernels.py`` prints the kernels other than the default that this CPU runs,
one a line (each checked by a matrix product in a fresh process), and on stderr why the others
are left out; ``.ci/run`` runs the rounding-sensitive tests again under each of them.
"""
from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys

#: OPENBLAS_CORETYPE -> the instruction sets its kernels use (numpy's feature names)
KERNELS = {
    "SkylakeX": ("AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"),
    "Haswell": ("AVX2", "FMA3"),
    "Sandybridge": ("AVX",),
}
X86_64 = ("x86_64", "amd64", "x64")
#: /proc/cpuinfo flag -> numpy's feature name (where they differ only in case, the upper case)
_LINUX_FLAGS = {"fma": "FMA3", "avx512f": "AVX512F", "avx512cd": "AVX512CD",
                "avx512bw": "AVX512BW", "avx512dq": "AVX512DQ", "avx512vl": "AVX512VL",
                "avx2": "AVX2", "avx": "AVX"}
#: return codes of a process killed by SIGILL: -4 from subprocess, 128 + 4 from a shell
SIGILL_CODES = (-int(signal.SIGILL), 128 + int(signal.SIGILL))


def cpu_features() -> set[str]:
    """The instruction sets of this CPU, by numpy's names (``AVX2``, ``AVX512F``, ...)."""
    try:
        try:
            from numpy._core._multiarray_umath import __cpu_features__ as feats
        except ImportError:                      # numpy < 2
            from numpy.core._multiarray_umath import __cpu_features__ as feats
        return {name for name, present in feats.items() if present}
    except ImportError:
        pass
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return {v for k, v in _LINUX_FLAGS.items() if k in flags}
    except OSError:
        pass
    return set()


def runnable_kernels(features: set[str], machine: str | None = None) -> tuple[list, dict]:
    """(the kernels of :data:`KERNELS` the CPU has the instructions for, {kernel: why not}
    for the others), on a CPU with ``features`` (numpy's names) of architecture ``machine``
    (default this one's)."""
    machine = (platform.machine() if machine is None else machine).lower()
    if machine not in X86_64:
        why = (f"a {machine} CPU: OpenBLAS has no x86-64 kernels there (they are selected "
               "for x86-64 CPUs only)")
        return [], {k: why for k in KERNELS}
    ok, why = [], {}
    for kernel, needs in KERNELS.items():
        lacking = [f for f in needs if f not in features]
        if lacking:
            why[kernel] = f"the CPU lacks {', '.join(lacking)}"
        else:
            ok.append(kernel)
    return ok, why


def killed_by_sigill(returncode: int) -> bool:
    """Whether a process's return code says it died of an illegal instruction."""
    return returncode in SIGILL_CODES


def run_with_kernel(kernel: str, argv: list, *, timeout: float = 300,
                    env: dict | None = None) -> tuple[subprocess.CompletedProcess | None, str]:
    """Run ``argv`` with ``OPENBLAS_CORETYPE=kernel``: (the finished process, "") or, when it
    died with SIGILL (the CPU cannot execute the kernel), (None, the reason).  Any other
    failure raises :class:`subprocess.CalledProcessError` (with its stderr): a battery that
    fails is an error, not an unavailable kernel."""
    env = {**(os.environ if env is None else env), "OPENBLAS_CORETYPE": kernel,
           "OPENBLAS_NUM_THREADS": "1", "OPENBLAS_VERBOSE": "0"}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    if killed_by_sigill(out.returncode):
        return None, (f"OPENBLAS_CORETYPE={kernel}: the process died with SIGILL (return code "
                      f"{out.returncode}): this CPU cannot execute the kernel")
    if out.returncode != 0:
        raise subprocess.CalledProcessError(out.returncode, argv, out.stdout, out.stderr)
    return out, ""


#: a matrix product (so that a kernel the CPU lacks dies here), then the kernel OpenBLAS reports
PROBE = """\
import numpy as np
from threadpoolctl import threadpool_info
a = np.ones((64, 64)); a @ a
print(next((i.get("architecture") or "") for i in threadpool_info()
           if i.get("internal_api") == "openblas"))
"""


def openblas_default() -> str | None:
    """The kernel numpy's OpenBLAS chose for this CPU, or None when numpy's BLAS is not
    OpenBLAS (MKL, Accelerate, a reference BLAS: no kernel to force)."""
    import numpy  # noqa: F401  (loads the BLAS)
    from threadpoolctl import threadpool_info

    return next((i.get("architecture") or "" for i in threadpool_info()
                 if i.get("internal_api") == "openblas"), None)


def probe(kernel: str) -> str:
    """"" when a fresh process runs a matrix product under ``kernel`` and OpenBLAS reports
    that kernel; else why not (SIGILL, or OpenBLAS fell back to another kernel)."""
    out, why = run_with_kernel(kernel, [sys.executable, "-c", PROBE], timeout=120)
    if out is None:
        return why
    got = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    return "" if got == kernel else f"OpenBLAS runs {got or 'another kernel'} instead"


def second_kernels() -> tuple[list, dict]:
    """(the kernels other than the default this CPU runs, {kernel: why not} for the rest)."""
    default = openblas_default()
    if default is None:
        return [], {k: "numpy's BLAS is not OpenBLAS" for k in KERNELS}
    ok, why = runnable_kernels(cpu_features())
    chosen = []
    for k in ok:
        reason = "the default kernel" if k == default else probe(k)
        if reason:
            why[k] = reason
        else:
            chosen.append(k)
    return chosen, why


if __name__ == "__main__":
    kernels, reasons = second_kernels()
    for k, reason in reasons.items():
        print(f"OpenBLAS kernel {k}: skipped ({reason})", file=sys.stderr)
    print("\n".join(kernels))
