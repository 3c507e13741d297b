// MTS-LS1 alone (Tseng & Chen 2008; localsearch/mts_ls1.hpp has the search): one solution,
// uniform in the domain, improved by applications of MTS-LS1 of --mts-evals evaluations each
// (one unit), its search ranges carried from one application to the next.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// The evaluations of one MTS-LS1 application of --algorithm mts-ls1: --mts-evals, or
// min(10 D, 5000) (SHADE-ILS's local phase) when 0.
std::int64_t mts_application_evals(const Config& config, Dim dim);

class MtsLs1 : public PopulationAlgorithm {
 public:
  MtsLs1(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return fitness_; }
  std::vector<real_t> best_genes() const override { return solution_; }
  int population_size() const override { return 1; }
  const std::vector<double>& search_ranges() const { return search_range_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  std::vector<real_t> solution_;
  double fitness_ = 0.0;
  std::vector<double> search_range_;
};

}  // namespace chainsaw
