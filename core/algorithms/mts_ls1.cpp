#include "core/algorithms/mts_ls1.hpp"

#include <algorithm>

#include "core/algorithms/population_ops.hpp"
#include "core/algorithms/shade_population.hpp"
#include "localsearch/mts_ls1.hpp"

namespace chainsaw {

std::int64_t mts_application_evals(const Config& config, Dim dim) {
  return config.mts_evals > 0 ? config.mts_evals : std::min<std::int64_t>(10 * dim, 5000);
}

MtsLs1::MtsLs1(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      solution_(static_cast<std::size_t>(problem.dim)),
      search_range_(static_cast<std::size_t>(problem.dim), config.mts_sr * problem.width()) {}

void MtsLs1::initialize_members() {
  const std::uint64_t key = shade_key(config_.seed, ShadePurpose::kInitial, 0, 0);
  for (Dim j = 0; j < problem_.dim; ++j)
    solution_[j] = static_cast<real_t>(problem_.lower +
                                       problem_.width() * uniform_at(key, static_cast<std::uint64_t>(j)));
  evaluate_rows(solution_.data(), 1, &fitness_);
  count_ga_evaluations(&fitness_, 1);
}

bool MtsLs1::next_unit_cut_by_budget() const {
  return config_.max_evaluations - counters_.evaluations < mts_application_evals(config_, problem_.dim);
}

void MtsLs1::advance_unit(std::int64_t evaluations_left) {
  ScopedPhase phase(timers_, Phase::kLocalSearch);
  const std::int64_t budget =
      std::min(evaluations_left, mts_application_evals(config_, problem_.dim));
  const EvaluateOne evaluate = [this](const real_t* x) {
    double f = 0.0;
    evaluate_ls_rows(x, 1, &f);
    return f;
  };
  mts_ls1(evaluate, solution_.data(), fitness_, problem_.dim, search_range_, budget,
          shade_key(config_.seed, ShadePurpose::kMtsOrder, static_cast<std::uint64_t>(unit_), 0),
          problem_.lower, problem_.upper, config_.mts_sr * problem_.width());
  counters_.ls_applications += 1;
}

void MtsLs1::save_arrays(AlgorithmState& s) const {
  s.genes["solution"] = solution_;
  s.reals["fitness"] = {fitness_};
  s.reals["search_range"] = search_range_;
}

void MtsLs1::restore_arrays(const AlgorithmState& s) {
  solution_ = genes_of(s, "solution", solution_.size());
  fitness_ = reals_of(s, "fitness", 1)[0];
  search_range_ = reals_of(s, "search_range", search_range_.size());
}

}  // namespace chainsaw
