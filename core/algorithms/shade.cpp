#include "core/algorithms/shade.hpp"

#include <algorithm>
#include <cmath>

namespace chainsaw {

ShadeSettings shade_settings(const Config& config) {
  ShadeSettings s;
  if (config.algorithm == AlgorithmKind::kLshade) {
    s.memory_size = config.lshade_h;
    s.archive_rate = config.lshade_archive_rate;
    s.lshade = true;
    s.fixed_p = true;
    s.p = config.lshade_p;
  } else {
    s.memory_size = config.shade_h;
    s.archive_rate = config.shade_archive_rate;
    s.p_max = config.shade_p_max;
  }
  return s;
}

int lshade_population_size(int initial, int minimum, std::int64_t evaluations,
                           std::int64_t budget) {
  const double done = std::min(1.0, static_cast<double>(evaluations) / static_cast<double>(budget));
  return static_cast<int>(std::lround(initial + (minimum - initial) * done));
}

Shade::Shade(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      lshade_(config.algorithm == AlgorithmKind::kLshade),
      dim_(problem.dim),
      population_(shade_settings(config), config.algorithm_population(), problem.dim) {}

void Shade::initialize_members() {
  population_.randomize(config_.seed, 0, problem_.lower, problem_.upper);
  {
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(population_.genes().data(), population_.size(), population_.fitness().data());
  }
  count_ga_evaluations(population_.fitness().data(), population_.size());
}

bool Shade::next_unit_cut_by_budget() const {
  return config_.max_evaluations - counters_.evaluations < population_.size();
}

void Shade::advance_unit(std::int64_t evaluations_left) {
  // The budget's last generation makes only the first `count` trials.
  const int count = static_cast<int>(std::min<std::int64_t>(population_.size(), evaluations_left));
  const auto generation = static_cast<std::uint64_t>(unit_);
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
    population_.make_trials(count, config_.seed, generation, problem_.lower, problem_.upper);
  }
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(population_.trials().data(), count, population_.trial_fitness().data());
  }
  count_ga_evaluations(population_.trial_fitness().data(), count);
  ScopedPhase phase(timers_, Phase::kSelection);
  population_.select(count, config_.seed, generation);
  if (lshade_)
    population_.shrink(lshade_population_size(population_.capacity(), config_.lshade_np_min,
                                              counters_.evaluations, config_.max_evaluations),
                       config_.seed, generation);
}

double Shade::best_fitness() const { return population_.fitness()[population_.best()]; }

std::vector<real_t> Shade::best_genes() const {
  const real_t* x = population_.row(population_.best());
  return std::vector<real_t>(x, x + dim_);
}

void Shade::save_arrays(AlgorithmState& s) const { population_.save(s, ""); }

void Shade::restore_arrays(const AlgorithmState& s) { population_.restore(s, ""); }

}  // namespace chainsaw
