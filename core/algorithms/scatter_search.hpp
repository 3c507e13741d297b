// Scatter Search as in Nashed et al. §3 (seed gpu-pso-de-ss-nashed), on the CPU:
//  1. diversification: P uniform random solutions, evaluated;
//  2. reference set R: the |R1| best of P, then |R2| times the member of P - R farthest from R
//     (largest Euclidean distance to its nearest member of R);
//  3. subset generation and combination: every pair of R gives two children by BLX-alpha with
//     alpha = 0.5 + lambda and 0.5 - lambda (the pool);
//  4. improvement: Solis-Wets on every pool member (--ss-ls-iterations iterations, chainsaw's
//     Solis-Wets gene math and step-size adaptation, localsearch/solis_wets.hpp); its first
//     step is half the distance between the child's parents per sqrt(D) (the neighbour rule of
//     --rho-init neighbour), capped at a tenth of the domain;
//  5. reference-set update: R becomes the |R| best of R and the pool (the variant Nashed et al.
//     found better). When no pool member enters R, R has stagnated: a new diversification
//     population of P - |R| random solutions joins R and R is built again (a restart).
// One iteration (3-5) is the loop's unit.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "localsearch/solis_wets.hpp"

namespace chainsaw {

// Step 2: indices into the n rows of `genes` (fitness[i] of row i): the `best` best by
// (fitness, index), then `diverse` times the row of the rest whose nearest chosen row is
// farthest (ties: the lowest index). Best first, then the diverse ones in the order chosen.
std::vector<int> ss_build_reference_set(const double* fitness, const real_t* genes, int n,
                                        Dim dim, int best, int diverse);

// Step 5: the `keep` best of `count` values by (value, index): indices, best first.
std::vector<int> ss_best_indices(const double* fitness, int count, int keep);

// Step 4 on one solution x (f(x) = fx), in place; at most max_evaluations evaluations. Step j
// draws its deviates from stream derive_key(key, j). Returns the evaluations spent.
template <class Evaluate>
std::int64_t ss_improve(real_t* x, double& fx, Dim dim, double rho, int iterations,
                        std::int64_t max_evaluations, const SolisWetsParams& params, double lower,
                        double upper, std::uint64_t key, Evaluate&& evaluate);

class ScatterSearch : public PopulationAlgorithm {
 public:
  ScatterSearch(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return ref_fitness_.front(); }
  std::vector<real_t> best_genes() const override;
  int population_size() const override { return config_.ss_population; }
  int reference_size() const { return r_; }
  const std::vector<real_t>& reference_genes() const { return ref_; }
  const std::vector<double>& reference_fitness() const { return ref_fitness_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

  // Steps 3 and 4 at once for pool members 0..count (parents parent_a[m] and parent_b[m] of R),
  // each improved with its worst case of evaluations available: fills pool_, pool_fitness_ and
  // spent[m] (the member's improvement evaluations) and returns true; false (the default)
  // leaves both steps to the CPU code. The GPU path's kernel (core/engines/cuda/population_cuda.cu).
  virtual bool combine_and_improve(const std::vector<int>& parent_a,
                                   const std::vector<int>& parent_b, int count,
                                   std::uint64_t iteration, std::vector<std::int64_t>& spent) {
    (void)parent_a, (void)parent_b, (void)count, (void)iteration, (void)spent;
    return false;
  }
  Dim dim() const { return dim_; }
  const std::vector<real_t>& reference() const { return ref_; }
  std::vector<real_t>& pool() { return pool_; }
  std::vector<double>& pool_fitness() { return pool_fitness_; }
  int children() const { return r_ * (r_ - 1); }

 private:
  // Builds R from `rows` rows of `genes` (fitness alongside), best first.
  void take_reference_set(const std::vector<real_t>& genes, const std::vector<double>& fitness,
                          int rows);
  void restart(std::int64_t evaluations_left);
  void update_reference_set(int count);
  void count_improvements(const std::vector<std::int64_t>& spent);
  // Step 3: pool members 0..count-1 made from their pairs of R and evaluated.
  void combine_pool(const std::vector<int>& parent_a, const std::vector<int>& parent_b,
                    int count, std::uint64_t iteration);
  // Step 4: the members improved, every one at once (each capped at `worst`) or one after the
  // other in pool order from `left` evaluations.
  void improve_pool(const std::vector<int>& parent_a, const std::vector<int>& parent_b,
                    int count, std::uint64_t iteration, std::int64_t left, bool all_at_once,
                    std::int64_t worst);

  int r_;    // |R| = |R1| + |R2|
  Dim dim_;
  std::vector<real_t> ref_;  // r_ x dim, sorted best first
  std::vector<double> ref_fitness_;
  std::vector<real_t> pool_;  // children() x dim
  std::vector<double> pool_fitness_;
};

}  // namespace chainsaw

#include "core/algorithms/scatter_search_impl.hpp"
