#!/usr/bin/env Rscript
## Issue 17 reference values from R: predict(se.fit = TRUE), analysis of
## deviance (sequential and nested), profile-likelihood and Wald confidence
## intervals, and influence measures for the logistic fits of glm_reference.R.
## Reads inputs_titanic.csv / inputs_synthetic.csv (written by
## glm_make_inputs.py) from the directory of this script and writes
##   glm17_predict.csv    predict.glm(newdata, type = "link"/"response", se.fit = TRUE)
##   glm17_anova.csv      anova.glm: sequential tables and nested model comparisons
##   glm17_confint.csv    MASS profile CIs, exact profile roots, Wald CIs
##   glm17_influence.csv  hat values, standardized/studentized residuals, Cook's distance, ...
##   glm17_meta.csv       R / MASS versions, date, control settings, input md5s, checks
## All numbers are written with sprintf("%.17g"), missing values as NA.
##
## Usage:  Rscript tests/reference/glm17_reference.R

suppressPackageStartupMessages(library(MASS))

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})

## Converge to machine precision (as glm_reference.R):
## glm stops when |dev - dev_old| / (|dev| + 0.1) < epsilon.
tight <- glm.control(epsilon = 1e-14, maxit = 100)

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
synth <- read.csv(file.path(here, "inputs_synthetic.csv"), stringsAsFactors = FALSE)
stopifnot(nrow(titanic) == 1309L, nrow(synth) == 1000L)
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))
synth$g <- factor(synth$g, levels = c("a", "b", "c"))
## rownames are 1..n, i.e. the 1-based row index in the input CSV
stopifnot(identical(rownames(titanic), as.character(seq_len(nrow(titanic)))))
stopifnot(identical(rownames(synth), as.character(seq_len(nrow(synth)))))
## Titanic rows with age present (keeps the original row names).  Needed for
## the nested comparisons: R's default na.action = na.omit would fit
## survived ~ factor(pclass) + sex on all 1309 rows.
titanic_cc <- titanic[!is.na(titanic$age), ]
stopifnot(nrow(titanic_cc) == 1046L,
          !anyNA(titanic_cc[c("survived", "pclass", "sex", "age", "sibsp", "q", "w")]))

f_titanic_y <- survived ~ factor(pclass) * sex + age + sibsp
f_titanic_q <- q ~ factor(pclass) * sex + age + sibsp
f_synth_y <- y ~ x1 + x2 + g
f_synth_q <- q ~ x1 + x2 + g
f_synth_cb <- cbind(yes, no) ~ x1 + x2 + g

## Same specifications as in glm_reference.R.
models <- list(
  list(name = "titanic_binom",   formula = f_titanic_y, data = "titanic", family = "binomial",      weights = NA),
  list(name = "titanic_binom_w", formula = f_titanic_y, data = "titanic", family = "binomial",      weights = "w"),
  list(name = "titanic_quasi_q", formula = f_titanic_q, data = "titanic", family = "quasibinomial", weights = NA),
  list(name = "synth_binom_w",   formula = f_synth_y,   data = "synth",   family = "binomial",      weights = "w"),
  list(name = "synth_quasi_q",   formula = f_synth_q,   data = "synth",   family = "quasibinomial", weights = NA),
  list(name = "synth_cbind",     formula = f_synth_cb,  data = "synth",   family = "binomial",      weights = NA)
)

## Nested comparisons: anova(m0, m1) and anova(m0, mmid, m1), all fitted on the same rows.
nested <- list(
  list(name = "titanic_binom",   data = "titanic_cc", family = "binomial", weights = NA,
       formulas = list(survived ~ factor(pclass) + sex, survived ~ factor(pclass) * sex, f_titanic_y)),
  list(name = "titanic_quasi_q", data = "titanic_cc", family = "quasibinomial", weights = NA,
       formulas = list(q ~ factor(pclass) + sex, q ~ factor(pclass) * sex, f_titanic_q)),
  list(name = "synth_binom_w",   data = "synth", family = "binomial", weights = "w",
       formulas = list(y ~ x1, y ~ x1 + x2, f_synth_y)),
  list(name = "synth_quasi_q",   data = "synth", family = "quasibinomial", weights = NA,
       formulas = list(q ~ x1, q ~ x1 + x2, f_synth_q))
)

datasets <- list(titanic = titanic, titanic_cc = titanic_cc, synth = synth)

## Evaluate expr, muffling binomial's "non-integer #successes" warning
## (expected for non-integer prior weights); every other warning is kept and
## returned in attr(, "warnings").
with_warnings <- function(expr) {
  other <- character()
  val <- withCallingHandlers(expr, warning = function(w) {
    msg <- conditionMessage(w)
    if (!grepl("non-integer", msg)) other <<- c(other, msg)
    invokeRestart("muffleWarning")
  })
  list(value = val, warnings = unique(other))
}
warn_str <- function(w) if (length(w)) paste(w, collapse = " | ") else "none"

fit_glm <- function(formula, data, family, weights, control, start = NULL) {
  dat <- datasets[[data]]
  fam <- get(family, mode = "function")()
  dat$.prior_w <- if (is.na(weights)) rep(1, nrow(dat)) else dat[[weights]]
  r <- with_warnings(glm(formula, family = fam, data = dat, weights = .prior_w,
                         control = control, start = start))
  if (length(r$warnings)) stop(deparse(formula), ": ", warn_str(r$warnings))
  r$value
}

## As in glm_reference.R: refit from the converged coefficients so that the
## working weights and QR stored in the fit (hence se, hat values, ...) are
## evaluated at the converged solution.  The `start` component of the
## polished fit is then removed, because anova.glm passes object$start to the
## fits of its sub-models (which have fewer columns); without it they start
## from R's default mustart exactly as for a plain glm() call.
polished_fit <- function(formula, data, family, weights) {
  fit0 <- fit_glm(formula, data, family, weights, tight)
  if (!fit0$converged) stop(deparse(formula), ": tight fit did not converge")
  fit <- fit_glm(formula, data, family, weights, tight, start = coef(fit0))
  if (!fit$converged) stop(deparse(formula), ": polishing fit did not converge")
  fit$start <- NULL
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
## Exact profile-likelihood roots (MASS interpolates a spline through a
## coarse profile; this solves the signed root deviance equation directly).
## z(b) = sign(b - bhat) * sqrt((D(b) - D(bhat)) / dispersion), where D(b) is
## the deviance maximised over the other coefficients with coefficient i
## fixed at b (an offset), and dispersion = summary(fit)$dispersion (1 for
## binomial).  Roots of z(b) = qnorm((1 -+ level) / 2), as MASS's cutoff.
profile_dev <- function(fit, i, b) {
  X <- model.matrix(fit)
  r <- with_warnings(glm.fit(X[, -i, drop = FALSE], fit$y, weights = fit$prior.weights,
                             offset = X[, i] * b, family = family(fit), control = tight))
  if (!r$value$converged) stop("profile fit did not converge")
  r$value$deviance
}
exact_profile_ci <- function(fit, level) {
  s <- summary(fit)
  b0 <- coef(fit); se <- s$coefficients[, 2]; disp <- s$dispersion; d0 <- deviance(fit)
  cut <- qnorm((1 + level) / 2)
  out <- matrix(NA_real_, length(b0), 2, dimnames = list(names(b0), c("lower", "upper")))
  for (i in seq_along(b0)) {
    for (sgn in c(-1, 1)) {
      zfun <- function(b) {
        zz <- (profile_dev(fit, i, b) - d0) / disp
        sign(b - b0[i]) * sqrt(max(zz, 0)) - sgn * cut
      }
      k <- 1
      while (sgn * zfun(b0[i] + sgn * k * se[i]) < 0) {
        k <- 2 * k
        if (k > 1024) stop("cannot bracket profile root")
      }
      ends <- sort(c(b0[i], b0[i] + sgn * k * se[i]))
      root <- uniroot(zfun, ends, tol = 1e-13 * max(1, abs(b0[i])), maxiter = 200)$root
      out[i, if (sgn < 0) 1 else 2] <- root
    }
  }
  out
}

## Rao score statistic of adding columns `big` to the sub-model with columns
## `small`, using working residuals and weights of the *converged* sub-model
## (anova.glm uses those of its tight but unpolished sub-fits).
rao_converged <- function(fit, small, big) {
  X <- model.matrix(fit)
  fam <- family(fit)
  f0 <- with_warnings(glm.fit(X[, small, drop = FALSE], fit$y, weights = fit$prior.weights,
                              family = fam, control = tight))$value
  f1 <- with_warnings(glm.fit(X[, small, drop = FALSE], fit$y, weights = fit$prior.weights,
                              family = fam, control = tight, start = coef(f0)))$value
  zz <- glm.fit(X[, big, drop = FALSE], f1$residuals, weights = f1$weights,
                intercept = attr(terms(fit), "intercept"))
  zz$null.deviance - zz$deviance
}

pred_rows <- list(); anova_rows <- list(); ci_rows <- list(); infl_rows <- list()
rao_check <- numeric(); ci_check <- numeric(); ci_check_se <- numeric()
all_warnings <- character()

for (spec in models) {
  fit <- polished_fit(spec$formula, spec$data, spec$family, spec$weights)
  s <- summary(fit)
  dat <- datasets[[spec$data]]

  ## --- 1. predict with standard errors on the model's own complete rows ----
  used <- rownames(model.frame(fit))          # rows left by na.omit
  newdata <- dat[used, ]
  pl <- predict(fit, newdata, type = "link", se.fit = TRUE)
  pr <- predict(fit, newdata, type = "response", se.fit = TRUE)
  stopifnot(isTRUE(all.equal(unname(pl$fit), unname(fit$linear.predictors), tolerance = 1e-12)),
            isTRUE(all.equal(pl$residual.scale, sqrt(s$dispersion))))
  pred_rows[[spec$name]] <- data.frame(
    model = spec$name, row = as.integer(used),
    fit_link = unname(pl$fit), se_link = unname(pl$se.fit),
    fit_response = unname(pr$fit), se_response = unname(pr$se.fit),
    residual_scale = pl$residual.scale,
    stringsAsFactors = FALSE, row.names = NULL)

  ## --- 2. sequential analysis of deviance -----------------------------------
  asg <- attr(model.matrix(fit), "assign")
  rao_conv <- c(NA, vapply(seq_len(max(asg)), function(j) rao_converged(fit, asg < j, asg <= j), 0))
  for (test in c("Chisq", "F", "Rao")) {
    a <- with_warnings(anova(fit, test = test))
    tab <- a$value
    all_warnings <- c(all_warnings, if (length(a$warnings)) paste0(spec$name, " anova ", test, ": ", a$warnings))
    anova_rows[[paste(spec$name, test)]] <- data.frame(
      model = spec$name, kind = "sequential", model_index = NA_integer_, test = test,
      term = rownames(tab), df = tab[["Df"]], deviance = tab[["Deviance"]],
      resid_df = tab[["Resid. Df"]], resid_dev = tab[["Resid. Dev"]],
      statistic = switch(test, Chisq = rep(NA_real_, nrow(tab)), F = tab[["F"]], Rao = tab[["Rao"]]),
      p_value = if (test == "F") tab[["Pr(>F)"]] else tab[["Pr(>Chi)"]],
      statistic_converged = if (test == "Rao") rao_conv else NA_real_,
      dispersion = s$dispersion,
      warning = warn_str(a$warnings),
      stringsAsFactors = FALSE, row.names = NULL)
    if (test == "Rao")
      rao_check[spec$name] <- max(abs(rao_conv - tab[["Rao"]]) / abs(rao_conv), na.rm = TRUE)
  }

  ## --- 3. confidence intervals -------------------------------------------
  for (level in c(0.95, 0.90)) {
    r <- with_warnings(suppressMessages(confint(fit, level = level)))
    all_warnings <- c(all_warnings, if (length(r$warnings)) paste0(spec$name, " confint: ", r$warnings))
    ci <- r$value
    wald <- confint.default(fit, level = level)
    ex <- exact_profile_ci(fit, level)
    terms <- rownames(ci)
    se <- s$coefficients[terms, 2]
    ci_rows[[paste(spec$name, level)]] <- data.frame(
      model = spec$name, level = level, term = terms,
      lower = ci[, 1], upper = ci[, 2],
      wald_lower = wald[terms, 1], wald_upper = wald[terms, 2],
      exact_lower = ex[terms, 1], exact_upper = ex[terms, 2],
      stringsAsFactors = FALSE, row.names = NULL)
    d <- abs(cbind(ci[, 1] - ex[terms, 1], ci[, 2] - ex[terms, 2]))
    ci_check[paste(spec$name, level)] <- max(d)
    ci_check_se[paste(spec$name, level)] <- max(d / se)
  }

  ## --- 4. influence measures ---------------------------------------------
  infl <- influence(fit, do.coef = FALSE)
  hat <- hatvalues(fit)
  im <- influence.measures(fit)$infmat
  cd <- cooks.distance(fit)
  stopifnot(length(hat) == length(used), identical(names(hat), used),
            isTRUE(all.equal(unname(im[, "hat"]), unname(hat), tolerance = 1e-14)),
            isTRUE(all.equal(unname(im[, "cook.d"]), unname(cd), tolerance = 1e-12)))
  infl_rows[[spec$name]] <- data.frame(
    model = spec$name, row = as.integer(used),
    hat = unname(hat),
    rstandard_deviance = unname(rstandard(fit, type = "deviance")),
    rstandard_pearson = unname(rstandard(fit, type = "pearson")),
    rstudent = unname(rstudent(fit)),
    cooks_distance = unname(cd),
    dffit = unname(im[, "dffit"]), cov_r = unname(im[, "cov.r"]),
    sigma_loo = unname(infl$sigma),
    stringsAsFactors = FALSE, row.names = NULL)
  message(spec$name, ": done")
}

## --- 2b. nested model comparisons ------------------------------------------
for (nst in nested) {
  fits <- lapply(nst$formulas, polished_fit, data = nst$data, family = nst$family,
                 weights = nst$weights)
  forms <- vapply(nst$formulas, function(f) paste(deparse(f), collapse = " "), "")
  for (set in list(c(1L, 3L), c(1L, 2L, 3L))) {
    mname <- paste0(nst$name, if (length(set) == 2L) "_nested" else "_nested3")
    for (test in c("Chisq", "F", "Rao")) {
      a <- with_warnings(do.call(anova, c(unname(fits[set]), list(test = test))))
      tab <- a$value
      all_warnings <- c(all_warnings, if (length(a$warnings)) paste0(mname, " anova ", test, ": ", a$warnings))
      anova_rows[[paste(mname, test)]] <- data.frame(
        model = mname, kind = "nested", model_index = seq_along(set), test = test,
        term = forms[set], df = tab[["Df"]], deviance = tab[["Deviance"]],
        resid_df = tab[["Resid. Df"]], resid_dev = tab[["Resid. Dev"]],
        statistic = switch(test, Chisq = rep(NA_real_, nrow(tab)), F = tab[["F"]], Rao = tab[["Rao"]]),
        p_value = if (test == "F") tab[["Pr(>F)"]] else tab[["Pr(>Chi)"]],
        ## the fits are polished, so anova.glmlist's Rao already uses converged weights
        statistic_converged = if (test == "Rao") tab[["Rao"]] else NA_real_,
        dispersion = summary(fits[[3]])$dispersion,
        warning = warn_str(a$warnings),
        stringsAsFactors = FALSE, row.names = NULL)
    }
  }
}

## What R does when m0 is fitted with the default na.action on all rows.
m0_all <- glm(survived ~ factor(pclass) + sex, binomial, titanic, control = tight)
m1_cc <- glm(f_titanic_y, binomial, titanic, control = tight)
na_msg <- tryCatch({anova(m0_all, m1_cc, test = "Chisq"); "no error"},
                   error = function(e) conditionMessage(e))
message("anova(m0 on ", nobs(m0_all), " rows, m1 on ", nobs(m1_cc), " rows): ", na_msg)

bind <- function(x) do.call(rbind, unname(x))
write_ref(bind(pred_rows), "glm17_predict.csv")
write_ref(bind(anova_rows), "glm17_anova.csv")
write_ref(bind(ci_rows), "glm17_confint.csv")
write_ref(bind(infl_rows), "glm17_influence.csv")

all_warnings <- unique(all_warnings)
for (w in all_warnings) message("warning: ", w)
message("Rao (anova.glm) vs converged sub-fits, max rel diff: ", format(max(rao_check), digits = 3))
message("MASS confint vs exact profile root, max abs diff: ", format(max(ci_check), digits = 3),
        " (", format(max(ci_check_se), digits = 3), " SE)")

confint_env <- environmentName(environment(getS3method("confint", "glm")))
si <- sessionInfo()
md5 <- tools::md5sum(file.path(here, c("inputs_titanic.csv", "inputs_synthetic.csv")))
meta <- data.frame(
  key = c("r_version", "mass_version", "confint_glm_namespace", "date", "platform", "blas", "lapack",
          "tight_epsilon", "tight_maxit",
          "md5_inputs_titanic", "md5_inputs_synthetic",
          "rao_sequential_max_rel_diff_vs_converged_subfits",
          "confint_mass_max_abs_diff_vs_exact", "confint_mass_max_diff_vs_exact_in_se",
          "anova_different_rows_error", "warnings"),
  value = c(R.version.string, as.character(packageVersion("MASS")), confint_env,
            format(Sys.Date()), R.version$platform,
            if (is.null(si$BLAS)) "" else si$BLAS,
            if (is.null(si$LAPACK)) "" else si$LAPACK,
            sprintf("%.17g", tight$epsilon), tight$maxit,
            unname(md5[1]), unname(md5[2]),
            sprintf("%.3g", max(rao_check)),
            sprintf("%.3g", max(ci_check)), sprintf("%.3g", max(ci_check_se)),
            na_msg, warn_str(all_warnings)),
  stringsAsFactors = FALSE)
write.csv(meta, file.path(here, "glm17_meta.csv"), row.names = FALSE, fileEncoding = "UTF-8")
message("wrote glm17_meta.csv glm17_predict.csv glm17_anova.csv glm17_confint.csv glm17_influence.csv to ", here)
