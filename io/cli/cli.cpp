#include "io/cli/cli.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/distributed/agreement.hpp"
#include "core/distributed/communicator.hpp"
#include "core/config.hpp"
#include "core/distributed/islands.hpp"
#if defined(CHAINSAW_MPI)
#include "core/distributed/mpi_communicator.hpp"
#endif
#if defined(CHAINSAW_CUDA)
#include "core/engines/cuda/cuda_engine.hpp"
#endif
#include "core/algorithms/population_algorithm.hpp"
#include "core/gpu/device_info.hpp"
#include "core/engines/engine_factory.hpp"
#include "core/error.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/algorithms/ma_sw_chains.hpp"
#include "core/convergence_trace.hpp"
#include "core/profiling.hpp"
#include "fitness/scheduling/etc_scheduling.hpp"
#include "core/types.hpp"
#include "fitness/problem.hpp"
#include "io/checkpoint/algorithm_checkpoint.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "io/results/output_file.hpp"
#include "io/parse_value.hpp"
#include "io/cli/algorithm_runs.hpp"
#include "io/cli/profile_report.hpp"
#include "io/cli/progress.hpp"
#include "io/results/result_json.hpp"
#include "io/version.hpp"

namespace chainsaw {

namespace {

constexpr int kExitUserError = 2;
constexpr int kExitInternalError = 1;

// A flag whose text goes through our own parser (io/parse_value.hpp) rather than CLI11's, after
// CLI11 has parsed the whole line: so `--help` wins over a bad value anywhere on the line.
struct DeferredOption {
  CLI::Option* option = nullptr;
  std::string text;
  std::function<void(const std::string&)> apply;
};

struct RunOptions {
  Config config;
  std::string output;  // empty: the JSON goes to stdout
  bool quiet = false;
  bool profile = false;
  bool dry_run = false;
  std::string checkpoint;  // empty: no checkpoints
  CheckpointInterval checkpoint_every;
  std::deque<DeferredOption> deferred;  // a deque: CLI11 keeps a reference to each text

  // Throws UserError for the first bad value, in the order of `chainsaw run --help`.
  void apply_deferred() {
    bool dim_given = false;
    for (DeferredOption& d : deferred) {
      if (d.option->count() == 0) continue;
      d.apply(d.text);
      dim_given = dim_given || d.option->check_lname("dim");
    }
    // The scheduling problem's variables are its tasks: Braun's 512 unless --dim says otherwise.
    if (!dim_given && config.function == "etc") config.dim = kEtcDefaultTasks;
  }
};

void add_parsed(CLI::App& app, RunOptions& o, const std::string& flag, const std::string& help,
                const std::string& type, const std::string& default_text,
                std::function<void(const std::string&, const std::string&)> parse) {
  DeferredOption& d = o.deferred.emplace_back();
  d.apply = [flag, parse](const std::string& text) { parse(flag, text); };
  d.option = app.add_option(flag, d.text, help)->type_name(type)->default_str(default_text);
}

template <class T, class Parser>
void add_number(CLI::App& app, RunOptions& o, const std::string& flag, T& target,
                const std::string& help, const std::string& type, Parser parser) {
  add_parsed(app, o, flag, help, type, fmt::format("{}", target),
             [&target, parser](const std::string& f, const std::string& text) {
               target = static_cast<T>(parser(f, text));
             });
}

// Shared by `run` and `resume`.
void add_profile_option(CLI::App& app, RunOptions& o) {
  app.add_flag("--profile", o.profile,
               "time every engine pass (CUDA events on the GPU) and print the time per phase of "
               "the paper's Table 14 at the end (not with -q); also the result's `profile`");
}

void add_checkpoint_options(CLI::App& app, RunOptions& o) {
  app.add_option("--checkpoint", o.checkpoint,
                 "HDF5 checkpoint file, written crash-safely at the end, on SIGINT/SIGTERM and "
                 "every --checkpoint-every")
      ->type_name("FILE");
  add_parsed(app, o, "--checkpoint-every",
             "also checkpoint periodically: a duration (90s, 10m, 2h) or a number of evaluations",
             "EVERY", "off", [&o](const std::string& f, const std::string& t) {
               o.checkpoint_every = parse_checkpoint_interval(f, t);
             });
}

// --algorithm and the other algorithms' parameters, --runs and the stopping criteria
// (docs/algorithms.md).
void add_algorithm_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  const char* kInt = "INT";
  const char* kReal = "REAL";
  add_parsed(run, o, "--algorithm",
             "the optimizer: ma-sw-chains (the paper's memetic algorithm), de (DE/rand/1), jde "
             "(self-adaptive DE), pso (inertia-weight PSO), ss (Scatter Search)",
             "ma-sw-chains|de|jde|pso|ss", algorithm_name(c.algorithm),
             [&c](const std::string& f, const std::string& t) { c.algorithm = parse_algorithm(f, t); });
  add_number(run, o, "--de-np", c.de_np, "de, jde: population size NP", kInt, parse_int);
  add_number(run, o, "--de-f", c.de_f, "de: scale factor F (> 0)", kReal, parse_real);
  add_number(run, o, "--de-cr", c.de_cr, "de: crossover rate CR in [0, 1]", kReal, parse_real);
  add_parsed(run, o, "--de-crossover", "de, jde: binomial or exponential crossover", "bin|exp",
             de_crossover_name(c.de_crossover), [&c](const std::string& f, const std::string& t) {
               c.de_crossover = parse_de_crossover(f, t);
             });
  add_number(run, o, "--jde-tau1", c.jde_tau1, "jde: probability of a new F per trial", kReal,
             parse_real);
  add_number(run, o, "--jde-tau2", c.jde_tau2, "jde: probability of a new CR per trial", kReal,
             parse_real);
  add_number(run, o, "--pso-particles", c.pso_particles, "pso: swarm size", kInt, parse_int);
  add_number(run, o, "--pso-w", c.pso_w, "pso: inertia weight w", kReal, parse_real);
  add_number(run, o, "--pso-c1", c.pso_c1, "pso: cognitive coefficient c1", kReal, parse_real);
  add_number(run, o, "--pso-c2", c.pso_c2, "pso: social coefficient c2", kReal, parse_real);
  add_number(run, o, "--pso-vmax", c.pso_vmax,
             "pso: velocity clamp per variable, a fraction of the domain's width", kReal,
             parse_real);
  add_number(run, o, "--ss-population", c.ss_population, "ss: diversification population P",
             kInt, parse_int);
  add_number(run, o, "--ss-ref-best", c.ss_ref_best, "ss: |R1|, the best in the reference set",
             kInt, parse_int);
  add_number(run, o, "--ss-ref-diverse", c.ss_ref_diverse,
             "ss: |R2|, the most diverse in the reference set", kInt, parse_int);
  add_number(run, o, "--ss-lambda", c.ss_lambda,
             "ss: BLX-alpha children with alpha = 0.5 + lambda and 0.5 - lambda", kReal,
             parse_real);
  add_number(run, o, "--ss-ls-iterations", c.ss_ls_iterations,
             "ss: Solis-Wets iterations per improvement", kInt, parse_int);
  add_parsed(run, o, "--time-limit",
             "also stop after this much wall time: 30s, 10m, 2h or seconds (0: none)", "DURATION",
             "0", [&c](const std::string& f, const std::string& t) {
               c.time_limit_seconds = parse_duration_seconds(f, t);
             });
  add_parsed(run, o, "--target-error",
             "also stop once the best f - f* <= this (CEC rules; recorded in target_reached)",
             "REAL", "none", [&c](const std::string& f, const std::string& t) {
               c.target_error = parse_real(f, t);
               if (c.target_error < 0.0)
                 throw UserError(f + " = " + t + ": must be a number >= 0");
             });
  add_number(run, o, "--runs", c.runs,
             "independent runs with seeds --seed .. --seed + K - 1, one JSON with all and their "
             "mean, sd and median (concurrently, a run per thread)",
             kInt, parse_int);
}

void add_run_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  // The last occurrence wins, so a script can append an override to a fixed command line.
  run.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const char* kInt = "INT";
  const char* kUint = "UINT";
  const char* kReal = "REAL";

  run.add_option("--function", c.function, "benchmark function (list: chainsaw functions)")
      ->type_name("NAME")
      ->capture_default_str();
  add_number(run, o, "--dim", c.dim, "number of variables D", kInt, parse_int64);
  add_number(run, o, "--evals", c.max_evaluations,
             "evaluation budget, the initial population included; the run stops at exactly this "
             "many",
             kInt, parse_int64);
  add_number(run, o, "--seed", c.seed, "seed of every random decision", kUint, parse_uint64);
  add_number(run, o, "--problem-seed", c.problem_seed,
             "seed of the shift o (where the optimum lies); 0: the run's --seed", kUint,
             parse_uint64);
  run.add_option("--instance", c.instance,
                 "CEC 2010 instance file, text or HDF5 (o, permutation, rotation; see the README), "
                 "the etc function's ETC matrix (text, task-major), or for janssen-* the official "
                 "CEC'14/'17 input_data directory; default: generated from --problem-seed")
      ->type_name("FILE|DIR");
  run.add_option("--etc-class", c.etc_class,
                 "etc: Braun's class of the generated ETC matrix, u_c_hihi .. u_s_lolo or "
                 "ThMhCc .. TlMlCs (task/machine heterogeneity, consistency)")
      ->type_name("CLASS")
      ->capture_default_str();
  add_number(run, o, "--etc-machines", c.etc_machines, "etc: number of machines m", kInt,
             parse_int64);
  add_number(run, o, "--etc-lambda", c.etc_lambda,
             "etc: weight of the makespan, fit = lambda makespan + (1 - lambda) flowtime / m",
             kReal, parse_real);
  run.add_option("--etc-flowtime", c.etc_flowtime,
                 "etc: flowtime as the sum of the tasks' completion times (completion, as in "
                 "Carretero et al.) or of the machines' loads (loads, Kromer et al.'s Table 1)")
      ->type_name("completion|loads")
      ->capture_default_str();
  add_parsed(run, o, "--backend", "where to run: auto takes the GPU when there is one",
             "auto|cpu|cuda", backend_name(c.backend),
             [&c](const std::string& f, const std::string& t) { c.backend = parse_backend(f, t); });
  add_number(run, o, "--threads", c.threads, "OpenMP threads on the CPU; 0: OpenMP's default", kInt,
             parse_int);
  add_parsed(run, o, "--distribute",
             "under mpirun: shard (one population, genes split over the ranks) or islands (a "
             "population per rank, migrating)",
             "none|shard|islands", distribute_name(c.distribute),
             [&c](const std::string& f, const std::string& t) {
               c.distribute = parse_distribute(f, t);
             });
  add_number(run, o, "--migration-every", c.migration_interval,
             "islands: evaluations of each island between migrations", kInt, parse_int64);
  add_number(run, o, "--gpu-slices", c.gpu_slices,
             "cuda: lay every individual out in this many slices, as a sharded run on that many "
             "GPUs does (which it then reproduces bit for bit on one GPU); under --distribute "
             "shard it is the number of ranks",
             kInt, parse_int);
  run.add_option("--output,-o", o.output, "result JSON file (written whole or not at all); "
                                          "default: the JSON goes to stdout")
      ->type_name("FILE");
  run.add_flag("--quiet,-q", o.quiet, "no progress line and no summary line");
  add_profile_option(run, o);
  run.add_flag("--dry-run", o.dry_run,
               "print the memory plan and whether it fits, then exit (0: fits, 2: does not)");
  add_checkpoint_options(run, o);

  add_number(run, o, "--population", c.population_size, "population size N", kInt, parse_int);
  add_number(run, o, "--batch", c.batch, "children per crossover batch (padding slots)", kInt,
             parse_int);
  add_number(run, o, "--blx-alpha", c.blx_alpha, "BLX-alpha crossover alpha", kReal, parse_real);
  add_number(run, o, "--nam-candidates", c.nam_candidates,
             "negative assortative mating: candidates for the second parent", kInt, parse_int);
  add_number(run, o, "--mutation-probability", c.mutation_probability,
             "BGA mutation probability per child", kReal, parse_real);
  add_number(run, o, "--ls-intensity", c.ls_intensity,
             "I_str: evaluations per Solis-Wets application", kInt, parse_int64);
  add_number(run, o, "--ls-ratio", c.ls_ratio, "r_L/G: share of the evaluations spent in local search",
             kReal, parse_real);
  add_number(run, o, "--ls-threshold", c.ls_improvement_threshold,
             "delta: relative improvement an LS application needs to keep its chain", kReal,
             parse_real);
  add_number(run, o, "--rho0", c.solis_wets.rho0, "Solis-Wets initial step size rho", kReal,
             parse_real);
  add_number(run, o, "--sw-successes", c.solis_wets.max_successes,
             "consecutive Solis-Wets successes before rho doubles", kInt, parse_int);
  add_number(run, o, "--sw-failures", c.solis_wets.max_failures,
             "consecutive Solis-Wets failures before rho halves", kInt, parse_int);
  add_parsed(run, o, "--rho-init",
             "first rho of a new chain, d = distance to the nearest member: fixed (--rho0), "
             "reference (min(d/(2D), --rho0), the reference code's rule) or nearest-rms "
             "(d/(2 sqrt(D)), at most a tenth of the domain); 'neighbour' is the deprecated name "
             "of nearest-rms",
             "fixed|reference|nearest-rms", rho_init_name(c.rho_init),
             [&c](const std::string& f, const std::string& t) {
               c.rho_init = parse_rho_init(f, t);
               if (t == kRhoInitDeprecatedNeighbour)
                 std::fprintf(stderr,
                              "chainsaw: note: --rho-init neighbour is deprecated, it means "
                              "nearest-rms (not the reference code's rule: that is reference)\n");
             });
  run.add_flag("--restart", c.restart,
               "redraw all but the best when S_LS is empty and the random member's LS failed");
  add_algorithm_options(run, o);
}

// The CPU backend's allocations: genes and a Solis-Wets bias vector per slot (HostEngine), and
// three working vectors of D genes; a CEC 2010 instance adds o, P and P's inverse.
struct HostMemoryPlan {
  double genes = 0.0;
  double bias = 0.0;
  double scratch = 0.0;
  double total() const { return genes + bias + scratch; }
};

// shard_ranks > 1: one rank of a sharded run, which holds its slice of every vector (rank 0's,
// the largest); CEC 2010 instances are never sharded.
HostMemoryPlan host_memory_plan(const Config& c, int shard_ranks = 1) {
  const auto held = static_cast<double>(host_shard_slice(c.dim, 0, shard_ranks).count);
  const double slots = static_cast<double>(c.capacity()) * held * sizeof(real_t);
  const double per_gene = sizeof(real_t) + 2 * sizeof(std::int32_t);  // o, P, P's inverse
  const double instance =
      cec2010_number(function_info(c.function).id) != 0 ? static_cast<double>(c.dim) * per_gene : 0.0;
  return {slots, slots, 3.0 * held * sizeof(real_t) + instance};
}

// Physical memory in bytes; 0 when the system does not say.
double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                     : 0.0;
}

// Refuse up front what cannot fit rather than be killed by the kernel half-way through the
// allocation.
void check_host_memory(const Config& c, int shard_ranks = 1) {
  const double available = physical_memory_bytes();
  const double needed = host_memory_plan(c, shard_ranks).total();
  if (available <= 0.0 || needed <= available) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw UserError(fmt::format(
      "--dim = {}: the CPU backend needs {:.1f} GiB ({} slots of genes and Solis-Wets bias), "
      "this machine has {:.1f} GiB",
      c.dim, needed / kGiB, c.capacity(), available / kGiB));
}

std::string summary_line(const Config& c, const RunEnvironment& env, const RunResult& r,
                         const std::string& output) {
  const std::string where =
      env.backend == Backend::kCuda ? "cuda: " + env.device : fmt::format("cpu, {} threads", env.threads);
  return fmt::format(
      "chainsaw: {} D={}: best {:.6e}, distance to optimum {:.6e}, {} evaluations in {:.2f} s "
      "({}){}",
      c.function, c.dim, r.best_fitness, r.distance_to_optimum, r.counters.evaluations,
      r.wall_seconds, where, output.empty() ? "" : " -> " + output);
}

// --dry-run: what the run would allocate, by purpose, against what the machine has.
// print: false on the other ranks of a distributed run, which only return the verdict.
// shard_ranks > 1: the plan of one rank of a sharded run.
int dry_run(const Config& c, [[maybe_unused]] Backend backend, bool print = true,
            int shard_ranks = 1) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  [[maybe_unused]] const Problem problem =
      make_problem(c);
  const HostMemoryPlan host = host_memory_plan(c, shard_ranks);
  double genes = host.genes, bias = host.bias, rng = 0.0, scratch = host.scratch;
  double available = 0.0, total = 0.0;
  std::string where;
#if defined(CHAINSAW_CUDA)
  if (backend == Backend::kCuda) {
    const DeviceMemoryPlan plan = plan_device_memory(c, problem, shard_ranks);
    const DeviceInfo device = query_cuda_device();
    genes = static_cast<double>(plan.genes);
    bias = static_cast<double>(plan.bias);
    rng = static_cast<double>(plan.rng_states);
    scratch = static_cast<double>(plan.scratch);
    available = static_cast<double>(device.free_memory);
    total = static_cast<double>(device.total_memory);
    where = "cuda, " + device.name;
  }
#endif
  if (where.empty()) {
    available = total = physical_memory_bytes();
    where = "cpu, host memory";
  }
  if (shard_ranks > 1) where += fmt::format(", each of {} shard ranks", shard_ranks);
  const double needed = genes + bias + rng + scratch;
  // Genes and bias grow with D, the rest barely: the largest D whose slots fit what is left.
  const double per_dim = (genes + bias) / static_cast<double>(c.dim);
  const double largest_dim = (available - rng - scratch) / per_dim;
  if (print)
    std::printf(
      "memory plan (%s): %d slots x D = %lld, %s genes\n"
      "  genes        %10.3f GiB\n  bias vectors %10.3f GiB\n  RNG states   %10.3f GiB\n"
      "  scratch      %10.3f GiB\n  total        %10.3f GiB of %.3f GiB available (%.3f GiB in all): %s\n"
      "  largest D that fits with these settings: about %.3e\n",
      where.c_str(), c.capacity(), static_cast<long long>(c.dim), sizeof(real_t) == 4 ? "float32" : "float64",
      genes / kGiB, bias / kGiB, rng / kGiB, scratch / kGiB, needed / kGiB, available / kGiB,
      total / kGiB, needed <= available ? "fits" : "DOES NOT FIT", largest_dim);
  return needed <= available ? 0 : kExitUserError;
}

// SIGINT and SIGTERM ask the run to stop at its next safe point (a checkpoint is written
// there); a second signal gets the default action, so a stuck run can still be killed.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void request_stop(int signal_number) { g_stop_signal = signal_number; }

class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int received() const { return g_stop_signal; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// The ranks of a distributed run (`--distribute`); a default Ranks is one process.
struct Ranks {
  Communicator* comm = nullptr;
  Distribute mode = Distribute::kNone;

  bool root() const { return comm == nullptr || comm->is_root(); }
  int rank() const { return comm ? comm->rank() : 0; }
  int size() const { return comm ? comm->size() : 1; }
  bool islands() const { return mode == Distribute::kIslands; }
  // The ranks every individual is split over: 1 unless sharded.
  int shard_ranks() const { return mode == Distribute::kShard ? size() : 1; }
  // Runs `step` so that a failure on one rank fails every rank (core/distributed/agreement.hpp).
  void agree(const std::function<void()>& step) const {
    if (comm) {
      chainsaw::agree(*comm, step);
    } else {
      step();
    }
  }
  // Where this rank checkpoints when the run checkpoints to `path`: islands keep a file each.
  std::string checkpoint_path(const std::string& path) const {
    return islands() && !path.empty() ? island_checkpoint_path(path, rank()) : path;
  }
  // The command that continues a run checkpointed to `path`.
  std::string resume_command(const std::string& path) const {
    if (!comm) return "chainsaw resume " + path;
    return fmt::format("mpirun -np {} chainsaw resume {} --distribute {}", size(), path,
                       distribute_name(mode));
  }
};

// The run itself, fresh or resumed: `make` builds the problem (a resume's comes from the
// checkpoint), `prepare` restores a checkpoint into the new algorithm. env.checkpoint is where
// this rank checkpoints; `restored` the island record of a resumed island.
int execute(const Config& config, RunEnvironment env, const RunOptions& o,
            const std::function<Problem()>& make,
            const std::function<void(MaSwChains&)>& prepare, const Ranks& ranks = {},
            const std::optional<IslandState>& restored = std::nullopt) {
  if (config.threads > 0) omp_set_num_threads(config.threads);
  env.threads = omp_get_max_threads();

  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  ProfileReport profile;
  KernelProfile* const buckets = o.profile ? &profile.buckets : nullptr;
  const auto setup_start = Clock::now();
  std::optional<Problem> problem;
  std::unique_ptr<Engine> engine;
  std::optional<MaSwChains> algorithm;
  ranks.agree([&] {
    problem.emplace(make());
    engine = make_engine(config, *problem, env.backend,
                         ranks.mode == Distribute::kShard ? ranks.comm : nullptr);
    if (buckets) engine->set_profile(buckets);
    algorithm.emplace(config, *problem, *engine);
    if (prepare) {
      ScopedBucket timer(buckets, Bucket::kCheckpointIo);
      prepare(*algorithm);
    }
  });
  std::optional<Islands> islands;
  if (ranks.islands())
    islands.emplace(*ranks.comm, config.migration_interval,
                    restored ? *restored : IslandState{ranks.rank(), ranks.size()});
  env.setup_seconds = seconds_since(setup_start);

  StopSignals signals;
  CheckpointSchedule schedule("--checkpoint", env.checkpoint, o.checkpoint_every, env.backend,
                              [&signals] { return signals.received() != 0; }, buckets);
  if (ranks.comm) schedule.distribute(ranks.comm, islands ? &*islands : nullptr);
  ConvergenceTrace trace;
  RunResult result;
  StopRule stop(config, problem->optimum_value);  // --time-limit, --target-error
  const auto run_start = Clock::now();
  {
    ProgressLine progress(stderr, !o.quiet && ::isatty(STDERR_FILENO) && ranks.root());
    result = algorithm->run(
        [&](const Progress& p) {
          Progress all = p;
          // The islands report at the same units (their counts move in step): the best of all.
          if (islands) ranks.comm->allreduce_min(&all.best_fitness, 1);
          progress.update(all);
          trace.add(all);
        },
        [&](MaSwChains& a) {
          if (islands) islands->at_safe_point(a);
          if (!islands && stop.check(a.counters().evaluations, a.population().best_fitness(),
                                     a.loop_state().elapsed_seconds))
            return false;
          return schedule.at_safe_point(a);
        });
    if (algorithm->done())
      stop.at_end(result.counters.evaluations, result.best_fitness, result.wall_seconds);
    result.stop = stop.record();
    // A signal during the last unit comes too late to stop anything: the run is complete.
    if (algorithm->done() || stop.stopped()) schedule.at_end(*algorithm);
  }
  if (buckets) {
    engine->flush_profile();
    profile.clock = env.backend == Backend::kCuda ? "gpu_windows" : "steady_clock";
    profile.setup_seconds = env.setup_seconds;
    profile.run_seconds = seconds_since(run_start);
  }
  // Only a stop ends the loop early; the ranks agreed on it and leave here together, with the
  // signal the lowest-numbered one received.
  if (!algorithm->done() && !stop.stopped()) {
    double received = signals.received() ? signals.received() : SIGTERM;
    if (ranks.comm) ranks.comm->allreduce_min(&received, 1);
    const int signal_number = static_cast<int>(received);
    const char* name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
    const std::string saved =
        o.checkpoint.empty()
            ? "no --checkpoint was given, nothing is saved"
            : fmt::format("checkpoint written to {}{}; continue with: {}", env.checkpoint,
                          islands ? " (and one per other island)" : "",
                          ranks.resume_command(o.checkpoint));
    if (ranks.root())
      std::fprintf(stderr, "chainsaw: interrupted by %s after %lld evaluations (best %.6e); %s\n",
                   name, static_cast<long long>(result.counters.evaluations),
                   result.best_fitness, saved.c_str());
    return 128 + signal_number;
  }

  DistributedRun distributed;
  distributed.mode = ranks.mode;
  distributed.ranks = ranks.size();
  if (islands) {
    const IslandSummary mine{ranks.rank(),        config.seed,     result.best_fitness,
                             result.distance_to_optimum, result.counters, islands->state()};
    distributed.islands = gather_islands(*ranks.comm, mine);
    result = combine_islands(result, distributed.islands, distributed.best_rank);
  }
  ranks.agree([&] {
    if (!ranks.root()) return;
    const std::string json = result_to_json(config, env, result, &trace,
                                            buckets ? &profile : nullptr,
                                            ranks.comm ? &distributed : nullptr)
                                 .dump(2) +
                             "\n";
    if (o.output.empty()) {
      std::fwrite(json.data(), 1, json.size(), stdout);
      std::fflush(stdout);
    } else {
      write_file_atomically("--output", o.output, json);
    }
  });
  if (!o.quiet && ranks.root()) {
    std::fprintf(stderr, "%s\n", summary_line(config, env, result, o.output).c_str());
    if (buckets) std::fputs(profile_table(profile).c_str(), stderr);
  }
  return 0;
}

// Output and checkpoint paths are probed before any work starts; only rank 0 writes the output.
void check_paths(const std::string& output, const std::string& checkpoint) {
  if (!output.empty()) check_output_writable("--output", output);
  if (!checkpoint.empty()) check_output_writable("--checkpoint", checkpoint);
}

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

// The other algorithms and --runs K (io/cli/algorithm_runs.hpp): one process, one file.
int run_algorithm_command(const Config& config, RunEnvironment env, const RunOptions& o,
                          const Ranks& ranks) {
  if (ranks.comm)
    throw UserError(fmt::format("--distribute {}: only --algorithm ma-sw-chains with --runs 1 "
                                "runs distributed",
                                distribute_name(ranks.mode)));
  if (config.runs > 1 && !o.checkpoint.empty())
    throw UserError(fmt::format("--checkpoint = {}: not with --runs {} (checkpoint the runs one "
                                "by one)",
                                o.checkpoint, config.runs));
  // --backend auto: the GPU where the population path runs the algorithm, else the CPU.
  if (config.algorithm != Algorithm::kMaSwChains && config.backend == Backend::kAuto &&
      env.backend == Backend::kCuda &&
      !population_runs_on_cuda(config, make_problem(config),
                               nullptr)) {
    env.backend = Backend::kCpu;
    env.device.clear();
  }
  AlgorithmRunOptions options;
  options.output = o.output;
  options.quiet = o.quiet;
  options.profile = o.profile;
  options.checkpoint = env.checkpoint;
  options.checkpoint_every = o.checkpoint_every;
  if (config.runs > 1) return run_many(config, env, options);
  return run_population_algorithm(config, env, options, [&config] {
    return make_problem(config);
  });
}

int run_command(const RunOptions& o, const Ranks& ranks) {
  Config config = o.config;
  RunEnvironment env;
  ranks.agree([&] {
    config.validate();
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
  if (config.algorithm != Algorithm::kMaSwChains || config.runs > 1)
    return run_algorithm_command(config, env, o, ranks);
  return execute(
      config, env, o,
      [&config] {
        return make_problem(config);
      },
      {}, ranks);
}

// `chainsaw resume FILE`: the checkpoint's configuration, with a new budget if asked for.
struct ResumeOptions {
  RunOptions run;  // output, progress and checkpoint flags; config comes from the file
  std::string file;
  std::optional<std::int64_t> evaluations;
  std::optional<Backend> backend;
  std::optional<int> threads;
  std::optional<std::string> function;
  std::optional<std::int64_t> dim;
  Distribute distribute = Distribute::kNone;  // must be the checkpoint's
};

void add_resume_options(CLI::App& resume, ResumeOptions& r) {
  resume.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  RunOptions& o = r.run;
  resume.add_option("checkpoint_file", r.file, "the checkpoint to continue")
      ->type_name("FILE")
      ->required();
  add_parsed(resume, o, "--evals", "new evaluation budget (default: the checkpoint's)", "INT",
             "checkpoint's", [&r](const std::string& f, const std::string& t) {
               r.evaluations = parse_int64(f, t);
             });
  add_parsed(resume, o, "--backend", "must be the backend that wrote the checkpoint",
             "auto|cpu|cuda", "checkpoint's",
             [&r](const std::string& f, const std::string& t) { r.backend = parse_backend(f, t); });
  add_parsed(resume, o, "--threads", "OpenMP threads on the CPU (results do not depend on it)",
             "INT", "checkpoint's",
             [&r](const std::string& f, const std::string& t) { r.threads = parse_int(f, t); });
  add_parsed(resume, o, "--distribute",
             "islands continues every island of an islands run (under mpirun, one rank per "
             "island); shard continues a sharded or one-process run on any number of ranks",
             "none|shard|islands", "none", [&r](const std::string& f, const std::string& t) {
               r.distribute = parse_distribute(f, t);
             });
  add_parsed(resume, o, "--function", "check: must match the checkpoint's", "NAME", "",
             [&r](const std::string&, const std::string& t) { r.function = t; });
  add_parsed(resume, o, "--dim", "check: must match the checkpoint's", "INT", "",
             [&r](const std::string& f, const std::string& t) { r.dim = parse_int64(f, t); });
  resume.add_option("--output,-o", o.output, "result JSON file; default: stdout")->type_name("FILE");
  resume.add_flag("--quiet,-q", o.quiet, "no progress line and no summary line");
  add_profile_option(resume, o);
  add_checkpoint_options(resume, o);
  resume.get_option("--checkpoint")
      ->description("where to write checkpoints (default: the resumed file itself)");
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
  // A DE, jDE, PSO or SS checkpoint (io/checkpoint/algorithm_checkpoint.hpp).
  if (checkpoint_algorithm(r.file) != algorithm_name(Algorithm::kMaSwChains)) {
    if (ranks.comm) throw UserError("checkpoint " + r.file + ": only MA-SW-Chains runs resume distributed");
    AlgorithmResumeOverrides overrides;
    if (r.evaluations) overrides.evaluations = *r.evaluations;
    if (r.threads) overrides.threads = *r.threads;
    if (r.backend) overrides.backend = *r.backend;
    if (r.function) overrides.function = *r.function;
    if (r.dim) overrides.dim = *r.dim;
    AlgorithmRunOptions options;
    options.output = r.run.output;
    options.quiet = r.run.quiet;
    options.profile = r.run.profile;
    options.checkpoint = r.run.checkpoint == r.file ? std::string() : r.run.checkpoint;
    options.checkpoint_every = r.run.checkpoint_every;
    return resume_population_algorithm(r.file, overrides, options);
  }
  // An islands run keeps a file per island: rank r continues island r.
  const std::string file = ranks.checkpoint_path(r.file);
  CheckpointHeader header;
  Config config;
  RunEnvironment env;
  if (r.run.checkpoint.empty()) r.run.checkpoint = r.file;
  ranks.agree([&] {
    header = read_checkpoint_header(file);
    config = header.config;
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
    env.checkpoint = ranks.checkpoint_path(r.run.checkpoint);
    check_paths(ranks.root() ? r.run.output : "", env.checkpoint);

    env.backend = header.backend;
    select_rank_gpu(config, ranks);
    lay_out_shards(config, ranks, env.backend, true);
    if (env.backend == Backend::kCuda) {
      const DeviceInfo device = query_cuda_device();
      if (!device.available)
        throw UserError("checkpoint " + file + " was written by the cuda backend and this "
                        "machine has no usable GPU (" + device.reason + ")");
      env.device = device.name;
    } else {
      check_host_memory(config, ranks.shard_ranks());
    }
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
      config, env, r.run, [&header] { return checkpoint_problem(header); },
      [&file](MaSwChains& a) { load_checkpoint(file, a); }, ranks, header.islands);
}

int inspect_command(const std::string& file) {
  const CheckpointSummary s = inspect_checkpoint(file);
  std::printf(
      "checkpoint %s\n"
      "  layout version    %lld (chainsaw %s)\n"
      "  written           %s (%s)\n"
      "  function          %s\n"
      "  dim               %lld\n"
      "  slots             %lld (population + batch)\n"
      "  backend           %s, %s genes\n"
      "  evaluations done  %lld of a budget of %lld\n"
      "  best fitness      %.17g\n"
      "%s",
      file.c_str(), static_cast<long long>(s.format_version), s.chainsaw_version.c_str(),
      s.written_at.c_str(), s.reason.c_str(), s.function.c_str(), static_cast<long long>(s.dim),
      static_cast<long long>(s.capacity), s.backend.c_str(), s.genes_type.c_str(),
      static_cast<long long>(s.evaluations), static_cast<long long>(s.budget), s.best_fitness,
      s.instance.empty() ? "" : ("  instance          " + s.instance + "\n").c_str());
  return 0;
}

// `chainsaw instance export`: the instance a run would use, written to share or to convert.
struct ExportOptions {
  RunOptions run;  // config: function, dim, problem_seed, instance
  std::string output;
};

void add_export_options(CLI::App& e, ExportOptions& x) {
  e.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  RunOptions& o = x.run;
  Config& c = o.config;
  c.problem_seed = 1;  // a run's with the default --seed 1
  e.add_option("--function", c.function, "a CEC 2010 function: cec2010-f1 .. cec2010-f20")
      ->type_name("NAME")
      ->required();
  add_number(e, o, "--dim", c.dim, "number of variables D", "INT", parse_int64);
  add_number(e, o, "--problem-seed", c.problem_seed,
             "the run's problem seed: its --problem-seed, or its --seed when that is 0", "UINT",
             parse_uint64);
  e.add_option("--instance", c.instance,
               "read this instance file instead of generating one (converts text <-> HDF5)")
      ->type_name("FILE");
  e.add_option("--output,-o", x.output,
               "the file, written whole or not at all: HDF5 when it ends in .h5 or .hdf5, text "
               "otherwise")
      ->type_name("FILE")
      ->required();
}

int export_command(ExportOptions& x) {
  x.run.apply_deferred();
  Config& c = x.run.config;
  const FunctionInfo& info = function_info(c.function);
  if (cec2010_number(info.id) == 0)
    throw UserError("--function = " + c.function +
                    ": only the cec2010-* functions have an instance to export");
  c.validate();
  check_output_writable("--output", x.output);
  const Problem problem = make_problem(c.function, c.dim, c.problem_seed, c.instance);
  write_instance_file("--output", x.output, *problem.cec, info,
                      instance_origin(c.instance, c.problem_seed));
  std::fprintf(stderr, "chainsaw: %s D=%lld instance (%s) -> %s\n", info.name,
               static_cast<long long>(c.dim), instance_origin(c.instance, c.problem_seed).c_str(),
               x.output.c_str());
  return 0;
}

int functions_command() {
  std::string out;
  auto table = [&out](const std::vector<FunctionInfo>& functions, const char* title) {
    out += fmt::format("{}\n{:<32} {:<16} {:<14} {}\n", title, "function", "domain",
                       "separability", "formula (z = x - o)");
    for (const FunctionInfo& f : functions) {
      const std::string name =
          f.alias != nullptr ? fmt::format("{} ({})", f.name, f.alias) : std::string(f.name);
      out += fmt::format("{:<32} {:<16} {:<14} {}\n", name,
                         fmt::format("[{:g}, {:g}]", f.lower, f.upper), f.separability, f.formula);
    }
  };
  table(all_functions(), "The paper's functions, f(o) = -330:");
  table(classic_functions(),
        "\nRosenbrock, Zakharov and Nashed et al.'s Table 3 (alias nashed-fN; f1 is cec2010-f1),\n"
        "f(o) = 0 but where the formula says - 330:");
  table(data_functions(),
        "\nFunctions of generated data, from --problem-seed: Schwefel 2.6 and 2.13, f(o) = 0\n"
        "(O(D^2) per evaluation); etc, scheduling tasks (--dim, default 512) on --etc-machines\n"
        "(16) of an ETC matrix of --etc-class (u_c_hihi) or --instance FILE, --etc-lambda 0.75:");
  table(cec2010_functions(),
        "\nCEC 2010 LSGO (Tang et al. 2009), f(o) = 0; m = 50, P a permutation, M a rotation;\n"
        "D >= 50 for f4-f8, D a multiple of 100 for f9-f18; o, P and M generated from\n"
        "--problem-seed or read with --instance FILE (text or HDF5); chainsaw instance export\n"
        "writes one:");
  table(janssen_functions(),
        "\nJanssen et al.'s GPU benchmark (Table 2; alias janssen-fN), CEC'14/'17 definitions,\n"
        "f(o) = the formula's constant; 2 <= D <= 100; o, M (and a hybrid's permutation)\n"
        "generated from --problem-seed or read from the official input_data with --instance DIR\n"
        "(CEC'14's for janssen-f5 and f7, CEC'17's for the others):");
  std::fputs(out.c_str(), stdout);
  return 0;
}

// CLI11 messages can span lines; the contract is one line per error.
std::string one_line(std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// Set once this process is a rank of a started MPI job: from then on the ranks agree on who
// reports (core/distributed/agreement.hpp).
bool g_mpi_started = false;

// Before MPI starts, every rank of an mpirun job parses the same command line and fails alike:
// only the launcher's rank 0 reports, the others exit with the same code. The launchers' own
// variables say which rank a process is (Open MPI, PMIx, MPICH/Hydra).
bool is_later_rank_of_a_job() {
  if (g_mpi_started) return false;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return std::string(value) != "0";
  }
  return false;
}

int report(const char* kind, const std::string& message, int code) {
  if (is_later_rank_of_a_job()) return code;
  std::fprintf(stderr, "chainsaw: %s: %s\n", kind, one_line(message).c_str());
  return code;
}

// The one line and the exit code of an exception that ends the program.
int report_exception(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const AgreedFailure& e) {
    const int code = e.user_error ? kExitUserError : kExitInternalError;
    // The lowest failing rank speaks for the job; the others exit with the same code.
    return e.reporter ? report(e.user_error ? "error" : "internal error", e.what(), code) : code;
  } catch (const UserError& e) {
    return report("error", e.what(), kExitUserError);
  } catch (const std::bad_alloc&) {
    return report("error", "out of memory", kExitInternalError);
  } catch (const std::exception& e) {
    return report("internal error", e.what(), kExitInternalError);
  } catch (...) {
    return report("internal error", "unknown exception", kExitInternalError);
  }
}

// Runs a run or resume `command` in one process, or with --distribute as one rank of the MPI
// job that mpirun started: MPI lives exactly as long as the command, so a plain run never
// touches it.
int with_ranks(Distribute mode, int& argc, char**& argv,
               const std::function<int(const Ranks&)>& command) {
  if (mode == Distribute::kNone) return command(Ranks{});
#if defined(CHAINSAW_MPI)
  MpiSession session(&argc, &argv);
  g_mpi_started = true;
  MpiCommunicator comm;
  try {
    return command(Ranks{&comm, mode});
  } catch (const AgreedFailure&) {
    return report_exception(std::current_exception());
  } catch (...) {
    // This rank failed between two collectives, where the others cannot learn of it: the one
    // line, then the whole job ends rather than hang.
    MpiSession::abort(report_exception(std::current_exception()));
  }
#else
  (void)argc;
  (void)argv;
  (void)command;
  throw UserError(fmt::format("--distribute {}: this chainsaw was built without MPI",
                              distribute_name(mode)));
#endif
}

}  // namespace

int cli_main(int argc, char** argv) {
  CLI::App app{fmt::format("chainsaw {}: MA-SW-Chains memetic optimisation of large-scale "
                           "continuous problems on the CPU (OpenMP) or a GPU (CUDA)",
                           kVersion),
               "chainsaw"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  RunOptions options;
  CLI::App* run = app.add_subcommand("run", "run MA-SW-Chains on a benchmark function");
  add_run_options(*run, options);
  ResumeOptions resume_options;
  CLI::App* resume = app.add_subcommand("resume", "continue a run from its HDF5 checkpoint");
  add_resume_options(*resume, resume_options);
  std::string inspect_file;
  CLI::App* inspect =
      app.add_subcommand("inspect", "print what a checkpoint holds, without loading it");
  inspect->add_option("checkpoint_file", inspect_file, "the checkpoint")->type_name("FILE")->required();
  CLI::App* functions =
      app.add_subcommand("functions", "list the benchmark functions with their domains");
  CLI::App* instance = app.add_subcommand("instance", "CEC 2010 instances (o, P, M): export one as text or HDF5");
  instance->require_subcommand(1);
  ExportOptions export_options;
  CLI::App* export_instance = instance->add_subcommand(
      "export", "write the instance a run would use (generated or read) as text or HDF5");
  add_export_options(*export_instance, export_options);

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForVersion&) {
      std::printf("chainsaw %s\n", kVersion);
      return 0;
    } catch (const CLI::Success& e) {
      return app.exit(e);  // --help
    } catch (const CLI::RequiredError& e) {
      if (app.get_subcommands().empty())
        return report("error",
                      "a subcommand is required: run, resume, inspect, functions or instance (see "
                      "chainsaw --help)",
                      kExitUserError);
      if (*instance && instance->get_subcommands().empty())
        return report("error", "chainsaw instance: a subcommand is required: export (see chainsaw "
                               "instance export --help)",
                      kExitUserError);
      return report("error", e.what(), kExitUserError);
    } catch (const CLI::ParseError& e) {
      return report("error", e.what(), kExitUserError);
    }
    if (*functions) return functions_command();
    if (*export_instance) return export_command(export_options);
    if (*inspect) return inspect_command(inspect_file);
    if (*resume) {
      resume_options.run.apply_deferred();
      return with_ranks(resume_options.distribute, argc, argv, [&](const Ranks& ranks) {
        return resume_command(resume_options, ranks);
      });
    }
    options.apply_deferred();
    return with_ranks(options.config.distribute, argc, argv,
                      [&](const Ranks& ranks) { return run_command(options, ranks); });
  } catch (...) {
    return report_exception(std::current_exception());
  }
}

// The Python module's entry points (python/src/module.cpp): `chainsaw run` and `chainsaw resume`
// take their options as keywords there, parsed and checked by this file's code.

namespace {

std::vector<OptionSpec> option_specs(const CLI::App& app) {
  std::vector<OptionSpec> specs;
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() || option->get_lnames().front() == "help") continue;
    specs.push_back({option->get_lnames().front(), option->get_default_str(),
                     option->get_type_name(), option->get_type_size() == 0,
                     option->get_description()});
  }
  return specs;
}

void parse_arguments(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    throw UserError(one_line(e.what()));
  }
}

}  // namespace

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
  check_paths(r.run.output, r.run.checkpoint);
  RunEnvironment env;
  env.backend = header.backend;
  env.checkpoint = r.run.checkpoint;
  if (env.backend == Backend::kCuda) {
    const DeviceInfo device = query_cuda_device();
    if (!device.available)
      throw UserError("checkpoint " + file + " was written by the cuda backend and this "
                      "machine has no usable GPU (" + device.reason + ")");
    env.device = device.name;
  } else {
    check_host_memory(config);
  }
  env.resumed_from = file;
  env.resumed_at_evaluations = header.summary.evaluations;
  const RunOptions& o = r.run;
  return {{config, o.output, o.quiet, o.profile, false, o.checkpoint, o.checkpoint_every},
          file, env};
}

}  // namespace chainsaw
