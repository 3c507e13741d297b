// The GPU population path of DE, jDE, PSO, SS and sep-CMA-ES (core/engines/cuda/) against
// the CPU backend: the same random streams and per-gene math, a different fitness reduction
// order, so the runs agree statistically (Mann-Whitney over 10 seeds) rather than bit for bit.
// Every test skips without a usable GPU (CI has none).
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "core/error.hpp"
#include "fitness/host_fitness.hpp"
#include "gpu_test_support.hpp"
#include "io/checkpoint/checkpoint.hpp"
#include "io/checkpoint/checkpoint_schedule.hpp"
#include "io/instance_file.hpp"
#include "population_run.hpp"
#include "temp_dir_test.hpp"

namespace chainsaw {
namespace {

Config gpu_config(AlgorithmKind algorithm, const std::string& function, std::int64_t evals,
                  std::uint64_t seed) {
  Config c;
  c.algorithm = algorithm;
  c.function = function;
  c.dim = 30;
  c.max_evaluations = evals;
  c.seed = seed;
  c.validate();
  return c;
}

using GpuRun = test::PopulationRun;

// On the thread count the test runs with.
GpuRun run_on(Backend backend, const Config& c) {
  return test::run_population(c, omp_get_max_threads(), backend);
}

// Two-sided p of the Mann-Whitney U test (normal approximation with the tie correction).
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end());
  const double n = static_cast<double>(all.size()), n1 = a.size(), n2 = b.size();
  double rank_sum = 0.0, ties = 0.0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i), rank = 0.5 * (i + 1 + j);  // mean rank
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum += rank;
    ties += t * t * t - t;
    i = j;
  }
  const double u = rank_sum - n1 * (n1 + 1) / 2;
  const double sd = std::sqrt(n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1))));
  if (sd == 0.0) return 1.0;
  return std::erfc(std::fabs(u - n1 * n2 / 2) / sd / std::sqrt(2.0));
}

class CudaAlgorithms : public test::TempDirTest, public ::testing::WithParamInterface<AlgorithmKind> {
 protected:
  void SetUp() override {
    test::TempDirTest::SetUp();
    REQUIRE_GPU();
  }
};

TEST_P(CudaAlgorithms, MatchesTheCpuOverTenSeeds) {
  std::vector<double> cpu, gpu;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const Config c = gpu_config(GetParam(), "rastrigin", 30000, seed);
    cpu.push_back(run_on(Backend::kCpu, c).result.best_fitness);
    gpu.push_back(run_on(Backend::kCuda, c).result.best_fitness);
  }
  const double p = mann_whitney_p(cpu, gpu);
  EXPECT_GT(p, 0.01) << "the GPU's best fitness differs from the CPU's (Mann-Whitney p = " << p
                     << ")";
}

TEST_P(CudaAlgorithms, SameSeedGivesTheSameRun) {
  const Config c = gpu_config(GetParam(), "schwefel12", 20000, 4);
  const GpuRun a = run_on(Backend::kCuda, c), b = run_on(Backend::kCuda, c);
  EXPECT_EQ(a.result.best_fitness, b.result.best_fitness);
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.result.counters.evaluations, 20000);
}

// Only the initial population: the same genes on both backends (same streams), f to rounding.
TEST_P(CudaAlgorithms, InitialPopulationIsTheCpus) {
  Config c = gpu_config(GetParam(), "sumsquares", 1000, 6);
  c.max_evaluations = c.algorithm_population();
  const GpuRun cpu = run_on(Backend::kCpu, c), gpu = run_on(Backend::kCuda, c);
  ASSERT_EQ(cpu.best.size(), gpu.best.size());
  for (std::size_t j = 0; j < cpu.best.size(); ++j) EXPECT_FLOAT_EQ(cpu.best[j], gpu.best[j]);
  EXPECT_NEAR(gpu.result.best_fitness, cpu.result.best_fitness,
              1e-12 * std::fabs(cpu.result.best_fitness));
}

TEST_P(CudaAlgorithms, ReachesTheTargetOnTheSphere) {
  Config c = gpu_config(GetParam(), "sumsquares", 400000, 5);
  c.target_error = 1e-8;
  const GpuRun r = run_on(Backend::kCuda, c);
  EXPECT_TRUE(r.result.stop.target_reached);
  EXPECT_LE(r.result.best_fitness + 330.0, 1e-8);
}

TEST_P(CudaAlgorithms, CheckpointResumeIsBitExact) {
  const std::string path = (dir_ / "gpu.h5").string();
  const Config shorter = gpu_config(GetParam(), "rastrigin", 7777, 8);
  const Problem problem = make_problem(shorter.function, shorter.dim, shorter.seed, "");
  {
    const auto algorithm = make_population_algorithm(shorter, problem, Backend::kCuda);
    CheckpointSchedule schedule("--checkpoint", path, {}, Backend::kCuda);
    algorithm->run({}, [&](Algorithm& a) { return schedule.at_safe_point(a); });
    schedule.at_end(*algorithm);
  }
  Config longer = shorter;
  longer.max_evaluations = 20000;
  const auto resumed = make_population_algorithm(longer, problem, Backend::kCuda);
  load_checkpoint(path, *resumed);
  const RunResult r = resumed->run();
  const GpuRun fresh = run_on(Backend::kCuda, longer);
  EXPECT_EQ(r.best_fitness, fresh.result.best_fitness);
  EXPECT_EQ(resumed->best_genes(), fresh.best);
}

// The classic functions on the population path: the initial population's best is the CPU's
// (same genes, f to rounding), and after some generations the GPU's best fitness is the host's
// value of its best genes.
TEST_P(CudaAlgorithms, ClassicFunctionsEvaluateAsOnTheHost) {
  for (const FunctionInfo& info : classic_functions()) {
    Config c = gpu_config(GetParam(), info.name, 1000, 6);
    c.max_evaluations = c.algorithm_population();
    const GpuRun cpu = run_on(Backend::kCpu, c), gpu = run_on(Backend::kCuda, c);
    EXPECT_NEAR(gpu.result.best_fitness, cpu.result.best_fitness,
                1e-9 * std::fabs(cpu.result.best_fitness) + 1e-12)
        << info.name;
    c.max_evaluations = 20 * c.algorithm_population();
    const GpuRun later = run_on(Backend::kCuda, c);
    const Problem problem = make_problem(c.function, c.dim, c.effective_problem_seed(), "");
    const double host = evaluate_host(problem, later.best.data());
    EXPECT_NEAR(later.result.best_fitness, host, 1e-9 * std::fabs(host) + 1e-12) << info.name;
    EXPECT_LT(later.result.best_fitness, cpu.result.best_fitness) << info.name;
  }
}

// The functions of generated data (Schwefel 2.6, 2.13, task scheduling) and CEC 2010's (one of
// each layout, the ordered partials of F19 and F20 among them), which the population path
// makes, then evaluates with their batch kernel, then selects on (three launches a
// generation), and Janssen's, which Scatter Search evaluates so too: the initial best is the
// CPU's to rounding; later, the GPU's best fitness is the host's value of its best genes, below
// the initial one, and the run repeats exactly. Task scheduling runs with both flowtimes.
TEST_P(CudaAlgorithms, DataFunctionsEvaluateAsOnTheHost) {
  struct DataFunction {
    const char* name;
    const char* etc_flowtime;
    Dim dim;
  };
  for (const DataFunction& d :
       {DataFunction{"schwefel26", "completion", 20}, DataFunction{"schwefel213", "completion", 20},
        DataFunction{"etc", "completion", 64}, DataFunction{"etc", "loads", 64},
        DataFunction{"nashed-f1", "completion", 30}, DataFunction{"cec2010-f5", "completion", 100},
        DataFunction{"cec2010-f12", "completion", 100},
        DataFunction{"cec2010-f16", "completion", 100},
        DataFunction{"cec2010-f19", "completion", 100},
        DataFunction{"cec2010-f20", "completion", 100}, DataFunction{"janssen-f1", "completion", 10},
        DataFunction{"janssen-f7", "completion", 30}}) {
    const std::string function = std::string(d.name) + " " + d.etc_flowtime;
    Config c = gpu_config(GetParam(), "sphere", 1000, 3);
    c.function = d.name;  // validated below, at its own D
    c.dim = d.dim;
    c.etc_flowtime = d.etc_flowtime;
    c.max_evaluations = c.algorithm_population();
    c.validate();
    const Problem problem = make_problem(c);
    const GpuRun cpu = run_on(Backend::kCpu, c), gpu = run_on(Backend::kCuda, c);
    EXPECT_NEAR(gpu.result.best_fitness, cpu.result.best_fitness,
                1e-9 * std::fabs(cpu.result.best_fitness))
        << function;
    c.max_evaluations = 30 * c.algorithm_population() + 7;  // a last, partial generation
    const GpuRun later = run_on(Backend::kCuda, c), again = run_on(Backend::kCuda, c);
    EXPECT_EQ(later.result.counters.evaluations, c.max_evaluations) << function;
    const double host = evaluate_host(problem, later.best.data());
    EXPECT_NEAR(later.result.best_fitness, host, 1e-9 * std::fabs(host)) << function;
    EXPECT_LT(later.result.best_fitness, cpu.result.best_fitness) << function;
    EXPECT_EQ(later.result.best_fitness, again.result.best_fitness) << function;
    EXPECT_EQ(later.best, again.best) << function;
  }
}


INSTANTIATE_TEST_SUITE_P(Algorithms, CudaAlgorithms,
                         ::testing::Values(AlgorithmKind::kDe, AlgorithmKind::kJde, AlgorithmKind::kPso,
                                           AlgorithmKind::kScatterSearch,
                                           AlgorithmKind::kSepCmaEs),
                         [](const auto& info) {
                           std::string name = algorithm_name(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');  // gtest's names
                           return name;
                         });

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
