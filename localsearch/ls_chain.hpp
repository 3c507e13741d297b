// Local-search chains (Lastra et al. 2014 §4.3-4.4, algorithm.md 2b-2c): which individual gets the
// LS, and what is kept of the chain after an application.
#pragma once

#include <cstdint>

#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/profiling.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

struct LsChoice {
  int slot = 0;
  bool from_s_ls = true;  // false: S_LS was empty and a random member was taken
};

// The best member of S_LS (members whose last LS application did not fail to improve them by
// delta; new individuals qualify); a uniformly random member when S_LS is empty.
LsChoice choose_ls_individual(const Population& population, CounterRng& rng);

// True when f went from `before` to `after` by at least delta relative to |after|.
bool improved_by_threshold(double before, double after, double delta);

struct LsContext {
  const Config& config;
  const Problem& problem;
  Population& population;
  Engine& engine;
  PhaseTimers& timers;
};

struct LsApplication {
  int slot = 0;
  double fitness_before = 0.0;
  double fitness_after = 0.0;
  bool chain_continues = false;
  std::int64_t evaluations = 0;
};

// One Solis-Wets application of `evaluations` evaluations to `slot`, continuing its chain if it
// has one. Keeps the chain state when the improvement reached delta, else marks the individual
// as not improvable (out of S_LS) and drops the chain. The better genes are kept either way.
LsApplication apply_local_search(LsContext& ctx, int slot, std::int64_t evaluations);

}  // namespace chainsaw
