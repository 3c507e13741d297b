// The six benchmark functions of seed 003 §6.3, shifted (z = x - o) and with fBias = -330.
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

// cos(2 pi z). On the GPU, cospi(2z) skips cos's argument reduction by 2/pi (2z is exact), which
// halved the compute-bound Rastrigin kernel. The host uses a branch-free polynomial instead of
// the library's cos, which no compiler vectorises: the reduction r = z - rint(z) is exact, the
// quarter-period fold b = 1/2 - |r| is exact (Sterbenz), and the Taylor series of cos(2 pi b),
// 2 pi b in [0, pi/2], stops at x^20 (next term < 2e-17). The result is within 3e-16 of cos(2 pi z)
// (absolute; tests/test_host_rng.cpp holds it to a long-double reference), far inside the 1e-6
// agreement the backends are held to, and the same bits with any vector width.
CHAINSAW_HD double cos_two_pi_polynomial(double z) {
  // rint by the 1.5 * 2^52 shifter, exact and in the current (nearest) rounding mode for
  // |z| < 2^51; beyond, z is an integer or half-integer far outside every domain here.
  constexpr double kShifter = 0x1.8p52;
  const double r = z - ((z + kShifter) - kShifter);  // in [-1/2, 1/2]
  const double a = r < 0.0 ? -r : r;
  const bool fold = a > 0.25;  // cos(2 pi a) = -cos(2 pi (1/2 - a))
  const double x = kTwoPi * (fold ? 0.5 - a : a);
  const double x2 = x * x;
  double c = 1.0 / 2432902008176640000.0;  // 1/20!, then the Taylor coefficients down to 1
  c = c * x2 - 1.0 / 6402373705728000.0;
  c = c * x2 + 1.0 / 20922789888000.0;
  c = c * x2 - 1.0 / 87178291200.0;
  c = c * x2 + 1.0 / 479001600.0;
  c = c * x2 - 1.0 / 3628800.0;
  c = c * x2 + 1.0 / 40320.0;
  c = c * x2 - 1.0 / 720.0;
  c = c * x2 + 1.0 / 24.0;
  c = c * x2 - 0.5;
  c = c * x2 + 1.0;
  return fold ? -c : c;
}

CHAINSAW_HD double cos_two_pi(double z) {
#if defined(__CUDA_ARCH__)
  return cospi(2.0 * z);
#else
  return cos_two_pi_polynomial(z);
#endif
}
}  // namespace detail

struct Rastrigin {
  static constexpr double kBias = kFBias;
  using Index = Dim;
  using Partial = SumPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index /*i*/) {
    p.sum += z * z - 10.0 * detail::cos_two_pi(z) + 10.0;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim /*dim*/) { return p.sum; }
};

struct Griewank {
  static constexpr double kBias = kFBias;
  using Index = double;
  using Partial = SumProductPartial;
  CHAINSAW_HD static void accumulate(Partial& p, double z, Index i) {
    p.sum += z * z / 4000.0;
    p.product *= cos(z / sqrt(i));
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

// Discus in its standard form 10^6 z_1^2 + sum_{i>=2} z_i^2 (seed 003 prints it once with an
// extra factor i, which would make it Sum Squares plus a first-gene weight).
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
