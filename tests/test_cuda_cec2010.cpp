// The CEC 2010 functions on the GPU against the host implementation (itself held to a
// long-double reference in test_cec2010.cpp), on every path that makes genes: plain evaluation,
// initialisation, crossover, Solis-Wets (stored candidate + decision launch), whole runs.
// Every test skips without a usable GPU (CI has none); they run on the device machine.
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/cuda_engine.hpp"
#include "core/device_info.hpp"
#include "core/ma_sw_chains.hpp"
#include "fitness/cec2010_instance.hpp"
#include "fitness/host_fitness.hpp"

namespace chainsaw {
namespace {

#define REQUIRE_GPU()                                                   \
  do {                                                                  \
    if (!query_cuda_device().available) GTEST_SKIP() << "no CUDA GPU"; \
  } while (0)

std::string name_of(int n) { return "cec2010-f" + std::to_string(n); }

Config gpu_config(const std::string& function, Dim dim) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = 5000;
  c.seed = 7;
  c.backend = Backend::kCuda;
  c.validate();
  return c;
}

std::vector<real_t> random_genes(const Problem& p, std::uint64_t key) {
  CounterRng rng(key);
  std::vector<real_t> x(static_cast<size_t>(p.dim));
  for (auto& g : x) g = static_cast<real_t>(p.lower + p.width() * rng.uniform());
  return x;
}

// Both backends sum in double in different trees, with the device's pow/exp/cospi: they agree
// to far better than the 1e-6 the functions are held to against the reference.
void expect_same_value(double gpu, double host, const std::string& what) {
  EXPECT_NEAR(gpu, host, 1e-9 * std::fabs(host) + 1e-9) << what;
}

TEST(CudaCec2010, FitnessEqualsTheHostAtRandomPointsForAllTwentyAtD1000AndD100000) {
  REQUIRE_GPU();
  for (int n = 1; n <= 20; ++n) {
    for (Dim dim : {Dim{1000}, Dim{100000}}) {
      const Problem problem = Problem::make(name_of(n), dim, 11);
      CudaEngine engine(gpu_config(name_of(n), dim), problem);
      for (int slot = 0; slot < 3; ++slot) {
        const auto x = random_genes(problem, 100 + slot + dim);
        engine.write_genes(slot, x.data());
        expect_same_value(engine.fitness(slot), evaluate_host(problem, x.data()),
                          name_of(n) + " D " + std::to_string(dim));
      }
    }
  }
}

TEST(CudaCec2010, OptimumIsZeroAndAtDistanceZero) {
  REQUIRE_GPU();
  for (int n = 1; n <= 20; ++n) {
    const Problem problem = Problem::make(name_of(n), 10000, 3);
    CudaEngine engine(gpu_config(name_of(n), 10000), problem);
    std::vector<real_t> o(static_cast<size_t>(problem.dim));
    for (Dim j = 0; j < problem.dim; ++j) o[j] = problem.shift(j);
    engine.write_genes(0, o.data());
    EXPECT_NEAR(engine.fitness(0), 0.0, 1e-9) << name_of(n);
    EXPECT_EQ(engine.distance_to_optimum(0), 0.0) << name_of(n);
  }
}

TEST(CudaCec2010, BitIdenticalRunAfterRunAtAMillionVariables) {
  REQUIRE_GPU();
  for (const char* name : {"cec2010-f11", "cec2010-f15", "cec2010-f20"}) {
    const Problem problem = Problem::make(name, 1000000, 5);
    CudaEngine engine(gpu_config(name, problem.dim), problem);
    const auto x = random_genes(problem, 9);
    engine.write_genes(0, x.data());
    const double first = engine.fitness(0);
    for (int i = 0; i < 3; ++i) {
      engine.write_genes(0, x.data());
      EXPECT_EQ(engine.fitness(0), first) << name;
    }
    expect_same_value(first, evaluate_host(problem, x.data()), name);
  }
}

TEST(CudaCec2010, InitialisedAndCrossedGenesCarryTheirHostFitness) {
  REQUIRE_GPU();
  for (const char* name : {"cec2010-f5", "cec2010-f13", "cec2010-f16", "cec2010-f19"}) {
    const Dim dim = 20000;
    const Config config = gpu_config(name, dim);
    const Problem problem = Problem::make(name, dim, 4);
    CudaEngine engine(config, problem);
    std::vector<int> slots(static_cast<size_t>(config.population_size));
    std::iota(slots.begin(), slots.end(), 0);
    std::vector<double> f(slots.size());
    engine.initialize(slots, f.data());
    std::vector<real_t> x(static_cast<size_t>(dim));
    for (int s : {0, 17, config.population_size - 1}) {
      engine.read_genes(s, x.data());
      expect_same_value(f[s], evaluate_host(problem, x.data()), std::string(name) + " initial");
    }
    std::vector<ChildSpec> specs;
    for (int c = 0; c < config.batch; ++c)
      specs.push_back(ChildSpec{c % 7, 10 + c % 5, config.population_size + c,
                                c % 3 == 0 ? Dim{c * 13} : Dim{-1}, 0.25});
    std::vector<double> fc(specs.size());
    engine.make_children(specs.data(), static_cast<int>(specs.size()), fc.data());
    for (size_t c = 0; c < specs.size(); ++c) {
      engine.read_genes(specs[c].slot, x.data());
      expect_same_value(fc[c], evaluate_host(problem, x.data()), std::string(name) + " child");
      EXPECT_EQ(engine.fitness(specs[c].slot), fc[c]) << name;
    }
  }
}

TEST(CudaCec2010, SolisWetsDecidesOnTheStoredCandidateAndKeepsTheTrueFitness) {
  REQUIRE_GPU();
  for (const char* name : {"cec2010-f4", "cec2010-f12", "cec2010-f17", "cec2010-f20"}) {
    const Dim dim = 10000;
    const Problem problem = Problem::make(name, dim, 6);
    CudaEngine engine(gpu_config(name, dim), problem);
    const auto x0 = random_genes(problem, 3);
    engine.write_genes(3, x0.data());
    LocalSearchRequest req;
    req.slot = 3;
    req.fitness = engine.fitness(3);
    req.state.rho = 0.5;
    req.evaluations = 201;
    const LocalSearchResult r = engine.solis_wets(req);
    EXPECT_EQ(r.evaluations, 201) << name;
    EXPECT_LT(r.fitness, req.fitness) << name;  // 200 steps from a random point improve
    std::vector<real_t> x(static_cast<size_t>(dim));
    engine.read_genes(3, x.data());
    expect_same_value(r.fitness, evaluate_host(problem, x.data()), name);
    EXPECT_EQ(engine.fitness(3), r.fitness) << name;
  }
}

RunResult run_cuda(const Config& config) {
  const Problem problem =
      Problem::make(config.function, config.dim, config.effective_problem_seed());
  CudaEngine engine(config, problem);
  MaSwChains algorithm(config, problem, engine);
  return algorithm.run();
}

TEST(CudaCec2010, ShortRunsImproveAndRepeatBitForBit) {
  REQUIRE_GPU();
  for (const char* name : {"cec2010-f1", "cec2010-f8", "cec2010-f15", "cec2010-f20"}) {
    Config config = gpu_config(name, 1000);
    config.max_evaluations = 50;
    const double initial = run_cuda(config).best_fitness;
    config.max_evaluations = 20000;
    const RunResult a = run_cuda(config);
    const RunResult b = run_cuda(config);
    EXPECT_LT(a.best_fitness, 0.5 * initial) << name << ": " << initial << " -> " << a.best_fitness;
    EXPECT_EQ(a.best_fitness, b.best_fitness) << name;
    EXPECT_EQ(a.counters.evaluations, 20000) << name;
  }
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
