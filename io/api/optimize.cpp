#include "io/api/optimize.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/convergence_trace.hpp"
#include "core/gpu/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "core/profiling.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/profile_report.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/run/threads.hpp"
#include "io/results/result_json.hpp"
#include "io/run/run_driver.hpp"

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

// The checkpoint's configuration for a resume, checked against the options: the command
// line's `chainsaw resume` (one process) with the budget and threads of the options.
Config resumed_config(const CheckpointHeader& header, const std::string& path,
                      const Options& options, Backend& backend, std::int64_t& resumed_at) {
  const std::string where = "Options::resume_from = " + path + ": ";
  if (options.max_evaluations < header.summary.evaluations)
    throw UserError(where + "max_evaluations = " + std::to_string(options.max_evaluations) +
                    " is below the " + std::to_string(header.summary.evaluations) +
                    " evaluations done already");
  if (options.backend != Backend::kAuto && options.backend != header.backend)
    throw UserError(where + "written by the " + backend_name(header.backend) +
                    " backend, whose random streams only it can continue");
  if (header.islands)
    throw UserError(where + "the checkpoint is an island of a --distribute islands run: "
                    "continue it with mpirun and chainsaw resume --distribute islands");
  Config c = header.config;
  c.max_evaluations = options.max_evaluations;
  c.threads = options.threads;
  c.backend = header.backend;
  c.distribute = Distribute::kNone;  // one process continues a sharded run too
  backend = header.backend == Backend::kCuda ? resolve_backend(Backend::kCuda) : Backend::kCpu;
  resumed_at = header.summary.evaluations;
  return c;
}

// The result file of a finished run, as `chainsaw run` writes it (wall-clock fields aside).
std::string result_file(const Config& config, const Options& options, const Result& out,
                        const RunResult& r, const ConvergenceTrace& trace,
                        const ProfileReport* profile) {
  RunEnvironment env;
  env.backend = out.backend;
  env.device = out.device;
  env.threads = out.threads;
  env.setup_seconds = out.setup_seconds;
  env.checkpoint = options.checkpoint;
  env.resumed_from = options.resume_from;
  env.resumed_at_evaluations = out.resumed_at_evaluations;
  return result_to_json(config, env, r, &trace, profile).dump(2) + "\n";
}

// What every algorithm's run gives the Result; optimum_value NaN: unknown (a user objective).
void fill_result(Result& out, const RunResult& r, const ConvergenceTrace& trace,
                 double optimum_value) {
  out.best_fitness = r.best_fitness;
  out.best_error = r.best_fitness - optimum_value;
  out.distance_to_optimum = r.distance_to_optimum;
  out.evaluations = r.counters;
  out.wall_seconds = r.wall_seconds;
  out.stop = r.stop;
  for (std::size_t p = 0; p < static_cast<std::size_t>(Phase::kCount); ++p)
    out.phase_seconds[phase_name(static_cast<Phase>(p))] = r.phases.seconds(static_cast<Phase>(p));
  for (const ConvergenceTrace::Point& p : trace.points())
    out.trace.push_back({p.evaluations, p.seconds, p.best_fitness});
}

// The run itself, on either kind of problem, through the run driver (io/run/run_driver.hpp)
// with the options' progress, stop and checkpoint hooks; `out` comes with its
// resumed_at_evaluations set.
Result run_problem(const Config& config, const Problem& problem, Backend backend,
                   const Options& options, Result out) {
  if (config.runs > 1) throw UserError("Options::runs: call optimize once per seed");
  if ((options.checkpoint_every.evaluations > 0 || options.checkpoint_every.seconds > 0.0) &&
      options.checkpoint.empty())
    throw UserError("Options::checkpoint_every is set but Options::checkpoint names no file");
  if (!options.checkpoint.empty())
    check_checkpoint_writable("Options::checkpoint", options.checkpoint);

  out.threads = use_threads("Options::threads", config.threads);
  out.backend = backend;
  if (backend == Backend::kCuda) out.device = query_cuda_device().name;

  DriveOptions d;
  d.checkpoint = options.checkpoint;
  d.checkpoint_flag = "Options::checkpoint";
  d.checkpoint_every = options.checkpoint_every;
  d.resume_from = options.resume_from;
  d.profile = options.profile;
  d.best_genes = true;
  d.stop_requested = options.stop_requested;
  d.at_safe_point = options.at_safe_point;
  d.progress_best_genes = options.progress_best_genes;
  d.on_progress = options.progress;
  const DrivenRun run = drive_run(config, backend, [&problem] { return problem; }, d);
  out.setup_seconds = run.setup_seconds;
  // A stop rule (time limit, target error) ends the run as its budget would; only
  // Options::stop_requested leaves it open.
  out.stopped = !run.finished;
  out.best_genes = run.best_genes;
  out.invalid_evaluations = run.invalid_evaluations;
  out.iterations = std::max<std::int64_t>(0, run.trace.reports() - 1);
  fill_result(out, run.result, run.trace, problem.optimum_value);
  const ProfileReport* profile = run.profile ? &*run.profile : nullptr;
  out.json = result_file(config, options, out, run.result, run.trace, profile);
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
    // Without a host callback there is no CPU to fall back to: the GPU path says what it refuses.
    if (objective.host)
      backend = backend_after_auto_fallback(config, backend, [&problem] { return problem; });
  } else {
    const CheckpointHeader header = read_checkpoint_header(options.resume_from);
    const std::string where = "Options::resume_from = " + options.resume_from + ": ";
    if (header.config.function != config.function)
      throw UserError(where + "the checkpoint holds a run on '" + header.config.function +
                      "', not on '" + config.function + "' (pass the same objective and name)");
    if (header.config.dim != config.dim)
      throw UserError(where + "the checkpoint's run has " + std::to_string(header.config.dim) +
                      " variables, the objective " + std::to_string(config.dim));
    config = resumed_config(header, options.resume_from, options, backend,
                            out.resumed_at_evaluations);
    config.validate();
  }
  return run_problem(config, problem, backend, options, out);
}

Result optimize(const Options& options) {
  Result out;
  Backend backend = Backend::kCpu;
  Config config = options;
  if (options.resume_from.empty()) {
    if (config.dim == 0) config.dim = Config{}.dim;
    if (is_user_objective_name(config.function))
      throw UserError("Options::function = " + config.function +
                      ": a user objective runs through optimize(objective, options)");
    config.validate();
    const Backend resolved = resolve_backend(config.backend);
    const Problem problem = make_problem(config);
    backend = backend_after_auto_fallback(config, resolved, [&problem] { return problem; });
    return run_problem(config, problem, backend, options, out);
  }
  const CheckpointHeader header = read_checkpoint_header(options.resume_from);
  if (is_user_objective_name(header.config.function))
    throw UserError("Options::resume_from = " + options.resume_from +
                    ": the checkpoint holds a run on the user objective '" +
                    header.config.function.substr(std::string(kUserObjectivePrefix).size()) +
                    "': resume it through optimize(objective, options)");
  config = resumed_config(header, options.resume_from, options, backend,
                          out.resumed_at_evaluations);
  config.validate();
  return run_problem(config, checkpoint_problem(header), backend, options, out);
}

}  // namespace chainsaw
