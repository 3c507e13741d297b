// One run of a population algorithm (DE, jDE, PSO, SS, sep-CMA-ES, the SHADE family) at a given
// OpenMP thread count, the count restored afterwards: the tests' one way to make and run one.
#pragma once

#include <omp.h>

#include <string>
#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "test_support.hpp"

namespace chainsaw::test {

struct PopulationRun {
  RunResult result;
  std::vector<real_t> best;
  int population_size = 0;  // at the end (L-SHADE's shrinks, IPOP's grows)
};

// A validated configuration of `algorithm` on `function` at D with budget `evals`.
inline Config algorithm_config(AlgorithmKind algorithm, const std::string& function, Dim dim,
                               std::int64_t evals, std::uint64_t seed,
                               Backend backend = Backend::kAuto) {
  Config c;
  c.algorithm = algorithm;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = evals;
  c.seed = seed;
  c.backend = backend;
  c.validate();
  return c;
}

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

// `shorter` run on `backend`, checkpointed to `path` at its safe points and its end, then
// resumed from that file with `longer`'s budget, beside the fresh run of `longer`: what a
// bit-exact resume is checked against (expect_resume_is_the_fresh_run).
struct ResumeBesideFresh {
  RunResult shorter, resumed;
  std::int64_t evaluations_at_load = 0;
  int population_at_load = 0, resumed_population = 0;
  std::vector<real_t> resumed_best;
  PopulationRun fresh;
};
inline ResumeBesideFresh resume_beside_fresh(const Config& shorter, const Config& longer,
                                             const std::string& path, Backend backend) {
  const Problem problem = make_problem(shorter);
  ResumeBesideFresh c;
  {
    const auto algorithm = make_population_algorithm(shorter, problem, backend);
    CheckpointSchedule schedule("--checkpoint", path, {}, backend);
    c.shorter = algorithm->run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    schedule.at_end(*algorithm);
  }
  const auto resumed = make_population_algorithm(longer, problem, backend);
  load_checkpoint(path, *resumed);
  c.evaluations_at_load = resumed->counters().evaluations;
  c.population_at_load = resumed->population_size();
  c.resumed = resumed->run();
  c.resumed_best = resumed->best_genes();
  c.resumed_population = resumed->population_size();
  c.fresh = run_population(longer, 2, backend);
  return c;
}
inline void expect_resume_is_the_fresh_run(const ResumeBesideFresh& c) {
  EXPECT_EQ(c.resumed.best_fitness, c.fresh.result.best_fitness);
  EXPECT_EQ(c.resumed_best, c.fresh.best);
  EXPECT_EQ(c.resumed.counters.evaluations, c.fresh.result.counters.evaluations);
  EXPECT_EQ(c.resumed.counters.restarts, c.fresh.result.counters.restarts);
  EXPECT_EQ(c.resumed_population, c.fresh.population_size);
}

}  // namespace chainsaw::test
