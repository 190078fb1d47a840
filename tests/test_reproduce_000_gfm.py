"""Seed 000 (Dembczynski, Waegeman, Cheng, Huellermeier, NIPS 2011) reproduced: yeast Table 1.

All 32 cells of the yeast block of Table 1 (instance-F, micro-F, macro-F and Hamming loss
for the eight PCC / BR rows; transcribed in ``tests/reference/seed000_table1.csv``) are
compared two-sided with fmstats' run of the same protocol, :func:`fmstats.experiments.papers.
yeast_table1` -- the function vignette 05 calls, so its prose is checked here as well.

Tolerances are the run-to-run spread of the protocol, measured by
``tests/reference/seed000_spread.py`` (output in ``seed000_spread.out``): the paper's table
is one run (its own CV folds and its own 200 chain samples per gene), fmstats' another.
The macro-F of PCC's F-tailored rows is outside that spread (strict xfail against the
paper); ``test_macro_f_gap_*`` pin down what is and is not behind it
(``seed000_macro_f_experiment.py``).  Every expected number is the paper's, or computed
by scikit-learn (``f1_score``); the numbers of vignette 05's prose are checked against
fmstats' run only as prose (``_claims``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fmstats.experiments.papers import yeast_table1

pytestmark = pytest.mark.reference

REF = Path(__file__).parent / "reference"
VIGNETTE = Path(__file__).parent.parent / "vignettes" / "05-multilabel-gfm.ipynb"
COLS = ["instance_f", "micro_f", "macro_f", "hamming_loss"]
PAPER = pd.read_csv(REF / "seed000_table1.csv").set_index(["model", "inference"])
ROWS = list(PAPER.index)
F_TAILORED = [r for r in ROWS if r[1] != "hamming"]

#: Tolerances (absolute) = 4 x the largest run-to-run standard deviation of any row for
#: that measure over five runs of the protocol (CV seeds and sampling seeds 0-4, measured
#: in seed000_spread.out: 0.0028, 0.0026, 0.0071, 0.0011).  Four sd, not two: the paper's
#: run and ours are two independent draws (sd of the difference = sqrt(2) sd) and 28 cells
#: are tested at once (2.8 sd for a 5 % family-wise level, times sqrt(2), is about 4 sd).
#: Largest measured |fmstats - paper| per measure: 0.0084, 0.0057, 0.0174 (BR + MEUF;
#: 0.0073 for the Hamming rows), 0.0025.
TOL = {"instance_f": 0.0112, "micro_f": 0.0104, "macro_f": 0.0284, "hamming_loss": 0.0044}
#: macro-F of PCC's four F-tailored rows: 0.036-0.039 above the paper, 13 sd -- not
#: reproduced with fmstats' default penalties; explained by test_macro_f_gap_*.
PCC_MACRO_GAP = [("PCC", inf, "macro_f") for inf in ("gfm", "gfm-t", "meuf-approx", "meuf")]
CELLS = [(m, i, c) for (m, i) in ROWS for c in COLS if (m, i, c) not in PCC_MACRO_GAP]


@pytest.fixture(scope="module")
def fits():
    from fmstats.datasets import load_yeast, yeast_label_names
    from fmstats.multilabel import br, pcc

    train, labels = load_yeast("train"), yeast_label_names()
    return {"PCC": pcc(train, labels, random_state=0), "BR": br(train, labels, random_state=0)}


@pytest.fixture(scope="module")
def table(fits):
    return yeast_table1(fits=fits, sample_seed=0)


@pytest.mark.parametrize("model, inference, col", CELLS, ids=["-".join(c) for c in CELLS])
def test_table1_cell(table, model, inference, col):
    """28 of the 32 cells: two-sided within the measured run-to-run spread TOL."""
    assert abs(table.loc[(model, inference), col] - PAPER.loc[(model, inference), col]) \
        <= TOL[col]


@pytest.mark.xfail(strict=True, reason=(
    "not reproduced with fmstats' default per-label CV penalties: PCC's macro-F with "
    "F-tailored inference is 0.03-0.045 above the paper's (0.4034, 0.4039, 0.4030, 0.4034), "
    "more than 4 run-to-run sd; test_macro_f_gap_is_the_ridge_penalty shows the paper's "
    "values are bracketed by a common penalty of 0.1-0.3"))
@pytest.mark.parametrize("model, inference, col", PCC_MACRO_GAP,
                         ids=["-".join(c) for c in PCC_MACRO_GAP])
def test_table1_pcc_macro_f_cell(table, model, inference, col):
    """The four remaining cells, against the paper's table with the same tolerance as the
    other 28 (strict xfail: if fmstats comes to reproduce them, this fails and the vignette's
    explanation must be revisited)."""
    assert abs(table.loc[(model, inference), col] - PAPER.loc[(model, inference), col]) \
        <= TOL[col]


# ------------------------------------------------------------------ the macro-F gap
def test_macro_f_gap_is_not_a_convention(fits, table):
    """The averaging convention cannot explain the macro-F gap: every yeast label has
    positives in the test file, so 0/0 = 1 and 0/0 = 0 give the same per-label F, and
    fmstats' macro-F equals scikit-learn's f1_score(average="macro") under both rules.
    (seed000_macro_f_experiment.out also tries F of macro-precision and macro-recall: it
    moves every row further from the paper, by up to 0.12.)"""
    from sklearn.metrics import f1_score

    from fmstats.datasets import load_yeast, yeast_label_names

    test = load_yeast("test")
    Y = test[yeast_label_names()].to_numpy()
    assert Y.sum(axis=0).min() == 13                 # Class14, the rarest label
    for model, inf in [("PCC", "gfm"), ("BR", "meuf"), ("PCC", "hamming")]:
        kw = dict(n_samples=200, random_state=0) if model == "PCC" else {}
        H = fits[model].predict(test, inf, **kw).to_numpy()
        for zd in (0, 1):
            assert f1_score(Y, H, average="macro", zero_division=zd) == pytest.approx(
                table.loc[(model, inf), "macro_f"], abs=1e-12)


@pytest.mark.slow
def test_macro_f_gap_is_the_ridge_penalty():
    """What does move macro-F: how strongly the rare labels (Class 7-11, 14) are
    regularised.  fmstats' per-label 3-fold CV picks small penalties for the chain's labels
    (1e-3.5 to 0.1), so F-tailored inference predicts the rare labels often (Class 8: 122
    times for PCC-GFM against 29 for BR-MEUF, seed000_macro_f_experiment.out).  The paper's
    macro-F values are bracketed by one common per-row penalty between 0.1 and 0.3 for
    every F-tailored row of both PCC and BR (PCC-GFM 0.411 and 0.386 around the paper's
    0.403; BR-MEUF 0.419 and 0.388 around 0.410), while instance-F stays within TOL of the
    paper at 0.1 (0.654 and 0.654 against 0.648 and 0.652).  Two-sided: the paper's value
    must lie inside the interval spanned by the two penalties."""
    at = {lam: yeast_table1(penalty=lam) for lam in (0.1, 0.3)}
    gfm_row = ("PCC", "gfm")
    _claims(f"{at[0.1].loc[gfm_row, 'macro_f']:.3f} at 0.1, "
            f"{at[0.3].loc[gfm_row, 'macro_f']:.3f} at 0.3")
    for row in F_TAILORED:
        lo, hi = sorted(at[lam].loc[row, "macro_f"] for lam in at)
        assert lo <= PAPER.loc[row, "macro_f"] <= hi, row
        assert abs(at[0.1].loc[row, "instance_f"] - PAPER.loc[row, "instance_f"]) <= \
            TOL["instance_f"], row


# ------------------------------------------------------------------ vignette 05's prose
def _claims(*phrases):
    """Every phrase (a number as the vignette prints it) occurs in vignette 05's prose."""
    nb = json.loads(VIGNETTE.read_text())
    text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    text = " ".join(text.split())                 # line breaks in prose are spaces
    missing = [p for p in phrases if " ".join(p.split()) not in text]
    assert not missing, f"vignette 05 no longer states {missing}: update the prose or the test"


def test_vignette_05_paper_table_is_the_reference_csv():
    """The paper's numbers typed into vignette 05 are those of seed000_table1.csv."""
    nb = json.loads(VIGNETTE.read_text())
    code = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code" and "paper = pd.DataFrame(" in "".join(c["source"]))
    rows = re.findall(r'\("(PCC|BR)", "([a-z-]+)", ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+), '
                      r'([\d.]+)\)', code)
    assert len(rows) == len(PAPER)
    for model, inf, *vals in rows:
        ref = PAPER.loc[(model, inf), ["instance_f", "micro_f", "macro_f", "hamming_loss",
                                       "time_s"]]
        np.testing.assert_array_equal(np.array(vals, dtype=float), ref.to_numpy(float))


def test_vignette_05_claims(fits, table):
    from fmstats.datasets import load_yeast, yeast_label_names

    diff = table.loc[ROWS, COLS] - PAPER[COLS]
    # "improves ... over the Hamming rule by about 0.04": the paper's own gains in instance-F
    # (0.032-0.049) and ours, row by row.  Tolerance 2 TOL: the run-to-run sd of a difference
    # of two cells is at most the sum of their sds (<= 2 x the largest), and TOL is 4 x the
    # largest sd of one cell.  (Measured: PCC rows 0.011-0.012 above the paper's gain, BR
    # rows 0.004 below.)
    for model, inf in F_TAILORED:
        ours = table.loc[(model, inf), "instance_f"] - table.loc[(model, "hamming"), "instance_f"]
        paper = PAPER.loc[(model, inf), "instance_f"] - PAPER.loc[(model, "hamming"), "instance_f"]
        assert 0.03 <= paper <= 0.05                      # "about 0.04" holds in the paper
        assert abs(ours - paper) <= 2 * TOL["instance_f"], (model, inf)
    assert diff.instance_f.abs().max() <= 0.01              # "within about 0.01"
    assert diff[["micro_f", "hamming_loss"]].abs().to_numpy().max() <= 0.006
    for model in ("PCC", "BR"):                             # Hamming rule: lowest Hamming loss
        sub = table.loc[model, "hamming_loss"]
        assert sub.idxmin() == "hamming"
    pcc_gap = diff.loc[[r for r in F_TAILORED if r[0] == "PCC"], "macro_f"].mean()
    br_gap = diff.loc[[r for r in F_TAILORED if r[0] == "BR"], "macro_f"].mean()
    hamming_rows = diff.loc[[r for r in ROWS if r[1] == "hamming"], "macro_f"].abs().max()
    assert hamming_rows <= 0.008
    # per-label view: how often Class8 is predicted, and its F
    test = load_yeast("test")
    labels = yeast_label_names()
    Y = test[labels].to_numpy()
    H = {"PCC": fits["PCC"].predict(test, "gfm", n_samples=200, random_state=0).to_numpy(),
         "BR": fits["BR"].predict(test, "meuf").to_numpy()}
    j = labels.index("Class8")
    n8 = {m: int(h[:, j].sum()) for m, h in H.items()}
    f8 = {m: 2 * (h[:, j] @ Y[:, j]) / (h[:, j].sum() + Y[:, j].sum()) for m, h in H.items()}
    # the other "macro-F": harmonic mean of macro-precision and macro-recall (0/0 = 1)
    worst = 0.0
    for model, inf in ROWS:
        kw = dict(n_samples=200, random_state=0) if model == "PCC" else {}
        h = fits[model].predict(test, inf, **kw).to_numpy()
        tp, npred = (h * Y).sum(0), h.sum(0)
        p = np.where(npred == 0, 1.0, tp / np.maximum(npred, 1)).mean()
        r = (tp / Y.sum(0)).mean()
        worst = max(worst, abs(2 * p * r / (p + r) - PAPER.loc[(model, inf), "macro_f"]))
    _claims("by about 0.04", "within about 0.01 of the paper's", "within 0.006 of the paper's",
            f"about {pcc_gap:.3f} higher", f"about {-br_gap:.3f} lower",
            "(the Hamming rows agree to 0.008)", f"(by up to {worst:.2f})",
            f"Class 8 for {n8['PCC']} genes where BR + MEUF predicts it for {n8['BR']}",
            f"Class 8's F is then {f8['PCC']:.2f}, against {f8['BR']:.2f}")
