// Another search box on the GPU (`--domain`, `--shift-range`; docs/paper-quality.md): the CUDA
// engine takes the bounds and o from the Problem like the host, through the same per-gene code.
// Every test skips without a usable GPU.
#if defined(CHAINSAW_CUDA)

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/engines/cuda/cuda_engine.hpp"
#include "core/engines/host/host_engine.hpp"
#include "fitness/host_fitness.hpp"
#include "gpu_test_support.hpp"
#include "io/instance_file.hpp"

namespace chainsaw {
namespace {

Config boxed_config(const std::string& function, Dim dim, ShiftRange range) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.max_evaluations = 4000;
  c.seed = 3;
  c.domain_lower = -1.0;
  c.domain_upper = 1.0;
  c.shift_range = range;
  c.validate();
  return c;
}

bool inside(const std::vector<real_t>& x, const Problem& p) {
  for (const real_t g : x)
    if (!(g >= p.lower && g <= p.upper)) return false;
  return true;
}

TEST(CudaSearchBox, InitialAndCrossedGenesStayInTheBoxWithTheHostsFitness) {
  REQUIRE_GPU();
  for (const char* name : {"rastrigin", "griewank", "salomon", "discus", "sumsquares",
                           "schwefel12"}) {
    for (const ShiftRange range : {ShiftRange::kMiddle, ShiftRange::kWhole}) {
      const Config config = boxed_config(name, 100003, range);
      const Problem problem = make_problem(config);
      CudaEngine engine(config, problem);
      std::vector<int> slots(static_cast<size_t>(config.population_size));
      std::iota(slots.begin(), slots.end(), 0);
      std::vector<double> f(slots.size());
      engine.initialize(slots, f.data());
      std::vector<real_t> x(static_cast<size_t>(problem.dim));
      for (const int s : {0, config.population_size - 1}) {
        engine.read_genes(s, x.data());
        EXPECT_TRUE(inside(x, problem)) << name << " initial";
        const double host = evaluate_host(problem, x.data());
        EXPECT_NEAR(f[s], host, 1e-9 * std::fabs(host) + 1e-9) << name << " initial";
      }
      const ChildSpec spec{0, 1, config.population_size, Dim{5}, 0.1 * problem.width()};
      double child = 0.0;
      engine.make_children(&spec, 1, &child);
      engine.read_genes(spec.slot, x.data());
      EXPECT_TRUE(inside(x, problem)) << name << " child";
      const double host = evaluate_host(problem, x.data());
      EXPECT_NEAR(child, host, 1e-9 * std::fabs(host) + 1e-9) << name << " child";
    }
  }
}

// The device hashes o per gene like the host: the host's o, written as genes, is the optimum.
TEST(CudaSearchBox, TheHostsOptimumIsTheDevicesOptimum) {
  REQUIRE_GPU();
  for (const ShiftRange range : {ShiftRange::kMiddle, ShiftRange::kWhole}) {
    const Config config = boxed_config("sumsquares", 4099, range);
    const Problem problem = make_problem(config);
    CudaEngine engine(config, problem);
    std::vector<real_t> o(static_cast<size_t>(problem.dim));
    for (Dim j = 0; j < problem.dim; ++j) o[j] = problem.shift(j);
    engine.write_genes(0, o.data());
    EXPECT_NEAR(engine.fitness(0), -330.0, 1e-9 * 330.0);
    EXPECT_EQ(engine.distance_to_optimum(0), 0.0);
  }
}

// Both backends search the same boxed problem: every gene stays inside, and each ends well
// inside a uniform point's distance (about 0.67 sqrt(D) in [-1, 1] with o in the middle 60%).
TEST(CudaSearchBox, ARunStaysInsideTheBoxOnBothBackends) {
  REQUIRE_GPU();
  const Config config = boxed_config("discus", 30011, ShiftRange::kMiddle);
  const Problem problem = make_problem(config);
  CudaEngine cuda(config, problem);
  HostEngine host(config, problem);
  for (Engine* engine : {static_cast<Engine*>(&cuda), static_cast<Engine*>(&host)}) {
    MaSwChains algorithm(config, problem, *engine);
    const RunResult r = algorithm.run();
    EXPECT_LT(r.distance_to_optimum, 0.6 * std::sqrt(static_cast<double>(config.dim)));
    std::vector<real_t> x(static_cast<size_t>(config.dim));
    for (int slot = 0; slot < config.capacity(); ++slot) {
      engine->read_genes(slot, x.data());
      ASSERT_TRUE(inside(x, problem)) << "slot " << slot;
    }
  }
}

}  // namespace
}  // namespace chainsaw

#endif  // CHAINSAW_CUDA
