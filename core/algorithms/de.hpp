// DE/rand/1 with binomial or exponential crossover (Storn & Price 1997), and jDE, its
// self-adaptive variant (Brest et al. 2006), on the CPU. A generation is synchronous, as on the
// GPU (Kromer et al., Janssen et al.): every trial vector is made from the generation's
// population, all are evaluated, then each replaces its target when f(trial) <= f(target).
// The per-gene math and the keyed random streams are core/algorithms/population_ops.hpp's.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// The trial vector of target i (dim genes into `trial`), from the population `genes` (np rows):
// DE/rand/1 with F and CR, binomial or exponential crossover, drawing from stream `key`. r
// receives r1, r2, r3. Shared by the tests, which check it against hand-computed vectors.
void de_make_trial(const real_t* genes, int np, Dim dim, int i, double f, double cr,
                   DeCrossover crossover, double lower, double upper, std::uint64_t key,
                   real_t* trial, int r[3]);

class DifferentialEvolution : public PopulationAlgorithm {
 public:
  DifferentialEvolution(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return fitness_[static_cast<std::size_t>(best_)]; }
  std::vector<real_t> best_genes() const override;
  int population_size() const override { return np_; }

  // For tests: the population and, for jDE, every individual's F and CR.
  const std::vector<real_t>& genes() const { return genes_; }
  const std::vector<double>& fitness() const { return fitness_; }
  const std::vector<double>& f_values() const { return f_; }
  const std::vector<double>& cr_values() const { return cr_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  void find_best();

  bool adaptive_;  // jDE
  int np_;
  Dim dim_;
  std::vector<real_t> genes_;   // np x dim
  std::vector<double> fitness_;
  std::vector<real_t> trials_;  // np x dim
  std::vector<double> trial_fitness_;
  std::vector<double> f_, cr_;              // jDE: per individual
  std::vector<double> trial_f_, trial_cr_;  // jDE: the trial's
  int best_ = 0;
};

}  // namespace chainsaw
