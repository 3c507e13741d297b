// BLX-alpha crossover and BGA mutation, per gene (Lastra et al. 2014 §4.1, algorithm.md). Shared by
// the CPU and GPU backends; the random numbers come from each backend's own generator.
#pragma once

#include "core/types.hpp"

namespace chainsaw {

// Child gene from parents a, b and a uniform u in [0,1). The interval [min - I, max + I],
// I = alpha (max - min), is clipped to the domain first and the gene is drawn inside it, so no
// probability mass piles up on the bounds. In the genes' precision, in which a gene is stored:
// float64 here cost the GPU five quarter-rate conversions per gene
// (bench/results/2026-11-27-h100-gene-precision).
// Products go through mul_rn (core/types.hpp).
CHAINSAW_HD real_t blx_alpha_gene(real_t a, real_t b, double alpha, double lower, double upper,
                                  double u) {
  const auto lo_bound = static_cast<real_t>(lower), hi_bound = static_cast<real_t>(upper);
  const real_t lo_parent = a < b ? a : b;
  const real_t hi_parent = a < b ? b : a;
  const real_t spread = mul_rn(static_cast<real_t>(alpha), hi_parent - lo_parent);
  const real_t lo = clamp_to(lo_parent - spread, lo_bound, hi_bound);
  const real_t hi = clamp_to(hi_parent + spread, lo_bound, hi_bound);
  return clamp_to(lo + mul_rn(static_cast<real_t>(u), hi - lo), lo_bound, hi_bound);
}

// BGA mutation of one gene by a precomputed signed step (see bga_step), then clipped.
CHAINSAW_HD real_t bga_mutate_gene(real_t gene, double step, double lower, double upper) {
  return static_cast<real_t>(clamp_to(static_cast<double>(gene) + step, lower, upper));
}

}  // namespace chainsaw
