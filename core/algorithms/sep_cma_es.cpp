#include "core/algorithms/sep_cma_es.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/algorithms/population_ops.hpp"
#include "core/error.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {

namespace {

// Auger & Hansen 2005, §2: TolFun, ConditionCov (TolX: kSepCmaTolX).
constexpr double kTolFun = 1e-12;
constexpr double kMaxCondition = 1e14;

// Ranked best first; NaN last; equal values by index (a fixed tie rule keeps runs reproducible).
std::vector<int> rank_offspring(const std::vector<double>& f, int count) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&f](int a, int b) {
    const bool na = std::isnan(f[a]), nb = std::isnan(f[b]);
    if (na != nb) return nb;
    if (!na && f[a] != f[b]) return f[a] < f[b];
    return a < b;
  });
  return order;
}

}  // namespace

SepCmaParameters sep_cma_parameters(Dim dim, int lambda) {
  SepCmaParameters p;
  const double n = static_cast<double>(dim);
  p.lambda = lambda;
  p.mu = lambda / 2;
  double sum = 0.0, squares = 0.0;
  for (int i = 1; i <= p.mu; ++i) {
    const double w = std::log((lambda + 1) / 2.0) - std::log(static_cast<double>(i));
    p.weights.push_back(w);
    sum += w;
  }
  for (double& w : p.weights) {
    w /= sum;
    squares += w * w;
  }
  p.mu_eff = 1.0 / squares;
  const double mu_eff = p.mu_eff;
  p.c_sigma = (mu_eff + 2.0) / (n + mu_eff + 5.0);
  p.d_sigma = 1.0 + 2.0 * std::max(0.0, std::sqrt((mu_eff - 1.0) / (n + 1.0)) - 1.0) + p.c_sigma;
  p.c_c = (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n);
  const double c_1 = 2.0 / ((n + 1.3) * (n + 1.3) + mu_eff);
  const double c_mu = 2.0 * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0) * (n + 2.0) + mu_eff);
  // Ros & Hansen 2008: a diagonal C has n free parameters instead of n^2 / 2, so it can learn
  // (n + 2) / 3 times faster; their sum stays at most 1.
  const double faster = (n + 2.0) / 3.0;
  p.c_1 = std::min(1.0, faster * c_1);
  p.c_mu = std::min(1.0 - p.c_1, faster * std::min(1.0 - c_1, c_mu));
  p.chi_n = std::sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n));
  p.sigma_gain = std::sqrt(p.c_sigma * (2.0 - p.c_sigma) * p.mu_eff);
  p.history = 10 + static_cast<int>(std::ceil(30.0 * n / lambda));
  return p;
}

void sep_cma_update(const SepCmaParameters& p, const real_t* x, const std::vector<int>& order,
                    SepCmaDistribution& d, std::vector<double>& scratch) {
  const Dim n = static_cast<Dim>(d.mean.size());
  scratch.resize(2 * static_cast<std::size_t>(n));
  double* y_w = scratch.data();
  double* rank_mu = scratch.data() + n;
  const double sigma = d.sigma;
#pragma omp parallel for schedule(static)
  for (Dim j = 0; j < n; ++j) {
    const auto x_at = [&](int i) { return x[static_cast<Dim>(order[i]) * n + j]; };
    sep_cma_gene_before_norm(p.mu, p.weights.data(), x_at, sigma, p.c_sigma, p.sigma_gain,
                             d.c[j], d.mean[j], d.path_sigma[j], y_w[j], rank_mu[j]);
  }
  double norm = 0.0;
  for (Dim j = 0; j < n; ++j) norm += d.path_sigma[j] * d.path_sigma[j];
  ++d.generation;
  const SepCmaStep step = sep_cma_step(p, n, d.generation, std::sqrt(norm), sigma);
#pragma omp parallel for schedule(static)
  for (Dim j = 0; j < n; ++j)
    sep_cma_gene_after_norm(p.c_c, p.c_1, p.c_mu, step, y_w[j], rank_mu[j], d.path_c[j], d.c[j]);
  d.sigma = step.sigma;
}

SepCmaEs::SepCmaEs(const Config& config, const Problem& problem)
    : PopulationAlgorithm(config, problem),
      dim_(problem.dim),
      sigma0_(config.cma_sigma0 * problem.width()),
      params_(sep_cma_parameters(problem.dim, config.cma_initial_lambda())),
      best_(static_cast<std::size_t>(problem.dim), real_t{0}),
      best_fitness_(std::numeric_limits<double>::infinity()) {
  const auto n = static_cast<std::size_t>(dim_);
  dist_.mean.assign(n, 0.0);
  dist_.c.assign(n, 1.0);
  dist_.path_c.assign(n, 0.0);
  dist_.path_sigma.assign(n, 0.0);
  dist_.sigma = sigma0_;
  history_.assign(static_cast<std::size_t>(params_.history), 0.0);
}

void SepCmaEs::start(int lambda) {
  params_ = sep_cma_parameters(dim_, lambda);
  start_distribution(derive_key(config_.seed, kSepCmaMeanPurpose,
                                static_cast<std::uint64_t>(counters_.restarts)));
  dist_.sigma = sigma0_;
  dist_.generation = 0;
  history_.assign(static_cast<std::size_t>(params_.history), 0.0);
}

void SepCmaEs::start_distribution(std::uint64_t key) {
  const double lower = problem_.lower, width = problem_.width();
  for (Dim j = 0; j < dim_; ++j)
    dist_.mean[j] = sep_cma_start_mean(lower, width, key, j);
  std::fill(dist_.c.begin(), dist_.c.end(), 1.0);
  std::fill(dist_.path_c.begin(), dist_.path_c.end(), 0.0);
  std::fill(dist_.path_sigma.begin(), dist_.path_sigma.end(), 0.0);
}

void SepCmaEs::initialize_members() {
  start(params_.lambda);
  generation(params_.lambda);  // the first generation plays the initial population's part
}

bool SepCmaEs::next_unit_cut_by_budget() const {
  return config_.max_evaluations - counters_.evaluations < params_.lambda;
}

void SepCmaEs::advance_unit(std::int64_t evaluations_left) {
  generation(static_cast<int>(std::min<std::int64_t>(params_.lambda, evaluations_left)));
}

// x_k = clip(m + sigma sqrt(C) z_k) with z_k from the stream of (generation, k), a pair of
// genes per draw: each
// offspring is made and, for a built-in function, evaluated in one pass over its row.
void SepCmaEs::sample_and_evaluate(int count) {
  const std::size_t rows = static_cast<std::size_t>(count) * static_cast<std::size_t>(dim_);
  if (samples_.size() < rows) samples_.resize(rows);  // a restart's larger lambda
  const auto offspring = static_cast<std::size_t>(count);
  if (fitness_.size() < offspring) fitness_.resize(offspring);
  const double lower = problem_.lower, upper = problem_.upper, sigma = dist_.sigma;
  const bool external = problem_.is_external();
  {
    ScopedPhase phase(timers_, Phase::kCrossover);
    ScopedBucket timer(profile_, Bucket::kCrossover);
    scale_.resize(static_cast<std::size_t>(dim_));
#pragma omp parallel for schedule(static)
    for (Dim j = 0; j < dim_; ++j) scale_[j] = sep_cma_scale(sigma, dist_.c[j]);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < count; ++k) {
      const std::uint64_t key = derive_key(config_.seed, kSepCmaSamplePurpose,
                                           static_cast<std::uint64_t>(generation_),
                                           static_cast<std::uint64_t>(k));
      real_t* x = samples_.data() + static_cast<Dim>(k) * dim_;
      for (Dim j = 0; j < dim_; j += 2)
        sep_cma_sample_pair(dist_.mean.data() + j, scale_.data() + j, key, j / 2,
                            j + 1 < dim_ ? 2 : 1, lower, upper, x + j);
      if (!external) fitness_[k] = evaluate_row_serial(problem_, x);
    }
  }
  if (external) {
    ScopedPhase phase(timers_, Phase::kCrossover);
    evaluate_rows(samples_.data(), count, fitness_.data());
  }
  count_ga_evaluations(fitness_.data(), count);
}

void SepCmaEs::keep_best(const std::vector<int>& order, int count) {
  if (count == 0) return;
  const int k = order[0];
  if (has_best_ && !(fitness_[k] < best_fitness_)) return;
  has_best_ = true;
  best_fitness_ = fitness_[k];
  keep_best_sample(k);
}

void SepCmaEs::keep_best_sample(int k) {
  const real_t* x = samples_.data() + static_cast<Dim>(k) * dim_;
  std::copy(x, x + dim_, best_.begin());
}

void SepCmaEs::update_distribution(const std::vector<int>& order) {
  sep_cma_update(params_, samples_.data(), order, dist_, scratch_);
}

// One generation: lambda offspring evaluated, ranked, the distribution updated; a generation
// the budget cuts short evaluates its first `count` offspring only (the run ends there).
void SepCmaEs::generation(int count) {
  sample_and_evaluate(count);
  const std::vector<int> order = rank_offspring(fitness_, count);
  keep_best(order, count);
  ++generation_;
  if (count < params_.lambda) return;
  ScopedPhase phase(timers_, Phase::kSelection);
  update_distribution(order);
  record_history(order);
  if (config_.cma_ipop && restart_criterion_holds(order)) {
    ++counters_.restarts;
    const double grown = std::ceil(params_.lambda * config_.cma_ipop_factor);
    start(static_cast<int>(std::min<double>(grown, std::numeric_limits<int>::max() / 2)));
  }
}

void SepCmaEs::record_history(const std::vector<int>& order) {
  const std::int64_t slot = (dist_.generation - 1) % params_.history;
  history_[static_cast<std::size_t>(slot)] = fitness_[order[0]];
}

// Auger & Hansen 2005's criteria, C diagonal (its principal axes are the coordinates):
// TolFun (the range of the last 10 + ceil(30 n / lambda) generations' best f and of this
// generation's f below 1e-12), TolX (sigma sqrt(C_jj) and sigma |p_c,j| below 1e-12 sigma0 for
// every j), NoEffectAxis (m_i + 0.1 sigma sqrt(C_ii) == m_i, i = g mod n), NoEffectCoord
// (m_j + 0.2 sigma sqrt(C_jj) == m_j for some j) and ConditionCov (max C / min C > 1e14).
bool SepCmaEs::restart_criterion_holds(const std::vector<int>& order) const {
  const double worst = fitness_[order.back()], best = fitness_[order.front()];
  if (dist_.generation >= params_.history && std::isfinite(worst) && std::isfinite(best)) {
    const auto [lo, hi] = std::minmax_element(history_.begin(), history_.end());
    if (std::max(*hi, worst) - std::min(*lo, best) < kTolFun) return true;
  }
  const SepCmaCoordinateChecks k = coordinate_checks();
  return k.no_effect_coord || k.no_effect_axis || k.below_tol_x ||
         k.c_max > kMaxCondition * k.c_min;
}

SepCmaCoordinateChecks SepCmaEs::coordinate_checks() const {
  SepCmaCoordinateChecks k;
  const double sigma = dist_.sigma, tol_x = kSepCmaTolX * sigma0_;
  k.c_min = k.c_max = dist_.c[0];
  for (Dim j = 0; j < dim_; ++j) {
    const double sd = sigma * std::sqrt(dist_.c[j]), m = dist_.mean[j];
    k.below_tol_x = k.below_tol_x && sd < tol_x && sigma * std::fabs(dist_.path_c[j]) < tol_x;
    k.no_effect_coord = k.no_effect_coord || m + 0.2 * sd == m;
    k.c_min = std::min(k.c_min, dist_.c[j]);
    k.c_max = std::max(k.c_max, dist_.c[j]);
  }
  const Dim axis = static_cast<Dim>((dist_.generation - 1) % dim_);
  const double m = dist_.mean[axis];
  k.no_effect_axis = m + 0.1 * sigma * std::sqrt(dist_.c[axis]) == m;
  return k;
}

void SepCmaEs::save_arrays(AlgorithmState& s) const {
  const SepCmaDistribution& dist = host_distribution();
  s.integers["lambda"] = params_.lambda;
  s.integers["generation"] = generation_;
  s.integers["restart_generation"] = dist.generation;
  s.integers["has_best"] = has_best_ ? 1 : 0;
  s.reals["mean"] = dist.mean;
  s.reals["c_diagonal"] = dist.c;
  s.reals["path_c"] = dist.path_c;
  s.reals["path_sigma"] = dist.path_sigma;
  s.reals["sigma"] = {dist.sigma};
  s.reals["best_fitness"] = {best_fitness_};
  s.reals["fitness_history"] = history_;
  s.genes["best"] = best_genes();
}

void SepCmaEs::restore_arrays(const AlgorithmState& s) {
  const std::int64_t lambda = integer_of(s, "lambda");
  if (lambda < 2 || lambda > std::numeric_limits<int>::max())
    throw UserError("the checkpoint's sep-cma-es lambda = " + std::to_string(lambda) +
                    " is not a population size");
  params_ = sep_cma_parameters(dim_, static_cast<int>(lambda));
  const auto n = static_cast<std::size_t>(dim_);
  generation_ = integer_of(s, "generation");
  dist_.generation = integer_of(s, "restart_generation");
  has_best_ = integer_of(s, "has_best") != 0;
  dist_.mean = reals_of(s, "mean", n);
  dist_.c = reals_of(s, "c_diagonal", n);
  dist_.path_c = reals_of(s, "path_c", n);
  dist_.path_sigma = reals_of(s, "path_sigma", n);
  dist_.sigma = reals_of(s, "sigma", 1)[0];
  best_fitness_ = reals_of(s, "best_fitness", 1)[0];
  history_ = reals_of(s, "fitness_history", static_cast<std::size_t>(params_.history));
  best_ = genes_of(s, "best", n);
  distribution_restored();
}

}  // namespace chainsaw
