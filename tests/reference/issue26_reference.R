#!/usr/bin/env Rscript
## Issue 26 reference values from R: offsets, subset, contrasts, na.exclude, splines (ns, bs,
## poly) and model selection by terms (drop1, add1, step; MASS::stepAIC checked equal).
## Reads (from the directory of this script)
##   inputs_titanic.csv, inputs_synthetic.csv   (glm_make_inputs.py)
##   inputs_adult3000.csv, inputs_star98.csv, inputs_fair.csv   (issue26_make_inputs.py)
## and writes
##   issue26_coef.csv     model, i, term (R's name), estimate, se
##   issue26_stats.csv    model, nobs, deviance, null_deviance, df_residual, aic, formula
##   issue26_rows.csv     model, row (1-based row of the input; na.exclude pads NA rows),
##                        resid_deviance, resid_pearson, fitted, hat
##   issue26_newdata.csv  model, i, link  (predict(fit, newdata, type = "link"))
##   issue26_basis.csv    what, i, j, value  (ns() bases on the Titanic ages and a grid)
##   issue26_tables.csv   case, i, term, df, deviance, aic, statistic, p_value,
##                        statistic_converged (Rao at the converged fits; see rao_drop1;
##                        for star_off_add1_Rao the score without add1.glm's offset quirk)
##   issue26_step.csv     case, i, step, df, deviance, resid_df, resid_dev, aic, formula
##   issue26_extra.csv    what, i, name, value  (anova and profile confint of an offset model)
##   issue26_meta.csv     R / MASS versions, date, control, md5 of the inputs
## All numbers with sprintf("%.17g"); missing values NA.  Every fit uses
## glm.control(epsilon = 1e-14, maxit = 100), so drop1/add1/step's refits converge too.
##
## Usage:  Rscript tests/reference/issue26_reference.R

suppressPackageStartupMessages({library(MASS); library(splines)})

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})
tight <- glm.control(epsilon = 1e-14, maxit = 100)
num <- function(x) ifelse(is.na(x), "NA", sprintf("%.17g", x))

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
synth <- read.csv(file.path(here, "inputs_synthetic.csv"), stringsAsFactors = FALSE)
adult <- read.csv(file.path(here, "inputs_adult3000.csv"), stringsAsFactors = FALSE)
star98 <- read.csv(file.path(here, "inputs_star98.csv"))
fair <- read.csv(file.path(here, "inputs_fair.csv"))
stopifnot(nrow(titanic) == 1309L, nrow(synth) == 1000L, nrow(adult) == 3000L,
          nrow(star98) == 303L, nrow(fair) == 6366L)
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))
titanic$pclass_f <- factor(titanic$pclass)
titanic$lfare <- log(titanic$fare + 1)
synth$g <- factor(synth$g, levels = c("a", "b", "c"))
fair$affair <- as.integer(fair$affairs > 0)
fair$religious_f <- factor(fair$religious)
fair$rate_f <- factor(fair$rate_marriage)
ti_cc <- titanic[!is.na(titanic$age), ]
stopifnot(nrow(ti_cc) == 1046L)

coef_rows <- list(); stat_rows <- list(); row_rows <- list(); new_rows <- list()
record <- function(name, fit) {
  ## glm.fit keeps the QR of its last solve, made at the previous iterate: refit from the
  ## converged coefficients so that the standard errors are evaluated there too
  fit <- eval(bquote(update(fit, start = .(unname(coef(fit)[!is.na(coef(fit))])))))
  s <- summary(fit)
  cf <- coef(fit)
  se <- rep(NA_real_, length(cf)); names(se) <- names(cf)
  se[rownames(s$coefficients)] <- s$coefficients[, 2]
  coef_rows[[name]] <<- data.frame(model = name, i = seq_along(cf), term = names(cf),
                                   estimate = num(unname(cf)), se = num(unname(se)))
  stat_rows[[name]] <<- data.frame(model = name, nobs = nobs(fit), deviance = num(fit$deviance),
                                   null_deviance = num(fit$null.deviance),
                                   df_residual = fit$df.residual, aic = num(fit$aic),
                                   formula = paste(deparse(formula(fit)), collapse = " "))
  invisible(fit)
}
record_rows <- function(name, fit) {   # na.exclude: padded to the rows considered
  v <- residuals(fit, "deviance")
  row_rows[[name]] <<- data.frame(model = name, row = as.integer(names(v)), resid_deviance = num(v),
                                  resid_pearson = num(residuals(fit, "pearson")),
                                  fitted = num(fitted(fit)), hat = num(hatvalues(fit)))
}
record_new <- function(name, fit, newdata) {
  p <- predict(fit, newdata = newdata, type = "link")
  new_rows[[name]] <<- data.frame(model = name, i = seq_along(p), link = num(unname(p)))
}
bin <- function(formula, data, ...) {     # glm(binomial, control = tight) with the call as typed
  cl <- match.call()
  cl[[1L]] <- quote(glm)
  cl$family <- quote(binomial)
  cl$control <- quote(tight)
  eval(cl, parent.frame())
}

## --------------------------------------------------------------- offsets
record("ti_offset_expr", m <- bin(survived ~ factor(pclass) + sex + age + offset(0.1 * sibsp), titanic))
record_new("ti_offset_expr", m, titanic[1:40, ])
extra_rows <- list()
extra <- function(what, df) {       # long format: what, i (row), name (column), value
  extra_rows[[what]] <<- data.frame(what = what, i = rep(seq_len(nrow(df)), ncol(df)),
                                    name = rep(names(df), each = nrow(df)),
                                    value = num(unlist(df, use.names = FALSE)))
}
a <- anova(m, test = "Rao")
extra("ti_offset_anova", data.frame(df = a$Df, deviance = a$Deviance, resid_df = a[["Resid. Df"]],
                                    resid_dev = a[["Resid. Dev"]], rao = a$Rao))
ci <- suppressMessages(confint(m))    # MASS's profile likelihood
extra("ti_offset_confint", data.frame(lo = ci[, 1], hi = ci[, 2]))
record("ti_offset_arg", m <- bin(survived ~ factor(pclass) + sex + age, titanic, offset = lfare))
record_new("ti_offset_arg", m, titanic[1:40, ])
record("star_offset", m <- bin(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK + PERHISP +
                                 PCTCHRT + offset(log(AVSALK / 50)), star98))
record_new("star_offset", m, star98[1:30, ])
record("ti_offset_noint", bin(survived ~ 0 + sex + age + offset(0.1 * sibsp), titanic))

## --------------------------------------------------------------- subset
record("ti_subset", bin(survived ~ factor(pclass) + sex + age, titanic,
                        subset = sibsp < 2 & parch < 3))
record("adult_subset", bin(rich ~ age + education_num + sex, adult, subset = hours_per_week >= 30))

## --------------------------------------------------------------- contrasts
record("ti_sum", bin(survived ~ pclass_f + sex + age, titanic,
                     contrasts = list(pclass_f = "contr.sum")))
record("ti_helmert_sum", bin(survived ~ pclass_f * sex + age, titanic,
                             contrasts = list(pclass_f = "contr.helmert", sex = "contr.sum")))
record("ti_C_sum", bin(survived ~ C(pclass_f, sum) + sex + age, titanic))
record("fair_poly_helmert", bin(affair ~ religious_f + rate_f + age + yrs_married, fair,
                                contrasts = list(religious_f = "contr.poly",
                                                 rate_f = "contr.helmert")))
record("adult_sum", m <- bin(rich ~ age + education_num + sex + race, adult,
                             contrasts = list(race = "contr.sum")))
record_new("adult_sum", m, adult[1:30, ])

## --------------------------------------------------------------- na.exclude
m <- record("ti_exclude", bin(survived ~ factor(pclass) + sex + age, titanic,
                              na.action = na.exclude))
stopifnot(length(residuals(m)) == 1309L)
stopifnot(identical(names(residuals(m)), as.character(1:1309)))
record_rows("ti_exclude", m)
m <- record("ti_exclude_subset", bin(survived ~ sex + age, titanic, subset = sibsp < 2,
                                     na.action = na.exclude))
stopifnot(length(residuals(m)) == sum(titanic$sibsp < 2))
record_rows("ti_exclude_subset", m)     # row: the input rows of the subset

## --------------------------------------------------------------- splines
grid <- data.frame(age = c(0.1, 0.5, 5, 20, 30, 45, 60, 75, 80, 85, 95),
                   sex = factor(rep(c("female", "male"), length.out = 11),
                                levels = c("female", "male")))
record("ti_ns3", m <- bin(survived ~ ns(age, df = 3) + sex, ti_cc)); record_new("ti_ns3", m, grid)
record("ti_ns_knots", m <- bin(survived ~ ns(age, knots = c(20, 40), Boundary.knots = c(1, 70)) +
                                 sex, ti_cc)); record_new("ti_ns_knots", m, grid)
record("ti_bs4", m <- bin(survived ~ bs(age, df = 4, degree = 3) + sex, ti_cc))
record_new("ti_bs4", suppressWarnings(m), grid)
record("ti_poly2", m <- bin(survived ~ poly(age, 2) + sex, ti_cc)); record_new("ti_poly2", m, grid)
record("ti_poly2raw", m <- bin(survived ~ poly(age, 2, raw = TRUE) + sex, ti_cc))
record_new("ti_poly2raw", m, grid)

basis_rows <- list()
basis <- function(what, B) {
  basis_rows[[what]] <<- data.frame(what = what, i = rep(seq_len(nrow(B)), ncol(B)),
                                    j = rep(seq_len(ncol(B)), each = nrow(B)),
                                    value = num(as.vector(B)))
}
b <- ns(ti_cc$age, df = 4)
basis("ns_df4_train", b[1:60, ])
basis("ns_df4_grid", predict(b, grid$age))
b <- ns(ti_cc$age, df = 3, intercept = TRUE)
basis("ns_df3_int_grid", predict(b, grid$age))
basis("ns_knots_grid", ns(grid$age, knots = c(20, 40), Boundary.knots = c(1, 70)))

## --------------------------------------------------------------- drop1 / add1 / step
tab_rows <- list(); step_rows <- list()
## R's Rao score uses the working weights glm.fit returns, made at the iterate before the last:
## accurate to about sqrt(epsilon) = 1e-7.  The same score at the converged fit (a second
## glm.fit from the converged coefficients, whose weights are made there) is recorded as
## statistic_converged, for a tighter comparison.
refit_conv <- function(X, y, wt, offset, family) {
  z <- glm.fit(X, y, wt, offset = offset, family = family, control = tight)
  b <- coef(z); b[is.na(b)] <- 0
  glm.fit(X, y, wt, start = b, offset = offset, family = family, control = tight)
}
rao_drop1 <- function(fit) {
  x <- model.matrix(fit); asgn <- attr(x, "assign"); tl <- attr(terms(fit), "term.labels")
  c(NA, sapply(drop.scope(fit), function(term) {
    jj <- which(asgn != match(term, tl))
    z <- refit_conv(x[, jj, drop = FALSE], fit$y, fit$prior.weights, fit$offset, fit$family)
    zz <- glm.fit(x, z$residuals, z$weights)
    max(0, zz$null.deviance - zz$deviance)
  }))
}
## add1.glm regresses the working residuals *minus the offset* on the larger design (its
## glm.fit(X, r, w, offset = offset)), which is not the score statistic when the model has an
## offset; rao_add1(textbook = TRUE) leaves the offset out, as drop1.glm and the score test do.
rao_add1 <- function(fit, scope, textbook = FALSE) {
  scope <- add.scope(fit, update.formula(fit, scope))
  Terms <- terms(update.formula(fit, as.formula(paste("~ . +", paste(scope, collapse = "+")))))
  fc <- fit$call; fc$formula <- Terms
  fob <- list(call = fc, terms = Terms); class(fob) <- oldClass(fit)
  m <- model.frame(fob, xlev = fit$xlevels)
  x <- model.matrix(Terms, m, contrasts.arg = fit$contrasts)
  off <- model.offset(m)
  asgn <- attr(x, "assign")
  sorted <- function(l) sapply(strsplit(l, ":", fixed = TRUE), function(v) paste(sort(v), collapse = ":"))
  tl <- sorted(attr(Terms, "term.labels"))
  ousex <- asgn %in% c(0, match(sorted(attr(fit$terms, "term.labels")), tl))
  z <- refit_conv(x[, ousex, drop = FALSE], fit$y, fit$prior.weights, off, fit$family)
  c(NA, sapply(scope, function(tt) {
    X <- x[, (asgn == match(sorted(tt), tl)) | ousex, drop = FALSE]
    zz <- glm.fit(X, z$residuals, z$weights, offset = if (textbook) NULL else off)
    max(0, zz$null.deviance - zz$deviance)
  }))
}
record_table <- function(case, aod, converged = NA) {
  a <- as.data.frame(aod)
  st <- intersect(c("LRT", "scaled dev.", "F value", "Rao score", "scaled Rao sc."), names(a))
  pv <- intersect(c("Pr(>Chi)", "Pr(>F)"), names(a))
  tab_rows[[case]] <<- data.frame(
    case = case, i = seq_len(nrow(a)), term = rownames(a), df = num(a$Df),
    deviance = num(a$Deviance), aic = num(if ("AIC" %in% names(a)) a$AIC else NA),
    statistic = num(if (length(st)) a[[st]] else NA),
    p_value = num(if (length(pv)) a[[pv]] else NA), statistic_converged = num(converged))
}
record_step <- function(case, fit) {
  a <- fit$anova
  step_rows[[case]] <<- data.frame(
    case = case, i = seq_len(nrow(a)), step = as.character(a$Step), df = num(a$Df),
    deviance = num(a$Deviance), resid_df = num(a[["Resid. Df"]]),
    resid_dev = num(a[["Resid. Dev"]]), aic = num(a$AIC),
    formula = paste(deparse(formula(fit)), collapse = " "))
}
same_step <- function(s1, s2) {     # stats::step and MASS::stepAIC choose the same path
  stopifnot(isTRUE(all.equal(coef(s1), coef(s2), tolerance = 1e-12)),
            isTRUE(all.equal(s1$anova$AIC, s2$anova$AIC, tolerance = 1e-12)))
}

## Titanic
full <- bin(survived ~ factor(pclass) * sex + age + sibsp + parch, ti_cc)
for (test in c("none", "Chisq", "F"))
  record_table(paste0("ti_drop1_", test), suppressWarnings(drop1(full, test = test)))
record_table("ti_drop1_Rao", drop1(full, test = "Rao"), rao_drop1(full))
small <- bin(survived ~ sex + age, ti_cc)
sc <- ~ . + factor(pclass) + sibsp + parch + sex:age + factor(pclass):sex
for (test in c("none", "Chisq", "F"))
  record_table(paste0("ti_add1_", test), suppressWarnings(add1(small, sc, test = test)))
record_table("ti_add1_Rao", add1(small, sc, test = "Rao"), rao_add1(small, sc))
s <- step(full, trace = 0); same_step(s, stepAIC(full, trace = 0)); record_step("ti_step_back", s)
s <- step(full, trace = 0, k = log(nrow(ti_cc))); record_step("ti_step_bic", s)
null <- bin(survived ~ 1, ti_cc)
up <- ~ factor(pclass) * sex + age + sibsp + parch
s <- step(null, scope = up, direction = "forward", trace = 0)
same_step(s, stepAIC(null, scope = up, direction = "forward", trace = 0))
record_step("ti_step_forward", s)
s <- step(small, scope = list(lower = ~ sex, upper = ~ factor(pclass) * sex * age + sibsp + parch),
          trace = 0)
same_step(s, stepAIC(small, scope = list(lower = ~ sex, upper = ~ factor(pclass) * sex * age +
                                             sibsp + parch), trace = 0))
record_step("ti_step_both", s)
wfit <- bin(survived ~ factor(pclass) + sex + age + sibsp, ti_cc, weights = w)
record_table("ti_w_drop1_Chisq", drop1(wfit, test = "Chisq"))

## Adult
afull <- bin(rich ~ age + education_num + hours_per_week + sex + race + marital_status, adult)
record_table("adult_drop1_Chisq", drop1(afull, test = "Chisq"))
record_table("adult_drop1_Rao", drop1(afull, test = "Rao"), rao_drop1(afull))
s <- step(afull, trace = 0); same_step(s, stepAIC(afull, trace = 0)); record_step("adult_step_back", s)
astart <- bin(rich ~ age, adult)
aup <- ~ age + education_num + hours_per_week + sex + race + marital_status + sex:hours_per_week
s <- step(astart, scope = aup, trace = 0); same_step(s, stepAIC(astart, scope = aup, trace = 0))
record_step("adult_step_both", s)
record_table("adult_add1_Rao", add1(astart, aup, test = "Rao"), rao_add1(astart, aup))

## cbind models: synthetic votes and star98
cfull <- bin(cbind(yes, no) ~ x1 * g + x2, synth)
record_table("synth_drop1_Chisq", drop1(cfull, test = "Chisq"))
record_table("synth_drop1_Rao", drop1(cfull, test = "Rao"), rao_drop1(cfull))
csmall <- bin(cbind(yes, no) ~ x1, synth)
record_table("synth_add1_Chisq", add1(csmall, ~ . + x2 + g + x1:g, test = "Chisq"))
s <- step(bin(cbind(yes, no) ~ x1 * g * x2, synth), trace = 0); record_step("synth_step_back", s)
sfull <- bin(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK + PERHISP + PCTCHRT +
               PCTYRRND + PERMINTE * AVYRSEXP, star98)
record_table("star_drop1_Chisq", drop1(sfull, test = "Chisq"))
s <- step(sfull, trace = 0); same_step(s, stepAIC(sfull, trace = 0)); record_step("star_step_back", s)
soff <- bin(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + offset(log(AVSALK / 50)), star98)
record_table("star_off_drop1_Rao", drop1(soff, test = "Rao"), rao_drop1(soff))
record_table("star_off_add1_Rao", add1(soff, ~ . + PERBLACK + PERHISP, test = "Rao"),
             rao_add1(soff, ~ . + PERBLACK + PERHISP, textbook = TRUE))
squasi <- glm(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK + PERHISP, quasibinomial,
              star98, control = tight)
record_table("star_quasi_drop1_F", drop1(squasi, test = "F"))

## --------------------------------------------------------------- Adult and statsmodels data
## Items 1 and 3 beyond Titanic: offsets, splines and na.exclude on Adult, fair and star98
## (missing values put in at fixed rows: the bundled rows have none).
record("adult_offset", m <- bin(rich ~ education_num + sex + age +
                                  offset(log(hours_per_week / 40)), adult))
record_new("adult_offset", m, adult[1:30, ])
agrid <- data.frame(age = c(17, 20, 30, 45, 60, 75, 90, 95),
                    education_num = c(1, 3, 9, 10, 13, 14, 16, 18),
                    sex = rep(c("Female", "Male"), 4))
record("adult_splines", m <- bin(rich ~ ns(age, df = 3) + bs(education_num, df = 4, degree = 3) +
                                   sex, adult))
record_new("adult_splines", suppressWarnings(m), agrid)
fgrid <- data.frame(age = c(17.5, 22, 27, 32, 37, 42, 50),
                    yrs_married = c(0.5, 2.5, 6, 9, 13, 16.5, 25),
                    religious_f = factor(c(1, 2, 3, 4, 1, 2, 3), levels = 1:4))
record("fair_splines", m <- bin(affair ~ ns(age, df = 3) + poly(yrs_married, 2, raw = TRUE) +
                                  religious_f, fair))
record_new("fair_splines", m, fgrid)
adult_na <- adult
adult_na$age[seq(7, 3000, by = 101)] <- NA
adult_na$education_num[seq(50, 3000, by = 211)] <- NA
m <- record("adult_exclude", bin(rich ~ age + education_num + sex, adult_na,
                                 na.action = na.exclude))
stopifnot(length(residuals(m)) == 3000L)
record_rows("adult_exclude", m)
star_na <- star98
star_na$LOWINC[seq(3, 303, by = 29)] <- NA
m <- record("star_exclude_subset", bin(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK,
                                       star_na, subset = PERHISP < 60, na.action = na.exclude))
record_rows("star_exclude_subset", m)

## --------------------------------------------------------------- write
w <- function(x, f) write.csv(do.call(rbind, x), file.path(here, f), row.names = FALSE,
                              quote = TRUE)
w(coef_rows, "issue26_coef.csv"); w(stat_rows, "issue26_stats.csv")
w(row_rows, "issue26_rows.csv"); w(new_rows, "issue26_newdata.csv")
w(basis_rows, "issue26_basis.csv"); w(tab_rows, "issue26_tables.csv")
w(step_rows, "issue26_step.csv"); w(extra_rows, "issue26_extra.csv")
md5 <- tools::md5sum(file.path(here, c("inputs_titanic.csv", "inputs_synthetic.csv",
                                       "inputs_adult3000.csv", "inputs_star98.csv",
                                       "inputs_fair.csv")))
meta <- data.frame(key = c("r_version", "mass_version", "date", "epsilon", "maxit",
                           paste0("md5_", basename(names(md5)))),
                   value = c(R.version.string, as.character(packageVersion("MASS")),
                             format(Sys.Date()), "1e-14", "100", unname(md5)))
write.csv(meta, file.path(here, "issue26_meta.csv"), row.names = FALSE)
