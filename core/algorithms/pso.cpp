#include "core/algorithms/pso.hpp"

#include <algorithm>

#include "core/algorithms/initial_population.hpp"
#include "core/algorithms/population_ops.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

void pso_move_particle(real_t* x, real_t* v, const real_t* pbest, const real_t* gbest, Dim dim,
                       double w, double c1, double c2, double vmax, double lower, double upper,
                       std::uint64_t key) {
  for (Dim j = 0; j < dim; ++j) {
    const auto k = static_cast<std::uint64_t>(j);
    const double velocity =
        pso_velocity_gene(v[j], x[j], pbest[j], gbest[j], w, c1, c2, uniform_at(key, 2 * k),
                          uniform_at(key, 2 * k + 1), vmax);
    const PsoGene moved = pso_move_gene(x[j], velocity, lower, upper);
    x[j] = moved.x;
    v[j] = moved.v;
  }
}

ParticleSwarm::ParticleSwarm(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      n_(config.pso_particles),
      dim_(problem.dim),
      vmax_(config.pso_vmax * problem.width()) {
  const auto n = static_cast<std::size_t>(n_);
  x_.resize(n * static_cast<std::size_t>(dim_));
  v_.resize(x_.size());
  pbest_.resize(x_.size());
  fitness_.assign(n, 0.0);
  pbest_fitness_.assign(n, 0.0);
}

// Positions uniform in the domain (draws 0..D-1), velocities uniform in [-vmax, vmax]
// (draws D..2D-1).
void ParticleSwarm::initialize_members() {
  const double lower = problem_.lower, width = problem_.width();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n_; ++i) {
    const std::uint64_t key = population_key(config_.seed, PopulationPurpose::kInitial, 0,
                                              static_cast<std::uint64_t>(i));
    const Dim row = static_cast<Dim>(i) * dim_;
    for (Dim j = 0; j < dim_; ++j) {
      const auto k = static_cast<std::uint64_t>(j);
      x_[row + j] = static_cast<real_t>(lower + width * uniform_at(key, k));
      v_[row + j] = static_cast<real_t>(vmax_ * (2.0 * uniform_at(key, dim_ + k) - 1.0));
    }
  }
  place_initial_rows(config_, problem_, x_.data(), n_);  // their velocities stay drawn
  {
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(x_.data(), n_, fitness_.data());
  }
  pbest_ = x_;
  pbest_fitness_ = fitness_;
  count_ga_evaluations(fitness_.data(), n_);
  find_best();
}

bool ParticleSwarm::next_unit_cut_by_budget() const {
  return config_.max_evaluations - counters_.evaluations < n_;
}

void ParticleSwarm::advance_unit(std::int64_t evaluations_left) {
  const int count = static_cast<int>(std::min<std::int64_t>(n_, evaluations_left));
  const auto step = static_cast<std::uint64_t>(unit_);
  // The global best as it was before this step: every particle sees the same one.
  const std::vector<real_t> gbest = best_genes();
  const bool external = problem_.is_external();
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
      const Dim row = static_cast<Dim>(i) * dim_;
      pso_move_particle(x_.data() + row, v_.data() + row, pbest_.data() + row, gbest.data(), dim_,
                        config_.pso_w, config_.pso_c1, config_.pso_c2, vmax_, problem_.lower,
                        problem_.upper,
                        population_key(config_.seed, PopulationPurpose::kGeneration, step,
                                       static_cast<std::uint64_t>(i)));
      // Moved and evaluated in one pass (one parallel region per step); a user objective gets
      // the whole swarm in one batch call below.
      if (!external) fitness_[i] = evaluate_row_serial(problem_, x_.data() + row);
    }
  }
  if (external) {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(x_.data(), count, fitness_.data());
  }
  {
    ScopedPhase phase(timers_, Phase::kSelection);
    for (int i = 0; i < count; ++i) {
      if (!(fitness_[i] <= pbest_fitness_[i])) continue;
      const Dim row = static_cast<Dim>(i) * dim_;
      std::copy_n(x_.data() + row, dim_, pbest_.data() + row);
      pbest_fitness_[i] = fitness_[i];
    }
    find_best();
  }
  count_ga_evaluations(fitness_.data(), count);
}

void ParticleSwarm::find_best() {
  best_ = static_cast<int>(std::min_element(pbest_fitness_.begin(), pbest_fitness_.end()) -
                           pbest_fitness_.begin());
}

std::vector<real_t> ParticleSwarm::best_genes() const {
  const real_t* p = pbest_.data() + static_cast<Dim>(best_) * dim_;
  return std::vector<real_t>(p, p + dim_);
}

void ParticleSwarm::save_arrays(AlgorithmState& s) const {
  s.genes["position"] = x_;
  s.genes["velocity"] = v_;
  s.genes["personal_best"] = pbest_;
  s.reals["fitness"] = fitness_;
  s.reals["personal_best_fitness"] = pbest_fitness_;
}

void ParticleSwarm::restore_arrays(const AlgorithmState& s) {
  const auto n = static_cast<std::size_t>(n_);
  const std::size_t genes = n * static_cast<std::size_t>(dim_);
  x_ = genes_of(s, "position", genes);
  v_ = genes_of(s, "velocity", genes);
  pbest_ = genes_of(s, "personal_best", genes);
  fitness_ = reals_of(s, "fitness", n);
  pbest_fitness_ = reals_of(s, "personal_best_fitness", n);
  find_best();
}

}  // namespace chainsaw
