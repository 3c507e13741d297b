// SHADE (Tanabe & Fukunaga 2013) and L-SHADE (Tanabe & Fukunaga 2014) on the CPU: a generation
// of core/algorithms/shade_population.hpp is one unit. L-SHADE adds linear population-size
// reduction: after each generation the population is cut to
//   N = round(N_init + (N_min - N_init) x evaluations / budget)
// by removing the worst, so that it is N_min exactly when the budget is spent; its archive
// shrinks with it. Its memories follow L-SHADE's rules (shade_population.hpp), with p fixed.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "core/algorithms/shade_population.hpp"

namespace chainsaw {

// The settings of --algorithm shade, lshade or shade-ils (whose SHADE is SHADE's).
ShadeSettings shade_settings(const Config& config);

// L-SHADE's population after `evaluations` of `budget`.
int lshade_population_size(int initial, int minimum, std::int64_t evaluations,
                           std::int64_t budget);

class Shade : public PopulationAlgorithm {
 public:
  Shade(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override;
  std::vector<real_t> best_genes() const override;
  int population_size() const override { return population_.size(); }
  const ShadePopulation& population() const { return population_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  bool lshade_;
  Dim dim_;
  ShadePopulation population_;
};

}  // namespace chainsaw
