// chainsaw as a library, the non-template part: a run of MA-SW-Chains on a user objective given
// as a batch evaluation (fitness/external_objective.hpp), with the command line's checkpoints.
// include/chainsaw/chainsaw.hpp adds optimize<Obj> for per-gene objective types on top.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/algorithms/algorithm.hpp"
#include "fitness/external_objective.hpp"
#include "io/parse_value.hpp"

namespace chainsaw {

// Options::algorithm picks the optimizer (docs/algorithms.md: de, jde, pso, ss and their
// fields de_np, de_f, ..., ss_ls_iterations); time_limit_seconds and target_error stop a run
// early. runs must be 1 (call optimize once per seed).
// The run's settings: every algorithm parameter of Config under its name (population_size,
// batch, blx_alpha, ..., ls_intensity, ls_ratio; docs/algorithm.md),
// the budget max_evaluations, seed, backend (kAuto takes the GPU when there is one and the
// objective has a device callback), threads (0: OpenMP's default; > 0 calls
// omp_set_num_threads for the process), and dim, the number of variables (0: the objective's).
// Config's function, instance and problem_seed name the problem of optimize(options), a
// built-in benchmark function; optimize(objective, options) ignores them.
struct Options : Config {
  Options() { dim = 0; }
  std::string checkpoint;               // HDF5 checkpoint file, as --checkpoint; empty: none
  CheckpointInterval checkpoint_every;  // as --checkpoint-every: seconds or evaluations
  // A checkpoint to continue (as `chainsaw resume`): the algorithm parameters and the seed are
  // the file's, the budget (max_evaluations, not below what is done) and threads these
  // options'; the objective must have the checkpoint's name and dimension.
  std::string resume_from;
  // Called on the host loop's thread after the initial population and after every round.
  std::function<void(const Progress&)> progress;
  bool progress_best_genes = false;  // Progress::best_genes filled for `progress`
  // Asked on the host loop's thread at every safe point (between two units of the loop): true
  // stops the run there, after the checkpoint (when Options::checkpoint names one); the result
  // is then that of the evaluations done, with Result::stopped set. Empty: never stops.
  std::function<bool()> stop_requested;
  // Called on the host loop's thread at every safe point, before stop_requested, with the
  // algorithm between two units (write_checkpoint may save it there). Empty: nothing.
  std::function<void(Algorithm&)> at_safe_point;
  // As --profile: time every engine pass; Result::json's `profile` holds the buckets.
  bool profile = false;
};

// One point of Result::trace: the best fitness after this many evaluations and seconds.
struct TracePoint {
  std::int64_t evaluations = 0;
  double seconds = 0.0;
  double best_fitness = 0.0;
};

struct Result {
  double best_fitness = 0.0;
  std::vector<real_t> best_genes;  // the best individual, dim genes
  double best_error = 0.0;         // best_fitness - the objective's optimum value; NaN: unknown
  RunCounters evaluations;         // total, GA, LS, LS applications, restarts
  // Values that were NaN or -inf, ranked last (in this process: a resumed run counts anew).
  std::int64_t invalid_evaluations = 0;
  double wall_seconds = 0.0;   // the run (of a resumed run: all segments together)
  double setup_seconds = 0.0;  // building the engine
  std::map<std::string, double> phase_seconds;  // initialization, distances, crossover, ...
  Backend backend = Backend::kCpu;  // the one that ran
  std::string device;               // the GPU's name; empty on the CPU
  int threads = 1;
  std::int64_t resumed_at_evaluations = 0;  // 0: a fresh run
  StopRecord stop;  // why the run ended (budget, time_limit, target_error) and when it reached
                    // Options::target_error
  // Euclidean distance of the best individual to the optimum o; NaN for a user objective.
  double distance_to_optimum = std::numeric_limits<double>::quiet_NaN();
  bool stopped = false;           // Options::stop_requested ended the run before its budget
  // Rounds after the initial population: MA-SW-Chains' (a GA phase and its LS application), the
  // generations of DE, jDE and PSO, the iterations of Scatter Search (this segment's, resumed).
  std::int64_t iterations = 0;
  std::vector<TracePoint> trace;  // the convergence curve, as the result file's `trace`
  // The result file `chainsaw run` writes for this run (the same JSON, indented by 2, ending
  // in a newline): for a built-in function the command line's, wall-clock fields aside.
  std::string json;
};

// Runs MA-SW-Chains on `objective`. Throws UserError (one line) for wrong use: a null or
// missing callback, a dimension of 0 or other than the objective's, a domain that is not a
// finite interval, a bad parameter, a checkpoint that does not match.
Result optimize(const BatchObjective& objective, const Options& options);

// Runs MA-SW-Chains on the built-in benchmark function Options::function (`chainsaw functions`)
// over Options::dim variables (0: the command line's default, 100000), with its shift from
// Options::problem_seed (0: the seed) or its CEC 2010 instance from Options::instance: the
// command line's `chainsaw run` on the same settings, bit for bit. With resume_from the
// function, dimension and instance are the checkpoint's (Options::function and dim, when set,
// must match them).
Result optimize(const Options& options);

}  // namespace chainsaw
