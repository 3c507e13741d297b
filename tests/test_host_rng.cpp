// The CPU backend's block random numbers and vectorised per-gene passes (core/host_rng.hpp,
// core/engines/host/host_passes.hpp): their math against float64/long-double scalar references
// at random points, the distributions' moments, and the passes' genes and fitness against a
// scalar re-computation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "core/algorithms/population_ops.hpp"
#include "core/config.hpp"
#include "core/engines/host/host_engine.hpp"
#include "core/engines/host/host_passes.hpp"
#include "core/error.hpp"
#include "core/host_rng.hpp"
#include "fitness/host_fitness.hpp"
#include "localsearch/solis_wets.hpp"
#include "ssga/blx_alpha.hpp"
#include "test_support.hpp"

namespace chainsaw::test {
namespace {

TEST(HostRng, CosTwoPiIsWithin4e16OfLongDoubleCosAtRandomPoints) {
  double worst = 0.0;
  for (const double z : cos_two_pi_test_points())
    worst = std::max(worst, static_cast<double>(std::fabs(detail::cos_two_pi(z) -
                                                           cos_two_pi_reference(z))));
  EXPECT_LT(worst, 4e-16);
  EXPECT_EQ(detail::cos_two_pi(0.0), 1.0);
  EXPECT_EQ(detail::cos_two_pi(0.5), -1.0);
  EXPECT_EQ(detail::cos_two_pi(-3.0), 1.0);
}

// Relative, also next to the integers: there the term is ~198 z^2 and its float64 cosine form
// was off by ~1e-15, twice the term itself at |z| = 2e-9.
TEST(HostRng, RastriginTermIsWithin2e13OfLongDoubleRelative) {
  const std::vector<double> z = rastrigin_term_test_points();
  std::vector<double> terms(z.size());
  for (std::size_t n = 0; n < z.size(); ++n) terms[n] = detail::rastrigin_term(z[n]);
  EXPECT_LT(rastrigin_term_worst_relative_error(z, terms), 2e-13);
  EXPECT_EQ(detail::rastrigin_term(0.0), 0.0);
  EXPECT_EQ(detail::rastrigin_term(-3.0), 9.0);
  EXPECT_NEAR(detail::rastrigin_term(0.5), 20.25, 20.25 * 2e-13);
  EXPECT_NEAR(detail::rastrigin_term(1e-9), (1.0 + 20.0 * 9.869604401089358) * 1e-18, 1e-28);
}

// Griewank's arguments z / sqrt(i) (|z| <= 1200), points next to the multiples of pi/2 (where
// the reduction's k changes and cos crosses 0), and the far end of the stated range.
TEST(HostRng, CosPolynomialIsWithin6e16OfLongDoubleCosAtRandomPoints) {
  std::mt19937_64 gen(13);
  std::uniform_real_distribution<double> domain(-1300.0, 1300.0), index(1.0, 1.0e6),
      nudge(-1.0e-9, 1.0e-9), far(-0x1p21 * 3.14, 0x1p21 * 3.14);
  std::uniform_int_distribution<int> quarter(-1700, 1700);
  const long double half_pi = 1.570796326794896619231321691639751442L;
  double worst = 0.0;
  for (int n = 0; n < 400000; ++n) {
    double x = 0.0;
    switch (n % 4) {
      case 0: x = domain(gen); break;
      case 1: x = domain(gen) / std::sqrt(std::floor(index(gen))); break;
      case 2: x = static_cast<double>(quarter(gen) * half_pi) + nudge(gen); break;
      default: x = far(gen);
    }
    const long double exact = std::cos(static_cast<long double>(x));
    worst = std::max(worst, static_cast<double>(std::fabs(detail::cos_polynomial(x) - exact)));
  }
  EXPECT_LT(worst, 6e-16);
  EXPECT_EQ(detail::cos_polynomial(0.0), 1.0);
  EXPECT_EQ(detail::cos_polynomial(-0.0), 1.0);
}

TEST(HostRng, InvSqrtNewtonIsWithin4e16RelativeOfLongDouble) {
  std::mt19937_64 gen(14);
  std::uniform_real_distribution<double> exponent(0.0, 31.0);
  double worst = 0.0;
  for (int n = 0; n < 400000; ++n) {
    // Every index up to 2 * 10^5, then indices spread over [1, 2^31].
    const double i = n < 200000 ? n + 1.0 : std::floor(std::pow(2.0, exponent(gen)));
    const long double exact = 1.0L / std::sqrt(static_cast<long double>(i));
    worst = std::max(worst,
                     static_cast<double>(std::fabs(detail::inv_sqrt_newton(i) - exact) / exact));
  }
  EXPECT_LT(worst, 4e-16);
  EXPECT_EQ(detail::inv_sqrt_newton(1.0), 1.0);
  EXPECT_EQ(detail::inv_sqrt_newton(4.0), 0.5);
}

TEST(HostRng, LogPolynomialIsWithinAFewUlpOfLogAtRandomPoints) {
  std::mt19937_64 gen(12);
  std::uniform_real_distribution<double> unit(0.0, 1.0), exponent(-300.0, 300.0);
  for (int n = 0; n < 200000; ++n) {
    const double u = n % 2 ? std::max(unit(gen), 0x1p-40) : std::pow(2.0, exponent(gen));
    const long double exact = std::log(static_cast<long double>(u));
    const double err = static_cast<double>(std::fabs(log_polynomial(u) - exact));
    ASSERT_LE(err, 4.0 * 0x1p-52 * std::fabs(static_cast<double>(exact)) + 0x1p-60) << u;
  }
  EXPECT_EQ(log_polynomial(1.0), 0.0);
}

// sep-CMA-ES's single-precision Box-Muller (population_ops.hpp): its log and its cos and sin
// against long double at every input class they take, and the normals' first moments.
TEST(HostRng, PortableLogAndCosSinAreWithinAFewFloatUlp) {
  for (std::uint32_t i = 0; i < (1u << 24); i += 97) {
    const float u = (static_cast<float>(i) + 0.5f) * 0x1.0p-24f;
    const long double exact = std::log(static_cast<long double>(u));
    ASSERT_LE(std::fabs(portable_log(u) - exact), 4.0 * 0x1p-23 * std::fabs(exact) + 0x1p-30) << u;
  }
  for (std::uint32_t k = 0; k < (1u << 24); k += 89) {
    const long double angle = 2.0L * 3.14159265358979323846264338327950288L * k / (1u << 24);
    const CosSin a = portable_cos_sin(k);
    ASSERT_LE(std::fabs(a.cos - std::cos(angle)), 3.0 * 0x1p-24) << k;
    ASSERT_LE(std::fabs(a.sin - std::sin(angle)), 3.0 * 0x1p-24) << k;
  }
  EXPECT_EQ(portable_cos_sin(0).cos, 1.0f);
  EXPECT_EQ(portable_cos_sin(0).sin, 0.0f);
}

TEST(HostRng, NormalPairsHaveTheMomentsOfAStandardNormal) {
  const std::uint64_t key = derive_key(3, 202, 1, 2);
  double sum = 0.0, squares = 0.0, fourth = 0.0, product = 0.0;
  constexpr int kPairs = 500000;
  for (int p = 0; p < kPairs; ++p) {
    const NormalPair z = normal_pair_at(key, static_cast<std::uint64_t>(p));
    for (const double v : {static_cast<double>(z.first), static_cast<double>(z.second)}) {
      sum += v;
      squares += v * v;
      fourth += v * v * v * v;
    }
    product += static_cast<double>(z.first) * z.second;
  }
  const double n = 2.0 * kPairs;
  EXPECT_NEAR(sum / n, 0.0, 0.005);
  EXPECT_NEAR(squares / n, 1.0, 0.005);
  EXPECT_NEAR(fourth / n, 3.0, 0.05);
  EXPECT_NEAR(product / kPairs, 0.0, 0.007);  // the pair's two normals are uncorrelated
}

TEST(HostRng, UniformBlockHoldsEachDrawsTwoHalves) {
  const std::uint64_t key = derive_key(5, 6);
  double u[kUniformBlock];
  uniform_block(key, 3, u);
  for (int t = 0; t < kUniformBlock / 2; ++t) {
    CounterRng rng(key);
    std::uint64_t draw = 0;
    for (int k = 0; k <= 3 * kUniformBlock / 2 + t; ++k) draw = rng.next_u64();
    EXPECT_EQ(u[t], static_cast<double>(draw >> 32) * 0x1p-32);
    EXPECT_EQ(u[kUniformBlock / 2 + t], static_cast<double>(draw & 0xffffffffu) * 0x1p-32);
  }
}

// Moments of n samples against their sampling distributions, at 5 sigma.
struct Moments {
  double mean = 0, variance = 0, third = 0, fourth = 0;
};
Moments moments_of(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) {
    const double d = x - m.mean;
    m.variance += d * d;
    m.third += d * d * d;
    m.fourth += d * d * d * d;
  }
  const auto n = static_cast<double>(v.size());
  m.variance /= n;
  m.third /= n;
  m.fourth /= n;
  return m;
}

TEST(HostRng, UniformBlocksHaveTheMomentsOfU01) {
  const std::uint64_t key = derive_key(7, 8);
  const int blocks = 1 << 16;
  std::vector<double> v(static_cast<size_t>(blocks) * kUniformBlock);
  for (int b = 0; b < blocks; ++b) uniform_block(key, static_cast<std::uint64_t>(b), &v[b * kUniformBlock]);
  const double n = static_cast<double>(v.size());
  const Moments m = moments_of(v);
  EXPECT_NEAR(m.mean, 0.5, 5.0 * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(m.variance, 1.0 / 12.0, 5.0 * std::sqrt((1.0 / 80.0 - 1.0 / 144.0) / n));
  for (double x : v) ASSERT_TRUE(x >= 0.0 && x < 1.0);
}

TEST(HostRng, NormalBlocksHaveTheMomentsOfAStandardNormal) {
  const std::uint64_t key = derive_key(9, 10);
  const int blocks = 1 << 16;
  std::vector<double> v(static_cast<size_t>(blocks) * kNormalBlock);
  for (int b = 0; b < blocks; ++b) normal_block(key, static_cast<std::uint64_t>(b), &v[b * kNormalBlock]);
  const double n = static_cast<double>(v.size());
  const Moments m = moments_of(v);
  // Standard errors of the sample mean, variance, third and fourth central moments.
  EXPECT_NEAR(m.mean, 0.0, 5.0 * std::sqrt(1.0 / n));
  EXPECT_NEAR(m.variance, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m.third, 0.0, 5.0 * std::sqrt(15.0 / n));
  EXPECT_NEAR(m.fourth, 3.0, 5.0 * std::sqrt(96.0 / n));
  // Each half of a block (cosine and sine deviates) on its own, and their correlation.
  std::vector<double> cosines, sines;
  double cross = 0.0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < kNormalBlock / 2; ++t) {
      cosines.push_back(v[b * kNormalBlock + t]);
      sines.push_back(v[b * kNormalBlock + kNormalBlock / 2 + t]);
      cross += cosines.back() * sines.back();
    }
  const double half = n / 2.0;
  EXPECT_NEAR(moments_of(cosines).variance, 1.0, 5.0 * std::sqrt(2.0 / half));
  EXPECT_NEAR(moments_of(sines).variance, 1.0, 5.0 * std::sqrt(2.0 / half));
  EXPECT_NEAR(cross / half, 0.0, 5.0 * std::sqrt(1.0 / half));
  // The tail: P(|N| > 1.96) = 0.05.
  double beyond = 0.0;
  for (double x : v) beyond += std::fabs(x) > 1.959963984540054 ? 1.0 : 0.0;
  EXPECT_NEAR(beyond / n, 0.05, 5.0 * std::sqrt(0.05 * 0.95 / n));
}

TEST(HostRng, NormalBlockIsBoxMullerOfItsDrawsInFloat64) {
  const std::uint64_t key = derive_key(13, 14);
  double out[kNormalBlock];
  for (std::uint64_t block : {0u, 1u, 977u}) {
    normal_block(key, block, out);
    for (int t = 0; t < kNormalBlock / 2; ++t) {
      const std::uint64_t draw = block_draw(key, block * (kNormalBlock / 2) + t);
      const double u1 = (static_cast<double>(draw >> 32) + 1.0) * 0x1p-32;
      const double u2 = static_cast<double>(draw & 0xffffffffu) * 0x1p-32;
      const double radius = std::sqrt(-2.0 * std::log(u1));
      const double angle = 6.283185307179586476925 * u2;
      EXPECT_NEAR(out[t], radius * std::cos(angle), 1e-14);
      EXPECT_NEAR(out[kNormalBlock / 2 + t], radius * std::sin(angle), 1e-14);
    }
  }
}

Problem problem_named(const char* function, Dim dim) {
  Config c;
  c.function = function;
  c.dim = dim;
  c.seed = 21;
  return problem_of(c);
}

// A chunk of 1000 genes (not a multiple of the blocks or lanes) starting at gene 4096.
constexpr Dim kBegin = 4096, kGenes = 1000;

std::vector<real_t> random_genes(const Problem& p, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(p.lower, p.upper);
  std::vector<real_t> x(static_cast<size_t>(kGenes));
  for (real_t& g : x) g = static_cast<real_t>(u(gen));
  return x;
}

// The chunk's partial finished as if it were the whole vector, against the long-double
// reference of the same genes placed at [kBegin, kBegin + kGenes) of a vector that is o
// elsewhere (z = 0 there, so only these genes count).
template <class Fn>
void expect_chunk_matches_reference(const Problem& p, const std::vector<real_t>& x,
                                    const ChunkPartial& partial) {
  std::vector<real_t> whole = optimum_point(p);
  for (Dim l = 0; l < kGenes; ++l) whole[static_cast<size_t>(kBegin + l)] = x[static_cast<size_t>(l)];
  // The rest of the vector at o adds exact zeros (Rastrigin, Sum Squares) to the reference.
  const double f = Fn::finish(partial.as<typename Fn::Partial>(), p.dim) + Fn::kBias;
  const double reference = reference_fitness(p, whole.data());
  EXPECT_NEAR(f, reference, 1e-9 * std::fabs(reference)) << function_info(p.function).name;
}

TEST(HostPasses, CrossoverChunkIsBlxOfItsUniformsAndItsFitnessMatchesTheReference) {
  for (const char* function : {"rastrigin", "sumsquares"}) {
    const Problem p = problem_named(function, 3 * kHostChunk);
    const std::vector<real_t> a = random_genes(p, 1), b = random_genes(p, 2);
    std::vector<real_t> child(static_cast<size_t>(kGenes));
    const std::uint64_t key = derive_key(31, 32);
    const Dim mutated = 417;
    const double step = 0.25;
    std::vector<real_t> o(static_cast<size_t>(kGenes));
    for (Dim l = 0; l < kGenes; ++l) o[static_cast<size_t>(l)] = p.shift(kBegin + l);
    const ChunkPartial partial = crossover_chunk(p, ChunkSpan{kBegin, kBegin + kGenes, o.data()},
                                                 key, a.data(), b.data(), 0.5, mutated, step,
                                                 child.data());
    double u[kUniformBlock];
    for (Dim l = 0; l < kGenes; ++l) {
      if (l % kUniformBlock == 0) uniform_block(key, static_cast<std::uint64_t>(l / kUniformBlock), u);
      real_t expected = blx_alpha_gene(a[l], b[l], 0.5, p.lower, p.upper, u[l % kUniformBlock]);
      if (l == mutated) expected = bga_mutate_gene(expected, step, p.lower, p.upper);
      ASSERT_EQ(child[static_cast<size_t>(l)], expected) << l;
    }
    // The hashed o gives the same bits as the host copy.
    std::vector<real_t> again(static_cast<size_t>(kGenes));
    const ChunkPartial hashed = crossover_chunk(p, ChunkSpan{kBegin, kBegin + kGenes, nullptr}, key,
                                                a.data(), b.data(), 0.5, mutated, step, again.data());
    EXPECT_EQ(std::memcmp(partial.bytes, hashed.bytes, sizeof(double)), 0);
    visit_function(p.function, [&](auto fn) {
      expect_chunk_matches_reference<decltype(fn)>(p, child, partial);
    });
  }
}

TEST(HostPasses, SolisWetsChunksMoveByRhoTimesTheirNormalsAndMatchTheReference) {
  const Problem p = problem_named("rastrigin", 3 * kHostChunk);
  const std::vector<real_t> x = random_genes(p, 3);
  std::vector<real_t> bias = random_genes(p, 4);
  for (real_t& v : bias) v = static_cast<real_t>(0.01 * v);
  std::vector<real_t> dif(static_cast<size_t>(kGenes)), forward(static_cast<size_t>(kGenes)),
      backward(static_cast<size_t>(kGenes));
  const std::uint64_t key = derive_key(41, 42);
  const double rho = 0.3;
  const ChunkSpan span{kBegin, kBegin + kGenes, nullptr};
  const ChunkPartial f_forward =
      sw_forward_chunk(p, span, key, rho, x.data(), bias.data(), dif.data(), forward.data());
  const ChunkPartial f_backward =
      sw_backward_chunk(p, span, x.data(), bias.data(), dif.data(), backward.data());
  double normals[kNormalBlock];
  for (Dim l = 0; l < kGenes; ++l) {
    if (l % kNormalBlock == 0) normal_block(key, static_cast<std::uint64_t>(l / kNormalBlock), normals);
    const auto d = static_cast<real_t>(rho * normals[l % kNormalBlock]);
    ASSERT_EQ(dif[static_cast<size_t>(l)], d);
    ASSERT_EQ(forward[static_cast<size_t>(l)], sw_forward_gene(x[l], bias[l], d, p.lower, p.upper));
    ASSERT_EQ(backward[static_cast<size_t>(l)], sw_backward_gene(x[l], bias[l], d, p.lower, p.upper));
  }
  expect_chunk_matches_reference<Rastrigin>(p, forward, f_forward);
  expect_chunk_matches_reference<Rastrigin>(p, backward, f_backward);
}

TEST(HostPasses, RandomGenesAreUniformInTheDomain) {
  const Problem p = problem_named("sumsquares", 3 * kHostChunk);
  std::vector<real_t> x(static_cast<size_t>(kGenes));
  random_genes_chunk(p, ChunkSpan{kBegin, kBegin + kGenes, nullptr}, derive_key(51, 52), x.data());
  double mean = 0.0;
  for (real_t g : x) {
    ASSERT_GE(g, p.lower);
    ASSERT_LE(g, p.upper);
    mean += static_cast<double>(g) / kGenes;
  }
  const double centre = 0.5 * (p.lower + p.upper), sd = p.width() / std::sqrt(12.0 * kGenes);
  EXPECT_NEAR(mean, centre, 5.0 * sd);
}

TEST(HostEngineRng, RefusesTheFirstLayoutsSnapshotWithOneClearError) {
  Config c;
  c.function = "rastrigin";
  c.dim = 100;
  const Problem p = problem_of(c);
  HostEngine engine(c, p);
  const RngSnapshot saved = engine.save_rng();
  EXPECT_EQ(saved.layout, "splitmix64-counter-blocks/v2");
  RngSnapshot old{"splitmix64-counter/v1", saved.bytes};
  try {
    engine.restore_rng(old);
    FAIL() << "a v1 snapshot was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("splitmix64-counter/v1"), std::string::npos) << e.what();
  }
  engine.restore_rng(saved);
}

}  // namespace
}  // namespace chainsaw::test
