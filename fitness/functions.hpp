// The six benchmark functions of Lastra et al. 2014 §6.3, shifted (z = x - o) and with fBias =
// -330, and the classic functions of the other GPU papers' benchmarks (below the six, f(o) = 0).
// Each is a per-gene term (`accumulate`; index i is 1-based as in the formulas and of type
// Index: a count (Dim), or a double where the term computes with it, so that a kernel may step
// it without converting an integer per gene; exact either way) and a reduction kind
// (`Partial`), written once for both backends. All arithmetic is double: genes are read as
// real_t and widened before the shift.
#pragma once

#include <cmath>

#include "core/types.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw {

namespace detail {
inline constexpr double kTwoPi = 6.283185307179586476925;

// rint(v) by the 1.5 * 2^52 shifter: exact, in the current (nearest) rounding mode, for
// |v| < 2^51, and a plain add and subtract that vectorises (std::rint is a call without SSE4.1).
inline constexpr double kRintShifter = 0x1.8p52;
CHAINSAW_HD double rint_by_shifter(double v) { return (v + kRintShifter) - kRintShifter; }

// cos(x) for |x| <= pi/2 (a hair beyond is fine): its Taylor series to x^20, the next term
// < 2e-17 at pi/2; within 3e-16 of cos (absolute) in double. The one polynomial of both host
// cosines below. kCosTaylor: its coefficients from 1/20! down to -1/2! (1 is added last), each
// with its sign, so that every step is c * x^2 + coefficient.
inline constexpr int kCosTaylorTerms = 10;
inline constexpr double kCosTaylor[kCosTaylorTerms] = {
    1.0 / 2432902008176640000.0, -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0,
    -1.0 / 87178291200.0,        1.0 / 479001600.0,         -1.0 / 3628800.0,
    1.0 / 40320.0,               -1.0 / 720.0,              1.0 / 24.0,
    -0.5};
#if defined(__CUDACC__)
// The GPU reads the coefficients (and 2 pi) from constant memory, as operands of its
// multiply-adds. Written as literals, ptxas built each one in the same pair of uniform
// registers before its multiply-add: 18 moves per cosine, and a thread's independent cosines
// queued behind one another on those two registers.
static __constant__ double kCosTaylorOnDevice[kCosTaylorTerms] = {
    kCosTaylor[0], kCosTaylor[1], kCosTaylor[2], kCosTaylor[3], kCosTaylor[4],
    kCosTaylor[5], kCosTaylor[6], kCosTaylor[7], kCosTaylor[8], kCosTaylor[9]};
static __constant__ double kTwoPiOnDevice = kTwoPi;
#endif
CHAINSAW_HD double cos_taylor_coefficient(int i) {
#if defined(__CUDA_ARCH__)
  return kCosTaylorOnDevice[i];
#else
  return kCosTaylor[i];
#endif
}
CHAINSAW_HD double two_pi() {
#if defined(__CUDA_ARCH__)
  return kTwoPiOnDevice;
#else
  return kTwoPi;
#endif
}
CHAINSAW_HD double cos_taylor_half_pi(double x) {
  const double x2 = x * x;
  // Written out: the host's vectorised passes need the steps inline.
  double c = cos_taylor_coefficient(0);
  c = c * x2 + cos_taylor_coefficient(1);
  c = c * x2 + cos_taylor_coefficient(2);
  c = c * x2 + cos_taylor_coefficient(3);
  c = c * x2 + cos_taylor_coefficient(4);
  c = c * x2 + cos_taylor_coefficient(5);
  c = c * x2 + cos_taylor_coefficient(6);
  c = c * x2 + cos_taylor_coefficient(7);
  c = c * x2 + cos_taylor_coefficient(8);
  c = c * x2 + cos_taylor_coefficient(9);
  return c * x2 + 1.0;
}

// cos(2 pi z) on both backends, branch-free: the reduction r = z - rint(z) is exact, the
// quarter-period fold b = 1/2 - |r| is exact (Sterbenz), and cos(2 pi b), 2 pi b in [0, pi/2],
// is cos_taylor_half_pi. The result is within 3e-16 of cos(2 pi z) (absolute;
// tests/test_host_rng.cpp holds it to a long-double reference), far inside the 1e-6 agreement
// the backends are held to, and the same bits with any vector width on the host (the GPU
// contracts the polynomial into fused multiply-adds). The host has no vectorised library cos;
// on the GPU, cospi(2z) takes its quadrant through two quarter-rate conversions, reads a table
// of coefficients and branches on random z (bench/results/2026-11-27-h100-gpu-math).
CHAINSAW_HD double cos_two_pi(double z) {
  // Beyond 2^51, z is an integer or half-integer far outside every domain here.
  const double r = z - rint_by_shifter(z);  // in [-1/2, 1/2]
  const double a = r < 0.0 ? -r : r;
  const bool fold = a > 0.25;  // cos(2 pi a) = -cos(2 pi (1/2 - a))
  const double c = cos_taylor_half_pi(two_pi() * (fold ? 0.5 - a : a));
  return fold ? -c : c;
}

// sqrt(20) sin(pi r) / r as a polynomial in u = r^2 for |r| <= 1/2: a Chebyshev fit of degree
// 6 on u in [0, 1/4] (mpmath.chebyfit at 60 digits), coefficients from u^6 down, rounded to
// double. r P(r^2) is within 8e-14 of sqrt(20) sin(pi r), relative, over the whole range; the
// Taylor series took 7 terms for 7e-10. On the GPU from constant memory, as kCosTaylor.
inline constexpr int kRootTwentySinPiTerms = 7;
inline constexpr double kRootTwentySinPi[kRootTwentySinPiTerms] = {
    0x1.064ea7741c537p-9,  -0x1.0dc9286efd680p-5, 0x1.782decc934789p-2, -0x1.5709fa83101bcp+1,
    0x1.6cf3240ce96f1p+3, -0x1.71c57c2d91752p+4, 0x1.c196908691c18p+3};
#if defined(__CUDACC__)
static __constant__ double kRootTwentySinPiOnDevice[kRootTwentySinPiTerms] = {
    kRootTwentySinPi[0], kRootTwentySinPi[1], kRootTwentySinPi[2], kRootTwentySinPi[3],
    kRootTwentySinPi[4], kRootTwentySinPi[5], kRootTwentySinPi[6]};
#endif
CHAINSAW_HD double root_twenty_sin_pi_coefficient(int i) {
#if defined(__CUDA_ARCH__)
  return kRootTwentySinPiOnDevice[i];
#else
  return kRootTwentySinPi[i];
#endif
}

// Rastrigin's term z^2 - 10 cos(2 pi z) + 10, the paper's function's and CEC 2010's, as
// z^2 + 20 sin^2(pi z): r = z - rint(z) is exact and s = sqrt(20) sin(pi r) one polynomial
// (above), so the term is within 2e-13 of its value, relative (tests/test_host_rng.cpp), also
// near the optimum, where 10 - 10 cos(2 pi z) cancelled (an error of ~1e-15, twice the term
// itself at |z| = 2e-9). It takes 13 float64 operations instead of 21, and the Solis-Wets steps
// of Rastrigin evaluate two per gene (bench/results/2026-11-27-h100-rastrigin-term).
CHAINSAW_HD double rastrigin_term(double z) {
  const double r = z - rint_by_shifter(z);  // in [-1/2, 1/2]
  const double u = r * r;
  // Written out: the host's vectorised passes need the steps inline.
  double p = root_twenty_sin_pi_coefficient(0);
  p = p * u + root_twenty_sin_pi_coefficient(1);
  p = p * u + root_twenty_sin_pi_coefficient(2);
  p = p * u + root_twenty_sin_pi_coefficient(3);
  p = p * u + root_twenty_sin_pi_coefficient(4);
  p = p * u + root_twenty_sin_pi_coefficient(5);
  p = p * u + root_twenty_sin_pi_coefficient(6);
  const double s = r * p;
  return z * z + s * s;
}

// pi in three parts (Cody and Waite) for cos_polynomial's reduction: the first two have at most
// 32 significant bits, so k * part is exact for |k| < 2^21, and the third is the rest rounded.
inline constexpr double kPiPart1 = 0x1.921fb544p+1;
inline constexpr double kPiPart2 = 0x1.0b4611a6p-33;
inline constexpr double kPiPart3 = 0x1.3198a2e037073p-68;
inline constexpr double kInvPi = 0x1.45f306dc9c883p-2;

// x = k pi + r, k = rint(x / pi), r in [-pi/2, pi/2] by the three-part pi (x - k part1 is
// exact, Sterbenz; the two later subtractions round once each, ~1e-16), and whether k is odd:
// sin and cos of x are those of r, negated for odd k. Exact products for |x| < 2^21 pi.
struct PiReduced {
  double r;
  bool odd;
};
CHAINSAW_HD PiReduced reduce_by_pi(double x) {
  const double k = rint_by_shifter(x * kInvPi);
  const double r = ((x - k * kPiPart1) - k * kPiPart2) - k * kPiPart3;
  const double half = 0.5 * k;
  return {r, half != rint_by_shifter(half)};  // a half-integer never equals its rint
}

// cos(x) of a general argument, branch-free, for the host (Griewank's cos(z / sqrt(i))), by
// reduce_by_pi. Within 6e-16 of cos (absolute; tests/test_host_rng.cpp) for |x| < 2^21 pi,
// which covers every domain here (Griewank's |z| <= 1200).
CHAINSAW_HD double cos_polynomial(double x) {
  const PiReduced p = reduce_by_pi(x);
  const double c = cos_taylor_half_pi(p.r);
  return p.odd ? -c : c;
}

CHAINSAW_HD double cos_any(double x) {
#if defined(__CUDA_ARCH__)
  return cos(x);
#else
  return cos_polynomial(x);
#endif
}

// 1/sqrt(i) for Griewank's index i >= 1. On the host a float estimate (sqrt and divide at twice
// the lanes of double's) and two Newton steps in double: relative error 1.5e-7, then 3.4e-14,
// then the steps' own roundings, within 2.8e-16 (tests/test_host_rng.cpp). The double sqrt and
// divide it replaces cost a fifth of the run (bench/results/2026-11-25-cpu-floor). On the GPU,
// rsqrt (within 1 ulp).
CHAINSAW_HD double inv_sqrt_newton(double i) {
  double y = static_cast<double>(1.0f / sqrtf(static_cast<float>(i)));
  y = y * (1.5 - 0.5 * i * y * y);
  y = y * (1.5 - 0.5 * i * y * y);
  return y;
}

CHAINSAW_HD double inv_sqrt(double i) {
#if defined(__CUDA_ARCH__)
  return rsqrt(i);
#else
  return inv_sqrt_newton(i);
#endif
}

inline constexpr double kE = 2.718281828459045235360287;
inline constexpr double kPi = 3.141592653589793238462643;

CHAINSAW_HD double ackley(double square_sum, double cos_sum, Dim n) {
  if (n == 0) return 0.0;
  const double nd = static_cast<double>(n);
  // -20 e^(-0.2 sqrt(s/n)) - e^(c/n) + 20 + e, regrouped so that each half is exactly 0 at the
  // optimum (s = 0, c = n) instead of a difference of two rounded ~22.7s: CEC 2010's F6 weighs
  // it by 10^6.
  return -20.0 * expm1(-0.2 * sqrt(square_sum / nd)) - kE * expm1(cos_sum / nd - 1.0);
}
}  // namespace detail

struct Rastrigin {
  static constexpr double kBias = kFBias;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    p.sum += detail::rastrigin_term(z);
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct Griewank {
  static constexpr double kBias = kFBias;
  using Index = double;
  using Partial = SumProductPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    // By the reciprocals (1/4000 rounded, 1/sqrt(i) within 3e-16): no per-gene divide or
    // double sqrt, which cost more than the cosine in the vectorised host pass.
    p.sum += z * z * (1.0 / 4000.0);
    p.product *= detail::cos_any(z * detail::inv_sqrt(i));
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    return p.sum - p.product + 1.0;
  }
};

// Salomon: the parallel part is g = sum z^2; the outer formula is applied once, after reduction.
struct Salomon {
  static constexpr double kBias = kFBias;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) { p.sum += z * z; }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    const double root = sqrt(p.sum);
    return 1.0 - cos(detail::kTwoPi * root) + 0.1 * root;
  }
};

// Discus in its standard form 10^6 z_1^2 + sum_{i>=2} z_i^2 (Lastra et al. 2014 print it once
// with an extra factor i, which would make it Sum Squares plus a first-gene weight).
struct Discus {
  static constexpr double kBias = kFBias;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    p.sum += (i == 1 ? 1.0e6 : 1.0) * z * z;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct SumSquares {
  static constexpr double kBias = kFBias;
  using Index = double;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    p.sum += i * z * z;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct Schwefel12 {
  static constexpr double kBias = kFBias;
  using Index = Dim;
  using Partial = PrefixSquarePartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    p.total += z;
    p.prefix_sum += p.total;
    p.prefix_square_sum += p.total * p.total;
    p.count += 1.0;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.prefix_square_sum; }
};

// The classic functions beyond the paper's six: Rosenbrock and Zakharov (Janssen et al.'s GPU
// DE benchmark) and Nashed et al.'s Table 3 (docs/functions.md). Shifted like the six (z = x - o)
// with f(o) = 0. Those whose optimum is not at z = 0 are moved there (Rosenbrock u = z + 1,
// Levy w = 1 + z/4, Schwefel 2.26 u = z + 420.97, Dixon-Price u = z + x*), so that x = o is
// the optimum on every function and the distance to the optimum means the same everywhere.

struct Rosenbrock {  // sum_{i<D} 100 (u_i^2 - u_{i+1})^2 + (u_i - 1)^2, u = z + 1
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = RosenbrockPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.add(z + 1.0, i); }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct Zakharov {  // sum z_i^2 + s^2 + s^4, s = sum 0.5 i z_i
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = TwoSumsPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    p.first += z * z;
    p.second += 0.5 * i * z;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    const double s2 = p.second * p.second;
    return p.first + s2 + s2 * s2;
  }
};

struct Sphere {
  static constexpr double kBias = 0.0;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) { p.sum += z * z; }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct HyperEllipsoid {  // sum i^2 z_i^2
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.sum += i * i * z * z; }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

// sum |z| + prod |z|. The product overflows to inf far from o at large D (|z| ~ 10 at D ~ 300),
// as it does in float64 references: the search still ranks such points last.
struct Schwefel222 {
  static constexpr double kBias = 0.0;
  using Index = Dim;
  using Partial = SumProductPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    p.sum += fabs(z);
    p.product *= fabs(z);
  }
  // At large D a range's product can underflow to 0 and another's overflow to inf; their
  // combination is then NaN where the true product is merely huge: such a point ranks last.
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    const double f = p.sum + p.product;
    return f == f ? f : INFINITY;
  }
};

// Schwefel 2.26 as the CEC 2014 code evaluates it (its F10): u = z + 420.97 (the optimum of
// -u sin sqrt|u|), and a u beyond +-500, reachable once shifted, is folded back into the range
// with a quadratic penalty (u -+ 500)^2 / 10^4 / D: without it the unbounded u sin sqrt|u| beats
// the optimum outside [-500, 500]. The first sum is of (418.98... - u sin sqrt|u|), each ~0 at
// the optimum; the second is the penalties'.
struct Schwefel226 {
  static constexpr double kBias = 0.0;
  static constexpr double kOptimum = 4.209687462275036e+002;
  static constexpr double kValue = 4.189828872724338e+002;
  using Index = Dim;
  using Partial = TwoSumsPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    const double u = z + kOptimum;
    if (u > 500.0) {
      const double folded = 500.0 - fmod(u, 500.0);
      const double excess = (u - 500.0) / 100.0;
      p.first += kValue - folded * sin(sqrt(folded));
      p.second += excess * excess;
    } else if (u < -500.0) {
      const double folded = fmod(fabs(u), 500.0);
      const double excess = (u + 500.0) / 100.0;
      p.first += kValue - (folded - 500.0) * sin(sqrt(500.0 - folded));
      p.second += excess * excess;
    } else {
      p.first += kValue - u * sin(sqrt(fabs(u)));
    }
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim dim) {
    return p.first + p.second / static_cast<double>(dim);
  }
};

namespace detail {
// Katsuura's inner sum, sum_{k=1}^{32} |2^k z - round(2^k z)| 2^-k (also the CEC 2014/2017
// Katsuura's, fitness/janssen/janssen.hpp). At a tie either rounding leaves |.| = 1/2.
CHAINSAW_HD double katsuura_sum(double z) {
  double s = 0.0, scale = 2.0;  // 2^k: scalings by powers of two are exact
  for (int k = 1; k <= 32; ++k, scale *= 2.0) {
    const double y = scale * z;
    s += fabs(y - nearbyint(y)) / scale;
  }
  return s;
}
}  // namespace detail

// Katsuura: prod_i (1 + i sum_{k=1}^{32} |2^k z_i - round(2^k z_i)| 2^-k) - 1. Every factor is
// >= 1, so far from o the product overflows to inf at large D (D ~ 300 on the paper's range).
struct Katsuura {
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = SumProductPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    p.product *= 1.0 + i * detail::katsuura_sum(z);
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.product - 1.0; }
};

struct Ackley {  // -20 exp(-0.2 sqrt(sum z^2 / D)) - exp(sum cos(2 pi z) / D) + 20 + e
  static constexpr double kBias = 0.0;
  using Index = Dim;
  using Partial = TwoSumsPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    p.first += z * z;
    p.second += detail::cos_two_pi(z);
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim dim) {
    return detail::ackley(p.first, p.second, dim);
  }
};

// Dixon-Price, (u_1 - 1)^2 + sum_{i>=2} i (2 u_i^2 - u_{i-1})^2, on u = z + x* where
// x*_i = 2^-((2^i - 2) / 2^i) = 2^(2^(1-i) - 1) is its optimum.
struct DixonPricePair {
  CHAINSAW_HD static double term(double previous, double u, double i) {
    const double a = 2.0 * u * u - previous;
    return i * a * a;
  }
};
struct DixonPrice {
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = NeighbourPartial<DixonPricePair>;
  CHAINSAW_HD static double optimum(double i) { return exp2(exp2(1.0 - i) - 1.0); }
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.add(z + optimum(i), i); }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    const double d = p.first - 1.0;
    return d * d + p.sum;
  }
};

// The expanded functions of CEC 2005 (F13, F14): a two-variable function over every
// neighbouring pair, the last paired with the first.
template <class Pair>
CHAINSAW_HD double expanded_finish(const NeighbourPartial<Pair>& p) {
  return p.sum + Pair::term(p.last, p.first, 0.0);
}

// Griewank of Rosenbrock (CEC 2005 F13, "F8F2"): sum g(r(u_i, u_{i+1})), u = z + 1,
// g(s) = s^2/4000 - cos s + 1, r Rosenbrock's pair.
struct GriewankRosenbrockPair {
  CHAINSAW_HD static double term(double u, double next, double i) {
    const double s = RosenbrockPair::term(u, next, i);
    return s * s / 4000.0 - cos(s) + 1.0;
  }
};
struct GriewankRosenbrock {
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = NeighbourPartial<GriewankRosenbrockPair>;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.add(z + 1.0, i); }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return expanded_finish(p); }
};

// Expanded Schaffer F6 (CEC 2005 F14): sum F(z_i, z_{i+1}),
// F(x, y) = 0.5 + (sin^2 sqrt(x^2 + y^2) - 0.5) / (1 + 0.001 (x^2 + y^2))^2.
struct ScafferPair {
  CHAINSAW_HD static double term(double x, double y, double /*i*/) {
    const double r2 = x * x + y * y;
    const double s = sin(sqrt(r2));
    const double d = 1.0 + 0.001 * r2;
    return 0.5 + (s * s - 0.5) / (d * d);
  }
};
struct Scaffer {
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = NeighbourPartial<ScafferPair>;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.add(z, i); }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return expanded_finish(p); }
};

// Levy on w = 1 + z/4: sin^2(pi w_1) + sum_{i<D} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
// + (w_D - 1)^2 (1 + sin^2(2 pi w_D)). The middle sum is a pair term of the earlier value only,
// so that the last w is left for finish.
struct LevyPair {
  CHAINSAW_HD static double term(double w, double /*next*/, double /*i*/) {
    const double s = sin(detail::kPi * w + 1.0);
    return (w - 1.0) * (w - 1.0) * (1.0 + 10.0 * s * s);
  }
};
struct Levy {
  static constexpr double kBias = 0.0;
  using Index = double;
  using Partial = NeighbourPartial<LevyPair>;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) { p.add(1.0 + 0.25 * z, i); }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) {
    const double head = sin(detail::kPi * p.first);
    const double tail = sin(detail::kTwoPi * p.last);
    return head * head + p.sum + (p.last - 1.0) * (p.last - 1.0) * (1.0 + tail * tail);
  }
};

// The gene-making pass of a function that is not a per-gene term (the CEC 2010 functions, whose
// groups gather through a permutation): the engines make and store the genes with this, then
// evaluate the stored vector (fitness/cec2010/cec2010.hpp).
struct GenesOnly {
  static constexpr double kBias = 0.0;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial&, double, Index) {}
  CHAINSAW_HD static double finish(const Partial&, Dim) { return 0.0; }
};

}  // namespace chainsaw
