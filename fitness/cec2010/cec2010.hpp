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
  double rest_rate = 0.0;  // elliptic_rate of the rest's length (F1, F4, F9)
};

enum class CecLayout {
  kSeparable,     // F1-F3: no permutation, the base function on all of z
  kOneGroup,      // F4-F8: one group (weighted 10^6) + the rest
  kHalfGroups,    // F9-F13: D/(2m) groups + the rest (the other half)
  kAllGroups,     // F14-F18: D/m groups
  kNonSeparable,  // F19-F20: the base function on all of z, in index order
};
enum class CecBase { kNone, kElliptic, kRastrigin, kAckley, kSchwefel, kRosenbrock, kSphere };

constexpr bool cec_has_groups(CecLayout layout) {
  return layout != CecLayout::kSeparable && layout != CecLayout::kNonSeparable;
}
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

namespace detail {

// The elliptic weight (10^6)^(i/(n-1)), i 0-based, is exp2(i r) with r = log2(10^6)/(n-1): one
// exp2 per gene instead of a pow, which on the GPU cost more than the rest of the term
// (bench/results/2026-11-23-h100-cec2010).
inline constexpr double kLog2Million = 19.931568569324174087;
CHAINSAW_HD double elliptic_rate(Dim n) {
  return n > 1 ? kLog2Million / static_cast<double>(n - 1) : 0.0;
}
CHAINSAW_HD double elliptic_weight(Dim i, double rate) {
  return exp2(static_cast<double>(i) * rate);
}

// A group's value is computed by one thread over its m variables in index order (the same
// code on the host and in the GPU's group pass, fitness/cec2010/device_cec2010.cuh, where only F4-F6's
// single group is shared by a warp). The bases that are a sum of per-variable terms (the rotated
// ones: elliptic, Rastrigin, Ackley) collect their terms here.
struct GroupSums {
  static constexpr bool kOrdered = false;
  double sum = 0.0;      // the base's sum (Ackley: of w^2)
  double cos_sum = 0.0;  // Ackley only: sum cos(2 pi w)
  CHAINSAW_HD static GroupSums combine(const GroupSums& a, const GroupSums& b) {
    return {a.sum + b.sum, a.cos_sum + b.cos_sum};
  }
};
template <CecBase Base>
inline constexpr bool kTermwiseBase =
    Base == CecBase::kElliptic || Base == CecBase::kRastrigin || Base == CecBase::kAckley;

// The elliptic weights of a group's m variables, computed once by whoever evaluates many groups.
struct GroupWeights {
  double w[kCecGroup];
  CHAINSAW_HD void fill(int first, int step) {
    for (int i = first; i < kCecGroup; i += step) w[i] = elliptic_weight(i, elliptic_rate(kCecGroup));
  }
};

// Variable i of a group (value w) into its sums.
template <CecBase Base>
CHAINSAW_HD void cec_group_term(GroupSums& a, int i, double w, const GroupWeights& weights) {
  static_assert(kTermwiseBase<Base>, "Schwefel 1.2 and Rosenbrock couple the variables");
  if constexpr (Base == CecBase::kElliptic) {
    a.sum += weights.w[i] * w * w;
  } else if constexpr (Base == CecBase::kRastrigin) {
    a.sum += rastrigin_term(w);
  } else {
    a.sum += w * w;
    a.cos_sum += cos_two_pi(w);
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

// Calls f(k, y_k) for the variables of group g in index order. The y_k are gathered a few at a
// time ahead of their use, so that a GPU thread has that many loads in flight.
template <class F>
CHAINSAW_HD void cec_for_each_gathered(const CecView& v, const real_t* x, Dim g, const F& f) {
  constexpr int m = kCecGroup, kAhead = 10;
  static_assert(m % kAhead == 0, "whole rounds");
  for (int k0 = 0; k0 < m; k0 += kAhead) {
    double y[kAhead];
    CHAINSAW_UNROLL
    for (int c = 0; c < kAhead; ++c) y[c] = cec_gather(v, x, g, k0 + c);
    CHAINSAW_UNROLL
    for (int c = 0; c < kAhead; ++c) f(k0 + c, y[c]);
  }
}

// The terms of the rotated group's components i = first, first + kStride, ... (all of them with
// the default stride 1): w = y M accumulated row by row of M as the y_k arrive (w stays in
// registers on the GPU, and every thread of a warp reads M at the same address), then the terms
// of w in index order. A GPU warp that shares one group takes a stride of 32.
template <CecBase Base, int kStride = 1>
CHAINSAW_HD GroupSums cec_rotated_terms(const CecView& v, const real_t* x, Dim g,
                                        const double* rotation, const GroupWeights& weights,
                                        int first = 0) {
  constexpr int m = kCecGroup, kCount = (m + kStride - 1) / kStride;
  double w[kCount];
  CHAINSAW_UNROLL
  for (int c = 0; c < kCount; ++c) w[c] = 0.0;
  cec_for_each_gathered(v, x, g, [&](int k, double y) {
    const double* row = rotation + k * m;
    CHAINSAW_UNROLL
    for (int c = 0; c < kCount; ++c)
      if (first + c * kStride < m) w[c] += y * row[first + c * kStride];
  });
  GroupSums a;
  CHAINSAW_UNROLL
  for (int c = 0; c < kCount; ++c)
    if (first + c * kStride < m) cec_group_term<Base>(a, first + c * kStride, w[c], weights);
  return a;
}
template <CecBase Base>
CHAINSAW_HD double cec_rotated_group(const CecView& v, const real_t* x, Dim g,
                                     const double* rotation, const GroupWeights& weights) {
  return cec_group_finish<Base>(cec_rotated_terms<Base>(v, x, g, rotation, weights));
}

// The unrotated group bases, which couple the variables, streamed over the gathered y_k.
template <CecBase Base>
CHAINSAW_HD double cec_coupled_group(const CecView& v, const real_t* x, Dim g) {
  static_assert(Base == CecBase::kSchwefel || Base == CecBase::kRosenbrock,
                "the termwise bases are rotated");
  double s = 0.0;
  double carried = 0.0;  // Schwefel 1.2: the prefix sum; Rosenbrock: the previous y + 1
  cec_for_each_gathered(v, x, g, [&](int k, double y) {
    if constexpr (Base == CecBase::kSchwefel) {
      carried += y;
      s += carried * carried;
    } else {
      if (k > 0) s += RosenbrockPair::term(carried, y + 1.0, 0.0);
      carried = y + 1.0;
    }
  });
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

  // The separable term of the rest base at rest index r (v.rest_rate: the rest's length).
  CHAINSAW_HD static void rest_term(Partial& p, double z, Dim r, const CecView& v) {
    if constexpr (RestBase == CecBase::kElliptic)
      p.sum += detail::elliptic_weight(r, v.rest_rate) * z * z;
    else if constexpr (RestBase == CecBase::kRastrigin)
      p.sum += detail::rastrigin_term(z);
    else if constexpr (RestBase == CecBase::kAckley) {
      p.square_sum += z * z;
      p.cos_sum += detail::cos_two_pi(z);
    } else if constexpr (RestBase == CecBase::kSphere) p.sum += z * z;
  }

  // The value of group g of x, gathered through P (and rotated by `rotation`, v.rotation or a
  // copy of it), before kGroupWeight. The GPU computes the groups in a pass of their own
  // (fitness/cec2010/device_cec2010.cuh), one group per thread (F4-F6: per warp, through
  // cec_rotated_terms).
  CHAINSAW_HD static double group_value(const CecView& v, const real_t* x, Dim g,
                                        const double* rotation,
                                        const detail::GroupWeights& weights) {
    if constexpr (!cec_has_groups(Layout)) return 0.0;
    else if constexpr (Rotated) return detail::cec_rotated_group<GroupBase>(v, x, g, rotation, weights);
    else return detail::cec_coupled_group<GroupBase>(v, x, g);
  }

  // Item t of x (gene x_t = x[t], passed in so the GPU reads it coalesced); group(g) gives the
  // value of group g (group_value, or one computed beforehand).
  template <class GroupValue>
  CHAINSAW_HD static void accumulate_item(Partial& p, const CecView& v, double x_t, Dim t,
                                          const GroupValue& group) {
    const double z = x_t - static_cast<double>(v.o[t]);
    if constexpr (Layout == CecLayout::kSeparable) {
      rest_term(p, z, t, v);
    } else if constexpr (Layout == CecLayout::kNonSeparable) {
      if constexpr (RestBase == CecBase::kSchwefel) Schwefel12::accumulate(p, z, t + 1);
      else p.add(z + 1.0, static_cast<double>(t + 1));  // Rosenbrock: z + 1, so f(o) = 0
    } else {
      const Dim k = v.inverse[t];
      if (k >= v.rest_begin) rest_term(p, z, k - v.rest_begin, v);
      if (t % kCecGroup == 0 && t / kCecGroup < v.groups)
        p.sum += kGroupWeight * group(t / kCecGroup);
    }
  }
  CHAINSAW_HD static void accumulate(Partial& p, const CecView& v, const real_t* x, double x_t,
                                     Dim t) {
    accumulate_item(p, v, x_t, t, [&](Dim g) {
      detail::GroupWeights weights;
      if constexpr (kGroupBase == CecBase::kElliptic) weights.fill(0, 1);
      return group_value(v, x, g, v.rotation, weights);
    });
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
