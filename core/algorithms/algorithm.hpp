// The one interface of every optimiser (MA-SW-Chains, DE, jDE, PSO, Scatter Search, the SHADE
// family; docs/design.md "Algorithms"). A run advances in units (a crossover batch or a local-search
// application, a generation, an iteration); between two units the algorithm's state is complete,
// which is where the run driver (io/run/) takes checkpoints, migrates, reports progress and
// applies the stopping rules. An algorithm owns its budget accounting and its decisions; the
// driver owns everything around it. A new algorithm derives from Algorithm (or from
// PopulationAlgorithm, for one that keeps its population on the host), implements the unit and
// its state, and is registered in make_algorithm (core/algorithms/algorithm_factory.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/algorithms/stopping.hpp"
#include "core/config.hpp"
#include "core/profiling.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

struct RunCounters {
  std::int64_t evaluations = 0;     // all of them, initial population included
  std::int64_t ga_evaluations = 0;  // initial population + offspring (MA-SW-Chains' n_GA)
  std::int64_t ls_evaluations = 0;  // local search (n_LS)
  std::int64_t ls_applications = 0;
  std::int64_t ls_random_choices = 0;  // applications where S_LS was empty
  std::int64_t restarts = 0;
};

struct Progress {
  std::int64_t evaluations = 0;
  std::int64_t budget = 0;
  double best_fitness = 0.0;
  double elapsed_seconds = 0.0;
  // The best individual, when the run driver was asked for it (DriveOptions::progress_best_genes).
  std::vector<real_t> best_genes;
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

// Everything a checkpoint holds of an algorithm's host state, by name. Exact: integers as int64,
// fitness and parameters as double, genes as real_t.
struct AlgorithmState {
  std::map<std::string, std::int64_t> integers;
  std::map<std::string, std::vector<double>> reals;
  std::map<std::string, std::vector<real_t>> genes;
};

// A stored array of the expected size, or UserError naming it.
const std::vector<real_t>& state_genes(const AlgorithmState& s, const std::string& name,
                                       std::size_t size);
const std::vector<double>& state_reals(const AlgorithmState& s, const std::string& name,
                                       std::size_t size);
std::int64_t state_integer(const AlgorithmState& s, const std::string& name);

class Algorithm {
 public:
  using ProgressFn = std::function<void(const Progress&)>;
  // Called between units once initialised; returning false stops the run there.
  using SafePointFn = std::function<bool(Algorithm&)>;

  // The enum that names an algorithm was called Algorithm before this interface took the name:
  // code that spells its values Algorithm::kDe still compiles (docs/library.md).
  static constexpr AlgorithmKind kMaSwChains = AlgorithmKind::kMaSwChains;
  static constexpr AlgorithmKind kDe = AlgorithmKind::kDe;
  static constexpr AlgorithmKind kJde = AlgorithmKind::kJde;
  static constexpr AlgorithmKind kPso = AlgorithmKind::kPso;
  static constexpr AlgorithmKind kScatterSearch = AlgorithmKind::kScatterSearch;

  Algorithm(const Config& config, const Problem& problem);
  virtual ~Algorithm() = default;
  Algorithm(const Algorithm&) = delete;
  Algorithm& operator=(const Algorithm&) = delete;

  // The initial population, evaluated.
  void initialize();
  // One unit, cut at the budget.
  void advance();
  // The budget is spent or a stopping criterion held.
  bool done() const;
  bool initialized() const { return initialized_; }
  // True when the budget cuts the next unit short: a checkpoint taken before it resumes with a
  // larger budget exactly like a run that had the larger budget from the start.
  virtual bool next_unit_cut_by_budget() const = 0;
  // initialize() unless restored, then advance() until done() or `at_safe_point` says stop;
  // `progress` after initialisation and at every progress point.
  RunResult run(const ProgressFn& progress = {}, const SafePointFn& at_safe_point = {});
  virtual RunResult result();

  const Config& config() const { return config_; }
  const Problem& problem() const { return problem_; }
  const RunCounters& counters() const { return counters_; }
  const PhaseTimers& timers() const { return timers_; }
  const StopRule& stop_rule() const { return stop_; }
  double elapsed_seconds() const;
  virtual double best_fitness() const = 0;
  virtual std::vector<real_t> best_genes() const = 0;
  // Individuals the algorithm keeps (for inspect's "slots").
  virtual int population_size() const = 0;
  // Values that were NaN or -inf, ranked last (in this process: a resumed run counts anew).
  virtual std::int64_t invalid_evaluations() const { return invalid_; }
  // --profile: the backend's passes are timed into these buckets.
  virtual void set_profile(KernelProfile* profile) { profile_ = profile; }
  // Makes the profile's device-side timings final (the GPU's event windows).
  virtual void flush_profile() {}
  // Time spent outside the loop on its behalf (checkpoint I/O, migration).
  void add_phase_time(Phase phase, double seconds) { timers_.add(phase, seconds); }
  // Islands (--distribute islands) end together at the budget: no island stops alone.
  void disable_stop_rule() { stop_enabled_ = false; }

 protected:
  virtual void initialize_population() = 0;  // adds its evaluations to counters_
  virtual void advance_unit(std::int64_t evaluations_left) = 0;
  // Whether the unit just done ends a progress period (MA-SW-Chains: a round).
  virtual bool at_progress_point() const { return true; }

  // The state every algorithm shares (counters, timers, the stop record, the unit count) into
  // and out of `s`; restore also sets the clock and marks the algorithm initialised.
  void save_common_state(AlgorithmState& s) const;
  void restore_common_state(const AlgorithmState& s);
  // After the algorithm's own arrays are back (it needs best_fitness()).
  void restore_stop_record(const AlgorithmState& s);
  // The clock as if the run had been going for `seconds` already (a resumed run).
  void set_elapsed_seconds(double seconds);
  void mark_initialized() { initialized_ = true; }
  // The stopping rules, after a unit (or a restored state): stops the run when one holds.
  void check_stop();

  const Config& config_;
  const Problem& problem_;
  RunCounters counters_;
  PhaseTimers timers_;
  KernelProfile* profile_ = nullptr;
  std::int64_t invalid_ = 0;
  std::int64_t unit_ = 0;  // units done: the operation counter of the random streams

 private:
  StopRule stop_;
  bool stop_enabled_ = true;
  bool initialized_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace chainsaw
