#!/usr/bin/env Rscript
## Reference values from R's glm() (and sandwich::vcovHC) for fmstats' logistic
## IRLS fits.  Reads inputs_titanic.csv / inputs_synthetic.csv (written by
## glm_make_inputs.py) from the directory of this script and writes
##   glm_meta.csv    R / sandwich versions, date, control settings, input md5s
##   glm_stats.csv   one row per model: deviance, AIC, logLik, dispersion, ...
##   glm_coef.csv    one row per coefficient: estimate, se, z/t, p, HC0..HC3 se
##   glm_vcov.csv    long format covariance matrices (model-based, HC0..HC3)
##   glm_fitted.csv  one row per used input row: fitted, eta, hat, residuals
## All numbers are written with sprintf("%.17g"), missing values as NA.
##
## Usage:  Rscript tests/reference/glm_reference.R

suppressPackageStartupMessages(library(sandwich))

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})

## Converge to machine precision: glm stops when
## |dev - dev_old| / (|dev| + 0.1) < epsilon.
tight <- glm.control(epsilon = 1e-14, maxit = 100)
default_ctrl <- glm.control()  # epsilon = 1e-8, maxit = 25

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
synth <- read.csv(file.path(here, "inputs_synthetic.csv"), stringsAsFactors = FALSE)
stopifnot(nrow(titanic) == 1309L, nrow(synth) == 1000L)
## Explicit factor levels (same as R's default alphabetical ones).
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))
synth$g <- factor(synth$g, levels = c("a", "b", "c"))
## rownames are 1..n, i.e. the 1-based row index in the input CSV
stopifnot(identical(rownames(titanic), as.character(seq_len(nrow(titanic)))))
synth_pos <- synth[synth$w0 > 0, ]  # keeps the original row names

f_titanic_y <- survived ~ factor(pclass) * sex + age + sibsp
f_titanic_q <- q ~ factor(pclass) * sex + age + sibsp
f_synth_y <- y ~ x1 + x2 + g
f_synth_q <- q ~ x1 + x2 + g
f_synth_cb <- cbind(yes, no) ~ x1 + x2 + g

models <- list(
  list(name = "titanic_binom",     formula = f_titanic_y, data = "titanic",   family = "binomial",      weights = NA),
  list(name = "titanic_binom_w",   formula = f_titanic_y, data = "titanic",   family = "binomial",      weights = "w"),
  list(name = "titanic_quasi_q",   formula = f_titanic_q, data = "titanic",   family = "quasibinomial", weights = NA),
  list(name = "synth_binom_w",     formula = f_synth_y,   data = "synth",     family = "binomial",      weights = "w"),
  list(name = "synth_quasi_q",     formula = f_synth_q,   data = "synth",     family = "quasibinomial", weights = NA),
  list(name = "synth_quasi_q_w",   formula = f_synth_q,   data = "synth",     family = "quasibinomial", weights = "w"),
  list(name = "synth_cbind",       formula = f_synth_cb,  data = "synth",     family = "binomial",      weights = NA),
  list(name = "synth_binom_q",     formula = f_synth_q,   data = "synth",     family = "binomial",      weights = NA),
  ## extras: zero prior weights (w0 = w with ~5% zeros), and the same model
  ## fitted on the rows with w0 > 0 only (identical coefficients).
  list(name = "synth_binom_w0",    formula = f_synth_y,   data = "synth",     family = "binomial",      weights = "w0"),
  list(name = "synth_binom_w0_pos", formula = f_synth_y,  data = "synth_pos", family = "binomial",      weights = "w0")
)

datasets <- list(titanic = titanic, synth = synth, synth_pos = synth_pos)

## Fit, muffling only binomial's "non-integer #successes" warning (expected
## for non-integer prior weights or probabilistic responses); every other
## warning is kept and reported.
fit_glm <- function(spec, control, start = NULL) {
  dat <- datasets[[spec$data]]
  fam <- get(spec$family, mode = "function")()
  dat$.prior_w <- if (is.na(spec$weights)) rep(1, nrow(dat)) else dat[[spec$weights]]
  other <- character()
  fit <- withCallingHandlers(
    glm(spec$formula, family = fam, data = dat, weights = .prior_w, control = control,
        start = start),
    warning = function(w) {
      msg <- conditionMessage(w)
      if (!grepl("non-integer", msg)) other <<- c(other, msg)
      invokeRestart("muffleWarning")
    })
  attr(fit, "other_warnings") <- other
  fit
}

num <- function(x) ifelse(is.na(x), NA_character_, sprintf("%.17g", as.numeric(x)))

write_ref <- function(df, file) {
  is_num <- vapply(df, is.numeric, logical(1))
  df[is_num] <- lapply(df[is_num], num)
  ## quote only the genuinely textual columns (formulas contain commas)
  write.csv(df, file.path(here, file), row.names = FALSE, na = "NA",
            quote = which(!is_num), fileEncoding = "UTF-8")
}

hc_types <- c("HC0", "HC1", "HC2", "HC3")

coef_rows <- list(); stats_rows <- list(); fitted_rows <- list(); vcov_rows <- list()

for (spec in models) {
  ## glm.fit stores the working weights / QR (hence cov.unscaled, se, hat
  ## values, vcovHC) of its *last* WLS solve, i.e. evaluated at the previous
  ## iterate, while coefficients, fitted values and deviance come from the
  ## final iterate.  The deviance criterion only makes the previous iterate
  ## accurate to about sqrt(epsilon), so those quantities could be off by
  ## ~1e-7 relative.  Restarting from the converged coefficients makes R do
  ## one more solve whose weights are evaluated at the converged solution, so
  ## every reported number is evaluated at (machine-precision) convergence.
  fit0 <- fit_glm(spec, tight)
  if (!fit0$converged) stop(spec$name, ": tight fit did not converge")
  fit <- fit_glm(spec, tight, start = coef(fit0))
  if (!fit$converged) stop(spec$name, ": polishing fit did not converge")
  fit_def <- fit_glm(spec, default_ctrl)
  s_def <- summary(fit_def)
  s <- summary(fit)
  cf <- s$coefficients
  terms <- rownames(cf)
  n_used <- NROW(model.matrix(fit))
  k <- ncol(cf)
  hat <- hatvalues(fit)  # NB: lm.influence drops zero-weight rows
  hat_ok <- length(hat) == n_used

  vc <- vcov(fit)
  hc <- list(); hc_warn <- character()
  for (ty in hc_types) {
    if (ty %in% c("HC2", "HC3") && !hat_ok) {
      ## sandwich recycles the shorter hatvalues() vector here: meaningless
      hc[[ty]] <- matrix(NA_real_, length(terms), length(terms), dimnames = list(terms, terms))
      next
    }
    hc[[ty]] <- withCallingHandlers(vcovHC(fit, type = ty), warning = function(w) {
      hc_warn <<- c(hc_warn, paste0(ty, ": ", conditionMessage(w)))
      invokeRestart("muffleWarning")
    })
  }
  warn <- unique(c(attr(fit, "other_warnings"), hc_warn))
  if (length(warn)) message(spec$name, " warnings: ", paste(warn, collapse = " | "))

  coef_rows[[spec$name]] <- data.frame(
    model = spec$name, term = terms,
    estimate = cf[, 1], se = cf[, 2], z_or_t = cf[, 3], p_value = cf[, 4],
    se_HC0 = sqrt(diag(hc$HC0))[terms], se_HC1 = sqrt(diag(hc$HC1))[terms],
    se_HC2 = sqrt(diag(hc$HC2))[terms], se_HC3 = sqrt(diag(hc$HC3))[terms],
    ## plain glm() with default control (epsilon 1e-8), for loose comparisons
    estimate_default = s_def$coefficients[terms, 1],
    se_default = s_def$coefficients[terms, 2],
    stringsAsFactors = FALSE, row.names = NULL)

  is_quasi <- grepl("^quasi", fit$family$family)
  ll <- if (is_quasi) NA_real_ else as.numeric(logLik(fit))
  pearson <- sum(residuals(fit, type = "pearson")^2)
  stats_rows[[spec$name]] <- data.frame(
    model = spec$name,
    family = fit$family$family, link = fit$family$link,
    formula = paste(deparse(spec$formula), collapse = " "),
    data = spec$data,
    weights = if (is.na(spec$weights)) "none" else spec$weights,
    deviance = fit$deviance, null_deviance = fit$null.deviance,
    df_residual = fit$df.residual, df_null = fit$df.null,
    aic = if (is_quasi) NA_real_ else fit$aic,
    loglik = ll,
    dispersion = s$dispersion,
    pearson_chi2 = pearson,
    rank = fit$rank,
    iter = fit_def$iter, converged_default = fit_def$converged,
    iter_tight = fit0$iter,
    coef_change_polish = max(abs(coef(fit) - coef(fit0)) / pmax(abs(coef(fit)), 1e-300)),
    nobs = n_used,                       # rows in the model frame (after na.omit)
    nobs_nonzero_weight = nobs(fit),     # stats::nobs.glm: sum(prior weights != 0)
    n_input_rows = nrow(datasets[[spec$data]]),
    test = if (s$df.residual > 0 && is_quasi) "t" else "z",
    warnings = if (length(warn)) paste(warn, collapse = " | ") else "none",
    stringsAsFactors = FALSE, row.names = NULL)

  rows <- as.integer(names(fitted(fit)))
  h <- rep(NA_real_, n_used); names(h) <- names(fitted(fit))
  h[names(hat)] <- hat
  fitted_rows[[spec$name]] <- data.frame(
    model = spec$name, row = rows,
    fitted = unname(fitted(fit)),
    linear_predictor = unname(fit$linear.predictors),
    hat = unname(h),
    y = unname(fit$y),                   # response as glm sees it (cbind: yes/(yes+no))
    prior_weight = unname(fit$prior.weights),
    working_weight = unname(fit$weights),
    resid_working = unname(residuals(fit, type = "working")),
    resid_response = unname(residuals(fit, type = "response")),
    resid_pearson = unname(residuals(fit, type = "pearson")),
    resid_deviance = unname(residuals(fit, type = "deviance")),
    stringsAsFactors = FALSE, row.names = NULL)

  cu <- s$cov.unscaled
  grid <- expand.grid(col_term = terms, row_term = terms, stringsAsFactors = FALSE)[, 2:1]
  idx <- cbind(match(grid$row_term, terms), match(grid$col_term, terms))
  vcov_rows[[spec$name]] <- data.frame(
    model = spec$name, row_term = grid$row_term, col_term = grid$col_term,
    vcov = vc[terms, terms][idx], cov_unscaled = cu[terms, terms][idx],
    vcov_HC0 = hc$HC0[terms, terms][idx], vcov_HC1 = hc$HC1[terms, terms][idx],
    vcov_HC2 = hc$HC2[terms, terms][idx], vcov_HC3 = hc$HC3[terms, terms][idx],
    stringsAsFactors = FALSE, row.names = NULL)
}

bind <- function(x) do.call(rbind, unname(x))
write_ref(bind(coef_rows), "glm_coef.csv")
write_ref(bind(stats_rows), "glm_stats.csv")
write_ref(bind(fitted_rows), "glm_fitted.csv")
write_ref(bind(vcov_rows), "glm_vcov.csv")

si <- sessionInfo()
md5 <- tools::md5sum(file.path(here, c("inputs_titanic.csv", "inputs_synthetic.csv")))
meta <- data.frame(
  key = c("r_version", "sandwich_version", "date", "platform", "blas", "lapack",
          "tight_epsilon", "tight_maxit", "default_epsilon", "default_maxit",
          "md5_inputs_titanic", "md5_inputs_synthetic"),
  value = c(R.version.string, as.character(packageVersion("sandwich")),
            format(Sys.Date()), R.version$platform,
            if (is.null(si$BLAS)) "" else si$BLAS,
            if (is.null(si$LAPACK)) "" else si$LAPACK,
            sprintf("%.17g", tight$epsilon), tight$maxit,
            sprintf("%.17g", default_ctrl$epsilon), default_ctrl$maxit,
            unname(md5[1]), unname(md5[2])),
  stringsAsFactors = FALSE)
write.csv(meta, file.path(here, "glm_meta.csv"), row.names = FALSE, fileEncoding = "UTF-8")
message("wrote glm_meta.csv glm_stats.csv glm_coef.csv glm_vcov.csv glm_fitted.csv to ", here)
