// One run of a population algorithm (DE, jDE, PSO, SS, sep-CMA-ES, the SHADE family) at a given
// OpenMP thread count, the count restored afterwards: the tests' one way to make and run one.
#pragma once

#include <omp.h>

#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "io/instance_file.hpp"
#include "test_support.hpp"

namespace chainsaw::test {

struct PopulationRun {
  RunResult result;
  std::vector<real_t> best;
  int population_size = 0;  // at the end (L-SHADE's shrinks, IPOP's grows)
};

inline PopulationRun run_population(const Config& c, int threads,
                                    Backend backend = Backend::kCpu) {
  const ThreadCountGuard guard;
  omp_set_num_threads(threads);
  const Problem problem = make_problem(c);
  const auto algorithm = make_population_algorithm(c, problem, backend);
  PopulationRun r;
  r.result = algorithm->run();
  r.best = algorithm->best_genes();
  r.population_size = algorithm->population_size();
  return r;
}

inline RunResult run_with_threads(const Config& c, int threads,
                                  std::vector<real_t>* best = nullptr) {
  PopulationRun r = run_population(c, threads);
  if (best) *best = std::move(r.best);
  return r.result;
}

}  // namespace chainsaw::test
