#include "core/config.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "fitness/problem.hpp"

namespace chainsaw {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto: return "auto";
    case Backend::kCpu: return "cpu";
    case Backend::kCuda: return "cuda";
  }
  return "?";
}

const char* distribute_name(Distribute d) {
  switch (d) {
    case Distribute::kNone: return "none";
    case Distribute::kShard: return "shard";
    case Distribute::kIslands: return "islands";
  }
  return "?";
}

const char* algorithm_name(AlgorithmKind a) {
  switch (a) {
    case AlgorithmKind::kMaSwChains: return "ma-sw-chains";
    case AlgorithmKind::kDe: return "de";
    case AlgorithmKind::kJde: return "jde";
    case AlgorithmKind::kPso: return "pso";
    case AlgorithmKind::kScatterSearch: return "ss";
    case AlgorithmKind::kSepCmaEs: return "sep-cma-es";
    case AlgorithmKind::kShade: return "shade";
    case AlgorithmKind::kLshade: return "lshade";
    case AlgorithmKind::kMtsLs1: return "mts-ls1";
    case AlgorithmKind::kShadeIls: return "shade-ils";
  }
  return "?";
}

bool runs_on_cpu_only(AlgorithmKind a) {
  return a == AlgorithmKind::kShade || a == AlgorithmKind::kLshade || a == AlgorithmKind::kMtsLs1 ||
         a == AlgorithmKind::kShadeIls;
}

const char* de_crossover_name(DeCrossover c) {
  return c == DeCrossover::kExponential ? "exp" : "bin";
}

int Config::algorithm_population() const {
  switch (algorithm) {
    case AlgorithmKind::kDe:
    case AlgorithmKind::kJde: return de_np;
    case AlgorithmKind::kPso: return pso_particles;
    case AlgorithmKind::kScatterSearch: return ss_population;
    case AlgorithmKind::kSepCmaEs: return cma_initial_lambda();
    case AlgorithmKind::kShade: return shade_np;
    case AlgorithmKind::kLshade: return lshade_initial_np();
    case AlgorithmKind::kMtsLs1: return 1;
    case AlgorithmKind::kShadeIls: return shade_np + 1;  // and the midpoint
    default: return population_size;
  }
}

int Config::cma_initial_lambda() const {
  if (cma_lambda > 0) return cma_lambda;
  return 4 + static_cast<int>(std::floor(3.0 * std::log(static_cast<double>(dim))));
}

namespace {
template <class T>
void require(bool ok, const char* name, T value, const char* rule) {
  if (ok) return;
  std::ostringstream msg;
  msg << name << " = " << value << ": " << rule;
  throw UserError(msg.str());
}
}  // namespace

// The new algorithms' flags and the stopping criteria; only the chosen algorithm's values are
// checked, so that a script can keep one flag set for several algorithms.
void Config::validate_algorithm() const {
  require(runs >= 1, "--runs", runs, "must be at least 1");
  require(std::isfinite(time_limit_seconds) && time_limit_seconds >= 0.0, "--time-limit",
          time_limit_seconds, "must be a duration >= 0 (0: none)");
  require(!std::isnan(target_error), "--target-error", target_error, "must be a number >= 0");
  // Refused before a device is looked for.
  if (backend == Backend::kCuda && runs_on_cpu_only(algorithm))
    throw UserError(std::string("--algorithm ") + algorithm_name(algorithm) +
                    " --backend cuda: it runs on the CPU backend only; use --backend cpu");
  switch (algorithm) {
    case AlgorithmKind::kDe:
    case AlgorithmKind::kJde:
      require(de_np >= 4, "--de-np", de_np, "must be at least 4 (DE/rand/1 draws 3 others)");
      require(std::isfinite(de_f) && de_f > 0.0, "--de-f", de_f, "must be a finite number > 0");
      require(de_cr >= 0.0 && de_cr <= 1.0, "--de-cr", de_cr, "must be in [0, 1]");
      require(jde_tau1 >= 0.0 && jde_tau1 <= 1.0, "--jde-tau1", jde_tau1, "must be in [0, 1]");
      require(jde_tau2 >= 0.0 && jde_tau2 <= 1.0, "--jde-tau2", jde_tau2, "must be in [0, 1]");
      break;
    case AlgorithmKind::kPso:
      require(pso_particles >= 2, "--pso-particles", pso_particles, "must be at least 2");
      require(std::isfinite(pso_w), "--pso-w", pso_w, "must be a finite number");
      require(std::isfinite(pso_c1) && pso_c1 >= 0.0, "--pso-c1", pso_c1,
              "must be a finite number >= 0");
      require(std::isfinite(pso_c2) && pso_c2 >= 0.0, "--pso-c2", pso_c2,
              "must be a finite number >= 0");
      require(std::isfinite(pso_vmax) && pso_vmax > 0.0, "--pso-vmax", pso_vmax,
              "must be a finite number > 0 (a fraction of the domain's width)");
      break;
    case AlgorithmKind::kScatterSearch:
      require(ss_ref_best >= 1, "--ss-ref-best", ss_ref_best, "must be at least 1");
      require(ss_ref_diverse >= 0, "--ss-ref-diverse", ss_ref_diverse, "must be >= 0");
      require(ss_ref_best + ss_ref_diverse >= 2, "--ss-ref-best", ss_ref_best,
              "plus --ss-ref-diverse must be at least 2 (pairs are combined)");
      require(ss_population >= ss_ref_best + ss_ref_diverse, "--ss-population", ss_population,
              "must be at least --ss-ref-best + --ss-ref-diverse");
      require(std::isfinite(ss_lambda) && ss_lambda >= 0.0 && ss_lambda <= 0.5, "--ss-lambda",
              ss_lambda, "must be in [0, 0.5]");
      require(ss_ls_iterations >= 0, "--ss-ls-iterations", ss_ls_iterations, "must be >= 0");
      break;
    case AlgorithmKind::kSepCmaEs:
      require(cma_lambda == 0 || cma_lambda >= 2, "--cma-lambda", cma_lambda,
              "must be at least 2 (0: 4 + floor(3 ln D))");
      require(std::isfinite(cma_sigma0) && cma_sigma0 > 0.0, "--cma-sigma0", cma_sigma0,
              "must be a finite number > 0 (a fraction of the domain's width)");
      require(std::isfinite(cma_ipop_factor) && cma_ipop_factor >= 1.0 && cma_ipop_factor <= 100.0,
              "--cma-ipop-factor", cma_ipop_factor, "must be in [1, 100]");
      break;
    case AlgorithmKind::kShade:
    case AlgorithmKind::kLshade:
    case AlgorithmKind::kMtsLs1:
    case AlgorithmKind::kShadeIls:
      validate_shade_family();
      break;
    default:
      break;
  }
}

int Config::lshade_initial_np() const {
  const double n = std::round(lshade_np_per_dim * static_cast<double>(dim));
  return static_cast<int>(std::max<double>(lshade_np_min, std::min<double>(n, lshade_np_max)));
}

void Config::validate_shade_family() const {
  const char* kFinite = "must be a finite number > 0";
  require(shade_np >= 4, "--shade-np", shade_np, "must be at least 4 (r1, r2 and p-best)");
  require(shade_h >= 1, "--shade-h", shade_h, "must be at least 1");
  require(std::isfinite(shade_archive_rate) && shade_archive_rate >= 0.0, "--shade-archive-rate",
          shade_archive_rate, "must be a finite number >= 0");
  require(shade_p_max >= 2.0 / shade_np && shade_p_max <= 1.0, "--shade-p-max", shade_p_max,
          "must be in [2 / --shade-np, 1]");
  require(std::isfinite(lshade_np_per_dim) && lshade_np_per_dim > 0.0, "--lshade-np-per-dim",
          lshade_np_per_dim, kFinite);
  require(lshade_np_min >= 4, "--lshade-np-min", lshade_np_min, "must be at least 4");
  require(lshade_np_max >= lshade_np_min, "--lshade-np-max", lshade_np_max,
          "must be at least --lshade-np-min");
  require(lshade_h >= 1, "--lshade-h", lshade_h, "must be at least 1");
  require(std::isfinite(lshade_archive_rate) && lshade_archive_rate >= 0.0,
          "--lshade-archive-rate", lshade_archive_rate, "must be a finite number >= 0");
  require(lshade_p > 0.0 && lshade_p <= 1.0, "--lshade-p", lshade_p, "must be in (0, 1]");
  require(std::isfinite(mts_sr) && mts_sr > 0.0, "--mts-sr", mts_sr, kFinite);
  require(mts_evals >= 0, "--mts-evals", mts_evals, "must be >= 0 (0: min(10 D, 5000))");
  require(shade_ils_de_evals >= 0, "--shade-ils-de-evals", shade_ils_de_evals,
          "must be >= 0 (0: min(50 D, 25000))");
  require(shade_ils_global_evals >= -1, "--shade-ils-global-evals", shade_ils_global_evals,
          "must be >= -1 (0: min(50 D, 25000); -1: none)");
  require(shade_ils_ls_evals >= 0, "--shade-ils-ls-evals", shade_ils_ls_evals,
          "must be >= 0 (0: min(10 D, 5000))");
  require(std::isfinite(shade_ils_threshold) && shade_ils_threshold >= 0.0,
          "--shade-ils-threshold", shade_ils_threshold, "must be a finite number >= 0");
}

// The points' shape; that they lie in the domain is checked where the problem is known
// (core/algorithms/initial_population.cpp).
void Config::validate_initial_population() const {
  if (!initial_population || initial_population->empty()) return;
  if (algorithm != AlgorithmKind::kMaSwChains && algorithm != AlgorithmKind::kDe &&
      algorithm != AlgorithmKind::kJde && algorithm != AlgorithmKind::kPso &&
      algorithm != AlgorithmKind::kScatterSearch)
    throw UserError(std::string("--init (x0, population=): ") + algorithm_name(algorithm) +
                    " does not take given points yet; ma-sw-chains, de, jde, pso and ss do");
  const auto values = static_cast<std::int64_t>(initial_population->size());
  if (dim < 1 || values % dim != 0)
    throw UserError("--init: " + std::to_string(values) + " values are not rows of D = " +
                    std::to_string(dim) + " variables");
  const std::int64_t rows = values / dim;
  if (rows > algorithm_population())
    throw UserError("--init: " + std::to_string(rows) + " points for a population of " +
                    std::to_string(algorithm_population()) + " (" + algorithm_name(algorithm) +
                    "; --population sets its size)");
  for (double v : *initial_population)
    if (!std::isfinite(v)) throw UserError("--init: a point has a value that is not finite");
}

// Exact records: MA-SW-Chains cuts its batches and LS applications at a mark (its restarts are
// recorded from their fitness values); the population algorithms and the local searches of
// MTS-LS1 and SHADE-ILS read the running best row by row as they count their evaluations. The
// islands' shared units would each cut their own.
void Config::validate_milestones() const {
  if (milestones.empty()) return;
  std::ostringstream list;
  for (std::size_t i = 0; i < milestones.size(); ++i) list << (i ? "," : "") << milestones[i];
  const std::string prefix = "--milestones = " + list.str() + ": ";
  if (distribute == Distribute::kIslands)
    throw UserError(prefix + "not with --distribute islands (each island would cut its own)");
  if (algorithm == AlgorithmKind::kScatterSearch)
    throw UserError(prefix + "ss does not record them (its improvements run side by side, so "
                             "its evaluations have no order to cut)");
  // MA-SW-Chains' first mark is its initial population's end, where its first unit can begin.
  const std::int64_t first = algorithm == AlgorithmKind::kMaSwChains ? population_size : 1;
  for (std::size_t i = 0; i < milestones.size(); ++i) {
    if (milestones[i] < first || milestones[i] > max_evaluations)
      throw UserError(prefix + "each must be between " +
                      (algorithm == AlgorithmKind::kMaSwChains
                           ? "the population size (" + std::to_string(population_size) + ")"
                           : std::string("1")) +
                      " and --evals (" + std::to_string(max_evaluations) + ")");
    if (i > 0 && milestones[i] <= milestones[i - 1])
      throw UserError(prefix + "must increase");
  }
}

EtcOptions Config::etc_options() const {
  return {etc_class, etc_machines, etc_lambda, etc_flowtime};
}

SearchBox Config::search_box() const { return {domain_lower, domain_upper, shift_range}; }

void Config::validate() const {
  require(dim >= 1, "--dim", dim, "must be at least 1");
  if (is_user_objective_name(function)) {  // a library run on a user objective
    if (function.size() == std::string(kUserObjectivePrefix).size())
      throw UserError("the objective has no name");
    if (!instance.empty()) throw UserError("a user objective reads no --instance file");
    if (!search_box().is_default())
      throw UserError("--domain, --shift-range: a user objective has its own domain and optimum");
  } else {
    const FunctionInfo& info = function_info(function);  // throws for an unknown name
    check_dimension(info, dim);
    const bool etc = info.id == FunctionId::kEtcScheduling;
    if (!instance.empty() && cec2010_number(info.id) == 0 && janssen_number(info.id) == 0 &&
        cec2013_number(info.id) == 0 && !etc)
      throw UserError("--instance = " + instance +
                      ": only the cec2010-*, cec2013-* and janssen-* functions (and etc) read one");
    if (etc) check_etc_options(etc_options());
    check_search_box(info, search_box());
  }
  if (!(domain_lower == 0.0 && domain_upper == 0.0) && !(domain_lower < domain_upper)) {
    std::ostringstream msg;
    msg << "--domain = " << domain_lower << "," << domain_upper << ": LOWER must be below UPPER";
    throw UserError(msg.str());
  }
  require(population_size >= 2, "--population", population_size, "must be at least 2");
  require(batch >= 1, "--batch", batch, "must be at least 1");
  require(nam_candidates >= 1 && nam_candidates <= population_size - 1, "--nam-candidates",
          nam_candidates, "must be between 1 and population size - 1");
  validate_algorithm();
  require(max_evaluations >= algorithm_population(), "--evals", max_evaluations,
          "must be at least the population size (the initial population is evaluated)");
  validate_milestones();
  validate_initial_population();
  require(std::isfinite(blx_alpha) && blx_alpha >= 0.0, "--blx-alpha", blx_alpha,
          "must be a finite number >= 0");
  require(mutation_probability >= 0.0 && mutation_probability <= 1.0, "--mutation-probability",
          mutation_probability, "must be in [0, 1]");
  require(ls_intensity >= 1, "--ls-intensity", ls_intensity, "must be at least 1");
  require(ls_ratio >= 0.0 && ls_ratio < 1.0, "--ls-ratio", ls_ratio, "must be in [0, 1)");
  require(std::isfinite(ls_improvement_threshold) && ls_improvement_threshold >= 0.0,
          "--ls-threshold", ls_improvement_threshold, "must be a finite number >= 0");
  require(std::isfinite(solis_wets.rho0) && solis_wets.rho0 > 0.0, "--rho0", solis_wets.rho0,
          "must be a finite number > 0");
  require(solis_wets.max_successes >= 1, "--sw-successes", solis_wets.max_successes,
          "must be at least 1");
  require(solis_wets.max_failures >= 1, "--sw-failures", solis_wets.max_failures,
          "must be at least 1");
  require(threads >= 0, "--threads", threads, "must be >= 0 (0: OpenMP's default)");
  require(gpu_slices >= 1 && gpu_slices <= 4096, "--gpu-slices", gpu_slices,
          "must be in [1, 4096]");
  require(migration_interval >= 1, "--migration-every", migration_interval,
          "must be at least 1 evaluation");
  // Islands migrate at the same unit on every rank because their evaluation counts advance in
  // the same steps; a restart (decided by each island's own fitness) would break that.
  if (distribute == Distribute::kIslands && restart)
    throw UserError("--restart cannot be combined with --distribute islands: a restart changes "
                    "one island's evaluation count, and the islands migrate in step");
  // Slot indices are int and gene offsets 64-bit; guard the product anyway.
  require(dim <= (Dim{1} << 40) / capacity(), "--dim", dim,
          "times the number of slots exceeds 2^40 genes");
}

}  // namespace chainsaw
