#include "core/algorithms/de.hpp"

#include <algorithm>

#include "core/algorithms/initial_population.hpp"
#include "core/algorithms/population_ops.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

void de_make_trial(const real_t* genes, int np, Dim dim, int i, double f, double cr,
                   DeCrossover crossover, double lower, double upper, std::uint64_t key,
                   real_t* trial, int r[3]) {
  de_pick_indices(key, np, i, r);
  const real_t* x = genes + static_cast<Dim>(i) * dim;
  const real_t* a = genes + static_cast<Dim>(r[0]) * dim;
  const real_t* b = genes + static_cast<Dim>(r[1]) * dim;
  const real_t* c = genes + static_cast<Dim>(r[2]) * dim;
  const std::uint64_t start_draw = u64_at(key, kDeStartDraw);
  const Dim start = below_from(start_draw, static_cast<std::uint32_t>(dim));
  if (crossover == DeCrossover::kBinomial) {
    for (Dim j = 0; j < dim; ++j) {
      const bool take =
          de_binomial_takes(uniform_at(key, kDeGeneDraws + static_cast<std::uint64_t>(j)), cr, j,
                            start);
      trial[j] = take ? de_mutant_gene(a[j], b[j], c[j], f, x[j], lower, upper) : x[j];
    }
  } else {
    const Dim length = de_exponential_length(key, cr, dim);
    for (Dim j = 0; j < dim; ++j)
      trial[j] = de_exponential_takes(j, start, length, dim)
                     ? de_mutant_gene(a[j], b[j], c[j], f, x[j], lower, upper)
                     : x[j];
  }
}

DifferentialEvolution::DifferentialEvolution(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      adaptive_(config.algorithm == AlgorithmKind::kJde),
      np_(config.de_np),
      dim_(problem.dim) {
  const auto n = static_cast<std::size_t>(np_);
  genes_.resize(n * static_cast<std::size_t>(dim_));
  trials_.resize(genes_.size());
  fitness_.assign(n, 0.0);
  trial_fitness_.assign(n, 0.0);
  // Plain DE: every individual uses --de-f and --de-cr. jDE: Brest et al.'s F = 0.5, CR = 0.9.
  f_.assign(n, adaptive_ ? kJdeInitialF : config.de_f);
  cr_.assign(n, adaptive_ ? kJdeInitialCr : config.de_cr);
  trial_f_ = f_;
  trial_cr_ = cr_;
}

void DifferentialEvolution::initialize_members() {
  const double lower = problem_.lower, width = problem_.width();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < np_; ++i) {
    const std::uint64_t key = population_key(config_.seed, PopulationPurpose::kInitial, 0,
                                              static_cast<std::uint64_t>(i));
    real_t* x = genes_.data() + static_cast<Dim>(i) * dim_;
    for (Dim j = 0; j < dim_; ++j)
      x[j] = static_cast<real_t>(lower + width * uniform_at(key, static_cast<std::uint64_t>(j)));
  }
  place_initial_rows(config_, problem_, genes_.data(), np_);
  {
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(genes_.data(), np_, fitness_.data());
  }
  count_ga_evaluations(fitness_.data(), np_);
  find_best();
}

bool DifferentialEvolution::next_unit_cut_by_budget() const {
  return config_.max_evaluations - counters_.evaluations < np_;
}

void DifferentialEvolution::advance_unit(std::int64_t evaluations_left) {
  // The budget's last generation makes only the first `count` trials.
  const int count = static_cast<int>(std::min<std::int64_t>(np_, evaluations_left));
  const double lower = problem_.lower, upper = problem_.upper;
  const auto generation = static_cast<std::uint64_t>(unit_);
  const bool external = problem_.is_external();
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) {
      const auto individual = static_cast<std::uint64_t>(i);
      double f = f_[i], cr = cr_[i];
      if (adaptive_) {
        const JdeParameters p = jde_adapt(
            population_key(config_.seed, PopulationPurpose::kJdeParameters, generation, individual),
            {f, cr}, config_.jde_tau1, config_.jde_tau2);
        f = p.f;
        cr = p.cr;
      }
      trial_f_[i] = f;
      trial_cr_[i] = cr;
      int r[3];
      de_make_trial(genes_.data(), np_, dim_, i, f, cr, config_.de_crossover, lower, upper,
                    population_key(config_.seed, PopulationPurpose::kGeneration, generation,
                                   individual),
                    trials_.data() + static_cast<Dim>(i) * dim_, r);
      // Made and evaluated in one pass over the individual (a single parallel region per
      // generation); a user objective gets the whole generation in one batch call below.
      if (!external)
        trial_fitness_[i] = evaluate_row_serial(problem_, trials_.data() + static_cast<Dim>(i) * dim_);
    }
  }
  if (external) {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(trials_.data(), count, trial_fitness_.data());
  }
  {
    ScopedPhase phase(timers_, Phase::kSelection);
    for (int i = 0; i < count; ++i) {
      if (!(trial_fitness_[i] <= fitness_[i])) continue;
      std::copy_n(trials_.data() + static_cast<Dim>(i) * dim_, dim_,
                  genes_.data() + static_cast<Dim>(i) * dim_);
      fitness_[i] = trial_fitness_[i];
      f_[i] = trial_f_[i];
      cr_[i] = trial_cr_[i];
    }
    find_best();
  }
  count_ga_evaluations(trial_fitness_.data(), count);
}

// The lowest index among the best (a fixed tie rule keeps runs reproducible).
void DifferentialEvolution::find_best() {
  best_ = static_cast<int>(std::min_element(fitness_.begin(), fitness_.end()) - fitness_.begin());
}

std::vector<real_t> DifferentialEvolution::best_genes() const {
  const real_t* x = genes_.data() + static_cast<Dim>(best_) * dim_;
  return std::vector<real_t>(x, x + dim_);
}

void DifferentialEvolution::save_arrays(AlgorithmState& s) const {
  s.genes["population"] = genes_;
  s.reals["fitness"] = fitness_;
  s.reals["f"] = f_;
  s.reals["cr"] = cr_;
}

void DifferentialEvolution::restore_arrays(const AlgorithmState& s) {
  const auto n = static_cast<std::size_t>(np_);
  genes_ = genes_of(s, "population", n * static_cast<std::size_t>(dim_));
  fitness_ = reals_of(s, "fitness", n);
  f_ = reals_of(s, "f", n);
  cr_ = reals_of(s, "cr", n);
  find_best();
}

}  // namespace chainsaw
