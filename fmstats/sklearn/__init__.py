"""scikit-learn estimators for the fmstats models: fit arrays, go into a ``Pipeline``.

:class:`MaxentClassifier`, :class:`FMaxentClassifier`, :class:`WsvmClassifier` and
:class:`FsvmClassifier` wrap :func:`fmstats.maxent`, :func:`fmstats.fmaxent`,
:func:`fmstats.wsvm` and :func:`fmstats.fsvm`.  ``fit`` validates the arrays the
scikit-learn way and hands them to the formula function as a design matrix
(:class:`fmstats.formula.MatrixData`: the intercept, then the columns of ``X``), so the
estimators are fitted by the very same numerical cores and checks as the formula interface,
with the same defaults; the fitted model is kept as ``result_``: its ``summary()``,
``tidy()`` and the rest stay available, its terms named by ``feature_names_in_`` (``X`` a
DataFrame) or ``x0, x1, ...``.  The estimators take the formula functions' parameters under
the same names, and ``class_weight`` (``"balanced"`` or a dict: the sample weights scaled per
class, as scikit-learn's).

Sparse ``X`` (scipy.sparse CSR/CSC, e.g. from ``OneHotEncoder``) is accepted by every
estimator.  :class:`MaxentClassifier` and :class:`FMaxentClassifier` keep it sparse: their
IRLS accumulates X'WX (p x p) from sparse products and never densifies X, except for the hat
values (HC2/HC3 covariances, ``influence``), computed one block of rows at a time, and
:class:`FMaxentClassifier`'s default covariance (``cov_type="reweighted"``), whose influence
rows are n x p anyway: it is computed from a dense copy of X when the standard errors are
first asked for (``result_.summary()``, ``.bse``), not by ``fit`` or ``predict``.
:class:`WsvmClassifier` and :class:`FsvmClassifier` densify it (their QP and NLopt cores work
on dense arrays): n x p floats.

Warnings: a fit's fmstats warnings (separation, convergence, collinear columns) are recorded
in ``fit_warnings_`` (category and message) and reported by one warning per kind, the first
time an estimator class meets that kind in the Python session: a ``GridSearchCV`` of many
fits reports each kind once instead of once per fit.  (Python's own "show once" registry
cannot do it: scikit-learn runs every fit of a search inside a fresh warnings context, which
resets it.)

Labels: any two classes (strings, integers, booleans); ``classes_`` holds them sorted and
``classes_[1]`` is the positive class, whose F-measure the F-maximisers maximise (as
scikit-learn's ``pos_label`` defaults).  More than two classes raise a
:class:`~fmstats.exceptions.ResponseError`, except in :class:`MultinomClassifier`
(:func:`fmstats.multinom`), which takes any number of classes.
:class:`CalibratedMaxentClassifier` is :func:`fmstats.maxent` followed by
:func:`fmstats.calibrate` (cross-fitted Platt, isotonic or beta calibration).

Needs scikit-learn >= 1.6 (``pip install fmstats[sklearn]``); ``import fmstats`` does not
import scikit-learn, ``import fmstats.sklearn`` does.

Examples
--------
>>> import numpy as np
>>> from sklearn.model_selection import cross_val_score
>>> from fmstats.sklearn import FMaxentClassifier, MaxentClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(300, 2))
>>> y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=300) > 1.2, "yes", "no")
>>> clf = MaxentClassifier().fit(X, y)
>>> clf.classes_.tolist(), clf.coef_.shape
(['no', 'yes'], (1, 2))
>>> bool(np.allclose(clf.coef_.ravel(), clf.result_.params.iloc[1:]))
True
>>> f2 = FMaxentClassifier(beta=2).fit(X, y)
>>> bool((f2.predict(X) == "yes").sum() > (clf.predict(X) == "yes").sum())
True
>>> scores = cross_val_score(FMaxentClassifier(beta=2), X, y == "yes", cv=3, scoring="f1")
>>> scores.shape
(3,)
"""
from ._estimators import (FMaxentClassifier, FsvmClassifier, MaxentClassifier, WsvmClassifier,
                          expected_failed_checks)
from ._multiclass import CalibratedMaxentClassifier, MultinomClassifier

__all__ = ["MaxentClassifier", "FMaxentClassifier", "WsvmClassifier", "FsvmClassifier",
           "MultinomClassifier", "CalibratedMaxentClassifier", "expected_failed_checks"]
