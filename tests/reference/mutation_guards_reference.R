#!/usr/bin/env Rscript
## R reference values for tests/test_mutation_guards.py (issue 32, item 3): the null
## deviance of models WITHOUT an intercept, and Wald intervals (confint.default) at several
## levels.  Reads inputs_titanic.csv / inputs_synthetic.csv (written by glm_make_inputs.py)
## from the directory of this script and writes
##   mutation_guards_nulldev.csv   deviance, null.deviance, df.null, df.residual of
##                                 glm(... - 1) fits (binomial / quasibinomial)
##   mutation_guards_confint.csv   confint.default(fit, level = L) for weighted binomial fits
##   mutation_guards_meta.csv      R version, date, platform, control, input md5s
## All numbers are written with sprintf("%.17g"), missing values as NA.
##
## Usage:  Rscript tests/reference/mutation_guards_reference.R

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})

## As glm_reference.R: converge to machine precision, then refit from the converged
## coefficients so that se (hence confint.default) is evaluated at the converged solution.
tight <- glm.control(epsilon = 1e-14, maxit = 100)

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
synth <- read.csv(file.path(here, "inputs_synthetic.csv"), stringsAsFactors = FALSE)
stopifnot(nrow(titanic) == 1309L, nrow(synth) == 1000L)
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))
synth$g <- factor(synth$g, levels = c("a", "b", "c"))
datasets <- list(titanic = titanic, synth = synth)

## binomial's "non-integer #successes" warning is expected (non-integer weights, q);
## any other warning stops the script.
fit_glm <- function(formula, data, family, weights, start = NULL) {
  dat <- datasets[[data]]
  dat$.prior_w <- if (is.na(weights)) rep(1, nrow(dat)) else dat[[weights]]
  fam <- get(family, mode = "function")()
  withCallingHandlers(
    glm(formula, family = fam, data = dat, weights = .prior_w, control = tight, start = start),
    warning = function(w) {
      if (!grepl("non-integer", conditionMessage(w))) stop(deparse(formula), ": ", conditionMessage(w))
      invokeRestart("muffleWarning")
    })
}
polished_fit <- function(formula, data, family, weights) {
  fit0 <- fit_glm(formula, data, family, weights)
  stopifnot(fit0$converged)
  fit <- fit_glm(formula, data, family, weights, start = coef(fit0))
  stopifnot(fit$converged)
  fit
}

num <- function(x) ifelse(is.na(x), NA_character_, sprintf("%.17g", as.numeric(x)))
write_ref <- function(df, file) {
  is_num <- vapply(df, is.numeric, logical(1))
  df[is_num] <- lapply(df[is_num], num)
  write.csv(df, file.path(here, file), row.names = FALSE, na = "NA",
            quote = which(!is_num), fileEncoding = "UTF-8")
}

## ---------------------------------------------------------------------------
## Null deviance without an intercept.  glm.fit: wtdmu <- if (intercept)
## sum(weights * y) / sum(weights) else linkinv(offset), i.e. mu = 1/2 here (no
## offset), and df.null = n.ok - as.integer(intercept), n.ok = rows with weight > 0.
## `intercept` is attr(terms, "intercept"): FALSE for `~ x1 + g - 1` although the
## full set of g dummies spans the constant.
nulldev_models <- list(
  list(name = "nointc_y",          formula = y ~ x1 - 1,              data = "synth",   family = "binomial",      weights = NA),
  list(name = "nointc_y_w",        formula = y ~ x1 + x2 - 1,         data = "synth",   family = "binomial",      weights = "w"),
  list(name = "nointc_y_w0",       formula = y ~ x1 + x2 - 1,         data = "synth",   family = "binomial",      weights = "w0"),
  list(name = "nointc_factor_w",   formula = y ~ x1 + g - 1,          data = "synth",   family = "binomial",      weights = "w"),
  list(name = "nointc_cbind",      formula = cbind(yes, no) ~ x1 - 1, data = "synth",   family = "binomial",      weights = NA),
  list(name = "nointc_quasi_q_w",  formula = q ~ x1 + x2 - 1,         data = "synth",   family = "quasibinomial", weights = "w"),
  list(name = "nointc_titanic_w",  formula = survived ~ age + sibsp - 1, data = "titanic", family = "binomial",  weights = "w"),
  ## the same with an intercept: the weighted mean (a control for the test)
  list(name = "intc_y_w",          formula = y ~ x1 + x2,             data = "synth",   family = "binomial",      weights = "w")
)
nd_rows <- lapply(nulldev_models, function(m) {
  fit <- polished_fit(m$formula, m$data, m$family, m$weights)
  data.frame(model = m$name, formula = paste(deparse(m$formula), collapse = ""), data = m$data,
             family = m$family, weights = if (is.na(m$weights)) "none" else m$weights,
             intercept = attr(terms(fit), "intercept"),
             deviance = deviance(fit), null_deviance = fit$null.deviance,
             df_null = fit$df.null, df_residual = fit$df.residual, nobs = nrow(model.frame(fit)),
             stringsAsFactors = FALSE)
})
write_ref(do.call(rbind, nd_rows), "mutation_guards_nulldev.csv")

## ---------------------------------------------------------------------------
## Wald intervals: confint.default(fit, level) = coef -/+ qnorm((1 + level)/2) * se,
## se = sqrt(diag(vcov(fit))).  Weighted binomial fits (dispersion 1).
ci_models <- list(
  list(name = "synth_binom_w",   formula = y ~ x1 + x2 + g, data = "synth", family = "binomial", weights = "w"),
  list(name = "titanic_binom_w", formula = survived ~ factor(pclass) * sex + age + sibsp,
       data = "titanic", family = "binomial", weights = "w")
)
levels <- c(0.5, 0.8, 0.95, 0.99)
ci_rows <- list()
for (m in ci_models) {
  fit <- polished_fit(m$formula, m$data, m$family, m$weights)
  se <- sqrt(diag(vcov(fit)))
  for (L in levels) {
    ci <- confint.default(fit, level = L)
    ci_rows[[length(ci_rows) + 1L]] <- data.frame(
      model = m$name, level = L, term = rownames(ci), estimate = unname(coef(fit)),
      se = unname(se), lower = unname(ci[, 1]), upper = unname(ci[, 2]),
      stringsAsFactors = FALSE)
  }
}
write_ref(do.call(rbind, ci_rows), "mutation_guards_confint.csv")

si <- sessionInfo()
md5 <- tools::md5sum(file.path(here, c("inputs_titanic.csv", "inputs_synthetic.csv")))
meta <- data.frame(
  key = c("r_version", "date", "platform", "blas", "lapack", "tight_epsilon", "tight_maxit",
          "md5_inputs_titanic", "md5_inputs_synthetic"),
  value = c(R.version.string, format(Sys.Date()), R.version$platform,
            if (is.null(si$BLAS)) "" else si$BLAS, if (is.null(si$LAPACK)) "" else si$LAPACK,
            sprintf("%.17g", tight$epsilon), tight$maxit, unname(md5[1]), unname(md5[2])),
  stringsAsFactors = FALSE)
write.csv(meta, file.path(here, "mutation_guards_meta.csv"), row.names = FALSE, fileEncoding = "UTF-8")
message("wrote mutation_guards_nulldev.csv mutation_guards_confint.csv mutation_guards_meta.csv to ", here)
