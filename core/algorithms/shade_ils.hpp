// SHADE-ILS (Molina, LaTorre & Herrera 2018), with the choices of the authors' code
// (github dmolina/shadeils): a SHADE population of N = 100 (memory H = N) and the best solution
// found so far, improved in iterations of three phases, each one unit:
//  1. global local search: the pool of methods {MTS-LS1, L-BFGS-B} picks one, applied to the
//     current best for min(50 D, 25000) evaluations with the global MTS-LS1 search ranges;
//  2. SHADE: the current best enters the population (in place of its best when better), then
//     min(50 D, 25000) evaluations of SHADE generations; the current best is SHADE's best;
//  3. local search: the local pool's method for min(10 D, 5000) evaluations, MTS-LS1 starting
//     from the global search ranges (its own changes last this iteration only).
// A pool first tries each method once, in a random order; then it keeps its choice until that
// method's relative improvement (f_before - f_after) / |f_before| falls to 0 or below the one
// before it, and then takes the method with the larger last improvement (ties: L-BFGS-B).
// Restart: an iteration that improves the best by a ratio below --shade-ils-threshold counts
// as a failure (and resets the global search ranges if its local search was MTS-LS1); three in
// a row restart: the current best becomes a random member of the population moved by
// U(-1%, 1%) of the width per variable, the population is drawn anew, the memories and
// archive, the pools and the search ranges start again.
//
// L-BFGS-B needs D + 1 evaluations per gradient (localsearch/lbfgsb.hpp): where a phase's budget
// holds fewer, MTS-LS1 runs in its place and is credited with the improvement.
#pragma once

#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "core/algorithms/shade_population.hpp"

namespace chainsaw {

enum class LocalMethod : int { kMtsLs1 = 0, kLbfgsb = 1 };

// A pool of the two local searches with the authors' last-improvement rule.
struct MethodPool {
  int order[2] = {0, 1};  // the first two choices
  int tried = 0;          // how many of them were handed out
  double improvement[2] = {0.0, 0.0};
  int chosen = -1;        // after the first two: the method kept

  void reset(std::uint64_t key);  // a new random first order, improvements 0
  LocalMethod next();
  // The relative improvement of `method`'s application (< 0: ignored).
  void credit(LocalMethod method, double ratio);
  int best() const { return improvement[0] > improvement[1] ? 0 : 1; }
};

// The relative improvement (before - after) / |before|, 0 when before is 0.
double improvement_ratio(double before, double after);

class ShadeIls : public PopulationAlgorithm {
 public:
  ShadeIls(const Config& config, const Problem& problem);
  bool next_unit_cut_by_budget() const override;
  double best_fitness() const override { return best_fitness_; }
  std::vector<real_t> best_genes() const override { return best_; }
  int population_size() const override { return population_.size(); }

  // The evaluations of each phase for this run's D.
  std::int64_t global_evals() const;  // 0: no global phase
  std::int64_t de_evals() const;
  std::int64_t local_evals() const;
  const MethodPool& local_pool() const { return local_pool_; }
  int failures() const { return failures_; }

 protected:
  void initialize_members() override;
  void advance_unit(std::int64_t evaluations_left) override;
  void save_arrays(AlgorithmState& state) const override;
  void restore_arrays(const AlgorithmState& state) override;

 private:
  enum Stage { kGlobal = 0, kShade = 1, kLocal = 2 };  // the unit that comes next
  // One local search on current_ with `budget` evaluations, cut at the run's end: the method
  // it ran.
  LocalMethod local_search(LocalMethod wanted, std::int64_t budget,
                           std::int64_t evaluations_left, std::vector<double>& sr);
  void run_shade(std::int64_t budget);
  void end_iteration(std::int64_t evaluations_left);
  void restart(std::int64_t evaluations_left);
  void keep_best();

  Dim dim_;
  ShadePopulation population_;
  std::vector<real_t> current_, best_;
  double current_fitness_ = 0.0, best_fitness_ = 0.0;
  double iteration_start_fitness_ = 0.0;
  std::vector<double> global_ranges_, local_ranges_;
  MethodPool global_pool_, local_pool_;
  int phase_ = kGlobal;
  int failures_ = 0;
  LocalMethod local_method_ = LocalMethod::kMtsLs1;
  std::int64_t generation_ = 0;
};

}  // namespace chainsaw
