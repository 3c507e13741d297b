// The steady-state GA phase (Lastra et al. 2014 §4.1, algorithm.md 2a) as host decisions around one
// engine operation: a batch of children by NAM (distances, the farthest candidate as father,
// crossover and the children's evaluation).
#pragma once

#include <cstdint>

#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/profiling.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"
#include "ssga/nam.hpp"

namespace chainsaw {

// Negative assortative mating: the mother is a uniformly random member; `count` distinct
// members other than her are candidates to be the father (ranks into the sorted population).
void draw_mating_candidates(int population_size, int count, CounterRng& rng, int& mother_rank,
                            int* candidate_ranks);

struct SsgaContext {
  const Config& config;
  const Problem& problem;
  Population& population;
  Engine& engine;
  CounterRng& rng;
  PhaseTimers& timers;
};

// One batch of `children` (1 <= children <= batch) children into the padding slots, then the
// sort that moves the worst of members + children into the padding area. Returns evaluations.
std::int64_t ssga_batch(SsgaContext& ctx, int children);

// Batches until `evaluations` evaluations are spent (the last batch may be partial).
std::int64_t ssga_phase(SsgaContext& ctx, std::int64_t evaluations);

}  // namespace chainsaw
