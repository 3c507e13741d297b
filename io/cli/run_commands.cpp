#include "io/cli/run_commands.hpp"

#include <omp.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "core/distributed/islands.hpp"
#include "core/gpu/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/cli/memory_check.hpp"
#include "io/cli/profile_report.hpp"
#include "io/results/output_file.hpp"
#include "io/run/many_runs.hpp"
#include "io/run/run_driver.hpp"
#include "io/run/threads.hpp"

namespace chainsaw::cli {

namespace {

std::string summary_line(const Config& c, const RunEnvironment& env, const RunResult& r,
                         const std::string& output) {
  const std::string where =
      env.backend == Backend::kCuda ? "cuda: " + env.device : fmt::format("cpu, {} threads", env.threads);
  // MA-SW-Chains' line names no algorithm: it was the only one when the line took its form.
  const std::string algorithm = c.algorithm == AlgorithmKind::kMaSwChains
                                    ? std::string()
                                    : std::string(algorithm_name(c.algorithm)) + " ";
  return fmt::format(
      "chainsaw: {}{} D={}: best {:.6e}, distance to optimum {:.6e}, {} evaluations in {:.2f} s "
      "({}){}",
      algorithm, c.function, c.dim, r.best_fitness, r.distance_to_optimum, r.counters.evaluations,
      r.wall_seconds, where, output.empty() ? "" : " -> " + output);
}

// The run itself, fresh or resumed (io/run/run_driver.hpp): `make` builds the problem (a
// resume's comes from the checkpoint), `resume_from` names the checkpoint to continue.
// env.checkpoint is where this rank checkpoints; `restored` the island record of a resumed
// island. Writes the result file and the summary line; returns the exit code.
int execute(const Config& config, RunEnvironment env, const RunOptions& o,
            const std::function<Problem()>& make, const std::string& resume_from = {},
            const Ranks& ranks = {},
            const std::optional<IslandState>& restored = std::nullopt) {
  env.threads = use_threads("--threads", config.threads);
  DriveOptions d;
  d.checkpoint = env.checkpoint;
  d.checkpoint_every = o.checkpoint_every;
  d.resume_from = resume_from;
  d.restored_islands = restored;
  d.profile = o.profile;
  d.progress_line = !o.quiet && ::isatty(STDERR_FILENO);
  d.catch_signals = true;
  const DrivenRun run = drive_run(config, env.backend, make, d, ranks);
  env.setup_seconds = run.setup_seconds;
  const RunResult& result = run.result;
  if (!run.finished) {
    const char* name = run.signal == SIGINT ? "SIGINT" : "SIGTERM";
    const std::string saved =
        o.checkpoint.empty()
            ? "no --checkpoint was given, nothing is saved"
            : fmt::format("checkpoint written to {}{}; continue with: {}", env.checkpoint,
                          ranks.islands() ? " (and one per other island)" : "",
                          ranks.resume_command(o.checkpoint));
    if (ranks.root())
      std::fprintf(stderr, "chainsaw: interrupted by %s after %lld evaluations (best %.6e); %s\n",
                   name, static_cast<long long>(result.counters.evaluations),
                   result.best_fitness, saved.c_str());
    return 128 + run.signal;
  }
  const ProfileReport* profile = run.profile ? &*run.profile : nullptr;
  ranks.agree([&] {
    if (!ranks.root()) return;
    const std::string json = result_to_json(config, env, result, &run.trace, profile,
                                            ranks.comm ? &run.distributed : nullptr)
                                 .dump(2) +
                             "\n";
    write_file_atomically("--output", o.output.empty() ? "-" : o.output, json);
  });
  if (!o.quiet && ranks.root()) {
    std::fprintf(stderr, "%s\n", summary_line(config, env, result, o.output).c_str());
    if (profile) std::fputs(profile_table(*profile).c_str(), stderr);
  }
  return 0;
}

}  // namespace

// Output and checkpoint paths are probed before any work starts; only rank 0 writes the output.
// Two outputs on one file would destroy one of them: refused.
void check_paths(const std::string& output, const std::string& checkpoint) {
  if (!output.empty()) check_output_writable("--output", output);
  if (!checkpoint.empty()) check_checkpoint_writable("--checkpoint", checkpoint);
  check_distinct_outputs({{"--output", output}, {"--checkpoint", checkpoint}});
}

namespace {

// A distributed run, before anything else touches CUDA: each rank takes a GPU of its host.
void select_rank_gpu(const Config& config, const Ranks& ranks) {
  if (ranks.comm && config.backend != Backend::kCpu) select_cuda_device(ranks.comm->node_rank());
}

// A sharded CUDA run lays the genes out in a slice per rank; a resumed one must have been.
void lay_out_shards(Config& config, const Ranks& ranks, Backend backend, bool resuming) {
  if (backend != Backend::kCuda || ranks.mode != Distribute::kShard) return;
  if (resuming && config.gpu_slices != ranks.size())
    throw UserError(fmt::format(
        "the checkpoint lays the genes out in {} GPU slice(s): resume it with mpirun -np {} "
        "--distribute shard, or without --distribute on one GPU",
        config.gpu_slices, config.gpu_slices));
  if (config.gpu_slices != 1 && config.gpu_slices != ranks.size())
    throw UserError(fmt::format("--gpu-slices = {}: a sharded run on {} GPUs has {} slices",
                                config.gpu_slices, ranks.size(), ranks.size()));
  config.gpu_slices = ranks.size();
}

// --backend auto: the CPU where the GPU does not run the algorithm on the problem.
void fall_back_to_cpu(const Config& config, RunEnvironment& env) {
  env.backend = backend_after_auto_fallback(config, env.backend,
                                            [&config] { return make_problem(config); });
  if (env.backend == Backend::kCpu) env.device.clear();
}

}  // namespace

int run_command(const RunOptions& o, const Ranks& ranks) {
  Config config = o.config;
  RunEnvironment env;
  ranks.agree([&] {
    config.validate();
    check_thread_count("--threads", config.threads);
    if (ranks.comm && (config.algorithm != AlgorithmKind::kMaSwChains || config.runs > 1))
      throw UserError(fmt::format("--distribute {}: only --algorithm ma-sw-chains with --runs 1 "
                                  "runs distributed",
                                  distribute_name(ranks.mode)));
    if (config.runs > 1 && !o.checkpoint.empty())
      throw UserError(fmt::format("--checkpoint = {}: not with --runs {} (checkpoint the runs "
                                  "one by one)",
                                  o.checkpoint, config.runs));
    if (ranks.islands()) config = island_config(config, ranks.rank());
    env.checkpoint = ranks.checkpoint_path(o.checkpoint);
    check_paths(ranks.root() ? o.output : "", env.checkpoint);
    select_rank_gpu(config, ranks);
    env.backend = resolve_backend(config.backend);
    lay_out_shards(config, ranks, env.backend, false);
    if (o.dry_run) return;
    if (env.backend == Backend::kCuda) {
      env.device = query_cuda_device().name;
    } else {
      check_host_memory(config, ranks.shard_ranks());
    }
  });
  if (o.dry_run) return dry_run(config, env.backend, ranks.root(), ranks.shard_ranks());
  fall_back_to_cpu(config, env);
  if (config.runs > 1) {
    RunsOptions runs;
    runs.output = o.output;
    runs.quiet = o.quiet;
    runs.profile = o.profile;
    return run_many(config, env, runs);
  }
  return execute(config, env, o, [&config] { return make_problem(config); }, {}, ranks);
}

// A resume needs the backend that wrote the checkpoint: its GPU, or the host memory it takes.
void check_resume_machine(const std::string& file, const Config& config, int shard_ranks,
                          RunEnvironment& env) {
  if (env.backend != Backend::kCuda) {
    check_host_memory(config, shard_ranks);
    return;
  }
  const DeviceInfo device = query_cuda_device();
  if (!device.available)
    throw UserError("checkpoint " + file + " was written by the cuda backend and this "
                    "machine has no usable GPU (" + device.reason + ")");
  env.device = device.name;
}

// A resume's flags against the checkpoint `file` it continues: one line for a flag that names
// another run (--function, --dim, --distribute).
[[noreturn]] void resume_mismatch(const std::string& file, const std::string& flag,
                                  const std::string& given, const std::string& saved) {
  throw UserError(fmt::format("{} = {}: the checkpoint {} holds a run with {} {}", flag, given,
                              file, flag.substr(2), saved));
}

// The checkpoint's configuration with what a resume may change: a larger budget and the
// threads; --function and --dim must be the run's, and the backend the one that wrote it.
void apply_resume_flags(const ResumeOptions& r, const CheckpointHeader& header,
                        const std::string& file, Config& config) {
  if (r.function && *r.function != config.function)
    resume_mismatch(file, "--function", *r.function, config.function);
  if (r.dim && *r.dim != config.dim)
    resume_mismatch(file, "--dim", std::to_string(*r.dim), std::to_string(config.dim));
  if (r.evaluations) {
    if (*r.evaluations < header.summary.evaluations)
      throw UserError(fmt::format("--evals = {}: the checkpoint {} has {} evaluations done already",
                                  *r.evaluations, file, header.summary.evaluations));
    config.max_evaluations = *r.evaluations;
  }
  if (r.threads) config.threads = *r.threads;
  // Each backend draws its random numbers its own way: a run continues where it started.
  if (r.backend && *r.backend != Backend::kAuto && *r.backend != header.backend)
    throw UserError(fmt::format(
        "--backend = {}: the checkpoint {} was written by the {} backend, whose random "
        "streams only it can continue",
        backend_name(*r.backend), file, backend_name(header.backend)));
  config.backend = header.backend;
}

int resume_command(ResumeOptions& r, const Ranks& ranks) {
  // An islands run keeps a file per island: rank r continues island r.
  const std::string file = ranks.checkpoint_path(r.file);
  CheckpointHeader header;
  Config config;
  RunEnvironment env;
  if (r.run.checkpoint.empty()) r.run.checkpoint = r.file;
  ranks.agree([&] {
    header = read_checkpoint_header(file);
    config = header.config;
    if (ranks.comm && config.algorithm != AlgorithmKind::kMaSwChains)
      throw UserError("checkpoint " + file + ": only MA-SW-Chains runs resume distributed");
    if (is_user_objective_name(config.function))
      throw UserError(fmt::format(
          "checkpoint {} holds a run on the user objective '{}': resume it through "
          "chainsaw::optimize with Options::resume_from",
          file, config.function.substr(std::string(kUserObjectivePrefix).size())));
    if (header.islands && !ranks.islands())
      throw UserError(fmt::format(
          "checkpoint {} is island {} of a --distribute islands run of {} ranks: continue all "
          "islands together with mpirun -np {} chainsaw resume <its --checkpoint> --distribute "
          "islands",
          file, header.islands->rank, header.islands->ranks, header.islands->ranks));
    // A sharded run's file is a one-process run's file: either continues the other, on any
    // number of ranks (docs/distributed.md). Islands keep a file each and stay islands.
    if (ranks.islands() != (config.distribute == Distribute::kIslands))
      resume_mismatch(file, "--distribute", distribute_name(ranks.mode),
                      distribute_name(config.distribute));
    config.distribute = ranks.mode;
    if (header.islands && header.islands->ranks != ranks.size())
      throw UserError(fmt::format(
          "checkpoint {} is island {} of a run on {} ranks and this job has {}: islands resume "
          "on the number of ranks that wrote them (mpirun -np {})",
          file, header.islands->rank, header.islands->ranks, ranks.size(),
          header.islands->ranks));
    if (header.islands && header.islands->rank != ranks.rank())
      throw UserError(fmt::format("checkpoint {} holds island {}, not island {}", file,
                                  header.islands->rank, ranks.rank()));
    apply_resume_flags(r, header, file, config);
    config.validate();
    check_thread_count("--threads", config.threads);
    env.checkpoint = ranks.checkpoint_path(r.run.checkpoint);
    check_paths(ranks.root() ? r.run.output : "", env.checkpoint);

    env.backend = header.backend;
    select_rank_gpu(config, ranks);
    lay_out_shards(config, ranks, env.backend, true);
    check_resume_machine(file, config, ranks.shard_ranks(), env);
  });
  if (ranks.islands()) {
    // The islands' files must be one point of the run: a set mixed from two checkpoints (a
    // rename that failed on one rank, a file copied from elsewhere) would not move in step.
    double evaluations[2] = {static_cast<double>(header.summary.evaluations),
                             -static_cast<double>(header.summary.evaluations)};
    ranks.comm->allreduce_min(evaluations, 2);
    ranks.agree([&] {
      if (evaluations[0] != -evaluations[1])
        throw UserError(fmt::format(
            "checkpoint {}: the islands' files hold different points of the run ({} to {} "
            "evaluations): they are not one checkpoint",
            r.file, evaluations[0], -evaluations[1]));
    });
  }
  env.resumed_from = r.file;
  env.resumed_at_evaluations = header.summary.evaluations;
  // The embedded instance: the --instance file may be gone or changed since.
  return execute(
      config, env, r.run, [&header] { return checkpoint_problem(header); }, file, ranks,
      header.islands);
}

}  // namespace chainsaw::cli

namespace chainsaw {

using namespace cli;

std::vector<OptionSpec> run_option_specs() {
  CLI::App app;
  RunOptions o;
  add_run_options(app, o);
  return option_specs(app);
}

std::vector<OptionSpec> resume_option_specs() {
  CLI::App app;
  ResumeOptions r;
  add_resume_options(app, r);
  return option_specs(app);
}

RunRequest parse_run_request(const std::vector<std::string>& args) {
  CLI::App app;
  RunOptions o;
  add_run_options(app, o);
  parse_arguments(app, args);
  o.apply_deferred();
  check_flags_apply(app, o);
  return {o.config, o.output, o.quiet, o.profile, o.dry_run, o.checkpoint, o.checkpoint_every};
}

// run_command's checks, for one process.
RunEnvironment check_run_request(RunRequest& request) {
  Config& config = request.config;
  if (config.distribute != Distribute::kNone)
    throw UserError(fmt::format("--distribute = {}: a distributed run starts under mpirun with "
                                "the chainsaw command line",
                                distribute_name(config.distribute)));
  config.validate();
  check_thread_count("--threads", config.threads);
  check_paths(request.output, request.checkpoint);
  RunEnvironment env;
  env.checkpoint = request.checkpoint;
  env.backend = resolve_backend(config.backend);
  if (request.dry_run) return env;
  if (env.backend == Backend::kCuda) {
    env.device = query_cuda_device().name;
  } else {
    check_host_memory(config);
  }
  return env;
}

bool dry_run_request(const RunRequest& request, Backend backend) {
  return dry_run(request.config, backend) == 0;
}

// resume_command's checks, for one process (keep the two in step).
ResumeRequest parse_resume_request(const std::vector<std::string>& args) {
  CLI::App app;
  ResumeOptions r;
  add_resume_options(app, r);
  r.file = "";
  parse_arguments(app, args);
  r.run.apply_deferred();
  if (r.distribute != Distribute::kNone)
    throw UserError(fmt::format("--distribute = {}: a distributed run resumes under mpirun "
                                "with the chainsaw command line",
                                distribute_name(r.distribute)));
  if (r.run.checkpoint.empty()) r.run.checkpoint = r.file;
  const std::string& file = r.file;
  const CheckpointHeader header = read_checkpoint_header(file);
  Config config = header.config;
  if (is_user_objective_name(config.function))
    throw UserError(fmt::format(
        "checkpoint {} holds a run on the user objective '{}': resume it with the objective",
        file, config.function.substr(std::string(kUserObjectivePrefix).size())));
  if (header.islands)
    throw UserError(fmt::format(
        "checkpoint {} is island {} of a --distribute islands run of {} ranks: continue all "
        "islands together with mpirun -np {} chainsaw resume <its --checkpoint> --distribute "
        "islands",
        file, header.islands->rank, header.islands->ranks, header.islands->ranks));
  if (config.distribute == Distribute::kIslands)
    resume_mismatch(file, "--distribute", "none", distribute_name(config.distribute));
  config.distribute = Distribute::kNone;
  apply_resume_flags(r, header, file, config);
  config.validate();
  check_thread_count("--threads", config.threads);
  check_paths(r.run.output, r.run.checkpoint);
  RunEnvironment env;
  env.backend = header.backend;
  env.checkpoint = r.run.checkpoint;
  check_resume_machine(file, config, 1, env);
  env.resumed_from = file;
  env.resumed_at_evaluations = header.summary.evaluations;
  const RunOptions& o = r.run;
  return {{config, o.output, o.quiet, o.profile, false, o.checkpoint, o.checkpoint_every},
          file, env};
}

}  // namespace chainsaw
