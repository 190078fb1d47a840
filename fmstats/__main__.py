"""Command line: ``python -m fmstats demo | datasets | version``.

Bad input (``demo --beta -1``) prints one line, ``python -m fmstats demo: error: ...``, on
stderr and exits with status 2, as argparse does for its own errors; no traceback.
"""
from __future__ import annotations

import argparse
import sys
import warnings


def demo(args) -> int:
    """Fit the thesis's Titanic model (ch. 9 features) and print R-style summaries."""
    import fmstats as fm
    from fmstats.exceptions import MissingDataWarning

    fm.FMeasure(beta=args.beta)            # a bad --beta stops here, before any output
    titanic = fm.datasets.load_titanic()
    formula = "survived ~ C(pclass) * sex + age + sibsp"
    print("fmstats", fm.__version__, "- demo on the bundled Titanic data "
          f"({titanic.shape[0]} passengers x {titanic.shape[1]} columns)\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MissingDataWarning)
        fit = fm.maxent(formula, titanic, cov_type=args.cov_type, beta=args.beta)
    for w in caught:
        print(f"note: {w.message}\n")
    print(fit.summary())

    # the same passengers with uncertain labels: a simulated panel of 5 annotators per passenger
    print("-" * 78)
    print("Uncertain labels: 5 simulated annotators per passenger vote on survival\n"
          "(each votes correctly with probability 0.85); cbind(yes, no) gives q = yes/5.\n")
    import numpy as np

    data = titanic.dropna(subset=["age"]).copy()
    votes = fm.datasets.make_votes(np.where(data["survived"] == 1, 0.85, 0.15), n_annotators=5,
                                   random_state=2014)
    data[["yes", "no"]] = votes.to_numpy()
    ufit = fm.umaxent("cbind(yes, no) ~ C(pclass) * sex + age + sibsp", data,
                      cov_type=args.cov_type, beta=args.beta)
    print(ufit.summary())
    return 0


def datasets(args) -> int:
    """List the bundled data sets: shape, loader, source and licence."""
    from fmstats.datasets import format_catalog

    print(format_catalog(), end="")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fmstats",
                                     description="fmstats: F-measure optimisation")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="fit a model on the bundled Titanic data, print its summary")
    p.add_argument("--cov-type", default="nonrobust",
                   choices=["nonrobust", "HC0", "HC1", "HC2", "HC3"])
    p.add_argument("--beta", type=float, default=1.0, help="F-measure beta (default 1)")
    p.set_defaults(func=demo)
    p = sub.add_parser("datasets", help="list the bundled data sets")
    p.set_defaults(func=datasets)
    p = sub.add_parser("version", help="print the version")
    p.set_defaults(func=lambda a: print(__import__("fmstats").__version__) or 0)
    args = parser.parse_args(argv)
    from fmstats.exceptions import FmstatsError

    try:
        return args.func(args)
    except FmstatsError as exc:   # bad input: one line, as argparse reports its own errors
        print(f"{parser.prog} {args.command}: error: {' '.join(str(exc).split())}",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
