#include "core/config.hpp"

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
  }
  return "?";
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
    default: return population_size;
  }
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
    default:
      break;
  }
}

// Exact records need a cut between units: MA-SW-Chains' batches and LS applications can be cut
// The points' shape; that they lie in the domain is checked where the problem is known
// (core/algorithms/initial_population.cpp).
void Config::validate_initial_population() const {
  if (!initial_population || initial_population->empty()) return;
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

// (its restarts are recorded from their fitness values); the population algorithms' generations
// and the islands' shared units are not.
void Config::validate_milestones() const {
  if (milestones.empty()) return;
  std::ostringstream list;
  for (std::size_t i = 0; i < milestones.size(); ++i) list << (i ? "," : "") << milestones[i];
  const std::string prefix = "--milestones = " + list.str() + ": ";
  if (algorithm != AlgorithmKind::kMaSwChains)
    throw UserError(prefix + "only ma-sw-chains records milestones (its units are cut there)");
  if (distribute == Distribute::kIslands)
    throw UserError(prefix + "not with --distribute islands (each island would cut its own)");
  for (std::size_t i = 0; i < milestones.size(); ++i) {
    if (milestones[i] < population_size || milestones[i] > max_evaluations)
      throw UserError(prefix + "each must be between the population size (" +
                      std::to_string(population_size) + ") and --evals (" +
                      std::to_string(max_evaluations) + ")");
    if (i > 0 && milestones[i] <= milestones[i - 1])
      throw UserError(prefix + "must increase");
  }
}

EtcOptions Config::etc_options() const {
  return {etc_class, etc_machines, etc_lambda, etc_flowtime};
}

void Config::validate() const {
  require(dim >= 1, "--dim", dim, "must be at least 1");
  if (is_user_objective_name(function)) {  // a library run on a user objective
    if (function.size() == std::string(kUserObjectivePrefix).size())
      throw UserError("the objective has no name");
    if (!instance.empty()) throw UserError("a user objective reads no --instance file");
  } else {
    const FunctionInfo& info = function_info(function);  // throws for an unknown name
    check_dimension(info, dim);
    const bool etc = info.id == FunctionId::kEtcScheduling;
    if (!instance.empty() && cec2010_number(info.id) == 0 && janssen_number(info.id) == 0 &&
        cec2013_number(info.id) == 0 && !etc)
      throw UserError("--instance = " + instance +
                      ": only the cec2010-*, cec2013-* and janssen-* functions (and etc) read one");
    if (etc) check_etc_options(etc_options());
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
