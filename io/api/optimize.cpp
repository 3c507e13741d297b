#include "io/api/optimize.hpp"

#include <omp.h>

#include <chrono>
#include <memory>

#include "core/engines/cuda/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "fitness/problem.hpp"
#include "core/algorithms/population_algorithm.hpp"
#include "io/checkpoint/algorithm_checkpoint.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/results/output_file.hpp"

namespace chainsaw {

namespace {

// kAuto takes the GPU only for an objective that can run there.
Backend choose_backend(Backend requested, const BatchObjective& objective) {
  if (requested == Backend::kCpu || (requested == Backend::kAuto && !objective.device)) {
    if (!objective.host)
      throw UserError("objective '" + objective.name +
                      "' has no host callback, and the CPU backend was asked for or no GPU "
                      "callback is there");
    return Backend::kCpu;
  }
  if (requested == Backend::kAuto && !objective.host) requested = Backend::kCuda;
  return resolve_backend(requested);  // throws for kCuda without a usable GPU
}

// The checkpoint's configuration for a resume, checked against the objective and options.
Config resumed_config(const std::string& path, const Config& fresh, const Options& options,
                      Backend& backend, std::int64_t& resumed_at) {
  const CheckpointHeader header =
      checkpoint_algorithm(path) == algorithm_name(Algorithm::kMaSwChains)
          ? read_checkpoint_header(path)
          : read_algorithm_checkpoint_header(path);
  const Config& saved = header.config;
  const std::string where = "Options::resume_from = " + path + ": ";
  if (saved.function != fresh.function)
    throw UserError(where + "the checkpoint holds a run on '" + saved.function +
                    "', not on '" + fresh.function + "' (pass the same objective and name)");
  if (saved.dim != fresh.dim)
    throw UserError(where + "the checkpoint's run has " + std::to_string(saved.dim) +
                    " variables, the objective " + std::to_string(fresh.dim));
  if (options.max_evaluations < header.summary.evaluations)
    throw UserError(where + "max_evaluations = " + std::to_string(options.max_evaluations) +
                    " is below the " + std::to_string(header.summary.evaluations) +
                    " evaluations done already");
  if (options.backend != Backend::kAuto && options.backend != header.backend)
    throw UserError(where + "written by the " + backend_name(header.backend) +
                    " backend, whose random streams only it can continue");
  Config c = saved;
  c.max_evaluations = options.max_evaluations;
  c.threads = options.threads;
  c.backend = header.backend;
  backend = header.backend == Backend::kCuda ? resolve_backend(Backend::kCuda) : Backend::kCpu;
  resumed_at = header.summary.evaluations;
  return c;
}

// DE, jDE, PSO or SS on the objective: the same options, checkpoints and result.
Result optimize_population(const Problem& problem, const Config& config, const Options& options,
                           Backend backend, Result out) {
  const auto setup_start = std::chrono::steady_clock::now();
  const std::unique_ptr<PopulationAlgorithm> algorithm =
      make_population_algorithm(config, problem, backend);
  if (!options.resume_from.empty()) load_algorithm_checkpoint(options.resume_from, *algorithm);
  out.setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
  AlgorithmCheckpointSchedule schedule("Options::checkpoint", options.checkpoint,
                                       options.checkpoint_every, backend);
  const RunResult r = algorithm->run(
      options.progress, [&schedule](PopulationAlgorithm& a) { return schedule.at_safe_point(a); });
  schedule.at_end(*algorithm);
  out.best_fitness = r.best_fitness;
  out.best_genes = algorithm->best_genes();
  out.best_error = r.best_fitness - problem.optimum_value;
  out.evaluations = r.counters;
  out.invalid_evaluations = algorithm->invalid_evaluations();
  out.wall_seconds = r.wall_seconds;
  out.stop = r.stop;
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    out.phase_seconds[phase_name(static_cast<Phase>(p))] = r.phases.seconds(static_cast<Phase>(p));
  return out;
}

}  // namespace

Result optimize(const BatchObjective& objective, const Options& options) {
  auto shared = std::make_shared<const BatchObjective>(objective);
  const Problem problem = Problem::make_external(shared, options.dim);

  Config config = options;  // the algorithm's fields
  config.function = kUserObjectivePrefix + objective.name;
  config.dim = problem.dim;
  config.instance.clear();
  config.problem_seed = 0;
  Result out;
  Backend backend = Backend::kCpu;
  if (options.resume_from.empty()) {
    config.validate();
    backend = choose_backend(config.backend, objective);
  } else {
    config = resumed_config(options.resume_from, config, options, backend,
                            out.resumed_at_evaluations);
    config.validate();
  }
  if ((options.checkpoint_every.evaluations > 0 || options.checkpoint_every.seconds > 0.0) &&
      options.checkpoint.empty())
    throw UserError("Options::checkpoint_every is set but Options::checkpoint names no file");
  if (!options.checkpoint.empty()) check_output_writable("Options::checkpoint", options.checkpoint);

  if (config.threads > 0) omp_set_num_threads(config.threads);
  out.threads = omp_get_max_threads();
  out.backend = backend;
  if (backend == Backend::kCuda) out.device = query_cuda_device().name;

  if (config.algorithm != Algorithm::kMaSwChains) {
    if (config.runs > 1) throw UserError("Options::runs: call optimize once per seed");
    return optimize_population(problem, config, options, backend, std::move(out));
  }
  const auto setup_start = std::chrono::steady_clock::now();
  const auto engine = make_engine(config, problem, backend);
  MaSwChains algorithm(config, problem, *engine);
  if (!options.resume_from.empty()) load_checkpoint(options.resume_from, algorithm);
  out.setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();

  CheckpointSchedule schedule("Options::checkpoint", options.checkpoint,
                              options.checkpoint_every, backend);
  StopRule stop(config, problem.optimum_value);  // time_limit_seconds, target_error
  RunResult r = algorithm.run(options.progress, [&](MaSwChains& a) {
    if (stop.check(a.counters().evaluations, a.population().best_fitness(),
                   a.loop_state().elapsed_seconds))
      return false;
    return schedule.at_safe_point(a);
  });
  if (algorithm.done()) stop.at_end(r.counters.evaluations, r.best_fitness, r.wall_seconds);
  r.stop = stop.record();
  schedule.at_end(algorithm);
  out.stop = r.stop;

  out.best_fitness = r.best_fitness;
  out.best_genes.resize(static_cast<std::size_t>(problem.dim));
  engine->read_genes(r.best_slot, out.best_genes.data());
  out.best_error = r.best_fitness - problem.optimum_value;  // NaN when the optimum is unknown
  out.evaluations = r.counters;
  out.invalid_evaluations = engine->invalid_evaluations();
  out.wall_seconds = r.wall_seconds;
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    out.phase_seconds[phase_name(static_cast<Phase>(p))] = r.phases.seconds(static_cast<Phase>(p));
  return out;
}

}  // namespace chainsaw
