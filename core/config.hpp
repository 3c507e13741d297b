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
enum class AlgorithmKind { kMaSwChains, kDe, kJde, kPso, kScatterSearch };
const char* algorithm_name(AlgorithmKind a);

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
  int capacity() const { return population_size + batch; }
  // The population the chosen algorithm keeps (MA-SW-Chains: N; DE/jDE: NP; PSO: particles;
  // SS: the diversification population P).
  int algorithm_population() const;

  // Throws UserError with one line naming the offending value.
  void validate() const;
  void validate_algorithm() const;  // part of validate(): the fields above
  void validate_milestones() const;  // part of validate(): --milestones
  void validate_initial_population() const;  // part of validate(): its shape
};

}  // namespace chainsaw
