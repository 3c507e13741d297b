// MA-SW-Chains, the host loop (seed 003 Fig. 2 and Fig. 3; algorithm.md "The loop"):
// alternate a steady-state GA phase of n_frec evaluations with one Solis-Wets application of
// I_str evaluations, keeping the LS share at r_L/G, until exactly the evaluation budget is spent.
// It runs unchanged on every Engine.
//
// The loop advances in units: one crossover batch or one LS application. Between two units the
// whole state is the population, the engine's arrays and RNG, and a LoopState; that is where
// checkpoints are taken, and a run restored there continues exactly as if it had not stopped.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/algorithms/stopping.hpp"
#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/profiling.hpp"
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

// The best after exactly `evaluations` (--milestones; the competitions' records).
struct MilestonePoint {
  std::int64_t evaluations = 0;
  double seconds = 0.0;
  double best_fitness = 0.0;
};

struct RunResult {
  double best_fitness = 0.0;
  double distance_to_optimum = 0.0;  // Euclidean, of the best individual
  int best_slot = 0;
  RunCounters counters;
  double wall_seconds = 0.0;  // all segments of a resumed run together
  PhaseTimers phases;
  StopRecord stop;  // why the run ended before its budget, and when it reached --target-error
  std::vector<MilestonePoint> milestones;  // those this run (of a resumed one, its segment) reached
};

// Which unit comes next.
enum class LoopStage : int {
  kGeneticAlgorithm = 0,  // a crossover batch of the current SSGA phase
  kLocalSearch = 1,       // the round's Solis-Wets application
};

// The host loop's state between two units, besides the population.
struct LoopState {
  RunCounters counters;
  PhaseTimers timers;
  std::uint64_t rng_state = 0;  // the host decisions' generator
  bool rng_has_spare = false;
  double rng_spare = 0.0;
  LoopStage stage = LoopStage::kGeneticAlgorithm;
  std::int64_t ga_phase_left = 0;  // evaluations left in this round's SSGA phase
  double elapsed_seconds = 0.0;
};

// n_frec before each SSGA phase, the reference code's rule with r the LS share: the GA gets what
// keeps the LS share at r once the next I_str LS evaluations are spent (<= 0: no GA this round;
// r = 0: no limit).
std::int64_t ssga_evaluations_for_ratio(std::int64_t ga_evaluations, std::int64_t ls_evaluations,
                                        std::int64_t ls_intensity, double ls_ratio);

class MaSwChains {
 public:
  using ProgressFn = std::function<void(const Progress&)>;
  // Called between units once initialised; returning false stops the run there.
  using SafePointFn = std::function<bool(MaSwChains&)>;

  MaSwChains(const Config& config, const Problem& problem, Engine& engine);

  // Step 1: N random individuals, evaluated and sorted.
  void initialize();
  // One unit: a crossover batch of the SSGA phase, or the LS application (and restart) that
  // ends a round. Cut at the budget.
  void advance();
  // One round of step 2: the rest of an SSGA phase, then one LS application.
  void step();
  bool done() const { return counters_.evaluations >= config_.max_evaluations; }
  bool initialized() const { return initialized_; }
  // True when the budget will cut the next unit shorter than it would be with a larger budget
  // (a batch, an LS application, or the restart after it). Checkpoints taken before such a unit
  // resume with a larger budget exactly as a run that had the larger budget from the start.
  bool next_unit_cut_by_budget() const;
  // initialize() unless restored, then advance() until the budget is spent or `at_safe_point`
  // says stop; progress after every round.
  RunResult run(const ProgressFn& progress = {}, const SafePointFn& at_safe_point = {});

  RunResult result();
  const Config& config() const { return config_; }
  const Problem& problem() const { return problem_; }
  const Population& population() const { return population_; }
  const RunCounters& counters() const { return counters_; }
  const PhaseTimers& timers() const { return timers_; }
  Engine& engine() { return engine_; }
  // An individual from another island (--distribute islands) takes the worst member's slot:
  // evaluated there, with a fresh chain, and sorted in. Not counted in the budget: the sender
  // evaluated it already. Returns its fitness on this island. Untimed: the caller times the
  // whole exchange as Phase::kMigration.
  double immigrate(const real_t* genes);
  // Time spent outside the loop on its behalf (checkpoint I/O, migration).
  void add_phase_time(Phase phase, double seconds) { timers_.add(phase, seconds); }

  LoopState loop_state() const;
  // A checkpoint's state: the population's records and the loop's; the engine is restored
  // separately. The budget is the Config's, which may exceed the original one.
  void restore(const Population& population, const LoopState& state);

 private:
  void begin_round();
  void local_search_unit();
  void restart_population();
  double elapsed_seconds() const;
  // The evaluations the next unit may reach: the next --milestones mark after those done, or
  // the budget.
  std::int64_t unit_limit() const;
  // Records the --milestones marks among the last `count` evaluations: one a unit ended on
  // (units are cut there) with the population's best; one inside a restart's new members
  // (fitness `fresh`, in order) with the kept best and the members evaluated up to it.
  void record_milestones(double kept_best, const double* fresh, std::int64_t count);

  const Config& config_;
  const Problem& problem_;
  Engine& engine_;
  Population population_;
  CounterRng rng_;
  RunCounters counters_;
  PhaseTimers timers_;
  LoopStage stage_ = LoopStage::kGeneticAlgorithm;
  std::int64_t ga_phase_left_ = 0;
  bool initialized_ = false;
  std::chrono::steady_clock::time_point start_;
  std::vector<MilestonePoint> milestones_;
};

}  // namespace chainsaw
