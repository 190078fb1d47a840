"""Table-1 style reports: every inference method scored on labelled test data."""
from __future__ import annotations

import time
from typing import Iterable, Mapping

import pandas as pd

from .._utils.validation import check_scalar, describe
from ..exceptions import InvalidArgumentError
from ..formula import check_frame
from ._checks import INFERENCES, check_inference, check_n_samples, label_matrix
from ._results import MultilabelResults, PCCResults, br_infer, samples_infer
from .._utils.boundary import public

__all__ = ["evaluate"]


@public
def evaluate(results, newdata, inferences: Iterable[str] = INFERENCES, n_samples: int = 200,
             random_state=0, beta: float = 1.0) -> pd.DataFrame:
    """Score every inference method on labelled test data, as in Table 1 of the paper.

    Parameters
    ----------
    results : BRResults, PCCResults or mapping
        A :class:`BRResults` / :class:`PCCResults`, or a mapping name -> results (rows of
        all models are stacked, with the name in column ``model``).
    newdata : pandas.DataFrame
        Test data with the model's feature and label columns.
    inferences : iterable of str, default INFERENCES
        Methods to compare (see ``predict``).
    n_samples : int, default 200
        Chain samples per instance for PCC (one sample shared by all methods).  BR uses its
        exact marginals and independent_P (see :meth:`BRResults.predict`).
    random_state : int or numpy.random.Generator, default 0
        Seed of the sampling.
    beta : float, default 1.0
        The F_beta the F-tailored methods maximise and the table reports.

    Returns
    -------
    pandas.DataFrame
        One row per (model, inference): ``instance_f``, ``micro_f``, ``macro_f``,
        ``hamming_loss``, ``time_s`` (inference time: drawing the sample for PCC or
        computing the marginals for BR, plus the method itself) and ``method_time_s`` (the
        method alone).  Instance-wise and macro F count an empty truth predicted empty as 1.

    Examples
    --------
    >>> import fmstats as fm
    >>> yeast = fm.datasets.load_yeast()
    >>> train, test = yeast.iloc[917:1217], yeast.iloc[:200]
    >>> from fmstats.multilabel import pcc, evaluate
    >>> model = pcc("Class1 + Class2 + Class3 ~ Att1 + Att2 + Att3", train, penalty=1.0)
    >>> table = evaluate(model, test, inferences=["hamming", "gfm"], n_samples=50)
    >>> print(table[["inference", "instance_f", "macro_f"]].round(3).to_string(index=False))
    inference  instance_f  macro_f
      hamming       0.393    0.189
          gfm       0.450    0.531
    """
    from ..measures import f_score, hamming_loss

    if isinstance(results, Mapping):
        return pd.concat([evaluate(r, newdata, inferences, n_samples, random_state, beta)
                          .assign(model=name) for name, r in results.items()],
                         ignore_index=True)
    if not isinstance(results, MultilabelResults):
        raise InvalidArgumentError(
            f"`results` must be a br() or pcc() fit or a mapping of them; got "
            f"{describe(results)}.")
    if isinstance(inferences, str):
        inferences = [inferences]
    inferences = [check_inference(i) for i in inferences]
    if not inferences:
        raise InvalidArgumentError("`inferences` must name at least one inference method.")
    S = check_n_samples(n_samples)
    check_scalar("beta", beta, low=0)
    newdata = check_frame(newdata, "newdata")
    Y = label_matrix(newdata, results.labels, "newdata")

    t0 = time.perf_counter()
    if isinstance(results, PCCResults):
        samples = results.sample(newdata, S, random_state)
        model = "PCC"
    else:
        marg, _ = results._marginals(newdata)
        model = "BR"
    shared = time.perf_counter() - t0

    rows = []
    for inf in inferences:
        t1 = time.perf_counter()
        if model == "PCC":
            H = samples_infer(samples, inf, beta)
        else:
            H = br_infer(marg, inf, None, None, beta)
        own = time.perf_counter() - t1
        rows.append(dict(
            model=model, inference=inf,
            instance_f=f_score(Y, H, beta=beta, average="instance"),
            micro_f=f_score(Y, H, beta=beta, average="micro"),
            macro_f=f_score(Y, H, beta=beta, average="macro"),
            hamming_loss=hamming_loss(Y, H),
            time_s=shared + own, method_time_s=own))
    return pd.DataFrame(rows)
