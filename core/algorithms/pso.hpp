// Inertia-weight global-best PSO (Shi & Eberhart 1998) with a velocity clamp, on the CPU,
// with Nashed et al.'s tuned defaults (Table 1: 125 particles, w 0.494, c1 1.862, c2 1.881).
// Synchronous, as on the GPU: every particle moves with the global best of the previous
// step, all are evaluated, then personal bests and the global best are updated.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"

namespace chainsaw {

// One particle's move in place (x, v: dim genes), drawing r1, r2 of gene j as draws 2j and
// 2j + 1 of stream `key`. vmax: the clamp per variable.
void pso_move_particle(real_t* x, real_t* v, const real_t* pbest, const real_t* gbest, Dim dim,
                       double w, double c1, double c2, double vmax, double lower, double upper,
                       std::uint64_t key);

class ParticleSwarm : public PopulationAlgorithm {
 public:
  ParticleSwarm(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return pbest_fitness_[static_cast<std::size_t>(best_)]; }
  std::vector<real_t> best_genes() const override;
  int population_size() const override { return n_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  void find_best();

  int n_;
  Dim dim_;
  double vmax_;
  std::vector<real_t> x_, v_, pbest_;  // n x dim each
  std::vector<double> fitness_, pbest_fitness_;
  int best_ = 0;  // the particle whose personal best is the global best
};

}  // namespace chainsaw
