// User objectives for the library tests (test_api.cpp, test_cuda_api.cu): copies of built-in
// functions written against the public API, and a grouped one.
#pragma once

#include <chainsaw/chainsaw.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/algorithms/ma_sw_chains.hpp"

namespace chainsaw::test {

// A small run of the library (population 10, batch 4, I_str 100) on `backend`.
inline Options small_api_options(Dim dim, std::int64_t evaluations, std::uint64_t seed,
                                 Backend backend) {
  Options o;
  o.dim = dim;
  o.max_evaluations = evaluations;
  o.seed = seed;
  o.population_size = 10;
  o.batch = 4;
  o.ls_intensity = 100;
  o.backend = backend;
  return o;
}

struct BuiltinRun {
  RunResult result;
  std::vector<real_t> best;
};

// The same run through an engine (HostEngine, CudaEngine) with the built-in function, as the
// CLI runs it.
template <class EngineType>
BuiltinRun run_builtin(const std::string& function, const Options& o) {
  Config c = o;
  c.function = function;
  c.validate();
  const Problem problem = Problem::make(function, c.dim, c.effective_problem_seed());
  EngineType engine(c, problem);
  MaSwChains algorithm(c, problem, engine);
  BuiltinRun r{algorithm.run(), std::vector<real_t>(static_cast<size_t>(c.dim))};
  engine.read_genes(r.result.best_slot, r.best.data());
  return r;
}

// A user objective's run is the built-in's, bit for bit.
inline void expect_same_run(const BuiltinRun& builtin, const Result& user) {
  EXPECT_EQ(user.best_fitness, builtin.result.best_fitness);
  EXPECT_EQ(user.best_genes, builtin.best);
  EXPECT_EQ(user.evaluations.evaluations, builtin.result.counters.evaluations);
  EXPECT_EQ(user.evaluations.ls_applications, builtin.result.counters.ls_applications);
}

// The built-in rastrigin (fitness/functions.hpp) as a user writes it: x is the gene, the user
// applies the benchmark's shift and bias itself.
struct UserRastrigin {
  using Partial = SumPartial;
  Shift shift;
  CHAINSAW_HD void accumulate(Partial& p, double x, Dim i) const {
    const double z = x - static_cast<double>(shift(i));
    p.sum += detail::rastrigin_term(z);  // the built-in's term, for the same bits
  }
  CHAINSAW_HD double finish(const Partial& p, Dim) const { return p.sum - 330.0; }
  double lower() const { return -5.12; }
  double upper() const { return 5.12; }
  double optimum_value() const { return -330.0; }
  std::string name() const { return "user-rastrigin"; }
};

// Schwefel 1.2: an ordered (prefix) reduction.
struct UserSchwefel12 {
  using Partial = PrefixSquarePartial;
  Shift shift;
  CHAINSAW_HD void accumulate(Partial& p, double x, Dim i) const {
    const double z = x - static_cast<double>(shift(i));
    p.total += z;
    p.prefix_sum += p.total;
    p.prefix_square_sum += p.total * p.total;
    p.count += 1.0;
  }
  CHAINSAW_HD double finish(const Partial& p, Dim) const { return p.prefix_square_sum - 330.0; }
  double lower() const { return -100.0; }
  double upper() const { return 100.0; }
  std::string name() const { return "user-schwefel12"; }
};

// sum over blocks of 50 consecutive genes of (sum_{i in block} (x_i - c))^2: non-separable
// inside a block, a sum over blocks.
struct BlockSquares {
  static constexpr Dim kSize = 50;
  CHAINSAW_HD static double value(double block_sum) { return block_sum * block_sum; }
};
struct UserGrouped {
  using Partial = BlockSumPartial<BlockSquares>;
  double c = 0.25;
  CHAINSAW_HD void accumulate(Partial& p, double x, Dim i) const { p.add(i, x - c); }
  CHAINSAW_HD double finish(const Partial& p, Dim) const { return p.total(); }
  double lower() const { return -1.0; }
  double upper() const { return 1.0; }
  std::string name() const { return "user-grouped"; }
};

}  // namespace chainsaw::test
