"""The multiclass and calibrated estimators (:func:`fmstats.multinom`,
:func:`fmstats.calibrate`); see the package docstring of :mod:`fmstats.sklearn`."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.utils.validation import check_is_fitted

from .._utils.validation import check_scalar
from ..calibration import calibrate
from ..formula import split_formula
from ..maxent_models import maxent
from ..multiclass import multinom
from ._estimators import INTERCEPT_NAMES, FmstatsClassifier, term_names

__all__ = ["MultinomClassifier", "CalibratedMaxentClassifier"]


def _frame_names(est, p: int) -> list[str]:
    """The columns (and term names) of the frame of ``X``: ``feature_names_in_`` when ``X``
    was a DataFrame with string column names (as the other estimators' coefficients), else
    ``x0, x1, ...``; positional names too when a name cannot be quoted in a formula."""
    names = term_names(est, p)
    return [f"x{j}" for j in range(p)] if any("`" in n for n in names) else names


def _response_name(names) -> str:
    """A name for the label column that no feature has."""
    name = "y"
    while name in names:
        name = f"{name}_"
    return name


def _fit_on_frame(est, X, y, sample_weight):
    """Fit ``est``'s formula function on a DataFrame of ``X`` (columns named as
    :func:`_frame_names`, each term quoted in the formula) and the label codes ``y``: the
    model functions behind these estimators take DataFrames only."""
    X, y, y01, w = est._fit_input(X, y, sample_weight)
    if getattr(est, "class_weight", None) is not None:
        w = est._class_weights(y, y01, w)
        est._check_weights(w, X.shape[0], y01)
    X = X.toarray() if sparse.issparse(X) else X
    names = _frame_names(est, X.shape[1])
    resp = _response_name(names)
    frame = pd.DataFrame(X, columns=names, copy=False).assign(**{resp: y01})
    formula = f"{resp} ~ " + " + ".join(f"`{n}`" for n in names)
    params = {k: v for k, v in est.get_params().items() if k != "class_weight"}
    res = type(est)._formula_fn(formula, frame, w, **params)
    return est._fitted(res, X.shape[1])


class MultinomClassifier(FmstatsClassifier):
    """Multinomial maximum-entropy classifier for two or more classes: :func:`fmstats.multinom`.

    Parameters
    ----------
    penalty : float, default 0
        Ridge penalty on the non-intercept coefficients (see :func:`fmstats.multinom`).
    tol : float, default 1e-10
        Newton convergence tolerance.
    max_iter : int, default 100
        Newton iteration cap.
    class_weight : dict, "balanced" or None, default None
        Weights of the classes, multiplying ``sample_weight`` (scikit-learn's rule:
        ``"balanced"`` gives n / (K n_class)).

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The labels, sorted; ``classes_[0]`` is the reference class.
    coef_ : ndarray of shape (K, n_features)
        Coefficients per class (zero for the reference class).
    intercept_ : ndarray of shape (K,)
    n_features_in_ : int
    n_iter_ : int
        Newton iterations.
    result_ : fmstats.MultinomResults
        The fitted formula model.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.sklearn import MultinomClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = np.array(["a", "b", "c"])[np.argmax(X @ [[1, 0, -1], [0, 1, -1]]
    ...                                         + rng.gumbel(size=(300, 3)), 1)]
    >>> clf = MultinomClassifier().fit(X, y)
    >>> clf.classes_.tolist(), clf.predict_proba(X[:2]).shape
    (['a', 'b', 'c'], (2, 3))
    """

    def __init__(self, penalty: float = 0.0, tol: float = 1e-10, max_iter: int = 100,
                 class_weight=None):
        self.penalty = penalty
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight

    EXPECTED_FAILED_CHECKS = {
        "check_sample_weight_equivalence_on_dense_data":
            "the check's data (15 rows, 30 columns) are separable, so the unpenalised "
            "maximum-likelihood estimate does not exist: Newton's method stops after max_iter "
            "steps along a diverging path, which differs between a weighted and a repeated "
            "row. With penalty > 0 the check passes, and where the estimate exists weights are "
            "repeated rows (both in tests/test_sklearn_multiclass.py).",
    }
    EXPECTED_FAILED_CHECKS["check_sample_weight_equivalence_on_sparse_data"] = \
        EXPECTED_FAILED_CHECKS["check_sample_weight_equivalence_on_dense_data"]

    _multiclass = True
    _formula_fn = staticmethod(multinom)

    def fit(self, X, y, sample_weight=None):
        """Fit :func:`fmstats.multinom` to ``X``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            The features (a sparse matrix is densified).
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, one per row.

        Returns
        -------
        self
            The fitted estimator.
        """
        return _fit_on_frame(self, X, y, sample_weight)

    @staticmethod
    def _n_iter(res) -> int:
        return res.core_fit.iterations

    def _store_coef(self, res, p: int) -> None:
        coef = np.zeros((len(self.classes_), p + 1))
        B = res.coefficients().fillna(0.0)      # aliased columns: 0, as MaxentClassifier
        position = {n: j for j, n in enumerate(_frame_names(self, p))}
        for name in B.columns:
            col = 0 if name in INTERCEPT_NAMES else 1 + position[str(name)]
            coef[[int(c) for c in B.index], col] = B[name].to_numpy()
        self.intercept_, self.coef_ = coef[:, 0], coef[:, 1:]

    def _eta(self, X) -> np.ndarray:
        check_is_fitted(self)
        return self._check_X(X, reset=False) @ self.coef_.T + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """The linear predictors of every class (log-odds against the reference class);
        with two classes, the log-odds of ``classes_[1]`` (shape (n,), as scikit-learn's
        binary classifiers).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n, K - 1), or (n,) with two classes.
        """
        eta = self._eta(X)
        return eta[:, 1] if eta.shape[1] == 2 else eta

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (columns in the order of ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n, K).
        """
        eta = self._eta(X)
        eta = eta - eta.max(axis=1, keepdims=True)
        e = np.exp(eta)
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n,).
        """
        codes = np.argmax(self._eta(X), axis=1)
        return self.classes_[codes]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


class CalibratedMaxentClassifier(FmstatsClassifier):
    """A maximum-entropy classifier with cross-fitted calibrated probabilities:
    :func:`fmstats.maxent` followed by :func:`fmstats.calibrate`.

    Parameters
    ----------
    method : {"platt", "isotonic", "beta"}, default "platt"
        The calibration map (see :func:`fmstats.calibrate`).
    cv : int, default 5
        Folds of the cross-fitting: an integer of at least 2 (fewer when the rarer class has
        fewer rows, but at least 2).
    penalty : float, default 0
        Ridge penalty of the maxent fit.
    threshold : float, default 0.5
        ``predict`` gives ``classes_[1]`` where its calibrated probability is at least this.
    random_state : int, optional
        Seeds the folds.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    result_ : fmstats.CalibrateResults
        The calibrated model (``calibration_summary()``, ``plot_calibration()``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from fmstats.sklearn import CalibratedMaxentClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X[:, 0] + X[:, 0] ** 3 + rng.logistic(size=300) > 0).astype(int)
    >>> pipe = make_pipeline(StandardScaler(), CalibratedMaxentClassifier(method="isotonic",
    ...                                                                  random_state=0))
    >>> pipe.fit(X, y).predict_proba(X[:3]).shape
    (3, 2)
    """

    def __init__(self, method: str = "platt", cv: int = 5, penalty: float = 0.0,
                 threshold: float = 0.5, random_state=None):
        self.method = method
        self.cv = cv
        self.penalty = penalty
        self.threshold = threshold
        self.random_state = random_state

    EXPECTED_FAILED_CHECKS = {
        "check_sample_weight_equivalence_on_dense_data":
            "cross-fitting assigns rows to folds: a row repeated k times lands in several "
            "folds, where a weighted row lands in one, so the calibration maps differ (as "
            "scikit-learn's CalibratedClassifierCV does).",
    }
    EXPECTED_FAILED_CHECKS["check_sample_weight_equivalence_on_sparse_data"] = \
        EXPECTED_FAILED_CHECKS["check_sample_weight_equivalence_on_dense_data"]

    def fit(self, X, y, sample_weight=None):
        """Fit maxent to ``X`` and calibrate it by cross-fitting.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            The features (a sparse matrix is densified: the calibration refits on folds).
        y : array-like of shape (n_samples,)
            Two-class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, one per row.

        Returns
        -------
        self
            The fitted estimator.
        """
        return _fit_on_frame(self, X, y, sample_weight)

    @staticmethod
    def _formula_fn(formula, frame, w, *, method, cv, penalty, threshold, random_state):
        check_scalar("cv", cv, low=2, integer=True)     # 0, -3 or 2.7 are not a number of folds
        base = maxent(formula, frame, w, penalty=penalty)
        # fewer folds than cv when the rarer class has fewer rows (scikit-learn's checks fit
        # tiny data sets); never fewer than 2
        labels = frame[split_formula(formula)[0]].to_numpy()
        folds = min(int(cv), int(np.bincount(labels).min()))
        return calibrate(base, frame, method=method, cv=max(folds, 2), threshold=threshold,
                         random_state=random_state)

    @staticmethod
    def _n_iter(res) -> int:
        return res.base.iterations

    def _store_coef(self, res, p: int) -> None:
        """No linear coefficients: the calibration map is not linear in X."""

    def _frame(self, X):
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        X = X.toarray() if sparse.issparse(X) else X
        return pd.DataFrame(X, columns=_frame_names(self, X.shape[1]), copy=False)

    def predict_proba(self, X) -> np.ndarray:
        """Calibrated probabilities of ``classes_[0]`` and ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n, 2).
        """
        frame = self._frame(X)
        p = self.result_.predict(frame).to_numpy()
        return np.column_stack([1 - p, p])

    def decision_function(self, X) -> np.ndarray:
        """The calibrated log-odds of ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n,).
        """
        frame = self._frame(X)
        return self.result_.predict(frame, type="link").to_numpy()

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where the calibrated probability is at least ``threshold``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n,).
        """
        positive = self.predict_proba(X)[:, 1] >= self.threshold
        return self.classes_[positive.astype(np.int64)]
