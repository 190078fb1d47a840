"""Single-byte flips of saved results files: how many load, and with which numbers (issue 31,
"Saved results", and issues 33 and 39).

Six results files are written from fits to the bundled Titanic data (maxent with its design
and fitted values, fmaxent, wsvm, a 20-replicate bootstrap, cv_tune, tune_threshold), each in
three layouts:

* **format 1** -- the layout ``save()`` wrote before issue 33: a pickle of the dict
  ``{"fmstats_results": 1, "class": ..., "fmstats_version": ..., "results": obj}``, read the
  way ``load()`` read it then (``pickle.load``, the envelope and type checks; unpickling
  errors became ``DataError``);
* **format 3** -- the current file (magic, format line, SHA-256 checksum, a JSON header
  holding the state as a tree of data, ``.npy`` arrays), read by ``type(obj).load(path)``;
* **format 3, checksum recomputed** -- the same flips with the checksum line rewritten to
  match (what anyone crafting a file can do): the reader's own checks without the checksum's
  help; a flip inside a number loads that number, but nothing may escape as another
  exception or crash the reader.

Each trial flips one byte (XOR with a random non-zero byte) at a position drawn uniformly over
all bytes of all six files of the layout (fixed seed), writes the file, reads it, and
classifies the outcome:

* ``refused`` -- an fmstats error (``DataError``; ``ResultsFileError`` for format 3);
* ``other exception`` -- any other exception escaped the reader;
* ``crashed`` -- the reading process died (each flip is read in a forked worker whose
  address space is capped, ``--memory-gib`` above its size, so that a corrupted length
  cannot exhaust the machine's memory);
* ``loaded, same`` -- the object loaded and is the saved one: it pickles (format 1) or saves
  (format 3) again to the same bytes (the flip hit a byte the reader ignores), and every
  number compared is equal;
* ``loaded, different`` -- the object loaded but holds something else (its pickle or file
  differs: a coefficient, the design matrix, a fitted value, a setting), the silent
  corruption the checksum exists to prevent; ``of which numbers shown differ`` counts those whose params,
  covariance, fitted values, predictions on the training data or summary text differ (or
  raise).

    PYTHONPATH=. python benchmarks/reliability/bench_byteflip.py                 # 3,583 flips per layout
    PYTHONPATH=. python benchmarks/reliability/bench_byteflip.py --flips 500     # quicker
    PYTHONPATH=. python benchmarks/reliability/bench_byteflip.py --every-byte    # every byte of every file

Counts are printed, never asserted (tests/test_results_files.py asserts a fixed-seed sample).
A second table times ``save()``/``load()`` against ``pickle.dump``/``pickle.load`` of the same
object to a file in the same run (the peer; ratio printed), for the six files and a maxent fit
on ``--big-n`` rows x 20 columns; ``--no-timing`` skips it.
"""
from __future__ import annotations

import argparse
import io
import os
import pickle
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # _common
from _common import (cpu_model, ensure_fmstats_importable, format_table, n_cores,
                     source_fingerprint, versions)

ensure_fmstats_importable()

OUTCOMES = ("refused", "other exception", "crashed", "loaded, same", "loaded, different",
            "of which numbers shown differ")


def build():
    import fmstats as fm

    d = fm.datasets.titanic_complete()
    formula = "survived ~ C(pclass) * sex + age + sibsp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = fm.maxent(formula, d)
        return d, {
            "maxent": m,
            "fmaxent": fm.fmaxent(formula, d, alpha=0.5),
            "wsvm": fm.wsvm(formula, d),
            "bootstrap": fm.bootstrap(m, B=20, data=d, random_state=0),
            "cv_tune": fm.cv_tune(fm.maxent, formula, d, {"penalty": [0.0, 1.0]}, cv=3,
                                  random_state=0),
            "tune_threshold": fm.tune_threshold(m, d, cv=3, random_state=0),
        }


def evidence(obj, data):
    """The numbers and text a user reads off the object (compared exactly)."""
    import fmstats as fm

    out = [repr(obj), str(obj.summary())]
    if isinstance(obj, fm.results.ModelResults):
        try:
            cov = obj.cov_params()
        except fm.FmstatsError as exc:          # an SVM has no covariance: its message
            cov = str(exc)
        out += [obj.params, cov, obj.predict(data)]
        if hasattr(obj, "fitted_values"):
            out.append(obj.fitted_values)
    else:
        out.append(obj.tidy())
    return out


def same(a, b) -> bool:
    import pandas as pd

    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, (pd.DataFrame, pd.Series)):
            if type(x) is not type(y) or not x.equals(y) or not x.index.equals(y.index):
                return False
        elif x != y:
            return False
    return True


def format1_bytes(obj) -> bytes:
    import fmstats as fm

    cls = type(obj)
    return pickle.dumps({"fmstats_results": 1, "class": f"{cls.__module__}.{cls.__qualname__}",
                         "fmstats_version": fm.__version__, "results": obj},
                        protocol=pickle.HIGHEST_PROTOCOL)


def format1_load(blob: bytes, cls):
    """``load()`` as it was before issue 33 (format 1), from the bytes of the file."""
    from fmstats.exceptions import DataError

    try:
        obj = pickle.load(io.BytesIO(blob))
    except (pickle.UnpicklingError, EOFError, ValueError) as exc:
        raise DataError(f"not a complete fmstats results file: {exc}") from None
    except (AttributeError, ImportError) as exc:
        raise DataError(f"refers to a class this fmstats does not have ({exc})") from None
    if isinstance(obj, dict) and "fmstats_results" in obj:
        version = obj["fmstats_results"]
        if not isinstance(version, int) or isinstance(version, bool) or version > 1:
            raise DataError(f"format {version!r}")
        if "results" not in obj:
            raise DataError("without results")
        obj = obj["results"]
    if not isinstance(obj, cls):
        raise DataError(f"holds {type(obj).__name__}, not {cls.__name__}")
    return obj


def recompute_checksum(blob: bytes) -> bytes:
    """``blob`` with its checksum line made to match (when its first lines are intact)."""
    import hashlib

    parts = blob.split(b"\n", 3)
    if len(parts) < 4 or not parts[2].startswith(b"sha256 "):
        return blob
    digest = hashlib.sha256(parts[1] + b"\n" + parts[3]).hexdigest().encode()
    return b"\n".join([parts[0], parts[1], b"sha256 " + digest, parts[3]])


def classify(read, data, want, format3: bool) -> str:
    from fmstats.exceptions import FmstatsError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = read()
    except FmstatsError:
        return "refused"
    except Exception:                       # noqa: BLE001 - counted, not hidden
        return "other exception"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = same(evidence(obj, data), want[0])
    except Exception:                       # noqa: BLE001 - a corrupted object breaking later
        shown = False
    if not shown:
        return "of which numbers shown differ"
    try:
        again = resaved(obj) if format3 else pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:                       # noqa: BLE001
        again = None
    return "loaded, same" if again == want[2 if format3 else 1] else "loaded, different"


def resaved(obj) -> bytes:
    """The content (all but the version and checksum lines) of ``obj`` saved again."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "again.fmr"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj.save(path)
        return path.read_bytes().split(b"\n", 3)[3]


_STATE: dict = {}     # set before the worker process forks: files, data, wanted evidence


def _limit_memory(extra_gib: float) -> None:
    """Cap the worker's address space, so that a corrupted length in a flipped pickle raises
    MemoryError instead of waking the kernel's OOM killer."""
    import resource

    from _common import proc_status_kib

    now = (proc_status_kib("VmSize") or 0) * 1024
    limit = int(now + extra_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _trial(layout: str, name: str, pos: int, xor: int, path: str) -> str:
    blob, cls = _STATE["layouts"][layout][name]
    bad = bytearray(blob)
    bad[pos] ^= xor
    bad = bytes(bad)
    if layout == "format 1":
        def read():
            return format1_load(bad, cls)
    else:
        if layout.endswith("recomputed"):
            bad = recompute_checksum(bad)
        Path(path).write_bytes(bad)

        def read():
            return cls.load(path)
    return classify(read, _STATE["data"], _STATE["wants"][name], layout != "format 1")


def run(layout: str, positions, rng, tmp: Path, extra_gib: float) -> dict:
    """Each flip is read in a forked worker process (a crash or a runaway allocation of a
    corrupted pickle is counted as 'crashed' and the worker replaced)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    def pool():
        return ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_limit_memory, initargs=(extra_gib,))

    counts = {name: dict.fromkeys(OUTCOMES, 0) for name in _STATE["layouts"][layout]}
    path = str(tmp / f"flip-{layout.replace(' ', '').replace(',', '')}.fmr")
    ex = pool()
    try:
        for name, pos in positions:
            xor = int(rng.integers(1, 256))
            try:
                outcome = ex.submit(_trial, layout, name, pos, xor, path).result()
            except BrokenProcessPool:
                outcome = "crashed"
                ex.shutdown(wait=False)
                ex = pool()
            counts[name][outcome] += 1
            if outcome == "of which numbers shown differ":
                counts[name]["loaded, different"] += 1
    finally:
        ex.shutdown()
    return counts


def draw(files: dict, n: int, every: bool, rng) -> list:
    sizes = {name: len(blob) for name, (blob, _) in files.items()}
    if every:
        return [(name, pos) for name, size in sizes.items() for pos in range(size)]
    names = list(sizes)
    total = sum(sizes.values())
    flat = rng.integers(0, total, size=n)
    bounds, out = [], []
    acc = 0
    for name in names:
        bounds.append((acc, acc + sizes[name], name))
        acc += sizes[name]
    for x in flat:
        for lo, hi, name in bounds:
            if lo <= x < hi:
                out.append((name, int(x - lo)))
                break
    return out


def timing(objs: dict, big_n: int, repeat: int, tmp: Path) -> None:
    import numpy as np
    import pandas as pd

    import fmstats as fm
    from _common import timed

    if big_n:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(big_n, 20))
        y = (rng.random(big_n) < 1 / (1 + np.exp(-X[:, :3].sum(axis=1)))).astype(int)
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(20)]).assign(y=y)
        objs = {**objs, f"maxent n={big_n:,}": fm.maxent(
            "y ~ " + " + ".join(f"x{j}" for j in range(20)), frame)}
    path, peer = tmp / "t.fmr", tmp / "t.pkl"
    rows = []
    for name, obj in objs.items():
        def dump_peer(o=obj):
            with open(peer, "wb") as fh:
                pickle.dump(o, fh, protocol=5)

        def load_peer():
            with open(peer, "rb") as fh:
                return pickle.load(fh)
        s_save = timed(lambda o=obj: o.save(path), repeat)[0]
        s_peer = timed(dump_peer, repeat)[0]
        l_load = timed(lambda c=type(obj): c.load(path), repeat)[0]
        l_peer = timed(load_peer, repeat)[0]
        rows.append([name, f"{path.stat().st_size / 1e6:.2f}", f"{peer.stat().st_size / 1e6:.2f}",
                     f"{s_save * 1e3:.1f}", f"{s_peer * 1e3:.1f}", f"{s_save / s_peer:.1f}",
                     f"{l_load * 1e3:.1f}", f"{l_peer * 1e3:.1f}",
                     f"{l_load / l_peer:.1f}"])
    print(f"save()/load() against pickle.dump/pickle.load of the same object (median of "
          f"{repeat}, ms)")
    print(format_table(["file", "MB", "MB pickle", "save", "pickle.dump", "ratio", "load",
                        "pickle.load", "ratio"], rows))
    print()


def main(argv=None) -> int:
    import numpy as np

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flips", type=int, default=3583, help="flips per layout (default 3583)")
    ap.add_argument("--every-byte", action="store_true", help="flip every byte of every file")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--memory-gib", type=float, default=3.0,
                    help="address space a reading worker may add (default 3 GiB)")
    ap.add_argument("--no-timing", action="store_true", help="skip the timing table")
    ap.add_argument("--big-n", type=int, default=200_000,
                    help="rows of the large maxent fit timed (0: none)")
    ap.add_argument("--repeat", type=int, default=5, help="timing repeats (median)")
    args = ap.parse_args(argv)

    import datetime

    sources = ["fmstats/results/_persist.py", "fmstats/results/_tree.py",
               "fmstats/results/_frames.py", "fmstats/results/_npy.py"]
    print("Single-byte flips of saved results files: format 1 (before) and format 3")
    print(f"date:     {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"machine:  {cpu_model()}, {n_cores()} usable cores")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in
                                   versions(["numpy", "pandas", "formulaic", "scipy"]).items()))
    print(f"fmstats:  {source_fingerprint(sources)}")
    print(f"flips:    {'every byte' if args.every_byte else args.flips} per layout, "
          f"seed {args.seed}")
    print()
    t0 = time.perf_counter()
    data, objs = build()
    wants = {name: (evidence(obj, data), pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL),
                    resaved(obj)) for name, obj in objs.items()}
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        layouts = {"format 1": {n: (format1_bytes(o), type(o)) for n, o in objs.items()}}
        v3 = {}
        for name, obj in objs.items():
            obj.save(tmp / f"{name}.fmr")
            v3[name] = ((tmp / f"{name}.fmr").read_bytes(), type(obj))
        layouts["format 3"] = v3
        layouts["format 3, checksum recomputed"] = v3
        print(f"built and saved in {time.perf_counter() - t0:.1f} s; file sizes (format 1 / 3): "
              + ", ".join(f"{n} {len(layouts['format 1'][n][0]):,} / {len(v3[n][0]):,} B"
                          for n in objs))
        print()
        if not args.no_timing:
            timing(objs, args.big_n, args.repeat, tmp)
        _STATE.update(layouts=layouts, data=data, wants=wants)
        totals = {}
        for layout, files in layouts.items():
            rng = np.random.default_rng(args.seed)
            positions = draw(files, args.flips, args.every_byte, rng)
            t = time.perf_counter()
            counts = run(layout, positions, rng, tmp, args.memory_gib)
            secs = time.perf_counter() - t
            rows = [[name] + [f"{c[o]:,}" for o in OUTCOMES]
                    + [f"{sum(c.values()) - c[OUTCOMES[-1]]:,}"] for name, c in counts.items()]
            total = {o: sum(c[o] for c in counts.values()) for o in OUTCOMES}
            rows.append(["total"] + [f"{total[o]:,}" for o in OUTCOMES]
                        + [f"{len(positions):,}"])
            totals[layout] = total
            print(f"{layout}: {len(positions):,} flips in {secs:.1f} s")
            print(format_table(["file", *OUTCOMES, "flips"], rows))
            print()
    for layout, total in totals.items():
        print(f"{layout}: {total['loaded, same'] + total['loaded, different']:,} of "
              f"{sum(total.values()) - total[OUTCOMES[-1]]:,} flipped files loaded "
              f"({total['loaded, different']:,} holding something else, "
              f"{total[OUTCOMES[-1]]:,} of them with different numbers shown), "
              f"{total['refused']:,} refused, {total['other exception']:,} other exceptions, "
              f"{total['crashed']:,} crashed the reading process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
