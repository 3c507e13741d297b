// BLX-alpha crossover and BGA mutation, per gene (seed 003 §4.1, algorithm.md). Shared by the
// CPU and GPU backends; the random numbers come from each backend's own generator.
#pragma once

#include "core/types.hpp"

namespace chainsaw {

// Child gene from parents a, b and a uniform u in [0,1). The interval [min - I, max + I],
// I = alpha (max - min), is clipped to the domain first and the gene is drawn inside it, so no
// probability mass piles up on the bounds.
CHAINSAW_HD real_t blx_alpha_gene(real_t a, real_t b, double alpha, double lower, double upper,
                                  double u) {
  const double lo_parent = a < b ? a : b;
  const double hi_parent = a < b ? b : a;
  const double spread = alpha * (hi_parent - lo_parent);
  const double lo = clamp_to(lo_parent - spread, lower, upper);
  const double hi = clamp_to(hi_parent + spread, lower, upper);
  return static_cast<real_t>(clamp_to(lo + u * (hi - lo), lower, upper));
}

// BGA mutation of one gene by a precomputed signed step (see bga_step), then clipped.
CHAINSAW_HD real_t bga_mutate_gene(real_t gene, double step, double lower, double upper) {
  return static_cast<real_t>(clamp_to(static_cast<double>(gene) + step, lower, upper));
}

}  // namespace chainsaw
