// The fifteen functions of the CEC 2013 large-scale benchmark (Li, Tang, Omidvar, Yang, Qin 2013),
// written once for both backends, as the official C++ code (github dmolina/cec2013lsgo) computes
// them: z = x - o; the T_osz and T_asy^0.2 transforms and the Lambda^10 conditioning inside the
// base functions; groups of 25, 50 or 100 variables gathered through the permutation P, rotated
// by the R25/R50/R100 of their size (w = R z) and weighted by w_g; a separable rest.
//
// An evaluation is a sum of items: one per group (its weighted value) and the partials of the
// rest (the variables after the groups, or all of x for F1-F3, F12, F15) cut into fixed chunks of
// kCec2013RestChunk. Both backends compute every item on its own (the host's threads or the
// GPU's blocks, fitness/cec2013/device_cec2013.cu) and combine the items in index order, so the
// value does not depend on the thread count.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/types.hpp"
#include "fitness/cec2010/cec2010.hpp"
#include "fitness/functions.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw {

inline constexpr int kCec2013Functions = 15;
inline constexpr int kCec2013Overlap = 5;     // F13, F14: consecutive groups share 5 positions
inline constexpr int kCec2013MaxGroup = 100;  // the largest group (R100)
inline constexpr int kCec2013Rotations = 3;   // R25, R50, R100
inline constexpr Dim kCec2013RestChunk = 4096;

// Which of R25, R50, R100 rotates a group of `size` (-1: no such matrix).
CHAINSAW_HD int cec2013_rotation_index(int size) {
  return size == 25 ? 0 : size == 50 ? 1 : size == 100 ? 2 : -1;
}
CHAINSAW_HD int cec2013_rotation_size(int index) { return 25 << index; }

enum class Cec2013Base : std::int32_t {
  kNone, kElliptic, kRastrigin, kAckley, kSchwefel, kSphere, kRosenbrock
};
enum class Cec2013Layout : std::int32_t {
  kWhole,        // F1-F3, F12, F15: the base function on all of z, in index order
  kPartial,      // F4-F7: weighted rotated groups and the base of the separable rest
  kGroups,       // F8-F11: weighted rotated groups that cover x
  kConforming,   // F13: overlapping groups, one o
  kConflicting,  // F14: overlapping groups, each with its own o
};

struct Cec2013Spec {
  Cec2013Layout layout;
  Cec2013Base group_base;  // kNone without groups
  Cec2013Base rest_base;   // kNone without a rest
};

// Li et al. 2013, Table 1, as the official F1.cpp ... F15.cpp compute them.
constexpr Cec2013Spec cec2013_spec(int number) {
  using L = Cec2013Layout;
  using B = Cec2013Base;
  switch (number) {
    case 1: return {L::kWhole, B::kNone, B::kElliptic};
    case 2: return {L::kWhole, B::kNone, B::kRastrigin};
    case 3: return {L::kWhole, B::kNone, B::kAckley};
    case 4: return {L::kPartial, B::kElliptic, B::kElliptic};
    case 5: return {L::kPartial, B::kRastrigin, B::kRastrigin};
    case 6: return {L::kPartial, B::kAckley, B::kAckley};
    case 7: return {L::kPartial, B::kSchwefel, B::kSphere};
    case 8: return {L::kGroups, B::kElliptic, B::kNone};
    case 9: return {L::kGroups, B::kRastrigin, B::kNone};
    case 10: return {L::kGroups, B::kAckley, B::kNone};
    case 11: return {L::kGroups, B::kSchwefel, B::kNone};
    case 12: return {L::kWhole, B::kNone, B::kRosenbrock};
    case 13: return {L::kConforming, B::kSchwefel, B::kNone};
    case 14: return {L::kConflicting, B::kSchwefel, B::kNone};
    default: return {L::kWhole, B::kNone, B::kSchwefel};
  }
}
constexpr bool cec2013_has_groups(Cec2013Layout layout) { return layout != Cec2013Layout::kWhole; }
constexpr bool cec2013_overlaps(Cec2013Layout layout) {
  return layout == Cec2013Layout::kConforming || layout == Cec2013Layout::kConflicting;
}

// One group: the positions P[start .. start + size), its weight, the rotation of its size and
// (F14) where its own o starts.
struct Cec2013Group {
  std::int32_t start = 0;
  std::int32_t size = 0;
  std::int32_t rotation = 0;  // cec2013_rotation_index(size)
  std::int32_t o_offset = 0;  // F14: o[o_offset + k] is variable k's optimum; others unused
  double weight = 1.0;
};

// The instance a function reads: device or host pointers, the same layout on both.
struct Cec2013View {
  Dim dim = 0;
  const double* o = nullptr;           // D values (F14: the groups' sizes summed)
  const std::int32_t* perm = nullptr;  // position k -> variable P[k]; null: the identity
  const Cec2013Group* groups = nullptr;
  int group_count = 0;
  // R25, R50, R100, each s x s: R_ij at rotation[r][i s + j] (row-major, the host), or at
  // [j s + i] when transposed (the GPU's copy, read by consecutive threads making w_i, w_i+1).
  const double* rotation[kCec2013Rotations] = {nullptr, nullptr, nullptr};
  bool transposed = false;
  Dim rest_begin = 0;   // the rest is positions rest_begin .. rest_begin + rest_length of P
  Dim rest_length = 0;  // (of x when perm is null)

  CHAINSAW_HD double r(int index, int size, int i, int j) const {
    return rotation[index][transposed ? j * size + i : i * size + j];
  }
  CHAINSAW_HD Dim rest_chunks() const {
    return (rest_length + kCec2013RestChunk - 1) / kCec2013RestChunk;
  }
  // Items of a row: the groups, then the rest's chunks.
  CHAINSAW_HD Dim items() const { return group_count + rest_chunks(); }
};

namespace detail {

// The position-dependent factors of a sequence of n values (a group, or the rest) as the
// official transform_asy, Lambda and elliptic compute them from i / (n - 1); 0 for n = 1 (the
// official code divides by zero there, a case no instance has).
struct Cec2013Rates {
  double inverse_span = 0.0;  // 1 / (n - 1)
  double lambda_rate = 0.0;   // log2(10^(1/2)) / (n - 1): Lambda^10's factor 10^(i/(2(n-1)))
  double elliptic_rate = 0.0;  // log2(10^6) / (n - 1)
  CHAINSAW_HD explicit Cec2013Rates(Dim n) {
    if (n > 1) {
      inverse_span = 1.0 / static_cast<double>(n - 1);
      lambda_rate = 1.6609640474436811739 * inverse_span;  // log2(10) / 2
      elliptic_rate = detail::elliptic_rate(n);
    }
  }
};

// sin(r) for |r| <= pi/2 (a hair beyond is fine): its Taylor series to r^21, the next term
// < 2e-18 at pi/2, written out from 1/21! down (literals: no table for a GPU to place).
CHAINSAW_HD double sin_taylor_half_pi(double r) {
  const double r2 = r * r;
  double s = 1.0 / 51090942171709440000.0;
  s = s * r2 - 1.0 / 121645100408832000.0;
  s = s * r2 + 1.0 / 355687428096000.0;
  s = s * r2 - 1.0 / 1307674368000.0;
  s = s * r2 + 1.0 / 6227020800.0;
  s = s * r2 - 1.0 / 39916800.0;
  s = s * r2 + 1.0 / 362880.0;
  s = s * r2 - 1.0 / 5040.0;
  s = s * r2 + 1.0 / 120.0;
  s = s * r2 - 1.0 / 6.0;
  return r + r * (r2 * s);
}
// sin(x) of a general argument, branch-free, by reduce_by_pi (fitness/functions.hpp). Within
// 1e-15 of sin (absolute; tests/test_cec2013.cpp) for |x| < 2^21 pi: T_osz's arguments are at
// most 10 |log|x|| < 7500. A third of the cost of the library's sin, which was T_osz's largest
// part.
CHAINSAW_HD double sin_polynomial(double x) {
  const PiReduced p = reduce_by_pi(x);
  const double s = sin_taylor_half_pi(p.r);
  return p.odd ? -s : s;
}

// sin for T_osz: the GPU's own sin; on the host sin_polynomial, whose error of 1e-15 moves
// T_osz by 5e-17 relative.
CHAINSAW_HD double cec2013_sin(double x) {
#if defined(__CUDA_ARCH__)
  return sin(x);
#else
  return sin_polynomial(x);
#endif
}

// T_osz: sign(x) exp(x^ + 0.049 (sin(c1 x^) + sin(c2 x^))), x^ = log|x| (0 at 0), c1 = 10 and
// c2 = 7.9 for x > 0, 5.5 and 3.1 otherwise.
CHAINSAW_HD double cec2013_osz(double x) {
  if (x == 0.0) return 0.0;
  const double h = log(fabs(x));
  const bool positive = x > 0.0;
  const double e = exp(h + 0.049 * (cec2013_sin((positive ? 10.0 : 5.5) * h) +
                                    cec2013_sin((positive ? 7.9 : 3.1) * h)));
  return positive ? e : -e;
}
// T_osz of n <= kCec2013OszBlock values in place, cec2013_osz's bits: the logarithms, then the
// sines of all n (branch-free arithmetic that vectorises and overlaps, where one value's
// polynomial waited on the last), then the exponentials.
inline constexpr int kCec2013OszBlock = 64;
CHAINSAW_HD void cec2013_osz_block(double* y, int n) {
  double t[kCec2013OszBlock];
  for (int k = 0; k < n; ++k) t[k] = y[k] == 0.0 ? 0.0 : log(fabs(y[k]));
  for (int k = 0; k < n; ++k) {
    const double h = t[k];
    const bool positive = y[k] > 0.0;
    t[k] = h + 0.049 * (cec2013_sin((positive ? 10.0 : 5.5) * h) +
                        cec2013_sin((positive ? 7.9 : 3.1) * h));
  }
  for (int k = 0; k < n; ++k) {
    const double e = exp(t[k]);
    y[k] = y[k] == 0.0 ? 0.0 : y[k] > 0.0 ? e : -e;
  }
}

// T_asy^0.2 of the i-th of n values: x^(1 + 0.2 i/(n-1) sqrt(x)) for x > 0.
CHAINSAW_HD double cec2013_asy(double x, Dim i, const Cec2013Rates& rates) {
  if (!(x > 0.0)) return x;
  return pow(x, 1.0 + 0.2 * static_cast<double>(i) * rates.inverse_span * sqrt(x));
}
// Lambda^10 of the i-th of n values: x 10^(i / (2 (n - 1))).
CHAINSAW_HD double cec2013_lambda(double x, Dim i, const Cec2013Rates& rates) {
  return x * exp2(static_cast<double>(i) * rates.lambda_rate);
}

// w = R z of group g, each w_i summed in j order. Eight rows at a time: their sums are
// independent, where one row's waited on each add before the next (the same bits).
CHAINSAW_HD void cec2013_rotate(const Cec2013View& v, const Cec2013Group& g, const double* z,
                                double* w) {
  const int s = g.size;
  int i = 0;
  if (!v.transposed) {
    constexpr int kRows = 8;
    const double* rows = v.rotation[g.rotation];
    for (; i + kRows <= s; i += kRows) {
      double sum[kRows] = {};
      for (int j = 0; j < s; ++j)
        for (int k = 0; k < kRows; ++k) sum[k] += rows[(i + k) * s + j] * z[j];
      for (int k = 0; k < kRows; ++k) w[i + k] = sum[k];
    }
  }
  for (; i < s; ++i) {
    double sum = 0.0;
    for (int j = 0; j < s; ++j) sum += v.r(g.rotation, s, i, j) * z[j];
    w[i] = sum;
  }
}

}  // namespace detail

// A base function over a sequence of n values z_0 .. z_{n-1} in order: add(p, z, i, rates)
// takes z_i (with its transforms), finish(p, n) the value. The official code's transforms per
// base: Elliptic T_osz; Rastrigin and Ackley T_osz, T_asy^0.2, Lambda^10; Schwefel 1.2 T_osz,
// T_asy^0.2; Sphere and Rosenbrock none (Rosenbrock on z itself: its optimum is z = 1).
// kOsz: add(p, z, i, rates) is add_osz(p, cec2013_osz(z), i, rates), so that a sequence's
// T_osz can be taken a block at a time (cec2013_add_sequence).
template <Cec2013Base B>
struct Cec2013BaseFn {
  static constexpr bool kOsz = false;
  using Partial = SumPartial;  // kNone: no values
  CHAINSAW_HD static void add(Partial&, double, Dim, const detail::Cec2013Rates&) {}
  CHAINSAW_HD static double finish(const Partial&, Dim) { return 0.0; }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kElliptic> {
  static constexpr bool kOsz = true;
  using Partial = SumPartial;
  CHAINSAW_HD static void add(Partial& p, double z, Dim i, const detail::Cec2013Rates& rates) {
    add_osz(p, detail::cec2013_osz(z), i, rates);
  }
  CHAINSAW_HD static void add_osz(Partial& p, double v, Dim i, const detail::Cec2013Rates& rates) {
    p.sum += detail::elliptic_weight(i, rates.elliptic_rate) * v * v;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim) { return p.sum; }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kRastrigin> {
  static constexpr bool kOsz = true;
  using Partial = SumPartial;
  CHAINSAW_HD static void add(Partial& p, double z, Dim i, const detail::Cec2013Rates& rates) {
    add_osz(p, detail::cec2013_osz(z), i, rates);
  }
  CHAINSAW_HD static void add_osz(Partial& p, double y, Dim i, const detail::Cec2013Rates& rates) {
    const double v = detail::cec2013_lambda(detail::cec2013_asy(y, i, rates), i, rates);
    p.sum += detail::rastrigin_term(v);  // v^2 - 10 cos(2 pi v) + 10
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim) { return p.sum; }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kAckley> {
  static constexpr bool kOsz = true;
  using Partial = TwoSumsPartial;  // sum v^2, sum cos(2 pi v)
  CHAINSAW_HD static void add(Partial& p, double z, Dim i, const detail::Cec2013Rates& rates) {
    add_osz(p, detail::cec2013_osz(z), i, rates);
  }
  CHAINSAW_HD static void add_osz(Partial& p, double y, Dim i, const detail::Cec2013Rates& rates) {
    const double v = detail::cec2013_lambda(detail::cec2013_asy(y, i, rates), i, rates);
    p.first += v * v;
    p.second += detail::cos_two_pi(v);
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim n) {
    return detail::ackley(p.first, p.second, n);
  }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kSchwefel> {
  static constexpr bool kOsz = true;
  using Partial = PrefixSquarePartial;
  CHAINSAW_HD static void add(Partial& p, double z, Dim i, const detail::Cec2013Rates& rates) {
    add_osz(p, detail::cec2013_osz(z), i, rates);
  }
  CHAINSAW_HD static void add_osz(Partial& p, double y, Dim i, const detail::Cec2013Rates& rates) {
    Schwefel12::accumulate(p, detail::cec2013_asy(y, i, rates), i + 1);
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim) { return p.prefix_square_sum; }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kSphere> {
  static constexpr bool kOsz = false;
  using Partial = SumPartial;
  CHAINSAW_HD static void add(Partial& p, double z, Dim, const detail::Cec2013Rates&) {
    p.sum += z * z;
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim) { return p.sum; }
};
template <>
struct Cec2013BaseFn<Cec2013Base::kRosenbrock> {
  static constexpr bool kOsz = false;
  using Partial = RosenbrockPartial;
  CHAINSAW_HD static void add(Partial& p, double z, Dim i, const detail::Cec2013Rates&) {
    p.add(z, static_cast<double>(i + 1));
  }
  CHAINSAW_HD static double finish(const Partial& p, Dim) { return p.sum; }
};

// Values z_of(k), k in [begin, end), into a base's partial in k order: add's bits, with T_osz
// taken a block at a time.
template <class Base, class Z>
CHAINSAW_HD void cec2013_add_sequence(typename Base::Partial& p, Dim begin, Dim end,
                                      const detail::Cec2013Rates& rates, const Z& z_of) {
  if constexpr (!Base::kOsz) {
    for (Dim k = begin; k < end; ++k) Base::add(p, z_of(k), k, rates);
  } else {
    double y[detail::kCec2013OszBlock];
    for (Dim first = begin; first < end; first += detail::kCec2013OszBlock) {
      const int n = static_cast<int>(
          end - first < detail::kCec2013OszBlock ? end - first : detail::kCec2013OszBlock);
      for (int k = 0; k < n; ++k) y[k] = z_of(first + k);
      detail::cec2013_osz_block(y, n);
      for (int k = 0; k < n; ++k) Base::add_osz(p, y[k], first + k, rates);
    }
  }
}

// One CEC 2013 function, F<N>: its layout and the bases of its groups and of its rest.
template <int N>
struct Cec2013Fn {
  static constexpr int kNumber = N;
  static constexpr Cec2013Spec kSpec = cec2013_spec(N);
  using GroupBase = Cec2013BaseFn<kSpec.group_base>;
  using RestBase = Cec2013BaseFn<kSpec.rest_base>;
  using RestPartial = typename RestBase::Partial;

  // z_k of group g (k < its size): gene P[start + k] minus its optimum (F14: the group's own).
  template <class T>
  CHAINSAW_HD static double group_z(const Cec2013View& v, const T* x, const Cec2013Group& g,
                                    int k) {
    const std::int32_t j = v.perm[g.start + k];
    const double o = kSpec.layout == Cec2013Layout::kConflicting ? v.o[g.o_offset + k] : v.o[j];
    return static_cast<double>(x[j]) - o;
  }

  // The value of the rotated w = R z of a group, w_i given in order: the base's partial.
  CHAINSAW_HD static double group_finish(const typename GroupBase::Partial& p,
                                         const Cec2013Group& g) {
    return g.weight * GroupBase::finish(p, g.size);
  }

  // Group g's weighted value on one thread (the host): gather, rotate (each w_i summed in j
  // order), transform and reduce in i order.
  template <class T>
  CHAINSAW_HD static double group_value(const Cec2013View& v, const T* x, int index) {
    const Cec2013Group& g = v.groups[index];
    double z[kCec2013MaxGroup], w[kCec2013MaxGroup];
    for (int k = 0; k < g.size; ++k) z[k] = group_z(v, x, g, k);
    detail::cec2013_rotate(v, g, z, w);
    const detail::Cec2013Rates rates(g.size);
    typename GroupBase::Partial p{};
    cec2013_add_sequence<GroupBase>(p, 0, g.size, rates, [&w](Dim i) { return w[i]; });
    return group_finish(p, g);
  }

  // z_k of the rest (k < rest_length).
  template <class T>
  CHAINSAW_HD static double rest_z(const Cec2013View& v, const T* x, Dim k) {
    const Dim j = v.perm != nullptr ? static_cast<Dim>(v.perm[v.rest_begin + k]) : k;
    return static_cast<double>(x[j]) - v.o[j];
  }
  // The rest's partial over its values [begin, end), in order.
  template <class T>
  CHAINSAW_HD static RestPartial rest_partial(const Cec2013View& v, const T* x, Dim begin,
                                              Dim end) {
    const detail::Cec2013Rates rates(v.rest_length);
    RestPartial p{};
#if defined(__CUDA_ARCH__)
    // A GPU thread adds its values one at a time (no block buffer in its registers).
    for (Dim k = begin; k < end; ++k) RestBase::add(p, rest_z(v, x, k), k, rates);
#else
    cec2013_add_sequence<RestBase>(p, begin, end, rates,
                                   [&v, x](Dim k) { return rest_z(v, x, k); });
#endif
    return p;
  }

  // f from the groups' values summed in order and the rest's partial (all its chunks combined
  // in order).
  CHAINSAW_HD static double finish(double groups, const RestPartial& rest, Dim rest_length) {
    return groups + (rest_length > 0 ? RestBase::finish(rest, rest_length) : 0.0);
  }
};

// Calls f(Cec2013Fn<1>{}) ... f(Cec2013Fn<15>{}) for a function number.
template <class F>
decltype(auto) visit_cec2013(int number, F&& f) {
  switch (number) {
    case 1: return f(Cec2013Fn<1>{});
    case 2: return f(Cec2013Fn<2>{});
    case 3: return f(Cec2013Fn<3>{});
    case 4: return f(Cec2013Fn<4>{});
    case 5: return f(Cec2013Fn<5>{});
    case 6: return f(Cec2013Fn<6>{});
    case 7: return f(Cec2013Fn<7>{});
    case 8: return f(Cec2013Fn<8>{});
    case 9: return f(Cec2013Fn<9>{});
    case 10: return f(Cec2013Fn<10>{});
    case 11: return f(Cec2013Fn<11>{});
    case 12: return f(Cec2013Fn<12>{});
    case 13: return f(Cec2013Fn<13>{});
    case 14: return f(Cec2013Fn<14>{});
    default: return f(Cec2013Fn<15>{});
  }
}

// f(x) of function `number` on one thread, items in order: the host's value of a row (x of any
// floating type, the tests' float64 points too).
template <class T>
double cec2013_value(int number, const Cec2013View& v, const T* x) {
  return visit_cec2013(number, [&](auto fn) {
    using Fn = decltype(fn);
    double groups = 0.0;
    for (int g = 0; g < v.group_count; ++g) groups += Fn::group_value(v, x, g);
    typename Fn::RestPartial rest{};
    for (Dim c = 0; c < v.rest_chunks(); ++c) {
      const Dim begin = c * kCec2013RestChunk;
      const Dim end = begin + kCec2013RestChunk < v.rest_length ? begin + kCec2013RestChunk
                                                                : v.rest_length;
      rest = Fn::RestPartial::combine(rest, Fn::rest_partial(v, x, begin, end));
    }
    return Fn::finish(groups, rest, v.rest_length);
  });
}

}  // namespace chainsaw
