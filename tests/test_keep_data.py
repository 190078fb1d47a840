"""maxent(keep_data=False): results without the design matrix (issue 16, memory).

The reference is the same fit with keep_data=True: every number the lean results still
report must be identical, and what needs X must say so clearly."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import fmstats as fm
from fmstats.exceptions import DataError, InvalidArgumentError, ModelComparisonError

F = "survived ~ C(pclass) * sex + age + sibsp"


@pytest.fixture(scope="module")
def titanic():
    return fm.datasets.titanic_complete()


@pytest.fixture(scope="module", params=["maxent", "umaxent"])
def pair(request, titanic):
    if request.param == "maxent":
        fit = lambda **kw: fm.maxent(F, titanic, cov_type="HC1", **kw)   # noqa: E731
    else:
        d = titanic.assign(q=fm.datasets.thesis_label_noise(titanic["survived"], random_state=4))
        fit = lambda **kw: fm.umaxent(F.replace("survived", "q"), d, **kw)   # noqa: E731
    return fit(), fit(keep_data=False)


def test_lean_results_hold_no_design_and_pickle_smaller(pair):
    full, lean = pair
    assert lean.X is None and full.X is not None
    assert len(pickle.dumps(lean)) < 0.75 * len(pickle.dumps(full))


def test_every_reported_number_is_unchanged(pair, titanic):
    full, lean = pair
    # the printed call is the one the user typed, keep_data = False included; nothing else
    lean_text = str(lean.summary()).replace(", keep_data = False)", ")")
    assert "keep_data = False" in str(lean.summary()) and lean_text == str(full.summary())
    pd.testing.assert_frame_equal(lean.tidy(), full.tidy())
    for ct in ("nonrobust", "HC0", "HC1", "HC2", "HC3"):
        pd.testing.assert_frame_equal(lean.cov_params(ct), full.cov_params(ct))
    pd.testing.assert_series_equal(lean.predict(), full.predict())
    pd.testing.assert_series_equal(lean.predict(type="class"), full.predict(type="class"))
    pd.testing.assert_frame_equal(lean.predict(titanic.head(20), se_fit=True),
                                  full.predict(titanic.head(20), se_fit=True))
    # exact: the same fit; the lean one scores the training rows from the same stored values
    # keep_data=False accumulates the design in row blocks (and its first IRLS step forms
    # X'WX itself): the same fit to rounding, so sums of probabilities agree to 1e-12
    assert lean.measure() == pytest.approx(full.measure(), rel=1e-12, abs=0)
    assert lean.noisy_f() == pytest.approx(full.noisy_f(), rel=1e-12, abs=0)
    assert lean.confusion().as_frame().equals(full.confusion().as_frame())
    pd.testing.assert_frame_equal(lean.influence(), full.influence())
    # the curves' points are the distinct fitted values: two of them 1 ulp apart in one fit
    # may be tied in the other (one point fewer, and the counts at the merged point differ),
    # so every other point the two curves share agrees
    a, b = (c.assign(t=c["threshold"].round(10)).drop_duplicates("t").set_index("t")
            for c in (lean.f_curve(), full.f_curve()))
    common = a.index.intersection(b.index)
    assert abs(len(a) - len(b)) <= 1 and len(common) >= max(len(a), len(b)) - 1
    va, vb = a.loc[common].to_numpy(float), b.loc[common].to_numpy(float)
    same = np.isclose(va, vb, rtol=1e-9, atol=0, equal_nan=True).all(axis=1)
    assert (~same).sum() <= 1, a.loc[common][~same]
    assert (lean.nobs, lean.rank, lean.df_null) == (full.nobs, full.rank, full.df_null)


def test_refit_keeps_the_setting_and_pickle_round_trips(pair, titanic, tmp_path):
    full, lean = pair
    data = titanic if lean.model == "maxent" else None
    if data is not None:
        assert lean.refit(data).X is None
    path = tmp_path / "lean.pkl"
    lean.save(path)
    back = type(lean).load(path)
    assert back.X is None
    pd.testing.assert_frame_equal(back.tidy(), lean.tidy())


def test_what_needs_the_design_says_so(pair, titanic):
    full, lean = pair
    with pytest.raises(DataError, match="keep_data=False"):
        lean.conf_int(method="profile")
    with pytest.raises(DataError, match="keep_data=False"):
        lean.predict(se_fit=True)
    with pytest.raises(ModelComparisonError, match="keep_data=False"):
        fm.anova(lean)


def test_bootstrap_of_a_lean_fit_refits_the_frame_and_agrees(titanic):
    lean = fm.maxent("survived ~ sex + age", titanic, keep_data=False)
    full = fm.maxent("survived ~ sex + age", titanic)
    a = fm.bootstrap(lean, B=30, data=titanic, random_state=2, fast=False)
    b = fm.bootstrap(full, B=30, data=titanic, random_state=2, fast=False)
    assert not a.fast
    pd.testing.assert_frame_equal(a.replicates, b.replicates)


def test_keep_data_must_be_a_bool(titanic):
    with pytest.raises(InvalidArgumentError, match="keep_data"):
        fm.maxent("survived ~ sex", titanic, keep_data="no")
