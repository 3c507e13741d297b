// sep-CMA-ES (Ros & Hansen 2008): CMA-ES with a diagonal covariance matrix, whose learning
// rates c_1 and c_mu are multiplied by (n + 2) / 3, and cumulative step-size adaptation; the
// other defaults are those of Hansen's tutorial (2016). Optional IPOP restarts (Auger & Hansen
// 2005): when a stopping criterion holds, a new mean uniform in the box and lambda times the
// factor. Time and memory per generation O(lambda D): no D x D matrix. Every offspring has
// its own keyed random stream, so results do not depend on the thread count. The CPU runs
// this class; the GPU (core/engines/cuda/sep_cma_cuda.cu) overrides the hooks that touch
// D-long vectors and keeps the distribution on the device. docs/algorithms.md lists the
// parameters, the restart criteria and the bound handling.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "core/algorithms/population_ops.hpp"

namespace chainsaw {

// The strategy parameters of dimension n and lambda offspring (Hansen 2016, Table 1 / eqs.
// 48-57, positive weights only), with Ros & Hansen's (n + 2) / 3 on c_1 and c_mu.
struct SepCmaParameters {
  int lambda = 0;
  int mu = 0;
  std::vector<double> weights;  // mu, decreasing, summing to 1
  double mu_eff = 0.0;
  double c_sigma = 0.0, d_sigma = 0.0, c_c = 0.0, c_1 = 0.0, c_mu = 0.0;
  double chi_n = 0.0;  // E||N(0, I)||
  double sigma_gain = 0.0;  // p_sigma's gain on y_w: sqrt(c_sigma (2 - c_sigma) mu_eff)
  int history = 0;     // TolFun's window: 10 + ceil(30 n / lambda) generations
};
SepCmaParameters sep_cma_parameters(Dim n, int lambda);

// The distribution between generations: mean m, step size sigma, diagonal C and the paths.
struct SepCmaDistribution {
  std::vector<double> mean, c, path_c, path_sigma;
  double sigma = 0.0;
  std::int64_t generation = 0;  // generations since the (re)start: h_sigma's correction
};

// One generation's update (Hansen 2016 eqs. 39-47 with C diagonal) from the lambda evaluated
// points (row k at x + k n, as evaluated: clipped to the box) ranked by `order` (best first).
// y_k = (x_k - m) / sigma. Every gene's update is independent of the others; ||p_sigma|| is
// summed in gene order, so the result does not depend on the thread count. `scratch` holds 2 n
// doubles (resized on the first call).
void sep_cma_update(const SepCmaParameters& p, const real_t* x, const std::vector<int>& order,
                    SepCmaDistribution& d, std::vector<double>& scratch);

// Without restarts a converged run goes on to its budget: sigma and C stay inside these so
// that y = (x - m) / sigma and y_w / sqrt(C) remain finite numbers.
inline constexpr double kSepCmaTiny = 1e-300;
inline constexpr double kSepCmaHuge = 1e300;
// v kept inside [kSepCmaTiny, kSepCmaHuge]; NaN becomes kSepCmaTiny (as std::max(tiny, NaN)).
CHAINSAW_HD double sep_cma_bounded(double v) {
  return v > kSepCmaTiny ? (v < kSepCmaHuge ? v : kSepCmaHuge) : kSepCmaTiny;
}
// TolX of Auger & Hansen 2005, §2, times sigma0.
inline constexpr double kSepCmaTolX = 1e-12;

// The scalar half of the update, shared by both backends: from ||p_sigma|| after the gene
// update (and d.generation already advanced), h_sigma's gains and the next sigma.
struct SepCmaStep {
  double c_gain = 0.0;  // p_c's gain on y_w: 0 when h_sigma stalls the path
  double keep = 0.0;    // C's factor 1 + c_1 delta - c_1 - c_mu
  double sigma = 0.0;   // the next step size, kept inside [1e-300, 1e300]
};
CHAINSAW_HD SepCmaStep sep_cma_step(double c_sigma, double d_sigma, double c_c, double c_1,
                                    double c_mu, double mu_eff, double chi_n, double n,
                                    double generation, double norm, double sigma) {
  const double correction = sqrt(1.0 - pow(1.0 - c_sigma, 2.0 * generation));
  const bool h_sigma = norm / correction < (1.4 + 2.0 / (n + 1.0)) * chi_n;
  const double delta = h_sigma ? 0.0 : c_c * (2.0 - c_c);
  SepCmaStep s;
  s.c_gain = h_sigma ? sqrt(c_c * (2.0 - c_c) * mu_eff) : 0.0;
  s.keep = 1.0 + c_1 * delta - c_1 - c_mu;  // the weights sum to 1
  const double next = sigma * exp(c_sigma / d_sigma * (norm / chi_n - 1.0));
  s.sigma = sep_cma_bounded(next);
  return s;
}
// sep_cma_step with p's parameters.
inline SepCmaStep sep_cma_step(const SepCmaParameters& p, Dim n, std::int64_t generation,
                               double norm, double sigma) {
  return sep_cma_step(p.c_sigma, p.d_sigma, p.c_c, p.c_1, p.c_mu, p.mu_eff, p.chi_n,
                      static_cast<double>(n), static_cast<double>(generation), norm, sigma);
}

// The per-gene math of both backends, gene j's: the sample of one offspring, clipped to the
// box; the update's half before ||p_sigma|| (y_w and sum_i w_i y_i^2 over the mu best,
// x_at(i) being the i-th best's gene; the mean moved, c_m = 1; p_sigma) and the half after it
// (p_c and C).
// A (re)start's m_j: uniform in the box from stream `key`.
CHAINSAW_HD double sep_cma_start_mean(double lower, double width, std::uint64_t key, Dim j) {
  return add_rn(lower, mul_rn(width, uniform_at(key, static_cast<std::uint64_t>(j))));
}
// Gene j's scale sigma sqrt(C_jj), made once a generation for all the offspring.
CHAINSAW_HD double sep_cma_scale(double sigma, double c) { return mul_rn(sigma, sqrt(c)); }
CHAINSAW_HD real_t sep_cma_sample(double mean, double scale, float z, double lower,
                                  double upper) {
  const double v = add_rn(mean, mul_rn(scale, static_cast<double>(z)));
  return static_cast<real_t>(clamp_to(v, lower, upper));
}
// Genes 2p and 2p + 1 of one offspring (`genes` of them: 2, or 1 at an odd D's end) from
// both normals of draw p of its stream; mean, scale (sep_cma_scale) and x point at gene 2p.
CHAINSAW_HD void sep_cma_sample_pair(const double* mean, const double* scale, std::uint64_t key,
                                     Dim p, int genes, double lower, double upper, real_t* x) {
  const NormalPair z = normal_pair_at(key, static_cast<std::uint64_t>(p));
  x[0] = sep_cma_sample(mean[0], scale[0], z.first, lower, upper);
  if (genes > 1) x[1] = sep_cma_sample(mean[1], scale[1], z.second, lower, upper);
}
template <class XAt>
CHAINSAW_HD void sep_cma_gene_before_norm(int mu, const double* weights, const XAt& x_at,
                                          double sigma, double c_sigma, double sigma_gain,
                                          double c, double& mean, double& path_sigma,
                                          double& y_w, double& rank_mu) {
  double yw = 0.0, squares = 0.0;
  for (int i = 0; i < mu; ++i) {
    const double y = (static_cast<double>(x_at(i)) - mean) / sigma;
    yw += weights[i] * y;
    squares += weights[i] * y * y;
  }
  y_w = yw;
  rank_mu = squares;
  mean += sigma * yw;
  path_sigma = (1.0 - c_sigma) * path_sigma + sigma_gain * yw / sqrt(c);
}
CHAINSAW_HD void sep_cma_gene_after_norm(double c_c, double c_1, double c_mu,
                                         const SepCmaStep& step, double y_w, double rank_mu,
                                         double& path_c, double& c) {
  const double pc = (1.0 - c_c) * path_c + step.c_gain * y_w;
  path_c = pc;
  const double next = step.keep * c + c_1 * pc * pc + c_mu * rank_mu;
  c = sep_cma_bounded(next);
}

// Stream purposes of sep-CMA-ES, apart from population_ops.hpp's (101-106) and rng.hpp's.
inline constexpr std::uint64_t kSepCmaMeanPurpose = 201;    // a (re)start's mean, per restart
inline constexpr std::uint64_t kSepCmaSamplePurpose = 202;  // per (generation, offspring)

// The coordinate-wise restart criteria of Auger & Hansen 2005 with C diagonal, over the genes;
// each backend reduces them over its copy of the distribution.
struct SepCmaCoordinateChecks {
  bool no_effect_coord = false;  // m_j + 0.2 sigma sqrt(C_jj) == m_j for some j
  bool no_effect_axis = false;   // m_i + 0.1 sigma sqrt(C_ii) == m_i, i = (g - 1) mod n
  bool below_tol_x = true;       // sigma sqrt(C_jj) and sigma |p_c,j| < TolX for every j
  double c_min = 0.0, c_max = 0.0;
};

class SepCmaEs : public PopulationAlgorithm {
 public:
  SepCmaEs(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return best_fitness_; }
  std::vector<real_t> best_genes() const override { return best_; }
  int population_size() const override { return params_.lambda; }

  // For tests (the GPU's copied back from the device).
  const SepCmaDistribution& distribution() const { return host_distribution(); }
  const SepCmaParameters& parameters() const { return params_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

  // The backend's hooks: each touches the D-long vectors, which the GPU keeps on its device.
  // A (re)start's distribution: m uniform in the box (stream `key`), C = I, paths 0.
  virtual void start_distribution(std::uint64_t key);
  // x_k for k < count from the stream of (generation_, k), and their f into fitness_.
  virtual void sample_and_evaluate(int count);
  // Sample k is the best so far: keep its genes.
  virtual void keep_best_sample(int k);
  // The distribution's update from the ranked samples (sep_cma_update on the CPU).
  virtual void update_distribution(const std::vector<int>& order);
  virtual SepCmaCoordinateChecks coordinate_checks() const;
  // The distribution as the host holds it (the GPU's copied back: checkpoints, tests).
  virtual const SepCmaDistribution& host_distribution() const { return dist_; }
  // restore_arrays has set dist_ (and best_): the GPU uploads them.
  virtual void distribution_restored() {}

  Dim dim() const { return dim_; }
  double sigma0() const { return sigma0_; }
  std::int64_t generation_count() const { return generation_; }
  SepCmaDistribution& distribution_on_host() { return dist_; }
  const SepCmaDistribution& distribution_on_host() const { return dist_; }
  std::vector<double>& offspring_fitness() { return fitness_; }
  std::vector<real_t>& best_on_host() { return best_; }

 private:
  void start(int lambda);  // a (re)start: new mean, sigma0, C = I, paths 0
  void generation(int count);
  void keep_best(const std::vector<int>& order, int count);
  void record_history(const std::vector<int>& order);
  bool restart_criterion_holds(const std::vector<int>& order) const;

  Dim dim_;
  double sigma0_;
  SepCmaParameters params_;
  SepCmaDistribution dist_;
  std::int64_t generation_ = 0;  // every generation of the run: the key of its streams
  std::vector<real_t> samples_;  // lambda x dim, the generation's evaluated points
  std::vector<double> fitness_;
  std::vector<double> scratch_;  // sep_cma_update's
  std::vector<double> scale_;    // sigma sqrt(C_jj), the generation's
  std::vector<double> history_;  // the generations' best f, a ring of params_.history
  std::vector<real_t> best_;
  double best_fitness_;
  bool has_best_ = false;
};

}  // namespace chainsaw
