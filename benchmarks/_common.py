"""Helpers shared by the benchmark scripts: versions, machine, thread limits, tables."""
from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def ensure_fmstats_importable() -> None:
    """Put the repository root on sys.path when fmstats is not installed (PYTHONPATH unset)."""
    if importlib.util.find_spec("fmstats") is None:
        sys.path.insert(0, str(REPO_ROOT))


def set_thread_env(threads: int, env: dict | None = None) -> dict:
    """Thread-count environment variables (BLAS and OpenMP) for ``threads`` threads."""
    env = dict(os.environ) if env is None else env
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        env[var] = str(threads)
    return env


def n_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def total_memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024 ** 2
    except OSError:
        pass
    return None


def _distribution_version(name: str) -> str:
    """The installed distribution's version (napkinxc has no ``__version__``), else "?"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def versions(modules) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in modules:
        try:
            mod = importlib.import_module(name)
            out[name] = getattr(mod, "__version__", None) or _distribution_version(name)
        except ImportError:
            out[name] = "not installed"
    return out


def blas_description(info: list[dict]) -> str:
    """One line per thread pool reported by threadpoolctl."""
    parts = []
    for d in info:
        parts.append(f"{d.get('internal_api')} {d.get('version') or ''} "
                     f"({d.get('user_api')}, num_threads={d.get('num_threads')}, "
                     f"{os.path.basename(d.get('filepath', ''))})")
    return "; ".join(parts) if parts else "(no thread pools found)"


def source_fingerprint(relpaths) -> str:
    """sha256 prefix and mtime of fmstats source files (the package is edited concurrently,
    so results name the exact code they measured)."""
    import datetime
    import hashlib

    parts = []
    for rel in relpaths:
        path = REPO_ROOT / rel
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            mtime = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%H:%M:%S")
            parts.append(f"{rel} {digest} (modified {mtime})")
        except OSError:
            parts.append(f"{rel} (missing)")
    return "; ".join(parts)


def print_header(title: str, modules, threads: int, extra_lines=()) -> None:
    import datetime

    print("=" * 78)
    print(title)
    print("=" * 78)
    print(f"date:     {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    mem = total_memory_gib()
    print(f"machine:  {cpu_model()}, {n_cores()} usable cores (os.cpu_count()={os.cpu_count()}), "
          f"{'%.1f GiB RAM' % mem if mem else 'RAM unknown'}, {platform.platform()}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions(modules).items()))
    print(f"threads:  {threads} (threadpoolctl.threadpool_limits({threads}) for BLAS and OpenMP, "
          f"and OMP/OPENBLAS/MKL_NUM_THREADS={threads}, identical for every contender)")
    for line in extra_lines:
        print(line)
    print()


def proc_status_kib(field: str) -> int | None:
    """A field of /proc/self/status in KiB (``VmRSS``, ``VmHWM``, ...); None off Linux."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) of this process; False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def median(xs):
    return statistics.median(xs)


def timed(fn, repeat: int):
    """(median seconds, best seconds, last result) of ``repeat`` calls of ``fn``."""
    times, out = [], None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times), out


def format_table(header, rows, align=None) -> str:
    """A plain-text table; ``align`` is a string of 'l'/'r' per column."""
    cols = list(zip(*([header] + rows)))
    widths = [max(len(str(c)) for c in col) for col in cols]
    align = align or "l" + "r" * (len(header) - 1)

    def fmt(row):
        return "  ".join(str(c).ljust(w) if a == "l" else str(c).rjust(w)
                         for c, w, a in zip(row, widths, align))

    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    lines += [fmt(r) for r in rows]
    return "\n".join(lines)


def bench_parser(doc: str, repeat_help: str, threads_help: str, seed: int):
    """The options every n = 1e6 benchmark shares: --n, --repeat, --quick, --threads, --seed."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000, help="rows (default 1_000_000)")
    ap.add_argument("--repeat", type=int, default=3, help=repeat_help)
    ap.add_argument("--quick", action="store_true", help="n = 100_000 smoke run")
    ap.add_argument("--threads", type=int, default=n_cores(), help=threads_help)
    ap.add_argument("--seed", type=int, default=seed)
    return ap
