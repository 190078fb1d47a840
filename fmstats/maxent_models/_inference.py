"""Inference after ``summary()`` for maxent-family fits: prediction standard errors, analysis of
deviance (R's ``anova.glm``) and profile-likelihood confidence intervals (R's ``confint.glm``).

Used by :class:`fmstats.MaxentResults` (``predict(se_fit=True)``,
``conf_int(method="profile")``) and exported as :func:`fmstats.anova`.  The functions read a
fitted results object through its public attributes (``X``, ``y``, ``count_weights``,
``params``, ``aliased``, ``spec``, ``dispersion``) and refit sub-models on the stored design;
they never re-parse a formula.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, stats
from scipy.special import expit

from .._utils.boundary import public
from .._utils.validation import check_choice, check_level, check_scalar
from ..exceptions import InvalidArgumentError, ModelComparisonError
from ..glm import binomial_deviance, deviance_scale, gram, irls_logit
from ._termtable import r_anova_text, warn_f_test
from ..results import check_comparable

__all__ = ["anova", "AnovaTable", "confint", "link_se", "profile_conf_int", "TESTS",
           "likelihood_problem",
           "require_likelihood"]

TESTS = ("Chisq", "LRT", "F", "Rao")


# ----------------------------------------------------------------------------- the guard
def likelihood_problem(results) -> str | None:
    """Why ``results`` is not an unpenalised likelihood fit (None when it is).

    Profile intervals, the analysis of deviance and statsmodels' GLM twin all read the fit as
    the maximiser of a (quasi-)likelihood: an F-maximiser's weights are chosen from the fit
    itself, and a ridge penalty moves the estimate off the likelihood's maximum, so deviance
    differences and profiles around it do not follow their reference distributions.
    """
    if getattr(results, "fweights", None) is not None:
        return (f"it is an F-measure maximiser ({type(results).__name__}): its weights are "
                "chosen from the fit itself, so its weighted deviance is not a likelihood")
    if not _is_binomial_glm(results):
        return f"it is a {type(results).__name__}, not a maxent or umaxent fit"
    penalty = results.settings["penalty"]
    if penalty:
        return (f"it was fitted with a ridge penalty ({penalty:g}), which moves the estimate "
                "off the likelihood's maximum (deviance differences and profiles around it do "
                "not follow their reference distributions); refit with penalty=0")
    return None


def require_likelihood(results, what: str, error=InvalidArgumentError) -> None:
    """Raise ``error`` naming ``what`` when ``results`` is not an unpenalised likelihood fit
    (:func:`likelihood_problem`): the one guard of ``conf_int(method="profile")``,
    ``tidy(ci_method="profile")``, :func:`anova` and :func:`to_statsmodels`."""
    why = likelihood_problem(results)
    if why is not None:
        raise error(f"{what} needs an unpenalised likelihood fit: {why}.")


# ----------------------------------------------------------------------------- predictions
def link_se(X: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Standard errors of the linear predictors X b: sqrt(diag(X V X')), row by row."""
    return np.sqrt(np.maximum(np.einsum("ij,ij->i", X @ cov, X), 0.0))


def predict_se(results, X, eta, index, type: str, interval, level: float) -> pd.DataFrame:
    """``predict(se_fit=True)`` of a maxent-family fit: columns ``fit``, ``se_fit`` (and
    ``conf_low``, ``conf_high`` for ``interval="confidence"``), R's ``predict.glm`` values.

    The link-scale variance is x' V x with V the covariance in use (``cov_type``); on the
    response scale the delta method multiplies by p (1 - p).  Intervals are formed on the link
    scale and transformed.  ``attrs["residual_scale"]`` is sqrt(dispersion), as R returns it.
    """
    check_level(level)
    why = results.se_unusable()
    cov = results.cov_params().to_numpy()
    se_link = link_se(X, cov)
    if why is not None or not np.all(np.isfinite(cov)):
        from .._utils.validation import warn
        from ..exceptions import SeparationWarning

        warn(f"predict: standard errors are NA: {why or 'the covariance is not finite'}. "
             "Use a ridge `penalty=` (or `shrinkage=`) or cov_type='bootstrap'.",
             SeparationWarning)
        se_link = np.full(len(eta), np.nan)
    if type == "link":
        out = pd.DataFrame({"fit": eta, "se_fit": se_link}, index=index)
    else:
        p = expit(eta)
        out = pd.DataFrame({"fit": p, "se_fit": se_link * p * (1 - p)}, index=index)
    if interval is not None:
        q = float(results._reference().ppf(0.5 + level / 2))
        lo, hi = eta - q * se_link, eta + q * se_link
        if type != "link":
            lo, hi = expit(lo), expit(hi)
        out["conf_low"], out["conf_high"] = lo, hi
    out.attrs["residual_scale"] = float(np.sqrt(results.dispersion))
    out.attrs["cov_type"] = results.cov_type
    return out


# ----------------------------------------------------------------------------- anova
class AnovaTable(pd.DataFrame):
    """An analysis-of-deviance table: a tidy DataFrame printed like R's ``anova.glm``.

    Columns ``resid_df``, ``resid_dev``, ``df``, ``deviance``, ``statistic`` (F or Rao score;
    absent for a chi-squared test) and ``p_value``; the first row has NaN where R prints
    nothing.  ``heading`` holds R's header lines.  Built by :func:`anova`; the constructor
    is :class:`pandas.DataFrame`'s.

    Parameters
    ----------
    data : ndarray, dict or DataFrame, optional
        The table's contents, as in :class:`pandas.DataFrame`.
    index : Index or array-like, optional
        Row labels, as in :class:`pandas.DataFrame`.
    columns : Index or array-like, optional
        Column labels, as in :class:`pandas.DataFrame`.
    dtype : dtype, optional
        Data type to force, as in :class:`pandas.DataFrame`.
    copy : bool, optional
        Whether to copy the data, as in :class:`pandas.DataFrame`.
    """

    _metadata = ["heading"]

    @property
    def _constructor(self):
        return pd.DataFrame          # slices and arithmetic give plain DataFrames

    def _columns(self) -> dict:
        """R's column labels and values, in R's order (sequential or nested layout)."""
        labels = {"df": "Df", "deviance": "Deviance", "resid_df": "Resid. Df",
                  "resid_dev": "Resid. Dev", "statistic": self.attrs.get("statistic", "stat"),
                  "p_value": self.attrs.get("p_label", "Pr(>Chi)")}
        order = (("df", "deviance", "resid_df", "resid_dev") if self.attrs.get("sequential")
                 else ("resid_df", "resid_dev", "df", "deviance"))
        return {labels[c]: self[c].to_numpy(float) for c in order + ("statistic", "p_value")
                if c in self.columns}

    def __str__(self) -> str:
        from ..results import anova_columns

        return r_anova_text(getattr(self, "heading", None), anova_columns(self._columns()),
                            self.index)

    def __repr__(self) -> str:
        return self.__str__()

    def _repr_html_(self) -> str:
        import html

        head = "".join(f"<p>{html.escape(h)}</p>" for h in (getattr(self, "heading", None) or []))
        return head + pd.DataFrame(self).to_html(float_format=lambda v: f"{v:.6g}", na_rep="")


def _is_binomial_glm(m) -> bool:
    """A maxent/umaxent fit (or an F-maximiser, refused below): a binomial GLM with a deviance.
    Judged by its attributes so this module, which sits above the models, need not import them."""
    try:
        return m.family in ("binomial", "quasibinomial") and hasattr(m, "core_fit")
    except Exception:
        return False


def _check_model(m, i: int):
    require_likelihood(m, f"anova (model {i + 1})", ModelComparisonError)
    if getattr(m, "X", None) is None:               # out of core, or keep_data=False
        raise ModelComparisonError(
            f"anova: model {i + 1} keeps no design matrix (out of core, or keep_data=False), "
            "so its sub-models cannot be refitted; refit it with keep_data=True in memory.")


def _default_test(m) -> str:
    return "F" if m.estimates_dispersion else "Chisq"


def _weights(m) -> np.ndarray:
    return m.count_weights


def _fit_columns(m, cols: np.ndarray, tol: float):
    """Deviance, residual df and fit of the sub-model on the columns ``cols`` of ``m.X``."""
    w, y, off = _weights(m), m.y, m.training.offset
    n_ok = int(np.count_nonzero(w > 0))
    if cols.size == 0:
        mu = np.full(len(y), 0.5) if off is None else expit(off)
        return binomial_deviance(y, mu, w), n_ok, mu, None
    X = np.ascontiguousarray(m.X[:, cols])
    fit = irls_logit(X, y, w, tol=tol, max_iter=max(m.settings["max_iter"], 50), warn=False,
                     offset=off)
    return fit.deviance, n_ok - cols.size, fit.mu, fit


def _rao(m, X_big: np.ndarray, mu0: np.ndarray) -> float:
    """Rao's score statistic for the larger design at the smaller model's fit (R's 'Rao')."""
    w, y = _weights(m), m.y
    u = X_big.T @ (w * (y - mu0))
    info = gram(X_big, w * mu0 * (1 - mu0))
    sol = np.linalg.lstsq(info, u, rcond=None)[0]
    return float(u @ sol)


def _p_and_stat(test, dev, df, dispersion, df_resid_big, rao=None, estimated=True):
    """Statistic and p-value as R's ``stat.anova``: the Rao score is reported unscaled and
    tested after division by the dispersion; with a known dispersion (binomial) the F test
    has infinite denominator df, i.e. it is the chi-squared test."""
    if df <= 0:
        return np.nan, np.nan
    if test in ("Chisq", "LRT"):
        return np.nan, float(stats.chi2.sf(dev / dispersion, df))
    if test == "Rao":
        return rao, float(stats.chi2.sf(rao / dispersion, df))
    f = dev / df / dispersion
    if not estimated:
        return f, float(stats.chi2.sf(f * df, df))
    return f, float(stats.f.sf(f, df, df_resid_big))


def _same_rows(models) -> None:
    """One family, then the conditions of every nested test (:func:`check_comparable`)."""
    m0 = models[0]
    for i, m in enumerate(models[1:], start=2):
        if m.estimates_dispersion != m0.estimates_dispersion:
            raise ModelComparisonError(
                f"anova: model {i} is {m.family} and model 1 {m0.family}; compare fits of one "
                "family.")
    check_comparable(models, "anova", index=lambda m: m.index, response=lambda m: m.y,
                     weights=_weights, offset=lambda m: m.training.offset,
                     design=lambda m: m.X, size=lambda m: m.rank)


@public
def anova(*models, test: str | None = None, dispersion: float | None = None) -> AnovaTable:
    """Analysis of deviance, as R's ``anova.glm``.

    ``anova(m)``: the sequential table by terms (each term added in the order of the design,
    sub-models refitted on the stored design).  ``anova(m0, m1, ...)``: nested fits on the same
    rows, compared consecutively.

    Parameters
    ----------
    *models : MaxentResults
        ``maxent``/``umaxent`` results (unpenalised).  F-maximisers are refused: their
        weights depend on the fit, so their deviance is not a likelihood.  ``multinom``
        fits give R's ``anova.multinom`` table (:meth:`fmstats.MultinomResults.anova`).
    test : {"Chisq", "LRT", "F", "Rao"}, optional
        ``"Chisq"`` (alias ``"LRT"``), ``"F"`` or ``"Rao"``; default ``"Chisq"`` for
        binomial fits and ``"F"`` when the dispersion is estimated (quasi fits), as R does.
    dispersion : float, optional
        The dispersion used in the tests; default that of the largest model.

    Returns
    -------
    AnovaTable
        Columns ``resid_df``, ``resid_dev``, ``df``, ``deviance`` (and ``statistic``),
        ``p_value``.

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> m0 = fm.maxent("survived ~ C(pclass) + sex", t)
    >>> m1 = fm.maxent("survived ~ C(pclass) * sex + age", t)
    >>> tab = fm.anova(m0, m1)
    >>> list(tab.columns)
    ['resid_df', 'resid_dev', 'df', 'deviance', 'p_value']
    >>> print(tab.round(2).to_string())
       resid_df  resid_dev   df  deviance  p_value
    1    1042.0    1013.80  NaN       NaN      NaN
    2    1039.0     931.99  3.0     81.81      0.0
    """
    if not models:
        raise InvalidArgumentError("anova needs at least one fitted model.")
    if callable(getattr(models[0], "anova", None)):   # a family with its own tests (multinom)
        return models[0].anova(*models[1:])
    for i, m in enumerate(models):
        _check_model(m, i)
    test = _default_test(models[0]) if test is None else check_choice("test", test, TESTS)
    if dispersion is not None:
        check_scalar("dispersion", dispersion, low=0, low_open=True)
    warn_f_test("anova", test, family=max(models, key=lambda m: m.rank).family,
                fixed_dispersion=dispersion is not None, terms=False)
    if len(models) == 1:
        return _sequential(models[0], test, dispersion)
    _same_rows(models)
    biggest = max(models, key=lambda m: m.rank)
    disp = biggest.dispersion if dispersion is None else float(dispersion)
    rows = []
    for i, m in enumerate(models):
        row = {"resid_df": float(m.df_resid), "resid_dev": float(m.deviance), "df": np.nan,
               "deviance": np.nan, "statistic": np.nan, "p_value": np.nan}
        if i:
            prev = models[i - 1]
            df = float(prev.df_resid - m.df_resid)
            dev = float(prev.deviance - m.deviance)
            rao = None
            if test == "Rao":
                small, big = (prev, m) if prev.rank <= m.rank else (m, prev)
                rao = _rao(big, big.X, small.core_fit.mu)       # a quadratic form: >= 0
            stat, p = _p_and_stat(test, abs(dev), abs(df), disp, biggest.df_resid, rao,
                                  biggest.estimates_dispersion and dispersion is None)
            row.update(df=df, deviance=dev, statistic=stat, p_value=p)
        rows.append(row)
    heading = ["Analysis of Deviance Table", ""]
    heading += [f"Model {i + 1}: {m.formula}" for i, m in enumerate(models)]
    return _table(rows, [str(i + 1) for i in range(len(models))], test, heading, False)


def _table(rows, index, test, heading, sequential) -> AnovaTable:
    t = AnovaTable(pd.DataFrame(rows, index=pd.Index(index)))
    if test in ("Chisq", "LRT"):
        t = AnovaTable(t.drop(columns="statistic"))
    t.heading = heading
    t.attrs.update(statistic={"F": "F", "Rao": "Rao"}.get(test, ""),
                   p_label={"F": "Pr(>F)"}.get(test, "Pr(>Chi)"), sequential=sequential,
                   test=test)
    return t


def _sequential(m, test: str, dispersion) -> AnovaTable:
    slices = list(m.spec.term_slices())
    kept = np.flatnonzero(~m.aliased)                 # full-design index of each column of X
    pos = {j: i for i, j in enumerate(kept)}
    tol = min(m.settings["tol"], 1e-10)
    disp = m.dispersion if dispersion is None else float(dispersion)
    cols: list[int] = []
    if slices and slices[0][0] in ("Intercept", "1"):
        cols = [pos[j] for j in range(slices[0][1].start, slices[0][1].stop) if j in pos]
        slices = slices[1:]
    dev0, rdf0, mu0, _ = _fit_columns(m, np.array(cols, dtype=int), tol)
    rows = [{"df": np.nan, "deviance": np.nan, "resid_df": float(rdf0), "resid_dev": float(dev0),
             "statistic": np.nan, "p_value": np.nan}]
    index = ["NULL"]
    prev = (dev0, rdf0, mu0)
    for label, sl in slices:
        cols = cols + [pos[j] for j in range(sl.start, sl.stop) if j in pos]
        cols_now = np.array(cols, dtype=int)
        dev, rdf, mu, _ = _fit_columns(m, cols_now, tol)
        df = float(prev[1] - rdf)
        rao = _rao(m, m.X[:, cols_now], prev[2]) if test == "Rao" and df > 0 else None
        stat, p = _p_and_stat(test, prev[0] - dev, df, disp, m.df_resid, rao,
                              m.estimates_dispersion and dispersion is None)
        rows.append({"df": df, "deviance": float(prev[0] - dev), "resid_df": float(rdf),
                     "resid_dev": float(dev), "statistic": stat, "p_value": p})
        index.append(label)
        prev = (dev, rdf, mu)
    heading = ["Analysis of Deviance Table", "",
               f"Model: {m.family}, link: logit", "",
               f"Response: {m.response_name}", "",
               "Terms added sequentially (first to last)", "", ""]
    return _table(rows, index, test, heading, True)


# ----------------------------------------------------------------------------- profile CIs
def _offset_fit(X, y, w, offset, start, tol=1e-12, max_iter=100):
    """Logistic regression with an offset by Newton steps with step halving; returns
    (coef, deviance).  X may have zero columns."""
    b = start.copy()

    def dev_at(beta):
        return binomial_deviance(y, np.clip(expit(offset + X @ beta), 1e-300, 1 - 1e-16), w)

    dev = dev_at(b)
    if X.shape[1] == 0:
        return b, dev
    floor = 0.1 * deviance_scale(float(np.sum(w)), int(np.count_nonzero(w > 0)))
    for _ in range(max_iter):
        mu = expit(offset + X @ b)
        grad = X.T @ (w * (y - mu))
        H = gram(X, w * mu * (1 - mu))
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        t = 1.0
        for _ in range(40):
            cand = dev_at(b + t * step)
            if cand <= dev + 1e-12 * (abs(dev) + 1):
                break
            t /= 2
        b = b + t * step
        old, dev = dev, cand
        if abs(old - dev) <= tol * (abs(dev) + floor):
            break
    return b, dev


def profile_conf_int(results, level: float = 0.95, parm=None) -> pd.DataFrame:
    """Profile-likelihood confidence intervals (R's ``confint.glm`` / MASS ``profile.glm``).

    For each coefficient b_j the signed root z(b) = sign(b - b_hat) sqrt((D(b) - D_hat) / phi)
    of the deviance profile (the other coefficients refitted at every b; phi the dispersion,
    1 for binomial fits) is solved for z = -/+ q exactly (Brent's method to 1e-10), with q the
    normal quantile, as R does (R interpolates a spline through a grid of profile points).
    A bound that the profile never reaches is NaN.  Only unpenalised likelihood fits are
    profiled (:func:`require_likelihood`); a (quasi-)separated fit has no maximum to profile
    around, so its bounds are all NaN with a :class:`~fmstats.exceptions.SeparationWarning`.
    ``parm`` (coefficient names) profiles those only; the others are NaN.
    """
    check_level(level)
    require_likelihood(results, "conf_int(method='profile')")
    if results.X is None:
        results.require_design("profile-likelihood intervals")
    if results.separated:
        from .._utils.validation import warn
        from ..exceptions import SeparationWarning

        warn(f"conf_int(method='profile'): the fit is (quasi-)separated "
             f"({results.separation_text}), so there is no finite maximum to profile around: "
             "the intervals are NaN. Add a ridge `penalty=` and use Wald intervals, remove "
             "the separating terms, or bootstrap.", SeparationWarning)
        nan = pd.Series(np.nan, index=results.params.index)
        return pd.DataFrame({"conf_low": nan, "conf_high": nan})
    X, y, w = results.X, results.y, results.count_weights
    off = results.training.offset
    off = np.zeros(len(y)) if off is None else off
    coef = results.core_fit.coef
    dev_hat = float(binomial_deviance(y, np.clip(results.core_fit.mu, 1e-300, 1 - 1e-16), w))
    phi = results.dispersion
    q = float(stats.norm.ppf(0.5 + level / 2))
    cov = results.cov_params("nonrobust").to_numpy()
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    names = [t for t, a in zip(results.term_names, results.aliased) if not a]
    lo, hi = np.full(len(coef), np.nan), np.full(len(coef), np.nan)
    for j in range(len(coef)):
        if parm is not None and names[j] not in parm:
            continue
        others = np.delete(np.arange(len(coef)), j)
        Xo = np.ascontiguousarray(X[:, others])
        state = {"start": coef[others].copy()}

        def z(b, j=j, Xo=Xo, state=state):
            bo, dev = _offset_fit(Xo, y, w, X[:, j] * b + off, state["start"])
            state["start"] = bo
            return np.sign(b - coef[j]) * np.sqrt(max(dev - dev_hat, 0.0) / phi)

        step = se[j] if np.isfinite(se[j]) and se[j] > 0 else max(abs(coef[j]), 1.0)
        for sign, out in ((-1, lo), (1, hi)):
            state["start"] = coef[others].copy()
            target = sign * q
            a, fa = coef[j], -target
            b = coef[j] + sign * q * step
            fb = z(b) - target
            k = 0
            while np.sign(fb) == np.sign(fa) and k < 30:
                a, fa = b, fb
                b = coef[j] + sign * q * step * 2.0 ** (k + 1)
                fb = z(b) - target
                k += 1
            if np.sign(fb) == np.sign(fa):
                continue                                     # the profile never reaches q
            state["start"] = coef[others].copy()
            out[j] = optimize.brentq(lambda t: z(t) - target, min(a, b), max(a, b),
                                     xtol=1e-10, rtol=1e-12, maxiter=200)
    full_lo = pd.Series(lo, index=names).reindex(results.params.index)
    full_hi = pd.Series(hi, index=names).reindex(results.params.index)
    return pd.DataFrame({"conf_low": full_lo, "conf_high": full_hi})


@public
def confint(fit, parm=None, level: float = 0.95) -> pd.DataFrame:
    """Confidence intervals of the coefficients, as R's ``confint(fit)``.

    For a likelihood fit (unpenalised ``maxent``/``umaxent``) the profile-likelihood
    intervals, as MASS's ``confint.glm`` (R's own since 4.4):
    ``fit.conf_int(method="profile")``, the exact roots of the signed root deviance
    (:func:`profile_conf_int`); model-based, so a sandwich ``cov_type`` does not enter them.
    Where there is no likelihood to profile -- an ``fmaxent`` fit (its F-weights are chosen
    from the fit itself, so its weighted deviance is not a likelihood), a fit with a ridge
    ``penalty``, a ``multinom`` fit -- the model's own ``fit.conf_int()``: Wald intervals with
    its default covariance (for ``fmaxent`` the reweighted sandwich or the bootstrap of the
    whole fit, the intervals whose coverage the docs' *Inference for fmaxent* measures), as
    R's ``confint.default`` and nnet's ``confint.multinom`` do; ``attrs["method"]`` of the
    result says which.  For percentile or BCa intervals, :func:`fmstats.bootstrap`.

    Parameters
    ----------
    fit : ModelResults
        A fitted model with coefficients.
    parm : str or list of str, optional
        The coefficients (default all), by name as in ``fit.params``.
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        Columns ``conf_low`` and ``conf_high``, one row per coefficient (NaN for an aliased
        one); ``attrs["method"]`` is ``"profile"`` or ``"wald (<cov_type>)"``.

    Examples
    --------
    >>> import fmstats as fm
    >>> t = fm.datasets.titanic_complete()
    >>> fit = fm.maxent("survived ~ sex + age", t)
    >>> ci = fm.confint(fit)
    >>> ci.attrs["method"], list(ci.columns)
    ('profile', ['conf_low', 'conf_high'])
    >>> print(ci.round(4))
                 conf_low  conf_high
    term
    Intercept      0.8647     1.6182
    sex[T.male]   -2.7635    -2.1661
    age           -0.0145     0.0059
    """
    check_level(level)
    params = getattr(fit, "params", None)
    if not isinstance(params, pd.Series) or not callable(getattr(fit, "conf_int", None)):
        raise InvalidArgumentError(f"`fit` must be a fitted model with coefficients; got "
                                   f"{type(fit).__name__}.")
    names = list(params.index)
    if parm is not None:
        parm = [parm] if isinstance(parm, str) else parm
        unknown = [p for p in parm if not isinstance(p, str) or p not in names]
        if unknown or not len(parm):
            raise InvalidArgumentError(
                f"`parm` must name coefficients of the fit ({', '.join(names)}); got "
                f"{unknown[0] if unknown else parm!r}.")
    if likelihood_problem(fit) is None:
        out, method = profile_conf_int(fit, level, parm), "profile"
    else:
        out = fit.conf_int(level=level)
        method = f"wald ({getattr(fit, 'cov_type', None) or 'model-based'})"
    out = out if parm is None else out.loc[list(parm)]
    out.attrs["method"] = method
    return out
