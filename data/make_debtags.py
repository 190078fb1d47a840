"""Build the bundled *debtags* multi-label data set from the Debian package index.

Instances are the binary packages of Debian's ``main`` component that carry a
``Tag:`` field (debtags), labels are their tags, features are hashed word and
character n-grams of the package name and its short description plus its
section.  The script is not installed and not imported by fmstats; run it by
hand (after ``apt-get update`` on a Debian machine)::

    python data/make_debtags.py            # write data/debtags_*.npz
    python data/make_debtags.py --check    # rebuild in memory, compare with the stored files

It needs scikit-learn (``HashingVectorizer``, MurmurHash3) and the ``lz4``
command line tool (Debian package ``lz4``) or the Python package ``lz4``.
fmstats itself needs neither: the loader only reads the ``.npz`` files.

Input
-----
``/var/lib/apt/lists/deb.debian.org_debian_dists_<suite>_main_binary-amd64_Packages.lz4``
of the release suite (default ``bookworm``; the ``-updates`` and ``-security``
indexes are not used).  The script prints the suite's ``Version`` and ``Date``
from the matching ``InRelease`` file and the sha256 of the index it read.

Processing
----------
1. Parse the deb822 stanzas; keep those with a ``Tag:`` field.  A package
   listed twice (two versions in the index) is kept once; the script stops if
   the copies differ in description, section or tags.
2. Tags are split at commas and kept as written (``facet::tag``).  Tags carried
   by fewer than ``MIN_PACKAGES_PER_TAG`` (= 2) packages are dropped, and
   packages left without any tag are dropped.
3. Text of a package: ``"<name> <short description>"``.  Features, all hashed by
   scikit-learn's ``HashingVectorizer`` (signed 32-bit MurmurHash3, seed 0, no
   alternating sign) into one space of ``N_FEATURES`` = 2**18 columns:
   word uni- and bigrams (lower case, tokens ``\\b\\w+\\b``), character 3- and
   4-grams within words (``analyzer="char_wb"``, lower case), and one token
   ``section=<Section>``.  Each feature is binary (present/absent; hash
   collisions merge), then every row is scaled to unit Euclidean norm and
   stored as float32.
4. Rows are ordered by package name, label columns by tag name.

Output (numpy ``.npz`` archives written with fixed zip timestamps, so the bytes
depend only on the content and the zlib version)
------
``debtags_features.npz``
    ``X`` in scipy's ``save_npz`` layout: ``format`` (``csr``), ``shape``,
    ``data`` (float32), ``indices`` (int32), ``indptr`` (int32).
``debtags_labels.npz``
    ``Y`` in the same layout with ``data`` uint8 (all ones), plus
    ``label_names``, ``package_names`` and ``sections`` (unicode arrays).
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import io
import re
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
LISTS = Path("/var/lib/apt/lists")
MIRROR = "deb.debian.org_debian_dists"
N_FEATURES = 2 ** 18
MIN_PACKAGES_PER_TAG = 2
WORD_NGRAMS = (1, 2)
CHAR_NGRAMS = (3, 4)
TOKEN_PATTERN = r"(?u)\b\w+\b"
FILES = ("debtags_features.npz", "debtags_labels.npz")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decompress_lz4(path: Path) -> bytes:
    """The decompressed index, with the ``lz4`` CLI or else the Python ``lz4`` package."""
    try:
        return subprocess.run(["lz4", "-dc", str(path)], check=True,
                              capture_output=True).stdout
    except FileNotFoundError:
        import lz4.frame  # pip install lz4

        return lz4.frame.decompress(path.read_bytes())


def release_info(suite: str) -> str:
    path = LISTS / f"{MIRROR}_{suite}_InRelease"
    if not path.exists():
        return "(no InRelease file)"
    text = path.read_text(encoding="utf-8", errors="replace")
    found = dict(re.findall(r"^(Version|Date|Codename): (.+)$", text, flags=re.MULTILINE))
    return ", ".join(f"{k} {v}" for k, v in found.items())


def parse_stanzas(text: str):
    """Yield one dict per deb822 stanza (continuation lines joined with newlines)."""
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        key = None
        for line in block.splitlines():
            if not line:
                continue
            if line[0] in " \t":
                fields[key] += "\n" + line
            else:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if fields:
            yield fields


def tagged_packages(text: str) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(name, short description, section, tags) of every package with a Tag field."""
    by_name: dict[str, tuple[str, str, str, tuple[str, ...]]] = {}
    for f in parse_stanzas(text):
        if "Tag" not in f:
            continue
        tags = tuple(sorted({t.strip() for t in f["Tag"].replace("\n", " ").split(",")
                             if t.strip()}))
        rec = (f["Package"], f.get("Description", "").split("\n")[0].strip(),
               f.get("Section", "none"), tags)
        old = by_name.setdefault(rec[0], rec)
        if old != rec:
            raise SystemExit(f"package {rec[0]!r} is listed twice with different content")
    return [by_name[name] for name in sorted(by_name)]


def build_arrays(text: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict]:
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.preprocessing import normalize

    records = tagged_packages(text)
    counts = collections.Counter(t for rec in records for t in rec[3])
    labels = sorted(t for t, c in counts.items() if c >= MIN_PACKAGES_PER_TAG)
    col = {t: j for j, t in enumerate(labels)}
    kept = [rec for rec in records if any(t in col for t in rec[3])]

    names = [r[0] for r in kept]
    docs = [f"{r[0]} {r[1]}" for r in kept]
    sections = [r[2] for r in kept]
    common = dict(n_features=N_FEATURES, alternate_sign=False, norm=None, binary=True,
                  dtype=np.float32)
    words = HashingVectorizer(analyzer="word", ngram_range=WORD_NGRAMS,
                              token_pattern=TOKEN_PATTERN, **common)
    chars = HashingVectorizer(analyzer="char_wb", ngram_range=CHAR_NGRAMS, **common)
    section = HashingVectorizer(analyzer=lambda s: [f"section={s}"], **common)
    X = (words.transform(docs) + chars.transform(docs)
         + section.transform(sections)).tocsr()
    X.sum_duplicates()
    X.sort_indices()
    X.data[:] = 1.0
    X = normalize(X, norm="l2").astype(np.float32)

    rows = np.repeat(np.arange(len(kept)), [sum(t in col for t in r[3]) for r in kept])
    cols = np.array([col[t] for r in kept for t in r[3] if t in col])
    Y = sp.csr_matrix((np.ones(rows.size, np.uint8), (rows, cols)),
                      shape=(len(kept), len(labels)))
    Y.sort_indices()

    def csr_arrays(M) -> dict[str, np.ndarray]:
        return {"format": np.array("csr"), "shape": np.array(M.shape, dtype=np.int64),
                "data": M.data, "indices": M.indices.astype(np.int32),
                "indptr": M.indptr.astype(np.int32)}

    features = csr_arrays(X)
    label_arrays = {**csr_arrays(Y), "label_names": np.array(labels),
                    "package_names": np.array(names), "sections": np.array(sections)}
    stats = {
        "tagged stanzas (unique packages)": len(records),
        "distinct tags": len(counts),
        f"tags dropped (< {MIN_PACKAGES_PER_TAG} packages)":
            sorted(t for t, c in counts.items() if c < MIN_PACKAGES_PER_TAG),
        "packages dropped (no tag left)": [r[0] for r in records if r not in kept],
        "X": f"{X.shape}, nnz {X.nnz}, {X.nnz / X.shape[0]:.1f} per row",
        "Y": f"{Y.shape}, nnz {Y.nnz}, {Y.nnz / Y.shape[0]:.3f} labels per package, "
             f"min {np.diff(Y.indptr).min()}, max {np.diff(Y.indptr).max()}",
        "sections": len(set(sections)),
    }
    return features, label_arrays, stats


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A deterministic ``.npz`` (deflate level 9, fixed timestamps, no pickles)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(name + ".npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, buf.getvalue(), compresslevel=9)
    return out.getvalue()


def content_sha256(data: bytes) -> str:
    """sha256 over the members' uncompressed ``.npy`` bytes in archive order."""
    h = hashlib.sha256()
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in zf.namelist():
            h.update(zf.read(name))
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="bookworm", help="Debian suite (default bookworm)")
    parser.add_argument("--packages", type=Path, default=None,
                        help="path of a Packages.lz4 index (default: the suite's main/amd64 "
                             "index under /var/lib/apt/lists)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the stored files instead of writing them")
    args = parser.parse_args(argv)
    path = args.packages or LISTS / f"{MIRROR}_{args.suite}_main_binary-amd64_Packages.lz4"
    raw = path.read_bytes()
    import sklearn

    print(f"input:   {path}\n         sha256 {sha256(raw)}, {len(raw)} bytes; "
          f"release: {release_info(args.suite)}")
    print(f"builder: scikit-learn {sklearn.__version__}, numpy {np.__version__}")
    features, labels, stats = build_arrays(decompress_lz4(path).decode("utf-8"))
    for key, value in stats.items():
        print(f"{key}: {value}")

    status = 0
    for name, arrays in zip(FILES, (features, labels)):
        data = npz_bytes(arrays)
        line = (f"{name}: sha256 {sha256(data)} (content sha256 {content_sha256(data)}, "
                f"{len(data)} bytes)")
        target = HERE / name
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
