// The per-individual and per-gene math of DE, jDE, PSO and Scatter Search, written once as
// CHAINSAW_HD functions: the CPU backend calls them in an OpenMP loop over individuals, the CUDA
// population-parallel path in a block per individual (core/engines/cuda/population_kernels.cuh).
//
// Random numbers are counter-based (core/rng.hpp): the stream of individual i in generation g
// is keyed by (seed, purpose, g, i), and draw k of a stream is mix64(key + (k + 1) * gamma),
// so a GPU thread can draw gene j's number directly (uniform_at) and every number is the same
// whichever thread, block or backend draws it.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/rng.hpp"
#include "core/types.hpp"

namespace chainsaw {

// Purposes of the new algorithms' streams, far above core/rng.hpp's RngPurpose values, so that
// no stream of theirs meets one of MA-SW-Chains.
enum class PopulationPurpose : std::uint64_t {
  kInitial = 101,      // the initial population (and PSO's velocities)
  kGeneration = 102,   // DE/jDE trial vectors, PSO moves: one stream per (generation, individual)
  kJdeParameters = 103,
  kCombination = 104,  // SS: BLX-alpha of a pair
  kImprovement = 105,  // SS: Solis-Wets of a pool member
  kRestart = 106,      // SS: a new diversification population
};

inline constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

CHAINSAW_HD std::uint64_t population_key(std::uint64_t seed, PopulationPurpose purpose,
                                         std::uint64_t operation, std::uint64_t individual) {
  return derive_key(seed, static_cast<std::uint64_t>(purpose), operation, individual);
}

// Draw k (0-based) of CounterRng(key): what its (k+1)-th next_u64() returns.
CHAINSAW_HD std::uint64_t u64_at(std::uint64_t key, std::uint64_t k) {
  return mix64(key + (k + 1) * kGolden);
}
CHAINSAW_HD double uniform_at(std::uint64_t key, std::uint64_t k) {
  return static_cast<double>(u64_at(key, k) >> 11) * 0x1.0p-53;
}
// Uniform integer in [0, n) from a 64-bit draw (Lemire's multiply-shift), host and device.
CHAINSAW_HD std::uint32_t below_from(std::uint64_t draw, std::uint32_t n) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__umul64hi(draw, static_cast<std::uint64_t>(n)));
#else
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint32_t>((static_cast<u128>(draw) * n) >> 64);
#endif
}

// A standard normal for index j of stream `key` from draws 2j and 2j + 1 (Box-Muller, the
// cosine branch only): a gene's deviate without the sequential spare of CounterRng::normal.
CHAINSAW_HD double normal_at(std::uint64_t key, std::uint64_t j) {
  double u1 = uniform_at(key, 2 * j);
  const double u2 = uniform_at(key, 2 * j + 1);
  if (u1 < 0x1.0p-60) u1 = 0x1.0p-60;  // log(0) guard
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

// ln u for u = (i + 0.5) / 2^24, i < 2^24 (so u is a normal float in (0, 1)): u = m 2^e with
// m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its
// series to s^9 (error below 2e-9). Division and square root are IEEE on both backends.
CHAINSAW_HD float portable_log(float u) {
  std::uint32_t bits;
#if defined(__CUDA_ARCH__)
  bits = __float_as_uint(u);
#else
  std::memcpy(&bits, &u, sizeof(bits));
#endif
  int e = static_cast<int>(bits >> 23) - 127;
  bits = (bits & 0x7fffffu) | 0x3f800000u;  // m in [1, 2)
  float m;
#if defined(__CUDA_ARCH__)
  m = __uint_as_float(bits);
#else
  std::memcpy(&m, &bits, sizeof(m));
#endif
  if (m > 1.41421356f) {
    m = mul_rn(m, 0.5f);
    ++e;
  }
  const float s = add_rn(m, -1.0f) / add_rn(m, 1.0f), z = mul_rn(s, s);
  float p = add_rn(1.0f / 7.0f, mul_rn(z, 1.0f / 9.0f));
  p = add_rn(1.0f / 5.0f, mul_rn(z, p));
  p = add_rn(1.0f / 3.0f, mul_rn(z, p));
  const float twice_s = mul_rn(2.0f, s);
  const float ln_m = add_rn(twice_s, mul_rn(mul_rn(twice_s, z), p));
  return add_rn(mul_rn(static_cast<float>(e), 0.693147181f), ln_m);
}

// cos and sin of 2 pi k / 2^24, k < 2^24: the quadrant and the angle t in [0, pi/4] from k's
// bits exactly (past pi/4, from the quadrant's end, cos and sin swapped: no cancellation near
// a zero), then their Taylor series in t to t^14 and t^15.
struct CosSin {
  float cos, sin;
};
CHAINSAW_HD CosSin portable_cos_sin(std::uint32_t k) {
  const std::uint32_t quadrant = k >> 22, m = k & 0x3fffffu;
  const bool from_end = m > 0x200000u;
  const float t =
      mul_rn(static_cast<float>(from_end ? 0x400000u - m : m) * 0x1.0p-22f, 1.57079633f);
  const float x = mul_rn(t, t);
  float c = add_rn(1.0f / 479001600.0f, mul_rn(x, -1.0f / 87178291200.0f));
  c = add_rn(-1.0f / 3628800.0f, mul_rn(x, c));
  c = add_rn(1.0f / 40320.0f, mul_rn(x, c));
  c = add_rn(-1.0f / 720.0f, mul_rn(x, c));
  c = add_rn(1.0f / 24.0f, mul_rn(x, c));
  c = add_rn(-0.5f, mul_rn(x, c));
  c = add_rn(1.0f, mul_rn(x, c));
  float s = add_rn(-1.0f / 39916800.0f, mul_rn(x, 1.0f / 6227020800.0f));
  s = add_rn(1.0f / 362880.0f, mul_rn(x, s));
  s = add_rn(-1.0f / 5040.0f, mul_rn(x, s));
  s = add_rn(1.0f / 120.0f, mul_rn(x, s));
  s = add_rn(-1.0f / 6.0f, mul_rn(x, s));
  s = add_rn(t, mul_rn(mul_rn(t, x), s));
  if (from_end) {
    const float swapped = c;
    c = s;
    s = swapped;
  }
  switch (quadrant) {
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

// Two standard normals by Box-Muller in single precision from draw p: its high 24 bits make
// u1 in (0, 1), the next 24 the angle. Where the normals only scale genes (sep-CMA-ES's
// samples), double precision costs time and nothing else: FP64 log and cos made the sampling
// pass 7 times its bytes' time on an H200; the portable float math gives the same bits on both
// backends (bench/results/2026-12-02-h200-sep-cma-es).
struct NormalPair {
  float first, second;
};
CHAINSAW_HD NormalPair normal_pair_at(std::uint64_t key, std::uint64_t p) {
  const std::uint64_t r = u64_at(key, p);
  const float u1 = (static_cast<float>(r >> 40) + 0.5f) * 0x1.0p-24f;
  const float radius = sqrtf(mul_rn(-2.0f, portable_log(u1)));
  const CosSin a = portable_cos_sin(static_cast<std::uint32_t>((r >> 16) & 0xffffffu));
  return {mul_rn(radius, a.cos), mul_rn(radius, a.sin)};
}

// ---------------------------------------------------------------------------------------------
// DE/rand/1 (Storn & Price 1997)

// Draws of a DE stream: [0, kDeIndexDraws) pick r1, r2, r3 by rejection, the next picks jrand
// (binomial) or the start n (exponential), then the per-gene draws from kDeGeneDraws on.
inline constexpr std::uint64_t kDeIndexDraws = 64;
inline constexpr std::uint64_t kDeStartDraw = kDeIndexDraws;
inline constexpr std::uint64_t kDeGeneDraws = kDeIndexDraws + 1;

// r1, r2, r3 uniform over [0, np), distinct from each other and from i (np >= 4). Rejection
// sampling over a fixed window of draws; the window is long enough that running out has
// probability < (3/4)^61 at np = 4, and then a deterministic fill of the smallest free indices
// keeps the result exclusive (never silently wrong).
CHAINSAW_HD void de_pick_indices(std::uint64_t key, int np, int i, int r[3]) {
  int found = 0;
  for (std::uint64_t k = 0; k < kDeIndexDraws && found < 3; ++k) {
    const int c = static_cast<int>(below_from(u64_at(key, k), static_cast<std::uint32_t>(np)));
    bool taken = c == i;
    for (int m = 0; m < found; ++m) taken = taken || r[m] == c;
    if (!taken) r[found++] = c;
  }
  for (int c = 0; found < 3 && c < np; ++c) {
    bool taken = c == i;
    for (int m = 0; m < found; ++m) taken = taken || r[m] == c;
    if (!taken) r[found++] = c;
  }
}

// Mutant gene v = a + F (b - c); outside the domain it bounces back to the midpoint between the
// parent's gene and the violated bound (keeps the trial in the domain without a new draw).
CHAINSAW_HD real_t de_mutant_gene(real_t a, real_t b, real_t c, double f, real_t parent,
                                  double lower, double upper) {
  const double v = static_cast<double>(a) + f * (static_cast<double>(b) - static_cast<double>(c));
  if (v < lower) return static_cast<real_t>(0.5 * (lower + static_cast<double>(parent)));
  if (v > upper) return static_cast<real_t>(0.5 * (upper + static_cast<double>(parent)));
  return static_cast<real_t>(v);
}

// Binomial crossover: gene j comes from the mutant when u_j < CR or j = jrand.
CHAINSAW_HD bool de_binomial_takes(double u, double cr, Dim j, Dim jrand) {
  return u < cr || j == jrand;
}

// Exponential crossover: L consecutive genes (cyclically) from n; L = 1 + the number of
// further successes u < CR before the first failure, at most D. Draw k of the gene draws is
// the k-th continuation test.
CHAINSAW_HD Dim de_exponential_length(std::uint64_t key, double cr, Dim dim) {
  Dim length = 1;
  while (length < dim && uniform_at(key, kDeGeneDraws + static_cast<std::uint64_t>(length - 1)) < cr)
    ++length;
  return length;
}
CHAINSAW_HD bool de_exponential_takes(Dim j, Dim start, Dim length, Dim dim) {
  const Dim offset = j >= start ? j - start : j + dim - start;
  return offset < length;
}

// ---------------------------------------------------------------------------------------------
// jDE (Brest, Greiner, Boskovic, Mernik, Zumer 2006): each individual carries F and CR; before
// its trial is made, F is redrawn uniform in [F_l, F_l + F_u] with probability tau1 and CR
// uniform in [0, 1] with probability tau2. The trial's values survive only with the trial.
inline constexpr double kJdeFLower = 0.1;
inline constexpr double kJdeFRange = 0.9;  // F in [0.1, 1.0]
inline constexpr double kJdeInitialF = 0.5;
inline constexpr double kJdeInitialCr = 0.9;

struct JdeParameters {
  double f;
  double cr;
};

CHAINSAW_HD JdeParameters jde_adapt(std::uint64_t key, JdeParameters current, double tau1,
                                    double tau2) {
  JdeParameters next = current;
  if (uniform_at(key, 0) < tau1) next.f = kJdeFLower + uniform_at(key, 1) * kJdeFRange;
  if (uniform_at(key, 2) < tau2) next.cr = uniform_at(key, 3);
  return next;
}

// ---------------------------------------------------------------------------------------------
// PSO, inertia weight, global best (Shi & Eberhart 1998):
//   v <- w v + c1 r1 (p - x) + c2 r2 (g - x), clamped to [-vmax, vmax];  x <- x + v, and a
// coordinate that leaves the domain stops on the bound with its velocity zeroed.
// r1, r2 are draws 2j and 2j + 1 of the particle's stream.
CHAINSAW_HD double pso_velocity_gene(double v, double x, double pbest, double gbest, double w,
                                     double c1, double c2, double r1, double r2, double vmax) {
  const double next = w * v + c1 * r1 * (pbest - x) + c2 * r2 * (gbest - x);
  return clamp_to(next, -vmax, vmax);
}
struct PsoGene {
  real_t x;
  real_t v;
};
CHAINSAW_HD PsoGene pso_move_gene(double x, double v, double lower, double upper) {
  const double moved = x + v;
  if (moved < lower) return {static_cast<real_t>(lower), real_t{0}};
  if (moved > upper) return {static_cast<real_t>(upper), real_t{0}};
  return {static_cast<real_t>(moved), static_cast<real_t>(v)};
}

// ---------------------------------------------------------------------------------------------
// Scatter Search (Nashed et al. §3): the pair (a, b) of the reference set gives two children,
// BLX-alpha with alpha = 0.5 + lambda and 0.5 - lambda (ssga/blx_alpha.hpp's gene).
CHAINSAW_HD double ss_child_alpha(int child, double lambda) {
  return child == 0 ? 0.5 + lambda : 0.5 - lambda;
}
// The first Solis-Wets step of a pool member: half the distance between its parents per
// sqrt(D), at most a tenth of the domain's width and at least 1e-12 of it.
CHAINSAW_HD double ss_first_rho(double parents_distance, Dim dim, double width) {
  const double rho = 0.5 * parents_distance / sqrt(static_cast<double>(dim));
  return fmin(0.1 * width, fmax(rho, 1e-12 * width));
}

}  // namespace chainsaw
