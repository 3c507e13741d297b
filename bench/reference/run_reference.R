# One run of the reference (Rmalschains, the LS-chains authors' package) on one of chainsaw's
# benchmark problems, with chainsaw's default parameters. Prints one JSON object.
#
#   Rscript run_reference.R OBJECTIVE_SO FUNCTION DIM EVALS SEED [RLIB]
#
# OBJECTIVE_SO is objective.cpp built by reference.py; SEED is both the run's seed and the
# problem seed (where the optimum lies), as in `chainsaw run --seed SEED`.
args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) >= 5)
so <- args[1]; fn <- args[2]; dim <- as.numeric(args[3]); evals <- as.numeric(args[4])
seed <- args[5]
if (length(args) >= 6) .libPaths(c(args[6], .libPaths()))
suppressMessages(library(Rmalschains))
dyn.load(so)
dom <- .Call("chainsaw_objective_set", fn, dim, seed)
obj <- .Call("chainsaw_objective_xptr")
# chainsaw's defaults: N 50, I_str 500, r_L/G 0.5, BLX-alpha 0.5, delta 1e-8, Solis-Wets.
ctrl <- malschains.control(popsize = 50, ls = "sw", istep = 500, effort = 0.5, alpha = 0.5,
                           threshold = 1e-8)
# CPU time of this process (user + system): the machine may be shared, and R is one thread.
cpu <- function() { t <- proc.time(); t[["user.self"]] + t[["sys.self"]] }
t0 <- proc.time()[["elapsed"]]; c0 <- cpu()
res <- malschains(obj, lower = dom[1], upper = dom[2], dim = dim, maxEvals = evals,
                  verbosity = 0, control = ctrl, seed = as.numeric(seed))
wall <- proc.time()[["elapsed"]] - t0; cpu_s <- cpu() - c0
st <- .Call("chainsaw_objective_stats")
cat(sprintf(paste0('{"function": "%s", "dim": %d, "evals": %d, "seed": %s, ',
                   '"best_fitness": %.17g, "ga_evaluations": %d, "ls_evaluations": %d, ',
                   '"ls_applications": %d, "wall_seconds": %.6f, "cpu_seconds": %.6f, ',
                   '"objective_seconds": %.6f, ',
                   '"objective_calls": %.0f}\n'),
            fn, as.integer(dim), as.integer(evals), seed, res$fitness, res$numEvalEA,
            res$numEvalLS, res$numTotalLS, wall, cpu_s, st[1], st[2]))
