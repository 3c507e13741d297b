#include "core/algorithms/shade_ils.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/algorithms/population_ops.hpp"
#include "core/algorithms/shade.hpp"
#include "localsearch/lbfgsb.hpp"
#include "localsearch/mts_ls1.hpp"

namespace chainsaw {

namespace {
constexpr int kFailuresToRestart = 3;  // the authors' code
constexpr double kRestartMove = 0.01;  // of the width, per variable
}  // namespace

void MethodPool::reset(std::uint64_t key) {
  const bool swap = uniform_at(key, 0) < 0.5;
  order[0] = swap ? 1 : 0;
  order[1] = swap ? 0 : 1;
  tried = 0;
  improvement[0] = improvement[1] = 0.0;
  chosen = -1;
}

LocalMethod MethodPool::next() {
  if (tried < 2) return static_cast<LocalMethod>(order[tried++]);
  if (chosen < 0) chosen = best();
  return static_cast<LocalMethod>(chosen);
}

void MethodPool::credit(LocalMethod method, double ratio) {
  if (ratio < 0.0) return;
  const int m = static_cast<int>(method);
  const double previous = improvement[m];
  improvement[m] = ratio;
  if (tried < 2) return;  // still trying each once
  if (chosen < 0 || ratio == 0.0 || ratio < previous) chosen = best();
}

double improvement_ratio(double before, double after) {
  return before == 0.0 ? 0.0 : (before - after) / std::abs(before);
}

ShadeIls::ShadeIls(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      dim_(problem.dim),
      population_(shade_settings(config), config.shade_np, problem.dim),
      current_(static_cast<std::size_t>(problem.dim)),
      best_(static_cast<std::size_t>(problem.dim)),
      global_ranges_(static_cast<std::size_t>(problem.dim), config.mts_sr * problem.width()),
      local_ranges_(global_ranges_) {}

std::int64_t ShadeIls::global_evals() const {
  if (config_.shade_ils_global_evals < 0) return 0;
  return config_.shade_ils_global_evals > 0 ? config_.shade_ils_global_evals
                                            : std::min<std::int64_t>(50 * dim_, 25000);
}
std::int64_t ShadeIls::de_evals() const {
  return config_.shade_ils_de_evals > 0 ? config_.shade_ils_de_evals
                                        : std::min<std::int64_t>(50 * dim_, 25000);
}
std::int64_t ShadeIls::local_evals() const {
  return config_.shade_ils_ls_evals > 0 ? config_.shade_ils_ls_evals
                                        : std::min<std::int64_t>(10 * dim_, 5000);
}

// The midpoint of the domain and a random population; the better of the midpoint and the
// population's best is the current best (the authors' start).
void ShadeIls::initialize_members() {
  std::fill(current_.begin(), current_.end(),
            static_cast<real_t>(0.5 * (problem_.lower + problem_.upper)));
  evaluate_rows(current_.data(), 1, &current_fitness_);
  count_ga_evaluations(&current_fitness_, 1);
  population_.randomize(config_.seed, 0, problem_.lower, problem_.upper);
  evaluate_rows(population_.genes().data(), population_.size(), population_.fitness().data());
  count_ga_evaluations(population_.fitness().data(), population_.size());
  const int b = population_.best();
  if (population_.fitness()[b] <= current_fitness_) {
    std::copy_n(population_.row(b), dim_, current_.begin());
    current_fitness_ = population_.fitness()[b];
  }
  global_pool_.reset(shade_key(config_.seed, ShadePurpose::kMethodOrder, 0, 0));
  local_pool_.reset(shade_key(config_.seed, ShadePurpose::kMethodOrder, 0, 1));
  best_ = current_;
  best_fitness_ = current_fitness_;
}

bool ShadeIls::next_unit_cut_by_budget() const {
  const std::int64_t left = config_.max_evaluations - counters_.evaluations;
  if (phase_ == kGlobal) return left < (global_evals() > 0 ? global_evals() : de_evals());
  if (phase_ == kShade) return left < de_evals();
  const bool may_restart = failures_ + 1 >= kFailuresToRestart;
  return left < local_evals() + (may_restart ? population_.size() + 1 : 0);
}

// The method is chosen by the phase's own budget, so that a run whose budget ends inside the
// phase makes the same first evaluations as a longer run (--milestones).
LocalMethod ShadeIls::local_search(LocalMethod wanted, std::int64_t budget,
                                   std::int64_t evaluations_left, std::vector<double>& sr) {
  ScopedPhase phase(timers_, Phase::kLocalSearch);
  LocalMethod ran = wanted;
  if (wanted == LocalMethod::kLbfgsb && budget >= dim_ + 1 && lbfgsb_available()) {
    const EvaluateRows evaluate = [this](const real_t* genes, int rows, double* out) {
      evaluate_ls_rows(genes, rows, out);
    };
    lbfgsb_minimize(evaluate, current_.data(), current_fitness_, dim_, budget, problem_.lower,
                    problem_.upper, std::min(budget, evaluations_left));
  } else {
    ran = LocalMethod::kMtsLs1;
    const EvaluateOne evaluate = [this](const real_t* x) {
      double f = 0.0;
      evaluate_ls_rows(x, 1, &f);
      return f;
    };
    mts_ls1(evaluate, current_.data(), current_fitness_, dim_, sr,
            std::min(budget, evaluations_left),
            shade_key(config_.seed, ShadePurpose::kMtsOrder, static_cast<std::uint64_t>(unit_), 0),
            problem_.lower, problem_.upper, config_.mts_sr * problem_.width());
  }
  counters_.ls_applications += 1;
  return ran;
}

void ShadeIls::run_shade(std::int64_t budget) {
  const int b = population_.best();
  if (current_fitness_ < population_.fitness()[b]) {
    std::copy(current_.begin(), current_.end(), population_.row(b));
    population_.fitness()[b] = current_fitness_;
  }
  for (std::int64_t used = 0; used < budget; ++generation_) {
    const int count = static_cast<int>(std::min<std::int64_t>(population_.size(), budget - used));
    const auto generation = static_cast<std::uint64_t>(generation_);
    {
      ScopedPhase phase(timers_, Phase::kCrossover);
      population_.make_trials(count, config_.seed, generation, problem_.lower, problem_.upper);
      evaluate_rows(population_.trials().data(), count, population_.trial_fitness().data());
    }
    count_ga_evaluations(population_.trial_fitness().data(), count);
    ScopedPhase phase(timers_, Phase::kSelection);
    population_.select(count, config_.seed, generation);
    used += count;
  }
  const int after = population_.best();
  if (population_.fitness()[after] < current_fitness_) {
    std::copy_n(population_.row(after), dim_, current_.begin());
    current_fitness_ = population_.fitness()[after];
  }
}

void ShadeIls::keep_best() {
  if (current_fitness_ < best_fitness_) {
    best_ = current_;
    best_fitness_ = current_fitness_;
  }
}

void ShadeIls::advance_unit(std::int64_t evaluations_left) {
  if (phase_ == kGlobal) {
    iteration_start_fitness_ = current_fitness_;
    phase_ = kShade;
    if (global_evals() > 0) {
      const double before = current_fitness_;
      const LocalMethod ran =
          local_search(global_pool_.next(), global_evals(), evaluations_left, global_ranges_);
      global_pool_.credit(ran, improvement_ratio(before, current_fitness_));
      keep_best();
      return;
    }
  }
  if (phase_ == kShade) {
    local_ranges_ = global_ranges_;
    local_method_ = local_pool_.next();
    run_shade(std::min(de_evals(), evaluations_left));
    keep_best();
    phase_ = kLocal;
    return;
  }
  const double before = current_fitness_;
  local_method_ = local_search(local_method_, local_evals(), evaluations_left, local_ranges_);
  local_pool_.credit(local_method_, improvement_ratio(before, current_fitness_));
  keep_best();
  end_iteration(config_.max_evaluations - counters_.evaluations);
  phase_ = kGlobal;
}

// The restart rule of the authors' code, after an iteration's local search.
void ShadeIls::end_iteration(std::int64_t evaluations_left) {
  const double ratio = iteration_start_fitness_ == 0.0
                           ? 1.0
                           : improvement_ratio(iteration_start_fitness_, current_fitness_);
  if (ratio >= config_.shade_ils_threshold) {
    failures_ = 0;
    return;
  }
  ++failures_;
  if (local_method_ == LocalMethod::kMtsLs1)
    std::fill(global_ranges_.begin(), global_ranges_.end(), config_.mts_sr * problem_.width());
  if (failures_ >= kFailuresToRestart && evaluations_left > 0) restart(evaluations_left);
}

// N + 1 evaluations; where the run's budget ends inside them, only their first ones (the
// members not evaluated rank last), as every phase is cut.
void ShadeIls::restart(std::int64_t evaluations_left) {
  failures_ = 0;
  const auto operation = static_cast<std::uint64_t>(counters_.restarts + 1);
  const std::uint64_t key = shade_key(config_.seed, ShadePurpose::kRestart, operation, 0);
  const int from = static_cast<int>(
      below_from(u64_at(key, 0), static_cast<std::uint32_t>(population_.size())));
  const real_t* x = population_.row(from);
  const double width = problem_.width();
  for (Dim j = 0; j < dim_; ++j) {
    const double move = (2.0 * uniform_at(key, 1 + static_cast<std::uint64_t>(j)) - 1.0) *
                        kRestartMove * width;
    current_[j] = static_cast<real_t>(
        std::min(problem_.upper, std::max(problem_.lower, static_cast<double>(x[j]) + move)));
  }
  evaluate_rows(current_.data(), 1, &current_fitness_);
  count_ga_evaluations(&current_fitness_, 1);
  population_.randomize(config_.seed, operation, problem_.lower, problem_.upper);
  const int members = static_cast<int>(
      std::min<std::int64_t>(population_.size(), evaluations_left - 1));
  std::fill(population_.fitness().begin(), population_.fitness().end(),
            std::numeric_limits<double>::infinity());
  evaluate_rows(population_.genes().data(), members, population_.fitness().data());
  count_ga_evaluations(population_.fitness().data(), members);
  population_.reset_memories();
  population_.clear_archive();
  global_pool_.reset(shade_key(config_.seed, ShadePurpose::kMethodOrder, operation, 0));
  local_pool_.reset(shade_key(config_.seed, ShadePurpose::kMethodOrder, operation, 1));
  std::fill(global_ranges_.begin(), global_ranges_.end(), config_.mts_sr * width);
  counters_.restarts += 1;
  keep_best();
  // The best so far is the best evaluated, a fresh member's too.
  const int b = population_.best();
  if (population_.fitness()[b] < best_fitness_) {
    std::copy_n(population_.row(b), dim_, best_.begin());
    best_fitness_ = population_.fitness()[b];
  }
}

namespace {
void save_pool(AlgorithmState& s, const std::string& name, const MethodPool& p) {
  s.integers[name + "_order"] = p.order[0];
  s.integers[name + "_tried"] = p.tried;
  s.integers[name + "_chosen"] = p.chosen;
  s.reals[name + "_improvement"] = {p.improvement[0], p.improvement[1]};
}
void restore_pool(const AlgorithmState& s, const std::string& name, MethodPool& p) {
  p.order[0] = static_cast<int>(state_integer(s, name + "_order")) == 1 ? 1 : 0;
  p.order[1] = 1 - p.order[0];
  p.tried = static_cast<int>(state_integer(s, name + "_tried"));
  p.chosen = static_cast<int>(state_integer(s, name + "_chosen"));
  const std::vector<double>& v = state_reals(s, name + "_improvement", 2);
  p.improvement[0] = v[0];
  p.improvement[1] = v[1];
}
}  // namespace

void ShadeIls::save_arrays(AlgorithmState& s) const {
  population_.save(s, "shade_");
  s.genes["current"] = current_;
  s.genes["best"] = best_;
  s.reals["fitness"] = {current_fitness_, best_fitness_, iteration_start_fitness_};
  s.reals["global_ranges"] = global_ranges_;
  s.reals["local_ranges"] = local_ranges_;
  save_pool(s, "global_pool", global_pool_);
  save_pool(s, "local_pool", local_pool_);
  s.integers["phase"] = phase_;
  s.integers["failures"] = failures_;
  s.integers["local_method"] = static_cast<int>(local_method_);
  s.integers["generation"] = generation_;
}

void ShadeIls::restore_arrays(const AlgorithmState& s) {
  population_.restore(s, "shade_");
  current_ = genes_of(s, "current", current_.size());
  best_ = genes_of(s, "best", best_.size());
  const std::vector<double>& f = reals_of(s, "fitness", 3);
  current_fitness_ = f[0];
  best_fitness_ = f[1];
  iteration_start_fitness_ = f[2];
  global_ranges_ = reals_of(s, "global_ranges", global_ranges_.size());
  local_ranges_ = reals_of(s, "local_ranges", local_ranges_.size());
  restore_pool(s, "global_pool", global_pool_);
  restore_pool(s, "local_pool", local_pool_);
  phase_ = static_cast<int>(integer_of(s, "phase")) % 3;
  failures_ = static_cast<int>(integer_of(s, "failures"));
  local_method_ = integer_of(s, "local_method") == 1 ? LocalMethod::kLbfgsb : LocalMethod::kMtsLs1;
  generation_ = integer_of(s, "generation");
}

}  // namespace chainsaw
