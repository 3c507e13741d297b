// The six paper functions (Lastra et al. 2014 §6.3, algorithm.md "Functions") against an
// independent long-double reference, on every path that evaluates an individual on the CPU.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/engines/host/host_engine.hpp"
#include "fitness/functions.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "fitness/reduction.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

using test::matches_reference;
using test::PointKind;

// Dimension 1, tiny and odd sizes, and sizes that are not a multiple of the 4096-gene chunk
// (4097: a chunk of one gene at the end; 10000: three chunks, the last partial).
const Dim kDims[] = {1, 2, 7, 1000, 4097, 10000};

class FunctionAtDim : public ::testing::TestWithParam<std::tuple<const char*, Dim>> {
 protected:
  std::string function() const { return std::get<0>(GetParam()); }
  Dim dim() const { return std::get<1>(GetParam()); }
  std::uint64_t seed() const { return 1000 + static_cast<std::uint64_t>(dim()); }
};

TEST_P(FunctionAtDim, EvaluateHostEqualsFloat64ReferenceAtRandomPoints) {
  const Problem p = Problem::make(function(), dim(), seed());
  std::mt19937_64 gen(seed());
  for (PointKind kind : {PointKind::kUniform, PointKind::kUniform, PointKind::kNearBounds,
                         PointKind::kNearOptimum}) {
    const std::vector<real_t> x = test::random_point(p, gen, kind);
    EXPECT_TRUE(matches_reference(p, x.data(), evaluate_host(p, x.data())))
        << "point kind " << static_cast<int>(kind);
  }
}

TEST_P(FunctionAtDim, HostEngineWriteGenesThenFitnessEqualsFloat64Reference) {
  const Config c = test::small_config(function(), dim(), seed());
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(seed() + 7);
  std::vector<real_t> back(static_cast<size_t>(dim()));
  int slot = 0;
  for (PointKind kind : {PointKind::kUniform, PointKind::kNearBounds, PointKind::kNearOptimum}) {
    const std::vector<real_t> x = test::random_point(p, gen, kind);
    engine.write_genes(slot, x.data());
    engine.read_genes(slot, back.data());
    EXPECT_EQ(0, std::memcmp(x.data(), back.data(), x.size() * sizeof(real_t)));
    EXPECT_TRUE(matches_reference(p, x.data(), engine.fitness(slot)));
    slot = (slot + 1) % c.capacity();
  }
}

TEST_P(FunctionAtDim, ValueAtTheShiftedOptimumIsExactlyMinus330) {
  const Config c = test::small_config(function(), dim(), seed());
  const Problem p = test::problem_of(c);
  const std::vector<real_t> o = test::optimum_point(p);
  EXPECT_EQ(evaluate_host(p, o.data()), -330.0);
  HostEngine engine(c, p);
  engine.write_genes(2, o.data());
  EXPECT_EQ(engine.fitness(2), -330.0);
  EXPECT_EQ(engine.distance_to_optimum(2), 0.0);
}

INSTANTIATE_TEST_SUITE_P(
    AllFunctionsAndDims, FunctionAtDim,
    ::testing::Combine(::testing::ValuesIn(test::kAllFunctions), ::testing::ValuesIn(kDims)),
    [](const ::testing::TestParamInfo<FunctionAtDim::ParamType>& info) {
      return std::string(std::get<0>(info.param)) + "_dim" +
             std::to_string(std::get<1>(info.param));
    });

// The fused paths (genes made and evaluated in one pass) report the fitness of what they stored.
class FusedPathFitness : public ::testing::TestWithParam<const char*> {
 protected:
  static constexpr Dim kDim = 4097;
};

TEST_P(FusedPathFitness, InitializeReportsTheFitnessOfTheGenesItWrote) {
  const Config c = test::small_config(GetParam(), kDim, 11);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  const std::vector<int> slots = {0, 3, 5};
  std::vector<double> fitness(slots.size());
  engine.initialize(slots, fitness.data());
  std::vector<real_t> x(static_cast<size_t>(kDim));
  for (size_t i = 0; i < slots.size(); ++i) {
    engine.read_genes(slots[i], x.data());
    EXPECT_TRUE(matches_reference(p, x.data(), fitness[i])) << "slot " << slots[i];
    EXPECT_EQ(fitness[i], engine.fitness(slots[i]));
  }
}

TEST_P(FusedPathFitness, MakeChildrenReportsTheFitnessOfTheChildrenItWrote) {
  const Config c = test::small_config(GetParam(), kDim, 12);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(12);
  for (int slot = 0; slot < 3; ++slot) {
    const auto x = test::random_point(p, gen, slot == 2 ? PointKind::kNearBounds
                                                        : PointKind::kUniform);
    engine.write_genes(slot, x.data());
  }
  std::vector<ChildSpec> specs(3);
  specs[0] = {0, 1, 6, -1, 0.0};
  specs[1] = {1, 2, 7, 5, 0.05 * p.width()};  // with a BGA-mutated gene
  specs[2] = {2, 0, 8, kDim - 1, -0.05 * p.width()};
  std::vector<double> fitness(specs.size());
  engine.make_children(specs.data(), static_cast<int>(specs.size()), fitness.data());
  std::vector<real_t> x(static_cast<size_t>(kDim));
  for (size_t i = 0; i < specs.size(); ++i) {
    engine.read_genes(specs[i].slot, x.data());
    EXPECT_TRUE(matches_reference(p, x.data(), fitness[i])) << "child " << i;
    EXPECT_EQ(fitness[i], engine.fitness(specs[i].slot));
  }
}

TEST_P(FusedPathFitness, SolisWetsReportsTheFitnessOfTheGenesItKept) {
  const Config c = test::small_config(GetParam(), kDim, 13);
  const Problem p = test::problem_of(c);
  HostEngine engine(c, p);
  std::mt19937_64 gen(13);
  const auto x0 = test::random_point(p, gen);
  engine.write_genes(1, x0.data());
  LocalSearchRequest request;
  request.slot = 1;
  request.fitness = engine.fitness(1);
  request.state.rho = 0.01 * p.width();
  request.evaluations = 25;
  const LocalSearchResult result = engine.solis_wets(request);
  std::vector<real_t> x(static_cast<size_t>(kDim));
  engine.read_genes(1, x.data());
  EXPECT_TRUE(matches_reference(p, x.data(), result.fitness));
  EXPECT_EQ(result.fitness, engine.fitness(1));
}

INSTANTIATE_TEST_SUITE_P(AllFunctions, FusedPathFitness, ::testing::ValuesIn(test::kAllFunctions),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

TEST(HostFitness, ValueDoesNotDependOnTheThreadCount) {
  const test::ThreadCountGuard guard;
  for (const char* name : test::kAllFunctions) {
    const Problem p = Problem::make(name, 10000, 5);
    std::mt19937_64 gen(5);
    const auto x = test::random_point(p, gen);
    omp_set_num_threads(1);
    const double one = evaluate_host(p, x.data());
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      const double many = evaluate_host(p, x.data());
      EXPECT_EQ(0, std::memcmp(&one, &many, sizeof(double))) << name << ", " << threads;
    }
  }
}

TEST(Discus, WeighsOnlyTheFirstGeneByOneMillion) {
  // The standard Discus (algorithm.md), not the seed's variant with a factor i.
  const Problem p = Problem::make("discus", 3, 9);
  for (int unit = 0; unit < 3; ++unit) {
    std::vector<real_t> x = test::optimum_point(p);
    x[unit] = static_cast<real_t>(x[unit] + 1.0);
    const double z = static_cast<double>(x[unit]) - static_cast<double>(p.shift(unit));
    const double weight = unit == 0 ? 1.0e6 : 1.0;
    EXPECT_NEAR(evaluate_host(p, x.data()) - kFBias, weight * z * z, 1e-9 * weight);
  }
}

// Schwefel 1.2's one-pass reduction: chunk partials that combine in order.
PrefixSquarePartial accumulate_range(const std::vector<double>& z, size_t begin, size_t end) {
  PrefixSquarePartial p{};
  for (size_t i = begin; i < end; ++i) Schwefel12::accumulate(p, z[i], static_cast<Dim>(i + 1));
  return p;
}

::testing::AssertionResult partials_near(const PrefixSquarePartial& a, const PrefixSquarePartial& b,
                                         double rel) {
  auto near = [rel](double x, double y) {
    return std::fabs(x - y) <= rel * std::max({std::fabs(x), std::fabs(y), 1.0});
  };
  if (near(a.total, b.total) && near(a.prefix_sum, b.prefix_sum) &&
      near(a.prefix_square_sum, b.prefix_square_sum) && a.count == b.count)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "(" << a.total << ", " << a.prefix_sum << ", " << a.prefix_square_sum << ", "
         << a.count << ") vs (" << b.total << ", " << b.prefix_sum << ", "
         << b.prefix_square_sum << ", " << b.count << ")";
}

TEST(PrefixSquarePartial, CombineIsAssociativeOnRandomChunks) {
  std::mt19937_64 gen(21);
  for (int trial = 0; trial < 50; ++trial) {
    const size_t la = 1 + gen() % 3000, lb = 1 + gen() % 3000, lc = 1 + gen() % 3000;
    std::vector<double> z(la + lb + lc);
    for (double& v : z) v = test::uniform(gen, -100.0, 100.0);
    const auto a = accumulate_range(z, 0, la);
    const auto b = accumulate_range(z, la, la + lb);
    const auto c = accumulate_range(z, la + lb, z.size());
    const auto left = PrefixSquarePartial::combine(PrefixSquarePartial::combine(a, b), c);
    const auto right = PrefixSquarePartial::combine(a, PrefixSquarePartial::combine(b, c));
    EXPECT_TRUE(partials_near(left, right, 1e-12)) << "trial " << trial;
    EXPECT_TRUE(partials_near(left, accumulate_range(z, 0, z.size()), 1e-12)) << "trial " << trial;
  }
}

TEST(PrefixSquarePartial, ChunksCombinedInOrderEqualExplicitPrefixSums) {
  std::mt19937_64 gen(22);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> z(1 + gen() % 20000);
    for (double& v : z) v = test::uniform(gen, -100.0, 100.0);
    // Random cut points, one chunk of a single gene included now and then.
    std::vector<size_t> cuts = {0};
    while (cuts.back() < z.size())
      cuts.push_back(std::min(z.size(), cuts.back() + 1 + gen() % (gen() % 2 ? 4096 : 3)));
    PrefixSquarePartial total = accumulate_range(z, cuts[0], cuts[1]);
    for (size_t k = 1; k + 1 < cuts.size(); ++k)
      total = PrefixSquarePartial::combine(total, accumulate_range(z, cuts[k], cuts[k + 1]));
    long double prefix = 0.0L, expected = 0.0L;
    for (double v : z) {
      prefix += v;
      expected += prefix * prefix;
    }
    EXPECT_NEAR(total.prefix_square_sum, static_cast<double>(expected),
                1e-10 * static_cast<double>(expected))
        << "trial " << trial << ", " << cuts.size() - 1 << " chunks";
  }
}

TEST(PrefixSquarePartial, AnEmptyPartialIsTheIdentityOfCombine) {
  std::mt19937_64 gen(23);
  std::vector<double> z(100);
  for (double& v : z) v = test::uniform(gen, -1.0, 1.0);
  const auto a = accumulate_range(z, 0, z.size());
  const PrefixSquarePartial empty{};
  EXPECT_TRUE(partials_near(PrefixSquarePartial::combine(a, empty), a, 0.0));
  EXPECT_TRUE(partials_near(PrefixSquarePartial::combine(empty, a), a, 0.0));
}

TEST(Shift, LiesInTheMiddleSixtyPercentOfTheDomainAndSpansIt) {
  constexpr Dim kDim = 100000;
  for (const char* name : test::kAllFunctions) {
    for (std::uint64_t seed : {1ULL, 2ULL, 12345ULL}) {
      const Problem p = Problem::make(name, kDim, seed);
      const double w = p.width();
      // Rounding of o_j to real_t may move it by one unit in the last place.
      const double slack = test::kGeneEps * std::max(std::fabs(p.lower), std::fabs(p.upper));
      double lo = p.upper, hi = p.lower;
      for (Dim j = 0; j < kDim; ++j) {
        const double o = p.shift(j);
        lo = std::min(lo, o);
        hi = std::max(hi, o);
      }
      EXPECT_GE(lo, p.lower + 0.2 * w - slack) << name << ", seed " << seed;
      EXPECT_LE(hi, p.lower + 0.8 * w + slack) << name << ", seed " << seed;
      // 10^5 uniform draws leave gaps of ~1e-5 of the range at its ends.
      EXPECT_LT(lo, p.lower + 0.201 * w) << name << ", seed " << seed;
      EXPECT_GT(hi, p.lower + 0.799 * w) << name << ", seed " << seed;
    }
  }
}

TEST(Shift, DependsOnTheProblemSeedAndOnlyOnIt) {
  constexpr Dim kDim = 10000;
  const Problem a = Problem::make("rastrigin", kDim, 1);
  const Problem a_again = Problem::make("rastrigin", kDim, 1);
  const Problem b = Problem::make("rastrigin", kDim, 2);
  const Problem a_larger = Problem::make("rastrigin", 3 * kDim, 1);
  Dim same_as_b = 0;
  for (Dim j = 0; j < kDim; ++j) {
    ASSERT_EQ(a.shift(j), a_again.shift(j));
    ASSERT_EQ(a.shift(j), a_larger.shift(j));  // o_j does not depend on the dimension
    if (a.shift(j) == b.shift(j)) ++same_as_b;
  }
  EXPECT_LT(same_as_b, kDim / 100);
}

// o_j lies on a grid of floats: its double value (what the fitness passes subtract) is exactly
// the real_t value (what a gene set to o holds), in float32 and float64 builds alike, and it is
// a float, so both builds solve the same instance.
TEST(Shift, EveryOptimumCoordinateIsAFloatAndItsDoubleValueIsExact) {
  constexpr Dim kDim = 50000;
  for (const char* name : test::kAllFunctions) {
    const Problem p = Problem::make(name, kDim, 3);
    int exponent = 0;
    EXPECT_EQ(std::frexp(p.shift.step, &exponent), 0.5) << name << ": step a power of two";
    for (Dim j = 0; j < kDim; ++j) {
      const double o = p.shift.value(j);
      ASSERT_EQ(o, static_cast<double>(p.shift(j))) << name << ", j = " << j;
      ASSERT_EQ(o, static_cast<double>(static_cast<float>(o))) << name << ", j = " << j;
      ASSERT_EQ(std::fmod(o - p.shift.first, p.shift.step), 0.0) << name << ", j = " << j;
    }
  }
}

// The GPU makes o_j as grid_point(2^52 + m) (one fused multiply-add, m's double from its bits):
// that must be first + step * m exactly, at every level of every function's grid.
TEST(Shift, TheGpusFusedGridPointIsExactAtEveryLevel) {
  for (const char* name : test::kAllFunctions) {
    for (std::uint64_t seed : {1ULL, 3ULL}) {
      const Shift shift = Problem::make(name, 10, seed).shift;
      ASSERT_GE(shift.levels, 1000u) << name;
      ASSERT_LE(shift.levels, 1u << 24) << name;
      for (std::uint32_t m = 0; m < shift.levels; ++m) {
        const double exact = shift.first + shift.step * static_cast<double>(m);
        ASSERT_EQ(shift.grid_point(0x1.0p52 + static_cast<double>(m)), exact)
            << name << ", seed " << seed << ", m = " << m;
      }
    }
  }
}

// Another problem seed gives another set of o_j values, not the same values in another order.
TEST(Shift, SeedsGiveDifferentSetsOfOptimumCoordinates) {
  constexpr Dim kDim = 1 << 16;
  std::vector<double> a(kDim), b(kDim);
  const Problem pa = Problem::make("rastrigin", kDim, 1), pb = Problem::make("rastrigin", kDim, 2);
  for (Dim j = 0; j < kDim; ++j) {
    a[static_cast<size_t>(j)] = pa.shift.value(j);
    b[static_cast<size_t>(j)] = pb.shift.value(j);
  }
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  Dim equal = 0;
  for (Dim j = 0; j < kDim; ++j) equal += a[static_cast<size_t>(j)] == b[static_cast<size_t>(j)];
  EXPECT_LT(equal, kDim / 100);
}

TEST(Shift, ConfigProblemSeedDefaultsToTheRunSeed) {
  Config c = test::small_config("sumsquares", 10, 77);
  EXPECT_EQ(c.effective_problem_seed(), 77u);
  c.problem_seed = 5;
  EXPECT_EQ(c.effective_problem_seed(), 5u);
}

}  // namespace
}  // namespace chainsaw
