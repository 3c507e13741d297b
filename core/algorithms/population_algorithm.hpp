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

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/algorithms/algorithm.hpp"
#include "core/config.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

// The algorithms that keep their population on the host (or drive their own GPU kernels) and
// are checkpointed as named arrays: DE, jDE, PSO, Scatter Search.
class PopulationAlgorithm : public Algorithm {
 public:
  PopulationAlgorithm(const Config& config, const Problem& problem);
  RunResult result() override;

  // The state between two units (checkpoints) and its restoration into an algorithm built from
  // the same Config (a larger budget allowed) and problem. restore throws UserError for a
  // state of another shape.
  AlgorithmState save_state() const;
  void restore_state(const AlgorithmState& state);

 protected:
  void initialize_population() final;
  virtual void initialize_members() = 0;  // adds its evaluations to counters_
  virtual void save_arrays(AlgorithmState& state) const = 0;
  virtual void restore_arrays(const AlgorithmState& state) = 0;

  // f of `rows` rows of dim genes (row r at genes + r * dim) into out: a user objective gets
  // them in one batch call, the built-in functions are evaluated a row per OpenMP iteration.
  void evaluate_rows(const real_t* genes, int rows, double* out);
  // Counts `rows` evaluations of the GA side whose values are `fitness`, in the order that
  // counts them, and records the --milestones they pass (DE, jDE, PSO, sep-CMA-ES, SHADE, L-SHADE).
  void count_ga_evaluations(const double* fitness, int rows);
  // f of `rows` rows made by a local search (MTS-LS1, L-BFGS-B), counted as they are made, so
  // that a mark inside an application is read at its exact evaluation.
  void evaluate_ls_rows(const real_t* genes, int rows, double* out);
  // A stored array of the expected size, or UserError.
  static const std::vector<real_t>& genes_of(const AlgorithmState& s, const std::string& name,
                                             std::size_t size) {
    return state_genes(s, name, size);
  }
  static const std::vector<double>& reals_of(const AlgorithmState& s, const std::string& name,
                                             std::size_t size) {
    return state_reals(s, name, size);
  }
  static std::int64_t integer_of(const AlgorithmState& s, const std::string& name) {
    return state_integer(s, name);
  }

 private:
  // --milestones: the best of every evaluation so far, read at each mark this batch passes
  // (counters_.evaluations not yet counting it; the CEC protocols' records).
  void record_milestones(const double* fitness, int rows);
  // The best value evaluated so far (restored as best_fitness(): every algorithm here keeps
  // its best), and the marks of this run's segment.
  double best_evaluated_ = std::numeric_limits<double>::infinity();
  std::vector<MilestonePoint> milestones_;
};

// The algorithm's implementation for the resolved backend (config.algorithm must not be
// MA-SW-Chains, nor runs_on_cpu_only on CUDA: validate and --backend auto see to it): the CPU's, or the CUDA population-parallel path
// (core/engines/cuda/population_cuda.hpp), which throws UserError for what it does not run.
std::unique_ptr<PopulationAlgorithm> make_population_algorithm(const Config& config,
                                                               const Problem& problem,
                                                               Backend resolved);

// Whether the CUDA population path runs `config`'s algorithm on `problem` (DE, jDE, PSO, SS and
// sep-CMA-ES: core/engines/cuda/population_cuda.hpp); `why` (may be null) says what does not.
// False without CUDA.
bool population_runs_on_cuda(const Config& config, const Problem& problem, std::string* why);

// f(x) of a built-in function on one thread: evaluate_host's value bit for bit (one chunk of
// kHostChunk genes is its whole reduction), without its per-call parallel region and buffer,
// which cost more than the sum itself at the small D of the population algorithms. Larger D,
// CEC 2010 functions and user objectives go through evaluate_host.
double evaluate_row_serial(const Problem& problem, const real_t* x);

// Euclidean distance of x to the optimum o (NaN for a user objective, whose o is unknown).
double host_distance_to_optimum(const Problem& problem, const real_t* x);

}  // namespace chainsaw
