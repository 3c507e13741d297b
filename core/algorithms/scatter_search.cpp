#include "core/algorithms/scatter_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/algorithms/initial_population.hpp"
#include "core/algorithms/population_ops.hpp"
#include "fitness/host_fitness.hpp"
#include "ssga/blx_alpha.hpp"

namespace chainsaw {

namespace {

double distance(const real_t* a, const real_t* b, Dim dim) {
  double sum = 0.0;
  for (Dim j = 0; j < dim; ++j) {
    const double d = static_cast<double>(a[j]) - static_cast<double>(b[j]);
    sum += d * d;
  }
  return std::sqrt(sum);
}

}  // namespace

std::vector<int> ss_best_indices(const double* fitness, int count, int keep) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [fitness](int a, int b) { return fitness[a] < fitness[b]; });
  order.resize(static_cast<std::size_t>(std::min(keep, count)));
  return order;
}

std::vector<int> ss_build_reference_set(const double* fitness, const real_t* genes, int n,
                                        Dim dim, int best, int diverse) {
  std::vector<int> chosen = ss_best_indices(fitness, n, best);
  std::vector<bool> in_set(static_cast<std::size_t>(n), false);
  for (int i : chosen) in_set[static_cast<std::size_t>(i)] = true;
  // nearest[i]: distance of row i to its nearest chosen row, kept up to date as rows join.
  std::vector<double> nearest(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  auto update = [&](int joined) {
    for (int i = 0; i < n; ++i)
      if (!in_set[static_cast<std::size_t>(i)])
        nearest[i] = std::min(nearest[i], distance(genes + static_cast<Dim>(i) * dim,
                                                   genes + static_cast<Dim>(joined) * dim, dim));
  };
  for (int i : chosen) update(i);
  for (int k = 0; k < diverse; ++k) {
    int far = -1;
    for (int i = 0; i < n; ++i)
      if (!in_set[static_cast<std::size_t>(i)] && (far < 0 || nearest[i] > nearest[far])) far = i;
    if (far < 0) break;
    chosen.push_back(far);
    in_set[static_cast<std::size_t>(far)] = true;
    update(far);
  }
  return chosen;
}

ScatterSearch::ScatterSearch(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      r_(config.ss_ref_best + config.ss_ref_diverse),
      dim_(problem.dim) {
  ref_.resize(static_cast<std::size_t>(r_) * static_cast<std::size_t>(dim_));
  ref_fitness_.assign(static_cast<std::size_t>(r_), 0.0);
  pool_.resize(static_cast<std::size_t>(children()) * static_cast<std::size_t>(dim_));
  pool_fitness_.assign(static_cast<std::size_t>(children()), 0.0);
}

// R from rows: the reference set, then sorted best first (its diverse members keep their place
// by fitness, so that R is always ordered and R[0] is the best).
void ScatterSearch::take_reference_set(const std::vector<real_t>& genes,
                                       const std::vector<double>& fitness, int rows) {
  const std::vector<int> chosen = ss_build_reference_set(
      fitness.data(), genes.data(), rows, dim_, config_.ss_ref_best, config_.ss_ref_diverse);
  std::vector<double> f;
  for (int i : chosen) f.push_back(fitness[static_cast<std::size_t>(i)]);
  const std::vector<int> order = ss_best_indices(f.data(), static_cast<int>(f.size()), r_);
  for (int k = 0; k < r_; ++k) {
    const int row = chosen[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])];
    std::copy_n(genes.data() + static_cast<Dim>(row) * dim_, dim_,
                ref_.data() + static_cast<Dim>(k) * dim_);
    ref_fitness_[static_cast<std::size_t>(k)] = fitness[static_cast<std::size_t>(row)];
  }
}

void ScatterSearch::initialize_members() {
  const int n = config_.ss_population;
  std::vector<real_t> genes(static_cast<std::size_t>(n) * static_cast<std::size_t>(dim_));
  std::vector<double> fitness(static_cast<std::size_t>(n));
  const double lower = problem_.lower, width = problem_.width();
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    const std::uint64_t key = population_key(config_.seed, PopulationPurpose::kInitial, 0,
                                              static_cast<std::uint64_t>(i));
    for (Dim j = 0; j < dim_; ++j)
      genes[static_cast<Dim>(i) * dim_ + j] =
          static_cast<real_t>(lower + width * uniform_at(key, static_cast<std::uint64_t>(j)));
  }
  place_initial_rows(config_, problem_, genes.data(), n);
  {
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(genes.data(), n, fitness.data());
  }
  counters_.evaluations += n;
  counters_.ga_evaluations += n;
  ScopedPhase phase(timers_, Phase::kSelection);
  take_reference_set(genes, fitness, n);
}

// An iteration spends at least its children's evaluations.
bool ScatterSearch::next_unit_cut_by_budget() const {
  const std::int64_t worst = static_cast<std::int64_t>(children()) *
                             (1 + 2 * static_cast<std::int64_t>(config_.ss_ls_iterations));
  return config_.max_evaluations - counters_.evaluations < worst;
}

void ScatterSearch::advance_unit(std::int64_t evaluations_left) {
  const auto iteration = static_cast<std::uint64_t>(unit_);
  const int count = static_cast<int>(std::min<std::int64_t>(children(), evaluations_left));
  // 3. Every pair (a < b) in order; child c of pair p is pool member 2p + c.
  std::vector<int> parent_a(static_cast<std::size_t>(children())),
      parent_b(static_cast<std::size_t>(children()));
  for (int a = 0, p = 0; a < r_; ++a)
    for (int b = a + 1; b < r_; ++b, ++p)
      for (int c = 0; c < 2; ++c) {
        parent_a[static_cast<std::size_t>(2 * p + c)] = a;
        parent_b[static_cast<std::size_t>(2 * p + c)] = b;
      }
  // Step 4 runs every member at once when the budget covers every member's worst case;
  // otherwise one after the other in pool order, each taking what is left, so that the result
  // never depends on the thread count.
  const std::int64_t worst = 2 * static_cast<std::int64_t>(config_.ss_ls_iterations);
  const bool all_at_once = config_.ss_ls_iterations > 0 &&
                           evaluations_left - count >= worst * count && !problem_.is_external();
  if (all_at_once) {
    std::vector<std::int64_t> spent(static_cast<std::size_t>(count), 0);
    bool done = false;
    {
      ScopedPhase phase(timers_, Phase::kLocalSearch);
      ScopedBucket timer(profile_, Bucket::kSwMoves);
      done = combine_and_improve(parent_a, parent_b, count, iteration, spent);
    }
    if (done) {
      counters_.evaluations += count;
      counters_.ga_evaluations += count;
      count_improvements(spent);
      update_reference_set(count);
      return;
    }
  }
  combine_pool(parent_a, parent_b, count, iteration);
  // 4. Improvement.
  improve_pool(parent_a, parent_b, count, iteration, evaluations_left - count, all_at_once,
               worst);
  update_reference_set(count);
}

void ScatterSearch::combine_pool(const std::vector<int>& parent_a,
                                 const std::vector<int>& parent_b, int count,
                                 std::uint64_t iteration) {
  const double lower = problem_.lower, upper = problem_.upper;
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
#pragma omp parallel for schedule(static)
    for (int m = 0; m < count; ++m) {
      const std::uint64_t key = population_key(config_.seed, PopulationPurpose::kCombination,
                                               iteration, static_cast<std::uint64_t>(m));
      const real_t* a = ref_.data() + static_cast<Dim>(parent_a[m]) * dim_;
      const real_t* b = ref_.data() + static_cast<Dim>(parent_b[m]) * dim_;
      real_t* child = pool_.data() + static_cast<Dim>(m) * dim_;
      const double alpha = ss_child_alpha(m % 2, config_.ss_lambda);
      for (Dim j = 0; j < dim_; ++j)
        child[j] = blx_alpha_gene(a[j], b[j], alpha, lower, upper,
                                  uniform_at(key, static_cast<std::uint64_t>(j)));
    }
  }
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(pool_.data(), count, pool_fitness_.data());
  }
  counters_.evaluations += count;
  counters_.ga_evaluations += count;
}

void ScatterSearch::improve_pool(const std::vector<int>& parent_a,
                                 const std::vector<int>& parent_b, int count,
                                 std::uint64_t iteration, std::int64_t left, bool all_at_once,
                                 std::int64_t worst) {
  const double lower = problem_.lower, upper = problem_.upper;
  if (config_.ss_ls_iterations > 0 && left > 0) {
    ScopedPhase phase(timers_, Phase::kLocalSearch);
    ScopedBucket timer(profile_, Bucket::kSwMoves);
    std::vector<std::int64_t> spent(static_cast<std::size_t>(count), 0);
    auto improve = [&](int m, std::int64_t cap) {
      const real_t* a = ref_.data() + static_cast<Dim>(parent_a[m]) * dim_;
      const real_t* b = ref_.data() + static_cast<Dim>(parent_b[m]) * dim_;
      const double rho = ss_first_rho(distance(a, b, dim_), dim_, problem_.width());
      std::int64_t invalid = 0;
      const std::int64_t used = ss_improve(
          pool_.data() + static_cast<Dim>(m) * dim_, pool_fitness_[static_cast<std::size_t>(m)],
          dim_, rho, config_.ss_ls_iterations, cap, config_.solis_wets, lower, upper,
          population_key(config_.seed, PopulationPurpose::kImprovement, iteration,
                         static_cast<std::uint64_t>(m)),
          [&](const real_t* x) {
            if (!problem_.is_external()) return evaluate_row_serial(problem_, x);
            double f = 0.0;
            invalid += evaluate_external_host(problem_, x, dim_, 1, &f);
            return f;
          });
      if (invalid != 0) invalid_ += invalid;  // user objectives run sequentially: no race
      return used;
    };
    if (all_at_once) {
#pragma omp parallel for schedule(dynamic, 1)
      for (int m = 0; m < count; ++m) spent[static_cast<std::size_t>(m)] = improve(m, worst);
    } else {
      for (int m = 0; m < count && left > 0; ++m) {
        spent[static_cast<std::size_t>(m)] = improve(m, left);
        left -= spent[static_cast<std::size_t>(m)];
      }
    }
    count_improvements(spent);
  }
}

// Step 4's evaluations, spent[m] by pool member m, into the counters.
void ScatterSearch::count_improvements(const std::vector<std::int64_t>& spent) {
  const std::int64_t total = std::accumulate(spent.begin(), spent.end(), std::int64_t{0});
  counters_.evaluations += total;
  counters_.ls_evaluations += total;
  for (std::int64_t s : spent) counters_.ls_applications += s > 0 ? 1 : 0;
}

// 5. R <- the |R| best of R and the pool (R first: a tie keeps the member already in R).
void ScatterSearch::update_reference_set(int count) {
  bool entered = false;
  {
    ScopedPhase phase(timers_, Phase::kSelection);
    std::vector<double> merged(ref_fitness_);
    merged.insert(merged.end(), pool_fitness_.begin(), pool_fitness_.begin() + count);
    const std::vector<int> keep = ss_best_indices(merged.data(), static_cast<int>(merged.size()), r_);
    std::vector<real_t> next(ref_.size());
    std::vector<double> next_fitness(static_cast<std::size_t>(r_));
    for (int k = 0; k < r_; ++k) {
      const int from = keep[static_cast<std::size_t>(k)];
      entered = entered || from >= r_;
      const real_t* src = from < r_ ? ref_.data() + static_cast<Dim>(from) * dim_
                                    : pool_.data() + static_cast<Dim>(from - r_) * dim_;
      std::copy_n(src, dim_, next.data() + static_cast<Dim>(k) * dim_);
      next_fitness[static_cast<std::size_t>(k)] = merged[static_cast<std::size_t>(from)];
    }
    ref_.swap(next);
    ref_fitness_.swap(next_fitness);
  }
  const std::int64_t remaining = config_.max_evaluations - counters_.evaluations;
  if (!entered && remaining > 0) restart(remaining);
}

// R has stagnated: P - |R| new random solutions join R, and R is built again from them all.
void ScatterSearch::restart(std::int64_t evaluations_left) {
  const int fresh = static_cast<int>(
      std::min<std::int64_t>(config_.ss_population - r_, evaluations_left));
  const int rows = r_ + fresh;
  std::vector<real_t> genes(static_cast<std::size_t>(rows) * static_cast<std::size_t>(dim_));
  std::vector<double> fitness(static_cast<std::size_t>(rows));
  std::copy(ref_.begin(), ref_.end(), genes.begin());
  std::copy(ref_fitness_.begin(), ref_fitness_.end(), fitness.begin());
  const double lower = problem_.lower, width = problem_.width();
  {
    ScopedPhase phase(timers_, Phase::kInitialization);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < fresh; ++i) {
      const std::uint64_t key = population_key(config_.seed, PopulationPurpose::kRestart,
                                                static_cast<std::uint64_t>(unit_),
                                                static_cast<std::uint64_t>(i));
      for (Dim j = 0; j < dim_; ++j)
        genes[static_cast<Dim>(r_ + i) * dim_ + j] =
            static_cast<real_t>(lower + width * uniform_at(key, static_cast<std::uint64_t>(j)));
    }
    ScopedBucket timer(profile_, Bucket::kFitness);
    evaluate_rows(genes.data() + static_cast<Dim>(r_) * dim_, fresh, fitness.data() + r_);
  }
  counters_.evaluations += fresh;
  counters_.ga_evaluations += fresh;
  ++counters_.restarts;
  ScopedPhase phase(timers_, Phase::kSelection);
  take_reference_set(genes, fitness, rows);
}

std::vector<real_t> ScatterSearch::best_genes() const {
  return std::vector<real_t>(ref_.begin(), ref_.begin() + dim_);
}

void ScatterSearch::save_arrays(AlgorithmState& s) const {
  s.genes["reference_set"] = ref_;
  s.reals["reference_fitness"] = ref_fitness_;
}

void ScatterSearch::restore_arrays(const AlgorithmState& s) {
  ref_ = genes_of(s, "reference_set", static_cast<std::size_t>(r_) * static_cast<std::size_t>(dim_));
  ref_fitness_ = reals_of(s, "reference_fitness", static_cast<std::size_t>(r_));
}

}  // namespace chainsaw
