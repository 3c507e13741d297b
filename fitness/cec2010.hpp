// The twenty functions of the CEC'2010 large-scale benchmark (Tang, Li, Suganthan, Yang, Weise
// 2009), written once for both backends.
//
// z = x - o. The grouped functions read the variables through a permutation P: group g is
// z[P[g m]], ..., z[P[g m + m - 1]] (m = 50), the "rest" is the permuted positions after the last
// group. Unlike the six paper functions a group is not a per-gene term, so the reduction runs
// over items t = 0..D-1 of the stored vector x: item t adds gene t's separable term (when its
// permuted position is in the rest) and, when t = g m, the whole value of group g, gathered
// through P (and rotated by M). Gene t itself is read in index order (coalesced on the GPU);
// only the groups gather. Groups start every m items, so every chunk or warp tile carries a
// fair share of them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/types.hpp"
#include "fitness/functions.hpp"
#include "fitness/reduction.hpp"

namespace chainsaw {

inline constexpr int kCecGroup = 50;  // m, the group size of CEC 2010

// The instance a function reads: device or host pointers, the same layout on both.
struct CecView {
  Dim dim = 0;
  Dim groups = 0;      // number of permuted groups of m
  Dim rest_begin = 0;  // groups * m: permuted positions from here on are separable
  const real_t* o = nullptr;
  const std::int32_t* perm = nullptr;     // position k -> variable P[k]
  const std::int32_t* inverse = nullptr;  // variable j -> its position k
  const double* rotation = nullptr;       // m x m, row-major; w = y M (row vector)
};

enum class CecLayout {
  kSeparable,     // F1-F3: no permutation, the base function on all of z
  kOneGroup,      // F4-F8: one group (weighted 10^6) + the rest
  kHalfGroups,    // F9-F13: D/(2m) groups + the rest (the other half)
  kAllGroups,     // F14-F18: D/m groups
  kNonSeparable,  // F19-F20: the base function on all of z, in index order
};
enum class CecBase { kNone, kElliptic, kRastrigin, kAckley, kSchwefel, kRosenbrock, kSphere };

CHAINSAW_HD Dim cec_groups(CecLayout layout, Dim dim) {
  switch (layout) {
    case CecLayout::kOneGroup: return 1;
    case CecLayout::kHalfGroups: return dim / (2 * kCecGroup);
    case CecLayout::kAllGroups: return dim / kCecGroup;
    default: return 0;
  }
}

// Ackley's rest needs two sums before its outer formula; groups add their finished values.
struct AckleyPartial {
  static constexpr bool kOrdered = false;
  double sum = 0.0;        // finished group values
  double square_sum = 0.0;  // rest: sum z^2
  double cos_sum = 0.0;     // rest: sum cos(2 pi z)
  CHAINSAW_HD static AckleyPartial combine(const AckleyPartial& a, const AckleyPartial& b) {
    return {a.sum + b.sum, a.square_sum + b.square_sum, a.cos_sum + b.cos_sum};
  }
};

// Rosenbrock couples neighbours: a chunk keeps its first and last u, and joining two chunks
// adds the one term across the seam. Ordered; an empty partial (count 0) is the identity.
struct RosenbrockPartial {
  static constexpr bool kOrdered = true;
  double sum = 0.0;
  double first = 0.0;
  double last = 0.0;
  double count = 0.0;
  CHAINSAW_HD static double term(double u, double next) {
    const double a = u * u - next;
    return 100.0 * a * a + (u - 1.0) * (u - 1.0);
  }
  CHAINSAW_HD void add(double u) {
    if (count > 0.0) sum += term(last, u);
    else first = u;
    last = u;
    count += 1.0;
  }
  CHAINSAW_HD static RosenbrockPartial combine(const RosenbrockPartial& a,
                                               const RosenbrockPartial& b) {
    if (a.count == 0.0) return b;
    if (b.count == 0.0) return a;
    return {a.sum + b.sum + term(a.last, b.first), a.first, b.last, a.count + b.count};
  }
};

namespace detail {
inline constexpr double kE = 2.718281828459045235360287;

CHAINSAW_HD double elliptic_weight(Dim i, Dim n) {  // (10^6)^(i/(n-1)), i 0-based
  return n > 1 ? pow(1.0e6, static_cast<double>(i) / static_cast<double>(n - 1)) : 1.0;
}
CHAINSAW_HD double ackley(double square_sum, double cos_sum, Dim n) {
  if (n == 0) return 0.0;
  const double nd = static_cast<double>(n);
  // -20 e^(-0.2 sqrt(s/n)) - e^(c/n) + 20 + e, regrouped so that each half is exactly 0 at the
  // optimum (s = 0, c = n) instead of a difference of two rounded ~22.7s: F6 weighs it by 10^6.
  return -20.0 * expm1(-0.2 * sqrt(square_sum / nd)) - kE * expm1(cos_sum / nd - 1.0);
}

// The group bases that are a sum of per-variable terms (the rotated ones: elliptic, Rastrigin,
// Ackley) collect their terms here, in any order: the host adds them in index order, the GPU
// one term per lane of a warp (fitness/device_cec2010.cuh).
struct GroupSums {
  static constexpr bool kOrdered = false;
  double sum = 0.0;      // the base's sum (Ackley: of y^2)
  double cos_sum = 0.0;  // Ackley only: sum cos(2 pi y)
  CHAINSAW_HD static GroupSums combine(const GroupSums& a, const GroupSums& b) {
    return {a.sum + b.sum, a.cos_sum + b.cos_sum};
  }
};
template <CecBase Base>
inline constexpr bool kTermwiseBase =
    Base == CecBase::kElliptic || Base == CecBase::kRastrigin || Base == CecBase::kAckley;

// Variable i of a group (value y) into its sums.
template <CecBase Base>
CHAINSAW_HD void cec_group_term(GroupSums& a, int i, double y) {
  static_assert(kTermwiseBase<Base>, "Schwefel 1.2 and Rosenbrock couple the variables");
  if constexpr (Base == CecBase::kElliptic) {
    a.sum += elliptic_weight(i, kCecGroup) * y * y;
  } else if constexpr (Base == CecBase::kRastrigin) {
    a.sum += y * y - 10.0 * cos_two_pi(y) + 10.0;
  } else {
    a.sum += y * y;
    a.cos_sum += cos_two_pi(y);
  }
}
template <CecBase Base>
CHAINSAW_HD double cec_group_finish(const GroupSums& a) {
  if constexpr (Base == CecBase::kAckley) return ackley(a.sum, a.cos_sum, kCecGroup);
  else return a.sum;
}

// Variable i of group g of x, gathered through P: y_i = x[P[g m + i]] - o[P[g m + i]].
CHAINSAW_HD double cec_gather(const CecView& v, const real_t* x, Dim g, int i) {
  const std::int32_t j = v.perm[g * kCecGroup + i];
  return static_cast<double>(x[j]) - static_cast<double>(v.o[j]);
}

// Component i of the rotated group w = y M (M m x m, row-major).
CHAINSAW_HD double cec_rotate(const double* y, const double* rotation, int i) {
  double s = 0.0;
  for (int k = 0; k < kCecGroup; ++k) s += y[k] * rotation[k * kCecGroup + i];
  return s;
}

// A base function on a whole group y[0..m).
template <CecBase Base>
CHAINSAW_HD double cec_group_base(const double* y) {
  constexpr int m = kCecGroup;
  double s = 0.0;
  if constexpr (kTermwiseBase<Base>) {
    GroupSums a;
    for (int i = 0; i < m; ++i) cec_group_term<Base>(a, i, y[i]);
    s = cec_group_finish<Base>(a);
  } else if constexpr (Base == CecBase::kSchwefel) {
    double prefix = 0.0;
    for (int i = 0; i < m; ++i) {
      prefix += y[i];
      s += prefix * prefix;
    }
  } else if constexpr (Base == CecBase::kRosenbrock) {
    for (int i = 0; i + 1 < m; ++i) s += RosenbrockPartial::term(y[i] + 1.0, y[i + 1] + 1.0);
  }
  return s;
}
}  // namespace detail

// One CEC 2010 function: the layout, the base of the groups (rotated or not) and of the rest.
template <CecLayout Layout, CecBase GroupBase, bool Rotated, CecBase RestBase>
struct CecFunction {
  static constexpr CecLayout kLayout = Layout;
  static constexpr CecBase kGroupBase = GroupBase;
  static constexpr bool kRotated = Rotated;
  static constexpr double kBias = 0.0;  // the optimum value is 0
  static constexpr double kGroupWeight = Layout == CecLayout::kOneGroup ? 1.0e6 : 1.0;
  using Partial = std::conditional_t<
      Layout == CecLayout::kNonSeparable,
      std::conditional_t<RestBase == CecBase::kSchwefel, PrefixSquarePartial, RosenbrockPartial>,
      std::conditional_t<RestBase == CecBase::kAckley, AckleyPartial, SumPartial>>;

  // The separable term of the rest base at rest index r of n.
  CHAINSAW_HD static void rest_term(Partial& p, double z, Dim r, Dim n) {
    if constexpr (RestBase == CecBase::kElliptic) p.sum += detail::elliptic_weight(r, n) * z * z;
    else if constexpr (RestBase == CecBase::kRastrigin)
      p.sum += z * z - 10.0 * detail::cos_two_pi(z) + 10.0;
    else if constexpr (RestBase == CecBase::kAckley) {
      p.square_sum += z * z;
      p.cos_sum += detail::cos_two_pi(z);
    } else if constexpr (RestBase == CecBase::kSphere) p.sum += z * z;
  }

  // The value of group g of x, gathered through P (and rotated), before kGroupWeight. The GPU
  // computes the rotated groups in a pass of their own (fitness/device_cec2010.cuh).
  CHAINSAW_HD static double group_value(const CecView& v, const real_t* x, Dim g) {
    constexpr int m = kCecGroup;
    double y[m];
    for (int i = 0; i < m; ++i) y[i] = detail::cec_gather(v, x, g, i);
    if constexpr (Rotated) {
      double w[m];
      for (int i = 0; i < m; ++i) w[i] = detail::cec_rotate(y, v.rotation, i);
      return detail::cec_group_base<GroupBase>(w);
    } else {
      return detail::cec_group_base<GroupBase>(y);
    }
  }

  // Item t of x (gene x_t = x[t], passed in so the GPU reads it coalesced); group(g) gives the
  // value of group g (group_value, or one computed beforehand).
  template <class GroupValue>
  CHAINSAW_HD static void accumulate_item(Partial& p, const CecView& v, double x_t, Dim t,
                                          const GroupValue& group) {
    const double z = x_t - static_cast<double>(v.o[t]);
    if constexpr (Layout == CecLayout::kSeparable) {
      rest_term(p, z, t, v.dim);
    } else if constexpr (Layout == CecLayout::kNonSeparable) {
      if constexpr (RestBase == CecBase::kSchwefel) Schwefel12::accumulate(p, z, t + 1);
      else p.add(z + 1.0);  // Rosenbrock: z = x - o + 1, so that f(o) = 0
    } else {
      const Dim k = v.inverse[t];
      if (k >= v.rest_begin) rest_term(p, z, k - v.rest_begin, v.dim - v.rest_begin);
      if (t % kCecGroup == 0 && t / kCecGroup < v.groups)
        p.sum += kGroupWeight * group(t / kCecGroup);
    }
  }
  CHAINSAW_HD static void accumulate(Partial& p, const CecView& v, const real_t* x, double x_t,
                                     Dim t) {
    accumulate_item(p, v, x_t, t, [&](Dim g) { return group_value(v, x, g); });
  }

  CHAINSAW_HD static double finish(const Partial& p, Dim dim) {
    if constexpr (Layout == CecLayout::kNonSeparable) {
      if constexpr (RestBase == CecBase::kSchwefel) return p.prefix_square_sum;
      else return p.sum;
    } else if constexpr (RestBase == CecBase::kAckley) {
      return p.sum + detail::ackley(p.square_sum, p.cos_sum,
                                    dim - cec_groups(Layout, dim) * kCecGroup);
    } else {
      return p.sum;
    }
  }
};

using CecF1 = CecFunction<CecLayout::kSeparable, CecBase::kNone, false, CecBase::kElliptic>;
using CecF2 = CecFunction<CecLayout::kSeparable, CecBase::kNone, false, CecBase::kRastrigin>;
using CecF3 = CecFunction<CecLayout::kSeparable, CecBase::kNone, false, CecBase::kAckley>;
using CecF4 = CecFunction<CecLayout::kOneGroup, CecBase::kElliptic, true, CecBase::kElliptic>;
using CecF5 = CecFunction<CecLayout::kOneGroup, CecBase::kRastrigin, true, CecBase::kRastrigin>;
using CecF6 = CecFunction<CecLayout::kOneGroup, CecBase::kAckley, true, CecBase::kAckley>;
using CecF7 = CecFunction<CecLayout::kOneGroup, CecBase::kSchwefel, false, CecBase::kSphere>;
using CecF8 = CecFunction<CecLayout::kOneGroup, CecBase::kRosenbrock, false, CecBase::kSphere>;
using CecF9 = CecFunction<CecLayout::kHalfGroups, CecBase::kElliptic, true, CecBase::kElliptic>;
using CecF10 = CecFunction<CecLayout::kHalfGroups, CecBase::kRastrigin, true, CecBase::kRastrigin>;
using CecF11 = CecFunction<CecLayout::kHalfGroups, CecBase::kAckley, true, CecBase::kAckley>;
using CecF12 = CecFunction<CecLayout::kHalfGroups, CecBase::kSchwefel, false, CecBase::kSphere>;
using CecF13 = CecFunction<CecLayout::kHalfGroups, CecBase::kRosenbrock, false, CecBase::kSphere>;
using CecF14 = CecFunction<CecLayout::kAllGroups, CecBase::kElliptic, true, CecBase::kNone>;
using CecF15 = CecFunction<CecLayout::kAllGroups, CecBase::kRastrigin, true, CecBase::kNone>;
using CecF16 = CecFunction<CecLayout::kAllGroups, CecBase::kAckley, true, CecBase::kNone>;
using CecF17 = CecFunction<CecLayout::kAllGroups, CecBase::kSchwefel, false, CecBase::kNone>;
using CecF18 = CecFunction<CecLayout::kAllGroups, CecBase::kRosenbrock, false, CecBase::kNone>;
using CecF19 = CecFunction<CecLayout::kNonSeparable, CecBase::kNone, false, CecBase::kSchwefel>;
using CecF20 = CecFunction<CecLayout::kNonSeparable, CecBase::kNone, false, CecBase::kRosenbrock>;

}  // namespace chainsaw
