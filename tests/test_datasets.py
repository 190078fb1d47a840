"""Tests of fmstats.datasets._datasets: bundled data and the thesis's data generators."""
from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fmstats.datasets import _datasets as ds
from fmstats.exceptions import FmstatsError, InvalidArgumentError, ResponseError

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
README = DATA_DIR / "README.md"


# ----------------------------------------------------------------------------
# checksums: parsed from data/README.md so the two cannot drift apart
# ----------------------------------------------------------------------------
def _readme_checksums() -> dict[str, tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    rows = re.findall(
        r"^\|\s*`([^`]+\.gz)`\s*\|\s*`([0-9a-f]{64})`\s*\|\s*`([0-9a-f]{64})`",
        text, flags=re.MULTILINE,
    )
    return {name: (stored, content) for name, stored, content in rows}


def test_readme_lists_every_data_file():
    listed = set(_readme_checksums())
    on_disk = {p.name for p in DATA_DIR.glob("*.gz")}
    assert on_disk == {"titanic.arff.gz", "adult.data.gz", "adult.test.gz", "yeast.csv.gz"}
    assert listed == on_disk


@pytest.mark.parametrize("name", ["titanic.arff.gz", "adult.data.gz", "adult.test.gz",
                                  "yeast.csv.gz"])
def test_sha256_matches_readme(name):
    stored, content = _readme_checksums()[name]
    with ds._data_file(name).open("rb") as fh:
        raw = fh.read()
    assert hashlib.sha256(raw).hexdigest() == stored
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == content


def test_titanic_content_matches_openml_md5():
    with ds._data_file("titanic.arff.gz").open("rb") as fh:
        content = gzip.decompress(fh.read())
    assert hashlib.md5(content).hexdigest() == "60ac7205eee0ba5045c90b3bba95b1c4"


# ----------------------------------------------------------------------------
# Titanic
# ----------------------------------------------------------------------------
def test_titanic_shape_columns_and_dtypes():
    df = ds.load_titanic()
    assert df.shape == (1309, 14)
    assert list(df.columns) == ["pclass", "survived", "name", "sex", "age", "sibsp", "parch",
                                "ticket", "fare", "cabin", "embarked", "boat", "body",
                                "home.dest"]
    assert df["survived"].dtype == np.int64
    assert df["pclass"].dtype == np.int64
    assert set(df["pclass"].unique()) == {1, 2, 3}
    assert isinstance(df["sex"].dtype, pd.CategoricalDtype)
    assert list(df["sex"].cat.categories) == ["female", "male"]
    assert isinstance(df["embarked"].dtype, pd.CategoricalDtype)
    assert list(df["embarked"].cat.categories) == ["C", "Q", "S"]
    for col in ["age", "sibsp", "parch", "fare", "body"]:
        assert df[col].dtype == np.float64, col
    for col in ["name", "ticket", "cabin", "boat", "home.dest"]:
        assert pd.api.types.is_string_dtype(df[col]) or df[col].dtype == object, col


def test_titanic_known_counts():
    df = ds.load_titanic()
    assert (df["survived"] == 1).sum() == 500
    assert (df["survived"] == 0).sum() == 809
    missing = df.isna().sum()
    # the counts OpenML lists for data set 40945
    assert missing.to_dict() == {"pclass": 0, "survived": 0, "name": 0, "sex": 0, "age": 263,
                                 "sibsp": 0, "parch": 0, "ticket": 0, "fare": 1,
                                 "cabin": 1014, "embarked": 2, "boat": 823, "body": 1188,
                                 "home.dest": 564}
    assert df["sex"].value_counts().to_dict() == {"male": 843, "female": 466}
    assert df["pclass"].value_counts().sort_index().tolist() == [323, 277, 709]


def test_titanic_quoted_fields_parsed():
    df = ds.load_titanic()
    first = df.iloc[0]
    assert first["name"] == "Allen, Miss. Elisabeth Walton"
    assert first["home.dest"] == "St Louis, MO"
    assert first["fare"] == pytest.approx(211.3375)
    assert first["ticket"] == "24160"
    # apostrophes inside double-quoted fields survive intact
    assert "Barber, Miss. Ellen 'Nellie'" in set(df["name"])
    assert not df["name"].str.startswith(('"', "'")).any()


def test_titanic_returns_independent_copies():
    a = ds.load_titanic()
    a.loc[0, "age"] = -1.0
    assert ds.load_titanic().loc[0, "age"] == 29.0


def test_titanic_complete_default_and_custom():
    sub = ds.titanic_complete()
    assert list(sub.columns) == ["survived", "pclass", "sex", "age", "sibsp"]
    assert len(sub) == 1309 - 263
    assert not sub.isna().any().any()
    assert sub["survived"].sum() == ds.load_titanic().dropna(subset=["age"])["survived"].sum()
    assert ds.titanic_complete("fare").shape == (1308, 1)
    assert ds.titanic_complete(["survived", "embarked"]).shape == (1307, 2)


@pytest.mark.parametrize("bad", [["survived", "nope"], [], 3])
def test_titanic_complete_bad_columns(bad):
    with pytest.raises(InvalidArgumentError, match="columns"):
        ds.titanic_complete(bad)


def test_parse_arff_single_quotes_and_escapes():
    text = ("% comment\n@relation r\n@attribute 'a b' numeric\n@attribute s string\n"
            "@attribute c {'x','y z'}\n@data\n1.5,'it\\'s, ok','y z'\n?,?,x\n")
    df = ds._parse_arff(text)
    assert list(df.columns) == ["a b", "s", "c"]
    assert df["a b"].iloc[0] == 1.5 and np.isnan(df["a b"].iloc[1])
    assert df["s"].iloc[0] == "it's, ok" and pd.isna(df["s"].iloc[1])
    assert list(df["c"].cat.categories) == ["x", "y z"]
    assert df["c"].tolist() == ["y z", "x"]


# ----------------------------------------------------------------------------
# Adult
# ----------------------------------------------------------------------------
ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education_num",
                 "marital_status", "occupation", "relationship", "race", "sex",
                 "capital_gain", "capital_loss", "hours_per_week", "native_country", "income"]


@pytest.mark.parametrize("split,n,n_rich,n_complete", [("train", 32561, 7841, 30162),
                                                       ("test", 16281, 3846, 15060)])
def test_adult_split(split, n, n_rich, n_complete):
    df = ds.load_adult(split)
    assert df.shape == (n, 15)
    assert list(df.columns) == ADULT_COLUMNS
    assert isinstance(df["income"].dtype, pd.CategoricalDtype)
    assert list(df["income"].cat.categories) == ["<=50K", ">50K"]
    assert not df["income"].isna().any()
    assert (df["income"] == ">50K").sum() == n_rich
    assert (df["income"] == "<=50K").sum() == n - n_rich
    assert len(df.dropna()) == n_complete  # as adult.names states
    for col in ["age", "fnlwgt", "education_num", "capital_gain", "capital_loss",
                "hours_per_week"]:
        assert df[col].dtype == np.int64, col


def test_adult_text_is_clean():
    df = ds.load_adult("both")
    text_cols = ["workclass", "education", "marital_status", "occupation", "relationship",
                 "race", "sex", "native_country"]
    for col in text_cols:
        values = df[col].dropna().astype(str)
        assert not values.str.startswith(" ").any(), col
        assert not (values == "?").any(), col
    assert set(df["sex"]) == {"Male", "Female"}
    assert not df["income"].astype(str).str.endswith(".").any()
    assert df.isna().sum()[lambda s: s > 0].to_dict() == {
        "workclass": 1836 + 963, "occupation": 1843 + 966, "native_country": 583 + 274}
    first_test = ds.load_adult("test").iloc[0]
    assert first_test["age"] == 25 and first_test["education"] == "11th"


def test_adult_both():
    df = ds.load_adult("both")
    assert df.shape == (48842, 16)
    assert list(df.columns) == ADULT_COLUMNS + ["split"]
    assert df["split"].value_counts().to_dict() == {"train": 32561, "test": 16281}
    assert (df["split"].iloc[:32561] == "train").all()
    assert list(df["income"].cat.categories) == ["<=50K", ">50K"]
    pd.testing.assert_frame_equal(
        df[df["split"] == "test"].drop(columns="split").reset_index(drop=True),
        ds.load_adult("test"))


@pytest.mark.parametrize("bad", ["valid", "TRAIN", None, 1])
def test_adult_bad_split(bad):
    with pytest.raises(InvalidArgumentError, match=r"`split`.*'train', 'test', 'both'"):
        ds.load_adult(bad)


# ----------------------------------------------------------------------------
# Yeast
# ----------------------------------------------------------------------------
def test_yeast_shape_and_names():
    df = ds.load_yeast()
    features, labels = ds.yeast_feature_names(), ds.yeast_label_names()
    assert len(features) == 103 and len(labels) == 14
    assert features[0] == "Att1" and features[-1] == "Att103"
    assert labels[0] == "Class1" and labels[-1] == "Class14"
    assert df.shape == (2417, 117)
    assert list(df.columns) == features + labels
    assert (df[features].dtypes == np.float64).all()
    assert (df[labels].dtypes == np.int64).all()
    assert set(np.unique(df[labels].to_numpy())) == {0, 1}
    assert not df.isna().any().any()
    counts = df[labels].sum()
    assert counts["Class1"] == 762 and counts["Class12"] == 1816 and counts["Class14"] == 34
    assert df[labels].sum(axis=1).min() >= 1
    assert df[labels].sum(axis=1).mean() == pytest.approx(4.237, abs=1e-3)


def test_yeast_mulan_split():
    full = ds.load_yeast()
    train, test = ds.load_yeast("train"), ds.load_yeast("test")
    assert train.shape == (1500, 117) and test.shape == (917, 117)
    assert ds.YEAST_N_TRAIN == 1500 and ds.YEAST_N_TEST == 917
    # MULAN's yeast-test.arff comes first in the file, yeast-train.arff after it
    assert test["Att1"].iloc[0] == pytest.approx(0.004168)
    assert test["Att1"].iloc[-1] == pytest.approx(-0.001043)
    assert train["Att1"].iloc[0] == pytest.approx(0.0937)
    assert train["Att1"].iloc[1] == pytest.approx(-0.022711)
    pd.testing.assert_frame_equal(
        pd.concat([test, train], ignore_index=True), full)
    assert list(train.index) == list(range(1500))


def test_yeast_bad_split():
    with pytest.raises(InvalidArgumentError, match=r"`split`.*None, 'train', 'test'.*'all'"):
        ds.load_yeast("all")


# ----------------------------------------------------------------------------
# synthetic data of the thesis
# ----------------------------------------------------------------------------
SVM_COUNTS = {
    "A1": {("train", 0): 200, ("train", 1): 200, ("test", 0): 25, ("test", 1): 25},
    "A2": {("train", 0): 380, ("train", 1): 20, ("test", 0): 25, ("test", 1): 25},
    "B1": {("train", 0): 200, ("train", 1): 200, ("test", 0): 25, ("test", 1): 25},
    "B2": {("train", 0): 380, ("train", 1): 20, ("test", 0): 25, ("test", 1): 25},
}
MEANS = {"A": ((0.5, 1.0), (1.0, 0.8)), "B": ((2.0, 1.0), (1.0, 2.0))}
VARS = {"A": ((0.3, 0.3), (0.3, 0.3)), "B": ((1.0, 0.3), (0.3, 1.0))}


@pytest.mark.parametrize("name", ["A1", "A2", "B1", "B2"])
def test_svm_data_layout(name):
    df = ds.make_thesis_svm_data(name, random_state=0)
    assert df.shape == (450, 4)
    assert list(df.columns) == ["x1", "x2", "y", "split"]
    assert df["y"].dtype == np.int64
    assert df[["x1", "x2"]].dtypes.eq(np.float64).all()
    assert df.groupby(["split", "y"]).size().to_dict() == SVM_COUNTS[name]
    n_train = 400
    assert (df["split"].iloc[:n_train] == "train").all()
    assert (df["split"].iloc[n_train:] == "test").all()
    assert np.isfinite(df[["x1", "x2"]].to_numpy()).all()


def _check_class_moments(df, design, n_se=5.0):
    for cls in (0, 1):
        x = df.loc[df["y"] == cls, ["x1", "x2"]].to_numpy()
        mean, var = np.array(MEANS[design][cls]), np.array(VARS[design][cls])
        se = np.sqrt(var / len(x))
        assert np.all(np.abs(x.mean(axis=0) - mean) < n_se * se), (design, cls, x.mean(axis=0))
        # sample variances: SE of s^2 is about var * sqrt(2 / (n - 1)) for a Gaussian
        se_var = var * np.sqrt(2.0 / (len(x) - 1))
        assert np.all(np.abs(x.var(axis=0, ddof=1) - var) < n_se * se_var), (design, cls)


@pytest.mark.parametrize("name", ["A1", "B1"])
def test_svm_data_moments(name):
    # pool several draws so that the check has power against wrong means or variances
    df = pd.concat([ds.make_thesis_svm_data(name, random_state=s) for s in range(10)])
    _check_class_moments(df, name[0])


def test_svm_data_is_not_mixing_up_designs():
    a = ds.make_thesis_svm_data("A1", random_state=1)
    b = ds.make_thesis_svm_data("B1", random_state=1)
    # class 0 of B has mean x1 = 2, class 0 of A has mean 0.5: very far apart
    assert b.loc[b.y == 0, "x1"].mean() - a.loc[a.y == 0, "x1"].mean() > 1.0
    # in B the variance of x1 differs by class (1 vs 0.3)
    assert b.loc[b.y == 0, "x1"].var() > 2 * b.loc[b.y == 1, "x1"].var()


def test_svm_data_reproducible():
    a = ds.make_thesis_svm_data("A2", random_state=42)
    b = ds.make_thesis_svm_data("A2", random_state=42)
    c = ds.make_thesis_svm_data("A2", random_state=43)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["x1"].to_numpy(), c["x1"].to_numpy())
    g1, g2 = np.random.default_rng(7), np.random.default_rng(7)
    pd.testing.assert_frame_equal(ds.make_thesis_svm_data("B2", random_state=g1),
                                  ds.make_thesis_svm_data("B2", random_state=g2))
    assert len(ds.make_thesis_svm_data("B2")) == 450  # random_state=None works


@pytest.mark.parametrize("name", ["A", "B"])
def test_noisy_data_layout(name):
    df = ds.make_thesis_noisy_data(name, random_state=3)
    assert df.shape == (1100, 6)
    assert list(df.columns) == ["x1", "x2", "y", "q", "y_ml", "split"]
    assert df["y"].dtype == np.int64 and df["y_ml"].dtype == np.int64
    assert df.groupby(["split", "y"]).size().to_dict() == {
        ("train", 0): 500, ("train", 1): 500, ("test", 0): 50, ("test", 1): 50}
    assert (df["split"].iloc[:1000] == "train").all()
    q = df["q"].to_numpy()
    assert np.all((q >= 0) & (q <= 1))
    np.testing.assert_array_equal(df["y_ml"].to_numpy(), (q >= 0.5).astype(int))


@pytest.mark.parametrize("name", ["A", "B"])
def test_noisy_data_moments(name):
    df = pd.concat([ds.make_thesis_noisy_data(name, random_state=s) for s in range(5)])
    _check_class_moments(df, name)
    # q | y = 1 is 1 - Beta(1, 5): mean 5/6, variance 5 / (36 * 7)
    # q | y = 0 is Beta(2, 5):     mean 2/7, variance 10 / (49 * 8)
    for cls, mean, var in [(1, 1 - 1 / 6, 5 / (36 * 7)), (0, 2 / 7, 10 / (49 * 8))]:
        q = df.loc[df["y"] == cls, "q"].to_numpy()
        se = np.sqrt(var / len(q))
        assert abs(q.mean() - mean) < 5 * se, (cls, q.mean())
        assert abs(q.var(ddof=1) - var) < 0.25 * var, (cls, q.var(ddof=1))
    # the flipped labels follow: P(y_ml != y) is P(Beta(1,5) > 1/2) = 1/32 for positives
    # and P(Beta(2,5) >= 1/2) = 7/64 for negatives
    pos, neg = df[df["y"] == 1], df[df["y"] == 0]
    assert abs((pos["y_ml"] == 0).mean() - 1 / 32) < 5 * np.sqrt(1 / 32 * 31 / 32 / len(pos))
    assert abs((neg["y_ml"] == 1).mean() - 7 / 64) < 5 * np.sqrt(7 / 64 * 57 / 64 / len(neg))


def test_noisy_data_reproducible():
    a = ds.make_thesis_noisy_data("A", random_state=5)
    b = ds.make_thesis_noisy_data("A", random_state=5)
    c = ds.make_thesis_noisy_data("A", random_state=6)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["q"].to_numpy(), c["q"].to_numpy())


@pytest.mark.parametrize("func,bad", [
    (ds.make_thesis_svm_data, "A"),
    (ds.make_thesis_svm_data, "a1"),
    (ds.make_thesis_svm_data, ["A1"]),
    (ds.make_thesis_noisy_data, "A1"),
    (ds.make_thesis_noisy_data, None),
])
def test_generators_bad_name(func, bad):
    with pytest.raises(InvalidArgumentError) as info:
        func(bad, random_state=0)
    message = str(info.value)
    assert "`name`" in message and repr(bad)[:20] in message
    allowed = ["'A1'", "'A2'", "'B1'", "'B2'"] if func is ds.make_thesis_svm_data else ["'A'", "'B'"]
    assert all(a in message for a in allowed)


@pytest.mark.parametrize("bad", [-1, 1.5, "seed", True, np.random.RandomState(0)])
def test_generators_bad_random_state(bad):
    with pytest.raises(InvalidArgumentError, match="`random_state`.*Generator") as info:
        ds.make_thesis_noisy_data("A", random_state=bad)
    assert isinstance(info.value, FmstatsError)


def test_generators_accept_numpy_integer_seed():
    pd.testing.assert_frame_equal(ds.make_thesis_svm_data("A1", random_state=np.int64(9)),
                                  ds.make_thesis_svm_data("A1", random_state=9))


# ----------------------------------------------------------------------------
# votes
# ----------------------------------------------------------------------------
def test_make_votes_counts_and_index():
    q = pd.Series([0.0, 1.0, 0.5, 0.25], index=[10, 11, 12, 13])
    votes = ds.make_votes(q, n_annotators=7, random_state=0)
    assert list(votes.columns) == ["yes", "no"]
    assert list(votes.index) == [10, 11, 12, 13]
    assert (votes.dtypes == np.int64).all()
    assert ((votes["yes"] + votes["no"]) == 7).all()
    assert votes["yes"].iloc[0] == 0 and votes["yes"].iloc[1] == 7


def test_make_votes_distribution_and_reproducibility():
    q = np.full(20000, 0.3)
    votes = ds.make_votes(q, n_annotators=5, random_state=1)
    mean, se = 5 * 0.3, np.sqrt(5 * 0.3 * 0.7 / len(q))
    assert abs(votes["yes"].mean() - mean) < 5 * se
    pd.testing.assert_frame_equal(votes, ds.make_votes(q, 5, random_state=1))
    assert not votes.equals(ds.make_votes(q, 5, random_state=2))


def test_make_votes_bad_input():
    with pytest.raises(ResponseError, match="`q`"):
        ds.make_votes([0.2, 1.2])
    with pytest.raises(InvalidArgumentError, match="`n_annotators`"):
        ds.make_votes([0.2], n_annotators=0)
    with pytest.raises(InvalidArgumentError, match="`n_annotators`"):
        ds.make_votes([0.2], n_annotators=2.5)
    with pytest.raises(InvalidArgumentError, match="`random_state`"):
        ds.make_votes([0.2], random_state="x")


# ----------------------------------------------------------------------------
# locating the files
# ----------------------------------------------------------------------------
def test_data_file_missing_raises():
    from fmstats.exceptions import DataError

    with pytest.raises(DataError, match="no-such-file.gz"):
        ds._data_file("no-such-file.gz")
