// Janssen et al.'s GPU benchmark (Table 2): the ten functions against an independent
// long-double reference written from the CEC'14/'17 definitions, f = f* at the optimum, values
// of the official C codes on the official data, the GPU against the host, and the data
// directory's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "core/error.hpp"
#include "fitness/host_fitness.hpp"
#include "fitness/janssen/janssen_instance.hpp"
#include "fitness/problem.hpp"
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

const ld kPi = 3.141592653589793238462643383279502884L;

std::string name_of(int n) { return "janssen-f" + std::to_string(n); }

const std::string kData = CHAINSAW_TEST_DATA;
std::string data_dir(int competition) {
  return kData + "/janssen/cec" + std::to_string(competition);
}

// ---------------------------------------------------------------------------------------------
// The reference: the CEC'14/'17 definitions (the technical reports' formulas, their scalings
// of [-100, 100] as the official codes apply them), in long double on explicit vectors.

enum class G { kZakharov, kRosenbrock, kRastrigin, kSchwefel, kBentCigar, kHgbat, kScaffer,
               kKatsuura, kHappyCat, kGrieRosen, kAckley, kGriewank, kElliptic };

ld basic(G g, const std::vector<ld>& v) {  // v = M (x - o), before the function's scaling
  const auto n = v.size();
  const ld nd = static_cast<ld>(n);
  auto scaled = [&](ld rate, ld offset) {
    std::vector<ld> u(n);
    for (size_t i = 0; i < n; ++i) u[i] = v[i] * rate + offset;
    return u;
  };
  ld f = 0;
  switch (g) {
    case G::kZakharov: {
      ld s1 = 0, s2 = 0;
      for (size_t i = 0; i < n; ++i) s1 += v[i] * v[i], s2 += 0.5L * (i + 1) * v[i];
      return s1 + s2 * s2 + s2 * s2 * s2 * s2;
    }
    case G::kRosenbrock: {
      const auto u = scaled(0.02048L, 1);
      for (size_t i = 0; i + 1 < n; ++i)
        f += 100 * (u[i] * u[i] - u[i + 1]) * (u[i] * u[i] - u[i + 1]) + (u[i] - 1) * (u[i] - 1);
      return f;
    }
    case G::kRastrigin:
      for (ld u : scaled(0.0512L, 0)) f += u * u - 10 * std::cos(2 * kPi * u) + 10;
      return f;
    case G::kSchwefel:
      for (ld u : scaled(10, 420.9687462275036L)) {
        if (u > 500) {
          const ld r = 500 - std::fmod(u, 500.0L);
          f += -r * std::sin(std::sqrt(r)) + (u - 500) * (u - 500) / 1.0e4L / nd;
        } else if (u < -500) {
          const ld r = std::fmod(std::fabs(u), 500.0L);
          f += -(r - 500) * std::sin(std::sqrt(500 - r)) + (u + 500) * (u + 500) / 1.0e4L / nd;
        } else {
          f += -u * std::sin(std::sqrt(std::fabs(u)));
        }
      }
      return f + 418.9828872724338L * nd;
    case G::kBentCigar:
      for (size_t i = 1; i < n; ++i) f += v[i] * v[i];
      return v[0] * v[0] + 1.0e6L * f;
    case G::kHgbat:
    case G::kHappyCat: {
      ld r2 = 0, s = 0;
      for (ld u : scaled(0.05L, -1)) r2 += u * u, s += u;
      const ld head = g == G::kHgbat ? std::pow(std::fabs(r2 * r2 - s * s), 0.5L)
                                     : std::pow(std::fabs(r2 - nd), 0.25L);
      return head + (0.5L * r2 + s) / nd + 0.5L;
    }
    case G::kScaffer:
      for (size_t i = 0; i < n; ++i) {
        const ld a = v[i], b = v[(i + 1) % n], r2 = a * a + b * b;
        const ld s = std::sin(std::sqrt(r2)), d = 1 + 0.001L * r2;
        f += 0.5L + (s * s - 0.5L) / (d * d);
      }
      return f;
    case G::kKatsuura: {
      ld p = 1;
      const auto u = scaled(0.05L, 0);
      for (size_t i = 0; i < n; ++i) {
        ld t = 0;
        for (int k = 1; k <= 32; ++k) {
          const ld y = std::ldexp(u[i], k);
          t += std::fabs(y - std::floor(y + 0.5L)) / std::ldexp(1.0L, k);
        }
        p *= std::pow(1 + (i + 1) * t, 10 / std::pow(nd, 1.2L));
      }
      return 10 / (nd * nd) * (p - 1);
    }
    case G::kGrieRosen: {
      const auto u = scaled(0.05L, 1);
      for (size_t i = 0; i < n; ++i) {
        const ld a = u[i], b = u[(i + 1) % n];
        const ld t = 100 * (a * a - b) * (a * a - b) + (a - 1) * (a - 1);
        f += t * t / 4000 - std::cos(t) + 1;
      }
      return f;
    }
    case G::kAckley: {
      ld sq = 0, c = 0;
      for (ld u : v) sq += u * u, c += std::cos(2 * kPi * u);
      return -20 * std::exp(-0.2L * std::sqrt(sq / nd)) - std::exp(c / nd) + 20 + std::exp(1.0L);
    }
    case G::kGriewank: {
      ld s = 0, p = 1;
      const auto u = scaled(6, 0);
      for (size_t i = 0; i < n; ++i) s += u[i] * u[i], p *= std::cos(u[i] / std::sqrt(ld(i + 1)));
      return s / 4000 - p + 1;
    }
    case G::kElliptic:
      for (size_t i = 0; i < n; ++i) f += std::pow(1.0e6L, ld(i) / ld(n - 1)) * v[i] * v[i];
      return f;
  }
  return 0;
}

// Table 2 as the official codes define it (CEC'14 F18 and F22, CEC'17 F3, F4, F5, F10, F16,
// F22, F24 and F26).
struct Definition {
  char kind;  // 'b'asic, 'h'ybrid, 'c'omposition
  std::vector<G> g;
  std::vector<ld> share, sigma, lambda, bias;
  ld f_star;
};
const std::vector<Definition>& definitions() {
  static const std::vector<Definition> d = {
      {'b', {G::kZakharov}, {}, {}, {}, {}, 300},
      {'b', {G::kRosenbrock}, {}, {}, {}, {}, 400},
      {'b', {G::kRastrigin}, {}, {}, {}, {}, 500},
      {'b', {G::kSchwefel}, {}, {}, {}, {}, 1000},
      {'h', {G::kBentCigar, G::kHgbat, G::kRastrigin}, {0.3L, 0.3L, 0.4L}, {}, {}, {}, 1800},
      {'h', {G::kScaffer, G::kHgbat, G::kRosenbrock, G::kSchwefel}, {0.2L, 0.2L, 0.3L, 0.3L},
       {}, {}, {}, 1600},
      {'h', {G::kKatsuura, G::kHappyCat, G::kGrieRosen, G::kSchwefel, G::kAckley},
       {0.1L, 0.2L, 0.2L, 0.2L, 0.3L}, {}, {}, {}, 2200},
      {'c', {G::kRastrigin, G::kGriewank, G::kSchwefel}, {}, {10, 20, 30}, {1, 10, 1},
       {0, 100, 200}, 2200},
      {'c', {G::kAckley, G::kElliptic, G::kGriewank, G::kRastrigin}, {}, {10, 20, 30, 40},
       {10, 1e-6L, 10, 1}, {0, 100, 200, 300}, 2400},
      {'c', {G::kScaffer, G::kSchwefel, G::kGriewank, G::kRosenbrock, G::kRastrigin}, {},
       {10, 20, 20, 30, 40}, {5e-4L, 1, 10, 1, 10}, {0, 100, 200, 300, 400}, 2600},
  };
  return d;
}

// M_c (x - o_c) of component c of an instance.
std::vector<ld> rotated(const JanssenInstance& inst, int c, const std::vector<double>& x) {
  const auto n = static_cast<size_t>(inst.dim);
  std::vector<ld> z(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      z[i] += static_cast<ld>(inst.rotation[c * n * n + i * n + j]) *
              (static_cast<ld>(x[j]) - static_cast<ld>(inst.o[c * n + j]));
  return z;
}

ld reference(const JanssenInstance& inst, const std::vector<double>& x) {
  const Definition& d = definitions()[static_cast<size_t>(inst.index)];
  const auto n = static_cast<size_t>(inst.dim);
  if (d.kind == 'b') return basic(d.g[0], rotated(inst, 0, x)) + d.f_star;
  if (d.kind == 'h') {
    const std::vector<ld> z = rotated(inst, 0, x);
    std::vector<ld> y(n);
    for (size_t k = 0; k < n; ++k) y[k] = z[static_cast<size_t>(inst.perm[k])];
    ld f = 0;
    size_t begin = 0;
    for (size_t c = 0; c < d.g.size(); ++c) {
      const size_t size = c + 1 < d.g.size()
                              ? static_cast<size_t>(std::ceil(static_cast<double>(d.share[c]) * n))
                              : n - begin;
      f += basic(d.g[c], std::vector<ld>(y.begin() + begin, y.begin() + begin + size));
      begin += size;
    }
    return f + d.f_star;
  }
  std::vector<ld> w, fit;
  for (size_t c = 0; c < d.g.size(); ++c) {
    ld d2 = 0;
    for (size_t j = 0; j < n; ++j) {
      const ld t = static_cast<ld>(x[j]) - static_cast<ld>(inst.o[c * n + j]);
      d2 += t * t;
    }
    fit.push_back(d.lambda[c] * basic(d.g[c], rotated(inst, static_cast<int>(c), x)) + d.bias[c]);
    w.push_back(d2 == 0 ? 1e99L
                        : std::exp(-d2 / (2 * n * d.sigma[c] * d.sigma[c])) / std::sqrt(d2));
  }
  ld w_sum = 0, f = 0;
  for (ld v : w) w_sum += v;
  for (size_t c = 0; c < w.size(); ++c) f += w[c] / w_sum * fit[c];
  return f + d.f_star;
}

double evaluate(const Problem& p, const std::vector<double>& x) {
  const std::vector<real_t> genes(x.begin(), x.end());
  return evaluate_host(p, genes.data());
}

// Points to evaluate: uniform in the domain, and near each component's optimum (where the
// composition weights and the hybrids' parts are far from their extremes).
std::vector<std::vector<double>> test_points(const JanssenInstance& inst, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> domain(-100.0, 100.0);
  std::normal_distribution<double> near(0.0, 2.0);
  const auto n = static_cast<size_t>(inst.dim);
  std::vector<std::vector<double>> points;
  for (int k = 0; k < 4; ++k) {
    std::vector<double> x(n);
    for (double& v : x) v = static_cast<double>(static_cast<real_t>(domain(rng)));
    points.push_back(x);
  }
  const size_t components = inst.o.size() / n;
  for (size_t c = 0; c < components; ++c) {
    std::vector<double> x(n);
    for (size_t j = 0; j < n; ++j)
      x[j] = static_cast<double>(static_cast<real_t>(inst.o[c * n + j] + near(rng)));
    points.push_back(x);
  }
  return points;
}

class JanssenEveryFunction : public ::testing::TestWithParam<std::tuple<int, Dim>> {};

TEST_P(JanssenEveryFunction, MatchesTheLongDoubleReferenceAtRandomPoints) {
  const auto [number, dim] = GetParam();
  const Problem p = Problem::make(name_of(number), dim, 1000 + number);
  ASSERT_TRUE(p.is_janssen());
  for (const auto& x : test_points(*p.janssen, 77 + number)) {
    const double ref = static_cast<double>(reference(*p.janssen, x));
    const double f = evaluate(p, x);
    EXPECT_NEAR(f, ref, 1e-9 * std::fabs(ref) + 1e-7) << name_of(number) << " D=" << dim;
    EXPECT_GT(f, p.optimum_value) << "only the optimum reaches f*";
  }
}

TEST_P(JanssenEveryFunction, ReachesFStarAtTheOptimum) {
  const auto [number, dim] = GetParam();
  const Problem p = Problem::make(name_of(number), dim, 31 + number);
  // The optimum is the first component's o, generated in the genes' precision: reachable.
  const std::vector<double> o(p.janssen->o.begin(), p.janssen->o.begin() + dim);
  EXPECT_EQ(std::vector<double>(p.janssen->optimum.begin(), p.janssen->optimum.end()), o);
  EXPECT_EQ(p.shift.stored, p.janssen->optimum.data());
  // f* = 100 N of the originating CEC function.
  EXPECT_EQ(p.optimum_value, definitions()[number - 1].f_star);
  EXPECT_NEAR(evaluate(p, o), p.optimum_value, 1e-8) << name_of(number);
  // And nowhere near it is lower.
  std::vector<double> x = o;
  x[dim / 2] += 1e-3;
  EXPECT_GT(evaluate(p, x), p.optimum_value) << name_of(number);
}

INSTANTIATE_TEST_SUITE_P(TenFunctionsFourDimensions, JanssenEveryFunction,
                         ::testing::Combine(::testing::Range(1, 11),
                                            ::testing::Values<Dim>(10, 30, 50, 100)),
                         [](const auto& info) {
                           return "F" + std::to_string(std::get<0>(info.param)) + "_D" +
                                  std::to_string(std::get<1>(info.param));
                         });

// ---------------------------------------------------------------------------------------------
// The official codes on the official data. Expected values: cec17_test_func.cpp and
// cec14_test_func.cpp (the CEC'14 code's fscanf("%Lf") into doubles changed to "%lf" so that it
// reads its data on Linux), compiled with g++ -O0 outside this repository, called on the full
// official input_data at x_j = ((37 j + 11 k) mod 181) - 90 + k/4, j = 0..9, for k = 0, 1, 2.

struct OfficialValue {
  int number;  // janssen-fN
  double f[3];
};
const OfficialValue kOfficialD10[] = {
    {1, {338124293057.19788, 183603688230.1861, 89285143056.456848}},
    {2, {16188.872081856573, 11705.847768557358, 9043.2286521333663}},
    {3, {901.34926204312046, 856.50771893294132, 856.99939474803057}},
    {4, {5929.7130832103567, 4269.2916170777726, 5311.6945791010749}},
    {5, {2825392245.3914294, 2231754482.4639087, 2332832099.8678741}},
    {6, {17447.861888243704, 16969.485844979688, 18369.008862641778}},
    {7, {35080950.293621644, 22708453.530253619, 14306235.77285981}},
    {8, {3713.3104457754653, 3668.5080107064796, 3930.103743779875}},
    {9, {4574.3140131843666, 4035.6444844151811, 3702.609545603731}},
    {10, {8983.5971192279831, 9610.4034114094156, 10253.544666415322}},
};

std::vector<double> official_point(int k, Dim dim) {
  std::vector<double> x(static_cast<size_t>(dim));
  for (Dim j = 0; j < dim; ++j)
    x[j] = static_cast<double>((j * 37 + k * 11) % 181) - 90.0 + 0.25 * k;
  return x;  // quarters: exact in float genes too
}

TEST(JanssenOfficialData, ValuesEqualTheOfficialCodesOnTheirData) {
  for (const OfficialValue& v : kOfficialD10) {
    const int competition = (v.number == 5 || v.number == 7) ? 2014 : 2017;
    const Problem p = make_problem(name_of(v.number), 10, 1, data_dir(competition));
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(evaluate(p, official_point(k, 10)), v.f[k], 1e-10 * v.f[k])
          << name_of(v.number) << " point " << k;
  }
}

TEST(JanssenOfficialData, TheOptimumIsTheFirstShiftAndGivesFStar) {
  const Problem p = make_problem("janssen-f8", 10, 1, data_dir(2017));
  // The first value of the first line of shift_data_22.txt.
  EXPECT_EQ(p.janssen->o[0], -1.4386804758751207e+01);
  EXPECT_EQ(p.janssen->o.size(), 30u);             // three components of D = 10
  EXPECT_EQ(p.janssen->rotation.size(), 300u);     // three 10 x 10 matrices
  const std::vector<double> o(p.janssen->o.begin(), p.janssen->o.begin() + 10);
  if (std::vector<double>(p.janssen->optimum.begin(), p.janssen->optimum.end()) == o) {
    EXPECT_EQ(evaluate(p, o), 2200.0);  // f64 genes: x = o exactly
  }
}

TEST(JanssenOfficialData, TheShuffleIsReadOneBased) {
  const Problem p = make_problem("janssen-f6", 10, 1, data_dir(2017));
  // shuffle_data_16_D10.txt: 7 5 8 3 1 10 4 6 2 9
  EXPECT_EQ(p.janssen->perm, (std::vector<std::int32_t>{6, 4, 7, 2, 0, 9, 3, 5, 1, 8}));
}

// The full official data at D = 30 and 100 (JANSSEN_CEC17_DATA, JANSSEN_CEC14_DATA: the
// input_data directories), values from the official codes as above.
struct OfficialValueAt {
  int number;
  Dim dim;
  double f[3];
};
TEST(JanssenOfficialData, ValuesAtD30AndD100WithTheFullOfficialData) {
  const char* cec17 = std::getenv("JANSSEN_CEC17_DATA");
  const char* cec14 = std::getenv("JANSSEN_CEC14_DATA");
  if (cec17 == nullptr || cec14 == nullptr)
    GTEST_SKIP() << "JANSSEN_CEC17_DATA / JANSSEN_CEC14_DATA not set";
  const OfficialValueAt values[] = {
      {1, 30, {24919179065898.891, 257397211085515.41, 546006880858.21008}},
      {4, 30, {14037.991957194959, 11984.184234731445, 13599.457724883892}},
      {5, 30, {30564845775.381638, 28877552539.455288, 29185023036.826736}},
      {6, 30, {50508.2773382819, 53671.918909465174, 22921.159812237442}},
      {7, 30, {6120549.9734501345, 6608766.7773648128, 2972646.6551867672}},
      {8, 30, {12220.450538011282, 13507.27504876384, 12034.719340153844}},
      {9, 30, {7870.8005174790005, 8008.0022012034569, 6471.5537336642628}},
      {10, 30, {21797.857746397647, 22520.313760821657, 23904.179866586164}},
      {1, 100, {11332989028664326.0, 9459934846749346.0, 112483682608712.08}},
      {2, 100, {594582.09101985802, 586506.45044405269, 462770.57477435144}},
      {3, 100, {3489.1772999041486, 3404.3393355268199, 3379.5068608554238}},
      {4, 100, {40359.733743894576, 38238.921670023461, 41027.355347734112}},
      {5, 100, {162987797156.569, 188051121572.74344, 185545836975.05896}},
      {6, 100, {126014.3914574463, 171973.81522919558, 109193.34707929318}},
      {7, 100, {101507387.04822479, 129579069.3500331, 119374504.40314974}},
      {8, 100, {43214.710608065303, 45069.791097698821, 47778.541292541231}},
      {9, 100, {27136.010349136486, 23067.591633847544, 17699.578461787056}},
      {10, 100, {161455.23453796332, 187942.2357889018, 209273.60558292107}},
  };
  for (const OfficialValueAt& v : values) {
    const bool from14 = v.number == 5 || v.number == 7;
    const Problem p = make_problem(name_of(v.number), v.dim, 1, from14 ? cec14 : cec17);
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(evaluate(p, official_point(k, v.dim)), v.f[k], 1e-10 * v.f[k])
          << name_of(v.number) << " D=" << v.dim << " point " << k;
  }
}

// ---------------------------------------------------------------------------------------------
// Generated data, names, dimensions.

TEST(JanssenInstances, TheSameSeedGivesTheSameDataAndAnotherSeedOther) {
  for (int n = 1; n <= 10; ++n) {
    const Problem a = Problem::make(name_of(n), 30, 5), b = Problem::make(name_of(n), 30, 5),
                  c = Problem::make(name_of(n), 30, 6);
    EXPECT_EQ(a.janssen->o, b.janssen->o);
    EXPECT_EQ(a.janssen->rotation, b.janssen->rotation);
    EXPECT_EQ(a.janssen->perm, b.janssen->perm);
    EXPECT_NE(a.janssen->o, c.janssen->o);
    EXPECT_NE(a.janssen->rotation, c.janssen->rotation);
  }
}

TEST(JanssenInstances, GeneratedShiftsLieInPlusMinus80AndRotationsAreOrthogonal) {
  const Problem p = Problem::make("janssen-f10", 50, 9);
  for (double v : p.janssen->o) {
    EXPECT_GE(v, -80.0);
    EXPECT_LE(v, 80.0);
  }
  const std::size_t m = 50 * 50;
  for (std::size_t c = 0; c < 5; ++c) {
    const std::vector<double> one(p.janssen->rotation.begin() + c * m,
                                  p.janssen->rotation.begin() + (c + 1) * m);
    EXPECT_LT(orthogonality_error(one, 50), 1e-12);
  }
  // Components have different optima and rotations.
  EXPECT_NE(std::vector<double>(p.janssen->o.begin(), p.janssen->o.begin() + 50),
            std::vector<double>(p.janssen->o.begin() + 50, p.janssen->o.begin() + 100));
}

TEST(JanssenInstances, HybridsHaveAPermutationOthersNone) {
  for (int n = 1; n <= 10; ++n) {
    const Problem p = Problem::make(name_of(n), 20, 3);
    const bool hybrid = n >= 5 && n <= 7;
    ASSERT_EQ(p.janssen->perm.size(), hybrid ? 20u : 0u) << name_of(n);
    // One o and one M unless a composition, which has one per component.
    const std::size_t optima = n >= 8 ? static_cast<std::size_t>(n - 5) : 1;
    EXPECT_EQ(p.janssen->o.size(), optima * 20) << name_of(n);
    EXPECT_EQ(p.janssen->rotation.size(), optima * 400) << name_of(n);
    std::vector<std::int32_t> sorted = p.janssen->perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], static_cast<int>(k));
  }
}

TEST(JanssenInstances, DescriptiveNamesAndJanssenAliasesAreOneFunction) {
  EXPECT_EQ(function_info("janssen-f1").id, FunctionId::kJanssenF1);
  EXPECT_EQ(function_info("cec17-zakharov").id, FunctionId::kJanssenF1);
  EXPECT_EQ(function_info("cec14-hybrid6").id, FunctionId::kJanssenF7);
  EXPECT_EQ(function_info("janssen-f10").id, FunctionId::kJanssenF10);
  EXPECT_EQ(function_info(FunctionId::kJanssenF5).alias, std::string("janssen-f5"));
  EXPECT_EQ(function_optimum_value("janssen-f9"), 2400.0);
  const Problem a = Problem::make("janssen-f3", 10, 4), b = Problem::make("cec17-rastrigin", 10, 4);
  EXPECT_EQ(a.janssen->o, b.janssen->o);
}

TEST(JanssenInstances, DimensionsOutsideTwoToHundredOrThatEmptyAHybridPartAreRefused) {
  EXPECT_THROW(Problem::make("janssen-f1", 101, 1), UserError);
  EXPECT_THROW(Problem::make("janssen-f1", 1, 1), UserError);
  EXPECT_NO_THROW(Problem::make("janssen-f1", 2, 1));
  try {
    Problem::make("janssen-f7", 11, 1);  // ceil(1.1) + 3 ceil(2.2) = 11: nothing left
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("part 5 empty"), std::string::npos) << e.what();
  }
}

TEST(JanssenInstances, TheHostBatchEvaluatesRowsAsOneAtATime) {
  const Problem p = Problem::make("janssen-f9", 30, 2);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  const int rows = 7;
  const Dim pitch = 33;  // rows apart by more than D, as the engines' batches may be
  std::vector<real_t> genes(static_cast<size_t>(rows * pitch));
  for (auto& g : genes) g = static_cast<real_t>(u(rng));
  std::vector<double> out(rows);
  p.external->host(genes.data(), pitch, rows, 30, out.data());
  for (int r = 0; r < rows; ++r) EXPECT_EQ(out[r], evaluate_host(p, genes.data() + r * pitch));
}

// ---------------------------------------------------------------------------------------------
// The GPU: the same values as the host, row by row.

#if defined(CHAINSAW_CUDA)
TEST(JanssenGpu, DeviceValuesEqualTheHostsToRoundOff) {
  REQUIRE_GPU();
  for (int n = 1; n <= 10; ++n) {
    for (Dim dim : {10, 30, 50, 100}) {
      const Problem p = Problem::make(name_of(n), dim, 40 + n);
      test::expect_device_batch_equals_host(p, test_points(*p.janssen, 5 + n));
    }
  }
}
#endif

// ---------------------------------------------------------------------------------------------
// The command line: runs, the listing, and the data directory's errors.

class JanssenCli : public CliTest {
 protected:
  // A copy of the committed CEC'17 data to break.
  std::string broken_copy() {
    const fs::path copy = dir_ / "input_data";
    fs::copy(data_dir(2017), copy);
    return copy.string();
  }
  void write(const std::string& dir, const std::string& name, const std::string& text) {
    std::ofstream(fs::path(dir) / name) << text;
  }
  Outcome run_on(const std::string& function, const std::string& dir, int dim = 10) {
    return chainsaw("run --function " + function + " --dim " + std::to_string(dim) +
                    " --evals 500 --backend cpu -q --instance '" + dir + "'");
  }
};

TEST_F(JanssenCli, FunctionsListsTheTenWithTheirAliases) {
  const Outcome o = chainsaw("functions");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (int n = 1; n <= 10; ++n)
    EXPECT_NE(o.out.find("(" + name_of(n) + ")"), std::string::npos) << name_of(n);
  EXPECT_NE(o.out.find("cec17-composition6 (janssen-f10)"), std::string::npos);
}

TEST_F(JanssenCli, RunsOnGeneratedAndOfficialDataAndReportsTheDistanceToTheOptimum) {
  for (const std::string& instance : {std::string(), data_dir(2017)}) {
    const std::string out = out_path();
    const Outcome o = chainsaw("run --function janssen-f8 --dim 10 --evals 3000 --backend cpu -q "
                               "--output '" + out + "'" +
                               (instance.empty() ? "" : " --instance '" + instance + "'"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto result = nlohmann::json::parse(test::read_file(out));
    EXPECT_GE(result.at("best_fitness").get<double>(), 2200.0);
    EXPECT_TRUE(std::isfinite(result.at("distance_to_optimum").get<double>()));
  }
}

TEST_F(JanssenCli, DifferentialEvolutionRunsOnTheCpu) {
  const Outcome o = chainsaw("run --algorithm de --function janssen-f6 --dim 10 --evals 2000 "
                             "--backend cpu -q --output '" + out_path() + "'");
  EXPECT_EQ(o.exit_code, 0) << o.err;
}

TEST_F(JanssenCli, TheSameSeedGivesTheSameRunForAnyThreadCount) {
  expect_runs_independent_of_threads("--function janssen-f7 --dim 30 --evals 3000");
}

#if defined(CHAINSAW_CUDA)
TEST_F(JanssenCli, MaSwChainsRunsOnTheGpuAndReportsTheDistanceToTheOptimum) {
  REQUIRE_GPU();
  for (const char* function : {"janssen-f5", "janssen-f10"}) {
    const std::string out = out_path(std::string(function) + ".json");
    const Outcome o = chainsaw(std::string("run --function ") + function +
                               " --dim 50 --evals 20000 --backend cuda -q --output '" + out + "'");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto result = nlohmann::json::parse(test::read_file(out));
    EXPECT_GE(result.at("best_fitness").get<double>(), function_optimum_value(function));
    EXPECT_TRUE(std::isfinite(result.at("distance_to_optimum").get<double>()));
  }
}

TEST_F(JanssenCli, DifferentialEvolutionAndPsoRunOnTheGpuPopulationPath) {
  REQUIRE_GPU();
  for (const char* algorithm : {"de", "jde", "pso"}) {
    const std::string out = out_path(std::string(algorithm) + ".json");
    const Outcome o = chainsaw(std::string("run --algorithm ") + algorithm +
                               " --function janssen-f9 --dim 30 --evals 20000 --backend cuda -q "
                               "--output '" + out + "'");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto result = nlohmann::json::parse(test::read_file(out));
    EXPECT_GE(result.at("best_fitness").get<double>(), 2400.0) << algorithm;
    EXPECT_TRUE(std::isfinite(result.at("distance_to_optimum").get<double>())) << algorithm;
  }
}

// The GPU draws the CPU run's random numbers and evaluates with the same code: the initial
// population (one evaluation per individual, no selection yet) has the same best to round-off.
TEST_F(JanssenCli, TheGpuInitialPopulationIsTheCpus) {
  REQUIRE_GPU();
  expect_gpu_initial_best_is_the_cpus("--function janssen-f10 --dim 50");
}

// Scatter Search on the GPU evaluates Janssen's functions with their batch kernel: the run
// ends at its budget above f*.
TEST_F(JanssenCli, ScatterSearchRunsOnTheGpu) {
  REQUIRE_GPU();
  const std::string out = (dir_ / "ss.json").string();
  const Outcome o = chainsaw("run --algorithm ss --function janssen-f1 --dim 10 --evals 2000 -q "
                          "--backend cuda --output '" + out + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto result = nlohmann::json::parse(test::read_file(out));
  EXPECT_EQ(result.at("evaluations").at("total").get<std::int64_t>(), 2000);
  EXPECT_GT(result.at("best_fitness").get<double>(), function_optimum_value("janssen-f1"));
}
#endif

TEST_F(JanssenCli, AMissingFileIsOneLine) {
  const std::string dir = broken_copy();
  fs::remove(fs::path(dir) / "M_22_D10.txt");
  test::expect_one_line_error(run_on("janssen-f8", dir), "cannot read M_22_D10.txt");
}

TEST_F(JanssenCli, ADirectoryOfOtherDimensionsIsOneLine) {
  test::expect_one_line_error(run_on("janssen-f3", data_dir(2017), 30), "cannot read M_5_D30.txt");
}

TEST_F(JanssenCli, TooFewValuesAreOneLine) {
  const std::string dir = broken_copy();
  write(dir, "shift_data_3.txt", "1 2 3\n");
  test::expect_one_line_error(run_on("janssen-f1", dir),
                              "shift_data_3.txt: has 3 values, D = 10 needs 10");
  write(dir, "shift_data_24.txt", "1 2 3 4 5 6 7 8 9 10\n1 2 3 4 5 6 7 8 9 10\n");
  test::expect_one_line_error(run_on("janssen-f9", dir), "shift_data_24.txt: has 2 lines");
  write(dir, "M_4_D10.txt", "1 0 0\n");
  test::expect_one_line_error(run_on("janssen-f2", dir), "M_4_D10.txt: has 3 values");
}

TEST_F(JanssenCli, ATokenThatIsNoNumberIsOneLine) {
  const std::string dir = broken_copy();
  write(dir, "shift_data_5.txt", "1 2 3 4 x5 6 7 8 9 10\n");
  test::expect_one_line_error(run_on("janssen-f3", dir), "line 1: 'x5' is not a finite number");
}

TEST_F(JanssenCli, AShiftOutsideTheDomainIsOneLine) {
  const std::string dir = broken_copy();
  write(dir, "shift_data_10.txt", "1 2 3 4 5 6 7 8 9 100.5\n");
  test::expect_one_line_error(run_on("janssen-f4", dir),
                              "shift value 10 = 100.500000 is outside [-100, 100]");
}

TEST_F(JanssenCli, AShuffleThatIsNoPermutationIsOneLine) {
  const std::string dir = broken_copy();
  write(dir, "shuffle_data_16_D10.txt", "7 5 8 3 1 10 4 6 2 7\n");
  test::expect_one_line_error(run_on("janssen-f6", dir), "is not a permutation of 1..10: value 10");
  write(dir, "shuffle_data_16_D10.txt", "0 1 2 3 4 5 6 7 8 9\n");
  test::expect_one_line_error(run_on("janssen-f6", dir), "value 1 = 0");
}

TEST_F(JanssenCli, AFileInsteadOfADirectoryIsOneLine) {
  test::expect_one_line_error(run_on("janssen-f1", data_dir(2017) + "/shift_data_3.txt"),
                              "reads the official CEC'14/'17 input_data directory");
}

TEST_F(JanssenCli, ADimensionAboveHundredIsOneLine) {
  test::expect_one_line_error(
      chainsaw("run --function janssen-f2 --dim 200 --evals 500 --backend cpu"),
      "cec17-rosenbrock (janssen-f2) is defined for 2 <= D <= 100");
}

}  // namespace
}  // namespace chainsaw
