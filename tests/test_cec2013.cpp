// The CEC 2013 LSGO benchmark (Li et al. 2013): the fifteen functions against the official C++
// code's values on the official data (tests/data/cec2013, README.md there says how they were
// made), f = 0 at the optimum, generated instances against an independent long-double
// reference written from the definitions, instance files, the data folder's errors, the GPU
// against the host, and runs through the command line.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "fitness/cec2010/cec2010_instance.hpp"
#include "fitness/cec2013/cec2013_instance.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/problem.hpp"
#include "io/cec2013_files.hpp"
#include "io/instance_file.hpp"

#if defined(CHAINSAW_CUDA)
#include "device_batch_support.hpp"
#include "gpu_test_support.hpp"
#endif

namespace chainsaw {
namespace {

namespace fs = std::filesystem;
using ld = long double;
using test::CliTest;
using test::Outcome;

const std::string kData = std::string(CHAINSAW_TEST_DATA) + "/cec2013";
const std::string kOfficial = kData + "/cdatafiles";

std::string name_of(int n) { return "cec2013-f" + std::to_string(n); }
Dim official_dim(int n) { return n == 13 || n == 14 ? 905 : 1000; }
// A generated instance's D of two rounds of the official structure (any D for F1-F3, F12, F15).
Dim generated_dim(int n) {
  const Cec2013Layout layout = cec2013_spec(n).layout;
  if (cec2013_overlaps(layout)) return 1805;
  return layout == Cec2013Layout::kWhole ? 1500 : 2000;
}

std::vector<real_t> genes_of(const std::vector<double>& x) {
  return std::vector<real_t>(x.begin(), x.end());
}
double evaluate(const Problem& p, const std::vector<double>& x) {
  const std::vector<real_t> g = genes_of(x);
  return evaluate_host(p, g.data());
}

// ---------------------------------------------------------------------------------------------
// The points of tests/data/cec2013/README.md: SplitMix64's uniforms, which CounterRng draws.

// The optimum's position per variable: o (F12: o + 1); F14: the o of the first group that holds
// the variable.
std::vector<double> centre(const Cec2013Instance& inst) {
  std::vector<double> c(static_cast<size_t>(inst.dim), 0.0);
  if (inst.number != 14) {
    for (Dim j = 0; j < inst.dim; ++j) c[j] = inst.o[j] + (inst.number == 12 ? 1.0 : 0.0);
    return c;
  }
  std::vector<char> set(c.size(), 0);
  for (const Cec2013Group& g : inst.groups)
    for (int k = 0; k < g.size; ++k) {
      const auto j = static_cast<size_t>(inst.perm[g.start + k]);
      if (!set[j]) c[j] = inst.o[g.o_offset + k], set[j] = 1;
    }
  return c;
}

// Point k (0, 1: uniform; 2, 3: near the centre) of function n, as floats.
std::vector<double> reference_point(const Problem& p, int k) {
  const FunctionInfo& info = function_info(p.function);
  const double width = info.upper - info.lower;
  const double spread[4] = {0.0, 0.0, 1e-2, 1e-4};
  const std::vector<double> c = centre(*p.cec2013);
  CounterRng rng(0x5eed0000ULL + 100ULL * p.cec2013->number + static_cast<std::uint64_t>(k));
  std::vector<double> x(c.size());
  for (size_t j = 0; j < x.size(); ++j) {
    const double u = rng.uniform();
    const double v = k < 2 ? info.lower + width * u : c[j] + spread[k] * width * (2.0 * u - 1.0);
    x[j] = static_cast<float>(v);
  }
  return x;
}

struct Reference {
  std::map<std::string, double> f;  // by point
};
std::map<int, Reference> read_reference() {
  std::ifstream in(kData + "/reference.txt");
  std::map<int, Reference> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int n = 0;
    std::string point, value;
    fields >> n >> point >> value;
    out[n].f[point] = std::stod(value);
  }
  return out;
}

Problem official(int n) { return make_problem(name_of(n), official_dim(n), 1, kOfficial); }

// ---------------------------------------------------------------------------------------------
// The official code on the official data.

TEST(Cec2013Official, ValuesEqualTheOfficialCodeAtItsReferencePoints) {
  const std::map<int, Reference> reference = read_reference();
  ASSERT_EQ(reference.size(), 15u);
  const char* kinds[4] = {"uniform-a", "uniform-b", "near", "nearer"};
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const Problem p = official(n);
    ASSERT_TRUE(p.is_cec2013());
    const Reference& r = reference.at(n);
    for (int k = 0; k < 4; ++k) {
      const double want = r.f.at(kinds[k]);
      EXPECT_NEAR(evaluate(p, reference_point(p, k)), want, 1e-10 * std::fabs(want))
          << name_of(n) << " " << kinds[k];
    }
    const double zero = r.f.at("zero");
    EXPECT_NEAR(evaluate(p, std::vector<double>(static_cast<size_t>(p.dim), 0.0)), zero,
                1e-10 * zero)
        << name_of(n) << " at x = 0";
  }
}

// At the optimum in double the official code leaves only round-off (Ackley's -20 - e + 20 + e
// times the weights: 2e-9 for F10); chainsaw's Ackley is exactly 0 there. F14's groups want
// different values of their shared variables: its point is the first group's, f > 0.
TEST(Cec2013Official, TheOptimumGivesZeroAndF14ItsConflictingValue) {
  const std::map<int, Reference> reference = read_reference();
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const Problem p = official(n);
    const std::vector<double> c = centre(*p.cec2013);
    const double f = cec2013_value(n, p.cec2013->view(), c.data());
    const double want = reference.at(n).f.at("optimum");
    if (n == 14) {
      EXPECT_NEAR(f, want, 1e-10 * want);
      EXPECT_FALSE(p.optimum_position_known());
      EXPECT_TRUE(p.cec2013->optimum.empty());
    } else {
      EXPECT_NEAR(f, want, 1e-8) << name_of(n);
      EXPECT_LE(f, 1e-20) << name_of(n);  // F12: (o + 1) - o is 1 to an ulp of o
      EXPECT_EQ(f == 0.0, n != 12) << name_of(n) << " f = " << f;
      EXPECT_TRUE(p.optimum_position_known());
    }
  }
}

TEST(Cec2013Official, TheDataIsReadAsTheOfficialCodeReadsIt) {
  const Problem p4 = official(4);
  const Cec2013Instance& f4 = *p4.cec2013;
  EXPECT_EQ(f4.o[0], 56.81532864067736);  // F4-xopt.txt's first line
  EXPECT_EQ(f4.sizes, (std::vector<std::int32_t>{50, 25, 25, 100, 50, 25, 25}));
  EXPECT_EQ(f4.weights[0], 45.69963061477328);
  EXPECT_EQ(f4.perm[0], 197);  // F4-p.txt starts 198 (1-based)
  EXPECT_EQ(f4.rotation[0][1], 0.03347376033553921);  // F4-R25.txt, row 1, column 2
  EXPECT_EQ(f4.view().rest_begin, 300);
  EXPECT_EQ(f4.view().rest_length, 700);
  // F13: 905 variables, the groups 5 apart less than their sizes; F14 its o per group.
  const Problem p13 = official(13), p14 = official(14);
  EXPECT_EQ(p13.cec2013->groups[1].start, 45);
  EXPECT_EQ(p13.cec2013->groups.back().start + p13.cec2013->groups.back().size, 905);
  EXPECT_EQ(p14.cec2013->o.size(), 1000u);
  EXPECT_EQ(p14.cec2013->groups[2].o_offset, 100);
  // F1-F3, F12, F15 have only o.
  EXPECT_TRUE(official(15).cec2013->perm.empty());
  EXPECT_TRUE(official(12).cec2013->groups.empty());
}

// The official R are orthogonal to round-off: the 1e-6 check passes them.
TEST(Cec2013Official, TheOfficialRotationsAreOrthogonal) {
  for (int n : {4, 8, 13}) {
    const Problem p = official(n);
    for (int r = 0; r < kCec2013Rotations; ++r)
      EXPECT_LT(orthogonality_error(p.cec2013->rotation[r], cec2013_rotation_size(r)), 1e-12);
  }
}

// T_osz's sine against sinl, absolute: uniform arguments up to T_osz's largest (10 |log|x||
// of the smallest double), the quadrant boundaries k pi / 2 and their neighbours.
TEST(Cec2013Transforms, SinPolynomialIsWithin1e15OfSin) {
  std::mt19937_64 gen(21);
  std::uniform_real_distribution<double> any(-7500.0, 7500.0), near(-1e-9, 1e-9);
  const long double pi = 3.141592653589793238462643383279502884L;
  double worst = 0.0;
  for (int n = 0; n < 400000; ++n) {
    double x = any(gen);
    if (n % 2) x = static_cast<double>(std::nearbyint(x / (pi / 2)) * (pi / 2)) + near(gen);
    const long double want = std::sin(static_cast<long double>(x));
    worst = std::max(worst, static_cast<double>(
                                std::fabs(static_cast<long double>(detail::sin_polynomial(x)) - want)));
  }
  EXPECT_LT(worst, 1e-15);
  EXPECT_EQ(detail::sin_polynomial(0.0), 0.0);
}

// ---------------------------------------------------------------------------------------------
// The reference: Li et al. 2013's definitions as the official code applies them, in long double
// on explicit vectors.

ld osz(ld x) {
  if (x == 0) return 0;
  const ld h = std::log(std::fabs(x));
  const ld e = std::exp(h + 0.049L * (std::sin((x > 0 ? 10.0L : 5.5L) * h) +
                                      std::sin((x > 0 ? 7.9L : 3.1L) * h)));
  return x > 0 ? e : -e;
}
ld ratio(size_t i, size_t n) { return n > 1 ? static_cast<ld>(i) / static_cast<ld>(n - 1) : 0; }
ld asy(ld x, size_t i, size_t n) {
  return x > 0 ? std::pow(x, 1 + 0.2L * ratio(i, n) * std::sqrt(x)) : x;
}
ld lambda10(ld x, size_t i, size_t n) { return x * std::pow(10.0L, 0.5L * ratio(i, n)); }

ld base(Cec2013Base b, const std::vector<ld>& v) {
  const ld pi = 3.141592653589793238462643383279502884L;
  const size_t n = v.size();
  ld f = 0, s1 = 0, s2 = 0, prefix = 0;
  for (size_t i = 0; i < n; ++i) {
    switch (b) {
      case Cec2013Base::kElliptic:
        f += std::pow(1.0e6L, ratio(i, n)) * osz(v[i]) * osz(v[i]);
        break;
      case Cec2013Base::kRastrigin: {
        const ld u = lambda10(asy(osz(v[i]), i, n), i, n);
        f += u * u - 10 * std::cos(2 * pi * u) + 10;
        break;
      }
      case Cec2013Base::kAckley: {
        const ld u = lambda10(asy(osz(v[i]), i, n), i, n);
        s1 += u * u;
        s2 += std::cos(2 * pi * u);
        break;
      }
      case Cec2013Base::kSchwefel:
        prefix += asy(osz(v[i]), i, n);
        f += prefix * prefix;
        break;
      case Cec2013Base::kSphere: f += v[i] * v[i]; break;
      case Cec2013Base::kRosenbrock:
        if (i + 1 < n)
          f += 100 * (v[i] * v[i] - v[i + 1]) * (v[i] * v[i] - v[i + 1]) +
               (v[i] - 1) * (v[i] - 1);
        break;
      case Cec2013Base::kNone: break;
    }
  }
  if (b == Cec2013Base::kAckley && n > 0)
    f = -20 * std::exp(-0.2L * std::sqrt(s1 / n)) - std::exp(s2 / n) + 20 +
        2.718281828459045235360287471352662498L;
  return f;
}

ld reference(const Cec2013Instance& inst, const std::vector<double>& x) {
  const Cec2013Spec spec = cec2013_spec(inst.number);
  const auto z = [&](size_t j) { return static_cast<ld>(x[j]) - static_cast<ld>(inst.o[j]); };
  if (spec.layout == Cec2013Layout::kWhole) {
    std::vector<ld> v(x.size());
    for (size_t j = 0; j < v.size(); ++j) v[j] = z(j);
    return base(spec.rest_base, v);
  }
  ld f = 0;
  size_t position = 0, offset = 0;
  for (size_t g = 0; g < inst.sizes.size(); ++g) {
    const auto s = static_cast<size_t>(inst.sizes[g]);
    const std::vector<double>& r =
        inst.rotation[static_cast<size_t>(cec2013_rotation_index(inst.sizes[g]))];
    std::vector<ld> y(s), w(s, 0);
    for (size_t k = 0; k < s; ++k) {
      const auto j = static_cast<size_t>(inst.perm[position + k]);
      y[k] = spec.layout == Cec2013Layout::kConflicting
                 ? static_cast<ld>(x[j]) - static_cast<ld>(inst.o[offset + k])
                 : z(j);
    }
    for (size_t i = 0; i < s; ++i)
      for (size_t k = 0; k < s; ++k) w[i] += static_cast<ld>(r[i * s + k]) * y[k];
    f += static_cast<ld>(inst.weights[g]) * base(spec.group_base, w);
    offset += s;
    position += s - (cec2013_overlaps(spec.layout) ? kCec2013Overlap : 0);
  }
  if (spec.layout == Cec2013Layout::kPartial) {
    std::vector<ld> rest;
    for (size_t k = position; k < x.size(); ++k)
      rest.push_back(z(static_cast<size_t>(inst.perm[k])));
    f += base(spec.rest_base, rest);
  }
  return f;
}

// Uniform points of the domain and points near the optimum, as floats.
std::vector<std::vector<double>> test_points(const Problem& p, std::uint64_t seed) {
  const FunctionInfo& info = function_info(p.function);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> domain(info.lower, info.upper), unit11(-1.0, 1.0);
  const std::vector<double> c = centre(*p.cec2013);
  std::vector<std::vector<double>> points;
  for (int k = 0; k < 4; ++k) {
    std::vector<double> x(c.size());
    const double h = k < 2 ? 0.0 : (k == 2 ? 1e-2 : 1e-5) * (info.upper - info.lower);
    for (size_t j = 0; j < x.size(); ++j)
      x[j] = static_cast<float>(k < 2 ? domain(rng) : c[j] + h * unit11(rng));
    points.push_back(x);
  }
  return points;
}

TEST(Cec2013Reference, TheReferenceEqualsTheOfficialCodeOnItsData) {
  const std::map<int, Reference> official_values = read_reference();
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const Problem p = official(n);
    const double want = official_values.at(n).f.at("near");
    EXPECT_NEAR(static_cast<double>(reference(*p.cec2013, reference_point(p, 2))), want,
                1e-10 * want)
        << name_of(n);
  }
}

class Cec2013EveryFunction : public ::testing::TestWithParam<int> {};

TEST_P(Cec2013EveryFunction, GeneratedInstancesMatchTheLongDoubleReference) {
  const int n = GetParam();
  const Problem p = Problem::make(name_of(n), generated_dim(n), 100 + n);
  ASSERT_TRUE(p.is_cec2013());
  for (const auto& x : test_points(p, 7 + n)) {
    const double want = static_cast<double>(reference(*p.cec2013, x));
    EXPECT_NEAR(evaluate(p, x), want, 1e-10 * std::fabs(want)) << name_of(n);
    EXPECT_GT(evaluate(p, x), 0.0) << name_of(n);
  }
}

// The generated o are floats, so that x* is a point of the genes: f(x*) = 0 exactly.
TEST_P(Cec2013EveryFunction, GeneratedOptimaAreGenesWithFZero) {
  const int n = GetParam();
  if (n == 14) GTEST_SKIP() << "F14 has no common optimum";
  const Problem p = Problem::make(name_of(n), generated_dim(n), 30 + n);
  ASSERT_EQ(p.shift.stored, p.cec2013->optimum.data());
  EXPECT_EQ(evaluate_host(p, p.cec2013->optimum.data()), 0.0) << name_of(n);
  std::vector<real_t> x = p.cec2013->optimum;
  x[static_cast<size_t>(p.dim / 3)] += real_t(0.5);
  EXPECT_GT(evaluate_host(p, x.data()), 0.0) << name_of(n);
}

// Every item alone (threads) and all of them in order (one thread): the same bits.
TEST_P(Cec2013EveryFunction, TheHostBatchIsTheOneThreadValueForAnyThreadCount) {
  const int n = GetParam();
  const Problem p = Problem::make(name_of(n), cec2013_spec(n).layout == Cec2013Layout::kWhole
                                                  ? 9000
                                                  : generated_dim(n),
                                  3);
  const auto points = test_points(p, 11);
  const int rows = static_cast<int>(points.size());
  const Dim pitch = p.dim + 7;
  std::vector<real_t> genes(static_cast<size_t>(rows * pitch), real_t{0});
  for (int r = 0; r < rows; ++r)
    std::copy(points[r].begin(), points[r].end(), genes.begin() + r * pitch);
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    std::vector<double> out(static_cast<size_t>(rows));
    p.external->host(genes.data(), pitch, rows, p.dim, out.data());
    for (int r = 0; r < rows; ++r) {
      const real_t* x = genes.data() + r * pitch;
      EXPECT_EQ(out[r], cec2013_value(n, p.cec2013->view(), x)) << name_of(n) << " row " << r;
    }
  }
  omp_set_num_threads(omp_get_num_procs());
}

INSTANTIATE_TEST_SUITE_P(FifteenFunctions, Cec2013EveryFunction, ::testing::Range(1, 16),
                         [](const auto& info) { return "F" + std::to_string(info.param); });

// ---------------------------------------------------------------------------------------------
// Generated instances: the official structure repeated.

TEST(Cec2013Instances, TheStructureScalesWithD) {
  const Cec2013Instance f4 = Cec2013Instance::generate(4, 3000, 1);
  EXPECT_EQ(f4.sizes.size(), 21u);  // 7 groups per 1000 variables
  EXPECT_EQ(f4.view().rest_begin, 900);
  EXPECT_EQ(f4.view().rest_length, 2100);
  const Cec2013Instance f8 = Cec2013Instance::generate(8, 2000, 1);
  EXPECT_EQ(f8.sizes.size(), 40u);
  EXPECT_EQ(f8.view().rest_length, 0);
  const Cec2013Instance f13 = Cec2013Instance::generate(13, 1805, 1);
  EXPECT_EQ(f13.sizes.size(), 40u);
  EXPECT_EQ(f13.groups.back().start + f13.groups.back().size, 1805);
  const Cec2013Instance f14 = Cec2013Instance::generate(14, 905, 1);
  EXPECT_EQ(f14.o.size(), 1000u);
  EXPECT_TRUE(f14.optimum.empty());
  // The official sequences of sizes, from the first group on.
  EXPECT_EQ(std::vector<std::int32_t>(f8.sizes.begin(), f8.sizes.begin() + 20),
            official(8).cec2013->sizes);
  EXPECT_EQ(std::vector<std::int32_t>(f4.sizes.begin(), f4.sizes.begin() + 7),
            official(4).cec2013->sizes);
}

TEST(Cec2013Instances, TheSameSeedGivesTheSameDataAnotherSeedOther) {
  const Cec2013Instance a = Cec2013Instance::generate(9, 1000, 5),
                        b = Cec2013Instance::generate(9, 1000, 5),
                        c = Cec2013Instance::generate(9, 1000, 6);
  EXPECT_TRUE(a.same_as(b));
  EXPECT_NE(a.o, c.o);
  EXPECT_NE(a.perm, c.perm);
  EXPECT_NE(a.weights, c.weights);
  EXPECT_NE(a.rotation[2], c.rotation[2]);
}

TEST(Cec2013Instances, DataLieInTheDomainAndRotationsAreOrthogonal) {
  const Cec2013Instance f10 = Cec2013Instance::generate(10, 5000, 2);
  for (double v : f10.o) {
    EXPECT_GE(v, -32.0);
    EXPECT_LE(v, 32.0);
    EXPECT_EQ(static_cast<double>(static_cast<real_t>(v)), v);
  }
  for (int r = 0; r < kCec2013Rotations; ++r)
    EXPECT_LT(orthogonality_error(f10.rotation[r], cec2013_rotation_size(r)), 1e-12);
  // w = 10^(3 N(0,1)): log10 w has mean ~0 and sd ~3 over the 100 groups.
  double mean = 0.0, squares = 0.0;
  for (double w : f10.weights) mean += std::log10(w) / 100.0;
  for (double w : f10.weights) squares += (std::log10(w) - mean) * (std::log10(w) - mean);
  EXPECT_LT(std::fabs(mean), 1.0);
  EXPECT_NEAR(std::sqrt(squares / 99.0), 3.0, 0.8);
  // F12's optimum o + 1 is in the domain.
  for (real_t v : Cec2013Instance::generate(12, 1000, 2).optimum) {
    EXPECT_GE(v, -100.0f);
    EXPECT_LE(v, 100.0f);
  }
}

TEST(Cec2013Instances, DimensionsOutsideTheStructureAreRefused) {
  EXPECT_THROW(Problem::make("cec2013-f4", 1500, 1), UserError);
  EXPECT_THROW(Problem::make("cec2013-f8", 999, 1), UserError);
  EXPECT_THROW(Problem::make("cec2013-f13", 1000, 1), UserError);
  EXPECT_THROW(Problem::make("cec2013-f1", 1, 1), UserError);
  EXPECT_NO_THROW(Problem::make("cec2013-f1", 2, 1));
  EXPECT_NO_THROW(Problem::make("cec2013-f14", 1805, 1));
  try {
    Problem::make("cec2013-f13", 1000, 1);
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("900 k + 5"), std::string::npos) << e.what();
  }
}

TEST(Cec2013Instances, TheTableListsFifteenWithTheOfficialDomains) {
  ASSERT_EQ(cec2013_functions().size(), 15u);
  const double upper[15] = {100, 5, 32, 100, 5, 32, 100, 100, 5, 32, 100, 100, 100, 100, 100};
  for (int n = 1; n <= 15; ++n) {
    const FunctionInfo& info = function_info(name_of(n));
    EXPECT_EQ(cec2013_number(info.id), n);
    EXPECT_EQ(info.upper, upper[n - 1]);
    EXPECT_EQ(info.lower, -upper[n - 1]);
    EXPECT_EQ(function_optimum_value(name_of(n)), 0.0);
  }
}

// ---------------------------------------------------------------------------------------------
// Instance files: chainsaw's text and HDF5, and the official folder's errors.

class Cec2013Files : public CliTest {
 protected:
  std::string broken_copy() {
    const fs::path copy = dir_ / "cdatafiles";
    fs::copy(kOfficial, copy);
    return copy.string();
  }
  void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  std::string error_of(int n, Dim dim, const std::string& path) {
    try {
      make_problem(name_of(n), dim, 1, path);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(Cec2013Files, TextAndHdf5ReadBackBitForBit) {
  for (int n : {1, 5, 12, 13, 14}) {
    const Problem generated = Problem::make(name_of(n), generated_dim(n), 9);
    for (const char* name : {"i.txt", "i.h5"}) {
      const std::string path = (dir_ / name).string();
      write_cec2013_file("--output", path, *generated.cec2013, "test");
      const Problem read = make_problem(name_of(n), generated_dim(n), 1, path);
      EXPECT_TRUE(read.cec2013->same_as(*generated.cec2013)) << name_of(n) << " " << name;
      const auto x = test_points(generated, 3)[0];
      EXPECT_EQ(evaluate(read, x), evaluate(generated, x));
    }
  }
  // The official data written out reads back as itself.
  const Problem f8 = official(8);
  write_cec2013_file("--output", (dir_ / "f8.h5").string(), *f8.cec2013, "official");
  EXPECT_TRUE(make_problem("cec2013-f8", 1000, 1, (dir_ / "f8.h5").string())
                  .cec2013->same_as(*f8.cec2013));
}

TEST_F(Cec2013Files, BadFilesAreOneLineNamingWhatIsWrong) {
  const Problem f5 = Problem::make("cec2013-f5", 1000, 2);
  const std::string good = (dir_ / "good.txt").string();
  write_cec2013_file("--output", good, *f5.cec2013, "test");
  const std::string text = test::read_file(good);
  // The good file with section `name` (up to the next one) replaced by `with`.
  const auto replaced = [&text](const std::string& name, const std::string& with) {
    const size_t at = text.find("\n" + name) + 1;
    size_t next = text.find('\n', at);
    while (next != std::string::npos && std::string("psRwx").find(text[next + 1]) == std::string::npos)
      next = text.find('\n', next + 1);
    return text.substr(0, at) + with + (next == std::string::npos ? "" : text.substr(next + 1));
  };
  const struct {
    std::string text, expected;
  } cases[] = {
      {replaced("xopt", "xopt 1 2 3\n"), "section xopt has 3 values, D = 1000 needs 1000"},
      {replaced("w", "w 1 2\n"), "section w has 2 values, 7 groups needs 7"},
      {replaced("s", "s" + std::string(11, ' ') + "\n"), "section s has no group sizes"},
      {replaced("s", "s 100 100 100 100 100 100 100 100 100 100 100\n"),
       "section s: 11 groups cover 1100 positions, more than D = 1000"},
      {replaced("s", "s 50 25 25 100 50 25 30\n"), "section s: value 7 = 30 is not a group size"},
      {replaced("p", "p 1.5\n"), "section p: value 1 '1.5' is not a whole number"},
      {replaced("R100", "R100 1 2\n"), "section R100 has 2 values"},
      {"function cec2013-f6\n", "an instance of cec2013-f6, not of cec2013-f5"},
      {"dim 2000\n", "dim 2000 does not match --dim = 1000"},
      {"1 2 3\n", "a number before any section"},
      {"rotation 1 2\n", "'rotation' is no section"},
      {"xopt nan\n", "is not a finite number"},
  };
  for (const auto& c : cases) {
    const std::string path = (dir_ / "bad.txt").string();
    write(path, c.text);
    const std::string e = error_of(5, 1000, path);
    EXPECT_EQ(e.rfind("--instance = " + path + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(c.expected), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  EXPECT_NE(error_of(5, 1000, (dir_ / "missing.txt").string()).find("cannot be opened"),
            std::string::npos);
}

TEST_F(Cec2013Files, ABrokenOfficialFolderIsOneLineNamingTheFile) {
  const std::string dir = broken_copy();
  const auto expect = [&](int n, const std::string& expected) {
    const std::string e = error_of(n, official_dim(n), dir);
    EXPECT_EQ(e.rfind("--instance = " + dir + ": ", 0), 0u) << e;
    EXPECT_NE(e.find(expected), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  };
  fs::remove(fs::path(dir) / "F7-R100.txt");
  expect(7, "cannot read F7-R100.txt");
  write(dir + "/F4-xopt.txt", "1\n2\n3\n");
  expect(4, "F4-xopt.txt has 3 values, D = 1000 needs 1000");
  write(dir + "/F5-w.txt", "1\n2\ninf\n4\n5\n6\n7\n");
  expect(5, "F5-w.txt: value 3 'inf' is not a finite number");
  write(dir + "/F6-s.txt", "50\n25\n25\n100\n50\n25\n30\n");
  expect(6, "F6-s.txt: value 7 = 30 is not a group size of 25, 50 or 100");
  write(dir + "/F8-s.txt", "50\n50\n");
  expect(8, "F8-s.txt: 2 groups cover 100 positions, not D = 1000");
  std::string p9 = test::read_file(dir + "/F9-p.txt");
  write(dir + "/F9-p.txt", "1," + p9.substr(p9.find(',') + 1));
  expect(9, "F9-p.txt is not a permutation");
  std::string r10 = test::read_file(dir + "/F10-R25.txt");
  write(dir + "/F10-R25.txt", "0.5," + r10.substr(r10.find(',') + 1));
  expect(10, "F10-R25.txt is not orthogonal");
  write(dir + "/F11-xopt.txt", "x\n");
  expect(11, "F11-xopt.txt: value 1 'x' is not a finite number");
  // A folder for another D fails on its counts.
  EXPECT_NE(error_of(4, 2000, kOfficial).find("F4-xopt.txt has 1000 values, D = 2000"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The command line.

class Cec2013Cli : public CliTest {};

TEST_F(Cec2013Cli, FunctionsListsTheFifteenWithTheirDomains) {
  const Outcome o = chainsaw("functions");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (int n = 1; n <= 15; ++n) {
    const std::string name = name_of(n);
    const size_t at = o.out.find(name + " ");
    ASSERT_NE(at, std::string::npos) << name;
    const std::string row = o.out.substr(at, o.out.find('\n', at) - at);
    const char* domain = n == 2 || n == 5 || n == 9 ? "[-5, 5]"
                         : n == 3 || n == 6 || n == 10 ? "[-32, 32]"
                                                       : "[-100, 100]";
    EXPECT_NE(row.find(domain), std::string::npos) << row;
  }
}

TEST_F(Cec2013Cli, RunsOnTheOfficialDataAndReportsErrorsAgainstZero) {
  for (int n : {7, 12, 13, 14}) {
    const std::string out = out_path(name_of(n) + ".json");
    const Outcome o = chainsaw("run --function " + name_of(n) + " --dim " +
                               std::to_string(official_dim(n)) +
                               " --evals 1500 --backend cpu -q --instance '" + kOfficial +
                               "' --output '" + out + "'");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto result = nlohmann::json::parse(test::read_file(out));
    const double best = result.at("best_fitness").get<double>();
    EXPECT_GT(best, 0.0);
    EXPECT_EQ(result.at("best_error").get<double>(), best);
    EXPECT_EQ(result.at("distance_to_optimum").is_null(), n == 14) << name_of(n);
  }
}

TEST_F(Cec2013Cli, ARunOnAnExportedInstanceIsTheGeneratedRun) {
  std::vector<nlohmann::json> results;
  for (const std::string instance : {"", "f11.h5", "f11.txt"}) {
    if (!instance.empty()) {
      const Outcome e = chainsaw("instance export --function cec2013-f11 --dim 2000 "
                                 "--problem-seed 4 -o '" + (dir_ / instance).string() + "'");
      ASSERT_EQ(e.exit_code, 0) << e.err;
    }
    const std::string out = out_path(instance + ".json");
    const Outcome o = chainsaw(
        "run --function cec2013-f11 --dim 2000 --evals 1500 --problem-seed 4 --backend cpu -q "
        "--output '" + out + "'" +
        (instance.empty() ? "" : " --instance '" + (dir_ / instance).string() + "'"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    results.push_back(nlohmann::json::parse(test::read_file(out)));
  }
  EXPECT_EQ(results[0].at("best_fitness"), results[1].at("best_fitness"));
  EXPECT_EQ(results[0].at("best_fitness"), results[2].at("best_fitness"));
  const auto curve = [](const nlohmann::json& r) {  // the trace without its seconds
    std::vector<std::pair<double, double>> points;
    for (const auto& p : r.at("trace")) points.push_back({p[0].get<double>(), p[2].get<double>()});
    return points;
  };
  EXPECT_EQ(curve(results[0]), curve(results[1]));
  EXPECT_EQ(curve(results[0]), curve(results[2]));
}

TEST_F(Cec2013Cli, TheOfficialFolderExportsAndBadDataIsOneLine) {
  const std::string out = (dir_ / "f4.txt").string();
  const Outcome e = chainsaw("instance export --function cec2013-f4 --dim 1000 --instance '" +
                             kOfficial + "' -o '" + out + "'");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(test::read_file(out).find("56.81532864067736"), std::string::npos);
  test::expect_one_line_error(
      chainsaw("run --function cec2013-f4 --dim 2000 --evals 500 --backend cpu --instance '" +
               kOfficial + "'"),
      "F4-xopt.txt has 1000 values, D = 2000 needs 2000");
  test::expect_one_line_error(chainsaw("run --function cec2013-f13 --dim 1000 --evals 500"),
                              "needs D = 900 k + 5");
}

TEST_F(Cec2013Cli, TheSameSeedGivesTheSameRunForAnyThreadCount) {
  // D = 9000: rows of 9000 variables (3 rest chunks) take the threads
  expect_runs_independent_of_threads("--function cec2013-f3 --dim 9000 --evals 2500");
  expect_runs_independent_of_threads("--function cec2013-f10 --dim 2000 --evals 2500");
}

// ---------------------------------------------------------------------------------------------
// The GPU: the same values as the host to round-off, for every function, on the official data
// and on generated instances of many groups and rest chunks.

#if defined(CHAINSAW_CUDA)
TEST(Cec2013Gpu, DeviceValuesEqualTheHostsOnTheOfficialData) {
  REQUIRE_GPU();
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const Problem p = official(n);
    std::vector<std::vector<double>> points;
    for (int k = 0; k < 4; ++k) points.push_back(reference_point(p, k));
    test::expect_device_batch_equals_host(p, points);
  }
}

TEST(Cec2013Gpu, DeviceValuesEqualTheHostsOnLargeGeneratedInstances) {
  REQUIRE_GPU();
  for (int n = 1; n <= kCec2013Functions; ++n) {
    const Cec2013Layout layout = cec2013_spec(n).layout;
    const Dim dim = cec2013_overlaps(layout) ? 90005 : layout == Cec2013Layout::kWhole ? 100003
                                                                                       : 100000;
    const Problem p = Problem::make(name_of(n), dim, 60 + n);
    auto points = test_points(p, 19 + n);
    // More rows than one tile of the group pass holds.
    for (int k = 0; k < 14; ++k) points.push_back(points[static_cast<size_t>(k % 4)]);
    test::expect_device_batch_equals_host(p, points);
  }
}

class Cec2013GpuCli : public CliTest {};

TEST_F(Cec2013GpuCli, MaSwChainsAndDifferentialEvolutionRunOnTheGpu) {
  REQUIRE_GPU();
  for (const char* algorithm : {"ma-sw-chains", "de"}) {
    for (int n : {3, 8, 14}) {
      const std::string out = out_path(std::string(algorithm) + name_of(n) + ".json");
      const Outcome o = chainsaw(std::string("run --algorithm ") + algorithm + " --function " +
                                 name_of(n) + " --dim " + std::to_string(official_dim(n)) +
                                 " --evals 6000 --backend cuda -q --instance '" + kOfficial +
                                 "' --output '" + out + "'");
      ASSERT_EQ(o.exit_code, 0) << o.err;
      const auto result = nlohmann::json::parse(test::read_file(out));
      EXPECT_GT(result.at("best_fitness").get<double>(), 0.0);
      EXPECT_EQ(result.at("distance_to_optimum").is_null(), n == 14) << algorithm << n;
    }
  }
}

// The GPU evaluates the same initial population as the CPU (DE's, drawn alike).
TEST_F(Cec2013GpuCli, TheGpuInitialPopulationIsTheCpus) {
  REQUIRE_GPU();
  expect_gpu_initial_best_is_the_cpus("--function cec2013-f6 --dim 2000");
}
#endif

}  // namespace
}  // namespace chainsaw
