// BGA mutation (Mühlenbein & Schlierkamp-Voosen): the step of the one mutated gene.
#pragma once

#include "core/rng.hpp"

namespace chainsaw {

// ±r Σ_{k=0..15} a_k 2^{-k}, r = 0.1 (domain width), a_k = 1 with probability 1/16, the sign
// ± with probability 1/2. Drawn on the host: it is a handful of scalars per child.
inline double bga_step(CounterRng& rng, double domain_width) {
  double sum = 0.0;
  double weight = 1.0;
  for (int k = 0; k < 16; ++k, weight *= 0.5)
    if (rng.bernoulli(1.0 / 16.0)) sum += weight;
  const double magnitude = 0.1 * domain_width * sum;
  return rng.bernoulli(0.5) ? magnitude : -magnitude;
}

}  // namespace chainsaw
