// MA-SW-Chains, the host loop (seed 003 Fig. 2 and Fig. 3; algorithm.md "The loop"):
// alternate a steady-state GA phase of n_frec evaluations with one Solis-Wets application of
// I_str evaluations, keeping the LS share at r_L/G, until exactly the evaluation budget is spent.
// It runs unchanged on every Engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/config.hpp"
#include "core/engine.hpp"
#include "core/phase_timer.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

struct RunCounters {
  std::int64_t evaluations = 0;     // all of them, initial population included
  std::int64_t ga_evaluations = 0;  // initial population + children (n_GA)
  std::int64_t ls_evaluations = 0;  // Solis-Wets (n_LS)
  std::int64_t ls_applications = 0;
  std::int64_t ls_random_choices = 0;  // applications where S_LS was empty
  std::int64_t restarts = 0;
};

struct Progress {
  std::int64_t evaluations = 0;
  std::int64_t budget = 0;
  double best_fitness = 0.0;
  double elapsed_seconds = 0.0;
};

struct RunResult {
  double best_fitness = 0.0;
  double distance_to_optimum = 0.0;  // Euclidean, of the best individual
  int best_slot = 0;
  RunCounters counters;
  double wall_seconds = 0.0;
  PhaseTimers phases;
};

// n_frec before each SSGA phase, the reference code's rule with r the LS share: the GA gets what
// keeps the LS share at r once the next I_str LS evaluations are spent (<= 0: no GA this round;
// r = 0: no limit).
std::int64_t ssga_evaluations_for_ratio(std::int64_t ga_evaluations, std::int64_t ls_evaluations,
                                        std::int64_t ls_intensity, double ls_ratio);

class MaSwChains {
 public:
  using ProgressFn = std::function<void(const Progress&)>;

  MaSwChains(const Config& config, const Problem& problem, Engine& engine);

  // Step 1: N random individuals, evaluated and sorted.
  void initialize();
  // One round of step 2: an SSGA phase, then one LS application, each cut at the budget.
  void step();
  bool done() const { return counters_.evaluations >= config_.max_evaluations; }
  // initialize(), then step() until the budget is spent; progress after every round.
  RunResult run(const ProgressFn& progress = {});

  RunResult result();
  const Population& population() const { return population_; }
  const RunCounters& counters() const { return counters_; }
  const PhaseTimers& timers() const { return timers_; }

 private:
  void restart_population();

  const Config& config_;
  const Problem& problem_;
  Engine& engine_;
  Population population_;
  CounterRng rng_;
  RunCounters counters_;
  PhaseTimers timers_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace chainsaw
