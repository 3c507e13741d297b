// backend_after_auto_fallback: where --backend auto (the command line and the library alike)
// takes the CPU after resolve_backend found a GPU. `resolved` is given as kCuda, so that a build
// without CUDA or a GPU checks the decision too.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/algorithms/population_algorithm.hpp"
#include "core/config.hpp"
#include "core/engines/engine_factory.hpp"
#include "io/instance_file.hpp"

namespace chainsaw {
namespace {

constexpr AlgorithmKind kEveryAlgorithm[] = {
    AlgorithmKind::kMaSwChains, AlgorithmKind::kDe,     AlgorithmKind::kJde,
    AlgorithmKind::kPso,        AlgorithmKind::kScatterSearch, AlgorithmKind::kSepCmaEs,
    AlgorithmKind::kShade,      AlgorithmKind::kLshade, AlgorithmKind::kMtsLs1,
    AlgorithmKind::kShadeIls};

Config small_config(AlgorithmKind algorithm, Backend backend) {
  Config c;
  c.algorithm = algorithm;
  c.backend = backend;
  c.function = "sphere";
  c.dim = 8;
  return c;
}

// The problem of `c`, counting how often the decision asked for it.
struct CountingProblem {
  const Config& config;
  int calls = 0;
  Problem operator()() {
    ++calls;
    return make_problem(config);
  }
};

Backend decide(const Config& c, Backend resolved, int* problem_calls = nullptr) {
  CountingProblem problem{c};
  const Backend b = backend_after_auto_fallback(c, resolved, [&problem] { return problem(); });
  if (problem_calls) *problem_calls = problem.calls;
  return b;
}

TEST(AutoFallback, AnAlgorithmWithoutAGpuVersionRunsOnTheCpu) {
  int cpu_only = 0;
  for (AlgorithmKind a : kEveryAlgorithm) {
    if (!runs_on_cpu_only(a)) continue;
    ++cpu_only;
    int calls = -1;
    EXPECT_EQ(decide(small_config(a, Backend::kAuto), Backend::kCuda, &calls), Backend::kCpu)
        << algorithm_name(a);
    EXPECT_EQ(calls, 0) << algorithm_name(a) << ": decided without making the problem";
  }
  EXPECT_GT(cpu_only, 0) << "no CPU-only algorithm is left: this test has nothing to check";
}

TEST(AutoFallback, InitialRowsRunOnTheCpu) {
  Config c = small_config(AlgorithmKind::kDe, Backend::kAuto);
  c.initial_population = std::make_shared<const std::vector<double>>(2 * c.dim, 0.5);
  int calls = -1;
  EXPECT_EQ(decide(c, Backend::kCuda, &calls), Backend::kCpu);
  EXPECT_EQ(calls, 0);
}

// Every other population algorithm asks the GPU population path about the problem.
TEST(AutoFallback, TheGpuPopulationPathDecidesTheRest) {
  for (AlgorithmKind a : kEveryAlgorithm) {
    if (a == AlgorithmKind::kMaSwChains || runs_on_cpu_only(a)) continue;
    const Config c = small_config(a, Backend::kAuto);
    const bool gpu_runs_it = population_runs_on_cuda(c, make_problem(c), nullptr);
    int calls = -1;
    EXPECT_EQ(decide(c, Backend::kCuda, &calls), gpu_runs_it ? Backend::kCuda : Backend::kCpu)
        << algorithm_name(a);
    EXPECT_EQ(calls, 1) << algorithm_name(a);
  }
}

TEST(AutoFallback, MaSwChainsStaysOnTheGpu) {
  Config c = small_config(AlgorithmKind::kMaSwChains, Backend::kAuto);
  c.initial_population = std::make_shared<const std::vector<double>>(c.dim, 0.5);
  EXPECT_EQ(decide(c, Backend::kCuda), Backend::kCuda);
}

// --backend cuda is the user's word: a refusal is the engine's error line, not a silent CPU run.
TEST(AutoFallback, AnExplicitBackendNeverFallsBack) {
  for (AlgorithmKind a : kEveryAlgorithm) {
    Config c = small_config(a, Backend::kCuda);
    c.initial_population = std::make_shared<const std::vector<double>>(c.dim, 0.5);
    int calls = -1;
    EXPECT_EQ(decide(c, Backend::kCuda, &calls), Backend::kCuda) << algorithm_name(a);
    EXPECT_EQ(calls, 0) << algorithm_name(a);
    c.backend = Backend::kCpu;
    EXPECT_EQ(decide(c, Backend::kCpu), Backend::kCpu) << algorithm_name(a);
  }
}

TEST(AutoFallback, AutoWithoutAGpuStaysOnTheCpu) {
  const Config c = small_config(AlgorithmKind::kDe, Backend::kAuto);
  int calls = -1;
  EXPECT_EQ(decide(c, Backend::kCpu, &calls), Backend::kCpu);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace chainsaw
