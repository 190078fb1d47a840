"""The binary estimators (maxent, fmaxent, wsvm, fsvm) and their shared plumbing; see the
package docstring of :mod:`fmstats.sklearn`."""
from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit, log_expit

try:
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import type_of_target
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "fmstats.sklearn needs scikit-learn >= 1.6, which is not installed (or too old): "
        "pip install fmstats[sklearn]") from exc

import warnings

from .._utils.validation import describe
from ..exceptions import DataError, FmstatsWarning, InvalidArgumentError, ResponseError, WeightsError
from ..formula import MatrixData
from ..maxent_models import DEFAULT_EPSILON, DEFAULT_SHRINKAGE, fmaxent
from ..maxent_models import maxent
from ..svm import fsvm, wsvm

__all__ = ["MaxentClassifier", "FMaxentClassifier", "WsvmClassifier", "FsvmClassifier",
           "expected_failed_checks"]

INTERCEPT_NAMES = ("Intercept", "(Intercept)")
#: The formula recorded with an estimator's fit (the design is the matrix X).
FORMULA = "y ~ ."
SPARSE_FORMATS = ("csr", "csc")


def term_names(est, p: int) -> list[str]:
    """The coefficients' names: ``feature_names_in_`` when ``X`` was a DataFrame with string
    column names (made unique against the intercept), else ``x0, x1, ...``."""
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(p)]
    return [f"{n}_" if str(n) in INTERCEPT_NAMES else str(n) for n in names]


#: What each kind of aggregated warning means for an estimator's fit (constant texts).
_ADVICE = {
    "SeparationWarning": "fitted probabilities numerically 0 or 1 (the data are separated; "
                         "a ridge penalty= keeps the coefficients finite)",
    "ConvergenceWarning": "the fit stopped before converging (raise max_iter/max_outer)",
    "CollinearityWarning": "collinear columns were dropped (their coefficients are 0)",
}


def expected_failed_checks(estimator) -> dict[str, str]:
    """The checks of :func:`sklearn.utils.estimator_checks.check_estimator` that ``estimator``
    fails by design, each with the reason: its class's ``EXPECTED_FAILED_CHECKS``.

    Pass it as ``expected_failed_checks=`` to ``parametrize_with_checks`` (or call it for
    ``check_estimator``); scikit-learn >= 1.6 has no estimator tag for expected failures.

    Parameters
    ----------
    estimator : estimator
        One of the estimators of this module (or any object: without
        ``EXPECTED_FAILED_CHECKS`` the answer is empty).

    Returns
    -------
    dict
        Check name -> the reason it fails.
    """
    return dict(getattr(estimator, "EXPECTED_FAILED_CHECKS", {}))


#: the dense and sparse versions of scikit-learn's sample-weight check
_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")


class FmstatsClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict plumbing; subclasses name their formula function (``_formula_fn``,
    called with the estimator's parameters) and how many iterations it took (``_n_iter``)."""

    #: check_estimator checks failed by design -> reason (see :func:`expected_failed_checks`).
    EXPECTED_FAILED_CHECKS: dict = {}
    _multiclass = False     # whether the model takes more than two classes

    # ------------------------------------------------------------------ input checks
    def _check_X(self, X, reset: bool) -> np.ndarray:
        try:
            return validate_data(self, X, reset=reset, dtype=np.float64, accept_sparse=SPARSE_FORMATS)
        except ValueError as exc:   # scikit-learn's message, as an fmstats error
            raise DataError(f"`X`: {exc}") from exc

    def _class_weights(self, y, codes: np.ndarray, w: np.ndarray | None) -> np.ndarray | None:
        """``sample_weight`` times the weight of each row's class (scikit-learn's rule:
        ``"balanced"`` gives n / (2 n_class) with the sample weights counted)."""
        cw = self.class_weight
        if cw is None:
            return w
        from sklearn.utils.class_weight import compute_class_weight

        if isinstance(cw, dict):
            unknown = [k for k in cw if k not in set(self.classes_.tolist())]
            if unknown:
                raise InvalidArgumentError(
                    f"`class_weight` names class {unknown[0]!r}, which is not in `y` (classes "
                    f"{self.classes_.tolist()}).")
        elif not (isinstance(cw, str) and cw == "balanced"):
            raise InvalidArgumentError(f"`class_weight` must be None, 'balanced' or a dict "
                                       f"class -> weight; got {describe(cw)}.")
        try:
            per_class = compute_class_weight(cw, classes=self.classes_, y=y, sample_weight=w)
        except ValueError as exc:
            raise InvalidArgumentError(f"`class_weight`: {exc}") from None
        if not (np.all(np.isfinite(per_class)) and np.all(per_class >= 0)):
            raise WeightsError("`class_weight` must be finite and non-negative.")
        scale = per_class[codes]
        return scale if w is None else w * scale

    def _check_y(self, y) -> np.ndarray:
        """Labels -> 0/1 codes, setting ``classes_``."""
        kind = type_of_target(y, input_name="y")
        if kind not in ("binary", "multiclass"):
            raise ResponseError(
                f"Unknown label type: `y` must hold class labels (two classes: strings, "
                f"integers or booleans); got {kind!r} values such as {describe(y[:3])}.")
        classes, codes = np.unique(y, return_inverse=True)
        if len(classes) > 2 and not self._multiclass:
            shown = ", ".join(map(repr, classes[:5].tolist())) + (", ..." if len(classes) > 5
                                                                   else "")
            raise ResponseError(
                f"Only binary classification is supported. The target `y` has {len(classes)} "
                f"classes ({shown}); {type(self).__name__} separates a positive class from a "
                "negative one (use sklearn.multiclass.OneVsRestClassifier around it).")
        if len(classes) < 2:
            raise ResponseError(
                f"`y` has one class only ({classes[0]!r}); {type(self).__name__} needs two "
                "classes to train.")
        self.classes_ = classes
        return codes.astype(np.int64)

    @staticmethod
    def _check_weights(sample_weight, n: int, y01: np.ndarray) -> np.ndarray | None:
        if sample_weight is None:
            return None
        if isinstance(sample_weight, numbers.Number):
            sample_weight = np.full(n, sample_weight)
        try:
            w = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError):
            raise WeightsError("`sample_weight` must be non-negative numbers, one per row of "
                               f"`X`; got {describe(sample_weight)}.") from None
        if w.shape != (n,):
            raise WeightsError(f"`sample_weight` must have shape ({n},), one weight per row of "
                               f"`X`; got shape {w.shape}.")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise WeightsError("`sample_weight` must be finite and non-negative; got "
                               f"{float(w[~(np.isfinite(w) & (w >= 0))][0])!r}.")
        if not np.any(w > 0):
            raise WeightsError("`sample_weight` must not be all zero: at least one row of each "
                               "class needs a positive weight.")
        for cls in (0, 1):
            if not np.any(w[y01 == cls] > 0):
                raise ResponseError(
                    "`sample_weight` leaves one class only: every row of class "
                    f"{cls} has weight 0, and the classifier needs two classes to train.")
        return w

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Fit the model to ``X`` (n_samples, n_features; dense or scipy.sparse CSR/CSC) and
        two-class labels ``y``.

        ``sample_weight`` (non-negative, one per row) are the formula functions' prior
        weights: an integer weight counts a row that many times; ``class_weight`` multiplies
        them per class.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            The features.
        y : array-like of shape (n_samples,)
            Two-class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights, one per row.

        Returns
        -------
        self
            The fitted estimator.
        """
        X, y, y01, w = self._fit_input(X, y, sample_weight)
        w = self._class_weights(y, y01, w)
        if w is not None and self.class_weight is not None:
            self._check_weights(w, X.shape[0], y01)
        data = MatrixData(X, y01, term_names(self, X.shape[1]))
        params = {k: v for k, v in self.get_params().items() if k != "class_weight"}
        res, caught = _recording(lambda: type(self)._formula_fn(FORMULA, data, w, **params))
        self._report(caught)
        return self._fitted(res, X.shape[1])

    def _fit_input(self, X, y, sample_weight):
        """``X`` and ``y`` validated (scikit-learn's message as a DataError), the label codes
        and the checked sample weights."""
        try:
            X, y = validate_data(self, X, y, reset=True, dtype=np.float64,
                                 accept_sparse=SPARSE_FORMATS)
        except ValueError as exc:   # scikit-learn's message, as an fmstats error
            raise DataError(f"`X`, `y`: {exc}") from exc
        y01 = self._check_y(y)
        return X, y, y01, self._check_weights(sample_weight, X.shape[0], y01)

    def _fitted(self, res, p: int):
        """Keep the fitted model ``res`` (of ``p`` features) and its coefficients."""
        self.result_ = res
        self.n_iter_ = int(self._n_iter(res))
        self._store_coef(res, p)
        return self

    def _store_coef(self, res, p: int) -> None:
        coef = _coefficients(res, p)
        self.intercept_ = np.array([coef[0]])
        self.coef_ = coef[1:][None, :]

    def _report(self, caught) -> None:
        """Keep the fit's fmstats warnings in ``fit_warnings_`` and report each kind once,
        with a text that is the same for every fit (so a search shows it once)."""
        ours = [w for w in caught if issubclass(w.category, FmstatsWarning)]
        self.fit_warnings_ = [(w.category.__name__, str(w.message)) for w in ours]
        for w in caught:
            if not issubclass(w.category, FmstatsWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        for category in dict.fromkeys(w.category for w in ours):
            key = (type(self).__name__, category.__name__)
            if key in _REPORTED:
                continue
            _REPORTED.add(key)
            what = _ADVICE.get(category.__name__, category.__doc__.strip().splitlines()[0]
                               if category.__doc__ else category.__name__)
            warnings.warn(f"{type(self).__name__}: {what}. Reported once per session for "
                          f"{type(self).__name__} (a search of many fits shows it once); every "
                          "fit's messages are in its fit_warnings_.", category, stacklevel=3)

    # ------------------------------------------------------------------ predict
    def decision_function(self, X) -> np.ndarray:
        """``x'coef_ + intercept_`` for each row: the log-odds of ``classes_[1]`` (maxent
        models) or the SVM's decision value (positive class where > 0).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n,).
        """
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X) -> np.ndarray:
        """The predicted class of each row (an element of ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n,).
        """
        positive = self._positive(self.decision_function(X))
        return self.classes_[positive.astype(np.int64)]

    def _positive(self, decision: np.ndarray) -> np.ndarray:
        return decision > 0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


def _recording(fn):
    """``fn()`` with every warning it raises recorded, not shown: (value, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn()
    return value, list(caught)


#: (estimator class, warning category) pairs reported in this process: the module's one piece
#: of state, so that a search of many fits (whose every fit scikit-learn runs inside its own
#: warnings context, which resets Python's "shown once" registries) reports each kind once.
_REPORTED: set = set()


def _coefficients(res, p: int) -> np.ndarray:
    """(intercept, coef of the p columns of X) from a model fitted on a matrix design (the
    intercept first, then the columns in order); aliased (dropped) columns are 0, which gives
    the same predictions as leaving them out."""
    values = np.asarray(res.params, dtype=float)
    if values.shape != (p + 1,):     # pragma: no cover - the matrix design's invariant
        raise DataError(f"expected {p + 1} coefficients, got {values.shape}")
    return np.where(np.isfinite(values), values, 0.0)


class _ProbabilisticMixin:
    """``predict_proba`` of the maxent models: p = expit(log-odds), class 1 at p >= threshold."""

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``classes_[0]`` and ``classes_[1]`` (columns), per row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n, 2).
        """
        eta = self.decision_function(X)
        return np.column_stack([expit(-eta), expit(eta)])

    def predict_log_proba(self, X) -> np.ndarray:
        """Logarithms of :meth:`predict_proba`, computed without underflow.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        numpy.ndarray
            Shape (n, 2).
        """
        eta = self.decision_function(X)
        return np.column_stack([log_expit(-eta), log_expit(eta)])

    def _positive(self, decision: np.ndarray) -> np.ndarray:
        # as the formula models' predict(type="class"): class 1 where p >= threshold
        return expit(decision) >= self.threshold


class MaxentClassifier(_ProbabilisticMixin, FmstatsClassifier):
    """Weighted maximum-entropy (logistic regression) classifier: :func:`fmstats.maxent`.

    Maximises the (sample-weighted) log-likelihood, by the IRLS of R's ``glm``; with
    ``penalty=0`` the coefficients are those of an unpenalised logistic regression.

    Parameters
    ----------
    penalty : float, default 0
        Ridge penalty on the coefficients (not the intercept).
    threshold : float, default 0.5
        ``predict`` gives ``classes_[1]`` where its probability is at least this.
    collinear : {"drop", "raise"}, default "drop"
        Aliased (linearly dependent) columns get coefficient 0, with a
        :class:`~fmstats.exceptions.CollinearityWarning`, or raise.
    tol, max_iter : float, int
        IRLS convergence tolerance and iteration cap.
    class_weight : "balanced", dict or None, default None
        Weights of the classes, multiplying ``sample_weight`` (scikit-learn's rule):
        ``"balanced"`` gives each class n / (2 n_class) (weighted counts), a dict maps a
        label of ``y`` to its weight.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels, sorted; ``classes_[1]`` is the positive class.
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` was a DataFrame with string column names; they name the terms of
        ``result_``.
    n_iter_ : int
        IRLS iterations (:class:`FMaxentClassifier`: outer reweighting iterations;
        :class:`WsvmClassifier`: interior-point iterations; :class:`FsvmClassifier`: NLopt
        objective evaluations).
    result_ : fmstats.MaxentResults
        The fitted model (``summary()``, ``tidy()``, ``conf_int()``, ``fm.bootstrap``, ...);
        its terms are ``feature_names_in_`` or ``x0, x1, ...``, the columns of ``X``.
    fit_warnings_ : list of (str, str)
        The fit's fmstats warnings: category name and message.

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.sklearn import MaxentClassifier
    >>> X = np.array([[0.], [1.], [2.], [3.], [4.], [5.]])
    >>> clf = MaxentClassifier().fit(X, [0, 0, 1, 0, 1, 1])
    >>> clf.predict([[0.5], [4.5]]).tolist()
    [0, 1]
    >>> clf.predict_proba([[2.5]]).round(3).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, penalty: float = 0.0, threshold: float = 0.5, collinear: str = "drop",
                 tol: float = 1e-8, max_iter: int = 25, class_weight=None):
        self.class_weight = class_weight
        self.penalty = penalty
        self.threshold = threshold
        self.collinear = collinear
        self.tol = tol
        self.max_iter = max_iter

    EXPECTED_FAILED_CHECKS = dict.fromkeys(_WEIGHT_CHECKS, (
        "the check's data (15 rows, 30 columns) are separable, so the unpenalised "
        "maximum-likelihood estimate does not exist: IRLS stops after max_iter steps along "
        "a diverging path whose start (R's mustart (w y + 1/2) / (w + 1)) differs between "
        "a weighted and a repeated row. With penalty > 0 the check passes, and where the "
        "estimate exists weights are repeated rows (both in tests/test_sklearn.py)."))

    _formula_fn = staticmethod(maxent)

    @staticmethod
    def _n_iter(res) -> int:
        return res.iterations


class FMaxentClassifier(_ProbabilisticMixin, FmstatsClassifier):
    """F-measure maximising maximum-entropy classifier: :func:`fmstats.fmaxent`.

    Reweights the rows of a logistic regression until the expected F-measure of
    ``classes_[1]`` is maximal (thesis Algorithm 4.1), so its predictions trade precision for
    recall as the F-measure asks: with ``beta=2`` it predicts more positives than
    :class:`MaxentClassifier`.  Give ``alpha`` (weight on precision) or ``beta``, not both;
    default F1.  The other parameters, and their defaults, are those of
    :func:`fmstats.fmaxent` (see there for what each does and why the defaults are these).

    Parameters
    ----------
    alpha, beta : float, optional
        The F-measure of ``classes_[1]`` to maximise: ``alpha`` the weight on precision, in
        (0, 1), or ``beta``; give one, not both (default F1).
    method : {"expected", "noisy", "plugin"}, optional
        The reweighting (default: ``"expected"`` for the 0/1 labels of a classifier).
    epsilon : float or None, default 0.01
        Smoothing width of the weights (noisy and plug-in methods).
    weight_bounds : "auto", tuple of float or None, default "auto"
        Clipping of the weights, scaled to mean 1 (``"auto"``: ``(0.01, 10)`` for the
        expected-F method).
    shrinkage : float, default 1e-4
        Ridge penalty per observation on standardised coefficients.
    inner : {"full", "step"}, default "full"
        A full weighted fit or one IRLS step per outer iteration.
    max_outer : int, default 100
        The cap on outer iterations.
    patience : int, default 5
        Stop when the last ``patience`` outer iterations improved the best target by at
        most ``max(min_improvement, rel_improvement * gain since the start)``.
    min_improvement : float, default 1e-8
        The absolute improvement that counts.
    rel_improvement : float, default 0.01
        The improvement that counts, relative to the gain since the start.
    select : {"target", "f"}, default "target"
        Return the iterate with the best target or the best plug-in training F.
    penalty : float, default 0
        Ridge penalty on the raw coefficients, added to ``shrinkage``'s.
    threshold : float, default 0.5
        ``predict`` gives ``classes_[1]`` where its probability is at least this.
    collinear : {"drop", "raise"}, default "drop"
        Aliased columns get coefficient 0, or raise, as in :class:`MaxentClassifier`.
    tol : float, default 1e-8
        IRLS convergence tolerance of each weighted fit.
    max_iter : int, default 25
        IRLS iteration cap of each weighted fit.
    class_weight : "balanced", dict or None, default None
        Weights of the classes, multiplying ``sample_weight`` (scikit-learn's rule):
        ``"balanced"`` gives each class n / (2 n_class) (weighted counts), a dict maps a
        label of ``y`` to its weight.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_, feature_names_in_, n_iter_
        As in :class:`MaxentClassifier`.
    result_ : fmstats.FMaxentResults
        The fitted formula model (learning curve ``history``, ``summary()``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.metrics import fbeta_score
    >>> from fmstats.sklearn import FMaxentClassifier
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(400, 3))
    >>> y = (X @ [1.0, -1.0, 0.5] + rng.logistic(size=400) > 2).astype(int)
    >>> clf = FMaxentClassifier(beta=2).fit(X, y)
    >>> round(clf.result_.settings["measure"].alpha, 3)    # F2: alpha = 1 / (1 + beta^2)
    0.2
    >>> bool(fbeta_score(y, clf.predict(X), beta=2) > 0.6)
    True
    """

    def __init__(self, alpha=None, beta=None, method=None, epsilon=DEFAULT_EPSILON,
                 weight_bounds="auto", shrinkage=DEFAULT_SHRINKAGE, inner="full",
                 max_outer=100, patience=5, min_improvement=1e-8, rel_improvement=0.01,
                 select="target", penalty=0.0, threshold=0.5, collinear="drop", tol=1e-8,
                 max_iter=25, class_weight=None):
        self.class_weight = class_weight
        self.alpha = alpha
        self.beta = beta
        self.method = method
        self.epsilon = epsilon
        self.weight_bounds = weight_bounds
        self.shrinkage = shrinkage
        self.inner = inner
        self.max_outer = max_outer
        self.patience = patience
        self.min_improvement = min_improvement
        self.rel_improvement = rel_improvement
        self.select = select
        self.penalty = penalty
        self.threshold = threshold
        self.collinear = collinear
        self.tol = tol
        self.max_iter = max_iter

    _formula_fn = staticmethod(fmaxent)

    @staticmethod
    def _n_iter(res) -> int:
        return len(res.history) - 1     # outer (reweighting) iterations


class WsvmClassifier(FmstatsClassifier):
    """Class-weighted linear soft-margin SVM, solved exactly: :func:`fmstats.wsvm`.

    Parameters
    ----------
    C_pos, C_neg : float, default 1
        Costs of margin violations of rows of ``classes_[1]`` and ``classes_[0]``
        (``sample_weight`` multiplies them).  The heuristic (3.3) is C_pos / C_neg = m- / m+.
    tol : float, default 1e-10
        Relative tolerance of the interior-point method.
    class_weight : "balanced", dict or None, default None
        Weights of the classes, multiplying ``sample_weight`` (scikit-learn's rule):
        ``"balanced"`` gives each class n / (2 n_class) (weighted counts), a dict maps a
        label of ``y`` to its weight.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_, feature_names_in_, n_iter_
        As in :class:`MaxentClassifier`; ``coef_`` is w, ``intercept_`` is b.
    result_ : fmstats.WsvmResults

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.sklearn import WsvmClassifier
    >>> X = np.array([[0., 0.], [1., 0.], [0., 1.], [3., 3.], [4., 3.], [3., 4.]])
    >>> svm = WsvmClassifier(C_pos=10, C_neg=10).fit(X, ["a", "a", "a", "b", "b", "b"])
    >>> svm.predict([[0.5, 0.5], [3.5, 3.5]]).tolist()
    ['a', 'b']
    >>> svm.decision_function([[1., 0.], [3., 3.]]).round(6).tolist()  # on the margins
    [-1.0, 1.0]
    """

    def __init__(self, C_pos: float = 1.0, C_neg: float = 1.0, tol: float = 1e-10,
                 class_weight=None):
        self.class_weight = class_weight
        self.C_pos = C_pos
        self.C_neg = C_neg
        self.tol = tol

    _formula_fn = staticmethod(wsvm)

    @staticmethod
    def _n_iter(res) -> int:
        return res.core_fit.iterations      # interior-point iterations


class FsvmClassifier(FmstatsClassifier):
    """F-measure maximising linear SVM (thesis (3.6)): :func:`fmstats.fsvm`.

    Give ``alpha`` or ``beta`` (default F1); ``C`` weighs the F term (default: the number of
    positive rows), ``a`` is the slope of the step approximation (default 5 for the default
    ``method="reduced"``).  The other parameters, and their defaults, are those of
    :func:`fmstats.fsvm` (``objective="count"`` with ``C_pos``/``C_neg`` gives the
    misclassification-counting SVM (3.4)).

    Parameters
    ----------
    alpha, beta : float, optional
        The F-measure of ``classes_[1]``: ``alpha`` the weight on precision, in (0, 1), or
        ``beta`` (default F1).
    C : float, optional
        Weight of the F term (> 0; default: the number of positive rows).
    a : float, optional
        Slope of the step approximation (> 0; default 5 for ``method="reduced"``, 1 for
        ``"primal"``).
    method : {"reduced", "primal"}, default "reduced"
        Minimise over (w, b), or the thesis's formulation over (w, b, xi).
    objective : {"fmeasure", "count"}, default "fmeasure"
        The F-measure SVM (3.6) or the misclassification-counting SVM (3.4).
    C_pos, C_neg : float, optional
        Costs of the counting objective (default (m-, m+)/10).
    start_C : tuple of float, optional
        Costs of the weighted SVM the search starts from (default (m-, m+)/10).
    bounds : "thesis", None or tuple, default "thesis"
        The box of the search: the thesis's R code's, none (only xi >= 0), or
        (lower, upper).
    algorithm : str or sequence of str, optional
        NLopt local derivative-free algorithm(s), without ``LN_`` (default: COBYLA for the
        primal method, NELDERMEAD and COBYLA alternating for the reduced one).
    maxeval : int, default 500
        NLopt's cap on objective evaluations (total over restarts).
    ftol_rel : float, default 1e-4
        NLopt's relative tolerance on the objective.
    xtol_rel : float, default 0
        NLopt's relative tolerance on the coefficients.
    initial_step : float, optional
        NLopt's initial step.
    restarts : int, optional
        Further NLopt runs from the best point (default 20 for the reduced method, 0 for
        the primal one).
    constraint_tol : float, default 0
        NLopt's tolerance of each margin constraint (primal method).
    degenerate : {"start", "keep"}, optional
        Return the start (``"start"``, default for the reduced method) or the minimum
        (``"keep"``, default for the primal one) when the minimum predicts a single class
        on every training row and the start predicted both.
    class_weight : "balanced", dict or None, default None
        Weights of the classes, multiplying ``sample_weight`` (scikit-learn's rule):
        ``"balanced"`` gives each class n / (2 n_class) (weighted counts), a dict maps a
        label of ``y`` to its weight.

    Attributes
    ----------
    classes_, coef_, intercept_, n_features_in_, feature_names_in_, n_iter_
        As in :class:`WsvmClassifier`.
    result_ : fmstats.FsvmResults

    Examples
    --------
    >>> import numpy as np
    >>> from fmstats.sklearn import FsvmClassifier
    >>> rng = np.random.default_rng(2)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] - X[:, 1] + rng.normal(scale=0.5, size=200) > 1).astype(int)
    >>> svm = FsvmClassifier(beta=1).fit(X, y)
    >>> bool(svm.score(X, y) > 0.8), svm.coef_.shape
    (True, (1, 2))
    """

    def __init__(self, alpha=None, beta=None, C=None, a=None, method="reduced",
                 objective="fmeasure", C_pos=None, C_neg=None, start_C=None, bounds="thesis",
                 algorithm=None, maxeval=500, ftol_rel=1e-4, xtol_rel=0.0, initial_step=None,
                 restarts=None, constraint_tol=0.0, degenerate=None, class_weight=None):
        self.class_weight = class_weight
        self.alpha = alpha
        self.beta = beta
        self.C = C
        self.a = a
        self.method = method
        self.objective = objective
        self.C_pos = C_pos
        self.C_neg = C_neg
        self.start_C = start_C
        self.bounds = bounds
        self.algorithm = algorithm
        self.maxeval = maxeval
        self.ftol_rel = ftol_rel
        self.xtol_rel = xtol_rel
        self.initial_step = initial_step
        self.restarts = restarts
        self.constraint_tol = constraint_tol
        self.degenerate = degenerate

    EXPECTED_FAILED_CHECKS = {"check_class_weight_classifiers": (
        "the check weights class 0 by 1000 and class 1 by 0.0001 and expects most test rows "
        "in class 0. The F-SVM's default C is the weighted number of positive rows (thesis "
        "ch. 8: C = m+), which those weights make 0.0026, so the regularised start is "
        "returned (half the rows in class 1, measured); its objective, the F-measure of "
        "classes_[1], is not a sum over rows that class weights tilt towards class 0. "
        "WsvmClassifier and both maxent classifiers pass the check, and class_weight equals "
        "scaled sample weights for all four (tests/test_sklearn.py).")}
    _formula_fn = staticmethod(fsvm)

    @staticmethod
    def _n_iter(res) -> int:
        return res.nevals               # NLopt objective evaluations
