// sep-CMA-ES on the GPU (core/engines/cuda/sep_cma_cuda.cu) against the CPU's: the same
// streams and per-gene math, a different order of the fitness and ||p_sigma|| sums and the
// device's own log and cos, so one generation's update agrees to rounding and whole runs
// statistically (test_cuda_algorithms.cpp runs the shared GPU suite on it too). Every test
// skips without a usable GPU (CI has none).
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/algorithms/sep_cma_es.hpp"
#include "fitness/host_fitness.hpp"
#include "gpu_test_support.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "population_run.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

Config cma_config(const std::string& function, Dim dim, std::int64_t evals) {
  return test::algorithm_config(AlgorithmKind::kSepCmaEs, function, dim, evals, 9);
}

// The distribution after `generations` full generations on `backend`.
SepCmaDistribution distribution_after(const Config& c, int generations, Backend backend) {
  Config run = c;
  run.max_evaluations = static_cast<std::int64_t>(generations) * c.cma_initial_lambda();
  const Problem problem = make_problem(run);
  const auto algorithm = make_population_algorithm(run, problem, backend);
  algorithm->run();
  return dynamic_cast<const SepCmaEs&>(*algorithm).distribution();
}

// Every gene within `relative` of the CPU's value, or of the vector's largest where the value
// is near 0.
void expect_near_vectors(const std::vector<double>& gpu, const std::vector<double>& cpu,
                         double relative, const char* what) {
  ASSERT_EQ(gpu.size(), cpu.size()) << what;
  double scale = 0.0;
  for (double v : cpu) scale = std::max(scale, std::fabs(v));
  int off = 0;
  for (std::size_t j = 0; j < cpu.size(); ++j)
    if (!(std::fabs(gpu[j] - cpu[j]) <= relative * (std::fabs(cpu[j]) + 1e-3 * scale))) ++off;
  EXPECT_EQ(off, 0) << what << ": " << off << " of " << cpu.size() << " genes differ";
}

class CudaSepCmaEs : public test::TempDirTest {
 protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    REQUIRE_GPU();
  }
};

// Two generations at 5,000-D: m, C, the paths and sigma as the CPU's to rounding (the samples
// are the same floats but for the device's log and cos in the last bit).
TEST_F(CudaSepCmaEs, UpdateMatchesTheCpu) {
  const Config c = cma_config("rastrigin", 5000, 1000);
  const SepCmaDistribution cpu = distribution_after(c, 2, Backend::kCpu);
  const SepCmaDistribution gpu = distribution_after(c, 2, Backend::kCuda);
  EXPECT_EQ(gpu.generation, cpu.generation);
  EXPECT_NEAR(gpu.sigma, cpu.sigma, 1e-9 * cpu.sigma);
  expect_near_vectors(gpu.mean, cpu.mean, 1e-6, "mean");
  expect_near_vectors(gpu.c, cpu.c, 1e-6, "C");
  expect_near_vectors(gpu.path_c, cpu.path_c, 1e-5, "p_c");
  expect_near_vectors(gpu.path_sigma, cpu.path_sigma, 1e-5, "p_sigma");
}

// IPOP on the GPU: each restart grows lambda (the engine's slots made again), as on the CPU.
TEST_F(CudaSepCmaEs, IpopRestartsGrowLambda) {
  Config c = cma_config("rastrigin", 10, 60000);
  c.cma_ipop = true;
  const test::PopulationRun r = test::run_population(c, 2, Backend::kCuda);
  EXPECT_GE(r.result.counters.restarts, 3);
  EXPECT_EQ(r.population_size, c.cma_initial_lambda() << r.result.counters.restarts);
  EXPECT_EQ(r.result.counters.evaluations, 60000);
  const Problem problem = make_problem(c);
  EXPECT_NEAR(r.result.best_fitness, evaluate_host(problem, r.best.data()),
              1e-9 * std::fabs(r.result.best_fitness));
}

// Checkpointed after a restart, resumed with a larger budget: the longer GPU run, bit for bit.
TEST_F(CudaSepCmaEs, ResumeAfterARestartIsBitExact) {
  Config shorter = cma_config("rastrigin", 10, 9001);
  shorter.cma_ipop = true;
  Config longer = shorter;
  longer.max_evaluations = 20000;
  const test::ResumeBesideFresh c =
      test::resume_beside_fresh(shorter, longer, (dir_ / "gpu.h5").string(), Backend::kCuda);
  ASSERT_GE(c.shorter.counters.restarts, 1);
  test::expect_resume_is_the_fresh_run(c);
}

// --milestones on the GPU: the best of the first m evaluations is the run with budget m's.
TEST_F(CudaSepCmaEs, MilestonesAreTheBestOfTheRunWithThatBudget) {
  Config c = cma_config("sphere", 50, 4000);
  c.milestones = {1, 500, 1999, 4000};
  c.validate();
  const test::PopulationRun r = test::run_population(c, 2, Backend::kCuda);
  ASSERT_EQ(r.result.milestones.size(), c.milestones.size());
  for (std::size_t i = 1; i < c.milestones.size(); ++i) {
    Config shorter = c;
    shorter.max_evaluations = c.milestones[i];
    shorter.milestones.clear();
    EXPECT_EQ(r.result.milestones[i].best_fitness,
              test::run_population(shorter, 2, Backend::kCuda).result.best_fitness)
        << c.milestones[i];
  }
}

// 10^6 variables: the distribution's vectors and lambda = 45 rows on the device, a few
// generations, the best fitness the host's value of the best genes.
TEST_F(CudaSepCmaEs, RunsAtOneMillionVariables) {
  const Config c = cma_config("rastrigin", 1000000, 3 * 45);
  const test::PopulationRun r = test::run_population(c, 2, Backend::kCuda);
  EXPECT_EQ(r.population_size, 45);  // 4 + floor(3 ln 10^6)
  const Problem problem = make_problem(c);
  EXPECT_NEAR(r.result.best_fitness, evaluate_host(problem, r.best.data()),
              1e-9 * std::fabs(r.result.best_fitness));
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
