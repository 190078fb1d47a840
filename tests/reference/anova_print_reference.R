#!/usr/bin/env Rscript
## How R prints drop1 / add1 / anova tables of binomial and quasibinomial glm fits, and the
## warnings it gives: the reference for fmstats' TermTable and AnovaTable text (issue 38,
## tests/test_anova_print.py).  print.anova calls printCoefmat(digits = 5, cs.ind = NULL,
## zap.ind = every column but the test statistic, the Df columns and the p-value,
## tst.ind = "F value" / "F", na.print = "").
##
## Writes, next to this script:
##   anova_print_output.txt   for each case a line "### <case>", R's printed table, then one
##                            line "#! warning: <message>" per warning R gave (none: no line)
##
## Usage:  Rscript tests/reference/anova_print_reference.R

here <- local({
  a <- commandArgs(trailingOnly = FALSE)
  f <- sub("^--file=", "", a[grepl("^--file=", a)])
  if (length(f) == 1L) dirname(normalizePath(f)) else getwd()
})
options(digits = 7, width = 200, show.signif.stars = TRUE, OutDec = ".")
tight <- glm.control(epsilon = 1e-14, maxit = 100)

titanic <- read.csv(file.path(here, "inputs_titanic.csv"), stringsAsFactors = FALSE)
titanic$sex <- factor(titanic$sex, levels = c("female", "male"))
ti_cc <- titanic[!is.na(titanic$age), ]
star98 <- read.csv(file.path(here, "inputs_star98.csv"))
stopifnot(nrow(ti_cc) == 1046L, nrow(star98) == 303L)

## the data are named in each call (add1 and drop1 refit from the call)
bin <- function(f, d) eval(bquote(glm(.(f), binomial, .(substitute(d)), control = tight)))
quasi <- function(f, d) eval(bquote(glm(.(f), quasibinomial, .(substitute(d)), control = tight)))
full <- bin(survived ~ factor(pclass) * sex + age + sibsp + parch, ti_cc)
small <- bin(survived ~ sex + age, ti_cc)
scope <- ~ . + factor(pclass) + sibsp + parch + sex:age + factor(pclass):sex
m0 <- bin(survived ~ factor(pclass) + sex, ti_cc)
m1 <- bin(survived ~ factor(pclass) * sex + age, ti_cc)
q_full <- quasi(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + PERBLACK + PERHISP, star98)
q_small <- quasi(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN, star98)

cases <- list(
  ti_drop1_none = quote(drop1(full)),
  ti_drop1_Chisq = quote(drop1(full, test = "Chisq")),
  ti_drop1_F = quote(drop1(full, test = "F")),
  ti_drop1_Rao = quote(drop1(full, test = "Rao")),
  ti_add1_Chisq = quote(add1(small, scope, test = "Chisq")),
  ti_add1_F = quote(add1(small, scope, test = "F")),
  ti_anova_Chisq = quote(anova(full, test = "Chisq")),
  ti_anova_F = quote(anova(full, test = "F")),
  ti_anova_Rao = quote(anova(full, test = "Rao")),
  ti_nested_Chisq = quote(anova(m0, m1, test = "Chisq")),
  ti_nested_F = quote(anova(m0, m1, test = "F")),
  star_quasi_drop1_F = quote(drop1(q_full, test = "F")),
  star_quasi_drop1_Chisq = quote(drop1(q_full, test = "Chisq")),
  star_quasi_anova_F = quote(anova(q_full, test = "F")),
  star_quasi_anova_fixed_F = quote(anova(q_full, test = "F", dispersion = 1)),
  star_quasi_nested_F = quote(anova(q_small, q_full, test = "F"))
)

out <- character(0)
for (nm in names(cases)) {
  warned <- character(0)
  tab <- withCallingHandlers(eval(cases[[nm]]), warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  out <- c(out, paste("###", nm), capture.output(print(tab)),
           if (length(warned)) paste("#! warning:", warned))
}
writeLines(out, file.path(here, "anova_print_output.txt"))
cat(sprintf("R %s: wrote %d cases\n", getRversion(), length(cases)))
