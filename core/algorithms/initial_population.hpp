// The points a run's initial population starts from (Config::initial_population: --init FILE,
// Python's x0= and population=), shared by every algorithm: the first rows of the population
// take them, the others are drawn as without them, and every given point is evaluated once
// (docs/algorithms.md, "Initial population").
#pragma once

#include <vector>

#include "core/config.hpp"
#include "core/types.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// How many points the configuration gives (0: a random population).
int initial_rows(const Config& config);

// The given points as genes (row-major, problem.dim a row). UserError naming the first value
// outside the problem's domain.
std::vector<real_t> initial_genes(const Config& config, const Problem& problem);

// Writes the given points over the first rows of `genes` (rows of problem.dim genes, `members`
// of them): a population algorithm calls it after drawing its random members, before
// evaluating them.
void place_initial_rows(const Config& config, const Problem& problem, real_t* genes,
                        int members);

// f of `rows` rows of problem.dim genes on the host into `out` (a user objective: one batch
// call of its host callback; NaN and -inf stored as +inf): MA-SW-Chains' given points, on
// either backend. Returns how many values were NaN or -inf.
std::int64_t evaluate_rows_on_host(const Problem& problem, const real_t* genes, int rows,
                                   double* out);

}  // namespace chainsaw
