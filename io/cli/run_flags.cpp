#include "io/cli/run_flags.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "fitness/problem.hpp"
#include "io/npy_file.hpp"

namespace chainsaw::cli {

// --population names the chosen algorithm's size; an alias (--de-np, ...) given as well must agree.
void RunOptions::apply_population() {
  if (!population) return;
  struct Alias {
    const char* name;
    int* size;
  };
  Config& c = config;
  Alias alias{nullptr, &c.population_size};
  switch (c.algorithm) {
    case AlgorithmKind::kDe:
    case AlgorithmKind::kJde: alias = {"de-np", &c.de_np}; break;
    case AlgorithmKind::kPso: alias = {"pso-particles", &c.pso_particles}; break;
    case AlgorithmKind::kScatterSearch: alias = {"ss-population", &c.ss_population}; break;
    case AlgorithmKind::kSepCmaEs: alias = {"cma-lambda", &c.cma_lambda}; break;
    case AlgorithmKind::kShade:
    case AlgorithmKind::kShadeIls: alias = {"shade-np", &c.shade_np}; break;
    default: break;  // lshade and mts-ls1: refused by flag_scopes
  }
  for (const DeferredOption& d : deferred)
    if (alias.name && d.option->count() > 0 && d.option->check_lname(alias.name) &&
        *alias.size != *population)
      throw UserError(fmt::format("--population = {} and --{} = {}: one size, please",
                                  *population, alias.name, *alias.size));
  *alias.size = *population;
}

void add_parsed(CLI::App& app, RunOptions& o, const std::string& flag, const std::string& help,
                const std::string& type, const std::string& default_text,
                std::function<void(const std::string&, const std::string&)> parse) {
  DeferredOption& d = o.deferred.emplace_back();
  d.apply = [flag, parse](const std::string& text) { parse(flag, text); };
  d.option = app.add_option(flag, d.text, help)->type_name(type)->default_str(default_text);
}

namespace {

// A path flag given as '': refused rather than read as "none" (a script's unset variable).
const CLI::Validator kNotEmpty(
    [](std::string& text) {
      return text.empty() ? std::string("must be a file name, not ''") : std::string();
    },
    "", "not empty");

// Which algorithms an algorithm's own flag applies to; a flag not listed here applies to all.
// A new algorithm-specific flag is one line.
struct FlagScope {
  const char* flag;
  std::vector<AlgorithmKind> algorithms;
};

const std::vector<FlagScope>& flag_scopes() {
  using A = AlgorithmKind;
  const std::vector<AlgorithmKind> ma{A::kMaSwChains};
  static const std::vector<FlagScope> scopes = {
      // L-SHADE sizes its population from D (--lshade-np-*), MTS-LS1 improves one solution.
      {"--population",
       {A::kMaSwChains, A::kDe, A::kJde, A::kPso, A::kScatterSearch, A::kSepCmaEs, A::kShade,
        A::kShadeIls}},
      {"--init", {A::kMaSwChains, A::kDe, A::kJde, A::kPso, A::kScatterSearch}},
      {"--batch", ma}, {"--blx-alpha", ma}, {"--nam-candidates", ma},
      {"--mutation-probability", ma}, {"--ls-intensity", ma}, {"--ls-ratio", ma},
      {"--ls-threshold", ma}, {"--rho-init", ma}, {"--restart", ma},
      {"--milestones",
       {A::kMaSwChains, A::kDe, A::kJde, A::kPso, A::kSepCmaEs, A::kShade, A::kLshade,
        A::kMtsLs1, A::kShadeIls}},
      {"--rho0", {A::kMaSwChains, A::kScatterSearch}},
      {"--sw-successes", {A::kMaSwChains, A::kScatterSearch}},
      {"--sw-failures", {A::kMaSwChains, A::kScatterSearch}},
      {"--de-np", {A::kDe, A::kJde}}, {"--de-crossover", {A::kDe, A::kJde}},
      {"--de-f", {A::kDe}}, {"--de-cr", {A::kDe}},
      {"--jde-tau1", {A::kJde}}, {"--jde-tau2", {A::kJde}},
      {"--pso-particles", {A::kPso}}, {"--pso-w", {A::kPso}}, {"--pso-c1", {A::kPso}},
      {"--pso-c2", {A::kPso}}, {"--pso-vmax", {A::kPso}},
      {"--ss-population", {A::kScatterSearch}}, {"--ss-ref-best", {A::kScatterSearch}},
      {"--ss-ref-diverse", {A::kScatterSearch}}, {"--ss-lambda", {A::kScatterSearch}},
      {"--ss-ls-iterations", {A::kScatterSearch}},
      {"--cma-lambda", {A::kSepCmaEs}}, {"--cma-sigma0", {A::kSepCmaEs}},
      {"--cma-ipop", {A::kSepCmaEs}}, {"--cma-ipop-factor", {A::kSepCmaEs}},
      {"--shade-np", {A::kShade, A::kShadeIls}}, {"--shade-h", {A::kShade, A::kShadeIls}},
      {"--shade-archive-rate", {A::kShade, A::kShadeIls}},
      {"--shade-p-max", {A::kShade, A::kShadeIls}},
      {"--lshade-np-per-dim", {A::kLshade}}, {"--lshade-np-max", {A::kLshade}},
      {"--lshade-np-min", {A::kLshade}}, {"--lshade-h", {A::kLshade}},
      {"--lshade-archive-rate", {A::kLshade}}, {"--lshade-p", {A::kLshade}},
      {"--mts-sr", {A::kMtsLs1, A::kShadeIls}}, {"--mts-evals", {A::kMtsLs1}},
      {"--shade-ils-de-evals", {A::kShadeIls}}, {"--shade-ils-global-evals", {A::kShadeIls}},
      {"--shade-ils-ls-evals", {A::kShadeIls}}, {"--shade-ils-threshold", {A::kShadeIls}},
  };
  return scopes;
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
                 "every --checkpoint-every; one live run per file")
      ->type_name("FILE")
      ->check(kNotEmpty);
  add_parsed(app, o, "--checkpoint-every",
             "also checkpoint periodically: a duration (90s, 10m, 2h) or a number of evaluations",
             "EVERY", "off", [&o](const std::string& f, const std::string& t) {
               o.checkpoint_every = parse_checkpoint_interval(f, t);
             });
}

// The SHADE family's parameters (docs/algorithms.md has their sources).
void add_shade_family_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  const char* kInt = "INT";
  const char* kReal = "REAL";
  add_number(run, o, "--shade-np", c.shade_np, "shade, shade-ils: population size N", kInt,
             parse_int);
  add_number(run, o, "--shade-h", c.shade_h, "shade, shade-ils: memory size H", kInt, parse_int);
  add_number(run, o, "--shade-archive-rate", c.shade_archive_rate,
             "shade, shade-ils: archive size |A| = rate x N", kReal, parse_real);
  add_number(run, o, "--shade-p-max", c.shade_p_max,
             "shade, shade-ils: p_i uniform in [2/N, p_max] (current-to-pbest)", kReal,
             parse_real);
  add_number(run, o, "--lshade-np-per-dim", c.lshade_np_per_dim,
             "lshade: initial population N_init = this x D (within --lshade-np-min/max)", kReal,
             parse_real);
  add_number(run, o, "--lshade-np-max", c.lshade_np_max, "lshade: at most this N_init", kInt,
             parse_int);
  add_number(run, o, "--lshade-np-min", c.lshade_np_min,
             "lshade: the population at the end of the budget", kInt, parse_int);
  add_number(run, o, "--lshade-h", c.lshade_h, "lshade: memory size H", kInt, parse_int);
  add_number(run, o, "--lshade-archive-rate", c.lshade_archive_rate,
             "lshade: archive size |A| = rate x N", kReal, parse_real);
  add_number(run, o, "--lshade-p", c.lshade_p, "lshade: the p of current-to-pbest", kReal,
             parse_real);
  add_number(run, o, "--mts-sr", c.mts_sr,
             "mts-ls1, shade-ils: MTS-LS1's first step per variable, a fraction of the width",
             kReal, parse_real);
  add_number(run, o, "--mts-evals", c.mts_evals,
             "mts-ls1: evaluations per application (0: min(10 D, 5000))", kInt, parse_int64);
  add_number(run, o, "--shade-ils-de-evals", c.shade_ils_de_evals,
             "shade-ils: evaluations of a SHADE phase (0: min(50 D, 25000))", kInt, parse_int64);
  add_number(run, o, "--shade-ils-global-evals", c.shade_ils_global_evals,
             "shade-ils: evaluations of the global local search (0: min(50 D, 25000); -1: none)",
             kInt, parse_int64);
  add_number(run, o, "--shade-ils-ls-evals", c.shade_ils_ls_evals,
             "shade-ils: evaluations of the local search after SHADE (0: min(10 D, 5000))", kInt,
             parse_int64);
  add_number(run, o, "--shade-ils-threshold", c.shade_ils_threshold,
             "shade-ils: restart after 3 iterations in a row improving the best by less than "
             "this ratio",
             kReal, parse_real);
}

// --algorithm and the other algorithms' parameters, --runs and the stopping criteria
// (docs/algorithms.md).
void add_algorithm_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  const char* kInt = "INT";
  const char* kReal = "REAL";
  add_parsed(run, o, "--algorithm",
             "the optimizer: ma-sw-chains (the paper's memetic algorithm), de (DE/rand/1), jde "
             "(self-adaptive DE), pso (inertia-weight PSO), ss (Scatter Search), sep-cma-es "
             "(separable CMA-ES), shade, lshade, mts-ls1, shade-ils (docs/algorithms.md)",
             "ma-sw-chains|de|jde|pso|ss|sep-cma-es|shade|lshade|mts-ls1|shade-ils",
             algorithm_name(c.algorithm),
             [&c](const std::string& f, const std::string& t) { c.algorithm = parse_algorithm(f, t); });
  add_number(run, o, "--de-np", c.de_np, "de, jde: population size NP (as --population)", kInt,
             parse_int);
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
  add_number(run, o, "--pso-particles", c.pso_particles, "pso: swarm size (as --population)",
             kInt, parse_int);
  add_number(run, o, "--pso-w", c.pso_w, "pso: inertia weight w", kReal, parse_real);
  add_number(run, o, "--pso-c1", c.pso_c1, "pso: cognitive coefficient c1", kReal, parse_real);
  add_number(run, o, "--pso-c2", c.pso_c2, "pso: social coefficient c2", kReal, parse_real);
  add_number(run, o, "--pso-vmax", c.pso_vmax,
             "pso: velocity clamp per variable, a fraction of the domain's width", kReal,
             parse_real);
  add_number(run, o, "--ss-population", c.ss_population,
             "ss: diversification population P (as --population)",
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
  add_number(run, o, "--cma-lambda", c.cma_lambda,
             "sep-cma-es: offspring per generation lambda; 0: 4 + floor(3 ln D)", kInt, parse_int);
  add_number(run, o, "--cma-sigma0", c.cma_sigma0,
             "sep-cma-es: initial step size, a fraction of the domain's width", kReal, parse_real);
  run.add_flag("--cma-ipop", c.cma_ipop,
               "sep-cma-es: restart (new mean, lambda times --cma-ipop-factor) when a stopping "
               "criterion of Auger & Hansen 2005 holds");
  add_number(run, o, "--cma-ipop-factor", c.cma_ipop_factor,
             "sep-cma-es: lambda's factor at each IPOP restart", kReal, parse_real);
  add_shade_family_options(run, o);
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
             "independent runs with seeds --seed .. --seed + K - 1 on one problem instance (the "
             "first run's), one JSON with all and their mean, sd and median (concurrently, a "
             "run per thread)",
             kInt, parse_int);
  run.add_flag("--vary-instance", c.vary_instance,
               "--runs: each run poses the problem instance of its own seed (its shift or CEC "
               "instance from --seed + k) instead of the first run's");
  add_parsed(run, o, "--milestones",
             "also record the best after exactly these evaluations (comma-separated, "
             "increasing; the result's milestones); ma-sw-chains cuts the unit that would cross "
             "one there, de, jde, pso, sep-cma-es, shade and lshade read the best row by row (CPU "
             "backend; not ss, mts-ls1 or shade-ils)",
             "LIST", "none", [&c](const std::string& f, const std::string& t) {
               c.milestones = parse_int64_list(f, t);
             });
}

// The problem: the function, its size and instance, the budget and the seeds.
void add_problem_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
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
  add_parsed(run, o, "--init",
             "start the population from these points: a NumPy .npy file (numpy.save) of shape "
             "(D,) or (points, D), inside the domain; the other members stay random",
             "FILE", "none", [&c](const std::string& f, const std::string& t) {
               const NpyArray a = read_npy_file(f, t);
               if (a.columns != c.dim)
                 throw UserError(f + " = " + t + ": points of " + std::to_string(a.columns) +
                                 " variables for D = " + std::to_string(c.dim));
               c.initial_population = std::make_shared<const std::vector<double>>(a.values);
             });
  add_number(run, o, "--seed", c.seed, "seed of every random decision", kUint, parse_uint64);
  add_number(run, o, "--problem-seed", c.problem_seed,
             "seed of the shift o (where the optimum lies); 0: the run's --seed", kUint,
             parse_uint64);
  run.add_option("--instance", c.instance,
                 "CEC 2010 instance file, text or HDF5 (o, permutation, rotation; see the README), "
                 "the etc function's ETC matrix (text, task-major), for janssen-* the official "
                 "CEC'14/'17 input_data directory, for cec2013-* the official cdatafiles "
                 "directory or an exported instance file; default: generated from --problem-seed")
      ->type_name("FILE|DIR")
      ->check(kNotEmpty);
  add_parsed(run, o, "--domain",
             "every variable in [LOWER, UPPER] instead of the function's conventional domain "
             "(the paper's six and the classic functions; --domain=-1,1 is the normalised box)",
             "LOWER,UPPER", "conventional", [&c](const std::string& f, const std::string& t) {
               const SearchBox box = parse_domain(f, t);
               c.domain_lower = box.lower;
               c.domain_upper = box.upper;
             });
  add_parsed(run, o, "--shift-range",
             "where o lies in the domain: its middle 60% (middle) or anywhere in it (whole, as "
             "CEC 2010 draws o)",
             "middle|whole", "middle", [&c](const std::string& f, const std::string& t) {
               c.shift_range = parse_shift_range(f, t);
             });
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
}

// Where it runs: the backend, the threads, the ranks and GPU slices.
void add_placement_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  const char* kInt = "INT";
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
}

// What it writes: the result file, progress, the profile, checkpoints.
void add_output_options(CLI::App& run, RunOptions& o) {
  run.add_option("--output,-o", o.output, "result JSON file (written whole or not at all; a "
                                          "device or FIFO is written in place); default or -: "
                                          "stdout")
      ->type_name("FILE")
      ->check(kNotEmpty);
  run.add_flag("--quiet,-q", o.quiet, "no progress line and no summary line");
  add_profile_option(run, o);
  run.add_flag("--dry-run", o.dry_run,
               "print the memory plan and whether it fits, then exit (0: fits, 2: does not)");
  add_checkpoint_options(run, o);

}

// MA-SW-Chains' parameters (docs/algorithm.md).
void add_ma_sw_chains_options(CLI::App& run, RunOptions& o) {
  Config& c = o.config;
  const char* kInt = "INT";
  const char* kReal = "REAL";
  add_parsed(run, o, "--population",
             "population size of every algorithm: N of ma-sw-chains, NP of de and jde (alias "
             "--de-np), the particles of pso (--pso-particles), P of ss (--ss-population)",
             "INT",
             fmt::format("{} (ma-sw-chains), {} (de, jde), {} (pso), {} (ss)", c.population_size,
                         c.de_np, c.pso_particles, c.ss_population),
             [&o](const std::string& f, const std::string& t) { o.population = parse_int(f, t); });
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
}

}  // namespace

void add_run_options(CLI::App& run, RunOptions& o) {
  // The last occurrence wins, so a script can append an override to a fixed command line.
  run.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_problem_options(run, o);
  add_placement_options(run, o);
  add_output_options(run, o);
  add_ma_sw_chains_options(run, o);
  add_algorithm_options(run, o);
}

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
  resume.add_option("--output,-o", o.output, "result JSON file; default or -: stdout")
      ->type_name("FILE")
      ->check(kNotEmpty);
  resume.add_flag("--quiet,-q", o.quiet, "no progress line and no summary line");
  add_profile_option(resume, o);
  add_checkpoint_options(resume, o);
  resume.get_option("--checkpoint")
      ->description("where to write checkpoints (default: the resumed file itself)");
}

void check_flags_apply(const CLI::App& run, const RunOptions& o) {
  const AlgorithmKind algorithm = o.config.algorithm;
  for (const FlagScope& scope : flag_scopes()) {
    const CLI::Option* option = run.get_option_no_throw(scope.flag);
    if (option == nullptr || option->count() == 0) continue;
    const auto& applies = scope.algorithms;
    if (std::find(applies.begin(), applies.end(), algorithm) != applies.end()) continue;
    std::string names;
    for (std::size_t i = 0; i < applies.size(); ++i)
      names += (i == 0 ? "" : i + 1 == applies.size() ? " and " : ", ") +
               std::string(algorithm_name(applies[i]));
    throw UserError(fmt::format("{}: applies to --algorithm {} only, not to {}", scope.flag,
                                names, algorithm_name(algorithm)));
  }
  const CLI::Option* every = run.get_option_no_throw("--checkpoint-every");
  if (every != nullptr && every->count() > 0 && o.checkpoint.empty())
    throw UserError("--checkpoint-every: needs --checkpoint FILE (where the checkpoints go)");
}

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

std::string one_line(std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace chainsaw::cli
