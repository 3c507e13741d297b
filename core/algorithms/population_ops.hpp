// The per-individual and per-gene math of DE, jDE, PSO and Scatter Search, written once as
// CHAINSAW_HD functions: the CPU backend calls them in an OpenMP loop over individuals, the CUDA
// population-parallel path in a block per individual (core/engines/cuda/population_kernels.cuh).
//
// Random numbers are counter-based (core/rng.hpp): the stream of individual i in generation g
// is keyed by (seed, purpose, g, i), and draw k of a stream is mix64(key + (k + 1) * gamma),
// so a GPU thread can draw gene j's number directly (uniform_at) and every number is the same
// whichever thread, block or backend draws it.
#pragma once

#include <cstdint>

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

// Two standard normals by Box-Muller in single precision from draw p: its high 24 bits make
// u1 in (0, 1), the next 24 u2 in [0, 1). Where the normals only scale genes (sep-CMA-ES's
// samples), double precision costs time and nothing else: its log and cos made the GPU's
// sampling pass compute-bound (docs/algorithms.md, sep-cma-es).
struct NormalPair {
  float first, second;
};
CHAINSAW_HD NormalPair normal_pair_at(std::uint64_t key, std::uint64_t p) {
  const std::uint64_t r = u64_at(key, p);
  const float u1 = (static_cast<float>(r >> 40) + 0.5f) * 0x1.0p-24f;
  const float u2 = static_cast<float>((r >> 16) & 0xffffffu) * 0x1.0p-24f;
  const float radius = sqrtf(-2.0f * logf(u1));
  const float angle = 6.28318530717958647692f * u2;
  return {radius * cosf(angle), radius * sinf(angle)};
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
