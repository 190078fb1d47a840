"""The Examples sections of fmstats' docstrings, run as doctests.

Every public entry point listed in the README has a numpydoc ``Examples`` section that prints
numbers a wrong implementation would change (coefficients, F-measures, thresholds, expected F
of a prediction).  The expected outputs were produced by running the examples; a change in the
printed numbers means a change in behaviour, to be explained or fixed, not re-pasted blindly.
"""
from __future__ import annotations

import doctest
import importlib

import pytest

# rounding-sensitive decisions: .ci/run runs these again under a second OpenBLAS kernel
pytestmark = pytest.mark.numerics

# the README's list of entry points, by the public namespace that exports them
ENTRY_POINTS = {
    "fmstats": ["maxent", "umaxent", "fmaxent", "sweep", "resample_f", "wsvm", "fsvm", "cv_tune",
                "with_measure", "tune_threshold", "bootstrap", "validate", "costsens",
                "costsens_variants", "anova", "drop1", "add1", "step", "f_interval", "precision_interval",
                "recall_interval", "compare", "MeasureInterval"],
    "fmstats.inference": ["f_band"],
    "fmstats.svm": ["tune_wsvm", "tune_fsvm"],
    "fmstats.costsensitive": ["cost_vector"],
    "fmstats.multilabel": ["gfm", "gfm_threshold", "estimate_P", "hamming", "meuf", "lewis",
                           "multinomial_rule", "br", "pcc", "evaluate"],
    "fmstats.extreme": ["SPE", "spe_from_scorer", "sto", "fta", "ofo", "probabilistic_label_tree",
                        "precision_at_k",
                        "compare_thresholds"],
    "fmstats.measures": ["FMeasure", "best_position"],
    "fmstats.datasets": ["load_titanic", "load_adult", "load_yeast", "load_debtags",
                         "make_thesis_svm_data", "make_thesis_noisy_data"],
}
# the modules that define them: every Examples section in those modules runs
DEFINING = sorted({getattr(importlib.import_module(ns), n).__module__
                   for ns, names in ENTRY_POINTS.items() for n in names})

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docstring_tests(modname: str) -> list[doctest.DocTest]:
    module = importlib.import_module(modname)
    finder = doctest.DocTestFinder(exclude_empty=True)
    return [t for t in finder.find(module, modname) if t.examples]


@pytest.mark.parametrize("modname", DEFINING)
def test_docstring_examples_pass(modname):
    tests = _docstring_tests(modname)
    assert tests, f"{modname}: no doctest examples found"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{modname}: {result.failed} of {result.attempted} examples failed"


@pytest.mark.parametrize(
    "modname,name", [(m, n) for m, names in sorted(ENTRY_POINTS.items()) for n in names])
def test_entry_point_has_a_checked_example(modname, name):
    obj = getattr(importlib.import_module(modname), name)
    doc = obj.__doc__ or ""
    assert "\n    Examples\n    --------\n" in doc, f"{modname}.{name} has no Examples section"
    examples = doctest.DocTestParser().get_examples(doc)
    # at least one example compares printed output, so the doctest checks a result
    assert any(ex.want.strip() for ex in examples), f"{modname}.{name}: no example output"
