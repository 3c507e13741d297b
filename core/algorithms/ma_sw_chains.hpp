// MA-SW-Chains, the host loop (Lastra et al. 2014 Fig. 2 and 3; algorithm.md "The loop"):
// alternate a steady-state GA phase of n_frec evaluations with one Solis-Wets application of
// I_str evaluations, keeping the LS share at r_L/G, until exactly the evaluation budget is spent.
// It runs unchanged on every Engine.
//
// The loop advances in units: one crossover batch or one LS application. Between two units the
// whole state is the population, the engine's arrays and RNG, and a LoopState; that is where
// checkpoints are taken, and a run restored there continues exactly as if it had not stopped.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/algorithms/algorithm.hpp"
#include "core/config.hpp"
#include "core/engines/engine.hpp"
#include "core/population.hpp"
#include "core/rng.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

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

class MaSwChains : public Algorithm {
 public:
  MaSwChains(const Config& config, const Problem& problem, Engine& engine);
  // The same on an engine it owns (make_algorithm's).
  MaSwChains(const Config& config, const Problem& problem, std::unique_ptr<Engine> engine);

  // One round of step 2: the rest of an SSGA phase, then one LS application.
  void step();
  // True when the budget will cut the next unit shorter than it would be with a larger budget
  // (a batch, an LS application, or the restart after it). Checkpoints taken before such a unit
  // resume with a larger budget exactly as a run that had the larger budget from the start.
  bool next_unit_cut_by_budget() const override;
  RunResult result() override;
  double best_fitness() const override { return population_.best_fitness(); }
  std::vector<real_t> best_genes() const override;
  std::int64_t invalid_evaluations() const override {
    return engine_.invalid_evaluations() + invalid_;  // invalid_: the given initial points'
  }
  int population_size() const override { return population_.size(); }
  void set_profile(KernelProfile* profile) override;
  void flush_profile() override;

  const Population& population() const { return population_; }
  Engine& engine() { return engine_; }
  // An individual from another island (--distribute islands) takes the worst member's slot:
  // evaluated there, with a fresh chain, and sorted in. Not counted in the budget: the sender
  // evaluated it already. Returns its fitness on this island. Untimed: the caller times the
  // whole exchange as Phase::kMigration.
  double immigrate(const real_t* genes);

  LoopState loop_state() const;
  // A checkpoint's state: the population's records and the loop's; the engine is restored
  // separately. The budget is the Config's, which may exceed the original one.
  void restore(const Population& population, const LoopState& state);

 protected:
  // Step 1: N random individuals, evaluated and sorted.
  void initialize_population() override;
  // One unit: a crossover batch of the SSGA phase, or the LS application (and restart) that
  // ends a round. Cut at the budget.
  void advance_unit(std::int64_t evaluations_left) override;
  // A round's end, and a trace point at each --milestones mark.
  bool at_progress_point() const override {
    return last_unit_ended_round_ || milestones_.size() > milestones_before_unit_;
  }

 private:
  void begin_round();
  void local_search_unit();
  void restart_population();
  // The evaluations the next unit may reach: the next --milestones mark after those done, or
  // the budget.
  std::int64_t unit_limit() const;
  // Records the --milestones marks among the last `count` evaluations: one a unit ended on
  // (units are cut there) with the population's best; one inside a restart's new members
  // (fitness `fresh`, in order) with the kept best and the members evaluated up to it.
  void record_milestones(double kept_best, const double* fresh, std::int64_t count);

  std::unique_ptr<Engine> owned_engine_;  // null when the caller owns the engine
  Engine& engine_;
  Population population_;
  CounterRng rng_;
  LoopStage stage_ = LoopStage::kGeneticAlgorithm;
  std::int64_t ga_phase_left_ = 0;
  bool last_unit_ended_round_ = false;
  std::vector<MilestonePoint> milestones_;
  std::size_t milestones_before_unit_ = 0;
};

}  // namespace chainsaw
