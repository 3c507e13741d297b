// Negative assortative mating's choice of the father (Lastra et al. 2014 §4.1): of the mother's
// candidates, the one farthest from her. One rule for the host loop's two-pass batch and the
// GPU's fused one (core/engines/cuda/cuda_engine.cu), so that both pick the same father.
#pragma once

#include "core/types.hpp"

namespace chainsaw {

// Index of the largest distance, the first one on ties (as std::max_element).
CHAINSAW_HD int farthest_candidate(const double* distances, int count) {
  int farthest = 0;
  for (int k = 1; k < count; ++k)
    if (distances[farthest] < distances[k]) farthest = k;
  return farthest;
}

}  // namespace chainsaw
