"""The source papers' experiments as functions: one code path for the vignettes and the tests.

Vignettes 05 (seed 000, Dembczynski et al., NIPS 2011) and 06 (seed 001, Puthiya Parambath
et al.) state numbers in their prose; ``tests/test_reproduce_000_gfm.py`` and
``tests/test_reproduce_001_pseudolinear.py`` compute the same numbers with these functions
and compare them with the papers' values (``tests/reference/seed000_*.csv``,
``seed001_*.csv``), so prose, code and tests cannot drift apart.

* :func:`yeast_table1` -- Table 1 of seed 000 on yeast (PCC and BR, every inference).
* :func:`fig3_classifiers` -- the eight classifiers of seed 001's Figure 3, exact F1.
* :func:`galaxy_optimum`, :func:`galaxy_sample_f` -- seed 001's Galaxy distribution:
  the optimal F of whole-cluster rules, and the F1 of the Bayes rule on finite samples.
* :func:`paper_variants` -- Tables 2, 3 and 5 of seed 001 (Adult, yeast): the four
  variants -, T, CS, CS&T of one learner on one or several random validation splits.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from .._utils.validation import check_random_state
from ..exceptions import InvalidArgumentError

__all__ = ["ADULT_FORMULA", "GALAXY_MU", "GALAXY_ETA", "FIG3_MU", "FIG3_ETA", "yeast_table1",
           "yeast_chain_orders", "fig3_classifiers", "adult_data", "ADULT_LIBSVM_FORMULA",
           "plain_variant_tuned", "galaxy_optimum", "galaxy_sample_f", "paper_variants"]

#: Adult as in seed 001's experiments (income above 50K from the census attributes).
ADULT_FORMULA = (
    "income == '>50K' ~ age + education_num + hours_per_week + capital_gain + capital_loss"
    " + C(sex) + C(race) + C(marital_status) + C(relationship) + C(workclass) + C(occupation)")

#: Seed 001, Galaxy: cluster priors mu(z) and class probabilities mu(y = 1 | z).
GALAXY_MU = (0.01, 0.1, 0.001, 0.889)
GALAXY_ETA = (0.9, 0.09, 0.9, 0.0)
#: Seed 001, Figure 3: mu(x) and mu(y = 1 | x) of the three input points.
FIG3_MU = (0.65, 0.30, 0.05)
FIG3_ETA = (0.70, 0.40, 0.15)


def yeast_table1(random_state=0, sample_seed=0, n_samples: int = 200,
                 label_order=None, fits=None, penalty="cv") -> pd.DataFrame:
    """Seed 000's Table 1 protocol on yeast: fit PCC and BR, score every inference method.

    PCC and BR are fitted on MULAN's yeast training file (penalties by 3-fold CV with
    folds seeded by ``random_state``) and scored on its test file by
    :func:`fmstats.multilabel.evaluate` (``n_samples`` chain samples per gene, seeded by
    ``sample_seed``).  ``label_order`` reorders the chain (default: the file's order).
    ``penalty`` is passed to ``pcc`` and ``br`` (``"cv"``: per label by 3-fold CV; a
    number: that per-row ridge penalty for every label).
    ``fits`` -- a mapping ``{"PCC": pcc_fit, "BR": br_fit}`` of models already fitted this
    way -- skips the fitting (``random_state`` and ``label_order`` are then not used).

    Returns the evaluate() table indexed by (model, inference).
    """
    from ..datasets import load_yeast, yeast_label_names
    from ..multilabel import br, evaluate, pcc

    train, test = load_yeast("train"), load_yeast("test")
    labels = list(yeast_label_names()) if label_order is None else list(label_order)
    if fits is None:
        fits = {"PCC": pcc(train, labels, penalty=penalty, random_state=random_state),
                "BR": br(train, labels, penalty=penalty, random_state=random_state)}
    return evaluate(fits, test, n_samples=n_samples, random_state=sample_seed
                    ).set_index(["model", "inference"])


def yeast_chain_orders(n_random: int = 3, random_state=0) -> dict:
    """Chain orders for the yeast PCC: the file's, reversed, and ``n_random`` permutations.

    Seed 000 does not state its chain order; the macro-F of PCC's F-tailored inference
    depends on it (see vignette 05).  Returns ``{name: list of label names}``.
    """
    from ..datasets import yeast_label_names

    labels = list(yeast_label_names())
    rng = check_random_state(random_state)
    orders = {"file": labels, "reversed": labels[::-1]}
    for k in range(n_random):
        orders[f"random {k}"] = [labels[i] for i in rng.permutation(len(labels))]
    return orders


def fig3_classifiers() -> pd.DataFrame:
    """The eight deterministic classifiers of seed 001's Figure 3, with exact F1.

    A classifier predicts class 1 (positive) or 2 on each of the points x0, x1, x2.
    Columns: ``x0``, ``x1``, ``x2`` (the prediction), ``fn``, ``fp`` (probabilities),
    ``f1`` (exact F1 = 2 TP / (2 TP + FP + FN), 0 when TP = 0).
    """
    mu, eta = np.array(FIG3_MU), np.array(FIG3_ETA)
    rows = []
    for pred in itertools.product((1, 2), repeat=3):
        pos = np.array(pred) == 1
        tp, fp = float(mu @ (eta * pos)), float(mu @ ((1 - eta) * pos))
        fn = float(mu @ (eta * ~pos))
        rows.append(dict(x0=pred[0], x1=pred[1], x2=pred[2], fn=fn, fp=fp,
                         f1=2 * tp / (2 * tp + fp + fn) if tp > 0 else 0.0))
    return pd.DataFrame(rows)


def _rules(k: int) -> np.ndarray:
    return np.array(list(itertools.product((0, 1), repeat=k)), dtype=float)


def galaxy_optimum(mu=GALAXY_MU, eta=GALAXY_ETA, beta: float = 1.0):
    """Optimal F_beta of the cluster distribution and the clusters it predicts positive.

    The posterior is constant within a cluster and F is fractional-linear in the share of
    each cluster predicted positive, so the optimum over all (also randomised) classifiers
    is attained by a whole-cluster rule; all 2^k rules are scored exactly.
    Returns ``(F, rule)`` with ``rule`` a 0/1 tuple over the clusters.
    """
    mu, eta = np.asarray(mu, dtype=float), np.asarray(eta, dtype=float)
    if mu.shape != eta.shape or mu.ndim != 1:
        raise InvalidArgumentError(f"`mu` and `eta` must be vectors of one length; got shapes "
                                   f"{mu.shape} and {eta.shape}.")
    R = _rules(len(mu))
    tp, fp = R @ (mu * eta), R @ (mu * (1 - eta))
    fn = (mu * eta).sum() - tp
    b2 = float(beta) ** 2
    den = (1 + b2) * tp + b2 * fn + fp
    f = np.divide((1 + b2) * tp, den, out=np.zeros_like(tp), where=tp > 0)
    k = int(np.argmax(f))
    return float(f[k]), tuple(int(v) for v in R[k])


def galaxy_sample_f(n: int, draws: int = 2000, random_state=None, mu=GALAXY_MU,
                    eta=GALAXY_ETA) -> np.ndarray:
    """Empirical F1 of the optimal cluster rule on ``draws`` samples of ``n`` examples.

    The sampling distribution of the F a finite sample reports for the distribution's
    optimal classifier (the paper's "optimal F1" of a 100,000-example sample).
    """
    rng = check_random_state(random_state)
    mu, eta = np.asarray(mu, dtype=float), np.asarray(eta, dtype=float)
    rule = np.array(galaxy_optimum(mu, eta)[1], dtype=bool)
    counts = rng.multinomial(int(n), mu, size=int(draws))
    pos = rng.binomial(counts, eta)
    tp = pos[:, rule].sum(1)
    fp = (counts - pos)[:, rule].sum(1)
    fn = pos[:, ~rule].sum(1)
    return np.divide(2.0 * tp, 2 * tp + fp + fn, out=np.zeros(len(tp)), where=tp > 0)


_ADULT_MISSING = ("workclass", "occupation", "native_country")

#: Adult with LIBSVM-like binary features (see :func:`adult_data`).
ADULT_LIBSVM_FORMULA = (
    "income == '>50K' ~ C(age_bin) + C(fnlwgt_bin) + C(hours_per_week_bin)"
    " + C(capital_gain_pos) + C(capital_loss_pos) + C(education) + C(sex) + C(race)"
    " + C(marital_status) + C(relationship) + C(workclass) + C(occupation) + C(native_country)")


def adult_data(reading: str = "complete"):
    """Adult for seed 001's Table 2: ``(formula, train, test)`` in one of three readings.

    * ``"complete"``: :data:`ADULT_FORMULA` on the complete rows (30,162 / 15,060);
    * ``"all"``: every row (32,561 / 16,281, the paper's counts), a ``"missing"`` level for
      workclass, occupation and native country, which joins the formula;
    * ``"libsvm"``: every row and binary features like LIBSVM's Adult files, which the paper
      uses: age, fnlwgt and hours in training quintiles, capital gain and loss as zero /
      positive, education by level, every categorical attribute as indicators
      (:data:`ADULT_LIBSVM_FORMULA`).
    """
    from ..datasets import load_adult

    train, test = load_adult("train"), load_adult("test")
    if reading == "complete":
        return ADULT_FORMULA, train.dropna(), test.dropna()
    if reading not in ("all", "libsvm"):
        raise InvalidArgumentError(
            f"`reading` must be 'complete', 'all' or 'libsvm'; got {reading!r}.")
    both = pd.concat([train, test], keys=["train", "test"])
    both = both.assign(**{c: both[c].fillna("missing") for c in _ADULT_MISSING})
    if reading == "all":
        return (ADULT_FORMULA + " + C(native_country)", both.loc["train"], both.loc["test"])
    for c in ("age", "fnlwgt", "hours_per_week"):
        edges = np.unique(np.quantile(train[c], np.linspace(0, 1, 6)))
        edges[0], edges[-1] = -np.inf, np.inf
        both[c + "_bin"] = pd.cut(both[c], edges).astype(str)
    for c in ("capital_gain", "capital_loss"):
        both[c + "_pos"] = (both[c] > 0).astype(str)
    return ADULT_LIBSVM_FORMULA, both.loc["train"], both.loc["test"]


def paper_variants(dataset: str, measure: str = "f", learner: str = "logit", splits=(0,),
                   grid: int = 19, penalty: float = 1.0, reading: str = "complete"
                   ) -> pd.DataFrame:
    """Seed 001's variants -, T, CS, CS&T on Adult (Table 2) or yeast (Tables 3 and 5).

    Adult: the data of :func:`adult_data` in the given ``reading``; ``measure`` must be
    ``"f"``.  Yeast: all 14 labels on MULAN's files, ``measure``
    ``"macro_f"`` (Table 3) or ``"micro_f"`` (Table 5).  For every seed in ``splits`` a
    third of the training file is held out for validation (as in the paper) and
    :func:`fmstats.costsensitive.costsens_variants` runs the four variants with ``learner``,
    ``grid`` cost levels and ridge ``penalty`` (fixed; the paper tunes it).

    Returns one row per (split, variant): ``split``, ``variant``, ``validation_f``,
    ``test_f`` (fractions, not %).
    """
    from ..costsensitive import costsens_variants
    from ..datasets import load_yeast, yeast_label_names

    if dataset == "adult":
        if measure != "f":
            raise InvalidArgumentError(f"Adult is binary: `measure` must be 'f'; got {measure!r}.")
        formula, train, test = adult_data(reading)
    elif dataset == "yeast":
        if measure not in ("macro_f", "micro_f"):
            raise InvalidArgumentError(
                f"yeast is multi-label: `measure` must be 'macro_f' or 'micro_f'; got {measure!r}.")
        train, test = load_yeast("train"), load_yeast("test")
        formula = " + ".join(yeast_label_names()) + " ~ ."
    else:
        raise InvalidArgumentError(f"`dataset` must be 'adult' or 'yeast'; got {dataset!r}.")
    parts = []
    for split in splits:
        tab, _ = costsens_variants(formula, train, test, measure=measure, learners=learner,
                                   grid=grid, penalty=penalty, random_state=split,
                                   progress=False)
        parts.append(tab[["variant", "validation_f", "test_f"]].assign(split=split))
    return pd.concat(parts, ignore_index=True)[["split", "variant", "validation_f", "test_f"]]


def plain_variant_tuned(measure: str = "macro_f", splits=range(5),
                        c_grid=tuple(2.0 ** np.arange(-6, 7))) -> pd.DataFrame:
    """Seed 001's plain "-" variant on yeast with the ridge constant tuned as in the paper.

    The paper selects every hyper-parameter on the validation third by the F measure, so
    for "-" (equal costs, cut at 1/2) the constant C in {2^-6, ..., 2^6} is chosen by
    validation F.  For every seed in ``splits`` the "-" variant is fitted with penalty
    1/C for each C of ``c_grid`` (one validation split per seed, shared by all C) and the C
    with the best validation F is kept.

    Returns one row per split: ``split``, ``C``, ``validation_f``, ``test_f``.
    """
    from ..costsensitive import costsens
    from ..datasets import load_yeast, yeast_label_names

    train, test = load_yeast("train"), load_yeast("test")
    formula = " + ".join(yeast_label_names()) + " ~ ."
    rows = []
    for split in splits:
        best = None
        for C in c_grid:
            fit = costsens(formula, train, measure=measure, costs=False, thresholds=False,
                           penalty=1.0 / C, random_state=split, progress=False)
            if best is None or fit.validation_f > best[1].validation_f:
                best = (C, fit)
        rows.append(dict(split=split, C=best[0], validation_f=best[1].validation_f,
                         test_f=best[1].measure(test)))
    return pd.DataFrame(rows)
