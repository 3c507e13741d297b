// Everything a run is configured by, with the algorithm's defaults (algorithm.md's table).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "localsearch/solis_wets.hpp"

namespace chainsaw {

struct EtcOptions;  // fitness/problem.hpp
struct SearchBox;   // fitness/problem.hpp
enum class ShiftRange;  // fitness/problem.hpp; a value-initialised one is kMiddle

enum class Backend { kAuto, kCpu, kCuda };
const char* backend_name(Backend b);

// How a run spreads over the ranks of an MPI job (`--distribute`; docs/distributed.md).
enum class Distribute {
  kNone,     // one process
  kShard,    // one population, every individual's genes split over the ranks
  kIslands,  // a population per rank; the best migrates around a ring every migration_interval
};
const char* distribute_name(Distribute d);

// How a fresh Solis-Wets chain picks its first rho; d = the Euclidean distance from the
// individual to its nearest other member (a distinct point), D the dimension.
enum class RhoInit {
  kFixed,       // rho0 (Lastra et al. 2014 §4.2: 0.2)
  kNearestRms,  // d / (2 sqrt(D)): half the per-gene RMS distance, capped at 0.1 x width
  kReference,   // min(d / (2 D), rho0): the reference code's rule (Rmalschains, getInitOptions)
};

// Which optimizer a run uses (`--algorithm`; docs/algorithms.md); each is an Algorithm
// (core/algorithms/algorithm.hpp) made by make_algorithm.
enum class AlgorithmKind {
  kMaSwChains, kDe, kJde, kPso, kScatterSearch, kSepCmaEs,
  kShade, kLshade, kMtsLs1, kShadeIls,  // the SHADE family (docs/algorithms.md)
};
const char* algorithm_name(AlgorithmKind a);
// The algorithms without a GPU implementation yet (the SHADE family and MTS-LS1):
// Config::validate refuses them with --backend cuda, --backend auto runs them on the CPU.
bool runs_on_cpu_only(AlgorithmKind a);

// DE's crossover (`--de-crossover`): binomial or exponential.
enum class DeCrossover { kBinomial, kExponential };
const char* de_crossover_name(DeCrossover c);

struct Config {
  // Problem
  std::string function = "rastrigin";
  Dim dim = 100000;
  std::int64_t max_evaluations = 500000;
  std::uint64_t seed = 1;
  std::uint64_t problem_seed = 0;  // where the optimum lies; 0 means "the run's seed"
  // CEC 2010 instance file (o, P, M) or the `etc` function's ETC matrix file; empty: generated
  // from problem_seed
  std::string instance;
  // The `etc` function (task scheduling): Braun's class of the generated matrix, machines, and
  // the makespan weight lambda, what flowtime sums ("completion" or "loads"); its tasks are dim.
  std::string etc_class = "u_c_hihi";
  int etc_machines = 16;
  double etc_lambda = 0.75;
  std::string etc_flowtime = "completion";
  // The search box (`--domain`, `--shift-range`): domain_lower < domain_upper replaces the
  // function's conventional domain; o in the box's middle 60% (kMiddle) or anywhere in it.
  double domain_lower = 0.0;
  double domain_upper = 0.0;
  ShiftRange shift_range{};

  // Steady-state GA
  int population_size = 50;
  int batch = 20;  // children per crossover batch = padding slots
  double blx_alpha = 0.5;
  int nam_candidates = 3;
  double mutation_probability = 0.125;

  // Local search chains
  std::int64_t ls_intensity = 500;  // I_str
  double ls_ratio = 0.5;            // r_L/G
  double ls_improvement_threshold = 1e-8;  // delta, relative
  SolisWetsParams solis_wets;
  RhoInit rho_init = RhoInit::kFixed;
  bool restart = false;

  // Execution
  Backend backend = Backend::kAuto;
  int threads = 0;  // 0: OpenMP's default
  Distribute distribute = Distribute::kNone;
  std::int64_t migration_interval = 10000;  // islands: evaluations (of each island) between migrations
  // The CUDA backend lays every individual's genes out in this many slices, each with its own
  // launch wave, random streams and partials: a sharded run on P GPUs has P, and one GPU with
  // P slices runs it bit for bit (docs/distributed.md, "On GPUs").
  int gpu_slices = 1;

  // Which algorithm, and the parameters of the others (docs/algorithms.md has the defaults'
  // sources). Every field is additive: MA-SW-Chains reads none of them.
  AlgorithmKind algorithm = AlgorithmKind::kMaSwChains;
  int de_np = 250;  // DE and jDE: population size NP (Janssen et al., case study 1)
  double de_f = 0.5;
  double de_cr = 0.3;
  DeCrossover de_crossover = DeCrossover::kBinomial;
  double jde_tau1 = 0.1;  // jDE (Brest et al. 2006): probability of a new F
  double jde_tau2 = 0.1;  // and of a new CR
  int pso_particles = 125;  // PSO (Nashed et al. Table 1)
  double pso_w = 0.494;
  double pso_c1 = 1.862;
  double pso_c2 = 1.881;
  // Velocity clamp, a fraction of the domain's width per variable: at 0.2 one seed in twenty
  // of the 30-D sphere stagnated (the swarm collapsed away from the optimum), at 0.1 none.
  double pso_vmax = 0.1;
  int ss_population = 140;  // Scatter Search (Nashed et al. Table 1): diversification P
  int ss_ref_best = 9;      // |R1|
  int ss_ref_diverse = 1;   // |R2|
  double ss_lambda = 0.22;  // BLX-alpha with alpha = 0.5 +- lambda
  int ss_ls_iterations = 85;  // Solis-Wets iterations per improvement
  // sep-CMA-ES (Ros & Hansen 2008; defaults of Hansen's tutorial 2016, IPOP of Auger & Hansen
  // 2005): lambda 0 means 4 + floor(3 ln D); sigma0 is a fraction of the domain's width.
  int cma_lambda = 0;
  double cma_sigma0 = 0.3;
  bool cma_ipop = false;
  double cma_ipop_factor = 2.0;
  // The SHADE family (docs/algorithms.md has each default's source).
  int shade_np = 100;                // SHADE, SHADE-ILS: N (Tanabe & Fukunaga 2013)
  int shade_h = 100;                 // memory size H (= N there)
  double shade_archive_rate = 1.0;   // |A| = rate x N
  double shade_p_max = 0.2;          // p_i uniform in [2/N, p_max]
  double lshade_np_per_dim = 18.0;   // L-SHADE (Tanabe & Fukunaga 2014): N_init = 18 D ...
  int lshade_np_max = 1800;          // ... at most this (18 x 100, the paper's largest D)
  int lshade_np_min = 4;
  int lshade_h = 6;
  double lshade_archive_rate = 2.6;
  double lshade_p = 0.11;
  double mts_sr = 0.2;               // MTS-LS1's first step, a fraction of the width
  std::int64_t mts_evals = 0;        // mts-ls1: evaluations per application; 0: min(10 D, 5000)
  std::int64_t shade_ils_de_evals = 0;      // SHADE-ILS phases; 0: min(50 D, 25000)
  std::int64_t shade_ils_global_evals = 0;  // 0: min(50 D, 25000); -1: no global phase
  std::int64_t shade_ils_ls_evals = 0;      // 0: min(10 D, 5000)
  double shade_ils_threshold = 0.01;  // restart after 3 iterations improving less than this

  // Stopping criteria beside the budget (every algorithm).
  double time_limit_seconds = 0.0;  // --time-limit; 0: none
  double target_error = -1.0;       // --target-error: stop when f - f* <= it; < 0: none
  int runs = 1;                     // --runs K: seeds seed .. seed + K - 1
  // --vary-instance: run k of --runs poses the problem of its own seed (problem_seed 0), where
  // by default every run poses the first run's (the field's protocol: one instance, K seeds).
  bool vary_instance = false;
  // --milestones: evaluation counts (increasing, within the budget) at which MA-SW-Chains
  // records its best; the unit that would cross one is cut there, as the budget cuts the last.
  std::vector<std::int64_t> milestones;

  // Points the initial population starts from (--init, Python's x0= and population=): rows of
  // dim values, row-major, inside the domain; the first rows' members take them, the others
  // stay random (core/algorithms/initial_population.hpp). Null or empty: all random.
  std::shared_ptr<const std::vector<double>> initial_population;

  std::uint64_t effective_problem_seed() const { return problem_seed ? problem_seed : seed; }
  EtcOptions etc_options() const;
  SearchBox search_box() const;
  int capacity() const { return population_size + batch; }
  // The population the chosen algorithm keeps (MA-SW-Chains: N; DE/jDE: NP; PSO: particles;
  // SS: the diversification population P; sep-CMA-ES: its first lambda).
  int algorithm_population() const;
  // sep-CMA-ES's first lambda: --cma-lambda, or 4 + floor(3 ln D) (Hansen 2016, eq. 48).
  int cma_initial_lambda() const;
  // L-SHADE's N_init: lshade_np_per_dim x D, within [lshade_np_min, lshade_np_max].
  int lshade_initial_np() const;

  // Throws UserError with one line naming the offending value.
  void validate() const;
  void validate_algorithm() const;  // part of validate(): the fields above
  void validate_shade_family() const;  // part of validate_algorithm()
  void validate_milestones() const;  // part of validate(): --milestones
  void validate_initial_population() const;  // part of validate(): its shape
};

}  // namespace chainsaw
