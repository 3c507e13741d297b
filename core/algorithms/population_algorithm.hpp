// The host loop of the population algorithms beside MA-SW-Chains: DE, jDE, PSO and Scatter
// Search (docs/algorithms.md). Like MaSwChains, a run advances in units (a DE/jDE/PSO
// generation, an SS iteration); between two units the whole state is the algorithm's arrays
// and counters (AlgorithmState), which is where checkpoints are taken and where a run restored
// continues exactly as if it had not stopped. The loop owns the budget, the stopping criteria
// (core/algorithms/stopping.hpp), progress and safe points; each algorithm owns its arrays and
// its generation, built from the shared per-gene math of core/algorithms/population_ops.hpp.
// make_population_algorithm picks the backend's implementation (the CPU's: OpenMP over the
// individuals of a generation; results do not depend on the thread count).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithms/ma_sw_chains.hpp"  // RunCounters, RunResult, Progress
#include "core/algorithms/stopping.hpp"
#include "core/config.hpp"
#include "core/profiling.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// Everything a checkpoint holds of a population algorithm, by name. Exact: integers as int64,
// fitness and parameters as double, genes as real_t.
struct AlgorithmState {
  std::map<std::string, std::int64_t> integers;
  std::map<std::string, std::vector<double>> reals;
  std::map<std::string, std::vector<real_t>> genes;
};

class PopulationAlgorithm {
 public:
  using ProgressFn = std::function<void(const Progress&)>;
  // Called between units once initialised; returning false stops the run there.
  using SafePointFn = std::function<bool(PopulationAlgorithm&)>;

  PopulationAlgorithm(const Config& config, const Problem& problem);
  virtual ~PopulationAlgorithm() = default;
  PopulationAlgorithm(const PopulationAlgorithm&) = delete;
  PopulationAlgorithm& operator=(const PopulationAlgorithm&) = delete;

  // The initial population, evaluated.
  void initialize();
  // One unit, cut at the budget.
  void advance();
  // The budget is spent or a stopping criterion held.
  bool done() const { return counters_.evaluations >= config_.max_evaluations || stop_.stopped(); }
  bool initialized() const { return initialized_; }
  // True when the budget cuts the next unit short: a checkpoint taken before it resumes with a
  // larger budget exactly like a run that had the larger budget from the start.
  virtual bool next_unit_cut_by_budget() const = 0;
  // initialize() unless restored, then advance() until done() or `at_safe_point` says stop.
  RunResult run(const ProgressFn& progress = {}, const SafePointFn& at_safe_point = {});
  RunResult result();

  const Config& config() const { return config_; }
  const Problem& problem() const { return problem_; }
  const RunCounters& counters() const { return counters_; }
  const StopRule& stop_rule() const { return stop_; }
  virtual double best_fitness() const = 0;
  virtual std::vector<real_t> best_genes() const = 0;
  // Individuals the algorithm keeps (for inspect's "slots").
  virtual int population_size() const = 0;
  std::int64_t invalid_evaluations() const { return invalid_; }
  void set_profile(KernelProfile* profile) { profile_ = profile; }
  void add_phase_time(Phase phase, double seconds) { timers_.add(phase, seconds); }

  // The state between two units (checkpoints) and its restoration into an algorithm built from
  // the same Config (a larger budget allowed) and problem. restore throws UserError for a
  // state of another shape.
  AlgorithmState save_state() const;
  void restore_state(const AlgorithmState& state);

 protected:
  virtual void initialize_population() = 0;  // adds its evaluations to counters_
  virtual void advance_unit(std::int64_t evaluations_left) = 0;
  virtual void save_arrays(AlgorithmState& state) const = 0;
  virtual void restore_arrays(const AlgorithmState& state) = 0;

  // f of `rows` rows of dim genes (row r at genes + r * dim) into out: a user objective gets
  // them in one batch call, the built-in functions are evaluated a row per OpenMP iteration.
  void evaluate_rows(const real_t* genes, int rows, double* out);
  // A stored array of the expected size, or UserError.
  static const std::vector<real_t>& genes_of(const AlgorithmState& s, const std::string& name,
                                             std::size_t size);
  static const std::vector<double>& reals_of(const AlgorithmState& s, const std::string& name,
                                             std::size_t size);
  static std::int64_t integer_of(const AlgorithmState& s, const std::string& name);

  double elapsed_seconds() const;

  const Config& config_;
  const Problem& problem_;
  RunCounters counters_;
  PhaseTimers timers_;
  KernelProfile* profile_ = nullptr;
  std::int64_t invalid_ = 0;
  std::int64_t unit_ = 0;  // units done: the operation counter of the random streams

 private:
  StopRule stop_;
  bool initialized_ = false;
  std::chrono::steady_clock::time_point start_;
};

// The algorithm's implementation for the resolved backend (config.algorithm must not be
// MA-SW-Chains): the CPU's, or the CUDA population-parallel path
// (core/engines/cuda/population_cuda.hpp), which throws UserError for what it does not run.
std::unique_ptr<PopulationAlgorithm> make_population_algorithm(const Config& config,
                                                               const Problem& problem,
                                                               Backend resolved);

// Whether the CUDA population path runs `config`'s algorithm on `problem` (DE, jDE and PSO on
// the paper's six functions); `why` (may be null) says what does not. False without CUDA.
bool population_runs_on_cuda(const Config& config, const Problem& problem, std::string* why);

// f(x) of a built-in function on one thread: evaluate_host's value bit for bit (one chunk of
// kHostChunk genes is its whole reduction), without its per-call parallel region and buffer,
// which cost more than the sum itself at the small D of the population algorithms. Larger D,
// CEC 2010 functions and user objectives go through evaluate_host.
double evaluate_row_serial(const Problem& problem, const real_t* x);

// Euclidean distance of x to the optimum o (NaN for a user objective, whose o is unknown).
double host_distance_to_optimum(const Problem& problem, const real_t* x);

}  // namespace chainsaw
