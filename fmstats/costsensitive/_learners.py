"""The cost-sensitive learners called in the inner loop of Algorithms 1 and 2 (seed 001).

A learner minimises a class-weighted surrogate loss: every training row carries the cost
of misclassifying it (``1+beta^2-t`` for a positive / non-default row, ``t`` for a
negative / default row, rescaled to mean 1).  All learners return a coefficient array on
the full design (intercept column included), so that scores are always ``X @ params``:

* ``"logit"``: ridge logistic regression by IRLS (warm-started from the nearest fitted
  level), minimising ``-sum w_i loglik_i + penalty/2 ||b||^2`` (intercept unpenalised);
  multiclass: the symmetric multinomial logit with the same penalty on every class's
  coefficients, by L-BFGS (scipy).
* ``"svm"``: the weighted linear soft-margin SVM of :func:`fmstats.svm.wsvm_fit`,
  ``1/2 ||w||^2 + C sum w_i xi_i`` with ``C = 1/penalty`` (the same correspondence as
  scikit-learn's ``C`` for the logistic loss), fitted on the non-intercept columns
  standardised with the training means and standard deviations (the margin is
  scale-dependent, and unscaled columns such as Adult's capital gain make the QP
  ill-conditioned); the coefficients are mapped back to the original columns.
  Multiclass: one-versus-rest SVMs, each row weighted by its misclassification cost.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize

from ..glm import newton_iterate

__all__ = ["LogitLearner", "SvmLearner", "LEARNERS"]

LEARNERS = ("logit", "svm")


class LogitLearner:
    """Class-weighted ridge logistic regression (binary: IRLS; multiclass: L-BFGS)."""

    name = "logit"
    probabilistic = True

    def __init__(self, penalty: float, intercept: int | None, tol: float, max_iter: int):
        self.penalty = float(penalty)
        self.intercept = intercept
        self.tol, self.max_iter = float(tol), int(max_iter)

    def _pen(self, p: int) -> np.ndarray:
        pen = np.full(p, self.penalty)
        if self.intercept is not None:
            pen[self.intercept] = 0.0
        return pen

    def fit(self, X, y, w, start):
        """Binary fit: returns ``(coef, converged, iterations)``."""
        pen = self._pen(X.shape[1])
        coef, _, _, _, it, conv, _ = newton_iterate(X, y, w, start, pen, bool(np.any(pen > 0)),
                                              self.tol, self.max_iter)
        return coef, bool(conv), int(it)

    def fit_multiclass(self, X, yidx, K, w, start):
        """Multinomial fit: returns ``(B (p x K), converged, iterations)``."""
        n, p = X.shape
        pen = self._pen(p)[:, None]
        Y = np.zeros((n, K))
        Y[np.arange(n), yidx] = 1.0
        wn = w / n

        def objective(b):
            B = b.reshape(p, K)
            Z = X @ B
            zmax = Z.max(axis=1, keepdims=True)
            E = np.exp(Z - zmax)
            S = E.sum(axis=1, keepdims=True)
            lse = zmax[:, 0] + np.log(S[:, 0])
            f = float(wn @ (lse - np.einsum("ij,ij->i", Z, Y))) + 0.5 * float(
                np.sum(pen * B * B)) / n
            G = X.T @ ((E / S - Y) * wn[:, None]) + pen * B / n
            return f, G.ravel()

        b0 = np.zeros(p * K) if start is None else np.asarray(start, dtype=float).ravel()
        res = optimize.minimize(objective, b0, jac=True, method="L-BFGS-B",
                                options={"maxiter": 50 * self.max_iter, "ftol": 1e-15,
                                         "gtol": 1e-10})
        B = res.x.reshape(p, K)
        if self.intercept is not None:          # the common shift of the intercepts is free
            B[self.intercept] -= B[self.intercept].mean()
        grad = np.max(np.abs(res.jac)) if res.jac is not None else np.inf
        return B, bool(res.success or grad < 1e-7), int(res.nit)


class SvmLearner:
    """Class-weighted linear soft-margin SVM through :func:`fmstats.svm.wsvm_fit`."""

    name = "svm"
    probabilistic = False

    def __init__(self, penalty: float, intercept: int, tol: float = 1e-10):
        from ..svm import wsvm_fit  # noqa: F401  (fail early if the SVM core is missing)

        self.C = 1.0 / float(penalty)
        self.intercept = int(intercept)
        self.tol = float(tol)

    def _standardised(self, X):
        """The non-intercept columns centred and scaled on the training rows (cached)."""
        key = (id(X), X.shape)
        if getattr(self, "_key", None) != key:
            Xs = np.delete(X, self.intercept, axis=1)
            mean = Xs.mean(axis=0)
            sd = Xs.std(axis=0)
            sd[sd == 0] = 1.0
            self._key, self._Z, self._mean, self._sd = key, (Xs - mean) / sd, mean, sd
        return self._Z

    def fit(self, X, y, w, start=None):
        from ..svm import wsvm_fit

        Z = self._standardised(X)
        fit = wsvm_fit(Z, y, self.C, self.C, sample_weight=w, tol=self.tol)
        coef = fit.w / self._sd
        b = fit.b - float(coef @ self._mean)
        return np.insert(coef, self.intercept, b), bool(fit.converged), int(fit.iterations)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_key", "_Z", "_mean", "_sd")}

    def fit_multiclass(self, X, yidx, K, w, start=None):
        cols, conv, its = [], True, 0
        for k in range(K):
            coef, c, it = self.fit(X, (yidx == k).astype(float), w)
            cols.append(coef)
            conv &= c
            its += it
        return np.column_stack(cols), conv, its
