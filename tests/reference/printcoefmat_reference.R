#!/usr/bin/env Rscript
## How R prints a coefficient table: the reference for fmstats' text summary layout
## (tests/test_summary_render.py).  summary.glm prints its coefficients with
## printCoefmat(coefs, digits = max(3, getOption("digits") - 3) = 4, na.print = "NA").
##
## Writes, next to this script:
##   printcoefmat_output.txt   R's printed blocks, each after a line "### <case>"
##   printcoefmat_numbers.csv  the numbers that were printed (sprintf "%.17g"; NA), one row per
##                             coefficient: case, term, estimate, std_error, statistic, p_value
##   printcoefmat_scaled.csv   the simulated data of the "scaled" glm case (tiny and huge
##                             coefficients, p < 2e-16), so fmstats can refit it
## Cases: two glm fits on inputs_titanic.csv, one glm fit on the simulated data, and
## hand-made coefficient matrices given straight to printCoefmat (NA rows, exact zeros,
## an estimate that rounds to zero, p-values that are all below eps, wide fixed p-values).
##
## Usage:  Rscript tests/reference/printcoefmat_reference.R

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})
options(digits = 7, width = 200, show.signif.stars = TRUE, OutDec = ".")
tight <- glm.control(epsilon = 1e-14, maxit = 100)

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))

set.seed(20261125)
n <- 4000
scaled <- data.frame(big = rnorm(n, sd = 1e5),      # coefficient ~ 1e-5
                     small = rnorm(n, sd = 1e-4),   # coefficient ~ 1e4
                     strong = rnorm(n),             # p far below 2e-16
                     noise = rnorm(n))              # p near 0.5
eta <- -0.4 + 2e-5 * scaled$big + 3e3 * scaled$small + 1.7 * scaled$strong
scaled$y <- rbinom(n, 1, plogis(eta))
scaled_txt <- scaled
for (k in 1:4) scaled_txt[[k]] <- sprintf("%.17g", scaled[[k]])
write.csv(scaled_txt, file.path(here, "printcoefmat_scaled.csv"), row.names = FALSE, quote = FALSE)
scaled <- read.csv(file.path(here, "printcoefmat_scaled.csv"))  # the numbers fmstats reads

## glm() takes its standard errors from the last weighted least-squares solve, whose weights
## are those of the previous iterate; a second fit started at the converged estimates puts
## them at the MLE (as in glm_reference.R), which is what fmstats reports.
converged_glm <- function(...) {
  f0 <- glm(..., control = tight)
  stopifnot(f0$converged)
  glm(..., control = tight, start = coef(f0))
}
fits <- list(
  titanic_binom = converged_glm(survived ~ factor(pclass) * sex + age + sibsp, binomial,
                                titanic),
  titanic_quasi_q = converged_glm(q ~ factor(pclass) * sex + age + sibsp, quasibinomial,
                                  titanic),
  scaled_binom = converged_glm(y ~ big + small + strong + noise, binomial, scaled)
)

cm <- function(est, se, stat = est / se, p = 2 * pnorm(-abs(stat)), names = NULL) {
  m <- cbind(est, se, stat, p)
  dimnames(m) <- list(if (is.null(names)) paste0("x", seq_along(est)) else names,
                      c("Estimate", "Std. Error", "z value", "Pr(>|z|)"))
  m
}
matrices <- list(
  # an aliased (NA) row, an exact zero estimate and an estimate that rounds to 0
  na_zero = cm(c(1.5, NA, 0, 3e-9, -250.25), c(0.2, NA, 0.1, 1e-9, 80),
               names = c("(Intercept)", "aliased", "zero", "tiny", "neg")),
  # every p-value below eps: "<2e-16" without a space
  all_tiny_p = cm(c(12.5, -8.25), c(0.05, 0.04)),
  # fixed and scientific p-values beside "< 2e-16"
  mixed_p = cm(c(0.123456, 2.5, -1.1, 7.7, 0.02), c(0.05, 1.2, 0.2, 0.1, 0.2)),
  # huge and tiny magnitudes in one column
  magnitudes = cm(c(123456.789, 0.000123456, -45.6), c(2345.6, 0.0000456, 12.3)),
  # a statistic that is NA while the estimate is finite
  na_se = cm(c(0.7, 1.3), c(NA, 0.4), stat = c(NA, 3.25), p = c(NA, 0.00115))
)

cols <- c("case", "term", "estimate", "std_error", "statistic", "p_value")
out <- character(0)
nums <- list()
for (nm in names(fits)) {
  co <- coef(summary(fits[[nm]]))
  out <- c(out, paste("###", nm), capture.output(printCoefmat(co, digits = 4, na.print = "NA")))
  nums[[nm]] <- setNames(data.frame(nm, rownames(co), co), cols)
}
## the deviance lines of print.summary.glm (format(digits = 5), degrees of freedom aligned)
for (nm in names(fits)) {
  txt <- capture.output(print(summary(fits[[nm]])))
  out <- c(out, paste("###", nm, "deviance"), grep("deviance:", txt, value = TRUE))
}
for (nm in names(matrices)) {
  co <- matrices[[nm]]
  out <- c(out, paste("###", nm), capture.output(printCoefmat(co, digits = 4, na.print = "NA")))
  nums[[nm]] <- setNames(data.frame(nm, rownames(co), co), cols)
}
writeLines(out, file.path(here, "printcoefmat_output.txt"))

tab <- do.call(rbind, unname(nums))
for (k in 3:6) tab[[k]] <- ifelse(is.na(tab[[k]]), "NA", sprintf("%.17g", tab[[k]]))
write.csv(tab, file.path(here, "printcoefmat_numbers.csv"), row.names = FALSE, quote = TRUE)
## format(x, digits = d) of 300 simulated vectors (magnitudes 1e-12 .. 1e12, some rounded,
## some zeros, some NA): the rule under every cell above.
set.seed(1125)
fmt <- t(sapply(seq_len(300), function(i) {
  k <- sample(1:6, 1)
  x <- rnorm(k) * 10^sample(-12:12, k, replace = TRUE)
  if (runif(1) < 0.3) x <- round(x, sample(0:3, 1))
  if (runif(1) < 0.1) x[1] <- 0
  if (runif(1) < 0.1) x[k] <- NA
  d <- sample(1:7, 1)
  c(digits = d, values = paste(ifelse(is.na(x), "NA", sprintf("%.17g", x)), collapse = " "),
    formatted = paste(format(x, digits = d), collapse = "|"))
}))
write.csv(fmt, file.path(here, "printcoefmat_format.csv"), row.names = FALSE)
cat(sprintf("R %s: wrote %d blocks\n", getRversion(), length(nums)))
