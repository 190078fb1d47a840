# Reference for fmstats.multinom's summary layout and numbers: R's nnet::multinom.
# Input: the first 600 rows of statsmodels' `fair` data with case weights w = 1 + (row mod 4)
# and occupation merged into a three-level factor occ (1-2 a_low, 3 b_mid, 4-6 c_high)
# (multinom_nnet_input.csv, written from statsmodels.datasets.fair).
# Run:  Rscript tests/reference/multinom_nnet.R   (R 4.2.2, nnet 7.3-18)
# Writes multinom_nnet_coef.csv (class, term, estimate, std_error), multinom_nnet_stats.csv
# (deviance, AIC) and multinom_nnet_summary.txt (print(summary(fit))).
library(nnet)
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
d <- read.csv(file.path(here, "multinom_nnet_input.csv"))
d$religious <- factor(d$religious)
fit <- multinom(religious ~ age + educ + occ, data = d, weights = w,
                Hess = TRUE, maxit = 1000, reltol = 1e-14, trace = FALSE)
s <- summary(fit)
co <- s$coefficients
se <- s$standard.errors
out <- data.frame(class = rep(rownames(co), ncol(co)), term = rep(colnames(co), each = nrow(co)),
                  estimate = as.vector(co), std_error = as.vector(se))
write.csv(out, file.path(here, "multinom_nnet_coef.csv"), row.names = FALSE)
write.csv(data.frame(deviance = fit$deviance, AIC = fit$AIC),
          file.path(here, "multinom_nnet_stats.csv"), row.names = FALSE)
sink(file.path(here, "multinom_nnet_summary.txt"))
print(s)
sink()
