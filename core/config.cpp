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

namespace {
template <class T>
void require(bool ok, const char* name, T value, const char* rule) {
  if (ok) return;
  std::ostringstream msg;
  msg << name << " = " << value << ": " << rule;
  throw UserError(msg.str());
}
}  // namespace

void Config::validate() const {
  require(dim >= 1, "--dim", dim, "must be at least 1");
  if (is_user_objective_name(function)) {  // a library run on a user objective
    if (function.size() == std::string(kUserObjectivePrefix).size())
      throw UserError("the objective has no name");
    if (!instance.empty()) throw UserError("a user objective reads no --instance file");
  } else {
    const FunctionInfo& info = function_info(function);  // throws for an unknown name
    check_dimension(info, dim);
    if (!instance.empty() && cec2010_number(info.id) == 0)
      throw UserError("--instance = " + instance + ": only the cec2010-* functions read one");
  }
  require(population_size >= 2, "--population", population_size, "must be at least 2");
  require(batch >= 1, "--batch", batch, "must be at least 1");
  require(nam_candidates >= 1 && nam_candidates <= population_size - 1, "--nam-candidates",
          nam_candidates, "must be between 1 and population size - 1");
  require(max_evaluations >= population_size, "--evals", max_evaluations,
          "must be at least the population size (the initial population is evaluated)");
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
