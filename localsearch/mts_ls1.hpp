// MTS-LS1, the coordinate local search of Multiple Trajectory Search (Tseng & Chen 2008), in the
// form SHADE-ILS uses it (Molina, LaTorre & Herrera 2018): a search range SR_i per variable.
// Variable i tries x_i - SR_i; if that is worse (not merely equal), x_i + SR_i / 2; a variable
// that improves nothing halves its SR_i. The first pass visits the variables in a random order;
// later passes visit them by their last improvement, largest first, staying on a variable while
// it improves. At the end, every SR_i below 1e-15 starts again from the first step.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/types.hpp"

namespace chainsaw {

// f of one candidate (dim genes).
using EvaluateOne = std::function<double(const real_t*)>;

struct MtsLs1Outcome {
  std::int64_t evaluations = 0;
  double improvement = 0.0;  // f before - f after, >= 0
};

// Improves x (dim genes, f(x) = fx) in place with exactly `budget` evaluations, updating the
// search ranges sr (dim values). `key` draws the first pass's order; `first_step` is SR's start value.
MtsLs1Outcome mts_ls1(const EvaluateOne& evaluate, real_t* x, double& fx, Dim dim,
                      std::vector<double>& sr, std::int64_t budget, std::uint64_t key,
                      double lower, double upper, double first_step);

// The candidate of variable i moved by `step`, clipped to the bounds (as a real_t gene).
real_t mts_moved_gene(real_t gene, double step, double lower, double upper);

}  // namespace chainsaw
