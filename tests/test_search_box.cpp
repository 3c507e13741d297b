// Another search box for the per-gene functions (`--domain`, `--shift-range`;
// docs/paper-quality.md): the box moves the bounds and o, never the function, and the default
// stays each function's conventional domain with o in its middle 60%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/algorithms/ma_sw_chains.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/error.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "io/instance_file.hpp"
#include "io/results/result_json.hpp"
#include "test_support.hpp"

namespace chainsaw {
namespace {

SearchBox box(double lower, double upper, ShiftRange range = ShiftRange::kMiddle) {
  return {lower, upper, range};
}

// The smallest and largest o_j over D variables.
std::pair<double, double> shift_extent(const Problem& p) {
  double lo = p.upper, hi = p.lower;
  for (Dim j = 0; j < p.dim; ++j) {
    lo = std::min(lo, p.shift.value(j));
    hi = std::max(hi, p.shift.value(j));
  }
  return {lo, hi};
}

TEST(SearchBox, TheDefaultIsEachFunctionsConventionalDomainWithTheSameShift) {
  for (const char* name : test::kAllFunctions) {
    const Problem conventional = Problem::make(name, 5000, 4);
    const Problem boxed = Problem::make(name, 5000, 4, nullptr, {}, SearchBox{});
    const FunctionInfo& info = function_info(name);
    EXPECT_EQ(boxed.lower, info.lower) << name;
    EXPECT_EQ(boxed.upper, info.upper) << name;
    for (Dim j = 0; j < 5000; ++j)
      ASSERT_EQ(boxed.shift.value(j), conventional.shift.value(j)) << name << ", j = " << j;
  }
}

TEST(SearchBox, ABoxSetsEveryBoundAndPutsOInItsMiddleSixtyPercent) {
  constexpr Dim kDim = 100000;
  for (const char* name : {"griewank", "rastrigin", "zakharov"}) {
    const Problem p = Problem::make(name, kDim, 9, nullptr, {}, box(-1.0, 1.0));
    EXPECT_EQ(p.lower, -1.0);
    EXPECT_EQ(p.upper, 1.0);
    const auto [lo, hi] = shift_extent(p);
    EXPECT_GE(lo, -0.6) << name;
    EXPECT_LE(hi, 0.6) << name;
    EXPECT_LT(lo, -0.598) << name;  // 10^5 draws reach the ends of the range
    EXPECT_GT(hi, 0.598) << name;
  }
}

TEST(SearchBox, TheWholeShiftRangeSpansTheBoxAndAnOffCentreBoxKeepsItsCentre) {
  constexpr Dim kDim = 100000;
  const Problem whole =
      Problem::make("salomon", kDim, 2, nullptr, {}, box(-1, 1, ShiftRange::kWhole));
  auto [lo, hi] = shift_extent(whole);
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_LT(lo, -0.999);
  EXPECT_GT(hi, 0.999);
  const Problem shifted = Problem::make("sphere", kDim, 2, nullptr, {}, box(2.0, 6.0));
  std::tie(lo, hi) = shift_extent(shifted);
  EXPECT_GE(lo, 2.8);
  EXPECT_LE(hi, 5.2);
  EXPECT_LT(lo, 2.81);
  EXPECT_GT(hi, 5.19);
}

TEST(SearchBox, ConventionalDomainWithTheWholeShiftRangeSpansTheFunctionsDomain) {
  const Problem p =
      Problem::make("rastrigin", 100000, 5, nullptr, {}, box(0, 0, ShiftRange::kWhole));
  EXPECT_EQ(p.lower, -5.12);
  EXPECT_EQ(p.upper, 5.12);
  const auto [lo, hi] = shift_extent(p);
  EXPECT_LT(lo, -5.11);
  EXPECT_GT(hi, 5.11);
}

// The box changes where the optimum is, not the function: f(o) is the table's value for every
// per-gene function, and random points match the float64 reference.
TEST(SearchBox, TheFunctionIsTheSameInsideAnotherBox) {
  std::vector<FunctionInfo> functions = all_functions();
  functions.insert(functions.end(), classic_functions().begin(), classic_functions().end());
  std::mt19937_64 gen(17);
  for (const FunctionInfo& info : functions) {
    for (const SearchBox& b : {box(-1, 1), box(-1, 1, ShiftRange::kWhole), box(-3, 0.5)}) {
      const Problem p = Problem::make(info.name, 4099, 6, nullptr, {}, b);
      const std::vector<real_t> o = test::optimum_point(p);
      for (const real_t g : o) ASSERT_TRUE(g >= p.lower && g <= p.upper) << info.name;
      EXPECT_NEAR(evaluate_host(p, o.data()), p.optimum_value,
                  1e-9 * std::max(1.0, std::fabs(p.optimum_value)))
          << info.name;
    }
  }
  // The float64 reference (test_support.hpp) knows the paper's six.
  for (const char* name : test::kAllFunctions) {
    for (const SearchBox& b : {box(-1, 1), box(-1, 1, ShiftRange::kWhole), box(-3, 0.5)}) {
      const Problem p = Problem::make(name, 4099, 6, nullptr, {}, b);
      for (const auto kind : {test::PointKind::kUniform, test::PointKind::kNearOptimum}) {
        const std::vector<real_t> x = test::random_point(p, gen, kind);
        EXPECT_TRUE(test::matches_reference(p, x.data(), evaluate_host(p, x.data()))) << name;
      }
    }
  }
}

TEST(SearchBox, ARunStaysInsideTheBoxAndEndsCloserThanItsWidth) {
  Config c = test::small_config("sumsquares", 3000, 5, 10, 4);
  c.max_evaluations = 3000;
  c.domain_lower = -1.0;
  c.domain_upper = 1.0;
  c.validate();
  const Problem p = make_problem(c);
  HostEngine engine(c, p);
  MaSwChains algorithm(c, p, engine);
  const RunResult r = algorithm.run();
  std::vector<real_t> x(static_cast<size_t>(c.dim));
  for (int slot = 0; slot < c.capacity(); ++slot) {
    engine.read_genes(slot, x.data());
    for (const real_t g : x) ASSERT_TRUE(g >= -1.0f && g <= 1.0f) << "slot " << slot;
  }
  // A uniform point of [-1, 1]^D lies about 0.67 sqrt(D) from o; the run ends well inside that.
  EXPECT_LT(r.distance_to_optimum, 0.6 * std::sqrt(3000.0));
}

TEST(SearchBox, DomainTextIsTwoFiniteNumbersInOrder) {
  const SearchBox b = parse_domain("--domain", "-1,1");
  EXPECT_EQ(b.lower, -1.0);
  EXPECT_EQ(b.upper, 1.0);
  EXPECT_EQ(parse_domain("--domain", "-600,600").upper, 600.0);
  EXPECT_EQ(parse_domain("--domain", "1e-3,2.5").lower, 1e-3);
  for (const char* bad : {"1,-1", "1,1", "1", "a,b", "-1,", ",1", "-1,1,2", "-inf,1", "-1,nan",
                          "-1,1e39", ""}) {
    try {
      parse_domain("--domain", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UserError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("--domain = ", 0), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  EXPECT_EQ(parse_shift_range("--shift-range", "whole"), ShiftRange::kWhole);
  EXPECT_THROW(parse_shift_range("--shift-range", "all"), UserError);
}

TEST(SearchBox, FunctionsAndObjectivesWithTheirOwnDomainRefuseAnotherBox) {
  for (const char* name : {"cec2010-f1", "janssen-f3", "schwefel26", "etc", "user:mine"}) {
    Config c;
    c.function = name;
    c.dim = 100;
    c.domain_lower = -1.0;
    c.domain_upper = 1.0;
    EXPECT_THROW(c.validate(), UserError) << name;
    c.domain_lower = c.domain_upper = 0.0;
    c.shift_range = ShiftRange::kWhole;
    EXPECT_THROW(c.validate(), UserError) << name;
  }
  EXPECT_THROW(Problem::make("cec2010-f2", 100, 1, nullptr, {}, box(-1, 1)), UserError);
  EXPECT_THROW(Problem::make("sphere", 10, 1, nullptr, {}, box(1e7, 1e7 + 1e-3)), UserError);
}

TEST(SearchBox, TheResultAndCheckpointConfigurationKeepTheBox) {
  Config c = test::small_config("discus", 100);
  c.domain_lower = -2.0;
  c.domain_upper = 3.0;
  c.shift_range = ShiftRange::kWhole;
  const auto j = config_to_json(c);
  ASSERT_EQ(j.at("domain").size(), 2u);
  EXPECT_EQ(j.at("domain")[0].get<double>(), -2.0);
  EXPECT_EQ(j.at("domain")[1].get<double>(), 3.0);
  EXPECT_EQ(j.at("shift_range").get<std::string>(), "whole");
  const Config back = config_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.domain_lower, -2.0);
  EXPECT_EQ(back.domain_upper, 3.0);
  EXPECT_EQ(back.shift_range, ShiftRange::kWhole);
  // Written before --domain: no fields, the conventional box.
  auto old = nlohmann::json::parse(config_to_json(test::small_config("discus", 100)).dump());
  EXPECT_TRUE(old.at("domain").is_null());
  old.erase("domain");
  old.erase("shift_range");
  const Config legacy = config_from_json(old);
  EXPECT_TRUE(legacy.search_box().is_default());
}

}  // namespace
}  // namespace chainsaw
