// sep-CMA-ES (Ros & Hansen 2008): CMA-ES with a diagonal covariance matrix, whose learning
// rates c_1 and c_mu are multiplied by (n + 2) / 3, and cumulative step-size adaptation; the
// other defaults are those of Hansen's tutorial (2016). Optional IPOP restarts (Auger & Hansen
// 2005): when a stopping criterion holds, a new mean uniform in the box and lambda times the
// factor. Time and memory per generation O(lambda D): no D x D matrix. On the CPU; every
// offspring has its own keyed random stream, so results do not depend on the thread count.
// docs/algorithms.md lists the parameters, the restart criteria and the bound handling.
#pragma once

#include <cstdint>
#include <vector>

#include "core/algorithms/population_algorithm.hpp"

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

class SepCmaEs : public PopulationAlgorithm {
 public:
  SepCmaEs(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return best_fitness_; }
  std::vector<real_t> best_genes() const override { return best_; }
  int population_size() const override { return params_.lambda; }

  // For tests.
  const SepCmaDistribution& distribution() const { return dist_; }
  const SepCmaParameters& parameters() const { return params_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  void start(int lambda);  // a (re)start: new mean, sigma0, C = I, paths 0
  void generation(int count);
  void sample_and_evaluate(int count);
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
  std::vector<double> history_;  // the generations' best f, a ring of params_.history
  std::vector<real_t> best_;
  double best_fitness_;
  bool has_best_ = false;
};

}  // namespace chainsaw
