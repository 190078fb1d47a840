"""The kernel's cost of the first touch of a fresh 160 MB array (a 1e6 x 20 design).

A fit from a formula allocates its design afresh; the IRLS core on prebuilt arrays does not.
On a virtual machine whose balloon driver reports free pages back to the host, memory freed
a few seconds earlier has to be handed back and zeroed again on the next touch, so the same
allocation costs the kernel ~0.02 s or ~0.4 s depending on how long ago memory was freed.
This script shows it: the wall and kernel (sys) seconds of allocating the array and writing
its first column, after pauses of 0, 0.5, 2 and 4 s.

    python benchmarks/speed/touch_memory.py
"""
from __future__ import annotations

import resource
import time

import numpy as np


def main() -> None:
    print("pause s  wall / kernel seconds of 4 allocations of 1e6 x 20 float64 + first column")
    for pause in (0.0, 0.5, 2.0, 4.0):
        out = []
        for _ in range(4):
            time.sleep(pause)
            s0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
            t0 = time.perf_counter()
            X = np.empty((1_000_000, 20))
            X[:, 0] = 1.0
            wall = time.perf_counter() - t0
            out.append(f"{wall:.3f} / {resource.getrusage(resource.RUSAGE_SELF).ru_stime - s0:.3f}")
            del X
        print(f"{pause:7.1f}  " + "   ".join(out))


if __name__ == "__main__":
    main()
